//! Rivers (Rivers "v1"): drainage from the highlands to the sea, as chains of flat reaches
//! sitting in carved channels, and as vectors.
//!
//! **Where rivers run** is decided on a fixed hydrology grid of [`GRID`]² cells over the
//! normalised map square (8 m cells), from the smooth island — the same function of the
//! normalised position the towns read — so a seed has the same rivers at every MapSize. Cells
//! under the smooth island's sea, or on the map's ocean or lakes, are outlets. Depressions are
//! resolved by an ε-Priority-Flood (Barnes et al. 2014: every cell drains to an outlet by a
//! strictly descending path); flow is accumulated by multiple-flow-direction routing (Freeman
//! 1991: each cell shares its flow among all lower neighbours in proportion to slope^1.1), so
//! catchments do not inherit D8's eight headings. A channel starts where the catchment passes
//! `catchment_km2 / density` and the ground stands at least [`HEAD_MIN_M`] above sea (no river
//! rises in a flat lowland); from there it follows the filled surface's steepest descent to
//! the sea or a lake, and its centreline is smoothed (a moving average over
//! [`SMOOTH_CELLS`] cells, twice) so no grid heading shows. Widths and depths follow discharge
//! (hydraulic geometry: width = 6 m × widthScale × Q^0.5, depth 0.5 m + 2.5 m × Q^0.4, Q =
//! [`RUNOFF_M3S_PER_KM2`] × catchment).
//!
//! **What a river is on the map** (`carve`): its centreline is drawn at the map's resolution,
//! at least one pixel wide, never on the ocean, a lake or the crater's protected core. Its bed
//! is graded from the land first (`graded_beds`): the ground under each point less the
//! discharge's depth, cut where the ground rises downstream (a spill the course crosses), and
//! graded to the lower convex hull of that profile — a river's concave-up long profile, which
//! carries a bench edge's fall back over the flat above it instead of leaving a flat bed and a
//! waterfall — cut at most [`KNICK_CUT_M`] deeper than the spills need; a tributary's bed ends
//! on the bed of the river it joins (no waterfall at a confluence). Walking downstream, a new
//! reach begins where that bed has dropped [`REACH_DROP_M`] since the reach began, or at
//! [`REACH_MAX_M`] of length. Each reach has one flat surface level: its depth above the bed at
//! its first point, never above the lowest of its bank pixels (land beside it), the reach
//! upstream of it or a tributary that joins it — so levels step down to the mouth, no reach is
//! a pit, and no bank is below the water. Every river pixel's exported height is lowered to the
//! bed under it, which lies at least [`MIN_WATER_M`] under its reach's level and falls at least
//! [`MIN_BED_SLOPE`] a metre: the riverbed is no staircase. Banks and everything else keep
//! their heights, so the coastline and the ocean never change.

use ndarray::Array2;
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::crater::Crater;
use super::sea::Water;
use crate::sea::SeaLevel;
use crate::blueprint::{River, RiverPoint};
use crate::grid::bits::Bits;
use crate::grid::noise::normalised;
use crate::grid::{ascending, height_key, NEIGHBOURS};
use crate::units::{self, METRES_PER_RAW, WORLD_SIZE_M};

/// Hydrology cells a side.
pub const GRID: usize = 1024;
/// A channel head stands at least this high above sea, metres.
pub const HEAD_MIN_M: f32 = 5.0;
/// Runoff: discharge per km² of catchment, m³/s (about 1.6 m of rain a year leaving as flow).
pub const RUNOFF_M3S_PER_KM2: f32 = 0.05;
/// Centreline smoothing window, hydrology cells (each side of a point).
pub const SMOOTH_CELLS: usize = 3;
/// A new reach begins after its graded bed has dropped this far, metres: about a headwater's
/// depth, so a reach's water stands over its bed from its first pixel to its last.
pub const REACH_DROP_M: f32 = 0.5;
/// ... or after this length, metres.
pub const REACH_MAX_M: f32 = 400.0;
/// No reach's surface lies lower than this above the sea, metres (banks are raised to it).
pub const MIN_LEVEL_M: f32 = 0.6;
/// A river bed stays at least this far above the sea, metres.
pub const SEA_MARGIN_M: f32 = 0.05;
/// The crater's protected core, a factor of its radius: never a river bed.
pub const CRATER_CORE: f32 = 0.8;
/// The exponent on the slope in multiple-flow-direction routing (Freeman's 1.1 spreads flow
/// over a smooth island's slopes so far that few catchments concentrate; Holmgren's 4–6
/// keeps the sharing between lower neighbours, without D8's single heading).
const MFD_EXPONENT: i32 = 8;

/// A lower neighbour's share weight from its slope relative to the steepest, (s)^[`MFD_EXPONENT`]
/// by three squarings (a `powf` per neighbour was most of the accumulation's time).
#[inline]
pub(crate) fn weight(relative: f32) -> f32 {
    const { assert!(MFD_EXPONENT == 8) };
    let s2 = relative * relative;
    let s4 = s2 * s2;
    s4 * s4
}
/// A river's headwater stream: from its channel head the river is traced on upstream (along the
/// largest catchment) while the catchment is at least this, km² — so rivers rise in the
/// highlands without more of them starting. 0.05 km² is where the land itself has a channel (the
/// drainage statistics' channel threshold, `scripts/geomorph.py`): above it the fluvial relief
/// has cut a valley for the river to lie in; below it a river would run on the hillslope.
/// Never above the channel-start catchment.
pub const HEADWATER_KM2: f32 = 0.05;
/// A river (or tributary) shorter than this, metres, is not kept unless a kept tributary joins it.
pub const MIN_LENGTH_M: f32 = 400.0;

/// The river dials, as applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RiverParams {
    /// A channel starts where the catchment passes this (÷ density), km².
    pub catchment_km2: f32,
    /// Multiplier on the hydraulic-geometry width.
    pub width_scale: f32,
    /// More rivers above 1 (the start catchment is divided by it).
    pub density: f32,
}

/// One river of the network in normalised coordinates, before it meets a map.
#[derive(Clone, Debug, PartialEq)]
pub struct Course {
    /// Strahler order.
    pub order: u8,
    /// Centreline, upstream to downstream: normalised (u, v).
    pub points: Vec<[f32; 2]>,
    /// Catchment at each point, km².
    pub catchment_km2: Vec<f32>,
    /// The river this one ends in (a tributary), by index; `None` for a river that reaches the
    /// sea or a lake.
    pub joins: Option<usize>,
}

/// The network of one seed: rivers in normalised coordinates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Network {
    /// The rivers, each tributary before the river it joins.
    pub courses: Vec<Course>,
    /// The largest catchment reaching the sea or a lake through a river, km².
    pub largest_catchment_km2: f32,
}

impl Course {
    /// The index of the point nearest `at` (normalised); `None` for a course without points.
    fn nearest_point(&self, at: [f32; 2]) -> Option<usize> {
        let d = |q: &[f32; 2]| (q[0] - at[0]).hypot(q[1] - at[1]);
        (0..self.points.len()).min_by(|&a, &b| d(&self.points[a]).total_cmp(&d(&self.points[b])))
    }

    /// Discharge at point `i`, m³/s.
    pub fn discharge(&self, i: usize) -> f32 {
        RUNOFF_M3S_PER_KM2 * self.catchment_km2[i]
    }
}

/// Width of a channel carrying `q` m³/s, metres.
pub fn width_m(q: f32, width_scale: f32) -> f32 {
    6.0 * width_scale * q.max(0.0).sqrt()
}

