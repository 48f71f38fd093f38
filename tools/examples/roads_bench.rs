//! Road timing at one MapSize (default 8192), for BENCHMARKS.md:
//! 1. the whole road stage on a generated world (cost grid + network), with paths and expanded
//!    nodes;
//! 2. side by side on the same cost grid and endpoints — the longest highway leg of that
//!    network — islagen's A* against the `pathfinding` crate's `astar` (same octile heuristic,
//!    integer micro-costs for its `Ord` bound): the ratio of their times and of their costs;
//! 3. a county join as the stage first searches it — from the town of the longest trail to the
//!    rest of the network (every other road's polyline cells) — islagen's A* guided by the
//!    network's distance field against `pathfinding`'s `dijkstra` to the first network cell.
//!
//! `cargo run --release -p islagen-tools --example roads_bench -- [SIZE] [SEED]`

use std::time::Instant;

use islagen::blueprint::RoadTier;
use islagen::config::Config;
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::stages::roads::field::{DistanceField, Window};
use islagen::stages::roads::geometry::raster;
use islagen::stages::roads::{
    astar, roads, search, CostGrid, RawRoad, RoadNetwork, Scratch, ABANDON_FRACTION,
};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or(8192);
    let seed: i32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut config = Config::from_json("{}", "defaults")?.config;
    config.map_size = size;
    config.skip_roads = true;
    let world = pipeline::generate(&config, seed, &Progress::hidden())?;
    let bp = &world.blueprint;

    let t = Instant::now();
    let grid = CostGrid::new(&bp.heights, &world.water, &world.sea, &world.crater);
    let grid_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let network = roads(&grid, &bp.towns, 0, &|| {});
    let roads_s = t.elapsed().as_secs_f64();
    let s = &network.stats;
    println!(
        "road stage at {size}: cost grid {grid_s:.2} s + network {roads_s:.2} s = {:.2} s; paths {:?}, {} abandoned, {} nodes expanded",
        grid_s + roads_s,
        s.paths,
        s.abandoned,
        s.expanded
    );

    let leg = network
        .raw
        .iter()
        .filter(|r| r.tier == RoadTier::Highway)
        .max_by_key(|r| r.cells.len())
        .expect("a highway leg");
    let (from, to) = (leg.cells[0], *leg.cells.last().unwrap());
    let n = grid.side();
    let mut scratch = Scratch::new(n);
    let t = Instant::now();
    let ours = astar(&grid, &mut scratch, from, to).expect("a path");
    let ours_s = t.elapsed().as_secs_f64();
    println!(
        "longest highway leg: {} cells; islagen A* {ours_s:.3} s, {} nodes expanded, cost {:.1}",
        ours.cells.len(),
        scratch.expanded,
        grid.path_cost(&ours.cells)
    );

    let octile = |a: usize, b: usize| {
        let dx = (a / n).abs_diff(b / n) as f64;
        let dy = (a % n).abs_diff(b % n) as f64;
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        ((hi + (std::f64::consts::SQRT_2 - 1.0) * lo) * 1e6).floor() as u64
    };
    let successors = |c: &u32| successors(&grid, *c);
    let t = Instant::now();
    let (path, _) = pathfinding::prelude::astar(
        &from,
        successors,
        |&c| octile(c as usize, to as usize),
        |&c| c == to,
    )
    .expect("a path");
    let theirs_s = t.elapsed().as_secs_f64();
    let theirs_cost = grid.path_cost(&path);
    println!(
        "pathfinding::astar {theirs_s:.3} s, cost {theirs_cost:.1}; islagen / pathfinding: time {:.3}, cost {:.6}",
        ours_s / theirs_s,
        grid.path_cost(&ours.cells) / theirs_cost
    );
    county_join(&grid, &network)
}

/// Part 3 (module docs).
fn county_join(grid: &CostGrid, network: &RoadNetwork) -> anyhow::Result<()> {
    let n = grid.side();
    // The trails in `raw` order are the blueprint's trails in order.
    let trails: Vec<&RawRoad> = network
        .raw
        .iter()
        .filter(|r| r.tier == RoadTier::Trail)
        .collect();
    let (k, longest) = trails
        .iter()
        .enumerate()
        .max_by_key(|(_, r)| r.cells.len())
        .expect("a trail");
    let mut member = vec![false; n * n];
    for tier in RoadTier::ALL {
        for (j, path) in network.roads.tier(*tier).iter().enumerate() {
            if *tier != RoadTier::Trail || j != k {
                for c in raster(path, n) {
                    member[c as usize] = true;
                }
            }
        }
    }
    let start = longest.cells[0];
    member[start as usize] = false;
    let targets: Vec<u32> = (0..n * n)
        .filter(|&c| member[c])
        .map(|c| c as u32)
        .collect();
    let whole = Window {
        x0: 0,
        y0: 0,
        x1: n,
        y1: n,
    };
    let t = Instant::now();
    let cap = ABANDON_FRACTION * n as f32;
    let field = DistanceField::new(whole, &targets, cap, n);
    let field_s = t.elapsed().as_secs_f64();
    let mut scratch = Scratch::new(n);
    let t = Instant::now();
    let h = |x, y| field.at(x, y);
    let ours =
        search::search(grid, &mut scratch, start, |c| member[c], h, f32::INFINITY).expect("a join");
    let ours_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (path, _) =
        pathfinding::prelude::dijkstra(&start, |c| successors(grid, *c), |&c| member[c as usize])
            .expect("a join");
    let theirs_s = t.elapsed().as_secs_f64();
    println!(
        "county join from the longest trail's town to the rest of the network: islagen A* {ours_s:.3} s ({} nodes; the network's field {field_s:.3} s, built once a run), pathfinding::dijkstra {theirs_s:.3} s; time ratio {:.3}, cost ratio {:.6}",
        scratch.expanded,
        ours_s / theirs_s,
        grid.path_cost(&ours.cells) / grid.path_cost(&path)
    );
    Ok(())
}

/// The 8 neighbours of `c` with their integer micro-costs (the crate's `Ord` bound).
fn successors(grid: &CostGrid, c: u32) -> Vec<(u32, u64)> {
    let n = grid.side();
    let (x, y) = (c as usize / n, c as usize % n);
    let mut out = Vec::with_capacity(8);
    for dx in -1isize..=1 {
        for dy in -1isize..=1 {
            let (nx, ny) = (x as isize + dx, y as isize + dy);
            if (dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx as usize >= n || ny as usize >= n {
                continue;
            }
            let ni = nx as usize * n + ny as usize;
            let step = f64::from(grid.cost(ni));
            if step.is_finite() {
                let len = if dx != 0 && dy != 0 {
                    std::f64::consts::SQRT_2
                } else {
                    1.0
                };
                out.push((ni as u32, (len * step * 1e6).round() as u64));
            }
        }
    }
    out
}
