//! Towns: tiered placement — one Capitol, the Hubs (the highway nodes the continental road loop
//! will join, plus the snow hub in the highlands that the mountain branch will reach), Villages,
//! Outposts and POIs.
//!
//! Towns are chosen among candidate sites on a fixed [`SITES`] × [`SITES`] grid of the
//! normalised map, scored on the *smooth terrain* — the island without its finest noise octaves,
//! through the height curve and the biome zoning, a function of the normalised position alone
//! ([`SmoothSite`]): its height (and so the slope between neighbouring sites, in metres per
//! metre), its biome, its distance to the smooth coast. When the fluvial relief ran, a site is
//! as steep as the smooth terrain or the mean slope of the carved landscape within
//! [`FOOTPRINT_M`] ([`Ground`], on the relief's own grid), whichever is steeper, so no town is
//! chosen on a valley wall. Nothing in a score depends on the pixel grid, so a seed's towns are
//! the same at every MapSize. The real map has the last word on where a town may stand: its
//! pixel and the eight around it must be dry (no town in water, not even a puddle), no water
//! may lie within its footprint (a river through a town's pad would cut it in two, its banks as
//! steep as the channel is deep), on the mainland for settlements (POIs may take islets) and
//! outside the crater (except POIs). The ground under each town is then graded to its tier's
//! slope ([`super::grading`]).
//!
//! For each tier in turn the admissible sites — slope under the tier's limit, a biome the tier
//! accepts, at least [`SHORE_SITES`] from the smooth coast — are ranked by flatness, nearness to
//! water (peaking a little inland), the tier's biome preference, nearness to the island's centre
//! (the Capitol) and a seed-drawn jitter (small for the Capitol and Hubs, large for POIs, which
//! should scatter), and taken best first while they keep the tier's spacing (a fraction of
//! MapSize) from every town already placed.
//!
//! **Pinned towns** ([`Pinned`], a designer's TownPins) are placed first, exactly where pinned,
//! and count towards their tier's number: the generator places the rest around them, keeping
//! its spacing from them. A pin in water, or a settlement's pin off the mainland (the roads
//! could not reach it) or in the crater, is refused with a [`PinError`] naming it. Pinned
//! Capitols and Hubs join the continental loop.
//!
//! Counts per tier scale with the land area (in sites, so also MapSize-free) and the
//! DensityMultiplier; the Capitol is always one, and at least three loop hubs are placed when
//! the island has room, so the continental loop is a ring.

use ndarray::Array2;
use serde::Serialize;

use super::crater::{Crater, CARVE_FACTOR};
use crate::blueprint::{Biome, Town, TownTier};
use crate::grid::noise::smoothstep;

/// Candidate sites per side of the normalised map.
pub const SITES: usize = 256;
/// Distance to water (in sites) below which no town stands.
pub const SHORE_SITES: f32 = 2.0;
/// Land sites of a typical island at density 1: the reference for tier counts.
const REFERENCE_LAND_SITES: f32 = 25_000.0;

/// One tier's rules.
struct Rule {
    tier: TownTier,
    /// Sites at the reference land area and density 1.
    count: f32,
    /// Least distance to any placed town, fraction of MapSize.
    spacing: f32,
    /// Steepest admissible slope, metres per metre.
    max_slope: f32,
    /// Weight of nearness to water in the score.
    water: f32,
    /// Biomes the tier accepts, each with a preference in [0, 1].
    biomes: &'static [(Biome, f32)],
    /// Whether the crater's rim is admissible (its floor is water).
    crater_ok: bool,
    /// Whether offshore islets are admissible (else the mainland only, where roads can reach).
    islets_ok: bool,
    /// Weight of nearness to the island's centre in the score.
    central: f32,
    /// Weight of the seed-drawn jitter: small where terrain should decide (Capitol, Hubs), large
    /// where scattering matters more than the best spot (POIs).
    jitter: f32,
}

const LOWLAND: &[(Biome, f32)] = &[
    (Biome::Grassland, 1.0),
    (Biome::Forest, 0.7),
    (Biome::Beach, 0.4),
    (Biome::Foothills, 0.5),
];

