//! Map tiles rendered on demand from a loaded blueprint, in the snapshots' colours.
//!
//! A world of MapSize `n` has `max_zoom` Z = ⌈log2(n / 256)⌉: at zoom Z one tile pixel is one
//! map pixel; at z < Z one tile pixel samples the centre of its 2^(Z−z)-pixel block; at
//! Z < z ≤ Z + [`EXTRA_ZOOM`] each map pixel is enlarged to 2^(z−Z) tile pixels. Tile (z, x, y)
//! counts from the north-west corner (map row 0 = north = the top).
//!
//! Guarantees: the `height` layer at zoom Z is pixel for pixel the `0_height` snapshot's window
//! (the same [`HeightRows`] code, over the window with its one-pixel border, at the map's pixel
//! spacing), and `biomes` the `1_biomes` colours; base layers are opaque RGB, overlays RGBA with
//! transparency; parts of a tile beyond the map are [`OUTSIDE`] (base) or transparent
//! (overlays). Rendering allocates a fixed amount per tile whatever the MapSize.

use std::sync::Mutex;

use ndarray::Array2;

use islagen::blueprint::Biome;
use islagen::render::{biome_colour, fill_all, vector, Canvas, HeightRows, WATER_PALETTE};
use islagen::sea::{SeaLevel, SeaModel};
use islagen::units::{metres_per_px, METRES_PER_RAW};

use super::grids::GridError;
use super::worlds::{FileKey, World};

/// Tile side, pixels.
pub const TILE: usize = 256;
/// Zoom levels served beyond one tile pixel per map pixel.
pub const EXTRA_ZOOM: u32 = 3;
/// The colour of a base tile's pixels beyond the map.
pub const OUTSIDE: [u8; 3] = [28, 32, 40];

/// A map layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Hypsometric colours × hillshade (`0_height`).
    Height,
    /// The biome palette (`1_biomes`).
    Biomes,
    /// Water bodies.
    Water,
    /// Town markers.
    Towns,
    /// Roads by tier.
    Roads,
    /// River centrelines at their widths.
    Rivers,
    /// Contour lines.
    Contours,
    /// Slope shading.
    Slope,
}

impl Layer {
    /// Every layer, base layers first.
    pub const ALL: [Layer; 8] = [
        Layer::Height,
        Layer::Biomes,
        Layer::Water,
        Layer::Towns,
        Layer::Roads,
        Layer::Rivers,
        Layer::Contours,
        Layer::Slope,
    ];

    /// The id used in URLs.
    pub fn id(self) -> &'static str {
        match self {
            Layer::Height => "height",
            Layer::Biomes => "biomes",
            Layer::Water => "water",
            Layer::Towns => "towns",
            Layer::Roads => "roads",
            Layer::Rivers => "rivers",
            Layer::Contours => "contours",
            Layer::Slope => "slope",
        }
    }

    /// The layer with URL id `id`.
    pub fn parse(id: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.id() == id)
    }

    /// A name for people.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Height => "Hillshaded height",
            Layer::Biomes => "Biomes",
            Layer::Water => "Water bodies",
            Layer::Towns => "Towns",
            Layer::Roads => "Roads",
            Layer::Rivers => "Rivers",
            Layer::Contours => "Contours",
            Layer::Slope => "Slope",
        }
    }

    /// Opaque base layer (RGB) rather than an overlay (RGBA).
    pub fn is_base(self) -> bool {
        matches!(self, Layer::Height | Layer::Biomes)
    }

    /// Whether `world` has what the layer draws.
    pub fn available(self, world: &World) -> bool {
        let bp = &world.blueprint;
        match self {
            Layer::Height | Layer::Biomes | Layer::Contours | Layer::Slope => true,
            Layer::Water => bp.water_ids.is_some(),
            Layer::Towns => !bp.towns.is_empty(),
            Layer::Roads => islagen::blueprint::RoadTier::ALL
                .iter()
                .any(|&t| !bp.roads.tier(t).is_empty()),
            Layer::Rivers => bp.rivers.as_ref().is_some_and(|r| !r.rivers.is_empty()),
        }
    }
}

