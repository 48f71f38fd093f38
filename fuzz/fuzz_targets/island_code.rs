//! Island codes: the base64 + DEFLATE text form and the packed-int stream underneath it.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    islagen::fuzzing::island_code(data);
});
