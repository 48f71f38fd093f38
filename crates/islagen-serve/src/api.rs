//! The HTTP routes of `islagen serve` (the contract is written in the issue and in the serve
//! section of docs): the page, the world list, world metadata, tiles, probes, views, the
//! dials, previews and generation jobs.
//!
//! Guarantees: every failure is a JSON `{"error": …}` with a 4xx status naming what was wrong
//! (5xx only for a fault of the server itself, including a panic in a handler, which is caught);
//! request bodies are limited to [`BODY_LIMIT`] bytes and every numeric query value is bounded
//! before use; paths go through [`super::paths`]; work that takes CPU or reads files runs on the
//! blocking pool, never on the async workers.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::{ApiError, ApiResult};
use super::tiles::{self, Layer, TileKey};
use super::worlds::{FileKey, World};
use super::{assets, catalogue, dials, jobs, paths, preview, probe, surface, Shared};

/// Largest request body accepted, bytes.
pub const BODY_LIMIT: usize = 64 << 10;
/// Largest preview, generation or save request, bytes: room for three painted masks (PNGs of at most
/// [`super::painted::MAX_SIDE`] a side, base64) and their pins.
pub const PREVIEW_BODY_LIMIT: usize = 4 << 20;
/// Widest `view.png`, pixels (and tallest).
pub const MAX_VIEW_PX: usize = 4096;

/// Runs `work` on the blocking pool; a panic in it becomes a 500.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::internal(format!("internal error: {e}")))?
}

/// Every route.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/static/{*path}", get(static_file))
        .route("/api/worlds", get(worlds))
        .route("/api/world", get(world))
        .route("/api/thumbnail.png", get(thumbnail))
        .route("/api/file", get(file))
        .route("/api/tile/{layer}/{z}/{x}/{y}", get(tile))
        .route("/api/probe", get(probe_handler))
        .route("/api/view.png", get(view))
        .route("/api/surface", get(surface_handler))
        .route("/api/dials", get(dials_handler))
        .route(
            "/api/preview",
            post(preview_handler).layer(DefaultBodyLimit::max(PREVIEW_BODY_LIMIT)),
        )
        .route("/api/preview/surface", get(preview_surface))
        .route(
            "/api/generate",
            post(generate).layer(DefaultBodyLimit::max(PREVIEW_BODY_LIMIT)),
        )
        .route(
            "/api/shape/save",
            post(save_shape).layer(DefaultBodyLimit::max(PREVIEW_BODY_LIMIT)),
        )
        .route("/api/job", get(job))
        .route("/api/job/cancel", post(cancel))
        .fallback(|| async { ApiError::not_found("no such route") })
        // A known route asked with another method: the API's JSON error (axum adds `Allow`).
        .method_not_allowed_fallback(|method: axum::http::Method| async move {
            ApiError::new(
                axum::http::StatusCode::METHOD_NOT_ALLOWED,
                format!("{method} is not allowed on this route"),
            )
        })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            panicked as fn(Box<dyn std::any::Any + Send>) -> Response,
        ))
        .with_state(shared)
}

/// The answer to a request whose handler panicked: 500 JSON (the server goes on).
fn panicked(_: Box<dyn std::any::Any + Send>) -> Response {
    ApiError::internal("internal error: a handler panicked").into_response()
}

