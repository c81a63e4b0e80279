//! A document's meshes in the canonical model, placed at the rest pose: what a writer of
//! another format (H-Anim) needs to write a character's body.
//!
//! ## Overview
//!
//! Every primitive drawn by a node becomes one [`SkinnedMesh`], vertices in world space with
//! every node at its rest transform (metres, as glTF):
//!
//! - **Skinned** (the node has a skin and the primitive `JOINTS_0`): each vertex is placed by
//!   exact linear blend skinning at rest, `v' = Σ w_k · W_k · IBM_k · v` (`W_k` the joint's
//!   rest world matrix, `IBM_k` its inverse bind matrix), normals by the inverse transpose of
//!   the same blended matrix. Where the bind pose differs from the node rest (Soldier,
//!   RobotExpressive), the mesh therefore comes out in the rest pose. The weights are divided by
//!   their sum (as glTF's renderers use them once normalised), and a vertex keeps its four
//!   largest influences (reported when one had more).
//! - **Rigid** (no skin): vertices by the node's rest world matrix, every vertex weighted 1 to
//!   the node's own joint (a writer attaches it to the nearest joint it writes).
//!
//! Each mesh's inverse bind matrices are the inverse rest world matrices of its joints, so it
//! draws unchanged at rest. Triangle strips and fans become triangle lists; a mirroring
//! node matrix flips the winding back. The base colour, its texture (image bytes from a
//! buffer view, a `data:` URI or a file beside the input) and `TEXCOORD_n` it reads are kept,
//! with its `KHR_texture_transform` applied to them; so are morph targets: their position (and normal) deltas carried to the rest like the
//! vertices (by the linear part of each vertex's blended matrix, or the node's world matrix;
//! normal deltas by the normal matrix), named from `extras.targetNames`, with the node's
//! `weights` (else the mesh's, else 0) as default weights. What has no place (vertex colours,
//! other UV sets, other material channels, tangent deltas, points and
//! lines) is dropped and reported.

use std::collections::HashMap;
use std::sync::Arc;

use glam::{DMat4, DVec3};
use serde_json::Value;

use super::accessor;
use super::document::Document;
use super::json::Get;
use super::morph;
use super::rest::scene::{influences_of, Scene};
use super::uri::{self, Uri};
use crate::error::{Diagnostics, Error, Location};
use crate::math::num::to_f32;
use crate::model::asset::Asset;
use crate::model::mesh::{AlphaMode, Image, Material, MorphTarget, SkinnedMesh};
use crate::model::skeleton::JointId;
use crate::pose::bake::{blend, normal_matrix};

/// The primitive's mode when this reader can draw it as triangles (4, 5, 6: list, strip,
/// fan) and its vertex data is not compressed; `None` otherwise (dropped, counted).
pub(super) fn triangle_mode(primitive: &super::json::Primitive) -> Option<u32> {
    let compressed = super::compression::in_extensions(
        primitive.other.get("extensions").and_then(Value::as_object),
    );
    let mode = primitive.mode.unwrap_or(4);
    (!compressed && matches!(mode, 4..=6)).then_some(mode)
}

