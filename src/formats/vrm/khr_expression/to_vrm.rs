//! `KHR_character_expression` and visibility hints → VRM 1.0 expressions and `firstPerson` ([`super::khr_to_vrm1`]).

#[allow(clippy::wildcard_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// KHR → VRM 1.0
// ---------------------------------------------------------------------------------------------

/// What a channel drives.
pub(super) enum Driven {
    /// Morph weights of a node: every target (`None`) or one (`Some(k)`).
    Weights(usize, Option<usize>),
    /// A texture transform property (`offset` or `scale`) of a material.
    Texture(usize, bool),
    /// A node's translation, rotation or scale.
    Joint,
    /// Anything else (a texture swap, another pointer, an unknown path).
    Other(String),
}

pub(super) fn animation_pointer(target: &crate::formats::gltf::json::Target) -> Option<&str> {
    target
        .extensions
        .as_ref()?
        .get(ANIMATION_POINTER)?
        .get("pointer")?
        .as_str()
}

/// What a channel target drives.
pub(super) fn driven(target: &crate::formats::gltf::json::Target) -> Driven {
    match (target.path.as_str(), target.node) {
        ("weights", Some(node)) => return Driven::Weights(node.as_usize(), None),
        ("translation" | "rotation" | "scale", Some(_)) => return Driven::Joint,
        _ => {}
    }
    let Some(pointer) = animation_pointer(target) else {
        return Driven::Other(format!("path {:?}", target.path));
    };
    let number = |s: &str| -> Option<usize> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let segments: Vec<&str> = pointer.split('/').collect();
    match segments.as_slice() {
        ["", "nodes", n, "weights"] => {
            if let Some(n) = number(n) {
                return Driven::Weights(n, None);
            }
        }
        ["", "nodes", n, "weights", k] => {
            if let (Some(n), Some(k)) = (number(n), number(k)) {
                return Driven::Weights(n, Some(k));
            }
        }
        ["", "nodes", _, "translation" | "rotation" | "scale"] => return Driven::Joint,
        ["", "materials", m, .., "extensions", TEXTURE_TRANSFORM, property @ ("offset" | "scale")] => {
            if let Some(m) = number(m) {
                return Driven::Texture(m, *property == "offset");
            }
        }
        _ => {}
    }
    Driven::Other(format!("pointer {pointer:?}"))
}

/// The decimal most likely written for a value the buffer holds as an `f32`: the value itself
/// when it is short (at most 9 significant digits, as `0.5` or `0.498046875` are), else the
/// shortest decimal that reads back as the same `f32` (`0.1f32` → 0.1, not 0.100000001…).
pub(super) fn short(value: f32) -> f64 {
    let exact = f64::from(value);
    let scientific = format!("{exact:e}");
    let mantissa = scientific.split('e').next().unwrap_or_default();
    if mantissa.bytes().filter(u8::is_ascii_digit).count() <= 9 {
        return exact;
    }
    value.to_string().parse().unwrap_or(exact)
}

/// A channel's value at time 1 (the expression in full), `components` per key, with whether
/// its sampler is STEP; `Err` says why it cannot be read.
pub(super) fn full_value(
    document: &Document,
    animation: &Animation,
    channel: usize,
    components: usize,
) -> Result<(Vec<f32>, bool), String> {
    let sampler = animation
        .channels
        .get(channel)
        .and_then(|c| animation.samplers.get(c.sampler.as_usize()))
        .ok_or_else(|| "its sampler does not exist".to_owned())?;
    let interpolation = match sampler.interpolation.as_deref() {
        None | Some("LINEAR") => Interpolation::Linear,
        Some("STEP") => Interpolation::Step,
        Some("CUBICSPLINE") => Interpolation::CubicSpline,
        Some(other) => return Err(format!("interpolation {other:?} is not a glTF one")),
    };
    let times = accessor::read_f32(document, sampler.input).map_err(|e| e.to_string())?;
    let values = accessor::read_f32(document, sampler.output).map_err(|e| e.to_string())?;
    let track = Track::new(
        TrackTarget::Mesh(0),
        Property::Weights(components),
        interpolation,
        times,
        values,
    )
    .map_err(|e| format!("its keys cannot be sampled: {e}"))?;
    let mut out = vec![0.0; components];
    track.sample(1.0, &mut out);
    Ok((out, interpolation == Interpolation::Step))
}

