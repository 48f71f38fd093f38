//! The `.dat` byte layout, defined once for the writer and the reader.
//!
//! Everything that reaches the file lives here: the v2 magic and version, the FourCC section
//! tags in the registered table order, the fixed record sizes, the wire enums ([`Biome`],
//! [`TownTier`], [`RoadTier`]) with their explicit ordinals, and the water-surface quantisation.
//! The contract is `BLUEPRINT_FORMAT.md`; `docs/FORMAT.md` restates the choices islagen made
//! where that document leaves one open (the Biome members).
//!
//! Byte order is little-endian throughout.

use serde::Serialize;

/// First four bytes of a v2 file: the raw ASCII bytes `ISLA` (not a .NET string).
pub const V2_MAGIC: [u8; 4] = *b"ISLA";
/// The only v2 format version this reader accepts and this writer emits.
pub const V2_VERSION: u32 = 2;
/// The v1 header: the .NET length-prefixed string "ISLA_V1" (its prefix byte is 7).
pub const V1_HEADER: &str = "ISLA_V1";
/// The first byte of a v1 file (the length prefix of [`V1_HEADER`]).
pub const V1_FIRST_BYTE: u8 = 7;
/// The first byte of a v2 file (`'I'`).
pub const V2_FIRST_BYTE: u8 = V2_MAGIC[0];

/// Smallest MapSize a reader accepts, checked before any allocation.
pub const MIN_MAP_SIZE: i32 = 256;
/// Largest MapSize a reader accepts, checked before any allocation.
pub const MAX_MAP_SIZE: i32 = 32768;

/// Bytes of the v2 file header (magic + version).
pub const V2_HEADER_LEN: u64 = 8;
/// Bytes of a section frame (u32 tag + u64 payload length).
pub const SECTION_FRAME_LEN: u64 = 12;

/// A section tag: a FourCC stored as a little-endian u32, so the file shows ASCII in a hex dump.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tag(pub u32);

impl Tag {
    /// The tag whose on-disk bytes are `code`.
    pub const fn from_fourcc(code: [u8; 4]) -> Tag {
        Tag(u32::from_le_bytes(code))
    }

    /// The on-disk bytes of the tag.
    pub const fn bytes(self) -> [u8; 4] {
        self.0.to_le_bytes()
    }

    /// The tag as text; non-printable bytes are shown as `\xNN`.
    pub fn name(self) -> String {
        self.bytes()
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() {
                    (b as char).to_string()
                } else {
                    format!("\\x{b:02X}")
                }
            })
            .collect()
    }
}

impl std::fmt::Debug for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (0x{:08X})", self.name(), self.0)
    }
}

