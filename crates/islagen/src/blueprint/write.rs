//! The blueprint writer: v2 tagged sections in the registered table order, and the v1 legacy
//! layout. Both stream to any `Write` (sections are framed with lengths computed up front, so no
//! payload is assembled in memory), and both check the whole model before the first byte: a
//! model the reader would reject is refused, never half-written. File output goes through
//! [`crate::output::write_atomically`]: a temporary name, flushed and synced, then renamed.

use std::io::Write;
use std::path::Path;

use ndarray::Array2;

use super::error::{RiverProblem, WriteError};
use super::format::*;
use super::model::{
    Blueprint, CurveRecord, ErosionCrater, RiverNetwork, RoadPath, Roads, ShapeInput, WaterBody,
    WaterSurface,
};
use crate::dials::CraterGuard;
use crate::output::AtomicFile;

/// Pixels converted per chunk when a grid needs per-element conversion.
const CHUNK: usize = 1 << 16;

/// Checks everything the reader would reject before anything is written.
pub fn validate(bp: &Blueprint) -> Result<(), WriteError> {
    validate_head(bp)?;
    validate_roads(&bp.roads)
}

/// [`validate`] for everything before the road blocks.
fn validate_head(bp: &Blueprint) -> Result<(), WriteError> {
    let size = bp.params.map_size;
    if !(MIN_MAP_SIZE..=MAX_MAP_SIZE).contains(&size) {
        return Err(WriteError::MapSizeOutOfRange(size));
    }
    let side = size as usize;
    let check = |grid: &'static str, dim: (usize, usize)| {
        if dim != (side, side) {
            return Err(WriteError::GridShape {
                grid,
                expected: side,
                got_x: dim.0,
                got_y: dim.1,
            });
        }
        Ok(())
    };
    check("HGTS heights", bp.heights.dim())?;
    check("BIOM biomes", bp.biomes.dim())?;
    if let Some(ids) = &bp.water_ids {
        check("WBID water ids", ids.dim())?;
    }
    if let Some(WaterSurface::Grid(surface)) = &bp.water_surface {
        check("WSRF water surface", surface.dim())?;
    }
    for (what, s) in [
        ("PRMS GeneratedUtc", &bp.params.generated_utc),
        ("PRMS GeneratorGitHash", &bp.params.generator_git_hash),
    ] {
        if s.len() > MAX_PRMS_STRING_LEN as usize {
            return Err(WriteError::StringTooLong {
                what,
                len: s.len(),
                max: MAX_PRMS_STRING_LEN,
            });
        }
    }
    fits_i32("SHPE inputs", bp.shape.len())?;
    for (index, input) in bp.shape.iter().enumerate() {
        for (what, s) in [("SHPE key", &input.key), ("SHPE file name", &input.file)] {
            if s.len() > MAX_SHPE_STRING_LEN as usize {
                return Err(WriteError::StringTooLong {
                    what,
                    len: s.len(),
                    max: MAX_SHPE_STRING_LEN,
                });
            }
        }
        if !is_sha256_hex(&input.sha256) {
            return Err(WriteError::ShapeHash {
                index,
                key: input.key.clone(),
                sha256: input.sha256.clone(),
            });
        }
    }
    fits_i32("TOWN towns", bp.towns.len())?;
    if let Some(bodies) = &bp.water_bodies {
        fits_i32("WBTB water bodies", bodies.len())?;
    }
    if let Some(curve) = &bp.curve {
        check_curve_layout(curve)?;
    }
    if let Some(network) = &bp.rivers {
        let bodies = bp
            .water_bodies
            .as_deref()
            .ok_or(WriteError::RiversWithoutWaterTable)?;
        check_rivers(network, bodies, size)?;
    }
    Ok(())
}

/// [`validate`] for the road blocks.
fn validate_roads(roads: &Roads) -> Result<(), WriteError> {
    for tier in RoadTier::ALL {
        let paths = roads.tier(*tier);
        fits_i32("road paths", paths.len())?;
        for path in paths {
            fits_i32("road points", path.len())?;
        }
    }
    Ok(())
}

