//! PNG snapshots, one image pixel per map pixel, north up (image row = y):
//! - `0_height`: hypsometric bands × a north-west hillshade of the exported heights;
//! - `0_water`: painted from the water bodies — ocean deep blue, lakes lighter blue, land neutral;
//! - `1_biomes`: the biome palette below;
//! - `2_towns`: the biome map with a disc per town, sized and coloured by tier (Capitol red,
//!   Hub orange, Village yellow, Outpost white, POI magenta; highway nodes ringed in black,
//!   everything else in dark grey);
//! - `3_roads`: the biome map, the roads by tier (red highway, black branch, dark brown rugged,
//!   light brown trail; wider for higher tiers), the towns on top.
//!
//! Images are built in parallel bands of rows and written atomically like every output. The
//! water, biome, town and road pictures have a few dozen colours at most, so they are built as
//! palette images ([`Indexed`], one byte a pixel) and written as indexed PNGs: a third of the
//! memory and of the bytes to encode of an RGB image, the same pixels when decoded
//! (BENCHMARKS.md, issue 18). Painting (town discs, roads) works on either kind ([`Canvas`]).
//!
//! The biome palette (a documented contract for people reading the pictures):
//!
//! | biome     | RGB             |
//! |-----------|-----------------|
//! | Ocean     | 24, 62, 120     |
//! | Lake      | 64, 128, 196    |
//! | Beach     | 226, 212, 160   |
//! | Grassland | 136, 180, 84    |
//! | Forest    | 46, 110, 52     |
//! | Foothills | 158, 146, 92    |
//! | Plateau   | 206, 196, 170   |
//! | Mountain  | 120, 112, 106   |
//! | Snow      | 244, 246, 250   |
//! | Crater    | 96, 58, 50      |
//! | Dirt      | 140, 100, 60    |

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use ndarray::Array2;
use rayon::prelude::*;

use crate::blueprint::format::WaterBodyType;
use crate::blueprint::{Biome, RoadTier, Roads, Town, TownTier, WaterBody};
use crate::stages::sea::SeaLevel;
use crate::units::{metres_per_px, HEIGHT_CAP_M, METRES_PER_RAW};

/// Rows per parallel band: the band reads each column's run of `BAND` contiguous heights.
const BAND: usize = 64;

/// An RGB8 image, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `width × height × 3` bytes.
    pub rgb: Vec<u8>,
}

/// A palette image: one palette index a pixel, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Indexed {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `width × height` palette indices.
    pub index: Vec<u8>,
    /// The colours, at most 256.
    pub palette: Vec<[u8; 3]>,
}

impl Indexed {
    /// The same pixels as an RGB image.
    pub fn rgb(&self) -> Image {
        let mut rgb = Vec::with_capacity(self.index.len() * 3);
        for &i in &self.index {
            rgb.extend_from_slice(&self.palette[usize::from(i)]);
        }
        Image {
            width: self.width,
            height: self.height,
            rgb,
        }
    }
}

/// Something to paint discs on: an RGB [`Image`] or a palette [`Indexed`] image.
pub trait Canvas {
    /// What one pixel is set to.
    type Ink: Copy;
    /// Width and height.
    fn size(&self) -> (usize, usize);
    /// The ink of `colour` (a palette image adds it to its palette if new).
    fn ink(&mut self, colour: [u8; 3]) -> Self::Ink;
    /// Sets pixel (x, y).
    fn put(&mut self, x: usize, y: usize, ink: Self::Ink);
}

impl Canvas for Image {
    type Ink = [u8; 3];
    fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }
    fn ink(&mut self, colour: [u8; 3]) -> [u8; 3] {
        colour
    }
    fn put(&mut self, x: usize, y: usize, ink: [u8; 3]) {
        let at = (y * self.width + x) * 3;
        self.rgb[at..at + 3].copy_from_slice(&ink);
    }
}

