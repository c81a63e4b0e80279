//! Parses the input as a mapping table (`--map table.toml`): it must succeed or refuse.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::read("f.toml", data));
