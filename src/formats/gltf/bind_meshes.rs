//! A glTF document's meshes as the file binds them, for drawing: one [`SkinnedMesh`] per
//! triangle primitive of every node that holds a mesh, positions and inverse bind matrices as
//! stored, so that skinning them with the joints' world matrices draws exactly what a glTF
//! renderer draws ([`meshes`](super::meshes) instead places them at the rest pose for writers).
//!
//! - A node with a skin: `JOINTS_0`/`WEIGHTS_0` and `JOINTS_1`/`WEIGHTS_1` (eight influences)
//!   index the skin's joints; the inverse bind matrices are the skin's (the identity when it
//!   has none). Every joint index is checked against the skin before anything is returned: one
//!   out of range is an error naming the accessor, the vertex and the skin.
//! - A node without a skin: a rigid mesh, every vertex weighted 1 to the node's joint, with the
//!   identity as its inverse bind matrix (positions stay in the node's space).
//! - Triangle strips and fans become lists; points, lines and compressed primitives are
//!   skipped (reported); a missing `NORMAL` is computed from the triangles; weights that do not
//!   sum to 1 are scaled to (reported); a vertex weighted to nothing follows the skin's first
//!   joint (reported). Materials as [`meshes`](super::meshes) reads them (base colour, its
//!   texture's encoded image, sides, alpha mode).
//! - Morph targets: each primitive's position (and normal) deltas as stored, in the same space
//!   as its positions, with the targets' names and default weights (the node's `weights`, else
//!   the mesh's); a `weights` channel animates them through the node
//!   ([`bind_meshes_with_nodes`] says which node's joint draws each mesh).

use std::collections::HashMap;

use super::accessor;
use super::json::{Accessor, Index};
use super::meshes::{material, triangle_list, triangle_mode, Dropped};
use super::{morph, Document};
use crate::error::{Diagnostics, Error, Location};
use crate::model::asset::Asset;
use crate::model::mesh::{Image, MorphTarget, SkinnedMesh};
use crate::model::skeleton::JointId;

