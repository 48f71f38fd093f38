//! The world list: every `*.dat` under DIR (depth ≤ [`MAX_DEPTH`]) with what its header says,
//! and every sweep folder (one holding `sweep.csv`) with its table.
//!
//! Guarantees: listing reads at most [`HEADER_PROBE_LEN`] bytes of a blueprint (the header and
//! the start of PRMS, checked by the engine's reader, [`blueprint::read_header`]), so it stays
//! cheap at any MapSize; a file whose header is not a blueprint's, or that is shorter than its
//! MapSize needs, is listed with `error` set (the reader's rule and byte). Symlinked folders are
//! not followed; a symlinked `*.dat` is listed as its blueprint when it resolves to a file inside
//! DIR, and otherwise with `error` saying why it is not served. Hidden entries (a running job's temporary folder) are skipped, and at most
//! [`MAX_ENTRIES`] directory entries and [`MAX_SWEEP_ROWS`] rows of a sweep table are read (a
//! table whose header is over [`MAX_SWEEP_HEADER`] bytes is not listed), and at most
//! [`MAX_SWEEP_BYTES`] of sweep tables in all; a table's column names are held once (its rows
//! are arrays in column order), and at most [`MAX_SWEEP_BUILT`] bytes of tables are built in
//! memory. The folders past either budget are left out of the list.

use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::path::Path;
use std::time::UNIX_EPOCH;

use serde::Serialize;
use serde_json::Value;

use islagen::blueprint::{self, Header, ReadError, HEADER_PROBE_LEN};

use super::paths::id_of;

/// Deepest folder level searched below DIR.
pub const MAX_DEPTH: usize = 3;
/// Most directory entries visited in one listing.
pub const MAX_ENTRIES: usize = 20_000;
/// Most rows read from one `sweep.csv`.
pub const MAX_SWEEP_ROWS: usize = 10_000;
/// Largest `sweep.csv` read, bytes.
pub const MAX_SWEEP_CSV: u64 = 16 << 20;
/// Most bytes of `sweep.csv` read in one listing, all tables together.
pub const MAX_SWEEP_BYTES: u64 = 64 << 20;
/// Longest `sweep.csv` header line, bytes.
pub const MAX_SWEEP_HEADER: usize = 4096;
/// Most bytes the listing may build for its sweep tables in memory, all tables together (what
/// `built_bytes` counts); the tables past it are left out.
pub const MAX_SWEEP_BUILT: usize = 128 << 20;

/// One blueprint in the list.
#[derive(Clone, Debug, Serialize)]
pub struct WorldEntry {
    /// Path relative to DIR, `/`-separated.
    pub id: String,
    /// The file name.
    pub name: String,
    /// MapSize from the header (null when unreadable).
    pub map_size: Option<u32>,
    /// PRMS seed (null for v1, which records none, and when unreadable).
    pub seed: Option<i32>,
    /// "v2" or "v1" (null when unreadable).
    pub format: Option<&'static str>,
    /// File length.
    pub bytes: u64,
    /// Modification time, Unix seconds.
    pub modified: u64,
    /// Why the header is not a blueprint's.
    pub error: Option<String>,
}

/// One sweep folder.
#[derive(Clone, Debug, Serialize)]
pub struct SweepEntry {
    /// The folder, relative to DIR.
    pub id: String,
    /// The CSV header, once for the table.
    pub columns: Vec<String>,
    /// The rows, in file order.
    pub rows: Vec<SweepRow>,
    /// `contact_sheet.png` relative to DIR, when present.
    pub contact_sheet: Option<String>,
}

/// One row of a sweep table.
#[derive(Clone, Debug, Serialize)]
pub struct SweepRow {
    /// The row's world (`seed`'s blueprint in the folder), when it is listed.
    pub world: Option<String>,
    /// The cells in column order (numbers as numbers, empty as null); a short line has fewer.
    pub values: Vec<Value>,
}

/// What a row holds in memory, bytes: the row, its cells and their text.
fn built_bytes(row: &SweepRow) -> usize {
    let text = |v: &Value| v.as_str().map_or(0, str::len);
    std::mem::size_of::<SweepRow>()
        + row.values.len() * std::mem::size_of::<Value>()
        + row.values.iter().map(text).sum::<usize>()
        + row.world.as_ref().map_or(0, String::len)
}

/// The whole list.
#[derive(Clone, Debug, Serialize)]
pub struct Catalogue {
    /// DIR as given on the command line.
    pub dir: String,
    /// Blueprints, sorted by id.
    pub worlds: Vec<WorldEntry>,
    /// Sweep folders, sorted by id.
    pub sweeps: Vec<SweepEntry>,
}

