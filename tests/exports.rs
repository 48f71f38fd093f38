//! Exports for engines and GIS: every file read back with an independent decoder
//! (png, tiff, geojson crates) and checked against the conventions its module doc states —
//! sizes, byte order, row order (north first; Unity's RAW south first), channel order, value
//! mapping, the weights' exact sum, polygon winding, holes and areas, and the crater on the
//! north coast. GDAL's `gdalinfo` / `ogrinfo` check the GeoTIFF and the GeoJSON when installed.

use std::path::Path;
use std::sync::OnceLock;

use islagen::blueprint::format::WaterBodyType;
use islagen::blueprint::{sample, Biome, Blueprint};
use islagen::config::Config;
use islagen::exports::heightmap::{self, HeightFormat};
use islagen::exports::{geojson as gj, splat, RecordedSea};
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::units::raw_to_m;

/// A real 512 world without roads (rivers on), generated once for every test.
fn world() -> &'static Blueprint {
    static WORLD: OnceLock<Blueprint> = OnceLock::new();
    WORLD.get_or_init(|| {
        let mut c = Config::from_json("{}", "defaults").unwrap().config;
        c.map_size = 512;
        c.skip_roads = true;
        pipeline::generate(&c, 7, &Progress::hidden())
            .unwrap()
            .blueprint
    })
}

/// Metres above sea of pixel (x, y), as the exports compute them.
fn metres(bp: &Blueprint, x: usize, y: usize) -> f32 {
    raw_to_m(bp.heights[[x, y]] - RecordedSea::of(bp).raw)
}

fn read_png(path: &Path) -> (png::OutputInfo, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info, buf)
}

