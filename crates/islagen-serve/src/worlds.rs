//! Loaded blueprints, cached by (path, modification time, length) so a rewritten file is read
//! again and an unchanged one only once.
//!
//! Guarantees: a blueprint is read by the hostile-input reader ([`islagen::blueprint::read`],
//! without its grids for v2) once however many requests ask for it at the same time; a failed
//! read is kept as its message (for the same file version) and never retried in a loop; the
//! cache holds at most `max_worlds` worlds and, beyond the one most recently used, at most
//! `max_bytes`; a v1 world, read whole, is kept over v2 worlds, which are cheap to open again.
//!
//! **Memory is counted as held, before it is held.** A world counts what it really holds
//! ([`held_bytes`]: grids, roads, rivers, towns, water bodies, with the allocator's blocks), and
//! a world about to load reserves its worst case first ([`estimate_bytes`], from the section
//! table of the same open file that is then read: v2 grids nothing, as they stay in the file,
//! every variable-length section at its worst expansion), so worlds loading at once are counted
//! too; a load that cannot fit even after evicting what can
//! be evicted is refused (and retried on a later request). A thumbnail of a world not in the
//! cache is read without entering it ([`Worlds::get_passing`]), so browsing the list never
//! evicts the world open. A v2 world's grids (HGTS, BIOM, WBID; 7 bytes a pixel, 7.5 GB at
//! 32768) stay in the file and are read by position ([`super::grids`]); only the rest is held.
//! A v1 world is read whole (WSRF, where a file has it, is dropped after reading).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::UNIX_EPOCH;

use rayon::prelude::*;

use super::grids::{GridError, Grids};
use islagen::blueprint::{self, Blueprint, Format};
use islagen::sea::RecordedSea;
use islagen::units::METRES_PER_RAW;

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
    /// Lowest and highest height, metres relative to sea level (on a `RANGE_LATTICE`² lattice
    /// when the grids stay in the file).
    pub height_range_m: [f32; 2],
    /// Where the grids are: in the file (v2: the blueprint's grids are empty), or in the
    /// blueprint (v1).
    pub grids: Grids,
    /// Bytes held ([`held_bytes`]).
    pub bytes: u64,
}

/// Why a world could not be had. Its text names the file and, from the reader, the rule and
/// byte offset; the reader's error itself is kept (its rule, section and offset). Cloneable, as a failed
/// load is kept for its file version and handed to every request for it.
#[derive(Clone, Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be opened or its metadata read.
    #[error("{name}: {source}")]
    Io {
        /// The file name.
        name: String,
        /// The cause.
        source: Arc<std::io::Error>,
    },
    /// Its section table could not be walked for the memory estimate.
    #[error("{name}: {source}")]
    Estimate {
        /// The file name.
        name: String,
        /// The cause.
        source: EstimateError,
    },
    /// The reader refused it.
    #[error("{name}: {source}")]
    Read {
        /// The file name.
        name: String,
        /// The reader's error: its rule, section and byte.
        source: Arc<blueprint::ReadError>,
    },
    /// A grid could not be scanned where it lies in the file.
    #[error(transparent)]
    Grid(#[from] GridError),
    /// Not now: it does not fit beside the worlds held and loading (retried on a later request).
    #[error("{name}: not enough memory to open it now: it may need {} MiB, and {} MiB of the server's {} MiB are held or loading; try again when other worlds are closed", need >> 20, others >> 20, max >> 20)]
    NoRoom {
        /// The file name.
        name: String,
        /// Bytes its load may need.
        need: u64,
        /// Bytes held and loading beside it.
        others: u64,
        /// The budget.
        max: u64,
    },
}

impl LoadError {
    fn io(name: &str) -> impl FnOnce(std::io::Error) -> LoadError + '_ {
        move |e| LoadError::Io {
            name: name.into(),
            source: Arc::new(e),
        }
    }
}

/// Why [`estimate_bytes`] could not walk a file.
#[derive(Clone, Debug, thiserror::Error)]
pub enum EstimateError {
    /// Its length could not be read.
    #[error("{0}")]
    Metadata(Arc<std::io::Error>),
    /// A read of its section table failed.
    #[error("reading its section table at byte {at}: {source}")]
    Table {
        /// The byte read from.
        at: u64,
        /// The cause.
        source: Arc<std::io::Error>,
    },
    /// Its header breaks the reader's rules.
    #[error("{0}")]
    Header(Arc<blueprint::ReadError>),
    /// More sections than the walk takes.
    #[error("more than {MAX_SECTIONS} sections")]
    TooManySections,
}

