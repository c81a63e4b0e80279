//! What the writers write of the meshes: the skin (one `skinCoord` for all deformable meshes,
//! the joints' `skinCoordIndex`/`skinCoordWeight`, a Shape per mesh) and the segments (rigid
//! meshes under their joints), with their materials.
//!
//! ## Overview
//!
//! - **Rest pose first.** A mesh is placed by linear blend skinning at the rest the file writes,
//!   `v' = Σ w_k · R_k · IBM_k · v` (`R_k` the joint's rest world matrix), normals by the
//!   inverse transpose of the same matrix ([`crate::pose::bake::blend`],
//!   [`crate::pose::bake::normal_matrix`]). The file is BASIC (every joint frame is the
//!   humanoid's at rest), so these humanoid-space vertices are what `skinCoord` holds and what
//!   a segment's children hold: no binding matrices are needed.
//! - **Skin or segment.** A rigid mesh ([`SkinnedMesh::rigid`]: segment shapes, a glTF mesh
//!   node without a skin) whose every vertex follows one joint with weight 1, and whose every
//!   triangle stays on one joint, goes into HAnimSegments: per joint, one Shape per mesh.
//!   Every other mesh is skin (a skin whose vertices all follow one joint stays a skin).
//! - **One skinCoord.** `HAnimHumanoid.skinCoord` is a single Coordinate (an SFNode) that each
//!   joint's `skinCoordIndex` indexes, so the skin meshes are merged into it with index offsets,
//!   in order (vertex `i` of the second mesh is `n₀ + i`); each mesh keeps its own Shape (its
//!   material) whose geometry USEs that Coordinate (and the shared Normal and
//!   TextureCoordinate). X_ITE and Castle deform the Coordinate node itself, so every Shape that
//!   USEs it follows.
//! - **Joints not written.** An influence on a joint the file does not write goes to its
//!   nearest written ancestor (weights on the same joint added).
//! - **Weights.** Every influence above 0, as the mesh has it (each vertex's weights sum to 1).
//! - **Materials.** The base colour becomes `Material.diffuseColor` and `transparency`
//!   (`1 − alpha`); a base colour texture becomes an ImageTexture whose `url` is a `data:` URL
//!   holding the image's bytes (both X_ITE and Castle read them; the file stays one file), with
//!   the texture coordinates flipped to X3D's bottom-left origin (`t = 1 − v`). X3D 4's
//!   `Appearance.alphaMode` is written where its default (`AUTO`: blend when transparency is
//!   above 0) would say otherwise: `MASK` with `alphaCutoff`, `BLEND` for an opaque base colour
//!   (its texture's alpha), `OPAQUE` for a transparent one. VRML97 has no alpha mode: those
//!   materials are written with their transparency alone, reported.
//! - Rigid meshes on no written joint are written beside the humanoid as plain Shapes.
//! - **Morph targets → displacers.** Each morph target of a skin mesh becomes an
//!   `HAnimDisplacer` (1.1: a `Displacer` PROTO instance) on the planned joint its moved vertices
//!   are most weighted to (weight × delta length summed): X_ITE turns a displacement by its
//!   joint's skinning rotation, so a face target follows the head. `coordIndex` lists the
//!   vertices the target moves (delta not zero) as `skinCoord` indices; `displacements` are the
//!   deltas carried to the rest like the vertices (the linear part of each vertex's blended
//!   matrix), in humanoid space, which is the skin coordinates' space (BASIC); `weight` is the
//!   mesh's default weight; `name` the target's (prefixed with the mesh name when two targets
//!   share it). A rigid mesh with morph targets is written as skin (every vertex weighted 1 to
//!   its joint), since a segment's displacers act on one `coord` only.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine as _;
use glam::{DMat3, DMat4, DVec3};

use super::names;
use super::plan::identifier;
use crate::error::Diagnostics;
use crate::math::num::to_f32;
use crate::model::asset::Asset;
use crate::model::mesh::{AlphaMode, Material, SkinnedMesh};
use crate::model::skeleton::JointId;
use crate::pose::bake::{blend, normal_matrix};