/// Every primitive of `document` as a mesh at the rest pose of `asset` (read from the same
/// document: its joints are the document's nodes).
///
/// ```
/// use std::path::Path;
/// use humanoid::formats::gltf::{self, Document};
///
/// let json = br#"{"asset":{"version":"2.0"},
///   "buffers":[{"byteLength":36,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}],
///   "bufferViews":[{"buffer":0,"byteLength":36}],
///   "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],
///   "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
///   "nodes":[{"name":"root","children":[1],"translation":[0,1,0]},{"name":"prop","mesh":0,"translation":[2,0,0]}]}"#;
/// let document = Document::from_slice(json, Path::new("prop.gltf"), None)?;
/// let asset = gltf::humanoid::asset_from_document(&document)?.asset;
/// let mut notes = humanoid::Diagnostics::new();
/// let meshes = gltf::meshes::rest_meshes(&document, &asset, &mut notes)?;
/// assert_eq!(meshes[0].positions, [[2.0, 1.0, 0.0], [3.0, 1.0, 0.0], [2.0, 2.0, 0.0]]);
/// assert_eq!(meshes[0].joints_used, [asset.skeleton.find("prop").unwrap()]);
/// assert!(meshes[0].rigid);
/// # Ok::<(), humanoid::Error>(())
/// ```
///
/// # Errors
/// [`Error::Invalid`] with a JSON pointer when an accessor cannot be read, has the wrong size
/// or names a joint its skin lacks, or an index is past the primitive's vertices.
pub fn rest_meshes(
    document: &Document,
    asset: &Asset,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<SkinnedMesh>, Error> {
    rest_meshes_with_nodes(document, asset, diagnostics)
        .map(|meshes| meshes.into_iter().map(|(mesh, _)| mesh).collect())
}

/// As [`rest_meshes`], each mesh with the index of the node that draws it (the node a
/// `weights` animation channel targets).
///
/// # Errors
/// As [`rest_meshes`].
pub fn rest_meshes_with_nodes(
    document: &Document,
    asset: &Asset,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<(SkinnedMesh, usize)>, Error> {
    let scene = Scene::read(document, false)?;
    let worlds = scene.rest_worlds(None);
    let mut joint_of: HashMap<usize, JointId> = HashMap::new();
    for joint in asset.skeleton.joints() {
        joint_of.insert(asset.source_index(joint), joint);
    }
    let mut images: HashMap<usize, Option<Image>> = HashMap::new();
    let mut dropped = Dropped::default();
    let shared = shared_positions(document);
    let mut out = Vec::new();
    let root = &document.root;
    for (n, node) in root.nodes.iter().enumerate() {
        let Some(m) = node.mesh else { continue };
        let Some(mesh) = root.get(m) else { continue };
        let skin = node
            .skin
            .and_then(|s| Some((s.as_usize(), scene.skins.get(s.as_usize())?)));
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let here = format!("/meshes/{m}/primitives/{p}");
            let Some(mode) = triangle_mode(primitive) else {
                dropped.primitives += 1;
                continue;
            };
            let Some(position) = primitive.attributes.get("POSITION") else {
                continue;
            };
            let local = vec3s(&accessor::read_f32(document, position)?);
            let count = local.len();
            let invalid = |message: String| {
                Error::invalid(
                    document.path(),
                    Location::JsonPointer(here.clone()),
                    message,
                )
            };
            let indices = match primitive.indices {
                Some(i) => accessor::read_u32(document, i)?,
                None => (0..u32::try_from(count)
                    .map_err(|_| invalid("too many vertices".into()))?)
                    .collect(),
            };
            if let Some(bad) = indices.iter().find(|i| **i as usize >= count) {
                return Err(invalid(format!(
                    "index {bad} is not one of the primitive's {count} vertices"
                )));
            }
            let mut triangles = triangle_list(&indices, mode);
            let normals_local = match primitive.attributes.get("NORMAL") {
                Some(a) => {
                    Some(vec3s(&accessor::read_f32(document, a)?)).filter(|v| v.len() == count)
                }
                None => None,
            };
            let material = primitive
                .material
                .map(|i| material(document, i.as_usize(), &mut images, &mut dropped));
            let uv_source = material.as_ref().map(|(_, s)| *s).unwrap_or_default();
            let uv_set = uv_source.set;
            let mut uvs = match primitive.attributes.get(&format!("TEXCOORD_{uv_set}")) {
                Some(a) => accessor::read_f32(document, a)?
                    .chunks_exact(2)
                    .map(|c| [c[0], c[1]])
                    .collect::<Vec<_>>(),
                None => Vec::new(),
            };
            uv_source.transform(&mut uvs);
            let uvs = if uvs.len() == count { uvs } else { Vec::new() };
            for (semantic, _) in primitive.attributes.iter() {
                let kept = matches!(semantic, "POSITION" | "NORMAL")
                    || semantic.starts_with("JOINTS_")
                    || semantic.starts_with("WEIGHTS_")
                    || semantic == format!("TEXCOORD_{uv_set}");
                if !kept {
                    *dropped.attributes.entry(semantic.to_owned()).or_default() += 1;
                }
            }
            let targets: Vec<(Vec<DVec3>, Option<Vec<DVec3>>)> =
                morph::read_targets(document, &primitive.targets, count, &here, &mut dropped)?
                    .into_iter()
                    .map(|t| (widen(&t.positions), t.normals.as_deref().map(widen)))
                    .collect();
            // Per vertex, the linear maps that carry position and normal deltas to the rest.
            let mut carriers: Vec<(glam::DMat3, glam::DMat3)> = Vec::new();
            let influences = match skin {
                Some((s, data)) => {
                    influences_of(document, &primitive.attributes, count, data.joints.len(), s)?
                }
                None => Vec::new(),
            };
            let name = mesh
                .name
                .clone()
                .or_else(|| node.name.clone())
                .unwrap_or_else(|| format!("mesh{}", m.as_usize()));
            let name = if mesh.primitives.len() > 1 {
                format!("{name}_{p}")
            } else {
                name
            };
            let mut built = SkinnedMesh {
                name,
                uvs,
                material: material.map(|(m, _)| m),
                ..SkinnedMesh::default()
            };
            match skin.filter(|_| !influences.is_empty()) {
                Some((_, data)) => {
                    let matrices: Vec<DMat4> = data
                        .joints
                        .iter()
                        .zip(&data.inverse_bind)
                        .map(|(j, ibm)| worlds.get(*j).copied().unwrap_or(DMat4::IDENTITY) * *ibm)
                        .collect();
                    let mut slots: HashMap<usize, u16> = HashMap::new();
                    for (v, (point, list)) in local.iter().zip(&influences).enumerate() {
                        let mut list = list.clone();
                        let sum: f64 = list.iter().map(|(_, w)| w).sum();
                        if list.len() > 4 {
                            dropped.influences += 1;
                        }
                        if sum <= 0.0 || !sum.is_finite() {
                            dropped.unweighted += 1;
                            list = vec![(0, 1.0)];
                        } else {
                            for (_, w) in &mut list {
                                *w /= sum;
                            }
                        }
                        let m = blend(&matrices, &list).unwrap_or(DMat4::IDENTITY);
                        built
                            .positions
                            .push(m.transform_point3(*point).as_vec3().to_array());
                        if !targets.is_empty() {
                            carriers.push(carriers_of(m));
                        }
                        if let Some(normal) = normals_local.as_ref().and_then(|n| n.get(v)) {
                            built.normals.push(carry_normal(m, *normal));
                        }
                        list.sort_by(|a, b| b.1.total_cmp(&a.1));
                        list.truncate(4);
                        let kept: f64 = list.iter().map(|(_, w)| w).sum();
                        let mut joints = [0u16; 4];
                        let mut weights = [0f32; 4];
                        for (k, (skin_joint, w)) in list.iter().enumerate() {
                            let next = slots.len();
                            let slot = *slots
                                .entry(*skin_joint)
                                .or_insert_with(|| u16::try_from(next).unwrap_or(u16::MAX));
                            if let (Some(j), Some(wk)) = (joints.get_mut(k), weights.get_mut(k)) {
                                *j = slot;
                                *wk = to_f32(w / kept);
                            }
                        }
                        built.joints.push(joints);
                        built.weights.push(weights);
                    }
                    let mut used: Vec<(u16, usize)> = slots
                        .iter()
                        .map(|(skin_joint, slot)| (*slot, *skin_joint))
                        .collect();
                    used.sort_unstable();
                    for (_, skin_joint) in used {
                        let node = data.joints.get(skin_joint).copied().unwrap_or(0);
                        let joint = joint_of.get(&node).copied().ok_or_else(|| {
                            invalid(format!("skin joint node {node} is not in the skeleton"))
                        })?;
                        built.joints_used.push(joint);
                        built.inverse_bind.push(
                            worlds
                                .get(node)
                                .copied()
                                .unwrap_or(DMat4::IDENTITY)
                                .inverse()
                                .as_mat4(),
                        );
                    }
                }
                None => {
                    let m = worlds.get(n).copied().unwrap_or(DMat4::IDENTITY);
                    if !targets.is_empty() {
                        carriers = vec![carriers_of(m); count];
                    }
                    built.positions = local
                        .iter()
                        .map(|p| m.transform_point3(*p).as_vec3().to_array())
                        .collect();
                    if let Some(normals) = &normals_local {
                        built.normals = normals.iter().map(|v| carry_normal(m, *v)).collect();
                    }
                    if m.determinant() < 0.0 {
                        for t in triangles.chunks_exact_mut(3) {
                            t.swap(1, 2);
                        }
                    }
                    let joint = joint_of
                        .get(&n)
                        .copied()
                        .ok_or_else(|| invalid(format!("node {n} is not in the skeleton")))?;
                    built.joints = vec![[0; 4]; count];
                    built.weights = vec![[1.0, 0.0, 0.0, 0.0]; count];
                    built.joints_used = vec![joint];
                    built.rigid = true;
                    built.inverse_bind = vec![m.inverse().as_mat4()];
                }
            }
            built.indices = triangles;
            let defaults = morph::default_weights(node, mesh, targets.len());
            for (t, (positions, normals)) in targets.iter().enumerate() {
                let carry = |deltas: &[DVec3], normal: bool| -> Vec<[f32; 3]> {
                    deltas
                        .iter()
                        .zip(&carriers)
                        .map(|(d, (p, nm))| {
                            let m = if normal { nm } else { p };
                            (*m * *d).as_vec3().to_array()
                        })
                        .collect()
                };
                built.morph_targets.push(MorphTarget {
                    name: morph::target_name(mesh, t),
                    positions: carry(positions, false),
                    normals: normals.as_ref().map_or_else(Vec::new, |n| carry(n, true)),
                });
                built
                    .morph_weights
                    .push(defaults.get(t).copied().unwrap_or(0.0));
            }
            if shared.contains(&position.as_usize()) {
                dropped.unused_vertices += built.drop_unused_vertices();
            }
            out.push((built, n));
        }
    }
    dropped.report(diagnostics);
    Ok(out)
}

/// The `POSITION` accessors that more than one primitive reads: primitives that share one
/// vertex buffer, each drawing part of it. Only those primitives' unused vertices are left
/// out (a primitive of its own keeps every vertex it stores, in order).
pub(super) fn shared_positions(document: &Document) -> std::collections::HashSet<usize> {
    let mut uses: HashMap<usize, usize> = HashMap::new();
    for mesh in &document.root.meshes {
        for primitive in &mesh.primitives {
            if let Some(a) = primitive.attributes.get("POSITION") {
                *uses.entry(a.as_usize()).or_default() += 1;
            }
        }
    }
    uses.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(a, _)| a)
        .collect()
}

