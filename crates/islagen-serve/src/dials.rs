//! The dial table (`/api/dials`) and the validation of a config the page posts.
//!
//! The dials are ServerConfig.json keys with the ranges [`islagen::config::Config::from_raw`]
//! applies; a config the page posts goes through that same validation ([`validate`]), and
//! where the file loader would clamp a value, restore one, or ignore a key, the server refuses
//! the config and names the key (a dial never shows a value the generator would not use). The
//! dials are the engine's key table ([`keys::KEYS`]) — names, ranges, defaults, units, help —
//! with nothing restated here; a test holds every slider's range to what the validation
//! accepts and rejects.

use serde::Serialize;
use serde_json::{json, Map, Value};

use islagen::config::keys::{self, Dial, Key, Kind, Value as Default};
use islagen::config::{Config, ConfigError, LoadedConfig, KNOWN_KEYS};

/// The side of the preview world.
pub const PREVIEW_SIZE: u32 = 512;

/// The Tune page's dials, in panel order: the keys of [`keys::KEYS`] that are dials.
pub fn dials() -> impl Iterator<Item = (&'static Key, &'static Dial)> {
    keys::KEYS
        .iter()
        .filter_map(|k| k.dial.as_ref().map(|d| (k, d)))
}

/// A numeric dial's slider range: the validation's, raised where the dial says (an axis
/// ratio's legacy restoration, the feather's floor).
pub fn slider_range(key: &Key, dial: &Dial) -> Option<(f64, f64)> {
    let (min, max) = match key.kind {
        Kind::Int { min, max } => (min as f64, max as f64),
        Kind::Float { min, max } | Kind::Axis { min, max, .. } => (min, max),
        Kind::FloatAtLeast { key: floor, max } => (keys::find(floor).default.number(), max),
        Kind::Seed | Kind::Enum { .. } | Kind::Bool | Kind::Path => return None,
    };
    Some((dial.min.unwrap_or(min), max))
}

/// A key's default as JSON (an integer for an integer key; null when unset).
pub fn default_json(key: &Key) -> Value {
    match key.default {
        Default::Int(i) => json!(i),
        Default::Float(f) => json!(f),
        Default::Str(s) => json!(s),
        Default::Bool(b) => json!(b),
        Default::Unset => Value::Null,
    }
}

/// `/api/dials`: every dial, and the two keys the page has its own boxes for (MapSize's sizes,
/// the seed's range), all from the one key table.
pub fn table_json() -> Value {
    let dials: Vec<Value> = dials().map(|(k, d)| dial_json(k, d)).collect();
    let world: Vec<Value> = ["MapSize", "WorldSeed"]
        .into_iter()
        .filter_map(keys::key)
        .map(|k| {
            let (min, max) = match k.kind {
                Kind::Int { min, max } => (min, max),
                _ => (i32::MIN.into(), i32::MAX.into()),
            };
            json!({ "key": k.name, "min": min, "max": max, "default": default_json(k), "help": k.help })
        })
        .collect();
    json!({ "dials": dials, "world": world, "preview_size": PREVIEW_SIZE })
}

