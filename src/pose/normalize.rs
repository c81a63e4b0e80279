//! The rest-pose normaliser: how far a skeleton's rest is from the canonical T-pose, per bone.
//!
//! For each mapped bone `b`, `S_b` is the world rotation that turns the bone from the file's
//! rest into the canonical T-pose (ARCHITECTURE.md §3): the shortest rotation (swing) from the
//! bone's rest direction — from its joint to the next mapped joint along its canonical chain
//! (spine to chest, upper arm to forearm, hand to the middle finger, foot to the toes) — to its
//! canonical direction ([`canonical_direction`], turned into the file's facing). The hands also
//! get a twist about their axis that lays the palm flat (the index-to-little line and the hand
//! direction span the palm; its normal must match the canonical palm's). A bone with nothing
//! to measure (a leaf: head, eyes, jaw, toes, last phalanges; a zero-length segment, as in CMU
//! BVH files) takes its parent bone's correction, so it keeps its pose relative to it.
//!
//! `W^T_b = S_b · W_b(rest)` is then the bone's world rotation in the T-pose.
//!
//! ```
//! use humanoid::model::humanoid::BoneMap;
//! use humanoid::model::skeleton::{RawJoint, Skeleton};
//! use humanoid::model::HumanBone;
//! use humanoid::pose::normalize::corrections;
//! use humanoid::pose::trs::Trs;
//! use glam::{Quat, Vec3};
//!
//! // A left arm hanging straight down from the shoulder: the T-pose holds it along +X.
//! let joint = |name: &str, parent, t: Vec3| RawJoint { name: name.into(), parent, rest: Trs::from_translation(t) };
//! let raw = vec![
//!     joint("upper", None, Vec3::new(0.2, 1.4, 0.0)),
//!     joint("lower", Some(0), Vec3::new(0.0, -0.3, 0.0)),
//!     joint("hand", Some(1), Vec3::new(0.0, -0.25, 0.0)),
//! ];
//! let (skeleton, ids) = Skeleton::from_raw(raw)?;
//! let mut bones = BoneMap::new();
//! bones.set(HumanBone::LeftUpperArm, Some(ids[0]));
//! bones.set(HumanBone::LeftLowerArm, Some(ids[1]));
//! bones.set(HumanBone::LeftHand, Some(ids[2]));
//! let s = corrections(&skeleton, &bones, Quat::IDENTITY);
//! let swung = s[HumanBone::LeftUpperArm.index()] * Vec3::NEG_Y;
//! assert!(swung.abs_diff_eq(Vec3::X, 1e-6));
//! # Ok::<(), humanoid::model::skeleton::SkeletonError>(())
//! ```

use glam::{Quat, Vec3};

use crate::model::asset::Facing;
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::Skeleton;
use crate::model::HumanBone;
use crate::pose::tpose::{canonical_direction, canonical_position};

/// Shorter segments than this (metres) have no direction to measure.
const MIN_SEGMENT: f32 = 1e-4;

