//! Heightmaps: the blueprint's HGTS as metres above sea level, in three files engines and GIS read.
//!
//! | format | file | for | samples | byte order | row order |
//! |---|---|---|---|---|---|
//! | `png16` | 16-bit grayscale PNG | Unreal landscape import, Godot (Terrain3D / HTerrain heightmap import), Blender displacement | u16, `min_m + v × metres_per_unit` | big-endian (PNG's own) | row 0 = north |
//! | `r16` | headerless RAW 16-bit | Unity terrain "Import Raw…" (Depth 16 bit, Byte Order Windows, Flip Vertically off) | u16, as `png16` | little-endian | first row = **south**: Unity puts it at terrain z = 0 |
//! | `tiff` | float32 GeoTIFF, one band, uncompressed | GDAL, QGIS | f32 metres above sea | little-endian (`II`) | row 0 = north |
//!
//! Columns run west to east in all three, so an engine import shows the crater on the north
//! coast (`exports` module doc). The 16-bit formats spread the file's own height range over the
//! full 0 ..= 65 535 (`v = round((m − min) / (max − min) × 65 535)`), so a sample is within half
//! a quantisation step (`metres_per_unit / 2`) of its metres; the float format stores the metres
//! themselves, `(raw − sea) × 251` computed in f32, and reads back bit for bit.
//!
//! Every file gets a sidecar `FILE.json` ([`Sidecar`], also printed by the CLI): the size, min
//! and max metres, metres per unit, the value at sea level, metres per pixel, the sea level the
//! heights are measured from and engine settings (Unity's terrain height, Unreal's Z and XY
//! scales) that reproduce the world's scale.
//!
//! # Resampling
//!
//! Unity wants 2ⁿ + 1 heightmaps (up to 4097), Unreal prefers sizes such as 8129 or 4033:
//! `--resample N` resamples the map to N × N with a **bilinear** filter, corner-aligned: output
//! sample `i` is source coordinate `i × (S − 1) / (N − 1)` (in pixel centres), so the four
//! corner samples are the corner pixels exactly and a plane stays a plane. Without it the
//! heightmap is the map's own S × S pixels.
//!
//! # GeoTIFF
//!
//! Written with the `tiff` crate's encoder plus the GeoTIFF 1.1 tags by hand:
//! ModelPixelScale (metres per sample), ModelTiepoint (raster (0, 0) → the north-west corner of
//! the first sample in the local CRS of [`super::Frame`]) and a GeoKey directory declaring a
//! user-defined (local) model in metres, PixelIsArea, with a citation naming the CRS. GDAL reads
//! it as an engineering (local) CRS in metres; distances and areas in QGIS come out right.
//! BigTIFF is used only when the image would pass 4 GiB (MapSize ≥ 32 768).

use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::{rows, ExportError, Frame, OutputError, RecordedSea, Unsupported};
use crate::blueprint::Blueprint;
use crate::units::METRES_PER_RAW;

/// The three heightmap files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HeightFormat {
    /// 16-bit grayscale PNG, rows north first.
    Png16,
    /// Unity RAW: 16-bit little-endian, rows south first.
    R16,
    /// Float32 GeoTIFF, metres, rows north first.
    Tiff,
}

/// The largest `--resample` size.
pub const MAX_RESAMPLE: usize = 65_537;

/// The GeoTIFF's CRS citation (GTCitationGeoKey).
pub const CRS_CITATION: &str =
    "islagen local grid: metres, origin at the map's south-west corner, x east, y north";

/// Metres above sea level on a square grid, rows north first, columns west first.
#[derive(Clone, Debug, PartialEq)]
pub struct HeightGrid {
    /// Samples a side.
    pub side: usize,
    /// `side × side` metres, row-major.
    pub metres: Vec<f32>,
    /// Metres between neighbouring samples.
    pub spacing_m: f64,
    /// Local-CRS metres (east, north) of the first (north-west) sample's centre.
    pub first_sample_m: [f64; 2],
}