const RULES: [Rule; 5] = [
    Rule {
        tier: TownTier::Capitol,
        count: 1.0,
        spacing: 0.0,
        max_slope: 0.10,
        water: 1.0,
        biomes: &[(Biome::Grassland, 1.0), (Biome::Forest, 0.6)],
        crater_ok: false,
        islets_ok: false,
        jitter: 0.35,
        central: 1.0,
    },
    Rule {
        tier: TownTier::Hub,
        count: 5.0,
        spacing: 0.17,
        max_slope: 0.12,
        water: 0.6,
        biomes: LOWLAND,
        crater_ok: false,
        islets_ok: false,
        jitter: 0.35,
        central: 0.0,
    },
    Rule {
        tier: TownTier::Village,
        count: 12.0,
        spacing: 0.075,
        max_slope: 0.15,
        water: 0.8,
        biomes: LOWLAND,
        crater_ok: false,
        islets_ok: false,
        jitter: 0.6,
        central: 0.0,
    },
    Rule {
        tier: TownTier::Outpost,
        count: 18.0,
        spacing: 0.055,
        max_slope: 0.30,
        water: 0.2,
        biomes: &[
            (Biome::Foothills, 1.0),
            (Biome::Plateau, 1.0),
            (Biome::Mountain, 0.6),
            (Biome::Forest, 0.6),
            (Biome::Grassland, 0.3),
        ],
        crater_ok: false,
        islets_ok: false,
        jitter: 1.0,
        central: 0.0,
    },
    Rule {
        tier: TownTier::Poi,
        count: 26.0,
        spacing: 0.04,
        max_slope: 0.60,
        water: 0.0,
        biomes: &[
            (Biome::Snow, 1.0),
            (Biome::Mountain, 0.8),
            (Biome::Plateau, 0.5),
            (Biome::Forest, 0.5),
            (Biome::Foothills, 0.4),
            (Biome::Grassland, 0.3),
        ],
        crater_ok: true,
        islets_ok: true,
        jitter: 2.0,
        central: 0.0,
    },
];

/// The snow hub's biomes, most wanted first: the white plateau, else the highest ground.
const SNOW_HUB: &[(Biome, f32)] = &[
    (Biome::Plateau, 1.0),
    (Biome::Snow, 0.6),
    (Biome::Mountain, 0.5),
    (Biome::Foothills, 0.3),
];

/// What the town stage reads.
pub struct TownInputs<'a> {
    /// The resolved seed.
    pub seed: i32,
    /// The smooth terrain at a normalised position: what sites are scored on.
    pub smooth: &'a (dyn Fn(f32, f32) -> SmoothSite + Sync),
    /// WBID, `[x, y]`.
    pub water_ids: &'a Array2<u16>,
    /// 1 on the mainland, `[x, y]`.
    pub mainland: &'a Array2<u8>,
    /// The crater.
    pub crater: &'a Crater,
    /// DensityMultiplier.
    pub density: f32,
    /// The carved landscape, when the fluvial relief ran: a site is as steep as the smooth
    /// terrain or the valleys cut into it, whichever is steeper.
    pub ground: Option<Ground<'a>>,
    /// Towns a designer pinned, placed first.
    pub pins: &'a [Pinned],
}

/// A town a designer pinned.
#[derive(Clone, Debug, PartialEq)]
pub struct Pinned {
    /// Where: the normalised position, u east and v south, 0 ..= 1.
    pub at: [f32; 2],
    /// Its tier.
    pub tier: TownTier,
    /// How an error names it (`pin 2 ("Port Royal")`).
    pub label: String,
}

/// A pinned town that cannot stand where it was pinned.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("TownPins: {label}, a {tier} at ({x_m:.1}, {y_m:.1}) m, {rule}")]
pub struct PinError {
    /// The pin.
    pub label: String,
    /// Its tier's label.
    pub tier: &'static str,
    /// Where, in the world's local metres (x east, y north).
    pub x_m: f32,
    /// See `x_m`.
    pub y_m: f32,
    /// The rule it breaks.
    pub rule: &'static str,
}