/// The bones whose joints, in this order, give `bone`'s direction (the first mapped one).
fn aim(bone: HumanBone) -> &'static [HumanBone] {
    use HumanBone::*;
    match bone {
        Hips => &[Spine, Chest, UpperChest, Neck, Head],
        Spine => &[Chest, UpperChest, Neck, Head],
        Chest => &[UpperChest, Neck, Head],
        UpperChest => &[Neck, Head],
        Neck => &[Head],
        LeftShoulder => &[LeftUpperArm, LeftLowerArm, LeftHand],
        LeftUpperArm => &[LeftLowerArm, LeftHand],
        LeftLowerArm => &[LeftHand],
        LeftHand => &[
            LeftMiddleProximal,
            LeftRingProximal,
            LeftIndexProximal,
            LeftLittleProximal,
        ],
        RightShoulder => &[RightUpperArm, RightLowerArm, RightHand],
        RightUpperArm => &[RightLowerArm, RightHand],
        RightLowerArm => &[RightHand],
        RightHand => &[
            RightMiddleProximal,
            RightRingProximal,
            RightIndexProximal,
            RightLittleProximal,
        ],
        LeftThumbMetacarpal => &[LeftThumbProximal, LeftThumbDistal],
        LeftThumbProximal => &[LeftThumbDistal],
        RightThumbMetacarpal => &[RightThumbProximal, RightThumbDistal],
        RightThumbProximal => &[RightThumbDistal],
        LeftIndexProximal => &[LeftIndexIntermediate, LeftIndexDistal],
        LeftIndexIntermediate => &[LeftIndexDistal],
        LeftMiddleProximal => &[LeftMiddleIntermediate, LeftMiddleDistal],
        LeftMiddleIntermediate => &[LeftMiddleDistal],
        LeftRingProximal => &[LeftRingIntermediate, LeftRingDistal],
        LeftRingIntermediate => &[LeftRingDistal],
        LeftLittleProximal => &[LeftLittleIntermediate, LeftLittleDistal],
        LeftLittleIntermediate => &[LeftLittleDistal],
        RightIndexProximal => &[RightIndexIntermediate, RightIndexDistal],
        RightIndexIntermediate => &[RightIndexDistal],
        RightMiddleProximal => &[RightMiddleIntermediate, RightMiddleDistal],
        RightMiddleIntermediate => &[RightMiddleDistal],
        RightRingProximal => &[RightRingIntermediate, RightRingDistal],
        RightRingIntermediate => &[RightRingDistal],
        RightLittleProximal => &[RightLittleIntermediate, RightLittleDistal],
        RightLittleIntermediate => &[RightLittleDistal],
        LeftUpperLeg => &[LeftLowerLeg, LeftFoot],
        LeftLowerLeg => &[LeftFoot],
        LeftFoot => &[LeftToes],
        RightUpperLeg => &[RightLowerLeg, RightFoot],
        RightLowerLeg => &[RightFoot],
        RightFoot => &[RightToes],
        _ => &[],
    }
}

/// The turn from canonical space (+Z facing) into a file's space, from its declared facing.
pub fn declared_turn(facing: Facing) -> Quat {
    match facing {
        Facing::PlusZ => Quat::IDENTITY,
        Facing::MinusZ => Quat::from_xyzw(0.0, 1.0, 0.0, 0.0),
    }
}

/// The turn from canonical space into a rig's space, measured: the rotation about +Y that
/// takes canonical left (+X) to the rig's left, the mean horizontal direction from the right
/// to the left joint of the upper legs and of the upper arms (the hip and shoulder sockets,
/// which a rest pose does not turn, unlike feet turned out or hands).
/// `None` when no pair is mapped or the pairs sit on the vertical axis.
pub fn measured_turn(skeleton: &Skeleton, bones: &BoneMap) -> Option<Quat> {
    use HumanBone::*;
    let position = |bone: HumanBone| {
        bones
            .get(bone)
            .filter(|j| skeleton.contains(*j))
            .map(|j| skeleton.rest_world(j).translation)
    };
    let mut left = Vec3::ZERO;
    for (l, r) in [(LeftUpperLeg, RightUpperLeg), (LeftUpperArm, RightUpperArm)] {
        if let (Some(a), Some(b)) = (position(l), position(r)) {
            let d = Vec3::new(a.x - b.x, 0.0, a.z - b.z);
            if d.length() > MIN_SEGMENT {
                left += d.normalize();
            }
        }
    }
    // A rotation about +Y (R_y(θ)·X = (cos θ, 0, −sin θ)); from_rotation_arc would pick an
    // arbitrary axis for the half turn of a −Z-facing rig.
    (left.length() > MIN_SEGMENT).then(|| Quat::from_rotation_y((-left.z).atan2(left.x)))
}

