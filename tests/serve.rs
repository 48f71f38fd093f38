//! `islagen serve`, over loopback against an in-process server on 127.0.0.1:0: the
//! world list, world metadata, tiles (pixels against the snapshots), probes, path confinement,
//! request limits, hostile blueprints, the preview and its validation, generation jobs, and a
//! bounded load test (1 000 tiles from 8 clients; latency printed, errors asserted).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use islagen::config::Config;
use islagen::pipeline::{self, SidecarLayout};
use islagen::progress::Progress;
use islagen_serve::{self as serve, ServeOptions, Server};
use serde_json::{json, Value};

/// A folder of worlds shared by the read-only tests: a generated 512 world with its
/// snapshots, a sweep folder, a truncated blueprint, a symlink out.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

fn generate_into(dir: &Path, seed: i32, size: u32, skip_roads: bool) -> PathBuf {
    let mut config = Config::from_json("{}", "test").unwrap().config;
    config.map_size = size;
    config.world_seed = seed;
    config.skip_roads = skip_roads;
    let progress = Progress::hidden();
    let mut world = pipeline::generate(&config, seed, &progress).unwrap();
    std::fs::create_dir_all(dir).unwrap();
    pipeline::export_with(&mut world, dir, SidecarLayout::Beside, &progress).unwrap();
    dir.join(format!("MapData_Seed_{seed}.dat"))
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("worlds");
        let dat = generate_into(&root, 7, 512, false);
        let sweep = root.join("sweep7");
        std::fs::create_dir_all(&sweep).unwrap();
        std::fs::copy(&dat, sweep.join("MapData_Seed_3.dat")).unwrap();
        std::fs::write(
            sweep.join("sweep.csv"),
            "seed,map_size,land_fraction\n3,512,0.343000\n4,512,\n",
        )
        .unwrap();
        let bytes = std::fs::read(&dat).unwrap();
        std::fs::create_dir_all(root.join("bad")).unwrap();
        std::fs::write(
            root.join("bad/MapData_Seed_9.dat"),
            &bytes[..bytes.len() / 3],
        )
        .unwrap();
        // A header that lies about its length: passes the listing's size check, fails to read.
        let mut lying = bytes.clone();
        let n = lying.len();
        lying[n / 2..].iter_mut().for_each(|b| *b = 0xEE);
        std::fs::write(root.join("bad/MapData_Seed_10.dat"), lying).unwrap();
        std::fs::write(dir.path().join("secret.dat"), &bytes).unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.dat"), root.join("escape.dat")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        std::os::unix::fs::symlink(root.join(W), root.join("alias.dat")).unwrap();
        std::os::unix::fs::symlink(root.join("nowhere.dat"), root.join("dangling.dat")).unwrap();
        Fixture { _dir: dir, root }
    })
}

fn start(dir: &Path) -> Server {
    let mut opts = ServeOptions::new(dir.to_path_buf(), "127.0.0.1:0".parse().unwrap());
    opts.exe = Some(PathBuf::from(env!("CARGO_BIN_EXE_islagen")));
    serve::start(opts).unwrap()
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

/// Status, headers of interest, body.
struct Reply {
    status: u16,
    content_type: String,
    error_header: Option<String>,
    stats_header: Option<String>,
    /// `X-Islagen-Surface`, parsed.
    surface: Option<Value>,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body[..self.body.len().min(300)])
            )
        })
    }
}

fn reply(mut r: ureq::http::Response<ureq::Body>) -> Reply {
    let header = |n: &str| {
        r.headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(String::from)
    };
    let (content_type, error_header, stats_header) = (
        header("content-type").unwrap_or_default(),
        header("x-islagen-error"),
        header("x-islagen-stats"),
    );
    let surface = header("x-islagen-surface").and_then(|v| serde_json::from_str(&v).ok());
    Reply {
        status: r.status().as_u16(),
        content_type,
        error_header,
        stats_header,
        surface,
        body: r
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_vec()
            .unwrap(),
    }
}

fn get(s: &Server, path: &str) -> Reply {
    reply(agent().get(format!("{}{path}", s.url())).call().unwrap())
}

fn post(s: &Server, path: &str, body: impl Into<Vec<u8>>) -> Reply {
    reply(
        agent()
            .post(format!("{}{path}", s.url()))
            .header("content-type", "application/json")
            .send(body.into())
            .unwrap(),
    )
}

/// A request line sent as is (no client-side normalisation); the status.
fn raw_status(s: &Server, target: &str) -> u16 {
    raw(s.addr(), "GET", target, "Host: localhost\r\n").0
}

