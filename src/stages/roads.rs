//! Roads: the network over the full-resolution grid, in seconds.
//!
//! **Cost grid.** One node per pixel, 8-connected (diagonal steps √2 long). Entering a cell costs
//! its step length × (1 + e³ × 400), e = the cell's height above sea as a fraction of the 420 m
//! cap, so mountains are expensive rather than impassable. Ocean, lakes and the crater (its
//! radius around the impact) are solid.
//!
//! **Network.** Highway: the highway-node towns sorted by angle around their centroid, joined in
//! a ring, each leg an exact A* search. Branch: the snow hub joined to the nearest point of the
//! network by path cost (a Dijkstra search from the hub that stops at the first network cell).
//! County roads: Prim's algorithm — the remaining town whose path cost to the network is least
//! joins next, along that path, to the network point it reaches first; Villages get Rugged
//! roads, every other tier a Trail. Each town's cost to the network is a Dijkstra search that
//! is kept until the network grows near enough to improve it (a new road within the town's cost
//! of it, by straight-line distance, which no path can beat since every step costs at least its
//! length), so every join is exact Prim. Abandon protocol: a town whose straight-line distance
//! to the network exceeds 8 % of MapSize, or that no path reaches, is skipped with a log line.
//!
//! **Exactness.** A* with the octile distance (a lower bound: no cell costs less than 1) and
//! Dijkstra are exact, so every road is an optimal path between its endpoints on this grid —
//! the issue allows 2 %; a test measures it against an independent Dijkstra.
//!
//! **Smoothing.** Each path is decimated by Ramer–Douglas–Peucker with a tolerance of 4 px at
//! the 1024 reference (× scaleFactor), refusing any shortcut whose straight segment would cross
//! a solid cell, then smoothed by 4 Chaikin passes. Chaikin cuts corners, so where a smoothed
//! point would land on water or in the crater the tolerance is halved for that road, down to
//! none — the raw cells, whose corner cuts stay under a pixel.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use ndarray::Array2;
use rayon::prelude::*;
use serde::Serialize;

use super::crater::Crater;
use super::sea::{SeaLevel, Water};
use crate::blueprint::{RoadPath, Roads, Town, TownTier};
use crate::grid::bits::Bits;
use crate::units::{HEIGHT_CAP_M as CAP_M, METRES_PER_RAW};

/// The summit cap the cost's elevation is a fraction of, metres.
/// RDP tolerance at the 1024 reference, pixels (× scaleFactor).
const RDP_TOLERANCE_REF: f32 = 4.0;
/// Chaikin passes.
const CHAIKIN_PASSES: usize = 4;
/// A town further than this fraction of MapSize from the network (straight line) is skipped.
pub const ABANDON_FRACTION: f32 = 0.08;

/// The 8 neighbours: (dx, dy, length).
const STEPS: [(isize, isize, f32); 8] = [
    (-1, -1, std::f32::consts::SQRT_2),
    (-1, 0, 1.0),
    (-1, 1, std::f32::consts::SQRT_2),
    (0, -1, 1.0),
    (0, 1, 1.0),
    (1, -1, std::f32::consts::SQRT_2),
    (1, 0, 1.0),
    (1, 1, std::f32::consts::SQRT_2),
];

/// The per-cell cost grid of a map.
pub struct CostGrid {
    n: usize,
    cost: Vec<f32>,
}

impl CostGrid {
    /// The cost grid of rendered `heights`: solid where `water` is not dry or within the crater.
    pub fn new(
        heights: &Array2<f32>,
        water: &Array2<Water>,
        sea: &SeaLevel,
        crater: &Crater,
    ) -> CostGrid {
        let n = heights.dim().0;
        let mut cost = vec![0.0f32; n * n];
        cost.par_chunks_mut(n).enumerate().for_each(|(x, column)| {
            for (y, c) in column.iter_mut().enumerate() {
                *c = if water[[x, y]] != Water::Dry || crater.distance(x, y) < crater.radius_px {
                    f32::INFINITY
                } else {
                    let e =
                        ((heights[[x, y]] - sea.at(y)) * METRES_PER_RAW / CAP_M).clamp(0.0, 1.0);
                    1.0 + e * e * e * 400.0
                };
            }
        });
        CostGrid { n, cost }
    }

    /// Pixels per side.
    pub fn side(&self) -> usize {
        self.n
    }

    /// The cost of entering cell `i` (x * n + y); infinite when solid.
    #[inline]
    pub fn cost(&self, i: usize) -> f32 {
        self.cost[i]
    }

