//! Priority-flood basins: depression filling as diagnostics (nothing is serialised).
//!
//! The filled surface is the lowest surface not below the heights from which every cell drains
//! to an outlet along a path that never rises: each cell's height becomes the lowest "spill"
//! height over its paths to an outlet (the highest cell on the path). Neighbours are the 8
//! surrounding cells (D8, as RichDEM's FillDepressions).
//!
//! Outlets are either the map's edge cells (RichDEM's convention, used to compare with it) or
//! the ocean: every ocean pixel drains to the sea as it is, and the flood starts from the cells
//! that touch the ocean (8-neighbour), each draining into it at its own height — the
//! generator's convention, since the seabed's hollows are under water already.
//!
//! # How: tiles, a graph of their rims, tiles again
//!
//! A single Priority-Flood over the map visits it in height order, which at 8192² hops across
//! 256 MiB of heights for every cell (cache and TLB misses were most of its time). Instead the
//! map is cut into 256² tiles and filled as Barnes (2016) does:
//!
//! 1. Each tile, on its own and in parallel, is flooded from its *seeds*: every cell of its
//!    ring (outermost cells) and every outlet in it, each at its own height (the outlets flood
//!    as one seed, the sea, since they all drain to it as they are). The flood is
//!    Barnes, Lehman & Mulla's (2014) Algorithm 2 (a priority queue, and a plain stack for cells
//!    raised to the level they are reached at); its priority queue is the tile's cells sorted
//!    once by height and a bit per rank (`RankQueue`), since the flood only ever queues cells
//!    above the one it took. Every cell takes the label of a seed it is flooded from; where two
//!    labels meet, the meeting height joins their sets of seeds. The flood meets heights in
//!    non-decreasing order, so joining the sets with a union-find as they meet is Kruskal's
//!    algorithm: it keeps the minimum spanning forest of the seeds, at most one edge per seed.
//!    A cell takes the label that stands for its seed's whole set, so a joined region shows no
//!    more meetings inside it. The tile's local fill is written out.
//! 2. One sequential Priority-Flood over the seeds of all tiles, joined by those forests and by
//!    the neighbouring ring cells of adjacent tiles, from the outlets, gives each ring cell its
//!    true spill height.
//! 3. A tile whose ring cells all keep their own heights is done; any other is flooded again
//!    from its ring at the spill heights, over its local fill and only below the highest raised
//!    spill (a cell's final height is the higher of its local fill and its seed's spill).
//!
//! Every step computes the unique minimum over paths, so the result is the same cell for cell as
//! a single flood over the map (and as RichDEM's, which `scripts/bench-basins.sh` checks), and
//! does not depend on the thread count. Heights are compared as
//! [`height_key`](crate::grid::height_key)s, a total order in which -0.0 is below +0.0 (a single
//! flood comparing floats could give a spill between the two either sign). Scratch memory is a
//! tile per thread and a few words per ring cell (~1.6 % of the map's cells at 256²);
//! [`basins`] holds the raised cells instead of a filled copy of the map.
//!
//! Guarantees: the filled surface is never lower than the input; from every cell a path of
//! non-increasing filled height reaches an outlet; cells already draining keep their height.
//!
//! # References
//!
//! - Barnes, Lehman & Mulla (2014), "Priority-Flood: An optimal depression-filling and
//!   watershed-labeling algorithm for digital elevation models", Computers & Geosciences 62.
//! - Barnes (2016), "Parallel Priority-Flood depression filling for trillion cell digital
//!   elevation models on desktops or clusters", Computers & Geosciences 96.

use ndarray::Array2;
use radix_heap::RadixHeapMap;
use rayon::prelude::*;
use serde::Serialize;

use super::sea::Water;
use crate::grid::bits::Bits;
use crate::grid::NEIGHBOURS;
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
    fill_in_tiles(heights, outlets, TILE)
}

/// The statistics of the depressions of `heights`: the same figures as
/// `basin_stats(heights, &fill_depressions(heights, outlets))`, without the filled surface (a
/// full-map copy of the heights): only the cells the fill raises are held.
pub fn basins(heights: &Array2<f32>, outlets: Outlets) -> BasinStats {
    basins_in_tiles(heights, outlets, TILE)
}

/// [`basins`] with tiles of `side` cells.
fn basins_in_tiles(heights: &Array2<f32>, outlets: Outlets, side: usize) -> BasinStats {
    let (w, h) = heights.dim();
    let heights = heights.as_standard_layout();
    let hs = heights.as_slice().expect("standard layout");
    let raised = Raised::new(w * h, hs, raised_in_tiles(hs, (w, h), outlets, side));
    tally(w, h, raised.cells(), |i| raised.depth(i, hs))
}

