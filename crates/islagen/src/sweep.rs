//! Seed sweeps: many seeds in one command, a summary table to compare them, a contact sheet to
//! choose by eye.
//!
//! Each seed's outputs go into the sweep folder under their usual names, plus a record
//! (`records/Seed_<seed>.json`: the figures of the summary table) and a thumbnail
//! (`thumbs/Seed_<seed>.png`), every file written atomically. A seed whose blueprint reads back
//! and whose record and thumbnail exist is done and is skipped by a rerun, so an interrupted
//! sweep loses no finished seed and leaves no partial file. The table (`sweep.csv`,
//! `sweep.jsonl`) and the contact sheet (`contact_sheet.png`) are rebuilt from the records and
//! thumbnails of every finished seed at the end, and by `merge` across shard folders.
//!
//! Seeds run several at a time when maps are small and one at a time, with all cores inside the
//! seed, when they are large; either way the work shares one thread pool of one thread per core,
//! so the machine is never oversubscribed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::blueprint::{Biome, RoadTier, TownTier};
use crate::config::Config;
use crate::pipeline::{self, World, Written};
use crate::progress::Progress;
use crate::render::{self, Image};

/// Why a sweep (or part of one) could not be done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// A seed list that cannot be read.
    #[error("seed list {part:?}: {problem}")]
    Seeds {
        /// The offending part of the list.
        part: String,
        /// What is wrong with it.
        problem: SeedProblem,
    },
    /// A shard that is not `K/N` with 0 ≤ K < N.
    #[error("shard {spec:?}: need K/N with 0 ≤ K < N (K is 0-based, like a job array index)")]
    Shard {
        /// The shard as given.
        spec: String,
    },
    /// A finished seed's blueprint could not be read back (to add exports to it).
    #[error("reading {path}")]
    Blueprint {
        /// The blueprint.
        path: PathBuf,
        /// The cause.
        source: crate::blueprint::ReadError,
    },
    /// A file or folder could not be read or written.
    #[error("{action} {path}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// Where.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A seed record is not the JSON a sweep writes.
    #[error("parsing {path}")]
    Record {
        /// The record file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// Generation of a seed failed.
    #[error(transparent)]
    Generate(#[from] pipeline::GenerateError),
    /// A seed's files (its blueprints, pictures) could not be written.
    #[error(transparent)]
    Output(#[from] pipeline::OutputError),
    /// A seed's exports for engines and GIS could not be made.
    #[error(transparent)]
    Export(#[from] crate::exports::ExportError),
}

/// What is wrong with part of a seed list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SeedProblem {
    /// Not an i32.
    #[error("not a seed (an integer in the i32 range)")]
    NotASeed,
    /// `A..B` with B < A.
    #[error("the range runs backwards")]
    Backwards,
    /// More than 10 million seeds in one range.
    #[error("the range has more than 10 million seeds")]
    TooMany,
    /// Seed 0.
    #[error("seed 0 means \"randomize\" and cannot be swept; start ranges at 1")]
    Zero,
}

type Result<T, E = SweepError> = std::result::Result<T, E>;

impl From<pipeline::RunError> for SweepError {
    fn from(e: pipeline::RunError) -> SweepError {
        match e {
            pipeline::RunError::Generate(e) => SweepError::Generate(e),
            pipeline::RunError::Export(e) => SweepError::Output(e),
        }
    }
}

fn io_err<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> SweepError + 'a {
    move |source| SweepError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

/// An error and its causes on one line ("writing X: No space left on device").
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Pixels per side of a thumbnail.
pub const THUMB: usize = 128;
/// Sub-folder of the per-seed records.
const RECORDS: &str = "records";
/// Sub-folder of the thumbnails.
const THUMBS: &str = "thumbs";

/// Parses a seed list: `A..B` (A through B, inclusive), a comma list `1,5,9`, or a mix
/// (`1..10,42`). Seeds must be non-zero (0 means "randomize", which a sweep cannot name).
pub fn parse_seeds(spec: &str) -> Result<Vec<i32>> {
    let mut seeds = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let fail = |problem| SweepError::Seeds {
            part: part.to_string(),
            problem,
        };
        let seed = |s: &str| {
            s.trim()
                .parse::<i32>()
                .map_err(|_| fail(SeedProblem::NotASeed))
        };
        let (a, b) = match part.split_once("..") {
            Some((a, b)) => (seed(a)?, seed(b.trim().trim_start_matches('='))?),
            None => (seed(part)?, seed(part)?),
        };
        if b < a {
            return Err(fail(SeedProblem::Backwards));
        }
        if i64::from(b) - i64::from(a) >= 10_000_000 {
            return Err(fail(SeedProblem::TooMany));
        }
        if (a..=b).contains(&0) {
            return Err(fail(SeedProblem::Zero));
        }
        seeds.extend(a..=b);
    }
    let mut seen = std::collections::HashSet::new();
    seeds.retain(|s| seen.insert(*s));
    Ok(seeds)
}

/// Reads seeds from a file: one per line (or comma lists and ranges); `#` starts a comment.
pub fn read_seed_file(path: &Path) -> Result<Vec<i32>> {
    let text = std::fs::read_to_string(path).map_err(io_err("reading", path))?;
    let spec: Vec<&str> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .collect();
    parse_seeds(&spec.join(","))
}

/// Parses `K/N` (0 ≤ K < N).
pub fn parse_shard(spec: &str) -> Result<(usize, usize)> {
    let bad = || SweepError::Shard {
        spec: spec.to_string(),
    };
    let (k, n) = spec.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || k >= n {
        return Err(bad());
    }
    Ok((k, n))
}

/// One seed's line of the summary table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SeedRecord {
    /// The seed.
    pub seed: i32,
    /// MapSize.
    pub map_size: usize,
    /// Fraction of the map that is land.
    pub land_fraction: f64,
    /// Mainland pixels.
    pub mainland_px: usize,
    /// Offshore islets.
    pub islets: usize,
    /// Lakes.
    pub lakes: usize,
    /// Lake pixels.
    pub lake_px: usize,
    /// Impact centre, pixels.
    pub crater: [f32; 2],
    /// Pixels per biome, by name.
    pub biomes: BTreeMap<String, usize>,
    /// Towns per tier, by name.
    pub towns: BTreeMap<String, usize>,
    /// Road length per tier, metres (a map side is 8192 m); empty with SkipRoads.
    pub road_m: BTreeMap<String, f64>,
    /// Towns the road abandon protocol skipped.
    pub abandoned_towns: usize,
    /// Priority-flood depressions.
    pub basins: usize,
    /// Cells the depression fill raised.
    pub basin_cells: usize,
    /// Deepest depression, metres.
    pub basin_max_depth_m: f32,
    /// Rivers (trunks and tributaries, each its own); `None` with Rivers off (and in records
    /// written before rivers, which still read).
    #[serde(default)]
    pub rivers: Option<usize>,
    /// River systems (a trunk and its tributaries), reaching the sea or a lake.
    #[serde(default)]
    pub river_systems: Option<usize>,
    /// River pixels (WBID pixels of WBTB river bodies).
    #[serde(default)]
    pub river_px: Option<usize>,
    /// Total river centreline length, km.
    #[serde(default)]
    pub river_km: Option<f64>,
    /// Stage wall times, seconds, by stage.
    pub seconds: BTreeMap<String, f64>,
    /// Output sizes, bytes, by file name.
    pub bytes: BTreeMap<String, u64>,
}

