//! Load benchmark of `islagen serve`'s tiles: a world (generated at `--size`, 8192 by
//! default, written as v2 into a temporary folder that is deleted afterwards, or taken from
//! `--world FILE`), an in-process server on 127.0.0.1:0, then `--requests` distinct tile
//! requests (mixed zooms and layers, weighted to the deep zooms a person browses) from
//! `--clients` concurrent clients over loopback: once cold (nothing in the tile cache; the
//! world already loaded, its load timed on its own) and once warm (every tile cached).
//!
//! Before the tiles it times, in the same run, the whole blueprint read (`read_file`: what the
//! server did before it read grids by position — the baseline) against the server's first tile
//! of the world (`height` 0/0/0: the open and one tile), and prints the process's resident
//! memory; with `--copies N` it opens N hard-linked copies of the world (N worlds to the cache)
//! and prints the resident memory after; `--open-only` stops there.
//!
//! `cargo run --release -p islagen-tools --example serve_load -- [--size 8192] [--world FILE] [--requests 1000]
//! [--clients 8] [--seed 1] [--copies 1] [--open-only] [--no-baseline]`
//! (`scripts/bench-serve.sh` runs it).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use islagen::config::Config;
use islagen::progress::Progress;
use islagen_serve::{self as serve, tiles, ServeOptions};

struct Args {
    size: u32,
    world: Option<PathBuf>,
    requests: usize,
    clients: usize,
    seed: i32,
    copies: usize,
    open_only: bool,
    no_baseline: bool,
}

