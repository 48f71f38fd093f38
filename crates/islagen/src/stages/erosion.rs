//! Droplet hydraulic erosion, Erosion "v1" (EROS erosionVersion 3), on the elevation map.
//!
//! **The same erosion at every MapSize.** Droplets walk a working grid of [`CELL_M`]-metre cells
//! over the whole world (2048 cells a side), not the map's own pixels: the map's heights are
//! box-averaged onto it (or interpolated, for maps coarser than the cell), the droplets carve
//! and deposit there, and the carve is brought back to every map pixel (interpolated, or
//! averaged over the pixel's footprint). Every dial is therefore in metres or per area — how far
//! a droplet may travel, the brush's radius, the caps, the number of droplets per km² of land
//! ([`Droplets::PerLandKm2`]) — and a 1024 preview erodes what the 8192 world will. The
//! original's droplet count ([`Droplets::Count`], drawn over the whole map) is honoured when a
//! config gives it.
//!
//! Droplets start at PCG32-drawn positions (from [`ErosionParams::stream_seed`]) and walk downhill
//! one cell per step over bilinearly interpolated heights and gradients, their heading blended
//! with the previous one by `inertia`. Each carries water (evaporating by `evaporation` a step),
//! a speed (gaining `gravity` × drop, in metres), and sediment up to a capacity of
//! max(drop, minSlope) × speed × water × capacityFactor (× `CAPACITY_SCALE`). Below capacity
//! and going downhill it erodes `erodeRate` of the shortfall (at most `PIT_GUARD` × the drop,
//! spread so thin that it cannot dig a pit);
//! over capacity or going uphill it deposits (`depositRate` of the excess, or enough to raise
//! its own cell by the rise). Eroding and depositing both spread over the same cone brush, so
//! neither can spike a single cell; a climbing droplet deposits the rise over the brush's
//! centre weight, so the hollow it rocks in fills rather than deepening under a ring of its
//! deposits, and one too slow to climb on comes to rest there and stops. A droplet also stops
//! after its distance, on flat ground, at the map edge, or on reaching water.
//!
//! Guarantees, each checked on exit of every run on the map's own pixels (a violation is an
//! [`ErosionError`]):
//! - **Governors**: per pixel, the net displacement against the height the pass found — positive
//!   carved, negative built up — stays within [−depositCap, carveCap] metres.
//! - **Sea clamp**: no pixel is carved below sea + seaMargin; pixels under sea are untouched in
//!   both directions, so the exported coastline cannot move.
//! - **Crater**: nothing within `core` × CraterRadius of the impact is modified; outside it,
//!   "feather" ramps the effect from 0 to full by `feather` × CraterRadius, "full" applies it
//!   at once.
//!
//! **Determinism and parallelism.** The working grid is cut into square tiles at least twice a
//! droplet's reach (lifetime + brush + 2 cells) wide, coloured like a 2 × 2 checkerboard. Every
//! droplet belongs to the tile it starts in, and a tile's droplets run in their drawn order. The
//! four colours run one after the other; the tiles of one colour run in parallel, and cannot
//! touch a common cell because a droplet never leaves its tile's reach. So the result is the
//! same for any thread count. It differs from running every droplet in drawn order
//! ([`Schedule::Sequential`]) only in the order droplets of different tiles meet; BENCHMARKS.md
//! measures by how much.

use ndarray::Array2;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg32;
use rayon::prelude::*;
use serde::Serialize;

use super::crater::Crater;
use super::rills::Rills;
use crate::sea::SeaLevel;
use crate::dials::{CraterErosionMode, CraterGuard, DropletDials};
use crate::units::{self, METRES_PER_RAW, WORLD_SIZE_M};

/// The working grid's cell, metres: droplets walk cells of this size at every MapSize.
pub const CELL_M: f32 = 4.0;

/// The carved depth (metres) that marks a cell as part of a channel.
pub const CHANNEL_DEPTH_M: f32 = 3.0;
/// The area a connected set of channel pixels needs to count as a channel system, m² (200
/// pixels of the 1024 map).
pub const CHANNEL_SYSTEM_M2: f64 = 12_800.0;

/// Pixels a channel system needs at `map_size`.
pub fn channel_system_px(map_size: usize) -> usize {
    (CHANNEL_SYSTEM_M2 / units::px_area_m2(map_size))
        .round()
        .max(1.0) as usize
}
/// Sediment capacity per unit of the capacity term: the droplet's sediment is the volume it
/// took from a whole brush footprint, so its capacity is stated per footprint, not per cell.
/// Tuned at MapSize 8192 with the default dials so the carve forms a drainage hierarchy (rills
/// feeding deeper trunks) rather than isolated scratches — BENCHMARKS.md and the closing note of
/// the erosion issue give the figures.
const CAPACITY_SCALE: f32 = 100.0;
/// A step erodes at most this many times its own drop, spread over the brush. The brush's
/// centre weight (0.107 at radius 3) keeps the droplet's own cell above the next position, so
/// no pit forms: 4 × 0.107 < 1 (a unit test holds it).
const PIT_GUARD: f32 = 4.0;
/// The speed a droplet starts with.
const START_SPEED: f32 = 1.0;
/// The water a droplet starts with.
const START_WATER: f32 = 1.0;

