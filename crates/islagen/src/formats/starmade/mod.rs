//! StarMade blueprints (STARMADE_BLUEPRINT.md, corrected by the facts verified on real files):
//! read a blueprint folder or `.sment` archive — `header.smbph`, `meta.smbpm`, `logic.smbpl`,
//! `DATA/*.smd2|smd3`, docked children in `ATTACHED_n/` — inspect and validate it, write it back
//! as header version 3 with `.smd3` regions, and export a generated island as one.
//!
//! Every reader meets the `.dat` reader's standard: a typed [`StarmadeError`] naming the file,
//! the offset and the [`Rule`] broken; no panic; no allocation sized by an unchecked number
//! (every count is checked against the bytes left, every archive entry against [`MAX_ENTRY`]);
//! every zlib stream bounded. Writing fails with a typed [`WriteError`].

pub mod bytes;
pub mod export;
pub mod header;
pub mod logic;
pub mod meta;
pub mod region;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use bytes::{Rule, StarmadeError};
use header::Header;
use logic::Logic;
use meta::Meta;
use region::{Block, Segment};

/// The largest file accepted inside a blueprint (region files are at most a few MiB).
pub const MAX_ENTRY: u64 = 256 << 20;
/// The most files a blueprint archive may hold.
pub const MAX_FILES: usize = 10_000;
/// Bytes all entries of one archive may inflate to together (a zip bomb of many small-looking
/// entries stops here, not at [`MAX_FILES`] × [`MAX_ENTRY`]).
pub const MAX_TOTAL: u64 = 1 << 30;

/// A blueprint: its files decoded, its docked children.
#[derive(Clone, Debug, PartialEq)]
pub struct Blueprint {
    /// The folder name.
    pub name: String,
    /// `header.smbph`.
    pub header: Header,
    /// `meta.smbpm`.
    pub meta: Meta,
    /// `logic.smbpl`.
    pub logic: Logic,
    /// Every segment of every region file.
    pub segments: Vec<Segment>,
    /// Segment side: 16 (`.smd2`) or 32 (`.smd3`).
    pub chunk: usize,
    /// Docked children, `ATTACHED_n`, by folder name.
    pub children: Vec<(String, Blueprint)>,
}

/// The files of a blueprint, by path relative to its folder (`/` separators).
pub type Files = BTreeMap<String, Vec<u8>>;

/// Why a blueprint cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A block whose fields fit neither segment version 2 nor 3.
    #[error("block {block:?} at {position:?} fits neither segment version 2 nor 3")]
    BlockDoesNotFit {
        /// The block.
        block: Block,
        /// Its position, block coordinates.
        position: [i32; 3],
    },
    /// A segment that does not compress into one `.smd3` sector.
    #[error("segment at {position:?} compresses to {bytes} bytes, more than a sector holds")]
    SectorOverflow {
        /// The segment's position.
        position: [i32; 3],
        /// Its compressed length.
        bytes: usize,
    },
    /// The file system failed.
    #[error("writing {}", path.display())]
    Io {
        /// The file or folder being written.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
}

/// What one archive may hold: entries, bytes per entry, bytes in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZipLimits {
    /// Entries at most.
    pub files: usize,
    /// Inflated bytes of one entry at most.
    pub entry: u64,
    /// Inflated bytes of all entries together at most.
    pub total: u64,
}

impl ZipLimits {
    /// The limits `read_path` applies: [`MAX_FILES`], [`MAX_ENTRY`], [`MAX_TOTAL`].
    pub const DEFAULT: ZipLimits = ZipLimits {
        files: MAX_FILES,
        entry: MAX_ENTRY,
        total: MAX_TOTAL,
    };
}

fn read_zip(path: &Path) -> Result<Files, StarmadeError> {
    read_zip_limited(path, ZipLimits::DEFAULT)
}