/// The zoom at which one tile pixel is one map pixel.
pub fn max_zoom(side: usize) -> u32 {
    let mut z = 0;
    while (TILE << z) < side {
        z += 1;
    }
    z
}

/// Whether (z, x, y) is a tile of a map of side `side`.
pub fn in_range(side: usize, z: u32, x: u32, y: u32) -> bool {
    z <= max_zoom(side) + EXTRA_ZOOM && u64::from(x) < (1u64 << z) && u64::from(y) < (1u64 << z)
}

/// The map pixels one axis of a window samples.
#[derive(Debug)]
struct Axis {
    /// Map index of each distinct sample, ascending.
    samples: Vec<usize>,
    /// For output pixels 0 ..= n (one past the edge, for lines): its sample, or none beyond
    /// the map.
    pick: Vec<Option<usize>>,
    /// Continuous map coordinate of the window's edge.
    origin: f64,
    /// Output pixels per map pixel.
    scale: f64,
}

impl Axis {
    /// `n` output pixels from map coordinate `origin`, `scale` output pixels a map pixel: pixel
    /// i samples the map pixel under its centre.
    fn new(side: usize, origin: f64, scale: f64, n: usize) -> Axis {
        let mut samples: Vec<usize> = Vec::with_capacity(n + 1);
        let mut pick = Vec::with_capacity(n + 1);
        for i in 0..=n {
            let m = (origin + (i as f64 + 0.5) / scale).floor();
            pick.push((m >= 0.0 && m < side as f64).then(|| {
                let m = m as usize;
                if samples.last() != Some(&m) {
                    samples.push(m);
                }
                samples.len() - 1
            }));
        }
        Axis {
            samples,
            pick,
            origin,
            scale,
        }
    }

    /// The axis of tile column (or row) `t` at zoom `z`.
    fn tile(side: usize, z: u32, t: u32) -> Axis {
        let top = max_zoom(side);
        let scale = if z <= top {
            1.0 / (1u64 << (top - z)) as f64
        } else {
            (1u64 << (z - top)) as f64
        };
        Axis::new(side, f64::from(t) * TILE as f64 / scale, scale, TILE)
    }

    /// Map pixels between neighbouring samples (at least 1).
    fn spacing(&self) -> usize {
        (1.0 / self.scale).round().max(1.0) as usize
    }

    /// Output pixels.
    fn len(&self) -> usize {
        self.pick.len() - 1
    }
}

/// A window on the map, `xs.len()` × `ys.len()` output pixels.
#[derive(Debug)]
struct Window {
    xs: Axis,
    ys: Axis,
}

impl Window {
    fn pixels(&self) -> usize {
        self.xs.len() * self.ys.len()
    }
}

/// Rendered pixels: RGB (base) or RGBA (overlay), rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pixels {
    /// Width.
    pub width: usize,
    /// Height.
    pub height: usize,
    /// 3 or 4.
    pub channels: usize,
    /// width × height × channels bytes.
    pub data: Vec<u8>,
}

/// Renders tile (z, x, y) of `layer` (the caller has checked [`in_range`]); an error when the
/// world's file can no longer be read where its grids were.
pub fn render(world: &World, layer: Layer, z: u32, x: u32, y: u32) -> Result<Pixels, GridError> {
    let side = world.side();
    let win = Window {
        xs: Axis::tile(side, z, x),
        ys: Axis::tile(side, z, y),
    };
    draw(world, layer, &win)
}

/// Renders the map region x0..x1 × y0..y1 (map pixels) `width` × `height` pixels large.
pub fn render_region(
    world: &World,
    layer: Layer,
    [x0, y0, x1, y1]: [f64; 4],
    (width, height): (usize, usize),
) -> Result<Pixels, GridError> {
    let side = world.side();
    let win = Window {
        xs: Axis::new(side, x0, width as f64 / (x1 - x0), width),
        ys: Axis::new(side, y0, height as f64 / (y1 - y0), height),
    };
    draw(world, layer, &win)
}

fn draw(world: &World, layer: Layer, win: &Window) -> Result<Pixels, GridError> {
    Ok(match layer {
        Layer::Height => height(world, win)?,
        Layer::Biomes => biomes(world, win)?,
        Layer::Water => water(world, win)?,
        Layer::Towns => towns(world, win),
        Layer::Roads => roads(world, win),
        Layer::Rivers => rivers(world, win),
        Layer::Contours => contours(world, win)?,
        Layer::Slope => slope(world, win)?,
    })
}

