//! Roads: the network over the full-resolution grid, in seconds.
//!
//! **Cost grid.** One node per pixel, 8-connected (diagonal steps √2 long). Entering a cell costs
//! its step length × (1 + e³ × 400), e = the cell's height above sea as a fraction of the 420 m
//! cap, so mountains are expensive rather than impassable. Ocean, lakes and the crater (its
//! radius around the impact) are solid. A river pixel is a bridge: entering it costs
//! [`BRIDGE_COST`] per step length, so a road crosses a river rarely, and straight across (the
//! fewest river pixels).
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
use crate::blueprint::{RoadPath, RoadTier, Roads, Town, TownTier};
use crate::grid::bits::Bits;
use crate::units::{HEIGHT_CAP_M as CAP_M, METRES_PER_RAW};

/// The summit cap the cost's elevation is a fraction of, metres.
/// RDP tolerance at the 1024 reference, pixels (× scaleFactor).
const RDP_TOLERANCE_REF: f32 = 4.0;
/// Chaikin passes.
const CHAIKIN_PASSES: usize = 4;
/// A town further than this fraction of MapSize from the network (straight line) is skipped.
pub const ABANDON_FRACTION: f32 = 0.08;

/// The cost of entering a river pixel, per step length (an ordinary lowland pixel costs 1): a
/// one-pixel crossing is worth a 60-pixel detour.
pub const BRIDGE_COST: f32 = 60.0;

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
    /// River pixels made bridges.
    bridged: Option<Bits>,
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
        CostGrid {
            n,
            cost,
            bridged: None,
        }
    }

    /// Makes river pixels (`x * n + y`) bridges: passable at [`BRIDGE_COST`] (unless solid).
    pub fn bridge(&mut self, river_pixels: impl IntoIterator<Item = u32>) {
        let bridged = self
            .bridged
            .get_or_insert_with(|| Bits::new(self.n * self.n));
        for i in river_pixels {
            let c = &mut self.cost[i as usize];
            if c.is_finite() {
                *c = c.max(BRIDGE_COST);
                bridged.set(i as usize);
            }
        }
    }

    /// Whether cell `i` is a bridge (a river pixel).
    #[inline]
    pub fn is_bridge(&self, i: usize) -> bool {
        self.bridged.as_ref().is_some_and(|b| b.get(i))
    }

    /// The bridges along `cells`: each run of consecutive river cells is one, with its length
    /// in cells.
    pub fn bridges(&self, cells: &[u32]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut run = 0;
        for &c in cells {
            if self.is_bridge(c as usize) {
                run += 1;
            } else if run > 0 {
                out.push(run);
                run = 0;
            }
        }
        if run > 0 {
            out.push(run);
        }
        out
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

/// One [`Scratch`] per worker thread (and one for the caller), made on first use: parallel
/// searches borrow their thread's, so a batch holds at most threads + 1 scratches however
/// many jobs rayon splits it into (a scratch is 16 bytes a cell). A search never calls into
/// rayon while it holds one, so a thread cannot want its own slot twice.
pub struct ScratchPool {
    n: usize,
    slots: Vec<std::sync::Mutex<Option<Scratch>>>,
}

impl ScratchPool {
    /// A pool for an `n` × `n` map on the current rayon pool.
    pub fn new(n: usize) -> ScratchPool {
        let slots = (0..=rayon::current_num_threads())
            .map(|_| std::sync::Mutex::new(None))
            .collect();
        ScratchPool { n, slots }
    }

    /// Runs `search` with this thread's scratch.
    pub fn with<R>(&self, search: impl FnOnce(&mut Scratch) -> R) -> R {
        let last = self.slots.len() - 1;
        let i = rayon::current_thread_index().map_or(last, |i| i.min(last));
        let mut slot = self.slots[i]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        search(slot.get_or_insert_with(|| Scratch::new(self.n)))
    }

    /// Scratches made so far (at most threads + 1).
    pub fn made(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.lock().map(|s| s.is_some()).unwrap_or(true))
            .count()
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
    pub tier: RoadTier,
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
    /// Bridges (river crossings) per tier.
    pub bridges: [usize; 4],
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

/// What the road stage knows beyond the smoothed polylines: every road on the grid and the
/// figures.
#[derive(Clone, Debug, Default)]
pub struct RoadReport {
    /// Every road before smoothing.
    pub raw: Vec<RawRoad>,
    /// Figures.
    pub stats: RoadStats,
}

impl RoadNetwork {
    /// The smoothed roads (for the blueprint) and the rest, without copying either.
    pub fn into_parts(self) -> (Roads, RoadReport) {
        (
            self.roads,
            RoadReport {
                raw: self.raw,
                stats: self.stats,
            },
        )
    }
}

/// Builds the network for `towns` on `grid`. `on_path` is called once per finished path.
pub fn roads(grid: &CostGrid, towns: &[Town], on_path: &(dyn Fn() + Sync)) -> RoadNetwork {
    let mut b = Builder::new(grid, on_path);
    b.continental_loop(towns);
    b.mountain_branches(towns);
    b.county_roads(towns);
    b.smooth_all()
}

/// A town waiting for its county road: its straight-line distance (pixels) to the network and
/// its cached cheapest join (`None` = stale, `Some(None)` = no path over land).
struct Pending<'t> {
    town: &'t Town,
    distance: f32,
    join: Option<Option<Found>>,
}

/// The network as it grows: its cells as a bit set and a list, the roads found so far.
struct Builder<'g> {
    grid: &'g CostGrid,
    on_path: &'g (dyn Fn() + Sync),
    n: usize,
    net: RoadNetwork,
    network: Bits,
    points: Vec<u32>,
}