fn sidecar(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(heightmap::sidecar_path(path)).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn png16_is_big_endian_north_first_and_within_one_step() {
    let bp = world();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.png");
    let s = heightmap::export(bp, &path, HeightFormat::Png16, None).unwrap();
    let (info, bytes) = read_png(&path);
    assert_eq!((info.width, info.height), (512, 512));
    assert_eq!(info.color_type, png::ColorType::Grayscale);
    assert_eq!(info.bit_depth, png::BitDepth::Sixteen);
    let side = sidecar(&path);
    assert_eq!(side["metres_per_pixel"], 16.0);
    assert_eq!(
        side["row_order"].as_str().unwrap().split(':').next(),
        Some("north to south")
    );
    let step = s.metres_per_unit;
    assert!(step > 0.0 && step < 0.05, "{step}");
    let mut values = [u16::MAX, 0];
    for y in 0..512 {
        for x in 0..512 {
            let at = (y * 512 + x) * 2;
            let v = u16::from_be_bytes([bytes[at], bytes[at + 1]]);
            values = [values[0].min(v), values[1].max(v)];
            let back = s.min_m + f64::from(v) * step;
            let want = f64::from(metres(bp, x, y));
            assert!((back - want).abs() <= step, "({x}, {y}): {back} vs {want}");
        }
    }
    assert_eq!(values, [0, u16::MAX], "the full 16-bit range is used");
    // the sea-level value and the engine scale hints follow from the same mapping
    assert!((s.min_m + s.unit_at_sea_level * step).abs() < 1e-9);
    let e = s.engine.as_ref().unwrap();
    assert!((e.unreal_z_scale - step * 12_800.0).abs() < 1e-9);
    assert_eq!(e.unreal_xy_scale, 1600.0);
}

#[test]
fn r16_is_little_endian_south_first_and_resamples_to_two_to_the_n_plus_one() {
    let bp = world();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.r16");
    let s = heightmap::export(bp, &path, HeightFormat::R16, None).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 512 * 512 * 2, "headerless");
    // The first sample is the south-west pixel's centre (it said the north-west's).
    assert_eq!(s.first_sample_m, [8.0, 8.0], "16 m pixels");
    for k in 0..512 {
        for x in (0..512).step_by(7) {
            let at = (k * 512 + x) * 2;
            let v = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
            // file row k is map row 511 − k: the southern edge first, as Unity's importer wants
            let want = f64::from(metres(bp, x, 511 - k));
            let back = s.min_m + f64::from(v) * s.metres_per_unit;
            assert!((back - want).abs() <= s.metres_per_unit);
        }
    }
    // --resample to 2ⁿ + 1: corner-aligned bilinear
    for n in [257usize, 513, 1025] {
        let path = dir.path().join(format!("h{n}.r16"));
        let s = heightmap::export(bp, &path, HeightFormat::R16, Some(n)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), n * n * 2);
        assert_eq!(s.resample, Some("bilinear, corner-aligned"));
        assert!((s.metres_per_pixel - 511.0 * 16.0 / (n - 1) as f64).abs() < 1e-9);
        assert!(
            (s.first_sample_m[0] - 8.0).abs() < 1e-9 && (s.first_sample_m[1] - 8.0).abs() < 1e-9
        );
        let at = |i: usize, k: usize| {
            let o = (k * n + i) * 2;
            s.min_m + f64::from(u16::from_le_bytes([bytes[o], bytes[o + 1]])) * s.metres_per_unit
        };
        // the four corners are the corner pixels (file row 0 = south)
        for (i, k, x, y) in [
            (0, 0, 0, 511),
            (n - 1, 0, 511, 511),
            (0, n - 1, 0, 0),
            (n - 1, n - 1, 511, 0),
        ] {
            assert!((at(i, k) - f64::from(metres(bp, x, y))).abs() <= s.metres_per_unit);
        }
        // an inner sample is the bilinear mix of the four pixels around it
        let (i, j) = (n / 3, n / 5); // j counts rows from the north
        let (u, v) = (
            i as f64 * 511.0 / (n - 1) as f64,
            j as f64 * 511.0 / (n - 1) as f64,
        );
        let (x0, y0) = (u.floor() as usize, v.floor() as usize);
        let (tx, ty) = (u - x0 as f64, v - y0 as f64);
        let m = |x: usize, y: usize| f64::from(metres(bp, x.min(511), y.min(511)));
        let want = (m(x0, y0) * (1.0 - tx) + m(x0 + 1, y0) * tx) * (1.0 - ty)
            + (m(x0, y0 + 1) * (1.0 - tx) + m(x0 + 1, y0 + 1) * tx) * ty;
        assert!((at(i, n - 1 - j) - want).abs() <= s.metres_per_unit + 1e-3);
    }
    assert!(heightmap::export(bp, &dir.path().join("x.r16"), HeightFormat::R16, Some(1)).is_err());
}