/// A material to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedMaterial {
    /// `Material.diffuseColor`.
    pub diffuse: [f32; 3],
    /// `Material.transparency`.
    pub transparency: f32,
    /// The ImageTexture: DEF name and `data:` URL.
    pub texture: Option<(String, Arc<str>)>,
    /// Geometry `solid` (false for double-sided materials).
    pub solid: bool,
    /// `Appearance.alphaMode` and `alphaCutoff` (X3D 4), where `AUTO` would not say it.
    pub alpha_mode: Option<(&'static str, Option<f32>)>,
}

/// One Shape: its triangles (indices into its coordinates) and look.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedShape {
    /// Triangle list.
    pub triangles: Vec<u32>,
    /// Its material (`None`: no Appearance).
    pub material: Option<PlannedMaterial>,
}

/// Coordinates with what goes with them, flat.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PlannedPoints {
    /// Points (3 per vertex), humanoid space.
    pub points: Vec<f32>,
    /// Unit normals (3 per vertex) or empty.
    pub normals: Vec<f32>,
    /// Texture coordinates (2 per vertex, X3D origin) or empty.
    pub uvs: Vec<f32>,
}

/// The skin.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedSkin {
    /// DEF of the Coordinate.
    pub coord_def: String,
    /// DEF of the Normal (written when `points.normals` is not empty).
    pub normal_def: String,
    /// DEF of the TextureCoordinate (written when `points.uvs` is not empty).
    pub texcoord_def: String,
    /// Every skin vertex.
    pub points: PlannedPoints,
    /// One Shape per skin mesh.
    pub shapes: Vec<PlannedShape>,
    /// Per planned joint: `(vertex, weight)`, vertices increasing.
    pub weights: Vec<Vec<(u32, f32)>>,
    /// The morph targets of the skin meshes.
    pub displacers: Vec<PlannedDisplacer>,
}

/// One displacer: a morph target of a skin mesh.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedDisplacer {
    /// `name`.
    pub name: String,
    /// DEF name.
    pub def: String,
    /// The joint it sits on (index into the plan's joints).
    pub joint: usize,
    /// `coordIndex`: skin vertices it moves.
    pub indices: Vec<u32>,
    /// `displacements`, 3 per index, humanoid space.
    pub displacements: Vec<f32>,
    /// `weight`.
    pub weight: f32,
    /// The mesh (index into the meshes planned) and its target.
    pub source: (usize, usize),
}

/// One segment: rigid meshes following one joint.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedSegment {
    /// `name`.
    pub name: String,
    /// DEF name.
    pub def: String,
    /// The joint (index into the plan's joints); `None` for shapes written beside the humanoid.
    pub joint: Option<usize>,
    /// Its shapes, each with its own coordinates.
    pub shapes: Vec<(PlannedPoints, PlannedShape)>,
}

/// The meshes as the writers write them.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PlannedMeshes {
    /// The skin, when some mesh deforms.
    pub skin: Option<PlannedSkin>,
    /// Segments, in joint order; the one with `joint: None` (if any) last.
    pub segments: Vec<PlannedSegment>,
}

