//! Island codes: the game's island save string (ISLAND_CODE.md) — decode, edit, encode.
//!
//! text → base64 → raw DEFLATE → a stream of MLAPI `UInt64Packed` varints (signed values
//! zigzag-encoded through 64 bits): buildings, remains, the ground and nature grids (run-length
//! encoded, row-major, side × side) and the inner cliffs.
//!
//! Guarantees: [`encode`] writes the same field order and maximal runs, as the game does, so
//! decode → encode of an unedited island reproduces the packed-int stream byte for byte (the
//! compressed bytes may differ between DEFLATE implementations; the stream does not); lists the
//! model does not interpret (remains, inner cliffs) are carried untouched. Hostile input gets an
//! [`IslandCodeError`]: never a panic, and no allocation larger than the input can justify — the
//! inflated stream is capped at [`MAX_STREAM`], every count is checked against the bytes left,
//! and a grid's side is capped at [`MAX_SIDE`].

pub mod export;

use std::io::Read;

use base64::Engine;
use serde::{Deserialize, Serialize};

/// Largest inflated stream accepted (a DEFLATE bomb stops here).
pub const MAX_STREAM: usize = 64 << 20;
/// Largest grid side accepted (the game's islands are far smaller).
pub const MAX_SIDE: usize = 4096;

/// What was wrong with an island code, and where.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum IslandCodeError {
    /// Not base64.
    #[error("not base64: {0}")]
    Base64(String),
    /// Not a raw DEFLATE stream.
    #[error("not a raw DEFLATE stream: {0}")]
    Deflate(String),
    /// Inflates past [`MAX_STREAM`].
    #[error("inflates to more than {MAX_STREAM} bytes (a DEFLATE bomb?)")]
    TooLarge,
    /// The packed-int stream ended inside a value.
    #[error("stream truncated at byte {offset}: {what}")]
    Truncated {
        /// Byte offset in the inflated stream.
        offset: usize,
        /// What was being read.
        what: &'static str,
    },
    /// A value out of its range or domain.
    #[error("invalid {what} at byte {offset}: {detail}")]
    Invalid {
        /// Byte offset in the inflated stream.
        offset: usize,
        /// Which field.
        what: &'static str,
        /// Why.
        detail: String,
    },
    /// Bytes left after the last field.
    #[error("{0} bytes after the end of the island")]
    Trailing(usize),
}

/// One building (or a remain: a destroyed building, same layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Building {
    /// Building type id.
    #[serde(rename = "type")]
    pub type_id: i32,
    /// Grid x of the origin.
    pub x: i32,
    /// Grid y of the origin.
    pub y: i32,
    /// Rotation 0–3.
    pub orient: i32,
    /// 0 / 1: mirrored in x.
    pub mirror: i32,
    /// Current health.
    pub health: i32,
    /// The nullable disaster state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disaster: Option<u64>,
    /// Turn counter.
    pub turn: i32,
}

/// One inner cliff record, carried as is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InnerCliff {
    /// `c`.
    pub c: i32,
    /// `a`.
    pub a: i32,
    /// `b`.
    pub b: i32,
    /// Grid x.
    pub x: i32,
    /// Grid y.
    pub y: i32,
    /// Rotation.
    pub orient: i32,
    /// Mirror flag.
    pub mirror: i32,
}

macro_rules! tile_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $n:literal, $c:literal;)+ }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $v,)+ }
        impl $name {
            /// Every value.
            pub const ALL: &'static [$name] = &[$($name::$v,)+];
            /// The stream value.
            pub fn value(self) -> i32 { match self { $($name::$v => $n,)+ } }
            /// From the stream value.
            pub fn from_value(v: i32) -> Option<$name> { match v { $($n => Some($name::$v),)+ _ => None } }
            /// The one-character symbol used in the JSON grid rows.
            pub fn symbol(self) -> char { match self { $($name::$v => $c,)+ } }
            /// From the JSON symbol.
            pub fn from_symbol(c: char) -> Option<$name> { match c { $($c => Some($name::$v),)+ _ => None } }
        }
    };
}

tile_enum!(
    /// A ground tile.
    Ground {
        /// `WATER`.
        Water = 0, 'W';
        /// `WATER_ROCK` (reef, shallows).
        WaterRock = 1, 'r';
        /// `GRASS`.
        Grass = 2, 'G';
        /// `SAND`.
        Sand = 3, 'S';
        /// `INNER_CLIFF`.
        InnerCliff = 4, 'C';
        /// `METEORITE`.
        Meteorite = 5, 'M';
        /// `PIER`.
        Pier = 6, 'P';
    }
);

