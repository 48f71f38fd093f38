//! One-band rasters a designer brings: painted masks and heightmaps, as 8- or 16-bit grayscale
//! PNG or a one-band GeoTIFF (8/16/32-bit integers or 32/64-bit floats), read with the `png`
//! and `tiff` crates and resampled smoothly onto any map.
//!
//! **Orientation.** Column 0 is west and row 0 is north, as the heightmap export writes them
//! (`exports::heightmap`): raster pixel (column c, row r) lies at the normalised map position
//! u = (c + ½) / width east, v = (r + ½) / height south, and map pixel `[x, y]` of an N-pixel map
//! at ((x + ½) / N, (y + ½) / N). A raster that is not square is stretched to the square map
//! along its shorter side: its corners are the map's.
//!
//! **Values.** Integer samples read as fractions of their type's full range (u8 / 255, u16 /
//! 65 535, …), so an 8-bit and a 16-bit mask painted alike mean the same; float samples read as
//! they are (a float heightmap's metres). [`Raster::sample`] interpolates with a Catmull-Rom
//! cubic (C¹: no creases where a coarse mask meets a fine map), clamped to the range of the
//! 4 × 4 samples it reads, so it never overshoots a mask's 0 ..= 1.
//!
//! **Untrusted input.** The size is checked against [`MAX_PIXELS`] from the header, before any
//! sample is decoded; the TIFF decoder's own allocation limits hold too, and a panic inside it
//! (tiff 0.10.3 has one on an empty SampleFormat tag) is caught and refused as a decode error. A file that is not one
//! of these formats, has colour channels, no pixels or a NaN or infinite sample is refused with
//! a [`RasterError`] naming the file and the rule.

use std::path::{Path, PathBuf};

use ndarray::Array2;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

/// The most pixels a raster may have: 8192², 256 MiB as 32-bit samples.
pub const MAX_PIXELS: u64 = 8192 * 8192;

/// A one-band raster, row 0 north, column 0 west.
#[derive(Clone, Debug, PartialEq)]
pub struct Raster {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Samples, row after row (`row * width + column`): integer types as fractions of their
    /// full range, floats as stored.
    pub values: Vec<f32>,
    /// What the file stored.
    pub sample: SampleType,
    /// Metres per pixel (x, y) when a GeoTIFF says so (ModelPixelScaleTag).
    pub pixel_size_m: Option<(f64, f64)>,
    /// SHA-256 (hex) of the file's bytes: what a world records of the raster it was made from.
    pub sha256: String,
}

/// How the file stored its samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum SampleType {
    /// 8-bit unsigned integers.
    U8,
    /// 16-bit unsigned integers.
    U16,
    /// 32-bit unsigned integers.
    U32,
    /// 16-bit signed integers (a DEM's usual metres).
    I16,
    /// 32-bit floats.
    F32,
    /// 64-bit floats.
    F64,
}

/// Why a raster could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RasterError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The bytes are neither a PNG nor a TIFF.
    #[error("{}: not a PNG or a TIFF (the first bytes are neither signature)", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// The decoder refused the file.
    #[error("{}: not a readable {format}: {detail}", path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// "PNG" or "TIFF".
        format: &'static str,
        /// What the decoder said.
        detail: String,
    },
    /// The image has colour channels, an alpha channel or a palette.
    #[error("{}: {what}; a mask or heightmap is one grayscale band", path.display())]
    NotGrayscale {
        /// The file.
        path: PathBuf,
        /// What it has instead.
        what: String,
    },
    /// No pixels, or more than [`MAX_PIXELS`].
    #[error("{}: {width} × {height} pixels; a raster has 1 ..= {MAX_PIXELS} pixels (8192²)", path.display())]
    Size {
        /// The file.
        path: PathBuf,
        /// Columns.
        width: u64,
        /// Rows.
        height: u64,
    },
    /// A sample is NaN or infinite.
    #[error("{}: the sample at column {column}, row {row} is {value}; every sample must be a finite number", path.display())]
    NotFinite {
        /// The file.
        path: PathBuf,
        /// Its column.
        column: usize,
        /// Its row.
        row: usize,
        /// What it is.
        value: f32,
    },
}

