//! Vectors: a world's towns, roads, rivers, water bodies and crater as one GeoJSON
//! FeatureCollection (RFC 7946 structure), for QGIS, GDAL/OGR and web maps.
//!
//! # Coordinates
//!
//! Metres of a local CRS, not WGS84 longitude/latitude: origin at the map's **south-west
//! corner**, x east, **y north** (GIS's north-up), so the map is `[0, 8192] × [0, 8192]` m at
//! every MapSize. A blueprint position `(u, v)` in pixels (pixel `(x, y)` spans `[x, x + 1]`,
//! v southward; y = 0 is the northern edge, where the crater is) becomes
//! `(u · m, (MapSize − v) · m)` with `m = 8192 / MapSize` metres per pixel
//! ([`super::Frame::metres`]); coordinates are rounded to the millimetre. RFC 7946 allows a
//! CRS other than WGS84 only by prior arrangement: the collection says which in a `crs` member
//! (the 2008 GeoJSON form GDAL reads, naming an engineering CRS in metres as WKT) and in an
//! `islagen` member (origin, axes, metres per pixel, tolerance).
//!
//! # Features (`properties.kind`)
//!
//! - `town`: a Point per TOWN entry — `tier` (capitol, hub, village, outpost, poi),
//!   `tier_ordinal`, `highway_node`, `index` (TOWN order).
//! - `road`: a LineString per road polyline — `tier` (highway, branch, rugged, trail),
//!   `width_m` (the tier's painted width, as in the splat export's roads mask), `index`.
//! - `river`: a LineString per RIVR river, upstream to downstream — `order` (Strahler),
//!   `reaches` (WBID ids), `width_m` and `discharge_m3s` (one per vertex), `length_m`.
//! - `water`: a Polygon or MultiPolygon per WBTB body traced from WBID — `wbid`, `type` (ocean,
//!   lake, river), `salinity`, `surface_level_m` (above sea), `pixel_count`, `area_m2`.
//! - `crater`: the BIOM Crater pixels as a (Multi)Polygon; and `crater_centre`, a Point at
//!   PRMS's impact centre with `configured_radius_m` (absent on a re-encoded v1 file).
//!
//! # Polygons
//!
//! Each region is traced along pixel edges into rings, regions 4-connected (at a pixel corner
//! where two diagonal pixels belong to it and the other two do not, the ring turns to keep the
//! two apart). Exterior rings run counter-clockwise and holes clockwise (RFC 7946's right-hand
//! rule, in the y-north frame); holes — islands in a lake, the island in the ocean — are kept,
//! each under the smallest exterior of the same region that contains it. The rings are then
//! simplified with the topology-preserving Visvalingam–Whyatt algorithm
//! (`geo::SimplifyVwPreserve`): a vertex goes while the triangle it forms with its neighbours
//! is smaller than the **area tolerance**, by default one pixel's area (`(8192 / MapSize)²`
//! m²: 1 m² at 8192, 64 m² at 1024), which removes the pixel staircases and keeps every
//! feature a pixel across. A ring that simplification would leave with fewer than four
//! positions keeps its traced form.

use std::io::Write;
use std::path::Path;

use geo::{Coord, LineString, Polygon, SimplifyVwPreserve};
use geojson::{Feature, FeatureCollection, Geometry, JsonObject, Value};
use rayon::prelude::*;
use serde_json::json;

use super::{ExportError, Frame, OutputError, RecordedSea, Unsupported};
use crate::blueprint::format::{Salinity, WaterBodyType};
use crate::blueprint::{Biome, Blueprint, RoadTier};
use crate::render;
use crate::units::{raw_to_m, REFERENCE_MAP_SIZE, WORLD_SIZE_M};

/// The CRS the coordinates are in, as WKT (GDAL reads it from the `crs` member).
pub const CRS_WKT: &str = "ENGCRS[\"islagen local grid\",EDATUM[\"map south-west corner\"],CS[Cartesian,2],AXIS[\"easting (X)\",east,ORDER[1],LENGTHUNIT[\"metre\",1]],AXIS[\"northing (Y)\",north,ORDER[2],LENGTHUNIT[\"metre\",1]]]";

