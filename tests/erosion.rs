//! Droplet erosion: it forms a drainage hierarchy, its carve is isotropic, it never touches what
//! it must not (sea, crater core, classification), and its record says what ran.

use islagen::blueprint::format::EROS;
use islagen::blueprint::write::record_payload;
use islagen::config::{Config, ErosionModel};
use islagen::grid::spectrum::correlation;
use islagen::pipeline::{self, World};
use islagen::progress::Progress;
use islagen::stages::erosion::{channel_system_px, CHANNEL_DEPTH_M};
use islagen::stages::mainland::component_sizes;
use islagen::units::METRES_PER_RAW;
use ndarray::Array2;

const SEED: i32 = 1_280_587_109;

fn config(size: u32, erosion: bool) -> Config {
    let mut c = Config::from_json("{}", "defaults").unwrap().config;
    c.map_size = size;
    c.skip_roads = true; // roads have their own tests
    c.erosion.model = if erosion {
        ErosionModel::Droplets
    } else {
        ErosionModel::Off
    };
    // Rivers carve after erosion, from the heights erosion leaves: off here, so the carve
    // compared is erosion's alone (tests/rivers.rs covers the two together).
    c.rivers = false;
    // Grading cuts and fills under the towns after erosion (its own tests hold it), and the
    // towns differ between the two worlds: off here too.
    c.town_grading = false;
    c
}

fn pair(size: u32) -> (World, World) {
    let off = pipeline::generate(&config(size, false), SEED, &Progress::hidden()).unwrap();
    let on = pipeline::generate(&config(size, true), SEED, &Progress::hidden()).unwrap();
    (off, on)
}

/// Carved depth per cell, metres (positive carved, negative built up).
fn carve(off: &World, on: &World) -> Array2<f32> {
    (&off.blueprint.heights - &on.blueprint.heights) * METRES_PER_RAW
}

#[test]
fn erosion_forms_a_drainage_hierarchy_and_an_isotropic_carve() {
    let (off, on) = pair(1024);
    let stats = on.erosion.clone().expect("erosion ran");
    let c = carve(&off, &on);
    let [half, five, ten] = stats.carved_past;
    eprintln!("{stats:?}");
    assert!(
        half > five && five > ten && ten > 0,
        "no hierarchy of depths: {stats:?}"
    );
    assert!(
        stats.channel_systems >= 10,
        "too few channel systems: {stats:?}"
    );

    // Trunks are deeper than the rills around them: the cells of channel systems (≥ 3 m, in
    // systems of ≥ 200 cells) average at least twice the depth of the shallow rills.
    let n = c.dim().0;
    let mut marks = Array2::<u32>::zeros((n, n));
    let mut id = 0;
    for x in 0..n {
        for y in 0..n {
            if marks[[x, y]] != 0 || c[[x, y]] < CHANNEL_DEPTH_M {
                continue;
            }
            id += 1;
            let mut stack = vec![(x, y)];
            marks[[x, y]] = id;
            while let Some((x, y)) = stack.pop() {
                for (nx, ny) in [
                    (x.wrapping_sub(1), y),
                    (x + 1, y),
                    (x, y.wrapping_sub(1)),
                    (x, y + 1),
                ] {
                    if nx < n && ny < n && marks[[nx, ny]] == 0 && c[[nx, ny]] >= CHANNEL_DEPTH_M {
                        marks[[nx, ny]] = id;
                        stack.push((nx, ny));
                    }
                }
            }
        }
    }
    let mut sizes = vec![0usize; id as usize + 1];
    marks.iter().for_each(|&m| sizes[m as usize] += 1);
    let (mut trunk, mut trunk_n, mut rill, mut rill_n) = (0.0f64, 0usize, 0.0f64, 0usize);
    for ((x, y), &m) in marks.indexed_iter() {
        let d = f64::from(c[[x, y]]);
        if m != 0 && sizes[m as usize] >= channel_system_px(n) {
            trunk += d;
            trunk_n += 1;
        } else if (0.5..f64::from(CHANNEL_DEPTH_M)).contains(&d) {
            rill += d;
            rill_n += 1;
        }
    }
    let (trunk, rill) = (trunk / trunk_n as f64, rill / rill_n as f64);
    eprintln!("trunk cells {trunk_n} mean {trunk:.2} m; rill cells {rill_n} mean {rill:.2} m");
    assert!(
        trunk >= 2.0 * rill,
        "trunks {trunk:.2} m not deeper than rills {rill:.2} m"
    );
    let systems = component_sizes((n, n), |x, y| c[[x, y]] >= CHANNEL_DEPTH_M)
        .into_iter()
        .filter(|&s| s >= channel_system_px(n))
        .count();
    assert_eq!(systems, stats.channel_systems);

    // Isotropy: the carve field's slope summed along the two axes and along the two diagonals
    // agrees within 5 % (a grid-bound walk would favour one family).
    let ratio = axes_over_diagonals(&c);
    eprintln!("axes / diagonals = {ratio:.4}");
    assert!(
        (ratio - 1.0).abs() <= 0.05,
        "carve is anisotropic: axes/diagonals {ratio:.4}"
    );
}

