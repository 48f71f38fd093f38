//! The terrain stages' invariants, on small maps: scale invariance, the waterline, the crater
//! bay, the one mainland, the Trench, the curve's promises, biome independence from the render
//! passes, and the islet dial.

use islagen::blueprint::format::{TCRV, TDTL};
use islagen::blueprint::{write::record_payload, Biome};
use islagen::config::{CoastProfile, Config, SeaLevelModel, TerrainCurve, TerrainDetail};
use islagen::pipeline::{self, World};
use islagen::progress::Progress;
use islagen::stages::crater::CARVE_FACTOR;
use islagen::stages::curve::BALANCED;
use islagen::stages::sea::Water;
use islagen::stages::topography::TRENCH_WIDTH;
use islagen::units::METRES_PER_RAW;
use ndarray::Array2;

fn config(size: u32) -> Config {
    let mut c = Config::from_json("{}", "defaults").unwrap().config;
    c.map_size = size;
    c.skip_roads = true; // roads have their own tests
                         // The designed surface's guarantees (the curve's lowland ceiling, the rim's lift, BIOM
                         // independent of the curve): the fluvial relief cuts valleys through benches and the rim
                         // by design, and its rivers (Lake in BIOM) follow the curved surface; tests/erosion.rs
                         // and the fluvial module's tests hold what it guarantees instead.
    c.erosion.model = islagen::config::ErosionModel::Off;
    c
}

fn world(seed: i32, c: &Config) -> World {
    pipeline::generate(c, seed, &Progress::hidden()).unwrap()
}

/// Land components (4-connected, an independent BFS), largest first: their areas.
fn land_components(water: &Array2<Water>) -> Vec<usize> {
    let (w, h) = water.dim();
    let mut seen = Array2::from_elem((w, h), false);
    let mut areas = Vec::new();
    for x in 0..w {
        for y in 0..h {
            if seen[[x, y]] || water[[x, y]] != Water::Dry {
                continue;
            }
            let mut area = 0;
            let mut queue = std::collections::VecDeque::from([(x, y)]);
            seen[[x, y]] = true;
            while let Some((x, y)) = queue.pop_front() {
                area += 1;
                for (nx, ny) in [
                    (x.wrapping_sub(1), y),
                    (x + 1, y),
                    (x, y.wrapping_sub(1)),
                    (x, y + 1),
                ] {
                    if nx < w && ny < h && !seen[[nx, ny]] && water[[nx, ny]] == Water::Dry {
                        seen[[nx, ny]] = true;
                        queue.push_back((nx, ny));
                    }
                }
            }
            areas.push(area);
        }
    }
    areas.sort_unstable_by(|a, b| b.cmp(a));
    areas
}

/// The most common value of a 2×2 block (ties to the first in block order).
fn mode4<T: PartialEq + Copy>(v: [T; 4]) -> T {
    let count = |x: T| v.iter().filter(|&&y| y == x).count();
    let best = v.iter().map(|&x| count(x)).max().unwrap_or(0);
    *v.iter().find(|&&x| count(x) == best).unwrap_or(&v[0])
}

