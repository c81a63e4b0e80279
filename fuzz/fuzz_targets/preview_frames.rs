//! Plans a preview's frames from the input's numbers: refused or bounded, times inside the clip.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::preview_frames(data));