impl std::fmt::Display for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl Serialize for Tag {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

/// Generation params: seed, MapSize, crater, density, impact centre, provenance. Mandatory, first.
pub const PRMS: Tag = Tag::from_fourcc(*b"PRMS");
/// MapSize² × f32 heights.
pub const HGTS: Tag = Tag::from_fourcc(*b"HGTS");
/// MapSize² × u8 biome ordinals.
pub const BIOM: Tag = Tag::from_fourcc(*b"BIOM");
/// Towns with tier and highway-node flag.
pub const TOWN: Tag = Tag::from_fourcc(*b"TOWN");
/// Height-curve record.
pub const TCRV: Tag = Tag::from_fourcc(*b"TCRV");
/// Terrain-detail record (versioned body).
pub const TDTL: Tag = Tag::from_fourcc(*b"TDTL");
/// Erosion record (versioned body).
pub const EROS: Tag = Tag::from_fourcc(*b"EROS");
/// MapSize² × u16 water-body ids.
pub const WBID: Tag = Tag::from_fourcc(*b"WBID");
/// Water-body table.
pub const WBTB: Tag = Tag::from_fourcc(*b"WBTB");
/// MapSize² × u16 quantised water-surface levels.
pub const WSRF: Tag = Tag::from_fourcc(*b"WSRF");
/// Rivers as vectors (islagen's section, registered in docs/FORMAT.md; versioned body).
pub const RIVR: Tag = Tag::from_fourcc(*b"RIVR");
/// The designer's inputs a world was shaped by: each mask's key, SHA-256 and file name
/// (islagen's section, registered in docs/FORMAT.md; versioned body).
pub const SHPE: Tag = Tag::from_fourcc(*b"SHPE");
/// Highway roads.
pub const RDHW: Tag = Tag::from_fourcc(*b"RDHW");
/// Branch roads.
pub const RDBR: Tag = Tag::from_fourcc(*b"RDBR");
/// Rugged roads.
pub const RDRG: Tag = Tag::from_fourcc(*b"RDRG");
/// Trail roads.
pub const RDTL: Tag = Tag::from_fourcc(*b"RDTL");

/// Every registered tag in the table's order, which is the order the writer emits.
pub const REGISTERED_TAGS: [Tag; 16] = [
    PRMS, HGTS, BIOM, TOWN, TCRV, TDTL, EROS, WBID, WBTB, WSRF, RIVR, SHPE, RDHW, RDBR, RDRG, RDTL,
];

/// Bytes of the i32 count that opens TOWN, WBTB, a road block and each road path.
pub const COUNT_LEN: u64 = 4;

/// Bytes of PRMS's fixed fields before the two provenance strings: i32 WorldSeed, i32 MapSize,
/// f32 CraterRadius, f32 DensityMultiplier, f32 ImpactCenterX, f32 ImpactCenterY.
pub const PRMS_FIXED_LEN: u64 = 4 + 4 + 4 * 4;

/// The PRMS payload length with these provenance strings.
pub fn prms_len(generated_utc: &str, generator_git_hash: &str) -> u64 {
    PRMS_FIXED_LEN + dotnet_string_len(generated_utc) + dotnet_string_len(generator_git_hash)
}

/// Bytes per cell of the four per-pixel sections.
pub const fn grid_cell_len(tag: Tag) -> Option<u64> {
    match tag {
        HGTS => Some(4),
        BIOM => Some(1),
        WBID | WSRF => Some(2),
        _ => None,
    }
}

/// The payload length of a per-pixel section (`grid_cell_len`) at MapSize `side`.
pub const fn grid_len(cell_len: u64, side: u64) -> u64 {
    cell_len * side * side
}

/// Bytes of one TOWN entry: f32 X, f32 Y, u8 tier, u8 isHighwayNode.
pub const TOWN_ENTRY_LEN: u64 = 10;
/// Bytes of one WBTB entry.
pub const WATER_BODY_ENTRY_LEN: u64 = 20;
/// Bytes of one road point: f32 X, f32 Y.
pub const ROAD_POINT_LEN: u64 = 8;
/// The TOWN payload length for `towns` entries.
pub const fn town_len(towns: u64) -> u64 {
    COUNT_LEN + towns * TOWN_ENTRY_LEN
}

/// The WBTB payload length for `bodies` entries.
pub const fn water_table_len(bodies: u64) -> u64 {
    COUNT_LEN + bodies * WATER_BODY_ENTRY_LEN
}

/// The length of a road block (v2 payload or v1 block) whose paths have these point counts.
pub fn road_block_len(points_per_path: impl IntoIterator<Item = u64>) -> u64 {
    COUNT_LEN
        + points_per_path
            .into_iter()
            .map(|points| COUNT_LEN + points * ROAD_POINT_LEN)
            .sum::<u64>()
}

/// Bytes of the v1 header: the .NET string [`V1_HEADER`] (one prefix byte) and i32 MapSize.
pub const V1_HEADER_LEN: u64 = 1 + V1_HEADER.len() as u64 + 4;
/// Bytes of one v1 town: f32 X, f32 Y, i32 tier.
pub const V1_TOWN_ENTRY_LEN: u64 = 12;
/// Bytes of one v1 pixel: f32 height, i32 biome.
pub const V1_PIXEL_LEN: u64 = 8;

/// TCRV base record length (every curveVersion).
pub const TCRV_BASE_LEN: u64 = 50;
/// TCRV modulation extension length (curveVersion ≥ 4).
pub const TCRV_MODULATION_LEN: u64 = 36;
/// TCRV preset extension length (curveVersion ≥ 5).
pub const TCRV_PRESET_LEN: u64 = 9;

/// The curveVersions whose semantics are known (v1..v5); others are skipped on read and
/// refused on write.
pub const TCRV_VERSIONS: std::ops::RangeInclusive<u16> = 1..=5;

/// The TCRV payload length that `curve_version` implies.
pub const fn tcrv_len(curve_version: u16) -> u64 {
    let mut len = TCRV_BASE_LEN;
    if curve_version >= 4 {
        len += TCRV_MODULATION_LEN;
    }
    if curve_version >= 5 {
        len += TCRV_PRESET_LEN;
    }
    len
}

/// The TDTL body version this reader understands; any other version is skipped whole.
pub const TDTL_VERSION: u16 = 2;
/// TDTL v2 payload length.
pub const TDTL_V2_LEN: u64 = 30;
/// EROS v2 payload length (single crater exclusion factor).
pub const EROS_V2_LEN: u64 = 62;
/// EROS v3 payload length (crater core, feather and mode).
pub const EROS_V3_LEN: u64 = 67;

/// The EROS payload length of an erosionVersion this reader parses (2 or 3).
pub const fn eros_len(version: u16) -> Option<u64> {
    match version {
        2 => Some(EROS_V2_LEN),
        3 => Some(EROS_V3_LEN),
        _ => None,
    }
}

/// The RIVR body version this reader understands and this writer emits; any other version is
/// skipped whole on read.
pub const RIVR_VERSION: u16 = 1;
/// SHPE's shapeVersion: u16 version · i32 count, then per input three .NET strings: the
/// config key, the file's SHA-256 (64 lowercase hex digits) and the file's name.
pub const SHPE_VERSION: u16 = 1;
/// The longest SHPE key or file name, bytes.
pub const MAX_SHPE_STRING_LEN: u32 = 1024;

/// Whether `s` is a SHA-256 as SHPE holds it: 64 lowercase hex digits.
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// SHPE's payload length for these inputs (key, SHA-256, file name).
pub fn shpe_len<'a>(inputs: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) -> u64 {
    2 + COUNT_LEN
        + inputs
            .into_iter()
            .map(|(k, h, f)| dotnet_string_len(k) + dotnet_string_len(h) + dotnet_string_len(f))
            .sum::<u64>()
}
/// Bytes of the RIVR header: u16 riversVersion, f32 catchmentKm2, f32 widthScale, f32 density,
/// i32 riverCount.
pub const RIVR_HEADER_LEN: u64 = 2 + 3 * 4 + COUNT_LEN;
/// Bytes of a river's fixed fields: u8 strahlerOrder, u16 reachCount, i32 pointCount.
pub const RIVR_RIVER_FIXED_LEN: u64 = 1 + 2 + COUNT_LEN;
/// Bytes of one reach id (u16, a WBID id).
pub const RIVR_REACH_LEN: u64 = 2;
/// Bytes of one river point: f32 x, f32 y, f32 widthM, f32 dischargeM3s.
pub const RIVR_POINT_LEN: u64 = 16;
/// The widest channel a river point may carry, metres: an eighth of the 8192 m world (the
/// widest river islagen makes is about 60 m: 6 m × RiverWidthScale 5 × √3.4 m³/s). Readers
/// refuse wider, so a hostile width cannot make every tile paint in full.
pub const MAX_RIVER_WIDTH_M: f32 = 1024.0;