tile_enum!(
    /// A nature tile.
    Nature {
        /// None (-1).
        None = -1, '.';
        /// `TREE`.
        Tree = 0, 'T';
        /// `ROCK`.
        Rock = 1, 'R';
        /// `SCORCHED_EARTH`.
        ScorchedEarth = 2, 'X';
        /// `LAVA`.
        Lava = 3, 'L';
        /// `FLOWER`.
        Flower = 4, 'F';
        /// `FISH`.
        Fish = 5, 'f';
    }
);

/// A decoded island.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Island {
    /// Buildings.
    pub buildings: Vec<Building>,
    /// Remains (destroyed buildings), carried as they are.
    pub remains: Vec<Building>,
    /// Tiles per side.
    pub side: usize,
    /// Ground tiles, row-major (index = y × side + x).
    pub ground: Vec<Ground>,
    /// Nature tiles, row-major.
    pub nature: Vec<Nature>,
    /// Inner cliffs, carried as they are.
    pub inner_cliffs: Vec<InnerCliff>,
}

// ---------------------------------------------------------------------------------------------
// Packed integers

/// Appends `v` as an MLAPI `UInt64Packed`.
pub fn write_u64(out: &mut Vec<u8>, v: u64) {
    if v <= 0xF0 {
        out.push(v as u8);
    } else if v <= 2287 {
        let r = v - 0xF0;
        out.push(0xF1 + (r / 256) as u8);
        out.push((r % 256) as u8);
    } else if v <= 67823 {
        let r = v - 0x8F0;
        out.push(0xF9);
        out.push((r / 256) as u8);
        out.push((r % 256) as u8);
    } else {
        let n = (8 - v.leading_zeros() as usize / 8).max(3);
        out.push(0xF7 + n as u8);
        out.extend_from_slice(&v.to_le_bytes()[..n]);
    }
}

/// Zigzag through 64 bits: 0, −1, 1, −2 … → 0, 1, 2, 3 …
pub fn zigzag(v: i32) -> u64 {
    let v = i64::from(v);
    ((v << 1) ^ (v >> 63)) as u64
}

/// Appends a signed value.
pub fn write_i32(out: &mut Vec<u8>, v: i32) {
    write_u64(out, zigzag(v));
}

