//! `header.smbph`: entity type, classification, bounding box, element map, statistics.
//!
//! Layout (big-endian): i32 version; version ≥ 5: a modified-UTF string (the game version);
//! i32 entity type; version ≥ 3: i32 classification; 6 × f32 bounding box (min, max); i32 count
//! and count × (i16 block id, i32 blocks); version ≥ 1: a statistics flag byte, and when set
//! i16 statVersion then the doubles offensive, defensive, power, mobility, danger,
//! survivability, offensive (again), support, and mining when statVersion ≥ 1.
//!
//! # Entity types and classifications
//!
//! Entity types, by the game's numbering (STARMADE_BLUEPRINT.md's table, SMBEdit's
//! `blueprintentity.py`): 0 ship, 1 shop, 2 space station, 3 asteroid, 4 managed asteroid,
//! 5 planet. The wiki's older template (revision 0.1867) ends `Asteroid = 3, Planet = 4`, from
//! before managed asteroids; headers are read and written with the newer numbering and never
//! renumbered (no vector holds an old non-ship header, so nothing could decide a remapping).
//!
//! The classification (version ≥ 3) is an ordinal over all types together: ships 0–8, stations
//! 9–17, asteroid 18, managed asteroid 19, planet 20, shop 21. A type's default is its lowest
//! ordinal ([`default_classification`]); SMBEdit assigns that default to headers older than
//! version 3 and refuses a classification outside its type's range ("Space Station has no class
//! id: 0"). The vectors confirm station 9 (B_Block_Station) and ship 0; 18, 19 and 20 rest on
//! the spec's table and SMBEdit's, which agree.
//!
//! # Bounding box
//!
//! Every vector, children included, chunk-16 ones moved by 8 onto the chunk-32 frame, has per
//! axis min = lowest block − 17 and max = highest block − 14, i.e. relative to the core one
//! block below the lowest block and two above the highest ([`bounding_box`]). Every vector has
//! a block at the core position, so the vectors cannot say whether the core position counts
//! when no block is there; [`bounding_box`] counts it, as SMBEdit's `get_min_max_vector`
//! does and as the spec's "the minimum coordinates will be negative and the maximum coordinates
//! will be positive" requires.

use serde::Serialize;

use super::bytes::{Reader, Rule, StarmadeError, Writer};

/// The header.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Header {
    /// File version.
    pub version: i32,
    /// The game version string (version ≥ 5).
    pub game_version: Option<String>,
    /// 0 ship, 1 shop, 2 space station, 3 asteroid, 4 managed asteroid, 5 planet.
    pub entity_type: i32,
    /// Classification (version ≥ 3): the game's ordinal over all types (see the module docs).
    pub classification: Option<i32>,
    /// Bounding box minimum.
    pub min: [f32; 3],
    /// Bounding box maximum.
    pub max: [f32; 3],
    /// Block id → count, in file order.
    pub elements: Vec<(i16, i32)>,
    /// statVersion and the statistics doubles, when present.
    pub statistics: Option<(i16, Vec<f64>)>,
}

/// Entity type numbers (the header's second int).
pub mod entity {
    /// Ship.
    pub const SHIP: i32 = 0;
    /// Shop.
    pub const SHOP: i32 = 1;
    /// Space station.
    pub const STATION: i32 = 2;
    /// Asteroid.
    pub const ASTEROID: i32 = 3;
    /// Managed asteroid.
    pub const MANAGED_ASTEROID: i32 = 4;
    /// Planet.
    pub const PLANET: i32 = 5;
}

/// The default classification of an entity type (its "General" ordinal), or `None` for a type
/// the game does not define.
pub fn default_classification(entity_type: i32) -> Option<i32> {
    Some(match entity_type {
        entity::SHIP => 0,
        entity::STATION => 9,
        entity::ASTEROID => 18,
        entity::MANAGED_ASTEROID => 19,
        entity::PLANET => 20,
        entity::SHOP => 21,
        _ => return None,
    })
}

/// The header's bounding box of blocks at `positions` (relative to the core): per axis one
/// below the lowest and two above the highest, the core position counted (see the module docs).
pub fn bounding_box(positions: impl IntoIterator<Item = [i32; 3]>) -> ([f32; 3], [f32; 3]) {
    let (mut lo, mut hi) = ([0i32; 3], [0i32; 3]);
    for p in positions {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (lo.map(|c| (c - 1) as f32), hi.map(|c| (c + 2) as f32))
}

/// Reads a header.
pub fn read(data: &[u8], file: &str) -> Result<Header, StarmadeError> {
    let mut r = Reader::new(data, file);
    let version = r.i32("header version")?;
    if !(0..=16).contains(&version) {
        return Err(r.error_at(0, Rule::UnknownHeaderVersion, version.to_string()));
    }
    let game_version = (version >= 5).then(|| r.utf("game version")).transpose()?;
    let entity_type = r.i32("entity type")?;
    let classification = (version >= 3)
        .then(|| r.i32("classification"))
        .transpose()?;
    let mut corner = || -> Result<[f32; 3], StarmadeError> {
        Ok([
            r.f32("bounding box")?,
            r.f32("bounding box")?,
            r.f32("bounding box")?,
        ])
    };
    let (min, max) = (corner()?, corner()?);
    let n = r.count("element count", 6)?;
    let mut elements = Vec::with_capacity(n);
    for _ in 0..n {
        elements.push((r.i16("element id")?, r.i32("element count")?));
    }
    let statistics = if version >= 1 && r.u8("statistics flag")? != 0 {
        let stat_version = r.i16("statistics version")?;
        let count = if stat_version >= 1 { 9 } else { 8 };
        let mut values = Vec::with_capacity(count);
        for _ in 0..count {
            values.push(r.f64("statistic")?);
        }
        Some((stat_version, values))
    } else {
        None
    };
    r.finish("header")?;
    Ok(Header {
        version,
        game_version,
        entity_type,
        classification,
        min,
        max,
        elements,
        statistics,
    })
}

/// Writes a header as version 3 (no game version). A header older than version 3 has no
/// classification; it gets its type's [`default_classification`], or 0 for a type the game does
/// not define.
pub fn write(h: &Header) -> Vec<u8> {
    let mut w = Writer::default();
    w.i32(3);
    w.i32(h.entity_type);
    w.i32(
        h.classification
            .or_else(|| default_classification(h.entity_type))
            .unwrap_or(0),
    );
    for v in h.min.iter().chain(&h.max) {
        w.f32(*v);
    }
    w.i32(h.elements.len() as i32);
    for (id, n) in &h.elements {
        w.i16(*id);
        w.i32(*n);
    }
    match &h.statistics {
        None => w.u8(0),
        Some((v, values)) => {
            w.u8(1);
            w.i16(*v);
            for x in values {
                w.f64(*x);
            }
        }
    }
    w.0
}