/// [`fill_depressions`] with tiles of `side` cells (the tests use small ones).
fn fill_in_tiles(heights: &Array2<f32>, outlets: Outlets, side: usize) -> Array2<f32> {
    let (w, h) = heights.dim();
    let heights = heights.as_standard_layout();
    let water = outlets.water();
    let map = Map::new(
        heights.as_slice().expect("standard layout"),
        (w, h),
        water.as_ref(),
        side,
    );
    let tiles = &map.tiles;
    let mut z = vec![0.0f32; w * h];
    let graphs: Vec<TileGraph> = strips(&mut z, tiles)
        .into_par_iter()
        .map_init(Scratch::default, |scratch, (tx, strip)| {
            (0..tiles.ny())
                .map(|ty| {
                    let r = tiles.rect(tx, ty);
                    let graph = scratch.local_fill(&map, r);
                    scratch.store(&map, r, strip);
                    graph
                })
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect();
    let spill = spill_heights(tiles, &graphs);
    strips(&mut z, tiles).into_par_iter().for_each_init(
        Scratch::default,
        |scratch, (tx, strip)| {
            for ty in 0..tiles.ny() {
                if let Some(spill) = spill.raised(tiles.index(tx, ty), &graphs) {
                    let r = tiles.rect(tx, ty);
                    scratch.load(&map, r, strip, r.strip_x0);
                    scratch.refill(&map, r, spill);
                    scratch.store(&map, r, strip);
                }
            }
        },
    );
    Array2::from_shape_vec((w, h), z).expect("w × h cells")
}

/// The fill's raised cells, as `cell << 32 | height key`, in scan order: the same flood as
/// [`fill_in_tiles`], each tile keeping only the cells whose height changed.
fn raised_in_tiles(
    heights: &[f32],
    (w, h): (usize, usize),
    outlets: Outlets,
    side: usize,
) -> Vec<u64> {
    let water = outlets.water();
    let map = Map::new(heights, (w, h), water.as_ref(), side);
    let tiles = &map.tiles;
    let (graphs, mut lists): (Vec<TileGraph>, Vec<Vec<u64>>) = (0..tiles.nx())
        .into_par_iter()
        .map_init(Scratch::default, |scratch, tx| {
            (0..tiles.ny())
                .map(|ty| {
                    let r = tiles.rect(tx, ty);
                    let graph = scratch.local_fill(&map, r);
                    let mut list = Vec::new();
                    scratch.raised(&map, r, &mut list);
                    (graph, list)
                })
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .unzip();
    let spill = spill_heights(tiles, &graphs);
    lists
        .par_chunks_mut(tiles.ny())
        .enumerate()
        .map_init(Scratch::default, |scratch, (tx, strip)| {
            for (ty, list) in strip.iter_mut().enumerate() {
                if let Some(spill) = spill.raised(tiles.index(tx, ty), &graphs) {
                    let r = tiles.rect(tx, ty);
                    scratch.load(&map, r, heights, 0);
                    scratch.overlay(&map, r, list);
                    scratch.refill(&map, r, spill);
                    list.clear();
                    scratch.changed(&map, r, list);
                }
            }
            // The tiles of a strip interleave column by column.
            let mut cells: Vec<u64> = strip.iter_mut().flat_map(std::mem::take).collect();
            cells.sort_unstable();
            cells
        })
        .collect::<Vec<_>>()
        .concat()
}

/// Side of the square tiles the fill works in: a tile's buffers (height keys, labels, ranks,
/// with a one-cell margin) stay in a core's L2 cache. At 8192, 128 was no faster (its
/// sequential merge has twice the seeds) and 512 slower (BENCHMARKS.md, "Basins against
/// RichDEM").
const TILE: usize = 256;

/// The label (or closed mark) of a cell outside the tile or out of the flood (the ocean).
const BLOCKED: u32 = u32::MAX;

/// The key of a seed slot that takes no part (a ring cell in the ocean, or an unused slot).
const EXCLUDED: u32 = u32::MAX;

/// [`height_key`](crate::grid::height_key) without a branch (the same key), to convert a tile
/// at a time.
#[inline]
fn key_of(h: f32) -> u32 {
    let b = h.to_bits();
    b ^ (((b as i32) >> 31) as u32 | 0x8000_0000)
}

/// The inverse of [`height_key`](crate::grid::height_key).
#[inline]
fn key_height(k: u32) -> f32 {
    f32::from_bits(if k & 0x8000_0000 != 0 {
        k & 0x7fff_ffff
    } else {
        !k
    })
}

impl<'a> Outlets<'a> {
    /// The water classification in the standard layout, when the ocean is the outlet.
    fn water(self) -> Option<ndarray::CowArray<'a, Water, ndarray::Ix2>> {
        match self {
            Outlets::MapEdge => None,
            Outlets::Ocean(water) => Some(water.as_standard_layout()),
        }
    }
}

/// What every tile reads.
struct Map<'a> {
    heights: &'a [f32],
    /// The water classification, when the ocean is the outlet.
    ocean: Option<&'a [Water]>,
    tiles: Tiles,
}

impl<'a> Map<'a> {
    fn new(
        heights: &'a [f32],
        (w, h): (usize, usize),
        water: Option<&'a ndarray::CowArray<'_, Water, ndarray::Ix2>>,
        side: usize,
    ) -> Map<'a> {
        Map {
            heights,
            ocean: water.map(|water| water.as_slice().expect("standard layout")),
            tiles: Tiles::new(w, h, side),
        }
    }

    #[inline]
    fn on_edge(&self, x: usize, y: usize) -> bool {
        x == 0 || y == 0 || x == self.tiles.w - 1 || y == self.tiles.h - 1
    }
}

/// The map cut into tiles: bounds along x and y (tile column `k` spans `xs[k]..xs[k + 1]`),
/// even to within a cell, and the tile column and row of every map column and row.
struct Tiles {
    w: usize,
    h: usize,
    xs: Vec<usize>,
    ys: Vec<usize>,
    tile_x: Vec<u32>,
    tile_y: Vec<u32>,
}

impl Tiles {
    fn new(w: usize, h: usize, side: usize) -> Tiles {
        let bounds = |len: usize| -> Vec<usize> {
            let n = len.div_ceil(side).max(1);
            (0..=n).map(|k| k * len / n).collect()
        };
        let owner = |bounds: &[usize]| -> Vec<u32> {
            (0..bounds.len() - 1)
                .flat_map(|k| std::iter::repeat_n(k as u32, bounds[k + 1] - bounds[k]))
                .collect()
        };
        let (xs, ys) = (bounds(w), bounds(h));
        let (tile_x, tile_y) = (owner(&xs), owner(&ys));
        Tiles {
            w,
            h,
            xs,
            ys,
            tile_x,
            tile_y,
        }
    }

    fn nx(&self) -> usize {
        self.xs.len() - 1
    }

    fn ny(&self) -> usize {
        self.ys.len() - 1
    }

    /// Tile `(tx, ty)`'s index, column-major like the map.
    fn index(&self, tx: usize, ty: usize) -> usize {
        tx * self.ny() + ty
    }

    /// Tile `(tx, ty)`'s origin and size.
    fn rect(&self, tx: usize, ty: usize) -> Rect {
        Rect {
            x0: self.xs[tx],
            y0: self.ys[ty],
            w: self.xs[tx + 1] - self.xs[tx],
            h: self.ys[ty + 1] - self.ys[ty],
            strip_x0: self.xs[tx],
        }
    }
}

/// The map's columns, a tile column's worth at a time (contiguous in the X-outer layout).
fn strips<'a>(z: &'a mut [f32], tiles: &Tiles) -> Vec<(usize, &'a mut [f32])> {
    let mut rest = z;
    (0..tiles.nx())
        .map(|tx| {
            let (strip, tail) =
                std::mem::take(&mut rest).split_at_mut((tiles.xs[tx + 1] - tiles.xs[tx]) * tiles.h);
            rest = tail;
            (tx, strip)
        })
        .collect()
}