/// The linear maps that carry a vertex's morph deltas with its matrix `m`: its linear part for
/// positions, the normal matrix for normals.
fn carriers_of(m: DMat4) -> (glam::DMat3, glam::DMat3) {
    let linear = glam::DMat3::from_mat4(m);
    let normal = normal_matrix(m).unwrap_or(linear);
    (linear, normal)
}

/// What was dropped, counted for one report each.
#[derive(Default)]
pub(super) struct Dropped {
    pub(super) primitives: usize,
    pub(super) attributes: std::collections::BTreeMap<String, usize>,
    pub(super) influences: usize,
    pub(super) unweighted: usize,
    pub(super) material_parts: std::collections::BTreeSet<String>,
    /// Vertices of a shared vertex buffer that no triangle of their primitive uses (left out).
    pub(super) unused_vertices: usize,
}

/// The start of `MESH_MATERIAL_SIMPLIFIED`'s message, before the list of material parts not
/// carried (the preview words it as what it does not draw).
pub(crate) const MATERIAL_NOT_CARRIED: &str =
    "materials keep their base colour and its texture; not carried: ";

impl Dropped {
    pub(super) fn report(self, diagnostics: &mut Diagnostics) {
        if self.primitives > 0 {
            diagnostics.warn(
                "MESH_PRIMITIVES_DROPPED",
                "",
                format!(
                    "{} primitive(s) of points or lines, or with compressed vertex data: not carried",
                    self.primitives
                ),
            );
        }
        if !self.attributes.is_empty() {
            let list: Vec<String> = self
                .attributes
                .iter()
                .map(|(s, n)| format!("{s} ({n})"))
                .collect();
            diagnostics.warn(
                "MESH_ATTRIBUTES_DROPPED",
                "",
                format!("vertex attributes not carried: {}", list.join(", ")),
            );
        }
        if self.influences > 0 {
            diagnostics.warn(
                "MESH_INFLUENCES_TRUNCATED",
                "",
                format!(
                    "{} vertices have more than 4 joint influences: the 4 largest are kept, scaled to sum to 1 (the rest pose places them with all)",
                    self.influences
                ),
            );
        }
        if self.unused_vertices > 0 {
            diagnostics.info(
                "MESH_VERTICES_UNUSED",
                "",
                format!(
                    "{} vertices of vertex buffers shared by several primitives are used by no triangle of theirs: left out",
                    self.unused_vertices
                ),
            );
        }
        if self.unweighted > 0 {
            diagnostics.warn(
                "MESH_UNWEIGHTED",
                "",
                format!(
                    "{} skinned vertices have no weight: they follow the skin's first joint",
                    self.unweighted
                ),
            );
        }
        if !self.material_parts.is_empty() {
            let list: Vec<&str> = self.material_parts.iter().map(String::as_str).collect();
            diagnostics.warn(
                "MESH_MATERIAL_SIMPLIFIED",
                "",
                format!("{MATERIAL_NOT_CARRIED}{}", list.join(", ")),
            );
        }
    }
}

