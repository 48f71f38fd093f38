//! Road geometry: from an optimal path on the grid to the polyline the blueprint keeps.
//!
//! **Any angle.** A grid path can only head along multiples of 45°, so across open lowland it is
//! a dogleg. [`pull`] strings it tight: from each vertex it takes the farthest later cell of the
//! path that a straight segment reaches without crossing a solid cell while the polyline so far
//! costs no more than [`SEGMENT_SLACK`] above the grid path to that cell — both costs
//! *integrated* over the same cost field (the length of the line inside each cell × that cell's
//! cost, by an exact cell walk, [`segment_cost`]); where the land is even a straight line beats
//! the octile dogleg by up to 8 %. [`relax`] then moves each vertex where its two segments cost
//! least together, and drops it where the chord past it is no dearer: the cost only falls.
//!
//! **Junctions.** A road that ends on another is found by a search that stops on the first cell
//! of the network, which lies along an axis or a diagonal from the road's last vertex (the
//! octile metric's nearest cell). [`any_angle_junction`] moves the end to the point of the
//! joined road's *polyline* that the last vertex reaches most cheaply, so spurs meet roads at
//! whatever angle the land gives. The end lies within the reached cell or nearer, so a joining
//! road may cost up to that one cell's cost more than its grid optimum.
//!
//! **Corners.** [`round_corners`] cuts each corner at a quarter of the shorter neighbouring
//! segment, but never further than [`CORNER_M`] from the vertex (Chaikin's scheme, bounded), in
//! [`CORNER_PASSES`] passes. The result is kept only if it still crosses no solid cell and costs
//! at most [`TOTAL_SLACK`] above the grid optimum; otherwise the uncut polyline stands.
//!
//! Guarantees (tests/roads.rs): no segment crosses a solid cell; a finished road costs at most
//! [`TOTAL_SLACK`] above its grid optimum, integrated, plus its junction cell's cost.

use super::search::CostGrid;
use crate::blueprint::RoadPath;

/// The most the pulled polyline may cost, up to any of its vertices, above the grid path to the
/// same cell (a fraction).
pub const SEGMENT_SLACK: f64 = 0.004;
/// The most a finished road may cost above its grid optimum (a fraction), both integrated.
pub const TOTAL_SLACK: f64 = 0.01;
/// The furthest a corner cut lies from its vertex, metres.
pub const CORNER_M: f32 = 24.0;
/// The steps of the vertex relaxation, metres.
pub const RELAX_STEPS_M: [f32; 6] = [32.0, 16.0, 8.0, 4.0, 2.0, 1.0];
/// Corner-cutting passes.
pub const CORNER_PASSES: usize = 3;

/// The centre of cell `c` (`x * n + y`) in pixel coordinates.
pub fn cell_centre(c: u32, n: usize) -> [f32; 2] {
    [(c as usize / n) as f32 + 0.5, (c as usize % n) as f32 + 0.5]
}

/// Walks the straight segment a → b cell by cell (an exact Amanatides–Woo walk; through a cell
/// corner it passes diagonally, as a diagonal grid step does), calling `visit` with each cell
/// (`x * n + y`) and the length of the segment inside it; stops early, returning false, where
/// `visit` does or the segment leaves the `n` × `n` map.
fn walk(a: [f32; 2], b: [f32; 2], n: usize, mut visit: impl FnMut(usize, f64) -> bool) -> bool {
    let n = n as i64;
    let (ax, ay) = (f64::from(a[0]), f64::from(a[1]));
    let (dx, dy) = (f64::from(b[0]) - ax, f64::from(b[1]) - ay);
    let len = dx.hypot(dy);
    let (mut x, mut y) = (ax.floor() as i64, ay.floor() as i64);
    let (ex, ey) = (
        f64::from(b[0]).floor() as i64,
        f64::from(b[1]).floor() as i64,
    );
    let axis = |d: f64, p: f64, c: i64| -> (i64, f64, f64) {
        if d > 0.0 {
            (1, (c as f64 + 1.0 - p) / d, 1.0 / d)
        } else if d < 0.0 {
            (-1, (p - c as f64) / -d, -1.0 / d)
        } else {
            (0, f64::INFINITY, f64::INFINITY)
        }
    };
    let (sx, mut tx, dtx) = axis(dx, ax, x);
    let (sy, mut ty, dty) = axis(dy, ay, y);
    let mut t = 0.0f64;
    for _ in 0..=(ex - x).abs() + (ey - y).abs() + 1 {
        if x < 0 || y < 0 || x >= n || y >= n {
            return false;
        }
        let next = tx.min(ty).min(1.0);
        if !visit((x * n + y) as usize, (next - t) * len) {
            return false;
        }
        if next >= 1.0 {
            break;
        }
        t = next;
        // Both at once through a corner.
        let (step_x, step_y) = (tx <= ty, ty <= tx);
        if step_x {
            x += sx;
            tx += dtx;
        }
        if step_y {
            y += sy;
            ty += dty;
        }
    }
    true
}