/// The heights of `bp` as metres above its sea level; resampled to `resample` × `resample`
/// (bilinear, corner-aligned) when given.
pub fn height_grid(bp: &Blueprint, resample: Option<usize>) -> Result<HeightGrid, ExportError> {
    let frame = Frame::of(bp)?;
    raw_range(bp)?;
    let sea = RecordedSea::of(bp);
    let s = frame.side;
    let native = rows(s, s, |x, y| sea.metres(bp.heights[[x, y]]));
    let first = frame.metres(0.5, 0.5);
    match resample {
        None => Ok(HeightGrid {
            side: s,
            metres: native,
            spacing_m: frame.metres_per_px,
            first_sample_m: first,
        }),
        Some(n) => {
            if !(2..=MAX_RESAMPLE).contains(&n) {
                return Err(Unsupported::ResampleSize(n).into());
            }
            Ok(HeightGrid {
                side: n,
                metres: resample_bilinear(&native, s, n),
                spacing_m: frame.metres_per_px * (s - 1).max(1) as f64 / (n - 1) as f64,
                first_sample_m: first,
            })
        }
    }
}

/// The lowest and highest raw heights of `bp`; an error if any is NaN or infinite.
fn raw_range(bp: &Blueprint) -> Result<(f32, f32), ExportError> {
    let (lo, hi, bad) = match bp.heights.as_slice() {
        Some(h) => range(h),
        None => range(&bp.heights.iter().copied().collect::<Vec<f32>>()),
    };
    if bad > 0 {
        return Err(Unsupported::NonFiniteHeights(bad).into());
    }
    Ok((lo, hi))
}

/// Resamples a row-major `side × side` grid to `n × n`, bilinear and corner-aligned: output
/// `(i, j)` is the source at `(i, j) × (side − 1) / (n − 1)`, interpolated between the four
/// samples around it (weights in f64, the result rounded to f32 once).
pub fn resample_bilinear(src: &[f32], side: usize, n: usize) -> Vec<f32> {
    assert_eq!(src.len(), side * side, "a square source grid");
    let scale = if n > 1 {
        (side.saturating_sub(1)) as f64 / (n - 1) as f64
    } else {
        0.0
    };
    // One (index, weight) pair per output column, shared by every row.
    let taps: Vec<(usize, usize, f64)> = (0..n)
        .map(|i| {
            let u = i as f64 * scale;
            let i0 = (u.floor() as usize).min(side - 1);
            let i1 = (i0 + 1).min(side - 1);
            (i0, i1, u - i0 as f64)
        })
        .collect();
    let mut out = vec![0f32; n * n];
    out.par_chunks_mut(n).enumerate().for_each(|(j, row)| {
        let (r0, r1, ty) = taps[j];
        let (a, b) = (&src[r0 * side..][..side], &src[r1 * side..][..side]);
        for (o, &(c0, c1, tx)) in row.iter_mut().zip(&taps) {
            let top = f64::from(a[c0]) * (1.0 - tx) + f64::from(a[c1]) * tx;
            let bottom = f64::from(b[c0]) * (1.0 - tx) + f64::from(b[c1]) * tx;
            *o = (top * (1.0 - ty) + bottom * ty) as f32;
        }
    });
    out
}

/// The mapping of metres onto 0 ..= 65 535: `round((m − min) / (max − min) × 65 535)`, in f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantiser {
    /// Metres of value 0.
    pub min_m: f64,
    /// Metres of value 65 535.
    pub max_m: f64,
    per_metre: f64,
}

impl Quantiser {
    /// The mapping of `[min_m, max_m]` onto the full 16-bit range (all zeros when they agree).
    pub fn new(min_m: f64, max_m: f64) -> Quantiser {
        let span = max_m - min_m;
        Quantiser {
            min_m,
            max_m,
            per_metre: if span > 0.0 {
                f64::from(u16::MAX) / span
            } else {
                0.0
            },
        }
    }

    /// The value of `m` metres.
    #[inline]
    pub fn value(&self, m: f32) -> u16 {
        ((f64::from(m) - self.min_m) * self.per_metre)
            .round()
            .clamp(0.0, 65_535.0) as u16
    }

    /// Metres per unit: `(max − min) / 65 535` (0 on a flat map).
    pub fn metres_per_unit(&self) -> f64 {
        (self.max_m - self.min_m) / f64::from(u16::MAX)
    }
}

