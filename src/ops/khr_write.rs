//! The Khronos avatar drafts (glTF pull request #2512) written on a glTF-family output:
//! `KHR_character`, `KHR_character_skeleton_mapping`, a `KHR_character_reference_pose`
//! animation and `KHR_node_lookat_target` nodes.
//!
//! What is written, from the character's first humanoid:
//!
//! | extension | what |
//! |---|---|
//! | `KHR_character` | `rootNode`: the topmost ancestor of the hips |
//! | `KHR_character_skeleton_mapping` | the VRM humanoid rig: by default keyed by [`VRM_HUMANOID_URI`] as `{role: {node, name}}` (the newest draft; every bone of the VRM 1.0 humanoid), or as the pull request's `{"vrmHumanoid": {role: node}}` ([`MappingForm::NodeIndex`]; without the eyes and the jaw, which the `vrmHumanoid` convention leaves to expressions, reported) |
//! | `KHR_character_reference_pose` | one animation, one STEP key per channel at time 0, holding every bone's translation, rotation and scale in the canonical T-pose (`poseType` `TPose`): the rest where the format declares a T-pose rest, else the normaliser's T-pose ([`crate::pose::normalize::t_pose_locals`]), measured in the file's own reference pose where it declares one |
//! | `KHR_node_lookat_target` | a node per look-at socket (a `look_at` target, a VRM gaze origin), a child of the socket's joint with its offset; `hint` is the socket's kind tag |
//! | `KHR_skeleton_bone` | on every bone where the output meets its rules ([`crate::formats::gltf::khr_skeleton_bone::annotate`]), else left off, saying why |
//! | `KHR_character_expression`, visibility hints | a VRM's expressions and first-person annotations ([`crate::formats::vrm::khr_expression::vrm_to_khr`], called by the writer before `--strip-vrm` takes the VRM extension away) |
//!
//! A document that already has `KHR_character` keeps its own (nothing is added); one that
//! already has a reference pose keeps it. Every addition is listed in `extensionsUsed`, never in
//! `extensionsRequired`: readers that do not know the drafts read the file as before.
//!
//! ```
//! use humanoid::ops::khr_write::{MappingForm, VRM_HUMANOID_URI};
//! assert!(humanoid::formats::gltf::khr_character::is_vrm_humanoid_rig(VRM_HUMANOID_URI));
//! assert_eq!(MappingForm::default(), MappingForm::Uri);
//! ```

use serde_json::{json, Map, Value};

use crate::error::{Diagnostics, Error};
use crate::formats::gltf::json::{Accessor, Animation, BufferView, Node, Ordered};
use crate::formats::gltf::khr_character as khr;
use crate::formats::gltf::{self, Document};
use crate::math::trs::Trs;
use crate::model::reference_pose::T_POSE;
use crate::model::socket::SocketKind;
use crate::model::{Character, HumanBone, JointId};
use crate::pose::normalize;

/// The VRM 1.0 humanoid specification, the rig key of the URI-keyed mapping.
pub const VRM_HUMANOID_URI: &str =
    "https://github.com/vrm-c/vrm-specification/blob/master/specification/VRMC_vrm-1.0/humanoid.md";

/// The node extension marking a look-at target.
pub const LOOKAT_TARGET: &str = khr::LOOKAT_TARGET;

/// The wire form of `KHR_character_skeleton_mapping` written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MappingForm {
    /// `{"<VRM humanoid URI>": {"hips": {"node": 3, "name": "Hips"}, …}}` (the newest draft).
    #[default]
    Uri,
    /// `{"vrmHumanoid": {"hips": 3, …}}` (the pull request's form).
    NodeIndex,
}

/// Whether a glTF-family write adds the avatar drafts (`--khr-character`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KhrCharacter {
    /// Not added: a plain glTF (EXT_skeleton_humanoid declares the humanoid), which every
    /// client reads as it is; a glTF-family input's own drafts are kept as they were.
    #[default]
    Auto,
    /// Never added.
    Off,
    /// Always added, in this mapping form.
    On(MappingForm),
}

impl KhrCharacter {
    /// The form to write, or `None` when nothing is added (the drafts are opt-in: a draft
    /// extension is not what three.js, Blender or a validator expect by default).
    pub fn form(self) -> Option<MappingForm> {
        match self {
            KhrCharacter::On(form) => Some(form),
            KhrCharacter::Auto | KhrCharacter::Off => None,
        }
    }
}

