//! Rivers: every reach drains, the water sits in its channel, levels step down to the mouth, the
//! vector section matches WBID, and a seed's rivers are the same at every MapSize.

use islagen::blueprint::format::WaterBodyType;
use islagen::config::Config;
use islagen::grid::NEIGHBOURS;
use islagen::pipeline::{self, World};
use islagen::progress::Progress;
use islagen::units::METRES_PER_RAW;

fn world(seed: i32, size: u32) -> World {
    world_with(seed, size, "{}")
}

/// The world of `seed` at `size` under the config `json` (roads skipped).
fn world_with(seed: i32, size: u32, json: &str) -> World {
    let mut c = Config::from_json(json, "t").unwrap().config;
    c.map_size = size;
    c.skip_roads = true;
    pipeline::generate(&c, seed, &Progress::hidden()).unwrap()
}

/// WBTB levels by id, and whether each id is a river reach.
fn reach_levels(w: &World) -> (Vec<f32>, Vec<bool>) {
    let bodies = w.blueprint.water_bodies.as_ref().unwrap();
    let mut level = vec![f32::NAN; bodies.len() + 2];
    let mut river = vec![false; bodies.len() + 2];
    for b in bodies {
        level[usize::from(b.id)] = b.surface_level;
        river[usize::from(b.id)] = b.kind == WaterBodyType::River;
    }
    (level, river)
}

#[test]
fn reaches_drain_sit_in_their_channels_and_step_down() {
    for seed in [42, 7] {
        let w = world(seed, 1024);
        let bp = &w.blueprint;
        let ids = bp.water_ids.as_ref().unwrap();
        let (level, river) = reach_levels(&w);
        let n = bp.side();
        let stats = w.rivers.clone().expect("rivers on by default");
        assert!(stats.rivers >= 3, "seed {seed}: {stats:?}");
        let reaches = river.iter().filter(|r| **r).count();
        let mut drains = vec![false; level.len()];
        let (mut pixels, mut dry_bed, mut low_bank, mut banks) = (0usize, 0usize, 0usize, 0usize);
        for ((x, y), &id) in ids.indexed_iter() {
            let id = usize::from(id);
            if !river[id] {
                continue;
            }
            pixels += 1;
            assert!(
                w.crater.distance(x, y)
                    >= islagen::stages::rivers::CRATER_CORE * w.crater.radius_px,
                "seed {seed}: a river bed in the crater's core at ({x}, {y})"
            );
            dry_bed += usize::from(bp.heights[[x, y]] >= level[id]);
            for (dx, dy) in NEIGHBOURS {
                let (nx, ny) = (x as isize + dx, y as isize + dy);
                if nx < 0 || ny < 0 || nx >= n as isize || ny >= n as isize {
                    continue;
                }
                let other = usize::from(ids[[nx as usize, ny as usize]]);
                if other == 0 {
                    banks += 1;
                    low_bank += usize::from(bp.heights[[nx as usize, ny as usize]] < level[id]);
                } else if other != id && (!river[other] || level[other] <= level[id]) {
                    drains[id] = true;
                }
            }
        }
        let pits: Vec<usize> = (0..level.len())
            .filter(|&i| river[i] && !drains[i])
            .collect();
        eprintln!(
            "seed {seed}: {stats:?}; {reaches} reaches, {pixels} px; bed not below surface on {dry_bed} px, {low_bank} of {banks} bank px below it; pits {pits:?}"
        );
        assert!(
            pits.is_empty(),
            "seed {seed}: reaches {pits:?} drain nowhere"
        );
        assert!(
            dry_bed as f64 <= 0.005 * pixels as f64,
            "seed {seed}: {dry_bed} of {pixels} river pixels not below their surface"
        );
        assert!(
            low_bank as f64 <= 0.005 * banks as f64,
            "seed {seed}: {low_bank} of {banks} bank pixels below the water"
        );
        // Levels never rise downstream, and the vector section names the reaches it covers.
        let rivr = bp.rivers.as_ref().expect("RIVR present");
        assert_eq!(rivr.rivers.len(), stats.rivers);
        for r in &rivr.rivers {
            assert!(r.order >= 1 && r.points.len() >= 2);
            for pair in r.reaches.windows(2) {
                let (a, b) = (usize::from(pair[0]), usize::from(pair[1]));
                assert!(river[a] && river[b]);
                assert!(level[b] <= level[a], "seed {seed}: reach {b} above {a}");
            }
            // Each centreline point lies on water: mostly its own reaches' pixels, the rest
            // on the river it joins (where the two overlap the larger keeps the pixels) or on
            // the water it ends in.
            let (mut own, mut wet) = (0usize, 0usize);
            let body = &r.points[..r.points.len() - 1]; // the last meets what it ends in
            for p in body {
                let id = ids[[p.x as usize, p.y as usize]];
                own += usize::from(r.reaches.contains(&id));
                wet += usize::from(id != 0);
            }
            let k = body.len();
            if k < 16 {
                // A short tributary's few pixels may have joined the reach of the river it
                // meets (every reach is one 4-connected piece).
                continue;
            }
            // A point may fall outside the drawn channel where the map's own coast (finer than
            // the hydrology grid) or the crater's protected core takes the river's last cells.
            assert!(
                wet as f64 >= 0.99 * k as f64,
                "seed {seed}: {} of {k} points on dry land",
                k - wet
            );
            assert!(
                own as f64 >= 0.75 * k as f64,
                "seed {seed}: {own} of {k} points on their reaches"
            );
            for p in &r.points {
                assert!(p.width_m > 0.0 && p.discharge_m3s > 0.0);
            }
        }
        assert!(stats.length_km > 1.0 && stats.largest_catchment_km2 > 0.0);
        let _ = METRES_PER_RAW;
    }
}

