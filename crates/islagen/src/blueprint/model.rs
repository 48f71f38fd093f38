//! The typed, in-memory blueprint: what a `.dat` file means, independent of its byte layout.
//!
//! Grids are `ndarray::Array2` indexed `[x, y]` in standard layout, which is exactly the
//! file's pixel order (X outer, Y inner). Every grid is MapSize × MapSize; the writer checks it.

use ndarray::Array2;
use serde::Serialize;

use super::format::{Biome, RoadTier, Salinity, TownTier, WaterBodyType};
use crate::dials::{CraterGuard, DropletDials};

/// The PRMS section: the resolved generation inputs and the file's provenance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    /// The resolved seed (0 on a re-encoded v1 file).
    pub world_seed: i32,
    /// Pixels along each side of every grid.
    pub map_size: i32,
    /// Crater radius as configured (−1 on a re-encoded v1 file).
    pub crater_radius: f32,
    /// Town density multiplier (−1 on a re-encoded v1 file).
    pub density_multiplier: f32,
    /// Impact centre X in pixels (−1 on a re-encoded v1 file).
    pub impact_center_x: f32,
    /// Impact centre Y in pixels (−1 on a re-encoded v1 file).
    pub impact_center_y: f32,
    /// When the file was written (RFC 3339, UTC). Provenance: may differ between runs.
    pub generated_utc: String,
    /// The generator's short git hash, or "". Provenance: may differ between builds.
    pub generator_git_hash: String,
}

impl Params {
    /// The sentinel params a v2 file carries when its source was a v1 file, which records no
    /// generation inputs; MapSize is always real.
    pub fn sentinel(map_size: i32) -> Params {
        Params {
            world_seed: 0,
            map_size,
            crater_radius: -1.0,
            density_multiplier: -1.0,
            impact_center_x: -1.0,
            impact_center_y: -1.0,
            generated_utc: String::new(),
            generator_git_hash: String::new(),
        }
    }

    /// Stamps provenance that describes a file written now by this build.
    pub fn stamp_provenance(&mut self) {
        self.generated_utc =
            humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        self.generator_git_hash = crate::GIT_HASH.to_string();
    }

    /// True when two params agree on everything but provenance.
    pub fn same_inputs(&self, other: &Params) -> bool {
        self.world_seed == other.world_seed
            && self.map_size == other.map_size
            && self.crater_radius.to_bits() == other.crater_radius.to_bits()
            && self.density_multiplier.to_bits() == other.density_multiplier.to_bits()
            && self.impact_center_x.to_bits() == other.impact_center_x.to_bits()
            && self.impact_center_y.to_bits() == other.impact_center_y.to_bits()
    }
}

/// One placed town.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Town {
    /// X in pixels.
    pub x: f32,
    /// Y in pixels.
    pub y: f32,
    /// Tier.
    pub tier: TownTier,
    /// Whether the road topology's continental loop joins this town (not carried by v1).
    pub is_highway_node: bool,
}

/// A road polyline in pixel coordinates.
pub type RoadPath = Vec<[f32; 2]>;

/// Roads by tier; each tier is a list of polylines.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Roads {
    /// Highway paths (RDHW).
    pub highway: Vec<RoadPath>,
    /// Branch paths (RDBR).
    pub branch: Vec<RoadPath>,
    /// Rugged paths (RDRG).
    pub rugged: Vec<RoadPath>,
    /// Trail paths (RDTL).
    pub trail: Vec<RoadPath>,
}

impl Roads {
    /// The paths of one tier.
    pub fn tier(&self, tier: RoadTier) -> &Vec<RoadPath> {
        match tier {
            RoadTier::Highway => &self.highway,
            RoadTier::Branch => &self.branch,
            RoadTier::Rugged => &self.rugged,
            RoadTier::Trail => &self.trail,
        }
    }

    /// The paths of one tier, mutably.
    pub fn tier_mut(&mut self, tier: RoadTier) -> &mut Vec<RoadPath> {
        match tier {
            RoadTier::Highway => &mut self.highway,
            RoadTier::Branch => &mut self.branch,
            RoadTier::Rugged => &mut self.rugged,
            RoadTier::Trail => &mut self.trail,
        }
    }
}

/// TCRV base fields (every curveVersion).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CurveBase {
    /// Knots K1..K4 (input heights).
    pub knots: [f32; 4],
    /// The per-seed (v2+) raw pre-curve maximum the summit spike is normalised by.
    pub spike_max: f32,
    /// Sea level the curve was built around.
    pub sea: f32,
    /// Lowland ("orange") ceiling.
    pub orange_ceil: f32,
    /// Red ceiling: the top of the band the detail passes may not reach below.
    pub red_ceil: f32,
    /// Foothill bench (v4+: base anchor).
    pub bench_lo: f32,
    /// Plateau (v4+: base anchor).
    pub bench_hi: f32,
    /// Summit cap.
    pub peak_cap: f32,
    /// Slope of the curve's tail above the last knot.
    pub tail_slope: f32,
}