/// Depth of a channel carrying `q` m³/s below its surface, metres.
pub fn depth_m(q: f32) -> f32 {
    0.5 + 2.5 * q.max(0.0).powf(0.4)
}

/// What the network is found on: the smooth island's height (raw, absolute) and the height in
/// metres above sea (curved, for the head rule) at a normalised position, and whether a
/// normalised position is an outlet (sea or lake on the map).
pub struct Terrain<'a> {
    /// Smooth raw height at (u, v).
    pub raw: &'a (dyn Fn(f32, f32) -> f32 + Sync),
    /// Height above sea in metres at (u, v) (the head rule).
    pub metres: &'a (dyn Fn(f32, f32) -> f32 + Sync),
    /// Whether (u, v) drains out of the land (sea, lake, crater bay).
    pub outlet: &'a (dyn Fn(f32, f32) -> bool + Sync),
}

/// The hydrology grid of `t`: each cell's height (raw) and whether it is an outlet.
pub fn grid_heights(t: &Terrain) -> (Vec<f32>, Vec<bool>) {
    let n = GRID;
    let z: Vec<f32> = (0..n * n)
        .into_par_iter()
        .map(|i| (t.raw)(normalised(i / n, n), normalised(i % n, n)))
        .collect();
    let outlet: Vec<bool> = (0..n * n)
        .into_par_iter()
        .map(|i| (t.outlet)(normalised(i / n, n), normalised(i % n, n)))
        .collect();
    (z, outlet)
}

/// The flow kernel on an `n` × `n` grid (`x * n + y`): fills `z` in place (ε-Priority-Flood),
/// returns the cells in ascending filled height and each cell's multiple-flow-direction
/// catchment in cells (itself included).
pub fn flow(z: &mut [f32], outlet: &[bool], n: usize) -> (Vec<u32>, Vec<f32>) {
    epsilon_fill(z, outlet, n);
    // Ascending filled height: reversed, every cell comes before all the cells it drains to.
    let order = ascending(z);
    let acc = accumulate(z, outlet, &order, n);
    (order, acc)
}

/// Finds the river network.
pub fn network(t: &Terrain, p: &RiverParams) -> Network {
    let n = GRID;
    let (mut z, outlet) = grid_heights(t);
    let (order, acc) = flow(&mut z, &outlet, n);
    channels(t, p, &z, &outlet, &order, &acc)
}

/// The network from the flow kernel's results on the hydrology grid.
fn channels(
    t: &Terrain,
    p: &RiverParams,
    z: &[f32],
    outlet: &[bool],
    order: &[u32],
    acc: &[f32],
) -> Network {
    let n = GRID;
    let cell_km2 = (WORLD_SIZE_M as f64 / n as f64).powi(2) / 1e6;
    let threshold = (f64::from(p.catchment_km2 / p.density.max(1e-3)) / cell_km2) as f32;
    let recv: Vec<u32> = (0..n * n)
        .into_par_iter()
        .map(|i| steepest(z, outlet, i, n))
        .collect();
    let on_river = mark_rivers(t, acc, &recv, outlet, order, threshold, n);
    let courses = courses(
        &on_river,
        acc,
        &recv,
        outlet,
        order,
        n,
        cell_km2 as f32,
        threshold.min((f64::from(HEADWATER_KM2) / cell_km2) as f32),
    );
    let largest = courses
        .iter()
        .filter(|c| c.joins.is_none())
        .filter_map(|c| c.catchment_km2.last().copied())
        .fold(0.0, f32::max);
    Network {
        courses,
        largest_catchment_km2: largest,
    }
}

/// ε-Priority-Flood from the outlets: raises `z` so that every cell has a strictly lower
/// neighbour on the way to an outlet. The queue is ordered by each cell's *original* height, so
/// inside a depression the flood spreads from the spill point along the lowest ground first and
/// the drainage it leaves follows the depression's floor to its spill point, instead of the
/// straight lines an ordering by filled height draws across a flat.
pub(crate) fn epsilon_fill(z: &mut [f32], outlet: &[bool], n: usize) {
    let original = z.to_vec();
    let mut heap = BinaryHeap::new();
    let mut done = Bits::new(n * n);
    for (i, &o) in outlet.iter().enumerate() {
        let (x, y) = (i / n, i % n);
        if o || x == 0 || y == 0 || x == n - 1 || y == n - 1 {
            done.set(i);
            heap.push(Reverse((height_key(z[i]), i as u32)));
        }
    }
    while let Some(Reverse((_, i))) = heap.pop() {
        let i = i as usize;
        let (x, y) = (i / n, i % n);
        for (dx, dy) in NEIGHBOURS {
            let (nx, ny) = (x as isize + dx, y as isize + dy);
            if nx < 0 || ny < 0 || nx >= n as isize || ny >= n as isize {
                continue;
            }
            let j = nx as usize * n + ny as usize;
            if done.get(j) {
                continue;
            }
            done.set(j);
            if z[j] <= z[i] {
                z[j] = next_up(z[i]);
            }
            heap.push(Reverse((height_key(original[j]), j as u32)));
        }
    }
}

/// The next f32 above `h` (the ε of the ε-fill: the smallest step that keeps a flat draining).
fn next_up(h: f32) -> f32 {
    let b = h.to_bits();
    if h.is_nan() || h == f32::INFINITY {
        h
    } else if h == 0.0 {
        f32::from_bits(1)
    } else if h > 0.0 {
        f32::from_bits(b + 1)
    } else {
        f32::from_bits(b - 1)
    }
}

/// Multiple-flow-direction accumulation (cells of catchment, each cell counting itself), in
/// reverse flood order so every donor is done before its receivers.
pub(crate) fn accumulate(z: &[f32], outlet: &[bool], order: &[u32], n: usize) -> Vec<f32> {
    let mut acc = vec![1.0f32; n * n];
    for &i in order.iter().rev() {
        let i = i as usize;
        if outlet[i] {
            continue;
        }
        let (x, y) = (i / n, i % n);
        // Slopes to the lower neighbours, then weights (slope / steepest)^p: relative, so tiny
        // drops on a filled flat do not underflow to no outflow at all.
        let mut shares = [(0usize, 0.0f32); 8];
        let mut steepest = 0.0f32;
        for (k, (dx, dy)) in NEIGHBOURS.iter().enumerate() {
            let (nx, ny) = (x as isize + dx, y as isize + dy);
            if nx < 0 || ny < 0 || nx >= n as isize || ny >= n as isize {
                continue;
            }
            let j = nx as usize * n + ny as usize;
            let drop = z[i] - z[j];
            if drop > 0.0 {
                let distance = if dx * dy != 0 {
                    std::f32::consts::SQRT_2
                } else {
                    1.0
                };
                shares[k] = (j, drop / distance);
                steepest = steepest.max(drop / distance);
            }
        }
        if steepest <= 0.0 {
            continue;
        }
        let mut total = 0.0;
        for share in shares.iter_mut().filter(|s| s.1 > 0.0) {
            share.1 = weight(share.1 / steepest);
            total += share.1;
        }
        let a = acc[i];
        for (j, w) in shares {
            if w > 0.0 {
                acc[j] += a * w / total;
            }
        }
    }
    acc
}

