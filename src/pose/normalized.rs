//! Normalized bone rotations (three-vrm's and VRMA's per-bone value, ARCHITECTURE.md §3):
//! `n_b = P · L(t) · L_rest⁻¹ · P⁻¹`, with `P` the world rest rotation of the bone's parent
//! joint and `L` its local rotation. It is the rotation, in model axes, that takes the bone from
//! its rest to its animated orientation relative to its parent; the inverse is three-vrm's
//! `q_local = P⁻¹ · n · P · L_rest`.
//!
//! Both maps are a constant left and right multiplication, so they commute with slerp and act
//! linearly on cubic-spline tangents: converting every key (and tangent) converts the sampled
//! curve exactly.

use std::borrow::Cow;

use glam::{Mat4, Quat, Vec3};

use crate::error::Diagnostics;
use crate::math::sample::Interpolation;
use crate::model::asset::Asset;
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::{JointId, Skeleton};

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

/// A bone track (normalized rotation, or the hips offset in model axes) as the local track of
/// `joint`: `local = P⁻¹ · n · P · L_rest`; `t_local = M_parent⁻¹ · (p_rest + offset)`. Both
/// maps are affine, so cubic-spline tangents take the linear part. `None` for a property a
/// bone track cannot hold (scale, weights).
pub fn joint_track_from_bone_track(
    skeleton: &Skeleton,
    joint: JointId,
    track: &Track,
) -> Option<Track> {
    let parent = skeleton.parent(joint).map(|p| skeleton.rest_world(p));
    let p_rot = parent.map_or(Quat::IDENTITY, |p| p.rotation);
    let rest = skeleton.rest_local(joint);
    let cubic = track.interpolation() == Interpolation::CubicSpline;
    let values: Vec<f32> = match track.property() {
        Property::Rotation => map_keys(track, 4, cubic, |q, is_tangent| {
            let n = Quat::from_xyzw(q[0], q[1], q[2], q[3]);
            let local = if is_tangent {
                p_rot.inverse() * n * p_rot * rest.rotation
            } else {
                local_from_normalized(p_rot, rest.rotation, n)
            };
            local.to_array().to_vec()
        }),
        Property::Translation => {
            let to_local = parent.map_or(Mat4::IDENTITY, |p| p.to_mat4()).inverse();
            let rest_world = skeleton.rest_world(joint).translation;
            map_keys(track, 3, cubic, |v, is_tangent| {
                let v = Vec3::new(v[0], v[1], v[2]);
                let local = if is_tangent {
                    to_local.transform_vector3(v)
                } else {
                    to_local.transform_point3(rest_world + v)
                };
                local.to_array().to_vec()
            })
        }
        _ => return None,
    };
    Track::new(
        TrackTarget::Joint(joint),
        track.property(),
        track.interpolation(),
        track.times().to_vec(),
        values,
    )
    .ok()
}

/// The clip as [`crate::pose::fk::Sampler`] plays it on `asset`: its bone tracks
/// (EXT_skeleton_humanoid channels, VRMA) become tracks of the joints the asset's humanoid maps
/// them to ([`joint_track_from_bone_track`]); its other tracks stay. Borrowed when the clip has
/// no bone tracks. A bone track of a bone the asset does not map, or of a joint the clip
/// already animates in that property, plays no part.
///
/// ```
/// use humanoid::model::HumanBone;
/// use humanoid::model::clip::{Clip, Property, TrackTarget};
/// use humanoid::pose::normalized::playable;
///
/// let dir = tempfile::tempdir()?;
/// humanoid::demo::write_demo(dir.path(), false)?;
/// let ext = humanoid::read_asset(&dir.path().join("mannequin_ext_clips.glb"))?.asset;
/// let walk = &ext.clips[0];
/// assert!(walk.tracks().iter().all(|t| matches!(t.target(), TrackTarget::Bone(_))));
/// let played = playable(&ext, walk);
/// let hips = ext.humanoids[0].bones.get(HumanBone::Hips).expect("mapped");
/// assert!(played.track(TrackTarget::Joint(hips), Property::Rotation).is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn playable<'c>(asset: &Asset, clip: &'c Clip) -> Cow<'c, Clip> {
    let Some(humanoid) = asset.humanoids.first().filter(|_| clip.has_bone_tracks()) else {
        return Cow::Borrowed(clip);
    };
    let mut out = Clip::new(clip.name.clone());
    for track in clip.tracks() {
        let TrackTarget::Bone(bone) = track.target() else {
            out.add_track(track.clone());
            continue;
        };
        let Some(joint) = humanoid.bones.get(bone) else {
            continue;
        };
        if clip
            .track(TrackTarget::Joint(joint), track.property())
            .is_some()
        {
            continue;
        }
        if let Some(converted) = joint_track_from_bone_track(&asset.skeleton, joint, track) {
            out.add_track(converted);
        }
    }
    Cow::Owned(out)
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
