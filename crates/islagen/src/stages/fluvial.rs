//! Fluvial relief, Erosion "v2": valleys and ridges cut by rivers into the elevation map, by
//! stream-power channel incision with hillslope diffusion.
//!
//! **The same valleys at every MapSize.** The landscape evolves on a fixed grid of [`GRID`]²
//! cells of [`CELL_M`] metres over the whole world — the rivers' hydrology grid, so rivers and
//! valleys are one drainage. The design on it is the elevation made at the grid's own size (the
//! caller's), or the map's heights box-averaged onto it (interpolated on maps coarser than it),
//! the grid evolves, and the depth it lost is brought back to every map pixel
//! (interpolated, or averaged over the pixel's footprint) through the same governors as the
//! droplet erosion ([`super::erosion::Limits`]). Every dial is physical: erodibility per year,
//! uplift in mm/yr, diffusivity in m²/yr, the time the land has had in Myr.
//!
//! **The model** (Braun & Willett 2013, the FastScape method): each step routes flow on the
//! current surface — every cell's receiver its steepest lower neighbour (D8 on the cells'
//! centre distances), the drainage area accumulated by multiple-flow-direction routing (the
//! rivers stage's kernel: shares ∝ slope^8 among all lower neighbours, so catchments, and with
//! them the valleys, follow the land rather than the eight grid headings) — then solves
//! ∂h/∂t = U − K A^m S (n = 1) implicitly, cell after cell from the base level up, which is
//! stable for any time step and O(n); then ∂h/∂t = D ∇²h implicitly on the hillslopes, a line
//! at a time in x and then in y (Thomas' algorithm), also stable for any step, with the
//! channels (catchments from [`CHANNEL_AREA_M2`]) held: the walls relax onto the beds the
//! stream power grades, which keep the graded profile. Sea cells are the base level (at sea
//! level), the crater's core and the grid's edge are fixed. Last, the valley walls are laid back
//! to the critical slope soil holds ([`CRITICAL_SLOPE`], Roering et al. 1999): stream power
//! deepens channels faster than linear creep widens them, and what it leaves are slots no one
//! can climb out of.
//!
//! **The design stays.** The designed surface H₀ is what the land is uplifted *to*: after every
//! step no cell stands above H₀, so the land evolves in the frame of a surface uplifted as fast
//! as it was made, channels cut down into it towards their graded (steady-state) profile
//! h = (U/K) χ, and what they have not reached keeps its designed height. Uplift rises with the
//! design above [`RELIEF_REF_M`] (×1 up to it, ×4 at four times it; Cordonnier et al. 2016's
//! uplift map), so the highlands' channels grade steeper and a massif is dissected, not planed — the terrain curve's
//! shelves, the plateau, the 420 m cap. Only lowering happens; cells under sea never change;
//! nothing is carved below sea + margin or inside the crater's core (feathered out to
//! `crater_feather`, like the droplets). A channel's graded profile rises faster the smaller
//! its catchment, so on the lowland only the large rivers cut (their floodplains), and valleys
//! deepen into the benches and the plateau where the design rises faster than the rivers. A
//! HardRockMask scales K cell by cell ([`HARD_ROCK_K`]).
//!
//! **Determinism.** Per-cell work is parallel and order-free; the flow order is a sort by
//! (height, cell index), a total order; the accumulation and the implicit solve run in that
//! order on one thread. The result does not depend on the thread count.
//!
//! # References
//! - Braun, J. & Willett, S. D. (2013). A very efficient O(n), implicit and parallel method to
//!   solve the stream power equation governing fluvial incision and landscape evolution.
//!   Geomorphology 180–181, 170–179.
//! - Cordonnier, G. et al. (2016). Large scale terrain generation from tectonic uplift and
//!   fluvial erosion. Computer Graphics Forum 35(2).
//! - Howard, A. D. (1994). A detachment-limited model of drainage basin evolution. Water
//!   Resources Research 30(7).
//! - Freeman, T. G. (1991). Calculating catchment area with divergent flow based on a regular
//!   grid. Computers & Geosciences 17(3); Holmgren, P. (1994), Hydrological Processes 8.
//! - Roering, J. J., Kirchner, J. W. & Dietrich, W. E. (1999). Evidence for nonlinear,
//!   diffusive sediment transport on hillslopes and implications for landscape morphology.
//!   Water Resources Research 35(3).
//! - Whipple, K. X. (2004). Bedrock rivers and the geomorphology of active orogens. Annual
//!   Review of Earth and Planetary Sciences 32.

use ndarray::Array2;
use rayon::prelude::*;
use serde::Serialize;

use super::crater::Crater;
use super::curve::BALANCED;
use super::erosion::{self, ErosionError, Limits};
use crate::dials::{CraterErosionMode, CraterGuard};
use super::rills::{self, Rills};
use super::rivers;
use crate::sea::SeaLevel;
use crate::grid::{ascending, NEIGHBOURS};
use crate::units::{METRES_PER_RAW, WORLD_SIZE_M};

