//! The StarMade reader on a blueprint folder image (files framed as in `islagen::fuzzing`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    islagen::fuzzing::starmade_folder(data);
});