/// Reads packed ints from an inflated stream.
pub struct PackedReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> PackedReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> PackedReader<'a> {
        PackedReader { bytes, at: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// The offset of the next byte.
    pub fn offset(&self) -> usize {
        self.at
    }

    fn byte(&mut self, what: &'static str) -> Result<u8, IslandCodeError> {
        let b = *self.bytes.get(self.at).ok_or(IslandCodeError::Truncated {
            offset: self.at,
            what,
        })?;
        self.at += 1;
        Ok(b)
    }

    /// An unsigned packed int.
    pub fn u64(&mut self, what: &'static str) -> Result<u64, IslandCodeError> {
        let first = self.byte(what)?;
        Ok(match first {
            0..=0xF0 => u64::from(first),
            0xF1..=0xF8 => u64::from(first - 0xF1) * 256 + u64::from(self.byte(what)?) + 0xF0,
            0xF9 => {
                let (hi, lo) = (self.byte(what)?, self.byte(what)?);
                u64::from(hi) * 256 + u64::from(lo) + 0x8F0
            }
            _ => {
                let n = usize::from(first - 0xF7);
                let mut v = 0u64;
                for i in 0..n {
                    v |= u64::from(self.byte(what)?) << (8 * i);
                }
                v
            }
        })
    }

    /// A signed (zigzag) packed int that must fit an i32.
    pub fn i32(&mut self, what: &'static str) -> Result<i32, IslandCodeError> {
        let at = self.at;
        let x = self.u64(what)?;
        // (x >> 1) XOR −(x & 1): the zigzag inverse without arithmetic that could overflow
        // (u64::MAX decodes to i64::MIN, which the i32 check then refuses).
        let v = ((x >> 1) as i64) ^ -((x & 1) as i64);
        i32::try_from(v).map_err(|_| IslandCodeError::Invalid {
            offset: at,
            what,
            detail: format!("{x} is outside the zigzag range of an i32"),
        })
    }

    /// A count: an i32 ≥ 0 whose items (each at least `min_bytes` long) fit in what is left.
    fn count(&mut self, what: &'static str, min_bytes: usize) -> Result<usize, IslandCodeError> {
        let at = self.at;
        let n = self.i32(what)?;
        let fits = usize::try_from(n)
            .ok()
            .filter(|&n| n.saturating_mul(min_bytes) <= self.remaining());
        fits.ok_or_else(|| IslandCodeError::Invalid {
            offset: at,
            what,
            detail: format!(
                "count {n} cannot fit in the {} bytes left",
                self.remaining()
            ),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The island stream

/// Inflates an island code's text into its packed-int stream.
pub fn unpack(code: &str) -> Result<Vec<u8>, IslandCodeError> {
    let compressed = base64::engine::general_purpose::STANDARD
        .decode(code.trim())
        .map_err(|e| IslandCodeError::Base64(e.to_string()))?;
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(&compressed[..])
        .take(MAX_STREAM as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| IslandCodeError::Deflate(e.to_string()))?;
    if out.len() > MAX_STREAM {
        return Err(IslandCodeError::TooLarge);
    }
    Ok(out)
}

/// Compresses a packed-int stream into island-code text.
pub fn pack(stream: &[u8]) -> String {
    use std::io::Write;
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(stream);
    let compressed = enc.finish().unwrap_or_default();
    base64::engine::general_purpose::STANDARD.encode(compressed)
}

fn read_buildings(
    r: &mut PackedReader,
    what: &'static str,
) -> Result<Vec<Building>, IslandCodeError> {
    // A building is at least 8 packed ints of one byte.
    let n = r.count(what, 8)?;
    let mut list = Vec::with_capacity(n);
    for _ in 0..n {
        let type_id = r.i32("building type")?;
        let (x, y) = (r.i32("building x")?, r.i32("building y")?);
        let orient = r.i32("building orientation")?;
        let mirror = r.i32("building mirror flag")?;
        let health = r.i32("building health")?;
        let disaster = match r.u64("disaster flag")? {
            0 => None,
            _ => Some(r.u64("disaster")?),
        };
        let turn = r.i32("building turn")?;
        list.push(Building {
            type_id,
            x,
            y,
            orient,
            mirror,
            health,
            disaster,
            turn,
        });
    }
    Ok(list)
}

fn read_grid<T: Copy>(
    r: &mut PackedReader,
    what: &'static str,
    from: impl Fn(i32) -> Option<T>,
) -> Result<(usize, Vec<T>), IslandCodeError> {
    let at = r.offset();
    let total = r.i32(what)?;
    let total = usize::try_from(total).map_err(|_| IslandCodeError::Invalid {
        offset: at,
        what,
        detail: format!("negative totalLength {total}"),
    })?;
    let side = (total as f64).sqrt().round() as usize;
    if side * side != total {
        return Err(IslandCodeError::Invalid {
            offset: at,
            what,
            detail: format!("totalLength {total} is not a perfect square"),
        });
    }
    if side > MAX_SIDE {
        return Err(IslandCodeError::Invalid {
            offset: at,
            what,
            detail: format!("side {side} exceeds the limit of {MAX_SIDE}"),
        });
    }
    let mut values = Vec::with_capacity(total);
    while values.len() < total {
        let run_at = r.offset();
        let run = r.i32("run length")?;
        let value_at = r.offset();
        let v = r.i32("tile value")?;
        let run = usize::try_from(run)
            .ok()
            .filter(|&n| n <= total - values.len())
            .ok_or_else(|| IslandCodeError::Invalid {
                offset: run_at,
                what,
                detail: format!(
                    "run of {run} overruns totalLength {total} at tile {}",
                    values.len()
                ),
            })?;
        let tile = from(v).ok_or_else(|| IslandCodeError::Invalid {
            offset: value_at,
            what,
            detail: format!("unknown tile value {v}"),
        })?;
        values.extend(std::iter::repeat_n(tile, run));
    }
    Ok((side, values))
}

/// Decodes the packed-int stream of an island.
pub fn decode_stream(stream: &[u8]) -> Result<Island, IslandCodeError> {
    let mut r = PackedReader::new(stream);
    let buildings = read_buildings(&mut r, "building count")?;
    let remains = read_buildings(&mut r, "remains count")?;
    let (side, ground) = read_grid(&mut r, "ground tiles", Ground::from_value)?;
    let (nature_side, nature) = read_grid(&mut r, "nature tiles", Nature::from_value)?;
    if nature_side != side {
        return Err(IslandCodeError::Invalid {
            offset: r.offset(),
            what: "nature tiles",
            detail: format!("side {nature_side} differs from the ground's {side}"),
        });
    }
    let n = r.count("inner cliff count", 7)?;
    let mut inner_cliffs = Vec::with_capacity(n);
    for _ in 0..n {
        inner_cliffs.push(InnerCliff {
            c: r.i32("inner cliff c")?,
            a: r.i32("inner cliff a")?,
            b: r.i32("inner cliff b")?,
            x: r.i32("inner cliff x")?,
            y: r.i32("inner cliff y")?,
            orient: r.i32("inner cliff orientation")?,
            mirror: r.i32("inner cliff mirror flag")?,
        });
    }
    if r.remaining() > 0 {
        return Err(IslandCodeError::Trailing(r.remaining()));
    }
    Ok(Island {
        buildings,
        remains,
        side,
        ground,
        nature,
        inner_cliffs,
    })
}

/// An island's counts as `islagen island-code decode` prints them: its size, its placed things,
/// and how many tiles of each ground and nature.
pub struct Summary<'a>(pub &'a Island);

impl std::fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let island = self.0;
        writeln!(f, "island {} × {} tiles", island.side, island.side)?;
        writeln!(
            f,
            "  buildings {}, remains {}, inner cliffs {}",
            island.buildings.len(),
            island.remains.len(),
            island.inner_cliffs.len()
        )?;
        for g in Ground::ALL {
            let n = island.ground.iter().filter(|t| *t == g).count();
            writeln!(f, "  ground {g:?}: {n}")?;
        }
        for n in Nature::ALL {
            let count = island.nature.iter().filter(|t| *t == n).count();
            writeln!(f, "  nature {n:?}: {count}")?;
        }
        Ok(())
    }
}

/// Decodes island-code text.
pub fn decode(code: &str) -> Result<Island, IslandCodeError> {
    decode_stream(&unpack(code)?)
}

fn write_buildings(out: &mut Vec<u8>, list: &[Building]) {
    write_i32(out, list.len() as i32);
    for b in list {
        for v in [b.type_id, b.x, b.y, b.orient, b.mirror, b.health] {
            write_i32(out, v);
        }
        match b.disaster {
            None => write_u64(out, 0),
            Some(d) => {
                write_u64(out, 1);
                write_u64(out, d);
            }
        }
        write_i32(out, b.turn);
    }
}

fn write_grid(out: &mut Vec<u8>, values: impl ExactSizeIterator<Item = i32>) {
    write_i32(out, values.len() as i32);
    let mut run: Option<(i32, i32)> = None;
    for v in values {
        run = match run {
            Some((value, n)) if value == v => Some((value, n + 1)),
            Some((value, n)) => {
                write_i32(out, n);
                write_i32(out, value);
                Some((v, 1))
            }
            None => Some((v, 1)),
        };
    }
    if let Some((value, n)) = run {
        write_i32(out, n);
        write_i32(out, value);
    }
}

/// The packed-int stream of an island (maximal runs).
pub fn encode_stream(island: &Island) -> Vec<u8> {
    let mut out = Vec::new();
    write_buildings(&mut out, &island.buildings);
    write_buildings(&mut out, &island.remains);
    write_grid(&mut out, island.ground.iter().map(|g| g.value()));
    write_grid(&mut out, island.nature.iter().map(|n| n.value()));
    write_i32(&mut out, island.inner_cliffs.len() as i32);
    for c in &island.inner_cliffs {
        for v in [c.c, c.a, c.b, c.x, c.y, c.orient, c.mirror] {
            write_i32(&mut out, v);
        }
    }
    out
}

/// Encodes an island as island-code text.
pub fn encode(island: &Island) -> String {
    pack(&encode_stream(island))
}

// ---------------------------------------------------------------------------------------------
// JSON: the grids as rows of one-character symbols, easy to read and edit.

/// How [`IslandJson`]'s rows map to the island, written into every decoded JSON so a reader
/// is not surprised by a mirrored island.
pub const ORIENTATION: &str = "row 0 of ground/nature is tile y = 0 and rows run downward, \
as in islagen's pictures; characters run x = 0 left to right. The game's island editor draws \
y upward (row 0 at the bottom), so it shows this island mirrored top to bottom.";

/// The island as JSON: `ground` and `nature` are `side` strings of `side` symbols each (row y,
/// column x): ground W water, r water rock, G grass, S sand, C inner cliff, M meteorite,
/// P pier; nature `.` none, T tree, R rock, X scorched earth, L lava, F flower, f fish.
/// `orientation` restates [`ORIENTATION`]; it is ignored when the JSON is encoded.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IslandJson {
    /// How rows and columns map to the island ([`ORIENTATION`]).
    #[serde(default)]
    pub orientation: String,
    /// Buildings.
    pub buildings: Vec<Building>,
    /// Remains.
    pub remains: Vec<Building>,
    /// Tiles per side.
    pub side: usize,
    /// Ground rows.
    pub ground: Vec<String>,
    /// Nature rows.
    pub nature: Vec<String>,
    /// Inner cliffs.
    #[serde(rename = "innerCliffs")]
    pub inner_cliffs: Vec<InnerCliff>,
}

