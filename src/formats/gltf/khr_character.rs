//! `KHR_character` and `KHR_character_skeleton_mapping` (the Khronos avatar drafts, glTF pull
//! request #2512) read as a declared humanoid: `KHR_character.rootNode` is the root, and the
//! skeleton mapping of the VRM humanoid rig names the bones.
//!
//! The mapping's wire form changed while the draft was written; every form in circulation is
//! read (research `extensions_and_landscape.md` §6):
//!
//! | form | a rig's value |
//! |---|---|
//! | URI-keyed (newest) | `{ "hips": { "node": 3, "name": "Hips" } }` |
//! | node index (pull request) | `{ "hips": 3 }` |
//! | node name (UnityGLTF) | `{ "hips": "Hips" }` or `{ "Hips": "hips" }` (either direction) |
//! | weighted (2025) | `{ "Hips": [{ "target": "hips", "weight": 1.0 }] }` (each target's heaviest) |
//!
//! The VRM humanoid rig is the key `vrmHumanoid`, or a URI ending in
//! `VRMC_vrm-1.0/humanoid.md` at any revision; other rigs are kept in the file, not read. The
//! declared mapping is taken as it is: bones it omits stay unmapped.
//!
//! ```
//! use humanoid::formats::gltf::khr_character::is_vrm_humanoid_rig;
//! assert!(is_vrm_humanoid_rig("vrmHumanoid"));
//! assert!(is_vrm_humanoid_rig(
//!     "https://github.com/vrm-c/vrm-specification/blob/282ab9d/specification/VRMC_vrm-1.0/humanoid.md"
//! ));
//! assert!(!is_vrm_humanoid_rig("unityHumanoid"));
//! ```

use serde_json::{Map, Value};

use crate::error::{Diagnostics, Error, Location};
use crate::model::HumanBone;

/// The root extension naming the character's root node.
pub const CHARACTER: &str = "KHR_character";
/// The root extension mapping the skeleton onto known rigs.
pub const MAPPING: &str = "KHR_character_skeleton_mapping";

/// What the two extensions declare.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declared {
    /// `KHR_character.rootNode`.
    pub root_node: Option<usize>,
    /// The VRM humanoid rig's bones: (bone, node).
    pub bones: Vec<(HumanBone, usize)>,
    /// The key of the rig read.
    pub rig: String,
}

/// Whether a rig key names the VRM humanoid: `vrmHumanoid`, or a URI ending in
/// `VRMC_vrm-1.0/humanoid.md` (any revision, query or fragment ignored).
pub fn is_vrm_humanoid_rig(key: &str) -> bool {
    if key == "vrmHumanoid" {
        return true;
    }
    let path = key.split(['?', '#']).next().unwrap_or("");
    path.contains(':') && path.ends_with("VRMC_vrm-1.0/humanoid.md")
}

