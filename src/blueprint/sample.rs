//! A deterministic blueprint with every section populated, for tests, benchmarks and fuzzing.
//! Its values are arbitrary patterns, not a world: nothing here generates terrain.

use ndarray::Array2;

use super::format::{
    encode_water_level, Biome, CraterErosionMode, RoadTier, Salinity, TownTier, WaterBodyType,
};
use super::model::*;

/// A blueprint of `map_size`² pixels whose every section (TCRV at version 5, TDTL v2, EROS v3,
/// water, four road tiers) carries values derived from `salt`.
pub fn full(map_size: i32, salt: u32) -> Blueprint {
    let side = map_size.max(0) as usize;
    let mix = |x: usize, y: usize| {
        let mut h =
            (x as u32).wrapping_mul(0x9E37_79B1) ^ (y as u32).wrapping_mul(0x85EB_CA77) ^ salt;
        h ^= h >> 15;
        h = h.wrapping_mul(0x2C1B_3C6D);
        h ^ (h >> 12)
    };
    let heights = Array2::from_shape_fn((side, side), |(x, y)| {
        (mix(x, y) % 100_000) as f32 / 50_000.0 - 0.2
    });
    let biomes = Array2::from_shape_fn((side, side), |(x, y)| {
        Biome::ALL[mix(y, x) as usize % Biome::COUNT]
    });
    let water_ids = heights.mapv(|h| {
        if h < 0.15 {
            1 + (h.to_bits() % 3) as u16
        } else {
            0
        }
    });
    let water_surface = water_ids.mapv(|id| {
        if id == 0 {
            0
        } else {
            encode_water_level(0.15 + f32::from(id) / 64.0).unwrap_or(1)
        }
    });
    let towns = (0..12)
        .map(|i| Town {
            x: (mix(i, 1) % side.max(1) as u32) as f32 + 0.5,
            y: (mix(i, 2) % side.max(1) as u32) as f32 + 0.25,
            tier: TownTier::ALL[i % TownTier::COUNT],
            is_highway_node: i % 3 == 0,
        })
        .collect();
    let mut roads = Roads::default();
    for (t, tier) in RoadTier::ALL.iter().enumerate() {
        *roads.tier_mut(*tier) = (0..t + 1)
            .map(|p| {
                (0..(p * 7 + 3))
                    .map(|k| [k as f32 * 1.5 + t as f32, (mix(p, k) % 1000) as f32 / 3.0])
                    .collect()
            })
            .collect();
    }
    Blueprint {
        params: Params {
            world_seed: salt as i32,
            map_size,
            crater_radius: 64.0,
            density_multiplier: 1.0,
            impact_center_x: side as f32 / 2.0,
            impact_center_y: side as f32 / 9.0,
            generated_utc: "2026-11-29T00:00:00Z".into(),
            generator_git_hash: "abc1234".into(),
        },
        heights,
        biomes,
        towns,
        curve: Some(curve(5)),
        detail: Some(DetailRecord {
            relief_amp_m: 3.0,
            relief_freq_islands: 9.0,
            relief_seed_offset: 301,
            edge_amp_m: 12.0,
            edge_freq_islands: 5.0,
            edge_seed_offset: 302,
            edge_max_shift_m: 18.0,
        }),
        erosion: Some(ErosionRecord {
            droplet_count: 250_000,
            lifetime: 384,
            brush_radius: 3,
            seed_offset: 1709,
            carve_cap_m: 15.0,
            deposit_cap_m: 6.0,
            sea_margin_m: 0.5,
            inertia: 0.35,
            capacity_factor: 4.0,
            min_slope_m: 0.05,
            erode_rate: 0.3,
            deposit_rate: 0.3,
            evaporation: 0.01,
            gravity: 4.0,
            crater: ErosionCrater::Modes {
                core: 0.8,
                feather: 1.05,
                mode: CraterErosionMode::Feather,
            },
        }),
        water_bodies: Some(
            (1..=3u16)
                .map(|id| WaterBody {
                    id,
                    kind: if id == 1 {
                        WaterBodyType::Ocean
                    } else {
                        WaterBodyType::Lake
                    },
                    salinity: if id == 1 {
                        Salinity::Salt
                    } else {
                        Salinity::Fresh
                    },
                    surface_level: 0.15 + f32::from(id) / 64.0,
                    pixel_count: water_ids.iter().filter(|&&w| w == id).count() as i32,
                    centroid_x: f32::from(id) * 10.0,
                    centroid_y: f32::from(id) * 20.0,
                })
                .collect(),
        ),
        water_ids: Some(water_ids),
        water_surface: Some(water_surface),
        rivers: None,
        roads,
    }
}

/// A TCRV record of `version` with the extensions that version carries.
pub fn curve(version: u16) -> CurveRecord {
    CurveRecord {
        version,
        base: CurveBase {
            knots: [0.2, 0.35, 0.5, 0.7],
            spike_max: 1.31,
            sea: 0.15,
            orange_ceil: 0.3,
            red_ceil: 0.45,
            bench_lo: 100.0,
            bench_hi: 220.0,
            peak_cap: 420.0,
            tail_slope: 0.25,
        },
        modulation: (version >= 4).then_some(CurveModulation {
            bench_amp: 12.0,
            plateau_amp: 20.0,
            shelf_span_min: 0.6,
            shelf_span_max: 1.0,
            elev_freq_islands: 2.0,
            strength_freq_islands: 1.5,
            bench_seed_offset: 101,
            plateau_seed_offset: 102,
            strength_seed_offset: 103,
        }),
        preset: (version >= 5).then_some(CurvePreset {
            preset_id: 2,
            k5: 0.930304,
            k6: 1.050_72,
        }),
    }
}
