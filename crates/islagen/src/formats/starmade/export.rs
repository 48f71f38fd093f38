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
//! modelled: Ice 64 is not used. A water column is a pixel [`Blueprint::is_water`] says is
//! water (WBID nonzero — ocean, lakes and river reaches alike — or BIOM's Ocean / Lake in a
//! blueprint without water sections). Where its water is shallower than the block grain (a
//! river a metre or two deep at tens of metres per block, the shallows along a coast), bed and
//! surface floor to the same block and the water would vanish, the river showing as a strip of
//! sand; the bed then sits one block lower, so the column holds one water block at its
//! surface's block (two when the bed is the box's floor, block 0, and cannot go lower). A
//! column whose ground stands a block or more above its water's surface stays dry.
//!
//! [`Blueprint::is_water`]: crate::blueprint::Blueprint::is_water
//!
//! # What the header, meta and blocks hold, and the evidence for each
//!
//! Compared field by field with the real vectors (`tests/vectors/starmade`, SMBEdit's fixtures)
//! in `tests/starmade.rs`:
//!
//! - header: version 3, no game version, no statistics — as every header-v3 vector; the one
//!   non-ship, B_Block_Station, has no statistics;
//! - entity type: `--entity asteroid` 3, `managed-asteroid` 4, `planet` 5, `station` 2 — the
//!   spec's table and SMBEdit's agree; B_Block_Station is 2;
//! - classification: the type's default, 18, 19, 20, 9 — B_Block_Station holds 9; 18–20 rest on
//!   the spec's and SMBEdit's tables (see [`header`]);
//! - bounding box: [`header::bounding_box`], per axis lowest block − 17 to highest − 14 in the
//!   chunk-32 frame, the core position counted — every vector follows the rule;
//! - element map: counted from the blocks written — every vector's equals its block histogram;
//! - meta version: [`CHUNK32_VERSION`](super::meta::CHUNK32_VERSION) = 5 — every header-v3
//!   vector's; below 4 reads as chunk-16 (tag positions moved by 8);
//! - logic: version 0, controller version −1026, no controllers — every header-v3 vector's;
//! - blocks: segment version 3, active bit clear, orientation 0, hit points [`ids::full_hp`]
//!   (below).
//!
//! An earlier export wrote classification 0 (refused by SMBEdit for every non-ship type),
//! planet as type 4 (a managed asteroid), a bounding box one block tighter on each side, meta
//! version 0 and hit points 127.
//!
//! Hit points: in every vector each block type holds one hit-point value, its full hit points as
//! the game that saved it stored them: hull 598–602 75, door 122 100, light 55 10, power 2 and
//! thruster 8 25, logic 405/407/410/666/668 15, rails 100, the core 250 or 255 in the older vectors
//! and 100 from 0.199.472 on (a type's full value follows the game's block config of the time);
//! none holds 127. No vector holds a terrain block, and SMBEdit's built-in table gives every block
//! that is neither hull nor rail 1, a placeholder: the vectors contradict it for light, power and
//! logic, and SMBEdit warns that without the game's block config its conversions leave blocks with
//! low hit points. So the terrain types' full hit points cannot be determined from the evidence;
//! [`ids::full_hp`] writes 100 for each, the value StarMade's `ElementInformation` starts
//! `maxHitPointsFull` at for a type whose config sets none, and one real vectors hold. Later game
//! versions store a block's hit points as a fraction of 127 for every type (`getMaxHitPointsByte()`
//! is 127) and repair migrated blocks to 127; that is not the convention the vectors show, and a
//! reader of that era may see 100 as a damaged block.

use std::collections::BTreeMap;

use super::header::{self, Header};
use super::logic::Logic;
use super::meta::Meta;
use super::region::{Block, Segment};
use super::Blueprint;
use crate::blueprint::{format::decode_water_level, Biome};

/// Terrain block ids, and the hit points written for them.
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

    /// The game's full hit points for a block type without configured ones.
    pub const DEFAULT_HP: u16 = 100;

    /// Full hit points per terrain id. Neither the vectors nor SMBEdit hold a terrain block's
    /// value, so each is [`DEFAULT_HP`] (see the module docs); a value learnt from the game's
    /// block config goes here.
    pub const FULL_HP: [(u16, u16); 9] = [
        (ICE, DEFAULT_HP),
        (ROCK, DEFAULT_HP),
        (SAND, DEFAULT_HP),
        (GRASS, DEFAULT_HP),
        (GRASSY_ROCK, DEFAULT_HP),
        (WATER, DEFAULT_HP),
        (SOIL, DEFAULT_HP),
        (SNOWY_ROCK, DEFAULT_HP),
        (FROZEN_ROCK, DEFAULT_HP),
    ];

    /// The full hit points written for block `id`: its [`FULL_HP`] entry, else [`DEFAULT_HP`].
    pub fn full_hp(id: u16) -> u16 {
        FULL_HP
            .iter()
            .find(|(i, _)| *i == id)
            .map_or(DEFAULT_HP, |(_, hp)| *hp)
    }
}