/// The axis's samples with a one-sample border (clamped at the map's edges, as the snapshot
/// is).
fn bordered(axis: &Axis, side: usize) -> Vec<usize> {
    let s = axis.spacing() as isize;
    let clamp = |m: isize| m.clamp(0, side as isize - 1) as usize;
    let first = clamp(axis.samples[0] as isize - s);
    let last = clamp(axis.samples[axis.samples.len() - 1] as isize + s);
    std::iter::once(first)
        .chain(axis.samples.iter().copied())
        .chain(std::iter::once(last))
        .collect()
}

fn base_tile(win: &Window) -> Pixels {
    Pixels {
        width: win.xs.len(),
        height: win.ys.len(),
        channels: 3,
        data: OUTSIDE.repeat(win.pixels()),
    }
}

fn overlay_tile(win: &Window) -> Pixels {
    Pixels {
        width: win.xs.len(),
        height: win.ys.len(),
        channels: 4,
        data: vec![0; win.pixels() * 4],
    }
}

/// Calls `f(i, j, sx, sy)` for every output pixel (i, j) on the map, with its sample indices.
fn each(win: &Window, mut f: impl FnMut(usize, usize, usize, usize)) {
    for (j, sy) in win.ys.pick[..win.ys.len()].iter().enumerate() {
        let Some(sy) = *sy else { continue };
        for (i, sx) in win.xs.pick[..win.xs.len()].iter().enumerate() {
            if let Some(sx) = *sx {
                f(i, j, sx, sy);
            }
        }
    }
}

fn height(world: &World, win: &Window) -> Result<Pixels, GridError> {
    let mut out = base_tile(win);
    let (nx, ny) = (win.xs.samples.len(), win.ys.samples.len());
    if nx == 0 || ny == 0 {
        return Ok(out);
    }
    let side = world.side();
    let (bx, by) = (bordered(&win.xs, side), bordered(&win.ys, side));
    let grid = world.grids.heights(&world.blueprint, &bx, &by)?;
    let spacing = win.xs.spacing().min(win.ys.spacing());
    let sea = SeaLevel::new(SeaModel::Flat(world.sea_raw), by.len());
    let pic = HeightRows::with_spacing(grid.view(), &sea, metres_per_px(side) * spacing as f32);
    let rgb = fill_all(&pic);
    let row = bx.len() * 3;
    each(win, |i, j, sx, sy| {
        let at = (sy + 1) * row + (sx + 1) * 3;
        let to = (j * out.width + i) * 3;
        out.data[to..to + 3].copy_from_slice(&rgb[at..at + 3]);
    });
    Ok(out)
}

fn biomes(world: &World, win: &Window) -> Result<Pixels, GridError> {
    let mut out = base_tile(win);
    let b = world
        .grids
        .biomes(&world.blueprint, &win.xs.samples, &win.ys.samples)?;
    each(win, |i, j, sx, sy| {
        // An ordinal no biome has (read from the file unchecked) is drawn as off the map.
        let c = Biome::from_ordinal(i64::from(b[[sx, sy]])).map_or(OUTSIDE, biome_colour);
        let to = (j * out.width + i) * 3;
        out.data[to..to + 3].copy_from_slice(&c);
    });
    Ok(out)
}

fn put(out: &mut Pixels, i: usize, j: usize, rgba: [u8; 4]) {
    let to = (j * out.width + i) * 4;
    out.data[to..to + 4].copy_from_slice(&rgba);
}

fn water(world: &World, win: &Window) -> Result<Pixels, GridError> {
    let mut out = overlay_tile(win);
    let bp = &world.blueprint;
    let Some(ids) = world
        .grids
        .water_ids(bp, &win.xs.samples, &win.ys.samples)?
    else {
        return Ok(out);
    };
    let river = bp.river_body_ids();
    let p = WATER_PALETTE;
    each(win, |i, j, sx, sy| {
        let id = ids[[sx, sy]];
        let c = match id {
            0 => return,
            1 => p[1],
            id if river[usize::from(id)] => p[2],
            _ => p[3],
        };
        put(&mut out, i, j, [c[0], c[1], c[2], 255]);
    });
    Ok(out)
}

