//! Crash safety: a generation killed with SIGKILL — during each stage and during the file
//! writes — never leaves a file under its final name that is incomplete, and leaves only
//! temporary files that are recognisably islagen's; the next run into that folder removes the
//! stale ones and touches nothing else.
#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use islagen::blueprint;
use islagen::progress::ProgressEvent;
use islagen::render::read_png;

const SEED: &str = "5";

fn generation(out: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_islagen"));
    c.args(["--seed", SEED, "--size", "256", "--progress-json", "--out"])
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    c
}

/// Whether a line of the generation's stdout is a stage's finish event.
fn finished(line: &str) -> bool {
    matches!(
        serde_json::from_str::<ProgressEvent>(line),
        Ok(ProgressEvent::Finish { .. })
    )
}

/// Every file under a final name is whole; every other file is an islagen temporary.
fn assert_consistent(dir: &Path, when: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return; // killed before the folder was made
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        if name.starts_with('.') {
            assert!(
                name.contains(".islagen-") && name.ends_with(".tmp"),
                "{when}: {name} is not an islagen temporary"
            );
        } else if name.ends_with(".dat") {
            let loaded = blueprint::read_file(&path)
                .unwrap_or_else(|e| panic!("{when}: {name} does not read: {e}"));
            let unexpected: Vec<_> = loaded
                .warnings
                .iter()
                .filter(|w| !matches!(w, blueprint::LoadWarning::V1Deprecated))
                .collect();
            assert!(unexpected.is_empty(), "{when}: {name}: {unexpected:?}");
            islagen::blueprint::roundtrip::roundtrip(&loaded)
                .unwrap_or_else(|e| panic!("{when}: {name} does not round-trip: {e}"));
        } else if name.ends_with(".png") {
            read_png(&path).unwrap_or_else(|e| panic!("{when}: {name} does not decode: {e}"));
        } else if name.ends_with(".json") {
            let text = std::fs::read_to_string(&path).unwrap();
            islagen::formats::structures::parse(&text)
                .unwrap_or_else(|e| panic!("{when}: {name} does not parse: {e}"));
        } else {
            panic!("{when}: unexpected file {name}");
        }
    }
}

/// Runs a generation and kills it `delay` after its `stage`-th finished stage (0 = before the
/// first one finishes). Returns whether it was still running when killed.
fn kill_after(out: &Path, stage: usize, delay: Duration) -> bool {
    let mut child = generation(out).spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let mut done = 0;
    while done < stage {
        match lines.next() {
            Some(Ok(line)) if finished(&line) => done += 1,
            Some(_) => {}
            None => break,
        }
    }
    std::thread::sleep(delay);
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    running
}

#[test]
fn sigkill_at_any_point_leaves_only_whole_files_and_our_temporaries() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("world");
    // How many stages a whole run reports.
    let full = generation(&out).output().unwrap();
    assert!(full.status.success());
    let stages = String::from_utf8_lossy(&full.stdout)
        .lines()
        .filter(|l| finished(l))
        .count();
    assert!(stages >= 12, "{stages} stages reported");
    std::fs::remove_dir_all(&out).unwrap();

    let mut killed_running = 0;
    for stage in 0..=stages {
        for delay_ms in [0, 3] {
            let when = format!("killed {delay_ms} ms after stage {stage}");
            if kill_after(&out, stage, Duration::from_millis(delay_ms)) {
                killed_running += 1;
            }
            assert_consistent(&out, &when);
        }
    }
    assert!(
        killed_running >= stages,
        "only {killed_running} kills hit a running generation"
    );

    // Leave a stale temporary of a dead process and files that are not ours; the next run
    // removes the first and keeps the rest.
    std::fs::create_dir_all(&out).unwrap();
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let stale = out.join(format!(".MapData_Seed_{SEED}.dat.islagen-{dead}-0.tmp"));
    std::fs::write(&stale, b"half a file").unwrap();
    let theirs = [out.join("notes.txt"), out.join(".editor.swp.tmp")];
    for f in &theirs {
        std::fs::write(f, b"not islagen's").unwrap();
    }
    assert!(generation(&out).status().unwrap().success());
    assert!(!stale.exists(), "the stale temporary survived the next run");
    for f in &theirs {
        assert_eq!(std::fs::read(f).unwrap(), b"not islagen's");
    }
    let leftovers: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".islagen-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    for f in &theirs {
        std::fs::remove_file(f).unwrap();
    }
    assert_consistent(&out, "after the clean run");
}
