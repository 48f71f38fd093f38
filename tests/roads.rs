//! Roads: every road is (near-)optimal on the full-resolution cost grid, measured against an
//! independent Dijkstra (the `pathfinding` crate); no road point on water, in the crater or off
//! the map; every town not abandoned is on the network.

use islagen::blueprint::TownTier;
use islagen::config::Config;
use islagen::pipeline::{self, World};
use islagen::progress::Progress;
use islagen::stages::roads::CostGrid;

fn world(seed: i32, size: u32) -> World {
    let mut c = Config::from_json("{}", "defaults").unwrap().config;
    c.map_size = size;
    pipeline::generate(&c, seed, &Progress::hidden()).unwrap()
}

/// The world's cost grid, river pixels bridges, as the pipeline builds it.
fn grid(w: &World) -> CostGrid {
    let mut g = CostGrid::new(&w.blueprint.heights, &w.water, &w.sea, &w.crater);
    g.bridge(w.river_pixels());
    g
}

/// The optimal cost between two cells by `pathfinding`'s Dijkstra, on the same grid (integer
/// micro-costs for the crate's `Ord` bound; the returned path is re-costed exactly).
fn optimal(grid: &CostGrid, from: u32, to: u32) -> f64 {
    let n = grid.side();
    let successors = |&c: &u32| -> Vec<(u32, u64)> {
        let (x, y) = (c as usize / n, c as usize % n);
        let mut out = Vec::with_capacity(8);
        for dx in -1isize..=1 {
            for dy in -1isize..=1 {
                if dx == 0 && dy == 0 {
                    continue;
                }
                let (nx, ny) = (x as isize + dx, y as isize + dy);
                if nx < 0 || ny < 0 || nx as usize >= n || ny as usize >= n {
                    continue;
                }
                let ni = nx as usize * n + ny as usize;
                let step = f64::from(grid.cost(ni));
                if step.is_infinite() {
                    continue;
                }
                let len = if dx != 0 && dy != 0 {
                    std::f64::consts::SQRT_2
                } else {
                    1.0
                };
                out.push((ni as u32, (len * step * 1e6).round() as u64));
            }
        }
        out
    };
    let (path, _) = pathfinding::prelude::dijkstra(&from, successors, |&c| c == to)
        .expect("the road's endpoints are connected");
    grid.path_cost(&path)
}

#[test]
fn every_road_is_within_two_percent_of_the_optimal_path() {
    let mut ratios = Vec::new();
    for seed in [1, 42] {
        let w = world(seed, 1024);
        let g = grid(&w);
        let network = w.roads.as_ref().expect("roads ran");
        assert!(
            network.raw.len() > 20,
            "seed {seed}: only {} roads",
            network.raw.len()
        );
        for road in &network.raw {
            assert!(road.cells.len() >= 2, "a road of one cell");
            let cost = g.path_cost(&road.cells);
            assert!(
                (cost - f64::from(road.cost)).abs() <= 1e-3 * cost.max(1.0),
                "recorded cost"
            );
            // Consecutive cells are neighbours and none is solid.
            for pair in road.cells.windows(2) {
                let (a, b) = (pair[0] as usize, pair[1] as usize);
                let n = g.side();
                assert!((a / n).abs_diff(b / n) <= 1 && (a % n).abs_diff(b % n) <= 1);
                assert!(!g.solid(b / n, b % n));
            }
            let best = optimal(&g, road.cells[0], *road.cells.last().unwrap());
            ratios.push(cost / best);
        }
    }
    ratios.sort_by(f64::total_cmp);
    let (median, worst) = (ratios[ratios.len() / 2], ratios[ratios.len() - 1]);
    eprintln!(
        "{} roads: cost / optimal median {median:.6}, worst {worst:.6}",
        ratios.len()
    );
    assert!(worst <= 1.02, "a road is {worst:.4} × the optimal path");
    // The reference rounds step costs to micro-units, so it may miss the optimum by a hair.
    assert!(
        ratios[0] >= 1.0 - 1e-4,
        "a road beats the optimum: the check is broken"
    );
}

