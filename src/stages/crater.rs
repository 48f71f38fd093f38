//! The crater: an impact on the northern coast of the mainland, carved under sea level out to
//! [`CARVE_FACTOR`] × its radius so its bay floods from the ocean while a land bridge remains.
//!
//! Placement is deterministic: the impact column sits at a seed-drawn fraction of the map width
//! (normalised, so it is the same column at every MapSize) within the middle half of the island;
//! the impact centre is the mainland's northernmost pixel in that column — its northern coast.
//!
//! Guarantees: the carve lowers pixels strictly inside the carve radius to under sea level and
//! touches nothing else (its displacement is exactly zero beyond the carve radius); the carved
//! disc holds the pixel just north of the coast, which is water joined to the map's northern
//! border down its own column — so the bay connects to the ocean.

use ndarray::Array2;

use super::sea::SeaLevel;

/// The carve reaches this fraction of the crater radius (the rest is the rim, kept as land).
pub const CARVE_FACTOR: f32 = 0.80;
/// Depth (raw) of the bowl's floor under sea at the impact centre.
const BOWL_DEPTH: f32 = 0.10;
/// Depth (raw) under sea of the bowl's edge at the carve radius.
const BOWL_LIP: f32 = 0.004;
/// Half-width of the band of the map, around its centre column, where the impact may land.
const COLUMN_SPREAD: f32 = 0.22;

/// Where the impact is and how large.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crater {
    /// Impact centre, pixels `[x, y]`.
    pub center: [f32; 2],
    /// Crater radius, pixels (CraterRadius × scaleFactor).
    pub radius_px: f32,
}

impl Crater {
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
}

/// Places the crater on the northern coast of `mainland` (1 = mainland pixel).
/// `draw` ∈ [0, 1) is the seed's draw for the impact column; `radius_px` the crater radius.
pub fn place(mainland: &Array2<u8>, draw: f64, radius_px: f32) -> Crater {
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
                };
            }
        }
    }
    // No mainland at all: centre the (then harmless) crater on the map.
    Crater {
        center: [w as f32 / 2.0, h as f32 / 2.0],
        radius_px,
    }
}

/// Carves the crater's bowl into `heights`: inside the carve radius every pixel is lowered to
/// the bowl (never raised). Returns how many pixels changed.
pub fn carve(heights: &mut Array2<f32>, crater: &Crater, sea: &SeaLevel) -> usize {
    let (w, h) = heights.dim();
    let r = crater.carve_radius_px();
    let x0 = (crater.center[0] - r).floor().max(0.0) as usize;
    let x1 = ((crater.center[0] + r).ceil() as usize).min(w.saturating_sub(1));
    let y0 = (crater.center[1] - r).floor().max(0.0) as usize;
    let y1 = ((crater.center[1] + r).ceil() as usize).min(h.saturating_sub(1));
    let mut changed = 0;
    for x in x0..=x1 {
        for y in y0..=y1 {
            let d = crater.distance(x, y);
            if d < r {
                let t = d / r;
                let bowl = sea.at(y) - BOWL_LIP - BOWL_DEPTH * (1.0 - t * t);
                let z = &mut heights[[x, y]];
                if *z > bowl {
                    *z = bowl;
                    changed += 1;
                }
            }
        }
    }
    changed
}
