//! Round trips through the real writer and reader: v2 and v1 with every section populated,
//! random blueprints (proptest), rivers (RIVR), the byte layout of small sections, and writer
//! refusals.

use islagen::blueprint::format::*;
use islagen::blueprint::roundtrip::{first_difference, roundtrip};
use islagen::blueprint::*;
use proptest::prelude::*;

fn v2_bytes(bp: &Blueprint) -> Vec<u8> {
    let mut out = Vec::new();
    let n = write_v2(&mut out, bp).unwrap();
    assert_eq!(n as usize, out.len());
    assert_eq!(n, write::v2_len(bp), "v2_len must predict the file size");
    out
}

#[test]
fn v2_round_trip_keeps_every_section() {
    let bp = sample::full(256, 42);
    let loaded = read_bytes(&v2_bytes(&bp)).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.format, Format::V2);
    assert_eq!(loaded.blueprint, bp);
    assert_eq!(first_difference(&bp, &loaded.blueprint), None);
    let tags: Vec<Tag> = loaded.sections.iter().map(|s| s.tag).collect();
    assert_eq!(tags, REGISTERED_TAGS, "the writer emits the table order");
    assert!(roundtrip(&loaded).is_ok());
}

#[test]
fn v1_round_trip_keeps_what_v1_carries() {
    let bp = sample::full(256, 7);
    let mut bytes = Vec::new();
    write_v1(&mut bytes, &bp).unwrap();
    assert_eq!(bytes[0], V1_FIRST_BYTE);
    let n = 256 * 256;
    let expected_len = 8
        + 4
        + 8 * n
        + 4
        + 12 * bp.towns.len()
        + RoadTier::ALL
            .iter()
            .map(|t| {
                4 + bp
                    .roads
                    .tier(*t)
                    .iter()
                    .map(|p| 4 + 8 * p.len())
                    .sum::<usize>()
            })
            .sum::<usize>();
    assert_eq!(bytes.len(), expected_len);
    let loaded = read_bytes(&bytes).unwrap();
    assert_eq!(loaded.format, Format::V1);
    let got = &loaded.blueprint;
    assert_eq!(
        got.params,
        Params::sentinel(256),
        "v1 carries no params: sentinel values"
    );
    assert_eq!(got.heights, bp.heights);
    assert_eq!(got.biomes, bp.biomes);
    assert_eq!(got.roads, bp.roads);
    assert_eq!(got.towns.len(), bp.towns.len());
    for (a, b) in got.towns.iter().zip(&bp.towns) {
        assert_eq!((a.x, a.y, a.tier), (b.x, b.y, b.tier));
        assert!(!a.is_highway_node, "v1 drops the highway-node flag");
    }
    assert_eq!((got.curve, got.detail, got.erosion), (None, None, None));
    assert!(got.water_ids.is_none());
    assert!(got.rivers.is_none(), "v1 has no rivers");
    // the v1 source re-encodes as v2 with sentinel params and survives the harness
    let report = roundtrip(&loaded).unwrap();
    let v2 = read_bytes(&v2_bytes(got)).unwrap();
    assert_eq!(v2.blueprint.params.world_seed, 0);
    assert_eq!(v2.blueprint.params.crater_radius, -1.0);
    assert!(report.v2_bytes > 0);
}

