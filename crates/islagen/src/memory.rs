//! Memory: how much a generation will need, and whether this machine has it — so a MapSize the
//! machine cannot hold stops before any work with a clear message instead of being killed
//! part-way.
//!
//! The estimate is measured, not derived: peak resident memory per map pixel of the whole
//! command, from runs at MapSize 8192, 16384 and 32768 (BENCHMARKS.md, "8192 again: the one-thread stages share the cores": 0.97, 3.39 and
//! 12.76 GB with roads, 0.87 GB at 8192 with `--skip-roads`), plus a fixed allowance for the
//! program and the MapSize-independent grids (the 2048² erosion grid, the 1024² hydrology grid).
//!
//! [`CountingAlloc`], installed by the binary, counts heap bytes so each stage's log line carries
//! the most heap held while it ran (`heap_peak_mib`; stages that run side by side share it).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Heap bytes allocated now, and the most since the last [`reset_peak`] (when the counting
/// allocator is installed).
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

/// The system allocator, counting the heap bytes in use and their peak, so every stage can
/// report the most heap it held (the binary installs it; a library user need not).
pub struct CountingAlloc;

impl CountingAlloc {
    fn grew(by: usize) {
        let now = CURRENT.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to `System` unchanged; the counters are only arithmetic.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        COUNTING.store(true, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            Self::grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        COUNTING.store(true, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            Self::grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded; `ptr` came from this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded; `ptr` came from this allocator with `layout`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                Self::grew(new_size - layout.size());
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

/// Heap bytes in use and the peak since the last [`reset_peak`], when the counting allocator
/// is installed.
pub fn heap() -> Option<(usize, usize)> {
    COUNTING.load(Ordering::Relaxed).then(|| {
        (
            CURRENT.load(Ordering::Relaxed),
            PEAK.load(Ordering::Relaxed),
        )
    })
}

/// Starts a new peak from the bytes in use now.
pub fn reset_peak() {
    PEAK.store(CURRENT.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// The most resident memory the process has held so far (Linux's `VmHWM`, which is also what
/// `/usr/bin/time` reports at the end — never reset here, so that stays true), bytes; `None`
/// where the system does not say.
pub fn resident_peak() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

/// Peak bytes a map pixel costs with roads: 12 B/px plus [`FIXED_BYTES`] is what runs measure
/// at 8192, 16384 and 32768 (0.97, 3.39 and 12.76 GB, BENCHMARKS.md), rounded up to
/// keep a margin.
pub const BYTES_PER_PX_ROADS: u64 = 13;
/// Peak bytes a map pixel costs without roads (0.87 GB measured at 8192), rounded up:
/// a byte under [`BYTES_PER_PX_ROADS`], the road search being the peak stage when it runs.
pub const BYTES_PER_PX: u64 = 12;
/// What does not grow with the map: the program, the erosion and hydrology grids.
pub const FIXED_BYTES: u64 = 160 << 20;

/// The estimated peak memory of generating and exporting one world of `map_size` pixels a side.
pub fn estimate(map_size: u32, roads: bool) -> u64 {
    let px = u64::from(map_size) * u64::from(map_size);
    let per = if roads {
        BYTES_PER_PX_ROADS
    } else {
        BYTES_PER_PX
    };
    px * per + FIXED_BYTES
}

/// Memory available to a new process, bytes: `MemAvailable` of /proc/meminfo (Linux); `None`
/// where there is no /proc.
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

/// `MemAvailable` of a /proc/meminfo text, bytes.
fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Why a generation would not fit.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error(
    "MapSize {map_size} needs about {need:.1} GiB of memory ({per} bytes a pixel{roads}, from runs measured at up to 32768), and this machine has {have:.1} GiB available: the run would likely be killed part-way"
)]
pub struct TooLarge {
    /// The MapSize asked for.
    pub map_size: u32,
    /// The estimate, GiB.
    pub need: f64,
    /// Available, GiB.
    pub have: f64,
    /// Bytes a pixel used.
    pub per: u64,
    /// ", with roads" or "".
    pub roads: &'static str,
}

/// Refuses a MapSize whose estimate exceeds the memory `available` (when known).
pub fn check(map_size: u32, roads: bool, available: Option<u64>) -> Result<(), TooLarge> {
    check_at_once(map_size, roads, 1, available)
}

/// [`check`] for `worlds` generated at once (a sweep's lanes).
pub fn check_at_once(
    map_size: u32,
    roads: bool,
    worlds: u64,
    available: Option<u64>,
) -> Result<(), TooLarge> {
    let need = estimate(map_size, roads).saturating_mul(worlds.max(1));
    match available {
        Some(have) if need > have => Err(TooLarge {
            map_size,
            need: need as f64 / f64::from(1u32 << 30),
            have: have as f64 / f64::from(1u32 << 30),
            per: if roads {
                BYTES_PER_PX_ROADS
            } else {
                BYTES_PER_PX
            },
            roads: if roads { ", with roads" } else { "" },
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_matches_the_measured_8192_peak_and_refuses_what_does_not_fit() {
        // Measured (BENCHMARKS.md, "8192 again: the one-thread stages share the cores"): with roads 0.966 GB at 8192, 3.39 GB at 16384 and
        // 12.76 GB at 32768, 0.87 GB without roads at 8192. The estimate is above each, by
        // under 25 %.
        let gb = |b: u64| b as f64 / 1e9;
        assert!((0.966..1.21).contains(&gb(estimate(8192, true))));
        assert!((3.39..4.24).contains(&gb(estimate(16384, true))));
        assert!((12.76..15.95).contains(&gb(estimate(32768, true))));
        assert!((0.87..1.09).contains(&gb(estimate(8192, false))));
        assert!(check(8192, true, Some(24 << 30)).is_ok());
        assert!(
            check(32768, true, Some(23 << 30)).is_ok(),
            "32768 fits 24 GiB"
        );
        let e = check(32768, true, Some(12 << 30)).unwrap_err();
        // In GiB: above the 12.76 GB measured.
        assert!(
            e.need > 12.76e9 / f64::from(1u32 << 30) && e.have == 12.0,
            "{e:?}"
        );
        assert!(e.to_string().contains("would likely be killed"), "{e}");
        assert!(check(32768, true, None).is_ok(), "unknown: no refusal");
        // A sweep's lanes each hold a world.
        assert!(check_at_once(4096, true, 2, Some(600 << 20)).is_err());
        assert!(check_at_once(4096, true, 1, Some(600 << 20)).is_ok());
    }

    #[test]
    fn meminfo_is_read_in_bytes() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(parse_meminfo(text), Some(20_000_000 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
    }
}
