//! The generation pipeline: the stages in order, from a config and a resolved seed to a
//! [`World`], and the export of a world to its files.
//!
//! Order (GENERATOR.md steps 1–4 and the biome half of 6):
//! topography → mainland fill → crater placement and carve → mainland fill again (a carve can
//! never leave a severed fragment) → water classification → elevation (height curve, detail,
//! coast shelf) → erosion of the elevation (v2 fluvial relief, the default, or v1 droplets) →
//! rivers (on the fluvial relief's grid when it ran) → biomes → water bodies →
//! priority-flood basins (diagnostics) → towns → roads (unless SkipRoads). Every edit that moves
//! the waterline happens on the raw *classify* heights before the elevation is made from them
//! pixel by pixel, so the exported waterline is the classify map's by construction.
//!
//! `params` translates the config into each stage's parameters and `records` translates what
//! the stages applied into the wire records (both public with the `internals` feature);
//! [`generate`] reads top to bottom as the stage list, each step a named function below it;
//! [`export`] writes a world's files. With SkipRoads the road sections are present and empty and
//! there is no `3_roads` snapshot.

mod export;
crate::internal_modules!(params, records);
pub mod summary;

use std::time::Duration;

use ndarray::Array2;
use serde::Serialize;

/// What the stages report and the errors they raise, as a [`World`] and a [`GenerateError`]
/// carry them.
pub use crate::stages::{
    basins::BasinStats,
    crater::Crater,
    erosion::{ErosionError, ErosionStats},
    fluvial::FluvialStats,
    grading::GradingStats,
    roads::{RawRoad, RoadReport, RoadStats},
    sea::Water,
    towns::TownStats,
    water_bodies::WaterBodyError,
};
pub use export::{
    export, export_with, generate_and_export, sidecar_path, OutputError, OutputNames, RunError,
    SidecarLayout, Written,
};

use crate::blueprint::format::WaterBodyType;
use crate::blueprint::{Blueprint, Params, RiverNetwork, Roads, Town};
use crate::config::heightmap::Heightmap;
use crate::config::{Config, ErosionModel, TerrainCurve, TerrainDetail};
use crate::progress::{Progress, Stage};
use crate::sea::SeaLevel;
use crate::stages::basins::{basins, Outlets};
use crate::stages::biomes::{biomes, BiomeInputs, Zoning};
use crate::stages::crater;
use crate::stages::curve::{Curve, BALANCED};
use crate::stages::detail::Detail;
use crate::stages::elevation::{elevation, ElevationPasses};
use crate::stages::erosion::{erode, Schedule};
use crate::stages::fluvial::{self, Landscape};
use crate::stages::grading::{grade, GradingParams};
use crate::stages::mainland::{count_components, mainland_fill, Mainland};
use crate::stages::rills::Rills;
use crate::stages::rivers::{self, MapRivers, RiverParams};
use crate::stages::roads::{roads, CostGrid, RoadNetwork};
use crate::stages::sea::classify_water;
use crate::stages::texture::Texture;
use crate::stages::topography::{topography, Shape, Topography};
use crate::stages::towns::{self, towns, Ground, SmoothSite, TownInputs};
use crate::stages::water_bodies::{water_bodies, Reaches, WaterBodies};
use crate::units;

