//! The drafts' schema checks ([`super::check`]) and the animations expressions play ([`super::expression_animations`]).

#[allow(clippy::wildcard_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

/// The animations `KHR_character_expression` names (valid indices, sorted, once each): they
/// hold expressions, not clips.
pub fn expression_animations(root: &Root) -> Vec<usize> {
    crate::formats::gltf::khr_character::expression_animations(root)
}

/// Whether a channel targets morph weights (a `weights` path, or a pointer to
/// `/nodes/{}/weights` or `/nodes/{}/weights/{}`).
pub(super) fn targets_weights(root: &Root, animation: usize, channel: usize) -> bool {
    root.animations
        .get(animation)
        .and_then(|a| a.channels.get(channel))
        .is_some_and(|c| matches!(driven(&c.target), Driven::Weights(..)))
}

/// Checks `KHR_character_expression`, its typed channel lists, and the visibility hints
/// against their schemas: errors (`KHR_EXPRESSION_INVALID`, `KHR_VISIBILITY_INVALID`) at the
/// JSON pointer of each violation, and a warning for a repeated expression name.
pub fn check(root: &Root, diagnostics: &mut Diagnostics) {
    check_expressions(root, diagnostics);
    check_visibility(root, diagnostics);
}

pub(super) fn check_expressions(root: &Root, diagnostics: &mut Diagnostics) {
    const CODE: &str = "KHR_EXPRESSION_INVALID";
    let Some(extension) = root.extensions.as_ref().and_then(|e| e.get(EXPRESSION)) else {
        return;
    };
    let base = pointer(["extensions", EXPRESSION]);
    let Some(extension) = extension.as_object() else {
        diagnostics.error(CODE, base, format!("{EXPRESSION} must be an object"));
        return;
    };
    let list_at = format!("{base}/expressions");
    let list = match extension.get("expressions") {
        None => {
            diagnostics.error(
                CODE,
                base,
                "missing the required property expressions (an array)",
            );
            return;
        }
        Some(Value::Array(list)) if list.is_empty() => {
            diagnostics.error(
                CODE,
                list_at,
                "expressions is empty: the schema requires at least one",
            );
            return;
        }
        Some(Value::Array(list)) => list,
        Some(other) => {
            diagnostics.error(
                CODE,
                list_at,
                format!("expressions must be an array, found {other}"),
            );
            return;
        }
    };
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, entry) in list.iter().enumerate() {
        let at = format!("{list_at}/{i}");
        let Some(entry) = entry.as_object() else {
            diagnostics.error(
                CODE,
                at,
                format!("an expression must be an object, found {entry}"),
            );
            continue;
        };
        for key in entry.keys() {
            if !matches!(
                key.as_str(),
                "expression" | "animation" | "extensions" | "extras"
            ) {
                diagnostics.error(
                    CODE,
                    format!("{at}{}", pointer([key.as_str()])),
                    format!("property {key:?} is not allowed in an expression (expression, animation, extensions, extras)"),
                );
            }
        }
        match entry.get("expression") {
            Some(Value::String(name)) => {
                if let Some(first) = names.get(name.as_str()) {
                    diagnostics.warn(
                        "KHR_EXPRESSION_DUPLICATE",
                        format!("{at}/expression"),
                        format!("expression {name:?} is already expression {first}"),
                    );
                } else {
                    names.insert(name, i);
                }
            }
            Some(other) => diagnostics.error(
                CODE,
                format!("{at}/expression"),
                format!("expression must be a string, found {other}"),
            ),
            None => diagnostics.error(
                CODE,
                at.clone(),
                "missing the required property expression (a string)",
            ),
        }
        let animation = match entry.get("animation") {
            None => {
                diagnostics.error(
                    CODE,
                    at.clone(),
                    "missing the required property animation (an animation index)",
                );
                None
            }
            Some(value) => match vrm0::index(value) {
                Some(a) if a < root.animations.len() => Some(a),
                _ => {
                    diagnostics.error(
                        CODE,
                        format!("{at}/animation"),
                        format!(
                            "expected an animation index below {}, found {value}",
                            root.animations.len()
                        ),
                    );
                    None
                }
            },
        };
        let Some(extensions) = entry.get("extensions") else {
            continue;
        };
        let Some(extensions) = extensions.as_object() else {
            diagnostics.error(
                CODE,
                format!("{at}/extensions"),
                "extensions must be an object",
            );
            continue;
        };
        for typed in TYPED {
            if let Some(value) = extensions.get(typed) {
                check_channels(
                    root,
                    value,
                    animation,
                    typed,
                    &format!("{at}/extensions/{typed}"),
                    diagnostics,
                );
            }
        }
    }
}