/// Lists `root` (canonical); `shown` is DIR as the user gave it.
pub fn list(root: &Path, shown: &str) -> Catalogue {
    list_within(root, shown, MAX_SWEEP_BYTES)
}

/// [`list`] reading at most `sweep_bytes` of sweep tables.
fn list_within(root: &Path, shown: &str, sweep_bytes: u64) -> Catalogue {
    let mut worlds = Vec::new();
    let mut sweep_dirs = Vec::new();
    let mut budget = MAX_ENTRIES;
    walk(root, root, 0, &mut budget, &mut worlds, &mut sweep_dirs);
    worlds.sort_by(|a, b| a.id.cmp(&b.id));
    sweep_dirs.sort();
    let ids: HashSet<&str> = worlds.iter().map(|w| w.id.as_str()).collect();
    let mut budget = Budget {
        read: sweep_bytes,
        built: MAX_SWEEP_BUILT,
    };
    let mut sweeps: Vec<SweepEntry> = sweep_dirs
        .iter()
        .filter_map(|d| sweep(root, d, &ids, &mut budget))
        .collect();
    sweeps.sort_by(|a, b| a.id.cmp(&b.id));
    Catalogue {
        dir: shown.to_string(),
        worlds,
        sweeps,
    }
}

fn walk(
    root: &Path,
    dir: &Path,
    depth: usize,
    budget: &mut usize,
    worlds: &mut Vec<WorldEntry>,
    sweeps: &mut Vec<std::path::PathBuf>,
) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut subdirs = Vec::new();
    for entry in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') {
            continue;
        }
        // file_type() does not follow symlinks: a link is neither a file nor a dir here.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() && depth < MAX_DEPTH {
            subdirs.push(path);
        } else if kind.is_file() && name == "sweep.csv" {
            sweeps.push(dir.to_path_buf());
        } else if kind.is_file() && name.ends_with(".dat") {
            if let Some(e) = world_entry(root, &path) {
                worlds.push(e);
            }
        } else if kind.is_symlink() && name.ends_with(".dat") {
            worlds.extend(link_entry(root, &path));
        }
    }
    subdirs.sort();
    for d in subdirs {
        walk(root, &d, depth + 1, budget, worlds, sweeps);
    }
}

/// The list entry of a symlink named `*.dat`: the blueprint's when the link resolves to a file
/// inside DIR (it opens by its name), otherwise an entry whose `error` says why it is not
/// served, so the list never drops it silently.
fn link_entry(root: &Path, path: &Path) -> Option<WorldEntry> {
    let why = match fs::canonicalize(path) {
        Ok(target) if target.starts_with(root) && target.is_file() => {
            return world_entry(root, path);
        }
        Ok(target) if target.starts_with(root) => "a symbolic link to something not a file",
        Ok(_) => "a symbolic link out of the served folder: not served",
        Err(_) => "a symbolic link to nothing (dangling): not served",
    };
    Some(WorldEntry {
        id: id_of(root, path)?,
        name: path.file_name()?.to_string_lossy().into_owned(),
        map_size: None,
        seed: None,
        format: None,
        bytes: 0,
        modified: 0,
        error: Some(why.into()),
    })
}

/// The list entry of one blueprint file.
pub fn world_entry(root: &Path, path: &Path) -> Option<WorldEntry> {
    let id = id_of(root, path)?;
    let meta = fs::metadata(path).ok()?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let mut entry = WorldEntry {
        name: path.file_name()?.to_string_lossy().into_owned(),
        id,
        map_size: None,
        seed: None,
        format: None,
        bytes: meta.len(),
        modified,
        error: None,
    };
    match read_header(path, meta.len()) {
        Ok(h) => {
            entry.map_size = Some(h.map_size);
            entry.seed = h.seed;
            entry.format = Some(super::meta::format_name(h.format));
        }
        // The reader's I/O error names no cause of its own: say it.
        Err(ReadError::Io(e)) => entry.error = Some(format!("{}: cannot read: {e}", entry.name)),
        Err(e) => entry.error = Some(format!("{}: {e}", entry.name)),
    }
    Some(entry)
}

/// Reads and checks the header of the blueprint at `path` (`len` bytes long), reading at most
/// [`HEADER_PROBE_LEN`] bytes of it.
pub fn read_header(path: &Path, len: u64) -> Result<Header, ReadError> {
    let mut buf = Vec::with_capacity(HEADER_PROBE_LEN);
    fs::File::open(path)?
        .take(HEADER_PROBE_LEN as u64)
        .read_to_end(&mut buf)?;
    blueprint::read_header(&buf, len)
}

