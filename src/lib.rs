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

pub mod asset;
pub mod bone_pose;
pub mod clip_choice;
pub mod convert;
pub mod demo;
pub mod error;
pub mod formats;
pub mod inspect;
pub mod mannequin;
pub mod mapping;
pub mod math;
pub mod model;
pub mod output;
pub mod pose;
#[cfg(feature = "preview")]
pub mod preview;
pub mod retarget;
pub mod sockets;
pub mod vrma_out;

pub use asset::{read, Asset, ReadOutcome};
pub use convert::{convert, ConvertOptions};
pub use error::{Diagnostic, Diagnostics, Error, Location, Severity};
pub use math::num;
