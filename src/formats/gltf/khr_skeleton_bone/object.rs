//! The extension object on a node: its schema.

#[allow(clippy::wildcard_imports)]
use super::*;
use crate::formats::gltf::view::kind;

// ---------------------------------------------------------------------------------------------
// The extension object
// ---------------------------------------------------------------------------------------------

/// A node's extension value.
pub(super) fn extension(node: &Node) -> Option<&Value> {
    node.extensions.as_ref()?.get(NAME)
}

/// The valid properties of one extension object.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct BoneExt {
    pub(super) connected: Option<bool>,
    pub(super) length: Option<f64>,
}

/// Reads node `n`'s extension value, reporting schema problems when `diagnostics` is given;
/// invalid properties read as absent.
pub(super) fn read_bone(
    value: &Value,
    n: usize,
    mut diagnostics: Option<&mut Diagnostics>,
) -> BoneExt {
    let base = format!("/nodes/{n}/extensions/{NAME}");
    let mut report = |code: &'static str, severity: Severity, pointer: String, message: String| {
        if let Some(d) = diagnostics.as_deref_mut() {
            d.push(code, severity, pointer, message);
        }
    };
    let Some(object) = value.as_object() else {
        report(
            "KHR_SKELETON_BONE_INVALID",
            Severity::Error,
            base,
            format!(
                "node {n}'s {NAME} is {}, not an object: the schema requires an object with \
                 the optional properties connected (boolean) and length (number ≥ 0); write {{}} \
                 to mark a bone with no properties",
                kind(value)
            ),
        );
        return BoneExt::default();
    };
    let mut bone = BoneExt::default();
    for (key, value) in object {
        let pointer = format!("{base}/{}", token(key));
        match key.as_str() {
            "connected" => match value.as_bool() {
                Some(flag) => bone.connected = Some(flag),
                None => report(
                    "KHR_SKELETON_BONE_INVALID",
                    Severity::Error,
                    pointer,
                    format!(
                        "connected is {}, not a boolean: the schema requires true or false \
                         (default false); write a boolean or remove it",
                        kind(value)
                    ),
                ),
            },
            "length" => match value.as_f64() {
                Some(length) if length.is_finite() && length >= 0.0 => bone.length = Some(length),
                Some(length) => report(
                    "KHR_SKELETON_BONE_INVALID",
                    Severity::Error,
                    pointer,
                    format!(
                        "length is {length}: a bone's length MUST NOT be negative (it is the \
                         distance from the bone's head to its tail along local +Y); write a \
                         number ≥ 0 or remove it (no defined length)"
                    ),
                ),
                None => report(
                    "KHR_SKELETON_BONE_INVALID",
                    Severity::Error,
                    pointer,
                    format!(
                        "length is {}, not a number: the schema requires a number ≥ 0 (metres \
                         along the bone's local +Y); write a number or remove it",
                        kind(value)
                    ),
                ),
            },
            other if COMMON.contains(&other) => {}
            other => {
                let draft = if matches!(other, "mass" | "shape") {
                    " (an earlier draft had it; the current one does not)"
                } else {
                    ""
                };
                report(
                    "KHR_SKELETON_BONE_UNKNOWN_PROPERTY",
                    Severity::Warning,
                    pointer,
                    format!(
                        "{other:?} is not a property of {NAME}{draft}: it defines connected and \
                         length only; readers ignore it (move it to extras to keep it)"
                    ),
                );
            }
        }
    }
    bone
}

/// A JSON pointer token (`~` → `~0`, `/` → `~1`).
pub(super) fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