/// Cells a side of the landscape grid (the rivers' hydrology grid).
pub const GRID: usize = rivers::GRID;
/// The grid's cell, metres.
pub const CELL_M: f32 = WORLD_SIZE_M / GRID as f32;
/// The stream-power law's area exponent m (slope exponent n = 1): the graded channels'
/// concavity m/n, inside the 0.35–0.65 of real rivers (Whipple 2004).
pub const AREA_EXPONENT: f32 = 0.45;
/// The design height at which uplift is the dial's, metres: uplift scales with the designed
/// height (Cordonnier et al. 2016's uplift map), so graded channels rise with the design.
pub const RELIEF_REF_M: f32 = 100.0;
/// The catchment from which a cell is a channel, m²: the diffusion leaves channels alone
/// (`held`). 0.005 km², a tenth of the smallest catchment the drainage statistics call a
/// channel, so the valley walls of every measured channel are rounded down to their beds.
pub const CHANNEL_AREA_M2: f32 = 5_000.0;
/// The steepest a valley wall stands, metres per metre: 0.7, 35°, the angle soil-mantled
/// threshold hillslopes hold (Roering et al. 1999: S_c 0.7–0.8 where landslides and
/// nonlinear creep take whatever stands steeper); the evolution lays every valley wall back
/// to it.
pub const CRITICAL_SLOPE: f32 = 0.7;
/// Designed ground above this stands as rock, metres: the top 80 m of the summit spires under
/// the 420 m cap, which the walls are not laid back through, so every seed keeps its peaks and
/// the summit its cap. Lower (the plateau band's top, 250 m) keeps 15 % of the land above
/// 110 m steeper than 40°; higher gives the peaks away (seeds 1–12 at 2048: 221–299 m).
pub const ROCK_M: f32 = BALANCED.cap_m - 80.0;
/// A cell carved deeper than this below its design, metres, is a valley whose walls
/// [`threshold_walls`] lays back.
const WALL_SOURCE_M: f32 = 0.5;
/// The most a cell may be carved, metres: the whole height range (the valleys' depth is the
/// model's, the cap only guards the check).
pub const CARVE_CAP_M: f32 = 420.0;

/// The dials, as applied (validated by the caller).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FluvialParams {
    /// Erodibility K of the stream-power law, per Myr (m^(1−2m)/Myr).
    pub erodibility_per_myr: f32,
    /// Rock uplift U, mm/yr.
    pub uplift_mm_yr: f32,
    /// Hillslope diffusivity D, m²/yr.
    pub diffusivity_m2_yr: f32,
    /// The time the land has had, Myr.
    pub maturity_myr: f32,
    /// Implicit steps it is solved in.
    pub steps: u32,
    /// No cell is carved below sea + this, metres.
    pub sea_margin_m: f32,
    /// How the crater is spared.
    pub crater: CraterGuard,
}

impl FluvialParams {
    /// The governors the map is checked against.
    pub fn limits(&self) -> Limits {
        Limits {
            carve_cap_m: CARVE_CAP_M,
            deposit_cap_m: 0.0,
            sea_margin_m: self.sea_margin_m,
            crater_core: self.crater.core,
        }
    }
}

/// What the stage did, for the summary and the tests.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FluvialStats {
    /// Steps solved.
    pub steps: u32,
    /// Land cells of the grid.
    pub land_cells: usize,
    /// Land cells of the grid lowered by more than 1 m, 10 m and 50 m.
    pub carved_past: [usize; 3],
    /// Deepest carve on the grid, metres.
    pub max_carve_m: f32,
    /// Mean carve over the grid's land, metres.
    pub mean_carve_m: f32,
    /// Land pixels of the map.
    pub land_px: usize,
    /// Deepest carve on the map, metres.
    pub map_max_carve_m: f32,
}

/// The carved landscape: the map is lowered in place; this is what the rivers read.
#[derive(Clone, Debug)]
pub struct Landscape {
    /// The carved grid, raw height units (absolute), `x * GRID + y`.
    pub heights: Vec<f32>,
    /// What was done.
    pub stats: FluvialStats,
}

/// The grid's cells that never move: sea (the base level), the crater's core, the edge; and
/// how easily each cell's rock erodes.
struct Frame {
    n: usize,
    fixed: Vec<bool>,
    /// How much of the carve acts at each cell, 0 ..= 1 (the crater's core and feather).
    weight: Vec<f32>,
    /// The erodibility's multiplier at each cell: 1, or [`HARD_ROCK_K`]^hardness under a
    /// HardRockMask.
    erodibility: Vec<f32>,
}

/// Erodibility of the hardest rock (a HardRockMask's white) relative to the rest: it erodes
/// half as fast. Between black and white the multiplier is geometric (0.5 grey: ×0.71). The
/// carve answers steeply: under the design's cap a channel cuts only where its graded profile,
/// (U/K) χ, lies below the design, so at K × 0.5 hard rock keeps about a twentieth of the
/// depth soft rock loses and stands as the design's ridges, and soft rock upstream of it,
/// whose base level it holds, keeps about two thirds.
pub const HARD_ROCK_K: f32 = 0.5;

