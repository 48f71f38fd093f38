//! The coast profile: CoastProfile "wide" shelves the seabed leaving the shoreline; "steep"
//! leaves it raw.
//!
//! The shelf maps depth under sea `d` to `d² / (d + SHELF_SCALE)`: identity at sea level and
//! above (it is only applied under water), zero at zero depth, strictly positive for every
//! positive depth and never deeper than the raw seabed — so it can never move the waterline —
//! and monotone, so the seabed keeps its shape while the shallows reach about 2.3× further out.

/// Depth (raw) around which the shelf turns from compressed shallows to the raw slope.
pub const SHELF_SCALE: f32 = 0.03;

/// The shelved height of a pixel of raw height `h` where the sea level is `sea`.
#[inline]
pub fn shelve(h: f32, sea: f32) -> f32 {
    if h >= sea {
        return h;
    }
    let d = sea - h;
    let shelved = d * d / (d + SHELF_SCALE);
    // For depths of a few ulps, sea − shelved rounds back up to sea: hold such pixels at the
    // last value under sea (never deeper than raw), so the waterline stays strict.
    (sea - shelved).min(just_below(sea)).max(h)
}

/// The largest f32 strictly less than `x` (finite `x`).
fn just_below(x: f32) -> f32 {
    if x > 0.0 {
        f32::from_bits(x.to_bits() - 1)
    } else if x == 0.0 {
        -f32::from_bits(1)
    } else {
        f32::from_bits(x.to_bits() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shelf_keeps_the_waterline_and_the_order() {
        let sea = 0.15;
        let mut prev = f32::NEG_INFINITY;
        for i in 0..=20_000 {
            let h = -0.5 + i as f32 * 1e-4;
            let s = shelve(h, sea);
            assert_eq!(s < sea, h < sea, "waterline moved at {h}");
            assert!(s >= h, "deeper than raw at {h}");
            assert!(s >= prev, "not monotone at {h}");
            prev = s;
        }
        assert_eq!(shelve(0.4, sea), 0.4);
        // Shallows reach further: 2.5 m of shelved depth lies at ~2.3× the raw distance.
        let raw_depth = 0.023;
        assert!(sea - shelve(sea - raw_depth, sea) <= 0.0101);
    }
}