/// `S_b` for every bone (identity for unmapped bones), measured on the skeleton's rest, for a
/// rig whose canonical space is turned by `turn` (see [`declared_turn`], [`measured_turn`]).
pub fn corrections(skeleton: &Skeleton, bones: &BoneMap, turn: Quat) -> [Quat; HumanBone::COUNT] {
    let position = |bone: HumanBone| {
        bones
            .get(bone)
            .filter(|j| skeleton.contains(*j))
            .map(|j| skeleton.rest_world(j).translation)
    };
    let mut out = [Quat::IDENTITY; HumanBone::COUNT];
    // Parents first (HumanBone::ALL order), so a leaf can inherit its parent's correction.
    for bone in HumanBone::ALL {
        let Some(origin) = position(bone) else {
            continue;
        };
        let inherited = bone
            .ancestors()
            .find(|a| bones.get(*a).is_some())
            .and_then(|a| out.get(a.index()).copied())
            .unwrap_or(Quat::IDENTITY);
        let measured = aim(bone)
            .iter()
            .find_map(|&next| position(next))
            .map(|p| p - origin)
            .filter(|d| d.length() > MIN_SEGMENT)
            .map(|d| {
                let canonical = turn * canonical_direction(bone);
                let swing = Quat::from_rotation_arc(d.normalize(), canonical.normalize());
                match palm_twist(bone, &position, swing, turn) {
                    Some(twist) => twist * swing,
                    None => swing,
                }
            });
        if let Some(slot) = out.get_mut(bone.index()) {
            *slot = measured.unwrap_or(inherited).normalize();
        }
    }
    out
}

/// For a hand: the twist about its (swung) axis that makes the palm's normal the canonical
/// one. The palm normal is `(index − little) × (middle − hand)` over the proximal joints.
fn palm_twist(
    bone: HumanBone,
    position: &dyn Fn(HumanBone) -> Option<Vec3>,
    swing: Quat,
    turn: Quat,
) -> Option<Quat> {
    use HumanBone::*;
    let (hand, index, middle, little) = match bone {
        LeftHand => (
            LeftHand,
            LeftIndexProximal,
            LeftMiddleProximal,
            LeftLittleProximal,
        ),
        RightHand => (
            RightHand,
            RightIndexProximal,
            RightMiddleProximal,
            RightLittleProximal,
        ),
        _ => return None,
    };
    let normal = |p: &dyn Fn(HumanBone) -> Option<Vec3>| -> Option<Vec3> {
        let n = (p(index)? - p(little)?).cross(p(middle)? - p(hand)?);
        (n.length() > MIN_SEGMENT * MIN_SEGMENT).then(|| n.normalize())
    };
    let rest = normal(position)?;
    let canonical_position_of = |b: HumanBone| Some(turn * canonical_position(b));
    let wanted = normal(&canonical_position_of)?;
    let axis = (turn * canonical_direction(bone)).normalize();
    let project = |v: Vec3| (v - axis * v.dot(axis)).normalize_or_zero();
    let (from, to) = (project(swing * rest), project(wanted));
    if from == Vec3::ZERO || to == Vec3::ZERO {
        return None;
    }
    let angle = from.cross(to).dot(axis).atan2(from.dot(to));
    Some(Quat::from_axis_angle(axis, angle))
}

/// How far each mapped bone's rest direction is from its canonical one, in degrees (the
/// measure `--normalize` drives to zero); unmapped and unmeasurable bones are left out.
pub fn deviations(skeleton: &Skeleton, bones: &BoneMap, turn: Quat) -> Vec<(HumanBone, f32)> {
    let position = |bone: HumanBone| {
        bones
            .get(bone)
            .filter(|j| skeleton.contains(*j))
            .map(|j| skeleton.rest_world(j).translation)
    };
    HumanBone::ALL
        .into_iter()
        .filter_map(|bone| {
            let origin = position(bone)?;
            let d = aim(bone).iter().find_map(|&next| position(next))? - origin;
            (d.length() > MIN_SEGMENT).then(|| {
                let canonical = turn * canonical_direction(bone);
                (
                    bone,
                    d.normalize()
                        .angle_between(canonical.normalize())
                        .to_degrees(),
                )
            })
        })
        .collect()
}

