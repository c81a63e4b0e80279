//! A reference pose a file declares apart from its rest and its bind pose (glTF
//! `KHR_character_reference_pose`): the pose its humanoid is measured in, named by a pose type
//! (`TPose`, `APose`, `IPose` or any other string).
//!
//! It is not a clip: clip lists, `--clip`, previews and VRMA outputs never see it. The T-pose
//! normaliser measures a humanoid in it instead of guessing from the rest
//! ([`ReferencePose::skeleton`] gives the skeleton standing in it).
//!
//! ```
//! use glam::{Quat, Vec3};
//! use humanoid::math::trs::Trs;
//! use humanoid::model::reference_pose::ReferencePose;
//! use humanoid::model::{RawJoint, Skeleton};
//!
//! let (skeleton, _) = Skeleton::from_raw(vec![
//!     RawJoint { name: "root".into(), parent: None, rest: Trs::IDENTITY },
//!     RawJoint { name: "arm".into(), parent: Some(0), rest: Trs::from_translation(Vec3::X) },
//! ])?;
//! // The arm turned a quarter about +Z in the reference pose.
//! let mut locals = skeleton.rest_locals().to_vec();
//! locals[1].rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
//! let pose = ReferencePose { pose_type: "APose".into(), locals };
//! let posed = pose.skeleton(&skeleton).expect("one local per joint");
//! assert_eq!(posed.rest_local(posed.joint(1)).rotation, Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
//! assert_eq!(posed.names(), skeleton.names());
//! # Ok::<(), humanoid::model::SkeletonError>(())
//! ```

use super::skeleton::{RawJoint, Skeleton};
use crate::math::trs::Trs;

/// The pose type a writer gives the canonical T-pose.
pub const T_POSE: &str = "TPose";

/// A declared reference pose: its type and each joint's local transform in it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferencePose {
    /// `poseType` as the file names it (`TPose` when it names none).
    pub pose_type: String,
    /// Each joint's local transform in the pose, by joint index (the rest where the pose
    /// does not set it).
    pub locals: Vec<Trs>,
}

impl ReferencePose {
    /// The skeleton standing in this pose: the same joints, names and parents, with the pose's
    /// locals as the rest. `None` when the pose does not have one local per joint.
    pub fn skeleton(&self, skeleton: &Skeleton) -> Option<Skeleton> {
        if self.locals.len() != skeleton.len() {
            return None;
        }
        let raw = skeleton
            .joints()
            .zip(&self.locals)
            .map(|(joint, local)| RawJoint {
                name: skeleton.name(joint).to_owned(),
                parent: skeleton.parent(joint).map(|p| p.index()),
                rest: *local,
            })
            .collect();
        // Parents come first in a skeleton, so the order (and every id) is kept.
        Skeleton::from_raw(raw).ok().map(|(posed, _)| posed)
    }
}