/// The steepest lower neighbour of cell `i` on the filled surface (`i` itself for an outlet or
/// a cell without one).
fn steepest(z: &[f32], outlet: &[bool], i: usize, n: usize) -> u32 {
    if outlet[i] {
        return i as u32;
    }
    let (x, y) = (i / n, i % n);
    let mut best = (i, 0.0f32);
    for (dx, dy) in NEIGHBOURS {
        let (nx, ny) = (x as isize + dx, y as isize + dy);
        if nx < 0 || ny < 0 || nx >= n as isize || ny >= n as isize {
            continue;
        }
        let j = nx as usize * n + ny as usize;
        let distance = if dx * dy != 0 {
            std::f32::consts::SQRT_2
        } else {
            1.0
        };
        let slope = (z[i] - z[j]) / distance;
        if slope > best.1 {
            best = (j, slope);
        }
    }
    best.0 as u32
}

/// Which cells carry a river: downstream (by steepest descent) of every channel head — a cell
/// whose catchment passes `threshold` cells, standing high enough, with no such cell above it.
fn mark_rivers(
    t: &Terrain,
    acc: &[f32],
    recv: &[u32],
    outlet: &[bool],
    order: &[u32],
    threshold: f32,
    n: usize,
) -> Vec<bool> {
    // A channel cell has a channel donor when some channel cell drains into it.
    let channel = |i: usize| acc[i] >= threshold && !outlet[i];
    let mut has_channel_donor = vec![false; n * n];
    for (i, &r) in recv.iter().enumerate() {
        let r = r as usize;
        if channel(i) && r != i {
            has_channel_donor[r] = true;
        }
    }
    let mut on_river = vec![false; n * n];
    // Upstream first: a head starts a river; a river cell passes it to its receiver.
    for &i in order.iter().rev() {
        let i = i as usize;
        if outlet[i] {
            continue;
        }
        let head = channel(i) && !has_channel_donor[i] && {
            let (u, v) = (normalised(i / n, n), normalised(i % n, n));
            (t.metres)(u, v) >= HEAD_MIN_M
        };
        if head {
            on_river[i] = true;
        }
        if on_river[i] {
            let r = recv[i] as usize;
            if r != i && !outlet[r] {
                on_river[r] = true;
            }
        }
    }
    on_river
}

/// The rivers as courses: trunk streams followed upstream along their largest donor, every
/// other donor starting a tributary; Strahler orders; smoothed centrelines.
#[allow(clippy::too_many_arguments)]
fn courses(
    on_river: &[bool],
    acc: &[f32],
    recv: &[u32],
    outlet: &[bool],
    order: &[u32],
    n: usize,
    cell_km2: f32,
    headwater: f32,
) -> Vec<Course> {
    // Donors of each river cell, and Strahler orders upstream first.
    let mut donors: Vec<Vec<u32>> = Vec::new();
    let mut index = vec![u32::MAX; n * n];
    let cells: Vec<usize> = order
        .iter()
        .rev()
        .map(|&i| i as usize)
        .filter(|&i| on_river[i])
        .collect();
    for (k, &i) in cells.iter().enumerate() {
        index[i] = k as u32;
        donors.push(Vec::new());
    }
    for &i in &cells {
        let r = recv[i] as usize;
        if r != i && on_river[r] {
            donors[index[r] as usize].push(i as u32);
        }
    }
    let mut strahler = vec![1u8; cells.len()];
    for k in 0..cells.len() {
        let orders: Vec<u8> = donors[k]
            .iter()
            .map(|&d| strahler[index[d as usize] as usize])
            .collect();
        if let Some(&top) = orders.iter().max() {
            let ties = orders.iter().filter(|&&o| o == top).count();
            strahler[k] = if ties >= 2 {
                top.saturating_add(1)
            } else {
                top
            };
        }
    }
    // Mouths: river cells draining to an outlet; trunks traced upstream along the largest donor.
    let mut out: Vec<Course> = Vec::new();
    // (start cell, the course it joins) — processed as a stack so tributaries come out before
    // the course they join only after ordering below.
    let mut pending: Vec<(usize, Option<usize>)> = cells
        .iter()
        .filter(|&&i| {
            let r = recv[i] as usize;
            r == i || outlet[r] || !on_river[r]
        })
        .map(|&i| (i, None))
        .collect();
    // Largest mouths first, so trunk courses get the low indices before reordering.
    pending.sort_by(|a, b| acc[b.0].total_cmp(&acc[a.0]).then(a.0.cmp(&b.0)));
    pending.reverse();
    while let Some((mouth, joins)) = pending.pop() {
        let me = out.len();
        // Walk upstream from the mouth along the largest donor.
        let mut chain = vec![mouth];
        let mut at = mouth;
        loop {
            let d = &donors[index[at] as usize];
            let Some(&main) = d
                .iter()
                .max_by(|&&a, &&b| acc[a as usize].total_cmp(&acc[b as usize]).then(b.cmp(&a)))
            else {
                break;
            };
            for &other in d.iter().filter(|&&o| o != main) {
                pending.push((other as usize, Some(me)));
            }
            at = main as usize;
            chain.push(at);
        }
        // The headwater: on upstream along the largest catchment draining here.
        while let Some(up) = largest_upslope(at, acc, recv, n).filter(|&j| acc[j] >= headwater) {
            at = up;
            chain.push(at);
        }
        chain.reverse(); // upstream → downstream
        let mut points: Vec<[f32; 2]> = chain
            .iter()
            .map(|&i| [normalised(i / n, n), normalised(i % n, n)])
            .collect();
        let mut catchment: Vec<f32> = chain.iter().map(|&i| acc[i] * cell_km2).collect();
        // A tributary ends on the river it joins, a river at its mouth on the water it drains
        // into: its receiver's cell centre.
        let r = recv[mouth] as usize;
        if r != mouth {
            points.push([normalised(r / n, n), normalised(r % n, n)]);
            catchment.push(*catchment.last().unwrap_or(&0.0));
        }
        // Discharge never falls downstream.
        for k in 1..catchment.len() {
            catchment[k] = catchment[k].max(catchment[k - 1]);
        }
        out.push(Course {
            order: strahler[index[mouth] as usize],
            points: smooth(&points),
            catchment_km2: catchment,
            joins,
        });
    }
    prune(tributaries_first(out))
}

/// Drops courses shorter than [`MIN_LENGTH_M`] that no kept tributary joins, and gives each
/// kept course its Strahler order from the kept tributaries (walked in the order they join).
fn prune(courses: Vec<Course>) -> Vec<Course> {
    let length_m = |c: &Course| {
        c.points
            .windows(2)
            .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
            .sum::<f32>()
            * WORLD_SIZE_M
    };
    let mut keep = vec![false; courses.len()];
    let mut order = vec![1u8; courses.len()];
    // Tributaries come first, so a course's tributaries are decided before it.
    let mut joined: Vec<Vec<(usize, usize)>> = vec![Vec::new(); courses.len()]; // (point, tributary)
    for (i, c) in courses.iter().enumerate() {
        let mut tribs = joined[i].clone();
        tribs.sort_unstable();
        let mut o = 1u8;
        for &(_, t) in &tribs {
            o = if order[t] == o {
                o.saturating_add(1)
            } else {
                o.max(order[t])
            };
        }
        order[i] = o;
        keep[i] = !tribs.is_empty() || length_m(c) >= MIN_LENGTH_M;
        if let (true, Some(j)) = (keep[i], c.joins) {
            let end = c.points[c.points.len() - 1];
            let at = courses[j]
                .points
                .iter()
                .enumerate()
                .min_by(|a, b| {
                    let d = |q: &[f32; 2]| (q[0] - end[0]).hypot(q[1] - end[1]);
                    d(a.1).total_cmp(&d(b.1))
                })
                .map_or(0, |(k, _)| k);
            joined[j].push((at, i));
        }
    }
    let mut new_of = vec![usize::MAX; courses.len()];
    let mut next = 0;
    for (i, &k) in keep.iter().enumerate() {
        if k {
            new_of[i] = next;
            next += 1;
        }
    }
    courses
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep[*i])
        .map(|(i, mut c)| {
            c.order = order[i];
            c.joins = c.joins.map(|j| new_of[j]);
            c
        })
        .collect()
}