    /// Whether cell (x, y) is solid.
    #[inline]
    pub fn solid(&self, x: usize, y: usize) -> bool {
        self.cost[x * self.n + y].is_infinite()
    }

    /// The cost of walking `cells` in order (each step: its length × the entered cell's cost).
    pub fn path_cost(&self, cells: &[u32]) -> f64 {
        cells
            .windows(2)
            .map(|w| {
                let (a, b) = (w[0] as usize, w[1] as usize);
                let diagonal = a / self.n != b / self.n && a % self.n != b % self.n;
                let len = if diagonal {
                    std::f64::consts::SQRT_2
                } else {
                    1.0
                };
                len * f64::from(self.cost(b))
            })
            .sum()
    }
}

/// Reusable search state for one thread: g-scores and parents stamped with a search number, so
/// nothing is cleared between searches.
pub struct Scratch {
    g: Vec<f32>,
    parent: Vec<u32>,
    stamp: Vec<u32>,
    closed: Vec<u32>,
    epoch: u32,
    /// Nodes expanded by the last search.
    pub expanded: u64,
}

impl Scratch {
    /// Scratch for a map of `n` × `n`.
    pub fn new(n: usize) -> Scratch {
        Scratch {
            g: vec![0.0; n * n],
            parent: vec![0; n * n],
            stamp: vec![0; n * n],
            closed: vec![0; n * n],
            epoch: 0,
            expanded: 0,
        }
    }

    fn begin(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.fill(0);
            self.closed.fill(0);
            self.epoch = 1;
        }
        self.expanded = 0;
    }

    #[inline]
    fn g(&self, i: usize) -> f32 {
        if self.stamp[i] == self.epoch {
            self.g[i]
        } else {
            f32::INFINITY
        }
    }

    fn path_to(&self, mut i: u32, start: u32) -> Vec<u32> {
        let mut cells = vec![i];
        while i != start {
            i = self.parent[i as usize];
            cells.push(i);
        }
        cells.reverse();
        cells
    }
}

/// A total order on non-negative f32 keys.
#[inline]
fn key(f: f32) -> u64 {
    u64::from(f.to_bits())
}

/// The octile distance between cells `a` and `b`: a lower bound of any path's cost.
#[inline]
fn octile(n: usize, a: usize, b: usize) -> f32 {
    let dx = (a / n).abs_diff(b / n) as f32;
    let dy = (a % n).abs_diff(b % n) as f32;
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    hi + (std::f32::consts::SQRT_2 - 1.0) * lo
}

/// A search's result: the cells from start to goal, and the path's cost.
#[derive(Clone, Debug)]
pub struct Found {
    /// Cells `x * n + y`, start first.
    pub cells: Vec<u32>,
    /// Cost on the grid.
    pub cost: f32,
}

/// Exact A* from `start` to `goal`.
pub fn astar(grid: &CostGrid, s: &mut Scratch, start: u32, goal: u32) -> Option<Found> {
    search(
        grid,
        s,
        start,
        |i| i == goal as usize,
        |i| octile(grid.n, i, goal as usize),
        f32::INFINITY,
    )
}

/// Exact Dijkstra from `start` to the nearest cell (by path cost) where `target` holds, giving up
/// past `limit`.
pub fn nearest(
    grid: &CostGrid,
    s: &mut Scratch,
    start: u32,
    target: impl Fn(usize) -> bool,
    limit: f32,
) -> Option<Found> {
    search(grid, s, start, target, |_| 0.0, limit)
}

fn search(
    grid: &CostGrid,
    s: &mut Scratch,
    start: u32,
    is_goal: impl Fn(usize) -> bool,
    h: impl Fn(usize) -> f32,
    limit: f32,
) -> Option<Found> {
    let n = grid.n;
    s.begin();
    if grid.cost(start as usize).is_infinite() {
        return None;
    }
    let mut open: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    s.stamp[start as usize] = s.epoch;
    s.g[start as usize] = 0.0;
    open.push(Reverse((key(h(start as usize)), start)));
    while let Some(Reverse((_, c))) = open.pop() {
        let ci = c as usize;
        if s.closed[ci] == s.epoch {
            continue;
        }
        s.closed[ci] = s.epoch;
        s.expanded += 1;
        let gc = s.g[ci];
        if is_goal(ci) {
            return Some(Found {
                cells: s.path_to(c, start),
                cost: gc,
            });
        }
        if gc > limit {
            return None;
        }
        let (cx, cy) = (ci / n, ci % n);
        for (dx, dy, len) in STEPS {
            let (nx, ny) = (cx as isize + dx, cy as isize + dy);
            if nx < 0 || ny < 0 || nx as usize >= n || ny as usize >= n {
                continue;
            }
            let ni = nx as usize * n + ny as usize;
            let step = grid.cost(ni);
            if step.is_infinite() || s.closed[ni] == s.epoch {
                continue;
            }
            let g = gc + len * step;
            if g < s.g(ni) {
                s.stamp[ni] = s.epoch;
                s.g[ni] = g;
                s.parent[ni] = c;
                open.push(Reverse((key(g + h(ni)), ni as u32)));
            }
        }
    }
    None
}