/// How droplets are scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Checkerboard tiles, parallel within a colour; the default.
    Tiled,
    /// Every droplet in drawn order on one thread: the fidelity reference.
    Sequential,
}

/// What erosion did, for the summary and the tests.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ErosionStats {
    /// Droplets drawn.
    pub droplets: usize,
    /// Droplets that started on land (the rest fall in water and stop at once).
    pub droplets_on_land: usize,
    /// Droplets that started on land per km² of land (of the working grid).
    pub per_land_km2: f64,
    /// Steps a droplet may take (cells of the working grid).
    pub lifetime_cells: usize,
    /// The brush's radius, cells of the working grid.
    pub brush_cells: usize,
    /// Land pixels of the map (the carve shares' denominator).
    pub land_px: usize,
    /// Droplet steps taken.
    pub steps: u64,
    /// Map pixels carved by more than 0.5 m, 5 m and 10 m.
    pub carved_past: [usize; 3],
    /// Connected (4-neighbour) sets of pixels carved ≥ 3 m covering ≥ `CHANNEL_SYSTEM_M2` (12 800 m²).
    pub channel_systems: usize,
    /// Deepest carve and highest build-up, metres.
    pub max_carve_m: f32,
    /// Highest build-up, metres.
    pub max_deposit_m: f32,
}

/// A broken guarantee, found by the exit check.
#[derive(Debug, thiserror::Error)]
pub enum ErosionError {
    /// The height grid is not a square map in standard (X outer, Y inner) layout, which the
    /// droplets' indexing needs.
    #[error("erosion needs a square height grid in standard layout; got {x} × {y} (standard layout: {standard})")]
    Layout {
        /// Cells along x.
        x: usize,
        /// Cells along y.
        y: usize,
        /// Whether the grid was contiguous X outer / Y inner.
        standard: bool,
    },
    /// A cell moved more than its cap allows.
    #[error("erosion governor broken at ({x}, {y}): net displacement {metres} m outside [−{deposit_cap}, {carve_cap}] m")]
    Cap {
        /// Cell x.
        x: usize,
        /// Cell y.
        y: usize,
        /// Net displacement, metres (positive carved).
        metres: f32,
        /// The carve cap.
        carve_cap: f32,
        /// The deposit cap.
        deposit_cap: f32,
    },
    /// A cell crossed or touched the waterline.
    #[error("erosion sea clamp broken at ({x}, {y}): {what}")]
    Sea {
        /// Cell x.
        x: usize,
        /// Cell y.
        y: usize,
        /// What went wrong.
        what: &'static str,
    },
    /// A cell in the protected crater core changed.
    #[error("erosion modified ({x}, {y}) inside the protected crater core")]
    Crater {
        /// Cell x.
        x: usize,
        /// Cell y.
        y: usize,
    },
}

/// How many droplets run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Droplets {
    /// This many droplets start on each km² of land (drawn until so many have landed).
    PerLandKm2(f32),
    /// This many droplets drawn over the whole square (those in water stop at once).
    Count(i32),
}

/// The erosion dials, as applied (validated by the caller; the pipeline records them as EROS).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ErosionParams {
    /// How many droplets run.
    pub droplets: Droplets,
    /// How far a droplet may travel, metres.
    pub lifetime_m: f32,
    /// Radius of the erode/deposit cone, metres (at least one working cell).
    pub brush_m: f32,
    /// The seed of the droplet-start stream.
    pub stream_seed: u64,
    /// The droplets' physical dials.
    pub dials: DropletDials,
    /// How the crater is spared.
    pub crater: CraterGuard,
}

/// What every pass that lowers the elevation map must keep, checked on the map's own pixels on
/// exit: the net displacement within [−deposit cap, carve cap], nothing carved below sea + margin,
/// nothing under sea changed, nothing inside `crater_core` × the crater radius changed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Limits {
    /// Most a cell may be carved, metres.
    pub carve_cap_m: f32,
    /// Most a cell may be built up, metres.
    pub deposit_cap_m: f32,
    /// No cell is carved below sea + this, metres.
    pub sea_margin_m: f32,
    /// Protected core, a factor of the crater radius.
    pub crater_core: f32,
}

impl ErosionParams {
    /// The governors this pass is checked against.
    pub fn limits(&self) -> Limits {
        Limits {
            carve_cap_m: self.dials.carve_cap_m,
            deposit_cap_m: self.dials.deposit_cap_m,
            sea_margin_m: self.dials.sea_margin_m,
            crater_core: self.crater.core,
        }
    }
}

/// The cone brush: offsets within `radius` cells and weights ∝ (radius − distance), summing to 1.
fn brush(radius: i32) -> Vec<(isize, isize, f32)> {
    let r = radius.max(1) as f32;
    let mut cells = Vec::new();
    for dx in -radius..=radius {
        for dy in -radius..=radius {
            let d = ((dx * dx + dy * dy) as f32).sqrt();
            if d < r {
                cells.push((dx as isize, dy as isize, r - d));
            }
        }
    }
    let total: f32 = cells.iter().map(|c| c.2).sum();
    cells.iter_mut().for_each(|c| c.2 /= total);
    cells
}

