//! Islands a designer shapes: an IslandMask puts the land where it is painted, the same at every
//! MapSize, and a mask that cannot be used is refused with its key, its file and the rule.

use std::path::Path;

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
    eprintln!("mask agreement {agree:.3}; 512 vs 1024 {same:.4}");

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
    // "" is no mask.
    std::fs::write(&config, r#"{ "IslandMask": "" }"#).unwrap();
    assert!(Config::load(&config).unwrap().config.island_mask.is_none());
}
