//! The `islagen` command line: argument parsing, logging and error reporting; nothing else.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use std::io::IsTerminal;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};

use islagen::blueprint;
use islagen::config::{Config, LoadedConfig};
use islagen::pipeline;
use islagen::progress::Progress;

/// Fast, deterministic procedural island worlds, written as the game server's `.dat` blueprint.
#[derive(Parser, Debug)]
#[command(name = "islagen", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    generate: GenerateArgs,
    /// More log output (-v debug, -vv trace).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Only the seed line, warnings and errors.
    #[arg(short, long, global = true)]
    quiet: bool,
}

/// Generate a world (the default when no subcommand is given).
#[derive(Args, Debug)]
struct GenerateArgs {
    /// World seed; 0 = randomize (the resolved seed is printed and used for file names).
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<i32>,
    /// Pixels per side, in MapSize's range (`islagen config --list`); overrides MapSize in the
    /// config.
    #[arg(long, value_parser = clap::value_parser!(u32).range(islagen::config::keys::map_size_range()))]
    size: Option<u32>,
    /// Export present-but-empty road sections instead of running the road pass.
    #[arg(long)]
    skip_roads: bool,
    /// A ServerConfig.json; without it the spec defaults apply.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Folder for the blueprints and snapshots.
    #[arg(long, default_value = ".")]
    out: PathBuf,
    /// Write the structure sidecar as `assets/MapData_Seed_<seed>/structures.json` (the game's
    /// layout) instead of `MapData_Seed_<seed>.structures.json` beside the blueprint.
    #[arg(long)]
    assets_layout: bool,
    /// Generate even when the estimated peak memory exceeds what the machine has available.
    #[arg(long)]
    no_memory_check: bool,
    /// Also write exports for engines and GIS into `Map_Seed_<seed>_exports/`: a comma list of
    /// heightmap (16-bit PNG), r16 (Unity RAW), tiff (GeoTIFF), splat, geojson, or all.
    #[arg(long, value_name = "LIST")]
    export: Option<String>,
    /// Print each stage's start and finish as a JSON line on stdout (for `islagen serve`).
    #[arg(long, hide = true)]
    progress_json: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Summarise a blueprint: format, sections, params, heights, biomes, towns, roads, water.
    Inspect {
        /// A v2 or v1 `.dat` file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Load, re-write as v2, reload and compare; exit 0 on a faithful round trip.
    Roundtrip {
        /// A v2 or v1 `.dat` file.
        file: PathBuf,
    },
    /// Generate many seeds, a summary table (CSV + JSON lines) and a contact sheet; resumable.
    Sweep(SweepCli),
    /// Decode, inspect and encode the game's island codes (the island save string).
    #[command(subcommand, name = "island-code")]
    IslandCode(IslandCodeCommand),
    /// Turn a generated world into another game format.
    #[command(subcommand)]
    Export(ExportCommand),
    /// Validate, normalise and query `structures.json` sidecars.
    #[command(subcommand)]
    Structures(StructuresCommand),
    /// Read, check and re-write StarMade blueprints (folders or `.sment` archives).
    #[command(subcommand)]
    Starmade(StarmadeCommand),
    /// Explore the worlds in a folder in a browser, and tune the dials with a live preview.
    Serve(ServeArgs),
    /// The ServerConfig.json keys islagen reads: default, range, unit and meaning of each.
    Config {
        /// List every key (what `islagen config` does with no option).
        #[arg(long)]
        list: bool,
        /// Print the README's Markdown key table instead.
        #[arg(long, conflicts_with_all = ["list", "json"])]
        markdown: bool,
        /// Print a ServerConfig.json with every key at its default (config/ServerConfig.json).
        #[arg(long, conflicts_with = "list")]
        json: bool,
    },
    /// Re-encode any readable blueprint as v2 (or v1).
    Convert {
        /// Source `.dat`.
        input: PathBuf,
        /// Destination file.
        output: PathBuf,
        /// Write the legacy v1 layout instead of v2.
        #[arg(long)]
        v1: bool,
    },
}

/// `islagen serve`'s flags.
#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// The world folder (blueprints, sweeps, exports).
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = islagen_serve::DEFAULT_PORT)]
    port: u16,
    /// Address to listen on; anything but loopback shares the folder on the network.
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// A host name the browser may reach the server by, besides localhost and the bound
    /// address (repeatable): requests naming any other Host are refused.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_host: Vec<String>,
    /// Most MiB the tile cache holds (PNGs, keys and entries counted).
    #[arg(long, value_name = "MIB", default_value_t = islagen_serve::DEFAULT_CACHE_MIB)]
    cache_mib: u64,
    /// Most MiB the loaded worlds hold beyond the one in use (a v1 world of 8192 holds 320 MiB,
    /// a v2 one under 0.1 MiB: its grids stay in the file).
    #[arg(long, value_name = "MIB", default_value_t = islagen_serve::DEFAULT_WORLD_MIB)]
    world_mib: u64,
    /// Most worlds held loaded.
    #[arg(long, value_name = "N", default_value_t = islagen_serve::DEFAULT_MAX_WORLDS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096))]
    max_worlds: usize,
    /// Most connections open at once; past it new ones wait to be accepted.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65536))]
    max_connections: usize,
    /// Seconds a connection has to send a request's head before it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    header_timeout: u64,
}

