//! `islagen inspect`: a summary of any readable blueprint — its format and sections, params,
//! height range, biome histogram, towns by tier, roads by tier, water bodies by type (river
//! bodies counted as reaches) and the rivers of RIVR.

use serde::Serialize;

use crate::blueprint::format::{RoadTier, WaterBodyType};
use crate::blueprint::ShapeInput;
use crate::blueprint::{
    Biome, CurveRecord, DetailDials, ErosionRecord, Format, Loaded, Params, RiverNetwork,
    SectionInfo, TownTier,
};

/// Height statistics in raw units (1 raw = 251 m).
#[derive(Clone, Debug, Serialize)]
pub struct HeightStats {
    /// Lowest finite height.
    pub min: f32,
    /// Highest finite height.
    pub max: f32,
    /// Mean of finite heights.
    pub mean: f64,
    /// Pixels that are NaN or infinite.
    pub non_finite: u64,
}

/// A labelled count.
#[derive(Clone, Debug, Serialize)]
pub struct Count {
    /// What is counted.
    pub name: &'static str,
    /// How many.
    pub count: u64,
}

/// Roads of one tier.
#[derive(Clone, Debug, Serialize)]
pub struct RoadStats {
    /// The tier.
    pub tier: &'static str,
    /// Paths.
    pub paths: u64,
    /// Points over all paths.
    pub points: u64,
}

/// Water sections.
#[derive(Clone, Debug, Serialize)]
pub struct WaterStats {
    /// Bodies by type (from WBTB).
    pub bodies_by_type: Vec<Count>,
    /// Pixels with a nonzero WBID.
    pub wet_pixels: Option<u64>,
}

/// Rivers of one Strahler order.
#[derive(Clone, Debug, Serialize)]
pub struct OrderCount {
    /// The Strahler order (1 = a headwater stream).
    pub order: u8,
    /// Rivers of that order.
    pub rivers: u64,
}

/// The RIVR section.
#[derive(Clone, Debug, Serialize)]
pub struct RiverStats {
    /// Rivers.
    pub rivers: u64,
    /// Rivers per Strahler order, the orders present in ascending order.
    pub by_order: Vec<OrderCount>,
    /// Total centreline length, km (pixel distance × metres per pixel at this MapSize).
    pub length_km: f64,
    /// Distinct WBTB reach ids the rivers cover.
    pub reaches: u64,
    /// The widest channel width at any point, metres; `None` when no river has points.
    pub widest_m: Option<f32>,
    /// The channel-start catchment as applied, km².
    pub catchment_km2: f32,
    /// The width multiplier as applied.
    pub width_scale: f32,
    /// The river density multiplier as applied.
    pub density: f32,
}

impl RiverStats {
    /// The statistics of `network` on a map of `map_size` pixels a side.
    pub fn of(network: &RiverNetwork, map_size: usize) -> RiverStats {
        let mut orders = [0u64; 256];
        let mut reaches = std::collections::BTreeSet::new();
        let mut length_px = 0f64;
        let mut widest_m: Option<f32> = None;
        for river in &network.rivers {
            orders[usize::from(river.order)] += 1;
            reaches.extend(river.reaches.iter().copied());
            length_px += river
                .points
                .windows(2)
                .map(|w| f64::from(w[1].x - w[0].x).hypot(f64::from(w[1].y - w[0].y)))
                .sum::<f64>();
            for p in &river.points {
                widest_m = Some(widest_m.map_or(p.width_m, |w| w.max(p.width_m)));
            }
        }
        RiverStats {
            rivers: network.rivers.len() as u64,
            by_order: (0..=u8::MAX)
                .filter(|&o| orders[usize::from(o)] > 0)
                .map(|order| OrderCount {
                    order,
                    rivers: orders[usize::from(order)],
                })
                .collect(),
            length_km: length_px * f64::from(crate::units::metres_per_px(map_size)) / 1000.0,
            reaches: reaches.len() as u64,
            widest_m,
            catchment_km2: network.catchment_km2,
            width_scale: network.width_scale,
            density: network.density,
        }
    }
}

/// Everything `inspect` reports.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// v2 or v1.
    pub format: Format,
    /// File size.
    pub file_len: u64,
    /// v2 sections in file order.
    pub sections: Vec<SectionInfo>,
    /// PRMS (sentinel values for v1).
    pub params: Params,
    /// Pixels per side.
    pub map_size: i32,
    /// Heights.
    pub heights: HeightStats,
    /// Pixels per biome, every known biome listed.
    pub biomes: Vec<Count>,
    /// Towns per tier, every tier listed.
    pub towns_by_tier: Vec<Count>,
    /// Towns flagged as highway nodes.
    pub highway_nodes: u64,
    /// Roads per tier.
    pub roads: Vec<RoadStats>,
    /// Water sections, if any are present.
    pub water: Option<WaterStats>,
    /// RIVR, if present.
    pub rivers: Option<RiverStats>,
    /// SHPE: the masks the world was shaped by.
    pub shape: Vec<ShapeInput>,
    /// TCRV.
    pub curve: Option<CurveRecord>,
    /// TDTL.
    pub detail: Option<DetailDials>,
    /// EROS.
    pub erosion: Option<ErosionRecord>,
    /// Reader warnings.
    pub warnings: Vec<String>,
}

