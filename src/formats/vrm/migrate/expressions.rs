//! `blendShapeMaster` becomes VRM 1.0's `expressions`, as UniVRM's `MigrationVrmExpression`
//! does.
//!
//! - The preset is read from `presetName` (case-insensitive; `unknown` falls back to the
//!   group's `name`, as UniVRM 0.x did) and renamed: `joy`→`happy`, `sorrow`→`sad`,
//!   `fun`→`relaxed`, `a`→`aa`, `i`→`ih`, `u`→`ou`, `e`→`ee`, `o`→`oh`, `blink_l`→`blinkLeft`,
//!   `blink_r`→`blinkRight`, `lookup`→`lookUp`, ...; anything else is a custom expression named
//!   by `name`. The first group for a name wins.
//! - Morph binds: weight 0–100 becomes 0–1, the mesh becomes the node holding it (every such
//!   node; UniVRM takes the first).
//! - Material values: `_Color`, `_EmissionColor`, `_ShadeColor`, `_RimColor`,
//!   `_OutlineColor` become material color binds; `_MainTex_ST` (and its `_S`/`_T` halves)
//!   becomes a texture transform bind with the V axis flipped (Unity's UV origin is the
//!   bottom left, glTF's the top left: `offset.y' = 1 − offset.y − scale.y`); the first per
//!   material is kept. Other properties have no 1.0 bind and are reported.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::vrm0::{self, at, BASE};
use crate::error::Diagnostics;
use crate::formats::gltf::json::Root;

/// A 0.x blend shape group's preset name, lower-cased: its `presetName`, or its `name` where
/// that is absent or `unknown`.
pub(crate) fn preset_name(group: &serde_json::Map<String, serde_json::Value>) -> String {
    match vrm0::string(group, "presetName").map(str::to_ascii_lowercase) {
        Some(preset) if preset != "unknown" => preset,
        _ => vrm0::string(group, "name")
            .unwrap_or_default()
            .to_ascii_lowercase(),
    }
}

/// The VRM 1.0 preset of a lower-case 0.x preset name.
pub(crate) fn preset(name: &str) -> Option<&'static str> {
    Some(match name {
        "neutral" => "neutral",
        "a" => "aa",
        "i" => "ih",
        "u" => "ou",
        "e" => "ee",
        "o" => "oh",
        "blink" => "blink",
        "blink_l" => "blinkLeft",
        "blink_r" => "blinkRight",
        "joy" => "happy",
        "angry" => "angry",
        "sorrow" => "sad",
        "fun" => "relaxed",
        "surprised" => "surprised",
        "lookup" => "lookUp",
        "lookdown" => "lookDown",
        "lookleft" => "lookLeft",
        "lookright" => "lookRight",
        _ => return None,
    })
}

/// The 1.0 color bind type of a 0.x material property.
fn color_type(property: &str) -> Option<&'static str> {
    Some(match property {
        "_Color" => "color",
        "_EmissionColor" => "emissionColor",
        "_RimColor" => "rimColor",
        "_ShadeColor" => "shadeColor",
        "_OutlineColor" => "outlineColor",
        _ => return None,
    })
}

/// Unity `_ST` scale and offset to glTF's: the V axis flips
/// (`offset.y' = 1 − offset.y − scale.y`, UniGLTF's `VerticalFlipScaleOffset`).
pub(crate) fn flip_scale_offset(scale: [f64; 2], offset: [f64; 2]) -> ([f64; 2], [f64; 2]) {
    (scale, [offset[0], 1.0 - offset[1] - scale[1]])
}

/// What the expressions need from the document.
pub(super) struct Scene<'a> {
    /// The document (materials, meshes).
    pub(super) root: &'a Root,
    /// The nodes holding each mesh.
    pub(super) nodes_by_mesh: &'a [Vec<usize>],
}

impl Scene<'_> {
    /// How many morph targets a mesh has (its first primitive's count).
    fn morph_targets(&self, mesh: usize) -> usize {
        self.root
            .meshes
            .get(mesh)
            .and_then(|m| m.primitives.first())
            .map_or(0, |p| p.targets.len())
    }
}

/// VRM 1.0's `expressions` from the 0.x `blendShapeMaster`.
pub(super) fn expressions_json(
    master: &Map<String, Value>,
    scene: &Scene<'_>,
    diagnostics: &mut Diagnostics,
) -> Value {
    let here = at(at(BASE, "blendShapeMaster").as_str(), "blendShapeGroups");
    let mut presets = Map::new();
    let mut custom = Map::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, group) in vrm0::array(master, "blendShapeGroups").iter().enumerate() {
        let group_at = at(&here, i.to_string());
        let Some(group) = group.as_object() else {
            diagnostics.warn(
                "MIGRATE_EXPRESSION_DROPPED",
                group_at,
                "not an object; dropped",
            );
            continue;
        };
        let name = vrm0::string(group, "name").unwrap_or_default();
        let preset_name = preset_name(group);
        let (key, target) = match preset(&preset_name) {
            Some(p) => (p.to_owned(), &mut presets),
            None => (name.to_owned(), &mut custom),
        };
        let slot = format!(
            "{}{key}",
            if preset(&preset_name).is_some() {
                "preset "
            } else {
                "custom "
            }
        );
        if let Some(first) = seen.get(&slot) {
            diagnostics.warn(
                "MIGRATE_EXPRESSION_DUPLICATE",
                group_at,
                format!("{slot} was already made from group {first}; this group was dropped"),
            );
            continue;
        }
        seen.insert(slot, i);
        let expression = expression(group, &group_at, scene, diagnostics);
        target.insert(key, expression);
    }
    let mut expressions = Map::new();
    if !presets.is_empty() {
        expressions.insert("preset".into(), Value::Object(presets));
    }
    if !custom.is_empty() {
        expressions.insert("custom".into(), Value::Object(custom));
    }
    Value::Object(expressions)
}

