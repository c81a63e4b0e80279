//! The humanoid's geometry as skinned meshes: its skin (`skinCoord` + each joint's
//! `skinCoordIndex`/`skinCoordWeight`) and its segments' shapes (rigid: every vertex follows
//! its segment's joint).
//!
//! ## Overview
//!
//! - **Skin.** Vertices are `skinCoord` (or `skinBindingCoords` when the humanoid is not
//!   BASIC), triangles come from the IndexedFaceSet / IndexedTriangleSet / TriangleSet shapes of
//!   `skin` (polygons fanned), normals from `skinNormal` when it has one per vertex, else
//!   computed. Each vertex keeps its four largest weights, scaled to sum to 1; a vertex no joint
//!   weights follows the root. The inverse bind matrix of joint j is `S(k) · T(−center_j) · B_j ·
//!   H⁻¹`
//!   (`B_j` from `jointBindingPositions/Rotations/Scales` in the order of the `joints` list, the
//!   identity for BASIC humanoids; `H` the humanoid transform baked into the skeleton, `k` its
//!   scale, which the skeleton's joint frames do not carry), so the
//!   mesh skins exactly as X_ITE skins it.
//! - **Segments.** The shapes below each segment (through Groups and Transforms, not into sites
//!   or other segments) in one mesh, each vertex weighted 1 to its segment's joint; the inverse
//!   bind matrices are the inverse rest world transforms, so the mesh sits where the file put
//!   it.
//!
//! Geometry that cannot be used (lines, points, primitives, bad indices) is skipped and counted
//! in a diagnostic.

use std::collections::HashSet;

use glam::{DMat3, DMat4, DQuat, DVec3, Mat4};

use super::animation::JointFrame;
use super::classic::Note;
use super::displacer;
use super::fields::{axis_angle, Fields};
use super::figure::{self, kind, Figure, Kind};
use super::tree::{NodeId, Scene};
use crate::model::mesh::{MorphTarget, SkinnedMesh};
use crate::model::skeleton::Skeleton;

/// The most vertices of the segments' mesh (a Coordinate USE'd by many shapes is copied into
/// each): shapes past it are skipped, reported.
const MAX_MESH_VERTICES: usize = 1 << 24;

/// Triangles and their points, as one shape gives them.
struct Geometry {
    coord: Option<NodeId>,
    points: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
}

/// Where a segment's shapes put the points of its `coord`: per shape that uses it, the mesh
/// vertex of its first point and the linear part of the placement.
type Placements = Vec<(usize, DMat3)>;

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

