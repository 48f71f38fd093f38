//! Configuration: a `ServerConfig.json`-compatible file, parsed raw and then validated.
//!
//! [`RawConfig`] mirrors the original's PascalCase keys, every one optional, so an existing
//! ServerConfig.json loads unchanged; keys islagen does not know (a real file also carries server
//! settings) are collected and listed once at debug level. [`Config::from_raw`] turns it into a
//! [`Config`] whose fields are checked: a retired or unknown enum value is a [`ConfigError`]
//! naming the key, the value and the accepted values; an out-of-range number is clamped and
//! reported as a [`ConfigWarning`] naming the key, the given and the applied value.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use keys::{Key, Kind, Value};

/// The balanced curve preset's band-squeeze bound for ShelfEdgeVariation, metres of input
/// height: a larger shift could fold the curve. It is the curve stage's
/// `BALANCED.edge_max_shift_m()` (half the narrower of its K2…K3 and K5…K6 bands × 251 m),
/// restated here so validation does not reach into a stage; a test holds the two equal, and
/// this equal to ShelfEdgeVariation's largest value in [`keys::KEYS`].
pub const SHELF_EDGE_MAX_SHIFT_M: f32 = 15.06;

pub mod heightmap;
pub mod keys;

pub use crate::dials::{CraterErosionMode, CraterGuard, DetailDials, DropletDials};
use crate::formats::pins::{self, Pin, PinsError};
use crate::formats::raster::{Raster, RasterError};
use crate::stages::crater::CARVE_FACTOR;
pub use keys::KNOWN_KEYS;

/// The key named `$name` in [`keys::KEYS`], found when the program is compiled.
macro_rules! k {
    ($name:literal) => {{
        const KEY: &keys::Key = keys::find($name);
        KEY
    }};
}

/// The known key an unknown one was most likely meant to be: the same key in another case, or
/// one within a small edit distance (1 for keys up to 8 characters, 2 beyond). Keys further
/// from every known key — the game server's own settings, say — get no suggestion.
pub fn suggest_key(unknown: &str) -> Option<&'static str> {
    if let Some(k) = KNOWN_KEYS.iter().find(|k| k.eq_ignore_ascii_case(unknown)) {
        return Some(k);
    }
    let budget = if unknown.chars().count() <= 8 { 1 } else { 2 };
    KNOWN_KEYS
        .iter()
        .map(|k| {
            (
                strsim::levenshtein(&k.to_ascii_lowercase(), &unknown.to_ascii_lowercase()),
                *k,
            )
        })
        .filter(|(d, _)| *d <= budget)
        .min()
        .map(|(_, k)| k)
}

/// The config file exactly as written: every key optional, PascalCase as the original.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
#[allow(missing_docs)]
pub struct RawConfig {
    pub map_size: Option<i64>,
    pub world_seed: Option<i64>,
    pub crater_radius: Option<f64>,
    pub density_multiplier: Option<f64>,
    pub town_grading: Option<bool>,
    pub sea_level_model: Option<String>,
    pub sea_level_value: Option<f64>,
    pub skip_roads: Option<bool>,
    pub terrain_curve: Option<String>,
    pub terrain_detail: Option<String>,
    pub shelf_relief_amp: Option<f64>,
    pub shelf_edge_variation: Option<f64>,
    pub erosion: Option<String>,
    pub erosion_droplet_count: Option<i64>,
    pub erosion_droplet_density: Option<f64>,
    pub erosion_droplet_distance: Option<f64>,
    pub erosion_brush_size: Option<f64>,
    pub erosion_droplet_lifetime: Option<i64>,
    pub erosion_carve_cap: Option<f64>,
    pub erosion_deposit_cap: Option<f64>,
    pub erosion_brush_radius: Option<i64>,
    pub erosion_seed_offset: Option<i64>,
    pub erosion_sea_margin: Option<f64>,
    pub erosion_inertia: Option<f64>,
    pub erosion_capacity_factor: Option<f64>,
    pub erosion_min_slope: Option<f64>,
    pub erosion_erode_rate: Option<f64>,
    pub erosion_deposit_rate: Option<f64>,
    pub erosion_evaporation: Option<f64>,
    pub erosion_gravity: Option<f64>,
    pub erosion_erodibility: Option<f64>,
    pub erosion_uplift: Option<f64>,
    pub erosion_diffusivity: Option<f64>,
    pub erosion_maturity: Option<f64>,
    pub erosion_steps: Option<i64>,
    pub crater_erosion_mode: Option<String>,
    pub crater_erosion_core: Option<f64>,
    pub crater_erosion_feather: Option<f64>,
    pub coast_profile: Option<String>,
    pub island_axis_x: Option<f64>,
    pub island_axis_y: Option<f64>,
    pub offshore_island_density: Option<f64>,
    pub spine_variation: Option<f64>,
    pub coast_variation: Option<f64>,
    pub crater_rim: Option<f64>,
    pub fine_relief: Option<f64>,
    pub rivers: Option<String>,
    pub river_catchment: Option<f64>,
    pub river_width_scale: Option<f64>,
    pub river_density: Option<f64>,
    pub island_mask: Option<String>,
    pub relief_mask: Option<String>,
    pub hard_rock_mask: Option<String>,
    pub town_pins: Option<String>,
    /// Every key islagen does not know, kept so it can be listed.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, serde_json::Value>,
}

/// How sea level is computed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum SeaLevelModel {
    /// One scalar everywhere (raw height units).
    Flat(f32),
    /// The legacy latitude lerp: 0.26 in the north to 0.15 in the south.
    Field,
}

/// The height-redistribution curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TerrainCurve {
    /// The balanced terraced curve (TCRV curveVersion 5).
    V5,
    /// The raw profile.
    Off,
}

/// The terrain detail passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TerrainDetail {
    /// Shelf micro-relief and shelf-edge variation (TDTL v2); needs the curve.
    V1,
    /// None.
    Off,
}

/// The submarine shelf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CoastProfile {
    /// Shallow depth compressed so the shallows reach further out.
    Wide,
    /// The raw seabed.
    Steep,
}

/// How many droplets erosion runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum DropletBudget {
    /// ErosionDropletDensity: droplets per km² of land, the same erosion at every MapSize.
    PerLandKm2(f32),
    /// ErosionDropletCount (the original's dial): droplets drawn over the whole map, whatever
    /// its size, those landing in water stopping at once.
    Count(i32),
}