/// The lowest and highest of `values` and how many are not finite, in parallel.
fn range(values: &[f32]) -> (f32, f32, u64) {
    values
        .par_iter()
        .fold(
            || (f32::INFINITY, f32::NEG_INFINITY, 0u64),
            |(lo, hi, bad), &v| {
                if v.is_finite() {
                    (lo.min(v), hi.max(v), bad)
                } else {
                    (lo, hi, bad + 1)
                }
            },
        )
        .reduce(
            || (f32::INFINITY, f32::NEG_INFINITY, 0),
            |a, b| (a.0.min(b.0), a.1.max(b.1), a.2 + b.2),
        )
}

/// The quantiser spanning `metres` (the file's own range).
pub fn quantiser(metres: &[f32]) -> Quantiser {
    let (lo, hi, _) = range(metres);
    if lo > hi {
        return Quantiser::new(0.0, 0.0);
    }
    Quantiser::new(f64::from(lo), f64::from(hi))
}

/// Engine settings that give an import the world's true scale.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineHints {
    /// Unity: Terrain Height (metres from value 0 to 65 535) and Terrain Width/Length.
    pub unity_terrain_height_m: f64,
    /// Unity: Terrain Width and Length, metres (vertex to vertex).
    pub unity_terrain_size_m: f64,
    /// Unreal: the landscape's Z scale (value 32 768 is Z = 0; a unit is Z scale / 128 cm).
    pub unreal_z_scale: f64,
    /// Unreal: the landscape's X and Y scale, cm between vertices.
    pub unreal_xy_scale: f64,
    /// Unreal: the world Z of sea level, cm, with that Z scale and the actor at Z = 0.
    pub unreal_sea_level_z_cm: f64,
}

/// What a heightmap file holds: its sidecar `FILE.json`, printed by the CLI.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sidecar {
    /// `png16`, `r16` or `tiff`.
    pub format: HeightFormat,
    /// The file's name.
    pub file: String,
    /// Samples per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `uint16` or `float32`.
    pub sample_type: &'static str,
    /// Byte order of a sample.
    pub byte_order: &'static str,
    /// Which edge the first row is.
    pub row_order: &'static str,
    /// Which edge the first column is.
    pub column_order: &'static str,
    /// What 0 m is.
    pub height_datum: &'static str,
    /// Metres of the lowest value (16-bit: value 0; float: the lowest sample).
    pub min_m: f64,
    /// Metres of the highest value (16-bit: value 65 535; float: the highest sample).
    pub max_m: f64,
    /// Metres per unit of the sample (1 for the float format).
    pub metres_per_unit: f64,
    /// The (fractional) sample value at sea level: `−min_m / metres_per_unit` for 16-bit, 0
    /// for float.
    pub unit_at_sea_level: f64,
    /// Sea level in this file's metres (always 0: heights are above sea).
    pub sea_level_m: f64,
    /// The blueprint's sea level, raw units (metres = (raw − this) × metres_per_raw).
    pub sea_level_raw: f32,
    /// Where the sea level came from.
    pub sea_level_source: &'static str,
    /// Metres per raw height unit of the blueprint.
    pub metres_per_raw: f32,
    /// Metres between neighbouring samples.
    pub metres_per_pixel: f64,
    /// The source map's MapSize.
    pub source_map_size: usize,
    /// `None`, or the filter used to resample: `"bilinear, corner-aligned"`.
    pub resample: Option<&'static str>,
    /// Local-CRS metres (east, north) of the first sample's centre (origin: the map's
    /// south-west corner, x east, y north): the north-west sample, or for R16 (south first) the
    /// south-west one.
    pub first_sample_m: [f64; 2],
    /// Scale settings for Unity and Unreal (16-bit formats).
    pub engine: Option<EngineHints>,
}

impl Sidecar {
    /// The sidecar's own path beside `file`: `FILE.json`.
    pub fn sidecar_path(&self, file: &Path) -> PathBuf {
        sidecar_path(file)
    }
}

/// `FILE.json` beside `file`.
pub fn sidecar_path(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".json");
    file.with_file_name(name)
}

