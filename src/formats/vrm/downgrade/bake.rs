//! Baking the humanoid's rest rotations and scales away, as UniVRM's VRM 1.0 → 0.x export
//! does (`BoneNormalizer`), so that the model meets VRM 0.x's "no local rotation, no scale on
//! bones" while every vertex, joint and animated world transform stays where it was.
//!
//! # The change of frame
//!
//! The baked nodes are the humanoid bones and every ancestor of one (the set is closed
//! upward, so that every baked node's parent is baked or absent). A baked node `n` with old
//! rest world matrix `W = T(p)·M` (`M` its linear part: rotation and scale) gets the new rest
//! world `W' = T(p)`: its local transform becomes the pure translation `M_parent·t` (its old
//! translation seen in the parent's new, identity-rotated frame). Its *frame change* is
//! `F = W'⁻¹·W = M`; a node that is not baked keeps its world matrix (`F = I`). Everything
//! stored in a node's frame moves by that node's `F`:
//!
//! - a node that is not baked under a baked parent: `L' = F_parent·L` (its rotation becomes
//!   `R_parent·q`), written as translation, rotation and scale;
//! - inverse bind matrices: `IBM' = W'⁻¹·W·IBM = F·IBM`, so skinned vertices do not move;
//! - a mesh held directly by a baked node (not skinned): its geometry is transformed by `F`
//!   (normals by `F⁻ᵀ`, renormalized), in a copy when another node holds the mesh too, as
//!   UniVRM's normalizer bakes it (`MeshFreezer`);
//! - animation keys: `L'(t) = F_parent·L(t)·F⁻¹`: translations `F_parent·t(t)`, rotations
//!   `R_parent·q(t)·R⁻¹`, uniform scales `s(t)·s_parent/s`;
//! - the extension data stored in node frames: `lookAt.offsetFromHeadBone` and spring
//!   collider offsets and tails become `F·v`; collider radii and joint hit radii are
//!   multiplied by the node's rest scale.
//!
//! The accessor data lives in `bake_data.rs`.
//!
//! # Design decisions
//!
//! - Only the humanoid bones and their ancestors are baked; UniVRM normalizes every node of
//!   the hierarchy, but 0.x asks nothing of the others (hair, accessories, mesh nodes) and
//!   keeping their frames keeps their data (spring chains, meshes) byte for byte.
//! - The bake runs only when some bone or ancestor has a rest rotation or scale beyond
//!   [`rest::TOLERANCE`] (float noise alone leaves the document as it was); once it runs,
//!   every baked node's frame change is applied exactly.
//! - What cannot be baked is refused, naming the node: a mirrored or degenerate rest (a
//!   negative or zero determinant), a node under a baked one whose new transform would need
//!   shear, an animated rotation or scale under a rest that is not a rotation times a
//!   uniform scale, a non-uniform scale key on a baked node, and geometry instanced on a
//!   baked node (`EXT_mesh_gpu_instancing`).

use std::borrow::Cow;
use std::collections::BTreeSet;

use glam::{DMat3, DMat4, DQuat, DVec3};
use serde_json::{Map, Value};

use super::bake_data;
use super::rest;
use super::spring::SPRING_BONE_EXTENSION;
use super::vrm1::{self, json_number, short_list};
use super::VRM1_EXTENSION;
use crate::error::{Diagnostics, Error};
use crate::formats::gltf::json::{floats, to_floats, Node};
use crate::formats::gltf::Document;
use crate::model::HumanBone;

/// A frame change counts as the identity when no entry differs from it by more than this.
const EXACT: f64 = 1e-12;

/// How far `Fᵀ·F` may be from `s²·I` (relative) for `F` to count as a rotation times a
/// uniform scale, and how far a rewritten transform may be from its translation, rotation
/// and scale. Authoring tools store rest scales with noise of about 1e-6 (RiggedFigure's
/// `1.0000009536743164`, CesiumMan's `1.0000001192092896`); 1e-5 takes that for what it is,
/// and what it ignores moves a joint 1 m from the node by at most 10 µm.
const SIMILAR: f64 = 1e-5;

/// How many nodes a diagnostic names.
const SHOWN: usize = 6;

/// The rest frames before and after the bake.
pub(super) struct Frames {
    /// Each node's parent.
    pub(super) parents: Vec<Option<usize>>,
    /// Each node's frame change `F` (the identity for a node that is not baked).
    pub(super) change: Vec<DMat3>,
    /// Whether the node is baked (a humanoid bone or an ancestor of one).
    pub(super) baked: Vec<bool>,
}

impl Frames {
    /// The node's frame change, `None` when it is the identity.
    pub(super) fn of(&self, node: usize) -> Option<DMat3> {
        self.change.get(node).copied().filter(|f| !is_identity(*f))
    }