/// A droplet's reach or brush: metres (the scale-invariant dials) or cells of the map (the
/// original's, honoured when given: their distance depends on the MapSize).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum ErosionLength {
    /// Metres of world.
    Metres(f32),
    /// Pixels of the map being generated.
    Cells(i32),
}

impl ErosionLength {
    /// Metres at `map_size`.
    pub fn metres(self, map_size: u32) -> f32 {
        match self {
            ErosionLength::Metres(m) => m,
            ErosionLength::Cells(c) => c as f32 * crate::units::metres_per_px(map_size as usize),
        }
    }
}

/// Which erosion shapes the land (Erosion).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ErosionModel {
    /// "off": the designed surface as it is.
    Off,
    /// "v1": droplet hydraulic erosion (rills and channels, no valleys).
    Droplets,
    /// "v2": fluvial relief — stream-power incision with hillslope diffusion (valleys).
    Fluvial,
}

/// The fluvial relief's dials (Erosion "v2"), as applied.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FluvialConfig {
    /// ErosionErodibility: K of the stream-power law, per Myr (m^0.1/Myr at m = 0.45).
    pub erodibility_per_myr: f32,
    /// ErosionUplift: rock uplift, mm/yr.
    pub uplift_mm_yr: f32,
    /// ErosionDiffusivity: hillslope diffusivity, m²/yr.
    pub diffusivity_m2_yr: f32,
    /// ErosionMaturity: the time the land has had, Myr.
    pub maturity_myr: f32,
    /// ErosionSteps: the implicit steps it is solved in.
    pub steps: u32,
}

/// Erosion dials, as applied.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ErosionConfig {
    /// Erosion "v2" (fluvial, the default), "v1" (droplets) or "off".
    pub model: ErosionModel,
    /// The fluvial relief's dials.
    pub fluvial: FluvialConfig,
    /// How many droplets run.
    pub droplets: DropletBudget,
    /// How far a droplet may travel.
    pub lifetime: ErosionLength,
    /// The erode/deposit brush's radius.
    pub brush: ErosionLength,
    /// ErosionSeedOffset: the droplet stream's offset from the resolved seed.
    pub seed_offset: i32,
    /// The droplets' physical dials.
    #[serde(flatten)]
    pub dials: DropletDials,
    /// How both models spare the crater.
    pub crater: CraterGuard,
}

/// A validated configuration: every value within its key's range. Its values are read as
/// fields (`config.map_size`, those of [`Settings`]). A `Config` is made only by validation
/// ([`Config::from_json`], [`Config::load`], [`Config::from_raw`], `Default`) and changed only
/// through [`Config::with_overrides`], which holds each value to its range: it cannot be edited
/// into an invalid one. (The `internals` feature lets the tests and tools set its fields.)
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Config(Settings);

/// The values of a validated [`Config`], which reads as them.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Settings {
    /// Pixels per side, 256 ..= 32768.
    pub map_size: u32,
    /// The configured seed; 0 means "randomize" (see [`crate::seed`]).
    pub world_seed: i32,
    /// Crater radius in pixels of the 1024 reference map (scaled by scaleFactor).
    pub crater_radius: f32,
    /// Town density multiplier.
    pub density_multiplier: f32,
    /// Whether the ground under the towns is graded (a level pad and its bank).
    pub town_grading: bool,
    /// Sea-level model.
    pub sea_level: SeaLevelModel,
    /// Export present-but-empty road sections instead of running the road pass.
    pub skip_roads: bool,
    /// Height curve.
    pub terrain_curve: TerrainCurve,
    /// Detail passes.
    pub terrain_detail: TerrainDetail,
    /// Shelf micro-relief amplitude, output metres.
    pub shelf_relief_amp_m: f32,
    /// Shelf-edge variation, metres of input height (≤ [`SHELF_EDGE_MAX_SHIFT_M`]).
    pub shelf_edge_variation_m: f32,
    /// Erosion.
    pub erosion: ErosionConfig,
    /// Submarine shelf.
    pub coast_profile: CoastProfile,
    /// Falloff axis ratio along X.
    pub island_axis_x: f32,
    /// Falloff axis ratio along Y.
    pub island_axis_y: f32,
    /// Fraction of the offshore field above the islet threshold, 0 ..= 0.5.
    pub offshore_island_density: f32,
    /// How far the mountain spine wanders from the original straight central ridge, 0 ..= 1.
    pub spine_variation: f32,
    /// How far the outline departs from the original squircle and straight Trench cut, 0 ..= 1.
    pub coast_variation: f32,
    /// Height of the crater's raised rim above the surrounding land, metres (0 = no rim).
    pub crater_rim_m: f32,
    /// The fine relief below the island noise's last octave, a multiplier on the continuation
    /// of its power law (1 = the noise's own law, 0 = none), 0 ..= 4.
    pub fine_relief: f32,
    /// Rivers "v1" (true) or "off".
    pub rivers: bool,
    /// The catchment where a channel starts, km² (0.05 ..= 20).
    pub river_catchment_km2: f32,
    /// Multiplier on river widths (0.1 ..= 5).
    pub river_width_scale: f32,
    /// River density multiplier: the start catchment is divided by it (0.1 ..= 10).
    pub river_density: f32,
    /// IslandMask: where land is wanted, if a mask is given.
    pub island_mask: Option<Mask>,
    /// ReliefMask: where the land rises (it takes the spine's place), if a mask is given.
    pub relief_mask: Option<Mask>,
    /// HardRockMask: where the rock erodes slowly under the fluvial relief, if a mask is given.
    pub hard_rock_mask: Option<Mask>,
    /// TownPins: towns placed where the file says, if a file is given.
    pub town_pins: Option<PinsFile>,
    /// The heightmap the land is made from instead of the seed's island (`--heightmap`).
    pub heightmap: Option<heightmap::Heightmap>,
}

/// The town pins a config names, read when the config is loaded.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PinsFile {
    /// The file, as resolved (relative to the config's folder).
    pub path: PathBuf,
    /// Its pins.
    #[serde(skip)]
    pub pins: std::sync::Arc<Vec<Pin>>,
    /// SHA-256 (hex) of the file: what a world records of it.
    pub sha256: String,
}

/// A mask a config names, read when the config is loaded.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mask {
    /// The file, as resolved (relative to the config's folder).
    pub path: PathBuf,
    /// Its samples.
    #[serde(skip)]
    pub raster: std::sync::Arc<Raster>,
    /// SHA-256 (hex) of the file: what a world records of it.
    pub sha256: String,
}

