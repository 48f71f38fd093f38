//! `/api/preview`: the posted config's world at MapSize 512, generated in-process and drawn as
//! one picture. Every distance scales with MapSize, so the preview is the same island as the
//! full-size world (the pixels are coarser).
//!
//! Each preview keeps its surface (heights in metres, the sea at 0) until the next one, for the
//! 3D view (`/api/preview/surface?id=N`, N from the stats' `surface`).
//!
//! Masks and pins the designer painted ([`super::painted`]) come with the request and are
//! applied over the config under the rules a config's files meet.
//!
//! Guarantees: the config goes through the real validation ([`super::dials::validate_preview`]:
//! only the dials, within the preview's work limits) with MapSize forced to [`PREVIEW_SIZE`]; a
//! refused config is a 422 naming each key; nothing is written to disk. A preview stops (between
//! stages) when a newer one supersedes it, when its client goes away, or at [`DEADLINE`]; one
//! runs at a time, and its turn is held by the work itself, not by the request.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};

use islagen::pipeline::{self, GenerateError};
use islagen::progress::{Progress, Stop};
use islagen::render;

use super::dials::{validate_preview, PREVIEW_SIZE};
use super::error::ApiError;

/// Pixels a side of a preview (its MapSize).
pub const PREVIEW_SIDE: usize = PREVIEW_SIZE as usize;

/// The longest a preview may run (a 512 preview with the defaults takes about a second).
pub const DEADLINE: Duration = Duration::from_secs(20);

/// The previews: the newest one's cancel flag, and counts the tests read.
#[derive(Debug, Default)]
pub struct Previews {
    newest: Mutex<Option<Arc<AtomicBool>>>,
    running: AtomicUsize,
    peak: AtomicUsize,
    started: AtomicUsize,
    stopped: AtomicUsize,
    /// The last preview's surface for the 3D view, by its number.
    surface: Mutex<Option<(u64, Arc<Vec<f32>>)>>,
    surfaces: std::sync::atomic::AtomicU64,
}

impl Previews {
    /// The cancel flag of a new preview; the one before it is cancelled (the page shows only the
    /// newest).
    pub fn supersede(&self) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        let mut newest = self.newest.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = newest.replace(flag.clone()) {
            old.store(true, Ordering::Relaxed);
        }
        flag
    }

    /// Previews that began generating (a readiness signal for tests: a client waits for its
    /// preview to be running before it goes away).
    pub fn started(&self) -> usize {
        self.started.load(Ordering::SeqCst)
    }

    /// The surface of preview `id` (its stats' `surface`), while it is the last one made: heights
    /// in metres above sea (the sea at 0), [`PREVIEW_SIZE`]² row after row from the north-west.
    pub fn surface(&self, id: u64) -> Option<Arc<Vec<f32>>> {
        let last = self.surface.lock().unwrap_or_else(|e| e.into_inner());
        last.as_ref()
            .filter(|(n, _)| *n == id)
            .map(|(_, s)| s.clone())
    }

    /// Most previews that ever ran at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Previews cancelled before they were done (superseded, or their client gone; one stopped
    /// at the deadline is refused with 422 and not counted here).
    pub fn stopped(&self) -> usize {
        self.stopped.load(Ordering::Relaxed)
    }
}

