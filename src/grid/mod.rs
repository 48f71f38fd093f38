//! Grid kernels shared by several stages and exports that are not stages themselves: noise
//! fields over the normalised map square ([`noise`]), power spectra ([`spectrum`]), scanline flood fills ([`flood`]) and a
//! packed bit set ([`bits`]). Nothing here knows about a world, a config or a file.

pub mod bits;
pub mod flood;
pub mod noise;
pub mod spectrum;