#[test]
fn roads_stay_on_land_off_the_crater_on_the_map_and_reach_every_town() {
    let w = world(7, 1024);
    let g = grid(&w);
    let n = w.blueprint.side();
    let network = w.roads.as_ref().expect("roads ran");
    let roads = &w.blueprint.roads;
    let mut points = 0;
    for tier in islagen::blueprint::RoadTier::ALL {
        for path in roads.tier(*tier) {
            for p in path {
                points += 1;
                assert!(p[0] >= 0.0 && p[1] >= 0.0 && p[0] < n as f32 && p[1] < n as f32);
                let (x, y) = (p[0] as usize, p[1] as usize);
                if g.solid(x, y) {
                    // Only a corner cut of under one pixel: a passable cell within 1 px.
                    let near = (x.saturating_sub(1)..=(x + 1).min(n - 1)).any(|xx| {
                        (y.saturating_sub(1)..=(y + 1).min(n - 1)).any(|yy| {
                            !g.solid(xx, yy)
                                && (xx as f32 + 0.5 - p[0]).abs() <= 1.0
                                && (yy as f32 + 0.5 - p[1]).abs() <= 1.0
                        })
                    });
                    assert!(near, "road point {p:?} on water or in the crater");
                }
            }
        }
    }
    assert!(points > 1000);
    // Every town not abandoned is on the network.
    let endpoints: std::collections::HashSet<u32> = network
        .raw
        .iter()
        .flat_map(|r| r.cells.iter().copied())
        .collect();
    let on_network = w
        .blueprint
        .towns
        .iter()
        .filter(|t| endpoints.contains(&((t.x as usize * n + t.y as usize) as u32)))
        .count();
    assert_eq!(
        on_network + network.stats.abandoned,
        w.blueprint.towns.len()
    );
    assert!(
        network.stats.abandoned * 4 < w.blueprint.towns.len(),
        "most towns are joined"
    );
    // The tiers: one highway leg per loop node, the branch to the snow hub, villages rugged.
    let loop_nodes = w
        .blueprint
        .towns
        .iter()
        .filter(|t| t.is_highway_node)
        .count();
    assert_eq!(network.stats.paths[0], loop_nodes);
    assert_eq!(network.stats.paths[1], 1);
    let villages = w
        .blueprint
        .towns
        .iter()
        .filter(|t| t.tier == TownTier::Village)
        .count();
    assert!(network.stats.paths[2] <= villages);
}

/// Regression (issue 15): parallel searches borrowed a fresh 16-bytes-a-cell scratch per rayon
/// job, so memory grew with the jobs rayon split a batch into. The pool holds one per thread.
#[test]
fn search_scratch_is_bounded_by_threads_not_jobs() {
    use islagen::stages::roads::ScratchPool;
    use rayon::prelude::*;
    let threads = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    threads.install(|| {
        let pool = ScratchPool::new(64);
        let items: Vec<u64> = (0..2000).collect();
        let sum: u64 = items
            .par_iter()
            .with_max_len(1)
            .map(|&i| pool.with(|s| i + s.expanded))
            .sum();
        assert_eq!(sum, (0..2000u64).sum::<u64>());
        assert!(pool.made() <= 4, "{} scratches for 3 threads", pool.made());
    });
}

/// Rivers are bridged, not walls: roads cross them, rarely and straight across (each crossing
/// a short run of river cells), and the summary's bridge counts are those crossings.
#[test]
fn roads_bridge_rivers_straight_across() {
    let w = world(42, 1024);
    let g = grid(&w);
    let network = w.roads.as_ref().expect("roads ran");
    let runs: Vec<usize> = network
        .raw
        .iter()
        .flat_map(|r| g.bridges(&r.cells))
        .collect();
    let counted: usize = network.stats.bridges.iter().sum();
    eprintln!(
        "bridges per tier {:?}, lengths {runs:?}",
        network.stats.bridges
    );
    assert_eq!(runs.len(), counted);
    assert!(counted > 0, "no road crosses a river");
    assert!(
        runs.iter().all(|&r| r <= 6),
        "a bridge runs along a river: {runs:?}"
    );
    let cells: usize = network.raw.iter().map(|r| r.cells.len()).sum();
    assert!(
        runs.iter().sum::<usize>() * 100 < cells,
        "roads run on rivers"
    );
}
