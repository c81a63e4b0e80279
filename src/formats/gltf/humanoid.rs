//! A glTF [`Document`] read into the canonical model: every node becomes a joint, each
//! `EXT_skeleton_humanoid` skeleton a bone map, each animation a [`Clip`].
//!
//! # What is checked here (beyond the document layer's structural pass)
//!
//! - The EXT hierarchy rules ([`validate_bone_map`]), `rootNode` an ancestor of (or the same
//!   node as) `hips` (`EXT_ROOT_NOT_ANCESTOR`), humanoid bones that are not joints of any skin
//!   (`EXT_BONE_NOT_JOINT`, a warning: `docs/conventions.md` §5), the extension present but
//!   not listed in `extensionsUsed` (`EXT_NOT_DECLARED`).
//! - The MUSTs on EXT channels: a sampler shared with a plain channel (`EXT_SAMPLER_SHARED`),
//!   a path other than rotation/translation/scale (`EXT_CHANNEL_PATH`), and two channels on the
//!   same bone and path (`EXT_DUPLICATE_CHANNEL`); glTF's own rule that a node and path is
//!   animated once per animation (`GLTF_DUPLICATE_TARGET`).
//! - Keyframes: times finite and strictly increasing, values finite (a NaN stops the read
//!   with the sampler's JSON pointer), accessor types matching the path.
//! - Inverse bind matrices against the node rest pose (`GLTF_BIND_POSE_DIFFERS`, a note: the
//!   node rest stays the reference, research §1.4 A2).
//!
//! EXT channel data are deltas in the canonical bone frames; they become bone tracks of
//! normalized rotations (`n = F · D · F⁻¹`, see [`ext::canonical_from_deltas`]).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use glam::{Mat4, Quat, Vec3};

use super::accessor::{self, ElementType};
use super::document::{Container, Document};
use super::ext_skeleton_humanoid::{self as ext, ChannelBone};
use super::json::{floats, Animation, Index, Node};
use crate::error::{Diagnostics, Error, Location};
use crate::math::num::to_f32;
use crate::math::sample::Interpolation;
use crate::math::trs::Trs;
use crate::model::asset::{Asset, HumanoidSkeleton, ReadOutcome};
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::humanoid::BoneMap;
use crate::model::reference_pose::ReferencePose;
use crate::model::skeleton::{JointId, RawJoint, Skeleton};
use crate::model::validate::validate_bone_map;
use crate::model::Format;
use crate::model::HumanBone;

/// Reads a `.gltf` or `.glb` file (or a VRM as plain glTF) into the canonical model.
///
/// # Errors
/// The file cannot be read or is invalid (see [`Document::open`] and the module docs).
pub fn read_asset(path: &Path) -> Result<ReadOutcome, Error> {
    asset_from_document(&Document::open(path)?)
}

/// The container format of a document (`glb` or `gltf`; the VRM flavours are told apart by
/// `formats::vrm`, which builds on this layer).
pub fn format_of(document: &Document) -> Format {
    match document.container() {
        Container::Glb => Format::Glb,
        Container::Gltf => Format::Gltf,
    }
}

/// Builds the canonical [`Asset`] of a document (see the module docs for what is checked).
///
/// # Errors
/// [`Error::Invalid`] with a JSON pointer: a malformed `EXT_skeleton_humanoid` object, an
/// unknown interpolation, an accessor of the wrong type for its path, keyframes that are not
/// finite or not increasing.
pub fn asset_from_document(document: &Document) -> Result<ReadOutcome, Error> {
    asset_from_document_with(document, Clips::Decode)
}

/// Whether [`asset_from_document_with`] decodes the animations into clips.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Clips {
    /// Every animation becomes a clip (checked as it is decoded).
    #[default]
    Decode,
    /// The animations stay in the document only, unread and unchecked: for a write back to the
    /// glTF family, which copies them from there (a 100 MB animation costs nothing).
    Skip,
}