/// Everything a droplet reads that does not change during the pass.
struct Terrain<'a> {
    n: usize,
    before: &'a Array2<f32>,
    sea: &'a SeaLevel,
    crater: &'a Crater,
    c: &'a ErosionParams,
    lifetime: usize,
    brush_cells: usize,
    brush: Vec<(isize, isize, f32)>,
    /// The brush's weight on its own centre cell.
    centre_w: f32,
    carve_cap_raw: f32,
    deposit_cap_raw: f32,
    margin_raw: f32,
}

impl Terrain<'_> {
    /// How much of the erosion acts at cell (x, y): 0 in the crater core, 1 well outside.
    #[inline]
    fn crater_factor(&self, x: usize, y: usize) -> f32 {
        let r = self.crater.radius_px;
        let d = self.crater.distance(x, y);
        let core = self.c.crater.core * r;
        if d < core {
            return 0.0;
        }
        match self.c.crater.mode {
            CraterErosionMode::Full => 1.0,
            CraterErosionMode::Feather => {
                let feather = self.c.crater.feather * r;
                if d >= feather {
                    1.0
                } else {
                    (d - core) / (feather - core).max(f32::EPSILON)
                }
            }
        }
    }
}

/// The height map as the droplets of one tile see it: raw pointer access, restricted by
/// construction to the tile's reach, which no concurrently running tile shares.
#[derive(Clone, Copy)]
struct Grid {
    ptr: *mut f32,
    n: usize,
}

// SAFETY: tiles that run at the same time touch disjoint cells (see the module doc and
// `Reach::contains`), so sharing the pointer across threads creates no data race.
unsafe impl Send for Grid {}
unsafe impl Sync for Grid {}

impl Grid {
    #[inline]
    fn get(&self, x: usize, y: usize) -> f32 {
        debug_assert!(x < self.n && y < self.n);
        // SAFETY: in bounds (checked by the caller's reach test) and race-free (module doc).
        unsafe { *self.ptr.add(x * self.n + y) }
    }

    #[inline]
    fn set(&self, x: usize, y: usize, v: f32) {
        debug_assert!(x < self.n && y < self.n);
        // SAFETY: as for `get`.
        unsafe { *self.ptr.add(x * self.n + y) = v }
    }
}

/// The cells a tile's droplets may read or write: the tile grown by a droplet's reach, clipped
/// to the map.
#[derive(Clone, Copy, Debug)]
struct Reach {
    x0: usize,
    x1: usize,
    y0: usize,
    y1: usize,
}

impl Reach {
    /// True when the brush around node (x, y) and its bilinear neighbour stay inside.
    #[inline]
    fn contains(&self, x: usize, y: usize, brush: usize) -> bool {
        x >= self.x0 + brush && x + brush < self.x1 && y >= self.y0 + brush && y + brush < self.y1
    }
}

/// Height and gradient (raw per cell) at fractional position (px, py).
#[inline]
fn sample(g: &Grid, px: f32, py: f32) -> (f32, f32, f32) {
    let (cx, cy) = (px as usize, py as usize);
    let (fx, fy) = (px - cx as f32, py - cy as f32);
    let nw = g.get(cx, cy);
    let ne = g.get(cx + 1, cy);
    let sw = g.get(cx, cy + 1);
    let se = g.get(cx + 1, cy + 1);
    let gx = (ne - nw) * (1.0 - fy) + (se - sw) * fy;
    let gy = (sw - nw) * (1.0 - fx) + (se - ne) * fx;
    let h =
        nw * (1.0 - fx) * (1.0 - fy) + ne * fx * (1.0 - fy) + sw * (1.0 - fx) * fy + se * fx * fy;
    (h, gx, gy)
}

/// Runs one droplet from (px, py). Returns the steps it took.
fn droplet(t: &Terrain, g: &Grid, reach: Reach, mut px: f32, mut py: f32) -> u32 {
    let n = t.n;
    let c = t.c;
    let r = t.brush_cells;
    let (mut dx, mut dy) = (0.0f32, 0.0f32);
    let mut speed = START_SPEED;
    let mut water = START_WATER;
    let mut sediment = 0.0f32; // raw height units
    let min_slope = c.dials.min_slope_m / METRES_PER_RAW;
    let mut steps = 0;
    for _ in 0..t.lifetime {
        let (cx, cy) = (px as usize, py as usize);
        if !reach.contains(cx, cy, r) || t.sea.is_below(g.get(cx, cy), cy) {
            break;
        }
        let (h, gx, gy) = sample(g, px, py);
        // The gradient in metres per cell, so inertia weighs a heading against a real slope.
        dx = dx * c.dials.inertia - gx * METRES_PER_RAW * (1.0 - c.dials.inertia);
        dy = dy * c.dials.inertia - gy * METRES_PER_RAW * (1.0 - c.dials.inertia);
        let len = (dx * dx + dy * dy).sqrt();
        if len <= f32::EPSILON {
            break;
        }
        dx /= len;
        dy /= len;
        let (nx, ny) = (px + dx, py + dy);
        if nx < 0.0 || ny < 0.0 || nx >= (n - 1) as f32 || ny >= (n - 1) as f32 {
            break;
        }
        let (nxc, nyc) = (nx as usize, ny as usize);
        if !reach.contains(nxc, nyc, r) {
            break;
        }
        steps += 1;
        let (new_h, _, _) = sample(g, nx, ny);
        let drop = new_h - h; // raw; negative downhill
        let capacity = (-drop).max(min_slope) * speed * water * c.dials.capacity_factor * CAPACITY_SCALE;
        if sediment > capacity || drop > 0.0 {
            let want = if drop > 0.0 {
                // Enough to raise the droplet's cell by the rise: its share of the brush is
                // `centre_w`. (Spreading only the rise's own height raised the cell by a tenth
                // of it, so a droplet rocking in a hollow carved more on each way down than it
                // filled on each way up: a pit, ringed by its deposits.)
                (drop / t.centre_w).min(sediment)
            } else {
                (sediment - capacity) * c.dials.deposit_rate
            };
            sediment -= spread(t, g, cx, cy, want, false);
        } else {
            let want = ((capacity - sediment) * c.dials.erode_rate).min(-drop * PIT_GUARD);
            sediment += spread(t, g, cx, cy, want, true);
        }
        // Speed in metres per step: the drop converted to metres feeds v².
        let v2 = speed * speed - drop * METRES_PER_RAW * c.dials.gravity;
        speed = v2.max(0.0).sqrt();
        if drop > 0.0 && v2 <= 0.0 {
            break; // too slow to climb on: at rest in its hollow, which it has just filled
        }
        water *= 1.0 - c.dials.evaporation;
        px = nx;
        py = ny;
        if t.sea.is_below(new_h, nyc) {
            break;
        }
    }
    steps
}

