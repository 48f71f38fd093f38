//! Splat maps and masks: the biomes as per-layer weights for terrain texturing, and masks of the
//! water, the roads and the rivers, with a JSON legend (`splat.json`).
//!
//! # Files (all one pixel per map pixel, row 0 = the northern edge, column 0 = west)
//!
//! - `splat_0.png`, `splat_1.png`, `splat_2.png`: 8-bit RGBA, four layers each in channel order
//!   R, G, B, A, the layers being the biomes in ordinal order (`docs/FORMAT.md`): splat_0 =
//!   ocean, lake, beach, grassland; splat_1 = forest, foothills, plateau, mountain; splat_2 =
//!   snow, crater, dirt and an unused alpha (always 0). This is the layout of Unity's terrain
//!   alphamaps (SplatAlpha *k* holds terrain layers 4k … 4k + 3 in RGBA: add the eleven layers
//!   in this order and import the PNGs as the splatmaps) and of the RGBA splat maps Godot
//!   terrain plugins take (HTerrain's splatmap: four texture weights a map). Godot Terrain3D's
//!   own control map is not a weight image but an encoded one (a base and an overlay texture
//!   id and a blend per pixel); for it these weights are the input of a conversion — the two
//!   strongest layers of a pixel as base and overlay, their ratio as the blend.
//! - `water.png`, `roads.png`, `rivers.png`: 8-bit grayscale masks, 255 inside, 0 outside.
//!   Water is every WBID water pixel (BIOM Ocean/Lake without water sections); rivers are the
//!   WBID pixels of WBTB river reaches; roads are the RDHW/RDBR/RDRG/RDTL polylines painted at
//!   their tier's width (`render::road_line`: a fraction of the map side, so the same metres at
//!   every MapSize: highway 20.48 m, branch 16.38 m, rugged 12.29 m, trail 8.19 m), through
//!   the same painter as the `3_roads` picture (`render::paint_roads`).
//!
//! # Weights sum to exactly 255
//!
//! Each pixel's weights are the shares of each biome among the pixels of a square box window of
//! (2r + 1)² pixels around it (`--blur M` metres gives r = round(M / 2 / metres per pixel);
//! r = 0, the default, is the biome itself with weight 255). The window is clamped at the map's
//! edges, so every window counts exactly (2r + 1)² pixels and the shares sum to 1. They become
//! 8-bit by the largest-remainder rule, in integers: each biome gets ⌊255 · count / N⌋, and the
//! units still missing to 255 go to the biomes with the largest remainders (255 · count mod N),
//! the lower ordinal first on a tie. So over the three files the eleven channels of every pixel
//! sum to 255 exactly, and a biome that is absent from the window has weight 0.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::{rows, ExportError, Frame, OutputError, Unsupported};
use crate::blueprint::{Biome, Blueprint, RoadTier};
use crate::render::{self, Canvas};
use crate::units::WORLD_SIZE_M;

/// Biome layers (every biome, ordinal order).
const LAYERS: usize = Biome::COUNT;

/// Splat files: four layers each.
pub const SPLAT_FILES: usize = LAYERS.div_ceil(4);

/// The largest box radius `--blur` may ask for, pixels.
pub const MAX_BLUR_RADIUS_PX: usize = 512;

/// Output rows per parallel band.
const BAND: usize = 64;

/// One splat file in the legend.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplatFile {
    /// File name.
    pub file: String,
    /// The layer in R, G, B, A (`"unused"` for a spare channel).
    pub channels: Vec<&'static str>,
    /// The terrain-layer index of each channel (the biome's ordinal), `None` when unused.
    pub layers: Vec<Option<u8>>,
}

/// One mask in the legend.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaskFile {
    /// File name.
    pub file: String,
    /// What 255 means.
    pub meaning: &'static str,
}

/// A road tier's width in the roads mask.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoadWidth {
    /// The tier.
    pub tier: &'static str,
    /// Painted width, metres.
    pub width_m: f32,
}