/// Adds the drafts to `document`, the output as the VRM adapter prepared it: for a document
/// the character was read from (`carried`), the humanoid, rest and sockets are read again from
/// it (a migration to VRM 1.0 moves nodes); for one built from the model, the model's are used
/// (joint `i` is node `i`: a mapped rig's measured T-pose, not a T-pose its declaration claims).
///
/// # Errors
/// As [`add`]; the prepared document cannot be read.
pub fn add_prepared(
    document: &mut Document,
    character: &Character,
    carried: bool,
    form: MappingForm,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    if !carried {
        return add(
            document,
            character,
            &|joint| joint.index(),
            form,
            diagnostics,
        );
    }
    let read = crate::formats::vrm::asset_from_document_with(
        document,
        crate::formats::gltf::humanoid::Clips::Skip,
    )?;
    let mut prepared = Character::new(read.asset);
    if prepared.asset.humanoids.is_empty() {
        // A humanoid mapped for this write (`--map`, `map -o`) that the document does not
        // declare yet: the same nodes.
        let by_node: std::collections::HashMap<usize, JointId> = prepared
            .asset
            .skeleton
            .joints()
            .map(|j| (prepared.asset.source_index(j), j))
            .collect();
        for humanoid in &character.asset.humanoids {
            let mut bones = crate::model::BoneMap::new();
            for (bone, joint) in humanoid.bones.iter() {
                bones.set(
                    bone,
                    by_node.get(&character.asset.source_index(joint)).copied(),
                );
            }
            prepared
                .asset
                .humanoids
                .push(crate::model::HumanoidSkeleton {
                    root: humanoid
                        .root
                        .and_then(|r| by_node.get(&character.asset.source_index(r)).copied()),
                    bones,
                    declared_t_pose: humanoid.declared_t_pose,
                });
        }
    }
    let mut ignored = Diagnostics::new();
    prepared.sockets = crate::ops::sockets::sockets_of(document, &prepared.asset, &mut ignored)
        .unwrap_or_default();
    let asset = &prepared.asset;
    let node_of = |joint: JointId| asset.source_index(joint);
    add(document, &prepared, &node_of, form, diagnostics)
}

/// Adds the drafts to `document`, whose node `node_of(joint)` is each joint of `character`.
///
/// # Errors
/// The new JSON does not fit the glTF model (not expected), too many buffers.
pub fn add(
    document: &mut Document,
    character: &Character,
    node_of: &dyn Fn(JointId) -> usize,
    form: MappingForm,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let asset = &character.asset;
    let has = |document: &Document, name: &str| {
        document
            .root
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(name))
    };
    if has(document, khr::CHARACTER) {
        diagnostics.info(
            "KHR_CHARACTER_KEPT",
            format!("/extensions/{}", khr::CHARACTER),
            "the file already declares KHR_character: it is kept as it is, nothing is added",
        );
        return Ok(());
    }
    let Some(humanoid) = asset.humanoids.first() else {
        diagnostics.warn(
            "KHR_CHARACTER_NOT_WRITTEN",
            "",
            "KHR_character is not written: the character has no humanoid (map its rig with --map auto or --map TABLE)",
        );
        return Ok(());
    };
    let Some(hips) = humanoid.bones.get(HumanBone::Hips) else {
        diagnostics.warn(
            "KHR_CHARACTER_NOT_WRITTEN",
            "",
            "KHR_character is not written: the humanoid has no hips",
        );
        return Ok(());
    };
    let root_joint = asset.skeleton.ancestors(hips).last().unwrap_or(hips);
    let node_name = |node: usize| -> Option<String> {
        document.root.nodes.get(node).and_then(|n| n.name.clone())
    };
    let mut rig = Map::new();
    let mut left_out: Vec<&str> = Vec::new();
    for (bone, joint) in humanoid.bones.iter() {
        // The `vrmHumanoid` convention leaves the eyes and the jaw to KHR_character_expression;
        // the VRM 1.0 humanoid specification the URI names has them.
        if form == MappingForm::NodeIndex
            && matches!(
                bone,
                HumanBone::LeftEye | HumanBone::RightEye | HumanBone::Jaw
            )
        {
            left_out.push(bone.as_str());
            continue;
        }
        let node = node_of(joint);
        let value = match form {
            MappingForm::Uri => match node_name(node) {
                Some(name) => json!({"node": node, "name": name}),
                None => json!({"node": node}),
            },
            MappingForm::NodeIndex => json!(node),
        };
        rig.insert(bone.as_str().to_owned(), value);
    }
    let key = match form {
        MappingForm::Uri => VRM_HUMANOID_URI,
        MappingForm::NodeIndex => "vrmHumanoid",
    };
    let bones = rig.len();
    if !left_out.is_empty() {
        diagnostics.info(
            "KHR_MAPPING_BONES_LEFT_OUT",
            format!("/extensions/{}/skeletalRigMappings/vrmHumanoid", khr::MAPPING),
            format!(
                "the vrmHumanoid rig has no {} (its convention leaves them to expressions); the URI-keyed form (--khr-character=uri) keeps them",
                left_out.join(", ")
            ),
        );
    }
    let extensions = document.root.extensions.get_or_insert_with(Map::new);
    extensions.insert(
        khr::CHARACTER.to_owned(),
        json!({"rootNode": node_of(root_joint)}),
    );
    extensions.insert(
        khr::MAPPING.to_owned(),
        json!({"skeletalRigMappings": {key: Value::Object(rig)}}),
    );
    document.root.use_extension(khr::CHARACTER);
    document.root.use_extension(khr::MAPPING);
    let has_pose = khr::reference_pose_animation(&document.root).is_some();
    if !has_pose {
        add_reference_pose(document, character, root_joint, node_of)?;
    }
    let targets = add_lookat_targets(document, character, node_of)?;
    add_skeleton_bones(document, diagnostics);
    diagnostics.info(
        "KHR_CHARACTER_WRITTEN",
        format!("/extensions/{}", khr::MAPPING),
        format!(
            "KHR_character (root node {}), KHR_character_skeleton_mapping ({bones} bones, rig {key:?}){}{}",
            node_of(root_joint),
            if has_pose {
                ", the file's own reference pose kept"
            } else {
                ", KHR_character_reference_pose (the T-pose)"
            },
            if targets == 0 {
                String::new()
            } else {
                format!(", {targets} KHR_node_lookat_target node(s)")
            }
        ),
    );
    Ok(())
}

