//! What each fuzz target does with its bytes, in one place: the libFuzzer targets under
//! `fuzz/` (nightly, `cargo fuzz run NAME`) and the corpus replay in `tests/fuzz_corpus.rs`
//! (stable, every `cargo test`) call these same functions, so a regression found by fuzzing is
//! caught by CI without libFuzzer.
//!
//! Each function feeds untrusted bytes to one parser and panics only when a parser breaks its
//! own promise: an accepted input must also survive the checks listed with it.

use std::collections::BTreeMap;

/// The `.dat` reader (v2 and v1). An accepted blueprint must round-trip.
pub fn dat(data: &[u8]) {
    if let Ok(loaded) = crate::blueprint::read_bytes(data) {
        crate::blueprint::roundtrip::roundtrip(&loaded).expect("an accepted blueprint round-trips");
    }
}

/// Island codes: the bytes as a code (text) and as the packed-int stream. An accepted stream
/// must re-encode to the same bytes.
pub fn island_code(data: &[u8]) {
    use crate::formats::island_code as ic;
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = ic::decode(text);
    }
    if let Ok(island) = ic::decode_stream(data) {
        let again = ic::encode_stream(&island);
        let back = ic::decode_stream(&again).expect("a re-encoded island decodes");
        assert_eq!(back, island, "decode → encode → decode keeps the island");
    }
}

/// Masks and heightmaps (PNG or TIFF). An accepted raster has a finite sample for every pixel,
/// and resampling stays within its samples' range.
pub fn raster(data: &[u8]) {
    use crate::formats::raster::Raster;
    if let Ok(r) = Raster::from_bytes(data, std::path::Path::new("fuzz")) {
        assert_eq!(r.values.len(), r.width * r.height, "a sample a pixel");
        let (lo, hi) = r
            .values
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
        assert!(lo.is_finite() && hi.is_finite(), "finite samples");
        for v in r.resample(8) {
            assert!((lo..=hi).contains(&v), "{v} outside {lo} ..= {hi}");
        }
    }
}

/// Splits a folder image into files: repeated `name NUL length(u32 LE) bytes`. Malformed
/// framing ends the image (the files so far are kept), so every input is some folder.
pub fn folder_image(data: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut rest = data;
    while let Some(nul) = rest.iter().position(|&b| b == 0) {
        let name = String::from_utf8_lossy(&rest[..nul]).into_owned();
        let Some(len) = rest.get(nul + 1..nul + 5) else {
            break;
        };
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let body = &rest[nul + 5..];
        let take = len.min(body.len());
        files.insert(name, body[..take].to_vec());
        rest = &body[take..];
    }
    files
}

/// The inverse of [`folder_image`], for building seed corpora.
pub fn to_folder_image(files: &BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in files {
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
    }
    out
}

/// The StarMade reader on a blueprint folder image. An accepted blueprint must write out.
pub fn starmade_folder(data: &[u8]) {
    use crate::formats::starmade;
    let files = folder_image(data);
    if let Ok(bp) = starmade::from_files(&files, "", "fuzz") {
        let _ = bp.element_map_mismatches();
        let _ = starmade::write_files(&bp);
    }
}

/// The StarMade reader on a `.sment` archive.
pub fn starmade_zip(data: &[u8]) {
    if let Ok(bp) = crate::formats::starmade::read_archive_bytes(data, "fuzz.sment") {
        let _ = bp.element_map_mismatches();
    }
}

/// structures.json. An accepted document's normal form must parse to itself.
pub fn structures(data: &[u8]) {
    use crate::formats::structures as st;
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(doc) = st::parse(text) {
        let normal = doc.to_json();
        let again = st::parse(&normal).expect("the normal form parses");
        assert_eq!(again.to_json(), normal, "normalising is idempotent");
    }
}

/// Town pins (GeoJSON or JSON). Accepted pins are on the map, within the count, with at most
/// one Capitol.
pub fn pins(data: &[u8]) {
    use crate::formats::pins;
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(list) = pins::parse(text) {
        assert!(list.len() <= pins::MAX_PINS);
        let capitols = list.iter().filter(|p| p.tier == crate::blueprint::TownTier::Capitol);
        assert!(capitols.count() <= 1);
        for p in &list {
            let [u, v] = p.normalised();
            assert!((0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&v), "{p:?} on the map");
        }
    }
}

/// The config loader.
pub fn config(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::config::Config::from_json(text, "fuzz");
    }
}