/// The reader's RIVR rules, applied to the model: counts that fit, order ≥ 1, finite
/// non-negative widths and discharges, widths up to [`MAX_RIVER_WIDTH_M`], points on the map,
/// reaches that are WBTB river bodies.
fn check_rivers(network: &RiverNetwork, bodies: &[WaterBody], size: i32) -> Result<(), WriteError> {
    fits_i32("RIVR rivers", network.rivers.len())?;
    let rivers = river_body_ids(bodies.iter().map(|b| (b.id, b.kind)));
    let map = 0.0..=size as f32;
    for (river, r) in network.rivers.iter().enumerate() {
        let bad = |point, problem| WriteError::InvalidRiver {
            river,
            point,
            problem,
        };
        if r.order == 0 {
            return Err(bad(None, RiverProblem::OrderZero));
        }
        if u16::try_from(r.reaches.len()).is_err() {
            return Err(WriteError::TooManyReaches {
                river,
                len: r.reaches.len(),
            });
        }
        fits_i32("RIVR river points", r.points.len())?;
        if let Some(&id) = r.reaches.iter().find(|&&id| !rivers[usize::from(id)]) {
            return Err(bad(None, RiverProblem::UnknownReach(id)));
        }
        for (i, p) in r.points.iter().enumerate() {
            let values = [p.x, p.y, p.width_m, p.discharge_m3s];
            let problem = if !values.iter().all(|v| v.is_finite()) {
                RiverProblem::NonFinite
            } else if p.width_m < 0.0 || p.discharge_m3s < 0.0 {
                RiverProblem::Negative
            } else if !map.contains(&p.x) || !map.contains(&p.y) {
                RiverProblem::OutOfMap
            } else if p.width_m > MAX_RIVER_WIDTH_M {
                RiverProblem::TooWide
            } else {
                continue;
            };
            return Err(bad(Some(i), problem));
        }
    }
    Ok(())
}

fn fits_i32(what: &'static str, len: usize) -> Result<(), WriteError> {
    if i32::try_from(len).is_err() {
        return Err(WriteError::CountTooLarge { what, len });
    }
    Ok(())
}

fn check_curve_layout(c: &CurveRecord) -> Result<(), WriteError> {
    if !TCRV_VERSIONS.contains(&c.version) {
        return Err(WriteError::CurveLayout {
            version: c.version,
            problem: "is not a known version (1..=5)",
        });
    }
    let problem = match (
        c.version >= 4,
        c.modulation.is_some(),
        c.version >= 5,
        c.preset.is_some(),
    ) {
        (true, false, ..) => "requires the modulation extension",
        (false, true, ..) => "cannot carry the modulation extension (needs ≥ 4)",
        (_, _, true, false) => "requires the preset extension",
        (_, _, false, true) => "cannot carry the preset extension (needs ≥ 5)",
        _ => return Ok(()),
    };
    Err(WriteError::CurveLayout {
        version: c.version,
        problem,
    })
}

/// Writes `bp` as a v2 file at `path`, atomically.
pub fn write_v2_file(path: &Path, bp: &Blueprint) -> Result<u64, WriteError> {
    validate(bp)?;
    crate::output::write_atomically(path, |w| write_v2(w, bp))
}

/// Writes `bp` as a v1 file at `path`, atomically.
pub fn write_v1_file(path: &Path, bp: &Blueprint) -> Result<u64, WriteError> {
    validate(bp)?;
    crate::output::write_atomically(path, |w| write_v1(w, bp))
}

/// Writes `bp` in the v2 layout. Returns the bytes written.
pub fn write_v2<W: Write>(w: &mut W, bp: &Blueprint) -> Result<u64, WriteError> {
    validate(bp)?;
    let head = write_v2_head(w, bp)?;
    let roads = write_v2_roads(w, &bp.roads)?;
    w.flush()?;
    Ok(head + roads)
}