fn asset_response(path: &str) -> Response {
    match assets::asset(path) {
        Some(a) => (
            [
                (header::CONTENT_TYPE, a.content_type),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            a.bytes,
        )
            .into_response(),
        None => ApiError::not_found(format!("no asset {path:?}")).into_response(),
    }
}

async fn index() -> Response {
    asset_response("index.html")
}

async fn static_file(UrlPath(path): UrlPath<String>) -> Response {
    asset_response(&path)
}

async fn worlds(State(s): State<Arc<Shared>>) -> ApiResult<Json<catalogue::Catalogue>> {
    blocking(move || Ok(Json(catalogue::list(&s.root, &s.shown)))).await
}

/// `?w=ID`.
#[derive(Deserialize)]
struct WorldQuery {
    w: String,
}

/// The loaded world `id`, or a 4xx naming why not (422 for a blueprint that fails to read).
fn load(s: &Shared, id: &str) -> ApiResult<Arc<World>> {
    let path = paths::resolve(&s.root, id)?;
    s.worlds
        .get(&path)
        .map_err(|e| ApiError::unprocessable(e.to_string()))
}

async fn world(
    State(s): State<Arc<Shared>>,
    q: Result<Query<WorldQuery>, QueryRejection>,
) -> ApiResult<Json<Value>> {
    let Query(q) = q?;
    blocking(move || {
        let w = load(&s, &q.w)?;
        Ok(Json(super::meta::describe(&s, &q.w, &w)))
    })
    .await
}

fn png_response(png: Arc<Vec<u8>>, extra: Option<(&'static str, String)>) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Some((name, value)) = extra {
        if let Ok(v) = HeaderValue::from_str(&header_safe(&value)) {
            headers.insert(name, v);
        }
    }
    (headers, Body::from(png.as_ref().clone())).into_response()
}

/// `text` with anything outside printable ASCII replaced, at most 512 bytes (a header value).
pub fn header_safe(text: &str) -> String {
    text.chars()
        .map(|c| if (' '..='~').contains(&c) { c } else { '?' })
        .take(512)
        .collect()
}

/// One tile, from the cache or rendered; the error tile (200, `X-Islagen-Error`) for a world
/// that cannot be read.
fn tile_png(s: &Shared, id: &str, layer: Layer, (z, x, y): (u32, u32, u32)) -> ApiResult<Response> {
    tile_png_from(s, id, layer, (z, x, y), &|path| s.worlds.get(path))
}

/// [`tile_png`] with the world from `open` (the cache, or a passing look for a thumbnail).
fn tile_png_from(
    s: &Shared,
    id: &str,
    layer: Layer,
    (z, x, y): (u32, u32, u32),
    open: &dyn Fn(&std::path::Path) -> Result<Arc<World>, super::worlds::LoadError>,
) -> ApiResult<Response> {
    let path = paths::resolve(&s.root, id)?;
    let file = FileKey::of(&path).map_err(|e| ApiError::not_found(format!("{id}: {e}")))?;
    let key = TileKey {
        file,
        layer,
        zxy: (z, x, y),
    };
    if let Some(png) = s.tiles.get(&key) {
        return Ok(png_response(png, None));
    }
    let world = match open(&path) {
        Ok(w) => w,
        Err(e) => {
            return Ok(png_response(
                Arc::new(tiles::error_tile()),
                Some(("x-islagen-error", e.to_string())),
            ))
        }
    };
    if !tiles::in_range(world.side(), z, x, y) {
        return Err(ApiError::not_found(format!(
            "tile {z}/{x}/{y} is outside the map (zoom 0..={}, 0 <= x, y < 2^zoom)",
            tiles::max_zoom(world.side()) + tiles::EXTRA_ZOOM
        )));
    }
    let pixels = match tiles::render(&world, layer, z, x, y) {
        Ok(p) => p,
        Err(e) => {
            return Ok(png_response(
                Arc::new(tiles::error_tile()),
                Some(("x-islagen-error", e.to_string())),
            ))
        }
    };
    let png = Arc::new(tiles::encode(&pixels).map_err(|e| ApiError::internal(e.to_string()))?);
    // Cached under the version that was rendered (the file may have changed since the stat).
    s.tiles.put(
        TileKey {
            file: world.key.clone(),
            ..key
        },
        png.clone(),
    );
    Ok(png_response(png, None))
}

/// Largest zoom a URL may name (a 32768 world's enlarged zooms stay below it).
const MAX_URL_ZOOM: u32 = 24;

async fn tile(
    State(s): State<Arc<Shared>>,
    UrlPath((layer, z, x, y)): UrlPath<(String, String, String, String)>,
    q: Result<Query<WorldQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let Query(q) = q?;
    let layer =
        Layer::parse(&layer).ok_or_else(|| ApiError::not_found(format!("no layer {layer:?}")))?;
    // Malformed coordinates are the request's fault (400); well-formed ones past the map or
    // its zooms name a tile that does not exist (404), as does any other extension.
    let Some(y_digits) = y.strip_suffix(".png") else {
        return Err(ApiError::not_found(format!(
            "no tile {z}/{x}/{y}: tiles are .png"
        )));
    };
    let number = |what: &str, text: &str| {
        tile_number(text).ok_or_else(|| {
            ApiError::bad_request(format!(
                "tile {what} {text:?} is not a whole number 0 ..= {}",
                u32::MAX
            ))
        })
    };
    let (z, x, y) = (number("z", &z)?, number("x", &x)?, number("y", y_digits)?);
    if z > MAX_URL_ZOOM {
        return Err(ApiError::not_found(format!(
            "no zoom {z}: the deepest is {MAX_URL_ZOOM}"
        )));
    }
    blocking(move || tile_png(&s, &q.w, layer, (z, x, y))).await
}

/// A tile coordinate: ASCII digits only (no sign, no spaces), within u32.
fn tile_number(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

async fn thumbnail(
    State(s): State<Arc<Shared>>,
    q: Result<Query<WorldQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let Query(q) = q?;
    // A thumbnail never evicts the world open: a world not cached is read for it alone.
    blocking(move || {
        tile_png_from(&s, &q.w, Layer::Height, (0, 0, 0), &|path| {
            s.worlds.get_passing(path)
        })
    })
    .await
}

/// `?path=REL`.
#[derive(Deserialize)]
struct FileQuery {
    path: String,
}

/// The media type of a served file, by its extension.
fn content_type(path: &std::path::Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "png" => "image/png",
        "json" => "application/json",
        "geojson" => "application/geo+json",
        "csv" => "text/csv; charset=utf-8",
        "jsonl" | "txt" => "text/plain; charset=utf-8",
        "tif" | "tiff" => "image/tiff",
        _ => "application/octet-stream",
    }
}

async fn file(
    State(s): State<Arc<Shared>>,
    q: Result<Query<FileQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let Query(q) = q?;
    let path = paths::resolve(&s.root, &q.path)?;
    let f = tokio::fs::File::open(&path)
        .await
        .map_err(|e| ApiError::not_found(format!("{}: {e}", q.path)))?;
    let len = f.metadata().await.map(|m| m.len()).unwrap_or(0);
    let name = path
        .file_name()
        .map(|n| header_safe(&n.to_string_lossy()).replace('"', "_"))
        .unwrap_or_default();
    Ok((
        [
            (header::CONTENT_TYPE, content_type(&path).to_string()),
            (header::CONTENT_LENGTH, len.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"{name}\""),
            ),
        ],
        Body::from_stream(tokio_util::io::ReaderStream::new(f)),
    )
        .into_response())
}

