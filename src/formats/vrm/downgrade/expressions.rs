//! VRM 1.0's `expressions` become 0.x `blendShapeMaster.blendShapeGroups`, the inverse of
//! `migrate/expressions.rs`.
//!
//! - Presets are renamed back (`happy`→`joy`, `sad`→`sorrow`, `relaxed`→`fun`, `aa`→`a`,
//!   `ih`→`i`, `ou`→`u`, `ee`→`e`, `oh`→`o`, `blinkLeft`→`blink_l`, `blinkRight`→`blink_r`,
//!   `lookUp`→`lookup`, …) and named as UniVRM names them (`Joy`, `Blink_L`, …). `surprised`
//!   has no 0.x preset: it becomes the custom group `Surprised` (preset `unknown`), reported.
//!   Custom expressions keep their name, with preset `unknown`.
//! - Morph binds: the node becomes the mesh it holds (the migration bound every node of a
//!   mesh; identical binds collapse back into one), weight 0–1 becomes 0–100.
//! - Material color binds become material values of the MToon property of their type
//!   (`color`→`_Color`, `emissionColor`→`_EmissionColor`, `shadeColor`→`_ShadeColor`,
//!   `rimColor`→`_RimColor`, `outlineColor`→`_OutlineColor`; `matcapColor` has none);
//!   texture transform binds become `_MainTex_ST` with the V axis flipped back (the flip is
//!   its own inverse). 0.x names materials by name.
//! - `overrideBlink`, `overrideLookAt` and `overrideMouth` have no 0.x counterpart.

use serde_json::{Map, Value};

use super::vrm1::{self, at, BASE};
use crate::error::Diagnostics;
use crate::formats::gltf::json::Root;
use crate::formats::vrm::migrate::expressions::flip_scale_offset;

/// The 0.x preset (and UniVRM's group name) of each 1.0 preset that has one.
pub(super) const PRESETS: [(&str, &str, &str); 17] = [
    ("neutral", "neutral", "Neutral"),
    ("aa", "a", "A"),
    ("ih", "i", "I"),
    ("ou", "u", "U"),
    ("ee", "e", "E"),
    ("oh", "o", "O"),
    ("blink", "blink", "Blink"),
    ("blinkLeft", "blink_l", "Blink_L"),
    ("blinkRight", "blink_r", "Blink_R"),
    ("happy", "joy", "Joy"),
    ("angry", "angry", "Angry"),
    ("sad", "sorrow", "Sorrow"),
    ("relaxed", "fun", "Fun"),
    ("lookUp", "lookup", "LookUp"),
    ("lookDown", "lookdown", "LookDown"),
    ("lookLeft", "lookleft", "LookLeft"),
    ("lookRight", "lookright", "LookRight"),
];

/// The 0.x preset name for custom groups.
const UNKNOWN: &str = "unknown";

/// The MToon property of each 1.0 color bind type 0.x can hold.
fn color_property(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "color" => "_Color",
        "emissionColor" => "_EmissionColor",
        "shadeColor" => "_ShadeColor",
        "rimColor" => "_RimColor",
        "outlineColor" => "_OutlineColor",
        _ => return None,
    })
}

/// One 0.x group to write: where it came from and what it is called.
struct Group<'a> {
    /// JSON pointer of the 1.0 expression.
    at: String,
    /// The 0.x group name.
    name: String,
    /// The 0.x preset name.
    preset: &'static str,
    expression: &'a Map<String, Value>,
}

/// The 0.x `blendShapeMaster` from the 1.0 `expressions` (empty when absent).
pub(super) fn blend_shape_master_json(
    vrm: &Map<String, Value>,
    root: &Root,
    diagnostics: &mut Diagnostics,
) -> Value {
    let groups: Vec<Value> = groups(vrm, diagnostics)
        .iter()
        .map(|g| group_json(g, root, diagnostics))
        .collect();
    report_overrides(vrm, diagnostics);
    let mut master = Map::new();
    master.insert("blendShapeGroups".into(), Value::Array(groups));
    Value::Object(master)
}