/// Σ |slope| along x and y over Σ |slope| along the two diagonals, from central differences.
fn axes_over_diagonals(c: &Array2<f32>) -> f64 {
    let n = c.dim().0;
    let (mut axes, mut diagonals) = (0.0f64, 0.0f64);
    for x in 1..n - 1 {
        for y in 1..n - 1 {
            let gx = f64::from(c[[x + 1, y]] - c[[x - 1, y]]) / 2.0;
            let gy = f64::from(c[[x, y + 1]] - c[[x, y - 1]]) / 2.0;
            axes += gx.abs() + gy.abs();
            diagonals += ((gx + gy).abs() + (gx - gy).abs()) / std::f64::consts::SQRT_2;
        }
    }
    axes / diagonals
}

#[test]
fn the_isotropy_measure_sees_grid_bound_grooves() {
    // Grooves along the x axis (what per-cell steepest descent carves) read as anisotropic...
    let grooves = Array2::from_shape_fn((256, 256), |(_, y)| (y as f32 * 0.7).sin());
    assert!((axes_over_diagonals(&grooves) - 1.0).abs() > 0.2);
    // ...and so do grooves along a diagonal; round pits do not.
    let diagonal = Array2::from_shape_fn((256, 256), |(x, y)| ((x + y) as f32 * 0.5).sin());
    assert!((axes_over_diagonals(&diagonal) - 1.0).abs() > 0.2);
    let pits = Array2::from_shape_fn((256, 256), |(x, y)| {
        let (dx, dy) = (x as f32 - 128.0, y as f32 - 128.0);
        ((dx * dx + dy * dy).sqrt() * 0.3).sin()
    });
    assert!((axes_over_diagonals(&pits) - 1.0).abs() < 0.05);
}

#[test]
fn erosion_keeps_the_coast_the_crater_core_the_caps_and_the_classification() {
    let (off, on) = pair(512);
    let c = carve(&off, &on);
    let e = &on.blueprint.erosion.expect("EROS present");
    assert!(off.blueprint.erosion.is_none(), "EROS absent when off");
    assert_eq!(record_payload(&on.blueprint, EROS).unwrap().len(), 67);
    assert_eq!(on.blueprint.biomes, off.blueprint.biomes, "BIOM changed");
    assert!(on.water == off.water, "water changed");
    let core = 0.80 * on.crater.radius_px;
    let mut touched = 0;
    for ((x, y), &d) in c.indexed_iter() {
        let sea = on.sea.at(y);
        let (before, after) = (off.blueprint.heights[[x, y]], on.blueprint.heights[[x, y]]);
        assert_eq!(after < sea, before < sea, "coastline moved at ({x}, {y})");
        if before < sea {
            assert_eq!(d, 0.0, "under-sea cell changed at ({x}, {y})");
        }
        assert!(
            d <= e.dials.carve_cap_m + 1e-3 && -d <= e.dials.deposit_cap_m + 1e-3,
            "cap at ({x}, {y}): {d}"
        );
        if d > 0.0 {
            assert!(
                after >= sea + e.dials.sea_margin_m / METRES_PER_RAW - 1e-6,
                "carved below the margin"
            );
        }
        if on.crater.distance(x, y) < core {
            assert_eq!(d, 0.0, "crater core changed at ({x}, {y})");
        }
        touched += usize::from(d != 0.0);
    }
    assert!(touched > 10_000, "erosion barely ran: {touched} cells");
}

#[test]
fn the_feather_ramps_and_full_does_not() {
    // Right outside the core, feather moves cells less than full does.
    let mut full = config(512, true);
    full.erosion.crater.mode = islagen::config::CraterErosionMode::Full;
    let full = pipeline::generate(&full, SEED, &Progress::hidden()).unwrap();
    let (off, feather) = pair(512);
    let ring = |w: &World| {
        let c = carve(&off, w);
        let r = w.crater.radius_px;
        c.indexed_iter()
            .filter(|((x, y), _)| {
                let d = w.crater.distance(*x, *y);
                d >= 0.80 * r && d < 1.05 * r
            })
            .map(|(_, d)| f64::from(d.abs()))
            .sum::<f64>()
    };
    let (f, a) = (ring(&feather), ring(&full));
    assert!(f < a, "feather ring {f} not gentler than full ring {a}");
}