impl<'g> Builder<'g> {
    fn new(grid: &'g CostGrid, on_path: &'g (dyn Fn() + Sync)) -> Builder<'g> {
        let n = grid.n;
        Builder {
            grid,
            on_path,
            n,
            net: RoadNetwork::default(),
            network: Bits::new(n * n),
            points: Vec::new(),
        }
    }

    /// The cell a town stands on.
    fn cell(&self, t: &Town) -> u32 {
        let n = self.n;
        ((t.x as usize).min(n - 1) * n + (t.y as usize).min(n - 1)) as u32
    }

    /// Adds a found road of `tier` to the network.
    fn add(&mut self, tier: RoadTier, found: Found) {
        for &c in &found.cells {
            if !self.network.get(c as usize) {
                self.network.set(c as usize);
                self.points.push(c);
            }
        }
        self.net.stats.paths[tier as usize] += 1;
        self.net.stats.bridges[tier as usize] += self.grid.bridges(&found.cells).len();
        self.net.raw.push(RawRoad {
            tier,
            cells: found.cells,
            cost: found.cost,
        });
    }

    /// The continental loop: highway nodes by angle around their centroid, one exact A* leg
    /// between each neighbouring pair, the legs searched in parallel.
    fn continental_loop(&mut self, towns: &[Town]) {
        let legs = loop_legs(towns, |t| self.cell(t));
        let (grid, n, on_path) = (self.grid, self.n, self.on_path);
        let pool = ScratchPool::new(n);
        let found: Vec<(Option<Found>, u64)> = legs
            .par_iter()
            .map(|&(a, b)| {
                let found = pool.with(|s| (astar(grid, s, a, b), s.expanded));
                on_path();
                found
            })
            .collect();
        for ((f, expanded), (a, b)) in found.into_iter().zip(&legs) {
            self.net.stats.expanded += expanded;
            match f {
                Some(f) => self.add(RoadTier::Highway, f),
                None => tracing::warn!(
                    "no highway between ({}, {}) and ({}, {}): no path over land",
                    a / n as u32,
                    a % n as u32,
                    b / n as u32,
                    b % n as u32
                ),
            }
        }
    }

    /// The mountain branch: each snow hub to the nearest network point.
    fn mountain_branches(&mut self, towns: &[Town]) {
        let mut scratch = Scratch::new(self.n);
        for hub in towns
            .iter()
            .filter(|t| t.tier == TownTier::Hub && !t.is_highway_node)
        {
            if self.points.is_empty() {
                break;
            }
            let network = &self.network;
            let f = nearest(
                self.grid,
                &mut scratch,
                self.cell(hub),
                |i| network.get(i),
                f32::INFINITY,
            );
            self.net.stats.expanded += scratch.expanded;
            (self.on_path)();
            match f {
                Some(f) => self.add(RoadTier::Branch, f),
                None => {
                    tracing::warn!(
                        "snow hub at ({:.0}, {:.0}) cannot reach the loop",
                        hub.x,
                        hub.y
                    );
                    self.net.stats.abandoned += 1;
                }
            }
        }
    }

    /// County roads: exact Prim over the remaining towns — repeatedly the cheapest join of any
    /// town within reach, each town's join cached and refreshed only when a new road comes
    /// nearer than its cost (no path can beat the straight line), the abandon protocol for
    /// towns too far from the network.
    fn county_roads(&mut self, towns: &[Town]) {
        let mut waiting: Vec<&Town> = towns
            .iter()
            .filter(|t| !t.is_highway_node && t.tier != TownTier::Hub)
            .collect();
        if self.points.is_empty() && !waiting.is_empty() {
            // No loop: the first town seeds the network.
            let first = self.cell(waiting.remove(0));
            self.network.set(first as usize);
            self.points.push(first);
        }
        let mut pending: Vec<Pending> = waiting
            .into_iter()
            .map(|town| Pending {
                town,
                distance: straight_distance(&self.points, town, self.n),
                join: None,
            })
            .collect();
        let reach = ABANDON_FRACTION * self.n as f32;
        loop {
            // Only towns within reach of the network may join now; when none is, the rest are
            // abandoned.
            if !pending.iter().any(|p| p.distance <= reach) {
                self.abandon_out_of_reach(&pending);
                break;
            }
            self.refresh_stale_joins(&mut pending, reach);
            self.drop_unreachable(&mut pending);
            let Some(chosen) = cheapest_join(&pending, reach) else {
                break;
            };
            let Pending { town, join, .. } = pending.remove(chosen);
            let found = join.flatten().expect("the chosen town has a path");
            (self.on_path)();
            if found.cells.len() < 2 {
                // The town stands on the network already: joined, no road to build.
                continue;
            }
            let tier = if town.tier == TownTier::Village {
                RoadTier::Rugged
            } else {
                RoadTier::Trail
            };
            let new_cells = found.cells.clone();
            self.add(tier, found);
            mark_stale(&mut pending, &new_cells, self.n);
        }
    }

    fn abandon_out_of_reach(&mut self, pending: &[Pending]) {
        for p in pending {
            self.net.stats.abandoned += 1;
            tracing::info!(
                "road abandoned: {:?} at ({:.0}, {:.0}) is {:.0} px from the network (more than {:.0} % of MapSize)",
                p.town.tier, p.town.x, p.town.y, p.distance, ABANDON_FRACTION * 100.0
            );
        }
    }

    /// Fresh joins for the stale towns within reach, in parallel (each search is independent).
    fn refresh_stale_joins(&mut self, pending: &mut [Pending], reach: f32) {
        let stale: Vec<(usize, u32)> = pending
            .iter()
            .enumerate()
            .filter(|(_, p)| p.distance <= reach && p.join.is_none())
            .map(|(i, p)| (i, self.cell(p.town)))
            .collect();
        let (grid, network) = (self.grid, &self.network);
        let pool = ScratchPool::new(self.n);
        let results: Vec<(usize, Option<Found>, u64)> = stale
            .par_iter()
            .map(|&(i, start)| {
                pool.with(|s| {
                    let f = nearest(grid, s, start, |c| network.get(c), f32::INFINITY);
                    (i, f, s.expanded)
                })
            })
            .collect();
        for (i, f, expanded) in results {
            self.net.stats.expanded += expanded;
            pending[i].join = Some(f);
        }
    }

    /// No path over land to the network now means none ever: the network only grows within its
    /// own landmass.
    fn drop_unreachable(&mut self, pending: &mut Vec<Pending>) {
        pending.retain(|p| {
            let reachable = !matches!(p.join, Some(None));
            if !reachable {
                self.net.stats.abandoned += 1;
                tracing::info!(
                    "road abandoned: {:?} at ({:.0}, {:.0}) has no path over land to the network",
                    p.town.tier,
                    p.town.x,
                    p.town.y
                );
            }
            reachable
        });
    }

    /// Decimates and smooths every road into the blueprint's polylines.
    fn smooth_all(mut self) -> RoadNetwork {
        let n = self.n;
        let tolerance = RDP_TOLERANCE_REF * crate::units::scale_factor(n);
        for raw in &self.net.raw {
            let points: Vec<[f32; 2]> = raw.cells.iter().map(|&c| cell_centre(c, n)).collect();
            let path = smooth(&points, tolerance, self.grid);
            self.net.roads.tier_mut(raw.tier).push(path);
        }
        self.net
    }
}

