//! `structures.json`: the structure sidecar of a map (STRUCTURES_JSON.md) — validate, normalise,
//! check placements, and emit one for a generated world.
//!
//! [`parse`] reads any JSON text under the v1 contract: version 1 only; missing optional fields
//! get the deterministic defaults below; unknown root, type and instance fields are ignored;
//! unknown `state` / `stateDefaults` keys are kept. Every rejection is a [`StructuresError`]
//! naming the JSON path and the reason. [`Document::to_json`] writes the normalised document
//! with a stable key order (the struct order here; `state` keys sorted), so normalising twice
//! changes nothing.
//!
//! Defaults: atlas `{src: "", filter: "nearest", slotWidth: 128, slotHeight: 128,
//! gridColumns: 1, gridRows: 1}`; a type's `name` and `spriteId` default to its `id`,
//! `spriteSlot` to 0, `spriteSrc` to "", `visualWidthPx` / `visualHeightPx` to the footprint's
//! size, `footprint.mask` to all ones, `interactionRadiusPx` to 0, `blocksMovement` to false,
//! `capabilities` and `stateDefaults` to empty; an instance's `state` to empty. Required: the
//! root `version`; a type's `id` and `footprint.width` / `height`; an instance's `id`, `type`,
//! `pixelX`, `pixelY`.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;
use serde_json::{Map, Value};

/// Structure types per map, at most.
pub const MAX_TYPES: usize = 256;
/// Structure instances per map, at most.
pub const MAX_INSTANCES: usize = 4096;
/// Footprint width / height, map cells, at most.
pub const MAX_FOOTPRINT: u32 = 64;
/// Visual width / height, map pixels, at most.
pub const MAX_VISUAL: u32 = 128;
/// Sprite atlas slots: 0 ..= this.
pub const MAX_SLOT: u32 = 4095;
/// Instance positions are pixels of one map: 0 ..= this (the largest MapSize is 32768).
pub const MAX_PIXEL: i64 = 32767;

/// A rejected sidecar: where, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct StructuresError {
    /// JSON path, e.g. `types[2].footprint.mask`.
    pub path: String,
    /// Why.
    pub reason: String,
}

fn err<T>(path: impl Into<String>, reason: impl Into<String>) -> Result<T, StructuresError> {
    Err(StructuresError {
        path: path.into(),
        reason: reason.into(),
    })
}

/// The atlas block.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Atlas {
    /// Atlas image, "" when generated at runtime.
    pub src: String,
    /// Texture filter.
    pub filter: String,
    /// Slot width, pixels.
    pub slot_width: u32,
    /// Slot height, pixels.
    pub slot_height: u32,
    /// Slots per row.
    pub grid_columns: u32,
    /// Rows of slots.
    pub grid_rows: u32,
}

/// A footprint: the occupied placement cells.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Footprint {
    /// Cells across.
    pub width: u32,
    /// Cells down.
    pub height: u32,
    /// Row-major 0/1 per cell, `width × height` long.
    pub mask: Vec<u8>,
}

impl Footprint {
    /// The occupied cells, relative to the origin.
    pub fn cells(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        let w = self.width as usize;
        self.mask
            .iter()
            .enumerate()
            .filter(|(_, m)| **m == 1)
            .map(move |(i, _)| ((i % w) as i64, (i / w) as i64))
    }
}

/// A structure type.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StructureType {
    /// Stable id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Render metadata.
    pub sprite_id: String,
    /// Atlas slot.
    pub sprite_slot: u32,
    /// Source PNG.
    pub sprite_src: String,
    /// Visual width, map pixels.
    pub visual_width_px: u32,
    /// Visual height, map pixels.
    pub visual_height_px: u32,
    /// Occupied cells.
    pub footprint: Footprint,
    /// Interaction radius, pixels.
    pub interaction_radius_px: f64,
    /// Whether the footprint is impassable.
    pub blocks_movement: bool,
    /// Query tags.
    pub capabilities: Vec<String>,
    /// Merged into new instances' state.
    pub state_defaults: BTreeMap<String, Value>,
}

/// A placed structure.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Instance {
    /// Stable, unique id.
    pub id: String,
    /// The type's id.
    #[serde(rename = "type")]
    pub type_id: String,
    /// Footprint origin x, map pixels.
    pub pixel_x: i64,
    /// Footprint origin y, map pixels.
    pub pixel_y: i64,
    /// Runtime-owned state.
    pub state: BTreeMap<String, Value>,
}

