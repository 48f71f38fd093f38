//! `/api/probe`: what is at one map pixel — its height in metres above sea level, biome, water
//! body, the nearest town and the nearest road within a radius.
//!
//! Guarantees: coordinates must be finite and on the map (else 400); the road radius is bounded
//! to [`MAX_ROAD_RADIUS`] pixels; the answer reads only the loaded blueprint.

use serde::Deserialize;
use serde_json::{json, Value};

use islagen::blueprint::format::WaterBodyType;
use islagen::blueprint::RoadTier;
use islagen::units::{metres_per_px, METRES_PER_RAW};

use super::error::ApiError;
use super::worlds::World;

/// Default radius (map pixels) searched for a road.
pub const DEFAULT_ROAD_RADIUS: f32 = 6.0;
/// Largest radius accepted.
pub const MAX_ROAD_RADIUS: f32 = 64.0;

/// The query.
#[derive(Debug, Deserialize)]
pub struct ProbeQuery {
    /// World id.
    pub w: String,
    /// Map pixel X (floats allowed).
    pub x: f64,
    /// Map pixel Y.
    pub y: f64,
    /// Road search radius, pixels.
    pub r: Option<f32>,
}

/// The probe answer.
pub fn probe(w: &World, q: &ProbeQuery) -> Result<Value, ApiError> {
    let side = w.side();
    if !(q.x.is_finite() && q.y.is_finite())
        || q.x < 0.0
        || q.y < 0.0
        || q.x >= side as f64
        || q.y >= side as f64
    {
        return Err(ApiError::bad_request(format!(
            "({}, {}) is outside the map (0 <= x, y < {side})",
            q.x, q.y
        )));
    }
    let r = q.r.unwrap_or(DEFAULT_ROAD_RADIUS);
    if !(r.is_finite() && (0.0..=MAX_ROAD_RADIUS).contains(&r)) {
        return Err(ApiError::bad_request(format!(
            "r must be 0..={MAX_ROAD_RADIUS} pixels"
        )));
    }
    let bp = &w.blueprint;
    let (px, py) = (q.x.floor() as usize, q.y.floor() as usize);
    let mpp = metres_per_px(side);
    let (at_x, at_y) = ([px], [py]);
    let raw = w.grids.heights(bp, &at_x, &at_y)?[[0, 0]];
    let height_m = (raw - w.sea_raw) * METRES_PER_RAW;
    let ordinal = w.grids.biomes(bp, &at_x, &at_y)?[[0, 0]];
    let ids = w.grids.water_ids(bp, &at_x, &at_y)?;
    let water = ids.and_then(|ids| {
        let id = ids[[0, 0]];
        let body = bp.water_bodies.as_ref()?.iter().find(|b| b.id == id)?;
        (id != 0).then(|| {
            json!({
                "id": id,
                "type": match body.kind {
                    WaterBodyType::Ocean => "ocean",
                    WaterBodyType::Lake => "lake",
                    WaterBodyType::River => "river",
                },
                "level_m": (body.surface_level - w.sea_raw) * METRES_PER_RAW,
            })
        })
    });
    let (fx, fy) = (q.x as f32, q.y as f32);
    let town = bp
        .towns
        .iter()
        .enumerate()
        .map(|(i, t)| (i, t, (t.x - fx).hypot(t.y - fy)))
        .filter(|(_, _, d)| d.is_finite())
        .min_by(|a, b| a.2.total_cmp(&b.2).then(a.0.cmp(&b.0)))
        .map(|(i, t, d)| {
            json!({"index": i, "tier": t.tier.label(), "name": null, "distance_m": d * mpp})
        });
    let road = nearest_road(w, [fx, fy], r).map(|(tier, length_px, d)| {
        json!({"tier": tier.label(), "length_m": length_px * mpp, "distance_m": d * mpp})
    });
    Ok(json!({
        "x": q.x,
        "y": q.y,
        "x_m": q.x * f64::from(mpp),
        "y_m": q.y * f64::from(mpp),
        "height_m": height_m,
        "biome": islagen::blueprint::Biome::from_ordinal(i64::from(ordinal)).map(|b| b.label()),
        "water": water,
        "town": town,
        "road": road,
    }))
}

/// The road nearest `p` within `r` pixels: its tier, its length and the distance, pixels.
fn nearest_road(w: &World, p: [f32; 2], r: f32) -> Option<(RoadTier, f32, f32)> {
    let mut best: Option<(RoadTier, f32, f32)> = None;
    for &tier in RoadTier::ALL {
        for path in w.blueprint.roads.tier(tier) {
            let d = path
                .windows(2)
                .map(|s| segment_distance(p, s[0], s[1]))
                .fold(f32::INFINITY, f32::min);
            if d <= r && best.is_none_or(|b| d < b.2) {
                let length = path
                    .windows(2)
                    .map(|s| (s[1][0] - s[0][0]).hypot(s[1][1] - s[0][1]))
                    .sum();
                best = Some((tier, length, d));
            }
        }
    }
    best
}

/// Distance from `p` to segment a–b.
fn segment_distance(p: [f32; 2], a: [f32; 2], b: [f32; 2]) -> f32 {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len2 = d[0] * d[0] + d[1] * d[1];
    let t = if len2 > 0.0 {
        (((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p[0] - a[0] - t * d[0]).hypot(p[1] - a[1] - t * d[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_distance_is_to_the_nearest_point() {
        assert_eq!(segment_distance([0.0, 1.0], [-1.0, 0.0], [1.0, 0.0]), 1.0);
        assert_eq!(segment_distance([3.0, 0.0], [-1.0, 0.0], [1.0, 0.0]), 2.0);
        assert_eq!(segment_distance([0.0, 2.0], [0.0, 0.0], [0.0, 0.0]), 2.0);
    }
}