/// As [`asset_from_document`], decoding the clips or not.
///
/// # Errors
/// As [`asset_from_document`] (with [`Clips::Skip`], nothing about the animations).
pub fn asset_from_document_with(document: &Document, clips: Clips) -> Result<ReadOutcome, Error> {
    let decode_clips = clips == Clips::Decode;
    let mut diagnostics = document.diagnostics().clone();
    let (skeleton, ids) = skeleton(document)?;
    let mut source_indices = vec![0; ids.len()];
    for (node, id) in ids.iter().enumerate() {
        if let Some(slot) = source_indices.get_mut(id.index()) {
            *slot = node;
        }
    }
    let humanoids = humanoids(document, &skeleton, &ids, &mut diagnostics)?;
    super::khr_skeleton_bone::check(&document.root, &mut diagnostics);
    super::khr_character::check(&document.root, &mut diagnostics);
    check_bind_pose(document, &skeleton, &ids, &mut diagnostics);
    let mut clips = Vec::with_capacity(document.root.animations.len());
    let mut reference_pose = None;
    // The animations KHR_character_expression plays are expressions, not clips.
    let expressions = super::khr_character::expression_animations(&document.root);
    for (a, animation) in document.root.animations.iter().enumerate() {
        if expressions.contains(&a) {
            continue;
        }
        // A declared reference pose is not a clip: the first one is the humanoid's reference.
        if let Some(pose_type) = super::khr_character::reference_pose_type(&animation.other) {
            if reference_pose.is_none() {
                let pose = clip(document, a, animation, &ids, &mut diagnostics)?;
                reference_pose = Some(pose_of(&skeleton, &pose, pose_type));
            } else {
                diagnostics.warn(
                    "KHR_REFERENCE_POSE_EXTRA",
                    format!("/animations/{a}"),
                    "a second KHR_character_reference_pose animation: the first is the reference, this one is kept in the file and not read",
                );
            }
            continue;
        }
        if decode_clips {
            clips.push(clip(document, a, animation, &ids, &mut diagnostics)?);
        }
    }
    let (skin_joints, weighted_joints) = skin_joints(document, &ids, &mut diagnostics);
    let mut asset = Asset::new(format_of(document), skeleton, source_indices);
    asset.reference_pose = reference_pose;
    asset.humanoids = humanoids;
    asset.clips = clips;
    asset.skin_joints = skin_joints;
    asset.attachments = attachments(document, &ids, &asset.skin_joints);
    asset.weighted_joints = weighted_joints;
    Ok(ReadOutcome { asset, diagnostics })
}

/// A reference pose from its one-key animation: each joint's rest, with what the animation
/// sets at its first key.
fn pose_of(skeleton: &Skeleton, pose: &Clip, pose_type: String) -> ReferencePose {
    let mut locals = skeleton.rest_locals().to_vec();
    for track in pose.tracks() {
        let TrackTarget::Joint(joint) = track.target() else {
            continue;
        };
        let Some(local) = locals.get_mut(joint.index()) else {
            continue;
        };
        let t = track.start_time();
        match track.property() {
            Property::Translation => {
                local.translation = track.sample_vec3(t).unwrap_or(local.translation)
            }
            Property::Rotation => local.rotation = track.sample_quat(t).unwrap_or(local.rotation),
            Property::Scale => local.scale = track.sample_vec3(t).unwrap_or(local.scale),
            Property::Weights(_) => {}
        }
    }
    ReferencePose { pose_type, locals }
}

/// The nodes that draw a mesh, hold a camera or a light (`KHR_lights_punctual`) or mark a
/// look-at target (`KHR_node_lookat_target`) and are no skin joint: things hung on the tree,
/// not bones.
fn attachments(document: &Document, ids: &[JointId], skin_joints: &[JointId]) -> Vec<JointId> {
    document
        .root
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| {
            node.mesh.is_some()
                || node.camera.is_some()
                || node.extensions.as_ref().is_some_and(|e| {
                    e.contains_key("KHR_lights_punctual")
                        || e.contains_key("KHR_node_lookat_target")
                })
        })
        .filter_map(|(n, _)| ids.get(n).copied())
        .filter(|joint| !skin_joints.contains(joint))
        .collect()
}