impl Canvas for Indexed {
    type Ink = u8;
    fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }
    fn ink(&mut self, colour: [u8; 3]) -> u8 {
        match self.palette.iter().position(|&c| c == colour) {
            Some(i) => i as u8,
            None => {
                assert!(
                    self.palette.len() < 256,
                    "a palette image holds 256 colours"
                );
                self.palette.push(colour);
                (self.palette.len() - 1) as u8
            }
        }
    }
    fn put(&mut self, x: usize, y: usize, ink: u8) {
        self.index[y * self.width + x] = ink;
    }
}

/// Builds a palette image from a per-pixel palette index of `(x, y)`, in parallel row bands.
fn build_indexed(
    width: usize,
    height: usize,
    palette: Vec<[u8; 3]>,
    index: impl Fn(usize, usize) -> u8 + Sync,
) -> Indexed {
    let mut out = vec![0u8; width * height];
    out.par_chunks_mut(width * BAND)
        .enumerate()
        .for_each(|(band, rows)| {
            let y0 = band * BAND;
            let rows_here = rows.len() / width;
            for x in 0..width {
                for dy in 0..rows_here {
                    rows[dy * width + x] = index(x, y0 + dy);
                }
            }
        });
    Indexed {
        width,
        height,
        index: out,
        palette,
    }
}

/// The palette colour of a biome.
pub fn biome_colour(b: Biome) -> [u8; 3] {
    match b {
        Biome::Ocean => [24, 62, 120],
        Biome::Lake => [64, 128, 196],
        Biome::Beach => [226, 212, 160],
        Biome::Grassland => [136, 180, 84],
        Biome::Forest => [46, 110, 52],
        Biome::Foothills => [158, 146, 92],
        Biome::Plateau => [206, 196, 170],
        Biome::Mountain => [120, 112, 106],
        Biome::Snow => [244, 246, 250],
        Biome::Crater => [96, 58, 50],
        Biome::Dirt => [140, 100, 60],
    }
}

/// Builds an image from a per-pixel colour function of `(x, y)`, in parallel row bands.
fn build(width: usize, height: usize, colour: impl Fn(usize, usize) -> [u8; 3] + Sync) -> Image {
    let mut rgb = vec![0u8; width * height * 3];
    rgb.par_chunks_mut(width * 3 * BAND)
        .enumerate()
        .for_each(|(band, rows)| {
            let y0 = band * BAND;
            let rows_here = rows.len() / (width * 3);
            for x in 0..width {
                for dy in 0..rows_here {
                    let c = colour(x, y0 + dy);
                    let at = (dy * width + x) * 3;
                    rows[at..at + 3].copy_from_slice(&c);
                }
            }
        });
    Image { width, height, rgb }
}

/// The `1_biomes` image (the palette is the biomes' in ordinal order).
pub fn biome_image(biomes: &Array2<Biome>) -> Indexed {
    let (w, h) = biomes.dim();
    let palette = Biome::ALL.iter().map(|&b| biome_colour(b)).collect();
    build_indexed(w, h, palette, |x, y| biomes[[x, y]].ordinal())
}

/// The `0_water` image from WBID: ocean (id 1), lakes, river reaches (their own blue, from the
/// WBTB `bodies` when given), land.
pub fn water_image(ids: &Array2<u16>, bodies: &[WaterBody]) -> Indexed {
    let (w, h) = ids.dim();
    let mut river = vec![false; usize::from(u16::MAX) + 1];
    for b in bodies.iter().filter(|b| b.kind == WaterBodyType::River) {
        river[usize::from(b.id)] = true;
    }
    let palette = vec![
        [204, 200, 190],
        [18, 52, 110],
        [30, 110, 230],
        [84, 150, 214],
    ];
    build_indexed(w, h, palette, |x, y| match ids[[x, y]] {
        0 => 0,
        1 => 1,
        id if river[usize::from(id)] => 2,
        _ => 3,
    })
}

/// A town's disc: radius as a fraction of MapSize (at least 2 px) and colour, by tier.
pub fn town_marker(tier: TownTier) -> (f32, [u8; 3]) {
    match tier {
        TownTier::Capitol => (0.010, [220, 30, 30]),
        TownTier::Hub => (0.0075, [245, 140, 20]),
        TownTier::Village => (0.005, [250, 220, 40]),
        TownTier::Outpost => (0.004, [250, 250, 250]),
        TownTier::Poi => (0.003, [220, 60, 220]),
    }
}