/// Carves valleys into `heights` (the elevation map, raw units) in place. `grid` is the design
/// on the landscape grid when the caller has it (the pipeline makes the same elevation at the
/// grid's own size, so every MapSize carves the same valleys); without it the map is resampled
/// onto the grid. [`solve`] then [`carve`]: a caller with the design before the map's heights
/// runs the two apart.
#[allow(clippy::too_many_arguments)]
pub fn relief(
    heights: &mut Array2<f32>,
    grid: Option<Array2<f32>>,
    sea: &SeaLevel,
    crater: &Crater,
    p: &FluvialParams,
    hard_rock: Option<&Array2<f32>>,
    rills: Option<&Rills>,
    on_step: &(dyn Fn() + Sync),
) -> Result<Landscape, ErosionError> {
    let n = erosion::square_side(heights)?;
    let raw = match grid {
        Some(raw) if raw.dim() == (GRID, GRID) => raw,
        _ => erosion::to_working(heights, GRID),
    };
    let solved = solve(&raw, n, sea, crater, p, hard_rock, on_step);
    carve(heights, solved, rills, sea, crater, p)
}

/// The landscape evolved on the grid, and the depth each cell lost: [`solve`]'s answer, before
/// the map is carved.
pub struct Solved {
    /// The depth each grid cell lost, raw units, weighted by the crater ramp and clamped to
    /// sea + margin.
    carve_raw: Array2<f32>,
    /// The carved grid's weighted contour heading, for the rills ([`rills::heading_field`]).
    heading: [Array2<f32>; 2],
    /// The carved grid and its figures (the map's figures still 0).
    landscape: Landscape,
}

/// Evolves the design `raw` (the landscape grid's raw heights) for a map of `map_side` pixels a
/// side whose crater is `crater`, its rock as hard as `hard_rock` says (0 ..= 1 on the grid, a
/// HardRockMask; none: all alike). Reads nothing of the map's heights.
pub fn solve(
    raw: &Array2<f32>,
    map_side: usize,
    sea: &SeaLevel,
    crater: &Crater,
    p: &FluvialParams,
    hard_rock: Option<&Array2<f32>>,
    on_step: &(dyn Fn() + Sync),
) -> Solved {
    let g = GRID;
    let grid_crater = crater.on(map_side, g);
    let design = above_sea(raw, sea);
    let mut frame = Frame::new(&design, crater_weights(&grid_crater, p, g));
    if let Some(hard) = hard_rock.filter(|h| h.dim() == (g, g)) {
        frame.erodibility = hard
            .iter()
            .map(|&h| HARD_ROCK_K.powf(h.clamp(0.0, 1.0)))
            .collect();
    }
    let carved = evolve(&design, &frame, p, on_step);
    let mut stats = grid_stats(&design, &carved, &frame);
    stats.steps = p.steps;
    let margin = p.sea_margin_m;
    let carve_raw = Array2::from_shape_fn((g, g), |(x, y)| {
        let i = x * g + y;
        let room = (design[i] - margin).max(0.0);
        (design[i] - carved[i]).clamp(0.0, room) * frame.weight[i] / METRES_PER_RAW
    });
    let heights = raw
        .iter()
        .zip(carve_raw.iter())
        .map(|(&h, &c)| h - c)
        .collect();
    Solved {
        heading: rills::heading_field(&carved, &frame.weight, g, CELL_M),
        carve_raw,
        landscape: Landscape { heights, stats },
    }
}

/// Brings the depth `solved` took off the grid back to every pixel of `heights`, with `rills`
/// on its hillslopes, through the governors (the first broken one is the error).
pub fn carve(
    heights: &mut Array2<f32>,
    solved: Solved,
    rills: Option<&Rills>,
    sea: &SeaLevel,
    crater: &Crater,
    p: &FluvialParams,
) -> Result<Landscape, ErosionError> {
    let rills = rills.map(|r| (r, &solved.heading));
    let limits = p.limits();
    let map = erosion::apply_and_check(heights, &solved.carve_raw, rills, sea, crater, &limits)?;
    let mut landscape = solved.landscape;
    landscape.stats.land_px = map.land_px;
    landscape.stats.map_max_carve_m = map.max_carve_m;
    Ok(landscape)
}

impl Frame {
    /// The frame of a design on the grid: sea cells (at or below 0 m), cells the carve may not
    /// touch (weight 0: the crater's core) and the grid's edge are fixed.
    fn new(design: &[f32], weight: Vec<f32>) -> Frame {
        let n = GRID;
        let fixed = (0..n * n)
            .map(|i| {
                let (x, y) = (i / n, i % n);
                design[i] <= 0.0 || weight[i] <= 0.0 || x == 0 || y == 0 || x == n - 1 || y == n - 1
            })
            .collect();
        Frame {
            n,
            fixed,
            weight,
            erodibility: vec![1.0; n * n],
        }
    }
}

/// How much of the carve acts at each grid cell: 0 in the crater's core, ramped to 1 by the
/// feather radius (or 1 at once in "full" mode).
fn crater_weights(crater: &Crater, p: &FluvialParams, n: usize) -> Vec<f32> {
    let r = crater.radius_px;
    let (core, feather) = (p.crater.core * r, p.crater.feather * r);
    (0..n * n)
        .into_par_iter()
        .map(|i| {
            let d = crater.distance(i / n, i % n);
            if d < core {
                0.0
            } else if p.crater.mode == CraterErosionMode::Full || d >= feather {
                1.0
            } else {
                (d - core) / (feather - core).max(f32::EPSILON)
            }
        })
        .collect()
}