impl SeedRecord {
    fn new(
        world: &World,
        timings: &[(String, std::time::Duration)],
        written: &[Written],
    ) -> SeedRecord {
        let bp = &world.blueprint;
        let s = &world.stats;
        let mut biomes: BTreeMap<String, usize> = Biome::ALL
            .iter()
            .map(|b| (b.label().to_string(), 0))
            .collect();
        let mut counts = [0usize; Biome::COUNT];
        bp.biomes
            .iter()
            .for_each(|b| counts[usize::from(b.ordinal())] += 1);
        for b in Biome::ALL {
            biomes.insert(b.label().to_string(), counts[usize::from(b.ordinal())]);
        }
        let towns = TownTier::ALL
            .iter()
            .map(|t| {
                (
                    t.label().to_string(),
                    bp.towns.iter().filter(|x| x.tier == *t).count(),
                )
            })
            .collect();
        let metres_per_px = f64::from(crate::units::metres_per_px(bp.side()));
        let road_m = if world.roads.is_some() {
            RoadTier::ALL
                .iter()
                .map(|t| {
                    let len: f64 = bp
                        .roads
                        .tier(*t)
                        .iter()
                        .flat_map(|p| p.windows(2))
                        .map(|w| f64::from((w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1])))
                        .sum();
                    (format!("{t:?}").to_lowercase(), len * metres_per_px)
                })
                .collect()
        } else {
            BTreeMap::new()
        };
        SeedRecord {
            seed: s.seed,
            map_size: s.map_size,
            land_fraction: s.land_fraction,
            mainland_px: s.mainland_px,
            islets: s.islets,
            lakes: s.lakes,
            lake_px: s.lake_px,
            crater: s.crater_center,
            biomes,
            towns,
            road_m,
            abandoned_towns: world.roads.as_ref().map_or(0, |r| r.stats.abandoned),
            basins: world.basins.basins,
            basin_cells: world.basins.filled_cells,
            basin_max_depth_m: world.basins.max_depth_m,
            rivers: world.rivers.as_ref().map(|r| r.rivers),
            river_systems: world.rivers.as_ref().map(|r| r.systems),
            river_px: world.rivers.as_ref().map(|r| r.pixels),
            river_km: world.rivers.as_ref().map(|r| r.length_km),
            seconds: timings
                .iter()
                .map(|(k, d)| (k.clone(), d.as_secs_f64()))
                .collect(),
            bytes: written
                .iter()
                .map(|w| {
                    let name = w.path.file_name().map(|f| f.to_string_lossy().into_owned());
                    (name.unwrap_or_default(), w.bytes)
                })
                .collect(),
        }
    }
}

