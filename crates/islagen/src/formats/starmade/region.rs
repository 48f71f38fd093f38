//! Region files: `.smd3` (segments of 32³ blocks) and the older `.smd2` (16³).
//!
//! `.smd3`: a version byte and 3 zero bytes, then 4096 × {i16 sector (1-based, 0 = none),
//! u16 size}: 16388 header bytes. Sector k starts at 16388 + (k − 1) × 49152 and holds a
//! segment: byte segment version, i64 timestamp, 3 × i32 position (block coordinates, multiples
//! of 32), byte data flag (1 data, 2 empty), i32 compressed length, a zlib stream of 32768
//! three-byte block words (index x + 32y + 1024z); the index's size is 26 + the compressed
//! length. A segment's slot is x + 16y + 256z with each coordinate ((position / 32) + 8) mod 16;
//! a block's region per axis is floor((block + 256) / 512).
//!
//! `.smd2`: i32 version, 4096 × {i32 segment id (−1 = none), i32 size}, 4096 × i64 timestamps
//! (65540 header bytes), then 5120-byte segments: (version ≥ 1: byte segment version) i64
//! timestamp, 3 × i32 position, byte data flag, i32 compressed length, a zlib stream of 4096
//! block words (16³).
//!
//! Block words: segment version ≥ 3 little-endian, id bits 0–10, hit points 11–17, active 18,
//! orientation 19–23; version 2 big-endian, id 0–10, hit points 11–18, active 19, orientation
//! 20–23; versions 0–1 big-endian, id 0–11, active 12, hit points 13–20, orientation 21–23. The
//! active bit set means *inactive*.
//!
//! Every zlib stream is bounded: a segment inflates to exactly its 3 × blocks bytes or is
//! rejected (a bomb stops one byte past that).

use std::io::Read;

use serde::Serialize;

use super::bytes::{Reader, Rule, StarmadeError, Writer};
use super::WriteError;

/// `.smd3` header bytes.
pub const SMD3_HEADER: usize = 16388;
/// `.smd3` sector bytes.
pub const SMD3_SECTOR: usize = 49152;
/// `.smd2` header bytes.
pub const SMD2_HEADER: usize = 65540;
/// `.smd2` segment bytes.
pub const SMD2_SEGMENT: usize = 5120;

/// One block's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Block {
    /// Block id (0 = air).
    pub id: u16,
    /// Hit points.
    pub hp: u16,
    /// The active bit (set = inactive).
    pub active: bool,
    /// Orientation bits.
    pub orientation: u8,
}

/// Whether a segment version's words are stored little-endian.
pub fn little_endian(version: u8) -> bool {
    (3..=127).contains(&version)
}

/// Decodes a 24-bit block word of a segment version.
pub fn decode(word: u32, version: u8) -> Block {
    match version {
        0..=2 | 128..=255 => Block {
            id: (word & 0x7FF) as u16,
            hp: (word >> 11 & 0xFF) as u16,
            active: word >> 19 & 1 == 1,
            orientation: (word >> 20 & 0xF) as u8,
        },
        _ => Block {
            id: (word & 0x7FF) as u16,
            hp: (word >> 11 & 0x7F) as u16,
            active: word >> 18 & 1 == 1,
            orientation: (word >> 19 & 0x1F) as u8,
        },
    }
}

/// Encodes a block for segment version 3, or `None` if a field does not fit its bits.
pub fn encode_v3(b: Block) -> Option<u32> {
    (b.id <= 0x7FF && b.hp <= 0x7F && b.orientation <= 0x1F).then(|| {
        u32::from(b.id)
            | u32::from(b.hp) << 11
            | u32::from(b.active) << 18
            | u32::from(b.orientation) << 19
    })
}

/// Encodes a block for segment version 2, or `None` if a field does not fit its bits.
pub fn encode_v2(b: Block) -> Option<u32> {
    (b.id <= 0x7FF && b.hp <= 0xFF && b.orientation <= 0xF).then(|| {
        u32::from(b.id)
            | u32::from(b.hp) << 11
            | u32::from(b.active) << 19
            | u32::from(b.orientation) << 20
    })
}

