//! Terrain cost at MapSize 1024 under criterion, with its baseline in the same run: the noise
//! crate's raw 7-octave fBm over the same pixels. The 8192 figures and peak memory live in
//! `scripts/bench-terrain.sh`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use islagen::config::Config;
use islagen::grid::noise::{normalised, Fbm};
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::sea::{SeaLevel, SeaModel};
use islagen::stages::topography::{topography, Shape, TopographyParams};

const SIZE: usize = 1024;

fn terrain(c: &mut Criterion) {
    let mut group = c.benchmark_group("terrain_1024");
    group.sample_size(10);
    group.throughput(Throughput::Elements((SIZE * SIZE) as u64));
    let fbm = Fbm::new(1, 3.0, 7);
    group.bench_function("raw_fbm_7_octaves", |b| {
        b.iter(|| {
            use rayon::prelude::*;
            (0..SIZE)
                .into_par_iter()
                .map(|x| {
                    let u = normalised(x, SIZE);
                    (0..SIZE)
                        .map(|y| fbm.at(u, normalised(y, SIZE)))
                        .sum::<f32>()
                })
                .sum::<f32>()
        })
    });
    let params = TopographyParams {
        seed: 1,
        map_size: SIZE,
        axis_x: 1.30,
        axis_y: 0.78,
        islet_density: 0.02,
        spine_variation: 1.0,
        coast_variation: 1.0,
        sea: SeaLevel::new(SeaModel::Flat(0.15), SIZE),
        island_mask: None,
        relief_mask: None,
    };
    group.bench_function("topography", |b| {
        b.iter(|| topography(&Shape::new(&params), &|| {}))
    });
    let mut config = Config::from_json("{}", "defaults")
        .expect("defaults")
        .config;
    config.map_size = SIZE as u32;
    group.bench_function("generate", |b| {
        b.iter(|| pipeline::generate(&config, 1, &Progress::hidden()).unwrap())
    });
    group.finish();
}

criterion_group!(benches, terrain);
criterion_main!(benches);