/// A request sent as is with `headers` (each ending in CRLF): the status and the whole answer.
fn raw(addr: std::net::SocketAddr, method: &str, target: &str, headers: &str) -> (u16, String) {
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    write!(
        c,
        "{method} {target} HTTP/1.1\r\n{headers}Content-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    let _ = c.read_to_string(&mut text);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// Decodes a PNG: (width, height, colour type, pixels).
fn decode(bytes: &[u8]) -> (u32, u32, png::ColorType, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, info.color_type, buf)
}

const W: &str = "MapData_Seed_7.dat";

#[test]
fn the_world_list_names_worlds_sweeps_and_hostile_files() {
    let f = fixture();
    let s = start(&f.root);
    let r = get(&s, "api/worlds");
    assert_eq!(r.status, 200);
    let v = r.json();
    let worlds = v["worlds"].as_array().unwrap();
    let find = |id: &str| worlds.iter().find(|w| w["id"] == id).cloned();
    let w = find(W).expect("the world is listed");
    assert_eq!(
        (&w["map_size"], &w["seed"], &w["format"], &w["error"]),
        (&json!(512), &json!(7), &json!("v2"), &Value::Null)
    );
    assert_eq!(
        w["bytes"].as_u64().unwrap(),
        std::fs::metadata(f.root.join(W)).unwrap().len()
    );
    let v1 = find("MapData_Seed_7_v1.dat").expect("the v1 file is listed");
    assert_eq!((&v1["format"], &v1["seed"]), (&json!("v1"), &Value::Null));
    let bad = find("bad/MapData_Seed_9.dat").expect("the truncated file is listed");
    assert!(
        bad["error"].as_str().unwrap().contains("truncated"),
        "{bad}"
    );
    // Symlinked blueprints are never dropped silently: one to a file inside DIR is
    // that blueprint; one out of DIR, or to nothing, is listed with why it is not served.
    let alias = find("alias.dat").expect("a symlink inside DIR is listed");
    assert_eq!(
        (&alias["map_size"], &alias["error"]),
        (&json!(512), &Value::Null)
    );
    let escape = find("escape.dat").expect("a symlink out is listed");
    assert!(
        escape["error"]
            .as_str()
            .unwrap()
            .contains("out of the served folder"),
        "{escape}"
    );
    assert_eq!(
        (&escape["map_size"], &escape["bytes"]),
        (&Value::Null, &json!(0))
    );
    let dangling = find("dangling.dat").expect("a dangling symlink is listed");
    assert!(
        dangling["error"].as_str().unwrap().contains("dangling"),
        "{dangling}"
    );
    assert!(!worlds
        .iter()
        .any(|w| w["id"].as_str().unwrap().starts_with("up/")));
    let sweep = &v["sweeps"][0];
    assert_eq!(sweep["id"], "sweep7");
    assert_eq!(
        sweep["columns"],
        json!(["seed", "map_size", "land_fraction"])
    );
    assert_eq!(
        sweep["columns"],
        json!(["seed", "map_size", "land_fraction"])
    );
    assert_eq!(sweep["rows"][0]["world"], "sweep7/MapData_Seed_3.dat");
    assert_eq!(sweep["rows"][0]["values"], json!([3, 512, 0.343]));
    assert_eq!(sweep["rows"][1]["world"], Value::Null);
    assert_eq!(sweep["rows"][1]["values"][2], Value::Null);
}

#[test]
fn world_metadata_gives_units_layers_params_towns_and_exports() {
    let f = fixture();
    let s = start(&f.root);
    let v = get(&s, &format!("api/world?w={W}")).json();
    let bp = islagen::blueprint::read_file(&f.root.join(W))
        .unwrap()
        .blueprint;
    assert_eq!(v["map_size"], 512);
    assert_eq!(v["metres_per_px"], 16.0);
    assert_eq!(v["world_size_m"], 8192.0);
    assert_eq!(v["tile_size"], 256);
    assert_eq!(v["max_zoom"], 1);
    // The page's bounds come from the server, which refuses what is past them.
    assert_eq!(v["limits"]["view_px"], json!(serve::api::MAX_VIEW_PX));
    assert_eq!(
        v["limits"]["probe_radius_px"],
        json!(serve::probe::MAX_ROAD_RADIUS)
    );
    assert_eq!(
        v["limits"]["surface_samples"],
        json!(serve::surface::MAX_SURFACE_SAMPLES)
    );
    let layers: Vec<(&str, bool)> = v["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["id"].as_str().unwrap(), l["available"].as_bool().unwrap()))
        .collect();
    assert_eq!(layers.len(), 8);
    assert!(layers.iter().all(|(_, a)| *a), "{layers:?}");
    assert_eq!(v["params"]["PRMS"]["world_seed"], 7);
    assert!(v["params"]["TCRV"].is_object());
    assert_eq!(v["towns"].as_array().unwrap().len(), bp.towns.len());
    assert_eq!(v["towns"][0]["x"], json!(bp.towns[0].x));
    let range = v["height_range_m"].as_array().unwrap();
    assert!(range[0].as_f64().unwrap() < 0.0 && range[1].as_f64().unwrap() > 0.0);
    let exports: Vec<&str> = v["exports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert!(exports.contains(&"Map_Seed_7_0_height.png"), "{exports:?}");
    // An export is served, byte for byte.
    let r = get(&s, "api/file?path=Map_Seed_7_0_height.png");
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type, "image/png");
    assert_eq!(
        r.body,
        std::fs::read(f.root.join("Map_Seed_7_0_height.png")).unwrap()
    );
}

#[test]
fn tiles_are_256_pngs_rgb_for_bases_and_rgba_for_overlays_at_every_zoom() {
    let f = fixture();
    let s = start(&f.root);
    for layer in [
        "height", "biomes", "water", "towns", "roads", "rivers", "contours", "slope",
    ] {
        for (z, x, y) in [(0, 0, 0), (1, 1, 0), (4, 9, 3)] {
            let r = get(&s, &format!("api/tile/{layer}/{z}/{x}/{y}.png?w={W}"));
            assert_eq!(r.status, 200, "{layer} {z}/{x}/{y}");
            assert_eq!(r.content_type, "image/png");
            let (w, h, colour, px) = decode(&r.body);
            assert_eq!((w, h), (256, 256));
            let base = layer == "height" || layer == "biomes";
            let want = if base {
                png::ColorType::Rgb
            } else {
                png::ColorType::Rgba
            };
            assert_eq!(colour, want, "{layer}");
            if !base && z == 0 {
                // An overlay has transparent pixels and (all of these layers) drawn ones.
                let alpha: Vec<u8> = px.chunks(4).map(|p| p[3]).collect();
                assert!(
                    alpha.contains(&0) && alpha.iter().any(|&a| a > 0),
                    "{layer}"
                );
            }
        }
    }
    // The thumbnail is the z = 0 height tile.
    let thumb = get(&s, &format!("api/thumbnail.png?w={W}"));
    let tile = get(&s, &format!("api/tile/height/0/0/0.png?w={W}"));
    assert_eq!(decode(&thumb.body).3, decode(&tile.body).3);
}

/// The pixels of columns x0.. and rows y0.. (w × h) of an RGB picture `width` wide.
fn crop(rgb: &[u8], width: usize, (x0, y0): (usize, usize), (w, h): (usize, usize)) -> Vec<u8> {
    (y0..y0 + h)
        .flat_map(|y| rgb[(y * width + x0) * 3..(y * width + x0 + w) * 3].to_vec())
        .collect()
}

#[test]
fn a_tile_at_one_to_one_is_the_snapshot_window() {
    let f = fixture();
    let s = start(&f.root);
    for (layer, snapshot) in [("height", "0_height"), ("biomes", "1_biomes")] {
        let snap =
            islagen::render::read_png(&f.root.join(format!("Map_Seed_7_{snapshot}.png"))).unwrap();
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let r = get(&s, &format!("api/tile/{layer}/1/{x}/{y}.png?w={W}"));
            let (_, _, _, px) = decode(&r.body);
            let want = crop(&snap.rgb, 512, (x * 256, y * 256), (256, 256));
            assert!(px == want, "{layer} tile 1/{x}/{y} differs from {snapshot}");
        }
        // Enlarged: tile (3, 2, 1) shows map pixels 128..192 × 64..128, each as 4 × 4.
        let (_, _, _, px) = decode(&get(&s, &format!("api/tile/{layer}/3/2/1.png?w={W}")).body);
        let want = crop(&snap.rgb, 512, (128, 64), (64, 64));
        for j in 0..256 {
            for i in 0..256 {
                let (a, b) = ((j * 256 + i) * 3, ((j / 4) * 64 + i / 4) * 3);
                assert_eq!(px[a..a + 3], want[b..b + 3], "{layer} enlarged ({i}, {j})");
            }
        }
    }
}

/// Asks for `path` and checks the answer is `status` with the API's JSON error.
fn refused(s: &Server, path: &str, status: u16) {
    let r = get(s, path);
    assert_eq!(r.status, status, "{path}");
    assert!(r.json()["error"].is_string(), "{path}");
}

/// A server on the fixture, the fixture's world read whole, and its sea level (raw).
fn serving_the_fixture() -> (Server, islagen::blueprint::Blueprint, f32) {
    let f = fixture();
    let bp = islagen::blueprint::read_file(&f.root.join(W))
        .unwrap()
        .blueprint;
    let sea = islagen::exports::RecordedSea::of(&bp).raw;
    (start(&f.root), bp, sea)
}

#[test]
fn a_probe_reads_the_blueprint_in_metres() {
    let (s, bp, sea) = serving_the_fixture();
    for (x, y) in [(256.5, 256.25), (3.0, 500.9), (400.0, 100.0)] {
        let v = get(&s, &format!("api/probe?w={W}&x={x}&y={y}")).json();
        let (px, py) = (x as usize, y as usize);
        let want = (bp.heights[[px, py]] - sea) * islagen::units::METRES_PER_RAW;
        assert_eq!(v["height_m"].as_f64().unwrap() as f32, want);
        assert_eq!(v["biome"], bp.biomes[[px, py]].label());
        assert_eq!(v["x_m"], json!(x * 16.0));
        let id = bp.water_ids.as_ref().unwrap()[[px, py]];
        assert_eq!(v["water"].is_null(), id == 0, "{v}");
        assert!(v["town"]["distance_m"].as_f64().unwrap() >= 0.0);
    }
    for bad in [
        "x=512&y=0",
        "x=-1&y=3",
        "x=NaN&y=3",
        "x=1",
        "x=1&y=2&r=1000",
    ] {
        refused(&s, &format!("api/probe?w={W}&{bad}"), 400);
    }
}

#[test]
fn paths_outside_the_folder_are_refused() {
    let f = fixture();
    let s = start(&f.root);
    for target in [
        "/api/world?w=../secret.dat",
        "/api/world?w=..%2Fsecret.dat",
        "/api/world?w=%2Fetc%2Fpasswd",
        "/api/world?w=escape.dat",
        "/api/world?w=up/secret.dat",
        "/api/world?w=a%5C..%5Csecret.dat",
        "/api/world?w=x%00.dat",
        "/api/file?path=../secret.dat",
        "/api/file?path=%2E%2E/secret.dat",
        "/api/file?path=/etc/passwd",
        "/api/file?path=up/secret.dat",
        "/api/file?path=escape.dat",
        "/api/tile/height/0/0/0.png?w=../secret.dat",
        "/api/tile/height/0/0/0.png?w=escape.dat",
        "/static/../Cargo.toml",
        "/static/%2E%2E/Cargo.toml",
    ] {
        let status = raw_status(&s, target);
        assert!((400..500).contains(&status), "{target}: {status}");
    }
    // Through the client too, with the message as JSON.
    let r = get(&s, "api/world?w=..%2Fsecret.dat");
    assert_eq!(r.status, 400);
    assert!(r.json()["error"].as_str().unwrap().contains(".."));
    let r = get(&s, "api/world?w=escape.dat");
    assert_eq!(r.status, 403);
    assert!(r.json()["error"].as_str().unwrap().contains("outside"));
}

#[test]
fn bodies_and_coordinates_are_bounded_and_bad_requests_say_why() {
    let f = fixture();
    let s = start(&f.root);
    // Bodies past 4 MiB (room for painted masks: the preview, generation and save routes take
    // them) are refused.
    // (Just past it, as the 64 KiB check was: far past it, the server closes while the client
    // still writes.)
    let huge = format!(
        "{{\"seed\": 1, \"layer\": \"{}\"}}",
        "a".repeat((4 << 20) + (6 << 10))
    );
    assert_eq!(post(&s, "api/preview", huge).status, 413);
    let r = post(&s, "api/preview", "{\"seed\": 1, \"config\": ");
    assert_eq!(r.status, 400);
    assert!(!r.json()["error"].as_str().unwrap().is_empty());
    let r = post(&s, "api/preview", "{\"seed\": \"one\"}");
    assert!((400..500).contains(&r.status));
    assert!(r.json()["error"].is_string());
    // Tiles that do not exist: 404.
    for missing in [
        "api/tile/height/2/4/0.png",
        "api/tile/height/2/0/4.png",
        "api/tile/height/5/0/0.png",
        "api/tile/height/99/0/0.png",
        "api/tile/height/0/0/0.jpg",
        "api/tile/nope/0/0/0.png",
    ] {
        refused(&s, &format!("{missing}?w={W}"), 404);
    }
    // Malformed coordinates: 400, naming the coordinate (a leading `+` included).
    for malformed in [
        "api/tile/height/-1/0/0.png",
        "api/tile/height/0/0/x.png",
        "api/tile/height/+1/0/0.png",
        "api/tile/height/0/+0/0.png",
        "api/tile/height/0/0/.png",
        "api/tile/height/0/0/99999999999999999999.png",
    ] {
        let r = get(&s, &format!("{malformed}?w={W}"));
        assert_eq!(r.status, 400, "{malformed}");
        assert!(
            r.json()["error"].as_str().unwrap().contains("tile"),
            "{malformed}"
        );
    }
    assert_eq!(get(&s, "api/tile/height/0/0/0.png").status, 400);
    assert_eq!(get(&s, "api/nothing").status, 404);
    // A route asked with the wrong method: 405, the API's JSON error, and what is allowed.
    let r = post(&s, "api/worlds", "");
    assert_eq!(r.status, 405);
    assert!(
        r.json()["error"].as_str().unwrap().contains("POST"),
        "{:?}",
        r.json()
    );
    let (status, text) = raw(s.addr(), "DELETE", "/api/generate", "Host: localhost\r\n");
    assert_eq!(status, 405);
    assert!(text.to_ascii_lowercase().contains("allow: post"), "{text}");
    assert!(text.contains("\"error\""), "{text}");
    let r = get(
        &s,
        &format!("api/view.png?w={W}&layers=height&x0=0&y0=0&x1=512&y1=512&width=5000"),
    );
    assert_eq!(r.status, 400);
}

#[test]
fn a_hostile_blueprint_gives_an_error_and_the_server_still_answers() {
    let f = fixture();
    let s = start(&f.root);
    for w in ["bad/MapData_Seed_9.dat", "bad/MapData_Seed_10.dat"] {
        let r = get(&s, &format!("api/world?w={w}"));
        assert_eq!(r.status, 422, "{w}");
        let e = r.json()["error"].as_str().unwrap().to_string();
        assert!(e.starts_with("MapData_Seed_"), "{e}");
        assert!(e.contains("offset") || e.contains("byte"), "{e}");
        let r = get(&s, &format!("api/tile/height/0/0/0.png?w={w}"));
        assert_eq!(r.status, 200);
        assert!(r.error_header.is_some());
        assert_eq!(decode(&r.body).0, 256);
        assert_eq!(get(&s, &format!("api/probe?w={w}&x=1&y=1")).status, 422);
    }
    assert_eq!(get(&s, &format!("api/world?w={W}")).status, 200);
}

#[test]
fn the_view_composites_layers_at_the_asked_size() {
    let f = fixture();
    let s = start(&f.root);
    let r = get(
        &s,
        &format!("api/view.png?w={W}&layers=height,roads,towns&x0=0&y0=0&x1=512&y1=256&width=300"),
    );
    assert_eq!(r.status, 200);
    let (w, h, colour, with_roads) = decode(&r.body);
    assert_eq!((w, h, colour), (300, 150, png::ColorType::Rgb));
    let plain = get(
        &s,
        &format!("api/view.png?w={W}&layers=height&x0=0&y0=0&x1=512&y1=256&width=300"),
    );
    assert_ne!(decode(&plain.body).3, with_roads, "the overlays show");
}

#[test]
fn the_page_and_its_assets_are_served() {
    let f = fixture();
    let s = start(&f.root);
    let r = get(&s, "");
    assert_eq!(r.status, 200);
    assert!(r.content_type.starts_with("text/html"));
    assert_eq!(get(&s, "static/index.html").body, r.body);
    assert_eq!(get(&s, "static/no-such-file.js").status, 404);
}

#[test]
fn the_preview_is_a_png_and_a_refused_dial_is_named() {
    let f = fixture();
    let s = start(&f.root);
    let dials = get(&s, "api/dials").json();
    assert_eq!(dials["preview_size"], 512);
    let keys: Vec<&str> = dials["dials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["key"].as_str().unwrap())
        .collect();
    assert!(keys.contains(&"CraterRadius") && keys.contains(&"Erosion"));
    for k in &keys {
        assert!(islagen::config::KNOWN_KEYS.contains(k), "{k}");
    }
    let r = post(
        &s,
        "api/preview",
        json!({"seed": 7, "config": {"CraterRadius": 64}}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let (w, h, colour, px) = decode(&r.body);
    assert_eq!((w, h, colour), (512, 512, png::ColorType::Rgb));
    // Seed 7 at 512 with the defaults is the fixture's world: the same height picture.
    let snap = islagen::render::read_png(&f.root.join("Map_Seed_7_0_height.png")).unwrap();
    assert!(px == snap.rgb, "the preview is the world's 0_height");
    let stats: Value = serde_json::from_str(r.stats_header.as_deref().unwrap()).unwrap();
    assert_eq!(stats["seed"], 7);
    assert!(stats["seconds"].as_f64().unwrap() > 0.0);
    assert!(stats["towns"].as_u64().unwrap() > 0);
    eprintln!(
        "preview at 512: {:.3} s",
        stats["seconds"].as_f64().unwrap()
    );
    // The roads picture is the world's 3_roads.
    let r = post(
        &s,
        "api/preview",
        json!({"seed": 7, "config": {}, "layer": "roads"}).to_string(),
    );
    assert_eq!(r.status, 200);
    let roads = islagen::render::read_png(&f.root.join("Map_Seed_7_3_roads.png")).unwrap();
    assert!(
        decode(&r.body).3 == roads.rgb,
        "the roads preview is the world's 3_roads"
    );
    let r = post(
        &s,
        "api/preview",
        json!({"seed": 7, "layer": "slope"}).to_string(),
    );
    assert_eq!(r.status, 400);
    let r = post(
        &s,
        "api/preview",
        json!({"seed": 7, "config": {"CraterRadius": 500, "Erosion": "v1"}}).to_string(),
    );
    assert_eq!(r.status, 422);
    let v = r.json();
    assert_eq!(v["errors"][0]["key"], "CraterRadius");
    assert!(v["error"].as_str().unwrap().contains("CraterRadius"));
    let r = post(
        &s,
        "api/preview",
        json!({"seed": 7, "config": {"Rivers": "v7"}}).to_string(),
    );
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["errors"][0]["key"], "Rivers");
}

/// Dragging a slider: each preview is superseded by the next and its client goes away. The
/// superseded work is cancelled, never two run at once, and the last one is answered.
#[test]
fn superseded_previews_are_cancelled_and_never_run_side_by_side() {
    let s = start(&fixture().root);
    let addr = s.addr();
    let previews = &s.shared().previews;
    // Each client asks for a preview and stays until it is running; the next one supersedes it.
    let clients: Vec<std::net::TcpStream> = (1..=4)
        .map(|seed| {
            let body = json!({"seed": seed, "config": {"Erosion": "v1"}}).to_string();
            let mut c = std::net::TcpStream::connect(addr).unwrap();
            write!(
                c,
                "POST /api/preview HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
            let asked = Instant::now();
            while previews.started() < seed as usize {
                assert!(asked.elapsed() < Duration::from_secs(30), "preview {seed} never started");
                std::thread::sleep(Duration::from_millis(1));
            }
            c
        })
        .collect();
    let last = post(&s, "api/preview", json!({"seed": 5}).to_string());
    assert_eq!(last.status, 200, "{}", String::from_utf8_lossy(&last.body));
    drop(clients);
    assert_eq!(previews.peak(), 1, "previews ran side by side");
    assert!(
        previews.stopped() >= 1,
        "no superseded preview was cancelled"
    );
    eprintln!(
        "{} of 4 abandoned previews stopped early",
        previews.stopped()
    );
}

/// Browsing the list (its thumbnails) never evicts the world open, even with room for one.
#[test]
fn thumbnails_do_not_evict_the_open_world() {
    let f = fixture();
    let mut opts = ServeOptions::new(f.root.clone(), "127.0.0.1:0".parse().unwrap());
    opts.max_worlds = 1;
    let s = serve::start(opts).unwrap();
    assert_eq!(get(&s, &format!("api/world?w={W}")).status, 200);
    let other = "sweep7/MapData_Seed_3.dat";
    let r = get(&s, &format!("api/thumbnail.png?w={other}"));
    assert_eq!((r.status, r.content_type.as_str()), (200, "image/png"));
    let worlds = &s.shared().worlds;
    assert!(worlds.holds(&f.root.join(W)), "the open world was evicted");
    assert!(!worlds.holds(&f.root.join(other)));
}

/// A world's grids are read from its file as tiles need them: a file truncated while it is
/// served gives typed errors (an error tile naming the section, a 422 probe), never a crash, and
/// a file replaced while served is served as the new world.
#[test]
fn a_world_truncated_or_replaced_while_served_gives_errors_then_the_new_world() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(W);
    std::fs::copy(f.root.join(W), &path).unwrap();
    let s = start(dir.path());
    assert_eq!(get(&s, &format!("api/world?w={W}")).status, 200);
    assert_eq!(
        get(&s, &format!("api/tile/height/1/0/0.png?w={W}")).status,
        200
    );
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len / 3)
        .unwrap();
    let r = get(&s, &format!("api/tile/height/1/1/1.png?w={W}"));
    assert_eq!(r.status, 200);
    let e = r.error_header.expect("an error tile");
    assert!(
        e.contains(W) && (e.contains("byte") || e.contains("offset")),
        "{e}"
    );
    let r = get(&s, &format!("api/probe?w={W}&x=400&y=400"));
    assert_eq!(r.status, 422);
    // Replaced (renamed over) by a good copy: served as that world.
    let fresh = dir.path().join("fresh.tmp");
    std::fs::copy(f.root.join(W), &fresh).unwrap();
    std::fs::rename(&fresh, &path).unwrap();
    let r = get(&s, &format!("api/tile/height/1/1/1.png?w={W}"));
    assert_eq!((r.status, r.error_header), (200, None));
    assert_eq!(get(&s, &format!("api/probe?w={W}&x=400&y=400")).status, 200);
}

/// A preview takes only the Tune page's dials, within limits on the work they multiply.
#[test]
fn a_preview_refuses_keys_and_work_beyond_the_dials() {
    let s = start(&fixture().root);
    for (config, key) in [
        (
            json!({"ErosionDropletDensity": 1_000_000}),
            "ErosionDropletDensity",
        ),
        (json!({"ErosionSteps": 200}), "ErosionSteps"),
        (json!({"MapSize": 8192}), "MapSize"),
    ] {
        let r = post(
            &s,
            "api/preview",
            json!({"seed": 1, "config": config}).to_string(),
        );
        assert_eq!(r.status, 422, "{config}");
        assert_eq!(r.json()["errors"][0]["key"], key);
    }
    let dials = get(&s, "api/dials").json();
    let steps = dials["dials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["key"] == "ErosionSteps")
        .unwrap()
        .clone();
    assert_eq!(steps["preview_max"], 48.0);
}

fn wait_for_job(s: &Server, until: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let v = get(s, "api/job").json();
        if until(&v) {
            return v;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "job stuck: {v}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every path under `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            out.push(e.path().strip_prefix(root).unwrap().to_path_buf());
            if e.file_type().unwrap().is_dir() {
                walk(root, &e.path(), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn a_generation_job_runs_to_done_and_a_second_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(dir.path());
    assert_eq!(get(&s, "api/job").json()["state"], "idle");
    assert_eq!(post(&s, "api/job/cancel", "").status, 409);
    let r = post(
        &s,
        "api/generate",
        json!({"seed": 11, "size": 256, "config": {"SkipRoads": true}}).to_string(),
    );
    assert_eq!(r.status, 202, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["job"], 1);
    let r = post(
        &s,
        "api/generate",
        json!({"seed": 12, "size": 256}).to_string(),
    );
    assert_eq!(r.status, 409);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("already running: seed 11 at 256"));
    let v = wait_for_job(&s, |v| v["state"] != "running");
    assert_eq!(v["state"], "done", "{v}");
    assert_eq!(v["fraction"], 1.0);
    assert!(v["stages"].as_array().unwrap().len() > 5, "{v}");
    let id = v["world"].as_str().unwrap().to_string();
    assert_eq!(id, "gen-11-256/MapData_Seed_11.dat");
    let worlds = get(&s, "api/worlds").json();
    assert!(worlds["worlds"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["id"] == id.as_str() && w["error"].is_null()));
    assert!(dir.path().join("gen-11-256/ServerConfig.json").is_file());
    assert_eq!(get(&s, &format!("api/world?w={id}")).json()["seed"], 11);
    // Refused configs never start a job.
    let r = post(
        &s,
        "api/generate",
        json!({"seed": 1, "size": 100, "config": {}}).to_string(),
    );
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["errors"][0]["key"], "MapSize");
}

#[test]
fn a_dangling_symlink_where_the_new_world_would_go_is_stepped_over() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    let root = dir.path().join("worlds");
    std::fs::create_dir(&root).unwrap();
    std::os::unix::fs::symlink(outside.join("nowhere"), root.join("gen-13-256")).unwrap();
    let s = start(&root);
    let r = post(
        &s,
        "api/generate",
        json!({"seed": 13, "size": 256, "config": {"SkipRoads": true}}).to_string(),
    );
    assert_eq!(r.status, 202);
    let v = wait_for_job(&s, |v| v["state"] != "running");
    assert_eq!(v["state"], "done", "{v}");
    assert_eq!(v["world"], "gen-13-256-2/MapData_Seed_13.dat");
    assert!(root.join("gen-13-256-2/MapData_Seed_13.dat").is_file());
    assert!(!outside.exists(), "nothing is written through the link");
}

#[test]
fn cancelling_a_job_leaves_no_files_behind() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep.txt"), "x").unwrap();
    let before = listing(dir.path());
    // A job folder left by a server that was killed (no such process) is removed at start.
    let stale = dir.path().join(format!(".islagen-job-3-{}", u32::MAX - 1));
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join("MapData_Seed_1.dat"), "partial").unwrap();
    let s = start(dir.path());
    assert!(!stale.exists(), "a stale job folder is removed");
    let r = post(
        &s,
        "api/generate",
        json!({"seed": 5, "size": 2048, "config": {}}).to_string(),
    );
    assert_eq!(r.status, 202);
    wait_for_job(&s, |v| {
        v["stages"].as_array().is_some_and(|s| !s.is_empty())
    });
    let r = post(&s, "api/job/cancel", "");
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["state"], "cancelled");
    assert_eq!(get(&s, "api/job").json()["state"], "cancelled");
    assert_eq!(listing(dir.path()), before);
}