/// `splat.json`: what every file and channel is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Legend {
    /// Pixels a side of every file.
    pub size: usize,
    /// Metres per pixel.
    pub metres_per_pixel: f64,
    /// Which edge is row 0 and column 0.
    pub orientation: &'static str,
    /// The blur width asked for, metres.
    pub blur_m: f32,
    /// The box radius it became, pixels.
    pub blur_radius_px: usize,
    /// The filter.
    pub blur_filter: &'static str,
    /// How the weights are quantised.
    pub weights: &'static str,
    /// The splat files.
    pub splat: Vec<SplatFile>,
    /// The masks.
    pub masks: Vec<MaskFile>,
    /// The roads mask's widths.
    pub road_widths: Vec<RoadWidth>,
}

/// What an export wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct SplatReport {
    /// Every file written, the legend last.
    pub files: Vec<PathBuf>,
    /// The legend.
    pub legend: Legend,
}

/// The box radius, in pixels, of a blur `blur_m` metres wide at this frame.
pub fn blur_radius_px(frame: &Frame, blur_m: f32) -> Result<usize, Unsupported> {
    if !blur_m.is_finite() || blur_m < 0.0 {
        return Err(Unsupported::NotAWidth {
            what: "the blur width",
            value: blur_m,
        });
    }
    let r = (f64::from(blur_m) / 2.0 / frame.metres_per_px).round() as usize;
    if r > MAX_BLUR_RADIUS_PX {
        return Err(Unsupported::Blur {
            metres: blur_m,
            radius_px: r,
            max_px: MAX_BLUR_RADIUS_PX,
        });
    }
    Ok(r)
}

/// The three RGBA splat images (row-major, 4 bytes a pixel) for a box radius `r` pixels.
pub fn weights(bp: &Blueprint, r: usize) -> Vec<Vec<u8>> {
    let s = bp.side();
    let ord = rows(s, s, |x, y| bp.biomes[[x, y]].ordinal());
    let mut images: Vec<Vec<u8>> = (0..SPLAT_FILES).map(|_| vec![0u8; s * s * 4]).collect();
    let [a, b, c] = images.as_mut_slice() else {
        unreachable!("three splat files for eleven biomes")
    };
    a.par_chunks_mut(s * 4 * BAND)
        .zip(b.par_chunks_mut(s * 4 * BAND))
        .zip(c.par_chunks_mut(s * 4 * BAND))
        .enumerate()
        .for_each(|(band, ((a, b), c))| {
            let mut out = [a, b, c];
            let y0 = band * BAND;
            let y1 = (y0 + BAND).min(s);
            if r == 0 {
                for y in y0..y1 {
                    for x in 0..s {
                        let o = usize::from(ord[y * s + x]);
                        out[o / 4][((y - y0) * s + x) * 4 + o % 4] = 255;
                    }
                }
            } else {
                blurred_band(&ord, s, r, y0, y1, &mut out);
            }
        });
    images
}

/// Fills rows `y0..y1` of the splat images with box-window shares of radius `r`.
fn blurred_band(ord: &[u8], s: usize, r: usize, y0: usize, y1: usize, out: &mut [&mut [u8]; 3]) {
    let clamp = |i: isize| i.clamp(0, s as isize - 1) as usize;
    let span = y1 - y0 + 2 * r;
    // hcount[t][x][b]: pixels of biome b in row clamp(y0 + t − r), columns clamp(x ± r).
    let mut hcount = vec![0u16; span * s * LAYERS];
    for (t, counts) in hcount.chunks_exact_mut(s * LAYERS).enumerate() {
        let row = &ord[clamp(y0 as isize + t as isize - r as isize) * s..][..s];
        let mut window = [0u16; LAYERS];
        for k in -(r as isize)..=(r as isize) {
            window[usize::from(row[clamp(k)])] += 1;
        }
        for x in 0..s {
            counts[x * LAYERS..][..LAYERS].copy_from_slice(&window);
            window[usize::from(row[clamp(x as isize + r as isize + 1)])] += 1;
            window[usize::from(row[clamp(x as isize - r as isize)])] -= 1;
        }
    }
    let n = ((2 * r + 1) * (2 * r + 1)) as u32;
    let mut vcount = vec![0u32; s * LAYERS];
    for t in 0..=2 * r {
        for (v, h) in vcount
            .iter_mut()
            .zip(&hcount[t * s * LAYERS..][..s * LAYERS])
        {
            *v += u32::from(*h);
        }
    }
    for dy in 0..y1 - y0 {
        for x in 0..s {
            let units = largest_remainder(&vcount[x * LAYERS..][..LAYERS], n);
            let at = (dy * s + x) * 4;
            for (o, u) in units.iter().enumerate() {
                out[o / 4][at + o % 4] = *u;
            }
        }
        if dy + 1 < y1 - y0 {
            let (enter, leave) = ((dy + 2 * r + 1) * s * LAYERS, dy * s * LAYERS);
            for (i, v) in vcount.iter_mut().enumerate() {
                *v = *v + u32::from(hcount[enter + i]) - u32::from(hcount[leave + i]);
            }
        }
    }
}

