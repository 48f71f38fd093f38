//! The height curve, TerrainCurve "v5" (the balanced preset): the terraced ascent applied to
//! above-sea terrain.
//!
//! The curve maps a pixel's raw height above sea, `a = h − sea(y)`, to output metres above sea
//! through seven knots — sea, K1 … K6 — joined by monotone cubic Hermite segments (the eased
//! corners), then a summit spike from K6 to the 420 m cap normalised by this seed's highest raw
//! pixel (`spikeMax`), so the highest summit reaches the cap exactly:
//!
//! | input        | output                         | reads as                         |
//! |--------------|--------------------------------|----------------------------------|
//! | sea … K1     | 0 … 30 m                       | flat farmable lowland (~60 %)    |
//! | K1 … K2      | 30 … 60 m                      | low hills, up to the red ceiling |
//! | K2 … K3      | 60 m … bench − span / 2        | riser                            |
//! | K3 … K4      | bench ± span / 2, bench 100 ± 12 m | the foothill bench           |
//! | K4 … K5      | riser to plateau − span / 2    | riser                            |
//! | K5 … K6      | plateau ± span / 2, plateau 220 ± 20 m | the mountain-town plateau |
//! | K6 … spikeMax| plateau top … 420 m            | summit spires                    |
//!
//! Shelf heights (bench, plateau) and strength (span, between shelfSpanMin and shelfSpanMax
//! metres: the smaller, the flatter the shelf) drift across the island through low-frequency
//! Simplex fields seeded with the "curve" stage seed ([`crate::seed::noise_seed`]) + their offsets, frequencies in undulations per island
//! width ([`ISLAND_WIDTH`] of the map).
//!
//! Guarantees:
//! - identity at and below sea level (the curve never touches the seabed, so it cannot move the
//!   waterline); strictly above sea for every input strictly above it;
//! - for a fixed column the output is monotone non-decreasing in input height, also with the
//!   detail pass's knot shift up to [`Preset::edge_max_shift_m`] (knot slopes come from the
//!   unshifted knots and satisfy the Fritsch–Carlson bound for any shift within it);
//! - outputs stay within [0, cap]; the pixel at spikeMax reaches the cap.

use crate::grid::noise::{Fbm, Interpolation, Lattice, PixelColumn, PixelReads};
use crate::units::{HEIGHT_CAP_M, METRES_PER_RAW};

/// The sea level the preset's absolute knots are stated against.
pub const SEA_REF: f32 = 0.15;
/// The island's width as a fraction of the map (the Trench clamps it at about 90 %): the unit of
/// the curve and detail fields' frequencies.
pub const ISLAND_WIDTH: f32 = 0.9;

/// A curve preset: its knots and shelf dials.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    /// TCRV presetId (1 = compact, 2 = balanced).
    pub id: u8,
    /// K1 … K6, absolute raw heights at sea level [`SEA_REF`].
    pub knots: [f32; 6],
    /// Output at K1, metres: the lowland ceiling.
    pub orange_ceil_m: f32,
    /// Output at K2, metres: the floor the detail passes never reach below.
    pub red_ceil_m: f32,
    /// Foothill bench base height, metres.
    pub bench_m: f32,
    /// Plateau base height, metres.
    pub plateau_m: f32,
    /// Summit cap, metres.
    pub cap_m: f32,
    /// The spike's linear share (its normalised slope at K6); the rest is cubic.
    pub tail_slope: f32,
    /// Bench height amplitude, ± metres.
    pub bench_amp_m: f32,
    /// Plateau height amplitude, ± metres.
    pub plateau_amp_m: f32,
    /// Flattest shelf: output span across a shelf, metres.
    pub span_min_m: f32,
    /// Softest shelf: output span across a shelf, metres.
    pub span_max_m: f32,
    /// Shelf-height fields' frequency, undulations per island width.
    pub elev_freq_islands: f32,
    /// Shelf-strength field's frequency, undulations per island width.
    pub strength_freq_islands: f32,
    /// Seed offsets of the bench, plateau and strength fields.
    pub seed_offsets: [i32; 3],
}

