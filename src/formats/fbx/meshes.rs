//! FBX meshes as skinned triangle meshes: one [`SkinnedMesh`] per mesh node and material,
//! every polygon corner a vertex (position, normal, UV), faces triangulated by ufbx.
//!
//! Skinning is glTF's linear blend: a skinned mesh keeps its geometry-space positions, each
//! cluster's bone is a joint with ufbx's `geometry_to_bone` as its inverse bind matrix, and the
//! four largest weights are kept, renormalised (ufbx's own evaluation divides by the weights'
//! sum too). A vertex no cluster weighs, and every vertex of a mesh without a skin, follows the
//! mesh's own node, as ufbx evaluates it. Each blend shape channel is a morph target (its
//! full-weight shape, offsets per vertex, the channel's weight as the default). A base colour
//! texture is read embedded, or from a PNG or JPEG file beside the FBX, never outside its folder
//! (else `FBX_TEXTURE_DROPPED` says why).

use std::path::Path;

use glam::Mat4;

use crate::error::Diagnostics;
use crate::model::mesh::{Image, Material, MorphTarget, SkinnedMesh};
use crate::model::skeleton::JointId;

/// The most triangle-corner values all of a file's meshes may expand to: each triangle corner
/// is a vertex (about 70 bytes here and as much again in a GLB being built), and each blend
/// shape adds an offset per corner and one per ufbx vertex. 2^23 is 2.8 million triangles
/// without blend shapes (a scanned statue; a game character has under 100,000); a few KB of
/// zlib-compressed FBX can declare a polygon of millions of corners (3.2 GB).
pub const MAX_MESH_VALUES: u64 = 1 << 23;

/// What the meshes of `scene` expand to, counted before anything is allocated: triangle
/// corners times (1 + blend shapes), plus blend shapes times ufbx vertices, over every mesh
/// node.
fn mesh_values(scene: &ufbx::Scene) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for node in scene.nodes.iter() {
        let Some(mesh) = node.mesh.as_deref() else {
            continue;
        };
        let corners: u64 = mesh
            .faces
            .iter()
            .filter(|f| f.num_indices >= 3)
            .map(|f| 3 * (u64::from(f.num_indices) - 2))
            .sum();
        let shapes: u64 = mesh
            .blend_deformers
            .iter()
            .map(|d| d.channels.len() as u64)
            .sum();
        let values = corners
            .saturating_mul(shapes.saturating_add(1))
            .saturating_add(shapes.saturating_mul(mesh.num_vertices as u64));
        out.push((node.element.name.to_string(), values));
    }
    out
}

/// Refuses a file whose meshes expand to more than [`MAX_MESH_VALUES`], naming the largest,
/// or whose vertex positions, normals or texture coordinates are not finite 32-bit numbers.
///
/// # Errors
/// `FBX_MESH_TOO_LARGE`, naming the mesh and the figures; `FBX_NOT_FINITE`, naming the mesh,
/// the attribute and the index.
pub fn check_meshes(scene: &ufbx::Scene, path: &Path) -> Result<(), crate::error::Error> {
    check_finite_meshes(scene, path)?;
    let values = mesh_values(scene);
    let total = values
        .iter()
        .fold(0u64, |sum, (_, v)| sum.saturating_add(*v));
    if total <= MAX_MESH_VALUES {
        return Ok(());
    }
    let (name, largest) = values
        .iter()
        .max_by_key(|(_, v)| *v)
        .cloned()
        .unwrap_or_default();
    Err(crate::error::Error::invalid_coded(
        "FBX_MESH_TOO_LARGE",
        path,
        crate::error::Location::File,
        format!(
            "the meshes expand to {total} triangle-corner values ({largest} in mesh {name:?}: corners times one plus its blend shapes), more than the limit of {MAX_MESH_VALUES} (2.8 million triangles without blend shapes; see docs/limits.md): decimate the mesh or split the file"
        ),
    ))
}

