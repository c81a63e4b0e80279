//! `firstPerson` of 0.x becomes VRM 1.0's `lookAt` and `firstPerson`, as UniVRM's
//! `MigrationVrmLookAtAndFirstPerson` does.
//!
//! - `firstPersonBoneOffset` (Unity space, relative to `firstPersonBone`) becomes
//!   `lookAt.offsetFromHeadBone` turned by [`vrm0::from_unity_vector`]; 1.0 always measures it
//!   from the head, so another `firstPersonBone` is reported.
//! - `lookAtTypeName` `Bone`/`BlendShape` becomes `type` `bone`/`expression` (anything else:
//!   `bone`).
//! - Each degree map `{curve, xRange, yRange}` becomes a range map `{inputMaxValue: xRange,
//!   outputScale: yRange}` (defaults 90 and 10 for bone, 1 for expression); 1.0 has no curve,
//!   so a curve that is not the identity is dropped and reported.
//! - `meshAnnotations` `{mesh, firstPersonFlag}` become `{node, type}` for the node holding
//!   the mesh (every such node: 0.x annotated the mesh; UniVRM takes the first).

use serde_json::{Map, Value};

use super::vrm0::{self, at, BASE};
use crate::error::Diagnostics;

/// The 0.x degree maps and the 1.0 range maps they become.
const RANGE_MAPS: [(&str, &str); 4] = [
    ("lookAtHorizontalInner", "rangeMapHorizontalInner"),
    ("lookAtHorizontalOuter", "rangeMapHorizontalOuter"),
    ("lookAtVerticalDown", "rangeMapVerticalDown"),
    ("lookAtVerticalUp", "rangeMapVerticalUp"),
];

/// How close a curve key must be to the identity line to count as linear.
const CURVE_TOLERANCE: f64 = 1e-6;

/// What the 0.x `firstPerson` object needs from the document.
pub(super) struct Scene<'a> {
    /// The node of the humanoid head.
    pub(super) head: Option<usize>,
    /// The nodes holding each mesh.
    pub(super) nodes_by_mesh: &'a [Vec<usize>],
}

/// VRM 1.0's `lookAt` and `firstPerson` (`None` without mesh annotations) from the 0.x
/// `firstPerson` object.
pub(super) fn look_at_and_first_person(
    first_person: &Map<String, Value>,
    scene: &Scene<'_>,
    diagnostics: &mut Diagnostics,
) -> (Value, Option<Value>) {
    let here = at(BASE, "firstPerson");
    (
        look_at(first_person, scene, &here, diagnostics),
        annotations(first_person, scene, &here, diagnostics),
    )
}

fn look_at(
    first_person: &Map<String, Value>,
    scene: &Scene<'_>,
    here: &str,
    diagnostics: &mut Diagnostics,
) -> Value {
    let mut look_at = Map::new();
    match first_person.get("firstPersonBoneOffset") {
        Some(value) => match vrm0::vector3(value) {
            Some(offset) => {
                look_at.insert(
                    "offsetFromHeadBone".into(),
                    vrm0::json_numbers(&vrm0::from_unity_vector(offset)),
                );
            }
            None => diagnostics.warn(
                "MIGRATE_LOOKAT_OFFSET",
                at(here, "firstPersonBoneOffset"),
                format!("firstPersonBoneOffset {value} is not an {{x, y, z}} object; it was dropped (readers use their default)"),
            ),
        },
        None => diagnostics.info(
            "MIGRATE_LOOKAT_OFFSET",
            here,
            "no firstPersonBoneOffset: lookAt.offsetFromHeadBone is left out, so readers use their default (three-vrm: [0, 0.06, 0])",
        ),
    }
    report_first_person_bone(first_person, scene, here, diagnostics);
    let expression = vrm0::string(first_person, "lookAtTypeName")
        .is_some_and(|t| t.eq_ignore_ascii_case("blendshape"));
    look_at.insert(
        "type".into(),
        Value::from(if expression { "expression" } else { "bone" }),
    );
    let default_scale = if expression { 1.0 } else { 10.0 };
    for (old, new) in RANGE_MAPS {
        let map = range_map(first_person, old, default_scale, here, diagnostics);
        look_at.insert(new.into(), map);
    }
    Value::Object(look_at)
}

fn report_first_person_bone(
    first_person: &Map<String, Value>,
    scene: &Scene<'_>,
    here: &str,
    diagnostics: &mut Diagnostics,
) {
    let Some(value) = first_person.get("firstPersonBone") else {
        return;
    };
    let bone = vrm0::index(value);
    if bone.is_some() && bone != scene.head {
        diagnostics.warn(
            "MIGRATE_FIRST_PERSON_BONE",
            at(here, "firstPersonBone"),
            format!(
                "firstPersonBone is node {value}, not the head{}; VRM 1.0 measures offsetFromHeadBone from the head, so the offset was carried unchanged but now starts at the head",
                scene.head.map_or_else(String::new, |h| format!(" (node {h})"))
            ),
        );
    }
}