/// Every node as a joint (node `i` is joint `ids[i]`).
fn skeleton(document: &Document) -> Result<(Skeleton, Vec<JointId>), Error> {
    let nodes = &document.root.nodes;
    let mut parents: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for child in &node.children {
            if let Some(slot) = parents.get_mut(child.as_usize()) {
                *slot = Some(i);
            }
        }
    }
    let raw = nodes
        .iter()
        .zip(parents)
        .map(|(node, parent)| RawJoint {
            name: node.name.clone().unwrap_or_default(),
            parent,
            rest: rest_of(node),
        })
        .collect();
    Skeleton::from_raw(raw).map_err(|e| {
        Error::invalid(
            document.path(),
            Location::JsonPointer("/nodes".into()),
            e.to_string(),
        )
    })
}

/// A node's local rest transform (its matrix decomposed, or its TRS with glTF's defaults).
/// Rotations are normalized for the math; the document keeps them as written.
pub fn node_rest(node: &Node) -> Trs {
    rest_of(node)
}

fn rest_of(node: &Node) -> Trs {
    if let Some(matrix) = &node.matrix {
        let m = floats(matrix).map(to_f32);
        return Trs::from_mat4(Mat4::from_cols_array(&m));
    }
    let translation = node
        .translation
        .as_ref()
        .map_or(Vec3::ZERO, |t| Vec3::from(floats(t).map(to_f32)));
    let rotation = node.rotation.as_ref().map_or(Quat::IDENTITY, |r| {
        let [x, y, z, w] = floats(r).map(to_f32);
        let q = Quat::from_xyzw(x, y, z, w);
        if q.length_squared() > 0.0 {
            q.normalize()
        } else {
            Quat::IDENTITY
        }
    });
    let scale = node
        .scale
        .as_ref()
        .map_or(Vec3::ONE, |s| Vec3::from(floats(s).map(to_f32)));
    Trs::new(translation, rotation, scale)
}

fn joint_of(ids: &[JointId], node: usize) -> Option<JointId> {
    ids.get(node).copied()
}