/// TerrainCurve "v5": the balanced preset. K5 and K6 are the version's constants.
pub const BALANCED: Preset = Preset {
    id: 2,
    knots: [0.41, 0.50, 0.62, 0.75, 0.930_304, 1.050_72],
    orange_ceil_m: 30.0,
    red_ceil_m: 60.0,
    bench_m: 100.0,
    plateau_m: 220.0,
    cap_m: HEIGHT_CAP_M,
    tail_slope: 0.2,
    bench_amp_m: 12.0,
    plateau_amp_m: 20.0,
    span_min_m: 6.0,
    span_max_m: 20.0,
    elev_freq_islands: 1.5,
    strength_freq_islands: 2.0,
    seed_offsets: [5_101, 5_202, 5_303],
};

impl Preset {
    /// The band-squeeze bound: the largest shift of the K3/K4/K5 block, metres of input height,
    /// that keeps the curve monotone — half the narrower of the two bands the shift squeezes or
    /// stretches (K2…K3 and K5…K6).
    pub const fn edge_max_shift_m(&self) -> f32 {
        let lower = self.knots[2] - self.knots[1];
        let upper = self.knots[5] - self.knots[4];
        let band = if lower < upper { lower } else { upper };
        0.5 * band * METRES_PER_RAW
    }

    /// Knot positions as raw height above sea: [0, K1 − sea, …, K6 − sea].
    fn knots_above_sea(&self) -> [f32; 7] {
        let mut xs = [0.0; 7];
        for (x, k) in xs[1..].iter_mut().zip(self.knots) {
            *x = k - SEA_REF;
        }
        xs
    }
}

/// The curve of one seed: the preset, its shelf fields, and the per-seed spike normaliser.
#[derive(Clone, Debug)]
pub struct Curve {
    preset: Preset,
    xs: [f32; 7],
    spike_top: f32,
    bench: Lattice,
    plateau: Lattice,
    strength: Lattice,
    record_sea: f32,
}

impl Curve {
    /// Builds the curve for `seed`. `max_above_sea` is the highest raw height above sea on the
    /// map; `record_sea` is the sea level the TCRV record states its absolute values against.
    pub fn new(preset: Preset, seed: i32, max_above_sea: f32, record_sea: f32) -> Curve {
        let xs = preset.knots_above_sea();
        let per_map = |islands: f32| islands / ISLAND_WIDTH;
        let field = |offset: i32, islands: f32| {
            let f = Fbm::new(
                crate::seed::noise_seed(seed, "curve").wrapping_add(offset),
                per_map(islands),
                2,
            );
            Lattice::sample(move |u, v| f.at(u, v).clamp(-1.0, 1.0))
        };
        Curve {
            bench: field(preset.seed_offsets[0], preset.elev_freq_islands),
            plateau: field(preset.seed_offsets[1], preset.elev_freq_islands),
            strength: field(preset.seed_offsets[2], preset.strength_freq_islands),
            // A map that never rises past K6 still gets a well-defined (unused) spike.
            spike_top: max_above_sea.max(xs[6] + 0.01),
            preset,
            xs,
            record_sea,
        }
    }

    /// The curve of the column at normalised position (u, v).
    pub fn column(&self, u: f32, v: f32) -> ColumnCurve {
        let fields = [&self.bench, &self.plateau, &self.strength].map(|f| f.at(u, v));
        self.column_of(fields)
    }

    /// The curves at every pixel centre of a map of `dim` (columns, rows) pixels, bit for bit
    /// [`Curve::column`] (the shelf fields read through [`PixelReads`]).
    pub fn pixel_reads(&self, dim: (usize, usize)) -> CurveReads<'_> {
        let reads = [&self.bench, &self.plateau, &self.strength]
            .map(|f| f.pixel_reads(dim, Interpolation::Bilinear));
        CurveReads { curve: self, reads }
    }

    /// The curve whose bench, plateau and strength fields read `fields` (in that order).
    #[inline]
    fn column_of(&self, [bench, plateau, strength]: [f32; 3]) -> ColumnCurve {
        let p = &self.preset;
        let bench = p.bench_m + p.bench_amp_m * bench;
        let plateau = p.plateau_m + p.plateau_amp_m * plateau;
        let s = 0.5 + 0.5 * strength;
        let half = 0.5 * (p.span_min_m + (p.span_max_m - p.span_min_m) * s);
        let ys = [
            0.0,
            p.orange_ceil_m,
            p.red_ceil_m,
            bench - half,
            bench + half,
            plateau - half,
            plateau + half,
        ];
        ColumnCurve {
            xs: self.xs,
            ys,
            spike_top: self.spike_top,
            cap: p.cap_m,
            tail: p.tail_slope,
        }
    }

    /// The preset in force.
    pub fn preset(&self) -> &Preset {
        &self.preset
    }

    /// The spike's normaliser: this seed's highest raw height above sea.
    pub fn spike_top(&self) -> f32 {
        self.spike_top
    }

    /// The sea level the curve's record states its absolute values against.
    pub fn record_sea(&self) -> f32 {
        self.record_sea
    }
}

