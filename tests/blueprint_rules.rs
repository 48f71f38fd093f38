//! The reader's rules, one crafted file per rule, each failing with that rule's typed error at
//! the right section and byte offset; plus the skips and warnings the contract allows.

use islagen::blueprint::format::*;
use islagen::blueprint::{
    read_bytes, sample, write_v2, LoadWarning, ReadError, Rule, SectionStatus,
};

/// Builds a v2 file section by section, remembering where each payload starts.
struct File {
    bytes: Vec<u8>,
}

impl File {
    fn v2() -> File {
        let mut bytes = V2_MAGIC.to_vec();
        bytes.extend_from_slice(&2u32.to_le_bytes());
        File { bytes }
    }

    /// Appends a section; returns the offset of its payload.
    fn section(&mut self, tag: Tag, payload: &[u8]) -> u64 {
        self.bytes.extend_from_slice(&tag.0.to_le_bytes());
        self.bytes
            .extend_from_slice(&(payload.len() as u64).to_le_bytes());
        let at = self.bytes.len() as u64;
        self.bytes.extend_from_slice(payload);
        at
    }

    fn pos(&self) -> u64 {
        self.bytes.len() as u64
    }
}

fn prms(map_size: i32) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&7i32.to_le_bytes());
    b.extend_from_slice(&map_size.to_le_bytes());
    for v in [64.0f32, 1.0, 10.0, 20.0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    put_dotnet_string(&mut b, "2026-11-29T00:00:00Z");
    put_dotnet_string(&mut b, "");
    b
}

const SIDE: usize = 256;
const N: usize = SIDE * SIDE;

/// PRMS + HGTS + BIOM: the smallest loadable file.
fn minimal() -> File {
    let mut f = File::v2();
    f.section(PRMS, &prms(SIDE as i32));
    f.section(HGTS, &vec![0u8; 4 * N]);
    f.section(BIOM, &vec![Biome::Grassland.ordinal(); N]);
    f
}

fn rejects(bytes: &[u8], rule: Rule, tag: Option<Tag>, offset: u64) -> ReadError {
    let err = read_bytes(bytes).expect_err("the file must be rejected");
    assert_eq!(err.rule(), Some(rule), "wrong rule: {err}");
    assert_eq!(err.tag(), tag, "wrong tag: {err}");
    assert_eq!(err.offset(), Some(offset), "wrong offset: {err}");
    err
}

