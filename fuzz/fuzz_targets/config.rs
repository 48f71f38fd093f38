//! The config loader (ServerConfig.json).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    islagen::fuzzing::config(data);
});
