//! The humanoid's geometry as skinned meshes: its skin (`skinCoord` + each joint's
//! `skinCoordIndex`/`skinCoordWeight`) and its segments' shapes (rigid: every vertex follows
//! its segment's joint), each with its material and texture coordinates.
//!
//! ## Overview
//!
//! - **Skin.** Vertices are `skinCoord` (or `skinBindingCoords` when the humanoid is not
//!   BASIC), triangles come from the IndexedFaceSet / IndexedTriangleSet / TriangleSet shapes of
//!   `skin` ([`super::geometry`]: polygons fanned, texture coordinates per corner), normals from
//!   `skinNormal` when it has one per point, else computed per point over every skin triangle.
//!   Each point keeps its four largest weights, scaled to sum to 1; a point no joint weights
//!   follows the root. The inverse bind matrix of joint j is `S(k) · T(−center_j) · B_j ·
//!   H⁻¹` (`B_j` from `jointBindingPositions/Rotations/Scales` in the order of the `joints`
//!   list, the identity for BASIC humanoids; `H` the humanoid transform baked into the
//!   skeleton, `k` its scale, which the skeleton's joint frames do not carry), so the mesh
//!   skins exactly as X_ITE skins it.
//! - **One mesh per skin Shape.** Each Shape of `skin` is a mesh with its own material
//!   ([`super::appearance`]): the writer writes one Shape per mesh over one shared
//!   `skinCoord`, so the meshes come back as they went. A skin drawn by a single Shape keeps
//!   every skin point, in order, as its first vertices (vertex `i` is point `i`, as
//!   `skinCoordIndex` and displacers name it, used or not); a skin of several Shapes gives each
//!   mesh only the points it uses (unused points are reported).
//! - **Segments.** The shapes below each segment (through Groups and Transforms, not into sites
//!   or other segments), each vertex weighted 1 to its segment's joint; the inverse bind
//!   matrices are the inverse rest world transforms, so the mesh sits where the file put it.
//!   Shapes that look the same (equal materials, texture coordinates or not) share one mesh,
//!   in the order they are first met; each shape brings only the points it uses.
//! - **Vertices** are distinct (point, texture coordinate) pairs: a point whose corners use
//!   two texture coordinates becomes two vertices, with the point's position, normal, weights
//!   and morph deltas each.
//! - **Displacers** become morph targets of every mesh whose vertices they move (their
//!   coordinates: the skin's points for a displacer on a joint, the segment's `coord` for one
//!   on a segment), deltas carried into the mesh's bind space by the linear part of what places
//!   those points; one that moves no vertex of any mesh stays, all zero, on the first mesh built
//!   on its coordinates, so no displacer (nor the weight track driving it) is lost.
//!
//! Geometry that cannot be used (lines, points, primitives, bad indices) is skipped and counted
//! in a diagnostic.

use std::collections::{HashMap, HashSet};

use glam::{DMat3, DMat4, DVec3, Mat4};

use super::animation::JointFrame;
use super::appearance::{Appearances, Look};
use super::classic::Note;
use super::displacer::Displacer;
use super::fields::Fields;
use super::figure::{self, kind, Figure, Kind};
use super::geometry::{Corner, Surface};
use super::tree::{NodeId, Scene};
use super::{segments, skin};
use crate::math::num::to_f32;
use crate::model::mesh::{Material, MorphTarget, SkinnedMesh};
use crate::model::skeleton::{JointId, Skeleton};

/// Which morph target a displacer became.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MorphSource {
    /// The displacer node.
    pub displacer: NodeId,
    /// The mesh, an index into what [`meshes`] returns.
    pub mesh: usize,
    /// The target, an index into that mesh's `morph_targets`.
    pub target: usize,
}

/// One Shape's triangles as mesh vertices: what a mesh is assembled from.
pub(super) struct Part {
    pub(super) positions: Vec<[f32; 3]>,
    pub(super) normals: Vec<[f32; 3]>,
    pub(super) joints: Vec<[u16; 4]>,
    pub(super) weights: Vec<[f32; 4]>,
    /// Empty when the shape has no texture coordinates.
    pub(super) uvs: Vec<[f32; 2]>,
    pub(super) indices: Vec<u32>,
    /// Per vertex, its point in the displaceable coordinates `set`.
    pub(super) points: Vec<u32>,
    /// The displaceable coordinates the points are (0: the skin, 1 + i: segment i's `coord`)
    /// and the linear map carrying a displacement into the mesh's bind space.
    pub(super) set: Option<(usize, DMat3)>,
    pub(super) material: Option<Material>,
}