/// Plans `meshes` for the planned joints (`index_of`: canonical joint → planned joint;
/// `joint_names`: the planned joints' names).
pub(crate) fn plan_meshes(
    asset: &Asset,
    meshes: &[SkinnedMesh],
    index_of: &HashMap<JointId, usize>,
    joint_names: &[String],
    alpha_modes: bool,
    def_of: &mut dyn FnMut(&str) -> String,
    diagnostics: &mut Diagnostics,
) -> PlannedMeshes {
    let skeleton = &asset.skeleton;
    let written = |joint: JointId| -> Option<usize> {
        if !skeleton.contains(joint) {
            return None;
        }
        std::iter::once(joint)
            .chain(skeleton.ancestors(joint))
            .find_map(|j| index_of.get(&j).copied())
    };
    let mut textures: HashMap<*const u8, (String, Arc<str>)> = HashMap::new();
    let mut skin_points = PlannedPoints::default();
    let mut skin_shapes = Vec::new();
    let mut skin_weights: Vec<Vec<(u32, f32)>> = vec![Vec::new(); joint_names.len()];
    let mut skin_has_normals = true;
    let mut skin_has_uvs = false;
    let mut by_joint: Vec<Vec<(PlannedPoints, PlannedShape)>> = vec![Vec::new(); joint_names.len()];
    let mut loose: Vec<(PlannedPoints, PlannedShape)> = Vec::new();
    let mut skipped = 0usize;
    let mut displacers: Vec<PlannedDisplacer> = Vec::new();
    let mut unstated_alpha = 0usize;
    for (mesh_index, mesh) in meshes.iter().enumerate() {
        let Some(placed) = place(asset, mesh) else {
            skipped += 1;
            continue;
        };
        let mut material = mesh
            .material
            .as_ref()
            .map(|m| material(m, &mut textures, def_of));
        if let Some(m) = material.as_mut().filter(|m| m.alpha_mode.is_some()) {
            if !alpha_modes {
                m.alpha_mode = None;
                unstated_alpha += 1;
            }
        }
        let count = mesh.positions.len();
        // Each vertex's planned joints (None: no written joint) and weights.
        let influences: Vec<Vec<(Option<usize>, f32)>> = mesh
            .joints
            .iter()
            .zip(&mesh.weights)
            .map(|(js, ws)| {
                let mut list: Vec<(Option<usize>, f32)> = Vec::new();
                for (slot, w) in js.iter().zip(ws) {
                    if *w <= 0.0 {
                        continue;
                    }
                    let joint = mesh
                        .joints_used
                        .get(usize::from(*slot))
                        .and_then(|j| written(*j));
                    match list.iter_mut().find(|(j, _)| *j == joint) {
                        Some(entry) => entry.1 += *w,
                        None => list.push((joint, *w)),
                    }
                }
                list
            })
            .collect();
        let single: Vec<Option<Option<usize>>> = influences
            .iter()
            .map(|list| match list.as_slice() {
                [(joint, w)] if (*w - 1.0).abs() <= 1e-6 => Some(*joint),
                _ => None,
            })
            .collect();
        let rigid = mesh.rigid
            && mesh.morph_targets.is_empty()
            && single.iter().all(Option::is_some)
            && mesh.indices.chunks_exact(3).all(|t| {
                let j = |i: u32| single.get(i as usize).copied().flatten();
                j(t[0]) == j(t[1]) && j(t[1]) == j(t[2])
            });
        if rigid {
            // Split by joint, each part with its own compact coordinates.
            let mut parts: HashMap<Option<usize>, (Vec<u32>, Vec<u32>)> = HashMap::new();
            let mut order: Vec<Option<usize>> = Vec::new();
            let mut remap: Vec<Option<u32>> = vec![None; count];
            for t in mesh.indices.chunks_exact(3) {
                let joint = single.get(t[0] as usize).copied().flatten().flatten();
                let (vertices, triangles) = parts.entry(joint).or_insert_with(|| {
                    order.push(joint);
                    (Vec::new(), Vec::new())
                });
                for i in t {
                    let local = match remap.get(*i as usize).copied().flatten() {
                        Some(local) => local,
                        None => {
                            let local = u32::try_from(vertices.len()).unwrap_or(u32::MAX);
                            vertices.push(*i);
                            if let Some(slot) = remap.get_mut(*i as usize) {
                                *slot = Some(local);
                            }
                            local
                        }
                    };
                    triangles.push(local);
                }
            }
            for joint in order {
                let Some((vertices, triangles)) = parts.remove(&joint) else {
                    continue;
                };
                let mut points = PlannedPoints::default();
                for v in &vertices {
                    placed.push_vertex(*v as usize, &mut points);
                }
                let shape = PlannedShape {
                    triangles,
                    material: material.clone(),
                };
                match joint.and_then(|j| by_joint.get_mut(j)) {
                    Some(list) => list.push((points, shape)),
                    None => loose.push((points, shape)),
                }
            }
            continue;
        }
        let Ok(base) = u32::try_from(skin_points.points.len() / 3) else {
            skipped += 1;
            continue;
        };
        let root = 0usize;
        for (v, list) in influences.iter().enumerate() {
            let vertex = base.saturating_add(u32::try_from(v).unwrap_or(u32::MAX));
            let total: f32 = list.iter().map(|(_, w)| w).sum();
            for (joint, w) in list {
                let joint = joint.unwrap_or(root);
                if let Some(weights) = skin_weights.get_mut(joint) {
                    match weights.last_mut() {
                        Some((last, sum)) if *last == vertex => *sum += *w,
                        _ => weights.push((vertex, *w)),
                    }
                }
            }
            if list.is_empty() || total <= 0.0 {
                if let Some(weights) = skin_weights.get_mut(root) {
                    weights.push((vertex, 1.0));
                }
            }
        }
        skin_has_normals &= !placed.normals.is_empty();
        skin_has_uvs |= !mesh.uvs.is_empty();
        for v in 0..count {
            placed.push_vertex(v, &mut skin_points);
        }
        if mesh.uvs.is_empty() {
            skin_points.uvs.extend(std::iter::repeat_n(0.0, count * 2));
        }
        skin_shapes.push(PlannedShape {
            triangles: mesh.indices.iter().map(|i| i + base).collect(),
            material,
        });
        for (t, target) in mesh.morph_targets.iter().enumerate() {
            let mut indices = Vec::new();
            let mut displacements = Vec::new();
            let mut pull: Vec<f64> = vec![0.0; joint_names.len()];
            for (v, delta) in target.positions.iter().enumerate().take(count) {
                let delta = DVec3::from_array(delta.map(f64::from));
                if delta == DVec3::ZERO {
                    continue;
                }
                let carried = placed.linear.get(v).map_or(delta, |l| *l * delta);
                indices.push(base.saturating_add(u32::try_from(v).unwrap_or(u32::MAX)));
                displacements.extend(carried.as_vec3().to_array());
                for (joint, w) in influences.get(v).map_or(&[][..], Vec::as_slice) {
                    if let Some(p) = pull.get_mut(joint.unwrap_or(root)) {
                        *p += f64::from(*w) * carried.length();
                    }
                }
            }
            // (A target that moves nothing sits on the root.)
            let joint = pull
                .iter()
                .enumerate()
                .filter(|(_, p)| **p > 0.0)
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map_or(root, |(j, _)| j);
            displacers.push(PlannedDisplacer {
                name: target.name.clone(),
                def: String::new(),
                joint,
                indices,
                displacements,
                weight: mesh.morph_weights.get(t).copied().unwrap_or(0.0),
                source: (mesh_index, t),
            });
        }
    }
    // Names: the target's, or `mesh_target` when another target has it too; DEFs from them.
    let shared: Vec<bool> = displacers
        .iter()
        .map(|d| displacers.iter().filter(|o| o.name == d.name).count() > 1)
        .collect();
    for (d, shared) in displacers.iter_mut().zip(shared) {
        if shared || d.name.is_empty() {
            let mesh = meshes.get(d.source.0).map_or("mesh", |m| m.name.as_str());
            d.name = if d.name.is_empty() {
                format!("{mesh}_target{}", d.source.1)
            } else {
                format!("{mesh}_{}", d.name)
            };
        }
        d.def = def_of(&format!("hanim_{}", identifier(&d.name)));
    }
    if skipped > 0 {
        diagnostics.warn(
            "HANIM_MESH_DROPPED",
            "",
            format!("{skipped} mesh(es) with inconsistent vertex data (or too many vertices): not written"),
        );
    }
    if unstated_alpha > 0 {
        diagnostics.warn(
            "HANIM_ALPHA_MODE_DROPPED",
            "",
            format!("{unstated_alpha} mesh(es) whose material's alpha mode (MASK, or BLEND of an opaque colour) VRML97 cannot state: written with their transparency alone"),
        );
    }
    if !skin_has_normals {
        skin_points.normals.clear();
    }
    if !skin_has_uvs {
        skin_points.uvs.clear();
    }
    let skin = (!skin_shapes.is_empty()).then(|| PlannedSkin {
        coord_def: def_of("hanim_SkinCoord"),
        normal_def: def_of("hanim_SkinNormal"),
        texcoord_def: def_of("hanim_SkinTexCoord"),
        points: skin_points,
        shapes: skin_shapes,
        weights: skin_weights,
        displacers,
    });
    let mut segments = Vec::new();
    for (joint, shapes) in by_joint.into_iter().enumerate() {
        if shapes.is_empty() {
            continue;
        }
        let joint_name = joint_names.get(joint).map_or("", String::as_str);
        let name = names::to_v2(joint_name)
            .and_then(names::spec)
            .map_or_else(|| format!("{joint_name}_segment"), |s| s.segment.to_owned());
        segments.push(PlannedSegment {
            def: def_of(&format!("hanim_{}", identifier(&name))),
            name,
            joint: Some(joint),
            shapes,
        });
    }
    if !loose.is_empty() {
        diagnostics.info(
            "HANIM_MESH_OUTSIDE",
            "",
            format!(
                "{} rigid shape(s) on no written joint: written beside the humanoid",
                loose.len()
            ),
        );
        segments.push(PlannedSegment {
            name: String::new(),
            def: String::new(),
            joint: None,
            shapes: loose,
        });
    }
    PlannedMeshes { skin, segments }
}