/// Heights over the whole world on a square grid of its own (the fluvial relief's landscape
/// grid: the same at every MapSize), metres, `x * side + y`.
#[derive(Clone, Copy)]
pub struct Ground<'a> {
    /// The heights.
    pub metres: &'a [f32],
    /// Cells a side.
    pub side: usize,
}

/// The radius of a town's footprint, metres: a site's ground slope is the mean over it.
pub const FOOTPRINT_M: f32 = 25.0;

impl Ground<'_> {
    /// The mean slope (metres per metre, central differences between neighbouring cells) of
    /// the cells whose centres lie within [`FOOTPRINT_M`] of normalised position (u, v).
    fn mean_slope(&self, u: f32, v: f32) -> f32 {
        let n = self.side;
        let cell = crate::units::WORLD_SIZE_M / n as f32;
        let at = |i: usize, j: usize| self.metres[i * n + j];
        let (cx, cy) = (u * n as f32 - 0.5, v * n as f32 - 0.5);
        let reach = FOOTPRINT_M / cell;
        let span = |c: f32| {
            let lo = (c - reach).ceil().max(1.0) as usize;
            let hi = ((c + reach).floor() as usize).min(n - 2);
            lo..=hi
        };
        let (mut sum, mut count) = (0.0f32, 0u32);
        for i in span(cx) {
            for j in span(cy) {
                if (i as f32 - cx).hypot(j as f32 - cy) > reach {
                    continue;
                }
                let gx = at(i + 1, j) - at(i - 1, j);
                let gy = at(i, j + 1) - at(i, j - 1);
                sum += gx.hypot(gy) / (2.0 * cell);
                count += 1;
            }
        }
        if count == 0 {
            0.0
        } else {
            sum / count as f32
        }
    }
}

/// The smooth terrain at one position: the island without its finest noise octaves, through
/// the height curve and the biome zoning — a function of the normalised position alone.
#[derive(Clone, Copy, Debug)]
pub struct SmoothSite {
    /// Metres above sea (negative under it).
    pub metres: f32,
    /// The biome there, `None` under sea.
    pub biome: Option<Biome>,
}

/// Towns per tier, and the land they were chosen from.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TownStats {
    /// Capitol, Hub, Village, Outpost, POI counts placed.
    pub placed: [usize; 5],
    /// Counts the land area asked for.
    pub wanted: [usize; 5],
    /// Dry candidate sites.
    pub land_sites: usize,
}

/// One candidate site, described by the smooth terrain only.
#[derive(Clone, Copy, Debug)]
struct Site {
    metres: f32,
    /// The smooth terrain's biome at the site (None: under sea).
    biome: Option<Biome>,
    slope: f32,
    /// Distance to the smooth terrain's water, sites.
    water_distance: f32,
}

/// The least distance (fraction of MapSize, at DensityMultiplier 1) a town of `tier` keeps from
/// every town placed before it; denser settings divide it by √density.
pub fn spacing(tier: TownTier) -> f32 {
    RULES
        .iter()
        .find(|r| r.tier == tier)
        .map_or(0.0, |r| r.spacing)
}

/// The steepest ground (metres per metre) a town of `tier` stands on.
pub fn max_slope(tier: TownTier) -> f32 {
    RULES
        .iter()
        .find(|r| r.tier == tier)
        .map_or(0.0, |r| r.max_slope)
}

/// A seed-drawn jitter in [0, 1) for a site and tier (splitmix of the three).
fn jitter(seed: i32, tier: usize, site: usize) -> f32 {
    crate::seed::item_unit(seed, "towns", (tier as u64) << 24 ^ site as u64)
}

