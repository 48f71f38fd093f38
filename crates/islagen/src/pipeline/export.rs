//! Export: a generated [`World`] to its files — the v2 blueprint, the v1 dual-write, the
//! snapshots and the structure sidecar — each written atomically, under the names
//! [`OutputNames`] gives.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{GenerateError, World};
use crate::blueprint::{self, Blueprint, Layout, PendingFile, WriteError};
use crate::config::Config;
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
    /// The StarMade blueprint's name (`islagen export starmade`): its folder, and its archive
    /// with `.sment` added.
    pub starmade: String,
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
            starmade: format!("Island_Seed_{seed}"),
        }
    }

    /// Where `islagen export island-code` writes the code of the blueprint at `blueprint`
    /// unless told: beside it, `NAME.islandcode.txt`.
    pub fn island_code_beside(blueprint: &Path) -> PathBuf {
        blueprint.with_extension("islandcode.txt")
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

/// Why a world's files could not be written: the blueprints, snapshots and sidecar here, and
/// the files of the exports for engines and GIS. Every variant names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
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

impl OutputError {
    /// The error of `action` on `path`, for `map_err`.
    pub(crate) fn io<'a>(
        action: &'static str,
        path: &'a Path,
    ) -> impl FnOnce(std::io::Error) -> OutputError + 'a {
        move |source| OutputError::Io {
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
) -> Result<Vec<Written>, OutputError> {
    export_with(world, dir, SidecarLayout::Beside, progress)
}

/// [`export`] with the structure sidecar placed by `layout`.
pub fn export_with(
    world: &mut World,
    dir: &Path,
    layout: SidecarLayout,
    progress: &Progress,
) -> Result<Vec<Written>, OutputError> {
    prepare(dir)?;
    world.blueprint.params.stamp_provenance();
    let early = write_early(world, dir, progress)?;
    write_late(world, early, dir, layout, progress)
}

/// Why [`generate_and_export`] stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Generation stopped.
    #[error(transparent)]
    Generate(#[from] GenerateError),
    /// The files could not be written.
    #[error(transparent)]
    Export(#[from] OutputError),
}

/// [`super::generate`] then [`export_with`], the same world and the same bytes, in less time:
/// the road search is mostly serial and the blueprint writes wait on the disk, so everything
/// that does not show the roads — both blueprints up to their road blocks (synced to the disk)
/// and the four snapshots without roads — is written while the roads are searched. After them
/// come the road blocks, the renames, the roads snapshot and the sidecar. On any failure no file
/// is left under a final name that was not complete.
pub fn generate_and_export(
    config: &Config,
    seed: i32,
    dir: &Path,
    layout: SidecarLayout,
    progress: &Progress,
) -> Result<(World, Vec<Written>), RunError> {
    let mut land = super::generate_land(config, seed, progress)?;
    prepare(dir)?;
    land.stamp_provenance();
    let (roads, early) = std::thread::scope(|s| {
        let land = &land;
        let early = s.spawn(|| write_early(land.world(), dir, progress));
        let roads = land.roads(progress);
        (roads, joined(early))
    });
    let early = early?;
    let world = land.with_roads(roads);
    let written = write_late(&world, early, dir, layout, progress)?;
    Ok((world, written))
}

/// The result of a scoped thread; its panic, if it panicked, goes on in this one.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Makes `dir` and clears the temporary files a killed islagen left in it.
fn prepare(dir: &Path) -> Result<(), OutputError> {
    std::fs::create_dir_all(dir).map_err(OutputError::io("creating", dir))?;
    crate::output::remove_stale_temps(dir).map_err(OutputError::io("cleaning", dir))?;
    Ok(())
}

/// What is written before the roads are known: both blueprints up to their road blocks, and
/// the snapshots without roads.
struct Early {
    blueprints: Vec<(PathBuf, PendingFile)>,
    snapshots: Vec<Written>,
}

/// Writes what does not show the roads (`world`'s roads are not read). The blueprint heads
/// wait on the disk and the pictures on the CPU, so they run side by side: the heads on a
/// thread of their own, the pictures on a pool of their own (neither holds a thread of the
/// global pool, which the road search may be using).
fn write_early(world: &World, dir: &Path, progress: &Progress) -> Result<Early, OutputError> {
    let names = OutputNames::of(world.blueprint.params.world_seed);
    let (blueprints, snapshots) = std::thread::scope(|s| {
        let heads = s.spawn(|| begin_blueprints(&world.blueprint, dir, &names, progress));
        let snapshots = write_snapshots(world, dir, &names, Snapshots::Land, progress);
        let heads = joined(heads);
        (heads, snapshots)
    });
    Ok(Early {
        blueprints: blueprints?,
        snapshots: snapshots?,
    })
}

/// Finishes the export once the roads are in `world`: the blueprints' road blocks and renames,
/// the roads snapshot, the sidecar. Returns every file written, the blueprints first.
fn write_late(
    world: &World,
    early: Early,
    dir: &Path,
    layout: SidecarLayout,
    progress: &Progress,
) -> Result<Vec<Written>, OutputError> {
    let bp = &world.blueprint;
    let names = OutputNames::of(bp.params.world_seed);
    let stage = progress.stage("write roads", 0);
    let mut written = Vec::new();
    for (path, pending) in early.blueprints {
        let bytes = pending
            .finish(&bp.roads)
            .map_err(|source| OutputError::Blueprint {
                path: path.clone(),
                source,
            })?;
        written.push(Written { path, bytes });
    }
    written.extend(early.snapshots);
    if world.roads.is_some() {
        written.extend(write_snapshots(
            world,
            dir,
            &names,
            Snapshots::Roads,
            progress,
        )?);
    }
    stage.finish();
    written.push(write_sidecar(
        bp,
        &sidecar_path(dir, bp.params.world_seed, layout),
    )?);
    Ok(written)
}

/// Writes the heads of the v2 blueprint and the v1 dual-write, side by side: each waits on the
/// disk (its sync) more than on the CPU, and the disk takes two streams faster than one.
fn begin_blueprints(
    bp: &Blueprint,
    dir: &Path,
    names: &OutputNames,
    progress: &Progress,
) -> Result<Vec<(PathBuf, PendingFile)>, OutputError> {
    let begin = |stage: &'static str,
                 name: &String,
                 layout: Layout|
     -> Result<(PathBuf, PendingFile), OutputError> {
        let stage = progress.stage(stage, 0);
        let path = dir.join(name);
        let file =
            blueprint::begin_file(&path, bp, layout).map_err(|source| OutputError::Blueprint {
                path: path.clone(),
                source,
            })?;
        stage.finish();
        Ok((path, file))
    };
    std::thread::scope(|s| {
        let v1 = s.spawn(|| begin("write v1", &names.v1, Layout::V1));
        let v2 = begin("write v2", &names.v2, Layout::V2);
        let v1 = joined(v1);
        Ok(vec![v2?, v1?])
    })
}

/// Which snapshots [`write_snapshots`] writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Snapshots {
    /// Height, water, biomes and towns: none shows the roads.
    Land,
    /// The roads over the biomes.
    Roads,
}

/// Writes the snapshots: every picture streamed into its PNG a band of rows at a time, the
/// pictures side by side, the towns and roads painted over the biomes' bands (`render`).
fn write_snapshots(
    world: &World,
    dir: &Path,
    names: &OutputNames,
    which: Snapshots,
    progress: &Progress,
) -> Result<Vec<Written>, OutputError> {
    let bp = &world.blueprint;
    let stage = (which == Snapshots::Land).then(|| progress.stage("snapshots", 0));
    let land = which == Snapshots::Land;
    let height = land.then(|| render::HeightRows::new(bp.heights.view(), &world.sea));
    let bodies = bp.water_bodies.as_deref().unwrap_or_default();
    let water = (bp.water_ids.as_ref())
        .filter(|_| land)
        .map(|ids| render::WaterRows::new(ids.view(), bodies));
    let biomes = render::BiomeRows::new(bp.biomes.view());
    let towns = land.then(|| render::Painted::towns(&biomes, &bp.towns));
    let roads = (!land).then(|| render::Painted::roads(&biomes, &bp.roads, &bp.towns));
    let mut pictures: Vec<(&String, &dyn render::Rows)> = Vec::new();
    if let Some(height) = &height {
        pictures.push((&names.height_png, height));
    }
    if let Some(water) = &water {
        pictures.push((&names.water_png, water));
    }
    if land {
        pictures.push((&names.biome_png, &biomes));
    }
    if let Some(towns) = &towns {
        pictures.push((&names.towns_png, towns));
    }
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
    // On a pool of its own, as wide as the global one: the road search may hold the global
    // pool's threads while the land's pictures are written (`generate_and_export`).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .thread_name(|i| format!("snapshots-{i}"))
        .build()
        .map_err(|e| OutputError::Io {
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
            Err(source) => Err(OutputError::Io {
                action: "writing",
                path,
                source,
            }),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(stage) = stage {
        stage.finish();
    }
    Ok(written)
}

fn write_sidecar(bp: &Blueprint, path: &Path) -> Result<Written, OutputError> {
    let structures = crate::formats::structures::from_world(bp).to_json();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(OutputError::io("creating", parent))?;
        crate::output::remove_stale_temps(parent).map_err(OutputError::io("cleaning", parent))?;
    }
    crate::output::write_bytes_atomically(path, structures.as_bytes())
        .map_err(OutputError::io("writing", path))?;
    Ok(Written {
        bytes: structures.len() as u64,
        path: path.to_owned(),
    })
}