/// [`Curve::pixel_reads`]: the curve's shelf fields at every pixel centre of a map.
pub struct CurveReads<'a> {
    curve: &'a Curve,
    reads: [PixelReads; 3],
}

impl CurveReads<'_> {
    /// The curves down map column `x`.
    pub fn column(&self, x: usize) -> CurveColumn<'_> {
        CurveColumn {
            curve: self.curve,
            fields: [0, 1, 2].map(|k| self.reads[k].column(x)),
        }
    }
}

/// One map column of a [`CurveReads`].
pub struct CurveColumn<'a> {
    curve: &'a Curve,
    fields: [PixelColumn<'a>; 3],
}

impl CurveColumn<'_> {
    /// The curve at map row `y`: [`Curve::column`] at the pixel's centre.
    #[inline]
    pub fn at(&self, y: usize) -> ColumnCurve {
        self.curve
            .column_of([0, 1, 2].map(|k| self.fields[k].at(y)))
    }
}

/// The curve of one column: knots (raw above sea) and their outputs (metres). The knots'
/// slopes are worked out where a segment is read (`ColumnCurve::tangent`): a pixel reads one
/// segment of the seven.
#[derive(Clone, Copy, Debug)]
pub struct ColumnCurve {
    xs: [f32; 7],
    ys: [f32; 7],
    spike_top: f32,
    cap: f32,
    tail: f32,
}

impl ColumnCurve {
    /// Knot positions with the K3/K4/K5 block shifted by `shift` (raw input height).
    #[inline]
    pub fn shifted_knots(&self, shift: f32) -> [f32; 7] {
        let mut xs = self.xs;
        xs[3] += shift;
        xs[4] += shift;
        xs[5] += shift;
        xs
    }

    /// Output metres above sea for raw height `a` above sea (`a > 0`), with the K3/K4/K5 block
    /// shifted by `shift` raw.
    #[inline]
    pub fn metres(&self, a: f32, shift: f32) -> f32 {
        let xs = self.shifted_knots(shift);
        if a >= xs[6] {
            let t = ((a - xs[6]) / (self.spike_top - xs[6])).clamp(0.0, 1.0);
            let y6 = self.ys[6];
            return y6 + (self.cap - y6) * (self.tail * t + (1.0 - self.tail) * t * t * t);
        }
        let mut i = 0;
        while i < 5 && a >= xs[i + 1] {
            i += 1;
        }
        let w = xs[i + 1] - xs[i];
        let t = ((a - xs[i]) / w).clamp(0.0, 1.0);
        let t2 = t * t;
        let t3 = t2 * t;
        let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
        let h10 = t3 - 2.0 * t2 + t;
        let h01 = -2.0 * t3 + 3.0 * t2;
        let h11 = t3 - t2;
        let (m0, m1) = (self.tangent(i), self.tangent(i + 1));
        h00 * self.ys[i] + h10 * w * m0 + h01 * self.ys[i + 1] + h11 * w * m1
    }

    /// The secant slope of segment `i` (knots `i`, `i + 1` unshifted).
    #[inline]
    fn secant(&self, i: usize) -> f32 {
        (self.ys[i + 1] - self.ys[i]) / (self.xs[i + 1] - self.xs[i])
    }

    /// The slope at knot `i`: the end segments' secants at the ends, else the harmonic mean of
    /// the neighbouring secants (≤ 2 × the smaller one; 0 where either is flat), so no Hermite
    /// segment overshoots its knots.
    #[inline]
    fn tangent(&self, i: usize) -> f32 {
        match i {
            0 => self.secant(0),
            6 => self.secant(5),
            _ => {
                let (a, b) = (self.secant(i - 1), self.secant(i));
                if a > 0.0 && b > 0.0 {
                    2.0 * a * b / (a + b)
                } else {
                    0.0
                }
            }
        }
    }

