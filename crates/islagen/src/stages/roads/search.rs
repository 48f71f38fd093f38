//! The road search on the full-resolution grid: the per-cell cost, the per-thread search state,
//! and one exact A* core that every road uses.
//!
//! **Cost.** One node per pixel, 8-connected (diagonal steps √2 long). Entering a cell costs its
//! step length × (1 + e³ × 400), e = the cell's height above sea as a fraction of the 420 m cap;
//! ocean, lakes and the crater are solid; a river pixel is a bridge at [`BRIDGE_COST`]. No cell
//! costs less than 1 per unit length, so any path is at least as costly as its octile length —
//! which is what makes every heuristic here a lower bound.
//!
//! **Search.** [`search`] is A* with a caller's consistent lower bound `h` (the octile distance
//! to a goal cell, or a [`super::field::DistanceField`] to a set of cells; zero makes it
//! Dijkstra) and an optional strict cost bound: only paths cheaper than the bound are searched,
//! so a question like "is the new road cheaper to reach than the join I already have?" costs
//! only the cells that could answer yes. With a consistent `h` the first goal popped is optimal.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use ndarray::Array2;
use rayon::prelude::*;

use crate::grid::bits::Bits;
use crate::stages::crater::Crater;
use crate::sea::SeaLevel;
use crate::stages::sea::Water;
use crate::units::{HEIGHT_CAP_M as CAP_M, METRES_PER_RAW};

/// The cost of entering a river pixel, per step length (an ordinary lowland pixel costs 1): a
/// one-pixel crossing is worth a 60-pixel detour.
pub const BRIDGE_COST: f32 = 60.0;

/// The 8 neighbours: (dx, dy, length).
const STEPS: [(isize, isize, f32); 8] = [
    (-1, -1, std::f32::consts::SQRT_2),
    (-1, 0, 1.0),
    (-1, 1, std::f32::consts::SQRT_2),
    (0, -1, 1.0),
    (0, 1, 1.0),
    (1, -1, std::f32::consts::SQRT_2),
    (1, 0, 1.0),
    (1, 1, std::f32::consts::SQRT_2),
];

/// The per-cell cost of a map, computed where it is asked for from the map's own heights: only
/// the solid cells and the bridges are held, as bits (a quarter of a byte a pixel, where a grid
/// of costs would take four).
pub struct CostGrid<'h> {
    pub(super) n: usize,
    heights: &'h [f32],
    /// The sea level of each row (raw).
    sea_rows: Vec<f32>,
    /// Water and the crater.
    solid: Bits,
    /// River pixels made bridges.
    bridged: Option<Bits>,
}