/// Spreads `amount` (raw) of erosion (`carve`) or deposition over the brush around node
/// (cx, cy), cell by cell within the governors, the sea clamp and the crater ramp. Returns how
/// much actually moved.
fn spread(t: &Terrain, g: &Grid, cx: usize, cy: usize, amount: f32, carve: bool) -> f32 {
    if amount <= 0.0 {
        return 0.0;
    }
    let mut moved = 0.0;
    for &(ox, oy, w) in &t.brush {
        let x = (cx as isize + ox) as usize;
        let y = (cy as isize + oy) as usize;
        moved += shift(t, g, x, y, amount * w, carve);
    }
    moved
}

/// Moves up to `want` (raw) of height at cell (x, y), down when `carve`, else up, within the
/// governors, the sea clamp and the crater ramp. Returns how much actually moved.
#[inline]
fn shift(t: &Terrain, g: &Grid, x: usize, y: usize, want: f32, carve: bool) -> f32 {
    let h = g.get(x, y);
    let sea = t.sea.at(y);
    if h < sea {
        return 0.0; // under sea: untouched both ways
    }
    let f = t.crater_factor(x, y);
    if f <= 0.0 {
        return 0.0;
    }
    let want = want * f;
    let net = t.before[[x, y]] - h; // raw, positive = carved
    let room = if carve {
        (t.carve_cap_raw - net).min(h - (sea + t.margin_raw))
    } else {
        t.deposit_cap_raw + net
    };
    let actual = want.min(room).max(0.0);
    if actual > 0.0 {
        g.set(x, y, if carve { h - actual } else { h + actual });
    }
    actual
}

/// The side of a square height grid in standard (X outer, Y inner) layout, which the passes'
/// indexing needs; any other shape or layout is refused.
pub(crate) fn square_side(heights: &Array2<f32>) -> Result<usize, ErosionError> {
    let (n, ny) = heights.dim();
    let standard = heights.is_standard_layout();
    if n != ny || !standard || n < 2 {
        return Err(ErosionError::Layout {
            x: n,
            y: ny,
            standard,
        });
    }
    Ok(n)
}

/// Erodes `heights` (the elevation map) in place. `crater` and `sea` as generated.
pub fn erode(
    heights: &mut Array2<f32>,
    sea: &SeaLevel,
    crater: &Crater,
    c: &ErosionParams,
    schedule: Schedule,
    on_phase: &(dyn Fn() + Sync),
) -> Result<ErosionStats, ErosionError> {
    let n = square_side(heights)?;
    let w = working_side();
    let mut work = to_working(heights, w);
    let work_sea = sea.on(w);
    let work_crater = crater.on(n, w);
    let before_work = work.clone();
    let mut stats = simulate(
        &mut work,
        &before_work,
        &work_sea,
        &work_crater,
        c,
        schedule,
        on_phase,
    );
    let carve = before_work - &work;
    drop(work);
    let before = heights.clone();
    let map = apply_and_check(heights, &carve, None, sea, crater, &c.limits())?;
    stats.land_px = map.land_px;
    stats.carved_past = map.carved_past;
    stats.channel_systems = channel_systems(&before, heights);
    stats.max_carve_m = map.max_carve_m;
    stats.max_deposit_m = map.max_deposit_m;
    Ok(stats)
}

/// Cells a side of the working grid.
pub fn working_side() -> usize {
    (WORLD_SIZE_M / CELL_M) as usize
}

/// The pixels of an `n`-pixel map that working cell `i` of a `w`-cell grid covers (at least one).
fn footprint(i: usize, w: usize, n: usize) -> std::ops::Range<usize> {
    let lo = i * n / w;
    lo..((i + 1) * n / w).max(lo + 1).min(n)
}