fn i32s(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn minimal_file_loads_with_warnings_for_missing_town_and_roads() {
    let loaded = read_bytes(&minimal().bytes).unwrap();
    assert!(loaded.blueprint.towns.is_empty());
    let missing: Vec<Tag> = loaded
        .warnings
        .iter()
        .filter_map(|w| match w {
            LoadWarning::MissingSection(t) => Some(*t),
            _ => None,
        })
        .collect();
    assert_eq!(missing, [TOWN, RDHW, RDBR, RDRG, RDTL]);
    assert_eq!(loaded.blueprint.params.world_seed, 7);
}

#[test]
fn unknown_first_byte_is_rejected() {
    rejects(b"PK\x03\x04 not a blueprint", Rule::UnknownFormat, None, 0);
    rejects(b"", Rule::Truncated, None, 0);
}

#[test]
fn bad_magic_and_version_are_rejected() {
    let mut f = minimal();
    f.bytes[2] = b'X';
    let err = rejects(&f.bytes, Rule::BadMagic, None, 0);
    assert!(err.to_string().contains("ISXA"), "{err}");
    let mut f = minimal();
    f.bytes[4] = 3;
    rejects(&f.bytes, Rule::UnsupportedVersion, None, 4);
    rejects(b"IS", Rule::Truncated, None, 1);
}

#[test]
fn map_size_is_bounded_before_any_allocation() {
    for size in [255, 32769, -1, i32::MAX] {
        let mut f = File::v2();
        let at = f.section(PRMS, &prms(size));
        // a tiny file claiming a 2^31-pixel side must fail on the bound, not on allocation
        rejects(&f.bytes, Rule::MapSizeOutOfRange, Some(PRMS), at + 4);
    }
}

#[test]
fn params_must_be_first() {
    let mut f = File::v2();
    f.section(HGTS, &vec![0u8; 4 * N]);
    f.section(PRMS, &prms(SIDE as i32));
    rejects(&f.bytes, Rule::ParamsNotFirst, None, 8);
    // no sections at all: PRMS is missing
    rejects(&File::v2().bytes, Rule::MissingSection, Some(PRMS), 8);
}

#[test]
fn duplicate_tags_are_rejected() {
    let mut f = minimal();
    let at = f.pos();
    f.section(BIOM, &vec![0u8; N]);
    rejects(&f.bytes, Rule::DuplicateSection, Some(BIOM), at);
    let mut f = minimal();
    f.section(RDTL, &i32s(&[0]));
    let at = f.pos();
    f.section(RDTL, &i32s(&[0]));
    rejects(&f.bytes, Rule::DuplicateSection, Some(RDTL), at);
}

#[test]
fn declared_length_past_end_of_file_is_rejected() {
    let mut f = minimal();
    let frame = f.pos();
    f.section(TOWN, &i32s(&[0]));
    // claim more payload than remains: the offending value is the length field
    f.bytes[frame as usize + 4..frame as usize + 12].copy_from_slice(&u64::MAX.to_le_bytes());
    rejects(&f.bytes, Rule::Truncated, Some(TOWN), frame + 4);
    // a frame cut short
    let mut f = minimal();
    let at = f.pos();
    f.bytes.extend_from_slice(b"TOWN\x04\x00");
    rejects(&f.bytes, Rule::Truncated, None, at);
}

#[test]
fn sections_must_consume_exactly_their_length() {
    // PRMS with two extra bytes
    let mut f = File::v2();
    let mut p = prms(SIDE as i32);
    let end = p.len() as u64;
    p.extend_from_slice(&[0, 0]);
    let at = f.section(PRMS, &p);
    rejects(&f.bytes, Rule::LengthMismatch, Some(PRMS), at + end);
    // HGTS one pixel short
    let mut f = File::v2();
    f.section(PRMS, &prms(SIDE as i32));
    let frame = f.pos();
    f.section(HGTS, &vec![0u8; 4 * N - 4]);
    rejects(&f.bytes, Rule::LengthMismatch, Some(HGTS), frame + 4);
    // TOWN with trailing bytes
    let mut f = minimal();
    let at = f.section(TOWN, &[i32s(&[0]), vec![9]].concat());
    rejects(&f.bytes, Rule::LengthMismatch, Some(TOWN), at + 4);
    // TCRV version 5 with only the 50-byte base
    let mut f = minimal();
    let frame = f.pos();
    let mut body = 5u16.to_le_bytes().to_vec();
    body.resize(50, 0);
    f.section(TCRV, &body);
    rejects(&f.bytes, Rule::LengthMismatch, Some(TCRV), frame + 4);
}

#[test]
fn mandatory_sections_must_be_present() {
    let mut f = File::v2();
    f.section(PRMS, &prms(SIDE as i32));
    f.section(BIOM, &vec![0u8; N]);
    let len = f.pos();
    rejects(&f.bytes, Rule::MissingSection, Some(HGTS), len);
    let mut f = File::v2();
    f.section(PRMS, &prms(SIDE as i32));
    f.section(HGTS, &vec![0u8; 4 * N]);
    let len = f.pos();
    rejects(&f.bytes, Rule::MissingSection, Some(BIOM), len);
}

#[test]
fn biome_ordinals_are_range_checked() {
    let mut f = File::v2();
    f.section(PRMS, &prms(SIDE as i32));
    f.section(HGTS, &vec![0u8; 4 * N]);
    let mut biomes = vec![0u8; N];
    biomes[1234] = Biome::COUNT as u8;
    let at = f.section(BIOM, &biomes);
    rejects(&f.bytes, Rule::BiomeOutOfRange, Some(BIOM), at + 1234);
}

#[test]
fn town_tiers_and_flags_are_range_checked() {
    let town = |tier: u8, flag: u8| {
        let mut b = i32s(&[1]);
        b.extend_from_slice(&1.0f32.to_le_bytes());
        b.extend_from_slice(&2.0f32.to_le_bytes());
        b.extend_from_slice(&[tier, flag]);
        b
    };
    let mut f = minimal();
    let at = f.section(TOWN, &town(TownTier::COUNT as u8, 0));
    rejects(&f.bytes, Rule::TierOutOfRange, Some(TOWN), at + 12);
    let mut f = minimal();
    let at = f.section(TOWN, &town(0, 2));
    rejects(&f.bytes, Rule::InvalidValue, Some(TOWN), at + 13);
    let mut f = minimal();
    f.section(TOWN, &town(TownTier::Poi.ordinal(), 1));
    let loaded = read_bytes(&f.bytes).unwrap();
    assert!(loaded.blueprint.towns[0].is_highway_node);
}

#[test]
fn counts_are_checked_before_allocation() {
    let mut f = minimal();
    let at = f.section(TOWN, &i32s(&[-1]));
    rejects(&f.bytes, Rule::NegativeCount, Some(TOWN), at);
    let mut f = minimal();
    let at = f.section(TOWN, &i32s(&[i32::MAX]));
    rejects(&f.bytes, Rule::Truncated, Some(TOWN), at);
    let mut f = minimal();
    let at = f.section(RDHW, &i32s(&[1 << 30]));
    rejects(&f.bytes, Rule::Truncated, Some(RDHW), at);
    let mut f = minimal();
    let at = f.section(RDBR, &i32s(&[1, -5]));
    rejects(&f.bytes, Rule::NegativeCount, Some(RDBR), at + 4);
    let mut f = minimal();
    let at = f.section(RDRG, &i32s(&[1, 1_000_000, 0, 0]));
    rejects(&f.bytes, Rule::Truncated, Some(RDRG), at + 4);
    let mut f = minimal();
    let at = f.section(WBTB, &i32s(&[3]));
    rejects(&f.bytes, Rule::Truncated, Some(WBTB), at);
}

#[test]
fn water_body_enums_are_checked() {
    let body = |kind: u8, salinity: u8| {
        let mut b = i32s(&[1]);
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&[kind, salinity]);
        b.extend_from_slice(&[0u8; 16]);
        b
    };
    let mut f = minimal();
    let at = f.section(WBTB, &body(3, 1));
    rejects(&f.bytes, Rule::InvalidValue, Some(WBTB), at + 6);
    let mut f = minimal();
    let at = f.section(WBTB, &body(1, 2));
    rejects(&f.bytes, Rule::InvalidValue, Some(WBTB), at + 7);
    let mut f = minimal();
    f.section(WBTB, &body(2, 0));
    let loaded = read_bytes(&f.bytes).unwrap();
    assert_eq!(
        loaded.blueprint.water_bodies.unwrap()[0].kind,
        WaterBodyType::River
    );
    assert!(loaded.warnings.contains(&LoadWarning::PartialWater));
}

