//! Priority-flood basins: depression filling as diagnostics (nothing is serialised).
//!
//! Barnes, Lehman & Mulla (2014), "Priority-Flood", with the plain-queue improvement
//! (their Algorithm 2): cells are taken from the outlets inward in order of elevation; a
//! neighbour not higher than the cell it is reached from is raised to it and queued on a plain
//! FIFO queue instead of the priority queue, so flats and pits cost no heap operations.
//! Neighbours are the 8 surrounding cells (D8, as RichDEM's FillDepressions).
//!
//! Outlets are either the map's edge cells (RichDEM's convention, used to compare with it) or
//! the ocean: every ocean pixel drains to the sea as it is, and the flood starts from the cells
//! that touch the ocean (8-neighbour), each draining into it at its own height — the
//! generator's convention, since the seabed's hollows are under water already.
//!
//! The priority queue is a radix heap (`radix-heap`): Priority-Flood pops never decrease, which
//! is exactly the monotone queue a radix heap needs, and it is ~2× a binary heap here
//! (BENCHMARKS.md).
//!
//! Guarantees: the filled surface is never lower than the input; from every cell a path of
//! non-increasing filled height reaches an outlet; cells already draining keep their height.

use std::collections::VecDeque;

use ndarray::Array2;
use radix_heap::RadixHeapMap;
use rayon::prelude::*;
use serde::Serialize;

use super::sea::Water;
use crate::grid::bits::Bits;
use crate::grid::{height_key, NEIGHBOURS};
use crate::units::METRES_PER_RAW;

/// Where water leaves the map.
#[derive(Clone, Copy)]
pub enum Outlets<'a> {
    /// The map's edge cells.
    MapEdge,
    /// Every ocean pixel.
    Ocean(&'a Array2<Water>),
}

/// Fills every depression of `heights`: returns the filled surface.
pub fn fill_depressions(heights: &Array2<f32>, outlets: Outlets) -> Array2<f32> {
    let (w, h) = heights.dim();
    let mut z = heights.clone();
    // One bit a cell (8 MiB at 8192, inside the L3 cache where a byte a cell would not be).
    let mut closed = Bits::new(w * h);
    // Seeds, in scan order, found in parallel per column.
    let on_edge = |x: usize, y: usize| x == 0 || y == 0 || x == w - 1 || y == h - 1;
    let seeds: Vec<u32> = match outlets {
        Outlets::MapEdge => (0..w)
            .flat_map(|x| {
                (0..h)
                    .filter(move |&y| on_edge(x, y))
                    .map(move |y| (x * h + y) as u32)
            })
            .collect(),
        Outlets::Ocean(water) => {
            let per_column: Vec<(Vec<u32>, Vec<u32>)> = (0..w)
                .into_par_iter()
                .map(|x| {
                    let mut ocean = Vec::new();
                    let mut shore = Vec::new();
                    for y in 0..h {
                        let i = (x * h + y) as u32;
                        if water[[x, y]] == Water::Ocean {
                            ocean.push(i);
                        } else if on_edge(x, y)
                            || NEIGHBOURS.iter().any(|&(dx, dy)| {
                                let (nx, ny) =
                                    ((x as isize + dx) as usize, (y as isize + dy) as usize);
                                water[[nx, ny]] == Water::Ocean
                            })
                        {
                            shore.push(i);
                        }
                    }
                    (ocean, shore)
                })
                .collect();
            let mut seeds = Vec::new();
            for (ocean, shore) in per_column {
                ocean.into_iter().for_each(|i| closed.set(i as usize));
                seeds.extend(shore);
            }
            seeds
        }
    };
    let zs = z.as_slice_mut().expect("standard layout");
    // A max-heap on the inverted key pops the lowest cell first.
    let mut open: RadixHeapMap<u32, u32> = RadixHeapMap::new();
    let mut pit: VecDeque<u32> = VecDeque::new();
    for i in seeds {
        closed.set(i as usize);
        open.push(!height_key(zs[i as usize]), i);
    }
    let offsets: [isize; 8] = NEIGHBOURS.map(|(dx, dy)| dx * h as isize + dy);
    loop {
        let c = if let Some(c) = pit.pop_front() {
            c
        } else if let Some((_, c)) = open.pop() {
            c
        } else {
            break;
        };
        let (cx, cy) = ((c as usize) / h, (c as usize) % h);
        let zc = zs[c as usize];
        let interior = !on_edge(cx, cy);
        for (k, &off) in offsets.iter().enumerate() {
            if !interior {
                let (dx, dy) = NEIGHBOURS[k];
                let (nx, ny) = (cx as isize + dx, cy as isize + dy);
                if nx < 0 || ny < 0 || nx as usize >= w || ny as usize >= h {
                    continue;
                }
            }
            let n = (c as isize + off) as usize;
            if closed.get(n) {
                continue;
            }
            closed.set(n);
            if zs[n] <= zc {
                zs[n] = zc;
                pit.push_back(n as u32);
            } else {
                open.push(!height_key(zs[n]), n as u32);
            }
        }
    }
    z
}

/// What the depressions of a map look like.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BasinStats {
    /// Depressions (8-connected sets of raised cells).
    pub basins: usize,
    /// Cells raised by the fill.
    pub filled_cells: usize,
    /// Cells of the largest basin.
    pub largest_cells: usize,
    /// Median basin size, cells.
    pub median_cells: usize,
    /// Deepest fill, metres.
    pub max_depth_m: f32,
    /// Median of the basins' deepest fill, metres.
    pub median_depth_m: f32,
    /// Total fill volume, cubic metres (a map side is 8192 m).
    pub volume_m3: f64,
}