/// What an export wrote, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeojsonReport {
    /// Town points.
    pub towns: usize,
    /// Road lines.
    pub roads: usize,
    /// River lines.
    pub rivers: usize,
    /// Water-body features.
    pub water_bodies: usize,
    /// Crater features (polygon and centre).
    pub crater: usize,
    /// Polygon positions written (after simplification).
    pub polygon_positions: usize,
}

/// Writes `bp`'s vectors to `path` atomically. `tolerance_m2` is the simplification's area
/// tolerance in m² (`None`: one pixel's area; 0: no simplification beyond merging collinear
/// edges).
pub fn export(
    bp: &Blueprint,
    path: &Path,
    tolerance_m2: Option<f64>,
) -> Result<GeojsonReport, ExportError> {
    let (collection, report) = collection(bp, tolerance_m2)?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(OutputError::io("creating", parent))?;
    }
    crate::output::write_atomically(path, |w| {
        serde_json::to_writer(&mut *w, &collection).map_err(std::io::Error::other)?;
        w.write_all(b"\n")
    })
    .map_err(OutputError::io("writing", path))?;
    Ok(report)
}

/// The FeatureCollection of `bp` (see the module doc) and its counts.
pub fn collection(
    bp: &Blueprint,
    tolerance_m2: Option<f64>,
) -> Result<(FeatureCollection, GeojsonReport), ExportError> {
    let frame = Frame::of(bp)?;
    let pixel_m2 = frame.metres_per_px * frame.metres_per_px;
    let tolerance_m2 = tolerance_m2.unwrap_or(pixel_m2);
    if !tolerance_m2.is_finite() || tolerance_m2 < 0.0 {
        return Err(Unsupported::NotAWidth {
            what: "the simplification tolerance",
            value: tolerance_m2 as f32,
        }
        .into());
    }
    let eps_px2 = tolerance_m2 / pixel_m2;
    let sea = RecordedSea::of(bp);
    let mut report = GeojsonReport::default();
    let mut features = Vec::new();

    // Polygons first (the slow part), water and crater side by side.
    let (water, crater) = rayon::join(
        || water_features(bp, &frame, &sea, eps_px2),
        || crater_features(bp, &frame, eps_px2),
    );
    for (f, n) in water.into_iter().chain(crater.iter().cloned()) {
        report.polygon_positions += n;
        features.push(f);
    }
    report.water_bodies = features.len() - crater.len();
    report.crater = crater.len();
    if let Some(c) = crater_centre(bp, &frame) {
        features.push(c);
        report.crater += 1;
    }

    features.extend(town_features(bp, &frame));
    report.towns = bp.towns.len();
    let roads = road_features(bp, &frame);
    report.roads = roads.len();
    features.extend(roads);
    let rivers = river_features(bp, &frame);
    report.rivers = rivers.len();
    features.extend(rivers);
    let foreign = members(bp, &frame, &sea, tolerance_m2);
    Ok((
        FeatureCollection {
            bbox: None,
            features,
            foreign_members: Some(foreign),
        },
        report,
    ))
}

/// Every town as a point.
fn town_features(bp: &Blueprint, frame: &Frame) -> Vec<Feature> {
    let mut features = Vec::new();
    for (i, town) in bp.towns.iter().enumerate() {
        let mut p = JsonObject::new();
        p.insert("kind".into(), json!("town"));
        p.insert("tier".into(), json!(town.tier.label()));
        p.insert("tier_ordinal".into(), json!(town.tier.ordinal()));
        p.insert("highway_node".into(), json!(town.is_highway_node));
        p.insert("index".into(), json!(i));
        let at = position(frame, f64::from(town.x), f64::from(town.y));
        features.push(feature(Value::Point(at), p));
    }
    features
}

/// Every road of two points or more as a line, with its tier's width.
fn road_features(bp: &Blueprint, frame: &Frame) -> Vec<Feature> {
    let mut features = Vec::new();
    for tier in RoadTier::ALL {
        let width_m = f64::from(render::road_line(*tier).0 * WORLD_SIZE_M);
        for (i, path) in bp.roads.tier(*tier).iter().enumerate() {
            if path.len() < 2 {
                continue;
            }
            let mut p = JsonObject::new();
            p.insert("kind".into(), json!("road"));
            p.insert("tier".into(), json!(tier.label()));
            p.insert("width_m".into(), json!(round_mm(width_m)));
            p.insert("index".into(), json!(i));
            let line = path
                .iter()
                .map(|q| position(frame, f64::from(q[0]), f64::from(q[1])))
                .collect();
            features.push(feature(Value::LineString(line), p));
        }
    }
    features
}