/// Metres above sea at each sample of the window (`nx × ny`, x outer).
fn metres(world: &World, win: &Window) -> Result<Array2<f32>, GridError> {
    let h = world
        .grids
        .heights(&world.blueprint, &win.xs.samples, &win.ys.samples)?;
    Ok(h.mapv(|v| (v - world.sea_raw) * METRES_PER_RAW))
}

/// The contour interval at a tile pixel size of `m_per_px` metres: lines a few pixels apart on
/// moderate slopes.
pub fn contour_interval(m_per_px: f32) -> f32 {
    [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
        .into_iter()
        .find(|&i| i >= 2.0 * m_per_px)
        .unwrap_or(100.0)
}

fn contours(world: &World, win: &Window) -> Result<Pixels, GridError> {
    let mut out = overlay_tile(win);
    let m = metres(world, win)?;
    let px_m = metres_per_px(world.side()) / win.xs.scale as f32;
    let interval = contour_interval(px_m);
    // Each sample's band once (a tile pixel compares its band with its east and south
    // neighbours'); below sea a neighbour counts as the band just under 0 m.
    const NONE: i32 = i32::MIN;
    let ny = win.ys.samples.len();
    let band: Vec<i32> = m
        .iter()
        .map(|&v| match v.is_finite() {
            true => (v.max(-interval * 0.5) / interval).floor() as i32,
            false => NONE,
        })
        .collect();
    let at = |sx: usize, sy: usize| band[sx * ny + sy];
    let (xp, yp) = (&win.xs.pick, &win.ys.pick);
    each(win, |i, j, sx, sy| {
        let here = at(sx, sy);
        if here == NONE || m[[sx, sy]] < 0.0 {
            return;
        }
        let differs = |b: Option<i32>| b.is_some_and(|b| b != NONE && b != here);
        let east = differs(xp[i + 1].map(|n| at(n, sy)));
        let south = differs(yp[j + 1].map(|n| at(sx, n)));
        if east || south {
            let index = i64::from(here).rem_euclid(5) == 0;
            put(
                &mut out,
                i,
                j,
                if index {
                    [60, 40, 20, 230]
                } else {
                    [90, 60, 30, 150]
                },
            );
        }
    });
    Ok(out)
}

/// tan²(3°): the slope layer leaves pixels flatter than this clear.
const FLAT_TAN2: f32 = 0.052_407_78 * 0.052_407_78;
/// tan²(43°): the slope layer's full colour from there on.
const STEEP_TAN2: f32 = 0.932_515_1 * 0.932_515_1;

/// arctan x for 0 ≤ x ≤ 1, radians, within 0.0015 (0.09°: under a colour step of the slope
/// layer), several times cheaper than `atan` (Rajan et al. 2006).
fn atan_unit(x: f32) -> f32 {
    std::f32::consts::FRAC_PI_4 * x - x * (x - 1.0) * (0.2447 + 0.0663 * x)
}

fn slope(world: &World, win: &Window) -> Result<Pixels, GridError> {
    let mut out = overlay_tile(win);
    if win.xs.samples.is_empty() || win.ys.samples.is_empty() {
        return Ok(out);
    }
    let side = world.side();
    // Each sample's neighbours one sample spacing away: the window with its border.
    let (bx, by) = (bordered(&win.xs, side), bordered(&win.ys, side));
    let h = world.grids.heights(&world.blueprint, &bx, &by)?;
    // Raw units to a gradient, per sample: over the map pixels between its two neighbours (a
    // view's samples need not be evenly spaced), two spacings at the window's ends.
    let scales = |axis: &Axis| -> Vec<f32> {
        let (n, two) = (axis.samples.len(), 2 * axis.spacing().max(1));
        (0..n)
            .map(|k| {
                let span = match k > 0 && k + 1 < n {
                    true => axis.samples[k + 1] - axis.samples[k - 1],
                    false => two,
                };
                METRES_PER_RAW / (span.max(1) as f32 * metres_per_px(side))
            })
            .collect()
    };
    let (kx, ky) = (scales(&win.xs), scales(&win.ys));
    each(win, |i, j, sx, sy| {
        let (x, y) = (sx + 1, sy + 1);
        if h[[x, y]] < world.sea_raw {
            return;
        }
        let dx = (h[[x + 1, y]] - h[[x - 1, y]]) * kx[sx];
        let dy = (h[[x, y + 1]] - h[[x, y - 1]]) * ky[sy];
        // Flat (under 3°) and NaN pixels leave before the square root and the arctangent.
        let gradient2 = dx * dx + dy * dy;
        if gradient2.is_nan() || gradient2 < FLAT_TAN2 {
            return;
        }
        let deg = match gradient2 >= STEEP_TAN2 {
            true => 43.0,
            false => atan_unit(gradient2.sqrt()).to_degrees(),
        };
        let t = ((deg - 3.0) / 40.0).clamp(0.0, 1.0);
        let rgb = [200.0 + 40.0 * t, 180.0 * (1.0 - t), 40.0 * (1.0 - t)];
        put(
            &mut out,
            i,
            j,
            [
                rgb[0] as u8,
                rgb[1] as u8,
                rgb[2] as u8,
                (60.0 + 170.0 * t) as u8,
            ],
        );
    });
    Ok(out)
}

/// The window as a view of the map: tile pixel = (map − origin) × scale.
fn view(win: &Window) -> vector::View {
    vector::View {
        origin: [win.xs.origin, win.ys.origin],
        scale: [win.xs.scale, win.ys.scale],
    }
}

/// An overlay tile is a canvas of RGBA pixels, every ink opaque.
impl Canvas for Pixels {
    type Ink = [u8; 4];
    fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }
    fn ink(&mut self, c: [u8; 3]) -> [u8; 4] {
        [c[0], c[1], c[2], 255]
    }
    fn put(&mut self, x: usize, y: usize, ink: [u8; 4]) {
        put(self, x, y, ink);
    }
}