/// A mesh's vertices at the rest pose (humanoid space), normals carried the same way; for a
/// mesh with morph targets, the linear part of each vertex's blended matrix (which carries its
/// deltas).
struct Placed<'m> {
    positions: Vec<DVec3>,
    normals: Vec<DVec3>,
    uvs: &'m [[f32; 2]],
    linear: Vec<DMat3>,
}

impl Placed<'_> {
    fn push_vertex(&self, v: usize, out: &mut PlannedPoints) {
        if let Some(p) = self.positions.get(v) {
            out.points.extend(p.to_array().map(to_f32));
        }
        if let Some(n) = self.normals.get(v) {
            out.normals.extend(n.to_array().map(to_f32));
        }
        if let Some([s, t]) = self.uvs.get(v) {
            out.uvs.extend([*s, 1.0 - *t]);
        }
    }
}

/// `mesh` skinned to the asset's rest (module docs); `None` when its data are inconsistent.
fn place<'m>(asset: &Asset, mesh: &'m SkinnedMesh) -> Option<Placed<'m>> {
    let count = mesh.positions.len();
    let consistent = mesh.joints.len() == count
        && mesh.weights.len() == count
        && (mesh.normals.is_empty() || mesh.normals.len() == count)
        && (mesh.uvs.is_empty() || mesh.uvs.len() == count)
        && mesh.inverse_bind.len() == mesh.joints_used.len()
        && mesh.indices.len().is_multiple_of(3)
        && mesh.indices.iter().all(|i| (*i as usize) < count)
        && u32::try_from(count).is_ok();
    if !consistent {
        return None;
    }
    let skeleton = &asset.skeleton;
    let matrices: Vec<DMat4> = mesh
        .joints_used
        .iter()
        .zip(&mesh.inverse_bind)
        .map(|(j, ibm)| {
            let rest = if skeleton.contains(*j) {
                let w = skeleton.rest_world(*j);
                DMat4::from_scale_rotation_translation(
                    w.scale.as_dvec3(),
                    w.rotation.as_dquat().normalize(),
                    w.translation.as_dvec3(),
                )
            } else {
                DMat4::IDENTITY
            };
            rest * ibm.as_dmat4()
        })
        .collect();
    let mut positions = Vec::with_capacity(count);
    let mut normals = Vec::with_capacity(mesh.normals.len());
    let mut linear = Vec::new();
    for (v, (js, ws)) in mesh.joints.iter().zip(&mesh.weights).enumerate() {
        let influences: Vec<(usize, f64)> = js
            .iter()
            .zip(ws)
            .filter(|(_, w)| **w > 0.0)
            .map(|(j, w)| (usize::from(*j), f64::from(*w)))
            .collect();
        let m = blend(&matrices, &influences)
            .filter(|_| !influences.is_empty())
            .unwrap_or(DMat4::IDENTITY);
        let p = mesh.positions.get(v).copied().unwrap_or_default();
        positions.push(m.transform_point3(DVec3::from_array(p.map(f64::from))));
        if !mesh.morph_targets.is_empty() {
            linear.push(DMat3::from_mat4(m));
        }
        if let Some(n) = mesh.normals.get(v) {
            let n = DVec3::from_array(n.map(f64::from));
            let carried = normal_matrix(m).map_or(n, |nm| nm * n);
            normals.push(carried.try_normalize().unwrap_or(DVec3::Y));
        }
    }
    Some(Placed {
        positions,
        normals,
        uvs: &mesh.uvs,
        linear,
    })
}