/// Reads the two root extensions of a document with `node_names` (each node's name, by
/// index); `None` when it has no skeleton mapping.
///
/// # Errors
/// A value of the wrong type, a node index out of range (the JSON pointer says where).
pub fn read_root(
    extensions: Option<&Map<String, Value>>,
    node_names: &[Option<&str>],
    file: &std::path::Path,
    diagnostics: &mut Diagnostics,
) -> Result<Option<Declared>, Error> {
    let Some(extensions) = extensions else {
        return Ok(None);
    };
    let invalid = |pointer: String, message: String| {
        Error::invalid_coded(
            "KHR_CHARACTER_INVALID",
            file,
            Location::JsonPointer(pointer),
            message,
        )
    };
    let node = |value: &Value, pointer: &str| -> Result<usize, Error> {
        value
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n < node_names.len())
            .ok_or_else(|| {
                invalid(
                    pointer.to_owned(),
                    format!(
                        "expected a node index below {}, found {value}",
                        node_names.len()
                    ),
                )
            })
    };
    let root_node = match extensions.get(CHARACTER) {
        Some(value) => {
            let pointer = format!("/extensions/{CHARACTER}/rootNode");
            match value.get("rootNode") {
                Some(index) => Some(node(index, &pointer)?),
                None => {
                    return Err(invalid(
                        format!("/extensions/{CHARACTER}"),
                        "missing the required property rootNode (a node index)".into(),
                    ))
                }
            }
        }
        None => None,
    };
    let Some(mapping) = extensions.get(MAPPING) else {
        return Ok(None);
    };
    let base = format!("/extensions/{MAPPING}/skeletalRigMappings");
    let rigs = mapping
        .get("skeletalRigMappings")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            invalid(
                format!("/extensions/{MAPPING}"),
                "expected skeletalRigMappings, an object of rigs".into(),
            )
        })?;
    let Some((key, rig)) = rigs.iter().find(|(key, _)| is_vrm_humanoid_rig(key)) else {
        let keys: Vec<&str> = rigs.keys().map(String::as_str).collect();
        diagnostics.info(
            "KHR_MAPPING_NO_HUMANOID",
            base,
            format!(
                "no rig is the VRM humanoid (vrmHumanoid, or a URI ending in VRMC_vrm-1.0/humanoid.md): {keys:?} kept in the file, not read"
            ),
        );
        return Ok(None);
    };
    let pointer = format!("{base}/{}", escape(key));
    let rig = rig.as_object().ok_or_else(|| {
        invalid(
            pointer.clone(),
            format!("expected an object of joints, found {rig}"),
        )
    })?;
    let by_name = |name: &str| node_names.iter().position(|n| *n == Some(name));
    let mut bones: Vec<(HumanBone, usize)> = Vec::new();
    let mut weighted: Vec<(HumanBone, usize, f64)> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for (joint, value) in rig {
        let here = format!("{pointer}/{}", escape(joint));
        match value {
            // URI-keyed: { role: { node, name? } }.
            Value::Object(target) => {
                let Some(bone) = bone_named(joint) else {
                    unknown.push(joint.clone());
                    continue;
                };
                let index = target.get("node").ok_or_else(|| {
                    invalid(here.clone(), "missing the required property node".into())
                })?;
                let index = node(index, &format!("{here}/node"))?;
                if let Some(name) = target.get("name").and_then(Value::as_str) {
                    if node_names.get(index).copied().flatten() != Some(name) {
                        diagnostics.warn(
                            "KHR_MAPPING_NAME_MISMATCH",
                            format!("{here}/name"),
                            format!(
                                "name {name:?} is not node {index}'s name ({:?}); the node index is used",
                                node_names.get(index).copied().flatten().unwrap_or("")
                            ),
                        );
                    }
                }
                bones.push((bone, index));
            }
            // Pull request: { role: node }.
            Value::Number(_) => {
                let Some(bone) = bone_named(joint) else {
                    unknown.push(joint.clone());
                    continue;
                };
                bones.push((bone, node(value, &here)?));
            }
            // By node name, in either direction.
            Value::String(other) => {
                let found = match (bone_named(joint), bone_named(other)) {
                    (Some(bone), _) if by_name(other).is_some() => Some((bone, other.as_str())),
                    (_, Some(bone)) if by_name(joint).is_some() => Some((bone, joint.as_str())),
                    _ => None,
                };
                match found.and_then(|(bone, name)| Some((bone, by_name(name)?))) {
                    Some(pair) => bones.push(pair),
                    None => unknown.push(format!("{joint} → {other}")),
                }
            }
            // Weighted: { nodeName: [{ target, weight }] }.
            Value::Array(targets) => {
                let Some(index) = by_name(joint) else {
                    unknown.push(joint.clone());
                    continue;
                };
                for target in targets {
                    let name = target.get("target").and_then(Value::as_str).unwrap_or("");
                    let weight = target.get("weight").and_then(Value::as_f64).unwrap_or(1.0);
                    match bone_named(name) {
                        Some(bone) => weighted.push((bone, index, weight)),
                        None => unknown.push(name.to_owned()),
                    }
                }
            }
            other => {
                return Err(invalid(
                    here,
                    format!(
                    "expected a node, a node index, a node name or weighted targets, found {other}"
                ),
                ))
            }
        }
    }
    // Each weighted target's heaviest node.
    weighted.sort_by(|a, b| b.2.total_cmp(&a.2));
    for (bone, index, _) in weighted {
        if !bones.iter().any(|(b, _)| *b == bone) {
            bones.push((bone, index));
        }
    }
    if !unknown.is_empty() {
        diagnostics.warn(
            "KHR_MAPPING_UNKNOWN_BONE",
            pointer,
            format!(
                "{} entr(ies) name no VRM humanoid bone or no node, not read: {}",
                unknown.len(),
                unknown.join(", ")
            ),
        );
    }
    bones.sort_by_key(|(bone, _)| bone.index());
    bones.dedup_by_key(|(bone, _)| *bone);
    Ok(Some(Declared {
        root_node,
        bones,
        rig: key.clone(),
    }))
}

fn bone_named(name: &str) -> Option<HumanBone> {
    HumanBone::ALL.iter().copied().find(|b| b.as_str() == name)
}

/// A JSON pointer token (`~` → `~0`, `/` → `~1`).
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The animation extension marking a reference pose (not a clip).
pub const REFERENCE_POSE: &str = "KHR_character_reference_pose";

/// The pose type of an animation marked `KHR_character_reference_pose` (`TPose` when the
/// extension names none, as the schema's default), `None` for any other animation.
///
/// ```
/// use humanoid::formats::gltf::khr_character::reference_pose_type;
/// let marked: serde_json::Map<String, serde_json::Value> = serde_json::from_str(
///     r#"{"extensions": {"KHR_character_reference_pose": {"poseType": "APose"}}}"#).unwrap();
/// assert_eq!(reference_pose_type(&marked).as_deref(), Some("APose"));
/// assert_eq!(reference_pose_type(&serde_json::Map::new()), None);
/// ```
pub fn reference_pose_type(animation_other: &Map<String, Value>) -> Option<String> {
    let marker = animation_other.get("extensions")?.get(REFERENCE_POSE)?;
    Some(
        marker
            .get("poseType")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .unwrap_or(crate::model::reference_pose::T_POSE)
            .to_owned(),
    )
}