/// A tile's origin and size.
#[derive(Clone, Copy)]
struct Rect {
    x0: usize,
    y0: usize,
    w: usize,
    h: usize,
    /// The first column of the strip holding the tile.
    strip_x0: usize,
}

impl Rect {
    /// Slots for the ring (the tile's outermost cells), numbered column by column.
    fn ring_slots(self) -> usize {
        if self.w == 1 {
            self.h
        } else {
            2 * self.h + 2 * (self.w - 2)
        }
    }

    /// The ring slot of tile cell `(i, j)`, if it is on the ring.
    #[inline]
    fn ring_slot(self, i: usize, j: usize) -> Option<usize> {
        if i == 0 {
            Some(j)
        } else if i == self.w - 1 {
            Some(self.h + 2 * (self.w - 2) + j)
        } else if j == 0 {
            Some(self.h + 2 * (i - 1))
        } else if j == self.h - 1 {
            Some(self.h + 2 * (i - 1) + 1)
        } else {
            None
        }
    }

    /// The tile cell of ring slot `s` (the inverse of [`Rect::ring_slot`]).
    #[inline]
    fn ring_cell(self, s: usize) -> (usize, usize) {
        if s < self.h {
            (0, s)
        } else if s < self.h + 2 * (self.w - 2) {
            let k = s - self.h;
            (1 + k / 2, if k.is_multiple_of(2) { 0 } else { self.h - 1 })
        } else {
            (self.w - 1, s - self.h - 2 * (self.w - 2))
        }
    }

    /// The ring's cells, slot by slot.
    fn ring(self) -> impl Iterator<Item = (usize, usize)> {
        (0..self.ring_slots()).filter_map(move |s| {
            let (i, j) = self.ring_cell(s);
            (self.ring_slot(i, j) == Some(s)).then_some((i, j))
        })
    }
}

/// What a tile's first flood leaves for the merge: its seeds — the ring's slots, then the sea
/// (all its outlets) — and the minimum spanning forest of their watersheds.
struct TileGraph {
    /// Each seed's height key (the sea's is 0, below every height); [`EXCLUDED`] for a slot
    /// out of the flood.
    keys: Vec<u32>,
    /// The seeds that are outlets.
    outlets: Vec<u32>,
    /// The forest: seed `s` meets seeds `next[start[s]..start[s + 1]]` at height keys
    /// `join[start[s]..start[s + 1]]` (a tile has fewer than 2¹⁶ seeds: [`TILE`] is 256).
    start: Vec<u16>,
    next: Vec<u16>,
    join: Vec<u32>,
}

impl TileGraph {
    /// The graph of seeds with height keys `keys`, outlets `outlets` and forest edges `forest`
    /// (two seeds, the height key at which they meet).
    fn new(keys: Vec<u32>, outlets: Vec<u32>, forest: &[(u32, u32, u32)]) -> TileGraph {
        assert!(keys.len() < 1 << 16, "{} seeds in a tile", keys.len());
        let mut start = vec![0u16; keys.len() + 1];
        for &(a, b, _) in forest {
            start[a as usize + 1] += 1;
            start[b as usize + 1] += 1;
        }
        for s in 0..keys.len() {
            start[s + 1] += start[s];
        }
        let mut at = start.clone();
        let (mut next, mut join) = (vec![0u16; 2 * forest.len()], vec![0u32; 2 * forest.len()]);
        for &(a, b, k) in forest {
            for (from, to) in [(a, b), (b, a)] {
                let e = &mut at[from as usize];
                (next[usize::from(*e)], join[usize::from(*e)]) = (to as u16, k);
                *e += 1;
            }
        }
        TileGraph {
            keys,
            outlets,
            start,
            next,
            join,
        }
    }
}

/// One thread's tile buffers, with a one-cell margin (column-major, `(w + 2) × (h + 2)`).
#[derive(Default)]
struct Scratch {
    /// Height keys ([`height_key`](crate::grid::height_key): every comparison in the flood is
    /// in their total order).
    z: Vec<u32>,
    /// 0 for a cell not yet reached, [`BLOCKED`], or a seed standing for the set of the seed
    /// the cell was flooded from, + 1.
    label: Vec<u32>,
    /// The ocean, margin included (ocean outlets only).
    wet: Vec<bool>,
    /// The ocean cells of each column of `wet`.
    wet_in: Vec<u32>,
    queue: RankQueue,
    pit: Vec<u32>,
    /// Union-find parents over the seeds + 1.
    parent: Vec<u32>,
    /// The cells the first flood raised.
    raised: Vec<u32>,
}