/// `KHR_skeleton_bone` on every bone where the output can meet its rules (skinned mesh nodes
/// moved under the skeleton root where that changes nothing drawn); left off, with the reason,
/// where it cannot, and on a file without skins (it has no bones).
fn add_skeleton_bones(document: &mut Document, diagnostics: &mut Diagnostics) {
    use crate::formats::gltf::khr_skeleton_bone as bone;
    if document.root.skins.is_empty() {
        diagnostics.info(
            "KHR_SKELETON_BONE_LEFT_OFF",
            "/skins",
            "KHR_skeleton_bone is not written: the file has no skin, so no bones",
        );
        return;
    }
    if document
        .root
        .extensions_used
        .iter()
        .any(|e| e == bone::NAME)
    {
        return;
    }
    match bone::annotate(&mut document.root) {
        Ok(done) => diagnostics.info(
            "KHR_SKELETON_BONE_WRITTEN",
            "",
            format!(
                "KHR_skeleton_bone on {} bones ({} lengths, {} connected){}{}",
                done.bones,
                done.lengths + done.lengths_kept,
                done.connected,
                if done.reparented.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} skinned mesh node(s) moved under the skeleton root (glTF ignores their own transform: nothing drawn moves)",
                        done.reparented.len()
                    )
                },
                if done.skeletons_set.is_empty() {
                    String::new()
                } else {
                    format!("; skin.skeleton set on {} skin(s)", done.skeletons_set.len())
                }
            ),
        ),
        Err(why) => diagnostics.info(
            "KHR_SKELETON_BONE_LEFT_OFF",
            "",
            format!("KHR_skeleton_bone is not written: {why}"),
        ),
    }
}

/// The T-pose locals of the character's first humanoid (see the module docs).
fn t_pose(character: &Character) -> Vec<Trs> {
    let asset = &character.asset;
    let Some(humanoid) = asset.humanoids.first() else {
        return asset.skeleton.rest_locals().to_vec();
    };
    if let Some(pose) = asset
        .reference_pose
        .as_ref()
        .filter(|p| p.pose_type == T_POSE && p.locals.len() == asset.skeleton.len())
    {
        return pose.locals.clone();
    }
    let posed = asset
        .reference_pose
        .as_ref()
        .and_then(|p| p.skeleton(&asset.skeleton));
    let measured_in = posed.as_ref().unwrap_or(&asset.skeleton);
    let turn = normalize::measured_turn(measured_in, &humanoid.bones)
        .unwrap_or_else(|| normalize::declared_turn(asset.facing));
    normalize::t_pose_locals(
        &asset.skeleton,
        &humanoid.bones,
        turn,
        posed.as_ref(),
        humanoid.declared_t_pose,
    )
}