/// Erosion's dials are in metres and per km² of land, so a 1024 preview erodes what the 2048
/// (and 8192) world will: the shares of land carved past 0.5 m and past 5 m agree within a
/// factor of 1.5, and the 2048 carve field, box-averaged onto the 1024 pixels, correlates with
/// the 1024 one (examples/erosion_scale adds 8192; BENCHMARKS.md has its figures).
#[test]
fn erosion_means_the_same_at_every_map_size() {
    let (off_1k, on_1k) = pair(1024);
    let (off_2k, on_2k) = pair(2048);
    let (e1, e2) = (
        on_1k.erosion.clone().unwrap(),
        on_2k.erosion.clone().unwrap(),
    );
    for k in 0..2 {
        let share =
            |e: &islagen::stages::erosion::ErosionStats| e.carved_past[k] as f64 / e.land_px as f64;
        let ratio = share(&e1) / share(&e2);
        eprintln!(
            "past {} m: {:.4} at 1024, {:.4} at 2048",
            [0.5, 5.0][k],
            share(&e1),
            share(&e2)
        );
        assert!(
            (1.0 / 1.5..=1.5).contains(&ratio),
            "shares differ by {ratio:.2}×"
        );
    }
    let (c1, c2) = (carve(&off_1k, &on_1k), carve(&off_2k, &on_2k));
    let down = Array2::from_shape_fn((1024, 1024), |(x, y)| {
        (c2[[2 * x, 2 * y]]
            + c2[[2 * x + 1, 2 * y]]
            + c2[[2 * x, 2 * y + 1]]
            + c2[[2 * x + 1, 2 * y + 1]])
            / 4.0
    });
    let r = correlation(
        c1.as_slice().expect("standard layout"),
        down.as_slice().expect("standard layout"),
    );
    eprintln!("carve correlation 1024 ↔ 2048: {r:.3}");
    assert!(r >= 0.6, "carve fields correlate only {r:.3}");
}

/// Land cells flatter than 2° (central differences, metres), a share of land.
fn flat_share(w: &World) -> f64 {
    let h = &w.blueprint.heights;
    let n = h.dim().0;
    let px = f64::from(islagen::units::metres_per_px(n));
    let (mut land, mut flat) = (0usize, 0usize);
    for x in 1..n - 1 {
        for y in 1..n - 1 {
            if h[[x, y]] < w.sea.at(y) {
                continue;
            }
            land += 1;
            let gx =
                f64::from(h[[x + 1, y]] - h[[x - 1, y]]) * f64::from(METRES_PER_RAW) / (2.0 * px);
            let gy =
                f64::from(h[[x, y + 1]] - h[[x, y - 1]]) * f64::from(METRES_PER_RAW) / (2.0 * px);
            flat += usize::from(gx.hypot(gy).atan().to_degrees() < 2.0);
        }
    }
    flat as f64 / land as f64
}

/// Erosion v2 (the default): the valleys are carved deep somewhere and shallow mostly, their
/// carve is isotropic (no grid headings: the axes-to-diagonals measure within 5 %), and the
/// lowland stays buildable (the share of land under 2° within ±25 % of the uneroded world's).
#[test]
fn fluvial_valleys_are_isotropic_and_keep_the_lowland_flat() {
    for seed in [7, 42] {
        let mut c = config(1024, false);
        let off = pipeline::generate(&c, seed, &Progress::hidden()).unwrap();
        c.erosion.model = ErosionModel::Fluvial;
        let on = pipeline::generate(&c, seed, &Progress::hidden()).unwrap();
        let s = on.fluvial.clone().expect("the fluvial relief ran");
        let carved = carve(&off, &on);
        assert!(carved.iter().all(|&d| d >= 0.0), "seed {seed}: a cell rose");
        let [one, ten, fifty] = s.carved_past;
        assert!(one > ten && ten > fifty && fifty > 0, "seed {seed}: {s:?}");
        let ratio = axes_over_diagonals(&carved);
        let (f0, f1) = (flat_share(&off), flat_share(&on));
        eprintln!(
            "seed {seed}: {s:?}; axes / diagonals {ratio:.4}; land under 2°: {f0:.3} → {f1:.3}"
        );
        assert!(
            (ratio - 1.0).abs() <= 0.05,
            "seed {seed}: carve anisotropic {ratio:.4}"
        );
        assert!(
            (f1 / f0 - 1.0).abs() <= 0.25,
            "seed {seed}: flat land {f0:.3} → {f1:.3}"
        );
    }
}

/// Closed depressions of `w`'s land deeper than `depth_m`: their count (the fill an
/// ε-Priority-Flood from the sea and the map's edge adds, in connected pieces).
fn depressions(w: &World, depth_m: f32) -> usize {
    let n = w.blueprint.side();
    let outlet: Vec<bool> = w
        .water
        .iter()
        .map(|c| *c != islagen::stages::sea::Water::Dry)
        .collect();
    let heights: Vec<f32> = w.blueprint.heights.iter().copied().collect();
    let mut filled = heights.clone();
    islagen::stages::rivers::flow(&mut filled, &outlet, n);
    let deep = |i: usize| (filled[i] - heights[i]) * METRES_PER_RAW > depth_m;
    component_sizes((n, n), |x, y| deep(x * n + y)).len()
}

/// Droplets that come to rest in a hollow fill it: erosion adds no field of pits ringed by
/// their own deposits. (The droplets once dug them, carving more on each way down into a
/// hollow than they filled on each way up: 2 248 closed depressions deeper than 1 m on this
/// map against 48 without erosion; 92 now.) At most three times those of the land without
/// erosion.
#[test]
fn droplets_leave_no_pits() {
    let (off, on) = pair(1024);
    let (before, after) = (depressions(&off, 1.0), depressions(&on, 1.0));
    eprintln!("closed depressions deeper than 1 m: off {before}, v1 {after}");
    assert!(after <= 3 * before.max(10), "off {before}, v1 {after}");
}
