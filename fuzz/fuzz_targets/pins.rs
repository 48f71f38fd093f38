//! Town pins: a GeoJSON FeatureCollection of Points or a JSON array.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    islagen::fuzzing::pins(data);
});
