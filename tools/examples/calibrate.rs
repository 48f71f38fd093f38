//! Calibration report for the terrain stages: for a few seeds, the share of land below each
//! curve knot (the lowland share the v5 preset promises is ~60 % below K1), the highest raw
//! height, and the land / islet / lake figures.
//!
//! `cargo run --release -p islagen-tools --example calibrate -- [SIZE] [SEEDS...]`

use islagen::config::Config;
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::stages::curve::BALANCED;
use islagen::stages::sea::Water;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or(1024);
    let seeds: Vec<i32> = if args.len() > 1 {
        args[1..].iter().filter_map(|s| s.parse().ok()).collect()
    } else {
        (1..=8).collect()
    };
    let mut config = Config::from_json("{}", "defaults")
        .expect("defaults")
        .config;
    config.map_size = size;
    println!("seed      land%  <K1    <K2    <K3    <K4    <K5    <K6   max   islets lakes");
    for seed in seeds {
        let world = pipeline::generate(&config, seed, &Progress::hidden()).unwrap();
        let n = size as usize;
        let mut below = [0usize; 6];
        let mut land = 0usize;
        let mut max = f32::MIN;
        let classify = pipeline::classify_heights(&config, seed);
        for ((x, y), &z) in classify.indexed_iter() {
            if world.water[[x, y]] != Water::Dry
                || world.crater.distance(x, y) < world.crater.radius_px
            {
                continue;
            }
            land += 1;
            let a = z - world.sea.at(y) + 0.15;
            max = max.max(a);
            for (i, k) in BALANCED.knots.iter().enumerate() {
                if a < *k {
                    below[i] += 1;
                }
            }
        }
        let pct = |c: usize| 100.0 * c as f64 / land.max(1) as f64;
        println!(
            "{seed:<8} {:>6.1} {:>5.1}  {:>5.1}  {:>5.1}  {:>5.1}  {:>5.1}  {:>5.1}  {max:.3} {:>6} {:>5}",
            100.0 * land as f64 / (n * n) as f64,
            pct(below[0]),
            pct(below[1]),
            pct(below[2]),
            pct(below[3]),
            pct(below[4]),
            pct(below[5]),
            world.stats.islets,
            world.stats.lakes
        );
    }
}
