//! `EXT_skeleton_humanoid`: the root `humanoidSkeletons` array (several skeletons per file) and
//! the animation channel target extension `humanoidBoneName`.
//!
//! This module reads and writes the extension's JSON; [`super::humanoid`] turns it into the
//! canonical model. The choices where the spec is silent or ambiguous are written down in
//! `docs/conventions.md` (channel data are deltas in the canonical bone frame; a channel with no
//! skeleton index binds to skeleton 0; skinless models get a warning, not a refusal).

use serde_json::{Map, Value};

use super::json;
use super::view::kind;
use crate::error::{Diagnostics, Error, Location};
use glam::{Quat, Vec3};

use crate::math::sample::Interpolation;
pub use crate::model::bone::suggest;
use crate::model::clip::Property;
use crate::model::HumanBone;
use crate::pose::tpose::canonical_frame;

/// The extension's name, as it appears in `extensionsUsed` and `extensions`.
pub const NAME: &str = "EXT_skeleton_humanoid";

/// One entry of `humanoidSkeletons`, with node indices checked against the node count.
#[derive(Debug, Clone, PartialEq)]
pub struct SkeletonDef {
    /// `rootNode`: the skeleton's root node index.
    pub root_node: usize,
    /// `humanoidBones`: bone → node index, in file order.
    pub bones: Vec<(HumanBone, usize)>,
}

impl SkeletonDef {
    /// The node a bone maps to.
    pub fn node(&self, bone: HumanBone) -> Option<usize> {
        self.bones.iter().find(|(b, _)| *b == bone).map(|(_, n)| *n)
    }
}

/// Reads the root extension object (`extensions.EXT_skeleton_humanoid`).
///
/// Structural problems (not an object, a missing `rootNode`, a node index that is not an index
/// or is out of range) are errors; an unknown bone name is an error-severity diagnostic with a
/// suggestion, and the bone is left out.
///
/// # Errors
/// [`Error::Invalid`] with the JSON pointer of the offending value.
pub fn read_root(
    value: &Value,
    node_count: usize,
    file: &std::path::Path,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<SkeletonDef>, Error> {
    let base = format!("/extensions/{NAME}");
    let invalid = |pointer: String, message: String| {
        Error::invalid(file, Location::JsonPointer(pointer), message)
    };
    let object = value.as_object().ok_or_else(|| {
        invalid(
            base.clone(),
            format!("expected an object, found {}", kind(value)),
        )
    })?;
    let skeletons = match object.get("humanoidSkeletons") {
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(invalid(
                format!("{base}/humanoidSkeletons"),
                format!("expected an array of skeletons, found {}", kind(other)),
            ))
        }
        None => {
            return Err(invalid(
                base,
                "missing the required property humanoidSkeletons (an array of { rootNode, humanoidBones })"
                    .into(),
            ))
        }
    };
    let mut defs = Vec::with_capacity(skeletons.len().min(1024));
    for (i, skeleton) in skeletons.iter().enumerate() {
        let pointer = format!("{base}/humanoidSkeletons/{i}");
        let object = skeleton.as_object().ok_or_else(|| {
            invalid(
                pointer.clone(),
                format!("expected an object, found {}", kind(skeleton)),
            )
        })?;
        let root_node = match object.get("rootNode") {
            Some(v) => {
                node_index(v, node_count).map_err(|m| invalid(format!("{pointer}/rootNode"), m))?
            }
            None => {
                return Err(invalid(
                    pointer,
                    "missing the required property rootNode (a node index)".into(),
                ))
            }
        };
        let bones_json = match object.get("humanoidBones") {
            Some(Value::Object(map)) => map,
            Some(other) => {
                return Err(invalid(
                    format!("{pointer}/humanoidBones"),
                    format!(
                        "expected an object of bone name → node index, found {}",
                        kind(other)
                    ),
                ))
            }
            None => {
                return Err(invalid(
                    pointer,
                    "missing the required property humanoidBones".into(),
                ))
            }
        };
        let mut bones = Vec::with_capacity(bones_json.len().min(HumanBone::COUNT));
        for (name, node) in bones_json {
            let bone_pointer = format!(
                "{pointer}{}",
                json::pointer(["humanoidBones", name.as_str()])
            );
            let index =
                node_index(node, node_count).map_err(|m| invalid(bone_pointer.clone(), m))?;
            match name.parse::<HumanBone>() {
                Ok(bone) => bones.push((bone, index)),
                Err(_) => diagnostics.error(
                    "EXT_UNKNOWN_BONE",
                    bone_pointer,
                    format!(
                        "{name:?} is not an EXT_skeleton_humanoid bone name{}",
                        suggest(name)
                    ),
                ),
            }
        }
        defs.push(SkeletonDef { root_node, bones });
    }
    Ok(defs)
}

