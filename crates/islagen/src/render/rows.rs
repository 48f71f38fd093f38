//! The snapshot pictures as sources of rows ([`Rows`]): each fills any band of image rows on
//! demand, so a picture is streamed into its PNG a band at a time and never held whole
//! (`stream.rs`); the whole-picture functions of this module's parent fill one band that is the
//! whole image. Every source gives exactly the pixels of the per-pixel colour functions it
//! replaced (unit tests against them, NaN and infinite heights included).
//!
//! The grids are X-outer (`[[x, y]]` at `x·side + y`) while image rows run along x, so a source
//! reads each column's contiguous run of a band's rows (256 of them: the whole run is read while
//! the column's page is at hand) into a tile of 64 columns, and copies the tile's rows into
//! place ([`by_tiles`]). The byte pictures transpose 8 × 8 blocks in `u64`s; the height picture
//! computes each run's hillshade in lanes and skips it for runs of open sea.

use ndarray::{ArrayView2, CowArray, Ix2};
use rayon::prelude::*;

use super::paint::{road_shapes, town_shapes, Overlay, Shape};
use super::{biome_colour, ramp, BAND_M, LAND_STOPS, WATER_STOPS};
use crate::blueprint::format::WaterBodyType;
use crate::blueprint::{Biome, Roads, Town, WaterBody};
use crate::sea::SeaLevel;
use crate::units::{metres_per_px, HEIGHT_CAP_M, METRES_PER_RAW};

/// Rows one parallel task fills (a streamed band is one task a picture: the pictures are the
/// parallelism, each column visited once a band).
const TASK_ROWS: usize = 256;

/// Rows a source works through at a time (its scratch arrays' length).
const CHUNK_ROWS: usize = 256;

/// A picture that fills bands of its rows on demand.
pub trait Rows: Sync {
    /// Width and height in pixels.
    fn size(&self) -> (usize, usize);
    /// The palette of a palette picture (one index byte a pixel); `None` for RGB (three bytes).
    fn palette(&self) -> Option<&[[u8; 3]]>;
    /// Fills `out` with whole rows `y0 ..` (`out.len()` is a multiple of the row length and
    /// ends at or before the last row).
    fn fill(&self, y0: usize, out: &mut [u8]);

    /// The picture this one is painted over, if any: its rows are the base's rows (same size
    /// and row length) with [`Rows::paint`] applied, so a writer that has the base's band may
    /// copy it and paint instead of filling.
    fn base(&self) -> Option<&dyn Rows> {
        None
    }

    /// Paints over rows `y0 ..` of `out`, which hold the [`Rows::base`]'s rows.
    fn paint(&self, _y0: usize, _out: &mut [u8]) {}

    /// Bytes in one row.
    fn row_bytes(&self) -> usize {
        self.size().0 * if self.palette().is_some() { 1 } else { 3 }
    }
}

/// [`Rows::fill`] in parallel tasks of `TASK_ROWS` rows.
pub fn fill_par(pic: &(impl Rows + ?Sized), y0: usize, out: &mut [u8]) {
    let task = TASK_ROWS * pic.row_bytes();
    out.par_chunks_mut(task)
        .enumerate()
        .for_each(|(i, rows)| pic.fill(y0 + i * TASK_ROWS, rows));
}

/// [`Rows::paint`] in parallel tasks of `TASK_ROWS` rows.
pub fn paint_par(pic: &(impl Rows + ?Sized), y0: usize, out: &mut [u8]) {
    let task = TASK_ROWS * pic.row_bytes();
    out.par_chunks_mut(task)
        .enumerate()
        .for_each(|(i, rows)| pic.paint(y0 + i * TASK_ROWS, rows));
}

/// Every row of `pic`, filled in parallel.
pub fn fill_all(pic: &(impl Rows + ?Sized)) -> Vec<u8> {
    let mut out = vec![0u8; pic.size().1 * pic.row_bytes()];
    fill_par(pic, 0, &mut out);
    out
}