/// The mean of the cells of the finer `grid` that cell (i, j) of a `side`-cell grid covers.
fn footprint_mean(grid: &Array2<f32>, i: usize, j: usize, side: usize) -> f32 {
    let fine = grid.dim().0;
    let (xs, ys) = (footprint(i, side, fine), footprint(j, side, fine));
    let count = (xs.len() * ys.len()) as f32;
    // In logical order (x outer), summed one after another as before: the same bits.
    grid.slice(ndarray::s![xs, ys]).iter().sum::<f32>() / count
}

/// Bilinear read of `grid` (`side` a side) at fractional sample position (fx, fy), clamped to
/// the grid.
fn bilinear(grid: &Array2<f32>, fx: f32, fy: f32) -> f32 {
    let side = grid.dim().0;
    let (x0, x1, tx) = taps(fx, side);
    blend(grid, (x0, x1, tx), taps(fy, side))
}

/// The two samples of a `side`-sample axis around fractional position `f` (clamped onto the
/// axis) and the weight of the second.
#[inline]
fn taps(f: f32, side: usize) -> (usize, usize, f32) {
    let f = f.clamp(0.0, (side - 1) as f32);
    let i0 = f as usize;
    (i0, (i0 + 1).min(side - 1), f - i0 as f32)
}

/// [`bilinear`] from its [`taps`] along x and y.
#[inline]
fn blend(grid: &Array2<f32>, (x0, x1, tx): Taps, (y0, y1, ty): Taps) -> f32 {
    let a = grid[[x0, y0]] * (1.0 - ty) + grid[[x0, y1]] * ty;
    let b = grid[[x1, y0]] * (1.0 - ty) + grid[[x1, y1]] * ty;
    a * (1.0 - tx) + b * tx
}

/// What [`taps`] gives.
type Taps = (usize, usize, f32);

/// The four samples of an axis a cubic B-spline read blends, and their weights.
#[derive(Clone, Copy)]
struct SplineTaps {
    at: [usize; 4],
    weight: [f32; 4],
}

/// The uniform cubic B-spline's taps around fractional position `f` on a `side`-sample axis
/// (clamped onto the axis, the end samples repeated past it). The spline is C² — its slope and
/// curvature run on across cell edges — so a carve brought from a coarse grid to a fine map
/// leaves no facets or creases on the grid's lines, where a bilinear read leaves both. It
/// approximates rather than interpolates: at a cell centre it reads (1, 4, 1) / 6 of the cell
/// and its neighbours, at every MapSize alike.
#[inline]
fn spline_taps(f: f32, side: usize) -> SplineTaps {
    let f = f.clamp(0.0, (side - 1) as f32);
    let i0 = f as usize;
    let t = f - i0 as f32;
    let (t2, t3) = (t * t, t * t * t);
    let u = 1.0 - t;
    let last = side as isize - 1;
    let at = [-1isize, 0, 1, 2].map(|o| (i0 as isize + o).clamp(0, last) as usize);
    SplineTaps {
        at,
        weight: [
            u * u * u / 6.0,
            (3.0 * t3 - 6.0 * t2 + 4.0) / 6.0,
            (-3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0) / 6.0,
            t3 / 6.0,
        ],
    }
}

/// The grid's B-spline blended across x at the [`spline_taps`] `x`: one value for every y
/// sample, which a read at any y then blends along y.
fn spline_line(grid: &Array2<f32>, x: &SplineTaps) -> Vec<f32> {
    let mut line = vec![0.0f32; grid.dim().1];
    for (&xi, &wx) in x.at.iter().zip(&x.weight) {
        for (v, &g) in line.iter_mut().zip(grid.row(xi)) {
            *v += g * wx;
        }
    }
    line
}

/// Where pixel `i` of an `n`-pixel map sits on a `w`-cell grid (cell-centre coordinates).
fn position(i: usize, n: usize, w: usize) -> f32 {
    (i as f32 + 0.5) * w as f32 / n as f32 - 0.5
}

/// The map's heights on the `w`-cell working grid: the mean over each cell's footprint when the
/// map is finer, a bilinear read at the cell's centre when it is coarser.
pub(crate) fn to_working(heights: &Array2<f32>, w: usize) -> Array2<f32> {
    let n = heights.dim().0;
    if n == w {
        return heights.clone();
    }
    let mut out = Array2::<f32>::zeros((w, w));
    out.outer_iter_mut()
        .into_par_iter()
        .enumerate()
        .for_each(|(i, mut column)| {
            for (j, cell) in column.iter_mut().enumerate() {
                *cell = if n > w {
                    footprint_mean(heights, i, j, w)
                } else {
                    bilinear(heights, position(i, w, n), position(j, w, n))
                };
            }
        });
    out
}

/// Brings the working grid's carve (raw, positive carved) back to every map pixel —
/// interpolated on a finer map, averaged over the pixel's footprint on a coarser one — within
/// the caps, the sea clamp and the crater core at the pixel itself; then the exit check of
/// every guarantee, and the drainage figures (but the channel systems, 0: [`channel_systems`]).
/// Each column is checked against its own copy from before the carve: no copy of the map.
pub(crate) fn apply_and_check(
    heights: &mut Array2<f32>,
    carve: &Array2<f32>,
    rills: Option<RillCarve>,
    sea: &SeaLevel,
    crater: &Crater,
    c: &Limits,
) -> Result<ErosionStats, ErosionError> {
    let carving = Carving::new(heights.dim().0, carve, rills, sea, crater, c);
    let per_column: Vec<Result<ColumnFigures, ErosionError>> = heights
        .outer_iter_mut()
        .into_par_iter()
        .enumerate()
        .map_init(Vec::new, |before, (x, mut column)| {
            before.clear();
            before.extend(column.iter());
            carving.column(x, column.view_mut());
            let before = ndarray::ArrayView1::from(&before[..]);
            check_column(x, before, column.view(), &carving.seas, crater, c)
        })
        .collect();
    figures(per_column)
}

