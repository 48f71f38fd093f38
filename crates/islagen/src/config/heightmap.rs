//! A heightmap the land is made from (`islagen --heightmap FILE`): a real DEM or a hand-made
//! surface in place of the seed's island.
//!
//! The raster (a float GeoTIFF of metres, or a 16-bit PNG whose black and white stand at a
//! given range) is stretched over the whole world, 8 192 m a side at every MapSize, and read in
//! normalised coordinates, so a preview at 512 shows the 8192 world. Its samples become metres
//! above sea: a float's as stored (times `--heightmap-scale`), an integer's across the range
//! given, or the range its sidecar `FILE.json` records (islagen's own heightmap export writes
//! one), so an exported world reads back as it was.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::formats::raster::{Raster, RasterError, SampleType};

/// Heights a heightmap may give, metres above sea: beyond them a sample is a no-data value or a
/// wrong unit, not ground.
pub const HEIGHT_RANGE_M: [f32; 2] = [-2000.0, 2000.0];

/// A heightmap, read and checked.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Heightmap {
    /// The file.
    pub path: PathBuf,
    /// Its samples.
    #[serde(skip)]
    pub raster: Arc<Raster>,
    /// Metres above sea of a sample `s`: `offset_m + scale_m × s`.
    pub offset_m: f32,
    /// See `offset_m`.
    pub scale_m: f32,
    /// SHA-256 (hex) of the file: what a world records of it.
    pub sha256: String,
}

/// Why a heightmap was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HeightmapError {
    /// Not a raster islagen reads.
    #[error("heightmap: {0}")]
    Read(#[from] RasterError),
    /// Read, but breaks a rule.
    #[error("heightmap {}: {rule}", path.display())]
    Rule {
        /// The file.
        path: PathBuf,
        /// The rule it breaks.
        rule: String,
    },
}

impl Heightmap {
    /// Reads `path`. `range` is the metres at black and white of an integer raster (else its
    /// sidecar's, else refused); `scale` multiplies every height (a float's metres, or the
    /// range). Without a `scale`, a GeoTIFF that says its pixel size is scaled by 8 192 m over
    /// its own width in metres, so its slopes stay as they were on the 8 192 m world (1 for
    /// islagen's own export); any other raster by 1.
    pub fn read(
        path: &Path,
        range: Option<[f32; 2]>,
        scale: Option<f32>,
    ) -> Result<Heightmap, HeightmapError> {
        let raster = Raster::read(path)?;
        let scale = scale.unwrap_or_else(|| match raster.pixel_size_m {
            Some((px, _)) if px > 0.0 => {
                (f64::from(crate::units::WORLD_SIZE_M) / (px * raster.width as f64)) as f32
            }
            _ => 1.0,
        });
        let rule = |rule: String| HeightmapError::Rule {
            path: path.to_path_buf(),
            rule,
        };
        let float = matches!(raster.sample, SampleType::F32 | SampleType::F64);
        let (offset_m, scale_m) = match range {
            Some(_) if float => {
                return Err(rule(
                    "its samples are metres already: a range is for integer samples".into(),
                ))
            }
            None if float => (0.0, scale),
            _ => match range.or_else(|| sidecar_range(path)) {
                Some([lo, hi]) if lo < hi => (lo * scale, (hi - lo) * scale),
                Some([lo, hi]) => {
                    return Err(rule(format!("its range {lo} to {hi} m is empty")));
                }
                None => {
                    return Err(rule(
                        "integer samples need the metres at black and white: \
                         --heightmap-range MIN,MAX, or the FILE.json sidecar islagen's \
                         heightmap export writes"
                            .into(),
                    ))
                }
            },
        };
        let metres = |s: f32| offset_m + scale_m * s;
        let (lo, hi) = (raster.values.iter()).fold((f32::MAX, f32::MIN), |(a, b), &s| {
            (a.min(metres(s)), b.max(metres(s)))
        });
        let [floor, ceiling] = HEIGHT_RANGE_M;
        if lo < floor || hi > ceiling {
            return Err(rule(format!(
                "its heights run from {lo:.1} to {hi:.1} m; a heightmap stays within {floor} to \
                 {ceiling} m of sea level (a no-data value, or a wrong unit or scale?)"
            )));
        }
        if hi <= 0.0 {
            return Err(rule(format!(
                "no sample stands above sea level (the highest is {hi:.1} m)"
            )));
        }
        let sha256 = raster.sha256.clone();
        Ok(Heightmap {
            path: path.to_path_buf(),
            raster: Arc::new(raster),
            offset_m,
            scale_m,
            sha256,
        })
    }

    /// Metres above sea at the normalised position (u east, v south), Catmull-Rom between the
    /// samples.
    pub fn metres_at(&self, u: f32, v: f32) -> f32 {
        self.offset_m + self.scale_m * self.raster.sample(u, v)
    }
}

/// The `min_m` and `max_m` of the sidecar (`FILE.json`) islagen's heightmap export writes beside
/// `path`, if there is one.
fn sidecar_range(path: &Path) -> Option<[f32; 2]> {
    let mut name = path.file_name()?.to_os_string();
    name.push(".json");
    let text = std::fs::read_to_string(path.with_file_name(name)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let m = |k: &str| v.get(k)?.as_f64().map(|x| x as f32);
    Some([m("min_m")?, m("max_m")?])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A float GeoTIFF of `side` pixels of `pixel_m` metres each, every sample `metres`.
    fn dem(path: &Path, side: u32, pixel_m: f64, metres: f32) {
        use tiff::encoder::{colortype, TiffEncoder};
        let mut enc = TiffEncoder::new(std::fs::File::create(path).unwrap()).unwrap();
        let mut img = enc.new_image::<colortype::Gray32Float>(side, side).unwrap();
        img.encoder()
            .write_tag(
                tiff::tags::Tag::ModelPixelScaleTag,
                &[pixel_m, pixel_m, 0.0][..],
            )
            .unwrap();
        let data = vec![metres; (side * side) as usize];
        img.write_data(&data).unwrap();
    }

    /// A DEM twice the world's width is scaled by a half (its slopes kept), one the world's
    /// width by 1; a scale given wins.
    #[test]
    fn a_geotiffs_pixel_size_scales_its_heights_to_keep_its_slopes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dem.tif");
        dem(&path, 64, 256.0, 100.0); // 16 384 m across
        let h = Heightmap::read(&path, None, None).unwrap();
        assert_eq!((h.offset_m, h.scale_m), (0.0, 0.5));
        assert_eq!(h.metres_at(0.5, 0.5), 50.0);
        dem(&path, 64, 128.0, 100.0); // the world's 8 192 m
        assert_eq!(Heightmap::read(&path, None, None).unwrap().scale_m, 1.0);
        assert_eq!(
            Heightmap::read(&path, None, Some(2.0)).unwrap().scale_m,
            2.0
        );
    }
}