/// Appends the reference-pose animation: every joint under `root` that is a bone (no
/// attachment), one STEP key at time 0 per path.
fn add_reference_pose(
    document: &mut Document,
    character: &Character,
    root: JointId,
    node_of: &dyn Fn(JointId) -> usize,
) -> Result<(), Error> {
    let asset = &character.asset;
    let locals = t_pose(character);
    let joints: Vec<JointId> = asset
        .skeleton
        .joints()
        .filter(|&j| j == root || asset.skeleton.is_ancestor(root, j))
        .filter(|j| !asset.attachments.contains(j))
        .collect();
    let mut bin: Vec<u8> = Vec::new();
    let mut accessors: Vec<Value> = Vec::new();
    let mut samplers: Vec<Value> = Vec::new();
    let mut channels: Vec<Value> = Vec::new();
    let buffer = document.root.buffers.len();
    let view = document.root.buffer_views.len();
    let base = document.root.accessors.len();
    let mut push = |values: &[f32], kind: &str, min_max: bool| -> usize {
        let offset = bin.len();
        for v in values {
            bin.extend_from_slice(&v.to_le_bytes());
        }
        let mut accessor = json!({
            "bufferView": view, "byteOffset": offset, "componentType": 5126,
            "count": 1, "type": kind,
        });
        if min_max {
            accessor["min"] = json!(values);
            accessor["max"] = json!(values);
        }
        accessors.push(accessor);
        base + accessors.len() - 1
    };
    let time = push(&[0.0], "SCALAR", true);
    for joint in joints {
        let Some(local) = locals.get(joint.index()) else {
            continue;
        };
        let node = node_of(joint);
        let q = local.rotation;
        for (path, values, kind) in [
            ("translation", local.translation.to_array().to_vec(), "VEC3"),
            ("rotation", vec![q.x, q.y, q.z, q.w], "VEC4"),
            ("scale", local.scale.to_array().to_vec(), "VEC3"),
        ] {
            let output = push(&values, kind, false);
            channels
                .push(json!({"sampler": samplers.len(), "target": {"node": node, "path": path}}));
            samplers.push(json!({"input": time, "output": output, "interpolation": "STEP"}));
        }
    }
    let length = bin.len();
    let fit = |e: serde_json::Error| {
        Error::unsupported(format!(
            "the reference pose does not fit the glTF model: {e}"
        ))
    };
    let view_json: Ordered<BufferView> = serde_json::from_value(
        json!({"buffer": buffer, "byteOffset": 0, "byteLength": length, "name": "reference pose"}),
    )
    .map_err(fit)?;
    let accessors: Vec<Ordered<Accessor>> = accessors
        .into_iter()
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()
        .map_err(fit)?;
    let animation: Ordered<Animation> = serde_json::from_value(json!({
        "name": "reference pose (T-pose)",
        "channels": channels,
        "samplers": samplers,
        "extensions": {khr::REFERENCE_POSE: {"poseType": T_POSE}},
    }))
    .map_err(fit)?;
    document.push_buffer(bin)?;
    let root = &mut document.root;
    root.buffer_views.push(view_json);
    root.accessors.extend(accessors);
    root.animations.push(animation);
    document.root.use_extension(khr::REFERENCE_POSE);
    Ok(())
}

/// Appends a `KHR_node_lookat_target` node for each look-at socket (a target or a gaze origin)
/// of the character, or the VRM gaze origin where no socket is one; returns how many.
fn add_lookat_targets(
    document: &mut Document,
    character: &Character,
    node_of: &dyn Fn(JointId) -> usize,
) -> Result<usize, Error> {
    let mut sockets: Vec<crate::model::Socket> = character
        .sockets
        .iter()
        .filter(|s| {
            matches!(
                s.kind,
                Some(SocketKind::LookAtTarget | SocketKind::GazeOrigin)
            )
        })
        .cloned()
        .collect();
    if !sockets
        .iter()
        .any(|s| s.kind == Some(SocketKind::GazeOrigin))
    {
        sockets.extend(crate::formats::vrm::gaze::socket(&character.asset));
    }
    let mut added = 0;
    for socket in sockets {
        let hint = socket
            .kind
            .map_or(SocketKind::LookAtTarget.tag(), SocketKind::tag);
        let (t, q, s) = (socket.translation, socket.rotation, socket.scale);
        let node: Ordered<Node> = serde_json::from_value(json!({
            "name": socket.name,
            "translation": t.to_array(),
            "rotation": [q.x + 0.0, q.y + 0.0, q.z + 0.0, q.w + 0.0],
            "scale": s.to_array(),
            "extensions": {LOOKAT_TARGET: {"hint": hint}},
        }))
        .map_err(|e| Error::unsupported(format!("a look-at node does not fit glTF: {e}")))?;
        let parent = socket.parent.map(node_of);
        if parent.is_some_and(|p| p >= document.root.nodes.len()) {
            continue;
        }
        let index = document.root.nodes.len();
        let child =
            gltf::json::Index::try_from(index).map_err(|_| Error::unsupported("too many nodes"))?;
        document.root.nodes.push(node);
        match parent.and_then(|p| document.root.nodes.get_mut(p)) {
            Some(parent) => parent.children.push(child),
            None => {
                let scene = document.root.scene.map_or(0, |s| s.as_usize());
                if let Some(scene) = document.root.scenes.get_mut(scene) {
                    scene.nodes.push(child);
                }
            }
        }
        added += 1;
    }
    if added > 0 {
        document.root.use_extension(LOOKAT_TARGET);
    }
    Ok(added)
}
