//! The round-trip harness: load through the real reader, re-write as v2 through the real writer,
//! reload, and compare semantically — params (provenance aside), heights bitwise, biomes, towns,
//! every road point, the water sections, the rivers and the records.

use crate::blueprint::format::{EROS, RIVR, SHPE, TCRV, TDTL, TOWN, WBTB};
use crate::blueprint::write::record_payload;
use crate::blueprint::{self, Blueprint, Loaded, RoadTier, Tag};

/// Why a round trip failed.
#[derive(Debug, thiserror::Error)]
pub enum RoundTripError {
    /// The writer refused the model.
    #[error("re-writing as v2 failed: {0}")]
    Write(#[from] blueprint::WriteError),
    /// The re-written bytes did not load.
    #[error("re-loading the v2 bytes failed: {0}")]
    Reload(#[from] blueprint::ReadError),
    /// The reloaded blueprint differs.
    #[error("round trip changed the blueprint: {0}")]
    Mismatch(String),
}

/// What a passing round trip measured.
#[derive(Debug, Clone, Copy)]
pub struct RoundTripReport {
    /// Bytes of the re-written v2 file.
    pub v2_bytes: u64,
}

/// Re-writes `loaded` as v2 in memory, reloads it and compares.
pub fn roundtrip(loaded: &Loaded) -> Result<RoundTripReport, RoundTripError> {
    let mut rewritten = loaded.blueprint.clone();
    rewritten.params.stamp_provenance();
    let mut bytes = Vec::with_capacity(blueprint::write::v2_len(&rewritten) as usize);
    let v2_bytes = blueprint::write_v2(&mut bytes, &rewritten)?;
    let reloaded = blueprint::read_bytes(&bytes)?;
    match first_difference(&loaded.blueprint, &reloaded.blueprint) {
        None => Ok(RoundTripReport { v2_bytes }),
        Some(diff) => Err(RoundTripError::Mismatch(diff)),
    }
}

/// The first semantic difference between two blueprints, ignoring provenance; `None` if equal.
/// Floats compare bitwise: heights and road points by their bits, towns, the records and the
/// rivers by the exact bytes the writer encodes them as.
pub fn first_difference(a: &Blueprint, b: &Blueprint) -> Option<String> {
    if !a.params.same_inputs(&b.params) {
        return Some(format!("params differ: {:?} vs {:?}", a.params, b.params));
    }
    if a.heights.dim() != b.heights.dim() {
        return Some(format!(
            "height grids differ in shape: {:?} vs {:?}",
            a.heights.dim(),
            b.heights.dim()
        ));
    }
    if let Some(((x, y), h)) = a
        .heights
        .indexed_iter()
        .find(|(i, h)| h.to_bits() != b.heights[*i].to_bits())
    {
        return Some(format!(
            "height at ({x}, {y}) differs: {h} vs {}",
            b.heights[(x, y)]
        ));
    }
    if let Some(d) = grid_difference("biome", &a.biomes, &b.biomes) {
        return Some(d);
    }
    for tag in [TOWN, TCRV, TDTL, EROS, WBTB, RIVR, SHPE] {
        let (ra, rb) = (record_payload(a, tag), record_payload(b, tag));
        if ra != rb {
            return Some(match (ra, rb) {
                (Some(_), None) | (None, Some(_)) => format!("{tag} present in one blueprint only"),
                _ => format!(
                    "{tag} differs: {:?} vs {:?}",
                    record_debug(a, tag),
                    record_debug(b, tag)
                ),
            });
        }
    }
    for tier in RoadTier::ALL {
        let (pa, pb) = (a.roads.tier(*tier), b.roads.tier(*tier));
        if pa.len() != pb.len() {
            return Some(format!(
                "{} path count differs: {} vs {}",
                tier.label(),
                pa.len(),
                pb.len()
            ));
        }
        for (i, (p, q)) in pa.iter().zip(pb).enumerate() {
            if p.len() != q.len() {
                return Some(format!(
                    "{} path {i} point count differs: {} vs {}",
                    tier.label(),
                    p.len(),
                    q.len()
                ));
            }
            let bits = |pt: &[f32; 2]| [pt[0].to_bits(), pt[1].to_bits()];
            if let Some(j) = p.iter().zip(q).position(|(u, v)| bits(u) != bits(v)) {
                return Some(format!(
                    "{} path {i} point {j} differs: {:?} vs {:?}",
                    tier.label(),
                    p[j],
                    q[j]
                ));
            }
        }
    }
    let (sa, sb) = (a.water_surface_grid(), b.water_surface_grid());
    for (what, ga, gb) in [
        ("WBID", a.water_ids.as_ref(), b.water_ids.as_ref()),
        ("WSRF", sa.as_deref(), sb.as_deref()),
    ] {
        match (ga, gb) {
            (None, None) => {}
            (Some(ga), Some(gb)) => {
                if let Some(d) = grid_difference(what, ga, gb) {
                    return Some(d);
                }
            }
            _ => return Some(format!("{what} present in one blueprint only")),
        }
    }
    None
}

fn grid_difference<T: PartialEq + std::fmt::Debug>(
    what: &str,
    a: &ndarray::Array2<T>,
    b: &ndarray::Array2<T>,
) -> Option<String> {
    if a.dim() != b.dim() {
        return Some(format!(
            "{what} grids differ in shape: {:?} vs {:?}",
            a.dim(),
            b.dim()
        ));
    }
    a.indexed_iter()
        .find(|(i, v)| **v != b[*i])
        .map(|((x, y), v)| format!("{what} at ({x}, {y}) differs: {v:?} vs {:?}", b[(x, y)]))
}

fn record_debug(bp: &Blueprint, tag: Tag) -> String {
    match tag {
        TOWN => format!("{:?}", bp.towns),
        TCRV => format!("{:?}", bp.curve),
        TDTL => format!("{:?}", bp.detail),
        EROS => format!("{:?}", bp.erosion),
        RIVR => format!("{:?}", bp.rivers),
        _ => format!("{:?}", bp.water_bodies),
    }
}
