//! Fine relief: the octaves of terrain a map of this size can hold and the island's noise stops
//! short of — rock and ground texture down to a few metres' wavelength at MapSize 8192.
//!
//! The island's base noise ends at its seventh octave (≈ 43 m wavelength), which a 1024 map
//! still resolves; a larger map would otherwise be a blurred enlargement. This stage continues
//! that noise's power law (amplitude halving per octave, radially averaged power ∝ k^−[`BETA`])
//! below it, as a field fixed in metres: a periodic tile of [`PERIOD_M`] metres synthesised by
//! one inverse FFT from per-wave-vector random phases. Each wave vector's amplitude and phase
//! are drawn from the seed and the wave vector alone, and a map keeps exactly the wave vectors
//! its pixels can hold (wavelength ≥ 2 px, never finer than [`FINEST_SAMPLE_M`] × 2): so a
//! smaller map's texture is the larger map's, low-passed, and nothing coarse changes.
//!
//! The elevation stage adds the texture to the height above sea *before* the height curve, as
//! further octaves of the base noise: the curve's gain then makes it rock on risers and slopes
//! and next to nothing on the flat shelves. The texture fades in over the first [`SHORE_RAMP_M`]
//! above sea and can never take a land pixel to the waterline; water, biomes, towns and every
//! classification read the untextured heights.

use rustfft::num_complex::Complex32;

use crate::grid::spectrum::fft2;
use crate::units::{self, METRES_PER_RAW, WORLD_SIZE_M};

/// The tile's period, metres: the texture repeats every this many metres in both directions.
pub const PERIOD_M: f32 = 1024.0;
/// The tile is never sampled finer than this (maps beyond 8192 read it bilinearly).
pub const FINEST_SAMPLE_M: f32 = 1.0;
/// The texture's power-law slope: radially averaged power ∝ k^−BETA, i.e. amplitude halving per
/// octave like the base noise's own octaves.
pub const BETA: f32 = 4.8;
/// Wavelengths at and above this are the base noise's; the texture tapers in below it.
pub const LONGEST_M: f32 = 27.0;
/// Wavelengths at and below this carry the texture's full amplitude.
pub const FULL_BELOW_M: f32 = 16.0;
/// Height above sea over which the texture fades in, metres.
pub const SHORE_RAMP_M: f32 = 2.0;
/// RMS (raw height units, before the curve) of the texture's octave at wavelength
/// [`FULL_BELOW_M`] at `amplitude` 1: the base noise's octave there, continued (calibrated with
/// `examples/spectrum`, BENCHMARKS.md).
const OCTAVE_RMS_RAW: f32 = 0.000_29;

/// The texture's dials.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureParams {
    /// The resolved seed.
    pub seed: i32,
    /// Pixels per side.
    pub map_size: usize,
    /// A multiplier on the power law's continuation (1 = the base noise's own law; 0 = none).
    pub amplitude: f32,
}

/// The texture of one seed at one MapSize: a periodic tile, raw height units.
#[derive(Clone, Debug)]
pub struct Texture {
    tile: Vec<f32>,
    side: usize,
    /// Metres per tile sample.
    sample_m: f32,
    /// Metres per map pixel.
    px_m: f32,
}

impl Texture {
    /// The texture for `p`, or `None` when the map is too coarse to hold any of its wavelengths
    /// or the amplitude is 0.
    pub fn new(p: &TextureParams) -> Option<Texture> {
        let px_m = units::metres_per_px(p.map_size);
        let k_max = k_max(p.map_size);
        let k_min = (PERIOD_M / LONGEST_M).ceil() as usize;
        if p.amplitude <= 0.0 || k_max <= k_min {
            return None;
        }
        let side = tile_side(p.map_size, k_max);
        Some(Texture {
            tile: synthesise(p.seed, p.amplitude, side, k_max),
            side,
            sample_m: PERIOD_M / side as f32,
            px_m,
        })
    }

    /// The texture at pixel (x, y), raw height units (bilinear between tile samples, which sit
    /// at the centres of the finest map's pixels).
    #[inline]
    pub fn at(&self, x: usize, y: usize) -> f32 {
        read_tile(&self.tile, self.side, self.px_m / self.sample_m, x, y)
    }