/// `grid` column by column: column x is `data[x·h .. (x + 1)·h]`.
fn columns<T: Clone>(grid: ArrayView2<'_, T>) -> CowArray<'_, T, Ix2> {
    // The pipeline's grids are already in this layout (no copy); any other view is copied.
    if grid.is_standard_layout() {
        grid.into()
    } else {
        grid.as_standard_layout().into_owned().into()
    }
}

/// Columns one tile spans.
const TILE_COLUMNS: usize = 64;

/// Fills whole rows `y0 ..` of `out` (`bpp` bytes a pixel, `w` pixels a row) a tile at a time:
/// `tile(y, x, xs, buf)` fills rows `y ..` of columns `x .. x + xs` into `buf` (row-major, `xs`
/// pixels a row, at most [`CHUNK_ROWS`] rows), which is then copied into place. Walking the
/// image's rows one pixel at a time instead would touch a cache line per row for every pixel,
/// and with a power-of-two row length all those lines fall in the same cache set.
fn by_tiles(
    (w, bpp): (usize, usize),
    y0: usize,
    out: &mut [u8],
    mut tile: impl FnMut(usize, usize, usize, &mut [u8]),
) {
    let mut buf = vec![0u8; CHUNK_ROWS * TILE_COLUMNS * 3];
    for (i, rows) in out.chunks_mut(CHUNK_ROWS * w * bpp).enumerate() {
        let n = rows.len() / (w * bpp);
        for x in (0..w).step_by(TILE_COLUMNS) {
            let xs = TILE_COLUMNS.min(w - x);
            let buf = &mut buf[..n * xs * bpp];
            tile(y0 + i * CHUNK_ROWS, x, xs, buf);
            for (dy, from) in buf.chunks_exact(xs * bpp).enumerate() {
                let at = (dy * w + x) * bpp;
                rows[at..at + xs * bpp].copy_from_slice(from);
            }
        }
    }
}

/// Fills whole rows `y0 ..` of `out` with `f` of a grid's values (one byte a pixel), from the
/// grid's columns (`h` long): eight columns' runs of eight rows at a time, transposed as a
/// block in eight `u64`s.
fn transpose<T>(
    data: &[T],
    (w, h): (usize, usize),
    y0: usize,
    out: &mut [u8],
    f: impl Fn(&T) -> u8,
) {
    by_tiles((w, 1), y0, out, |y0, x0, xs, buf| {
        let n = buf.len() / xs;
        let column = |dx: usize| &data[(x0 + dx) * h + y0..(x0 + dx) * h + y0 + n];
        let (xs8, n8) = (xs - xs % 8, n - n % 8);
        for dx in (0..xs8).step_by(8) {
            for dy in (0..n8).step_by(8) {
                let mut block = [0u64; 8];
                for (i, word) in block.iter_mut().enumerate() {
                    let mut bytes = [0u8; 8];
                    for (byte, v) in bytes.iter_mut().zip(&column(dx + i)[dy..dy + 8]) {
                        *byte = f(v);
                    }
                    *word = u64::from_le_bytes(bytes);
                }
                let block = transpose8(block);
                for (i, row) in block.iter().enumerate() {
                    let at = (dy + i) * xs + dx;
                    buf[at..at + 8].copy_from_slice(&row.to_le_bytes());
                }
            }
        }
        // The columns and rows left over from whole blocks.
        for dx in 0..xs {
            let rows = if dx < xs8 { n8..n } else { 0..n };
            let run = column(dx);
            for dy in rows {
                buf[dy * xs + dx] = f(&run[dy]);
            }
        }
    });
}

/// Transposes an 8 × 8 block of bytes: byte `j` of `a[i]` becomes byte `i` of the result's
/// `j`th word (2 × 2, then 4 × 4, then 8 × 8 sub-blocks swapped across their diagonals).
#[inline(always)]
fn transpose8(mut a: [u64; 8]) -> [u64; 8] {
    let mut swap = |i: usize, j: usize, shift: u32, mask: u64| {
        let t = ((a[i] >> shift) ^ a[j]) & mask;
        a[j] ^= t;
        a[i] ^= t << shift;
    };
    for i in [0, 2, 4, 6] {
        swap(i, i + 1, 8, 0x00FF_00FF_00FF_00FF);
    }
    for i in [0, 1, 4, 5] {
        swap(i, i + 2, 16, 0x0000_FFFF_0000_FFFF);
    }
    for i in [0, 1, 2, 3] {
        swap(i, i + 4, 32, 0x0000_0000_FFFF_FFFF);
    }
    a
}

/// Land colours by hypsometric band (`⌊metres / BAND_M⌋`), the bands below the cap.
const LAND_BANDS: usize = 64;

/// The `0_height` picture: hypsometric bands of metres above sea (water by depth) × a hillshade
/// lit from the north-west at 45°, computed in metres so it reads the same at every MapSize
/// (one map side is 8192 m). RGB.
pub struct HeightRows<'a> {
    heights: CowArray<'a, f32, Ix2>,
    sea: SeaLevel,
    /// Raw height difference across two pixels → slope in metres per metre.
    k: f32,
    /// The land colour of each band below [`LAND_BANDS`].
    land: [[f32; 3]; LAND_BANDS],
}