/// The first value of a mesh attribute that no f32 holds finitely (NaN, infinite, 1e200).
fn check_finite_meshes(scene: &ufbx::Scene, path: &Path) -> Result<(), crate::error::Error> {
    let f32_finite = |v: f64| crate::math::num::to_f32(v).is_finite();
    for node in scene.nodes.iter() {
        let Some(mesh) = node.mesh.as_deref() else {
            continue;
        };
        let vec3s = [
            ("vertex position", &mesh.vertex_position.values),
            ("vertex normal", &mesh.vertex_normal.values),
        ];
        let mut bad = vec3s.iter().find_map(|(what, values)| {
            values
                .iter()
                .position(|v| !(f32_finite(v.x) && f32_finite(v.y) && f32_finite(v.z)))
                .map(|i| (*what, i))
        });
        for deformer in mesh.blend_deformers.iter() {
            for channel in deformer.channels.iter() {
                let Some(shape) = channel.target_shape.as_deref() else {
                    continue;
                };
                for (what, values) in [
                    ("blend shape position offset", &shape.position_offsets),
                    ("blend shape normal offset", &shape.normal_offsets),
                ] {
                    if bad.is_none() {
                        bad = values
                            .iter()
                            .position(|v| !(f32_finite(v.x) && f32_finite(v.y) && f32_finite(v.z)))
                            .map(|i| (what, i));
                    }
                }
            }
        }
        for skin in mesh.skin_deformers.iter() {
            if bad.is_none() {
                bad = skin
                    .clusters
                    .iter()
                    .position(|c| {
                        let m = &c.geometry_to_bone;
                        ![
                            m.m00, m.m10, m.m20, m.m01, m.m11, m.m21, m.m02, m.m12, m.m22, m.m03,
                            m.m13, m.m23,
                        ]
                        .into_iter()
                        .all(f32_finite)
                    })
                    .map(|i| ("skin cluster bind matrix", i));
            }
        }
        if bad.is_none() && mesh.vertex_uv.exists {
            bad = mesh
                .vertex_uv
                .values
                .iter()
                .position(|v| !(f32_finite(v.x) && f32_finite(v.y)))
                .map(|i| ("texture coordinate", i));
        }
        if let Some((what, index)) = bad {
            return Err(crate::error::Error::invalid_coded(
                "FBX_NOT_FINITE",
                path,
                crate::error::Location::File,
                format!(
                    "mesh {:?}: {what} {index} is not a finite 32-bit number (NaN, infinite, or beyond 3.4e38): expected finite vertex data",
                    &*node.element.name
                ),
            ));
        }
    }
    Ok(())
}

