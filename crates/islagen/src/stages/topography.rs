//! Topography: the raw (uncurved) height of every pixel, with its offshore islets.
//!
//! height = fBm base + mountain spine − squircle falloff, then clamped under the Trench, then
//! raised by the islet field where the ocean is deep enough. All positions are normalised (see
//! [`crate::grid::noise`]), so the island is the same at every MapSize.
//!
//! Guarantees:
//! - **A guaranteed island.** The squircle distance is warped by at most ±[`COAST_WARP`] (a
//!   low-frequency field that makes the coast wander); beyond an unwarped distance of 1.5 the
//!   falloff alone outweighs the largest possible noise and spine, so the open ocean is ocean
//!   whatever the seed.
//! - **The Trench.** Within [`TRENCH_WIDTH`] of any map edge the height is clamped under sea
//!   level, deepening towards the edge: land never reaches the border and the island is clamped
//!   at about 90 % of the map width.
//! - **A rounded spine.** The spine's crest is built from [`smooth_abs`], and two ridges meet
//!   through a C¹ smooth maximum: no slope discontinuity.
//! - **Every seed its own island** (SpineVariation, CoastVariation, 0 ..= 1). The spine's axis is
//!   a seeded curve — off centre, turned from north–south, bent, its height peaking at a seeded
//!   place along it, on some seeds with a second lower ridge beside it — scaled on a fixed probe
//!   grid so every seed's summit stands as high as the original's. The outline's squircle is
//!   stretched, moved and domain-warped by low-frequency fields (capes, bays, lopsided and
//!   crescent islands), then scaled until the smooth island's land share on that grid is
//!   within `LAND_BAND`; the Trench's inner edge wanders inward only. At 0 / 0 every term is
//!   the original's: the original shapes (`scripts/variety.sh` prints the same figures).
//! - **The same island at every MapSize.** Every seeded choice is a function of the seed and the
//!   normalised position, probed on fixed grids, never of the pixel grid.
//! - **Islets by construction.** The islet lift acts only where the mainland's own height is at
//!   least [`MOAT_NEAR`] under sea (a depth moat) and at least [`ISLET_EDGE`] from the map edge
//!   (out of the Trench). Its threshold is the (1 − density)-quantile of the islet field's own
//!   lattice samples, so `density` is the fraction of that field above the threshold for every
//!   seed. `islet_zone` marks every pixel the lift could touch.
//! - **Masks a designer paints.** An IslandMask's half-white contour takes the squircle's
//!   place as the coast; a ReliefMask, blurred by [`RELIEF_BLUR`], takes the spine ridges'
//!   place (faded towards the coast and scaled like a seeded spine). Both are read in
//!   normalised coordinates on the probe lattice, so they shape the same island at every
//!   MapSize; the Trench and the islets hold as without them.

use ndarray::Array2;
use rayon::prelude::*;

use crate::formats::raster::Raster;
use crate::sea::SeaLevel;
use crate::grid::noise::{
    normalised, quantile, smooth_abs, smoothstep, Fbm, FineColumn, Interpolation, Lattice,
    PixelColumn, PixelReads, SplitFbm,
};

/// How far an IslandMask moves the outline distance between white (1 − span / 2, inland) and
/// black (1 + span / 2, open sea).
const MASK_SPAN: f32 = 1.0;
/// A ReliefMask is blurred with a Gaussian of this σ (fraction of the map side, 250 m at
/// 8192) on a [`RELIEF_CELLS`]² grid before it takes the spine's place, so a painted stroke
/// becomes a rounded ridge along it and a hard edge a slope, never a cliff.
pub const RELIEF_BLUR: f32 = 0.03;
/// Cells a side of the grid a ReliefMask is blurred on.
pub const RELIEF_CELLS: usize = 256;

/// Width of the Trench band along every map edge, as a fraction of MapSize.
pub const TRENCH_WIDTH: f32 = 0.05;
/// Depth under sea level, raw, that makes a pixel a moat: islets rise only beyond it.
pub const MOAT_NEAR: f32 = 0.05;
/// Depth under sea level, raw, from which the islet lift acts at full strength.
pub const MOAT_FAR: f32 = 0.10;
/// Distance from the map edge (fraction of MapSize) inside which no islet rises.
pub const ISLET_EDGE: f32 = 0.07;

/// Seed offsets from the stage's noise seed, one per field.
const BASE_SEED_OFFSET: i32 = 0;
const ISLET_SEED_OFFSET: i32 = 7_919;
const COAST_SEED_OFFSET: i32 = 7_927;
const WARP_X_SEED_OFFSET: i32 = 7_933;
const WARP_Y_SEED_OFFSET: i32 = 7_937;
const TRENCH_SEED_OFFSET: i32 = 7_949;