/// A bind or annotation JSON number.
pub(super) fn number(value: f64) -> Value {
    vrm0::json_number(value)
}

/// One expression's VRM 1.0 object from its entry and animation.
pub(super) fn expression_json(
    document: &Document,
    entry: &Map<String, Value>,
    animation: &Animation,
    name: &str,
    at: &str,
    diagnostics: &mut Diagnostics,
) -> Value {
    let root = &document.root;
    let typed = entry.get("extensions").and_then(Value::as_object);
    let listed: Vec<usize> = TYPED
        .iter()
        .filter_map(|t| typed?.get(*t)?.get("channels")?.as_array())
        .flatten()
        .filter_map(vrm0::index)
        .collect();
    let read: Vec<usize> = if typed.is_some_and(|t| TYPED.iter().any(|n| t.contains_key(*n))) {
        let mut read = listed;
        read.sort_unstable();
        read.dedup();
        read
    } else {
        (0..animation.channels.len()).collect()
    };
    let mut morphs: Vec<Value> = Vec::new();
    // Per material: its offset and scale at full weight.
    let mut textures: Vec<(usize, Transform)> = Vec::new();
    let mut joints = Vec::new();
    let (mut steps, mut kept) = (0usize, 0usize);
    for c in read {
        let Some(channel) = animation.channels.get(c) else {
            continue;
        };
        let dropped = |diagnostics: &mut Diagnostics, why: String| {
            diagnostics.warn(
                "KHR_EXPRESSION_CHANNEL_DROPPED",
                at.to_owned(),
                format!("expression {name:?}: channel {c} dropped: {why}"),
            );
        };
        match driven(&channel.target) {
            Driven::Joint => joints.push(c),
            Driven::Other(what) => dropped(
                diagnostics,
                format!("its target ({what}) has no VRM expression bind"),
            ),
            Driven::Weights(node, one) => {
                let Some(targets) = node_targets(root, node) else {
                    dropped(
                        diagnostics,
                        format!("node {node} does not exist or holds no mesh"),
                    );
                    continue;
                };
                let (components, first) = match one {
                    Some(k) if k < targets => (1, k),
                    Some(k) => {
                        dropped(
                            diagnostics,
                            format!(
                                "node {node}'s mesh has {targets} morph targets, not {}",
                                k.saturating_add(1)
                            ),
                        );
                        continue;
                    }
                    None => (targets, 0),
                };
                if components == 0 {
                    dropped(
                        diagnostics,
                        format!("node {node}'s mesh has no morph target"),
                    );
                    continue;
                }
                let (full, step) = match full_value(document, animation, c, components) {
                    Ok(found) => found,
                    Err(why) => {
                        dropped(diagnostics, why);
                        continue;
                    }
                };
                kept += 1;
                steps += usize::from(step);
                for (k, weight) in full.iter().enumerate() {
                    if *weight != 0.0 {
                        morphs.push(json!({
                            "node": node,
                            "index": first + k,
                            "weight": number(short(*weight)),
                        }));
                    }
                }
            }
            Driven::Texture(material, is_offset) => {
                if material >= materials_len(root) {
                    dropped(diagnostics, format!("material {material} does not exist"));
                    continue;
                }
                let (full, step) = match full_value(document, animation, c, 2) {
                    Ok(found) => found,
                    Err(why) => {
                        dropped(diagnostics, why);
                        continue;
                    }
                };
                kept += 1;
                steps += usize::from(step);
                let value = match full.as_slice() {
                    [x, y] => [short(*x), short(*y)],
                    _ => continue,
                };
                let slot = match textures.iter().position(|(m, _)| *m == material) {
                    Some(i) => i,
                    None => {
                        textures.push((material, Transform::default()));
                        textures.len() - 1
                    }
                };
                if let Some((_, transform)) = textures.get_mut(slot) {
                    let property = if is_offset {
                        &mut transform.offset
                    } else {
                        &mut transform.scale
                    };
                    property.get_or_insert(value);
                }
            }
        }
    }
    if !joints.is_empty() {
        diagnostics.warn(
            "KHR_EXPRESSION_JOINT_DROPPED",
            at.to_owned(),
            format!(
                "expression {name:?}: joint channels {joints:?} dropped: a VRM expression cannot move nodes"
            ),
        );
    }
    let mut out = Map::new();
    if !morphs.is_empty() {
        out.insert("morphTargetBinds".into(), Value::Array(morphs));
    }
    if !textures.is_empty() {
        let binds: Vec<Value> = textures
            .into_iter()
            .map(|(material, transform)| {
                let mut bind = Map::new();
                bind.insert("material".into(), Value::from(material));
                if let Some(scale) = transform.scale {
                    bind.insert("scale".into(), vrm0::json_numbers(&scale));
                }
                if let Some(offset) = transform.offset {
                    bind.insert("offset".into(), vrm0::json_numbers(&offset));
                }
                Value::Object(bind)
            })
            .collect();
        out.insert("textureTransformBinds".into(), Value::Array(binds));
    }
    out.insert("isBinary".into(), Value::from(kept > 0 && steps == kept));
    Value::Object(out)
}

