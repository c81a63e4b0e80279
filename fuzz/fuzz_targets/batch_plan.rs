//! Plans a batch over files the input names (fuzz/src/lib.rs `batch_plan`): jobs stay inside, no output twice.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::batch_plan(data));
