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