/// The neighbour of `i` with the largest catchment among those whose steepest descent is `i`.
fn largest_upslope(i: usize, acc: &[f32], recv: &[u32], n: usize) -> Option<usize> {
    let (x, y) = (i / n, i % n);
    NEIGHBOURS
        .iter()
        .filter_map(|(dx, dy)| {
            let (nx, ny) = (x as isize + dx, y as isize + dy);
            (nx >= 0 && ny >= 0 && nx < n as isize && ny < n as isize)
                .then(|| nx as usize * n + ny as usize)
        })
        .filter(|&j| recv[j] as usize == i && j != i)
        .max_by(|&a, &b| acc[a].total_cmp(&acc[b]).then(b.cmp(&a)))
}

/// The courses reordered so that every tributary comes before the course it joins (indices in
/// `joins` remapped).
fn tributaries_first(courses: Vec<Course>) -> Vec<Course> {
    // Depth of each course in the joins tree: deeper (further from the sea) first.
    let depth = |mut i: usize| {
        let mut d = 0;
        while let Some(j) = courses[i].joins {
            d += 1;
            i = j;
        }
        d
    };
    let mut idx: Vec<usize> = (0..courses.len()).collect();
    idx.sort_by_key(|&i| (Reverse(depth(i)), i));
    let mut new_of = vec![0usize; courses.len()];
    for (new, &old) in idx.iter().enumerate() {
        new_of[old] = new;
    }
    idx.iter()
        .map(|&old| {
            let mut c = courses[old].clone();
            c.joins = c.joins.map(|j| new_of[j]);
            c
        })
        .collect()
}

/// A moving average over ±[`SMOOTH_CELLS`] points, twice; the first point and the last stay
/// (a tributary's last point is on the river it joins).
fn smooth(points: &[[f32; 2]]) -> Vec<[f32; 2]> {
    let mut p = points.to_vec();
    let len = p.len();
    if len < 3 {
        return p;
    }
    for _ in 0..2 {
        let q = p.clone();
        for (i, point) in p.iter_mut().enumerate().take(len - 1).skip(1) {
            let k = SMOOTH_CELLS.min(i).min(len - 1 - i);
            let window = &q[i - k..=i + k];
            let m = window.len() as f32;
            let (sx, sy) = window
                .iter()
                .fold((0.0, 0.0), |(a, b), w| (a + w[0], b + w[1]));
            *point = [sx / m, sy / m];
        }
    }
    p
}

/// One reach on the map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    /// The course it belongs to.
    pub course: usize,
    /// Its flat surface level, raw height units.
    pub level: f32,
    /// Its bed depth below the level, metres.
    pub depth_m: f32,
}

/// The rivers drawn on one map.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapRivers {
    /// The rivers as the RIVR section holds them (pixel coordinates; reach ids filled in by the
    /// water bodies).
    pub rivers: Vec<River>,
    /// Each river's reaches, as indices into `reaches`, upstream to downstream.
    pub river_reaches: Vec<Vec<u32>>,
    /// The reaches.
    pub reaches: Vec<Reach>,
    /// River pixels (`x * n + y`, ascending) and the reach each belongs to.
    pub pixels: Vec<(u32, u32)>,
    /// Bank pixels raised to their reach's level (a levee where the reach had to stand
    /// [`MIN_LEVEL_M`] above the sea).
    pub low_banks: usize,
}

impl MapRivers {
    /// Total centreline length, km.
    pub fn length_km(&self, map_size: usize) -> f64 {
        let px = f64::from(units::metres_per_px(map_size));
        self.rivers
            .iter()
            .map(|r| {
                r.points
                    .windows(2)
                    .map(|w| f64::from((w[1].x - w[0].x).hypot(w[1].y - w[0].y)))
                    .sum::<f64>()
            })
            .sum::<f64>()
            * px
            / 1000.0
    }
}

/// Draws `network` on a map: rasterises every river (pixels of `water` other than dry, and the
/// crater's core, stay out), splits reaches, sets their levels from the banks and carves the
/// beds into `heights`.
pub fn carve(
    network: &Network,
    p: &RiverParams,
    heights: &mut Array2<f32>,
    water: &Array2<Water>,
    sea: &SeaLevel,
    crater: &Crater,
) -> MapRivers {
    let n = heights.dim().0;
    let mut map = MapRivers::default();
    // Pixels claimed; where courses overlap the later one (the river a tributary joins) keeps
    // the pixel.
    let mut claims: Vec<Claim> = Vec::new();
    let mut course_reaches = Vec::new(); // per course: (first point, reach)
    let beds = graded_beds(network, heights, sea);
    let dry = |x: usize, y: usize| {
        water[[x, y]] == Water::Dry && crater.distance(x, y) >= CRATER_CORE * crater.radius_px
    };
    for (ci, c) in network.courses.iter().enumerate() {
        let pts: Vec<[f32; 2]> = c
            .points
            .iter()
            .map(|q| [q[0] * n as f32, q[1] * n as f32])
            .collect();
        let px_m = units::metres_per_px(n);
        let starts = split_reaches(ci, c, &pts, &beds[ci], px_m, &mut map.reaches);
        for k in 0..pts.len().saturating_sub(1) {
            // At least √½ px: a pixel centre lies within it of every point, so the channel is
            // never broken where the centreline runs along pixel edges.
            let half = (width_m(c.discharge(k), p.width_scale) / 2.0 / px_m).max(0.72);
            let reach = reach_of_point(&starts, k) as u32;
            capsule(pts[k], pts[k + 1], half, n, |x, y, t| {
                if dry(x, y) {
                    claims.push(((x * n + y) as u32, ci as u32, reach, k as f32 + t));
                }
            });
        }
        map.rivers.push(river_vector(c, &pts, p.width_scale));
        course_reaches.push(starts);
    }
    // One reach per pixel: the last course drawn (the larger river) wins.
    claims.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    claims.dedup_by_key(|c| c.0);
    let claims = four_connected(claims, n, &dry, &mut map.reaches, &mut course_reaches);
    map.pixels = claims.iter().map(|&(i, _, r, _)| (i, r)).collect();
    let along: Vec<f32> = claims.iter().map(|c| c.3).collect();
    let mut river = Bits::new(n * n);
    for &(i, _) in &map.pixels {
        river.set(i as usize);
    }
    let banks = Banks::of(&map, heights, water, &river);
    set_levels(network, &mut map, &course_reaches, &beds, &banks, sea);
    drain_pits(&mut map, water);
    let beds = under_levels(network, &map, &course_reaches, &beds);
    map.low_banks = carve_beds(&map, &along, &beds, heights, water, &river, sea);
    map
}