/// The meshes of `scene` on the skeleton (`joints`: each ufbx node's joint), each with the
/// joint of the node that draws it. The caller checks them first ([`check_meshes`]).
pub fn read_meshes(
    scene: &ufbx::Scene,
    joints: &super::NodeJoints,
    folder: Option<&Path>,
    diagnostics: &mut Diagnostics,
) -> (Vec<SkinnedMesh>, Vec<Option<JointId>>) {
    let mut meshes = Vec::new();
    let mut nodes = Vec::new();
    let joint_of = |node: &ufbx::Node| joints.of(node);
    for node in scene.nodes.iter() {
        let (Some(mesh), Some(own)) = (node.mesh.as_deref(), joint_of(node)) else {
            continue;
        };
        let name = node.element.name.to_string();
        let shapes = blend_shapes(mesh);
        let skin = mesh.skin_deformers.first();
        if mesh.skin_deformers.len() > 1 {
            diagnostics.warn(
                "FBX_SKIN_DROPPED",
                format!("mesh {name:?}"),
                format!(
                    "{} skins on one mesh: the first is kept",
                    mesh.skin_deformers.len()
                ),
            );
        }
        // The joints this mesh's vertices follow: the skin's cluster bones, then its own node.
        let mut joints_used: Vec<JointId> = Vec::new();
        let mut inverse_bind: Vec<Mat4> = Vec::new();
        let mut cluster_slot: Vec<Option<u16>> = Vec::new();
        if let Some(skin) = skin {
            for cluster in skin.clusters.iter() {
                let slot = cluster
                    .bone_node
                    .as_deref()
                    .and_then(joint_of)
                    .and_then(|joint| {
                        let slot = u16::try_from(joints_used.len()).ok()?;
                        joints_used.push(joint);
                        inverse_bind.push(mat4(&cluster.geometry_to_bone));
                        Some(slot)
                    });
                cluster_slot.push(slot);
            }
        }
        // The mesh's own node: world = node_to_world · (node_to_world⁻¹ · geometry_to_world).
        let own_slot = u16::try_from(joints_used.len()).unwrap_or(u16::MAX);
        joints_used.push(own);
        inverse_bind.push(mat4(&ufbx::matrix_mul(
            &ufbx::matrix_invert(&node.node_to_world),
            &node.geometry_to_world,
        )));
        let own_used = std::cell::Cell::new(skin.is_none());
        let influences = |vertex: usize| -> ([u16; 4], [f32; 4]) {
            // In f64, scaled by the largest: weights of 1e300 (finite in f64, infinite in f32)
            // summed to infinity and normalised to NaN (found by the fbx_to_glb fuzz target).
            let mut found: Vec<(u16, f64)> = Vec::new();
            if let Some(skin) = skin {
                if let Some(v) = skin.vertices.get(vertex) {
                    let begin = v.weight_begin as usize;
                    let end = begin.saturating_add(v.num_weights as usize);
                    for w in skin.weights.get(begin..end).unwrap_or_default() {
                        let slot = cluster_slot
                            .get(w.cluster_index as usize)
                            .copied()
                            .flatten();
                        if let Some(slot) = slot.filter(|_| w.weight.is_finite() && w.weight > 0.0)
                        {
                            found.push((slot, w.weight));
                        }
                    }
                }
            }
            found.sort_by(|a, b| b.1.total_cmp(&a.1));
            found.truncate(4);
            let largest = found.first().map_or(0.0, |(_, w)| *w);
            let sum: f64 = found.iter().map(|(_, w)| w / largest).sum();
            if found.is_empty() || !(sum > 0.0 && sum.is_finite()) {
                own_used.set(true);
                return ([own_slot, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]);
            }
            let mut joints = [0u16; 4];
            let mut weights = [0f32; 4];
            for (i, (slot, w)) in found.into_iter().enumerate() {
                joints[i] = slot;
                weights[i] = crate::math::num::to_f32(w / largest / sum);
            }
            (joints, weights)
        };
        let parts: Vec<(Option<&ufbx::Material>, Vec<usize>)> = if mesh.material_parts.is_empty() {
            vec![(None, (0..mesh.faces.len()).collect())]
        } else {
            mesh.material_parts
                .iter()
                .map(|part| {
                    let material = node
                        .materials
                        .get(part.index as usize)
                        .or_else(|| mesh.materials.get(part.index as usize))
                        .map(|m| &**m);
                    (
                        material,
                        part.face_indices.iter().map(|&f| f as usize).collect(),
                    )
                })
                .collect()
        };
        let mut triangle = vec![0u32; mesh.max_face_triangles.saturating_mul(3).max(3)];
        let mut made = Vec::new();
        for (material, faces) in parts {
            let mut out = SkinnedMesh {
                name: name.clone(),
                joints_used: joints_used.clone(),
                inverse_bind: inverse_bind.clone(),
                rigid: skin.is_none(),
                material: material.map(|m| read_material(m, &name, folder, diagnostics)),
                ..SkinnedMesh::default()
            };
            // Each output vertex's ufbx vertex (for the blend shapes' offsets).
            let mut vertex_of: Vec<usize> = Vec::new();
            for face in faces.iter().filter_map(|&f| mesh.faces.get(f)) {
                if face.num_indices < 3 {
                    continue;
                }
                let count = ufbx::triangulate_face(&mut triangle, mesh, *face) as usize;
                for &corner in triangle.iter().take(count * 3) {
                    let corner = corner as usize;
                    let Ok(index) = u32::try_from(out.positions.len()) else {
                        break;
                    };
                    out.indices.push(index);
                    out.positions
                        .push(vec3(ufbx::get_vertex_vec3(&mesh.vertex_position, corner)));
                    let normal = ufbx::get_vertex_vec3(&mesh.vertex_normal, corner);
                    out.normals.push(unit(vec3(normal)));
                    if mesh.vertex_uv.exists {
                        let uv = ufbx::get_vertex_vec2(&mesh.vertex_uv, corner);
                        // FBX's v runs up the image; glTF's down from its top.
                        out.uvs.push([
                            crate::math::num::to_f32(uv.x),
                            crate::math::num::to_f32(1.0 - uv.y),
                        ]);
                    }
                    let vertex = mesh
                        .vertex_indices
                        .get(corner)
                        .map_or(usize::MAX, |&v| v as usize);
                    vertex_of.push(vertex);
                    let (joints, weights) = influences(vertex);
                    out.joints.push(joints);
                    out.weights.push(weights);
                }
            }
            if !out.indices.is_empty() {
                for shape in &shapes {
                    out.morph_targets.push(shape.target(&vertex_of));
                    out.morph_weights.push(shape.weight);
                }
                made.push(out);
            }
        }
        for mut out in made {
            // The mesh's own node is a skin joint only where some vertex follows it: a skin's
            // joints then keep the common root glTF asks for.
            if !own_used.get() {
                out.joints_used.pop();
                out.inverse_bind.pop();
            }
            meshes.push(out);
            nodes.push(Some(own));
        }
    }
    (meshes, nodes)
}