/// Single-precision 3-vectors widened.
fn widen(values: &[[f32; 3]]) -> Vec<DVec3> {
    values
        .iter()
        .map(|v| glam::Vec3::from_array(*v).as_dvec3())
        .collect()
}

/// Flat `[x, y, z, ...]` as vectors.
fn vec3s(values: &[f32]) -> Vec<DVec3> {
    values
        .chunks_exact(3)
        .map(|c| DVec3::new(f64::from(c[0]), f64::from(c[1]), f64::from(c[2])))
        .collect()
}

/// A normal carried by `m` (inverse transpose), unit length (+Y when degenerate).
fn carry_normal(m: DMat4, n: DVec3) -> [f32; 3] {
    normal_matrix(m)
        .map_or(n, |nm| nm * n)
        .try_normalize()
        .unwrap_or(DVec3::Y)
        .as_vec3()
        .to_array()
}

/// Triangles (a list) from indices drawn in `mode` (4 list, 5 strip, 6 fan).
pub(super) fn triangle_list(indices: &[u32], mode: u32) -> Vec<u32> {
    match mode {
        5 => {
            let mut out = Vec::with_capacity(indices.len().saturating_sub(2) * 3);
            for (i, w) in indices.windows(3).enumerate() {
                if let &[a, b, c] = w {
                    if i % 2 == 0 {
                        out.extend([a, b, c]);
                    } else {
                        out.extend([b, a, c]);
                    }
                }
            }
            out
        }
        6 => {
            let mut out = Vec::with_capacity(indices.len().saturating_sub(2) * 3);
            if let [first, rest @ ..] = indices {
                for w in rest.windows(2) {
                    if let &[b, c] = w {
                        out.extend([*first, b, c]);
                    }
                }
            }
            out
        }
        _ => indices.chunks_exact(3).flatten().copied().collect(),
    }
}