/// Why generation stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// The erosion pass's exit check found a broken guarantee.
    #[error(transparent)]
    Erosion(#[from] ErosionError),
    /// The water bodies cannot be written.
    #[error(transparent)]
    WaterBodies(#[from] WaterBodyError),
    /// A pinned town cannot stand where it was pinned.
    #[error(transparent)]
    Towns(#[from] towns::PinError),
    /// The caller stopped the work (cancelled, or past its deadline).
    #[error("generation stopped: {0}")]
    Stopped(#[from] crate::progress::Stop),
}

/// A generated world: the blueprint to export and what the stages know about it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct World {
    /// The blueprint (provenance is stamped at export).
    pub blueprint: Blueprint,
    /// The water classification of the classify heights.
    pub water: Array2<Water>,
    /// The sea level in force.
    pub sea: SeaLevel,
    /// The crater.
    pub crater: Crater,
    /// Figures for the summary.
    pub stats: WorldStats,
    /// What erosion did, when it ran.
    pub erosion: Option<ErosionStats>,
    /// The depressions of the final heights (diagnostics; not serialised).
    pub basins: BasinStats,
    /// Towns per tier.
    pub towns: TownStats,
    /// What grading the ground under the towns moved.
    pub grading: GradingStats,
    /// Every road on the grid and the road figures, unless SkipRoads (the smoothed polylines
    /// are the blueprint's).
    pub roads: Option<RoadReport>,
    /// River figures, when Rivers is on.
    pub rivers: Option<RiverStats>,
    /// What the fluvial relief did, when it ran (Erosion "v2").
    pub fluvial: Option<FluvialStats>,
}

/// What the rivers stage made, for the summary, sweeps and tests.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct RiverStats {
    /// Rivers (trunks and tributaries, each its own).
    pub rivers: usize,
    /// River systems reaching the sea or a lake.
    pub systems: usize,
    /// Reaches with pixels.
    pub reaches: usize,
    /// River pixels.
    pub pixels: usize,
    /// Total centreline length, km.
    pub length_km: f64,
    /// The largest catchment a river drains, km².
    pub largest_catchment_km2: f32,
    /// Share of river systems ending in the ocean (the rest end in lakes).
    pub to_sea: f64,
    /// Bank pixels raised to their reach's level (levees near the sea).
    pub low_banks: usize,
}

impl World {
    /// The river pixels (`x * n + y`, ascending): WBID pixels of WBTB bodies of type River.
    pub fn river_pixels(&self) -> Vec<u32> {
        let bp = &self.blueprint;
        let (Some(ids), Some(_)) = (&bp.water_ids, &bp.water_bodies) else {
            return Vec::new();
        };
        let river = bp.river_body_ids();
        let n = ids.dim().1;
        ids.indexed_iter()
            .filter(|(_, &id)| river[usize::from(id)])
            .map(|((x, y), _)| (x * n + y) as u32)
            .collect()
    }
}

/// Figures about a world, for the closing summary and for tests.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct WorldStats {
    /// The resolved seed.
    pub seed: i32,
    /// Pixels per side.
    pub map_size: usize,
    /// Fraction of pixels that are land.
    pub land_fraction: f64,
    /// Pixels of the mainland.
    pub mainland_px: usize,
    /// Offshore islets (land components other than the mainland).
    pub islets: usize,
    /// Pixels of all islets.
    pub islet_px: usize,
    /// Lakes (below-sea components not joined to the ocean): the water bodies of type Lake.
    pub lakes: usize,
    /// Pixels of all lakes.
    pub lake_px: usize,
    /// River reaches: the stepped water bodies of type River.
    pub river_reaches: usize,
    /// Pixels of all river reaches.
    pub river_reach_px: usize,
    /// Stray land pixels the mainland fill sank.
    pub sunk_px: usize,
    /// Impact centre, pixels.
    pub crater_center: [f32; 2],
    /// The islet field's threshold for this seed.
    pub islet_threshold: f32,
}

/// The stages [`generate_and_export`] reports for `config` (one start and one finish each in
/// [`Progress`]), in the order of the pipeline. Stages that do not read each other's output run
/// side by side — the fluvial relief's solve beside the crater, water and elevation, the rivers
/// beside the biomes, the basins beside the water bodies, towns and statistics, the blueprint
/// and snapshot writes beside the road search — so the order they begin and finish in varies;
/// a stage that reads another's output always finishes after it. [`generate`] reports the same list
/// without the four writes ("write v2", "write v1", "snapshots", "write roads"). A caller
/// counting finished stages (a progress bar) divides by its length.
pub fn stage_names(config: &Config) -> Vec<&'static str> {
    let mut names = vec!["topography", "mainland", "crater", "water", "elevation"];
    match config.erosion.model {
        ErosionModel::Droplets => names.push("erosion"),
        ErosionModel::Fluvial => names.push("fluvial relief"),
        ErosionModel::Off => {}
    }
    if params::rivers(config).is_some() {
        names.push("rivers");
    }
    names.extend([
        "biomes",
        "water bodies",
        "basins",
        "towns",
        "statistics",
        "grading",
    ]);
    names.extend(["write v2", "write v1", "snapshots"]);
    if !config.skip_roads {
        names.push("roads");
    }
    names.push("write roads");
    names
}

/// Generates the world of `seed` (already resolved) under `config`.
pub fn generate(config: &Config, seed: i32, progress: &Progress) -> Result<World, GenerateError> {
    let land = generate_land(config, seed, progress)?;
    let roads = land.roads(progress);
    Ok(land.with_roads(roads))
}

/// A world before its roads: every stage up to the towns has run, and nothing after them changes
/// what the blueprint holds but its road sections (the road search only reads the land).
pub struct Land {
    world: World,
    /// The river pixels the roads may bridge, when Rivers is on.
    river_pixels: Option<Vec<u32>>,
    skip_roads: bool,
    /// How many of the towns (the first) were pinned: the roads reach them however far.
    pinned: usize,
}

impl Land {
    /// The world so far: its blueprint complete but for the roads.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Stamps the blueprint's provenance (the time and the generator's git hash).
    pub fn stamp_provenance(&mut self) {
        self.world.blueprint.params.stamp_provenance();
    }

    /// Searches the roads between the towns, unless SkipRoads.
    pub fn roads(&self, progress: &Progress) -> Option<(Roads, RoadReport)> {
        if self.skip_roads {
            return None;
        }
        let w = &self.world;
        let mut grid = CostGrid::new(&w.blueprint.heights, &w.water, &w.sea, &w.crater);
        if let Some(pixels) = &self.river_pixels {
            grid.bridge(pixels.iter().copied());
        }
        Some(build_roads(&grid, &w.blueprint.towns, self.pinned, progress).into_parts())
    }