/// The animation that declares the reference pose (`KHR_character_reference_pose`), the first
/// where several do.
pub fn reference_pose_animation(root: &super::json::Root) -> Option<usize> {
    root.animations
        .iter()
        .position(|a| reference_pose_type(&a.other).is_some())
}

/// The root extension naming a character's expressions (each an animation, not a clip).
pub const EXPRESSION: &str = "KHR_character_expression";

/// The animations `KHR_character_expression` names (in range, sorted, each once): expressions,
/// which a reader does not take as clips.
pub fn expression_animations(root: &super::json::Root) -> Vec<usize> {
    let mut out: Vec<usize> = root
        .extensions
        .as_ref()
        .and_then(|e| e.get(EXPRESSION))
        .and_then(|e| e.get("expressions"))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|entry| entry.get("animation").and_then(Value::as_u64))
        .filter_map(|a| usize::try_from(a).ok())
        .filter(|&a| a < root.animations.len())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The node extension marking a look-at target.
pub const LOOKAT_TARGET: &str = "KHR_node_lookat_target";

/// Checks the reference pose and the look-at targets against their drafts' schemas, each
/// finding with its JSON pointer:
///
/// - `KHR_character_reference_pose`: an object whose `poseType`, when given, is a non-empty
///   string; the pose is static node TRS: every channel targets a node's `translation`,
///   `rotation` or `scale` (an error otherwise), with one key (a warning for more: the first
///   is the pose);
/// - `KHR_node_lookat_target`: an object with nothing but `hint`, a non-empty string.
///
/// ```
/// use humanoid::error::Diagnostics;
/// use humanoid::formats::gltf::json::Root;
/// use humanoid::formats::gltf::khr_character::check;
/// let root: Root = serde_json::from_str(r#"{"asset": {"version": "2.0"},
///     "nodes": [{"extensions": {"KHR_node_lookat_target": {"hint": ""}}}]}"#).unwrap();
/// let mut found = Diagnostics::new();
/// check(&root, &mut found);
/// assert_eq!(found.iter().next().unwrap().location, "/nodes/0/extensions/KHR_node_lookat_target/hint");
/// ```
pub fn check(root: &super::json::Root, diagnostics: &mut Diagnostics) {
    for (a, animation) in root.animations.iter().enumerate() {
        let Some(marker) = animation
            .other
            .get("extensions")
            .and_then(|e| e.get(REFERENCE_POSE))
        else {
            continue;
        };
        let here = format!("/animations/{a}/extensions/{REFERENCE_POSE}");
        match marker.get("poseType") {
            _ if !marker.is_object() => diagnostics.error(
                "KHR_REFERENCE_POSE_INVALID",
                here.clone(),
                format!("expected an object, found {marker}"),
            ),
            Some(Value::String(s)) if !s.is_empty() => {}
            None => {}
            Some(other) => diagnostics.error(
                "KHR_REFERENCE_POSE_INVALID",
                format!("{here}/poseType"),
                format!(
                    "expected a non-empty string (TPose, APose, IPose or another), found {other}"
                ),
            ),
        }
        for (c, channel) in animation.channels.iter().enumerate() {
            let target = &channel.target;
            if target.node.is_none()
                || !matches!(target.path.as_str(), "translation" | "rotation" | "scale")
            {
                diagnostics.error(
                    "KHR_REFERENCE_POSE_INVALID",
                    format!("/animations/{a}/channels/{c}/target"),
                    format!(
                        "a reference pose holds node translations, rotations and scales only, found path {:?}",
                        target.path
                    ),
                );
            }
            let keys = animation
                .samplers
                .get(channel.sampler.as_usize())
                .and_then(|s| root.accessors.get(s.input.as_usize()))
                .map_or(1, |input| input.count);
            if keys > 1 {
                diagnostics.warn(
                    "KHR_REFERENCE_POSE_KEYS",
                    format!("/animations/{a}/channels/{c}"),
                    format!("a reference pose is static, one key per channel; this one has {keys}: the first is the pose"),
                );
            }
        }
    }
    for (n, node) in root.nodes.iter().enumerate() {
        let Some(marker) = node.extensions.as_ref().and_then(|e| e.get(LOOKAT_TARGET)) else {
            continue;
        };
        let here = format!("/nodes/{n}/extensions/{LOOKAT_TARGET}");
        let Some(object) = marker.as_object() else {
            diagnostics.error(
                "KHR_LOOKAT_TARGET_INVALID",
                here,
                format!("expected an object, found {marker}"),
            );
            continue;
        };
        for (key, value) in object {
            match (key.as_str(), value) {
                ("hint", Value::String(s)) if !s.is_empty() => {}
                ("hint", other) => diagnostics.error(
                    "KHR_LOOKAT_TARGET_INVALID",
                    format!("{here}/hint"),
                    format!("expected a non-empty string, found {other}"),
                ),
                ("extensions" | "extras", _) => {}
                (other, _) => diagnostics.error(
                    "KHR_LOOKAT_TARGET_INVALID",
                    format!("{here}/{}", escape(other)),
                    format!("{other:?} is not a property of {LOOKAT_TARGET} (it has only hint)"),
                ),
            }
        }
    }
}
