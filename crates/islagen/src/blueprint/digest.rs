//! World digests: SHA-256 of a blueprint's *world content* — every byte except the PRMS
//! provenance strings (GeneratedUtc, GeneratorGitHash), which change with the clock and the
//! commit. Two files with the same digest describe the same world byte for byte. Used by the
//! golden regression and by anyone comparing runs.
//!
//! v2: the header, then per section its tag, its length and its payload — except PRMS, whose
//! length and two strings are left out (only its 24 bytes of fixed fields count). Each section
//! also gets a digest of its own, so a mismatch can name the first section that differs.
//! v1 carries no provenance: its digest is the whole file's, and [`v1_region`] names the part of
//! the layout an offset falls in.

use sha2::{Digest, Sha256};

use super::format::{
    PRMS, PRMS_FIXED_LEN, SECTION_FRAME_LEN, V1_HEADER_LEN, V1_PIXEL_LEN, V2_HEADER_LEN, V2_MAGIC,
};
use super::read::{section_frames, ReadAt};

const HEADER: usize = V2_HEADER_LEN as usize;
const FRAME: usize = SECTION_FRAME_LEN as usize;
const PRMS_FIXED: usize = PRMS_FIXED_LEN as usize;

/// The digest of a v2 file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V2Digest {
    /// SHA-256 (hex) of the whole world content.
    pub world: String,
    /// Per section, in file order: its tag (ASCII) and the SHA-256 (hex) of its world content.
    pub sections: Vec<(String, String)>,
}

/// Why bytes could not be digested as v2.
#[derive(Debug, thiserror::Error)]
#[error("not a well-framed v2 blueprint: {0}")]
pub struct DigestError(String);

/// Digests a v2 file's bytes.
pub fn v2(bytes: &[u8]) -> Result<V2Digest, DigestError> {
    if bytes.len() < HEADER || bytes[..4] != V2_MAGIC {
        return Err(DigestError("missing ISLA header".into()));
    }
    let mut world = Sha256::new();
    world.update(&bytes[..HEADER]);
    let mut sections = Vec::new();
    let len = bytes.len() as u64;
    let read = |buf: &mut [u8; FRAME], at: u64| bytes.read_exact_at(buf, at);
    for frame in section_frames(len, read) {
        let frame = frame.map_err(|e| DigestError(e.to_string()))?;
        let (at, start) = (frame.at as usize, frame.payload() as usize);
        let end = frame
            .end_within(len)
            .ok_or_else(|| DigestError(format!("section at {at} overruns the file")))?
            as usize;
        let mut section = Sha256::new();
        section.update(&bytes[at..at + 4]);
        if frame.tag == PRMS {
            let fixed = bytes
                .get(start..start + PRMS_FIXED)
                .filter(|_| end - start >= PRMS_FIXED)
                .ok_or_else(|| DigestError("PRMS shorter than its fixed fields".into()))?;
            section.update(fixed);
        } else {
            section.update(&bytes[at + 4..end]);
        }
        let section = section.finalize();
        world.update(section);
        sections.push((frame.tag.to_string(), hex(&section)));
    }
    Ok(V2Digest {
        world: hex(&world.finalize()),
        sections,
    })
}

/// SHA-256 (hex) of a v1 file: all of it.
pub fn v1(bytes: &[u8]) -> String {
    sha256(bytes)
}

/// SHA-256 (hex) of any bytes.
pub fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Names the part of a v1 layout (MapSize `map_size`) that byte `offset` falls in.
pub fn v1_region(offset: u64, map_size: u64) -> String {
    let header = V1_HEADER_LEN;
    let pixels = map_size * map_size * V1_PIXEL_LEN;
    if offset < header {
        "the header".to_string()
    } else if offset < header + pixels {
        let pixel = (offset - header) / V1_PIXEL_LEN;
        format!(
            "the pixel grid, pixel x = {}, y = {}",
            pixel / map_size,
            pixel % map_size
        )
    } else {
        "the towns and roads after the pixel grid".to_string()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
