//! Hostile input: truncations and single-byte corruptions of valid files return a typed error
//! (or load, where the corruption only reaches a skippable section) and never panic; and one
//! corruption per RIVR rule, each failing with that rule at RIVR and the offending byte.

use islagen::blueprint::format::*;
use islagen::blueprint::{read_bytes, sample, write_v1, write_v2, LoadWarning, ReadError, Rule};

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

/// The valid sample file and the offset of its RIVR payload. The sample's first river has one
/// reach and at least one point, so the payload begins (offsets from its start):
/// 0 riversVersion · 2 catchmentKm2 · 6 widthScale · 10 density · 14 riverCount ·
/// 18 order · 19 reachCount · 21 reachId · 23 pointCount · 27 x · 31 y · 35 widthM · 39 dischargeM3s
fn rivr_file() -> (Vec<u8>, usize, usize) {
    let bytes = valid_v2();
    let loaded = read_bytes(&bytes).unwrap();
    let rivers = loaded
        .blueprint
        .rivers
        .as_ref()
        .expect("the sample has rivers");
    assert_eq!(rivers.rivers[0].reaches.len(), 1);
    assert!(!rivers.rivers[0].points.is_empty());
    let s = loaded.sections.iter().find(|s| s.tag == RIVR).unwrap();
    (bytes, s.offset as usize, s.offset as usize + 12)
}

fn put(bytes: &mut [u8], at: usize, value: &[u8]) {
    bytes[at..at + value.len()].copy_from_slice(value);
}

fn rejected_at(bytes: &[u8], rule: Rule, offset: usize) {
    let err = read_bytes(bytes).expect_err("the file must be rejected");
    assert_eq!(err.rule(), Some(rule), "wrong rule: {err}");
    assert_eq!(err.tag(), Some(RIVR), "wrong tag: {err}");
    assert_eq!(err.offset(), Some(offset as u64), "wrong offset: {err}");
}

#[test]
fn rivr_truncated_payload_is_rejected() {
    // two rivers, the first of one point (ending at 43), and the section declared to end one
    // byte into the second river's reach count: every count fits, the u16 does not
    let (mut bytes, frame, p) = rivr_file();
    put(&mut bytes, p + 14, &2i32.to_le_bytes());
    put(&mut bytes, p + 23, &1i32.to_le_bytes());
    bytes[p + 43] = 1;
    put(&mut bytes, frame + 4, &45u64.to_le_bytes());
    rejected_at(&bytes, Rule::Truncated, p + 44);
}

#[test]
fn rivr_counts_past_the_end_are_rejected_before_allocation() {
    for (at, count) in [
        (14, &i32::MAX.to_le_bytes()[..]),
        (23, &(1i32 << 28).to_le_bytes()),
    ] {
        let (mut bytes, _, p) = rivr_file();
        put(&mut bytes, p + at, count);
        rejected_at(&bytes, Rule::Truncated, p + at);
    }
    let (mut bytes, _, p) = rivr_file();
    put(&mut bytes, p + 19, &u16::MAX.to_le_bytes());
    rejected_at(&bytes, Rule::Truncated, p + 19);
    let (mut bytes, _, p) = rivr_file();
    put(&mut bytes, p + 14, &(-2i32).to_le_bytes());
    rejected_at(&bytes, Rule::NegativeCount, p + 14);
}

#[test]
fn rivr_non_finite_values_are_rejected() {
    for (at, v) in [(35, f32::NAN), (27, f32::INFINITY), (39, f32::NEG_INFINITY)] {
        let (mut bytes, _, p) = rivr_file();
        put(&mut bytes, p + at, &v.to_le_bytes());
        rejected_at(&bytes, Rule::NonFinite, p + at);
    }
}

#[test]
fn rivr_negative_width_or_discharge_is_rejected() {
    for at in [35, 39] {
        let (mut bytes, _, p) = rivr_file();
        put(&mut bytes, p + at, &(-0.5f32).to_le_bytes());
        rejected_at(&bytes, Rule::NegativeValue, p + at);
    }
}

/// A width of 1e30 would make every river tile paint in full: widths stop at the format's most,
/// and the error names the river, its reaches and the point.
#[test]
fn rivr_width_over_the_format_most_is_rejected_naming_the_reach() {
    let (mut bytes, _, p) = rivr_file();
    put(
        &mut bytes,
        p + 35,
        &islagen::blueprint::format::MAX_RIVER_WIDTH_M.to_le_bytes(),
    );
    read_bytes(&bytes).expect("the widest allowed width reads");
    put(&mut bytes, p + 35, &1e30f32.to_le_bytes());
    rejected_at(&bytes, Rule::WidthOutOfRange, p + 35);
    let text = read_bytes(&bytes).unwrap_err().to_string();
    assert!(
        text.contains("river 0 (reaches [") && text.contains("point 0"),
        "{text}"
    );
}

#[test]
fn rivr_coordinates_off_the_map_are_rejected() {
    for (at, v) in [(27, 256.5f32), (31, -0.25)] {
        let (mut bytes, _, p) = rivr_file();
        put(&mut bytes, p + at, &v.to_le_bytes());
        rejected_at(&bytes, Rule::CoordinateOutOfRange, p + at);
    }
}

#[test]
fn rivr_order_zero_is_rejected() {
    let (mut bytes, _, p) = rivr_file();
    bytes[p + 18] = 0;
    rejected_at(&bytes, Rule::InvalidOrder, p + 18);
}

#[test]
fn rivr_reach_ids_must_be_wbtb_river_bodies() {
    // 3 is a lake in the sample's WBTB, 999 is no body at all
    for id in [3u16, 999] {
        let (mut bytes, _, p) = rivr_file();
        put(&mut bytes, p + 21, &id.to_le_bytes());
        rejected_at(&bytes, Rule::UnknownReach, p + 21);
    }
    // WBTB renamed to an unknown tag: skipped, so RIVR's reaches refer to nothing
    let (mut bytes, frame, _) = rivr_file();
    let wbtb = read_bytes(&bytes)
        .unwrap()
        .sections
        .iter()
        .find(|s| s.tag == WBTB)
        .unwrap()
        .offset as usize;
    put(&mut bytes, wbtb, b"WBTX");
    rejected_at(&bytes, Rule::MissingReferencedSection, frame);
}

#[test]
fn rivr_of_an_unknown_version_is_skipped_whole() {
    let (mut bytes, _, p) = rivr_file();
    put(&mut bytes, p, &2u16.to_le_bytes());
    bytes[p + 18] = 0; // would break a v1 rule; a v2 body is not looked at
    let loaded = read_bytes(&bytes).unwrap();
    assert_eq!(loaded.blueprint.rivers, None);
    assert!(loaded.warnings.contains(&LoadWarning::UnknownVersion {
        tag: RIVR,
        version: 2
    }));
}
