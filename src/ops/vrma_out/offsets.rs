//! Offset nodes: where a mapped bone does not hang rigidly from its mapped parent.
//!
//! A rebased VRMA holds the mapped bones only, each at a fixed offset from its mapped parent,
//! and players move humanoid bones by rotation alone (hips translation aside). A source whose
//! unmapped joints between two mapped ones move over the clip (CMU's `upperneck`, nancy's
//! `sacroiliac` between the hips and the legs, CesiumMan's collar bones), or whose bones change
//! length (mannequiny's stretched legs), holds the child elsewhere in its parent's frame at
//! different times: no rotation of the parent puts it there (the parent's other children, the
//! distance). Such a child hangs from a non-humanoid node (`<child>_offset`, identity rotation,
//! at the T-pose offset) whose translation track puts it where the source holds it, in the
//! parent's frame. Players ignore non-humanoid tracks (three-vrm does) and play the bones'
//! rotations, which are the source's (its world deltas); the file itself keeps every mapped
//! bone's world position.

use glam::{Quat, Vec3};

use crate::error::Error;
use crate::math::sample::Interpolation;
use crate::model::clip::{Clip, KeyTimes, Property, Track, TrackTarget};
use crate::model::skeleton::{JointId, Skeleton};
use crate::pose::fk::Sampler;

/// A child whose offset in its mapped parent's frame moves less than this (metres) over the
/// clip hangs from its parent directly (the matrix compares positions to 1e-4 m).
pub const STILL: f32 = 1e-5;

/// The children of `pairs` (source child, source mapped parent) whose position in the
/// parent's frame (`W_p(t)⁻¹ · (P_c(t) − P_p(t))`, the frame the world deltas carry) moves
/// more than [`STILL`] from the rest over the clip's key times.
pub fn moving(
    skeleton: &Skeleton,
    clip: &Clip,
    pairs: &[(JointId, JointId)],
    times: &[f32],
) -> Vec<JointId> {
    let rest = Sampler::rest(skeleton);
    let at_rest: Vec<Vec3> = pairs
        .iter()
        .map(|&(c, p)| in_parent_frame(&rest, c, p))
        .collect();
    let mut moved = vec![false; pairs.len()];
    let mut sampler = Sampler::new(skeleton, clip);
    for &t in times {
        sampler.evaluate(t);
        for ((&(c, p), rest), moved) in pairs.iter().zip(&at_rest).zip(&mut moved) {
            if !*moved && in_parent_frame(&sampler, c, p).distance(*rest) > STILL {
                *moved = true;
            }
        }
    }
    pairs
        .iter()
        .zip(moved)
        .filter_map(|(&(c, _), moved)| moved.then_some(c))
        .collect()
}

/// Where `child` is in `parent`'s frame (world rotation only, as the retargeter measures).
fn in_parent_frame(sampler: &Sampler<'_>, child: JointId, parent: JointId) -> Vec3 {
    sampler.world_rotation(parent).inverse()
        * (sampler.world_position(child) - sampler.world_position(parent))
}

/// One offset node of the target: the source child and parent it stands between, and the
/// target's offset node.
#[derive(Debug, Clone, Copy)]
pub struct OffsetNode {
    /// The source's mapped child.
    pub source_child: JointId,
    /// The source's mapped parent.
    pub source_parent: JointId,
    /// The target's offset node (a child of the parent's target joint, the child's parent).
    pub node: JointId,
}

/// Adds to `baked` (the clip retargeted onto `target`, every key at the same times) a
/// translation track per offset node: at each key, the source child's position relative to its
/// parent, turned by `facing` (canonical ← source file) into the target's space, in the
/// target parent's world frame as the baked rotations pose it.
///
/// # Errors
/// The baked clip has no key times.
pub fn add_tracks(
    source: &Skeleton,
    clip: &Clip,
    target: &Skeleton,
    baked: &mut Clip,
    nodes: &[OffsetNode],
    facing: Quat,
) -> Result<(), Error> {
    if nodes.is_empty() {
        return Ok(());
    }
    let times: KeyTimes = baked
        .tracks()
        .first()
        .map(|t| t.key_times().clone())
        .ok_or_else(|| Error::unsupported("the retargeted clip has no keys"))?;
    // Each target joint's rotation track, if baked.
    let rotation: Vec<Option<&Track>> = target
        .joints()
        .map(|j| baked.track(TrackTarget::Joint(j), Property::Rotation))
        .collect();
    let to_target = facing.inverse();
    let mut values: Vec<Vec<f32>> = vec![Vec::with_capacity(times.len() * 3); nodes.len()];
    let mut sampler = Sampler::new(source, clip);
    let mut world = vec![Quat::IDENTITY; target.len()];
    for (key, &t) in times.as_slice().iter().enumerate() {
        sampler.evaluate(t);
        for joint in target.joints() {
            let local = rotation
                .get(joint.index())
                .copied()
                .flatten()
                .and_then(|track| track.value(key))
                .and_then(|v| <[f32; 4]>::try_from(v).ok())
                .map_or(target.rest_local(joint).rotation, Quat::from_array);
            let parent = target
                .parent(joint)
                .and_then(|p| world.get(p.index()).copied())
                .unwrap_or(Quat::IDENTITY);
            if let Some(slot) = world.get_mut(joint.index()) {
                *slot = parent * local;
            }
        }
        for (node, values) in nodes.iter().zip(&mut values) {
            let frame = world
                .get(node.node.index())
                .copied()
                .unwrap_or(Quat::IDENTITY);
            let offset = sampler.world_position(node.source_child)
                - sampler.world_position(node.source_parent);
            values.extend((frame.inverse() * (to_target * offset)).to_array());
        }
    }
    for (node, values) in nodes.iter().zip(values) {
        let track = Track::with_key_times(
            TrackTarget::Joint(node.node),
            Property::Translation,
            Interpolation::Linear,
            times.clone(),
            values,
        )
        .map_err(|e| Error::unsupported(format!("offset track: {e}")))?;
        baked.add_track(track);
    }
    Ok(())
}