/// The JSON of the root extension for `skeletons`.
pub fn write_root(skeletons: &[SkeletonDef]) -> Value {
    let items = skeletons
        .iter()
        .map(|s| {
            let mut bones = Map::new();
            for (bone, node) in &s.bones {
                bones.insert(bone.as_str().to_owned(), Value::from(*node));
            }
            let mut object = Map::new();
            object.insert("rootNode".into(), Value::from(s.root_node));
            object.insert("humanoidBones".into(), Value::Object(bones));
            Value::Object(object)
        })
        .collect();
    let mut root = Map::new();
    root.insert("humanoidSkeletons".into(), Value::Array(items));
    Value::Object(root)
}

/// Declares `skeleton` on `document`: the root extension (one skeleton) and its entry in
/// `extensionsUsed`. Returns `false`, changing nothing, when the document already has the
/// extension.
pub fn declare(document: &mut super::Document, skeleton: SkeletonDef) -> bool {
    let extensions = document.root.extensions.get_or_insert_with(Map::new);
    if extensions.contains_key(NAME) {
        return false;
    }
    extensions.insert(NAME.to_owned(), write_root(&[skeleton]));
    if !document.root.extensions_used.iter().any(|e| e == NAME) {
        document.root.extensions_used.push(NAME.to_owned());
    }
    true
}

/// What a channel target's `extensions` say about EXT_skeleton_humanoid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChannelBone {
    /// The channel carries no EXT_skeleton_humanoid extension.
    None,
    /// It targets this bone.
    Bone(HumanBone),
    /// It carries the extension with a missing or unknown `humanoidBoneName`: the message says what.
    Invalid(String),
}

/// Reads `target.extensions.EXT_skeleton_humanoid.humanoidBoneName` from a channel target's
/// `extensions` object.
pub fn channel_bone(target_extensions: Option<&Map<String, Value>>) -> ChannelBone {
    let Some(ext) = target_extensions.and_then(|e| e.get(NAME)) else {
        return ChannelBone::None;
    };
    match ext.get("humanoidBoneName") {
        Some(Value::String(name)) => match name.parse::<HumanBone>() {
            Ok(bone) => ChannelBone::Bone(bone),
            Err(_) => ChannelBone::Invalid(format!(
                "humanoidBoneName {name:?} is not an EXT_skeleton_humanoid bone name{}",
                suggest(name)
            )),
        },
        Some(other) => ChannelBone::Invalid(format!(
            "humanoidBoneName must be a string, found {}",
            kind(other)
        )),
        None => ChannelBone::Invalid("missing the required property humanoidBoneName".into()),
    }
}

/// The channel target `extensions` object naming `bone`.
pub fn channel_extension(bone: HumanBone) -> Value {
    serde_json::json!({ NAME: { "humanoidBoneName": bone.as_str() } })
}

/// Converts canonical bone-track values into EXT_skeleton_humanoid channel data.
///
/// Rotations: `D = F⁻¹ · n · F` with `F` the bone's canonical frame; translations (the hips):
/// `d = F⁻¹ · o` with `o` the offset from rest in model axes; scales pass through (a scale delta
/// in the bone's own frame). Both maps are linear, so cubic-spline tangents convert the same way.
///
/// # Errors
/// A property EXT channels cannot carry (morph weights).
pub fn deltas_from_canonical(
    bone: HumanBone,
    property: Property,
    _interpolation: Interpolation,
    values: &[f32],
) -> Result<Vec<f32>, String> {
    let frame = canonical_frame(bone);
    convert(bone, property, values, frame.inverse())
}

/// The inverse of [`deltas_from_canonical`]: `n = F · D · F⁻¹`, `o = F · d`.
///
/// # Errors
/// A property EXT channels cannot carry (morph weights).
pub fn canonical_from_deltas(
    bone: HumanBone,
    property: Property,
    _interpolation: Interpolation,
    values: &[f32],
) -> Result<Vec<f32>, String> {
    convert(bone, property, values, canonical_frame(bone))
}

