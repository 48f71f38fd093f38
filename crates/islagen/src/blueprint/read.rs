//! The blueprint reader, written for hostile input.
//!
//! Dispatches on the first byte (0x49 v2, 0x07 v1, anything else rejected), then enforces every
//! rule of the contract: magic and version; 256 ≤ MapSize ≤ 32768 before any allocation; PRMS
//! first; no duplicate tags; every declared length (section, count, string) checked against what
//! remains before it is read; each parsed section consumes exactly its declared length;
//! PRMS / HGTS / BIOM mandatory; biome and tier ordinals range-checked; unknown tags and unknown
//! TDTL / EROS / RIVR versions skipped. RIVR's points must be finite, on the map (0 ..= MapSize),
//! with non-negative width and discharge, its orders ≥ 1, and — once every section is read — its
//! reach ids must be WBTB bodies of type river. Every allocation is bounded by bytes known to be
//! in the file.
//! Errors are [`ReadError::Invalid`] naming the rule, the tag and the byte offset; the reader
//! never panics on any input.

use std::fs::File;
use std::path::Path;

use ndarray::Array2;
use rayon::prelude::*;
use serde::Serialize;

use super::error::{ReadError, Rule};
use super::format::*;
use super::model::*;
use crate::dials::{CraterGuard, DropletDials};

/// Which layout a file used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Format {
    /// The v2 tagged container.
    V2,
    /// The v1 positional legacy layout.
    V1,
}

/// What the reader did with one v2 section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SectionStatus {
    /// Parsed into the model.
    Parsed,
    /// Unknown tag: skipped.
    SkippedUnknownTag,
    /// Known tag with a body version this reader does not understand: skipped.
    SkippedUnknownVersion(u16),
}

/// One section as found in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SectionInfo {
    /// The tag.
    pub tag: Tag,
    /// Offset of the section frame.
    pub offset: u64,
    /// Declared payload length.
    pub length: u64,
    /// What the reader did with it.
    pub status: SectionStatus,
}

/// Something a loadable file lacks or carries that a user should know about.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum LoadWarning {
    /// The file is the deprecated v1 layout.
    V1Deprecated,
    /// An optional section is absent and loaded as empty.
    MissingSection(Tag),
    /// A section with an unknown tag was skipped.
    UnknownSection(Tag),
    /// A versioned section with an unknown body version was skipped.
    UnknownVersion {
        /// The section.
        tag: Tag,
        /// Its body version.
        version: u16,
    },
    /// Only some of the paired water sections (WBID, WBTB, WSRF) are present.
    PartialWater,
}

impl std::fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadWarning::V1Deprecated => {
                f.write_str("v1 legacy blueprint: deprecated; re-encode it with `islagen convert`")
            }
            LoadWarning::MissingSection(tag) => {
                write!(f, "section {tag} is missing; loaded as empty")
            }
            LoadWarning::UnknownSection(tag) => write!(f, "unknown section {tag} skipped"),
            LoadWarning::UnknownVersion { tag, version } => {
                write!(f, "section {tag} has unknown version {version}; skipped")
            }
            LoadWarning::PartialWater => {
                f.write_str("water sections WBID/WBTB/WSRF are only partly present")
            }
        }
    }
}

/// A blueprint with what the reader found on the way.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The model.
    pub blueprint: Blueprint,
    /// The layout of the file.
    pub format: Format,
    /// v2 sections in file order (empty for v1).
    pub sections: Vec<SectionInfo>,
    /// Non-fatal findings.
    pub warnings: Vec<LoadWarning>,
    /// Total bytes of the file.
    pub file_len: u64,
}

/// Bytes of v1 pixels decoded per chunk.
const V1_CHUNK: usize = 1 << 20;

/// Bytes fetched at a time for the small sequential reads (frames, records, lists).
const WINDOW: usize = 64 << 10;

/// A source of bytes read by position, so large grids can be fetched by several threads at once.
pub trait ReadAt: Sync {
    /// Total length in bytes.
    fn byte_len(&self) -> std::io::Result<u64>;
    /// Fills `buf` from `offset`; fails with `UnexpectedEof` if the source ends first.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()>;
}

impl ReadAt for [u8] {
    fn byte_len(&self) -> std::io::Result<u64> {
        Ok(<[u8]>::len(self) as u64)
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        match start
            .checked_add(buf.len())
            .and_then(|end| self.get(start..end))
        {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(std::io::ErrorKind::UnexpectedEof.into()),
        }
    }
}

#[cfg(unix)]
impl ReadAt for File {
    fn byte_len(&self) -> std::io::Result<u64> {
        Ok(self.metadata()?.len())
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
}

#[cfg(not(unix))]
impl ReadAt for std::sync::Mutex<File> {
    fn byte_len(&self) -> std::io::Result<u64> {
        Ok(self
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .metadata()?
            .len())
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = self.lock().map_err(|_| std::io::Error::other("poisoned"))?;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }
}

/// Reads the blueprint file at `path`.
pub fn read_file(path: &Path) -> Result<Loaded, ReadError> {
    let file = File::open(path)?;
    #[cfg(not(unix))]
    let file = std::sync::Mutex::new(file);
    read(&file)
}

/// Reads a blueprint from bytes in memory.
pub fn read_bytes(bytes: &[u8]) -> Result<Loaded, ReadError> {
    read(bytes)
}

/// Reads a v2 blueprint file at `path` but its per-pixel grids (HGTS, BIOM, WBID, WSRF): each is
/// checked for its exact length and skipped, and left empty (0 × 0) in the model; the returned
/// [`Loaded::sections`] say where their payloads lie, for a reader that fetches them by position
/// (`islagen serve`). Their values are not checked (a biome ordinal out of range is the later
/// reader's to handle). A v1 file, whose pixels are interleaved records, is read whole.
pub fn read_file_without_grids(path: &Path) -> Result<Loaded, ReadError> {
    let file = File::open(path)?;
    #[cfg(not(unix))]
    let file = std::sync::Mutex::new(file);
    read_without_grids(&file)
}

/// [`read_file_without_grids`] from an open source (so the caller can go on reading the grids
/// from the very file it parsed).
pub fn read_without_grids<S: ReadAt + ?Sized>(source: &S) -> Result<Loaded, ReadError> {
    read_with(source, false)
}

/// Reads a blueprint from any positional source.
pub fn read<S: ReadAt + ?Sized>(source: &S) -> Result<Loaded, ReadError> {
    read_with(source, true)
}

/// [`read`], with the v2 grids read (`grids`) or only checked and skipped.
fn read_with<S: ReadAt + ?Sized>(source: &S, grids: bool) -> Result<Loaded, ReadError> {
    let (src, first) = start(source, grids)?;
    match first {
        V2_FIRST_BYTE => read_v2(src),
        V1_FIRST_BYTE => read_v1(src),
        other => Err(unknown_format(&src, other)),
    }
}

/// A bounded reader over all of `source`, and the file's first byte (which says its layout).
fn start<S: ReadAt + ?Sized>(source: &S, grids: bool) -> Result<(Src<'_, S>, u8), ReadError> {
    let len = source.byte_len()?;
    let mut src = Src {
        source,
        window: Vec::new(),
        window_at: 0,
        pos: 0,
        limit: len,
        len,
        tag: None,
        grids,
    };
    if len == 0 {
        return Err(src.err(Rule::Truncated, 0, "the file is empty".into()));
    }
    let first = src.u8()?;
    Ok((src, first))
}

/// What a blueprint's first [`HEADER_PROBE_LEN`] bytes say ([`read_header`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The layout.
    pub format: Format,
    /// Pixels per side.
    pub map_size: u32,
    /// PRMS WorldSeed (v2 only; v1 does not record it).
    pub seed: Option<i32>,
}

