//! VRM expressions ↔ `KHR_character_expression`, and VRM `firstPerson.meshAnnotations` ↔
//! `KHR_node_visibility_hint` / `KHR_mesh_primitive_visibility_hint`: the Khronos avatar drafts
//! of glTF pull request #2512 (research `extensions_and_landscape.md` §6).
//!
//! # What the drafts say
//!
//! Read in KhronosGroup/glTF, `extensions/2.0/Khronos/`:
//!
//! - **Placement.** `KHR_character_expression` is a root extension,
//!   `{"expressions": [{"expression": name, "animation": index}]}`. The typed channel lists
//!   (`KHR_character_expression_morphtarget`, `_texture`, `_joint`, each `{"channels": [..]}`)
//!   sit in an *expression entry's* `extensions`, not on the animation. Their indices point into
//!   the `channels` of that entry's animation (`KHR_character_expression_morphtarget/README.md`:
//!   "MUST be attached to an expression entry"; schema
//!   `KHR_character_expression.KHR_character_expression_morphtarget.schema.json`).
//! - **Keying.** `KHR_character_expression/README.md`: "Implementations MUST evaluate each
//!   expression's referenced animation using the effective expression value as a normalized
//!   animation time in the [0.0, 1.0] range". So time 0 is the expression off and time 1 is the
//!   expression at full weight. STEP is "strongly recommended" for binary expressions. The
//!   drafts' known converter does the same: 0b5vr/khr-character-testbed,
//!   `converter/converter/expressions/appendMorphtargetAnimation.ts`.
//!   - A plain expression gets keys `[0, 1]`, LINEAR, values `[off, full]`.
//!   - A VRM `isBinary` expression gets keys `[0, 0.5, 1]`, STEP, values `[off, full, full]`.
//!     That is VRM's rule: on above one half.
//! - **Morph channels** are ordinary `weights` channels. The drafts also allow a
//!   `KHR_animation_pointer` target `/nodes/{}/weights` or `/nodes/{}/weights/{}`.
//! - **Texture channels** (`KHR_character_expression_texture/README.md`) animate
//!   `KHR_texture_transform` `offset` / `scale` with `KHR_animation_pointer`. The transform "must
//!   be included explicitly in the glTF material definitions".
//! - **Visibility.** `KHR_node_visibility_hint/README.md` maps VRM types to roles:
//!   - `both` → `always`;
//!   - `firstPersonOnly` → `first_person`;
//!   - `thirdPersonOnly` → `third_person`;
//!   - `auto` is "not generalized".
//!
//!   A node's role is inherited by its subtree. Custom roles are vendor-prefixed
//!   (`VENDORNAME_role_name`), and readers treat a role they do not know as `always`.
//!
//! # VRM → KHR ([`vrm_to_khr`])
//!
//! Each VRM 1.0 expression (`preset`, then `custom`, in file order) or VRM 0.x blend shape group
//! becomes one new animation named after it.
//!
//! - **Morph target binds.** One `weights` channel per bound node, keyed as above. At full
//!   weight a target holds its bind weight; VRM 0.x weights are 0–100, so they are divided by
//!   100. Binds on the same target add up, as VRM players add them. Every other target of that
//!   mesh is 0, and every target is 0 when the expression is off. These channels are listed in
//!   `KHR_character_expression_morphtarget`.
//! - **VRM 0.x names.** A group's name is its 1.0 preset (`joy` → `happy`, …) or its name.
//! - **Texture transform binds** (VRM 1.0). Every texture of the bound material is animated
//!   from its current `KHR_texture_transform` offset and scale (added empty where absent, as
//!   the draft asks) to the bind's values. VRM's defaults are offset `[0, 0]` and scale
//!   `[1, 1]`. The channels go in `KHR_character_expression_texture`. The textures are those
//!   the testbed animates: the core and common KHR material textures and MToon's, without the
//!   matcap.
//! - **Dropped binds.** Material colour binds (1.0) and material values (0.x) have no KHR form.
//!   They are dropped with a warning naming the expression.
//! - **What stays in `VRMC_vrm`.** `isBinary` is the keying above. `overrideBlink`,
//!   `overrideLookAt` and `overrideMouth` have no field here; a VRM output keeps them in
//!   `VRMC_vrm`. An expression with no bind left gets no animation (info).
//! - **Visibility.** Each first-person annotation becomes a `KHR_node_visibility_hint` on its
//!   node (on every node holding the mesh, for 0.x). `auto` is written as the vendor role
//!   [`AUTO_ROLE`] (`"VRMC_auto"`). That role reads as `always` elsewhere, which is what a
//!   runtime without VRM's head-cutting does, and it comes back as `auto`. A hint already on
//!   the node is kept (with a warning when its role differs).
//! - **Declarations.** The names used go to `extensionsUsed`, never `extensionsRequired`.
//!   The drafts also ask for a root `KHR_character` object, which the caller writes.
//! - **Already converted.** A document that already has `KHR_character_expression` is left as
//!   it is.
//!
//! # KHR → VRM 1.0 ([`khr_to_vrm1`])
//!
//! Each expression's animation is sampled at time 1, its full weight.
//!
//! - **Channels read.** These are the channels its typed lists name, or all of them when it
//!   has no list.
//!   - A `weights` channel becomes `morphTargetBinds`, with zero weights left out.
//!   - A texture-transform pointer becomes `textureTransformBinds`.
//!   - A node transform (`_joint`) has no VRM form: warning.
//! - **`isBinary`** is true when every channel read is STEP.
//! - **Names.** The VRM 1.0 preset names go to `preset`; every other name goes to `custom`.
//! - **Visibility.** Each node holding a mesh takes its nearest hinted ancestor's role (itself
//!   included), or else the role all its mesh's primitives share. That role becomes a
//!   `meshAnnotations` entry.
//!
//! # Checking ([`check`])
//!
//! [`check`] reports schema violations (errors, with their JSON pointers) and duplicate names.
//! [`expression_animations`] lists the animations the expressions use: they are not clips.
//!
//! ```
//! use humanoid::formats::gltf::Document;
//! use humanoid::formats::vrm::khr_expression;
//! use humanoid::Diagnostics;
//! # fn main() -> Result<(), humanoid::Error> {
//! let json = r#"{"asset": {"version": "2.0"}, "nodes": [{}],
//!   "accessors": [{"componentType": 5126, "count": 1, "type": "SCALAR", "min": [0], "max": [0]}],
//!   "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
//!                   "samplers": [{"input": 0, "output": 0}]}],
//!   "extensions": {"KHR_character_expression": {"expressions": [
//!     {"expression": "happy", "animation": 0},
//!     {"expression": "sad", "animation": 3}]}}}"#;
//! let document = Document::from_slice(json.as_bytes(), "face.gltf", None)?;
//! assert_eq!(khr_expression::expression_animations(&document.root), vec![0]);
//! let mut diagnostics = Diagnostics::new();
//! khr_expression::check(&document.root, &mut diagnostics);
//! let found: Vec<_> = diagnostics.iter().map(|d| (d.code, d.location.as_str())).collect();
//! assert_eq!(
//!     found,
//!     [("KHR_EXPRESSION_INVALID", "/extensions/KHR_character_expression/expressions/1/animation")]
//! );
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Map, Value};

