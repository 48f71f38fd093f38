//! `/api/preview`: the posted config's world at MapSize 512, generated in-process and drawn as
//! one picture. Every distance scales with MapSize, so the preview is the same island as the
//! full-size world (the pixels are coarser).
//!
//! Guarantees: the config goes through the real validation ([`super::dials::validate`]) with
//! MapSize forced to [`PREVIEW_SIZE`]; a refused config is a 422 naming each key; nothing is
//! written to disk.

use std::time::Instant;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::pipeline;
use crate::progress::Progress;
use crate::render;

use super::api::ApiError;
use super::dials::{validate, PREVIEW_SIZE};

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
}

/// A made preview.
#[derive(Debug)]
pub struct Preview {
    /// The picture.
    pub png: Vec<u8>,
    /// Seconds, seed, towns, land share…
    pub stats: Value,
}

/// The 422 for a refused config.
pub fn refused(errors: Vec<super::dials::KeyError>) -> ApiError {
    let keys: Vec<String> = errors
        .iter()
        .map(|e| match &e.key {
            Some(k) => format!("{k}: {}", e.message),
            None => e.message.clone(),
        })
        .collect();
    ApiError {
        errors: Some(errors),
        ..ApiError::unprocessable(format!("config refused: {}", keys.join("; ")))
    }
}

/// Generates and draws the preview.
pub fn preview(req: &PreviewRequest) -> Result<Preview, ApiError> {
    let layer = req.layer.as_deref().unwrap_or("height");
    if !["height", "biomes", "roads"].contains(&layer) {
        return Err(ApiError::bad_request(format!(
            "layer {layer:?}: the preview draws height, biomes or roads"
        )));
    }
    let config = if req.config.is_null() {
        json!({})
    } else {
        req.config.clone()
    };
    let mut config = validate(&config, PREVIEW_SIZE, req.seed).map_err(refused)?;
    if layer != "roads" {
        // Roads are the slowest stage and only the roads picture shows them.
        config.skip_roads = true;
    }
    let seed = crate::seed::resolve(config.world_seed);
    let started = Instant::now();
    let world = pipeline::generate(&config, seed, &Progress::hidden())
        .map_err(|e| ApiError::unprocessable(format!("generation failed: {e}")))?;
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
    let s = &world.stats;
    Ok(Preview {
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
            "rivers": world.rivers.as_ref().map(|r| r.rivers),
            "layer": layer,
        }),
    })
}