    /// `a` (raw height above sea, > 0) with the texture at (x, y) added: faded in over the
    /// first [`SHORE_RAMP_M`] and never taken below a quarter of `a`, so land stays land.
    #[inline]
    pub fn raise(&self, a: f32, x: usize, y: usize) -> f32 {
        let ramp = (a * METRES_PER_RAW / SHORE_RAMP_M).min(1.0);
        (a + ramp * self.at(x, y)).max(0.25 * a)
    }

    /// The tile's side, samples.
    pub fn side(&self) -> usize {
        self.side
    }
}

/// The tile of `side` samples (X outer) holding the wave vectors shorter than `k_max` cycles per
/// period: one inverse FFT of the seeded coefficients.
fn synthesise(seed: i32, amplitude: f32, side: usize, k_max: usize) -> Vec<f32> {
    synthesise_tile(side, k_max, amplitude, |kx, ky| coefficient(seed, kx, ky, k_max))
}

/// The wave numbers (cycles per [`PERIOD_M`]) a map of `map_size` pixels holds lie below this:
/// wavelength ≥ 2 pixels, and ≥ 2 of the finest samples.
pub(crate) fn k_max(map_size: usize) -> usize {
    let px_m = units::metres_per_px(map_size);
    (PERIOD_M / (2.0 * px_m.max(FINEST_SAMPLE_M))) as usize
}

/// Samples a side of a [`PERIOD_M`] tile for a map of `map_size` pixels holding wave numbers
/// below `k_max`. The tile samples a period at the map's own pixel spacing (MapSize / 8
/// samples, any length the FFT takes), so its samples are the pixels; beyond 8192 at the finest
/// spacing, read bilinearly; and for a MapSize that is no multiple of 8, twice finer than the
/// next power of two, read bilinearly too.
pub(crate) fn tile_side(map_size: usize, k_max: usize) -> usize {
    let (period, world) = (PERIOD_M as usize, WORLD_SIZE_M as usize);
    if units::metres_per_px(map_size) < FINEST_SAMPLE_M {
        (PERIOD_M / FINEST_SAMPLE_M) as usize
    } else if (map_size * period).is_multiple_of(world) {
        map_size * period / world
    } else {
        2 * (2 * k_max).next_power_of_two()
    }
}

/// The periodic tile of `side` samples (X outer) whose wave vector (kx, ky), |k| < `k_max`
/// cycles per period, has the complex amplitude `amplitude` × `coefficient(kx, ky)` (none: 0):
/// one inverse FFT. Sample j sits at (j + ½) samples, so a map of any size reads the same field
/// at its pixel centres.
pub(crate) fn synthesise_tile(
    side: usize,
    k_max: usize,
    amplitude: f32,
    coefficient: impl Fn(i64, i64) -> Option<Complex32>,
) -> Vec<f32> {
    let mut buffer = vec![Complex32::default(); side * side];
    let half = k_max as i64;
    for kx in -half..half {
        for ky in -half..half {
            let Some(c) = coefficient(kx, ky) else {
                continue;
            };
            // Sample j sits at (j + ½) samples, so its phase is k · position minus half a
            // sample's worth: put that back, or maps of different sizes would disagree.
            let half_sample = std::f32::consts::PI * (kx + ky) as f32 / side as f32;
            let (i, j) = (wrap(ky, side), wrap(kx, side));
            buffer[i * side + j] = c * Complex32::from_polar(amplitude, half_sample);
        }
    }
    fft2(&mut buffer, side, true);
    // Row-major (y, x) → the tile is indexed [x * side + y] like the maps.
    let mut tile = vec![0.0f32; side * side];
    for y in 0..side {
        for x in 0..side {
            tile[x * side + y] = buffer[y * side + x].re;
        }
    }
    tile
}

/// A periodic tile of `side` samples read at map pixel (x, y), `scale` = samples per pixel:
/// bilinear between the samples, which sit at the centres of the finest map's pixels.
#[inline]
pub(crate) fn read_tile(tile: &[f32], side: usize, scale: f32, x: usize, y: usize) -> f32 {
    if scale == 1.0 && side.is_power_of_two() {
        // A sample per pixel: the bilinear read below is exactly this sample.
        let m = side - 1;
        return tile[(x & m) * side + (y & m)];
    }
    let fx = (x as f32 + 0.5) * scale - 0.5;
    let fy = (y as f32 + 0.5) * scale - 0.5;
    let (x0, y0) = (fx.floor(), fy.floor());
    let (tx, ty) = (fx - x0, fy - y0);
    let n = side as i64;
    let (i0, j0) = ((x0 as i64).rem_euclid(n), (y0 as i64).rem_euclid(n));
    let (i1, j1) = ((i0 + 1) % n, (j0 + 1) % n);
    let at = |i: i64, j: i64| tile[i as usize * side + j as usize];
    let top = at(i0, j0) * (1.0 - ty) + at(i0, j1) * ty;
    let bottom = at(i1, j0) * (1.0 - ty) + at(i1, j1) * ty;
    top * (1.0 - tx) + bottom * tx
}