/// Builds the report of a loaded blueprint.
pub fn report(loaded: &Loaded) -> Report {
    let bp = &loaded.blueprint;
    let (mut min, mut max, mut sum, mut finite) = (f32::INFINITY, f32::NEG_INFINITY, 0f64, 0u64);
    for &h in bp.heights.iter() {
        if h.is_finite() {
            min = min.min(h);
            max = max.max(h);
            sum += f64::from(h);
            finite += 1;
        }
    }
    let total = bp.heights.len() as u64;
    let mut biome_counts = [0u64; Biome::COUNT];
    bp.biomes
        .iter()
        .for_each(|b| biome_counts[b.ordinal() as usize] += 1);
    let mut tier_counts = [0u64; TownTier::COUNT];
    bp.towns
        .iter()
        .for_each(|t| tier_counts[t.tier.ordinal() as usize] += 1);
    let water = (bp.water_ids.is_some() || bp.water_bodies.is_some() || bp.water_surface.is_some())
        .then(|| {
            let bodies = bp.water_bodies.as_deref().unwrap_or_default();
            let kinds = [
                (WaterBodyType::Ocean, "ocean"),
                (WaterBodyType::Lake, "lake"),
                (WaterBodyType::River, "river reach"),
            ];
            WaterStats {
                bodies_by_type: kinds
                    .iter()
                    .map(|(k, name)| Count {
                        name,
                        count: bodies.iter().filter(|b| b.kind == *k).count() as u64,
                    })
                    .collect(),
                wet_pixels: bp
                    .water_ids
                    .as_ref()
                    .map(|ids| ids.iter().filter(|&&id| id != 0).count() as u64),
            }
        });
    Report {
        format: loaded.format,
        file_len: loaded.file_len,
        sections: loaded.sections.clone(),
        params: bp.params.clone(),
        map_size: bp.params.map_size,
        heights: HeightStats {
            min: if finite > 0 { min } else { f32::NAN },
            max: if finite > 0 { max } else { f32::NAN },
            mean: if finite > 0 {
                sum / finite as f64
            } else {
                f64::NAN
            },
            non_finite: total - finite,
        },
        biomes: Biome::ALL
            .iter()
            .map(|b| Count {
                name: b.label(),
                count: biome_counts[b.ordinal() as usize],
            })
            .collect(),
        towns_by_tier: TownTier::ALL
            .iter()
            .map(|t| Count {
                name: t.label(),
                count: tier_counts[t.ordinal() as usize],
            })
            .collect(),
        highway_nodes: bp.towns.iter().filter(|t| t.is_highway_node).count() as u64,
        roads: RoadTier::ALL
            .iter()
            .map(|t| {
                let paths = bp.roads.tier(*t);
                RoadStats {
                    tier: t.label(),
                    paths: paths.len() as u64,
                    points: paths.iter().map(|p| p.len() as u64).sum(),
                }
            })
            .collect(),
        water,
        rivers: bp.rivers.as_ref().map(|n| RiverStats::of(n, bp.side())),
        shape: bp.shape.clone(),
        curve: bp.curve,
        detail: bp.detail,
        erosion: bp.erosion,
        warnings: loaded.warnings.iter().map(|w| w.to_string()).collect(),
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = &self.params;
        writeln!(f, "format      {:?} ({} bytes)", self.format, self.file_len)?;
        writeln!(f, "MapSize     {}", self.map_size)?;
        writeln!(f, "WorldSeed   {}", p.world_seed)?;
        writeln!(
            f,
            "crater      radius {} at ({}, {})",
            p.crater_radius, p.impact_center_x, p.impact_center_y
        )?;
        writeln!(f, "density     {}", p.density_multiplier)?;
        writeln!(
            f,
            "generated   {:?} by {:?}",
            p.generated_utc, p.generator_git_hash
        )?;
        if !self.sections.is_empty() {
            writeln!(f, "sections")?;
            for s in &self.sections {
                let status = match s.status {
                    crate::blueprint::SectionStatus::Parsed => String::new(),
                    crate::blueprint::SectionStatus::SkippedUnknownTag => {
                        "  (unknown tag, skipped)".into()
                    }
                    crate::blueprint::SectionStatus::SkippedUnknownVersion(v) => {
                        format!("  (version {v}, skipped)")
                    }
                };
                writeln!(
                    f,
                    "  {:<4}  offset {:>12}  length {:>12}{status}",
                    s.tag.name(),
                    s.offset,
                    s.length
                )?;
            }
        }
        let h = &self.heights;
        writeln!(
            f,
            "heights     {} .. {} raw (mean {:.4}; {} non-finite)",
            h.min, h.max, h.mean, h.non_finite
        )?;
        let pixels = (self.map_size as f64).powi(2);
        writeln!(f, "biomes")?;
        for b in self.biomes.iter().filter(|b| b.count > 0) {
            writeln!(
                f,
                "  {:<10} {:>12}  {:6.2} %",
                b.name,
                b.count,
                100.0 * b.count as f64 / pixels
            )?;
        }
        let towns: u64 = self.towns_by_tier.iter().map(|t| t.count).sum();
        writeln!(
            f,
            "towns       {towns} ({} highway nodes)",
            self.highway_nodes
        )?;
        for t in &self.towns_by_tier {
            writeln!(f, "  {:<10} {:>6}", t.name, t.count)?;
        }
        writeln!(f, "roads")?;
        for r in &self.roads {
            writeln!(
                f,
                "  {:<10} {:>6} paths {:>9} points",
                r.tier, r.paths, r.points
            )?;
        }
        match &self.water {
            Some(w) => {
                let bodies: Vec<String> = w
                    .bodies_by_type
                    .iter()
                    .map(|c| format!("{} {}", c.count, c.name))
                    .collect();
                let wet = w
                    .wet_pixels
                    .map_or("no WBID".into(), |n| format!("{n} wet pixels"));
                writeln!(f, "water       {} ({wet})", bodies.join(", "))?;
            }
            None => writeln!(f, "water       no water sections")?,
        }
        match &self.rivers {
            Some(r) => {
                let orders: Vec<String> = r
                    .by_order
                    .iter()
                    .map(|o| format!("order {}: {}", o.order, o.rivers))
                    .collect();
                let widest = r
                    .widest_m
                    .map_or("no points".into(), |w| format!("widest {w} m"));
                writeln!(
                    f,
                    "rivers      {} ({}), {:.2} km, {} reaches, {widest}",
                    r.rivers,
                    orders.join(", "),
                    r.length_km,
                    r.reaches
                )?;
                writeln!(
                    f,
                    "            catchment {} km², width ×{}, density ×{}",
                    r.catchment_km2, r.width_scale, r.density
                )?;
            }
            None => writeln!(f, "rivers      no RIVR section")?,
        }
        for s in &self.shape {
            writeln!(f, "shaped by   {} {} (SHA-256 {})", s.key, s.file, s.sha256)?;
        }
        if let Some(c) = &self.curve {
            writeln!(
                f,
                "curve       TCRV version {} (spikeMax {})",
                c.version, c.base.spike_max
            )?;
        }
        if let Some(d) = &self.detail {
            writeln!(
                f,
                "detail      TDTL relief ±{} m, edge shift {} m",
                d.relief_amp_m, d.edge_amp_m
            )?;
        }
        if let Some(e) = &self.erosion {
            writeln!(
                f,
                "erosion     EROS version {}: {} droplets × {} steps",
                e.version(),
                e.droplet_count,
                e.lifetime
            )?;
        }
        for w in &self.warnings {
            writeln!(f, "warning     {w}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blueprint::{River, RiverPoint};

    fn point(x: f32, y: f32, width_m: f32) -> RiverPoint {
        RiverPoint {
            x,
            y,
            width_m,
            discharge_m3s: 1.0,
        }
    }

    #[test]
    fn river_stats_count_orders_length_reaches_and_width() {
        let network = RiverNetwork {
            catchment_km2: 2.0,
            width_scale: 1.0,
            density: 1.0,
            rivers: vec![
                River {
                    order: 2,
                    reaches: vec![4, 5],
                    points: vec![point(0.0, 0.0, 3.0), point(3.0, 4.0, 9.5)],
                },
                River {
                    order: 1,
                    reaches: vec![5],
                    points: vec![point(10.0, 10.0, 1.0), point(10.0, 20.0, 2.0)],
                },
                River {
                    order: 1,
                    reaches: Vec::new(),
                    points: Vec::new(),
                },
            ],
        };
        // 1024 pixels a side: 8 m per pixel, so 5 + 10 px = 120 m
        let s = RiverStats::of(&network, 1024);
        assert_eq!(s.rivers, 3);
        let orders: Vec<(u8, u64)> = s.by_order.iter().map(|o| (o.order, o.rivers)).collect();
        assert_eq!(orders, [(1, 2), (2, 1)]);
        assert!((s.length_km - 0.120).abs() < 1e-9, "{}", s.length_km);
        assert_eq!(s.reaches, 2);
        assert_eq!(s.widest_m, Some(9.5));
        let empty = RiverStats::of(
            &RiverNetwork {
                rivers: Vec::new(),
                ..network
            },
            1024,
        );
        assert_eq!((empty.rivers, empty.widest_m), (0, None));
    }
}
