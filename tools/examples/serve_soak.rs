//! Soak test of `islagen serve` under its memory limits: many clients request tiles
//! of every layer and zoom from every world in a folder for a while, and the server process's
//! peak resident memory is held against the limits it was given.
//!
//! It runs `ISLAGEN serve DIR --port 0` with `--cache-mib`, `--world-mib` and `--max-worlds` as
//! given, then `--clients` threads, each its own connection (kept alive), ask for random tiles
//! (world, layer, zoom, column, row uniformly drawn; zooms from the whole island to 8× past one
//! pixel) for `--seconds`. Each thread checks every answer: 200 and no `X-Islagen-Error`. The
//! server's VmRSS is sampled every 100 ms and its VmHWM read at the end.
//!
//! Prints one JSON object: requests, errors (and the first few), req/s, latency p50/p95/p99/max
//! in ms, peak RSS in MiB, the limits, and `bound_mib` = cache + world budget + 300 MiB (the
//! bound the README promises).
//!
//! `cargo run --release -p islagen-tools --example serve_soak -- --bin target/release/islagen --dir DIR
//! [--seconds 120] [--clients 200] [--cache-mib 256] [--world-mib 2048] [--max-worlds 6]
//! [--seed 1]` (`scripts/serve-soak.sh` makes the worlds and runs it).

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use islagen_serve::tiles;

struct Args {
    bin: PathBuf,
    dir: PathBuf,
    seconds: u64,
    clients: usize,
    cache_mib: u64,
    world_mib: u64,
    max_worlds: usize,
    seed: u64,
}