/// Outline warp (CoastVariation 1): the island's coordinates are displaced by up to this much
/// (fraction of the half-map) by two low-frequency fields, making capes, bays and lopsided or
/// crescent islands; the axes are stretched by up to ±[`AXIS_JITTER`] and the centre moved by
/// up to [`CENTRE_JITTER`] per seed.
const OUTLINE_WARP: f32 = 0.40;
const OUTLINE_FREQUENCY: f32 = 1.6;
const OUTLINE_OCTAVES: i32 = 2;
const AXIS_JITTER: f32 = 0.15;
const CENTRE_JITTER: f32 = 0.07;
/// The Trench's inner edge wanders by up to this much (fraction of MapSize) with CoastVariation
/// 1, so the island's ends read as coasts, not a ruler-straight cut.
const TRENCH_WANDER: f32 = 0.025;
const TRENCH_FREQUENCY: f32 = 5.0;

/// The spine's seeded shape at SpineVariation 1: its axis is moved off centre by up to
/// [`SPINE_SHIFT`] (half-map units), turned from north–south by up to [`SPINE_TURN`] radians,
/// bent sideways by up to [`SPINE_BEND`] over [`SPINE_WAVES`] waves; its height peaks at a seeded
/// place along it (the summit), and with probability [`SPINE_SPLIT`] a second, lower ridge runs
/// beside it.
const SPINE_SHIFT: f32 = 0.30;
const SPINE_TURN: f32 = 0.9;
const SPINE_BEND: f32 = 0.22;
const SPINE_WAVES: f32 = 1.3;
const SPINE_SPLIT: f32 = 0.5;
/// Half-length (half-map units) over which the spine's height falls to half from its peak.
const SPINE_REACH: f32 = 0.55;
/// How far along the axis (half-map units) the spine's peak may sit from its middle.
const SPINE_PEAK_SHIFT: f32 = 0.5;
/// A seeded spine fades out between these squircle distances (the coast is near 1).
const SPINE_COAST_FADE: [f32; 2] = [0.9, 0.38];
/// The grid (steps per side of the normalised square) on which a seeded spine's highest point
/// is found, and the most it is scaled up to stand as high as the original.
const SPINE_PROBE: usize = 128;
const MAX_SPINE_SCALE: f32 = 2.0;
/// The coarse land fraction a varied outline is held within (a little inside 30–50 %, which
/// the pixel map's fine octaves, islets and crater then keep it in).
const LAND_BAND: [f32; 2] = [0.34, 0.46];
/// The most the land band may grow (or, inverted, shrink) the outline.
const MAX_GROW: f32 = 1.35;
/// Raw height a seeded summit gets beyond the original's, so the base noise at the summit
/// cannot keep it under the curve's spike (K6).
const SUMMIT_MARGIN: f32 = 0.06;
/// Width of the smooth maximum joining two ridges (keeps the crest rounded where they meet).
const RIDGE_BLEND: f32 = 0.15;

/// Largest relative warp of the squircle distance by the coast field.
pub const COAST_WARP: f32 = 0.16;
/// Coast field: frequency per map side and octaves (a lattice field).
const COAST_FREQUENCY: f32 = 2.5;
const COAST_OCTAVES: i32 = 3;

/// Base fBm: first-octave frequency per map side; octaves read from a lattice and per pixel.
const BASE_FREQUENCY: f32 = 3.0;
const BASE_COARSE_OCTAVES: i32 = 4;
const BASE_FINE_OCTAVES: i32 = 3;
/// Where the mainland is this deep under sea before its fine octaves, they are left out (they
/// fade out over the last [`DEEP_FADE`] of depth, so the seabed stays continuous).
const DEEP_SEABED: f32 = 0.30;
const DEEP_FADE: f32 = 0.10;
/// Islet field: frequency per map side and octaves (a lattice field).
const ISLET_FREQUENCY: f32 = 6.0;
const ISLET_OCTAVES: i32 = 3;

/// Island shape, raw height units. See [`raw_height`].
const SHAPE_SCALE: f32 = 0.68;
const LAND_LIFT: f32 = 0.075;
const NOISE_AMP: f32 = 0.24;
const CORE_AMP: f32 = 0.14;
const SPINE_AMP: f32 = 0.78;
const SPINE_WIDTH: f32 = 0.36;
const SPINE_CREST: f32 = 0.05;
const FALLOFF_START: f32 = 0.72;
const FALLOFF_AMP: f32 = 1.8;
const TRENCH_WALL: f32 = 12.0;
const TRENCH_LIP: f32 = 0.02;
/// Raw height an islet gains per unit of islet field above its threshold.
const ISLET_LIFT: f32 = 1.4;
/// An islet pixel at exactly the threshold sits this far under sea (a shallow skirt).
const ISLET_SKIRT: f32 = 0.003;

