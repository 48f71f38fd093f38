//! A deterministic blueprint with every section populated, for tests, benchmarks and fuzzing.
//! Its values are arbitrary patterns, not a world: nothing here generates terrain. The patterns
//! still keep the cross-section rules: WBTB's pixel counts and WSRF's levels agree with WBID, and
//! RIVR's reaches are WBTB river bodies whose pixels lie along its rivers.

use ndarray::Array2;

use super::format::{
    encode_water_level, Biome, CraterErosionMode, RoadTier, Salinity, TownTier, WaterBodyType,
};
use super::model::*;
use crate::dials::{CraterGuard, DropletDials};

/// A blueprint of `map_size`² pixels whose every section (TCRV at version 5, TDTL v2, EROS v3,
/// water with two river reaches, RIVR, four road tiers) carries values derived from `salt`.
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
    let rivers = rivers(side, &mix);
    let mut water_ids = heights.mapv(|h| {
        if h < 0.15 {
            1 + (h.to_bits() % 3) as u16
        } else {
            0
        }
    });
    // the river reaches: the pixels under each reach-bearing river's centreline
    for river in &rivers.rivers {
        if let [reach] = river.reaches[..] {
            for p in &river.points {
                if let Some(id) = water_ids.get_mut([p.x as usize, p.y as usize]) {
                    *id = reach;
                }
            }
        }
    }
    let level = |id: u16| 0.15 + f32::from(id) / 64.0;
    let water_surface = water_ids.mapv(|id| {
        if id == 0 {
            0
        } else {
            encode_water_level(level(id)).unwrap_or(1)
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
        detail: Some(DetailDials {
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
            dials: DropletDials {
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
            },
            crater: ErosionCrater::Modes(CraterGuard {
                core: 0.8,
                feather: 1.05,
                mode: CraterErosionMode::Feather,
            }),
        }),
        water_bodies: Some(
            (1..=*RIVER_REACHES.end())
                .map(|id| WaterBody {
                    id,
                    kind: match id {
                        1 => WaterBodyType::Ocean,
                        _ if RIVER_REACHES.contains(&id) => WaterBodyType::River,
                        _ => WaterBodyType::Lake,
                    },
                    salinity: if id == 1 {
                        Salinity::Salt
                    } else {
                        Salinity::Fresh
                    },
                    surface_level: level(id),
                    pixel_count: water_ids.iter().filter(|&&w| w == id).count() as i32,
                    centroid_x: f32::from(id) * 10.0,
                    centroid_y: f32::from(id) * 20.0,
                })
                .collect(),
        ),
        water_ids: Some(water_ids),
        water_surface: Some(WaterSurface::Grid(water_surface)),
        rivers: Some(rivers),
        shape: vec![ShapeInput {
            key: "IslandMask".into(),
            sha256: format!("{:064x}", u64::from(salt).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            file: format!("island-{salt}.png"),
        }],
        roads,
    }
}

/// The WBTB ids of [`full`]'s river reaches (bodies 1..=3 are the ocean and two lakes).
const RIVER_REACHES: std::ops::RangeInclusive<u16> = 4..=5;

/// Three rivers across the map's upper third: a headwater stream on reach 4, the order-2 river
/// it joins on reach 5, and a small reachless tributary (a stream too narrow for a reach).
fn rivers(side: usize, mix: &impl Fn(usize, usize) -> u32) -> RiverNetwork {
    let span = (side / 4).max(1);
    let row = side / 3;
    let river = |order: u8, reaches: Vec<u16>, x0: usize, y0: usize, dy: isize, n: usize| {
        let points = (0..n)
            .map(|k| {
                let x = x0 + k * span / n;
                let y = y0
                    .saturating_add_signed(dy * k as isize)
                    .min(side.saturating_sub(1));
                RiverPoint {
                    x: x as f32 + 0.5,
                    y: y as f32 + 0.5,
                    width_m: f32::from(order) * 4.0 + (mix(k, x) % 100) as f32 / 50.0,
                    discharge_m3s: f32::from(order) * 2.5 + (k as f32) * 0.25,
                }
            })
            .collect();
        River {
            order,
            reaches,
            points,
        }
    };
    RiverNetwork {
        catchment_km2: 2.5,
        width_scale: 1.0,
        density: 1.0,
        rivers: vec![
            river(1, vec![*RIVER_REACHES.start()], span, row, 0, 12),
            river(2, vec![*RIVER_REACHES.end()], 2 * span, row, 0, 16),
            river(1, Vec::new(), 2 * span, row + span, -1, 6),
        ],
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
