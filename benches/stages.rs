//! Every stage at MapSize 512 under criterion, so a regression in any of them shows up in one
//! command: `cargo bench --bench stages`. The stages run on one generated world's own inputs.

use criterion::{criterion_group, criterion_main, Criterion};
use islagen::config::Config;
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::sea::{SeaLevel, SeaModel};
use islagen::stages::basins::{basins, Outlets};
use islagen::stages::erosion::{erode, Schedule};
use islagen::stages::roads::{roads, CostGrid};
use islagen::stages::sea::classify_water;
use islagen::stages::topography::{topography, Shape, TopographyParams};
use islagen::stages::water_bodies::water_bodies;

const SIZE: u32 = 512;
const SEED: i32 = 1;

fn stages(c: &mut Criterion) {
    let mut config = Config::from_json("{}", "defaults")
        .expect("defaults")
        .config;
    config.map_size = SIZE;
    let mut world = pipeline::generate(&config, SEED, &Progress::hidden()).expect("world");
    let classify = pipeline::classify_heights(&config, SEED);
    let mut group = c.benchmark_group("stages_512");
    group.sample_size(10);
    let params = TopographyParams {
        seed: SEED,
        map_size: SIZE as usize,
        axis_x: config.island_axis_x,
        axis_y: config.island_axis_y,
        islet_density: config.offshore_island_density,
        spine_variation: config.spine_variation,
        coast_variation: config.coast_variation,
        sea: SeaLevel::new(SeaModel::Flat(0.15), SIZE as usize),
        island_mask: None,
        relief_mask: None,
    };
    group.bench_function("topography", |b| {
        b.iter(|| topography(&Shape::new(&params), &|| {}))
    });
    group.bench_function("water_classification", |b| {
        b.iter(|| classify_water(&classify, &world.sea))
    });
    group.bench_function("water_bodies", |b| {
        b.iter(|| {
            water_bodies(
                &world.water,
                &world.sea,
                Default::default(),
                &mut Vec::new(),
            )
            .expect("bodies")
        })
    });
    group.bench_function("basins", |b| {
        // What the pipeline's basins stage runs: the statistics without the filled surface.
        b.iter(|| basins(&world.blueprint.heights, Outlets::Ocean(&world.water)))
    });
    let mut dials = islagen::pipeline::params::erosion(&config.erosion, SEED, config.map_size);
    dials.droplets = islagen::stages::erosion::Droplets::Count(20_000);
    group.bench_function("erosion_20k_droplets", |b| {
        b.iter(|| {
            let mut h = world.blueprint.heights.clone();
            erode(
                &mut h,
                &world.sea,
                &world.crater,
                &dials,
                Schedule::Tiled,
                &|| {},
            )
            .expect("erosion")
        })
    });
    group.bench_function("roads", |b| {
        b.iter(|| {
            let grid = CostGrid::new(
                &world.blueprint.heights,
                &world.water,
                &world.sea,
                &world.crater,
            );
            roads(&grid, &world.blueprint.towns, 0, &|| {})
        })
    });
    let mut no_roads = config.clone();
    no_roads.skip_roads = true;
    group.bench_function("generate_without_roads", |b| {
        b.iter(|| pipeline::generate(&no_roads, SEED, &Progress::hidden()).expect("world"))
    });
    let dir = tempfile::tempdir().expect("temp dir");
    group.bench_function("export", |b| {
        b.iter(|| pipeline::export(&mut world, dir.path(), &Progress::hidden()).expect("export"))
    });
    group.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
