//! Droplet hydraulic erosion, Erosion "v1" (EROS erosionVersion 3), on the elevation map.
//!
//! Droplets start at PCG32-drawn positions (from [`ErosionParams::stream_seed`]) and walk downhill
//! one cell per step over bilinearly interpolated heights and gradients, their heading blended
//! with the previous one by `inertia`. Each carries water (evaporating by `evaporation` a step),
//! a speed (gaining `gravity` × drop, in metres), and sediment up to a capacity of
//! max(drop, minSlope) × speed × water × capacityFactor (× [`CAPACITY_SCALE`]). Below capacity
//! and going downhill it erodes `erodeRate` of the shortfall (at most [`PIT_GUARD`] × the drop,
//! spread so thin that it cannot dig a pit);
//! over capacity or going uphill it deposits (`depositRate` of the excess, or enough to fill
//! the rise). Eroding and depositing both spread over the same cone brush of `brushRadius`
//! cells, so neither can spike a single cell. A droplet stops after `lifetime` steps, on
//! flat ground, at the map edge, or on reaching water.
//!
//! Guarantees, each checked on exit of every run (a violation is an [`ErosionError`]):
//! - **Governors**: per cell, the net displacement against the height the pass found — positive
//!   carved, negative built up — stays within [−depositCap, carveCap] metres.
//! - **Sea clamp**: no cell is carved below sea + seaMargin; cells under sea are untouched in
//!   both directions, so the exported coastline cannot move.
//! - **Crater**: nothing within `core` × CraterRadius of the impact is modified; outside it,
//!   "feather" ramps the effect from 0 to full by `feather` × CraterRadius, "full" applies it
//!   at once.
//!
//! **Determinism and parallelism.** The map is cut into square tiles at least twice a droplet's
//! reach (lifetime + brush + 2 cells) wide, coloured like a 2 × 2 checkerboard. Every droplet
//! belongs to the tile it starts in, and a tile's droplets run in their drawn order. The four
//! colours run one after the other; the tiles of one colour run in parallel, and cannot touch a
//! common cell because a droplet never leaves its tile's reach. So the result is the same for
//! any thread count. It differs from running every droplet in drawn order
//! ([`Schedule::Sequential`]) only in the order droplets of different tiles meet; BENCHMARKS.md
//! measures by how much.

use ndarray::Array2;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg32;
use rayon::prelude::*;
use serde::Serialize;

use super::crater::Crater;
use super::sea::SeaLevel;
use crate::units::METRES_PER_RAW;

/// The carved depth (metres) that marks a cell as part of a channel.
pub const CHANNEL_DEPTH_M: f32 = 3.0;
/// Cells a connected set of channel cells needs to count as a channel system.
pub const CHANNEL_SYSTEM_CELLS: usize = 200;
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
    /// Droplets that started on land (the rest fall in water and stop at once).
    pub droplets_on_land: usize,
    /// Droplet steps taken.
    pub steps: u64,
    /// Cells carved by more than 0.5 m, 5 m and 10 m.
    pub carved_past: [usize; 3],
    /// Connected (4-neighbour) sets of ≥ [`CHANNEL_SYSTEM_CELLS`] cells carved ≥ 3 m.
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

/// How erosion treats the crater outside its protected core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CraterMode {
    /// Full strength immediately outside the core.
    Full,
    /// Ramped from zero at the core to full at the feather radius.
    Feather,
}