/// Which texture coordinates a material's base-colour texture reads: the set, and the
/// `KHR_texture_transform` applied to them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct UvSource {
    /// `TEXCOORD_n`.
    pub set: usize,
    /// The transform (`None`: the coordinates as they are).
    pub transform: Option<UvTransform>,
}

/// `KHR_texture_transform`: `uv' = T(offset) · R(rotation) · S(scale) · uv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct UvTransform {
    offset: [f32; 2],
    rotation: f32,
    scale: [f32; 2],
}

impl UvTransform {
    /// The extension's object (`offset`, `rotation`, `scale`; absent fields their defaults);
    /// `None` for the identity.
    fn from_json(json: &Value) -> Option<UvTransform> {
        let pair = |name: &str, default: f32| -> [f32; 2] {
            let mut out = [default; 2];
            if let Some(values) = json.get(name).and_then(Value::as_array) {
                for (slot, v) in out.iter_mut().zip(values) {
                    *slot = v.as_f64().map_or(default, to_f32);
                }
            }
            out
        };
        let transform = UvTransform {
            offset: pair("offset", 0.0),
            rotation: to_f32(json.get("rotation").and_then(Value::as_f64).unwrap_or(0.0)),
            scale: pair("scale", 1.0),
        };
        let identity = UvTransform {
            offset: [0.0; 2],
            rotation: 0.0,
            scale: [1.0; 2],
        };
        (transform != identity).then_some(transform)
    }