/// A material's texture transform at full weight, as read (the first texture read wins).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Transform {
    offset: Option<[f64; 2]>,
    scale: Option<[f64; 2]>,
}

/// The VRM 1.0 `expressions` object from `KHR_character_expression`.
pub(super) fn expressions_json(
    document: &Document,
    list: &[Value],
    diagnostics: &mut Diagnostics,
) -> Value {
    let base = pointer(["extensions", EXPRESSION, "expressions"]);
    let mut preset = Map::new();
    let mut custom = Map::new();
    for (i, entry) in list.iter().enumerate() {
        let at = format!("{base}/{i}");
        let Some(entry) = entry.as_object() else {
            continue;
        };
        let name = entry
            .get("expression")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(animation) = entry
            .get("animation")
            .and_then(vrm0::index)
            .and_then(|a| document.root.animations.get(a))
        else {
            continue;
        };
        if preset.contains_key(name) || custom.contains_key(name) {
            diagnostics.warn(
                "KHR_EXPRESSION_DUPLICATE",
                format!("{at}/expression"),
                format!("a second expression named {name:?}: dropped (the first is kept)"),
            );
            continue;
        }
        let value = expression_json(document, entry, animation, name, &at, diagnostics);
        if VRM_PRESETS.contains(&name) {
            preset.insert(name.to_owned(), value);
        } else {
            custom.insert(name.to_owned(), value);
        }
    }
    let mut out = Map::new();
    if !preset.is_empty() {
        out.insert("preset".into(), Value::Object(preset));
    }
    if !custom.is_empty() {
        out.insert("custom".into(), Value::Object(custom));
    }
    Value::Object(out)
}

/// The `role` of a visibility hint in `extensions`, if it has one.
pub(super) fn hint_role<'a>(
    extensions: Option<&'a Map<String, Value>>,
    name: &str,
) -> Option<&'a str> {
    extensions?.get(name)?.get("role")?.as_str()
}