/// Per-point data the vertices of a part copy.
pub(super) struct PointData<'d> {
    pub(super) positions: &'d [DVec3],
    pub(super) normals: &'d [[f32; 3]],
    pub(super) joints: &'d [[u16; 4]],
    pub(super) weights: &'d [[f32; 4]],
}

impl Part {
    /// The part of `vertices` and `indices` (from [`geometry::weld`]) over `data`.
    pub(super) fn new(
        data: &PointData<'_>,
        surface: &Surface,
        look: &Look,
        (vertices, indices): (Vec<Corner>, Vec<u32>),
        set: Option<(usize, DMat3)>,
    ) -> Part {
        let at = |c: &Corner| usize::try_from(c.point).unwrap_or(usize::MAX);
        let uvs = if surface.tex_coords.is_empty() {
            Vec::new()
        } else {
            vertices
                .iter()
                .map(|c| {
                    c.tex
                        .and_then(|t| surface.tex_coords.get(usize::try_from(t).ok()?))
                        .map_or([0.0, 0.0], |tc| look.uv(*tc))
                })
                .collect()
        };
        Part {
            positions: vertices
                .iter()
                .map(|c| {
                    data.positions
                        .get(at(c))
                        .map_or([0.0; 3], |p| p.as_vec3().to_array())
                })
                .collect(),
            normals: vertices
                .iter()
                .map(|c| data.normals.get(at(c)).copied().unwrap_or([0.0, 1.0, 0.0]))
                .collect(),
            joints: vertices
                .iter()
                .map(|c| data.joints.get(at(c)).copied().unwrap_or_default())
                .collect(),
            weights: vertices
                .iter()
                .map(|c| {
                    data.weights
                        .get(at(c))
                        .copied()
                        .unwrap_or([1.0, 0.0, 0.0, 0.0])
                })
                .collect(),
            uvs,
            indices,
            points: vertices.iter().map(|c| c.point).collect(),
            set,
            material: look.material.clone(),
        }
    }
}

/// A displacer read, with the coordinates it displaces.
pub(super) struct Displaceable {
    /// The displaceable coordinates (see [`Part::set`]).
    set: usize,
    displacer: Displacer,
    /// Point → displacement (summed when a point is listed twice).
    moves: HashMap<u32, DVec3>,
}

impl Displaceable {
    pub(super) fn new(set: usize, displacer: Displacer) -> Displaceable {
        let mut moves: HashMap<u32, DVec3> = HashMap::new();
        for (point, d) in &displacer.moves {
            if let Ok(point) = u32::try_from(*point) {
                *moves.entry(point).or_default() += *d;
            }
        }
        Displaceable {
            set,
            displacer,
            moves,
        }
    }
}

/// What a mesh is made of before assembly.
pub(super) struct Draft {
    pub(super) name: String,
    pub(super) parts: Vec<Part>,
    pub(super) rigid: bool,
    pub(super) joints_used: Vec<JointId>,
    pub(super) inverse_bind: Vec<Mat4>,
}

/// The meshes of one humanoid, and the displacers that became their morph targets.
pub(crate) fn meshes(
    scene: &Scene<'_>,
    figure: &Figure,
    frames: &[JointFrame],
    skeleton: &Skeleton,
    appearances: &mut Appearances<'_>,
    notes: &mut Vec<Note>,
) -> (Vec<SkinnedMesh>, Vec<MorphSource>) {
    if frames.is_empty() || frames.len() > usize::from(u16::MAX) {
        return (Vec::new(), Vec::new());
    }
    let mut drafts = Vec::new();
    let mut displacers = Vec::new();
    let has_skin = match skin::skin(scene, figure, frames, appearances, notes) {
        Some((skin, skin_displacers)) => {
            drafts.extend(skin);
            displacers.extend(skin_displacers);
            true
        }
        None => false,
    };
    if !has_skin {
        // Displacers on joints act on the skin: without one they have nothing to move.
        for joint in &figure.joints {
            let Some(f) = Fields::of(scene, joint.node) else {
                continue;
            };
            if let Some(first) = f.nodes("displacers").first() {
                notes.push(Note {
                    at: scene.node(*first).map_or(f.node().at, |n| n.at),
                    code: "HANIM_DISPLACER_IGNORED",
                    message: format!(
                        "joint {:?} has displacers but the humanoid has no skin for them to move: ignored",
                        joint.name
                    ),
                });
            }
        }
    }
    let (segment_drafts, segment_displacers) =
        segments::segments(scene, figure, frames, skeleton, appearances, notes);
    drafts.extend(segment_drafts);
    displacers.extend(segment_displacers);
    assemble_all(scene, drafts, &displacers, notes)
}

