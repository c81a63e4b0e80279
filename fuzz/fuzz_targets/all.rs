//! Every target in one binary, chosen by `HUMANOID_FUZZ_TARGET` (`read_bvh`, `write_back`, …):
//! one file to carry to a machine with more cores.
#![no_main]
use std::sync::OnceLock;

fn target() -> &'static str {
    static TARGET: OnceLock<String> = OnceLock::new();
    TARGET.get_or_init(|| std::env::var("HUMANOID_FUZZ_TARGET").unwrap_or_else(|_| "read_glb".into()))
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::by_name(target(), data));