/// Reads every file of a `.sment` archive within `limits` (each checked before more is
/// inflated).
pub fn read_zip_limited(path: &Path, limits: ZipLimits) -> Result<Files, StarmadeError> {
    let err = |rule: Rule, detail: String| StarmadeError {
        file: path.display().to_string(),
        offset: 0,
        rule,
        detail,
    };
    let file = std::fs::File::open(path).map_err(|e| err(Rule::Io, e.to_string()))?;
    unzip(file, &path.display().to_string(), limits)
}

/// Reads every file of an archive from any seekable source, `origin` naming it in errors.
fn unzip<R: std::io::Read + std::io::Seek>(
    source: R,
    origin: &str,
    limits: ZipLimits,
) -> Result<Files, StarmadeError> {
    let err = |rule: Rule, detail: String| StarmadeError {
        file: origin.to_string(),
        offset: 0,
        rule,
        detail,
    };
    let mut zip = zip::ZipArchive::new(source).map_err(|e| err(Rule::NotAZip, e.to_string()))?;
    if zip.len() > limits.files {
        return Err(err(
            Rule::LimitExceeded,
            format!("{} entries exceed the limit of {}", zip.len(), limits.files),
        ));
    }
    let mut files = Files::new();
    let mut total = 0u64;
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .map_err(|e| err(Rule::NotAZip, format!("entry {i}: {e}")))?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().replace('\\', "/");
        let mut data = Vec::new();
        let budget = limits.entry.min(limits.total - total);
        (&mut entry)
            .take(budget + 1)
            .read_to_end(&mut data)
            .map_err(|e| err(Rule::NotAZip, format!("{name}: {e}")))?;
        if data.len() as u64 > limits.entry {
            return Err(err(
                Rule::LimitExceeded,
                format!("{name} inflates past {} bytes", limits.entry),
            ));
        }
        total += data.len() as u64;
        if total > limits.total {
            return Err(err(
                Rule::LimitExceeded,
                format!(
                    "the entries up to {name} inflate past {} bytes together",
                    limits.total
                ),
            ));
        }
        files.insert(name, data);
    }
    Ok(files)
}

fn read_folder(dir: &Path, prefix: &str, files: &mut Files) -> Result<(), StarmadeError> {
    let entries = std::fs::read_dir(dir).map_err(|e| StarmadeError {
        file: dir.display().to_string(),
        offset: 0,
        rule: Rule::Io,
        detail: e.to_string(),
    })?;
    for e in entries.flatten() {
        let name = format!("{prefix}{}", e.file_name().to_string_lossy());
        let path = e.path();
        if files.len() > MAX_FILES {
            return Err(StarmadeError {
                file: dir.display().to_string(),
                offset: 0,
                rule: Rule::LimitExceeded,
                detail: format!("more than {MAX_FILES} files"),
            });
        }
        if path.is_dir() {
            read_folder(&path, &format!("{name}/"), files)?;
        } else {
            let len = e.metadata().map(|m| m.len()).unwrap_or(0);
            if len > MAX_ENTRY {
                return Err(StarmadeError {
                    file: name,
                    offset: 0,
                    rule: Rule::LimitExceeded,
                    detail: format!("{len} bytes exceed the limit of {MAX_ENTRY}"),
                });
            }
            let data = std::fs::read(&path).map_err(|e| StarmadeError {
                file: name.clone(),
                offset: 0,
                rule: Rule::Io,
                detail: e.to_string(),
            })?;
            files.insert(name, data);
        }
    }
    Ok(())
}

/// Reads a blueprint from a folder or a `.sment` archive (a zip of one blueprint folder).
pub fn read_path(path: &Path) -> Result<Blueprint, StarmadeError> {
    let mut files = Files::new();
    if path.is_dir() {
        read_folder(path, "", &mut files)?;
        let name = path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        return from_files(&files, "", &name);
    }
    let files = read_zip(path)?;
    from_archive_files(&files, &path.display().to_string())
}

/// Reads a `.sment` archive held in memory; `origin` names it in errors.
pub fn read_archive_bytes(bytes: &[u8], origin: &str) -> Result<Blueprint, StarmadeError> {
    let files = unzip(std::io::Cursor::new(bytes), origin, ZipLimits::DEFAULT)?;
    from_archive_files(&files, origin)
}