/// A river bed's least fall, metres per metre of course: a reach's water is flat, its bed
/// slopes under it so the riverbed is no staircase.
pub const MIN_BED_SLOPE: f32 = 0.001;
/// The most a bed is cut below the ground's own descent to grade a knickpoint, metres: where
/// a course crosses a spill and falls over a bench's edge, the fall is spread upstream along
/// the course's concave profile, cut at most this deep.
pub const KNICK_CUT_M: f32 = 6.0;
/// The least water over a bed, metres: a reach whose banks hold its level lower than its bed
/// plus its depth has its bed cut to this under the level.
pub const MIN_WATER_M: f32 = 0.1;

/// Each course's bed at each of its points, raw, graded from the land along it before any
/// reach is drawn: the ground under each point less the discharge's depth, cut where the
/// ground rises downstream (it never rises, and falls at least [`MIN_BED_SLOPE`] a metre), and
/// then graded (the lower convex hull of that profile along the course: the concave-up shape
/// of a river's long profile, which spreads the fall at a bench's edge over the flat above it)
/// no deeper than [`KNICK_CUT_M`] below it. A tributary's last point is on the bed of the river
/// it joins (downstream courses are graded first), so it meets it rather than dropping onto it.
fn graded_beds(network: &Network, heights: &Array2<f32>, sea: &SeaLevel) -> Vec<Vec<f32>> {
    let n = heights.dim().0;
    let courses = &network.courses;
    let mut beds: Vec<Vec<f32>> = vec![Vec::new(); courses.len()];
    for ci in (0..courses.len()).rev() {
        let c = &courses[ci];
        let ground: Vec<f32> = c
            .points
            .iter()
            .enumerate()
            .map(|(k, q)| {
                let (x, y) = pixel_of(*q, n);
                heights[[x, y]].max(sea.at(y)) - depth_m(c.discharge(k)) / METRES_PER_RAW
            })
            .collect();
        let end = c
            .joins
            .filter(|&j| j > ci)
            .and_then(|j| junction_bed(&courses[j], &beds[j], *c.points.last()?));
        beds[ci] = graded(&along_m(c), &ground, end);
    }
    beds
}

/// The map pixel under normalised point `q` on an `n`-pixel map.
fn pixel_of(q: [f32; 2], n: usize) -> (usize, usize) {
    let at = |v: f32| ((v * n as f32).max(0.0) as usize).min(n - 1);
    (at(q[0]), at(q[1]))
}

/// The distance along course `c` to each of its points, metres.
fn along_m(c: &Course) -> Vec<f32> {
    let mut at = vec![0.0f32; c.points.len()];
    for k in 1..at.len() {
        let (a, b) = (c.points[k - 1], c.points[k]);
        at[k] = at[k - 1] + (b[0] - a[0]).hypot(b[1] - a[1]) * WORLD_SIZE_M;
    }
    at
}

/// The bed of course `c` (profile `bed`) at its point nearest `at`, where a tributary ends.
fn junction_bed(c: &Course, bed: &[f32], at: [f32; 2]) -> Option<f32> {
    bed.get(c.nearest_point(at)?)
        .copied()
        .filter(|b| b.is_finite())
}

/// One bed graded from `ground` (raw, at distances `at_m` along the course), ending on `end`
/// if given (see [`graded_beds`]).
fn graded(at_m: &[f32], ground: &[f32], end: Option<f32>) -> Vec<f32> {
    let mut cut = ground.to_vec();
    if let (Some(end), Some(last)) = (end, cut.last_mut()) {
        *last = last.min(end);
    }
    descend(at_m, &mut cut);
    let hull = lower_hull(at_m, &cut);
    let deepest = KNICK_CUT_M / METRES_PER_RAW;
    let mut bed: Vec<f32> = cut
        .iter()
        .zip(&hull)
        .map(|(&c, &h)| h.max(c - deepest))
        .collect();
    descend(at_m, &mut bed);
    bed
}

/// The lower convex hull of the points (`x`, `z`), `x` ascending, evaluated at every `x`: the
/// greatest convex function under them.
fn lower_hull(x: &[f32], z: &[f32]) -> Vec<f32> {
    let mut hull: Vec<usize> = Vec::with_capacity(x.len());
    for k in 0..x.len() {
        while let [.., a, b] = hull[..] {
            // b lies on or above the chord a–k: it is not on the hull.
            let cross = (x[b] - x[a]) * (z[k] - z[a]) - (z[b] - z[a]) * (x[k] - x[a]);
            if cross > 0.0 {
                break;
            }
            hull.pop();
        }
        hull.push(k);
    }
    let mut out = Vec::with_capacity(x.len());
    for w in hull.windows(2) {
        let (a, b) = (w[0], w[1]);
        for k in a..b {
            let t = (x[k] - x[a]) / (x[b] - x[a]).max(f32::EPSILON);
            out.push(z[a] + (z[b] - z[a]) * t);
        }
    }
    if let Some(&last) = hull.last() {
        out.push(z[last]);
    }
    out
}

/// Lowers `profile` (raw, at distances `at_m`) where it does not fall at least
/// [`MIN_BED_SLOPE`] a metre downstream.
fn descend(at_m: &[f32], profile: &mut [f32]) {
    for k in 1..profile.len() {
        let fall = (at_m[k] - at_m[k - 1]) * MIN_BED_SLOPE / METRES_PER_RAW;
        profile[k] = profile[k].min(profile[k - 1] - fall);
    }
}

/// The graded beds with every point at least [`MIN_WATER_M`] under its reach's level, still
/// falling at least [`MIN_BED_SLOPE`] (a reach whose banks hold its water lower than its bed
/// plus its depth has its bed cut, never flattened).
fn under_levels(
    network: &Network,
    map: &MapRivers,
    course_reaches: &[Vec<(usize, usize)>],
    beds: &[Vec<f32>],
) -> Vec<Vec<f32>> {
    let water = MIN_WATER_M / METRES_PER_RAW;
    network
        .courses
        .iter()
        .zip(course_reaches)
        .zip(beds)
        .map(|((c, starts), bed)| {
            let mut out: Vec<f32> = (0..bed.len())
                .map(|k| bed[k].min(map.reaches[reach_of_point(starts, k)].level - water))
                .collect();
            descend(&along_m(c), &mut out);
            out
        })
        .collect()
}

/// The reach point `k` of a course lies in; `starts` are the course's (first point, reach)
/// pairs, ascending (a point before the first start is in the first reach).
fn reach_of_point(starts: &[(usize, usize)], k: usize) -> usize {
    let after = starts.partition_point(|s| s.0 <= k);
    starts[after.saturating_sub(1)].1
}

/// A pixel claimed by a river: (pixel, course, reach, position along the course in points).
type Claim = (u32, u32, u32, f32);

/// The claim of pixel `p` in `claims` (sorted by pixel, one claim a pixel), by index.
fn claim_of(claims: &[Claim], p: u32) -> Option<usize> {
    claims.binary_search_by_key(&p, |c| c.0).ok()
}

/// The 4-neighbours of pixel `p` on an `n`-pixel map.
fn neighbours4(p: u32, n: usize) -> impl Iterator<Item = u32> {
    let (x, y) = (p as usize / n, p as usize % n);
    let n32 = n as u32;
    [
        (x > 0).then(|| p - n32),
        (x + 1 < n).then(|| p + n32),
        (y > 0).then(|| p - 1),
        (y + 1 < n).then(|| p + 1),
    ]
    .into_iter()
    .flatten()
}

