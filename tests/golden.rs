//! Golden regression: fixed seeds are regenerated through the real pipeline and export, and
//! compared with `golden/` — the world digest of each `.dat` (every byte but the PRMS provenance
//! strings; per section for v2) and every snapshot pixel.
//!
//! On a mismatch the test names the first differing v2 section and, for each changed snapshot,
//! writes the new image and a per-pixel diff image (`*_diff.png`, changed pixels magenta) into
//! its output folder, printed in the failure message.
//!
//! `scripts/update-golden.sh` (ISLAGEN_UPDATE_GOLDEN=1) rewrites `golden/` on purpose.

use std::path::{Path, PathBuf};

use islagen::blueprint::digest;
use islagen::config::{Config, ErosionModel};
use islagen::progress::Progress;
use islagen::{pipeline, render as snapshot};
use serde::{Deserialize, Serialize};

/// (seed, MapSize, Erosion, rivers): seeds at 512 and one at 1024 with the defaults (fluvial
/// relief, roads and rivers included), one at 512 with droplet erosion (v1), and one with
/// erosion and rivers off — its digests are those of the pipeline before rivers and the fluvial
/// relief existed, which proves "off" leaves no trace.
const CASES: [(i32, u32, &str, bool); 5] = [
    (1, 512, "v2", true),
    (42, 512, "v2", true),
    (1_280_587_109, 512, "off", false),
    (42, 1024, "v2", true),
    (7, 512, "v1", true),
];
const SNAPSHOTS: [&str; 5] = ["0_height", "0_water", "1_biomes", "2_towns", "3_roads"];

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Entry {
    seed: i32,
    map_size: u32,
    /// The Erosion model: "v2" (the default), "v1" or "off".
    #[serde(default = "erosion_off")]
    erosion: String,
    #[serde(default = "rivers_on")]
    rivers: bool,
    /// World digest of the v2 file.
    v2_world: String,
    /// Per v2 section, in file order: [tag, digest].
    v2_sections: Vec<[String; 2]>,
    /// Digest of the whole v1 file.
    v1: String,
    /// Digest of the structures.json sidecar.
    #[serde(default)]
    structures: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    /// What this file is.
    about: String,
    worlds: Vec<Entry>,
}

fn rivers_on() -> bool {
    true
}

fn erosion_off() -> String {
    "off".into()
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("golden")
}

fn image_name(seed: i32, snapshot: &str) -> String {
    format!("Map_Seed_{seed}_{snapshot}.png")
}

/// Generates and exports one case into a fresh folder; returns the folder and its entry.
fn regenerate(seed: i32, size: u32, erosion: &str, rivers: bool) -> (PathBuf, Entry) {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("golden")
        .join(format!("{seed}_{size}"));
    let _ = std::fs::remove_dir_all(&out);
    let mut config = Config::from_json("{}", "defaults").unwrap().config;
    config.map_size = size;
    config.erosion.model = match erosion {
        "v2" => ErosionModel::Fluvial,
        "v1" => ErosionModel::Droplets,
        _ => ErosionModel::Off,
    };
    config.rivers = rivers;
    // The command line's path: the blueprint heads and the land's snapshots written while the
    // roads are searched.
    pipeline::generate_and_export(
        &config,
        seed,
        &out,
        pipeline::SidecarLayout::Beside,
        &Progress::hidden(),
    )
    .unwrap();
    let names = pipeline::OutputNames::of(seed);
    let (v2_name, v1_name, sidecar) = (&names.v2, &names.v1, &names.sidecar);
    let v2 = digest::v2(&std::fs::read(out.join(v2_name)).unwrap()).unwrap();
    let v1 = digest::v1(&std::fs::read(out.join(v1_name)).unwrap());
    let entry = Entry {
        seed,
        map_size: size,
        erosion: erosion.into(),
        rivers,
        v2_world: v2.world,
        v2_sections: v2.sections.into_iter().map(|(t, h)| [t, h]).collect(),
        v1,
        structures: digest::sha256(&std::fs::read(out.join(sidecar)).unwrap()),
    };
    (out, entry)
}