/// One decoded segment.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// Segment version (selects the block word layout).
    pub version: u8,
    /// Timestamp, ms.
    pub timestamp: i64,
    /// Position of its first block, block coordinates.
    pub position: [i32; 3],
    /// Blocks per side: 32 (smd3) or 16 (smd2).
    pub side: usize,
    /// Raw 24-bit block words, index x + side·y + side²·z; empty for an empty segment.
    pub words: Vec<u32>,
}

impl Segment {
    /// Every non-air block with its absolute block coordinates.
    pub fn blocks(&self) -> impl Iterator<Item = ([i32; 3], Block)> + '_ {
        let s = self.side;
        self.words.iter().enumerate().filter_map(move |(i, &w)| {
            let b = decode(w, self.version);
            (b.id != 0).then(|| {
                let (x, y, z) = (i % s, i / s % s, i / (s * s));
                (
                    [
                        self.position[0] + x as i32,
                        self.position[1] + y as i32,
                        self.position[2] + z as i32,
                    ],
                    b,
                )
            })
        })
    }
}

/// Inflates exactly `expected` bytes of zlib data, or fails.
fn inflate(data: &[u8], expected: usize, r: &Reader, at: usize) -> Result<Vec<u8>, StarmadeError> {
    let mut out = Vec::with_capacity(expected);
    flate2::read::ZlibDecoder::new(data)
        .take(expected as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| r.error_at(at, Rule::NotZlib, format!("segment data: {e}")))?;
    if out.len() != expected {
        return Err(r.error_at(
            at,
            Rule::WrongInflatedLength,
            format!(
                "segment inflates to {} bytes, not {expected}",
                out.len().min(expected + 1)
            ),
        ));
    }
    Ok(out)
}

fn words(raw: &[u8], little_endian: bool) -> Vec<u32> {
    raw.chunks_exact(3)
        .map(|b| {
            if little_endian {
                u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16
            } else {
                u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2])
            }
        })
        .collect()
}

/// Reads a segment record at the reader's position: `with_version` when the record starts with
/// a segment version byte; `default_version` otherwise.
fn segment(
    r: &mut Reader,
    side: usize,
    with_version: bool,
    default_version: u8,
    max_compressed: usize,
) -> Result<Option<Segment>, StarmadeError> {
    let start = r.offset();
    let version = if with_version {
        r.u8("segment version")?
    } else {
        default_version
    };
    let timestamp = r.i64("segment timestamp")?;
    let position = [
        r.i32("segment x")?,
        r.i32("segment y")?,
        r.i32("segment z")?,
    ];
    if position.iter().any(|c| c % side as i32 != 0) {
        return Err(r.error_at(
            start,
            Rule::MisalignedSegment,
            format!("segment position {position:?} is not a multiple of {side}"),
        ));
    }
    let flag = r.u8("segment data flag")?;
    let length = r.i32("compressed length")?;
    let at = r.offset();
    let length = usize::try_from(length)
        .ok()
        .filter(|&l| l <= max_compressed)
        .ok_or_else(|| {
            r.error_at(
                at - 4,
                Rule::SegmentTooLong,
                format!("compressed length {length}"),
            )
        })?;
    let data = r.bytes(length, "compressed segment")?;
    if flag != 1 {
        return Ok(Some(Segment {
            version,
            timestamp,
            position,
            side,
            words: Vec::new(),
        }));
    }
    let raw = inflate(data, side * side * side * 3, r, at)?;
    Ok(Some(Segment {
        version,
        timestamp,
        position,
        side,
        words: words(&raw, little_endian(version)),
    }))
}

/// Reads an `.smd3` region file.
pub fn read_smd3(data: &[u8], file: &str) -> Result<Vec<Segment>, StarmadeError> {
    let mut r = Reader::new(data, file);
    let _version = r.u8("region version")?;
    r.bytes(3, "region header padding")?;
    let mut index = Vec::with_capacity(4096);
    for _ in 0..4096 {
        index.push((r.i16("sector")?, r.u16("segment size")?));
    }
    let mut segments = Vec::new();
    for (slot, &(sector, size)) in index.iter().enumerate() {
        if sector <= 0 {
            continue;
        }
        let offset = SMD3_HEADER + (sector as usize - 1) * SMD3_SECTOR;
        let entry = 4 + slot * 4;
        if offset + 26 > data.len() {
            return Err(r.error_at(entry, Rule::PastTheEnd, format!("sector {sector}")));
        }
        let mut s = Reader::new(&data[offset..data.len().min(offset + SMD3_SECTOR)], file);
        let seg = segment(&mut s, 32, true, 3, SMD3_SECTOR - 26).map_err(|e| StarmadeError {
            offset: e.offset + offset,
            ..e
        })?;
        if let Some(seg) = seg {
            let used = s.offset();
            if usize::from(size) != used {
                return Err(r.error_at(
                    entry,
                    Rule::IndexSizeMismatch,
                    format!("index size {size}, segment record {used} bytes"),
                ));
            }
            segments.push(seg);
        }
    }
    Ok(segments)
}

