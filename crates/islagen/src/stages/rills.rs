//! Rills: the relief below the landscape grid, on the carved hillslopes, running down them.
//!
//! The fluvial relief is solved on 8 m cells and reaches the map through a smooth spline, so
//! at 1 m a valley wall is a smooth sheet. Real hillslopes at that scale are scored by rills and
//! gullies that run straight down the slope, deeper the steeper the ground (and gone on the
//! flats). This module makes that relief: a field of ridges and
//! furrows whose crests run down the local slope, [`DEPTH_M`] deep (RMS) where the slope is
//! moderate to steep, none on ground gentler than [`ONSET`] and less on the walls laid back to
//! the critical slope (rills there would stand them steeper than soil holds).
//!
//! **How.** [`BINS`] periodic tiles of [`PERIOD_M`] metres, each holding the wave vectors within
//! about [`SPREAD_DEG`] of one heading (a band of wavelengths [`SHORTEST_M`]–[`LONGEST_M`],
//! power ∝ k^−[`BETA`]), each normalised to RMS 1 over the whole band: a field of furrows
//! crossing that heading. At a pixel, the slope's contour heading (from the carved grid, as a
//! doubled angle so opposite headings agree) picks the two tiles either side of it, blended so
//! the RMS stays 1; the furrows then run down the slope. Each wave vector's phase is drawn from
//! the seed, the tile and the wave vector alone, and a map keeps the wave vectors its pixels
//! hold (wavelength ≥ 2 px): a smaller map's rills are the larger map's, low-passed, and a map
//! of 16 m pixels has none.
//!
//! **Guarantees.** The rills add to the carve (they deepen or fill a little of what the valleys
//! took, fading out where the valleys cut less than [`FULL_CARVE_M`]), so they never raise land
//! above its design, never touch the sea, the crater's core or ground the valleys left alone,
//! and the same seed gives the same rills at every MapSize that resolves them, on any thread
//! count.

use ndarray::Array2;
use rayon::prelude::*;
use rustfft::num_complex::Complex32;

use super::texture::{k_max, read_tile, seeded_coefficient, tile_side, PERIOD_M};
use crate::grid::spectrum::inverse_fft2_band;
use crate::units;

/// RMS depth of the rills where their weight is full, metres (at FineRelief 1): in 1 km massif
/// windows of a metre map, a median 0.19 % of the height variance then lies at wavelengths
/// under 32 m (0.02 % without), while no more than 15 % of the land above 110 m stands steeper
/// than 40° over 8 m (deeper rills tip the walls over it; BENCHMARKS.md, "Rills").
pub const DEPTH_M: f32 = 3.75;
/// The shortest rill wavelength, metres.
pub const SHORTEST_M: f32 = 6.0;
/// The longest, metres: the carve's own cells resolve what is longer.
pub const LONGEST_M: f32 = 32.0;
/// Power ∝ k^−BETA across the band.
pub const BETA: f32 = 4.0;
/// Headings the tiles hold.
pub const BINS: usize = 8;
/// The angular spread of a tile's wave vectors around its heading, degrees (σ of a Gaussian):
/// how far a furrow wanders from the fall line.
pub const SPREAD_DEG: f32 = 10.0;
/// Rills begin on slopes of this (none below the first, full from the second), m/m.
pub const ONSET: (f32, f32) = (0.15, 0.4);
/// ... and fade over these slopes to [`STEEP_SHARE`] of their depth: the walls laid back to the
/// critical slope 0.7 keep their angle within a few degrees.
pub const STEEP_FADE: (f32, f32) = (0.55, 0.75);
/// The share of the depth left on the steepest walls.
pub const STEEP_SHARE: f32 = 0.3;
/// The rills take their full depth where the valleys cut at least this deep, metres, and fade
/// to none where they cut nothing: ground the valleys left alone (the design's own scarps,
/// the coast) keeps its heights.
pub const FULL_CARVE_M: f32 = 2.0;

/// The rills' dials.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RillParams {
    /// The resolved seed.
    pub seed: i32,
    /// Pixels per side of the map.
    pub map_size: usize,
    /// RMS depth at full weight, metres (0 = none).
    pub depth_m: f32,
}