/// The highway legs: loop nodes sorted by angle around their centroid, each joined to the next
/// (two nodes make one leg, fewer none).
fn loop_legs(towns: &[Town], cell: impl Fn(&Town) -> u32) -> Vec<(u32, u32)> {
    let mut nodes: Vec<&Town> = towns.iter().filter(|t| t.is_highway_node).collect();
    if nodes.len() < 2 {
        return Vec::new();
    }
    let cx = nodes.iter().map(|t| t.x).sum::<f32>() / nodes.len() as f32;
    let cy = nodes.iter().map(|t| t.y).sum::<f32>() / nodes.len() as f32;
    nodes.sort_by(|a, b| {
        let aa = (a.y - cy).atan2(a.x - cx);
        let bb = (b.y - cy).atan2(b.x - cx);
        aa.total_cmp(&bb)
    });
    (0..nodes.len())
        .filter(|&i| nodes.len() > 2 || i == 0)
        .map(|i| (cell(nodes[i]), cell(nodes[(i + 1) % nodes.len()])))
        .collect()
}

/// The centre of cell `c` (`x * n + y`) in pixel coordinates.
fn cell_centre(c: u32, n: usize) -> [f32; 2] {
    [(c as usize / n) as f32 + 0.5, (c as usize % n) as f32 + 0.5]
}

