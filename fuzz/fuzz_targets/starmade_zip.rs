//! The StarMade reader on a `.sment` archive (a zip), bombs and all.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    islagen::fuzzing::starmade_zip(data);
});