/// Every river of two points or more as a line, with its order, reaches, widths, discharges
/// and length.
fn river_features(bp: &Blueprint, frame: &Frame) -> Vec<Feature> {
    let mut features = Vec::new();
    for river in bp.rivers.iter().flat_map(|r| &r.rivers) {
        if river.points.len() < 2 {
            continue;
        }
        let line: Vec<Vec<f64>> = river
            .points
            .iter()
            .map(|q| position(frame, f64::from(q.x), f64::from(q.y)))
            .collect();
        let length_m: f64 = line
            .windows(2)
            .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
            .sum();
        let mut p = JsonObject::new();
        p.insert("kind".into(), json!("river"));
        p.insert("order".into(), json!(river.order));
        p.insert("reaches".into(), json!(river.reaches));
        let widths: Vec<f64> = river
            .points
            .iter()
            .map(|q| round_mm(f64::from(q.width_m)))
            .collect();
        let discharge: Vec<f64> = river
            .points
            .iter()
            .map(|q| round_mm(f64::from(q.discharge_m3s)))
            .collect();
        p.insert("width_m".into(), json!(widths));
        p.insert("discharge_m3s".into(), json!(discharge));
        p.insert("length_m".into(), json!(round_mm(length_m)));
        features.push(feature(Value::LineString(line), p));
    }
    features
}

/// The collection's own members: the CRS and islagen's frame, simplification and sea level.
fn members(bp: &Blueprint, frame: &Frame, sea: &RecordedSea, tolerance_m2: f64) -> JsonObject {
    let mut foreign = JsonObject::new();
    foreign.insert(
        "crs".into(),
        json!({"type": "name", "properties": {"name": CRS_WKT}}),
    );
    foreign.insert(
        "islagen".into(),
        json!({
            "crs": "local: metres, origin at the map's south-west corner, x east, y north (not WGS84)",
            "map_size": frame.side,
            "metres_per_pixel": frame.metres_per_px,
            "world_size_m": frame.side_m(),
            "pixel_to_metres": "x_m = u * metres_per_pixel, y_m = (map_size - v) * metres_per_pixel, (u, v) blueprint pixel coordinates with v = 0 the northern edge",
            "simplification": "Visvalingam-Whyatt, topology-preserving (geo::SimplifyVwPreserve)",
            "simplify_tolerance_m2": tolerance_m2,
            "sea_level_raw": sea.raw,
            "sea_level_source": sea.source,
            "seed": bp.params.world_seed,
        }),
    );
    foreign
}

fn feature(value: Value, properties: JsonObject) -> Feature {
    Feature {
        bbox: None,
        geometry: Some(Geometry::new(value)),
        id: None,
        properties: Some(properties),
        foreign_members: None,
    }
}