async fn probe_handler(
    State(s): State<Arc<Shared>>,
    q: Result<Query<probe::ProbeQuery>, QueryRejection>,
) -> ApiResult<Json<Value>> {
    let Query(q) = q?;
    blocking(move || {
        let w = load(&s, &q.w)?;
        probe::probe(&w, &q).map(Json)
    })
    .await
}

/// `view.png`'s query.
#[derive(Deserialize)]
struct ViewQuery {
    w: String,
    layers: String,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
    width: usize,
}

async fn view(
    State(s): State<Arc<Shared>>,
    q: Result<Query<ViewQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let Query(q) = q?;
    let layers: Vec<Layer> = q
        .layers
        .split(',')
        .take(Layer::ALL.len())
        .map(|l| Layer::parse(l).ok_or_else(|| ApiError::bad_request(format!("no layer {l:?}"))))
        .collect::<ApiResult<_>>()?;
    ordered([q.x0, q.y0, q.x1, q.y1])?;
    let (dx, dy) = (q.x1 - q.x0, q.y1 - q.y0);
    if q.width == 0 || q.width > MAX_VIEW_PX {
        return Err(ApiError::bad_request(format!(
            "width must be 1..={MAX_VIEW_PX}"
        )));
    }
    let height = (q.width as f64 * dy / dx).round();
    if !(1.0..=MAX_VIEW_PX as f64).contains(&height) {
        return Err(ApiError::bad_request(format!(
            "the view would be {height} px tall; at most {MAX_VIEW_PX}"
        )));
    }
    let size = (q.width, height as usize);
    let turn = heavy_turn(&s).await?;
    blocking(move || {
        let _turn = turn;
        let w = load(&s, &q.w)?;
        let side = w.side() as f64;
        if q.x0 >= side || q.y0 >= side || q.x1 <= 0.0 || q.y1 <= 0.0 {
            return Err(ApiError::bad_request("the view lies outside the map"));
        }
        let region = [q.x0, q.y0, q.x1, q.y1];
        let base = layers.iter().rev().find(|l| l.is_base()).copied();
        let base = base.unwrap_or(Layer::Height);
        let mut pic = tiles::render_region(&w, base, region, size)?;
        for &l in layers.iter().filter(|l| !l.is_base()) {
            let over = tiles::render_region(&w, l, region, size)?;
            tiles::composite(&mut pic, &over);
        }
        let png = tiles::encode(&pic).map_err(|e| ApiError::internal(e.to_string()))?;
        Ok(png_response(Arc::new(png), None))
    })
    .await
}