/// The blueprint of an archive's files: the folder with a header at its top.
fn from_archive_files(files: &Files, origin: &str) -> Result<Blueprint, StarmadeError> {
    let root = files
        .keys()
        .filter_map(|k| k.strip_suffix("header.smbph"))
        .min_by_key(|p| p.len())
        .map(String::from)
        .ok_or_else(|| StarmadeError {
            file: origin.to_string(),
            offset: 0,
            rule: Rule::Missing,
            detail: "no header.smbph in the archive".into(),
        })?;
    let name = root
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("")
        .to_string();
    from_files(files, &root, &name)
}

/// Decodes the blueprint whose files sit under `prefix` in `files`.
pub fn from_files(files: &Files, prefix: &str, name: &str) -> Result<Blueprint, StarmadeError> {
    let get = |rel: &str| -> Result<&Vec<u8>, StarmadeError> {
        files
            .get(&format!("{prefix}{rel}"))
            .ok_or_else(|| StarmadeError {
                file: format!("{prefix}{rel}"),
                offset: 0,
                rule: Rule::Missing,
                detail: String::new(),
            })
    };
    let header = header::read(get("header.smbph")?, &format!("{prefix}header.smbph"))?;
    let meta = meta::read(get("meta.smbpm")?, &format!("{prefix}meta.smbpm"))?;
    let logic = logic::read(get("logic.smbpl")?, &format!("{prefix}logic.smbpl"))?;
    let mut segments = Vec::new();
    let mut chunk = 32;
    let data_prefix = format!("{prefix}DATA/");
    for (path, data) in files.range(data_prefix.clone()..) {
        let Some(rest) = path.strip_prefix(&data_prefix) else {
            break;
        };
        if rest.contains('/') {
            continue;
        }
        if rest.ends_with(".smd3") {
            segments.extend(region::read_smd3(data, path)?);
        } else if rest.ends_with(".smd2") {
            chunk = 16;
            segments.extend(region::read_smd2(data, path)?);
        }
    }
    let mut children = Vec::new();
    let mut child_names: Vec<String> = files
        .keys()
        .filter_map(|k| k.strip_prefix(prefix))
        .filter_map(|rest| rest.split_once('/'))
        .filter(|(dir, file)| dir.starts_with("ATTACHED_") && *file == "header.smbph")
        .map(|(dir, _)| dir.to_string())
        .collect();
    child_names.sort_by_key(|n| {
        n.trim_start_matches("ATTACHED_")
            .parse::<u32>()
            .unwrap_or(u32::MAX)
    });
    for child in child_names {
        let bp = from_files(files, &format!("{prefix}{child}/"), &child)?;
        children.push((child, bp));
    }
    Ok(Blueprint {
        name: name.to_string(),
        header,
        meta,
        logic,
        segments,
        chunk,
        children,
    })
}

impl Blueprint {
    /// Every block, with its position relative to the core (the core is at 8,8,8 in chunk-16
    /// files and 16,16,16 in chunk-32 files; here it is 0,0,0 for both).
    pub fn blocks(&self) -> Vec<([i32; 3], Block)> {
        let core = (self.chunk / 2) as i32;
        let mut out: Vec<([i32; 3], Block)> = self
            .segments
            .iter()
            .flat_map(|s| s.blocks())
            .map(|(p, b)| (p.map(|c| c - core), b))
            .collect();
        out.sort_by_key(|(p, _)| *p);
        out
    }

    /// Block id → count, from the region files.
    pub fn histogram(&self) -> BTreeMap<u16, u64> {
        let mut h = BTreeMap::new();
        for s in &self.segments {
            for (_, b) in s.blocks() {
                *h.entry(b.id).or_insert(0) += 1;
            }
        }
        h
    }