/// Writes `bp`'s heightmap as `format` to `path` and its sidecar to `path.json`, both
/// atomically; returns the sidecar.
pub fn export(
    bp: &Blueprint,
    path: &Path,
    format: HeightFormat,
    resample: Option<usize>,
) -> Result<Sidecar, ExportError> {
    let sea = RecordedSea::of(bp);
    let frame = Frame::of(bp)?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(OutputError::io("creating", parent))?;
    }
    // At the map's own size the samples are made straight from the [x, y] grid in file order;
    // resampled, from the north-first metre grid.
    let written = match resample {
        None => write_native(bp, path, format, &frame, &sea)?,
        Some(_) => write_resampled(bp, path, format, resample)?,
    };
    let sidecar = sidecar(bp, path, format, resample, &sea, written);
    let json = serde_json::to_vec_pretty(&sidecar).map_err(std::io::Error::other);
    let side = sidecar_path(path);
    json.and_then(|j| crate::output::write_bytes_atomically(&side, &j))
        .map_err(OutputError::io("writing", &side))?;
    Ok(sidecar)
}

/// What a heightmap file was written as: its side, sample spacing and first sample (metres,
/// north-west), and the quantiser of its 16-bit samples.
struct Samples {
    n: usize,
    spacing_m: f64,
    first_sample_m: [f64; 2],
    q: Quantiser,
}

/// Writes the heightmap at the map's own size, straight from the `[x, y]` grid in file order.
fn write_native(
    bp: &Blueprint,
    path: &Path,
    format: HeightFormat,
    frame: &Frame,
    sea: &RecordedSea,
) -> Result<Samples, ExportError> {
    let (lo, hi) = raw_range(bp)?;
    let q = Quantiser::new(f64::from(sea.metres(lo)), f64::from(sea.metres(hi)));
    let s = frame.side;
    let at = |x: usize, y: usize| sea.metres(bp.heights[[x, y]]);
    match format {
        HeightFormat::Png16 => {
            write_png16(path, s, &rows(s, s, |x, y| q.value(at(x, y)).to_be_bytes()))
        }
        HeightFormat::R16 => write_r16(
            path,
            &rows(s, s, |x, k| q.value(at(x, s - 1 - k)).to_le_bytes()),
        ),
        HeightFormat::Tiff => write_tiff(
            path,
            &HeightGrid {
                side: s,
                metres: rows(s, s, at),
                spacing_m: frame.metres_per_px,
                first_sample_m: frame.metres(0.5, 0.5),
            },
        ),
    }
    .map_err(OutputError::io("writing", path))?;
    Ok(Samples {
        n: s,
        spacing_m: frame.metres_per_px,
        first_sample_m: frame.metres(0.5, 0.5),
        q,
    })
}

/// Writes the heightmap resampled to `resample` samples a side, from the north-first grid.
fn write_resampled(
    bp: &Blueprint,
    path: &Path,
    format: HeightFormat,
    resample: Option<usize>,
) -> Result<Samples, ExportError> {
    let grid = height_grid(bp, resample)?;
    let (n, q) = (grid.side, quantiser(&grid.metres));
    match format {
        HeightFormat::Png16 => write_png16(
            path,
            n,
            &grid
                .metres
                .par_iter()
                .map(|&m| q.value(m).to_be_bytes())
                .collect::<Vec<_>>(),
        ),
        HeightFormat::R16 => write_r16(
            path,
            &rows(n, n, |i, k| {
                q.value(grid.metres[(n - 1 - k) * n + i]).to_le_bytes()
            }),
        ),
        HeightFormat::Tiff => write_tiff(path, &grid),
    }
    .map_err(OutputError::io("writing", path))?;
    Ok(Samples {
        n,
        spacing_m: grid.spacing_m,
        first_sample_m: grid.first_sample_m,
        q,
    })
}

