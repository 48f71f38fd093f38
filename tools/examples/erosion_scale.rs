//! Whether erosion means the same at every MapSize: the share of land carved past
//! 0.5 m and past 5 m at each size, and how well each size's carve field, box-averaged onto the
//! smallest size's pixels, correlates with the smallest size's own.
//!
//! `cargo run --release -p islagen-tools --example erosion_scale -- [SEED] [SIZES] [CONFIG.json]` (default seed 7,
//! sizes 1024,2048,8192, `{"Erosion": "v1"}` with the default dials; roads skipped). A config
//! file replaces the default one (it must turn erosion on).

use std::time::Instant;

use islagen::config::Config;
use islagen::grid::spectrum::correlation;
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::units::METRES_PER_RAW;
use ndarray::Array2;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let seed: i32 = args.get(1).map_or(Ok(7), |s| s.parse())?;
    let sizes: Vec<u32> = args
        .get(2)
        .map_or("1024,2048,8192", String::as_str)
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let config = match args.get(3) {
        Some(path) => Config::load(std::path::Path::new(path))?.config,
        None => Config::from_json(r#"{"Erosion": "v1"}"#, "defaults")?.config,
    };
    let smallest = *sizes.iter().min().unwrap_or(&1024) as usize;
    println!("seed {seed}");
    println!("size\tdroplets_on_land\tper_land_km2\tland_past_0.5m_%\tland_past_5m_%\tchannel_systems\terosion_s\tcorrelation_with_{smallest}");
    let mut reference: Option<Array2<f32>> = None;
    for size in sizes {
        let mut on = config.clone();
        on.map_size = size;
        on.skip_roads = true;
        let mut off = on.clone();
        off.erosion.model = islagen::config::ErosionModel::Off;
        let plain = pipeline::generate(&off, seed, &Progress::hidden())?;
        let t = Instant::now();
        let eroded = pipeline::generate(&on, seed, &Progress::hidden())?;
        let whole = t.elapsed().as_secs_f64();
        let e = eroded.erosion.clone().expect("the config turns erosion on");
        let carve = (&plain.blueprint.heights - &eroded.blueprint.heights) * METRES_PER_RAW;
        let coarse = box_down(&carve, smallest);
        let reference = reference.get_or_insert_with(|| coarse.clone());
        let r = correlation(
            reference.as_slice().expect("standard layout"),
            coarse.as_slice().expect("standard layout"),
        );
        let share = |px: usize| 100.0 * px as f64 / e.land_px.max(1) as f64;
        println!(
            "{size}\t{}\t{:.0}\t{:.2}\t{:.3}\t{}\t{:.1} (whole run)\t{:.3}",
            e.droplets_on_land,
            e.per_land_km2,
            share(e.carved_past[0]),
            share(e.carved_past[1]),
            e.channel_systems,
            whole,
            r
        );
    }
    Ok(())
}

/// `field` box-averaged onto `side` × `side` pixels (the field's side a multiple of `side`).
fn box_down(field: &Array2<f32>, side: usize) -> Array2<f32> {
    let k = field.dim().0 / side;
    Array2::from_shape_fn((side, side), |(x, y)| {
        let mut sum = 0.0f64;
        for i in 0..k {
            for j in 0..k {
                sum += f64::from(field[[x * k + i, y * k + j]]);
            }
        }
        (sum / (k * k) as f64) as f32
    })
}
