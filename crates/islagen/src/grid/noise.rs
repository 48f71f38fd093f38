//! Noise fields over the map's normalised square, and the small smooth functions the terrain
//! stages share.
//!
//! Every field here is a function of the *normalised* position (u, v) ∈ [0, 1]², u = x / MapSize
//! west → east and v = y / MapSize north → south, so the same seed describes the same island at
//! any MapSize: a frequency of "4" means four undulations across the map, which is the
//! GENERATOR.md rule (noise frequency divided by scaleFactor) written without the division.
//!
//! [`Fbm`] wraps fastnoise-lite's OpenSimplex2 fBm and is evaluated per pixel. [`Lattice`] holds a
//! low-frequency field sampled on a fixed grid of the normalised square ([`LATTICE_CELLS`] cells a
//! side, independent of MapSize) and reads it back by bilinear interpolation: the interpolated
//! field is one function of (u, v) at every MapSize, and its distance from the exact field is
//! bounded by a test ([`LATTICE_TOLERANCE`]). A stage that reads a lattice at every pixel of the
//! map reads it through [`PixelReads`]: the same values, bit for bit, for a fraction of the work.

use fastnoise_lite::{FastNoiseLite, FractalType, NoiseType};
use rayon::prelude::*;

/// Cells per side of every [`Lattice`]: fixed, so a lattice field is the same function of the
/// normalised position at every MapSize.
pub const LATTICE_CELLS: usize = 512;

/// The most a [`Lattice`] read may differ from the exact field it samples (field units, fields
/// span about [−1, 1]): bilinear [`Lattice::at`] for fields whose highest octave has at most
/// [`BILINEAR_MAX_FREQUENCY`] undulations per map, bicubic [`Lattice::at_cubic`] up to
/// [`CUBIC_MAX_FREQUENCY`]. Held by tests.
pub const LATTICE_TOLERANCE: f32 = 0.01;
/// Highest octave frequency (per map) a bilinear lattice read is used for.
pub const BILINEAR_MAX_FREQUENCY: f32 = 24.0;
/// Highest octave frequency (per map) a bicubic lattice read is used for.
pub const CUBIC_MAX_FREQUENCY: f32 = 48.0;

/// Fractal OpenSimplex2 noise: `octaves` layers, lacunarity 2, gain 0.5, output in about [−1, 1].
pub struct Fbm {
    inner: FastNoiseLite,
}

impl Fbm {
    /// A field of `frequency` undulations per map side at its first octave.
    pub fn new(seed: i32, frequency: f32, octaves: i32) -> Fbm {
        let mut inner = FastNoiseLite::with_seed(seed);
        inner.set_noise_type(Some(NoiseType::OpenSimplex2));
        inner.set_frequency(Some(frequency));
        if octaves > 1 {
            inner.set_fractal_type(Some(FractalType::FBm));
            inner.set_fractal_octaves(Some(octaves));
        }
        Fbm { inner }
    }

    /// The field at normalised position (u, v).
    #[inline]
    pub fn at(&self, u: f32, v: f32) -> f32 {
        self.inner.get_noise_2d(u, v)
    }
}

/// A low-frequency field sampled on a fixed (cells + 1)² grid of the normalised square,
/// [`LATTICE_CELLS`] cells a side unless made by [`Lattice::sample_cells`].
#[derive(Clone, Debug)]
pub struct Lattice {
    values: Vec<f32>,
    cells: usize,
}

impl Lattice {
    /// Samples `field` (a function of the normalised position) on the lattice, in parallel. One
    /// extra ring of samples outside the square keeps the bicubic read as accurate at the map's
    /// edge as inside it.
    pub fn sample(field: impl Fn(f32, f32) -> f32 + Sync) -> Lattice {
        Lattice::sample_cells(LATTICE_CELLS, field)
    }