/// A validated, normalised sidecar.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Document {
    /// Always 1.
    pub version: u32,
    /// The atlas.
    pub atlas: Atlas,
    /// Types.
    pub types: Vec<StructureType>,
    /// Instances.
    pub structures: Vec<Instance>,
}

// ---------------------------------------------------------------------------------------------
// Reading

fn object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, StructuresError> {
    v.as_object()
        .map_or_else(|| err(path, "must be an object"), Ok)
}

fn string(
    o: &Map<String, Value>,
    key: &str,
    path: &str,
    default: Option<&str>,
) -> Result<String, StructuresError> {
    match (o.get(key), default) {
        (Some(Value::String(s)), _) => Ok(s.clone()),
        (Some(_), _) => err(format!("{path}.{key}"), "must be a string"),
        (None, Some(d)) => Ok(d.to_string()),
        (None, None) => err(format!("{path}.{key}"), "is required"),
    }
}

fn unsigned(
    o: &Map<String, Value>,
    key: &str,
    path: &str,
    default: Option<u32>,
) -> Result<u32, StructuresError> {
    match (o.get(key), default) {
        (Some(v), _) => v.as_u64().and_then(|n| u32::try_from(n).ok()).map_or_else(
            || err(format!("{path}.{key}"), "must be a whole number ≥ 0"),
            Ok,
        ),
        (None, Some(d)) => Ok(d),
        (None, None) => err(format!("{path}.{key}"), "is required"),
    }
}

fn integer(o: &Map<String, Value>, key: &str, path: &str) -> Result<i64, StructuresError> {
    match o.get(key) {
        Some(v) => v.as_i64().map_or_else(
            || err(format!("{path}.{key}"), "must be a whole number"),
            Ok,
        ),
        None => err(format!("{path}.{key}"), "is required"),
    }
}

/// A position: a whole number within a map's pixels.
fn pixel(o: &Map<String, Value>, key: &str, path: &str) -> Result<i64, StructuresError> {
    let v = integer(o, key, path)?;
    if !(0..=MAX_PIXEL).contains(&v) {
        return err(
            format!("{path}.{key}"),
            format!("{v} is not a map pixel (0 ..= {MAX_PIXEL})"),
        );
    }
    Ok(v)
}

/// Footprint cell (dx, dy) of a structure at (x, y). Positions are map pixels
/// (≤ [`MAX_PIXEL`]) and offsets under [`MAX_FOOTPRINT`], so the sum cannot overflow; the
/// checked form keeps that true for any caller.
fn cell_at(x: i64, y: i64, (dx, dy): (i64, i64)) -> Cell {
    (
        x.checked_add(dx).unwrap_or(i64::MAX),
        y.checked_add(dy).unwrap_or(i64::MAX),
    )
}