/// One of the two grids of [`IslandJson`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grid {
    /// `ground`.
    Ground,
    /// `nature`.
    Nature,
}

impl std::fmt::Display for Grid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Grid::Ground => "ground",
            Grid::Nature => "nature",
        })
    }
}

/// Why an [`IslandJson`] is not an island: the grid, row and column that are wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IslandJsonError {
    /// `side` exceeds [`MAX_SIDE`].
    #[error("side {side} exceeds the limit of {MAX_SIDE}")]
    SideTooLarge {
        /// The side given.
        side: usize,
    },
    /// A grid with a number of rows other than `side`.
    #[error("{grid}: {rows} rows, side is {side}")]
    RowCount {
        /// Which grid.
        grid: Grid,
        /// Its rows.
        rows: usize,
        /// The side.
        side: usize,
    },
    /// A row with a number of tiles other than `side`.
    #[error("{grid}[{y}]: {tiles} tiles, side is {side}")]
    RowLength {
        /// Which grid.
        grid: Grid,
        /// The row.
        y: usize,
        /// Its tiles.
        tiles: usize,
        /// The side.
        side: usize,
    },
    /// A character that is no symbol of the grid.
    #[error("{grid}[{y}][{x}]: unknown symbol {symbol:?}")]
    UnknownSymbol {
        /// Which grid.
        grid: Grid,
        /// The row.
        y: usize,
        /// The column.
        x: usize,
        /// The character.
        symbol: char,
    },
}

