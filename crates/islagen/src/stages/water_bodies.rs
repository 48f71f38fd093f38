//! Water bodies: the water classification promoted into explicit data — WBID, WBTB and WSRF.
//!
//! Body 1 is the ocean; lakes (the 4-connected components of lake pixels) and river reaches
//! (given by the rivers stage, each its own body of type River, fresh) are numbered 2, 3, …
//! together, in scan order of their first pixel (X outer, Y inner). A reach's level is the
//! one the rivers stage gave it. Membership is read from the same
//! [`Water`] classification the biome stage reads, so BIOM's Ocean/Lake pixels and WBID's
//! nonzero pixels are the same set by construction. Every body has one flat surface level (the
//! transitional rule of BLUEPRINT_FORMAT.md): the sea level at the body's pixel centroid, the
//! ocean's at the map centre — under the flat model, the scalar everywhere. WSRF holds that
//! level, quantised, wherever WBID is nonzero, and 0 elsewhere: the blueprint's writer makes it
//! from WBID and WBTB ([`crate::blueprint::WaterSurface::PerBody`]), so no grid is held here.

use ndarray::Array2;
use rayon::prelude::*;

use super::sea::Water;
use crate::sea::SeaLevel;
use crate::blueprint::format::{encode_water_level, Salinity, WaterBodyType};
use crate::blueprint::WaterBody;
use crate::grid::flood::fill_runs;

/// The WBID of the ocean.
pub const OCEAN_ID: u16 = 1;

/// The water sections (WSRF follows from these two).
#[derive(Clone, Debug, PartialEq)]
pub struct WaterBodies {
    /// WBID, `[x, y]`.
    pub ids: Array2<u16>,
    /// WBTB, ordered by id.
    pub bodies: Vec<WaterBody>,
}

/// Why water bodies could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WaterBodyError {
    /// More lakes and reaches than a u16 id can number.
    #[error("{0} lakes and river reaches: WBID's u16 ids can number at most 65 534")]
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

/// A body's pixel count and the sums of its pixels' x and y.
type PixelSums = (u64, f64, f64);

/// River reaches to number among the water bodies: their pixels (`x * n + y`, ascending, each
/// with its reach index) and each reach's surface level (raw).
#[derive(Clone, Copy, Debug, Default)]
pub struct Reaches<'a> {
    /// River pixels and their reach.
    pub pixels: &'a [(u32, u32)],
    /// Level per reach index.
    pub levels: &'a [f32],
}

/// The water bodies of `water` (and river reaches) at sea level `sea`; `ids_of_reaches` is filled
/// with each reach's WBID (0 for a reach without pixels).
pub fn water_bodies(
    water: &Array2<Water>,
    sea: &SeaLevel,
    reaches: Reaches,
    ids_of_reaches: &mut Vec<u16>,
) -> Result<WaterBodies, WaterBodyError> {
    let (w, h) = water.dim();
    let mut ids = Array2::<u16>::zeros((w, h));
    let first = first_pixels(&reaches);
    let (ocean, lake_columns) = ocean(&mut ids, water);
    let mut bodies: Vec<Body> = vec![(OCEAN_ID, ocean, WaterBodyType::Ocean, sea.at(h / 2))];
    let lake_first = lakes(&mut ids, water, sea, &lake_columns, &first, &mut bodies)?;
    number_reaches(
        &mut ids,
        &reaches,
        &first,
        &lake_first,
        ids_of_reaches,
        &mut bodies,
    )?;
    bodies.sort_by_key(|b| b.0);
    let bodies = records(bodies, w, h)?;
    Ok(WaterBodies { ids, bodies })
}

/// A body as it is gathered: its id, pixel sums (count, Σx, Σy), type and surface level.
type Body = (u16, PixelSums, WaterBodyType, f32);

/// Each reach's first pixel, in scan order (the pixels are sorted): (pixel index, reach).
fn first_pixels(reaches: &Reaches) -> Vec<(u32, u32)> {
    let mut first = Vec::new();
    let mut seen = vec![false; reaches.levels.len()];
    for &(i, r) in reaches.pixels {
        if !std::mem::replace(&mut seen[r as usize], true) {
            first.push((i, r));
        }
    }
    first
}