/// The StarMade entity an island becomes (the game's numbering; see [`header`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    /// An asteroid: entity type 3, classification 18.
    Asteroid,
    /// A managed asteroid: entity type 4, classification 19.
    ManagedAsteroid,
    /// A planet plate: entity type 5, classification 20.
    Planet,
    /// A space station: entity type 2, classification 9.
    Station,
}

impl Entity {
    /// Every kind, in `--entity` order.
    pub const ALL: [Entity; 4] = [
        Entity::Asteroid,
        Entity::ManagedAsteroid,
        Entity::Planet,
        Entity::Station,
    ];

    /// The header's entity type.
    pub fn code(self) -> i32 {
        match self {
            Entity::Station => header::entity::STATION,
            Entity::Asteroid => header::entity::ASTEROID,
            Entity::ManagedAsteroid => header::entity::MANAGED_ASTEROID,
            Entity::Planet => header::entity::PLANET,
        }
    }

    /// The header's classification: the type's default.
    pub fn classification(self) -> i32 {
        match self {
            Entity::Station => 9,
            Entity::Asteroid => 18,
            Entity::ManagedAsteroid => 19,
            Entity::Planet => 20,
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
    /// Map pixels per block, across.
    pub px_per_block: f32,
    /// Column heights in blocks (top block's y, −1 = empty), `[bx][bz]`.
    pub columns: Vec<Vec<i32>>,
}

impl Voxels {
    /// The map pixel block column (`bx`, `bz`) samples: the pixel under its centre.
    pub fn sampled_pixel(&self, bx: usize, bz: usize) -> (usize, usize) {
        sampled_pixel(self.pixel_box, self.px_per_block, bx, bz)
    }
}

fn sampled_pixel(
    [x0, y0, x1, y1]: [usize; 4],
    px_per_block: f32,
    bx: usize,
    bz: usize,
) -> (usize, usize) {
    (
        (x0 + ((bx as f32 + 0.5) * px_per_block) as usize).min(x1 - 1),
        (y0 + ((bz as f32 + 0.5) * px_per_block) as usize).min(y1 - 1),
    )
}

/// The narrowest export, in blocks.
pub const MIN_WIDTH: usize = 8;
/// The widest export, in blocks.
pub const MAX_WIDTH: usize = 4096;

/// Why a world cannot be exported as a StarMade blueprint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StarmadeExportError {
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
) -> Result<Voxels, StarmadeExportError> {
    if !(MIN_WIDTH..=MAX_WIDTH).contains(&width) {
        return Err(StarmadeExportError::WidthOutOfRange { width });
    }
    let grid = BlockGrid::new(bp, land_box(bp)?, width);
    let (columns, blocks) = grid.blocks(bp);
    let (segments, elements) = segments(&blocks)?;
    let (min, max) = header::bounding_box(blocks.keys().map(|p| p.map(|c| c - CORE)));
    let header = Header {
        version: 3,
        game_version: None,
        entity_type: entity.code(),
        classification: Some(entity.classification()),
        min,
        max,
        elements: elements.iter().map(|(id, n)| (*id as i16, *n)).collect(),
        statistics: None,
    };
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
        metres_per_block: grid.metres_per_block,
        pixel_box: grid.pixel_box,
        px_per_block: grid.px_per_block,
        columns,
    })
}

/// The block the island's centre column lands on, x and z (the core of a 32³ segment's
/// neighbourhood).
const CORE: i32 = 16;

/// The land's bounding box `[x0, y0, x1, y1)` in pixels, with a one-pixel margin.
fn land_box(bp: &crate::blueprint::Blueprint) -> Result<[usize; 4], StarmadeExportError> {
    let n = bp.side();
    let (mut x0, mut y0, mut x1, mut y1) = (n, n, 0, 0);
    for ((x, y), _) in bp.biomes.indexed_iter() {
        if !bp.is_water(x, y) {
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x + 1);
            y1 = y1.max(y + 1);
        }
    }
    if x1 <= x0 {
        return Err(StarmadeExportError::NoLand);
    }
    Ok([
        x0.saturating_sub(1),
        y0.saturating_sub(1),
        (x1 + 1).min(n),
        (y1 + 1).min(n),
    ])
}

/// The block columns over the land's box: `bw × bd` of them, `px_per_block` pixels a side,
/// their heights counted in blocks from the lowest finite height.
struct BlockGrid {
    pixel_box: [usize; 4],
    px_per_block: f32,
    metres_per_block: f32,
    bw: usize,
    bd: usize,
    floor: f32,
    max_top: f32,
}