use super::migrate::expressions::preset as vrm0_preset;
use super::migrate::vrm0;
use super::{VRM0, VRMC_VRM};
use crate::error::{Diagnostics, Error};
use crate::formats::gltf::json::{pointer, Accessor, Animation, BufferView, Index, Ordered, Root};
use crate::formats::gltf::{accessor, validate, Document};
use crate::math::num::to_f32;
use crate::math::sample::Interpolation;
use crate::model::clip::{Property, Track, TrackTarget};

/// The root extension naming expression animations.
pub const EXPRESSION: &str = "KHR_character_expression";
/// The expression-entry extension listing the channels that drive morph target weights.
pub const MORPHTARGET: &str = "KHR_character_expression_morphtarget";
/// The expression-entry extension listing the channels that drive texture transforms.
pub const TEXTURE: &str = "KHR_character_expression_texture";
/// The expression-entry extension listing the channels that drive node transforms.
pub const JOINT: &str = "KHR_character_expression_joint";
/// The node extension giving a view-context role to a node and its subtree.
pub const NODE_VISIBILITY: &str = "KHR_node_visibility_hint";
/// The mesh primitive extension giving a view-context role to one primitive.
pub const PRIMITIVE_VISIBILITY: &str = "KHR_mesh_primitive_visibility_hint";
/// The vendor role written for VRM's `auto` annotation, which the drafts leave out (module
/// docs).
pub const AUTO_ROLE: &str = "VRMC_auto";
/// The VRM 1.0 preset expression names (`expressions.preset` keys).
pub const VRM_PRESETS: [&str; 18] = [
    "happy",
    "angry",
    "sad",
    "relaxed",
    "surprised",
    "aa",
    "ih",
    "ou",
    "ee",
    "oh",
    "blink",
    "blinkLeft",
    "blinkRight",
    "lookUp",
    "lookDown",
    "lookLeft",
    "lookRight",
    "neutral",
];
/// The most expressions [`vrm_to_khr`] converts (VRM models have tens).
pub const MAX_EXPRESSIONS: usize = 4096;
/// The most floats [`vrm_to_khr`] writes (64 MiB).
const MAX_FLOATS: usize = 1 << 24;