/// Compares a map with the same seed at twice the size, downsampled by 2×2 majority.
fn assert_same_island(seed: i32, coarse_size: u32) {
    let coarse = world(seed, &config(coarse_size));
    let fine = world(seed, &config(coarse_size * 2));
    let n = coarse_size as usize;
    let (mut land_agree, mut biome_agree) = (0usize, 0usize);
    for x in 0..n {
        for y in 0..n {
            let block = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dy)| (2 * x + dx, 2 * y + dy));
            let fine_land = mode4(block.map(|p| fine.water[p] == Water::Dry));
            let fine_biome = mode4(block.map(|p| fine.blueprint.biomes[p]));
            land_agree += usize::from(fine_land == (coarse.water[[x, y]] == Water::Dry));
            biome_agree += usize::from(fine_biome == coarse.blueprint.biomes[[x, y]]);
        }
    }
    let total = (n * n) as f64;
    let land = land_agree as f64 / total;
    let biome = biome_agree as f64 / total;
    eprintln!(
        "seed {seed}, {n} vs {}: land/water {land:.4}, biome {biome:.4}",
        2 * n
    );
    assert!(
        land >= 0.98,
        "seed {seed} {n} vs {}: land/water agree on {land:.4}",
        2 * n
    );
    assert!(
        biome >= 0.90,
        "seed {seed} {n} vs {}: biomes agree on {biome:.4}",
        2 * n
    );
    // Crater centres, normalised by MapSize.
    for k in 0..2 {
        let a = (coarse.crater.center[k] + 0.5) / n as f32;
        let b = (fine.crater.center[k] + 0.5) / (2 * n) as f32;
        assert!(
            (a - b).abs() <= 0.01,
            "seed {seed}: crater centre moved by {}",
            (a - b).abs()
        );
    }
}

#[test]
fn the_same_seed_makes_the_same_island_at_512_and_1024() {
    assert_same_island(42, 512);
    assert_same_island(7, 512);
}

#[test]
fn the_same_seed_makes_the_same_island_at_1024_and_2048() {
    assert_same_island(1_280_587_109, 1024);
}

/// Every invariant one world must hold.
fn assert_invariants(w: &World, classify: &ndarray::Array2<f32>, label: &str) {
    let bp = &w.blueprint;
    let n = bp.side();
    let sea = &w.sea;
    let mut land = 0usize;
    let mut lowland = 0usize;
    let mut highest = f32::MIN;
    let margin = (TRENCH_WIDTH * n as f32).floor() as usize;
    for x in 0..n {
        for y in 0..n {
            let raw = classify[[x, y]];
            let out = bp.heights[[x, y]];
            let s = sea.at(y);
            // The shelf, curve and detail never move the waterline.
            assert_eq!(out < s, raw < s, "{label}: waterline moved at ({x}, {y})");
            // Biomes and water never disagree.
            let b = bp.biomes[[x, y]];
            match w.water[[x, y]] {
                Water::Ocean => assert_eq!(b, Biome::Ocean, "{label}: ({x}, {y})"),
                Water::Lake => assert_eq!(b, Biome::Lake, "{label}: ({x}, {y})"),
                Water::Dry if bp.water_ids.as_ref().is_some_and(|ids| ids[[x, y]] >= 2) => {
                    // A river pixel: fresh water on land, Lake in BIOM; its carved bed is land
                    // for the lowland share.
                    assert_eq!(b, Biome::Lake, "{label}: river at ({x}, {y})");
                    land += 1;
                    lowland += usize::from((out - s) * METRES_PER_RAW < BALANCED.orange_ceil_m);
                }
                Water::Dry => {
                    assert!(
                        !matches!(b, Biome::Ocean | Biome::Lake | Biome::Dirt),
                        "{label}"
                    );
                    land += 1;
                    let m = (out - s) * METRES_PER_RAW;
                    highest = highest.max(m);
                    lowland += usize::from(m < BALANCED.orange_ceil_m);
                    // Nothing above the lowland reaches below the lowland ceiling.
                    if raw - s + 0.15 >= BALANCED.knots[0] {
                        assert!(
                            m >= BALANCED.orange_ceil_m - 0.01,
                            "{label}: {m} m at ({x}, {y})"
                        );
                    }
                    // The Trench keeps land off the border.
                    let edge = x.min(y).min(n - 1 - x).min(n - 1 - y);
                    assert!(edge >= margin, "{label}: land {edge} px from the edge");
                }
            }
            // The crater bay is flooded and joined to the ocean.
            if w.crater.relative_distance(x, y) < CARVE_FACTOR {
                assert_eq!(
                    w.water[[x, y]],
                    Water::Ocean,
                    "{label}: crater bay at ({x}, {y})"
                );
            }
        }
    }
    // The summit spike reaches the cap exactly, and nothing passes it.
    assert!(
        (highest - BALANCED.cap_m).abs() < 0.05,
        "{label}: highest {highest} m"
    );
    // About 60 % of land is flat lowland.
    let share = lowland as f64 / land as f64;
    assert!(
        (0.45..=0.75).contains(&share),
        "{label}: lowland share {share:.3}"
    );
    // The crater sits on the northern coast.
    assert!(
        w.crater.center[1] < n as f32 * 0.5,
        "{label}: crater not in the north"
    );
    // One mainland; everything else is a small islet.
    let components = land_components(&w.water);
    assert_eq!(
        components[0], w.stats.mainland_px,
        "{label}: mainland is not one component"
    );
    assert_eq!(components.len() - 1, w.stats.islets, "{label}");
    for islet in &components[1..] {
        assert!(
            *islet * 50 < components[0],
            "{label}: an islet of {islet} px"
        );
    }
    // The records describe the terrain as applied.
    let curve = bp.curve.expect("TCRV present");
    assert_eq!((curve.version, curve.preset.unwrap().preset_id), (5, 2));
    assert_eq!(record_payload(bp, TCRV).unwrap().len(), 95);
    let detail = bp.detail.expect("TDTL present");
    assert!(detail.edge_amp_m <= detail.edge_max_shift_m);
    assert_eq!(record_payload(bp, TDTL).unwrap().len(), 30);
}