/// What the topography stage needs.
#[derive(Clone, Debug)]
pub struct TopographyParams {
    /// The resolved world seed.
    pub seed: i32,
    /// Pixels per side.
    pub map_size: usize,
    /// IslandAxisX (east–west proportion, shared by the spine's width).
    pub axis_x: f32,
    /// IslandAxisY (north–south proportion).
    pub axis_y: f32,
    /// OffshoreIslandDensity: the islet field's fraction above threshold, 0 ..= 0.5 (config
    /// validation holds it there; 0 disables).
    pub islet_density: f32,
    /// SpineVariation, 0 ..= 1: 0 is the original straight central north–south spine.
    pub spine_variation: f32,
    /// CoastVariation, 0 ..= 1: 0 is the original squircle outline and straight Trench cut.
    pub coast_variation: f32,
    /// The sea level model.
    pub sea: SeaLevel,
    /// Where land is wanted (IslandMask, 0 ..= 1 over the normalised square), if a mask shapes
    /// the island: its half-white contour takes the squircle's place as the coast.
    pub island_mask: Option<std::sync::Arc<Raster>>,
    /// Where the land rises (ReliefMask, 0 ..= 1), if a mask shapes it: blurred, it takes the
    /// spine's ridges' place (white the summit), scaled like a seeded spine.
    pub relief_mask: Option<std::sync::Arc<Raster>>,
}

/// The raw height map and where islets may stand.
#[derive(Clone, Debug)]
pub struct Topography {
    /// Raw heights `[x, y]`, islets included, uncurved.
    pub heights: Array2<f32>,
    /// 1 where the islet lift could act (deep, away from the Trench), else 0.
    pub islet_zone: Array2<u8>,
    /// The islet field's threshold for this seed (+∞ when islets are disabled).
    pub islet_threshold: f32,
}

/// One ridge of the spine, in the half-map coordinates `c = 2·(u, v) − 1`.
#[derive(Clone, Copy, Debug)]
struct Ridge {
    /// A point the axis passes through.
    origin: [f32; 2],
    /// Unit vector along the axis.
    along: [f32; 2],
    /// Sideways bend: amplitude, waves per half-map of axis, phase.
    bend: [f32; 3],
    /// Where along the axis the ridge peaks, and its relative height there.
    peak: f32,
    height: f32,
    /// How fast the height falls away from the peak (0 = not at all).
    reach: f32,
}

impl Ridge {
    /// The original spine: the centre column, straight, the same height all along.
    const STRAIGHT: Ridge = Ridge {
        origin: [0.0, 0.0],
        along: [0.0, 1.0],
        bend: [0.0, 1.0, 0.0],
        peak: 0.0,
        height: 1.0,
        reach: 0.0,
    };

    /// The seeded ridge for `draws` (uniforms in [0, 1)) at variation `var`.
    fn seeded(draws: [f32; 7], var: f32) -> Ridge {
        let signed = |d: f32| 2.0 * d - 1.0;
        let turn = var * SPINE_TURN * signed(draws[2]);
        Ridge {
            origin: [
                var * SPINE_SHIFT * signed(draws[0]),
                var * 0.5 * SPINE_SHIFT * signed(draws[1]),
            ],
            along: [turn.sin(), turn.cos()],
            bend: [
                var * SPINE_BEND * signed(draws[3]),
                SPINE_WAVES * (0.5 + draws[4]),
                std::f32::consts::TAU * draws[5],
            ],
            peak: var * SPINE_PEAK_SHIFT * signed(draws[6]),
            height: 1.0,
            reach: var,
        }
    }

    /// The ridge's profile at c: 1 on the crest, falling to 0 at `width` across, times its
    /// height along the axis. The crest is rounded by [`smooth_abs`].
    fn at(&self, c: [f32; 2], width: f32) -> f32 {
        let (dx, dy) = (c[0] - self.origin[0], c[1] - self.origin[1]);
        let t = dx * self.along[0] + dy * self.along[1];
        let across = dx * self.along[1] - dy * self.along[0];
        let [amp, waves, phase] = self.bend;
        let off = across - amp * (waves * std::f32::consts::PI * t + phase).sin();
        let profile = (1.0 - smooth_abs(off, SPINE_CREST) / width).max(0.0);
        let q = (t - self.peak) / SPINE_REACH;
        let along = 1.0 - self.reach * (1.0 - 1.0 / (1.0 + q * q));
        self.height * along * profile * profile
    }
}