/// Marks the ocean in `ids`, column by column in parallel (each column's sums are exact
/// integers, so their total does not depend on the order they are added in): its sums, and
/// which columns hold a lake.
fn ocean(ids: &mut Array2<u16>, water: &Array2<Water>) -> (PixelSums, Vec<bool>) {
    let per_column: Vec<(PixelSums, bool)> = ids
        .outer_iter_mut()
        .into_par_iter()
        .zip(water.outer_iter())
        .enumerate()
        .map(|(x, (mut ids, water))| {
            let (mut count, mut sy, mut lake) = (0u64, 0u64, false);
            for (y, (id, wt)) in ids.iter_mut().zip(water.iter()).enumerate() {
                match wt {
                    Water::Ocean => {
                        *id = OCEAN_ID;
                        count += 1;
                        sy += y as u64;
                    }
                    Water::Lake => lake = true,
                    Water::Dry => {}
                }
            }
            ((count, (count * x as u64) as f64, sy as f64), lake)
        })
        .collect();
    let mut ocean = (0u64, 0.0f64, 0.0f64);
    for ((count, sx, sy), _) in &per_column {
        ocean.0 += count;
        ocean.1 += sx;
        ocean.2 += sy;
    }
    (
        ocean,
        per_column.into_iter().map(|(_, lake)| lake).collect(),
    )
}

/// The id of the body `rank`-th in scan order (after the ocean's 1), if one is left.
fn id_at(rank: usize) -> Result<u16, WaterBodyError> {
    u16::try_from(rank + 2)
        .ok()
        .filter(|&id| id < u16::MAX)
        .ok_or(WaterBodyError::TooManyLakes(rank + 1))
}

/// Fills each lake (a 4-connected component of lake pixels) with its id — numbered in scan
/// order after the lakes and reaches met before its first pixel — and adds it to `bodies`;
/// each lake's first pixel index.
fn lakes(
    ids: &mut Array2<u16>,
    water: &Array2<Water>,
    sea: &SeaLevel,
    lake_columns: &[bool],
    first: &[(u32, u32)],
    bodies: &mut Vec<Body>,
) -> Result<Vec<u32>, WaterBodyError> {
    let (w, h) = water.dim();
    let mut marks = Array2::<u8>::zeros((w, h));
    let mut lake_first: Vec<u32> = Vec::new();
    for x in (0..w).filter(|&x| lake_columns[x]) {
        for y in 0..h {
            if water[[x, y]] != Water::Lake || marks[[x, y]] != 0 {
                continue;
            }
            let index = (x * h + y) as u32;
            let reaches_before = first.partition_point(|f| f.0 < index);
            let id = id_at(lake_first.len() + reaches_before)?;
            lake_first.push(index);
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
                    body.2 += (lo + hi) as f64 * n as f64 / 2.0;
                },
            );
            let row = ((body.2 / body.0 as f64).round() as usize).min(h - 1);
            bodies.push((id, body, WaterBodyType::Lake, sea.at(row)));
        }
    }
    Ok(lake_first)
}

/// Numbers the reaches after the lakes and reaches met before their first pixel, marks their
/// pixels in `ids` and adds them to `bodies`.
fn number_reaches(
    ids: &mut Array2<u16>,
    reaches: &Reaches,
    first: &[(u32, u32)],
    lake_first: &[u32],
    ids_of_reaches: &mut Vec<u16>,
    bodies: &mut Vec<Body>,
) -> Result<(), WaterBodyError> {
    let h = ids.dim().1;
    ids_of_reaches.clear();
    ids_of_reaches.resize(reaches.levels.len(), 0);
    let mut sums = vec![(0u64, 0.0f64, 0.0f64); reaches.levels.len()];
    for (rank, &(index, r)) in first.iter().enumerate() {
        let lakes_before = lake_first.partition_point(|&l| l < index);
        ids_of_reaches[r as usize] = id_at(rank + lakes_before)?;
    }
    for &(i, r) in reaches.pixels {
        let (x, y) = (i as usize / h, i as usize % h);
        ids[[x, y]] = ids_of_reaches[r as usize];
        let s = &mut sums[r as usize];
        s.0 += 1;
        s.1 += x as f64;
        s.2 += y as f64;
    }
    for &(_, r) in first {
        let r = r as usize;
        bodies.push((
            ids_of_reaches[r],
            sums[r],
            WaterBodyType::River,
            reaches.levels[r],
        ));
    }
    Ok(())
}

