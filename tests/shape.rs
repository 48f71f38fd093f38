//! Islands a designer shapes: an IslandMask puts the land where it is painted, the same at every
//! MapSize, and a mask that cannot be used is refused with its key, its file and the rule.

use std::path::Path;

use islagen::units::METRES_PER_RAW;
use ndarray::Array2;

use islagen::blueprint::{inspect, ShapeInput};
use islagen::config::{Config, ConfigError};
use islagen::pipeline::{self, Water, World};
use islagen::progress::Progress;

/// A 256² mask no squircle makes: a large disc in the south-west joined to a smaller one in the
/// north-east, edges soft over ~2 % of the map (white land, black sea).
fn two_discs() -> Vec<u8> {
    let n = 256usize;
    let disc = |x: f32, y: f32, cx: f32, cy: f32, r: f32| {
        let d = ((x - cx).powi(2) + (y - cy).powi(2)).sqrt();
        ((r - d) / 0.02 * 0.5 + 0.5).clamp(0.0, 1.0)
    };
    (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f32 / n as f32, (i / n) as f32 / n as f32);
            let a = disc(x, y, 0.40, 0.58, 0.27);
            let b = disc(x, y, 0.68, 0.32, 0.16);
            (255.0 * a.max(b)) as u8
        })
        .collect()
}

fn write_png(path: &Path, side: u32, gray: &[u8]) {
    let file = std::fs::File::create(path).unwrap();
    let mut e = png::Encoder::new(std::io::BufWriter::new(file), side, side);
    e.set_color(png::ColorType::Grayscale);
    e.set_depth(png::BitDepth::Eight);
    e.write_header().unwrap().write_image_data(gray).unwrap();
}

