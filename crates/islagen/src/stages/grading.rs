//! Town grading: the ground under every town made level enough for its tier, on the final
//! heights.
//!
//! Towns are chosen on terrain that is smooth at the scale of their sites (and, when the fluvial
//! relief ran, on the valleys it cut); the map under them still carries the detail and the carve
//! below that scale. Grading is the builder's cut and fill. Around each town the dry ground is
//! fitted with a plane, its slope held to [`GradingParams::pad_share`] of the tier's limit. Out
//! to [`GradingParams::pad_m`] (the footprint and the 8 m a slope reading reaches) every dry
//! pixel is held within ± `δ` of that plane, `δ` = [`GradingParams::pad_relief_m`] per unit of
//! the tier's slope limit, so the pad's roughness cannot tip a slope over 8 m past the limit.
//! Beyond the pad the band widens at [`GradingParams::outer_slope`] (the angle a graded bank
//! holds) and fades back to the land over the last [`GradingParams::fade_m`] of
//! [`GradingParams::reach_m`]. Ground already inside the band is not touched, so a town on
//! gentle land keeps its land; one on a slope gets a bench, and the bank above and below it.
//!
//! **Guarantees.** Water pixels (WBID ≠ 0) never change, no pixel is cut below its row's sea
//! level + [`GradingParams::sea_margin_m`] (the waterline stays the classify map's), no pixel
//! within [`GradingParams::protected_px`] of the crater's centre changes, and the summit (the
//! highest dry pixel, which the height curve lifts to the cap) stays where it is. Every distance is
//! in metres, so a town is graded alike at every MapSize. Towns are graded one after another in
//! their order, a pure function of the inputs: the result does not depend on the thread count.

use ndarray::Array2;
use serde::Serialize;

use super::crater::Crater;
use crate::sea::SeaLevel;
use crate::blueprint::{Town, TownTier};
use crate::grid::noise::smoothstep;
use crate::units::{METRES_PER_RAW, WORLD_SIZE_M};

/// The dials.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GradingParams {
    /// The radius of the pad held to the plane, metres: the town's footprint (25 m), the 8 m a
    /// slope read at its edge reaches past it, and a margin.
    pub pad_m: f32,
    /// The share of the tier's slope limit the pad's plane may tilt at.
    pub pad_share: f32,
    /// How far the pad's ground may stray from its plane per unit of the tier's slope limit,
    /// metres.
    pub pad_relief_m: f32,
    /// How steeply the bank beyond the pad may rise or fall, metres per metre.
    pub outer_slope: f32,
    /// The distance past which nothing changes, metres.
    pub reach_m: f32,
    /// The width of the fade back to the land at the reach, metres.
    pub fade_m: f32,
    /// No pixel is cut below its row's sea level plus this, metres.
    pub sea_margin_m: f32,
    /// Pixels this close to the crater's centre never change, pixels.
    pub protected_px: f32,
}

impl GradingParams {
    /// The dials for a crater core of `protected_px` pixels.
    pub fn new(protected_px: f32) -> GradingParams {
        GradingParams {
            pad_m: 36.0,
            pad_share: 0.5,
            pad_relief_m: 1.0,
            outer_slope: 0.7,
            reach_m: 200.0,
            fade_m: 40.0,
            sea_margin_m: 0.5,
            protected_px,
        }
    }

    /// The half-width of the band about the plane at distance `r` from a town whose tier's
    /// slope limit is `limit`, metres.
    fn bound(&self, limit: f32, r: f32) -> f32 {
        self.pad_relief_m * limit + self.outer_slope * (r - self.pad_m).max(0.0)
    }
}

/// What grading did, for the summary and the tests.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GradingStats {
    /// Towns whose ground moved by more than 1 cm anywhere.
    pub towns_graded: usize,
    /// Pixels moved by more than 1 cm.
    pub pixels_moved: usize,
    /// The deepest cut and the highest fill, metres.
    pub max_cut_m: f32,
    /// The highest fill, metres.
    pub max_fill_m: f32,
}

/// Grades the ground under `towns` in `heights` (raw units, `[x, y]`), each held to
/// `max_slope(tier)` as [`GradingParams`] says. `water_ids` is the map's WBID.
pub fn grade(
    heights: &mut Array2<f32>,
    towns: &[Town],
    water_ids: &Array2<u16>,
    sea: &SeaLevel,
    crater: &Crater,
    p: &GradingParams,
    max_slope: impl Fn(TownTier) -> f32,
) -> GradingStats {
    let mut stats = GradingStats::default();
    let summit = summit(heights, water_ids, sea);
    let keep = |x: usize, y: usize| (x, y) == summit || crater.distance(x, y) < p.protected_px;
    for town in towns {
        let moved = grade_one(
            heights,
            town,
            water_ids,
            sea,
            &keep,
            p,
            max_slope(town.tier),
        );
        stats.towns_graded += usize::from(moved.pixels > 0);
        stats.pixels_moved += moved.pixels;
        stats.max_cut_m = stats.max_cut_m.max(moved.cut_m);
        stats.max_fill_m = stats.max_fill_m.max(moved.fill_m);
    }
    stats
}

