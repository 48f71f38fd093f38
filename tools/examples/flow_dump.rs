//! Dumps the rivers stage's hydrology grid and times its flow kernel (ε-Priority-Flood +
//! multiple-flow-direction accumulation), for `scripts/flow-peer.sh`, which runs a peer's
//! kernel (pysheds) on the same heights and compares.
//!
//! `cargo run --release -p islagen-tools --example flow_dump -- [SEED] [OUT_DIR]` (default 7, target/flow-peer)
//! writes `heights.f32` (1024² little-endian f32 raw heights, outlets set to −1) and `acc.f32`
//! (our catchment in cells), both indexed `x * 1024 + y` (X outer) like every map here, and
//! prints the kernel's best time of five runs.

use std::time::Instant;

use islagen::config::Config;
use islagen::pipeline;
use islagen::stages::rivers::{flow, GRID};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let seed: i32 = args.get(1).map_or(Ok(7), |s| s.parse())?;
    let out = std::path::PathBuf::from(args.get(2).map_or("target/flow-peer", String::as_str));
    std::fs::create_dir_all(&out)?;
    let mut config = Config::from_json("{}", "defaults")?.config;
    config.map_size = 1024;
    let (z, outlet) = pipeline::hydrology_grid(&config, seed);
    let mut best = f64::INFINITY;
    let mut acc = Vec::new();
    for _ in 0..5 {
        let mut filled = z.clone();
        let t = Instant::now();
        acc = flow(&mut filled, &outlet, GRID).1;
        best = best.min(t.elapsed().as_secs_f64());
    }
    let dem: Vec<f32> = z
        .iter()
        .zip(&outlet)
        .map(|(&h, &o)| if o { -1.0 } else { h })
        .collect();
    std::fs::write(out.join("heights.f32"), bytemuck::cast_slice(&dem))?;
    std::fs::write(out.join("acc.f32"), bytemuck::cast_slice(&acc))?;
    println!(
        "seed {seed}: {GRID}² cells, {} land; islagen fill + MFD accumulation best of 5: {:.3} s on {} threads",
        outlet.iter().filter(|o| !**o).count(),
        best,
        rayon::current_num_threads()
    );
    Ok(())
}