impl From<&Island> for IslandJson {
    fn from(i: &Island) -> IslandJson {
        let rows = |symbols: Vec<char>| -> Vec<String> {
            symbols
                .chunks(i.side.max(1))
                .map(|row| row.iter().collect())
                .collect()
        };
        IslandJson {
            orientation: ORIENTATION.to_string(),
            buildings: i.buildings.clone(),
            remains: i.remains.clone(),
            side: i.side,
            ground: rows(i.ground.iter().map(|g| g.symbol()).collect()),
            nature: rows(i.nature.iter().map(|n| n.symbol()).collect()),
            inner_cliffs: i.inner_cliffs.clone(),
        }
    }
}

impl IslandJson {
    /// The island, checking the grids' shape and symbols.
    pub fn to_island(&self) -> Result<Island, IslandJsonError> {
        let side = self.side;
        if side > MAX_SIDE {
            return Err(IslandJsonError::SideTooLarge { side });
        }
        fn grid<T>(
            rows: &[String],
            side: usize,
            which: Grid,
            from: impl Fn(char) -> Option<T>,
        ) -> Result<Vec<T>, IslandJsonError> {
            if rows.len() != side {
                return Err(IslandJsonError::RowCount {
                    grid: which,
                    rows: rows.len(),
                    side,
                });
            }
            let mut out = Vec::with_capacity(side * side);
            for (y, row) in rows.iter().enumerate() {
                let before = out.len();
                for (x, c) in row.chars().enumerate() {
                    out.push(from(c).ok_or(IslandJsonError::UnknownSymbol {
                        grid: which,
                        y,
                        x,
                        symbol: c,
                    })?);
                }
                if out.len() - before != side {
                    return Err(IslandJsonError::RowLength {
                        grid: which,
                        y,
                        tiles: out.len() - before,
                        side,
                    });
                }
            }
            Ok(out)
        }
        Ok(Island {
            buildings: self.buildings.clone(),
            remains: self.remains.clone(),
            side,
            ground: grid(&self.ground, side, Grid::Ground, Ground::from_symbol)?,
            nature: grid(&self.nature, side, Grid::Nature, Nature::from_symbol)?,
            inner_cliffs: self.inner_cliffs.clone(),
        })
    }
}

