//! `islagen serve` in a real browser: headless Chromium, driven over the DevTools
//! protocol, uses the page the way a person would — the world list appears (thumbnail drawn,
//! broken blueprint marked, a sweep table sorted both ways), a world opens as a map with its
//! parameters and its export downloadable, zooming fetches deeper tiles, switching layers
//! changes the picture (screenshot pixels), the cursor readout shows the blueprint's height of
//! the pixel under the cursor, clicking a town shows its tier, the "current view" download
//! answers a PNG, the 3D view of the region draws relief in software WebGL2 and a drag turns it, a dial change and a new seed replace the tune view's preview, a stroke of land painted
//! out into the sea makes the preview land there, "Save painting" writes a folder the command
//! line makes that world from (pixel for pixel), Undo brings the sea back, painted mountains
//! change it, Clear restores the seed's island byte for byte, the "3D" box draws the preview
//! in 3D, "Save config"
//! downloads a config that loads without a warning, a generation is cancelled leaving no files
//! and another runs to the end and joins the list. Until then the page logs no console error
//! or warning, throws nothing, and no request fails; then a refused dial's 422 shows beside its
//! field and a broken blueprint's 422 in a visible error panel, each checked to be the only
//! problem reported. A second test opens a 640 world (not 256 × 2^k) and checks the map lays
//! map pixels out as the tiles draw them.
//!
//! Needs Debian's `chromium` (or `ISLAGEN_CHROMIUM=/path`); where none is installed the test
//! says so and returns (`.ci/run` installs it). With `ISLAGEN_SCREENSHOTS=DIR` it generates a
//! 2048 world instead of 512 and writes `serve-explore.png`, `serve-3d.png` and `serve-tune.png`
//! into DIR (the README's pictures).

/// How a test that needs a tool says it could not run (`ISLAGEN_REQUIRE_<TOOL>`), as the root's
/// integration tests say it.
#[path = "../../../tests/common/skip.rs"]
mod skip;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use headless_chrome::browser::tab::point::Point;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::Log::LogEntryLevel;
use headless_chrome::protocol::cdp::Network;
use headless_chrome::protocol::cdp::Page as PageDomain;
use headless_chrome::protocol::cdp::Page::{CaptureScreenshotFormatOption, Viewport};
use headless_chrome::protocol::cdp::Runtime::ConsoleAPICalledEventTypeOption;
use headless_chrome::{Browser, LaunchOptions, Tab};
use islagen::blueprint::Blueprint;
use islagen::config::Config;
use islagen::exports::RecordedSea;
use islagen::pipeline;
use islagen::progress::Progress;
use islagen::units::raw_to_m;
use islagen_serve::{self as serve, ServeOptions, Server};
use serde_json::{json, Value};

/// How long one wait for the page may take before the test fails, naming what it waited for.
const WAIT: Duration = Duration::from_secs(20);
const WORLD: &str = "MapData_Seed_7.dat";
const BROKEN: &str = "broken/MapData_Seed_9.dat";
/// A file beside the world that the page offers as a download.
const EXPORT: &str = "MapData_Seed_7.structures.json";
const EXPORT_TEXT: &str = "{\"structures\": []}\n";

/// The Chromium to drive, or why there is none.
fn chromium() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("ISLAGEN_CHROMIUM") {
        let p = PathBuf::from(p);
        return match p.is_file() {
            true => Ok(p),
            false => Err(format!("ISLAGEN_CHROMIUM={} is not a file", p.display())),
        };
    }
    let names = ["chromium", "chromium-browser", "google-chrome"];
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path).chain([PathBuf::from("/usr/bin")]) {
        for n in names {
            if dir.join(n).is_file() {
                return Ok(dir.join(n));
            }
        }
    }
    Err(format!(
        "none of {names:?} on PATH or in /usr/bin; `apt-get install chromium`"
    ))
}

/// What the browser reported that a clean run must not have: console errors, exceptions,
/// failed requests, answers with status >= 400. Also every URL requested, in order.
#[derive(Default)]
struct Record {
    problems: Vec<String>,
    requests: Vec<String>,
}