/// The highest dry pixel above its row's sea (the first in scan order of equals): the summit
/// the height curve lifts to the cap, which grading leaves there.
fn summit(heights: &Array2<f32>, water_ids: &Array2<u16>, sea: &SeaLevel) -> (usize, usize) {
    let mut best = (f32::MIN, (0, 0));
    for ((x, y), &h) in heights.indexed_iter() {
        if water_ids[[x, y]] == 0 && h - sea.at(y) > best.0 {
            best = (h - sea.at(y), (x, y));
        }
    }
    best.1
}

/// What grading one town moved.
#[derive(Default)]
struct Moved {
    pixels: usize,
    cut_m: f32,
    fill_m: f32,
}

/// Calls `visit(x, y, dx, dy, r)` for each pixel whose centre lies within `radius_m` of the
/// town (the edge included), clamped to the map, in scan order: the offsets and distance in
/// metres.
fn around(
    town: &Town,
    n: usize,
    radius_m: f32,
    mut visit: impl FnMut(usize, usize, f32, f32, f32),
) {
    let px_m = WORLD_SIZE_M / n as f32;
    let [xs, ys] = [town.x, town.y].map(|c| {
        let r = radius_m / px_m;
        let lo = (c - r).floor().max(0.0) as usize;
        lo..((c + r).ceil() as usize).min(n)
    });
    for x in xs {
        for y in ys.clone() {
            let (dx, dy) = (
                (x as f32 + 0.5 - town.x) * px_m,
                (y as f32 + 0.5 - town.y) * px_m,
            );
            let r = dx.hypot(dy);
            if r <= radius_m {
                visit(x, y, dx, dy, r);
            }
        }
    }
}

/// A plane about a town, in metres: `level + gx · dx + gy · dy` at offset (dx, dy) metres.
#[derive(Clone, Copy, Debug)]
struct Plane {
    level: f32,
    gx: f32,
    gy: f32,
}

impl Plane {
    fn at(&self, dx: f32, dy: f32) -> f32 {
        self.level + self.gx * dx + self.gy * dy
    }
}

/// The least-squares plane through the dry pixels within `radius_m` of the town (metres), its
/// gradient shortened to at most `max_slope`; the town's own pixel, flat, where none is dry.
fn plane(
    heights: &Array2<f32>,
    town: &Town,
    water_ids: &Array2<u16>,
    radius_m: f32,
    max_slope: f32,
) -> Plane {
    let n = heights.dim().0;
    // Sums in f64 in scan order: the same plane whatever runs beside it.
    let (mut s, mut sx, mut sy, mut sxx, mut syy, mut sxy, mut sz, mut sxz, mut syz) = (
        0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64,
    );
    around(town, n, radius_m, |x, y, dx, dy, _| {
        if water_ids[[x, y]] != 0 {
            return;
        }
        let (dx, dy) = (f64::from(dx), f64::from(dy));
        let z = f64::from(heights[[x, y]] * METRES_PER_RAW);
        s += 1.0;
        sx += dx;
        sy += dy;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
        sz += z;
        sxz += dx * z;
        syz += dy * z;
    });
    if s == 0.0 {
        let (x, y) = ((town.x as usize).min(n - 1), (town.y as usize).min(n - 1));
        return Plane {
            level: heights[[x, y]] * METRES_PER_RAW,
            gx: 0.0,
            gy: 0.0,
        };
    }
    // Centre the moments on the dry pixels' mean, then solve the 2 × 2 normal equations.
    let (mx, my, mz) = (sx / s, sy / s, sz / s);
    let (cxx, cyy, cxy) = (sxx / s - mx * mx, syy / s - my * my, sxy / s - mx * my);
    let (cxz, cyz) = (sxz / s - mx * mz, syz / s - my * mz);
    let det = cxx * cyy - cxy * cxy;
    let (mut gx, mut gy) = if det > 1e-9 {
        ((cxz * cyy - cyz * cxy) / det, (cyz * cxx - cxz * cxy) / det)
    } else {
        (0.0, 0.0)
    };
    let g = gx.hypot(gy);
    if g > f64::from(max_slope) {
        gx *= f64::from(max_slope) / g;
        gy *= f64::from(max_slope) / g;
    }
    // Through the dry pixels' centroid at their mean height.
    let level = mz - gx * mx - gy * my;
    Plane {
        level: level as f32,
        gx: gx as f32,
        gy: gy as f32,
    }
}

