//! A generation (the command with no subcommand): one world and its files.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};

use islagen::config::Config;
use islagen::pipeline;

use super::args::GenerateArgs;
use super::{export_kinds, world_config};

/// A generation: the seed line, the SkipRoads banner, the memory check, the pipeline, the
/// exports asked for, and the summary (unless `quiet`).
pub fn run(args: GenerateArgs, quiet: bool) -> Result<ExitCode> {
    let config = world_config(&args.world, args.seed)?;
    let kinds = export_kinds(args.world.export.as_deref())?;
    let seed = islagen::seed::resolve(config.world_seed);
    if config.world_seed == 0 {
        println!("==> Seed {seed} (randomized; pass --seed {seed} to regenerate this world)");
    } else {
        println!("==> Seed {seed}");
    }
    tracing::info!(
        "MapSize {} (scaleFactor {}), output folder {}",
        config.map_size,
        config.scale_factor(),
        args.out.display()
    );
    if config.skip_roads && quiet {
        tracing::warn!("SkipRoads: the road sections are written empty (an iteration blueprint, not a world to ship)");
    } else if config.skip_roads {
        println!("{}", "=".repeat(72));
        println!("==> SkipRoads: the road pass is SKIPPED. The four road sections are written");
        println!("    present and EMPTY: an iteration blueprint, not a world to ship.");
        println!("    Drop --skip-roads (and SkipRoads in the config) to build the roads.");
        println!("{}", "=".repeat(72));
    } else {
        tracing::debug!("roads: on (SkipRoads off)");
    }
    if !args.world.no_memory_check {
        islagen::memory::check(
            config.map_size,
            !config.skip_roads,
            super::memory_available(),
        )
        .map_err(super::too_large)?;
    }
    let progress = if args.progress_json {
        super::progress::json_lines()
    } else {
        super::progress::for_terminal(quiet)
    };
    let started = Instant::now();
    let layout = if args.assets_layout {
        pipeline::SidecarLayout::Assets
    } else {
        pipeline::SidecarLayout::Beside
    };
    let (world, mut written) =
        pipeline::generate_and_export(&config, seed, &args.out, layout, &progress)?;
    if !kinds.is_empty() {
        let stage = progress.stage("exports", 0);
        let dir = islagen::exports::folder_of(&args.out, seed);
        written.extend(
            islagen::exports::write_set(&world.blueprint, &dir, &kinds)
                .with_context(|| format!("writing the exports into {}", dir.display()))?,
        );
        stage.finish();
    }
    // -q: nothing but warnings, errors and the seed line above.
    if !quiet {
        print_summary(&config, &world, &written, started.elapsed());
    }
    Ok(ExitCode::SUCCESS)
}

/// The run's summary: the world's figures, what each stage did, the files written.
fn print_summary(
    config: &Config,
    world: &pipeline::World,
    written: &[pipeline::Written],
    elapsed: std::time::Duration,
) {
    for line in pipeline::summary::lines(config, world) {
        println!("{line}");
    }
    for w in written {
        println!("    wrote {} ({})", w.path.display(), human_bytes(w.bytes));
    }
    println!("    done in {elapsed:.2?}");
}

fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}
