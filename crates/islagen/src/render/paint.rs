//! Town markers and road lines as an ordered list of shapes, painted either on a whole
//! [`Canvas`] (RGB thumbnails, splat masks) or one band of rows at a time (the streamed
//! snapshots, [`Overlay`]).
//!
//! Every shape is opaque, so a pixel ends with the colour of the last shape that covers it.
//! Painting a band of rows with the shapes that reach it, in their order and clipped to the
//! band, therefore gives exactly the pixels of painting the whole picture: the streamed
//! `2_towns` and `3_roads` pictures are the whole-picture ones, row for row (a unit test).

use std::ops::Range;

use crate::blueprint::{RoadTier, Roads, Town};

use super::{road_line, town_marker, Canvas};

/// One painted shape, with inks of type `C` (an RGB colour, or a palette index).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Shape<C> {
    /// The pixels whose centre lies within `r` of (x, y).
    Disc { x: f32, y: f32, r: f32, ink: C },
    /// A town: `fill` within `r − 1.5` of (x, y), `ring` out to `r`.
    Marker {
        x: f32,
        y: f32,
        r: f32,
        fill: C,
        ring: C,
    },
}

impl<C: Copy> Shape<C> {
    /// The columns and rows the shape may touch on a `w × h` image: inclusive bounds, clamped.
    fn bounds(&self, w: usize, h: usize) -> ([usize; 2], [usize; 2]) {
        match *self {
            Shape::Disc { x, y, r, .. } => (
                [
                    (x - r).floor().max(0.0) as usize,
                    ((x + r).ceil() as usize).min(w - 1),
                ],
                [
                    (y - r).floor().max(0.0) as usize,
                    ((y + r).ceil() as usize).min(h - 1),
                ],
            ),
            Shape::Marker { x, y, r, .. } => (
                [
                    (x - r - 1.0).max(0.0) as usize,
                    ((x + r + 1.0) as usize).min(w - 1),
                ],
                [
                    (y - r - 1.0).max(0.0) as usize,
                    ((y + r + 1.0) as usize).min(h - 1),
                ],
            ),
        }
    }

    /// The same shape with every ink passed through `f`.
    pub(crate) fn map<D: Copy>(self, mut f: impl FnMut(C) -> D) -> Shape<D> {
        match self {
            Shape::Disc { x, y, r, ink } => Shape::Disc {
                x,
                y,
                r,
                ink: f(ink),
            },
            Shape::Marker {
                x,
                y,
                r,
                fill,
                ring,
            } => Shape::Marker {
                x,
                y,
                r,
                fill: f(fill),
                ring: f(ring),
            },
        }
    }

    /// Calls `put(x, y, ink)` for each pixel of the shape on a `w × h` image within `rows`.
    pub(crate) fn paint(
        &self,
        (w, h): (usize, usize),
        rows: Range<usize>,
        mut put: impl FnMut(usize, usize, C),
    ) {
        let ([x0, x1], [y0, y1]) = self.bounds(w, h);
        let ys = y0.max(rows.start)..(y1 + 1).min(rows.end);
        match *self {
            Shape::Disc {
                x: cx,
                y: cy,
                r,
                ink,
            } => {
                let within = Within::new(r);
                for y in ys {
                    let dy = y as f32 + 0.5 - cy;
                    for x in x0..=x1 {
                        if within.test(x as f32 + 0.5 - cx, dy) {
                            put(x, y, ink);
                        }
                    }
                }
            }
            Shape::Marker {
                x: cx,
                y: cy,
                r,
                fill,
                ring,
            } => {
                let (inner, outer) = (Within::new(r - 1.5), Within::new(r));
                for y in ys {
                    let dy = y as f32 + 0.5 - cy;
                    for x in x0..=x1 {
                        let dx = x as f32 + 0.5 - cx;
                        if inner.test(dx, dy) {
                            put(x, y, fill);
                        } else if outer.test(dx, dy) {
                            put(x, y, ring);
                        }
                    }
                }
            }
        }
    }
}

/// `dx.hypot(dy) <= r`, without calling `hypot` for the pixels clearly inside or outside:
/// the squared distance in `f64` is exact to 2⁻⁵² and `hypot` is within a few units in the last
/// place of `f32` (2⁻²³), so only a relative band of ±2⁻¹⁶ around `r²` asks `hypot` itself.
struct Within {
    r: f32,
    /// Squared distances below this are inside, above `outside` outside.
    inside: f64,
    outside: f64,
}

impl Within {
    fn new(r: f32) -> Within {
        let r2 = f64::from(r) * f64::from(r);
        let margin = 1.0 / 65536.0;
        Within {
            r,
            inside: r2 * (1.0 - margin),
            outside: r2 * (1.0 + margin),
        }
    }

    #[inline(always)]
    fn test(&self, dx: f32, dy: f32) -> bool {
        let d2 = f64::from(dx) * f64::from(dx) + f64::from(dy) * f64::from(dy);
        if d2 < self.inside {
            true
        } else if d2 > self.outside {
            false
        } else {
            dx.hypot(dy) <= self.r
        }
    }
}

/// Paints `shape` (RGB inks) on the whole of `canvas`.
pub(crate) fn paint_on<C: Canvas>(canvas: &mut C, shape: Shape<[u8; 3]>) {
    let size = canvas.size();
    let shape = shape.map(|colour| canvas.ink(colour));
    shape.paint(size, 0..size.1, |x, y, ink| canvas.put(x, y, ink));
}