impl std::ops::Deref for Config {
    type Target = Settings;

    fn deref(&self) -> &Settings {
        &self.0
    }
}

/// The tests and research tools set fields of a loaded config directly; a user of the library
/// goes through [`Config::with_overrides`] or another config file.
#[cfg(feature = "internals")]
impl std::ops::DerefMut for Config {
    fn deref_mut(&mut self) -> &mut Settings {
        &mut self.0
    }
}

/// Every key at its default ([`keys::KEYS`]): what an empty ServerConfig.json means.
impl Default for Config {
    fn default() -> Self {
        Config::from_raw(RawConfig::default())
            .expect("the key table's defaults are valid (a test holds them)")
            .config
    }
}

/// A value that was changed on load.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConfigWarning {
    /// The key.
    pub key: &'static str,
    /// The value as given.
    pub given: String,
    /// The value applied.
    pub applied: String,
    /// Why.
    pub reason: String,
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} → {} ({})",
            self.key, self.given, self.applied, self.reason
        )
    }
}

/// Why a configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The JSON is malformed or a value has the wrong type.
    #[error("config {origin}:{line}:{column}: {message}")]
    Parse {
        /// Where the JSON came from.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde's description.
        message: String,
    },
    /// A mask could not be used.
    #[error("config key {key}: {source}")]
    Mask {
        /// The key.
        key: &'static str,
        /// Why.
        source: RasterError,
    },
    /// A mask was read but breaks a rule of its key.
    #[error("config key {key}: {}: {rule}", path.display())]
    MaskRule {
        /// The key.
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// The rule it breaks.
        rule: String,
    },
    /// The town pins file could not be read.
    #[error("config key TownPins: {}: {source}", path.display())]
    PinsFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The town pins file breaks a rule.
    #[error("config key TownPins: {}: {source}", path.display())]
    Pins {
        /// The file.
        path: PathBuf,
        /// Which pin, and why.
        source: PinsError,
    },
    /// A value islagen does not accept (a retired or unknown enum value, a seed out of range).
    #[error("config key {key}: {value} is not accepted; accepted: {accepted}")]
    Invalid {
        /// The key.
        key: &'static str,
        /// The value as given.
        value: String,
        /// What is accepted.
        accepted: String,
    },
}

/// A loaded configuration with what loading noticed.
#[derive(Clone, Debug)]
pub struct LoadedConfig {
    /// The validated config.
    pub config: Config,
    /// Clamps and restorations applied.
    pub warnings: Vec<ConfigWarning>,
    /// Keys islagen does not use.
    pub unknown_keys: Vec<String>,
    /// Unknown keys that look like a misspelt known key: (as given, the known key).
    pub suggestions: Vec<(String, &'static str)>,
}

impl Config {
    /// Loads and validates a config file.
    pub fn load(path: &Path) -> Result<LoadedConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        let folder = path.parent().unwrap_or(Path::new(""));
        Self::from_json_in(&text, &path.display().to_string(), folder)
    }

    /// Parses and validates config JSON; `origin` names it in errors. Mask paths are relative
    /// to the current folder ([`Config::load`] reads them relative to the config's).
    pub fn from_json(text: &str, origin: &str) -> Result<LoadedConfig, ConfigError> {
        Self::from_json_in(text, origin, Path::new(""))
    }