/// The claims with every reach one 4-connected set of pixels: where a course's pixels touch
/// only diagonally, the dry unclaimed pixel between them joins it (the reach of the first);
/// a piece still apart from its reach's largest joins the reach of a 4-neighbour in another
/// reach (the first in scan order), or becomes a reach of its own on the same course (added to
/// `reaches` and to its course's list). Which pixels are river depends only on the courses and
/// the water, never on the heights (the reaches' boundaries do): BIOM stays independent of the
/// curve, the detail and the shelf.
fn four_connected(
    claims: Vec<Claim>,
    n: usize,
    dry: &dyn Fn(usize, usize) -> bool,
    reaches: &mut Vec<Reach>,
    course_reaches: &mut [Vec<(usize, usize)>],
) -> Vec<Claim> {
    let mut claims = bridge_diagonals(claims, n, dry);
    let (piece, largest) = pieces(&claims, n, reaches.len());
    let mut members: Vec<Vec<usize>> =
        vec![Vec::new(); piece.iter().max().map_or(0, |&m| m as usize + 1)];
    for (k, &id) in piece.iter().enumerate() {
        members[id as usize].push(k);
    }
    // Each stray piece's new home: a 4-neighbouring reach's largest piece, else a reach of its
    // own. Pieces are visited in scan order of their first pixel.
    let kept = |j: usize| largest[claims[j].2 as usize] == piece[j];
    let mut home: Vec<Option<(u32, u32)>> = vec![None; members.len()];
    for (id, own) in members.iter().enumerate() {
        let c = claims[own[0]];
        if kept(own[0]) {
            continue;
        }
        let other = own.iter().find_map(|&m| {
            neighbours4(claims[m].0, n)
                .filter_map(|q| claim_of(&claims, q))
                .find(|&j| claims[j].2 != c.2 && kept(j))
                .map(|j| (claims[j].1, claims[j].2))
        });
        home[id] = Some(other.unwrap_or_else(|| {
            let r = reaches.len();
            reaches.push(Reach {
                level: f32::INFINITY,
                ..reaches[c.2 as usize]
            });
            let first = own.iter().map(|&m| claims[m].3 as usize).min().unwrap_or(0);
            let list = &mut course_reaches[c.1 as usize];
            let at = list.partition_point(|s| s.0 <= first);
            list.insert(at, (first, r));
            (c.1, r as u32)
        }));
    }
    for (k, c) in claims.iter_mut().enumerate() {
        if let Some((course, reach)) = home[piece[k] as usize] {
            (c.1, c.2) = (course, reach);
        }
    }
    claims
}

/// Adds, where two pixels of one course touch only diagonally, the dry unclaimed pixel beside
/// both (to the first's reach); returns the claims sorted by pixel again.
fn bridge_diagonals(
    mut claims: Vec<Claim>,
    n: usize,
    dry: &dyn Fn(usize, usize) -> bool,
) -> Vec<Claim> {
    let mut added = Vec::new();
    for c in &claims {
        let (x, y) = ((c.0 as usize / n) as isize, (c.0 as usize % n) as isize);
        for (dx, dy) in [(1isize, 1isize), (1, -1)] {
            let (qx, qy) = (x + dx, y + dy);
            if qx < 0 || qy < 0 || qx >= n as isize || qy >= n as isize {
                continue;
            }
            let q = (qx as usize * n + qy as usize) as u32;
            let Some(k) = claim_of(&claims, q).filter(|&k| claims[k].1 == c.1) else {
                continue;
            };
            let side_a = (qx as usize * n + y as usize) as u32;
            let side_b = (x as usize * n + qy as usize) as u32;
            let (a, b) = (claim_of(&claims, side_a), claim_of(&claims, side_b));
            if [a, b].iter().flatten().any(|&j| claims[j].1 == c.1) {
                continue;
            }
            let along = (c.3 + claims[k].3) / 2.0;
            if a.is_none() && dry(qx as usize, y as usize) {
                added.push((side_a, c.1, c.2, along));
            } else if b.is_none() && dry(x as usize, qy as usize) {
                added.push((side_b, c.1, c.2, along));
            }
        }
    }
    claims.extend(added);
    claims.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    claims.dedup_by_key(|c| c.0);
    claims
}

/// The 4-connected pieces of each reach's pixels: each claim's piece id (in scan order of the
/// pieces' first pixels), and each reach's largest piece (the first on ties; `u32::MAX` for a
/// reach without pixels).
fn pieces(claims: &[Claim], n: usize, reaches: usize) -> (Vec<u32>, Vec<u32>) {
    let mut piece = vec![u32::MAX; claims.len()];
    let mut largest = vec![(0usize, u32::MAX); reaches];
    let mut next = 0u32;
    for start in 0..claims.len() {
        if piece[start] != u32::MAX {
            continue;
        }
        let reach = claims[start].2;
        let mut stack = vec![start];
        piece[start] = next;
        let mut size = 0;
        while let Some(k) = stack.pop() {
            size += 1;
            for j in neighbours4(claims[k].0, n).filter_map(|q| claim_of(claims, q)) {
                if piece[j] == u32::MAX && claims[j].2 == reach {
                    piece[j] = next;
                    stack.push(j);
                }
            }
        }
        let best = &mut largest[reach as usize];
        if size > best.0 {
            *best = (size, next);
        }
        next += 1;
    }
    (piece, largest.into_iter().map(|b| b.1).collect())
}

/// Splits course `ci` (its points `pts` in pixels, its graded bed `bed`) into reaches by the
/// bed's drop and the length, appending them to `reaches` with their depths; returns (first
/// point, reach) per reach.
fn split_reaches(
    ci: usize,
    c: &Course,
    pts: &[[f32; 2]],
    bed: &[f32],
    px_m: f32,
    reaches: &mut Vec<Reach>,
) -> Vec<(usize, usize)> {
    let new_reach = || Reach {
        course: ci,
        level: f32::INFINITY,
        depth_m: 0.0,
    };
    let mut starts = vec![(0usize, reaches.len())];
    reaches.push(new_reach());
    let drop = REACH_DROP_M / METRES_PER_RAW;
    let (mut start_bed, mut length) = (bed[0], 0.0f32);
    for k in 1..pts.len() {
        length += (pts[k][0] - pts[k - 1][0]).hypot(pts[k][1] - pts[k - 1][1]) * px_m;
        if k + 1 < pts.len() && (start_bed - bed[k] > drop || length > REACH_MAX_M) {
            starts.push((k, reaches.len()));
            reaches.push(new_reach());
            start_bed = bed[k];
            length = 0.0;
        }
    }
    // Each reach's depth from the discharge at its downstream end.
    for (s, &(_, r)) in starts.iter().enumerate() {
        let last = starts.get(s + 1).map_or(pts.len() - 1, |next| next.0);
        reaches[r].depth_m = depth_m(c.discharge(last));
    }
    starts
}

/// Course `c` as RIVR holds it: its points in pixels with width and discharge.
fn river_vector(c: &Course, pts: &[[f32; 2]], width_scale: f32) -> River {
    River {
        order: c.order,
        reaches: Vec::new(),
        points: pts
            .iter()
            .enumerate()
            .map(|(k, q)| RiverPoint {
                x: q[0],
                y: q[1],
                width_m: width_m(c.discharge(k), width_scale),
                discharge_m3s: c.discharge(k),
            })
            .collect(),
    }
}