#[test]
fn geotiff_is_float_exact_with_georeferencing_in_metres() {
    use tiff::decoder::{Decoder, DecodingResult};
    use tiff::tags::Tag;
    let bp = world();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.tif");
    heightmap::export(bp, &path, HeightFormat::Tiff, None).unwrap();
    let mut d = Decoder::new(std::fs::File::open(&path).unwrap()).unwrap();
    assert_eq!(d.dimensions().unwrap(), (512, 512));
    assert_eq!(
        d.get_tag_f64_vec(Tag::ModelPixelScaleTag).unwrap(),
        vec![16.0, 16.0, 0.0]
    );
    // raster (0, 0) is the map's north-west corner: x = 0, y = 8192 m (y north)
    assert_eq!(
        d.get_tag_f64_vec(Tag::ModelTiepointTag).unwrap(),
        vec![0.0, 0.0, 0.0, 0.0, 8192.0, 0.0]
    );
    let keys = d.get_tag_u16_vec(Tag::GeoKeyDirectoryTag).unwrap();
    let key = |id: u16| keys[4..].chunks(4).find(|k| k[0] == id).map(|k| k[3]);
    assert_eq!(key(1024), Some(32_767), "user-defined (local) model");
    assert_eq!(key(1025), Some(1), "PixelIsArea");
    assert_eq!(key(3076), Some(9001), "metres");
    assert!(d
        .get_tag_ascii_string(Tag::GeoAsciiParamsTag)
        .unwrap()
        .starts_with("islagen local grid"));
    let DecodingResult::F32(values) = d.read_image().unwrap() else {
        panic!("float32 samples")
    };
    for y in 0..512 {
        for x in 0..512 {
            assert_eq!(
                values[y * 512 + x].to_bits(),
                metres(bp, x, y).to_bits(),
                "({x}, {y}) reads back bit for bit, row 0 north"
            );
        }
    }
    // resampled: the pixel size is the sample spacing, the tiepoint moves by half a spacing
    let path = dir.path().join("h257.tif");
    heightmap::export(bp, &path, HeightFormat::Tiff, Some(257)).unwrap();
    let mut d = Decoder::new(std::fs::File::open(&path).unwrap()).unwrap();
    let spacing = 511.0 * 16.0 / 256.0;
    assert_eq!(
        d.get_tag_f64_vec(Tag::ModelPixelScaleTag).unwrap(),
        vec![spacing, spacing, 0.0]
    );
    let tie = d.get_tag_f64_vec(Tag::ModelTiepointTag).unwrap();
    assert!((tie[3] - (8.0 - spacing / 2.0)).abs() < 1e-9);
    assert!((tie[4] - (8192.0 - 8.0 + spacing / 2.0)).abs() < 1e-9);
}

/// Which (splat file, channel) holds biome `b`.
fn channel(b: Biome) -> (usize, usize) {
    let o = usize::from(b.ordinal());
    (o / 4, o % 4)
}

fn read_splats(dir: &Path) -> Vec<Vec<u8>> {
    (0..3)
        .map(|k| {
            let (info, bytes) = read_png(&dir.join(format!("splat_{k}.png")));
            assert_eq!(info.color_type, png::ColorType::Rgba);
            assert_eq!(info.bit_depth, png::BitDepth::Eight);
            bytes
        })
        .collect()
}

#[test]
fn splat_channels_are_the_biomes_in_ordinal_order_and_sum_to_255() {
    let bp = world();
    let dir = tempfile::tempdir().unwrap();
    let report = splat::export(bp, dir.path(), 0.0).unwrap();
    assert_eq!(report.files.len(), 7);
    let legend: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("splat.json")).unwrap())
            .unwrap();
    assert_eq!(
        legend["splat"][0]["channels"],
        serde_json::json!(["ocean", "lake", "beach", "grassland"])
    );
    assert_eq!(legend["splat"][2]["channels"][3], "unused");
    let splats = read_splats(dir.path());
    for y in 0..512 {
        for x in 0..512 {
            let at = (y * 512 + x) * 4;
            let (k, c) = channel(bp.biomes[[x, y]]);
            assert_eq!(splats[k][at + c], 255, "({x}, {y}): row 0 is north");
            let sum: u32 = splats
                .iter()
                .flat_map(|s| &s[at..at + 4])
                .map(|&v| u32::from(v))
                .sum();
            assert_eq!(sum, 255);
        }
    }
    // the crater's layer sits in the northern half of the image: the north coast
    let (k, c) = channel(Biome::Crater);
    let rows: Vec<usize> = (0..512 * 512)
        .filter(|i| splats[k][i * 4 + c] == 255)
        .map(|i| i / 512)
        .collect();
    assert!(!rows.is_empty());
    assert!(
        rows.iter().sum::<usize>() / rows.len() < 256,
        "crater in the north"
    );
    // masks: water = WBID ≠ 0, rivers = river reaches, no roads in a road-less world
    let (_, water) = read_png(&dir.path().join("water.png"));
    let (_, rivers) = read_png(&dir.path().join("rivers.png"));
    let (info, roads) = read_png(&dir.path().join("roads.png"));
    assert_eq!(info.color_type, png::ColorType::Grayscale);
    let ids = bp.water_ids.as_ref().unwrap();
    let bodies = bp.water_bodies.as_ref().unwrap();
    let mut river_px = 0;
    for y in 0..512 {
        for x in 0..512 {
            let id = ids[[x, y]];
            assert_eq!(water[y * 512 + x] == 255, id != 0);
            let river = bodies
                .iter()
                .any(|b| b.id == id && b.kind == WaterBodyType::River);
            assert_eq!(rivers[y * 512 + x] == 255, river);
            river_px += usize::from(river);
        }
    }
    assert!(river_px > 0, "the world has rivers");
    assert!(roads.iter().all(|&v| v == 0));
}

