//! Roads: the network over the full-resolution grid, in seconds, drawn at any angle.
//!
//! **Cost and search** ([`search`]): one node per pixel, 8-connected, the cost of a cell rising
//! with its height, water and the crater solid, rivers bridged; every road is an exact A* path.
//!
//! **Network.** Highway: the highway-node towns sorted by angle around their centroid, joined in
//! a ring, each leg an exact A* search. Branch: the snow hub joined to the nearest point of the
//! network by path cost (a Dijkstra search from the hub that stops at the first network cell).
//! County roads: Prim's algorithm — the remaining town whose path cost to the network is least
//! joins next, along that path, to the network point it reaches first; Villages get Rugged
//! roads, every other tier a Trail. Abandon protocol: a town whose straight-line distance to the
//! network exceeds 8 % of MapSize, or that no path reaches, is skipped with a log line; a
//! pinned town (a designer's: the first `pinned` of the list) is joined however far it is.
//!
//! **Exact Prim, incrementally.** A town's first join is an A* search toward the whole network,
//! guided by the network's [`field::DistanceField`] (a consistent lower bound: no cell costs less
//! than 1 per unit length). After that the network only grows, so a town's cheapest join can
//! only change to one that ends on the newest road: when a new road comes nearer to the town (in
//! a straight line) than its join's cost, one search toward *that road* — guided by the road's
//! own field and bounded by the cost of the join it would replace — answers whether the join
//! improves, and it usually stops within a few hundred cells. Every join is therefore the exact
//! cheapest path to the network at the moment it is chosen, as a full search would give; the
//! network's field is lowered by each road's (a cell-wise minimum) for the towns that come
//! within reach later.
//!
//! **Geometry** ([`geometry`]): each optimal grid path is strung tight into an any-angle
//! polyline that never crosses a solid cell and costs at most 1 % more than the grid optimum,
//! integrated over the same cost field, and its corners are rounded within a few metres.

pub mod field;
pub mod geometry;
pub mod search;

use std::collections::HashMap;

use rayon::prelude::*;
use serde::Serialize;

pub use search::{astar, nearest, CostGrid, Found, Scratch, ScratchPool, BRIDGE_COST};

use crate::blueprint::{RoadPath, RoadTier, Roads, Town, TownTier};
use crate::grid::bits::Bits;
use field::{DistanceField, Window, MAX_CAP_PX};
use geometry::cell_centre;

/// A town further than this fraction of MapSize from the network (straight line) is skipped.
pub const ABANDON_FRACTION: f32 = 0.08;

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
pub fn roads(
    grid: &CostGrid,
    towns: &[Town],
    pinned: usize,
    on_path: &(dyn Fn() + Sync),
) -> RoadNetwork {
    let mut b = Builder::new(grid, on_path);
    b.phase("continental loop", |b| b.continental_loop(towns));
    b.phase("mountain branches", |b| b.mountain_branches(towns));
    b.phase("county roads", |b| b.county_roads(towns, pinned));
    b.finish()
}

/// A town waiting for its county road.
struct Pending<'t> {
    town: &'t Town,
    cell: u32,
    /// Straight-line distance (pixels) to the network.
    distance: f32,
    /// The farthest (straight line, pixels) it may be from the network and still join.
    reach: f32,
    /// The cheapest join found so far (`None`: not searched yet).
    join: Option<Found>,
    /// The join accounts for the roads before this index of `Builder::paths`
    /// (`usize::MAX`: searched, and no path over land reaches the network).
    since: usize,
    /// A lower bound of the town's cheapest join now: the join's cost, or the straight-line
    /// distance to a newer road where that is less.
    bound: f32,
}

/// Lazy Prim's next step.
enum Next {
    /// This town joins now.
    Join(usize),
    /// These towns' joins must be brought up to date first.
    Resolve(Vec<usize>),
}

/// The network as it grows: its cells as a bit set and a list, the roads found so far.
struct Builder<'g> {
    grid: &'g CostGrid<'g>,
    on_path: &'g (dyn Fn() + Sync),
    n: usize,
    net: RoadNetwork,
    /// Every road's finished polyline, in the order of `net.raw`.
    paths: Vec<RoadPath>,
    /// The cells the network's polylines pass through, as a bit set and a list, and the first
    /// road through each.
    network: Bits,
    points: Vec<u32>,
    owner: HashMap<u32, usize>,
    /// The cells each road added to the network, in the order of `paths`.
    road_cells: Vec<Vec<u32>>,
}