fn roads(world: &World, win: &Window) -> Pixels {
    let mut out = overlay_tile(win);
    vector::roads(&mut out, &world.blueprint.roads, world.side(), view(win));
    out
}

fn rivers(world: &World, win: &Window) -> Pixels {
    let mut out = overlay_tile(win);
    if let Some(net) = &world.blueprint.rivers {
        vector::rivers(&mut out, net, world.side(), view(win));
    }
    out
}

fn towns(world: &World, win: &Window) -> Pixels {
    let mut out = overlay_tile(win);
    vector::towns(&mut out, &world.blueprint.towns, world.side(), view(win));
    out
}

/// Encodes pixels as a PNG (fast deflate), in a buffer of the PNG's own length: a cached
/// overlay tile of 2 KB holds 2 KB, not the 64 KiB the encoder grew into.
pub fn encode(p: &Pixels) -> Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::with_capacity(4096);
    {
        let mut enc = png::Encoder::new(&mut bytes, p.width as u32, p.height as u32);
        enc.set_color(if p.channels == 4 {
            png::ColorType::Rgba
        } else {
            png::ColorType::Rgb
        });
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fastest);
        let mut w = enc.write_header()?;
        w.write_image_data(&p.data)?;
        w.finish()?;
    }
    bytes.shrink_to_fit();
    Ok(bytes)
}

/// The tile shown for a world that cannot be read: dark red with diagonal stripes.
pub fn error_tile() -> Vec<u8> {
    let mut data = Vec::with_capacity(TILE * TILE * 3);
    for j in 0..TILE {
        for i in 0..TILE {
            data.extend_from_slice(if (i + j) % 32 < 6 {
                &[240, 200, 200]
            } else {
                &[150, 20, 20]
            });
        }
    }
    encode(&Pixels {
        width: TILE,
        height: TILE,
        channels: 3,
        data,
    })
    .unwrap_or_default()
}

/// Which tile of which world version.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TileKey {
    /// The world's file version.
    pub file: FileKey,
    /// The layer.
    pub layer: Layer,
    /// Zoom, column, row.
    pub zxy: (u32, u32, u32),
}

type Lru = lru::LruCache<TileKey, std::sync::Arc<Vec<u8>>>;

