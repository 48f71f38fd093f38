//! The command line end to end: inspect, roundtrip, convert, and the generator's argument
//! validation, run through the real binary.

use std::path::Path;
use std::process::{Command, Output};

use islagen::blueprint::{read_file, sample, write_v1_file, write_v2_file};

fn islagen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_islagen"))
        .args(args)
        .output()
        .expect("run islagen")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Generates a 256 world (no roads) into `dir`, with `extra` arguments; returns its `.dat`.
fn small_world(dir: &Path, seed: &str, extra: &[&str]) -> std::path::PathBuf {
    let out = dir.to_str().unwrap();
    let mut args = vec![
        "--seed",
        seed,
        "--size",
        "256",
        "--skip-roads",
        "-q",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    let o = islagen(&args);
    assert!(o.status.success(), "{}", text(&o));
    dir.join(format!("MapData_Seed_{seed}.dat"))
}

fn fixture(dir: &Path) -> (String, String) {
    let bp = sample::full(256, 77);
    let v2 = dir.join("MapData_Seed_77.dat");
    let v1 = dir.join("MapData_Seed_77_v1.dat");
    write_v2_file(&v2, &bp).unwrap();
    write_v1_file(&v1, &bp).unwrap();
    (v2.display().to_string(), v1.display().to_string())
}

#[test]
fn inspect_reports_sections_params_and_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let (v2, v1) = fixture(dir.path());
    let o = islagen(&["inspect", &v2]);
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    for needle in [
        "V2",
        "MapSize     256",
        "WorldSeed   77",
        "HGTS",
        "WSRF",
        "biomes",
        "capitol",
        "highway",
        "water       1 ocean, 2 lake",
        "shaped by   IslandMask island-",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
    let o = islagen(&["inspect", &v2, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["map_size"], 256);
    assert_eq!(
        json["sections"].as_array().unwrap().len(),
        islagen::blueprint::format::REGISTERED_TAGS.len()
    );
    assert_eq!(json["sections"][0]["tag"], "PRMS");
    let biome_total: u64 = json["biomes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(biome_total, 256 * 256);
    assert_eq!(json["towns_by_tier"][0]["count"], 3);

    let o = islagen(&["inspect", &v1]);
    assert!(o.status.success());
    assert!(
        text(&o).contains("deprecated"),
        "v1 loads with a deprecation warning"
    );
}

#[test]
fn roundtrip_passes_on_v2_and_v1_and_fails_on_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let (v2, v1) = fixture(dir.path());
    for f in [&v2, &v1] {
        let o = islagen(&["roundtrip", f]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(text(&o).contains("round trip OK"));
    }
    let bad = dir.path().join("bad.dat");
    let mut bytes = std::fs::read(&v2).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&bad, bytes).unwrap();
    let o = islagen(&["roundtrip", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("declared length runs past the end"),
        "{}",
        text(&o)
    );
}

#[test]
fn convert_v1_to_v2_carries_sentinel_params_and_fresh_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let (v2, v1) = fixture(dir.path());
    let out = dir.path().join("from_v1.dat");
    let o = islagen(&["convert", &v1, out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let got = read_file(&out).unwrap();
    let p = &got.blueprint.params;
    assert_eq!(
        (p.world_seed, p.crater_radius, p.density_multiplier),
        (0, -1.0, -1.0)
    );
    assert_eq!((p.impact_center_x, p.impact_center_y), (-1.0, -1.0));
    assert!(
        p.generated_utc.starts_with("20"),
        "provenance describes the file: {:?}",
        p.generated_utc
    );
    assert_eq!(
        got.blueprint.heights,
        read_file(Path::new(&v2)).unwrap().blueprint.heights
    );

    let back = dir.path().join("back_v1.dat");
    let o = islagen(&["convert", &v2, back.to_str().unwrap(), "--v1"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(&v1).unwrap(),
        "v2 → v1 reproduces the v1 bytes"
    );
}

#[test]
fn generator_arguments_are_validated() {
    let o = islagen(&["--seed", "5", "--size", "100"]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("256..=32768") || text(&o).contains("100"),
        "{}",
        text(&o)
    );
    let o = islagen(&["--seed", "abc"]);
    assert!(!o.status.success());
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("ServerConfig.json");
    std::fs::write(&cfg, r#"{"TerrainCurve": "v4"}"#).unwrap();
    let o = islagen(&[
        "--seed",
        "5",
        "--size",
        "256",
        "--config",
        cfg.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("TerrainCurve"), "{}", text(&o));
    std::fs::write(&cfg, "{ \"MapSize\": 1024,, }").unwrap();
    let o = islagen(&["--config", cfg.to_str().unwrap()]);
    assert!(
        text(&o).contains(":1:"),
        "malformed JSON names line and column: {}",
        text(&o)
    );
}

#[test]
fn unreadable_input_is_an_error_not_a_panic() {
    let o = islagen(&["inspect", "/nonexistent/file.dat"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("error:"), "{}", text(&o));
    assert!(!text(&o).contains("panicked"));
}

/// Each error says its cause once, and a misspelt config key is named with the key it
/// was probably meant to be, while the server's own keys stay quiet.
#[test]
fn config_mistakes_are_named_once() {
    let o = islagen(&["--config", "/nonexistent/ServerConfig.json"]);
    assert!(!o.status.success());
    let t = text(&o);
    assert_eq!(t.matches("No such file").count(), 1, "{t}");
    assert!(t.contains("/nonexistent/ServerConfig.json"), "{t}");
    let o = islagen(&["inspect", "/nonexistent/file.dat"]);
    assert_eq!(text(&o).matches("No such file").count(), 1, "{}", text(&o));

    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("ServerConfig.json");
    std::fs::write(
        &cfg,
        r#"{"MapSize": 256, "ErosionDropletCont": 5, "ServerPort": 7777, "MaxPlayers": 8}"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = islagen(&[
        "--config",
        cfg.to_str().unwrap(),
        "--seed",
        "3",
        "--skip-roads",
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("ErosionDropletCont is not used: did you mean ErosionDropletCount?"),
        "{t}"
    );
    assert!(
        !t.contains("ServerPort") && !t.contains("MaxPlayers"),
        "{t}"
    );
}

#[test]
fn cli_flags_override_the_config_and_seed_zero_is_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let cfg = dir.path().join("ServerConfig.json");
    std::fs::write(
        &cfg,
        r#"{"MapSize": 512, "WorldSeed": 99, "ServerPort": 7777}"#,
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap();
    let o = islagen(&[
        "--size", "256", "--seed", "0", "--config", cfg, "--out", out,
    ]);
    let text_out = text(&o);
    assert!(o.status.success(), "{text_out}");
    assert!(
        text_out.contains("MapSize 256"),
        "--size overrides MapSize: {text_out}"
    );
    let seed: i64 = text_out
        .lines()
        .find_map(|l| l.strip_prefix("==> Seed "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("the resolved seed is printed: {text_out}"));
    assert!(seed > 0 && text_out.contains("randomized"), "{text_out}");
    // The resolved seed names the files.
    assert!(Path::new(out)
        .join(format!("MapData_Seed_{seed}.dat"))
        .exists());
    let o = islagen(&["--config", cfg, "--out", out]);
    assert!(
        text(&o).contains("==> Seed 99") && text(&o).contains("MapSize 512"),
        "{}",
        text(&o)
    );
    assert!(
        !text(&o).contains("ServerPort"),
        "unknown keys are listed only at debug level"
    );
    let o = islagen(&["-v", "--config", cfg, "--out", out]);
    assert!(text(&o).contains("ServerPort"), "{}", text(&o));
}

#[test]
fn generate_writes_both_blueprints_and_the_snapshots_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("world");
    let o = islagen(&[
        "--seed",
        "9",
        "--size",
        "256",
        "--skip-roads",
        "--out",
        out.to_str().unwrap(),
    ]);
    let summary = text(&o);
    assert!(o.status.success(), "{summary}");
    for needle in [
        "==> Seed 9",
        "land ",
        "islets",
        "lakes",
        "crater centre",
        "wrote",
        "SkipRoads",
    ] {
        assert!(
            summary.contains(needle),
            "summary lacks {needle:?}: {summary}"
        );
    }
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "MapData_Seed_9.dat",
            "MapData_Seed_9.structures.json",
            "MapData_Seed_9_v1.dat",
            "Map_Seed_9_0_height.png",
            "Map_Seed_9_0_water.png",
            "Map_Seed_9_1_biomes.png",
            "Map_Seed_9_2_towns.png"
        ],
        "exactly the outputs, no temporary files left"
    );
    let v2 = read_file(&out.join("MapData_Seed_9.dat")).unwrap();
    assert!(v2.warnings.is_empty(), "{:?}", v2.warnings);
    let bp = &v2.blueprint;
    assert_eq!((bp.params.world_seed, bp.params.map_size), (9, 256));
    assert!(bp.curve.is_some() && bp.detail.is_some());
    assert!(!bp.towns.is_empty() && bp.roads.highway.is_empty());
    assert!(bp.water_ids.is_some() && bp.water_bodies.is_some() && bp.water_surface.is_some());
    assert!(bp.params.impact_center_x >= 0.0 && bp.params.crater_radius == 64.0);
    let v1 = read_file(&out.join("MapData_Seed_9_v1.dat")).unwrap();
    assert!(v1.blueprint.heights == bp.heights && v1.blueprint.biomes == bp.biomes);
}

#[test]
fn output_is_identical_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    // Erosion on, with a short droplet lifetime so a 512 map holds several erosion tiles and the
    // parallel schedule really runs in parallel.
    let erosion = dir.path().join("erosion.json");
    std::fs::write(
        &erosion,
        r#"{"Erosion": "v1", "ErosionDropletCount": 20000, "ErosionDropletLifetime": 64}"#,
    )
    .unwrap();
    let run = |threads: &str, config: Option<&Path>| {
        let out = dir
            .path()
            .join(format!("threads-{threads}-{}", config.is_some()));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_islagen"));
        // The defaults (roads included), or the erosion config with --skip-roads.
        cmd.args(["--seed", "31", "--size", "512", "-q", "--out"])
            .arg(&out)
            .env("RAYON_NUM_THREADS", threads);
        if let Some(c) = config {
            cmd.arg("--config").arg(c).arg("--skip-roads");
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
        out
    };
    for config in [None, Some(erosion.as_path())] {
        let (one, two) = (run("1", config), run("2", config));
        let read = |dir: &Path, name: &str| std::fs::read(dir.join(name)).unwrap();
        let v2 = "MapData_Seed_31.dat";
        let (a, b) = (
            islagen::blueprint::digest::v2(&read(&one, v2)).unwrap(),
            islagen::blueprint::digest::v2(&read(&two, v2)).unwrap(),
        );
        assert_eq!(
            a, b,
            "v2 world content differs between 1 and 2 threads ({config:?})"
        );
        let has_eros = a.sections.iter().any(|(tag, _)| tag == "EROS");
        assert_eq!(has_eros, config.is_some());
        let roads = read_file(&one.join(v2)).unwrap().blueprint.roads;
        assert_eq!(
            roads.highway.is_empty(),
            config.is_some(),
            "roads iff not skipped"
        );
        let mut names = vec![
            "MapData_Seed_31_v1.dat",
            "Map_Seed_31_0_height.png",
            "Map_Seed_31_0_water.png",
            "Map_Seed_31_1_biomes.png",
            "Map_Seed_31_2_towns.png",
        ];
        if config.is_none() {
            names.push("Map_Seed_31_3_roads.png");
        }
        for name in names {
            assert!(
                read(&one, name) == read(&two, name),
                "{name} differs between 1 and 2 threads ({config:?})"
            );
        }
    }
}

#[test]
fn island_codes_export_decode_to_json_and_encode_back() {
    let dir = tempfile::tempdir().unwrap();
    let dat = small_world(dir.path(), "3", &[]);
    let code_file = dir.path().join("island.txt");
    let o = islagen(&[
        "export",
        "island-code",
        "--from",
        dat.to_str().unwrap(),
        "--side",
        "32",
        "--out",
        code_file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let code = std::fs::read_to_string(&code_file).unwrap();
    let png = dir.path().join("island.png");
    let o = islagen(&[
        "island-code",
        "decode",
        "--file",
        code_file.to_str().unwrap(),
        "--json",
        "--png",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(islagen::render::read_png(&png).unwrap().width, 32 * 8);
    let decoded: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        decoded["orientation"],
        islagen::formats::island_code::ORIENTATION,
        "the JSON says which way its rows run"
    );
    let json = dir.path().join("island.json");
    std::fs::write(&json, &o.stdout).unwrap();
    let o = islagen(&["island-code", "encode", json.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let again = String::from_utf8_lossy(&o.stdout);
    // The packed-int stream is identical (the DEFLATE bytes may differ).
    assert_eq!(
        islagen::formats::island_code::unpack(again.trim()).unwrap(),
        islagen::formats::island_code::unpack(code.trim()).unwrap()
    );
    // Garbage is a clean error.
    let o = islagen(&["island-code", "decode", "@@@"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("base64"), "{}", text(&o));
}

#[test]
fn structures_commands_and_the_assets_layout() {
    let dir = tempfile::tempdir().unwrap();
    small_world(dir.path(), "5", &["--assets-layout"]);
    let sidecar = dir.path().join("assets/MapData_Seed_5/structures.json");
    assert!(
        sidecar.exists(),
        "the assets layout puts the sidecar under assets/<mapName>/"
    );
    assert!(!dir.path().join("MapData_Seed_5.structures.json").exists());
    let (file, map) = (
        sidecar.to_str().unwrap(),
        dir.path().join("MapData_Seed_5.dat"),
    );
    let map = map.to_str().unwrap();
    let o = islagen(&["structures", "check", file, "--map", map]);
    assert!(
        o.status.success() && text(&o).contains("valid"),
        "{}",
        text(&o)
    );
    let normal = dir.path().join("normal.json");
    let o = islagen(&["structures", "normalize", file, normal.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        std::fs::read(&normal).unwrap(),
        std::fs::read(&sidecar).unwrap()
    );
    let o = islagen(&[
        "structures",
        "can-place",
        file,
        "poi",
        "1",
        "1",
        "--map",
        map,
        "--why",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).starts_with("no") && text(&o).contains("Water"),
        "{}",
        text(&o)
    );
    let broken = dir.path().join("broken.json");
    std::fs::write(
        &broken,
        r#"{"version": 1, "structures": [{"id": "a", "type": "x", "pixelX": 0, "pixelY": 0}]}"#,
    )
    .unwrap();
    let o = islagen(&["structures", "check", broken.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("structures[0].type"), "{}", text(&o));
}

/// Regression: `--entity` writes the game's entity types and their default classifications
/// (planet was written as 4, a managed asteroid, and every classification as 0).
#[test]
fn export_starmade_entity_flags_write_the_games_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let dat = small_world(dir.path(), "3", &[]);
    for (flag, code, class) in [
        ("asteroid", 3, 18),
        ("managed-asteroid", 4, 19),
        ("planet", 5, 20),
        ("station", 2, 9),
    ] {
        let out = dir.path().join(flag);
        let o = islagen(&[
            "export",
            "starmade",
            "--from",
            dat.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--width",
            "32",
            "--entity",
            flag,
        ]);
        assert!(o.status.success(), "{flag}: {}", text(&o));
        let o = islagen(&[
            "starmade",
            "inspect",
            out.join("Island_Seed_3.sment").to_str().unwrap(),
        ]);
        let want = format!("entity type {code}, classification {class},");
        assert!(
            o.status.success() && text(&o).contains(&want) && text(&o).contains("meta: version 5"),
            "{flag}: wanted {want:?}: {}",
            text(&o)
        );
    }
}

#[test]
fn starmade_inspect_write_and_export() {
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/starmade");
    let o = islagen(&[
        "starmade",
        "inspect",
        vectors.join("B_Box.sment").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    for needle in [
        "header v3",
        "151 blocks",
        "block histogram = element map",
        "meta: version",
    ] {
        assert!(
            text(&o).contains(needle),
            "inspect lacks {needle:?}: {}",
            text(&o)
        );
    }
    let o = islagen(&[
        "starmade",
        "inspect",
        "--json",
        vectors.join("B_Rail_Rotation.sment").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(!json["children"].as_array().unwrap().is_empty());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = islagen(&[
        "starmade",
        "write",
        vectors.join("0_161_6_ship.sment").to_str().unwrap(),
        "--out",
        out,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let o = islagen(&[
        "starmade",
        "inspect",
        dir.path().join("0_1616_ship").to_str().unwrap(),
    ]);
    assert!(
        o.status.success() && text(&o).contains("header v3"),
        "{}",
        text(&o)
    );
    // A world exported as a StarMade asteroid.
    let dat = small_world(dir.path(), "2", &[]);
    let o = islagen(&[
        "export",
        "starmade",
        "--from",
        dat.to_str().unwrap(),
        "--out",
        out,
        "--width",
        "64",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let o = islagen(&[
        "starmade",
        "inspect",
        dir.path().join("Island_Seed_2.sment").to_str().unwrap(),
    ]);
    assert!(
        o.status.success() && text(&o).contains("entity type 3"),
        "{}",
        text(&o)
    );
    // Garbage is a clean error.
    let junk = dir.path().join("junk.sment");
    std::fs::write(&junk, b"PK\x03\x04 no").unwrap();
    let o = islagen(&["starmade", "inspect", junk.to_str().unwrap()]);
    assert!(
        !o.status.success() && !text(&o).contains("panicked"),
        "{}",
        text(&o)
    );
}

/// A config written for the original's per-map erosion dials still runs, and the summary says
/// what its count and cells mean at this MapSize; the default dials print no such note.
#[test]
fn original_erosion_keys_are_honoured_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("legacy.json");
    std::fs::write(
        &cfg,
        r#"{"Erosion": "v1", "ErosionDropletCount": 20000, "ErosionDropletLifetime": 64}"#,
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap();
    let out = dir.path().join("out");
    let o = islagen(&[
        "--seed",
        "7",
        "--size",
        "256",
        "--skip-roads",
        "--config",
        cfg,
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains(
            "note: ErosionDropletCount 20000 is a count over the whole map: at MapSize 256 that is"
        ),
        "{t}"
    );
    assert!(
        t.contains("note: ErosionDropletLifetime 64 is in map cells: 2048 m at MapSize 256"),
        "{t}"
    );
    let dat = read_file(&out.join("MapData_Seed_7.dat"))
        .unwrap()
        .blueprint;
    assert_eq!(
        dat.erosion.unwrap().droplet_count,
        20_000,
        "EROS records the count drawn"
    );
    std::fs::write(dir.path().join("default.json"), r#"{"Erosion": "v1"}"#).unwrap();
    let o = islagen(&[
        "--seed",
        "7",
        "--size",
        "256",
        "--skip-roads",
        "--config",
        dir.path().join("default.json").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(o.status.success() && t.contains("per km² of land"), "{t}");
    assert!(!t.contains("note: Erosion"), "{t}");
}

/// A MapSize the machine cannot hold stops before any work, naming what it needs and has and
/// how to override; `--no-memory-check` overrides.
#[test]
fn a_map_too_large_for_the_memory_stops_before_generating() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--seed",
            "3",
            "--size",
            "256",
            "--skip-roads",
            "-q",
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_islagen"))
            .args(&args)
            .env("ISLAGEN_MEMORY_AVAILABLE", "1000000")
            .output()
            .expect("run islagen")
    };
    let o = run(&[]);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("MapSize 256 needs about") && t.contains("--no-memory-check"),
        "{t}"
    );
    assert!(
        !dir.path().join("MapData_Seed_3.dat").exists(),
        "nothing written"
    );
    let o = run(&["--no-memory-check"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(dir.path().join("MapData_Seed_3.dat").exists());
    // A sweep checks its seeds at once the same way.
    let sweep_dir = dir.path().join("sweep");
    let o = Command::new(env!("CARGO_BIN_EXE_islagen"))
        .args([
            "sweep",
            "--seeds",
            "1..2",
            "--size",
            "256",
            "--skip-roads",
            "--out",
        ])
        .arg(&sweep_dir)
        .env("ISLAGEN_MEMORY_AVAILABLE", "1000000")
        .output()
        .expect("run islagen sweep");
    assert!(
        !o.status.success() && text(&o).contains("needs about"),
        "{}",
        text(&o)
    );
    assert!(!sweep_dir.join("sweep.csv").exists());
}

/// `export heightmap | splat | geojson` from a world file, the sidecar printed as JSON
/// and written beside the file; the same files from `--export` on a generation and on a sweep.
#[test]
fn exports_for_engines_and_gis_from_a_file_a_generation_and_a_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let gen = dir.path().join("gen");
    let dat = small_world(&gen, "5", &["--export", "heightmap,splat,geojson"]);
    let from = dat.to_str().unwrap();
    let out = dir.path().join("x");
    let png = out.join("h.png");
    let o = islagen(&[
        "export",
        "heightmap",
        "--from",
        from,
        "--format",
        "png16",
        "--out",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let printed: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("the sidecar as JSON");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("h.png.json")).unwrap()).unwrap();
    assert_eq!(printed, written);
    for key in [
        "min_m",
        "max_m",
        "metres_per_unit",
        "metres_per_pixel",
        "sea_level_m",
    ] {
        assert!(printed[key].is_number(), "{key}");
    }
    for (format, file, extra) in [("r16", "h.r16", Some("257")), ("tiff", "h.tif", None)] {
        let mut args = vec!["export", "heightmap", "--from", from, "--format", format];
        let path = out.join(file);
        args.extend(["--out", path.to_str().unwrap()]);
        if let Some(n) = extra {
            args.extend(["--resample", n]);
        }
        let o = islagen(&args);
        assert!(o.status.success(), "{}", text(&o));
        assert!(path.exists() && out.join(format!("{file}.json")).exists());
    }
    assert_eq!(
        std::fs::metadata(out.join("h.r16")).unwrap().len(),
        257 * 257 * 2
    );
    let splat = out.join("splat");
    let o = islagen(&[
        "export",
        "splat",
        "--from",
        from,
        "--out",
        splat.to_str().unwrap(),
        "--blur",
        "64",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    for f in [
        "splat_0.png",
        "splat_1.png",
        "splat_2.png",
        "water.png",
        "roads.png",
        "rivers.png",
        "splat.json",
    ] {
        assert!(splat.join(f).exists(), "{f}");
    }
    let json = out.join("w.geojson");
    let o = islagen(&[
        "export",
        "geojson",
        "--from",
        from,
        "--out",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("water bodies"), "{}", text(&o));
    // the generation's exports are the same bytes as the commands' with default options
    let ex = gen.join("Map_Seed_5_exports");
    assert_eq!(
        std::fs::read(ex.join("height.png")).unwrap(),
        std::fs::read(&png).unwrap()
    );
    assert_eq!(
        std::fs::read(ex.join("world.geojson")).unwrap(),
        std::fs::read(&json).unwrap()
    );
    assert!(ex.join("splat/splat_2.png").exists() && !ex.join("height.tif").exists());
    // a sweep writes them for every seed
    let sweep = dir.path().join("sweep");
    let o = islagen(&[
        "sweep",
        "--seeds",
        "3..4",
        "--size",
        "256",
        "--skip-roads",
        "--export",
        "geojson",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    for seed in [3, 4] {
        assert!(sweep
            .join(format!("Map_Seed_{seed}_exports/world.geojson"))
            .exists());
    }
    // a rerun that asks for more exports adds them to the seeds already done
    std::fs::remove_dir_all(sweep.join("Map_Seed_3_exports")).unwrap();
    let o = islagen(&[
        "sweep",
        "--seeds",
        "3..4",
        "--size",
        "256",
        "--skip-roads",
        "--export",
        "r16",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("0 seeds generated, 2 already done"),
        "{}",
        text(&o)
    );
    assert!(sweep.join("Map_Seed_3_exports/height.r16").exists());
    // an unknown export is named with the accepted ones, before any work
    let o = islagen(&[
        "--seed",
        "5",
        "--size",
        "256",
        "--export",
        "obj",
        "--out",
        dir.path().join("no").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("\"obj\"") && text(&o).contains("geojson"),
        "{}",
        text(&o)
    );
    assert!(!dir.path().join("no").exists());
}

/// Every export of an unreadable blueprint (truncated, garbage, missing) fails with a
/// non-zero exit and a message naming the file and what is wrong, and writes nothing.
#[test]
fn exports_of_an_unreadable_blueprint_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (v2, _) = fixture(dir.path());
    let bytes = std::fs::read(&v2).unwrap();
    let truncated = dir.path().join("truncated.dat");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let garbage = dir.path().join("garbage.dat");
    std::fs::write(&garbage, b"this is not a blueprint at all, just text\n").unwrap();
    let missing = dir.path().join("missing.dat");
    let out = dir.path().join("out");
    for bad in [&truncated, &garbage, &missing] {
        let from = bad.to_str().unwrap();
        for args in [
            vec![
                "export",
                "heightmap",
                "--from",
                from,
                "--format",
                "tiff",
                "--out",
            ],
            vec!["export", "splat", "--from", from, "--out"],
            vec!["export", "geojson", "--from", from, "--out"],
        ] {
            let target = out.join("file");
            let mut args = args.clone();
            args.push(target.to_str().unwrap());
            let o = islagen(&args);
            let t = text(&o);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {t}");
            assert!(t.contains("error: reading") && t.contains(from), "{t}");
            assert!(!t.contains("panicked"), "{t}");
            assert!(!out.exists(), "nothing written for {from}");
        }
    }
    // what is wrong is said: the section and the byte offset where the file falls short
    let o = islagen(&[
        "export",
        "geojson",
        "--from",
        truncated.to_str().unwrap(),
        "--out",
        out.join("x.geojson").to_str().unwrap(),
    ]);
    assert!(text(&o).contains("at byte"), "{}", text(&o));
}

/// A log written to a pipe is plain text (no `ESC[32m INFO`), and `-q` prints nothing but the
/// seed line and warnings.
#[test]
fn logs_to_a_pipe_carry_no_colour_and_quiet_prints_only_the_seed_and_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let args = ["--seed", "5", "--size", "256", "--skip-roads", "--out", out];
    let loud = islagen(&args);
    assert!(loud.status.success(), "{}", text(&loud));
    let stderr = String::from_utf8_lossy(&loud.stderr);
    assert!(stderr.contains("INFO"), "{stderr}");
    assert!(
        !stderr.contains('\x1b'),
        "colour codes in a piped log: {stderr:?}"
    );
    assert!(String::from_utf8_lossy(&loud.stdout).contains("done in"));
    let quiet = islagen(&[&args[..], &["-q"]].concat());
    assert!(quiet.status.success(), "{}", text(&quiet));
    let stdout = String::from_utf8_lossy(&quiet.stdout);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["==> Seed 5"],
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    for line in stderr.lines() {
        assert!(
            line.contains("WARN") || line.contains("ERROR"),
            "-q printed {line:?}"
        );
    }
    assert!(
        stderr.contains("SkipRoads"),
        "the SkipRoads warning stays: {stderr}"
    );
}

/// On a terminal (a pty made by util-linux `script`) the log is coloured, unless `NO_COLOR` is
/// set (no-color.org).
#[test]
fn a_terminal_gets_colour_unless_no_color_is_set() {
    if Command::new("script").arg("--version").output().is_err() {
        crate::skip::skip(
            "SCRIPT",
            "util-linux `script` (to make a pty) is not installed",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = |no_color: Option<&str>| {
        let line = format!(
            "{} --seed 5 --size 256 --skip-roads --out {}",
            env!("CARGO_BIN_EXE_islagen"),
            dir.path().display()
        );
        let mut cmd = Command::new("script");
        cmd.args(["-qec", &line, "/dev/null"])
            .env_remove("NO_COLOR");
        if let Some(v) = no_color {
            cmd.env("NO_COLOR", v);
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
        // The log's green INFO (progress bars move the cursor with escapes of their own).
        String::from_utf8_lossy(&o.stdout).contains("\x1b[32m")
    };
    assert!(run(None), "no colour on a terminal");
    assert!(!run(Some("1")), "colour despite NO_COLOR=1");
}

/// `islagen config` prints every key of the one key table, and the README's key table is what
/// `islagen config --markdown` prints (regenerate it with that command when a key changes).
#[test]
fn the_key_table_is_listed_and_the_readme_holds_it() {
    let o = islagen(&["config", "--list"]);
    assert!(o.status.success(), "{}", text(&o));
    let listing = String::from_utf8(o.stdout).unwrap();
    for key in islagen::config::KNOWN_KEYS {
        assert!(
            listing
                .lines()
                .any(|l| l.split_whitespace().next() == Some(key)),
            "{key} is not listed"
        );
    }
    assert_eq!(islagen(&["config"]).stdout, listing.as_bytes());
    let o = islagen(&["config", "--markdown"]);
    assert!(o.status.success(), "{}", text(&o));
    let table = String::from_utf8(o.stdout).unwrap();
    assert_eq!(table, islagen::config::keys::markdown_table());
    assert_eq!(table.lines().count(), 2 + islagen::config::KNOWN_KEYS.len());
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme
        .find("<!-- keys:")
        .expect("the README marks its key table");
    let body = &readme[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    let end = body
        .find("<!-- /keys -->")
        .expect("the key table's end marker");
    assert_eq!(
        &body[..end],
        table,
        "README.md's key table is stale: replace it with `islagen config --markdown`"
    );
    let o = islagen(&["config", "--json"]);
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/ServerConfig.json");
    assert_eq!(o.stdout, std::fs::read(shipped).unwrap());
}

/// `--heightmap`: a hand-made cone (8-bit PNG with a range) becomes the world's land, recorded
/// in SHPE; a range without a heightmap, or a heightmap of no land, is an error naming it.
#[test]
fn a_heightmap_on_the_command_line_makes_the_land() {
    let dir = tempfile::tempdir().unwrap();
    let cone: Vec<u8> = (0..64 * 64)
        .map(|i| {
            let (x, y) = ((i % 64) as f32 - 31.5, (i / 64) as f32 - 31.5);
            (255.0 * (1.0 - x.hypot(y) / 24.0).clamp(0.0, 1.0)) as u8
        })
        .collect();
    let path = dir.path().join("cone.png");
    let mut e = png::Encoder::new(std::fs::File::create(&path).unwrap(), 64, 64);
    e.set_color(png::ColorType::Grayscale);
    e.write_header().unwrap().write_image_data(&cone).unwrap();
    let hm = path.to_str().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let base = ["--seed", "3", "--size", "256", "--skip-roads", "--out", out];
    let run = |extra: &[&str]| islagen(&[&base[..], extra].concat());
    let o = run(&["--heightmap", hm, "--heightmap-range", "-40,300"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = islagen(&["inspect", &format!("{out}/MapData_Seed_3.dat")]);
    assert!(
        text(&o).contains("shaped by   Heightmap cone.png"),
        "{}",
        text(&o)
    );
    let o = run(&["--heightmap-range", "-40,300"]);
    assert!(
        !o.status.success() && text(&o).contains("--heightmap FILE"),
        "{}",
        text(&o)
    );
    let o = run(&["--heightmap", hm, "--heightmap-range", "-300,-40"]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("cone.png") && text(&o).contains("above sea level"),
        "{}",
        text(&o)
    );
}
