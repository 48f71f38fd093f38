//! A generated island as a StarMade blueprint (an asteroid, a planet plate or a station).
//!
//! The island's bounding box (its land, islets included) is scaled so its longer side spans
//! `width` blocks; one block is then `metres_per_block` wide **and** tall, so the island keeps
//! its proportions: a column's top block sits at its height above the lowest seabed in the box,
//! divided by the same metres per block. Each column is filled from the bottom, with blocks
//! chosen by biome (StarMade's terrain ids):
//!
//! | column                 | top block                  | the 3 below      | deeper      |
//! |------------------------|----------------------------|------------------|-------------|
//! | Grassland, Forest      | Grass 82                   | Soil 87          | Rock 73     |
//! | Foothills, Plateau     | Grassy Rock 83             | Soil 87          | Rock 73     |
//! | Beach                  | Sand 74                    | Sand 74          | Rock 73     |
//! | Mountain, Crater, Dirt | Rock 73                    | Rock 73          | Rock 73     |
//! | Snow                   | Snowy Rock Surface 274     | Frozen Rock 275  | Rock 73     |
//! | Ocean, Lake (seabed)   | Sand 74                    | Rock 73          | Rock 73     |
//!
//! and water columns get Water 86 from their seabed up to the water surface (WSRF, or sea level
//! 0.15 raw without water sections); a lake or sea that would freeze (Snow around it) is not
//! modelled: Ice 64 is not used. The element map is counted from the blocks written, and the
//! bounding box is the blocks' extent relative to the core position (16, 16, 16).

use std::collections::BTreeMap;

use super::header::Header;
use super::logic::Logic;
use super::meta::Meta;
use super::region::{Block, Segment};
use super::Blueprint;
use crate::blueprint::{format::decode_water_level, Biome};

/// Terrain block ids.
pub mod ids {
    /// Ice.
    pub const ICE: u16 = 64;
    /// Rock.
    pub const ROCK: u16 = 73;
    /// Sand.
    pub const SAND: u16 = 74;
    /// Grass.
    pub const GRASS: u16 = 82;
    /// Grassy rock.
    pub const GRASSY_ROCK: u16 = 83;
    /// Water.
    pub const WATER: u16 = 86;
    /// Soil.
    pub const SOIL: u16 = 87;
    /// Snowy rock surface.
    pub const SNOWY_ROCK: u16 = 274;
    /// Frozen rock.
    pub const FROZEN_ROCK: u16 = 275;
}

/// The StarMade entity an island becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    /// An asteroid (entity type 3).
    Asteroid,
    /// A planet plate (entity type 4).
    Planet,
    /// A space station (entity type 2).
    Station,
}

impl Entity {
    /// The header's entity type.
    pub fn code(self) -> i32 {
        match self {
            Entity::Station => 2,
            Entity::Asteroid => 3,
            Entity::Planet => 4,
        }
    }
}

/// The block column of one map column: (top id, the 3 below, deeper).
fn palette(b: Biome) -> (u16, u16, u16) {
    use ids::*;
    match b {
        Biome::Grassland | Biome::Forest => (GRASS, SOIL, ROCK),
        Biome::Foothills | Biome::Plateau => (GRASSY_ROCK, SOIL, ROCK),
        Biome::Beach => (SAND, SAND, ROCK),
        Biome::Snow => (SNOWY_ROCK, FROZEN_ROCK, ROCK),
        Biome::Ocean | Biome::Lake => (SAND, ROCK, ROCK),
        Biome::Mountain | Biome::Crater | Biome::Dirt => (ROCK, ROCK, ROCK),
    }
}

/// What an export made.
#[derive(Clone, Debug, PartialEq)]
pub struct Voxels {
    /// The blueprint.
    pub blueprint: Blueprint,
    /// Metres per block, across and up.
    pub metres_per_block: f32,
    /// The map pixel box the blocks cover: x0, y0, x1, y1 (exclusive).
    pub pixel_box: [usize; 4],
    /// Column heights in blocks (top block's y, −1 = empty), `[bx][bz]`.
    pub columns: Vec<Vec<i32>>,
}

/// The narrowest export, in blocks.
pub const MIN_WIDTH: usize = 8;
/// The widest export, in blocks.
pub const MAX_WIDTH: usize = 4096;

/// Why a world cannot be exported as a StarMade blueprint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The width is outside [`MIN_WIDTH`]..=[`MAX_WIDTH`].
    #[error("width {width} must be within {MIN_WIDTH}..={MAX_WIDTH} blocks")]
    WidthOutOfRange {
        /// The width asked for.
        width: usize,
    },
    /// Every pixel of the world is ocean or lake.
    #[error("the world has no land to export")]
    NoLand,
    /// A terrain block id that does not fit a version-3 block word.
    #[error("terrain block id {id} does not fit 11 bits")]
    TerrainIdTooWide {
        /// The block id.
        id: u16,
    },
}