/// The `EXT_skeleton_humanoid` skeletons, checked.
fn humanoids(
    document: &Document,
    skeleton: &Skeleton,
    ids: &[JointId],
    diagnostics: &mut Diagnostics,
) -> Result<Vec<HumanoidSkeleton>, Error> {
    let root = &document.root;
    let Some(value) = root.extensions.as_ref().and_then(|e| e.get(ext::NAME)) else {
        return khr_humanoid(document, skeleton, ids, diagnostics);
    };
    if !root.extensions_used.iter().any(|e| e == ext::NAME) {
        diagnostics.warn(
            "EXT_NOT_DECLARED",
            "/extensionsUsed",
            format!("{} is used but not listed in extensionsUsed", ext::NAME),
        );
    }
    let defs = ext::read_root(value, root.nodes.len(), document.path(), diagnostics)?;
    let skin_joints: HashSet<usize> = root
        .skins
        .iter()
        .flat_map(|skin| skin.joints.iter().map(|j| j.as_usize()))
        .collect();
    let mut out = Vec::with_capacity(defs.len());
    for (s, def) in defs.iter().enumerate() {
        let pointer = format!("/extensions/{}/humanoidSkeletons/{s}", ext::NAME);
        let mut bones = BoneMap::new();
        for &(bone, node) in &def.bones {
            bones.set(bone, joint_of(ids, node));
        }
        for mut found in validate_bone_map(skeleton, &bones).iter().cloned() {
            if found.location.is_empty() {
                found.location = pointer.clone();
            }
            diagnostics.push(found.code, found.severity, found.location, found.message);
        }
        let root_joint = joint_of(ids, def.root_node);
        if let (Some(root_joint), Some(hips)) = (root_joint, bones.get(HumanBone::Hips)) {
            if root_joint != hips && !skeleton.is_ancestor(root_joint, hips) {
                diagnostics.error(
                    "EXT_ROOT_NOT_ANCESTOR",
                    format!("{pointer}/rootNode"),
                    format!(
                        "rootNode {} ({:?}) is not an ancestor of the hips node {} ({:?})",
                        def.root_node,
                        skeleton.name(root_joint),
                        def.node(HumanBone::Hips).unwrap_or_default(),
                        skeleton.name(hips)
                    ),
                );
            }
        }
        let not_joints: Vec<&str> = def
            .bones
            .iter()
            .filter(|(_, node)| !skin_joints.contains(node))
            .map(|(bone, _)| bone.as_str())
            .collect();
        if !not_joints.is_empty() {
            let what = if root.skins.is_empty() {
                "the file has no skin".to_owned()
            } else {
                format!("not joints of any skin: {}", shorten(&not_joints, 8))
            };
            diagnostics.warn(
                "EXT_BONE_NOT_JOINT",
                format!("{pointer}/humanoidBones"),
                format!(
                    "{} of {} humanoid bones are not joint nodes ({what}); EXT_skeleton_humanoid says they MUST be. Read anyway: the node rest pose is the reference",
                    not_joints.len(),
                    def.bones.len()
                ),
            );
        }
        out.push(HumanoidSkeleton {
            declared_t_pose: true,
            root: root_joint,
            bones,
        });
    }
    Ok(out)
}

/// A document without EXT_skeleton_humanoid: the humanoid `KHR_character_skeleton_mapping`
/// declares (the VRM humanoid rig), rooted at `KHR_character.rootNode`, taken as it is.
fn khr_humanoid(
    document: &Document,
    skeleton: &Skeleton,
    ids: &[JointId],
    diagnostics: &mut Diagnostics,
) -> Result<Vec<HumanoidSkeleton>, Error> {
    use super::khr_character as khr;
    let root = &document.root;
    let names: Vec<Option<&str>> = root.nodes.iter().map(|n| n.name.as_deref()).collect();
    let Some(declared) = khr::read_root(
        root.extensions.as_ref(),
        &names,
        document.path(),
        diagnostics,
    )?
    else {
        return Ok(Vec::new());
    };
    for name in [khr::CHARACTER, khr::MAPPING] {
        let present = root
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(name));
        if present && !root.extensions_used.iter().any(|e| e == name) {
            diagnostics.warn(
                "EXT_NOT_DECLARED",
                "/extensionsUsed",
                format!("{name} is used but not listed in extensionsUsed"),
            );
        }
    }
    let mut bones = BoneMap::new();
    for &(bone, node) in &declared.bones {
        bones.set(bone, joint_of(ids, node));
    }
    let pointer = format!("/extensions/{}/skeletalRigMappings", khr::MAPPING);
    for mut found in validate_bone_map(skeleton, &bones).iter().cloned() {
        if found.location.is_empty() {
            found.location = pointer.clone();
        }
        diagnostics.push(found.code, found.severity, found.location, found.message);
    }
    diagnostics.info(
        "KHR_MAPPING_READ",
        pointer,
        format!(
            "the humanoid is the file's {} rig {:?}: {} bones, taken as declared",
            khr::MAPPING,
            declared.rig,
            declared.bones.len()
        ),
    );
    Ok(vec![HumanoidSkeleton {
        // The drafts say nothing of the rest pose's shape (KHR_character_reference_pose does):
        // the T-pose corrections are measured.
        declared_t_pose: false,
        root: declared.root_node.and_then(|n| joint_of(ids, n)),
        bones,
    }])
}