const ANIMATION_POINTER: &str = "KHR_animation_pointer";
const TEXTURE_TRANSFORM: &str = "KHR_texture_transform";
const FLOAT: u32 = 5126;
const TYPED: [&str; 3] = [MORPHTARGET, TEXTURE, JOINT];

/// The textures a VRM texture transform bind moves, as paths inside a material: glTF's, the
/// common KHR material extensions' and MToon's but its matcap (the list the drafts' testbed
/// uses, `converter/converter/expressions/appendTextureAnimation.ts`).
const TEXTURE_PATHS: [&str; 24] = [
    "normalTexture",
    "occlusionTexture",
    "emissiveTexture",
    "pbrMetallicRoughness/baseColorTexture",
    "pbrMetallicRoughness/metallicRoughnessTexture",
    "extensions/KHR_materials_anisotropy/anisotropyTexture",
    "extensions/KHR_materials_clearcoat/clearcoatTexture",
    "extensions/KHR_materials_clearcoat/clearcoatRoughnessTexture",
    "extensions/KHR_materials_clearcoat/clearcoatNormalTexture",
    "extensions/KHR_materials_iridescence/iridescenceTexture",
    "extensions/KHR_materials_iridescence/iridescenceThicknessTexture",
    "extensions/KHR_materials_sheen/sheenColorTexture",
    "extensions/KHR_materials_sheen/sheenRoughnessTexture",
    "extensions/KHR_materials_specular/specularTexture",
    "extensions/KHR_materials_specular/specularColorTexture",
    "extensions/KHR_materials_transmission/transmissionTexture",
    "extensions/KHR_materials_volume/thicknessTexture",
    "extensions/ADOBE_materials_clearcoat_specular/clearcoatSpecularTexture",
    "extensions/ADOBE_materials_clearcoat_tint/clearcoatTintTexture",
    "extensions/VRMC_materials_mtoon/shadeMultiplyTexture",
    "extensions/VRMC_materials_mtoon/shadingShiftTexture",
    "extensions/VRMC_materials_mtoon/rimMultiplyTexture",
    "extensions/VRMC_materials_mtoon/outlineWidthMultiplyTexture",
    "extensions/VRMC_materials_mtoon/uvAnimationMaskTexture",
];

/// What [`vrm_to_khr`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KhrExpressions {
    /// The document already had `KHR_character_expression`: nothing was changed.
    pub already_present: bool,
    /// Each expression written, in order: its name and its new animation's index.
    pub expressions: Vec<(String, usize)>,
    /// Each node given a `KHR_node_visibility_hint`, in order: the node and its role.
    pub visibility: Vec<(usize, String)>,
}

// ---------------------------------------------------------------------------------------------
// VRM → KHR
// ---------------------------------------------------------------------------------------------

/// A morph target bind, checked against the document; weight in 0–1.
#[derive(Debug, Clone)]
struct Bind {
    node: usize,
    index: usize,
    weight: f64,
}

/// A texture transform bind (VRM 1.0), its values with VRM's defaults filled in.
#[derive(Debug, Clone)]
struct TextureBind {
    material: usize,
    at: String,
    offset: [f64; 2],
    scale: [f64; 2],
}