/// The joints' world positions with the skeleton posed in its T-pose: every mapped bone at
/// its T-pose world rotation `S_b · W_b(rest)`, every other joint following its parent at its
/// rest local rotation, local translations (and scales) as at rest, the root where it rests.
pub fn t_pose_positions(
    skeleton: &Skeleton,
    bones: &BoneMap,
    corrections: &[Quat; HumanBone::COUNT],
) -> Vec<Vec3> {
    let mut rotations: Vec<Quat> = Vec::with_capacity(skeleton.len());
    let mut scales: Vec<Vec3> = Vec::with_capacity(skeleton.len());
    let mut positions: Vec<Vec3> = Vec::with_capacity(skeleton.len());
    for joint in skeleton.joints() {
        let local = skeleton.rest_local(joint);
        let parent = skeleton.parent(joint).map(|p| p.index());
        let (parent_rotation, parent_scale, parent_position) = match parent {
            Some(p) => (
                rotations.get(p).copied().unwrap_or(Quat::IDENTITY),
                scales.get(p).copied().unwrap_or(Vec3::ONE),
                positions.get(p).copied().unwrap_or(Vec3::ZERO),
            ),
            None => (Quat::IDENTITY, Vec3::ONE, Vec3::ZERO),
        };
        let rotation = match bones.bone_of(joint) {
            Some(bone) => {
                let rest =
                    crate::math::trs::Trs::from_mat4(skeleton.rest_world(joint).to_mat4()).rotation;
                corrections
                    .get(bone.index())
                    .copied()
                    .unwrap_or(Quat::IDENTITY)
                    * rest
            }
            None => parent_rotation * local.rotation,
        };
        positions.push(parent_position + parent_rotation * (parent_scale * local.translation));
        rotations.push(rotation);
        scales.push(parent_scale * local.scale);
    }
    positions
}

/// The hips' height above the lowest joint with the skeleton in its T-pose (legs straight
/// down), the height that scales hips motion between rigs whose rests are not T-poses.
pub fn t_pose_hips_height(
    skeleton: &Skeleton,
    bones: &BoneMap,
    corrections: &[Quat; HumanBone::COUNT],
) -> Option<f32> {
    let hips = bones.get(HumanBone::Hips)?;
    let positions = t_pose_positions(skeleton, bones, corrections);
    let lowest = positions.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    Some(positions.get(hips.index())?.y - lowest)
}

/// `S_b` for every bone of a rig resting in `skeleton` whose file declares `posed` to be its
/// T-pose (a `KHR_character_reference_pose` of type `TPose`): taken as declared, as a T-pose
/// rest is, so `S_b = W_b(posed) · W_b(rest)⁻¹` (the identity where the rest is that pose).
pub fn corrections_to(
    skeleton: &Skeleton,
    posed: &Skeleton,
    bones: &BoneMap,
) -> [Quat; HumanBone::COUNT] {
    from_pose_to_rest([Quat::IDENTITY; HumanBone::COUNT], skeleton, posed, bones)
}

/// `S_b · W_b(posed) · W_b(rest)⁻¹` for every bone: corrections `in_pose` that hold in
/// `posed`, carried to the rest of `skeleton` (the same joints).
fn from_pose_to_rest(
    mut in_pose: [Quat; HumanBone::COUNT],
    skeleton: &Skeleton,
    posed: &Skeleton,
    bones: &BoneMap,
) -> [Quat; HumanBone::COUNT] {
    for (bone, joint) in bones.iter() {
        if !(skeleton.contains(joint) && posed.contains(joint)) {
            continue;
        }
        if let Some(slot) = in_pose.get_mut(bone.index()) {
            let rest = skeleton.rest_world(joint).rotation;
            let pose = posed.rest_world(joint).rotation;
            *slot = (*slot * pose * rest.inverse()).normalize();
        }
    }
    in_pose
}