/// The straight-line distance (pixels) from a town to the nearest of `cells`.
fn straight_distance(cells: &[u32], t: &Town, n: usize) -> f32 {
    cells
        .iter()
        .map(|&c| {
            let [px, py] = cell_centre(c, n);
            (px - t.x).hypot(py - t.y)
        })
        .fold(f32::INFINITY, f32::min)
}

/// The cheapest cached join among the towns within reach (ties: the earlier town).
fn cheapest_join(pending: &[Pending], reach: f32) -> Option<usize> {
    pending
        .iter()
        .enumerate()
        .filter(|(_, p)| p.distance <= reach)
        .filter_map(|(i, p)| {
            p.join
                .as_ref()
                .and_then(|f| f.as_ref())
                .map(|f| (f.cost, i))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, i)| i)
}

/// After a road over `new_cells` joins the network: every town's distance to the network
/// shrinks to it, and a cached join goes stale when the new road comes nearer than its cost.
fn mark_stale(pending: &mut [Pending], new_cells: &[u32], n: usize) {
    for p in pending.iter_mut() {
        let to_new = straight_distance(new_cells, p.town, n);
        p.distance = p.distance.min(to_new);
        if let Some(Some(found)) = &p.join {
            if to_new < found.cost {
                p.join = None;
            }
        }
    }
}

/// Decimates and smooths one path. Chaikin's later passes cut the corners of the decimated
/// polyline, so where a corner wraps around water a smoothed point could land in it: then the
/// tolerance is halved, down to none, and as a last resort the path keeps its cell centres.
/// Every point of the result lies on a passable cell.
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
    // Without decimation Chaikin still cuts the corners between long straight runs; where even
    // that lands in water, the road keeps its cell centres, which are all passable.
    let path = chaikin(&rdp(points, 0.0, grid), CHAIKIN_PASSES);
    if on_land(&path) {
        return path;
    }
    points.to_vec()
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