#[test]
fn terrain_invariants_hold_for_several_seeds_and_both_sea_models() {
    for seed in [1, 99, 123_456] {
        let c = config(512);
        let classify = pipeline::classify_heights(&c, seed);
        assert_invariants(&world(seed, &c), &classify, &format!("seed {seed}"));
    }
    let mut field = config(512);
    field.sea_level = SeaLevelModel::Field;
    let classify = pipeline::classify_heights(&field, 3);
    assert_invariants(&world(3, &field), &classify, "seed 3, field sea");
}

#[test]
fn biomes_and_water_ignore_the_curve_the_detail_and_the_shelf() {
    let base = world(5, &config(512));
    type Change = fn(&mut Config);
    let variants: [(&str, Change); 3] = [
        ("curve off", |c| c.terrain_curve = TerrainCurve::Off),
        ("detail off", |c| c.terrain_detail = TerrainDetail::Off),
        ("steep coast", |c| c.coast_profile = CoastProfile::Steep),
    ];
    for (name, change) in variants {
        let mut c = config(512);
        change(&mut c);
        let other = world(5, &c);
        assert!(
            other.blueprint.biomes == base.blueprint.biomes,
            "{name}: BIOM changed"
        );
        assert!(other.water == base.water, "{name}: water changed");
        assert!(
            other.blueprint.heights != base.blueprint.heights,
            "{name}: HGTS unchanged"
        );
    }
    let mut off = config(512);
    off.terrain_curve = TerrainCurve::Off;
    let off = world(5, &off);
    assert!(off.blueprint.curve.is_none() && off.blueprint.detail.is_none());
}

#[test]
fn the_islet_dial_sets_how_much_offshore_land_rises() {
    let islets = |density: f32| {
        let mut c = config(512);
        c.offshore_island_density = density;
        world(11, &c).stats
    };
    let none = islets(0.0);
    let default = islets(0.02);
    let many = islets(0.1);
    assert_eq!((none.islets, none.islet_px), (0, 0));
    assert!(default.islets > 0);
    assert!(many.islet_px > 2 * default.islet_px);
    assert_eq!(
        none.mainland_px, default.mainland_px,
        "islets moved the mainland"
    );
}

/// Config validation clamps ShelfEdgeVariation to a bound it states itself (config never reaches
/// into a stage); it must be exactly the curve preset's band-squeeze bound.
#[test]
fn config_shelf_edge_bound_is_the_curves_band_squeeze_bound() {
    assert_eq!(
        islagen::config::SHELF_EDGE_MAX_SHIFT_M.to_bits(),
        BALANCED.edge_max_shift_m().to_bits()
    );
}