#[test]
fn small_sections_have_the_contract_bytes() {
    let mut bp = sample::full(256, 3);
    bp.params.generated_utc = "T".into();
    bp.params.generator_git_hash = String::new();
    bp.towns = vec![Town {
        x: 1.5,
        y: -2.0,
        tier: TownTier::Village,
        is_highway_node: true,
    }];
    bp.roads = Roads {
        highway: vec![vec![[3.0, 4.0]]],
        ..Roads::default()
    };
    let bytes = v2_bytes(&bp);
    let mut expected = b"ISLA\x02\x00\x00\x00PRMS".to_vec();
    expected.extend_from_slice(&27u64.to_le_bytes());
    expected.extend_from_slice(&3i32.to_le_bytes());
    expected.extend_from_slice(&256i32.to_le_bytes());
    for v in [64.0f32, 1.0, 128.0, 256.0 / 9.0] {
        expected.extend_from_slice(&v.to_le_bytes());
    }
    expected.extend_from_slice(&[1, b'T', 0]);
    expected.extend_from_slice(b"HGTS");
    expected.extend_from_slice(&(4u64 * 65536).to_le_bytes());
    assert_eq!(&bytes[..expected.len()], &expected[..]);

    let loaded = read_bytes(&bytes).unwrap();
    let at = |tag: Tag| {
        loaded
            .sections
            .iter()
            .find(|s| s.tag == tag)
            .unwrap()
            .offset as usize
    };
    let town = at(TOWN);
    let mut t = b"TOWN".to_vec();
    t.extend_from_slice(&14u64.to_le_bytes());
    t.extend_from_slice(&1i32.to_le_bytes());
    t.extend_from_slice(&1.5f32.to_le_bytes());
    t.extend_from_slice(&(-2.0f32).to_le_bytes());
    t.extend_from_slice(&[2, 1]);
    assert_eq!(&bytes[town..town + t.len()], &t[..]);
    let rdhw = at(RDHW);
    let mut r = b"RDHW".to_vec();
    r.extend_from_slice(&16u64.to_le_bytes());
    r.extend_from_slice(&1i32.to_le_bytes());
    r.extend_from_slice(&1i32.to_le_bytes());
    r.extend_from_slice(&3.0f32.to_le_bytes());
    r.extend_from_slice(&4.0f32.to_le_bytes());
    assert_eq!(&bytes[rdhw..rdhw + r.len()], &r[..]);
    // BIOM is one byte per pixel holding the ordinal, X outer / Y inner
    let biom = at(BIOM) + 12;
    assert_eq!(bytes[biom + 256 * 2 + 5], bp.biomes[(2, 5)].ordinal());
    let hgts = at(HGTS) + 12 + 4 * (256 * 3 + 1);
    assert_eq!(&bytes[hgts..hgts + 4], &bp.heights[(3, 1)].to_le_bytes());
    // RIVR: header, then each river's order, reaches and points, as the layout says
    let rivr = at(RIVR);
    let n = bp.rivers.as_ref().unwrap();
    let mut r = b"RIVR".to_vec();
    let len = rivr_len(
        n.rivers
            .iter()
            .map(|r| (r.reaches.len() as u64, r.points.len() as u64)),
    );
    r.extend_from_slice(&len.to_le_bytes());
    r.extend_from_slice(&1u16.to_le_bytes());
    for v in [n.catchment_km2, n.width_scale, n.density] {
        r.extend_from_slice(&v.to_le_bytes());
    }
    r.extend_from_slice(&(n.rivers.len() as i32).to_le_bytes());
    for river in &n.rivers {
        r.push(river.order);
        r.extend_from_slice(&(river.reaches.len() as u16).to_le_bytes());
        river
            .reaches
            .iter()
            .for_each(|id| r.extend_from_slice(&id.to_le_bytes()));
        r.extend_from_slice(&(river.points.len() as i32).to_le_bytes());
        for p in &river.points {
            for v in [p.x, p.y, p.width_m, p.discharge_m3s] {
                r.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    assert_eq!(r.len() as u64, 12 + len);
    assert_eq!(&bytes[rivr..rivr + r.len()], &r[..]);
    // the WSRF sentinel agrees with WBID
    let surf = loaded.blueprint.water_surface_grid().unwrap().into_owned();
    let ids = loaded.blueprint.water_ids.unwrap();
    assert!(ids
        .iter()
        .zip(surf.iter())
        .all(|(&i, &s)| (i == 0) == (s == WSRF_NO_WATER)));
}

#[test]
fn writer_refuses_what_the_reader_would_reject() {
    let mut bp = sample::full(256, 1);
    bp.heights = ndarray::Array2::zeros((256, 255));
    assert!(matches!(
        write_v2(&mut Vec::new(), &bp),
        Err(WriteError::GridShape { .. })
    ));
    let mut bp = sample::full(256, 1);
    bp.water_surface = Some(islagen::blueprint::WaterSurface::Grid(
        ndarray::Array2::zeros((10, 10)),
    ));
    let mut out = Vec::new();
    assert!(matches!(
        write_v1(&mut out, &bp),
        Err(WriteError::GridShape { .. })
    ));
    assert!(
        out.is_empty(),
        "nothing is written before the model is checked"
    );
    let mut bp = sample::full(256, 1);
    bp.params.map_size = 128;
    assert!(matches!(
        write_v2(&mut Vec::new(), &bp),
        Err(WriteError::MapSizeOutOfRange(128))
    ));
    let mut bp = sample::full(256, 1);
    bp.curve = Some(sample::curve(4));
    bp.curve.as_mut().unwrap().preset = Some(Default::default());
    assert!(matches!(
        write_v2(&mut Vec::new(), &bp),
        Err(WriteError::CurveLayout { version: 4, .. })
    ));
    let mut bp = sample::full(256, 1);
    bp.curve = Some(sample::curve(5));
    bp.curve.as_mut().unwrap().modulation = None;
    assert!(matches!(
        write_v2(&mut Vec::new(), &bp),
        Err(WriteError::CurveLayout { version: 5, .. })
    ));
    let mut bp = sample::full(256, 1);
    bp.curve = Some(sample::curve(6));
    assert!(matches!(
        write_v2(&mut Vec::new(), &bp),
        Err(WriteError::CurveLayout { version: 6, .. })
    ));
    let mut bp = sample::full(256, 1);
    bp.params.generated_utc = "x".repeat(5000);
    assert!(matches!(
        write_v2(&mut Vec::new(), &bp),
        Err(WriteError::StringTooLong { .. })
    ));
}

#[test]
fn writer_refuses_rivers_the_reader_would_reject() {
    use islagen::blueprint::error::RiverProblem;
    let refused = |edit: &dyn Fn(&mut RiverNetwork)| {
        let mut bp = sample::full(256, 1);
        edit(bp.rivers.as_mut().unwrap());
        let mut out = Vec::new();
        let err = write_v2(&mut out, &bp).expect_err("the writer must refuse");
        assert!(
            out.is_empty(),
            "nothing is written before the model is checked"
        );
        err
    };
    let problem = |err: WriteError| match err {
        WriteError::InvalidRiver { problem, .. } => problem,
        other => panic!("not a river error: {other}"),
    };
    assert_eq!(
        problem(refused(&|n| n.rivers[1].order = 0)),
        RiverProblem::OrderZero
    );
    assert_eq!(
        problem(refused(&|n| n.rivers[0].points[3].width_m = f32::NAN)),
        RiverProblem::NonFinite
    );
    assert_eq!(
        problem(refused(&|n| n.rivers[0].points[0].discharge_m3s = -1.0)),
        RiverProblem::Negative
    );
    assert_eq!(
        problem(refused(&|n| n.rivers[2].points[1].y = 256.01)),
        RiverProblem::OutOfMap
    );
    assert_eq!(
        problem(refused(&|n| n.rivers[0].points[2].width_m = 1e30)),
        RiverProblem::TooWide
    );
    assert_eq!(
        problem(refused(&|n| n.rivers[0].reaches.push(2))),
        RiverProblem::UnknownReach(2),
        "body 2 is a lake"
    );
    let err = refused(&|n| n.rivers[1].reaches = vec![5; 1 << 16]);
    assert!(
        matches!(
            err,
            WriteError::TooManyReaches {
                river: 1,
                len: 65536
            }
        ),
        "{err}"
    );
    let mut bp = sample::full(256, 1);
    bp.water_bodies = None;
    assert!(matches!(
        write_v2(&mut Vec::new(), &bp),
        Err(WriteError::RiversWithoutWaterTable)
    ));
    let mut bp = sample::full(256, 1);
    let err = write_v2(&mut Vec::new(), &{
        bp.rivers.as_mut().unwrap().rivers[0].points[2].x = -3.0;
        bp
    })
    .unwrap_err();
    assert!(err.to_string().contains("river 0 point 2"), "{err}");
}

#[test]
fn rivers_round_trip_through_v2() {
    let bp = sample::full(256, 8);
    let n = bp.rivers.as_ref().expect("the sample has rivers");
    assert!(n.rivers.len() >= 2 && n.rivers.iter().any(|r| !r.reaches.is_empty()));
    let loaded = read_bytes(&v2_bytes(&bp)).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.blueprint.rivers, bp.rivers);
    assert!(roundtrip(&loaded).is_ok());

    // edges of what the rules allow: both map edges, zero and −0 widths, empty rivers, order 255
    let mut edge = bp.clone();
    let n = edge.rivers.as_mut().unwrap();
    n.rivers[0].points[0] = RiverPoint {
        x: 0.0,
        y: 256.0,
        width_m: -0.0,
        discharge_m3s: 0.0,
    };
    n.rivers.push(River {
        order: 255,
        reaches: Vec::new(),
        points: Vec::new(),
    });
    n.catchment_km2 = f32::from_bits(0x7FC0_1234); // header fields are metadata, kept bitwise
    let loaded = read_bytes(&v2_bytes(&edge)).unwrap();
    assert_eq!(first_difference(&edge, &loaded.blueprint), None);
    let got = loaded.blueprint.rivers.as_ref().unwrap();
    assert_eq!(
        got.rivers[0].points[0].width_m.to_bits(),
        (-0.0f32).to_bits()
    );
    assert_eq!(got.catchment_km2.to_bits(), 0x7FC0_1234);

    // an empty network is still a section, and its absence is none
    let mut empty = bp.clone();
    empty.rivers.as_mut().unwrap().rivers.clear();
    let loaded = read_bytes(&v2_bytes(&empty)).unwrap();
    assert_eq!(loaded.blueprint.rivers.unwrap().rivers.len(), 0);
    let mut none = bp.clone();
    none.rivers = None;
    let loaded = read_bytes(&v2_bytes(&none)).unwrap();
    assert!(loaded.sections.iter().all(|s| s.tag != RIVR));
    assert_eq!(loaded.blueprint.rivers, None);

    // the harness notices a changed river point
    let mut moved = bp.clone();
    moved.rivers.as_mut().unwrap().rivers[1].points[0].x += 1.0;
    assert!(first_difference(&bp, &moved).unwrap().contains("RIVR"));
    assert!(first_difference(&bp, &none).unwrap().contains("RIVR"));
}

#[test]
fn files_are_written_atomically_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let bp = sample::full(256, 5);
    let v2 = dir.path().join("MapData_Seed_5.dat");
    let v1 = dir.path().join("MapData_Seed_5_v1.dat");
    let n = write_v2_file(&v2, &bp).unwrap();
    write_v1_file(&v1, &bp).unwrap();
    assert_eq!(std::fs::metadata(&v2).unwrap().len(), n);
    assert_eq!(read_file(&v2).unwrap().blueprint, bp);
    assert_eq!(read_file(&v1).unwrap().blueprint.heights, bp.heights);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        names.len(),
        2,
        "no temporary file is left behind: {names:?}"
    );
    // a refused model leaves no file under the final name
    let mut bad = bp.clone();
    bad.biomes = ndarray::Array2::from_elem((3, 3), Biome::Ocean);
    let path = dir.path().join("bad.dat");
    assert!(write_v2_file(&path, &bad).is_err());
    assert!(!path.exists());
}

