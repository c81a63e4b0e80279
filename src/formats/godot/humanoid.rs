//! Godot's built-in `SkeletonProfileHumanoid` as data: 56 bones (the 55 canonical bones in
//! PascalCase plus `Root`), transcribed from `scene/resources/skeleton_profile.cpp`
//! (godotengine/godot @ 0dd74c50, the constructor `SkeletonProfileHumanoid()`), and the
//! canonical variant with the thumbs at 45°.
//!
//! Godot's order is [`HumanBone::ALL`] with `Root` in front, and its names are the canonical
//! names with a capital first letter ([`godot_name`], [`from_godot_name`]).
//!
//! ```
//! use humanoid::formats::godot::humanoid::{from_godot_name, godot_name};
//! use humanoid::model::HumanBone;
//! assert_eq!(godot_name(HumanBone::LeftThumbMetacarpal), "LeftThumbMetacarpal");
//! assert_eq!(from_godot_name("Hips"), Some(HumanBone::Hips));
//! assert_eq!(from_godot_name("Root"), None);
//! assert_eq!(from_godot_name("hips"), None);
//! ```

use std::f64::consts::FRAC_1_SQRT_2;

use glam::{DMat3, DVec2, DVec3};

use super::profile::{ProfileBone, ProfileGroup, SkeletonProfile, TailDirection, Transform3D};
use crate::model::HumanBone;

/// The profile's root bone, which has no canonical counterpart.
pub const ROOT: &str = "Root";

/// The profile's scale base bone.
pub const SCALE_BASE: &str = "Hips";

/// The four groups, one picture each in Godot's BoneMap editor.
pub const GROUPS: [&str; 4] = ["Body", "Face", "LeftHand", "RightHand"];

/// The number of bones in `SkeletonProfileHumanoid`.
pub const BONE_COUNT: usize = 56;

