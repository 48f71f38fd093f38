//! structures.json: every rejection rule, the defaults, the limits, placement reasons, and the
//! sidecar the generator emits.

use islagen::config::Config;
use islagen::formats::structures::{self as st, CellProblem, MapView};
use islagen::pipeline;
use islagen::progress::Progress;
use serde_json::json;

fn parse(v: serde_json::Value) -> Result<st::Document, st::StructuresError> {
    st::parse(&v.to_string())
}

fn rejected(v: serde_json::Value, path: &str, reason: &str) {
    match parse(v) {
        Ok(_) => panic!("accepted a document that breaks {path}: {reason}"),
        Err(e) => {
            assert_eq!(e.path, path, "{e}");
            assert!(e.reason.contains(reason), "{e}");
        }
    }
}

fn box_type(id: &str, w: u32, h: u32) -> serde_json::Value {
    json!({"id": id, "footprint": {"width": w, "height": h}})
}

#[test]
fn every_rejection_names_its_path_and_reason() {
    rejected(json!({}), "version", "required");
    rejected(json!({"version": 2}), "version", "unsupported version 2");
    rejected(json!([]), "$", "object");
    rejected(
        json!({"version": 1, "types": [box_type("a", 1, 1), box_type("a", 2, 2)]}),
        "types[1].id",
        "duplicate id \"a\"",
    );
    rejected(
        json!({"version": 1, "types": [{"id": "", "footprint": {"width": 1, "height": 1}}]}),
        "types[0].id",
        "non-empty",
    );
    rejected(
        json!({"version": 1, "types": [box_type("a", 0, 1)]}),
        "types[0].footprint.width",
        "at least 1",
    );
    rejected(
        json!({"version": 1, "types": [{"id": "a", "footprint": {"width": 2, "height": 2, "mask": [1, 1, 1]}}]}),
        "types[0].footprint.mask",
        "3 entries, width × height is 4",
    );
    rejected(
        json!({"version": 1, "types": [{"id": "a", "footprint": {"width": 1, "height": 2, "mask": [1, 2]}}]}),
        "types[0].footprint.mask[1]",
        "0 or 1",
    );
    rejected(
        json!({"version": 1, "types": [{"id": "a"}]}),
        "types[0].footprint",
        "required",
    );
    rejected(
        json!({"version": 1, "types": [box_type("a", 1, 1)], "structures": [
            {"id": "s", "type": "a", "pixelX": 0, "pixelY": 0},
            {"id": "s", "type": "a", "pixelX": 5, "pixelY": 5}]}),
        "structures[1].id",
        "duplicate id \"s\"",
    );
    rejected(
        json!({"version": 1, "types": [box_type("a", 1, 1)], "structures": [{"id": "s", "type": "b", "pixelX": 0, "pixelY": 0}]}),
        "structures[0].type",
        "undeclared type \"b\"",
    );
    rejected(
        json!({"version": 1, "types": [box_type("a", 1, 1)], "structures": [{"id": "s", "type": "a", "pixelY": 0}]}),
        "structures[0].pixelX",
        "required",
    );
    // Overlap names both instances and the cell; a mask hole lets footprints interlock.
    let l_shape = json!({"id": "l", "footprint": {"width": 2, "height": 2, "mask": [1, 1, 1, 0]}});
    assert!(parse(
        json!({"version": 1, "types": [l_shape.clone(), box_type("dot", 1, 1)], "structures": [
        {"id": "corner", "type": "l", "pixelX": 10, "pixelY": 10},
        {"id": "fits", "type": "dot", "pixelX": 11, "pixelY": 11}]})
    )
    .is_ok());
    rejected(
        json!({"version": 1, "types": [l_shape, box_type("dot", 1, 1)], "structures": [
            {"id": "corner", "type": "l", "pixelX": 10, "pixelY": 10},
            {"id": "clash", "type": "dot", "pixelX": 11, "pixelY": 10}]}),
        "structures[1]",
        "\"clash\" overlaps \"corner\" (structures[0]) at cell (11, 10)",
    );
}

