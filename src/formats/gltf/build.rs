//! Builds a new glTF document (JSON + one binary buffer) from the canonical model: a skeleton
//! with its humanoid bone maps, skinned meshes (with their morph targets, texture coordinates
//! and materials) and clips. Joint tracks become node channels; mesh weight tracks `weights`
//! channels on the mesh's node; bone tracks become `EXT_skeleton_humanoid` channels (no
//! `target.node`) whose data are the deltas `D_b = F_b⁻¹ · n_b · F_b` in the canonical bone
//! frames.
//!
//! **Materials.** A mesh's [`Material`] becomes a metallic-roughness material with its base
//! colour factor, alpha mode, cutoff and double-sidedness, non-metallic (`metallicFactor` 0:
//! the model keeps no metalness, and the formats it comes from here, H-Anim and BVH, have
//! none); its base colour texture an image in the binary buffer (equal materials and equal
//! images are written once). glTF holds PNG and JPEG images only: another type is left out
//! ([`Built::dropped`]) and the material keeps its colour. A mesh without a material gets a
//! neutral grey.

use serde_json::{json, Map, Value};

use super::ext_skeleton_humanoid::{self as ext, SkeletonDef};
use crate::error::Error;
use crate::math::sample::Interpolation;
use crate::model::asset::HumanoidSkeleton;
use crate::model::clip::{Clip, Property, TrackTarget};
use crate::model::mesh::{AlphaMode, Material, SkinnedMesh};
use crate::model::skeleton::{JointId, Skeleton};

const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// What to put in a new glTF document.
#[derive(Debug, Clone, Copy)]
pub struct Scene<'a> {
    /// Every joint becomes a node, in skeleton order (node index = joint index).
    pub skeleton: &'a Skeleton,
    /// Humanoid skeletons to declare with `EXT_skeleton_humanoid`.
    pub humanoids: &'a [HumanoidSkeleton],
    /// Skinned meshes to add: mesh `i` on node `skeleton.len() + i` with its skin (meshes with
    /// the same joints and inverse bind matrices share one), its morph targets as primitive
    /// `targets` with the default `weights` and the names in `extras.targetNames`.
    pub meshes: &'a [SkinnedMesh],
    /// Clips; joint tracks → node channels, bone tracks → EXT channels.
    pub clips: &'a [Clip],
    /// `asset.generator`.
    pub generator: &'a str,
    /// Without a mesh: declare every joint in a skin anyway (inverse bind matrices from the
    /// rest pose), so that importers build an armature (Blender makes plain empties of nodes
    /// that no skin lists).
    pub skin_without_mesh: bool,
}

/// The JSON root and the binary buffer of a new document.
#[derive(Debug, Clone)]
pub struct Built {
    /// The glTF JSON.
    pub json: Value,
    /// Buffer 0's bytes.
    pub bin: Vec<u8>,
    /// What could not be written, one message each (for the caller's diagnostics): textures
    /// whose image type glTF does not hold.
    pub dropped: Vec<String>,
}

/// Accumulates a binary buffer with its buffer views and accessors; indices start at the
/// given bases (0 for a new document; the existing counts when appending to one).
struct Writer {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    buffer: usize,
    view_base: usize,
    accessor_base: usize,
}

impl Writer {
    fn new() -> Writer {
        Writer {
            bin: Vec::new(),
            views: Vec::new(),
            accessors: Vec::new(),
            buffer: 0,
            view_base: 0,
            accessor_base: 0,
        }
    }

    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view =
            json!({"buffer": self.buffer, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(view);
        self.view_base + self.views.len() - 1
    }

    fn floats(
        &mut self,
        values: &[f32],
        kind: &str,
        components: usize,
        target: Option<u32>,
        bounds: bool,
    ) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let count = values.len() / components.max(1);
        let mut accessor =
            json!({"bufferView": view, "componentType": FLOAT, "count": count, "type": kind});
        if bounds && count > 0 {
            let mut min = vec![f32::INFINITY; components];
            let mut max = vec![f32::NEG_INFINITY; components];
            for element in values.chunks_exact(components) {
                for (c, v) in element.iter().enumerate() {
                    min[c] = min[c].min(*v);
                    max[c] = max[c].max(*v);
                }
            }
            accessor["min"] = json!(min);
            accessor["max"] = json!(max);
        }
        self.accessors.push(accessor);
        self.accessor_base + self.accessors.len() - 1
    }