/// Raw heights on the grid as metres above the local sea, sea cells at the base level, 0.
fn above_sea(raw: &Array2<f32>, sea: &SeaLevel) -> Vec<f32> {
    let grid_sea = sea.on(raw.dim().1);
    raw.indexed_iter()
        .map(|((_, y), &h)| ((h - grid_sea.at(y)) * METRES_PER_RAW).max(0.0))
        .collect()
}

/// Evolves a design given directly on the grid (metres above sea, sea cells ≤ 0, `x * GRID +
/// y`) with no crater: what `relief` runs, for benchmarks against a peer on the same heights.
pub fn evolve_metres(design: &[f32], p: &FluvialParams, on_step: &(dyn Fn() + Sync)) -> Vec<f32> {
    assert_eq!(design.len(), GRID * GRID, "a design of GRID² cells");
    let frame = Frame::new(design, vec![1.0; GRID * GRID]);
    let design: Vec<f32> = design.iter().map(|&d| d.max(0.0)).collect();
    evolve(&design, &frame, p, on_step)
}

/// The elevation map's heights on the grid, metres above the local sea (sea cells 0).
pub fn design(heights: &Array2<f32>, sea: &SeaLevel) -> Vec<f32> {
    above_sea(&erosion::to_working(heights, GRID), sea)
}

/// Evolves the design for `p.maturity_myr` in `p.steps` implicit steps; returns the surface
/// (metres above sea), never above the design.
fn evolve(
    design: &[f32],
    frame: &Frame,
    p: &FluvialParams,
    on_step: &(dyn Fn() + Sync),
) -> Vec<f32> {
    let n = frame.n;
    // The cap is the design with its closed depressions filled (ε-Priority-Flood), so every
    // cell drains from the start and stays draining; a depression's floor keeps the design's
    // heights in the result.
    let mut cap = design.to_vec();
    rivers::epsilon_fill(&mut cap, &frame.fixed, n);
    let mut h = cap.clone();
    let steps = p.steps.max(1);
    let dt_yr = p.maturity_myr * 1e6 / steps as f32;
    let r = p.diffusivity_m2_yr * dt_yr / (CELL_M * CELL_M);
    for _ in 0..steps {
        step(&mut h, &cap, frame, r, p, dt_yr);
        on_step();
    }
    h.par_iter_mut()
        .zip(design.par_iter())
        .for_each(|(v, &d)| *v = v.min(d));
    threshold_walls(&mut h, design, &frame.fixed, n);
    h
}

/// The 16 neighbours a wall is laid back over (the eight and the knight's moves, so the cone
/// around a valley floor is round to within 3 %, where the eight alone make it an octagon), and
/// their distances in cells.
const CONE: [(isize, isize, f32); 16] = {
    const D: f32 = std::f32::consts::SQRT_2;
    const K: f32 = 2.236_068;
    [
        (-1, -1, D),
        (-1, 0, 1.0),
        (-1, 1, D),
        (0, -1, 1.0),
        (0, 1, 1.0),
        (1, -1, D),
        (1, 0, 1.0),
        (1, 1, D),
        (-2, -1, K),
        (-2, 1, K),
        (-1, -2, K),
        (-1, 2, K),
        (1, -2, K),
        (1, 2, K),
        (2, -1, K),
        (2, 1, K),
    ]
};

/// Threshold hillslopes: every valley wall laid back to [`CRITICAL_SLOPE`]. The stream power
/// cuts channels down to their graded profile faster than linear creep can widen them, which
/// leaves slots; on real hillslopes whatever stands steeper than the critical slope fails and
/// the channel carries it off, so the walls retreat at that angle and the valley widens. Each
/// cell ends no higher than any valley cell (carved past [`WALL_SOURCE_M`]) plus the critical
/// slope times the distance between them, measured through the cells this lowers: the cone
/// hangs from the valley floors and stops where it meets the land, so ground the valleys never
/// reached (the design's own scarps, the coast) keeps its height, and so does rock (designed
/// above [`ROCK_M`]). A Dijkstra search over the
/// [`CONE`] stencil, in (height, cell) order on one thread: the same on any thread count. Only
/// lowers; fixed cells never move.
fn threshold_walls(h: &mut [f32], design: &[f32], fixed: &[bool], n: usize) {
    use std::cmp::Reverse;
    // The height's bits mapped so their unsigned order is the floats' order (negatives too),
    // then the cell: one u64 key a total order.
    let ordered = |v: f32| {
        let b = v.to_bits();
        if b >> 31 == 1 {
            !b
        } else {
            b | 0x8000_0000
        }
    };
    let entry = |v: f32, i: usize| Reverse((u64::from(ordered(v)) << 32) | i as u64);
    let mut open: std::collections::BinaryHeap<Reverse<u64>> = (0..n * n)
        .filter(|&i| !fixed[i] && h[i] < design[i] - WALL_SOURCE_M)
        .map(|i| entry(h[i], i))
        .collect();
    let rise: [f32; 16] = CONE.map(|(_, _, d)| CRITICAL_SLOPE * CELL_M * d);
    while let Some(Reverse(e)) = open.pop() {
        let i = (e & 0xffff_ffff) as usize;
        if (e >> 32) as u32 != ordered(h[i]) {
            continue; // lowered again since this entry was queued
        }
        let v = h[i];
        let (x, y) = ((i / n) as isize, (i % n) as isize);
        for (k, &(dx, dy, _)) in CONE.iter().enumerate() {
            let (nx, ny) = (x + dx, y + dy);
            if nx < 0 || ny < 0 || nx >= n as isize || ny >= n as isize {
                continue;
            }
            let j = nx as usize * n + ny as usize;
            let limit = v + rise[k];
            if !fixed[j] && h[j] > limit && design[j] <= ROCK_M {
                h[j] = limit;
                open.push(entry(limit, j));
            }
        }
    }
}

