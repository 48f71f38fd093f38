//! Topography: the raw (uncurved) height of every pixel, with its offshore islets.
//!
//! height = fBm base + mountain spine − squircle falloff, then clamped under the Trench, then
//! raised by the islet field where the ocean is deep enough. All positions are normalised (see
//! [`crate::grid::noise`]), so the island is the same at every MapSize.
//!
//! Guarantees:
//! - **A guaranteed island.** The squircle distance is warped by at most ±[`COAST_WARP`] (a
//!   low-frequency field that makes the coast wander); beyond an unwarped distance of 1.5 the
//!   falloff alone outweighs the largest possible noise and spine, so the open ocean is ocean
//!   whatever the seed.
//! - **The Trench.** Within [`TRENCH_WIDTH`] of any map edge the height is clamped under sea
//!   level, deepening towards the edge: land never reaches the border and the island is clamped
//!   at about 90 % of the map width.
//! - **A rounded spine.** The spine's crest is built from [`smooth_abs`]: no slope discontinuity.
//! - **Islets by construction.** The islet lift acts only where the mainland's own height is at
//!   least [`MOAT_NEAR`] under sea (a depth moat) and at least [`ISLET_EDGE`] from the map edge
//!   (out of the Trench). Its threshold is the (1 − density)-quantile of the islet field's own
//!   lattice samples, so `density` is the fraction of that field above the threshold for every
//!   seed. `islet_zone` marks every pixel the lift could touch.

use ndarray::Array2;
use rayon::prelude::*;

use super::sea::SeaLevel;
use crate::grid::noise::{normalised, quantile, smooth_abs, smoothstep, Fbm, Lattice, SplitFbm};

/// Width of the Trench band along every map edge, as a fraction of MapSize.
pub const TRENCH_WIDTH: f32 = 0.05;
/// Depth under sea level, raw, that makes a pixel a moat: islets rise only beyond it.
pub const MOAT_NEAR: f32 = 0.05;
/// Depth under sea level, raw, from which the islet lift acts at full strength.
pub const MOAT_FAR: f32 = 0.10;
/// Distance from the map edge (fraction of MapSize) inside which no islet rises.
pub const ISLET_EDGE: f32 = 0.07;
/// Upper bound of the offshore islet density.
pub const MAX_ISLET_DENSITY: f32 = 0.5;

/// Seed offsets from the resolved seed, one per field.
const BASE_SEED_OFFSET: i32 = 0;
const ISLET_SEED_OFFSET: i32 = 7_919;
const COAST_SEED_OFFSET: i32 = 7_927;

/// Largest relative warp of the squircle distance by the coast field.
pub const COAST_WARP: f32 = 0.16;
/// Coast field: frequency per map side and octaves (a lattice field).
const COAST_FREQUENCY: f32 = 2.5;
const COAST_OCTAVES: i32 = 3;

/// Base fBm: first-octave frequency per map side; octaves read from a lattice and per pixel.
const BASE_FREQUENCY: f32 = 3.0;
const BASE_COARSE_OCTAVES: i32 = 4;
const BASE_FINE_OCTAVES: i32 = 3;
/// Where the mainland is this deep under sea before its fine octaves, they are left out (they
/// fade out over the last [`DEEP_FADE`] of depth, so the seabed stays continuous).
const DEEP_SEABED: f32 = 0.30;
const DEEP_FADE: f32 = 0.10;
/// Islet field: frequency per map side and octaves (a lattice field).
const ISLET_FREQUENCY: f32 = 6.0;
const ISLET_OCTAVES: i32 = 3;

/// Island shape, raw height units. See [`raw_height`].
const SHAPE_SCALE: f32 = 0.68;
const LAND_LIFT: f32 = 0.075;
const NOISE_AMP: f32 = 0.24;
const CORE_AMP: f32 = 0.14;
const SPINE_AMP: f32 = 0.78;
const SPINE_WIDTH: f32 = 0.36;
const SPINE_CREST: f32 = 0.05;
const FALLOFF_START: f32 = 0.72;
const FALLOFF_AMP: f32 = 1.8;
const TRENCH_WALL: f32 = 12.0;
const TRENCH_LIP: f32 = 0.02;
/// Raw height an islet gains per unit of islet field above its threshold.
const ISLET_LIFT: f32 = 1.4;
/// An islet pixel at exactly the threshold sits this far under sea (a shallow skirt).
const ISLET_SKIRT: f32 = 0.003;

/// What the topography stage needs.
#[derive(Clone, Copy, Debug)]
pub struct TopographyParams {
    /// The resolved world seed.
    pub seed: i32,
    /// Pixels per side.
    pub map_size: usize,
    /// IslandAxisX (east–west proportion, shared by the spine's width).
    pub axis_x: f32,
    /// IslandAxisY (north–south proportion).
    pub axis_y: f32,
    /// OffshoreIslandDensity: the islet field's fraction above threshold (0 disables).
    pub islet_density: f32,
    /// The sea level model.
    pub sea: SeaLevel,
}

/// The raw height map and where islets may stand.
#[derive(Clone, Debug)]
pub struct Topography {
    /// Raw heights `[x, y]`, islets included, uncurved.
    pub heights: Array2<f32>,
    /// 1 where the islet lift could act (deep, away from the Trench), else 0.
    pub islet_zone: Array2<u8>,
    /// The islet field's threshold for this seed (+∞ when islets are disabled).
    pub islet_threshold: f32,
}

/// The island's shape fields for one seed: the base fBm (split into lattice and per-pixel
/// octaves) and the coast warp. Everything the mainland's height depends on.
pub struct Shape {
    params: TopographyParams,
    base: SplitFbm,
    coast: Lattice,
}

