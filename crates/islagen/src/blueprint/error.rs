//! Typed errors of the blueprint reader (hostile input) and writer (a model the format cannot
//! carry). A read error names the rule broken, the section tag where there is one, and the
//! byte offset in the file.

use std::fmt;

use super::format::Tag;

/// The reader rule an input broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Rule {
    /// The first byte is neither 0x49 (v2) nor 0x07 (v1).
    UnknownFormat,
    /// v2: the first four bytes are not `ISLA`; v1: the header string is not `ISLA_V1`.
    BadMagic,
    /// v2: the format version is not 2.
    UnsupportedVersion,
    /// MapSize outside 256 ..= 32768 (checked before any allocation).
    MapSizeOutOfRange,
    /// The first section is not PRMS.
    ParamsNotFirst,
    /// A tag appears twice.
    DuplicateSection,
    /// A declared length (section, count or string) runs past the end of the file or section.
    Truncated,
    /// A section parser did not consume exactly the declared payload length.
    LengthMismatch,
    /// PRMS, HGTS or BIOM is absent.
    MissingSection,
    /// A biome ordinal ≥ the known biome count.
    BiomeOutOfRange,
    /// A town-tier ordinal ≥ the known tier count.
    TierOutOfRange,
    /// A count is negative.
    NegativeCount,
    /// An enumerated byte (highway flag, water type, salinity, crater mode) has no meaning.
    InvalidValue,
    /// A string is not valid UTF-8 or its length prefix is malformed or too long.
    InvalidString,
    /// A value that must be a real number (a river point's x, y, width or discharge) is NaN or
    /// infinite.
    NonFinite,
    /// A quantity that cannot be negative (a river's width or discharge) is.
    NegativeValue,
    /// A position (a river point's x or y) lies outside 0 ..= MapSize.
    CoordinateOutOfRange,
    /// A river point's width exceeds [`super::format::MAX_RIVER_WIDTH_M`].
    WidthOutOfRange,
    /// A river's Strahler order is 0 (orders start at 1, a headwater stream).
    InvalidOrder,
    /// A river names a reach id that WBTB does not list as a body of type river.
    UnknownReach,
    /// A section that refers to another (RIVR to WBTB) is present without it.
    MissingReferencedSection,
}

impl Rule {
    /// A short description of the rule.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::UnknownFormat => "unknown format (first byte is neither 0x49 nor 0x07)",
            Rule::BadMagic => "bad magic",
            Rule::UnsupportedVersion => "unsupported format version",
            Rule::MapSizeOutOfRange => "MapSize outside 256..=32768",
            Rule::ParamsNotFirst => "PRMS must be the first section",
            Rule::DuplicateSection => "duplicate section",
            Rule::Truncated => "declared length runs past the end",
            Rule::LengthMismatch => "section not consumed exactly",
            Rule::MissingSection => "mandatory section missing",
            Rule::BiomeOutOfRange => "biome ordinal out of range",
            Rule::TierOutOfRange => "town tier out of range",
            Rule::NegativeCount => "negative count",
            Rule::InvalidValue => "invalid enumerated value",
            Rule::InvalidString => "invalid string",
            Rule::NonFinite => "non-finite value",
            Rule::NegativeValue => "negative value",
            Rule::CoordinateOutOfRange => "coordinate outside 0..=MapSize",
            Rule::WidthOutOfRange => "river width over the format's most",
            Rule::InvalidOrder => "Strahler order 0",
            Rule::UnknownReach => "reach id is not a WBTB river body",
            Rule::MissingReferencedSection => "section refers to an absent section",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// Why a blueprint could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The file could not be read (environment, not content).
    #[error("cannot read blueprint")]
    Io(#[from] std::io::Error),
    /// The content breaks a reader rule.
    #[error("{rule} {where_}: {detail}", where_ = Location(*tag, *offset))]
    Invalid {
        /// The rule broken.
        rule: Rule,
        /// The section being read, if any.
        tag: Option<Tag>,
        /// Byte offset in the file where the offending value starts.
        offset: u64,
        /// What exactly was wrong.
        detail: String,
    },
}

impl ReadError {
    /// The rule broken, if this is a content error.
    pub fn rule(&self) -> Option<Rule> {
        match self {
            ReadError::Invalid { rule, .. } => Some(*rule),
            ReadError::Io(_) => None,
        }
    }

    /// The section the error was found in, if any.
    pub fn tag(&self) -> Option<Tag> {
        match self {
            ReadError::Invalid { tag, .. } => *tag,
            ReadError::Io(_) => None,
        }
    }