/// What a sweep does.
#[derive(Clone, Debug)]
pub struct SweepPlan {
    /// The config every seed shares (its seed is replaced).
    pub config: Config,
    /// Seeds, in order.
    pub seeds: Vec<i32>,
    /// Seeds run at once; `None` = automatic (all cores at MapSize ≤ 2048, else one).
    pub jobs: Option<usize>,
    /// The sweep folder.
    pub out: PathBuf,
    /// Exports written for every seed into `Map_Seed_<seed>_exports/` (empty: none).
    pub exports: Vec<crate::exports::ExportKind>,
}

impl SweepPlan {
    /// Seeds run at once for `todo` seeds: `jobs`, or every core at MapSize ≤ 2048 and one
    /// above, never more than the seeds nor fewer than one.
    pub fn lanes(&self, todo: usize) -> usize {
        let cores = rayon::current_num_threads().max(1);
        let auto = if self.config.map_size <= 2048 {
            cores
        } else {
            1
        };
        self.jobs.unwrap_or(auto).clamp(1, todo.max(1))
    }

    /// Whether the seeds run at once fit in `available` bytes ([`crate::memory::check_at_once`]).
    pub fn check_memory(&self, available: Option<u64>) -> Result<(), crate::memory::TooLarge> {
        let lanes = self.lanes(self.seeds.len()) as u64;
        crate::memory::check_at_once(
            self.config.map_size,
            !self.config.skip_roads,
            lanes,
            available,
        )
    }
}

/// What a sweep did.
#[derive(Clone, Debug, Default)]
pub struct SweepReport {
    /// Seeds generated now.
    pub generated: usize,
    /// Seeds already done (skipped).
    pub skipped: usize,
    /// Seeds that failed, with why.
    pub failed: Vec<(i32, String)>,
    /// Rows in the rebuilt table (every finished seed in the folder).
    pub rows: usize,
}

fn record_path(dir: &Path, seed: i32) -> PathBuf {
    dir.join(RECORDS).join(format!("Seed_{seed}.json"))
}

fn thumb_path(dir: &Path, seed: i32) -> PathBuf {
    dir.join(THUMBS).join(format!("Seed_{seed}.png"))
}

/// Whether a seed is done: its record parses, its thumbnail exists and its blueprint reads back.
pub fn is_done(dir: &Path, seed: i32) -> bool {
    let ok_record = std::fs::read_to_string(record_path(dir, seed))
        .ok()
        .and_then(|t| serde_json::from_str::<SeedRecord>(&t).ok())
        .is_some_and(|r| r.seed == seed);
    ok_record
        && thumb_path(dir, seed).exists()
        && crate::blueprint::read_file(&dir.join(pipeline::OutputNames::of(seed).v2)).is_ok()
}