/// Voxelises `bp` (a generated world) into a StarMade blueprint `width` blocks across.
pub fn island(
    bp: &crate::blueprint::Blueprint,
    width: usize,
    entity: Entity,
    name: &str,
) -> Result<Voxels, ExportError> {
    let n = bp.side();
    if !(MIN_WIDTH..=MAX_WIDTH).contains(&width) {
        return Err(ExportError::WidthOutOfRange { width });
    }
    // The land's bounding box, with a one-pixel margin.
    let (mut x0, mut y0, mut x1, mut y1) = (n, n, 0, 0);
    for ((x, y), b) in bp.biomes.indexed_iter() {
        if !matches!(b, Biome::Ocean | Biome::Lake) {
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x + 1);
            y1 = y1.max(y + 1);
        }
    }
    if x1 <= x0 {
        return Err(ExportError::NoLand);
    }
    let (x0, y0, x1, y1) = (
        x0.saturating_sub(1),
        y0.saturating_sub(1),
        (x1 + 1).min(n),
        (y1 + 1).min(n),
    );
    let span = (x1 - x0).max(y1 - y0);
    let px_per_block = span as f32 / width as f32;
    let metres_per_px = crate::units::metres_per_px(n);
    let metres_per_block = px_per_block * metres_per_px;
    let (bw, bd) = (
        ((x1 - x0) as f32 / px_per_block).ceil() as usize,
        ((y1 - y0) as f32 / px_per_block).ceil() as usize,
    );
    let raw_to_m = crate::units::METRES_PER_RAW;
    // Sample each block column at its centre pixel.
    let sample = |bx: usize, bz: usize| {
        let x = (x0 + ((bx as f32 + 0.5) * px_per_block) as usize).min(x1 - 1);
        let y = (y0 + ((bz as f32 + 0.5) * px_per_block) as usize).min(y1 - 1);
        let surface = bp
            .water_surface
            .as_ref()
            .and_then(|s| decode_water_level(s[[x, y]]))
            .or_else(|| matches!(bp.biomes[[x, y]], Biome::Ocean | Biome::Lake).then_some(0.15));
        (bp.heights[[x, y]], bp.biomes[[x, y]], surface)
    };
    // The lowest finite height is the floor; no column stands taller than the island is wide,
    // whatever the heights say (a hostile .dat may hold NaN, infinities or 1e30).
    let mut floor = f32::INFINITY;
    for bx in 0..bw {
        for bz in 0..bd {
            let h = sample(bx, bz).0;
            if h.is_finite() {
                floor = floor.min(h);
            }
        }
    }
    if !floor.is_finite() {
        floor = 0.0;
    }
    let max_top = width as f32;
    let to_blocks = |h: f32| {
        let b = ((h - floor) * raw_to_m / metres_per_block).floor();
        if b.is_nan() {
            0
        } else {
            b.clamp(0.0, max_top) as i32
        }
    };
    let core = 16;
    let mut blocks: BTreeMap<[i32; 3], u16> = BTreeMap::new();
    let mut columns = vec![vec![-1; bd]; bw];
    for (bx, column) in columns.iter_mut().enumerate() {
        for (bz, cell) in column.iter_mut().enumerate() {
            let (h, biome, surface) = sample(bx, bz);
            let top = to_blocks(h).max(0);
            *cell = top;
            let (cap, under, deep) = palette(biome);
            let (x, z) = (
                bx as i32 - bw as i32 / 2 + core,
                bz as i32 - bd as i32 / 2 + core,
            );
            for y in 0..=top {
                let id = match top - y {
                    0 => cap,
                    1..=3 => under,
                    _ => deep,
                };
                blocks.insert([x, y, z], id);
            }
            if let Some(level) = surface {
                for y in top + 1..=to_blocks(level) {
                    blocks.insert([x, y, z], ids::WATER);
                }
            }
        }
    }
    // 32³ segments, segment version 3, full hit points as the game stores them for terrain.
    let mut segments: BTreeMap<[i32; 3], Vec<u32>> = BTreeMap::new();
    let mut elements: BTreeMap<u16, i32> = BTreeMap::new();
    let (mut lo, mut hi) = ([i32::MAX; 3], [i32::MIN; 3]);
    for (p, id) in &blocks {
        let origin = p.map(|c| c.div_euclid(32) * 32);
        let local = p.map(|c| c.rem_euclid(32) as usize);
        let word = super::region::encode_v3(Block {
            id: *id,
            hp: 127,
            active: false,
            orientation: 0,
        })
        .ok_or(ExportError::TerrainIdTooWide { id: *id })?;
        segments
            .entry(origin)
            .or_insert_with(|| vec![0; 32 * 32 * 32])[local[0] + 32 * local[1] + 1024 * local[2]] =
            word;
        *elements.entry(*id).or_insert(0) += 1;
        for k in 0..3 {
            lo[k] = lo[k].min(p[k] - core);
            hi[k] = hi[k].max(p[k] - core);
        }
    }
    let header = Header {
        version: 3,
        game_version: None,
        entity_type: entity.code(),
        classification: Some(0),
        min: lo.map(|c| c as f32),
        max: hi.map(|c| c as f32 + 1.0),
        elements: elements.iter().map(|(id, n)| (*id as i16, *n)).collect(),
        statistics: None,
    };
    let segments = segments
        .into_iter()
        .map(|(position, words)| Segment {
            version: 3,
            timestamp: 0,
            position,
            side: 32,
            words,
        })
        .collect();
    Ok(Voxels {
        blueprint: Blueprint {
            name: name.to_string(),
            header,
            meta: Meta::empty(),
            logic: Logic {
                version: 0,
                controller_version: Some(-1026),
                controllers: Vec::new(),
            },
            segments,
            chunk: 32,
            children: Vec::new(),
        },
        metres_per_block,
        pixel_box: [x0, y0, x1, y1],
        columns,
    })
}