#[test]
fn blurred_weights_still_sum_to_255_and_come_only_from_biomes_nearby() {
    let bp = world();
    let dir = tempfile::tempdir().unwrap();
    // 80 m at 16 m a pixel: a box radius of round(80 / 2 / 16) = 3 pixels (7 × 7)
    let report = splat::export(bp, dir.path(), 80.0).unwrap();
    assert_eq!(report.legend.blur_radius_px, 3);
    let splats = read_splats(dir.path());
    let mut soft = 0;
    for y in 0..512usize {
        for x in 0..512usize {
            let at = (y * 512 + x) * 4;
            let w: Vec<u32> = splats
                .iter()
                .flat_map(|s| &s[at..at + 4])
                .map(|&v| u32::from(v))
                .collect();
            assert_eq!(w.iter().sum::<u32>(), 255, "({x}, {y})");
            assert_eq!(w[11], 0, "the spare channel");
            let mut count = [0u32; 11];
            for dy in -3i32..=3 {
                for dx in -3i32..=3 {
                    let (cx, cy) = ((x as i32 + dx).clamp(0, 511), (y as i32 + dy).clamp(0, 511));
                    count[usize::from(bp.biomes[[cx as usize, cy as usize]].ordinal())] += 1;
                }
            }
            for b in 0..11 {
                let exact = 255.0 * f64::from(count[b]) / 49.0;
                assert!(
                    (f64::from(w[b]) - exact).abs() < 1.0,
                    "({x}, {y}) biome {b}"
                );
                assert_eq!(w[b] == 0, count[b] == 0);
            }
            soft += usize::from(w.iter().all(|&v| v < 255));
        }
    }
    assert!(soft > 1000, "edges are soft: {soft} mixed pixels");
    assert!(splat::export(bp, dir.path(), -1.0).is_err());
    assert!(splat::export(bp, dir.path(), 1e9).is_err());
}

#[test]
fn roads_and_rivers_masks_follow_the_vectors_of_a_full_blueprint() {
    let bp = sample::full(256, 3);
    let masks = splat::masks(&bp);
    for tier in islagen::blueprint::RoadTier::ALL {
        for path in bp.roads.tier(*tier) {
            // a road as thin as a trail at 256 (0.26 px) is painted a pixel wide: within a
            // pixel of its centreline
            for p in path
                .iter()
                .filter(|p| p.iter().all(|c| (1.0..255.0).contains(c)))
            {
                let (x, y) = (p[0] as usize, p[1] as usize);
                let near =
                    (x - 1..=x + 1).any(|x| (y - 1..=y + 1).any(|y| masks[1][y * 256 + x] == 255));
                assert!(near, "road point ({x}, {y})");
            }
        }
    }
    let painted = masks[1].iter().filter(|&&v| v == 255).count();
    assert!(painted > 0 && painted < 256 * 256);
}

/// Twice the signed area of a closed ring (positive: counter-clockwise).
fn area2(ring: &[Vec<f64>]) -> f64 {
    ring.windows(2)
        .map(|w| w[0][0] * w[1][1] - w[1][0] * w[0][1])
        .sum()
}

fn polygons(g: &geojson::Value) -> Vec<&Vec<Vec<Vec<f64>>>> {
    match g {
        geojson::Value::Polygon(p) => vec![p],
        geojson::Value::MultiPolygon(m) => m.iter().collect(),
        other => panic!("not a polygon: {other:?}"),
    }
}

