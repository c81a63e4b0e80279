//! What a character does with its face: where it looks from ([`LookAt`]) and the named
//! expressions it can make ([`Expression`]). VRM defines both; H-Anim Sites and
//! `KHR_virtual_transform` map onto the look-at point.
//!
//! ```
//! use glam::Vec3;
//! use humanoid::model::face::{LookAt, LookAtKind, RangeMap};
//! let look = LookAt::default();
//! assert_eq!(look.kind, LookAtKind::Bone);
//! assert_eq!(look.offset, Vec3::new(0.0, 0.06, 0.0)); // three-vrm's default
//! assert_eq!(RangeMap { input_max: 90.0, output_scale: 10.0 }.map(45.0), 5.0);
//! ```

use glam::Vec3;

use crate::model::skeleton::JointId;

/// How the gaze is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LookAtKind {
    /// By turning the eye bones (VRM `"bone"`, 0.x `"Bone"`).
    #[default]
    Bone,
    /// By the weights of the look expressions (VRM `"expression"`, 0.x `"BlendShape"`).
    Expression,
}

/// One direction's mapping from gaze angle to output (VRM `rangeMap*`):
/// `out = min(|angle|, input_max) / input_max · output_scale`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RangeMap {
    /// The angle (degrees) at which the output saturates.
    pub input_max: f32,
    /// The output at saturation (degrees for bones, a weight for expressions).
    pub output_scale: f32,
}

impl RangeMap {
    /// The output for a gaze angle in degrees (`input_max` is guarded against 0).
    pub fn map(&self, angle: f32) -> f32 {
        let max = self.input_max.max(0.001);
        angle.abs().min(max) / max * self.output_scale
    }
}

/// Where the character looks from and how its gaze is applied (VRM `lookAt`).
#[derive(Debug, Clone, PartialEq)]
pub struct LookAt {
    /// The joint the point follows (the head), if known.
    pub joint: Option<JointId>,
    /// The point's offset from that joint, in the joint's frame (VRM `offsetFromHeadBone`).
    pub offset: Vec3,
    /// Bones or expressions.
    pub kind: LookAtKind,
    /// Horizontal inner, horizontal outer, vertical down, vertical up.
    pub ranges: [Option<RangeMap>; 4],
}

impl Default for LookAt {
    fn default() -> Self {
        LookAt {
            joint: None,
            offset: Vec3::new(0.0, 0.06, 0.0),
            kind: LookAtKind::Bone,
            ranges: [None; 4],
        }
    }
}

/// A named facial expression (a VRM preset such as `happy`, or a custom one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression {
    /// Its name (VRM 1.0 preset names for presets).
    pub name: String,
    /// Whether it is one of the format's presets.
    pub preset: bool,
    /// How many morph-target binds drive it.
    pub morph_binds: usize,
}
