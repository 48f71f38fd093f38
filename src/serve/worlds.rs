//! Loaded blueprints, cached by (path, modification time, length) so a rewritten file is read
//! again and an unchanged one only once.
//!
//! Guarantees: a blueprint is read through [`crate::blueprint::read_file`] (the hostile-input
//! reader) once however many requests ask for it at the same time; a failed read is kept as its
//! message (for the same file version) and never retried in a loop; the cache holds at most
//! `max_worlds` worlds and, beyond the one most recently used, at most `max_bytes` of grids.
//! The whole blueprint is read into memory (HGTS, BIOM and WBID are kept: 7 bytes a pixel,
//! 470 MB at 8192, 7.5 GB at 32768; WSRF is dropped after reading).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::UNIX_EPOCH;

use rayon::prelude::*;

use crate::blueprint::{self, Blueprint, Format};
use crate::exports::SeaLevel;
use crate::units::METRES_PER_RAW;

/// Identifies one version of one file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileKey {
    /// Canonical path.
    pub path: PathBuf,
    /// Modification time, nanoseconds since the epoch.
    pub modified_ns: u128,
    /// Length in bytes.
    pub len: u64,
}

impl FileKey {
    /// The key of the file at `path` as it is now.
    pub fn of(path: &Path) -> std::io::Result<FileKey> {
        let meta = std::fs::metadata(path)?;
        Ok(FileKey {
            path: path.to_path_buf(),
            modified_ns: meta
                .modified()?
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
            len: meta.len(),
        })
    }
}

/// A loaded world and what every request needs from it.
#[derive(Debug)]
pub struct World {
    /// The file version it was read from.
    pub key: FileKey,
    /// The blueprint.
    pub blueprint: Blueprint,
    /// v2 or v1.
    pub format: Format,
    /// Sea level, raw units (WBTB ocean, else TCRV, else 0.15).
    pub sea_raw: f32,
    /// Lowest and highest height, metres relative to sea level.
    pub height_range_m: [f32; 2],
    /// Bytes of grids held.
    pub bytes: u64,
}

/// Why a world could not be had: the message names the file and, from the reader, the rule
/// and byte offset.
pub type LoadError = String;

type Slot = Arc<OnceLock<Result<Arc<World>, LoadError>>>;

/// The cache.
#[derive(Debug)]
pub struct Worlds {
    max_worlds: usize,
    max_bytes: u64,
    slots: Mutex<Vec<(FileKey, Slot, u64)>>,
    tick: std::sync::atomic::AtomicU64,
}

impl Worlds {
    /// An empty cache of at most `max_worlds` worlds and `max_bytes` of grids.
    pub fn new(max_worlds: usize, max_bytes: u64) -> Worlds {
        Worlds {
            max_worlds: max_worlds.max(1),
            max_bytes,
            slots: Mutex::new(Vec::new()),
            tick: Default::default(),
        }
    }

    /// The world in the file at `path` (canonical, inside DIR); blocks while it is read.
    pub fn get(&self, path: &Path) -> Result<Arc<World>, LoadError> {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        let key = FileKey::of(path).map_err(|e| format!("{name}: {e}"))?;
        let slot = self.slot(&key);
        let world = slot.get_or_init(|| load(&key, &name)).clone();
        self.evict(&key);
        world
    }

    /// The slot for `key`, made if new (a slot for another version of the same path is dropped).
    fn slot(&self, key: &FileKey) -> Slot {
        let now = self.tick.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        slots.retain(|(k, _, _)| k == key || k.path != key.path);
        if let Some(s) = slots.iter_mut().find(|(k, _, _)| k == key) {
            s.2 = now;
            return s.1.clone();
        }
        let slot = Slot::default();
        slots.push((key.clone(), slot.clone(), now));
        slot
    }

    /// Drops the least recently used worlds (never `keep`) until the bounds hold.
    fn evict(&self, keep: &FileKey) {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let held: u64 = slots
                .iter()
                .filter_map(|(_, s, _)| s.get()?.as_ref().ok().map(|w| w.bytes))
                .sum();
            if slots.len() <= self.max_worlds && held <= self.max_bytes {
                return;
            }
            let oldest = slots
                .iter()
                .enumerate()
                .filter(|(_, (k, s, _))| k != keep && s.get().is_some())
                .min_by_key(|(_, (_, _, used))| *used)
                .map(|(i, _)| i);
            match oldest {
                Some(i) => {
                    slots.remove(i);
                }
                None => return,
            }
        }
    }

    /// Forgets every world (tests, and a job that replaced a file).
    pub fn clear(&self) {
        self.slots.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

fn load(key: &FileKey, name: &str) -> Result<Arc<World>, LoadError> {
    let loaded = blueprint::read_file(&key.path).map_err(|e| format!("{name}: {e}"))?;
    Ok(Arc::new(World::new(
        key.clone(),
        loaded.blueprint,
        loaded.format,
    )))
}

impl World {
    /// A world from a blueprint in memory.
    pub fn new(key: FileKey, mut blueprint: Blueprint, format: Format) -> World {
        // WSRF is not drawn or probed (a body's level is WBTB's): 2 bytes a pixel not held.
        blueprint.water_surface = None;
        let sea_raw = SeaLevel::of(&blueprint).raw;
        let (lo, hi) = blueprint
            .heights
            .as_slice_memory_order()
            .unwrap_or_default()
            .par_iter()
            .filter(|h| h.is_finite())
            .fold(
                || (f32::INFINITY, f32::NEG_INFINITY),
                |(lo, hi), &h| (lo.min(h), hi.max(h)),
            )
            .reduce(
                || (f32::INFINITY, f32::NEG_INFINITY),
                |a, b| (a.0.min(b.0), a.1.max(b.1)),
            );
        let to_m = |raw: f32| {
            if raw.is_finite() {
                (raw - sea_raw) * METRES_PER_RAW
            } else {
                0.0
            }
        };
        let px = (blueprint.side() as u64).pow(2);
        let bytes = px * (4 + 1 + if blueprint.water_ids.is_some() { 2 } else { 0 });
        World {
            key,
            format,
            sea_raw,
            height_range_m: [to_m(lo), to_m(hi)],
            bytes,
            blueprint,
        }
    }

    /// MapSize.
    pub fn side(&self) -> usize {
        self.blueprint.side()
    }
}
