//! `meta.smbpm`: docking entries, rail docks, AI config and the tag tree.
//!
//! Layout (big-endian; strings are Java `writeUTF`): i32 version, then data-type bytes until the
//! file ends: 1 finish (nothing follows); 2 a tag root running to the end of the file (nothing
//! follows); 3 old docking: i32 count × {utf path, 3 × i32 position, 3 × f32 size, i16 style,
//! i8 orientation}; 4 bounding box 6 × f32, (version ≥ 2) utf label and i32 count × {utf,
//! i64, i64} wireless links, then i32 count × {utf path, i32 size, a tag root of exactly that
//! size} rail docks; 5 i32 size and a tag root of that size (AI config); 6 i8 flag and, when
//! set, i32 count × 17-byte rail docker records; 7 i8 flag and, when set, i32 count × {i64
//! position, f64 volume}. A tag root is 2 header bytes then one tag; header `1F 8B` means the
//! root from there on is gzip (bounded by [`MAX_INFLATED`]). A tag is an i8 type — 0 ends a
//! struct, > 0 is followed by a name, < 0 is unnamed — then the payload of |type|: 1 i8, 2 i16,
//! 3 i32, 4 i64, 5 f32, 6 f64, 7 i32-length bytes, 8 utf, 9 3 × f32, 10 3 × i32, 11 3 × i8,
//! 12 list (i8 element type, i32 count, bare payloads), 13 struct (tags until a 0), 14 u8
//! factory id, 15 4 × f32, 16 4 × 4 × f32, 17 nothing. Writers emit uncompressed roots.

use std::io::Read;

use serde::Serialize;

use super::bytes::{Reader, Rule, StarmadeError, Writer};

/// Meta versions below this one mark a chunk-16 blueprint: readers (SMBEdit's `meta.py`) move
/// its tag positions by 8 onto the chunk-32 frame. The vectors hold 0 and 3 (chunk-16), 4
/// (0_199_132: header v2, `.smd3`) and 5 (every header-v3 vector).
pub const FIRST_CHUNK32_VERSION: i32 = 4;
/// The version real chunk-32 blueprints write (every header-v3 vector; SMBEdit writes it too).
pub const CHUNK32_VERSION: i32 = 5;

/// The most a gzip tag root may inflate to.
pub const MAX_INFLATED: u64 = 64 << 20;
/// The deepest nesting of lists and structs accepted.
pub const MAX_DEPTH: usize = 64;

/// A tag payload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Payload {
    /// 1.
    Byte(i8),
    /// 2.
    Short(i16),
    /// 3.
    Int(i32),
    /// 4.
    Long(i64),
    /// 5.
    Float(f32),
    /// 6.
    Double(f64),
    /// 7.
    Bytes(Vec<u8>),
    /// 8.
    Str(String),
    /// 9.
    Vec3f([f32; 3]),
    /// 10.
    Vec3i([i32; 3]),
    /// 11.
    Vec3b([i8; 3]),
    /// 12: element type and elements.
    List(i8, Vec<Payload>),
    /// 13.
    Struct(Vec<Tag>),
    /// 14.
    Factory(u8),
    /// 15.
    Vec4f([f32; 4]),
    /// 16.
    Matrix([f32; 16]),
    /// 17.
    Null,
}

/// A tag: its type byte (sign = named or not), its name, its payload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tag {
    /// The type byte as written (> 0 named, < 0 unnamed).
    pub kind: i8,
    /// The name of a named tag.
    pub name: Option<String>,
    /// The payload.
    pub payload: Payload,
}

/// A tag root.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TagRoot {
    /// The two header bytes (`00 00`; `1F 8B` was a gzip root, written back plain).
    pub header: [u8; 2],
    /// Whether it was gzip-compressed on read.
    pub compressed: bool,
    /// The root tag.
    pub tag: Tag,
}

/// An old-style docking entry (data type 3).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DockEntry {
    /// Relative path of the docked blueprint.
    pub path: String,
    /// Docking block position.
    pub position: [i32; 3],
    /// Size.
    pub size: [f32; 3],
    /// Style.
    pub style: i16,
    /// Orientation.
    pub orientation: i8,
}

