//! Town pins: where a designer wants towns, read from a GeoJSON FeatureCollection of Points or a
//! plain JSON array, in the world's local metres.
//!
//! # The file
//!
//! Coordinates are the GeoJSON export's own (see [`crate::exports::geojson`]): metres of the
//! local CRS, origin at the map's south-west corner, x east, y north, the world
//! `[0, 8192) × [0, 8192)` m at every MapSize, so a town layer exported from one world pins the
//! same towns in the next. Either form:
//!
//! ```json
//! { "type": "FeatureCollection", "features": [
//!   { "type": "Feature", "geometry": { "type": "Point", "coordinates": [4100.0, 2950.5] },
//!     "properties": { "tier": "capitol", "name": "Port Royal" } } ] }
//! ```
//!
//! ```json
//! [ { "x_m": 4100.0, "y_m": 2950.5, "tier": "hub", "name": "Eastgate" } ]
//! ```
//!
//! `tier` is a TOWN tier's label (`capitol`, `hub`, `village`, `outpost`, `poi`, any case);
//! `name` is optional. Other members are ignored, and so is a feature whose `properties.kind`
//! is there and is not `town`: a `--geojson` export reads as the pins of its towns (its roads,
//! rivers, water and crater skipped).
//!
//! # Limits
//!
//! At most [`MAX_PINS`] pins, names of at most [`MAX_NAME`] bytes, a file of at most
//! [`MAX_BYTES`], at most one Capitol, every pin on the map. Each refusal is a [`PinsError`]
//! naming the pin (its JSON path and name) and the rule. Whether a pin stands on dry land is the
//! town stage's to say, on the map it makes.

use serde_json::Value;

use crate::blueprint::TownTier;
use crate::units::WORLD_SIZE_M;

/// Pins per file, at most.
pub const MAX_PINS: usize = 256;
/// A pin's name, bytes, at most.
pub const MAX_NAME: usize = 64;
/// A pins file, bytes, at most.
pub const MAX_BYTES: usize = 1 << 20;

/// One pinned town.
#[derive(Clone, Debug, PartialEq)]
pub struct Pin {
    /// Metres east of the map's west edge.
    pub x_m: f32,
    /// Metres north of the map's south edge.
    pub y_m: f32,
    /// Its tier.
    pub tier: TownTier,
    /// Its name, if given.
    pub name: Option<String>,
}

impl Pin {
    /// The pin's normalised map position (u east, v south, 0 ..= 1).
    pub fn normalised(&self) -> [f32; 2] {
        [self.x_m / WORLD_SIZE_M, 1.0 - self.y_m / WORLD_SIZE_M]
    }

    /// How errors and logs name it: its index, and its name when it has one.
    pub fn label(&self, index: usize) -> String {
        match &self.name {
            Some(name) => format!("pin {index} ({name:?})"),
            None => format!("pin {index}"),
        }
    }
}

/// A pins file refused: where in it, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {reason}")]
pub struct PinsError {
    /// The JSON path (`features[2].properties.tier`), or `file`.
    pub at: String,
    /// Why.
    pub reason: String,
}

fn refuse<T>(at: impl Into<String>, reason: impl Into<String>) -> Result<T, PinsError> {
    Err(PinsError {
        at: at.into(),
        reason: reason.into(),
    })
}

/// Reads the pins of a GeoJSON FeatureCollection or a JSON array.
pub fn parse(text: &str) -> Result<Vec<Pin>, PinsError> {
    if text.len() > MAX_BYTES {
        return refuse(
            "file",
            format!("{} bytes, more than {MAX_BYTES}", text.len()),
        );
    }
    let root: Value = serde_json::from_str(text).map_err(|e| PinsError {
        at: format!("line {} column {}", e.line(), e.column()),
        reason: e.to_string(),
    })?;
    let (items, prefix) = match &root {
        Value::Array(items) => (items, ""),
        Value::Object(o) if o.get("type") == Some(&Value::from("FeatureCollection")) => {
            match o.get("features") {
                Some(Value::Array(items)) => (items, "features"),
                _ => return refuse("features", "a FeatureCollection needs a features array"),
            }
        }
        _ => {
            return refuse(
                "file",
                "neither a GeoJSON FeatureCollection nor a JSON array",
            )
        }
    };
    if items.len() > MAX_PINS {
        return refuse(
            prefix,
            format!("{} pins, more than {MAX_PINS}", items.len()),
        );
    }
    let mut pins = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{prefix}[{i}]");
        let kind = item.get("properties").and_then(|p| p.get("kind"));
        if !prefix.is_empty() && kind.is_some_and(|k| k != "town") {
            continue;
        }
        let pin = if prefix.is_empty() {
            plain(item, &at)?
        } else {
            feature(item, &at)?
        };
        pins.push(pin);
    }
    let capitols = pins.iter().filter(|p| p.tier == TownTier::Capitol).count();
    if capitols > 1 {
        return refuse(prefix, format!("{capitols} capitols; a world has one"));
    }
    Ok(pins)
}

/// `{ "x_m", "y_m", "tier", "name"? }`.
fn plain(item: &Value, at: &str) -> Result<Pin, PinsError> {
    let Value::Object(o) = item else {
        return refuse(at, "not an object");
    };
    let coordinate = |key: &str| match o.get(key).and_then(Value::as_f64) {
        Some(v) => Ok(v),
        None => refuse(format!("{at}.{key}"), "a number of metres is needed"),
    };
    pin(coordinate("x_m")?, coordinate("y_m")?, o, at)
}