#[test]
fn golden_worlds_are_unchanged() {
    let update = std::env::var_os("ISLAGEN_UPDATE_GOLDEN").is_some();
    let manifest_path = golden_dir().join("manifest.json");
    let manifest: Manifest = if update {
        Manifest::default()
    } else {
        let text = std::fs::read_to_string(&manifest_path)
            .expect("golden/manifest.json missing: run scripts/update-golden.sh");
        serde_json::from_str(&text).expect("golden/manifest.json is not a manifest")
    };
    let mut fresh = Vec::new();
    let mut failures = Vec::new();
    for (seed, size, erosion, rivers) in CASES {
        let (out, entry) = regenerate(seed, size, erosion, rivers);
        let image_dir = golden_dir().join(size.to_string());
        if update {
            std::fs::create_dir_all(&image_dir).unwrap();
            for s in SNAPSHOTS {
                std::fs::copy(
                    out.join(image_name(seed, s)),
                    image_dir.join(image_name(seed, s)),
                )
                .unwrap();
            }
            fresh.push(entry);
            continue;
        }
        let case = format!(
            "seed {seed} at {size} with erosion {erosion}{}",
            if rivers { "" } else { " without rivers" }
        );
        match manifest.worlds.iter().find(|e| {
            e.seed == seed && e.map_size == size && e.erosion == erosion && e.rivers == rivers
        }) {
            None => failures.push(format!("{case}: not in golden/manifest.json")),
            Some(golden) => {
                if golden.v2_world != entry.v2_world {
                    let first = golden
                        .v2_sections
                        .iter()
                        .zip(&entry.v2_sections)
                        .find(|(a, b)| a != b)
                        .map(|(a, b)| {
                            if a[0] == b[0] {
                                format!("section {} differs", a[0])
                            } else {
                                format!("section order differs: {} where {} was", b[0], a[0])
                            }
                        })
                        .unwrap_or_else(|| "the section list differs in length".to_string());
                    failures.push(format!("{case}: v2 world digest differs; first: {first}"));
                }
                if golden.v1 != entry.v1 {
                    failures.push(format!("{case}: v1 file digest differs"));
                }
                if golden.structures != entry.structures {
                    failures.push(format!("{case}: structures.json differs"));
                }
            }
        }
        for s in SNAPSHOTS {
            let name = image_name(seed, s);
            let new = snapshot::read_png(&out.join(&name)).unwrap();
            match snapshot::read_png(&image_dir.join(&name)) {
                Err(e) => failures.push(format!("{case}: golden image {name}: {e}")),
                Ok(old) if old == new => {}
                Ok(old) if (old.width, old.height) != (new.width, new.height) => {
                    failures.push(format!(
                        "{case}: {name} is {}×{}, golden {}×{}",
                        new.width, new.height, old.width, old.height
                    ))
                }
                Ok(old) => {
                    let changed = old
                        .rgb
                        .chunks_exact(3)
                        .zip(new.rgb.chunks_exact(3))
                        .filter(|(a, b)| a != b)
                        .count();
                    let diff = out.join(name.replace(".png", "_diff.png"));
                    snapshot::write_png(&diff, &snapshot::diff_image(&old, &new)).unwrap();
                    failures.push(format!(
                        "{case}: {name}: {changed} pixels differ; new image and diff in {}",
                        out.display()
                    ));
                }
            }
        }
    }
    if update {
        let manifest = Manifest {
            about: "World digests of the golden worlds (tests/golden.rs); regenerate with \
                    scripts/update-golden.sh"
                .to_string(),
            worlds: fresh,
        };
        let text = serde_json::to_string_pretty(&manifest).unwrap() + "\n";
        std::fs::write(&manifest_path, text).unwrap();
        return;
    }
    assert!(
        failures.is_empty(),
        "golden regression:\n  {}",
        failures.join("\n  ")
    );
}