fn finite() -> impl Strategy<Value = f32> {
    prop_oneof![
        -1.0e6f32..1.0e6,
        Just(0.0),
        Just(-0.0),
        Just(f32::MIN_POSITIVE)
    ]
}

prop_compose! {
    fn arb_blueprint()(
        seed in any::<i32>(),
        salt in any::<u32>(),
        towns in prop::collection::vec((finite(), finite(), 0..TownTier::COUNT, any::<bool>()), 0..20),
        roads in prop::collection::vec(prop::collection::vec(prop::collection::vec((finite(), finite()), 0..12), 0..5), 4),
        curve_version in prop::option::of(1u16..=5),
        detail in any::<bool>(),
        erosion in prop::option::of(any::<bool>()),
        water in any::<bool>(),
        utc in "[ -~]{0,40}",
        hash in "[0-9a-f]{0,12}|ünï©ødé",
        heights_bits in any::<u32>(),
        rivers in prop::option::of(prop::collection::vec((1u8..=255, prop::collection::vec(4u16..=5, 0..3), prop::collection::vec((0.0f32..=256.0, 0.0f32..=256.0, 0.0f32..=MAX_RIVER_WIDTH_M, 0.0f32..1.0e6), 0..8)), 0..6)),
    ) -> Blueprint {
        let mut bp = sample::full(256, salt);
        bp.params.world_seed = seed;
        bp.params.generated_utc = utc;
        bp.params.generator_git_hash = hash;
        bp.heights[(17, 200)] = f32::from_bits(heights_bits); // any bit pattern, NaN included
        bp.towns = towns.into_iter().map(|(x, y, t, h)| Town { x, y, tier: TownTier::ALL[t], is_highway_node: h }).collect();
        for (tier, paths) in RoadTier::ALL.iter().zip(roads) {
            *bp.roads.tier_mut(*tier) = paths.into_iter().map(|p| p.into_iter().map(|(x, y)| [x, y]).collect()).collect();
        }
        bp.curve = curve_version.map(sample::curve);
        if !detail { bp.detail = None; }
        match erosion {
            None => bp.erosion = None,
            Some(true) => {}
            Some(false) => bp.erosion.as_mut().unwrap().crater = ErosionCrater::Exclusion { factor: 1.2 },
        }
        match rivers {
            None => bp.rivers = None,
            Some(rivers) => {
                bp.rivers.as_mut().unwrap().rivers = rivers.into_iter().map(|(order, reaches, points)| River {
                    order,
                    reaches,
                    points: points.into_iter().map(|(x, y, width_m, discharge_m3s)| RiverPoint { x, y, width_m, discharge_m3s }).collect(),
                }).collect();
            }
        }
        if !water {
            bp.water_ids = None;
            bp.water_bodies = None;
            bp.water_surface = None;
            bp.rivers = None; // RIVR's reaches need WBTB
        }
        bp
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_blueprints_round_trip_through_v2(bp in arb_blueprint()) {
        let loaded = read_bytes(&v2_bytes(&bp)).unwrap();
        prop_assert_eq!(first_difference(&bp, &loaded.blueprint), None);
        prop_assert_eq!(&loaded.blueprint.params, &bp.params);
    }

    #[test]
    fn random_blueprints_round_trip_through_v1(bp in arb_blueprint()) {
        let mut bytes = Vec::new();
        write_v1(&mut bytes, &bp).unwrap();
        let got = read_bytes(&bytes).unwrap().blueprint;
        prop_assert!(got.heights.iter().zip(bp.heights.iter()).all(|(a, b)| a.to_bits() == b.to_bits()));
        prop_assert_eq!(&got.biomes, &bp.biomes);
        prop_assert_eq!(got.towns.len(), bp.towns.len());
        let mut expected = bp.clone();
        expected.params = Params::sentinel(256);
        expected.towns.iter_mut().for_each(|t| t.is_highway_node = false);
        expected.curve = None;
        expected.detail = None;
        expected.erosion = None;
        expected.water_ids = None;
        expected.water_bodies = None;
        expected.water_surface = None;
        expected.rivers = None;
        expected.shape.clear();
        prop_assert_eq!(first_difference(&expected, &got), None);
    }
}

#[test]
fn harness_sees_a_nan_payload_change_in_a_record() {
    let mut a = sample::full(256, 1);
    a.towns[0].x = f32::from_bits(0x7FC0_0001);
    let mut b = a.clone();
    b.towns[0].x = f32::from_bits(0x7FC0_0002);
    assert!(first_difference(&a, &b).unwrap().contains("TOWN"));
    b.towns[0].x = a.towns[0].x;
    b.detail.as_mut().unwrap().edge_amp_m = -0.0;
    a.detail.as_mut().unwrap().edge_amp_m = 0.0;
    assert!(first_difference(&a, &b).unwrap().contains("TDTL"));
}
