//! The streamed snapshots: written side by side a band of rows at a time, each PNG
//! decodes to exactly the whole picture, whatever the threads; `png` and (where installed)
//! Pillow read them; one failed file does not stop the others.

use std::path::{Path, PathBuf};

use islagen::blueprint::format::{Salinity, WaterBodyType};
use islagen::blueprint::{Biome, RoadPath, Roads, Town, TownTier, WaterBody};
use islagen::render::{self, BiomeRows, Encoding, HeightRows, Output, Painted, Rows, WaterRows};
use islagen::sea::{SeaLevel, SeaModel};
use ndarray::Array2;

/// A small world's grids, its sides not multiples of the bands (256 rows) or blocks.
struct World {
    heights: Array2<f32>,
    ids: Array2<u16>,
    bodies: Vec<WaterBody>,
    biomes: Array2<Biome>,
    towns: Vec<Town>,
    roads: Roads,
    sea: SeaLevel,
}

fn world(w: usize, h: usize) -> World {
    let heights = Array2::from_shape_fn((w, h), |(x, y)| {
        let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
        2.4 * (1.0 - ((u - 0.5).powi(2) + (v - 0.5).powi(2)) * 5.0) - 0.8
            + 0.05 * (x as f32 * 0.37).sin() * (y as f32 * 0.23).cos()
    });
    let ids = Array2::from_shape_fn((w, h), |(x, y)| ((x / 5 + y / 3) % 6) as u16);
    let bodies = [(1, WaterBodyType::Ocean), (3, WaterBodyType::River)]
        .into_iter()
        .map(|(id, kind)| WaterBody {
            id,
            kind,
            salinity: Salinity::Fresh,
            surface_level: 0.2,
            pixel_count: 1,
            centroid_x: 0.0,
            centroid_y: 0.0,
        })
        .collect();
    let biomes = Array2::from_shape_fn((w, h), |(x, y)| Biome::ALL[(x / 9 + y / 13) % 11]);
    let towns = (0..6)
        .map(|i| Town {
            x: 20.0 + 50.0 * i as f32,
            y: (h as f32) * (i as f32) / 6.0,
            tier: [TownTier::Capitol, TownTier::Village, TownTier::Poi][i % 3],
            is_highway_node: i % 2 == 0,
        })
        .collect();
    let mut roads = Roads::default();
    roads
        .highway
        .push(RoadPath::from(vec![[0.0, 0.0], [w as f32, h as f32]]));
    roads.trail.push(RoadPath::from(vec![
        [w as f32, 10.0],
        [5.0, h as f32 - 3.0],
    ]));
    World {
        heights,
        ids,
        bodies,
        biomes,
        towns,
        roads,
        sea: SeaLevel::new(SeaModel::Field, w),
    }
}

/// The whole pictures' RGB pixels, in the snapshots' order.
fn whole(world: &World) -> Vec<render::Image> {
    vec![
        render::height_image(&world.heights, &world.sea),
        render::water_image(&world.ids, &world.bodies).rgb(),
        render::biome_image(&world.biomes).rgb(),
        render::towns_image(&world.biomes, &world.towns).rgb(),
        render::roads_image(&world.biomes, &world.roads, &world.towns).rgb(),
    ]
}

const NAMES: [&str; 5] = ["0_height", "0_water", "1_biomes", "2_towns", "3_roads"];

/// Writes `world`'s five pictures into `dir` side by side; returns the paths.
fn write_all(world: &World, dir: &Path) -> Vec<PathBuf> {
    let height = HeightRows::new(world.heights.view(), &world.sea);
    let water = WaterRows::new(world.ids.view(), &world.bodies);
    let biomes = BiomeRows::new(world.biomes.view());
    let towns = Painted::towns(&biomes, &world.towns);
    let roads = Painted::roads(&biomes, &world.roads, &world.towns);
    let pictures: [&dyn Rows; 5] = [&height, &water, &biomes, &towns, &roads];
    let paths: Vec<PathBuf> = NAMES.iter().map(|n| dir.join(format!("{n}.png"))).collect();
    let outputs: Vec<Output> = pictures
        .iter()
        .zip(&paths)
        .map(|(&picture, path)| Output {
            path,
            picture,
            encoding: Encoding::of(picture),
        })
        .collect();
    for (written, path) in render::write_pngs(&outputs).into_iter().zip(&paths) {
        let bytes = written.unwrap();
        assert_eq!(bytes, std::fs::metadata(path).unwrap().len());
    }
    paths
}