/// The bounded load test: 1 000 tile requests from 8 concurrent clients against a 1024 world,
/// mixed zooms and layers; no error allowed; latency printed (BENCHMARKS.md has the 8192 run).
#[test]
fn load_1000_tiles_from_8_clients() {
    let dir = tempfile::tempdir().unwrap();
    generate_into(dir.path(), 21, 1024, true);
    let s = start(dir.path());
    let url = s.url();
    let started = Instant::now();
    let threads: Vec<_> = (0..8u32)
        .map(|t| {
            let url = url.clone();
            std::thread::spawn(move || {
                let agent = agent();
                let layers = ["height", "biomes", "water", "contours", "slope", "height"];
                let mut times = Vec::new();
                let mut errors = Vec::new();
                for i in 0..125u32 {
                    let k = t * 125 + i;
                    let z = k % 6;
                    let n = 1u32 << z;
                    let (x, y) = ((k * 7 + t) % n, (k * 13 + i) % n);
                    let layer = layers[(k % 6) as usize];
                    let t0 = Instant::now();
                    let r = agent
                        .get(format!(
                            "{url}api/tile/{layer}/{z}/{x}/{y}.png?w=MapData_Seed_21.dat"
                        ))
                        .call();
                    match r.map(reply) {
                        Ok(r) if r.status == 200 && r.error_header.is_none() => {}
                        Ok(r) => errors.push(format!("{layer} {z}/{x}/{y}: {}", r.status)),
                        Err(e) => errors.push(format!("{layer} {z}/{x}/{y}: {e}")),
                    }
                    times.push(t0.elapsed());
                }
                (times, errors)
            })
        })
        .collect();
    let mut times = Vec::new();
    let mut errors = Vec::new();
    for t in threads {
        let (tm, e) = t.join().unwrap();
        times.extend(tm);
        errors.extend(e);
    }
    let wall = started.elapsed();
    assert!(
        errors.is_empty(),
        "{} errors: {:?}",
        errors.len(),
        &errors[..errors.len().min(5)]
    );
    assert_eq!(times.len(), 1000);
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    eprintln!(
        "1000 tiles, 8 clients, 1024 world: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms, {:.2} s wall; cache {:?}",
        ms(times[499]),
        ms(times[949]),
        ms(times[999]),
        wall.as_secs_f64(),
        s.shared().tiles.usage()
    );
}