impl Raster {
    /// Reads the raster at `path` (PNG or TIFF, told by its first bytes).
    pub fn read(path: &Path) -> Result<Raster, RasterError> {
        let bytes = std::fs::read(path).map_err(|source| RasterError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Raster::from_bytes(&bytes, path)
    }

    /// Reads a raster from `bytes`; `path` names it in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Raster, RasterError> {
        let mut raster = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            read_png(bytes, path)?
        } else if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
            // tiff 0.10.3 indexes an empty SampleFormat tag (decoder/image.rs:153) and panics on
            // such a header; that panic is this file's decode error, not the program's end.
            std::panic::catch_unwind(|| read_tiff(bytes, path)).unwrap_or_else(|_| {
                Err(RasterError::Decode {
                    path: path.to_path_buf(),
                    format: "TIFF",
                    detail: "malformed header (the decoder failed on it)".into(),
                })
            })?
        } else {
            return Err(RasterError::UnknownFormat {
                path: path.to_path_buf(),
            });
        };
        if let Some(i) = raster.values.iter().position(|v| !v.is_finite()) {
            return Err(RasterError::NotFinite {
                path: path.to_path_buf(),
                column: i % raster.width,
                row: i / raster.width,
                value: raster.values[i],
            });
        }
        raster.sha256 = sha256_hex(bytes);
        Ok(raster)
    }

    /// The value at the normalised position (`u` east, `v` south, each 0 ..= 1 across the
    /// raster): Catmull-Rom between the pixel centres, clamped to the 4 × 4 samples' range; the
    /// edge pixels' values beyond their centres.
    pub fn sample(&self, u: f32, v: f32) -> f32 {
        let px = u * self.width as f32 - 0.5;
        let py = v * self.height as f32 - 0.5;
        let (x0, y0) = (px.floor(), py.floor());
        let (tx, ty) = (px - x0, py - y0);
        let (wx, wy) = (catmull_rom(tx), catmull_rom(ty));
        let at = |c: isize, r: isize| {
            let c = c.clamp(0, self.width as isize - 1) as usize;
            let r = r.clamp(0, self.height as isize - 1) as usize;
            self.values[r * self.width + c]
        };
        let (mut sum, mut lo, mut hi) = (0.0, f32::INFINITY, f32::NEG_INFINITY);
        for (j, wyj) in wy.iter().enumerate() {
            let r = y0 as isize - 1 + j as isize;
            for (i, wxi) in wx.iter().enumerate() {
                let s = at(x0 as isize - 1 + i as isize, r);
                sum += wxi * wyj * s;
                lo = lo.min(s);
                hi = hi.max(s);
            }
        }
        sum.clamp(lo, hi)
    }

    /// The raster on a `side`-pixel square map, `[x, y]` with y = 0 north.
    pub fn resample(&self, side: usize) -> Array2<f32> {
        let s = side as f32;
        let values: Vec<f32> = (0..side * side)
            .into_par_iter()
            .map(|i| {
                let (x, y) = (i / side, i % side);
                self.sample((x as f32 + 0.5) / s, (y as f32 + 0.5) / s)
            })
            .collect();
        Array2::from_shape_vec((side, side), values).expect("side² values")
    }
}

/// The four Catmull-Rom weights at `t` in 0 ..= 1 between the second and third sample.
fn catmull_rom(t: f32) -> [f32; 4] {
    let (t2, t3) = (t * t, t * t * t);
    [
        0.5 * (-t3 + 2.0 * t2 - t),
        0.5 * (3.0 * t3 - 5.0 * t2 + 2.0),
        0.5 * (-3.0 * t3 + 4.0 * t2 + t),
        0.5 * (t3 - t2),
    ]
}