#[test]
fn streamed_pngs_decode_to_the_whole_pictures() {
    for (w, h) in [(300, 530), (64, 64), (17, 1)] {
        let world = world(w, h);
        let dir = tempfile::tempdir().unwrap();
        let paths = write_all(&world, dir.path());
        for ((path, want), name) in paths.iter().zip(whole(&world)).zip(NAMES) {
            assert_eq!(render::read_png(path).unwrap(), want, "{name} {w}x{h}");
        }
    }
}

/// A painted picture written without its base fills its own base rows.
#[test]
fn a_painted_picture_without_its_base_is_the_same() {
    let world = world(300, 530);
    let biomes = BiomeRows::new(world.biomes.view());
    let roads = Painted::roads(&biomes, &world.roads, &world.towns);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("roads.png");
    render::write_rows_png(&path, &roads).unwrap();
    assert_eq!(render::read_png(&path).unwrap(), whole(&world)[4]);
}

#[test]
fn the_bytes_do_not_depend_on_the_threads() {
    let world = world(300, 530);
    let bytes = |threads: usize| {
        let dir = tempfile::tempdir().unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let paths = pool.install(|| write_all(&world, dir.path()));
        paths
            .iter()
            .map(|p| std::fs::read(p).unwrap())
            .collect::<Vec<_>>()
    };
    let one = bytes(1);
    assert_eq!(one, bytes(3));
    // And the same bytes as one thread filling and encoding band after band.
    let height = HeightRows::new(world.heights.view(), &world.sea);
    let mut sequential = Vec::new();
    render::encode(&mut sequential, &height, Encoding::RGB).unwrap();
    assert_eq!(sequential, one[0]);
}

#[test]
fn one_failed_file_leaves_the_others_written() {
    let world = world(64, 300);
    let height = HeightRows::new(world.heights.view(), &world.sea);
    let biomes = BiomeRows::new(world.biomes.view());
    let towns = Painted::towns(&biomes, &world.towns);
    let dir = tempfile::tempdir().unwrap();
    let (good, bad, derived) = (
        dir.path().join("height.png"),
        dir.path().join("missing").join("biomes.png"),
        dir.path().join("towns.png"),
    );
    let outputs = [
        Output {
            path: &good,
            picture: &height,
            encoding: Encoding::RGB,
        },
        Output {
            path: &bad,
            picture: &biomes,
            encoding: Encoding::PALETTE,
        },
        Output {
            path: &derived,
            picture: &towns,
            encoding: Encoding::PALETTE,
        },
    ];
    let written = render::write_pngs(&outputs);
    assert!(written[0].is_ok() && written[2].is_ok(), "{written:?}");
    assert!(written[1].is_err());
    assert_eq!(render::read_png(&good).unwrap(), whole(&world)[0]);
    assert_eq!(render::read_png(&derived).unwrap(), whole(&world)[3]);
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 2);
}

/// Pillow, the reader most people's tools use, opens and decodes every snapshot (skipped where
/// python3 with Pillow is not installed).
#[test]
fn pillow_decodes_the_snapshots() {
    // The python3 on PATH, or the system's (Debian's python3-pil), whichever has Pillow.
    let python = ["python3", "/usr/bin/python3"].into_iter().find(|python| {
        std::process::Command::new(python)
            .args(["-c", "import PIL"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let Some(python) = python else {
        crate::skip::skip(
            "PILLOW",
            "no python3 with Pillow (apt-get install python3-pil)",
        );
        return;
    };
    let world = world(300, 530);
    let dir = tempfile::tempdir().unwrap();
    for path in write_all(&world, dir.path()) {
        let out = std::process::Command::new(python)
            .args([
                "-c",
                "import sys; from PIL import Image; im = Image.open(sys.argv[1]); im.load(); \
                 print(im.size, im.mode)",
            ])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.starts_with("(300, 530)"), "{said}");
    }
}
