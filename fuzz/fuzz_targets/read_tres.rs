//! Reads the input as a `.tres` file: it must succeed or refuse, never crash.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::read("f.tres", data));