fn state(
    o: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<BTreeMap<String, Value>, StructuresError> {
    match o.get(key) {
        None => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => Ok(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        Some(_) => err(format!("{path}.{key}"), "must be an object"),
    }
}

fn nonempty_id(o: &Map<String, Value>, path: &str) -> Result<String, StructuresError> {
    let id = string(o, "id", path, None)?;
    if id.trim().is_empty() {
        return err(format!("{path}.id"), "must be a non-empty string");
    }
    Ok(id)
}

fn read_type(v: &Value, path: &str) -> Result<StructureType, StructuresError> {
    let o = object(v, path)?;
    let id = nonempty_id(o, path)?;
    let fp_path = format!("{path}.footprint");
    let fp = object(o.get("footprint").unwrap_or(&Value::Null), &fp_path)
        .or_else(|_| err(fp_path.clone(), "is required and must be an object"))?;
    let (width, height) = (
        unsigned(fp, "width", &fp_path, None)?,
        unsigned(fp, "height", &fp_path, None)?,
    );
    for (key, v) in [("width", width), ("height", height)] {
        if v == 0 {
            return err(format!("{fp_path}.{key}"), "must be at least 1");
        }
        if v > MAX_FOOTPRINT {
            return err(
                format!("{fp_path}.{key}"),
                format!("{v} exceeds the limit of {MAX_FOOTPRINT}"),
            );
        }
    }
    let cells = (width * height) as usize;
    let mask = match fp.get("mask") {
        None => vec![1u8; cells],
        Some(Value::Array(items)) => {
            if items.len() != cells {
                return err(
                    format!("{fp_path}.mask"),
                    format!("has {} entries, width × height is {cells}", items.len()),
                );
            }
            items
                .iter()
                .enumerate()
                .map(|(i, m)| match m.as_u64() {
                    Some(0) => Ok(0),
                    Some(1) => Ok(1),
                    _ => err(format!("{fp_path}.mask[{i}]"), "must be 0 or 1"),
                })
                .collect::<Result<_, _>>()?
        }
        Some(_) => return err(format!("{fp_path}.mask"), "must be an array of 0 and 1"),
    };
    let visual_width_px = unsigned(o, "visualWidthPx", path, Some(width))?;
    let visual_height_px = unsigned(o, "visualHeightPx", path, Some(height))?;
    for (key, v) in [
        ("visualWidthPx", visual_width_px),
        ("visualHeightPx", visual_height_px),
    ] {
        if v == 0 {
            return err(format!("{path}.{key}"), "must be at least 1");
        }
        if v > MAX_VISUAL {
            return err(
                format!("{path}.{key}"),
                format!("{v} exceeds the limit of {MAX_VISUAL}"),
            );
        }
    }
    let sprite_slot = unsigned(o, "spriteSlot", path, Some(0))?;
    if sprite_slot > MAX_SLOT {
        return err(
            format!("{path}.spriteSlot"),
            format!("{sprite_slot} is outside 0..{MAX_SLOT}"),
        );
    }
    let interaction_radius_px = match o.get("interactionRadiusPx") {
        None => 0.0,
        Some(v) => match v.as_f64() {
            Some(r) if r >= 0.0 && r.is_finite() => r,
            _ => {
                return err(
                    format!("{path}.interactionRadiusPx"),
                    "must be a number ≥ 0",
                )
            }
        },
    };
    let blocks_movement = match o.get("blocksMovement") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return err(format!("{path}.blocksMovement"), "must be true or false"),
    };
    let capabilities = match o.get("capabilities") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, c)| {
                c.as_str().map(String::from).map_or_else(
                    || err(format!("{path}.capabilities[{i}]"), "must be a string"),
                    Ok,
                )
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return err(
                format!("{path}.capabilities"),
                "must be an array of strings",
            )
        }
    };
    Ok(StructureType {
        name: string(o, "name", path, Some(&id))?,
        sprite_id: string(o, "spriteId", path, Some(&id))?,
        sprite_slot,
        sprite_src: string(o, "spriteSrc", path, Some(""))?,
        visual_width_px,
        visual_height_px,
        footprint: Footprint {
            width,
            height,
            mask,
        },
        interaction_radius_px,
        blocks_movement,
        capabilities,
        state_defaults: state(o, "stateDefaults", path)?,
        id,
    })
}

fn read_instance(v: &Value, path: &str) -> Result<Instance, StructuresError> {
    let o = object(v, path)?;
    Ok(Instance {
        id: nonempty_id(o, path)?,
        type_id: string(o, "type", path, None)?,
        pixel_x: pixel(o, "pixelX", path)?,
        pixel_y: pixel(o, "pixelY", path)?,
        state: state(o, "state", path)?,
    })
}