/// 8-bit weights of `counts` (out of `n`) summing to exactly 255: floors, then the missing
/// units to the largest remainders, the lower index first on a tie.
pub fn largest_remainder(counts: &[u32], n: u32) -> [u8; LAYERS] {
    let mut units = [0u8; LAYERS];
    if let Some(full) = counts.iter().position(|&c| c == n) {
        units[full] = 255;
        return units;
    }
    let mut rem = [0u32; LAYERS];
    let mut given = 0u32;
    for (i, &c) in counts.iter().enumerate().take(LAYERS) {
        let scaled = 255 * c;
        units[i] = (scaled / n) as u8;
        rem[i] = scaled % n;
        given += scaled / n;
    }
    for _ in given..255 {
        // the first maximum: ties go to the lower ordinal
        let mut best = 0;
        for i in 1..LAYERS {
            if rem[i] > rem[best] {
                best = i;
            }
        }
        units[best] += 1;
        rem[best] = 0;
    }
    units
}

/// A one-byte-a-pixel mask to paint roads on: any colour paints 255.
struct Mask {
    side: usize,
    bytes: Vec<u8>,
}

impl Canvas for Mask {
    type Ink = u8;
    fn size(&self) -> (usize, usize) {
        (self.side, self.side)
    }
    fn ink(&mut self, _colour: [u8; 3]) -> u8 {
        255
    }
    fn put(&mut self, x: usize, y: usize, ink: u8) {
        self.bytes[y * self.side + x] = ink;
    }
}

/// The water, roads and rivers masks (row-major, 255 inside).
pub fn masks(bp: &Blueprint) -> [Vec<u8>; 3] {
    let s = bp.side();
    let water = rows(s, s, |x, y| if bp.is_water(x, y) { 255u8 } else { 0 });
    let river_id = bp.river_body_ids();
    let rivers = match &bp.water_ids {
        Some(ids) => rows(s, s, |x, y| {
            if river_id[usize::from(ids[[x, y]])] {
                255u8
            } else {
                0
            }
        }),
        None => vec![0; s * s],
    };
    let mut roads = Mask {
        side: s,
        bytes: vec![0; s * s],
    };
    render::paint_roads(&mut roads, &bp.roads, 1.0);
    [water, roads.bytes, rivers]
}

fn write_png8(
    path: &Path,
    side: usize,
    color: png::ColorType,
    bytes: &[u8],
) -> std::io::Result<()> {
    let side = u32::try_from(side).map_err(std::io::Error::other)?;
    crate::output::write_atomically(path, |w: &mut BufWriter<&mut File>| {
        let mut enc = png::Encoder::new(w, side, side);
        enc.set_color(color);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut writer = enc.write_header().map_err(std::io::Error::other)?;
        writer
            .write_image_data(bytes)
            .map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)
    })
}

