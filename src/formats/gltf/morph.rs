//! A primitive's morph targets as the file stores them, shared by the mesh readers
//! ([`meshes`](super::meshes) carries them to the rest pose, [`bind_meshes`](super::bind_meshes)
//! keeps them in the primitive's own space): the `POSITION` and `NORMAL` deltas of each target
//! (a target without `POSITION` moves nothing; `TANGENT` deltas are counted as dropped), the
//! targets' names (`mesh.extras.targetNames`, else `target{t}`) and their default weights (the
//! node's `weights`, else the mesh's, else 0; glTF 2.0 §3.7.2.2).

use serde_json::Value;

use super::accessor;
use super::document::Document;
use super::json::{Attributes, Mesh, Node};
use super::meshes::Dropped;
use crate::error::{Error, Location};
use crate::math::num::to_f32;

/// One target's deltas, one per vertex of its primitive.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct StoredTarget {
    /// Position deltas (zeros when the target has no `POSITION`).
    pub(super) positions: Vec<[f32; 3]>,
    /// Normal deltas, when the target has `NORMAL`.
    pub(super) normals: Option<Vec<[f32; 3]>>,
}

/// The targets of a primitive with `count` vertices, at `pointer` (`/meshes/m/primitives/p`).
///
/// # Errors
/// [`Error::Invalid`] at the primitive when an accessor cannot be read or a target's deltas
/// are not one per vertex.
pub(super) fn read_targets(
    document: &Document,
    targets: &[Attributes],
    count: usize,
    pointer: &str,
    dropped: &mut Dropped,
) -> Result<Vec<StoredTarget>, Error> {
    let mut out = Vec::with_capacity(targets.len());
    for (t, target) in targets.iter().enumerate() {
        let read = |semantic: &str| -> Result<Option<Vec<[f32; 3]>>, Error> {
            let Some(a) = target.get(semantic) else {
                return Ok(None);
            };
            let values = accessor::read_f32(document, a)?;
            if values.len() != count.saturating_mul(3) {
                return Err(Error::invalid(
                    document.path(),
                    Location::JsonPointer(format!("{pointer}/targets/{t}/{semantic}")),
                    format!(
                        "a morph target's deltas are not one per vertex: {} numbers for {count} vertices",
                        values.len()
                    ),
                ));
            }
            Ok(Some(
                values.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
            ))
        };
        let positions = read("POSITION")?.unwrap_or_else(|| vec![[0.0; 3]; count]);
        let normals = read("NORMAL")?;
        if target.get("TANGENT").is_some() {
            *dropped
                .attributes
                .entry("TANGENT (morph target)".to_owned())
                .or_default() += 1;
        }
        out.push(StoredTarget { positions, normals });
    }
    Ok(out)
}

/// The name of target `t` of `mesh`: `extras.targetNames[t]`, else `target{t}`.
pub(super) fn target_name(mesh: &Mesh, t: usize) -> String {
    mesh.other
        .get("extras")
        .and_then(|e| e.get("targetNames"))
        .and_then(Value::as_array)
        .and_then(|names| names.get(t))
        .and_then(Value::as_str)
        .map_or_else(|| format!("target{t}"), str::to_owned)
}

/// The default weights of `count` targets drawn by `node`: the node's `weights`, else the
/// mesh's, else 0 (missing entries are 0).
pub(super) fn default_weights(node: &Node, mesh: &Mesh, count: usize) -> Vec<f32> {
    let given = if node.weights.is_empty() {
        &mesh.weights
    } else {
        &node.weights
    };
    (0..count)
        .map(|t| given.get(t).map_or(0.0, |w| to_f32(w.get())))
        .collect()
}