fn material(
    m: &Material,
    textures: &mut HashMap<*const u8, (String, Arc<str>)>,
    def_of: &mut dyn FnMut(&str) -> String,
) -> PlannedMaterial {
    let texture = m.base_color_texture.as_ref().map(|image| {
        textures
            .entry(image.bytes.as_ptr())
            .or_insert_with(|| {
                let mut url = format!("data:{};base64,", image.mime_type);
                base64::engine::general_purpose::STANDARD.encode_string(&*image.bytes, &mut url);
                let name = if image.name.is_empty() {
                    "texture".to_owned()
                } else {
                    image.name.clone()
                };
                (
                    def_of(&format!("hanim_{}", identifier(&name))),
                    Arc::from(url),
                )
            })
            .clone()
    });
    let [r, g, b, a] = m.base_color;
    let transparency = (1.0 - a).clamp(0.0, 1.0);
    PlannedMaterial {
        diffuse: [r, g, b],
        transparency,
        texture,
        solid: !m.double_sided,
        alpha_mode: alpha_mode(m.alpha_mode, transparency),
    }
}

/// The `alphaMode` (and `alphaCutoff`) to write for `mode`, where X3D 4's `AUTO` (blend when
/// `transparency` is above 0) would not say it.
fn alpha_mode(mode: AlphaMode, transparency: f32) -> Option<(&'static str, Option<f32>)> {
    match mode {
        AlphaMode::Mask(cutoff) => Some(("MASK", Some(cutoff))),
        AlphaMode::Blend if transparency <= 0.0 => Some(("BLEND", None)),
        AlphaMode::Opaque if transparency > 0.0 => Some(("OPAQUE", None)),
        _ => None,
    }
}