/// The v2 layout up to the road sections (the model already validated).
fn write_v2_head<W: Write>(w: &mut W, bp: &Blueprint) -> Result<u64, WriteError> {
    let mut out = Counter {
        inner: w,
        written: 0,
    };
    let w = &mut out;

    w.write_all(&V2_MAGIC)?;
    w.write_all(&V2_VERSION.to_le_bytes())?;

    let p = &bp.params;
    let mut prms = Vec::with_capacity(section_len(bp, PRMS).unwrap_or(0) as usize);
    prms.extend_from_slice(&p.world_seed.to_le_bytes());
    prms.extend_from_slice(&p.map_size.to_le_bytes());
    for v in [
        p.crater_radius,
        p.density_multiplier,
        p.impact_center_x,
        p.impact_center_y,
    ] {
        prms.extend_from_slice(&v.to_le_bytes());
    }
    put_dotnet_string(&mut prms, &p.generated_utc);
    put_dotnet_string(&mut prms, &p.generator_git_hash);
    section(w, bp, PRMS, &prms)?;

    frame(w, bp, HGTS)?;
    write_f32s(w, &bp.heights)?;

    frame(w, bp, BIOM)?;
    write_biomes(w, &bp.biomes)?;

    for tag in [TOWN, TCRV, TDTL, EROS] {
        if let Some(payload) = record_payload(bp, tag) {
            section(w, bp, tag, &payload)?;
        }
    }
    if let Some(ids) = &bp.water_ids {
        frame(w, bp, WBID)?;
        write_u16s(w, ids)?;
    }
    if let Some(payload) = record_payload(bp, WBTB) {
        section(w, bp, WBTB, &payload)?;
    }
    match &bp.water_surface {
        Some(WaterSurface::Grid(surface)) => {
            frame(w, bp, WSRF)?;
            write_u16s(w, surface)?;
        }
        Some(WaterSurface::PerBody) => {
            frame(w, bp, WSRF)?;
            write_surface_per_body(w, bp)?;
        }
        None => {}
    }
    if let Some(payload) = record_payload(bp, RIVR) {
        section(w, bp, RIVR, &payload)?;
    }
    if let Some(payload) = record_payload(bp, SHPE) {
        section(w, bp, SHPE, &payload)?;
    }
    Ok(out.written)
}

/// v2's four road sections, the last of the file.
fn write_v2_roads<W: Write>(w: &mut W, roads: &Roads) -> Result<u64, WriteError> {
    let mut out = Counter {
        inner: w,
        written: 0,
    };
    for tier in RoadTier::ALL {
        let paths = roads.tier(*tier);
        write_frame(&mut out, tier.tag(), road_paths_len(paths))?;
        write_road_block(&mut out, paths)?;
    }
    Ok(out.written)
}

/// Writes `bp` in the v1 legacy layout. v1 carries no params beyond MapSize, no highway-node
/// flags and none of the optional records. Returns the bytes written.
pub fn write_v1<W: Write>(w: &mut W, bp: &Blueprint) -> Result<u64, WriteError> {
    validate(bp)?;
    let head = write_v1_head(w, bp)?;
    let roads = write_v1_roads(w, &bp.roads)?;
    w.flush()?;
    Ok(head + roads)
}

/// The v1 layout up to the road blocks (the model already validated).
fn write_v1_head<W: Write>(w: &mut W, bp: &Blueprint) -> Result<u64, WriteError> {
    let mut out = Counter {
        inner: w,
        written: 0,
    };
    let w = &mut out;
    let mut header = Vec::with_capacity(V1_HEADER_LEN as usize);
    put_dotnet_string(&mut header, V1_HEADER);
    header.extend_from_slice(&bp.params.map_size.to_le_bytes());
    w.write_all(&header)?;

    let heights = bp.heights.as_standard_layout();
    let biomes = bp.biomes.as_standard_layout();
    let (heights, biomes) = (slice(&heights), slice(&biomes));
    let mut buf = Vec::with_capacity(CHUNK * V1_PIXEL_LEN as usize);
    for (hs, bs) in heights.chunks(CHUNK).zip(biomes.chunks(CHUNK)) {
        buf.clear();
        for (h, b) in hs.iter().zip(bs) {
            buf.extend_from_slice(&h.to_le_bytes());
            buf.extend_from_slice(&i32::from(b.ordinal()).to_le_bytes());
        }
        w.write_all(&buf)?;
    }

    let mut towns =
        Vec::with_capacity((COUNT_LEN + bp.towns.len() as u64 * V1_TOWN_ENTRY_LEN) as usize);
    towns.extend_from_slice(&(bp.towns.len() as i32).to_le_bytes());
    for t in &bp.towns {
        towns.extend_from_slice(&t.x.to_le_bytes());
        towns.extend_from_slice(&t.y.to_le_bytes());
        towns.extend_from_slice(&i32::from(t.tier.ordinal()).to_le_bytes());
    }
    w.write_all(&towns)?;
    Ok(out.written)
}