/// A typed extension's `channels`: a non-empty array of unique channel indices of the
/// entry's animation (`animation`, when it is valid); morph target channels must target weights.
pub(super) fn check_channels(
    root: &Root,
    value: &Value,
    animation: Option<usize>,
    typed: &str,
    at: &str,
    diagnostics: &mut Diagnostics,
) {
    const CODE: &str = "KHR_EXPRESSION_INVALID";
    let channels = match value.get("channels") {
        _ if !value.is_object() => {
            diagnostics.error(CODE, at.to_owned(), format!("{typed} must be an object"));
            return;
        }
        None => {
            diagnostics.error(
                CODE,
                at.to_owned(),
                "missing the required property channels (an array of channel indices)",
            );
            return;
        }
        Some(Value::Array(channels)) if channels.is_empty() => {
            diagnostics.error(
                CODE,
                format!("{at}/channels"),
                "channels is empty: the schema requires at least one",
            );
            return;
        }
        Some(Value::Array(channels)) => channels,
        Some(other) => {
            diagnostics.error(
                CODE,
                format!("{at}/channels"),
                format!("channels must be an array, found {other}"),
            );
            return;
        }
    };
    let count = animation
        .and_then(|a| root.animations.get(a))
        .map(|a| a.channels.len());
    let mut seen = HashSet::new();
    for (j, channel) in channels.iter().enumerate() {
        let here = format!("{at}/channels/{j}");
        let Some(index) = vrm0::index(channel) else {
            diagnostics.error(
                CODE,
                here,
                format!("expected a channel index, found {channel}"),
            );
            continue;
        };
        if !seen.insert(index) {
            diagnostics.error(
                CODE,
                here,
                format!("channel {index} is listed twice (the schema requires unique items)"),
            );
            continue;
        }
        let (Some(animation), Some(count)) = (animation, count) else {
            continue;
        };
        if index >= count {
            diagnostics.error(
                CODE,
                here,
                format!(
                    "animation {animation} has {count} channels: channel {index} does not exist"
                ),
            );
        } else if typed == MORPHTARGET && !targets_weights(root, animation, index) {
            diagnostics.error(
                CODE,
                here,
                format!(
                    "channel {index} of animation {animation} does not target morph weights (a weights path, or a pointer to /nodes/{{}}/weights)"
                ),
            );
        }
    }
}

/// One visibility hint: an object with a non-empty string `role` and, if any, a non-empty
/// string `label`.
pub(super) fn check_hint(value: &Value, at: &str, diagnostics: &mut Diagnostics) {
    const CODE: &str = "KHR_VISIBILITY_INVALID";
    let Some(hint) = value.as_object() else {
        diagnostics.error(
            CODE,
            at.to_owned(),
            format!("must be an object, found {value}"),
        );
        return;
    };
    match hint.get("role") {
        Some(Value::String(role)) if !role.is_empty() => {}
        Some(Value::String(_)) => diagnostics.error(
            CODE,
            format!("{at}/role"),
            "role is empty: it must be a non-empty string",
        ),
        Some(other) => diagnostics.error(
            CODE,
            format!("{at}/role"),
            format!("role must be a string, found {other}"),
        ),
        None => diagnostics.error(
            CODE,
            at.to_owned(),
            "missing the required property role (always, first_person, third_person or a vendor role)",
        ),
    }
    match hint.get("label") {
        None => {}
        Some(Value::String(label)) if !label.is_empty() => {}
        Some(Value::String(_)) => diagnostics.error(
            CODE,
            format!("{at}/label"),
            "label is empty: it must be a non-empty string when present",
        ),
        Some(other) => diagnostics.error(
            CODE,
            format!("{at}/label"),
            format!("label must be a string, found {other}"),
        ),
    }
}

pub(super) fn check_visibility(root: &Root, diagnostics: &mut Diagnostics) {
    for (n, node) in root.nodes.iter().enumerate() {
        if let Some(hint) = node
            .extensions
            .as_ref()
            .and_then(|e| e.get(NODE_VISIBILITY))
        {
            check_hint(
                hint,
                &format!("/nodes/{n}/extensions/{NODE_VISIBILITY}"),
                diagnostics,
            );
        }
    }
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            if let Some(hint) = primitive
                .other
                .get("extensions")
                .and_then(|e| e.get(PRIMITIVE_VISIBILITY))
            {
                check_hint(
                    hint,
                    &format!("/meshes/{m}/primitives/{p}/extensions/{PRIMITIVE_VISIBILITY}"),
                    diagnostics,
                );
            }
        }
    }
}