impl<'h> CostGrid<'h> {
    /// The cost grid of rendered `heights`: solid where `water` is not dry or within the crater.
    pub fn new(
        heights: &'h Array2<f32>,
        water: &Array2<Water>,
        sea: &SeaLevel,
        crater: &Crater,
    ) -> CostGrid<'h> {
        let n = heights.dim().0;
        let words: Vec<u64> = (0..(n * n).div_ceil(64))
            .into_par_iter()
            .map(|w| {
                (0..64).fold(0u64, |word, b| {
                    let i = w * 64 + b;
                    let (x, y) = (i / n, i % n);
                    let solid = i < n * n
                        && (water[[x, y]] != Water::Dry
                            || crater.distance(x, y) < crater.radius_px);
                    word | (u64::from(solid) << b)
                })
            })
            .collect();
        CostGrid {
            n,
            heights: heights
                .as_slice()
                .expect("a map's heights are in standard layout"),
            sea_rows: sea.rows(n),
            solid: Bits::from_words(words),
            bridged: None,
        }
    }

    /// Makes river pixels (`x * n + y`) bridges: passable at [`BRIDGE_COST`] (unless solid).
    pub fn bridge(&mut self, river_pixels: impl IntoIterator<Item = u32>) {
        let bridged = self
            .bridged
            .get_or_insert_with(|| Bits::new(self.n * self.n));
        for i in river_pixels {
            if !self.solid.get(i as usize) {
                bridged.set(i as usize);
            }
        }
    }

    /// Whether cell `i` is a bridge (a river pixel).
    #[inline]
    pub fn is_bridge(&self, i: usize) -> bool {
        self.bridged.as_ref().is_some_and(|b| b.get(i))
    }

    /// The bridges along `cells`: each run of consecutive river cells is one, with its length
    /// in cells.
    pub fn bridges(&self, cells: &[u32]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut run = 0;
        for &c in cells {
            if self.is_bridge(c as usize) {
                run += 1;
            } else if run > 0 {
                out.push(run);
                run = 0;
            }
        }
        if run > 0 {
            out.push(run);
        }
        out
    }

    /// Pixels per side.
    pub fn side(&self) -> usize {
        self.n
    }

    /// The cost of entering cell `i` (x * n + y); infinite when solid.
    #[inline]
    pub fn cost(&self, i: usize) -> f32 {
        self.cost_at(i / self.n, i % self.n)
    }

    /// The cost of entering cell (x, y): its step length × (1 + e³ × 400), e = its height above
    /// the sea as a fraction of the summit cap; at least [`BRIDGE_COST`] on a bridge; infinite
    /// when solid.
    #[inline]
    pub fn cost_at(&self, x: usize, y: usize) -> f32 {
        let i = x * self.n + y;
        if self.solid.get(i) {
            return f32::INFINITY;
        }
        let e = ((self.heights[i] - self.sea_rows[y]) * METRES_PER_RAW / CAP_M).clamp(0.0, 1.0);
        let c = 1.0 + e * e * e * 400.0;
        if self.is_bridge(i) {
            c.max(BRIDGE_COST)
        } else {
            c
        }
    }

    /// Whether cell (x, y) is solid.
    #[inline]
    pub fn solid(&self, x: usize, y: usize) -> bool {
        self.solid.get(x * self.n + y)
    }

    /// The cost of walking `cells` in order (each step: its length × the entered cell's cost).
    pub fn path_cost(&self, cells: &[u32]) -> f64 {
        cells
            .windows(2)
            .map(|w| {
                let (a, b) = (w[0] as usize, w[1] as usize);
                let diagonal = a / self.n != b / self.n && a % self.n != b % self.n;
                let len = if diagonal {
                    std::f64::consts::SQRT_2
                } else {
                    1.0
                };
                len * f64::from(self.cost(b))
            })
            .sum()
    }
}

/// The side of a scratch page, cells (64 × 64 cells a page).
const PAGE_SHIFT: usize = 6;
const PAGE_MASK: usize = (1 << PAGE_SHIFT) - 1;
const PAGE_CELLS: usize = 1 << (2 * PAGE_SHIFT);
/// The bit of a parent entry that marks its cell closed (cell indices stay below 2³⁰).
const CLOSED: u32 = 1 << 31;

/// Reusable search state for one thread, in 64 × 64-cell pages made on first touch: a search
/// holds only the pages it reaches (8 bytes a cell: g-score, parent and a closed bit), and
/// hands them back for the next search to reuse, so memory follows the largest single search
/// rather than the map or the union of every search.
pub struct Scratch {
    n: usize,
    pages_per_side: usize,
    /// Page id → its slot + 1 in the pool, 0 when the current search has not touched it.
    table: Vec<u32>,
    /// The pages the current search touched.
    used: Vec<u32>,
    g: Vec<f32>,
    parent: Vec<u32>,
    /// Nodes expanded by the last search.
    pub expanded: u64,
    /// The open list, its allocation kept from search to search. An entry is the f-score's
    /// [`key`] above the cell (the tie-break), so one integer comparison orders by f-score,
    /// then by cell: the order a `(key, cell)` tuple gives, at half the size.
    open: BinaryHeap<Reverse<u64>>,
}