/// One implicit step: routing, stream-power incision, diffusion of the hillslopes (`r` = D dt /
/// dx²), the design's cap.
fn step(h: &mut [f32], cap: &[f32], frame: &Frame, r: f32, p: &FluvialParams, dt_yr: f32) {
    let n = frame.n;
    let order = ascending(h);
    let cells = accumulate(h, &frame.fixed, &order, n);
    let k_dt = p.erodibility_per_myr * 1e-6 * dt_yr;
    let uplift = p.uplift_mm_yr * 1e-3 * dt_yr;
    let lift = |i: usize| uplift * (cap[i] / RELIEF_REF_M).clamp(1.0, 4.0);
    let cell_area = CELL_M * CELL_M;
    // Each cell's receiver and its factor F = K dt A^m / distance (0 for a fixed cell or a pit).
    let factors: Vec<(u32, f32)> = (0..n * n)
        .into_par_iter()
        .map(|i| {
            let (r, distance) = receiver(h, &frame.fixed, i, n);
            let f = if r as usize == i {
                0.0
            } else {
                k_dt * frame.erodibility[i] * (cells[i] * cell_area).powf(AREA_EXPONENT) / distance
            };
            (r, f)
        })
        .collect();
    // Receivers first (ascending height), so each cell's receiver already has its new height.
    for &i in &order {
        let i = i as usize;
        if frame.fixed[i] {
            continue;
        }
        let (r, f) = factors[i];
        let lifted = h[i] + lift(i);
        h[i] = (lifted + f * h[r as usize]) / (1.0 + f);
    }
    if r > 0.0 {
        diffuse(h, &held(&frame.fixed, &cells), n, r);
    }
    h.par_iter_mut()
        .zip(cap.par_iter())
        .for_each(|(v, &d)| *v = v.min(d));
}

/// The cells the hillslope diffusion holds: the frame's fixed cells and the channels, whose
/// catchment reaches [`CHANNEL_AREA_M2`]. Diffusion is a hillslope process: a channel carries
/// away what its walls shed and keeps the bed the stream-power law grades (the
/// channel–hillslope split of detachment-limited models, Howard 1994). Diffusing the beds too
/// filled every valley narrower than sqrt(D T), 60 m at the defaults, and left the channels off
/// their graded profile.
fn held(fixed: &[bool], cells: &[f32]) -> Vec<bool> {
    let threshold = CHANNEL_AREA_M2 / (CELL_M * CELL_M);
    fixed
        .par_iter()
        .zip(cells.par_iter())
        .map(|(&f, &c)| f || c >= threshold)
        .collect()
}

/// The rivers stage's multiple-flow-direction accumulation ([`rivers::accumulate`]: shares
/// ∝ (slope / steepest)^8 among the lower neighbours, in cells, each counting itself) on a grid
/// whose edge is fixed, so no neighbour needs a bounds test.
fn accumulate(h: &[f32], fixed: &[bool], order: &[u32], n: usize) -> Vec<f32> {
    let (ni, d) = (n as isize, std::f32::consts::SQRT_2);
    let offsets: [(isize, f32); 8] = [
        (-ni - 1, d),
        (-ni, 1.0),
        (-ni + 1, d),
        (-1, 1.0),
        (1, 1.0),
        (ni - 1, d),
        (ni, 1.0),
        (ni + 1, d),
    ];
    let mut acc = vec![1.0f32; n * n];
    for &i in order.iter().rev() {
        let i = i as usize;
        if fixed[i] {
            continue;
        }
        let mut shares = [0.0f32; 8];
        let mut steepest = 0.0f32;
        for (k, &(o, distance)) in offsets.iter().enumerate() {
            let drop = h[i] - h[(i as isize + o) as usize];
            if drop > 0.0 {
                shares[k] = drop / distance;
                steepest = steepest.max(shares[k]);
            }
        }
        if steepest <= 0.0 {
            continue;
        }
        let mut total = 0.0;
        for s in shares.iter_mut().filter(|s| **s > 0.0) {
            *s = rivers::weight(*s / steepest);
            total += *s;
        }
        let a = acc[i] / total;
        for (k, &(o, _)) in offsets.iter().enumerate() {
            if shares[k] > 0.0 {
                acc[(i as isize + o) as usize] += a * shares[k];
            }
        }
    }
    acc
}