impl BlockGrid {
    fn new(bp: &crate::blueprint::Blueprint, pixel_box: [usize; 4], width: usize) -> BlockGrid {
        let [x0, y0, x1, y1] = pixel_box;
        let span = (x1 - x0).max(y1 - y0);
        let px_per_block = span as f32 / width as f32;
        let metres_per_block = px_per_block * crate::units::metres_per_px(bp.side());
        let (bw, bd) = (
            ((x1 - x0) as f32 / px_per_block).ceil() as usize,
            ((y1 - y0) as f32 / px_per_block).ceil() as usize,
        );
        let mut grid = BlockGrid {
            pixel_box,
            px_per_block,
            metres_per_block,
            bw,
            bd,
            floor: 0.0,
            max_top: width as f32,
        };
        // The lowest finite height is the floor; no column stands taller than the island is
        // wide, whatever the heights say (a hostile .dat may hold NaN, infinities or 1e30).
        let mut floor = f32::INFINITY;
        for bx in 0..bw {
            for bz in 0..bd {
                let h = grid.sample(bp, bx, bz).0;
                if h.is_finite() {
                    floor = floor.min(h);
                }
            }
        }
        grid.floor = if floor.is_finite() { floor } else { 0.0 };
        grid
    }

    /// Block column (bx, bz)'s centre pixel: its height, biome and water surface (raw).
    fn sample(
        &self,
        bp: &crate::blueprint::Blueprint,
        bx: usize,
        bz: usize,
    ) -> (f32, crate::blueprint::Biome, Option<f32>) {
        let (x, y) = sampled_pixel(self.pixel_box, self.px_per_block, bx, bz);
        let surface = bp.is_water(x, y).then(|| {
            bp.water_surface_at(x, y)
                .and_then(decode_water_level)
                .unwrap_or(0.15)
        });
        (bp.heights[[x, y]], bp.biomes[[x, y]], surface)
    }

    /// A raw height as blocks above the floor, in 0 ..= the island's width.
    fn to_blocks(&self, h: f32) -> i32 {
        let b = ((h - self.floor) * crate::units::METRES_PER_RAW / self.metres_per_block).floor();
        if b.is_nan() {
            0
        } else {
            b.clamp(0.0, self.max_top) as i32
        }
    }

    /// Every column's top block (`columns[bx][bz]`) and every block: the biome's cap, the three
    /// blocks under it and the deep fill to the floor, water up to its surface.
    fn blocks(&self, bp: &crate::blueprint::Blueprint) -> (Vec<Vec<i32>>, BTreeMap<[i32; 3], u16>) {
        let (bw, bd) = (self.bw, self.bd);
        let mut blocks: BTreeMap<[i32; 3], u16> = BTreeMap::new();
        let mut columns = vec![vec![-1; bd]; bw];
        for (bx, column) in columns.iter_mut().enumerate() {
            for (bz, cell) in column.iter_mut().enumerate() {
                let (h, biome, surface) = self.sample(bp, bx, bz);
                let bed = self.to_blocks(h).max(0);
                let level = surface.map(|s| self.to_blocks(s));
                // Water shallower than a block: the bed one block under the surface's block.
                let top = match level {
                    Some(l) if l == bed => (bed - 1).max(0),
                    _ => bed,
                };
                *cell = top;
                let (cap, under, deep) = palette(biome);
                let (x, z) = (
                    bx as i32 - bw as i32 / 2 + CORE,
                    bz as i32 - bd as i32 / 2 + CORE,
                );
                for y in 0..=top {
                    let id = match top - y {
                        0 => cap,
                        1..=3 => under,
                        _ => deep,
                    };
                    blocks.insert([x, y, z], id);
                }
                if let Some(level) = level {
                    // At least one block, even where the bed is the floor itself.
                    let level = if level == bed { top + 1 } else { level };
                    for y in top + 1..=level {
                        blocks.insert([x, y, z], ids::WATER);
                    }
                }
            }
        }
        (columns, blocks)
    }
}

/// The blocks in 32³ segments (segment version 3, each block at its type's full hit points),
/// and each block type's count.
fn segments(
    blocks: &BTreeMap<[i32; 3], u16>,
) -> Result<(Vec<Segment>, BTreeMap<u16, i32>), StarmadeExportError> {
    let mut segments: BTreeMap<[i32; 3], Vec<u32>> = BTreeMap::new();
    let mut elements: BTreeMap<u16, i32> = BTreeMap::new();
    for (p, id) in blocks {
        let origin = p.map(|c| c.div_euclid(32) * 32);
        let local = p.map(|c| c.rem_euclid(32) as usize);
        let word = super::region::encode_v3(Block {
            id: *id,
            hp: ids::full_hp(*id),
            active: false,
            orientation: 0,
        })
        .ok_or(StarmadeExportError::TerrainIdTooWide { id: *id })?;
        segments
            .entry(origin)
            .or_insert_with(|| vec![0; 32 * 32 * 32])[local[0] + 32 * local[1] + 1024 * local[2]] =
            word;
        *elements.entry(*id).or_insert(0) += 1;
    }
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
    Ok((segments, elements))
}