/// What is left of the listing's sweep budgets.
struct Budget {
    /// Bytes of `sweep.csv` still to be read (of [`MAX_SWEEP_BYTES`]).
    read: u64,
    /// Bytes of tables still to be built (of [`MAX_SWEEP_BUILT`]).
    built: usize,
}

/// The sweep table of folder `dir`, if its `sweep.csv` can be read within `budget`; `worlds`
/// the listed ids.
fn sweep(
    root: &Path,
    dir: &Path,
    worlds: &HashSet<&str>,
    budget: &mut Budget,
) -> Option<SweepEntry> {
    let id = id_of(root, dir)?;
    let csv = dir.join("sweep.csv");
    let len = fs::metadata(&csv).ok()?.len();
    if len > MAX_SWEEP_CSV || len > budget.read {
        return None;
    }
    budget.read -= len;
    let text = fs::read_to_string(&csv).ok()?;
    let mut lines = text.lines();
    let header = lines.next().filter(|h| h.len() <= MAX_SWEEP_HEADER)?;
    let columns: Vec<String> = header.split(',').map(|c| c.trim().into()).collect();
    let prefix = if id.is_empty() {
        String::new()
    } else {
        format!("{id}/")
    };
    let seed_at = columns.iter().position(|c| c == "seed");
    let mut built = header.len();
    let mut rows = Vec::new();
    for line in lines.take(MAX_SWEEP_ROWS) {
        let values: Vec<Value> = line.split(',').take(columns.len()).map(cell).collect();
        let world = seed_at
            .and_then(|k| values.get(k))
            .and_then(Value::as_i64)
            .map(|s| format!("{prefix}MapData_Seed_{s}.dat"))
            .filter(|w| worlds.contains(w.as_str()));
        let row = SweepRow { world, values };
        built += built_bytes(&row);
        if built > budget.built {
            return None;
        }
        rows.push(row);
    }
    budget.built -= built;
    let sheet = dir.join("contact_sheet.png");
    Some(SweepEntry {
        contact_sheet: sheet
            .is_file()
            .then(|| format!("{prefix}contact_sheet.png")),
        id,
        columns,
        rows,
    })
}

