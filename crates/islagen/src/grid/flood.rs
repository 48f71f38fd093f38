//! 4-connected flood fill over a `[x, y]` grid, by runs along y (the contiguous axis): each
//! stack entry fills a whole run of a column and queues one entry per run of each neighbouring
//! column, instead of one entry per pixel. Sequential and deterministic; shared by the mainland
//! fill, the ocean fill and the component counts.

use ndarray::Array2;
use rayon::prelude::*;

/// The mark [`closed_where`] gives the pixels a fill must not enter.
pub const CLOSED: u8 = u8::MAX;

/// A `dim` grid of marks, [`CLOSED`] where `closed(x, y)` holds (decided in parallel) and 0
/// elsewhere: a [`fill`] over it with an always-open test fills what a fill over zeros with
/// `!closed` would, each test one byte instead of a call.
pub fn closed_where(
    (w, h): (usize, usize),
    closed: impl Fn(usize, usize) -> bool + Sync,
) -> Array2<u8> {
    let mut marks = Array2::<u8>::zeros((w, h));
    marks
        .outer_iter_mut()
        .into_par_iter()
        .enumerate()
        .for_each(|(x, mut column)| {
            for (y, m) in column.iter_mut().enumerate() {
                if closed(x, y) {
                    *m = CLOSED;
                }
            }
        });
    marks
}

/// Fills, with `mark`, every pixel 4-connected to a seed through pixels where `open(x, y)` holds
/// and `marks` is still 0. Seeds that are closed or already marked are ignored. Returns the
/// number of pixels filled.
pub fn fill(
    marks: &mut Array2<u8>,
    seeds: impl IntoIterator<Item = (usize, usize)>,
    mark: u8,
    open: impl Fn(usize, usize) -> bool,
) -> usize {
    fill_runs(marks, seeds, mark, open, |_, _, _| {})
}

/// As [`fill`], calling `visit(x, y_lo, y_hi)` for every run of column x it fills.
pub fn fill_runs(
    marks: &mut Array2<u8>,
    seeds: impl IntoIterator<Item = (usize, usize)>,
    mark: u8,
    open: impl Fn(usize, usize) -> bool,
    mut visit: impl FnMut(usize, usize, usize),
) -> usize {
    debug_assert!(mark != 0, "0 means unmarked");
    let (w, h) = marks.dim();
    let grid = marks.as_slice_mut().expect("grids are in standard layout");
    let free = |grid: &[u8], x: usize, y: usize| grid[x * h + y] == 0 && open(x, y);
    let mut stack: Vec<(usize, usize)> = seeds.into_iter().collect();
    let mut filled = 0;
    while let Some((x, y)) = stack.pop() {
        if !free(grid, x, y) {
            continue;
        }
        let mut lo = y;
        while lo > 0 && free(grid, x, lo - 1) {
            lo -= 1;
        }
        let mut hi = y;
        while hi + 1 < h && free(grid, x, hi + 1) {
            hi += 1;
        }
        grid[x * h + lo..=x * h + hi].fill(mark);
        filled += hi - lo + 1;
        visit(x, lo, hi);
        for nx in [x.wrapping_sub(1), x + 1] {
            if nx >= w {
                continue;
            }
            let mut in_run = false;
            for ny in lo..=hi {
                let f = free(grid, nx, ny);
                if f && !in_run {
                    stack.push((nx, ny));
                }
                in_run = f;
            }
        }
    }
    filled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_exactly_the_connected_region() {
        // A ring of walls with a hole in the middle: the outside fills, the hole does not.
        let wall = |x: usize, y: usize| {
            (2..=6).contains(&x) && (2..=6).contains(&y) && (x == 2 || x == 6 || y == 2 || y == 6)
        };
        let mut marks = Array2::zeros((9, 9));
        let n = fill(&mut marks, [(0, 0)], 1, |x, y| !wall(x, y));
        assert_eq!(n, 81 - 16 - 9);
        assert_eq!(marks[[4, 4]], 0);
        assert_eq!(marks[[8, 8]], 1);
        assert_eq!(marks[[2, 4]], 0);
        let inner = fill(&mut marks, [(4, 4)], 2, |x, y| !wall(x, y));
        assert_eq!(inner, 9);
    }

    #[test]
    fn a_serpentine_is_followed_through_every_turn() {
        // Walls on alternate columns, open at alternating ends: one long snake.
        let (w, h) = (21, 15);
        let open = |x: usize, y: usize| {
            x.is_multiple_of(2) || (x % 4 == 1 && y == h - 1) || (x % 4 == 3 && y == 0)
        };
        let mut marks = Array2::zeros((w, h));
        let n = fill(&mut marks, [(0, 0)], 1, open);
        let expected = (0..w)
            .flat_map(|x| (0..h).map(move |y| (x, y)))
            .filter(|&(x, y)| open(x, y))
            .count();
        assert_eq!(n, expected);
    }

    #[test]
    fn a_fill_over_closed_marks_is_the_fill_with_its_test() {
        // A seeded maze of open pixels: the same pixels fill either way, and the closed ones
        // keep their mark.
        let (w, h) = (40, 33);
        let open = |x: usize, y: usize| !(x * 7 + y * 13 + x * y).is_multiple_of(5);
        let mut plain = Array2::zeros((w, h));
        let n = fill(&mut plain, [(1, 1), (30, 20)], 1, open);
        let mut closed = closed_where((w, h), |x, y| !open(x, y));
        assert_eq!(fill(&mut closed, [(1, 1), (30, 20)], 1, |_, _| true), n);
        for ((x, y), &m) in closed.indexed_iter() {
            let expected = if open(x, y) { plain[[x, y]] } else { CLOSED };
            assert_eq!(m, expected, "({x}, {y})");
        }
    }
}
