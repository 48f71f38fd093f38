//! Grid kernels shared by several stages and exports that are not stages themselves: noise
//! fields over the normalised map square ([`noise`]), power spectra ([`spectrum`]), scanline
//! flood fills ([`flood`]), a packed bit set ([`bits`]), the 8-neighbourhood and a sortable key
//! for heights. Nothing here knows about a world, a config or a file.

pub mod bits;
pub mod flood;
pub mod noise;
pub mod spectrum;

/// The 8 neighbours of a cell, (dx, dy), in scan order.
pub const NEIGHBOURS: [(isize, isize); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// A total order on f32 heights as u32 (larger height, larger key): what the priority floods
/// sort and queue by.
#[inline]
pub fn height_key(h: f32) -> u32 {
    let b = h.to_bits();
    if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// The cells of `h` in ascending height, ties in ascending index: the order every flow kernel
/// walks (reversed, each cell comes before all the cells it can drain to). A least-significant
/// digit radix sort on [`height_key`], 8 bits a pass: stable, so the index order of equal heights
/// is kept, and O(n) — a comparison sort of the 1024² hydrology grid cost several times more
/// (BENCHMARKS.md, fluvial relief).
pub fn ascending(h: &[f32]) -> Vec<u32> {
    let n = h.len();
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut keys: Vec<u32> = h.iter().map(|&v| height_key(v)).collect();
    let mut next_order = vec![0u32; n];
    let mut next_keys = vec![0u32; n];
    for shift in [0u32, 8, 16, 24] {
        let mut count = [0usize; 257];
        for &k in &keys {
            count[((k >> shift) & 0xff) as usize + 1] += 1;
        }
        if count[1..].contains(&n) {
            continue; // every key shares this digit: the pass would not move anything
        }
        for d in 0..256 {
            count[d + 1] += count[d];
        }
        for (&k, &i) in keys.iter().zip(&order) {
            let d = ((k >> shift) & 0xff) as usize;
            next_keys[count[d]] = k;
            next_order[count[d]] = i;
            count[d] += 1;
        }
        std::mem::swap(&mut keys, &mut next_keys);
        std::mem::swap(&mut order, &mut next_order);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascending_is_the_comparison_sort_by_height_then_index() {
        let mut state = 12345u32;
        let h: Vec<f32> = (0..5000)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                // Few distinct values, negatives and zeros too, so ties and signs are exercised.
                ((state >> 20) as i32 - 2048) as f32 / 64.0
            })
            .chain([0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY])
            .collect();
        let mut expected: Vec<u32> = (0..h.len() as u32).collect();
        expected.sort_by_key(|&i| (height_key(h[i as usize]), i));
        assert_eq!(ascending(&h), expected);
    }
}