/// The town markers on an image `width` pixels wide, in town order.
pub(crate) fn town_shapes(
    towns: &[Town],
    width: usize,
) -> impl Iterator<Item = Shape<[u8; 3]>> + '_ {
    towns.iter().map(move |t| {
        let (fraction, fill) = town_marker(t.tier);
        let ring = if t.is_highway_node {
            [0, 0, 0]
        } else {
            [60, 60, 60]
        };
        Shape::Marker {
            x: t.x,
            y: t.y,
            r: (fraction * width as f32).max(2.0),
            fill,
            ring,
        }
    })
}

/// The road discs on an image `width` pixels wide (map pixel coordinates × `scale`), lowest
/// tier first, two discs a pixel along each segment; lines are never thinner than one image
/// pixel, so they stay visible on a thumbnail.
pub(crate) fn road_shapes(
    roads: &Roads,
    scale: f32,
    width: usize,
) -> impl Iterator<Item = Shape<[u8; 3]>> + '_ {
    let w = width as f32;
    RoadTier::ALL.iter().rev().flat_map(move |&tier| {
        let (fraction, colour) = road_line(tier);
        let r = (0.5 * fraction * w).max(0.5);
        roads.tier(tier).iter().flat_map(move |path| {
            path.windows(2).flat_map(move |seg| {
                let (a, b) = (seg[0].map(|c| c * scale), seg[1].map(|c| c * scale));
                let steps = ((b[0] - a[0]).hypot(b[1] - a[1]) * 2.0).ceil().max(1.0) as usize;
                (0..=steps).map(move |k| {
                    let t = k as f32 / steps as f32;
                    Shape::Disc {
                        x: a[0] + (b[0] - a[0]) * t,
                        y: a[1] + (b[1] - a[1]) * t,
                        r,
                        ink: colour,
                    }
                })
            })
        })
    })
}

/// Rows a block of the [`Overlay`]'s index covers.
const BLOCK_ROWS: usize = 16;

/// Shapes in palette inks, indexed by the blocks of rows they reach, to paint one band of a
/// palette picture at a time.
#[derive(Debug)]
pub(crate) struct Overlay {
    size: (usize, usize),
    shapes: Vec<Shape<u8>>,
    /// Block `b` (rows `b·BLOCK_ROWS ..`) reaches `index[starts[b]..starts[b + 1]]`, in order.
    starts: Vec<usize>,
    index: Vec<u32>,
}

impl Overlay {
    /// The `shapes` on a `w × h` picture, their colours added to `palette` where new.
    pub(crate) fn new(
        (w, h): (usize, usize),
        shapes: impl Iterator<Item = Shape<[u8; 3]>>,
        palette: &mut Vec<[u8; 3]>,
    ) -> Overlay {
        let mut ink = |colour: [u8; 3]| match palette.iter().position(|&c| c == colour) {
            Some(i) => i as u8,
            None => {
                // A handful of fixed marker and road colours beside the biome palette.
                debug_assert!(palette.len() < 256);
                palette.push(colour);
                (palette.len() - 1) as u8
            }
        };
        let shapes: Vec<Shape<u8>> = shapes.map(|s| s.map(&mut ink)).collect();
        // Counting sort of (block, shape) pairs: each block lists its shapes in shape order.
        let blocks = h.div_ceil(BLOCK_ROWS);
        let reach = |s: &Shape<u8>| {
            let (_, [y0, y1]) = s.bounds(w, h);
            y0 / BLOCK_ROWS..y1 / BLOCK_ROWS + 1
        };
        let mut starts = vec![0usize; blocks + 1];
        for s in &shapes {
            for b in reach(s) {
                starts[b + 1] += 1;
            }
        }
        for b in 0..blocks {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut index = vec![0u32; starts[blocks]];
        for (i, s) in shapes.iter().enumerate() {
            for b in reach(s) {
                index[next[b]] = i as u32;
                next[b] += 1;
            }
        }
        Overlay {
            size: (w, h),
            shapes,
            starts,
            index,
        }
    }

    /// Paints rows `y0 ..` of `band` (whole rows of palette indices).
    pub(crate) fn paint_band(&self, y0: usize, band: &mut [u8]) {
        let (w, h) = self.size;
        let y1 = (y0 + band.len() / w).min(h);
        let mut y = y0;
        while y < y1 {
            let b = y / BLOCK_ROWS;
            let rows = y..((b + 1) * BLOCK_ROWS).min(y1).min(h);
            for &i in &self.index[self.starts[b]..self.starts[b + 1]] {
                self.shapes[i as usize].paint(self.size, rows.clone(), |x, y, ink| {
                    band[(y - y0) * w + x] = ink;
                });
            }
            y = rows.end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The squared-distance shortcut answers as `hypot` does, right at the edge of discs of
    /// every size the pictures use (and a few more).
    #[test]
    fn within_is_hypot() {
        let mut state = 0x9e37_79b9_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as f32 / u32::MAX as f32
        };
        for r in [
            0.5f32, 1.0, 2.0, 2.5, 4.096, 8.192, 10.24, 20.48, 81.92, 327.68, 1e4,
        ] {
            let within = Within::new(r);
            for _ in 0..20_000 {
                // Centres anywhere in a pixel; pixels at and around the rim.
                let (cx, cy) = (next(), next());
                let angle = next() * std::f32::consts::TAU;
                let rim = r + (next() - 0.5) * 4.0;
                let (x, y) = ((rim * angle.cos()).round(), (rim * angle.sin()).round());
                let (dx, dy) = (x + 0.5 - cx, y + 0.5 - cy);
                assert_eq!(
                    within.test(dx, dy),
                    dx.hypot(dy) <= r,
                    "r {r} d ({dx}, {dy})"
                );
            }
        }
    }
}
