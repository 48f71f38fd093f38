//! Sea level: the one home of it. [`SeaLevel`] is the sea-level function every stage, picture
//! and server tile uses: "flat" is one scalar everywhere; "field" is the legacy latitude lerp,
//! 0.26 raw at the northern edge (y = 0) to 0.15 raw at the southern edge (y = MapSize − 1).
//! [`RecordedSea`] is the flat sea a blueprint records, which readers of a blueprint measure
//! heights from.

use serde::Serialize;

use crate::blueprint::format::WaterBodyType;
use crate::blueprint::Blueprint;
use crate::units::raw_to_m;

/// Sea level at the northern edge under the legacy field model, raw units.
pub const FIELD_NORTH: f32 = 0.26;
/// Sea level at the southern edge under the legacy field model, raw units.
pub const FIELD_SOUTH: f32 = 0.15;

/// How sea level is computed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeaModel {
    /// One scalar everywhere (raw height units).
    Flat(f32),
    /// The legacy latitude lerp: [`FIELD_NORTH`] at y = 0 to [`FIELD_SOUTH`] at the southern edge.
    Field,
}

/// The sea level of a map: a model bound to a MapSize.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeaLevel {
    model: SeaModel,
    map_size: usize,
}

impl SeaLevel {
    /// The sea level of `model` on a map of `map_size` pixels per side.
    pub fn new(model: SeaModel, map_size: usize) -> SeaLevel {
        SeaLevel { model, map_size }
    }

    /// The same model on a grid of `map_size` rows (the erosion's working grid).
    pub fn on(&self, map_size: usize) -> SeaLevel {
        SeaLevel::new(self.model, map_size)
    }

    /// Sea level (raw height units) at row `y` (0 = north); the same for every x.
    pub fn at(&self, y: usize) -> f32 {
        match self.model {
            SeaModel::Flat(level) => level,
            SeaModel::Field => {
                let t = if self.map_size > 1 {
                    y as f32 / (self.map_size - 1) as f32
                } else {
                    0.0
                };
                FIELD_NORTH + (FIELD_SOUTH - FIELD_NORTH) * t
            }
        }
    }

    /// The sea level of rows 0..`n`, for a loop over a map's pixels to read once a row.
    pub fn rows(&self, n: usize) -> Vec<f32> {
        (0..n).map(|y| self.at(y)).collect()
    }

    /// True when a pixel of height `h` at row `y` is under water.
    pub fn is_below(&self, h: f32, y: usize) -> bool {
        h < self.at(y)
    }
}

/// The sea level a blueprint records (its heights are measured from it), and which record gave
/// it. The generator's own sea, which may vary across the map, is [`SeaLevel`]; a recorded one is
/// flat ([`RecordedSea::level`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RecordedSea {
    /// Raw height units.
    pub raw: f32,
    /// Which record gave it: `"WBTB ocean"`, `"TCRV sea"` or `"default 0.15 raw"`.
    pub source: &'static str,
}

impl RecordedSea {
    /// The generator's default sea level, raw units.
    pub const DEFAULT_RAW: f32 = 0.15;

    /// The sea level of `bp`: the WBTB ocean's surface level, else TCRV's sea, else the default.
    pub fn of(bp: &Blueprint) -> RecordedSea {
        let ocean = bp.water_bodies.as_ref().and_then(|bodies| {
            bodies
                .iter()
                .find(|b| b.kind == WaterBodyType::Ocean && b.surface_level.is_finite())
        });
        if let Some(ocean) = ocean {
            return RecordedSea {
                raw: ocean.surface_level,
                source: "WBTB ocean",
            };
        }
        if let Some(c) = bp.curve.filter(|c| c.base.sea.is_finite()) {
            return RecordedSea {
                raw: c.base.sea,
                source: "TCRV sea",
            };
        }
        RecordedSea {
            raw: Self::DEFAULT_RAW,
            source: "default 0.15 raw",
        }
    }

    /// A raw height as metres above (negative: below) this sea level.
    #[inline]
    pub fn metres(&self, raw: f32) -> f32 {
        raw_to_m(raw - self.raw)
    }
}

impl RecordedSea {
    /// This recorded sea as the level of a map of `map_size` pixels a side.
    pub fn level(&self, map_size: usize) -> SeaLevel {
        SeaLevel::new(SeaModel::Flat(self.raw), map_size)
    }
}