/// A polynomial smooth maximum: equal to max(a, b) away from a = b, C¹ everywhere.
fn smooth_max(a: f32, b: f32, k: f32) -> f32 {
    let h = (k - (a - b).abs()).max(0.0) / k;
    a.max(b) + h * h * k * 0.25
}

/// The island's shape fields for one seed: the base fBm (split into lattice and per-pixel
/// octaves), the coast warp, the outline warp and the spine's ridges. Everything the mainland's
/// height depends on.
pub struct Shape {
    params: TopographyParams,
    base: SplitFbm,
    coast: Lattice,
    warp: Option<[Lattice; 2]>,
    trench: Option<Lattice>,
    /// Axis stretch and centre of the outline (1, 1, 0, 0 without CoastVariation).
    outline: [f32; 4],
    ridges: Vec<Ridge>,
    /// Scales a seeded spine so its highest point stands as high as the original's (1).
    spine_scale: f32,
    /// Scale of the outline, so a varied outline keeps its land fraction in the band.
    grow: f32,
    /// With variation on, the whole smooth island (height above sea without the fine octaves:
    /// a smooth function of the normalised position) read from a lattice per pixel instead of
    /// its warp fields and the spine's trigonometry; `None` for the original, computed exactly.
    smooth_field: Option<Lattice>,
    /// IslandMask, read at the probe lattice's resolution.
    mask: Option<Lattice>,
    /// ReliefMask, blurred ([`RELIEF_BLUR`]), read at the probe lattice's resolution.
    relief: Option<Lattice>,
}

impl Shape {
    /// Samples the shape fields of `p.seed`.
    pub fn new(p: &TopographyParams) -> Shape {
        let seed = crate::seed::noise_seed(p.seed, "topography");
        let coast = {
            let field = Fbm::new(
                seed.wrapping_add(COAST_SEED_OFFSET),
                COAST_FREQUENCY,
                COAST_OCTAVES,
            );
            Lattice::sample(|u, v| field.at(u, v).clamp(-1.0, 1.0))
        };
        let field = |offset: i32, frequency: f32, octaves: i32| {
            let f = Fbm::new(seed.wrapping_add(offset), frequency, octaves);
            Lattice::sample(move |u, v| f.at(u, v).clamp(-1.0, 1.0))
        };
        let (cv, sv) = (p.coast_variation, p.spine_variation);
        let warp = (cv > 0.0).then(|| {
            [
                field(WARP_X_SEED_OFFSET, OUTLINE_FREQUENCY, OUTLINE_OCTAVES),
                field(WARP_Y_SEED_OFFSET, OUTLINE_FREQUENCY, OUTLINE_OCTAVES),
            ]
        });
        let trench = (cv > 0.0).then(|| field(TRENCH_SEED_OFFSET, TRENCH_FREQUENCY, 2));
        let draw = |i: u64| crate::seed::item_unit(p.seed, "topography", i);
        let signed = |i: u64| 2.0 * draw(i) - 1.0;
        let outline = [
            1.0 + cv * AXIS_JITTER * signed(0),
            1.0 + cv * AXIS_JITTER * signed(1),
            cv * CENTRE_JITTER * signed(2),
            cv * CENTRE_JITTER * signed(3),
        ];
        let mut ridges = vec![if sv > 0.0 {
            Ridge::seeded(std::array::from_fn(|k| draw(10 + k as u64)), sv)
        } else {
            Ridge::STRAIGHT
        }];
        if sv > 0.0 && draw(20) < SPINE_SPLIT * sv {
            // A second ridge beside the first, lower, with its own bend and summit.
            let main = ridges[0];
            let mut second = Ridge::seeded(std::array::from_fn(|k| draw(21 + k as u64)), sv);
            let side = if draw(28) < 0.5 { -1.0 } else { 1.0 };
            let gap = 0.28 + 0.15 * draw(29);
            second.along = main.along;
            second.origin = [
                main.origin[0] + side * gap * main.along[1],
                main.origin[1] - side * gap * main.along[0],
            ];
            second.height = 0.55 + 0.3 * draw(30);
            ridges.push(second);
        }
        let mut shape = Shape {
            params: p.clone(),
            base: base_noise(seed, p.map_size),
            coast,
            warp,
            trench,
            outline,
            ridges,
            spine_scale: 1.0,
            grow: 1.0,
            smooth_field: None,
            mask: p
                .island_mask
                .as_ref()
                .map(|m| Lattice::sample(|u, v| m.sample(u, v))),
            relief: p.relief_mask.as_deref().map(blurred),
        };
        if sv > 0.0 || shape.relief.is_some() {
            // The highest the spine stands anywhere (on a fixed grid of the normalised square,
            // so the same at every MapSize): scaled so the summit stands as high as the
            // original's, and every seed keeps a summit that reaches the curve's spike.
            // The dome under the summit counts too: the original summit had the whole dome.
            let steps = SPINE_PROBE;
            let (highest, at) = (0..=steps)
                .flat_map(|i| (0..=steps).map(move |j| (i, j)))
                .map(|(i, j)| {
                    let (u, v) = (i as f32 / steps as f32, j as f32 / steps as f32);
                    (shape.spine(u, v), (u, v))
                })
                .fold((0.0f32, (0.5, 0.5)), |a, b| if b.0 > a.0 { b } else { a });
            if highest > 0.0 {
                let dome = shape.outline(at.0, at.1).1;
                let wanted = SPINE_AMP + CORE_AMP * (1.0 - dome) + SUMMIT_MARGIN;
                shape.spine_scale = (wanted / (SPINE_AMP * highest)).min(MAX_SPINE_SCALE);
            }
        }
        // A mask decides the land's extent itself.
        if cv > 0.0 && shape.mask.is_none() {
            shape.grow = shape.land_band_grow();
        }
        if sv > 0.0 || cv > 0.0 || shape.mask.is_some() || shape.relief.is_some() {
            let field = Lattice::sample(|u, v| shape.smooth_above_sea(u, v));
            shape.smooth_field = Some(field);
        }
        shape
    }