/// A CSV cell as JSON: a number when it parses as one, null when empty, else a string.
fn cell(v: &str) -> Value {
    let v = v.trim();
    if v.is_empty() {
        return Value::Null;
    }
    if let Ok(i) = v.parse::<i64>() {
        return Value::from(i);
    }
    match v.parse::<f64>() {
        Ok(f) if f.is_finite() => Value::from(f),
        _ => Value::from(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_checked_and_truncation_is_named() {
        use islagen::blueprint::{format::PRMS, Format, Rule};
        let mut v2 = b"ISLA".to_vec();
        v2.extend(2u32.to_le_bytes());
        v2.extend(PRMS.0.to_le_bytes());
        v2.extend(30u64.to_le_bytes());
        v2.extend(7i32.to_le_bytes());
        v2.extend(256i32.to_le_bytes());
        let h = blueprint::read_header(&v2, 1 << 20).unwrap();
        assert_eq!((h.map_size, h.seed, h.format), (256, Some(7), Format::V2));
        let rule = |b: &[u8], len| blueprint::read_header(b, len).unwrap_err().rule();
        let short = blueprint::read_header(&v2, 1000).unwrap_err();
        assert_eq!(short.rule(), Some(Rule::Truncated));
        assert!(
            short.to_string().contains("truncated: 1000 bytes"),
            "{short}"
        );
        assert_eq!(rule(&v2[..22], 1 << 20), Some(Rule::Truncated));
        assert_eq!(rule(b"", 0), Some(Rule::Truncated));
        assert_eq!(rule(b"\x00abc", 4), Some(Rule::UnknownFormat));
        let mut big = v2.clone();
        big[24..28].copy_from_slice(&100_000i32.to_le_bytes());
        assert_eq!(rule(&big, u64::MAX), Some(Rule::MapSizeOutOfRange));
        let mut not_prms = v2.clone();
        not_prms[8..12].copy_from_slice(b"HGTS");
        assert_eq!(rule(&not_prms, u64::MAX), Some(Rule::ParamsNotFirst));
        let mut v1 = vec![0x07];
        v1.extend(b"ISLA_V1");
        v1.extend(256i32.to_le_bytes());
        let h = blueprint::read_header(&v1, 256 * 256 * 8).unwrap();
        assert_eq!((h.map_size, h.seed, h.format), (256, None, Format::V1));
        assert_eq!(rule(&v1, 256 * 256 * 8 - 1), Some(Rule::Truncated));
    }

    #[test]
    fn sweep_tables_past_the_listing_budget_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let table = "seed,towns\n1,5\n2,6\n";
        for name in ["a", "b", "c", "d"] {
            fs::create_dir(root.join(name)).unwrap();
            fs::write(root.join(name).join("sweep.csv"), table).unwrap();
        }
        let listed = |budget: u64| -> Vec<String> {
            let c = list_within(&root, "", budget);
            c.sweeps.into_iter().map(|s| s.id).collect()
        };
        let n = table.len() as u64;
        assert_eq!(listed(4 * n), ["a", "b", "c", "d"]);
        assert_eq!(listed(3 * n - 1), ["a", "b"]);
        assert_eq!(listed(0), Vec::<String>::new());
        assert_eq!(listed(MAX_SWEEP_BYTES).len(), 4);
    }

    #[test]
    fn a_sweep_header_too_long_to_copy_into_every_row_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let table = |header: &str| format!("{header}\n{}", "1\n".repeat(MAX_SWEEP_ROWS));
        std::fs::write(root.join("sweep.csv"), table("seed,land")).unwrap();
        let read = sweep(&root, &root, &HashSet::new(), &mut full()).unwrap();
        assert_eq!((read.columns.len(), read.rows.len()), (2, MAX_SWEEP_ROWS));
        let long = "c".repeat(64 << 10);
        std::fs::write(root.join("sweep.csv"), table(&long)).unwrap();
        assert!(sweep(&root, &root, &HashSet::new(), &mut full()).is_none());
    }

    fn full() -> Budget {
        Budget {
            read: MAX_SWEEP_BYTES,
            built: MAX_SWEEP_BUILT,
        }
    }

    /// A 14 KB table whose one 4 KB column name was copied into each of its 10 000 rows built
    /// 42 MB: the names are held once, and what the rows build is counted and capped.
    #[test]
    fn a_table_builds_about_what_it_reads_and_the_listing_caps_what_it_builds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let name = "c".repeat(MAX_SWEEP_HEADER);
        let csv = format!("{name}\n{}", "1\n".repeat(MAX_SWEEP_ROWS));
        std::fs::write(root.join("sweep.csv"), &csv).unwrap();
        let mut budget = full();
        let read = sweep(&root, &root, &HashSet::new(), &mut budget).unwrap();
        assert_eq!(read.rows.len(), MAX_SWEEP_ROWS);
        // What is built and sent is the text plus a constant a row (it was the name a row).
        let per_row = |bytes: usize| bytes.saturating_sub(csv.len()) / MAX_SWEEP_ROWS;
        let built = MAX_SWEEP_BUILT - budget.built;
        assert!(per_row(built) <= 96, "{built} B built from {} B", csv.len());
        let json = serde_json::to_vec(&read).unwrap().len();
        assert!(per_row(json) <= 32, "{json} B of JSON from {} B", csv.len());
        // The rows stay in step with the columns, and `world` comes from `seed`.
        std::fs::write(root.join("sweep.csv"), "land,seed\n0.5,3,extra\n,4\n").unwrap();
        let ids: HashSet<&str> = ["MapData_Seed_3.dat"].into();
        let t = sweep(&root, &root, &ids, &mut full()).unwrap();
        assert_eq!(t.rows[0].values, [Value::from(0.5), Value::from(3)]);
        assert_eq!(t.rows[0].world.as_deref(), Some("MapData_Seed_3.dat"));
        assert_eq!(
            (t.rows[1].values[0].clone(), t.rows[1].world.clone()),
            (Value::Null, None)
        );
        // A table past what is left to build is left out, and takes nothing.
        let mut low = Budget {
            read: MAX_SWEEP_BYTES,
            built: built - 1,
        };
        std::fs::write(root.join("sweep.csv"), &csv).unwrap();
        assert!(sweep(&root, &root, &HashSet::new(), &mut low).is_none());
        assert_eq!(low.built, built - 1);
    }

    #[test]
    fn csv_cells_become_json_values() {
        assert_eq!(cell("12"), Value::from(12));
        assert_eq!(cell("0.5"), Value::from(0.5));
        assert_eq!(cell(""), Value::Null);
        assert_eq!(cell("abc"), Value::from("abc"));
    }
}
