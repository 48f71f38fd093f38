//! The dial table (`/api/dials`) and the validation of a config the page posts.
//!
//! The dials are ServerConfig.json keys with the ranges [`islagen::config::Config::from_raw`]
//! applies; a config the page posts goes through that same validation ([`validate`]), and
//! where the file loader would clamp a value, restore one, or ignore a key, the server refuses
//! the config and names the key (a dial never shows a value the generator would not use). A
//! test holds every dial's range and default to what the validation accepts and rejects.

use serde::Serialize;
use serde_json::{json, Map, Value};

use islagen::config::{Config, ConfigError, LoadedConfig, KNOWN_KEYS, SHELF_EDGE_MAX_SHIFT_M};

/// The side of the preview world.
pub const PREVIEW_SIZE: u32 = 512;

/// A dial's kind and range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// An integer in min ..= max.
    Int(i64, i64),
    /// A number in min ..= max.
    Float(f64, f64),
    /// true / false.
    Bool,
    /// One of these strings.
    Enum(&'static [&'static str]),
}

/// One dial.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dial {
    /// The ServerConfig.json key.
    pub key: &'static str,
    /// Kind and range.
    pub kind: Kind,
    /// Slider step.
    pub step: f64,
    /// The default (what an absent key means).
    pub default: DefaultValue,
    /// Unit shown beside the value.
    pub unit: &'static str,
    /// Panel group.
    pub group: &'static str,
    /// One line of help.
    pub help: &'static str,
}

/// A dial's default value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultValue {
    /// A number.
    Num(f64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(&'static str),
}

const fn float(
    key: &'static str,
    (min, max, step, default): (f64, f64, f64, f64),
    unit: &'static str,
    group: &'static str,
    help: &'static str,
) -> Dial {
    Dial {
        key,
        kind: Kind::Float(min, max),
        step,
        default: DefaultValue::Num(default),
        unit,
        group,
        help,
    }
}

const fn choice(
    key: &'static str,
    options: &'static [&'static str],
    default: &'static str,
    group: &'static str,
    help: &'static str,
) -> Dial {
    Dial {
        key,
        kind: Kind::Enum(options),
        step: 0.0,
        default: DefaultValue::Str(default),
        unit: "",
        group,
        help,
    }
}

