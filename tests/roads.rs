//! Roads: every road is (near-)optimal on the full-resolution cost grid, measured against an
//! independent Dijkstra (the `pathfinding` crate); no road point on water, in the crater or off
//! the map; every town not abandoned is on the network.

use islagen::blueprint::TownTier;
use islagen::config::Config;
use islagen::pipeline::{self, World};
use islagen::progress::Progress;
use islagen::stages::roads::CostGrid;

/// Whether the straight segment a → b passes through a solid cell, sampled every 1/32 px (a
/// sample exactly on a cell corner counts for neither cell: a diagonal step passes corners).
fn crosses_solid(g: &CostGrid, a: [f32; 2], b: [f32; 2]) -> bool {
    let len = (b[0] - a[0]).hypot(b[1] - a[1]);
    let steps = (len * 32.0).ceil().max(1.0) as usize;
    (0..=steps).any(|k| {
        let t = k as f32 / steps as f32;
        let (x, y) = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t);
        let on_corner = (x - x.round()).abs() < 1e-3 && (y - y.round()).abs() < 1e-3;
        !on_corner && g.solid(x as usize, y as usize)
    })
}

/// The cost of a polyline integrated over the cost field by the midpoint rule at 1/32 px —
/// independent of the stage's exact cell walk.
fn integrated(g: &CostGrid, path: &[[f32; 2]]) -> f64 {
    let n = g.side();
    let mut total = 0.0;
    for s in path.windows(2) {
        let (a, b) = (s[0], s[1]);
        let len = f64::from((b[0] - a[0]).hypot(b[1] - a[1]));
        let steps = (len * 32.0).ceil().max(1.0) as usize;
        for k in 0..steps {
            let t = (k as f32 + 0.5) / steps as f32;
            let (x, y) = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t);
            let c = g.cost((x as usize).min(n - 1) * n + (y as usize).min(n - 1));
            total += len / steps as f64 * f64::from(c);
        }
    }
    total
}

fn world(seed: i32, size: u32) -> World {
    let mut c = Config::from_json("{}", "defaults").unwrap().config;
    c.map_size = size;
    pipeline::generate(&c, seed, &Progress::hidden()).unwrap()
}

/// The world's cost grid, river pixels bridges, as the pipeline builds it.
fn grid(w: &World) -> CostGrid<'_> {
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
    let mut segments = 0;
    for tier in islagen::blueprint::RoadTier::ALL {
        for path in roads.tier(*tier) {
            for p in path {
                assert!(p[0] >= 0.0 && p[1] >= 0.0 && p[0] < n as f32 && p[1] < n as f32);
            }
            for s in path.windows(2) {
                segments += 1;
                assert!(
                    !crosses_solid(&g, s[0], s[1]),
                    "road segment {:?} → {:?} crosses water or the crater",
                    s[0],
                    s[1]
                );
            }
        }
    }
    assert!(segments > 100, "{segments} segments");
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

/// Regression: parallel searches borrowed a fresh 16-bytes-a-cell scratch per rayon
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

/// The roads follow the land, not the grid: on the blueprint's polylines the share of length
/// heading within 2° of a multiple of 45° is at most 0.20 in every tier but trails, 0.22 for
/// trails (an 8-connected grid path is all such headings; evenly spread headings give 0.09),
/// and every finished road costs at most 1 % above its grid optimum, both integrated over the
/// same cost field. Trails are the shortest roads (spurs of 0.3–1 km to the POIs), so one spur
/// that runs straight along a heading moves their share by a few per cent: per seed it is
/// 0.10–0.29, pooled over seeds 2–10 0.18 (BENCHMARKS.md).
#[test]
fn roads_run_at_any_angle_within_one_percent_of_the_grid_optimum() {
    use islagen::blueprint::RoadTier;
    use islagen::stages::roads::geometry::{cell_centre, grid_aligned_length};
    let (mut aligned, mut total) = ([0.0f64; 4], [0.0f64; 4]);
    let (mut worst, mut worst_ratio) = (0.0f64, 0.0f64);
    for seed in [1, 42, 7] {
        let w = world(seed, 1024);
        let g = grid(&w);
        let n = g.side();
        let network = w.roads.as_ref().expect("roads ran");
        for tier in RoadTier::ALL {
            let raws = network.raw.iter().filter(|r| r.tier == *tier);
            let paths = w.blueprint.roads.tier(*tier);
            assert_eq!(raws.clone().count(), paths.len());
            for (raw, path) in raws.zip(paths) {
                let (a, t) = grid_aligned_length(path, 2.0);
                aligned[*tier as usize] += a;
                total[*tier as usize] += t;
                let centres: Vec<[f32; 2]> = raw.cells.iter().map(|&c| cell_centre(c, n)).collect();
                assert_eq!(path[0], centres[0], "a road starts at its town");
                if *tier == RoadTier::Highway {
                    assert_eq!(path.last(), centres.last(), "a leg ends at its town");
                }
                // A road that joins another ends on that road's polyline, anywhere within the
                // cell its search reached: the bound allows that cell's cost once.
                let end = *raw.cells.last().unwrap() as usize;
                let allowance = if *tier == RoadTier::Highway {
                    0.0
                } else {
                    f64::from(g.cost(end))
                };
                let cost = integrated(&g, path);
                let optimum = integrated(&g, &centres);
                worst = worst.max((cost - allowance) / optimum);
                worst_ratio = worst_ratio.max(cost / optimum);
            }
        }
    }
    let shares: Vec<f64> = (0..4).map(|t| aligned[t] / total[t].max(1.0)).collect();
    eprintln!(
        "share within 2° of 45° multiples per tier {shares:.3?}; worst cost ratio {worst_ratio:.5}, {worst:.5} less the junction cell"
    );
    for (tier, share) in shares.iter().enumerate() {
        assert!(total[tier] > 0.0, "tier {tier} has no road");
        let bound = if tier == RoadTier::Trail as usize {
            0.22
        } else {
            0.20
        };
        assert!(
            *share <= bound,
            "tier {tier}: {share:.3} of its length on grid headings"
        );
    }
    // The stage promises 1 %; the midpoint rule here is exact to well under 0.1 %.
    assert!(worst <= 1.011, "a road costs {worst:.4} × its grid optimum");
    // With the junction cell counted: one cell's cost on a short road. Since the fluvial
    // relief's valley walls stand at their threshold slope, that cell can be a steep
    // one: 1.28 on this seed.
    assert!(
        worst_ratio < 1.35,
        "a road costs {worst_ratio:.4} × its grid optimum"
    );
}