/// The CLI: `islagen serve DIR --port 0` prints its URL and answers there; a bind off loopback
/// warns that the folder is shared.
#[test]
fn the_serve_command_prints_its_url_and_warns_off_loopback() {
    let f = fixture();
    for (bind, warns) in [("127.0.0.1", false), ("0.0.0.0", true)] {
        let (mut child, url) = serve_command(
            &f.root,
            &["--bind", bind, "--allow-host", "atlas.test"],
            true,
        );
        assert!(url.starts_with(&format!("http://{bind}:")), "{url}");
        let port = url.trim_end_matches('/').rsplit(':').next().unwrap();
        let r = agent()
            .get(format!("http://127.0.0.1:{port}/api/worlds"))
            .call()
            .unwrap();
        assert_eq!(r.status(), 200);
        let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let named = raw(addr, "GET", "/api/worlds", "Host: atlas.test\r\n").0;
        assert_eq!(named, 200, "--allow-host atlas.test");
        assert_eq!(
            raw(addr, "GET", "/api/worlds", "Host: other.test\r\n").0,
            403
        );
        child.kill().unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.contains("warning"), warns, "{stderr}");
    }
}

/// Another website can neither read the folder through a rebound name (DNS rebinding: the
/// Host is the attacker's) nor change anything with a cross-site request (CSRF: a body-less
/// POST to `/api/job/cancel` from a foreign page).
#[test]
fn other_websites_are_refused_by_host_and_origin() {
    let s = start(&fixture().root);
    let port = s.addr().port();
    let ok = format!("Host: 127.0.0.1:{port}\r\n");
    assert_eq!(raw(s.addr(), "GET", "/api/worlds", &ok).0, 200);
    assert_eq!(
        raw(s.addr(), "GET", "/api/worlds", "Host: localhost\r\n").0,
        200
    );
    for host in [format!("rebound.example:{port}"), "192.0.2.1".into()] {
        let (status, text) = raw(s.addr(), "GET", "/api/worlds", &format!("Host: {host}\r\n"));
        assert_eq!(status, 403, "{host}");
        assert!(text.contains("is not this server's address"), "{text}");
        assert!(!text.contains("MapData"), "{text}");
    }
    assert_eq!(raw(s.addr(), "GET", "/api/worlds", "").0, 403, "no Host");
    for foreign in [
        "Origin: http://evil.example\r\n",
        "Origin: null\r\n",
        "Sec-Fetch-Site: cross-site\r\n",
    ] {
        let (status, text) = raw(
            s.addr(),
            "POST",
            "/api/job/cancel",
            &format!("{ok}{foreign}"),
        );
        assert_eq!(status, 403, "{foreign}");
        assert!(text.contains("may not change anything"), "{text}");
    }
    // Another site's page may link to the page, but not load tiles or views with `<img>`.
    let from = |mode: &str| format!("{ok}Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: {mode}\r\n");
    let (status, page) = raw(s.addr(), "GET", "/", &from("navigate"));
    assert_eq!(status, 200);
    // ...but never frame it: a framed navigation is refused, and every answer tells
    // the browser not to frame it.
    let lower = page.to_ascii_lowercase();
    assert!(lower.contains("x-frame-options: deny"), "{page}");
    let csp = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-security-policy: "))
        .unwrap_or_default();
    for directive in [
        "frame-ancestors 'none'",
        "script-src 'self'",
        "default-src 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} not in {csp:?}");
    }
    for target in ["/", "/api/file?path=MapData_Seed_7.dat"] {
        let framed = format!("{}Sec-Fetch-Dest: iframe\r\n", from("navigate"));
        let (status, text) = raw(s.addr(), "GET", target, &framed);
        assert_eq!(status, 403, "{target}");
        assert!(text.contains("not frame it"), "{text}");
        assert!(
            text.to_ascii_lowercase().contains("x-frame-options: deny"),
            "{text}"
        );
    }
    let tile = format!("/api/tile/height/0/0/0.png?w={W}");
    assert_eq!(raw(s.addr(), "GET", &tile, &from("no-cors")).0, 403);
    // The page's own POST (same origin) and a tool's (no Origin) reach the handler.
    let own = format!("{ok}Origin: http://127.0.0.1:{port}\r\n");
    assert_ne!(raw(s.addr(), "POST", "/api/job/cancel", &own).0, 403);
    assert_ne!(raw(s.addr(), "POST", "/api/job/cancel", &ok).0, 403);
}