    /// [`Lattice::sample`] on a lattice of `cells` cells a side (at least 1). A bicubic read
    /// stays within [`LATTICE_TOLERANCE`] for octaves up to [`cubic_max_frequency`]`(cells)`.
    pub fn sample_cells(cells: usize, field: impl Fn(f32, f32) -> f32 + Sync) -> Lattice {
        let cells = cells.max(1);
        let side = cells + 3;
        let mut values = vec![0.0f32; side * side];
        values
            .par_chunks_mut(side)
            .enumerate()
            .for_each(|(i, row)| {
                let u = (i as f32 - 1.0) / cells as f32;
                for (j, value) in row.iter_mut().enumerate() {
                    *value = field(u, (j as f32 - 1.0) / cells as f32);
                }
            });
        Lattice { values, cells }
    }

    /// Sample (i, j) of the lattice, i and j in −1 ..= cells + 1 (offset by one).
    #[inline]
    fn get(&self, i: usize, j: usize) -> f32 {
        self.values[i * (self.cells + 3) + j]
    }

    /// The lattice cell holding normalised position (u, v) (clamped onto the square) and the
    /// position's fraction across it.
    #[inline]
    fn cell(&self, u: f32, v: f32) -> (usize, usize, f32, f32) {
        let (i, tu) = axis(u, self.cells);
        let (j, tv) = axis(v, self.cells);
        (i, j, tu, tv)
    }

    /// The field at normalised position (u, v), bilinearly interpolated; positions outside the
    /// square are clamped onto it.
    #[inline]
    pub fn at(&self, u: f32, v: f32) -> f32 {
        let (i, j, tu, tv) = self.cell(u, v);
        let (i, j) = (i + 1, j + 1);
        let near = self.get(i, j) + (self.get(i, j + 1) - self.get(i, j)) * tv;
        let far = self.get(i + 1, j) + (self.get(i + 1, j + 1) - self.get(i + 1, j)) * tv;
        near + (far - near) * tu
    }

    /// The field at normalised position (u, v) by Catmull-Rom bicubic interpolation: continuous
    /// in value and slope across lattice lines, so a hillshade shows no lattice grid.
    #[inline]
    pub fn at_cubic(&self, u: f32, v: f32) -> f32 {
        let (i, j, tu, tv) = self.cell(u, v);
        let (wu, wv) = (catmull_rom(tu), catmull_rom(tv));
        let side = self.cells + 3;
        let mut sum = 0.0;
        // Offset storage: sample i − 1 of the square is stored at i.
        for (a, wa) in wu.iter().enumerate() {
            let row = &self.values[(i + a) * side..(i + a + 1) * side];
            let cells = &row[j..j + 4];
            let inner = wv[0] * cells[0] + wv[1] * cells[1] + wv[2] * cells[2] + wv[3] * cells[3];
            sum += wa * inner;
        }
        sum
    }

    /// The lattice's bicubic read down the column at `u`: the four lattice rows around `u`
    /// blended once by their Catmull-Rom weights, so each read down the column is a 1-D
    /// Catmull-Rom of four values. Bit-identical to [`Lattice::at_cubic_across`]; a different
    /// summation order from [`Lattice::at_cubic`], which differs from both in the last bits.
    pub fn cubic_column(&self, u: f32) -> CubicColumn {
        let (i, _, tu, _) = self.cell(u, 0.0);
        let wu = catmull_rom(tu);
        let line = (0..self.cells + 3).map(|j| self.blend(&wu, i, j)).collect();
        CubicColumn {
            line,
            cells: self.cells,
        }
    }

    /// The bicubic read at (u, v), summed across u first (see [`Lattice::cubic_column`]).
    #[inline]
    pub fn at_cubic_across(&self, u: f32, v: f32) -> f32 {
        let (i, j, tu, tv) = self.cell(u, v);
        let wu = catmull_rom(tu);
        let line = [0, 1, 2, 3].map(|b| self.blend(&wu, i, j + b));
        dot4(&catmull_rom(tv), &line)
    }

