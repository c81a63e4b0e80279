//! Reads the input as a `.x3d` file: it must succeed or refuse, never crash.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::read("f.x3d", data));