/// Rills to add to a carve: the tiles, and the weighted contour heading on the carve's grid
/// ([`super::rills::heading_field`]).
pub(crate) type RillCarve<'a> = (&'a Rills, &'a [Array2<f32>; 2]);

/// What [`apply_and_check`]'s carve needs per pixel, each map row's share computed once.
struct Carving<'a> {
    carve: &'a Array2<f32>,
    rills: Option<RillCarve<'a>>,
    crater: &'a Crater,
    n: usize,
    /// Each map row's sea level.
    seas: Vec<f32>,
    /// Each map row's [`spline_taps`] on the carve's grid.
    rows: Vec<SplineTaps>,
    carve_cap: f32,
    deposit_cap: f32,
    margin: f32,
    core: f32,
}

impl Carving<'_> {
    fn new<'a>(
        n: usize,
        carve: &'a Array2<f32>,
        rills: Option<RillCarve<'a>>,
        sea: &SeaLevel,
        crater: &'a Crater,
        c: &Limits,
    ) -> Carving<'a> {
        let w = carve.dim().0;
        Carving {
            carve,
            rills,
            crater,
            n,
            seas: sea.rows(n),
            rows: (0..n).map(|y| spline_taps(position(y, n, w), w)).collect(),
            carve_cap: c.carve_cap_m / METRES_PER_RAW,
            deposit_cap: c.deposit_cap_m / METRES_PER_RAW,
            margin: c.sea_margin_m / METRES_PER_RAW,
            core: c.crater_core * crater.radius_px,
        }
    }

    /// Carves map column `x`.
    fn column(&self, x: usize, mut column: ndarray::ArrayViewMut1<f32>) {
        let (n, w) = (self.n, self.carve.dim().0);
        // The spline summed across x once for the column: each pixel then blends four values.
        // On a map coarser than the grid (no taps) the rills are below its pixels.
        let across = (n >= w).then(|| spline_taps(position(x, n, w), w));
        let line = across.as_ref().map_or_else(Vec::new, |t| spline_line(self.carve, t));
        let headings = self
            .rills
            .zip(across.as_ref())
            .map(|((_, field), t)| field.each_ref().map(|g| spline_line(g, t)));
        for (y, h) in column.iter_mut().enumerate() {
            let s = self.seas[y];
            if *h < s || self.crater.distance(x, y) < self.core {
                continue;
            }
            let d = if n >= w {
                let t = &self.rows[y];
                let read = |line: &[f32]| (0..4).map(|k| line[t.at[k]] * t.weight[k]).sum();
                let carve: f32 = read(&line);
                let rill = match (self.rills, &headings) {
                    (Some((rills, _)), Some([c, s])) if carve > 0.0 => {
                        let carve_m = carve * METRES_PER_RAW;
                        rills.on_carve(x, y, [read(c), read(s)], carve_m) / METRES_PER_RAW
                    }
                    _ => 0.0,
                };
                carve + rill
            } else {
                footprint_mean(self.carve, x, y, n)
            };
            let d = d.clamp(-self.deposit_cap, self.carve_cap);
            *h = if d > 0.0 {
                (*h - d).max((s + self.margin).min(*h))
            } else {
                *h - d
            };
        }
    }
}

/// Runs the droplets on the working grid `work` (`before` its state before the pass); returns
/// the droplet figures.
fn simulate(
    work: &mut Array2<f32>,
    before: &Array2<f32>,
    sea: &SeaLevel,
    crater: &Crater,
    c: &ErosionParams,
    schedule: Schedule,
    on_phase: &(dyn Fn() + Sync),
) -> ErosionStats {
    let n = work.dim().0;
    let lifetime = (c.lifetime_m / CELL_M).round().max(1.0) as usize;
    let brush_cells = (c.brush_m / CELL_M).round().max(1.0) as usize;
    let brush = brush(brush_cells as i32);
    let terrain = Terrain {
        n,
        before,
        sea,
        crater,
        c,
        lifetime,
        brush_cells,
        centre_w: brush
            .iter()
            .find(|b| (b.0, b.1) == (0, 0))
            .map_or(1.0, |b| b.2),
        brush,
        carve_cap_raw: c.dials.carve_cap_m / METRES_PER_RAW,
        deposit_cap_raw: c.dials.deposit_cap_m / METRES_PER_RAW,
        margin_raw: c.dials.sea_margin_m / METRES_PER_RAW,
    };
    let land_cells = (0..n)
        .into_par_iter()
        .map(|x| (0..n).filter(|&y| !sea.is_below(before[[x, y]], y)).count())
        .sum::<usize>();
    let land_km2 = land_cells as f64 * f64::from(CELL_M * CELL_M) / 1e6;
    let starts = droplet_starts(before, sea, c, land_km2);
    let on_land = starts
        .iter()
        .filter(|[x, y]| !sea.is_below(before[[*x as usize, *y as usize]], *y as usize))
        .count();
    // SAFETY of the indexing below: the working grid is n × n in standard layout (made here),
    // so cell (x, y) with x, y < n is element x * n + y of one allocation of n² f32.
    let grid = Grid {
        ptr: work.as_mut_ptr(),
        n,
    };
    let reach_cells = lifetime + brush_cells + 2;
    let steps = match schedule {
        Schedule::Sequential => {
            let whole = Reach {
                x0: 0,
                x1: n,
                y0: 0,
                y1: n,
            };
            let s = starts
                .iter()
                .map(|&[x, y]| u64::from(droplet(&terrain, &grid, whole, x, y)))
                .sum();
            on_phase();
            s
        }
        Schedule::Tiled => tiled(&terrain, &grid, &starts, reach_cells, on_phase),
    };
    ErosionStats {
        droplets: starts.len(),
        droplets_on_land: on_land,
        per_land_km2: on_land as f64 / land_km2.max(f64::MIN_POSITIVE),
        lifetime_cells: lifetime,
        brush_cells,
        steps,
        ..ErosionStats::default()
    }
}

