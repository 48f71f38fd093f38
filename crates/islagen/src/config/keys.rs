//! Every ServerConfig.json key islagen reads, declared once ([`KEYS`]): its name, kind and
//! range, default, unit, section and help, whether it is a Tune-page dial, and which newer key
//! supersedes it. The validation ([`super::Config::from_raw`]) takes every range and default
//! from here, and so do `islagen serve`'s dials (`/api/dials`), `islagen config --list` and the
//! README's key table ([`markdown_table`]; a test holds the README to it).

use crate::blueprint::format::{MAX_MAP_SIZE, MIN_MAP_SIZE};

/// A key's kind and range, and what validation does with a value out of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// An integer, clamped (with a warning) to `min ..= max`.
    Int {
        /// Smallest.
        min: i64,
        /// Largest.
        max: i64,
    },
    /// A 32-bit seed; an integer outside i32 is an error (0 = a random seed).
    Seed,
    /// A number, clamped (with a warning) to `min ..= max`.
    Float {
        /// Smallest.
        min: f64,
        /// Largest.
        max: f64,
    },
    /// A number clamped to `key`'s applied value ..= `max`.
    FloatAtLeast {
        /// The key whose value is the least.
        key: &'static str,
        /// Largest.
        max: f64,
    },
    /// An axis ratio clamped to `min ..= max`; at or below `min` (which would divide by about
    /// zero and sink the whole map) it is restored to `legacy`, with a warning.
    Axis {
        /// At or below this the legacy value is restored.
        min: f64,
        /// Largest.
        max: f64,
        /// The original's value.
        legacy: f64,
    },
    /// One of `values`, in any case; another value is an error that names them (and says so
    /// when it is one of `retired`).
    Enum {
        /// What is accepted.
        values: &'static [&'static str],
        /// Values earlier versions accepted.
        retired: &'static [&'static str],
    },
    /// `true` or `false`.
    Bool,
    /// A file path, relative to the config file's folder ("" = none).
    Path,
}

/// A key's default: what an absent key means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A number.
    Float(f64),
    /// One of an enum's values.
    Str(&'static str),
    /// A boolean.
    Bool(bool),
    /// No value: the key is not applied unless given (the original's per-map erosion keys).
    Unset,
}

/// How a key shows on `islagen serve`'s Tune page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dial {
    /// The slider's step.
    pub step: f64,
    /// The slider's least value where it is above the validation's (an axis ratio's legacy
    /// restoration, the feather's floor).
    pub min: Option<f64>,
    /// The most a 512 preview takes (work dials), where less than the range.
    pub preview_max: Option<f64>,
}

/// One ServerConfig.json key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key {
    /// As written in ServerConfig.json.
    pub name: &'static str,
    /// Kind and range.
    pub kind: Kind,
    /// What an absent key means.
    pub default: Value,
    /// Unit of its value ("" for a ratio or a count).
    pub unit: &'static str,
    /// The group it belongs to (the Tune page's panel, the README's table).
    pub section: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// The scale-invariant key that wins when both are given.
    pub superseded_by: Option<&'static str>,
    /// Its dial on the Tune page, if it is one (MapSize and the seed have their own boxes; the
    /// superseded keys are not dials).
    pub dial: Option<Dial>,
}

