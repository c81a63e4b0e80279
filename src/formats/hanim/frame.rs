//! The humanoid's own transform: nodes above the skeleton that are not joints (glTF's `Z_UP`,
//! `Armature`, a VRM's unweighted root) are not written as HAnimJoints, so the top joint is the
//! skeleton's own root (`humanoid_root` when it is the hips); their translation and scale
//! become the `HAnimHumanoid`'s `translation` and `scale`.
//!
//! ## Overview
//!
//! - **Which nodes.** From the single root of the joints to write, down the chain while the node
//!   is above every mapped humanoid bone (so a rig with no bones mapped keeps all its joints),
//!   no mesh vertex is weighted to it, no clip animates it, no
//!   socket hangs on it, and it has exactly one child joint to write. Those nodes are *folded*:
//!   they are not written as joints.
//! - **Their transform.** The product of their rest local matrices (f64), `H = T·R·s`. When it
//!   is a translation, a rotation and a positive uniform scale (what H-Anim readers, ours
//!   included, read back exactly), `T` and `s` go on the humanoid (`translation`, `scale`) and
//!   the rotation `R` stays in the joints: an H-Anim figure is modelled standing in its own
//!   space, +Y up and facing +Z (ISO/IEC 19774-1; H-Anim 1.0 "Modeling the Humanoid"), which is
//!   the glTF world's up and facing, not the space of a Z-up `Armature`. The skeleton is
//!   re-expressed in the humanoid's space: the folded nodes' rest becomes the identity (the
//!   lowest keeps `R`), so every rest world transform, mesh vertex and site below is
//!   `(T·s)⁻¹` times what it was, while every local transform and clip value stays as it is.
//!   World positions are unchanged: the humanoid's transform puts `T·s` back
//!   (`HANIM_HUMANOID_TRANSFORM`).
//! - **Otherwise** (shear, a non-uniform or mirroring scale) `H` stays baked into the joints'
//!   centres, as rest world positions (`HANIM_HUMANOID_TRANSFORM_BAKED`).

use glam::{DMat4, DQuat, DVec3, Mat4};

use super::fields::to_axis_angle;
use super::WriteOptions;
use crate::error::Diagnostics;
use crate::math::num::to_f32;
use crate::math::trs::Trs;
use crate::model::asset::Asset;
use crate::model::clip::TrackTarget;
use crate::model::fold::chain_above_bones;
use crate::model::skeleton::{JointId, RawJoint, Skeleton};

/// The `HAnimHumanoid`'s transform fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HumanoidFrame {
    /// `translation`.
    pub translation: [f32; 3],
    /// `scale` (uniform).
    pub scale: f32,
}

impl HumanoidFrame {
    /// The fields to write (those not at their default), by name, with their values.
    pub fn fields(&self) -> Vec<(&'static str, Vec<f32>)> {
        let mut out = Vec::new();
        if self.translation != [0.0; 3] {
            out.push(("translation", self.translation.to_vec()));
        }
        if self.scale != 1.0 {
            out.push(("scale", vec![self.scale; 3]));
        }
        out
    }
}

/// What folding did.
#[derive(Debug, Clone, Default)]
pub(crate) struct Folded {
    /// The asset re-expressed in the humanoid's space (the folded nodes at identity), when a
    /// transform goes on the humanoid.
    pub asset: Option<Asset>,
    /// The folded nodes, top first: not written as joints.
    pub nodes: Vec<JointId>,
    /// The humanoid's transform fields (`None`: identity, or baked).
    pub frame: Option<HumanoidFrame>,
    /// World space → humanoid space (for sockets on the scene root).
    pub to_humanoid: Mat4,
}

/// Folds the nodes above the skeleton of `written` (module docs).
pub(crate) fn fold(
    asset: &Asset,
    written: &[JointId],
    options: &WriteOptions,
    diagnostics: &mut Diagnostics,
) -> Folded {
    let none = Folded {
        to_humanoid: Mat4::IDENTITY,
        ..Folded::default()
    };
    let nodes = foldable_chain(asset, written, options);
    if nodes.is_empty() {
        return none;
    }
    let skeleton = &asset.skeleton;
    let names: Vec<&str> = nodes.iter().map(|j| skeleton.name(*j)).collect();
    let matrix = nodes.iter().fold(DMat4::IDENTITY, |m, j| {
        m * trs_matrix(skeleton.rest_local(*j))
    });
    let Some((translation, rotation, scale)) = similarity(matrix) else {
        diagnostics.warn(
            "HANIM_HUMANOID_TRANSFORM_BAKED",
            "",
            format!(
                "{} above the skeleton: not joints, and their transform has shear or a non-uniform or mirroring scale, which the HAnimHumanoid's translation, rotation and scale cannot hold: baked into the joints' centres",
                names.join(", ")
            ),
        );
        return Folded { nodes, ..none };
    };
    let Some(rebased) = rebased(skeleton, &nodes, rotation) else {
        return Folded { nodes, ..none };
    };
    let frame = HumanoidFrame {
        translation: (translation + 0.0).as_vec3().to_array(),
        scale: to_f32(scale),
    };
    let [.., angle] = to_axis_angle(rotation);
    diagnostics.info(
        "HANIM_HUMANOID_TRANSFORM",
        "",
        format!(
            "{} above the skeleton: not joints (no skin weights, no animation), not written; the HAnimHumanoid takes their translation ({} {} {}) and scale ({}), the joint centres their rotation ({}°: H-Anim figures stand +Y up, facing +Z in their own space)",
            names.join(", "),
            short(frame.translation[0]),
            short(frame.translation[1]),
            short(frame.translation[2]),
            short(frame.scale),
            short(to_f32(angle.to_degrees())),
        ),
    );
    let mut folded = asset.clone();
    folded.skeleton = rebased;
    let placed =
        DMat4::from_scale_rotation_translation(DVec3::splat(scale), DQuat::IDENTITY, translation);
    Folded {
        asset: Some(folded),
        nodes,
        frame: Some(frame),
        to_humanoid: placed.inverse().as_mat4(),
    }
}