/// Sets its flag when dropped: a request's handler dropped (its client went away) cancels the
/// work it started.
pub struct CancelOnDrop(pub Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The request body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreviewRequest {
    /// World seed (0 = a random one, reported in the stats).
    pub seed: i32,
    /// ServerConfig.json keys.
    #[serde(default)]
    pub config: Value,
    /// "height" (default), "biomes" or "roads".
    pub layer: Option<String>,
    /// What the designer painted (masks and pins), applied over `config`.
    #[serde(default)]
    pub shape: Option<super::painted::Painted>,
    /// A first pass while painting: the island without its valleys and rivers (Erosion and
    /// Rivers off), in a fraction of the time; the page asks for the full preview after it.
    #[serde(default)]
    pub draft: bool,
}

/// A made preview.
#[derive(Debug)]
pub struct Preview {
    /// The picture.
    pub png: Vec<u8>,
    /// Seconds, seed, towns, land share…
    pub stats: Value,
}

/// Generates and draws the preview, counted in `previews`, stopping when `cancel` is set or at
/// [`DEADLINE`].
pub fn preview(
    req: &PreviewRequest,
    previews: &Previews,
    cancel: Arc<AtomicBool>,
) -> Result<Preview, ApiError> {
    let now = previews.running.fetch_add(1, Ordering::SeqCst) + 1;
    previews.peak.fetch_max(now, Ordering::SeqCst);
    previews.started.fetch_add(1, Ordering::SeqCst);
    let out = {
        let _running = Running(&previews.running);
        make(req, Progress::hidden().stoppable(cancel, DEADLINE))
    };
    if matches!(&out, Err(e) if e.status == axum::http::StatusCode::CONFLICT) {
        previews.stopped.fetch_add(1, Ordering::Relaxed);
    }
    let (mut made, surface) = out?;
    let id = previews.surfaces.fetch_add(1, Ordering::SeqCst) + 1;
    *previews.surface.lock().unwrap_or_else(|e| e.into_inner()) = Some((id, Arc::new(surface)));
    made.stats["surface"] = json!(id);
    Ok(made)
}

/// One preview counted as running until it ends, however it ends (a panic too).
struct Running<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The preview and its surface (metres above sea, the sea at 0, rows north first).
fn make(req: &PreviewRequest, progress: Progress) -> Result<(Preview, Vec<f32>), ApiError> {
    let layer = req.layer.as_deref().unwrap_or("height");
    if !["height", "biomes", "roads"].contains(&layer) {
        return Err(ApiError::bad_request(format!(
            "layer {layer:?}: the preview draws height, biomes or roads"
        )));
    }
    let mut config = if req.config.is_null() {
        json!({})
    } else {
        req.config.clone()
    };
    // A draft: the same island before its valleys and rivers.
    if let (true, Some(o)) = (req.draft, config.as_object_mut()) {
        o.insert("Erosion".into(), json!("off"));
        o.insert("Rivers".into(), json!("off"));
    }
    let config = validate_preview(&config, req.seed).map_err(ApiError::refused)?;
    // Roads are the slowest stage and only the roads picture shows them.
    let overrides = islagen::config::Overrides {
        skip_roads: layer != "roads",
        ..Default::default()
    };
    let config = config
        .with_overrides(overrides)
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let config = match &req.shape {
        Some(painted) => painted.apply(config).map_err(ApiError::refused)?,
        None => config,
    };
    let seed = islagen::seed::resolve(config.world_seed);
    let started = Instant::now();
    let stopped = |stop: Stop| match stop {
        Stop::Cancelled => ApiError::conflict("the preview was superseded or abandoned"),
        Stop::Deadline(d) => ApiError::unprocessable(format!(
            "the preview ran past its {} s: ask less of the work dials (droplets, steps, towns)",
            d.as_secs()
        )),
    };
    progress.check().map_err(stopped)?;
    let world = pipeline::generate(&config, seed, &progress).map_err(|e| match e {
        GenerateError::Stopped(stop) => stopped(stop),
        e => ApiError::unprocessable(format!("generation failed: {e}")),
    })?;
    let generated = started.elapsed().as_secs_f64();
    let bp = &world.blueprint;
    let image = match layer {
        "biomes" => render::biome_image(&bp.biomes).rgb(),
        "roads" => render::roads_image(&bp.biomes, &bp.roads, &bp.towns).rgb(),
        _ => render::height_image(&bp.heights, &world.sea),
    };
    let png = super::tiles::encode(&super::tiles::Pixels {
        width: image.width,
        height: image.height,
        channels: 3,
        data: image.rgb,
    })
    .map_err(|e| ApiError::internal(e.to_string()))?;
    let n = bp.heights.dim().0;
    let surface = (0..n * n)
        .map(|i| {
            let (x, y) = (i % n, i / n);
            ((bp.heights[[x, y]] - world.sea.at(y)) * islagen::units::METRES_PER_RAW).max(0.0)
        })
        .collect();
    let s = &world.stats;
    let made = Preview {
        png,
        stats: json!({
            "seed": seed,
            "map_size": PREVIEW_SIZE,
            "seconds": started.elapsed().as_secs_f64(),
            "generate_seconds": generated,
            "towns": bp.towns.len(),
            "land_share": s.land_fraction,
            "islets": s.islets,
            "lakes": s.lakes,
            "river_reaches": s.river_reaches,
            "rivers": world.rivers.as_ref().map(|r| r.rivers),
            "layer": layer,
            "draft": req.draft,
        }),
    };
    Ok((made, surface))
}