fn shorten(items: &[&str], shown: usize) -> String {
    let mut text = items
        .iter()
        .take(shown)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > shown {
        text.push_str(&format!(" and {} more", items.len() - shown));
    }
    text
}

/// The joints of every skin, and those some vertex is weighted to (read from the `JOINTS_n` /
/// `WEIGHTS_n` of the primitives each skinned node draws), both sorted. An accessor that
/// cannot be read is noted and its primitive skipped.
fn skin_joints(
    document: &Document,
    ids: &[JointId],
    diagnostics: &mut Diagnostics,
) -> (Vec<JointId>, Vec<JointId>) {
    let root = &document.root;
    let mut joints: Vec<JointId> = root
        .skins
        .iter()
        .flat_map(|s| s.joints.iter())
        .filter_map(|n| joint_of(ids, n.as_usize()))
        .collect();
    joints.sort();
    joints.dedup();
    let mut weighted = vec![false; ids.len()];
    for node in root.nodes.iter() {
        let (Some(skin), Some(mesh)) = (node.skin, node.mesh) else {
            continue;
        };
        let (Some(skin), Some(mesh)) = (
            root.skins.get(skin.as_usize()),
            root.meshes.get(mesh.as_usize()),
        ) else {
            continue;
        };
        for primitive in &mesh.primitives {
            for set in 0..8 {
                let (Some(j), Some(w)) = (
                    primitive.attributes.get(&format!("JOINTS_{set}")),
                    primitive.attributes.get(&format!("WEIGHTS_{set}")),
                ) else {
                    break;
                };
                let (js, ws) = match (
                    accessor::read_u32(document, j),
                    accessor::read_f32(document, w),
                ) {
                    (Ok(js), Ok(ws)) => (js, ws),
                    (Err(e), _) | (_, Err(e)) if e.code() == "GLTF_ACCESSOR_NOT_FINITE" => {
                        // NaN or infinite weights: invalid glTF (the Khronos validator's
                        // ACCESSOR_INVALID_FLOAT), so an error, and validate fails.
                        let at = match e.location() {
                            Some(crate::error::Location::JsonPointer(p)) => p.clone(),
                            _ => format!("/accessors/{w}"),
                        };
                        diagnostics.error("GLTF_ACCESSOR_NOT_FINITE", at, e.to_string());
                        break;
                    }
                    (Err(e), _) | (_, Err(e)) => {
                        diagnostics.warn(
                            "GLTF_SKIN_WEIGHTS",
                            format!("/accessors/{j}"),
                            e.to_string(),
                        );
                        break;
                    }
                };
                for (index, weight) in js.iter().zip(&ws) {
                    if *weight <= 0.0 {
                        continue;
                    }
                    let node = skin.joints.get(*index as usize).map(|n| n.as_usize());
                    if let Some(joint) = node.and_then(|n| joint_of(ids, n)) {
                        if let Some(slot) = weighted.get_mut(joint.index()) {
                            *slot = true;
                        }
                    }
                }
            }
        }
    }
    let weighted = weighted
        .iter()
        .enumerate()
        .filter(|(_, w)| **w)
        .filter_map(|(i, _)| JointId::from_index(i))
        .collect();
    (joints, weighted)
}

