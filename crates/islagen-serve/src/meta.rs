//! `/api/world`: what the page needs to open a world — its size and units, the layers it has,
//! the generation parameters by section, the towns, and the export files beside it.
//!
//! Heights are metres above sea level ((raw − sea) × 251 m); `sea_level_m` is the sea's own
//! level on the raw scale in metres (raw × 251), so raw-scale metres are `height_m +
//! sea_level_m`.

use std::path::Path;

use serde_json::{json, Map, Value};

use islagen::blueprint::format::WaterBodyType;
use islagen::blueprint::{Format, RoadTier};
use islagen::units::{metres_per_px, METRES_PER_RAW, WORLD_SIZE_M};

use super::paths::id_of;
use super::tiles::{max_zoom, Layer, TILE};
use super::worlds::World;
use super::Shared;

/// Most export files listed for one world.
const MAX_EXPORTS: usize = 200;

/// "v2" or "v1".
pub fn format_name(f: Format) -> &'static str {
    match f {
        Format::V2 => "v2",
        Format::V1 => "v1",
    }
}

/// The `/api/world` answer for world `id`.
pub fn describe(s: &Shared, id: &str, w: &World) -> Value {
    let bp = &w.blueprint;
    let side = w.side();
    let layers: Vec<Value> = Layer::ALL
        .iter()
        .map(|&l| {
            json!({
                "id": l.id(),
                "kind": if l.is_base() { "base" } else { "overlay" },
                "name": l.name(),
                "available": l.available(w),
            })
        })
        .collect();
    let towns: Vec<Value> = bp
        .towns
        .iter()
        .enumerate()
        .map(|(i, t)| {
            json!({"index": i, "x": t.x, "y": t.y, "tier": t.tier.label(), "name": null,
                   "highway_node": t.is_highway_node})
        })
        .collect();
    json!({
        "id": id,
        "map_size": side,
        "seed": match w.format { Format::V2 => Some(bp.params.world_seed), Format::V1 => None },
        "format": format_name(w.format),
        "metres_per_px": metres_per_px(side),
        "world_size_m": WORLD_SIZE_M,
        "sea_level_m": w.sea_raw * METRES_PER_RAW,
        "sea_level_raw": w.sea_raw,
        "height_range_m": w.height_range_m,
        "tile_size": TILE,
        "max_zoom": max_zoom(side),
        "max_served_zoom": max_zoom(side) + super::tiles::EXTRA_ZOOM,
        "layers": layers,
        "params": params(w),
        "towns": towns,
        "exports": exports(&s.root, &w.key.path, bp.params.world_seed),
        // The server's own bounds, so the page asks within them (one home for each number).
        "limits": {
            "view_px": super::api::MAX_VIEW_PX,
            "probe_radius_px": super::probe::MAX_ROAD_RADIUS,
            "surface_samples": super::surface::MAX_SURFACE_SAMPLES,
        },
    })
}

/// The generation parameters, one object per section tag.
fn params(w: &World) -> Value {
    let bp = &w.blueprint;
    let mut out = Map::new();
    let mut put = |tag: &str, v: Value| {
        out.insert(tag.into(), v);
    };
    put("PRMS", json!(bp.params));
    if let Some(c) = &bp.curve {
        put("TCRV", json!(c));
    }
    if let Some(d) = &bp.detail {
        put("TDTL", json!(d));
    }
    if let Some(e) = &bp.erosion {
        put("EROS", json!(e));
    }
    if let Some(r) = &bp.rivers {
        put(
            "RIVR",
            json!({"catchment_km2": r.catchment_km2, "width_scale": r.width_scale,
                   "density": r.density, "rivers": r.rivers.len()}),
        );
    }
    if let Some(bodies) = &bp.water_bodies {
        let count = |k: WaterBodyType| bodies.iter().filter(|b| b.kind == k).count();
        put(
            "WBTB",
            json!({"ocean": count(WaterBodyType::Ocean), "lakes": count(WaterBodyType::Lake),
                   "river_reaches": count(WaterBodyType::River)}),
        );
    }
    let roads: Map<String, Value> = RoadTier::ALL
        .iter()
        .map(|&t| (t.label().to_string(), json!(bp.roads.tier(t).len())))
        .collect();
    put("ROADS", Value::Object(roads));
    let mut towns = Map::new();
    for t in &bp.towns {
        let e = towns.entry(t.tier.label()).or_insert(json!(0));
        *e = json!(e.as_u64().unwrap_or(0) + 1);
    }
    put("TOWN", Value::Object(towns));
    Value::Object(out)
}

/// The files beside the blueprint that belong to its seed (snapshots, sidecars) and those in its
/// exports folder (unless that folder is a symlink), DIR-relative; symlinked files are skipped.
fn exports(root: &Path, dat: &Path, seed: i32) -> Vec<Value> {
    let Some(dir) = dat.parent() else {
        return Vec::new();
    };
    let prefixes = [format!("Map_Seed_{seed}_"), format!("MapData_Seed_{seed}.")];
    let mut found = Vec::new();
    let mut visit = |dir: &Path, all: bool| {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten().take(10_000) {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(kind) = e.file_type() else { continue };
            let ours = all || prefixes.iter().any(|p| name.starts_with(p.as_str()));
            if !kind.is_file() || !ours || e.path() == dat {
                continue;
            }
            if let (Some(path), Ok(meta)) = (id_of(root, &e.path()), e.metadata()) {
                found.push((name, path, meta.len()));
            }
        }
    };
    visit(dir, false);
    // Not through a symlink: its names and sizes would describe files outside DIR.
    let folder = islagen::exports::folder_of(dir, seed);
    if std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
        visit(&folder, true);
    }
    found.sort();
    found
        .into_iter()
        .take(MAX_EXPORTS)
        .map(|(name, path, bytes)| json!({"name": name, "path": path, "bytes": bytes}))
        .collect()
}
