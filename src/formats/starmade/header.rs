//! `header.smbph`: entity type, classification, bounding box, element map, statistics.
//!
//! Layout (big-endian): i32 version; version ≥ 5: a modified-UTF string (the game version);
//! i32 entity type; version ≥ 3: i32 classification; 6 × f32 bounding box (min, max); i32 count
//! and count × (i16 block id, i32 blocks); version ≥ 1: a statistics flag byte, and when set
//! i16 statVersion then the doubles offensive, defensive, power, mobility, danger,
//! survivability, offensive (again), support, and mining when statVersion ≥ 1.

use serde::Serialize;

use super::bytes::{Reader, Rule, StarmadeError, Writer};

/// The header.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Header {
    /// File version.
    pub version: i32,
    /// The game version string (version ≥ 5).
    pub game_version: Option<String>,
    /// 0 ship, 1 shop, 2 space station, 3 asteroid, 4 planet.
    pub entity_type: i32,
    /// Classification (version ≥ 3).
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

/// Writes a header as version 3 (classification 0 when the source had none; no game version).
pub fn write(h: &Header) -> Vec<u8> {
    let mut w = Writer::default();
    w.i32(3);
    w.i32(h.entity_type);
    w.i32(h.classification.unwrap_or(0));
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
