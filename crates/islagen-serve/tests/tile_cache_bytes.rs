//! The tile cache counts at least what the allocator hands out for each entry: PNG buffers,
//! keys, the LRU's nodes and its table. A counting global allocator (this test binary's own)
//! measures the live bytes an insertion adds.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;

use islagen_serve::tiles::{Layer, TileCache, TileKey};
use islagen_serve::worlds::FileKey;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the counter only adds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        // SAFETY: the caller's layout, as given.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::SeqCst);
        // SAFETY: a block this allocator returned, with its layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::SeqCst);
        // SAFETY: as for alloc and dealloc.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn key(i: u32, path: &str) -> TileKey {
    TileKey {
        file: FileKey {
            path: PathBuf::from(path),
            modified_ns: 1,
            len: 2,
        },
        layer: if i.is_multiple_of(2) {
            Layer::Roads
        } else {
            Layer::Height
        },
        zxy: (8, i, i / 7),
    }
}

/// A PNG-sized buffer as the encoder leaves it (its length, a capacity of its own).
fn png(len: usize) -> Arc<Vec<u8>> {
    let mut v = Vec::with_capacity(len + len / 3);
    v.resize(len, 7);
    Arc::new(v)
}

/// One test, so no other test's allocations run beside the counting.
#[test]
fn entries_count_what_they_hold_and_the_bound_holds() {
    every_entry_counts_at_least_what_the_allocator_holds_for_it();
    the_bound_holds_in_counted_bytes_and_overlay_tiles_are_right_sized();
}

fn every_entry_counts_at_least_what_the_allocator_holds_for_it() {
    let start = LIVE.load(Ordering::SeqCst);
    let cache = TileCache::new(usize::MAX);
    let path = "/worlds/a/rather/long/path/to/MapData_Seed_123456.dat";
    let (mut least_fixed, mut checked) = (isize::MAX, 0);
    for i in 0..3000u32 {
        let live = LIVE.load(Ordering::SeqCst);
        let counted = cache.usage().1;
        // Small overlay tiles (2 KB) and larger bases, as served.
        let len = if i.is_multiple_of(2) {
            1_900 + i as usize % 300
        } else {
            40_000
        };
        let tile = png(len);
        let capacity = tile.capacity() as isize;
        cache.put(key(i, path), tile);
        let held = LIVE.load(Ordering::SeqCst) - live;
        let added = (cache.usage().1 - counted) as isize;
        // An insertion that grows the table (the first, and each doubling: it holds at least
        // 8 more slots, 136 B) is held by the total below; every other one entry by entry.
        let fixed = held - capacity;
        if i > 0 && 2 * fixed <= 3 * least_fixed {
            assert!(
                added >= held,
                "entry {i}: counted {added} B, the allocator holds {held} B"
            );
            checked += 1;
        }
        least_fixed = least_fixed.min(fixed);
    }
    assert!(checked > 2900, "{checked} entries checked one by one");
    let held = (LIVE.load(Ordering::SeqCst) - start) as f64;
    let counted = cache.usage().1 as f64;
    assert!(
        counted >= held,
        "all entries: counted {counted} B, live {held} B"
    );
    assert!(
        counted <= held * 1.10,
        "counting {counted} B for {held} B is no bound at all"
    );
}

fn the_bound_holds_in_counted_bytes_and_overlay_tiles_are_right_sized() {
    let cache = TileCache::new(1 << 20);
    for i in 0..2000u32 {
        cache.put(key(i, "/w.dat"), png(1_900));
        assert!(cache.usage().1 <= 1 << 20);
    }
    let (n, bytes) = cache.usage();
    assert!(
        n > 100 && bytes > (1 << 20) * 9 / 10,
        "{n} tiles, {bytes} B"
    );
    // The encoder's buffer is the PNG's length, not a tile's pixel count.
    let pixels = islagen_serve::tiles::Pixels {
        width: 256,
        height: 256,
        channels: 4,
        data: vec![0; 256 * 256 * 4],
    };
    let encoded = islagen_serve::tiles::encode(&pixels).unwrap();
    assert!(
        encoded.len() < 4096 && encoded.capacity() <= encoded.len() + 64,
        "{} / {}",
        encoded.len(),
        encoded.capacity()
    );
}
