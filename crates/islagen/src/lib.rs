//! islagen: a fast, deterministic procedural island-world generator.
//!
//! The only output the game server needs is a `.dat` blueprint ([`blueprint`]); the generator
//! is driven by a `ServerConfig.json`-compatible [`config`]. [`pipeline`] runs the stages and
//! exports a world; [`render`] draws its pictures; [`formats`] holds the neighbouring formats;
//! [`exports`] writes heightmaps, splat maps and GeoJSON for engines and GIS; [`sweep`] runs many
//! seeds. The crate root re-exports what generating, reading, writing and exporting a world
//! needs. docs/ARCHITECTURE.md draws the data flow.
//!
//! The stages themselves, their grid kernels and parameter mappings, the fuzzing entry points and
//! the sample blueprint are public only with the `internals` feature, which the benchmarks, the
//! research tools and the integration tests use; their shape changes whenever the terrain does.
//!
//! The library has no web or command-line dependencies: `islagen-serve` and the `islagen`
//! binary are built on this API alone. A world in a few lines (`examples/generate.rs` also
//! writes its files):
//!
//! ```
//! use islagen::{generate, Config, Progress};
//!
//! // Any ServerConfig.json text, validated as the command line validates it.
//! let loaded = Config::from_json(r#"{ "MapSize": 256 }"#, "an example").unwrap();
//! let world = generate(&loaded.config, 42, &Progress::hidden()).unwrap();
//! assert_eq!(world.stats.map_size, 256);
//! assert!(world.stats.land_fraction > 0.1 && world.stats.land_fraction < 0.9);
//! let mut v2 = Vec::new();
//! let len = islagen::write_v2(&mut v2, &world.blueprint).unwrap();
//! assert_eq!((len, &v2[..4]), (v2.len() as u64, &b"ISLA"[..]));
//! ```

#![deny(missing_docs)]

/// Declares modules that are public with the `internals` feature (benchmarks, research tools,
/// fuzz targets, integration tests) and private to the crate otherwise. Without the feature,
/// what only those callers use (and re-export) is unused here, hence the allowance.
macro_rules! internal_modules {
    ($($name:ident),* $(,)?) => {$(
        #[cfg(feature = "internals")]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        #[allow(dead_code, unused_imports)]
        mod $name;
    )*};
}
pub(crate) use internal_modules;

pub mod blueprint;
pub mod config;
pub mod dials;
pub mod exports;
pub mod formats;
pub mod memory;
pub mod output;
pub mod pipeline;
pub mod progress;
pub mod render;
pub mod sea;
pub mod seed;
pub mod sweep;
pub mod units;

internal_modules!(fuzzing, grid, stages);

pub use blueprint::{
    read_file, write_v1_file, write_v2, write_v2_file, Blueprint, ReadError, WriteError,
};
pub use config::{Config, ConfigError, LoadedConfig, Overrides};
pub use exports::{ExportError, ExportKind};
pub use pipeline::{
    export, generate, generate_and_export, GenerateError, OutputError, RunError, SidecarLayout,
    World, WorldStats, Written,
};
pub use progress::{Progress, ProgressEvent, ProgressSink};
pub use sweep::SweepError;

/// The short git hash of the source this binary was built from, or "" outside a checkout.
pub const GIT_HASH: &str = env!("ISLAGEN_GIT_HASH");