/// The RIVR payload length for rivers with these (reach count, point count) pairs.
pub fn rivr_len(rivers: impl IntoIterator<Item = (u64, u64)>) -> u64 {
    RIVR_HEADER_LEN
        + rivers
            .into_iter()
            .map(|(reaches, points)| {
                RIVR_RIVER_FIXED_LEN + reaches * RIVR_REACH_LEN + points * RIVR_POINT_LEN
            })
            .sum::<u64>()
}

/// Longest PRMS string (GeneratedUtc, GeneratorGitHash) the reader accepts, in bytes.
pub const MAX_PRMS_STRING_LEN: u32 = 4096;

macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $name:ident, $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $ord:literal, $label:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        #[repr(u8)]
        pub enum $name {
            $( $(#[$vmeta])* $variant = $ord ),+
        }

        impl $name {
            /// Every member in ordinal order; `ALL[i]` has ordinal `i`.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// How many members the wire knows; ordinals at or above it are rejected.
            pub const COUNT: usize = Self::ALL.len();

            /// The member with this wire ordinal, if there is one.
            pub fn from_ordinal(ordinal: i64) -> Option<$name> {
                usize::try_from(ordinal).ok().and_then(|i| Self::ALL.get(i).copied())
            }

            /// The wire ordinal.
            pub const fn ordinal(self) -> u8 {
                self as u8
            }

            /// A short human name.
            pub const fn label(self) -> &'static str {
                match self { $($name::$variant => $label),+ }
            }
        }

        // Ordinals must be dense from 0 so that `ALL[i]` has ordinal `i` and COUNT bounds them.
        const _: () = {
            let mut i = 0;
            while i < $name::ALL.len() {
                assert!($name::ALL[i] as usize == i, concat!($what, " ordinals must be dense"));
                i += 1;
            }
        };
    };
}

