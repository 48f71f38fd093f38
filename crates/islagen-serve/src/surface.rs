//! `/api/surface`: the ground of a region as the 3D view draws it — heights in metres above sea
//! level on a regular grid of at most [`MAX_SURFACE_SAMPLES`] a side, water at its level.
//!
//! Guarantees: a region at most [`MAX_SURFACE_SAMPLES`] pixels on its longer side is sampled at
//! every map pixel (full resolution); a larger one at an even spacing of `extent /
//! MAX_SURFACE_SAMPLES` pixels, each sample the map pixel under it.
//! A pixel of a water body stands at the body's level (the sea at 0 m), dry land at its height.
//! The samples are row-major from the region's north-west corner, rows north to south.

use islagen::units::{metres_per_px, METRES_PER_RAW};

use super::grids::GridError;
use super::worlds::World;

/// The most samples along a region's longer side.
pub const MAX_SURFACE_SAMPLES: usize = 1024;

/// A region's surface.
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    /// Samples west to east.
    pub nx: usize,
    /// Samples north to south.
    pub ny: usize,
    /// Metres between neighbouring samples.
    pub step_m: f32,
    /// `nx × ny` heights, metres above sea level, row after row from the north-west corner.
    pub metres: Vec<f32>,
}

/// Map pixels sampled along one axis: `n` samples evenly over `[origin, origin + extent)`, each
/// the pixel under its centre, clamped to the map.
fn axis(origin: f64, extent: f64, n: usize, side: usize) -> Vec<usize> {
    let step = extent / n as f64;
    (0..n)
        .map(|i| ((origin + (i as f64 + 0.5) * step).floor().max(0.0) as usize).min(side - 1))
        .collect()
}

/// The distinct values of ascending `v`, and each element's index among them.
fn distinct(v: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut values: Vec<usize> = Vec::with_capacity(v.len());
    let index = v
        .iter()
        .map(|&x| {
            if values.last() != Some(&x) {
                values.push(x);
            }
            values.len() - 1
        })
        .collect();
    (values, index)
}

/// The surface of the region `[x0, y0, x1, y1]` (map pixels, y down; within the map, x0 < x1,
/// y0 < y1: the caller checks).
pub fn surface(world: &World, [x0, y0, x1, y1]: [f64; 4]) -> Result<Surface, GridError> {
    let side = world.side();
    let (dx, dy) = (x1 - x0, y1 - y0);
    let longer = dx.max(dy);
    let n_long = (longer.ceil() as usize).clamp(2, MAX_SURFACE_SAMPLES);
    let spacing = longer / n_long as f64;
    let nx = ((dx / spacing).round() as usize).max(2);
    let ny = ((dy / spacing).round() as usize).max(2);
    let (xs, xi) = distinct(&axis(x0, dx, nx, side));
    let (ys, yi) = distinct(&axis(y0, dy, ny, side));
    let bp = &world.blueprint;
    let heights = world.grids.heights(bp, &xs, &ys)?;
    let ids = world.grids.water_ids(bp, &xs, &ys)?;
    let levels: Vec<Option<f32>> = match &bp.water_bodies {
        Some(bodies) => {
            let top = bodies.iter().map(|b| usize::from(b.id)).max().unwrap_or(0);
            let mut levels = vec![None; top + 1];
            for b in bodies {
                levels[usize::from(b.id)] = Some(b.surface_level);
            }
            levels
        }
        None => Vec::new(),
    };
    let mut metres = Vec::with_capacity(nx * ny);
    for &j in &yi {
        for &i in &xi {
            let raw = heights[[i, j]];
            let level = ids
                .as_ref()
                .map(|ids| usize::from(ids[[i, j]]))
                .filter(|&id| id != 0)
                .and_then(|id| levels.get(id).copied().flatten());
            let raw = level.map_or(raw, |l| l.max(raw));
            metres.push((raw - world.sea_raw) * METRES_PER_RAW);
        }
    }
    Ok(Surface {
        nx,
        ny,
        step_m: (spacing * f64::from(metres_per_px(side))) as f32,
        metres,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_region_is_every_pixel_and_a_large_one_is_even_and_bounded() {
        assert_eq!(axis(10.0, 5.0, 5, 100), vec![10, 11, 12, 13, 14]);
        let wide = axis(0.0, 8192.0, MAX_SURFACE_SAMPLES, 8192);
        assert_eq!(wide.len(), MAX_SURFACE_SAMPLES);
        assert!(wide.windows(2).all(|w| w[1] - w[0] == 8));
        // Past the map's edge the samples are clamped to it.
        assert_eq!(axis(98.0, 4.0, 4, 100), vec![98, 99, 99, 99]);
        assert_eq!(
            distinct(&[1, 1, 2, 5, 5]),
            (vec![1, 2, 5], vec![0, 0, 1, 2, 2])
        );
    }
}