/// A config file beside its mask, naming it relatively: the path resolves from the config's
/// folder, wherever the program runs.
fn shaped(dir: &Path, size: u32) -> Config {
    write_png(&dir.join("island.png"), 256, &two_discs());
    std::fs::write(
        dir.join("ServerConfig.json"),
        format!(r#"{{ "IslandMask": "island.png", "MapSize": {size}, "SkipRoads": true }}"#),
    )
    .unwrap();
    Config::load(&dir.join("ServerConfig.json")).unwrap().config
}

fn generate(c: &Config) -> World {
    pipeline::generate(c, 11, &Progress::hidden()).unwrap()
}

/// Land (not ocean) on an `n`-pixel map, `[x, y]` flattened x-major.
fn land(w: &World) -> Vec<bool> {
    w.water.iter().map(|&t| t != Water::Ocean).collect()
}

#[test]
fn the_land_is_where_the_mask_paints_it_at_every_size() {
    let dir = tempfile::tempdir().unwrap();
    let c = shaped(dir.path(), 1024);
    let mask = &c.island_mask.as_ref().expect("the mask is loaded").raster;
    let w = generate(&c);
    let n = 1024usize;
    let wanted = mask.resample(n);
    let got = land(&w);
    let agree = (0..n * n)
        .filter(|&i| got[i] == (wanted[[i / n, i % n]] >= 0.5))
        .count() as f64
        / (n * n) as f64;
    assert!(
        agree >= 0.9,
        "land agrees with the mask on {agree:.3} of the map"
    );
    // Both discs are land: their centres stand above sea.
    for (u, v) in [(0.40, 0.58), (0.68, 0.32)] {
        let (x, y) = ((u * n as f32) as usize, (v * n as f32) as usize);
        assert!(got[x * n + y], "({u}, {v}) is under water");
    }
    // The squircle's island would be land at the map's centre-east; the mask's is sea there.
    let (x, y) = ((0.80 * n as f32) as usize, (0.75 * n as f32) as usize);
    assert!(!got[x * n + y], "land where the mask paints sea");

    // The same island at 512: the land share and the coast agree to within a few pixels' worth.
    let small = generate(&shaped(dir.path(), 512));
    let (s, big) = (land(&small), &got);
    let same = (0..512 * 512)
        .filter(|&i| {
            let (x, y) = (i / 512, i % 512);
            s[i] == big[(2 * x) * n + 2 * y]
        })
        .count() as f64
        / (512.0 * 512.0);
    assert!(same >= 0.98, "512 and 1024 agree on {same:.4} of the map");
    // And at 2048.
    let large = land(&generate(&shaped(dir.path(), 2048)));
    let same_2048 = (0..n * n)
        .filter(|&i| {
            let (x, y) = (i / n, i % n);
            got[i] == large[(2 * x) * 2048 + 2 * y]
        })
        .count() as f64
        / (n * n) as f64;
    assert!(
        same_2048 >= 0.98,
        "1024 and 2048 agree on {same_2048:.4} of the map"
    );
    eprintln!("mask agreement {agree:.3}; 512 vs 1024 {same:.4}; 1024 vs 2048 {same_2048:.4}");

    // The world records the mask (SHPE): its key, the file's SHA-256 and name, through a v2
    // file and `inspect`.
    let sha = &c.island_mask.as_ref().unwrap().sha256;
    let expected = vec![ShapeInput {
        key: "IslandMask".into(),
        sha256: sha.clone(),
        file: "island.png".into(),
    }];
    assert_eq!(w.blueprint.shape, expected);
    let mut bytes = Vec::new();
    islagen::write_v2(&mut bytes, &w.blueprint).unwrap();
    let loaded = islagen::blueprint::read_bytes(&bytes).unwrap();
    assert_eq!(loaded.blueprint.shape, expected);
    let text = inspect::report(&loaded).to_string();
    assert!(
        text.contains(&format!(
            "shaped by   IslandMask island.png (SHA-256 {sha})"
        )),
        "{text}"
    );
}

/// An island painted apart from the mainland stays an island (it is not sunk as a stray
/// fragment would be).
#[test]
fn an_island_painted_apart_stays() {
    let dir = tempfile::tempdir().unwrap();
    let gray: Vec<u8> = (0..65536)
        .map(|i| {
            let (x, y) = ((i % 256) as f32 / 256.0, (i / 256) as f32 / 256.0);
            let main = (x - 0.42).hypot(y - 0.5) < 0.25;
            let apart = (x - 0.8).hypot(y - 0.78) < 0.07;
            if main || apart {
                255
            } else {
                0
            }
        })
        .collect();
    let c = with_mask(
        dir.path(),
        "IslandMask",
        "apart.png",
        &gray,
        r#", "MapSize": 512"#,
    );
    let w = generate(&c);
    let dry = land(&w);
    for (u, v) in [(0.42, 0.5), (0.8, 0.78)] {
        let (x, y) = ((u * 512.0) as usize, (v * 512.0) as usize);
        assert!(dry[x * 512 + y], "({u}, {v}) is under water");
    }
}

#[test]
fn a_mask_that_cannot_be_used_is_refused_by_key_file_and_rule() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("ServerConfig.json");
    let load = |mask: &str| {
        std::fs::write(&config, format!(r#"{{ "IslandMask": "{mask}" }}"#)).unwrap();
        Config::load(&config).map(|_| ()).unwrap_err()
    };
    write_png(&dir.path().join("black.png"), 16, &[0; 256]);
    let e = load("black.png");
    assert!(
        matches!(
            e,
            ConfigError::MaskRule {
                key: "IslandMask",
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string().contains("black.png") && e.to_string().contains("leaves no land"),
        "{e}"
    );
    std::fs::write(dir.path().join("notes.png"), "not an image").unwrap();
    let e = load("notes.png");
    assert!(
        matches!(
            e,
            ConfigError::Mask {
                key: "IslandMask",
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string().contains("notes.png: not a PNG or a TIFF"),
        "{e}"
    );
    let e = load("missing.png");
    assert!(e.to_string().starts_with("config key IslandMask: "), "{e}");
    assert!(e.to_string().contains("missing.png"), "{e}");
    // A mask whose land is too small for the crater is refused, naming both.
    let dot: Vec<u8> = (0..65536)
        .map(|i| {
            let (x, y) = ((i % 256) as f32 - 128.0, (i / 256) as f32 - 128.0);
            if x.hypot(y) < 24.0 {
                255
            } else {
                0
            }
        })
        .collect();
    write_png(&dir.path().join("dot.png"), 256, &dot);
    let e = load("dot.png");
    assert!(
        matches!(
            e,
            ConfigError::MaskRule {
                key: "IslandMask",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("too small for the crater"), "{e}");
    std::fs::write(
        &config,
        r#"{ "IslandMask": "dot.png", "CraterRadius": 16 }"#,
    )
    .unwrap();
    assert!(Config::load(&config).is_ok(), "a smaller crater fits");
    // A black relief or hard-rock mask would do nothing: refused too, by its own rule.
    for (key, rule) in [
        ("ReliefMask", "raises no land"),
        ("HardRockMask", "marks no hard rock"),
    ] {
        std::fs::write(&config, format!(r#"{{ "{key}": "black.png" }}"#)).unwrap();
        let e = Config::load(&config).map(|_| ()).unwrap_err();
        assert!(
            matches!(e, ConfigError::MaskRule { key: k, .. } if k == key),
            "{e}"
        );
        assert!(e.to_string().contains(rule), "{e}");
    }
    // "" is no mask.
    std::fs::write(&config, r#"{ "IslandMask": "" }"#).unwrap();
    assert!(Config::load(&config).unwrap().config.island_mask.is_none());
}

/// A 256² mask: one soft stroke `width` wide from (u0, v) to (u1, v), white on black.
fn stroke(u0: f32, u1: f32, v: f32, width: f32) -> Vec<u8> {
    let n = 256usize;
    (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f32 / n as f32, (i / n) as f32 / n as f32);
            let dx = (u0 - x).max(x - u1).max(0.0);
            let d = (dx * dx + (y - v) * (y - v)).sqrt();
            (255.0 * ((0.5 * width - d) / 0.01 * 0.5 + 0.5).clamp(0.0, 1.0)) as u8
        })
        .collect()
}

/// A config in `dir` naming `key`'s mask `file` (written from `gray`, 256²) with `extra` keys.
fn with_mask(dir: &Path, key: &str, file: &str, gray: &[u8], extra: &str) -> Config {
    write_png(&dir.join(file), 256, gray);
    let path = dir.join(format!("{key}.json"));
    std::fs::write(
        &path,
        format!(r#"{{ "{key}": "{file}", "SkipRoads": true{extra} }}"#),
    )
    .unwrap();
    Config::load(&path).unwrap().config
}

/// The land pixels within `within` raw units of the map's highest, as normalised (u, v).
fn summit(w: &World, within: f32) -> Vec<(f32, f32)> {
    let h = &w.blueprint.heights;
    let n = h.dim().0;
    let top = h.iter().fold(f32::MIN, |a, &b| a.max(b));
    h.indexed_iter()
        .filter(|&(_, &v)| v >= top - within)
        .map(|((x, y), _)| ((x as f32 + 0.5) / n as f32, (y as f32 + 0.5) / n as f32))
        .collect()
}

#[test]
fn a_relief_mask_puts_the_highest_ground_where_it_is_painted_at_every_size() {
    let dir = tempfile::tempdir().unwrap();
    // An east–west ridge across the south of the island, where no seed's spine runs so.
    let gray = stroke(0.32, 0.62, 0.66, 0.05);
    let mut summits = Vec::new();
    for size in [512u32, 1024] {
        let c = with_mask(
            dir.path(),
            "ReliefMask",
            "ridge.png",
            &gray,
            &format!(r#", "MapSize": {size}"#),
        );
        let mask = &c.relief_mask.as_ref().expect("the mask is loaded").raster;
        let w = generate(&c);
        // Every pixel within 2 % of the height range of the summit stands on the stroke (its
        // painted width and the blur beside it).
        let top = summit(&w, 0.02);
        let off: Vec<_> = top
            .iter()
            .filter(|&&(u, v)| mask.sample(u, v) < 0.1)
            .collect();
        assert!(
            !top.is_empty() && off.is_empty(),
            "{size}: {} of {} summit pixels off the ridge: {:?}",
            off.len(),
            top.len(),
            &off[..off.len().min(5)]
        );
        let mean = |p: &[(f32, f32)]| {
            let k = p.len() as f32;
            (
                p.iter().map(|q| q.0).sum::<f32>() / k,
                p.iter().map(|q| q.1).sum::<f32>() / k,
            )
        };
        summits.push(mean(&top));
        assert_eq!(w.blueprint.shape[0].key, "ReliefMask");
    }
    // The same summit at 512 and 1024, within 2 % of the map.
    let ((u0, v0), (u1, v1)) = (summits[0], summits[1]);
    assert!((u0 - u1).hypot(v0 - v1) < 0.02, "summits {summits:?}");
    // Without the mask the seed's own spine is the highest ground, away from the stroke: the
    // mask moved it.
    let plain = Config::from_json(r#"{ "MapSize": 512, "SkipRoads": true }"#, "t").unwrap();
    let mask = islagen::formats::raster::Raster::read(&dir.path().join("ridge.png")).unwrap();
    let top = summit(&generate(&plain.config), 0.02);
    let on = top
        .iter()
        .filter(|&&(u, v)| mask.sample(u, v) >= 0.1)
        .count();
    assert!(
        on * 2 < top.len(),
        "{on} of {} of the seed's summit on the stroke",
        top.len()
    );
}

#[test]
fn hard_rock_erodes_slower_under_the_fluvial_relief() {
    let dir = tempfile::tempdir().unwrap();
    // A 4 × 4 checkerboard of hard (white) and soft (black) rock, so the seed's massif, wherever
    // it stands, lies in both.
    let hard_at = |x: usize, y: usize| (x * 4 / 256 + y * 4 / 256).is_multiple_of(2);
    let gray: Vec<u8> = (0..65536)
        .map(|i| if hard_at(i % 256, i / 256) { 255 } else { 0 })
        .collect();
    let hard = with_mask(
        dir.path(),
        "HardRockMask",
        "rock.png",
        &gray,
        r#", "MapSize": 512"#,
    );
    let json = |e: &str| format!(r#"{{ "MapSize": 512, "SkipRoads": true, "Erosion": "{e}" }}"#);
    let config = |e: &str| Config::from_json(&json(e), "t").unwrap().config;
    let (off, soft, rock) = (
        generate(&config("off")),
        generate(&config("v2")),
        generate(&hard),
    );
    // The mean depth carved (below Erosion off's heights) over the land of the hard squares and
    // of the soft ones, a margin of 1/32 of the map along the squares' edges left out.
    let n = 512;
    let land = land(&off);
    let carve = |w: &World, on_hard: bool| {
        let (a, b) = (&off.blueprint.heights, &w.blueprint.heights);
        let inner = |c: usize| (c % (n / 4)).abs_diff(n / 8) < n / 8 - n / 32;
        let cells: Vec<f32> = (0..n * n)
            .filter(|&i| {
                let (x, y) = (i / n, i % n);
                land[i] && inner(x) && inner(y) && hard_at(x / 2, y / 2) == on_hard
            })
            .map(|i| a[[i / n, i % n]] - b[[i / n, i % n]])
            .collect();
        cells.iter().sum::<f32>() / cells.len() as f32
    };
    let [rh, sh, rs, ss] = [(&rock, true), (&soft, true), (&rock, false), (&soft, false)]
        .map(|(w, on_hard)| carve(w, on_hard));
    let (hard_ratio, soft_ratio) = (rh / sh, rs / ss);
    eprintln!(
        "hard rock: mean carve (raw) on hard squares {rh:.4} vs {sh:.4} all-soft ({hard_ratio:.2}), on soft squares {rs:.4} vs {ss:.4} ({soft_ratio:.2})"
    );
    assert!(
        sh > 0.01 && ss > 0.01,
        "both kinds of square are carved: {sh} {ss}"
    );
    // Hard rock keeps nearly all of its design; soft rock, whose base level the hard squares
    // downstream hold, keeps more than half of its valleys, and many times hard rock's share.
    assert!(
        hard_ratio <= 0.3,
        "hard rock carved {hard_ratio:.2} as deep as before"
    );
    assert!(
        soft_ratio >= 0.5,
        "soft rock carved {soft_ratio:.2} as deep as before"
    );
    assert!(
        soft_ratio >= 4.0 * hard_ratio,
        "soft {soft_ratio:.2}, hard {hard_ratio:.2}"
    );
    assert_eq!(rock.blueprint.shape[0].key, "HardRockMask");
}

/// Pins on seed 11's island (metres, x east, y north): the Capitol in the western grassland
/// where the generator puts none, a Hub on the massif's foothills, a Village high on the
/// mountain's flank (steep ground, so its pad must be cut), a POI on an islet.
const PINS: &str = r#"{ "type": "FeatureCollection", "features": [
  { "type": "Feature", "geometry": { "type": "Point", "coordinates": [2400.0, 4992.0] },
    "properties": { "tier": "capitol", "name": "Westhaven" } },
  { "type": "Feature", "geometry": { "type": "Point", "coordinates": [4480.0, 4833.0] },
    "properties": { "tier": "hub", "name": "Ridgefoot" } },
  { "type": "Feature", "geometry": { "type": "Point", "coordinates": [5600.0, 5552.0] },
    "properties": { "tier": "village", "name": "High Shelf" } },
  { "type": "Feature", "geometry": { "type": "Point", "coordinates": [2560.0, 1434.0] },
    "properties": { "tier": "poi" } } ] }"#;

fn pinned(dir: &Path, size: u32, pins: &str) -> Result<World, pipeline::GenerateError> {
    std::fs::write(dir.join("pins.geojson"), pins).unwrap();
    let path = dir.join("pinned.json");
    std::fs::write(
        &path,
        format!(r#"{{ "TownPins": "pins.geojson", "MapSize": {size} }}"#),
    )
    .unwrap();
    pipeline::generate(
        &Config::load(&path).unwrap().config,
        11,
        &Progress::hidden(),
    )
}

#[test]
fn pinned_towns_stand_where_pinned_on_graded_ground_on_the_roads() {
    use islagen::blueprint::TownTier;
    use islagen::stages::towns::{max_slope, FOOTPRINT_M};
    let dir = tempfile::tempdir().unwrap();
    let pins = islagen::formats::pins::parse(PINS).unwrap();
    for size in [1024u32, 512] {
        let w = pinned(dir.path(), size, PINS).unwrap();
        let n = size as usize;
        let towns = &w.blueprint.towns;
        let capitols = towns.iter().filter(|t| t.tier == TownTier::Capitol).count();
        assert_eq!(capitols, 1, "{size}: the pinned Capitol is the only one");
        let roads = &w.blueprint.roads;
        let vertices: Vec<[f32; 2]> = [&roads.highway, &roads.branch, &roads.rugged, &roads.trail]
            .into_iter()
            .flatten()
            .flatten()
            .copied()
            .collect();
        for (i, pin) in pins.iter().enumerate() {
            let [u, v] = pin.normalised();
            let label = format!("{size}: {}", pin.label(i));
            // Exactly where pinned: the first towns, in the pins' order.
            let t = &towns[i];
            assert_eq!(
                (t.tier, t.x, t.y),
                (pin.tier, u * n as f32, v * n as f32),
                "{label}"
            );
            // On ground its tier accepts (its pixel, and 90 % of its footprint), where a pixel
            // resolves a slope over 8 m: from 1024 up, as for every town.
            let (x, y) = (t.x as usize, t.y as usize);
            let reach = FOOTPRINT_M / islagen::units::metres_per_px(n);
            if size >= 1024 {
                let limit = max_slope(t.tier);
                let s = crate::water_and_towns::slope_over_8m(&w, x, y);
                assert!(s <= limit, "{label} on {s:.3} m/m, limit {limit}");
                let r = reach.ceil() as usize;
                let (mut within, mut all) = (0usize, 0usize);
                for fx in x - r..=x + r {
                    for fy in y - r..=y + r {
                        if (fx.abs_diff(x) as f32).hypot(fy.abs_diff(y) as f32) <= reach {
                            all += 1;
                            let s = crate::water_and_towns::slope_over_8m(&w, fx, fy);
                            within += usize::from(s <= limit);
                        }
                    }
                }
                let share = within as f32 / all as f32;
                assert!(
                    share >= 0.9,
                    "{label}: {share:.2} of the footprint within the limit"
                );
            }
            // Settlements are on the road network: a road passes within the footprint.
            if pin.tier != TownTier::Poi {
                let near = vertices
                    .iter()
                    .map(|p| (p[0] - t.x).hypot(p[1] - t.y))
                    .fold(f32::MAX, f32::min);
                assert!(
                    near <= reach + 1.0,
                    "{label}: the nearest road is {near:.1} px off"
                );
            }
        }
        assert_eq!(w.blueprint.shape[0].key, "TownPins");
    }
    // A pin in the sea is refused, named.
    let wet = PINS.replace("[2400.0, 4992.0]", "[300.0, 300.0]");
    let e = pinned(dir.path(), 512, &wet).unwrap_err().to_string();
    assert!(
        e.contains("pin 0 (\"Westhaven\")") && e.contains("stands in water"),
        "{e}"
    );
    // A settlement on an islet is refused (the roads could not reach it); a POI is not.
    let islet = PINS.replace(r#""tier": "poi""#, r#""tier": "village""#);
    let e = pinned(dir.path(), 512, &islet).unwrap_err().to_string();
    assert!(
        e.contains("pin 3, a village") && e.contains("not on the mainland"),
        "{e}"
    );
    // A pin off the map is refused when the config is read, naming the file and the pin.
    std::fs::write(
        dir.path().join("pins.geojson"),
        PINS.replace("2560.0", "9000.0"),
    )
    .unwrap();
    let e = Config::load(&dir.path().join("pinned.json")).unwrap_err();
    assert!(matches!(e, ConfigError::Pins { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("pins.geojson: features[3]") && text.contains("off the map"),
        "{text}"
    );
}

/// `--heightmap`: a world's own heightmap export (the float GeoTIFF, and the 16-bit PNG with
/// its sidecar's range) makes the same ground again, within the PNG's quantisation, away from
/// the crater bay the import carves on the surface's own northern coast.
#[test]
fn a_heightmap_export_imports_back_within_quantisation() {
    use islagen::config::heightmap::Heightmap;
    use islagen::exports::heightmap::{export, HeightFormat};
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{ "MapSize": 512, "SkipRoads": true }"#;
    let original = generate(&Config::from_json(json, "t").unwrap().config);
    let metres = |w: &World| {
        let h = &w.blueprint.heights;
        Array2::from_shape_fn(h.dim(), |(x, y)| (h[[x, y]] - w.sea.at(y)) * METRES_PER_RAW)
    };
    let before = metres(&original);
    // Erosion, rivers and grading off: the import adds nothing of its own but the crater.
    let plain = r#"{ "MapSize": 512, "SkipRoads": true, "Erosion": "off", "Rivers": "off",
                     "TownGrading": false }"#;
    for (format, file) in [
        (HeightFormat::Tiff, "h.tif"),
        (HeightFormat::Png16, "h.png"),
    ] {
        let path = dir.path().join(file);
        let sidecar = export(&original.blueprint, &path, format, None).unwrap();
        let read = Heightmap::read(&path, None, None).unwrap();
        let c = Config::from_json(plain, "t")
            .unwrap()
            .config
            .with_heightmap(read);
        let again = generate(&c);
        let after = metres(&again);
        // Half a quantisation step for the PNG; float rounding for the GeoTIFF.
        let bound = match format {
            HeightFormat::Png16 => 0.5 * sidecar.metres_per_unit as f32 + 1e-3,
            _ => 1e-3,
        };
        let reach = |w: &World| w.crater.carve_radius_px() * 1.25 + 2.0;
        let away = |x: usize, y: usize| {
            [&original, &again].iter().all(|w| {
                let [cx, cy] = w.crater.center;
                (x as f32 - cx).hypot(y as f32 - cy) > reach(w)
            })
        };
        let worst = before
            .indexed_iter()
            .filter(|&((x, y), _)| away(x, y))
            .map(|((x, y), &m)| (m - after[[x, y]]).abs())
            .fold(0.0f32, f32::max);
        eprintln!("{file}: worst |Δ| {worst:.4} m away from the crater (bound {bound:.4})");
        assert!(
            worst <= bound,
            "{file}: heights differ by {worst} m (bound {bound})"
        );
        assert_eq!(again.blueprint.shape[0].key, "Heightmap");
        assert_eq!(again.blueprint.shape[0].file, file);
    }
}

#[test]
fn a_heightmap_that_cannot_be_ground_is_refused() {
    use islagen::config::heightmap::Heightmap;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.png");
    write_png(&path, 16, &[128; 256]);
    let e = |range| Heightmap::read(&path, range, None).unwrap_err().to_string();
    assert!(
        e(None).contains("need the metres at black and white"),
        "{}",
        e(None)
    );
    assert!(e(Some([5.0, 5.0])).contains("range 5 to 5 m is empty"));
    assert!(e(Some([-9999.0, 100.0])).contains("a no-data value"));
    assert!(e(Some([-100.0, -10.0])).contains("no sample stands above sea level"));
    assert!(Heightmap::read(&path, Some([-10.0, 100.0]), None).is_ok());
}

/// Every input a designer brings gives the same bytes on 1 and 2 threads.
#[test]
fn shaped_worlds_are_the_same_bytes_on_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    write_png(&dir.path().join("island.png"), 256, &two_discs());
    write_png(
        &dir.path().join("ridge.png"),
        256,
        &stroke(0.32, 0.62, 0.66, 0.05),
    );
    write_png(
        &dir.path().join("rock.png"),
        256,
        &stroke(0.2, 0.8, 0.4, 0.2),
    );
    let pins = r#"[ { "x_m": 3276.8, "y_m": 3440.6, "tier": "capitol", "name": "Mid" } ]"#;
    std::fs::write(dir.path().join("pins.json"), pins).unwrap();
    let path = dir.path().join("ServerConfig.json");
    std::fs::write(
        &path,
        r#"{ "MapSize": 512, "IslandMask": "island.png", "ReliefMask": "ridge.png",
             "HardRockMask": "rock.png", "TownPins": "pins.json" }"#,
    )
    .unwrap();
    let c = Config::load(&path).unwrap().config;
    let bytes = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let w = pool.install(|| generate(&c));
        let mut out = Vec::new();
        islagen::write_v2(&mut out, &w.blueprint).unwrap();
        out
    };
    let one = bytes(1);
    assert!(one == bytes(2), "1 and 2 threads made different worlds");
}