/// The `2_towns` image: the biome map with a disc per town.
pub fn towns_image(biomes: &Array2<Biome>, towns: &[Town]) -> Indexed {
    towns_image_over(biome_image(biomes), towns)
}

/// `image` with a disc per town.
fn towns_image_over<C: Canvas>(mut image: C, towns: &[Town]) -> C {
    let (w, h) = image.size();
    for t in towns {
        let (fraction, colour) = town_marker(t.tier);
        let r = (fraction * w as f32).max(2.0);
        let ring = if t.is_highway_node {
            [0, 0, 0]
        } else {
            [60, 60, 60]
        };
        let (x0, x1) = (
            (t.x - r - 1.0).max(0.0) as usize,
            ((t.x + r + 1.0) as usize).min(w - 1),
        );
        let (y0, y1) = (
            (t.y - r - 1.0).max(0.0) as usize,
            ((t.y + r + 1.0) as usize).min(h - 1),
        );
        for y in y0..=y1 {
            for x in x0..=x1 {
                let d = (x as f32 + 0.5 - t.x).hypot(y as f32 + 0.5 - t.y);
                let c = if d <= r - 1.5 {
                    colour
                } else if d <= r {
                    ring
                } else {
                    continue;
                };
                let ink = image.ink(c);
                image.put(x, y, ink);
            }
        }
    }
    image
}

/// A road tier's line: width as a fraction of MapSize (at least 1 px) and colour.
pub fn road_line(tier: RoadTier) -> (f32, [u8; 3]) {
    match tier {
        RoadTier::Highway => (0.0025, [210, 30, 30]),
        RoadTier::Branch => (0.002, [0, 0, 0]),
        RoadTier::Rugged => (0.0015, [92, 60, 30]),
        RoadTier::Trail => (0.001, [181, 140, 90]),
    }
}

/// Paints a disc of radius `r` at (cx, cy).
fn disc<C: Canvas>(image: &mut C, cx: f32, cy: f32, r: f32, colour: [u8; 3]) {
    let (w, h) = image.size();
    let ink = image.ink(colour);
    let (x0, x1) = (
        (cx - r).floor().max(0.0) as usize,
        ((cx + r).ceil() as usize).min(w - 1),
    );
    let (y0, y1) = (
        (cy - r).floor().max(0.0) as usize,
        ((cy + r).ceil() as usize).min(h - 1),
    );
    for y in y0..=y1 {
        for x in x0..=x1 {
            if (x as f32 + 0.5 - cx).hypot(y as f32 + 0.5 - cy) <= r {
                image.put(x, y, ink);
            }
        }
    }
}

/// The `3_roads` image: the biome map, the roads by tier (lowest tier first), the towns on top.
pub fn roads_image(biomes: &Array2<Biome>, roads: &Roads, towns: &[Town]) -> Indexed {
    let mut image = biome_image(biomes);
    paint_roads(&mut image, roads, 1.0);
    towns_image_over(image, towns)
}

/// Paints `roads` (map pixel coordinates × `scale`) onto `image`, lowest tier first; lines are
/// never thinner than one image pixel, so they stay visible on a thumbnail.
pub fn paint_roads<C: Canvas>(image: &mut C, roads: &Roads, scale: f32) {
    let w = image.size().0 as f32;
    for tier in RoadTier::ALL.iter().rev() {
        let (fraction, colour) = road_line(*tier);
        let r = (0.5 * fraction * w).max(0.5);
        for path in roads.tier(*tier) {
            for seg in path.windows(2) {
                let (a, b) = (seg[0].map(|c| c * scale), seg[1].map(|c| c * scale));
                let steps = ((b[0] - a[0]).hypot(b[1] - a[1]) * 2.0).ceil().max(1.0) as usize;
                for k in 0..=steps {
                    let t = k as f32 / steps as f32;
                    disc(
                        image,
                        a[0] + (b[0] - a[0]) * t,
                        a[1] + (b[1] - a[1]) * t,
                        r,
                        colour,
                    );
                }
            }
        }
    }
}

