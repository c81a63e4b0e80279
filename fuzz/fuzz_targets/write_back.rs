//! Reads the input (first byte: which reader), writes what was read (second byte: which
//! format), and reads the written file back: the write succeeds or refuses, the file reads.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| humanoid_fuzz::write_back(data));