    /// The frame change of the node's parent, `None` when it is the identity or there is none.
    pub(super) fn of_parent(&self, node: usize) -> Option<DMat3> {
        self.parents
            .get(node)
            .copied()
            .flatten()
            .and_then(|p| self.of(p))
    }
}

/// Whether `f` is the identity (to [`EXACT`]).
fn is_identity(f: DMat3) -> bool {
    max_abs(f - DMat3::IDENTITY) <= EXACT
}

fn max_abs(m: DMat3) -> f64 {
    m.to_cols_array().iter().fold(0.0f64, |a, v| a.max(v.abs()))
}

/// `Some((s, R))` when `f = s·R` with `R` a rotation and `s > 0` (to [`SIMILAR`]).
pub(super) fn similarity(f: DMat3) -> Option<(f64, DQuat)> {
    let det = f.determinant();
    if det.is_nan() || det <= 0.0 {
        return None;
    }
    let s = det.cbrt();
    let r = f * (1.0 / s);
    if max_abs(r.transpose() * r - DMat3::IDENTITY) > SIMILAR {
        return None;
    }
    Some((s, DQuat::from_mat3(&r).normalize()))
}

/// A node's local rest matrix (a non-unit rotation is normalized).
pub(super) fn local_matrix(node: &Node) -> DMat4 {
    if let Some(matrix) = &node.matrix {
        return DMat4::from_cols_array(&floats(matrix));
    }
    let t = node.translation.as_ref().map_or([0.0; 3], floats);
    let r = node.rotation.as_ref().map_or([0.0, 0.0, 0.0, 1.0], floats);
    let s = node.scale.as_ref().map_or([1.0; 3], floats);
    let q = DQuat::from_xyzw(r[0], r[1], r[2], r[3]);
    let q = if q.length_squared() > 0.0 {
        q.normalize()
    } else {
        DQuat::IDENTITY
    };
    DMat4::from_scale_rotation_translation(DVec3::from(s), q, DVec3::from(t))
}

/// `node 5 "Thigh.L"`.
pub(super) fn label(document: &Document, node: usize) -> String {
    match document
        .root
        .nodes
        .get(node)
        .and_then(|n| n.name.as_deref())
    {
        Some(name) => format!("node {node} {name:?}"),
        None => format!("node {node}"),
    }
}

/// The refusal of a node the bake cannot carry.
fn refuse(document: &Document, node: usize, why: &str) -> Error {
    Error::unsupported(format!(
        "{}: {} {why}; VRM 0.x bones have no rest rotation and no scale, so the model cannot be written as VRM 0.x: keep it as VRM 1.0 (--to vrm1) or glTF (--to glb)",
        document.path().display(),
        label(document, node)
    ))
}

/// The document with the rest rotations and scales of its humanoid bones and their ancestors
/// baked away (see the module docs); the input itself when none has one.
///
/// # Errors
/// [`Error::Unsupported`] for what cannot be baked (see the module docs), naming the node;
/// [`Error::Invalid`] when the node hierarchy has a cycle or accessor data does not fit its
/// use.
pub(super) fn bake_rest<'a>(
    document: &'a Document,
    bones: &[(HumanBone, usize)],
    diagnostics: &mut Diagnostics,
) -> Result<Cow<'a, Document>, Error> {
    let offenders = rest::offenders(document, bones);
    if offenders.is_empty() {
        return Ok(Cow::Borrowed(document));
    }
    let frames = frames(document, bones)?;
    let mut out = document.clone();
    rewrite_nodes(document, &frames, &mut out)?;
    bake_data::rewrite_data(document, &frames, &mut out, diagnostics)?;
    rewrite_extensions(&frames, bones, &mut out, diagnostics);
    report(document, &offenders, &frames, diagnostics);
    Ok(Cow::Owned(out))
}

/// Old rest worlds, the baked set and each node's frame change.
fn frames(document: &Document, bones: &[(HumanBone, usize)]) -> Result<Frames, Error> {
    let nodes = &document.root.nodes;
    let parents = rest::parents(document);
    let mut baked = vec![false; nodes.len()];
    for &(_, bone) in bones {
        let mut at = Some(bone);
        let mut steps = 0;
        while let Some(n) = at {
            match baked.get_mut(n) {
                Some(true) | None => break,
                Some(slot) => *slot = true,
            }
            steps += 1;
            if steps > nodes.len() {
                return Err(cycle(document, bone));
            }
            at = parents.get(n).copied().flatten();
        }
    }
    let world = worlds(document, &parents)?;
    let mut change = vec![DMat3::IDENTITY; nodes.len()];
    for (n, w) in world.iter().enumerate() {
        if baked.get(n).copied().unwrap_or(false) {
            let f = DMat3::from_mat4(*w);
            let det = f.determinant();
            if det.is_nan() || det <= 0.0 {
                return Err(refuse(
                    document,
                    n,
                    &format!(
                        "has a {} rest world transform (determinant {det:.3}), which cannot be baked into a rotation-free bone",
                        if det.is_nan() || det == 0.0 { "degenerate" } else { "mirrored (negative scale)" }
                    ),
                ));
            }
            if let Some(slot) = change.get_mut(n) {
                *slot = f;
            }
        }
    }
    Ok(Frames {
        parents,
        change,
        baked,
    })
}

