//! 4-connected flood fill over a `[x, y]` grid, by runs along y (the contiguous axis): each
//! stack entry fills a whole run of a column and queues one entry per run of each neighbouring
//! column, instead of one entry per pixel. Sequential and deterministic; shared by the
//! component counts. [`fill_unmarked`] fills the same pixels in parallel where the test is
//! whether a pixel is unmarked (the mainland and ocean fills, over [`closed_where`]'s marks):
//! each column's runs found side by side, joined by a union–find over the runs alone.

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

/// [`fill`] with an always-open test — every pixel 4-connected to a seed through pixels whose
/// mark is 0 gets `mark` — worked in parallel: the unmarked runs of every column are found side
/// by side, a union–find joins the runs that touch across neighbouring columns (work in runs,
/// not pixels), and the runs joined to a seed's are filled side by side. The filled pixels are
/// [`fill`]'s (a fill reaches exactly the seeds' components). Returns their number.
pub fn fill_unmarked(
    marks: &mut Array2<u8>,
    seeds: impl IntoIterator<Item = (usize, usize)>,
    mark: u8,
) -> usize {
    debug_assert!(mark != 0, "0 means unmarked");
    let (w, h) = marks.dim();
    let mut runs = Runs::of(marks);
    let mut reached = vec![false; runs.sets.parent.len()];
    for (x, y) in seeds {
        if x < w && y < h {
            if let Some(i) = runs.at(x, y) {
                let root = runs.sets.root(i);
                reached[root] = true;
            }
        }
    }
    let filled: Vec<bool> = (0..reached.len())
        .map(|i| reached[runs.sets.root(i)])
        .collect();
    let Runs { columns, first, .. } = &runs;
    marks
        .outer_iter_mut()
        .into_par_iter()
        .enumerate()
        .map(|(x, mut column)| {
            let mut n = 0;
            for (k, &(lo, hi)) in columns[x].iter().enumerate() {
                if filled[first[x] + k] {
                    let (lo, hi) = (lo as usize, hi as usize);
                    column.slice_mut(ndarray::s![lo..=hi]).fill(mark);
                    n += hi - lo + 1;
                }
            }
            n
        })
        .sum()
}

/// The runs of 0 marks of every column, and which touch: each run's index is its column's
/// first index plus its place in the column (runs in row order).
struct Runs {
    columns: Vec<Vec<(u32, u32)>>,
    first: Vec<usize>,
    sets: Sets,
}

impl Runs {
    /// Finds every column's runs side by side, then joins the runs that share a row with a run
    /// of the next column.
    fn of(marks: &Array2<u8>) -> Runs {
        let columns: Vec<Vec<(u32, u32)>> = marks
            .outer_iter()
            .into_par_iter()
            .map(|column| unmarked_runs(column.as_slice().expect("grids are in standard layout")))
            .collect();
        let mut first = Vec::with_capacity(columns.len());
        let mut total = 0;
        for c in &columns {
            first.push(total);
            total += c.len();
        }
        let mut sets = Sets::new(total);
        for x in 1..columns.len() {
            let (left, right) = (&columns[x - 1], &columns[x]);
            join_touching(&mut sets, (left, first[x - 1]), (right, first[x]));
        }
        Runs {
            columns,
            first,
            sets,
        }
    }

    /// The run holding pixel (x, y), if it is unmarked.
    fn at(&self, x: usize, y: usize) -> Option<usize> {
        let column = &self.columns[x];
        let i = column.partition_point(|&(_, hi)| (hi as usize) < y);
        let (lo, _) = *column.get(i)?;
        (lo as usize <= y).then_some(self.first[x] + i)
    }
}

/// The runs (first, last row, inclusive) of 0 marks down one column.
fn unmarked_runs(column: &[u8]) -> Vec<(u32, u32)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (y, &m) in column.iter().enumerate() {
        match (m == 0, start) {
            (true, None) => start = Some(y),
            (false, Some(lo)) => {
                runs.push((lo as u32, y as u32 - 1));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(lo) = start {
        runs.push((lo as u32, column.len() as u32 - 1));
    }
    runs
}

/// Joins every run of `left` to every run of `right` (the next column) that shares a row with
/// it; each run's set is its column's first index plus its place in the column.
fn join_touching(
    sets: &mut Sets,
    (left, l0): (&[(u32, u32)], usize),
    (right, r0): (&[(u32, u32)], usize),
) {
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        let (a, b) = (left[i], right[j]);
        if a.0 <= b.1 && b.0 <= a.1 {
            sets.join(l0 + i, r0 + j);
        }
        // The run that ends first can touch nothing further on.
        if a.1 < b.1 {
            i += 1;
        } else {
            j += 1;
        }
    }
}

/// A union–find over run indices (path halving, union by index: the smaller root wins).
struct Sets {
    parent: Vec<usize>,
}

impl Sets {
    fn new(n: usize) -> Sets {
        Sets {
            parent: (0..n).collect(),
        }
    }

    fn root(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        if a != b {
            let (lo, hi) = (a.min(b), a.max(b));
            self.parent[hi] = lo;
        }
    }
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

    #[test]
    fn the_parallel_fill_fills_what_the_run_fill_does() {
        // Mazes of closed pixels at several densities and shapes, seeds inside, on closed
        // pixels and on the border: the same marks and the same count either way.
        for (w, h, k) in [
            (40, 33, 5),
            (64, 64, 3),
            (17, 90, 4),
            (90, 17, 2),
            (1, 50, 3),
            (50, 1, 3),
        ] {
            let closed = |x: usize, y: usize| (x * 7 + y * 13 + x * y + (x ^ y)).is_multiple_of(k);
            let seeds: Vec<(usize, usize)> = (0..w)
                .flat_map(|x| [(x, 0), (x, h - 1)])
                .chain([(w / 2, h / 2), (w / 3, 2 * h / 3), (w + 5, 0)])
                .collect();
            let mut serial = closed_where((w, h), closed);
            let n = fill(
                &mut serial,
                seeds.iter().copied().filter(|&(x, _)| x < w),
                1,
                |_, _| true,
            );
            let mut parallel = closed_where((w, h), closed);
            assert_eq!(fill_unmarked(&mut parallel, seeds, 1), n, "{w}×{h}/{k}");
            assert_eq!(parallel, serial, "{w}×{h}/{k}");
        }
    }
}