/// The rill tiles of one seed at one MapSize.
#[derive(Clone, Debug)]
pub struct Rills {
    /// [`BINS`] tiles, RMS 1 over the whole band, each `side`² (X outer).
    tiles: Vec<Vec<f32>>,
    side: usize,
    /// Tile samples per map pixel.
    scale: f32,
    depth_m: f32,
    /// Each tile's heading as a doubled angle (cos 2θ, sin 2θ).
    headings: [[f32; 2]; BINS],
}

impl Rills {
    /// The rills for `p`, or `None` when the map's pixels hold none of their wavelengths or the
    /// depth is 0.
    pub fn new(p: &RillParams) -> Option<Rills> {
        let k_max = k_max(p.map_size).min(k_of(SHORTEST_M).floor() as usize + 1);
        if p.depth_m <= 0.0 || (k_max as f32) <= k_of(LONGEST_M) {
            return None;
        }
        let side = tile_side(p.map_size, k_max);
        // Each tile's variance over the band, once for each heading the grid's symmetries
        // tell apart.
        let class = [0, 1, 2].map(|b| band_variance(b).sqrt().recip());
        let norm = |b: usize| class[symmetric(b)];
        let tiles = (0..BINS / 2)
            .into_par_iter()
            .flat_map_iter(|pair| {
                let bins = [2 * pair, 2 * pair + 1];
                let [a, b] = synthesise_pair(p.seed, bins, bins.map(norm), side, k_max);
                [a, b]
            })
            .collect();
        Some(Rills {
            tiles,
            side,
            scale: units::metres_per_px(p.map_size) * side as f32 / PERIOD_M,
            depth_m: p.depth_m,
            headings: std::array::from_fn(|b| {
                let a = 2.0 * heading(b);
                [a.cos(), a.sin()]
            }),
        })
    }

    /// The rills' depth at map pixel (x, y), metres (positive: a furrow), where the valleys
    /// cut `carve_m` metres ([`FULL_CARVE_M`]) and the slope's weighted contour heading is
    /// `dir` = weight × (cos 2θ, sin 2θ) (see [`heading_field`]).
    #[inline]
    pub fn on_carve(&self, x: usize, y: usize, dir: [f32; 2], carve_m: f32) -> f32 {
        let fade = (carve_m / FULL_CARVE_M).clamp(0.0, 1.0);
        if fade <= 0.0 {
            return 0.0;
        }
        fade * self.at(x, y, dir)
    }

    /// The rills' depth at map pixel (x, y) on fully carved ground, metres.
    #[inline]
    pub fn at(&self, x: usize, y: usize, dir: [f32; 2]) -> f32 {
        let squared = dir[0] * dir[0] + dir[1] * dir[1];
        if squared <= 1e-8 {
            return 0.0;
        }
        let weight = squared.sqrt();
        let u = [dir[0] / weight, dir[1] / weight];
        // Each tile's share: how close its heading lies, zero from half a bin away (so at
        // most two tiles), the shares' squares summing to 1 (independent fields: RMS 1).
        let reach = (std::f32::consts::PI / BINS as f32 * 2.0).cos();
        let (mut sum, mut norm) = (0.0f32, 0.0f32);
        for (b, h) in self.headings.iter().enumerate() {
            let share = (u[0] * h[0] + u[1] * h[1] - reach).max(0.0);
            if share > 0.0 {
                sum += share * read_tile(&self.tiles[b], self.side, self.scale, x, y);
                norm += share * share;
            }
        }
        if norm <= 0.0 {
            return 0.0;
        }
        self.depth_m * weight.min(1.0) * sum / norm.sqrt()
    }
}

