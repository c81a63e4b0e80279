//! `KHR_virtual_transform` (draft, withdrawn from the Khronos proposal in 2026 but found in
//! files): the root `virtualTransforms` array, read into and written from [`Socket`]s.
//!
//! The schema (`glTF.KHR_virtual_transform.schema.json`, see
//! `shared/docs/research/extensions_and_landscape.md` §2.2): each item has a required `name`
//! (string) and `parent` (node index); optional `translation` (3 numbers, default `[0,0,0]`),
//! `rotation` (4 numbers, x y z w, default `[0,0,0,1]`), `scale` (3 numbers, default
//! `[1,1,1]`), `respectParentPosition` / `respectParentRotation` / `respectParentScale`
//! (booleans, default `true`) and `tags` (array of strings); no other properties.
//!
//! What [`read`] does with each rule:
//!
//! | Input | Outcome | Code |
//! |---|---|---|
//! | extension, array or item of the wrong JSON type; `name` missing or not a string; `parent` not a non-negative integer or `>= nodes.len()`; a vector of the wrong length or with a non-number; a flag that is not a boolean; `tags` not an array of strings; a rotation of zero length or non-finite | [`Error::Invalid`] at the JSON pointer | — |
//! | `parent` absent (the schema requires it; the prose allows a root) | socket kept with `parent: None` (scene root) | `VT_MISSING_PARENT` (error severity) |
//! | `parent` a valid node that is not a joint (`node_to_joint` gives `None`) | socket dropped | `VT_PARENT_NOT_JOINT` (warning) |
//! | rotation not unit (length off by more than 1e-5) | normalised | `VT_ROTATION_NOT_UNIT` (warning) |
//! | a name used twice | both kept | `VT_DUPLICATE_NAME` (warning) |
//! | a property the schema does not have | ignored | `VT_UNKNOWN_PROPERTY` (error severity) |
//! | an empty `virtualTransforms` (schema `minItems: 1`) | no sockets | `VT_EMPTY` (error severity) |
//! | the plural `KHR_virtual_transforms` (an early converter's spelling) | read the same way | `VT_PLURAL_NAME` (warning) |
//! | the extension missing from `extensionsUsed` | read anyway | `VT_NOT_IN_EXTENSIONS_USED` (warning) |
//!
//! Every diagnostic's location is the JSON pointer of the offending value.

use std::path::Path;

use glam::{Quat, Vec3};
use serde_json::{Map, Value};

use super::view::{kind, View};
use crate::error::{Diagnostics, Error};
use crate::model::socket::{Socket, SocketKind};
use crate::model::JointId;

/// The extension's name, as it appears in `extensionsUsed` and `extensions`.
pub const NAME: &str = "KHR_virtual_transform";

/// The plural spelling written by an early VRM → KHR converter; read with a warning.
pub const PLURAL_NAME: &str = "KHR_virtual_transforms";

/// How far a quaternion's length may be from 1 before [`read`] warns (it always normalises).
pub const UNIT_TOLERANCE: f32 = 1e-5;

/// The properties an item may have (`additionalProperties: false`).
const ITEM_PROPERTIES: [&str; 9] = [
    "name",
    "parent",
    "translation",
    "rotation",
    "scale",
    "respectParentPosition",
    "respectParentRotation",
    "respectParentScale",
    "tags",
];