/// The sidecar of a heightmap written as `w`: its layout, datum and the engines' import
/// numbers.
fn sidecar(
    bp: &Blueprint,
    path: &Path,
    format: HeightFormat,
    resample: Option<usize>,
    sea: &RecordedSea,
    w: Samples,
) -> Sidecar {
    let Samples {
        n,
        spacing_m,
        first_sample_m,
        q,
    } = w;
    // R16's first row is the south: its first sample is the south-west one.
    let first_sample_m = match format {
        HeightFormat::R16 => [
            first_sample_m[0],
            first_sample_m[1] - spacing_m * (n - 1) as f64,
        ],
        _ => first_sample_m,
    };
    let (min_m, max_m) = (q.min_m, q.max_m);
    let (mpu, at_sea) = match format {
        HeightFormat::Tiff => (1.0, 0.0),
        _ => {
            let mpu = q.metres_per_unit();
            (mpu, if mpu > 0.0 { -q.min_m / mpu } else { 0.0 })
        }
    };
    let engine = (format != HeightFormat::Tiff).then(|| EngineHints {
        unity_terrain_height_m: max_m - min_m,
        unity_terrain_size_m: spacing_m * (n - 1) as f64,
        unreal_z_scale: mpu * 12_800.0,
        unreal_xy_scale: spacing_m * 100.0,
        unreal_sea_level_z_cm: (at_sea - 32_768.0) * mpu * 100.0,
    });
    Sidecar {
        format,
        file: path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
        width: n,
        height: n,
        sample_type: if format == HeightFormat::Tiff {
            "float32"
        } else {
            "uint16"
        },
        byte_order: match format {
            HeightFormat::Png16 => "big-endian (PNG)",
            HeightFormat::R16 => "little-endian (Unity: Windows)",
            HeightFormat::Tiff => "little-endian (TIFF II)",
        },
        row_order: match format {
            HeightFormat::R16 => {
                "south to north: the first row is the southern edge (Unity terrain z = 0)"
            }
            _ => "north to south: the first row is the northern edge",
        },
        column_order: "west to east",
        height_datum: "metres above sea level (sea level = 0 m)",
        min_m,
        max_m,
        metres_per_unit: mpu,
        unit_at_sea_level: at_sea,
        sea_level_m: 0.0,
        sea_level_raw: sea.raw,
        sea_level_source: sea.source,
        metres_per_raw: METRES_PER_RAW,
        metres_per_pixel: spacing_m,
        source_map_size: bp.side(),
        resample: resample.map(|_| "bilinear, corner-aligned"),
        first_sample_m,
        engine,
    }
}

fn write_png16(path: &Path, n: usize, samples: &[[u8; 2]]) -> std::io::Result<()> {
    let side = u32::try_from(n).map_err(std::io::Error::other)?;
    crate::output::write_atomically(path, |w: &mut BufWriter<&mut File>| {
        let mut enc = png::Encoder::new(w, side, side);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Sixteen);
        enc.set_compression(png::Compression::Fast);
        let mut writer = enc.write_header().map_err(std::io::Error::other)?;
        writer
            .write_image_data(samples.as_flattened())
            .map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)
    })
}

/// Writes samples already in file order (rows south first, little-endian).
fn write_r16(path: &Path, samples: &[[u8; 2]]) -> std::io::Result<()> {
    crate::output::write_atomically(path, |w| w.write_all(samples.as_flattened()))
}

/// GeoKey ids (GeoTIFF 1.1, OGC 19-008r4).
mod geokey {
    pub const MODEL_TYPE: u16 = 1024;
    pub const RASTER_TYPE: u16 = 1025;
    pub const CITATION: u16 = 1026;
    pub const PROJ_LINEAR_UNITS: u16 = 3076;
    pub const USER_DEFINED: u16 = 32_767;
    pub const PIXEL_IS_AREA: u16 = 1;
    pub const METRE: u16 = 9001;
    /// The tag that holds ASCII key values.
    pub const ASCII_PARAMS_TAG: u16 = 34_737;
}

/// The GeoKey directory and its ASCII parameters for the local metric CRS.
fn geokeys() -> (Vec<u16>, String) {
    use geokey::*;
    let citation = format!("{CRS_CITATION}|");
    let keys: [[u16; 4]; 4] = [
        [MODEL_TYPE, 0, 1, USER_DEFINED],
        [RASTER_TYPE, 0, 1, PIXEL_IS_AREA],
        [CITATION, ASCII_PARAMS_TAG, citation.len() as u16, 0],
        [PROJ_LINEAR_UNITS, 0, 1, METRE],
    ];
    let mut dir = vec![1, 1, 1, keys.len() as u16];
    dir.extend(keys.iter().flatten());
    (dir, citation)
}