/// Cell `i`'s steepest lower neighbour and the distance to it, metres (itself for a fixed cell
/// or a pit).
fn receiver(h: &[f32], fixed: &[bool], i: usize, n: usize) -> (u32, f32) {
    if fixed[i] {
        return (i as u32, CELL_M);
    }
    let (x, y) = (i / n, i % n);
    let mut best = (i as u32, CELL_M, 0.0f32);
    for (dx, dy) in NEIGHBOURS {
        let j = (x as isize + dx) as usize * n + (y as isize + dy) as usize;
        let d = if dx * dy != 0 {
            CELL_M * std::f32::consts::SQRT_2
        } else {
            CELL_M
        };
        let slope = (h[i] - h[j]) / d;
        if slope > best.2 {
            best = (j as u32, d, slope);
        }
    }
    (best.0, best.1)
}

/// Implicit linear diffusion, `r` = D dt / dx² per step, of every cell but the `held` ones: a
/// line solve along y for every x, then along x for every y, each line tridiagonal with its held
/// cells and ends as fixed values (Thomas' algorithm; the elimination factors are made in the
/// forward sweep, since the held cells change every step).
fn diffuse(h: &mut [f32], held: &[bool], n: usize, r: f32) {
    let lines = |h: &mut [f32], held: &[bool]| {
        h.par_chunks_mut(n).zip(held.par_chunks(n)).for_each_init(
            || vec![0.0f32; n],
            |c, (line, held)| solve_line(line, held, r, c),
        );
    };
    lines(h, held);
    let mut t = transpose(h, n);
    lines(&mut t, &transpose(held, n));
    h.copy_from_slice(&transpose(&t, n));
}

/// Solves (1 + 2r) xᵢ − r xᵢ₋₁ − r xᵢ₊₁ = vᵢ along one line in place, holding its held cells
/// and both ends at their values; `c` is scratch of the line's length.
fn solve_line(line: &mut [f32], held: &[bool], r: f32, c: &mut [f32]) {
    let n = line.len();
    let (mut prev_c, mut prev_d) = (0.0f32, 0.0f32);
    for i in 0..n {
        if held[i] || i == 0 || i == n - 1 {
            (prev_c, prev_d) = (0.0, line[i]);
        } else {
            let m = 1.0 + 2.0 * r + r * prev_c;
            (prev_c, prev_d) = (-r / m, (line[i] + r * prev_d) * (1.0 / m));
        }
        c[i] = prev_c;
        line[i] = prev_d;
    }
    for i in (0..n - 1).rev() {
        line[i] -= c[i] * line[i + 1];
    }
}

fn transpose<T: Copy + Default + Send + Sync>(a: &[T], n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n * n];
    out.par_chunks_mut(n).enumerate().for_each(|(y, row)| {
        for (x, v) in row.iter_mut().enumerate() {
            *v = a[x * n + y];
        }
    });
    out
}