/// One blend shape channel at full weight: its name, default weight and per-vertex offsets.
struct BlendShape {
    name: String,
    weight: f32,
    /// Position and normal offsets by ufbx vertex index (zero where the shape does not move
    /// the vertex).
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
}

impl BlendShape {
    /// The morph target of a mesh whose vertex `i` is ufbx vertex `vertex_of[i]`.
    fn target(&self, vertex_of: &[usize]) -> MorphTarget {
        let at = |list: &[[f32; 3]], v: usize| list.get(v).copied().unwrap_or([0.0; 3]);
        MorphTarget {
            name: self.name.clone(),
            positions: vertex_of.iter().map(|&v| at(&self.positions, v)).collect(),
            normals: if self.normals.is_empty() {
                Vec::new()
            } else {
                vertex_of.iter().map(|&v| at(&self.normals, v)).collect()
            },
        }
    }
}

/// Every blend shape channel of `mesh` (its full-weight shape: the last keyframe's, as FBX's
/// in-between shapes end there), with the channel's default weight.
fn blend_shapes(mesh: &ufbx::Mesh) -> Vec<BlendShape> {
    let count = mesh.num_vertices;
    let mut shapes = Vec::new();
    for deformer in mesh.blend_deformers.iter() {
        for channel in deformer.channels.iter() {
            let Some(shape) = channel.target_shape.as_deref() else {
                continue;
            };
            let mut positions = vec![[0.0f32; 3]; count];
            let mut normals = if shape.normal_offsets.is_empty() {
                Vec::new()
            } else {
                vec![[0.0f32; 3]; count]
            };
            for (i, &vertex) in shape.offset_vertices.iter().enumerate() {
                let vertex = vertex as usize;
                if let (Some(slot), Some(offset)) =
                    (positions.get_mut(vertex), shape.position_offsets.get(i))
                {
                    *slot = vec3(*offset);
                }
                if let (Some(slot), Some(offset)) =
                    (normals.get_mut(vertex), shape.normal_offsets.get(i))
                {
                    *slot = vec3(*offset);
                }
            }
            shapes.push(BlendShape {
                name: channel.element.name.to_string(),
                weight: crate::math::num::to_f32(channel.weight.clamp(0.0, 1.0)),
                positions,
                normals,
            });
        }
    }
    shapes
}

