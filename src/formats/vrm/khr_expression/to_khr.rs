//! VRM expressions and first-person annotations → `KHR_character_expression` and visibility hints ([`super::vrm_to_khr`]).

#[allow(clippy::wildcard_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// VRM → KHR
// ---------------------------------------------------------------------------------------------

/// A morph target bind, checked against the document; weight in 0–1.
#[derive(Debug, Clone)]
pub(super) struct Bind {
    node: usize,
    index: usize,
    weight: f64,
}

/// A texture transform bind (VRM 1.0), its values with VRM's defaults filled in.
#[derive(Debug, Clone)]
pub(super) struct TextureBind {
    material: usize,
    at: String,
    offset: [f64; 2],
    scale: [f64; 2],
}

/// One VRM expression, read.
#[derive(Debug, Clone)]
pub(super) struct Source {
    name: String,
    at: String,
    morphs: Vec<Bind>,
    textures: Vec<TextureBind>,
    binary: bool,
}

/// How many morph targets a mesh has (the most any primitive has; glTF wants them equal).
pub(super) fn target_count(root: &Root, mesh: usize) -> usize {
    root.meshes.get(mesh).map_or(0, |m| {
        m.primitives
            .iter()
            .map(|p| p.targets.len())
            .max()
            .unwrap_or(0)
    })
}

/// The morph target count of a node's mesh; `None` when the node or its mesh does not exist.
pub(super) fn node_targets(root: &Root, node: usize) -> Option<usize> {
    let mesh = root.nodes.get(node)?.mesh?.as_usize();
    root.meshes.get(mesh)?;
    Some(target_count(root, mesh))
}

/// A bind checked against the document, or why it cannot be kept.
pub(super) fn morph_bind(
    root: &Root,
    node: Option<usize>,
    index: Option<usize>,
    weight: Option<f64>,
) -> Result<Bind, String> {
    let (Some(node), Some(index), Some(weight)) = (node, index, weight) else {
        return Err("expected node (or mesh), index and weight numbers".into());
    };
    if node >= root.nodes.len() {
        return Err(format!(
            "node {node} does not exist ({} nodes)",
            root.nodes.len()
        ));
    }
    let Some(targets) = node_targets(root, node) else {
        return Err(format!("node {node} holds no mesh"));
    };
    if index >= targets {
        return Err(format!(
            "node {node}'s mesh has {targets} morph targets, not {}",
            index.saturating_add(1)
        ));
    }
    Ok(Bind {
        node,
        index,
        weight,
    })
}

/// A 2-vector property: `default` when absent, `None` when it is not two finite numbers.
pub(super) fn vec2(value: Option<&Value>, default: [f64; 2]) -> Option<[f64; 2]> {
    let Some(value) = value else {
        return Some(default);
    };
    match value.as_array()?.as_slice() {
        [x, y] => {
            let x = x.as_f64().filter(|v| v.is_finite())?;
            let y = y.as_f64().filter(|v| v.is_finite())?;
            Some([x, y])
        }
        _ => None,
    }
}

pub(super) fn materials_len(root: &Root) -> usize {
    root.other_len("materials")
}

