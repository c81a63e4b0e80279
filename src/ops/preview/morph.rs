//! Morph targets in the preview: each mesh's weights at a time, the few a frame draws, and a
//! morphed vertex on the CPU.
//!
//! ## Overview
//!
//! A mesh's weights at a time are its defaults ([`SkinnedMesh::morph_weights`]: glTF
//! `node.weights`, else `mesh.weights`; an H-Anim displacer's `weight`), replaced by the clip's
//! `weights` track for the mesh when the clip has one, sampled with the track's interpolation
//! and clamped outside its keys ([`crate::math::sample`]). The track is found by
//! [`channel_of`]: a glTF `weights` channel targets the node that draws the mesh (every
//! primitive of that node's mesh shares it), an H-Anim displacer's weight track targets the
//! mesh itself. A clip retargeted from another file (`--anim`) carries joints only, so the
//! character's morphs stay at their defaults.
//!
//! As glTF defines it, a vertex is morphed, then skinned: `p' = p + Σ_t w_t · Δ_t[v]`, the same
//! for normals when the targets carry normal deltas. A frame draws at most [`MAX_ACTIVE`]
//! targets: those with a non-zero weight, the largest by |weight| when there are more
//! ([`active`]).

use glam::Vec3;

use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::mesh::SkinnedMesh;
use crate::model::skeleton::JointId;

/// The most morph targets a frame draws for one mesh (those with a non-zero weight; the
/// largest by |weight| when more).
pub const MAX_ACTIVE: usize = 64;

/// The clip target whose `weights` track animates a mesh's morph targets: the joint of the
/// glTF node that draws it, else the mesh itself (H-Anim: [`TrackTarget::Mesh`] by its index
/// among the meshes read with the file). `None` for a mesh without targets, or an index past
/// what a track can name.
pub fn channel_of(mesh: &SkinnedMesh, index: usize, node: Option<JointId>) -> Option<TrackTarget> {
    if mesh.morph_targets.is_empty() {
        return None;
    }
    match node {
        Some(joint) => Some(TrackTarget::Joint(joint)),
        None => u16::try_from(index).ok().map(TrackTarget::Mesh),
    }
}

/// The track of `clip` animating the weights on `channel`, when it has one weight per target
/// of `mesh`.
pub fn track_for<'a>(
    clip: &'a Clip,
    mesh: &SkinnedMesh,
    channel: TrackTarget,
) -> Option<&'a Track> {
    clip.track(channel, Property::Weights(mesh.morph_targets.len()))
}

/// A weights track on `channel` whose weight count differs from the targets of `mesh`
/// (glTF requires them equal), as that count: such a track is not played.
pub fn mismatched_count(clip: &Clip, mesh: &SkinnedMesh, channel: TrackTarget) -> Option<usize> {
    let expected = mesh.morph_targets.len();
    clip.tracks_for(channel).find_map(|t| match t.property() {
        Property::Weights(n) if n != expected => Some(n),
        _ => None,
    })
}

/// The weights of `mesh` at `time` of `track` (`None` for either: its defaults). One weight
/// per target; a default missing from the mesh is 0.
pub fn weights_at(mesh: &SkinnedMesh, track: Option<&Track>, time: Option<f32>) -> Vec<f32> {
    let count = mesh.morph_targets.len();
    let mut weights: Vec<f32> = (0..count)
        .map(|t| mesh.morph_weights.get(t).copied().unwrap_or(0.0))
        .collect();
    if let (Some(track), Some(t)) = (track, time) {
        track.sample(t, &mut weights);
    }
    weights
}

/// The targets a frame draws, as `(target, weight)` in target order: every non-zero, finite
/// weight, at most [`MAX_ACTIVE`] of them (the largest by |weight| when there are more).
pub fn active(weights: &[f32]) -> Vec<(u32, f32)> {
    let mut out: Vec<(u32, f32)> = weights
        .iter()
        .enumerate()
        .filter(|(_, w)| **w != 0.0 && w.is_finite())
        .filter_map(|(t, w)| Some((u32::try_from(t).ok()?, *w)))
        .collect();
    if out.len() > MAX_ACTIVE {
        out.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(&b.0)));
        out.truncate(MAX_ACTIVE);
        out.sort_by_key(|(t, _)| *t);
    }
    out
}

