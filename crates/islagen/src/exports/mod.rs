//! Exports for game engines and GIS: a world's heights, surface layers and vectors in the formats
//! Unity, Unreal, Godot, Blender and QGIS/GDAL read. Each export reads a [`Blueprint`] (any
//! readable v2 or v1 file) and writes its files atomically through [`crate::output`]:
//!
//! - [`heightmap`]: 16-bit grayscale PNG (Unreal landscape, Godot, Blender displacement), RAW
//!   16-bit little-endian `.r16` (Unity terrain), float32 GeoTIFF (GDAL, QGIS), each with a JSON
//!   sidecar mapping the file's values to metres; optional bilinear resampling to 2ⁿ + 1 sizes.
//! - [`splat`]: the biomes as weight maps packed four to an RGBA PNG (Unity terrain layers'
//!   splat/alpha maps; the RGBA splat maps of Godot terrain plugins such as HTerrain, and the
//!   input from which a Terrain3D control map is made), water, road and river masks, and a
//!   JSON legend.
//! - [`geojson`]: towns, roads, rivers, water bodies and the crater as GeoJSON in metres.
//!
//! # Orientation, one rule for every file
//!
//! The blueprint's grids are indexed `[x, y]`, x east, **y = 0 the northern edge** (the crater
//! sits on the north coast: `stages::sea` puts the legacy sea field's "north" at y = 0 and
//! `stages::crater` carves the crater there). Every image export (PNG16, GeoTIFF, splat maps,
//! masks) stores **row 0 = the northern edge, column 0 = the western edge**, the order image
//! tools, Unreal, Godot, Blender and GDAL show top-down, so an import shows the crater on the
//! north coast. The one exception is Unity's RAW (`.r16`), whose importer puts the file's first
//! row at terrain z = 0, the south edge: the `.r16` is written **south row first** so that
//! Unity (with "Flip Vertically" off) shows the crater at +z, north. Vectors use metres of a
//! local CRS: origin at the map's south-west corner, x east, y north
//! ([`Frame::metres`]).
//!
//! # Heights and sea level
//!
//! Every heightmap is in metres relative to the sea level of the blueprint, which is the WBTB
//! ocean's surface level (body 1; the legacy "field" sea model varies along y, and the blueprint
//! records only its value at the middle row there), else the TCRV curve's sea, else the
//! generator's default 0.15 raw ([`RecordedSea::of`]). Raw heights become metres as
//! `(raw − sea) × 251` in f32 ([`crate::units::METRES_PER_RAW`]).

pub mod geojson;
pub mod heightmap;
pub mod splat;

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::blueprint::Blueprint;
use crate::pipeline::Written;
pub use crate::sea::RecordedSea;
use crate::units::{metres_per_px, WORLD_SIZE_M};

pub use crate::pipeline::OutputError;

/// Why an export for engines and GIS failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// A file could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The blueprint cannot be exported as asked.
    #[error("cannot export: {0}")]
    Unsupported(#[from] Unsupported),
}

/// What about a blueprint or a request makes an export impossible.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Unsupported {
    /// The map has no pixels.
    #[error("the blueprint's MapSize is {0}")]
    EmptyMap(i32),
    /// A resample size outside 2 ..= 65 537.
    #[error("a resample size of {0}: the size must be 2 ..= 65537 (2ⁿ + 1 such as 4097 or 8193 for Unity and Unreal)")]
    ResampleSize(usize),
    /// A blur wider than the splat export's bound.
    #[error(
        "a blur {metres} m wide is {radius_px} px of radius at this MapSize; at most {max_px} px"
    )]
    Blur {
        /// The width asked for, metres.
        metres: f32,
        /// Its radius in pixels.
        radius_px: usize,
        /// The largest radius allowed.
        max_px: usize,
    },
    /// A negative or non-finite number where a width was asked for.
    #[error("{what} must be a finite number ≥ 0, got {value}")]
    NotAWidth {
        /// Which width ("the blur width", "the simplification tolerance").
        what: &'static str,
        /// The value given.
        value: f32,
    },
    /// A height that is NaN or infinite.
    #[error("HGTS holds {0} NaN or infinite heights; a heightmap needs finite ones")]
    NonFiniteHeights(u64),
    /// An export name `--export` does not know.
    #[error("unknown export {0:?}; accepted: {names}, all", names = ExportKind::names())]
    UnknownKind(String),
}