/// v1's four road blocks, the last of the file.
fn write_v1_roads<W: Write>(w: &mut W, roads: &Roads) -> Result<u64, WriteError> {
    let mut out = Counter {
        inner: w,
        written: 0,
    };
    for tier in RoadTier::ALL {
        write_road_block(&mut out, roads.tier(*tier))?;
    }
    Ok(out.written)
}

/// Which layout a [`PendingFile`] is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The v2 tagged sections.
    V2,
    /// The v1 legacy layout.
    V1,
}

/// A blueprint file written in two goes. Both layouts end with the roads (v2's four road
/// sections, v1's four road blocks) and nothing before them depends on the roads, so
/// [`begin_file`] writes and syncs everything before them while the roads are still being
/// searched, and [`PendingFile::finish`] appends them and renames the file into place. The bytes
/// are [`write_v2`]'s or [`write_v1`]'s for the finished model.
pub struct PendingFile {
    file: AtomicFile,
    layout: Layout,
    written: u64,
}

/// Starts the blueprint file of `bp` at `path`: checks the model, writes everything before the
/// road blocks to the temporary file and waits until it is on the disk. `bp`'s roads are
/// ignored; they come with [`PendingFile::finish`].
pub fn begin_file(path: &Path, bp: &Blueprint, layout: Layout) -> Result<PendingFile, WriteError> {
    validate_head(bp)?;
    let mut file = AtomicFile::create(path)?;
    let written = match layout {
        Layout::V2 => write_v2_head(file.writer(), bp)?,
        Layout::V1 => write_v1_head(file.writer(), bp)?,
    };
    file.sync_data()?;
    Ok(PendingFile {
        file,
        layout,
        written,
    })
}

impl PendingFile {
    /// Appends `roads`, syncs the file and renames it into place. Returns the file's size.
    pub fn finish(mut self, roads: &Roads) -> Result<u64, WriteError> {
        validate_roads(roads)?;
        let w = self.file.writer();
        let tail = match self.layout {
            Layout::V2 => write_v2_roads(w, roads)?,
            Layout::V1 => write_v1_roads(w, roads)?,
        };
        self.file.commit()?;
        Ok(self.written + tail)
    }
}

/// Size of a v2 file for `bp`, computed without writing it.
pub fn v2_len(bp: &Blueprint) -> u64 {
    V2_HEADER_LEN
        + REGISTERED_TAGS
            .iter()
            .filter_map(|&tag| section_len(bp, tag))
            .map(|len| SECTION_FRAME_LEN + len)
            .sum::<u64>()
}

/// The payload length of section `tag` for `bp`, from the layout in [`super::format`]; `None`
/// when the blueprint does not carry it. The writer frames every section with this length.
pub fn section_len(bp: &Blueprint, tag: Tag) -> Option<u64> {
    let side = bp.side() as u64;
    let p = &bp.params;
    let grid = |present: bool| {
        grid_cell_len(tag)
            .filter(|_| present)
            .map(|c| grid_len(c, side))
    };
    match tag {
        PRMS => Some(prms_len(&p.generated_utc, &p.generator_git_hash)),
        HGTS | BIOM => grid(true),
        WBID => grid(bp.water_ids.is_some()),
        WSRF => grid(bp.water_surface.is_some()),
        TOWN => Some(town_len(bp.towns.len() as u64)),
        TCRV => bp.curve.as_ref().map(|c| tcrv_len(c.version)),
        TDTL => bp.detail.as_ref().map(|_| TDTL_V2_LEN),
        EROS => bp.erosion.as_ref().and_then(|e| eros_len(e.version())),
        WBTB => bp
            .water_bodies
            .as_ref()
            .map(|b| water_table_len(b.len() as u64)),
        RIVR => bp.rivers.as_ref().map(rivers_len),
        SHPE => (!bp.shape.is_empty()).then(|| shape_len(&bp.shape)),
        _ => RoadTier::from_tag(tag).map(|tier| road_paths_len(bp.roads.tier(tier))),
    }
}

