//! Masks and heightmaps: 8/16-bit grayscale PNG and one-band TIFF.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    islagen::fuzzing::raster(data);
});