    /// Stored samples (i + a, j) for a in 0..4 (offset storage), weighted by `wu`.
    #[inline]
    fn blend(&self, wu: &[f32; 4], i: usize, j: usize) -> f32 {
        let side = self.cells + 3;
        dot4(wu, &[0, 1, 2, 3].map(|a| self.values[(i + a) * side + j]))
    }

    /// Every lattice sample, the outer ring included (for quantiles over the field's own
    /// distribution).
    pub fn samples(&self) -> &[f32] {
        &self.values
    }
}

/// How a [`PixelReads`] table reads its lattice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// [`Lattice::at`].
    Bilinear,
    /// [`Lattice::at_cubic`].
    Bicubic,
}

/// A lattice read at every pixel centre of a map of `columns` × `rows` pixels (an
/// `Array2`'s `dim()`, x outer), bit for bit [`Lattice::at`] or [`Lattice::at_cubic`] at
/// (`normalised(x, columns)`, `normalised(y, rows)`), with the blend along v done
/// once per lattice row and map row instead of once per pixel (the reads sum across v first,
/// so that blend is a value shared by every pixel of the map row). A read is then two (bilinear)
/// or four (bicubic) of them blended across u. The table holds (cells + 3) × `rows` values.
pub struct PixelReads {
    /// Row `i` (a stored lattice row, offset storage) holds its blend along v for every map row.
    table: Vec<f32>,
    columns: usize,
    rows: usize,
    cells: usize,
    how: Interpolation,
}

impl Lattice {
    /// The reads of this lattice at every pixel centre of a map of `(columns, rows)` pixels
    /// (see [`PixelReads`]).
    pub fn pixel_reads(&self, (columns, rows): (usize, usize), how: Interpolation) -> PixelReads {
        let side = self.cells + 3;
        let mut table = vec![0.0f32; side * rows];
        if rows > 0 {
            table.par_chunks_mut(rows).enumerate().for_each(|(i, row)| {
                let stored = &self.values[i * side..(i + 1) * side];
                for (y, value) in row.iter_mut().enumerate() {
                    let (j, tv) = axis(normalised(y, rows), self.cells);
                    *value = match how {
                        // `at`'s near / far: samples (i, j + 1) and (i, j + 2) of storage.
                        Interpolation::Bilinear => {
                            stored[j + 1] + (stored[j + 2] - stored[j + 1]) * tv
                        }
                        // `at_cubic`'s inner sum, in its order.
                        Interpolation::Bicubic => {
                            let wv = catmull_rom(tv);
                            let c = &stored[j..j + 4];
                            wv[0] * c[0] + wv[1] * c[1] + wv[2] * c[2] + wv[3] * c[3]
                        }
                    };
                }
            });
        }
        PixelReads {
            table,
            columns,
            rows,
            cells: self.cells,
            how,
        }
    }
}

impl PixelReads {
    /// The reads down map column `x` (`u = normalised(x, columns)`).
    pub fn column(&self, x: usize) -> PixelColumn<'_> {
        let (i, tu) = axis(normalised(x, self.columns), self.cells);
        let row = |k: usize| &self.table[k * self.rows..(k + 1) * self.rows];
        match self.how {
            Interpolation::Bilinear => PixelColumn {
                rows: [row(i + 1), row(i + 2), &[], &[]],
                weights: [tu, 0.0, 0.0, 0.0],
                how: self.how,
            },
            Interpolation::Bicubic => PixelColumn {
                rows: [row(i), row(i + 1), row(i + 2), row(i + 3)],
                weights: catmull_rom(tu),
                how: self.how,
            },
        }
    }
}

/// One map column of a [`PixelReads`].
pub struct PixelColumn<'a> {
    rows: [&'a [f32]; 4],
    /// Bilinear: `tu` first; bicubic: the Catmull-Rom weights across u.
    weights: [f32; 4],
    how: Interpolation,
}