/// The site grid on the smooth terrain.
fn sites(inp: &TownInputs) -> Vec<Site> {
    let mut out: Vec<Site> = (0..SITES * SITES)
        .map(|k| {
            let (i, j) = (k / SITES, k % SITES);
            let (u, v) = (
                (i as f32 + 0.5) / SITES as f32,
                (j as f32 + 0.5) / SITES as f32,
            );
            let smooth = (inp.smooth)(u, v);
            // The crater's bay is water on every map; the smooth terrain does not know it, so
            // a site whose centre lies in the carve counts as water here, not only where its
            // pixels happen to be.
            let n = inp.water_ids.dim().0 as f32;
            let in_bay = inp.crater.relative_distance_at(u * n, v * n) < CARVE_FACTOR;
            Site {
                metres: smooth.metres,
                biome: smooth.biome.filter(|_| !in_bay),
                slope: 0.0,
                water_distance: 0.0,
            }
        })
        .collect();
    // Slope between neighbouring sites' heights: metres per metre.
    let site_m = crate::units::WORLD_SIZE_M / SITES as f32;
    let at = |i: usize, j: usize| out[i * SITES + j].metres;
    let slopes: Vec<f32> = (0..SITES * SITES)
        .map(|k| {
            let (i, j) = (k / SITES, k % SITES);
            let (il, ir) = (i.saturating_sub(1), (i + 1).min(SITES - 1));
            let (jl, jr) = (j.saturating_sub(1), (j + 1).min(SITES - 1));
            let gx = (at(ir, j) - at(il, j)) / ((ir - il).max(1) as f32 * site_m);
            let gy = (at(i, jr) - at(i, jl)) / ((jr - jl).max(1) as f32 * site_m);
            gx.hypot(gy)
        })
        .collect();
    let dist = chamfer(out.iter().map(|s| {
        if s.biome.is_none() {
            0.0
        } else {
            f32::INFINITY
        }
    }));
    for (k, s) in out.iter_mut().enumerate() {
        s.slope = slopes[k];
        s.water_distance = dist[k];
        if let (Some(ground), Some(_)) = (&inp.ground, s.biome) {
            let (i, j) = (k / SITES, k % SITES);
            let (u, v) = (
                (i as f32 + 0.5) / SITES as f32,
                (j as f32 + 0.5) / SITES as f32,
            );
            s.slope = s.slope.max(ground.mean_slope(u, v));
        }
    }
    out
}

/// Whether a town may stand at pixel (x, y) of the real map: the pixel and its eight neighbours
/// dry, on the mainland unless islets are allowed, outside the crater unless it is allowed.
fn stands(inp: &TownInputs, rule: &Rule, x: usize, y: usize) -> bool {
    let n = inp.water_ids.dim().0;
    let (x0, x1) = (x.saturating_sub(1), (x + 1).min(n - 1));
    let (y0, y1) = (y.saturating_sub(1), (y + 1).min(n - 1));
    let dry = (x0..=x1).all(|xx| (y0..=y1).all(|yy| inp.water_ids[[xx, yy]] == 0));
    dry && (rule.islets_ok || inp.mainland[[x, y]] == 1)
        && (rule.crater_ok || inp.crater.distance(x, y) > inp.crater.radius_px)
}

/// The pixel nearest site `k`'s centre, within the site's own block, where a town may stand —
/// so a puddle or a coastline that a finer map draws a pixel differently moves a town by less
/// than a site instead of removing the site. Ties go to the first in scan order.
fn stand_in_site(inp: &TownInputs, rule: &Rule, k: usize) -> Option<(usize, usize)> {
    let n = inp.water_ids.dim().0;
    let (i, j) = (k / SITES, k % SITES);
    let block = |i: usize| {
        (
            i * n / SITES,
            ((i + 1) * n / SITES).max(i * n / SITES + 1).min(n),
        )
    };
    let ((x0, x1), (y0, y1)) = (block(i), block(j));
    let (cx, cy) = (
        (i as f32 + 0.5) / SITES as f32 * n as f32,
        (j as f32 + 0.5) / SITES as f32 * n as f32,
    );
    let mut best: Option<(f32, usize, usize)> = None;
    for x in x0..x1 {
        for y in y0..y1 {
            let d = (x as f32 + 0.5 - cx).hypot(y as f32 + 0.5 - cy);
            if best.is_none_or(|(b, _, _)| d < b) && stands(inp, rule, x, y) {
                best = Some((d, x, y));
            }
        }
    }
    // A river or lake through the footprint would cut the town's pad in two, and its banks are
    // as steep as the channel is deep: such a site is not admissible at all.
    best.filter(|&(_, x, y)| footprint_dry(inp, x, y))
        .map(|(_, x, y)| (x, y))
}