fn dial_json(k: &Key, d: &Dial) -> Value {
    let mut v = json!({
        "key": k.name,
        "step": d.step,
        "unit": k.unit,
        "group": k.section,
        "help": k.help,
        "default": default_json(k),
    });
    let range = slider_range(k, d);
    let (kind, options) = match k.kind {
        Kind::Int { .. } => ("int", Value::Null),
        Kind::Bool => ("bool", Value::Null),
        Kind::Enum { values, .. } => ("enum", json!(values)),
        _ => ("float", Value::Null),
    };
    v["type"] = json!(kind);
    if let Some(max) = d.preview_max {
        v["preview_max"] = json!(max);
    }
    let bound = |b: f64| match k.kind {
        Kind::Int { .. } => json!(b as i64),
        _ => json!(b),
    };
    v["min"] = range.map_or(Value::Null, |(a, _)| bound(a));
    v["max"] = range.map_or(Value::Null, |(_, b)| bound(b));
    v["options"] = options;
    v
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
        // The request's own size and seed win; a config that says otherwise is refused rather
        // than silently overruled (the same value is harmless).
        let own = match k.as_str() {
            "MapSize" => Some(("size", i64::from(size))),
            "WorldSeed" => Some(("seed", i64::from(seed))),
            _ => None,
        };
        if let Some((field, value)) = own {
            if v.as_i64() != Some(value) {
                errors.push(key_error(
                    k,
                    format!(
                        "{k} is the request's `{field}` ({value}): give it there, not in config"
                    ),
                ));
            }
            continue;
        }
        if !KNOWN_KEYS.contains(&k.as_str()) {
            let hint = islagen::config::suggest_key(k)
                .map(|s| format!("; did you mean {s}?"))
                .unwrap_or_default();
            errors.push(key_error(k, format!("not a key islagen reads{hint}")));
            continue;
        }
        // A file path would make the server read any file a client names.
        if keys::key(k).is_some_and(|key| key.kind == Kind::Path) {
            errors.push(key_error(
                k,
                format!("{k} names a file on the server; it is not taken over HTTP"),
            ));
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

/// The most a preview may ask of a dial that multiplies its work (droplets, their paths and
/// brushes, the implicit steps, the towns the roads join: [`Dial::preview_max`]), each well
/// above its default; the full ranges stay open to a generation. A preview also stops at
/// [`super::preview::DEADLINE`].
pub fn preview_limit(key: &str) -> Option<f64> {
    keys::key(key)?.dial?.preview_max
}

/// Validates a preview's config: only the dials (MapSize and WorldSeed are the preview's own),
/// within their [`preview_limit`]s, then as [`validate`] does.
pub fn validate_preview(config: &Value, seed: i32) -> Result<Config, Vec<KeyError>> {
    let mut errors = Vec::new();
    for (k, v) in config.as_object().into_iter().flatten() {
        let dial = keys::key(k).is_some_and(|k| k.dial.is_some());
        if !dial && KNOWN_KEYS.contains(&k.as_str()) {
            errors.push(key_error(
                k,
                "not a dial: a preview takes only the Tune page's dials".into(),
            ));
            continue;
        }
        if let (Some(max), Some(n)) = (preview_limit(k), v.as_f64()) {
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

    /// A client cannot make the server read a file by naming it as a mask.
    #[test]
    fn a_mask_path_is_not_taken_over_http() {
        let errors = validate(&json!({ "IslandMask": "/etc/passwd" }), 512, 1).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].key.as_deref(), Some("IslandMask"));
        assert!(
            errors[0].message.contains("not taken over HTTP"),
            "{:?}",
            errors[0]
        );
    }

    fn warned(key: &str, v: Value) -> bool {
        let l = Config::from_json(&json!({ key: v }).to_string(), "t").unwrap();
        l.warnings.iter().any(|w| w.key == key)
    }

    /// The sliders and the validation agree: every bound is accepted, one step past it is
    /// refused, every default is what an absent key means, every option is accepted.
    #[test]
    fn every_dial_range_matches_the_validation() {
        let defaults = Config::from_json("{}", "t").unwrap().config;
        for (k, d) in dials() {
            let name = k.name;
            match (k.kind, slider_range(k, d)) {
                (Kind::Int { .. }, Some((min, max))) => {
                    let (min, max) = (min as i64, max as i64);
                    assert!(!warned(name, json!(min)) && !warned(name, json!(max)));
                }
                (_, Some((min, max))) => {
                    assert!(!warned(name, json!(min)), "{name} min {min} refused");
                    assert!(!warned(name, json!(max)), "{name} max {max} refused");
                    assert!(warned(name, json!(min - d.step)), "{name} below min");
                    assert!(warned(name, json!(max + d.step)), "{name} above max");
                }
                (Kind::Enum { values, .. }, None) => {
                    for o in values {
                        assert!(Config::from_json(&json!({ name: o }).to_string(), "t").is_ok());
                    }
                    assert!(matches!(
                        Config::from_json(&json!({ name: "bogus" }).to_string(), "t"),
                        Err(ConfigError::Invalid { key, .. }) if key == name
                    ));
                }
                (Kind::Bool, None) => {}
                other => panic!("{name}: {other:?}"),
            }
            let given = Config::from_json(&json!({ name: default_json(k) }).to_string(), "t");
            assert_eq!(given.unwrap().config, defaults, "{name}: default differs");
        }
    }

    #[test]
    fn a_preview_takes_only_dials_within_its_limits() {
        let limited: Vec<_> = dials().filter(|(_, d)| d.preview_max.is_some()).collect();
        assert_eq!(limited.len(), 5);
        for (k, d) in limited {
            let (key, max) = (k.name, preview_limit(k.name).unwrap());
            let (min, full) = slider_range(k, d).expect("a numeric dial");
            let value: fn(f64) -> Value = match k.kind {
                Kind::Int { .. } => |v| json!(v as i64),
                _ => |v| json!(v),
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
        let others = keys::KEYS.iter().filter(|k| k.dial.is_none());
        for not_a_dial in others.map(|k| k.name) {
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
        // MapSize and WorldSeed are the request's: a config that says otherwise is refused.
        let e = validate(&json!({"MapSize": 8192}), 512, 1).unwrap_err();
        assert_eq!(e[0].key.as_deref(), Some("MapSize"));
        assert!(e[0].message.contains("`size` (512)"), "{e:?}");
        let e = validate(&json!({"WorldSeed": 5}), 512, 1).unwrap_err();
        assert_eq!(e[0].key.as_deref(), Some("WorldSeed"));
        let same = validate(&json!({"MapSize": 512, "WorldSeed": 1}), 512, 1).unwrap();
        assert_eq!((same.map_size, same.world_seed), (512, 1));
        let e = validate(&json!({"CraterRadiu": 5}), 512, 1).unwrap_err();
        assert!(e[0].message.contains("CraterRadius"));
        let c = validate(&json!({"CraterRadius": 80}), 512, 9).unwrap();
        assert_eq!((c.map_size, c.world_seed, c.crater_radius), (512, 9, 80.0));
    }
}