fn cycle(document: &Document, node: usize) -> Error {
    Error::invalid(
        document.path(),
        crate::error::Location::JsonPointer(format!("/nodes/{node}")),
        format!("node {node} is its own ancestor: expected a node tree"),
    )
}

/// Every node's old rest world matrix.
fn worlds(document: &Document, parents: &[Option<usize>]) -> Result<Vec<DMat4>, Error> {
    let nodes = &document.root.nodes;
    let mut world: Vec<Option<DMat4>> = vec![None; nodes.len()];
    for start in 0..nodes.len() {
        let mut chain = Vec::new();
        let mut at = Some(start);
        while let Some(n) = at {
            if world.get(n).copied().flatten().is_some() {
                break;
            }
            chain.push(n);
            if chain.len() > nodes.len() {
                return Err(cycle(document, start));
            }
            at = parents.get(n).copied().flatten();
        }
        let mut above = at
            .and_then(|n| world.get(n).copied().flatten())
            .unwrap_or(DMat4::IDENTITY);
        for &n in chain.iter().rev() {
            let local = nodes.get(n).map_or(DMat4::IDENTITY, |n| local_matrix(n));
            above *= local;
            if let Some(slot) = world.get_mut(n) {
                *slot = Some(above);
            }
        }
    }
    Ok(world
        .into_iter()
        .map(|w| w.unwrap_or(DMat4::IDENTITY))
        .collect())
}

/// New local transforms: baked nodes become pure translations; the other children of baked
/// nodes keep their world transform.
fn rewrite_nodes(document: &Document, frames: &Frames, out: &mut Document) -> Result<(), Error> {
    for (n, node) in out.root.nodes.iter_mut().enumerate() {
        let parent = frames.of_parent(n).unwrap_or(DMat3::IDENTITY);
        let is_baked = frames.baked.get(n).copied().unwrap_or(false);
        let local = local_matrix(node);
        if is_baked {
            if frames.of(n).is_none() && is_identity(parent) {
                continue;
            }
            let t = parent * local.w_axis.truncate();
            node.matrix = None;
            node.rotation = None;
            node.scale = None;
            node.translation = Some(to_floats(t.to_array()));
        } else if !is_identity(parent) {
            let new = DMat4::from_mat3(parent) * local;
            let (s, r, t) = new.to_scale_rotation_translation();
            let back = DMat4::from_scale_rotation_translation(s, r, t);
            let scale = new
                .to_cols_array()
                .iter()
                .fold(1.0f64, |a, v| a.max(v.abs()));
            let off = back
                .to_cols_array()
                .iter()
                .zip(new.to_cols_array())
                .fold(0.0f64, |a, (b, v)| a.max((b - v).abs()));
            if off.is_nan() || off > SIMILAR * scale {
                return Err(refuse(
                    document,
                    n,
                    "sits under a baked bone whose rest scale is not uniform, and keeping it where it is would need a sheared transform, which glTF nodes cannot hold",
                ));
            }
            node.matrix = None;
            node.translation = Some(to_floats(t.to_array()));
            let r = r.normalize();
            node.rotation = Some(to_floats([r.x, r.y, r.z, r.w]));
            node.scale =
                ((s - DVec3::ONE).abs().max_element() > EXACT).then(|| to_floats(s.to_array()));
        }
    }
    Ok(())
}

/// The uniform scale of a frame change (the cube root of its determinant).
pub(super) fn uniform_scale(f: DMat3) -> f64 {
    f.determinant().cbrt()
}

