//! Reads the input as a `.fbx` file (ufbx): it must succeed or refuse, never crash.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::read("f.fbx", data));
