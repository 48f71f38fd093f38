//! Water bodies: the water classification promoted into explicit data — WBID, WBTB and WSRF.
//!
//! Body 1 is the ocean; lakes are the 4-connected components of lake pixels, numbered 2, 3, …
//! in scan order of their first pixel (X outer, Y inner). Membership is read from the same
//! [`Water`] classification the biome stage reads, so BIOM's Ocean/Lake pixels and WBID's
//! nonzero pixels are the same set by construction. Every body has one flat surface level (the
//! transitional rule of BLUEPRINT_FORMAT.md): the sea level at the body's pixel centroid, the
//! ocean's at the map centre — under the flat model, the scalar everywhere. WSRF holds that
//! level, quantised, wherever WBID is nonzero, and 0 elsewhere.

use ndarray::Array2;
use rayon::prelude::*;

use super::sea::{SeaLevel, Water};
use crate::blueprint::format::{encode_water_level, Salinity, WaterBodyType};
use crate::blueprint::WaterBody;
use crate::grid::flood::fill_runs;

/// The WBID of the ocean.
pub const OCEAN_ID: u16 = 1;

/// The three water sections.
#[derive(Clone, Debug, PartialEq)]
pub struct WaterBodies {
    /// WBID, `[x, y]`.
    pub ids: Array2<u16>,
    /// WBTB, ordered by id.
    pub bodies: Vec<WaterBody>,
    /// WSRF, `[x, y]`.
    pub surface: Array2<u16>,
}

/// Why water bodies could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WaterBodyError {
    /// More lakes than a u16 id can number.
    #[error("{0} lakes: WBID's u16 ids can number at most 65 534")]
    TooManyLakes(usize),
    /// A surface level outside what WSRF can encode.
    #[error("water body {id}'s surface level {level} is outside WSRF's range")]
    Level {
        /// Body id.
        id: u16,
        /// The level.
        level: f32,
    },
}

/// Builds WBID, WBTB and WSRF from the water classification.
pub fn water_bodies(water: &Array2<Water>, sea: &SeaLevel) -> Result<WaterBodies, WaterBodyError> {
    let (w, h) = water.dim();
    let mut ids = Array2::<u16>::zeros((w, h));
    // Sums for centroids: (pixels, Σx, Σy) per id, index = id.
    let mut sums: Vec<(u64, f64, f64)> = vec![(0, 0.0, 0.0); 2];
    // The ocean: every ocean pixel, whatever its component (all touch the border).
    {
        let mut ocean = (0u64, 0.0f64, 0.0f64);
        for ((x, y), wt) in water.indexed_iter() {
            if *wt == Water::Ocean {
                ids[[x, y]] = OCEAN_ID;
                ocean.0 += 1;
                ocean.1 += x as f64;
                ocean.2 += y as f64;
            }
        }
        sums[1] = ocean;
    }
    // Lakes, numbered in scan order of their first pixel.
    let mut marks = Array2::<u8>::zeros((w, h));
    let mut lakes = 0usize;
    for x in 0..w {
        for y in 0..h {
            if water[[x, y]] != Water::Lake || marks[[x, y]] != 0 {
                continue;
            }
            lakes += 1;
            let id = u16::try_from(lakes + 1)
                .ok()
                .filter(|&id| id < u16::MAX)
                .ok_or(WaterBodyError::TooManyLakes(lakes))?;
            let mut body = (0u64, 0.0f64, 0.0f64);
            fill_runs(
                &mut marks,
                [(x, y)],
                1,
                |x, y| water[[x, y]] == Water::Lake,
                |x, lo, hi| {
                    ids.slice_mut(ndarray::s![x, lo..=hi]).fill(id);
                    let n = (hi - lo + 1) as u64;
                    body.0 += n;
                    body.1 += x as f64 * n as f64;
                    // Σ y over lo..=hi
                    body.2 += (lo + hi) as f64 * n as f64 / 2.0;
                },
            );
            sums.push(body);
        }
    }
    let mut bodies = Vec::with_capacity(sums.len() - 1);
    for (index, &(count, sx, sy)) in sums.iter().enumerate().skip(1) {
        let id = index as u16;
        let (cx, cy) = if count > 0 {
            (sx / count as f64, sy / count as f64)
        } else {
            (w as f64 / 2.0, h as f64 / 2.0)
        };
        let (kind, salinity, level) = if id == OCEAN_ID {
            (WaterBodyType::Ocean, Salinity::Salt, sea.at(h / 2))
        } else {
            let row = (cy.round() as usize).min(h - 1);
            (WaterBodyType::Lake, Salinity::Fresh, sea.at(row))
        };
        if encode_water_level(level).is_err() {
            return Err(WaterBodyError::Level { id, level });
        }
        bodies.push(WaterBody {
            id,
            kind,
            salinity,
            surface_level: level,
            pixel_count: i32::try_from(count).unwrap_or(i32::MAX),
            centroid_x: cx as f32,
            centroid_y: cy as f32,
        });
    }
    // An empty ocean (no water at all) still gets its WBTB row: body 1 always exists.
    let levels: Vec<u16> = std::iter::once(0)
        .chain(
            bodies
                .iter()
                .map(|b| encode_water_level(b.surface_level).unwrap_or(0)),
        )
        .collect();
    let mut surface = Array2::<u16>::zeros((w, h));
    surface
        .outer_iter_mut()
        .into_par_iter()
        .zip(ids.outer_iter())
        .for_each(|(mut s, i)| {
            for (s, &i) in s.iter_mut().zip(i.iter()) {
                *s = levels[usize::from(i)];
            }
        });
    Ok(WaterBodies {
        ids,
        bodies,
        surface,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::sea::SeaModel;

    #[test]
    fn lakes_are_numbered_in_scan_order_with_centroids() {
        use Water::{Dry as D, Lake as L, Ocean as O};
        let grid = [[O, O, O, O], [O, D, L, D], [O, D, D, D], [O, L, L, D]];
        let water = Array2::from_shape_fn((4, 4), |(x, y)| grid[x][y]);
        let b = water_bodies(&water, &SeaLevel::new(SeaModel::Flat(0.15), 4)).unwrap();
        assert_eq!(b.ids[[1, 2]], 2, "first lake met in scan order");
        assert_eq!((b.ids[[3, 1]], b.ids[[3, 2]]), (3, 3));
        assert_eq!(b.ids[[0, 0]], OCEAN_ID);
        assert_eq!(b.bodies.len(), 3);
        assert_eq!(b.bodies[2].pixel_count, 2);
        assert_eq!((b.bodies[2].centroid_x, b.bodies[2].centroid_y), (3.0, 1.5));
        assert_eq!(b.bodies[0].pixel_count, 7);
        assert_eq!(b.surface[[1, 1]], 0);
        assert_eq!(b.surface[[1, 2]], encode_water_level(0.15).unwrap());
    }
}
