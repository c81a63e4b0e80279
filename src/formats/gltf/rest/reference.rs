//! The pose the normaliser measures: the node rest or the skins' bind pose, as an `f32`
//! skeleton for [`crate::pose::normalize`] and as `f64` rotations per node for baking.

use glam::{DMat4, DQuat, Quat};

use super::super::document::Document;
use super::super::json::Index;
use super::scene::Scene;
use super::{RestReference, UNCHANGED};
use crate::error::Error;
use crate::math::trs::Trs;
use crate::model::asset::{Asset, HumanoidSkeleton};
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::{RawJoint, Skeleton};
use crate::model::HumanBone;
use crate::pose::bake;
use crate::pose::normalize;

/// The skins' bind pose: each skin joint's world transform `B · IBM⁻¹` (other nodes follow
/// their parent at their rest local transform), and `B` per skin.
#[derive(Debug, Clone)]
pub(super) struct BindPose {
    pub(super) worlds: Vec<DMat4>,
    pub(super) shapes: Vec<DMat4>,
}

/// The bind pose of `scene`, or why there is none.
pub(super) fn bind_pose(scene: &Scene, document: &Document) -> Result<BindPose, String> {
    if scene.skins.is_empty() {
        return Err("the file has no skin, so no bind pose".to_owned());
    }
    let rest = scene.rest_worlds(None);
    let mut joint_worlds: Vec<Option<DMat4>> = vec![None; scene.rest.len()];
    let mut shapes = Vec::with_capacity(scene.skins.len());
    for (s, skin) in scene.skins.iter().enumerate() {
        let shape = bind_shape(scene, document, s, &rest);
        for (&joint, ibm) in skin.joints.iter().zip(&skin.inverse_bind) {
            let det = ibm.determinant();
            if !det.is_finite() || det.abs() < 1e-300 {
                return Err(format!(
                    "the inverse bind matrix of joint node {joint} (skin {s}) is singular"
                ));
            }
            if let Some(slot) = joint_worlds.get_mut(joint).filter(|w| w.is_none()) {
                *slot = Some(shape * ibm.inverse());
            }
        }
        shapes.push(shape);
    }
    let mut worlds = rest;
    for &node in &scene.order {
        let parent = scene.parents.get(node).copied().flatten();
        let local = scene.rest.get(node).map_or(DMat4::IDENTITY, |r| r.matrix);
        let world = match joint_worlds.get(node).copied().flatten() {
            Some(world) => world,
            None => parent
                .and_then(|p| worlds.get(p).copied())
                .map_or(local, |p| p * local),
        };
        if let Some(slot) = worlds.get_mut(node) {
            *slot = world;
        }
    }
    Ok(BindPose { worlds, shapes })
}

/// A skin's bind-shape matrix `B`: the world transform of the first node drawing with it when
/// its root joint's `rest world · IBM` equals that (the skin was bound in the mesh node's
/// space), else the identity (glTF's own reading: `IBM⁻¹` is the joint's world transform).
fn bind_shape(scene: &Scene, document: &Document, skin: usize, rest: &[DMat4]) -> DMat4 {
    let Some(data) = scene.skins.get(skin) else {
        return DMat4::IDENTITY;
    };
    let in_skin = |node: usize| data.joints.contains(&node);
    let root = data
        .joints
        .iter()
        .zip(&data.inverse_bind)
        .find(|&(&joint, _)| {
            let mut parent = scene.parents.get(joint).copied().flatten();
            while let Some(p) = parent {
                if in_skin(p) {
                    return false;
                }
                parent = scene.parents.get(p).copied().flatten();
            }
            true
        });
    let mesh_node = document
        .root
        .nodes
        .iter()
        .position(|n| n.skin.map(Index::as_usize) == Some(skin) && n.mesh.is_some());
    match (root, mesh_node.and_then(|n| rest.get(n))) {
        (Some((&joint, ibm)), Some(mesh_world)) => {
            let shape = rest.get(joint).copied().unwrap_or(DMat4::IDENTITY) * *ibm;
            if close(&shape, mesh_world) {
                *mesh_world
            } else {
                DMat4::IDENTITY
            }
        }
        _ => DMat4::IDENTITY,
    }
}

