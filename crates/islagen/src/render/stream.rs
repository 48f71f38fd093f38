//! Writing [`Rows`] pictures as PNGs a band of rows at a time, several side by side. A zlib
//! stream is sequential, so each picture has an encoder thread of its own running `png`'s
//! streaming writer, while the calling thread fills the next band of every picture in parallel
//! (rayon, on the current pool) and hands the bands over. No whole picture is held: a picture
//! has at most [`QUEUE`] + 2 bands of [`STREAM_ROWS`] rows at a time (one encoding, the queued
//! ones, one filling). Each file's bytes depend on its picture alone, not on the threads.
//!
//! The encoding ([`Encoding`]) was chosen by measurement at MapSize 8192 (BENCHMARKS.md,
//! "Snapshots at MapSize 8192").

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::mpsc;

use rayon::prelude::*;

use super::rows::{fill_par, paint_par, Rows};

/// Rows a streamed band holds.
const STREAM_ROWS: usize = 256;

/// Bytes of image data per IDAT chunk.
const IDAT_BYTES: usize = 1 << 20;

/// How a picture's rows are filtered and deflated.
#[derive(Clone, Copy, Debug)]
pub struct Encoding {
    /// The DEFLATE compressor.
    pub deflate: png::DeflateCompression,
    /// The row filter.
    pub filter: png::Filter,
}

impl Encoding {
    /// The snapshots' encoding of RGB pictures, fdeflate after the Up filter: the fastest
    /// measured (the 8192 height picture's 201 MB of rows in 0.30 s on one thread), 7 % larger
    /// than after the adaptive filter (32.1 against 30.1 MB, 0.36 s); zlib's level 1 takes twice
    /// the time for a larger file (BENCHMARKS.md).
    pub const RGB: Encoding = Encoding {
        deflate: png::DeflateCompression::FdeflateUltraFast,
        filter: png::Filter::Up,
    };
    /// The snapshots' encoding of palette pictures, fdeflate after the Up filter: the adaptive
    /// filter's size at half its time (0.5 MB in 0.017 s at 8192); zlib's level 6 halves the
    /// size for seven times the time (BENCHMARKS.md).
    pub const PALETTE: Encoding = Encoding {
        deflate: png::DeflateCompression::FdeflateUltraFast,
        filter: png::Filter::Up,
    };

    /// The snapshots' encoding of `pic`.
    pub fn of(pic: &(impl Rows + ?Sized)) -> Encoding {
        match pic.palette() {
            Some(_) => Encoding::PALETTE,
            None => Encoding::RGB,
        }
    }
}

/// A picture to write and where.
#[derive(Clone, Copy)]
pub struct Output<'a> {
    /// The file.
    pub path: &'a Path,
    /// The picture.
    pub picture: &'a dyn Rows,
    /// Its encoding.
    pub encoding: Encoding,
}

/// Bands a picture's encoder may have waiting.
const QUEUE: usize = 2;