/// Whether no water lies within [`FOOTPRINT_M`] of pixel (x, y)'s centre.
fn footprint_dry(inp: &TownInputs, x: usize, y: usize) -> bool {
    let n = inp.water_ids.dim().0;
    let reach = FOOTPRINT_M * n as f32 / crate::units::WORLD_SIZE_M;
    let r = reach.floor() as usize;
    let (x0, x1) = (x.saturating_sub(r), (x + r).min(n - 1));
    let (y0, y1) = (y.saturating_sub(r), (y + r).min(n - 1));
    (x0..=x1).all(|xx| {
        (y0..=y1).all(|yy| {
            let (dx, dy) = (xx.abs_diff(x) as f32, yy.abs_diff(y) as f32);
            dx.hypot(dy) > reach || inp.water_ids[[xx, yy]] == 0
        })
    })
}

/// A two-pass 3-4 chamfer distance transform (in sites) on the site grid, from the given start
/// values (0 at a source, ∞ elsewhere).
fn chamfer(start: impl Iterator<Item = f32>) -> Vec<f32> {
    let mut dist: Vec<f32> = start.collect();
    let (a, d) = (1.0f32, std::f32::consts::SQRT_2);
    let at = |i: usize, j: usize| i * SITES + j;
    for i in 0..SITES {
        for j in 0..SITES {
            let mut best = dist[at(i, j)];
            if i > 0 {
                best = best.min(dist[at(i - 1, j)] + a);
                if j > 0 {
                    best = best.min(dist[at(i - 1, j - 1)] + d);
                }
                if j + 1 < SITES {
                    best = best.min(dist[at(i - 1, j + 1)] + d);
                }
            }
            if j > 0 {
                best = best.min(dist[at(i, j - 1)] + a);
            }
            dist[at(i, j)] = best;
        }
    }
    for i in (0..SITES).rev() {
        for j in (0..SITES).rev() {
            let mut best = dist[at(i, j)];
            if i + 1 < SITES {
                best = best.min(dist[at(i + 1, j)] + a);
                if j > 0 {
                    best = best.min(dist[at(i + 1, j - 1)] + d);
                }
                if j + 1 < SITES {
                    best = best.min(dist[at(i + 1, j + 1)] + d);
                }
            }
            if j + 1 < SITES {
                best = best.min(dist[at(i, j + 1)] + a);
            }
            dist[at(i, j)] = best;
        }
    }
    dist
}

/// The pinned towns, where they were pinned, each checked against the map.
fn pinned(inp: &TownInputs) -> Result<Vec<(Town, [f32; 2])>, PinError> {
    let n = inp.water_ids.dim().0;
    let pixel = |c: f32| ((c * n as f32) as usize).min(n - 1);
    inp.pins
        .iter()
        .map(|pin| {
            let [u, v] = pin.at;
            let (x, y) = (pixel(u), pixel(v));
            let rule = RULES.iter().find(|r| r.tier == pin.tier).expect("a rule per tier");
            let broken = if inp.water_ids[[x, y]] != 0 {
                Some("stands in water")
            } else if !rule.islets_ok && inp.mainland[[x, y]] != 1 {
                Some("is not on the mainland, where the roads reach (only a poi may be)")
            } else if !rule.crater_ok && inp.crater.distance(x, y) <= inp.crater.radius_px {
                Some("stands in the crater (only a poi may)")
            } else {
                None
            };
            if let Some(rule) = broken {
                return Err(PinError {
                    label: pin.label.clone(),
                    tier: pin.tier.label(),
                    x_m: u * crate::units::WORLD_SIZE_M,
                    y_m: (1.0 - v) * crate::units::WORLD_SIZE_M,
                    rule,
                });
            }
            let town = Town {
                x: u * n as f32,
                y: v * n as f32,
                tier: pin.tier,
                is_highway_node: matches!(pin.tier, TownTier::Capitol | TownTier::Hub),
            };
            Ok((town, pin.at))
        })
        .collect()
}

