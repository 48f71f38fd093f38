//! Export: a generated [`World`] to its files — the v2 blueprint, the v1 dual-write, the
//! snapshots and the structure sidecar — each written atomically, under the names
//! [`OutputNames`] gives.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::World;
use crate::blueprint::{self, Blueprint, WriteError};
use crate::progress::Progress;
use crate::render;

/// One file an export wrote.
#[derive(Clone, Debug, Serialize)]
pub struct Written {
    /// Where.
    pub path: PathBuf,
    /// Size in bytes.
    pub bytes: u64,
}

/// The file names of a seed's outputs, GENERATOR.md's "Outputs".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputNames {
    /// The v2 blueprint the server loads.
    pub v2: String,
    /// The legacy v1 dual-write.
    pub v1: String,
    /// The hillshaded height snapshot.
    pub height_png: String,
    /// The water-body snapshot.
    pub water_png: String,
    /// The biome snapshot.
    pub biome_png: String,
    /// The towns snapshot.
    pub towns_png: String,
    /// The roads snapshot (absent with SkipRoads).
    pub roads_png: String,
    /// The structure sidecar, when it sits beside the blueprint.
    pub sidecar: String,
}

impl OutputNames {
    /// The names of `seed`'s outputs.
    pub fn of(seed: i32) -> OutputNames {
        OutputNames {
            v2: format!("MapData_Seed_{seed}.dat"),
            v1: format!("MapData_Seed_{seed}_v1.dat"),
            height_png: format!("Map_Seed_{seed}_0_height.png"),
            water_png: format!("Map_Seed_{seed}_0_water.png"),
            biome_png: format!("Map_Seed_{seed}_1_biomes.png"),
            towns_png: format!("Map_Seed_{seed}_2_towns.png"),
            roads_png: format!("Map_Seed_{seed}_3_roads.png"),
            sidecar: format!("MapData_Seed_{seed}.structures.json"),
        }
    }
}

/// Where the structure sidecar goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SidecarLayout {
    /// `MapData_Seed_<seed>.structures.json` beside the blueprint.
    #[default]
    Beside,
    /// `assets/MapData_Seed_<seed>/structures.json` under the output folder, the game's layout.
    Assets,
}

/// The path of a world's structure sidecar under `dir`.
pub fn sidecar_path(dir: &Path, seed: i32, layout: SidecarLayout) -> PathBuf {
    match layout {
        SidecarLayout::Beside => dir.join(OutputNames::of(seed).sidecar),
        SidecarLayout::Assets => dir
            .join("assets")
            .join(format!("MapData_Seed_{seed}"))
            .join("structures.json"),
    }
}

/// Why a world's files could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A folder or a file could not be made.
    #[error("{action} {path}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// Where.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A blueprint could not be written.
    #[error("writing {path}")]
    Blueprint {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: WriteError,
    },
}

impl ExportError {
    fn io<'a>(
        action: &'static str,
        path: &'a Path,
    ) -> impl FnOnce(std::io::Error) -> ExportError + 'a {
        move |source| ExportError::Io {
            action,
            path: path.to_owned(),
            source,
        }
    }
}

/// Exports `world` into `dir` (created if missing): the v2 blueprint, the v1 dual-write and the
/// snapshots, each written atomically. Provenance is stamped now, into the world's own
/// blueprint (no copy of it is made).
pub fn export(
    world: &mut World,
    dir: &Path,
    progress: &Progress,
) -> Result<Vec<Written>, ExportError> {
    export_with(world, dir, SidecarLayout::Beside, progress)
}