/// A number for a message: 6 significant digits, no float noise.
fn short(v: f32) -> String {
    let text = format!("{:.6}", f64::from(v));
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// The chain of foldable nodes from the single root of `written` (module docs; the walk is
/// [`chain_above_bones`], shared with the BVH writer).
fn foldable_chain(asset: &Asset, written: &[JointId], options: &WriteOptions) -> Vec<JointId> {
    let Some(bones) = asset.humanoids.first().map(|h| &h.bones) else {
        return Vec::new();
    };
    let animated = |j: JointId| {
        asset.clips.iter().any(|c| {
            c.tracks()
                .iter()
                .any(|t| t.target() == TrackTarget::Joint(j))
        })
    };
    let weighted = |j: JointId| {
        asset.weighted_joints.contains(&j)
            || options.meshes.iter().any(|mesh| {
                let Some(slot) = mesh.joints_used.iter().position(|u| *u == j) else {
                    return false;
                };
                let on = |js: &[[u16; 4]], ws: &[[f32; 4]]| {
                    js.iter().zip(ws).any(|(js, ws)| {
                        js.iter()
                            .zip(ws)
                            .any(|(k, w)| usize::from(*k) == slot && *w > 0.0)
                    })
                };
                on(&mesh.joints, &mesh.weights) || on(&mesh.joints_extra, &mesh.weights_extra)
            })
    };
    let socket = |j: JointId| options.sockets.iter().any(|s| s.parent == Some(j));
    chain_above_bones(
        &asset.skeleton,
        bones,
        |j| written.contains(&j),
        |j| !weighted(j) && !animated(j) && !socket(j),
    )
}

/// The joint's local rest as an f64 matrix.
fn trs_matrix(t: Trs) -> DMat4 {
    DMat4::from_scale_rotation_translation(
        t.scale.as_dvec3(),
        t.rotation.as_dquat().normalize(),
        t.translation.as_dvec3(),
    )
}

/// `m` as translation, rotation and a positive uniform scale, when it is one (relative 1e-6).
fn similarity(m: DMat4) -> Option<(DVec3, DQuat, f64)> {
    if !m.is_finite() || m.row(3) != glam::DVec4::W {
        return None;
    }
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    let k = (scale.x * scale.y * scale.z).cbrt();
    if !(k.is_finite() && k > 0.0) || glam::DMat3::from_mat4(m).determinant() <= 0.0 {
        return None;
    }
    if (scale - DVec3::splat(k)).abs().max_element() > 1e-6 * k {
        return None;
    }
    let rotation = rotation.normalize();
    let rebuilt = DMat4::from_scale_rotation_translation(DVec3::splat(k), rotation, translation);
    let size = m.to_cols_array().iter().fold(1.0f64, |a, v| a.max(v.abs()));
    let off = rebuilt
        .to_cols_array()
        .iter()
        .zip(m.to_cols_array())
        .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
    (off <= 1e-6 * size).then_some((translation, rotation, k))
}

/// The skeleton with the folded nodes' rest at the identity but the lowest one's, which keeps
/// their rotation; joint ids unchanged (`None` when the ids would change: they cannot, the
/// order is already parents first).
fn rebased(skeleton: &Skeleton, folded: &[JointId], rotation: DQuat) -> Option<Skeleton> {
    let lowest = folded.last().copied();
    let raw: Vec<RawJoint> = skeleton
        .joints()
        .map(|j| RawJoint {
            name: skeleton.name(j).to_owned(),
            parent: skeleton.parent(j).map(JointId::index),
            rest: if Some(j) == lowest {
                Trs::from_rotation(rotation.as_quat())
            } else if folded.contains(&j) {
                Trs::IDENTITY
            } else {
                skeleton.rest_local(j)
            },
        })
        .collect();
    let (rebased, ids) = Skeleton::from_raw(raw).ok()?;
    ids.iter()
        .enumerate()
        .all(|(i, id)| id.index() == i)
        .then_some(rebased)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarities_and_what_is_not_one() {
        let m = DMat4::from_scale_rotation_translation(
            DVec3::splat(0.01),
            DQuat::from_rotation_x(1.0),
            DVec3::new(1.0, 2.0, 3.0),
        );
        let (t, r, k) = similarity(m).unwrap();
        assert!((k - 0.01).abs() < 1e-12 && t.abs_diff_eq(DVec3::new(1.0, 2.0, 3.0), 1e-12));
        assert!(r.abs_diff_eq(DQuat::from_rotation_x(1.0), 1e-9));
        let squash = DMat4::from_scale(DVec3::new(1.0, 2.0, 1.0));
        assert!(similarity(squash).is_none());
        assert!(similarity(DMat4::from_scale(DVec3::new(-1.0, 1.0, 1.0))).is_none());
        // Shear: a rotated child under a non-uniformly scaled parent.
        let shear = squash * DMat4::from_quat(DQuat::from_rotation_z(0.5));
        assert!(similarity(shear).is_none());
        assert_eq!(short(0.1 + 0.2), "0.3");
        assert_eq!(short(-0.0), "0");
    }
}