/// A GeoJSON Point feature with `properties.tier` and `properties.name`?.
fn feature(item: &Value, at: &str) -> Result<Pin, PinsError> {
    let geometry = item.get("geometry");
    if geometry.and_then(|g| g.get("type")) != Some(&Value::from("Point")) {
        return refuse(format!("{at}.geometry"), "a Point geometry is needed");
    }
    let xy = geometry
        .and_then(|g| g.get("coordinates"))
        .and_then(Value::as_array)
        .filter(|c| c.len() >= 2)
        .and_then(|c| Some((c[0].as_f64()?, c[1].as_f64()?)));
    let Some((x, y)) = xy else {
        return refuse(
            format!("{at}.geometry.coordinates"),
            "[x, y] in metres is needed",
        );
    };
    let Some(Value::Object(properties)) = item.get("properties") else {
        return refuse(
            format!("{at}.properties"),
            "an object with a tier is needed",
        );
    };
    pin(x, y, properties, &format!("{at}.properties"))
}

/// The pin at (x, y) metres with the tier and name of `o`, checked.
fn pin(x: f64, y: f64, o: &serde_json::Map<String, Value>, at: &str) -> Result<Pin, PinsError> {
    let name = match o.get("name") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.len() <= MAX_NAME => Some(s.clone()),
        Some(Value::String(_)) => {
            return refuse(
                format!("{at}.name"),
                format!("longer than {MAX_NAME} bytes"),
            )
        }
        Some(_) => return refuse(format!("{at}.name"), "not a string"),
    };
    let labels: Vec<&str> = TownTier::ALL.iter().map(|t| t.label()).collect();
    let tier = o
        .get("tier")
        .and_then(Value::as_str)
        .and_then(|s| (TownTier::ALL.iter()).find(|t| t.label().eq_ignore_ascii_case(s)));
    let Some(&tier) = tier else {
        let accepted = labels.join(", ");
        return refuse(
            format!("{at}.tier"),
            format!("a tier is needed: {accepted}"),
        );
    };
    let size = f64::from(WORLD_SIZE_M);
    if !(0.0..size).contains(&x) || !(0.0..size).contains(&y) {
        let who = name.as_deref().map_or(String::new(), |n| format!("{n:?} "));
        return refuse(
            at,
            format!(
                "{who}at ({x}, {y}) m is off the map: the world spans 0 to {size} m east and north"
            ),
        );
    }
    Ok(Pin {
        x_m: x as f32,
        y_m: y as f32,
        tier,
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_read_the_same_pins() {
        let geo = r#"{ "type": "FeatureCollection", "features": [
            { "type": "Feature", "geometry": { "type": "Point", "coordinates": [4100, 2950.5] },
              "properties": { "tier": "Capitol", "name": "Port Royal", "kind": "town" } },
            { "type": "Feature", "geometry": { "type": "Point", "coordinates": [1000, 7000] },
              "properties": { "tier": "poi" } } ] }"#;
        let plain = r#"[ { "x_m": 4100, "y_m": 2950.5, "tier": "capitol", "name": "Port Royal" },
                         { "x_m": 1000, "y_m": 7000, "tier": "POI" } ]"#;
        let a = parse(geo).unwrap();
        assert_eq!(a, parse(plain).unwrap());
        assert_eq!(a[0].tier, TownTier::Capitol);
        assert_eq!(a[0].name.as_deref(), Some("Port Royal"));
        assert_eq!(a[1].name, None);
        assert_eq!(a[0].normalised(), [4100.0 / 8192.0, 1.0 - 2950.5 / 8192.0]);
        assert_eq!(a[0].label(0), "pin 0 (\"Port Royal\")");
        // An export's other features are skipped.
        let export = geo.replace(
            r#""features": ["#,
            r#""features": [ { "type": "Feature", "geometry": { "type": "LineString",
              "coordinates": [[0, 0], [1, 1]] }, "properties": { "kind": "road" } },"#,
        );
        assert_eq!(parse(&export).unwrap(), a);
    }

    #[test]
    fn bad_pins_are_named_with_their_rule() {
        let e = |text: &str| parse(text).unwrap_err();
        let off = e(r#"[ { "x_m": 9000, "y_m": 10, "tier": "hub", "name": "Far" } ]"#);
        assert_eq!(off.at, "[0]");
        assert!(
            off.reason
                .starts_with("\"Far\" at (9000, 10) m is off the map"),
            "{off}"
        );
        assert!(e(r#"[ { "x_m": -1, "y_m": 10, "tier": "hub" } ]"#)
            .reason
            .contains("off the map"));
        let tier = e(r#"[ { "x_m": 1, "y_m": 1, "tier": "city" } ]"#);
        assert_eq!(tier.at, "[0].tier");
        assert!(
            tier.reason.contains("capitol, hub, village, outpost, poi"),
            "{tier}"
        );
        let two = r#"[ { "x_m": 1, "y_m": 1, "tier": "capitol" }, { "x_m": 2, "y_m": 2, "tier": "capitol" } ]"#;
        assert!(e(two).reason.contains("2 capitols"));
        let line = r#"{ "type": "FeatureCollection", "features": [ { "type": "Feature",
            "geometry": { "type": "LineString", "coordinates": [[0, 0], [1, 1]] }, "properties": {} } ] }"#;
        assert_eq!(e(line).at, "features[0].geometry");
        assert_eq!(e(r#"{ "x_m": 1 }"#).at, "file");
        assert!(e("[1, 2").at.starts_with("line 1"));
        let many = format!(
            "[{}]",
            vec![r#"{"x_m":1,"y_m":1,"tier":"poi"}"#; MAX_PINS + 1].join(",")
        );
        assert!(e(&many).reason.contains("more than 256"));
        let long = format!(
            r#"[ {{ "x_m": 1, "y_m": 1, "tier": "poi", "name": "{}" }} ]"#,
            "a".repeat(65)
        );
        assert_eq!(e(&long).at, "[0].name");
    }
}
