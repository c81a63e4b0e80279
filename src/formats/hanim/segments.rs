//! The segments: the shapes below each HAnimSegment, rigid on its joint, one mesh per
//! distinct look (see the module docs of [`super::mesh`]).

use std::collections::HashSet;

use glam::{DMat3, DMat4, DVec3, Mat4};

use super::animation::JointFrame;
use super::appearance::Appearances;
use super::classic::Note;
use super::displacer;
use super::fields::Fields;
use super::figure::Figure;
use super::geometry::{self, points};
use super::mesh::{
    look_of, point_triangles, shapes, vertex_normals, Displaceable, Draft, Part, PointData,
};
use super::tree::{NodeId, Scene};
use crate::model::mesh::Material;
use crate::model::skeleton::{JointId, Skeleton};

/// The most vertices of the segments' meshes together (a Coordinate USE'd by many shapes is
/// copied into each): shapes past it are skipped, reported.
const MAX_MESH_VERTICES: usize = 1 << 24;

/// The segments' meshes (one per distinct look) and the displacers on segments.
pub(super) fn segments(
    scene: &Scene<'_>,
    figure: &Figure,
    frames: &[JointFrame],
    skeleton: &Skeleton,
    appearances: &mut Appearances<'_>,
    notes: &mut Vec<Note>,
) -> (Vec<Draft>, Vec<Displaceable>) {
    let k = figure.transform.scale;
    // Parts grouped by how they look (material, texture coordinates or not), in the order the
    // looks are first met.
    type LookKey = (Option<Material>, bool);
    let mut groups: Vec<(LookKey, Vec<Part>)> = Vec::new();
    let mut vertex_total = 0usize;
    let mut skipped = 0usize;
    let mut displacers = Vec::new();
    for (index, segment) in figure.segments.iter().enumerate() {
        let segment_fields = Fields::of(scene, segment.node);
        let segment_displacers = segment_fields.map_or(&[][..], |f| f.nodes("displacers"));
        let segment_coord = segment_fields.and_then(|f| f.nodes("coord").first().copied());
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
        // world = G'_j · SR_j⁻¹ · S(k) · T(−c_j) · M · p (module docs; the canonical joint
        // ends in its scaleOrientation SR_j, `JointFrame`).
        let to_world = skeleton.rest_world(frame.joint).to_mat4().as_dmat4()
            * DMat4::from_quat(joint.scale_orientation.inverse())
            * DMat4::from_scale(DVec3::splat(k))
            * DMat4::from_translation(-joint.center)
            * segment.transform;
        let mut found = Vec::new();
        let mut seen = HashSet::new();
        let children: Vec<NodeId> = scene.child_nodes(segment.node).map(|(_, c)| c).collect();
        for child in children {
            shapes(scene, child, DMat4::IDENTITY, &mut seen, &mut found);
        }
        let set = 1 + index;
        let mut on_coord = false;
        for (shape, geometry_node, transform) in found {
            let Some(Ok(mut surface)) = geometry::surface(scene, geometry_node, notes) else {
                skipped += 1;
                continue;
            };
            let look = look_of(
                scene,
                shape,
                geometry_node,
                &mut surface,
                appearances,
                notes,
            );
            let welded = geometry::weld(&surface.triangles);
            if vertex_total.saturating_add(welded.0.len()) > MAX_MESH_VERTICES {
                skipped += 1;
                continue;
            }
            vertex_total += welded.0.len();
            let m = to_world * transform;
            let positions: Vec<DVec3> = surface
                .points
                .iter()
                .map(|p| m.transform_point3(*p))
                .collect();
            let normals = vertex_normals(&positions, point_triangles(&surface));
            let n = positions.len();
            let joints = vec![[slot16, 0, 0, 0]; n];
            let weights = vec![[1.0, 0.0, 0.0, 0.0]; n];
            let data = PointData {
                positions: &positions,
                normals: &normals,
                joints: &joints,
                weights: &weights,
            };
            let displaced = surface.coord.is_some() && surface.coord == segment_coord;
            on_coord |= displaced;
            let part_set = displaced.then(|| (set, DMat3::from_mat4(m)));
            let part = Part::new(&data, &surface, &look, welded, part_set);
            let key = (part.material.clone(), !part.uvs.is_empty());
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, parts)) => parts.push(part),
                None => groups.push((key, vec![part])),
            }
        }
        if !segment_displacers.is_empty() {
            if on_coord {
                let points = segment_coord
                    .and_then(|c| Fields::of(scene, c))
                    .map_or(0, |c| points(&c, "point").len());
                for id in segment_displacers {
                    if let Some(d) =
                        displacer::read(scene, *id, points, "segment coord points", notes)
                    {
                        displacers.push(Displaceable::new(set, d));
                    }
                }
            } else {
                notes.push(Note {
                    at: scene.node(segment.node).map_or(0, |n| n.at),
                    code: "HANIM_DISPLACER_IGNORED",
                    message: format!(
                        "segment {:?} has displacers but no shape of it uses its coord: ignored",
                        segment.name
                    ),
                });
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
    let base = if figure.name.is_empty() {
        "segments".to_owned()
    } else {
        format!("{}_segments", figure.name)
    };
    let joints_used: Vec<JointId> = frames.iter().map(|f| f.joint).collect();
    let inverse_bind: Vec<Mat4> = frames
        .iter()
        .map(|f| skeleton.rest_world(f.joint).to_mat4().inverse())
        .collect();
    let drafts = groups
        .into_iter()
        .filter(|(_, parts)| parts.iter().any(|p| !p.indices.is_empty()))
        .enumerate()
        .map(|(i, (_, parts))| Draft {
            name: if i == 0 {
                base.clone()
            } else {
                format!("{base}_{i}")
            },
            parts,
            rigid: true,
            joints_used: joints_used.clone(),
            inverse_bind: inverse_bind.clone(),
        })
        .collect();
    (drafts, displacers)
}
