//! The mainland fill: the main island is one 4-connected landmass.
//!
//! The mainland is the 4-connected land component (height ≥ sea) holding the highest pixel
//! outside the islet zone. Every other land pixel outside the islet zone — a fragment the noise
//! left off the coast — is sunk just under sea level, keeping its shape as a shoal. Islets are
//! kept: the topography's depth moat keeps them apart from the mainland by construction.
//!
//! Guarantees: afterwards every land pixel is either in the one mainland component or in the
//! islet zone; no pixel is raised; the result depends on the heights alone, whatever the thread
//! count (the fill is deterministic).

use ndarray::Array2;
use rayon::prelude::*;

use crate::grid::flood::{closed_where, fill, fill_unmarked, CLOSED};

use crate::sea::SeaLevel;

/// Depth (raw) under sea at which a sunk fragment's shoreline ends up.
const SINK_DEPTH: f32 = 0.004;

/// The mainland and what the fill did.
#[derive(Clone, Debug)]
pub struct Mainland {
    /// 1 on the mainland component, else 0.
    pub mask: Array2<u8>,
    /// Mainland pixels.
    pub area: usize,
    /// Land pixels sunk because they were neither mainland nor islet.
    pub sunk: usize,
}

/// Sinks a land pixel of height `h` (≥ sea) under sea, keeping its relief as a shoal.
#[inline]
pub fn sink(h: f32, sea: f32) -> f32 {
    sea - SINK_DEPTH - 0.25 * (h - sea)
}

/// Finds the mainland and sinks stray land. `islet_zone` marks pixels that may hold islets.
pub fn mainland_fill(
    heights: &mut Array2<f32>,
    islet_zone: &Array2<u8>,
    sea: &SeaLevel,
) -> Mainland {
    let (w, h) = heights.dim();
    // The highest pixel outside the islet zone (first in scan order on ties) is on the mainland.
    let best = heights
        .outer_iter()
        .into_par_iter()
        .zip(islet_zone.outer_iter())
        .enumerate()
        .filter_map(|(x, (column, zone))| {
            let mut best: Option<(f32, usize)> = None;
            for y in 0..h {
                if zone[y] == 0 && best.is_none_or(|(b, _)| column[y] > b) {
                    best = Some((column[y], y));
                }
            }
            best.map(|(z, y)| (z, x, y))
        })
        .reduce_with(|a, b| {
            // Higher wins; on a tie the earlier pixel in scan order.
            if b.0 > a.0 || (b.0 == a.0 && (b.1, b.2) < (a.1, a.2)) {
                b
            } else {
                a
            }
        });
    // Under sea is closed to the fill; afterwards 0 marks land off the mainland.
    let mut mask = closed_where((w, h), |x, y| sea.is_below(heights[[x, y]], y));
    let area = match best {
        Some((_, x, y)) => fill_unmarked(&mut mask, [(x, y)], 1),
        None => 0,
    };
    let sunk = heights
        .outer_iter_mut()
        .into_par_iter()
        .zip(mask.outer_iter_mut())
        .zip(islet_zone.outer_iter())
        .map(|((mut column, mut mask), zone)| {
            let mut sunk = 0;
            for y in 0..h {
                let z = &mut column[y];
                if mask[y] == CLOSED {
                    mask[y] = 0;
                } else if mask[y] == 0 && zone[y] == 0 {
                    *z = sink(*z, sea.at(y));
                    sunk += 1;
                }
            }
            sunk
        })
        .sum();
    Mainland { mask, area, sunk }
}

/// Counts the 4-connected components of the pixels where `member(x, y)` holds, and their total
/// area. Sequential and deterministic.
pub fn count_components(
    dim: (usize, usize),
    member: impl Fn(usize, usize) -> bool,
) -> (usize, usize) {
    let sizes = component_sizes(dim, member);
    (sizes.len(), sizes.iter().sum())
}

/// The sizes of the 4-connected components of the pixels where `member(x, y)` holds, in scan
/// order of their first pixel. Sequential and deterministic.
pub fn component_sizes(
    (w, h): (usize, usize),
    member: impl Fn(usize, usize) -> bool,
) -> Vec<usize> {
    let mut marks = Array2::<u8>::zeros((w, h));
    let mut sizes = Vec::new();
    for x in 0..w {
        for y in 0..h {
            if marks[[x, y]] == 0 && member(x, y) {
                sizes.push(fill(&mut marks, [(x, y)], 1, &member));
            }
        }
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sea::SeaModel;

    #[test]
    fn stray_land_sinks_and_islets_stay() {
        let sea = SeaLevel::new(SeaModel::Flat(0.15), 8);
        let mut h = Array2::from_elem((8, 8), 0.0f32);
        for x in 1..4 {
            for y in 1..4 {
                h[[x, y]] = 0.5; // mainland
            }
        }
        h[[2, 2]] = 0.9;
        h[[6, 6]] = 0.3; // a fragment
        h[[6, 1]] = 0.3; // an islet
        let mut zone = Array2::zeros((8, 8));
        zone[[6, 1]] = 1;
        let m = mainland_fill(&mut h, &zone, &sea);
        assert_eq!((m.area, m.sunk), (9, 1));
        assert!(h[[6, 6]] < 0.15);
        assert_eq!(h[[6, 1]], 0.3);
        assert_eq!(m.mask[[1, 1]], 1);
    }
}