impl<'g> Builder<'g> {
    fn new(grid: &'g CostGrid, on_path: &'g (dyn Fn() + Sync)) -> Builder<'g> {
        let n = grid.n;
        Builder {
            grid,
            on_path,
            n,
            net: RoadNetwork::default(),
            paths: Vec::new(),
            network: Bits::new(n * n),
            points: Vec::new(),
            owner: HashMap::new(),
            road_cells: Vec::new(),
        }
    }

    /// Runs one phase of the network, logging its time and the nodes its searches expanded (where
    /// the road stage's time goes, at any MapSize).
    fn phase(&mut self, name: &str, run: impl FnOnce(&mut Self)) {
        let (t0, e0, p0) = (
            std::time::Instant::now(),
            self.net.stats.expanded,
            self.paths.len(),
        );
        run(self);
        tracing::debug!(
            phase = name,
            secs = t0.elapsed().as_secs_f64(),
            expanded = self.net.stats.expanded - e0,
            paths = self.paths.len() - p0,
            "road phase"
        );
    }

    /// The cell a town stands on.
    fn cell(&self, t: &Town) -> u32 {
        let n = self.n;
        ((t.x as usize).min(n - 1) * n + (t.y as usize).min(n - 1)) as u32
    }

    /// Adds a found road of `tier` to the network: its polyline is finished now (geometry
    /// module: pulled taut, meeting the road it ends on at any angle), and the network gains the
    /// cells that polyline passes through — later roads join the road as drawn. Returns the
    /// cells it added.
    fn add(&mut self, tier: RoadTier, found: Found) -> Vec<u32> {
        let (grid, n) = (self.grid, self.n);
        let px = crate::units::metres_per_px(n);
        let taut = geometry::taut(&found.cells, grid, px);
        let joined = found
            .cells
            .last()
            .filter(|_| tier != RoadTier::Highway)
            .and_then(|end| self.owner.get(end))
            .map(|&j| self.paths[j].as_slice());
        let corner = geometry::CORNER_M / px;
        let path = geometry::finish(taut, &found.cells, joined, grid, corner);
        let mut cells = geometry::raster(&path, n);
        cells.retain(|&c| !self.network.get(c as usize));
        for &c in &cells {
            self.network.set(c as usize);
            self.points.push(c);
            self.owner.insert(c, self.paths.len());
        }
        self.paths.push(path);
        self.road_cells.push(cells.clone());
        self.net.stats.paths[tier as usize] += 1;
        self.net.stats.bridges[tier as usize] += self.grid.bridges(&found.cells).len();
        self.net.raw.push(RawRoad {
            tier,
            cells: found.cells,
            cost: found.cost,
        });
        cells
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
                Some(f) => {
                    self.add(RoadTier::Highway, f);
                }
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
            let f = nearest(self.grid, &mut scratch, self.cell(hub), |i| network.get(i));
            self.net.stats.expanded += scratch.expanded;
            (self.on_path)();
            match f {
                Some(f) => {
                    self.add(RoadTier::Branch, f);
                }
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

    /// County roads: exact Prim over the remaining towns (module docs) — repeatedly the
    /// cheapest join of any town within reach, the abandon protocol for towns too far from the
    /// network.
    fn county_roads(&mut self, towns: &[Town], pinned: usize) {
        let reach = ABANDON_FRACTION * self.n as f32;
        let mut waiting: Vec<(&Town, f32)> = (towns.iter().enumerate())
            .filter(|(_, t)| !t.is_highway_node && t.tier != TownTier::Hub)
            .map(|(i, t)| (t, if i < pinned { f32::INFINITY } else { reach }))
            .collect();
        if self.points.is_empty() && !waiting.is_empty() {
            // No loop: the first town seeds the network.
            let first = self.cell(waiting.remove(0).0);
            self.network.set(first as usize);
            self.points.push(first);
        }
        let mut pending: Vec<Pending> = waiting
            .into_iter()
            .map(|(town, reach)| {
                let distance = straight_distance(&self.points, town, self.n);
                Pending {
                    town,
                    cell: self.cell(town),
                    distance,
                    reach,
                    join: None,
                    since: 0,
                    bound: distance,
                }
            })
            .collect();
        let cap = reach.min(MAX_CAP_PX);
        let whole = Window {
            x0: 0,
            y0: 0,
            x1: self.n,
            y1: self.n,
        };
        let mut field = DistanceField::new(whole, &self.points, cap, self.n);
        loop {
            // Only towns within reach of the network may join now; when none is, the rest are
            // abandoned.
            if !pending.iter().any(|p| p.distance <= p.reach) {
                self.abandon_out_of_reach(&pending);
                break;
            }
            let chosen = match self.next_join(&pending) {
                Next::Join(i) => i,
                Next::Resolve(which) => {
                    self.resolve(&mut pending, &which, &field, cap);
                    self.drop_unreachable(&mut pending);
                    continue;
                }
            };
            let Pending { town, join, .. } = pending.remove(chosen);
            let found = join.expect("a resolved town has a path");
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
            let road = self.add(tier, found);
            self.lower_bounds(&mut pending, &road);
            if let Some(road_field) = DistanceField::around(&road, cap, self.n) {
                field.merge(&road_field);
            }
        }
    }

    /// Whether the town's join accounts for every road of the network.
    fn resolved(&self, p: &Pending) -> bool {
        p.join.is_some() && p.since == self.paths.len()
    }

    /// Lazy Prim's next step: the resolved town within reach with the cheapest join, if no
    /// unresolved town's lower bound is below it (ties: the earlier town); otherwise the
    /// unresolved towns that are.
    fn next_join(&self, pending: &[Pending]) -> Next {
        let within = || {
            pending
                .iter()
                .enumerate()
                .filter(|(_, p)| p.distance <= p.reach)
        };
        let best = within()
            .filter(|(_, p)| self.resolved(p))
            .map(|(i, p)| (p.bound, i))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let below = |key: (f32, usize)| {
            best.is_none_or(|b| key.0.total_cmp(&b.0).then(key.1.cmp(&b.1)).is_lt())
        };
        let which: Vec<usize> = within()
            .filter(|(i, p)| !self.resolved(p) && below((p.bound, *i)))
            .map(|(i, _)| i)
            .collect();
        match best {
            Some((_, i)) if which.is_empty() => Next::Join(i),
            _ => Next::Resolve(which),
        }
    }

    /// Brings the joins of the `which` towns up to date, in parallel (each search independent):
    /// a town never searched gets an A* search toward the whole network, guided by its `field`;
    /// a town with a join asks only whether a road added since is cheaper to reach — a search
    /// toward those roads' cells, guided by their own field and bounded by the join's cost.
    fn resolve(
        &mut self,
        pending: &mut [Pending],
        which: &[usize],
        field: &DistanceField,
        cap: f32,
    ) {
        let (grid, network, n) = (self.grid, &self.network, self.n);
        let roads = &self.road_cells;
        let pool = ScratchPool::new(n);
        let results: Vec<(usize, Option<Found>, u64)> = which
            .par_iter()
            .map(|&i| {
                let p = &pending[i];
                pool.with(|s| {
                    let f = match &p.join {
                        None => {
                            let h = |x, y| field.at(x, y);
                            search::search(grid, s, p.cell, |c| network.get(c), h, f32::INFINITY)
                        }
                        Some(join) => {
                            // A path cheaper than the join stays within its cost of the town
                            // (no cell costs under 1 a pixel): only roads in that square count.
                            let reach = Window::square(p.cell, join.cost.ceil() as usize + 1, n);
                            let newer: Vec<u32> = roads[p.since..]
                                .iter()
                                .flatten()
                                .copied()
                                .filter(|&c| reach.contains(c, n))
                                .collect();
                            DistanceField::within(reach, &newer, cap, n).and_then(|newer| {
                                let goal = |c: usize| newer.is_target(c / n, c % n);
                                let h = |x, y| newer.at(x, y);
                                search::search(grid, s, p.cell, goal, h, join.cost)
                            })
                        }
                    };
                    (i, f, s.expanded)
                })
            })
            .collect();
        let now = self.paths.len();
        for (i, f, expanded) in results {
            self.net.stats.expanded += expanded;
            let p = &mut pending[i];
            if f.is_some() {
                p.join = f;
            } else if p.join.is_none() {
                p.since = usize::MAX; // searched: no path over land
                continue;
            }
            p.since = now;
            p.bound = p.join.as_ref().map_or(f32::INFINITY, |j| j.cost);
        }
    }

    /// After `road` joins the network: every town's straight-line distance shrinks to it, and so
    /// does the lower bound of its join; a town whose join is still no dearer than that distance
    /// stays resolved without a search (no path can beat the straight line).
    fn lower_bounds(&self, pending: &mut [Pending], road: &[u32]) {
        let now = self.paths.len();
        for p in pending.iter_mut() {
            let to_road = straight_distance(road, p.town, self.n);
            p.distance = p.distance.min(to_road);
            p.bound = p.bound.min(to_road);
            if p.since == now - 1 && p.join.as_ref().is_some_and(|j| j.cost <= to_road) {
                p.since = now;
            }
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

    /// No path over land to the network now means none ever: the network only grows within its
    /// own landmass.
    fn drop_unreachable(&mut self, pending: &mut Vec<Pending>) {
        pending.retain(|p| {
            let reachable = p.since != usize::MAX;
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

    /// The finished polylines into the blueprint's tiers.
    fn finish(mut self) -> RoadNetwork {
        for (road, path) in self.net.raw.iter().zip(self.paths) {
            self.net.roads.tier_mut(road.tier).push(path);
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
