//! H-Anim parse throughput (in progress).
fn main() {}
