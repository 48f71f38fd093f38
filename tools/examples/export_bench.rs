//! Times each export's phases on one blueprint (BENCHMARKS.md, "Exports"): reading the
//! blueprint (the baseline every export pays), then each export as the CLI runs it, writing into
//! a scratch folder. Each figure is the median of RUNS runs.
//!
//! `cargo run --release -p islagen-tools --example export_bench -- WORLD.dat OUT_DIR [RUNS]`

use std::path::Path;
use std::time::Instant;

use islagen::exports::heightmap::{self, HeightFormat};
use islagen::exports::{geojson, splat};

/// A named export to time.
type Case<'a> = (&'static str, Box<dyn Fn() + 'a>);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, Vec<f64>) {
    let mut all = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        std::hint::black_box(f());
        all.push(t.elapsed().as_secs_f64());
    }
    (median(all.clone()), all)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dat), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: export_bench WORLD.dat OUT_DIR [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(3);
    let out = Path::new(out);
    std::fs::create_dir_all(out).expect("output folder");
    let (read, all) = time(runs, || {
        islagen::blueprint::read_file(Path::new(dat)).expect("a readable blueprint")
    });
    println!("read blueprint            {read:6.2} s  {all:.2?}");
    let bp = islagen::blueprint::read_file(Path::new(dat))
        .unwrap()
        .blueprint;
    println!(
        "MapSize {}, {} threads",
        bp.side(),
        rayon::current_num_threads()
    );
    let cases: Vec<Case> = vec![
        (
            "heightmap png16",
            Box::new(|| {
                heightmap::export(&bp, &out.join("h.png"), HeightFormat::Png16, None).unwrap();
            }),
        ),
        (
            "heightmap r16",
            Box::new(|| {
                heightmap::export(&bp, &out.join("h.r16"), HeightFormat::R16, None).unwrap();
            }),
        ),
        (
            "heightmap r16 8193",
            Box::new(|| {
                heightmap::export(&bp, &out.join("h8193.r16"), HeightFormat::R16, Some(8193))
                    .unwrap();
            }),
        ),
        (
            "heightmap tiff",
            Box::new(|| {
                heightmap::export(&bp, &out.join("h.tif"), HeightFormat::Tiff, None).unwrap();
            }),
        ),
        (
            "splat (no blur)",
            Box::new(|| {
                splat::export(&bp, &out.join("splat"), 0.0).unwrap();
            }),
        ),
        (
            "splat --blur 16",
            Box::new(|| {
                splat::export(&bp, &out.join("splat16"), 16.0).unwrap();
            }),
        ),
        (
            "  splat weights only",
            Box::new(|| {
                splat::weights(&bp, 0);
            }),
        ),
        (
            "  splat weights blur 16",
            Box::new(|| {
                splat::weights(&bp, 8);
            }),
        ),
        (
            "  masks only",
            Box::new(|| {
                splat::masks(&bp);
            }),
        ),
        (
            "geojson",
            Box::new(|| {
                geojson::export(&bp, &out.join("w.geojson"), None).unwrap();
            }),
        ),
        (
            "  geojson collection only",
            Box::new(|| {
                geojson::collection(&bp, None).unwrap();
            }),
        ),
    ];
    for (name, f) in &cases {
        let (m, all) = time(runs, f);
        println!("{name:<25} {m:6.2} s  {all:.2?}");
    }
}
