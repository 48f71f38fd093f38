//! The crater: an impact on the northern coast of the mainland, carved under sea level out to
//! [`CARVE_FACTOR`] × its radius so its bay floods from the ocean while a land bridge remains.
//!
//! Placement is deterministic: the impact column sits at a seed-drawn fraction of the map width
//! (normalised, so it is the same column at every MapSize) within the middle half of the island;
//! the impact centre is the mainland's northernmost pixel in that column — its northern coast.
//!
//! The crater is not a perfect disc: its radius wobbles with the direction from the impact by
//! up to ±[`MAX_WOBBLE`] (a few seeded harmonics, [`Crater::relative_distance`]), so the bay's
//! shore and the Crater biome follow an irregular outline. [`Rim`] raises the land just outside
//! the carve into a rim and an ejecta apron fading outward (applied in metres by the elevation
//! stage, so it never moves the waterline).
//!
//! Guarantees: the carve lowers pixels strictly inside the carve outline to under sea level and
//! touches nothing else (its displacement is exactly zero beyond it, and the outline never
//! reaches past [`CARVE_FACTOR`] × (1 + [`MAX_WOBBLE`]) × the radius); the carved area holds the
//! pixel just north of the coast, which is water joined to the map's northern border down its
//! own column — so the bay connects to the ocean. With no wobble and no rim the crater is the
//! original clean bowl.

use ndarray::Array2;
use rayon::prelude::*;

use crate::sea::SeaLevel;
use crate::grid::noise::smoothstep;

/// The carve reaches this fraction of the crater radius (the rest is the rim, kept as land).
pub const CARVE_FACTOR: f32 = 0.80;
/// Depth (raw) of the bowl's floor under sea at the impact centre.
const BOWL_DEPTH: f32 = 0.10;
/// Depth (raw) under sea of the bowl's edge at the carve radius.
const BOWL_LIP: f32 = 0.004;
/// Half-width of the band of the map, around its centre column, where the impact may land.
const COLUMN_SPREAD: f32 = 0.22;
/// The outline's radius varies by at most this fraction (the harmonics' amplitudes sum to it).
pub const MAX_WOBBLE: f32 = 0.2;
/// The harmonics of the outline (waves around the crater).
const WOBBLE_WAVES: [f32; 4] = [3.0, 4.0, 5.0, 7.0];

/// Where the impact is, how large, and the shape of its outline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crater {
    /// Impact centre, pixels `[x, y]`.
    pub center: [f32; 2],
    /// Crater radius, pixels (CraterRadius × scaleFactor).
    pub radius_px: f32,
    /// The outline's harmonics: (relative amplitude, phase) per wave count of
    /// `WOBBLE_WAVES`; all zero for a circle.
    pub wobble: [[f32; 2]; 4],
}

impl Crater {
    /// The same crater on a grid of `to` cells a side, from a map of `from`.
    pub fn on(&self, from: usize, to: usize) -> Crater {
        let scale = to as f32 / from as f32;
        Crater {
            center: [self.center[0] * scale, self.center[1] * scale],
            radius_px: self.radius_px * scale,
            wobble: self.wobble,
        }
    }

    /// The carve radius, pixels.
    pub fn carve_radius_px(&self) -> f32 {
        CARVE_FACTOR * self.radius_px
    }

    /// Distance of pixel (x, y) from the impact centre, pixels.
    #[inline]
    pub fn distance(&self, x: usize, y: usize) -> f32 {
        let dx = x as f32 - self.center[0];
        let dy = y as f32 - self.center[1];
        (dx * dx + dy * dy).sqrt()
    }

    /// The outline's radius towards (x, y), as a factor of [`Crater::radius_px`]:
    /// 1 ± `MAX_WOBBLE` (0.2).
    #[inline]
    pub fn outline_factor(&self, x: usize, y: usize) -> f32 {
        self.outline_factor_at(x as f32, y as f32)
    }

    /// [`Crater::outline_factor`] towards a point in pixel coordinates.
    #[inline]
    pub fn outline_factor_at(&self, x: f32, y: f32) -> f32 {
        if self.wobble == [[0.0; 2]; 4] {
            return 1.0;
        }
        let theta = (y - self.center[1]).atan2(x - self.center[0]);
        1.0 + WOBBLE_WAVES
            .iter()
            .zip(&self.wobble)
            .map(|(k, [amp, phase])| amp * (k * theta + phase).sin())
            .sum::<f32>()
    }

    /// Distance of (x, y) from the impact centre in units of the outline's radius in that
    /// direction: 1 on the crater's (irregular) edge.
    #[inline]
    pub fn relative_distance(&self, x: usize, y: usize) -> f32 {
        self.relative_distance_at(x as f32, y as f32)
    }

    /// [`Crater::relative_distance`] of a point in pixel coordinates.
    #[inline]
    pub fn relative_distance_at(&self, x: f32, y: f32) -> f32 {
        let d = (x - self.center[0]).hypot(y - self.center[1]);
        d / (self.radius_px * self.outline_factor_at(x, y)).max(f32::EPSILON)
    }

    /// Whether (x, y) lies inside the outline scaled by `factor` (1 = the crater's edge). Far
    /// from the edge the plain distance decides, without the outline's trigonometry.
    #[inline]
    pub fn within(&self, x: usize, y: usize, factor: f32) -> bool {
        let d = self.distance(x, y) / (self.radius_px * factor).max(f32::EPSILON);
        if d >= 1.0 + MAX_WOBBLE {
            false
        } else if d < 1.0 - MAX_WOBBLE {
            true
        } else {
            self.relative_distance(x, y) < factor
        }
    }
}

