//! BVH motion capture (in progress).