/// TCRV modulation extension (curveVersion ≥ 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CurveModulation {
    /// ± bench elevation amplitude.
    pub bench_amp: f32,
    /// ± plateau elevation amplitude.
    pub plateau_amp: f32,
    /// Lower end of the shelf-strength blend.
    pub shelf_span_min: f32,
    /// Upper end of the shelf-strength blend.
    pub shelf_span_max: f32,
    /// Elevation field frequency, undulations per island width.
    pub elev_freq_islands: f32,
    /// Strength field frequency, undulations per island width.
    pub strength_freq_islands: f32,
    /// Seed offset of the bench field.
    pub bench_seed_offset: i32,
    /// Seed offset of the plateau field.
    pub plateau_seed_offset: i32,
    /// Seed offset of the strength field.
    pub strength_seed_offset: i32,
}

/// TCRV preset extension (curveVersion ≥ 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CurvePreset {
    /// 1 = compact, 2 = balanced.
    pub preset_id: u8,
    /// Knot K5.
    pub k5: f32,
    /// Knot K6.
    pub k6: f32,
}

/// The TCRV record. Which extensions are present is fixed by `version`: `modulation` iff ≥ 4,
/// `preset` iff ≥ 5 (the writer refuses a record that disagrees with its own version).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CurveRecord {
    /// curveVersion.
    pub version: u16,
    /// Base fields.
    pub base: CurveBase,
    /// Modulation extension.
    pub modulation: Option<CurveModulation>,
    /// Preset extension.
    pub preset: Option<CurvePreset>,
}

/// The TDTL record, detailVersion 2 (the only body this reader understands), is the detail
/// dials as applied.
pub use crate::dials::DetailDials;

/// How an EROS record treats the crater surrounds; the shape depends on erosionVersion.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum ErosionCrater {
    /// v2: one exclusion radius factor.
    Exclusion {
        /// craterExclFactor.
        factor: f32,
    },
    /// v3: a protected core, a feather radius, and the mode (craterCoreFactor,
    /// craterFeatherFactor, craterMode).
    Modes(CraterGuard),
}

/// The EROS record (erosionVersion 2 or 3; other versions are skipped on read).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ErosionRecord {
    /// Droplets simulated.
    pub droplet_count: i32,
    /// Steps per droplet at most.
    pub lifetime: i32,
    /// Brush radius in cells.
    pub brush_radius: i32,
    /// PCG32 seed offset from the resolved seed.
    pub seed_offset: i32,
    /// The droplets' physical dials, in the record's order.
    #[serde(flatten)]
    pub dials: DropletDials,
    /// Crater handling; `Exclusion` is written as v2, `Modes` as v3.
    pub crater: ErosionCrater,
}

impl ErosionRecord {
    /// The erosionVersion this record is written as.
    pub fn version(&self) -> u16 {
        match self.crater {
            ErosionCrater::Exclusion { .. } => 2,
            ErosionCrater::Modes(_) => 3,
        }
    }
}

/// One WBTB entry.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct WaterBody {
    /// The id used in WBID.
    pub id: u16,
    /// Ocean, lake or river reach.
    pub kind: WaterBodyType,
    /// Fresh or salt.
    pub salinity: Salinity,
    /// Surface level, raw height units.
    pub surface_level: f32,
    /// Pixels in the body.
    pub pixel_count: i32,
    /// Pixel centroid X.
    pub centroid_x: f32,
    /// Pixel centroid Y.
    pub centroid_y: f32,
}

/// RIVR: the river network as vectors (islagen's section, registered in docs/FORMAT.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RiverNetwork {
    /// The channel-start catchment as applied, km².
    pub catchment_km2: f32,
    /// The width multiplier as applied.
    pub width_scale: f32,
    /// The river density multiplier as applied.
    pub density: f32,
    /// The rivers, trunk streams and tributaries each their own.
    pub rivers: Vec<River>,
}

/// One river of RIVR: a centreline from its source (or where it leaves a larger river's
/// catchment) to its mouth or confluence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct River {
    /// Strahler order (1 = a headwater stream).
    pub order: u8,
    /// WBID ids of the reaches it covers, upstream to downstream.
    pub reaches: Vec<u16>,
    /// The centreline, upstream to downstream.
    pub points: Vec<RiverPoint>,
}

/// One centreline point of a [`River`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RiverPoint {
    /// Pixel X (a pixel's centre at x + 0.5, like TOWN and the roads).
    pub x: f32,
    /// Pixel Y.
    pub y: f32,
    /// Channel width here, metres.
    pub width_m: f32,
    /// Discharge here, m³/s.
    pub discharge_m3s: f32,
}