    fn integers(
        &mut self,
        bytes: Vec<u8>,
        component_type: u32,
        count: usize,
        kind: &str,
        target: Option<u32>,
    ) -> usize {
        let view = self.view(&bytes, target);
        self.accessors.push(json!({"bufferView": view, "componentType": component_type, "count": count, "type": kind}));
        self.accessor_base + self.accessors.len() - 1
    }
}

/// Builds the document.
///
/// # Errors
/// A track's values cannot be written (an unsupported property on a bone track).
pub fn build(scene: &Scene<'_>) -> Result<Built, Error> {
    let skeleton = scene.skeleton;
    let mut w = Writer::new();

    let mut nodes: Vec<Value> = (0..skeleton.len())
        .map(|i| {
            let joint = skeleton.joint(i);
            let rest = skeleton.rest_local(joint);
            let mut node = Map::new();
            node.insert("name".into(), json!(skeleton.name(joint)));
            if rest.translation != glam::Vec3::ZERO {
                node.insert("translation".into(), json!(rest.translation.to_array()));
            }
            if rest.rotation != glam::Quat::IDENTITY {
                node.insert(
                    "rotation".into(),
                    json!(rest.rotation.normalize().to_array()),
                );
            }
            if rest.scale != glam::Vec3::ONE {
                node.insert("scale".into(), json!(rest.scale.to_array()));
            }
            let children: Vec<usize> = skeleton.children(joint).map(|c| c.index()).collect();
            if !children.is_empty() {
                node.insert("children".into(), json!(children));
            }
            Value::Object(node)
        })
        .collect();
    let mut scene_nodes: Vec<usize> = (0..skeleton.len())
        .filter(|&i| skeleton.parent(skeleton.joint(i)).is_none())
        .collect();

    let mut root = Map::new();
    root.insert(
        "asset".into(),
        json!({"version": "2.0", "generator": scene.generator}),
    );
    if !scene.humanoids.is_empty() {
        root.insert("extensionsUsed".into(), json!([ext::NAME]));
    }

    let mut dropped = Vec::new();
    if !scene.meshes.is_empty() {
        let looks = looks(&mut w, scene.meshes);
        dropped = looks.dropped;
        let mut meshes = Vec::with_capacity(scene.meshes.len());
        let mut skins: Vec<(&SkinnedMesh, Value)> = Vec::new();
        for (mesh, material) in scene.meshes.iter().zip(looks.of_mesh) {
            let primitive = primitive(&mut w, mesh, material);
            let same_skin = |(other, _): &(&SkinnedMesh, Value)| {
                other.joints_used == mesh.joints_used && other.inverse_bind == mesh.inverse_bind
            };
            let skin = match skins.iter().position(same_skin) {
                Some(skin) => skin,
                None => {
                    let value = skin(&mut w, mesh, scene);
                    skins.push((mesh, value));
                    skins.len() - 1
                }
            };
            let mut entry = json!({"name": mesh.name, "primitives": [primitive]});
            if !mesh.morph_targets.is_empty() {
                let mut weights = mesh.morph_weights.clone();
                weights.resize(mesh.morph_targets.len(), 0.0);
                entry["weights"] = json!(weights);
                let names: Vec<&str> = mesh.morph_targets.iter().map(|t| t.name.as_str()).collect();
                entry["extras"] = json!({"targetNames": names});
            }
            meshes.push(entry);
            nodes.push(json!({"name": mesh.name, "mesh": meshes.len() - 1, "skin": skin}));
            scene_nodes.push(nodes.len() - 1);
        }
        root.insert("materials".into(), Value::Array(looks.materials));
        if !looks.images.is_empty() {
            root.insert("images".into(), Value::Array(looks.images));
            root.insert("textures".into(), Value::Array(looks.textures));
        }
        root.insert("meshes".into(), Value::Array(meshes));
        root.insert(
            "skins".into(),
            Value::Array(skins.into_iter().map(|(_, s)| s).collect()),
        );
    }

    if scene.meshes.is_empty() && scene.skin_without_mesh && !skeleton.is_empty() {
        let ibm: Vec<f32> = skeleton
            .rest_worlds()
            .iter()
            .flat_map(|w| w.to_mat4().inverse().to_cols_array())
            .collect();
        let ibm = w.floats(&ibm, "MAT4", 16, None, false);
        let mut skin = json!({
            "inverseBindMatrices": ibm,
            "joints": (0..skeleton.len()).collect::<Vec<_>>(),
        });
        let joints: Vec<JointId> = skeleton.joints().collect();
        if let Some(root) = scene.humanoids.first().and_then(|h| h.root) {
            if is_common_root(skeleton, root, &joints) {
                skin["skeleton"] = json!(root.index());
            }
        }
        root.insert("skins".into(), json!([skin]));
    }

    let mut animations = Vec::new();
    let mesh_node = |mesh: u16, weights: usize| -> Option<usize> {
        let index = usize::from(mesh);
        let m = scene.meshes.get(index)?;
        (m.morph_targets.len() == weights).then_some(skeleton.len() + index)
    };
    for clip in scene.clips {
        animations.push(animation(&mut w, clip, &|joint| joint.index(), &mesh_node)?);
    }

    root.insert("scene".into(), json!(0));
    root.insert(
        "scenes".into(),
        json!([{"name": "humanoid", "nodes": scene_nodes}]),
    );
    root.insert("nodes".into(), Value::Array(nodes));
    if !animations.is_empty() {
        root.insert("animations".into(), Value::Array(animations));
    }
    if !w.accessors.is_empty() {
        root.insert("accessors".into(), Value::Array(w.accessors));
        root.insert("bufferViews".into(), Value::Array(w.views));
        root.insert("buffers".into(), json!([{"byteLength": w.bin.len()}]));
    }
    if !scene.humanoids.is_empty() {
        let defs: Vec<SkeletonDef> = scene
            .humanoids
            .iter()
            .map(|h| SkeletonDef {
                root_node: h.root.map(|r| r.index()).unwrap_or(0),
                bones: h
                    .bones
                    .iter()
                    .map(|(bone, joint)| (bone, joint.index()))
                    .collect(),
            })
            .collect();
        root.insert(
            "extensions".into(),
            json!({ ext::NAME: ext::write_root(&defs) }),
        );
    }
    while !w.bin.len().is_multiple_of(4) {
        w.bin.push(0);
    }
    Ok(Built {
        json: Value::Object(root),
        bin: w.bin,
        dropped,
    })
}

