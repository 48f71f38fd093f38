//! The commands: each module reads its arguments ([`args`]), calls the engine, and prints the
//! report the engine gives back. What they share lives here: reading a blueprint or a config
//! with its warnings logged, the config overrides, the memory check.

pub mod args;
mod blueprint;
mod export;
mod formats;
mod generate;
mod progress;
mod serve;
mod sweep;

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};

use args::{Cli, Command, WorldArgs};
use islagen::config::heightmap::Heightmap;
use islagen::config::{Config, LoadedConfig, Overrides};

/// Runs the command `cli` names (a generation when it names none).
pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Some(Command::Inspect { file, json }) => blueprint::inspect(&file, json),
        Some(Command::Roundtrip { file }) => blueprint::roundtrip(&file),
        Some(Command::Config { markdown, json, .. }) => blueprint::config_keys(markdown, json),
        Some(Command::Convert { input, output, v1 }) => blueprint::convert(&input, &output, v1),
        Some(Command::Sweep(sweep)) => sweep::run(sweep, cli.quiet),
        Some(Command::Serve(args)) => serve::run(&args),
        Some(Command::IslandCode(cmd)) => formats::island_code(cmd),
        Some(Command::Structures(cmd)) => formats::structures(cmd),
        Some(Command::Starmade(cmd)) => formats::starmade(cmd),
        Some(Command::Export(cmd)) => export::run(cmd),
        None => generate::run(cli.generate, cli.quiet),
    }
}

/// A blueprint read whole, its warnings logged.
fn load(path: &Path) -> Result<islagen::blueprint::Loaded> {
    let loaded = islagen::blueprint::read_file(path)
        .with_context(|| format!("reading {}", path.display()))?;
    for w in &loaded.warnings {
        tracing::warn!("{}: {w}", path.display());
    }
    Ok(loaded)
}

/// The config at `path` (the defaults without one), what loading noticed logged.
fn load_config(path: Option<&Path>) -> Result<Config> {
    let LoadedConfig {
        config,
        unknown_keys,
        suggestions,
        ..
    } = match path {
        Some(path) => Config::load(path)?,
        None => Config::from_json("{}", "defaults")?,
    };
    for (given, known) in &suggestions {
        tracing::warn!("config key {given} is not used: did you mean {known}?");
    }
    if !unknown_keys.is_empty() {
        tracing::debug!(
            "config keys islagen does not use: {}",
            unknown_keys.join(", ")
        );
    }
    Ok(config)
}

/// The config `world` names with its flags applied (the seed from `seed`).
fn world_config(world: &WorldArgs, seed: Option<i32>) -> Result<Config> {
    let overrides = Overrides {
        world_seed: seed,
        map_size: world.size,
        skip_roads: world.skip_roads,
    };
    let config = load_config(world.config.as_deref())?.with_overrides(overrides)?;
    if world.heightmap.is_none() && world.heightmap_range.is_some() {
        anyhow::bail!("--heightmap-range is for --heightmap FILE, which was not given");
    }
    let Some(path) = &world.heightmap else {
        return Ok(config);
    };
    if let Some(scale) = world
        .heightmap_scale
        .filter(|s| !(s.is_finite() && *s > 0.0))
    {
        anyhow::bail!("--heightmap-scale {scale} is not a positive number");
    }
    let read = Heightmap::read(path, world.heightmap_range, world.heightmap_scale)?;
    Ok(config.with_heightmap(read))
}

/// Memory available to the run: the `ISLAGEN_MEMORY_AVAILABLE` environment variable, bytes,
/// when set (for tests, and machines without /proc), else what the system says.
fn memory_available() -> Option<u64> {
    match std::env::var_os("ISLAGEN_MEMORY_AVAILABLE") {
        Some(v) => v.to_str().and_then(|s| s.trim().parse().ok()),
        None => islagen::memory::available(),
    }
}

/// The memory check's refusal with what the command line can do about it.
fn too_large(e: islagen::memory::TooLarge) -> anyhow::Error {
    anyhow::anyhow!(
        "{e}. Use a smaller --size, free memory, or pass --no-memory-check to try anyway"
    )
}

/// `--export LIST` parsed (empty when not given).
fn export_kinds(list: Option<&str>) -> Result<Vec<islagen::exports::ExportKind>> {
    match list {
        None => Ok(Vec::new()),
        Some(list) => islagen::exports::ExportKind::parse_list(list)
            .map_err(|e| anyhow::anyhow!("--export {list}: {e}")),
    }
}