/// Folders a request must not see into: a hidden one (a running job writes into
/// `.islagen-job-*`), and an exports folder that is a symlink out of DIR (its file names and
/// sizes would describe files outside).
#[test]
fn hidden_folders_and_a_symlinked_exports_folder_are_not_served() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("worlds");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "not yours").unwrap();
    std::fs::copy(f.root.join(W), root.join(W)).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("Map_Seed_7_exports")).unwrap();
    let s = start(&root);
    let job = root.join(".islagen-job-1-1");
    std::fs::create_dir_all(&job).unwrap();
    std::fs::copy(f.root.join(W), job.join(W)).unwrap();
    let v = get(&s, &format!("api/world?w={W}")).json();
    let names: Vec<&str> = v["exports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"secret.txt"), "{names:?}");
    for target in [
        "api/world?w=.islagen-job-1-1/MapData_Seed_7.dat".to_string(),
        "api/tile/height/0/0/0.png?w=.islagen-job-1-1/MapData_Seed_7.dat".into(),
        "api/file?path=.islagen-job-1-1/MapData_Seed_7.dat".into(),
    ] {
        let r = get(&s, &target);
        assert_eq!(r.status, 400, "{target}");
        assert!(r.json()["error"].as_str().unwrap().contains("hidden"));
    }
    // A visible name that resolves into the hidden folder is refused on what it resolves to.
    std::os::unix::fs::symlink(&job, root.join("peek")).unwrap();
    for target in [
        "api/world?w=peek/MapData_Seed_7.dat".to_string(),
        "api/file?path=peek/MapData_Seed_7.dat".into(),
    ] {
        let r = get(&s, &target);
        assert_eq!(r.status, 403, "{target}");
        assert!(r.json()["error"].as_str().unwrap().contains("hidden"));
    }
}