/// Every reach is one 4-connected set of WBID pixels, and the beds slope: a river
/// pixel's lowest neighbour on the river (or the water it ends in) lies strictly lower on all
/// but a few pixels (the bed's floor at the sea), where before each reach's bed was one flat
/// height.
#[test]
fn reaches_are_4_connected_and_their_beds_slope() {
    for seed in [42, 7] {
        let w = world(seed, 1024);
        let bp = &w.blueprint;
        let ids = bp.water_ids.as_ref().unwrap();
        let (level, river) = reach_levels(&w);
        let n = bp.side();
        // Components per reach id, by flood fill over 4-neighbours.
        let mut seen = vec![false; n * n];
        let mut pieces = vec![0usize; level.len()];
        for ((x, y), &id) in ids.indexed_iter() {
            if !river[usize::from(id)] || seen[x * n + y] {
                continue;
            }
            pieces[usize::from(id)] += 1;
            let mut stack = vec![(x, y)];
            seen[x * n + y] = true;
            while let Some((cx, cy)) = stack.pop() {
                for (dx, dy) in [(-1isize, 0isize), (1, 0), (0, -1), (0, 1)] {
                    let (nx, ny) = (cx as isize + dx, cy as isize + dy);
                    if nx < 0 || ny < 0 || nx >= n as isize || ny >= n as isize {
                        continue;
                    }
                    let (nx, ny) = (nx as usize, ny as usize);
                    if !seen[nx * n + ny] && ids[[nx, ny]] == id {
                        seen[nx * n + ny] = true;
                        stack.push((nx, ny));
                    }
                }
            }
        }
        let split: Vec<usize> = (0..level.len()).filter(|&i| pieces[i] > 1).collect();
        assert!(
            split.is_empty(),
            "seed {seed}: reaches in pieces: {split:?}"
        );
        // Zero-slope river pixels: no neighbour on water strictly below (beds 1 m or more
        // above the sea: nearer it the bed stops at sea + margin, flat by design).
        let (mut pixels, mut flat) = (0usize, 0usize);
        for ((x, y), &id) in ids.indexed_iter() {
            let sea = w.sea.at(y);
            if !river[usize::from(id)] || (bp.heights[[x, y]] - sea) * METRES_PER_RAW < 1.0 {
                continue;
            }
            pixels += 1;
            let h = bp.heights[[x, y]];
            let lower = NEIGHBOURS.iter().any(|(dx, dy)| {
                let (nx, ny) = (x as isize + dx, y as isize + dy);
                nx >= 0
                    && ny >= 0
                    && nx < n as isize
                    && ny < n as isize
                    && ids[[nx as usize, ny as usize]] != 0
                    && bp.heights[[nx as usize, ny as usize]] < h
            });
            flat += usize::from(!lower);
        }
        eprintln!("seed {seed}: {flat} of {pixels} river pixels without a lower wet neighbour");
        assert!(
            (flat as f64) <= 0.05 * pixels as f64,
            "seed {seed}: {flat} of {pixels} river pixels flat"
        );
    }
}

/// River pixels of `w`, as a mask downsampled by `k` (any river pixel in the block).
fn river_mask(w: &World, k: usize) -> (Vec<bool>, usize) {
    let n = w.blueprint.side() / k;
    let mut mask = vec![false; n * n];
    let side = w.blueprint.side();
    for i in w.river_pixels() {
        let (x, y) = (i as usize / side, i as usize % side);
        mask[(x / k) * n + y / k] = true;
    }
    (mask, n)
}