    /// Where the region files' block histogram and the header's element map disagree:
    /// (block id, header count, blocks found).
    pub fn element_map_mismatches(&self) -> Vec<(u16, i64, u64)> {
        let found = self.histogram();
        let mut header: BTreeMap<u16, i64> = BTreeMap::new();
        for (id, n) in &self.header.elements {
            *header.entry(*id as u16).or_insert(0) += i64::from(*n);
        }
        let ids: std::collections::BTreeSet<u16> =
            found.keys().chain(header.keys()).copied().collect();
        ids.into_iter()
            .filter_map(|id| {
                let (h, f) = (
                    header.get(&id).copied().unwrap_or(0),
                    found.get(&id).copied().unwrap_or(0),
                );
                (h != f as i64).then_some((id, h, f))
            })
            .collect()
    }

    /// A report for `islagen starmade inspect`.
    pub fn report(&self) -> Report {
        Report {
            name: self.name.clone(),
            header: self.header.clone(),
            meta: self.meta.summary(),
            controllers: self.logic.controllers.len(),
            logic_groups: self.logic.controllers.iter().map(|c| c.groups.len()).sum(),
            chunk: self.chunk,
            segments: self
                .segments
                .iter()
                .map(|s| SegmentReport {
                    version: s.version,
                    position: s.position,
                    blocks: s.blocks().count(),
                })
                .collect(),
            histogram: self.histogram(),
            mismatches: self.element_map_mismatches(),
            children: self.children.iter().map(|(_, c)| c.report()).collect(),
        }
    }
}

/// One segment in a report.
#[derive(Clone, Debug, Serialize)]
pub struct SegmentReport {
    /// Segment version.
    pub version: u8,
    /// Position, block coordinates.
    pub position: [i32; 3],
    /// Non-air blocks.
    pub blocks: usize,
}

/// What `starmade inspect` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Folder name.
    pub name: String,
    /// The header.
    pub header: Header,
    /// The meta file, summarised.
    pub meta: meta::MetaSummary,
    /// Controllers in the logic file.
    pub controllers: usize,
    /// Groups over all controllers.
    pub logic_groups: usize,
    /// Segment side.
    pub chunk: usize,
    /// Every segment.
    pub segments: Vec<SegmentReport>,
    /// Block id → count from the regions.
    pub histogram: BTreeMap<u16, u64>,
    /// (id, header count, found) where they differ.
    pub mismatches: Vec<(u16, i64, u64)>,
    /// Docked children.
    pub children: Vec<Report>,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write(f, 0)
    }
}

impl Report {
    fn write(&self, f: &mut std::fmt::Formatter<'_>, depth: usize) -> std::fmt::Result {
        let pad = "  ".repeat(depth);
        let h = &self.header;
        writeln!(
            f,
            "{pad}{} — header v{}{}",
            self.name,
            h.version,
            h.game_version
                .as_ref()
                .map_or(String::new(), |v| format!(" (game {v})"))
        )?;
        writeln!(
            f,
            "{pad}  entity type {}, classification {}, bounding box {:?}..{:?}",
            h.entity_type,
            h.classification.map_or("—".into(), |c| c.to_string()),
            h.min,
            h.max
        )?;
        let total: i64 = h.elements.iter().map(|(_, n)| i64::from(*n)).sum();
        writeln!(
            f,
            "{pad}  element map: {} types, {total} blocks; statistics {}",
            h.elements.len(),
            if h.statistics.is_some() {
                "present"
            } else {
                "absent"
            }
        )?;
        writeln!(f, "{pad}  meta: {}", self.meta)?;
        writeln!(
            f,
            "{pad}  logic: {} controllers, {} groups",
            self.controllers, self.logic_groups
        )?;
        let blocks: usize = self.segments.iter().map(|s| s.blocks).sum();
        let versions: std::collections::BTreeSet<u8> =
            self.segments.iter().map(|s| s.version).collect();
        writeln!(
            f,
            "{pad}  regions: {} segments of {}³ (segment versions {:?}), {blocks} blocks",
            self.segments.len(),
            self.chunk,
            versions
        )?;
        if self.mismatches.is_empty() {
            writeln!(f, "{pad}  block histogram = element map")?;
        } else {
            for (id, h, found) in &self.mismatches {
                writeln!(f, "{pad}  MISMATCH block {id}: header {h}, regions {found}")?;
            }
        }
        for c in &self.children {
            c.write(f, depth + 1)?;
        }
        Ok(())
    }
}

