//! VRM 0.x → VRM 1.0 migration (work in progress).
