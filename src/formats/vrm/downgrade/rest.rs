//! What VRM 0.x cannot hold as it is: "Model faces −Z; T-pose; no local rotation, no scale
//! on bones" (VRM 0.x spec). VRM 1.0 allows both.
//!
//! Every humanoid bone node and every ancestor of one (non-humanoid nodes between the bones
//! and above the hips move the bones as well) must have an identity rest rotation and a unit
//! scale. Exporters leave float noise (scales of 0.99999994, rotations of 3e-8), so both are
//! compared with a tolerance of [`TOLERANCE`]: the quaternion's vector part (half the sine of
//! the angle) and each scale component's distance from 1. The nodes found here are what
//! `bake.rs` bakes away and names in its diagnostic, each with its rotation as an angle about
//! an axis.

use glam::{DMat4, DQuat, DVec3};

use crate::formats::gltf::json::{floats, Node};
use crate::formats::gltf::Document;
use crate::model::HumanBone;

/// How far from the identity a rest rotation (quaternion vector part) or a scale component
/// may be.
pub(super) const TOLERANCE: f64 = 1e-6;

/// A node VRM 0.x cannot hold as it is.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Offender {
    node: usize,
    /// The humanoid bone it is, `None` for an ancestor of one.
    bone: Option<HumanBone>,
    rotation: DQuat,
    scale: DVec3,
}

/// The offending bones in canonical order, then the offending ancestors in node order.
pub(super) fn offenders(document: &Document, bones: &[(HumanBone, usize)]) -> Vec<Offender> {
    let nodes = &document.root.nodes;
    let parents = parents(document);
    let mut checked = vec![false; nodes.len()];
    let mut found = Vec::new();
    let mut ancestors = Vec::new();
    for &(bone, node) in bones {
        if let Some(offender) = check(document, node, Some(bone)) {
            found.push(offender);
        }
        if let Some(slot) = checked.get_mut(node) {
            *slot = true;
        }
        let mut at = parents.get(node).copied().flatten();
        while let Some(parent) = at {
            if checked.get(parent).copied().unwrap_or(true) {
                break;
            }
            if let Some(slot) = checked.get_mut(parent) {
                *slot = true;
            }
            ancestors.push(parent);
            at = parents.get(parent).copied().flatten();
        }
    }
    ancestors.sort_unstable();
    for node in ancestors {
        let is_bone = bones.iter().any(|(_, n)| *n == node);
        if !is_bone {
            if let Some(offender) = check(document, node, None) {
                found.push(offender);
            }
        }
    }
    found
}

/// Each node's parent (the first node that lists it as a child).
pub(super) fn parents(document: &Document) -> Vec<Option<usize>> {
    let nodes = &document.root.nodes;
    let mut parents = vec![None; nodes.len()];
    for (p, node) in nodes.iter().enumerate() {
        for child in &node.children {
            if let Some(slot @ None) = parents.get_mut(child.as_usize()) {
                *slot = Some(p);
            }
        }
    }
    parents
}

/// The node as an offender, `None` when its rest rotation and scale are the identity.
fn check(document: &Document, node: usize, bone: Option<HumanBone>) -> Option<Offender> {
    let (rotation, scale) = rotation_and_scale(document.root.nodes.get(node)?);
    let turned = DVec3::new(rotation.x, rotation.y, rotation.z).length() > TOLERANCE;
    let scaled = (scale - DVec3::ONE).abs().max_element() > TOLERANCE;
    (turned || scaled).then_some(Offender {
        node,
        bone,
        rotation,
        scale,
    })
}

/// A node's local rest rotation and scale (a matrix is decomposed; a negative determinant
/// shows as a negative scale).
pub(super) fn rotation_and_scale(node: &Node) -> (DQuat, DVec3) {
    if let Some(matrix) = &node.matrix {
        let (scale, rotation, _) =
            DMat4::from_cols_array(&floats(matrix)).to_scale_rotation_translation();
        return (rotation, scale);
    }
    let r = node.rotation.as_ref().map_or([0.0, 0.0, 0.0, 1.0], floats);
    let s = node.scale.as_ref().map_or([1.0; 3], floats);
    (DQuat::from_xyzw(r[0], r[1], r[2], r[3]), DVec3::from(s))
}

/// `leftUpperLeg (node 5 "Thigh.L"): rotation 180.0° about (1, 0, 0)`.
pub(super) fn describe(document: &Document, offender: &Offender) -> String {
    let name = document
        .root
        .nodes
        .get(offender.node)
        .and_then(|n| n.name.as_deref())
        .map_or_else(String::new, |n| format!(" {n:?}"));
    let what = match offender.bone {
        Some(bone) => bone.as_str().to_owned(),
        None => "ancestor".to_owned(),
    };
    let mut parts = Vec::new();
    if DVec3::new(
        offender.rotation.x,
        offender.rotation.y,
        offender.rotation.z,
    )
    .length()
        > TOLERANCE
    {
        parts.push(format!("rotation {}", angle_axis(offender.rotation)));
    }
    if (offender.scale - DVec3::ONE).abs().max_element() > TOLERANCE {
        let s = offender.scale;
        parts.push(format!(
            "scale ({}, {}, {})",
            short(s.x),
            short(s.y),
            short(s.z)
        ));
    }
    format!(
        "{what} (node {}{name}): {}",
        offender.node,
        parts.join(", ")
    )
}

/// A rotation as `90.0° about (0, 0.707, 0.707)`: the angle in [0°, 180°] about a unit axis.
pub(super) fn angle_axis(rotation: DQuat) -> String {
    let q = if rotation.w < 0.0 {
        -rotation
    } else {
        rotation
    };
    let v = DVec3::new(q.x, q.y, q.z);
    let length = v.length();
    let degrees = 2.0 * length.atan2(q.w).to_degrees();
    let axis = if length > 0.0 { v / length } else { DVec3::X };
    format!(
        "{degrees:.1}° about ({}, {}, {})",
        short(axis.x),
        short(axis.y),
        short(axis.z)
    )
}

/// A number with at most three decimals and no trailing zeros (`-0` as `0`).
fn short(value: f64) -> String {
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" | "" => "0".to_owned(),
        other => other.to_owned(),
    }
}