/// The materials, images and textures of some meshes, and each mesh's material.
struct Looks {
    materials: Vec<Value>,
    images: Vec<Value>,
    textures: Vec<Value>,
    /// Per mesh, its index into `materials`.
    of_mesh: Vec<usize>,
    dropped: Vec<String>,
}

/// The material of a mesh without one.
fn neutral_grey() -> Value {
    json!({
        "name": "mannequin grey",
        "pbrMetallicRoughness": {"baseColorFactor": [0.72, 0.74, 0.78, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.6}
    })
}

/// Writes the meshes' materials (module docs): equal materials once, equal images once.
fn looks(w: &mut Writer, meshes: &[SkinnedMesh]) -> Looks {
    let mut looks = Looks {
        materials: Vec::new(),
        images: Vec::new(),
        textures: Vec::new(),
        of_mesh: Vec::with_capacity(meshes.len()),
        dropped: Vec::new(),
    };
    let mut written: Vec<(Option<&Material>, usize)> = Vec::new();
    let mut images: Vec<(&[u8], usize)> = Vec::new();
    for mesh in meshes {
        let material = mesh.material.as_ref();
        if let Some((_, index)) = written.iter().find(|(m, _)| *m == material) {
            looks.of_mesh.push(*index);
            continue;
        }
        let value = match material {
            None => neutral_grey(),
            Some(m) => {
                let texture = m.base_color_texture.as_ref().and_then(|image| {
                    if !matches!(image.mime_type.as_str(), "image/png" | "image/jpeg") {
                        looks.dropped.push(format!(
                            "mesh {:?}: its texture {:?} is {}, which glTF does not hold (PNG and JPEG only): left out",
                            mesh.name, image.name, image.mime_type
                        ));
                        return None;
                    }
                    let bytes: &[u8] = &image.bytes;
                    if let Some((_, texture)) = images.iter().find(|(b, _)| *b == bytes) {
                        return Some(*texture);
                    }
                    let view = w.view(bytes, None);
                    let mut json = json!({"bufferView": view, "mimeType": image.mime_type});
                    if !image.name.is_empty() {
                        json["name"] = json!(image.name);
                    }
                    looks.images.push(json);
                    looks.textures.push(json!({"source": looks.images.len() - 1}));
                    let texture = looks.textures.len() - 1;
                    images.push((bytes, texture));
                    Some(texture)
                });
                material_json(m, texture)
            }
        };
        looks.materials.push(value);
        let index = looks.materials.len() - 1;
        written.push((material, index));
        looks.of_mesh.push(index);
    }
    looks
}

/// A glTF material for `m`, its base colour texture `texture` (an index into `textures`).
fn material_json(m: &Material, texture: Option<usize>) -> Value {
    let factor = m.base_color.map(|c| {
        if c.is_finite() {
            c.clamp(0.0, 1.0)
        } else {
            1.0
        }
    });
    let mut pbr = json!({"baseColorFactor": factor, "metallicFactor": 0.0});
    if let Some(texture) = texture {
        pbr["baseColorTexture"] = json!({"index": texture});
    }
    let mut value = json!({"pbrMetallicRoughness": pbr});
    if !m.name.is_empty() {
        value["name"] = json!(m.name);
    }
    match m.alpha_mode {
        AlphaMode::Opaque => {}
        AlphaMode::Blend => value["alphaMode"] = json!("BLEND"),
        AlphaMode::Mask(cutoff) => {
            value["alphaMode"] = json!("MASK");
            if cutoff.is_finite() && cutoff >= 0.0 {
                value["alphaCutoff"] = json!(cutoff);
            }
        }
    }
    if m.double_sided {
        value["doubleSided"] = json!(true);
    }
    value
}

/// The primitive of `mesh`: its attributes, indices, material `material` and morph targets.
fn primitive(w: &mut Writer, mesh: &SkinnedMesh, material: usize) -> Value {
    let positions: Vec<f32> = mesh.positions.iter().flatten().copied().collect();
    let normals: Vec<f32> = mesh.normals.iter().flatten().copied().collect();
    let weights: Vec<f32> = mesh.weights.iter().flatten().copied().collect();
    let position = w.floats(&positions, "VEC3", 3, Some(ARRAY_BUFFER), true);
    let normal = w.floats(&normals, "VEC3", 3, Some(ARRAY_BUFFER), false);
    let joints_bytes: Vec<u8> = mesh
        .joints
        .iter()
        .flatten()
        .flat_map(|j| j.to_le_bytes())
        .collect();
    let joints = w.integers(
        joints_bytes,
        UNSIGNED_SHORT,
        mesh.joints.len(),
        "VEC4",
        Some(ARRAY_BUFFER),
    );
    let weight = w.floats(&weights, "VEC4", 4, Some(ARRAY_BUFFER), false);
    let targets: Vec<Value> = mesh
        .morph_targets
        .iter()
        .map(|target| {
            let deltas: Vec<f32> = target.positions.iter().flatten().copied().collect();
            let mut attributes =
                json!({"POSITION": w.floats(&deltas, "VEC3", 3, Some(ARRAY_BUFFER), true)});
            if !target.normals.is_empty() {
                let deltas: Vec<f32> = target.normals.iter().flatten().copied().collect();
                attributes["NORMAL"] =
                    json!(w.floats(&deltas, "VEC3", 3, Some(ARRAY_BUFFER), false));
            }
            attributes
        })
        .collect();
    let index_bytes: Vec<u8> = mesh.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    let indices = w.integers(
        index_bytes,
        UNSIGNED_INT,
        mesh.indices.len(),
        "SCALAR",
        Some(ELEMENT_ARRAY_BUFFER),
    );
    let mut primitive = json!({
        "attributes": {"POSITION": position, "NORMAL": normal, "JOINTS_0": joints, "WEIGHTS_0": weight},
        "indices": indices,
        "material": material
    });
    if !mesh.uvs.is_empty() && mesh.uvs.len() == mesh.positions.len() {
        let uvs: Vec<f32> = mesh.uvs.iter().flatten().copied().collect();
        primitive["attributes"]["TEXCOORD_0"] =
            json!(w.floats(&uvs, "VEC2", 2, Some(ARRAY_BUFFER), false));
    }
    if !targets.is_empty() {
        primitive["targets"] = Value::Array(targets);
    }
    primitive
}

/// The skin of `mesh`: its joints and inverse bind matrices, rooted at the humanoid's root.
fn skin(w: &mut Writer, mesh: &SkinnedMesh, scene: &Scene<'_>) -> Value {
    let ibm: Vec<f32> = mesh
        .inverse_bind
        .iter()
        .flat_map(|m| m.to_cols_array())
        .collect();
    let ibm = w.floats(&ibm, "MAT4", 16, None, false);
    let skeleton_root = scene
        .humanoids
        .first()
        .and_then(|h| h.root)
        .or_else(|| mesh.joints_used.first().copied());
    let mut skin = json!({
        "inverseBindMatrices": ibm,
        "joints": mesh.joints_used.iter().map(|j| j.index()).collect::<Vec<_>>(),
    });
    // `skin.skeleton` is optional; it is written only where it is the joints' common root, as
    // glTF requires (an FBX scene may hold the humanoid beside other top-level rigs).
    if let Some(r) = skeleton_root.filter(|&r| is_common_root(scene.skeleton, r, &mesh.joints_used))
    {
        skin["skeleton"] = json!(r.index());
    }
    skin
}

/// Whether `root` is every joint of `joints` or an ancestor of it.
fn is_common_root(skeleton: &Skeleton, root: JointId, joints: &[JointId]) -> bool {
    joints
        .iter()
        .all(|&j| j == root || skeleton.is_ancestor(root, j))
}

/// A clip as a glTF animation: joint tracks on `node_of(joint)`, mesh weight tracks on
/// `mesh_node(mesh, weights per key)` (`None`: no such mesh, or not that many targets).
fn animation(
    w: &mut Writer,
    clip: &Clip,
    node_of: &dyn Fn(crate::model::skeleton::JointId) -> usize,
    mesh_node: &dyn Fn(u16, usize) -> Option<usize>,
) -> Result<Value, Error> {
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    // Tracks with identical key times share one input accessor.
    let mut inputs: Vec<(Vec<f32>, usize)> = Vec::new();
    for track in clip.tracks() {
        let times = track.times();
        let input = match inputs.iter().find(|(t, _)| t.as_slice() == times) {
            Some((_, accessor)) => *accessor,
            None => {
                let accessor = w.floats(times, "SCALAR", 1, None, true);
                inputs.push((times.to_vec(), accessor));
                accessor
            }
        };
        let (path, kind, components) = match track.property() {
            Property::Translation => ("translation", "VEC3", 3),
            Property::Rotation => ("rotation", "VEC4", 4),
            Property::Scale => ("scale", "VEC3", 3),
            Property::Weights(_) => ("weights", "SCALAR", 1),
        };
        let values = match track.target() {
            TrackTarget::Expression(_) | TrackTarget::LookAt => {
                return Err(Error::unsupported(format!(
                    "clip {:?}: a {} track has no plain glTF channel (it belongs to VRMA)",
                    clip.name,
                    track.target()
                )))
            }
            TrackTarget::Joint(_) | TrackTarget::Mesh(_) => track.values().to_vec(),
            TrackTarget::Bone(bone) => ext::deltas_from_canonical(
                bone,
                track.property(),
                track.interpolation(),
                track.values(),
            )
            .map_err(Error::unsupported)?,
        };
        let output = w.floats(&values, kind, components, None, false);
        let interpolation = match track.interpolation() {
            Interpolation::Step => "STEP",
            Interpolation::Linear => "LINEAR",
            Interpolation::CubicSpline => "CUBICSPLINE",
        };
        samplers.push(json!({"input": input, "output": output, "interpolation": interpolation}));
        let sampler = samplers.len() - 1;
        let target = match track.target() {
            TrackTarget::Bone(bone) => {
                json!({"path": path, "extensions": ext::channel_extension(bone)})
            }
            TrackTarget::Joint(joint) => json!({"node": node_of(joint), "path": path}),
            TrackTarget::Mesh(mesh) => {
                let weights = track.property().components();
                let Some(node) = mesh_node(mesh, weights).filter(|_| path == "weights") else {
                    return Err(Error::unsupported(format!(
                        "clip {:?}: a {path} track on mesh {mesh} ({weights} per key) matches no mesh with that many morph targets",
                        clip.name
                    )));
                };
                json!({"node": node, "path": path})
            }
            TrackTarget::Expression(_) | TrackTarget::LookAt => continue,
        };
        channels.push(json!({"sampler": sampler, "target": target}));
    }
    Ok(json!({"name": clip.name, "channels": channels, "samplers": samplers}))
}

/// Writes a [`Built`] document as a GLB file (through a temporary file, validated first).
///
/// # Errors
/// The built JSON does not fit the glTF model or fails validation (a bug in the builder), or
/// writing fails.
pub fn write_glb(built: &Built, path: &std::path::Path) -> Result<super::Written, Error> {
    document(built, path)?.write_glb(path, &[])
}

/// A [`Built`] document as a [`Document`](super::Document) in memory (validated), for the
/// document layer to work on; `name` stands for it in messages.
///
/// # Errors
/// The built JSON does not fit the glTF model or fails validation (a bug in the builder).
pub fn document(built: &Built, name: &std::path::Path) -> Result<super::Document, Error> {
    let root = serde_json::from_value(built.json.clone())
        .map_err(|e| Error::unsupported(format!("built glTF JSON does not fit the model: {e}")))?;
    super::Document::from_parts(root, vec![built.bin.clone()], name)
}

/// Appends `clips` to an existing document as new animations, their data in one new buffer
/// (a GLB writer merges it into the BIN chunk after the existing bytes, which stay untouched).
/// Joint tracks target `node_of(joint)`; bone tracks become EXT_skeleton_humanoid channels
/// (the document must declare the extension for them to mean anything).
///
/// # Errors
/// A clip has a track no glTF channel can carry; the JSON does not fit the glTF model.
pub fn append_clips(
    document: &mut super::Document,
    clips: &[Clip],
    node_of: &dyn Fn(crate::model::skeleton::JointId) -> usize,
) -> Result<(), Error> {
    let root = &document.root;
    let mut w = Writer {
        buffer: root.buffers.len(),
        view_base: root.buffer_views.len(),
        accessor_base: root.accessors.len(),
        ..Writer::new()
    };
    let mut animations = Vec::with_capacity(clips.len());
    for clip in clips {
        animations.push(animation(&mut w, clip, node_of, &|_, _| None)?);
    }
    let fit = |e: serde_json::Error| {
        Error::unsupported(format!("new animation data do not fit the glTF model: {e}"))
    };
    let views: Vec<super::json::Ordered<super::json::BufferView>> = w
        .views
        .into_iter()
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()
        .map_err(fit)?;
    let accessors: Vec<super::json::Ordered<super::json::Accessor>> = w
        .accessors
        .into_iter()
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()
        .map_err(fit)?;
    let animations: Vec<super::json::Ordered<super::json::Animation>> = animations
        .into_iter()
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()
        .map_err(fit)?;
    let uses_ext = clips.iter().any(Clip::has_bone_tracks);
    while !w.bin.len().is_multiple_of(4) {
        w.bin.push(0);
    }
    document.push_buffer(w.bin)?;
    let root = &mut document.root;
    root.buffer_views.extend(views);
    root.accessors.extend(accessors);
    root.animations.extend(animations);
    if uses_ext && !root.extensions_used.iter().any(|e| e == ext::NAME) {
        root.extensions_used.push(ext::NAME.to_owned());
    }
    Ok(())
}