/// `S_b` for every bone of a rig resting in `skeleton`, measured in another pose of the same
/// joints (`posed`: a declared reference pose) rather than in the rest: the T-pose world rotation
/// `S'_b · W_b(posed)` measured there, reached from the rest as `S_b = S'_b · W_b(posed) ·
/// W_b(rest)⁻¹`. With `posed` the rest itself this is [`corrections`].
///
/// ```
/// use humanoid::model::humanoid::BoneMap;
/// use humanoid::model::skeleton::{RawJoint, Skeleton};
/// use humanoid::model::HumanBone;
/// use humanoid::pose::normalize::{corrections, corrections_via};
/// use humanoid::pose::trs::Trs;
/// use glam::{Quat, Vec3};
///
/// // A left arm resting along +X (the T-pose), and a reference pose in which the shoulder
/// // turns it to hang down.
/// let arm = |shoulder: Quat| {
///     let joint = |name: &str, parent, t: Vec3| RawJoint { name: name.into(), parent, rest: Trs::from_translation(t) };
///     let mut upper = joint("upper", None, Vec3::new(0.2, 1.4, 0.0));
///     upper.rest.rotation = shoulder;
///     Skeleton::from_raw(vec![
///         upper,
///         joint("lower", Some(0), Vec3::new(0.3, 0.0, 0.0)),
///         joint("hand", Some(1), Vec3::new(0.25, 0.0, 0.0)),
///     ])
/// };
/// let (rest, ids) = arm(Quat::IDENTITY)?;
/// let (hanging, _) = arm(Quat::from_rotation_z(-std::f32::consts::FRAC_PI_2))?;
/// let mut bones = BoneMap::new();
/// bones.set(HumanBone::LeftUpperArm, Some(ids[0]));
/// bones.set(HumanBone::LeftLowerArm, Some(ids[1]));
/// bones.set(HumanBone::LeftHand, Some(ids[2]));
/// // Measured in either pose, the rest already is the T-pose: no correction.
/// let via = corrections_via(&rest, &hanging, &bones, Quat::IDENTITY);
/// let direct = corrections(&rest, &bones, Quat::IDENTITY);
/// for bone in [HumanBone::LeftUpperArm, HumanBone::LeftLowerArm] {
///     assert!(via[bone.index()].abs_diff_eq(Quat::IDENTITY, 1e-6));
///     assert!(direct[bone.index()].abs_diff_eq(Quat::IDENTITY, 1e-6));
/// }
/// # Ok::<(), humanoid::model::skeleton::SkeletonError>(())
/// ```
pub fn corrections_via(
    skeleton: &Skeleton,
    posed: &Skeleton,
    bones: &BoneMap,
    turn: Quat,
) -> [Quat; HumanBone::COUNT] {
    from_pose_to_rest(corrections(posed, bones, turn), skeleton, posed, bones)
}

/// The pose the normaliser measures against the canonical T-pose (`--rest
/// node|bind|reference`; by default the declared reference pose where the file has one, else
/// the node rest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RestReference {
    /// The declared reference pose ([`RestReference::Reference`]) where the file has one, else
    /// the node rest ([`RestReference::Node`]).
    #[default]
    Auto,
    /// The nodes' rest TRS, composed along the node chain.
    Node,
    /// The reference pose the file declares (glTF `KHR_character_reference_pose`): its one-key
    /// animation played on the rest.
    Reference,
    /// The skins' bind pose: each joint's world transform `B · IBM⁻¹`, `B` the skin's
    /// bind-shape matrix.
    Bind,
}

/// What rebasing a character on the canonical T-pose (`convert --normalize`, the glTF
/// adapter's `normalize_document`) does beyond baking the T-pose into the rest.
///
/// ```
/// use humanoid::pose::normalize::{NormalizeOptions, RestReference};
/// // `convert --normalize --rest bind --rebind`:
/// let options = NormalizeOptions { rest: RestReference::Bind, rebind: true };
/// // `convert --normalize`: the declared reference pose or else the node rest, vertices kept.
/// assert_eq!(NormalizeOptions::default(), NormalizeOptions { rest: RestReference::Auto, rebind: false });
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NormalizeOptions {
    /// The pose measured (`--rest`).
    pub rest: RestReference,
    /// Also bake the mesh into the T-pose (`--rebind`).
    pub rebind: bool,
}

