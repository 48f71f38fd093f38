//! The `.dat` blueprint: the byte contract with the game server, and the tooling over it.
//!
//! [`mod@format`] defines the layout once (tags, every section's length, wire enums), [`model`] is
//! the typed in-memory blueprint, [`mod@write`] and [`read`] are the two sides, [`error`] their
//! failures. [`inspect`], [`roundtrip`] and [`digest`] are the `.dat` tools built on them;
//! `sample` (with the `internals` feature) makes a deterministic every-section blueprint for tests and benchmarks.

pub mod digest;
pub mod error;
pub mod format;
pub mod inspect;
pub mod model;
pub mod read;
pub mod roundtrip;
crate::internal_modules!(sample);
pub mod write;

pub use error::{ReadError, Rule, WriteError};
pub use format::{Biome, RoadTier, Tag, TownTier};
pub use model::*;
pub use read::{
    read_bytes, read_file, read_file_without_grids, read_header, section_frames, Format, FrameAt,
    FrameError, Header, LoadWarning, Loaded, SectionInfo, SectionStatus, HEADER_PROBE_LEN,
};
pub use write::{
    begin_file, write_v1, write_v1_file, write_v2, write_v2_file, Layout, PendingFile,
};