/// The overlapped export (`generate_and_export`, the command line's) writes exactly the files,
/// in the same order with the same bytes, that `generate` then `export` write; only the v2
/// provenance (the time of writing) may differ.
/// `pipeline::stage_names` is what a run reports, for each branch the list has (erosion model,
/// rivers, roads): `islagen serve`'s progress fraction divides by its length.
#[test]
fn the_stage_list_is_what_a_run_reports() {
    use islagen::config::ErosionModel;
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("golden-stages");
    let _ = std::fs::remove_dir_all(&root);
    let mut config = Config::from_json("{}", "defaults").unwrap().config;
    config.map_size = 256;
    let writes = ["write v2", "write v1", "snapshots", "write roads"];
    for (n, (model, rivers, skip_roads)) in [
        (ErosionModel::Fluvial, true, false),
        (ErosionModel::Droplets, false, true),
        (ErosionModel::Off, true, true),
        (ErosionModel::Off, false, false),
    ]
    .into_iter()
    .enumerate()
    {
        (config.erosion.model, config.rivers, config.skip_roads) = (model, rivers, skip_roads);
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        let listed: Vec<String> = pipeline::stage_names(&config)
            .into_iter()
            .map(String::from)
            .collect();
        let progress = Progress::hidden();
        pipeline::generate_and_export(
            &config,
            7,
            &root.join(n.to_string()),
            pipeline::SidecarLayout::Beside,
            &progress,
        )
        .unwrap();
        let reported = progress
            .timings()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert_eq!(
            sorted(reported),
            sorted(listed.clone()),
            "{model:?} {rivers} {skip_roads}"
        );
        let progress = Progress::hidden();
        pipeline::generate(&config, 7, &progress).unwrap();
        let reported: Vec<String> = progress
            .timings()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        let without_writes = listed.into_iter().filter(|s| !writes.contains(&s.as_str()));
        assert_eq!(sorted(reported.clone()), sorted(without_writes.collect()));
        // Stages run side by side where neither reads the other's output, so the order they
        // finish in varies; a stage reading another's output still finishes after it.
        let at = |name: &str| reported.iter().position(|s| s == name);
        let reads = [
            ("mainland", "topography"),
            ("crater", "mainland"),
            ("water", "crater"),
            ("elevation", "water"),
            ("fluvial relief", "elevation"),
            ("erosion", "elevation"),
            ("rivers", "fluvial relief"),
            ("rivers", "elevation"),
            ("biomes", "elevation"),
            ("water bodies", "rivers"),
            ("basins", "rivers"),
            ("towns", "water bodies"),
            ("statistics", "water bodies"),
            ("grading", "towns"),
            ("grading", "basins"),
        ];
        for (reader, read) in reads {
            if let (Some(a), Some(b)) = (at(reader), at(read)) {
                assert!(a > b, "{reader} finished before {read}: {reported:?}");
            }
        }
    }
}

#[test]
fn the_overlapped_export_writes_what_export_writes() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("golden-overlap");
    let _ = std::fs::remove_dir_all(&root);
    let mut config = Config::from_json("{}", "defaults").unwrap().config;
    config.map_size = 512;
    for skip_roads in [false, true] {
        config.skip_roads = skip_roads;
        let (a, b) = (
            root.join(format!("a{skip_roads}")),
            root.join(format!("b{skip_roads}")),
        );
        let progress = Progress::hidden();
        let mut world = pipeline::generate(&config, 7, &progress).unwrap();
        let plain = pipeline::export(&mut world, &a, &progress).unwrap();
        let (overlapped_world, overlapped) = pipeline::generate_and_export(
            &config,
            7,
            &b,
            pipeline::SidecarLayout::Beside,
            &progress,
        )
        .unwrap();
        assert_eq!(world.blueprint.roads, overlapped_world.blueprint.roads);
        assert_eq!(overlapped.len(), if skip_roads { 7 } else { 8 });
        assert_eq!(plain.len(), overlapped.len());
        for (p, o) in plain.iter().zip(&overlapped) {
            assert_eq!(p.path.file_name(), o.path.file_name());
            assert_eq!(p.bytes, o.bytes, "{}", o.path.display());
            let (pb, ob) = (
                std::fs::read(&p.path).unwrap(),
                std::fs::read(&o.path).unwrap(),
            );
            assert_eq!(pb.len() as u64, o.bytes, "{}", o.path.display());
            if o.path.extension().is_some_and(|e| e == "dat") && pb.starts_with(b"ISLA") {
                let (pd, od) = (digest::v2(&pb).unwrap(), digest::v2(&ob).unwrap());
                assert_eq!(pd.world, od.world, "{}", o.path.display());
            } else {
                assert!(pb == ob, "{} differs", o.path.display());
            }
        }
        let left: Vec<_> = std::fs::read_dir(&b)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "temporary files left: {left:?}");
    }
}