/// Every joint's local transform in the canonical T-pose of `skeleton`'s humanoid `bones`: a
/// mapped bone's world rotation becomes `S_b · W_b(rest)` ([`corrections`], or
/// [`corrections_via`] the declared reference pose `posed`), set top-down; translations and
/// scales stay, and a joint that is no bone keeps its local rotation. With `declared_t_pose`
/// (EXT_skeleton_humanoid, VRM) the rest is the T-pose and is returned as it is.
///
/// ```
/// use glam::{Quat, Vec3};
/// use humanoid::model::humanoid::BoneMap;
/// use humanoid::model::skeleton::{RawJoint, Skeleton};
/// use humanoid::model::HumanBone;
/// use humanoid::pose::normalize::t_pose_locals;
/// use humanoid::pose::trs::Trs;
///
/// // A left arm hanging down from a turned shoulder: in the T-pose it points along +X.
/// let joint = |name: &str, parent, t: Vec3| RawJoint { name: name.into(), parent, rest: Trs::from_translation(t) };
/// let mut upper = joint("upper", None, Vec3::new(0.2, 1.4, 0.0));
/// upper.rest.rotation = Quat::from_rotation_z(-std::f32::consts::FRAC_PI_2);
/// let (skeleton, ids) = Skeleton::from_raw(vec![
///     upper,
///     joint("lower", Some(0), Vec3::new(0.3, 0.0, 0.0)),
///     joint("hand", Some(1), Vec3::new(0.25, 0.0, 0.0)),
/// ])?;
/// let mut bones = BoneMap::new();
/// bones.set(HumanBone::LeftUpperArm, Some(ids[0]));
/// bones.set(HumanBone::LeftLowerArm, Some(ids[1]));
/// bones.set(HumanBone::LeftHand, Some(ids[2]));
/// let locals = t_pose_locals(&skeleton, &bones, Quat::IDENTITY, None, false);
/// assert!(locals[0].rotation.abs_diff_eq(Quat::IDENTITY, 1e-6));
/// assert_eq!(locals[1].translation, Vec3::new(0.3, 0.0, 0.0));
/// # Ok::<(), humanoid::model::skeleton::SkeletonError>(())
/// ```
pub fn t_pose_locals(
    skeleton: &Skeleton,
    bones: &BoneMap,
    turn: Quat,
    posed: Option<&Skeleton>,
    declared_t_pose: bool,
) -> Vec<crate::math::trs::Trs> {
    use glam::DQuat;
    let mut locals = skeleton.rest_locals().to_vec();
    if declared_t_pose {
        return locals;
    }
    let corrections = match posed {
        Some(posed) => corrections_via(skeleton, posed, bones, turn),
        None => corrections(skeleton, bones, turn),
    };
    let count = skeleton.len();
    let mut wanted: Vec<Option<DQuat>> = vec![None; count];
    for (bone, joint) in bones.iter() {
        if let (Some(slot), Some(correction)) =
            (wanted.get_mut(joint.index()), corrections.get(bone.index()))
        {
            let rest = skeleton.rest_world(joint).rotation.as_dquat();
            *slot = Some((correction.as_dquat() * rest).normalize());
        }
    }
    let order: Vec<usize> = (0..count).collect();
    let parents: Vec<Option<usize>> = skeleton
        .parents()
        .iter()
        .map(|p| p.map(|p| p.index()))
        .collect();
    let rest: Vec<DQuat> = locals.iter().map(|l| l.rotation.as_dquat()).collect();
    // Parents come first in a skeleton, so the order is valid and this cannot fail.
    if let Ok(rotations) =
        crate::pose::bake::t_pose_local_rotations(&order, &parents, &rest, &wanted, 1e-9)
    {
        for (local, rotation) in locals.iter_mut().zip(rotations) {
            local.rotation = rotation.as_quat().normalize();
        }
    }
    locals
}