/// The payload of a small (non-grid) section — TOWN, TCRV, TDTL, EROS, WBTB or RIVR — exactly as the
/// v2 writer emits it; `None` when the blueprint does not carry it (TOWN is always carried).
/// The round-trip harness compares these bytes: a bitwise comparison of every field.
pub fn record_payload(bp: &Blueprint, tag: Tag) -> Option<Vec<u8>> {
    match tag {
        TOWN => {
            let mut town = Vec::with_capacity(town_len(bp.towns.len() as u64) as usize);
            town.extend_from_slice(&(bp.towns.len() as i32).to_le_bytes());
            for t in &bp.towns {
                town.extend_from_slice(&t.x.to_le_bytes());
                town.extend_from_slice(&t.y.to_le_bytes());
                town.push(t.tier.ordinal());
                town.push(u8::from(t.is_highway_node));
            }
            Some(town)
        }
        TCRV => bp.curve.as_ref().map(curve_payload),
        TDTL => bp.detail.as_ref().map(|d| {
            let mut b = Vec::with_capacity(TDTL_V2_LEN as usize);
            b.extend_from_slice(&TDTL_VERSION.to_le_bytes());
            b.extend_from_slice(&d.relief_amp_m.to_le_bytes());
            b.extend_from_slice(&d.relief_freq_islands.to_le_bytes());
            b.extend_from_slice(&d.relief_seed_offset.to_le_bytes());
            b.extend_from_slice(&d.edge_amp_m.to_le_bytes());
            b.extend_from_slice(&d.edge_freq_islands.to_le_bytes());
            b.extend_from_slice(&d.edge_seed_offset.to_le_bytes());
            b.extend_from_slice(&d.edge_max_shift_m.to_le_bytes());
            b
        }),
        EROS => bp.erosion.as_ref().map(|e| {
            let mut b = Vec::with_capacity(EROS_V3_LEN as usize);
            b.extend_from_slice(&e.version().to_le_bytes());
            for v in [e.droplet_count, e.lifetime, e.brush_radius, e.seed_offset] {
                b.extend_from_slice(&v.to_le_bytes());
            }
            for v in e.dials.to_array() {
                b.extend_from_slice(&v.to_le_bytes());
            }
            match e.crater {
                ErosionCrater::Exclusion { factor } => b.extend_from_slice(&factor.to_le_bytes()),
                ErosionCrater::Modes(CraterGuard {
                    core,
                    feather,
                    mode,
                }) => {
                    b.extend_from_slice(&core.to_le_bytes());
                    b.extend_from_slice(&feather.to_le_bytes());
                    b.push(mode as u8);
                }
            }
            b
        }),
        WBTB => bp.water_bodies.as_ref().map(|bodies| {
            let mut b = Vec::with_capacity(water_table_len(bodies.len() as u64) as usize);
            b.extend_from_slice(&(bodies.len() as i32).to_le_bytes());
            for body in bodies {
                b.extend_from_slice(&body.id.to_le_bytes());
                b.push(body.kind as u8);
                b.push(body.salinity as u8);
                b.extend_from_slice(&body.surface_level.to_le_bytes());
                b.extend_from_slice(&body.pixel_count.to_le_bytes());
                b.extend_from_slice(&body.centroid_x.to_le_bytes());
                b.extend_from_slice(&body.centroid_y.to_le_bytes());
            }
            b
        }),
        RIVR => bp.rivers.as_ref().map(rivers_payload),
        SHPE => (!bp.shape.is_empty()).then(|| shape_payload(&bp.shape)),
        _ => None,
    }
}

fn shape_len(inputs: &[ShapeInput]) -> u64 {
    shpe_len(
        inputs
            .iter()
            .map(|i| (i.key.as_str(), i.sha256.as_str(), i.file.as_str())),
    )
}

fn shape_payload(inputs: &[ShapeInput]) -> Vec<u8> {
    let mut b = Vec::with_capacity(shape_len(inputs) as usize);
    b.extend_from_slice(&SHPE_VERSION.to_le_bytes());
    b.extend_from_slice(&(inputs.len() as i32).to_le_bytes());
    for i in inputs {
        put_dotnet_string(&mut b, &i.key);
        put_dotnet_string(&mut b, &i.sha256);
        put_dotnet_string(&mut b, &i.file);
    }
    b
}

