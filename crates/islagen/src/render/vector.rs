//! Roads, rivers and towns as exact shapes around their segments, at any offset and scale: the
//! painter of `islagen serve`'s map tiles, beside `render/paint.rs`'s disc chains of the
//! full-size snapshots (whose pixels golden/ holds).
//!
//! A road or river segment is the capsule of its half-width around it (every pixel whose centre
//! lies within that distance of the segment, f32), a town a ring and a disc; radii never fall
//! below a visible size. Colours and widths are the snapshots' ([`road_line`], [`town_marker`],
//! [`WATER_PALETTE`]); shapes are opaque and painted in order, the highway last.

use crate::blueprint::{RiverNetwork, RoadTier, Roads, Town};
use crate::units::metres_per_px;

use super::{road_line, town_marker, Canvas, WATER_PALETTE};

/// Where map coordinates land on the canvas: canvas pixel = (map − origin) × scale, per axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// The map point at the canvas's origin (pixel centres at +0.5).
    pub origin: [f64; 2],
    /// Canvas pixels per map pixel.
    pub scale: [f64; 2],
}

impl View {
    fn canvas_px(&self, p: [f32; 2]) -> [f32; 2] {
        [
            ((f64::from(p[0]) - self.origin[0]) * self.scale[0]) as f32,
            ((f64::from(p[1]) - self.origin[1]) * self.scale[1]) as f32,
        ]
    }

    /// A radius of `map_px` map pixels on the canvas, at least `least` canvas pixels.
    fn radius(&self, map_px: f32, least: f32) -> f32 {
        (map_px * self.scale[0] as f32).max(least)
    }
}

/// The roads of a map `side` pixels wide: every tier's segments as capsules, highways last.
pub fn roads<C: Canvas>(canvas: &mut C, roads: &Roads, side: usize, view: View) {
    for &tier in RoadTier::ALL.iter().rev() {
        let (fraction, colour) = road_line(tier);
        let r = view.radius((0.5 * fraction * side as f32).max(0.5), 0.6);
        let ink = canvas.ink(colour);
        for path in roads.tier(tier) {
            for seg in path.windows(2) {
                let (a, b) = (view.canvas_px(seg[0]), view.canvas_px(seg[1]));
                if touches(canvas, a, b, r) {
                    capsule(canvas, a, b, r, ink);
                }
            }
        }
    }
}

/// The rivers of a map `side` pixels wide, each segment a capsule of its half-width. A segment
/// that covers the whole canvas fills it and ends the painting (every river is one colour).
pub fn rivers<C: Canvas>(canvas: &mut C, net: &RiverNetwork, side: usize, view: View) {
    let mpp = metres_per_px(side);
    let ink = canvas.ink(WATER_PALETTE[2]);
    for river in &net.rivers {
        for seg in river.points.windows(2) {
            let (a, b) = (
                view.canvas_px([seg[0].x, seg[0].y]),
                view.canvas_px([seg[1].x, seg[1].y]),
            );
            let width = seg[0].width_m.max(seg[1].width_m);
            let r = view.radius((0.5 * width / mpp).max(0.5), 0.6);
            if covers(canvas, a, b, r) {
                let (w, h) = canvas.size();
                for j in 0..h {
                    for i in 0..w {
                        canvas.put(i, j, ink);
                    }
                }
                return;
            }
            if touches(canvas, a, b, r) {
                capsule(canvas, a, b, r, ink);
            }
        }
    }
}

/// The towns of a map `side` pixels wide: a dark ring (black on a highway node) around a disc
/// of the tier's colour.
pub fn towns<C: Canvas>(canvas: &mut C, towns: &[Town], side: usize, view: View) {
    for t in towns {
        let (fraction, fill) = town_marker(t.tier);
        let ring = if t.is_highway_node {
            [0, 0, 0]
        } else {
            [60, 60, 60]
        };
        let r = view.radius((fraction * side as f32).max(2.0), 3.0);
        let c = view.canvas_px([t.x, t.y]);
        if !touches(canvas, c, c, r) {
            continue;
        }
        let (ring, fill) = (canvas.ink(ring), canvas.ink(fill));
        capsule(canvas, c, c, r, ring);
        capsule(canvas, c, c, r - 1.5, fill);
    }
}