#[test]
fn prms_strings_are_checked() {
    let mut p = prms(SIDE as i32);
    let s_at = 24;
    p[s_at + 1] = 0xFF; // invalid UTF-8 inside GeneratedUtc
    let mut f = File::v2();
    let at = f.section(PRMS, &p);
    rejects(&f.bytes, Rule::InvalidString, Some(PRMS), at + s_at as u64);
    // a length prefix that never ends
    let mut p = prms(SIDE as i32)[..24].to_vec();
    p.extend_from_slice(&[0xFF; 6]);
    let mut f = File::v2();
    let at = f.section(PRMS, &p);
    rejects(&f.bytes, Rule::InvalidString, Some(PRMS), at + 24);
    // a string longer than its section
    let mut p = prms(SIDE as i32)[..24].to_vec();
    p.extend_from_slice(&[0x40, b'x']);
    let mut f = File::v2();
    let at = f.section(PRMS, &p);
    rejects(&f.bytes, Rule::Truncated, Some(PRMS), at + 24);
}

#[test]
fn erosion_crater_mode_is_checked() {
    let mut bp = sample::full(256, 1);
    bp.towns.clear();
    let mut bytes = Vec::new();
    write_v2(&mut bytes, &bp).unwrap();
    let loaded = read_bytes(&bytes).unwrap();
    let eros = loaded.sections.iter().find(|s| s.tag == EROS).unwrap();
    let mode_at = eros.offset + 12 + 66;
    bytes[mode_at as usize] = 2;
    rejects(&bytes, Rule::InvalidValue, Some(EROS), mode_at);
}

#[test]
fn unknown_tags_are_skipped_and_the_file_loads() {
    let mut f = minimal();
    let future = Tag::from_fourcc(*b"LAVA");
    f.section(future, &[1, 2, 3, 4, 5, 6, 7]);
    f.section(TOWN, &i32s(&[0]));
    let loaded = read_bytes(&f.bytes).unwrap();
    assert!(loaded
        .warnings
        .contains(&LoadWarning::UnknownSection(future)));
    let s = loaded.sections.iter().find(|s| s.tag == future).unwrap();
    assert_eq!((s.length, s.status), (7, SectionStatus::SkippedUnknownTag));
    // TOWN after the skipped section was parsed, so the skip landed on the next frame
    assert!(!loaded.warnings.contains(&LoadWarning::MissingSection(TOWN)));
}