/// One road before smoothing, for the summary and the tests.
#[derive(Clone, Debug, Serialize)]
pub struct RawRoad {
    /// Which tier.
    pub tier: crate::blueprint::RoadTier,
    /// Cells `x * n + y`, from the town (or loop node) to where it joins.
    pub cells: Vec<u32>,
    /// Cost on the grid.
    pub cost: f32,
}

/// What the road stage did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RoadStats {
    /// Paths per tier: highway, branch, rugged, trail.
    pub paths: [usize; 4],
    /// Towns skipped by the abandon protocol (or unreachable).
    pub abandoned: usize,
    /// Nodes expanded by all searches.
    pub expanded: u64,
}

/// The road network.
#[derive(Clone, Debug, Default)]
pub struct RoadNetwork {
    /// The smoothed roads, by tier.
    pub roads: Roads,
    /// Every road before smoothing.
    pub raw: Vec<RawRoad>,
    /// Figures.
    pub stats: RoadStats,
}

/// Builds the network for `towns` on `grid`. `on_path` is called once per finished path.
pub fn roads(grid: &CostGrid, towns: &[Town], on_path: &(dyn Fn() + Sync)) -> RoadNetwork {
    use crate::blueprint::RoadTier;
    let n = grid.n;
    let cell = |t: &Town| (t.x as usize).min(n - 1) * n + (t.y as usize).min(n - 1);
    let mut net = RoadNetwork::default();
    let mut network = Bits::new(n * n);
    let mut network_points: Vec<u32> = Vec::new();
    let add = |net: &mut RoadNetwork,
               network: &mut Bits,
               points: &mut Vec<u32>,
               tier: RoadTier,
               found: Found| {
        for &c in &found.cells {
            if !network.get(c as usize) {
                network.set(c as usize);
                points.push(c);
            }
        }
        net.stats.paths[tier as usize] += 1;
        net.raw.push(RawRoad {
            tier,
            cells: found.cells,
            cost: found.cost,
        });
    };

    // The continental loop: highway nodes by angle around their centroid.
    let mut loop_nodes: Vec<&Town> = towns.iter().filter(|t| t.is_highway_node).collect();
    if !loop_nodes.is_empty() {
        let cx = loop_nodes.iter().map(|t| t.x).sum::<f32>() / loop_nodes.len() as f32;
        let cy = loop_nodes.iter().map(|t| t.y).sum::<f32>() / loop_nodes.len() as f32;
        loop_nodes.sort_by(|a, b| {
            let aa = (a.y - cy).atan2(a.x - cx);
            let bb = (b.y - cy).atan2(b.x - cx);
            aa.total_cmp(&bb)
        });
    }
    let legs: Vec<(u32, u32)> = if loop_nodes.len() >= 2 {
        (0..loop_nodes.len())
            .filter(|&i| loop_nodes.len() > 2 || i == 0)
            .map(|i| {
                let (a, b) = (loop_nodes[i], loop_nodes[(i + 1) % loop_nodes.len()]);
                (cell(a) as u32, cell(b) as u32)
            })
            .collect()
    } else {
        Vec::new()
    };
    let found: Vec<(Option<Found>, u64)> = legs
        .par_iter()
        .map_init(
            || Scratch::new(n),
            |s, &(a, b)| {
                let f = astar(grid, s, a, b);
                on_path();
                (f, s.expanded)
            },
        )
        .collect();
    for ((f, expanded), (a, b)) in found.into_iter().zip(&legs) {
        net.stats.expanded += expanded;
        match f {
            Some(f) => add(
                &mut net,
                &mut network,
                &mut network_points,
                RoadTier::Highway,
                f,
            ),
            None => tracing::warn!(
                "no highway between ({}, {}) and ({}, {}): no path over land",
                a / n as u32,
                a % n as u32,
                b / n as u32,
                b % n as u32
            ),
        }
    }

    let mut scratch = Scratch::new(n);
    // The mountain branch: the snow hub to the nearest network point.
    let limit = f32::INFINITY;
    for hub in towns
        .iter()
        .filter(|t| t.tier == TownTier::Hub && !t.is_highway_node)
    {
        if network_points.is_empty() {
            break;
        }
        let f = nearest(
            grid,
            &mut scratch,
            cell(hub) as u32,
            |i| network.get(i),
            limit,
        );
        net.stats.expanded += scratch.expanded;
        on_path();
        match f {
            Some(f) => add(
                &mut net,
                &mut network,
                &mut network_points,
                RoadTier::Branch,
                f,
            ),
            None => {
                tracing::warn!(
                    "snow hub at ({:.0}, {:.0}) cannot reach the loop",
                    hub.x,
                    hub.y
                );
                net.stats.abandoned += 1;
            }
        }
    }

    // County roads: exact Prim over the remaining towns.
    let straight = |cells: &[u32], t: &Town| {
        cells
            .iter()
            .map(|&p| {
                let (px, py) = ((p as usize / n) as f32 + 0.5, (p as usize % n) as f32 + 0.5);
                (px - t.x).hypot(py - t.y)
            })
            .fold(f32::INFINITY, f32::min)
    };
    let mut pending: Vec<&Town> = towns
        .iter()
        .filter(|t| !t.is_highway_node && t.tier != TownTier::Hub)
        .collect();
    if network_points.is_empty() && !pending.is_empty() {
        // No loop: the first town seeds the network.
        let first = pending.remove(0);
        network.set(cell(first));
        network_points.push(cell(first) as u32);
    }
    // Per town: its straight-line distance to the network and its cached join (None = stale).
    let mut remaining: Vec<(&Town, f32, Option<Option<Found>>)> = pending
        .into_iter()
        .map(|t| (t, straight(&network_points, t), None))
        .collect();
    let abandon = ABANDON_FRACTION * n as f32;
    let mut abandoned = 0;
    loop {
        // Only towns within reach of the network may join now; when none is, the rest are
        // abandoned.
        let near: Vec<usize> = (0..remaining.len())
            .filter(|&i| remaining[i].1 <= abandon)
            .collect();
        if near.is_empty() {
            for (t, d, _) in &remaining {
                abandoned += 1;
                tracing::info!(
                    "road abandoned: {:?} at ({:.0}, {:.0}) is {:.0} px from the network (more than {:.0} % of MapSize)",
                    t.tier, t.x, t.y, d, ABANDON_FRACTION * 100.0
                );
            }
            break;
        }
        // Fresh joins for the stale towns, in parallel (each search is independent).
        let stale: Vec<usize> = near
            .iter()
            .copied()
            .filter(|&i| remaining[i].2.is_none())
            .collect();
        let results: Vec<(usize, Option<Found>, u64)> = stale
            .par_iter()
            .map_init(
                || Scratch::new(n),
                |s, &i| {
                    let f = nearest(
                        grid,
                        s,
                        cell(remaining[i].0) as u32,
                        |c| network.get(c),
                        f32::INFINITY,
                    );
                    (i, f, s.expanded)
                },
            )
            .collect();
        for (i, f, expanded) in results {
            net.stats.expanded += expanded;
            remaining[i].2 = Some(f);
        }
        // No path over land to the network now means none ever: the network only grows within
        // its own landmass.
        remaining.retain(|(t, _, f)| {
            let reachable = !matches!(f, Some(None));
            if !reachable {
                abandoned += 1;
                tracing::info!(
                    "road abandoned: {:?} at ({:.0}, {:.0}) has no path over land to the network",
                    t.tier,
                    t.x,
                    t.y
                );
            }
            reachable
        });
        // The cheapest join among the towns within reach (ties: the earlier town).
        let Some((_, chosen)) = remaining
            .iter()
            .enumerate()
            .filter(|(_, (_, d, _))| *d <= abandon)
            .filter_map(|(i, (_, _, f))| f.as_ref().and_then(|f| f.as_ref()).map(|f| (f.cost, i)))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        else {
            break;
        };
        let (town, _, found) = remaining.remove(chosen);
        let found = found.flatten().expect("the chosen town has a path");
        let tier = if town.tier == TownTier::Village {
            RoadTier::Rugged
        } else {
            RoadTier::Trail
        };
        on_path();
        if found.cells.len() < 2 {
            // The town stands on the network already: joined, no road to build.
            continue;
        }
        let new_cells = found.cells.clone();
        add(&mut net, &mut network, &mut network_points, tier, found);
        // A cached join goes stale when the new road comes nearer than its cost (no path to a
        // cell can cost less than the straight-line distance to it).
        for (t, d, f) in remaining.iter_mut() {
            let to_new = straight(&new_cells, t);
            *d = d.min(to_new);
            if let Some(Some(found)) = f {
                if to_new < found.cost {
                    *f = None;
                }
            }
        }
    }
    net.stats.abandoned += abandoned;

    // Smoothing.
    let tolerance = RDP_TOLERANCE_REF * crate::units::scale_factor(n);
    for raw in &net.raw {
        let points: Vec<[f32; 2]> = raw
            .cells
            .iter()
            .map(|&c| [(c as usize / n) as f32 + 0.5, (c as usize % n) as f32 + 0.5])
            .collect();
        net.roads
            .tier_mut(raw.tier)
            .push(smooth(&points, tolerance, grid));
    }
    net
}