/// Index of signed wave number `k` in an FFT buffer of `n`.
fn wrap(k: i64, n: usize) -> usize {
    k.rem_euclid(n as i64) as usize
}

/// The complex amplitude of wave vector (kx, ky) (cycles per period), or `None` outside the
/// texture's band or beyond `k_max`. Drawn from the seed and the wave vector alone, so every
/// MapSize agrees on the wave vectors they share.
fn coefficient(seed: i32, kx: i64, ky: i64, k_max: usize) -> Option<Complex32> {
    let k = ((kx * kx + ky * ky) as f32).sqrt();
    if k < 1.0 || k >= k_max as f32 {
        return None;
    }
    let wavelength = PERIOD_M / k;
    if wavelength >= LONGEST_M {
        return None;
    }
    let taper = if wavelength <= FULL_BELOW_M {
        1.0
    } else {
        let t = (wavelength - FULL_BELOW_M) / (LONGEST_M - FULL_BELOW_M);
        0.5 + 0.5 * (std::f32::consts::PI * t).cos()
    };
    // |c| ∝ k^−β/2 and an octave [k, 2k] holds ≈ 3πk² wave vectors, each contributing |c|²/2
    // of variance: so the octave at k_full has RMS OCTAVE_RMS_RAW when
    // |c|² = 2 · RMS² · k_full^β / (3π k_full²) · k^−β.
    let k_full = PERIOD_M / FULL_BELOW_M;
    let norm = (2.0 * OCTAVE_RMS_RAW * OCTAVE_RMS_RAW * k_full.powf(BETA)
        / (3.0 * std::f32::consts::PI * k_full * k_full))
        .sqrt();
    let amplitude = norm * k.powf(-BETA / 2.0) * taper;
    Some(seeded_coefficient(seed, "texture", 0, kx, ky, amplitude))
}