/// The droplets' starts on the working grid, drawn in order from one PCG32 stream: uniformly
/// over the square for a count; for a density, draws until so many have landed on land (water
/// draws are skipped, so the count on land is exact); `land_km2` is the grid's land.
fn droplet_starts(
    before: &Array2<f32>,
    sea: &SeaLevel,
    c: &ErosionParams,
    land_km2: f64,
) -> Vec<[f32; 2]> {
    let n = before.dim().0;
    let mut rng = Pcg32::seed_from_u64(c.stream_seed);
    let span = (n - 1) as f32;
    let mut draw = move || {
        let x = (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32 * span;
        let y = (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32 * span;
        [x, y]
    };
    match c.droplets {
        Droplets::Count(count) => (0..count.max(0)).map(|_| draw()).collect(),
        Droplets::PerLandKm2(density) => {
            let wanted = (f64::from(density) * land_km2).round() as usize;
            // Land is at least a few percent of any map that has some; the bound only stops a
            // landless map from drawing forever.
            let most_draws = wanted.saturating_mul(1_000).max(1_000_000);
            let mut starts = Vec::with_capacity(wanted);
            for _ in 0..most_draws {
                if starts.len() == wanted {
                    break;
                }
                let [x, y] = draw();
                if !sea.is_below(before[[x as usize, y as usize]], y as usize) {
                    starts.push([x, y]);
                }
            }
            starts
        }
    }
}

/// The checkerboard schedule (module doc): returns the steps walked.
fn tiled(
    terrain: &Terrain,
    grid: &Grid,
    starts: &[[f32; 2]],
    reach_cells: usize,
    on_phase: &(dyn Fn() + Sync),
) -> u64 {
    let n = terrain.n;
    let tile = (2 * reach_cells).max(1);
    let tiles = n.div_ceil(tile);
    let mut buckets: Vec<Vec<[f32; 2]>> = vec![Vec::new(); tiles * tiles];
    for &[x, y] in starts {
        let (i, j) = (x as usize / tile, y as usize / tile);
        buckets[i * tiles + j].push([x, y]);
    }
    let mut total = 0u64;
    for colour in 0..4 {
        let members: Vec<(usize, usize)> = (0..tiles)
            .flat_map(|i| (0..tiles).map(move |j| (i, j)))
            .filter(|&(i, j)| (i % 2) * 2 + (j % 2) == colour)
            .collect();
        total += members
            .par_iter()
            .map(|&(i, j)| {
                let reach = Reach {
                    x0: (i * tile).saturating_sub(reach_cells),
                    x1: ((i + 1) * tile + reach_cells).min(n),
                    y0: (j * tile).saturating_sub(reach_cells),
                    y1: ((j + 1) * tile + reach_cells).min(n),
                };
                buckets[i * tiles + j]
                    .iter()
                    .map(|&[x, y]| u64::from(droplet(terrain, grid, reach, x, y)))
                    .sum::<u64>()
            })
            .sum::<u64>();
        on_phase();
    }
    total
}

/// One column's land pixels, pixels past 0.5 / 5 / 10 m, deepest carve and highest build-up.
type ColumnFigures = (usize, [usize; 3], f32, f32);

/// Connected (4-neighbour) sets of pixels carved ≥ [`CHANNEL_DEPTH_M`] from `before` to `after`
/// that cover ≥ [`CHANNEL_SYSTEM_M2`].
fn channel_systems(before: &Array2<f32>, after: &Array2<f32>) -> usize {
    let n = after.dim().0;
    let threshold = CHANNEL_DEPTH_M / METRES_PER_RAW;
    super::mainland::component_sizes((n, n), |x, y| before[[x, y]] - after[[x, y]] >= threshold)
        .into_iter()
        .filter(|&s| s >= channel_system_px(n))
        .count()
}

/// Every guarantee on map column `x`, `before` and `after` the carve (`seas`: each row's sea
/// level), and its figures.
fn check_column(
    x: usize,
    before: ndarray::ArrayView1<f32>,
    after: ndarray::ArrayView1<f32>,
    seas: &[f32],
    crater: &Crater,
    c: &Limits,
) -> Result<ColumnFigures, ErosionError> {
    let tolerance = 1e-3; // metres of f32 rounding on heights of a few hundred metres
    let core = c.crater_core * crater.radius_px;
    let margin_raw = c.sea_margin_m / METRES_PER_RAW;
    let mut past = [0usize; 3];
    let (mut max_carve, mut max_deposit) = (0.0f32, 0.0f32);
    let mut land = 0;
    for (y, (&b, &a)) in before.iter().zip(after.iter()).enumerate() {
        let sea = seas[y];
        land += usize::from(b >= sea);
        if a == b {
            continue;
        }
        let metres = (b - a) * METRES_PER_RAW;
        if metres > c.carve_cap_m + tolerance || -metres > c.deposit_cap_m + tolerance {
            return Err(ErosionError::Cap {
                x,
                y,
                metres,
                carve_cap: c.carve_cap_m,
                deposit_cap: c.deposit_cap_m,
            });
        }
        if b < sea {
            return Err(ErosionError::Sea {
                x,
                y,
                what: "a cell under sea changed",
            });
        }
        if a < b && a < sea + margin_raw - tolerance / METRES_PER_RAW {
            return Err(ErosionError::Sea {
                x,
                y,
                what: "carved below sea + margin",
            });
        }
        if a < sea {
            return Err(ErosionError::Sea {
                x,
                y,
                what: "a land cell went under sea",
            });
        }
        if crater.distance(x, y) < core {
            return Err(ErosionError::Crater { x, y });
        }
        for (k, limit) in [0.5f32, 5.0, 10.0].into_iter().enumerate() {
            past[k] += usize::from(metres > limit);
        }
        max_carve = max_carve.max(metres);
        max_deposit = max_deposit.max(-metres);
    }
    Ok((land, past, max_carve, max_deposit))
}

/// The map's figures from its columns' (the first broken guarantee, in column order, if any).
fn figures(
    per_column: Vec<Result<ColumnFigures, ErosionError>>,
) -> Result<ErosionStats, ErosionError> {
    let mut stats = ErosionStats::default();
    for r in per_column {
        let (land, past, carve, deposit) = r?;
        stats.land_px += land;
        for (total, column) in stats.carved_past.iter_mut().zip(past) {
            *total += column;
        }
        stats.max_carve_m = stats.max_carve_m.max(carve);
        stats.max_deposit_m = stats.max_deposit_m.max(deposit);
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_brush_is_a_normalised_cone() {
        let b = brush(3);
        let total: f32 = b.iter().map(|c| c.2).sum();
        assert!((total - 1.0).abs() < 1e-5);
        let centre = b.iter().find(|c| c.0 == 0 && c.1 == 0).unwrap().2;
        assert!(b.iter().all(|c| c.2 <= centre));
        assert_eq!(b.len(), 25, "cells strictly within 3 of the centre");
        // The pit guard's promise: a step's erosion lowers the droplet's own cell by less than
        // the drop to the next position.
        assert!(centre * PIT_GUARD < 1.0, "centre weight {centre}");
        eprintln!("centre weight {centre}");
    }

    fn dials() -> ErosionParams {
        ErosionParams {
            droplets: Droplets::Count(100),
            lifetime_m: 64.0,
            brush_m: 8.0,
            stream_seed: 1,
            dials: DropletDials {
                carve_cap_m: 15.0,
                deposit_cap_m: 6.0,
                sea_margin_m: 0.5,
                inertia: 0.35,
                capacity_factor: 4.0,
                min_slope_m: 0.05,
                erode_rate: 0.3,
                deposit_rate: 0.3,
                evaporation: 0.01,
                gravity: 4.0,
            },
            crater: CraterGuard {
                core: 0.8,
                feather: 1.05,
                mode: CraterErosionMode::Feather,
            },
        }
    }

    /// Regression: the droplets index the grid as `x * n + y` through a raw pointer,
    /// so any other shape or memory layout is refused at run time, not only in debug builds.
    #[test]
    fn a_grid_of_another_shape_or_layout_is_refused() {
        let sea = SeaLevel::new(crate::sea::SeaModel::Flat(0.15), 64);
        let crater = Crater {
            center: [32.0, 8.0],
            radius_px: 4.0,
            wobble: [[0.0; 2]; 4],
        };
        let slope = |x: usize, y: usize| 0.2 + (x + y) as f32 * 0.002;
        let mut wide = Array2::from_shape_fn((64, 32), |(x, y)| slope(x, y));
        let e = erode(&mut wide, &sea, &crater, &dials(), Schedule::Tiled, &|| {});
        assert!(
            matches!(e, Err(ErosionError::Layout { x: 64, y: 32, .. })),
            "{e:?}"
        );
        let mut transposed = Array2::from_shape_fn((64, 64), |(x, y)| slope(x, y)).reversed_axes();
        let e = erode(
            &mut transposed,
            &sea,
            &crater,
            &dials(),
            Schedule::Tiled,
            &|| {},
        );
        assert!(
            matches!(
                e,
                Err(ErosionError::Layout {
                    standard: false,
                    ..
                })
            ),
            "{e:?}"
        );
        let mut square = Array2::from_shape_fn((64, 64), |(x, y)| slope(x, y));
        erode(
            &mut square,
            &sea,
            &crater,
            &dials(),
            Schedule::Tiled,
            &|| {},
        )
        .unwrap();
    }
}