/// Compares each skin's inverse bind matrices with the node rest pose: `rest_world_j · IBM_j`
/// must be one constant matrix per skin (the bind-shape matrix) when the skin was bound in the
/// rest pose. Disagreement is a note, not an error: the node rest is the reference.
fn check_bind_pose(
    document: &Document,
    skeleton: &Skeleton,
    ids: &[JointId],
    diagnostics: &mut Diagnostics,
) {
    for (s, skin) in document.root.skins.iter().enumerate() {
        let Some(ibm_index) = skin.inverse_bind_matrices else {
            continue;
        };
        let pointer = format!("/skins/{s}/inverseBindMatrices");
        let matrices = match accessor::read_f32(document, ibm_index) {
            Ok(values) => values,
            Err(e) => {
                diagnostics.warn("GLTF_SKIN_IBM", pointer, e.to_string());
                continue;
            }
        };
        if matrices.len() < skin.joints.len().saturating_mul(16) {
            diagnostics.warn(
                "GLTF_SKIN_IBM",
                pointer,
                format!(
                    "{} matrices for {} joints",
                    matrices.len() / 16,
                    skin.joints.len()
                ),
            );
            continue;
        }
        let mut reference: Option<Trs> = None;
        let (mut worst_angle, mut worst_joint, mut differing) = (0f32, 0usize, 0usize);
        for (j, (node, m)) in skin
            .joints
            .iter()
            .zip(matrices.chunks_exact(16))
            .enumerate()
        {
            let Some(joint) = joint_of(ids, node.as_usize()) else {
                continue;
            };
            let Ok(m) = <[f32; 16]>::try_from(m) else {
                continue;
            };
            let shape =
                Trs::from_mat4(skeleton.rest_world(joint).to_mat4() * Mat4::from_cols_array(&m));
            if !shape.is_finite() {
                continue;
            }
            let reference = *reference.get_or_insert(shape);
            let angle = reference
                .rotation
                .angle_between(shape.rotation)
                .to_degrees();
            if angle > 0.5 {
                differing += 1;
                if angle > worst_angle {
                    worst_angle = angle;
                    worst_joint = j;
                }
            }
        }
        if differing > 0 {
            let name = skin
                .joints
                .get(worst_joint)
                .and_then(|n| joint_of(ids, n.as_usize()))
                .map(|j| skeleton.name(j).to_owned())
                .unwrap_or_default();
            diagnostics.info(
                "GLTF_BIND_POSE_DIFFERS",
                pointer,
                format!(
                    "the inverse bind matrices describe another pose than the nodes' rest: {differing} of {} joints turned by up to {worst_angle:.1}° ({name:?}); the node rest pose is the reference",
                    skin.joints.len()
                ),
            );
        }
    }
}

