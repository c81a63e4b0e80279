//! The VRM rules for a humanoid read from a VRM or VRMA file, in the specification's words.
//!
//! | code | severity | rule |
//! |---|---|---|
//! | `VRM_MISSING_BONES` | error | every required bone present (VRM 1.0 and VRMA: 15; VRM 0.x: 17), all named at once |
//! | `BONE_MAPPED_TWICE`, `BONE_OUTSIDE_HIPS`, `BONE_HIERARCHY` | error | one node per bone; bones below the hips, in the spec's parent order ([`validate_bone_map`]) |
//! | `VRM_BONE_NEEDS_PARENT` | error | "Needs Parent Bone": upperChest needs chest, a finger's second and third bones need the one before |
//! | `VRM_BONE_SCALE` | error / warning | humanoid bone scale components MUST be positive (error); VRM 1.0 T-pose 2.1: uniform (warning) |
//! | `VRM0_REST_ROTATION` | warning | VRM 0.x: bones have no local rotation at rest |
//! | `VRM_FACING` | error (1.0, VRMA) / warning (0.x) | VRM 1.0 faces +Z, VRM 0.x −Z: the left limbs lie on +X (1.0) or −X (0.x) |
//! | `VRMA_EYE_BONE` | warning | VRMA: leftEye/rightEye are not humanoid bones of an animation |
//! | `VRMA_HIPS_HEIGHT` | error | VRMA: a hips translation track over a rest whose hips stand at or below y = 0 (players divide by that height; [`super::vrma::check_hips_height`]) |

use glam::Vec3;

use crate::error::{Diagnostics, Severity};
use crate::model::asset::Facing;
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::Skeleton;
use crate::model::validate::validate_bone_map;
use crate::model::Format;
use crate::model::{HumanBone, Profile};

/// Checks the VRM rules (see the module docs); `pointer` is the humanoid's JSON pointer.
pub fn check(
    skeleton: &Skeleton,
    bones: &BoneMap,
    flavour: Format,
    pointer: &str,
    diagnostics: &mut Diagnostics,
) {
    let (profile, version) = match flavour {
        Format::Vrm0 => (Profile::Vrm0, "VRM 0.x"),
        Format::Vrma => (Profile::Vrm1, "VRM animation"),
        _ => (Profile::Vrm1, "VRM 1.0"),
    };
    if let Err(missing) = bones.require(profile) {
        diagnostics.error(
            "VRM_MISSING_BONES",
            pointer,
            format!("{version}: {missing}"),
        );
    }
    for found in validate_bone_map(skeleton, bones).iter() {
        let location = if found.location.is_empty() {
            pointer
        } else {
            &found.location
        };
        diagnostics.push(found.code, found.severity, location, found.message.clone());
    }
    needs_parent_rule(bones, pointer, diagnostics);
    scales(skeleton, bones, flavour, pointer, diagnostics);
    facing(skeleton, bones, flavour, pointer, diagnostics);
    if flavour == Format::Vrma {
        for eye in [HumanBone::LeftEye, HumanBone::RightEye] {
            if bones.get(eye).is_some() {
                diagnostics.warn(
                    "VRMA_EYE_BONE",
                    pointer,
                    format!("{eye} is not a humanoid bone of VRM animation (the gaze is the lookAt node); ignored by players"),
                );
            }
        }
    }
}

/// Bones whose table parent must exist for them to exist (VRM 1.0 humanoid.md, "Needs Parent
/// Bone: Yes").
pub(crate) fn needs_parent(bone: HumanBone) -> bool {
    use HumanBone::*;
    let name = bone.as_str();
    bone == UpperChest
        || name.ends_with("Intermediate")
        || name.ends_with("Distal")
        || matches!(bone, LeftThumbProximal | RightThumbProximal)
}

fn needs_parent_rule(bones: &BoneMap, pointer: &str, diagnostics: &mut Diagnostics) {
    for (bone, _) in bones.iter() {
        if !needs_parent(bone) {
            continue;
        }
        if let Some(parent) = bone.parent().filter(|p| bones.get(*p).is_none()) {
            diagnostics.error(
                "VRM_BONE_NEEDS_PARENT",
                pointer,
                format!("{bone} is mapped but {parent} is not: {bone} may only exist when its parent bone {parent} does"),
            );
        }
    }
}

fn scales(
    skeleton: &Skeleton,
    bones: &BoneMap,
    flavour: Format,
    pointer: &str,
    diagnostics: &mut Diagnostics,
) {
    for (bone, joint) in bones.iter() {
        if !skeleton.contains(joint) {
            continue;
        }
        let rest = skeleton.rest_local(joint);
        let s = rest.scale;
        if s.min_element() <= 0.0 {
            diagnostics.error(
                "VRM_BONE_SCALE",
                pointer,
                format!(
                    "{bone} ({:?}) has scale {s}: humanoid bone scale components MUST be positive",
                    skeleton.name(joint)
                ),
            );
        } else if (s.max_element() - s.min_element()) > 1e-4 * s.max_element() {
            diagnostics.warn(
                "VRM_BONE_SCALE",
                pointer,
                format!("{bone} ({:?}) has non-uniform scale {s}: the VRM T-pose has positive uniform scale on every node", skeleton.name(joint)),
            );
        }
        if flavour == Format::Vrm0 && rest.rotation.angle_between(glam::Quat::IDENTITY) > 1e-3 {
            diagnostics.warn(
                "VRM0_REST_ROTATION",
                pointer,
                format!(
                    "{bone} ({:?}) has a rest rotation: VRM 0.x bones have none",
                    skeleton.name(joint)
                ),
            );
        }
    }
}

