//! Sea level and the ocean / lake flood fill.
//!
//! [`SeaLevel`] is the one sea-level function every caller uses: "flat" is one scalar everywhere;
//! "field" is the legacy latitude lerp, 0.26 raw at the northern edge (y = 0) to 0.15 raw at the
//! southern edge (y = MapSize − 1). [`classify_water`] splits below-sea pixels into true ocean —
//! 4-connected to the map border through below-sea pixels — and lakes (every other below-sea
//! pixel). A pixel is below sea when its height is strictly less than the sea level at it.
//!
//! Guarantees: the result depends only on the heights and the model (no randomness, no thread
//! count); every border pixel that is below sea is ocean; no lake pixel is 4-adjacent to an
//! ocean pixel.

use ndarray::Array2;
use rayon::prelude::*;

use crate::grid::flood::{closed_where, fill_unmarked};

/// Sea level at the northern edge under the legacy field model, raw units.
pub const FIELD_NORTH: f32 = 0.26;
/// Sea level at the southern edge under the legacy field model, raw units.
pub const FIELD_SOUTH: f32 = 0.15;

/// How sea level is computed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeaModel {
    /// One scalar everywhere (raw height units).
    Flat(f32),
    /// The legacy latitude lerp: [`FIELD_NORTH`] at y = 0 to [`FIELD_SOUTH`] at the southern edge.
    Field,
}

/// The sea level of a map: a model bound to a MapSize.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeaLevel {
    model: SeaModel,
    map_size: usize,
}

impl SeaLevel {
    /// The sea level of `model` on a map of `map_size` pixels per side.
    pub fn new(model: SeaModel, map_size: usize) -> SeaLevel {
        SeaLevel { model, map_size }
    }

    /// The same model on a grid of `map_size` rows (the erosion's working grid).
    pub fn on(&self, map_size: usize) -> SeaLevel {
        SeaLevel::new(self.model, map_size)
    }

    /// Sea level (raw height units) at row `y` (0 = north); the same for every x.
    pub fn at(&self, y: usize) -> f32 {
        match self.model {
            SeaModel::Flat(level) => level,
            SeaModel::Field => {
                let t = if self.map_size > 1 {
                    y as f32 / (self.map_size - 1) as f32
                } else {
                    0.0
                };
                FIELD_NORTH + (FIELD_SOUTH - FIELD_NORTH) * t
            }
        }
    }

    /// The sea level of rows 0..`n`, for a loop over a map's pixels to read once a row.
    pub fn rows(&self, n: usize) -> Vec<f32> {
        (0..n).map(|y| self.at(y)).collect()
    }

    /// True when a pixel of height `h` at row `y` is under water.
    pub fn is_below(&self, h: f32, y: usize) -> bool {
        h < self.at(y)
    }
}

/// What the flood fill made of a pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Water {
    /// At or above sea level.
    Dry,
    /// Below sea and connected to the map border.
    Ocean,
    /// Below sea and enclosed by land.
    Lake,
}

/// Classifies every pixel of `heights` (`[x, y]`) as dry, ocean or lake.
pub fn classify_water(heights: &Array2<f32>, sea: &SeaLevel) -> Array2<Water> {
    let (w, h) = heights.dim();
    let below = |x: usize, y: usize| sea.is_below(heights[[x, y]], y);
    let border = (0..w)
        .flat_map(|x| [(x, 0), (x, h - 1)])
        .chain((0..h).flat_map(|y| [(0, y), (w - 1, y)]));
    let mut ocean = closed_where((w, h), |x, y| !below(x, y));
    fill_unmarked(&mut ocean, border, 1);
    let mut water = Array2::from_elem((w, h), Water::Dry);
    water
        .outer_iter_mut()
        .into_par_iter()
        .zip(ocean.outer_iter())
        .zip(heights.outer_iter())
        .for_each(|((mut column, ocean), heights)| {
            for y in 0..h {
                column[y] = if ocean[y] == 1 {
                    Water::Ocean
                } else if sea.is_below(heights[y], y) {
                    Water::Lake
                } else {
                    Water::Dry
                };
            }
        });
    water
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_and_field_models() {
        let flat = SeaLevel::new(SeaModel::Flat(0.15), 1024);
        assert_eq!((flat.at(0), flat.at(1023)), (0.15, 0.15));
        let field = SeaLevel::new(SeaModel::Field, 1024);
        assert_eq!(field.at(0), FIELD_NORTH);
        assert!((field.at(1023) - FIELD_SOUTH).abs() < 1e-6);
        assert!(
            field.at(300) > field.at(700),
            "the sea is higher in the north"
        );
        assert!(!flat.is_below(0.15, 5), "exactly at sea level is dry");
    }

    /// A ring island with an enclosed basin, and a channel that opens a second basin to the sea.
    #[test]
    fn ocean_reaches_the_border_and_lakes_are_enclosed() {
        let n = 64;
        let heights = Array2::from_shape_fn((n, n), |(x, y)| {
            let (dx, dy) = (x as f32 - 20.0, y as f32 - 32.0);
            let r = (dx * dx + dy * dy).sqrt();
            let ring = if (8.0..14.0).contains(&r) { 0.5 } else { 0.0 };
            // a second ring at x≈46 with a channel cut through it to the east
            let (ex, ey) = (x as f32 - 46.0, y as f32 - 32.0);
            let r2 = (ex * ex + ey * ey).sqrt();
            let ring2 = if (6.0..10.0).contains(&r2) && !(x > 46 && (31..=33).contains(&y)) {
                0.5
            } else {
                0.0
            };
            ring + ring2
        });
        let sea = SeaLevel::new(SeaModel::Flat(0.15), n);
        let water = classify_water(&heights, &sea);
        assert_eq!(water[(0, 0)], Water::Ocean);
        assert_eq!(water[(20, 32)], Water::Lake, "inside the closed ring");
        assert_eq!(water[(46, 32)], Water::Ocean, "inside the breached ring");
        assert_eq!(water[(20, 42)], Water::Dry);
        // no lake pixel touches the ocean
        for ((x, y), &wv) in water.indexed_iter() {
            if wv == Water::Lake {
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] {
                    assert_ne!(
                        water[(nx, ny)],
                        Water::Ocean,
                        "lake at ({x},{y}) touches ocean"
                    );
                }
            }
        }
        let lakes = water.iter().filter(|&&w| w == Water::Lake).count();
        assert!(lakes > 150 && lakes < 260, "{lakes} lake pixels");
    }

    #[test]
    fn diagonal_gaps_do_not_connect() {
        // a lake cell whose only below-sea neighbour towards the sea is diagonal stays a lake
        let mut heights = Array2::from_elem((5, 5), 1.0f32);
        heights[(0, 0)] = 0.0; // border, ocean
        heights[(1, 1)] = 0.0; // diagonal to the ocean cell only
        let water = classify_water(&heights, &SeaLevel::new(SeaModel::Flat(0.15), 5));
        assert_eq!(water[(0, 0)], Water::Ocean);
        assert_eq!(water[(1, 1)], Water::Lake);
    }
}