/// Assembles the drafts into meshes with the displacers as their morph targets (module docs).
fn assemble_all(
    scene: &Scene<'_>,
    drafts: Vec<Draft>,
    displacers: &[Displaceable],
    notes: &mut Vec<Note>,
) -> (Vec<SkinnedMesh>, Vec<MorphSource>) {
    let mut meshes = Vec::with_capacity(drafts.len());
    let mut sources = Vec::new();
    let mut placed = vec![false; displacers.len()];
    for draft in drafts {
        let mut mesh = assemble(&draft);
        for (k, d) in displacers.iter().enumerate() {
            if let Some(deltas) = deltas(&draft.parts, d, false) {
                sources.push(add_target(&mut mesh, meshes.len(), d, deltas));
                if let Some(p) = placed.get_mut(k) {
                    *p = true;
                }
            }
        }
        meshes.push((mesh, draft.parts));
    }
    // A displacer that moves no vertex: all zero, on the first mesh over its coordinates.
    for (d, done) in displacers.iter().zip(placed) {
        if done {
            continue;
        }
        let home = meshes
            .iter_mut()
            .enumerate()
            .find_map(|(i, (mesh, parts))| deltas(parts, d, true).map(|deltas| (i, mesh, deltas)));
        match home {
            Some((i, mesh, deltas)) => sources.push(add_target(mesh, i, d, deltas)),
            None => notes.push(Note {
                at: scene.node(d.displacer.node).map_or(0, |n| n.at),
                code: "HANIM_DISPLACER_IGNORED",
                message: format!(
                    "displacer {:?}: no mesh was built on the coordinates it displaces (no usable triangles): ignored",
                    d.displacer.name
                ),
            }),
        }
    }
    (meshes.into_iter().map(|(mesh, _)| mesh).collect(), sources)
}

/// The per-vertex deltas of displacer `d` over `parts`: `None` when it moves none of their
/// vertices (unless `any_over_set`, then `None` only when no part is on its coordinates).
fn deltas(parts: &[Part], d: &Displaceable, any_over_set: bool) -> Option<Vec<[f32; 3]>> {
    if !parts.iter().any(|p| p.set.is_some_and(|(s, _)| s == d.set)) {
        return None;
    }
    let count: usize = parts.iter().map(|p| p.positions.len()).sum();
    let mut out = vec![DVec3::ZERO; count];
    let mut moved = false;
    let mut over = false;
    let mut base = 0usize;
    for part in parts {
        if let Some((_, linear)) = part.set.filter(|(s, _)| *s == d.set) {
            over = true;
            for (v, point) in part.points.iter().enumerate() {
                if let (Some(m), Some(slot)) = (d.moves.get(point), out.get_mut(base + v)) {
                    *slot += linear * *m;
                    moved = true;
                }
            }
        }
        base += part.positions.len();
    }
    (moved || (any_over_set && over)).then(|| out.iter().map(|v| v.as_vec3().to_array()).collect())
}

/// Adds displacer `d` to `mesh` (mesh `index`) as a morph target with `deltas`.
fn add_target(
    mesh: &mut SkinnedMesh,
    index: usize,
    d: &Displaceable,
    deltas: Vec<[f32; 3]>,
) -> MorphSource {
    mesh.morph_targets.push(MorphTarget {
        name: d.displacer.name.clone(),
        positions: deltas,
        normals: Vec::new(),
    });
    mesh.morph_weights.push(to_f32(d.displacer.weight));
    MorphSource {
        displacer: d.displacer.node,
        mesh: index,
        target: mesh.morph_targets.len() - 1,
    }
}

