//! `HAnimDisplacer` (X3D) and `Displacer` (H-Anim 1.1 PROTO) nodes as morph targets.
//!
//! ## Overview
//!
//! A displacer lists points of the coordinates it acts on (`coordIndex`: the humanoid's
//! `skinCoord` for a displacer on a joint, the segment's `coord` for one on a segment) and one
//! displacement per listed point (`displacements`), scaled by `weight`. The displacements are
//! in the space of those coordinates: X_ITE adds `weight · displacement` to the skin point
//! before skinning (turned by the displacer joint's skinning matrix, the identity at rest), so
//! a displacer is a glTF morph target whose deltas are the displacements carried into the mesh's
//! bind space by the linear part of the transform that places the coordinates there. Its `name`
//! (else its DEF) names the target; its `weight` is the target's default weight.
//!
//! A displacer that cannot be used is reported with its line:column and left out: an index
//! that names no point, a `displacements` count that is not the `coordIndex` count.

use glam::DVec3;

use super::classic::Note;
use super::fields::Fields;
use super::tree::{NodeId, Scene};
use crate::math::num::index;

/// One displacer as read, its moves in the coordinates it displaces.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Displacer {
    /// Its node.
    pub node: NodeId,
    /// `name`, else the DEF, else `displacer`.
    pub name: String,
    /// `weight` (default 0).
    pub weight: f64,
    /// (point index, displacement), one per `coordIndex` entry.
    pub moves: Vec<(usize, DVec3)>,
}

/// Reads displacer `id`, which acts on `points` coordinates (`what` names them in messages).
/// `None`, reported, when it cannot be used.
pub(crate) fn read(
    scene: &Scene<'_>,
    id: NodeId,
    points: usize,
    what: &str,
    notes: &mut Vec<Note>,
) -> Option<Displacer> {
    let f = Fields::of(scene, id)?;
    let node = f.node();
    let name = f
        .string("name")
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .or(node.def)
        .unwrap_or("displacer")
        .to_owned();
    let indices = f
        .numbers_as("coordIndex", "MFInt32")
        .map(|v| v.into_owned())
        .unwrap_or_default();
    let displacements = f
        .numbers_as("displacements", "MFVec3f")
        .map(|v| v.into_owned())
        .unwrap_or_default();
    let mut drop = |at: usize, message: String| {
        notes.push(Note {
            at,
            code: "HANIM_DISPLACER_IGNORED",
            message: format!("displacer {name:?}: {message}: ignored"),
        });
        None
    };
    if displacements.len() != indices.len().saturating_mul(3) {
        return drop(
            f.at("displacements"),
            format!(
                "{} coordIndex entries but {} numbers in displacements (expected {}: one 3-vector per entry)",
                indices.len(),
                displacements.len(),
                indices.len().saturating_mul(3)
            ),
        );
    }
    if let Some(bad) = indices
        .iter()
        .find(|i| index(**i).is_none_or(|i| i >= points))
    {
        return drop(
            f.at("coordIndex"),
            format!("coordIndex {bad} names no point of the {points} {what}"),
        );
    }
    let moves = indices
        .iter()
        .zip(displacements.chunks_exact(3))
        .filter_map(|(i, d)| match d {
            &[x, y, z] => Some((index(*i)?, DVec3::new(x, y, z))),
            _ => None,
        })
        .collect();
    let weight = f.number("weight", 0.0);
    Some(Displacer {
        node: id,
        name,
        weight: if weight.is_finite() { weight } else { 0.0 },
        moves,
    })
}
