//! Hostile input: truncations and single-byte corruptions of valid files return a typed error
//! (or load, where the corruption only reaches a skippable section) and never panic.

use islagen::blueprint::format::*;
use islagen::blueprint::{read_bytes, sample, write_v1, write_v2, ReadError};

fn valid_v2() -> Vec<u8> {
    let mut bytes = Vec::new();
    write_v2(&mut bytes, &sample::full(256, 11)).unwrap();
    bytes
}

/// Every cut point of `bytes`, except that inside a large pixel payload only every `stride`-th
/// cut and the 64 cuts at each end are taken: the reader checks a grid payload's whole length
/// once before reading it, so the cuts in between all take the same path, and reading every one
/// of a 590 kB file's prefixes would cost ~10^11 bytes of work.
fn cut_points(bytes: &[u8], grids: &[(usize, usize)], stride: usize) -> Vec<usize> {
    (0..=bytes.len())
        .filter(|&p| {
            grids
                .iter()
                .all(|&(start, end)| p < start + 64 || p + 64 > end || (p - start) % stride == 0)
        })
        .collect()
}

fn grid_payloads(bytes: &[u8]) -> Vec<(usize, usize)> {
    let loaded = read_bytes(bytes).unwrap();
    loaded
        .sections
        .iter()
        .filter(|s| [HGTS, BIOM, WBID, WSRF].contains(&s.tag))
        .map(|s| {
            (
                (s.offset + 12) as usize,
                (s.offset + 12 + s.length) as usize,
            )
        })
        .collect()
}

#[test]
fn every_v2_prefix_is_an_error_never_a_panic() {
    let bytes = valid_v2();
    let grids = grid_payloads(&bytes);
    let cuts = cut_points(&bytes, &grids, 509);
    assert!(cuts.len() > 3000, "{} cuts", cuts.len());
    for p in cuts {
        if p == bytes.len() {
            continue;
        }
        match read_bytes(&bytes[..p]) {
            Err(ReadError::Invalid { .. }) => {}
            Err(other) => panic!("prefix {p}: not a content error: {other}"),
            // a cut exactly on a section boundary after BIOM still loads: later sections are
            // optional, so a prefix there is a valid (smaller) file
            Ok(l) => assert!(
                l.sections
                    .iter()
                    .any(|s| s.offset + 12 + s.length == p as u64),
                "prefix {p} loaded but does not end on a section boundary"
            ),
        }
    }
}

#[test]
fn every_v1_prefix_is_an_error_never_a_panic() {
    let mut bytes = Vec::new();
    write_v1(&mut bytes, &sample::full(256, 12)).unwrap();
    let pixels = (12, 12 + 8 * 256 * 256);
    for p in cut_points(&bytes, &[pixels], 1021) {
        if p == bytes.len() {
            continue;
        }
        assert!(
            matches!(read_bytes(&bytes[..p]), Err(ReadError::Invalid { .. })),
            "v1 prefix {p} must be rejected"
        );
    }
}

#[test]
fn corrupting_any_header_byte_never_panics() {
    let bytes = valid_v2();
    let loaded = read_bytes(&bytes).unwrap();
    let mut positions: Vec<usize> = (0..8).collect();
    for s in &loaded.sections {
        positions.extend(s.offset as usize..s.offset as usize + 12);
    }
    let mut outcomes = [0usize; 2];
    for &i in &positions {
        for value in [
            0x00,
            0xFF,
            0x7F,
            0x80,
            bytes[i] ^ 0x01,
            bytes[i].wrapping_add(1),
            bytes[i] ^ 0x40,
        ] {
            if value == bytes[i] {
                continue;
            }
            let mut bad = bytes.clone();
            bad[i] = value;
            match read_bytes(&bad) {
                Ok(l) => {
                    // only possible when a non-mandatory tag became unknown (and was skipped)
                    assert!(
                        l.warnings.iter().any(|w| matches!(
                            w,
                            islagen::blueprint::LoadWarning::UnknownSection(_)
                        )),
                        "byte {i} := {value:#x} loaded silently"
                    );
                    outcomes[0] += 1;
                }
                Err(ReadError::Invalid { .. }) => outcomes[1] += 1,
                Err(other) => panic!("byte {i} := {value:#x}: {other}"),
            }
        }
    }
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
}

#[test]
fn corrupting_small_section_payloads_never_panics() {
    let bytes = valid_v2();
    let loaded = read_bytes(&bytes).unwrap();
    for s in loaded
        .sections
        .iter()
        .filter(|s| ![HGTS, BIOM, WBID, WSRF].contains(&s.tag))
    {
        let start = (s.offset + 12) as usize;
        for i in start..start + (s.length as usize).min(256) {
            for value in [0x00, 0xFF, 0x80, bytes[i] ^ 0x10] {
                let mut bad = bytes.clone();
                bad[i] = value;
                if let Err(ReadError::Io(e)) = read_bytes(&bad) {
                    panic!("{} byte {i}: {e}", s.tag);
                }
            }
        }
    }
}