    /// The finished world with `roads` (none with SkipRoads).
    pub fn with_roads(self, roads: Option<(Roads, RoadReport)>) -> World {
        let mut world = self.world;
        if let Some((paths, report)) = roads {
            world.blueprint.roads = paths;
            world.roads = Some(report);
        }
        world
    }
}

/// Runs every stage up to the towns: the world of `seed` without its roads.
pub fn generate_land(
    config: &Config,
    seed: i32,
    progress: &Progress,
) -> Result<Land, GenerateError> {
    let sea = params::sea(config);
    let Eroded {
        mut island,
        water,
        mut relief,
        erosion,
        landscape,
    } = shape_and_erode(config, seed, &sea, progress)?;
    progress.check()?;
    // The biomes read the classify heights, never the exported ones the rivers carve: the two
    // run side by side (the rivers' network and carve are mostly one thread).
    let (rivers, mut biome_map) = rayon::join(
        || {
            params::rivers(config).map(|p| {
                let stage = progress.stage("rivers", 0);
                let r = flow_rivers(
                    config,
                    &p,
                    &island,
                    landscape.as_ref(),
                    &mut relief.heights,
                    &sea,
                    &water,
                );
                stage.finish();
                (p, r)
            })
        },
        || {
            let stage = progress.stage("biomes", config.map_size.into());
            let inputs = BiomeInputs {
                zoning: &relief.zoning,
                heights: &island.raw,
                water: &water,
                sea: &sea,
                crater: &island.crater,
            };
            let map = biomes(&inputs, &|| stage.tick());
            stage.finish();
            map
        },
    );
    // The classify heights' last reader was the biomes: 4 bytes a pixel returned now.
    island.raw = Array2::zeros((0, 0));
    progress.check()?;
    // The basins are diagnostics of the final heights; the water bodies, towns and statistics
    // (mostly one thread) never read them, so they run beside.
    let mut reach_ids = Vec::new();
    let (basins, placed) = rayon::join(
        || timed(progress, "basins", || depressions(&relief.heights, &water)),
        || -> Result<_, GenerateError> {
            let bodies = timed(progress, "water bodies", || {
                let reaches = match &rivers {
                    Some((_, r)) => Reaches {
                        pixels: &r.map.pixels,
                        levels: &r.levels,
                    },
                    None => Reaches::default(),
                };
                water_bodies(&water, &sea, reaches, &mut reach_ids)
            })?;
            let towns = timed(progress, "towns", || {
                place_towns(
                    config,
                    seed,
                    &island,
                    &relief,
                    landscape.as_ref(),
                    &sea,
                    &bodies,
                )
            })?;
            let stats = timed(progress, "statistics", || {
                world_stats(seed, &island, &water, &bodies)
            });
            Ok((bodies, towns, stats))
        },
    );
    let (bodies, (town_list, town_stats), stats) = placed?;
    let grading = timed(progress, "grading", || {
        if !config.town_grading {
            return GradingStats::default();
        }
        let p = GradingParams::new(config.erosion.crater.core * island.crater.radius_px);
        let g = grade(
            &mut relief.heights,
            &town_list,
            &bodies.ids,
            &sea,
            &island.crater,
            &p,
            towns::max_slope,
        );
        tracing::info!(
            "grading: {} towns graded, {} pixels moved; deepest cut {:.1} m, highest fill {:.1} m",
            g.towns_graded,
            g.pixels_moved,
            g.max_cut_m,
            g.max_fill_m
        );
        g
    });
    if let Some((_, r)) = &rivers {
        let n = config.map_size as usize;
        for &(i, _) in &r.map.pixels {
            biome_map[[i as usize / n, i as usize % n]] = crate::blueprint::Biome::Lake;
        }
    }
    // The mainland mask's last readers were the towns and the statistics.
    island.mainland.mask = Array2::zeros((0, 0));
    progress.check()?;
    let river_pixels = rivers
        .as_ref()
        .map(|(_, r)| r.map.pixels.iter().map(|p| p.0).collect());
    let blueprint = Blueprint {
        params: Params {
            world_seed: seed,
            map_size: config.map_size as i32,
            crater_radius: config.crater_radius,
            density_multiplier: config.density_multiplier,
            impact_center_x: island.crater.center[0],
            impact_center_y: island.crater.center[1],
            generated_utc: String::new(),
            generator_git_hash: String::new(),
        },
        heights: relief.heights,
        biomes: biome_map,
        towns: town_list,
        curve: relief.curve.as_ref().map(records::curve),
        detail: relief.detail.as_ref().map(|d| *d.params()),
        erosion: erosion.as_ref().map(|ran| {
            records::erosion(
                &params::erosion(&config.erosion, seed, config.map_size),
                ran,
                config.erosion.seed_offset,
            )
        }),
        water_ids: Some(bodies.ids),
        water_bodies: Some(bodies.bodies),
        water_surface: Some(crate::blueprint::WaterSurface::PerBody),
        rivers: rivers.as_ref().map(|(p, r)| r.section(p, &reach_ids)),
        shape: shape_inputs(config),
        roads: Roads::default(),
    };
    let world = World {
        blueprint,
        water,
        sea,
        crater: island.crater,
        stats,
        erosion,
        basins,
        towns: town_stats,
        grading,
        roads: None,
        rivers: rivers.map(|(_, r)| r.stats(&reach_ids)),
        fluvial: landscape.map(|l| l.stats),
    };
    Ok(Land {
        world,
        river_pixels,
        skip_roads: config.skip_roads,
        pinned: config.town_pins.as_ref().map_or(0, |p| p.pins.len()),
    })
}