/// Every key, in sections, in the Tune page's order.
pub const KEYS: [Key; 54] = [
    Key {
        name: "MapSize",
        // The format's own bounds.
        kind: Kind::Int {
            min: MIN_MAP_SIZE as i64,
            max: MAX_MAP_SIZE as i64,
        },
        default: Value::Int(8192),
        unit: "px",
        section: "World",
        help: "Pixels per side (scaleFactor = MapSize / 1024). --size sets it",
        superseded_by: None,
        dial: None,
    },
    Key {
        name: "WorldSeed",
        kind: Kind::Seed,
        default: Value::Int(0),
        unit: "",
        section: "World",
        help: "The world seed, a 32-bit integer; 0 draws a random one (printed). --seed sets it",
        superseded_by: None,
        dial: None,
    },
    Key {
        name: "CraterRadius",
        kind: Kind::Float { min: 8.0, max: 200.0 },
        default: Value::Float(64.0),
        unit: "px @1024",
        section: "Shape",
        help: "Crater radius in pixels of the 1024 reference map (64 = 512 m)",
        superseded_by: None,
        dial: Some(Dial { step: 1.0, min: None, preview_max: None }),
    },
    Key {
        name: "IslandAxisX",
        kind: Kind::Axis { min: 0.01, max: 4.0, legacy: 1.15 },
        default: Value::Float(1.30),
        unit: "",
        section: "Shape",
        help: "Island falloff axis ratio along X",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: Some(0.02), preview_max: None }),
    },
    Key {
        name: "IslandAxisY",
        kind: Kind::Axis { min: 0.01, max: 4.0, legacy: 0.90 },
        default: Value::Float(0.78),
        unit: "",
        section: "Shape",
        help: "Island falloff axis ratio along Y",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: Some(0.02), preview_max: None }),
    },
    Key {
        name: "SpineVariation",
        kind: Kind::Float { min: 0.0, max: 1.0 },
        default: Value::Float(1.0),
        unit: "",
        section: "Shape",
        help: "How far the mountain spine (off centre, turned, bent, a second ridge, the summit anywhere along it) departs from the original's straight central spine; 0 restores it",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: None, preview_max: None }),
    },
    Key {
        name: "CoastVariation",
        kind: Kind::Float { min: 0.0, max: 1.0 },
        default: Value::Float(1.0),
        unit: "",
        section: "Shape",
        help: "How far the outline (capes, bays, lopsided or crescent islands, a wandering Trench edge, an irregular crater) departs from the original's squircle; 0 restores it",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: None, preview_max: None }),
    },
    Key {
        name: "OffshoreIslandDensity",
        kind: Kind::Float { min: 0.0, max: 0.5 },
        default: Value::Float(0.02),
        unit: "",
        section: "Shape",
        help: "Share of the offshore field that becomes islets",
        superseded_by: None,
        dial: Some(Dial { step: 0.005, min: None, preview_max: None }),
    },
    Key {
        name: "CraterRim",
        kind: Kind::Float { min: 0.0, max: 120.0 },
        default: Value::Float(50.0),
        unit: "m",
        section: "Shape",
        help: "The crater's raised rim crest above the land around it, with an ejecta apron fading outward; 0 = the original clean cut",
        superseded_by: None,
        dial: Some(Dial { step: 1.0, min: None, preview_max: None }),
    },
    Key {
        name: "CoastProfile",
        kind: Kind::Enum { values: &["wide", "steep"], retired: &[] },
        default: Value::Str("wide"),
        unit: "",
        section: "Shape",
        help: "Submarine shelf: wide shallows or the raw seabed",
        superseded_by: None,
        dial: Some(Dial { step: 0.0, min: None, preview_max: None }),
    },
    Key {
        name: "SeaLevelModel",
        kind: Kind::Enum { values: &["flat", "field"], retired: &[] },
        default: Value::Str("flat"),
        unit: "",
        section: "Sea",
        help: "One sea level everywhere, or the legacy north-south field",
        superseded_by: None,
        dial: Some(Dial { step: 0.0, min: None, preview_max: None }),
    },
    Key {
        name: "SeaLevelValue",
        kind: Kind::Float { min: 0.01, max: 0.6 },
        default: Value::Float(0.15),
        unit: "raw",
        section: "Sea",
        help: "Flat sea level in raw height units (1 raw = 251 m)",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: None, preview_max: None }),
    },
    Key {
        name: "TerrainCurve",
        kind: Kind::Enum { values: &["v5", "off"], retired: &["v1", "v2", "v3", "v4", "on", "tri"] },
        default: Value::Str("v5"),
        unit: "",
        section: "Relief",
        help: "The terraced height curve",
        superseded_by: None,
        dial: Some(Dial { step: 0.0, min: None, preview_max: None }),
    },
    Key {
        name: "TerrainDetail",
        kind: Kind::Enum { values: &["v1", "off"], retired: &[] },
        default: Value::Str("v1"),
        unit: "",
        section: "Relief",
        help: "Shelf micro-relief and shelf-edge variation",
        superseded_by: None,
        dial: Some(Dial { step: 0.0, min: None, preview_max: None }),
    },
    Key {
        name: "ShelfReliefAmp",
        kind: Kind::Float { min: 0.0, max: 10.0 },
        default: Value::Float(3.0),
        unit: "m",
        section: "Relief",
        help: "Micro-relief amplitude on the shelf",
        superseded_by: None,
        dial: Some(Dial { step: 0.1, min: None, preview_max: None }),
    },
    Key {
        name: "ShelfEdgeVariation",
        kind: Kind::Float { min: 0.0, max: 15.06 },
        default: Value::Float(12.0),
        unit: "m",
        section: "Relief",
        help: "Shelf-edge shift amplitude (at most the terrain curve's band-squeeze bound)",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: None, preview_max: None }),
    },
    Key {
        name: "FineRelief",
        kind: Kind::Float { min: 0.0, max: 4.0 },
        default: Value::Float(1.0),
        unit: "",
        section: "Relief",
        help: "The relief below the island noise's last octave (≈ 27 m and shorter, down to 2 px: rock and ground texture at 8192), a multiplier on the land's power-law spectrum, and on the depth of the rills down the carved hillslopes (Erosion v2); 0 = none",
        superseded_by: None,
        dial: Some(Dial { step: 0.05, min: None, preview_max: None }),
    },
    Key {
        name: "Erosion",
        kind: Kind::Enum { values: &["v2", "v1", "off"], retired: &[] },
        default: Value::Str("v2"),
        unit: "",
        section: "Erosion",
        help: "v2: fluvial relief (stream-power incision and hillslope diffusion on the 8 m landscape grid: the same valleys at every MapSize); v1: droplet erosion (rills, on 4 m cells); off",
        superseded_by: None,
        dial: Some(Dial { step: 0.0, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionErodibility",
        kind: Kind::Float { min: 0.1, max: 100.0 },
        default: Value::Float(18.0),
        unit: "per Myr",
        section: "Erosion",
        help: "v2: stream-power erodibility K (how fast rivers cut valleys)",
        superseded_by: None,
        dial: Some(Dial { step: 0.1, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionUplift",
        kind: Kind::Float { min: 0.0, max: 10.0 },
        default: Value::Float(0.2),
        unit: "mm/yr",
        section: "Erosion",
        help: "v2: rock uplift, scaled with the designed height",
        superseded_by: None,
        dial: Some(Dial { step: 0.05, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionDiffusivity",
        kind: Kind::Float { min: 0.0, max: 1.0 },
        default: Value::Float(0.002),
        unit: "m²/yr",
        section: "Erosion",
        help: "v2: hillslope diffusivity (rounds ridges and valley sides)",
        superseded_by: None,
        dial: Some(Dial { step: 0.0005, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionMaturity",
        kind: Kind::Float { min: 0.01, max: 20.0 },
        default: Value::Float(2.0),
        unit: "Myr",
        section: "Erosion",
        help: "v2: how long the land has eroded (deeper, wider valleys)",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionSteps",
        kind: Kind::Int { min: 1, max: 200 },
        default: Value::Int(12),
        unit: "",
        section: "Erosion",
        help: "v2: implicit steps the maturity is solved in",
        superseded_by: None,
        dial: Some(Dial { step: 1.0, min: None, preview_max: Some(48.0) }),
    },
    Key {
        name: "ErosionDropletDensity",
        kind: Kind::Float { min: 10.0, max: 1_000_000.0 },
        default: Value::Float(1500.0),
        unit: "per km²",
        section: "Erosion",
        help: "v1: droplets per km² of land (the same erosion at every MapSize)",
        superseded_by: None,
        dial: Some(Dial { step: 10.0, min: None, preview_max: Some(15000.0) }),
    },
    Key {
        name: "ErosionDropletCount",
        kind: Kind::Int { min: 1_000, max: 20_000_000 },
        default: Value::Unset,
        unit: "droplets",
        section: "Erosion",
        help: "v1: the original's droplet count over the whole map (erodes less per km² on a larger map); ErosionDropletDensity wins when both are given",
        superseded_by: Some("ErosionDropletDensity"),
        dial: None,
    },
    Key {
        name: "ErosionDropletDistance",
        kind: Kind::Float { min: 32.0, max: 16_384.0 },
        default: Value::Float(1536.0),
        unit: "m",
        section: "Erosion",
        help: "How far a droplet may travel",
        superseded_by: None,
        dial: Some(Dial { step: 16.0, min: None, preview_max: Some(4096.0) }),
    },
    Key {
        name: "ErosionDropletLifetime",
        kind: Kind::Int { min: 8, max: 4096 },
        default: Value::Unset,
        unit: "cells",
        section: "Erosion",
        help: "v1: the original's droplet lifetime in map cells (a different distance at another MapSize); ErosionDropletDistance wins when both are given",
        superseded_by: Some("ErosionDropletDistance"),
        dial: None,
    },
    Key {
        name: "ErosionBrushSize",
        kind: Kind::Float { min: 4.0, max: 64.0 },
        default: Value::Float(12.0),
        unit: "m",
        section: "Erosion",
        help: "Erode/deposit brush radius",
        superseded_by: None,
        dial: Some(Dial { step: 1.0, min: None, preview_max: Some(32.0) }),
    },
    Key {
        name: "ErosionBrushRadius",
        kind: Kind::Int { min: 1, max: 8 },
        default: Value::Unset,
        unit: "cells",
        section: "Erosion",
        help: "v1: the original's brush radius in map cells; ErosionBrushSize wins when both are given",
        superseded_by: Some("ErosionBrushSize"),
        dial: None,
    },
    Key {
        name: "ErosionCarveCap",
        kind: Kind::Float { min: 0.5, max: 60.0 },
        default: Value::Float(15.0),
        unit: "m",
        section: "Erosion",
        help: "Most a cell is carved",
        superseded_by: None,
        dial: Some(Dial { step: 0.5, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionDepositCap",
        kind: Kind::Float { min: 0.0, max: 30.0 },
        default: Value::Float(6.0),
        unit: "m",
        section: "Erosion",
        help: "Most a cell is built up",
        superseded_by: None,
        dial: Some(Dial { step: 0.5, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionSeedOffset",
        kind: Kind::Int { min: i32::MIN as i64, max: i32::MAX as i64 },
        default: Value::Int(1709),
        unit: "",
        section: "Erosion",
        help: "Droplet stream seed offset from the world seed",
        superseded_by: None,
        dial: Some(Dial { step: 1.0, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionSeaMargin",
        kind: Kind::Float { min: 0.0, max: 10.0 },
        default: Value::Float(0.5),
        unit: "m",
        section: "Erosion",
        help: "Flood guard above sea",
        superseded_by: None,
        dial: Some(Dial { step: 0.1, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionInertia",
        kind: Kind::Float { min: 0.0, max: 0.99 },
        default: Value::Float(0.35),
        unit: "",
        section: "Erosion",
        help: "Droplet direction inertia",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionCapacityFactor",
        kind: Kind::Float { min: 0.1, max: 64.0 },
        default: Value::Float(4.0),
        unit: "",
        section: "Erosion",
        help: "Sediment capacity factor",
        superseded_by: None,
        dial: Some(Dial { step: 0.1, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionMinSlope",
        kind: Kind::Float { min: 0.0, max: 10.0 },
        default: Value::Float(0.05),
        unit: "m",
        section: "Erosion",
        help: "Minimum slope in the capacity term",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionErodeRate",
        kind: Kind::Float { min: 0.0, max: 1.0 },
        default: Value::Float(0.3),
        unit: "",
        section: "Erosion",
        help: "Erode rate",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionDepositRate",
        kind: Kind::Float { min: 0.0, max: 1.0 },
        default: Value::Float(0.3),
        unit: "",
        section: "Erosion",
        help: "Deposit rate",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionEvaporation",
        kind: Kind::Float { min: 0.0, max: 0.5 },
        default: Value::Float(0.01),
        unit: "",
        section: "Erosion",
        help: "Evaporation per step",
        superseded_by: None,
        dial: Some(Dial { step: 0.005, min: None, preview_max: None }),
    },
    Key {
        name: "ErosionGravity",
        kind: Kind::Float { min: 0.1, max: 50.0 },
        default: Value::Float(4.0),
        unit: "",
        section: "Erosion",
        help: "Gravity",
        superseded_by: None,
        dial: Some(Dial { step: 0.1, min: None, preview_max: None }),
    },
    Key {
        name: "CraterErosionMode",
        kind: Kind::Enum { values: &["feather", "full"], retired: &[] },
        default: Value::Str("feather"),
        unit: "",
        section: "Erosion",
        help: "Erosion outside the crater's protected core",
        superseded_by: None,
        dial: Some(Dial { step: 0.0, min: None, preview_max: None }),
    },
    Key {
        name: "CraterErosionCore",
        kind: Kind::Float { min: 0.0, max: 2.0 },
        default: Value::Float(0.8),
        unit: "× radius",
        section: "Erosion",
        help: "Protected crater core",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: None, preview_max: None }),
    },
    Key {
        name: "CraterErosionFeather",
        kind: Kind::FloatAtLeast { key: "CraterErosionCore", max: 3.0 },
        default: Value::Float(1.05),
        unit: "× radius",
        section: "Erosion",
        help: "Feather outer radius (at least CraterErosionCore)",
        superseded_by: None,
        dial: Some(Dial { step: 0.01, min: Some(0.8), preview_max: None }),
    },
    Key {
        name: "Rivers",
        kind: Kind::Enum { values: &["v1", "off"], retired: &[] },
        default: Value::Str("v1"),
        unit: "",
        section: "Water",
        help: "v1: rivers found on the carved surface, in the valleys; off: none",
        superseded_by: None,
        dial: Some(Dial { step: 0.0, min: None, preview_max: None }),
    },
    Key {
        name: "RiverCatchment",
        kind: Kind::Float { min: 0.05, max: 20.0 },
        default: Value::Float(0.25),
        unit: "km²",
        section: "Water",
        help: "Catchment where a river starts (divided by RiverDensity), above 5 m",
        superseded_by: None,
        dial: Some(Dial { step: 0.05, min: None, preview_max: None }),
    },
    Key {
        name: "RiverWidthScale",
        kind: Kind::Float { min: 0.1, max: 5.0 },
        default: Value::Float(1.0),
        unit: "",
        section: "Water",
        help: "Multiplier on river widths (6 m × scale × Q^0.5)",
        superseded_by: None,
        dial: Some(Dial { step: 0.1, min: None, preview_max: None }),
    },
    Key {
        name: "RiverDensity",
        kind: Kind::Float { min: 0.1, max: 10.0 },
        default: Value::Float(1.0),
        unit: "",
        section: "Water",
        help: "River density (divides the start catchment)",
        superseded_by: None,
        dial: Some(Dial { step: 0.1, min: None, preview_max: None }),
    },
    Key {
        name: "DensityMultiplier",
        kind: Kind::Float { min: 0.1, max: 10.0 },
        default: Value::Float(1.0),
        unit: "",
        section: "Towns and roads",
        help: "Town density multiplier",
        superseded_by: None,
        dial: Some(Dial { step: 0.1, min: None, preview_max: Some(4.0) }),
    },
    Key {
        name: "TownGrading",
        kind: Kind::Bool,
        default: Value::Bool(true),
        unit: "",
        section: "Towns and roads",
        help: "Cut and fill a level pad under every town and a bank around it (false: the land as it is)",
        superseded_by: None,
        dial: Some(Dial { step: 0.0, min: None, preview_max: None }),
    },
    Key {
        name: "SkipRoads",
        kind: Kind::Bool,
        default: Value::Bool(false),
        unit: "",
        section: "Towns and roads",
        help: "Skip the road pass (an iteration world, not one to ship)",
        superseded_by: None,
        dial: Some(Dial { step: 0.0, min: None, preview_max: None }),
    },
    Key {
        name: "IslandMask",
        kind: Kind::Path,
        default: Value::Str(""),
        unit: "",
        section: "Shape",
        help: "Where land is wanted: a grayscale PNG or GeoTIFF (white land, black sea), relative to the config; \"\" none",
        superseded_by: None,
        dial: None,
    },
    Key {
        name: "ReliefMask",
        kind: Kind::Path,
        default: Value::Str(""),
        unit: "",
        section: "Shape",
        help: "Where the land rises: a grayscale PNG or GeoTIFF (white the highest ground) that takes the spine's place, relative to the config; \"\" none",
        superseded_by: None,
        dial: None,
    },
    Key {
        name: "HardRockMask",
        kind: Kind::Path,
        default: Value::Str(""),
        unit: "",
        section: "Shape",
        help: "Where the rock is hard: a grayscale PNG or GeoTIFF (white erodes half as fast under Erosion v2), relative to the config; \"\" none",
        superseded_by: None,
        dial: None,
    },
    Key {
        name: "TownPins",
        kind: Kind::Path,
        default: Value::Str(""),
        unit: "",
        section: "Shape",
        help: "Towns that stand where you put them: a GeoJSON or JSON file of points in the world's metres with a tier and an optional name, relative to the config; \"\" none",
        superseded_by: None,
        dial: None,
    },
];

/// Every key's name, in [`KEYS`]' order.
pub const KNOWN_KEYS: [&str; KEYS.len()] = {
    let mut names = [""; KEYS.len()];
    let mut i = 0;
    while i < KEYS.len() {
        names[i] = KEYS[i].name;
        i += 1;
    }
    names
};

/// The key named `name` (exactly as written).
pub fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// The key named `name`, found when the program is compiled (a name not in [`KEYS`] does not
/// compile where this is evaluated in a constant, as [`k!`](crate::config) does).
pub const fn find(name: &str) -> &'static Key {
    let mut i = 0;
    while i < KEYS.len() {
        if eq(KEYS[i].name.as_bytes(), name.as_bytes()) {
            return &KEYS[i];
        }
        i += 1;
    }
    panic!("not a key in KEYS")
}

const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Value {
    /// The default as a number (NaN where it is not one).
    pub fn number(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
            _ => f64::NAN,
        }
    }
}

impl Key {
    /// The range or values, as the README and `config --list` print them.
    pub fn range(&self) -> String {
        match self.kind {
            Kind::Int { min, max } if (min, max) == (i32::MIN.into(), i32::MAX.into()) => {
                "any 32-bit integer".into()
            }
            Kind::Int { min, max } => format!("{} ..= {}", group(min), group(max)),
            Kind::Seed => "any 32-bit integer (0 = random)".into(),
            Kind::Float { min, max } => format!("{} ..= {}", number(min), number(max)),
            Kind::FloatAtLeast { key, max } => format!("{key} ..= {}", number(max)),
            Kind::Axis { min, max, legacy } => format!(
                "{} ..= {} (≤ {} restores {})",
                number(min),
                number(max),
                number(min),
                number(legacy)
            ),
            Kind::Enum { values, .. } => values
                .iter()
                .map(|v| format!("\"{v}\""))
                .collect::<Vec<_>>()
                .join(", "),
            Kind::Bool => "true, false".into(),
            Kind::Path => "a file path".into(),
        }
    }

    /// The default as the README and `config --list` print it.
    pub fn default_text(&self) -> String {
        match self.default {
            Value::Int(i) => group(i),
            Value::Float(f) => number(f),
            Value::Str(s) => format!("\"{s}\""),
            Value::Bool(b) => b.to_string(),
            Value::Unset => "unset".into(),
        }
    }
}

/// A number as written in the table (shortest form, thousands grouped with a thin space).
fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        group(x as i64)
    } else {
        x.to_string()
    }
}

/// An integer with its thousands grouped by a space (20 000 000), as the README writes them.
fn group(i: i64) -> String {
    let digits = i.unsigned_abs().to_string();
    let mut out = String::new();
    for (n, c) in digits.chars().enumerate() {
        if n > 0 && (digits.len() - n).is_multiple_of(3) && digits.len() > 4 {
            out.push(' ');
        }
        out.push(c);
    }
    if i < 0 {
        out.insert(0, '-');
    }
    out
}

/// MapSize's range (what `--size` accepts).
pub fn map_size_range() -> std::ops::RangeInclusive<i64> {
    match find("MapSize").kind {
        Kind::Int { min, max } => min..=max,
        _ => unreachable!("MapSize is an integer key"),
    }
}

/// The README's key table (Markdown): one row a key, in [`KEYS`]' order.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| key | section | default | range / values | unit | meaning |\n|---|---|---|---|---|---|\n",
    );
    for k in &KEYS {
        let mut help = k.help.to_string();
        if k.dial.is_none() && k.superseded_by.is_none() && k.section != "World" {
            help.push_str(" (not a dial)");
        }
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            k.name,
            k.section,
            k.default_text(),
            k.range(),
            k.unit,
            help
        ));
    }
    out
}

/// A ServerConfig.json holding every key at its default, in [`KEYS`]' order (`null` for the
/// keys unset by default): what `config/ServerConfig.json` ships and `islagen config --json`
/// prints.
pub fn server_config_json() -> String {
    let mut out = String::from("{\n");
    for (i, k) in KEYS.iter().enumerate() {
        let value = match k.default {
            Value::Int(v) => v.to_string(),
            Value::Float(v) if v.fract() == 0.0 => format!("{v:.1}"),
            Value::Float(v) => v.to_string(),
            Value::Str(s) => format!("\"{s}\""),
            Value::Bool(b) => b.to_string(),
            Value::Unset => "null".into(),
        };
        let comma = if i + 1 < KEYS.len() { "," } else { "" };
        out.push_str(&format!("  \"{}\": {value}{comma}\n", k.name));
    }
    out.push_str("}\n");
    out
}

/// `islagen config --list`: one block a key.
pub fn listing() -> String {
    let mut out = String::new();
    let mut section = "";
    for k in &KEYS {
        if k.section != section {
            section = k.section;
            out.push_str(&format!("{section}\n"));
        }
        let unit = if k.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", k.unit)
        };
        out.push_str(&format!(
            "  {:<24} {}{unit}   [{}]\n      {}\n",
            k.name,
            k.default_text(),
            k.range(),
            k.help
        ));
        if let Some(newer) = k.superseded_by {
            out.push_str(&format!("      {newer} wins when both are given\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        let mut names = KNOWN_KEYS.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), KEYS.len());
        for k in &KEYS {
            assert_eq!(key(k.name), Some(k));
            assert_eq!(find(k.name), k);
        }
        assert_eq!(key("mapsize"), None);
    }

    #[test]
    fn every_default_is_of_its_kind_and_in_its_range() {
        for k in &KEYS {
            match (k.kind, k.default) {
                (Kind::Int { min, max }, Value::Int(d)) => assert!((min..=max).contains(&d)),
                (Kind::Int { .. }, Value::Unset) => assert!(k.superseded_by.is_some()),
                (Kind::Seed, Value::Int(d)) => assert!(i32::try_from(d).is_ok()),
                (Kind::Float { min, max }, Value::Float(d))
                | (Kind::Axis { min, max, .. }, Value::Float(d)) => {
                    assert!(min <= d && d <= max, "{}", k.name)
                }
                (Kind::FloatAtLeast { key: floor, max }, Value::Float(d)) => {
                    assert!(find(floor).default.number() <= d && d <= max)
                }
                (Kind::Enum { values, .. }, Value::Str(d)) => assert!(values.contains(&d)),
                (Kind::Bool, Value::Bool(_)) => {}
                (Kind::Path, Value::Str(d)) => assert_eq!(d, "", "{}: no file by default", k.name),
                other => panic!("{}: {other:?}", k.name),
            }
            if let Some(newer) = k.superseded_by {
                assert!(key(newer).is_some_and(|n| n.dial.is_some()), "{}", k.name);
            }
        }
    }

    #[test]
    fn map_size_is_the_formats_range() {
        use crate::blueprint::format::{MAX_MAP_SIZE, MIN_MAP_SIZE};
        assert_eq!(map_size_range(), MIN_MAP_SIZE.into()..=MAX_MAP_SIZE.into());
    }

    #[test]
    fn numbers_print_as_the_readme_writes_them() {
        assert_eq!(group(20_000_000), "20 000 000");
        assert_eq!(group(8192), "8192");
        assert_eq!(group(-2_147_483_648), "-2 147 483 648");
        assert_eq!(number(0.002), "0.002");
        assert_eq!(number(16_384.0), "16 384");
        assert_eq!(find("ErosionDropletCount").range(), "1000 ..= 20 000 000");
        assert_eq!(
            find("IslandAxisX").range(),
            "0.01 ..= 4 (≤ 0.01 restores 1.15)"
        );
    }
}