/// One VRM expression, read.
#[derive(Debug, Clone)]
struct Source {
    name: String,
    at: String,
    morphs: Vec<Bind>,
    textures: Vec<TextureBind>,
    binary: bool,
}

/// How many morph targets a mesh has (the most any primitive has; glTF wants them equal).
fn target_count(root: &Root, mesh: usize) -> usize {
    root.meshes.get(mesh).map_or(0, |m| {
        m.primitives
            .iter()
            .map(|p| p.targets.len())
            .max()
            .unwrap_or(0)
    })
}

/// The morph target count of a node's mesh; `None` when the node or its mesh does not exist.
fn node_targets(root: &Root, node: usize) -> Option<usize> {
    let mesh = root.nodes.get(node)?.mesh?.as_usize();
    root.meshes.get(mesh)?;
    Some(target_count(root, mesh))
}

/// A bind checked against the document, or why it cannot be kept.
fn morph_bind(
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
fn vec2(value: Option<&Value>, default: [f64; 2]) -> Option<[f64; 2]> {
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

fn materials_len(root: &Root) -> usize {
    root.other_len("materials")
}

/// The VRM 1.0 expressions, `preset` then `custom`, in file order.
fn read_vrm1(vrm: &Map<String, Value>, root: &Root, diagnostics: &mut Diagnostics) -> Vec<Source> {
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
fn nodes_by_mesh(root: &Root) -> Vec<Vec<usize>> {
    let mut by_mesh = vec![Vec::new(); root.meshes.len()];
    for (n, node) in root.nodes.iter().enumerate() {
        if let Some(slot) = node.mesh.and_then(|m| by_mesh.get_mut(m.as_usize())) {
            slot.push(n);
        }
    }
    by_mesh
}

/// The VRM 0.x blend shape groups, in file order, named as VRM 1.0 names them.
fn read_vrm0(vrm: &Map<String, Value>, root: &Root, diagnostics: &mut Diagnostics) -> Vec<Source> {
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
        let mut preset_name = vrm0::string(group, "presetName")
            .unwrap_or("unknown")
            .to_ascii_lowercase();
        if preset_name == "unknown" {
            preset_name = name.to_ascii_lowercase();
        }
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
struct Writer {
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
struct TextureSlot {
    pointer: String,
    offset: [f64; 2],
    scale: [f64; 2],
}

/// The textures of material `material` (in `materials`, the root's array), each given a
/// `KHR_texture_transform` where it has none.
fn texture_slots(materials: &mut Value, material: usize) -> Vec<TextureSlot> {
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
struct Written {
    animation: Value,
    morph_channels: Vec<usize>,
    texture_channels: Vec<usize>,
}

/// Keys values `off` (time 0) and `full` (after), as the module docs say.
fn keyed(off: &[f64], full: &[f64], binary: bool) -> Vec<f32> {
    let keys = if binary { 3 } else { 2 };
    let mut values = Vec::with_capacity(off.len() * keys);
    values.extend(off.iter().map(|&v| to_f32(v)));
    for _ in 1..keys {
        values.extend(full.iter().map(|&v| to_f32(v)));
    }
    values
}

/// Writes one expression's animation; `None` when no bind is left.
fn write_expression(
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
fn role_of(kind: &str) -> Option<&'static str> {
    Some(match kind.to_ascii_lowercase().as_str() {
        "both" => "always",
        "firstpersononly" => "first_person",
        "thirdpersononly" => "third_person",
        "auto" => AUTO_ROLE,
        _ => return None,
    })
}

/// Adds the annotation of `node` (type `kind`, found at `at`) to `out`, or says why not.
fn annotate(
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
fn read_annotations(
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

fn add_used(root: &mut Root, name: &str) {
    if !root.extensions_used.iter().any(|e| e == name) {
        root.extensions_used.push(name.to_owned());
    }
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
        add_used(root, EXPRESSION);
        if any_morph {
            add_used(root, MORPHTARGET);
        }
        if any_texture {
            add_used(root, TEXTURE);
            add_used(root, ANIMATION_POINTER);
            add_used(root, TEXTURE_TRANSFORM);
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
        add_used(root, NODE_VISIBILITY);
    }
    Ok(summary)
}

// ---------------------------------------------------------------------------------------------
// KHR → VRM 1.0
// ---------------------------------------------------------------------------------------------

/// What a channel drives.
enum Driven {
    /// Morph weights of a node: every target (`None`) or one (`Some(k)`).
    Weights(usize, Option<usize>),
    /// A texture transform property (`offset` or `scale`) of a material.
    Texture(usize, bool),
    /// A node's translation, rotation or scale.
    Joint,
    /// Anything else (a texture swap, another pointer, an unknown path).
    Other(String),
}

fn animation_pointer(target: &crate::formats::gltf::json::Target) -> Option<&str> {
    target
        .extensions
        .as_ref()?
        .get(ANIMATION_POINTER)?
        .get("pointer")?
        .as_str()
}

/// What a channel target drives.
fn driven(target: &crate::formats::gltf::json::Target) -> Driven {
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
fn short(value: f32) -> f64 {
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
fn full_value(
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
fn number(value: f64) -> Value {
    vrm0::json_number(value)
}

/// One expression's VRM 1.0 object from its entry and animation.
fn expression_json(
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
struct Transform {
    offset: Option<[f64; 2]>,
    scale: Option<[f64; 2]>,
}

/// The VRM 1.0 `expressions` object from `KHR_character_expression`.
fn expressions_json(document: &Document, list: &[Value], diagnostics: &mut Diagnostics) -> Value {
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
fn hint_role<'a>(extensions: Option<&'a Map<String, Value>>, name: &str) -> Option<&'a str> {
    extensions?.get(name)?.get("role")?.as_str()
}

/// The VRM 1.0 `meshAnnotations` from the visibility hints; `None` when no mesh node has a role.
fn annotations_json(root: &Root, diagnostics: &mut Diagnostics) -> Option<Value> {
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
fn targets_weights(root: &Root, animation: usize, channel: usize) -> bool {
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

fn check_expressions(root: &Root, diagnostics: &mut Diagnostics) {
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
fn check_channels(
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
fn check_hint(value: &Value, at: &str, diagnostics: &mut Diagnostics) {
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

fn check_visibility(root: &Root, diagnostics: &mut Diagnostics) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_tell_what_a_channel_drives() {
        let target = |json: Value| -> crate::formats::gltf::json::Target {
            serde_json::from_value(json).unwrap()
        };
        let pointer_target = |p: &str| {
            target(
                json!({"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": p}}}),
            )
        };
        assert!(matches!(
            driven(&target(json!({"node": 3, "path": "weights"}))),
            Driven::Weights(3, None)
        ));
        assert!(matches!(
            driven(&pointer_target("/nodes/2/weights/5")),
            Driven::Weights(2, Some(5))
        ));
        assert!(matches!(
            driven(&pointer_target("/nodes/2/weights")),
            Driven::Weights(2, None)
        ));
        assert!(matches!(
            driven(&pointer_target(
                "/materials/4/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/scale"
            )),
            Driven::Texture(4, false)
        ));
        assert!(matches!(
            driven(&pointer_target(
                "/materials/2/pbrMetallicRoughness/baseColorTexture/index"
            )),
            Driven::Other(_)
        ));
        assert!(matches!(
            driven(&target(json!({"node": 1, "path": "rotation"}))),
            Driven::Joint
        ));
        assert!(matches!(
            driven(&pointer_target("/nodes/x/weights")),
            Driven::Other(_)
        ));
    }

    #[test]
    fn short_keeps_the_decimal_written() {
        assert_eq!(short(0.1), 0.1);
        assert_eq!(short(0.3), 0.3);
        assert_eq!(short(0.25), 0.25);
        assert_eq!(short(1.0), 1.0);
        assert_eq!(short(255.0 / 512.0), 0.498_046_875);
        assert_eq!(short(0.000_976_562_5), 0.000_976_562_5);
    }

    #[test]
    fn a_visibility_hint_needs_a_role() {
        let mut found = Diagnostics::new();
        check_hint(&json!({"label": ""}), "/nodes/0/extensions/h", &mut found);
        let at: Vec<&str> = found.iter().map(|d| d.location.as_str()).collect();
        assert_eq!(at, ["/nodes/0/extensions/h", "/nodes/0/extensions/h/label"]);
        assert!(found
            .iter()
            .all(|d| d.code == "KHR_VISIBILITY_INVALID"
                && d.severity == crate::error::Severity::Error));
    }
}
