//! Times the fluvial relief's solver per step on a world's own grid and dumps that grid for
//! `scripts/fluvial-peer.sh`, which runs landlab's FlowAccumulator + FastscapeEroder +
//! LinearDiffuser on the same heights, steps and dials.
//!
//! `cargo run --release -p islagen-tools --example fluvial_dump -- [SEED] [OUT_DIR]` (default 7,
//! target/fluvial-peer) writes `heights.f32` (1024² little-endian f32, metres above sea, sea
//! cells 0, `x * 1024 + y`), `carved.f32` (the same grid after islagen's solver, for measuring
//! the solver's own landscape apart from the map's) and `dials.json` (the default dials as the
//! solver applies them), and
//! prints the solver's seconds per step (the median of the steps of one run) on this machine's
//! threads.

use std::time::Instant;

use islagen::config::Config;
use islagen::pipeline::{self, params};
use islagen::stages::fluvial::{self, GRID};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let seed: i32 = args.get(1).map_or(Ok(7), |s| s.parse())?;
    let out = std::path::PathBuf::from(args.get(2).map_or("target/fluvial-peer", String::as_str));
    std::fs::create_dir_all(&out)?;
    let mut config = Config::from_json("{}", "defaults")?.config;
    config.map_size = GRID as u32;
    let design = pipeline::fluvial_design(&config, seed);
    let p = params::fluvial(&config.erosion);
    let clock = std::sync::Mutex::new((Instant::now(), Vec::new()));
    let carved = fluvial::evolve_metres(&design, &p, &|| {
        let mut c = clock.lock().unwrap();
        let t = c.0.elapsed().as_secs_f64();
        c.1.push(t);
        c.0 = Instant::now();
    });
    let mut times = clock.into_inner()?.1;
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    std::fs::write(out.join("heights.f32"), bytemuck::cast_slice(&design))?;
    std::fs::write(out.join("carved.f32"), bytemuck::cast_slice(&carved))?;
    std::fs::write(out.join("dials.json"), serde_json::to_string_pretty(&p)?)?;
    let lowered = design
        .iter()
        .zip(&carved)
        .filter(|(d, c)| *d - *c > 1.0)
        .count();
    println!(
        "seed {seed}: islagen fluvial step (MFD routing + implicit stream power + implicit diffusion) on {GRID}² cells: {median:.4} s/step median of {} steps on {} threads; {lowered} cells lowered past 1 m",
        times.len(),
        rayon::current_num_threads()
    );
    Ok(())
}
