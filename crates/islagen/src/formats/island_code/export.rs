//! A generated world as an island code: the map downsampled to `side` × `side` tiles.
//!
//! Each tile summarises its block of map pixels (the majority decides) by this mapping:
//!
//! | world                                              | ground        | nature                   |
//! |----------------------------------------------------|---------------|--------------------------|
//! | water deeper than [`SHALLOW_M`]                     | `WATER`       | —                        |
//! | water up to [`SHALLOW_M`] deep (reef, shallows)     | `WATER_ROCK`  | `FISH` on 1 tile in 5    |
//! | Beach                                               | `SAND`        | —                        |
//! | Crater (the rim) and the carved crater floor        | `METEORITE`   | —                        |
//! | land whose tile rises more than [`CLIFF_M`] across it | `INNER_CLIFF` | —                      |
//! | Forest                                              | `GRASS`       | `TREE`                   |
//! | Mountain, Snow                                      | `GRASS`       | `ROCK`                   |
//! | Grassland (meadows)                                 | `GRASS`       | `FLOWER` on 1 tile in 4  |
//! | other land                                          | `GRASS`       | —                        |
//!
//! Water is what [`Blueprint::is_water`] says: WBID nonzero (ocean, lakes and river reaches
//! alike), or BIOM's Ocean / Lake in a blueprint without water sections. A river is a few pixels
//! wide, so at a coarse side it rarely holds a tile's majority; at a side near the MapSize its
//! tiles are water (WATER_ROCK where shallow).
//!
//! The sprinkled FISH and FLOWER tiles are chosen by a hash of the tile and the world's seed, so
//! an export is deterministic. No buildings, remains or inner-cliff records are written.

use crate::blueprint::{format::decode_water_level, Biome, Blueprint};

use super::{Ground, Island, Nature};

/// Water at most this deep (metres) is shallows: WATER_ROCK.
pub const SHALLOW_M: f32 = 4.0;
/// A land tile whose heights span more than this (metres) is a cliff.
pub const CLIFF_M: f32 = 25.0;
/// Metres per raw height unit.
use crate::units::METRES_PER_RAW;
/// The sea level assumed where a blueprint has no water sections.
const DEFAULT_SEA: f32 = 0.15;

/// Why a world cannot be exported.
#[derive(Debug, thiserror::Error)]
#[error("cannot export an island of side {side} from a map of {map_size}: need 1 ≤ side ≤ MapSize and side ≤ {max}", max = super::MAX_SIDE)]
pub struct IslandCodeExportError {
    side: usize,
    map_size: usize,
}

fn hash(seed: i32, i: usize) -> u64 {
    crate::seed::item_hash(seed, "island-code", i as u64)
}

/// The world `bp` as an island of `side` × `side` tiles.
pub fn island_from_world(bp: &Blueprint, side: usize) -> Result<Island, IslandCodeExportError> {
    let n = bp.side();
    if side == 0 || side > n || side > super::MAX_SIDE {
        return Err(IslandCodeExportError { side, map_size: n });
    }
    let crater = (bp.params.crater_radius > 0.0).then(|| {
        let r = bp.params.crater_radius * crate::units::scale_factor(n);
        ([bp.params.impact_center_x, bp.params.impact_center_y], r)
    });
    let mut ground = Vec::with_capacity(side * side);
    let mut nature = Vec::with_capacity(side * side);
    let block = |i: usize| (i * n / side, ((i + 1) * n / side).max(i * n / side + 1));
    for ty in 0..side {
        let (y0, y1) = block(ty);
        for tx in 0..side {
            let (x0, x1) = block(tx);
            let mut votes = [0usize; Biome::COUNT];
            let (mut wet, mut shallow, mut in_crater, mut cells) = (0usize, 0usize, 0usize, 0usize);
            let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
            for x in x0..x1 {
                for y in y0..y1 {
                    cells += 1;
                    let b = bp.biomes[[x, y]];
                    votes[usize::from(b.ordinal())] += 1;
                    let h = bp.heights[[x, y]];
                    let surface = bp.water_surface_at(x, y).and_then(decode_water_level);
                    if bp.is_water(x, y) {
                        wet += 1;
                        let depth = (surface.unwrap_or(DEFAULT_SEA) - h) * METRES_PER_RAW;
                        shallow += usize::from(depth <= SHALLOW_M);
                    } else {
                        lo = lo.min(h);
                        hi = hi.max(h);
                    }
                    if let Some((c, r)) = crater {
                        in_crater += usize::from((x as f32 - c[0]).hypot(y as f32 - c[1]) < r);
                    }
                }
            }
            let i = ty * side + tx;
            let majority = (0..Biome::COUNT)
                .max_by_key(|&b| (votes[b], std::cmp::Reverse(b)))
                .and_then(|b| Biome::from_ordinal(b as i64))
                .unwrap_or(Biome::Dirt);
            let (g, nat) = if 2 * in_crater > cells {
                (Ground::Meteorite, Nature::None)
            } else if 2 * wet > cells {
                if 2 * shallow > wet {
                    let fish = hash(bp.params.world_seed, i).is_multiple_of(5);
                    (
                        Ground::WaterRock,
                        if fish { Nature::Fish } else { Nature::None },
                    )
                } else {
                    (Ground::Water, Nature::None)
                }
            } else if (hi - lo) * METRES_PER_RAW > CLIFF_M {
                (Ground::InnerCliff, Nature::None)
            } else {
                match majority {
                    Biome::Beach => (Ground::Sand, Nature::None),
                    Biome::Crater => (Ground::Meteorite, Nature::None),
                    Biome::Forest => (Ground::Grass, Nature::Tree),
                    Biome::Mountain | Biome::Snow => (Ground::Grass, Nature::Rock),
                    Biome::Grassland => {
                        let flower = hash(bp.params.world_seed, i).is_multiple_of(4);
                        (
                            Ground::Grass,
                            if flower { Nature::Flower } else { Nature::None },
                        )
                    }
                    _ => (Ground::Grass, Nature::None),
                }
            };
            ground.push(g);
            nature.push(nat);
        }
    }
    Ok(Island {
        buildings: Vec::new(),
        remains: Vec::new(),
        side,
        ground,
        nature,
        inner_cliffs: Vec::new(),
    })
}