impl Scratch {
    /// Loads tile `r` of `surface` (the heights, or the strip holding the tile), marks the
    /// margin and the ocean blocked and everything else unreached.
    fn load(&mut self, map: &Map, r: Rect, surface: &[f32], surface_x0: usize) {
        let (h, ph) = (map.tiles.h, r.h + 2);
        let cells = (r.w + 2) * ph;
        self.z.clear();
        self.z.resize(cells, 0);
        self.label.clear();
        self.label.resize(cells, BLOCKED);
        for i in 0..r.w {
            let from = (r.x0 + i - surface_x0) * h + r.y0;
            let to = (i + 1) * ph + 1;
            for (k, &h) in self.z[to..to + r.h]
                .iter_mut()
                .zip(&surface[from..from + r.h])
            {
                *k = key_of(h);
            }
            self.label[to..to + r.h].fill(0);
        }
        if let Some(ocean) = map.ocean {
            // The ocean over the tile and its margin (what lies beyond the map stays dry).
            self.wet.clear();
            self.wet.resize(cells, false);
            self.wet_in.clear();
            self.wet_in.resize(r.w + 2, 0);
            let (y_lo, y_hi) = (r.y0.saturating_sub(1), (r.y0 + r.h + 1).min(h));
            let j0 = y_lo + 1 - r.y0;
            for i in 0..r.w + 2 {
                let Some(x) = (r.x0 + i).checked_sub(1).filter(|&x| x < map.tiles.w) else {
                    continue;
                };
                let column = &ocean[x * h + y_lo..x * h + y_hi];
                let to = i * ph + j0;
                for (wet, &water) in self.wet[to..to + column.len()].iter_mut().zip(column) {
                    *wet = water == Water::Ocean;
                }
                self.wet_in[i] = self.wet[to..to + column.len()]
                    .iter()
                    .map(|&wet| u32::from(wet))
                    .sum();
            }
            for i in (1..=r.w).filter(|&i| self.wet_in[i] > 0) {
                let c = i * ph + 1;
                for (l, &wet) in self.label[c..c + r.h].iter_mut().zip(&self.wet[c..c + r.h]) {
                    if wet {
                        *l = BLOCKED;
                    }
                }
            }
        }
    }

    /// Whether tile cell `(i, j)` (not blocked) is an outlet.
    #[inline]
    fn is_outlet(&self, map: &Map, r: Rect, i: usize, j: usize, offsets: &[isize; 8]) -> bool {
        if map.on_edge(r.x0 + i, r.y0 + j) {
            return true;
        }
        let c = (i + 1) * (r.h + 2) + j + 1;
        map.ocean.is_some()
            && offsets
                .iter()
                .any(|&off| self.wet[c.wrapping_add_signed(off)])
    }

    /// Pushes the outlets inside the tile (ocean outlets only: the map edge is on rings).
    fn push_inner_outlets(&mut self, map: &Map, r: Rect, mut seed: impl FnMut(&mut Self, usize)) {
        if map.ocean.is_none() || r.w < 3 || r.h < 3 {
            return;
        }
        let ph = r.h + 2;
        // Only columns with land, beside the ocean.
        let near = |i: usize| self.wet_in[i - 1] + self.wet_in[i] + self.wet_in[i + 1] > 0;
        let columns: Vec<usize> = (2..r.w)
            .filter(|&i| near(i) && self.wet_in[i] < ph as u32)
            .collect();
        for i in columns {
            for c in i * ph + 2..i * ph + r.h {
                let wet = &self.wet;
                let shore = wet[c - ph - 1]
                    | wet[c - ph]
                    | wet[c - ph + 1]
                    | wet[c - 1]
                    | wet[c + 1]
                    | wet[c + ph - 1]
                    | wet[c + ph]
                    | wet[c + ph + 1];
                if shore && !wet[c] && self.label[c] == 0 {
                    seed(self, c);
                }
            }
        }
    }

    /// The first flood of tile `r`: leaves its local fill in the buffers, returns its graph.
    fn local_fill(&mut self, map: &Map, r: Rect) -> TileGraph {
        self.load(map, r, map.heights, 0);
        let ph = r.h + 2;
        let offsets = offsets(ph);
        // The ring's slots, then the sea: one seed for every outlet, below every height. The
        // outlets flood under its label; those on the ring keep a seed of their own as well,
        // for their neighbours in the next tiles.
        let slots = r.ring_slots();
        let sea = slots as u32 + 1;
        let mut keys = vec![EXCLUDED; slots + 1];
        keys[slots] = 0;
        let mut outlets = vec![slots as u32];
        self.queue.rank(&self.z, &self.label);
        self.pit.clear();
        for (i, j) in r.ring() {
            let c = (i + 1) * ph + j + 1;
            if self.label[c] == BLOCKED {
                continue;
            }
            let slot = r.ring_slot(i, j).expect("on the ring");
            keys[slot] = self.z[c];
            self.label[c] = if self.is_outlet(map, r, i, j, &offsets) {
                outlets.push(slot as u32);
                sea
            } else {
                slot as u32 + 1
            };
            self.queue.push(c);
        }
        self.push_inner_outlets(map, r, |s, c| {
            s.label[c] = sea;
            s.queue.push(c);
        });
        self.parent.clear();
        self.parent.extend(0..=keys.len() as u32);
        self.raised.clear();
        let mut forest = Vec::new();
        self.flood::<true>(ph, &mut forest);
        TileGraph::new(keys, outlets, &forest)
    }

    /// The second flood of tile `r`, from its ring at the spill heights `spill` (per slot) and
    /// its inner outlets, over its local fill (loaded).
    fn refill(&mut self, map: &Map, r: Rect, spill: &[u32]) {
        let ph = r.h + 2;
        // A cell's final height is the higher of its local fill and its seed's spill height, so
        // only cells below the highest raised spill can change: the rest are walls.
        let top = r
            .ring()
            .filter_map(|(i, j)| {
                let c = (i + 1) * ph + j + 1;
                let k = spill[r.ring_slot(i, j).expect("on the ring")];
                (self.label[c] != BLOCKED && k != self.z[c]).then_some(k)
            })
            .max()
            .expect("a raised seed");
        for (l, &k) in self.label.iter_mut().zip(&self.z) {
            if *l == 0 && k >= top {
                *l = BLOCKED;
            }
        }
        for (i, j) in r.ring() {
            let c = (i + 1) * ph + j + 1;
            if self.label[c] != BLOCKED {
                self.z[c] = spill[r.ring_slot(i, j).expect("on the ring")];
            }
        }
        self.queue.rank(&self.z, &self.label);
        self.pit.clear();
        for (i, j) in r.ring() {
            let c = (i + 1) * ph + j + 1;
            if self.label[c] != BLOCKED {
                self.label[c] = 1;
                self.queue.push(c);
            }
        }
        self.push_inner_outlets(map, r, |s, c| {
            s.label[c] = 1;
            s.queue.push(c);
        });
        self.flood::<false>(ph, &mut Vec::new());
    }