/// The weighted contour heading of every cell of a landscape grid `h` (metres above sea,
/// `n`², X outer, cells of `cell_m`): weight × (cos 2θ, sin 2θ), θ the contour's heading, the
/// weight from the slope ([`ONSET`], [`STEEP_FADE`]) times `keep` (the carve's share there: 0
/// in the crater's core and on fixed cells). Two grids, the doubled angle's cosine and sine.
pub fn heading_field(h: &[f32], keep: &[f32], n: usize, cell_m: f32) -> [Array2<f32>; 2] {
    let mut field = [Array2::zeros((n, n)), Array2::zeros((n, n))];
    let [cos, sin] = &mut field;
    let at = |x: usize, y: usize| h[x * n + y];
    cos.outer_iter_mut()
        .into_par_iter()
        .zip(sin.outer_iter_mut())
        .enumerate()
        .for_each(|(x, (mut cos, mut sin))| {
            for y in 0..n {
                let (x0, x1, y0, y1) = (x.saturating_sub(1), (x + 1).min(n - 1), y.saturating_sub(1), (y + 1).min(n - 1));
                let gx = (at(x1, y) - at(x0, y)) / (cell_m * (x1 - x0) as f32);
                let gy = (at(x, y1) - at(x, y0)) / (cell_m * (y1 - y0) as f32);
                let s2 = gx * gx + gy * gy;
                let w = slope_weight(s2.sqrt()) * keep[x * n + y];
                if w <= 0.0 || at(x, y) <= 0.0 {
                    continue;
                }
                // The contour runs along (−gy, gx): cos 2θ = (gy² − gx²)/|g|², sin 2θ =
                // −2 gx gy/|g|².
                cos[y] = w * (gy * gy - gx * gx) / s2;
                sin[y] = w * (-2.0 * gx * gy) / s2;
            }
        });
    field
}

/// The rills' weight on a slope of `s` m/m.
pub fn slope_weight(s: f32) -> f32 {
    let smooth = |(a, b): (f32, f32), v: f32| {
        let t = ((v - a) / (b - a)).clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    };
    smooth(ONSET, s) * (1.0 - (1.0 - STEEP_SHARE) * smooth(STEEP_FADE, s))
}

/// Wave number (cycles per period) of a wavelength, metres.
fn k_of(wavelength_m: f32) -> f32 {
    PERIOD_M / wavelength_m
}

/// Tile `b`'s heading, radians in [0, π): the wave vectors' direction, across the furrows.
fn heading(b: usize) -> f32 {
    std::f32::consts::PI * b as f32 / BINS as f32
}

/// The real amplitude of wave vector (kx, ky) in tile `b` (before normalising), or `None`
/// outside the band.
fn amplitude(b: usize, kx: i64, ky: i64) -> Option<f32> {
    let k = ((kx * kx + ky * ky) as f32).sqrt();
    if k < k_of(LONGEST_M) || k > k_of(SHORTEST_M) {
        return None;
    }
    // The angle between the wave vector and the heading, folded into [−π/2, π/2).
    let half = std::f32::consts::FRAC_PI_2;
    let d = (ky as f32).atan2(kx as f32) - heading(b);
    let d = (d + half).rem_euclid(std::f32::consts::PI) - half;
    let spread = SPREAD_DEG.to_radians();
    Some(k.powf(-BETA / 2.0) * (-0.5 * (d / spread).powi(2)).exp())
}

/// Two tiles, `bins`, of `side` samples (X outer) holding the wave vectors |k| < `k_max`, each
/// scaled by its `norms` (to RMS 1 over the whole band): one inverse FFT for both. A tile is the real part of
/// its seeded waves, Σ c_k e^{ik·x}; that is the inverse FFT of the Hermitian spectrum
/// H(k) = (c_k + conj c_−k) / 2, whose transform is real, so the pair's spectrum
/// H_a + i H_b transforms to tile_a + i tile_b. Sample j sits at (j + ½) samples, so a map of any
/// size reads the same field at its pixel centres.
fn synthesise_pair(
    seed: i32,
    bins: [usize; 2],
    norms: [f32; 2],
    side: usize,
    k_max: usize,
) -> [Vec<f32>; 2] {
    let half = k_max as i64;
    let wave = |b: usize, norm: f32, kx: i64, ky: i64| {
        let held = ((kx * kx + ky * ky) as f32).sqrt() < k_max as f32;
        let c = held.then(|| coefficient(seed, b, kx, ky)).flatten();
        // Put back half a sample's phase, so sample j reads the wave at (j + ½).
        let half_sample = std::f32::consts::PI * (kx + ky) as f32 / side as f32;
        c.map_or(Complex32::default(), |c| {
            c * Complex32::from_polar(norm, half_sample)
        })
    };
    let mut buffer = vec![Complex32::default(); side * side];
    let wrap = |k: i64| k.rem_euclid(side as i64) as usize;
    for kx in -half..half {
        for ky in -half..half {
            let [h_a, h_b] = [0, 1].map(|t| {
                let (b, norm) = (bins[t], norms[t]);
                (wave(b, norm, kx, ky) + wave(b, norm, -kx, -ky).conj()) * 0.5
            });
            buffer[wrap(ky) * side + wrap(kx)] = h_a + Complex32::new(0.0, 1.0) * h_b;
        }
    }
    inverse_fft2_band(&mut buffer, side, k_max);
    // Row-major (y, x) → the tiles are indexed [x * side + y] like the maps.
    let mut tiles = [vec![0.0f32; side * side], vec![0.0f32; side * side]];
    for y in 0..side {
        for x in 0..side {
            let v = buffer[y * side + x];
            tiles[0][x * side + y] = v.re;
            tiles[1][x * side + y] = v.im;
        }
    }
    tiles
}

