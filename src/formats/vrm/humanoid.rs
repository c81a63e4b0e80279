//! The parts of the three VRM extensions that reach the canonical model: the humanoid bone map,
//! meta, look-at and expression names. Everything else stays in the document's JSON (a VRM
//! written back as VRM keeps it all).

use glam::Vec3;

use super::view::View;
use crate::error::{Diagnostics, Error};
use crate::model::bone::suggest;
use crate::model::face::{Expression, LookAt, LookAtKind, RangeMap};
use crate::model::humanoid::Meta;
use crate::model::HumanBone;

/// What one VRM extension says about the character, with node indices still those of the file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Declared {
    /// `specVersion`.
    pub spec_version: Option<String>,
    /// Bone → node, in file order (duplicates already dropped).
    pub bones: Vec<(HumanBone, usize)>,
    /// `meta`.
    pub meta: Option<Meta>,
    /// The look-at (its joint still unset) and, for VRM 0.x, the `firstPersonBone` node.
    pub look_at: Option<LookAt>,
    /// VRM 0.x `firstPersonBone` (the look-at's joint when not the head).
    pub look_at_node: Option<usize>,
    /// Expression names (VRM 1.0 preset names).
    pub expressions: Vec<Expression>,
    /// VRMA: the expression and lookAt nodes.
    pub vrma_targets: Option<super::vrma::Targets>,
}

