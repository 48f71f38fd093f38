//! Water bodies agree with the biomes; towns follow their rules and are the same at any
//! MapSize.

use islagen::blueprint::format::{encode_water_level, Salinity, WaterBodyType};
use islagen::blueprint::{Biome, Town, TownTier};
use islagen::config::{Config, SeaLevelModel, TerrainCurve};
use islagen::pipeline::{self, World};
use islagen::progress::Progress;
use islagen::stages::sea::Water;
use islagen::stages::towns::spacing;

fn config(size: u32) -> Config {
    let mut c = Config::from_json("{}", "defaults").unwrap().config;
    c.map_size = size;
    c.skip_roads = true; // roads have their own tests
    c
}

fn world(seed: i32, c: &Config) -> World {
    pipeline::generate(c, seed, &Progress::hidden()).unwrap()
}

fn assert_water_bodies(w: &World, label: &str) {
    let bp = &w.blueprint;
    let ids = bp.water_ids.as_ref().expect("WBID");
    let surface = bp.water_surface_grid().expect("WSRF");
    let bodies = bp.water_bodies.as_ref().expect("WBTB");
    let n = bp.side();
    assert_eq!(bodies[0].id, 1);
    assert_eq!(
        (bodies[0].kind, bodies[0].salinity),
        (WaterBodyType::Ocean, Salinity::Salt)
    );
    // The summary names lakes and river reaches apart, never a river reach a lake.
    let kind = |k: WaterBodyType| bodies.iter().filter(move |b| b.kind == k);
    assert_eq!(w.stats.lakes, kind(WaterBodyType::Lake).count(), "{label}");
    assert_eq!(
        w.stats.river_reaches,
        kind(WaterBodyType::River).count(),
        "{label}"
    );
    assert_eq!(
        w.stats.lakes + w.stats.river_reaches + 1,
        bodies.len(),
        "{label}"
    );
    let mut counts = vec![0i64; bodies.len() + 1];
    let mut sums = vec![(0.0f64, 0.0f64); bodies.len() + 1];
    let mut next_new_id = 2u16;
    for x in 0..n {
        for y in 0..n {
            let id = ids[[x, y]];
            let b = bp.biomes[[x, y]];
            // The same set, by construction.
            assert_eq!(
                id != 0,
                matches!(b, Biome::Ocean | Biome::Lake),
                "{label}: ({x}, {y})"
            );
            assert_eq!(id == 1, b == Biome::Ocean, "{label}: ({x}, {y})");
            assert_eq!(id == 1, w.water[[x, y]] == Water::Ocean, "{label}");
            if id >= 2 {
                // Lakes are numbered in scan order of their first pixel.
                assert!(
                    id <= next_new_id,
                    "{label}: lake {id} met before lake {next_new_id}"
                );
                if id == next_new_id {
                    next_new_id += 1;
                }
            }
            if id == 0 {
                assert_eq!(surface[[x, y]], 0, "{label}: WSRF on dry land");
            } else {
                let body = &bodies[usize::from(id) - 1];
                assert_eq!(
                    surface[[x, y]],
                    encode_water_level(body.surface_level).unwrap()
                );
                counts[usize::from(id)] += 1;
                sums[usize::from(id)].0 += x as f64;
                sums[usize::from(id)].1 += y as f64;
            }
        }
    }
    assert_eq!(
        usize::from(next_new_id) - 1,
        bodies.len(),
        "{label}: every lake and reach is a body"
    );
    for b in bodies {
        let i = usize::from(b.id);
        assert_eq!(
            i64::from(b.pixel_count),
            counts[i],
            "{label}: body {}",
            b.id
        );
        let (cx, cy) = (sums[i].0 / counts[i] as f64, sums[i].1 / counts[i] as f64);
        assert!(
            (f64::from(b.centroid_x) - cx).abs() < 1e-2
                && (f64::from(b.centroid_y) - cy).abs() < 1e-2
        );
        let expected = if b.id == 1 {
            w.sea.at(n / 2)
        } else if b.kind == WaterBodyType::River {
            // A river reach: fresh, its level its own (tests/rivers.rs checks it).
            assert_eq!(b.salinity, Salinity::Fresh);
            b.surface_level
        } else {
            assert_eq!((b.kind, b.salinity), (WaterBodyType::Lake, Salinity::Fresh));
            w.sea.at(cy.round() as usize)
        };
        assert_eq!(b.surface_level, expected, "{label}: body {} level", b.id);
    }
}

