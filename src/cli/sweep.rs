//! `islagen sweep`: many seeds into one folder, with a table and a contact sheet.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{bail, Result};

use super::args::{SweepCli, SweepCommand};
use super::{export_kinds, world_config};

/// `islagen sweep`: the seeds planned, the memory check, the sweep run with a bar, its report;
/// or `sweep merge`.
pub fn run(cli: SweepCli, quiet: bool) -> Result<ExitCode> {
    use islagen::sweep;
    if let Some(SweepCommand::Merge { dirs, out }) = cli.command {
        let rows = sweep::write_tables(&dirs, &out)?;
        println!(
            "==> merged {} folders: {rows} seeds into {}",
            dirs.len(),
            out.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let a = cli.args;
    let Some(out) = a.out else {
        bail!("sweep needs --out DIR (the sweep folder)");
    };
    let mut seeds = match (&a.seeds, &a.seeds_file) {
        (Some(spec), None) => sweep::parse_seeds(spec)?,
        (None, Some(file)) => sweep::read_seed_file(file)?,
        (Some(_), Some(_)) => bail!("give --seeds or --seeds-file, not both"),
        (None, None) => bail!("sweep needs --seeds A..B (or a list) or --seeds-file PATH"),
    };
    if let Some(spec) = &a.shard {
        let (k, n) = sweep::parse_shard(spec)?;
        seeds = seeds.into_iter().skip(k).step_by(n).collect();
    }
    let config = world_config(&a.world, None)?;
    let exports = export_kinds(a.world.export.as_deref())?;
    let plan = sweep::SweepPlan {
        config,
        seeds,
        jobs: a.jobs,
        out: out.clone(),
        exports,
    };
    if !a.world.no_memory_check {
        plan.check_memory(super::memory_available())
            .map_err(super::too_large)?;
    }
    println!(
        "==> Sweep: {} seeds at MapSize {}{} into {}",
        plan.seeds.len(),
        plan.config.map_size,
        if plan.config.skip_roads {
            " (SkipRoads)"
        } else {
            ""
        },
        out.display()
    );
    let bar = if !quiet && std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(plan.seeds.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix:>12} [{bar:40}] {pos}/{len} seeds, {elapsed} elapsed, ETA {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_prefix("sweep");
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let report = sweep::run(&plan, &|_| bar.inc(1))?;
    bar.finish_and_clear();
    println!(
        "==> {} seeds generated, {} already done (skipped), {} failed; {} seeds in {}",
        report.generated,
        report.skipped,
        report.failed.len(),
        report.rows,
        out.join("sweep.csv").display()
    );
    for (seed, why) in &report.failed {
        eprintln!("    seed {seed} failed: {why}");
    }
    Ok(if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