    /// Writes the tile back into its strip.
    fn store(&self, map: &Map, r: Rect, strip: &mut [f32]) {
        let (h, ph) = (map.tiles.h, r.h + 2);
        for i in 0..r.w {
            let to = (r.x0 + i - r.strip_x0) * h + r.y0;
            let from = (i + 1) * ph + 1;
            for (h, &k) in strip[to..to + r.h]
                .iter_mut()
                .zip(&self.z[from..from + r.h])
            {
                *h = key_height(k);
            }
        }
    }

    /// Appends the tile's cells whose height changed to `list` (`cell << 32 | key`, in scan
    /// order within the tile).
    fn changed(&self, map: &Map, r: Rect, list: &mut Vec<u64>) {
        let (h, ph) = (map.tiles.h, r.h + 2);
        for i in 0..r.w {
            let at = (r.x0 + i) * h + r.y0;
            let from = (i + 1) * ph + 1;
            for (j, (&k, &height)) in self.z[from..from + r.h]
                .iter()
                .zip(&map.heights[at..at + r.h])
                .enumerate()
            {
                if k != key_of(height) {
                    list.push(((at + j) as u64) << 32 | u64::from(k));
                }
            }
        }
    }

    /// [`Scratch::changed`] after the first flood, from the cells it raised.
    fn raised(&self, map: &Map, r: Rect, list: &mut Vec<u64>) {
        let (h, ph) = (map.tiles.h, r.h + 2);
        list.extend(self.raised.iter().map(|&c| {
            let c = c as usize;
            let (i, j) = (c / ph - 1, c % ph - 1);
            (((r.x0 + i) * h + r.y0 + j) as u64) << 32 | u64::from(self.z[c])
        }));
        list.sort_unstable();
    }

    /// Puts back the heights a [`Scratch::changed`] list of this tile records.
    fn overlay(&mut self, map: &Map, r: Rect, list: &[u64]) {
        let (h, ph) = (map.tiles.h, r.h + 2);
        for &e in list {
            let cell = (e >> 32) as usize;
            let (x, y) = (cell / h, cell % h);
            self.z[(x - r.x0 + 1) * ph + y - r.y0 + 1] = e as u32;
        }
    }

    /// Priority-Flood from the queued seeds. With `LABELS`, every reached cell takes the label
    /// of the cell it is reached from, and the labels' minimum spanning forest goes to `forest`.
    fn flood<const LABELS: bool>(&mut self, ph: usize, forest: &mut Vec<(u32, u32, u32)>) {
        let offsets = offsets(ph);
        let Scratch {
            z,
            label,
            queue,
            pit,
            parent,
            raised,
            ..
        } = self;
        let (z, label, parent) = (&mut z[..], &mut label[..], &mut parent[..]);
        let (rank, order, bits) = (&queue.rank[..], &queue.order[..], &mut queue.bits[..]);
        let mut cursor = queue.cursor;
        loop {
            let c = if let Some(c) = pit.pop() {
                c as usize
            } else {
                // The queue's pop, inlined.
                loop {
                    let Some(&word) = bits.get(cursor) else {
                        queue.cursor = cursor;
                        return;
                    };
                    if word != 0 {
                        bits[cursor] = word & (word - 1);
                        break order[cursor * 64 + word.trailing_zeros() as usize] as usize;
                    }
                    cursor += 1;
                }
            };
            let zc = z[c];
            // The seed that stands for every seed already joined to c's: cells reached from c
            // take it, so a joined region shows no more meetings inside it.
            let mut lc = if LABELS {
                find(parent, label[c])
            } else {
                label[c]
            };
            for off in offsets {
                let n = c.wrapping_add_signed(off);
                let ln = label[n];
                if ln == 0 {
                    label[n] = lc;
                    if z[n] <= zc {
                        if LABELS && z[n] < zc {
                            raised.push(n as u32);
                        }
                        z[n] = zc;
                        pit.push(n as u32);
                    } else {
                        let r = rank[n] as usize;
                        bits[r >> 6] |= 1 << (r & 63);
                    }
                } else if LABELS && ln != lc && ln != BLOCKED && z[n] <= zc {
                    // Cells are met in non-decreasing height, so this is Kruskal's order, and
                    // any two seeds of the two sets stand for the join: within each, every
                    // seed reaches every other below this height.
                    let b = find(parent, ln);
                    if b != lc {
                        parent[lc as usize] = b;
                        forest.push((lc - 1, b - 1, zc));
                        lc = b;
                    }
                }
            }
        }
    }
}

/// A monotone priority queue over a tile's cells: the cells sorted once by height (then by
/// position), and a bit per rank. Priority-Flood only pushes cells above the last one popped,
/// so a cursor over the bits only moves forward: pushing and popping cost O(1).
#[derive(Default)]
struct RankQueue {
    /// Each cell's rank (cells out of the flood: unset).
    rank: Vec<u32>,
    /// The cell of each rank.
    order: Vec<u32>,
    bits: Vec<u64>,
    /// The word holding the last rank popped.
    cursor: usize,
    /// Radix sort buffers: (key - lowest key) << 32 | cell.
    sort: Vec<u64>,
    spare: Vec<u64>,
}