wire_enum! {
    /// Biome ordinals: the wire value in BIOM (u8) and in v1 (i32). Append-only, never reorder.
    Biome, "biome" {
        /// Open sea connected to the map border.
        Ocean = 0, "ocean",
        /// Below-sea water not connected to the border.
        Lake = 1, "lake",
        /// The narrow land band just above sea level.
        Beach = 2, "beach",
        /// Lowland grass and farmland.
        Grassland = 3, "grassland",
        /// Wooded lowland and lower slopes.
        Forest = 4, "forest",
        /// The foothill bench and its slopes.
        Foothills = 5, "foothills",
        /// The highland plateau.
        Plateau = 6, "plateau",
        /// Bare mountain rock.
        Mountain = 7, "mountain",
        /// Snow on cold summits.
        Snow = 8, "snow",
        /// The impact crater's floor and rim.
        Crater = 9, "crater",
        /// Bare dirt; the palette fallback.
        Dirt = 10, "dirt",
    }
}

wire_enum! {
    /// Town tiers: the wire value in TOWN (u8) and in v1 (i32). Append-only, never reorder.
    TownTier, "town tier" {
        /// The single capital.
        Capitol = 0, "capitol",
        /// Regional hubs; the highway nodes are drawn from them.
        Hub = 1, "hub",
        /// Villages; joined by rugged roads.
        Village = 2, "village",
        /// Outposts; joined by trails.
        Outpost = 3, "outpost",
        /// Points of interest; joined by trails.
        Poi = 4, "poi",
    }
}

wire_enum! {
    /// Road tiers. In v2 the section tag names the tier; in v1 the block position does (this order).
    RoadTier, "road tier" {
        /// The continental loop (RDHW).
        Highway = 0, "highway",
        /// The mountain branch (RDBR).
        Branch = 1, "branch",
        /// County roads to villages (RDRG).
        Rugged = 2, "rugged",
        /// County roads to every other tier (RDTL).
        Trail = 3, "trail",
    }
}