/// The land mask of a world (BIOM not water).
fn land_mask(w: &World) -> Vec<bool> {
    w.blueprint.biomes.iter().map(|b| b.ordinal() > 1).collect()
}

/// Summit position as a fraction of MapSize.
fn summit(w: &World) -> [f64; 2] {
    let n = w.blueprint.side() as f64;
    let (mut best, mut at) = (f32::MIN, (0, 0));
    for ((x, y), &h) in w.blueprint.heights.indexed_iter() {
        if h > best {
            (best, at) = (h, (x, y));
        }
    }
    [at.0 as f64 / n, at.1 as f64 / n]
}

/// Mean land height (m above sea) in a ring of the crater, radii in crater radii.
fn ring_m(w: &World, lo: f32, hi: f32) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    for ((x, y), &h) in w.blueprint.heights.indexed_iter() {
        let d = w.crater.distance(x, y) / w.crater.radius_px;
        let above = h - w.sea.at(y);
        if (lo..hi).contains(&d) && above >= 0.0 {
            sum += f64::from(above * METRES_PER_RAW);
            count += 1;
        }
    }
    sum / count.max(1) as f64
}

/// Seeds make different islands (outline, spine, summit) and the crater has a rim;
/// SpineVariation, CoastVariation and CraterRim at 0 restore the original shapes. (The full
/// figures at 512 over 24 seeds come from `cargo run --release -p islagen-tools --example variety`.)
#[test]
fn every_seed_its_own_island_and_the_dials_restore_the_original() {
    let seeds = 1..=8;
    let varied: Vec<World> = seeds.clone().map(|s| world(s, &config(256))).collect();
    let mut ious = Vec::new();
    for (i, a) in varied.iter().enumerate() {
        for b in &varied[i + 1..] {
            let (ma, mb) = (land_mask(a), land_mask(b));
            let both = ma.iter().zip(&mb).filter(|(x, y)| **x && **y).count();
            let either = ma.iter().zip(&mb).filter(|(x, y)| **x || **y).count();
            ious.push(both as f64 / either as f64);
        }
    }
    let mean_iou = ious.iter().sum::<f64>() / ious.len() as f64;
    assert!(mean_iou <= 0.65, "mean pairwise land IoU {mean_iou:.3}");
    let spread = |worlds: &[World]| {
        let s: Vec<[f64; 2]> = worlds.iter().map(summit).collect();
        let k = s.len() as f64;
        let mean = [0, 1].map(|a| s.iter().map(|p| p[a]).sum::<f64>() / k);
        let var: f64 = [0, 1]
            .iter()
            .map(|&a| s.iter().map(|p| (p[a] - mean[a]).powi(2)).sum::<f64>() / k)
            .sum();
        var.sqrt()
    };
    assert!(
        spread(&varied) >= 0.08,
        "summit spread {:.3}",
        spread(&varied)
    );
    let mut lifts: Vec<f64> = varied
        .iter()
        .map(|w| ring_m(w, 0.85, 1.05) - ring_m(w, 1.4, 1.8))
        .collect();
    lifts.sort_by(f64::total_cmp);
    assert!(lifts[lifts.len() / 2] >= 5.0, "rim lifts {lifts:?}");
    for w in &varied {
        assert!(
            (0.28..=0.52).contains(&w.stats.land_fraction),
            "{}",
            w.stats.land_fraction
        );
    }

    let mut original = config(256);
    original.spine_variation = 0.0;
    original.coast_variation = 0.0;
    original.crater_rim_m = 0.0;
    let plain: Vec<World> = seeds.map(|s| world(s, &original)).collect();
    for w in &plain {
        let [x, _] = summit(w);
        assert!(
            (x - 0.5).abs() < 0.03,
            "seed {}: summit at x {x:.3}",
            w.stats.seed
        );
        assert_eq!(w.crater.outline_factor(0, 0), 1.0, "a circular crater");
    }
    assert!(spread(&plain) < spread(&varied));
}
