//! Generation stages, one module each: a function from its inputs to its outputs, with no file
//! I/O, no printing and no global state. [`crate::pipeline`] orders them; each stage is usable
//! and tested on its own.

pub mod basins;
pub mod biomes;
pub mod coast;
pub mod crater;
pub mod curve;
pub mod detail;
pub mod elevation;
pub mod erosion;
pub mod mainland;
pub mod roads;
pub mod sea;
pub mod topography;
pub mod towns;
pub mod water_bodies;