/// The VRM 1.0 expressions, `preset` then `custom`, in file order.
pub(super) fn read_vrm1(
    vrm: &Map<String, Value>,
    root: &Root,
    diagnostics: &mut Diagnostics,
) -> Vec<Source> {
    let base = pointer(["extensions", VRMC_VRM, "expressions"]);
    let Some(expressions) = vrm.get("expressions") else {
        return Vec::new();
    };
    let Some(expressions) = expressions.as_object() else {
        diagnostics.warn(
            "KHR_EXPRESSION_DROPPED",
            base,
            "expressions is not an object: no expression was read",
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for group in ["preset", "custom"] {
        let Some(entries) = expressions.get(group).and_then(Value::as_object) else {
            continue;
        };
        for (name, expression) in entries {
            let at = format!("{base}{}", pointer([group, name.as_str()]));
            let Some(expression) = expression.as_object() else {
                diagnostics.warn(
                    "KHR_EXPRESSION_DROPPED",
                    at,
                    format!("expression {name:?} is not an object: dropped"),
                );
                continue;
            };
            let mut source = Source {
                name: name.clone(),
                at: at.clone(),
                morphs: Vec::new(),
                textures: Vec::new(),
                binary: expression
                    .get("isBinary")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            };
            for (b, bind) in vrm0::array(expression, "morphTargetBinds")
                .iter()
                .enumerate()
            {
                let found = morph_bind(
                    root,
                    bind.get("node").and_then(vrm0::index),
                    bind.get("index").and_then(vrm0::index),
                    bind.get("weight")
                        .and_then(Value::as_f64)
                        .filter(|w| w.is_finite()),
                );
                match found {
                    Ok(bind) => source.morphs.push(bind),
                    Err(why) => diagnostics.warn(
                        "KHR_EXPRESSION_DROPPED",
                        format!("{at}/morphTargetBinds/{b}"),
                        format!("expression {name:?}: morph target bind dropped: {why}"),
                    ),
                }
            }
            let colors = vrm0::array(expression, "materialColorBinds").len();
            if colors > 0 {
                diagnostics.warn(
                    "KHR_EXPRESSION_MATERIAL_DROPPED",
                    format!("{at}/materialColorBinds"),
                    format!(
                        "expression {name:?}: {colors} material colour bind(s) dropped: the drafts animate morph targets, texture transforms and joints, not material colours"
                    ),
                );
            }
            for (b, bind) in vrm0::array(expression, "textureTransformBinds")
                .iter()
                .enumerate()
            {
                let bind_at = format!("{at}/textureTransformBinds/{b}");
                let material = bind.get("material").and_then(vrm0::index);
                let offset = vec2(bind.get("offset"), [0.0, 0.0]);
                let scale = vec2(bind.get("scale"), [1.0, 1.0]);
                let problem = match (material, offset, scale) {
                    (None, ..) => Some("expected a material index".to_owned()),
                    (Some(m), ..) if m >= materials_len(root) => Some(format!(
                        "material {m} does not exist ({} materials)",
                        materials_len(root)
                    )),
                    (_, None, _) | (_, _, None) => {
                        Some("offset and scale must be two numbers each".to_owned())
                    }
                    _ => None,
                };
                match (problem, material, offset, scale) {
                    (None, Some(material), Some(offset), Some(scale)) => {
                        source.textures.push(TextureBind {
                            material,
                            at: bind_at,
                            offset,
                            scale,
                        });
                    }
                    (problem, ..) => diagnostics.warn(
                        "KHR_EXPRESSION_DROPPED",
                        bind_at,
                        format!(
                            "expression {name:?}: texture transform bind dropped: {}",
                            problem.unwrap_or_default()
                        ),
                    ),
                }
            }
            out.push(source);
        }
    }
    out
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

/// The VRM 0.x blend shape groups, in file order, named as VRM 1.0 names them.
pub(super) fn read_vrm0(
    vrm: &Map<String, Value>,
    root: &Root,
    diagnostics: &mut Diagnostics,
) -> Vec<Source> {
    let base = pointer(["extensions", VRM0, "blendShapeMaster", "blendShapeGroups"]);
    let groups = vrm0::object(vrm, "blendShapeMaster")
        .map_or(&[][..], |master| vrm0::array(master, "blendShapeGroups"));
    let by_mesh = nodes_by_mesh(root);
    let mut out = Vec::new();
    for (i, group) in groups.iter().enumerate() {
        let at = format!("{base}/{i}");
        let Some(group) = group.as_object() else {
            diagnostics.warn(
                "KHR_EXPRESSION_DROPPED",
                at,
                "the blend shape group is not an object: dropped",
            );
            continue;
        };
        let name = vrm0::string(group, "name").unwrap_or_default();
        let preset_name = super::super::migrate::expressions::preset_name(group);
        let key = vrm0_preset(&preset_name).map_or_else(|| name.to_owned(), str::to_owned);
        if key.is_empty() {
            diagnostics.warn(
                "KHR_EXPRESSION_DROPPED",
                at,
                "the blend shape group has no name and no preset: dropped",
            );
            continue;
        }
        let mut source = Source {
            name: key.clone(),
            at: at.clone(),
            morphs: Vec::new(),
            textures: Vec::new(),
            binary: group
                .get("isBinary")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
        for (b, bind) in vrm0::array(group, "binds").iter().enumerate() {
            let bind_at = format!("{at}/binds/{b}");
            let mesh = bind.get("mesh").and_then(vrm0::index);
            let index = bind.get("index").and_then(vrm0::index);
            let weight = bind
                .get("weight")
                .and_then(Value::as_f64)
                .filter(|w| w.is_finite())
                .map(|w| w / 100.0);
            let nodes = mesh.and_then(|m| by_mesh.get(m)).filter(|n| !n.is_empty());
            let Some(nodes) = nodes else {
                diagnostics.warn(
                    "KHR_EXPRESSION_DROPPED",
                    bind_at,
                    format!(
                        "expression {key:?}: morph bind dropped: mesh {} is held by no node",
                        bind.get("mesh")
                            .map_or("(none)".to_owned(), Value::to_string)
                    ),
                );
                continue;
            };
            for &node in nodes {
                match morph_bind(root, Some(node), index, weight) {
                    Ok(bind) => source.morphs.push(bind),
                    Err(why) => {
                        diagnostics.warn(
                            "KHR_EXPRESSION_DROPPED",
                            bind_at,
                            format!("expression {key:?}: morph bind dropped: {why}"),
                        );
                        break;
                    }
                }
            }
        }
        let values = vrm0::array(group, "materialValues").len();
        if values > 0 {
            diagnostics.warn(
                "KHR_EXPRESSION_MATERIAL_DROPPED",
                format!("{at}/materialValues"),
                format!("expression {key:?}: {values} material value(s) dropped: VRM 0.x material values have no KHR form"),
            );
        }
        out.push(source);
    }
    out
}

/// Accumulates the new buffer with its buffer views and accessors (as `build.rs`'s writer
/// does when appending clips: 4-byte aligned views, input accessors with min and max, equal
/// key times written once).
pub(super) struct Writer {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    buffer: usize,
    view_base: usize,
    accessor_base: usize,
    inputs: Vec<(Vec<u32>, usize)>,
}

impl Writer {
    fn floats(
        &mut self,
        values: &[f32],
        kind: &str,
        components: usize,
        bounds: bool,
    ) -> Result<usize, Error> {
        let floats = self.bin.len() / 4 + values.len();
        if floats > MAX_FLOATS {
            return Err(Error::unsupported(format!(
                "{EXPRESSION}: the expression animations would take more than {MAX_FLOATS} floats"
            )));
        }
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        self.views.push(json!({
            "buffer": self.buffer,
            "byteOffset": offset,
            "byteLength": values.len() * 4,
        }));
        let view = self.view_base + self.views.len() - 1;
        let components = components.max(1);
        let count = values.len() / components;
        let mut accessor =
            json!({"bufferView": view, "componentType": FLOAT, "count": count, "type": kind});
        if bounds && count > 0 {
            let mut min = vec![f32::INFINITY; components];
            let mut max = vec![f32::NEG_INFINITY; components];
            for element in values.chunks_exact(components) {
                for (c, v) in element.iter().enumerate() {
                    if let (Some(lo), Some(hi)) = (min.get_mut(c), max.get_mut(c)) {
                        *lo = lo.min(*v);
                        *hi = hi.max(*v);
                    }
                }
            }
            let wide = |v: Vec<f32>| v.into_iter().map(f64::from).collect::<Vec<f64>>();
            accessor["min"] = json!(wide(min));
            accessor["max"] = json!(wide(max));
        }
        self.accessors.push(accessor);
        Ok(self.accessor_base + self.accessors.len() - 1)
    }

    /// The input accessor of these key times (written once per distinct times).
    fn input(&mut self, times: &[f32]) -> Result<usize, Error> {
        let bits: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
        if let Some((_, accessor)) = self.inputs.iter().find(|(b, _)| *b == bits) {
            return Ok(*accessor);
        }
        let accessor = self.floats(times, "SCALAR", 1, true)?;
        self.inputs.push((bits, accessor));
        Ok(accessor)
    }
}

/// A texture of a material a transform bind moves: the JSON pointer of its
/// `KHR_texture_transform` and the transform's current offset and scale.
pub(super) struct TextureSlot {
    pointer: String,
    offset: [f64; 2],
    scale: [f64; 2],
}

/// The textures of material `material` (in `materials`, the root's array), each given a
/// `KHR_texture_transform` where it has none.
pub(super) fn texture_slots(materials: &mut Value, material: usize) -> Vec<TextureSlot> {
    let mut out = Vec::new();
    let Some(entry) = materials.get_mut(material) else {
        return out;
    };
    'paths: for path in TEXTURE_PATHS {
        let mut at = &mut *entry;
        for segment in path.split('/') {
            match at.get_mut(segment) {
                Some(next) => at = next,
                None => continue 'paths,
            }
        }
        let Some(info) = at.as_object_mut() else {
            continue;
        };
        if !info.contains_key("index") {
            continue;
        }
        let extensions = info.entry("extensions").or_insert_with(|| json!({}));
        let Some(extensions) = extensions.as_object_mut() else {
            continue;
        };
        let transform = extensions
            .entry(TEXTURE_TRANSFORM)
            .or_insert_with(|| json!({}));
        if !transform.is_object() {
            continue;
        }
        out.push(TextureSlot {
            pointer: format!("/materials/{material}/{path}/extensions/{TEXTURE_TRANSFORM}"),
            offset: vec2(transform.get("offset"), [0.0, 0.0]).unwrap_or([0.0, 0.0]),
            scale: vec2(transform.get("scale"), [1.0, 1.0]).unwrap_or([1.0, 1.0]),
        });
    }
    out
}

/// One expression written: its animation and the channels of each kind.
pub(super) struct Written {
    animation: Value,
    morph_channels: Vec<usize>,
    texture_channels: Vec<usize>,
}

/// Keys values `off` (time 0) and `full` (after), as the module docs say.
pub(super) fn keyed(off: &[f64], full: &[f64], binary: bool) -> Vec<f32> {
    let keys = if binary { 3 } else { 2 };
    let mut values = Vec::with_capacity(off.len() * keys);
    values.extend(off.iter().map(|&v| to_f32(v)));
    for _ in 1..keys {
        values.extend(full.iter().map(|&v| to_f32(v)));
    }
    values
}

/// Writes one expression's animation; `None` when no bind is left.
pub(super) fn write_expression(
    w: &mut Writer,
    root: &Root,
    source: &Source,
    materials: &mut Option<Value>,
    diagnostics: &mut Diagnostics,
) -> Result<Option<Written>, Error> {
    let (times, interpolation): (&[f32], &str) = if source.binary {
        (&[0.0, 0.5, 1.0], "STEP")
    } else {
        (&[0.0, 1.0], "LINEAR")
    };
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    let mut written = Written {
        animation: Value::Null,
        morph_channels: Vec::new(),
        texture_channels: Vec::new(),
    };
    // Morph targets: one weights channel per node, its targets in full.
    let mut by_node: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for bind in &source.morphs {
        let targets = node_targets(root, bind.node).unwrap_or(0);
        let full = by_node
            .entry(bind.node)
            .or_insert_with(|| vec![0.0; targets]);
        if let Some(weight) = full.get_mut(bind.index) {
            *weight += bind.weight;
        }
    }
    for (node, full) in &by_node {
        let input = w.input(times)?;
        let output = w.floats(
            &keyed(&vec![0.0; full.len()], full, source.binary),
            "SCALAR",
            1,
            false,
        )?;
        samplers.push(json!({"input": input, "output": output, "interpolation": interpolation}));
        written.morph_channels.push(channels.len());
        channels.push(json!({
            "sampler": samplers.len() - 1,
            "target": {"node": node, "path": "weights"},
        }));
    }
    // Texture transforms: offset and scale of every texture of the material.
    for bind in &source.textures {
        let slots = match materials.as_mut() {
            Some(materials) => texture_slots(materials, bind.material),
            None => Vec::new(),
        };
        if slots.is_empty() {
            diagnostics.warn(
                "KHR_EXPRESSION_DROPPED",
                bind.at.clone(),
                format!(
                    "expression {:?}: texture transform bind dropped: material {} has no texture",
                    source.name, bind.material
                ),
            );
            continue;
        }
        for slot in slots {
            for (property, off, full) in [
                ("offset", slot.offset, bind.offset),
                ("scale", slot.scale, bind.scale),
            ] {
                let input = w.input(times)?;
                let output = w.floats(&keyed(&off, &full, source.binary), "VEC2", 2, false)?;
                samplers.push(
                    json!({"input": input, "output": output, "interpolation": interpolation}),
                );
                written.texture_channels.push(channels.len());
                channels.push(json!({
                    "sampler": samplers.len() - 1,
                    "target": {
                        "path": "pointer",
                        "extensions": {ANIMATION_POINTER: {"pointer": format!("{}/{property}", slot.pointer)}},
                    },
                }));
            }
        }
    }
    if channels.is_empty() {
        return Ok(None);
    }
    written.animation = json!({"name": source.name, "channels": channels, "samplers": samplers});
    Ok(Some(written))
}

/// The drafts' role of a VRM 1.0 annotation type or VRM 0.x flag (case-insensitive).
pub(super) fn role_of(kind: &str) -> Option<&'static str> {
    Some(match kind.to_ascii_lowercase().as_str() {
        "both" => "always",
        "firstpersononly" => "first_person",
        "thirdpersononly" => "third_person",
        "auto" => AUTO_ROLE,
        _ => return None,
    })
}

/// Adds the annotation of `node` (type `kind`, found at `at`) to `out`, or says why not.
pub(super) fn annotate(
    root: &Root,
    node: Option<usize>,
    kind: Option<&str>,
    at: String,
    out: &mut Vec<(usize, &'static str)>,
    diagnostics: &mut Diagnostics,
) {
    let problem = match (node, kind.map(role_of)) {
        (_, None) => "expected a type string".to_owned(),
        (_, Some(None)) => format!(
            "type {:?} is not auto, both, thirdPersonOnly or firstPersonOnly",
            kind.unwrap_or_default()
        ),
        (None, _) => "expected a node index".to_owned(),
        (Some(node), _) if node >= root.nodes.len() => {
            format!("node {node} does not exist ({} nodes)", root.nodes.len())
        }
        (Some(node), _) if out.iter().any(|(n, _)| *n == node) => {
            format!("node {node} is already annotated")
        }
        (Some(node), Some(Some(role))) => {
            let existing = root
                .nodes
                .get(node)
                .and_then(|n| n.extensions.as_ref())
                .and_then(|e| e.get(NODE_VISIBILITY));
            match existing {
                None => {
                    out.push((node, role));
                    return;
                }
                // Already said, as by an earlier conversion: nothing to do.
                Some(hint) if hint.get("role").and_then(Value::as_str) == Some(role) => return,
                Some(hint) => {
                    format!("node {node} already has a {NODE_VISIBILITY} ({hint}), which is kept")
                }
            }
        }
    };
    diagnostics.warn(
        "KHR_VISIBILITY_DROPPED",
        at,
        format!("first-person annotation dropped: {problem}"),
    );
}

/// The VRM first-person annotations as (node, role), checked against the document: VRM 1.0's
/// when `vrm1` is given, else VRM 0.x's (each on every node holding its mesh).
pub(super) fn read_annotations(
    root: &Root,
    vrm1: Option<&Map<String, Value>>,
    vrm0_ext: Option<&Map<String, Value>>,
    diagnostics: &mut Diagnostics,
) -> Vec<(usize, &'static str)> {
    let mut out: Vec<(usize, &'static str)> = Vec::new();
    if let Some(vrm) = vrm1 {
        let base = pointer(["extensions", VRMC_VRM, "firstPerson", "meshAnnotations"]);
        let list =
            vrm0::object(vrm, "firstPerson").map_or(&[][..], |f| vrm0::array(f, "meshAnnotations"));
        for (i, entry) in list.iter().enumerate() {
            let node = entry.get("node").and_then(vrm0::index);
            let kind = entry.get("type").and_then(Value::as_str);
            annotate(
                root,
                node,
                kind,
                format!("{base}/{i}"),
                &mut out,
                diagnostics,
            );
        }
    } else if let Some(vrm) = vrm0_ext {
        let base = pointer(["extensions", VRM0, "firstPerson", "meshAnnotations"]);
        let list =
            vrm0::object(vrm, "firstPerson").map_or(&[][..], |f| vrm0::array(f, "meshAnnotations"));
        let by_mesh = nodes_by_mesh(root);
        for (i, entry) in list.iter().enumerate() {
            let at = format!("{base}/{i}");
            let mesh = entry.get("mesh").and_then(vrm0::index);
            let kind = entry
                .get("firstPersonFlag")
                .map_or(Some("Auto"), Value::as_str);
            match mesh.and_then(|m| by_mesh.get(m)).filter(|n| !n.is_empty()) {
                Some(nodes) => {
                    for &node in nodes {
                        annotate(root, Some(node), kind, at.clone(), &mut out, diagnostics);
                    }
                }
                None => diagnostics.warn(
                    "KHR_VISIBILITY_DROPPED",
                    at,
                    format!(
                        "first-person annotation dropped: mesh {} is held by no node",
                        entry
                            .get("mesh")
                            .map_or("(none)".to_owned(), Value::to_string)
                    ),
                ),
            }
        }
    }
    out
}

/// Writes `KHR_character_expression` (one new animation per expression, in a new buffer) and
/// `KHR_node_visibility_hint`s from the document's VRM 1.0 (`VRMC_vrm`, preferred) or VRM 0.x
/// (`VRM`) expressions and first-person annotations, as the module docs say.
///
/// A document without a VRM extension is left as it is (an empty summary). A document that
/// already has `KHR_character_expression` is left as it is (`already_present`, an info). Binds
/// that cannot be kept, material binds, and expressions with nothing left are reported.
///
/// # Errors
/// More than [`MAX_EXPRESSIONS`] expressions, or animation data over 64 MiB; the new JSON does
/// not fit the glTF model (a bug). The document is unchanged then.
pub fn vrm_to_khr(
    document: &mut Document,
    diagnostics: &mut Diagnostics,
) -> Result<KhrExpressions, Error> {
    let mut summary = KhrExpressions::default();
    let root = &document.root;
    let extensions = root.extensions.as_ref();
    if extensions.is_some_and(|e| e.contains_key(EXPRESSION)) {
        diagnostics.info(
            "KHR_EXPRESSION_PRESENT",
            pointer(["extensions", EXPRESSION]),
            format!("the document already has {EXPRESSION}: it was left as it is"),
        );
        summary.already_present = true;
        return Ok(summary);
    }
    let vrm1 = extensions
        .and_then(|e| e.get(VRMC_VRM))
        .and_then(Value::as_object);
    let vrm0_ext = extensions
        .and_then(|e| e.get(VRM0))
        .and_then(Value::as_object);
    let sources = match (vrm1, vrm0_ext) {
        (Some(vrm), _) => read_vrm1(vrm, root, diagnostics),
        (None, Some(vrm)) => read_vrm0(vrm, root, diagnostics),
        (None, None) => return Ok(summary),
    };
    if sources.len() > MAX_EXPRESSIONS {
        return Err(Error::unsupported(format!(
            "{}: {} expressions, more than the {MAX_EXPRESSIONS} converted to {EXPRESSION}",
            document.path().display(),
            sources.len()
        )));
    }
    let annotations = read_annotations(root, vrm1, vrm0_ext, diagnostics);

    let mut w = Writer {
        bin: Vec::new(),
        views: Vec::new(),
        accessors: Vec::new(),
        buffer: root.buffers.len(),
        view_base: root.buffer_views.len(),
        accessor_base: root.accessors.len(),
        inputs: Vec::new(),
    };
    let mut materials = root.other.get("materials").cloned();
    let mut animations = Vec::new();
    let mut entries = Vec::new();
    let mut names: HashSet<&str> = HashSet::new();
    let (mut any_morph, mut any_texture) = (false, false);
    for source in &sources {
        if !names.insert(source.name.as_str()) {
            diagnostics.warn(
                "KHR_EXPRESSION_DUPLICATE",
                source.at.clone(),
                format!(
                    "a second expression named {:?}: dropped (the first is kept)",
                    source.name
                ),
            );
            continue;
        }
        let Some(written) = write_expression(&mut w, root, source, &mut materials, diagnostics)?
        else {
            diagnostics.info(
                "KHR_EXPRESSION_EMPTY",
                source.at.clone(),
                format!(
                    "expression {:?} has no morph target or texture transform bind: no animation was written for it",
                    source.name
                ),
            );
            continue;
        };
        let animation = root.animations.len() + animations.len();
        let mut typed = Map::new();
        if !written.morph_channels.is_empty() {
            any_morph = true;
            typed.insert(
                MORPHTARGET.into(),
                json!({"channels": written.morph_channels}),
            );
        }
        if !written.texture_channels.is_empty() {
            any_texture = true;
            typed.insert(
                TEXTURE.into(),
                json!({"channels": written.texture_channels}),
            );
        }
        entries
            .push(json!({"expression": source.name, "animation": animation, "extensions": typed}));
        animations.push(written.animation);
        summary.expressions.push((source.name.clone(), animation));
    }

    let fit = |e: serde_json::Error| {
        Error::unsupported(format!(
            "{EXPRESSION}: the new animation data do not fit the glTF model: {e}"
        ))
    };
    let views: Vec<Ordered<BufferView>> = w
        .views
        .into_iter()
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()
        .map_err(fit)?;
    let accessors: Vec<Ordered<Accessor>> = w
        .accessors
        .into_iter()
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()
        .map_err(fit)?;
    let animations: Vec<Ordered<Animation>> = animations
        .into_iter()
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()
        .map_err(fit)?;

    // Everything is ready: change the document.
    if !accessors.is_empty() {
        document.push_buffer(w.bin)?;
    }
    let root = &mut document.root;
    root.buffer_views.extend(views);
    root.accessors.extend(accessors);
    root.animations.extend(animations);
    if any_texture {
        if let Some(materials) = materials {
            root.other.insert("materials".into(), materials);
        }
    }
    if !entries.is_empty() {
        root.extensions
            .get_or_insert_with(Map::new)
            .insert(EXPRESSION.into(), json!({ "expressions": entries }));
        root.use_extension(EXPRESSION);
        if any_morph {
            root.use_extension(MORPHTARGET);
        }
        if any_texture {
            root.use_extension(TEXTURE);
            root.use_extension(ANIMATION_POINTER);
            root.use_extension(TEXTURE_TRANSFORM);
        }
    }
    let auto: Vec<usize> = annotations
        .iter()
        .filter(|(_, role)| *role == AUTO_ROLE)
        .map(|(node, _)| *node)
        .collect();
    if !auto.is_empty() {
        diagnostics.info(
            "KHR_VISIBILITY_AUTO",
            "/nodes",
            format!(
                "nodes {auto:?} are annotated auto, which the drafts leave out: written as the vendor role {AUTO_ROLE:?} (read as always elsewhere)"
            ),
        );
    }
    for (node, role) in annotations {
        if let Some(entry) = root.nodes.get_mut(node) {
            entry
                .extensions
                .get_or_insert_with(Map::new)
                .insert(NODE_VISIBILITY.into(), json!({ "role": role }));
            summary.visibility.push((node, role.to_owned()));
        }
    }
    if !summary.visibility.is_empty() {
        root.use_extension(NODE_VISIBILITY);
    }
    Ok(summary)
}
