//! Erosion probe: runs the droplet pass on one world twice — the tiled parallel schedule and
//! every droplet in drawn order — and reports the drainage figures of each, the time, the
//! droplet-steps per second per core, and how far the two carve fields differ. Writes the tiled
//! carve field as a PNG (blue = carved, red = built up, brighter = more).
//!
//! `cargo run --release -p islagen-tools --example erosion_probe -- [SIZE] [SEED] [CONFIG.json|-] [OUT.png] [tiled]`
//! (a config file sets the erosion dials; `tiled` skips the sequential reference run; `reseed`
//! compares two sequential runs whose droplet seeds differ by one — the yardstick for how much
//! any change of droplet order moves individual cells)

use std::time::Instant;

use islagen::config::Config;
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::render::{write_png, Image};
use islagen::stages::erosion::{erode, Schedule};
use islagen::units::METRES_PER_RAW;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or(2048);
    let seed: i32 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_280_587_109);
    let mut config = match args.get(2).map(String::as_str) {
        Some(path) if path != "-" => Config::load(std::path::Path::new(path))?.config,
        _ => Config::from_json("{}", "defaults")?.config,
    };
    config.map_size = size;
    let mode = args.get(4).map(String::as_str);
    let schedules: &[(Schedule, i32)] = match mode {
        Some("tiled") => &[(Schedule::Tiled, 0)],
        Some("reseed") => &[(Schedule::Sequential, 1), (Schedule::Sequential, 0)],
        _ => &[(Schedule::Tiled, 0), (Schedule::Sequential, 0)],
    };
    let png = args
        .get(3)
        .cloned()
        .unwrap_or_else(|| "target/erosion_carve.png".into());
    let mut plain = config.clone();
    plain.erosion.model = islagen::config::ErosionModel::Off;
    let world = pipeline::generate(&plain, seed, &Progress::hidden())?;
    let before = world.blueprint.heights.clone();
    let threads = rayon::current_num_threads() as f64;
    let mut fields = Vec::new();
    for &(schedule, reseed) in schedules {
        let mut h = before.clone();
        let mut e = config.erosion;
        e.seed_offset += reseed;
        let dials = islagen::pipeline::params::erosion(&e, seed, size);
        let t = Instant::now();
        let stats = erode(&mut h, &world.sea, &world.crater, &dials, schedule, &|| {})?;
        let secs = t.elapsed().as_secs_f64();
        let cores = if schedule == Schedule::Tiled {
            threads
        } else {
            1.0
        };
        println!(
            "{schedule:?} (seed offset +{reseed}): {secs:.2} s, {} steps, {:.2} M steps/s/core; past 0.5/5/10 m: {:?}; {} channel systems; deepest {:.1} m",
            stats.steps,
            stats.steps as f64 / secs / cores / 1e6,
            stats.carved_past,
            stats.channel_systems,
            stats.max_carve_m
        );
        fields.push((before.clone() - &h) * METRES_PER_RAW);
    }
    let tiled = &fields[0];
    let sequential = fields.get(1).unwrap_or(tiled);
    let touched = tiled
        .iter()
        .zip(sequential.iter())
        .filter(|(a, b)| **a != 0.0 || **b != 0.0)
        .count()
        .max(1);
    let mean_abs = tiled
        .iter()
        .zip(sequential.iter())
        .map(|(a, b)| f64::from((a - b).abs()))
        .sum::<f64>()
        / touched as f64;
    let mean_carve = sequential.iter().map(|a| f64::from(a.abs())).sum::<f64>() / touched as f64;
    println!(
        "first vs second run over {touched} touched cells: mean |Δ| {mean_abs:.3} m against a mean |displacement| of {mean_carve:.3} m"
    );
    let n = size as usize;
    let mut rgb = vec![0u8; n * n * 3];
    for ((x, y), &m) in tiled.indexed_iter() {
        let v = ((m.abs() / 15.0).sqrt() * 255.0).min(255.0) as u8;
        let at = (y * n + x) * 3;
        rgb[at..at + 3].copy_from_slice(&if m > 0.0 { [0, v / 2, v] } else { [v, 0, 0] });
    }
    write_png(
        std::path::Path::new(&png),
        &Image {
            width: n,
            height: n,
            rgb,
        },
    )?;
    println!("carve field: {png}");
    Ok(())
}