/// Every dial, in panel order. MapSize and WorldSeed are not dials: the preview is always
/// [`PREVIEW_SIZE`] and the seed has its own box.
pub const DIALS: &[Dial] = &[
    float(
        "CraterRadius",
        (8.0, 200.0, 1.0, 64.0),
        "px @1024",
        "Shape",
        "Crater radius in pixels of the 1024 reference map (64 = 512 m)",
    ),
    float(
        "IslandAxisX",
        (0.02, 4.0, 0.01, 1.30),
        "",
        "Shape",
        "Island falloff axis ratio along X",
    ),
    float(
        "IslandAxisY",
        (0.02, 4.0, 0.01, 0.78),
        "",
        "Shape",
        "Island falloff axis ratio along Y",
    ),
    float(
        "SpineVariation",
        (0.0, 1.0, 0.01, 1.0),
        "",
        "Shape",
        "How far the mountain spine wanders from a straight ridge",
    ),
    float(
        "CoastVariation",
        (0.0, 1.0, 0.01, 1.0),
        "",
        "Shape",
        "How far the outline departs from the squircle",
    ),
    float(
        "OffshoreIslandDensity",
        (0.0, 0.5, 0.005, 0.02),
        "",
        "Shape",
        "Share of the offshore field that becomes islets",
    ),
    float(
        "CraterRim",
        (0.0, 120.0, 1.0, 50.0),
        "m",
        "Shape",
        "Height of the crater's raised rim",
    ),
    choice(
        "CoastProfile",
        &["wide", "steep"],
        "wide",
        "Shape",
        "Submarine shelf: wide shallows or the raw seabed",
    ),
    choice(
        "SeaLevelModel",
        &["flat", "field"],
        "flat",
        "Sea",
        "One sea level everywhere, or the legacy north-south field",
    ),
    float(
        "SeaLevelValue",
        (0.01, 0.6, 0.01, 0.15),
        "raw",
        "Sea",
        "Flat sea level in raw height units (1 raw = 251 m)",
    ),
    choice(
        "TerrainCurve",
        &["v5", "off"],
        "v5",
        "Relief",
        "The terraced height curve",
    ),
    choice(
        "TerrainDetail",
        &["v1", "off"],
        "v1",
        "Relief",
        "Shelf micro-relief and shelf-edge variation",
    ),
    float(
        "ShelfReliefAmp",
        (0.0, 10.0, 0.1, 3.0),
        "m",
        "Relief",
        "Micro-relief amplitude on the shelf",
    ),
    float(
        "ShelfEdgeVariation",
        (0.0, SHELF_EDGE_MAX_SHIFT_M as f64, 0.01, 12.0),
        "m",
        "Relief",
        "Shelf-edge shift amplitude",
    ),
    float(
        "FineRelief",
        (0.0, 4.0, 0.05, 1.0),
        "",
        "Relief",
        "Fine relief below the noise's last octave (1 = its own power law)",
    ),
    choice(
        "Erosion",
        &["v2", "v1", "off"],
        "v2",
        "Erosion",
        "Fluvial relief (v2: valleys), droplet erosion (v1: rills) or none",
    ),
    float(
        "ErosionErodibility",
        (0.1, 100.0, 0.1, 18.0),
        "per Myr",
        "Erosion",
        "v2: stream-power erodibility K (how fast rivers cut valleys)",
    ),
    float(
        "ErosionUplift",
        (0.0, 10.0, 0.05, 0.2),
        "mm/yr",
        "Erosion",
        "v2: rock uplift, scaled with the designed height",
    ),
    float(
        "ErosionDiffusivity",
        (0.0, 1.0, 0.0005, 0.002),
        "m²/yr",
        "Erosion",
        "v2: hillslope diffusivity (rounds ridges and valley sides)",
    ),
    float(
        "ErosionMaturity",
        (0.01, 20.0, 0.01, 2.0),
        "Myr",
        "Erosion",
        "v2: how long the land has eroded (deeper, wider valleys)",
    ),
    Dial {
        key: "ErosionSteps",
        kind: Kind::Int(1, 200),
        step: 1.0,
        default: DefaultValue::Num(12.0),
        unit: "",
        group: "Erosion",
        help: "v2: implicit steps the maturity is solved in",
    },
    float(
        "ErosionDropletDensity",
        (10.0, 1_000_000.0, 10.0, 1500.0),
        "per km²",
        "Erosion",
        "Droplets per km² of land",
    ),
    float(
        "ErosionDropletDistance",
        (32.0, 16_384.0, 16.0, 1536.0),
        "m",
        "Erosion",
        "How far a droplet may travel",
    ),
    float(
        "ErosionBrushSize",
        (4.0, 64.0, 1.0, 12.0),
        "m",
        "Erosion",
        "Erode/deposit brush radius",
    ),
    float(
        "ErosionCarveCap",
        (0.5, 60.0, 0.5, 15.0),
        "m",
        "Erosion",
        "Most a cell is carved",
    ),
    float(
        "ErosionDepositCap",
        (0.0, 30.0, 0.5, 6.0),
        "m",
        "Erosion",
        "Most a cell is built up",
    ),
    Dial {
        key: "ErosionSeedOffset",
        kind: Kind::Int(i32::MIN as i64, i32::MAX as i64),
        step: 1.0,
        default: DefaultValue::Num(1709.0),
        unit: "",
        group: "Erosion",
        help: "Droplet stream seed offset from the world seed",
    },
    float(
        "ErosionSeaMargin",
        (0.0, 10.0, 0.1, 0.5),
        "m",
        "Erosion",
        "Flood guard above sea",
    ),
    float(
        "ErosionInertia",
        (0.0, 0.99, 0.01, 0.35),
        "",
        "Erosion",
        "Droplet direction inertia",
    ),
    float(
        "ErosionCapacityFactor",
        (0.1, 64.0, 0.1, 4.0),
        "",
        "Erosion",
        "Sediment capacity factor",
    ),
    float(
        "ErosionMinSlope",
        (0.0, 10.0, 0.01, 0.05),
        "m",
        "Erosion",
        "Minimum slope in the capacity term",
    ),
    float(
        "ErosionErodeRate",
        (0.0, 1.0, 0.01, 0.3),
        "",
        "Erosion",
        "Erode rate",
    ),
    float(
        "ErosionDepositRate",
        (0.0, 1.0, 0.01, 0.3),
        "",
        "Erosion",
        "Deposit rate",
    ),
    float(
        "ErosionEvaporation",
        (0.0, 0.5, 0.005, 0.01),
        "",
        "Erosion",
        "Evaporation per step",
    ),
    float(
        "ErosionGravity",
        (0.1, 50.0, 0.1, 4.0),
        "",
        "Erosion",
        "Gravity",
    ),
    choice(
        "CraterErosionMode",
        &["feather", "full"],
        "feather",
        "Erosion",
        "Erosion outside the crater's protected core",
    ),
    float(
        "CraterErosionCore",
        (0.0, 2.0, 0.01, 0.8),
        "× radius",
        "Erosion",
        "Protected crater core",
    ),
    float(
        "CraterErosionFeather",
        (0.8, 3.0, 0.01, 1.05),
        "× radius",
        "Erosion",
        "Feather outer radius (at least CraterErosionCore)",
    ),
    choice("Rivers", &["v1", "off"], "v1", "Water", "Rivers"),
    float(
        "RiverCatchment",
        (0.05, 20.0, 0.05, 0.25),
        "km²",
        "Water",
        "Catchment where a channel starts",
    ),
    float(
        "RiverWidthScale",
        (0.1, 5.0, 0.1, 1.0),
        "",
        "Water",
        "Multiplier on river widths",
    ),
    float(
        "RiverDensity",
        (0.1, 10.0, 0.1, 1.0),
        "",
        "Water",
        "River density (divides the start catchment)",
    ),
    float(
        "DensityMultiplier",
        (0.1, 10.0, 0.1, 1.0),
        "",
        "Towns and roads",
        "Town density multiplier",
    ),
    Dial {
        key: "SkipRoads",
        kind: Kind::Bool,
        step: 0.0,
        default: DefaultValue::Bool(false),
        unit: "",
        group: "Towns and roads",
        help: "Skip the road pass (an iteration world, not one to ship)",
    },
];