/// The WBTB records of `bodies` (sorted by id) on a `w × h` map: centroids from the sums (the
/// map's centre for an empty body), salt for the ocean, every level encodable.
fn records(bodies: Vec<Body>, w: usize, h: usize) -> Result<Vec<WaterBody>, WaterBodyError> {
    let mut out = Vec::with_capacity(bodies.len());
    for (id, (count, sx, sy), kind, level) in bodies {
        let (cx, cy) = if count > 0 {
            (sx / count as f64, sy / count as f64)
        } else {
            (w as f64 / 2.0, h as f64 / 2.0)
        };
        if encode_water_level(level).is_err() {
            return Err(WaterBodyError::Level { id, level });
        }
        out.push(WaterBody {
            id,
            kind,
            salinity: match kind {
                WaterBodyType::Ocean => Salinity::Salt,
                _ => Salinity::Fresh,
            },
            surface_level: level,
            pixel_count: i32::try_from(count).unwrap_or(i32::MAX),
            centroid_x: cx as f32,
            centroid_y: cy as f32,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sea::SeaModel;

    #[test]
    fn lakes_are_numbered_in_scan_order_with_centroids() {
        use Water::{Dry as D, Lake as L, Ocean as O};
        let grid = [[O, O, O, O], [O, D, L, D], [O, D, D, D], [O, L, L, D]];
        let water = Array2::from_shape_fn((4, 4), |(x, y)| grid[x][y]);
        let b = water_bodies(
            &water,
            &SeaLevel::new(SeaModel::Flat(0.15), 4),
            Reaches::default(),
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(b.ids[[1, 2]], 2, "first lake met in scan order");
        assert_eq!((b.ids[[3, 1]], b.ids[[3, 2]]), (3, 3));
        assert_eq!(b.ids[[0, 0]], OCEAN_ID);
        assert_eq!(b.bodies.len(), 3);
        assert_eq!(b.bodies[2].pixel_count, 2);
        assert_eq!((b.bodies[2].centroid_x, b.bodies[2].centroid_y), (3.0, 1.5));
        assert_eq!(b.bodies[0].pixel_count, 7);
        assert!(b.bodies.iter().all(|body| body.surface_level == 0.15));
    }

    /// Reaches are numbered with the lakes, in scan order of their first pixel: a reach met
    /// before a lake takes the lower id; every reach pixel gets its reach's id and level.
    #[test]
    fn reaches_and_lakes_share_one_scan_order() {
        use Water::{Dry as D, Lake as L, Ocean as O};
        let grid = [[O, O, O, O], [O, D, D, D], [O, D, L, D], [O, D, D, D]];
        let water = Array2::from_shape_fn((4, 4), |(x, y)| grid[x][y]);
        // Reach 0 at (1, 1) and (1, 2), before the lake at (2, 2); reach 1 at (3, 3), after it.
        let pixels = [(5u32, 0u32), (6, 0), (15, 1)];
        let levels = [0.3f32, 0.2];
        let mut ids_of = Vec::new();
        let b = water_bodies(
            &water,
            &SeaLevel::new(SeaModel::Flat(0.15), 4),
            Reaches {
                pixels: &pixels,
                levels: &levels,
            },
            &mut ids_of,
        )
        .unwrap();
        assert_eq!(ids_of, vec![2, 4]);
        assert_eq!(
            (b.ids[[1, 1]], b.ids[[1, 2]], b.ids[[2, 2]], b.ids[[3, 3]]),
            (2, 2, 3, 4)
        );
        let kinds: Vec<_> = b.bodies.iter().map(|b| (b.id, b.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (1, WaterBodyType::Ocean),
                (2, WaterBodyType::River),
                (3, WaterBodyType::Lake),
                (4, WaterBodyType::River)
            ]
        );
        assert_eq!(b.bodies[1].surface_level, 0.3);
        assert_eq!(b.bodies[1].salinity, Salinity::Fresh);
        assert_eq!(b.bodies[b.ids[[3, 3]] as usize - 1].surface_level, 0.2);
    }
}
