//! VRM 1.0's `lookAt` and `firstPerson` become 0.x `firstPerson`, the inverse of
//! `migrate/look_at.rs`.
//!
//! - `firstPersonBone` is the head node (1.0 always measures from the head).
//! - `offsetFromHeadBone` becomes `firstPersonBoneOffset` in Unity space by
//!   [`vrm1::from_unity_vector`], `(x, y, z) → (−x, y, z)`, which is its own inverse: turning
//!   the 1.0 head-local offset to face −Z gives `(−x, y, −z)` in 0.x glTF space, and 0.x
//!   stores that with z negated (three-vrm reads the 0.x offset as `(x, y, −z)`). The head's
//!   rest rotation is the identity here (`rest.rs`), so head-local axes are model axes.
//! - `type` `bone`/`expression` becomes `lookAtTypeName` `Bone`/`BlendShape`.
//! - Each range map `{inputMaxValue, outputScale}` becomes the degree map
//!   `{curve: [0, 0, 0, 1, 1, 1, 1, 0], xRange, yRange}`: the linear curve is the one three-vrm
//!   accepts without a warning (it compares the text of the array). A missing range map or
//!   value gets three-vrm's 1.0 default (90°, output 10 for bone and 1 for expression).
//! - `meshAnnotations` `{node, type}` become `{mesh, firstPersonFlag}` for the node's mesh
//!   (the migration annotates every node of a mesh; those collapse back into one).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::vrm1::{self, at, BASE};
use crate::error::Diagnostics;
use crate::formats::gltf::json::Root;

/// The 1.0 range maps and the 0.x degree maps they become.
const RANGE_MAPS: [(&str, &str); 4] = [
    ("rangeMapHorizontalInner", "lookAtHorizontalInner"),
    ("rangeMapHorizontalOuter", "lookAtHorizontalOuter"),
    ("rangeMapVerticalDown", "lookAtVerticalDown"),
    ("rangeMapVerticalUp", "lookAtVerticalUp"),
];

/// The linear 0.x curve (two Unity keys: time, value, in tangent, out tangent).
const LINEAR_CURVE: [i64; 8] = [0, 0, 0, 1, 1, 1, 1, 0];

/// three-vrm's default `inputMaxValue` for a missing 1.0 range map value.
const DEFAULT_INPUT_MAX: f64 = 90.0;

/// The 0.x `firstPerson` object.
pub(super) fn first_person_json(
    vrm: &Map<String, Value>,
    head: Option<usize>,
    root: &Root,
    diagnostics: &mut Diagnostics,
) -> Value {
    let mut first = Map::new();
    if let Some(head) = head {
        first.insert("firstPersonBone".into(), Value::from(head));
    }
    let look_at = vrm1::object(vrm, "lookAt");
    if let Some(look_at) = look_at {
        if let Some(offset) = offset(look_at, diagnostics) {
            first.insert("firstPersonBoneOffset".into(), offset);
        }
    }
    let annotations = annotations(vrm, root, diagnostics);
    first.insert("meshAnnotations".into(), Value::Array(annotations));
    if let Some(look_at) = look_at {
        look_at_maps(look_at, &mut first, diagnostics);
    }
    Value::Object(first)
}

/// `firstPersonBoneOffset` from `offsetFromHeadBone` (`None`, reported, when absent or
/// unreadable: 0.x readers then use their default).
fn offset(look_at: &Map<String, Value>, diagnostics: &mut Diagnostics) -> Option<Value> {
    let here = at(BASE, "lookAt");
    let Some(value) = look_at.get("offsetFromHeadBone") else {
        diagnostics.info(
            "DOWNGRADE_LOOKAT_OFFSET",
            here,
            "no offsetFromHeadBone: firstPersonBoneOffset is left out, so readers use their default (three-vrm: 0.06 m above the head)",
        );
        return None;
    };
    match vrm1::vector3(value) {
        Some(offset) => Some(vrm1::vector3_object(vrm1::from_unity_vector(offset))),
        None => {
            diagnostics.warn(
                "DOWNGRADE_LOOKAT_OFFSET",
                at(&here, "offsetFromHeadBone"),
                format!("offsetFromHeadBone {value} is not 3 numbers; it was dropped (readers use their default)"),
            );
            None
        }
    }
}