/// The groups in order: presets (in the 1.0 order), then custom expressions.
fn groups<'a>(vrm: &'a Map<String, Value>, diagnostics: &mut Diagnostics) -> Vec<Group<'a>> {
    let here = at(BASE, "expressions");
    let Some(expressions) = vrm1::object(vrm, "expressions") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let preset_at = at(&here, "preset");
    for (name, expression) in vrm1::object(expressions, "preset").into_iter().flatten() {
        let expression_at = at(&preset_at, name);
        let Some(expression) = expression.as_object() else {
            continue;
        };
        match PRESETS.iter().find(|(v1, _, _)| v1 == name) {
            Some((_, preset, group)) => out.push(Group {
                at: expression_at,
                name: (*group).to_owned(),
                preset,
                expression,
            }),
            None if name == "surprised" => {
                diagnostics.warn(
                    "DOWNGRADE_EXPRESSION_SURPRISED",
                    expression_at.clone(),
                    "VRM 0.x has no surprised preset: it was written as the custom group \"Surprised\" (preset unknown)",
                );
                out.push(Group {
                    at: expression_at,
                    name: "Surprised".to_owned(),
                    preset: UNKNOWN,
                    expression,
                });
            }
            None => diagnostics.warn(
                "DOWNGRADE_EXPRESSION_BIND",
                expression_at,
                format!("{name:?} is not a VRM 1.0 preset; the expression was dropped"),
            ),
        }
    }
    let custom_at = at(&here, "custom");
    for (name, expression) in vrm1::object(expressions, "custom").into_iter().flatten() {
        if let Some(expression) = expression.as_object() {
            out.push(Group {
                at: at(&custom_at, name),
                name: name.clone(),
                preset: UNKNOWN,
                expression,
            });
        }
    }
    out
}

/// One 0.x blend shape group.
fn group_json(group: &Group<'_>, root: &Root, diagnostics: &mut Diagnostics) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), Value::from(group.name.as_str()));
    out.insert("presetName".into(), Value::from(group.preset));
    out.insert(
        "binds".into(),
        Value::Array(morph_binds(group, root, diagnostics)),
    );
    out.insert(
        "materialValues".into(),
        Value::Array(material_values(group, root, diagnostics)),
    );
    let binary = group
        .expression
        .get("isBinary")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    out.insert("isBinary".into(), Value::from(binary));
    Value::Object(out)
}

/// The 0.x binds `{mesh, index, weight}` (identical ones once).
fn morph_binds(group: &Group<'_>, root: &Root, diagnostics: &mut Diagnostics) -> Vec<Value> {
    let list_at = at(&group.at, "morphTargetBinds");
    let mut out: Vec<Value> = Vec::new();
    let mut bound: Vec<(usize, usize)> = Vec::new();
    for (b, bind) in vrm1::array(group.expression, "morphTargetBinds")
        .iter()
        .enumerate()
    {
        let bind_at = at(&list_at, b.to_string());
        let node = bind.get("node").and_then(vrm1::index);
        let index = bind.get("index").and_then(vrm1::index);
        let weight = bind.get("weight").and_then(vrm1::finite);
        let (Some(node), Some(index), Some(weight)) = (node, index, weight) else {
            drop_bind(
                diagnostics,
                bind_at,
                "expected node, index and weight numbers",
            );
            continue;
        };
        let Some(mesh) = vrm1::mesh_of(root, node) else {
            drop_bind(diagnostics, bind_at, &format!("node {node} holds no mesh"));
            continue;
        };
        bound.push((mesh, node));
        let mut value = Map::new();
        value.insert("mesh".into(), Value::from(mesh));
        value.insert("index".into(), Value::from(index));
        value.insert("weight".into(), vrm1::json_number(weight * 100.0));
        let value = Value::Object(value);
        if !out.contains(&value) {
            out.push(value);
        }
    }
    report_shared_meshes(&bound, root, &list_at, diagnostics);
    out
}

/// Notes meshes bound through some of the nodes holding them: 0.x binds them all.
fn report_shared_meshes(
    bound: &[(usize, usize)],
    root: &Root,
    list_at: &str,
    diagnostics: &mut Diagnostics,
) {
    let mut meshes: Vec<usize> = bound.iter().map(|(m, _)| *m).collect();
    meshes.sort_unstable();
    meshes.dedup();
    for mesh in meshes {
        let others: Vec<usize> = vrm1::nodes_holding(root, mesh)
            .into_iter()
            .filter(|n| !bound.contains(&(mesh, *n)))
            .collect();
        if !others.is_empty() {
            diagnostics.info(
                "DOWNGRADE_MESH_SHARED",
                list_at,
                format!("mesh {mesh} is also held by nodes {others:?}, which the VRM 0.x bind of the mesh moves too"),
            );
        }
    }
}

