//! islagen: a fast, deterministic procedural island-world generator.
//!
//! The only output the game server needs is a `.dat` blueprint ([`blueprint`]); the generator
//! is driven by a `ServerConfig.json`-compatible [`config`]. [`pipeline`] runs the [`stages`]
//! (over [`grid`] kernels) and exports a world; [`render`] draws its pictures; [`formats`] holds
//! the neighbouring formats; [`exports`] writes heightmaps, splat maps and GeoJSON for engines
//! and GIS; [`sweep`] runs many seeds. docs/ARCHITECTURE.md draws the data flow.
//!
//! The library has no web or command-line dependencies: `islagen-serve` and the `islagen`
//! binary are built on this API alone. A world in a few lines (`examples/generate.rs` also
//! writes its files):
//!
//! ```
//! use islagen::{config::Config, pipeline, progress::Progress};
//!
//! // Any ServerConfig.json text, validated as the command line validates it.
//! let loaded = Config::from_json(r#"{ "MapSize": 256 }"#, "an example").unwrap();
//! let world = pipeline::generate(&loaded.config, 42, &Progress::hidden()).unwrap();
//! assert_eq!(world.stats.map_size, 256);
//! assert!(world.stats.land_fraction > 0.1 && world.stats.land_fraction < 0.9);
//! let mut v2 = Vec::new();
//! let len = islagen::blueprint::write::write_v2(&mut v2, &world.blueprint).unwrap();
//! assert_eq!((len, &v2[..4]), (v2.len() as u64, &b"ISLA"[..]));
//! ```

#![deny(missing_docs)]

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
pub mod sea;
pub mod seed;
pub mod stages;
pub mod sweep;
pub mod units;

/// The short git hash of the source this binary was built from, or "" outside a checkout.
pub const GIT_HASH: &str = env!("ISLAGEN_GIT_HASH");