/// `q ↦ A · q · A⁻¹` for rotations, `v ↦ A · v` for translations.
fn convert(
    bone: HumanBone,
    property: Property,
    values: &[f32],
    a: Quat,
) -> Result<Vec<f32>, String> {
    match property {
        Property::Rotation => Ok(values
            .chunks_exact(4)
            .flat_map(|q| (a * Quat::from_xyzw(q[0], q[1], q[2], q[3]) * a.inverse()).to_array())
            .collect()),
        Property::Translation => Ok(values
            .chunks_exact(3)
            .flat_map(|v| (a * Vec3::new(v[0], v[1], v[2])).to_array())
            .collect()),
        Property::Scale => Ok(values.to_vec()),
        Property::Weights(_) => Err(format!(
            "{bone}: EXT_skeleton_humanoid channels animate rotation, translation or scale, not morph weights"
        )),
    }
}

fn node_index(value: &Value, node_count: usize) -> Result<usize, String> {
    let index = value
        .as_u64()
        .ok_or_else(|| format!("expected a node index (a non-negative integer), found {value}"))?;
    match usize::try_from(index) {
        Ok(i) if i < node_count => Ok(i),
        _ => Err(format!(
            "node index {index} is out of range: the file has {node_count} nodes"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn read(value: Value, nodes: usize) -> (Result<Vec<SkeletonDef>, Error>, Diagnostics) {
        let mut d = Diagnostics::new();
        (read_root(&value, nodes, Path::new("t.gltf"), &mut d), d)
    }

    #[test]
    fn reads_several_skeletons() {
        let (defs, d) = read(
            json!({"humanoidSkeletons": [
                {"rootNode": 0, "humanoidBones": {"hips": 1, "neck": 2}},
                {"rootNode": 3, "humanoidBones": {"hips": 4}}
            ]}),
            5,
        );
        let defs = defs.unwrap();
        assert!(d.is_empty());
        assert_eq!(defs.len(), 2);
        assert_eq!(defs[0].node(HumanBone::Neck), Some(2));
        assert_eq!(defs[1].root_node, 3);
        assert_eq!(
            write_root(&defs),
            json!({"humanoidSkeletons": [
                {"rootNode": 0, "humanoidBones": {"hips": 1, "neck": 2}},
                {"rootNode": 3, "humanoidBones": {"hips": 4}}
            ]})
        );
    }

    #[test]
    fn node_out_of_range_is_an_error_with_its_pointer() {
        let (defs, _) = read(
            json!({"humanoidSkeletons": [{"rootNode": 0, "humanoidBones": {"hips": 7}}]}),
            3,
        );
        let message = defs.unwrap_err().to_string();
        assert!(
            message.contains(
                "/extensions/EXT_skeleton_humanoid/humanoidSkeletons/0/humanoidBones/hips"
            ),
            "{message}"
        );
        assert!(message.contains("out of range"), "{message}");
        let (defs, _) = read(
            json!({"humanoidSkeletons": [{"rootNode": -1, "humanoidBones": {}}]}),
            3,
        );
        assert!(defs.unwrap_err().to_string().contains("/rootNode"));
    }

    #[test]
    fn unknown_bone_names_are_diagnosed_with_a_suggestion() {
        let (defs, d) = read(
            json!({"humanoidSkeletons": [{"rootNode": 0, "humanoidBones": {"leftUpperArn": 1}}]}),
            2,
        );
        assert!(defs.unwrap()[0].bones.is_empty());
        let message = &d.iter().next().unwrap().message;
        assert!(message.contains("did you mean `leftUpperArm`"), "{message}");
    }

    #[test]
    fn missing_wrapper_is_explained() {
        let (defs, _) = read(json!({"rootNode": 0, "humanoidBones": {}}), 1);
        assert!(defs.unwrap_err().to_string().contains("humanoidSkeletons"));
    }

    #[test]
    fn channel_bone_reads_the_target_extension() {
        let ext = channel_extension(HumanBone::Neck);
        assert_eq!(
            channel_bone(ext.as_object()),
            ChannelBone::Bone(HumanBone::Neck)
        );
        assert_eq!(channel_bone(None), ChannelBone::None);
        let bad = json!({NAME: {"humanoidBoneName": "Neck"}});
        assert!(
            matches!(channel_bone(bad.as_object()), ChannelBone::Invalid(m) if m.contains("did you mean `neck`"))
        );
    }
}
