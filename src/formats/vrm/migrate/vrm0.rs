//! Reading the VRM 0.x extension JSON leniently: small typed getters over
//! `serde_json::Value`, JSON pointers into `/extensions/VRM`, and the 0.x vector rule.

use serde_json::{Map, Number, Value};

use crate::formats::gltf::json::{pointer, Root};

/// Where the 0.x extension is.
pub(super) const BASE: &str = "/extensions/VRM";

/// `base` + one more pointer segment (escaped).
pub(crate) fn at(base: &str, segment: impl AsRef<str>) -> String {
    format!("{base}{}", pointer([segment]))
}

/// A number property.
pub(crate) fn number(object: &Map<String, Value>, key: &str) -> Option<f64> {
    object
        .get(key)
        .and_then(Value::as_f64)
        .filter(|v| v.is_finite())
}

/// A string property.
pub(crate) fn string<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

/// An object property.
pub(crate) fn object<'a>(
    object: &'a Map<String, Value>,
    key: &str,
) -> Option<&'a Map<String, Value>> {
    object.get(key).and_then(Value::as_object)
}

/// An array property (empty when absent or not an array).
pub(crate) fn array<'a>(object: &'a Map<String, Value>, key: &str) -> &'a [Value] {
    object
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A non-negative integer that fits an index (`-1`, fractions and strings are `None`).
pub(crate) fn index(value: &Value) -> Option<usize> {
    value.as_u64().and_then(|v| usize::try_from(v).ok())
}

/// A 0.x `{x, y, z}` object (missing components are 0), `None` when it is not an object or a
/// component is not a number.
pub(super) fn vector3(value: &Value) -> Option<[f64; 3]> {
    let object = value.as_object()?;
    let component = |key: &str| match object.get(key) {
        None => Some(0.0),
        Some(v) => v.as_f64().filter(|v| v.is_finite()),
    };
    Some([component("x")?, component("y")?, component("z")?])
}

/// A VRM 1.0 vector from a 0.x vector stored in Unity's space (`firstPersonBoneOffset`,
/// collider offsets, `gravityDir`): `(−x, y, z)`.
///
/// UniVRM wrote these vectors straight from Unity (left-handed, the model facing +Z there),
/// where glTF 0.x space is `(x, y, −z)` (three-vrm reads offsets so); turning the model to
/// face +Z then gives `(−x, y, z)`, which is UniVRM's `MigrateVector3`.
pub(crate) fn from_unity_vector(v: [f64; 3]) -> [f64; 3] {
    let [x, y, z] = v;
    [-x, y, z]
}

/// A JSON number (a non-finite value, which JSON cannot hold, becomes 0; `-0` becomes 0).
pub(crate) fn json_number(value: f64) -> Value {
    let value = if value == 0.0 { 0.0 } else { value };
    Number::from_f64(value).map_or(Value::from(0), Value::Number)
}

/// A JSON array of numbers.
pub(crate) fn json_numbers(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| json_number(v)).collect())
}

/// The nodes holding each mesh, in node order (`result[mesh]`).
pub(super) fn nodes_by_mesh(root: &Root) -> Vec<Vec<usize>> {
    let mut by_mesh = vec![Vec::new(); root.meshes.len()];
    for (n, node) in root.nodes.iter().enumerate() {
        if let Some(slot) = node.mesh.and_then(|m| by_mesh.get_mut(m.as_usize())) {
            slot.push(n);
        }
    }
    by_mesh
}

/// The index of the first material with this name.
pub(super) fn material_by_name(root: &Root, name: &str) -> Option<usize> {
    root.other
        .get("materials")
        .and_then(Value::as_array)?
        .iter()
        .position(|m| m.get("name").and_then(Value::as_str) == Some(name))
}

/// A readable list of at most `max` items, with a count of the rest.
pub(crate) fn short_list(items: &[String], max: usize) -> String {
    let mut shown: Vec<String> = items.iter().take(max).cloned().collect();
    if items.len() > max {
        shown.push(format!("and {} more", items.len() - max));
    }
    shown.join(", ")
}