/// Hypsometric colour stops: metres above sea → RGB.
const LAND_STOPS: [(f32, [f32; 3]); 9] = [
    (0.0, [214.0, 204.0, 150.0]),
    (4.0, [150.0, 186.0, 104.0]),
    (30.0, [112.0, 160.0, 84.0]),
    (60.0, [170.0, 176.0, 104.0]),
    (100.0, [196.0, 170.0, 112.0]),
    (160.0, [164.0, 124.0, 86.0]),
    (220.0, [214.0, 206.0, 188.0]),
    (300.0, [150.0, 140.0, 132.0]),
    (HEIGHT_CAP_M, [252.0, 252.0, 252.0]),
];
/// Water colour stops: metres under sea → RGB.
const WATER_STOPS: [(f32, [f32; 3]); 4] = [
    (0.0, [120.0, 188.0, 214.0]),
    (8.0, [66.0, 140.0, 196.0]),
    (40.0, [30.0, 82.0, 150.0]),
    (150.0, [12.0, 30.0, 72.0]),
];
/// Height of one hypsometric band, metres: terraces read as bands.
const BAND_M: f32 = 10.0;

fn ramp(stops: &[(f32, [f32; 3])], m: f32) -> [f32; 3] {
    let last = stops.len() - 1;
    if m <= stops[0].0 {
        return stops[0].1;
    }
    for i in 0..last {
        let (m0, c0) = stops[i];
        let (m1, c1) = stops[i + 1];
        if m <= m1 {
            let t = (m - m0) / (m1 - m0);
            return [0, 1, 2].map(|k| c0[k] + (c1[k] - c0[k]) * t);
        }
    }
    stops[last].1
}

/// The `0_height` image: hypsometric bands of metres above sea (water by depth) × a hillshade
/// lit from the north-west at 45°, computed in metres so it reads the same at every MapSize
/// (one map side is 8192 m).
pub fn height_image(heights: &Array2<f32>, sea: &SeaLevel) -> Image {
    let (w, h) = heights.dim();
    let k = METRES_PER_RAW / (2.0 * metres_per_px(w));
    // Unit vector towards the light: north-west (−x, −y), 45° up.
    let l = {
        let c = std::f32::consts::FRAC_1_SQRT_2;
        [-c * c, -c * c, c]
    };
    let flat = l[2];
    build(w, h, |x, y| {
        let z = heights[[x, y]];
        let sea_y = sea.at(y);
        if z < sea_y {
            let c = ramp(&WATER_STOPS, (sea_y - z) * METRES_PER_RAW);
            return c.map(|v| v as u8);
        }
        let m = (z - sea_y) * METRES_PER_RAW;
        let banded = (m / BAND_M).floor() * BAND_M + 0.5 * BAND_M;
        let base = ramp(&LAND_STOPS, banded.min(HEIGHT_CAP_M));
        let at = |xx: usize, yy: usize| heights[[xx, yy]];
        let dzdx = (at((x + 1).min(w - 1), y) - at(x.saturating_sub(1), y)) * k;
        let dzdy = (at(x, (y + 1).min(h - 1)) - at(x, y.saturating_sub(1))) * k;
        let norm = (dzdx * dzdx + dzdy * dzdy + 1.0).sqrt();
        let shade = ((-dzdx * l[0] - dzdy * l[1] + l[2]) / norm).max(0.0) / flat;
        let s = 0.3 + 0.7 * shade.min(1.4);
        base.map(|v| (v * s).clamp(0.0, 255.0) as u8)
    })
}

