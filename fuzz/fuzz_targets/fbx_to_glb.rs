//! Reads the input as an FBX with its meshes and writes it as a GLB, which must read back.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::fbx_to_glb(data));