    /// The shape of a surface made elsewhere (an imported heightmap): `above_sea` (raw units
    /// above the local sea, a function of the normalised position) is its smooth height, read
    /// from the probe lattice as a designed island's is; nothing of the seed's island remains.
    pub fn imported(p: &TopographyParams, above_sea: impl Fn(f32, f32) -> f32 + Sync) -> Shape {
        let seed = crate::seed::noise_seed(p.seed, "topography");
        let flat = || Lattice::sample_cells(1, |_, _| 0.0);
        Shape {
            params: p.clone(),
            base: base_noise(seed, p.map_size),
            coast: flat(),
            warp: None,
            trench: None,
            outline: [1.0, 1.0, 0.0, 0.0],
            ridges: Vec::new(),
            spine_scale: 1.0,
            grow: 1.0,
            smooth_field: Some(Lattice::sample(above_sea)),
            mask: None,
            relief: None,
        }
    }

    /// Share of a fixed grid of the normalised square where the smooth island stands above sea
    /// (inside the Trench): the land fraction before fine octaves, islets and the crater.
    fn coarse_land(&self) -> f32 {
        let steps = SPINE_PROBE;
        let n = self.params.map_size;
        let mut land = 0usize;
        for i in 0..steps {
            for j in 0..steps {
                let (u, v) = (
                    (i as f32 + 0.5) / steps as f32,
                    (j as f32 + 0.5) / steps as f32,
                );
                let sea = self.params.sea.at(((v * n as f32) as usize).min(n - 1));
                let h = self
                    .smooth_height(u, v, sea)
                    .min(self.trench_cap(u, v, sea));
                land += usize::from(h >= sea);
            }
        }
        land as f32 / (steps * steps) as f32
    }

    /// The outline scale that brings the coarse land fraction into `LAND_BAND`, found by
    /// bisection; 1 when it is inside already. Scaling the outline (not raising the land) keeps
    /// the island's profile from coast to summit, and so its share of lowland.
    fn land_band_grow(&mut self) -> f32 {
        let share = self.coarse_land();
        let target = share.clamp(LAND_BAND[0], LAND_BAND[1]);
        if target == share {
            return 1.0;
        }
        let (mut lo, mut hi) = if share < target {
            (1.0, MAX_GROW)
        } else {
            (1.0 / MAX_GROW, 1.0)
        };
        for _ in 0..14 {
            self.grow = 0.5 * (lo + hi);
            if self.coarse_land() < target {
                lo = self.grow;
            } else {
                hi = self.grow;
            }
        }
        0.5 * (lo + hi)
    }

    /// The highest the mainland may stand at (u, v): the Trench, its inner edge wandering with
    /// CoastVariation.
    pub fn trench_cap(&self, u: f32, v: f32, sea: f32) -> f32 {
        self.trench_cap_with(u, v, sea, |t| t.at(u, v))
    }