fn rivers_len(network: &RiverNetwork) -> u64 {
    rivr_len(
        network
            .rivers
            .iter()
            .map(|r| (r.reaches.len() as u64, r.points.len() as u64)),
    )
}

fn rivers_payload(network: &RiverNetwork) -> Vec<u8> {
    let mut b = Vec::with_capacity(rivers_len(network) as usize);
    b.extend_from_slice(&RIVR_VERSION.to_le_bytes());
    for v in [network.catchment_km2, network.width_scale, network.density] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&(network.rivers.len() as i32).to_le_bytes());
    for r in &network.rivers {
        b.push(r.order);
        b.extend_from_slice(&(r.reaches.len() as u16).to_le_bytes());
        for id in &r.reaches {
            b.extend_from_slice(&id.to_le_bytes());
        }
        b.extend_from_slice(&(r.points.len() as i32).to_le_bytes());
        for p in &r.points {
            for v in [p.x, p.y, p.width_m, p.discharge_m3s] {
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    b
}

fn curve_payload(c: &CurveRecord) -> Vec<u8> {
    let mut b = Vec::with_capacity(tcrv_len(c.version) as usize);
    b.extend_from_slice(&c.version.to_le_bytes());
    let base = &c.base;
    let fields = base.knots.iter().copied().chain([
        base.spike_max,
        base.sea,
        base.orange_ceil,
        base.red_ceil,
        base.bench_lo,
        base.bench_hi,
        base.peak_cap,
        base.tail_slope,
    ]);
    for v in fields {
        b.extend_from_slice(&v.to_le_bytes());
    }
    if let Some(m) = &c.modulation {
        for v in [
            m.bench_amp,
            m.plateau_amp,
            m.shelf_span_min,
            m.shelf_span_max,
            m.elev_freq_islands,
            m.strength_freq_islands,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for v in [
            m.bench_seed_offset,
            m.plateau_seed_offset,
            m.strength_seed_offset,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
    }
    if let Some(p) = &c.preset {
        b.push(p.preset_id);
        b.extend_from_slice(&p.k5.to_le_bytes());
        b.extend_from_slice(&p.k6.to_le_bytes());
    }
    b
}

fn road_paths_len(paths: &[RoadPath]) -> u64 {
    road_block_len(paths.iter().map(|p| p.len() as u64))
}

fn write_road_block<W: Write>(w: &mut W, paths: &[RoadPath]) -> std::io::Result<()> {
    let mut b = Vec::new();
    b.extend_from_slice(&(paths.len() as i32).to_le_bytes());
    for path in paths {
        b.extend_from_slice(&(path.len() as i32).to_le_bytes());
        for [x, y] in path {
            b.extend_from_slice(&x.to_le_bytes());
            b.extend_from_slice(&y.to_le_bytes());
        }
        if b.len() >= 1 << 20 {
            w.write_all(&b)?;
            b.clear();
        }
    }
    w.write_all(&b)
}

/// Writes the frame of section `tag` with the length [`section_len`] gives.
fn frame<W: Write>(w: &mut W, bp: &Blueprint, tag: Tag) -> std::io::Result<()> {
    write_frame(w, tag, section_len(bp, tag).unwrap_or(0))
}

fn write_frame<W: Write>(w: &mut W, tag: Tag, len: u64) -> std::io::Result<()> {
    w.write_all(&tag.0.to_le_bytes())?;
    w.write_all(&len.to_le_bytes())
}

/// Writes a small section assembled in memory; its size must be the layout's.
fn section<W: Write>(w: &mut W, bp: &Blueprint, tag: Tag, payload: &[u8]) -> std::io::Result<()> {
    let expected = section_len(bp, tag);
    if expected != Some(payload.len() as u64) {
        return Err(std::io::Error::other(format!(
            "{tag} payload is {} bytes but its layout says {expected:?} (a writer bug)",
            payload.len()
        )));
    }
    frame(w, bp, tag)?;
    w.write_all(payload)
}

fn slice<'a, T>(a: &'a ndarray::CowArray<'_, T, ndarray::Ix2>) -> &'a [T] {
    a.as_slice()
        .expect("as_standard_layout yields a contiguous array")
}

fn write_f32s<W: Write>(w: &mut W, grid: &Array2<f32>) -> std::io::Result<()> {
    let grid = grid.as_standard_layout();
    write_pod(w, slice(&grid), f32::to_le_bytes)
}

fn write_u16s<W: Write>(w: &mut W, grid: &Array2<u16>) -> std::io::Result<()> {
    let grid = grid.as_standard_layout();
    write_pod(w, slice(&grid), u16::to_le_bytes)
}

/// Writes plain numbers little-endian: straight from memory on a little-endian machine.
fn write_pod<W: Write, T: bytemuck::Pod, const N: usize>(
    w: &mut W,
    data: &[T],
    to_le: fn(T) -> [u8; N],
) -> std::io::Result<()> {
    if cfg!(target_endian = "little") {
        // 8 MiB at a time, as dd does: one giant write() stalls in dirty-page throttling
        for chunk in bytemuck::cast_slice::<T, u8>(data).chunks(8 << 20) {
            w.write_all(chunk)?;
        }
        return Ok(());
    }
    let mut buf = Vec::with_capacity(CHUNK * N);
    for chunk in data.chunks(CHUNK) {
        buf.clear();
        chunk.iter().for_each(|&v| buf.extend_from_slice(&to_le(v)));
        w.write_all(&buf)?;
    }
    Ok(())
}

/// WSRF made from WBID and WBTB while writing ([`WaterSurface::PerBody`]): each id's level, in
/// the same 8 MiB writes as a held grid, never a grid in memory.
fn write_surface_per_body<W: Write>(w: &mut W, bp: &Blueprint) -> std::io::Result<()> {
    let levels = bp.surface_levels();
    let level = |id: u16| {
        levels
            .get(usize::from(id))
            .copied()
            .unwrap_or(WSRF_NO_WATER)
    };
    let Some(ids) = &bp.water_ids else {
        // No WBID: no water anywhere.
        let zeros = vec![0u8; CHUNK * 2];
        let mut left = bp.side() * bp.side() * 2;
        while left > 0 {
            let k = left.min(zeros.len());
            w.write_all(&zeros[..k])?;
            left -= k;
        }
        return Ok(());
    };
    let ids = ids.as_standard_layout();
    let mut buf = Vec::with_capacity(8 << 20);
    for chunk in slice(&ids).chunks(4 << 20) {
        buf.clear();
        chunk
            .iter()
            .for_each(|&id| buf.extend_from_slice(&level(id).to_le_bytes()));
        w.write_all(&buf)?;
    }
    Ok(())
}

fn write_biomes<W: Write>(w: &mut W, grid: &Array2<Biome>) -> std::io::Result<()> {
    let grid = grid.as_standard_layout();
    let mut buf = Vec::with_capacity(CHUNK);
    for chunk in slice(&grid).chunks(CHUNK) {
        buf.clear();
        buf.extend(chunk.iter().map(|b| b.ordinal()));
        w.write_all(&buf)?;
    }
    Ok(())
}

/// Counts the bytes that pass through.
struct Counter<'a, W: Write> {
    inner: &'a mut W,
    written: u64,
}

impl<W: Write> Write for Counter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writer frames every section with the layout's length, the reader finds the same
    /// frames, and the digest's fixed PRMS span is where the reader's PRMS strings start.
    #[test]
    fn every_frame_is_the_layouts_length() {
        let bp = super::super::sample::full(256, 7);
        let mut bytes = Vec::new();
        let written = write_v2(&mut bytes, &bp).unwrap();
        assert_eq!(written, v2_len(&bp));
        let loaded = super::super::read_bytes(&bytes).unwrap();
        assert_eq!(loaded.sections.len(), REGISTERED_TAGS.len());
        for s in &loaded.sections {
            assert_eq!(Some(s.length), section_len(&bp, s.tag), "{}", s.tag);
        }
        let prms = &loaded.sections[0];
        let strings_at = (prms.offset + SECTION_FRAME_LEN + PRMS_FIXED_LEN) as usize;
        assert_eq!(
            bytes[strings_at] as usize,
            bp.params.generated_utc.len(),
            "the first provenance string's length prefix follows the fixed fields"
        );
    }
}