/// The meshes of one humanoid, and the displacers that became their morph targets.
pub(crate) fn meshes(
    scene: &Scene<'_>,
    figure: &Figure,
    frames: &[JointFrame],
    skeleton: &Skeleton,
    notes: &mut Vec<Note>,
) -> (Vec<SkinnedMesh>, Vec<MorphSource>) {
    if frames.is_empty() || frames.len() > usize::from(u16::MAX) {
        return (Vec::new(), Vec::new());
    }
    let mut out = Vec::new();
    let mut morphs = Vec::new();
    let skin = skin(scene, figure, frames, notes);
    if skin.is_none() {
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
    for (mesh, sources) in skin
        .into_iter()
        .chain(segments(scene, figure, frames, skeleton, notes))
    {
        morphs.extend(sources.into_iter().map(|(displacer, target)| MorphSource {
            displacer,
            mesh: out.len(),
            target,
        }));
        out.push(mesh);
    }
    (out, morphs)
}

/// Adds `displacer` to `mesh` as a morph target; returns the (displacer, target) pair.
fn add_target(
    mesh: &mut SkinnedMesh,
    displacer: &displacer::Displacer,
    place: impl Fn(usize) -> Vec<(usize, DMat3)>,
) -> (NodeId, usize) {
    let positions = displacer.deltas(mesh.positions.len(), place);
    mesh.morph_targets.push(MorphTarget {
        name: displacer.name.clone(),
        positions,
        normals: Vec::new(),
    });
    mesh.morph_weights.push(displacer.weight as f32);
    (displacer.node, mesh.morph_targets.len() - 1)
}

/// The humanoid transform `H` as a matrix.
fn humanoid_matrix(figure: &Figure) -> DMat4 {
    let h = figure.transform;
    DMat4::from_scale_rotation_translation(DVec3::splat(h.scale), h.rotation, h.translation)
}

fn points(f: &Fields<'_, '_>, name: &str) -> Vec<DVec3> {
    f.numbers_as(name, "MFVec3f")
        .map(|v| {
            v.chunks_exact(3)
                .filter_map(|c| match c {
                    &[x, y, z] => Some(DVec3::new(x, y, z)),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The triangles of a geometry node (`None` for kinds that have none).
fn geometry(scene: &Scene<'_>, id: NodeId) -> Option<Result<Geometry, String>> {
    let f = Fields::of(scene, id)?;
    let type_name = f.node().type_name;
    let coord = f.nodes("coord").first().copied();
    let pts = coord
        .and_then(|c| Fields::of(scene, c))
        .map(|c| points(&c, "point"))
        .unwrap_or_default();
    let ccw = f.bool_as("ccw", true);
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let index = |name: &str| -> Vec<f64> {
        f.numbers_as(name, "MFInt32")
            .map(|v| v.into_owned())
            .unwrap_or_default()
    };
    let check = |i: f64| -> Result<u32, String> {
        if i >= 0.0 && (i as usize) < pts.len() {
            u32::try_from(i as usize).map_err(|_| format!("index {i} out of range"))
        } else {
            Err(format!(
                "{type_name}: index {i} is not one of its {} points",
                pts.len()
            ))
        }
    };
    let result = (|| -> Result<(), String> {
        match type_name {
            "IndexedFaceSet" => {
                for polygon in index("coordIndex").split(|i| *i < 0.0) {
                    if let [first, rest @ ..] = polygon {
                        for pair in rest.windows(2) {
                            if let &[b, c] = pair {
                                triangles.push([check(*first)?, check(b)?, check(c)?]);
                            }
                        }
                    }
                }
            }
            "IndexedTriangleSet" => {
                for t in index("index").chunks_exact(3) {
                    if let &[a, b, c] = t {
                        triangles.push([check(a)?, check(b)?, check(c)?]);
                    }
                }
            }
            "TriangleSet" => {
                let count = u32::try_from(pts.len() / 3 * 3).map_err(|e| e.to_string())?;
                let mut i = 0;
                while i + 2 < count {
                    triangles.push([i, i + 1, i + 2]);
                    i += 3;
                }
            }
            _ => return Err(String::new()),
        }
        Ok(())
    })();
    match result {
        Err(message) if message.is_empty() => None,
        Err(message) => Some(Err(message)),
        Ok(()) => {
            if !ccw {
                for t in &mut triangles {
                    t.swap(1, 2);
                }
            }
            Some(Ok(Geometry {
                coord,
                points: pts,
                triangles,
            }))
        }
    }
}

/// The geometry nodes below `id` with their transforms, not entering joints, segments or
/// sites.
fn shapes(
    scene: &Scene<'_>,
    id: NodeId,
    transform: DMat4,
    seen: &mut HashSet<NodeId>,
    out: &mut Vec<(NodeId, DMat4)>,
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
            out.push((*geometry, transform));
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

/// Smooth vertex normals (area-weighted face normals), +Y where a vertex has no face.
fn vertex_normals(positions: &[DVec3], triangles: &[[u32; 3]]) -> Vec<[f32; 3]> {
    let mut sums = vec![DVec3::ZERO; positions.len()];
    for t in triangles {
        let corner = |i: u32| {
            positions
                .get(usize::try_from(i).unwrap_or(usize::MAX))
                .copied()
        };
        if let (Some(a), Some(b), Some(c)) = (corner(t[0]), corner(t[1]), corner(t[2])) {
            let n = (b - a).cross(c - a);
            for i in t {
                if let Some(s) = sums.get_mut(usize::try_from(*i).unwrap_or(usize::MAX)) {
                    *s += n;
                }
            }
        }
    }
    sums.into_iter()
        .map(|n| n.try_normalize().unwrap_or(DVec3::Y).as_vec3().to_array())
        .collect()
}

fn skin(
    scene: &Scene<'_>,
    figure: &Figure,
    frames: &[JointFrame],
    notes: &mut Vec<Note>,
) -> Option<(SkinnedMesh, Vec<(NodeId, usize)>)> {
    let h = Fields::of(scene, figure.node?)?;
    let coord = *h.nodes("skinCoord").first()?;
    let basic = figure.skeletal_configuration.eq_ignore_ascii_case("BASIC");
    let binding_coord = (!basic)
        .then(|| h.nodes("skinBindingCoords").first().copied())
        .flatten();
    let source = binding_coord.unwrap_or(coord);
    let points_h = Fields::of(scene, source).map_or_else(Vec::new, |c| points(&c, "point"));
    if points_h.is_empty() {
        return None;
    }
    // Triangles of the skin shapes that use the skin's coordinates.
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for node in h.nodes("skin") {
        shapes(scene, *node, DMat4::IDENTITY, &mut seen, &mut found);
    }
    let mut triangles = Vec::new();
    let mut skipped = 0usize;
    for (geometry_node, _) in found {
        match geometry(scene, geometry_node) {
            Some(Ok(g))
                if g.coord == Some(coord)
                    || g.coord == Some(source)
                    || g.points.len() == points_h.len() =>
            {
                triangles.extend(g.triangles)
            }
            Some(Err(message)) => {
                notes.push(Note {
                    at: scene.node(geometry_node).map_or(0, |n| n.at),
                    code: "HANIM_MESH_SKIPPED",
                    message: format!("skin shape skipped: {message}"),
                });
            }
            _ => skipped += 1,
        }
    }
    if skipped > 0 {
        notes.push(Note {
            at: h.at("skin"),
            code: "HANIM_MESH_SKIPPED",
            message: format!(
                "{skipped} skin shape(s) without triangles on the skin's coordinates skipped"
            ),
        });
    }
    // Weights.
    let count = points_h.len();
    let mut influences: Vec<Vec<(u16, f64)>> = vec![Vec::new(); count];
    let mut bad = 0usize;
    for (slot, joint) in figure.joints.iter().enumerate() {
        let Some(f) = Fields::of(scene, joint.node) else {
            continue;
        };
        let indices = f.numbers("skinCoordIndex").unwrap_or(&[]);
        let weights = f.numbers("skinCoordWeight").unwrap_or(&[]);
        for (k, index) in indices.iter().enumerate() {
            let weight = weights.get(k).copied().unwrap_or(1.0);
            let vertex = (*index >= 0.0)
                .then_some(*index as usize)
                .and_then(|i| influences.get_mut(i));
            match (vertex, u16::try_from(slot)) {
                (Some(list), Ok(slot)) if weight.is_finite() => list.push((slot, weight)),
                _ => bad += 1,
            }
        }
    }
    if bad > 0 {
        notes.push(Note {
            at: h.node().at,
            code: "HANIM_SKIN_WEIGHT_IGNORED",
            message: format!(
                "{bad} skinCoordIndex entries name no skin vertex (or have no finite weight): ignored"
            ),
        });
    }
    let mut joints = Vec::with_capacity(count);
    let mut weights = Vec::with_capacity(count);
    let mut unweighted = 0usize;
    for mut list in influences {
        list.sort_by(|a, b| b.1.total_cmp(&a.1));
        list.truncate(4);
        let sum: f64 = list.iter().map(|(_, w)| w).sum();
        let mut j = [0u16; 4];
        let mut w = [0f32; 4];
        if sum > 0.0 {
            for (i, (slot, weight)) in list.iter().enumerate() {
                if let (Some(js), Some(ws)) = (j.get_mut(i), w.get_mut(i)) {
                    *js = *slot;
                    *ws = (weight / sum) as f32;
                }
            }
        } else {
            unweighted += 1;
            w[0] = 1.0;
        }
        joints.push(j);
        weights.push(w);
    }
    if unweighted > 0 {
        notes.push(Note {
            at: h.node().at,
            code: "HANIM_SKIN_UNWEIGHTED",
            message: format!("{unweighted} skin vertices no joint weights: they follow the root"),
        });
    }
    // Inverse bind matrices T(−c_j) · B_j · H⁻¹.
    let hm = humanoid_matrix(figure);
    let h_inverse = hm.inverse();
    // The baked skeleton's joint frames are `H · G_j · S(1/k)` (no scale): put it back.
    let scale_k = DMat4::from_scale(DVec3::splat(figure.transform.scale));
    let listed = h.nodes("joints");
    let binding = |name: &str, n: usize| -> Vec<Vec<f64>> {
        h.numbers(name)
            .unwrap_or(&[])
            .chunks_exact(n)
            .map(<[f64]>::to_vec)
            .collect()
    };
    let (positions_b, rotations_b, scales_b) = if basic {
        (Vec::new(), Vec::new(), Vec::new())
    } else {
        (
            binding("jointBindingPositions", 3),
            binding("jointBindingRotations", 4),
            binding("jointBindingScales", 3),
        )
    };
    let pick = |list: &[Vec<f64>], k: Option<usize>| -> Option<Vec<f64>> {
        match list {
            [] => None,
            [only] => Some(only.clone()),
            many => k.and_then(|k| many.get(k).cloned()),
        }
    };
    let inverse_bind: Vec<Mat4> = figure
        .joints
        .iter()
        .map(|joint| {
            let k = listed.iter().position(|n| *n == joint.node);
            let vec3 = |v: Option<Vec<f64>>, default: DVec3| match v.as_deref() {
                Some(&[x, y, z]) => DVec3::new(x, y, z),
                _ => default,
            };
            let t = vec3(pick(&positions_b, k), DVec3::ZERO);
            let s = vec3(pick(&scales_b, k), DVec3::ONE);
            let r = match pick(&rotations_b, k).as_deref() {
                Some(&[x, y, z, a]) => axis_angle(x, y, z, a * h.angle_unit()),
                _ => DQuat::IDENTITY,
            };
            let b = DMat4::from_scale_rotation_translation(s, r, t);
            (scale_k * DMat4::from_translation(-joint.center) * b * h_inverse).as_mat4()
        })
        .collect();
    let positions: Vec<DVec3> = points_h.iter().map(|p| hm.transform_point3(*p)).collect();
    let normals_h = h
        .nodes("skinNormal")
        .first()
        .and_then(|n| Fields::of(scene, *n))
        .map(|n| points(&n, "vector"))
        .filter(|n| n.len() == count);
    let normals = match normals_h {
        Some(n) => n
            .iter()
            .map(|v| {
                (figure.transform.rotation * *v)
                    .try_normalize()
                    .unwrap_or(DVec3::Y)
                    .as_vec3()
                    .to_array()
            })
            .collect(),
        None => vertex_normals(&positions, &triangles),
    };
    let mut mesh = SkinnedMesh {
        name: if figure.name.is_empty() {
            "skin".to_owned()
        } else {
            format!("{}_skin", figure.name)
        },
        positions: positions.iter().map(|p| p.as_vec3().to_array()).collect(),
        normals,
        joints,
        weights,
        indices: triangles.into_iter().flatten().collect(),
        joints_used: frames.iter().map(|f| f.joint).collect(),
        inverse_bind,
        uvs: Vec::new(),
        material: None,
        rigid: false,
        morph_targets: Vec::new(),
        morph_weights: Vec::new(),
        ..SkinnedMesh::default()
    };
    // Displacers on joints move skin points; their displacements are in the skin's
    // coordinates, which the humanoid transform places (module docs of `displacer`).
    let linear = DMat3::from_mat4(hm);
    let mut sources = Vec::new();
    for joint in &figure.joints {
        let Some(f) = Fields::of(scene, joint.node) else {
            continue;
        };
        for id in f.nodes("displacers") {
            if let Some(d) = displacer::read(scene, *id, count, "skin points", notes) {
                sources.push(add_target(&mut mesh, &d, |i| vec![(i, linear)]));
            }
        }
    }
    Some((mesh, sources))
}

fn segments(
    scene: &Scene<'_>,
    figure: &Figure,
    frames: &[JointFrame],
    skeleton: &Skeleton,
    notes: &mut Vec<Note>,
) -> Option<(SkinnedMesh, Vec<(NodeId, usize)>)> {
    let k = figure.transform.scale;
    let mut positions: Vec<DVec3> = Vec::new();
    let mut joints: Vec<[u16; 4]> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let mut skipped = 0usize;
    // Per segment with displacers: its displacers, its `coord`'s point count, and where the
    // shapes using that `coord` put its points (first vertex, linear part of the placement).
    let mut displaced: Vec<(&[NodeId], usize, Placements)> = Vec::new();
    for segment in &figure.segments {
        let segment_fields = Fields::of(scene, segment.node);
        let segment_displacers = segment_fields.map_or(&[][..], |f| f.nodes("displacers"));
        let segment_coord = segment_fields.and_then(|f| f.nodes("coord").first().copied());
        let mut copies = Vec::new();
        let Some(slot) = segment.joint else {
            continue;
        };
        let (Some(joint), Some(frame), Ok(slot16)) = (
            figure.joints.get(slot),
            frames.get(slot),
            u16::try_from(slot),
        ) else {
            continue;
        };
        // world = G'_j · S(k) · T(−c_j) · M · p (module docs).
        let to_world = skeleton.rest_world(frame.joint).to_mat4().as_dmat4()
            * DMat4::from_scale(DVec3::splat(k))
            * DMat4::from_translation(-joint.center)
            * segment.transform;
        let mut found = Vec::new();
        let mut seen = HashSet::new();
        let children: Vec<NodeId> = scene.child_nodes(segment.node).map(|(_, c)| c).collect();
        for child in children {
            shapes(scene, child, DMat4::IDENTITY, &mut seen, &mut found);
        }
        for (geometry_node, transform) in found {
            let Some(Ok(g)) = geometry(scene, geometry_node) else {
                skipped += 1;
                continue;
            };
            if positions.len().saturating_add(g.points.len()) > MAX_MESH_VERTICES {
                skipped += 1;
                continue;
            }
            let Ok(base) = u32::try_from(positions.len()) else {
                skipped += 1;
                continue;
            };
            let m = to_world * transform;
            if g.coord.is_some() && g.coord == segment_coord {
                copies.push((positions.len(), DMat3::from_mat4(m)));
            }
            positions.extend(g.points.iter().map(|p| m.transform_point3(*p)));
            joints.extend(std::iter::repeat_n([slot16, 0, 0, 0], g.points.len()));
            triangles.extend(
                g.triangles
                    .iter()
                    .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
            );
        }
        if !segment_displacers.is_empty() {
            let points = segment_coord
                .and_then(|c| Fields::of(scene, c))
                .map_or(0, |c| points(&c, "point").len());
            if copies.is_empty() {
                notes.push(Note {
                    at: scene.node(segment.node).map_or(0, |n| n.at),
                    code: "HANIM_DISPLACER_IGNORED",
                    message: format!(
                        "segment {:?} has displacers but no shape of it uses its coord: ignored",
                        segment.name
                    ),
                });
            } else {
                displaced.push((segment_displacers, points, copies));
            }
        }
    }
    if skipped > 0 {
        notes.push(Note {
            at: figure
                .node
                .and_then(|n| scene.node(n))
                .map_or(0, |n| n.at),
            code: "HANIM_MESH_SKIPPED",
            message: format!(
                "{skipped} segment shape(s) without usable triangles (lines, points, primitives, bad indices) skipped"
            ),
        });
    }
    if triangles.is_empty() {
        return None;
    }
    let normals = vertex_normals(&positions, &triangles);
    let count = positions.len();
    let mut mesh = SkinnedMesh {
        name: if figure.name.is_empty() {
            "segments".to_owned()
        } else {
            format!("{}_segments", figure.name)
        },
        positions: positions.iter().map(|p| p.as_vec3().to_array()).collect(),
        normals,
        joints,
        weights: vec![[1.0, 0.0, 0.0, 0.0]; count],
        indices: triangles.into_iter().flatten().collect(),
        joints_used: frames.iter().map(|f| f.joint).collect(),
        inverse_bind: frames
            .iter()
            .map(|f| skeleton.rest_world(f.joint).to_mat4().inverse())
            .collect(),
        uvs: Vec::new(),
        material: None,
        rigid: true,
        morph_targets: Vec::new(),
        morph_weights: Vec::new(),
        ..SkinnedMesh::default()
    };
    let mut sources = Vec::new();
    for (ids, points, copies) in displaced {
        for id in ids {
            if let Some(d) = displacer::read(scene, *id, points, "segment coord points", notes) {
                let place = |i: usize| copies.iter().map(|(base, l)| (base + i, *l)).collect();
                sources.push(add_target(&mut mesh, &d, place));
            }
        }
    }
    Some((mesh, sources))
}
