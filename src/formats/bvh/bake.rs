//! The pose math of the writer: a canonical skeleton, whose rest may rotate and scale joints,
//! expressed as a BVH skeleton, whose rest has neither.
//!
//! ## Overview
//!
//! Canonical forward kinematics composes [`Trs`] values: a joint's world rotation is
//! `Q_j = Q_p · q_j` and its world position `p_j = p_p + Q_p · (S_p ⊙ t_j)`, with `q_j`, `t_j`
//! its local rotation and translation and `S_p` the parent's world scale (scales multiply per
//! axis, as [`Trs`]'s product does). BVH composes `G_j = G_p · L_j` and
//! `P_j = P_p + G_p · o_j` with a constant offset `o_j` and no rest rotation.
//!
//! Pick the BVH world rotation as the canonical one relative to the rest,
//! `G_j(t) = Q_j(t) · Q_j,rest⁻¹` (the identity at rest, as BVH's rest requires), and the
//! offset as the rest displacement in world axes, `o_j = Q_p,rest · (S_p,rest ⊙ t_j)`. Then
//! `G_p(t) · o_j = Q_p(t) · Q_p,rest⁻¹ · Q_p,rest · (S_p ⊙ t_j) = Q_p(t) · (S_p ⊙ t_j)`, so
//! `P_j(t) = p_j(t)` for every joint at every frame, and the BVH local rotation is
//!
//! ```text
//! L_j(t) = G_p(t)⁻¹ · G_j(t) = Q_p,rest · (q_j(t) · q_j,rest⁻¹) · Q_p,rest⁻¹
//! ```
//!
//! the joint's animated delta from its rest (`q_j(t) · q_j,rest⁻¹`) turned into the parent's
//! rest world axes. A joint written with position channels gets `Q_p,rest · (S_p,rest ⊙ t_j(t))`,
//! which keeps its position when its translation animates. Exact, given static scales (an
//! animated scale is reported and left at rest by the writer).

use glam::{DQuat, DVec3, Quat, Vec3};

use crate::math::trs::Trs;
use crate::model::skeleton::Skeleton;

/// What the writer needs of one joint's rest to turn its animated local transform into BVH.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RestFrame {
    /// `Q_p,rest`: the parent's rest world rotation (identity for a root).
    parent_rotation: DQuat,
    /// `S_p,rest`: the parent's rest world scale (one for a root).
    parent_scale: DVec3,
    /// `q_j,rest⁻¹`.
    rest_rotation_inverse: DQuat,
    /// `o_j = Q_p,rest · (S_p,rest ⊙ t_j,rest)`, in metres.
    offset: DVec3,
    /// `p_p,rest`: the parent's rest world position (zero for a root), in metres: the origin
    /// of a joint written as the BVH root under nodes that are not written.
    parent_position: DVec3,
}

impl RestFrame {
    /// The BVH OFFSET, in metres.
    pub fn offset(&self) -> DVec3 {
        self.offset
    }

    /// `L_j = Q_p,rest · (q · q_j,rest⁻¹) · Q_p,rest⁻¹` for the animated local rotation `q`.
    pub fn local_rotation(&self, animated: Quat) -> DQuat {
        let q = to_dquat(animated);
        (self.parent_rotation * q * self.rest_rotation_inverse * self.parent_rotation.inverse())
            .normalize()
    }

    /// `Q_p,rest · (S_p(t) ⊙ t)` for the animated local translation `t` under the parent's
    /// animated world scale `S_p(t)`, in metres.
    pub fn local_position_under(&self, animated: Vec3, parent_scale: DVec3) -> DVec3 {
        self.parent_rotation * (parent_scale * animated.as_dvec3())
    }

    /// `Q_p,rest`: the parent's rest world rotation.
    pub fn parent_rotation(&self) -> DQuat {
        self.parent_rotation
    }

    /// `S_p,rest`: the parent's rest world scale.
    pub fn parent_scale(&self) -> DVec3 {
        self.parent_scale
    }

    /// `p_p,rest`: the parent's rest world position, in metres.
    pub fn parent_position(&self) -> DVec3 {
        self.parent_position
    }
}

/// The rest frames of every joint, by joint index, for the rest transforms `rest` (the
/// skeleton's own, or with static translation and scale tracks put in; one per joint).
pub(crate) fn rest_frames(skeleton: &Skeleton, rest: &[Trs]) -> Vec<RestFrame> {
    let mut frames: Vec<RestFrame> = Vec::with_capacity(skeleton.len());
    // World rotation, scale and position of each joint at rest.
    let mut world: Vec<(DQuat, DVec3, DVec3)> = Vec::with_capacity(skeleton.len());
    for (index, local) in rest.iter().enumerate().take(skeleton.len()) {
        let parent = skeleton
            .parents()
            .get(index)
            .copied()
            .flatten()
            .and_then(|p| world.get(p.index()))
            .copied()
            .unwrap_or((DQuat::IDENTITY, DVec3::ONE, DVec3::ZERO));
        let (parent_rotation, parent_scale, parent_position) = parent;
        let rotation = to_dquat(local.rotation);
        let offset = parent_rotation * (parent_scale * local.translation.as_dvec3());
        frames.push(RestFrame {
            parent_rotation,
            parent_scale,
            rest_rotation_inverse: rotation.inverse(),
            offset,
            parent_position,
        });
        world.push((
            (parent_rotation * rotation).normalize(),
            parent_scale * local.scale.as_dvec3(),
            parent_position + offset,
        ));
    }
    frames
}

/// A unit f64 quaternion from an f32 one (identity for a zero or non-finite input).
pub(crate) fn to_dquat(q: Quat) -> DQuat {
    let d = q.as_dquat();
    let length = d.length();
    if length.is_finite() && length > 0.0 {
        d / length
    } else {
        DQuat::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::skeleton::RawJoint;
    use std::f32::consts::FRAC_PI_2;

    #[test]
    fn offsets_are_rest_displacements_in_world_axes() {
        // Root turned 90° about Y, child 1 along its local X: at rest the child is at −Z of the
        // root (Ry(90°) takes +X to −Z), so the BVH offset is (0, 0, −1).
        let raw = vec![
            RawJoint {
                name: "root".into(),
                parent: None,
                rest: Trs::new(Vec3::Y, Quat::from_rotation_y(FRAC_PI_2), Vec3::splat(2.0)),
            },
            RawJoint {
                name: "child".into(),
                parent: Some(0),
                rest: Trs::from_translation(Vec3::X),
            },
        ];
        let (skeleton, _) = Skeleton::from_raw(raw).unwrap();
        let frames = rest_frames(&skeleton, skeleton.rest_locals());
        assert!(frames[0].offset().abs_diff_eq(DVec3::Y, 1e-12));
        // Scale 2 on the root doubles it.
        assert!(frames[1]
            .offset()
            .abs_diff_eq(DVec3::new(0.0, 0.0, -2.0), 1e-6));
        // At rest every BVH local rotation is the identity.
        let rest_rotation = skeleton.rest_locals()[1].rotation;
        assert!(frames[1]
            .local_rotation(rest_rotation)
            .abs_diff_eq(DQuat::IDENTITY, 1e-7));
        let root_rest = skeleton.rest_locals()[0].rotation;
        assert!(frames[0]
            .local_rotation(root_rest)
            .abs_diff_eq(DQuat::IDENTITY, 1e-7));
    }
}