/// The legend of a splat export at `frame` with blur `blur_m` (radius `r` px).
pub fn legend(frame: &Frame, blur_m: f32, r: usize) -> Legend {
    let splat = (0..SPLAT_FILES)
        .map(|k| {
            let layers: Vec<Option<u8>> = (4 * k..4 * k + 4)
                .map(|i| Biome::ALL.get(i).map(|b| b.ordinal()))
                .collect();
            SplatFile {
                file: format!("splat_{k}.png"),
                channels: layers
                    .iter()
                    .map(|l| l.map_or("unused", |o| Biome::ALL[usize::from(o)].label()))
                    .collect(),
                layers,
            }
        })
        .collect();
    Legend {
        size: frame.side,
        metres_per_pixel: frame.metres_per_px,
        orientation: "row 0 = the northern edge (map y = 0), column 0 = the western edge",
        blur_m,
        blur_radius_px: r,
        blur_filter: "box: the share of each biome in the (2r + 1)² pixels around, clamped at the edges",
        weights: "8-bit; the 11 biome channels of a pixel sum to exactly 255 (largest remainder: floor(255·count/N), the missing units to the largest remainders, lower ordinal first on a tie); the spare alpha of splat_2 is 0",
        splat,
        masks: vec![
            MaskFile {
                file: "water.png".into(),
                meaning: "water: ocean, lakes and river reaches (WBID ≠ 0)",
            },
            MaskFile {
                file: "roads.png".into(),
                meaning: "roads of every tier, painted at the tier's width",
            },
            MaskFile {
                file: "rivers.png".into(),
                meaning: "river reaches (WBID pixels of WBTB type river)",
            },
        ],
        road_widths: RoadTier::ALL
            .iter()
            .map(|&t| RoadWidth {
                tier: t.label(),
                width_m: render::road_line(t).0 * WORLD_SIZE_M,
            })
            .collect(),
    }
}

/// Writes the splat maps, the masks and `splat.json` into `dir` (created if missing), each
/// atomically, with a box blur `blur_m` metres wide (0 = none).
pub fn export(bp: &Blueprint, dir: &Path, blur_m: f32) -> Result<SplatReport, ExportError> {
    let frame = Frame::of(bp)?;
    let r = blur_radius_px(&frame, blur_m)?;
    std::fs::create_dir_all(dir).map_err(OutputError::io("creating", dir))?;
    crate::output::remove_stale_temps(dir).map_err(OutputError::io("cleaning", dir))?;
    let legend = legend(&frame, blur_m, r);
    let s = frame.side;
    let (splats, masks) = rayon::join(|| weights(bp, r), || masks(bp));
    let mut jobs: Vec<(PathBuf, png::ColorType, &[u8])> = Vec::new();
    for (f, bytes) in legend.splat.iter().zip(&splats) {
        jobs.push((dir.join(&f.file), png::ColorType::Rgba, bytes));
    }
    for (m, bytes) in legend.masks.iter().zip(&masks) {
        jobs.push((dir.join(&m.file), png::ColorType::Grayscale, bytes));
    }
    jobs.par_iter()
        .map(|(path, color, bytes)| {
            write_png8(path, s, *color, bytes).map_err(OutputError::io("writing", path))
        })
        .collect::<Result<Vec<()>, OutputError>>()?;
    let path = dir.join("splat.json");
    let json = serde_json::to_vec_pretty(&legend).map_err(std::io::Error::other);
    json.and_then(|j| crate::output::write_bytes_atomically(&path, &j))
        .map_err(OutputError::io("writing", &path))?;
    let mut files: Vec<PathBuf> = jobs.into_iter().map(|(p, _, _)| p).collect();
    files.push(path);
    Ok(SplatReport { files, legend })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_remainder_always_sums_to_255() {
        let n = 25;
        for a in 0..=n {
            for b in 0..=n - a {
                let mut counts = [0u32; LAYERS];
                counts[2] = a;
                counts[5] = b;
                counts[9] = n - a - b;
                let units = largest_remainder(&counts, n);
                assert_eq!(units.iter().map(|&u| u32::from(u)).sum::<u32>(), 255);
                for (u, c) in units.iter().zip(counts) {
                    assert_eq!(c == 0, *u == 0, "n ≤ 255: every present biome gets a unit");
                    let exact = 255.0 * f64::from(c) / f64::from(n);
                    assert!((f64::from(*u) - exact).abs() < 1.0);
                }
            }
        }
        // a three-way tie: 85 each, no remainder
        let mut counts = [0u32; LAYERS];
        counts[..3].copy_from_slice(&[3, 3, 3]);
        assert_eq!(&largest_remainder(&counts, 9)[..3], &[85, 85, 85]);
        // two halves of 255: the lower ordinal takes the odd unit
        let mut counts = [0u32; LAYERS];
        counts[3] = 1;
        counts[7] = 1;
        let units = largest_remainder(&counts, 2);
        assert_eq!((units[3], units[7]), (128, 127));
    }
}
