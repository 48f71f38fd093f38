//! The run's summary as the command line prints it: the world's figures and what each stage
//! did ([`lines`]), and what the original's per-map erosion keys mean at this MapSize
//! ([`erosion_notes`]). One home for both, so every front end says the same.

use crate::config::Config;
use crate::stages::erosion::ErosionStats;

use super::World;

/// The summary of `world`, generated under `config`: one line a figure, each indented by four
/// spaces after the first ("==> Seed …").
pub fn lines(config: &Config, world: &World) -> Vec<String> {
    let mut lines = Vec::new();
    let s = &world.stats;
    lines.push(format!("==> Seed {} at MapSize {}", s.seed, s.map_size));
    lines.push(format!(
        "    land {:.1} % of the map; mainland {} px; {} islets ({} px); {} lakes ({} px); {} river reaches ({} px)",
        s.land_fraction * 100.0,
        s.mainland_px,
        s.islets,
        s.islet_px,
        s.lakes,
        s.lake_px,
        s.river_reaches,
        s.river_reach_px
    ));
    lines.push(format!(
        "    crater centre ({:.0}, {:.0}), radius {:.0} px",
        s.crater_center[0], s.crater_center[1], world.crater.radius_px
    ));
    let t = &world.towns;
    lines.push(format!(
        "    towns: {} Capitol, {} Hubs (1 snow hub), {} Villages, {} Outposts, {} POIs",
        t.placed[0], t.placed[1], t.placed[2], t.placed[3], t.placed[4]
    ));
    let g = &world.grading;
    if g.towns_graded > 0 {
        lines.push(format!(
            "    grading: {} towns on cut and fill, {} px moved; deepest cut {:.1} m, highest fill {:.1} m",
            g.towns_graded, g.pixels_moved, g.max_cut_m, g.max_fill_m
        ));
    }
    let b = &world.basins;
    lines.push(format!(
        "    basins (priority flood, not saved): {} depressions over {} cells; largest {} cells; deepest {:.1} m; median depth {:.2} m",
        b.basins, b.filled_cells, b.largest_cells, b.max_depth_m, b.median_depth_m
    ));
    if let Some(r) = &world.rivers {
        lines.push(format!(
            "    rivers: {} rivers in {} systems ({:.0} % reach the sea, the rest a lake), {} reaches, {:.1} km; largest catchment {:.2} km²",
            r.rivers,
            r.systems,
            r.to_sea * 100.0,
            r.reaches,
            r.length_km,
            r.largest_catchment_km2
        ));
    }
    if let Some(r) = &world.roads {
        let s = &r.stats;
        lines.push(format!(
            "    roads: {} highway, {} branch, {} rugged, {} trail paths; bridges {} / {} / {} / {}; {} towns abandoned (over {:.0} % of MapSize from the network, or unreachable); {} nodes expanded",
            s.paths[0],
            s.paths[1],
            s.paths[2],
            s.paths[3],
            s.bridges[0],
            s.bridges[1],
            s.bridges[2],
            s.bridges[3],
            s.abandoned,
            crate::stages::roads::ABANDON_FRACTION * 100.0,
            s.expanded
        ));
    }
    if let Some(e) = &world.erosion {
        let share = |px: usize| 100.0 * px as f64 / e.land_px.max(1) as f64;
        let cell = crate::stages::erosion::CELL_M;
        lines.push(format!(
            "    erosion: {} droplets on land ({:.0} per km² of land), up to {:.0} m each, brush {:.0} m, on {cell} m cells; {} steps",
            e.droplets_on_land,
            e.per_land_km2,
            e.lifetime_cells as f32 * cell,
            e.brush_cells as f32 * cell,
            e.steps
        ));
        lines.push(format!(
            "    erosion: land carved past 0.5 / 5 / 10 m: {:.2} / {:.2} / {:.3} %; {} channel systems (≥ {:.0} m² at ≥ {} m); deepest {:.1} m, highest build-up {:.1} m",
            share(e.carved_past[0]),
            share(e.carved_past[1]),
            share(e.carved_past[2]),
            e.channel_systems,
            crate::stages::erosion::CHANNEL_SYSTEM_M2,
            crate::stages::erosion::CHANNEL_DEPTH_M,
            e.max_carve_m,
            e.max_deposit_m
        ));
        for note in erosion_notes(config, e) {
            lines.push(format!("    note: {note}"));
        }
    }
    lines
}

/// What the original's per-map erosion keys, when a config gives them, mean at this MapSize
/// (each names the scale-invariant key that supersedes it, from [`crate::config::keys`]).
pub fn erosion_notes(config: &Config, ran: &ErosionStats) -> Vec<String> {
    use crate::config::keys::{find, Key};
    use crate::config::{DropletBudget, ErosionLength};
    // Found when the program is compiled: a key renamed in the table does not build here.
    const COUNT: &Key = find("ErosionDropletCount");
    const LIFETIME: &Key = find("ErosionDropletLifetime");
    const BRUSH: &Key = find("ErosionBrushRadius");
    let newer = |old: &Key| old.superseded_by.unwrap_or_default();
    let size = config.map_size;
    let mut notes = Vec::new();
    if let DropletBudget::Count(n) = config.erosion.droplets {
        let density = newer(COUNT);
        let default = find(density).default.number();
        notes.push(format!(
            "{} {n} is a count over the whole map: at MapSize {size} that is {:.0} droplets per km² of land, and the same count erodes less per km² on a larger map. {density} (default {default}) gives the same erosion at every MapSize",
            COUNT.name, ran.per_land_km2
        ));
    }
    for (key, length) in [
        (LIFETIME, config.erosion.lifetime),
        (BRUSH, config.erosion.brush),
    ] {
        if let ErosionLength::Cells(c) = length {
            notes.push(format!(
                "{} {c} is in map cells: {:.0} m at MapSize {size} (and a different distance at another size); {} states it in metres",
                key.name,
                length.metres(size),
                newer(key)
            ));
        }
    }
    notes
}