/// The tile whose heading the grid's symmetries (a quarter turn, the mirrors) map tile `b`'s
/// onto, among tiles 0, 1 and 2: their bands hold the same wave vectors, turned.
fn symmetric(b: usize) -> usize {
    const { assert!(BINS == 8) };
    if b % 2 == 1 {
        1
    } else {
        b % 4
    }
}

/// Tile `b`'s variance over the whole band with unit coefficients' amplitudes: each wave vector
/// adds |c|²/2 (the real part of a complex wave).
fn band_variance(b: usize) -> f32 {
    let k = k_of(SHORTEST_M).ceil() as i64;
    let mut v = 0.0f64;
    for kx in -k..=k {
        for ky in -k..=k {
            if let Some(a) = amplitude(b, kx, ky) {
                v += f64::from(a * a) / 2.0;
            }
        }
    }
    v as f32
}

/// Tile `b`'s complex amplitude of wave vector (kx, ky): [`amplitude`] and a phase drawn from
/// the seed, the tile and the wave vector.
fn coefficient(seed: i32, b: usize, kx: i64, ky: i64) -> Option<Complex32> {
    let a = amplitude(b, kx, ky)?;
    Some(seeded_coefficient(seed, "rills", b as u64, kx, ky, a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::spectrum::correlation;

    fn rills(map_size: usize) -> Option<Rills> {
        Rills::new(&RillParams {
            seed: 7,
            map_size,
            depth_m: 1.0,
        })
    }

    /// The doubled-angle heading of a slope falling toward (gx, gy), full weight.
    fn down(gx: f32, gy: f32) -> [f32; 2] {
        let s2 = gx * gx + gy * gy;
        [(gy * gy - gx * gx) / s2, -2.0 * gx * gy / s2]
    }

    /// Mean |difference| of the rills one step (dx, dy) apart, over a 256² block.
    fn roughness(r: &Rills, dir: [f32; 2], (dx, dy): (isize, isize)) -> f32 {
        let mut sum = 0.0;
        for x in 1..257 {
            for y in 1..257 {
                let (u, v) = ((x as isize + dx) as usize, (y as isize + dy) as usize);
                sum += (r.at(u, v, dir) - r.at(x, y, dir)).abs();
            }
        }
        sum / (256.0 * 256.0)
    }

    #[test]
    fn the_rills_run_down_the_slope_at_every_heading() {
        let r = rills(8192).unwrap();
        for (gx, gy) in [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, -0.4), (-0.3, 1.0)] {
            let dir = down(gx, gy);
            // The grid step nearest the fall line, and the one across it.
            let steps = [(1, 0), (1, 1), (0, 1), (-1, 1)];
            let nearest = |(sx, sy): (isize, isize)| {
                let len = ((sx * sx + sy * sy) as f32).sqrt() * gx.hypot(gy);
                -(sx as f32 * gx + sy as f32 * gy).abs() / len
            };
            let k = (0..4)
                .min_by(|&a, &b| nearest(steps[a]).total_cmp(&nearest(steps[b])))
                .unwrap();
            let along = roughness(&r, dir, steps[k]);
            let across = roughness(&r, dir, steps[(k + 2) % 4]);
            assert!(
                across > 2.0 * along,
                "slope ({gx}, {gy}): across {across} against along {along}"
            );
        }
    }

    #[test]
    fn their_depth_is_the_dial_at_full_weight_and_none_without_weight() {
        let r = rills(8192).unwrap();
        for dir in [down(1.0, 0.0), down(1.0, 1.0), down(1.0, 0.4)] {
            let mut sq = 0.0f64;
            for x in 0..1024 {
                for y in (0..1024).step_by(4) {
                    sq += f64::from(r.at(x, y, dir)).powi(2);
                }
            }
            let rms = (sq / (1024.0 * 256.0)).sqrt();
            assert!((rms - 1.0).abs() < 0.15, "RMS {rms} at heading {dir:?}");
            let half = [dir[0] * 0.5, dir[1] * 0.5];
            assert!((r.at(10, 20, half) - 0.5 * r.at(10, 20, dir)).abs() < 1e-5);
        }
        assert_eq!(r.at(10, 20, [0.0, 0.0]), 0.0);
    }

    #[test]
    fn a_smaller_map_holds_the_larger_map_rills_low_passed() {
        assert!(rills(512).is_none(), "16 m pixels hold nothing under 32 m");
        let (coarse, fine) = (rills(2048).unwrap(), rills(8192).unwrap());
        let dir = down(1.0, 0.3);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for x in 0..200 {
            for y in 0..200 {
                // The 2048 pixel's centre is the corner shared by four 8192 pixels.
                let (i, j) = (4 * x + 1, 4 * y + 1);
                let mean = (fine.at(i, j, dir)
                    + fine.at(i + 1, j, dir)
                    + fine.at(i, j + 1, dir)
                    + fine.at(i + 1, j + 1, dir))
                    / 4.0;
                a.push(coarse.at(x, y, dir));
                b.push(mean);
            }
        }
        assert!(correlation(&a, &b) > 0.8, "{}", correlation(&a, &b));
    }

    /// A MapSize that is no multiple of 8, or finer than a metre, reads the 1 m tile between its
    /// samples: the same rills.
    #[test]
    fn every_map_size_reads_the_same_rills() {
        let fine = rills(8192).unwrap();
        let dir = down(0.4, 1.0);
        for (size, per_m) in [(16384, 2.0f32), (3000, 3000.0 / 8192.0)] {
            let r = rills(size).unwrap_or_else(|| panic!("{size}: no rills"));
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for x in 0..150 {
                for y in 0..150 {
                    // The pixel whose centre is nearest the 1 m pixel (3x + 7, 3y + 7)'s centre.
                    let at = |i: usize| ((i as f32 + 0.5) * per_m).floor() as usize;
                    let (i, j) = (3 * x + 7, 3 * y + 7);
                    a.push(r.at(at(i), at(j), dir));
                    b.push(fine.at(i, j, dir));
                }
            }
            let c = correlation(&a, &b);
            assert!(c > 0.6, "{size}: correlation {c} with 8192's rills");
        }
    }

    #[test]
    fn the_heading_field_weighs_slopes_and_follows_the_contour() {
        let n = 16;
        // A plane falling 0.5 m/m toward +x (metres above sea), a flat shelf at x < 4.
        let h: Vec<f32> = (0..n * n)
            .map(|i| {
                let x = (i / n) as f32;
                100.0 - 0.5 * 8.0 * x.max(4.0)
            })
            .collect();
        let mut keep = vec![1.0; n * n];
        keep[10 * n + 5] = 0.0;
        let [c, s] = heading_field(&h, &keep, n, 8.0);
        // On the plane the contour runs along y: θ = ±90°, so cos 2θ = −1 and sin 2θ = 0.
        let w = slope_weight(0.5);
        assert!((c[[8, 8]] + w).abs() < 1e-5 && s[[8, 8]].abs() < 1e-5);
        assert_eq!((c[[1, 8]], s[[1, 8]]), (0.0, 0.0), "no rills on the flat");
        assert_eq!((c[[10, 5]], s[[10, 5]]), (0.0, 0.0), "none where the carve is kept off");
        assert_eq!(slope_weight(0.1), 0.0);
        assert!((slope_weight(0.45) - 1.0).abs() < 1e-6);
        assert!((slope_weight(1.0) - STEEP_SHARE).abs() < 1e-6);
    }
}
