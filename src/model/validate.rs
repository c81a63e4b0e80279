//! The hierarchy rules of EXT_skeleton_humanoid (and VRM, whose rules are the same) for a bone
//! map on a skeleton.
//!
//! ## Rules
//!
//! [`validate_bone_map`] checks, and reports as [`Severity::Error`](crate::error::Severity) diagnostics
//! with these stable codes:
//!
//! 1. `BONE_UNKNOWN_JOINT`: a bone is mapped to a joint that is not in the skeleton.
//! 2. `BONE_MAPPED_TWICE`: two or more bones are mapped to the same joint.
//! 3. `BONE_OUTSIDE_HIPS`: when the hips are mapped, every other mapped bone must be a
//!    descendant of the hips' joint.
//! 4. `BONE_HIERARCHY`: for every mapped bone, its nearest ancestor *joint* that carries a bone
//!    must carry the bone's nearest *mapped* canonical ancestor ([`HumanBone::ancestors`]
//!    filtered to the mapped ones); a bone with no mapped canonical ancestor (the hips) must have
//!    no bone above it. Unmapped intermediate joints are fine, and a missing optional bone is
//!    skipped: hips–boneFoo–spine is valid, and with no spine mapped, chest directly under hips
//!    is valid; hips–chest–spine (spine mapped under chest) is not.
//!
//! A bone already reported under rules 1–3 is not checked again under rule 4, so a bone gets at
//! most one finding. Messages name the bones and their joints.
//!
//! ```
//! use humanoid::model::humanoid::BoneMap;
//! use humanoid::model::skeleton::{RawJoint, Skeleton};
//! use humanoid::model::validate::validate_bone_map;
//! use humanoid::model::HumanBone;
//! use humanoid::pose::trs::Trs;
//!
//! // hips ← chest ← spine: spine is mapped under chest.
//! let joint = |name: &str, parent| RawJoint { name: name.into(), parent, rest: Trs::IDENTITY };
//! let raw = vec![joint("Hips", None), joint("Chest", Some(0)), joint("Spine", Some(1))];
//! let (skeleton, ids) = Skeleton::from_raw(raw)?;
//! let mut bones = BoneMap::new();
//! bones.set(HumanBone::Hips, Some(ids[0]));
//! bones.set(HumanBone::Chest, Some(ids[1]));
//! bones.set(HumanBone::Spine, Some(ids[2]));
//! let diagnostics = validate_bone_map(&skeleton, &bones);
//! assert!(diagnostics.contains("BONE_HIERARCHY"));
//! # Ok::<(), humanoid::model::skeleton::SkeletonError>(())
//! ```

use std::collections::HashMap;

use crate::error::Diagnostics;
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::{JointId, Skeleton};
use crate::model::HumanBone;

/// Code: a bone is mapped to a joint the skeleton does not have.
pub const BONE_UNKNOWN_JOINT: &str = "BONE_UNKNOWN_JOINT";
/// Code: several bones are mapped to one joint.
pub const BONE_MAPPED_TWICE: &str = "BONE_MAPPED_TWICE";
/// Code: a mapped bone is not below the hips.
pub const BONE_OUTSIDE_HIPS: &str = "BONE_OUTSIDE_HIPS";
/// Code: a bone's nearest mapped ancestor in the joint tree is not its nearest mapped canonical
/// ancestor.
pub const BONE_HIERARCHY: &str = "BONE_HIERARCHY";