/// The cost of the straight segment a → b integrated over the cost field: the length inside each
/// cell it passes × the cell's cost (`walk`). Infinite if it enters a solid cell or leaves the
/// map.
pub fn segment_cost(grid: &CostGrid, a: [f32; 2], b: [f32; 2]) -> f64 {
    let mut total = 0.0;
    let inside = walk(a, b, grid.side(), |c, len| {
        total += len * f64::from(grid.cost(c));
        total.is_finite()
    });
    if inside {
        total
    } else {
        f64::INFINITY
    }
}

/// The cells a polyline passes through (each once, in order of first passage).
pub fn raster(path: &[[f32; 2]], n: usize) -> Vec<u32> {
    let mut cells: Vec<u32> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut add = |c: usize, _: f64| {
        if seen.insert(c) {
            cells.push(c as u32);
        }
        true
    };
    if let [only] = path {
        add((only[0] as usize) * n + only[1] as usize, 0.0);
    }
    for w in path.windows(2) {
        walk(w[0], w[1], n, &mut add);
    }
    cells
}

/// The integrated cost of a polyline ([`segment_cost`] summed).
pub fn polyline_cost(grid: &CostGrid, path: &[[f32; 2]]) -> f64 {
    path.windows(2)
        .map(|w| segment_cost(grid, w[0], w[1]))
        .sum()
}

/// The grid path's cell centres strung tight (module docs); endpoints kept. From each anchor the
/// reach grows by doubling while the chord holds and is then bisected, so a road of L cells
/// costs O(L log L) cell walks per vertex.
pub fn pull(cells: &[u32], grid: &CostGrid) -> Vec<[f32; 2]> {
    let n = grid.side();
    let points: Vec<[f32; 2]> = cells.iter().map(|&c| cell_centre(c, n)).collect();
    if points.len() < 3 {
        return points;
    }
    // The grid path's own integrated cost from its start to each cell.
    let mut along = vec![0.0f64; points.len()];
    for k in 1..points.len() {
        along[k] = along[k - 1] + segment_cost(grid, points[k - 1], points[k]);
    }
    let last = points.len() - 1;
    let mut out = vec![points[0]];
    let (mut anchor, mut spent) = (0, 0.0f64);
    while anchor < last {
        let chord = |k: usize| {
            let c = segment_cost(grid, points[anchor], points[k]);
            (spent + c <= along[k] * (1.0 + SEGMENT_SLACK)).then_some(c)
        };
        let (mut lo, mut lo_cost) = (anchor + 1, along[anchor + 1] - along[anchor]);
        let mut hi = None;
        let mut step = 1;
        while lo < last {
            let k = (anchor + 1 + step).min(last);
            match chord(k) {
                Some(c) => (lo, lo_cost) = (k, c),
                None => {
                    hi = Some(k);
                    break;
                }
            }
            step *= 2;
        }
        if let Some(mut hi) = hi {
            while hi > lo + 1 {
                let mid = (lo + hi) / 2;
                match chord(mid) {
                    Some(c) => (lo, lo_cost) = (mid, c),
                    None => hi = mid,
                }
            }
        }
        out.push(points[lo]);
        anchor = lo;
        spent += lo_cost;
    }
    out
}

/// Moves each interior vertex to where its two segments cost least together (a pattern search
/// over 8 directions, `steps` long in turn, largest first) and drops a vertex whenever the
/// straight chord past it costs no more than the two segments: the string pulled taut against
/// the cost field rather than against the grid path's cells. The cost only ever falls.
pub fn relax(points: &mut Vec<[f32; 2]>, grid: &CostGrid, steps: &[f32]) {
    const DIRECTIONS: [(f32, f32); 8] = [
        (1.0, 0.0),
        (-1.0, 0.0),
        (0.0, 1.0),
        (0.0, -1.0),
        (0.707_106_77, 0.707_106_77),
        (-0.707_106_77, 0.707_106_77),
        (0.707_106_77, -0.707_106_77),
        (-0.707_106_77, -0.707_106_77),
    ];
    let mut i = 1;
    while i + 1 < points.len() {
        let (a, c) = (points[i - 1], points[i + 1]);
        let pair = |v: [f32; 2]| segment_cost(grid, a, v) + segment_cost(grid, v, c);
        let (mut v, mut cost) = (points[i], pair(points[i]));
        if segment_cost(grid, a, c) <= cost {
            points.remove(i);
            i = i.saturating_sub(1).max(1);
            continue;
        }
        for &step in steps {
            for _ in 0..4 {
                let better = DIRECTIONS
                    .iter()
                    .map(|&(dx, dy)| [v[0] + dx * step, v[1] + dy * step])
                    .map(|w| (pair(w), w))
                    .filter(|(c, _)| *c < cost)
                    .min_by(|p, q| p.0.total_cmp(&q.0));
                match better {
                    Some((c, w)) => (cost, v) = (c, w),
                    None => break,
                }
            }
        }
        points[i] = v;
        i += 1;
    }
}