/// Base colour (factor included) and its texture: embedded, or a PNG or JPEG file beside the
/// FBX (its relative name, else the file name of its absolute one, inside `folder` only).
fn read_material(
    material: &ufbx::Material,
    mesh: &str,
    folder: Option<&Path>,
    diagnostics: &mut Diagnostics,
) -> Material {
    let base = &material.pbr.base_color;
    let factor = if material.pbr.base_factor.has_value {
        material.pbr.base_factor.value_vec4.x
    } else {
        1.0
    };
    let c = base.value_vec4;
    let channel = |v: f64| crate::math::num::to_f32((v * factor).clamp(0.0, 1.0));
    let alpha = if base.value_components >= 4 {
        crate::math::num::to_f32(c.w.clamp(0.0, 1.0))
    } else {
        1.0
    };
    let mut out = Material {
        name: material.element.name.to_string(),
        base_color: [channel(c.x), channel(c.y), channel(c.z), alpha],
        ..Material::default()
    };
    if let Some(texture) = base.texture.as_deref() {
        let embedded: &[u8] = &texture.content;
        let found = if embedded.is_empty() {
            texture_beside(texture, folder)
        } else {
            Ok(embedded.to_vec())
        };
        let image = found.and_then(|bytes| match image_type(&bytes) {
            Some(mime) => Ok(Image {
                name: texture.element.name.to_string(),
                mime_type: mime.to_owned(),
                bytes: bytes.into(),
            }),
            None => Err("the image is neither PNG nor JPEG".to_owned()),
        });
        match image {
            Ok(image) => out.base_color_texture = Some(image),
            Err(why) => diagnostics.warn(
                "FBX_TEXTURE_DROPPED",
                format!("mesh {mesh:?}"),
                format!(
                    "base colour texture {:?} not read: {why}",
                    &*texture.relative_filename
                ),
            ),
        }
    }
    out
}

/// The most bytes a texture file beside an FBX may have.
const MAX_TEXTURE_BYTES: u64 = 64 << 20;

/// The bytes of `texture`'s file beside the FBX: its relative name, else the file name of its
/// absolute one, looked up inside `folder` (a name that climbs out, is absolute or leads out
/// through a link is refused).
fn texture_beside(texture: &ufbx::Texture, folder: Option<&Path>) -> Result<Vec<u8>, String> {
    let Some(folder) = folder else {
        return Err(
            "it is not embedded, and the FBX was read from bytes, not from a folder".into(),
        );
    };
    let relative = texture.relative_filename.replace('\\', "/");
    let absolute = texture.filename.replace('\\', "/");
    let file_name = absolute.rsplit('/').next().unwrap_or("").to_owned();
    let mut why = "it is not embedded and names no file".to_owned();
    for name in [relative, file_name] {
        if name.is_empty() {
            continue;
        }
        let path = match crate::formats::uri::parse(&name) {
            Ok(crate::formats::uri::Uri::Relative(relative)) => {
                crate::formats::uri::resolve(folder, &relative)
            }
            Ok(crate::formats::uri::Uri::Data { .. }) => {
                Err(format!("{name:?} is not a file name"))
            }
            Err(e) => Err(e),
        };
        match path {
            Ok(path) if path.is_file() => {
                return crate::io::input::read_bounded(&path, MAX_TEXTURE_BYTES, "an FBX texture")
                    .map_err(|e| e.to_string());
            }
            Ok(path) => why = format!("it is not embedded and {} is not there", path.display()),
            Err(e) => why = e,
        }
    }
    Err(why)
}

fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else {
        None
    }
}

/// A ufbx affine 3×4 matrix (column-major) as a glam 4×4.
pub(crate) fn mat4(m: &ufbx::Matrix) -> Mat4 {
    glam::DMat4::from_cols_array(&[
        m.m00, m.m10, m.m20, 0.0, m.m01, m.m11, m.m21, 0.0, m.m02, m.m12, m.m22, 0.0, m.m03, m.m13,
        m.m23, 1.0,
    ])
    .as_mat4()
}

fn vec3(v: ufbx::Vec3) -> [f32; 3] {
    super::vec3(v).to_array()
}

fn unit(n: [f32; 3]) -> [f32; 3] {
    let v = glam::Vec3::from(n);
    if v.length_squared() > 0.0 {
        v.normalize().to_array()
    } else {
        [0.0, 1.0, 0.0]
    }
}