/// What one cached tile costs besides its PNG's buffer and its key's path, bytes: the LRU's
/// boxed node (the key, the `Arc` pointer and two links), the `Arc`'s block (two counts and the
/// `Vec`), the hash table's slot at its lowest load factor (half full after it doubles: two
/// words at a load of 7/16), and 16 bytes of allocator header and rounding on each of the four
/// allocations (the node, the `Arc`, the PNG and the path). Held ≥ the allocator's view by `tests/tile_cache_bytes.rs`.
pub const TILE_ENTRY_OVERHEAD: usize = std::mem::size_of::<TileKey>()
    + 3 * std::mem::size_of::<usize>()
    + 2 * std::mem::size_of::<usize>()
    + std::mem::size_of::<Vec<u8>>()
    + 16 * 2 * std::mem::size_of::<usize>() / 7
    + 4 * 16;

/// Bytes one cached tile holds: the PNG's buffer (its capacity), the key's path, and
/// [`TILE_ENTRY_OVERHEAD`].
pub fn tile_entry_bytes(key: &TileKey, png: &[u8], png_capacity: usize) -> usize {
    debug_assert!(png_capacity >= png.len());
    png_capacity + key.file.path.capacity() + TILE_ENTRY_OVERHEAD
}

/// Encoded tiles, least recently used dropped first, bounded in bytes: every entry counts what
/// it holds ([`tile_entry_bytes`]), so the cache never holds more than its bound.
#[derive(Debug)]
pub struct TileCache {
    max_bytes: usize,
    inner: Mutex<(Lru, usize)>,
}

impl TileCache {
    /// A cache of at most `max_bytes`, entries counted by [`tile_entry_bytes`].
    pub fn new(max_bytes: usize) -> TileCache {
        TileCache {
            max_bytes,
            inner: Mutex::new((lru::LruCache::unbounded(), 0)),
        }
    }

    /// The cached tile, if any.
    pub fn get(&self, key: &TileKey) -> Option<std::sync::Arc<Vec<u8>>> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        g.0.get(key).cloned()
    }

    /// Caches a tile, dropping the least recently used past the bound.
    pub fn put(&self, key: TileKey, png: std::sync::Arc<Vec<u8>>) {
        let cost = |k: &TileKey, v: &Vec<u8>| tile_entry_bytes(k, v, v.capacity());
        let bytes_in = cost(&key, &png);
        if bytes_in > self.max_bytes {
            return;
        }
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let (cache, bytes) = &mut *g;
        if let Some((old_key, old)) = cache.pop_entry(&key) {
            *bytes -= cost(&old_key, &old);
        }
        *bytes += bytes_in;
        cache.put(key, png);
        while *bytes > self.max_bytes {
            match cache.pop_lru() {
                Some((k, old)) => *bytes -= cost(&k, &old),
                None => break,
            }
        }
    }

    /// Tiles and bytes held.
    pub fn usage(&self) -> (usize, usize) {
        let g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        (g.0.len(), g.1)
    }
}

/// Lays RGBA `over` onto RGB `base` (same size) by its alpha.
pub fn composite(base: &mut Pixels, over: &Pixels) {
    if base.channels != 3 || over.channels != 4 || base.data.len() / 3 != over.data.len() / 4 {
        return;
    }
    for (b, o) in base.data.chunks_exact_mut(3).zip(over.data.chunks_exact(4)) {
        let a = u32::from(o[3]);
        for k in 0..3 {
            b[k] = ((u32::from(o[k]) * a + u32::from(b[k]) * (255 - a) + 127) / 255) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cheap_arctangent_is_within_a_tenth_of_a_degree() {
        let worst = (0..=1000)
            .map(|k| k as f32 / 1000.0)
            .map(|x| (atan_unit(x) - x.atan()).abs())
            .fold(0.0f32, f32::max);
        assert!(worst.to_degrees() < 0.1, "{}", worst.to_degrees());
    }

    #[test]
    fn the_slope_layer_thresholds_are_3_and_43_degrees() {
        let deg = |tan2: f32| tan2.sqrt().atan().to_degrees();
        assert!((deg(FLAT_TAN2) - 3.0).abs() < 1e-4 && (deg(STEEP_TAN2) - 43.0).abs() < 1e-4);
    }
}