/// A load's outcome as a slot keeps it: a refusal for want of room is not kept (it is retried).
type Outcome = Result<Arc<World>, (LoadError, Retry)>;
type Slot = Arc<OnceLock<Outcome>>;

/// Whether a load may evict cached worlds to make room.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Evict {
    Yes,
    No,
}

/// Whether a failed load may succeed on a later request.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Retry {
    No,
    Yes,
}

/// The cache.
#[derive(Debug)]
pub struct Worlds {
    max_worlds: usize,
    max_bytes: u64,
    /// Read every world whole, grids in memory (the benchmarks' baseline).
    whole: bool,
    state: Mutex<State>,
    tick: std::sync::atomic::AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    /// (file version, its world, when last used).
    slots: Vec<(FileKey, Slot, u64)>,
    /// Bytes reserved by loads under way.
    loading: u64,
}

impl Worlds {
    /// An empty cache of at most `max_worlds` worlds and `max_bytes` held.
    pub fn new(max_worlds: usize, max_bytes: u64) -> Worlds {
        Worlds {
            max_worlds: max_worlds.max(1),
            max_bytes,
            whole: false,
            state: Mutex::new(State::default()),
            tick: Default::default(),
        }
    }

    /// This cache, reading every world whole with its grids in memory, as the server did
    /// before it read them by position (the benchmarks' baseline); memory is then counted with
    /// the grids.
    pub fn reading_whole(self) -> Worlds {
        Worlds {
            whole: true,
            ..self
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The world in the file at `path` (canonical, inside DIR); blocks while it is read.
    pub fn get(&self, path: &Path) -> Result<Arc<World>, LoadError> {
        let (key, name) = key_and_name(path)?;
        let slot = self.slot(&key);
        let outcome = slot
            .get_or_init(|| self.load_counted(&key, &name, Evict::Yes))
            .clone();
        if let Err((_, Retry::Yes)) = &outcome {
            self.lock().slots.retain(|(_, s, _)| !Arc::ptr_eq(s, &slot));
        }
        self.evict(Some(&key));
        outcome.map_err(|(e, _)| e)
    }

    /// The world at `path` for a passing look (a thumbnail): the cached one if it is loaded,
    /// else one read for the caller alone — counted while it loads, never entering the cache,
    /// so it evicts nothing.
    pub fn get_passing(&self, path: &Path) -> Result<Arc<World>, LoadError> {
        let (key, name) = key_and_name(path)?;
        let cached = {
            let state = self.lock();
            let slot = state.slots.iter().find(|(k, _, _)| *k == key);
            slot.and_then(|(_, s, _)| s.get().cloned())
        };
        match cached {
            Some(outcome) => outcome.map_err(|(e, _)| e),
            None => self
                .load_counted(&key, &name, Evict::No)
                .map_err(|(e, _)| e),
        }
    }

    /// Whether the world of this file version is loaded in the cache (tests).
    pub fn holds(&self, path: &Path) -> bool {
        let Ok(key) = FileKey::of(path) else {
            return false;
        };
        let state = self.lock();
        state
            .slots
            .iter()
            .any(|(k, s, _)| *k == key && matches!(s.get(), Some(Ok(_))))
    }

    /// Bytes the cached worlds hold, and bytes reserved by loads under way.
    pub fn held(&self) -> (u64, u64) {
        let state = self.lock();
        (held(&state.slots), state.loading)
    }

    /// Reads `key` with its worst case reserved first: refused (to be retried) when it does not
    /// fit beside what is held and loading, after evicting every world it may (`evict`; a
    /// passing look evicts nothing).
    fn load_counted(&self, key: &FileKey, name: &str, evict: Evict) -> Outcome {
        // One open file for the estimate and the read, so the reservation is for what is read
        // even when the file is renamed over meanwhile.
        let file =
            std::fs::File::open(&key.path).map_err(|e| (LoadError::io(name)(e), Retry::No))?;
        let need = estimate_bytes(&file, self.whole).map_err(|source| {
            let name = name.into();
            (LoadError::Estimate { name, source }, Retry::No)
        })?;
        {
            let mut state = self.lock();
            if evict == Evict::Yes {
                self.evict_locked(&mut state, Some(key), need);
            }
            let others = held(&state.slots) + state.loading;
            // Beyond the world in use: one world may be larger than the budget when it is alone.
            if others > 0 && others + need > self.max_bytes {
                let (name, max) = (name.into(), self.max_bytes);
                let refusal = LoadError::NoRoom {
                    name,
                    need,
                    others,
                    max,
                };
                return Err((refusal, Retry::Yes));
            }
            state.loading += need;
        }
        let _reserved = Reserved(self, need);
        load(key, file, name, self.whole).map_err(|e| (e, Retry::No))
    }

    /// The slot for `key`, made if new (a slot for another version of the same path is dropped).
    fn slot(&self, key: &FileKey) -> Slot {
        let now = self.tick.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut state = self.lock();
        let slots = &mut state.slots;
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
    fn evict(&self, keep: Option<&FileKey>) {
        let mut state = self.lock();
        self.evict_locked(&mut state, keep, 0);
    }

    /// Drops loaded worlds (never `keep`) until at most `max_worlds` slots remain and what is
    /// held, loading and `extra` fits in `max_bytes`, or nothing more can go. Past the count the
    /// least recently used of the worlds cheapest to open again goes first (a v2 world, whose
    /// grids stay in its file, before a v1 world, read whole); past the bytes, the least recently
    /// used of the worlds read whole. So a v1 world is not read again for every v2 world opened beside it.
    fn evict_locked(&self, state: &mut State, keep: Option<&FileKey>, extra: u64) {
        loop {
            let used = held(&state.slots) + state.loading + extra;
            let over_count = state.slots.len() > self.max_worlds;
            if !over_count && used <= self.max_bytes {
                return;
            }
            // Read whole (v1, or every world in the baseline): costly to open again.
            let large =
                |s: &Slot| matches!(s.get(), Some(Ok(w)) if matches!(w.grids, Grids::Memory));
            let oldest = state
                .slots
                .iter()
                .enumerate()
                .filter(|(_, (k, s, _))| Some(k) != keep && s.get().is_some())
                .min_by_key(|(_, (_, s, used))| (large(s) == over_count, *used))
                .map(|(i, _)| i);
            // Past the count only while other worlds load (their slots count, but cannot go): a
            // world read whole waits for them to finish, when a cheap one may go instead.
            let loading = state.slots.iter().any(|(_, s, _)| s.get().is_none());
            let only_large = oldest.is_some_and(|i| large(&state.slots[i].1));
            if over_count && used <= self.max_bytes && loading && only_large {
                return;
            }
            match oldest {
                Some(i) => {
                    state.slots.remove(i);
                }
                None => return,
            }
        }
    }

    /// Forgets every world (tests, and a job that replaced a file).
    pub fn clear(&self) {
        self.lock().slots.clear();
    }
}

/// What the loaded worlds among `slots` hold.
fn held(slots: &[(FileKey, Slot, u64)]) -> u64 {
    slots
        .iter()
        .filter_map(|(_, s, _)| s.get()?.as_ref().ok().map(|w| w.bytes))
        .sum()
}

fn key_and_name(path: &Path) -> Result<(FileKey, String), LoadError> {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let key = FileKey::of(path).map_err(LoadError::io(&name))?;
    Ok((key, name))
}

/// Bytes reserved for a load under way, given back when the load ends, however it ends (a
/// panic inside it too, which the server survives).
struct Reserved<'a>(&'a Worlds, u64);

impl Drop for Reserved<'_> {
    fn drop(&mut self) {
        self.0.lock().loading -= self.1;
    }
}

/// The smallest block the allocator hands out, with its header, bytes (glibc's).
const MIN_BLOCK: u64 = 32;
/// The most memory a byte of a variable-length section (roads, rivers, towns, water bodies, the
/// records) can become: an empty road path is 4 bytes on disk and a 24-byte `Vec` in a list
/// that may have grown to twice its length (12×); a river's 7 fixed bytes are a 56-byte record
/// likewise (16×).
const VARIABLE_EXPANSION: u64 = 16;
/// The most sections the estimate walks (the registered tags are 15, but unknown tags are
/// skipped by the reader, so a file may carry many; a duplicate is refused on read).
const MAX_SECTIONS: usize = 1 << 16;
/// Bytes a v1 pixel is held in once read: its height (f32) and its biome.
const V1_HELD_PER_PX: u64 =
    (std::mem::size_of::<f32>() + std::mem::size_of::<blueprint::Biome>()) as u64;

/// An upper bound on what reading the blueprint at `path` holds at its peak, bytes, from its
/// header and section frames alone (a positioned read per section, at most `MAX_SECTIONS`):
/// v2's grid sections (HGTS, BIOM, WBID, WSRF) nothing — they stay in the file — unless read
/// `whole` (then as on disk), and everything else × `VARIABLE_EXPANSION`; v1 (fixed 8-byte pixel records, read whole) 5 bytes a pixel plus its
/// town and road tail.
pub fn estimate_bytes(mut file: &std::fs::File, whole: bool) -> Result<u64, EstimateError> {
    use islagen::blueprint::format::*;
    use std::io::{Read, Seek, SeekFrom};
    let len = file
        .metadata()
        .map_err(|e| EstimateError::Metadata(Arc::new(e)))?
        .len();
    let mut read_at = |buf: &mut [u8], at: u64| {
        file.seek(SeekFrom::Start(at))
            .and_then(|_| file.read_exact(buf))
    };
    let mut head = vec![0u8; blueprint::HEADER_PROBE_LEN.min(len as usize)];
    read_at(&mut head, 0).map_err(|e| EstimateError::Table {
        at: 0,
        source: Arc::new(e),
    })?;
    if head.first() == Some(&V1_FIRST_BYTE) {
        let header =
            blueprint::read_header(&head, len).map_err(|e| EstimateError::Header(Arc::new(e)))?;
        let px = u64::from(header.map_size).pow(2);
        let grids = (px * V1_PIXEL_LEN).min(len);
        return Ok(px * V1_HELD_PER_PX + (len - grids) * VARIABLE_EXPANSION);
    }
    let mut total = 0u64;
    let read_frame = |buf: &mut [u8; SECTION_FRAME_LEN as usize], at: u64| read_at(buf, at);
    for (i, frame) in blueprint::section_frames(len, read_frame).enumerate() {
        if i == MAX_SECTIONS {
            return Err(EstimateError::TooManySections);
        }
        let frame = match frame {
            Ok(frame) => frame,
            // A torn tail costs nothing to hold; the reader refuses it later, with its reason.
            Err(blueprint::FrameError::Truncated { .. }) => break,
            Err(blueprint::FrameError::Io { at, source }) => {
                return Err(EstimateError::Table {
                    at,
                    source: Arc::new(source),
                })
            }
        };
        let payload = frame.length.min(len - frame.payload());
        // The grids stay in the file (read by position, see super::grids), unless read whole.
        total += match frame.tag {
            HGTS | BIOM | WBID | WSRF if whole => payload,
            HGTS | BIOM | WBID | WSRF => 0,
            _ => payload * VARIABLE_EXPANSION,
        };
    }
    Ok(total)
}

/// What a blueprint holds in memory, bytes: its grids and every list with the allocator's
/// smallest block for each allocation.
pub fn held_bytes(bp: &Blueprint) -> u64 {
    use std::mem::size_of;
    let block = |bytes: usize| (bytes as u64).max(MIN_BLOCK);
    let list = |cap: usize, item: usize| if cap == 0 { 0 } else { block(cap * item) };
    let mut bytes = (bp.heights.len() * size_of::<f32>() + bp.biomes.len()) as u64;
    bytes += bp
        .water_ids
        .as_ref()
        .map_or(0, |ids| (ids.len() * size_of::<u16>()) as u64);
    if let Some(islagen::blueprint::WaterSurface::Grid(g)) = &bp.water_surface {
        bytes += (g.len() * size_of::<u16>()) as u64;
    }
    bytes += list(bp.towns.capacity(), size_of::<islagen::blueprint::Town>());
    let bodies = bp.water_bodies.as_ref().map_or(0, Vec::capacity);
    bytes += list(bodies, size_of::<islagen::blueprint::WaterBody>());
    for tier in islagen::blueprint::RoadTier::ALL {
        let paths = bp.roads.tier(*tier);
        bytes += list(paths.capacity(), size_of::<islagen::blueprint::RoadPath>());
        bytes += paths
            .iter()
            .map(|p| list(p.capacity(), size_of::<[f32; 2]>()))
            .sum::<u64>();
    }
    if let Some(net) = &bp.rivers {
        bytes += list(
            net.rivers.capacity(),
            size_of::<islagen::blueprint::River>(),
        );
        for r in &net.rivers {
            bytes += list(r.reaches.capacity(), 2);
            bytes += list(
                r.points.capacity(),
                size_of::<islagen::blueprint::RiverPoint>(),
            );
        }
    }
    bytes
}

fn load(
    key: &FileKey,
    file: std::fs::File,
    name: &str,
    whole: bool,
) -> Result<Arc<World>, LoadError> {
    // The grids are read from the very file parsed (a file renamed over meanwhile is not).
    #[cfg(unix)]
    let loaded = match whole {
        true => blueprint::read::read(&file),
        false => blueprint::read::read_without_grids(&file),
    };
    #[cfg(not(unix))]
    let loaded = match whole {
        true => blueprint::read_file(&key.path),
        false => blueprint::read_file_without_grids(&key.path),
    };
    let loaded = loaded.map_err(|e| LoadError::Read {
        name: name.into(),
        source: Arc::new(e),
    })?;
    let grids = Grids::of(&loaded, file, name);
    Ok(Arc::new(World::new(
        key.clone(),
        loaded.blueprint,
        loaded.format,
        grids,
    )?))
}

/// Samples a side of the lattice a world's height range is taken on when its grids stay in the
/// file.
const RANGE_LATTICE: usize = 257;

impl World {
    /// A world from a blueprint and where its grids are.
    pub fn new(
        key: FileKey,
        mut blueprint: Blueprint,
        format: Format,
        grids: Grids,
    ) -> Result<World, GridError> {
        // WSRF is not drawn or probed (a body's level is WBTB's): 2 bytes a pixel not held.
        blueprint.water_surface = None;
        let sea_raw = RecordedSea::of(&blueprint).raw;
        let side = blueprint.side();
        // Held grids are scanned whole in place; grids in the file on a lattice.
        let sampled = match &grids {
            Grids::Memory => None,
            Grids::File(_) => {
                let lattice: Vec<usize> = (0..RANGE_LATTICE)
                    .map(|k| k * (side - 1) / (RANGE_LATTICE - 1))
                    .collect();
                Some(grids.heights(&blueprint, &lattice, &lattice)?)
            }
        };
        let (lo, hi) = sampled
            .as_ref()
            .unwrap_or(&blueprint.heights)
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
        let bytes = held_bytes(&blueprint);
        Ok(World {
            key,
            format,
            sea_raw,
            height_range_m: [to_m(lo), to_m(hi)],
            bytes,
            blueprint,
            grids,
        })
    }

