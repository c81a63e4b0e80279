//! Normalized bone rotations (three-vrm's and VRMA's per-bone value, ARCHITECTURE.md §3):
//! `n_b = P · L(t) · L_rest⁻¹ · P⁻¹`, with `P` the world rest rotation of the bone's parent
//! joint and `L` its local rotation. It is the rotation, in model axes, that takes the bone from
//! its rest to its animated orientation relative to its parent; the inverse is three-vrm's
//! `q_local = P⁻¹ · n · P · L_rest`.
//!
//! Both maps are a constant left and right multiplication, so they commute with slerp and act
//! linearly on cubic-spline tangents: converting every key (and tangent) converts the sampled
//! curve exactly.

use glam::{Quat, Vec3};

use crate::error::Diagnostics;
use crate::math::sample::Interpolation;
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::Skeleton;

/// `n = P · local · rest⁻¹ · P⁻¹`.
pub fn normalized_from_local(parent_world_rest: Quat, rest_local: Quat, local: Quat) -> Quat {
    parent_world_rest * local * rest_local.inverse() * parent_world_rest.inverse()
}

/// `local = P⁻¹ · n · P · rest` (three-vrm's `VRMHumanoidRig.update`).
pub fn local_from_normalized(parent_world_rest: Quat, rest_local: Quat, normalized: Quat) -> Quat {
    parent_world_rest.inverse() * normalized * parent_world_rest * rest_local
}

/// Turns the joint tracks of mapped joints into bone tracks: rotations become normalized
/// rotations, the hips translation becomes its offset from rest in model axes
/// (`P · (t − t_rest)`). Tracks of unmapped joints, scale tracks and translations of bones other
/// than the hips cannot be carried by bone tracks: they are dropped with a diagnostic each.
pub fn bone_tracks_from_joint_tracks(
    skeleton: &Skeleton,
    bones: &BoneMap,
    clip: &Clip,
    diagnostics: &mut Diagnostics,
) -> Clip {
    let mut out = Clip::new(clip.name.clone());
    for track in clip.tracks() {
        let TrackTarget::Joint(joint) = track.target() else {
            out.add_track(track.clone());
            continue;
        };
        let name = skeleton.name(joint);
        let Some(bone) = bones.bone_of(joint) else {
            diagnostics.warn(
                "TRACK_DROPPED",
                format!("clip {:?}", clip.name),
                format!(
                    "{:?} track on joint {name:?} dropped: the joint is not a humanoid bone",
                    track.property()
                ),
            );
            continue;
        };
        let parent = skeleton
            .parent(joint)
            .map(|p| skeleton.rest_world(p).rotation)
            .unwrap_or(Quat::IDENTITY);
        let rest = skeleton.rest_local(joint);
        let cubic = track.interpolation() == Interpolation::CubicSpline;
        let converted = match track.property() {
            Property::Rotation => map_keys(track, 4, cubic, |v, is_tangent| {
                let q = Quat::from_xyzw(v[0], v[1], v[2], v[3]);
                let n = if is_tangent {
                    // Linear part only: P · t · rest⁻¹ · P⁻¹.
                    parent * q * rest.rotation.inverse() * parent.inverse()
                } else {
                    normalized_from_local(parent, rest.rotation, q)
                };
                n.to_array().to_vec()
            }),
            Property::Translation if bone == crate::model::HumanBone::Hips => {
                map_keys(track, 3, cubic, |v, is_tangent| {
                    let t = Vec3::new(v[0], v[1], v[2]);
                    let offset = if is_tangent { t } else { t - rest.translation };
                    (parent * offset).to_array().to_vec()
                })
            }
            other => {
                diagnostics.warn(
                    "TRACK_DROPPED",
                    format!("clip {:?}", clip.name),
                    format!("{other:?} track on {bone} dropped: only rotations and the hips translation are humanoid bone tracks"),
                );
                continue;
            }
        };
        match Track::new(
            TrackTarget::Bone(bone),
            track.property(),
            track.interpolation(),
            track.times().to_vec(),
            converted,
        ) {
            Ok(t) => out.add_track(t),
            Err(err) => diagnostics.warn(
                "TRACK_DROPPED",
                format!("clip {:?}", clip.name),
                format!("{bone} track dropped: {err}"),
            ),
        }
    }
    out
}

/// Applies `f(value, is_tangent)` to each element of a track's values; cubic-spline tracks
/// store (in-tangent, value, out-tangent) per key.
fn map_keys(
    track: &Track,
    components: usize,
    cubic: bool,
    mut f: impl FnMut(&[f32], bool) -> Vec<f32>,
) -> Vec<f32> {
    let mut out = Vec::with_capacity(track.values().len());
    for (i, element) in track.values().chunks_exact(components).enumerate() {
        let is_tangent = cubic && i % 3 != 1;
        out.extend(f(element, is_tangent));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_and_normalized_are_inverse() {
        let p = Quat::from_rotation_z(0.7) * Quat::from_rotation_x(-0.3);
        let rest = Quat::from_rotation_y(1.1);
        let local = Quat::from_rotation_x(0.4) * rest;
        let n = normalized_from_local(p, rest, local);
        let back = local_from_normalized(p, rest, n);
        assert!(back.dot(local).abs() > 1.0 - 1e-6);
        // At rest the normalized rotation is the identity.
        assert!(
            normalized_from_local(p, rest, rest)
                .dot(Quat::IDENTITY)
                .abs()
                > 1.0 - 1e-6
        );
    }

    #[test]
    fn normalized_rotation_is_the_world_delta() {
        // Parent rotated 90° about Z at rest; the child bends 30° about its local X.
        let p = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let rest = Quat::IDENTITY;
        let local = Quat::from_rotation_x(0.5);
        // In model axes the child's local X is the parent's X turned by 90° about Z: +Y.
        let expected = Quat::from_rotation_y(0.5);
        let n = normalized_from_local(p, rest, local);
        assert!(n.dot(expected).abs() > 1.0 - 1e-6, "{n:?}");
    }
}