/// Writes `bp` as a blueprint folder under `dir/<name>/`: header version 3, meta, logic with
/// chunk-32 positions, `.smd3` regions (chunk-16 sources re-bucketed, their coordinates moved
/// by 8 so the core lands on 16,16,16), and the children in `ATTACHED_n/`.
pub fn write_files(bp: &Blueprint) -> Result<Files, WriteError> {
    let mut files = Files::new();
    add_files(bp, "", &mut files)?;
    Ok(files)
}

fn add_files(bp: &Blueprint, prefix: &str, files: &mut Files) -> Result<(), WriteError> {
    let shift = if bp.chunk == 16 { 8 } else { 0 };
    files.insert(format!("{prefix}header.smbph"), header::write(&bp.header));
    files.insert(format!("{prefix}meta.smbpm"), meta::write(&bp.meta));
    files.insert(
        format!("{prefix}logic.smbpl"),
        logic::write(&bp.logic, shift as i16),
    );
    // Re-bucket every block into 32³ segments.
    let mut by_segment: BTreeMap<[i32; 3], (u8, i64, Vec<u32>)> = BTreeMap::new();
    let mut need_v2 = false;
    let mut blocks = Vec::new();
    for s in &bp.segments {
        for (p, b) in s.blocks() {
            let p = p.map(|c| c + shift);
            if region::encode_v3(b).is_none() {
                need_v2 = true;
            }
            blocks.push((p, b, s.timestamp));
        }
    }
    let version = if need_v2 { 2 } else { 3 };
    for (p, b, ts) in blocks {
        let word = if version == 3 {
            region::encode_v3(b)
        } else {
            region::encode_v2(b)
        }
        .ok_or(WriteError::BlockDoesNotFit {
            block: b,
            position: p,
        })?;
        let origin = p.map(|c| c.div_euclid(32) * 32);
        let entry = by_segment
            .entry(origin)
            .or_insert_with(|| (version, ts, vec![0; 32 * 32 * 32]));
        let local = p.map(|c| c.rem_euclid(32) as usize);
        entry.2[local[0] + 32 * local[1] + 1024 * local[2]] = word;
    }
    let mut regions: BTreeMap<[i32; 3], Vec<Segment>> = BTreeMap::new();
    for (origin, (version, timestamp, words)) in by_segment {
        regions
            .entry(region::region_of(origin))
            .or_default()
            .push(Segment {
                version,
                timestamp,
                position: origin,
                side: 32,
                words,
            });
    }
    let name = if bp.name.is_empty() {
        "blueprint"
    } else {
        &bp.name
    };
    for (r, segments) in regions {
        let data = region::write_smd3(&segments)?;
        files.insert(
            format!("{prefix}DATA/{name}.{}.{}.{}.smd3", r[0], r[1], r[2]),
            data,
        );
    }
    for (child, c) in &bp.children {
        add_files(c, &format!("{prefix}{child}/"), files)?;
    }
    Ok(())
}

/// Writes a blueprint folder `dir/<name>/` and a `.sment` archive `dir/<name>.sment`, each file
/// atomically.
pub fn write(bp: &Blueprint, dir: &Path) -> Result<(), WriteError> {
    let files = write_files(bp)?;
    let root = dir.join(&bp.name);
    for (rel, data) in &files {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| WriteError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        crate::output::write_bytes_atomically(&path, data).map_err(|source| WriteError::Io {
            path: path.clone(),
            source,
        })?;
    }
    let sment = dir.join(format!("{}.sment", bp.name));
    crate::output::write_atomically(&sment, |w| -> std::io::Result<()> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (rel, data) in &files {
            zip.start_file(format!("{}/{rel}", bp.name), options)
                .map_err(std::io::Error::other)?;
            std::io::Write::write_all(&mut zip, data)?;
        }
        let bytes = zip.finish().map_err(std::io::Error::other)?.into_inner();
        std::io::Write::write_all(w, &bytes)
    })
    .map_err(|source| WriteError::Io {
        path: sment.clone(),
        source,
    })
}