fn grid_stats(design: &[f32], carved: &[f32], frame: &Frame) -> FluvialStats {
    let mut s = FluvialStats::default();
    let mut total = 0.0f64;
    for i in 0..design.len() {
        if design[i] <= 0.0 {
            continue;
        }
        s.land_cells += 1;
        let d = (design[i] - carved[i]) * frame.weight[i];
        total += f64::from(d);
        for (k, limit) in [1.0f32, 10.0, 50.0].into_iter().enumerate() {
            s.carved_past[k] += usize::from(d > limit);
        }
        s.max_carve_m = s.max_carve_m.max(d);
    }
    s.mean_carve_m = (total / s.land_cells.max(1) as f64) as f32;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sea::SeaModel;

    fn dials() -> FluvialParams {
        FluvialParams {
            erodibility_per_myr: 50.0,
            uplift_mm_yr: 0.2,
            diffusivity_m2_yr: 0.0,
            maturity_myr: 20.0,
            steps: 40,
            sea_margin_m: 0.5,
            crater: CraterGuard {
                mode: CraterErosionMode::Feather,
                core: 0.8,
                feather: 1.05,
            },
        }
    }

    /// A cone island of `top` metres in the middle of the grid, with a little relief so flow
    /// has somewhere to go.
    fn cone(top: f32) -> Vec<f32> {
        let n = GRID;
        (0..n * n)
            .map(|i| {
                let (x, y) = (
                    (i / n) as f32 / n as f32 - 0.5,
                    (i % n) as f32 / n as f32 - 0.5,
                );
                let r = x.hypot(y) / 0.4;
                let ripple = 2.0 * ((x * 97.0).sin() * (y * 89.0).cos());
                (top * (1.0 - r) + ripple).max(-1.0)
            })
            .collect()
    }

    /// Braun & Willett's steady state: where the channels have been graded below the design,
    /// every cell's slope to its receiver is (U/K) A^−m, the stream-power law solved exactly —
    /// with the hillslopes diffusing at the default diffusivity, which must not lift the beds.
    #[test]
    fn graded_channels_reach_the_stream_power_steady_state() {
        let mut p = dials();
        // The default dial's diffusivity; the design under RELIEF_REF_M everywhere, so uplift
        // is the dial's.
        p.diffusivity_m2_yr = 0.002;
        let design = cone(RELIEF_REF_M * 0.99);
        let h = evolve_metres(&design, &p, &|| {});
        let n = GRID;
        let fixed = Frame::new(&design, vec![1.0; n * n]).fixed;
        let order = ascending(&h);
        let cells = accumulate(&h, &fixed, &order, n);
        let ks = p.uplift_mm_yr * 1e-3 / (p.erodibility_per_myr * 1e-6);
        let mut errors = Vec::new();
        for i in 0..n * n {
            // Graded cells: well below the design, with a real catchment.
            if fixed[i] || h[i] > design[i] - 5.0 || cells[i] < 50.0 {
                continue;
            }
            let (r, d) = receiver(&h, &fixed, i, n);
            if r as usize == i {
                continue;
            }
            let s = (h[i] - h[r as usize]) / d;
            let expected = ks * (cells[i] * CELL_M * CELL_M).powf(-AREA_EXPONENT);
            errors.push((s / expected - 1.0).abs());
        }
        errors.sort_by(f32::total_cmp);
        assert!(errors.len() > 1000, "{} graded cells", errors.len());
        let median = errors[errors.len() / 2];
        let p90 = errors[errors.len() * 9 / 10];
        eprintln!(
            "{} graded cells: median error {median}, p90 {p90}",
            errors.len()
        );
        assert!(median < 0.02 && p90 < 0.15, "median {median}, p90 {p90}");
    }

    #[test]
    fn the_land_only_goes_down_and_never_above_its_design() {
        let design = cone(300.0);
        let h = evolve_metres(&design, &dials(), &|| {});
        for (i, (&d, &e)) in design.iter().zip(&h).enumerate() {
            assert!(e <= d.max(0.0), "cell {i}: {e} above its design {d}");
            assert!(e >= 0.0, "cell {i} below sea: {e}");
        }
        let lowered = design
            .iter()
            .zip(&h)
            .filter(|(d, e)| **d - **e > 10.0)
            .count();
        assert!(lowered > 10_000, "only {lowered} cells carved past 10 m");
    }

    /// The diffusion holds the channels and relaxes only the hillslopes.
    #[test]
    fn diffusion_moves_hillslopes_and_never_a_channel() {
        let n = GRID;
        let h0 = cone(200.0);
        let fixed = Frame::new(&h0, vec![1.0; n * n]).fixed;
        let cells = accumulate(&h0, &fixed, &ascending(&h0), n);
        let held = held(&fixed, &cells);
        let channels = (0..n * n).filter(|&i| held[i] && !fixed[i]).count();
        assert!(channels > 1000, "{channels} channel cells");
        let mut h = h0.clone();
        diffuse(&mut h, &held, n, 5.0);
        let mut moved = 0;
        for i in 0..n * n {
            if held[i] {
                assert_eq!(h[i], h0[i], "held cell {i} moved");
            } else {
                moved += usize::from((h[i] - h0[i]).abs() > 1e-3);
            }
        }
        assert!(moved > n * n / 10, "only {moved} hillslope cells moved");
    }

    /// Thomas' algorithm answers the implicit diffusion equations it stands for.
    #[test]
    fn a_diffusion_line_solves_its_equations() {
        let n = 64;
        let r = 7.5;
        let before: Vec<f32> = (0..n * n).map(|i| ((i * 37) % 101) as f32).collect();
        let mut held = vec![false; n * n];
        held[20] = true;
        let mut line = before[..n].to_vec();
        solve_line(&mut line, &held[..n], r, &mut vec![0.0; n]);
        for i in [0, 20, n - 1] {
            assert_eq!(line[i], before[i], "held cell {i} moved");
        }
        for i in (1..n - 1).filter(|&i| i != 20) {
            let lhs = (1.0 + 2.0 * r) * line[i] - r * line[i - 1] - r * line[i + 1];
            assert!(
                (lhs - before[i]).abs() < 1e-3,
                "row {i}: {lhs} vs {}",
                before[i]
            );
        }
        // And the whole pass holds its held cells and smooths the rest.
        held[n * 3 + 20] = true;
        let mut h = before.clone();
        diffuse(&mut h, &held, n, r);
        assert_eq!(h[n * 3 + 20], before[n * 3 + 20]);
        let rough = |v: &[f32]| v.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f32>();
        assert!(rough(&h) < 0.5 * rough(&before));
    }

    /// The relief on a map: guarantees checked on exit (the error path), same bytes on one
    /// thread and on two.
    /// A cone island of `n`² raw heights over a flat sea at 0.15, and a crater on its north
    /// flank.
    fn cone_map(n: usize) -> (Array2<f32>, SeaLevel, Crater) {
        let s = n as f32 / 512.0;
        let crater = Crater {
            center: [256.0 * s, 120.0 * s],
            radius_px: 30.0 * s,
            wobble: [[0.0; 2]; 4],
        };
        let map = Array2::from_shape_fn((n, n), |(x, y)| {
            let (u, v) = (x as f32 / n as f32 - 0.5, y as f32 / n as f32 - 0.5);
            let r = u.hypot(v) / 0.42;
            0.15 + (1.0 - r) * 1.2 + 0.01 * ((u * 60.0).sin() + (v * 70.0).cos())
        });
        (map, SeaLevel::new(SeaModel::Flat(0.15), n), crater)
    }

    /// `f` on a pool of `threads` threads.
    fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(f)
    }

    #[test]
    fn relief_keeps_the_sea_and_the_crater_and_is_the_same_on_any_thread_count() {
        let (map, sea, crater) = cone_map(512);
        let run = |threads: usize| {
            on_threads(threads, || {
                let mut h = map.clone();
                let mut p = dials();
                p.maturity_myr = 2.0;
                p.steps = 6;
                p.diffusivity_m2_yr = 0.002;
                let l = relief(&mut h, None, &sea, &crater, &p, None, None, &|| {}).unwrap();
                (h, l)
            })
        };
        let (one, l1) = run(1);
        let (two, l2) = run(2);
        assert!(one
            .iter()
            .zip(two.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        assert_eq!(l1.stats, l2.stats);
        assert!(l1.stats.carved_past[1] > 100, "{:?}", l1.stats);
        for (((x, y), &a), &b) in one.indexed_iter().zip(map.iter()) {
            assert!(a <= b);
            if b < sea.at(y) || crater.distance(x, y) < 0.8 * crater.radius_px {
                assert_eq!(a, b, "({x}, {y}) changed");
            }
        }
    }

    /// Rills on a 2048 map (4 m pixels): they score the carved walls, and only there; the land
    /// still never rises above its design, the sea and the crater's core keep their heights,
    /// and the map is the same bytes on one and two threads.
    #[test]
    fn rills_score_the_carved_walls_and_keep_every_guarantee() {
        let n = 2048;
        let (map, sea, crater) = cone_map(n);
        let rills = Rills::new(&rills::RillParams {
            seed: 7,
            map_size: n,
            depth_m: 2.0,
        });
        assert!(rills.is_some());
        let run = |threads: usize, rills: Option<&Rills>| {
            on_threads(threads, || {
                let mut h = map.clone();
                let mut p = dials();
                p.maturity_myr = 2.0;
                p.steps = 6;
                relief(&mut h, None, &sea, &crater, &p, None, rills, &|| {}).unwrap();
                h
            })
        };
        let (one, two, plain) = (run(1, rills.as_ref()), run(2, rills.as_ref()), run(2, None));
        assert!(one.iter().zip(&two).all(|(a, b)| a.to_bits() == b.to_bits()));
        let (mut scored, mut sq, mut land) = (0usize, 0.0f64, 0usize);
        for (((x, y), &a), (&b, &c)) in one.indexed_iter().zip(map.iter().zip(&plain)) {
            assert!(a <= b, "({x}, {y}) rose above its design");
            if b < sea.at(y) || crater.distance(x, y) < 0.8 * crater.radius_px {
                assert_eq!(a, b, "({x}, {y}) changed");
                continue;
            }
            land += 1;
            let d = f64::from(a - c) * f64::from(METRES_PER_RAW);
            // Where the valleys took under a centimetre, the rills fade to under 1/200 of
            // their depth (rounding aside, nothing where they took nothing).
            if f64::from(b - c) * f64::from(METRES_PER_RAW) < 0.01 {
                assert!(d.abs() < 0.05, "({x}, {y}): rills {d} m on uncarved ground");
            }
            if d != 0.0 {
                scored += 1;
                sq += d * d;
            }
        }
        let rms = (sq / scored.max(1) as f64).sqrt();
        assert!(
            scored > land / 200 && (0.2..2.0).contains(&rms),
            "rills on {scored} of {land} land px, RMS {rms:.2} m"
        );
    }

    /// A 100 m plateau with a slot cut to 0 m along one column: the walls stand back at the
    /// critical slope from the slot (the 16-neighbour cone is round to within 3 %), the ground
    /// past the cone's reach and the fixed cells keep their heights, and nothing rises.
    #[test]
    fn threshold_walls_lay_a_slot_back_to_the_critical_slope() {
        let n = 64;
        let design = vec![100.0f32; n * n];
        let mut h = design.clone();
        let slot = 20;
        for y in 0..n {
            h[slot * n + y] = 0.0;
        }
        let mut fixed = vec![false; n * n];
        fixed[(slot + 2) * n + 30] = true;
        threshold_walls(&mut h, &design, &fixed, n);
        let reach = 100.0 / (CRITICAL_SLOPE * CELL_M);
        for x in 0..n {
            for y in 0..n {
                let (i, d) = (x * n + y, x.abs_diff(slot) as f32);
                assert!(h[i] <= design[i], "({x}, {y}) rose");
                if fixed[i] {
                    assert_eq!(h[i], 100.0, "a fixed cell moved");
                } else if d > reach * 1.03 + 1.0 {
                    assert_eq!(h[i], 100.0, "({x}, {y}) past the reach moved");
                } else if y > 4 && y < n - 4 && (y as isize - 30).abs() > 4 {
                    // Away from the fixed cell's shadow and the ends: the critical slope.
                    let want = (CRITICAL_SLOPE * CELL_M * d).min(100.0);
                    assert!(
                        (h[i] - want).abs() <= 0.03 * want + 1e-3,
                        "({x}, {y}) {} vs {want}",
                        h[i]
                    );
                }
            }
        }
    }
}