/// One range map; a non-identity curve is reported.
fn range_map(
    first_person: &Map<String, Value>,
    key: &str,
    default_scale: f64,
    here: &str,
    diagnostics: &mut Diagnostics,
) -> Value {
    let map_at = at(here, key);
    let degree_map = vrm0::object(first_person, key);
    let input = degree_map.and_then(|m| vrm0::number(m, "xRange"));
    let output = degree_map.and_then(|m| vrm0::number(m, "yRange"));
    if input.is_none() || output.is_none() {
        diagnostics.info(
            "MIGRATE_LOOKAT_RANGE_DEFAULT",
            map_at.clone(),
            format!(
                "{key} has no {}: the default {} was written",
                match (input, output) {
                    (None, None) => "xRange and yRange",
                    (None, _) => "xRange",
                    _ => "yRange",
                },
                match (input, output) {
                    (None, None) => format!("inputMaxValue 90 and outputScale {default_scale}"),
                    (None, _) => "inputMaxValue 90".to_owned(),
                    _ => format!("outputScale {default_scale}"),
                }
            ),
        );
    }
    if let Some(curve) = degree_map.and_then(|m| m.get("curve")) {
        if !is_identity_curve(curve) {
            diagnostics.warn(
                "MIGRATE_LOOKAT_CURVE_DROPPED",
                at(&map_at, "curve"),
                format!(
                    "{key}'s curve {curve} is not the identity; VRM 1.0 range maps are linear, so the curve was dropped"
                ),
            );
        }
    }
    let mut map = Map::new();
    map.insert(
        "inputMaxValue".into(),
        vrm0::json_number(input.unwrap_or(90.0)),
    );
    map.insert(
        "outputScale".into(),
        vrm0::json_number(output.unwrap_or(default_scale)),
    );
    Value::Object(map)
}

/// Whether a 0.x curve (Unity keyframes, 4 numbers each: time, value, in tangent, out
/// tangent) is the line `y = x`: every key on it, every tangent between keys 1. An empty
/// curve counts as the identity (0.x readers then use the line).
pub(super) fn is_identity_curve(curve: &Value) -> bool {
    let Some(numbers) = curve.as_array() else {
        return false;
    };
    let Some(values) = numbers
        .iter()
        .map(Value::as_f64)
        .collect::<Option<Vec<f64>>>()
    else {
        return false;
    };
    if values.len() % 4 != 0 {
        return false;
    }
    let keys: Vec<&[f64]> = values.chunks_exact(4).collect();
    let close = |a: f64, b: f64| (a - b).abs() <= CURVE_TOLERANCE;
    let last = keys.len().saturating_sub(1);
    keys.iter().enumerate().all(|(i, key)| match key {
        [time, value, in_tangent, out_tangent] => {
            close(*time, *value)
                && (i == 0 || close(*in_tangent, 1.0))
                && (i == last || close(*out_tangent, 1.0))
        }
        _ => false,
    })
}

/// `firstPerson` with its annotations, `None` when there are none.
fn annotations(
    first_person: &Map<String, Value>,
    scene: &Scene<'_>,
    here: &str,
    diagnostics: &mut Diagnostics,
) -> Option<Value> {
    let list_at = at(here, "meshAnnotations");
    let mut out = Vec::new();
    for (i, entry) in vrm0::array(first_person, "meshAnnotations")
        .iter()
        .enumerate()
    {
        let entry_at = at(&list_at, i.to_string());
        let mesh = entry.get("mesh").and_then(vrm0::index);
        let nodes = mesh
            .and_then(|m| scene.nodes_by_mesh.get(m))
            .filter(|n| !n.is_empty());
        let Some(nodes) = nodes else {
            diagnostics.warn(
                "MIGRATE_FIRST_PERSON_MESH",
                entry_at,
                format!(
                    "mesh {} is not a mesh any node holds; the annotation was dropped",
                    entry
                        .get("mesh")
                        .map_or("(none)".to_owned(), Value::to_string)
                ),
            );
            continue;
        };
        let flag = entry.get("firstPersonFlag").and_then(Value::as_str);
        let kind = flag.map_or(Some("auto"), first_person_type).unwrap_or_else(|| {
            diagnostics.warn(
                "MIGRATE_FIRST_PERSON_FLAG",
                at(&entry_at, "firstPersonFlag"),
                format!("firstPersonFlag {flag:?} is not Auto, Both, ThirdPersonOnly or FirstPersonOnly; auto was written"),
            );
            "auto"
        });
        if nodes.len() > 1 {
            diagnostics.info(
                "MIGRATE_MESH_SHARED",
                entry_at.clone(),
                format!(
                    "mesh {} is held by nodes {nodes:?}; each got the annotation (UniVRM annotates only the first)",
                    mesh.unwrap_or_default()
                ),
            );
        }
        for &node in nodes {
            let mut annotation = Map::new();
            annotation.insert("node".into(), Value::from(node));
            annotation.insert("type".into(), Value::from(kind));
            out.push(Value::Object(annotation));
        }
    }
    if out.is_empty() {
        return None;
    }
    let mut first = Map::new();
    first.insert("meshAnnotations".into(), Value::Array(out));
    Some(Value::Object(first))
}

/// The 1.0 annotation type of a 0.x flag (case-insensitive, as UniVRM reads it).
fn first_person_type(flag: &str) -> Option<&'static str> {
    let flag = flag.to_ascii_lowercase();
    Some(match flag.as_str() {
        "auto" => "auto",
        "both" => "both",
        "thirdpersononly" => "thirdPersonOnly",
        "firstpersononly" => "firstPersonOnly",
        _ => return None,
    })
}