/// A region given as map pixels `[x0, y0, x1, y1]`: finite, with x0 < x1 and y0 < y1.
fn ordered([x0, y0, x1, y1]: [f64; 4]) -> ApiResult<()> {
    let finite = [x0, y0, x1, y1].iter().all(|v| v.is_finite());
    if !finite || x1 <= x0 || y1 <= y0 {
        return Err(ApiError::bad_request("need finite x0 < x1 and y0 < y1"));
    }
    Ok(())
}

#[derive(Deserialize)]
struct RegionQuery {
    w: String,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

/// The region's surface for the 3D view: `nx × ny` little-endian f32 metres, rows north to
/// south; `X-Islagen-Surface` gives `{"nx", "ny", "step_m", "region"}` (the region clipped to
/// the map).
async fn surface_handler(
    State(s): State<Arc<Shared>>,
    q: Result<Query<RegionQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let Query(q) = q?;
    ordered([q.x0, q.y0, q.x1, q.y1])?;
    let turn = heavy_turn(&s).await?;
    blocking(move || {
        let _turn = turn;
        let w = load(&s, &q.w)?;
        let side = w.side() as f64;
        let region = [q.x0.max(0.0), q.y0.max(0.0), q.x1.min(side), q.y1.min(side)];
        if region[2] - region[0] < 1.0 || region[3] - region[1] < 1.0 {
            return Err(ApiError::bad_request(
                "the region holds less than a pixel of the map",
            ));
        }
        let got = surface::surface(&w, region)?;
        let info = json!({"nx": got.nx, "ny": got.ny, "step_m": got.step_m, "region": region});
        let bytes: Vec<u8> = got.metres.iter().flat_map(|m| m.to_le_bytes()).collect();
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        if let Ok(v) = HeaderValue::from_str(&info.to_string()) {
            headers.insert("x-islagen-surface", v);
        }
        Ok((headers, Body::from(bytes)).into_response())
    })
    .await
}

async fn dials_handler() -> Json<Value> {
    Json(dials::table_json())
}

/// The turn at the heavy work, to move into it: it is released when the work ends, not when the
/// request is dropped.
async fn heavy_turn(s: &Shared) -> ApiResult<tokio::sync::OwnedSemaphorePermit> {
    s.heavy
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::internal("shutting down"))
}