/// The dry, non-river 8-neighbours of pixel `i` on an `n`-pixel map.
fn banks_of<'a>(
    i: u32,
    n: usize,
    water: &'a Array2<Water>,
    river: &'a Bits,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let (x, y) = (i as usize / n, i as usize % n);
    NEIGHBOURS.iter().filter_map(move |(dx, dy)| {
        let (nx, ny) = (x as isize + dx, y as isize + dy);
        if nx < 0 || ny < 0 || nx >= n as isize || ny >= n as isize {
            return None;
        }
        let (nx, ny) = (nx as usize, ny as usize);
        (!river.get(nx * n + ny) && water[[nx, ny]] == Water::Dry).then_some((nx, ny))
    })
}

/// Per reach: its lowest bank, its pixel count and the row of its first pixel.
struct Banks {
    lowest: Vec<f32>,
    count: Vec<usize>,
    first_row: Vec<usize>,
}

impl Banks {
    fn of(map: &MapRivers, heights: &Array2<f32>, water: &Array2<Water>, river: &Bits) -> Banks {
        let n = heights.dim().0;
        let reaches = map.reaches.len();
        let mut b = Banks {
            lowest: vec![f32::INFINITY; reaches],
            count: vec![0; reaches],
            first_row: vec![0; reaches],
        };
        for &(i, r) in &map.pixels {
            let r = r as usize;
            b.count[r] += 1;
            for (x, y) in banks_of(i, n, water, river) {
                b.lowest[r] = b.lowest[r].min(heights[[x, y]]);
            }
        }
        for &(i, r) in map.pixels.iter().rev() {
            b.first_row[r as usize] = i as usize % n;
        }
        b
    }
}

/// Levels, tributaries first (the network's order): each reach its depth over its graded bed
/// `beds` at its first point, at most its lowest bank, the reach above it and every tributary
/// ending in it, and at least [`MIN_LEVEL_M`] above the sea; fills each river's list of reaches
/// with pixels.
fn set_levels(
    network: &Network,
    map: &mut MapRivers,
    course_reaches: &[Vec<(usize, usize)>],
    beds: &[Vec<f32>],
    banks: &Banks,
    sea: &SeaLevel,
) {
    let mut tributary_floor = vec![f32::INFINITY; map.reaches.len()];
    for (ci, c) in network.courses.iter().enumerate() {
        let mut above = f32::INFINITY;
        let mut kept = Vec::new();
        for &(k, r) in &course_reaches[ci] {
            if banks.count[r] == 0 {
                continue;
            }
            // Its depth over its bed (always known, so a reach with no dry bank at all has a
            // level too); no reach lies lower than MIN_LEVEL_M above the sea (its banks are
            // raised instead).
            let full = beds[ci][k] + map.reaches[r].depth_m / METRES_PER_RAW;
            let level = full.min(banks.lowest[r]).min(above).min(tributary_floor[r]);
            let level = level.max(sea.at(banks.first_row[r]) + MIN_LEVEL_M / METRES_PER_RAW);
            map.reaches[r].level = level;
            above = level;
            kept.push(r as u32);
        }
        if let (Some(j), Some(&last)) = (c.joins, kept.last()) {
            // The reach of the joined river nearest the tributary's last point.
            let end = c.points[c.points.len() - 1];
            if let Some(t) =
                nearest_reach(&network.courses[j], &course_reaches[j], end, &banks.count)
            {
                let l = map.reaches[last as usize].level;
                tributary_floor[t] = tributary_floor[t].min(l);
            }
        }
        map.river_reaches.push(kept);
    }
}