impl RankQueue {
    /// Ranks the cells of `z` that are not [`BLOCKED`] and empties the queue.
    fn rank(&mut self, z: &[u32], label: &[u32]) {
        self.sort.clear();
        let mut lowest = u32::MAX;
        for (c, (&k, &l)) in z.iter().zip(label).enumerate() {
            if l != BLOCKED {
                lowest = lowest.min(k);
                self.sort.push((u64::from(k) << 32) | c as u64);
            }
        }
        let span = self
            .sort
            .iter()
            .map(|&e| ((e >> 32) as u32).wrapping_sub(lowest))
            .max()
            .unwrap_or(0);
        for e in &mut self.sort {
            *e -= u64::from(lowest) << 32;
        }
        // Least significant digit first, in as few passes of at most 12 bits as the span needs.
        let bits = 32 - span.leading_zeros();
        let passes = bits.div_ceil(12).max(1);
        let digit = bits.div_ceil(passes).max(1);
        let mask = (1usize << digit) - 1;
        let mut count = vec![0u32; 1 << digit];
        for pass in 0..passes {
            let shift = 32 + pass * digit;
            count.fill(0);
            for &e in &self.sort {
                count[(e >> shift) as usize & mask] += 1;
            }
            let mut sum = 0;
            for c in &mut count {
                (*c, sum) = (sum, sum + *c);
            }
            self.spare.clear();
            self.spare.resize(self.sort.len(), 0);
            for &e in &self.sort {
                let d = (e >> shift) as usize & mask;
                self.spare[count[d] as usize] = e;
                count[d] += 1;
            }
            std::mem::swap(&mut self.sort, &mut self.spare);
        }
        self.rank.resize(z.len(), 0);
        self.order.clear();
        for (r, &e) in self.sort.iter().enumerate() {
            self.rank[e as u32 as usize] = r as u32;
            self.order.push(e as u32);
        }
        self.bits.clear();
        self.bits.resize(self.order.len().div_ceil(64), 0);
        self.cursor = 0;
    }

    /// Queues cell `c`, which ranks above the last cell popped.
    #[inline]
    fn push(&mut self, c: usize) {
        let r = self.rank[c] as usize;
        debug_assert!(r >> 6 >= self.cursor);
        self.bits[r >> 6] |= 1 << (r & 63);
    }
}

/// The offsets of the 8 neighbours in a column-major buffer of columns `ph` cells high.
fn offsets(ph: usize) -> [isize; 8] {
    NEIGHBOURS.map(|(dx, dy)| dx * ph as isize + dy)
}

/// Union-find root, halving the path on the way.
#[inline]
fn find(parent: &mut [u32], mut a: u32) -> u32 {
    while parent[a as usize] != a {
        let up = parent[parent[a as usize] as usize];
        parent[a as usize] = up;
        a = up;
    }
    a
}

/// Every seed's spill height key (seeds of tile `t` from `base[t]`, in [`TileGraph`] order):
/// a Priority-Flood from the outlets over the tiles' forests and the ring cells' neighbours
/// in adjacent tiles.
fn spill_heights(tiles: &Tiles, graphs: &[TileGraph]) -> Spill {
    let mut base = Vec::with_capacity(graphs.len() + 1);
    base.push(0);
    for g in graphs {
        base.push(base[base.len() - 1] + g.keys.len());
    }
    let nodes = base[graphs.len()];
    let mut spill = vec![u32::MAX; nodes];
    let mut done = Bits::new(nodes);
    let mut heap: RadixHeapMap<u32, u32> = RadixHeapMap::new();
    for (t, g) in graphs.iter().enumerate() {
        for &s in &g.outlets {
            let u = base[t] + s as usize;
            spill[u] = g.keys[s as usize];
            heap.push(!spill[u], u as u32);
        }
    }
    let (w, h) = (tiles.w as isize, tiles.h as isize);
    // Seeds reached at the level being popped are final at once: a plain stack, not the heap.
    let mut level: Vec<u32> = Vec::new();
    loop {
        let (k, u) = if let Some(u) = level.pop() {
            (spill[u as usize], u as usize)
        } else if let Some((k, u)) = heap.pop() {
            (!k, u as usize)
        } else {
            break;
        };
        if done.get(u) {
            continue;
        }
        done.set(u);
        let mut relax = |v: usize, wk: u32| {
            let cand = k.max(wk);
            if cand < spill[v] {
                spill[v] = cand;
                if cand == k {
                    level.push(v as u32);
                } else {
                    heap.push(!cand, v as u32);
                }
            }
        };
        // Every tile has seeds, so `base` rises strictly.
        let t = base.partition_point(|&b| b <= u) - 1;
        let (g, s) = (&graphs[t], u - base[t]);
        for e in usize::from(g.start[s])..usize::from(g.start[s + 1]) {
            relax(base[t] + usize::from(g.next[e]), g.join[e]);
        }
        let (tx, ty) = (t / tiles.ny(), t % tiles.ny());
        let r = tiles.rect(tx, ty);
        if s >= r.ring_slots() {
            continue;
        }
        let (i, j) = r.ring_cell(s);
        let (x, y) = ((r.x0 + i) as isize, (r.y0 + j) as isize);
        for (dx, dy) in NEIGHBOURS {
            let (nx, ny) = (x + dx, y + dy);
            if nx < 0 || ny < 0 || nx >= w || ny >= h {
                continue;
            }
            let (nx, ny) = (nx as usize, ny as usize);
            let (ntx, nty) = (tiles.tile_x[nx] as usize, tiles.tile_y[ny] as usize);
            if (ntx, nty) == (tx, ty) {
                continue;
            }
            let nr = tiles.rect(ntx, nty);
            let slot = nr
                .ring_slot(nx - nr.x0, ny - nr.y0)
                .expect("a neighbour across a tile's side is on its ring");
            let nt = tiles.index(ntx, nty);
            let key = graphs[nt].keys[slot];
            if key != EXCLUDED {
                relax(base[nt] + slot, key);
            }
        }
    }
    Spill { base, spill }
}

