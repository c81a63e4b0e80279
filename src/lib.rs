//! # humanoid
//!
//! Moves humanoid characters and their animations between the standards that describe them:
//! glTF 2.0 with `EXT_skeleton_humanoid`, VRM, H-Anim, Godot resources and the bone names of
//! common rigs.
//!
//! ## Design
//!
//! One canonical model sits in the middle ([`model`]); format adapters ([`formats`]) read into it
//! and write out of it and never import each other. The math that works on poses (transforms,
//! sampling, the canonical T-pose and bone frames) lives in [`pose`]. Conventions (space, T-pose,
//! animation deltas) are written once in `docs/conventions.md`.
//!
//! ```
//! use humanoid::model::HumanBone;
//! assert_eq!(HumanBone::LeftHand.parent(), Some(HumanBone::LeftLowerArm));
//! assert_eq!("leftHand".parse::<HumanBone>().unwrap(), HumanBone::LeftHand);
//! ```
#![deny(missing_docs)]

pub mod error;
pub mod formats;
#[cfg(test)]
mod layers;
pub mod mannequin;
pub mod mapping;
pub mod math;
pub mod model;
pub mod ops;
pub mod pose;

pub use math::num;
#[cfg(feature = "preview")]
pub use ops::preview;
pub use ops::{bone_pose, convert, demo, inspect, output, retarget, sockets, vrma_out};

/// The paths of the asset type and the one read from before the layers were split:
/// [`model::asset`] holds the character, [`ops::read`] reads it.
pub mod asset {
    pub use crate::model::asset::*;
    pub use crate::ops::read::*;
}
pub use model::clip_choice;

pub use asset::{read, Asset, ReadOutcome};
pub use convert::{convert, ConvertOptions};
pub use error::{Diagnostic, Diagnostics, Error, Location, Severity};