impl Scratch {
    /// Scratch for a map of `n` × `n`.
    pub fn new(n: usize) -> Scratch {
        let pages_per_side = n.div_ceil(1 << PAGE_SHIFT);
        Scratch {
            n,
            pages_per_side,
            table: vec![0; pages_per_side * pages_per_side],
            used: Vec::new(),
            g: Vec::new(),
            parent: Vec::new(),
            expanded: 0,
            open: BinaryHeap::new(),
        }
    }

    fn begin(&mut self) {
        for &id in &self.used {
            self.table[id as usize] = 0;
        }
        self.used.clear();
        self.expanded = 0;
    }

    #[inline]
    fn page(&self, x: usize, y: usize) -> usize {
        (x >> PAGE_SHIFT) * self.pages_per_side + (y >> PAGE_SHIFT)
    }

    /// The pool index of cell (x, y), if the current search has touched its page.
    #[inline]
    fn find(&self, x: usize, y: usize) -> Option<usize> {
        let slot = self.table[self.page(x, y)];
        (slot != 0).then(|| {
            ((slot - 1) as usize) * PAGE_CELLS + (((x & PAGE_MASK) << PAGE_SHIFT) | (y & PAGE_MASK))
        })
    }

    /// The pool index of cell (x, y), its page made fresh (every g infinite, nothing closed)
    /// if the current search has not touched it yet.
    fn touch(&mut self, x: usize, y: usize) -> usize {
        if let Some(k) = self.find(x, y) {
            return k;
        }
        let slot = self.used.len();
        let range = slot * PAGE_CELLS..(slot + 1) * PAGE_CELLS;
        if self.g.len() < range.end {
            self.g.resize(range.end, f32::INFINITY);
            self.parent.resize(range.end, 0);
        } else {
            self.g[range.clone()].fill(f32::INFINITY);
            self.parent[range].fill(0);
        }
        let id = self.page(x, y);
        self.table[id] = slot as u32 + 1;
        self.used.push(id as u32);
        self.find(x, y).expect("just made")
    }

    fn path_to(&self, mut i: u32, start: u32) -> Vec<u32> {
        let n = self.n;
        let mut cells = vec![i];
        while i != start {
            let k = self
                .find(i as usize / n, i as usize % n)
                .expect("a path's cells were reached");
            i = self.parent[k] & !CLOSED;
            cells.push(i);
        }
        cells.reverse();
        cells
    }
}

/// One [`Scratch`] per worker thread (and one for the caller), made on first use: parallel
/// searches borrow their thread's, so a batch holds at most threads + 1 scratches however
/// many jobs rayon splits it into. A search never calls into
/// rayon while it holds one, so a thread cannot want its own slot twice.
pub struct ScratchPool {
    n: usize,
    slots: Vec<std::sync::Mutex<Option<Scratch>>>,
}

impl ScratchPool {
    /// A pool for an `n` × `n` map on the current rayon pool.
    pub fn new(n: usize) -> ScratchPool {
        let slots = (0..=rayon::current_num_threads())
            .map(|_| std::sync::Mutex::new(None))
            .collect();
        ScratchPool { n, slots }
    }

    /// Runs `search` with this thread's scratch.
    pub fn with<R>(&self, search: impl FnOnce(&mut Scratch) -> R) -> R {
        let last = self.slots.len() - 1;
        let i = rayon::current_thread_index().map_or(last, |i| i.min(last));
        let mut slot = self.slots[i]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        search(slot.get_or_insert_with(|| Scratch::new(self.n)))
    }

    /// Scratches made so far (at most threads + 1).
    pub fn made(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.lock().map(|s| s.is_some()).unwrap_or(true))
            .count()
    }
}

/// A total order on non-negative f32 keys.
#[inline]
fn key(f: f32) -> u64 {
    u64::from(f.to_bits())
}