fn parse(path: &Path) -> geojson::FeatureCollection {
    let text = std::fs::read_to_string(path).unwrap();
    text.parse::<geojson::GeoJson>()
        .map(|g| geojson::FeatureCollection::try_from(g).unwrap())
        .expect("valid GeoJSON")
}

fn kind(f: &geojson::Feature) -> &str {
    f.property("kind").and_then(|k| k.as_str()).unwrap()
}

#[test]
fn geojson_parses_with_water_holes_areas_and_the_crater_north() {
    let bp = world();
    let dir = tempfile::tempdir().unwrap();
    let exact = dir.path().join("exact.geojson");
    gj::export(bp, &exact, Some(0.0)).unwrap();
    let fc = parse(&exact);
    let bodies = bp.water_bodies.as_ref().unwrap();
    let water: Vec<&geojson::Feature> = fc.features.iter().filter(|f| kind(f) == "water").collect();
    assert_eq!(water.len(), bodies.len(), "a feature per water body");
    let mut holes = 0;
    for f in &water {
        let id = f.property("wbid").unwrap().as_u64().unwrap() as u16;
        let body = bodies.iter().find(|b| b.id == id).unwrap();
        let mut area = 0.0;
        for poly in polygons(&f.geometry.as_ref().unwrap().value) {
            for (k, ring) in poly.iter().enumerate() {
                assert_eq!(ring.first(), ring.last(), "closed");
                assert!(ring.len() >= 4);
                let a = area2(ring) / 2.0;
                assert!(
                    if k == 0 { a > 0.0 } else { a < 0.0 },
                    "exterior CCW, holes CW"
                );
                area += a;
                holes += usize::from(k > 0);
            }
        }
        // unsimplified, a body's polygon covers exactly its pixels
        assert_eq!(area, f64::from(body.pixel_count) * 256.0, "body {id}");
    }
    assert!(holes > 0, "the island is a hole in the ocean");
    // simplified with the default tolerance: fewer positions, areas within a few pixels' worth
    let simple = dir.path().join("simple.geojson");
    let report = gj::export(bp, &simple, None).unwrap();
    let fc2 = parse(&simple);
    // Positions of the water polygons; `rivers` false counts the ocean and the lakes only (a
    // river reach is a few pixels, 16 m of channel, whose polygon has nothing to simplify).
    let count_of = |fc: &geojson::FeatureCollection, rivers: bool| -> usize {
        fc.features
            .iter()
            .filter(|f| kind(f) == "water")
            .filter(|f| rivers || f.property("type").and_then(|t| t.as_str()) != Some("river"))
            .flat_map(|f| {
                polygons(&f.geometry.as_ref().unwrap().value)
                    .into_iter()
                    .flatten()
                    .map(|r| r.len())
                    .collect::<Vec<_>>()
            })
            .sum()
    };
    assert!(count_of(&fc2, true) < count_of(&fc, true));
    let count = |fc: &geojson::FeatureCollection| count_of(fc, false);
    assert!(
        count(&fc2) * 10 < count(&fc) * 6,
        "{} vs {}",
        count(&fc2),
        count(&fc)
    );
    assert_eq!(
        report.polygon_positions,
        count_of(&fc2, true) + {
            fc2.features
                .iter()
                .filter(|f| kind(f) == "crater")
                .flat_map(|f| {
                    polygons(&f.geometry.as_ref().unwrap().value)
                        .into_iter()
                        .flatten()
                        .map(|r| r.len())
                        .collect::<Vec<_>>()
                })
                .sum::<usize>()
        }
    );
    let positions = |f: &geojson::Feature| -> usize {
        polygons(&f.geometry.as_ref().unwrap().value)
            .into_iter()
            .flatten()
            .map(|r| r.len())
            .sum()
    };
    for f in fc2.features.iter().filter(|f| kind(f) == "water") {
        let px = f.property("pixel_count").unwrap().as_f64().unwrap();
        let traced = fc
            .features
            .iter()
            .find(|g| g.property("wbid") == f.property("wbid"))
            .unwrap();
        // each vertex removed changes the area by less than its triangle, the tolerance (1 px²)
        let removed = positions(traced) - positions(f);
        let area: f64 = polygons(&f.geometry.as_ref().unwrap().value)
            .into_iter()
            .flatten()
            .map(|r| area2(r) / 2.0)
            .sum();
        assert!(
            (area / 256.0 - px).abs() <= removed as f64,
            "{area} vs {px} px"
        );
    }
    // the crater: polygons north of the middle (y north), its centre point inside their box
    let crater: Vec<&geojson::Feature> = fc2
        .features
        .iter()
        .filter(|f| kind(f) == "crater")
        .collect();
    assert!(!crater.is_empty());
    let pts: Vec<&Vec<f64>> = crater
        .iter()
        .flat_map(|f| {
            polygons(&f.geometry.as_ref().unwrap().value)
                .into_iter()
                .flatten()
                .flatten()
                .collect::<Vec<_>>()
        })
        .collect();
    let mean_y = pts.iter().map(|p| p[1]).sum::<f64>() / pts.len() as f64;
    assert!(
        mean_y > 4096.0,
        "the crater is on the north coast: mean y {mean_y}"
    );
    let centre = fc2
        .features
        .iter()
        .find(|f| kind(f) == "crater_centre")
        .unwrap();
    let geojson::Value::Point(c) = &centre.geometry.as_ref().unwrap().value else {
        panic!("a point")
    };
    assert!((c[0] - f64::from(bp.params.impact_center_x) * 16.0).abs() < 1e-3);
    assert!((c[1] - (512.0 - f64::from(bp.params.impact_center_y)) * 16.0).abs() < 1e-3);
    // the CRS is declared
    let foreign = fc2.foreign_members.as_ref().unwrap();
    assert!(foreign["crs"]["properties"]["name"]
        .as_str()
        .unwrap()
        .starts_with("ENGCRS"));
    // every polygon is a valid OGC geometry (geo's validation)
    use geo::Validation;
    for f in fc
        .features
        .iter()
        .chain(&fc2.features)
        .filter(|f| matches!(kind(f), "water" | "crater"))
    {
        let g: geo::Geometry<f64> = f
            .geometry
            .as_ref()
            .unwrap()
            .value
            .clone()
            .try_into()
            .unwrap();
        assert!(
            g.is_valid(),
            "{:?}: {:?}",
            f.properties,
            g.validation_errors()
        );
    }
}