impl<'a> HeightRows<'a> {
    /// The picture of `heights` (exported raw units) with the sea at `sea`.
    pub fn new(heights: ArrayView2<'a, f32>, sea: &SeaLevel) -> HeightRows<'a> {
        let w = heights.dim().0;
        HeightRows::with_spacing(heights, sea, metres_per_px(w))
    }

    /// The picture of `heights` whose samples lie `spacing_m` metres apart: a window of a larger
    /// map (`islagen serve`'s tiles), or a map sampled at a stride. [`HeightRows::new`] is this
    /// with the spacing of a whole map.
    pub fn with_spacing(
        heights: ArrayView2<'a, f32>,
        sea: &SeaLevel,
        spacing_m: f32,
    ) -> HeightRows<'a> {
        HeightRows {
            heights: columns(heights),
            sea: *sea,
            k: METRES_PER_RAW / (2.0 * spacing_m),
            land: std::array::from_fn(|q| {
                ramp(
                    &LAND_STOPS,
                    ((q as f32) * BAND_M + 0.5 * BAND_M).min(HEIGHT_CAP_M),
                )
            }),
        }
    }

    /// The hillshade factor of a pixel from the height differences across it in x (east −
    /// west) and y (south − north): the light's incidence against that on flat ground, scaled
    /// into 0.3 ..= 1.28.
    #[inline(always)]
    fn shade(&self, across_x: f32, across_y: f32) -> f32 {
        // Unit vector towards the light: north-west (−x, −y), 45° up.
        let l = {
            let c = std::f32::consts::FRAC_1_SQRT_2;
            [-c * c, -c * c, c]
        };
        let flat = l[2];
        let dzdx = across_x * self.k;
        let dzdy = across_y * self.k;
        let norm = (dzdx * dzdx + dzdy * dzdy + 1.0).sqrt();
        let shade = ((-dzdx * l[0] - dzdy * l[1] + l[2]) / norm).max(0.0) / flat;
        0.3 + 0.7 * shade.min(1.4)
    }

    /// One pixel: height `z`, the sea at `sea_y`, the hillshade factor `s` (used on land).
    #[inline(always)]
    fn pixel(&self, z: f32, sea_y: f32, s: f32) -> [u8; 3] {
        if z < sea_y {
            let c = ramp(&WATER_STOPS, (sea_y - z) * METRES_PER_RAW);
            return c.map(|v| v as u8);
        }
        let m = (z - sea_y) * METRES_PER_RAW;
        let bands = m / BAND_M;
        // Truncation is the floor here (0 <= bands), and the table holds what the general path
        // gives each band; anything else (over the cap, NaN, infinite) takes the general path.
        let base = if (0.0..LAND_BANDS as f32).contains(&bands) {
            self.land[bands as usize]
        } else {
            let banded = bands.floor() * BAND_M + 0.5 * BAND_M;
            ramp(&LAND_STOPS, banded.min(HEIGHT_CAP_M))
        };
        base.map(|v| (v * s).clamp(0.0, 255.0) as u8)
    }
}

impl Rows for HeightRows<'_> {
    fn size(&self) -> (usize, usize) {
        self.heights.dim()
    }

    fn palette(&self) -> Option<&[[u8; 3]]> {
        None
    }

    fn fill(&self, y0: usize, out: &mut [u8]) {
        let (w, h) = self.heights.dim();
        let data = self.heights.as_slice().unwrap_or_default();
        let column = |x: usize| &data[x * h..(x + 1) * h];
        // Scratch for one column of a tile: its rows y0 − 1 ..= y0 + n (clamped at the map's
        // edges), the sea at each row, and the height differences across each pixel.
        let mut here = [0f32; CHUNK_ROWS + 2];
        let mut sea = [0f32; CHUNK_ROWS];
        let mut shade = [0f32; CHUNK_ROWS];
        by_tiles((w, 3), y0, out, |y0, x0, xs, buf| {
            let n = buf.len() / (xs * 3);
            for (dy, s) in sea[..n].iter_mut().enumerate() {
                *s = self.sea.at(y0 + dy);
            }
            for dx in 0..xs {
                let x = x0 + dx;
                let (west, centre, east) = (
                    &column(x.saturating_sub(1))[y0..y0 + n],
                    column(x),
                    &column((x + 1).min(w - 1))[y0..y0 + n],
                );
                here[0] = centre[y0.saturating_sub(1)];
                here[1..n + 1].copy_from_slice(&centre[y0..y0 + n]);
                here[n + 1] = centre[(y0 + n).min(h - 1)];
                // Every pixel's shade first, in lanes (water pixels do not use theirs; a run of
                // open sea needs none).
                let open_sea = (here[1..n + 1].iter().zip(&sea[..n])).all(|(z, sea)| z < sea);
                for ((((s, e), w), south), north) in shade[..if open_sea { 0 } else { n }]
                    .iter_mut()
                    .zip(east)
                    .zip(west)
                    .zip(&here[2..n + 2])
                    .zip(&here[..n])
                {
                    *s = self.shade(e - w, south - north);
                }
                for dy in 0..n {
                    let c = self.pixel(here[dy + 1], sea[dy], shade[dy]);
                    let at = (dy * xs + dx) * 3;
                    buf[at..at + 3].copy_from_slice(&c);
                }
            }
        });
    }
}