/// Moves the extension data stored in node frames: the look-at origin, spring collider
/// offsets, tails and radii, joint hit radii.
fn rewrite_extensions(
    frames: &Frames,
    bones: &[(HumanBone, usize)],
    out: &mut Document,
    diagnostics: &mut Diagnostics,
) {
    let Some(extensions) = out.root.extensions.as_mut() else {
        return;
    };
    let head = bones
        .iter()
        .find(|(b, _)| *b == HumanBone::Head)
        .map(|(_, n)| *n);
    if let (Some(f), Some(look_at)) = (
        head.and_then(|h| frames.of(h)),
        extensions
            .get_mut(VRM1_EXTENSION)
            .and_then(|v| v.get_mut("lookAt"))
            .and_then(Value::as_object_mut),
    ) {
        move_vector(look_at, "offsetFromHeadBone", f);
    }
    let Some(spring) = extensions
        .get_mut(SPRING_BONE_EXTENSION)
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let mut scaled = BTreeSet::new();
    if let Some(colliders) = spring.get_mut("colliders").and_then(Value::as_array_mut) {
        for collider in colliders.iter_mut().filter_map(Value::as_object_mut) {
            let Some(node) = collider.get("node").and_then(vrm1::index) else {
                continue;
            };
            let Some(f) = frames.of(node) else { continue };
            let Some(shape) = collider.get_mut("shape").and_then(Value::as_object_mut) else {
                continue;
            };
            for (_, kind) in shape.iter_mut() {
                let Some(kind) = kind.as_object_mut() else {
                    continue;
                };
                move_vector(kind, "offset", f);
                move_vector(kind, "tail", f);
                if scale_number(kind, "radius", f) {
                    scaled.insert(node);
                }
            }
        }
    }
    if let Some(springs) = spring.get_mut("springs").and_then(Value::as_array_mut) {
        for joint in springs
            .iter_mut()
            .filter_map(|s| s.get_mut("joints"))
            .filter_map(Value::as_array_mut)
            .flat_map(|j| j.iter_mut())
            .filter_map(Value::as_object_mut)
        {
            let Some(node) = joint.get("node").and_then(vrm1::index) else {
                continue;
            };
            if let Some(f) = frames.of(node) {
                if scale_number(joint, "hitRadius", f) {
                    scaled.insert(node);
                }
            }
        }
    }
    if !scaled.is_empty() {
        let names: Vec<String> = scaled.iter().map(|n| n.to_string()).collect();
        diagnostics.warn(
            "DOWNGRADE_REST_RADIUS_SCALED",
            format!("/extensions/{SPRING_BONE_EXTENSION}"),
            format!(
                "the rest scale of nodes {} was baked away: their spring collider radii and joint hit radii were multiplied by it (read as node-local lengths, as UniVRM reads them)",
                short_list(&names, SHOWN)
            ),
        );
    }
}

/// `object[key] = F·object[key]` for a `[x, y, z]` array.
fn move_vector(object: &mut Map<String, Value>, key: &str, f: DMat3) {
    if let Some(v) = object.get(key).and_then(vrm1::vector3) {
        let moved = f * DVec3::from(v);
        object.insert(key.to_owned(), vrm1::json_numbers(&moved.to_array()));
    }
}

/// `object[key] *= s` (the frame change's uniform scale); `true` when that changed it.
fn scale_number(object: &mut Map<String, Value>, key: &str, f: DMat3) -> bool {
    let s = uniform_scale(f);
    if (s - 1.0).abs() <= rest::TOLERANCE {
        return false;
    }
    match object.get(key).and_then(vrm1::finite) {
        Some(v) => {
            object.insert(key.to_owned(), json_number(v * s));
            true
        }
        None => false,
    }
}

/// One warning naming the nodes whose rest rotation or scale was baked away (the first few,
/// with the old rotation), and a note on the others whose frame moved.
fn report(
    document: &Document,
    offenders: &[rest::Offender],
    frames: &Frames,
    diagnostics: &mut Diagnostics,
) {
    let shown: Vec<String> = offenders
        .iter()
        .map(|o| rest::describe(document, o))
        .collect();
    let moved = (0..frames.change.len())
        .filter(|&n| frames.of(n).is_some())
        .count();
    diagnostics.warn(
        "DOWNGRADE_REST_BAKED",
        "/nodes",
        format!(
            "VRM 0.x bones have no rest rotation and no scale: the rest of {} node(s) was baked away as UniVRM's VRM 0.x export bakes it ({}); {moved} bone or ancestor frame(s) changed, and inverse bind matrices, meshes on those nodes, animation keys, the look-at origin and spring colliders moved with them, so nothing moves in the world, but the bones' own axes (roll) are the world's now",
            offenders.len(),
            short_list(&shown, SHOWN)
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_similarity_is_a_rotation_times_a_uniform_scale() {
        let q = DQuat::from_rotation_z(0.7);
        let f = DMat3::from_quat(q) * 2.0;
        let (s, r) = similarity(f).unwrap();
        assert!((s - 2.0).abs() < 1e-12);
        assert!(r.angle_between(q) < 1e-9);
        assert!(similarity(DMat3::from_diagonal(DVec3::new(1.0, 2.0, 1.0))).is_none());
        assert!(similarity(DMat3::from_diagonal(DVec3::new(-1.0, 1.0, 1.0))).is_none());
    }
}