/// A wireless logic link of data type 4: target label and two packed positions.
pub type WirelessLink = (String, i64, i64);

/// One data-type section of the file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Section {
    /// 1.
    Finish,
    /// 2: the tag tree (ends the file).
    Tags(TagRoot),
    /// 3.
    Docking(Vec<DockEntry>),
    /// 4.
    Rails {
        /// Bounding box minimum.
        min: [f32; 3],
        /// Bounding box maximum.
        max: [f32; 3],
        /// Label and wireless links (version ≥ 2).
        label: Option<(String, Vec<WirelessLink>)>,
        /// Rail-docked entities: path and tag root (None for size 0).
        docks: Vec<(String, Option<TagRoot>)>,
    },
    /// 5: AI config (None for size 0).
    Ai(Option<TagRoot>),
    /// 6: flag and rail docker records.
    RailDockers(i8, Vec<[u8; 17]>),
    /// 7: flag and (position, volume) pairs.
    Volumes(i8, Vec<(i64, f64)>),
}

/// The meta file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Meta {
    /// File version.
    pub version: i32,
    /// Sections in file order.
    pub sections: Vec<Section>,
}

/// A short description for `starmade inspect`.
#[derive(Clone, Debug, Serialize)]
pub struct MetaSummary {
    /// File version.
    pub version: i32,
    /// Data types in file order.
    pub data_types: Vec<u8>,
    /// Old docking entries' paths.
    pub docked: Vec<String>,
    /// Rail-docked entities' paths.
    pub rail_docked: Vec<String>,
    /// Tags in the tag tree (all levels).
    pub tags: usize,
    /// Whether the tag tree was gzip-compressed.
    pub compressed: bool,
}

impl std::fmt::Display for MetaSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "version {}, data types {:?}, {} docking entries, {} rail-docked, {} tags{}",
            self.version,
            self.data_types,
            self.docked.len(),
            self.rail_docked.len(),
            self.tags,
            if self.compressed { " (gzip)" } else { "" }
        )
    }
}

fn count_tags(t: &Tag) -> usize {
    1 + match &t.payload {
        Payload::Struct(tags) => tags.iter().map(count_tags).sum(),
        _ => 0,
    }
}

impl Meta {
    /// A minimal meta file of a chunk-32 blueprint: version [`CHUNK32_VERSION`], no docking
    /// entries, finish. (Version 0 would tell readers the blueprint is chunk-16.)
    pub fn empty() -> Meta {
        Meta {
            version: CHUNK32_VERSION,
            sections: vec![Section::Docking(Vec::new()), Section::Finish],
        }
    }

    /// The docking entries (old style) and the rail-docked paths, for comparisons.
    pub fn docking(&self) -> (Vec<DockEntry>, Vec<String>) {
        let mut old = Vec::new();
        let mut rails = Vec::new();
        for s in &self.sections {
            match s {
                Section::Docking(d) => old.extend(d.iter().cloned()),
                Section::Rails { docks, .. } => rails.extend(docks.iter().map(|(p, _)| p.clone())),
                _ => {}
            }
        }
        (old, rails)
    }

    /// The summary.
    pub fn summary(&self) -> MetaSummary {
        let (old, rails) = self.docking();
        let mut tags = 0;
        let mut compressed = false;
        let mut data_types = Vec::new();
        for s in &self.sections {
            data_types.push(match s {
                Section::Finish => 1,
                Section::Tags(root) => {
                    tags += count_tags(&root.tag);
                    compressed |= root.compressed;
                    2
                }
                Section::Docking(_) => 3,
                Section::Rails { .. } => 4,
                Section::Ai(_) => 5,
                Section::RailDockers(..) => 6,
                Section::Volumes(..) => 7,
            });
        }
        MetaSummary {
            version: self.version,
            data_types,
            docked: old.into_iter().map(|d| d.path).collect(),
            rail_docked: rails,
            tags,
            compressed,
        }
    }
}