/// Godot's name for a canonical bone: the canonical name with a capital first letter.
pub fn godot_name(bone: HumanBone) -> String {
    let name = bone.as_str();
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The canonical bone a `SkeletonProfileHumanoid` bone name stands for (`Root` has none).
/// Exact spelling only: `hips` is not a Godot name.
pub fn from_godot_name(name: &str) -> Option<HumanBone> {
    let mut chars = name.chars();
    let first = chars.next()?;
    if !first.is_ascii_uppercase() {
        return None;
    }
    let camel: String = first.to_lowercase().chain(chars).collect();
    camel.parse().ok()
}

/// One row of the table: what `skeleton_profile.cpp` sets for a bone.
struct Row {
    name: &'static str,
    parent: &'static str,
    group: &'static str,
    required: bool,
    tail: TailDirection,
    tail_bone: &'static str,
    /// `reference_pose` basis, row by row (as `Transform3D(…)` is written).
    rows: [f64; 9],
    origin: [f64; 3],
    handle: [f64; 2],
}

#[allow(clippy::too_many_arguments)]
const fn row(
    name: &'static str,
    parent: &'static str,
    group: &'static str,
    required: bool,
    tail: TailDirection,
    tail_bone: &'static str,
    rows: [f64; 9],
    origin: [f64; 3],
    handle: [f64; 2],
) -> Row {
    Row {
        name,
        parent,
        group,
        required,
        tail,
        tail_bone,
        rows,
        origin,
        handle,
    }
}

/// The 56 bones in Godot's order.
const TABLE: [Row; BONE_COUNT] = [
    row(
        "Root",
        "",
        "Body",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0],
        [0.5, 0.91],
    ),
    row(
        "Hips",
        "Root",
        "Body",
        true,
        TailDirection::SpecificChild,
        "Spine",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.75, 0.0],
        [0.5, 0.5],
    ),
    row(
        "Spine",
        "Hips",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.1, 0.0],
        [0.5, 0.43],
    ),
    row(
        "Chest",
        "Spine",
        "Body",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.1, 0.0],
        [0.5, 0.36],
    ),
    row(
        "UpperChest",
        "Chest",
        "Body",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.1, 0.0],
        [0.5, 0.29],
    ),
    row(
        "Neck",
        "UpperChest",
        "Body",
        false,
        TailDirection::SpecificChild,
        "Head",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.1, 0.0],
        [0.5, 0.23],
    ),
    row(
        "Head",
        "Neck",
        "Body",
        true,
        TailDirection::End,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.1, 0.0],
        [0.5, 0.18],
    ),
    row(
        "LeftEye",
        "Head",
        "Face",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0],
        [0.05, 0.15, 0.0],
        [0.6, 0.46],
    ),
    row(
        "RightEye",
        "Head",
        "Face",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0],
        [-0.05, 0.15, 0.0],
        [0.37, 0.46],
    ),
    row(
        "Jaw",
        "Head",
        "Face",
        false,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0],
        [0.0, 0.05, 0.05],
        [0.46, 0.75],
    ),
    row(
        "LeftShoulder",
        "UpperChest",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0],
        [0.05, 0.1, 0.0],
        [0.55, 0.235],
    ),
    row(
        "LeftUpperArm",
        "LeftShoulder",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0],
        [0.0, 0.05, 0.0],
        [0.6, 0.24],
    ),
    row(
        "LeftLowerArm",
        "LeftUpperArm",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0],
        [0.0, 0.25, 0.0],
        [0.7, 0.24],
    ),
    row(
        "LeftHand",
        "LeftLowerArm",
        "Body",
        true,
        TailDirection::SpecificChild,
        "LeftMiddleProximal",
        [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0],
        [0.0, 0.25, 0.0],
        [0.82, 0.235],
    ),
    row(
        "LeftThumbMetacarpal",
        "LeftHand",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [0.0, -0.577, 0.816, 0.0, 0.816, 0.577, -1.0, 0.0, 0.0],
        [-0.025, 0.025, 0.0],
        [0.4, 0.8],
    ),
    row(
        "LeftThumbProximal",
        "LeftThumbMetacarpal",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.043, 0.0],
        [0.3, 0.69],
    ),
    row(
        "LeftThumbDistal",
        "LeftThumbProximal",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.043, 0.0],
        [0.23, 0.555],
    ),
    row(
        "LeftIndexProximal",
        "LeftHand",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [-0.025, 0.075, 0.0],
        [0.413, 0.52],
    ),
    row(
        "LeftIndexIntermediate",
        "LeftIndexProximal",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.05, 0.0],
        [0.403, 0.36],
    ),
    row(
        "LeftIndexDistal",
        "LeftIndexIntermediate",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.025, 0.0],
        [0.403, 0.255],
    ),
    row(
        "LeftMiddleProximal",
        "LeftHand",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.075, 0.0],
        [0.5, 0.51],
    ),
    row(
        "LeftMiddleIntermediate",
        "LeftMiddleProximal",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.075, 0.0],
        [0.5, 0.345],
    ),
    row(
        "LeftMiddleDistal",
        "LeftMiddleIntermediate",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.025, 0.0],
        [0.5, 0.22],
    ),
    row(
        "LeftRingProximal",
        "LeftHand",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.025, 0.075, 0.0],
        [0.586, 0.52],
    ),
    row(
        "LeftRingIntermediate",
        "LeftRingProximal",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.05, 0.0],
        [0.59, 0.36],
    ),
    row(
        "LeftRingDistal",
        "LeftRingIntermediate",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.025, 0.0],
        [0.591, 0.25],
    ),
    row(
        "LeftLittleProximal",
        "LeftHand",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.05, 0.05, 0.0],
        [0.663, 0.543],
    ),
    row(
        "LeftLittleIntermediate",
        "LeftLittleProximal",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.05, 0.0],
        [0.672, 0.415],
    ),
    row(
        "LeftLittleDistal",
        "LeftLittleIntermediate",
        "LeftHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.025, 0.0],
        [0.672, 0.32],
    ),
    row(
        "RightShoulder",
        "UpperChest",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [0.0, -1.0, 0.0, 0.0, 0.0, 1.0, -1.0, 0.0, 0.0],
        [-0.05, 0.1, 0.0],
        [0.45, 0.235],
    ),
    row(
        "RightUpperArm",
        "RightShoulder",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0],
        [0.0, 0.05, 0.0],
        [0.4, 0.24],
    ),
    row(
        "RightLowerArm",
        "RightUpperArm",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0],
        [0.0, 0.25, 0.0],
        [0.3, 0.24],
    ),
    row(
        "RightHand",
        "RightLowerArm",
        "Body",
        true,
        TailDirection::SpecificChild,
        "RightMiddleProximal",
        [0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0],
        [0.0, 0.25, 0.0],
        [0.18, 0.235],
    ),
    row(
        "RightThumbMetacarpal",
        "RightHand",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [0.0, 0.577, -0.816, 0.0, 0.816, 0.577, 1.0, 0.0, 0.0],
        [0.025, 0.025, 0.0],
        [0.6, 0.8],
    ),
    row(
        "RightThumbProximal",
        "RightThumbMetacarpal",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.043, 0.0],
        [0.7, 0.69],
    ),
    row(
        "RightThumbDistal",
        "RightThumbProximal",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.043, 0.0],
        [0.77, 0.555],
    ),
    row(
        "RightIndexProximal",
        "RightHand",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.025, 0.075, 0.0],
        [0.587, 0.52],
    ),
    row(
        "RightIndexIntermediate",
        "RightIndexProximal",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.05, 0.0],
        [0.597, 0.36],
    ),
    row(
        "RightIndexDistal",
        "RightIndexIntermediate",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.025, 0.0],
        [0.597, 0.255],
    ),
    row(
        "RightMiddleProximal",
        "RightHand",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.075, 0.0],
        [0.5, 0.51],
    ),
    row(
        "RightMiddleIntermediate",
        "RightMiddleProximal",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.075, 0.0],
        [0.5, 0.345],
    ),
    row(
        "RightMiddleDistal",
        "RightMiddleIntermediate",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.025, 0.0],
        [0.5, 0.22],
    ),
    row(
        "RightRingProximal",
        "RightHand",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [-0.025, 0.075, 0.0],
        [0.414, 0.52],
    ),
    row(
        "RightRingIntermediate",
        "RightRingProximal",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.05, 0.0],
        [0.41, 0.36],
    ),
    row(
        "RightRingDistal",
        "RightRingIntermediate",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.025, 0.0],
        [0.409, 0.25],
    ),
    row(
        "RightLittleProximal",
        "RightHand",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [-0.05, 0.05, 0.0],
        [0.337, 0.543],
    ),
    row(
        "RightLittleIntermediate",
        "RightLittleProximal",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.05, 0.0],
        [0.328, 0.415],
    ),
    row(
        "RightLittleDistal",
        "RightLittleIntermediate",
        "RightHand",
        false,
        TailDirection::AverageChildren,
        "",
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.025, 0.0],
        [0.328, 0.32],
    ),
    row(
        "LeftUpperLeg",
        "Hips",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0],
        [0.1, 0.0, 0.0],
        [0.549, 0.49],
    ),
    row(
        "LeftLowerLeg",
        "LeftUpperLeg",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0],
        [0.0, 0.375, 0.0],
        [0.548, 0.683],
    ),
    row(
        "LeftFoot",
        "LeftLowerLeg",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, -1.0, 0.0],
        [0.0, 0.375, 0.0],
        [0.545, 0.9],
    ),
    row(
        "LeftToes",
        "LeftFoot",
        "Body",
        false,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0],
        [0.0, 0.15, 0.0],
        [0.545, 0.95],
    ),
    row(
        "RightUpperLeg",
        "Hips",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0],
        [-0.1, 0.0, 0.0],
        [0.451, 0.49],
    ),
    row(
        "RightLowerLeg",
        "RightUpperLeg",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0],
        [0.0, 0.375, 0.0],
        [0.452, 0.683],
    ),
    row(
        "RightFoot",
        "RightLowerLeg",
        "Body",
        true,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, -1.0, 0.0],
        [0.0, 0.375, 0.0],
        [0.455, 0.9],
    ),
    row(
        "RightToes",
        "RightFoot",
        "Body",
        false,
        TailDirection::AverageChildren,
        "",
        [-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0],
        [0.0, 0.15, 0.0],
        [0.455, 0.95],
    ),
];