/// `lookAtTypeName` and the four degree maps.
fn look_at_maps(
    look_at: &Map<String, Value>,
    first: &mut Map<String, Value>,
    diagnostics: &mut Diagnostics,
) {
    let here = at(BASE, "lookAt");
    let kind = vrm1::string(look_at, "type");
    let expression = match kind {
        Some("expression") => true,
        Some("bone") | None => false,
        Some(other) => {
            diagnostics.warn(
                "DOWNGRADE_LOOKAT_TYPE",
                at(&here, "type"),
                format!("lookAt type {other:?} is not bone or expression; Bone was written (three-vrm reads it as bone too)"),
            );
            false
        }
    };
    first.insert(
        "lookAtTypeName".into(),
        Value::from(if expression { "BlendShape" } else { "Bone" }),
    );
    let default_scale = if expression { 1.0 } else { 10.0 };
    let mut defaults = Vec::new();
    for (new, old) in RANGE_MAPS {
        let map = vrm1::object(look_at, new);
        let input = map.and_then(|m| vrm1::number(m, "inputMaxValue"));
        let output = map.and_then(|m| vrm1::number(m, "outputScale"));
        if input.is_none() || output.is_none() {
            defaults.push(new);
        }
        first.insert(
            old.into(),
            degree_map(
                input.unwrap_or(DEFAULT_INPUT_MAX),
                output.unwrap_or(default_scale),
            ),
        );
    }
    if !defaults.is_empty() {
        diagnostics.info(
            "DOWNGRADE_LOOKAT_RANGE_DEFAULT",
            here,
            format!(
                "{} lack inputMaxValue or outputScale: three-vrm's defaults were written (inputMaxValue 90, outputScale {default_scale})",
                defaults.join(", ")
            ),
        );
    }
}

/// A 0.x degree map with the linear curve.
pub(super) fn degree_map(input_max: f64, output_scale: f64) -> Value {
    let mut map = Map::new();
    map.insert(
        "curve".into(),
        Value::Array(LINEAR_CURVE.iter().map(|&v| Value::from(v)).collect()),
    );
    map.insert("xRange".into(), vrm1::json_number(input_max));
    map.insert("yRange".into(), vrm1::json_number(output_scale));
    Value::Object(map)
}

/// The 0.x annotations, one per mesh (the first annotation of a mesh wins).
fn annotations(vrm: &Map<String, Value>, root: &Root, diagnostics: &mut Diagnostics) -> Vec<Value> {
    let list_at = at(&at(BASE, "firstPerson"), "meshAnnotations");
    let list =
        vrm1::object(vrm, "firstPerson").map_or(&[][..], |f| vrm1::array(f, "meshAnnotations"));
    let mut flags: HashMap<usize, &str> = HashMap::new();
    let mut out = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let entry_at = at(&list_at, i.to_string());
        let node = entry.get("node").and_then(vrm1::index);
        let Some((node, mesh)) = node.and_then(|n| Some((n, vrm1::mesh_of(root, n)?))) else {
            diagnostics.warn(
                "DOWNGRADE_FIRST_PERSON_MESH",
                entry_at,
                format!(
                    "node {} holds no mesh, and VRM 0.x annotates meshes; the annotation was dropped",
                    entry.get("node").map_or("(none)".to_owned(), Value::to_string)
                ),
            );
            continue;
        };
        let kind = entry.get("type").and_then(Value::as_str);
        let flag = kind.and_then(first_person_flag).unwrap_or_else(|| {
            diagnostics.warn(
                "DOWNGRADE_FIRST_PERSON_MESH",
                at(&entry_at, "type"),
                format!("annotation type {kind:?} is not auto, both, thirdPersonOnly or firstPersonOnly; Auto was written"),
            );
            "Auto"
        });
        if let Some(first) = flags.get(&mesh) {
            if *first != flag {
                diagnostics.warn(
                    "DOWNGRADE_FIRST_PERSON_MESH",
                    entry_at,
                    format!("node {node} shares mesh {mesh} with an earlier annotation ({first}); VRM 0.x annotates the mesh once, so {flag} was dropped"),
                );
            }
            continue;
        }
        flags.insert(mesh, flag);
        report_shared_mesh(root, mesh, list, &entry_at, diagnostics);
        let mut annotation = Map::new();
        annotation.insert("mesh".into(), Value::from(mesh));
        annotation.insert("firstPersonFlag".into(), Value::from(flag));
        out.push(Value::Object(annotation));
    }
    out
}

/// Notes a mesh annotated on some of the nodes holding it: 0.x annotates them all.
fn report_shared_mesh(
    root: &Root,
    mesh: usize,
    list: &[Value],
    entry_at: &str,
    diagnostics: &mut Diagnostics,
) {
    let holders = vrm1::nodes_holding(root, mesh);
    let annotated = |n: &usize| {
        list.iter()
            .any(|e| e.get("node").and_then(vrm1::index) == Some(*n))
    };
    let others: Vec<usize> = holders.iter().copied().filter(|n| !annotated(n)).collect();
    if !others.is_empty() {
        diagnostics.info(
            "DOWNGRADE_MESH_SHARED",
            entry_at,
            format!("mesh {mesh} is also held by nodes {others:?}, which the VRM 0.x annotation of the mesh covers too"),
        );
    }
}

/// The 0.x flag of a 1.0 annotation type.
fn first_person_flag(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "auto" => "Auto",
        "both" => "Both",
        "thirdPersonOnly" => "ThirdPersonOnly",
        "firstPersonOnly" => "FirstPersonOnly",
        _ => return None,
    })
}
