//! Sockets carried from one humanoid to another by bone: a socket on the source's right hand
//! goes on the target's right hand, its offset scaled by the ratio of the two hands' lengths.
//!
//! For each socket:
//!
//! 1. **Bone.** The humanoid bone `b` of its parent joint, or of the nearest ancestor that is
//!    one (a socket on a non-bone joint below the hand rides on the hand: its local transform is
//!    first re-expressed in the hand's frame at rest). No such bone, or a target without `b`:
//!    the socket is dropped and reported (`SOCKET_NOT_CARRIED`).
//! 2. **Offset at rest, world-aligned.** With the source bone's rest world rotation `A` and
//!    scale `S` (polar decomposition), the offset is the world vector `d = A·(S⊙t)` and the
//!    socket's world rotation `q = A·r`. Both rests are the canonical T-pose (what
//!    EXT_skeleton_humanoid and VRM declare), so world directions mean the same on both; a
//!    source that faces the other way (VRM 0.x, −Z) is turned 180° about +Y first.
//! 3. **Scale.** `k = length(target b) / length(source b)`, a bone's length being the distance
//!    from its joint to the joint of its first child bone mapped on both rigs (a hand: the
//!    middle finger's proximal joint first), else to its first child joint; when either is
//!    missing or zero, `k` is the ratio of the hips' heights above the lowest joint
//!    (`SOCKET_SCALE_FROM_HIPS`), else 1.
//! 4. **Target.** With the target bone's rest world rotation `A'` and scale `S'`:
//!    `t' = A'⁻¹·(k·d) / S'`, `r' = A'⁻¹·q`; the socket's own scale, flags, name and tags are
//!    kept.
//!
//! At rest the carried socket's world position is the target bone's plus `k·d`: the test in
//! `tests/it/sockets.rs` checks it by hand from two rigs' joint positions.

use glam::{Mat4, Quat};

use crate::error::Diagnostics;
use crate::model::humanoid::BoneMap;
use crate::model::socket::Socket;
use crate::model::{HumanBone, JointId, Skeleton};
use crate::pose::socket::decompose;

/// One side of a transfer: a skeleton, its bone map, and which way it faces.
#[derive(Debug, Clone, Copy)]
pub struct Rig<'a> {
    /// The joints.
    pub skeleton: &'a Skeleton,
    /// Which joints are the humanoid bones.
    pub bones: &'a BoneMap,
    /// Whether the character faces −Z (VRM 0.x) rather than +Z.
    pub faces_minus_z: bool,
}

/// Carries `sockets` (parented to joints of `from`) onto `to`, by bone (see the
/// [module docs](self)); the sockets that cannot be carried are reported and left out.
pub fn transfer(
    sockets: &[Socket],
    from: Rig<'_>,
    to: Rig<'_>,
    diagnostics: &mut Diagnostics,
) -> Vec<Socket> {
    let mut out = Vec::new();
    let hips_ratio = hips_ratio(from, to);
    for socket in sockets {
        let dropped = |why: String, diagnostics: &mut Diagnostics| {
            diagnostics.warn(
                "SOCKET_NOT_CARRIED",
                "",
                format!("socket {:?} was not carried: {why}", socket.name),
            );
        };
        let Some(parent) = socket.parent.filter(|&p| from.skeleton.contains(p)) else {
            dropped(
                "it is on the scene root, not on a bone".to_owned(),
                diagnostics,
            );
            continue;
        };
        let Some((bone, joint)) = std::iter::once(parent)
            .chain(from.skeleton.ancestors(parent))
            .find_map(|j| from.bones.bone_of(j).map(|b| (b, j)))
        else {
            dropped(
                format!(
                    "its joint {:?} is not a humanoid bone nor below one",
                    from.skeleton.name(parent)
                ),
                diagnostics,
            );
            continue;
        };
        let Some(target_joint) = to.bones.get(bone) else {
            dropped(format!("the target has no {bone}"), diagnostics);
            continue;
        };
        // The socket's local transform in the bone's frame.
        let local = if parent == joint {
            (socket.translation, socket.rotation, socket.scale)
        } else {
            if !socket.respects_all() {
                diagnostics.info(
                    "SOCKET_CARRIED_FLAGS",
                    "",
                    format!(
                        "socket {:?} is on {:?}, below {bone}; it was re-expressed on {bone} at rest, which is exact only for a socket that follows its joint fully",
                        socket.name,
                        from.skeleton.name(parent)
                    ),
                );
            }
            let m = rest(from.skeleton, joint).inverse()
                * rest(from.skeleton, parent)
                * socket.local().to_mat4();
            let d = decompose(m);
            (d.translation, d.rotation, socket.scale)
        };
        let source = decompose(rest(from.skeleton, joint));
        let mut offset = source.rotation * (source.scale * local.0);
        let mut rotation = source.rotation * local.1;
        if from.faces_minus_z != to.faces_minus_z {
            let turn = Quat::from_rotation_y(std::f32::consts::PI);
            offset = turn * offset;
            rotation = turn * rotation;
        }
        let k = match (length(from, to, bone), length(to, from, bone)) {
            (Some(a), Some(b)) if a > 1e-6 && b > 1e-6 => b / a,
            _ => {
                diagnostics.info(
                    "SOCKET_SCALE_FROM_HIPS",
                    "",
                    format!(
                        "socket {:?}: {bone} has no length on both rigs, so its offset was scaled by the hips heights' ratio {hips_ratio}",
                        socket.name
                    ),
                );
                hips_ratio
            }
        };
        let target = decompose(rest(to.skeleton, target_joint));
        let inverse = target.rotation.inverse();
        let mut carried = socket.clone();
        carried.parent = Some(target_joint);
        carried.translation = (inverse * (k * offset)) / target.scale;
        carried.rotation = (inverse * rotation).normalize();
        carried.scale = local.2;
        out.push(carried);
    }
    out
}

