//! Pose math: transforms, sampling, the canonical T-pose and bone frames.

pub mod bake;
pub mod contacts;
pub mod fk;
pub mod ground;
pub mod look_at;
pub mod normalize;
pub mod normalized;
pub mod retarget;
pub mod socket;
pub mod socket_transfer;
pub mod tpose;

// The transform and sampler primitives live in the leaf layer; these paths stay for callers.
pub use crate::math::{sample, trs};
pub use crate::math::{Cursor, Interpolation, KeyPosition, Keyframes, Trs, ValueKind};
