//! Pose math: transforms, sampling, the canonical T-pose and bone frames.

pub mod sample;
pub mod tpose;
pub mod trs;
