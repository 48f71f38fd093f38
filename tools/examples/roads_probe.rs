//! Road geometry figures at one MapSize: per tier, the share of road length heading
//! within 2° of a multiple of 45° (the grid's fingerprint; evenly spread headings give 0.089),
//! segment counts and lengths, and each road's integrated cost over its grid optimum's.
//!
//! `cargo run --release -p islagen-tools --example roads_probe -- [SIZE] [SEED...]`

use islagen::blueprint::RoadTier;
use islagen::config::Config;
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::stages::roads::geometry::{cell_centre, grid_aligned_length, polyline_cost};
use islagen::stages::roads::CostGrid;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or(2048);
    let seeds: Vec<i32> = args.iter().skip(1).filter_map(|s| s.parse().ok()).collect();
    let seeds = if seeds.is_empty() { vec![1] } else { seeds };
    for seed in seeds {
        let mut config = Config::from_json("{}", "defaults")?.config;
        config.map_size = size;
        let world = pipeline::generate(&config, seed, &Progress::hidden())?;
        let mut grid = CostGrid::new(
            &world.blueprint.heights,
            &world.water,
            &world.sea,
            &world.crater,
        );
        grid.bridge(world.river_pixels());
        let n = grid.side();
        let network = world.roads.as_ref().expect("roads ran");
        for tier in RoadTier::ALL {
            let paths = world.blueprint.roads.tier(*tier);
            let raws = network.raw.iter().filter(|r| r.tier == *tier);
            let (mut aligned, mut total, mut segments) = (0.0, 0.0, 0usize);
            let (mut worst, mut sum_ratio) = (0.0f64, 0.0f64);
            let mut short = 0.0;
            for (raw, path) in raws.zip(paths) {
                let (a, t) = grid_aligned_length(path, 2.0);
                aligned += a;
                total += t;
                segments += path.len().saturating_sub(1);
                for s in path.windows(2) {
                    let len = f64::from((s[1][0] - s[0][0]).hypot(s[1][1] - s[0][1]));
                    if len < 4.0 {
                        short += grid_aligned_length(s, 2.0).0;
                    }
                }
                let centres: Vec<[f32; 2]> = raw.cells.iter().map(|&c| cell_centre(c, n)).collect();
                let ratio = polyline_cost(&grid, path) / polyline_cost(&grid, &centres);
                worst = worst.max(ratio);
                sum_ratio += ratio;
            }
            println!(
                "seed {seed} @{size} {tier:?}: {} roads, {segments} segments, {:.0} px; share on 45° multiples {:.3} (of it in segments < 4 px: {:.3}); cost / grid optimum mean {:.4}, worst {:.4}",
                paths.len(),
                total,
                aligned / total.max(1.0),
                short / total.max(1.0),
                sum_ratio / paths.len().max(1) as f64,
                worst
            );
        }
    }
    Ok(())
}