    /// The transformed coordinates (the extension's matrix, rotation counter-clockwise in UV
    /// space with V down).
    pub(super) fn apply(&self, [u, v]: [f32; 2]) -> [f32; 2] {
        let (s, c) = self.rotation.sin_cos();
        let (u, v) = (u * self.scale[0], v * self.scale[1]);
        [
            c * u + s * v + self.offset[0],
            -s * u + c * v + self.offset[1],
        ]
    }
}

impl UvSource {
    /// Applies the transform to `uvs` in place.
    pub(super) fn transform(&self, uvs: &mut [[f32; 2]]) {
        if let Some(t) = &self.transform {
            for uv in uvs {
                *uv = t.apply(*uv);
            }
        }
    }
}

/// Material `index` (its base colour, texture, sides, alpha mode) and the texture coordinates
/// its texture reads. A `KHR_texture_transform` on the base-colour texture is kept by applying
/// it to those coordinates (the canonical mesh's `uvs` are the base colour's).
pub(super) fn material(
    document: &Document,
    index: usize,
    images: &mut HashMap<usize, Option<Image>>,
    dropped: &mut Dropped,
) -> (Material, UvSource) {
    let Some(json) = document
        .root
        .other
        .get("materials")
        .and_then(|m| m.get(index))
    else {
        return (Material::default(), UvSource::default());
    };
    let pbr = json.get("pbrMetallicRoughness");
    let mut base_color = [1.0f32; 4];
    if let Some(factor) = pbr
        .and_then(|p| p.get("baseColorFactor"))
        .and_then(Value::as_array)
    {
        for (slot, v) in base_color.iter_mut().zip(factor) {
            *slot = to_f32(v.as_f64().unwrap_or(1.0));
        }
    }
    let texture_info = pbr.and_then(|p| p.get("baseColorTexture"));
    let transform_json = texture_info
        .and_then(|t| t.get("extensions"))
        .and_then(|e| e.get("KHR_texture_transform"));
    // The extension's `texCoord` replaces the texture info's.
    let set = transform_json
        .and_then(|t| t.get("texCoord"))
        .or_else(|| texture_info.and_then(|t| t.get("texCoord")))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    // A set beyond the address space is no set of this mesh, as a large one is.
    let set = usize::try_from(set).unwrap_or(usize::MAX);
    let uv_source = UvSource {
        set,
        transform: transform_json.and_then(UvTransform::from_json),
    };
    for part in [
        "normalTexture",
        "occlusionTexture",
        "emissiveTexture",
        "emissiveFactor",
    ] {
        if json.get(part).is_some() {
            dropped.material_parts.insert(part.into());
        }
    }
    if pbr
        .and_then(|p| p.get("metallicRoughnessTexture"))
        .is_some()
    {
        dropped
            .material_parts
            .insert("metallicRoughnessTexture".into());
    }
    let image = texture_info.and_then(|info| texture_image(document, info, images));
    if texture_info.is_some() && image.is_none() {
        dropped
            .material_parts
            .insert("a base colour texture whose image cannot be read".into());
    }
    (
        Material {
            name: json
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            base_color,
            base_color_texture: image,
            double_sided: json
                .get("doubleSided")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            alpha_mode: match json.get("alphaMode").and_then(Value::as_str) {
                Some("MASK") => AlphaMode::Mask(to_f32(
                    json.get("alphaCutoff")
                        .and_then(Value::as_f64)
                        .unwrap_or(0.5),
                )),
                Some("BLEND") => AlphaMode::Blend,
                _ => AlphaMode::Opaque,
            },
            toon: super::toon::toon_of(json, |info| texture_image(document, info, images)),
        },
        uv_source,
    )
}