/// Vertex `v` of `mesh` at bind, morphed by `active` (from [`active`]; a target or vertex the
/// mesh lacks adds nothing).
pub fn morphed_position(mesh: &SkinnedMesh, active: &[(u32, f32)], v: usize) -> Vec3 {
    let base = mesh
        .positions
        .get(v)
        .map_or(Vec3::ZERO, |p| Vec3::from_array(*p));
    active.iter().fold(base, |p, &(t, w)| {
        let delta = mesh
            .morph_targets
            .get(t as usize)
            .and_then(|target| target.positions.get(v))
            .map_or(Vec3::ZERO, |d| Vec3::from_array(*d));
        p + delta * w
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::sample::Interpolation;
    use crate::model::mesh::MorphTarget;

    fn mesh(defaults: Vec<f32>) -> SkinnedMesh {
        let target = |d: [f32; 3]| MorphTarget {
            name: String::new(),
            positions: vec![d, [0.0; 3]],
            normals: Vec::new(),
        };
        SkinnedMesh {
            positions: vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            morph_targets: vec![target([0.0, 2.0, 0.0]), target([0.0, 0.0, -4.0])],
            morph_weights: defaults,
            ..SkinnedMesh::default()
        }
    }

    #[test]
    fn weights_are_the_defaults_then_the_track_by_hand() {
        let m = mesh(vec![0.5]);
        // A missing default is 0.
        assert_eq!(weights_at(&m, None, Some(1.0)), vec![0.5, 0.0]);
        // Keys: t = 0 → (0, 1), t = 2 → (1, 0); linear, clamped outside.
        let track = Track::new(
            TrackTarget::Mesh(0),
            Property::Weights(2),
            Interpolation::Linear,
            vec![0.0, 2.0],
            vec![0.0, 1.0, 1.0, 0.0],
        )
        .unwrap();
        assert_eq!(weights_at(&m, Some(&track), Some(0.5)), vec![0.25, 0.75]);
        assert_eq!(weights_at(&m, Some(&track), Some(9.0)), vec![1.0, 0.0]);
        // At rest (no time) the defaults.
        assert_eq!(weights_at(&m, Some(&track), None), vec![0.5, 0.0]);
        let mut clip = Clip::new("c");
        clip.add_track(track);
        assert!(track_for(&clip, &m, TrackTarget::Mesh(0)).is_some());
        assert!(track_for(&clip, &m, TrackTarget::Mesh(1)).is_none());
        assert_eq!(mismatched_count(&clip, &m, TrackTarget::Mesh(0)), None);
        let three = SkinnedMesh {
            morph_targets: vec![MorphTarget::default(); 3],
            ..SkinnedMesh::default()
        };
        assert!(track_for(&clip, &three, TrackTarget::Mesh(0)).is_none());
        assert_eq!(
            mismatched_count(&clip, &three, TrackTarget::Mesh(0)),
            Some(2)
        );
    }

    #[test]
    fn a_vertex_is_morphed_by_hand() {
        let m = mesh(vec![]);
        // (1, 0, 0) + 0.5·(0, 2, 0) − 0.25·(0, 0, −4) = (1, 1, 1).
        let p = morphed_position(&m, &[(0, 0.5), (1, -0.25)], 0);
        assert_eq!(p, Vec3::new(1.0, 1.0, 1.0));
        assert_eq!(morphed_position(&m, &[(0, 0.5), (7, 1.0)], 1), Vec3::Y);
    }

    #[test]
    fn a_frame_draws_the_largest_weights() {
        assert_eq!(active(&[0.0, 0.5, 0.0, -1.0]), vec![(1, 0.5), (3, -1.0)]);
        assert_eq!(active(&[f32::NAN, 0.0]), vec![]);
        // 70 weights: 0.01, 0.02, ... 0.70 with the sign alternating; the six smallest go.
        let weights: Vec<f32> = (0..70)
            .map(|i| (i + 1) as f32 * 0.01 * if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let kept = active(&weights);
        assert_eq!(kept.len(), MAX_ACTIVE);
        assert_eq!(kept.first(), Some(&(6, 0.07)));
        assert!(kept.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn a_mesh_without_targets_has_no_channel() {
        assert_eq!(channel_of(&SkinnedMesh::default(), 0, None), None);
        assert_eq!(
            channel_of(&mesh(vec![]), 3, None),
            Some(TrackTarget::Mesh(3))
        );
    }
}