/// Paints the capsule around segment a–b (canvas pixels) of radius `r`.
fn capsule<C: Canvas>(canvas: &mut C, a: [f32; 2], b: [f32; 2], r: f32, ink: C::Ink) {
    let (w, h) = canvas.size();
    let lo = |u: f32, v: f32| (u.min(v) - r).floor().max(0.0);
    let hi = |u: f32, v: f32, n: usize| (u.max(v) + r).ceil().min(n as f32 - 1.0);
    let (x0, x1) = (lo(a[0], b[0]), hi(a[0], b[0], w));
    let (y0, y1) = (lo(a[1], b[1]), hi(a[1], b[1], h));
    if !(x0 <= x1 && y0 <= y1) {
        return;
    }
    for j in y0 as usize..=y1 as usize {
        for i in x0 as usize..=x1 as usize {
            if distance2([i as f32 + 0.5, j as f32 + 0.5], a, b) <= r * r {
                canvas.put(i, j, ink);
            }
        }
    }
}

/// The squared distance from point `c` to the segment a–b.
fn distance2(c: [f32; 2], a: [f32; 2], b: [f32; 2]) -> f32 {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len2 = d[0] * d[0] + d[1] * d[1];
    let p = [c[0] - a[0], c[1] - a[1]];
    let t = match len2 > 0.0 {
        true => ((p[0] * d[0] + p[1] * d[1]) / len2).clamp(0.0, 1.0),
        false => 0.0,
    };
    let q = [p[0] - t * d[0], p[1] - t * d[1]];
    q[0] * q[0] + q[1] * q[1]
}

/// Whether a shape reaching `r` around the segment a–b can touch the canvas.
fn touches<C: Canvas>(canvas: &C, a: [f32; 2], b: [f32; 2], r: f32) -> bool {
    let (w, h) = canvas.size();
    a[0].min(b[0]) - r < w as f32
        && a[0].max(b[0]) + r > 0.0
        && a[1].min(b[1]) - r < h as f32
        && a[1].max(b[1]) + r > 0.0
        && a.iter().chain(&b).all(|c| c.is_finite())
}

/// Whether the capsule of radius `r` around the segment a–b covers the whole canvas: it holds
/// all four corners, and a capsule is convex.
fn covers<C: Canvas>(canvas: &C, a: [f32; 2], b: [f32; 2], r: f32) -> bool {
    let (w, h) = canvas.size();
    let (w, h) = (w as f32, h as f32);
    [[0.0, 0.0], [w, 0.0], [0.0, h], [w, h]]
        .iter()
        .all(|&c| distance2(c, a, b) <= r * r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Image;

    #[test]
    fn a_capsule_holds_the_pixels_within_its_radius_and_no_others() {
        let mut img = Image {
            width: 16,
            height: 8,
            rgb: vec![0; 16 * 8 * 3],
        };
        let ink = img.ink([255, 0, 0]);
        capsule(&mut img, [3.0, 4.0], [12.0, 4.0], 2.0, ink);
        for y in 0..8 {
            for x in 0..16 {
                let c = [x as f32 + 0.5, y as f32 + 0.5];
                let inside = distance2(c, [3.0, 4.0], [12.0, 4.0]) <= 4.0;
                let red = img.rgb[(y * 16 + x) * 3] == 255;
                assert_eq!(inside, red, "({x}, {y})");
            }
        }
        assert!(!touches(&img, [-9.0, 1.0], [-5.0, 2.0], 2.0));
        assert!(covers(&img, [8.0, 4.0], [8.0, 4.0], 9.0));
        assert!(!covers(&img, [8.0, 4.0], [8.0, 4.0], 8.0));
    }

    #[test]
    fn a_capsule_covers_the_canvas_only_when_it_holds_every_corner() {
        let tile = Image {
            width: 256,
            height: 256,
            rgb: vec![0; 256 * 256 * 3],
        };
        let across = ([-10.0, 128.0], [266.0, 128.0]);
        assert!(
            covers(&tile, across.0, across.1, 129.0),
            "a band over the corners"
        );
        assert!(!covers(&tile, across.0, across.1, 127.0));
        assert!(
            covers(&tile, [128.0; 2], [128.0; 2], 182.0),
            "a disc: half-diagonal 181.02"
        );
        assert!(!covers(&tile, [128.0; 2], [128.0; 2], 180.0));
        assert!(!covers(&tile, [1000.0; 2], [1000.0; 2], 1000.0), "far off");
    }
}