fn round_mm(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// Local-CRS metres of pixel coordinates, rounded to the millimetre.
fn position(frame: &Frame, u: f64, v: f64) -> Vec<f64> {
    frame.metres(u, v).iter().map(|&c| round_mm(c)).collect()
}

fn water_features(
    bp: &Blueprint,
    frame: &Frame,
    sea: &RecordedSea,
    eps_px2: f64,
) -> Vec<(Feature, usize)> {
    let (Some(ids), Some(bodies)) = (&bp.water_ids, &bp.water_bodies) else {
        return Vec::new();
    };
    let regions = trace(frame.side, |x, y| u32::from(ids[[x, y]]));
    let pixel_m2 = frame.metres_per_px * frame.metres_per_px;
    regions
        .into_par_iter()
        .map(|(id, rings)| {
            let body = bodies.iter().find(|b| u32::from(b.id) == id);
            let (value, n) = polygons(frame, rings, eps_px2);
            let mut p = JsonObject::new();
            p.insert("kind".into(), json!("water"));
            p.insert("wbid".into(), json!(id));
            if let Some(b) = body {
                let kind = match b.kind {
                    WaterBodyType::Ocean => "ocean",
                    WaterBodyType::Lake => "lake",
                    WaterBodyType::River => "river",
                };
                let salinity = match b.salinity {
                    Salinity::Fresh => "fresh",
                    Salinity::Salt => "salt",
                };
                p.insert("type".into(), json!(kind));
                p.insert("salinity".into(), json!(salinity));
                p.insert(
                    "surface_level_m".into(),
                    json!(round_mm(f64::from(raw_to_m(b.surface_level - sea.raw)))),
                );
                p.insert("pixel_count".into(), json!(b.pixel_count));
                p.insert(
                    "area_m2".into(),
                    json!(round_mm(f64::from(b.pixel_count) * pixel_m2)),
                );
            }
            (feature(value, p), n)
        })
        .collect()
}

fn crater_features(bp: &Blueprint, frame: &Frame, eps_px2: f64) -> Vec<(Feature, usize)> {
    let regions = trace(frame.side, |x, y| {
        u32::from(bp.biomes[[x, y]] == Biome::Crater)
    });
    regions
        .into_iter()
        .map(|(_, rings)| {
            let (value, n) = polygons(frame, rings, eps_px2);
            let mut p = JsonObject::new();
            p.insert("kind".into(), json!("crater"));
            p.insert("biome".into(), json!(Biome::Crater.label()));
            (feature(value, p), n)
        })
        .collect()
}

fn crater_centre(bp: &Blueprint, frame: &Frame) -> Option<Feature> {
    let p = &bp.params;
    if p.impact_center_x < 0.0 || p.impact_center_y < 0.0 || p.crater_radius < 0.0 {
        return None;
    }
    let mut props = JsonObject::new();
    props.insert("kind".into(), json!("crater_centre"));
    props.insert(
        "configured_radius_m".into(),
        json!(round_mm(
            f64::from(p.crater_radius) * f64::from(WORLD_SIZE_M / REFERENCE_MAP_SIZE)
        )),
    );
    let at = position(
        frame,
        f64::from(p.impact_center_x),
        f64::from(p.impact_center_y),
    );
    Some(feature(Value::Point(at), props))
}

/// A traced ring: pixel-corner vertices `(i, j)` in the y-north frame (`j = MapSize − v`), not
/// closed, collinear vertices merged; twice its signed area (positive: counter-clockwise, an
/// exterior); and, for a hole, a point inside it but outside the region (a pixel centre).
#[derive(Clone, Debug, PartialEq)]
pub struct Ring {
    /// Corner vertices.
    pub vertices: Vec<[i64; 2]>,
    /// Twice the signed area, pixels².
    pub area2: i64,
    /// The centre of the pixel to the right of the first edge, `(i, j)` in the same frame.
    pub outside: [f64; 2],
}

/// A directed pixel edge of a region, the region on its left (y-north frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    label: u32,
    i: u32,
    j: u32,
    dir: u8,
}

const EAST: u8 = 0;
const NORTH: u8 = 1;
const WEST: u8 = 2;
const SOUTH: u8 = 3;

fn step(dir: u8) -> (i64, i64) {
    match dir {
        EAST => (1, 0),
        NORTH => (0, 1),
        WEST => (-1, 0),
        _ => (0, -1),
    }
}

/// The rings of every nonzero label of a `side × side` grid (`label(x, y)`, y = 0 north), by
/// label in ascending order. Each region is 4-connected: its exterior rings run
/// counter-clockwise and its holes clockwise in the y-north frame.
pub fn trace(side: usize, label: impl Fn(usize, usize) -> u32 + Sync) -> Vec<(u32, Vec<Ring>)> {
    let s = side;
    let mut edges: Vec<Edge> = (0..s)
        .into_par_iter()
        .flat_map_iter(|x| {
            let mut out = Vec::new();
            for y in 0..s {
                let l = label(x, y);
                if l == 0 {
                    continue;
                }
                let (i, jb) = (x as u32, (s - 1 - y) as u32);
                let differs = |nx: Option<usize>, ny: Option<usize>| match (nx, ny) {
                    (Some(nx), Some(ny)) if nx < s && ny < s => label(nx, ny) != l,
                    _ => true,
                };
                if differs(Some(x), Some(y + 1)) {
                    out.push(Edge {
                        label: l,
                        i,
                        j: jb,
                        dir: EAST,
                    });
                }
                if differs(Some(x + 1), Some(y)) {
                    out.push(Edge {
                        label: l,
                        i: i + 1,
                        j: jb,
                        dir: NORTH,
                    });
                }
                if differs(Some(x), y.checked_sub(1)) {
                    out.push(Edge {
                        label: l,
                        i: i + 1,
                        j: jb + 1,
                        dir: WEST,
                    });
                }
                if differs(x.checked_sub(1), Some(y)) {
                    out.push(Edge {
                        label: l,
                        i,
                        j: jb + 1,
                        dir: SOUTH,
                    });
                }
            }
            out
        })
        .collect();
    edges.par_sort_unstable();
    let mut by_label = Vec::new();
    let mut start = 0;
    while start < edges.len() {
        let l = edges[start].label;
        let end = start + edges[start..].partition_point(|e| e.label == l);
        by_label.push((l, start, end));
        start = end;
    }
    by_label
        .into_par_iter()
        .map(|(l, a, b)| (l, rings_of(&edges[a..b])))
        .collect()
}