impl Dial {
    /// The default as JSON (an integer for an integer dial).
    pub fn default_json(&self) -> Value {
        match (self.default, self.kind) {
            (DefaultValue::Num(n), Kind::Int(..)) => json!(n as i64),
            (DefaultValue::Num(n), _) => json!(n),
            (DefaultValue::Bool(b), _) => json!(b),
            (DefaultValue::Str(s), _) => json!(s),
        }
    }
}

/// `/api/dials`.
pub fn table_json() -> Value {
    let dials: Vec<Value> = DIALS
        .iter()
        .map(|d| {
            let mut v = json!({
                "key": d.key,
                "step": d.step,
                "unit": d.unit,
                "group": d.group,
                "help": d.help,
                "default": d.default_json(),
            });
            let (kind, min, max, options) = match d.kind {
                Kind::Int(a, b) => ("int", json!(a), json!(b), Value::Null),
                Kind::Float(a, b) => ("float", json!(a), json!(b), Value::Null),
                Kind::Bool => ("bool", Value::Null, Value::Null, Value::Null),
                Kind::Enum(o) => ("enum", Value::Null, Value::Null, json!(o)),
            };
            v["type"] = json!(kind);
            if let Some((_, max)) = PREVIEW_LIMITS.iter().find(|(k, _)| *k == d.key) {
                v["preview_max"] = json!(max);
            }
            v["min"] = min;
            v["max"] = max;
            v["options"] = options;
            v
        })
        .collect();
    json!({ "dials": dials, "preview_size": PREVIEW_SIZE })
}

/// One rejected key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeyError {
    /// The ServerConfig key, or null for the config as a whole.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// Validates `config` (a JSON object of ServerConfig keys) exactly as a ServerConfig.json is
