//! The structures.json validating normaliser.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    islagen::fuzzing::structures(data);
});
