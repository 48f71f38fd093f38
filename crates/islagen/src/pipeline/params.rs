//! Config → stage parameters: the one place where the validated [`Config`] is translated into
//! each stage's own small parameter struct. Stages never see the config; the config never sees a
//! stage.

use ndarray::Array2;

use crate::config::{self, CoastProfile, Config, SeaLevelModel};
use crate::sea::{SeaLevel, SeaModel};
use crate::seed;
use crate::stages::crater::{self, Crater, Rim};
use crate::stages::curve::BALANCED;
use crate::stages::detail::{self, DetailDials};
use crate::stages::elevation::Shelf;
use crate::stages::erosion::{Droplets, ErosionParams};
use crate::stages::fluvial::FluvialParams;
use crate::stages::rills::{self, RillParams};
use crate::stages::rivers::RiverParams;
use crate::stages::texture::TextureParams;
use crate::stages::topography::TopographyParams;
use crate::stages::towns::Pinned;

/// The sea level of `config` at its MapSize.
pub fn sea(config: &Config) -> SeaLevel {
    let model = match config.sea_level {
        SeaLevelModel::Flat(level) => SeaModel::Flat(level),
        SeaLevelModel::Field => SeaModel::Field,
    };
    SeaLevel::new(model, config.map_size as usize)
}

/// The topography's dials.
pub fn topography(config: &Config, seed: i32, sea: SeaLevel) -> TopographyParams {
    TopographyParams {
        seed,
        map_size: config.map_size as usize,
        axis_x: config.island_axis_x,
        axis_y: config.island_axis_y,
        islet_density: config.offshore_island_density,
        spine_variation: config.spine_variation,
        coast_variation: config.coast_variation,
        sea,
        island_mask: config.island_mask.as_ref().map(|m| m.raster.clone()),
        relief_mask: config.relief_mask.as_ref().map(|m| m.raster.clone()),
    }
}

/// The HardRockMask on the fluvial relief's grid (0 ..= 1, `[x, y]`), if the config names one.
pub fn hard_rock(config: &Config) -> Option<Array2<f32>> {
    (config.hard_rock_mask.as_ref()).map(|m| m.raster.resample(crate::stages::fluvial::GRID))
}

/// The config's TownPins as the town stage takes them (normalised positions, named by index and
/// name).
pub fn pins(config: &Config) -> Vec<Pinned> {
    let Some(file) = &config.town_pins else {
        return Vec::new();
    };
    (file.pins.iter().enumerate())
        .map(|(i, pin)| Pinned {
            at: pin.normalised(),
            tier: pin.tier,
            label: pin.label(i),
        })
        .collect()
}

/// The crater's radius in pixels at this MapSize.
pub fn crater_radius_px(config: &Config) -> f32 {
    config.crater_radius * config.scale_factor()
}

/// The crater outline's harmonics: irregular with CoastVariation, a circle without.
pub fn crater_wobble(config: &Config, seed: i32) -> [[f32; 2]; 4] {
    let draw = |i: u64| seed::item_unit(seed, "crater", i);
    crater::wobble(
        std::array::from_fn(|k| [draw(2 * k as u64 + 1), draw(2 * k as u64 + 2)]),
        config.coast_variation,
    )
}

/// The crater's raised rim (CraterRim metres), if any.
pub fn rim(config: &Config, crater: &Crater) -> Option<Rim> {
    (config.crater_rim_m > 0.0).then_some(Rim {
        crater: *crater,
        height_m: config.crater_rim_m,
    })
}

/// The detail passes' dials (TerrainDetail "v1").
pub fn detail(config: &Config) -> DetailDials {
    detail::v1(
        config.shelf_relief_amp_m,
        config.shelf_edge_variation_m,
        BALANCED.edge_max_shift_m(),
    )
}

/// The fine relief's dials (FineRelief).
pub fn texture(config: &Config, seed: i32) -> TextureParams {
    TextureParams {
        seed,
        map_size: config.map_size as usize,
        amplitude: config.fine_relief,
    }
}

/// The rills' dials: their depth follows FineRelief.
pub fn rills(config: &Config, seed: i32) -> RillParams {
    RillParams {
        seed,
        map_size: config.map_size as usize,
        depth_m: rills::DEPTH_M * config.fine_relief,
    }
}

/// The river dials, when Rivers is on.
pub fn rivers(config: &Config) -> Option<RiverParams> {
    config.rivers.then_some(RiverParams {
        catchment_km2: config.river_catchment_km2,
        width_scale: config.river_width_scale,
        density: config.river_density,
    })
}

/// The seabed treatment.
pub fn shelf(config: &Config) -> Shelf {
    match config.coast_profile {
        CoastProfile::Wide => Shelf::Wide,
        CoastProfile::Steep => Shelf::Steep,
    }
}

/// The fluvial relief's dials (Erosion "v2"); the sea margin and the crater's treatment are the
/// erosion's shared keys.
pub fn fluvial(e: &config::ErosionConfig) -> FluvialParams {
    let f = &e.fluvial;
    FluvialParams {
        erodibility_per_myr: f.erodibility_per_myr,
        uplift_mm_yr: f.uplift_mm_yr,
        diffusivity_m2_yr: f.diffusivity_m2_yr,
        maturity_myr: f.maturity_myr,
        steps: f.steps,
        sea_margin_m: e.dials.sea_margin_m,
        crater: e.crater,
    }
}

/// The erosion dials at `map_size` (lengths given in map cells become metres), with the droplet
/// stream derived from the resolved seed.
pub fn erosion(e: &config::ErosionConfig, seed: i32, map_size: u32) -> ErosionParams {
    ErosionParams {
        droplets: match e.droplets {
            config::DropletBudget::PerLandKm2(d) => Droplets::PerLandKm2(d),
            config::DropletBudget::Count(n) => Droplets::Count(n),
        },
        lifetime_m: e.lifetime.metres(map_size),
        brush_m: e.brush.metres(map_size),
        stream_seed: seed::erosion_stream(seed, e.seed_offset),
        dials: e.dials,
        crater: e.crater,
    }
}
