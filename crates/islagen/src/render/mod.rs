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
//! Every picture is a source of rows ([`Rows`], `rows.rs`) that fills any band of image rows in
//! parallel; the snapshots stream each picture into its PNG a band at a time while the next band
//! is filled (`stream.rs`), so no whole picture is held (BENCHMARKS.md, "Snapshots at MapSize
//! 8192"). The water, biome, town and road pictures have a few dozen colours at most
//! and are palette pictures (one byte a pixel, indexed PNGs); the height picture is RGB. The
//! functions below build a whole picture the same way, for thumbnails, tests and benchmarks.
//! Town discs and roads are ordered lists of shapes (`paint.rs`), painted on a whole [`Canvas`]
//! or clipped to a band with the same pixels.
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

mod paint;
mod rows;
mod stream;
pub mod vector;

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use ndarray::Array2;

pub use rows::{
    fill_all, fill_par, paint_par, BiomeRows, HeightRows, Painted, Rows, WaterRows, WATER_PALETTE,
};
pub use stream::{encode, write_pngs, write_rows_png, Encoding, Output};

use crate::blueprint::{Biome, RoadTier, Roads, Town, TownTier, WaterBody};
use crate::sea::SeaLevel;
use crate::units::HEIGHT_CAP_M;

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

/// A held RGB image is a source of its rows.
impl Rows for Image {
    fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }
    fn palette(&self) -> Option<&[[u8; 3]]> {
        None
    }
    fn fill(&self, y0: usize, out: &mut [u8]) {
        let at = y0 * self.width * 3;
        out.copy_from_slice(&self.rgb[at..at + out.len()]);
    }
}

