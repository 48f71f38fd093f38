//! The dials that travel unchanged from the validated config through a stage into the
//! blueprint's record of them: one type each, so the config, the stage's parameters and the wire
//! record cannot drift apart. The config validates them ([`crate::config`]), the stages apply
//! them, and [`crate::blueprint`] writes and reads them in the order given here (its TDTL and
//! EROS sections, BLUEPRINT_FORMAT.md).

use serde::Serialize;

/// The terrain detail's dials as applied (the TDTL record, detailVersion 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DetailDials {
    /// Micro-relief amplitude, ± output metres.
    pub relief_amp_m: f32,
    /// Micro-relief frequency, undulations per island width.
    pub relief_freq_islands: f32,
    /// Micro-relief field's seed offset from the detail stage's seed.
    pub relief_seed_offset: i32,
    /// Shelf-edge shift amplitude, ± metres of input height; within `edge_max_shift_m`, which
    /// config validation guarantees.
    pub edge_amp_m: f32,
    /// Shelf-edge frequency, undulations per island width.
    pub edge_freq_islands: f32,
    /// Shelf-edge field's seed offset from the detail stage's seed.
    pub edge_seed_offset: i32,
    /// The curve's band-squeeze bound the amplitude was clamped to, metres of input height.
    pub edge_max_shift_m: f32,
}

/// The droplet erosion's physical dials (Erosion "v1"), in the EROS record's order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DropletDials {
    /// Most a cell may be carved, metres (ErosionCarveCap).
    pub carve_cap_m: f32,
    /// Most a cell may be built up, metres (ErosionDepositCap).
    pub deposit_cap_m: f32,
    /// No cell is carved below sea + this, metres (ErosionSeaMargin).
    pub sea_margin_m: f32,
    /// How much of its previous heading a droplet keeps, 0 ..= 1 (ErosionInertia).
    pub inertia: f32,
    /// Sediment capacity factor (ErosionCapacityFactor).
    pub capacity_factor: f32,
    /// Smallest drop the capacity counts, metres (ErosionMinSlope).
    pub min_slope_m: f32,
    /// Share of the capacity shortfall eroded per step (ErosionErodeRate).
    pub erode_rate: f32,
    /// Share of the excess sediment deposited per step (ErosionDepositRate).
    pub deposit_rate: f32,
    /// Water lost per step, a fraction (ErosionEvaporation).
    pub evaporation: f32,
    /// Speed gained per metre of drop (ErosionGravity).
    pub gravity: f32,
}

impl DropletDials {
    /// The ten values in the EROS record's order.
    pub fn to_array(&self) -> [f32; 10] {
        [
            self.carve_cap_m,
            self.deposit_cap_m,
            self.sea_margin_m,
            self.inertia,
            self.capacity_factor,
            self.min_slope_m,
            self.erode_rate,
            self.deposit_rate,
            self.evaporation,
            self.gravity,
        ]
    }

    /// The dials from the ten values in the EROS record's order.
    pub fn from_array(v: [f32; 10]) -> Self {
        let [carve_cap_m, deposit_cap_m, sea_margin_m, inertia, capacity_factor, min_slope_m, erode_rate, deposit_rate, evaporation, gravity] =
            v;
        Self {
            carve_cap_m,
            deposit_cap_m,
            sea_margin_m,
            inertia,
            capacity_factor,
            min_slope_m,
            erode_rate,
            deposit_rate,
            evaporation,
            gravity,
        }
    }
}

/// How erosion treats the crater outside its protected core (the CraterErosionMode key; the
/// EROS record's craterMode byte is the discriminant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum CraterErosionMode {
    /// "full": full strength immediately outside the core.
    Full = 0,
    /// "feather": ramped from zero at the core to full at the feather radius.
    Feather = 1,
}

impl CraterErosionMode {
    /// The mode with this wire value, if any.
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::Full),
            1 => Some(Self::Feather),
            _ => None,
        }
    }
}

/// How both erosion models spare the crater: nothing inside `core` × its radius changes, and
/// outside it erosion is at full strength (`Full`) or ramps up to full at `feather` × its radius.
/// In the EROS record's order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CraterGuard {
    /// Protected core, a factor of the crater radius (CraterErosionCore).
    pub core: f32,
    /// Feather outer radius, a factor of the crater radius (CraterErosionFeather).
    pub feather: f32,
    /// Full or feathered outside the core (CraterErosionMode).
    pub mode: CraterErosionMode,
}