/// One animation as a clip.
fn clip(
    document: &Document,
    a: usize,
    animation: &Animation,
    ids: &[JointId],
    diagnostics: &mut Diagnostics,
) -> Result<Clip, Error> {
    let file = document.path();
    let mut clip = Clip::new(
        animation
            .name
            .clone()
            .unwrap_or_else(|| format!("animation {a}")),
    );
    let mut ext_samplers: HashSet<usize> = HashSet::new();
    let mut plain_samplers: HashSet<usize> = HashSet::new();
    let mut seen_bones: HashMap<(HumanBone, String), usize> = HashMap::new();
    let mut seen_nodes: HashMap<(usize, String), usize> = HashMap::new();
    for (c, channel) in animation.channels.iter().enumerate() {
        let pointer = format!("/animations/{a}/channels/{c}");
        let target = &channel.target;
        let path = target.path.as_str();
        let s = channel.sampler.as_usize();
        let bone = match ext::channel_bone(target.extensions.as_ref()) {
            ChannelBone::None => None,
            ChannelBone::Bone(bone) => Some(bone),
            ChannelBone::Invalid(message) => {
                diagnostics.error(
                    "EXT_CHANNEL_BONE",
                    format!("{pointer}/target/extensions/{}", ext::NAME),
                    format!("{message}; channel not read"),
                );
                continue;
            }
        };
        let target = match (bone, target.node) {
            (Some(bone), node) => {
                ext_samplers.insert(s);
                if node.is_some() {
                    diagnostics.warn(
                        "EXT_CHANNEL_WITH_NODE",
                        format!("{pointer}/target/node"),
                        format!("the channel targets both a node and the humanoid bone {bone}: read as an EXT_skeleton_humanoid delta (readers without the extension will apply it to the node as an absolute value)"),
                    );
                }
                if !matches!(path, "rotation" | "translation" | "scale") {
                    diagnostics.error(
                        "EXT_CHANNEL_PATH",
                        format!("{pointer}/target/path"),
                        format!("an EXT_skeleton_humanoid channel's path MUST be rotation, translation or scale, found {path:?}; channel not read"),
                    );
                    continue;
                }
                if let Some(first) = seen_bones.insert((bone, path.to_owned()), c) {
                    diagnostics.error(
                        "EXT_DUPLICATE_CHANNEL",
                        pointer.clone(),
                        format!("channels {first} and {c} both animate the {path} of {bone}"),
                    );
                }
                TrackTarget::Bone(bone)
            }
            (None, Some(node)) => {
                plain_samplers.insert(s);
                if let Some(first) = seen_nodes.insert((node.as_usize(), path.to_owned()), c) {
                    diagnostics.error(
                        "GLTF_DUPLICATE_TARGET",
                        pointer.clone(),
                        format!("channels {first} and {c} both animate the {path} of node {node}"),
                    );
                }
                match joint_of(ids, node.as_usize()) {
                    Some(joint) => TrackTarget::Joint(joint),
                    None => continue,
                }
            }
            (None, None) => {
                let by = target
                    .extensions
                    .as_ref()
                    .and_then(|e| e.keys().next().cloned())
                    .unwrap_or_else(|| "nothing".into());
                diagnostics.info(
                    "CHANNEL_NOT_READ",
                    pointer.clone(),
                    format!("the channel has no node and is targeted by {by}: not read into the clip (kept as is by glTF-to-glTF conversion)"),
                );
                continue;
            }
        };
        let property = match path {
            "translation" => Property::Translation,
            "rotation" => Property::Rotation,
            "scale" => Property::Scale,
            "weights" => Property::Weights(0),
            other => {
                diagnostics.info(
                    "CHANNEL_NOT_READ",
                    format!("{pointer}/target/path"),
                    format!("path {other:?} is not a node property: not read into the clip (kept as is by glTF-to-glTF conversion)"),
                );
                continue;
            }
        };
        let Some(sampler) = animation.samplers.get(s) else {
            continue;
        };
        let sampler_pointer = format!("/animations/{a}/samplers/{s}");
        let invalid =
            |at: String, message: String| Error::invalid(file, Location::JsonPointer(at), message);
        let interpolation = match sampler.interpolation.as_deref() {
            None => Interpolation::Linear,
            Some(text) => text
                .parse::<Interpolation>()
                .map_err(|e| invalid(format!("{sampler_pointer}/interpolation"), e.to_string()))?,
        };
        expect_type(
            document,
            sampler.input,
            &[ElementType::Scalar],
            &format!("{sampler_pointer}/input"),
            "key times",
        )?;
        let expected = match property {
            Property::Rotation => ElementType::Vec4,
            Property::Translation | Property::Scale => ElementType::Vec3,
            Property::Weights(_) => ElementType::Scalar,
        };
        expect_type(
            document,
            sampler.output,
            &[expected],
            &format!("{sampler_pointer}/output"),
            path,
        )?;
        let times = accessor::read_f32(document, sampler.input)?;
        let mut values = accessor::read_f32(document, sampler.output)?;
        let property = match property {
            Property::Weights(_) => {
                let per_key = times.len().saturating_mul(interpolation.elements_per_key());
                if per_key == 0 || values.len() % per_key != 0 {
                    return Err(invalid(
                        format!("{sampler_pointer}/output"),
                        format!("{} morph weights cannot be split evenly over {} keys ({interpolation})", values.len(), times.len()),
                    ));
                }
                Property::Weights(values.len() / per_key)
            }
            other => other,
        };
        if property == Property::Rotation {
            unit_rotations(
                &mut values,
                interpolation,
                sampler.output,
                file,
                &format!("{sampler_pointer}/output"),
                diagnostics,
            )?;
        }
        if let TrackTarget::Bone(bone) = target {
            values = ext::canonical_from_deltas(bone, property, interpolation, &values)
                .map_err(|m| invalid(pointer.clone(), m))?;
        }
        let track = Track::new(target, property, interpolation, times, values).map_err(|e| {
            invalid(
                sampler_pointer.clone(),
                format!("channel {c} ({path}): {e}"),
            )
        })?;
        clip.add_track(track);
    }
    for s in ext_samplers.intersection(&plain_samplers) {
        diagnostics.error(
            "EXT_SAMPLER_SHARED",
            format!("/animations/{a}/samplers/{s}"),
            "the sampler is used by an EXT_skeleton_humanoid channel and by a plain channel; the spec says it MUST NOT be (EXT data are deltas, plain data absolute values)",
        );
    }
    Ok(clip)
}

