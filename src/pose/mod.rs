//! Pose math: transforms, sampling, the canonical T-pose and bone frames.

pub mod bake;
pub mod fk;
pub mod ground;
pub mod look_at;
pub mod normalize;
pub mod normalized;
pub mod retarget;
pub mod sample;
pub mod socket;
pub mod socket_transfer;
pub mod tpose;
pub mod trs;

pub use sample::{Cursor, Interpolation, KeyPosition, Keyframes, ValueKind};
pub use trs::Trs;