/// The 0.x material values of the color and texture transform binds.
fn material_values(group: &Group<'_>, root: &Root, diagnostics: &mut Diagnostics) -> Vec<Value> {
    let mut out = Vec::new();
    let colors_at = at(&group.at, "materialColorBinds");
    for (b, bind) in vrm1::array(group.expression, "materialColorBinds")
        .iter()
        .enumerate()
    {
        let bind_at = at(&colors_at, b.to_string());
        let kind = bind.get("type").and_then(Value::as_str).unwrap_or_default();
        let Some(property) = color_property(kind) else {
            drop_bind(
                diagnostics,
                bind_at,
                &format!("VRM 0.x has no material property for color type {kind:?}"),
            );
            continue;
        };
        let target: Option<Vec<f64>> = bind
            .get("targetValue")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().map(vrm1::finite).collect());
        let Some(&[r, g, b_, a]) = target.as_deref() else {
            drop_bind(diagnostics, bind_at, "targetValue is not 4 numbers");
            continue;
        };
        match material(bind, root) {
            Ok(name) => out.push(material_value(name, property, [r, g, b_, a])),
            Err(why) => drop_bind(diagnostics, bind_at, &why),
        }
    }
    let transforms_at = at(&group.at, "textureTransformBinds");
    for (b, bind) in vrm1::array(group.expression, "textureTransformBinds")
        .iter()
        .enumerate()
    {
        let bind_at = at(&transforms_at, b.to_string());
        let pair = |key: &str, default: [f64; 2]| -> Option<[f64; 2]> {
            match bind.get(key) {
                None => Some(default),
                Some(v) => match v.as_array()?.as_slice() {
                    [x, y] => Some([vrm1::finite(x)?, vrm1::finite(y)?]),
                    _ => None,
                },
            }
        };
        let (Some(scale), Some(offset)) = (pair("scale", [1.0, 1.0]), pair("offset", [0.0, 0.0]))
        else {
            drop_bind(diagnostics, bind_at, "scale or offset is not 2 numbers");
            continue;
        };
        let (scale, offset) = flip_scale_offset(scale, offset);
        match material(bind, root) {
            Ok(name) => out.push(material_value(
                name,
                "_MainTex_ST",
                [scale[0], scale[1], offset[0], offset[1]],
            )),
            Err(why) => drop_bind(diagnostics, bind_at, &why),
        }
    }
    out
}

/// The name of the bind's material.
fn material<'r>(bind: &Value, root: &'r Root) -> Result<&'r str, String> {
    let material = bind
        .get("material")
        .and_then(vrm1::index)
        .ok_or_else(|| "expected a material index".to_owned())?;
    vrm1::material_name(root, material)
}

fn material_value(name: &str, property: &str, target: [f64; 4]) -> Value {
    let mut value = Map::new();
    value.insert("materialName".into(), Value::from(name));
    value.insert("propertyName".into(), Value::from(property));
    value.insert("targetValue".into(), vrm1::json_numbers(&target));
    Value::Object(value)
}

fn drop_bind(diagnostics: &mut Diagnostics, at: String, why: &str) {
    diagnostics.warn(
        "DOWNGRADE_EXPRESSION_BIND",
        at,
        format!("bind dropped: {why}"),
    );
}

/// One diagnostic for every expression whose overrides 0.x cannot hold.
fn report_overrides(vrm: &Map<String, Value>, diagnostics: &mut Diagnostics) {
    let Some(expressions) = vrm1::object(vrm, "expressions") else {
        return;
    };
    let mut found = Vec::new();
    for kind in ["preset", "custom"] {
        for (name, expression) in vrm1::object(expressions, kind).into_iter().flatten() {
            for key in ["overrideBlink", "overrideLookAt", "overrideMouth"] {
                match expression.get(key).and_then(Value::as_str) {
                    None | Some("none") => {}
                    Some(value) => found.push(format!("{name}.{key} {value}")),
                }
            }
        }
    }
    if found.is_empty() {
        return;
    }
    diagnostics.warn(
        "DOWNGRADE_EXPRESSION_OVERRIDE",
        at(BASE, "expressions"),
        format!(
            "VRM 0.x expressions do not override others; dropped: {}",
            vrm1::short_list(&found, 12)
        ),
    );
}