#[test]
fn geojson_towns_roads_and_rivers_keep_their_attributes_in_metres() {
    let bp = sample::full(256, 5);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.geojson");
    let report = gj::export(&bp, &path, None).unwrap();
    let fc = parse(&path);
    let towns: Vec<&geojson::Feature> = fc.features.iter().filter(|f| kind(f) == "town").collect();
    assert_eq!(towns.len(), bp.towns.len());
    for (f, t) in towns.iter().zip(&bp.towns) {
        let geojson::Value::Point(p) = &f.geometry.as_ref().unwrap().value else {
            panic!("a point")
        };
        // 32 m a pixel; y north from the south-west corner
        assert!((p[0] - f64::from(t.x) * 32.0).abs() < 1e-3);
        assert!((p[1] - (256.0 - f64::from(t.y)) * 32.0).abs() < 1e-3);
        assert_eq!(f.property("tier").unwrap(), t.tier.label());
        assert_eq!(f.property("highway_node").unwrap(), t.is_highway_node);
    }
    let roads: usize = islagen::blueprint::RoadTier::ALL
        .iter()
        .map(|t| bp.roads.tier(*t).iter().filter(|p| p.len() >= 2).count())
        .sum();
    assert_eq!(report.roads, roads);
    let rivers = bp.rivers.as_ref().unwrap();
    let lines: Vec<&geojson::Feature> = fc.features.iter().filter(|f| kind(f) == "river").collect();
    assert_eq!(
        lines.len(),
        rivers.rivers.iter().filter(|r| r.points.len() >= 2).count()
    );
    for (f, r) in lines
        .iter()
        .zip(rivers.rivers.iter().filter(|r| r.points.len() >= 2))
    {
        assert_eq!(f.property("order").unwrap(), r.order);
        let widths = f.property("width_m").unwrap().as_array().unwrap();
        assert_eq!(widths.len(), r.points.len());
    }
    // determinism: the same bytes again
    let again = dir.path().join("again.geojson");
    gj::export(&bp, &again, None).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&again).unwrap()
    );
    // only the two files: no temporary left behind
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn a_v1_blueprint_without_water_sections_exports_from_the_biomes() {
    let mut bp = sample::full(256, 9);
    bp.water_ids = None;
    bp.water_bodies = None;
    bp.water_surface = None;
    bp.rivers = None;
    let dir = tempfile::tempdir().unwrap();
    let masks = splat::masks(&bp);
    for y in 0..256 {
        for x in 0..256 {
            let wet = matches!(bp.biomes[[x, y]], Biome::Ocean | Biome::Lake);
            assert_eq!(masks[0][y * 256 + x] == 255, wet);
        }
    }
    assert!(masks[2].iter().all(|&v| v == 0), "no rivers without WBID");
    let path = dir.path().join("v1.geojson");
    let r = gj::export(&bp, &path, None).unwrap();
    assert_eq!((r.water_bodies, r.rivers), (0, 0));
    assert!(r.crater >= 1);
    let s = heightmap::export(&bp, &dir.path().join("h.png"), HeightFormat::Png16, None).unwrap();
    assert_eq!(s.sea_level_source, "TCRV sea");
}