/// Parses and validates a sidecar (see the module doc for the rules).
pub fn parse(text: &str) -> Result<Document, StructuresError> {
    let root: Value = serde_json::from_str(text).or_else(|e| {
        err(
            format!("line {}, column {}", e.line(), e.column()),
            format!("not JSON: {e}"),
        )
    })?;
    let o = object(&root, "$")?;
    let version = match o.get("version") {
        None => return err("version", "is required"),
        Some(v) => v.as_u64(),
    };
    if version != Some(1) {
        return err(
            "version",
            format!("unsupported version {}; only 1 is", o["version"]),
        );
    }
    let atlas = match o.get("atlas") {
        None => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return err("atlas", "must be an object"),
    };
    let atlas = Atlas {
        src: string(&atlas, "src", "atlas", Some(""))?,
        filter: string(&atlas, "filter", "atlas", Some("nearest"))?,
        slot_width: unsigned(&atlas, "slotWidth", "atlas", Some(128))?,
        slot_height: unsigned(&atlas, "slotHeight", "atlas", Some(128))?,
        grid_columns: unsigned(&atlas, "gridColumns", "atlas", Some(1))?,
        grid_rows: unsigned(&atlas, "gridRows", "atlas", Some(1))?,
    };
    let list = |key: &str| -> Result<Vec<Value>, StructuresError> {
        match o.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => Ok(items.clone()),
            Some(_) => err(key, "must be an array"),
        }
    };
    let (types_raw, instances_raw) = (list("types")?, list("structures")?);
    if types_raw.len() > MAX_TYPES {
        return err(
            "types",
            format!("{} types exceed the limit of {MAX_TYPES}", types_raw.len()),
        );
    }
    if instances_raw.len() > MAX_INSTANCES {
        return err(
            "structures",
            format!(
                "{} instances exceed the limit of {MAX_INSTANCES}",
                instances_raw.len()
            ),
        );
    }
    let mut types = Vec::with_capacity(types_raw.len());
    let mut type_ids: HashMap<String, usize> = HashMap::new();
    for (i, v) in types_raw.iter().enumerate() {
        let t = read_type(v, &format!("types[{i}]"))?;
        if let Some(first) = type_ids.insert(t.id.clone(), i) {
            return err(
                format!("types[{i}].id"),
                format!("duplicate id {:?} (also types[{first}])", t.id),
            );
        }
        types.push(t);
    }
    let mut structures = Vec::with_capacity(instances_raw.len());
    let mut ids: HashMap<String, usize> = HashMap::new();
    for (i, v) in instances_raw.iter().enumerate() {
        let path = format!("structures[{i}]");
        let s = read_instance(v, &path)?;
        if let Some(first) = ids.insert(s.id.clone(), i) {
            return err(
                format!("{path}.id"),
                format!("duplicate id {:?} (also structures[{first}])", s.id),
            );
        }
        if !type_ids.contains_key(&s.type_id) {
            return err(
                format!("{path}.type"),
                format!("references the undeclared type {:?}", s.type_id),
            );
        }
        structures.push(s);
    }
    let doc = Document {
        version: 1,
        atlas,
        types,
        structures,
    };
    // No two footprints share a cell.
    let mut occupied: HashMap<(i64, i64), usize> = HashMap::new();
    for (i, s) in doc.structures.iter().enumerate() {
        for (dx, dy) in doc.type_of(s).footprint.cells() {
            let cell = cell_at(s.pixel_x, s.pixel_y, (dx, dy));
            if let Some(&other) = occupied.get(&cell) {
                return err(
                    format!("structures[{i}]"),
                    format!(
                        "footprint of {:?} overlaps {:?} (structures[{other}]) at cell ({}, {})",
                        s.id, doc.structures[other].id, cell.0, cell.1
                    ),
                );
            }
            occupied.insert(cell, i);
        }
    }
    Ok(doc)
}

impl Document {
    /// The type an instance references (validated documents only).
    pub fn type_of(&self, s: &Instance) -> &StructureType {
        self.types
            .iter()
            .find(|t| t.id == s.type_id)
            .expect("validated: every instance's type is declared")
    }

    /// The normalised JSON text (stable key order, two-space indent, trailing newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
}

// ---------------------------------------------------------------------------------------------
// Placement against a map

/// Why one footprint cell refuses a placement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum CellProblem {
    /// Another structure's footprint is there.
    Occupied(String),
    /// Water (ocean, lake or river).
    Water,
    /// Steeper than [`MAX_SLOPE`].
    TooSteep,
    /// Off the map.
    OutOfBounds,
}

/// A map cell, (x, y) in pixels.
pub type Cell = (i64, i64);

/// The steepest ground (metres per metre) a structure may stand on.
pub const MAX_SLOPE: f32 = 0.5;

/// What `can-place` needs to know of a map.
pub struct MapView<'a> {
    /// Rendered heights, raw.
    pub heights: &'a ndarray::Array2<f32>,
    /// Whether each pixel is water.
    pub water: &'a dyn Fn(usize, usize) -> bool,
}