fn args() -> Args {
    let mut a = Args {
        bin: PathBuf::from("target/release/islagen"),
        dir: PathBuf::from("."),
        seconds: 120,
        clients: 200,
        cache_mib: 256,
        world_mib: 2048,
        max_worlds: 6,
        seed: 1,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    for pair in argv.chunks(2) {
        let v = pair.get(1).map(String::as_str).unwrap_or("");
        let number = |name: &str| v.parse::<u64>().unwrap_or_else(|_| panic!("{name} N"));
        match pair[0].as_str() {
            "--bin" => a.bin = PathBuf::from(v),
            "--dir" => a.dir = PathBuf::from(v),
            "--seconds" => a.seconds = number("--seconds"),
            "--clients" => a.clients = number("--clients") as usize,
            "--cache-mib" => a.cache_mib = number("--cache-mib"),
            "--world-mib" => a.world_mib = number("--world-mib"),
            "--max-worlds" => a.max_worlds = number("--max-worlds") as usize,
            "--seed" => a.seed = number("--seed"),
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

/// A world the clients ask for: its name in the folder and its side.
struct World {
    name: String,
    side: usize,
}

/// Every `.dat` in `dir`, with its MapSize from the header.
fn worlds(dir: &std::path::Path) -> Vec<World> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("the world folder").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".dat") {
            continue;
        }
        let mut prefix = vec![0u8; 4096];
        let mut f = std::fs::File::open(e.path()).unwrap();
        let n = std::io::Read::read(&mut f, &mut prefix).unwrap();
        let len = f.metadata().unwrap().len();
        let header = islagen::blueprint::read::read_header(&prefix[..n], len).expect("a blueprint");
        out.push(World {
            name,
            side: header.map_size as usize,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix(field)?
                .trim()
                .strip_suffix("kB")?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

const LAYERS: [&str; 8] = [
    "height", "biomes", "water", "towns", "roads", "rivers", "contours", "slope",
];

/// SplitMix64: a load generator's draws need no more.
struct SplitMix(u64);

impl SplitMix {
    /// A draw in 0..n.
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// What one client saw.
#[derive(Default)]
struct Seen {
    latencies_us: Vec<u64>,
    errors: Vec<String>,
}

fn client(url: String, worlds: Arc<Vec<World>>, seed: u64, stop: Arc<AtomicBool>) -> Seen {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .max_idle_connections_per_host(1)
        .build()
        .into();
    let mut rng = SplitMix(seed);
    let mut seen = Seen::default();
    while !stop.load(Ordering::Relaxed) {
        let w = &worlds[rng.below(worlds.len() as u64) as usize];
        let layer = LAYERS[rng.below(LAYERS.len() as u64) as usize];
        let z = rng.below(u64::from(tiles::max_zoom(w.side) + tiles::EXTRA_ZOOM) + 1) as u32;
        let n = 1u32 << z;
        let (x, y) = (rng.below(n.into()), rng.below(n.into()));
        let target = format!("{url}api/tile/{layer}/{z}/{x}/{y}.png?w={}", w.name);
        let t = Instant::now();
        match agent.get(&target).call() {
            Ok(mut r) => {
                let ok = r.status() == 200 && r.headers().get("x-islagen-error").is_none();
                let body = r.body_mut().read_to_vec();
                seen.latencies_us.push(t.elapsed().as_micros() as u64);
                if !ok || body.is_err() {
                    let why = r
                        .headers()
                        .get("x-islagen-error")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("")
                        .to_string();
                    seen.errors.push(format!("{target}: {} {why}", r.status()));
                }
            }
            Err(e) => seen.errors.push(format!("{target}: {e}")),
        }
    }
    seen
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

fn main() {
    let a = args();
    let worlds = Arc::new(worlds(&a.dir));
    assert!(!worlds.is_empty(), "no .dat in {}", a.dir.display());
    let mut server = std::process::Command::new(&a.bin)
        .arg("serve")
        .arg(&a.dir)
        .args(["--port", "0", "--max-connections", "1024"])
        .args(["--cache-mib", &a.cache_mib.to_string()])
        .args(["--world-mib", &a.world_mib.to_string()])
        .args(["--max-worlds", &a.max_worlds.to_string()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("running islagen serve");
    let mut line = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    let pid = server.id();
    let stop = Arc::new(AtomicBool::new(false));
    let peak_rss = Arc::new(Mutex::new(0u64));
    let sampler = {
        let (stop, peak) = (stop.clone(), peak_rss.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let rss = status_kib(pid, "VmRSS:");
                let mut p = peak.lock().unwrap();
                *p = (*p).max(rss);
                drop(p);
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let started = Instant::now();
    let threads: Vec<_> = (0..a.clients)
        .map(|i| {
            let (url, worlds, stop) = (url.clone(), worlds.clone(), stop.clone());
            let seed = a.seed * 1_000_003 + i as u64;
            std::thread::spawn(move || client(url, worlds, seed, stop))
        })
        .collect();
    std::thread::sleep(Duration::from_secs(a.seconds));
    stop.store(true, Ordering::Relaxed);
    let mut all = Seen::default();
    for t in threads {
        let s = t.join().unwrap();
        all.latencies_us.extend(s.latencies_us);
        all.errors.extend(s.errors);
    }
    let wall = started.elapsed().as_secs_f64();
    let _ = sampler.join();
    let hwm_kib = status_kib(pid, "VmHWM:");
    let _ = server.kill();
    let _ = server.wait();
    all.latencies_us.sort_unstable();
    let peak_mib = hwm_kib.max(*peak_rss.lock().unwrap()) / 1024;
    let bound_mib = a.cache_mib + a.world_mib + 300;
    let out = serde_json::json!({
        "worlds": worlds.iter().map(|w| &w.name).collect::<Vec<_>>(),
        "clients": a.clients,
        "seconds": wall,
        "requests": all.latencies_us.len(),
        "req_per_s": all.latencies_us.len() as f64 / wall,
        "errors": all.errors.len(),
        "first_errors": all.errors.iter().take(5).collect::<Vec<_>>(),
        "p50_ms": percentile(&all.latencies_us, 0.50),
        "p95_ms": percentile(&all.latencies_us, 0.95),
        "p99_ms": percentile(&all.latencies_us, 0.99),
        "max_ms": percentile(&all.latencies_us, 1.0),
        "peak_rss_mib": peak_mib,
        "limits": {"cache_mib": a.cache_mib, "world_mib": a.world_mib, "max_worlds": a.max_worlds},
        "bound_mib": bound_mib,
        "within_bound": peak_mib <= bound_mib,
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}