/// Whether two affine matrices agree to 1e-4 of the larger's scale.
pub(super) fn close(a: &DMat4, b: &DMat4) -> bool {
    let (a, b) = (a.to_cols_array(), b.to_cols_array());
    let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= 1e-4 * scale)
}

/// A pose as the normaliser sees it: an `f32` skeleton in the asset's joint order, the bone
/// map on it, the node of each of its joints, and each node's world and local rotation
/// (`f64`; a joint that is not a humanoid bone keeps its local rotation in the T-pose).
pub(super) struct Reference {
    pub(super) skeleton: Skeleton,
    pub(super) bones: BoneMap,
    nodes: Vec<usize>,
    rotations: Vec<DQuat>,
    locals: Vec<DQuat>,
}

impl Reference {
    /// The pose whose world transforms (per node) are `worlds`, with world rotations
    /// `rotations` and local rotations `locals`.
    pub(super) fn new(
        asset: &Asset,
        humanoid: &HumanoidSkeleton,
        worlds: &[DMat4],
        rotations: Vec<DQuat>,
        locals: Vec<DQuat>,
    ) -> Result<Reference, Error> {
        let world = |node: usize| worlds.get(node).copied().unwrap_or(DMat4::IDENTITY);
        let raw = asset
            .skeleton
            .joints()
            .map(|joint| {
                let node = asset.source_index(joint);
                let parent = asset.skeleton.parent(joint);
                let parent_world = parent.map_or(DMat4::IDENTITY, |p| world(asset.source_index(p)));
                let local = (parent_world.inverse() * world(node)).as_mat4();
                RawJoint {
                    name: asset.skeleton.name(joint).to_owned(),
                    parent: parent.map(|p| p.index()),
                    rest: Trs::from_mat4(local),
                }
            })
            .collect();
        let (skeleton, ids) = Skeleton::from_raw(raw)
            .map_err(|e| Error::unsupported(format!("the rest pose cannot be measured: {e}")))?;
        let mut nodes = vec![0; ids.len()];
        for (joint, id) in asset.skeleton.joints().zip(&ids) {
            if let Some(slot) = nodes.get_mut(id.index()) {
                *slot = asset.source_index(joint);
            }
        }
        let mut bones = BoneMap::new();
        for (bone, joint) in humanoid.bones.iter() {
            bones.set(bone, ids.get(joint.index()).copied());
        }
        Ok(Reference {
            skeleton,
            bones,
            nodes,
            rotations,
            locals,
        })
    }

    /// The reference `rest` of `scene` (node rest or bind pose).
    ///
    /// # Errors
    /// `--rest bind` without a bind pose (no skin, a singular inverse bind matrix).
    pub(super) fn measured(
        document: &Document,
        asset: &Asset,
        humanoid: &HumanoidSkeleton,
        scene: &Scene,
        bind: &Result<BindPose, String>,
        rest: RestReference,
    ) -> Result<Reference, Error> {
        match rest {
            RestReference::Node => Reference::new(
                asset,
                humanoid,
                &scene.rest_worlds(None),
                rest_chain_rotations(scene),
                scene.rest.iter().map(|r| r.rotation).collect(),
            ),
            RestReference::Reference | RestReference::Auto => {
                let pose = reference_animation(document).and_then(|a| scene.clips.get(a));
                let Some(pose) = pose else {
                    return Err(Error::unsupported(format!(
                        "{}: --rest reference: the file declares no reference pose (KHR_character_reference_pose); measure the node rest (--rest node) or the bind pose (--rest bind)",
                        document.path().display()
                    )));
                };
                let worlds = scene.pose(Some(pose), 0.0);
                Reference::new(
                    asset,
                    humanoid,
                    &worlds,
                    decomposed_rotations(&worlds),
                    reference_locals(scene, &worlds),
                )
            }
            RestReference::Bind => {
                let bind = bind.as_ref().map_err(|why| {
                    Error::unsupported(format!("{}: --rest bind: {why}", document.path().display()))
                })?;
                Reference::new(
                    asset,
                    humanoid,
                    &bind.worlds,
                    decomposed_rotations(&bind.worlds),
                    reference_locals(scene, &bind.worlds),
                )
            }
        }
    }