/// Share of `a`'s river pixels within `r` pixels of one of `b`'s.
fn within(a: &[bool], b: &[bool], n: usize, r: isize) -> f64 {
    let (mut hit, mut total) = (0usize, 0usize);
    for x in 0..n {
        for y in 0..n {
            if !a[x * n + y] {
                continue;
            }
            total += 1;
            let near = (-r..=r).any(|dx| {
                (-r..=r).any(|dy| {
                    let (nx, ny) = (x as isize + dx, y as isize + dy);
                    nx >= 0
                        && ny >= 0
                        && nx < n as isize
                        && ny < n as isize
                        && b[nx as usize * n + ny as usize]
                })
            });
            hit += usize::from(near);
        }
    }
    hit as f64 / total.max(1) as f64
}

/// A seed's rivers at one MapSize and at twice it coincide: ≥ 80 % of river pixels at either
/// size (downsampled to the smaller) lie within 2 pixels of a river pixel at the other.
#[test]
fn the_same_rivers_at_every_map_size() {
    for (seed, small) in [(42, 512u32), (7, 1024)] {
        let (a, b) = (world(seed, small), world(seed, small * 2));
        let (ma, n) = river_mask(&a, 1);
        let (mb, _) = river_mask(&b, 2);
        let (ab, ba) = (within(&ma, &mb, n, 2), within(&mb, &ma, n, 2));
        eprintln!("seed {seed}, {small} ↔ {}: {ab:.3} / {ba:.3}", small * 2);
        assert!(ab >= 0.8 && ba >= 0.8, "seed {seed}: {ab:.3} / {ba:.3}");
    }
}

/// With Rivers "off" there are no river bodies, no RIVR and nothing carved: the heights are
/// those of the rivers-on world wherever no river runs, but for the banks a reach near the sea
/// raises to its level (next to a river pixel, and only up).
#[test]
fn rivers_off_leaves_no_trace() {
    // Towns keep their footprints clear of rivers, so they (and the ground grading levels under
    // them) differ between the two: grading is off in both.
    let on = world_with(42, 512, r#"{"TownGrading": false}"#);
    let off = world_with(42, 512, r#"{"Rivers": "off", "TownGrading": false}"#);
    assert!(off.blueprint.rivers.is_none() && off.rivers.is_none());
    assert!(off.river_pixels().is_empty());
    let rivers = on.river_pixels();
    assert!(!rivers.is_empty());
    let n = 512;
    let mut is_river = vec![false; n * n];
    for &i in &rivers {
        is_river[i as usize] = true;
    }
    let beside = |x: usize, y: usize| {
        NEIGHBOURS.iter().any(|(dx, dy)| {
            let (nx, ny) = (x as isize + dx, y as isize + dy);
            nx >= 0
                && ny >= 0
                && nx < n as isize
                && ny < n as isize
                && is_river[nx as usize * n + ny as usize]
        })
    };
    for ((x, y), &h) in off.blueprint.heights.indexed_iter() {
        let now = on.blueprint.heights[[x, y]];
        if !is_river[x * n + y] {
            assert!(
                now == h || (now > h && beside(x, y)),
                "({x}, {y}) changed off the rivers: {h} → {now}"
            );
        } else {
            assert!(now <= h, "a river raised ({x}, {y})");
        }
    }
}

/// Rivers run in the valleys the land has: ≥ 90 % of river pixels lie within 2 pixels of a
/// channel of the surface without them (the same seed with Rivers "off": the eroded land, no
/// bed carved), a channel being a land cell draining at least [`HEADWATER_KM2`] — where the
/// drainage statistics (`scripts/geomorph.py`) start channels.
#[test]
fn rivers_run_in_the_lands_own_channels() {
    use islagen::stages::rivers::{flow, HEADWATER_KM2};
    for seed in [7, 42] {
        let size = 1024u32;
        let on = world(seed, size);
        let off = world_with(seed, size, r#"{"Rivers": "off"}"#);
        let n = size as usize;
        let land: Vec<bool> = off
            .water
            .iter()
            .map(|w| *w == islagen::stages::sea::Water::Dry)
            .collect();
        let outlet: Vec<bool> = land.iter().map(|l| !l).collect();
        let mut z: Vec<f32> = off.blueprint.heights.iter().copied().collect();
        let (_, acc) = flow(&mut z, &outlet, n);
        let cell_km2 = islagen::units::px_area_m2(n) / 1e6;
        let channels: Vec<bool> = (0..n * n)
            .map(|i| land[i] && f64::from(acc[i]) * cell_km2 >= f64::from(HEADWATER_KM2))
            .collect();
        let (mut rivers, _) = river_mask(&on, 1);
        for (r, l) in rivers.iter_mut().zip(&land) {
            *r &= *l;
        }
        let share = within(&rivers, &channels, n, 2);
        eprintln!("seed {seed} at {size}: {share:.3} of river pixels within 2 px of a channel");
        assert!(share >= 0.9, "seed {seed}: {share:.3}");
    }
}