/// Reads an `.smd2` region file.
pub fn read_smd2(data: &[u8], file: &str) -> Result<Vec<Segment>, StarmadeError> {
    let mut r = Reader::new(data, file);
    let version = r.i32("region version")?;
    let mut index = Vec::with_capacity(4096);
    for _ in 0..4096 {
        index.push((r.i32("segment id")?, r.i32("segment size")?));
    }
    r.bytes(4096 * 8, "segment timestamps")?;
    let mut segments = Vec::new();
    for (slot, &(id, _size)) in index.iter().enumerate() {
        if id < 0 {
            continue;
        }
        let offset = SMD2_HEADER + id as usize * SMD2_SEGMENT;
        if offset + 25 > data.len() {
            return Err(r.error_at(4 + slot * 8, Rule::PastTheEnd, format!("segment {id}")));
        }
        let mut s = Reader::new(&data[offset..data.len().min(offset + SMD2_SEGMENT)], file);
        let seg =
            segment(&mut s, 16, version >= 1, 0, SMD2_SEGMENT - 25).map_err(|e| StarmadeError {
                offset: e.offset + offset,
                ..e
            })?;
        segments.extend(seg);
    }
    Ok(segments)
}

/// The region (per axis) holding a 32-aligned segment position.
pub fn region_of(position: [i32; 3]) -> [i32; 3] {
    position.map(|c| (c + 256).div_euclid(512))
}

/// Writes segments (side 32, version 2 or 3) of one region as an `.smd3` file; fails if a
/// segment does not compress into its sector.
pub fn write_smd3(segments: &[Segment]) -> Result<Vec<u8>, WriteError> {
    let mut w = Writer::default();
    w.u8(3);
    w.0.extend_from_slice(&[0, 0, 0]);
    let mut index = vec![(0i16, 0u16); 4096];
    let mut sectors: Vec<Vec<u8>> = Vec::new();
    for s in segments {
        let slot_of = |c: i32| ((c.div_euclid(32) + 8).rem_euclid(16)) as usize;
        let slot =
            slot_of(s.position[0]) + 16 * slot_of(s.position[1]) + 256 * slot_of(s.position[2]);
        let mut raw = Vec::with_capacity(s.words.len() * 3);
        for &word in &s.words {
            if little_endian(s.version) {
                raw.extend_from_slice(&[word as u8, (word >> 8) as u8, (word >> 16) as u8]);
            } else {
                raw.extend_from_slice(&[(word >> 16) as u8, (word >> 8) as u8, word as u8]);
            }
        }
        let compressed = {
            use std::io::Write;
            let mut enc =
                flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            let _ = enc.write_all(&raw);
            enc.finish().unwrap_or_default()
        };
        let mut sec = Writer::default();
        sec.u8(s.version);
        sec.i64(s.timestamp);
        for c in s.position {
            sec.i32(c);
        }
        sec.u8(if s.words.is_empty() { 2 } else { 1 });
        let data: &[u8] = if s.words.is_empty() { &[] } else { &compressed };
        if data.len() > SMD3_SECTOR - 26 {
            return Err(WriteError::SectorOverflow {
                position: s.position,
                bytes: data.len(),
            });
        }
        sec.i32(data.len() as i32);
        sec.0.extend_from_slice(data);
        index[slot] = ((sectors.len() + 1) as i16, sec.0.len() as u16);
        sec.0.resize(SMD3_SECTOR, 0);
        sectors.push(sec.0);
    }
    for (sector, size) in index {
        w.i16(sector);
        w.u16(size);
    }
    for s in sectors {
        w.0.extend_from_slice(&s);
    }
    Ok(w.0)
}