/// Reads `humanBones` of VRM 1.0 / VRMA: an object `{"leftHand": {"node": 12}, …}`.
///
/// # Errors
/// Not an object, or a `node` that is not a node index.
pub fn bones_v1(
    human_bones: &View<'_>,
    node_count: usize,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<(HumanBone, usize)>, Error> {
    let mut bones = Vec::new();
    for (name, entry) in human_bones.entries()? {
        let node = match entry.get("node") {
            Some(node) => node.node(node_count)?,
            None => return Err(entry.error("missing the required property node (a node index)")),
        };
        match name.parse::<HumanBone>() {
            Ok(bone) => bones.push((bone, node)),
            Err(_) => diagnostics.error(
                "VRM_UNKNOWN_BONE",
                entry.pointer(),
                format!(
                    "{name:?} is not a VRM 1.0 humanoid bone name{}; ignored",
                    suggest(name)
                ),
            ),
        }
    }
    Ok(bones)
}

/// Reads VRM 0.x `humanBones`: an array of `{"bone": "leftThumbProximal", "node": 12}`, with the
/// thumbs renamed to VRM 1.0 names. A bone listed twice keeps its first entry (three-vrm does
/// the same) and is reported.
///
/// # Errors
/// Not an array, or a `node` that is not a node index.
pub fn bones_v0(
    human_bones: &View<'_>,
    node_count: usize,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<(HumanBone, usize)>, Error> {
    let mut bones: Vec<(HumanBone, usize)> = Vec::new();
    for entry in human_bones.items()? {
        let name = match entry.get("bone") {
            Some(bone) => bone.str()?,
            None => return Err(entry.error("missing the required property bone (a bone name)")),
        };
        let node = match entry.get("node") {
            Some(node) => node.node(node_count)?,
            None => return Err(entry.error("missing the required property node (a node index)")),
        };
        let Some(bone) = HumanBone::from_vrm0_name(name) else {
            diagnostics.error(
                "VRM_UNKNOWN_BONE",
                entry.pointer(),
                format!("{name:?} is not a VRM 0.x humanoid bone name; ignored"),
            );
            continue;
        };
        if let Some((_, first)) = bones.iter().find(|(b, _)| *b == bone) {
            diagnostics.error(
                "VRM_BONE_LISTED_TWICE",
                entry.pointer(),
                format!(
                    "{name} is listed again (node {node}); the first entry (node {first}) is used"
                ),
            );
            continue;
        }
        bones.push((bone, node));
    }
    Ok(bones)
}

/// VRM 1.0 `meta`.
pub fn meta_v1(meta: &View<'_>) -> Meta {
    let text = |key: &str| {
        meta.get(key)
            .and_then(|v| v.value().as_str().map(str::to_owned))
    };
    let authors = meta
        .get("authors")
        .and_then(|a| a.items().ok())
        .map(|items| {
            items
                .iter()
                .filter_map(|a| a.value().as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    Meta {
        name: text("name"),
        authors,
        license: text("licenseUrl"),
        extra: extra_fields(meta, &["name", "authors", "licenseUrl"]),
    }
}

/// VRM 0.x `meta` (`title`, `author`, `licenseName`, `otherLicenseUrl`, …).
pub fn meta_v0(meta: &View<'_>) -> Meta {
    let text = |key: &str| {
        meta.get(key)
            .and_then(|v| v.value().as_str().map(str::to_owned))
            .filter(|s| !s.is_empty())
    };
    let license = match (text("licenseName"), text("otherLicenseUrl")) {
        (Some(name), Some(url)) if name == "Other" => Some(format!("Other: {url}")),
        (name, _) => name,
    };
    Meta {
        name: text("title"),
        authors: text("author").into_iter().collect(),
        license,
        extra: extra_fields(meta, &["title", "author", "licenseName"]),
    }
}

/// The scalar fields of an object other than `skip`, as text.
fn extra_fields(object: &View<'_>, skip: &[&str]) -> Vec<(String, String)> {
    let Some(map) = object.value().as_object() else {
        return Vec::new();
    };
    map.iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .filter_map(|(k, v)| {
            let text = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Bool(b) => b.to_string(),
                serde_json::Value::Number(n) => n.to_string(),
                _ => return None,
            };
            Some((k.clone(), text))
        })
        .collect()
}

const RANGE_KEYS_V1: [&str; 4] = [
    "rangeMapHorizontalInner",
    "rangeMapHorizontalOuter",
    "rangeMapVerticalDown",
    "rangeMapVerticalUp",
];
const RANGE_KEYS_V0: [&str; 4] = [
    "lookAtHorizontalInner",
    "lookAtHorizontalOuter",
    "lookAtVerticalDown",
    "lookAtVerticalUp",
];

/// VRM 1.0 `lookAt`.
///
/// # Errors
/// A value of the wrong type.
pub fn look_at_v1(look_at: &View<'_>, diagnostics: &mut Diagnostics) -> Result<LookAt, Error> {
    let mut out = LookAt::default();
    if let Some(offset) = look_at.get("offsetFromHeadBone") {
        out.offset = Vec3::from(offset.vec3_array()?);
    }
    if let Some(kind) = look_at.get("type") {
        out.kind = match kind.str()? {
            "bone" => LookAtKind::Bone,
            "expression" => LookAtKind::Expression,
            other => {
                diagnostics.warn(
                    "VRM_LOOK_AT_TYPE",
                    kind.pointer(),
                    format!("unknown lookAt type {other:?} (expected \"bone\" or \"expression\"); read as bone"),
                );
                LookAtKind::Bone
            }
        };
    }
    for (slot, key) in out.ranges.iter_mut().zip(RANGE_KEYS_V1) {
        if let Some(range) = look_at.get(key) {
            let number = |k: &str, default: f32| range.get(k).map_or(Ok(default), |v| v.f32());
            *slot = Some(RangeMap {
                input_max: number("inputMaxValue", 90.0)?,
                output_scale: number("outputScale", 10.0)?,
            });
        }
    }
    Ok(out)
}

/// VRM 0.x `firstPerson`: `firstPersonBone`, `firstPersonBoneOffset` (Unity space: its z is
/// negated, as three-vrm does), `lookAtTypeName` and the degree maps (`xRange` → input maximum,
/// `yRange` → output scale; the curve is not kept).
///
/// # Errors
/// A value of the wrong type.
pub fn look_at_v0(
    first_person: &View<'_>,
    node_count: usize,
) -> Result<(LookAt, Option<usize>), Error> {
    let mut out = LookAt::default();
    if let Some(offset) = first_person.get("firstPersonBoneOffset") {
        let [x, y, z] = offset.vec3_object()?;
        out.offset = Vec3::new(x, y, -z);
    }
    let node = match first_person.get("firstPersonBone") {
        Some(bone) if bone.value().as_i64().is_some_and(|i| i < 0) => None,
        Some(bone) if bone.value().is_null() => None,
        Some(bone) => Some(bone.node(node_count)?),
        None => None,
    };
    if let Some(kind) = first_person.get("lookAtTypeName") {
        out.kind = match kind.str()? {
            "BlendShape" => LookAtKind::Expression,
            _ => LookAtKind::Bone,
        };
    }
    for (slot, key) in out.ranges.iter_mut().zip(RANGE_KEYS_V0) {
        if let Some(range) = first_person.get(key) {
            let number = |k: &str, default: f32| range.get(k).map_or(Ok(default), |v| v.f32());
            *slot = Some(RangeMap {
                input_max: number("xRange", 90.0)?,
                output_scale: number("yRange", 10.0)?,
            });
        }
    }
    Ok((out, node))
}

/// VRM 1.0 (and VRMA) `expressions`: `preset` and `custom` objects.
///
/// # Errors
/// `preset` or `custom` not an object.
pub fn expressions_v1(expressions: &View<'_>) -> Result<Vec<Expression>, Error> {
    let mut out = Vec::new();
    for (group, preset) in [("preset", true), ("custom", false)] {
        let Some(entries) = expressions.get(group) else {
            continue;
        };
        for (name, expression) in entries.entries()? {
            let morph_binds = expression
                .get("morphTargetBinds")
                .and_then(|b| b.value().as_array().map(Vec::len))
                .unwrap_or(0);
            out.push(Expression {
                name: name.to_owned(),
                preset,
                morph_binds,
            });
        }
    }
    Ok(out)
}

/// VRM 0.x `blendShapeMaster.blendShapeGroups`, presets renamed to VRM 1.0 names.
///
/// # Errors
/// `blendShapeGroups` not an array.
pub fn expressions_v0(master: &View<'_>) -> Result<Vec<Expression>, Error> {
    let Some(groups) = master.get("blendShapeGroups") else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for group in groups.items()? {
        let text = |k: &str| group.get(k).and_then(|v| v.value().as_str()).unwrap_or("");
        let preset = preset_v0_to_v1(text("presetName"));
        let morph_binds = group
            .get("binds")
            .and_then(|b| b.value().as_array().map(Vec::len))
            .unwrap_or(0);
        out.push(Expression {
            name: preset.map_or_else(|| text("name").to_owned(), str::to_owned),
            preset: preset.is_some(),
            morph_binds,
        });
    }
    Ok(out)
}

/// The VRM 1.0 preset name of a VRM 0.x `presetName` (`None` for `unknown` and custom groups).
pub fn preset_v0_to_v1(preset: &str) -> Option<&'static str> {
    Some(match preset.to_ascii_lowercase().as_str() {
        "neutral" => "neutral",
        "a" => "aa",
        "i" => "ih",
        "u" => "ou",
        "e" => "ee",
        "o" => "oh",
        "blink" => "blink",
        "joy" => "happy",
        "angry" => "angry",
        "sorrow" => "sad",
        "fun" => "relaxed",
        "lookup" => "lookUp",
        "lookdown" => "lookDown",
        "lookleft" => "lookLeft",
        "lookright" => "lookRight",
        "blink_l" => "blinkLeft",
        "blink_r" => "blinkRight",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    #[test]
    fn vrm0_bones_rename_thumbs_and_keep_the_first_duplicate() {
        let value = json!([
            {"bone": "hips", "node": 0},
            {"bone": "leftThumbProximal", "node": 1},
            {"bone": "leftThumbIntermediate", "node": 2},
            {"bone": "hips", "node": 3}
        ]);
        let mut d = Diagnostics::new();
        let bones = bones_v0(&View::new(&value, "/b", Path::new("m.vrm")), 4, &mut d).unwrap();
        assert_eq!(
            bones,
            [
                (HumanBone::Hips, 0),
                (HumanBone::LeftThumbMetacarpal, 1),
                (HumanBone::LeftThumbProximal, 2)
            ]
        );
        assert!(d.contains("VRM_BONE_LISTED_TWICE"));
    }

    #[test]
    fn vrm1_bone_node_out_of_range_names_the_pointer() {
        let value = json!({"hips": {"node": 0}, "head": {"node": 9}});
        let mut d = Diagnostics::new();
        let err = bones_v1(&View::new(&value, "/h", Path::new("m.vrm")), 2, &mut d)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/h/head/node") && err.contains("out of range"),
            "{err}"
        );
    }

    #[test]
    fn vrm0_look_at_flips_the_unity_offset_and_maps_the_ranges() {
        let value = json!({"firstPersonBone": -1, "firstPersonBoneOffset": {"x": 0.1, "y": 0.06, "z": 0.02},
            "lookAtTypeName": "BlendShape", "lookAtHorizontalInner": {"curve": [0,0,0,1,1,1,1,0], "xRange": 90, "yRange": 8}});
        let (look, node) = look_at_v0(&View::new(&value, "", Path::new("m")), 3).unwrap();
        assert_eq!(node, None);
        assert_eq!(look.offset, Vec3::new(0.1, 0.06, -0.02));
        assert_eq!(look.kind, LookAtKind::Expression);
        assert_eq!(
            look.ranges[0],
            Some(RangeMap {
                input_max: 90.0,
                output_scale: 8.0
            })
        );
        assert_eq!(look.ranges[1], None);
    }

    #[test]
    fn presets_are_renamed() {
        assert_eq!(preset_v0_to_v1("joy"), Some("happy"));
        assert_eq!(preset_v0_to_v1("Blink_L"), Some("blinkLeft"));
        assert_eq!(preset_v0_to_v1("unknown"), None);
    }
}
