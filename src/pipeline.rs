//! The generation pipeline: the stages in order, from a config and a resolved seed to a
//! [`World`], and the export of a world to its files.
//!
//! Order (GENERATOR.md steps 1–4 and the biome half of 6):
//! topography → mainland fill → crater placement and carve → mainland fill again (a carve can
//! never leave a severed fragment) → water classification → render map (height curve, detail,
//! coast shelf) → droplet erosion of the render map (when on) → biomes → water bodies →
//! priority-flood basins (diagnostics) → towns → roads (unless SkipRoads). Every edit that moves the waterline happens on the raw *classify*
//! heights before the render map is made from them pixel by pixel, so the render map's waterline
//! is the classify map's by construction. With SkipRoads the road sections are present and
//! empty and there is no `3_roads` snapshot.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ndarray::Array2;
use serde::Serialize;

use crate::blueprint::{self, Blueprint, Params};
use crate::config::{Config, TerrainCurve, TerrainDetail};
use crate::progress::Progress;
use crate::render;
use crate::stages::basins::{basin_stats, fill_depressions, BasinStats, Outlets};
use crate::stages::biomes::{biomes, BiomeInputs, Zoning};
use crate::stages::crater::{self, Crater};
use crate::stages::curve::{Curve, BALANCED};
use crate::stages::detail::{v1 as detail_v1, Detail};
use crate::stages::elevation::{render, RenderPasses};
use crate::stages::erosion::{self, erode, ErosionError, ErosionStats, Schedule};
use crate::stages::mainland::{count_components, mainland_fill};
use crate::stages::roads::{roads, CostGrid, RoadNetwork};
use crate::stages::sea::{classify_water, SeaLevel, Water};
use crate::stages::topography::{topography, Shape, TopographyParams};
use crate::stages::towns::{towns, SmoothSite, TownInputs, TownStats};
use crate::stages::water_bodies::{water_bodies, WaterBodyError};

/// Why generation stopped.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The erosion pass's exit check found a broken guarantee.
    #[error(transparent)]
    Erosion(#[from] ErosionError),
    /// The water bodies cannot be written.
    #[error(transparent)]
    WaterBodies(#[from] WaterBodyError),
}

/// A generated world: the blueprint to export and what the stages know about it.
#[derive(Clone, Debug)]
pub struct World {
    /// The blueprint (provenance is stamped at export).
    pub blueprint: Blueprint,
    /// The raw classify heights biomes and water were computed from (uncurved).
    pub classify_heights: Array2<f32>,
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
    /// The road network, unless SkipRoads.
    pub roads: Option<RoadNetwork>,
}

/// Figures about a world, for the closing summary and for tests.
#[derive(Clone, Debug, Serialize)]
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
    /// Lakes (below-sea components not joined to the ocean).
    pub lakes: usize,
    /// Pixels of all lakes.
    pub lake_px: usize,
    /// Stray land pixels the mainland fill sank.
    pub sunk_px: usize,
    /// Impact centre, pixels.
    pub crater_center: [f32; 2],
    /// The islet field's threshold for this seed.
    pub islet_threshold: f32,
}

