//! The skin: `skinCoord` (or `skinBindingCoords`) points weighted by the joints'
//! `skinCoordIndex`/`skinCoordWeight`, drawn by the Shapes of `skin`, one mesh per Shape
//! (see the module docs of [`super::mesh`]).

use std::collections::HashSet;

use glam::{DMat3, DMat4, DQuat, DVec3, Mat4};

use super::animation::JointFrame;
use super::appearance::{Appearances, Look};
use super::classic::Note;
use super::displacer;
use super::fields::{axis_angle, Fields};
use super::figure::Figure;
use super::geometry::{self, points, Surface};
use super::mesh::{
    humanoid_matrix, look_of, point_triangles, shapes, vertex_normals, Displaceable, Draft, Part,
    PointData,
};
use super::tree::Scene;
use crate::math::num::to_f32;
use crate::model::skeleton::JointId;

/// The skin's meshes (one per Shape) and the displacers on its joints.
pub(super) fn skin(
    scene: &Scene<'_>,
    figure: &Figure,
    frames: &[JointFrame],
    appearances: &mut Appearances<'_>,
    notes: &mut Vec<Note>,
) -> Option<(Vec<Draft>, Vec<Displaceable>)> {
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
    let count = points_h.len();
    // The skin shapes that use the skin's coordinates.
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for node in h.nodes("skin") {
        shapes(scene, *node, DMat4::IDENTITY, &mut seen, &mut found);
    }
    let mut drawn: Vec<(Surface, Look)> = Vec::new();
    let mut skipped = 0usize;
    for (shape, geometry_node, _) in found {
        match geometry::surface(scene, geometry_node, notes) {
            Some(Ok(mut s))
                if s.coord == Some(coord) || s.coord == Some(source) || s.points.len() == count =>
            {
                let look = look_of(scene, shape, geometry_node, &mut s, appearances, notes);
                drawn.push((s, look));
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
    let (joints, weights) = skin_weights(scene, figure, count, notes);
    let hm = humanoid_matrix(figure);
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
        None => vertex_normals(
            &positions,
            drawn.iter().flat_map(|(s, _)| point_triangles(s)),
        ),
    };
    let data = PointData {
        positions: &positions,
        normals: &normals,
        joints: &joints,
        weights: &weights,
    };
    // Displacements are in the skin's coordinates, which the humanoid transform places
    // (module docs of `displacer`).
    let set = Some((0, DMat3::from_mat4(hm)));
    let parts: Vec<Part> = match drawn.as_slice() {
        [] => vec![Part::new(
            &data,
            &empty_surface(),
            &Look {
                material: None,
                tex_transform: None,
            },
            geometry::weld_all(count, &[], 0),
            set,
        )],
        [(surface, look)] => vec![Part::new(
            &data,
            surface,
            look,
            geometry::weld_all(
                count,
                &surface.triangles,
                if surface.tex_per_point {
                    surface.tex_coords.len()
                } else {
                    0
                },
            ),
            set,
        )],
        many => {
            let parts: Vec<Part> = many
                .iter()
                .map(|(surface, look)| {
                    Part::new(
                        &data,
                        surface,
                        look,
                        geometry::weld(&surface.triangles),
                        set,
                    )
                })
                .collect();
            let used: HashSet<u32> = parts
                .iter()
                .flat_map(|p| p.points.iter().copied())
                .collect();
            if used.len() < count {
                notes.push(Note {
                    at: h.at("skinCoord"),
                    code: "HANIM_SKIN_POINTS_UNUSED",
                    message: format!(
                        "{} of the {count} skin points are in no triangle of the {} skin shapes: left out",
                        count - used.len(),
                        many.len()
                    ),
                });
            }
            parts
        }
    };
    let base = if figure.name.is_empty() {
        "skin".to_owned()
    } else {
        format!("{}_skin", figure.name)
    };
    let joints_used: Vec<JointId> = frames.iter().map(|f| f.joint).collect();
    let inverse_bind = skin_inverse_bind(&h, figure, basic);
    let drafts = parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| Draft {
            name: if i == 0 {
                base.clone()
            } else {
                format!("{base}_{i}")
            },
            parts: vec![part],
            rigid: false,
            joints_used: joints_used.clone(),
            inverse_bind: inverse_bind.clone(),
        })
        .collect();
    let mut displacers = Vec::new();
    for joint in &figure.joints {
        let Some(f) = Fields::of(scene, joint.node) else {
            continue;
        };
        for id in f.nodes("displacers") {
            if let Some(d) = displacer::read(scene, *id, count, "skin points", notes) {
                displacers.push(Displaceable::new(0, d));
            }
        }
    }
    Some((drafts, displacers))
}

/// A surface with no triangles.
fn empty_surface() -> Surface {
    Surface {
        coord: None,
        points: Vec::new(),
        triangles: Vec::new(),
        tex_coords: Vec::new(),
        tex_per_point: false,
        solid: true,
        colored: false,
    }
}

/// Each skin point's four largest weights (scaled to sum to 1, the root for a point no joint
/// weights), as slots into the humanoid's joints.
fn skin_weights(
    scene: &Scene<'_>,
    figure: &Figure,
    count: usize,
    notes: &mut Vec<Note>,
) -> (Vec<[u16; 4]>, Vec<[f32; 4]>) {
    let at = figure.node.and_then(|n| scene.node(n)).map_or(0, |n| n.at);
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
            let vertex = crate::math::num::index(*index).and_then(|i| influences.get_mut(i));
            match (vertex, u16::try_from(slot)) {
                (Some(list), Ok(slot)) if weight.is_finite() => list.push((slot, weight)),
                _ => bad += 1,
            }
        }
    }
    if bad > 0 {
        notes.push(Note {
            at,
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
                    *ws = to_f32(weight / sum);
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
            at,
            code: "HANIM_SKIN_UNWEIGHTED",
            message: if unweighted == 1 {
                "1 skin vertex has no joint weight: it follows the root".to_owned()
            } else {
                format!("{unweighted} skin vertices have no joint weight: they follow the root")
            },
        });
    }
    (joints, weights)
}

/// The skin's inverse bind matrices `S(k) · T(−c_j) · B_j · H⁻¹` (module docs).
fn skin_inverse_bind(h: &Fields<'_, '_>, figure: &Figure, basic: bool) -> Vec<Mat4> {
    let h_inverse = humanoid_matrix(figure).inverse();
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
    figure
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
            // The canonical joint ends in its SR (`JointFrame`), X3D's in SR⁻¹·T(−c).
            (DMat4::from_quat(joint.scale_orientation.inverse())
                * scale_k
                * DMat4::from_translation(-joint.center)
                * b
                * h_inverse)
                .as_mat4()
        })
        .collect()
}