fn rest(skeleton: &Skeleton, joint: JointId) -> Mat4 {
    skeleton.rest_world(joint).to_mat4()
}

/// The length of `bone` on `rig`: to the joint of its first child bone that `other` maps too
/// (a hand's middle proximal first), else to its first child joint at a distance.
fn length(rig: Rig<'_>, other: Rig<'_>, bone: HumanBone) -> Option<f32> {
    let joint = rig.bones.get(bone)?;
    let at = |j: JointId| rig.skeleton.rest_world(j).translation;
    let origin = at(joint);
    let preferred = match bone {
        HumanBone::LeftHand => Some(HumanBone::LeftMiddleProximal),
        HumanBone::RightHand => Some(HumanBone::RightMiddleProximal),
        _ => None,
    };
    let child_bone = preferred
        .into_iter()
        .chain(bone.children())
        .find(|&c| rig.bones.get(c).is_some() && other.bones.get(c).is_some())
        .and_then(|c| rig.bones.get(c));
    if let Some(child) = child_bone {
        return Some(at(child).distance(origin));
    }
    rig.skeleton
        .children(joint)
        .map(|c| at(c).distance(origin))
        .find(|d| *d > 1e-6)
}

/// The ratio of the hips' heights above each rig's lowest joint (1 when either is zero).
fn hips_ratio(from: Rig<'_>, to: Rig<'_>) -> f32 {
    let height = |rig: Rig<'_>| {
        let hips = rig.bones.get(HumanBone::Hips)?;
        let lowest = rig
            .skeleton
            .joints()
            .map(|j| rig.skeleton.rest_world(j).translation.y)
            .fold(f32::INFINITY, f32::min);
        Some(rig.skeleton.rest_world(hips).translation.y - lowest)
    };
    match (height(from), height(to)) {
        (Some(a), Some(b)) if a > 1e-6 && b > 1e-6 => b / a,
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::trs::Trs;
    use crate::model::skeleton::RawJoint;
    use glam::Vec3;

    /// hips (at `hips_y`) → hand (0.5 to the right, turned by `hand_turn`) → middle proximal
    /// (`hand_length` further right) and a prop (0.1 in front of the hand, in its frame); a
    /// foot on the ground under the hips.
    fn rig(hips_y: f32, hand_length: f32, hand_turn: Quat) -> (Skeleton, BoneMap) {
        let raw = vec![
            RawJoint {
                name: "hips".into(),
                parent: None,
                rest: Trs::from_translation(Vec3::new(0.0, hips_y, 0.0)),
            },
            RawJoint {
                name: "hand".into(),
                parent: Some(0),
                rest: Trs::new(Vec3::new(-0.5, 0.0, 0.0), hand_turn, Vec3::ONE),
            },
            RawJoint {
                name: "middle".into(),
                parent: Some(1),
                rest: Trs::from_translation(
                    hand_turn.inverse() * Vec3::new(-hand_length, 0.0, 0.0),
                ),
            },
            RawJoint {
                name: "prop".into(),
                parent: Some(1),
                rest: Trs::from_translation(Vec3::new(0.0, 0.0, 0.1)),
            },
            RawJoint {
                name: "foot".into(),
                parent: Some(0),
                rest: Trs::from_translation(Vec3::new(0.0, -hips_y, 0.0)),
            },
        ];
        let (skeleton, ids) = Skeleton::from_raw(raw).unwrap();
        let mut bones = BoneMap::new();
        bones.set(HumanBone::Hips, Some(ids[0]));
        bones.set(HumanBone::RightHand, Some(ids[1]));
        bones.set(HumanBone::RightMiddleProximal, Some(ids[2]));
        (skeleton, bones)
    }

    fn rig_of<'a>(s: &'a (Skeleton, BoneMap)) -> Rig<'a> {
        Rig {
            skeleton: &s.0,
            bones: &s.1,
            faces_minus_z: false,
        }
    }

    #[test]
    fn hand_socket_scaled_by_hand_length_in_world_directions() {
        // Source hand 0.1 long, target 0.15 and turned 90° about X at rest.
        let from = rig(1.0, 0.1, Quat::IDENTITY);
        let turn = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        let to = rig(0.8, 0.15, turn);
        let hand = from.1.get(HumanBone::RightHand);
        let mut socket = Socket::new("grip", hand);
        socket.translation = Vec3::new(-0.02, 0.0, 0.04);
        let mut d = Diagnostics::new();
        let out = transfer(&[socket], rig_of(&from), rig_of(&to), &mut d);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].parent, to.1.get(HumanBone::RightHand));
        // World offset (−0.02, 0, 0.04) × 1.5 = (−0.03, 0, 0.06); in the turned hand's frame
        // R_x(−90°)·(−0.03, 0, 0.06) = (−0.03, 0.06, 0).
        assert!(
            out[0]
                .translation
                .abs_diff_eq(Vec3::new(-0.03, 0.06, 0.0), 1e-6),
            "{}",
            out[0].translation
        );
        assert!(out[0].rotation.abs_diff_eq(turn.inverse(), 1e-6));
    }

    #[test]
    fn socket_below_a_bone_rides_on_it_and_unmapped_ones_are_dropped() {
        let from = rig(1.0, 0.1, Quat::IDENTITY);
        let to = rig(0.5, 0.2, Quat::IDENTITY);
        // On "prop" (0.1 in front of the hand), offset 0.05 up: 0.1 forward, 0.05 up from the
        // hand; × 2.
        let mut on_prop = Socket::new("badge", JointId::from_index(3));
        on_prop.translation = Vec3::new(0.0, 0.05, 0.0);
        let root = Socket::new("floor", None);
        let mut bare = to.clone();
        bare.1.set(HumanBone::RightHand, None);
        let mut d = Diagnostics::new();
        let out = transfer(&[on_prop.clone(), root], rig_of(&from), rig_of(&to), &mut d);
        assert_eq!(out.len(), 1);
        assert!(out[0]
            .translation
            .abs_diff_eq(Vec3::new(0.0, 0.1, 0.2), 1e-6));
        assert_eq!(
            d.iter().filter(|x| x.code == "SOCKET_NOT_CARRIED").count(),
            1
        );
        let mut d = Diagnostics::new();
        let out = transfer(&[on_prop], rig_of(&from), rig_of(&bare), &mut d);
        assert!(out.is_empty());
        assert!(d
            .iter()
            .any(|x| x.message.contains("the target has no rightHand")));
    }

    #[test]
    fn hips_ratio_when_a_bone_has_no_length() {
        let from = rig(1.0, 0.1, Quat::IDENTITY);
        let to = rig(0.5, 0.2, Quat::IDENTITY);
        // The hips' length: no child bone of the hips is mapped, so its first child joint
        // (the hand, 0.5 away on both) gives k = 1.
        let mut belt = Socket::new("belt", from.1.get(HumanBone::Hips));
        belt.translation = Vec3::new(0.0, 0.0, 0.2);
        // The middle proximal is a leaf on both: the hips' heights above the foot, 0.5 / 1.
        let mut ring = Socket::new("ring", from.1.get(HumanBone::RightMiddleProximal));
        ring.translation = Vec3::new(-0.02, 0.0, 0.0);
        let mut d = Diagnostics::new();
        let out = transfer(&[belt, ring], rig_of(&from), rig_of(&to), &mut d);
        assert!(out[0]
            .translation
            .abs_diff_eq(Vec3::new(0.0, 0.0, 0.2), 1e-6));
        assert!(out[1]
            .translation
            .abs_diff_eq(Vec3::new(-0.01, 0.0, 0.0), 1e-6));
        assert!(d.contains("SOCKET_SCALE_FROM_HIPS"));
    }
}