#[test]
fn tcrv_versions_3_4_5_have_their_layouts() {
    for (version, len) in [(3u16, 50u64), (4, 86), (5, 95)] {
        let mut bp = sample::full(256, 9);
        bp.curve = Some(sample::curve(version));
        let mut bytes = Vec::new();
        write_v2(&mut bytes, &bp).unwrap();
        let loaded = read_bytes(&bytes).unwrap();
        let s = loaded.sections.iter().find(|s| s.tag == TCRV).unwrap();
        assert_eq!(s.length, len, "curveVersion {version}");
        let c = loaded.blueprint.curve.unwrap();
        assert_eq!(c, sample::curve(version));
        assert_eq!(c.modulation.is_some(), version >= 4);
        assert_eq!(c.preset.is_some(), version >= 5);
    }
}

#[test]
fn unknown_tdtl_and_eros_versions_are_skipped() {
    let mut f = minimal();
    let mut retired = 1u16.to_le_bytes().to_vec();
    retired.resize(38, 7);
    f.section(TDTL, &retired);
    let mut old = 1u16.to_le_bytes().to_vec();
    old.resize(58, 7);
    f.section(EROS, &old);
    f.section(TOWN, &i32s(&[0]));
    let loaded = read_bytes(&f.bytes).unwrap();
    assert_eq!(loaded.blueprint.detail, None);
    assert_eq!(loaded.blueprint.erosion, None);
    assert!(loaded.warnings.contains(&LoadWarning::UnknownVersion {
        tag: TDTL,
        version: 1
    }));
    assert!(loaded.warnings.contains(&LoadWarning::UnknownVersion {
        tag: EROS,
        version: 1
    }));
    assert!(!loaded.warnings.contains(&LoadWarning::MissingSection(TOWN)));

    let mut f = minimal();
    let mut future = 9u16.to_le_bytes().to_vec();
    future.resize(200, 0);
    f.section(EROS, &future);
    f.section(TDTL, &future);
    let loaded = read_bytes(&f.bytes).unwrap();
    assert_eq!(
        (loaded.blueprint.detail, loaded.blueprint.erosion),
        (None, None)
    );
}

#[test]
fn unknown_rivr_versions_are_skipped() {
    // a future riversVersion whose body is not even well-formed as v1, and no WBTB: the whole
    // section is skipped, so neither its contents nor the reach rule are looked at
    for version in [0u16, 2, 999] {
        let mut f = minimal();
        let mut body = version.to_le_bytes().to_vec();
        body.extend(i32s(&[-1, i32::MAX, 7]));
        f.section(RIVR, &body);
        f.section(TOWN, &i32s(&[0]));
        let loaded = read_bytes(&f.bytes).unwrap();
        assert_eq!(loaded.blueprint.rivers, None);
        assert!(loaded
            .warnings
            .contains(&LoadWarning::UnknownVersion { tag: RIVR, version }));
        let s = loaded.sections.iter().find(|s| s.tag == RIVR).unwrap();
        assert_eq!(s.status, SectionStatus::SkippedUnknownVersion(version));
        assert!(!loaded.warnings.contains(&LoadWarning::MissingSection(TOWN)));
    }
}

#[test]
fn rivr_is_read_from_a_crafted_file() {
    // WBTB: body 2 is a river reach; RIVR v1: one order-3 river on reach 2 with two points
    let mut wbtb = i32s(&[1]);
    wbtb.extend_from_slice(&2u16.to_le_bytes());
    wbtb.extend_from_slice(&[WaterBodyType::River as u8, 0]);
    wbtb.extend_from_slice(&[0u8; 16]);
    let mut rivr = RIVR_VERSION.to_le_bytes().to_vec();
    for v in [1.5f32, 2.0, 0.5] {
        rivr.extend_from_slice(&v.to_le_bytes());
    }
    rivr.extend(i32s(&[1]));
    rivr.push(3);
    rivr.extend_from_slice(&1u16.to_le_bytes());
    rivr.extend_from_slice(&2u16.to_le_bytes());
    rivr.extend(i32s(&[2]));
    for v in [0.0f32, 256.0, 5.0, 0.0, 10.5, 200.25, 7.5, 3.0] {
        rivr.extend_from_slice(&v.to_le_bytes());
    }
    assert_eq!(rivr.len() as u64, rivr_len([(1, 2)]));
    let mut f = minimal();
    // RIVR before WBTB: the reach rule is checked once every section is read
    f.section(RIVR, &rivr);
    f.section(WBTB, &wbtb);
    let loaded = read_bytes(&f.bytes).unwrap();
    let n = loaded.blueprint.rivers.unwrap();
    assert_eq!((n.catchment_km2, n.width_scale, n.density), (1.5, 2.0, 0.5));
    assert_eq!(n.rivers.len(), 1);
    let r = &n.rivers[0];
    assert_eq!((r.order, &r.reaches[..]), (3, &[2u16][..]));
    assert_eq!(
        (r.points[0].x, r.points[0].y),
        (0.0, 256.0),
        "both map edges are on the map"
    );
    assert_eq!((r.points[1].width_m, r.points[1].discharge_m3s), (7.5, 3.0));
}