/// The VRM 1.0 `meshAnnotations` from the visibility hints; `None` when no mesh node has a role.
pub(super) fn annotations_json(root: &Root, diagnostics: &mut Diagnostics) -> Option<Value> {
    let mut parent: Vec<Option<usize>> = vec![None; root.nodes.len()];
    for (i, node) in root.nodes.iter().enumerate() {
        for child in &node.children {
            if let Some(slot) = parent.get_mut(child.as_usize()) {
                *slot = Some(i);
            }
        }
    }
    let mut out = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for (n, node) in root.nodes.iter().enumerate() {
        let Some(mesh) = node.mesh.map(Index::as_usize) else {
            continue;
        };
        // The nearest hinted node, this one first (bounded: the hierarchy is a forest).
        let mut node_role = None;
        let mut at = Some(n);
        for _ in 0..root.nodes.len() {
            let Some(i) = at else { break };
            if let Some(role) = hint_role(
                root.nodes.get(i).and_then(|x| x.extensions.as_ref()),
                NODE_VISIBILITY,
            ) {
                node_role = Some(role);
                break;
            }
            at = parent.get(i).copied().flatten();
        }
        let primitive_roles: Vec<Option<&str>> = root.meshes.get(mesh).map_or(Vec::new(), |m| {
            m.primitives
                .iter()
                .map(|p| {
                    hint_role(
                        p.other.get("extensions").and_then(Value::as_object),
                        PRIMITIVE_VISIBILITY,
                    )
                })
                .collect()
        });
        let primitive_role = match primitive_roles.split_first() {
            Some((first, rest)) if rest.iter().all(|r| r == first) => *first,
            _ => None,
        };
        let mixed = primitive_roles.iter().any(Option::is_some)
            && (primitive_role.is_none() || node_role.is_some_and(|r| Some(r) != primitive_role));
        if mixed {
            diagnostics.warn(
                "KHR_VISIBILITY_MIXED",
                format!("/meshes/{mesh}/primitives"),
                match node_role {
                    Some(role) => format!(
                        "node {n}: its mesh's primitive roles {primitive_roles:?} differ from the node's role {role:?}, which is used"
                    ),
                    None => format!(
                        "node {n}: its mesh's primitives have different roles {primitive_roles:?}, and VRM annotates whole meshes: not annotated"
                    ),
                },
            );
        }
        let Some(role) = node_role.or(primitive_role) else {
            continue;
        };
        let kind = match role {
            "always" => "both",
            "first_person" => "firstPersonOnly",
            "third_person" => "thirdPersonOnly",
            r if r == AUTO_ROLE || r == "auto" => "auto",
            other => {
                unknown.push(format!("node {n}: {other:?}"));
                "both"
            }
        };
        out.push(json!({"node": n, "type": kind}));
    }
    if !unknown.is_empty() {
        diagnostics.warn(
            "KHR_VISIBILITY_UNKNOWN_ROLE",
            "/nodes",
            format!(
                "roles that are not always, first_person, third_person or {AUTO_ROLE} were written as both (readers treat unknown roles as always): {}",
                vrm0::short_list(&unknown, 10)
            ),
        );
    }
    (!out.is_empty()).then_some(Value::Array(out))
}

/// The VRM 1.0 `expressions` object and `firstPerson.meshAnnotations` array of a document that
/// declares `KHR_character_expression` or visibility hints, as the module docs say; `None` when
/// it declares neither. `expressions` is `{}` when only hints are declared.
///
/// A channel that cannot be read (an accessor out of range or not finite, keys that cannot be
/// sampled) is dropped with a warning, as is what VRM cannot hold.
///
/// # Errors
/// The extensions break their schema: [`check`] finds an error (the first, with the others
/// listed).
pub fn khr_to_vrm1(
    document: &Document,
    diagnostics: &mut Diagnostics,
) -> Result<Option<(Value, Option<Value>)>, Error> {
    let root = &document.root;
    let mut found = Diagnostics::new();
    check(root, &mut found);
    if let Some(error) = validate::into_error(&found, document.path()) {
        return Err(error);
    }
    let list = root
        .extensions
        .as_ref()
        .and_then(|e| e.get(EXPRESSION))
        .and_then(|e| e.get("expressions"))
        .and_then(Value::as_array);
    let annotations = annotations_json(root, diagnostics);
    let expressions = match list {
        Some(list) => expressions_json(document, list, diagnostics),
        None if annotations.is_some() => json!({}),
        None => return Ok(None),
    };
    Ok(Some((expressions, annotations)))
}