/// The processes whose command line mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .collect()
}

/// `islagen serve ROOT --port 0 EXTRA…` as a child process (stderr kept when `stderr`), and the
/// URL it printed.
fn serve_command(root: &Path, extra: &[&str], stderr: bool) -> (std::process::Child, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_islagen"))
        .args(["serve", root.to_str().unwrap(), "--port", "0"])
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(if stderr {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::null()
        })
        .spawn()
        .unwrap();
    let url = printed_url(&mut child);
    (child, url)
}

/// Waits (10 s at most) for a line of the server's log that contains `needle`.
fn await_line(log: &std::sync::mpsc::Receiver<String>, needle: &str) {
    loop {
        let line = log
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("no log line with {needle:?}"));
        if line.contains(needle) {
            return;
        }
    }
}

/// The URL a just-started `islagen serve` prints as its first line.
fn printed_url(child: &mut std::process::Child) -> String {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    assert!(url.starts_with("http://"), "{line:?}");
    url
}

/// `islagen serve` on `root` (a child process), started generating a `size` world: the server,
/// its URL, and the prefix of its job folder's path (what the generation's command line names).
fn serving_and_generating(root: &Path, size: u32) -> (std::process::Child, String) {
    let (server, url) = serve_command(root, &[], false);
    let r = agent()
        .post(format!("{url}api/generate"))
        .content_type("application/json")
        .send(json!({"seed": 5, "size": size, "config": {}}).to_string())
        .unwrap();
    assert_eq!(r.status(), 202);
    let job_dir = root.to_str().unwrap().to_string() + "/.islagen-job-";
    let started = Instant::now();
    while processes_mentioning(&job_dir).is_empty() {
        assert!(started.elapsed() < Duration::from_secs(30), "no child seen");
        std::thread::sleep(Duration::from_millis(20));
    }
    (server, job_dir)
}

/// `kill -9` on `islagen serve` while it generates (nothing can run in the server then): the
/// generation dies with it (Linux's parent-death signal) rather than running on for minutes.
#[test]
fn killing_the_server_outright_kills_its_generation() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // 8192: the generation alone would run on for ~15 s.
    let (mut server, job_dir) = serving_and_generating(&root, 8192);
    server.kill().unwrap();
    server.wait().unwrap();
    let started = Instant::now();
    while !processes_mentioning(&job_dir).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the generation outlived its server"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `kill PID` (SIGTERM) on `islagen serve` while it generates: the server cancels the job
/// before it exits — no generation left running on its own, no job folder left behind.
#[test]
fn stopping_the_server_with_sigterm_stops_its_generation() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (mut server, job_dir) = serving_and_generating(&root, 2048);
    let kill = std::process::Command::new("kill")
        .arg(server.id().to_string())
        .status()
        .unwrap();
    assert!(kill.success());
    let started = Instant::now();
    while server.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "server still up"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        processes_mentioning(&job_dir).is_empty(),
        "the generation outlived the server"
    );
    assert_eq!(listing(&root), Vec::<PathBuf>::new(), "files left behind");
}