impl PixelColumn<'_> {
    /// The read at map row `y`.
    #[inline]
    pub fn at(&self, y: usize) -> f32 {
        match self.how {
            Interpolation::Bilinear => {
                let (near, far) = (self.rows[0][y], self.rows[1][y]);
                near + (far - near) * self.weights[0]
            }
            Interpolation::Bicubic => {
                let mut sum = 0.0;
                for (row, w) in self.rows.iter().zip(&self.weights) {
                    sum += w * row[y];
                }
                sum
            }
        }
    }
}

/// The highest octave frequency (per map) a bicubic read of a `cells`-cell lattice stays within
/// [`LATTICE_TOLERANCE`] for: the [`CUBIC_MAX_FREQUENCY`] of the default lattice, scaled.
pub fn cubic_max_frequency(cells: usize) -> f32 {
    CUBIC_MAX_FREQUENCY * cells as f32 / LATTICE_CELLS as f32
}

/// One column of a lattice's bicubic read, from [`Lattice::cubic_column`].
pub struct CubicColumn {
    line: Vec<f32>,
    cells: usize,
}

impl CubicColumn {
    /// The read at `v` down the column (clamped onto the square, as every lattice read is).
    #[inline]
    pub fn at(&self, v: f32) -> f32 {
        let (j, tv) = axis(v, self.cells);
        dot4(&catmull_rom(tv), &[0, 1, 2, 3].map(|b| self.line[j + b]))
    }
}

/// The lattice cell along one axis holding normalised coordinate `t` (clamped onto the square)
/// and the fraction across it.
#[inline]
fn axis(t: f32, cells: usize) -> (usize, f32) {
    let n = cells as f32;
    let f = (t * n).clamp(0.0, n);
    let k = (f as usize).min(cells - 1);
    (k, f - k as f32)
}

/// w · x, summed in one fixed order (every bicubic read that must agree bit for bit uses it).
#[inline]
fn dot4(w: &[f32; 4], x: &[f32; 4]) -> f32 {
    w[0] * x[0] + w[1] * x[1] + w[2] * x[2] + w[3] * x[3]
}

/// Catmull-Rom weights of the four samples around fractional position `t` ∈ [0, 1].
#[inline]
fn catmull_rom(t: f32) -> [f32; 4] {
    let t2 = t * t;
    let t3 = t2 * t;
    [
        0.5 * (-t3 + 2.0 * t2 - t),
        0.5 * (3.0 * t3 - 5.0 * t2 + 2.0),
        0.5 * (-3.0 * t3 + 4.0 * t2 + t),
        0.5 * (t3 - t2),
    ]
}

/// An fBm of `coarse + fine` octaves split in two: the low `coarse` octaves are a [`Lattice`]
/// read bicubically, the high `fine` octaves are evaluated per pixel. The sum is fastnoise-lite's
/// own fBm of all the octaves (same seeds, frequencies and weights), to within the lattice's
/// interpolation error; the split lets a caller skip the fine octaves where they cannot matter.
pub struct SplitFbm {
    coarse: Lattice,
    fine: Fbm,
    /// The fine octaves on a lattice, read bicubically instead of evaluated, where
    /// [`SplitFbm::with_fine_lattice`] made one.
    fine_lattice: Option<Lattice>,
    /// The fine octaves' highest frequency, per map.
    fine_top: f32,
    coarse_weight: f32,
    fine_weight: f32,
}

impl SplitFbm {
    /// The split of `Fbm::new(seed, frequency, coarse + fine)`.
    pub fn new(seed: i32, frequency: f32, coarse: i32, fine: i32) -> SplitFbm {
        // fastnoise-lite normalises an n-octave fBm (gain ½) by S(n) = Σ ½^i.
        let bound = |octaves: i32| (0..octaves).map(|i| 0.5f32.powi(i)).sum::<f32>();
        let total = bound(coarse + fine);
        let low = Fbm::new(seed, frequency, coarse);
        SplitFbm {
            coarse: Lattice::sample(|u, v| low.at(u, v)),
            fine: Fbm::new(
                seed.wrapping_add(coarse),
                frequency * 2f32.powi(coarse),
                fine,
            ),
            fine_lattice: None,
            fine_top: frequency * 2f32.powi(coarse + fine - 1),
            coarse_weight: bound(coarse) / total,
            fine_weight: 0.5f32.powi(coarse) * bound(fine) / total,
        }
    }