async fn preview_handler(
    State(s): State<Arc<Shared>>,
    body: Result<Json<preview::PreviewRequest>, JsonRejection>,
) -> ApiResult<Response> {
    let Json(req) = body?;
    let cancel = s.previews.supersede();
    let _cancel_if_dropped = preview::CancelOnDrop(cancel.clone());
    let turn = heavy_turn(&s).await?;
    let out = blocking(move || {
        let _turn = turn;
        preview::preview(&req, &s.previews, cancel)
    })
    .await?;
    Ok(png_response(
        Arc::new(out.png),
        Some(("x-islagen-stats", out.stats.to_string())),
    ))
}

/// `/api/preview/surface?id=N`: the heights of preview N for the 3D view, while it is the last
/// preview made (else 404): f32 metres, little-endian, with their grid in `x-islagen-surface`.
async fn preview_surface(
    State(s): State<Arc<Shared>>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> ApiResult<Response> {
    let id = q.get("id").and_then(|v| v.parse::<u64>().ok());
    let id = id.ok_or_else(|| ApiError::bad_request("id: the number a preview's stats give"))?;
    let surface = s.previews.surface(id).ok_or_else(|| {
        ApiError::not_found("no such preview surface: a newer preview replaced it")
    })?;
    let n = preview::PREVIEW_SIDE;
    let bytes: Vec<u8> = surface.iter().flat_map(|m| m.to_le_bytes()).collect();
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    let info = json!({ "nx": n, "ny": n, "step_m": islagen::units::metres_per_px(n) });
    if let Ok(v) = HeaderValue::from_str(&info.to_string()) {
        headers.insert("x-islagen-surface", v);
    }
    Ok((headers, Body::from(bytes)).into_response())
}

async fn generate(
    State(s): State<Arc<Shared>>,
    body: Result<Json<jobs::GenerateRequest>, JsonRejection>,
) -> ApiResult<Response> {
    let Json(req) = body?;
    let n = blocking(move || s.jobs.start(&s.root, &s.exe, &req)).await?;
    Ok((StatusCode::ACCEPTED, Json(json!({ "job": n }))).into_response())
}

async fn save_shape(
    State(s): State<Arc<Shared>>,
    body: Result<Json<super::painted::SaveRequest>, JsonRejection>,
) -> ApiResult<Response> {
    let Json(req) = body?;
    let saved = blocking(move || super::painted::save(&s.root, &req)).await?;
    Ok((StatusCode::CREATED, Json(saved)).into_response())
}

async fn job(State(s): State<Arc<Shared>>) -> Json<Value> {
    Json(s.jobs.status())
}

async fn cancel(State(s): State<Arc<Shared>>) -> ApiResult<Json<Value>> {
    blocking(move || s.jobs.cancel()).await.map(Json)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_panic_on_the_blocking_pool_is_a_500() {
        let r = runtime().block_on(blocking(|| -> ApiResult<()> { panic!("boom") }));
        assert_eq!(r.unwrap_err().status, StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[test]
    fn a_panicking_handler_is_a_500_and_the_server_answers_on() {
        let rt = runtime();
        let app: Router = Router::new()
            .route(
                "/boom",
                get(|| async {
                    if true {
                        panic!("boom");
                    }
                    "unreachable"
                }),
            )
            .route("/ok", get(|| async { "ok" }))
            .layer(tower_http::catch_panic::CatchPanicLayer::custom(
                panicked as fn(Box<dyn std::any::Any + Send>) -> Response,
            ));
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        rt.spawn(async move { axum::serve(listener, app).await });
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let mut r = agent.get(format!("http://{addr}/boom")).call().unwrap();
        assert_eq!(r.status(), 500);
        let body: serde_json::Value =
            serde_json::from_slice(&r.body_mut().read_to_vec().unwrap()).unwrap();
        assert!(body["error"].as_str().unwrap().contains("panicked"));
        let r = agent.get(format!("http://{addr}/ok")).call().unwrap();
        assert_eq!(r.status(), 200);
    }
}