impl RoadTier {
    /// The v2 section that carries this tier.
    pub const fn tag(self) -> Tag {
        match self {
            RoadTier::Highway => RDHW,
            RoadTier::Branch => RDBR,
            RoadTier::Rugged => RDRG,
            RoadTier::Trail => RDTL,
        }
    }

    /// The tier a road section tag carries, if it is one.
    pub fn from_tag(tag: Tag) -> Option<RoadTier> {
        RoadTier::ALL.iter().copied().find(|t| t.tag() == tag)
    }
}

/// WBTB body type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum WaterBodyType {
    /// The ocean (body 1).
    Ocean = 0,
    /// An inland lake.
    Lake = 1,
    /// A stepped river reach.
    River = 2,
}

impl WaterBodyType {
    /// The type with this wire value, if any.
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::Ocean),
            1 => Some(Self::Lake),
            2 => Some(Self::River),
            _ => None,
        }
    }
}

/// Which ids WBTB lists as bodies of type river, indexed by id (65 536 entries): the set every
/// RIVR reach id must fall in.
pub fn river_body_ids(bodies: impl IntoIterator<Item = (u16, WaterBodyType)>) -> Vec<bool> {
    let mut is_river = vec![false; 1 << 16];
    for (id, kind) in bodies {
        if kind == WaterBodyType::River {
            is_river[usize::from(id)] = true;
        }
    }
    is_river
}

/// WBTB salinity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum Salinity {
    /// Fresh water.
    Fresh = 0,
    /// Salt water.
    Salt = 1,
}

impl Salinity {
    /// The salinity with this wire value, if any.
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::Fresh),
            1 => Some(Self::Salt),
            _ => None,
        }
    }
}

/// The EROS record's craterMode byte is this enum's discriminant.
pub use crate::dials::CraterErosionMode;

/// WSRF value meaning "no water here".
pub const WSRF_NO_WATER: u16 = 0;
/// WSRF quantisation steps per raw height unit.
pub const WSRF_SCALE: f32 = 32768.0;

/// A water level WSRF cannot represent.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("water level {0} is outside the WSRF range 0 ..= {max} raw", max = WSRF_MAX_LEVEL)]
pub struct WaterLevelOutOfRange(pub f32);

/// The highest level WSRF encodes: (65535 − 1) / 32768 raw.
pub const WSRF_MAX_LEVEL: f32 = 65534.0 / WSRF_SCALE;

/// Encodes a water level (raw height units) as `1 + round(L × 32768)`, ties to even as .NET's
/// `Math.Round` does. The result is never [`WSRF_NO_WATER`].
pub fn encode_water_level(level: f32) -> Result<u16, WaterLevelOutOfRange> {
    let q = (level * WSRF_SCALE).round_ties_even();
    if !(0.0..=65534.0).contains(&q) {
        return Err(WaterLevelOutOfRange(level));
    }
    Ok(1 + q as u16)
}

/// Decodes a WSRF value: `None` for the no-water sentinel, else `(q − 1) / 32768`.
pub fn decode_water_level(q: u16) -> Option<f32> {
    (q != WSRF_NO_WATER).then(|| f32::from(q - 1) / WSRF_SCALE)
}

/// Appends the .NET `BinaryWriter.Write(string)` encoding: 7-bit length prefix, then UTF-8.
pub fn put_dotnet_string(out: &mut Vec<u8>, s: &str) {
    let mut n = s.len() as u32;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
    out.extend_from_slice(s.as_bytes());
}