/// One section of a v2 file as its frame declares it: the walk of [`section_frames`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameAt {
    /// The section's tag.
    pub tag: Tag,
    /// Where its frame starts.
    pub at: u64,
    /// The payload's declared length, which may run past the end of the file
    /// ([`FrameAt::end_within`]).
    pub length: u64,
}

impl FrameAt {
    /// Where the payload starts.
    pub fn payload(&self) -> u64 {
        self.at + SECTION_FRAME_LEN
    }

    /// Where the payload ends as declared, if that is within a file of `len` bytes.
    pub fn end_within(&self, len: u64) -> Option<u64> {
        self.payload()
            .checked_add(self.length)
            .filter(|&end| end <= len)
    }
}

/// Why [`section_frames`] stopped early.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// Fewer bytes than a frame are left at `at`.
    #[error("truncated section frame at {at}")]
    Truncated {
        /// Where the partial frame starts.
        at: u64,
    },
    /// The frame at `at` could not be read.
    #[error("reading the section frame at {at}: {source}")]
    Io {
        /// Where the frame starts.
        at: u64,
        /// What the read said.
        source: std::io::Error,
    },
}

/// The section frames of a v2 file of `len` bytes, in file order from just after the header,
/// each read with `read_frame(buf, offset)` and the walk going on by its declared length. The
/// walk ends at the end of the file, after a frame whose payload runs past it, or after an
/// error. It checks nothing else: the reader ([`read_file`]) holds each frame to its rules, the
/// digest and the memory estimate only need the layout.
pub fn section_frames<R>(
    len: u64,
    mut read_frame: R,
) -> impl Iterator<Item = Result<FrameAt, FrameError>>
where
    R: FnMut(&mut [u8; SECTION_FRAME_LEN as usize], u64) -> std::io::Result<()>,
{
    let mut at = Some(V2_HEADER_LEN);
    std::iter::from_fn(move || {
        let here = at.filter(|&a| a < len)?;
        if len - here < SECTION_FRAME_LEN {
            at = None;
            return Some(Err(FrameError::Truncated { at: here }));
        }
        let mut buf = [0u8; SECTION_FRAME_LEN as usize];
        if let Err(source) = read_frame(&mut buf, here) {
            at = None;
            return Some(Err(FrameError::Io { at: here, source }));
        }
        let [t0, t1, t2, t3, l @ ..] = buf;
        let frame = FrameAt {
            tag: Tag(u32::from_le_bytes([t0, t1, t2, t3])),
            at: here,
            length: u64::from_le_bytes(l),
        };
        at = frame.end_within(len);
        Some(Ok(frame))
    })
}

/// Bytes [`read_header`] needs at most: the v2 header, the PRMS frame, its seed and MapSize.
pub const HEADER_PROBE_LEN: usize = (V2_HEADER_LEN + SECTION_FRAME_LEN + 8) as usize;

/// Reads the header of a blueprint from its first bytes (`prefix`, at most
/// [`HEADER_PROBE_LEN`] are read) by the reader's own rules (format, magic, version, PRMS
/// first, MapSize in range), and checks that a file of `file_len` bytes is long enough for the
/// grids its MapSize declares: what a listing of many files needs without reading them.
pub fn read_header(prefix: &[u8], file_len: u64) -> Result<Header, ReadError> {
    let prefix = &prefix[..prefix.len().min(HEADER_PROBE_LEN)];
    let (mut src, first) = start(prefix, false)?;
    let (format, seed, side, per_px) = match first {
        V2_FIRST_BYTE => {
            v2_head(&mut src)?;
            let frame_at = src.pos;
            let tag = Tag(src.u32()?);
            if tag != PRMS {
                return Err(src.err(
                    Rule::ParamsNotFirst,
                    frame_at,
                    format!("first section is {tag}, not PRMS"),
                ));
            }
            src.u64()?;
            src.tag = Some(PRMS);
            let seed = src.i32()?;
            let per_px: u64 = [HGTS, BIOM]
                .map(|t| grid_cell_len(t).unwrap_or(0))
                .iter()
                .sum();
            (Format::V2, Some(seed), src.map_size()?, per_px)
        }
        V1_FIRST_BYTE => (Format::V1, None, v1_head(&mut src)?, V1_PIXEL_LEN),
        other => return Err(unknown_format(&src, other)),
    };
    let need = (side as u64).pow(2) * per_px;
    if file_len < need {
        return Err(ReadError::Invalid {
            rule: Rule::Truncated,
            tag: None,
            offset: file_len,
            detail: format!(
                "truncated: {file_len} bytes, but a MapSize {side} grid alone needs {need}"
            ),
        });
    }
    Ok(Header {
        format,
        map_size: side as u32,
        seed,
    })
}

/// The error for a first byte that is neither layout's.
fn unknown_format<S: ReadAt + ?Sized>(src: &Src<S>, first: u8) -> ReadError {
    src.err(
        Rule::UnknownFormat,
        0,
        format!("first byte 0x{first:02X}; expected 0x49 (v2 'ISLA') or 0x07 (v1 \"ISLA_V1\")"),
    )
}

