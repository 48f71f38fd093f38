//! Sweeps end to end through the command line: the table, the contact sheet, resuming, shards
//! and merging.

use crate::sweep_table::rows;
use std::path::Path;
use std::process::{Command, Output};

fn islagen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_islagen"))
        .args(args)
        .output()
        .expect("run islagen")
}

fn ok(o: &Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{text}");
    text
}

/// Each row's cells under the CSV columns `names`, as text.
fn columns(dir: &Path, names: &[&str]) -> Vec<Vec<String>> {
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at: Vec<usize> = names
        .iter()
        .map(|n| {
            header
                .iter()
                .position(|h| h == n)
                .unwrap_or_else(|| panic!("sweep.csv has no column {n}: {header:?}"))
        })
        .collect();
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            assert_eq!(cells.len(), header.len(), "{l}");
            at.iter().map(|&i| cells[i].to_string()).collect()
        })
        .collect()
}

const RIVER_COLUMNS: [&str; 4] = ["rivers", "river_systems", "river_px", "river_km"];

#[test]
fn a_sweep_writes_its_table_resumes_and_shards_merge_to_the_same_table() {
    let tmp = tempfile::tempdir().unwrap();
    let all = tmp.path().join("all");
    let all_s = all.to_str().unwrap();
    let text = ok(&islagen(&[
        "sweep", "--seeds", "3..5", "--size", "256", "--out", all_s,
    ]));
    assert!(text.contains("3 seeds generated"), "{text}");
    let table = rows(&all);
    assert_eq!(table.len(), 3);
    assert!(table[0].starts_with("3,256,") && table[2].starts_with("5,256,"));
    let jsonl = std::fs::read_to_string(all.join("sweep.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), 3);
    let first: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    for key in [
        "land_fraction",
        "biomes",
        "towns",
        "road_m",
        "basins",
        "rivers",
        "river_systems",
        "river_px",
        "river_km",
        "seconds",
        "bytes",
    ] {
        assert!(first.get(key).is_some(), "record lacks {key}");
    }
    // Rivers are on by default: every seed has some, in the CSV and in the JSON lines alike.
    for (cells, line) in columns(&all, &RIVER_COLUMNS).iter().zip(jsonl.lines()) {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        for (cell, key) in cells.iter().zip(RIVER_COLUMNS) {
            let v: f64 = cell.parse().unwrap_or_else(|_| panic!("{key} = {cell:?}"));
            let json = record[key].as_f64().unwrap_or(f64::NAN);
            assert!(v > 0.0, "seed {}: {key} = {v}", record["seed"]);
            assert!((v - json).abs() <= 0.01, "{key}: csv {v}, json {json}");
        }
        assert!(
            record["river_systems"].as_u64() <= record["rivers"].as_u64(),
            "{record}"
        );
    }
    let sheet = islagen::render::read_png(&all.join("contact_sheet.png")).unwrap();
    assert!(sheet.width >= 2 * islagen::sweep::THUMB && sheet.height >= 2 * islagen::sweep::THUMB);
    let leftovers: Vec<_> = std::fs::read_dir(&all)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind");

    // A rerun skips finished seeds; a seed whose record is gone is generated again.
    let text = ok(&islagen(&[
        "sweep", "--seeds", "3..5", "--size", "256", "--out", all_s,
    ]));
    assert!(text.contains("0 seeds generated, 3 already done"), "{text}");
    // A sweep killed while writing its table left a temporary file beside it; with every seed
    // done no seed's export cleans the folder, so the rerun itself must.
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let stale = all.join(format!(".sweep.csv.islagen-{dead}-0.tmp"));
    std::fs::write(&stale, b"partial").unwrap();
    ok(&islagen(&[
        "sweep", "--seeds", "3..5", "--size", "256", "--out", all_s,
    ]));
    assert!(
        !stale.exists(),
        "a dead sweep's temporary file is left behind"
    );
    std::fs::remove_file(all.join("records/Seed_4.json")).unwrap();
    let text = ok(&islagen(&[
        "sweep", "--seeds", "3..5", "--size", "256", "--out", all_s,
    ]));
    assert!(text.contains("1 seeds generated, 2 already done"), "{text}");
    assert_eq!(rows(&all), table, "a regenerated seed gives the same row");

    // Two shards, merged, give the same table as the whole sweep.
    let mut shards = Vec::new();
    for k in 0..2 {
        let dir = tmp.path().join(format!("shard{k}"));
        let shard = format!("{k}/2");
        ok(&islagen(&[
            "sweep",
            "--seeds",
            "3..5",
            "--size",
            "256",
            "--shard",
            &shard,
            "--out",
            dir.to_str().unwrap(),
        ]));
        shards.push(dir);
    }
    assert_eq!(rows(&shards[0]).len(), 2, "shard 0/2 takes seeds 3 and 5");
    assert_eq!(rows(&shards[1]).len(), 1, "shard 1/2 takes seed 4");
    let merged = tmp.path().join("merged");
    ok(&islagen(&[
        "sweep",
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]));
    assert_eq!(rows(&merged), table);
    assert!(merged.join("contact_sheet.png").exists());

    // With Rivers off the river cells are empty and the records hold null, as the road lengths
    // are with SkipRoads.
    let off = tmp.path().join("off");
    let config = tmp.path().join("rivers_off.json");
    std::fs::write(&config, r#"{"Rivers": "off"}"#).unwrap();
    ok(&islagen(&[
        "sweep",
        "--seeds",
        "3",
        "--size",
        "256",
        "--config",
        config.to_str().unwrap(),
        "--out",
        off.to_str().unwrap(),
    ]));
    assert_eq!(columns(&off, &RIVER_COLUMNS), vec![vec![String::new(); 4]]);
    let jsonl = std::fs::read_to_string(off.join("sweep.jsonl")).unwrap();
    let record: serde_json::Value = serde_json::from_str(jsonl.trim()).unwrap();
    for key in RIVER_COLUMNS {
        assert!(record[key].is_null(), "{key}: {record}");
    }

    // Bad input is an error, not a panic.
    let o = islagen(&["sweep", "--seeds", "0..2", "--size", "256", "--out", all_s]);
    assert!(!o.status.success());
    let o = islagen(&["sweep", "--seeds", "1..2", "--shard", "2/2", "--out", all_s]);
    assert!(!o.status.success());
}