fn payload(r: &mut Reader, t: i8, depth: usize) -> Result<Payload, StarmadeError> {
    if depth > MAX_DEPTH {
        return Err(r.error(Rule::TagsTooDeep, format!("deeper than {MAX_DEPTH}")));
    }
    Ok(match t {
        1 => Payload::Byte(r.u8("byte tag")? as i8),
        2 => Payload::Short(r.i16("short tag")?),
        3 => Payload::Int(r.i32("int tag")?),
        4 => Payload::Long(r.i64("long tag")?),
        5 => Payload::Float(r.f32("float tag")?),
        6 => Payload::Double(r.f64("double tag")?),
        7 => {
            let n = r.count("byte array length", 1)?;
            Payload::Bytes(r.bytes(n, "byte array")?.to_vec())
        }
        8 => Payload::Str(r.utf("string tag")?),
        9 => Payload::Vec3f([r.f32("vector")?, r.f32("vector")?, r.f32("vector")?]),
        10 => Payload::Vec3i([r.i32("vector")?, r.i32("vector")?, r.i32("vector")?]),
        11 => Payload::Vec3b([
            r.u8("vector")? as i8,
            r.u8("vector")? as i8,
            r.u8("vector")? as i8,
        ]),
        12 => {
            let at = r.offset();
            let element = r.u8("list element type")? as i8;
            if !(1..=17).contains(&element) {
                return Err(r.error_at(at, Rule::UnknownListElementType, element.to_string()));
            }
            let n = r.count("list length", 1)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(payload(r, element, depth + 1)?);
            }
            Payload::List(element, items)
        }
        13 => {
            let mut tags = Vec::new();
            loop {
                let at = r.offset();
                let kind = r.u8("tag type")? as i8;
                if kind == 0 {
                    break;
                }
                tags.push(tag_body(r, kind, at, depth + 1)?);
            }
            Payload::Struct(tags)
        }
        14 => Payload::Factory(r.u8("factory id")?),
        15 => Payload::Vec4f([
            r.f32("vector")?,
            r.f32("vector")?,
            r.f32("vector")?,
            r.f32("vector")?,
        ]),
        16 => {
            let mut m = [0f32; 16];
            for v in &mut m {
                *v = r.f32("matrix")?;
            }
            Payload::Matrix(m)
        }
        17 => Payload::Null,
        _ => return Err(r.error(Rule::UnknownTagType, t.to_string())),
    })
}

fn tag_body(r: &mut Reader, kind: i8, at: usize, depth: usize) -> Result<Tag, StarmadeError> {
    let t = kind.unsigned_abs() as i8;
    if !(1..=17).contains(&t) {
        return Err(r.error_at(at, Rule::UnknownTagType, kind.to_string()));
    }
    let name = (kind > 0).then(|| r.utf("tag name")).transpose()?;
    Ok(Tag {
        kind,
        name,
        payload: payload(r, t, depth)?,
    })
}

fn tag_root(r: &mut Reader, file: &str) -> Result<TagRoot, StarmadeError> {
    let at = r.offset();
    let header = [r.u8("tag root header")?, r.u8("tag root header")?];
    if header == [0x1F, 0x8B] {
        // The root from its header on is gzip: inflate what is left, bounded.
        let rest = {
            let mut all = vec![0x1F, 0x8B];
            all.extend_from_slice(r.bytes(r.remaining(), "gzip tag root")?);
            all
        };
        let mut plain = Vec::new();
        flate2::read::GzDecoder::new(&rest[..])
            .take(MAX_INFLATED + 1)
            .read_to_end(&mut plain)
            .map_err(|e| r.error_at(at, Rule::NotGzip, format!("gzip tag root: {e}")))?;
        if plain.len() as u64 > MAX_INFLATED {
            return Err(r.error_at(
                at,
                Rule::LimitExceeded,
                format!("gzip tag root inflates past {MAX_INFLATED} bytes"),
            ));
        }
        let mut inner = Reader::new(&plain, file);
        let mut root = tag_root(&mut inner, file)?;
        inner.finish("gzip tag root")?;
        root.compressed = true;
        return Ok(root);
    }
    let tag_at = r.offset();
    let kind = r.u8("root tag type")? as i8;
    if kind == 0 {
        return Err(r.error_at(tag_at, Rule::EndMarkerAsRoot, ""));
    }
    Ok(TagRoot {
        header,
        compressed: false,
        tag: tag_body(r, kind, tag_at, 0)?,
    })
}