/// Runs `work` as a stage without a natural count.
fn timed<T>(progress: &Progress, name: &'static str, work: impl FnOnce() -> T) -> T {
    let stage = progress.stage(name, 0);
    let out = work();
    stage.finish();
    out
}

/// The island before any height is rendered: the raw classify heights with the mainland filled,
/// the crater carved and filled again (a carve can never leave a severed fragment).
struct Island {
    shape: Shape,
    raw: Array2<f32>,
    islet_threshold: f32,
    sunk_px: usize,
    mainland: Mainland,
    crater: Crater,
}

fn shape_island(config: &Config, seed: i32, sea: &SeaLevel, progress: &Progress) -> Island {
    let outline = outline_island(config, seed, sea, progress);
    finish_island(outline, sea)
}

/// The island up to its crater's placement: the topography, filled once, and where the crater
/// goes (its "crater" stage still running: the carve is [`finish_island`]'s).
struct Outline<'a> {
    shape: Shape,
    raw: Array2<f32>,
    islet_zone: Array2<u8>,
    islet_threshold: f32,
    sunk_px: usize,
    crater: Crater,
    stage: Stage<'a>,
}

fn outline_island<'a>(
    config: &Config,
    seed: i32,
    sea: &SeaLevel,
    progress: &'a Progress,
) -> Outline<'a> {
    let stage = progress.stage("topography", config.map_size.into());
    let (shape, topo) = match &config.heightmap {
        Some(h) => imported(h, &params::topography(config, seed, *sea)),
        None => {
            let shape = Shape::new(&params::topography(config, seed, *sea));
            let mut topo = topography(&shape, &|| stage.tick());
            if config.island_mask.is_some() {
                // Every island the designer painted stays, apart from the mainland or not.
                topo.islet_zone = every_landmass_kept(&topo.heights);
            }
            (shape, topo)
        }
    };
    stage.finish();
    let mut raw = topo.heights;
    let first = timed(progress, "mainland", || {
        mainland_fill(&mut raw, &topo.islet_zone, sea)
    });
    let stage = progress.stage("crater", 0);
    let crater = crater::place(
        &first.mask,
        crate::seed::unit_draw(seed, "crater"),
        params::crater_radius_px(config),
        params::crater_wobble(config, seed),
    );
    Outline {
        shape,
        raw,
        islet_zone: topo.islet_zone,
        islet_threshold: topo.islet_threshold,
        sunk_px: first.sunk,
        crater,
        stage,
    }
}

/// The topography of an imported heightmap: its metres as raw heights over the local sea, its
/// smooth shape for the towns, and every landmass but the highest kept (as islets are).
fn imported(h: &Heightmap, p: &crate::stages::topography::TopographyParams) -> (Shape, Topography) {
    let n = p.map_size;
    let raw_above = |u: f32, v: f32| h.metres_at(u, v) / units::METRES_PER_RAW;
    let shape = Shape::imported(p, raw_above);
    let seas = p.sea.rows(n);
    // The raster's own parallel resampling, its samples then made raw heights over the sea.
    let mut heights = h.raster.resample(n);
    ndarray::Zip::indexed(&mut heights).par_for_each(|(_, y), v| {
        *v = seas[y] + (h.offset_m + h.scale_m * *v) / units::METRES_PER_RAW;
    });
    let topo = Topography {
        islet_zone: every_landmass_kept(&heights),
        heights,
        islet_threshold: f32::INFINITY,
    };
    (shape, topo)
}

/// An islet zone that makes the mainland fill keep every landmass: the fill keeps the land
/// component of the one pixel outside the zone, the highest, and every other as an islet.
fn every_landmass_kept(heights: &Array2<f32>) -> Array2<u8> {
    let mut zone = Array2::from_elem(heights.dim(), 1u8);
    let highest =
        (heights.indexed_iter()).fold(
            ((0, 0), f32::MIN),
            |a, (i, &z)| if z > a.1 { (i, z) } else { a },
        );
    zone[highest.0] = 0;
    zone
}