/// A thumbnail: the biomes box-downsampled to [`THUMB`], with the roads drawn at that scale.
fn thumbnail(world: &World) -> Image {
    let bp = &world.blueprint;
    let mut thumb = downsample(&render::biome_image(&bp.biomes).rgb(), THUMB);
    render::paint_roads(&mut thumb, &bp.roads, THUMB as f32 / bp.side() as f32);
    thumb
}

/// Box-filters an image down to `side` × `side`.
pub fn downsample(image: &Image, side: usize) -> Image {
    let mut rgb = vec![0u8; side * side * 3];
    for ty in 0..side {
        let (y0, y1) = (
            ty * image.height / side,
            ((ty + 1) * image.height / side).max(ty * image.height / side + 1),
        );
        for tx in 0..side {
            let (x0, x1) = (
                tx * image.width / side,
                ((tx + 1) * image.width / side).max(tx * image.width / side + 1),
            );
            let mut sum = [0u64; 3];
            for y in y0..y1 {
                for x in x0..x1 {
                    let at = (y * image.width + x) * 3;
                    for (total, v) in sum.iter_mut().zip(&image.rgb[at..at + 3]) {
                        *total += u64::from(*v);
                    }
                }
            }
            let count = ((y1 - y0) * (x1 - x0)) as u64;
            let at = (ty * side + tx) * 3;
            for (v, total) in rgb[at..at + 3].iter_mut().zip(sum) {
                *v = (total / count) as u8;
            }
        }
    }
    Image {
        width: side,
        height: side,
        rgb,
    }
}

/// Runs one seed to completion: outputs, record, thumbnail.
fn run_seed(
    config: &Config,
    seed: i32,
    dir: &Path,
    exports: &[crate::exports::ExportKind],
) -> Result<()> {
    let config = config.clone().with_seed(seed);
    let progress = Progress::hidden();
    let (world, written) = pipeline::generate_and_export(
        &config,
        seed,
        dir,
        pipeline::SidecarLayout::Beside,
        &progress,
    )?;
    crate::exports::write_set(
        &world.blueprint,
        &crate::exports::folder_of(dir, seed),
        exports,
    )?;
    let record = SeedRecord::new(&world, &progress.timings(), &written);
    let thumb = thumb_path(dir, seed);
    render::write_png(&thumb, &thumbnail(&world)).map_err(io_err("writing", &thumb))?;
    // The record last: its presence (with the thumbnail and a readable blueprint) marks the
    // seed done.
    let json = serde_json::to_vec_pretty(&record).expect("a seed record serialises");
    let path = record_path(dir, seed);
    crate::output::write_bytes_atomically(&path, &json).map_err(io_err("writing", &path))?;
    Ok(())
}

/// Writes the exports of a seed already done from its blueprint on disk.
fn export_done(
    dir: &Path,
    seed: i32,
    into: &Path,
    kinds: &[crate::exports::ExportKind],
) -> Result<()> {
    let path = dir.join(pipeline::OutputNames::of(seed).v2);
    let bp = crate::blueprint::read_file(&path)
        .map_err(|source| SweepError::Blueprint {
            path: path.clone(),
            source,
        })?
        .blueprint;
    crate::exports::write_set(&bp, into, kinds)?;
    Ok(())
}