/// Reads `extensions.KHR_virtual_transform` of a glTF root object into sockets, in file order.
///
/// `root_json` is the whole glTF JSON (its `nodes` bound `parent`); `node_to_joint` maps a node
/// index to the joint it became. No extension gives no sockets. Errors name the file as
/// `<memory>`; [`read_in`] takes the file's path. The rules are in the [module docs](self).
///
/// # Errors
/// [`Error::Invalid`] with the JSON pointer of the offending value.
pub fn read(
    root_json: &Value,
    node_to_joint: impl Fn(usize) -> Option<JointId>,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<Socket>, Error> {
    read_in(root_json, Path::new("<memory>"), node_to_joint, diagnostics)
}

/// [`read`], with errors naming `file`.
///
/// # Errors
/// [`Error::Invalid`] with the JSON pointer of the offending value.
pub fn read_in(
    root_json: &Value,
    file: &Path,
    node_to_joint: impl Fn(usize) -> Option<JointId>,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<Socket>, Error> {
    let root = View::new(root_json, "", file);
    let Some(extensions) = root.get("extensions") else {
        return Ok(Vec::new());
    };
    let (name, extension) = match (extensions.get(NAME), extensions.get(PLURAL_NAME)) {
        (Some(ext), _) => (NAME, ext),
        (None, Some(ext)) => {
            diagnostics.warn(
                "VT_PLURAL_NAME",
                ext.pointer(),
                format!("{PLURAL_NAME} is an early spelling of {NAME}; read as {NAME}"),
            );
            (PLURAL_NAME, ext)
        }
        (None, None) => return Ok(Vec::new()),
    };
    let used = root_json
        .get("extensionsUsed")
        .and_then(Value::as_array)
        .is_some_and(|used| used.iter().any(|u| u.as_str() == Some(name)));
    if !used {
        diagnostics.warn(
            "VT_NOT_IN_EXTENSIONS_USED",
            "/extensionsUsed",
            format!("{name} is used but not listed in extensionsUsed"),
        );
    }
    let node_count = root_json
        .get("nodes")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);

    for (key, value) in extension.entries()? {
        if !matches!(key, "virtualTransforms" | "extensions" | "extras") {
            diagnostics.error(
                "VT_UNKNOWN_PROPERTY",
                value.pointer(),
                format!("{key:?} is not a property of {NAME}"),
            );
        }
    }
    let Some(array) = extension.get("virtualTransforms") else {
        return Err(extension.error(
            "missing the required property virtualTransforms (an array of virtual transforms)",
        ));
    };
    let items = array.items()?;
    if items.is_empty() {
        diagnostics.error(
            "VT_EMPTY",
            array.pointer(),
            "virtualTransforms is empty (the schema requires at least one item)",
        );
    }

    let mut sockets = Vec::with_capacity(items.len().min(4096));
    let mut names: Vec<(String, String)> = Vec::new();
    for item in items {
        let Some(socket) = read_item(&item, node_count, &node_to_joint, diagnostics)? else {
            continue;
        };
        let name_pointer = format!("{}/name", item.pointer());
        if let Some((_, first)) = names.iter().find(|(n, _)| *n == socket.name) {
            diagnostics.warn(
                "VT_DUPLICATE_NAME",
                name_pointer,
                format!(
                    "virtual transform name {:?} is already used at {first}",
                    socket.name
                ),
            );
        } else {
            names.push((socket.name.clone(), name_pointer));
        }
        sockets.push(socket);
    }
    Ok(sockets)
}

/// One item; `None` when it is dropped (parent node not a joint).
fn read_item(
    item: &View<'_>,
    node_count: usize,
    node_to_joint: &impl Fn(usize) -> Option<JointId>,
    diagnostics: &mut Diagnostics,
) -> Result<Option<Socket>, Error> {
    for (key, value) in item.entries()? {
        if !ITEM_PROPERTIES.contains(&key) {
            diagnostics.error(
                "VT_UNKNOWN_PROPERTY",
                value.pointer(),
                format!("{key:?} is not a property of a virtual transform (the schema allows no others)"),
            );
        }
    }
    let name = match item.get("name") {
        Some(v) => v.str()?.to_owned(),
        None => return Err(item.error("missing the required property name (a string)")),
    };
    let parent = match item.get("parent") {
        Some(v) => {
            let node = v.node(node_count)?;
            match node_to_joint(node) {
                Some(joint) => Some(joint),
                None => {
                    diagnostics.warn(
                        "VT_PARENT_NOT_JOINT",
                        v.pointer(),
                        format!(
                            "virtual transform {name:?}: parent node {node} is not a joint of the skeleton; the virtual transform is dropped"
                        ),
                    );
                    return Ok(None);
                }
            }
        }
        None => {
            diagnostics.error(
                "VT_MISSING_PARENT",
                item.pointer(),
                format!(
                    "virtual transform {name:?} has no parent (the schema requires one); read as relative to the scene root"
                ),
            );
            None
        }
    };
    let translation = match item.get("translation") {
        Some(v) => Vec3::from_array(finite(&v, v.vec3_array()?)?),
        None => Vec3::ZERO,
    };
    let scale = match item.get("scale") {
        Some(v) => Vec3::from_array(finite(&v, v.vec3_array()?)?),
        None => Vec3::ONE,
    };
    let rotation = match item.get("rotation") {
        Some(v) => rotation(&v, &name, diagnostics)?,
        None => Quat::IDENTITY,
    };
    let flag = |key: &str| -> Result<bool, Error> {
        match item.get(key) {
            Some(v) => v
                .value()
                .as_bool()
                .ok_or_else(|| v.error(format!("expected a boolean, found {}", kind(v.value())))),
            None => Ok(true),
        }
    };
    let respect_parent_position = flag("respectParentPosition")?;
    let respect_parent_rotation = flag("respectParentRotation")?;
    let respect_parent_scale = flag("respectParentScale")?;
    let tags = match item.get("tags") {
        Some(v) => {
            let items = v.items().map_err(|_| {
                v.error(format!(
                    "expected an array of strings, found {}",
                    kind(v.value())
                ))
            })?;
            items
                .iter()
                .map(|t| t.str().map(str::to_owned))
                .collect::<Result<Vec<_>, _>>()?
        }
        None => Vec::new(),
    };
    let kind = SocketKind::from_tags(&tags);
    Ok(Some(Socket {
        name,
        parent,
        translation,
        rotation,
        scale,
        respect_parent_position,
        respect_parent_rotation,
        respect_parent_scale,
        tags,
        kind,
    }))
}

/// Rejects numbers that overflow `f32`.
fn finite<const N: usize>(view: &View<'_>, values: [f32; N]) -> Result<[f32; N], Error> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(values)
    } else {
        Err(view.error(format!(
            "expected finite numbers, found {values:?} (out of the f32 range)"
        )))
    }
}