impl MapView<'_> {
    fn slope(&self, x: usize, y: usize) -> f32 {
        let n = self.heights.dim().0;
        let metres_per_px = crate::units::metres_per_px(n);
        let at = |x: usize, y: usize| crate::units::raw_to_m(self.heights[[x, y]]);
        let gx = (at((x + 1).min(n - 1), y) - at(x.saturating_sub(1), y)) / (2.0 * metres_per_px);
        let gy = (at(x, (y + 1).min(n - 1)) - at(x, y.saturating_sub(1))) / (2.0 * metres_per_px);
        gx.hypot(gy)
    }
}

/// Every cell of `type_id`'s footprint at (x, y) that refuses the placement, with its reason.
pub fn placement_problems(
    doc: &Document,
    type_id: &str,
    x: i64,
    y: i64,
    map: Option<&MapView>,
) -> Result<Vec<(Cell, CellProblem)>, StructuresError> {
    let Some(t) = doc.types.iter().find(|t| t.id == type_id) else {
        return err("type", format!("no type {type_id:?} in the document"));
    };
    for (what, v) in [("x", x), ("y", y)] {
        if !(0..=MAX_PIXEL).contains(&v) {
            return err(what, format!("{v} is not a map pixel (0 ..= {MAX_PIXEL})"));
        }
    }
    let mut occupied: HashMap<(i64, i64), &str> = HashMap::new();
    for s in &doc.structures {
        for (dx, dy) in doc.type_of(s).footprint.cells() {
            occupied.insert(cell_at(s.pixel_x, s.pixel_y, (dx, dy)), &s.id);
        }
    }
    let mut problems = Vec::new();
    for (dx, dy) in t.footprint.cells() {
        let cell = cell_at(x, y, (dx, dy));
        if let Some(id) = occupied.get(&cell) {
            problems.push((cell, CellProblem::Occupied(id.to_string())));
        }
        if let Some(m) = map {
            let n = m.heights.dim().0 as i64;
            if cell.0 < 0 || cell.1 < 0 || cell.0 >= n || cell.1 >= n {
                problems.push((cell, CellProblem::OutOfBounds));
                continue;
            }
            let (cx, cy) = (cell.0 as usize, cell.1 as usize);
            if (m.water)(cx, cy) {
                problems.push((cell, CellProblem::Water));
            } else if m.slope(cx, cy) > MAX_SLOPE {
                problems.push((cell, CellProblem::TooSteep));
            }
        } else if cell.0 < 0 || cell.1 < 0 {
            problems.push((cell, CellProblem::OutOfBounds));
        }
    }
    Ok(problems)
}

