//! VRM 1.0 -> 0.x (work in progress).