    /// The byte offset of a content error.
    pub fn offset(&self) -> Option<u64> {
        match self {
            ReadError::Invalid { offset, .. } => Some(*offset),
            ReadError::Io(_) => None,
        }
    }
}

struct Location(Option<Tag>, u64);

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(tag) => write!(f, "in section {tag} at byte {}", self.1),
            None => write!(f, "at byte {}", self.1),
        }
    }
}

/// Why a blueprint model could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The destination failed.
    #[error("cannot write blueprint")]
    Io(#[from] std::io::Error),
    /// MapSize outside what a reader accepts.
    #[error("MapSize {0} is outside 256..=32768")]
    MapSizeOutOfRange(i32),
    /// A grid is not MapSize × MapSize.
    #[error("{grid} grid is {got_x}×{got_y}, expected {expected}×{expected} (MapSize)")]
    GridShape {
        /// Which grid.
        grid: &'static str,
        /// MapSize.
        expected: usize,
        /// Actual first dimension.
        got_x: usize,
        /// Actual second dimension.
        got_y: usize,
    },
    /// A list is longer than its i32 count can say.
    #[error("{what} has {len} entries, more than an i32 count can hold")]
    CountTooLarge {
        /// Which list.
        what: &'static str,
        /// Its length.
        len: usize,
    },
    /// A string is longer than the reader accepts.
    #[error("{what} is {len} bytes, longer than the {max}-byte limit")]
    StringTooLong {
        /// Which string.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        max: u32,
    },
    /// A reach list longer than its u16 count can say.
    #[error("RIVR river {river} has {len} reaches, more than a u16 count can hold")]
    TooManyReaches {
        /// Index of the river.
        river: usize,
        /// Its reach count.
        len: usize,
    },
    /// RIVR without the WBTB table its reach ids refer to ([`Rule::MissingReferencedSection`]).
    #[error("RIVR is present but WBTB, the table its reach ids refer to, is absent")]
    RiversWithoutWaterTable,
    /// An SHPE entry's SHA-256 is not 64 lowercase hex digits.
    #[error("SHPE input {index} ({key}): its SHA-256 {sha256:?} is not 64 lowercase hex digits")]
    ShapeHash {
        /// Which entry.
        index: usize,
        /// Its key.
        key: String,
        /// What it holds.
        sha256: String,
    },
    /// A RIVR river the reader would reject (see the RIVR rules in docs/FORMAT.md).
    #[error("RIVR river {river}{at}: {problem}", at = PointSuffix(*point))]
    InvalidRiver {
        /// Index of the river.
        river: usize,
        /// Index of the offending point, if a point is at fault.
        point: Option<usize>,
        /// What is wrong.
        problem: RiverProblem,
    },
    /// A TCRV record whose extensions disagree with its curveVersion.
    #[error("TCRV curveVersion {version} {problem}")]
    CurveLayout {
        /// curveVersion.
        version: u16,
        /// What disagrees.
        problem: &'static str,
    },
}

/// What makes a RIVR river unwritable: each mirrors a reader rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RiverProblem {
    /// Strahler order 0 ([`Rule::InvalidOrder`]).
    OrderZero,
    /// x, y, width or discharge is NaN or infinite ([`Rule::NonFinite`]).
    NonFinite,
    /// Width or discharge is negative ([`Rule::NegativeValue`]).
    Negative,
    /// x or y outside 0 ..= MapSize ([`Rule::CoordinateOutOfRange`]).
    OutOfMap,
    /// Width over [`super::format::MAX_RIVER_WIDTH_M`] ([`Rule::WidthOutOfRange`]).
    TooWide,
    /// A reach id WBTB does not list as a river body ([`Rule::UnknownReach`]).
    UnknownReach(u16),
}

impl fmt::Display for RiverProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RiverProblem::OrderZero => f.write_str("Strahler order is 0"),
            RiverProblem::NonFinite => f.write_str("x, y, width or discharge is not finite"),
            RiverProblem::Negative => f.write_str("width or discharge is negative"),
            RiverProblem::OutOfMap => f.write_str("x or y lies outside 0..=MapSize"),
            RiverProblem::TooWide => write!(
                f,
                "width is over the format's {} m",
                super::format::MAX_RIVER_WIDTH_M
            ),
            RiverProblem::UnknownReach(id) => {
                write!(f, "reach {id} is not a WBTB body of type river")
            }
        }
    }
}

struct PointSuffix(Option<usize>);

impl fmt::Display for PointSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, " point {p}"),
            None => Ok(()),
        }
    }
}
