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

/// Writes the snapshots: every picture streamed into its PNG a band of rows at a time, the
/// pictures side by side, the towns and roads painted over the biomes' bands (`render`).
fn write_snapshots(
    world: &World,
    bp: &Blueprint,
    dir: &Path,
    names: &OutputNames,
    progress: &Progress,
) -> Result<Vec<Written>, ExportError> {
    let stage = progress.stage("snapshots", 0);
    let height = render::HeightRows::new(bp.heights.view(), &world.sea);
    let bodies = bp.water_bodies.as_deref().unwrap_or_default();
    let water = bp
        .water_ids
        .as_ref()
        .map(|ids| render::WaterRows::new(ids.view(), bodies));
    let biomes = render::BiomeRows::new(bp.biomes.view());
    let towns = render::Painted::towns(&biomes, &bp.towns);
    let roads = world
        .roads
        .is_some()
        .then(|| render::Painted::roads(&biomes, &bp.roads, &bp.towns));
    let mut pictures: Vec<(&String, &dyn render::Rows)> = vec![(&names.height_png, &height)];
    if let Some(water) = &water {
        pictures.push((&names.water_png, water));
    }
    pictures.push((&names.biome_png, &biomes));
    pictures.push((&names.towns_png, &towns));
    if let Some(roads) = &roads {
        pictures.push((&names.roads_png, roads));
    }
    let paths: Vec<PathBuf> = pictures.iter().map(|(name, _)| dir.join(name)).collect();
    let outputs: Vec<render::Output> = pictures
        .iter()
        .zip(&paths)
        .map(|(&(_, picture), path)| render::Output {
            path,
            picture,
            encoding: render::Encoding::of(picture),
        })
        .collect();
    // The blueprint writes hold one of the global pool's threads while they wait on the disk
    // (`export_with`), so the pictures are filled on a pool of their own, as wide as the global
    // one: otherwise every band would be filled on the one thread left.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .thread_name(|i| format!("snapshots-{i}"))
        .build()
        .map_err(|e| ExportError::Io {
            action: "starting the snapshot threads for",
            path: dir.to_owned(),
            source: std::io::Error::other(e),
        })?;
    let sizes = pool.install(|| render::write_pngs(&outputs));
    let written = sizes
        .into_iter()
        .zip(paths)
        .map(|(bytes, path)| match bytes {
            Ok(bytes) => Ok(Written { path, bytes }),
            Err(source) => Err(ExportError::Io {
                action: "writing",
                path,
                source,
            }),
        })
        .collect::<Result<Vec<_>, _>>()?;
    stage.finish();
    Ok(written)
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