    /// [`Config::from_json`] with mask paths relative to `folder`.
    pub fn from_json_in(
        text: &str,
        origin: &str,
        folder: &Path,
    ) -> Result<LoadedConfig, ConfigError> {
        let mut raw: RawConfig = serde_json::from_str(text).map_err(|e| ConfigError::Parse {
            origin: origin.to_string(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        for mask in [
            &mut raw.island_mask,
            &mut raw.relief_mask,
            &mut raw.hard_rock_mask,
            &mut raw.town_pins,
        ] {
            if let Some(mask) = mask.as_mut().filter(|m| !m.is_empty()) {
                *mask = folder.join(&*mask).to_string_lossy().into_owned();
            }
        }
        Self::from_raw(raw)
    }

    /// Validates a raw config.
    pub fn from_raw(raw: RawConfig) -> Result<LoadedConfig, ConfigError> {
        let mut v = Validator {
            warnings: Vec::new(),
        };
        let map_size = v.int(k!("MapSize"), raw.map_size) as u32;
        let world_seed = seed(k!("WorldSeed"), raw.world_seed)?;
        let c = Choices::of(&raw)?;
        let sea_value = v.float(k!("SeaLevelValue"), raw.sea_level_value);
        let crater_core = v.float(k!("CraterErosionCore"), raw.crater_erosion_core);
        let crater_feather = v.at_least(
            k!("CraterErosionFeather"),
            raw.crater_erosion_feather,
            crater_core,
        );
        let budget = erosion_budget(&mut v, &raw);
        let config = Config(Settings {
            map_size,
            world_seed,
            crater_radius: v.float(k!("CraterRadius"), raw.crater_radius),
            density_multiplier: v.float(k!("DensityMultiplier"), raw.density_multiplier),
            town_grading: flag(k!("TownGrading"), raw.town_grading),
            sea_level: match c.flat_sea {
                true => SeaLevelModel::Flat(sea_value),
                false => SeaLevelModel::Field,
            },
            skip_roads: flag(k!("SkipRoads"), raw.skip_roads),
            terrain_curve: c.curve,
            terrain_detail: c.detail,
            shelf_relief_amp_m: v.float(k!("ShelfReliefAmp"), raw.shelf_relief_amp),
            shelf_edge_variation_m: v.float(k!("ShelfEdgeVariation"), raw.shelf_edge_variation),
            erosion: erosion(&mut v, &raw, &c, (crater_core, crater_feather), budget),
            coast_profile: c.coast,
            island_axis_x: v.axis(k!("IslandAxisX"), raw.island_axis_x),
            island_axis_y: v.axis(k!("IslandAxisY"), raw.island_axis_y),
            offshore_island_density: v
                .float(k!("OffshoreIslandDensity"), raw.offshore_island_density),
            spine_variation: v.float(k!("SpineVariation"), raw.spine_variation),
            coast_variation: v.float(k!("CoastVariation"), raw.coast_variation),
            crater_rim_m: v.float(k!("CraterRim"), raw.crater_rim),
            fine_relief: v.float(k!("FineRelief"), raw.fine_relief),
            rivers: c.rivers,
            river_catchment_km2: v.float(k!("RiverCatchment"), raw.river_catchment),
            river_width_scale: v.float(k!("RiverWidthScale"), raw.river_width_scale),
            river_density: v.float(k!("RiverDensity"), raw.river_density),
            island_mask: mask(k!("IslandMask"), raw.island_mask.as_deref())?,
            relief_mask: mask(k!("ReliefMask"), raw.relief_mask.as_deref())?,
            hard_rock_mask: mask(k!("HardRockMask"), raw.hard_rock_mask.as_deref())?,
            town_pins: town_pins(raw.town_pins.as_deref())?,
            heightmap: None,
        });
        if let Some(m) = &config.island_mask {
            crater_room(m, config.crater_radius)?;
        }
        Ok(LoadedConfig {
            config,
            warnings: v.warnings,
            suggestions: raw
                .unknown
                .keys()
                .filter_map(|k| suggest_key(k).map(|s| (k.clone(), s)))
                .collect(),
            unknown_keys: raw.unknown.into_keys().collect(),
        })
    }

    /// scaleFactor = MapSize / 1024: every distance, radius and threshold is multiplied by it.
    pub fn scale_factor(&self) -> f32 {
        crate::units::scale_factor(self.map_size as usize)
    }
}

/// What a command line sets over a loaded config: the seed, the MapSize and SkipRoads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// WorldSeed (0 = a random seed).
    pub world_seed: Option<i32>,
    /// MapSize.
    pub map_size: Option<u32>,
    /// SkipRoads on (it is never switched off over the config's).
    pub skip_roads: bool,
}

impl Config {
    /// This config with `o` applied, each value held to its key's range: a MapSize out of it
    /// is an error (not clamped, as a file's value is: the caller asked for that size).
    pub fn with_overrides(mut self, o: Overrides) -> Result<Config, ConfigError> {
        if let Some(size) = o.map_size {
            let range = keys::map_size_range();
            if !range.contains(&i64::from(size)) {
                return Err(ConfigError::Invalid {
                    key: "MapSize",
                    value: size.to_string(),
                    accepted: format!("{} ..= {}", range.start(), range.end()),
                });
            }
            self.0.map_size = size;
        }
        if let Some(seed) = o.world_seed {
            self = self.with_seed(seed);
        }
        self.0.skip_roads |= o.skip_roads;
        Ok(self)
    }

    /// The values to change, for the engine's own edits that keep them in range.
    pub(crate) fn settings_mut(&mut self) -> &mut Settings {
        &mut self.0
    }

    /// This config making its land from `heightmap` instead of the seed's island: the height
    /// curve, the terrain detail, the crater's rim and the wide shelf are off (the heightmap's
    /// metres are the land's and the seabed's), the rest as configured — sea, crater bay,
    /// erosion, rivers, biomes, towns, roads.
    pub fn with_heightmap(mut self, heightmap: heightmap::Heightmap) -> Config {
        self.0.coast_profile = CoastProfile::Steep;
        self.0.terrain_curve = TerrainCurve::Off;
        self.0.terrain_detail = TerrainDetail::Off;
        self.0.crater_rim_m = 0.0;
        self.0.heightmap = Some(heightmap);
        self
    }

    /// This config with mask `key` (IslandMask, ReliefMask or HardRockMask) taken from
    /// `raster` — a mask painted, not read from a file; `name` stands for its file in errors and
    /// in SHPE — under the rules a file's mask meets.
    pub fn with_mask(
        mut self,
        key: &str,
        name: &str,
        raster: Raster,
    ) -> Result<Config, ConfigError> {
        let key = match key {
            "IslandMask" => "IslandMask",
            "ReliefMask" => "ReliefMask",
            "HardRockMask" => "HardRockMask",
            _ => {
                return Err(ConfigError::Invalid {
                    key: "mask",
                    value: key.to_string(),
                    accepted: "IslandMask, ReliefMask, HardRockMask".into(),
                })
            }
        };
        let path = PathBuf::from(name);
        let mask = checked_mask(key, path, raster)?;
        if key == "IslandMask" {
            crater_room(&mask, self.crater_radius)?;
        }
        let slot = match key {
            "IslandMask" => &mut self.0.island_mask,
            "ReliefMask" => &mut self.0.relief_mask,
            _ => &mut self.0.hard_rock_mask,
        };
        *slot = Some(mask);
        Ok(self)
    }

    /// This config with town pins read from `text` (a GeoJSON or JSON document, not a file;
    /// `name` stands for its file in errors and in SHPE).
    pub fn with_pins(mut self, name: &str, text: &str) -> Result<Config, ConfigError> {
        self.0.town_pins = Some(pins_file(PathBuf::from(name), text)?);
        Ok(self)
    }

    /// This config with WorldSeed `seed` (any seed is valid; 0 means a random one).
    pub fn with_seed(mut self, seed: i32) -> Config {
        self.0.world_seed = seed;
        self
    }
}

/// A mask key's file, read; none when the key is absent or "". Each key's rule
/// ([`mask_rule`]) refuses a mask that would do nothing or leave no island.
fn mask(key: &'static Key, given: Option<&str>) -> Result<Option<Mask>, ConfigError> {
    let Some(path) = given.filter(|p| !p.is_empty()).map(PathBuf::from) else {
        return Ok(None);
    };
    let key = key.name;
    let raster = Raster::read(&path).map_err(|source| ConfigError::Mask { key, source })?;
    checked_mask(key, path, raster).map(Some)
}

/// `raster` as mask `key`, if it meets the key's rule ([`mask_rule`]).
fn checked_mask(key: &'static str, path: PathBuf, raster: Raster) -> Result<Mask, ConfigError> {
    if let Some(rule) = mask_rule(key, &raster) {
        return Err(ConfigError::MaskRule {
            key,
            path,
            rule: rule.into(),
        });
    }
    let sha256 = raster.sha256.clone();
    Ok(Mask {
        path,
        raster: std::sync::Arc::new(raster),
        sha256,
    })
}

/// TownPins' file, read and checked ([`crate::formats::pins`]); none when the key is absent or
/// "". The file is read only up to its limit.
fn town_pins(given: Option<&str>) -> Result<Option<PinsFile>, ConfigError> {
    use std::io::Read;
    let Some(path) = given.filter(|p| !p.is_empty()).map(PathBuf::from) else {
        return Ok(None);
    };
    let io = |source| ConfigError::PinsFile {
        path: path.clone(),
        source,
    };
    let mut bytes = Vec::new();
    let file = std::fs::File::open(&path).map_err(io)?;
    file.take(pins::MAX_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| ConfigError::Pins {
        path: path.clone(),
        source: PinsError {
            at: "file".into(),
            reason: "not UTF-8 text".into(),
        },
    })?;
    pins_file(path, text).map(Some)
}

/// The pins of `text` (the file at `path`, or what stands for it), parsed and checked.
fn pins_file(path: PathBuf, text: &str) -> Result<PinsFile, ConfigError> {
    match pins::parse(text) {
        Ok(pins) => Ok(PinsFile {
            path,
            pins: std::sync::Arc::new(pins),
            sha256: crate::formats::raster::sha256_hex(text.as_bytes()),
        }),
        Err(source) => Err(ConfigError::Pins { path, source }),
    }
}

/// The most of an IslandMask's land the crater's bay may take: the bay (the carve, a half disc
/// of [`CARVE_FACTOR`] × the radius on the northern coast) is refused past a tenth of it.
const CRATER_SHARE: f32 = 0.1;

/// Whether the island `mask` paints leaves room for a crater of `radius` (CraterRadius, pixels
/// of the 1024 reference map): a crater whose bay would take more than [`CRATER_SHARE`] of the
/// land would leave a ring of rim around a bay, not an island with a crater.
fn crater_room(mask: &Mask, radius: f32) -> Result<(), ConfigError> {
    let values = &mask.raster.values;
    let land = values.iter().filter(|&&v| v >= 0.5).count() as f32 / values.len() as f32;
    let world_km2 = (crate::units::WORLD_SIZE_M / 1000.0).powi(2);
    let land_km2 = land * world_km2;
    let radius_m = radius * crate::units::WORLD_SIZE_M / 1024.0;
    let bay_km2 = 0.5 * std::f32::consts::PI * (CARVE_FACTOR * radius_m / 1000.0).powi(2);
    if bay_km2 <= CRATER_SHARE * land_km2 {
        return Ok(());
    }
    Err(ConfigError::MaskRule {
        key: "IslandMask",
        path: mask.path.clone(),
        rule: format!(
            "the land it paints ({land_km2:.1} km²) is too small for the crater: its bay \
             ({bay_km2:.2} km² at CraterRadius {radius}) would take more than a tenth of it; \
             paint more land or lower CraterRadius"
        ),
    })
}

/// The rule `raster` breaks as mask `key`, if any: an IslandMask needs a pixel at least half
/// white (the coast is the half-white contour), the others a pixel above black.
fn mask_rule(key: &str, raster: &Raster) -> Option<&'static str> {
    let highest = raster.values.iter().fold(0.0f32, |a, &v| a.max(v));
    match key {
        "IslandMask" if highest < 0.5 => {
            Some("no pixel is at least half white, so the mask leaves no land")
        }
        "ReliefMask" if highest <= 0.0 => {
            Some("every pixel is black, so the mask raises no land (\"\" for none)")
        }
        "HardRockMask" if highest <= 0.0 => {
            Some("every pixel is black, so the mask marks no hard rock (\"\" for none)")
        }
        _ => None,
    }
}

/// The enum keys' values (an unknown or retired value is an error, in the table's order of
/// these keys).
struct Choices {
    flat_sea: bool,
    curve: TerrainCurve,
    detail: TerrainDetail,
    erosion: ErosionModel,
    rivers: bool,
    crater_mode: CraterErosionMode,
    coast: CoastProfile,
}

impl Choices {
    fn of(raw: &RawConfig) -> Result<Choices, ConfigError> {
        let flat_sea = choice(k!("SeaLevelModel"), &raw.sea_level_model)? == "flat";
        let curve = match choice(k!("TerrainCurve"), &raw.terrain_curve)? {
            "v5" => TerrainCurve::V5,
            _ => TerrainCurve::Off,
        };
        let detail = match choice(k!("TerrainDetail"), &raw.terrain_detail)? {
            "v1" => TerrainDetail::V1,
            _ => TerrainDetail::Off,
        };
        let erosion = match choice(k!("Erosion"), &raw.erosion)? {
            "v2" => ErosionModel::Fluvial,
            "v1" => ErosionModel::Droplets,
            _ => ErosionModel::Off,
        };
        let rivers = choice(k!("Rivers"), &raw.rivers)? == "v1";
        let crater_mode = match choice(k!("CraterErosionMode"), &raw.crater_erosion_mode)? {
            "full" => CraterErosionMode::Full,
            _ => CraterErosionMode::Feather,
        };
        let coast = match choice(k!("CoastProfile"), &raw.coast_profile)? {
            "wide" => CoastProfile::Wide,
            _ => CoastProfile::Steep,
        };
        Ok(Choices {
            flat_sea,
            curve,
            detail,
            erosion,
            rivers,
            crater_mode,
            coast,
        })
    }
}

/// The erosion keys: the model, the fluvial relief's, the droplets' (their budget and lengths
/// already resolved) and the crater's protection.
fn erosion(
    v: &mut Validator,
    raw: &RawConfig,
    c: &Choices,
    (crater_core, crater_feather): (f32, f32),
    (droplets, lifetime, brush): (DropletBudget, ErosionLength, ErosionLength),
) -> ErosionConfig {
    let fluvial = fluvial(v, raw);
    // Validated in the key table's order, so warnings come in that order.
    let carve_cap_m = v.float(k!("ErosionCarveCap"), raw.erosion_carve_cap);
    let deposit_cap_m = v.float(k!("ErosionDepositCap"), raw.erosion_deposit_cap);
    let seed_offset = v.int(k!("ErosionSeedOffset"), raw.erosion_seed_offset) as i32;
    let dials = DropletDials {
        carve_cap_m,
        deposit_cap_m,
        sea_margin_m: v.float(k!("ErosionSeaMargin"), raw.erosion_sea_margin),
        inertia: v.float(k!("ErosionInertia"), raw.erosion_inertia),
        capacity_factor: v.float(k!("ErosionCapacityFactor"), raw.erosion_capacity_factor),
        min_slope_m: v.float(k!("ErosionMinSlope"), raw.erosion_min_slope),
        erode_rate: v.float(k!("ErosionErodeRate"), raw.erosion_erode_rate),
        deposit_rate: v.float(k!("ErosionDepositRate"), raw.erosion_deposit_rate),
        evaporation: v.float(k!("ErosionEvaporation"), raw.erosion_evaporation),
        gravity: v.float(k!("ErosionGravity"), raw.erosion_gravity),
    };
    ErosionConfig {
        model: c.erosion,
        fluvial,
        droplets,
        lifetime,
        brush,
        seed_offset,
        dials,
        crater: CraterGuard {
            mode: c.crater_mode,
            core: crater_core,
            feather: crater_feather,
        },
    }
}

/// An enum-valued key: the lower-cased value if accepted, else an error naming the accepted
/// values (and saying so when the value is a retired one).
fn choice(key: &'static Key, given: &Option<String>) -> Result<&'static str, ConfigError> {
    let (Kind::Enum { values, retired }, Value::Str(default)) = (key.kind, key.default) else {
        unreachable!("{} is not an enum key", key.name)
    };
    let Some(given) = given else {
        return Ok(default);
    };
    let lower = given.to_ascii_lowercase();
    if let Some(v) = values.iter().find(|a| **a == lower) {
        return Ok(v);
    }
    let quoted: Vec<String> = values.iter().map(|a| format!("\"{a}\"")).collect();
    let note = if retired.contains(&lower.as_str()) {
        " (this value is retired)"
    } else {
        ""
    };
    Err(ConfigError::Invalid {
        key: key.name,
        value: format!("\"{given}\"{note}"),
        accepted: quoted.join(", "),
    })
}

/// The seed key: an i32, else an error.
fn seed(key: &'static Key, given: Option<i64>) -> Result<i32, ConfigError> {
    let Some(s) = given else {
        return Ok(key.default.number() as i32);
    };
    i32::try_from(s).map_err(|_| ConfigError::Invalid {
        key: key.name,
        value: s.to_string(),
        accepted: format!("an integer in {}..={} (0 = randomize)", i32::MIN, i32::MAX),
    })
}

/// A boolean key.
fn flag(key: &'static Key, given: Option<bool>) -> bool {
    given.unwrap_or(key.default == Value::Bool(true))
}

/// One erosion length's two keys: the original's in map cells and the scale-invariant one in
/// metres (which wins when both are given).
fn length(
    v: &mut Validator,
    (cells_key, cells): (&'static Key, Option<i64>),
    (metres_key, metres): (&'static Key, Option<f64>),
) -> ErosionLength {
    match v.superseded(metres_key, metres, cells_key, cells) {
        Some(c) => ErosionLength::Cells(v.int(cells_key, Some(c)) as i32),
        None => ErosionLength::Metres(v.float(metres_key, metres)),
    }
}

/// The fluvial relief's five keys. Their defaults were chosen on 12 seeds at 2048 by the
/// drainage statistics of `scripts/geomorph.py` (BENCHMARKS.md, "Fluvial relief"): graded channels of
/// steepness U/K ≈ 11 m^0.9 on land up to 100 m, rising with the design to ≈ 44 m^0.9 at 400 m,
/// over 2 Myr in 12 steps — valleys dissect the massifs and cut the plateau's rim, and the land
/// under 2° stays within 25 % of the design's (K = 20 took 26 % of seed 12's, K = 25–30 a third
/// of seed 1's) — with a diffusivity that rounds valley walls over about sqrt(D T) = 60 m onto
/// the channels' beds.
fn fluvial(v: &mut Validator, raw: &RawConfig) -> FluvialConfig {
    FluvialConfig {
        erodibility_per_myr: v.float(k!("ErosionErodibility"), raw.erosion_erodibility),
        uplift_mm_yr: v.float(k!("ErosionUplift"), raw.erosion_uplift),
        diffusivity_m2_yr: v.float(k!("ErosionDiffusivity"), raw.erosion_diffusivity),
        maturity_myr: v.float(k!("ErosionMaturity"), raw.erosion_maturity),
        steps: v.int(k!("ErosionSteps"), raw.erosion_steps) as u32,
    }
}

/// The erosion budget and lengths: the scale-invariant keys (a density, metres) by default; the
/// original's per-map keys (a count, cells) honoured when given — unless the scale-invariant key
/// is given too, which wins (with a warning).
fn erosion_budget(
    v: &mut Validator,
    raw: &RawConfig,
) -> (DropletBudget, ErosionLength, ErosionLength) {
    let (count_key, density_key) = (k!("ErosionDropletCount"), k!("ErosionDropletDensity"));
    let density = raw.erosion_droplet_density;
    let droplets = match v.superseded(density_key, density, count_key, raw.erosion_droplet_count) {
        Some(c) => DropletBudget::Count(v.int(count_key, Some(c)) as i32),
        None => DropletBudget::PerLandKm2(v.float(density_key, density)),
    };
    let lifetime = length(
        v,
        (k!("ErosionDropletLifetime"), raw.erosion_droplet_lifetime),
        (k!("ErosionDropletDistance"), raw.erosion_droplet_distance),
    );
    let brush = length(
        v,
        (k!("ErosionBrushRadius"), raw.erosion_brush_radius),
        (k!("ErosionBrushSize"), raw.erosion_brush_size),
    );
    (droplets, lifetime, brush)
}

/// Applies the table's ranges and defaults, noting every value it changes.
struct Validator {
    warnings: Vec<ConfigWarning>,
}

impl Validator {
    /// `old` when only the original's key is given; `None` (with a warning that it is ignored)
    /// when its scale-invariant successor is given too.
    fn superseded<T: ToString>(
        &mut self,
        new_key: &'static Key,
        new: Option<f64>,
        old_key: &'static Key,
        old: Option<T>,
    ) -> Option<T> {
        match (new, old) {
            (Some(_), Some(o)) => {
                let why = format!("{} is given too and wins", new_key.name);
                self.warn(old_key, o.to_string(), "ignored".into(), why);
                None
            }
            (_, old) => old,
        }
    }

    fn warn(&mut self, key: &'static Key, given: String, applied: String, reason: String) {
        let key = key.name;
        tracing::warn!("config {key}: {given} is out of range, using {applied} ({reason})");
        self.warnings.push(ConfigWarning {
            key,
            given,
            applied,
            reason,
        });
    }

    /// A number key ([`Kind::Float`]), clamped to its range.
    fn float(&mut self, key: &'static Key, given: Option<f64>) -> f32 {
        let Kind::Float { min, max } = key.kind else {
            unreachable!("{} is not a number key", key.name)
        };
        self.clamped(key, given, min as f32, max as f32)
    }

    /// A [`Kind::FloatAtLeast`] key, clamped to `floor ..= max`.
    fn at_least(&mut self, key: &'static Key, given: Option<f64>, floor: f32) -> f32 {
        let Kind::FloatAtLeast { max, .. } = key.kind else {
            unreachable!("{} is not an at-least key", key.name)
        };
        self.clamped(key, given, floor, max as f32)
    }

    fn clamped(&mut self, key: &'static Key, given: Option<f64>, min: f32, max: f32) -> f32 {
        let Some(g) = given else {
            return key.default.number() as f32;
        };
        let applied = (g as f32).clamp(min, max);
        if applied != g as f32 {
            let why = format!("clamped to {min}..={max}");
            self.warn(key, g.to_string(), applied.to_string(), why);
        }
        applied
    }

    /// An integer key ([`Kind::Int`]), clamped to its range.
    fn int(&mut self, key: &'static Key, given: Option<i64>) -> i64 {
        let Kind::Int { min, max } = key.kind else {
            unreachable!("{} is not an integer key", key.name)
        };
        let Some(g) = given else {
            return key.default.number() as i64;
        };
        let applied = g.clamp(min, max);
        if applied != g {
            let why = format!("clamped to {min}..={max}");
            self.warn(key, g.to_string(), applied.to_string(), why);
        }
        applied
    }

    /// An axis ratio ([`Kind::Axis`]): at or below its least, the legacy value.
    fn axis(&mut self, key: &'static Key, given: Option<f64>) -> f32 {
        let Kind::Axis { min, max, legacy } = key.kind else {
            unreachable!("{} is not an axis key", key.name)
        };
        match given {
            Some(g) if g <= min => {
                let legacy = legacy as f32;
                self.warn(
                    key,
                    g.to_string(),
                    legacy.to_string(),
                    format!("≤ {min} would divide by ~zero and yield an all-ocean map; restored to the legacy value"),
                );
                legacy
            }
            g => self.clamped(key, g, min as f32, max as f32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(json: &str) -> Result<LoadedConfig, ConfigError> {
        Config::from_json(json, "test.json")
    }

    #[test]
    fn overrides_are_held_to_the_keys_ranges() {
        let base = load(r#"{"SkipRoads": true, "MapSize": 2048}"#)
            .unwrap()
            .config;
        let o = Overrides {
            world_seed: Some(-5),
            map_size: Some(512),
            skip_roads: false,
        };
        let c = base.clone().with_overrides(o).unwrap();
        assert_eq!((c.world_seed, c.map_size, c.skip_roads), (-5, 512, true));
        // A MapSize out of range is refused, not clamped as a file's value is.
        let e = base
            .clone()
            .with_overrides(Overrides {
                map_size: Some(100),
                ..Overrides::default()
            })
            .unwrap_err();
        assert!(
            e.to_string().contains("MapSize") && e.to_string().contains("100"),
            "{e}"
        );
        assert_eq!(
            base.clone().with_overrides(Overrides::default()).unwrap(),
            base
        );
    }

    #[test]
    fn empty_object_gives_every_default() {
        let l = load("{}").unwrap();
        assert_eq!(l.config, Config::default());
        assert!(l.warnings.is_empty());
        let c = l.config;
        assert_eq!(c.map_size, 8192);
        assert_eq!(c.sea_level, SeaLevelModel::Flat(0.15));
        assert_eq!(c.terrain_curve, TerrainCurve::V5);
        assert_eq!(c.terrain_detail, TerrainDetail::V1);
        assert_eq!(
            (c.shelf_relief_amp_m, c.shelf_edge_variation_m),
            (3.0, 12.0)
        );
        assert_eq!(c.erosion.model, ErosionModel::Fluvial);
        assert_eq!(
            c.erosion.fluvial,
            FluvialConfig {
                erodibility_per_myr: 18.0,
                uplift_mm_yr: 0.2,
                diffusivity_m2_yr: 0.002,
                maturity_myr: 2.0,
                steps: 12,
            }
        );
        assert_eq!(
            (c.erosion.droplets, c.erosion.lifetime, c.erosion.brush),
            (
                DropletBudget::PerLandKm2(1500.0),
                ErosionLength::Metres(1536.0),
                ErosionLength::Metres(12.0)
            )
        );
        assert_eq!(
            (c.erosion.dials.carve_cap_m, c.erosion.dials.deposit_cap_m),
            (15.0, 6.0)
        );
        assert_eq!(c.erosion.dials.inertia, 0.35);
        assert_eq!(c.erosion.crater.mode, CraterErosionMode::Feather);
        assert_eq!(
            (c.erosion.crater.core, c.erosion.crater.feather),
            (0.80, 1.05)
        );
        assert_eq!(c.coast_profile, CoastProfile::Wide);
        assert_eq!((c.island_axis_x, c.island_axis_y), (1.30, 0.78));
        assert_eq!(c.offshore_island_density, 0.02);
        assert!(!c.skip_roads);
        assert_eq!(c.scale_factor(), 8.0);
    }

    /// The original's per-map erosion keys are honoured as given (a count; cells, which are
    /// metres only at a MapSize); the scale-invariant key wins when both are given, loudly.
    #[test]
    fn erosion_keys_in_cells_are_honoured_and_the_metre_keys_win() {
        let l = load(r#"{"ErosionDropletCount": 20000, "ErosionDropletLifetime": 64, "ErosionBrushRadius": 2}"#).unwrap();
        let e = l.config.erosion;
        assert_eq!(e.droplets, DropletBudget::Count(20_000));
        assert_eq!(e.lifetime, ErosionLength::Cells(64));
        assert_eq!(e.lifetime.metres(1024), 512.0);
        assert_eq!(e.brush.metres(8192), 2.0);
        assert!(l.warnings.is_empty());
        let l = load(r#"{"ErosionDropletCount": 20000, "ErosionDropletDensity": 500, "ErosionBrushSize": 8}"#).unwrap();
        assert_eq!(l.config.erosion.droplets, DropletBudget::PerLandKm2(500.0));
        assert_eq!(l.config.erosion.brush, ErosionLength::Metres(8.0));
        assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
        assert_eq!(l.warnings[0].key, "ErosionDropletCount");
        let l = load(r#"{"ErosionDropletDensity": 1, "ErosionDropletDistance": 1e9}"#).unwrap();
        assert_eq!(l.config.erosion.droplets, DropletBudget::PerLandKm2(10.0));
        assert_eq!(l.config.erosion.lifetime, ErosionLength::Metres(16_384.0));
        assert_eq!(l.warnings.len(), 2);
    }

    /// The shipped file is the key table's (regenerate it with `islagen config --json`), and
    /// loads as the defaults.
    #[test]
    fn shipped_server_config_is_the_defaults() {
        let text = include_str!("../../../../config/ServerConfig.json");
        assert_eq!(
            text,
            keys::server_config_json(),
            "config/ServerConfig.json is stale: `islagen config --json > config/ServerConfig.json`"
        );
        let l = load(text).unwrap();
        assert_eq!(l.config, Config::default());
        assert!(l.warnings.is_empty());
    }

    #[test]
    fn retired_value_names_key_value_and_accepted() {
        let err = load(r#"{"TerrainCurve": "v3"}"#).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(
                err,
                ConfigError::Invalid {
                    key: "TerrainCurve",
                    ..
                }
            ),
            "{msg}"
        );
        assert!(
            msg.contains("\"v3\"") && msg.contains("retired") && msg.contains("\"v5\", \"off\""),
            "{msg}"
        );
        let err = load(r#"{"SeaLevelModel": "tidal"}"#).unwrap_err();
        assert!(err.to_string().contains("\"flat\", \"field\""));
    }

    #[test]
    fn out_of_range_numbers_are_clamped_loudly() {
        let l = load(r#"{"OffshoreIslandDensity": 0.9, "MapSize": 100, "ErosionCarveCap": 1000}"#)
            .unwrap();
        assert_eq!(l.config.offshore_island_density, 0.5);
        assert_eq!(l.config.map_size, 256);
        assert_eq!(l.config.erosion.dials.carve_cap_m, 60.0);
        let keys: Vec<_> = l.warnings.iter().map(|w| w.key).collect();
        assert_eq!(
            keys,
            ["MapSize", "ErosionCarveCap", "OffshoreIslandDensity"]
        );
        let w = &l.warnings[2];
        assert_eq!((w.given.as_str(), w.applied.as_str()), ("0.9", "0.5"));
    }

    #[test]
    fn tiny_island_axis_is_restored_to_legacy() {
        let l = load(r#"{"IslandAxisX": 0.0, "IslandAxisY": 0.005}"#).unwrap();
        assert_eq!(
            (l.config.island_axis_x, l.config.island_axis_y),
            (1.15, 0.90)
        );
        assert_eq!(l.warnings.len(), 2);
        assert!(l.warnings[0].reason.contains("legacy"));
    }

    #[test]
    fn shelf_edge_variation_clamps_to_band_squeeze_bound() {
        let l = load(r#"{"ShelfEdgeVariation": 40}"#).unwrap();
        assert_eq!(l.config.shelf_edge_variation_m, SHELF_EDGE_MAX_SHIFT_M);
        assert_eq!(l.warnings[0].key, "ShelfEdgeVariation");
        let keys::Kind::Float { max, .. } = keys::find("ShelfEdgeVariation").kind else {
            panic!("ShelfEdgeVariation is a number key")
        };
        assert_eq!(max as f32, SHELF_EDGE_MAX_SHIFT_M);
    }

    #[test]
    fn in_range_values_apply_silently() {
        let l = load(r#"{"SeaLevelValue": 0.2, "CoastProfile": "steep", "Erosion": "v1", "CraterErosionMode": "full", "SeaLevelModel": "field"}"#).unwrap();
        assert!(l.warnings.is_empty(), "{:?}", l.warnings);
        assert_eq!(l.config.coast_profile, CoastProfile::Steep);
        assert_eq!(l.config.erosion.model, ErosionModel::Droplets);
        assert_eq!(l.config.erosion.crater.mode, CraterErosionMode::Full);
        assert_eq!(l.config.sea_level, SeaLevelModel::Field);
    }

    #[test]
    fn malformed_json_reports_line_and_column() {
        let err = load("{\n  \"MapSize\": 1024,\n  \"WorldSeed\": ,\n}").unwrap_err();
        match err {
            ConfigError::Parse { line, column, .. } => assert_eq!((line, column), (3, 16)),
            other => panic!("expected a parse error, got {other}"),
        }
        let err = load(r#"{"MapSize": "big"}"#).unwrap_err();
        assert!(matches!(err, ConfigError::Parse { line: 1, .. }), "{err}");
    }

    #[test]
    fn misspelt_keys_get_a_suggestion_and_server_keys_stay_quiet() {
        let l = load(
            r#"{"ErosionDropletCont": 5, "mapsize": 512, "CraterRadus": 9, "ServerPort": 7777,
                "MaxPlayers": 32, "ServerName": "x", "AdminPassword": "y", "MapName": "z"}"#,
        )
        .unwrap();
        assert_eq!(
            l.suggestions,
            [
                ("CraterRadus".to_string(), "CraterRadius"),
                ("ErosionDropletCont".to_string(), "ErosionDropletCount"),
                ("mapsize".to_string(), "MapSize"),
            ]
        );
    }

    /// KNOWN_KEYS is exactly what RawConfig reads and what the shipped defaults file lists.
    #[test]
    fn the_known_keys_are_the_config_fields() {
        for key in KNOWN_KEYS {
            let l = load(&format!("{{\"{key}\": null}}")).unwrap();
            assert!(l.unknown_keys.is_empty(), "{key} is not a RawConfig field");
        }
        let defaults: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(include_str!("../../../../config/ServerConfig.json")).unwrap();
        let mut listed: Vec<&str> = defaults.keys().map(String::as_str).collect();
        let mut known = KNOWN_KEYS.to_vec();
        listed.sort_unstable();
        known.sort_unstable();
        assert_eq!(listed, known);
    }

    #[test]
    fn unknown_keys_are_kept_not_rejected() {
        let l = load(r#"{"ServerPort": 7777, "MaxPlayers": 32, "MapSize": 1024}"#).unwrap();
        assert_eq!(l.unknown_keys, ["MaxPlayers", "ServerPort"]);
        assert_eq!(l.config.map_size, 1024);
    }

    #[test]
    fn seed_outside_i32_is_an_error() {
        let err = load(r#"{"WorldSeed": 4294967296}"#).unwrap_err();
        assert!(matches!(
            err,
            ConfigError::Invalid {
                key: "WorldSeed",
                ..
            }
        ));
    }
}