/// A tag root of exactly `size` bytes.
fn sized_root(r: &mut Reader, size: usize, file: &str) -> Result<TagRoot, StarmadeError> {
    let at = r.offset();
    let data = r.bytes(size, "sized tag root")?;
    let mut inner = Reader::new(data, file);
    let root = tag_root(&mut inner, file).map_err(|e| StarmadeError {
        offset: e.offset + at,
        ..e
    })?;
    inner.finish("sized tag root").map_err(|e| StarmadeError {
        offset: e.offset + at,
        ..e
    })?;
    Ok(root)
}

/// Reads a meta file.
pub fn read(data: &[u8], file: &str) -> Result<Meta, StarmadeError> {
    let mut r = Reader::new(data, file);
    let version = r.i32("meta version")?;
    let mut sections = Vec::new();
    loop {
        if r.remaining() == 0 {
            // Older writers end after the last section without a finish byte.
            break;
        }
        let at = r.offset();
        match r.u8("data type")? {
            1 => {
                sections.push(Section::Finish);
                break;
            }
            2 => {
                sections.push(Section::Tags(tag_root(&mut r, file)?));
                break;
            }
            3 => {
                let n = r.count("docking count", 29)?;
                let mut entries = Vec::with_capacity(n);
                for _ in 0..n {
                    entries.push(DockEntry {
                        path: r.utf("docking path")?,
                        position: [
                            r.i32("docking position")?,
                            r.i32("docking position")?,
                            r.i32("docking position")?,
                        ],
                        size: [
                            r.f32("docking size")?,
                            r.f32("docking size")?,
                            r.f32("docking size")?,
                        ],
                        style: r.i16("docking style")?,
                        orientation: r.u8("docking orientation")? as i8,
                    });
                }
                sections.push(Section::Docking(entries));
            }
            4 => {
                let v3 = |r: &mut Reader| -> Result<[f32; 3], StarmadeError> {
                    Ok([
                        r.f32("bounding box")?,
                        r.f32("bounding box")?,
                        r.f32("bounding box")?,
                    ])
                };
                let (min, max) = (v3(&mut r)?, v3(&mut r)?);
                let label = if version >= 2 {
                    let label = r.utf("label")?;
                    let n = r.count("wireless count", 18)?;
                    let mut links = Vec::with_capacity(n);
                    for _ in 0..n {
                        links.push((
                            r.utf("wireless target")?,
                            r.i64("wireless position")?,
                            r.i64("wireless position")?,
                        ));
                    }
                    Some((label, links))
                } else {
                    None
                };
                let n = r.count("rail dock count", 6)?;
                let mut docks = Vec::with_capacity(n);
                for _ in 0..n {
                    let path = r.utf("rail dock path")?;
                    let size = r.count("rail dock size", 1)?;
                    let root = (size > 0)
                        .then(|| sized_root(&mut r, size, file))
                        .transpose()?;
                    docks.push((path, root));
                }
                sections.push(Section::Rails {
                    min,
                    max,
                    label,
                    docks,
                });
            }
            5 => {
                let size = r.count("AI config size", 1)?;
                let root = (size > 0)
                    .then(|| sized_root(&mut r, size, file))
                    .transpose()?;
                sections.push(Section::Ai(root));
            }
            6 => {
                let flag = r.u8("rail docker flag")? as i8;
                let mut entries = Vec::new();
                if flag != 0 {
                    let n = r.count("rail docker count", 17)?;
                    for _ in 0..n {
                        let mut e = [0u8; 17];
                        e.copy_from_slice(r.bytes(17, "rail docker")?);
                        entries.push(e);
                    }
                }
                sections.push(Section::RailDockers(flag, entries));
            }
            7 => {
                let flag = r.u8("volume flag")? as i8;
                let mut entries = Vec::new();
                if flag != 0 {
                    let n = r.count("volume count", 16)?;
                    for _ in 0..n {
                        entries.push((r.i64("volume position")?, r.f64("volume")?));
                    }
                }
                sections.push(Section::Volumes(flag, entries));
            }
            t => return Err(r.error_at(at, Rule::UnknownDataType, t.to_string())),
        }
    }
    r.finish("meta file")?;
    Ok(Meta { version, sections })
}

