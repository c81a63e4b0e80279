//! Mapping speed (divan), in memory (no file reading): a 200-joint rig mapped by the one
//! mapper that weighs every built-in table's names and the skeleton's shape
//! (`humanoid::mapping::map_rig`). Target: under 50 ms per rig (issue 33); a person opening a
//! rig should not wait for its map.
//!
//! The rig is the bundled mannequin (its declaration dropped) grown to 200 joints the way
//! exported game rigs are: twist joints on the limbs, unweighted IK and FK duplicate arm chains,
//! IK targets and poles, and face joints under the head. `named` keeps the mannequin's names
//! (tables match); `nameless` calls every joint `joint_N` (the shape alone).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::OnceLock;

use glam::{Mat4, Quat, Vec3};
use humanoid::asset::Asset;
use humanoid::formats::Format;
use humanoid::mapping::{map_rig, Choice, Library};
use humanoid::model::{HumanBone, JointId, RawJoint, Skeleton};
use humanoid::pose::Trs;

const JOINTS: usize = 200;

fn main() {
    divan::main();
}

/// The mannequin grown to [`JOINTS`] joints, named (`true`) or `joint_N`.
fn rig(named: bool) -> Asset {
    let m = humanoid::demo::canonical_mannequin().unwrap();
    let s = &m.skeleton;
    let mut raw: Vec<RawJoint> = s
        .joints()
        .map(|j| RawJoint {
            name: s.name(j).to_owned(),
            parent: s.parent(j).map(JointId::index),
            rest: s.rest_local(j),
        })
        .collect();
    let mut weighted: Vec<bool> = vec![true; raw.len()];
    let world = |b: HumanBone| s.rest_world(m.humanoid.bones.get(b).unwrap());
    let mut add = |raw: &mut Vec<RawJoint>, name: String, parent: usize, at: Vec3, w: bool| {
        let parent_world = {
            // The parent's world from the raw joints (parents come first).
            let mut chain = vec![parent];
            while let Some(p) = raw[*chain.last().unwrap()].parent {
                chain.push(p);
            }
            chain
                .iter()
                .rev()
                .fold(Mat4::IDENTITY, |acc, i| acc * raw[*i].rest.to_mat4())
        };
        raw.push(RawJoint {
            name,
            parent: Some(parent),
            rest: Trs::from_mat4(parent_world.inverse() * Mat4::from_translation(at)),
        });
        weighted.push(w);
    };
    use HumanBone::*;
    // Twist joints halfway along each limb segment.
    for (bone, next) in [
        (LeftUpperArm, LeftLowerArm),
        (LeftLowerArm, LeftHand),
        (RightUpperArm, RightLowerArm),
        (RightLowerArm, RightHand),
        (LeftUpperLeg, LeftLowerLeg),
        (RightUpperLeg, RightLowerLeg),
    ] {
        let j = m.humanoid.bones.get(bone).unwrap();
        let at = (world(bone).translation + world(next).translation) * 0.5;
        add(&mut raw, format!("{bone}_twist"), j.index(), at, true);
    }
    // IK and FK duplicate arms, unweighted.
    for arm in [
        [LeftUpperArm, LeftLowerArm, LeftHand],
        [RightUpperArm, RightLowerArm, RightHand],
    ] {
        for prefix in ["IK", "FK"] {
            let mut parent = s
                .parent(m.humanoid.bones.get(arm[0]).unwrap())
                .unwrap()
                .index();
            for bone in arm {
                add(
                    &mut raw,
                    format!("{prefix}_{bone}"),
                    parent,
                    world(bone).translation,
                    false,
                );
                parent = raw.len() - 1;
            }
        }
    }
    // IK targets hung from the root, poles from the hips.
    let root = s.joints().next().unwrap().index();
    let hips = m.humanoid.bones.get(Hips).unwrap().index();
    for bone in [LeftFoot, RightFoot, LeftHand, RightHand] {
        add(
            &mut raw,
            format!("target_{bone}"),
            root,
            world(bone).translation,
            false,
        );
    }
    for bone in [LeftLowerLeg, RightLowerLeg] {
        let at = world(bone).translation + Vec3::Z * 0.5;
        add(&mut raw, format!("pole_{bone}"), hips, at, false);
    }
    // Face joints under the head, on a sphere in front of it, until the rig has JOINTS.
    let head = m.humanoid.bones.get(Head).unwrap().index();
    let centre = world(Head).translation + Vec3::new(0.0, 0.08, 0.05);
    let mut k = 0;
    while raw.len() < JOINTS {
        let turn = Quat::from_rotation_y(k as f32 * 0.37) * Quat::from_rotation_x(k as f32 * 0.23);
        let at = centre + turn * Vec3::new(0.0, 0.0, 0.08);
        add(&mut raw, format!("face_{k}"), head, at, true);
        k += 1;
    }
    if !named {
        for (i, joint) in raw.iter_mut().enumerate() {
            joint.name = format!("joint_{i}");
        }
    }
    let (skeleton, ids) = Skeleton::from_raw(raw).unwrap();
    let n = skeleton.len();
    let mut asset = Asset::new(Format::Glb, skeleton, (0..n).collect());
    asset.skin_joints = ids.clone();
    asset.weighted_joints = ids
        .iter()
        .zip(&weighted)
        .filter(|(_, w)| **w)
        .map(|(id, _)| *id)
        .collect();
    asset.skin_joints.sort();
    asset.weighted_joints.sort();
    assert_eq!(asset.skeleton.len(), JOINTS);
    asset
}

fn library() -> &'static Library {
    static LIBRARY: OnceLock<Library> = OnceLock::new();
    LIBRARY.get_or_init(|| Library::builtin().unwrap())
}

fn named() -> &'static Asset {
    static RIG: OnceLock<Asset> = OnceLock::new();
    RIG.get_or_init(|| rig(true))
}

fn nameless() -> &'static Asset {
    static RIG: OnceLock<Asset> = OnceLock::new();
    RIG.get_or_init(|| rig(false))
}

/// 200 joints with the mannequin's names: tables and shape.
#[divan::bench]
fn map_200_joints_named() -> usize {
    let mapping = map_rig(named(), library(), Choice::Detect, Path::new("rig")).unwrap();
    assert!(mapping.bones.len() >= 50, "{}", mapping.bones.len());
    mapping.bones.len()
}

/// 200 joints named `joint_N`: the shape alone decides.
#[divan::bench]
fn map_200_joints_nameless() -> usize {
    let mapping = map_rig(nameless(), library(), Choice::Detect, Path::new("rig")).unwrap();
    assert!(mapping.bones.len() >= 40, "{}", mapping.bones.len());
    mapping.bones.len()
}
