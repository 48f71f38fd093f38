//! Replays every fuzz target's committed corpus (`fuzz/corpus/TARGET/`) and every input a fuzz
//! run ever found (`fuzz/regressions/TARGET/`) through the same function the libFuzzer target
//! calls, on the stable toolchain: a parser change that makes any of them panic fails CI even
//! where libFuzzer cannot run. `scripts/fuzz.sh` runs the targets themselves.

use std::path::Path;

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 8] = [
    ("dat_read", islagen::fuzzing::dat),
    ("island_code", islagen::fuzzing::island_code),
    ("starmade_folder", islagen::fuzzing::starmade_folder),
    ("starmade_zip", islagen::fuzzing::starmade_zip),
    ("structures", islagen::fuzzing::structures),
    ("config", islagen::fuzzing::config),
    ("raster", islagen::fuzzing::raster),
    ("pins", islagen::fuzzing::pins),
];

fn replay(folder: &Path, target: Target) -> usize {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let outcome = std::panic::catch_unwind(|| target(&data));
        assert!(outcome.is_ok(), "{} panics its target", path.display());
    }
    files.len()
}

#[test]
fn every_corpus_and_regression_input_passes_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    for (name, target) in TARGETS {
        let corpus = replay(&root.join("corpus").join(name), target);
        let regressions = replay(&root.join("regressions").join(name), target);
        assert!(corpus > 0, "{name}: no corpus in fuzz/corpus/{name}");
        eprintln!("{name}: {corpus} corpus inputs, {regressions} regressions");
    }
}

/// The folder-image framing the StarMade folder target reads is its own inverse.
#[test]
fn folder_images_frame_and_unframe() {
    use islagen::fuzzing::{folder_image, to_folder_image};
    let mut files = std::collections::BTreeMap::new();
    files.insert("header.smbph".to_string(), vec![1, 2, 3]);
    files.insert("DATA/x.0.0.0.smd3".to_string(), vec![0; 300]);
    assert_eq!(folder_image(&to_folder_image(&files)), files);
    // A truncated body keeps what is there; a truncated frame ends the image.
    let image = to_folder_image(&files);
    let cut = folder_image(&image[..image.len() - 2]);
    assert_eq!(cut["header.smbph"], vec![1]);
    assert_eq!(folder_image(&image[..image.len() - 10]).len(), 1);
    assert!(folder_image(b"no nul at all").is_empty());
}