    /// How much of a shelf `a` sits on: 1 across the middle of the bench (K3…K4) and plateau
    /// (K5…K6), easing to 0 over the outer quarter of each, 0 elsewhere.
    #[inline]
    pub fn shelfness(&self, a: f32, shift: f32) -> f32 {
        let xs = self.shifted_knots(shift);
        let on = |lo: f32, hi: f32| {
            if a <= lo || a >= hi {
                return 0.0;
            }
            let t = (a - lo) / (hi - lo);
            crate::grid::noise::smoothstep(0.0, 0.25, t)
                * crate::grid::noise::smoothstep(1.0, 0.75, t)
        };
        on(xs[3], xs[4]).max(on(xs[5], xs[6]))
    }

    /// Output at the lowland ceiling (K1), metres.
    pub fn orange_ceil(&self) -> f32 {
        self.ys[1]
    }

    /// Output at K2, metres: the floor of everything the detail passes touch.
    pub fn red_ceil(&self) -> f32 {
        self.ys[2]
    }

    /// The summit cap, metres.
    pub fn cap(&self) -> f32 {
        self.cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve() -> Curve {
        Curve::new(BALANCED, 42, 1.2 - SEA_REF, SEA_REF)
    }

    #[test]
    fn pixel_reads_are_the_columns_bit_for_bit() {
        let c = curve();
        let n = 96;
        let reads = c.pixel_reads((n, n));
        for x in (0..n).step_by(7) {
            let column = reads.column(x);
            for y in 0..n {
                let u = crate::grid::noise::normalised(x, n);
                let exact = c.column(u, crate::grid::noise::normalised(y, n));
                let read = column.at(y);
                for a in [0.01, 0.1, 0.3, 0.6] {
                    let (r, e) = (read.metres(a, 0.0), exact.metres(a, 0.0));
                    assert_eq!(r.to_bits(), e.to_bits(), "({x}, {y}) at {a}");
                }
            }
        }
    }

    #[test]
    fn monotone_in_input_height_for_every_column_and_shift() {
        let c = curve();
        let bound = BALANCED.edge_max_shift_m() / METRES_PER_RAW;
        for k in 0..400 {
            let u = (k as f32 * 0.618_034).fract();
            let v = (k as f32 * 0.754_877_7).fract();
            let col = c.column(u, v);
            for shift in [-bound, -bound * 0.5, 0.0, bound * 0.7, bound] {
                let mut prev = 0.0f32;
                for i in 1..=4000 {
                    let a = i as f32 * (1.2 - SEA_REF) / 4000.0;
                    let m = col.metres(a, shift);
                    assert!(m > 0.0, "not strictly above sea at a = {a}");
                    assert!(
                        m >= prev - 1e-4,
                        "inverts at a = {a}, shift {shift}: {prev} → {m}"
                    );
                    assert!(m <= BALANCED.cap_m + 1e-3);
                    prev = m;
                }
            }
        }
    }

    #[test]
    fn the_highest_pixel_reaches_the_cap_and_shelves_sit_where_promised() {
        let c = curve();
        let col = c.column(0.5, 0.5);
        assert!((col.metres(1.2 - SEA_REF, 0.0) - 420.0).abs() < 1e-3);
        let xs = BALANCED.knots_above_sea();
        let bench = col.metres(0.5 * (xs[3] + xs[4]), 0.0);
        let plateau = col.metres(0.5 * (xs[5] + xs[6]), 0.0);
        assert!((88.0..=112.0).contains(&bench), "bench {bench}");
        assert!((200.0..=240.0).contains(&plateau), "plateau {plateau}");
        assert!((col.metres(xs[1], 0.0) - 30.0).abs() < 1e-3);
    }

    #[test]
    fn shift_leaves_the_curve_outside_the_shelf_stack_bit_identical() {
        let c = curve();
        let col = c.column(0.3, 0.6);
        let xs = BALANCED.knots_above_sea();
        let bound = BALANCED.edge_max_shift_m() / METRES_PER_RAW;
        for i in 1..=1000 {
            let a = i as f32 * 1.05 / 1000.0;
            if a <= xs[2] || a >= xs[6] {
                assert_eq!(col.metres(a, bound).to_bits(), col.metres(a, 0.0).to_bits());
            }
        }
    }

    #[test]
    fn the_band_squeeze_bound_covers_the_default_edge_variation() {
        assert!(BALANCED.edge_max_shift_m() >= 12.0);
    }
}
