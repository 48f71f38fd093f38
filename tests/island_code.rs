//! Island codes: round trips of random islands, every hostile case, and an exported world.

use islagen::config::Config;
use islagen::formats::island_code::{
    self as ic, export::island_from_world, Building, Ground, InnerCliff, Island, IslandCodeError,
    IslandJson, Nature,
};
use islagen::pipeline;
use islagen::progress::Progress;
use proptest::prelude::*;

fn building() -> impl Strategy<Value = Building> {
    (
        any::<i32>(),
        any::<i32>(),
        any::<i32>(),
        0..4i32,
        0..2i32,
        any::<i32>(),
        proptest::option::of(any::<u64>()),
        any::<i32>(),
    )
        .prop_map(
            |(type_id, x, y, orient, mirror, health, disaster, turn)| Building {
                type_id,
                x,
                y,
                orient,
                mirror,
                health,
                disaster,
                turn,
            },
        )
}

fn island() -> impl Strategy<Value = Island> {
    (1usize..24).prop_flat_map(|side| {
        let n = side * side;
        (
            proptest::collection::vec(building(), 0..4),
            proptest::collection::vec(building(), 0..3),
            // Runs of tiles, so the grids have the long runs real islands have.
            proptest::collection::vec((0..Ground::ALL.len(), 1usize..40), 1..20),
            proptest::collection::vec(0..Nature::ALL.len(), n..=n),
            proptest::collection::vec(
                (
                    any::<i32>(),
                    any::<i32>(),
                    any::<i32>(),
                    any::<i32>(),
                    any::<i32>(),
                    0..4i32,
                    0..2i32,
                ),
                0..3,
            ),
        )
            .prop_map(move |(buildings, remains, ground_runs, nature, cliffs)| {
                let ground: Vec<Ground> = ground_runs
                    .iter()
                    .flat_map(|&(g, len)| std::iter::repeat_n(Ground::ALL[g], len))
                    .cycle()
                    .take(n)
                    .collect();
                Island {
                    buildings,
                    remains,
                    side,
                    ground,
                    nature: nature.into_iter().map(|k| Nature::ALL[k]).collect(),
                    inner_cliffs: cliffs
                        .into_iter()
                        .map(|(c, a, b, x, y, orient, mirror)| InnerCliff {
                            c,
                            a,
                            b,
                            x,
                            y,
                            orient,
                            mirror,
                        })
                        .collect(),
                }
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn random_islands_round_trip(island in island()) {
        let stream = ic::encode_stream(&island);
        let decoded = ic::decode_stream(&stream).unwrap();
        prop_assert_eq!(&decoded, &island);
        // decode → encode reproduces the packed-int stream byte for byte.
        prop_assert_eq!(ic::encode_stream(&decoded), stream);
        // Through base64 and raw DEFLATE, and through the JSON form.
        prop_assert_eq!(ic::decode(&ic::encode(&island)).unwrap(), island.clone());
        let json: IslandJson = serde_json::from_str(&serde_json::to_string(&IslandJson::from(&island)).unwrap()).unwrap();
        prop_assert_eq!(json.to_island().unwrap(), island);
    }
}

/// A stream from packed values, for hand-made hostile cases.
fn stream(i32s: &[i32]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in i32s {
        ic::write_i32(&mut out, *v);
    }
    out
}

fn invalid(result: Result<Island, IslandCodeError>, what: &str) {
    match result {
        Err(IslandCodeError::Invalid { what: w, .. }) => {
            assert!(w.contains(what), "{w} for {what}")
        }
        other => panic!("expected an invalid {what}, got {other:?}"),
    }
}

#[test]
fn hostile_codes_get_typed_errors() {
    assert!(matches!(
        ic::decode("not base64 !!"),
        Err(IslandCodeError::Base64(_))
    ));
    assert!(matches!(
        ic::decode("AAAA"),
        Err(IslandCodeError::Deflate(_) | IslandCodeError::Truncated { .. })
    ));
    // A DEFLATE bomb: 80 MiB of zeros compress to ~80 KiB.
    let bomb = ic::pack(&vec![0u8; 80 << 20]);
    assert!(bomb.len() < 200_000);
    assert_eq!(ic::decode(&bomb), Err(IslandCodeError::TooLarge));
    // A truncated varint.
    assert!(matches!(
        ic::decode_stream(&[0xF9, 0x01]),
        Err(IslandCodeError::Truncated { .. })
    ));
    // Counts larger than the stream could hold.
    invalid(
        ic::decode_stream(&stream(&[1_000_000, 1, 2])),
        "building count",
    );
    invalid(ic::decode_stream(&stream(&[-1])), "building count");
    // A totalLength that is not a square, a side over the limit, a run past the end, a value
    // with no tile.
    invalid(ic::decode_stream(&stream(&[0, 0, 5, 5, 2])), "ground tiles");
    invalid(
        ic::decode_stream(&stream(&[0, 0, 5000 * 5000, 1, 2])),
        "ground tiles",
    );
    invalid(ic::decode_stream(&stream(&[0, 0, 4, 5, 2])), "ground tiles");
    invalid(ic::decode_stream(&stream(&[0, 0, 4, 4, 9])), "ground tiles");
    invalid(
        ic::decode_stream(&stream(&[0, 0, 4, 4, 2, 4, 4, 6])),
        "nature tiles",
    );
    invalid(
        ic::decode_stream(&stream(&[0, 0, 4, 4, 2, 9, 9, -1])),
        "nature tiles",
    );
    // A zigzag value outside i32.
    let mut big = Vec::new();
    ic::write_u64(&mut big, 1 << 40);
    invalid(ic::decode_stream(&big), "building count");
    // Bytes after the island.
    let mut trailing = stream(&[0, 0, 1, 1, 2, 1, 1, -1, 0]);
    assert!(ic::decode_stream(&trailing).is_ok());
    trailing.push(0);
    assert_eq!(
        ic::decode_stream(&trailing),
        Err(IslandCodeError::Trailing(1))
    );
}

#[test]
fn an_exported_world_decodes_back_to_its_grid() {
    let mut c = Config::from_json("{}", "defaults").unwrap().config;
    c.map_size = 512;
    c.skip_roads = true;
    let world = pipeline::generate(&c, 42, &Progress::hidden()).unwrap();
    let island = island_from_world(&world.blueprint, 64).unwrap();
    assert_eq!(ic::decode(&ic::encode(&island)).unwrap(), island);
    assert!(island.buildings.is_empty());
    let count = |g: Ground| island.ground.iter().filter(|x| **x == g).count();
    assert_eq!(island.ground[0], Ground::Water, "the corner is open ocean");
    assert!(count(Ground::Grass) > 500 && count(Ground::Water) > 1500);
    assert!(count(Ground::Meteorite) > 0, "the crater shows");
    assert!(island.nature.contains(&Nature::Tree));
    // Land tiles sit over land: the tile holding the highest point of the map is not water.
    let (mut best, mut at) = (f32::MIN, (0, 0));
    for ((x, y), &h) in world.blueprint.heights.indexed_iter() {
        if h > best {
            best = h;
            at = (x, y);
        }
    }
    let (tx, ty) = (at.0 * 64 / 512, at.1 * 64 / 512);
    assert_ne!(island.ground[ty * 64 + tx], Ground::Water);
    assert!(island_from_world(&world.blueprint, 0).is_err());
    assert!(island_from_world(&world.blueprint, 513).is_err());
}

/// Rivers are water tiles: with a tile per pixel every river pixel outside the crater (whose
/// tiles are METEORITE whatever lies there) is WATER or WATER_ROCK, and at any side a tile that
/// is water with rivers off is water with them on — rivers only add water.
#[test]
fn river_pixels_export_as_water_tiles() {
    let world = |rivers: &str| {
        let json = format!(r#"{{"Rivers": "{rivers}"}}"#);
        let mut c = Config::from_json(&json, "t").unwrap().config;
        c.map_size = 512;
        c.skip_roads = true;
        pipeline::generate(&c, 42, &Progress::hidden()).unwrap()
    };
    let (on, off) = (world("v1"), world("off"));
    let river = on.river_pixels();
    assert!(!river.is_empty() && on.rivers.as_ref().unwrap().rivers > 0);
    assert!(off.river_pixels().is_empty());
    let wet = |g: &Ground| matches!(g, Ground::Water | Ground::WaterRock);
    let bp = &on.blueprint;
    let n = 512;
    let island = island_from_world(bp, n).unwrap();
    let r = bp.params.crater_radius * islagen::units::scale_factor(n);
    let (cx, cy) = (bp.params.impact_center_x, bp.params.impact_center_y);
    let (mut checked, mut dry) = (0, Vec::new());
    for &i in &river {
        let (x, y) = (i as usize / n, i as usize % n);
        if (x as f32 - cx).hypot(y as f32 - cy) < r {
            continue;
        }
        checked += 1;
        let g = island.ground[y * n + x];
        if !wet(&g) {
            dry.push((x, y, g));
        }
    }
    assert!(checked > 0, "every river pixel is in the crater");
    assert!(
        dry.is_empty(),
        "{} of {checked} river pixels export as land, e.g. {:?}",
        dry.len(),
        &dry[..dry.len().min(5)]
    );
    for side in [64, 256, 512] {
        let a = island_from_world(&off.blueprint, side).unwrap();
        let b = island_from_world(bp, side).unwrap();
        let lost = (0..side * side)
            .filter(|&i| wet(&a.ground[i]) && !wet(&b.ground[i]))
            .count();
        let count = |g: &[Ground]| g.iter().filter(|g| wet(g)).count();
        let (before, after) = (count(&a.ground), count(&b.ground));
        eprintln!("side {side}: {before} water tiles without rivers, {after} with");
        assert_eq!(lost, 0, "side {side}: rivers turned {lost} water tiles dry");
        assert!(after >= before, "side {side}: {before} → {after}");
        if side == n {
            assert!(after > before, "rivers add water tiles at a tile per pixel");
        }
    }
}

/// Regression: a nine-byte 0xFF varint is u64::MAX; its zigzag decode overflowed
/// (a panic in debug and test builds) instead of being refused as outside the i32 range.
#[test]
fn a_maximal_varint_is_refused_not_an_overflow() {
    use islagen::formats::island_code::PackedReader;
    let bytes = [0xFF; 9];
    let e = PackedReader::new(&bytes).i32("count").unwrap_err();
    assert!(e.to_string().contains("outside the zigzag range"), "{e}");
    // The same bytes where the stream expects its first count.
    let e = islagen::formats::island_code::decode_stream(&bytes);
    assert!(
        matches!(&e, Err(IslandCodeError::Invalid { offset: 0, detail, .. }) if detail.contains("zigzag")),
        "{e:?}"
    );
}