/// A picture of the grid: `scale` pixels per tile, ground colours, nature dots, buildings as
/// dark squares at their origin.
pub fn picture(island: &Island, scale: usize) -> crate::render::Image {
    let scale = scale.max(1);
    let side = island.side;
    let w = side * scale;
    let mut rgb = vec![0u8; w * w * 3];
    let ground = |g: Ground| match g {
        Ground::Water => [30, 80, 150],
        Ground::WaterRock => [70, 130, 170],
        Ground::Grass => [120, 175, 80],
        Ground::Sand => [225, 210, 150],
        Ground::InnerCliff => [120, 100, 80],
        Ground::Meteorite => [90, 60, 55],
        Ground::Pier => [150, 110, 70],
    };
    let nature = |n: Nature| match n {
        Nature::None => None,
        Nature::Tree => Some([30, 90, 40]),
        Nature::Rock => Some([130, 130, 130]),
        Nature::ScorchedEarth => Some([50, 40, 35]),
        Nature::Lava => Some([230, 80, 20]),
        Nature::Flower => Some([230, 120, 200]),
        Nature::Fish => Some([220, 240, 255]),
    };
    for ty in 0..side {
        for tx in 0..side {
            let i = ty * side + tx;
            let base = ground(island.ground[i]);
            let dot = nature(island.nature[i]);
            for py in 0..scale {
                for px in 0..scale {
                    let centre = scale < 3
                        || (px > scale / 4
                            && px < scale - scale / 4
                            && py > scale / 4
                            && py < scale - scale / 4);
                    let c = match dot {
                        Some(d) if centre => d,
                        _ => base,
                    };
                    let at = ((ty * scale + py) * w + tx * scale + px) * 3;
                    rgb[at..at + 3].copy_from_slice(&c);
                }
            }
        }
    }
    for b in &island.buildings {
        let (bx, by) = (b.x as usize, b.y as usize);
        if b.x < 0 || b.y < 0 || bx >= side || by >= side {
            continue;
        }
        for py in 0..scale {
            for px in 0..scale {
                let at = ((by * scale + py) * w + bx * scale + px) * 3;
                rgb[at..at + 3].copy_from_slice(&[40, 20, 20]);
            }
        }
    }
    crate::render::Image {
        width: w,
        height: w,
        rgb,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packed(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        write_u64(&mut out, v);
        out
    }

    #[test]
    fn the_verified_boundaries_both_ways() {
        let cases: [(u64, &[u8]); 6] = [
            (240, &[0xF0]),
            (241, &[0xF1, 0x01]),
            (2287, &[0xF8, 0xFF]),
            (2288, &[0xF9, 0x00, 0x00]),
            (67823, &[0xF9, 0xFF, 0xFF]),
            (67824, &[0xFA, 0xF0, 0x08, 0x01]),
        ];
        for (v, bytes) in cases {
            assert_eq!(packed(v), bytes, "encoding {v}");
            assert_eq!(
                PackedReader::new(bytes).u64("v").unwrap(),
                v,
                "decoding {v}"
            );
        }
        let mut out = Vec::new();
        write_i32(&mut out, i32::MIN);
        assert_eq!(out, [0xFB, 0xFF, 0xFF, 0xFF, 0xFF]);
        assert_eq!(PackedReader::new(&out).i32("v").unwrap(), i32::MIN);
        assert_eq!(
            packed(u64::MAX),
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        );
        assert_eq!(
            PackedReader::new(&packed(u64::MAX)).u64("v").unwrap(),
            u64::MAX
        );
    }

    #[test]
    fn zigzag_at_the_edges() {
        for (v, z) in [
            (0, 0u64),
            (-1, 1),
            (1, 2),
            (i32::MIN, 4_294_967_295),
            (i32::MAX, 4_294_967_294),
        ] {
            assert_eq!(zigzag(v), z, "zigzag({v})");
            let mut out = Vec::new();
            write_i32(&mut out, v);
            assert_eq!(PackedReader::new(&out).i32("v").unwrap(), v);
        }
    }
}
