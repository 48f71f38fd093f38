//! Writes the fuzz targets' seed corpora (fuzz/corpus/<target>/) from the project's own files:
//! a generated world's blueprint (v2 with its small sections first, and v1), its island code and
//! structure sidecar, the shipped config, small masks and a heightmap, and the StarMade vectors
//! as archives and as folder images. `scripts/fuzz.sh seeds` runs it; the corpora are committed after `cargo fuzz cmin`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use islagen::blueprint::{self, format, read_bytes};
use islagen::config::Config;
use islagen::formats::{island_code as ic, structures};
use islagen::fuzzing::to_folder_image;
use islagen::pipeline;
use islagen::progress::Progress;

fn put(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// The v2 file with every small section before the four grids (the reader takes any order
/// after PRMS), cut at `keep` bytes: mutations then reach the small-section parsers.
fn small_sections_first(v2: &[u8], keep: usize) -> Vec<u8> {
    let loaded = read_bytes(v2).unwrap();
    let header = format::V2_HEADER_LEN as usize;
    let mut small = Vec::new();
    let mut grids = Vec::new();
    for s in &loaded.sections {
        let at = s.offset as usize;
        let bytes = &v2[at..at + (format::SECTION_FRAME_LEN + s.length) as usize];
        match format::grid_cell_len(s.tag) {
            Some(_) => grids.extend_from_slice(bytes),
            None => small.extend_from_slice(bytes),
        }
    }
    let mut out = v2[..header].to_vec();
    out.extend(small);
    out.extend(grids);
    out.truncate(keep);
    out
}

/// Masks and heightmaps: 8- and 16-bit grayscale PNGs and a float GeoTIFF with its pixel size.
fn rasters(dir: &Path) {
    let png = |depth: png::BitDepth, data: &[u8]| {
        let mut out = Vec::new();
        let mut e = png::Encoder::new(&mut out, 16, 16);
        e.set_color(png::ColorType::Grayscale);
        e.set_depth(depth);
        e.write_header().unwrap().write_image_data(data).unwrap();
        out
    };
    let disc: Vec<u8> = (0..256)
        .map(|i| {
            let (x, y) = ((i % 16) as f32 - 7.5, (i / 16) as f32 - 7.5);
            (255.0 * (1.0 - (x * x + y * y).sqrt() / 8.0).clamp(0.0, 1.0)) as u8
        })
        .collect();
    put(dir, "mask8", &png(png::BitDepth::Eight, &disc));
    let wide: Vec<u8> = disc.iter().flat_map(|&v| [v, 255 - v]).collect();
    put(dir, "mask16", &png(png::BitDepth::Sixteen, &wide));
    let mut tif = std::io::Cursor::new(Vec::new());
    {
        use tiff::encoder::{colortype::Gray32Float, TiffEncoder};
        let mut enc = TiffEncoder::new(&mut tif).unwrap();
        let mut img = enc.new_image::<Gray32Float>(8, 8).unwrap();
        img.encoder()
            .write_tag(
                tiff::tags::Tag::ModelPixelScaleTag,
                &[30.0f64, 30.0, 0.0][..],
            )
            .unwrap();
        let metres: Vec<f32> = (0..64).map(|i| (i * 7 % 64) as f32 * 3.5 - 20.0).collect();
        img.write_data(&metres).unwrap();
    }
    put(dir, "dem_f32", tif.get_ref());
}

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).unwrap_or("fuzz/corpus".into()));
    let mut config = Config::from_json("{}", "defaults").unwrap().config;
    config.map_size = 256;
    let world = pipeline::generate(&config, 42, &Progress::hidden()).unwrap();
    let bp = &world.blueprint;

    let dat = root.join("dat_read");
    let mut v2 = Vec::new();
    blueprint::write_v2(&mut v2, bp).unwrap();
    let mut v1 = Vec::new();
    blueprint::write_v1(&mut v1, bp).unwrap();
    put(&dat, "v2_small_first", &small_sections_first(&v2, 16 << 10));
    put(&dat, "v2_head", &v2[..4096]);
    put(&dat, "v1_head", &v1[..4096]);
    let sample = blueprint::sample::full(256, 3);
    let mut s2 = Vec::new();
    blueprint::write_v2(&mut s2, &sample).unwrap();
    put(
        &dat,
        "sample_small_first",
        &small_sections_first(&s2, 16 << 10),
    );

    let island = ic::export::island_from_world(bp, 24).unwrap();
    let codes = root.join("island_code");
    put(&codes, "stream", &ic::encode_stream(&island));
    put(&codes, "code", ic::encode(&island).as_bytes());

    let sidecar = structures::from_world(bp).to_json();
    put(&root.join("structures"), "sidecar", sidecar.as_bytes());

    let cfg = root.join("config");
    put(
        &cfg,
        "defaults",
        include_bytes!("../../config/ServerConfig.json"),
    );
    put(&cfg, "misspelt", br#"{"ErosionDropletCont": 5, "Erosion": "v1", "SeaLevelModel": "field", "MapSize": 99999}"#);

    rasters(&root.join("raster"));

    let pins = root.join("pins");
    put(
        &pins,
        "geojson",
        br#"{ "type": "FeatureCollection", "features": [
  { "type": "Feature", "geometry": { "type": "Point", "coordinates": [2400.0, 4992.0] },
    "properties": { "tier": "capitol", "name": "Westhaven" } },
  { "type": "Feature", "geometry": { "type": "Point", "coordinates": [4480.5, 4833.25] },
    "properties": { "tier": "Hub", "kind": "town" } } ] }"#,
    );
    put(
        &pins,
        "plain",
        br#"[ { "x_m": 100, "y_m": 8191.9, "tier": "poi", "name": null },
  { "x_m": 5600, "y_m": 5552, "tier": "village", "name": "High Shelf" } ]"#,
    );

    for entry in std::fs::read_dir("tests/vectors/starmade")
        .unwrap()
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "sment") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).unwrap();
            put(&root.join("starmade_zip"), &name, &bytes);
            let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
            let mut files = BTreeMap::new();
            for i in 0..zip.len() {
                let mut f = zip.by_index(i).unwrap();
                if f.is_dir() {
                    continue;
                }
                let mut data = Vec::new();
                std::io::Read::read_to_end(&mut f, &mut data).unwrap();
                // Drop the archive's folder level: the folder image is the blueprint's folder.
                let inner = f
                    .name()
                    .split_once('/')
                    .map_or(f.name(), |(_, r)| r)
                    .to_string();
                files.insert(inner, data);
            }
            put(
                &root.join("starmade_folder"),
                &name,
                &to_folder_image(&files),
            );
        }
    }
    println!("seed corpora written under {}", root.display());
}