#[test]
fn the_limits_hold() {
    let types: Vec<_> = (0..257).map(|i| box_type(&format!("t{i}"), 1, 1)).collect();
    rejected(
        json!({"version": 1, "types": types}),
        "types",
        "exceed the limit of 256",
    );
    let ok_types: Vec<_> = (0..256).map(|i| box_type(&format!("t{i}"), 1, 1)).collect();
    assert!(parse(json!({"version": 1, "types": ok_types})).is_ok());
    let instances: Vec<_> = (0..4097)
        .map(|i| json!({"id": format!("s{i}"), "type": "a", "pixelX": i, "pixelY": 0}))
        .collect();
    rejected(
        json!({"version": 1, "types": [box_type("a", 1, 1)], "structures": instances}),
        "structures",
        "limit of 4096",
    );
    rejected(
        json!({"version": 1, "types": [box_type("a", 65, 1)]}),
        "types[0].footprint.width",
        "limit of 64",
    );
    assert!(parse(json!({"version": 1, "types": [box_type("a", 64, 64)]})).is_ok());
    rejected(
        json!({"version": 1, "types": [{"id": "a", "visualWidthPx": 129, "footprint": {"width": 1, "height": 1}}]}),
        "types[0].visualWidthPx",
        "limit of 128",
    );
    rejected(
        json!({"version": 1, "types": [{"id": "a", "spriteSlot": 4096, "footprint": {"width": 1, "height": 1}}]}),
        "types[0].spriteSlot",
        "0..4095",
    );
}

#[test]
fn defaults_unknown_fields_and_a_stable_normal_form() {
    let doc = parse(json!({
        "version": 1,
        "future": {"anything": true},
        "types": [{"id": "cache", "footprint": {"width": 2, "height": 1}, "glow": 3,
                   "stateDefaults": {"hidden": false, "custom": [1, 2]}}],
        "structures": [{"id": "c1", "type": "cache", "pixelX": 4, "pixelY": 2, "extra": 1,
                        "state": {"zeta": 1, "alpha": {"nested": true}}}]
    }))
    .unwrap();
    let t = &doc.types[0];
    assert_eq!(
        (t.name.as_str(), t.sprite_id.as_str(), t.sprite_slot),
        ("cache", "cache", 0)
    );
    assert_eq!((t.visual_width_px, t.visual_height_px), (2, 1));
    assert_eq!(t.footprint.mask, vec![1, 1]);
    assert!(!t.blocks_movement && t.capabilities.is_empty());
    assert_eq!(
        t.state_defaults["custom"],
        json!([1, 2]),
        "unknown stateDefaults keys kept"
    );
    assert_eq!(doc.atlas.filter, "nearest");
    assert_eq!(doc.structures[0].state["alpha"], json!({"nested": true}));
    let once = doc.to_json();
    assert!(!once.contains("future") && !once.contains("glow") && !once.contains("extra"));
    let twice = st::parse(&once).unwrap().to_json();
    assert_eq!(once, twice, "normalising twice changes nothing");
    assert!(
        once.find("\"alpha\"").unwrap() < once.find("\"zeta\"").unwrap(),
        "state keys sorted"
    );
}

#[test]
fn the_generated_sidecar_validates_and_matches_the_towns() {
    for seed in [1, 42, 7] {
        let mut c = Config::from_json("{}", "defaults").unwrap().config;
        c.map_size = 512;
        c.skip_roads = true;
        let world = pipeline::generate(&c, seed, &Progress::hidden()).unwrap();
        let bp = &world.blueprint;
        let doc = st::parse(&st::from_world(bp).to_json()).expect("the emitted sidecar validates");
        assert_eq!(doc.structures.len(), bp.towns.len());
        let water = |x: usize, y: usize| bp.water_ids.as_ref().unwrap()[[x, y]] != 0;
        let view = MapView {
            heights: &bp.heights,
            water: &water,
        };
        assert!(
            st::map_problems(&doc, &view).is_empty(),
            "seed {seed}: a footprint on water"
        );
        for (s, t) in doc.structures.iter().zip(&bp.towns) {
            let ty = doc.type_of(s);
            // The footprint covers the town's own pixel.
            let (tx, ty_) = (t.x as i64, t.y as i64);
            assert!(ty
                .footprint
                .cells()
                .any(|(dx, dy)| (s.pixel_x + dx, s.pixel_y + dy) == (tx, ty_)));
            assert_eq!(s.state["highwayNode"], json!(t.is_highway_node));
            assert_eq!(
                ty.blocks_movement,
                t.tier != islagen::blueprint::TownTier::Poi
            );
            assert!(ty
                .capabilities
                .iter()
                .any(|c| c == "settlement" || c == "point-of-interest"));
            assert_eq!(
                ty.capabilities.iter().any(|c| c == "highway-node"),
                t.is_highway_node
            );
        }
        // Placement reasons: on an existing structure, in the sea, off the map.
        let first = &doc.structures[0];
        let p =
            st::placement_problems(&doc, "poi", first.pixel_x, first.pixel_y, Some(&view)).unwrap();
        assert!(p
            .iter()
            .any(|(_, r)| matches!(r, CellProblem::Occupied(id) if id == &first.id)));
        let p = st::placement_problems(&doc, "poi", 2, 2, Some(&view)).unwrap();
        assert!(p.iter().all(|(_, r)| *r == CellProblem::Water) && !p.is_empty());
        let p = st::placement_problems(&doc, "poi", 511, 511, Some(&view)).unwrap();
        assert!(p.iter().any(|(_, r)| *r == CellProblem::OutOfBounds));
        assert!(st::placement_problems(&doc, "nope", 0, 0, None).is_err());
        // Somewhere on the risers the ground is too steep.
        let steep = (0..512i64).step_by(3).any(|x| {
            (0..512i64).step_by(3).any(|y| {
                st::placement_problems(&doc, "poi", x, y, Some(&view))
                    .unwrap()
                    .iter()
                    .any(|(_, r)| *r == CellProblem::TooSteep)
            })
        });
        assert!(steep, "seed {seed}: no cell reads as too steep");
    }
}