/// Outline harmonics from four uniform draw pairs, scaled by `irregularity` (0 = a circle).
pub fn wobble(draws: [[f32; 2]; 4], irregularity: f32) -> [[f32; 2]; 4] {
    let weights = [0.4, 0.3, 0.2, 0.1];
    std::array::from_fn(|i| {
        [
            irregularity * MAX_WOBBLE * weights[i] * (0.5 + 0.5 * draws[i][0]),
            std::f32::consts::TAU * draws[i][1],
        ]
    })
}

/// The raised rim and the ejecta apron, in metres added to land outside the carve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rim {
    /// The crater it rings.
    pub crater: Crater,
    /// The rim crest's height, metres (CraterRim).
    pub height_m: f32,
}

/// Where the rim's crest stands, in units of the outline radius.
const RIM_CREST: f32 = 0.92;
/// The crest's half-width, same units.
const RIM_WIDTH: f32 = 0.13;
/// The apron's height at its start, as a share of the crest's, and how fast it fades (outline
/// radii per e-fold).
const APRON_SHARE: f32 = 0.25;
const APRON_FADE: f32 = 0.5;
/// Land within this many metres of sea level gets the rim only partly, so the shore stays a
/// shore.
const RIM_SHORE_M: f32 = 4.0;

impl Rim {
    /// Metres the rim adds at (x, y) to land standing `above_m` metres above sea.
    #[inline]
    pub fn metres(&self, x: usize, y: usize, above_m: f32) -> f32 {
        if self.height_m <= 0.0 || above_m <= 0.0 {
            return 0.0;
        }
        // Beyond four outline radii the rim adds nothing; the plain distance says so cheaply.
        if self.crater.distance(x, y) > 4.0 * (1.0 + MAX_WOBBLE) * self.crater.radius_px {
            return 0.0;
        }
        let rho = self.crater.relative_distance(x, y);
        if rho > 4.0 {
            return 0.0;
        }
        let crest = ((rho - RIM_CREST) / RIM_WIDTH).powi(2);
        let ridge = (-crest).exp();
        let apron = APRON_SHARE
            * smoothstep(RIM_CREST, RIM_CREST + 2.0 * RIM_WIDTH, rho)
            * (-(rho - RIM_CREST - 2.0 * RIM_WIDTH).max(0.0) / APRON_FADE).exp();
        let shore = smoothstep(0.0, RIM_SHORE_M, above_m);
        self.height_m * (ridge + apron) * shore
    }
}

/// Places the crater on the northern coast of `mainland` (1 = mainland pixel).
/// `draw` ∈ [0, 1) is the seed's draw for the impact column; `radius_px` the crater radius.
pub fn place(mainland: &Array2<u8>, draw: f64, radius_px: f32, wobble: [[f32; 2]; 4]) -> Crater {
    let (w, h) = mainland.dim();
    let u = 0.5 + COLUMN_SPREAD * (2.0 * draw as f32 - 1.0);
    let wanted = ((u * w as f32) as usize).min(w - 1);
    // The drawn column, or the nearest one that reaches the mainland at all.
    let north_coast = |x: usize| (0..h).find(|&y| mainland[[x, y]] == 1);
    for step in 0..w {
        for x in [wanted.checked_sub(step), wanted.checked_add(step)]
            .into_iter()
            .flatten()
            .filter(|&x| x < w)
        {
            if let Some(y) = north_coast(x) {
                return Crater {
                    center: [x as f32, y as f32],
                    radius_px,
                    wobble,
                };
            }
        }
    }
    // No mainland at all: centre the (then harmless) crater on the map.
    Crater {
        center: [w as f32 / 2.0, h as f32 / 2.0],
        radius_px,
        wobble,
    }
}

/// Carves the crater's bowl into `heights`: inside the carve radius every pixel is lowered to
/// the bowl (never raised). Returns how many pixels changed.
pub fn carve(heights: &mut Array2<f32>, crater: &Crater, sea: &SeaLevel) -> usize {
    let (w, h) = heights.dim();
    let r = crater.carve_radius_px() * (1.0 + MAX_WOBBLE);
    let x0 = (crater.center[0] - r).floor().max(0.0) as usize;
    let x1 = ((crater.center[0] + r).ceil() as usize).min(w.saturating_sub(1));
    let y0 = (crater.center[1] - r).floor().max(0.0) as usize;
    let y1 = ((crater.center[1] + r).ceil() as usize).min(h.saturating_sub(1));
    if x0 > x1 || y0 > y1 {
        return 0;
    }
    // The box's columns side by side (each pixel's bowl is its own).
    heights
        .slice_mut(ndarray::s![x0..=x1, y0..=y1])
        .outer_iter_mut()
        .into_par_iter()
        .enumerate()
        .map(|(i, mut column)| {
            let x = x0 + i;
            let mut changed = 0;
            for (j, z) in column.iter_mut().enumerate() {
                let y = y0 + j;
                let t = crater.relative_distance(x, y) / CARVE_FACTOR;
                if t < 1.0 {
                    let bowl = sea.at(y) - BOWL_LIP - BOWL_DEPTH * (1.0 - t * t);
                    if *z > bowl {
                        *z = bowl;
                        changed += 1;
                    }
                }
            }
            changed
        })
        .sum()
}
