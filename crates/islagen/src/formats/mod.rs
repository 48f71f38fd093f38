//! The neighbouring formats islagen reads and writes beside the `.dat` blueprint: StarMade
//! blueprints ([`starmade`]), the game's island codes ([`island_code`]), the structure
//! sidecar ([`structures`]) and the one-band rasters a designer brings, masks and heightmaps
//! ([`raster`]), and the towns a designer pins ([`pins`]). Each is its own byte or JSON contract with its own typed errors;
//! each export reads a [`crate::blueprint::Blueprint`], never the pipeline's internals.

pub mod island_code;
pub mod pins;
pub mod raster;
pub mod starmade;
pub mod structures;