/// Every triangle primitive that a node of `document` holds, skinned to the joints of `asset`
/// (read from the same document), in node order.
///
/// # Errors
/// [`Error::Invalid`] with the JSON pointer: an accessor that cannot be decoded or has the wrong
/// type, an index past the vertex count, a joint index past the skin's joints, per-vertex
/// attributes of different lengths.
pub fn bind_meshes(
    document: &Document,
    asset: &Asset,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<SkinnedMesh>, Error> {
    bind_meshes_with_nodes(document, asset, diagnostics)
        .map(|meshes| meshes.into_iter().map(|(mesh, _)| mesh).collect())
}

/// As [`bind_meshes`], each mesh with the joint of the node that draws it (the target of the
/// `weights` channels that animate its morph targets).
///
/// # Errors
/// As [`bind_meshes`].
pub fn bind_meshes_with_nodes(
    document: &Document,
    asset: &Asset,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<(SkinnedMesh, JointId)>, Error> {
    let root = &document.root;
    let mut joint_of_node: Vec<Option<JointId>> = vec![None; root.nodes.len()];
    for joint in asset.skeleton.joints() {
        if let Some(slot) = joint_of_node.get_mut(asset.source_index(joint)) {
            *slot = Some(joint);
        }
    }
    let joint = |node: usize| joint_of_node.get(node).copied().flatten();
    let mut images: HashMap<usize, Option<Image>> = HashMap::new();
    let mut dropped = Dropped::default();
    let shared = super::meshes::shared_positions(document);
    let mut meshes = Vec::new();
    for (n, node) in root.nodes.iter().enumerate() {
        let Some(mesh_index) = node.mesh else {
            continue;
        };
        let m = mesh_index.as_usize();
        let Some(mesh) = root.meshes.get(m) else {
            continue;
        };
        let skin = match node.skin {
            Some(s) => Some(read_skin(document, s.as_usize(), &joint)?),
            None => None,
        };
        let Some(node_joint) = joint(n) else {
            continue;
        };
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let pointer = format!("/meshes/{m}/primitives/{p}");
            let Some(mode) = triangle_mode(primitive) else {
                dropped.primitives += 1;
                continue;
            };
            let Some(mut out) = read_primitive(document, primitive, mode, &pointer)? else {
                dropped.primitives += 1;
                continue;
            };
            let count = out.positions.len();
            let targets =
                morph::read_targets(document, &primitive.targets, count, &pointer, &mut dropped)?;
            out.morph_weights = morph::default_weights(node, mesh, targets.len());
            out.morph_targets = targets
                .into_iter()
                .enumerate()
                .map(|(t, target)| MorphTarget {
                    name: morph::target_name(mesh, t),
                    positions: target.positions,
                    normals: target.normals.unwrap_or_default(),
                })
                .collect();
            let name = mesh
                .name
                .clone()
                .or_else(|| node.name.clone())
                .unwrap_or_else(|| format!("mesh{m}"));
            out.name = if mesh.primitives.len() > 1 {
                format!("{name}_{p}")
            } else {
                name
            };
            let material = primitive
                .material
                .map(|i| material(document, i.as_usize(), &mut images, &mut dropped));
            let uv_source = material.as_ref().map(|(_, s)| *s).unwrap_or_default();
            let uv_set = uv_source.set;
            out.material = material.map(|(m, _)| m);
            if let Some(uv) = primitive.attributes.get(&format!("TEXCOORD_{uv_set}")) {
                let pointer = format!("{pointer}/attributes/TEXCOORD_{uv_set}");
                out.uvs = vectors::<2>(document, uv, out.positions.len(), &pointer)?;
                uv_source.transform(&mut out.uvs);
            }
            match &skin {
                Some(skin) if primitive.attributes.get("JOINTS_0").is_some() => {
                    influences(document, primitive, &pointer, skin, &mut out, diagnostics)?;
                    out.joints_used.clone_from(&skin.joints);
                    out.inverse_bind.clone_from(&skin.inverse_bind);
                }
                _ => {
                    if skin.is_some() {
                        diagnostics.warn(
                            "MESH_NOT_SKINNED",
                            &pointer,
                            format!("node {n} has a skin, but this primitive has no JOINTS_0: drawn rigidly with the node"),
                        );
                    }
                    out.joints = vec![[0; 4]; count];
                    out.weights = vec![[1.0, 0.0, 0.0, 0.0]; count];
                    out.joints_used = vec![node_joint];
                    out.inverse_bind = vec![glam::Mat4::IDENTITY];
                    out.rigid = true;
                }
            }
            if primitive
                .attributes
                .get("POSITION")
                .is_some_and(|a| shared.contains(&a.as_usize()))
            {
                dropped.unused_vertices += out.drop_unused_vertices();
            }
            meshes.push((out, node_joint));
        }
    }
    dropped.report(diagnostics);
    Ok(meshes)
}

/// A skin's joints (as canonical joints) and inverse bind matrices.
struct Skin {
    pointer: String,
    joints: Vec<JointId>,
    inverse_bind: Vec<glam::Mat4>,
}

fn read_skin(
    document: &Document,
    s: usize,
    joint: &dyn Fn(usize) -> Option<JointId>,
) -> Result<Skin, Error> {
    let pointer = format!("/skins/{s}");
    let invalid = |message: String| {
        Error::invalid(
            document.path(),
            Location::JsonPointer(pointer.clone()),
            message,
        )
    };
    let skin = document
        .root
        .skins
        .get(s)
        .ok_or_else(|| invalid("no such skin".to_owned()))?;
    let joints = skin
        .joints
        .iter()
        .map(|n| {
            joint(n.as_usize())
                .ok_or_else(|| invalid(format!("joint node {} is not a joint", n.as_usize())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let inverse_bind = match skin.inverse_bind_matrices {
        Some(ibm) => {
            let values = accessor::read_f32(document, ibm)?;
            if values.len() != joints.len() * 16 {
                return Err(invalid(format!(
                    "inverseBindMatrices holds {} numbers: expected 16 for each of the {} joints",
                    values.len(),
                    joints.len()
                )));
            }
            values
                .chunks_exact(16)
                .map(glam::Mat4::from_cols_slice)
                .collect()
        }
        None => vec![glam::Mat4::IDENTITY; joints.len()],
    };
    Ok(Skin {
        pointer,
        joints,
        inverse_bind,
    })
}

/// Positions, normals and triangles of one primitive (`None`: it has no `POSITION`).
fn read_primitive(
    document: &Document,
    primitive: &super::json::Primitive,
    mode: u32,
    pointer: &str,
) -> Result<Option<SkinnedMesh>, Error> {
    let Some(position) = primitive.attributes.get("POSITION") else {
        return Ok(None);
    };
    let positions = vectors::<3>(
        document,
        position,
        usize::MAX,
        &format!("{pointer}/attributes/POSITION"),
    )?;
    let count = positions.len();
    let raw_indices = match primitive.indices {
        Some(i) => accessor::read_u32(document, i)?,
        None => (0..u32::try_from(count).unwrap_or(u32::MAX)).collect(),
    };
    if let Some((k, &bad)) = raw_indices
        .iter()
        .enumerate()
        .find(|&(_, &i)| usize::try_from(i).map_or(true, |i| i >= count))
    {
        return Err(Error::invalid(
            document.path(),
            Location::JsonPointer(format!("{pointer}/indices")),
            format!("index {k} is {bad}: expected less than the {count} vertices"),
        ));
    }
    let indices = triangle_list(&raw_indices, mode);
    let normals = match primitive.attributes.get("NORMAL") {
        Some(normal) => vectors::<3>(
            document,
            normal,
            count,
            &format!("{pointer}/attributes/NORMAL"),
        )?,
        None => vertex_normals(&positions, &indices),
    };
    Ok(Some(SkinnedMesh {
        positions,
        normals,
        indices,
        ..SkinnedMesh::default()
    }))
}

/// `JOINTS_n`/`WEIGHTS_n` into `out`, each joint index checked against the skin.
fn influences(
    document: &Document,
    primitive: &super::json::Primitive,
    pointer: &str,
    skin: &Skin,
    out: &mut SkinnedMesh,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let count = out.positions.len();
    let mut sets = Vec::new();
    for set in 0..2 {
        let (Some(j), Some(w)) = (
            primitive.attributes.get(&format!("JOINTS_{set}")),
            primitive.attributes.get(&format!("WEIGHTS_{set}")),
        ) else {
            break;
        };
        let joints_pointer = format!("{pointer}/attributes/JOINTS_{set}");
        let joints = read_joints(document, j, count, &joints_pointer, skin)?;
        let weights = vectors::<4>(
            document,
            w,
            count,
            &format!("{pointer}/attributes/WEIGHTS_{set}"),
        )?;
        sets.push((joints, weights));
    }
    let mut rescaled = 0usize;
    let mut unweighted = 0usize;
    let extra = sets.len() > 1;
    for v in 0..count {
        let sum: f32 = sets
            .iter()
            .map(|(_, w)| w.get(v).map_or(0.0, |w| w.iter().sum::<f32>()))
            .sum();
        for (k, (joints, weights)) in sets.iter_mut().enumerate() {
            let (Some(j), Some(w)) = (joints.get_mut(v), weights.get_mut(v)) else {
                continue;
            };
            if sum > 0.0 && sum.is_finite() {
                w.iter_mut().for_each(|x| *x /= sum);
            } else {
                *w = if k == 0 {
                    [1.0, 0.0, 0.0, 0.0]
                } else {
                    [0.0; 4]
                };
                *j = [0; 4];
            }
        }
        if !(sum > 0.0 && sum.is_finite()) {
            unweighted += 1;
        } else if (sum - 1.0).abs() > 2e-3 {
            rescaled += 1;
        }
    }
    let mut sets = sets.into_iter();
    if let Some((joints, weights)) = sets.next() {
        out.joints = joints;
        out.weights = weights;
    }
    if extra {
        if let Some((joints, weights)) = sets.next() {
            out.joints_extra = joints;
            out.weights_extra = weights;
        }
    }
    if rescaled > 0 {
        diagnostics.info(
            "WEIGHTS_RESCALED",
            format!("{pointer}/attributes/WEIGHTS_0"),
            format!("{rescaled} vertices' weights do not sum to 1: scaled to"),
        );
    }
    if unweighted > 0 {
        diagnostics.warn(
            "VERTEX_UNWEIGHTED",
            format!("{pointer}/attributes/WEIGHTS_0"),
            format!(
                "{unweighted} vertices have no weight: they follow the skin's first joint ({})",
                skin.pointer
            ),
        );
    }
    Ok(())
}

/// A `JOINTS_n` accessor, every index checked to be below the skin's joint count.
fn read_joints(
    document: &Document,
    index: Index<Accessor>,
    count: usize,
    pointer: &str,
    skin: &Skin,
) -> Result<Vec<[u16; 4]>, Error> {
    let values = accessor::read_u32(document, index)?;
    let rows = rows::<4, u32>(document, &values, count, pointer)?;
    let limit = skin.joints.len();
    rows.iter()
        .enumerate()
        .map(|(v, row)| {
            let mut out = [0u16; 4];
            for (slot, &j) in out.iter_mut().zip(row) {
                *slot = u16::try_from(j)
                    .ok()
                    .filter(|&j| usize::from(j) < limit)
                    .ok_or_else(|| {
                        Error::invalid(
                            document.path(),
                            Location::JsonPointer(pointer.to_owned()),
                            format!(
                                "vertex {v} is weighted to joint {j}, out of range: the skin ({}) has {limit} joints",
                                skin.pointer
                            ),
                        )
                    })?;
            }
            Ok(out)
        })
        .collect()
}

/// A float accessor as `N`-vectors, `expected` of them (`usize::MAX`: any number).
fn vectors<const N: usize>(
    document: &Document,
    index: Index<Accessor>,
    expected: usize,
    pointer: &str,
) -> Result<Vec<[f32; N]>, Error> {
    let values = accessor::read_f32(document, index)?;
    rows::<N, f32>(document, &values, expected, pointer)
}

fn rows<const N: usize, T: Copy + Default>(
    document: &Document,
    values: &[T],
    expected: usize,
    pointer: &str,
) -> Result<Vec<[T; N]>, Error> {
    let count = values.len() / N;
    if !values.len().is_multiple_of(N) || (expected != usize::MAX && count != expected) {
        return Err(Error::invalid(
            document.path(),
            Location::JsonPointer(pointer.to_owned()),
            format!(
                "holds {} numbers: expected {N} for each of the {} vertices",
                values.len(),
                if expected == usize::MAX {
                    count
                } else {
                    expected
                }
            ),
        ));
    }
    Ok(values
        .chunks_exact(N)
        .map(|c| {
            let mut row = [T::default(); N];
            row.copy_from_slice(c);
            row
        })
        .collect())
}

/// Smooth normals: the area-weighted sum of the faces around each vertex.
pub fn vertex_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    let mut sums = vec![glam::Vec3::ZERO; positions.len()];
    let at = |i: u32| {
        positions
            .get(i as usize)
            .map_or(glam::Vec3::ZERO, |p| glam::Vec3::from_array(*p))
    };
    for t in indices.chunks_exact(3) {
        let n = (at(t[1]) - at(t[0])).cross(at(t[2]) - at(t[0]));
        for &i in t {
            if let Some(s) = sums.get_mut(i as usize) {
                *s += n;
            }
        }
    }
    sums.iter()
        .map(|n| n.try_normalize().unwrap_or(glam::Vec3::Y).to_array())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normals_of_a_counter_clockwise_triangle_point_up() {
        let n = vertex_normals(
            &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]],
            &[0, 1, 2],
        );
        assert_eq!(n, vec![[0.0, 1.0, 0.0]; 3]);
    }
}