/// A whole blueprint. Optional sections are `None` when absent from the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Blueprint {
    /// PRMS.
    pub params: Params,
    /// HGTS: raw height units (1 raw = 251 m), `[x, y]`.
    pub heights: Array2<f32>,
    /// BIOM, `[x, y]`.
    pub biomes: Array2<Biome>,
    /// TOWN.
    pub towns: Vec<Town>,
    /// TCRV.
    pub curve: Option<CurveRecord>,
    /// TDTL (v2).
    pub detail: Option<DetailDials>,
    /// EROS (v2 or v3).
    pub erosion: Option<ErosionRecord>,
    /// WBID: 0 dry, 1 ocean, 2.. lakes and river reaches.
    pub water_ids: Option<Array2<u16>>,
    /// WBTB.
    pub water_bodies: Option<Vec<WaterBody>>,
    /// WSRF: quantised levels, see [`super::format::encode_water_level`].
    pub water_surface: Option<WaterSurface>,
    /// RIVR.
    pub rivers: Option<RiverNetwork>,
    /// SHPE: the masks the world was shaped by (no section when empty).
    pub shape: Vec<ShapeInput>,
    /// RDHW / RDBR / RDRG / RDTL.
    pub roads: Roads,
}

/// One file a world was shaped by (an SHPE entry): enough to know whether a file at hand is the
/// one, and so to regenerate the world from its config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShapeInput {
    /// The config key that named it (`IslandMask`).
    pub key: String,
    /// SHA-256 of the file's bytes, 64 lowercase hex digits.
    pub sha256: String,
    /// The file's name (without its folder).
    pub file: String,
}

/// WSRF, every pixel's water surface level (quantised, see
/// [`super::format::encode_water_level`]; [`super::format::WSRF_NO_WATER`] where dry).
#[derive(Clone, Debug, PartialEq)]
pub enum WaterSurface {
    /// As a file holds it: any level at any pixel, `[x, y]`.
    Grid(Array2<u16>),
    /// As a generated world makes it: each pixel its water body's WBTB level, none where WBID
    /// is 0. The writer makes the section's bytes from WBID and WBTB as it writes them, so no
    /// grid is ever held (2 bytes a pixel).
    PerBody,
}

impl Blueprint {
    /// Which WBID ids WBTB lists as rivers, indexed by id (65 536 entries; all false without
    /// WBTB): [`super::format::river_body_ids`] of this blueprint's bodies.
    pub fn river_body_ids(&self) -> Vec<bool> {
        let bodies = self.water_bodies.iter().flatten();
        super::format::river_body_ids(bodies.map(|b| (b.id, b.kind)))
    }

    /// WSRF at pixel (x, y), if the blueprint has it.
    pub fn water_surface_at(&self, x: usize, y: usize) -> Option<u16> {
        match self.water_surface.as_ref()? {
            WaterSurface::Grid(g) => Some(g[[x, y]]),
            WaterSurface::PerBody => {
                let id = self.water_ids.as_ref()?[[x, y]];
                Some(
                    self.surface_levels()
                        .get(usize::from(id))
                        .copied()
                        .unwrap_or(0),
                )
            }
        }
    }

    /// WSRF as a grid (made from WBID and WBTB for [`WaterSurface::PerBody`]).
    pub fn water_surface_grid(&self) -> Option<std::borrow::Cow<'_, Array2<u16>>> {
        match self.water_surface.as_ref()? {
            WaterSurface::Grid(g) => Some(std::borrow::Cow::Borrowed(g)),
            WaterSurface::PerBody => {
                let levels = self.surface_levels();
                let ids = self.water_ids.as_ref()?;
                Some(std::borrow::Cow::Owned(ids.mapv(|id| {
                    levels.get(usize::from(id)).copied().unwrap_or(0)
                })))
            }
        }
    }

    /// Each WBID's quantised surface level, indexed by id (id 0, dry: none; an id WBTB does
    /// not list, or a level WSRF cannot hold: none either).
    pub fn surface_levels(&self) -> Vec<u16> {
        let bodies = self.water_bodies.as_deref().unwrap_or_default();
        let top = bodies.iter().map(|b| usize::from(b.id)).max().unwrap_or(0);
        let mut levels = vec![super::format::WSRF_NO_WATER; top + 1];
        for b in bodies {
            levels[usize::from(b.id)] = super::format::encode_water_level(b.surface_level)
                .unwrap_or(super::format::WSRF_NO_WATER);
        }
        levels
    }

    /// Whether pixel (x, y) is water: WBID when the file has water sections, else BIOM's Ocean
    /// and Lake (the same set by construction in generated worlds).
    pub fn is_water(&self, x: usize, y: usize) -> bool {
        match &self.water_ids {
            Some(ids) => ids[[x, y]] != 0,
            None => matches!(self.biomes[[x, y]], Biome::Ocean | Biome::Lake),
        }
    }

    /// MapSize as a length.
    pub fn side(&self) -> usize {
        self.params.map_size.max(0) as usize
    }
}