/// Where a road joins another: its search ends on a cell the `joined` road's polyline passes
/// through, reached along an axis or a diagonal from the last vertex (the octile metric's
/// nearest cell). The end moves to the point of that polyline, sampled every quarter pixel within
/// reach of the cell, that the last vertex reaches most cheaply in a straight line: the
/// any-angle junction, on the road as drawn. It lies within the end cell or nearer.
pub fn any_angle_junction(path: &mut [[f32; 2]], joined: &[[f32; 2]], grid: &CostGrid) {
    let len = path.len();
    if len < 2 {
        return;
    }
    let (from, end) = (path[len - 2], path[len - 1]);
    let reach = (end[0] - from[0]).hypot(end[1] - from[1]) + 1.0;
    let mut best = (f64::INFINITY, end);
    for w in joined.windows(2) {
        let (a, b) = (w[0], w[1]);
        let samples = ((b[0] - a[0]).hypot(b[1] - a[1]) * 4.0).ceil().max(1.0) as usize;
        for k in 0..=samples {
            let t = k as f32 / samples as f32;
            let p = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
            if (p[0] - from[0]).hypot(p[1] - from[1]) > reach {
                continue;
            }
            let cost = segment_cost(grid, from, p);
            if cost < best.0 {
                best = (cost, p);
            }
        }
    }
    path[len - 1] = best.1;
}

/// Bounded Chaikin corner cutting (module docs), endpoints kept: each corner is replaced by two
/// points on its two segments, at a quarter of the shorter segment or `max_cut` if nearer.
pub fn round_corners(points: &[[f32; 2]], passes: usize, max_cut: f32) -> Vec<[f32; 2]> {
    let mut p = points.to_vec();
    for _ in 0..passes {
        if p.len() < 3 {
            break;
        }
        let mut q = Vec::with_capacity(p.len() * 2);
        q.push(p[0]);
        for w in p.windows(3) {
            let (a, b, c) = (w[0], w[1], w[2]);
            let la = (b[0] - a[0]).hypot(b[1] - a[1]);
            let lc = (c[0] - b[0]).hypot(c[1] - b[1]);
            let cut = (0.25 * la.min(lc)).min(max_cut);
            let towards = |to: [f32; 2], len: f32| {
                let t = if len > 0.0 { cut / len } else { 0.0 };
                [b[0] + (to[0] - b[0]) * t, b[1] + (to[1] - b[1]) * t]
            };
            q.push(towards(a, la));
            q.push(towards(c, lc));
        }
        q.push(p[p.len() - 1]);
        p = q;
    }
    p
}

/// The first half of a road's polyline, independent of every other road: its grid path pulled
/// and relaxed (steps of [`RELAX_STEPS_M`] at `metres_per_px`), endpoints kept.
pub fn taut(cells: &[u32], grid: &CostGrid, metres_per_px: f32) -> Vec<[f32; 2]> {
    let mut points = pull(cells, grid);
    let steps: Vec<f32> = RELAX_STEPS_M.iter().map(|m| m / metres_per_px).collect();
    relax(&mut points, grid, &steps);
    points
}

/// The second half: the junction with the `joined` road's finished polyline (if the road ends
/// on one), then the corners rounded within `corner_px` — kept only while the whole costs at
/// most [`TOTAL_SLACK`] above the grid optimum of `cells`.
pub fn finish(
    mut path: Vec<[f32; 2]>,
    cells: &[u32],
    joined: Option<&[[f32; 2]]>,
    grid: &CostGrid,
    corner_px: f32,
) -> RoadPath {
    let centres: Vec<[f32; 2]> = cells.iter().map(|&c| cell_centre(c, grid.side())).collect();
    let optimum = polyline_cost(grid, &centres);
    if let Some(joined) = joined {
        any_angle_junction(&mut path, joined, grid);
    }
    let rounded = round_corners(&path, CORNER_PASSES, corner_px);
    if polyline_cost(grid, &rounded) <= optimum * (1.0 + TOTAL_SLACK) {
        rounded
    } else {
        path
    }
}

/// The lengths of a polyline whose heading lies within `tolerance_deg` of a multiple of 45°, and
/// its whole length: the grid's fingerprint on a road.
pub fn grid_aligned_length(path: &[[f32; 2]], tolerance_deg: f64) -> (f64, f64) {
    let (mut aligned, mut total) = (0.0, 0.0);
    for w in path.windows(2) {
        let (dx, dy) = (f64::from(w[1][0] - w[0][0]), f64::from(w[1][1] - w[0][1]));
        let len = dx.hypot(dy);
        if len == 0.0 {
            continue;
        }
        let m = dy.atan2(dx).to_degrees().rem_euclid(45.0);
        if m.min(45.0 - m) <= tolerance_deg {
            aligned += len;
        }
        total += len;
    }
    (aligned, total)
}
