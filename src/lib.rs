//! islagen: a fast, deterministic procedural island-world generator.
//!
//! The only output the game server needs is a `.dat` blueprint ([`blueprint`]); the generator
//! is driven by a `ServerConfig.json`-compatible [`config`]. [`pipeline`] runs the [`stages`]
//! (over [`grid`] kernels) and exports a world; [`render`] draws its pictures; [`formats`] holds
//! the neighbouring formats; [`exports`] writes heightmaps, splat maps and GeoJSON for engines
//! and GIS; [`sweep`] runs many seeds. docs/ARCHITECTURE.md draws the data flow.

pub mod blueprint;
pub mod config;
pub mod exports;
pub mod formats;
pub mod fuzzing;
pub mod grid;
pub mod memory;
pub mod output;
pub mod pipeline;
pub mod progress;
pub mod render;
pub mod seed;
pub mod serve;
pub mod stages;
pub mod sweep;
pub mod units;

/// The short git hash of the source this binary was built from, or "" outside a checkout.
pub const GIT_HASH: &str = env!("ISLAGEN_GIT_HASH");
