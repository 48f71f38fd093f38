//! Radially averaged power spectra of square windows of a field: how much relief a height map
//! holds at each wavelength; and the correlation of two fields ([`correlation`]), with which
//! fields made at different MapSizes are compared. The terrain's detail is measured with it — a
//! natural surface's spectrum follows one power law, P(k) ∝ k^−β, and a map that is a blurred
//! enlargement falls off below the wavelength its coarse octaves stop at.
//!
//! The FFT is rustfft's scalar planner: its plan depends on the length alone, never on the CPU's
//! vector units, so the same input gives the same bits on every machine (the fine-relief stage's
//! synthesis relies on it).

use ndarray::{Array2, ArrayView2};
use rustfft::num_complex::Complex32;
use rustfft::FftPlannerScalar;

/// In-place 2D FFT of a `side` × `side` row-major buffer; `inverse` picks the direction
/// (unnormalised both ways).
pub fn fft2(buffer: &mut [Complex32], side: usize, inverse: bool) {
    assert_eq!(buffer.len(), side * side, "fft2 needs side² values");
    let mut planner = FftPlannerScalar::<f32>::new();
    let fft = match inverse {
        true => planner.plan_fft_inverse(side),
        false => planner.plan_fft_forward(side),
    };
    fft.process(buffer); // every row
    transform_columns(buffer, side, fft.as_ref());
}

/// `fft` applied to every column of the row-major `side`² `buffer`.
fn transform_columns(buffer: &mut [Complex32], side: usize, fft: &dyn rustfft::Fft<f32>) {
    let mut column = vec![Complex32::default(); side];
    for x in 0..side {
        for (y, c) in column.iter_mut().enumerate() {
            *c = buffer[y * side + x];
        }
        fft.process(&mut column);
        for (y, c) in column.iter().enumerate() {
            buffer[y * side + x] = *c;
        }
    }
}

/// The inverse 2D FFT of a spectrum that is zero outside wave numbers |k| < `k_max` on both
/// axes (row-major, `side` a side): the same as [`fft2`]'s inverse, but the row pass skips the
/// rows that hold nothing (a band-limited tile's rows are mostly empty).
pub fn inverse_fft2_band(buffer: &mut [Complex32], side: usize, k_max: usize) {
    assert_eq!(buffer.len(), side * side, "fft2 needs side² values");
    let fft = FftPlannerScalar::<f32>::new().plan_fft_inverse(side);
    for (i, row) in buffer.chunks_exact_mut(side).enumerate() {
        if i < k_max || i + k_max > side {
            fft.process(row);
        }
    }
    transform_columns(buffer, side, fft.as_ref());
}

/// A radially averaged power spectrum: mean |F(k)|² over annuli of the wave number, binned in
/// quarter octaves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spectrum {
    /// Each bin's central wavelength, pixels.
    pub wavelength_px: Vec<f64>,
    /// Each bin's mean power (squared field units × pixels², summed over windows' means).
    pub power: Vec<f64>,
}

impl Spectrum {
    /// The least-squares power law P ∝ λ^β through the bins with wavelength in [lo, hi] px:
    /// returns (β, log10 of the prefactor). β is the spectral slope (P ∝ k^−β).
    pub fn fit(&self, lo: f64, hi: f64) -> Option<(f64, f64)> {
        let points: Vec<(f64, f64)> = self
            .wavelength_px
            .iter()
            .zip(&self.power)
            .filter(|(l, p)| (lo..=hi).contains(*l) && **p > 0.0)
            .map(|(l, p)| (l.log10(), p.log10()))
            .collect();
        if points.len() < 2 {
            return None;
        }
        let n = points.len() as f64;
        let (sx, sy) = points
            .iter()
            .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
        let (mx, my) = (sx / n, sy / n);
        let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
            (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
        });
        let beta = sxy / sxx;
        Some((beta, my - beta * mx))
    }

    /// The measured power over the power law `(beta, log_prefactor)` predicts, at each bin.
    pub fn against(&self, (beta, log_a): (f64, f64)) -> Vec<(f64, f64)> {
        self.wavelength_px
            .iter()
            .zip(&self.power)
            .map(|(&l, &p)| (l, p / 10f64.powf(log_a + beta * l.log10())))
            .collect()
    }
}