#[test]
fn water_bodies_are_the_biomes_water_for_several_seeds_and_configs() {
    for seed in [1, 99] {
        assert_water_bodies(&world(seed, &config(512)), &format!("seed {seed}"));
    }
    let mut field = config(512);
    field.sea_level = SeaLevelModel::Field;
    // The field model raises the northern sea and so encloses lakes; which seeds have them
    // depends on the island, so take the first of a few that does.
    let (seed, w) = (1..=12)
        .map(|s| (s, world(s, &field)))
        .find(|(_, w)| w.blueprint.water_bodies.as_ref().unwrap().len() > 1)
        .expect("the field model makes lakes on one of seeds 1-12");
    assert_water_bodies(&w, &format!("seed {seed}, field sea"));
    let mut off = config(512);
    off.terrain_curve = TerrainCurve::Off;
    assert_water_bodies(&world(5, &off), "seed 5, curve off");
    let mut eroded = config(512);
    eroded.erosion.model = islagen::config::ErosionModel::Droplets;
    assert_water_bodies(&world(7, &eroded), "seed 7, erosion on");
}

fn tier_count(towns: &[Town], tier: TownTier) -> usize {
    towns.iter().filter(|t| t.tier == tier).count()
}

#[test]
fn towns_follow_their_tier_rules() {
    let w = world(42, &config(1024));
    let towns = &w.blueprint.towns;
    let n = w.blueprint.side() as f32;
    assert_eq!(tier_count(towns, TownTier::Capitol), 1);
    let hubs: Vec<&Town> = towns.iter().filter(|t| t.tier == TownTier::Hub).collect();
    let snow: Vec<&&Town> = hubs.iter().filter(|t| !t.is_highway_node).collect();
    assert_eq!(snow.len(), 1, "exactly one snow hub off the loop");
    let snow_biome = w.blueprint.biomes[[snow[0].x as usize, snow[0].y as usize]];
    assert!(
        matches!(
            snow_biome,
            Biome::Plateau | Biome::Snow | Biome::Mountain | Biome::Foothills
        ),
        "snow hub on {snow_biome:?}"
    );
    assert!(
        hubs.len() > 3,
        "a loop needs three hubs besides the snow hub"
    );
    for tier in [TownTier::Village, TownTier::Outpost, TownTier::Poi] {
        assert!(tier_count(towns, tier) > 0, "no {tier:?}");
    }
    for (i, t) in towns.iter().enumerate() {
        let (x, y) = (t.x as usize, t.y as usize);
        assert_eq!(w.water[[x, y]], Water::Dry, "{:?} in water", t.tier);
        assert_eq!(
            t.is_highway_node,
            matches!(t.tier, TownTier::Capitol | TownTier::Hub)
                && !snow.iter().any(|s| std::ptr::eq(**s, t))
        );
        if t.tier != TownTier::Poi {
            assert!(
                w.crater.distance(x, y) > w.crater.radius_px,
                "{:?} in the crater",
                t.tier
            );
        }
        // Spacing from every town placed before it: the rule holds between site centres, and a
        // town stands within its site (a river or a shore may move it off the centre), so two
        // towns may be up to a site's diagonal closer.
        let site = std::f32::consts::SQRT_2 / islagen::stages::towns::SITES as f32;
        for earlier in &towns[..i] {
            let d = (t.x - earlier.x).hypot(t.y - earlier.y) / n;
            assert!(
                d + site + 1e-4 >= spacing(t.tier).max(0.02),
                "{:?} {d} from a {:?}",
                t.tier,
                earlier.tier
            );
        }
    }
    // Counts follow the density dial.
    let mut dense = config(1024);
    dense.density_multiplier = 2.0;
    let dense = world(42, &dense);
    assert!(
        tier_count(&dense.blueprint.towns, TownTier::Village)
            > tier_count(towns, TownTier::Village)
    );
    assert_eq!(
        dense.towns.placed.iter().sum::<usize>(),
        dense.blueprint.towns.len()
    );
}

