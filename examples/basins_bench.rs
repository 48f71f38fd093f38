//! Priority-flood timing on a generated world's final heights, for `scripts/bench-basins.sh`:
//! fills the map with the map edge as the outlet (RichDEM's convention) and with the ocean as
//! the outlet (the generator's), three times each, and writes the heights and the edge-outlet
//! fill as raw little-endian f32 files (`[x][y]`, X outer) for RichDEM to run on and be compared
//! with.
//!
//! `cargo run --release --example basins_bench -- [SIZE] [SEED] [DIR]`

use std::io::Write;
use std::time::Instant;

use islagen::config::Config;
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::stages::basins::{basin_stats, fill_depressions, Outlets};

fn write_f32(path: &std::path::Path, values: &[f32]) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    for v in values {
        f.write_all(&v.to_le_bytes())?;
    }
    f.flush()
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or(8192);
    let seed: i32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let dir = std::path::PathBuf::from(args.get(2).map_or("target/bench-basins", |s| s.as_str()));
    std::fs::create_dir_all(&dir)?;
    let mut config = Config::from_json("{}", "defaults")?.config;
    config.map_size = size;
    let world = pipeline::generate(&config, seed, &Progress::hidden())?;
    let heights = &world.blueprint.heights;
    let mut edge = None;
    for run in 1..=3 {
        let t = Instant::now();
        let filled = fill_depressions(heights, Outlets::MapEdge);
        println!(
            "islagen edge-outlet fill, run {run}: {:.3} s",
            t.elapsed().as_secs_f64()
        );
        edge = Some(filled);
    }
    for run in 1..=3 {
        let t = Instant::now();
        let filled = fill_depressions(heights, Outlets::Ocean(&world.water));
        let fill_s = t.elapsed().as_secs_f64();
        let stats = basin_stats(heights, &filled);
        println!(
            "islagen ocean-outlet fill, run {run}: {fill_s:.3} s (+ statistics {:.3} s): {} basins",
            t.elapsed().as_secs_f64() - fill_s,
            stats.basins
        );
    }
    write_f32(
        &dir.join("heights.f32"),
        heights.as_slice().expect("standard layout"),
    )?;
    let edge = edge.expect("three runs");
    write_f32(
        &dir.join("filled.f32"),
        edge.as_slice().expect("standard layout"),
    )?;
    println!("size {size}");
    Ok(())
}