/// Checks the bone map against the skeleton's joint tree (the rules are listed in the
/// [module docs](self)). Returns no diagnostics for a valid map; an empty map is valid.
pub fn validate_bone_map(skeleton: &Skeleton, bones: &BoneMap) -> Diagnostics {
    let mut diagnostics = Diagnostics::new();
    let joint_label = |joint: JointId| format!("{joint} {:?}", skeleton.name(joint));

    // Rule 1, and the joint → bones table of the usable mappings.
    let mut on_joint: HashMap<JointId, Vec<HumanBone>> = HashMap::new();
    for (bone, joint) in bones.iter() {
        if skeleton.contains(joint) {
            on_joint.entry(joint).or_default().push(bone);
        } else {
            diagnostics.error(
                BONE_UNKNOWN_JOINT,
                "",
                format!(
                    "bone {bone} is mapped to {joint}, but the skeleton has {} joints",
                    skeleton.len()
                ),
            );
        }
    }

    // Rule 2, one finding per joint, in bone order.
    let mut doubled: Vec<(JointId, &[HumanBone])> = on_joint
        .iter()
        .filter(|(_, list)| list.len() > 1)
        .map(|(&joint, list)| (joint, list.as_slice()))
        .collect();
    doubled.sort_by_key(|(_, list)| list.first().map(|b| b.index()));
    for (joint, list) in &doubled {
        let names: Vec<&str> = list.iter().map(|b| b.as_str()).collect();
        diagnostics.error(
            BONE_MAPPED_TWICE,
            "",
            format!(
                "bones {} are all mapped to {}; each joint can be one bone only",
                names.join(", "),
                joint_label(*joint)
            ),
        );
    }

    let usable = |bone: HumanBone| {
        bones
            .get(bone)
            .filter(|joint| on_joint.get(joint).is_some_and(|list| list.len() == 1))
    };
    let mapped = |bone: HumanBone| bones.get(bone).filter(|&joint| skeleton.contains(joint));
    let hips = mapped(HumanBone::Hips);

    for (bone, joint) in bones.iter() {
        if usable(bone).is_none() {
            continue; // reported under rule 1 or 2
        }
        // Rule 3.
        if let Some(hips) = hips.filter(|_| bone != HumanBone::Hips) {
            if !skeleton.is_ancestor(hips, joint) {
                diagnostics.error(
                    BONE_OUTSIDE_HIPS,
                    "",
                    format!(
                        "bone {bone} ({}) is not below hips ({}) in the joint tree",
                        joint_label(joint),
                        joint_label(hips)
                    ),
                );
                continue;
            }
        }
        // Rule 4.
        let expected = bone.ancestors().find_map(|a| mapped(a).map(|j| (a, j)));
        let actual = skeleton
            .ancestors(joint)
            .find_map(|j| on_joint.get(&j).map(|list| (list.as_slice(), j)));
        let message =
            match (expected, actual) {
                (None, None) => continue,
                (Some((e, _)), Some((list, _))) if list.contains(&e) => continue,
                (Some((e, ej)), Some((list, aj))) => {
                    format!(
                "bone {bone} ({}) is under {} ({}) in the joint tree, but its nearest mapped \
                 canonical ancestor is {e} ({}); {e} must be the nearest humanoid bone above it",
                joint_label(joint),
                list.iter().map(|b| b.as_str()).collect::<Vec<_>>().join("/"),
                joint_label(aj),
                joint_label(ej),
            )
                }
                (Some((e, ej)), None) => format!(
                    "bone {bone} ({}) has no humanoid bone above it in the joint tree, but its \
                 nearest mapped canonical ancestor is {e} ({}), which must be above it",
                    joint_label(joint),
                    joint_label(ej),
                ),
                (None, Some((list, aj))) => format!(
                "bone {bone} ({}) is under {} ({}) in the joint tree, but no mapped bone is its \
                 canonical ancestor; {bone} must have no humanoid bone above it",
                joint_label(joint),
                list.iter().map(|b| b.as_str()).collect::<Vec<_>>().join("/"),
                joint_label(aj),
            ),
            };
        diagnostics.error(BONE_HIERARCHY, "", message);
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::trs::Trs;
    use crate::model::skeleton::RawJoint;
    use HumanBone::*;

    /// A skeleton from (name, parent name) pairs, listed parents first, and a bone map from
    /// (bone, joint name) pairs.
    fn rig(joints: &[(&str, Option<&str>)], mapping: &[(HumanBone, &str)]) -> (Skeleton, BoneMap) {
        let index = |name: &str| joints.iter().position(|(n, _)| *n == name).expect(name);
        let raw = joints
            .iter()
            .map(|(name, parent)| RawJoint {
                name: (*name).into(),
                parent: parent.map(index),
                rest: Trs::IDENTITY,
            })
            .collect();
        let (skeleton, ids) = Skeleton::from_raw(raw).expect("valid tree");
        let mut bones = BoneMap::new();
        for (bone, joint) in mapping {
            bones.set(*bone, Some(ids[index(joint)]));
        }
        (skeleton, bones)
    }

    /// The codes found, in order.
    #[track_caller]
    fn codes(joints: &[(&str, Option<&str>)], mapping: &[(HumanBone, &str)]) -> Vec<&'static str> {
        let (skeleton, bones) = rig(joints, mapping);
        let diagnostics = validate_bone_map(&skeleton, &bones);
        assert!(diagnostics
            .iter()
            .all(|d| d.severity == crate::error::Severity::Error));
        diagnostics.iter().map(|d| d.code).collect()
    }

    #[test]
    fn spec_example_chest_above_spine_is_invalid() {
        // hips – chest – spine, with spine mapped under chest.
        let joints = [("H", None), ("C", Some("H")), ("S", Some("C"))];
        let (skeleton, bones) = rig(&joints, &[(Hips, "H"), (Chest, "C"), (Spine, "S")]);
        let diagnostics = validate_bone_map(&skeleton, &bones);
        // Both bones are out of place: spine sits under chest, chest's nearest bone above is hips.
        let messages: Vec<&str> = diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(diagnostics.len(), 2, "{messages:?}");
        assert!(diagnostics.iter().all(|d| d.code == BONE_HIERARCHY));
        assert!(
            messages[0].contains("bone spine")
                && messages[0].contains("\"S\"")
                && messages[0].contains("under chest"),
            "{}",
            messages[0]
        );
        assert!(
            messages[0].contains("nearest mapped canonical ancestor is hips"),
            "{}",
            messages[0]
        );
        assert!(
            messages[1].contains("bone chest") && messages[1].contains("is spine"),
            "{}",
            messages[1]
        );
    }

    #[test]
    fn spec_example_unmapped_joint_between_is_valid() {
        // hips – boneFoo – spine.
        let joints = [("H", None), ("boneFoo", Some("H")), ("S", Some("boneFoo"))];
        assert!(codes(&joints, &[(Hips, "H"), (Spine, "S")]).is_empty());
    }

    #[test]
    fn spec_example_missing_spine_chest_under_hips_is_valid() {
        let joints = [("H", None), ("C", Some("H"))];
        assert!(codes(&joints, &[(Hips, "H"), (Chest, "C")]).is_empty());
    }

    #[test]
    fn a_full_chain_is_valid() {
        let joints = [
            ("root", None),
            ("H", Some("root")),
            ("S", Some("H")),
            ("C", Some("S")),
            ("N", Some("C")),
            ("Hd", Some("N")),
            ("LS", Some("C")),
            ("LUA", Some("LS")),
            ("twist", Some("LUA")),
            ("LLA", Some("twist")),
            ("LUL", Some("H")),
        ];
        let mapping = [
            (Hips, "H"),
            (Spine, "S"),
            (Chest, "C"),
            (Neck, "N"), // upperChest missing: neck's canonical parent is chest then
            (Head, "Hd"),
            (LeftShoulder, "LS"),
            (LeftUpperArm, "LUA"),
            (LeftLowerArm, "LLA"),
            (LeftUpperLeg, "LUL"),
        ];
        assert!(codes(&joints, &mapping).is_empty());
        assert!(codes(&joints, &[]).is_empty(), "an empty map is valid");
    }

    #[test]
    fn two_bones_on_one_joint() {
        let joints = [("H", None), ("S", Some("H")), ("N", Some("S"))];
        // chest and spine on the same joint: one finding, and neck (under it) is not blamed.
        let (skeleton, bones) = rig(
            &joints,
            &[(Hips, "H"), (Spine, "S"), (Chest, "S"), (Neck, "N")],
        );
        let diagnostics = validate_bone_map(&skeleton, &bones);
        assert_eq!(
            diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
            [BONE_MAPPED_TWICE]
        );
        let message = &diagnostics.iter().next().unwrap().message;
        assert!(
            message.contains("spine, chest") && message.contains("\"S\""),
            "{message}"
        );
    }

    #[test]
    fn bone_outside_the_hips() {
        // A leg hanging from the root, beside the hips rather than under them.
        let joints = [
            ("root", None),
            ("H", Some("root")),
            ("L", Some("root")),
            ("S", Some("H")),
        ];
        assert_eq!(
            codes(&joints, &[(Hips, "H"), (LeftUpperLeg, "L"), (Spine, "S")]),
            [BONE_OUTSIDE_HIPS]
        );
        // Hips below the spine: the hips have a bone above them, and spine is outside the hips.
        let joints = [("S", None), ("H", Some("S"))];
        assert_eq!(
            codes(&joints, &[(Hips, "H"), (Spine, "S")]),
            [BONE_HIERARCHY, BONE_OUTSIDE_HIPS]
        );
    }

    #[test]
    fn hierarchy_without_hips() {
        // No hips mapped: a bone with a mapped bone above it that is not its canonical ancestor.
        let joints = [("S", None), ("H", Some("S"))];
        let (skeleton, bones) = rig(&joints, &[(Head, "S"), (Spine, "H")]);
        let diagnostics = validate_bone_map(&skeleton, &bones);
        assert_eq!(
            diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
            [BONE_HIERARCHY, BONE_HIERARCHY]
        );
        // Two separate roots: chest has no bone above it but spine is mapped.
        let joints = [("S", None), ("C", None)];
        assert_eq!(
            codes(&joints, &[(Spine, "S"), (Chest, "C")]),
            [BONE_HIERARCHY]
        );
        // Separate roots for unrelated bones are fine without hips.
        let joints = [("LH", None), ("RH", None)];
        assert!(codes(&joints, &[(LeftHand, "LH"), (RightHand, "RH")]).is_empty());
    }

    #[test]
    fn fingers_on_the_wrong_hand() {
        let joints = [
            ("H", None),
            ("LHand", Some("H")),
            ("RHand", Some("H")),
            ("LIndex", Some("RHand")),
        ];
        let (skeleton, bones) = rig(
            &joints,
            &[
                (Hips, "H"),
                (LeftHand, "LHand"),
                (RightHand, "RHand"),
                (LeftIndexProximal, "LIndex"),
            ],
        );
        let diagnostics = validate_bone_map(&skeleton, &bones);
        assert_eq!(diagnostics.len(), 1);
        let d = diagnostics.iter().next().unwrap();
        assert_eq!(d.code, BONE_HIERARCHY);
        assert!(
            d.message.contains("leftIndexProximal") && d.message.contains("under rightHand"),
            "{}",
            d.message
        );
    }

    #[test]
    fn joint_not_in_the_skeleton() {
        let (skeleton, _) = rig(&[("H", None)], &[]);
        let mut bones = BoneMap::new();
        bones.set(Hips, JointId::from_index(9));
        let diagnostics = validate_bone_map(&skeleton, &bones);
        assert_eq!(
            diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
            [BONE_UNKNOWN_JOINT]
        );
    }
}