    /// [`Shape::trench_cap`] with the wander field's read at (u, v) from `read`.
    #[inline]
    fn trench_cap_with(&self, u: f32, v: f32, sea: f32, read: impl FnOnce(&Lattice) -> f32) -> f32 {
        let cap = trench_cap(u, v, sea);
        // Far inland the cap stands above any height: no need to read the wander field there.
        if cap > sea + 2.0 {
            return cap;
        }
        let wander = (self.trench.as_ref()).map_or(0.0, |t| {
            self.params.coast_variation * TRENCH_WANDER * read(t)
        });
        cap - TRENCH_WALL * wander.max(0.0)
    }

    /// The mainland's raw height at normalised (u, v): noise + spine − falloff, Trench-clamped.
    /// The base noise's fine octaves are skipped on the deep seabed, where they fade to nothing.
    pub fn height(&self, u: f32, v: f32, sea: f32) -> f32 {
        let fine = || self.base.fine_at(u, v);
        let cap = || self.trench_cap(u, v, sea);
        height_over(self.smooth_height(u, v, sea), sea, fine, cap)
    }

    /// The outline's squircle distance at (u, v) (1 is near the coast) and the central dome.
    fn outline(&self, u: f32, v: f32) -> (f32, f32) {
        let p = &self.params;
        let (cx, cy) = (2.0 * u - 1.0, 2.0 * v - 1.0);
        let [sx, sy, ox, oy] = self.outline;
        let (wx, wy) = match &self.warp {
            Some([fx, fy]) => {
                let a = p.coast_variation * OUTLINE_WARP;
                (a * fx.at(u, v), a * fy.at(u, v))
            }
            None => (0.0, 0.0),
        };
        let dx = (cx - ox + wx) / (SHAPE_SCALE * p.axis_x * sx * self.grow);
        let dy = (cy - oy + wy) / (SHAPE_SCALE * p.axis_y * sy * self.grow);
        let (dx2, dy2) = (dx * dx, dy * dy);
        let squircle = match &self.mask {
            // The mask's half-white contour is the coast (distance 1): white is the island's
            // middle (0.5), black the open ocean (1.5, where the falloff always wins).
            Some(mask) => 1.0 + MASK_SPAN * (0.5 - mask.at(u, v).clamp(0.0, 1.0)),
            None => (dx2 * dx2 + dy2 * dy2).sqrt().sqrt(),
        };
        let d = squircle * (1.0 + COAST_WARP * self.coast.at(u, v));
        (d, (1.0 - d * d).max(0.0))
    }

    /// The spine's height (before [`Shape::spine_scale`]) at (u, v).
    fn spine(&self, u: f32, v: f32) -> f32 {
        let (d, core) = self.outline(u, v);
        self.spine_of(2.0 * u - 1.0, 2.0 * v - 1.0, d, core)
    }

    /// The spine at half-map position (cx, cy) whose outline distance is `d` and dome `core`.
    /// The original spine rides the island's central dome; a seeded one may stand anywhere
    /// inland, fading out towards the coast instead, and so does a ReliefMask's.
    fn spine_of(&self, cx: f32, cy: f32, d: f32, core: f32) -> f32 {
        let p = &self.params;
        let inland = smoothstep(SPINE_COAST_FADE[0], SPINE_COAST_FADE[1], d);
        if let Some(relief) = &self.relief {
            return relief.at(0.5 * (cx + 1.0), 0.5 * (cy + 1.0)) * inland;
        }
        let width = SPINE_WIDTH * p.axis_x;
        let ridges = self
            .ridges
            .iter()
            .map(|r| r.at([cx, cy], width))
            .reduce(|a, b| smooth_max(a, b, RIDGE_BLEND))
            .unwrap_or(0.0);
        ridges * (core + p.spine_variation * (inland - core))
    }

    /// The mainland's height without the base noise's fine octaves (a few metres at most) and
    /// without the Trench: a smooth function of the normalised position alone, the same at every
    /// MapSize — what the town stage reads slopes from.
    pub fn smooth_height(&self, u: f32, v: f32, sea: f32) -> f32 {
        match &self.smooth_field {
            Some(field) => sea + field.at_cubic(u, v),
            None => sea + self.smooth_above_sea(u, v),
        }
    }

    /// [`Shape::smooth_height`] above sea, computed from its parts.
    fn smooth_above_sea(&self, u: f32, v: f32) -> f32 {
        // The outline: the squircle distance of the (seed-stretched, moved, warped) position.
        let (d, core) = self.outline(u, v);
        let spine = self.spine_scale * self.spine_of(2.0 * u - 1.0, 2.0 * v - 1.0, d, core);
        let falloff = (d - FALLOFF_START).max(0.0);
        LAND_LIFT + NOISE_AMP * self.base.coarse_at(u, v) + CORE_AMP * core + SPINE_AMP * spine
            - FALLOFF_AMP * falloff * falloff
    }
}