/// The `0_water` picture's colours, by class: land, ocean, river, lake.
pub const WATER_PALETTE: [[u8; 3]; 4] = [
    [204, 200, 190],
    [18, 52, 110],
    [30, 110, 230],
    [84, 150, 214],
];

/// The `0_water` picture from WBID: ocean (id 1), lakes, river reaches (their own blue, from
/// the WBTB bodies), land. Palette.
pub struct WaterRows<'a> {
    ids: CowArray<'a, u16, Ix2>,
    /// The palette index of every water-body id.
    class: Box<[u8; 1 << 16]>,
    palette: Vec<[u8; 3]>,
}

impl<'a> WaterRows<'a> {
    /// The picture of the water-body ids `ids`, rivers being the `River` bodies of `bodies`.
    pub fn new(ids: ArrayView2<'a, u16>, bodies: &[WaterBody]) -> WaterRows<'a> {
        let mut class = Box::new([3u8; 1 << 16]);
        for b in bodies.iter().filter(|b| b.kind == WaterBodyType::River) {
            class[usize::from(b.id)] = 2;
        }
        (class[0], class[1]) = (0, 1);
        WaterRows {
            ids: columns(ids),
            class,
            palette: WATER_PALETTE.to_vec(),
        }
    }
}

impl Rows for WaterRows<'_> {
    fn size(&self) -> (usize, usize) {
        self.ids.dim()
    }

    fn palette(&self) -> Option<&[[u8; 3]]> {
        Some(&self.palette)
    }

    fn fill(&self, y0: usize, out: &mut [u8]) {
        let data = self.ids.as_slice().unwrap_or_default();
        transpose(data, self.ids.dim(), y0, out, |&id| {
            self.class[usize::from(id)]
        });
    }
}

/// The `1_biomes` picture: the biomes in their palette (ordinal order).
pub struct BiomeRows<'a> {
    biomes: CowArray<'a, Biome, Ix2>,
    palette: Vec<[u8; 3]>,
}

impl<'a> BiomeRows<'a> {
    /// The biome map.
    pub fn new(biomes: ArrayView2<'a, Biome>) -> BiomeRows<'a> {
        BiomeRows {
            biomes: columns(biomes),
            palette: Biome::ALL.iter().map(|&b| biome_colour(b)).collect(),
        }
    }
}

impl Rows for BiomeRows<'_> {
    fn size(&self) -> (usize, usize) {
        self.biomes.dim()
    }

    fn palette(&self) -> Option<&[[u8; 3]]> {
        Some(&self.palette)
    }

    fn fill(&self, y0: usize, out: &mut [u8]) {
        let data = self.biomes.as_slice().unwrap_or_default();
        transpose(data, self.biomes.dim(), y0, out, |b| b.ordinal());
    }
}

/// The biome picture with town markers (`2_towns`), or with the roads and the towns on top
/// (`3_roads`), painted over it; the palette is the biomes' with the overlay's colours after.
pub struct Painted<'a> {
    base: &'a BiomeRows<'a>,
    palette: Vec<[u8; 3]>,
    overlay: Overlay,
}

impl<'a> Painted<'a> {
    /// `base` with a disc per town.
    pub fn towns(base: &'a BiomeRows<'a>, towns: &[Town]) -> Painted<'a> {
        let w = base.size().0;
        Painted::new(base, town_shapes(towns, w))
    }

    /// `base`, the roads by tier (lowest first), the towns on top.
    pub fn roads(base: &'a BiomeRows<'a>, roads: &Roads, towns: &[Town]) -> Painted<'a> {
        let w = base.size().0;
        Painted::new(
            base,
            road_shapes(roads, 1.0, w).chain(town_shapes(towns, w)),
        )
    }

    fn new(base: &'a BiomeRows<'a>, shapes: impl Iterator<Item = Shape<[u8; 3]>>) -> Painted<'a> {
        let mut palette = base.palette.clone();
        let overlay = Overlay::new(base.size(), shapes, &mut palette);
        Painted {
            base,
            palette,
            overlay,
        }
    }
}

impl Rows for Painted<'_> {
    fn size(&self) -> (usize, usize) {
        self.base.size()
    }

    fn palette(&self) -> Option<&[[u8; 3]]> {
        Some(&self.palette)
    }

    fn fill(&self, y0: usize, out: &mut [u8]) {
        self.base.fill(y0, out);
        self.paint(y0, out);
    }

    fn base(&self) -> Option<&dyn Rows> {
        Some(self.base)
    }

    fn paint(&self, y0: usize, out: &mut [u8]) {
        self.overlay.paint_band(y0, out);
    }
}