/// Every seed's spill height key, the seeds of tile `t` from `base[t]`.
struct Spill {
    base: Vec<usize>,
    spill: Vec<u32>,
}

impl Spill {
    /// Tile `t`'s spill heights, if any seed of it spills above its own height.
    fn raised<'s>(&'s self, t: usize, graphs: &[TileGraph]) -> Option<&'s [u32]> {
        let own = &graphs[t].keys;
        let spill = &self.spill[self.base[t]..self.base[t] + own.len()];
        own.iter().zip(spill).any(|(k, s)| k != s).then_some(spill)
    }
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
    let (heights, filled) = (heights.as_standard_layout(), filled.as_standard_layout());
    let (hs, fs) = (
        heights.as_slice().expect("standard layout"),
        filled.as_slice().expect("standard layout"),
    );
    let depth = |i: usize| (fs[i] - hs[i]) * METRES_PER_RAW;
    // The raised cells in scan order, found in parallel a column at a time.
    let raised: Vec<Vec<u32>> = (0..w)
        .into_par_iter()
        .map(|x| {
            (x * h..(x + 1) * h)
                .filter(|&i| depth(i) > 0.0)
                .map(|i| i as u32)
                .collect()
        })
        .collect();
    tally(w, h, raised.iter().flatten().map(|&i| i as usize), depth)
}