    /// The cells a side of the smallest power-of-two lattice whose bicubic read holds the fine
    /// octaves within [`LATTICE_TOLERANCE`].
    pub fn fine_lattice_cells(&self) -> usize {
        let mut cells = LATTICE_CELLS;
        while cubic_max_frequency(cells) < self.fine_top {
            cells *= 2;
        }
        cells
    }

    /// Samples the fine octaves on a [`SplitFbm::fine_lattice_cells`] lattice and reads them
    /// from it from now on: within [`LATTICE_TOLERANCE`] × [`SplitFbm::fine_bound`] of the
    /// evaluated octaves, and cheaper wherever more than one pixel falls in a lattice cell.
    pub fn with_fine_lattice(mut self) -> SplitFbm {
        let fine = &self.fine;
        self.fine_lattice = Some(Lattice::sample_cells(self.fine_lattice_cells(), |u, v| {
            fine.at(u, v)
        }));
        self
    }

    /// The coarse octaves' share of the field at (u, v).
    #[inline]
    pub fn coarse_at(&self, u: f32, v: f32) -> f32 {
        self.coarse_weight * self.coarse.at_cubic(u, v)
    }

    /// The fine octaves' share of the field at (u, v).
    #[inline]
    pub fn fine_at(&self, u: f32, v: f32) -> f32 {
        let fine = match &self.fine_lattice {
            Some(lattice) => lattice.at_cubic_across(u, v),
            None => self.fine.at(u, v),
        };
        self.fine_weight * fine
    }

    /// The fine share down the column at `u`: bit-identical to [`SplitFbm::fine_at`], and,
    /// from a fine lattice, a quarter of its work where several pixels share a lattice cell.
    pub fn fine_column(&self, u: f32) -> FineColumn<'_> {
        FineColumn {
            split: self,
            u,
            lattice: self.fine_lattice.as_ref().map(|l| l.cubic_column(u)),
        }
    }

    /// The largest magnitude the fine share can take.
    pub fn fine_bound(&self) -> f32 {
        self.fine_weight
    }

    /// The whole field at (u, v).
    #[inline]
    pub fn at(&self, u: f32, v: f32) -> f32 {
        self.coarse_at(u, v) + self.fine_at(u, v)
    }
}

/// [`SplitFbm::fine_column`]'s reader.
pub struct FineColumn<'a> {
    split: &'a SplitFbm,
    u: f32,
    lattice: Option<CubicColumn>,
}

impl FineColumn<'_> {
    /// The fine share at `v` down the column.
    #[inline]
    pub fn at(&self, v: f32) -> f32 {
        match &self.lattice {
            Some(column) => self.split.fine_weight * column.at(v),
            None => self.split.fine_at(self.u, v),
        }
    }
}

/// The normalised coordinate of pixel index `i` on a map of `map_size` pixels: the pixel's centre,
/// so maps of different sizes sample the same positions where their pixels overlap.
#[inline]
pub fn normalised(i: usize, map_size: usize) -> f32 {
    (i as f32 + 0.5) / map_size as f32
}

/// Hermite smoothstep of `x` between `edge0` and `edge1` (either order), clamped to [0, 1].
#[inline]
pub fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A smooth |x|: √(x² + ε²) − ε. Equal to 0 at 0 with zero slope, so a crest built from it has
/// no slope discontinuity; within ε of |x| everywhere.
#[inline]
pub fn smooth_abs(x: f32, epsilon: f32) -> f32 {
    (x * x + epsilon * epsilon).sqrt() - epsilon
}