/// Carves the crater and fills the mainland again, ending the "crater" stage.
fn finish_island(outline: Outline<'_>, sea: &SeaLevel) -> Island {
    let Outline {
        shape,
        mut raw,
        islet_zone,
        islet_threshold,
        sunk_px,
        crater,
        stage,
    } = outline;
    crater::carve(&mut raw, &crater, sea);
    let second = mainland_fill(&mut raw, &islet_zone, sea);
    stage.finish();
    Island {
        shape,
        raw,
        islet_threshold,
        sunk_px: sunk_px + second.sunk,
        mainland: second,
        crater,
    }
}

/// The island, its water and its exported heights, eroded.
struct Eroded {
    island: Island,
    water: Array2<Water>,
    relief: Relief,
    erosion: Option<ErosionStats>,
    landscape: Option<Landscape>,
}

/// Shapes the island, classifies its water, elevates and erodes it. The fluvial relief's design
/// and its solve read nothing of the map but the crater's place, so on a map of another size
/// than the landscape grid they run beside the map's stages: the design beside the topography,
/// the solve (mostly one thread: the flow order, the accumulation and the implicit solve) beside
/// the crater's carve, the water and the elevation. Only the carve waits for the elevation.
fn shape_and_erode(
    config: &Config,
    seed: i32,
    sea: &SeaLevel,
    progress: &Progress,
) -> Result<Eroded, GenerateError> {
    let model = config.erosion.model;
    let beside = model == ErosionModel::Fluvial && config.map_size as usize != fluvial::GRID;
    let (outline, design) = rayon::join(
        || outline_island(config, seed, sea, progress),
        || beside.then(|| grid_design(config, seed)),
    );
    let crater = outline.crater;
    let p = params::fluvial(&config.erosion);
    let hard_rock = params::hard_rock(config);
    let ((island, water, mut relief), solved) = rayon::join(
        || {
            let island = finish_island(outline, sea);
            let water = timed(progress, "water", || classify_water(&island.raw, sea));
            let relief = elevate(config, seed, &island, sea, progress);
            (island, water, relief)
        },
        || {
            design.map(|raw| {
                let stage = progress.stage("fluvial relief", p.steps.into());
                let n = config.map_size as usize;
                let rock = hard_rock.as_ref();
                let (solved, rills) = rayon::join(
                    || fluvial::solve(&raw, n, sea, &crater, &p, rock, &|| stage.tick()),
                    || Rills::new(&params::rills(config, seed)),
                );
                (stage, solved, rills)
            })
        },
    );
    progress.check()?;
    let heights = &mut relief.heights;
    let (erosion, landscape) = match (model, solved) {
        (ErosionModel::Droplets, _) => (
            Some(erode_relief(config, seed, heights, sea, &crater, progress)?),
            None,
        ),
        (ErosionModel::Fluvial, Some((stage, solved, rills))) => {
            let landscape = fluvial::carve(heights, solved, rills.as_ref(), sea, &crater, &p)?;
            stage.finish();
            log_valleys(&landscape.stats);
            (None, Some(landscape))
        }
        (ErosionModel::Fluvial, None) => (
            None,
            Some(carve_valleys(
                config, seed, heights, sea, &crater, progress,
            )?),
        ),
        (ErosionModel::Off, _) => (None, None),
    };
    Ok(Eroded {
        island,
        water,
        relief,
        erosion,
        landscape,
    })
}

/// The exported heights and the fields that made them.
struct Relief {
    heights: Array2<f32>,
    curve: Option<Curve>,
    detail: Option<Detail>,
    zoning: Zoning,
}

fn elevate(
    config: &Config,
    seed: i32,
    island: &Island,
    sea: &SeaLevel,
    progress: &Progress,
) -> Relief {
    let raw = &island.raw;
    let n = config.map_size as usize;
    let stage = progress.stage("elevation", n as u64);
    let max_above_sea = raw
        .outer_iter()
        .map(|col| {
            col.iter()
                .enumerate()
                .map(|(y, &z)| z - sea.at(y))
                .fold(f32::NEG_INFINITY, f32::max)
        })
        .fold(f32::NEG_INFINITY, f32::max);
    let curve = (config.terrain_curve == TerrainCurve::V5)
        .then(|| Curve::new(BALANCED, seed, max_above_sea, sea.at(n / 2)));
    let detail = (curve.is_some() && config.terrain_detail == TerrainDetail::V1)
        .then(|| Detail::new(params::detail(config), seed));
    let texture = curve
        .is_some()
        .then(|| Texture::new(&params::texture(config, seed)))
        .flatten();
    let passes = ElevationPasses {
        curve: curve.as_ref(),
        detail: detail.as_ref(),
        texture: texture.as_ref(),
        shelf: params::shelf(config),
        rim: params::rim(config, &island.crater),
    };
    let heights = elevation(raw, sea, passes, &|| stage.tick());
    stage.finish();
    Relief {
        heights,
        curve,
        detail,
        zoning: Zoning::new(seed, BALANCED.knots),
    }
}

