//! The command line's arguments (clap): every command and flag, declared once.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use islagen::exports::heightmap::HeightFormat;
use islagen::formats::starmade::export::Entity;

/// Fast, deterministic procedural island worlds, written as the game server's `.dat` blueprint.
#[derive(Parser, Debug)]
#[command(name = "islagen", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub generate: GenerateArgs,
    /// More log output (-v debug, -vv trace).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Only the seed line, warnings and errors.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// What a generation and a sweep share: the world's config and what is written besides.
#[derive(Args, Debug)]
pub struct WorldArgs {
    /// Pixels per side, in MapSize's range (`islagen config --list`); overrides MapSize in the
    /// config.
    #[arg(long, value_parser = clap::value_parser!(u32).range(islagen::config::keys::map_size_range()))]
    pub size: Option<u32>,
    /// Export present-but-empty road sections instead of running the road pass.
    #[arg(long)]
    pub skip_roads: bool,
    /// A ServerConfig.json; without it the spec defaults apply (a sweep ignores its WorldSeed).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Go on even when the estimated peak memory exceeds what the machine has available.
    #[arg(long)]
    pub no_memory_check: bool,
    /// Also write exports for engines and GIS into `Map_Seed_<seed>_exports/`: a comma list of
    /// heightmap (16-bit PNG), r16 (Unity RAW), tiff (GeoTIFF), splat, geojson, or all.
    #[arg(long, value_name = "LIST")]
    pub export: Option<String>,
    /// Make the land from this heightmap instead of the seed's island: a float GeoTIFF of
    /// metres above sea, or a 16-bit PNG (with --heightmap-range, or the FILE.json sidecar of
    /// islagen's own heightmap export), stretched over the 8 192 m world.
    #[arg(long, value_name = "FILE")]
    pub heightmap: Option<PathBuf>,
    /// The metres at black and white of an integer heightmap, MIN,MAX.
    #[arg(long, value_name = "MIN,MAX", value_parser = parse_range, allow_hyphen_values = true)]
    pub heightmap_range: Option<[f32; 2]>,
    /// Multiplies every height of the heightmap (a DEM that covers more or less than 8 km keeps
    /// its slopes when scaled by 8192 / its width in metres). Default: that factor for a
    /// GeoTIFF that says its pixel size, else 1.
    #[arg(long, value_name = "FACTOR")]
    pub heightmap_scale: Option<f32>,
}

/// `MIN,MAX` metres.
fn parse_range(text: &str) -> Result<[f32; 2], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let number = |s: &str| s.parse::<f32>().map_err(|e| format!("{s:?}: {e}"));
    match parts.as_slice() {
        [lo, hi] => Ok([number(lo)?, number(hi)?]),
        _ => Err(format!("{text:?} is not MIN,MAX (metres)")),
    }
}

/// Generate a world (the default when no subcommand is given).
#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// World seed; 0 = randomize (the resolved seed is printed and used for file names).
    #[arg(long, allow_negative_numbers = true)]
    pub seed: Option<i32>,
    #[command(flatten)]
    pub world: WorldArgs,
    /// Folder for the blueprints and snapshots.
    #[arg(long, default_value = ".")]
    pub out: PathBuf,
    /// Write the structure sidecar as `assets/MapData_Seed_<seed>/structures.json` (the game's
    /// layout) instead of `MapData_Seed_<seed>.structures.json` beside the blueprint.
    #[arg(long)]
    pub assets_layout: bool,
    /// Print each stage's start and finish as a JSON line on stdout (for `islagen serve`).
    #[arg(long, hide = true)]
    pub progress_json: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
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
pub struct ServeArgs {
    /// The world folder (blueprints, sweeps, exports).
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = islagen_serve::DEFAULT_PORT)]
    pub port: u16,
    /// Address to listen on; anything but loopback shares the folder on the network.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// A host name the browser may reach the server by, besides localhost and the bound
    /// address (repeatable): requests naming any other Host are refused.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Most MiB the tile cache holds (PNGs, keys and entries counted).
    #[arg(long, value_name = "MIB", default_value_t = islagen_serve::DEFAULT_CACHE_MIB)]
    pub cache_mib: u64,
    /// Most MiB the loaded worlds hold beyond the one in use (a v1 world of 8192 holds 320 MiB,
    /// a v2 one under 0.1 MiB: its grids stay in the file).
    #[arg(long, value_name = "MIB", default_value_t = islagen_serve::DEFAULT_WORLD_MIB)]
    pub world_mib: u64,
    /// Most worlds held loaded.
    #[arg(long, value_name = "N", default_value_t = islagen_serve::DEFAULT_MAX_WORLDS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096))]
    pub max_worlds: usize,
    /// Most connections open at once; past it new ones wait to be accepted.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65536))]
    pub max_connections: usize,
    /// Seconds a connection has to send a request's head before it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout: u64,
}

#[derive(Subcommand, Debug)]
pub enum IslandCodeCommand {
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
pub enum StarmadeCommand {
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
pub enum StructuresCommand {
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
pub enum EntityArg {
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
pub enum ExportCommand {
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
pub enum HeightFormatArg {
    /// 16-bit grayscale PNG, rows north first (Unreal, Godot, Blender).
    Png16,
    /// Headerless 16-bit little-endian RAW, rows south first (Unity).
    R16,
    /// Float32 GeoTIFF in metres, local CRS (GDAL, QGIS).
    Tiff,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SweepCli {
    #[command(subcommand)]
    pub command: Option<SweepCommand>,
    #[command(flatten)]
    pub args: SweepArgs,
}

#[derive(Subcommand, Debug)]
pub enum SweepCommand {
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
pub struct SweepArgs {
    /// Seeds: `A..B` (A through B, inclusive), a list `1,5,9`, or both (`1..100,512`).
    #[arg(long, allow_hyphen_values = true)]
    pub seeds: Option<String>,
    /// A file of seeds: one per line (ranges and lists allowed), `#` comments.
    #[arg(long)]
    pub seeds_file: Option<PathBuf>,
    #[command(flatten)]
    pub world: WorldArgs,
    /// Seeds generated at once (default: every core at MapSize ≤ 2048, else one).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Take only every N-th seed, starting at the K-th (0-based): `K/N`, for job arrays.
    #[arg(long)]
    pub shard: Option<String>,
    /// The sweep folder: every seed's outputs, records/, thumbs/, sweep.csv, sweep.jsonl,
    /// contact_sheet.png.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

impl From<EntityArg> for Entity {
    fn from(e: EntityArg) -> Entity {
        match e {
            EntityArg::Asteroid => Entity::Asteroid,
            EntityArg::ManagedAsteroid => Entity::ManagedAsteroid,
            EntityArg::Planet => Entity::Planet,
            EntityArg::Station => Entity::Station,
        }
    }
}

impl From<HeightFormatArg> for HeightFormat {
    fn from(f: HeightFormatArg) -> HeightFormat {
        match f {
            HeightFormatArg::Png16 => HeightFormat::Png16,
            HeightFormatArg::R16 => HeightFormat::R16,
            HeightFormatArg::Tiff => HeightFormat::Tiff,
        }
    }
}