/// The image a texture info (`{"index": texture}`) shows, read once per image.
fn texture_image(
    document: &Document,
    info: &Value,
    images: &mut HashMap<usize, Option<Image>>,
) -> Option<Image> {
    let texture = usize::try_from(info.get("index")?.as_u64()?).ok()?;
    let source = document
        .root
        .other
        .get("textures")?
        .get(texture)?
        .get("source")?
        .as_u64()?;
    let source = usize::try_from(source).ok()?;
    images
        .entry(source)
        .or_insert_with(|| image(document, source))
        .clone()
}

/// Image `index`'s bytes (from a buffer view, a `data:` URI or a file beside the input).
fn image(document: &Document, index: usize) -> Option<Image> {
    let json = document.root.images.get(index)?;
    let name = json.name.clone();
    let (bytes, mime_type, name) = match (&json.uri, json.buffer_view) {
        (_, Some(view)) => (
            document.buffer_view(view).ok()?.to_vec(),
            json.mime_type.clone()?,
            name.unwrap_or_else(|| format!("image{index}")),
        ),
        (Some(text), None) => match uri::parse(text).ok()? {
            Uri::Data { mime_type, bytes } => (
                bytes,
                json.mime_type.clone().unwrap_or(mime_type),
                name.unwrap_or_else(|| format!("image{index}")),
            ),
            Uri::Relative(path) => {
                let file = uri::resolve(document.base_dir()?, &path).ok()?;
                let limit = crate::io::Limits::get().binary_bytes;
                let bytes = crate::io::input::read_bounded(&file, limit, "an image").ok()?;
                let mime = json
                    .mime_type
                    .clone()
                    .or_else(|| uri::image_mime_type(&path).map(str::to_owned))?;
                let file_name = path.rsplit('/').next().unwrap_or(&path).to_owned();
                (bytes, mime, name.unwrap_or(file_name))
            }
        },
        (None, None) => return None,
    };
    Some(Image {
        name,
        mime_type,
        bytes: Arc::from(bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_and_fans_become_lists() {
        assert_eq!(triangle_list(&[0, 1, 2, 3], 5), [0, 1, 2, 2, 1, 3]);
        assert_eq!(triangle_list(&[0, 1, 2, 3], 6), [0, 1, 2, 0, 2, 3]);
        assert_eq!(triangle_list(&[0, 1, 2, 3, 4], 4), [0, 1, 2]);
    }

    #[test]
    fn texture_transform_is_the_extensions_matrix() {
        // KHR_texture_transform's definition: T(offset) · R(rotation) · S(scale), with
        // R = [cos sin 0; −sin cos 0; 0 0 1] written by rows.
        let json =
            serde_json::json!({"offset": [0.25, -0.5], "rotation": 0.7, "scale": [2.0, 0.5]});
        let t = UvTransform::from_json(&json).expect("not the identity");
        let (s, c) = 0.7f32.sin_cos();
        let matrix = glam::Mat3::from_translation(glam::Vec2::new(0.25, -0.5))
            * glam::Mat3::from_cols(
                glam::Vec3::new(c, -s, 0.0),
                glam::Vec3::new(s, c, 0.0),
                glam::Vec3::Z,
            )
            * glam::Mat3::from_scale(glam::Vec2::new(2.0, 0.5));
        for uv in [[0.0, 0.0], [1.0, 0.0], [0.3, 0.8], [-2.0, 5.0]] {
            let expected = matrix.transform_point2(glam::Vec2::from(uv));
            let got = glam::Vec2::from(t.apply(uv));
            assert!(
                (got - expected).length() < 1e-6,
                "{uv:?}: {got} vs {expected}"
            );
        }
        let identity = serde_json::json!({"offset": [0, 0], "scale": [1, 1]});
        assert_eq!(UvTransform::from_json(&identity), None);
        assert_eq!(
            UvTransform::from_json(&serde_json::json!({"texCoord": 1})),
            None
        );
    }

    #[test]
    fn a_normal_follows_the_inverse_transpose() {
        let m = DMat4::from_scale(DVec3::new(2.0, 1.0, 1.0));
        let n = carry_normal(m, DVec3::new(1.0, 1.0, 0.0));
        let expected = DVec3::new(0.5, 1.0, 0.0).normalize();
        assert!((DVec3::from_array(n.map(f64::from)) - expected).length() < 1e-6);
    }
}