/// The map's frame: its size and the mapping from pixel coordinates to metres.
///
/// Pixel coordinates are continuous, `(u, v)` with pixel `(x, y)` covering `[x, x + 1] ×
/// [y, y + 1]` (its centre at `x + 0.5`, as TOWN, the roads and RIVR store positions), v
/// growing southward. Metres are the local CRS of every vector and GeoTIFF export:
/// `E = u × m`, `N = (MapSize − v) × m` with `m` metres per pixel, so the map is the square
/// `[0, 8192] × [0, 8192]` m, origin at its south-west corner, x east, y north.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Pixels a side.
    pub side: usize,
    /// Metres per pixel.
    pub metres_per_px: f64,
}

impl Frame {
    /// The frame of `bp`.
    pub fn of(bp: &Blueprint) -> Result<Frame, Unsupported> {
        let side = bp.side();
        if side == 0 || bp.heights.dim() != (side, side) {
            return Err(Unsupported::EmptyMap(bp.params.map_size));
        }
        Ok(Frame {
            side,
            metres_per_px: f64::from(metres_per_px(side)),
        })
    }

    /// Metres (east, north) of pixel coordinates `(u, v)`.
    pub fn metres(&self, u: f64, v: f64) -> [f64; 2] {
        [
            u * self.metres_per_px,
            (self.side as f64 - v) * self.metres_per_px,
        ]
    }

    /// The side in metres (always [`WORLD_SIZE_M`]).
    pub fn side_m(&self) -> f64 {
        f64::from(WORLD_SIZE_M)
    }
}

/// Rows per parallel band when a column-major grid is turned into image rows.
const BAND: usize = 64;

/// An image of `width × height` values in row order (row 0 = north), built from a function of
/// the blueprint's `(x, y)` in parallel bands of rows; each band reads every column's run of
/// contiguous `y`, which is how the `[x, y]` grids lie in memory.
pub(crate) fn rows<T: Copy + Default + Send>(
    width: usize,
    height: usize,
    value: impl Fn(usize, usize) -> T + Sync,
) -> Vec<T> {
    let mut out = vec![T::default(); width * height];
    if width == 0 {
        return out;
    }
    out.par_chunks_mut(width * BAND)
        .enumerate()
        .for_each(|(band, chunk)| {
            let y0 = band * BAND;
            let rows_here = chunk.len() / width;
            for x in 0..width {
                for dy in 0..rows_here {
                    chunk[dy * width + x] = value(x, y0 + dy);
                }
            }
        });
    out
}

/// An export that a generation or a sweep can write (`--export LIST`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExportKind {
    /// `heightmap`: the 16-bit PNG heightmap.
    Heightmap,
    /// `r16`: Unity's RAW 16-bit heightmap at the map's own size.
    R16,
    /// `tiff`: the float32 GeoTIFF.
    Tiff,
    /// `splat`: splat maps, masks and legend.
    Splat,
    /// `geojson`: the vectors.
    Geojson,
}

impl ExportKind {
    /// Every kind, in the order a generation writes them.
    pub const ALL: [ExportKind; 5] = [
        ExportKind::Heightmap,
        ExportKind::R16,
        ExportKind::Tiff,
        ExportKind::Splat,
        ExportKind::Geojson,
    ];

