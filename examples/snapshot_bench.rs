//! Times the snapshots of a blueprint: each image's build (colours, shading) and its PNG
//! encoding, one image at a time, for `BENCHMARKS.md` (issue 18).
//!
//! `cargo run --release --example snapshot_bench -- FILE.dat [OUT_DIR]`

use std::time::Instant;

use islagen::blueprint::read_file;
use islagen::render;
use islagen::stages::sea::{SeaLevel, SeaModel};

enum Picture {
    Rgb(render::Image),
    Indexed(render::Indexed),
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .ok_or_else(|| anyhow::anyhow!("usage: snapshot_bench FILE.dat [OUT_DIR]"))?;
    let out = std::path::PathBuf::from(args.get(2).map_or("target/snapshot-bench", String::as_str));
    std::fs::create_dir_all(&out)?;
    let bp = read_file(path.as_ref())?.blueprint;
    let sea = SeaLevel::new(SeaModel::Flat(0.15), bp.side());
    let bodies = bp.water_bodies.clone().unwrap_or_default();
    let ids = bp.water_ids.clone().unwrap_or_default();
    type Make<'a> = Box<dyn Fn() -> Picture + 'a>;
    let images: Vec<(&str, Make)> = vec![
        (
            "0_height",
            Box::new(|| Picture::Rgb(render::height_image(&bp.heights, &sea))),
        ),
        (
            "0_water",
            Box::new(|| Picture::Indexed(render::water_image(&ids, &bodies))),
        ),
        (
            "1_biomes",
            Box::new(|| Picture::Indexed(render::biome_image(&bp.biomes))),
        ),
        (
            "2_towns",
            Box::new(|| Picture::Indexed(render::towns_image(&bp.biomes, &bp.towns))),
        ),
        (
            "3_roads",
            Box::new(|| Picture::Indexed(render::roads_image(&bp.biomes, &bp.roads, &bp.towns))),
        ),
    ];
    let (mut build_total, mut encode_total) = (0.0, 0.0);
    for (name, make) in &images {
        let t = Instant::now();
        let image = make();
        let build = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let path = out.join(format!("{name}.png"));
        let bytes = match &image {
            Picture::Rgb(i) => render::write_png(&path, i)?,
            Picture::Indexed(i) => render::write_indexed_png(&path, i)?,
        };
        let encode = t.elapsed().as_secs_f64();
        build_total += build;
        encode_total += encode;
        println!("{name}\tbuild {build:.3} s\tencode {encode:.3} s\t{bytes} bytes");
    }
    println!("total\tbuild {build_total:.3} s\tencode {encode_total:.3} s");
    Ok(())
}