/// A held palette image is a source of its rows.
impl Rows for Indexed {
    fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }
    fn palette(&self) -> Option<&[[u8; 3]]> {
        Some(&self.palette)
    }
    fn fill(&self, y0: usize, out: &mut [u8]) {
        let at = y0 * self.width;
        out.copy_from_slice(&self.index[at..at + out.len()]);
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

/// The `1_biomes` image (the palette is the biomes' in ordinal order).
pub fn biome_image(biomes: &Array2<Biome>) -> Indexed {
    indexed(&BiomeRows::new(biomes.view()))
}

/// The `0_water` image from WBID: ocean (id 1), lakes, river reaches (their own blue, from the
/// WBTB `bodies` when given), land.
pub fn water_image(ids: &Array2<u16>, bodies: &[WaterBody]) -> Indexed {
    indexed(&WaterRows::new(ids.view(), bodies))
}

/// The whole of a palette picture.
fn indexed(pic: &(impl Rows + ?Sized)) -> Indexed {
    let (width, height) = pic.size();
    Indexed {
        width,
        height,
        index: fill_all(pic),
        palette: pic.palette().unwrap_or_default().to_vec(),
    }
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
    indexed(&Painted::towns(&BiomeRows::new(biomes.view()), towns))
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

/// The `3_roads` image: the biome map, the roads by tier (lowest tier first), the towns on top.
pub fn roads_image(biomes: &Array2<Biome>, roads: &Roads, towns: &[Town]) -> Indexed {
    indexed(&Painted::roads(
        &BiomeRows::new(biomes.view()),
        roads,
        towns,
    ))
}

/// Paints `roads` (map pixel coordinates × `scale`) onto `image`, lowest tier first; lines are
/// never thinner than one image pixel, so they stay visible on a thumbnail.
pub fn paint_roads<C: Canvas>(image: &mut C, roads: &Roads, scale: f32) {
    let width = image.size().0;
    for shape in paint::road_shapes(roads, scale, width) {
        paint::paint_on(image, shape);
    }
}

/// Hypsometric colour stops: metres above sea → RGB.
pub(crate) const LAND_STOPS: [(f32, [f32; 3]); 9] = [
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
pub(crate) const WATER_STOPS: [(f32, [f32; 3]); 4] = [
    (0.0, [120.0, 188.0, 214.0]),
    (8.0, [66.0, 140.0, 196.0]),
    (40.0, [30.0, 82.0, 150.0]),
    (150.0, [12.0, 30.0, 72.0]),
];
/// Height of one hypsometric band, metres: terraces read as bands.
pub(crate) const BAND_M: f32 = 10.0;

pub(crate) fn ramp(stops: &[(f32, [f32; 3])], m: f32) -> [f32; 3] {
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
/// lit from the north-west at 45° ([`HeightRows`]).
pub fn height_image(heights: &Array2<f32>, sea: &SeaLevel) -> Image {
    let pic = HeightRows::new(heights.view(), sea);
    let (width, height) = pic.size();
    Image {
        width,
        height,
        rgb: fill_all(&pic),
    }
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

/// Writes `image` as an 8-bit RGB PNG, atomically. Returns the file's size in bytes.
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
    use crate::blueprint::format::{Salinity, WaterBodyType};
    use crate::blueprint::{RoadPath, TownTier};
    use crate::sea::SeaModel;
    use crate::units::{metres_per_px, METRES_PER_RAW};

    /// The pictures drawn the direct way, not as row sources: a colour
    /// function called per pixel over the whole image, and discs painted on a whole canvas. The
    /// sources must give exactly these pixels.
    mod reference {
        use super::*;

        pub fn build(w: usize, h: usize, colour: impl Fn(usize, usize) -> [u8; 3]) -> Image {
            let mut rgb = vec![0u8; w * h * 3];
            for y in 0..h {
                for x in 0..w {
                    rgb[(y * w + x) * 3..][..3].copy_from_slice(&colour(x, y));
                }
            }
            Image {
                width: w,
                height: h,
                rgb,
            }
        }

        pub fn height_image(heights: &Array2<f32>, sea: &SeaLevel) -> Image {
            let (w, h) = heights.dim();
            let k = METRES_PER_RAW / (2.0 * metres_per_px(w));
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

        pub fn water_image(ids: &Array2<u16>, bodies: &[WaterBody]) -> Image {
            let (w, h) = ids.dim();
            let river = |id: u16| {
                bodies
                    .iter()
                    .any(|b| b.kind == WaterBodyType::River && b.id == id)
            };
            let palette = [
                [204, 200, 190],
                [18, 52, 110],
                [30, 110, 230],
                [84, 150, 214],
            ];
            build(w, h, |x, y| match ids[[x, y]] {
                0 => palette[0],
                1 => palette[1],
                id if river(id) => palette[2],
                _ => palette[3],
            })
        }

        pub fn biome_image(biomes: &Array2<Biome>) -> Image {
            let (w, h) = biomes.dim();
            build(w, h, |x, y| biome_colour(biomes[[x, y]]))
        }

        fn disc(image: &mut Image, cx: f32, cy: f32, r: f32, colour: [u8; 3]) {
            let (w, h) = (image.width, image.height);
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
                        image.put(x, y, colour);
                    }
                }
            }
        }

        pub fn paint_roads(image: &mut Image, roads: &Roads, scale: f32) {
            let w = image.width as f32;
            for tier in RoadTier::ALL.iter().rev() {
                let (fraction, colour) = road_line(*tier);
                let r = (0.5 * fraction * w).max(0.5);
                for path in roads.tier(*tier) {
                    for seg in path.windows(2) {
                        let (a, b) = (seg[0].map(|c| c * scale), seg[1].map(|c| c * scale));
                        let steps =
                            ((b[0] - a[0]).hypot(b[1] - a[1]) * 2.0).ceil().max(1.0) as usize;
                        for k in 0..=steps {
                            let t = k as f32 / steps as f32;
                            let (x, y) = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t);
                            disc(image, x, y, r, colour);
                        }
                    }
                }
            }
        }

        pub fn paint_towns(image: &mut Image, towns: &[Town]) {
            let (w, h) = (image.width, image.height);
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
                        if d <= r - 1.5 {
                            image.put(x, y, colour);
                        } else if d <= r {
                            image.put(x, y, ring);
                        }
                    }
                }
            }
        }
    }

    /// Heights with open sea, shallows, every land band, cliffs, a summit over the cap and a
    /// few values no map should hold (NaN, ±∞), on a grid whose sides are not multiples of the
    /// sources' blocks.
    fn heights(w: usize, h: usize) -> Array2<f32> {
        let mut z = Array2::from_shape_fn((w, h), |(x, y)| {
            let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
            let dome = 2.4 * (1.0 - ((u - 0.5).powi(2) + (v - 0.5).powi(2)) * 5.0);
            let ripples = 0.05 * (x as f32 * 0.37).sin() * (y as f32 * 0.23).cos();
            let cliff = if (x / 17 + y / 11) % 5 == 0 { 0.3 } else { 0.0 };
            dome + ripples + cliff - 0.8
        });
        z[[w / 2, h / 2]] = 9.0;
        if w > 8 && h > 8 {
            z[[3, 4]] = f32::NAN;
            z[[w - 2, 5]] = f32::INFINITY;
            z[[6, h - 3]] = f32::NEG_INFINITY;
        }
        z
    }

    fn biomes(w: usize, h: usize) -> Array2<Biome> {
        Array2::from_shape_fn((w, h), |(x, y)| {
            Biome::ALL[(x / 9 + y / 13 + x * y % 7) % 11]
        })
    }

    fn towns(w: usize, h: usize) -> Vec<Town> {
        let tiers = [
            TownTier::Capitol,
            TownTier::Hub,
            TownTier::Village,
            TownTier::Outpost,
            TownTier::Poi,
        ];
        (0..12)
            .map(|i| Town {
                // Some on the edges and corners, so their discs are cut off.
                x: [0.0, w as f32 - 0.5, 40.3, 77.7][i % 4] + (i * 13 % 29) as f32,
                y: [h as f32 - 1.0, 0.2, 61.5][i % 3] + (i * 7 % 19) as f32,
                tier: tiers[i % 5],
                is_highway_node: i % 2 == 0,
            })
            .collect()
    }

    fn roads(w: usize, h: usize) -> Roads {
        let (w, h) = (w as f32, h as f32);
        let mut roads = Roads::default();
        roads.highway.push(RoadPath::from(vec![
            [-3.0, 5.0],
            [w * 0.6, h * 0.4],
            [w + 2.0, h - 1.0],
        ]));
        roads
            .branch
            .push(RoadPath::from(vec![[10.0, h - 2.0], [w * 0.5, 3.0]]));
        roads.rugged.push(RoadPath::from(vec![
            [w * 0.3, 0.0],
            [w * 0.31, h],
            [1.0, h * 0.5],
        ]));
        roads.trail.push(RoadPath::from(vec![
            [2.5, 2.5],
            [w * 0.9, h * 0.2],
            [w * 0.2, h * 0.8],
            [w * 0.7, h * 0.7],
        ]));
        roads
    }

    #[test]
    fn the_height_picture_is_the_reference_pixel_for_pixel() {
        for (w, h) in [(97, 83), (300, 530), (1, 1), (2, 300)] {
            let z = heights(w, h);
            for model in [SeaModel::Flat(0.15), SeaModel::Field] {
                let sea = SeaLevel::new(model, w);
                assert_eq!(
                    height_image(&z, &sea),
                    reference::height_image(&z, &sea),
                    "{w}x{h} {model:?}"
                );
            }
        }
    }

    #[test]
    fn the_palette_pictures_are_the_reference_pixel_for_pixel() {
        for (w, h) in [(97, 83), (300, 530), (1, 1)] {
            let b = biomes(w, h);
            assert_eq!(biome_image(&b).rgb(), reference::biome_image(&b), "{w}x{h}");
            let ids = Array2::from_shape_fn((w, h), |(x, y)| ((x * 7 + y * 3) % 9) as u16);
            let bodies: Vec<WaterBody> = [(1, WaterBodyType::Ocean), (4, WaterBodyType::River)]
                .into_iter()
                .chain([(7, WaterBodyType::River), (5, WaterBodyType::Lake)])
                .map(|(id, kind)| WaterBody {
                    id,
                    kind,
                    salinity: Salinity::Fresh,
                    surface_level: 0.2,
                    pixel_count: 1,
                    centroid_x: 0.0,
                    centroid_y: 0.0,
                })
                .collect();
            let water = water_image(&ids, &bodies).rgb();
            assert_eq!(water, reference::water_image(&ids, &bodies), "{w}x{h}");
            let (t, r) = (towns(w, h), roads(w, h));
            let mut want = reference::biome_image(&b);
            reference::paint_towns(&mut want, &t);
            assert_eq!(towns_image(&b, &t).rgb(), want, "{w}x{h} towns");
            let mut want = reference::biome_image(&b);
            reference::paint_roads(&mut want, &r, 1.0);
            reference::paint_towns(&mut want, &t);
            assert_eq!(roads_image(&b, &r, &t).rgb(), want, "{w}x{h} roads");
        }
    }

    /// The road painter used on thumbnails and splat masks (a whole canvas, scaled) paints
    /// what it painted before.
    #[test]
    fn roads_painted_on_a_canvas_are_the_reference() {
        let b = biomes(300, 530);
        let r = roads(300, 530);
        for scale in [1.0, 0.25] {
            let mut got = reference::biome_image(&b);
            let mut want = got.clone();
            paint_roads(&mut got, &r, scale);
            reference::paint_roads(&mut want, &r, scale);
            assert_eq!(got, want, "scale {scale}");
        }
    }

    /// A palette picture written as an indexed PNG reads back as exactly its RGB pixels.
    #[test]
    fn palette_pictures_read_back_as_their_rgb_pixels() {
        let b = biomes(96, 96);
        let indexed = roads_image(&b, &roads(96, 96), &towns(96, 96));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("roads.png");
        write_indexed_png(&path, &indexed).unwrap();
        assert_eq!(read_png(&path).unwrap(), indexed.rgb());
    }
}