/// A per-pixel difference image of two equally sized images: unchanged pixels are a dimmed
/// grey copy of `a`, changed pixels are bright magenta.
pub fn diff_image(a: &Image, b: &Image) -> Image {
    let mut rgb = Vec::with_capacity(a.rgb.len());
    for (pa, pb) in a.rgb.chunks_exact(3).zip(b.rgb.chunks_exact(3)) {
        if pa == pb {
            let g = ((u16::from(pa[0]) + u16::from(pa[1]) + u16::from(pa[2])) / 9) as u8;
            rgb.extend_from_slice(&[g, g, g]);
        } else {
            rgb.extend_from_slice(&[255, 0, 255]);
        }
    }
    Image {
        width: a.width,
        height: a.height,
        rgb,
    }
}

/// Writes `image` as an 8-bit RGB PNG, atomically. Returns the file's size in bytes.
/// Writes a palette image as an 8-bit indexed PNG, atomically; returns the file's size.
pub fn write_indexed_png(path: &Path, image: &Indexed) -> std::io::Result<u64> {
    crate::output::write_atomically(path, |w: &mut BufWriter<&mut File>| {
        let mut enc = png::Encoder::new(w, image.width as u32, image.height as u32);
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_palette(image.palette.concat());
        enc.set_compression(png::Compression::Fast);
        let mut writer = enc.write_header().map_err(std::io::Error::other)?;
        writer
            .write_image_data(&image.index)
            .map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)?;
        Ok::<(), std::io::Error>(())
    })?;
    Ok(std::fs::metadata(path)?.len())
}

pub fn write_png(path: &Path, image: &Image) -> std::io::Result<u64> {
    crate::output::write_atomically(path, |w: &mut BufWriter<&mut File>| {
        let mut enc = png::Encoder::new(w, image.width as u32, image.height as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut writer = enc.write_header().map_err(std::io::Error::other)?;
        writer
            .write_image_data(&image.rgb)
            .map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)?;
        Ok::<(), std::io::Error>(())
    })?;
    Ok(std::fs::metadata(path)?.len())
}

/// Reads an 8-bit RGB PNG (as written by [`write_png`]).
pub fn read_png(path: &Path) -> std::io::Result<Image> {
    let mut decoder = png::Decoder::new(std::io::BufReader::new(File::open(path)?));
    // Palette images are expanded to RGB, so either kind reads as the pixels it shows.
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(std::io::Error::other)?;
    let (color, depth) = reader.output_color_type();
    if color != png::ColorType::Rgb || depth != png::BitDepth::Eight {
        return Err(std::io::Error::other(format!(
            "{}: not an 8-bit RGB or palette PNG",
            path.display()
        )));
    }
    let info = reader.info();
    let (width, height) = (info.width as usize, info.height as usize);
    let mut rgb = vec![0u8; width * height * 3];
    reader.next_frame(&mut rgb).map_err(std::io::Error::other)?;
    Ok(Image { width, height, rgb })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blueprint::{RoadPath, TownTier};

    /// A palette picture painted and written as an indexed PNG reads back as exactly the RGB
    /// picture painted the same way (town discs and roads included).
    #[test]
    fn palette_pictures_read_back_as_their_rgb_pixels() {
        let biomes = Array2::from_shape_fn((96, 96), |(x, y)| Biome::ALL[(x / 9 + y / 13) % 10]);
        let towns = [Town {
            x: 40.5,
            y: 50.5,
            tier: TownTier::Capitol,
            is_highway_node: true,
        }];
        let mut roads = Roads::default();
        roads
            .highway
            .push(RoadPath::from(vec![[5.0, 5.0], [90.0, 70.0]]));
        let indexed = roads_image(&biomes, &roads, &towns);
        let mut rgb = indexed_free_rgb(&biomes);
        paint_roads(&mut rgb, &roads, 1.0);
        let rgb = towns_image_over(rgb, &towns);
        assert_eq!(indexed.rgb(), rgb);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("roads.png");
        write_indexed_png(&path, &indexed).unwrap();
        assert_eq!(read_png(&path).unwrap(), rgb);
    }

    /// The biome picture as RGB pixels, built directly.
    fn indexed_free_rgb(biomes: &Array2<Biome>) -> Image {
        let (w, h) = biomes.dim();
        build(w, h, |x, y| biome_colour(biomes[[x, y]]))
    }
}
