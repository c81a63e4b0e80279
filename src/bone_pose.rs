//! `humanoid pose`: the world position and rotation of every humanoid bone, in the file's own
//! space (the scene root at identity), shaped like the three-vrm oracle's output so the two can
//! be compared number for number:
//!
//! ```text
//! { "file": str, "format": str, "space": str,
//!   "rest": { "hips": {"p": [x, y, z], "q": [x, y, z, w]}, ... } }   // mapped bones, parents first
//! ```
//!
//! With `rotate_vrm0`, a VRM 0.x model (which faces −Z) is turned to face +Z as three-vrm's
//! `VRMUtils.rotateVRM0` does: every world transform pre-multiplied by `R_y(180°)`
//! (`p' = R·p`, `q' = R·q`). Other formats are left as they are.
//!
//! ```no_run
//! use humanoid::bone_pose::{rest_pose, PoseOptions};
//! # fn main() -> Result<(), humanoid::Error> {
//! let pose = rest_pose("avatar.vrm".as_ref(), &PoseOptions::default())?;
//! let hips = &pose.rest["hips"];
//! println!("hips at {:?}", hips.p);
//! # Ok(()) }
//! ```

use std::path::Path;

use glam::{Quat, Vec3};
use indexmap::IndexMap;
use serde::Serialize;

use crate::asset::{read, Asset, Facing};
use crate::error::Error;
use crate::mapping::RigMapping;
use crate::model::HumanBone;

/// How to report the pose.
#[derive(Debug, Clone, Default)]
pub struct PoseOptions {
    /// Turn a VRM 0.x model to face +Z (three-vrm's `rotateVRM0`).
    pub rotate_vrm0: bool,
    /// Map a rig that declares no humanoid.
    pub mapping: Option<RigMapping>,
}

/// One bone's world transform.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BoneTransform {
    /// World position, metres.
    pub p: [f32; 3],
    /// World rotation `[x, y, z, w]`.
    pub q: [f32; 4],
}

/// The rest pose of a file's first humanoid skeleton.
#[derive(Debug, Clone, Serialize)]
pub struct PoseReport {
    /// The file.
    pub file: String,
    /// Its format (`--to` name).
    pub format: String,
    /// The space the numbers are in.
    pub space: &'static str,
    /// Mapped bones, parents first.
    pub rest: IndexMap<&'static str, BoneTransform>,
}

/// Reads `path` and reports the rest pose of its first humanoid skeleton.
///
/// # Errors
/// The file cannot be read, or declares no humanoid skeleton.
pub fn rest_pose(path: &Path, options: &PoseOptions) -> Result<PoseReport, Error> {
    let mut asset = read(path)?.asset;
    if let Some(mapping) = &options.mapping {
        mapping.attach(&mut asset, path)?;
    }
    let rotate = options.rotate_vrm0 && asset.facing == Facing::MinusZ;
    let bones = rest_transforms(&asset, rotate).ok_or_else(|| {
        Error::unsupported(format!(
            "{}: the file declares no humanoid skeleton (no EXT_skeleton_humanoid or VRM bone map); map its rig with --map auto or --map TABLE",
            path.display()
        ))
    })?;
    Ok(PoseReport {
        file: path.display().to_string(),
        format: asset.format.name().to_owned(),
        space: if rotate {
            "file space turned 180° about +Y (VRM 0.x made to face +Z)"
        } else {
            "file space (scene root at identity)"
        },
        rest: bones
            .into_iter()
            .map(|(bone, p, q)| {
                (
                    bone.as_str(),
                    BoneTransform {
                        p: p.to_array(),
                        q: q.to_array(),
                    },
                )
            })
            .collect(),
    })
}

/// The world rest transform of each mapped bone of the first humanoid skeleton, parents
/// first; `rotate` pre-multiplies them by `R_y(180°)`. `None` when there is no humanoid.
pub fn rest_transforms(asset: &Asset, rotate: bool) -> Option<Vec<(HumanBone, Vec3, Quat)>> {
    let humanoid = asset.humanoids.first()?;
    let turn = if rotate {
        Quat::from_xyzw(0.0, 1.0, 0.0, 0.0)
    } else {
        Quat::IDENTITY
    };
    Some(
        humanoid
            .bones
            .iter()
            .filter(|(_, joint)| asset.skeleton.contains(*joint))
            .map(|(bone, joint)| {
                let world = asset.skeleton.rest_world(joint);
                (bone, turn * world.translation, turn * world.rotation)
            })
            .collect(),
    )
}