/// Generates the world of `seed` (already resolved) under `config`.
pub fn generate(config: &Config, seed: i32, progress: &Progress) -> Result<World, GenerateError> {
    let n = config.map_size as usize;
    let sea = SeaLevel::new(config.sea_level, n);

    let stage = progress.stage("topography", n as u64);
    let shape = Shape::new(&TopographyParams {
        seed,
        map_size: n,
        axis_x: config.island_axis_x,
        axis_y: config.island_axis_y,
        islet_density: config.offshore_island_density,
        sea,
    });
    let topo = topography(&shape, &|| stage.tick());
    stage.finish();
    let mut raw = topo.heights;

    let stage = progress.stage("mainland", 0);
    let first = mainland_fill(&mut raw, &topo.islet_zone, &sea);
    stage.finish();

    let stage = progress.stage("crater", 0);
    let draw = (crate::seed::stage_seed(seed, "crater") >> 11) as f64 / (1u64 << 53) as f64;
    let crater = crater::place(
        &first.mask,
        draw,
        config.crater_radius * config.scale_factor(),
    );
    drop(first.mask);
    crater::carve(&mut raw, &crater, &sea);
    let second = mainland_fill(&mut raw, &topo.islet_zone, &sea);
    drop(topo.islet_zone);
    stage.finish();

    let stage = progress.stage("water", 0);
    let water = classify_water(&raw, &sea);
    stage.finish();

    let stage = progress.stage("render", n as u64);
    let max_above_sea = raw
        .outer_iter()
        .map(|col| {
            col.iter()
                .enumerate()
                .map(|(y, &z)| z - sea.at(y))
                .fold(f32::NEG_INFINITY, f32::max)
        })
        .fold(f32::NEG_INFINITY, f32::max);
    let record_sea = sea.at(n / 2);
    let curve = (config.terrain_curve == TerrainCurve::V5)
        .then(|| Curve::new(BALANCED, seed, max_above_sea, record_sea));
    let detail = match (&curve, config.terrain_detail) {
        (Some(_), TerrainDetail::V1) => Some(Detail::new(
            detail_v1(
                config.shelf_relief_amp_m,
                config.shelf_edge_variation_m,
                BALANCED.edge_max_shift_m(),
            ),
            seed,
        )),
        _ => None,
    };
    let mut heights = render(
        &raw,
        &sea,
        RenderPasses {
            curve: curve.as_ref(),
            detail: detail.as_ref(),
            coast: config.coast_profile,
        },
        &|| stage.tick(),
    );
    stage.finish();

    let erosion = if config.erosion.enabled {
        let stage = progress.stage("erosion", 4);
        let stats = erode(
            &mut heights,
            &sea,
            &crater,
            &config.erosion,
            seed,
            Schedule::Tiled,
            &|| stage.tick(),
        )?;
        stage.finish();
        Some(stats)
    } else {
        None
    };

    let stage = progress.stage("biomes", n as u64);
    let zoning = Zoning::new(seed, BALANCED.knots);
    let biome_map = biomes(
        &BiomeInputs {
            zoning: &zoning,
            heights: &raw,
            water: &water,
            sea: &sea,
            crater: &crater,
        },
        &|| stage.tick(),
    );
    stage.finish();

    let stage = progress.stage("water bodies", 0);
    let bodies = water_bodies(&water, &sea)?;
    stage.finish();

    let stage = progress.stage("basins", 0);
    let basins = {
        let t = std::time::Instant::now();
        let filled = fill_depressions(&heights, Outlets::Ocean(&water));
        tracing::debug!("priority flood {:.2?}", t.elapsed());
        let t = std::time::Instant::now();
        let stats = basin_stats(&heights, &filled);
        tracing::debug!("basin statistics {:.2?}", t.elapsed());
        stats
    };
    stage.finish();
    tracing::info!(
        "basins: {} depressions over {} cells, largest {} cells, deepest {:.1} m, {:.0} m³",
        basins.basins,
        basins.filled_cells,
        basins.largest_cells,
        basins.max_depth_m,
        basins.volume_m3
    );

    let stage = progress.stage("towns", 0);
    // Town sites are scored on the smooth terrain (the island without its finest octaves, through
    // the curve and the biome zoning): a function of the normalised position alone.
    let smooth = |u: f32, v: f32| {
        let s = sea.at(((v * n as f32) as usize).min(n - 1));
        let a = shape.smooth_height(u, v, s) - s;
        let metres = match (&curve, a > 0.0) {
            (Some(c), true) => c.column(u, v).metres(a, 0.0),
            _ => a * crate::stages::curve::METRES_PER_RAW,
        };
        // The crater is left out: its rim comes from the pixel map's impact centre, which moves
        // by a pixel between MapSizes; towns read it through a smooth distance instead.
        let biome = (a >= 0.0).then(|| zoning.land(a, u, v, false));
        SmoothSite { metres, biome }
    };
    let (town_list, town_stats) = towns(&TownInputs {
        seed,
        smooth: &smooth,
        water_ids: &bodies.ids,
        mainland: &second.mask,
        crater: &crater,
        density: config.density_multiplier,
    });
    stage.finish();

    let road_network = if config.skip_roads {
        None
    } else {
        let stage = progress.stage("roads", town_list.len() as u64);
        let grid = CostGrid::new(&heights, &water, &sea, &crater);
        let network = roads(&grid, &town_list, &|| stage.tick());
        stage.finish();
        let s = &network.stats;
        tracing::info!(
            "roads: {} highway, {} branch, {} rugged, {} trail paths; {} towns abandoned; {} nodes expanded",
            s.paths[0], s.paths[1], s.paths[2], s.paths[3], s.abandoned, s.expanded
        );
        Some(network)
    };

    let stage = progress.stage("statistics", 0);
    let land_px = water.iter().filter(|w| **w == Water::Dry).count();
    let (islets, islet_px) = count_components((n, n), |x, y| {
        second.mask[[x, y]] == 0 && water[[x, y]] == Water::Dry
    });
    let lakes = bodies.bodies.len().saturating_sub(1);
    let lake_px = bodies
        .bodies
        .iter()
        .skip(1)
        .map(|b| b.pixel_count.max(0) as usize)
        .sum();
    stage.finish();

    let stats = WorldStats {
        seed,
        map_size: n,
        land_fraction: land_px as f64 / (n * n) as f64,
        mainland_px: second.area,
        islets,
        islet_px,
        lakes,
        lake_px,
        sunk_px: first.sunk + second.sunk,
        crater_center: crater.center,
        islet_threshold: topo.islet_threshold,
    };
    let blueprint = Blueprint {
        params: Params {
            world_seed: seed,
            map_size: n as i32,
            crater_radius: config.crater_radius,
            density_multiplier: config.density_multiplier,
            impact_center_x: crater.center[0],
            impact_center_y: crater.center[1],
            generated_utc: String::new(),
            generator_git_hash: String::new(),
        },
        heights,
        biomes: biome_map,
        towns: town_list,
        curve: curve.as_ref().map(Curve::record),
        detail: detail.as_ref().map(|d| *d.params()),
        erosion: config
            .erosion
            .enabled
            .then(|| erosion::record(&config.erosion)),
        water_ids: Some(bodies.ids),
        water_bodies: Some(bodies.bodies),
        water_surface: Some(bodies.surface),
        roads: road_network
            .as_ref()
            .map(|r| r.roads.clone())
            .unwrap_or_default(),
    };
    Ok(World {
        blueprint,
        classify_heights: raw,
        water,
        sea,
        crater,
        stats,
        erosion,
        basins,
        towns: town_stats,
        roads: road_network,
    })
}