/// GDAL reads the GeoTIFF at the right scale and opens the GeoJSON (skipped without GDAL).
#[test]
fn gdal_opens_the_geotiff_and_the_geojson_when_installed() {
    let has = |tool: &str| {
        std::process::Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has("gdalinfo") || !has("ogrinfo") {
        crate::skip::skip(
            "GDAL",
            "gdalinfo / ogrinfo not installed (apt-get install gdal-bin)",
        );
        return;
    }
    let bp = world();
    let dir = tempfile::tempdir().unwrap();
    let tif = dir.path().join("h.tif");
    heightmap::export(bp, &tif, HeightFormat::Tiff, None).unwrap();
    let o = std::process::Command::new("gdalinfo")
        .args(["-json", "-stats"])
        .arg(&tif)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let info: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(info["size"], serde_json::json!([512, 512]));
    assert_eq!(
        info["geoTransform"],
        serde_json::json!([0.0, 16.0, 0.0, 8192.0, 0.0, -16.0])
    );
    let wkt = info["coordinateSystem"]["wkt"].as_str().unwrap_or_default();
    assert!(wkt.contains("metre"), "{wkt}");
    assert_eq!(info["bands"][0]["type"], "Float32");
    let json = dir.path().join("w.geojson");
    let r = gj::export(bp, &json, None).unwrap();
    let o = std::process::Command::new("ogrinfo")
        .args(["-ro", "-al", "-so"])
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let total = r.towns + r.roads + r.rivers + r.water_bodies + r.crater;
    assert!(text.contains(&format!("Feature Count: {total}")), "{text}");
    assert!(text.contains("metre"), "the CRS reaches OGR: {text}");
    // GEOS agrees every geometry is valid (where OGR's SQLite dialect has Spatialite)
    let o = std::process::Command::new("ogrinfo")
        .args(["-ro", "-dialect", "sqlite", "-sql"])
        .arg("select count(*) as invalid from w where not st_isvalid(geometry)")
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    if o.status.success() && text.contains("invalid (Integer)") {
        assert!(text.contains("invalid (Integer) = 0"), "{text}");
    } else {
        println!("skipped the validity query: no Spatialite in this GDAL");
    }
}