/// Basin statistics of `heights` filled to `filled`.
pub fn basin_stats(heights: &Array2<f32>, filled: &Array2<f32>) -> BasinStats {
    let (w, h) = heights.dim();
    let cell_area = crate::units::px_area_m2(w);
    let depth = |x: usize, y: usize| (filled[[x, y]] - heights[[x, y]]) * METRES_PER_RAW;
    let mut seen = Bits::new(w * h);
    let mut basins: Vec<(usize, f32)> = Vec::new();
    let mut stats = BasinStats::default();
    let mut stack = Vec::new();
    // Only columns holding a raised cell need the sequential walk; find them in parallel.
    let raised: Vec<bool> = (0..w)
        .into_par_iter()
        .map(|x| (0..h).any(|y| filled[[x, y]] > heights[[x, y]]))
        .collect();
    for x in (0..w).filter(|&x| raised[x]) {
        for y in 0..h {
            if seen.get(x * h + y) || depth(x, y) <= 0.0 {
                continue;
            }
            seen.set(x * h + y);
            stack.push((x, y));
            let (mut cells, mut deepest) = (0usize, 0.0f32);
            while let Some((x, y)) = stack.pop() {
                let d = depth(x, y);
                cells += 1;
                deepest = deepest.max(d);
                stats.volume_m3 += f64::from(d) * cell_area;
                for (dx, dy) in NEIGHBOURS {
                    let (nx, ny) = (x as isize + dx, y as isize + dy);
                    if nx < 0 || ny < 0 || nx as usize >= w || ny as usize >= h {
                        continue;
                    }
                    let (nx, ny) = (nx as usize, ny as usize);
                    if !seen.get(nx * h + ny) && depth(nx, ny) > 0.0 {
                        seen.set(nx * h + ny);
                        stack.push((nx, ny));
                    }
                }
            }
            stats.filled_cells += cells;
            basins.push((cells, deepest));
        }
    }
    stats.basins = basins.len();
    if !basins.is_empty() {
        let mut sizes: Vec<usize> = basins.iter().map(|b| b.0).collect();
        let mut depths: Vec<f32> = basins.iter().map(|b| b.1).collect();
        sizes.sort_unstable();
        depths.sort_unstable_by(f32::total_cmp);
        stats.largest_cells = sizes[sizes.len() - 1];
        stats.median_cells = sizes[sizes.len() / 2];
        stats.max_depth_m = depths[depths.len() - 1];
        stats.median_depth_m = depths[depths.len() / 2];
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The filled surface by brute force: repeatedly lower-bound each cell by its lowest path.
    fn reference(heights: &Array2<f32>) -> Array2<f32> {
        let (w, h) = heights.dim();
        let mut z = Array2::from_elem((w, h), f32::INFINITY);
        for x in 0..w {
            for y in 0..h {
                if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
                    z[[x, y]] = heights[[x, y]];
                }
            }
        }
        loop {
            let mut changed = false;
            for x in 1..w - 1 {
                for y in 1..h - 1 {
                    let lowest = NEIGHBOURS
                        .iter()
                        .map(|(dx, dy)| z[[(x as isize + dx) as usize, (y as isize + dy) as usize]])
                        .fold(f32::INFINITY, f32::min);
                    let v = heights[[x, y]].max(lowest);
                    if v < z[[x, y]] {
                        z[[x, y]] = v;
                        changed = true;
                    }
                }
            }
            if !changed {
                return z;
            }
        }
    }

    #[test]
    fn fills_exactly_as_the_brute_force_definition() {
        // A bumpy surface with pits, flats and nested depressions.
        let heights = Array2::from_shape_fn((40, 33), |(x, y)| {
            let (x, y) = (x as f32, y as f32);
            ((x * 0.7).sin() + (y * 0.9).cos() + (x * y * 0.05).sin()).round() * 0.5 + 2.0
        });
        let filled = fill_depressions(&heights, Outlets::MapEdge);
        assert_eq!(filled, reference(&heights));
        let stats = basin_stats(&heights, &filled);
        assert!(stats.basins > 0 && stats.filled_cells > 0);
        assert!(filled.iter().zip(heights.iter()).all(|(f, h)| f >= h));
    }

    #[test]
    fn ocean_outlets_leave_the_seabed_alone() {
        // A 7×7 map: ocean ring at height 0 with a seabed pit, an island with a crater lake.
        let mut heights = Array2::from_elem((7, 7), 1.0f32);
        let mut water = Array2::from_elem((7, 7), Water::Dry);
        for x in 0..7 {
            for y in 0..7 {
                if x == 0 || y == 0 || x == 6 || y == 6 {
                    heights[[x, y]] = 0.0;
                    water[[x, y]] = Water::Ocean;
                }
            }
        }
        heights[[0, 3]] = -1.0; // a seabed pit: stays
        heights[[3, 3]] = 0.5; // a pit on the island: filled to 1.0
        let filled = fill_depressions(&heights, Outlets::Ocean(&water));
        assert_eq!(filled[[0, 3]], -1.0);
        assert_eq!(filled[[3, 3]], 1.0);
        let stats = basin_stats(&heights, &filled);
        assert_eq!((stats.basins, stats.filled_cells), (1, 1));
    }
}