/// A bounded reader: every read is checked against `limit` (the end of the current section, or
/// of the file) before it happens. Small reads go through a window; large ones bypass it.
struct Src<'a, S: ?Sized> {
    source: &'a S,
    window: Vec<u8>,
    window_at: u64,
    pos: u64,
    limit: u64,
    len: u64,
    tag: Option<Tag>,
    /// Whether v2 grids are read (else checked for length and skipped).
    grids: bool,
}

impl<S: ReadAt + ?Sized> Src<'_, S> {
    fn err(&self, rule: Rule, offset: u64, detail: String) -> ReadError {
        ReadError::Invalid {
            rule,
            tag: self.tag,
            offset,
            detail,
        }
    }

    fn remaining(&self) -> u64 {
        self.limit - self.pos
    }

    /// Fails unless `n` more bytes lie before the limit.
    fn need(&self, n: u64, what: &str) -> Result<(), ReadError> {
        self.need_at(n, what, self.pos)
    }

    /// As [`Self::need`], blaming the value at `offset` (the length field that declared `n`).
    fn need_at(&self, n: u64, what: &str, offset: u64) -> Result<(), ReadError> {
        if n > self.remaining() {
            let scope = if self.tag.is_some() {
                "section"
            } else {
                "file"
            };
            return Err(self.err(
                Rule::Truncated,
                offset,
                format!(
                    "{what} needs {n} bytes but only {} remain in the {scope}",
                    self.remaining()
                ),
            ));
        }
        Ok(())
    }

    fn bytes(&mut self, buf: &mut [u8], what: &str) -> Result<(), ReadError> {
        self.need(buf.len() as u64, what)?;
        let n = buf.len() as u64;
        if buf.len() >= WINDOW {
            parallel_read_at(self.source, buf, self.pos).map_err(|e| self.io_err(e, what))?;
        } else {
            let in_window = self.pos >= self.window_at
                && self.pos + n <= self.window_at + self.window.len() as u64;
            if !in_window {
                let take = (self.len - self.pos).min(WINDOW as u64) as usize;
                self.window.resize(take, 0);
                self.source
                    .read_exact_at(&mut self.window, self.pos)
                    .map_err(|e| self.io_err(e, what))?;
                self.window_at = self.pos;
            }
            let at = (self.pos - self.window_at) as usize;
            buf.copy_from_slice(&self.window[at..at + buf.len()]);
        }
        self.pos += n;
        Ok(())
    }

    fn io_err(&self, e: std::io::Error, what: &str) -> ReadError {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            self.err(
                Rule::Truncated,
                self.pos,
                format!("{what}: the file ended early"),
            )
        } else {
            ReadError::Io(e)
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ReadError> {
        let mut b = [0u8; N];
        self.bytes(&mut b, what)?;
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8, ReadError> {
        Ok(self.array::<1>("a byte")?[0])
    }
    fn u16(&mut self) -> Result<u16, ReadError> {
        Ok(u16::from_le_bytes(self.array("a u16")?))
    }
    fn u32(&mut self) -> Result<u32, ReadError> {
        Ok(u32::from_le_bytes(self.array("a u32")?))
    }
    fn i32(&mut self) -> Result<i32, ReadError> {
        Ok(i32::from_le_bytes(self.array("an i32")?))
    }
    fn u64(&mut self) -> Result<u64, ReadError> {
        Ok(u64::from_le_bytes(self.array("a u64")?))
    }
    fn f32(&mut self) -> Result<f32, ReadError> {
        Ok(f32::from_le_bytes(self.array("an f32")?))
    }

    fn skip(&mut self, n: u64) -> Result<(), ReadError> {
        self.need(n, "skipped payload")?;
        self.pos += n;
        Ok(())
    }

    /// A non-negative i32 count of items of `item_len` bytes each that must fit in what remains.
    fn count(&mut self, what: &str, item_len: u64) -> Result<usize, ReadError> {
        let at = self.pos;
        let n = self.i32()?;
        if n < 0 {
            return Err(self.err(Rule::NegativeCount, at, format!("{what} count is {n}")));
        }
        let bytes = n as u64 * item_len;
        if bytes > self.remaining() {
            return Err(self.err(
                Rule::Truncated,
                at,
                format!(
                    "{what} count {n} needs at least {bytes} bytes but only {} remain",
                    self.remaining()
                ),
            ));
        }
        Ok(n as usize)
    }

    /// A .NET length-prefixed UTF-8 string of at most `max` bytes.
    fn dotnet_string(&mut self, what: &str, max: u32) -> Result<String, ReadError> {
        let at = self.pos;
        let mut len: u32 = 0;
        let mut shift = 0;
        loop {
            let b = self.u8()?;
            if shift == 28 && b > 0x0F {
                return Err(self.err(
                    Rule::InvalidString,
                    at,
                    format!("{what}: length prefix overflows 32 bits"),
                ));
            }
            len |= u32::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        if len > max {
            return Err(self.err(
                Rule::InvalidString,
                at,
                format!("{what} is {len} bytes, over the {max}-byte limit"),
            ));
        }
        self.need_at(u64::from(len), what, at)?;
        let mut buf = vec![0u8; len as usize];
        self.bytes(&mut buf, what)?;
        String::from_utf8(buf)
            .map_err(|e| self.err(Rule::InvalidString, at, format!("{what} is not UTF-8: {e}")))
    }

    fn map_size(&mut self) -> Result<usize, ReadError> {
        let at = self.pos;
        let size = self.i32()?;
        if !(MIN_MAP_SIZE..=MAX_MAP_SIZE).contains(&size) {
            return Err(self.err(
                Rule::MapSizeOutOfRange,
                at,
                format!("MapSize {size} is outside {MIN_MAP_SIZE}..={MAX_MAP_SIZE}"),
            ));
        }
        Ok(size as usize)
    }

    fn tier(&self, ordinal: i64, at: u64) -> Result<TownTier, ReadError> {
        TownTier::from_ordinal(ordinal).ok_or_else(|| {
            self.err(
                Rule::TierOutOfRange,
                at,
                format!("town tier {ordinal} ≥ the {} known tiers", TownTier::COUNT),
            )
        })
    }

    fn biome_error(&self, ordinal: i64, at: u64) -> ReadError {
        self.err(
            Rule::BiomeOutOfRange,
            at,
            format!(
                "biome ordinal {ordinal} ≥ the {} known biomes",
                Biome::COUNT
            ),
        )
    }

    /// Reads side² little-endian plain numbers straight into a new grid.
    fn grid<T: bytemuck::Pod + Default + Send>(
        &mut self,
        side: usize,
        from_le: fn(T) -> T,
        what: &str,
    ) -> Result<Array2<T>, ReadError> {
        let n = side * side;
        self.need((n * std::mem::size_of::<T>()) as u64, what)?;
        let mut v = vec![T::default(); n];
        advise_huge_pages(bytemuck::cast_slice_mut(&mut v));
        self.bytes(bytemuck::cast_slice_mut(&mut v), what)?;
        if cfg!(target_endian = "big") {
            v.par_iter_mut().for_each(|x| *x = from_le(*x));
        }
        Ok(Array2::from_shape_vec((side, side), v).expect("length is side²"))
    }

    fn towns(&mut self, v1: bool) -> Result<Vec<Town>, ReadError> {
        let entry = if v1 {
            V1_TOWN_ENTRY_LEN
        } else {
            TOWN_ENTRY_LEN
        };
        let n = self.count("town", entry)?;
        let mut towns = Vec::with_capacity(n);
        for _ in 0..n {
            let x = self.f32()?;
            let y = self.f32()?;
            let at = self.pos;
            let (tier, is_highway_node) = if v1 {
                let ordinal = self.i32()?;
                (self.tier(i64::from(ordinal), at)?, false)
            } else {
                let ordinal = self.u8()?;
                let tier = self.tier(i64::from(ordinal), at)?;
                let flag_at = self.pos;
                let flag = match self.u8()? {
                    0 => false,
                    1 => true,
                    f => {
                        return Err(self.err(
                            Rule::InvalidValue,
                            flag_at,
                            format!("isHighwayNode is {f}; must be 0 or 1"),
                        ))
                    }
                };
                (tier, flag)
            };
            towns.push(Town {
                x,
                y,
                tier,
                is_highway_node,
            });
        }
        Ok(towns)
    }

    /// A RIVR point value: finite, and inside `range` (a coordinate) or else non-negative.
    fn river_value(
        &mut self,
        what: &str,
        range: Option<&std::ops::RangeInclusive<f32>>,
    ) -> Result<f32, ReadError> {
        let at = self.pos;
        let v = self.f32()?;
        let (rule, detail) = if !v.is_finite() {
            (Rule::NonFinite, format!("river point {what} is {v}"))
        } else {
            match range {
                Some(r) if !r.contains(&v) => (
                    Rule::CoordinateOutOfRange,
                    format!(
                        "river point {what} = {v} lies outside 0..={} (MapSize)",
                        r.end()
                    ),
                ),
                None if v < 0.0 => (Rule::NegativeValue, format!("river point {what} is {v}")),
                _ => return Ok(v),
            }
        };
        Err(self.err(rule, at, detail))
    }

    fn road_block(&mut self) -> Result<Vec<RoadPath>, ReadError> {
        let n = self.count("road path", 4)?;
        // a path costs 4 bytes on disk but a Vec header in memory: grow rather than reserve
        let mut paths = Vec::with_capacity(n.min(1 << 12));
        for _ in 0..n {
            let points = self.count("road point", ROAD_POINT_LEN)?;
            let mut path = Vec::with_capacity(points);
            for _ in 0..points {
                path.push([self.f32()?, self.f32()?]);
            }
            paths.push(path);
        }
        Ok(paths)
    }
}

/// The v2 header after its first byte: the rest of the magic and the format version.
fn v2_head<S: ReadAt + ?Sized>(src: &mut Src<S>) -> Result<(), ReadError> {
    let rest: [u8; 3] = src.array("the magic")?;
    if rest != V2_MAGIC[1..] {
        return Err(src.err(
            Rule::BadMagic,
            0,
            format!(
                "magic is {:?}; expected \"ISLA\"",
                String::from_utf8_lossy(&[&[b'I'][..], &rest].concat())
            ),
        ));
    }
    let version = src.u32()?;
    if version != V2_VERSION {
        return Err(src.err(
            Rule::UnsupportedVersion,
            4,
            format!("format version {version}; only 2 is supported"),
        ));
    }
    Ok(())
}

/// What a v2 file's sections gave, as they are read.
#[derive(Default)]
struct V2Parts {
    params: Option<Params>,
    heights: Option<Array2<f32>>,
    biomes: Option<Array2<Biome>>,
    towns: Option<Vec<Town>>,
    curve: Option<CurveRecord>,
    detail: Option<DetailDials>,
    erosion: Option<ErosionRecord>,
    water_ids: Option<Array2<u16>>,
    water_bodies: Option<Vec<WaterBody>>,
    water_surface: Option<WaterSurface>,
    rivers: Option<(RiverNetwork, Vec<u64>)>,
    shape: Vec<ShapeInput>,
    roads: [Option<Vec<RoadPath>>; 4],
}

/// One v2 section's frame: its tag, where the frame starts and the payload's declared length.
#[derive(Clone, Copy)]
struct Frame {
    tag: Tag,
    at: u64,
    length: u64,
}

impl Frame {
    /// The payload must be exactly `expected` bytes.
    fn exact<S: ReadAt + ?Sized>(&self, src: &Src<S>, expected: u64) -> Result<(), ReadError> {
        if self.length != expected {
            let (length, tag) = (self.length, self.tag);
            return Err(src.err(
                Rule::LengthMismatch,
                self.at + 4,
                format!("payload is {length} bytes; {tag} must be exactly {expected}"),
            ));
        }
        Ok(())
    }
}

fn read_v2<S: ReadAt + ?Sized>(mut src: Src<S>) -> Result<Loaded, ReadError> {
    v2_head(&mut src)?;
    let mut sections: Vec<SectionInfo> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut warnings = Vec::new();
    let mut parts = V2Parts::default();
    while src.pos < src.len {
        let frame = read_frame(&mut src, sections.is_empty(), &mut seen)?;
        let start = src.pos;
        src.limit = start + frame.length;
        let status = read_section(&mut src, &mut parts, frame)?;
        end_section(&mut src, frame, start, status, &mut warnings)?;
        src.limit = src.len;
        sections.push(SectionInfo {
            tag: frame.tag,
            offset: frame.at,
            length: frame.length,
            status,
        });
    }
    src.tag = None;
    assemble_v2(&src, parts, sections, warnings)
}

/// Reads a section frame: PRMS must come `first`, no tag twice (`seen`), and the declared
/// payload must fit in the file.
fn read_frame<S: ReadAt + ?Sized>(
    src: &mut Src<S>,
    first: bool,
    seen: &mut std::collections::BTreeSet<Tag>,
) -> Result<Frame, ReadError> {
    let at = src.pos;
    src.tag = None;
    src.need(SECTION_FRAME_LEN, "a section frame")?;
    let tag = Tag(src.u32()?);
    let length = src.u64()?;
    if first && tag != PRMS {
        return Err(src.err(
            Rule::ParamsNotFirst,
            at,
            format!("first section is {tag}, not PRMS"),
        ));
    }
    if !seen.insert(tag) {
        return Err(ReadError::Invalid {
            rule: Rule::DuplicateSection,
            tag: Some(tag),
            offset: at,
            detail: format!("{tag} appears a second time"),
        });
    }
    src.tag = Some(tag);
    src.need_at(length, "the declared payload", at + 4)?;
    Ok(Frame { tag, at, length })
}

/// Reads one section's payload into `parts` (a grid only checked and skipped when the grids
/// are not read); what became of it.
fn read_section<S: ReadAt + ?Sized>(
    src: &mut Src<S>,
    parts: &mut V2Parts,
    frame: Frame,
) -> Result<SectionStatus, ReadError> {
    let side = parts.params.as_ref().map_or(0, |p| p.map_size as usize);
    let grid = |tag: Tag| grid_len(grid_cell_len(tag).unwrap_or(0), side as u64);
    let tag = frame.tag;
    if grid_cell_len(tag).is_some() {
        frame.exact(src, grid(tag))?;
    }
    if !src.grids && grid_cell_len(tag).is_some() {
        src.skip(frame.length)?;
        match tag {
            HGTS => parts.heights = Some(Array2::zeros((0, 0))),
            BIOM => parts.biomes = Some(Array2::from_elem((0, 0), Biome::ALL[0])),
            WBID => parts.water_ids = Some(Array2::zeros((0, 0))),
            _ => parts.water_surface = Some(WaterSurface::Grid(Array2::zeros((0, 0)))),
        }
        return Ok(SectionStatus::Parsed);
    }
    match tag {
        PRMS => parts.params = Some(read_params(src)?),
        HGTS => {
            let le = |v: f32| f32::from_bits(u32::from_le(v.to_bits()));
            parts.heights = Some(src.grid::<f32>(side, le, "heights")?);
        }
        BIOM => parts.biomes = Some(read_biomes(src, side)?),
        TOWN => parts.towns = Some(src.towns(false)?),
        TCRV | TDTL | EROS | RIVR | SHPE => return read_versioned(src, parts, frame, side),
        WBID => parts.water_ids = Some(src.grid::<u16>(side, u16::from_le, "water ids")?),
        WBTB => parts.water_bodies = Some(read_water_bodies(src)?),
        WSRF => {
            let grid = src.grid::<u16>(side, u16::from_le, "water surface")?;
            parts.water_surface = Some(WaterSurface::Grid(grid));
        }
        _ => match RoadTier::from_tag(tag) {
            Some(tier) => parts.roads[tier as usize] = Some(src.road_block()?),
            None => return Ok(SectionStatus::SkippedUnknownTag),
        },
    }
    Ok(SectionStatus::Parsed)
}

/// A section that starts with its own version (TCRV, TDTL, EROS, RIVR): read when the version
/// is known, else skipped.
fn read_versioned<S: ReadAt + ?Sized>(
    src: &mut Src<S>,
    parts: &mut V2Parts,
    frame: Frame,
    side: usize,
) -> Result<SectionStatus, ReadError> {
    let version = src.u16()?;
    let unknown = Ok(SectionStatus::SkippedUnknownVersion(version));
    match frame.tag {
        TCRV if TCRV_VERSIONS.contains(&version) => {
            frame.exact(src, tcrv_len(version))?;
            parts.curve = Some(read_curve(src, version)?);
        }
        TDTL if version == TDTL_VERSION => {
            frame.exact(src, TDTL_V2_LEN)?;
            parts.detail = Some(DetailDials {
                relief_amp_m: src.f32()?,
                relief_freq_islands: src.f32()?,
                relief_seed_offset: src.i32()?,
                edge_amp_m: src.f32()?,
                edge_freq_islands: src.f32()?,
                edge_seed_offset: src.i32()?,
                edge_max_shift_m: src.f32()?,
            });
        }
        EROS => match eros_len(version) {
            Some(len) => {
                frame.exact(src, len)?;
                parts.erosion = Some(read_erosion(src, version)?);
            }
            None => return unknown,
        },
        RIVR if version == RIVR_VERSION => parts.rivers = Some(read_rivers(src, side)?),
        SHPE if version == SHPE_VERSION => parts.shape = read_shape(src)?,
        _ => return unknown,
    }
    Ok(SectionStatus::Parsed)
}

/// Ends a section: a parsed one must have consumed exactly its payload; a skipped one is
/// skipped to its end, with a warning.
fn end_section<S: ReadAt + ?Sized>(
    src: &mut Src<S>,
    frame: Frame,
    start: u64,
    status: SectionStatus,
    warnings: &mut Vec<LoadWarning>,
) -> Result<(), ReadError> {
    let tag = frame.tag;
    match status {
        SectionStatus::Parsed if src.pos != src.limit => Err(src.err(
            Rule::LengthMismatch,
            src.pos,
            format!(
                "{tag} declared {} bytes but its content ends after {}",
                frame.length,
                src.pos - start
            ),
        )),
        SectionStatus::Parsed => Ok(()),
        SectionStatus::SkippedUnknownTag => {
            warnings.push(LoadWarning::UnknownSection(tag));
            src.skip(src.remaining())
        }
        SectionStatus::SkippedUnknownVersion(version) => {
            warnings.push(LoadWarning::UnknownVersion { tag, version });
            src.skip(src.remaining())
        }
    }
}

/// The blueprint from its sections: the mandatory ones present, the rivers' reaches checked
/// against WBTB, an absent TOWN or road block empty (with a warning), a partial water set
/// noted.
fn assemble_v2<S: ReadAt + ?Sized>(
    src: &Src<S>,
    mut parts: V2Parts,
    sections: Vec<SectionInfo>,
    mut warnings: Vec<LoadWarning>,
) -> Result<Loaded, ReadError> {
    let missing = |tag: Tag| ReadError::Invalid {
        rule: Rule::MissingSection,
        tag: Some(tag),
        offset: src.len,
        detail: format!("mandatory section {tag} is absent"),
    };
    let params = parts.params.ok_or_else(|| missing(PRMS))?;
    let heights = parts.heights.ok_or_else(|| missing(HGTS))?;
    let biomes = parts.biomes.ok_or_else(|| missing(BIOM))?;
    if let Some((network, reach_at)) = &parts.rivers {
        check_reaches(network, reach_at, parts.water_bodies.as_deref(), &sections)?;
    }
    let towns = parts.towns.unwrap_or_else(|| {
        warnings.push(LoadWarning::MissingSection(TOWN));
        Vec::new()
    });
    let mut roads = Roads::default();
    for tier in RoadTier::ALL {
        *roads.tier_mut(*tier) = parts.roads[*tier as usize].take().unwrap_or_else(|| {
            warnings.push(LoadWarning::MissingSection(tier.tag()));
            Vec::new()
        });
    }
    let water_present = [
        parts.water_ids.is_some(),
        parts.water_bodies.is_some(),
        parts.water_surface.is_some(),
    ];
    if water_present.iter().any(|&p| p) && !water_present.iter().all(|&p| p) {
        warnings.push(LoadWarning::PartialWater);
    }
    Ok(Loaded {
        blueprint: Blueprint {
            params,
            heights,
            biomes,
            towns,
            curve: parts.curve,
            detail: parts.detail,
            erosion: parts.erosion,
            water_ids: parts.water_ids,
            water_bodies: parts.water_bodies,
            water_surface: parts.water_surface,
            rivers: parts.rivers.map(|(network, _)| network),
            shape: parts.shape,
            roads,
        },
        format: Format::V2,
        sections,
        warnings,
        file_len: src.len,
    })
}

fn read_params<S: ReadAt + ?Sized>(src: &mut Src<S>) -> Result<Params, ReadError> {
    let world_seed = src.i32()?;
    let map_size = src.map_size()? as i32;
    Ok(Params {
        world_seed,
        map_size,
        crater_radius: src.f32()?,
        density_multiplier: src.f32()?,
        impact_center_x: src.f32()?,
        impact_center_y: src.f32()?,
        generated_utc: src.dotnet_string("GeneratedUtc", MAX_PRMS_STRING_LEN)?,
        generator_git_hash: src.dotnet_string("GeneratorGitHash", MAX_PRMS_STRING_LEN)?,
    })
}

fn read_biomes<S: ReadAt + ?Sized>(
    src: &mut Src<S>,
    side: usize,
) -> Result<Array2<Biome>, ReadError> {
    let n = side * side;
    let at = src.pos;
    src.need(n as u64, "biomes")?;
    let mut raw = vec![0u8; n];
    advise_huge_pages(&mut raw);
    src.bytes(&mut raw, "biomes")?;
    let biomes = biomes_from_ordinals(raw)
        .map_err(|(i, ordinal)| src.biome_error(i64::from(ordinal), at + i as u64))?;
    Ok(Array2::from_shape_vec((side, side), biomes).expect("length is side²"))
}

/// Reinterprets biome ordinals as [`Biome`]s without a copy, after checking every byte; the
/// first byte that is not an ordinal is returned with its index.
fn biomes_from_ordinals(raw: Vec<u8>) -> Result<Vec<Biome>, (usize, u8)> {
    if let Some(i) = raw
        .par_iter()
        .position_first(|&b| usize::from(b) >= Biome::COUNT)
    {
        return Err((i, raw[i]));
    }
    let mut raw = std::mem::ManuallyDrop::new(raw);
    let (ptr, len, cap) = (raw.as_mut_ptr(), raw.len(), raw.capacity());
    // SAFETY: `Biome` is `repr(u8)` with the dense discriminants 0..COUNT (checked at compile
    // time in `format`), so it has the size, alignment and allocation layout of `u8`, and every
    // byte was checked above to be a valid discriminant. The original Vec is not dropped.
    Ok(unsafe { Vec::from_raw_parts(ptr.cast::<Biome>(), len, cap) })
}

fn read_curve<S: ReadAt + ?Sized>(
    src: &mut Src<S>,
    version: u16,
) -> Result<CurveRecord, ReadError> {
    let mut knots = [0f32; 4];
    for k in &mut knots {
        *k = src.f32()?;
    }
    let base = CurveBase {
        knots,
        spike_max: src.f32()?,
        sea: src.f32()?,
        orange_ceil: src.f32()?,
        red_ceil: src.f32()?,
        bench_lo: src.f32()?,
        bench_hi: src.f32()?,
        peak_cap: src.f32()?,
        tail_slope: src.f32()?,
    };
    let modulation = if version >= 4 {
        Some(CurveModulation {
            bench_amp: src.f32()?,
            plateau_amp: src.f32()?,
            shelf_span_min: src.f32()?,
            shelf_span_max: src.f32()?,
            elev_freq_islands: src.f32()?,
            strength_freq_islands: src.f32()?,
            bench_seed_offset: src.i32()?,
            plateau_seed_offset: src.i32()?,
            strength_seed_offset: src.i32()?,
        })
    } else {
        None
    };
    let preset = if version >= 5 {
        Some(CurvePreset {
            preset_id: src.u8()?,
            k5: src.f32()?,
            k6: src.f32()?,
        })
    } else {
        None
    };
    Ok(CurveRecord {
        version,
        base,
        modulation,
        preset,
    })
}

fn read_erosion<S: ReadAt + ?Sized>(
    src: &mut Src<S>,
    version: u16,
) -> Result<ErosionRecord, ReadError> {
    let droplet_count = src.i32()?;
    let lifetime = src.i32()?;
    let brush_radius = src.i32()?;
    let seed_offset = src.i32()?;
    let mut f = [0f32; 10];
    for v in &mut f {
        *v = src.f32()?;
    }
    let crater = if version == 2 {
        ErosionCrater::Exclusion { factor: src.f32()? }
    } else {
        let core = src.f32()?;
        let feather = src.f32()?;
        let at = src.pos;
        let raw = src.u8()?;
        let mode = CraterErosionMode::from_u8(raw).ok_or_else(|| {
            src.err(
                Rule::InvalidValue,
                at,
                format!("craterMode is {raw}; must be 0 (full) or 1 (feather)"),
            )
        })?;
        ErosionCrater::Modes(CraterGuard {
            core,
            feather,
            mode,
        })
    };
    Ok(ErosionRecord {
        droplet_count,
        lifetime,
        brush_radius,
        seed_offset,
        dials: DropletDials::from_array(f),
        crater,
    })
}

/// SHPE after its shapeVersion: the inputs, each SHA-256 64 lowercase hex digits.
fn read_shape<S: ReadAt + ?Sized>(src: &mut Src<S>) -> Result<Vec<ShapeInput>, ReadError> {
    // Three empty strings are three bytes: the least an entry takes.
    let n = src.count("shape input", 3)?;
    let mut inputs = Vec::with_capacity(n);
    for _ in 0..n {
        let key = src.dotnet_string("SHPE key", MAX_SHPE_STRING_LEN)?;
        let at = src.pos;
        let sha256 = src.dotnet_string("SHPE SHA-256", 64)?;
        if !is_sha256_hex(&sha256) {
            return Err(src.err(
                Rule::InvalidValue,
                at,
                format!("{key}'s SHA-256 {sha256:?} is not 64 lowercase hex digits"),
            ));
        }
        let file = src.dotnet_string("SHPE file name", MAX_SHPE_STRING_LEN)?;
        inputs.push(ShapeInput { key, sha256, file });
    }
    Ok(inputs)
}

fn read_water_bodies<S: ReadAt + ?Sized>(src: &mut Src<S>) -> Result<Vec<WaterBody>, ReadError> {
    let n = src.count("water body", WATER_BODY_ENTRY_LEN)?;
    let mut bodies = Vec::with_capacity(n);
    for _ in 0..n {
        let id = src.u16()?;
        let at = src.pos;
        let raw = src.u8()?;
        let kind = WaterBodyType::from_u8(raw).ok_or_else(|| {
            src.err(
                Rule::InvalidValue,
                at,
                format!("water body type {raw}; must be 0, 1 or 2"),
            )
        })?;
        let raw = src.u8()?;
        let salinity = Salinity::from_u8(raw).ok_or_else(|| {
            src.err(
                Rule::InvalidValue,
                at + 1,
                format!("salinity {raw}; must be 0 or 1"),
            )
        })?;
        bodies.push(WaterBody {
            id,
            kind,
            salinity,
            surface_level: src.f32()?,
            pixel_count: src.i32()?,
            centroid_x: src.f32()?,
            centroid_y: src.f32()?,
        });
    }
    Ok(bodies)
}

/// RIVR after its riversVersion. Returns the network and, per river, the file offset of its
/// first reach id, so that the reach ids can be checked against WBTB once every section is read.
fn read_rivers<S: ReadAt + ?Sized>(
    src: &mut Src<S>,
    side: usize,
) -> Result<(RiverNetwork, Vec<u64>), ReadError> {
    let catchment_km2 = src.f32()?;
    let width_scale = src.f32()?;
    let density = src.f32()?;
    let n = src.count("river", RIVR_RIVER_FIXED_LEN)?;
    // a river costs 7 bytes on disk but two Vec headers in memory: grow rather than reserve
    let mut rivers = Vec::with_capacity(n.min(1 << 12));
    let mut reach_at = Vec::with_capacity(n.min(1 << 12));
    let map = 0.0..=side as f32;
    for i in 0..n {
        let at = src.pos;
        let order = src.u8()?;
        if order == 0 {
            return Err(src.err(
                Rule::InvalidOrder,
                at,
                format!("river {i} has Strahler order 0; orders start at 1"),
            ));
        }
        let count_at = src.pos;
        let reach_count = src.u16()?;
        src.need_at(
            u64::from(reach_count) * RIVR_REACH_LEN,
            "the reach ids",
            count_at,
        )?;
        reach_at.push(src.pos);
        let mut reaches = Vec::with_capacity(usize::from(reach_count));
        for _ in 0..reach_count {
            reaches.push(src.u16()?);
        }
        let point_count = src.count("river point", RIVR_POINT_LEN)?;
        let mut points = Vec::with_capacity(point_count);
        for j in 0..point_count {
            let (x, y) = (
                src.river_value("x", Some(&map))?,
                src.river_value("y", Some(&map))?,
            );
            let width_at = src.pos;
            let width_m = src.river_value("widthM", None)?;
            if width_m > MAX_RIVER_WIDTH_M {
                return Err(src.err(
                    Rule::WidthOutOfRange,
                    width_at,
                    format!(
                        "river {i} (reaches {reaches:?}) point {j}: widthM = {width_m} is over the format's {MAX_RIVER_WIDTH_M} m"
                    ),
                ));
            }
            points.push(RiverPoint {
                x,
                y,
                width_m,
                discharge_m3s: src.river_value("dischargeM3s", None)?,
            });
        }
        rivers.push(River {
            order,
            reaches,
            points,
        });
    }
    let network = RiverNetwork {
        catchment_km2,
        width_scale,
        density,
        rivers,
    };
    Ok((network, reach_at))
}

/// RIVR's cross-section rule: WBTB is present and lists every reach id as a river body.
fn check_reaches(
    network: &RiverNetwork,
    reach_at: &[u64],
    bodies: Option<&[WaterBody]>,
    sections: &[SectionInfo],
) -> Result<(), ReadError> {
    let frame_at = sections
        .iter()
        .find(|s| s.tag == RIVR)
        .map_or(0, |s| s.offset);
    let Some(bodies) = bodies else {
        return Err(ReadError::Invalid {
            rule: Rule::MissingReferencedSection,
            tag: Some(RIVR),
            offset: frame_at,
            detail: "RIVR is present but WBTB, the table its reach ids refer to, is absent".into(),
        });
    };
    let is_river = river_body_ids(bodies.iter().map(|b| (b.id, b.kind)));
    for (i, (river, &at)) in network.rivers.iter().zip(reach_at).enumerate() {
        if let Some(j) = river
            .reaches
            .iter()
            .position(|&id| !is_river[usize::from(id)])
        {
            let id = river.reaches[j];
            return Err(ReadError::Invalid {
                rule: Rule::UnknownReach,
                tag: Some(RIVR),
                offset: at + j as u64 * RIVR_REACH_LEN,
                detail: format!("river {i} names reach {id}, which WBTB does not list as a river"),
            });
        }
    }
    Ok(())
}

/// The v1 header after its first byte: the header string and MapSize.
fn v1_head<S: ReadAt + ?Sized>(src: &mut Src<S>) -> Result<usize, ReadError> {
    let header: [u8; 7] = src.array("the v1 header")?;
    if header != V1_HEADER.as_bytes() {
        return Err(src.err(
            Rule::BadMagic,
            1,
            format!(
                "v1 header is {:?}; expected \"ISLA_V1\"",
                String::from_utf8_lossy(&header)
            ),
        ));
    }
    src.map_size()
}

fn read_v1<S: ReadAt + ?Sized>(mut src: Src<S>) -> Result<Loaded, ReadError> {
    let side = v1_head(&mut src)?;
    let n = side * side;
    src.need(n as u64 * V1_PIXEL_LEN, "the v1 pixel grid")?;
    let mut heights = Vec::with_capacity(n);
    let mut biomes = Vec::with_capacity(n);
    let mut buf = vec![0u8; (n * V1_PIXEL_LEN as usize).min(V1_CHUNK)];
    while heights.len() < n {
        let take = (n - heights.len()).min(buf.len() / V1_PIXEL_LEN as usize);
        let at = src.pos;
        let chunk = &mut buf[..take * V1_PIXEL_LEN as usize];
        src.bytes(chunk, "v1 pixels")?;
        for (i, px) in chunk.chunks_exact(V1_PIXEL_LEN as usize).enumerate() {
            heights.push(f32::from_le_bytes([px[0], px[1], px[2], px[3]]));
            let ordinal = i32::from_le_bytes([px[4], px[5], px[6], px[7]]);
            match Biome::from_ordinal(i64::from(ordinal)) {
                Some(b) => biomes.push(b),
                None => {
                    return Err(
                        src.biome_error(i64::from(ordinal), at + i as u64 * V1_PIXEL_LEN + 4)
                    )
                }
            }
        }
    }
    let towns = src.towns(true)?;
    let mut roads = Roads::default();
    for tier in RoadTier::ALL {
        *roads.tier_mut(*tier) = src.road_block()?;
    }
    Ok(Loaded {
        blueprint: Blueprint {
            params: Params::sentinel(side as i32),
            heights: Array2::from_shape_vec((side, side), heights).expect("length is side²"),
            biomes: Array2::from_shape_vec((side, side), biomes).expect("length is side²"),
            towns,
            curve: None,
            detail: None,
            erosion: None,
            water_ids: None,
            water_bodies: None,
            water_surface: None,
            rivers: None,
            shape: Vec::new(),
            roads,
        },
        format: Format::V1,
        sections: Vec::new(),
        warnings: vec![LoadWarning::V1Deprecated],
        file_len: src.len,
    })
}

/// Fills `buf` from `offset` with one positional read per thread, so the page faults of a fresh
/// grid and the copy out of the page cache are spread over the cores.
fn parallel_read_at<S: ReadAt + ?Sized>(
    source: &S,
    buf: &mut [u8],
    offset: u64,
) -> std::io::Result<()> {
    const HUGE_PAGE: usize = 2 << 20;
    let threads = rayon::current_num_threads().max(1);
    let piece = buf.len().div_ceil(threads).next_multiple_of(HUGE_PAGE);
    buf.par_chunks_mut(piece)
        .enumerate()
        .try_for_each(|(i, part)| source.read_exact_at(part, offset + (i * piece) as u64))
}

/// Asks the kernel to back a fresh, large, not yet touched buffer with transparent huge pages:
/// a 576 MiB read otherwise spends most of its time faulting in 4 KiB pages. Advice only; a
/// refusal changes nothing.
fn advise_huge_pages(buf: &mut [u8]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = buf.as_mut_ptr() as usize;
        let aligned = start.next_multiple_of(HUGE_PAGE);
        let end = start + buf.len();
        if end > aligned + HUGE_PAGE {
            // SAFETY: the range lies inside `buf`, which we own mutably; MADV_HUGEPAGE only
            // changes how the kernel backs the pages, never their contents.
            unsafe {
                libc::madvise(
                    aligned as *mut libc::c_void,
                    (end - aligned) & !(HUGE_PAGE - 1),
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

#[cfg(test)]
mod tests {
    /// Regression: the reinterpreting conversion checks every byte itself instead
    /// of trusting its caller.
    #[test]
    fn biome_bytes_are_checked_by_the_conversion_itself() {
        assert_eq!(
            super::biomes_from_ordinals(vec![0, 3, 10, 11, 2]),
            Err((3, 11))
        );
        assert_eq!(super::biomes_from_ordinals(vec![255]), Err((0, 255)));
        let ok = super::biomes_from_ordinals(vec![0, 10]).unwrap();
        assert_eq!(ok, vec![super::Biome::Ocean, super::Biome::Dirt]);
    }

    /// The walk finds every section the reader finds, in order and at the same offsets; a torn
    /// tail ends it with `Truncated`, and a payload that runs past the end is its last frame.
    #[test]
    fn section_frames_walk_what_the_reader_reads() {
        use super::*;
        let mut bytes = Vec::new();
        crate::blueprint::write_v2(&mut bytes, &crate::blueprint::sample::full(256, 4)).unwrap();
        let frames = |b: &[u8]| -> Vec<Result<FrameAt, FrameError>> {
            section_frames(b.len() as u64, |buf, at| b.read_exact_at(buf, at)).collect()
        };
        let read = read_bytes(&bytes).unwrap();
        let walked: Vec<FrameAt> = frames(&bytes).into_iter().map(Result::unwrap).collect();
        let expected: Vec<(Tag, u64, u64)> = read
            .sections
            .iter()
            .map(|s| (s.tag, s.offset, s.length))
            .collect();
        let got: Vec<(Tag, u64, u64)> = walked.iter().map(|f| (f.tag, f.at, f.length)).collect();
        assert_eq!(got, expected);
        assert!(walked
            .iter()
            .all(|f| f.end_within(bytes.len() as u64).is_some()));

        let mut torn = bytes.clone();
        torn.extend_from_slice(&[1, 2, 3]);
        let last = frames(&torn).pop().unwrap();
        assert!(matches!(last, Err(FrameError::Truncated { at }) if at == bytes.len() as u64));

        let cut = &bytes[..bytes.len() - 1];
        let walked = frames(cut);
        assert_eq!(walked.len(), expected.len());
        let last = walked.last().unwrap().as_ref().unwrap();
        assert_eq!(last.end_within(cut.len() as u64), None);
    }
}