/// Decimates and smooths one path. Chaikin's later passes cut the corners of the decimated
/// polyline, so where a corner wraps around water a smoothed point could land in it: then the
/// tolerance is halved, down to none (the raw cells, whose corner cuts stay under a pixel).
fn smooth(points: &[[f32; 2]], tolerance: f32, grid: &CostGrid) -> RoadPath {
    let n = grid.side();
    let on_land = |path: &RoadPath| {
        path.iter()
            .all(|p| !grid.solid((p[0] as usize).min(n - 1), (p[1] as usize).min(n - 1)))
    };
    let mut t = tolerance;
    while t >= 0.5 {
        let path = chaikin(&rdp(points, t, grid), CHAIKIN_PASSES);
        if on_land(&path) {
            return path;
        }
        t *= 0.5;
    }
    chaikin(&rdp(points, 0.0, grid), CHAIKIN_PASSES)
}

/// Whether the straight segment a → b crosses a solid cell (sampled at quarter-pixel steps).
fn crosses_solid(a: [f32; 2], b: [f32; 2], grid: &CostGrid) -> bool {
    let n = grid.n;
    let len = (b[0] - a[0]).hypot(b[1] - a[1]);
    let steps = (len * 4.0).ceil().max(1.0) as usize;
    (0..=steps).any(|k| {
        let t = k as f32 / steps as f32;
        let (x, y) = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t);
        let (cx, cy) = ((x as usize).min(n - 1), (y as usize).min(n - 1));
        grid.solid(cx, cy)
    })
}

