//! Times the snapshots of a blueprint, for `BENCHMARKS.md`.
//!
//! `cargo run --release -p islagen-tools --example snapshot_bench -- FILE.dat [OUT_DIR] [MODE]`
//!
//! - `each` (the default): one picture at a time, for each encoding tried — the build (the whole
//!   picture filled in parallel), the encoding alone (one thread, from the held picture, into
//!   memory), the streamed write as the pipeline does it (fill and encode overlapped, to a file)
//!   and the file's size;
//! - `stage`: the five pictures streamed side by side, as the pipeline's `snapshots` stage
//!   writes them (without the blueprint writes beside), wall and CPU time;
//! - `fill`: each picture's fill alone, one thread (the fastest of five passes);
//! - `flate2`: the height picture, Up-filtered, deflated by `flate2` (zlib's levels, raw
//!   streams ended by a sync flush, as independent strips would be) in one thread and in two
//!   strips side by side — the parallel-deflate alternative to `png`'s fdeflate.

use std::time::Instant;

use islagen::blueprint::read_file;
use islagen::render::{self, Encoding, Rows};
use islagen::sea::{SeaLevel, SeaModel};
use png::{DeflateCompression as Deflate, Filter};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or_else(|| {
        anyhow::anyhow!("usage: snapshot_bench FILE.dat [OUT_DIR] [each|stage|fill|flate2]")
    })?;
    let out = std::path::PathBuf::from(args.get(2).map_or("target/snapshot-bench", String::as_str));
    let mode = args.get(3).map_or("each", String::as_str);
    std::fs::create_dir_all(&out)?;
    let bp = read_file(path.as_ref())?.blueprint;
    let sea = SeaLevel::new(SeaModel::Flat(0.15), bp.side());
    let bodies = bp.water_bodies.clone().unwrap_or_default();
    let ids = bp.water_ids.clone().unwrap_or_default();
    let t = Instant::now();
    let height = render::HeightRows::new(bp.heights.view(), &sea);
    let water = render::WaterRows::new(ids.view(), &bodies);
    let biomes = render::BiomeRows::new(bp.biomes.view());
    let towns = render::Painted::towns(&biomes, &bp.towns);
    let roads = render::Painted::roads(&biomes, &bp.roads, &bp.towns);
    let pictures: Vec<(&str, &dyn Rows)> = vec![
        ("0_height", &height),
        ("0_water", &water),
        ("1_biomes", &biomes),
        ("2_towns", &towns),
        ("3_roads", &roads),
    ];
    println!("sources (overlays) {:.3} s", t.elapsed().as_secs_f64());
    match mode {
        "stage" => {
            let cpu = cpu_seconds();
            let t = Instant::now();
            let paths: Vec<_> = pictures
                .iter()
                .map(|(name, _)| out.join(format!("{name}.png")))
                .collect();
            let outputs: Vec<render::Output> = pictures
                .iter()
                .zip(&paths)
                .map(|((_, picture), path)| render::Output {
                    path,
                    picture: *picture,
                    encoding: Encoding::of(*picture),
                })
                .collect();
            let sizes = render::write_pngs(&outputs);
            let wall = t.elapsed().as_secs_f64();
            let bytes: u64 = sizes.into_iter().sum::<std::io::Result<u64>>()?;
            let cpu = cpu_seconds() - cpu;
            println!("stage\t{wall:.3} s\tcpu {cpu:.3} s\t{bytes} bytes");
        }
        "flate2" => {
            let (w, h) = height.size();
            let row = w * 3;
            let mut filtered = Vec::with_capacity((row + 1) * h);
            let mut band = vec![0u8; 256 * row];
            let mut prev = vec![0u8; row];
            for y in (0..h).step_by(256) {
                let band = &mut band[..256.min(h - y) * row];
                height.fill(y, band);
                for line in band.chunks_exact(row) {
                    filtered.push(2);
                    filtered.extend(line.iter().zip(&prev).map(|(a, b)| a.wrapping_sub(*b)));
                    prev.copy_from_slice(line);
                }
            }
            for level in [1, 2, 3] {
                let deflate = |data: &[u8]| {
                    let mut c = flate2::Compress::new(flate2::Compression::new(level), false);
                    let mut out = Vec::with_capacity(data.len() / 2);
                    c.compress_vec(data, &mut out, flate2::FlushCompress::Sync)
                        .map(|_| out.len())
                };
                let t = Instant::now();
                let one = deflate(&filtered)?;
                let single = t.elapsed().as_secs_f64();
                let half = (h / 2) * (row + 1);
                let t = Instant::now();
                let (a, b) =
                    rayon::join(|| deflate(&filtered[..half]), || deflate(&filtered[half..]));
                let strips = t.elapsed().as_secs_f64();
                let two = a? + b?;
                println!(
                    "0_height\tflate2 level {level}\tone thread {single:.3} s, {one} bytes\ttwo strips {strips:.3} s, {two} bytes"
                );
            }
        }
        "fill" => {
            // One thread, bands of 256 rows, the fastest of five passes.
            for (name, pic) in &pictures {
                let mut band = vec![0u8; 256 * pic.row_bytes()];
                let h = pic.size().1;
                let best = (0..5)
                    .map(|_| {
                        let t = Instant::now();
                        for y in (0..h).step_by(256) {
                            pic.fill(y, &mut band[..256.min(h - y) * pic.row_bytes()]);
                        }
                        t.elapsed().as_secs_f64()
                    })
                    .fold(f64::INFINITY, f64::min);
                println!("{name}\tfill one thread {best:.3} s");
            }
        }
        _ => {
            for (name, pic) in &pictures {
                let t = Instant::now();
                let held = render::fill_all(*pic);
                let build = t.elapsed().as_secs_f64();
                let (w, h) = pic.size();
                let held: Box<dyn Rows> = match pic.palette() {
                    Some(p) => Box::new(render::Indexed {
                        width: w,
                        height: h,
                        index: held,
                        palette: p.to_vec(),
                    }),
                    None => Box::new(render::Image {
                        width: w,
                        height: h,
                        rgb: held,
                    }),
                };
                for (label, encoding) in encodings(pic.palette().is_some()) {
                    let t = Instant::now();
                    let mut bytes = Vec::new();
                    render::encode(&mut bytes, held.as_ref(), encoding)?;
                    let encode = t.elapsed().as_secs_f64();
                    let t = Instant::now();
                    let file = out.join(format!("{name}.png"));
                    let output = render::Output {
                        path: &file,
                        picture: *pic,
                        encoding,
                    };
                    for written in render::write_pngs(&[output]) {
                        written?;
                    }
                    let streamed = t.elapsed().as_secs_f64();
                    println!(
                        "{name}\t{label}\tbuild {build:.3} s\tencode {encode:.3} s\tstreamed {streamed:.3} s\t{} bytes",
                        bytes.len()
                    );
                }
            }
        }
    }
    Ok(())
}

/// User and system CPU seconds of the whole process so far.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// The encodings tried: the chosen one first.
fn encodings(palette: bool) -> Vec<(String, Encoding)> {
    let chosen = if palette {
        Encoding::PALETTE
    } else {
        Encoding::RGB
    };
    let mut tried = vec![("chosen".to_string(), chosen)];
    let filters = [
        ("none", Filter::NoFilter),
        ("sub", Filter::Sub),
        ("up", Filter::Up),
        ("paeth", Filter::Paeth),
        ("adaptive", Filter::Adaptive),
    ];
    for (deflate_label, deflate) in [
        ("fdeflate", Deflate::FdeflateUltraFast),
        ("zlib-1", Deflate::Level(1)),
        ("zlib-6", Deflate::Level(6)),
    ] {
        for (filter_label, filter) in filters {
            let zlib = !matches!(deflate, Deflate::FdeflateUltraFast);
            if zlib && !matches!(filter, Filter::Up | Filter::Adaptive) {
                continue;
            }
            tried.push((
                format!("{deflate_label}/{filter_label}"),
                Encoding { deflate, filter },
            ));
        }
    }
    tried
}
