//! The `.dat` reader (v2 and v1, dispatched on the first byte) on any bytes: a typed error or a
//! blueprint, never a panic, never an allocation the bytes cannot pay for.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    islagen::fuzzing::dat(data);
});