/// One mesh of a draft's parts, in order (their indices offset).
fn assemble(draft: &Draft) -> SkinnedMesh {
    let mut mesh = SkinnedMesh {
        name: draft.name.clone(),
        joints_used: draft.joints_used.clone(),
        inverse_bind: draft.inverse_bind.clone(),
        rigid: draft.rigid,
        material: draft.parts.first().and_then(|p| p.material.clone()),
        ..SkinnedMesh::default()
    };
    let with_uvs = draft.parts.iter().all(|p| !p.uvs.is_empty());
    for part in &draft.parts {
        let base = u32::try_from(mesh.positions.len()).unwrap_or(u32::MAX);
        mesh.positions.extend_from_slice(&part.positions);
        mesh.normals.extend_from_slice(&part.normals);
        mesh.joints.extend_from_slice(&part.joints);
        mesh.weights.extend_from_slice(&part.weights);
        if with_uvs {
            mesh.uvs.extend_from_slice(&part.uvs);
        }
        mesh.indices
            .extend(part.indices.iter().map(|i| i.saturating_add(base)));
    }
    mesh
}

/// The humanoid transform `H` as a matrix.
pub(super) fn humanoid_matrix(figure: &Figure) -> DMat4 {
    let h = figure.transform;
    DMat4::from_scale_rotation_translation(DVec3::splat(h.scale), h.rotation, h.translation)
}

/// The Shapes below `id` with their geometry nodes and transforms, not entering joints,
/// segments or sites.
pub(super) fn shapes(
    scene: &Scene<'_>,
    id: NodeId,
    transform: DMat4,
    seen: &mut HashSet<NodeId>,
    out: &mut Vec<(NodeId, NodeId, DMat4)>,
) {
    let Some(f) = Fields::of(scene, id) else {
        return;
    };
    let node = f.node();
    if !seen.insert(id) {
        return;
    }
    if matches!(
        kind(node),
        Some(Kind::Joint | Kind::Segment | Kind::Site | Kind::Humanoid)
    ) {
        return;
    }
    if node.type_name == "Shape" {
        if let Some(geometry) = f.nodes("geometry").first() {
            out.push((id, *geometry, transform));
        }
        return;
    }
    let transform = if node.type_name == "Transform" {
        transform * figure::transform_matrix(&f)
    } else {
        transform
    };
    let children: Vec<NodeId> = scene
        .child_nodes(id)
        .filter(|(field, _)| !matches!(*field, "metadata" | "proxy"))
        .map(|(_, c)| c)
        .collect();
    for child in children {
        shapes(scene, child, transform, seen, out);
    }
}

/// The triangles of `surface` as point triples.
pub(super) fn point_triangles(surface: &Surface) -> impl Iterator<Item = [u32; 3]> + '_ {
    surface.triangles.iter().map(|t| t.map(|c| c.point))
}

/// Smooth normals per point (area-weighted face normals), +Y where a point has no face.
pub(super) fn vertex_normals(
    positions: &[DVec3],
    triangles: impl Iterator<Item = [u32; 3]>,
) -> Vec<[f32; 3]> {
    let mut sums = vec![DVec3::ZERO; positions.len()];
    let at = |i: u32| usize::try_from(i).unwrap_or(usize::MAX);
    for t in triangles {
        let corner = |i: u32| positions.get(at(i)).copied();
        if let (Some(a), Some(b), Some(c)) = (corner(t[0]), corner(t[1]), corner(t[2])) {
            let n = (b - a).cross(c - a);
            for i in t {
                if let Some(s) = sums.get_mut(at(i)) {
                    *s += n;
                }
            }
        }
    }
    sums.into_iter()
        .map(|n| n.try_normalize().unwrap_or(DVec3::Y).as_vec3().to_array())
        .collect()
}

/// How one Shape looks, its surface given default texture coordinates when textured without
/// any, its colours reported.
pub(super) fn look_of(
    scene: &Scene<'_>,
    shape: NodeId,
    geometry_node: NodeId,
    surface: &mut Surface,
    appearances: &mut Appearances<'_>,
    notes: &mut Vec<Note>,
) -> Look {
    let look = appearances.look(scene, shape, surface.solid, notes);
    if look.textured() {
        surface.with_default_tex_coords();
    }
    if surface.colored {
        appearances.colors_dropped(scene.node(geometry_node).map_or(0, |n| n.at));
    }
    look
}