/// Stopping waits for requests in flight (here one whose body never finishes arriving); a
/// second Ctrl-C quits at once.
#[test]
fn a_second_ctrl_c_quits_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // -v: the server logs each request as its head arrives, the signal that it is in flight.
    let (mut server, url) = serve_command(dir.path(), &["-v"], true);
    // The server's log, line by line, as it comes.
    let (log_tx, log) = std::sync::mpsc::channel::<String>();
    let stderr = server.stderr.take().unwrap();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = log_tx.send(line);
        }
    });
    let addr: std::net::SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let mut hanging = std::net::TcpStream::connect(addr).unwrap();
    write!(
        hanging,
        "POST /api/preview HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"seed\""
    )
    .unwrap();
    await_line(&log, "POST /api/preview");
    let pid = server.id().to_string();
    let interrupt = || {
        let kill = std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap();
        assert!(kill.success());
    };
    interrupt();
    // Ready: the server says it is stopping (and so waits for the request in flight).
    await_line(&log, "stopping");
    assert!(
        server.try_wait().unwrap().is_none(),
        "the first Ctrl-C waits for the request in flight"
    );
    interrupt();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "still up after a second Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    drop(hanging);
}

/// A connection that sends a request line and stalls is closed after the header timeout; at the
/// connection cap a new request waits for a slot (it is not refused) and is then answered.
#[test]
fn slow_header_connections_are_closed_and_the_cap_holds_new_ones_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = ServeOptions::new(dir.path().to_path_buf(), "127.0.0.1:0".parse().unwrap());
    opts.limits = serve::listen::Limits {
        header_timeout: Duration::from_millis(1500),
        max_connections: 2,
    };
    let s = serve::start(opts).unwrap();
    let stall = || {
        let mut c = std::net::TcpStream::connect(s.addr()).unwrap();
        c.write_all(b"GET / HTTP/1.1\r\n").unwrap();
        c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        c
    };
    let stalled = [stall(), stall()];
    let t = Instant::now();
    // Both slots are held: this request is accepted only when the stalled ones are closed.
    let r = get(&s, "api/worlds");
    let waited = t.elapsed();
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert!(
        waited >= Duration::from_millis(1000),
        "answered after {waited:?}, while both connections were held"
    );
    for mut c in stalled {
        let t = Instant::now();
        let mut rest = Vec::new();
        // Closed by the server: end of stream (or a reset), never the 20 s read timeout.
        let closed = match c.read_to_end(&mut rest) {
            Ok(_) => true,
            Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
        };
        assert!(
            closed && t.elapsed() < Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
        assert!(!String::from_utf8_lossy(&rest).contains("200 OK"));
    }
}