/// An open-list entry: `f`'s key in the high 32 bits, the cell in the low, so the min-heap pops
/// by f-score and breaks ties by cell, as a `(key, cell)` pair would.
#[inline]
fn entry(f: f32, cell: u32) -> Reverse<u64> {
    Reverse((key(f) << 32) | u64::from(cell))
}

/// The octile length of a (dx, dy) offset: the shortest 8-connected walk, a lower bound of any
/// path's cost over it.
#[inline]
pub fn octile_xy(dx: usize, dy: usize) -> f32 {
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    hi as f32 + (std::f32::consts::SQRT_2 - 1.0) * lo as f32
}

/// A search's result: the cells from start to goal, and the path's cost.
#[derive(Clone, Debug)]
pub struct Found {
    /// Cells `x * n + y`, start first.
    pub cells: Vec<u32>,
    /// Cost on the grid.
    pub cost: f32,
}

/// Exact A* from `start` to `goal`.
pub fn astar(grid: &CostGrid, s: &mut Scratch, start: u32, goal: u32) -> Option<Found> {
    let n = grid.n;
    let (gx, gy) = (goal as usize / n, goal as usize % n);
    search(
        grid,
        s,
        start,
        |i| i == goal as usize,
        |x, y| octile_xy(x.abs_diff(gx), y.abs_diff(gy)),
        f32::INFINITY,
    )
}

/// Exact Dijkstra from `start` to the nearest cell (by path cost) where `target` holds.
pub fn nearest(
    grid: &CostGrid,
    s: &mut Scratch,
    start: u32,
    target: impl Fn(usize) -> bool,
) -> Option<Found> {
    search(grid, s, start, target, |_, _| 0.0, f32::INFINITY)
}

/// Exact A* from `start` to the first cell where `is_goal` holds, ordered by g + `h(x, y)`;
/// `h` must be a consistent lower bound of the cost from (x, y) to a goal (zero at goals). Only
/// paths cheaper than `bound` are searched: `None` when there is none (or no path at all).
pub fn search(
    grid: &CostGrid,
    s: &mut Scratch,
    start: u32,
    is_goal: impl Fn(usize) -> bool,
    h: impl Fn(usize, usize) -> f32,
    bound: f32,
) -> Option<Found> {
    let n = grid.n;
    s.begin();
    let (sx, sy) = (start as usize / n, start as usize % n);
    let f0 = h(sx, sy);
    if grid.cost(start as usize).is_infinite() || f0 >= bound {
        return None;
    }
    let k = s.touch(sx, sy);
    (s.g[k], s.parent[k]) = (0.0, start);
    s.open.clear();
    s.open.push(entry(f0, start));
    while let Some(Reverse(e)) = s.open.pop() {
        let c = e as u32;
        let (cx, cy) = (c as usize / n, c as usize % n);
        let kc = s.find(cx, cy).expect("a queued cell was reached");
        if s.parent[kc] & CLOSED != 0 {
            continue;
        }
        s.parent[kc] |= CLOSED;
        s.expanded += 1;
        let gc = s.g[kc];
        if is_goal(c as usize) {
            return Some(Found {
                cells: s.path_to(c, start),
                cost: gc,
            });
        }
        for (dx, dy, len) in STEPS {
            let (nx, ny) = (cx.wrapping_add_signed(dx), cy.wrapping_add_signed(dy));
            if nx >= n || ny >= n {
                continue;
            }
            let step = grid.cost_at(nx, ny);
            if step.is_infinite() {
                continue;
            }
            let ni = nx * n + ny;
            let g = gc + len * step;
            let found = s.find(nx, ny);
            if let Some(k) = found {
                if s.parent[k] & CLOSED != 0 || g >= s.g[k] {
                    continue;
                }
            }
            let f = g + h(nx, ny);
            if f >= bound {
                continue;
            }
            let k = found.unwrap_or_else(|| s.touch(nx, ny));
            (s.g[k], s.parent[k]) = (g, c);
            s.open.push(entry(f, ni as u32));
        }
    }
    None
}