#[test]
fn eros_v2_is_read_with_its_exclusion_factor() {
    let mut body = 2u16.to_le_bytes().to_vec();
    body.extend(i32s(&[1000, 64, 2, 5]));
    for i in 0..11 {
        body.extend_from_slice(&(i as f32).to_le_bytes());
    }
    assert_eq!(body.len() as u64, EROS_V2_LEN);
    let mut f = minimal();
    f.section(EROS, &body);
    let e = read_bytes(&f.bytes).unwrap().blueprint.erosion.unwrap();
    assert_eq!(e.version(), 2);
    assert_eq!(
        e.crater,
        islagen::blueprint::ErosionCrater::Exclusion { factor: 10.0 }
    );
    assert_eq!((e.droplet_count, e.dials.gravity), (1000, 9.0));
}

#[test]
fn v1_rules() {
    let v1 = |side: i32, pixels: &[u8], tail: &[u8]| {
        let mut b = Vec::new();
        put_dotnet_string(&mut b, V1_HEADER);
        b.extend_from_slice(&side.to_le_bytes());
        b.extend_from_slice(pixels);
        b.extend_from_slice(tail);
        b
    };
    let mut pixels = Vec::with_capacity(8 * N);
    for i in 0..N {
        pixels.extend_from_slice(&(i as f32).to_le_bytes());
        pixels.extend_from_slice(&((i % Biome::COUNT) as i32).to_le_bytes());
    }
    let empty_tail = i32s(&[0, 0, 0, 0, 0]);
    // trailing bytes after the trail block are ignored
    let ok = v1(256, &pixels, &[empty_tail.clone(), vec![1, 2, 3]].concat());
    let loaded = read_bytes(&ok).unwrap();
    assert_eq!(loaded.warnings, [LoadWarning::V1Deprecated]);
    assert_eq!(loaded.blueprint.heights[(0, 5)], 5.0);
    assert_eq!(
        loaded.blueprint.params,
        islagen::blueprint::Params::sentinel(256)
    );

    let mut bad = ok.clone();
    bad[3] = b'X';
    rejects(&bad, Rule::BadMagic, None, 1);
    rejects(&v1(100, &[], &[]), Rule::MapSizeOutOfRange, None, 8);
    rejects(&v1(256, &pixels[..100], &[]), Rule::Truncated, None, 12);
    let mut bad_biome = pixels.clone();
    bad_biome[8 * 77 + 4..8 * 77 + 8].copy_from_slice(&(-3i32).to_le_bytes());
    rejects(
        &v1(256, &bad_biome, &empty_tail),
        Rule::BiomeOutOfRange,
        None,
        12 + 8 * 77 + 4,
    );
    let town = [
        i32s(&[1]),
        1f32.to_le_bytes().to_vec(),
        1f32.to_le_bytes().to_vec(),
        i32s(&[7]),
    ]
    .concat();
    let at = 12 + 8 * N as u64 + 12;
    rejects(&v1(256, &pixels, &town), Rule::TierOutOfRange, None, at);
    // a road block cut short
    rejects(
        &v1(256, &pixels, &i32s(&[0, 1])),
        Rule::Truncated,
        None,
        12 + 8 * N as u64 + 4,
    );
}

#[test]
fn tcrv_versions_without_known_semantics_are_skipped() {
    for version in [0u16, 6, 999] {
        let mut f = minimal();
        let mut body = version.to_le_bytes().to_vec();
        body.resize(120, 0);
        f.section(TCRV, &body);
        f.section(TOWN, &i32s(&[0]));
        let loaded = read_bytes(&f.bytes).unwrap();
        assert_eq!(loaded.blueprint.curve, None);
        assert!(loaded
            .warnings
            .contains(&LoadWarning::UnknownVersion { tag: TCRV, version }));
        assert!(!loaded.warnings.contains(&LoadWarning::MissingSection(TOWN)));
    }
}

#[test]
fn road_sections_of_empty_paths_load_without_overallocation() {
    // 100 000 zero-point paths: 400 kB on disk; loads as exactly that many empty paths
    let n = 100_000;
    let mut payload = i32s(&[n]);
    payload.extend(std::iter::repeat_n(0u8, 4 * n as usize));
    let mut f = minimal();
    f.section(RDTL, &payload);
    let loaded = read_bytes(&f.bytes).unwrap();
    assert_eq!(loaded.blueprint.roads.trail.len(), n as usize);
}
