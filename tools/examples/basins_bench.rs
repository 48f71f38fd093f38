//! Priority-flood timing on a generated world's final heights, for `scripts/bench-basins.sh`:
//! fills the map with the map edge as the outlet (RichDEM's convention) and with the ocean as
//! the outlet (the generator's, with the basin statistics; then again as `basins`, which holds
//! no filled surface, checked to give the same figures), three times each, and writes the
//! heights and the edge-outlet fill as raw little-endian f32 files (`[x][y]`, X outer) for
//! RichDEM to run on and be compared with, and the ocean as one byte a cell (`ocean.u8`, 1 =
//! ocean).
//!
//! `cargo run --release -p islagen-tools --example basins_bench -- [SIZE] [SEED] [DIR] [--reuse] [--previous]`
//!
//! `--reuse` reads `heights.f32` and `ocean.u8` from DIR instead of generating the world (they
//! must be of SIZE). `--previous` also times the single-queue fill this stage used before issue
//! 18 (kept here as the baseline) in the same run, and checks that both fills agree bit for bit
//! and that the statistics are the same.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::Path;
use std::time::Instant;

use ndarray::Array2;
use radix_heap::RadixHeapMap;
use rayon::prelude::*;

use islagen::config::Config;
use islagen::grid::bits::Bits;
use islagen::grid::{height_key, NEIGHBOURS};
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::stages::basins::{basin_stats, basins, fill_depressions, BasinStats, Outlets};
use islagen::stages::sea::Water;

#[global_allocator]
static ALLOC: islagen::memory::CountingAlloc = islagen::memory::CountingAlloc;

/// Runs `f`: its result, seconds, and the most heap it held above what was held before (MiB).
fn measured<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let before = islagen::memory::heap().map_or(0, |(now, _)| now);
    islagen::memory::reset_peak();
    let t = Instant::now();
    let out = f();
    let seconds = t.elapsed().as_secs_f64();
    let peak = islagen::memory::heap().map_or(0, |(_, peak)| peak);
    (
        out,
        seconds,
        peak.saturating_sub(before) as f64 / f64::from(1 << 20),
    )
}

fn write_bytes(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(bytes)?;
    f.flush()
}

fn read_bytes(path: &Path, len: usize) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(len);
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    anyhow::ensure!(
        bytes.len() == len,
        "{}: {} bytes, expected {len}",
        path.display(),
        bytes.len()
    );
    Ok(bytes)
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The heights and water of a world: generated, or read back from DIR.
fn world(size: usize, seed: i32, dir: &Path, reuse: bool) -> anyhow::Result<Inputs> {
    let (heights_path, ocean_path) = (dir.join("heights.f32"), dir.join("ocean.u8"));
    if reuse {
        let cells = size * size;
        let heights = read_bytes(&heights_path, cells * 4)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let water = read_bytes(&ocean_path, cells)?
            .into_iter()
            .map(|b| if b == 1 { Water::Ocean } else { Water::Dry })
            .collect();
        return Ok(Inputs {
            heights: Array2::from_shape_vec((size, size), heights)?,
            water: Array2::from_shape_vec((size, size), water)?,
        });
    }
    let mut config = Config::from_json("{}", "defaults")?.config;
    config.map_size = size as u32;
    let world = pipeline::generate(&config, seed, &Progress::hidden())?;
    let heights = world.blueprint.heights;
    write_bytes(
        &heights_path,
        &f32_bytes(heights.as_slice().expect("standard layout")),
    )?;
    let ocean: Vec<u8> = world
        .water
        .iter()
        .map(|&w| u8::from(w == Water::Ocean))
        .collect();
    write_bytes(&ocean_path, &ocean)?;
    Ok(Inputs {
        heights,
        water: world.water,
    })
}

struct Inputs {
    heights: Array2<f32>,
    water: Array2<Water>,
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let size: usize = positional
        .first()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8192);
    let seed: i32 = positional.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let dir = std::path::PathBuf::from(positional.get(2).map_or("target/bench-basins", |s| s));
    std::fs::create_dir_all(&dir)?;
    let Inputs { heights, water } = world(size, seed, &dir, flag("--reuse"))?;
    let heights = &heights;
    let previous = flag("--previous");

    let mut edge = None;
    for run in 1..=3 {
        let (filled, s, mib) = measured(|| fill_depressions(heights, Outlets::MapEdge));
        println!("islagen edge-outlet fill (heap +{mib:.0} MiB), run {run}: {s:.3} s");
        edge = Some(filled);
    }
    let edge = edge.expect("three runs");
    let mut ocean = None;
    for run in 1..=3 {
        let (filled, fill_s, mib) = measured(|| fill_depressions(heights, Outlets::Ocean(&water)));
        let (stats, stats_s, _) = measured(|| basin_stats(heights, &filled));
        println!(
            "islagen ocean-outlet fill (heap +{mib:.0} MiB), run {run}: {fill_s:.3} s \
             (+ statistics {stats_s:.3} s): {} basins",
            stats.basins
        );
        ocean = Some((filled, stats));
    }
    let (ocean, ocean_stats) = ocean.expect("three runs");
    for run in 1..=3 {
        let (stats, s, mib) = measured(|| basins(heights, Outlets::Ocean(&water)));
        println!(
            "islagen ocean-outlet basins without the filled surface (heap +{mib:.0} MiB), \
             run {run}: {s:.3} s"
        );
        anyhow::ensure!(
            stats == ocean_stats && stats.volume_m3.to_bits() == ocean_stats.volume_m3.to_bits(),
            "basins() differs from basin_stats(fill_depressions()): {stats:?}, {ocean_stats:?}"
        );
    }
    if previous {
        let mut before = None;
        for run in 1..=3 {
            let (filled, s, mib) = measured(|| previous_fill(heights, Outlets::MapEdge));
            println!("previous edge-outlet fill (heap +{mib:.0} MiB), run {run}: {s:.3} s");
            before = Some(filled);
        }
        same("edge-outlet fill", &edge, &before.expect("three runs"))?;
        let mut before = None;
        for run in 1..=3 {
            let (filled, fill_s, mib) = measured(|| previous_fill(heights, Outlets::Ocean(&water)));
            let (stats, stats_s, _) = measured(|| previous_stats(heights, &filled));
            println!(
                "previous ocean-outlet fill (heap +{mib:.0} MiB), run {run}: {fill_s:.3} s \
                 (+ statistics {stats_s:.3} s): {} basins",
                stats.basins
            );
            before = Some((filled, stats));
        }
        let (before, before_stats) = before.expect("three runs");
        same("ocean-outlet fill", &ocean, &before)?;
        anyhow::ensure!(
            ocean_stats == before_stats
                && ocean_stats.volume_m3.to_bits() == before_stats.volume_m3.to_bits(),
            "statistics differ: {ocean_stats:?} against {before_stats:?}"
        );
        println!(
            "previous vs islagen: both fills bit for bit the same, \
             statistics the same: {ocean_stats:?}"
        );
    }
    write_bytes(
        &dir.join("filled.f32"),
        &f32_bytes(edge.as_slice().expect("standard layout")),
    )?;
    println!("size {size}");
    Ok(())
}