/// The erosion dials, as applied (validated by the caller; the pipeline records them as EROS).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ErosionParams {
    /// Droplets drawn over the whole map.
    pub droplet_count: i32,
    /// Steps a droplet lives at most.
    pub lifetime: i32,
    /// Most a cell may be carved, metres.
    pub carve_cap_m: f32,
    /// Most a cell may be built up, metres.
    pub deposit_cap_m: f32,
    /// Radius of the erode/deposit cone, cells.
    pub brush_radius: i32,
    /// The seed of the droplet-start stream.
    pub stream_seed: u64,
    /// No cell is carved below sea + this, metres.
    pub sea_margin_m: f32,
    /// How much of its previous heading a droplet keeps, 0 ..= 1.
    pub inertia: f32,
    /// Sediment capacity factor.
    pub capacity_factor: f32,
    /// Smallest drop the capacity counts, metres.
    pub min_slope_m: f32,
    /// Share of the capacity shortfall eroded per step.
    pub erode_rate: f32,
    /// Share of the excess sediment deposited per step.
    pub deposit_rate: f32,
    /// Water lost per step, a fraction.
    pub evaporation: f32,
    /// Speed gained per metre of drop.
    pub gravity: f32,
    /// What happens outside the crater core.
    pub crater_mode: CraterMode,
    /// Protected core, a factor of the crater radius.
    pub crater_core: f32,
    /// Feather outer radius, a factor of the crater radius.
    pub crater_feather: f32,
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
    brush: Vec<(isize, isize, f32)>,
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
        let core = self.c.crater_core * r;
        if d < core {
            return 0.0;
        }
        match self.c.crater_mode {
            CraterMode::Full => 1.0,
            CraterMode::Feather => {
                let feather = self.c.crater_feather * r;
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
    let r = c.brush_radius.max(1) as usize;
    let (mut dx, mut dy) = (0.0f32, 0.0f32);
    let mut speed = START_SPEED;
    let mut water = START_WATER;
    let mut sediment = 0.0f32; // raw height units
    let min_slope = c.min_slope_m / METRES_PER_RAW;
    let mut steps = 0;
    for _ in 0..c.lifetime {
        let (cx, cy) = (px as usize, py as usize);
        if !reach.contains(cx, cy, r) || t.sea.is_below(g.get(cx, cy), cy) {
            break;
        }
        let (h, gx, gy) = sample(g, px, py);
        // The gradient in metres per cell, so inertia weighs a heading against a real slope.
        dx = dx * c.inertia - gx * METRES_PER_RAW * (1.0 - c.inertia);
        dy = dy * c.inertia - gy * METRES_PER_RAW * (1.0 - c.inertia);
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
        let capacity = (-drop).max(min_slope) * speed * water * c.capacity_factor * CAPACITY_SCALE;
        if sediment > capacity || drop > 0.0 {
            let want = if drop > 0.0 {
                drop.min(sediment)
            } else {
                (sediment - capacity) * c.deposit_rate
            };
            sediment -= spread(t, g, cx, cy, want, false);
        } else {
            let want = ((capacity - sediment) * c.erode_rate).min(-drop * PIT_GUARD);
            sediment += spread(t, g, cx, cy, want, true);
        }
        // Speed in metres per step: the drop converted to metres feeds v².
        let v2 = speed * speed - drop * METRES_PER_RAW * c.gravity;
        speed = v2.max(0.0).sqrt();
        water *= 1.0 - c.evaporation;
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
        let h = g.get(x, y);
        let sea = t.sea.at(y);
        if h < sea {
            continue; // under sea: untouched both ways
        }
        let f = t.crater_factor(x, y);
        if f <= 0.0 {
            continue;
        }
        let want = amount * w * f;
        let before = t.before[[x, y]];
        let net = before - h; // raw, positive = carved
        let actual = if carve {
            let room = (t.carve_cap_raw - net).min(h - (sea + t.margin_raw));
            want.min(room).max(0.0)
        } else {
            let room = t.deposit_cap_raw + net;
            want.min(room).max(0.0)
        };
        if actual > 0.0 {
            g.set(x, y, if carve { h - actual } else { h + actual });
            moved += actual;
        }
    }
    moved
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
    let (n, ny) = heights.dim();
    let standard = heights.is_standard_layout();
    if n != ny || !standard || n < 2 {
        return Err(ErosionError::Layout {
            x: n,
            y: ny,
            standard,
        });
    }
    let before = heights.clone();
    let terrain = Terrain {
        n,
        before: &before,
        sea,
        crater,
        c,
        brush: brush(c.brush_radius),
        carve_cap_raw: c.carve_cap_m / METRES_PER_RAW,
        deposit_cap_raw: c.deposit_cap_m / METRES_PER_RAW,
        margin_raw: c.sea_margin_m / METRES_PER_RAW,
    };
    // Droplet starts, drawn in order from one PCG32 stream.
    let mut rng = Pcg32::seed_from_u64(c.stream_seed);
    let span = (n - 1) as f32;
    let starts: Vec<[f32; 2]> = (0..c.droplet_count.max(0))
        .map(|_| {
            let x = (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32 * span;
            let y = (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32 * span;
            [x, y]
        })
        .collect();
    let on_land = starts
        .iter()
        .filter(|[x, y]| !sea.is_below(before[[*x as usize, *y as usize]], *y as usize))
        .count();
    // SAFETY of the indexing below: `heights` was checked above to be n × n in standard layout,
    // so cell (x, y) with x, y < n is element x * n + y of one allocation of n² f32.
    let grid = Grid {
        ptr: heights.as_mut_ptr(),
        n,
    };
    let reach_cells = c.lifetime.max(0) as usize + c.brush_radius.max(1) as usize + 2;
    let whole = Reach {
        x0: 0,
        x1: n,
        y0: 0,
        y1: n,
    };
    let steps: u64 = match schedule {
        Schedule::Sequential => {
            let s = starts
                .iter()
                .map(|&[x, y]| u64::from(droplet(&terrain, &grid, whole, x, y)))
                .sum();
            on_phase();
            s
        }
        Schedule::Tiled => {
            let tile = (2 * reach_cells).max(1);
            let tiles = n.div_ceil(tile);
            let mut buckets: Vec<Vec<[f32; 2]>> = vec![Vec::new(); tiles * tiles];
            for &[x, y] in &starts {
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
                            .map(|&[x, y]| u64::from(droplet(&terrain, &grid, reach, x, y)))
                            .sum::<u64>()
                    })
                    .sum::<u64>();
                on_phase();
            }
            total
        }
    };
    let mut stats = check_and_measure(heights, &before, &terrain)?;
    stats.droplets_on_land = on_land;
    stats.steps = steps;
    Ok(stats)
}

/// One column's cells past 0.5 / 5 / 10 m, deepest carve and highest build-up.
type ColumnFigures = ([usize; 3], f32, f32);

/// The exit check of every guarantee, and the drainage figures.
fn check_and_measure(
    after: &Array2<f32>,
    before: &Array2<f32>,
    t: &Terrain,
) -> Result<ErosionStats, ErosionError> {
    let n = t.n;
    let tolerance = 1e-3; // metres of f32 rounding on heights of a few hundred metres
    let core = t.c.crater_core * t.crater.radius_px;
    let per_column: Vec<Result<ColumnFigures, ErosionError>> = (0..n)
        .into_par_iter()
        .map(|x| {
            let mut past = [0usize; 3];
            let (mut max_carve, mut max_deposit) = (0.0f32, 0.0f32);
            for y in 0..n {
                let (b, a) = (before[[x, y]], after[[x, y]]);
                if a == b {
                    continue;
                }
                let sea = t.sea.at(y);
                let metres = (b - a) * METRES_PER_RAW;
                if metres > t.c.carve_cap_m + tolerance || -metres > t.c.deposit_cap_m + tolerance {
                    return Err(ErosionError::Cap {
                        x,
                        y,
                        metres,
                        carve_cap: t.c.carve_cap_m,
                        deposit_cap: t.c.deposit_cap_m,
                    });
                }
                if b < sea {
                    return Err(ErosionError::Sea {
                        x,
                        y,
                        what: "a cell under sea changed",
                    });
                }
                if a < b && a < sea + t.margin_raw - tolerance / METRES_PER_RAW {
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
                if t.crater.distance(x, y) < core {
                    return Err(ErosionError::Crater { x, y });
                }
                for (k, limit) in [0.5f32, 5.0, 10.0].into_iter().enumerate() {
                    past[k] += usize::from(metres > limit);
                }
                max_carve = max_carve.max(metres);
                max_deposit = max_deposit.max(-metres);
            }
            Ok((past, max_carve, max_deposit))
        })
        .collect();
    let mut stats = ErosionStats::default();
    for r in per_column {
        let (past, carve, deposit) = r?;
        for (total, column) in stats.carved_past.iter_mut().zip(past) {
            *total += column;
        }
        stats.max_carve_m = stats.max_carve_m.max(carve);
        stats.max_deposit_m = stats.max_deposit_m.max(deposit);
    }
    let threshold = CHANNEL_DEPTH_M / METRES_PER_RAW;
    stats.channel_systems = super::mainland::component_sizes((n, n), |x, y| {
        before[[x, y]] - after[[x, y]] >= threshold
    })
    .into_iter()
    .filter(|&s| s >= CHANNEL_SYSTEM_CELLS)
    .count();
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
            droplet_count: 100,
            lifetime: 16,
            carve_cap_m: 15.0,
            deposit_cap_m: 6.0,
            brush_radius: 2,
            stream_seed: 1,
            sea_margin_m: 0.5,
            inertia: 0.35,
            capacity_factor: 4.0,
            min_slope_m: 0.05,
            erode_rate: 0.3,
            deposit_rate: 0.3,
            evaporation: 0.01,
            gravity: 4.0,
            crater_mode: CraterMode::Feather,
            crater_core: 0.8,
            crater_feather: 1.05,
        }
    }

    /// Regression (issue 15): the droplets index the grid as `x * n + y` through a raw pointer,
    /// so any other shape or memory layout is refused at run time, not only in debug builds.
    #[test]
    fn a_grid_of_another_shape_or_layout_is_refused() {
        let sea = SeaLevel::new(crate::stages::sea::SeaModel::Flat(0.15), 64);
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