/// A ReliefMask blurred with a Gaussian of σ [`RELIEF_BLUR`] (separably, on a [`RELIEF_CELLS`]²
/// grid of the normalised square, the edge's values held beyond it), as a lattice field.
fn blurred(mask: &Raster) -> Lattice {
    let n = RELIEF_CELLS;
    let sigma = RELIEF_BLUR * n as f32;
    let reach = (3.0 * sigma).ceil() as isize;
    let kernel: Vec<f32> = (-reach..=reach)
        .map(|k| (-0.5 * (k as f32 / sigma).powi(2)).exp())
        .collect();
    let total: f32 = kernel.iter().sum();
    let centre = |i: usize| (i as f32 + 0.5) / n as f32;
    let mut grid: Vec<f32> = (0..n * n)
        .map(|i| mask.sample(centre(i % n), centre(i / n)))
        .collect();
    // Along rows (stride 1), then along columns (stride n).
    for (step, across) in [(1usize, n), (n, 1usize)] {
        let src = grid.clone();
        for line in 0..n {
            for i in 0..n {
                let sum: f32 = (kernel.iter().enumerate())
                    .map(|(k, w)| {
                        let j = (i as isize + k as isize - reach).clamp(0, n as isize - 1);
                        w * src[line * across + j as usize * step]
                    })
                    .sum();
                grid[line * across + i * step] = sum / total;
            }
        }
    }
    Lattice::sample(|u, v| {
        let (x, y) = (u * n as f32 - 0.5, v * n as f32 - 0.5);
        let (x0, y0) = (x.floor(), y.floor());
        let (tx, ty) = (x - x0, y - y0);
        let at = |dx: isize, dy: isize| {
            let c = (x0 as isize + dx).clamp(0, n as isize - 1) as usize;
            let r = (y0 as isize + dy).clamp(0, n as isize - 1) as usize;
            grid[r * n + c]
        };
        let top = at(0, 0) + tx * (at(1, 0) - at(0, 0));
        let bottom = at(0, 1) + tx * (at(1, 1) - at(0, 1));
        top + ty * (bottom - top)
    })
}

/// The base fBm of the stage's `seed`. On maps with more pixels a side than its fine octaves'
/// lattice has cells, the fine octaves are read from that lattice (within a millimetre-scale
/// bound of evaluating them, see [`SplitFbm::with_fine_lattice`]) instead of evaluated three
/// times per pixel; smaller maps evaluate them, so up to that size every height is exact.
fn base_noise(seed: i32, map_size: usize) -> SplitFbm {
    let base = SplitFbm::new(
        seed.wrapping_add(BASE_SEED_OFFSET),
        BASE_FREQUENCY,
        BASE_COARSE_OCTAVES,
        BASE_FINE_OCTAVES,
    );
    if map_size > base.fine_lattice_cells() {
        base.with_fine_lattice()
    } else {
        base
    }
}

/// Generates the raw topography of `shape`. `on_column` is called once per finished column.
pub fn topography(shape: &Shape, on_column: &(dyn Fn() + Sync)) -> Topography {
    let p = &shape.params;
    let n = p.map_size;
    let islets = (p.islet_density > 0.0).then(|| {
        let field = Fbm::new(
            crate::seed::noise_seed(p.seed, "topography").wrapping_add(ISLET_SEED_OFFSET),
            ISLET_FREQUENCY,
            ISLET_OCTAVES,
        );
        let lattice = Lattice::sample(|u, v| field.at(u, v));
        let threshold = quantile(lattice.samples(), 1.0 - p.islet_density);
        (lattice, threshold)
    });
    let reads = MapReads::new(shape, islets.as_ref());
    let mut heights = Array2::<f32>::zeros((n, n));
    let mut islet_zone = Array2::<u8>::zeros((n, n));
    heights
        .outer_iter_mut()
        .into_par_iter()
        .zip(islet_zone.outer_iter_mut())
        .enumerate()
        .for_each(|(x, (mut column, mut zone))| {
            let reads = reads.column(x);
            for y in 0..n {
                let (h, lifted) = reads.height(y);
                column[y] = h;
                zone[y] = u8::from(lifted);
            }
            on_column();
        });
    Topography {
        heights,
        islet_zone,
        islet_threshold: islets.map_or(f32::INFINITY, |(_, t)| t),
    }
}

/// What [`topography`] reads at every pixel centre of the map, each as [`Shape::height`] and
/// the islet lift read it, bit for bit: the lattices through [`PixelReads`] tables (the blend
/// along v shared by the columns), and each map row's v and sea level once.
struct MapReads<'a> {
    shape: &'a Shape,
    vs: Vec<f32>,
    seas: Vec<f32>,
    smooth: Option<PixelReads>,
    trench: Option<PixelReads>,
    /// The islet field and its threshold.
    islets: Option<(PixelReads, f32)>,
}