/// The segments under each planned joint.
pub(crate) fn segments_by_joint(
    meshes: &PlannedMeshes,
    joints: usize,
) -> Vec<Vec<&PlannedSegment>> {
    let mut out: Vec<Vec<&PlannedSegment>> = vec![Vec::new(); joints];
    for segment in &meshes.segments {
        if let Some(list) = segment.joint.and_then(|j| out.get_mut(j)) {
            list.push(segment);
        }
    }
    out
}

/// The displacers on joint `joint`.
pub(crate) fn displacers_of(meshes: &PlannedMeshes, joint: usize) -> Vec<&PlannedDisplacer> {
    meshes
        .skin
        .as_ref()
        .map(|s| s.displacers.iter().filter(|d| d.joint == joint).collect())
        .unwrap_or_default()
}

/// Joint `joint`'s skin influences, when it has any.
pub(crate) fn weights_of(meshes: &PlannedMeshes, joint: usize) -> Option<&[(u32, f32)]> {
    meshes
        .skin
        .as_ref()
        .and_then(|s| s.weights.get(joint))
        .map(Vec::as_slice)
        .filter(|w| !w.is_empty())
}

/// The vertices of `weights`, space-separated (`skinCoordIndex`).
pub(crate) fn write_indices(out: &mut String, weights: &[(u32, f32)]) {
    use std::fmt::Write as _;
    for (i, (vertex, _)) in weights.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{vertex}");
    }
}

/// The weights of `weights`, space-separated (`skinCoordWeight`).
pub(crate) fn write_weights(out: &mut String, weights: &[(u32, f32)]) {
    for (i, (_, weight)) in weights.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        super::plan::number(out, *weight);
    }
}
