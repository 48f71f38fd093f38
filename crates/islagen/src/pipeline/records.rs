//! Stage outputs → wire records: the TCRV, TDTL and EROS records that describe how a world was
//! made, built from what the stages applied. Stages never build a record; the blueprint module
//! never sees a stage.

use crate::blueprint::{
    CurveBase, CurveModulation, CurvePreset, CurveRecord, ErosionCrater,
    ErosionRecord,
};
use crate::stages::curve::{Curve, SEA_REF};
use crate::stages::erosion::{ErosionParams, ErosionStats};

/// The TCRV record (curveVersion 5) of a curve as applied.
pub fn curve(c: &Curve) -> CurveRecord {
    let p = c.preset();
    let sea = c.record_sea();
    let shift = sea - SEA_REF;
    CurveRecord {
        version: 5,
        base: CurveBase {
            knots: [
                p.knots[0] + shift,
                p.knots[1] + shift,
                p.knots[2] + shift,
                p.knots[3] + shift,
            ],
            spike_max: c.spike_top() + sea,
            sea,
            orange_ceil: p.orange_ceil_m,
            red_ceil: p.red_ceil_m,
            bench_lo: p.bench_m,
            bench_hi: p.plateau_m,
            peak_cap: p.cap_m,
            tail_slope: p.tail_slope,
        },
        modulation: Some(CurveModulation {
            bench_amp: p.bench_amp_m,
            plateau_amp: p.plateau_amp_m,
            shelf_span_min: p.span_min_m,
            shelf_span_max: p.span_max_m,
            elev_freq_islands: p.elev_freq_islands,
            strength_freq_islands: p.strength_freq_islands,
            bench_seed_offset: p.seed_offsets[0],
            plateau_seed_offset: p.seed_offsets[1],
            strength_seed_offset: p.seed_offsets[2],
        }),
        preset: Some(CurvePreset {
            preset_id: p.id,
            k5: p.knots[4] + shift,
            k6: p.knots[5] + shift,
        }),
    }
}


/// The EROS record (v3) of the erosion dials as applied; `seed_offset` is the configured
/// ErosionSeedOffset the droplet stream was derived with. The droplet count is the number drawn
/// and lifetime and brush radius are in cells of the erosion's working grid
/// ([`crate::stages::erosion::CELL_M`] metres), as the pass ran them.
pub fn erosion(e: &ErosionParams, ran: &ErosionStats, seed_offset: i32) -> ErosionRecord {
    ErosionRecord {
        droplet_count: i32::try_from(ran.droplets).unwrap_or(i32::MAX),
        lifetime: i32::try_from(ran.lifetime_cells).unwrap_or(i32::MAX),
        brush_radius: i32::try_from(ran.brush_cells).unwrap_or(i32::MAX),
        seed_offset,
        dials: e.dials,
        crater: ErosionCrater::Modes(e.crater),
    }
}