    /// MapSize.
    pub fn side(&self) -> usize {
        self.blueprint.side()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use islagen::blueprint::{sample, write_v1_file, write_v2_file};

    /// A 256² world whose trails are `paths` empty paths: 4 bytes each on disk, 24 in memory.
    fn world_with_paths(dir: &Path, name: &str, paths: usize) -> PathBuf {
        let mut bp = sample::full(256, 1);
        bp.roads.trail = vec![Vec::new(); paths];
        let path = dir.join(name);
        write_v2_file(&path, &bp).unwrap();
        path
    }

    /// A world counts what it holds, roads included (the grids alone were counted: 458 KB for a
    /// file holding tens of MB of paths), and the estimate made before loading bounds it.
    #[test]
    fn a_world_counts_what_it_holds_and_the_estimate_bounds_it() {
        let dir = tempfile::tempdir().unwrap();
        let plain = world_with_paths(dir.path(), "plain.dat", 0);
        let roads = world_with_paths(dir.path(), "roads.dat", 1 << 20);
        let v1 = dir.path().join("v1.dat");
        write_v1_file(&v1, &sample::full(256, 2)).unwrap();
        let read = |path: &Path| islagen::blueprint::read_file_without_grids(path).unwrap();
        for path in [&plain, &roads, &v1] {
            let held = held_bytes(&read(path).blueprint);
            let estimate = estimate_bytes(&std::fs::File::open(path).unwrap(), false).unwrap();
            assert!(
                held <= estimate,
                "{path:?}: holds {held}, estimated {estimate}"
            );
            assert!(estimate <= 16 * std::fs::metadata(path).unwrap().len() + 8);
        }
        // v2 grids stay in the file; v1's are held.
        assert!(held_bytes(&read(&plain).blueprint) < 256 * 256);
        assert!(held_bytes(&read(&v1).blueprint) >= 256 * 256 * 5);
        let held = held_bytes(&read(&roads).blueprint);
        assert!(held >= 24 * (1 << 20), "{held}: the paths are not counted");
    }

    /// A load's reservation is given back even when the load panics (the server survives a
    /// handler's panic, and an inflated count would refuse every later load).
    #[test]
    fn a_reservation_is_given_back_when_the_load_panics() {
        let worlds = Worlds::new(4, 1 << 20);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            worlds.lock().loading += 1000;
            let _reserved = Reserved(&worlds, 1000);
            panic!("a load that fails hard");
        }));
        assert!(caught.is_err());
        assert_eq!(worlds.held(), (0, 0));
    }

    /// Worlds loading at once are counted: a load that cannot fit beside them is refused, and
    /// retried (not kept as the file's error) once there is room.
    #[test]
    fn a_load_that_does_not_fit_beside_others_loading_is_refused_then_retried() {
        let dir = tempfile::tempdir().unwrap();
        let path = world_with_paths(dir.path(), "w.dat", 0);
        let need = estimate_bytes(&std::fs::File::open(&path).unwrap(), false).unwrap();
        let worlds = Worlds::new(4, 2 * need);
        worlds.lock().loading = need + 1;
        let e = worlds.get(&path).unwrap_err();
        assert!(matches!(e, LoadError::NoRoom { .. }), "{e}");
        assert!(e.to_string().contains("not enough memory"), "{e}");
        assert!(!worlds.holds(&path));
        worlds.lock().loading = 0;
        assert!(worlds.get(&path).is_ok());
        assert!(worlds.holds(&path));
        assert_eq!(worlds.held().1, 0, "the reservation is returned");
    }

    /// A passing look (a thumbnail) reads a world without caching it, so it evicts nothing.
    #[test]
    fn a_passing_look_evicts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let a = world_with_paths(dir.path(), "a.dat", 0);
        let b = world_with_paths(dir.path(), "b.dat", 0);
        let worlds = Worlds::new(1, u64::MAX);
        worlds.get(&a).unwrap();
        assert!(worlds.get_passing(&b).is_ok());
        assert!(worlds.holds(&a) && !worlds.holds(&b));
        // Without room beside the open world a passing look is refused; it never evicts.
        let tight = Worlds::new(4, worlds.held().0 + 1);
        tight.get(&a).unwrap();
        let e = tight.get_passing(&b).unwrap_err();
        assert!(
            matches!(e, LoadError::NoRoom { .. }) && tight.holds(&a),
            "{e}"
        );
        worlds.get(&b).unwrap();
        assert!(!worlds.holds(&a), "max_worlds 1: the open world is b");
    }

    /// Past the count of worlds a v2 world (cheap to open again) goes before a v1 world read
    /// whole, even one used more recently; past the bytes, the v1 world goes.
    #[test]
    fn v2_worlds_are_dropped_before_a_v1_world_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let v1 = dir.path().join("v1.dat");
        write_v1_file(&v1, &sample::full(256, 2)).unwrap();
        let (a, b) = (
            world_with_paths(dir.path(), "a.dat", 0),
            world_with_paths(dir.path(), "b.dat", 0),
        );
        let worlds = Worlds::new(2, u64::MAX);
        worlds.get(&v1).unwrap();
        worlds.get(&a).unwrap();
        worlds.get(&b).unwrap();
        assert!(worlds.holds(&v1) && !worlds.holds(&a) && worlds.holds(&b));
        // A budget for the v1 world and one v2 world: the v1 world goes when `a` opens.
        let need = |p: &Path| estimate_bytes(&std::fs::File::open(p).unwrap(), false).unwrap();
        let probe = Worlds::new(8, u64::MAX);
        probe.get(&v1).unwrap();
        probe.get(&b).unwrap();
        let tight = Worlds::new(8, probe.held().0 + need(&b) - 1);
        tight.get(&v1).unwrap();
        tight.get(&b).unwrap();
        assert!(tight.holds(&v1));
        tight.get(&a).unwrap();
        assert!(!tight.holds(&v1) && tight.holds(&a) && tight.holds(&b));
    }
}