fn expression(
    group: &Map<String, Value>,
    group_at: &str,
    scene: &Scene<'_>,
    diagnostics: &mut Diagnostics,
) -> Value {
    let mut expression = Map::new();
    let morphs = morph_binds(group, group_at, scene, diagnostics);
    if !morphs.is_empty() {
        expression.insert("morphTargetBinds".into(), Value::Array(morphs));
    }
    let (colors, transforms) = material_binds(group, group_at, scene, diagnostics);
    if !colors.is_empty() {
        expression.insert("materialColorBinds".into(), Value::Array(colors));
    }
    if !transforms.is_empty() {
        expression.insert("textureTransformBinds".into(), Value::Array(transforms));
    }
    let binary = group
        .get("isBinary")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    expression.insert("isBinary".into(), Value::from(binary));
    Value::Object(expression)
}

fn morph_binds(
    group: &Map<String, Value>,
    group_at: &str,
    scene: &Scene<'_>,
    diagnostics: &mut Diagnostics,
) -> Vec<Value> {
    let mut out = Vec::new();
    for (b, bind) in vrm0::array(group, "binds").iter().enumerate() {
        let bind_at = at(&at(group_at, "binds"), b.to_string());
        let mesh = bind.get("mesh").and_then(vrm0::index);
        let index = bind.get("index").and_then(vrm0::index);
        let weight = bind
            .get("weight")
            .and_then(Value::as_f64)
            .filter(|w| w.is_finite());
        let nodes = mesh
            .and_then(|m| scene.nodes_by_mesh.get(m))
            .filter(|n| !n.is_empty());
        let problem = match (mesh, index, weight, nodes) {
            (None, ..) | (_, None, ..) | (_, _, None, _) => {
                Some("expected mesh, index and weight numbers".to_owned())
            }
            (Some(m), ..) if nodes.is_none() => Some(format!("no node holds mesh {m}")),
            (Some(m), Some(i), ..) if i >= scene.morph_targets(m) => Some(format!(
                "mesh {m} has {} morph targets, not {}",
                scene.morph_targets(m),
                i + 1
            )),
            _ => None,
        };
        if let Some(problem) = problem {
            diagnostics.warn(
                "MIGRATE_EXPRESSION_BIND",
                bind_at,
                format!("morph bind dropped: {problem}"),
            );
            continue;
        }
        let (Some(nodes), Some(index), Some(weight)) = (nodes, index, weight) else {
            continue;
        };
        for &node in nodes {
            let mut out_bind = Map::new();
            out_bind.insert("node".into(), Value::from(node));
            out_bind.insert("index".into(), Value::from(index));
            out_bind.insert("weight".into(), vrm0::json_number(weight / 100.0));
            out.push(Value::Object(out_bind));
        }
    }
    out
}

/// Material color binds and texture transform binds.
fn material_binds(
    group: &Map<String, Value>,
    group_at: &str,
    scene: &Scene<'_>,
    diagnostics: &mut Diagnostics,
) -> (Vec<Value>, Vec<Value>) {
    let mut colors = Vec::new();
    let mut transforms: Vec<Value> = Vec::new();
    let mut transformed = Vec::new();
    for (v, value) in vrm0::array(group, "materialValues").iter().enumerate() {
        let value_at = at(&at(group_at, "materialValues"), v.to_string());
        let material_name = value
            .get("materialName")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let property = value
            .get("propertyName")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let target: Option<Vec<f64>> = value
            .get("targetValue")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().map(Value::as_f64).collect());
        let drop = |why: String, diagnostics: &mut Diagnostics| {
            diagnostics.warn(
                "MIGRATE_EXPRESSION_MATERIAL",
                value_at.clone(),
                format!("material value {property:?} of material {material_name:?} dropped: {why}"),
            );
        };
        let Some(material) = vrm0::material_by_name(scene.root, material_name) else {
            drop("no material has this name".to_owned(), diagnostics);
            continue;
        };
        let Some(&[t0, t1, t2, t3, ..]) = target.as_deref() else {
            drop("targetValue is not 4 numbers".to_owned(), diagnostics);
            continue;
        };
        if let Some(kind) = color_type(property) {
            let mut bind = Map::new();
            bind.insert("material".into(), Value::from(material));
            bind.insert("type".into(), Value::from(kind));
            bind.insert("targetValue".into(), vrm0::json_numbers(&[t0, t1, t2, t3]));
            colors.push(Value::Object(bind));
            continue;
        }
        let st = match property {
            "_MainTex_ST" => ([t0, t1], [t2, t3]),
            "_MainTex_ST_S" => ([t0, 1.0], [t2, 0.0]),
            "_MainTex_ST_T" => ([1.0, t1], [0.0, t3]),
            _ => {
                drop(
                    "VRM 1.0 has no bind for this property".to_owned(),
                    diagnostics,
                );
                continue;
            }
        };
        if transformed.contains(&material) {
            drop(
                "the material already has a texture transform bind in this expression".to_owned(),
                diagnostics,
            );
            continue;
        }
        transformed.push(material);
        let (scale, offset) = flip_scale_offset(st.0, st.1);
        let mut bind = Map::new();
        bind.insert("material".into(), Value::from(material));
        bind.insert("scale".into(), vrm0::json_numbers(&scale));
        bind.insert("offset".into(), vrm0::json_numbers(&offset));
        transforms.push(Value::Object(bind));
    }
    (colors, transforms)
}