fn grade_one(
    heights: &mut Array2<f32>,
    town: &Town,
    water_ids: &Array2<u16>,
    sea: &SeaLevel,
    keep: &impl Fn(usize, usize) -> bool,
    p: &GradingParams,
    max_slope: f32,
) -> Moved {
    let n = heights.dim().0;
    let plane = plane(heights, town, water_ids, p.pad_m, max_slope * p.pad_share);
    let mut moved = Moved::default();
    around(town, n, p.reach_m, |x, y, dx, dy, r| {
        if r >= p.reach_m || water_ids[[x, y]] != 0 || keep(x, y) {
            return;
        }
        let m = heights[[x, y]] * METRES_PER_RAW;
        let (centre, bound) = (plane.at(dx, dy), p.bound(max_slope, r));
        let floor = (sea.at(y) * METRES_PER_RAW + p.sea_margin_m).min(m);
        let target = m.clamp(centre - bound, centre + bound).max(floor);
        let weight = smoothstep(0.0, p.fade_m, p.reach_m - r);
        let change = weight * (target - m);
        if change.abs() > 0.01 {
            moved.pixels += 1;
            moved.cut_m = moved.cut_m.max(-change);
            moved.fill_m = moved.fill_m.max(change);
            heights[[x, y]] = (m + change) / METRES_PER_RAW;
        }
    });
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sea::SeaModel;

    fn crater_far() -> Crater {
        Crater {
            center: [-1000.0, -1000.0],
            radius_px: 10.0,
            wobble: [[0.0; 2]; 4],
        }
    }

    /// A town on a 45° slope: its core stands within its tier's share, the bank beyond within
    /// the outer slope, the land past the reach is untouched, and water never moves.
    #[test]
    fn a_town_on_a_slope_gets_a_bench_and_nothing_else_moves() {
        let n = 1024;
        let px_m = WORLD_SIZE_M / n as f32;
        let sea = SeaLevel::new(SeaModel::Flat(0.0), n);
        // 45°: one metre a metre along x, from 50 m.
        let before =
            Array2::from_shape_fn((n, n), |(x, _)| (50.0 + x as f32 * px_m) / METRES_PER_RAW);
        let mut h = before.clone();
        let mut water = Array2::<u16>::zeros((n, n));
        water[[512, 520]] = 7;
        let town = Town {
            x: 512.5,
            y: 512.5,
            tier: TownTier::Capitol,
            is_highway_node: true,
        };
        let p = GradingParams::new(0.0);
        let stats = grade(&mut h, &[town], &water, &sea, &crater_far(), &p, |_| 0.1);
        assert_eq!(stats.towns_graded, 1);
        assert!(
            stats.max_cut_m > 10.0 && stats.max_fill_m > 10.0,
            "{stats:?}"
        );
        let level = before[[512, 512]] * METRES_PER_RAW;
        for x in 0..n {
            for y in 0..n {
                let dx = (x as f32 + 0.5 - town.x) * px_m;
                let r = dx.hypot((y as f32 + 0.5 - town.y) * px_m);
                let m = h[[x, y]] * METRES_PER_RAW;
                if water[[x, y]] != 0 || r >= p.reach_m {
                    assert_eq!(h[[x, y]], before[[x, y]], "({x}, {y}) moved");
                } else if r <= p.pad_m {
                    // The pad: the plane tilted at half the Capitol's limit, within 0.1 m.
                    let plane = level + 0.05 * dx;
                    assert!(
                        (m - plane).abs() <= 0.1 + 0.01,
                        "({x}, {y}) at {m} m, plane {plane}"
                    );
                }
            }
        }
        // Along the slope's line through the town, the graded ground never rises faster than
        // the bank's slope over the pad's tilt (short of the fade, 160 m = 20 px).
        for x in 493..532 {
            let rise = (h[[x + 1, 512]] - h[[x, 512]]) * METRES_PER_RAW / px_m;
            assert!(rise <= p.outer_slope + 0.05 + 1e-3, "x {x}: {rise}");
        }
    }

    /// Gentle ground inside the band is left as it was; nothing is cut into the sea.
    #[test]
    fn gentle_ground_and_the_shore_stay() {
        let n = 512;
        let sea = SeaLevel::new(SeaModel::Flat(0.1), n);
        let base = 0.1 + 2.0 / METRES_PER_RAW;
        let before = Array2::from_shape_fn((n, n), |(x, y)| {
            base + 0.001 * ((x as f32 * 0.3).sin() + (y as f32 * 0.2).cos()) / METRES_PER_RAW
        });
        let mut h = before.clone();
        let water = Array2::<u16>::zeros((n, n));
        let towns = [Town {
            x: 100.5,
            y: 100.5,
            tier: TownTier::Village,
            is_highway_node: false,
        }];
        let village = |h: &mut Array2<f32>| {
            let p = GradingParams::new(0.0);
            grade(h, &towns, &water, &sea, &crater_far(), &p, |_| 0.15)
        };
        let stats = village(&mut h);
        assert_eq!(stats.pixels_moved, 0, "{stats:?}");
        assert_eq!(h, before);
        // A town on a bluff above the shore: the cut stops at the sea margin.
        let mut cliff = Array2::from_shape_fn((n, n), |(x, _)| {
            if x < 100 {
                0.1 + 0.2 / METRES_PER_RAW
            } else {
                0.1 + 30.0 / METRES_PER_RAW
            }
        });
        village(&mut cliff);
        assert!(cliff.iter().all(|&v| v >= 0.1), "cut below the sea");
    }
}