/// For `check --map`: every instance cell on water or off the map.
pub fn map_problems(doc: &Document, map: &MapView) -> Vec<(String, Cell, CellProblem)> {
    let n = map.heights.dim().0 as i64;
    let mut out = Vec::new();
    for s in &doc.structures {
        for (dx, dy) in doc.type_of(s).footprint.cells() {
            let cell = cell_at(s.pixel_x, s.pixel_y, (dx, dy));
            if cell.0 < 0 || cell.1 < 0 || cell.0 >= n || cell.1 >= n {
                out.push((s.id.clone(), cell, CellProblem::OutOfBounds));
            } else if (map.water)(cell.0 as usize, cell.1 as usize) {
                out.push((s.id.clone(), cell, CellProblem::Water));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Emitting a world's sidecar

use crate::blueprint::{Blueprint, TownTier};

/// Per tier: type id, name, largest footprint side (cells), blocks movement, capabilities.
const TIERS: [(&str, &str, u32, bool, &[&str]); 6] = [
    (
        "capitol",
        "Capitol",
        9,
        true,
        &["settlement", "capitol", "highway-node"],
    ),
    (
        "hub",
        "Hub",
        7,
        true,
        &["settlement", "hub", "highway-node"],
    ),
    (
        "snow_hub",
        "Snow Hub",
        7,
        true,
        &["settlement", "hub", "mountain-branch"],
    ),
    ("village", "Village", 5, true, &["settlement", "village"]),
    ("outpost", "Outpost", 3, true, &["settlement", "outpost"]),
    ("poi", "Point of Interest", 2, false, &["point-of-interest"]),
];

fn tier_index(t: &crate::blueprint::Town) -> usize {
    match t.tier {
        TownTier::Capitol => 0,
        TownTier::Hub if t.is_highway_node => 1,
        TownTier::Hub => 2,
        TownTier::Village => 3,
        TownTier::Outpost => 4,
        TownTier::Poi => 5,
    }
}

/// The sidecar of a generated world: a type per town tier (the snow hub its own), an instance
/// per town, its footprint centred on the town. Each type's footprint is the largest square up
/// to the tier's size at which none of its towns' footprints touches water
/// ([`Blueprint::is_water`]: ocean, lakes and river reaches), leaves the map or overlaps an
/// earlier one — so the result always validates. One town beside a river shrinks its whole
/// tier's footprint. (Towns stand on dry pixels, so a side of 1 always fits a generated world.)
pub fn from_world(bp: &Blueprint) -> Document {
    let n = bp.side() as i64;
    let water =
        |x: i64, y: i64| x < 0 || y < 0 || x >= n || y >= n || bp.is_water(x as usize, y as usize);
    let origin = |t: &crate::blueprint::Town, side: u32| {
        let half = i64::from(side / 2);
        (t.x.floor() as i64 - half, t.y.floor() as i64 - half)
    };
    let mut occupied: HashSet<(i64, i64)> = HashSet::new();
    // No footprint may cover another town's own pixel.
    let town_px: HashMap<(i64, i64), usize> = bp
        .towns
        .iter()
        .enumerate()
        .map(|(i, t)| ((t.x.floor() as i64, t.y.floor() as i64), i))
        .collect();
    let mut sides = [0u32; 6];
    for (k, tier) in TIERS.iter().enumerate() {
        let members: Vec<(usize, &crate::blueprint::Town)> = bp
            .towns
            .iter()
            .enumerate()
            .filter(|(_, t)| tier_index(t) == k)
            .collect();
        let fits = |side: u32| {
            let mut cells = HashSet::new();
            members.iter().all(|(i, t)| {
                let (ox, oy) = origin(t, side);
                (0..i64::from(side)).all(|dy| {
                    (0..i64::from(side)).all(|dx| {
                        let c = (ox + dx, oy + dy);
                        !water(c.0, c.1)
                            && !occupied.contains(&c)
                            && town_px.get(&c).is_none_or(|j| j == i)
                            && cells.insert(c)
                    })
                })
            })
        };
        let side = (1..=tier.2).rev().find(|&s| fits(s)).unwrap_or(1);
        sides[k] = side;
        for (_, t) in &members {
            let (ox, oy) = origin(t, side);
            for dy in 0..i64::from(side) {
                for dx in 0..i64::from(side) {
                    occupied.insert((ox + dx, oy + dy));
                }
            }
        }
    }
    let types = TIERS
        .iter()
        .zip(sides)
        .map(|((id, name, _, blocks, caps), side)| StructureType {
            id: id.to_string(),
            name: name.to_string(),
            sprite_id: id.to_string(),
            sprite_slot: 0,
            sprite_src: String::new(),
            visual_width_px: side.max(1),
            visual_height_px: side.max(1),
            footprint: Footprint {
                width: side.max(1),
                height: side.max(1),
                mask: vec![1; (side.max(1) * side.max(1)) as usize],
            },
            interaction_radius_px: f64::from(side.max(1)),
            blocks_movement: *blocks,
            capabilities: caps.iter().map(|c| c.to_string()).collect(),
            state_defaults: BTreeMap::new(),
        })
        .collect();
    let mut counters = [0usize; 6];
    let structures = bp
        .towns
        .iter()
        .map(|t| {
            let k = tier_index(t);
            counters[k] += 1;
            let (x, y) = origin(t, sides[k]);
            let mut state = BTreeMap::new();
            state.insert("tier".to_string(), Value::from(t.tier.label()));
            state.insert("highwayNode".to_string(), Value::from(t.is_highway_node));
            Instance {
                id: format!("{}_{:03}", TIERS[k].0, counters[k]),
                type_id: TIERS[k].0.to_string(),
                pixel_x: x,
                pixel_y: y,
                state,
            }
        })
        .collect();
    Document {
        version: 1,
        atlas: Atlas {
            src: String::new(),
            filter: "nearest".into(),
            slot_width: 128,
            slot_height: 128,
            grid_columns: 1,
            grid_rows: 1,
        },
        types,
        structures,
    }
}