/// [`export`] with the structure sidecar placed by `layout`.
pub fn export_with(
    world: &mut World,
    dir: &Path,
    layout: SidecarLayout,
    progress: &Progress,
) -> Result<Vec<Written>, ExportError> {
    std::fs::create_dir_all(dir).map_err(ExportError::io("creating", dir))?;
    crate::output::remove_stale_temps(dir).map_err(ExportError::io("cleaning", dir))?;
    world.blueprint.params.stamp_provenance();
    let world = &*world;
    let bp = &world.blueprint;
    let seed = bp.params.world_seed;
    let names = OutputNames::of(seed);
    // The blueprint writes wait on the disk, the snapshots on the CPU: run them side by side.
    let (blueprints, snapshots) = rayon::join(
        || write_blueprints(bp, dir, &names, progress),
        || write_snapshots(world, bp, dir, &names, progress),
    );
    let mut written = blueprints?;
    written.extend(snapshots?);
    written.push(write_sidecar(bp, &sidecar_path(dir, seed, layout))?);
    Ok(written)
}

fn write_blueprints(
    bp: &Blueprint,
    dir: &Path,
    names: &OutputNames,
    progress: &Progress,
) -> Result<Vec<Written>, ExportError> {
    let mut written = Vec::new();
    for (stage, name, write) in [
        (
            "write v2",
            &names.v2,
            blueprint::write_v2_file as fn(&Path, &Blueprint) -> _,
        ),
        ("write v1", &names.v1, blueprint::write_v1_file),
    ] {
        let stage = progress.stage(stage, 0);
        let path = dir.join(name);
        let bytes = write(&path, bp).map_err(|source| ExportError::Blueprint {
            path: path.clone(),
            source,
        })?;
        written.push(Written { path, bytes });
        stage.finish();
    }
    Ok(written)
}

fn write_snapshots(
    world: &World,
    bp: &Blueprint,
    dir: &Path,
    names: &OutputNames,
    progress: &Progress,
) -> Result<Vec<Written>, ExportError> {
    let stage = progress.stage("snapshots", 0);
    let write = |name: &String, image: render::Image| -> Result<Written, ExportError> {
        let path = dir.join(name);
        let bytes = render::write_png(&path, &image).map_err(ExportError::io("writing", &path))?;
        Ok(Written { path, bytes })
    };
    let write_indexed = |name: &String, image: render::Indexed| -> Result<Written, ExportError> {
        let path = dir.join(name);
        let bytes =
            render::write_indexed_png(&path, &image).map_err(ExportError::io("writing", &path))?;
        Ok(Written { path, bytes })
    };
    // The height image (3 bytes a pixel, 192 MiB at 8192, the slowest to shade and encode)
    // beside the palette images (1 byte a pixel) one after the other.
    let (height, (water, biome, towns)) = rayon::join(
        || {
            write(
                &names.height_png,
                render::height_image(&bp.heights, &world.sea),
            )
        },
        || {
            let water = match &bp.water_ids {
                Some(ids) => write_indexed(
                    &names.water_png,
                    render::water_image(ids, bp.water_bodies.as_deref().unwrap_or_default()),
                )
                .map(Some),
                None => Ok(None),
            };
            let biome = write_indexed(&names.biome_png, render::biome_image(&bp.biomes));
            let towns = write_indexed(&names.towns_png, render::towns_image(&bp.biomes, &bp.towns));
            (water, biome, towns)
        },
    );
    let mut images = vec![height?];
    images.extend(water?);
    images.extend([biome?, towns?]);
    if world.roads.is_some() {
        let image = render::roads_image(&bp.biomes, &bp.roads, &bp.towns);
        images.push(write_indexed(&names.roads_png, image)?);
    }
    stage.finish();
    Ok(images)
}

fn write_sidecar(bp: &Blueprint, path: &Path) -> Result<Written, ExportError> {
    let structures = crate::formats::structures::from_world(bp).to_json();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(ExportError::io("creating", parent))?;
        crate::output::remove_stale_temps(parent).map_err(ExportError::io("cleaning", parent))?;
    }
    crate::output::write_bytes_atomically(path, structures.as_bytes())
        .map_err(ExportError::io("writing", path))?;
    Ok(Written {
        bytes: structures.len() as u64,
        path: path.to_owned(),
    })
}