fn args() -> Args {
    let mut a = Args {
        size: 8192,
        world: None,
        requests: 1000,
        clients: 8,
        seed: 1,
        copies: 1,
        open_only: false,
        no_baseline: false,
    };
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = argv.iter().position(|a| a == "--open-only") {
        a.open_only = true;
        argv.remove(i);
    }
    if let Some(i) = argv.iter().position(|a| a == "--no-baseline") {
        a.no_baseline = true;
        argv.remove(i);
    }
    for pair in argv.chunks(2) {
        let v = pair.get(1).map(String::as_str).unwrap_or("");
        match pair[0].as_str() {
            "--copies" => a.copies = v.parse().expect("--copies N"),
            "--size" => a.size = v.parse().expect("--size N"),
            "--world" => a.world = Some(PathBuf::from(v)),
            "--requests" => a.requests = v.parse().expect("--requests N"),
            "--clients" => a.clients = v.parse().expect("--clients N"),
            "--seed" => a.seed = v.parse().expect("--seed N"),
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

/// `n` distinct tiles of a map of side `side`: zooms weighted to the deep end, layers mostly
/// the base with overlays mixed in (a deterministic walk).
fn tile_list(side: usize, n: usize) -> Vec<(&'static str, u32, u32, u32)> {
    let top = tiles::max_zoom(side);
    let zooms: Vec<u32> = [0, 1, 2, 3, 4, 4, 5, 5, 5, 6, 6, 6, 7, 8]
        .iter()
        .map(|&d| (top + 1).saturating_sub(6) + d)
        .filter(|&z| z <= top + 2)
        .collect();
    let layers = [
        "height", "height", "height", "biomes", "roads", "water", "contours", "towns", "rivers",
        "slope",
    ];
    let mut seen = BTreeSet::new();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // A small map has fewer distinct tiles than asked for: stop after enough tries.
    for _ in 0..100 * n {
        if seen.len() == n {
            break;
        }
        let z = zooms[(next() % zooms.len() as u64) as usize];
        let span = 1u64 << z;
        // Near the middle of the map, where the island is.
        let around = |r: u64| {
            ((span / 2) as i64 + (r % span.max(1)) as i64 / 2 - span as i64 / 4)
                .clamp(0, span as i64 - 1) as u32
        };
        let (x, y) = (around(next()), around(next()));
        let layer = layers[(next() % layers.len() as u64) as usize];
        seen.insert((layer, z, x, y));
    }
    let mut list: Vec<_> = seen.into_iter().collect();
    // Interleave zooms and layers across the clients.
    list.sort_by_key(|t| (t.1 as u64 * 7919 + t.2 as u64 * 104_729 + t.3 as u64) % 1009);
    list
}

fn run_pass(url: &str, id: &str, list: &[(&'static str, u32, u32, u32)], clients: usize) -> Pass {
    let started = Instant::now();
    let chunks: Vec<Vec<_>> = (0..clients)
        .map(|c| list.iter().skip(c).step_by(clients).copied().collect())
        .collect();
    let handles: Vec<_> = chunks
        .into_iter()
        .map(|chunk| {
            let (url, id) = (url.to_string(), id.to_string());
            std::thread::spawn(move || {
                let agent = agent();
                let mut times = Vec::new();
                let mut errors = 0;
                for (layer, z, x, y) in chunk {
                    let t0 = Instant::now();
                    let ok = agent
                        .get(format!("{url}api/tile/{layer}/{z}/{x}/{y}.png?w={id}"))
                        .call()
                        .ok()
                        .and_then(|mut r| {
                            let ok =
                                r.status() == 200 && r.headers().get("x-islagen-error").is_none();
                            r.body_mut().read_to_vec().ok().filter(|_| ok)
                        })
                        .is_some();
                    times.push((t0.elapsed(), layer));
                    errors += usize::from(!ok);
                }
                (times, errors)
            })
        })
        .collect();
    let mut times = Vec::new();
    let mut errors = 0;
    for h in handles {
        let (t, e) = h.join().expect("client thread");
        times.extend(t);
        errors += e;
    }
    times.sort();
    let mut by_layer: Vec<(&'static str, Vec<Duration>)> = Vec::new();
    for &(t, layer) in &times {
        match by_layer.iter_mut().find(|(l, _)| *l == layer) {
            Some((_, v)) => v.push(t),
            None => by_layer.push((layer, vec![t])),
        }
    }
    let times = times.into_iter().map(|(t, _)| t).collect();
    (times, errors, started.elapsed(), by_layer)
}

/// A pass: every latency (sorted), the errors, the wall time, and the latencies by layer.
type Pass = (
    Vec<Duration>,
    usize,
    Duration,
    Vec<(&'static str, Vec<Duration>)>,
);

fn report(name: &str, (times, errors, wall, by_layer): &Pass) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let at = |q: f64| quantile(times, q);
    println!(
        "{name}: {} requests, {errors} errors, p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms, wall {:.2} s ({:.0} tiles/s)",
        times.len(),
        ms(at(0.50)),
        ms(at(0.95)),
        ms(*times.last().unwrap_or(&Duration::ZERO)),
        wall.as_secs_f64(),
        times.len() as f64 / wall.as_secs_f64()
    );
    let layers: Vec<String> = by_layer
        .iter()
        .map(|(layer, t)| {
            let p = |q: f64| ms(quantile(t, q));
            format!("{layer} {:.1}/{:.1}", p(0.5), p(0.95))
        })
        .collect();
    println!("  by layer (p50/p95 ms): {}", layers.join(", "));
}

fn main() {
    let a = args();
    let tmp = tempfile::tempdir_in(std::env::temp_dir()).expect("a temporary folder");
    let dat = match &a.world {
        Some(w) => w.clone(),
        None => {
            let mut config = Config::from_json("{}", "bench").expect("defaults").config;
            config.map_size = a.size;
            config.world_seed = a.seed;
            let t = Instant::now();
            let world = islagen::pipeline::generate(&config, a.seed, &Progress::hidden())
                .expect("generation");
            let path = tmp.path().join(format!("MapData_Seed_{}.dat", a.seed));
            islagen::blueprint::write_v2_file(&path, &world.blueprint).expect("writing the world");
            println!(
                "generated seed {} at {} in {:.1} s ({} MB)",
                a.seed,
                a.size,
                t.elapsed().as_secs_f64(),
                std::fs::metadata(&path).map_or(0, |m| m.len() >> 20)
            );
            path
        }
    };
    // The baseline, in this run: the whole read, as the server did before.
    if !a.no_baseline {
        let t = Instant::now();
        let whole = islagen::blueprint::read_file(&dat).expect("reading the world whole");
        println!(
            "baseline: the whole blueprint read in {:.2} s, resident {} MiB with it",
            t.elapsed().as_secs_f64(),
            resident_mib()
        );
        drop(whole);
    }
    // The served folder: hard links to the world (each one a world to the cache).
    let served = tempfile::tempdir_in(dat.parent().expect("the world's folder")).expect("a folder");
    let ids: Vec<String> = (1..=a.copies.max(1))
        .map(|k| {
            let id = format!("MapData_Seed_{k}.dat");
            std::fs::hard_link(&dat, served.path().join(&id)).expect("a hard link");
            id
        })
        .collect();
    // The baseline first (every world read whole, as before), then the grids read by position.
    let modes: &[bool] = if a.no_baseline {
        &[false]
    } else {
        &[true, false]
    };
    for &in_memory in modes {
        let what = match in_memory {
            true => "baseline, grids read whole into memory",
            false => "grids read by position",
        };
        println!("-- {what}");
        let mut opts = ServeOptions::new(
            served.path().to_path_buf(),
            "127.0.0.1:0".parse().expect("addr"),
        );
        opts.grids_in_memory = in_memory;
        let server = serve::start(opts).expect("the server");
        let url = server.url();
        open_worlds(&url, &ids);
        if !a.open_only {
            let side = whole_side(&url, &ids[0]);
            let list = tile_list(side, a.requests);
            report(
                "cold (tiles rendered)",
                &run_pass(&url, &ids[0], &list, a.clients),
            );
            report(
                "warm (tiles cached)",
                &run_pass(&url, &ids[0], &list, a.clients),
            );
            let (n, bytes) = server.shared().tiles.usage();
            println!("tile cache: {n} tiles, {:.1} MB", bytes as f64 / 1e6);
        }
        server.shutdown();
    }
    if a.open_only {
        return;
    }
    let server = serve::start(ServeOptions::new(
        served.path().to_path_buf(),
        "127.0.0.1:0".parse().expect("addr"),
    ))
    .expect("the server");
    let url = server.url();
    let agent = agent();
    // The tune panel's preview: five seeds at 512, one after the other.
    let mut seconds = Vec::new();
    for seed in 1..=5 {
        let t = Instant::now();
        let r = agent
            .post(format!("{url}api/preview"))
            .header("content-type", "application/json")
            .send(format!("{{\"seed\": {seed}, \"config\": {{}}}}"))
            .expect("/api/preview");
        assert_eq!(r.status(), 200, "preview of seed {seed}");
        seconds.push(t.elapsed().as_secs_f64());
    }
    println!(
        "preview at 512 (seeds 1-5, height layer): {}",
        seconds
            .iter()
            .map(|s| format!("{s:.2} s"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    server.shutdown();
    drop(served);
    drop(tmp);
}

/// The `q` quantile of sorted times (the nearest rank below).
fn quantile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() as f64 * q) as usize).min(sorted.len() - 1)]
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// Opens each world by its first tile (`height` 0/0/0), timing it and printing the resident
/// memory after.
fn open_worlds(url: &str, ids: &[String]) {
    println!("resident {} MiB before any world is open", resident_mib());
    for (k, id) in ids.iter().enumerate() {
        let t = Instant::now();
        let r = agent()
            .get(format!("{url}api/tile/height/0/0/0.png?w={id}"))
            .call()
            .expect("the first tile");
        assert_eq!(r.status(), 200);
        assert!(
            r.headers().get("x-islagen-error").is_none(),
            "an error tile"
        );
        println!(
            "world {}: first tile (open + height 0/0/0) in {:.3} s; resident {} MiB",
            k + 1,
            t.elapsed().as_secs_f64(),
            resident_mib()
        );
    }
}

/// The world's MapSize, from `/api/world`.
fn whole_side(url: &str, id: &str) -> usize {
    let mut meta = agent()
        .get(format!("{url}api/world?w={id}"))
        .call()
        .expect("/api/world");
    let meta: serde_json::Value =
        serde_json::from_slice(&meta.body_mut().read_to_vec().expect("body")).expect("JSON");
    meta["map_size"].as_u64().expect("map_size") as usize
}

/// This process's resident memory, MiB (`VmRSS`; 0 where /proc is absent).
fn resident_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb >> 10)
}