/// Lowers, where a reach has no neighbour (8-connected) on other water at or below its level
/// — a pit, where short reaches of two courses meet beside the point a tributary joins — its
/// lowest neighbouring reach to its level — and every reach downstream of that on its river,
/// so levels still never rise downstream — and again for any reach that lowering left a pit,
/// until every reach drains (levels only fall, so this ends; at most a pass per reach).
fn drain_pits(map: &mut MapRivers, water: &Array2<Water>) {
    let n = water.dim().0;
    let reach_at = |p: u32| {
        map.pixels
            .binary_search_by_key(&p, |c| c.0)
            .ok()
            .map(|k| map.pixels[k].1 as usize)
    };
    // Per reach: whether it touches other water, and its neighbouring reaches.
    let mut wet = vec![false; map.reaches.len()];
    let mut next_to: Vec<Vec<usize>> = vec![Vec::new(); map.reaches.len()];
    for &(i, r) in &map.pixels {
        let (x, y) = (i as usize / n, i as usize % n);
        for (dx, dy) in NEIGHBOURS {
            let (nx, ny) = (x as isize + dx, y as isize + dy);
            if nx < 0 || ny < 0 || nx >= n as isize || ny >= n as isize {
                continue;
            }
            let q = nx as usize * n + ny as usize;
            match reach_at(q as u32) {
                Some(o) if o != r as usize => next_to[r as usize].push(o),
                Some(_) => {}
                None => wet[r as usize] |= water[[nx as usize, ny as usize]] != Water::Dry,
            }
        }
    }
    for list in &mut next_to {
        list.sort_unstable();
        list.dedup();
    }
    for _ in 0..map.reaches.len() {
        let mut changed = false;
        // Levels never rise downstream along a river.
        for kept in &map.river_reaches {
            let mut above = f32::INFINITY;
            for &r in kept {
                let level = &mut map.reaches[r as usize].level;
                if *level > above {
                    *level = above;
                    changed = true;
                }
                above = *level;
            }
        }
        for r in 0..map.reaches.len() {
            let level = map.reaches[r].level;
            if wet[r] || next_to[r].iter().any(|&o| map.reaches[o].level <= level) {
                continue;
            }
            let lowest = next_to[r]
                .iter()
                .copied()
                .min_by(|&a, &b| map.reaches[a].level.total_cmp(&map.reaches[b].level));
            if let Some(o) = lowest {
                map.reaches[o].level = level;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// Raises any bank below its reach's level (a levee where the reach had to stand above the
/// sea), then carves every river pixel's bed; returns the banks raised.
fn carve_beds(
    map: &MapRivers,
    along: &[f32],
    beds: &[Vec<f32>],
    heights: &mut Array2<f32>,
    water: &Array2<Water>,
    river: &Bits,
    sea: &SeaLevel,
) -> usize {
    let n = heights.dim().0;
    let mut raised = 0;
    for &(i, r) in &map.pixels {
        let level = map.reaches[r as usize].level;
        for (x, y) in banks_of(i, n, water, river) {
            if heights[[x, y]] < level {
                heights[[x, y]] = level;
                raised += 1;
            }
        }
    }
    for (&(i, r), &a) in map.pixels.iter().zip(along) {
        let (x, y) = (i as usize / n, i as usize % n);
        let reach = map.reaches[r as usize];
        // The bed never goes under the sea (the waterline is the classification's), so a reach
        // whose banks barely stand above the sea is shallower than its discharge asks. Along
        // the course it falls between its points' profile heights, and never above its level.
        let floor = sea.at(y) + SEA_MARGIN_M / METRES_PER_RAW;
        let profile = &beds[reach.course];
        let k = (a as usize).min(profile.len() - 1);
        let t = a - k as f32;
        let next = profile[(k + 1).min(profile.len() - 1)];
        let sloped = profile[k] * (1.0 - t) + next * t;
        let flat = reach.level - MIN_WATER_M / METRES_PER_RAW;
        let bed = sloped.min(flat).max(floor);
        let h = &mut heights[[x, y]];
        *h = h.min(bed).max(h.min(floor));
    }
    raised
}

/// The reach (with pixels) of `course` whose centreline point is nearest `at`; `starts` are the
/// course's (first point, reach) pairs.
fn nearest_reach(
    course: &Course,
    starts: &[(usize, usize)],
    at: [f32; 2],
    count: &[usize],
) -> Option<usize> {
    let k = course.nearest_point(at)?;
    let at_or_after = starts.iter().rposition(|s| s.0 <= k)?;
    starts[at_or_after..]
        .iter()
        .map(|s| s.1)
        .find(|&r| count[r] > 0)
}

/// Calls `mark` for every pixel whose centre lies within `half` pixels of segment a–b, with
/// where along it (0 at a, 1 at b) the centre's nearest point lies.
fn capsule(a: [f32; 2], b: [f32; 2], half: f32, n: usize, mut mark: impl FnMut(usize, usize, f32)) {
    let lo = |p: f32, q: f32| ((p.min(q) - half - 0.5).floor().max(0.0)) as usize;
    let hi = |p: f32, q: f32| ((p.max(q) + half + 0.5).ceil().max(0.0) as usize).min(n - 1);
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    for x in lo(a[0], b[0])..=hi(a[0], b[0]) {
        for y in lo(a[1], b[1])..=hi(a[1], b[1]) {
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            let t = if len2 > 0.0 {
                (((cx - a[0]) * dx + (cy - a[1]) * dy) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (px, py) = (a[0] + t * dx - cx, a[1] + t * dy - cy);
            if px * px + py * py <= half * half {
                mark(x, y, t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A straight course of `len` points from `from` to `to` (normalised).
    fn course(from: [f32; 2], to: [f32; 2], len: usize, joins: Option<usize>) -> Course {
        let points = (0..len)
            .map(|k| {
                let t = k as f32 / (len - 1) as f32;
                [
                    from[0] + (to[0] - from[0]) * t,
                    from[1] + (to[1] - from[1]) * t,
                ]
            })
            .collect();
        Course {
            order: 1,
            points,
            catchment_km2: vec![1.0; len],
            joins,
        }
    }

    /// A tributary's bed meets the bed of the river it joins, at the point where it joins: no
    /// waterfall at a confluence (its last reach once fell at the least slope from its top and
    /// dropped the rest at the junction, 4–6 m at 8 m pixels).
    #[test]
    fn a_tributary_bed_ends_on_the_river_it_joins() {
        use crate::sea::SeaModel;
        let n = 256;
        let sea = SeaLevel::new(SeaModel::Flat(0.0), n);
        // Ground falling 1 m a pixel eastwards from 100 m; the main river (course 1) runs
        // north–south at x = 128, the tributary (course 0) east onto it from x = 102.
        let heights =
            Array2::from_shape_fn((n, n), |(x, _)| (100.0 - x as f32 * 0.5) / METRES_PER_RAW);
        let main = course([0.5, 0.1], [0.5, 0.3], 21, None);
        let tributary = course([0.4, 0.2], [0.5, 0.2], 11, Some(1));
        let network = Network {
            courses: vec![tributary, main],
            largest_catchment_km2: 1.0,
        };
        let beds = graded_beds(&network, &heights, &sea);
        let m = |v: f32| v * METRES_PER_RAW;
        let at_junction = beds[1][10];
        let end = *beds[0].last().unwrap();
        assert!(
            (end - at_junction).abs() < 1e-6,
            "the tributary ends at {} m, the river there is at {} m",
            m(end),
            m(at_junction)
        );
        // Under its ground all the way by at least its depth, falling at least the least slope.
        let depth = depth_m(network.courses[0].discharge(0));
        for (k, &b) in beds[0].iter().enumerate() {
            let (x, y) = pixel_of(network.courses[0].points[k], n);
            assert!(
                m(heights[[x, y]] - b) >= depth - 1e-3,
                "point {k}: bed {} m",
                m(b)
            );
        }
        let at = along_m(&network.courses[0]);
        for k in 1..beds[0].len() {
            let slope = m(beds[0][k - 1] - beds[0][k]) / (at[k] - at[k - 1]);
            assert!(slope >= MIN_BED_SLOPE * 0.99, "point {k}: slope {slope}");
        }
    }

    /// A course over a spill and a bench's edge: the ground falls, rises 5 m over a spill and
    /// drops 20 m off the bench. The bed never rises, never stands above the ground less the
    /// depth, is cut at most [`KNICK_CUT_M`] below the ground's own descent, and carries part of
    /// the bench's fall over the flat above it (where cutting the spill alone left it at the
    /// least slope, a flat riverbed and then a waterfall).
    #[test]
    fn a_bed_is_graded_through_a_spill_and_over_a_bench() {
        let at: Vec<f32> = (0..200).map(|k| k as f32 * 8.0).collect();
        let ground_m = |x: f32| match x {
            x if x < 400.0 => 60.0 - 0.02 * x, // 60 → 52 m
            x if x < 800.0 => 52.0 + 5.0 * (std::f32::consts::PI * (x - 400.0) / 400.0).sin(),
            x if x < 960.0 => 52.0 - 20.0 * (x - 800.0) / 160.0, // the bench's edge
            x => 32.0 - 0.005 * (x - 960.0),
        };
        let raw = |m: f32| m / METRES_PER_RAW;
        let ground: Vec<f32> = at.iter().map(|&x| raw(ground_m(x))).collect();
        let bed = graded(&at, &ground, None);
        let m = |v: f32| v * METRES_PER_RAW;
        // The ground's own descent (the spill cut, nothing graded).
        let mut cut = ground.clone();
        descend(&at, &mut cut);
        for k in 1..bed.len() {
            let slope = m(bed[k - 1] - bed[k]) / 8.0;
            assert!(
                slope >= MIN_BED_SLOPE * 0.99,
                "point {k}: the bed rises or is flat"
            );
            assert!(
                bed[k] <= ground[k] + 1e-7,
                "point {k}: the bed stands above the ground"
            );
            let deeper = m(cut[k] - bed[k]);
            assert!(deeper <= KNICK_CUT_M + 1e-3, "point {k}: cut {deeper} m");
        }
        // Over the spill (400–800 m) the spill's cut alone falls at the least slope, 0.4 m; the
        // graded bed carries part of the bench's fall there.
        let (top, lip) = (50, 100);
        assert!(m(cut[top] - cut[lip]) < 0.45, "{}", m(cut[top] - cut[lip]));
        let graded_fall = m(bed[top] - bed[lip]);
        assert!(
            graded_fall > 2.0,
            "the graded bed falls {graded_fall} m over the spill"
        );
        assert!(
            m(cut[lip] - bed[lip]) > KNICK_CUT_M - 0.01,
            "the lip is cut the most"
        );
    }

    /// The lower hull of points is convex, under every point, and through the ends.
    #[test]
    fn the_lower_hull_is_convex_and_under_the_points() {
        let x: Vec<f32> = (0..50).map(|k| k as f32).collect();
        let z: Vec<f32> = x.iter().map(|&v| (v * 0.7).sin() * 3.0 - v * 0.5).collect();
        let h = lower_hull(&x, &z);
        assert_eq!(h.len(), z.len());
        assert_eq!((h[0], h[49]), (z[0], z[49]));
        for k in 0..50 {
            assert!(h[k] <= z[k] + 1e-5, "{k}");
        }
        for k in 1..49 {
            assert!(
                h[k - 1] + h[k + 1] - 2.0 * h[k] >= -1e-4,
                "not convex at {k}"
            );
        }
        assert!(
            (0..50).any(|k| h[k] < z[k] - 0.5),
            "the hull bridges the bumps"
        );
    }
}