fn listen(tab: &Tab) -> Arc<Mutex<Record>> {
    let record = Arc::new(Mutex::new(Record::default()));
    let r = record.clone();
    tab.add_event_listener(Arc::new(move |e: &Event| {
        let mut r = r.lock().unwrap();
        match e {
            Event::LogEntryAdded(e) if e.params.entry.level == LogEntryLevel::Error => {
                let entry = &e.params.entry;
                let url = entry.url.clone().unwrap_or_default();
                r.problems.push(format!("log: {} {url}", entry.text));
            }
            Event::RuntimeConsoleAPICalled(e)
                if matches!(
                    e.params.Type,
                    ConsoleAPICalledEventTypeOption::Error
                        | ConsoleAPICalledEventTypeOption::Warning
                ) =>
            {
                let args: Vec<String> = e
                    .params
                    .args
                    .iter()
                    .map(|a| format!("{:?}", a.value))
                    .collect();
                r.problems
                    .push(format!("console.{:?}: {}", e.params.Type, args.join(" ")));
            }
            Event::RuntimeExceptionThrown(e) => {
                let d = &e.params.exception_details;
                let desc = d.exception.as_ref().and_then(|x| x.description.clone());
                r.problems.push(format!("exception: {} {desc:?}", d.text));
            }
            Event::NetworkLoadingFailed(e) if e.params.canceled != Some(true) => {
                r.problems
                    .push(format!("request failed: {}", e.params.error_text));
            }
            Event::NetworkResponseReceived(e) if e.params.response.status >= 400 => {
                let resp = &e.params.response;
                r.problems
                    .push(format!("HTTP {} {}", resp.status, resp.url));
            }
            Event::NetworkRequestWillBeSent(e) => r.requests.push(e.params.request.url.clone()),
            _ => {}
        }
    }))
    .unwrap();
    tab.enable_log().unwrap();
    tab.enable_runtime().unwrap();
    tab.call_method(Network::Enable {
        max_total_buffer_size: None,
        max_resource_buffer_size: None,
        max_post_data_size: None,
        report_direct_socket_traffic: None,
        enable_durable_messages: None,
    })
    .unwrap();
    record
}

/// A map screenshot: width, height, RGB bytes.
type Shot = (usize, usize, Vec<u8>);

/// The tab, with what it reported, and helpers to drive it.
struct Page {
    tab: Arc<Tab>,
    record: Arc<Mutex<Record>>,
}

impl Page {
    /// Evaluates the expression `expr` (awaiting a promise) and returns its value as JSON;
    /// `q(sel)` and `qa(sel)` are `querySelector` and `querySelectorAll` as an array.
    fn js(&self, expr: &str) -> Value {
        let wrapped = format!(
            "(async () => {{ const q = (s) => document.querySelector(s); \
             const qa = (s) => [...document.querySelectorAll(s)]; \
             return JSON.stringify((await ({expr})) ?? null); }})()"
        );
        let out = self
            .tab
            .evaluate(&wrapped, true)
            .unwrap_or_else(|e| panic!("evaluating {expr}: {e}"));
        match out.value {
            Some(Value::String(s)) => serde_json::from_str(&s).unwrap(),
            other => panic!("evaluating {expr}: no JSON but {other:?}"),
        }
    }

