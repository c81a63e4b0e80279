//! The canonical humanoid model: plain data and the math that works on it. It knows no file
//! format.

pub mod asset;
pub mod bone;
pub mod character;
pub mod clip;
pub mod clip_choice;
pub mod face;
pub mod fold;
pub mod format;
pub mod humanoid;
pub mod mesh;
pub mod reference_pose;
pub mod skeleton;
pub mod socket;
pub mod validate;

pub use asset::{Asset, Facing, HumanoidSkeleton, ReadOutcome};
pub use bone::{HumanBone, Profile};
pub use character::{Carry, Character};
pub use clip::{Clip, Property, Track, TrackError, TrackTarget};
pub use format::Format;
pub use humanoid::{BoneMap, Meta, MissingBones};
pub use skeleton::{JointId, RawJoint, Skeleton, SkeletonError, MAX_JOINTS};
pub use socket::{Socket, SocketKind};
pub use validate::validate_bone_map;