#[test]
fn a_seeds_towns_are_the_same_at_1024_and_2048() {
    for seed in [42, 1_280_587_109, 31] {
        let a = world(seed, &config(1024));
        let b = world(seed, &config(2048));
        let (ta, tb) = (&a.blueprint.towns, &b.blueprint.towns);
        for tier in TownTier::ALL {
            assert_eq!(
                tier_count(ta, *tier),
                tier_count(tb, *tier),
                "seed {seed}: {tier:?} count"
            );
        }
        for t in ta {
            let (u, v) = (t.x / 1024.0, t.y / 1024.0);
            let nearest = tb
                .iter()
                .filter(|o| o.tier == t.tier)
                .map(|o| (o.x / 2048.0 - u).hypot(o.y / 2048.0 - v))
                .fold(f32::INFINITY, f32::min);
            assert!(
                nearest <= 0.01,
                "seed {seed}: a {:?} moved by {nearest} of MapSize",
                t.tier
            );
        }
    }
}

/// The slope at pixel (x, y) over 8 m, metres per metre: central differences `k` pixels either
/// side, `k` the pixels in 8 m (at least one), on the heights above each row's sea.
pub(crate) fn slope_over_8m(w: &World, x: usize, y: usize) -> f32 {
    let h = &w.blueprint.heights;
    let n = h.dim().0;
    let px = islagen::units::metres_per_px(n);
    let k = ((8.0 / px).round() as usize).max(1);
    let m = |x: usize, y: usize| (h[[x, y]] - w.sea.at(y)) * islagen::units::METRES_PER_RAW;
    let (x0, x1) = (x.saturating_sub(k), (x + k).min(n - 1));
    let (y0, y1) = (y.saturating_sub(k), (y + k).min(n - 1));
    let gx = (m(x1, y) - m(x0, y)) / ((x1 - x0) as f32 * px);
    let gy = (m(x, y1) - m(x, y0)) / ((y1 - y0) as f32 * px);
    gx.hypot(gy)
}

/// Every town stands on ground its tier accepts, on the final heights — its pixel's
/// slope over 8 m within the tier's limit, and so is 90 % of its 25 m footprint — with every
/// erosion model (2048 and 8192: `scripts/playability.sh`, BENCHMARKS.md).
#[test]
fn towns_stand_on_ground_their_tier_accepts() {
    use islagen::config::ErosionModel;
    use islagen::stages::towns::{max_slope, FOOTPRINT_M};
    for model in [
        ErosionModel::Fluvial,
        ErosionModel::Droplets,
        ErosionModel::Off,
    ] {
        for seed in [1, 7] {
            let mut c = config(1024);
            c.erosion.model = model;
            let w = world(seed, &c);
            let n = w.blueprint.side();
            let reach = FOOTPRINT_M / islagen::units::metres_per_px(n);
            let r = reach.ceil() as usize;
            assert!(
                w.grading.towns_graded > 0,
                "{model:?} seed {seed}: nothing graded"
            );
            for t in &w.blueprint.towns {
                let (x, y) = (t.x as usize, t.y as usize);
                let limit = max_slope(t.tier);
                let label = format!("{model:?} seed {seed}: {:?} at ({x}, {y})", t.tier);
                let s = slope_over_8m(&w, x, y);
                assert!(s <= limit, "{label} on {s:.3} m/m, limit {limit}");
                let (mut within, mut all) = (0usize, 0usize);
                for fx in x.saturating_sub(r)..=(x + r).min(n - 1) {
                    for fy in y.saturating_sub(r)..=(y + r).min(n - 1) {
                        if (fx.abs_diff(x) as f32).hypot(fy.abs_diff(y) as f32) <= reach {
                            all += 1;
                            within += usize::from(slope_over_8m(&w, fx, fy) <= limit);
                        }
                    }
                }
                let share = within as f32 / all as f32;
                assert!(
                    share >= 0.9,
                    "{label}: {share:.2} of the footprint within the limit"
                );
            }
        }
    }
}