/// loaded, refusing what loading would clamp, restore or ignore; `size` and `seed` replace
/// MapSize and WorldSeed.
pub fn validate(config: &Value, size: u32, seed: i32) -> Result<Config, Vec<KeyError>> {
    let Some(object) = config.as_object() else {
        return Err(vec![KeyError {
            key: None,
            message: "config must be a JSON object of ServerConfig.json keys".into(),
        }]);
    };
    let mut errors = Vec::new();
    for (k, v) in object {
        if !KNOWN_KEYS.contains(&k.as_str()) {
            let hint = islagen::config::suggest_key(k)
                .map(|s| format!("; did you mean {s}?"))
                .unwrap_or_default();
            errors.push(key_error(k, format!("not a key islagen reads{hint}")));
            continue;
        }
        // Each key alone, so a type error is pinned on its key.
        let single = Value::Object(Map::from_iter([(k.clone(), v.clone())]));
        if let Err(e) = load(&single) {
            errors.push(key_error(k, describe(&e)));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut all = object.clone();
    all.insert("MapSize".into(), json!(size));
    all.insert("WorldSeed".into(), json!(seed));
    match load(&Value::Object(all)) {
        Err(e) => Err(vec![KeyError {
            key: invalid_key(&e),
            message: describe(&e),
        }]),
        Ok(l) if !l.warnings.is_empty() => Err(l
            .warnings
            .iter()
            .map(|w| key_error(w.key, format!("{} is not accepted: {}", w.given, w.reason)))
            .collect()),
        Ok(l) => Ok(l.config),
    }
}

/// The most a preview may ask of the dials that multiply its work (droplets, their paths and
/// brushes, the implicit steps, the towns the roads join), each well above its default; the
/// full ranges stay open to a generation. A preview also stops at [`super::preview::DEADLINE`].
pub const PREVIEW_LIMITS: &[(&str, f64)] = &[
    ("ErosionDropletDensity", 15_000.0),
    ("ErosionDropletDistance", 4096.0),
    ("ErosionBrushSize", 32.0),
    ("ErosionSteps", 48.0),
    ("DensityMultiplier", 4.0),
];

/// Validates a preview's config: only the dials (MapSize and WorldSeed are the preview's own),
/// within [`PREVIEW_LIMITS`], then as [`validate`] does.
pub fn validate_preview(config: &Value, seed: i32) -> Result<Config, Vec<KeyError>> {
    let mut errors = Vec::new();
    for (k, v) in config.as_object().into_iter().flatten() {
        let dial =
            DIALS.iter().any(|d| d.key == k) && !matches!(k.as_str(), "MapSize" | "WorldSeed");
        if !dial && KNOWN_KEYS.contains(&k.as_str()) {
            errors.push(key_error(
                k,
                "not a dial: a preview takes only the Tune page's dials".into(),
            ));
            continue;
        }
        let limit = PREVIEW_LIMITS.iter().find(|(key, _)| key == k);
        if let (Some(&(_, max)), Some(n)) = (limit, v.as_f64()) {
            if n > max {
                errors.push(key_error(
                    k,
                    format!("{n} is more work than a preview takes (at most {max}; a generation takes the full range)"),
                ));
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    validate(config, PREVIEW_SIZE, seed)
}

fn key_error(key: &str, message: String) -> KeyError {
    KeyError {
        key: Some(key.to_string()),
        message,
    }
}

fn invalid_key(e: &ConfigError) -> Option<String> {
    match e {
        ConfigError::Invalid { key, .. } => Some(key.to_string()),
        _ => None,
    }
}

fn describe(e: &ConfigError) -> String {
    match e {
        ConfigError::Parse { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// Loads a config from JSON already in memory, as a file would be.
fn load(v: &Value) -> Result<LoadedConfig, ConfigError> {
    Config::from_json(&v.to_string(), "the posted config")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warned(key: &str, v: Value) -> bool {
        let l = Config::from_json(&json!({ key: v }).to_string(), "t").unwrap();
        l.warnings.iter().any(|w| w.key == key)
    }

    /// The table and the validation agree: every bound is accepted, one step past it is
    /// refused, every default is what an absent key means, every option is accepted.
    #[test]
    fn every_dial_range_matches_the_validation() {
        let defaults = Config::from_json("{}", "t").unwrap().config;
        for d in DIALS {
            assert!(KNOWN_KEYS.contains(&d.key), "{} is not a config key", d.key);
            match d.kind {
                Kind::Float(min, max) => {
                    assert!(!warned(d.key, json!(min)), "{} min {min} refused", d.key);
                    assert!(!warned(d.key, json!(max)), "{} max {max} refused", d.key);
                    assert!(warned(d.key, json!(min - d.step)), "{} below min", d.key);
                    assert!(warned(d.key, json!(max + d.step)), "{} above max", d.key);
                }
                Kind::Int(min, max) => {
                    assert!(!warned(d.key, json!(min)) && !warned(d.key, json!(max)));
                }
                Kind::Enum(options) => {
                    for o in options {
                        assert!(Config::from_json(&json!({ d.key: o }).to_string(), "t").is_ok());
                    }
                    assert!(matches!(
                        Config::from_json(&json!({ d.key: "bogus" }).to_string(), "t"),
                        Err(ConfigError::Invalid { key, .. }) if key == d.key
                    ));
                }
                Kind::Bool => {}
            }
            let given =
                Config::from_json(&json!({ d.key: d.default_json() }).to_string(), "t").unwrap();
            assert_eq!(given.config, defaults, "{}: default differs", d.key);
        }
    }

    #[test]
    fn a_preview_takes_only_dials_within_its_limits() {
        for &(key, max) in PREVIEW_LIMITS {
            let dial = DIALS.iter().find(|d| d.key == key).expect("a dial");
            let (min, full, value): (f64, f64, fn(f64) -> Value) = match dial.kind {
                Kind::Float(a, b) => (a, b, |v| json!(v)),
                Kind::Int(a, b) => (a as f64, b as f64, |v| json!(v as i64)),
                _ => panic!("{key} is not numeric"),
            };
            assert!(
                min < max && max < full,
                "{key}: {max} not inside {min}..{full}"
            );
            let at = |v: f64| json!({ key: value(v) });
            assert!(validate_preview(&at(max), 1).is_ok(), "{key} at its limit");
            let e = validate_preview(&at(full), 1).unwrap_err();
            assert_eq!(e[0].key.as_deref(), Some(key));
            assert!(
                validate(&at(full), 8192, 1).is_ok(),
                "{key}: generations keep it"
            );
        }
        let others = KNOWN_KEYS
            .iter()
            .filter(|k| !DIALS.iter().any(|d| d.key == **k));
        for not_a_dial in ["MapSize", "WorldSeed"].into_iter().chain(others.copied()) {
            let e = validate_preview(&json!({ not_a_dial: 1 }), 1).unwrap_err();
            assert!(e[0].message.contains("not a dial"), "{not_a_dial}: {e:?}");
        }
        let c = validate_preview(&json!({"CraterRadius": 80}), 9).unwrap();
        assert_eq!((c.map_size, c.world_seed), (PREVIEW_SIZE, 9));
    }

    #[test]
    fn a_clamped_value_is_refused_with_its_key() {
        let e = validate(&json!({"CraterRadius": 500}), 512, 1).unwrap_err();
        assert_eq!(e[0].key.as_deref(), Some("CraterRadius"));
        let e = validate(&json!({"CraterRadius": "big"}), 512, 1).unwrap_err();
        assert_eq!(e[0].key.as_deref(), Some("CraterRadius"));
        let e = validate(&json!({"Erosion": "v9"}), 512, 1).unwrap_err();
        assert_eq!(e[0].key.as_deref(), Some("Erosion"));
        let e = validate(&json!({"CraterRadiu": 5}), 512, 1).unwrap_err();
        assert!(e[0].message.contains("CraterRadius"));
        let c = validate(&json!({"CraterRadius": 80}), 512, 9).unwrap();
        assert_eq!((c.map_size, c.world_seed, c.crater_radius), (512, 9, 80.0));
    }
}