/// The basins of a `w × h` map whose raised cells (in scan order) are `raised`, `depth` metres
/// deep (not positive elsewhere): each basin walked depth-first from its first cell in scan
/// order, in sequence, the volume summed in that order.
fn tally(
    w: usize,
    h: usize,
    raised: impl Iterator<Item = usize>,
    depth: impl Fn(usize) -> f32,
) -> BasinStats {
    let cell_area = crate::units::px_area_m2(w);
    let mut seen = Bits::new(w * h);
    let mut basins: Vec<(usize, f32)> = Vec::new();
    let mut stats = BasinStats::default();
    let mut stack = Vec::new();
    for i in raised {
        if seen.get(i) {
            continue;
        }
        seen.set(i);
        stack.push(i);
        let (mut cells, mut deepest) = (0usize, 0.0f32);
        while let Some(c) = stack.pop() {
            let d = depth(c);
            cells += 1;
            deepest = deepest.max(d);
            stats.volume_m3 += f64::from(d) * cell_area;
            let (x, y) = (c / h, c % h);
            for (dx, dy) in NEIGHBOURS {
                let (nx, ny) = (x as isize + dx, y as isize + dy);
                if nx < 0 || ny < 0 || nx as usize >= w || ny as usize >= h {
                    continue;
                }
                let n = nx as usize * h + ny as usize;
                if !seen.get(n) && depth(n) > 0.0 {
                    seen.set(n);
                    stack.push(n);
                }
            }
        }
        stats.filled_cells += cells;
        basins.push((cells, deepest));
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

/// The raised cells of a fill without the filled surface: a bit a cell, the count of raised
/// cells before each 64-cell word, and the filled heights in scan order.
struct Raised {
    bits: Vec<u64>,
    before: Vec<u32>,
    filled: Vec<f32>,
}

impl Raised {
    /// From the changed cells `changed` (`cell << 32 | key`, in scan order) of a map of `cells`
    /// cells with heights `heights`: those the fill raises (a positive depth; a change from
    /// -0.0 to +0.0 is none).
    fn new(cells: usize, heights: &[f32], changed: Vec<u64>) -> Raised {
        let mut bits = vec![0u64; cells.div_ceil(64)];
        let mut filled = Vec::with_capacity(changed.len());
        for e in changed {
            let (i, f) = ((e >> 32) as usize, key_height(e as u32));
            if (f - heights[i]) * METRES_PER_RAW > 0.0 {
                bits[i >> 6] |= 1 << (i & 63);
                filled.push(f);
            }
        }
        let mut before = Vec::with_capacity(bits.len());
        let mut count = 0;
        for word in &bits {
            before.push(count);
            count += word.count_ones();
        }
        Raised {
            bits,
            before,
            filled,
        }
    }

    /// The raised cells in scan order.
    fn cells(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().flat_map(|(k, &word)| {
            std::iter::successors((word != 0).then_some(word), |&rest| {
                let rest = rest & (rest - 1);
                (rest != 0).then_some(rest)
            })
            .map(move |rest| k * 64 + rest.trailing_zeros() as usize)
        })
    }

    /// Cell `i`'s fill depth in metres (0 where it is not raised), as [`basin_stats`] has it.
    #[inline]
    fn depth(&self, i: usize, heights: &[f32]) -> f32 {
        let word = self.bits[i >> 6];
        let bit = 1u64 << (i & 63);
        if word & bit == 0 {
            return 0.0;
        }
        let rank = self.before[i >> 6] as usize + (word & (bit - 1)).count_ones() as usize;
        (self.filled[rank] - heights[i]) * METRES_PER_RAW
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::height_key;

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

    /// The fill as one Priority-Flood over the whole map (Barnes et al. 2014's Algorithm 2,
    /// untiled): the oracle for the tiled fill.
    fn one_flood(heights: &Array2<f32>, ocean: Option<&Array2<Water>>) -> Array2<f32> {
        let (w, h) = heights.dim();
        let mut z = heights.clone();
        let mut closed = Array2::from_elem((w, h), false);
        let mut open = std::collections::BinaryHeap::new();
        let mut pit = std::collections::VecDeque::new();
        let inside = |x: isize, y: isize| x >= 0 && y >= 0 && x < w as isize && y < h as isize;
        let wet = |x: usize, y: usize| ocean.is_some_and(|o| o[[x, y]] == Water::Ocean);
        for x in 0..w {
            for y in 0..h {
                let edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;
                let shore = NEIGHBOURS.iter().any(|&(dx, dy)| {
                    let (nx, ny) = (x as isize + dx, y as isize + dy);
                    inside(nx, ny) && wet(nx as usize, ny as usize)
                });
                if wet(x, y) {
                    closed[[x, y]] = true;
                } else if edge || shore {
                    closed[[x, y]] = true;
                    open.push(std::cmp::Reverse((height_key(z[[x, y]]), x, y)));
                }
            }
        }
        loop {
            let (x, y) = if let Some(c) = pit.pop_front() {
                c
            } else if let Some(std::cmp::Reverse((_, x, y))) = open.pop() {
                (x, y)
            } else {
                return z;
            };
            let zc = z[[x, y]];
            for (dx, dy) in NEIGHBOURS {
                let (nx, ny) = (x as isize + dx, y as isize + dy);
                if !inside(nx, ny) || closed[[nx as usize, ny as usize]] {
                    continue;
                }
                let n = (nx as usize, ny as usize);
                closed[n] = true;
                if z[n] <= zc {
                    z[n] = zc;
                    pit.push_back(n);
                } else {
                    open.push(std::cmp::Reverse((height_key(z[n]), n.0, n.1)));
                }
            }
        }
    }

    /// A rough surface with pits, flats (heights in steps) and nested depressions, and an
    /// ocean of blobs below `sea` plus a ragged border, from `seed`.
    fn terrain(w: usize, h: usize, seed: u64, sea: f32) -> (Array2<f32>, Array2<Water>) {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let heights = Array2::from_shape_fn((w, h), |(x, y)| {
            let (fx, fy) = (x as f32, y as f32);
            let smooth = (fx * 0.31).sin() + (fy * 0.23).cos() + (fx * fy * 0.013).sin();
            ((smooth + next() * 1.5) * 4.0).round() * 0.25
        });
        let water = Array2::from_shape_fn((w, h), |(x, y)| {
            let border = x.min(y).min(w - 1 - x).min(h - 1 - y);
            if heights[[x, y]] < sea || (border == 0 && next() < 0.5) {
                Water::Ocean
            } else {
                Water::Dry
            }
        });
        (heights, water)
    }

    #[test]
    fn tiles_of_any_size_fill_as_one_flood() {
        for (case, &(w, h)) in [(61, 47), (33, 80), (1, 9), (9, 1), (2, 2), (17, 3)]
            .iter()
            .enumerate()
        {
            let (heights, water) = terrain(w, h, case as u64 + 1, -0.8);
            let edge = one_flood(&heights, None);
            let ocean = one_flood(&heights, Some(&water));
            for side in [1, 2, 3, 5, 8, 16, 64] {
                let what = format!("{w}×{h}, tiles of {side}");
                assert_eq!(
                    fill_in_tiles(&heights, Outlets::MapEdge, side),
                    edge,
                    "{what}"
                );
                let tiled = fill_in_tiles(&heights, Outlets::Ocean(&water), side);
                assert_eq!(tiled, ocean, "{what}, ocean outlets");
                // The statistics without the filled surface: the same figures, to the bit.
                for (outlets, filled) in
                    [(Outlets::MapEdge, &edge), (Outlets::Ocean(&water), &ocean)]
                {
                    let sparse = basins_in_tiles(&heights, outlets, side);
                    let full = basin_stats(&heights, filled);
                    assert_eq!(sparse, full, "{what}");
                    assert_eq!(
                        sparse.volume_m3.to_bits(),
                        full.volume_m3.to_bits(),
                        "{what}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_same_fill_and_statistics_on_one_thread_and_two_and_without_the_surface() {
        let (heights, water) = terrain(700, 530, 7, -0.5);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            pool.install(|| {
                let edge = fill_depressions(&heights, Outlets::MapEdge);
                let ocean = fill_depressions(&heights, Outlets::Ocean(&water));
                let stats = basin_stats(&heights, &ocean);
                let sparse = basins(&heights, Outlets::Ocean(&water));
                assert_eq!(sparse, stats);
                assert_eq!(sparse.volume_m3.to_bits(), stats.volume_m3.to_bits());
                (edge, ocean, stats)
            })
        };
        let (one, two) = (run(1), run(2));
        let bits = |a: &Array2<f32>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&one.0), bits(&two.0));
        assert_eq!(bits(&one.1), bits(&two.1));
        assert_eq!(one.2, two.2);
        assert_eq!(one.2.volume_m3.to_bits(), two.2.volume_m3.to_bits());
        // And the same fill as the single flood (as values: this terrain has spills at both +0.0
        // and -0.0, which compare equal; the single flood gives either sign depending on the
        // order it meets them).
        assert_eq!(one.1, one_flood(&heights, Some(&water)));
        assert!(one.2.basins > 10, "{:?}", one.2);
    }

    #[test]
    fn keys_without_a_branch_are_the_height_keys() {
        let values = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -5.99,
            0.15,
        ];
        for h in values {
            assert_eq!(key_of(h), height_key(h), "{h}");
            assert_eq!(key_height(key_of(h)).to_bits(), h.to_bits(), "{h}");
        }
    }

    #[test]
    fn ring_slots_number_the_ring_once() {
        for (w, h) in [(1, 1), (1, 5), (5, 1), (2, 2), (2, 7), (6, 4), (256, 256)] {
            let r = Rect {
                x0: 0,
                y0: 0,
                w,
                h,
                strip_x0: 0,
            };
            let ring: Vec<(usize, usize)> = r.ring().collect();
            let expected = (0..w)
                .flat_map(|i| (0..h).map(move |j| (i, j)))
                .filter(|&(i, j)| i == 0 || j == 0 || i == w - 1 || j == h - 1)
                .count();
            assert_eq!(ring.len(), expected, "{w}×{h}");
            for (i, j) in ring {
                let s = r.ring_slot(i, j).expect("on the ring");
                assert!(s < r.ring_slots());
                assert_eq!(r.ring_cell(s), (i, j), "{w}×{h}");
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
        for side in [3, 7, 16] {
            assert_eq!(fill_in_tiles(&heights, Outlets::MapEdge, side), filled);
        }
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
