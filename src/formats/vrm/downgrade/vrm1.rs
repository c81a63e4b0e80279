//! Reading the VRM 1.0 extension JSON leniently: pointers into `/extensions/VRMC_vrm`, the
//! small getters the migration already has (re-exported from `migrate::vrm0`), and the few
//! the 1.0 side adds (arrays of numbers, the mesh and material a node or index names).

use serde_json::{Map, Value};

use crate::formats::gltf::json::Root;
pub(super) use crate::formats::vrm::migrate::vrm0::{
    array, at, from_unity_vector, index, json_number, json_numbers, number, object, short_list,
    string,
};

/// Where the 1.0 extension is.
pub(super) const BASE: &str = "/extensions/VRMC_vrm";

/// A 1.0 `[x, y, z]` array of finite numbers.
pub(super) fn vector3(value: &Value) -> Option<[f64; 3]> {
    match value.as_array()?.as_slice() {
        [x, y, z] => Some([finite(x)?, finite(y)?, finite(z)?]),
        _ => None,
    }
}

/// A finite number.
pub(super) fn finite(value: &Value) -> Option<f64> {
    value.as_f64().filter(|v| v.is_finite())
}

/// A 0.x `{x, y, z}` object.
pub(super) fn vector3_object(v: [f64; 3]) -> Value {
    let mut object = Map::new();
    for (key, value) in ["x", "y", "z"].into_iter().zip(v) {
        object.insert(key.into(), json_number(value));
    }
    Value::Object(object)
}

/// The mesh a node holds (`None`: no such node, or no mesh).
pub(super) fn mesh_of(root: &Root, node: usize) -> Option<usize> {
    root.nodes.get(node)?.mesh.map(|m| m.as_usize())
}

/// The nodes that hold a mesh.
pub(super) fn nodes_holding(root: &Root, mesh: usize) -> Vec<usize> {
    root.nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.mesh.is_some_and(|m| m.as_usize() == mesh))
        .map(|(i, _)| i)
        .collect()
}

/// The materials array (empty when absent).
pub(super) fn materials(root: &Root) -> &[Value] {
    root.other
        .get("materials")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The name of a material, when it has one that no earlier material has (0.x finds
/// materials by name, the first of a name).
pub(super) fn material_name(root: &Root, material: usize) -> Result<&str, String> {
    let all = materials(root);
    let name = all
        .get(material)
        .ok_or_else(|| format!("there is no material {material}"))?
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| {
            format!("material {material} has no name, and VRM 0.x names materials by name")
        })?;
    let first = all
        .iter()
        .position(|m| m.get("name").and_then(Value::as_str) == Some(name));
    match first {
        Some(first) if first != material => Err(format!(
            "material {material} is named {name:?} like material {first}, which VRM 0.x readers would find instead"
        )),
        _ => Ok(name),
    }
}