fn erode_relief(
    config: &Config,
    seed: i32,
    heights: &mut Array2<f32>,
    sea: &SeaLevel,
    crater: &Crater,
    progress: &Progress,
) -> Result<ErosionStats, ErosionError> {
    let stage = progress.stage("erosion", 4);
    let dials = params::erosion(&config.erosion, seed, config.map_size);
    let stats = erode(heights, sea, crater, &dials, Schedule::Tiled, &|| {
        stage.tick()
    })?;
    stage.finish();
    Ok(stats)
}

/// The fluvial relief on a map the size of the landscape grid: the map is its own design.
fn carve_valleys(
    config: &Config,
    seed: i32,
    heights: &mut Array2<f32>,
    sea: &SeaLevel,
    crater: &Crater,
    progress: &Progress,
) -> Result<Landscape, ErosionError> {
    let p = params::fluvial(&config.erosion);
    let stage = progress.stage("fluvial relief", p.steps.into());
    let rock = params::hard_rock(config);
    let tick = || stage.tick();
    let rills = Rills::new(&params::rills(config, seed));
    let (rock, rills) = (rock.as_ref(), rills.as_ref());
    let landscape = fluvial::relief(heights, None, sea, crater, &p, rock, rills, &tick)?;
    stage.finish();
    log_valleys(&landscape.stats);
    Ok(landscape)
}

/// The landscape grid's design: the same island made at the grid's own size, whatever the
/// map's, so every MapSize carves the same valleys and a preview tells the truth about the
/// full-size world (a map resampled onto the grid differs with its resolution: its fine detail,
/// or the lack of it, moves the drainage).
fn grid_design(config: &Config, seed: i32) -> Array2<f32> {
    let mut on_grid = config.clone();
    // The grid's 1024 is a MapSize of the key's range.
    on_grid.settings_mut().map_size = fluvial::GRID as u32;
    designed_heights(&on_grid, seed)
}

