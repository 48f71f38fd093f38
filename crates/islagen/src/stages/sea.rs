//! The ocean / lake flood fill, against the sea level of [`crate::sea`]. [`classify_water`]
//! splits below-sea pixels into true ocean — 4-connected to the map border through below-sea
//! pixels — and lakes (every other below-sea pixel). A pixel is below sea when its height is strictly less than the sea level at it.
//!
//! Guarantees: the result depends only on the heights and the model (no randomness, no thread
//! count); every border pixel that is below sea is ocean; no lake pixel is 4-adjacent to an
//! ocean pixel.

use ndarray::Array2;
use rayon::prelude::*;

use crate::grid::flood::{closed_where, fill_unmarked};

use crate::sea::SeaLevel;

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
    use crate::sea::{SeaModel, FIELD_NORTH, FIELD_SOUTH};

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