/// Bytes [`put_dotnet_string`] writes for `s`.
pub fn dotnet_string_len(s: &str) -> u64 {
    let mut n = s.len() as u64;
    let mut prefix = 1;
    while n >= 0x80 {
        prefix += 1;
        n >>= 7;
    }
    prefix + s.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_read_as_ascii_little_endian() {
        assert_eq!(PRMS.0, 0x534D_5250);
        assert_eq!(HGTS.0, 0x5354_4748);
        assert_eq!(BIOM.0, 0x4D4F_4942);
        assert_eq!(TOWN.0, 0x4E57_4F54);
        assert_eq!(TCRV.0, 0x5652_4354);
        assert_eq!(TDTL.0, 0x4C54_4454);
        assert_eq!(EROS.0, 0x534F_5245);
        assert_eq!(WBID.0, 0x4449_4257);
        assert_eq!(WBTB.0, 0x4254_4257);
        assert_eq!(WSRF.0, 0x4652_5357);
        assert_eq!(RIVR.0, 0x5256_4952);
        assert_eq!(RDHW.0, 0x5748_4452);
        assert_eq!(RDBR.0, 0x5242_4452);
        assert_eq!(RDRG.0, 0x4752_4452);
        assert_eq!(RDTL.0, 0x4C54_4452);
        assert_eq!(u32::from_le_bytes(V2_MAGIC), 0x414C_5349);
    }

    #[test]
    fn tcrv_lengths_follow_version() {
        assert_eq!(tcrv_len(3), 50);
        assert_eq!(tcrv_len(4), 86);
        assert_eq!(tcrv_len(5), 95);
    }

    #[test]
    fn rivr_length_counts_header_rivers_reaches_and_points() {
        assert_eq!(RIVR_HEADER_LEN, 18);
        assert_eq!(rivr_len([]), 18);
        // one river: 7 fixed bytes, two reach ids, three points
        assert_eq!(rivr_len([(2, 3)]), 18 + 7 + 4 + 48);
        assert_eq!(rivr_len([(0, 0), (1, 1)]), 18 + 7 + 7 + 2 + 16);
    }

    #[test]
    fn wire_ordinals_are_fixed() {
        assert_eq!(TownTier::Capitol.ordinal(), 0);
        assert_eq!(TownTier::Poi.ordinal(), 4);
        assert_eq!(TownTier::COUNT, 5);
        assert_eq!(Biome::Ocean.ordinal(), 0);
        assert_eq!(Biome::Dirt.ordinal(), 10);
        assert_eq!(Biome::from_ordinal(11), None);
        assert_eq!(Biome::from_ordinal(-1), None);
    }

    #[test]
    fn water_level_encoding_at_range_ends() {
        assert_eq!(encode_water_level(0.0), Ok(1));
        assert_eq!(decode_water_level(1), Some(0.0));
        assert_eq!(decode_water_level(WSRF_NO_WATER), None);
        assert_eq!(encode_water_level(WSRF_MAX_LEVEL), Ok(u16::MAX));
        assert_eq!(decode_water_level(u16::MAX), Some(WSRF_MAX_LEVEL));
        assert!(encode_water_level(WSRF_MAX_LEVEL + 1.0 / WSRF_SCALE).is_err());
        assert!(encode_water_level(-1.0 / WSRF_SCALE).is_err());
        assert!(encode_water_level(f32::NAN).is_err());
        // the sea level itself
        assert_eq!(encode_water_level(0.15), Ok(1 + 4915));
        // ties go to even, as Math.Round does: 0.5 → 0, 1.5 → 2, 2.5 → 2
        assert_eq!(encode_water_level(0.5 / WSRF_SCALE), Ok(1));
        assert_eq!(encode_water_level(1.5 / WSRF_SCALE), Ok(3));
        assert_eq!(encode_water_level(2.5 / WSRF_SCALE), Ok(3));
        // just below a tie rounds down
        assert_eq!(encode_water_level(0.49 / WSRF_SCALE), Ok(1));
    }

    #[test]
    fn dotnet_string_prefix_is_seven_bit() {
        let mut out = Vec::new();
        put_dotnet_string(&mut out, "ISLA_V1");
        assert_eq!(out[0], 7);
        let long = "x".repeat(300);
        let mut out = Vec::new();
        put_dotnet_string(&mut out, &long);
        assert_eq!(&out[..2], &[0xAC, 0x02]);
        assert_eq!(dotnet_string_len(&long), 302);
    }
}