    /// Waits until `expr` is truthy; returns its value.
    fn wait(&self, what: &str, expr: &str) -> Value {
        let start = Instant::now();
        loop {
            let v = self.js(expr);
            let falsy = match &v {
                Value::Null | Value::Bool(false) => true,
                Value::Number(n) => n.as_f64() == Some(0.0),
                Value::String(s) => s.is_empty(),
                _ => false,
            };
            if !falsy {
                return v;
            }
            assert!(
                start.elapsed() < WAIT,
                "timed out waiting for {what} ({expr})"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the map is still with every tile loaded, and the tiles' fade-in is over.
    fn settle(&self, what: &str) {
        self.wait(what, "window.islagen.settled()");
        std::thread::sleep(Duration::from_millis(400));
        self.wait(what, "window.islagen.settled()");
    }

    fn click(&self, selector: &str) {
        self.tab
            .wait_for_element(selector)
            .unwrap_or_else(|e| panic!("no {selector}: {e}"))
            .click()
            .unwrap_or_else(|e| panic!("clicking {selector}: {e}"));
    }

    fn text(&self, selector: &str) -> String {
        let v = self.js(&format!("q('{selector}').textContent"));
        v.as_str().unwrap().to_string()
    }

    fn number(&self, expr: &str) -> f64 {
        self.js(expr)
            .as_f64()
            .unwrap_or_else(|| panic!("{expr} is no number"))
    }

    /// The page point of map pixel coordinates (x, y).
    fn point_at(&self, x: f64, y: f64) -> Point {
        let p = self.js(&format!("window.islagen.mapPixelToContainer({x}, {y})"));
        Point {
            x: p["x"].as_f64().unwrap(),
            y: p["y"].as_f64().unwrap(),
        }
    }

    /// Every tile URL requested so far.
    fn tile_urls(&self) -> Vec<String> {
        let r = self.record.lock().unwrap();
        let tiles = r.requests.iter().filter(|u| u.contains("/api/tile/"));
        tiles.cloned().collect()
    }

    /// The map element's pixels as the screen shows them.
    fn map_pixels(&self) -> Shot {
        let r = self
            .js("((r) => [r.left, r.top, r.width, r.height])(q('#map').getBoundingClientRect())");
        let f = |i: usize| r[i].as_f64().unwrap();
        let clip = Viewport {
            x: f(0),
            y: f(1),
            width: f(2),
            height: f(3),
            scale: 1.0,
        };
        let png = self
            .tab
            .capture_screenshot(CaptureScreenshotFormatOption::Png, None, Some(clip), true)
            .unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let channels = info.color_type.samples();
        let rgb = buf[..info.buffer_size()]
            .chunks(channels)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        (info.width as usize, info.height as usize, rgb)
    }

    fn screenshot(&self, path: &Path) {
        let png = self
            .tab
            .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
            .unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
        eprintln!("wrote {}", path.display());
    }

    /// Takes the problems reported so far: each must be `expected`, and there must be some
    /// unless `what` is "nothing".
    fn expect_problems(&self, what: &str, expected: impl Fn(&String) -> bool) {
        let problems = std::mem::take(&mut self.record.lock().unwrap().problems);
        let some = what == "nothing" || !problems.is_empty();
        assert!(
            some && problems.iter().all(expected),
            "after {what}, the browser reported: {problems:#?}"
        );
    }

    /// Waits for a preview other than `seq` and returns its number and the image's hash.
    fn next_preview(&self, what: &str, seq: &Value) -> (Value, Value) {
        self.next_preview_where(what, seq, "true")
    }

    /// [`Page::next_preview`], past the drafts painting shows first: the full preview.
    fn next_full_preview(&self, what: &str, seq: &Value) -> (Value, Value) {
        self.next_preview_where(what, seq, "q('#preview').dataset.draft === '0'")
    }

    fn next_preview_where(&self, what: &str, seq: &Value, also: &str) -> (Value, Value) {
        let seq = self.wait(
            what,
            &format!(
                "(() => {{ const s = q('#preview').dataset.seq; return s !== {seq} && ({also}) && s; }})()"
            ),
        );
        let hash = self.js(
            "fetch(q('#preview').src).then(r => r.arrayBuffer()).then(b => { \
             let h = 2166136261; \
             for (const x of new Uint8Array(b)) h = Math.imul(h ^ x, 16777619) >>> 0; \
             return [b.byteLength, h]; })",
        );
        (seq, hash)
    }
}

/// Share of pixels whose colour differs by more than a little between two screenshots.
fn changed_share(a: &Shot, b: &Shot) -> f64 {
    assert_eq!((a.0, a.1), (b.0, b.1), "the map changed size");
    let differ =
        a.2.chunks(3)
            .zip(b.2.chunks(3))
            .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 8))
            .count();
    differ as f64 / (a.0 * a.1) as f64
}

/// A generated world in a temporary folder, as `islagen serve` is pointed at: the world, a
/// sweep folder whose table names a copy of it, and a truncated (broken) copy.
fn world_dir(size: u32) -> (tempfile::TempDir, Blueprint) {
    let c = Config::from_json("{}", "defaults")
        .unwrap()
        .config
        .with_overrides(islagen::config::Overrides {
            map_size: Some(size),
            ..Default::default()
        })
        .unwrap();
    let bp = pipeline::generate(&c, 7, &Progress::hidden())
        .unwrap()
        .blueprint;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(WORLD);
    islagen::blueprint::write_v2_file(&path, &bp).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(dir.path().join(EXPORT), EXPORT_TEXT).unwrap();
    std::fs::create_dir(dir.path().join("broken")).unwrap();
    std::fs::write(dir.path().join(BROKEN), &bytes[..bytes.len() / 2]).unwrap();
    let sweep = dir.path().join("sweep1");
    std::fs::create_dir(&sweep).unwrap();
    std::fs::write(sweep.join(WORLD), &bytes).unwrap();
    let table = "seed,land_share,towns\n7,0.31,12\n8,0.25,30\n9,0.40,5\n";
    std::fs::write(sweep.join("sweep.csv"), table).unwrap();
    (dir, bp)
}

/// Metres above sea level of pixel (x, y), as the readout shows them.
fn metres(bp: &Blueprint, x: usize, y: usize) -> f64 {
    raw_to_m(bp.heights[[x, y]] - RecordedSea::of(bp).raw) as f64
}

/// Chromium, or `None` after saying why the test is skipped.
fn chromium_or_skip() -> Option<PathBuf> {
    chromium()
        .map_err(|why| crate::skip::skip("CHROMIUM", &format!("no Chromium: {why}")))
        .ok()
}

/// A fresh Chromium (its own profile) with one tab opened on `url`, recording what it reports.
/// Fields drop in order: the tab before the browser, the browser before its profile.
struct Session {
    page: Page,
    _browser: Browser,
    _profile: tempfile::TempDir,
}

fn browse(chrome: &Path, url: &str) -> Session {
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(chrome, profile.path());
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(WAIT);
    let record = listen(&tab);
    let page = Page { tab, record };
    page.tab.navigate_to(url).unwrap();
    page.tab.wait_until_navigated().unwrap();
    Session {
        page,
        _browser: browser,
        _profile: profile,
    }
}

fn launch(chrome: &Path, profile: &Path) -> Browser {
    let args: Vec<&OsStr> = [
        "--disable-gpu",
        // WebGL2 in software, for the 3D view.
        "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--hide-scrollbars",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    let options = LaunchOptions::default_builder()
        .path(Some(chrome.to_path_buf()))
        .headless(true)
        .sandbox(false)
        .window_size(Some((1400, 900)))
        .user_data_dir(Some(profile.to_path_buf()))
        .idle_browser_timeout(Duration::from_secs(120))
        .args(args)
        .build()
        .unwrap();
    Browser::new(options).unwrap()
}

/// A server over `dir` on 127.0.0.1 with a port the system chose.
fn serve_dir(dir: &Path) -> Server {
    let bind = "127.0.0.1:0".parse().unwrap();
    let mut opts = ServeOptions::new(dir.to_path_buf(), bind);
    opts.exe = Some(PathBuf::from(env!("CARGO_BIN_EXE_islagen-under-test")));
    serve::start(opts).unwrap()
}

#[test]
fn explore_and_tune_in_headless_chromium() {
    let Some(chrome) = chromium_or_skip() else {
        return;
    };
    let shots = std::env::var_os("ISLAGEN_SCREENSHOTS").map(PathBuf::from);
    let started = Instant::now();
    let (dir, bp) = world_dir(if shots.is_some() { 2048 } else { 512 });
    let server = serve_dir(dir.path());
    let session = browse(&chrome, &server.url());
    let page = &session.page;

    world_list(page);
    sweep_table(page);
    open_world(page, &bp);
    let zoom = zoom_fetches_tiles(page);
    layers_change_the_picture(page);
    readout_shows_heights(page, &bp);
    town_click_shows_tier(page, &bp, zoom);
    view_downloads(page);
    if let Some(d) = &shots {
        page.screenshot(&d.join("serve-explore.png"));
    }
    view_3d(page, shots.as_deref());
    tune_previews(page);
    if let Some(d) = &shots {
        page.screenshot(&d.join("serve-tune.png"));
    }
    paint_the_preview(page, dir.path());
    save_config(page);
    generate_and_cancel(page, dir.path());
    page.expect_problems("nothing", |_| false);
    dial_error_beside_the_field(page);
    broken_world_shows_an_error(page);
    eprintln!(
        "serve_browser: {:?} (world, browser, page)",
        started.elapsed()
    );
}

/// The world list appears, the thumbnail is drawn, the broken blueprint is marked.
fn world_list(page: &Page) {
    let item = format!("#worlds li.world[data-world=\"{WORLD}\"]");
    page.tab.wait_for_element(&item).unwrap();
    page.wait(
        "the thumbnail",
        &format!(
            "(() => {{ const i = q('{item} img.thumb'); return i.complete && i.naturalWidth; }})()"
        ),
    );
    let broken = format!("!!q('#worlds li.world.broken[data-world=\"{BROKEN}\"]')");
    assert_eq!(
        page.js(&broken),
        Value::Bool(true),
        "the broken world is not marked"
    );
}

/// The sweep table sorts by a column, both ways; its row with a world links to it.
fn sweep_table(page: &Page) {
    let table = "table.sweep[data-sweep=\"sweep1\"]";
    page.tab.wait_for_element(table).unwrap();
    let cols = page.js(&format!(
        "qa('{table} thead th').map(t => t.dataset.col || '')"
    ));
    assert_eq!(cols, json!(["", "seed", "land_share", "towns"]));
    let seeds = format!("qa('{table} tbody tr').map(r => r.cells[1].textContent)");
    page.click(&format!("{table} th[data-col=\"towns\"]"));
    assert_eq!(page.js(&seeds), json!(["9", "7", "8"]));
    page.click(&format!("{table} th[data-col=\"towns\"]"));
    assert_eq!(page.js(&seeds), json!(["8", "7", "9"]));
    let linked = page.js(&format!(
        "qa('{table} tbody tr[data-world]').map(r => r.dataset.world)"
    ));
    assert_eq!(linked, json!(["sweep1/MapData_Seed_7.dat"]));
}

/// A world opens as a map from its link; its parameters are shown.
fn open_world(page: &Page, bp: &Blueprint) {
    page.click(&format!(
        "#worlds li.world[data-world=\"{WORLD}\"] a.open-world"
    ));
    let open = format!("#world[data-world=\"{WORLD}\"]");
    page.tab.wait_for_element(&open).unwrap();
    page.settle("the first tiles");
    let info = page.js("window.islagen.world");
    assert_eq!(info["map_size"], Value::from(bp.side()));
    let prms = page.js("qa('#params details[data-section=\"PRMS\"] tr').length");
    assert!(prms.as_u64().unwrap() >= 5, "PRMS shows {prms} rows");
    let links = page.js("qa('#downloads a.export').map(a => a.textContent)");
    assert_eq!(links, json!([EXPORT]));
    let got = page.js("fetch(q('#downloads a.export').href).then(r => r.text())");
    assert_eq!(got, Value::from(EXPORT_TEXT));
}

/// Two clicks on "+" fetch tiles of the deeper zoom, and more tile images load.
fn zoom_fetches_tiles(page: &Page) -> i64 {
    let before = page.tile_urls().len();
    let loaded_before = page.number("window.islagen.tilesLoaded");
    assert!(before > 0 && loaded_before > 0.0, "no tiles at the start");
    let zoom0 = page.number("window.islagen.map.getZoom()") as i64;
    for _ in 0..2 {
        page.click(".leaflet-control-zoom-in");
        page.settle("tiles after zooming in");
    }
    let zoom = page.number("window.islagen.map.getZoom()") as i64;
    assert_eq!(zoom, zoom0 + 2);
    let urls = page.tile_urls();
    let prefix = format!("/api/tile/height/{zoom}/");
    let deeper = urls[before..]
        .iter()
        .filter(|u| u.contains(&prefix))
        .count();
    assert!(
        deeper >= 4,
        "zooming in fetched {deeper} height tiles at z={zoom}: {urls:?}"
    );
    let loaded = page.number("window.islagen.tilesLoaded");
    assert!(
        loaded >= loaded_before + 4.0,
        "{loaded_before} -> {loaded} tiles loaded"
    );
    zoom
}

/// Height -> biomes changes most of the map; contours on change some of it.
fn layers_change_the_picture(page: &Page) {
    let shot0 = page.map_pixels();
    page.click("#layer-biomes");
    page.settle("biome tiles");
    let shot1 = page.map_pixels();
    let share = changed_share(&shot0, &shot1);
    assert!(
        share > 0.2,
        "height -> biomes changed {share:.3} of the map's pixels"
    );
    page.click("#layer-contours");
    page.settle("contour tiles");
    let shot2 = page.map_pixels();
    let share = changed_share(&shot1, &shot2);
    assert!(
        share > 0.002,
        "contours changed {share:.4} of the map's pixels"
    );
    let contours = page.tile_urls().iter().any(|u| u.contains("/contours/"));
    assert!(contours, "no contour tile requested");
    page.click("#layer-contours");
    page.click("#layer-height");
    page.settle("height tiles again");
    let shot3 = page.map_pixels();
    let share = changed_share(&shot0, &shot3);
    assert!(
        share < 0.01,
        "back to height alone, {share:.4} of the pixels differ"
    );
}

/// The cursor over two pixels: the readout shows each one's height from the blueprint.
fn readout_shows_heights(page: &Page, bp: &Blueprint) {
    // 4 screen pixels a map pixel, so the pointer's pixel is not in doubt.
    let z = page.number("window.islagen.world.max_zoom") + 2.0;
    page.js(&format!(
        "(window.islagen.map.setZoom({z}, {{animate: false}}), 1)"
    ));
    page.settle("tiles at 4 screen pixels a map pixel");
    let c = page.js("window.islagen.map.getCenter()");
    let (cx, cy) = (c["lng"].as_f64().unwrap(), c["lat"].as_f64().unwrap());
    for (dx, dy) in [(-13.0, 9.0), (21.0, -17.0)] {
        let (x, y) = ((cx + dx).floor() as usize, (cy + dy).floor() as usize);
        let p = page.point_at(x as f64 + 0.5, y as f64 + 0.5);
        page.tab.move_mouse_to_point(p).unwrap();
        page.wait(
            "the readout",
            &format!("q('#readout').dataset.x === '{x}' && q('#readout').dataset.y === '{y}'"),
        );
        let shown: f64 = page
            .js("q('#readout').dataset.heightM")
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let want = metres(bp, x, y);
        assert!(
            (shown - want).abs() < 0.05,
            "readout at ({x}, {y}) says {shown} m, the blueprint {want} m"
        );
        let text = page.text("#readout");
        assert!(
            text.contains(&format!("{want:.1} m")),
            "{text} lacks {want:.1} m"
        );
    }
}

/// A click on the first town shows its tier.
fn town_click_shows_tier(page: &Page, bp: &Blueprint, zoom: i64) {
    let town = &bp.towns[0];
    let (x, y) = (town.x, town.y);
    page.js(&format!(
        "(window.islagen.map.setView([{y}, {x}], {zoom}, {{animate: false}}), 1)"
    ));
    page.settle("tiles around the town");
    page.tab
        .click_point(page.point_at(x.into(), y.into()))
        .unwrap();
    let sel = page.wait(
        "the town in #selection",
        "q('#selection').textContent.includes('Town') && q('#selection').textContent",
    );
    let tier = town.tier.label();
    assert!(
        sel.as_str().unwrap().contains(tier),
        "{sel} lacks the tier {tier}"
    );
}

/// The "current view as PNG" link answers a PNG.
fn view_downloads(page: &Page) {
    let view = page.js("fetch(q('#download-view').href).then(async r => \
         [r.status, r.headers.get('content-type'), (await r.arrayBuffer()).byteLength])");
    assert_eq!(view[0], Value::from(200), "{view}");
    assert_eq!(view[1], Value::from("image/png"), "{view}");
    assert!(view[2].as_u64().unwrap() > 1000, "{view}");
}

/// The luminance variance of the 3D canvas, the share of it that is not sky, and a hash of its
/// pixels.
fn canvas_figures(page: &Page) -> (f64, f64, u64) {
    let v = page.js(
        "(() => { const c = q('#view3d-canvas'); const t = document.createElement('canvas'); \
         t.width = c.width; t.height = c.height; const g = t.getContext('2d'); \
         g.drawImage(c, 0, 0); const d = g.getImageData(0, 0, t.width, t.height).data; \
         let n = 0, s = 0, s2 = 0, ground = 0, h = 2166136261; \
         for (let i = 0; i < d.length; i += 4) { \
           const l = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2]; \
           n++; s += l; s2 += l * l; \
           if (Math.abs(d[i] - 184) + Math.abs(d[i + 1] - 209) + Math.abs(d[i + 2] - 235) > 12) ground++; \
           h = Math.imul(h ^ d[i] ^ (d[i + 1] << 8) ^ (d[i + 2] << 16), 16777619) >>> 0; } \
         return [s2 / n - (s / n) * (s / n), ground / n, h]; })()",
    );
    let f = |i: usize| v[i].as_f64().unwrap();
    (f(0), f(1), v[2].as_u64().unwrap())
}

/// Drags the left mouse button from `from` to `to` in steps, as a person orbits the 3D view.
fn drag(page: &Page, from: Point, to: Point) {
    use headless_chrome::protocol::cdp::Input;
    let event = |kind, p: Point, buttons| Input::DispatchMouseEvent {
        Type: kind,
        x: p.x,
        y: p.y,
        modifiers: None,
        timestamp: None,
        button: Some(Input::MouseButton::Left),
        buttons: Some(buttons),
        click_count: Some(1),
        force: None,
        tangential_pressure: None,
        tilt_x: None,
        tilt_y: None,
        twist: None,
        delta_x: None,
        delta_y: None,
        pointer_Type: None,
    };
    use Input::DispatchMouseEventTypeOption::{MouseMoved, MousePressed, MouseReleased};
    page.tab.call_method(event(MousePressed, from, 1)).unwrap();
    for k in 1..=8 {
        let t = f64::from(k) / 8.0;
        let p = Point {
            x: from.x + (to.x - from.x) * t,
            y: from.y + (to.y - from.y) * t,
        };
        page.tab.call_method(event(MouseMoved, p, 1)).unwrap();
    }
    page.tab.call_method(event(MouseReleased, to, 0)).unwrap();
}

/// "3D view of this region" draws the region the map shows in WebGL: the canvas shows ground
/// with relief (its luminance varies), and a drag turns the view (the pixels change).
fn view_3d(page: &Page, shots: Option<&Path>) {
    page.click("#view-3d");
    page.wait("the 3D view", "q('#view3d').dataset.ready");
    let state = page.text("#view3d-state");
    assert!(state.contains("samples"), "{state}");
    let (variance, ground, before) = canvas_figures(page);
    assert!(ground > 0.2, "the 3D view shows {ground:.2} ground");
    assert!(
        variance > 50.0,
        "the 3D view is flat: luminance variance {variance:.1}"
    );
    if let Some(d) = shots {
        page.screenshot(&d.join("serve-3d.png"));
    }
    let r = page.js(
        "((r) => [r.left, r.top, r.width, r.height])(q('#view3d-canvas').getBoundingClientRect())",
    );
    let f = |i: usize| r[i].as_f64().unwrap();
    let centre = Point {
        x: f(0) + f(2) / 2.0,
        y: f(1) + f(3) / 2.0,
    };
    let frames = page.number("window.islagen.view3d.frames");
    drag(
        page,
        centre,
        Point {
            x: centre.x + 160.0,
            y: centre.y + 40.0,
        },
    );
    page.wait(
        "a frame after the drag",
        &format!("window.islagen.view3d.frames > {frames}"),
    );
    let (_, ground_after, after) = canvas_figures(page);
    assert_ne!(before, after, "the drag did not change the view");
    assert!(ground_after > 0.2, "{ground_after}");
    page.click("#view3d-close");
    page.wait("the map again", "q('#view3d').hidden");
}

/// The tune view's preview appears at 512; a dial change and a new seed each replace it.
fn tune_previews(page: &Page) {
    page.click("#tab-tune");
    page.tab.wait_for_element("#dial-CoastVariation").unwrap();
    let (seq0, img0) = page.next_preview("the first preview", &Value::Null);
    page.wait(
        "the image",
        "q('#preview').complete && q('#preview').naturalWidth",
    );
    assert_eq!(page.number("q('#preview').naturalWidth"), 512.0);
    page.click("#dial-CoastVariation");
    page.js("q('#dial-CoastVariation').select()");
    page.tab.type_str("0").unwrap();
    let (seq1, img1) = page.next_preview("the preview after a dial change", &seq0);
    assert_ne!(
        img0, img1,
        "the dial change left the preview's bytes as they were"
    );
    page.click("#random-seed");
    let (_, img2) = page.next_preview("the preview after a new seed", &seq1);
    assert_ne!(
        img1, img2,
        "a new seed left the preview's bytes as they were"
    );
    let note = page.text("#preview-note");
    assert!(note.contains("same island"), "{note}");
}

/// The share of sea (blue) pixels of the preview in the box of preview pixels [x0, x1) × [y0, y1).
fn sea_share(page: &Page, [x0, y0, x1, y1]: [i64; 4]) -> f64 {
    page.number(&format!(
        "(() => {{ const c = document.createElement('canvas'); c.width = c.height = 512; \
         const g = c.getContext('2d'); g.drawImage(q('#preview'), 0, 0); \
         const d = g.getImageData({x0}, {y0}, {x1} - {x0}, {y1} - {y0}).data; let sea = 0; \
         for (let i = 0; i < d.length; i += 4) if (d[i + 2] > d[i] + 20 && d[i + 2] >= d[i + 1]) sea++; \
         return sea / (d.length / 4) + 1e-9; }})()"
    )) - 1e-9
}

/// Painting: a stroke of land from the island's middle out into the sea makes the preview land
/// where it was painted, and saved ([`save_painting`]) the command line makes that world; Undo
/// brings the sea back; Clear brings back the seed's own island, byte for byte.
fn paint_the_preview(page: &Page, root: &Path) {
    let (seq0, plain) = page.next_preview("the preview before painting", &Value::Null);
    // The first of west, east, south and north whose end (a box 24 px wide, 150 px out) is sea.
    let ends = [(90, 256), (422, 256), (256, 422), (256, 110)];
    let boxed = |(x, y): (i64, i64)| [x - 12, y - 12, x + 12, y + 12];
    let end = *ends
        .iter()
        .find(|&&e| sea_share(page, boxed(e)) > 0.8)
        .expect("sea 150 px from the middle in some direction");
    page.js("(() => { const t = q('#paint-tool'); t.value = 'land'; t.dispatchEvent(new Event('change')); })()");
    page.js("(() => { q('#paint-size').value = '20'; })()");
    let corner = page.js("((r) => [r.left, r.top])(q('#paint-canvas').getBoundingClientRect())");
    let at = |(x, y): (i64, i64)| Point {
        x: corner[0].as_f64().unwrap() + x as f64,
        y: corner[1].as_f64().unwrap() + y as f64,
    };
    drag(page, at((256, 256)), at(end));
    let (seq1, land) = page.next_full_preview("the preview after a stroke of land", &seq0);
    assert_ne!(plain, land, "the stroke left the preview as it was");
    let share = sea_share(page, boxed(end));
    assert!(share < 0.2, "{share:.2} of the painted box is still sea");
    assert_eq!(page.js("q('#paint-canvas').dataset.strokes"), json!("1"));
    let drafts = page.number("window.islagen.drafts");
    assert!(drafts >= 1.0, "no draft was shown before the full preview");
    save_painting(page, root);
    page.click("#paint-undo");
    let (seq2, _) = page.next_full_preview("the preview after Undo", &seq1);
    let share = sea_share(page, boxed(end));
    assert!(share > 0.8, "after Undo {share:.2} of the box is sea");
    // Mountains where none were, then Clear: the seed's own island again.
    page.js("(() => { const t = q('#paint-tool'); t.value = 'relief'; t.dispatchEvent(new Event('change')); })()");
    drag(page, at((200, 250)), at((300, 250)));
    let (seq3, relief) = page.next_full_preview("the preview after painting mountains", &seq2);
    assert_ne!(plain, relief, "the mountains left the preview as it was");
    page.click("#paint-clear");
    let (_, cleared) = page.next_full_preview("the preview after Clear", &seq3);
    assert_eq!(plain, cleared, "Clear did not bring back the seed's island");
    page.js("(() => { const t = q('#paint-tool'); t.value = 'none'; t.dispatchEvent(new Event('change')); })()");
    // The preview in 3D: its heights with its picture draped on, redrawn with each preview.
    page.click("#preview-3d");
    let seq = page.js("q('#preview').dataset.seq");
    let (seq, _) = page.next_preview("the preview for the 3D view", &seq);
    page.wait(
        "the 3D preview",
        &format!("q('#preview3d-canvas').dataset.shown === {seq}"),
    );
    page.click("#preview-3d");
}

/// FNV-1a of the preview's RGB as the page's canvas reads it (`js`) — the same hash as
/// [`rgb_hash`] of a picture's pixels.
const PREVIEW_RGB_HASH: &str = "(() => { const c = document.createElement('canvas'); \
    c.width = c.height = 512; const g = c.getContext('2d'); g.drawImage(q('#preview'), 0, 0); \
    const d = g.getImageData(0, 0, 512, 512).data; let h = 2166136261; \
    for (let i = 0; i < d.length; i++) if (i % 4 !== 3) h = Math.imul(h ^ d[i], 16777619) >>> 0; \
    return h; })()";

fn rgb_hash(rgb: &[u8]) -> u64 {
    let mut h: u32 = 2_166_136_261;
    for &b in rgb {
        h = (h ^ u32::from(b)).wrapping_mul(16_777_619);
    }
    u64::from(h)
}

/// "Save painting" writes a folder beside the worlds whose ServerConfig.json the command line
/// makes the previewed world from: its 512 height picture is the preview, pixel for pixel.
fn save_painting(page: &Page, root: &Path) {
    page.js("(() => { q('#gen-size').value = '512'; })()");
    page.click("#paint-save");
    let folder = page.wait("the saved painting", "q('#paint-message').dataset.folder");
    let shown = page.number(PREVIEW_RGB_HASH) as u64;
    let config = root
        .join(folder.as_str().unwrap())
        .join("ServerConfig.json");
    let out = tempfile::tempdir().unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_islagen-under-test"))
        .arg("--config")
        .arg(&config)
        .args(["--skip-roads", "--quiet", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let seed = serde_json::from_str::<Value>(&std::fs::read_to_string(&config).unwrap()).unwrap()
        ["WorldSeed"]
        .as_i64()
        .unwrap();
    let made = islagen::render::read_png(&out.path().join(format!("Map_Seed_{seed}_0_height.png")))
        .unwrap();
    assert_eq!(
        rgb_hash(&made.rgb),
        shown,
        "the saved painting makes another world"
    );
}

/// "Save config" downloads a ServerConfig.json that loads without a warning and holds the
/// dials and the seed shown.
fn save_config(page: &Page) {
    let downloads = tempfile::tempdir().unwrap();
    page.tab
        .call_method(PageDomain::SetDownloadBehavior {
            behavior: PageDomain::SetDownloadBehaviorBehaviorOption::Allow,
            download_path: Some(downloads.path().to_str().unwrap().to_string()),
        })
        .unwrap();
    page.click("#save-config");
    let file = downloads.path().join("ServerConfig.json");
    let start = Instant::now();
    while !file.is_file() {
        assert!(start.elapsed() < WAIT, "no ServerConfig.json downloaded");
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = std::fs::read_to_string(&file).unwrap();
    let saved: Value = serde_json::from_str(&text).unwrap();
    let seed: i64 = page
        .js("q('#seed').value")
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(saved["WorldSeed"], Value::from(seed));
    assert_eq!(saved["CoastVariation"], Value::from(0));
    let loaded = Config::from_json(&text, "ServerConfig.json").unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert!(loaded.unknown_keys.is_empty(), "{:?}", loaded.unknown_keys);
    assert_eq!(i64::from(loaded.config.world_seed), seed);
}

/// A 2048 generation shows its progress bar and is cancelled, leaving nothing behind; a 512
/// one runs to the end and its world joins the list.
fn generate_and_cancel(page: &Page, dir: &Path) {
    let entries = || {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let before = entries();
    page.js("(q('#gen-size').value = '2048', 1)");
    page.click("#generate");
    page.wait("the progress bar", "!q('#job-progress').hidden");
    page.click("#job-cancel");
    page.wait(
        "the cancel message",
        "q('#job-message').textContent.includes('Cancelled')",
    );
    page.wait("the generate button", "!q('#generate').disabled");
    assert_eq!(entries(), before, "a cancelled generation left files");
    page.js("(q('#gen-size').value = '512', 1)");
    page.click("#generate");
    page.wait(
        "the end of the job",
        "q('#job-message').textContent.includes('Done')",
    );
    let id = page.js("q('#job-message a').textContent");
    let id = id.as_str().unwrap();
    page.wait(
        "the new world in the list",
        &format!("!!q('#worlds li.world[data-world=\"{id}\"]')"),
    );
    assert!(dir.join(id).is_file(), "{id} is not in the folder");
}

/// A dial out of its range: the server's 422 is shown beside that dial, and goes when the
/// value is fixed and a preview is shown again.
fn dial_error_beside_the_field(page: &Page) {
    let error = "q('#dial-CoastVariation-error').textContent";
    let seq = page.js("q('#preview').dataset.seq");
    page.click("#dial-CoastVariation");
    page.js("q('#dial-CoastVariation').select()");
    page.tab.type_str("5").unwrap();
    let text = page.wait("the error beside the dial", error);
    assert!(text.as_str().unwrap().contains('5'), "{text}");
    page.js("q('#dial-CoastVariation').select()");
    page.tab.type_str("0.5").unwrap();
    page.next_preview("a preview after the fix", &seq);
    assert_eq!(page.js(error), Value::from(""));
    page.expect_problems("the refused dial", |p| {
        p.contains("422") && p.contains("preview")
    });
}

/// A broken blueprint: a visible error panel naming it, and no problem but its own 422.
fn broken_world_shows_an_error(page: &Page) {
    page.click("#tab-explore");
    page.js(&format!(
        "location.hash = '#world=' + encodeURIComponent('{BROKEN}')"
    ));
    page.wait(
        "the error panel",
        "!q('#error').hidden && q('#error').offsetHeight > 0",
    );
    let text = page.text("#error-text");
    assert!(text.contains("MapData_Seed_9.dat"), "{text}");
    page.expect_problems("the broken world", |p| p.contains("422"));
}

/// A MapSize that is not 256 × 2^k (640: its tiles cover 1024 map pixels at zoom 0) is laid out
/// as its tiles are drawn: at `max_zoom` one map pixel is one screen pixel, so the cursor's map
/// pixel is the pixel the tile shows there.
#[test]
fn a_map_size_off_the_tile_grid_lines_up_with_its_tiles() {
    let Some(chrome) = chromium_or_skip() else {
        return;
    };
    let (dir, bp) = world_dir(640);
    let server = serve_dir(dir.path());
    let session = browse(&chrome, &format!("{}#world={WORLD}", server.url()));
    let page = &session.page;
    page.wait("the world", "window.islagen.map && window.islagen.world");
    assert_eq!(page.js("window.islagen.world.max_zoom"), json!(2));
    let corner = page.js(
        "(() => { const p = window.islagen.map.project(L.latLng(640, 640), 2); \
         return [p.x, p.y]; })()",
    );
    assert_eq!(corner, json!([640, 640]), "map pixel 640 at zoom 2");
    assert_eq!(bp.side(), 640);
}