/// The mean radially averaged power spectrum of `windows` (each square, the same side, a power
/// of two): each window has its mean removed and a Hann taper applied before the FFT.
pub fn radial_power<'a>(windows: impl IntoIterator<Item = ArrayView2<'a, f32>>) -> Spectrum {
    let mut sums: Vec<f64> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    let mut side = 0;
    let mut taken = 0usize;
    for window in windows {
        let (w, h) = window.dim();
        assert!(w == h && w.is_power_of_two(), "square power-of-two windows");
        if side == 0 {
            side = w;
            sums = vec![0.0; bin_of((side / 2) as f64) + 2];
            counts = vec![0; sums.len()];
        }
        assert_eq!(w, side, "windows of one size");
        let mean = window.iter().map(|&v| f64::from(v)).sum::<f64>() / (w * w) as f64;
        let hann: Vec<f32> = (0..w)
            .map(|i| (std::f32::consts::PI * i as f32 / w as f32).sin().powi(2))
            .collect();
        let mut buffer: Vec<Complex32> = (0..w * w)
            .map(|i| {
                let (y, x) = (i / w, i % w);
                let v = (f64::from(window[[x, y]]) - mean) as f32;
                Complex32::new(v * hann[x] * hann[y], 0.0)
            })
            .collect();
        fft2(&mut buffer, w, false);
        for (i, c) in buffer.iter().enumerate() {
            let (ky, kx) = (signed(i / w, w), signed(i % w, w));
            let k = ((kx * kx + ky * ky) as f64).sqrt();
            if k < 1.0 || k > (w / 2) as f64 {
                continue;
            }
            let bin = bin_of(k);
            sums[bin] += f64::from(c.norm_sqr());
            counts[bin] += 1;
        }
        taken += 1;
    }
    let mut spectrum = Spectrum::default();
    if taken == 0 {
        return spectrum;
    }
    for (bin, (&s, &c)) in sums.iter().zip(&counts).enumerate() {
        if c > 0 {
            spectrum.wavelength_px.push(bin_wavelength(bin, side));
            spectrum.power.push(s / c as f64 / taken as f64);
        }
    }
    spectrum
}

/// Quarter-octave bins of wave number k (cycles per window), counted from the window's side down.
fn bin_of(k: f64) -> usize {
    (k.log2() * 4.0).round().max(0.0) as usize
}

fn bin_wavelength(bin: usize, side: usize) -> f64 {
    side as f64 / 2f64.powf(bin as f64 / 4.0)
}

fn signed(i: usize, n: usize) -> i64 {
    if i <= n / 2 {
        i as i64
    } else {
        i as i64 - n as i64
    }
}

/// Pearson's correlation of two fields of the same length (two passes, in f64).
pub fn correlation(a: &[f32], b: &[f32]) -> f64 {
    assert_eq!(a.len(), b.len(), "fields of one size");
    let n = a.len() as f64;
    let ma = a.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
    let mb = b.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x) - ma, f64::from(y) - mb);
        sab += x * y;
        saa += x * x;
        sbb += y * y;
    }
    sab / (saa * sbb).sqrt()
}

/// The square windows of `side` pixels, tiled over the map, whose every pixel passes `keep`
/// (e.g. land): the windows a spectrum of land heights is taken over.
pub fn windows_where(
    field: &Array2<f32>,
    side: usize,
    keep: impl Fn(usize, usize) -> bool,
) -> Vec<ArrayView2<'_, f32>> {
    let (w, h) = field.dim();
    let mut out = Vec::new();
    for x0 in (0..w.saturating_sub(side - 1)).step_by(side) {
        for y0 in (0..h.saturating_sub(side - 1)).step_by(side) {
            let all = (x0..x0 + side).all(|x| (y0..y0 + side).all(|y| keep(x, y)));
            if all {
                out.push(field.slice(ndarray::s![x0..x0 + side, y0..y0 + side]));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field built with a known spectral slope is measured with that slope.
    #[test]
    fn a_synthesised_power_law_is_measured_back() {
        let side = 256;
        let beta = 3.0f64;
        let mut buffer = vec![Complex32::default(); side * side];
        let mut state = 12345u64;
        for (i, c) in buffer.iter_mut().enumerate() {
            let (ky, kx) = (signed(i / side, side), signed(i % side, side));
            let k = ((kx * kx + ky * ky) as f64).sqrt();
            if k < 1.0 {
                continue;
            }
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let phase = (state >> 40) as f64 / (1u64 << 24) as f64 * std::f64::consts::TAU;
            let amp = k.powf(-beta / 2.0);
            *c = Complex32::new((amp * phase.cos()) as f32, (amp * phase.sin()) as f32);
        }
        fft2(&mut buffer, side, true);
        let field = Array2::from_shape_fn((side, side), |(x, y)| buffer[y * side + x].re);
        let s = radial_power([field.view()]);
        let (measured, _) = s.fit(4.0, 64.0).unwrap();
        assert!((measured - beta).abs() < 0.25, "slope {measured}");
    }

    #[test]
    fn a_forward_and_inverse_transform_restore_the_field() {
        let side = 16;
        let original: Vec<Complex32> = (0..side * side)
            .map(|i| Complex32::new((i as f32 * 0.37).sin(), 0.0))
            .collect();
        let mut b = original.clone();
        fft2(&mut b, side, false);
        fft2(&mut b, side, true);
        for (a, b) in original.iter().zip(&b) {
            assert!((a.re - b.re / (side * side) as f32).abs() < 1e-4);
        }
    }
}
