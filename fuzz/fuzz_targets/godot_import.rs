//! Resolves the input as a Godot `.import` in a project: links never read outside it.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::godot_import(data));