/// Chains one label's edges (sorted by vertex) into rings.
fn rings_of(edges: &[Edge]) -> Vec<Ring> {
    let outgoing = |i: u32, j: u32| {
        let p = edges.partition_point(|e| (e.i, e.j) < (i, j));
        edges[p..]
            .iter()
            .take(2)
            .enumerate()
            .filter(move |(_, e)| e.i == i && e.j == j)
            .map(move |(k, e)| (p + k, e.dir))
    };
    let mut used = vec![false; edges.len()];
    let mut rings = Vec::new();
    for first in 0..edges.len() {
        if used[first] {
            continue;
        }
        let mut corners: Vec<([i64; 2], u8)> = Vec::new();
        let mut k = first;
        loop {
            used[k] = true;
            let e = edges[k];
            corners.push(([i64::from(e.i), i64::from(e.j)], e.dir));
            let (di, dj) = step(e.dir);
            let (ni, nj) = ((i64::from(e.i) + di) as u32, (i64::from(e.j) + dj) as u32);
            let left = (e.dir + 1) % 4;
            let mut next = None;
            for (c, dir) in outgoing(ni, nj) {
                if next.is_none() || dir == left {
                    next = Some(c);
                }
            }
            match next {
                Some(c) if c == first => break,
                Some(c) if !used[c] => k = c,
                // unreachable for a grid's edges: every vertex balances in and out
                _ => break,
            }
        }
        let first_edge = edges[first];
        let outside = {
            let (i, j) = (f64::from(first_edge.i), f64::from(first_edge.j));
            match first_edge.dir {
                EAST => [i + 0.5, j - 0.5],
                NORTH => [i + 0.5, j + 0.5],
                WEST => [i - 0.5, j + 0.5],
                _ => [i - 0.5, j - 0.5],
            }
        };
        let n = corners.len();
        let vertices: Vec<[i64; 2]> = (0..n)
            .filter(|&k| corners[k].1 != corners[(k + n - 1) % n].1)
            .map(|k| corners[k].0)
            .collect();
        let area2 = (0..vertices.len())
            .map(|k| {
                let (a, b) = (vertices[k], vertices[(k + 1) % vertices.len()]);
                a[0] * b[1] - b[0] * a[1]
            })
            .sum();
        rings.push(Ring {
            vertices,
            area2,
            outside,
        });
    }
    rings
}

/// Whether `p` is inside the ring (even-odd; `p` is never on an edge: it is a pixel centre).
fn contains(ring: &Ring, p: [f64; 2]) -> bool {
    let v = &ring.vertices;
    let mut inside = false;
    let mut prev = v[v.len() - 1];
    for &cur in v {
        let (a, b) = (
            [prev[0] as f64, prev[1] as f64],
            [cur[0] as f64, cur[1] as f64],
        );
        if (a[1] > p[1]) != (b[1] > p[1]) {
            let x = a[0] + (p[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]);
            if p[0] < x {
                inside = !inside;
            }
        }
        prev = cur;
    }
    inside
}

