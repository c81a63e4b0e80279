//! Applying a table to a rig: its names, and the pruning to the hierarchy rules.
//!
//! A table maps a joint when the joint's name has the same key (`normalize`) as one of the
//! table's names for a bone. The result is then **pruned**: a bone whose nearest mapped
//! ancestor in the rig is not its nearest mapped canonical ancestor is dropped (children are
//! dropped before parents are doubted: the map is checked parents first), and a left/right pair
//! whose sides disagree with the others is dropped. What is left always passes the
//! EXT_skeleton_humanoid hierarchy rules.
//!
//! Which table is best, and how its names are weighed against the shape, is [`super::solve`].

use std::collections::HashMap;

use super::normalize::Key;
use super::table::Table;
use crate::model::asset::Asset;
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::{JointId, Skeleton};
use crate::model::{HumanBone, Profile};

/// How a mapping was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// By a table's names.
    Table(String),
    /// By the skeleton's shape (the auto-mapper).
    Auto,
}

impl std::fmt::Display for Method {
    /// What a sentence says it was mapped by: "the mixamo table", "the auto-mapper".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Method::Table(t) => write!(f, "the {t} table"),
            Method::Auto => f.write_str("the auto-mapper"),
        }
    }
}

/// A bone map with a confidence in `[0, 1]` per mapped bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    /// How it was found.
    pub method: Method,
    /// Bone → joint.
    pub bones: BoneMap,
    /// Confidence per mapped bone, indexed by [`HumanBone::index`].
    pub confidence: [f32; HumanBone::COUNT],
}

impl Mapping {
    /// An empty mapping.
    pub fn new(method: Method) -> Mapping {
        Mapping {
            method,
            bones: BoneMap::new(),
            confidence: [0.0; HumanBone::COUNT],
        }
    }

    /// Maps `bone` with a confidence.
    pub fn set(&mut self, bone: HumanBone, joint: JointId, confidence: f32) {
        self.bones.set(bone, Some(joint));
        if let Some(slot) = self.confidence.get_mut(bone.index()) {
            *slot = confidence;
        }
    }

    /// Unmaps `bone`.
    pub fn unset(&mut self, bone: HumanBone) {
        self.bones.set(bone, None);
        if let Some(slot) = self.confidence.get_mut(bone.index()) {
            *slot = 0.0;
        }
    }

    /// The confidence of a mapped bone (0 when unmapped).
    pub fn confidence(&self, bone: HumanBone) -> f32 {
        self.confidence.get(bone.index()).copied().unwrap_or(0.0)
    }

    /// (required bones mapped, bones mapped): the order mappings are compared in.
    pub fn score(&self) -> (usize, usize) {
        let required = self
            .bones
            .iter()
            .filter(|(b, _)| b.is_required(Profile::Vrm1))
            .count();
        (required, self.bones.len())
    }
}

/// The joints a mapper considers: the skin joints, or every joint of a skinless file.
pub fn candidates(asset: &Asset) -> Vec<JointId> {
    if asset.skin_joints.is_empty() {
        asset.skeleton.joints().collect()
    } else {
        asset.skin_joints.clone()
    }
}

/// Maps `asset`'s joints by `table`'s names, then prunes (see the module docs).
pub fn apply(table: &Table, asset: &Asset) -> Mapping {
    let mut mapping = apply_names(table, asset);
    prune(&asset.skeleton, &mut mapping);
    mapping
}

/// Maps `asset`'s joints by `table`'s names alone, without pruning: what the names say, before
/// the hierarchy is consulted ([`super::solve`] weighs it against the shape).
pub fn apply_names(table: &Table, asset: &Asset) -> Mapping {
    let skeleton = &asset.skeleton;
    let mut by_key: HashMap<Key, Vec<JointId>> = HashMap::new();
    for joint in candidates(asset) {
        by_key
            .entry(table.key(skeleton.name(joint)))
            .or_default()
            .push(joint);
    }
    let mut mapping = Mapping::new(Method::Table(table.name.clone()));
    let mut used: Vec<JointId> = Vec::new();
    for (bone, names) in &table.bones {
        let found = names.iter().find_map(|name| {
            by_key.get(&table.key(name)).and_then(|joints| {
                joints
                    .iter()
                    .find(|j| !used.contains(j))
                    .map(|j| (*j, joints.len()))
            })
        });
        if let Some((joint, same_name)) = found {
            used.push(joint);
            // Several joints with the same name: the first (parents first) is taken, with less
            // confidence.
            let confidence = if same_name > 1 { 0.7 } else { 1.0 };
            mapping.set(*bone, joint, confidence);
        }
    }
    mapping
}

/// Drops bones that break the hierarchy rules or whose side disagrees (module docs).
pub fn prune(skeleton: &Skeleton, mapping: &mut Mapping) {
    loop {
        let mut dropped = false;
        for bone in HumanBone::ALL {
            let Some(joint) = mapping.bones.get(bone) else {
                continue;
            };
            let expected = bone.ancestors().find_map(|a| mapping.bones.get(a));
            let actual = skeleton
                .ancestors(joint)
                .find(|j| mapping.bones.bone_of(*j).is_some());
            if expected != actual {
                mapping.unset(bone);
                dropped = true;
            }
        }
        if !dropped {
            break;
        }
    }
    prune_sides(skeleton, mapping);
}

/// Left/right pairs: (left − right) must point the same way for every mapped pair; pairs that
/// disagree with the majority are dropped (with their descendants, by a second prune).
fn prune_sides(skeleton: &Skeleton, mapping: &mut Mapping) {
    let pairs: Vec<(HumanBone, HumanBone)> = HumanBone::ALL
        .into_iter()
        .filter(|b| b.is_left())
        .map(|b| (b, b.mirror()))
        .collect();
    let world = |bone| {
        mapping
            .bones
            .get(bone)
            .map(|j| skeleton.rest_world(j).translation)
    };
    let mut sum = glam::Vec3::ZERO;
    let mut deltas = Vec::new();
    for &(l, r) in &pairs {
        if let (Some(a), Some(b)) = (world(l), world(r)) {
            let d = glam::Vec3::new(a.x - b.x, 0.0, a.z - b.z);
            if d.length() > 1e-6 {
                sum += d.normalize();
                deltas.push((l, r, d));
            }
        }
    }
    if sum.length() < 1e-6 {
        return;
    }
    let mut changed = false;
    for (l, r, d) in deltas {
        if d.dot(sum) <= 0.0 {
            mapping.unset(l);
            mapping.unset(r);
            changed = true;
        }
    }
    if changed {
        prune(skeleton, mapping);
    }
}