fn checked_size(path: &Path, width: u64, height: u64) -> Result<(usize, usize), RasterError> {
    if width == 0 || height == 0 || width.saturating_mul(height) > MAX_PIXELS {
        return Err(RasterError::Size {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    Ok((width as usize, height as usize))
}

fn read_png(bytes: &[u8], path: &Path) -> Result<Raster, RasterError> {
    let decode = |e: png::DecodingError| RasterError::Decode {
        path: path.to_path_buf(),
        format: "PNG",
        detail: e.to_string(),
    };
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    // 16-bit samples stay 16-bit; sub-byte grays widen to 8.
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(decode)?;
    let info = reader.info();
    let (width, height) = checked_size(path, u64::from(info.width), u64::from(info.height))?;
    if info.color_type != png::ColorType::Grayscale {
        return Err(RasterError::NotGrayscale {
            path: path.to_path_buf(),
            what: format!("a PNG of colour type {:?}", info.color_type),
        });
    }
    let mut buf = vec![0u8; reader.output_buffer_size().unwrap_or(0)];
    let frame = reader.next_frame(&mut buf).map_err(decode)?;
    let data = &buf[..frame.buffer_size()];
    let (values, sample) = match frame.bit_depth {
        png::BitDepth::Sixteen => (
            data.chunks_exact(2)
                .map(|b| f32::from(u16::from_be_bytes([b[0], b[1]])) / 65_535.0)
                .collect(),
            SampleType::U16,
        ),
        _ => (
            data.iter().map(|&b| f32::from(b) / 255.0).collect(),
            SampleType::U8,
        ),
    };
    Ok(Raster {
        width,
        height,
        values,
        sample,
        pixel_size_m: None,
        sha256: String::new(),
    })
}

fn read_tiff(bytes: &[u8], path: &Path) -> Result<Raster, RasterError> {
    use tiff::decoder::{Decoder, DecodingResult, Limits};
    let decode = |e: tiff::TiffError| RasterError::Decode {
        path: path.to_path_buf(),
        format: "TIFF",
        detail: e.to_string(),
    };
    let mut limits = Limits::default();
    limits.decoding_buffer_size = (MAX_PIXELS * 8) as usize;
    limits.intermediate_buffer_size = (MAX_PIXELS * 8) as usize;
    let mut decoder = Decoder::new(std::io::Cursor::new(bytes))
        .map_err(decode)?
        .with_limits(limits);
    let (w, h) = decoder.dimensions().map_err(decode)?;
    let (width, height) = checked_size(path, u64::from(w), u64::from(h))?;
    let colour = decoder.colortype().map_err(decode)?;
    if !matches!(colour, tiff::ColorType::Gray(_)) {
        return Err(RasterError::NotGrayscale {
            path: path.to_path_buf(),
            what: format!("a TIFF of colour type {colour:?}"),
        });
    }
    let pixel_size_m = decoder
        .get_tag_f64_vec(tiff::tags::Tag::ModelPixelScaleTag)
        .ok()
        .filter(|s| s.len() >= 2 && s[0] > 0.0 && s[1] > 0.0)
        .map(|s| (s[0], s[1]));
    let (values, sample): (Vec<f32>, SampleType) = match decoder.read_image().map_err(decode)? {
        DecodingResult::U8(v) => (
            v.iter().map(|&s| f32::from(s) / 255.0).collect(),
            SampleType::U8,
        ),
        DecodingResult::U16(v) => (
            v.iter().map(|&s| f32::from(s) / 65_535.0).collect(),
            SampleType::U16,
        ),
        DecodingResult::U32(v) => (
            v.iter()
                .map(|&s| (f64::from(s) / f64::from(u32::MAX)) as f32)
                .collect(),
            SampleType::U32,
        ),
        DecodingResult::I16(v) => (v.iter().map(|&s| f32::from(s)).collect(), SampleType::I16),
        DecodingResult::F32(v) => (v, SampleType::F32),
        DecodingResult::F64(v) => (v.iter().map(|&s| s as f32).collect(), SampleType::F64),
        other => {
            return Err(RasterError::NotGrayscale {
                path: path.to_path_buf(),
                what: format!(
                    "TIFF samples of an unsupported type ({})",
                    sample_name(&other)
                ),
            })
        }
    };
    if values.len() != width * height {
        return Err(RasterError::Decode {
            path: path.to_path_buf(),
            format: "TIFF",
            detail: format!("{} samples for {width} × {height} pixels", values.len()),
        });
    }
    Ok(Raster {
        width,
        height,
        values,
        sample,
        pixel_size_m,
        sha256: String::new(),
    })
}

fn sample_name(r: &tiff::decoder::DecodingResult) -> &'static str {
    use tiff::decoder::DecodingResult as D;
    match r {
        D::U64(_) => "u64",
        D::I8(_) => "i8",
        D::I32(_) => "i32",
        D::I64(_) => "i64",
        _ => "other",
    }
}

/// The SHA-256 of `bytes`, lowercase hex: what a world records of a file it was shaped by.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(
        width: u32,
        height: u32,
        depth: png::BitDepth,
        colour: png::ColorType,
        data: &[u8],
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let mut e = png::Encoder::new(&mut out, width, height);
        e.set_color(colour);
        e.set_depth(depth);
        e.write_header().unwrap().write_image_data(data).unwrap();
        out
    }

    #[test]
    fn eight_and_sixteen_bit_masks_read_as_the_same_fractions() {
        let p = Path::new("mask.png");
        let eight = png(
            2,
            1,
            png::BitDepth::Eight,
            png::ColorType::Grayscale,
            &[0, 255],
        );
        let sixteen = png(
            2,
            1,
            png::BitDepth::Sixteen,
            png::ColorType::Grayscale,
            &[0, 0, 255, 255],
        );
        let (a, b) = (
            Raster::from_bytes(&eight, p).unwrap(),
            Raster::from_bytes(&sixteen, p).unwrap(),
        );
        assert_eq!(
            (a.values.clone(), a.sample),
            (vec![0.0, 1.0], SampleType::U8)
        );
        assert_eq!(
            (b.values.clone(), b.sample),
            (vec![0.0, 1.0], SampleType::U16)
        );
        assert_eq!(a.sha256.len(), 64);
        assert_ne!(a.sha256, b.sha256);
    }

    #[test]
    fn colour_empty_foreign_and_oversized_files_are_refused_by_name() {
        let p = Path::new("painted/island.png");
        let rgb = png(1, 1, png::BitDepth::Eight, png::ColorType::Rgb, &[1, 2, 3]);
        let e = Raster::from_bytes(&rgb, p).unwrap_err();
        assert!(matches!(e, RasterError::NotGrayscale { .. }), "{e}");
        assert!(e.to_string().starts_with("painted/island.png: "), "{e}");
        let e = Raster::from_bytes(b"GIF89a", p).unwrap_err();
        assert!(matches!(e, RasterError::UnknownFormat { .. }), "{e}");
        let e = Raster::from_bytes(b"\x89PNG\r\n\x1a\n\0\0", p).unwrap_err();
        assert!(matches!(e, RasterError::Decode { .. }), "{e}");
        // A header claiming 65 536² pixels: refused before a sample is decoded.
        let mut huge = png(1, 1, png::BitDepth::Eight, png::ColorType::Grayscale, &[0]);
        huge[16..24].copy_from_slice(&[0, 1, 0, 0, 0, 1, 0, 0]);
        let crc = crc32(&huge[12..29]);
        huge[29..33].copy_from_slice(&crc.to_be_bytes());
        let e = Raster::from_bytes(&huge, p).unwrap_err();
        assert!(
            matches!(
                e,
                RasterError::Size {
                    width: 65_536,
                    height: 65_536,
                    ..
                }
            ),
            "{e}"
        );
    }

    /// PNG's CRC-32 (for the forged header above).
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    #[test]
    fn resampling_is_smooth_bounded_and_the_same_at_every_size() {
        // A 4 × 4 mask: land (1) in the west half, sea (0) in the east.
        let r = Raster {
            width: 4,
            height: 4,
            values: (0..16).map(|i| if i % 4 < 2 { 1.0 } else { 0.0 }).collect(),
            sample: SampleType::U8,
            pixel_size_m: None,
            sha256: String::new(),
        };
        for side in [256, 512, 1024] {
            let m = r.resample(side);
            assert!(
                m.iter().all(|v| (0.0..=1.0).contains(v)),
                "overshoot at {side}"
            );
            assert_eq!(m[[0, side / 2]], 1.0);
            assert_eq!(m[[side - 1, side / 2]], 0.0);
            // The coast lies at the middle at every size, falling monotonically west to east.
            let row: Vec<f32> = (0..side).map(|x| m[[x, 7 * side / 16]]).collect();
            assert!(row.windows(2).all(|w| w[1] <= w[0]));
            let half = row.iter().filter(|&&v| v >= 0.5).count();
            assert_eq!(half, side / 2, "at {side}");
        }
        // The same normalised position samples the same value on any map.
        let (a, b) = (r.resample(256), r.resample(1024));
        for x in 0..256 {
            assert!((a[[x, 100]] - b[[4 * x + 2, 402]]).abs() < 0.02, "{x}");
        }
    }

    #[test]
    fn a_float_tiff_reads_its_metres_and_pixel_size() {
        use tiff::encoder::{colortype, TiffEncoder};
        let mut bytes = std::io::Cursor::new(Vec::new());
        {
            let mut enc = TiffEncoder::new(&mut bytes).unwrap();
            let mut img = enc.new_image::<colortype::Gray32Float>(3, 2).unwrap();
            img.encoder()
                .write_tag(tiff::tags::Tag::ModelPixelScaleTag, &[4.0f64, 4.0, 0.0][..])
                .unwrap();
            img.write_data(&[0.0, 1.5, -2.0, 420.0, 7.25, 3.0]).unwrap();
        }
        let r = Raster::from_bytes(bytes.get_ref(), Path::new("dem.tif")).unwrap();
        assert_eq!((r.width, r.height, r.sample), (3, 2, SampleType::F32));
        assert_eq!(r.values, vec![0.0, 1.5, -2.0, 420.0, 7.25, 3.0]);
        assert_eq!(r.pixel_size_m, Some((4.0, 4.0)));
        let mut bytes = std::io::Cursor::new(Vec::new());
        {
            let mut enc = TiffEncoder::new(&mut bytes).unwrap();
            enc.write_image::<colortype::Gray32Float>(2, 1, &[1.0, f32::NAN])
                .unwrap();
        }
        let e = Raster::from_bytes(bytes.get_ref(), Path::new("dem.tif")).unwrap_err();
        assert!(
            matches!(
                e,
                RasterError::NotFinite {
                    column: 1,
                    row: 0,
                    ..
                }
            ),
            "{e}"
        );
    }

    /// Hostile bytes: every single-byte corruption of a small PNG and TIFF, and every truncation,
    /// is read or refused; none panics, and what is read resamples within its samples' range.
    #[test]
    fn corrupted_and_truncated_rasters_never_panic() {
        let mask = png(
            5,
            3,
            png::BitDepth::Sixteen,
            png::ColorType::Grayscale,
            &[7; 30],
        );
        let mut tif = std::io::Cursor::new(Vec::new());
        tiff::encoder::TiffEncoder::new(&mut tif)
            .unwrap()
            .write_image::<tiff::encoder::colortype::Gray16>(3, 2, &[1, 2, 3, 4, 5, 6])
            .unwrap();
        for good in [mask, tif.into_inner()] {
            for cut in 0..good.len() {
                crate::fuzzing::raster(&good[..cut]);
            }
            for i in 0..good.len() {
                for v in [0u8, 1, 0x7f, 0x80, 0xff] {
                    let mut bad = good.clone();
                    bad[i] = v;
                    crate::fuzzing::raster(&bad);
                }
            }
        }
    }
}
