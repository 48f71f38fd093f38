//! A fixed-size bit set over map cells: one bit a cell, so a whole 8192² map's "seen" marks fit
//! in 8 MiB — inside the L3 cache, where a byte a cell would not (BENCHMARKS.md, basins).

/// A fixed-size bit set.
pub struct Bits(Vec<u64>);

impl Bits {
    /// `len` bits, all clear.
    pub fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    /// The bit set whose 64-bit words (bit `i` at word `i / 64`, bit `i % 64`) are `words`.
    pub fn from_words(words: Vec<u64>) -> Bits {
        Bits(words)
    }

    /// Bit `i`.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.0[i >> 6] & (1 << (i & 63)) != 0
    }

    /// Sets bit `i`.
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }
}
