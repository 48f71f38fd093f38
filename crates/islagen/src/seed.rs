//! Seeds: resolving the configured seed, and deriving one seed per stage from it.
//!
//! A configured seed of 0 means "randomize": it is resolved once, from the clock and the process
//! id, to a positive i32 that is then used for file names and PRMS alike. Stage seeds are derived
//! from the resolved seed and the stage's name (FNV-1a over the little-endian seed bytes and the
//! name, finished with SplitMix64) by [`stage_seed`], so adding a stage never shifts another
//! stage's randomness. Every stage draws its randomness through it: noise fields take
//! [`noise_seed`] (plus the field's documented offset, which the TCRV/TDTL records state), PCG32
//! streams and per-item hashes take [`stage_seed`] itself. Stage names in use: "topography",
//! "crater", "curve", "detail", "texture", "erosion", "rills", "biomes", "towns", "island-code".

/// Resolves a configured seed: non-zero seeds are kept, 0 becomes a fresh positive seed.
pub fn resolve(configured: i32) -> i32 {
    if configured != 0 {
        return configured;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mixed = splitmix64(nanos ^ (u64::from(std::process::id()) << 32));
    // 1 ..= i32::MAX: never 0 (which would mean "randomize" again) and never negative.
    (mixed % (i32::MAX as u64)) as i32 + 1
}

/// The seed of one stage, derived from the resolved seed and the stage's name.
pub fn stage_seed(resolved: i32, stage: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in resolved.to_le_bytes().iter().chain(stage.as_bytes()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    splitmix64(h)
}

/// The noise seed of one stage (fastnoise-lite takes an i32): the high half of [`stage_seed`].
pub fn noise_seed(resolved: i32, stage: &str) -> i32 {
    (stage_seed(resolved, stage) >> 32) as u32 as i32
}

/// A per-item hash within one stage: item `i` of `stage`, well mixed.
pub fn item_hash(resolved: i32, stage: &str, i: u64) -> u64 {
    splitmix64(stage_seed(resolved, stage) ^ i)
}

/// A uniform draw in [0, 1) for item `i` of `stage` (24 bits of [`item_hash`]).
pub fn item_unit(resolved: i32, stage: &str, i: u64) -> f32 {
    (item_hash(resolved, stage, i) >> 40) as f32 / (1u64 << 24) as f32
}

/// A uniform draw in [0, 1) for `stage`, from its stage seed (53 bits).
pub fn unit_draw(resolved: i32, stage: &str) -> f64 {
    (stage_seed(resolved, stage) >> 11) as f64 / (1u64 << 53) as f64
}

/// The PCG32 seed of erosion's droplet-start stream: the "erosion" stage seed, varied by the
/// configured ErosionSeedOffset (each offset gives an independent stream).
pub fn erosion_stream(resolved: i32, offset: i32) -> u64 {
    item_hash(resolved, "erosion", u64::from(offset as u32))
}

/// SplitMix64's finaliser: a well-mixed 64-bit hash of `z` (also used for per-item draws).
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzero_seeds_are_kept_and_zero_is_resolved_positive() {
        assert_eq!(resolve(42), 42);
        assert_eq!(resolve(-7), -7);
        for _ in 0..100 {
            assert!(resolve(0) > 0);
        }
    }

    #[test]
    fn stage_seeds_depend_on_seed_and_name() {
        assert_eq!(stage_seed(1, "topography"), stage_seed(1, "topography"));
        assert_ne!(stage_seed(1, "topography"), stage_seed(2, "topography"));
        assert_ne!(stage_seed(1, "topography"), stage_seed(1, "towns"));
    }
}