/// How far a rotation key's length may be from 1 and still be a rounded unit quaternion
/// (normalised, with `ANIMATION_ROTATION_NOT_UNIT`); beyond it the key is garbage (a 1e30
/// component overflows 32-bit products downstream) and the file is refused.
pub const ROTATION_KEY_TOLERANCE: f64 = 0.1;

/// Checks and normalises the rotation keys of a sampler's output (for CUBICSPLINE only the
/// values, not the tangents): a key of length 1 ± 1e-3 is kept, one within
/// [`ROTATION_KEY_TOLERANCE`] is normalised with a warning, anything else is refused at the
/// accessor and key.
fn unit_rotations(
    values: &mut [f32],
    interpolation: Interpolation,
    accessor: Index<super::json::Accessor>,
    file: &std::path::Path,
    pointer: &str,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let per_key = interpolation.elements_per_key();
    let value_slot = per_key / 2; // CUBICSPLINE: in-tangent, value, out-tangent
    let mut normalised = 0usize;
    let mut first = None;
    for (key, element) in values.chunks_exact_mut(4 * per_key).enumerate() {
        let Some(q) = element.get_mut(4 * value_slot..4 * value_slot + 4) else {
            continue;
        };
        let length = q
            .iter()
            .map(|c| f64::from(*c) * f64::from(*c))
            .sum::<f64>()
            .sqrt();
        if (length - 1.0).abs() <= 1e-3 {
            continue;
        }
        if !length.is_finite() || (length - 1.0).abs() > ROTATION_KEY_TOLERANCE {
            return Err(Error::invalid_coded(
                "ANIMATION_ROTATION_NOT_UNIT",
                file,
                Location::JsonPointer(pointer.to_owned()),
                format!(
                    "accessor {accessor}: rotation key {key} is [{:?}, {:?}, {:?}, {:?}], of length {length:e}: rotation keys must be unit quaternions (glTF 2.0 §3.11)",
                    q[0], q[1], q[2], q[3]
                ),
            ));
        }
        for c in q.iter_mut() {
            *c = crate::math::num::to_f32(f64::from(*c) / length);
        }
        normalised += 1;
        first.get_or_insert((key, length));
    }
    if let Some((key, length)) = first {
        diagnostics.warn(
            "ANIMATION_ROTATION_NOT_UNIT",
            pointer.to_owned(),
            format!(
                "accessor {accessor}: {normalised} rotation key(s) are not unit quaternions (key {key} has length {length}): normalised; the Khronos validator reports them"
            ),
        );
    }
    Ok(())
}

fn expect_type(
    document: &Document,
    index: Index<super::json::Accessor>,
    allowed: &[ElementType],
    pointer: &str,
    what: &str,
) -> Result<(), Error> {
    let info = accessor::info(document, index)?;
    if allowed.contains(&info.element) {
        return Ok(());
    }
    Err(Error::invalid(
        document.path(),
        Location::JsonPointer(pointer.to_owned()),
        format!(
            "accessor {index} holds {} elements; {what} need {}",
            info.element,
            allowed
                .iter()
                .map(|e| e.as_str())
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    ))
}
