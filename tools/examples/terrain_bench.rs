//! Terrain timing at one MapSize (default 8192), with the noise crate's own cost measured in the
//! same process as the baseline:
//!
//! - `raw fBm`: fastnoise-lite's OpenSimplex2 fBm with the topography's full octave count (7),
//!   one call per pixel over the whole map, in parallel — what a naive topography pays for noise
//!   alone;
//! - `topography`: islagen's topography stage over the same map (noise, spine, falloff, Trench,
//!   coast warp, islets);
//! - then the whole generation and export (blueprints and snapshots), stage by stage.
//!
//! `cargo run --release -p islagen-tools --example terrain_bench -- [SIZE] [SEED] [OUT_DIR]`

use std::time::Instant;

use islagen::config::Config;
use islagen::grid::noise::{normalised, Fbm};
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::sea::{SeaLevel, SeaModel};
use islagen::stages::topography::{topography, Shape, TopographyParams};
use ndarray::Array2;
use rayon::prelude::*;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(8192);
    let seed: i32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let out = std::path::PathBuf::from(args.get(2).map_or("target/bench-terrain", |s| s.as_str()));
    let samples = (size * size) as f64;
    println!(
        "MapSize {size}, seed {seed}, {} threads",
        rayon::current_num_threads()
    );

    // Baseline: the crate's raw 7-octave fBm at every pixel, written into a map like ours.
    let fbm = Fbm::new(seed, 3.0, 7);
    let t = Instant::now();
    let mut raw = Array2::<f32>::zeros((size, size));
    raw.outer_iter_mut()
        .into_par_iter()
        .enumerate()
        .for_each(|(x, mut column)| {
            let u = normalised(x, size);
            for (y, v) in column.iter_mut().enumerate() {
                *v = fbm.at(u, normalised(y, size));
            }
        });
    let raw_s = t.elapsed().as_secs_f64();
    std::hint::black_box(&raw);
    drop(raw);

    let t = Instant::now();
    let topo = topography(
        &Shape::new(&TopographyParams {
            seed,
            map_size: size,
            axis_x: 1.30,
            axis_y: 0.78,
            islet_density: 0.02,
            spine_variation: 1.0,
            coast_variation: 1.0,
            sea: SeaLevel::new(SeaModel::Flat(0.15), size),
            island_mask: None,
            relief_mask: None,
        }),
        &|| {},
    );
    let topo_s = t.elapsed().as_secs_f64();
    std::hint::black_box(&topo);
    drop(topo);
    println!(
        "raw fBm (7 octaves)  {raw_s:7.3} s  {:6.1} ns/sample",
        raw_s * 1e9 / samples
    );
    println!(
        "topography           {topo_s:7.3} s  {:6.1} ns/sample  = {:.2} × raw fBm",
        topo_s * 1e9 / samples,
        topo_s / raw_s
    );

    let mut config = Config::from_json("{}", "defaults")?.config;
    config.map_size = size as u32;
    config.skip_roads = true;
    let progress = Progress::hidden();
    let t = Instant::now();
    let mut world = pipeline::generate(&config, seed, &progress)?;
    let generate_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let written = pipeline::export(&mut world, &out, &progress)?;
    let export_s = t.elapsed().as_secs_f64();
    for (stage, d) in progress.timings() {
        println!("  {stage:<12} {:7.3} s", d.as_secs_f64());
    }
    println!("generate             {generate_s:7.3} s");
    println!("export (concurrent)  {export_s:7.3} s");
    println!("generate + export    {:7.3} s", generate_s + export_s);
    for w in written {
        println!("  {} {} bytes", w.path.display(), w.bytes);
        std::fs::remove_file(&w.path)?;
    }
    Ok(())
}