/// Ramer–Douglas–Peucker, refusing shortcuts across solid cells.
fn rdp(points: &[[f32; 2]], tolerance: f32, grid: &CostGrid) -> Vec<[f32; 2]> {
    if points.len() < 3 {
        return points.to_vec();
    }
    let mut keep = vec![false; points.len()];
    keep[0] = true;
    keep[points.len() - 1] = true;
    let mut stack = vec![(0usize, points.len() - 1)];
    while let Some((a, b)) = stack.pop() {
        if b <= a + 1 {
            continue;
        }
        let (pa, pb) = (points[a], points[b]);
        let (dx, dy) = (pb[0] - pa[0], pb[1] - pa[1]);
        let len = dx.hypot(dy).max(f32::EPSILON);
        let (mut worst, mut at) = (-1.0f32, a + 1);
        for (i, p) in points.iter().enumerate().take(b).skip(a + 1) {
            let d = ((p[0] - pa[0]) * dy - (p[1] - pa[1]) * dx).abs() / len;
            if d > worst {
                worst = d;
                at = i;
            }
        }
        if worst > tolerance || crosses_solid(pa, pb, grid) {
            keep[at] = true;
            stack.push((a, at));
            stack.push((at, b));
        }
    }
    points
        .iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(*p))
        .collect()
}

/// Chaikin corner cutting, endpoints kept: every new point lies on a segment of the input.
fn chaikin(points: &[[f32; 2]], passes: usize) -> RoadPath {
    let mut p = points.to_vec();
    for _ in 0..passes {
        if p.len() < 3 {
            break;
        }
        let mut q = Vec::with_capacity(p.len() * 2);
        q.push(p[0]);
        for w in p.windows(2) {
            let (a, b) = (w[0], w[1]);
            q.push([0.75 * a[0] + 0.25 * b[0], 0.75 * a[1] + 0.25 * b[1]]);
            q.push([0.25 * a[0] + 0.75 * b[0], 0.25 * a[1] + 0.75 * b[1]]);
        }
        q.push(p[p.len() - 1]);
        p = q;
    }
    p
}