/// One region's rings as a GeoJSON Polygon or MultiPolygon in metres, simplified with area
/// tolerance `eps_px2` (pixels²); also the positions written.
fn polygons(frame: &Frame, rings: Vec<Ring>, eps_px2: f64) -> (Value, usize) {
    let (exteriors, holes): (Vec<Ring>, Vec<Ring>) = rings.into_iter().partition(|r| r.area2 > 0);
    let mut owned: Vec<Vec<Ring>> = vec![Vec::new(); exteriors.len()];
    let bbox: Vec<[i64; 4]> = exteriors
        .iter()
        .map(|r| {
            r.vertices
                .iter()
                .fold([i64::MAX, i64::MAX, i64::MIN, i64::MIN], |b, v| {
                    [
                        b[0].min(v[0]),
                        b[1].min(v[1]),
                        b[2].max(v[0]),
                        b[3].max(v[1]),
                    ]
                })
        })
        .collect();
    for hole in holes {
        let p = hole.outside;
        let owner = if exteriors.len() == 1 {
            Some(0)
        } else {
            (0..exteriors.len())
                .filter(|&k| {
                    let b = bbox[k];
                    p[0] > b[0] as f64
                        && p[0] < b[2] as f64
                        && p[1] > b[1] as f64
                        && p[1] < b[3] as f64
                })
                .filter(|&k| contains(&exteriors[k], p))
                .min_by_key(|&k| (exteriors[k].area2, k))
        };
        if let Some(k) = owner {
            owned[k].push(hole);
        }
    }
    let mut positions = 0;
    let mut polys: Vec<Vec<Vec<Vec<f64>>>> = exteriors
        .into_iter()
        .zip(owned)
        .map(|(ext, holes)| {
            let rings = simplify(&ext, &holes, eps_px2);
            rings
                .into_iter()
                .map(|ring| {
                    positions += ring.len();
                    ring.iter()
                        .map(|c| {
                            vec![
                                round_mm(c.x * frame.metres_per_px),
                                round_mm(c.y * frame.metres_per_px),
                            ]
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let value = if polys.len() == 1 {
        Value::Polygon(polys.pop().unwrap_or_default())
    } else {
        Value::MultiPolygon(polys)
    };
    (value, positions)
}

fn line(ring: &Ring) -> LineString<f64> {
    let mut coords: Vec<Coord<f64>> = ring
        .vertices
        .iter()
        .map(|v| Coord {
            x: v[0] as f64,
            y: v[1] as f64,
        })
        .collect();
    coords.push(coords[0]);
    LineString::new(coords)
}

/// The exterior and holes, simplified together; closed rings of pixel-corner coordinates.
fn simplify(exterior: &Ring, holes: &[Ring], eps_px2: f64) -> Vec<Vec<Coord<f64>>> {
    let polygon = Polygon::new(line(exterior), holes.iter().map(line).collect());
    let simplified = if eps_px2 > 0.0 {
        polygon.simplify_vw_preserve(eps_px2)
    } else {
        polygon.clone()
    };
    let ok = |l: &LineString<f64>| l.0.len() >= 4;
    let (ext, ints) = if ok(simplified.exterior()) && simplified.interiors().iter().all(ok) {
        simplified.into_inner()
    } else {
        polygon.into_inner()
    };
    std::iter::once(ext).chain(ints).map(|l| l.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_square_with_a_hole_traces_counter_clockwise_and_clockwise() {
        // a 4 × 4 ring of label 1 around a hole of 2 × 2
        let grid = |x: usize, y: usize| u32::from(!((1..3).contains(&x) && (1..3).contains(&y)));
        let regions = trace(4, grid);
        assert_eq!(regions.len(), 1);
        let rings = &regions[0].1;
        assert_eq!(rings.len(), 2);
        let ext = rings.iter().find(|r| r.area2 > 0).unwrap();
        let hole = rings.iter().find(|r| r.area2 < 0).unwrap();
        assert_eq!(ext.area2, 2 * 16);
        assert_eq!(hole.area2, -2 * 4);
        assert_eq!(ext.vertices.len(), 4);
        assert!(contains(ext, hole.outside));
    }

    #[test]
    fn diagonal_pixels_are_two_regions_parts() {
        // two pixels touching at a corner: 4-connectivity keeps them apart
        let grid = |x: usize, y: usize| u32::from((x, y) == (0, 0) || (x, y) == (1, 1));
        let rings = &trace(2, grid)[0].1;
        assert_eq!(rings.len(), 2);
        assert!(rings.iter().all(|r| r.area2 == 2 && r.vertices.len() == 4));
    }

    #[test]
    fn north_is_up() {
        // a pixel in the top row (y = 0) spans j = side − 1 ..= side
        let rings = &trace(3, |x, y| u32::from((x, y) == (0, 0)))[0].1;
        assert!(rings[0].vertices.iter().all(|v| v[1] >= 2));
    }
}