/// Runs a sweep. `on_seed` is called after every seed, done or skipped.
pub fn run(plan: &SweepPlan, on_seed: &(dyn Fn(i32) + Sync)) -> Result<SweepReport> {
    let dir = &plan.out;
    // The folder itself too: a sweep cut short while writing its table leaves a temporary file
    // there that no seed's export (which cleans its folder) would remove when every seed is done.
    for sub in [dir.clone(), dir.join(RECORDS), dir.join(THUMBS)] {
        std::fs::create_dir_all(&sub).map_err(io_err("creating", &sub))?;
        crate::output::remove_stale_temps(&sub).map_err(io_err("cleaning", &sub))?;
    }
    let (done, todo): (Vec<i32>, Vec<i32>) = plan.seeds.iter().partition(|&&s| is_done(dir, s));
    let mut failures_done = Vec::new();
    for s in &done {
        // a rerun that asks for exports adds them to the seeds already done, from their blueprint
        let exports = crate::exports::folder_of(dir, *s);
        if !plan.exports.is_empty() && !exports.exists() {
            if let Err(e) = export_done(dir, *s, &exports, &plan.exports) {
                let e = with_causes(&e);
                tracing::error!("seed {s} failed: {e}");
                failures_done.push((*s, e));
            }
        }
        on_seed(*s);
    }
    let jobs = plan.lanes(todo.len());
    // `jobs` lanes share the one pool: a lane runs its seeds one after another, and each seed's
    // own parallel work takes whatever threads the other lanes leave idle.
    let failures: Vec<(i32, String)> = (0..jobs)
        .into_par_iter()
        .flat_map_iter(|lane| {
            let mut failed = Vec::new();
            for &seed in todo.iter().skip(lane).step_by(jobs) {
                if let Err(e) = run_seed(&plan.config, seed, dir, &plan.exports) {
                    let e = with_causes(&e);
                    tracing::error!("seed {seed} failed: {e}");
                    failed.push((seed, e));
                }
                on_seed(seed);
            }
            failed
        })
        .collect();
    let generated = todo.len() - failures.len();
    let failures: Vec<(i32, String)> = failures_done.into_iter().chain(failures).collect();
    let rows = write_tables(std::slice::from_ref(dir), dir)?;
    Ok(SweepReport {
        generated,
        skipped: done.len(),
        failed: failures,
        rows,
    })
}

/// Collects every record in `dirs` (one row per seed; the first folder wins a duplicate).
pub fn collect(dirs: &[PathBuf]) -> Result<Vec<(SeedRecord, PathBuf)>> {
    let mut rows: BTreeMap<i32, (SeedRecord, PathBuf)> = BTreeMap::new();
    for dir in dirs {
        let records = dir.join(RECORDS);
        let entries = std::fs::read_dir(&records).map_err(io_err("reading", &records))?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).map_err(io_err("reading", &p))?;
            let r: SeedRecord =
                serde_json::from_str(&text).map_err(|source| SweepError::Record {
                    path: p.clone(),
                    source,
                })?;
            rows.entry(r.seed).or_insert((r, dir.clone()));
        }
    }
    Ok(rows.into_values().collect())
}

