//! What a designer painted in the page, sent with a preview: masks as PNGs (base64, as a canvas
//! gives them, a `data:` URL prefix allowed) and town pins as GeoJSON, applied to the preview's
//! config under the rules a config's files meet.
//!
//! Guarantees: a mask is a PNG of at most [`MAX_SIDE`] pixels a side, checked from its header
//! before it is decoded; each refusal names its key (a 422 with the key's error, like a dial's).
//! Nothing is written to disk.

use base64::Engine;
use serde::Deserialize;
use serde_json::Value;

use islagen::config::Config;
use islagen::formats::raster::Raster;

use super::dials::KeyError;

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
    Raster::from_bytes(&bytes, std::path::Path::new("painted mask")).map_err(|e| e.to_string())
}

/// A PNG's width and height from its IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") || bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let be = |at: usize| Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    Some((be(16)?, be(20)?))
}