/// One file an export wrote.
#[derive(Clone, Debug, Serialize)]
pub struct Written {
    /// Where.
    pub path: PathBuf,
    /// Size in bytes.
    pub bytes: u64,
}

/// The file names of a seed's outputs, GENERATOR.md's "Outputs".
pub fn file_names(seed: i32) -> [String; 8] {
    [
        format!("MapData_Seed_{seed}.dat"),
        format!("MapData_Seed_{seed}_v1.dat"),
        format!("Map_Seed_{seed}_0_height.png"),
        format!("Map_Seed_{seed}_0_water.png"),
        format!("Map_Seed_{seed}_1_biomes.png"),
        format!("Map_Seed_{seed}_2_towns.png"),
        format!("Map_Seed_{seed}_3_roads.png"),
        format!("MapData_Seed_{seed}.structures.json"),
    ]
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
        SidecarLayout::Beside => dir.join(&file_names(seed)[7]),
        SidecarLayout::Assets => dir
            .join("assets")
            .join(format!("MapData_Seed_{seed}"))
            .join("structures.json"),
    }
}

/// Exports `world` into `dir` (created if missing): the v2 blueprint, the v1 dual-write and the
/// snapshots, each written atomically. Provenance is stamped now.
pub fn export(world: &World, dir: &Path, progress: &Progress) -> anyhow::Result<Vec<Written>> {
    export_with(world, dir, SidecarLayout::Beside, progress)
}

/// [`export`] with the structure sidecar placed by `layout`.
pub fn export_with(
    world: &World,
    dir: &Path,
    layout: SidecarLayout,
    progress: &Progress,
) -> anyhow::Result<Vec<Written>> {
    use anyhow::Context;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut bp = world.blueprint.clone();
    bp.params.stamp_provenance();
    let [v2, v1, height_png, water_png, biome_png, towns_png, roads_png, _] =
        file_names(bp.params.world_seed).map(|f| dir.join(f));
    let sidecar = sidecar_path(dir, bp.params.world_seed, layout);
    // The blueprint writes wait on the disk, the snapshots on the CPU: run them side by side.
    let (blueprints, snapshots) = rayon::join(
        || -> anyhow::Result<Vec<Written>> {
            let mut written = Vec::new();
            let stage = progress.stage("write v2", 0);
            let bytes = blueprint::write_v2_file(&v2, &bp)
                .with_context(|| format!("writing {}", v2.display()))?;
            written.push(Written { path: v2, bytes });
            stage.finish();
            let stage = progress.stage("write v1", 0);
            let bytes = blueprint::write_v1_file(&v1, &bp)
                .with_context(|| format!("writing {}", v1.display()))?;
            written.push(Written { path: v1, bytes });
            stage.finish();
            Ok(written)
        },
        || -> anyhow::Result<Vec<Written>> {
            let stage = progress.stage("snapshots", 0);
            let write = |path: PathBuf, image: render::Image| -> anyhow::Result<Written> {
                let bytes = render::write_png(&path, &image)
                    .with_context(|| format!("writing {}", path.display()))?;
                Ok(Written { path, bytes })
            };
            // Two images at a time: each is 3 bytes a pixel (192 MiB at 8192).
            let (height, water) = rayon::join(
                || write(height_png, render::height_image(&bp.heights, &world.sea)),
                || {
                    let ids = bp.water_ids.as_ref().expect("generated worlds have water");
                    write(water_png, render::water_image(ids))
                },
            );
            let (biome, towns) = rayon::join(
                || write(biome_png, render::biome_image(&bp.biomes)),
                || write(towns_png, render::towns_image(&bp.biomes, &bp.towns)),
            );
            let mut images = vec![height?, water?, biome?, towns?];
            if world.roads.is_some() {
                images.push(write(
                    roads_png,
                    render::roads_image(&bp.biomes, &bp.roads, &bp.towns),
                )?);
            }
            stage.finish();
            Ok(images)
        },
    );
    let mut written = blueprints?;
    written.extend(snapshots?);
    let structures = crate::formats::structures::from_world(&bp).to_json();
    if let Some(parent) = sidecar.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    crate::output::write_bytes_atomically(&sidecar, structures.as_bytes())
        .with_context(|| format!("writing {}", sidecar.display()))?;
    written.push(Written {
        bytes: structures.len() as u64,
        path: sidecar,
    });
    Ok(written)
}

/// Total of the timings, for the summary.
pub fn total(timings: &[(String, Duration)]) -> Duration {
    timings.iter().map(|(_, d)| *d).sum()
}