/// Places the towns: the pinned ones, then the rest of each tier's number around them.
pub fn towns(inp: &TownInputs) -> Result<(Vec<Town>, TownStats), PinError> {
    let mut placed = pinned(inp)?;
    let pinned_of = |tier: TownTier| inp.pins.iter().filter(|p| p.tier == tier).count();
    let sites = sites(inp);
    // Land measured on the smooth terrain, so the counts are the same at every MapSize.
    let land_sites = sites.iter().filter(|s| s.biome.is_some()).count();
    let area = land_sites as f32 / REFERENCE_LAND_SITES * inp.density.max(0.0);
    let mut stats = TownStats {
        land_sites,
        ..TownStats::default()
    };
    let position = |k: usize| {
        let (i, j) = (k / SITES, k % SITES);
        [
            (i as f32 + 0.5) / SITES as f32,
            (j as f32 + 0.5) / SITES as f32,
        ]
    };
    let place = |rule: &Rule,
                 biomes: &[(Biome, f32)],
                 wanted: usize,
                 highway: bool,
                 placed: &mut Vec<(Town, [f32; 2])>,
                 tier_index: usize|
     -> usize {
        let mut ranked: Vec<(f32, usize)> = sites
            .iter()
            .enumerate()
            .filter(|(_, s)| s.water_distance >= SHORE_SITES && s.slope <= rule.max_slope)
            .filter_map(|(k, s)| {
                let biome = s.biome?;
                let preference = biomes.iter().find(|(b, _)| *b == biome)?.1;
                let flat = 1.0 - s.slope / rule.max_slope;
                // Nearness to water: nothing at the shore limit, most two sites inland of it,
                // then fading over a dozen sites.
                let d = s.water_distance;
                let near = smoothstep(SHORE_SITES, SHORE_SITES + 2.0, d)
                    * (-(d - SHORE_SITES - 2.0).max(0.0) / 12.0).exp();
                let p = position(k);
                let centre = 1.0 - 2.0 * (p[0] - 0.5).hypot(p[1] - 0.5);

                let score = preference
                    + 0.8 * flat
                    + rule.water * near
                    + rule.central * centre
                    + rule.jitter * jitter(inp.seed, tier_index, k);
                Some((score, k))
            })
            .collect();
        ranked.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut taken = 0;
        for (_, k) in ranked {
            if taken == wanted {
                break;
            }
            let p = position(k);
            let spacing = rule.spacing / inp.density.max(0.1).sqrt();
            let clear = placed
                .iter()
                .all(|(_, q)| (p[0] - q[0]).hypot(p[1] - q[1]) >= spacing.max(0.02));
            if !clear {
                continue;
            }
            if let Some((x, y)) = stand_in_site(inp, rule, k) {
                placed.push((
                    Town {
                        x: x as f32 + 0.5,
                        y: y as f32 + 0.5,
                        tier: rule.tier,
                        is_highway_node: highway,
                    },
                    p,
                ));
                taken += 1;
            }
        }
        taken
    };
    for (t, rule) in RULES.iter().enumerate() {
        let wanted = match rule.tier {
            TownTier::Capitol => 1,
            TownTier::Hub => ((rule.count * area).round() as usize).max(3),
            _ => (rule.count * area).round() as usize,
        };
        stats.wanted[t] = wanted;
        let pinned = pinned_of(rule.tier);
        let more = wanted.saturating_sub(pinned);
        stats.placed[t] = pinned
            + match rule.tier {
                TownTier::Hub => {
                    // The snow hub first (the mountain branch's target, not on the loop), then
                    // the loop hubs.
                    let snow = place(rule, SNOW_HUB, 1, false, &mut placed, 5);
                    stats.wanted[t] += 1;
                    snow + place(rule, rule.biomes, more, true, &mut placed, t)
                }
                TownTier::Capitol => place(rule, rule.biomes, more, true, &mut placed, t),
                _ => place(rule, rule.biomes, more, false, &mut placed, t),
            };
    }
    Ok((placed.into_iter().map(|(t, _)| t).collect(), stats))
}