/// Wave vector (kx, ky) of tile `tile` of `stage` with magnitude `amplitude` and a phase drawn
/// from the seed, the stage, the tile and the wave vector alone (the per-item key: the tile
/// above bit 40, kx + 2¹⁵ and ky + 2¹⁵ in the two 16-bit fields under it).
pub(crate) fn seeded_coefficient(
    seed: i32,
    stage: &str,
    tile: u64,
    kx: i64,
    ky: i64,
    amplitude: f32,
) -> Complex32 {
    let index = tile << 40 | ((kx + 32_768) as u64) << 16 | (ky + 32_768) as u64;
    let phase = crate::seed::item_unit(seed, stage, index) * std::f32::consts::TAU;
    Complex32::from_polar(amplitude, phase)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::spectrum::correlation;

    fn texture(map_size: usize) -> Option<Texture> {
        Texture::new(&TextureParams {
            seed: 7,
            map_size,
            amplitude: 1.0,
        })
    }

    #[test]
    fn a_small_map_holds_no_texture_and_a_large_one_a_metre_tile() {
        assert!(
            texture(256).is_none(),
            "32 m pixels hold nothing below 45 m"
        );
        assert_eq!(texture(1024).unwrap().side(), 128);
        assert_eq!(texture(8192).unwrap().side(), 1024);
        assert_eq!(texture(32768).unwrap().side(), 1024, "never finer than 1 m");
    }

    /// Every accepted MapSize gets its texture (640 and 3000 got none: MapSize / 8 is no power
    /// of two), holding the wave vectors its pixels can: between its power-of-two neighbours',
    /// and the 8192 map's own texture without the waves it cannot hold.
    #[test]
    fn every_map_size_gets_the_texture_its_pixels_hold() {
        let rms = |t: &Texture, n: usize| {
            let samples = (0..n).flat_map(|x| (0..n).map(move |y| (x, y)));
            let s: f64 = samples.map(|(x, y)| f64::from(t.at(x, y)).powi(2)).sum();
            (s / (n * n) as f64).sqrt()
        };
        // A MapSize that is no multiple of 8 reads a finer power-of-two tile.
        assert_eq!(texture(1001).map(|t| t.side()), Some(256));
        let fine = texture(8192).unwrap();
        for (size, below, above) in [(640, 512, 1024), (1000, 512, 1024), (3000, 2048, 4096)] {
            let t = texture(size).unwrap_or_else(|| panic!("{size}: no texture"));
            // The same 1024 m (one period), sampled at each map's own pixels (512's 16 m
            // pixels hold none of the texture).
            let px = |n: usize| (1024.0 / units::metres_per_px(n)) as usize;
            let of = |n: usize| texture(n).map_or(0.0, |t| rms(&t, px(n)));
            let (r, r_lo, r_hi) = (rms(&t, px(size)), of(below), of(above));
            assert!(
                r_lo < r && r < 1.05 * r_hi,
                "{size}: RMS {r} not between {r_lo} and {r_hi}"
            );
            // And it is the 8192 map's tile keeping only this map's wave vectors, read at this
            // map's pixel centres.
            let k_max = (PERIOD_M / (2.0 * t.px_m)) as usize;
            let shared = Texture {
                tile: synthesise(7, 1.0, 1024, k_max),
                px_m: t.px_m,
                ..fine.clone()
            };
            let n = px(size);
            let samples = (0..n).flat_map(|x| (0..n).map(move |y| (x, y)));
            let sq: f64 = samples
                .map(|(x, y)| f64::from(t.at(x, y) - shared.at(x, y)).powi(2))
                .sum();
            let off = (sq / (n * n) as f64).sqrt();
            // What is left is the bilinear read between the tile's samples.
            assert!(
                off < 0.1 * r,
                "{size}: off the 8192 tile by RMS {off} (RMS {r})"
            );
        }
    }

    /// A smaller map's texture is the larger map's without the wave vectors it cannot hold: the
    /// 1024 map's texture equals, at its pixel centres, an 8192 tile of the same seed keeping only
    /// the 1024 map's wave vectors; the 8192 map's own texture adds power below 16 m.
    #[test]
    fn a_smaller_map_texture_is_the_larger_one_low_passed() {
        let coarse = texture(1024).unwrap();
        let fine = texture(8192).unwrap();
        let shared = Texture {
            tile: synthesise(7, 1.0, 1024, 64),
            ..fine.clone()
        };
        let mut worst = 0.0f32;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for x in 0..128 {
            for y in 0..128 {
                // The 1024 pixel's centre lies between four 8192 pixels.
                let (i, j) = (8 * x + 3, 8 * y + 3);
                let centre = (shared.at(i, j)
                    + shared.at(i + 1, j)
                    + shared.at(i, j + 1)
                    + shared.at(i + 1, j + 1))
                    / 4.0;
                worst = worst.max((centre - coarse.at(x, y)).abs());
                a.push(coarse.at(x, y));
                b.push(fine.at(i, j));
            }
        }
        let rms = |t: &Texture, n: usize| {
            let mut s = 0.0f64;
            for x in 0..n {
                for y in 0..n {
                    s += f64::from(t.at(x, y)).powi(2);
                }
            }
            (s / (n * n) as f64).sqrt() as f32
        };
        let coarse_rms = rms(&coarse, 128);
        assert!(
            worst < 0.02 * coarse_rms * 4.0,
            "worst {worst} against RMS {coarse_rms}"
        );
        assert!(
            correlation(&a, &b) > 0.6,
            "the fine map keeps the coarse map's texture"
        );
        assert!(
            rms(&fine, 1024) > 1.1 * coarse_rms,
            "the fine map adds power"
        );
    }

    #[test]
    fn the_texture_never_takes_land_to_the_waterline() {
        let t = texture(8192).unwrap();
        let big = Texture {
            tile: t.tile.iter().map(|v| v * 1e4).collect(),
            ..t
        };
        for x in 0..64 {
            for y in 0..64 {
                for a in [1e-6f32, 1e-4, 0.004, 0.1] {
                    assert!(big.raise(a, x, y) > 0.0);
                }
            }
        }
    }
}