impl MapReads<'_> {
    fn new<'a>(shape: &'a Shape, islets: Option<&(Lattice, f32)>) -> MapReads<'a> {
        let n = shape.params.map_size;
        let table = |lattice: &Lattice, how| lattice.pixel_reads((n, n), how);
        MapReads {
            shape,
            vs: (0..n).map(|y| normalised(y, n)).collect(),
            seas: shape.params.sea.rows(n),
            smooth: (shape.smooth_field.as_ref()).map(|f| table(f, Interpolation::Bicubic)),
            trench: (shape.trench.as_ref()).map(|t| table(t, Interpolation::Bilinear)),
            islets: islets.map(|(l, t)| (table(l, Interpolation::Bilinear), *t)),
        }
    }

    fn column(&self, x: usize) -> ColumnReads<'_> {
        let u = normalised(x, self.shape.params.map_size);
        ColumnReads {
            map: self,
            u,
            fine: self.shape.base.fine_column(u),
            smooth: self.smooth.as_ref().map(|r| r.column(x)),
            trench: self.trench.as_ref().map(|r| r.column(x)),
            islets: self.islets.as_ref().map(|(r, t)| (r.column(x), *t)),
        }
    }
}

/// One map column of a [`MapReads`].
struct ColumnReads<'a> {
    map: &'a MapReads<'a>,
    u: f32,
    fine: FineColumn<'a>,
    smooth: Option<PixelColumn<'a>>,
    trench: Option<PixelColumn<'a>>,
    islets: Option<(PixelColumn<'a>, f32)>,
}

impl ColumnReads<'_> {
    /// The raw height at map row `y`, and whether the islet lift could act there.
    #[inline]
    fn height(&self, y: usize) -> (f32, bool) {
        let (shape, u) = (self.map.shape, self.u);
        let (v, sea) = (self.map.vs[y], self.map.seas[y]);
        let coarse = match &self.smooth {
            Some(column) => sea + column.at(y),
            None => shape.smooth_height(u, v, sea),
        };
        let wander = |t: &Lattice| self.trench.as_ref().map_or_else(|| t.at(u, v), |c| c.at(y));
        let cap = || shape.trench_cap_with(u, v, sea, wander);
        let mut h = height_over(coarse, sea, || self.fine.at(v), cap);
        let Some((field, threshold)) = &self.islets else {
            return (h, false);
        };
        let w = islet_weight(h, sea, u, v);
        if w <= 0.0 {
            return (h, false);
        }
        let target = sea - ISLET_SKIRT + ISLET_LIFT * (field.at(y) - threshold);
        if target > h {
            h += w * (target - h);
        }
        (h, true)
    }
}

/// The mainland's raw height over `coarse`, the [`Shape::smooth_height`] at its pixel: the base
/// noise's fine share from `fine` (read only off the deep seabed), clamped under `cap`, the
/// [`Shape::trench_cap`] there (read last).
#[inline]
fn height_over(
    coarse: f32,
    sea: f32,
    fine: impl FnOnce() -> f32,
    cap: impl FnOnce() -> f32,
) -> f32 {
    let depth = sea - coarse;
    let h = if depth >= DEEP_SEABED {
        coarse
    } else {
        let fade = smoothstep(DEEP_SEABED, DEEP_SEABED - DEEP_FADE, depth);
        coarse + fade * NOISE_AMP * fine()
    };
    h.min(cap())
}

/// The highest a pixel may stand at normalised (u, v): under sea inside the Trench band, rising
/// steeply (the Trench wall) inland of it.
pub fn trench_cap(u: f32, v: f32, sea: f32) -> f32 {
    let edge = u.min(1.0 - u).min(v).min(1.0 - v);
    sea - TRENCH_LIP + TRENCH_WALL * (edge - TRENCH_WIDTH)
}

/// How strongly the islet lift acts on a pixel whose mainland height is `h`: 0 near the mainland
/// (the moat) and near the edge, 1 in deep open ocean.
fn islet_weight(h: f32, sea: f32, u: f32, v: f32) -> f32 {
    // Land and the moat: the first factor's smoothstep is 0 there (and the product with it).
    if h >= sea - MOAT_NEAR {
        return 0.0;
    }
    let edge = u.min(1.0 - u).min(v).min(1.0 - v);
    smoothstep(sea - MOAT_NEAR, sea - MOAT_FAR, h) * smoothstep(ISLET_EDGE, ISLET_EDGE + 0.03, edge)
}