/// The `q`-quantile (0 ≤ q ≤ 1) of `values` by nearest rank; NaNs are not expected.
pub fn quantile(values: &[f32], q: f32) -> f32 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f32::total_cmp);
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() - 1) as f32 * q.clamp(0.0, 1.0)).round() as usize;
    sorted[rank]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worst_error(exact: &Fbm, read: impl Fn(f32, f32) -> f32) -> f32 {
        let mut worst = 0.0f32;
        for i in 0..20_000u32 {
            // A low-discrepancy walk over the square, off the lattice points.
            let u = (i as f32 * 0.618_034).fract();
            let v = (i as f32 * 0.754_877_7).fract();
            worst = worst.max((read(u, v) - exact.at(u, v)).abs());
        }
        worst
    }

    #[test]
    fn lattice_reads_stay_within_tolerance_of_the_exact_field() {
        // Two octaves whose highest sits at each read mode's frequency limit.
        let exact = Fbm::new(1234, BILINEAR_MAX_FREQUENCY / 2.0, 2);
        let lattice = Lattice::sample(|u, v| exact.at(u, v));
        let worst = worst_error(&exact, |u, v| lattice.at(u, v));
        assert!(worst <= LATTICE_TOLERANCE, "worst bilinear error {worst}");
        assert!(
            worst > 0.0,
            "a lattice that never differs is not interpolating"
        );

        let exact = Fbm::new(4321, CUBIC_MAX_FREQUENCY / 2.0, 2);
        let lattice = Lattice::sample(|u, v| exact.at(u, v));
        let worst = worst_error(&exact, |u, v| lattice.at_cubic(u, v));
        assert!(worst <= LATTICE_TOLERANCE, "worst bicubic error {worst}");
    }

    #[test]
    fn split_fbm_is_the_crates_own_fbm() {
        let whole = Fbm::new(99, 3.0, 7);
        let split = SplitFbm::new(99, 3.0, 4, 3);
        let mut worst = 0.0f32;
        for i in 0..20_000u32 {
            let u = (i as f32 * 0.618_034).fract();
            let v = (i as f32 * 0.754_877_7).fract();
            worst = worst.max((split.at(u, v) - whole.at(u, v)).abs());
        }
        // The coarse share is read bicubically; its error is the lattice's.
        assert!(
            worst <= 0.001,
            "split differs from the whole fBm by {worst}"
        );
    }

    #[test]
    fn a_fine_lattice_holds_the_fine_octaves_within_tolerance() {
        let evaluated = SplitFbm::new(77, 3.0, 4, 3);
        // Octaves 48, 96 and 192 per map: 2048 cells keep 10⅔ of them per wavelength.
        assert_eq!(evaluated.fine_lattice_cells(), 2048);
        let read = SplitFbm::new(77, 3.0, 4, 3).with_fine_lattice();
        let mut worst = 0.0f32;
        for i in 0..200_000u32 {
            let u = (i as f32 * 0.618_034).fract();
            let v = (i as f32 * 0.754_877_7).fract();
            worst = worst.max((read.fine_at(u, v) - evaluated.fine_at(u, v)).abs());
        }
        let bound = LATTICE_TOLERANCE * evaluated.fine_bound();
        assert!(worst <= bound, "fine lattice off by {worst} > {bound}");
        assert!(
            worst > 0.0,
            "a lattice that never differs is not interpolating"
        );
    }

    #[test]
    fn column_reads_are_the_point_reads_bit_for_bit() {
        let f = Fbm::new(8, 20.0, 2);
        let lattice = Lattice::sample_cells(300, |u, v| f.at(u, v));
        for k in 0..40 {
            let u = (k as f32 * 0.618_034).fract() * 1.1 - 0.05; // some off the square
            let column = lattice.cubic_column(u);
            for m in 0..500 {
                let v = m as f32 / 499.0;
                assert_eq!(
                    column.at(v).to_bits(),
                    lattice.at_cubic_across(u, v).to_bits()
                );
                assert!((column.at(v) - lattice.at_cubic(u, v)).abs() < 1e-5);
            }
        }
        for split in [
            SplitFbm::new(3, 3.0, 4, 3),
            SplitFbm::new(3, 3.0, 4, 3).with_fine_lattice(),
        ] {
            let column = split.fine_column(0.37);
            for m in 0..500 {
                let v = m as f32 / 499.0;
                assert_eq!(column.at(v).to_bits(), split.fine_at(0.37, v).to_bits());
            }
        }
    }

    #[test]
    fn pixel_reads_are_the_point_reads_bit_for_bit() {
        let f = Fbm::new(11, 9.0, 3);
        let lattice = Lattice::sample_cells(40, |u, v| f.at(u, v));
        // Fewer pixels than cells, about as many, many more (several pixels a cell), and a map
        // that is not square.
        for (nx, ny) in [(17, 17), (40, 40), (97, 97), (256, 256), (64, 23)] {
            let linear = lattice.pixel_reads((nx, ny), Interpolation::Bilinear);
            let cubic = lattice.pixel_reads((nx, ny), Interpolation::Bicubic);
            for x in 0..nx {
                let (l, c) = (linear.column(x), cubic.column(x));
                let u = normalised(x, nx);
                for y in 0..ny {
                    let v = normalised(y, ny);
                    assert_eq!(
                        l.at(y).to_bits(),
                        lattice.at(u, v).to_bits(),
                        "{nx}x{ny} ({x}, {y})"
                    );
                    assert_eq!(
                        c.at(y).to_bits(),
                        lattice.at_cubic(u, v).to_bits(),
                        "{nx}x{ny} ({x}, {y})"
                    );
                }
            }
        }
    }

    #[test]
    fn cubic_lattice_reads_are_continuous_across_lattice_lines() {
        let f = Fbm::new(5, 8.0, 3);
        let lattice = Lattice::sample(|u, v| f.at(u, v));
        let line = 100.0 / LATTICE_CELLS as f32;
        let eps = 1e-5;
        for k in 0..50 {
            let v = k as f32 / 50.0;
            let slope_left = (lattice.at_cubic(line, v) - lattice.at_cubic(line - eps, v)) / eps;
            let slope_right = (lattice.at_cubic(line + eps, v) - lattice.at_cubic(line, v)) / eps;
            assert!((slope_left - slope_right).abs() < 0.05 * slope_left.abs().max(1.0));
            let jump = lattice.at_cubic(line + eps, v) - lattice.at_cubic(line - eps, v);
            assert!(jump.abs() < 1e-3);
        }
        // On a lattice point the read is the sample itself.
        for k in 0..50 {
            let (u, v) = (k as f32 / 64.0, (50 - k) as f32 / 128.0);
            assert!((lattice.at_cubic(u, v) - f.at(u, v)).abs() < 1e-6);
        }
    }

    #[test]
    fn fbm_tolerates_the_extreme_seed() {
        // fastnoise-lite bumps the seed once per octave; the profile disables overflow checks for
        // the crate so i32::MAX wraps as it does in release builds.
        let f = Fbm::new(i32::MAX, 4.0, 7);
        assert!(f.at(0.3, 0.7).abs() <= 1.0);
    }

    #[test]
    fn smooth_abs_has_a_flat_crest_and_tracks_abs() {
        assert_eq!(smooth_abs(0.0, 0.05), 0.0);
        let slope = (smooth_abs(1e-4, 0.05) - smooth_abs(-1e-4, 0.05)) / 2e-4;
        assert!(slope.abs() < 1e-3);
        for x in [-1.0f32, -0.3, 0.2, 0.9] {
            assert!((smooth_abs(x, 0.05) - x.abs()).abs() <= 0.05);
        }
    }

    #[test]
    fn quantile_by_rank() {
        let v: Vec<f32> = (0..101).map(|i| i as f32).collect();
        assert_eq!(quantile(&v, 0.98), 98.0);
        assert_eq!(quantile(&v, 0.0), 0.0);
        assert_eq!(quantile(&v, 1.0), 100.0);
    }
}