/// Regression: positions were unbounded i64, so `pixelX + dx` wrapped — `check`
/// accepted a structure at pixelX = i64::MAX and `can-place` at i64::MAX reported cells at
/// i64::MIN. Positions are now map pixels (0 ..= 32767) and cells are computed checked.
#[test]
fn positions_are_map_pixels_and_never_wrap() {
    let doc = |x: i64| {
        json!({"version": 1, "types": [box_type("hut", 2, 2)],
               "structures": [{"id": "a", "type": "hut", "pixelX": x, "pixelY": 5}]})
    };
    rejected(doc(i64::MAX), "structures[0].pixelX", "not a map pixel");
    rejected(doc(-1), "structures[0].pixelX", "not a map pixel");
    rejected(doc(32768), "structures[0].pixelX", "not a map pixel");
    let ok = parse(doc(32767)).unwrap();
    let far = st::placement_problems(&ok, "hut", i64::MAX, 5, None).unwrap_err();
    assert_eq!(far.path, "x", "{far}");
    assert!(st::placement_problems(&ok, "hut", 5, -3, None).is_err());
    // At the last pixel the footprint runs off any map: its cells are past it, not wrapped.
    let cells = st::placement_problems(&ok, "hut", 32767, 0, None).unwrap();
    assert!(cells.iter().all(|((x, _), _)| *x >= 0), "{cells:?}");
}

/// Rivers are water to the sidecar: with rivers on (the default), no footprint covers a river
/// pixel — a WBID pixel of a WBTB body of type River — nor any other water. (Seed 42 bites: a
/// sidecar blind to rivers gives it hubs of 7 and villages of 5, covering 20 river cells; with
/// them its hubs are 3 and villages 3.)
#[test]
fn no_footprint_covers_a_river() {
    for seed in [7, 42] {
        let mut c = Config::from_json("{}", "defaults").unwrap().config;
        c.map_size = 1024;
        c.skip_roads = true;
        let world = pipeline::generate(&c, seed, &Progress::hidden()).unwrap();
        let n = 1024i64;
        let rivers = world.river_pixels();
        let river: std::collections::HashSet<u32> = rivers.iter().copied().collect();
        assert!(
            world.rivers.as_ref().is_some_and(|r| r.rivers > 0) && !river.is_empty(),
            "seed {seed}: no rivers"
        );
        let bp = &world.blueprint;
        let doc = st::parse(&st::from_world(bp).to_json()).expect("the emitted sidecar validates");
        assert_eq!(doc.structures.len(), bp.towns.len());
        let mut on_river = Vec::new();
        for s in &doc.structures {
            for (dx, dy) in doc.type_of(s).footprint.cells() {
                let (x, y) = (s.pixel_x + dx, s.pixel_y + dy);
                assert!(
                    (0..n).contains(&x) && (0..n).contains(&y),
                    "{} off the map",
                    s.id
                );
                if river.contains(&((x * n + y) as u32)) {
                    on_river.push((s.id.clone(), x, y));
                }
            }
        }
        assert!(
            on_river.is_empty(),
            "seed {seed}: footprint cells on rivers: {on_river:?}"
        );
        let water = |x: usize, y: usize| bp.is_water(x, y);
        let view = MapView {
            heights: &bp.heights,
            water: &water,
        };
        assert!(
            st::map_problems(&doc, &view).is_empty(),
            "seed {seed}: a footprint on water"
        );
        // can-place refuses a river pixel as water.
        let i = i64::from(rivers[rivers.len() / 2]);
        let p = st::placement_problems(&doc, "poi", i / n, i % n, Some(&view)).unwrap();
        assert!(
            p.iter()
                .any(|(c, r)| *c == (i / n, i % n) && *r == CellProblem::Water),
            "seed {seed}: {p:?}"
        );
    }
}
