//! River figures: the network's size, how grid-bound its centrelines are, and how well
//! the rivers and erosion's channels agree.
//!
//! `cargo run --release -p islagen-tools --example rivers_probe -- [SEEDS] [SIZE]` (default 1..8 at 1024, roads
//! skipped) prints per seed: rivers, systems, reaches, length, largest catchment, the share of
//! centreline length heading within ±5° of one of the eight grid headings (a uniform spread of
//! directions gives 22 %, a D8 path 100 %), and — with `"Erosion": "v1"` — the share of river
//! length that runs in a channel erosion carved ≥ 3 m deep (within 2 px of the centreline; the
//! carve measured with rivers off so it is erosion's alone), against the share of all land so
//! carved.

use islagen::config::{Config, ErosionModel};
use islagen::pipeline::{self, World};
use islagen::progress::Progress;
use islagen::units::METRES_PER_RAW;

fn run(seed: i32, size: u32, erosion: bool, rivers: bool) -> anyhow::Result<World> {
    let mut c = Config::from_json("{}", "defaults")?.config;
    c.map_size = size;
    c.skip_roads = true;
    c.erosion.model = if erosion {
        ErosionModel::Droplets
    } else {
        ErosionModel::Off
    };
    c.rivers = rivers;
    Ok(pipeline::generate(&c, seed, &Progress::hidden())?)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let seeds = islagen::sweep::parse_seeds(args.get(1).map_or("1..8", String::as_str))?;
    let size: u32 = args.get(2).map_or(Ok(1024), |s| s.parse())?;
    println!("seed\trivers\tsystems\treaches\tkm\tlargest_km2\tgrid_headings_%\tin_eroded_channels_%\tland_eroded_%");
    for seed in seeds {
        let eroded = run(seed, size, true, true)?;
        let plain = run(seed, size, true, false)?;
        let bare = run(seed, size, false, false)?;
        let s = eroded.rivers.clone().unwrap_or_default();
        let rivr = eroded.blueprint.rivers.clone().unwrap_or_default();
        let (mut total, mut on_grid, mut in_channel) = (0.0f64, 0.0f64, 0.0f64);
        let carve = |x: usize, y: usize| {
            (bare.blueprint.heights[[x, y]] - plain.blueprint.heights[[x, y]]) * METRES_PER_RAW
        };
        let n = size as usize;
        for r in &rivr.rivers {
            for w in r.points.windows(2) {
                let (dx, dy) = (w[1].x - w[0].x, w[1].y - w[0].y);
                let len = f64::from(dx.hypot(dy));
                let angle = dy.atan2(dx).to_degrees().rem_euclid(45.0);
                total += len;
                on_grid += len * f64::from(u8::from(!(5.0..=40.0).contains(&angle)));
                let (x, y) = (w[0].x as isize, w[0].y as isize);
                let deep = (-2..=2).any(|i| {
                    (-2..=2).any(|j| {
                        let (a, b) = (x + i, y + j);
                        a >= 0
                            && b >= 0
                            && (a as usize) < n
                            && (b as usize) < n
                            && carve(a as usize, b as usize) >= 3.0
                    })
                });
                in_channel += len * f64::from(u8::from(deep));
            }
        }
        let (mut land, mut carved) = (0usize, 0usize);
        for ((x, y), w) in plain.water.indexed_iter() {
            if *w == islagen::stages::sea::Water::Dry {
                land += 1;
                carved += usize::from(carve(x, y) >= 3.0);
            }
        }
        let land_share = 100.0 * carved as f64 / land.max(1) as f64;
        println!(
            "{seed}\t{}\t{}\t{}\t{:.1}\t{:.2}\t{:.1}\t{:.1}\t{:.1}",
            s.rivers,
            s.systems,
            s.reaches,
            s.length_km,
            s.largest_catchment_km2,
            100.0 * on_grid / total.max(1e-9),
            100.0 * in_channel / total.max(1e-9),
            land_share
        );
    }
    Ok(())
}