fn rotation(view: &View<'_>, name: &str, diagnostics: &mut Diagnostics) -> Result<Quat, Error> {
    let items = view.items()?;
    let [x, y, z, w] = match items.as_slice() {
        [x, y, z, w] => [x.f32()?, y.f32()?, z.f32()?, w.f32()?],
        _ => {
            return Err(view.error(format!(
                "expected an array of 4 numbers (x, y, z, w), found {} items",
                items.len()
            )))
        }
    };
    let q = Quat::from_xyzw(x, y, z, w);
    let length = q.length();
    if !length.is_finite() || length <= f32::EPSILON {
        return Err(view.error(format!(
            "rotation [{x}, {y}, {z}, {w}] has length {length}: not a rotation"
        )));
    }
    if (length - 1.0).abs() > UNIT_TOLERANCE {
        diagnostics.warn(
            "VT_ROTATION_NOT_UNIT",
            view.pointer(),
            format!(
                "virtual transform {name:?}: rotation [{x}, {y}, {z}, {w}] has length {}, not 1; normalised",
                crate::math::num::Num::from(length)
            ),
        );
    }
    Ok(q / length)
}

/// The extension object (`{"virtualTransforms": [...]}`) for `sockets`, to put at
/// `extensions.KHR_virtual_transform` (the caller adds the name to `extensionsUsed`).
///
/// Properties equal to the schema's defaults (translation `0`, rotation identity, scale `1`,
/// flags `true`, no tags) are left out; keys come in the schema's order. Tags are
/// [`Socket::tags_for_writing`]. A socket with no parent (the scene root) is written without
/// `parent`, as the spec's prose allows but its schema does not: callers that need
/// schema-valid output should parent such sockets to a root joint first. Numbers are written
/// as the shortest decimal that reads back to the same `f32`.
pub fn to_json(sockets: &[Socket], joint_to_node: impl Fn(JointId) -> usize) -> Value {
    let items = sockets
        .iter()
        .map(|s| {
            let mut o = Map::new();
            o.insert("name".into(), Value::from(s.name.clone()));
            if let Some(joint) = s.parent {
                o.insert("parent".into(), Value::from(joint_to_node(joint)));
            }
            if s.translation != Vec3::ZERO {
                o.insert("translation".into(), numbers(&s.translation.to_array()));
            }
            if s.rotation != Quat::IDENTITY {
                o.insert("rotation".into(), numbers(&s.rotation.to_array()));
            }
            if s.scale != Vec3::ONE {
                o.insert("scale".into(), numbers(&s.scale.to_array()));
            }
            for (key, flag) in [
                ("respectParentPosition", s.respect_parent_position),
                ("respectParentRotation", s.respect_parent_rotation),
                ("respectParentScale", s.respect_parent_scale),
            ] {
                if !flag {
                    o.insert(key.into(), Value::Bool(false));
                }
            }
            let tags = s.tags_for_writing();
            if !tags.is_empty() {
                o.insert(
                    "tags".into(),
                    Value::Array(tags.into_iter().map(Value::String).collect()),
                );
            }
            Value::Object(o)
        })
        .collect();
    let mut extension = Map::new();
    extension.insert("virtualTransforms".into(), Value::Array(items));
    Value::Object(extension)
}

/// `f32`s as JSON numbers, shortest decimal first (`0.1f32` is written `0.1`).
fn numbers(values: &[f32]) -> Value {
    Value::Array(
        values
            .iter()
            .map(|v| {
                let shortest = v.to_string().parse::<f64>().unwrap_or(f64::from(*v));
                serde_json::Number::from_f64(shortest).map_or(Value::Null, Value::Number)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn joint(node: usize) -> Option<JointId> {
        JointId::from_index(node)
    }

    #[test]
    fn virtual_transform_socket_defaults_apply() {
        let root = json!({
            "extensionsUsed": ["KHR_virtual_transform"],
            "nodes": [{}, {}],
            "extensions": {"KHR_virtual_transform": {"virtualTransforms": [
                {"name": "a", "parent": 1}
            ]}}
        });
        let mut d = Diagnostics::new();
        let sockets = read(&root, joint, &mut d).unwrap();
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(sockets, vec![Socket::new("a", JointId::from_index(1))]);
        assert_eq!(
            to_json(&sockets, |j| j.index()),
            json!({"virtualTransforms": [{"name": "a", "parent": 1}]})
        );
    }

    #[test]
    fn virtual_transform_socket_writes_shortest_numbers_and_kind_tag() {
        let mut s = Socket::new("m", JointId::from_index(0));
        s.scale = Vec3::splat(0.1);
        s.respect_parent_rotation = false;
        s.kind = Some(SocketKind::Marker);
        assert_eq!(
            to_json(&[s], |j| j.index()),
            json!({"virtualTransforms": [{"name": "m", "parent": 0, "scale": [0.1, 0.1, 0.1],
                "respectParentRotation": false, "tags": ["marker"]}]})
        );
    }

    #[test]
    fn virtual_transform_absent_gives_no_sockets() {
        let mut d = Diagnostics::new();
        assert!(read(&json!({"nodes": []}), joint, &mut d)
            .unwrap()
            .is_empty());
        assert!(d.is_empty());
    }
}