fn same(what: &str, ours: &Array2<f32>, before: &Array2<f32>) -> anyhow::Result<()> {
    let differ = ours
        .iter()
        .zip(before.iter())
        .filter(|(a, b)| a.to_bits() != b.to_bits())
        .count();
    anyhow::ensure!(
        differ == 0,
        "{what}: {differ} cells differ from the previous fill"
    );
    Ok(())
}

/// The single-queue fill the tiled one replaced, verbatim (commit fc788a9): one Priority-Flood
/// over the whole map (Barnes, Lehman & Mulla 2014, their Algorithm 2: a radix heap and a plain
/// queue for flats and pits), a bit a cell for the closed marks.
fn previous_fill(heights: &Array2<f32>, outlets: Outlets) -> Array2<f32> {
    let (w, h) = heights.dim();
    let mut z = heights.clone();
    // One bit a cell (8 MiB at 8192, inside the L3 cache where a byte a cell would not be).
    let mut closed = Bits::new(w * h);
    // Seeds, in scan order, found in parallel per column.
    let on_edge = |x: usize, y: usize| x == 0 || y == 0 || x == w - 1 || y == h - 1;
    let seeds: Vec<u32> = match outlets {
        Outlets::MapEdge => (0..w)
            .flat_map(|x| {
                (0..h)
                    .filter(move |&y| on_edge(x, y))
                    .map(move |y| (x * h + y) as u32)
            })
            .collect(),
        Outlets::Ocean(water) => {
            let per_column: Vec<(Vec<u32>, Vec<u32>)> = (0..w)
                .into_par_iter()
                .map(|x| {
                    let mut ocean = Vec::new();
                    let mut shore = Vec::new();
                    for y in 0..h {
                        let i = (x * h + y) as u32;
                        if water[[x, y]] == Water::Ocean {
                            ocean.push(i);
                        } else if on_edge(x, y)
                            || NEIGHBOURS.iter().any(|&(dx, dy)| {
                                let (nx, ny) =
                                    ((x as isize + dx) as usize, (y as isize + dy) as usize);
                                water[[nx, ny]] == Water::Ocean
                            })
                        {
                            shore.push(i);
                        }
                    }
                    (ocean, shore)
                })
                .collect();
            let mut seeds = Vec::new();
            for (ocean, shore) in per_column {
                ocean.into_iter().for_each(|i| closed.set(i as usize));
                seeds.extend(shore);
            }
            seeds
        }
    };
    let zs = z.as_slice_mut().expect("standard layout");
    // A max-heap on the inverted key pops the lowest cell first.
    let mut open: RadixHeapMap<u32, u32> = RadixHeapMap::new();
    let mut pit: VecDeque<u32> = VecDeque::new();
    for i in seeds {
        closed.set(i as usize);
        open.push(!height_key(zs[i as usize]), i);
    }
    let offsets: [isize; 8] = NEIGHBOURS.map(|(dx, dy)| dx * h as isize + dy);
    loop {
        let c = if let Some(c) = pit.pop_front() {
            c
        } else if let Some((_, c)) = open.pop() {
            c
        } else {
            break;
        };
        let (cx, cy) = ((c as usize) / h, (c as usize) % h);
        let zc = zs[c as usize];
        let interior = !on_edge(cx, cy);
        for (k, &off) in offsets.iter().enumerate() {
            if !interior {
                let (dx, dy) = NEIGHBOURS[k];
                let (nx, ny) = (cx as isize + dx, cy as isize + dy);
                if nx < 0 || ny < 0 || nx as usize >= w || ny as usize >= h {
                    continue;
                }
            }
            let n = (c as isize + off) as usize;
            if closed.get(n) {
                continue;
            }
            closed.set(n);
            if zs[n] <= zc {
                zs[n] = zc;
                pit.push_back(n as u32);
            } else {
                open.push(!height_key(zs[n]), n as u32);
            }
        }
    }
    z
}

/// The basin statistics as they were computed before the sparse tally: the filled surface
/// scanned on one thread (the same walk, `basin_stats`, run in a one-thread pool).
fn previous_stats(heights: &Array2<f32>, filled: &Array2<f32>) -> BasinStats {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a thread pool")
        .install(|| basin_stats(heights, filled))
}
