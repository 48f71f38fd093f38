//! Units: the one home of every conversion between the map's grid, raw heights and metres.
//!
//! The world is a square [`WORLD_SIZE_M`] metres on a side whatever its MapSize, so a pixel's
//! size follows from the MapSize ([`metres_per_px`]); heights are stored as *raw* units
//! ([`METRES_PER_RAW`] metres each) with the sea at about 0.15 raw; the height curve caps land at
//! [`HEIGHT_CAP_M`] metres above sea. Distances that the original stated in pixels of its
//! 1024-pixel reference map scale by [`scale_factor`]. Every stage, export and picture takes its
//! units from here.

/// Metres of world on a side of the map, at every MapSize.
pub const WORLD_SIZE_M: f32 = 8192.0;

/// Metres of world height per raw height unit.
pub const METRES_PER_RAW: f32 = 251.0;

/// The highest land reaches this many metres above sea (the curve's summit cap).
pub const HEIGHT_CAP_M: f32 = 420.0;

/// The MapSize the original's pixel distances were stated at.
pub const REFERENCE_MAP_SIZE: f32 = 1024.0;

/// Metres per pixel at `map_size` pixels a side.
pub fn metres_per_px(map_size: usize) -> f32 {
    WORLD_SIZE_M / map_size as f32
}

/// Square metres per pixel at `map_size` pixels a side.
pub fn px_area_m2(map_size: usize) -> f64 {
    let m = f64::from(WORLD_SIZE_M) / map_size as f64;
    m * m
}

/// How many pixels at `map_size` one pixel of the 1024 reference map spans.
pub fn scale_factor(map_size: usize) -> f32 {
    map_size as f32 / REFERENCE_MAP_SIZE
}

/// Raw height units to metres.
#[inline]
pub fn raw_to_m(raw: f32) -> f32 {
    raw * METRES_PER_RAW
}

/// Metres to raw height units.
#[inline]
pub fn m_to_raw(metres: f32) -> f32 {
    metres / METRES_PER_RAW
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pixel_is_one_metre_at_8192_and_the_reference_is_1024() {
        assert_eq!(metres_per_px(8192), 1.0);
        assert_eq!(metres_per_px(1024), 8.0);
        assert_eq!(px_area_m2(4096), 4.0);
        assert_eq!(scale_factor(8192), 8.0);
        assert_eq!(m_to_raw(raw_to_m(0.25)), 0.25);
    }
}