impl Shape {
    /// Samples the shape fields of `p.seed`.
    pub fn new(p: &TopographyParams) -> Shape {
        let seed = crate::seed::noise_seed(p.seed, "topography");
        let coast = {
            let field = Fbm::new(
                seed.wrapping_add(COAST_SEED_OFFSET),
                COAST_FREQUENCY,
                COAST_OCTAVES,
            );
            Lattice::sample(|u, v| field.at(u, v).clamp(-1.0, 1.0))
        };
        Shape {
            params: *p,
            base: SplitFbm::new(
                seed.wrapping_add(BASE_SEED_OFFSET),
                BASE_FREQUENCY,
                BASE_COARSE_OCTAVES,
                BASE_FINE_OCTAVES,
            ),
            coast,
        }
    }

    /// The mainland's raw height at normalised (u, v): noise + spine − falloff, Trench-clamped.
    /// The base noise's fine octaves are skipped on the deep seabed, where they fade to nothing.
    pub fn height(&self, u: f32, v: f32, sea: f32) -> f32 {
        let coarse = self.smooth_height(u, v, sea);
        let depth = sea - coarse;
        let h = if depth >= DEEP_SEABED {
            coarse
        } else {
            let fade = smoothstep(DEEP_SEABED, DEEP_SEABED - DEEP_FADE, depth);
            coarse + fade * NOISE_AMP * self.base.fine_at(u, v)
        };
        h.min(trench_cap(u, v, sea))
    }

    /// The mainland's height without the base noise's fine octaves (a few metres at most) and
    /// without the Trench: a smooth function of the normalised position alone, the same at every
    /// MapSize — what the town stage reads slopes from.
    pub fn smooth_height(&self, u: f32, v: f32, sea: f32) -> f32 {
        let p = &self.params;
        let cx = 2.0 * u - 1.0;
        let cy = 2.0 * v - 1.0;
        let dx = cx / (SHAPE_SCALE * p.axis_x);
        let dy = cy / (SHAPE_SCALE * p.axis_y);
        let (dx2, dy2) = (dx * dx, dy * dy);
        let d = (dx2 * dx2 + dy2 * dy2).sqrt().sqrt() * (1.0 + COAST_WARP * self.coast.at(u, v));
        let core = (1.0 - d * d).max(0.0);
        let spine_x = (1.0 - smooth_abs(cx, SPINE_CREST) / (SPINE_WIDTH * p.axis_x)).max(0.0);
        let spine = spine_x * spine_x * core;
        let falloff = (d - FALLOFF_START).max(0.0);
        sea + LAND_LIFT
            + NOISE_AMP * self.base.coarse_at(u, v)
            + CORE_AMP * core
            + SPINE_AMP * spine
            - FALLOFF_AMP * falloff * falloff
    }
}

/// Generates the raw topography of `shape`. `on_column` is called once per finished column.
pub fn topography(shape: &Shape, on_column: &(dyn Fn() + Sync)) -> Topography {
    let p = &shape.params;
    let n = p.map_size;
    let density = p.islet_density.clamp(0.0, MAX_ISLET_DENSITY);
    let islets = (density > 0.0).then(|| {
        let field = Fbm::new(
            crate::seed::noise_seed(p.seed, "topography").wrapping_add(ISLET_SEED_OFFSET),
            ISLET_FREQUENCY,
            ISLET_OCTAVES,
        );
        let lattice = Lattice::sample(|u, v| field.at(u, v));
        let threshold = quantile(lattice.samples(), 1.0 - density);
        (lattice, threshold)
    });
    let mut heights = Array2::<f32>::zeros((n, n));
    let mut islet_zone = Array2::<u8>::zeros((n, n));
    heights
        .outer_iter_mut()
        .into_par_iter()
        .zip(islet_zone.outer_iter_mut())
        .enumerate()
        .for_each(|(x, (mut column, mut zone))| {
            let u = normalised(x, n);
            for y in 0..n {
                let v = normalised(y, n);
                let sea = p.sea.at(y);
                let mut h = shape.height(u, v, sea);
                if let Some((lattice, threshold)) = &islets {
                    let w = islet_weight(h, sea, u, v);
                    if w > 0.0 {
                        zone[y] = 1;
                        let target =
                            sea - ISLET_SKIRT + ISLET_LIFT * (lattice.at(u, v) - threshold);
                        if target > h {
                            h += w * (target - h);
                        }
                    }
                }
                column[y] = h;
            }
            on_column();
        });
    Topography {
        heights,
        islet_zone,
        islet_threshold: islets.map_or(f32::INFINITY, |(_, t)| t),
    }
}

/// The highest a pixel may stand at normalised (u, v): under sea inside the Trench band, rising
/// steeply (the Trench wall) inland of it.
pub fn trench_cap(u: f32, v: f32, sea: f32) -> f32 {
    let edge = u.min(1.0 - u).min(v).min(1.0 - v);
    sea - TRENCH_LIP + TRENCH_WALL * (edge - TRENCH_WIDTH)
}

/// How strongly the islet lift acts on a pixel whose mainland height is `h`: 0 near the mainland
/// (the moat) and near the edge, 1 in deep open ocean.
fn islet_weight(h: f32, sea: f32, u: f32, v: f32) -> f32 {
    let edge = u.min(1.0 - u).min(v).min(1.0 - v);
    smoothstep(sea - MOAT_NEAR, sea - MOAT_FAR, h) * smoothstep(ISLET_EDGE, ISLET_EDGE + 0.03, edge)
}