/// Godot's built-in `SkeletonProfileHumanoid`, with its reference poses as Godot has them
/// (thumbs about 35° from the hand's axis).
pub fn skeleton_profile_humanoid() -> SkeletonProfile {
    let bones = TABLE
        .iter()
        .map(|r| {
            let [a, b, c, d, e, f, g, h, i] = r.rows;
            ProfileBone {
                name: r.name.to_owned(),
                parent: (!r.parent.is_empty()).then(|| r.parent.to_owned()),
                tail_direction: r.tail,
                tail: (!r.tail_bone.is_empty()).then(|| r.tail_bone.to_owned()),
                reference_pose: Transform3D::from_rows(
                    [[a, b, c], [d, e, f], [g, h, i]],
                    DVec3::from_array(r.origin),
                ),
                handle_offset: DVec2::from_array(r.handle),
                group: r.group.to_owned(),
                required: r.required,
            }
        })
        .collect();
    SkeletonProfile {
        root_bone: Some(ROOT.to_owned()),
        scale_base_bone: Some(SCALE_BASE.to_owned()),
        groups: GROUPS
            .iter()
            .map(|g| ProfileGroup {
                name: (*g).to_owned(),
                texture: None,
            })
            .collect(),
        bones,
    }
}

/// The canonical humanoid as a profile: `SkeletonProfileHumanoid` with the one documented
/// change of the canonical T-pose (`docs/conventions.md`): each thumb metacarpal points 45°
/// between the hand's axis and +Z, `(±1, 0, 1)/√2`, its bend axis unchanged (`(0, ±1, 0)`).
/// The proximal and distal thumb joints follow, as their poses are local to the metacarpal.
pub fn canonical_profile() -> SkeletonProfile {
    let mut profile = skeleton_profile_humanoid();
    let worlds = profile.world_poses();
    for (name, hand, side) in [
        ("LeftThumbMetacarpal", "LeftHand", 1.0),
        ("RightThumbMetacarpal", "RightHand", -1.0),
    ] {
        let (Some(bone), Some(hand_world)) = (
            profile.index_of(name),
            profile.index_of(hand).and_then(|h| worlds.get(h)),
        ) else {
            continue;
        };
        let x = DVec3::new(0.0, side, 0.0);
        let y = DVec3::new(side * FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2);
        let world = DMat3::from_cols(x, y, x.cross(y));
        // `+ 0.0` turns the -0 of the products into 0, so the text says `0`.
        let local = DMat3::from_cols_array(
            &(hand_world.basis.transpose() * world)
                .to_cols_array()
                .map(|v| v + 0.0),
        );
        if let Some(b) = profile.bones.get_mut(bone) {
            b.reference_pose.basis = local;
        }
    }
    profile
}
