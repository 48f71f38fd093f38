//! Generation stages, one module each: a function from its own small parameter struct and grids
//! to its outputs, with no file I/O, no printing, no global state, no config type and no wire
//! record. [`crate::pipeline`] orders them, maps the config to their parameters and their
//! outputs to records; each stage is usable and tested on its own. Shared grid kernels live in
//! [`crate::grid`], units in [`crate::units`], per-stage seeds in [`crate::seed`].

pub mod basins;
pub mod biomes;
pub mod coast;
pub mod crater;
pub mod curve;
pub mod detail;
pub mod elevation;
pub mod erosion;
pub mod fluvial;
pub mod grading;
pub mod mainland;
pub mod rills;
pub mod rivers;
pub mod roads;
pub mod sea;
pub mod texture;
pub mod topography;
pub mod towns;
pub mod water_bodies;