fn write_payload(w: &mut Writer, p: &Payload) {
    match p {
        Payload::Byte(v) => w.u8(*v as u8),
        Payload::Short(v) => w.i16(*v),
        Payload::Int(v) => w.i32(*v),
        Payload::Long(v) => w.i64(*v),
        Payload::Float(v) => w.f32(*v),
        Payload::Double(v) => w.f64(*v),
        Payload::Bytes(b) => {
            w.i32(b.len() as i32);
            w.0.extend_from_slice(b);
        }
        Payload::Str(s) => w.utf(s),
        Payload::Vec3f(v) => v.iter().for_each(|x| w.f32(*x)),
        Payload::Vec3i(v) => v.iter().for_each(|x| w.i32(*x)),
        Payload::Vec3b(v) => v.iter().for_each(|x| w.u8(*x as u8)),
        Payload::List(t, items) => {
            w.u8(*t as u8);
            w.i32(items.len() as i32);
            items.iter().for_each(|i| write_payload(w, i));
        }
        Payload::Struct(tags) => {
            tags.iter().for_each(|t| write_tag(w, t));
            w.u8(0);
        }
        Payload::Factory(v) => w.u8(*v),
        Payload::Vec4f(v) => v.iter().for_each(|x| w.f32(*x)),
        Payload::Matrix(m) => m.iter().for_each(|x| w.f32(*x)),
        Payload::Null => {}
    }
}

fn write_tag(w: &mut Writer, t: &Tag) {
    w.u8(t.kind as u8);
    if let Some(name) = &t.name {
        w.utf(name);
    }
    write_payload(w, &t.payload);
}

fn root_bytes(root: &TagRoot) -> Vec<u8> {
    let mut w = Writer::default();
    // Always written plain.
    let header = if root.compressed { [0, 0] } else { root.header };
    w.0.extend_from_slice(&header);
    write_tag(&mut w, &root.tag);
    w.0
}

/// Writes a meta file (tag roots uncompressed).
pub fn write(m: &Meta) -> Vec<u8> {
    let mut w = Writer::default();
    w.i32(m.version);
    for s in &m.sections {
        match s {
            Section::Finish => w.u8(1),
            Section::Tags(root) => {
                w.u8(2);
                w.0.extend_from_slice(&root_bytes(root));
            }
            Section::Docking(entries) => {
                w.u8(3);
                w.i32(entries.len() as i32);
                for e in entries {
                    w.utf(&e.path);
                    e.position.iter().for_each(|v| w.i32(*v));
                    e.size.iter().for_each(|v| w.f32(*v));
                    w.i16(e.style);
                    w.u8(e.orientation as u8);
                }
            }
            Section::Rails {
                min,
                max,
                label,
                docks,
            } => {
                w.u8(4);
                min.iter().chain(max).for_each(|v| w.f32(*v));
                if let Some((label, links)) = label {
                    w.utf(label);
                    w.i32(links.len() as i32);
                    for (target, a, b) in links {
                        w.utf(target);
                        w.i64(*a);
                        w.i64(*b);
                    }
                }
                w.i32(docks.len() as i32);
                for (path, root) in docks {
                    w.utf(path);
                    let bytes = root.as_ref().map(root_bytes).unwrap_or_default();
                    w.i32(bytes.len() as i32);
                    w.0.extend_from_slice(&bytes);
                }
            }
            Section::Ai(root) => {
                w.u8(5);
                let bytes = root.as_ref().map(root_bytes).unwrap_or_default();
                w.i32(bytes.len() as i32);
                w.0.extend_from_slice(&bytes);
            }
            Section::RailDockers(flag, entries) => {
                w.u8(6);
                w.u8(*flag as u8);
                if *flag != 0 {
                    w.i32(entries.len() as i32);
                    entries.iter().for_each(|e| w.0.extend_from_slice(e));
                }
            }
            Section::Volumes(flag, entries) => {
                w.u8(7);
                w.u8(*flag as u8);
                if *flag != 0 {
                    w.i32(entries.len() as i32);
                    for (p, v) in entries {
                        w.i64(*p);
                        w.f64(*v);
                    }
                }
            }
        }
    }
    w.0
}
