//! What a designer painted in the page, sent with a preview: masks as PNGs (base64, as a canvas
//! gives them, a `data:` URL prefix allowed) and town pins as GeoJSON, applied to the preview's
//! config under the rules a config's files meet.
//!
//! Saved ([`save`], `/api/shape/save`) or carried into a full-size generation, the painting
//! becomes files beside a ServerConfig.json that names them ([`Painted::write_into`]):
//! `island-mask.png`, `relief-mask.png`, `hard-rock-mask.png` (the PNGs as painted) and
//! `town-pins.geojson`, so `islagen --config FOLDER/ServerConfig.json` makes the same world.
//!
//! Guarantees: a mask is a PNG of at most [`MAX_SIDE`] pixels a side, checked from its header
//! before it is decoded; each refusal names its key (a 422 with the key's error, like a dial's).
//! A save writes into a new hidden folder and renames it into place under a name not taken
//! (`shape-<seed>-<size>`, `…-2`, …), so it never writes over a file it did not make and a
//! failed save leaves nothing.

use std::path::Path;

use base64::Engine;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use islagen::config::Config;
use islagen::formats::raster::Raster;

use super::dials::{validate, KeyError};
use super::error::ApiError;

/// A painted mask's widest side, pixels: the preview's own 512 twice over.
pub const MAX_SIDE: u32 = 1024;

/// The painted inputs, by config key.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Painted {
    /// Where land is wanted (white land).
    #[serde(rename = "IslandMask")]
    pub island_mask: Option<String>,
    /// Where the land rises.
    #[serde(rename = "ReliefMask")]
    pub relief_mask: Option<String>,
    /// Where the rock is hard.
    #[serde(rename = "HardRockMask")]
    pub hard_rock_mask: Option<String>,
    /// Pinned towns: a GeoJSON FeatureCollection or a JSON array.
    #[serde(rename = "TownPins")]
    pub town_pins: Option<Value>,
}

impl Painted {
    /// `config` with the painted inputs applied; every refusal, by key.
    pub fn apply(&self, mut config: Config) -> Result<Config, Vec<KeyError>> {
        let mut errors = Vec::new();
        let masks = [
            ("IslandMask", &self.island_mask),
            ("ReliefMask", &self.relief_mask),
            ("HardRockMask", &self.hard_rock_mask),
        ];
        for (key, png) in masks {
            let Some(png) = png else { continue };
            let applied = decode(png).and_then(|raster| {
                let name = format!("painted {key}");
                config
                    .clone()
                    .with_mask(key, &name, raster)
                    .map_err(|e| e.to_string())
            });
            match applied {
                Ok(c) => config = c,
                Err(message) => errors.push(KeyError {
                    key: Some(key.to_string()),
                    message,
                }),
            }
        }
        if let Some(pins) = &self.town_pins {
            match config
                .clone()
                .with_pins("painted TownPins", &pins.to_string())
            {
                Ok(c) => config = c,
                Err(e) => errors.push(KeyError {
                    key: Some("TownPins".into()),
                    message: e.to_string(),
                }),
            }
        }
        if errors.is_empty() {
            Ok(config)
        } else {
            Err(errors)
        }
    }
}

/// A base64 PNG (optionally a `data:image/png;base64,` URL) as a raster, its size checked from
/// the header first.
fn decode(text: &str) -> Result<Raster, String> {
    let bytes = png_bytes(text)?;
    Raster::from_bytes(&bytes, Path::new("painted mask")).map_err(|e| e.to_string())
}

/// The PNG a base64 text (or `data:` URL) holds, its size checked from its header.
fn png_bytes(text: &str) -> Result<Vec<u8>, String> {
    let body = text.split_once("base64,").map_or(text, |(_, b)| b);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(body.trim())
        .map_err(|e| format!("not base64: {e}"))?;
    let (w, h) = png_size(&bytes).ok_or("a painted mask is a PNG")?;
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(format!(
            "a painted mask of {w} × {h} pixels; at most {MAX_SIDE} a side"
        ));
    }
    Ok(bytes)
}

impl Painted {
    /// Writes the painting into `dir` (each file atomically) and names each file in `config`
    /// under its key. Call after [`Painted::apply`] accepted it.
    pub fn write_into(&self, dir: &Path, config: &mut Map<String, Value>) -> std::io::Result<()> {
        let masks = [
            ("IslandMask", &self.island_mask, "island-mask.png"),
            ("ReliefMask", &self.relief_mask, "relief-mask.png"),
            ("HardRockMask", &self.hard_rock_mask, "hard-rock-mask.png"),
        ];
        let mut files: Vec<(&str, &str, Vec<u8>)> = Vec::new();
        for (key, text, name) in masks {
            if let Some(text) = text {
                let bytes = png_bytes(text).map_err(std::io::Error::other)?;
                files.push((key, name, bytes));
            }
        }
        if let Some(pins) = &self.town_pins {
            let text = serde_json::to_vec_pretty(pins).map_err(std::io::Error::other)?;
            files.push(("TownPins", "town-pins.geojson", text));
        }
        for (key, name, bytes) in files {
            islagen::output::write_bytes_atomically(&dir.join(name), &bytes)?;
            config.insert(key.into(), json!(name));
        }
        Ok(())
    }
}

/// `/api/shape/save`'s body: what a generation takes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaveRequest {
    /// World seed (0 = a random one).
    pub seed: i32,
    /// MapSize.
    pub size: u32,
    /// ServerConfig.json keys (the dials).
    #[serde(default)]
    pub config: Value,
    /// The painting.
    pub shape: Painted,
}

/// Saves the painting and a ServerConfig.json naming it (with the dials, MapSize and the
/// resolved WorldSeed) in a new folder of `root`; its name.
pub fn save(root: &Path, req: &SaveRequest) -> Result<Value, ApiError> {
    let config = if req.config.is_null() {
        json!({})
    } else {
        req.config.clone()
    };
    let checked = validate(&config, req.size, req.seed).map_err(ApiError::refused)?;
    let seed = islagen::seed::resolve(checked.world_seed);
    req.shape.apply(checked).map_err(ApiError::refused)?;
    let io = |e: std::io::Error| ApiError::internal(format!("saving the painting: {e}"));
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = root.join(format!(".islagen-save-{}-{stamp:x}", std::process::id()));
    std::fs::create_dir(&tmp).map_err(io)?;
    let written = (|| {
        let mut file_config = config.as_object().cloned().unwrap_or_default();
        file_config.insert("MapSize".into(), json!(req.size));
        file_config.insert("WorldSeed".into(), json!(seed));
        req.shape.write_into(&tmp, &mut file_config)?;
        let text = serde_json::to_string_pretty(&file_config).map_err(std::io::Error::other)?;
        islagen::output::write_bytes_atomically(&tmp.join("ServerConfig.json"), text.as_bytes())?;
        let base = format!("shape-{seed}-{}", req.size);
        let free = (1..1000)
            .map(|k| {
                if k == 1 {
                    base.clone()
                } else {
                    format!("{base}-{k}")
                }
            })
            .find(|name| !root.join(name).exists())
            .ok_or_else(|| std::io::Error::other("no free folder name"))?;
        std::fs::rename(&tmp, root.join(&free))?;
        Ok(free)
    })();
    match written {
        Ok(folder) => {
            Ok(json!({ "folder": folder, "config": format!("{folder}/ServerConfig.json") }))
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(io(e))
        }
    }
}

/// A PNG's width and height from its IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") || bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let be = |at: usize| Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    Some((be(16)?, be(20)?))
}