/// The files the config shaped the world with (masks and pins), as SHPE records them.
fn shape_inputs(config: &Config) -> Vec<crate::blueprint::ShapeInput> {
    let masks = [
        ("IslandMask", &config.island_mask),
        ("ReliefMask", &config.relief_mask),
        ("HardRockMask", &config.hard_rock_mask),
    ]
    .map(|(key, m)| (key, m.as_ref().map(|m| (&m.path, &m.sha256))));
    let heightmap = (
        "Heightmap",
        (config.heightmap.as_ref()).map(|h| (&h.path, &h.sha256)),
    );
    let pins = (
        "TownPins",
        (config.town_pins.as_ref()).map(|p| (&p.path, &p.sha256)),
    );
    masks
        .into_iter()
        .chain([pins, heightmap])
        .filter_map(|(key, file)| {
            file.map(|(path, sha256)| crate::blueprint::ShapeInput {
                key: key.into(),
                sha256: sha256.clone(),
                file: path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

fn log_valleys(s: &FluvialStats) {
    tracing::info!(
        "fluvial relief: {} steps; {} of {} land cells lowered past 1 m, {} past 10 m, {} past 50 m; deepest {:.1} m, mean {:.2} m",
        s.steps, s.carved_past[0], s.land_cells, s.carved_past[1], s.carved_past[2], s.max_carve_m, s.mean_carve_m
    );
}

/// The depressions of the exported heights, drained to the ocean (diagnostics only).
fn depressions(heights: &Array2<f32>, water: &Array2<Water>) -> BasinStats {
    // The statistics without the filled surface: only the raised cells are held.
    let basins = basins(heights, Outlets::Ocean(water));
    tracing::info!(
        "basins: {} depressions over {} cells, largest {} cells, deepest {:.1} m, {:.0} m³",
        basins.basins,
        basins.filled_cells,
        basins.largest_cells,
        basins.max_depth_m,
        basins.volume_m3
    );
    basins
}

/// Towns, scored on the smooth terrain (the island without its finest octaves, through the
/// curve and the biome zoning: a function of the normalised position alone) so they stand in the
/// same places at every MapSize.
fn place_towns(
    config: &Config,
    seed: i32,
    island: &Island,
    relief: &Relief,
    landscape: Option<&Landscape>,
    sea: &SeaLevel,
    bodies: &WaterBodies,
) -> Result<(Vec<Town>, TownStats), towns::PinError> {
    let n = config.map_size as usize;
    let g = fluvial::GRID;
    let grid_sea = sea.on(g);
    let ground: Option<Vec<f32>> = landscape.map(|l| {
        l.heights
            .iter()
            .enumerate()
            .map(|(i, &h)| units::raw_to_m(h - grid_sea.at(i % g)))
            .collect()
    });
    let smooth = |u: f32, v: f32| {
        let s = sea.at(((v * n as f32) as usize).min(n - 1));
        let a = island.shape.smooth_height(u, v, s) - s;
        let metres = match (&relief.curve, a > 0.0) {
            (Some(c), true) => c.column(u, v).metres(a, 0.0),
            _ => units::raw_to_m(a),
        };
        // The crater is left out: its rim comes from the pixel map's impact centre, which moves
        // by a pixel between MapSizes; towns read it through a smooth distance instead.
        let biome = (a >= 0.0).then(|| relief.zoning.land(a, u, v, false));
        SmoothSite { metres, biome }
    };
    towns(&TownInputs {
        seed,
        smooth: &smooth,
        water_ids: &bodies.ids,
        mainland: &island.mainland.mask,
        crater: &island.crater,
        density: config.density_multiplier,
        ground: ground.as_deref().map(|metres| Ground { metres, side: g }),
        pins: &params::pins(config),
    })
}

/// The rivers on this map and what the water bodies need of them.
struct FlowedRivers {
    map: MapRivers,
    /// Each reach's level, raw.
    levels: Vec<f32>,
    /// River systems and those ending in the ocean.
    systems: (usize, usize),
    largest_km2: f32,
    map_size: usize,
}

impl FlowedRivers {
    /// The RIVR section: the rivers with their reaches' WBIDs.
    fn section(&self, p: &RiverParams, reach_ids: &[u16]) -> RiverNetwork {
        let mut rivers = self.map.rivers.clone();
        for (river, reaches) in rivers.iter_mut().zip(&self.map.river_reaches) {
            river.reaches = reaches
                .iter()
                .map(|&r| reach_ids[r as usize])
                .filter(|&id| id != 0)
                .collect();
        }
        RiverNetwork {
            catchment_km2: p.catchment_km2,
            width_scale: p.width_scale,
            density: p.density,
            rivers,
        }
    }

    fn stats(&self, reach_ids: &[u16]) -> RiverStats {
        RiverStats {
            rivers: self.map.rivers.len(),
            systems: self.systems.0,
            reaches: reach_ids.iter().filter(|&&id| id != 0).count(),
            pixels: self.map.pixels.len(),
            length_km: self.map.length_km(self.map_size),
            largest_catchment_km2: self.largest_km2,
            to_sea: self.systems.1 as f64 / self.systems.0.max(1) as f64,
            low_banks: self.map.low_banks,
        }
    }
}

/// The raw classify heights of `seed` under `config` that water and biomes are computed from
/// (uncurved), computed again: a world does not keep them past its biomes (memory).
pub fn classify_heights(config: &Config, seed: i32) -> Array2<f32> {
    let sea = params::sea(config);
    shape_island(config, seed, &sea, &Progress::hidden()).raw
}

/// The fluvial relief's design grid of `seed` under `config` (metres above sea on the
/// landscape grid, before any valley), for the solver's benchmark against a peer
/// (`examples/fluvial_dump`).
pub fn fluvial_design(config: &Config, seed: i32) -> Vec<f32> {
    fluvial::design(&designed_heights(config, seed), &params::sea(config))
}

/// The elevation of `seed` under `config` before any erosion: the designed surface.
fn designed_heights(config: &Config, seed: i32) -> Array2<f32> {
    let sea = params::sea(config);
    let island = shape_island(config, seed, &sea, &Progress::hidden());
    elevate(config, seed, &island, &sea, &Progress::hidden()).heights
}

/// The rivers stage's hydrology grid of `seed` under `config` (heights, outlets), for the flow
/// kernel's benchmark against a peer (`examples/flow_dump`).
pub fn hydrology_grid(config: &Config, seed: i32) -> (Vec<f32>, Vec<bool>) {
    let sea = params::sea(config);
    let island = shape_island(config, seed, &sea, &Progress::hidden());
    let water = classify_water(&island.raw, &sea);
    with_river_terrain(&island, &sea, &water, rivers::grid_heights)
}

/// Calls `f` with what the rivers stage reads of this island: its own height function (the same
/// at every MapSize), the head rule's height in metres and the outlets (the map's water, or the
/// function's sea).
fn with_river_terrain<T>(
    island: &Island,
    sea: &SeaLevel,
    water: &Array2<Water>,
    f: impl FnOnce(&rivers::Terrain) -> T,
) -> T {
    let n = water.dim().0;
    let row = |v: f32| ((v * n as f32) as usize).min(n - 1);
    let raw = |u: f32, v: f32| island.shape.height(u, v, sea.at(row(v)));
    // The head rule reads the uncurved height, so river pixels (Lake in BIOM) do not depend on
    // the curve, the detail or the shelf, like every other biome.
    let metres = |u: f32, v: f32| units::raw_to_m(raw(u, v) - sea.at(row(v)));
    let outlet = |u: f32, v: f32| {
        let (x, y) = (row(u), row(v));
        water[[x, y]] != Water::Dry || raw(u, v) < sea.at(y)
    };
    f(&rivers::Terrain {
        raw: &raw,
        metres: &metres,
        outlet: &outlet,
    })
}

/// Calls `f` with the carved landscape as the rivers read it: the fluvial grid's own heights
/// (the hydrology grid's cells), the head rule on them in metres above sea, and the outlets (the
/// map's water, or the grid's sea).
fn with_landscape_terrain<T>(
    landscape: &Landscape,
    sea: &SeaLevel,
    water: &Array2<Water>,
    f: impl FnOnce(&rivers::Terrain) -> T,
) -> T {
    let n = water.dim().0;
    let g = fluvial::GRID;
    let grid_sea = sea.on(g);
    let cell = |u: f32| ((u * g as f32) as usize).min(g - 1);
    let row = |v: f32| ((v * n as f32) as usize).min(n - 1);
    let z = &landscape.heights;
    let raw = |u: f32, v: f32| z[cell(u) * g + cell(v)];
    let metres = |u: f32, v: f32| units::raw_to_m(raw(u, v) - grid_sea.at(cell(v)));
    let outlet =
        |u: f32, v: f32| water[[row(u), row(v)]] != Water::Dry || raw(u, v) < grid_sea.at(cell(v));
    f(&rivers::Terrain {
        raw: &raw,
        metres: &metres,
        outlet: &outlet,
    })
}

/// Finds the rivers — on the carved landscape when the fluvial relief ran, else on the smooth
/// island (both the same at every MapSize) — and carves them into the exported heights.
fn flow_rivers(
    config: &Config,
    p: &RiverParams,
    island: &Island,
    landscape: Option<&Landscape>,
    heights: &mut Array2<f32>,
    sea: &SeaLevel,
    water: &Array2<Water>,
) -> FlowedRivers {
    let n = config.map_size as usize;
    let row = |v: f32| ((v * n as f32) as usize).min(n - 1);
    let network = match landscape {
        Some(l) => with_landscape_terrain(l, sea, water, |t| rivers::network(t, p)),
        None => with_river_terrain(island, sea, water, |t| rivers::network(t, p)),
    };
    let map = rivers::carve(&network, p, heights, water, sea, &island.crater);
    let levels = map.reaches.iter().map(|r| r.level).collect();
    let mouths: Vec<&rivers::Course> = network
        .courses
        .iter()
        .filter(|c| c.joins.is_none())
        .collect();
    let to_sea = mouths
        .iter()
        .filter(|c| {
            let end = c.points[c.points.len() - 1];
            let (x, y) = (row(end[0]) as isize, row(end[1]) as isize);
            (-2..=2).any(|dx| {
                (-2..=2).any(|dy| {
                    let (nx, ny) = (x + dx, y + dy);
                    nx >= 0
                        && ny >= 0
                        && (nx as usize) < n
                        && (ny as usize) < n
                        && water[[nx as usize, ny as usize]] == Water::Ocean
                })
            })
        })
        .count();
    FlowedRivers {
        map,
        levels,
        systems: (mouths.len(), to_sea),
        largest_km2: network.largest_catchment_km2,
        map_size: n,
    }
}

fn build_roads(grid: &CostGrid, towns: &[Town], pinned: usize, progress: &Progress) -> RoadNetwork {
    let stage = progress.stage("roads", towns.len() as u64);
    let network = roads(grid, towns, pinned, &|| stage.tick());
    stage.finish();
    let s = &network.stats;
    tracing::info!(
        "roads: {} highway, {} branch, {} rugged, {} trail paths; {} towns abandoned; {} nodes expanded",
        s.paths[0], s.paths[1], s.paths[2], s.paths[3], s.abandoned, s.expanded
    );
    network
}

fn world_stats(
    seed: i32,
    island: &Island,
    water: &Array2<Water>,
    bodies: &WaterBodies,
) -> WorldStats {
    let (n, _) = water.dim();
    let land_px = water.iter().filter(|w| **w == Water::Dry).count();
    let mainland = &island.mainland.mask;
    let (islets, islet_px) = count_components((n, n), |x, y| {
        mainland[[x, y]] == 0 && water[[x, y]] == Water::Dry
    });
    let of_kind = |kind: WaterBodyType| {
        let of = bodies.bodies.iter().filter(|b| b.kind == kind);
        of.fold((0, 0), |(n, px), b| {
            (n + 1, px + b.pixel_count.max(0) as usize)
        })
    };
    let ((lakes, lake_px), (river_reaches, river_reach_px)) =
        (of_kind(WaterBodyType::Lake), of_kind(WaterBodyType::River));
    WorldStats {
        seed,
        map_size: n,
        land_fraction: land_px as f64 / (n * n) as f64,
        mainland_px: island.mainland.area,
        islets,
        islet_px,
        lakes,
        lake_px,
        river_reaches,
        river_reach_px,
        sunk_px: island.sunk_px,
        crater_center: island.crater.center,
        islet_threshold: island.islet_threshold,
    }
}

/// Total of the timings, for the summary.
pub fn total(timings: &[(String, Duration)]) -> Duration {
    timings.iter().map(|(_, d)| *d).sum()
}