/// Which way the model faces, told by where its left limbs are: on +X facing +Z, on −X
/// facing −Z. `None` when no left/right pair is mapped or they are level.
pub fn facing_of(skeleton: &Skeleton, bones: &BoneMap) -> Option<Facing> {
    use HumanBone::*;
    let x = |bone| {
        bones
            .get(bone)
            .filter(|j| skeleton.contains(*j))
            .map(|j| skeleton.rest_world(j).translation)
    };
    let pairs = [
        (LeftUpperArm, RightUpperArm),
        (LeftUpperLeg, RightUpperLeg),
        (LeftHand, RightHand),
        (LeftFoot, RightFoot),
    ];
    pairs.iter().find_map(|&(l, r)| {
        let (left, right): (Vec3, Vec3) = (x(l)?, x(r)?);
        let d = left.x - right.x;
        if d.abs() < 1e-4 {
            None
        } else if d > 0.0 {
            Some(Facing::PlusZ)
        } else {
            Some(Facing::MinusZ)
        }
    })
}

fn facing(
    skeleton: &Skeleton,
    bones: &BoneMap,
    flavour: Format,
    pointer: &str,
    diagnostics: &mut Diagnostics,
) {
    let expected = if flavour == Format::Vrm0 {
        Facing::MinusZ
    } else {
        Facing::PlusZ
    };
    let Some(found) = facing_of(skeleton, bones) else {
        return;
    };
    if found == expected {
        return;
    }
    let (severity, message) = match flavour {
        Format::Vrm0 => (
            Severity::Warning,
            "the model faces +Z (its left limbs are on +X): VRM 0.x models face −Z; players will turn it to face backwards",
        ),
        _ => (
            Severity::Error,
            "the model faces −Z (its left limbs are on −X): \"The character must face along the positive direction of the Z-axis\" (VRM 1.0 T-pose 1.1)",
        ),
    };
    diagnostics.push("VRM_FACING", severity, pointer, message);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::trs::Trs;
    use crate::model::skeleton::RawJoint;

    fn rig(left_x: f32, scale: f32) -> (Skeleton, BoneMap) {
        let joint = |name: &str, parent, x: f32| RawJoint {
            name: name.into(),
            parent,
            rest: Trs::new(
                Vec3::new(x, 0.1, 0.0),
                glam::Quat::IDENTITY,
                Vec3::splat(scale),
            ),
        };
        let raw = vec![
            joint("hips", None, 0.0),
            joint("chest", Some(0), 0.0),
            joint("l", Some(0), left_x),
            joint("r", Some(0), -left_x),
        ];
        let (skeleton, ids) = Skeleton::from_raw(raw).unwrap();
        let mut bones = BoneMap::new();
        bones.set(HumanBone::Hips, Some(ids[0]));
        bones.set(HumanBone::UpperChest, Some(ids[1]));
        bones.set(HumanBone::LeftUpperLeg, Some(ids[2]));
        bones.set(HumanBone::RightUpperLeg, Some(ids[3]));
        (skeleton, bones)
    }

    #[test]
    fn rules_report_what_the_spec_says() {
        let (skeleton, bones) = rig(-0.1, 1.0);
        let mut d = Diagnostics::new();
        check(&skeleton, &bones, Format::Vrm1, "/p", &mut d);
        let missing = d.iter().find(|x| x.code == "VRM_MISSING_BONES").unwrap();
        assert!(
            missing.message.contains("spine") && missing.message.contains("rightFoot"),
            "{}",
            missing.message
        );
        assert!(
            d.contains("VRM_BONE_NEEDS_PARENT"),
            "upperChest without chest"
        );
        assert!(d
            .iter()
            .any(|x| x.code == "VRM_FACING" && x.severity == Severity::Error));
        // The same rig is what VRM 0.x expects: left on −X.
        let mut d = Diagnostics::new();
        check(&skeleton, &bones, Format::Vrm0, "/p", &mut d);
        assert!(!d.contains("VRM_FACING"));
    }

    #[test]
    fn negative_scale_is_an_error() {
        let (skeleton, bones) = rig(0.1, -1.0);
        let mut d = Diagnostics::new();
        check(&skeleton, &bones, Format::Vrm1, "/p", &mut d);
        assert!(d
            .iter()
            .any(|x| x.code == "VRM_BONE_SCALE" && x.severity == Severity::Error));
    }
}