/// Writes every output as an 8-bit RGB or palette PNG, atomically, side by side (module docs);
/// returns each file's size in bytes, in order.
pub fn write_pngs(outputs: &[Output<'_>]) -> Vec<std::io::Result<u64>> {
    std::thread::scope(|scope| {
        let mut feeds = Vec::with_capacity(outputs.len());
        let mut encoders = Vec::with_capacity(outputs.len());
        for (i, out) in outputs.iter().enumerate() {
            let (band_tx, band_rx) = mpsc::sync_channel::<Vec<u8>>(QUEUE);
            let (spare_tx, spare_rx) = mpsc::channel::<Vec<u8>>();
            let encoder = std::thread::Builder::new()
                .name(format!("png-encoder-{i}"))
                .spawn_scoped(scope, move || write_streamed(out, band_rx, spare_tx));
            encoders.push(encoder);
            feeds.push(Some((band_tx, spare_rx)));
        }
        // The output whose band each output's band can start from (a base that is written too).
        let base_of: Vec<Option<usize>> = outputs
            .iter()
            .map(|o| {
                let base = o.picture.base()?;
                outputs
                    .iter()
                    .position(|b| std::ptr::addr_eq(b.picture, base))
            })
            .collect();
        let height = outputs.iter().map(|o| o.picture.size().1).max();
        let mut y = 0;
        while y < height.unwrap_or(0) {
            // A band for every picture still taking rows, in a buffer its encoder is done with;
            // the pictures painted over another's band after the others.
            let (mut filled, mut painted) = (Vec::new(), Vec::new());
            for (i, feed) in feeds.iter().enumerate() {
                let pic = outputs[i].picture;
                let rows = STREAM_ROWS.min(pic.size().1.saturating_sub(y));
                if let (Some((_, spare)), true) = (feed, rows > 0) {
                    let mut band = spare.try_recv().unwrap_or_default();
                    band.resize(rows * pic.row_bytes(), 0);
                    match base_of[i] {
                        Some(_) => painted.push((i, band)),
                        None => filled.push((i, band)),
                    }
                }
            }
            filled
                .par_iter_mut()
                .for_each(|(i, band)| fill_par(outputs[*i].picture, y, band));
            painted.par_iter_mut().for_each(|(i, band)| {
                let pic = outputs[*i].picture;
                match filled.iter().find(|(j, _)| Some(*j) == base_of[*i]) {
                    Some((_, base)) if base.len() == band.len() => {
                        band.copy_from_slice(base);
                        paint_par(pic, y, band);
                    }
                    // The base's encoder has stopped: no band of it to start from.
                    _ => fill_par(pic, y, band),
                }
            });
            for (i, band) in filled.into_iter().chain(painted) {
                // A closed feed is an encoder that failed: its error comes back from `join`.
                if let Some((tx, _)) = &feeds[i] {
                    if tx.send(band).is_err() {
                        feeds[i] = None;
                    }
                }
            }
            y += STREAM_ROWS;
        }
        // Closing the feeds tells the encoders the pictures are complete.
        drop(feeds);
        encoders
            .into_iter()
            .map(|encoder| match encoder.map(|e| e.join()) {
                Ok(Ok(written)) => written,
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                Err(cannot_start) => Err(cannot_start),
            })
            .collect()
    })
}

/// One encoder thread: writes `out` from the bands arriving on `bands`, handing each buffer
/// back on `spare`.
fn write_streamed(
    out: &Output<'_>,
    bands: mpsc::Receiver<Vec<u8>>,
    spare: mpsc::Sender<Vec<u8>>,
) -> std::io::Result<u64> {
    crate::output::write_atomically(out.path, |w: &mut BufWriter<&mut File>| {
        let mut writer = start(w, out.picture, out.encoding).map_err(std::io::Error::other)?;
        let mut stream = writer
            .stream_writer_with_size(IDAT_BYTES)
            .map_err(std::io::Error::other)?;
        for band in bands {
            stream.write_all(&band)?;
            // The filling side may have finished already; the buffer is then simply dropped.
            let _ = spare.send(band);
        }
        // Fails unless every row arrived.
        stream.finish().map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)
    })?;
    Ok(std::fs::metadata(out.path)?.len())
}

/// Writes `pic` as an 8-bit RGB or palette PNG, atomically, in the snapshots' encoding;
/// returns the file's size in bytes.
pub fn write_rows_png(path: &Path, pic: &dyn Rows) -> std::io::Result<u64> {
    let out = Output {
        path,
        picture: pic,
        encoding: Encoding::of(pic),
    };
    // One output, one result.
    write_pngs(&[out]).pop().unwrap_or(Ok(0))
}

/// Encodes `pic` into `w` on this thread, filling and encoding one band after the other (to
/// time the encoder alone on a held picture, or to write into memory).
pub fn encode<W: Write>(
    w: W,
    pic: &(impl Rows + ?Sized),
    encoding: Encoding,
) -> Result<(), png::EncodingError> {
    let (_, height) = pic.size();
    let mut writer = start(w, pic, encoding)?;
    let mut stream = writer.stream_writer_with_size(IDAT_BYTES)?;
    let row = pic.row_bytes();
    let mut band = vec![0u8; STREAM_ROWS.min(height) * row];
    for y in (0..height).step_by(STREAM_ROWS) {
        let band = &mut band[..STREAM_ROWS.min(height - y) * row];
        pic.fill(y, band);
        stream.write_all(band)?;
    }
    stream.finish()?;
    writer.finish()
}

/// The PNG header of `pic` in `encoding`.
fn start<W: Write>(
    w: W,
    pic: &(impl Rows + ?Sized),
    encoding: Encoding,
) -> Result<png::Writer<W>, png::EncodingError> {
    let (width, height) = pic.size();
    let mut enc = png::Encoder::new(w, width as u32, height as u32);
    enc.set_depth(png::BitDepth::Eight);
    match pic.palette() {
        Some(palette) => {
            enc.set_color(png::ColorType::Indexed);
            enc.set_palette(palette.concat());
        }
        None => enc.set_color(png::ColorType::Rgb),
    }
    enc.set_deflate_compression(encoding.deflate);
    enc.set_filter(encoding.filter);
    enc.write_header()
}