/// Writes `sweep.csv`, `sweep.jsonl` and `contact_sheet.png` into `out` from the records and
/// thumbnails of every seed in `dirs`. Returns the number of rows.
pub fn write_tables(dirs: &[PathBuf], out: &Path) -> Result<usize> {
    std::fs::create_dir_all(out).map_err(io_err("creating", out))?;
    let rows = collect(dirs)?;
    let stage_names: Vec<String> = {
        let mut names: Vec<String> = rows
            .iter()
            .flat_map(|(r, _)| r.seconds.keys().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    };
    let mut csv = header(&stage_names).join(",");
    csv.push('\n');
    let mut jsonl = String::new();
    for (r, _) in &rows {
        csv.push_str(&cells(r, &stage_names).join(","));
        csv.push('\n');
        jsonl.push_str(&serde_json::to_string(r).expect("a seed record serialises"));
        jsonl.push('\n');
    }
    for (name, text) in [("sweep.csv", &csv), ("sweep.jsonl", &jsonl)] {
        let path = out.join(name);
        crate::output::write_bytes_atomically(&path, text.as_bytes())
            .map_err(io_err("writing", &path))?;
    }
    let thumbs: Vec<(i32, Image)> = rows
        .iter()
        .filter_map(|(r, dir)| {
            render::read_png(&thumb_path(dir, r.seed))
                .ok()
                .map(|i| (r.seed, i))
        })
        .collect();
    if !thumbs.is_empty() {
        let sheet = out.join("contact_sheet.png");
        render::write_png(&sheet, &contact_sheet(&thumbs)).map_err(io_err("writing", &sheet))?;
    }
    Ok(rows.len())
}

/// `sweep.csv`'s columns, with a `s_NAME` column for each of `stage_names`.
fn header(stage_names: &[String]) -> Vec<String> {
    let mut header = vec![
        "seed".to_string(),
        "map_size".into(),
        "land_fraction".into(),
        "mainland_px".into(),
        "islets".into(),
        "lakes".into(),
        "lake_px".into(),
        "crater_x".into(),
        "crater_y".into(),
    ];
    header.extend(
        Biome::ALL
            .iter()
            .map(|b| format!("biome_{}", b.label().to_lowercase())),
    );
    header.extend(
        TownTier::ALL
            .iter()
            .map(|t| format!("towns_{}", t.label().to_lowercase())),
    );
    header.extend(
        RoadTier::ALL
            .iter()
            .map(|t| format!("road_m_{}", format!("{t:?}").to_lowercase())),
    );
    header.extend(
        [
            "abandoned_towns",
            "basins",
            "basin_cells",
            "basin_max_depth_m",
            "rivers",
            "river_systems",
            "river_px",
            "river_km",
        ]
        .map(String::from),
    );
    header.extend(
        stage_names
            .iter()
            .map(|s| format!("s_{}", s.replace(' ', "_"))),
    );
    header.extend(["bytes_v2", "bytes_v1"].map(String::from));
    header
}

/// One seed's `sweep.csv` row, in [`header`]'s columns.
fn cells(r: &SeedRecord, stage_names: &[String]) -> Vec<String> {
    let mut cells = vec![
        r.seed.to_string(),
        r.map_size.to_string(),
        format!("{:.6}", r.land_fraction),
        r.mainland_px.to_string(),
        r.islets.to_string(),
        r.lakes.to_string(),
        r.lake_px.to_string(),
        format!("{:.1}", r.crater[0]),
        format!("{:.1}", r.crater[1]),
    ];
    cells.extend(
        Biome::ALL
            .iter()
            .map(|b| r.biomes.get(b.label()).copied().unwrap_or(0).to_string()),
    );
    cells.extend(
        TownTier::ALL
            .iter()
            .map(|t| r.towns.get(t.label()).copied().unwrap_or(0).to_string()),
    );
    cells.extend(RoadTier::ALL.iter().map(|t| {
        r.road_m
            .get(&format!("{t:?}").to_lowercase())
            .map_or(String::new(), |m| format!("{m:.0}"))
    }));
    cells.push(r.abandoned_towns.to_string());
    cells.push(r.basins.to_string());
    cells.push(r.basin_cells.to_string());
    cells.push(format!("{:.2}", r.basin_max_depth_m));
    // Empty with Rivers off, as the road lengths are with SkipRoads.
    let count = |v: Option<usize>| v.map_or(String::new(), |v| v.to_string());
    cells.push(count(r.rivers));
    cells.push(count(r.river_systems));
    cells.push(count(r.river_px));
    cells.push(r.river_km.map_or(String::new(), |km| format!("{km:.2}")));
    cells.extend(stage_names.iter().map(|s| {
        r.seconds
            .get(s)
            .map_or(String::new(), |v| format!("{v:.3}"))
    }));
    let pipeline::OutputNames { v2, v1, .. } = pipeline::OutputNames::of(r.seed);
    cells.push(r.bytes.get(&v2).map_or(String::new(), u64::to_string));
    cells.push(r.bytes.get(&v1).map_or(String::new(), u64::to_string));
    cells
}

/// Thumbnails in a grid, each with its seed number written under it.
pub fn contact_sheet(thumbs: &[(i32, Image)]) -> Image {
    let columns = (thumbs.len() as f64).sqrt().ceil().max(1.0) as usize;
    let rows = thumbs.len().div_ceil(columns);
    let (cell_w, cell_h) = (THUMB + 8, THUMB + 22);
    let (width, height) = (columns * cell_w + 8, rows * cell_h + 8);
    let mut sheet = Image {
        width,
        height,
        rgb: vec![32; width * height * 3],
    };
    for (k, (seed, thumb)) in thumbs.iter().enumerate() {
        let (x0, y0) = (8 + (k % columns) * cell_w, 8 + (k / columns) * cell_h);
        for y in 0..thumb.height.min(THUMB) {
            for x in 0..thumb.width.min(THUMB) {
                let from = (y * thumb.width + x) * 3;
                let to = ((y0 + y) * width + x0 + x) * 3;
                sheet.rgb[to..to + 3].copy_from_slice(&thumb.rgb[from..from + 3]);
            }
        }
        draw_number(&mut sheet, x0, y0 + THUMB + 4, *seed);
    }
    sheet
}

/// 3 × 5 pixel glyphs for '-' and the digits, one row per u8 (3 low bits, left = 4).
const GLYPHS: [[u8; 5]; 11] = [
    [7, 5, 5, 5, 7], // 0
    [2, 6, 2, 2, 7], // 1
    [7, 1, 7, 4, 7], // 2
    [7, 1, 7, 1, 7], // 3
    [5, 5, 7, 1, 1], // 4
    [7, 4, 7, 1, 7], // 5
    [7, 4, 7, 5, 7], // 6
    [7, 1, 1, 1, 1], // 7
    [7, 5, 7, 5, 7], // 8
    [7, 5, 7, 1, 7], // 9
    [0, 0, 7, 0, 0], // -
];

/// Writes `n` at (x, y) in white glyphs scaled ×2.
fn draw_number(image: &mut Image, x: usize, y: usize, n: i32) {
    let text = n.to_string();
    for (i, ch) in text.chars().enumerate() {
        let glyph = match ch {
            '0'..='9' => GLYPHS[ch as usize - '0' as usize],
            _ => GLYPHS[10],
        };
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..3 {
                if bits & (4 >> col) == 0 {
                    continue;
                }
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let (px, py) = (x + i * 8 + col * 2 + dx, y + row * 2 + dy);
                    if px < image.width && py < image.height {
                        let at = (py * image.width + px) * 3;
                        image.rgb[at..at + 3].copy_from_slice(&[240, 240, 240]);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_follow_the_map_size_and_the_seeds_left() {
        let mut config = Config::from_json("{}", "test").unwrap().config;
        let plan = |config: &Config, jobs| SweepPlan {
            config: config.clone(),
            seeds: (1..=100).collect(),
            jobs,
            out: PathBuf::from("unused"),
            exports: Vec::new(),
        };
        let cores = rayon::current_num_threads().max(1);
        config.settings_mut().map_size = 2048;
        assert_eq!(plan(&config, None).lanes(100), cores.min(100));
        assert_eq!(plan(&config, None).lanes(1), 1);
        config.settings_mut().map_size = 4096;
        assert_eq!(plan(&config, None).lanes(100), 1);
        assert_eq!(plan(&config, Some(3)).lanes(100), 3);
        assert_eq!(plan(&config, Some(3)).lanes(2), 2);
        assert_eq!(plan(&config, Some(0)).lanes(0), 1);
    }

    #[test]
    fn seed_lists_ranges_and_shards() {
        assert_eq!(parse_seeds("1..4").unwrap(), vec![1, 2, 3, 4]);
        assert_eq!(parse_seeds("1..=3, 9,2").unwrap(), vec![1, 2, 3, 9]);
        assert_eq!(parse_seeds("-2..-1").unwrap(), vec![-2, -1]);
        assert!(parse_seeds("0..3").is_err());
        assert!(parse_seeds("5..1").is_err());
        assert!(parse_seeds("x").is_err());
        assert_eq!(parse_shard("1/4").unwrap(), (1, 4));
        assert!(parse_shard("4/4").is_err());
        assert!(parse_shard("1").is_err());
    }

    /// A record written before rivers (no river fields) still reads, its river figures None,
    /// so a resumed or merged sweep keeps its finished seeds.
    #[test]
    fn a_record_from_before_rivers_reads() {
        let old = r#"{"seed": 3, "map_size": 256, "land_fraction": 0.4, "mainland_px": 1,
            "islets": 0, "lakes": 0, "lake_px": 0, "crater": [1.0, 2.0], "biomes": {},
            "towns": {}, "road_m": {}, "abandoned_towns": 0, "basins": 0, "basin_cells": 0,
            "basin_max_depth_m": 0.0, "seconds": {}, "bytes": {}}"#;
        let r: SeedRecord = serde_json::from_str(old).unwrap();
        assert_eq!(
            (r.rivers, r.river_systems, r.river_px, r.river_km),
            (None, None, None, None)
        );
    }
}
