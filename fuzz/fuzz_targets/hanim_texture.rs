//! Reads the input as X3D beside textures, a FIFO and a link out: never waits, never reads outside.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::hanim_texture(data));
