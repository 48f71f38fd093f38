//! How different the seeds' islands are, and whether the crater has a rim: the figures of the
//! terrain-variety work, for any seed range.
//!
//! `cargo run --release -p islagen-tools --example variety -- [FIRST..LAST] [SIZE] [CONFIG.json]` (default
//! 1..24 at 512, default config, roads skipped) prints per seed: land fraction, summit position
//! (fraction of MapSize), the crater rim's lift (mean land height in the ring 0.85–1.05 R minus
//! that in 1.4–1.8 R, metres); then the mean and least pairwise land IoU, the summit spread (the
//! standard deviation of the summit position, both axes together, fraction of MapSize) and the
//! median rim lift.

use islagen::config::Config;
use islagen::pipeline::{self, World};
use islagen::progress::Progress;
use islagen::units::METRES_PER_RAW;

struct Figures {
    seed: i32,
    land: Vec<bool>,
    land_fraction: f64,
    summit: [f64; 2],
    rim_lift_m: f64,
}

fn figures(world: &World) -> Figures {
    let bp = &world.blueprint;
    let n = bp.side();
    let land: Vec<bool> = bp.biomes.iter().map(|b| b.ordinal() > 1).collect();
    let land_fraction = land.iter().filter(|l| **l).count() as f64 / land.len() as f64;
    let (mut best, mut at) = (f32::NEG_INFINITY, (0, 0));
    for ((x, y), &h) in bp.heights.indexed_iter() {
        if h > best {
            best = h;
            at = (x, y);
        }
    }
    let summit = [at.0 as f64 / n as f64, at.1 as f64 / n as f64];
    let c = &world.crater;
    let ring = |lo: f32, hi: f32| {
        let (mut sum, mut count) = (0.0f64, 0usize);
        for ((x, y), &h) in bp.heights.indexed_iter() {
            let d = c.distance(x, y) / c.radius_px;
            let above = h - world.sea.at(y);
            if d >= lo && d < hi && above >= 0.0 {
                sum += f64::from(above * METRES_PER_RAW);
                count += 1;
            }
        }
        sum / count.max(1) as f64
    };
    Figures {
        seed: bp.params.world_seed,
        land,
        land_fraction,
        summit,
        rim_lift_m: ring(0.85, 1.05) - ring(1.4, 1.8),
    }
}

fn iou(a: &[bool], b: &[bool]) -> f64 {
    let (mut both, mut either) = (0usize, 0usize);
    for (x, y) in a.iter().zip(b) {
        both += usize::from(*x && *y);
        either += usize::from(*x || *y);
    }
    both as f64 / either.max(1) as f64
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let seeds = islagen::sweep::parse_seeds(args.get(1).map_or("1..24", String::as_str))?;
    let size: u32 = args.get(2).map_or(Ok(512), |s| s.parse())?;
    let mut config = match args.get(3) {
        Some(path) => Config::load(std::path::Path::new(path))?.config,
        None => Config::from_json("{}", "defaults")?.config,
    };
    config.map_size = size;
    config.skip_roads = true;
    println!("seed\tland\tsummit_x\tsummit_y\trim_lift_m");
    let mut all = Vec::new();
    for seed in seeds {
        let world = pipeline::generate(&config, seed, &Progress::hidden())?;
        let f = figures(&world);
        println!(
            "{}\t{:.3}\t{:.3}\t{:.3}\t{:.1}",
            f.seed, f.land_fraction, f.summit[0], f.summit[1], f.rim_lift_m
        );
        all.push(f);
    }
    let mut ious = Vec::new();
    for i in 0..all.len() {
        for j in i + 1..all.len() {
            ious.push(iou(&all[i].land, &all[j].land));
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let var = |v: &[f64]| {
        let m = mean(v);
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len().max(1) as f64
    };
    let xs: Vec<f64> = all.iter().map(|f| f.summit[0]).collect();
    let ys: Vec<f64> = all.iter().map(|f| f.summit[1]).collect();
    let mut lifts: Vec<f64> = all.iter().map(|f| f.rim_lift_m).collect();
    lifts.sort_by(f64::total_cmp);
    let lands: Vec<f64> = all.iter().map(|f| f.land_fraction).collect();
    println!(
        "mean pairwise land IoU {:.3} (least alike pair {:.3}); summit spread {:.3} of MapSize (x {:.3}, y {:.3}); median rim lift {:.1} m; land fraction {:.3}..{:.3}",
        mean(&ious),
        ious.iter().copied().fold(f64::INFINITY, f64::min),
        (var(&xs) + var(&ys)).sqrt(),
        var(&xs).sqrt(),
        var(&ys).sqrt(),
        lifts.get(lifts.len() / 2).copied().unwrap_or(0.0),
        lands.iter().copied().fold(f64::INFINITY, f64::min),
        lands.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    Ok(())
}