fn write_tiff(path: &Path, grid: &HeightGrid) -> std::io::Result<()> {
    let bytes = (grid.side as u64).pow(2) * 4;
    crate::output::write_atomically(path, |w: &mut BufWriter<&mut File>| {
        if bytes < 0xE000_0000 {
            let enc = tiff::encoder::TiffEncoder::new(w).map_err(std::io::Error::other)?;
            tiff_image(enc, grid)
        } else {
            let enc = tiff::encoder::TiffEncoder::new_big(w).map_err(std::io::Error::other)?;
            tiff_image(enc, grid)
        }
    })
}

fn tiff_image<W: Write + Seek, K: tiff::encoder::TiffKind>(
    mut enc: tiff::encoder::TiffEncoder<W, K>,
    grid: &HeightGrid,
) -> std::io::Result<()> {
    use tiff::encoder::colortype::Gray32Float;
    use tiff::tags::Tag;
    let side = u32::try_from(grid.side).map_err(std::io::Error::other)?;
    let mut image = enc
        .new_image::<Gray32Float>(side, side)
        .map_err(std::io::Error::other)?;
    let d = grid.spacing_m;
    let [e0, n0] = grid.first_sample_m;
    let (keys, citation) = geokeys();
    let dir = image.encoder();
    let tags: [(Tag, &[f64]); 2] = [
        (Tag::ModelPixelScaleTag, &[d, d, 0.0]),
        // raster (0, 0) is the north-west corner of the first sample (PixelIsArea)
        (
            Tag::ModelTiepointTag,
            &[0.0, 0.0, 0.0, e0 - d / 2.0, n0 + d / 2.0, 0.0],
        ),
    ];
    for (tag, value) in tags {
        dir.write_tag(tag, value).map_err(std::io::Error::other)?;
    }
    dir.write_tag(Tag::GeoKeyDirectoryTag, &keys[..])
        .map_err(std::io::Error::other)?;
    dir.write_tag(Tag::GeoAsciiParamsTag, citation.as_str())
        .map_err(std::io::Error::other)?;
    image
        .write_data(&grid.metres)
        .map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bilinear_keeps_a_plane_and_the_corners() {
        let side = 5;
        let plane: Vec<f32> = (0..side * side)
            .map(|i| (i % side) as f32 * 2.0 + (i / side) as f32 * 3.0)
            .collect();
        let out = resample_bilinear(&plane, side, 9);
        for j in 0..9 {
            for i in 0..9 {
                let want = i as f32 * 0.5 * 2.0 + j as f32 * 0.5 * 3.0;
                assert!((out[j * 9 + i] - want).abs() < 1e-5);
            }
        }
        assert_eq!(out[0], plane[0]);
        assert_eq!(out[80], plane[24]);
    }

    #[test]
    fn quantising_spans_the_whole_range_within_half_a_step() {
        let m = [-12.5f32, 0.0, 3.25, 420.0];
        let q = quantiser(&m);
        assert_eq!(q.value(m[0]), 0);
        assert_eq!(q.value(m[3]), u16::MAX);
        for m in m {
            let back = q.min_m + f64::from(q.value(m)) * q.metres_per_unit();
            assert!((back - f64::from(m)).abs() <= q.metres_per_unit() / 2.0 + 1e-9);
        }
        // a flat map quantises to zeros and a zero step
        let flat = quantiser(&[5.0; 4]);
        assert_eq!(flat.value(5.0), 0);
        assert_eq!(flat.metres_per_unit(), 0.0);
    }

    #[test]
    fn the_geokey_directory_counts_its_keys() {
        let (dir, citation) = geokeys();
        assert_eq!(dir[3] as usize * 4 + 4, dir.len());
        assert!(citation.ends_with('|'));
        // keys sorted by id, as GeoTIFF requires
        let ids: Vec<u16> = dir[4..].chunks(4).map(|k| k[0]).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }
}