/// `islagen serve ROOT --port 0` as PID 1 of a PID namespace of its own (`unshare`, which kills
/// it when killed), and its URL.
fn serve_in_pid_namespace(root: &Path) -> (std::process::Child, String) {
    let mut child = std::process::Command::new("unshare")
        .args(["--pid", "--fork", "--mount", "--mount-proc", "--kill-child"])
        .arg(env!("CARGO_BIN_EXE_islagen"))
        .args(["serve", root.to_str().unwrap(), "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let url = printed_url(&mut child);
    (child, url)
}

/// Whether this machine runs a process in a PID namespace of its own (root and `unshare`).
fn pid_namespaces() -> bool {
    std::process::Command::new("unshare")
        .args(["--pid", "--fork", "--mount", "--mount-proc", "true"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The container case: a server that is always PID 1 is killed outright mid-job, and the next
/// one — PID 1 again, its job counter back at 1 — cleans the old job folder (no live server
/// holds its lock) and runs a job. (`jobs`' unit test simulates the same collision everywhere.)
/// Without PID namespaces the test says so and passes, unless ISLAGEN_REQUIRE_PIDNS=1.
#[test]
fn a_server_killed_mid_job_and_restarted_under_the_same_pid_recovers() {
    if !pid_namespaces() {
        crate::skip::skip("PIDNS", "no PID namespaces here (needs root and unshare)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let post_job = |url: &str, size: u32| {
        agent()
            .post(format!("{url}api/generate"))
            .content_type("application/json")
            .send(json!({"seed": 5, "size": size, "config": {}}).to_string())
            .unwrap()
            .status()
    };
    let job_folders = || -> Vec<PathBuf> {
        listing(&root)
            .into_iter()
            .filter(|p| {
                p.to_string_lossy().starts_with(".islagen-job-") && p.components().count() == 1
            })
            .filter(|p| root.join(p).is_dir())
            .collect()
    };
    let (mut first, url) = serve_in_pid_namespace(&root);
    assert_eq!(post_job(&url, 8192), 202);
    let started = Instant::now();
    while job_folders().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(30), "no job folder");
        std::thread::sleep(Duration::from_millis(20));
    }
    let old = job_folders();
    assert!(
        old[0].to_string_lossy().starts_with(".islagen-job-1-1-"),
        "the first job of PID 1: {old:?}"
    );
    first.kill().unwrap();
    first.wait().unwrap();
    let job_dir = root.join(&old[0]).to_string_lossy().into_owned();
    let started = Instant::now();
    while !processes_mentioning(&job_dir).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the generation outlived its server"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        root.join(&old[0]).is_dir(),
        "killed outright, the server left its folder"
    );
    let (mut second, url) = serve_in_pid_namespace(&root);
    assert!(
        !root.join(&old[0]).exists(),
        "the stale folder was not cleaned at start"
    );
    assert_eq!(post_job(&url, 256), 202);
    let started = Instant::now();
    let state = loop {
        let v: Value = serde_json::from_slice(
            &agent()
                .get(format!("{url}api/job"))
                .call()
                .unwrap()
                .body_mut()
                .read_to_vec()
                .unwrap(),
        )
        .unwrap();
        if v["state"] != "running" || started.elapsed() > Duration::from_secs(120) {
            break v;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    second.kill().unwrap();
    second.wait().unwrap();
    assert_eq!(state["state"], "done", "{state}");
}

/// `/api/surface` gives the 3D view the region's heights in metres, every pixel when the region
/// is small, at most 1024 samples a side, water at its level; a bad region is a JSON 400.
#[test]
fn a_surface_is_the_region_in_metres_with_water_at_its_level() {
    let (s, bp, sea) = serving_the_fixture();
    let ids = bp.water_ids.as_ref().unwrap();
    let level = |id: u16| {
        let bodies = bp.water_bodies.as_ref().unwrap();
        bodies.iter().find(|b| b.id == id).unwrap().surface_level
    };
    let r = get(
        &s,
        &format!("api/surface?w={W}&x0=100&y0=200&x1=300&y1=260"),
    );
    assert_eq!(r.status, 200);
    let meta = r.surface.clone().expect("X-Islagen-Surface");
    let (nx, ny) = (
        meta["nx"].as_u64().unwrap() as usize,
        meta["ny"].as_u64().unwrap() as usize,
    );
    assert_eq!((nx, ny), (200, 60), "{meta}");
    assert_eq!(meta["step_m"], json!(16.0));
    assert_eq!(r.body.len(), nx * ny * 4);
    let at = |i: usize, j: usize| {
        let k = 4 * (j * nx + i);
        f32::from_le_bytes(r.body[k..k + 4].try_into().unwrap())
    };
    let (mut water, mut dry) = (0, 0);
    for j in 0..ny {
        for i in 0..nx {
            let (x, y) = (100 + i, 200 + j);
            let raw = match ids[[x, y]] {
                0 => {
                    dry += 1;
                    bp.heights[[x, y]]
                }
                id => {
                    water += 1;
                    level(id).max(bp.heights[[x, y]])
                }
            };
            let want = (raw - sea) * islagen::units::METRES_PER_RAW;
            assert_eq!(at(i, j), want, "pixel ({x}, {y})");
        }
    }
    assert!(water > 0 && dry > 0, "{water} water, {dry} dry samples");
    // The whole map: 512 px, every pixel; a region past the map is clipped to it.
    let r = get(&s, &format!("api/surface?w={W}&x0=-50&y0=0&x1=600&y1=512"));
    let meta = r.surface.clone().unwrap();
    assert_eq!(
        (meta["nx"].as_u64(), meta["ny"].as_u64()),
        (Some(512), Some(512)),
        "{meta}"
    );
    assert_eq!(meta["region"], json!([0.0, 0.0, 512.0, 512.0]));
    for bad in [
        "x0=5&y0=0&x1=5&y1=9",
        "x0=NaN&y0=0&x1=5&y1=9",
        "x0=600&y0=0&x1=700&y1=9",
        "x0=1",
    ] {
        refused(&s, &format!("api/surface?w={W}&{bad}"), 400);
    }
}

/// A painted island mask (a PNG in base64, as a canvas gives it) shapes the preview; painted
/// input that cannot be used is refused by its key.
#[test]
fn a_painted_mask_shapes_the_preview_and_bad_paint_is_refused_by_key() {
    use base64::Engine;
    let s = start(&fixture().root);
    // A disc in the west of the map, white on black.
    let n = 128usize;
    let disc: Vec<u8> = (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f32 / n as f32, (i / n) as f32 / n as f32);
            if (x - 0.38).hypot(y - 0.55) < 0.3 {
                255
            } else {
                0
            }
        })
        .collect();
    let png = |side: u32, height: u32, data: &[u8]| {
        let mut out = Vec::new();
        let mut e = png::Encoder::new(&mut out, side, height);
        e.set_color(png::ColorType::Grayscale);
        e.write_header().unwrap().write_image_data(data).unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode(&out);
        format!("data:image/png;base64,{b64}")
    };
    let mask = png(n as u32, n as u32, &disc);
    let ask = |shape: Value| {
        let body = json!({"seed": 7, "config": {}, "layer": "biomes", "shape": shape});
        post(&s, "api/preview", body.to_string())
    };
    let plain = post(
        &s,
        "api/preview",
        json!({"seed": 7, "layer": "biomes"}).to_string(),
    );
    let painted = ask(json!({ "IslandMask": mask }));
    assert_eq!(
        painted.status,
        200,
        "{}",
        String::from_utf8_lossy(&painted.body)
    );
    // Land (not ocean blue) where the disc is, at its centre and not at the map's east.
    let ocean = |px: &[u8], x: usize, y: usize| {
        let i = 3 * (y * 512 + x);
        px[i..i + 3] == islagen::render::biome_colour(islagen::blueprint::Biome::Ocean)[..]
    };
    let (_, _, _, p) = decode(&painted.body);
    let (_, _, _, q) = decode(&plain.body);
    assert!(!ocean(&p, 195, 282), "the painted disc's centre is land");
    assert!(ocean(&p, 410, 282), "east of the disc is sea");
    assert!(p != q, "the painted preview differs from the seed's island");
    // Bad paint, by key: not base64, not a PNG, too large, no land, pins off the map.
    let tall = png(1, 2048, &[255; 2048]);
    let black = png(8, 8, &[0; 64]);
    let cases = [
        (json!({ "IslandMask": "%%%" }), "IslandMask", "not base64"),
        (
            json!({ "ReliefMask": "aGVsbG8=" }),
            "ReliefMask",
            "is a PNG",
        ),
        (
            json!({ "HardRockMask": tall }),
            "HardRockMask",
            "at most 1024",
        ),
        (
            json!({ "IslandMask": black }),
            "IslandMask",
            "leaves no land",
        ),
        (
            json!({ "TownPins": [{ "x_m": 9000, "y_m": 1, "tier": "hub" }] }),
            "TownPins",
            "off the map",
        ),
    ];
    // Saved, the painting is a folder the command line makes the same world from: its 512
    // height picture is the painted preview, pixel for pixel.
    let pins = json!({ "type": "FeatureCollection", "features": [
        { "type": "Feature", "geometry": { "type": "Point", "coordinates": [3100.0, 3700.0] },
          "properties": { "tier": "village", "name": "Painted" } } ] });
    let shape = json!({ "IslandMask": mask, "TownPins": pins });
    let body = json!({"seed": 7, "config": {"CoastVariation": 0.5}, "shape": shape});
    let preview = post(&s, "api/preview", body.to_string());
    assert_eq!(
        preview.status,
        200,
        "{}",
        String::from_utf8_lossy(&preview.body)
    );
    let body = json!({"seed": 7, "size": 512, "config": {"CoastVariation": 0.5}, "shape": shape});
    // A draft (the first pass while painting): the island without valleys and rivers.
    let draft =
        json!({"seed": 7, "layer": "biomes", "draft": true, "shape": { "IslandMask": mask }});
    let r = post(&s, "api/preview", draft.to_string());
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let stats: Value = serde_json::from_str(r.stats_header.as_deref().unwrap()).unwrap();
    assert_eq!(
        (stats["draft"].clone(), stats["rivers"].clone()),
        (json!(true), Value::Null)
    );
    assert!(
        !ocean(&decode(&r.body).3, 195, 282),
        "the draft has the painted land"
    );
    // The 3D view's heights of the last preview: 512² metres, the sea at 0; an older one is gone.
    let id = stats["surface"].as_u64().unwrap();
    let surface = get(&s, &format!("api/preview/surface?id={id}"));
    assert_eq!(surface.status, 200);
    assert_eq!(surface.body.len(), 512 * 512 * 4);
    let metres: Vec<f32> = (surface.body.chunks(4))
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert!(metres.iter().all(|&m| m >= 0.0) && metres[282 * 512 + 195] > 0.0);
    assert_eq!(metres[5 * 512 + 5], 0.0, "the Trench is sea, at 0 m");
    assert_eq!(
        get(&s, &format!("api/preview/surface?id={}", id - 1)).status,
        404
    );
    // Saved in a folder of its own (the shared fixture's stays as it is).
    let scratch = tempfile::tempdir().unwrap();
    let saver = start(scratch.path());
    let saved = post(&saver, "api/shape/save", body.to_string());
    assert_eq!(
        saved.status,
        201,
        "{}",
        String::from_utf8_lossy(&saved.body)
    );
    let folder = scratch
        .path()
        .join(saved.json()["folder"].as_str().unwrap());
    for f in ["ServerConfig.json", "island-mask.png", "town-pins.geojson"] {
        assert!(folder.join(f).is_file(), "{f} not saved");
    }
    let again = post(&saver, "api/shape/save", body.to_string());
    assert_eq!(
        again.json()["folder"],
        json!("shape-7-512-2"),
        "a second save takes a new name"
    );
    let out = tempfile::tempdir().unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_islagen"))
        .arg("--config")
        .arg(folder.join("ServerConfig.json"))
        .args(["--skip-roads", "--quiet", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let made = islagen::render::read_png(&out.path().join("Map_Seed_7_0_height.png")).unwrap();
    assert!(
        decode(&preview.body).3 == made.rgb,
        "the saved painting makes another world"
    );
    for (shape, key, why) in cases {
        let r = ask(shape);
        assert_eq!(r.status, 422, "{key}: {}", String::from_utf8_lossy(&r.body));
        let v = r.json();
        assert_eq!(v["errors"][0]["key"], key, "{v}");
        assert!(
            v["errors"][0]["message"].as_str().unwrap().contains(why),
            "{v}"
        );
    }
}