    /// Every node's local rest rotation in the T-pose.
    ///
    /// # Errors
    /// The node graph is not a forest (ruled out by the document's validation).
    pub(super) fn t_pose_locals(
        &self,
        document: &Document,
        scene: &Scene,
        turn: Quat,
    ) -> Result<Vec<DQuat>, Error> {
        let corrections = normalize::corrections(&self.skeleton, &self.bones, turn);
        let wanted = self.wanted(&corrections, scene.rest.len());
        bake::t_pose_local_rotations(
            &scene.order,
            &scene.parents,
            &self.locals,
            &wanted,
            UNCHANGED,
        )
        .map_err(|e| Error::unsupported(format!("{}: {e}", document.path().display())))
    }

    /// Each measurable mapped bone's angle (degrees) from its canonical direction.
    pub(super) fn deviations(&self, turn: Quat) -> Vec<(HumanBone, f32)> {
        normalize::deviations(&self.skeleton, &self.bones, turn)
    }

    /// The T-pose world rotation `S_b · W_b(ref)` of each mapped bone's node.
    fn wanted(&self, corrections: &[Quat; HumanBone::COUNT], nodes: usize) -> Vec<Option<DQuat>> {
        let mut wanted = vec![None; nodes];
        for (bone, joint) in self.bones.iter() {
            let Some(&node) = self.nodes.get(joint.index()) else {
                continue;
            };
            let correction = corrections
                .get(bone.index())
                .copied()
                .unwrap_or(Quat::IDENTITY);
            let rest = self.rotations.get(node).copied().unwrap_or(DQuat::IDENTITY);
            if let Some(slot) = wanted.get_mut(node) {
                *slot = Some((correction.as_dquat().normalize() * rest).normalize());
            }
        }
        wanted
    }
}

/// The animation that declares the reference pose (`KHR_character_reference_pose`).
pub(in crate::formats::gltf) fn reference_animation(document: &Document) -> Option<usize> {
    crate::formats::gltf::khr_character::reference_pose_animation(&document.root)
}

/// Each node's world rotation: the rotation part of its world matrix.
fn decomposed_rotations(worlds: &[DMat4]) -> Vec<DQuat> {
    worlds
        .iter()
        .map(|w| w.to_scale_rotation_translation().1.normalize())
        .collect()
}

/// Each node's local rotation in a pose given by world matrices; within 1e-9 rad of its rest
/// rotation, exactly that (so a joint the bind pose does not move is not rewritten).
fn reference_locals(scene: &Scene, worlds: &[DMat4]) -> Vec<DQuat> {
    scene
        .rest
        .iter()
        .enumerate()
        .map(|(node, rest)| {
            let world = worlds.get(node).copied().unwrap_or(DMat4::IDENTITY);
            let parent = scene.parents.get(node).copied().flatten();
            let parent = parent
                .and_then(|p| worlds.get(p).copied())
                .unwrap_or(DMat4::IDENTITY);
            let local = (parent.inverse() * world)
                .to_scale_rotation_translation()
                .1
                .normalize();
            if local.angle_between(rest.rotation) < 1e-9 {
                rest.rotation
            } else {
                local
            }
        })
        .collect()
}

/// Each node's world rotation at rest: the local rest rotations composed along the chain, as
/// engines compose them.
fn rest_chain_rotations(scene: &Scene) -> Vec<DQuat> {
    let locals: Vec<DQuat> = scene.rest.iter().map(|r| r.rotation).collect();
    bake::world_rotations(&scene.order, &scene.parents, &locals).unwrap_or(locals)
}