impl ServeArgs {
    /// The server's options.
    fn options(&self) -> islagen_serve::ServeOptions {
        let mib = |m: u64| m.saturating_mul(1 << 20);
        let mut opts =
            islagen_serve::ServeOptions::new(self.dir.clone(), (self.bind, self.port).into());
        opts.allowed_hosts = self.allow_host.clone();
        opts.max_tile_bytes = usize::try_from(mib(self.cache_mib)).unwrap_or(usize::MAX);
        opts.max_world_bytes = mib(self.world_mib);
        opts.max_worlds = self.max_worlds;
        opts.limits = islagen_serve::listen::Limits {
            header_timeout: std::time::Duration::from_secs(self.header_timeout),
            max_connections: self.max_connections,
        };
        opts
    }
}

#[derive(Subcommand, Debug)]
enum IslandCodeCommand {
    /// Decode an island code: a summary, or the island as JSON (editable), or a picture.
    Decode {
        /// The code itself (or use --file).
        code: Option<String>,
        /// A file holding the code.
        #[arg(long)]
        file: Option<PathBuf>,
        /// Print the island as JSON (grids as rows of one-letter tiles).
        #[arg(long)]
        json: bool,
        /// Also write a picture of the grid.
        #[arg(long)]
        png: Option<PathBuf>,
    },
    /// Encode an island JSON (as `decode --json` prints it) into an island code.
    Encode {
        /// The island JSON.
        file: PathBuf,
        /// Write the code to this file as well as printing it.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
enum StarmadeCommand {
    /// Header, meta, logic, every region and segment; checks the block histogram against the
    /// header's element map (exit 1 on a mismatch).
    Inspect {
        /// A blueprint folder or `.sment` archive.
        path: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Re-write a blueprint as header version 3 with `.smd3` regions: a folder and a `.sment`.
    Write {
        /// A blueprint folder or `.sment` archive.
        path: PathBuf,
        /// Output folder.
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
enum StructuresCommand {
    /// Validate a sidecar; with --map also report footprints on water or off the map.
    Check {
        /// The structures.json.
        file: PathBuf,
        /// The world it belongs to.
        #[arg(long)]
        map: Option<PathBuf>,
    },
    /// Write the normalised document (defaults filled in, stable key order).
    Normalize {
        /// The structures.json to read.
        input: PathBuf,
        /// Where to write the normalised one.
        output: PathBuf,
    },
    /// Whether a structure of TYPE can be placed with its footprint origin at (X, Y); exit 0
    /// for yes, 1 for no.
    CanPlace {
        /// The structures.json.
        file: PathBuf,
        /// The type id.
        #[arg(name = "TYPE")]
        type_id: String,
        /// Footprint origin x, map pixels.
        #[arg(allow_negative_numbers = true)]
        x: i64,
        /// Footprint origin y, map pixels.
        #[arg(allow_negative_numbers = true)]
        y: i64,
        /// The world, for water, slope and bounds.
        #[arg(long)]
        map: Option<PathBuf>,
        /// List every refusing cell and its reason.
        #[arg(long)]
        why: bool,
    },
}

/// StarMade entity kinds, by the game's numbering (entity type, classification).
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum EntityArg {
    /// An asteroid: entity type 3, classification 18.
    Asteroid,
    /// A managed asteroid: entity type 4, classification 19.
    ManagedAsteroid,
    /// A planet plate: entity type 5, classification 20.
    Planet,
    /// A space station: entity type 2, classification 9.
    Station,
}

#[derive(Subcommand, Debug)]
enum ExportCommand {
    /// A generated world as a StarMade blueprint: a folder and a `.sment` archive.
    Starmade {
        /// The world's blueprint (`.dat`).
        #[arg(long)]
        from: PathBuf,
        /// Output folder.
        #[arg(long)]
        out: PathBuf,
        /// Blocks across the island's longer side.
        #[arg(long, default_value_t = 256)]
        width: usize,
        /// The StarMade entity.
        #[arg(long, value_enum, default_value = "asteroid")]
        entity: EntityArg,
    },
    /// A generated world as an island code: the map downsampled to SIDE × SIDE tiles.
    #[command(name = "island-code")]
    IslandCode {
        /// The world's blueprint (`.dat`, v2 or v1).
        #[arg(long)]
        from: PathBuf,
        /// Tiles per side.
        #[arg(long, default_value_t = 64)]
        side: usize,
        /// File for the code (default: beside the blueprint, `<name>.islandcode.txt`).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// A heightmap in metres above sea: 16-bit PNG (Unreal, Godot, Blender), Unity RAW `.r16`
    /// or float32 GeoTIFF, with a JSON sidecar `FILE.json` (also printed) mapping values to
    /// metres.
    Heightmap {
        /// The world's blueprint (`.dat`, v2 or v1).
        #[arg(long)]
        from: PathBuf,
        /// The file format.
        #[arg(long, value_enum, default_value = "png16")]
        format: HeightFormatArg,
        /// The heightmap file.
        #[arg(long)]
        out: PathBuf,
        /// Resample (bilinear, corner-aligned) to N × N, e.g. 4097 or 8193 (2ⁿ + 1) for Unity,
        /// 4033 or 8129 for Unreal.
        #[arg(long, value_name = "N")]
        resample: Option<usize>,
    },
    /// Splat maps (the biomes as weights, four to an RGBA PNG), water, road and river masks and
    /// a legend `splat.json`, into a folder.
    Splat {
        /// The world's blueprint (`.dat`, v2 or v1).
        #[arg(long)]
        from: PathBuf,
        /// Output folder.
        #[arg(long)]
        out: PathBuf,
        /// Width in metres of the box filter that softens biome edges (0 = hard edges).
        #[arg(long, value_name = "M", default_value_t = 0.0)]
        blur: f32,
    },
    /// Towns, roads, rivers, water bodies and the crater as GeoJSON, in metres of a local CRS
    /// (origin at the map's south-west corner, y north).
    Geojson {
        /// The world's blueprint (`.dat`, v2 or v1).
        #[arg(long)]
        from: PathBuf,
        /// The GeoJSON file.
        #[arg(long)]
        out: PathBuf,
        /// Area tolerance of the polygon simplification, m² (default: one pixel's area; 0 =
        /// none).
        #[arg(long, value_name = "M2")]
        simplify: Option<f64>,
    },
}

/// Heightmap file formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum HeightFormatArg {
    /// 16-bit grayscale PNG, rows north first (Unreal, Godot, Blender).
    Png16,
    /// Headerless 16-bit little-endian RAW, rows south first (Unity).
    R16,
    /// Float32 GeoTIFF in metres, local CRS (GDAL, QGIS).
    Tiff,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
struct SweepCli {
    #[command(subcommand)]
    command: Option<SweepCommand>,
    #[command(flatten)]
    args: SweepArgs,
}

#[derive(Subcommand, Debug)]
enum SweepCommand {
    /// Join the tables (and contact sheets) of several sweep folders, e.g. a sweep's shards.
    Merge {
        /// Sweep folders to join.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Folder for the joined sweep.csv, sweep.jsonl and contact_sheet.png.
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Args, Debug)]
struct SweepArgs {
    /// Seeds: `A..B` (A through B, inclusive), a list `1,5,9`, or both (`1..100,512`).
    #[arg(long, allow_hyphen_values = true)]
    seeds: Option<String>,
    /// A file of seeds: one per line (ranges and lists allowed), `#` comments.
    #[arg(long)]
    seeds_file: Option<PathBuf>,
    /// Pixels per side, in MapSize's range (`islagen config --list`); overrides MapSize in the
    /// config.
    #[arg(long, value_parser = clap::value_parser!(u32).range(islagen::config::keys::map_size_range()))]
    size: Option<u32>,
    /// Skip the road pass for every seed.
    #[arg(long)]
    skip_roads: bool,
    /// A ServerConfig.json shared by every seed (its WorldSeed is ignored).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Seeds generated at once (default: every core at MapSize ≤ 2048, else one).
    #[arg(long)]
    jobs: Option<usize>,
    /// Take only every N-th seed, starting at the K-th (0-based): `K/N`, for job arrays.
    #[arg(long)]
    shard: Option<String>,
    /// Sweep even when the estimated peak memory of the seeds run at once exceeds what the
    /// machine has available.
    #[arg(long)]
    no_memory_check: bool,
    /// Also write every seed's exports into `Map_Seed_<seed>_exports/` (as for a generation).
    #[arg(long, value_name = "LIST")]
    export: Option<String>,
    /// The sweep folder: every seed's outputs, records/, thumbs/, sweep.csv, sweep.jsonl,
    /// contact_sheet.png.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Counts heap bytes so each stage reports its peak (islagen::memory).
#[global_allocator]
static ALLOC: islagen::memory::CountingAlloc = islagen::memory::CountingAlloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A sweep's per-seed stage logs would drown its progress bar: warnings only, unless -v.
    let sweeping = matches!(cli.command, Some(Command::Sweep(_)));
    let level = match (cli.quiet || sweeping, cli.verbose) {
        (true, 0) => tracing::Level::WARN,
        (true, _) if cli.quiet => tracing::Level::WARN,
        (true, 1) => tracing::Level::INFO,
        (false, 0) => tracing::Level::INFO,
        (false, 1) => tracing::Level::DEBUG,
        _ => tracing::Level::TRACE,
    };
    tracing_subscriber::fmt()
        .with_max_level(level)
        .with_target(false)
        .without_time()
        .with_ansi(colour_on_stderr())
        .with_writer(std::io::stderr)
        .init();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Colour codes in the log only on a terminal, and never when `NO_COLOR` is set to anything
/// (no-color.org): a log piped or written to a file reads as plain text.
fn colour_on_stderr() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    std::io::stderr().is_terminal() && !no_color
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Some(Command::Inspect { file, json }) => {
            let loaded = load(&file)?;
            let report = islagen::blueprint::inspect::report(&loaded);
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{report}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Roundtrip { file }) => {
            let loaded = load(&file)?;
            match islagen::blueprint::roundtrip::roundtrip(&loaded) {
                Ok(r) => {
                    println!(
                        "round trip OK: {} ({:?}, {} bytes) → v2 ({} bytes) → identical",
                        file.display(),
                        loaded.format,
                        loaded.file_len,
                        r.v2_bytes
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    eprintln!("round trip FAILED for {}: {e}", file.display());
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        Some(Command::Config {
            list: _,
            markdown,
            json,
        }) => {
            use islagen::config::keys;
            let text = match (markdown, json) {
                (true, _) => keys::markdown_table(),
                (_, true) => keys::server_config_json(),
                _ => keys::listing(),
            };
            print!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Convert { input, output, v1 }) => {
            let mut bp = load(&input)?.blueprint;
            bp.params.stamp_provenance();
            let bytes = if v1 {
                blueprint::write_v1_file(&output, &bp)
            } else {
                blueprint::write_v2_file(&output, &bp)
            }
            .with_context(|| format!("writing {}", output.display()))?;
            println!(
                "wrote {} ({} bytes, {})",
                output.display(),
                bytes,
                if v1 { "v1" } else { "v2" }
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Sweep(sweep)) => run_sweep(sweep, cli.quiet),
        Some(Command::Serve(args)) => serve(&args),
        Some(Command::IslandCode(cmd)) => island_code(cmd),
        Some(Command::Structures(cmd)) => structures(cmd),
        Some(Command::Starmade(cmd)) => starmade(cmd),
        Some(Command::Export(ExportCommand::Starmade {
            from,
            out,
            width,
            entity,
        })) => {
            use islagen::formats::starmade::export::{island, Entity};
            let bp = load(&from)?.blueprint;
            let entity = match entity {
                EntityArg::Asteroid => Entity::Asteroid,
                EntityArg::ManagedAsteroid => Entity::ManagedAsteroid,
                EntityArg::Planet => Entity::Planet,
                EntityArg::Station => Entity::Station,
            };
            let name = pipeline::OutputNames::of(bp.params.world_seed).starmade;
            let voxels = island(&bp, width, entity, &name)
                .with_context(|| format!("exporting {} to StarMade", from.display()))?;
            islagen::formats::starmade::write(&voxels.blueprint, &out)?;
            let blocks: i64 = voxels
                .blueprint
                .header
                .elements
                .iter()
                .map(|(_, n)| i64::from(*n))
                .sum();
            println!(
                "wrote {} and {}.sment: {blocks} blocks, {:.1} m per block",
                out.join(&name).display(),
                out.join(&name).display(),
                voxels.metres_per_block
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Export(ExportCommand::IslandCode { from, side, out })) => {
            let bp = load(&from)?.blueprint;
            let island = islagen::formats::island_code::export::island_from_world(&bp, side)?;
            let code = islagen::formats::island_code::encode(&island);
            let out = out.unwrap_or_else(|| pipeline::OutputNames::island_code_beside(&from));
            islagen::output::write_bytes_atomically(&out, format!("{code}\n").as_bytes())
                .with_context(|| format!("writing {}", out.display()))?;
            println!("{code}");
            eprintln!("wrote {} ({side} × {side} tiles)", out.display());
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Export(cmd)) => export(cmd),
        None => generate(cli.generate, cli.quiet),
    }
}

/// `islagen export heightmap | splat | geojson`.
fn export(cmd: ExportCommand) -> Result<ExitCode> {
    use islagen::exports;
    match cmd {
        ExportCommand::Heightmap {
            from,
            format,
            out,
            resample,
        } => {
            let bp = load(&from)?.blueprint;
            let format = match format {
                HeightFormatArg::Png16 => exports::heightmap::HeightFormat::Png16,
                HeightFormatArg::R16 => exports::heightmap::HeightFormat::R16,
                HeightFormatArg::Tiff => exports::heightmap::HeightFormat::Tiff,
            };
            let sidecar = exports::heightmap::export(&bp, &out, format, resample)
                .with_context(|| format!("exporting {} as a heightmap", from.display()))?;
            println!("{}", serde_json::to_string_pretty(&sidecar)?);
            eprintln!(
                "wrote {} ({} × {}, {:.4} m per unit, {:.3} m per pixel) and {}",
                out.display(),
                sidecar.width,
                sidecar.height,
                sidecar.metres_per_unit,
                sidecar.metres_per_pixel,
                sidecar.sidecar_path(&out).display()
            );
        }
        ExportCommand::Splat { from, out, blur } => {
            let bp = load(&from)?.blueprint;
            let report = exports::splat::export(&bp, &out, blur)
                .with_context(|| format!("exporting {} as splat maps", from.display()))?;
            for f in &report.legend.splat {
                println!("{}: R G B A = {}", f.file, f.channels.join(", "));
            }
            for m in &report.legend.masks {
                println!("{}: {}", m.file, m.meaning);
            }
            println!(
                "wrote {} files into {} (blur {} m = box radius {} px; weights sum to 255)",
                report.files.len(),
                out.display(),
                report.legend.blur_m,
                report.legend.blur_radius_px
            );
        }
        ExportCommand::Geojson {
            from,
            out,
            simplify,
        } => {
            let bp = load(&from)?.blueprint;
            let r = exports::geojson::export(&bp, &out, simplify)
                .with_context(|| format!("exporting {} as GeoJSON", from.display()))?;
            println!(
                "wrote {}: {} towns, {} roads, {} rivers, {} water bodies ({} polygon positions), {} crater features",
                out.display(),
                r.towns,
                r.roads,
                r.rivers,
                r.water_bodies,
                r.polygon_positions,
                r.crater
            );
        }
        other => bail!("unhandled export {other:?}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `--export LIST` parsed (empty when not given).
fn export_kinds(list: Option<&str>) -> Result<Vec<islagen::exports::ExportKind>> {
    match list {
        None => Ok(Vec::new()),
        Some(list) => islagen::exports::ExportKind::parse_list(list)
            .map_err(|e| anyhow::anyhow!("--export {list}: {e}")),
    }
}

fn load(path: &std::path::Path) -> Result<blueprint::Loaded> {
    let loaded =
        blueprint::read_file(path).with_context(|| format!("reading {}", path.display()))?;
    for w in &loaded.warnings {
        tracing::warn!("{}: {w}", path.display());
    }
    Ok(loaded)
}

fn generate(args: GenerateArgs, quiet: bool) -> Result<ExitCode> {
    let mut config = load_config(args.config.as_deref())?;
    if let Some(seed) = args.seed {
        config.world_seed = seed;
    }
    if let Some(size) = args.size {
        config.map_size = size;
    }
    config.skip_roads |= args.skip_roads;
    let kinds = export_kinds(args.export.as_deref())?;
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
    if !args.no_memory_check {
        islagen::memory::check(
            config.map_size,
            !config.skip_roads,
            islagen::memory::available(),
        )?;
    }
    let progress = if args.progress_json {
        Progress::json_lines()
    } else {
        Progress::for_terminal(quiet)
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

fn starmade(cmd: StarmadeCommand) -> Result<ExitCode> {
    match cmd {
        StarmadeCommand::Inspect { path, json } => {
            let bp = islagen::formats::starmade::read_path(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let report = bp.report();
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{report}");
            }
            fn clean(r: &islagen::formats::starmade::Report) -> bool {
                r.mismatches.is_empty() && r.children.iter().all(clean)
            }
            Ok(if clean(&report) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        StarmadeCommand::Write { path, out } => {
            let bp = islagen::formats::starmade::read_path(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            islagen::formats::starmade::write(&bp, &out)?;
            println!(
                "wrote {}/{} and {}.sment",
                out.display(),
                bp.name,
                out.join(&bp.name).display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn structures(cmd: StructuresCommand) -> Result<ExitCode> {
    use islagen::formats::structures::{self as st, MapView};
    let read = |path: &PathBuf| -> Result<st::Document> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        st::parse(&text)
            .with_context(|| format!("{} is not a valid structures.json", path.display()))
    };
    match cmd {
        StructuresCommand::Check { file, map } => {
            let doc = read(&file)?;
            println!(
                "{}: valid (version 1, {} types, {} structures)",
                file.display(),
                doc.types.len(),
                doc.structures.len()
            );
            if let Some(map) = map {
                let bp = load(&map)?.blueprint;
                let water = |x: usize, y: usize| bp.is_water(x, y);
                let problems = st::map_problems(
                    &doc,
                    &MapView {
                        heights: &bp.heights,
                        water: &water,
                    },
                );
                for (id, cell, why) in &problems {
                    println!("  {id}: cell ({}, {}) {why:?}", cell.0, cell.1);
                }
                if !problems.is_empty() {
                    println!("{} footprint cells on water or off the map", problems.len());
                    return Ok(ExitCode::FAILURE);
                }
                println!("  every footprint is on land and on the map");
            }
            Ok(ExitCode::SUCCESS)
        }
        StructuresCommand::Normalize { input, output } => {
            let doc = read(&input)?;
            islagen::output::write_bytes_atomically(&output, doc.to_json().as_bytes())
                .with_context(|| format!("writing {}", output.display()))?;
            println!("wrote {}", output.display());
            Ok(ExitCode::SUCCESS)
        }
        StructuresCommand::CanPlace {
            file,
            type_id,
            x,
            y,
            map,
            why,
        } => {
            let doc = read(&file)?;
            let bp = map.as_deref().map(load).transpose()?.map(|l| l.blueprint);
            let water = |cx: usize, cy: usize| bp.as_ref().is_some_and(|b| b.is_water(cx, cy));
            let view = bp.as_ref().map(|b| MapView {
                heights: &b.heights,
                water: &water,
            });
            let problems = st::placement_problems(&doc, &type_id, x, y, view.as_ref())?;
            println!("{}", if problems.is_empty() { "yes" } else { "no" });
            if why {
                for (cell, reason) in &problems {
                    println!("  cell ({}, {}): {reason:?}", cell.0, cell.1);
                }
            }
            Ok(if problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

fn island_code(cmd: IslandCodeCommand) -> Result<ExitCode> {
    use islagen::formats::island_code::{self as ic, IslandJson};
    match cmd {
        IslandCodeCommand::Decode {
            code,
            file,
            json,
            png,
        } => {
            let text = match (code, file) {
                (Some(c), None) => c,
                (None, Some(f)) => std::fs::read_to_string(&f)
                    .with_context(|| format!("reading {}", f.display()))?,
                _ => bail!("give the code, or --file F (not both)"),
            };
            let island = ic::decode(&text).context("decoding the island code")?;
            if let Some(path) = png {
                islagen::render::write_png(&path, &ic::picture(&island, 8))
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&IslandJson::from(&island))?
                );
            } else {
                let count =
                    |f: &dyn Fn(usize) -> bool| (0..island.ground.len()).filter(|&i| f(i)).count();
                println!("island {} × {} tiles", island.side, island.side);
                println!(
                    "  buildings {}, remains {}, inner cliffs {}",
                    island.buildings.len(),
                    island.remains.len(),
                    island.inner_cliffs.len()
                );
                for g in ic::Ground::ALL {
                    println!("  ground {:?}: {}", g, count(&|i| island.ground[i] == *g));
                }
                for n in ic::Nature::ALL {
                    println!("  nature {:?}: {}", n, count(&|i| island.nature[i] == *n));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        IslandCodeCommand::Encode { file, out } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let json: IslandJson = serde_json::from_str(&text)
                .with_context(|| format!("parsing {}", file.display()))?;
            let island = json
                .to_island()
                .with_context(|| file.display().to_string())?;
            let code = ic::encode(&island);
            if let Some(out) = out {
                islagen::output::write_bytes_atomically(&out, format!("{code}\n").as_bytes())
                    .with_context(|| format!("writing {}", out.display()))?;
            }
            println!("{code}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `islagen serve`: prints the URL (and a warning off loopback), then serves until stopped.
fn serve(args: &ServeArgs) -> Result<ExitCode> {
    let server = islagen_serve::start(args.options())?;
    if !args.bind.is_loopback() {
        eprintln!(
            "warning: listening on {}: anyone who can reach this machine on port {} can browse {} and start generations",
            args.bind,
            server.addr().port(),
            args.dir.display()
        );
    }
    println!("serving {} at {}", args.dir.display(), server.url());
    islagen_serve::serve_until_signal(server).context("waiting for a stop signal")?;
    Ok(ExitCode::SUCCESS)
}

fn load_config(path: Option<&std::path::Path>) -> Result<Config> {
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

fn run_sweep(cli: SweepCli, quiet: bool) -> Result<ExitCode> {
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
    let mut config = load_config(a.config.as_deref())?;
    if let Some(size) = a.size {
        config.map_size = size;
    }
    config.skip_roads |= a.skip_roads;
    let exports = export_kinds(a.export.as_deref())?;
    if !a.no_memory_check {
        let cores = rayon::current_num_threads().max(1);
        let lanes = a
            .jobs
            .unwrap_or(if config.map_size <= 2048 { cores } else { 1 })
            .clamp(1, seeds.len().max(1));
        islagen::memory::check_at_once(
            config.map_size,
            !config.skip_roads,
            lanes as u64,
            islagen::memory::available(),
        )?;
    }
    println!(
        "==> Sweep: {} seeds at MapSize {}{} into {}",
        seeds.len(),
        config.map_size,
        if config.skip_roads {
            " (SkipRoads)"
        } else {
            ""
        },
        out.display()
    );
    let bar = if !quiet && std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(seeds.len() as u64);
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
    let plan = sweep::SweepPlan {
        config,
        seeds,
        jobs: a.jobs,
        out: out.clone(),
        exports,
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