    /// The name `--export` takes.
    pub fn name(self) -> &'static str {
        match self {
            ExportKind::Heightmap => "heightmap",
            ExportKind::R16 => "r16",
            ExportKind::Tiff => "tiff",
            ExportKind::Splat => "splat",
            ExportKind::Geojson => "geojson",
        }
    }

    /// Every kind's name, comma-separated, in [`ExportKind::ALL`]'s order.
    pub fn names() -> String {
        ExportKind::ALL.map(ExportKind::name).join(", ")
    }

    /// Parses `--export`'s comma-separated list (`all` for every kind); sorted, no repeats.
    pub fn parse_list(list: &str) -> Result<Vec<ExportKind>, Unsupported> {
        let mut kinds = Vec::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if name == "all" {
                kinds.extend(ExportKind::ALL);
                continue;
            }
            match ExportKind::ALL.iter().find(|k| k.name() == name) {
                Some(k) => kinds.push(*k),
                None => return Err(Unsupported::UnknownKind(name.into())),
            }
        }
        kinds.sort();
        kinds.dedup();
        Ok(kinds)
    }
}

/// The folder a generation writes seed `seed`'s exports into, under its output folder.
pub fn folder_of(out: &Path, seed: i32) -> PathBuf {
    out.join(format!("Map_Seed_{seed}_exports"))
}

/// Writes the exports `kinds` of `bp` into `dir` (created if missing) under fixed names:
/// `height.png`, `height.r16`, `height.tif` (each with its `.json` sidecar), `splat/` and
/// `world.geojson`; the same bytes `islagen export …` writes with default options.
pub fn write_set(
    bp: &Blueprint,
    dir: &Path,
    kinds: &[ExportKind],
) -> Result<Vec<Written>, ExportError> {
    if kinds.is_empty() {
        return Ok(Vec::new());
    }
    std::fs::create_dir_all(dir).map_err(OutputError::io("creating", dir))?;
    crate::output::remove_stale_temps(dir).map_err(OutputError::io("cleaning", dir))?;
    let mut written = Vec::new();
    for kind in kinds {
        let files = match kind {
            ExportKind::Heightmap | ExportKind::R16 | ExportKind::Tiff => {
                let (format, name) = match kind {
                    ExportKind::Heightmap => (heightmap::HeightFormat::Png16, "height.png"),
                    ExportKind::R16 => (heightmap::HeightFormat::R16, "height.r16"),
                    _ => (heightmap::HeightFormat::Tiff, "height.tif"),
                };
                let path = dir.join(name);
                let sidecar = heightmap::export(bp, &path, format, None)?;
                vec![path.clone(), sidecar.sidecar_path(&path)]
            }
            ExportKind::Splat => splat::export(bp, &dir.join("splat"), 0.0)?.files,
            ExportKind::Geojson => {
                let path = dir.join("world.geojson");
                geojson::export(bp, &path, None)?;
                vec![path]
            }
        };
        for path in files {
            let bytes = std::fs::metadata(&path)
                .map_err(OutputError::io("reading the size of", &path))?
                .len();
            written.push(Written { path, bytes });
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_lists_parse_sorted_without_repeats() {
        assert_eq!(
            ExportKind::parse_list("geojson, heightmap,splat,heightmap").unwrap(),
            vec![
                ExportKind::Heightmap,
                ExportKind::Splat,
                ExportKind::Geojson
            ]
        );
        assert_eq!(
            ExportKind::parse_list("all").unwrap(),
            ExportKind::ALL.to_vec()
        );
        let e = ExportKind::parse_list("heightmap,obj").unwrap_err();
        assert_eq!(e, Unsupported::UnknownKind("obj".into()));
        assert_eq!(
            e.to_string(),
            "unknown export \"obj\"; accepted: heightmap, r16, tiff, splat, geojson, all"
        );
    }

    #[test]
    fn rows_put_north_first_and_west_left() {
        let img = rows(3, 130, |x, y| (x * 1000 + y) as u32);
        assert_eq!(img[0], 0);
        assert_eq!(img[2], 2000);
        assert_eq!(img[3 * 129 + 1], 1129);
    }

    #[test]
    fn the_frame_puts_the_origin_south_west_with_y_north() {
        let f = Frame {
            side: 1024,
            metres_per_px: 8.0,
        };
        assert_eq!(f.metres(0.0, 0.0), [0.0, 8192.0]);
        assert_eq!(f.metres(1024.0, 1024.0), [8192.0, 0.0]);
        assert_eq!(f.metres(0.5, 1023.5), [4.0, 4.0]);
    }
}
