//! VRM animation (`VRMC_vrm_animation`): what its tracks mean.
//!
//! A `.vrma` is a glTF whose nodes form a humanoid in the VRM T-pose and whose first animation
//! moves them. Reading one keeps every node and every track as read (the retargeter needs the
//! non-humanoid nodes too: `idle_loop.vrma` animates intermediates) with these exceptions:
//!
//! - **expression nodes**: their translation x is an expression's weight; the track becomes an
//!   [`TrackTarget::Expression`] track with the key values clamped to `[0, 1]`;
//! - **the lookAt node**: its rotation becomes a [`TrackTarget::LookAt`] track;
//! - **what the spec forbids is dropped with a diagnostic, not an error**: scale tracks on
//!   humanoid bones, translations on humanoid bones other than the hips, eye tracks (the gaze is
//!   the lookAt node), and tracks on expression or lookAt nodes other than the ones above.
//!
//! [`hips_offset_track`] turns the hips translation into the canonical bone track: the hips'
//! position in model space through its parent's full world matrix (`idle_loop.vrma`'s root
//! carries a 0.01 scale), as an offset from the rest position.

use std::collections::BTreeMap;

use glam::{Mat4, Vec3};

use super::view::View;
use crate::asset::Asset;
use crate::error::{Diagnostics, Error};
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::skeleton::JointId;
use crate::model::HumanBone;
use crate::pose::sample::Interpolation;

/// The nodes a VRMA's extension gives meaning to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Targets {
    /// (index into the asset's expressions, node).
    pub expressions: Vec<(usize, usize)>,
    /// `lookAt.node`.
    pub look_at: Option<usize>,
}

/// Reads the expression and lookAt nodes of a `VRMC_vrm_animation` object; expression `i` of
/// `names` (preset first, then custom, as [`super::humanoid::expressions_v1`] lists them).
///
/// # Errors
/// A `node` that is not a node index.
pub fn targets(root: &View<'_>, node_count: usize) -> Result<Targets, Error> {
    let mut out = Targets::default();
    if let Some(expressions) = root.get("expressions") {
        let mut index = 0;
        for group in ["preset", "custom"] {
            let Some(entries) = expressions.get(group) else {
                continue;
            };
            for (_, expression) in entries.entries()? {
                if let Some(node) = expression.get("node") {
                    out.expressions.push((index, node.node(node_count)?));
                }
                index += 1;
            }
        }
    }
    if let Some(node) = root.get("lookAt").and_then(|l| l.get("node")) {
        out.look_at = Some(node.node(node_count)?);
    }
    Ok(out)
}

/// Why a track is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Drop {
    Scale,
    Translation,
    Eye,
    ExpressionNode,
    LookAtNode,
}

impl Drop {
    fn reason(self) -> &'static str {
        match self {
            Drop::Scale => "VRMA has no scale tracks on humanoid bones",
            Drop::Translation => "VRMA has no translation on humanoid bones other than the hips",
            Drop::Eye => "VRMA has no eye tracks (the gaze is the lookAt node)",
            Drop::ExpressionNode => "only the translation of an expression node carries its weight",
            Drop::LookAtNode => "only the rotation of the lookAt node carries the gaze",
        }
    }
}

/// Applies the VRMA meanings (see the module docs) to every clip of `asset`.
pub fn classify_clips(asset: &mut Asset, targets: &Targets, diagnostics: &mut Diagnostics) {
    let node_of = |joint: JointId| asset.source_index(joint);
    let bones = asset.humanoids.first().map(|h| h.bones).unwrap_or_default();
    let mut clips = Vec::with_capacity(asset.clips.len());
    for (c, clip) in asset.clips.iter().enumerate() {
        let mut out = Clip::new(clip.name.clone());
        let mut dropped: BTreeMap<Drop, Vec<String>> = BTreeMap::new();
        for track in clip.tracks() {
            let TrackTarget::Joint(joint) = track.target() else {
                out.add_track(track.clone());
                continue;
            };
            let node = node_of(joint);
            let name = || asset.skeleton.name(joint).to_owned();
            let property = track.property();
            if let Some(&(expression, _)) = targets.expressions.iter().find(|(_, n)| *n == node) {
                match (property, expression_track(track, expression)) {
                    (Property::Translation, Some(t)) => out.add_track(t),
                    _ => dropped
                        .entry(Drop::ExpressionNode)
                        .or_default()
                        .push(name()),
                }
                continue;
            }
            if targets.look_at == Some(node) {
                match property {
                    Property::Rotation => match retarget(track, TrackTarget::LookAt) {
                        Some(t) => out.add_track(t),
                        None => dropped.entry(Drop::LookAtNode).or_default().push(name()),
                    },
                    _ => dropped.entry(Drop::LookAtNode).or_default().push(name()),
                }
                continue;
            }
            let reason = match (bones.bone_of(joint), property) {
                (Some(HumanBone::LeftEye | HumanBone::RightEye), _) => Some(Drop::Eye),
                (Some(_), Property::Scale) => Some(Drop::Scale),
                (Some(bone), Property::Translation) if bone != HumanBone::Hips => {
                    Some(Drop::Translation)
                }
                _ => None,
            };
            match reason {
                Some(reason) => dropped
                    .entry(reason)
                    .or_default()
                    .push(format!("{} {property}", name())),
                None => out.add_track(track.clone()),
            }
        }
        for (reason, tracks) in dropped {
            let shown: Vec<&str> = tracks.iter().take(8).map(String::as_str).collect();
            let more = tracks.len().saturating_sub(shown.len());
            diagnostics.warn(
                "VRMA_TRACK_DROPPED",
                format!("/animations/{c}"),
                format!(
                    "clip {:?}: {} track(s) dropped ({}): {}{}",
                    clip.name,
                    tracks.len(),
                    reason.reason(),
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                ),
            );
        }
        clips.push(out);
    }
    asset.clips = clips;
}

/// The same keys for another target.
fn retarget(track: &Track, target: TrackTarget) -> Option<Track> {
    Track::new(
        target,
        track.property(),
        track.interpolation(),
        track.times().to_vec(),
        track.values().to_vec(),
    )
    .ok()
}

/// An expression weight track from a translation track: x of every element, key values
/// clamped to `[0, 1]` (cubic-spline tangents are kept as they are).
fn expression_track(track: &Track, expression: usize) -> Option<Track> {
    let index = u16::try_from(expression).ok()?;
    let cubic = track.interpolation() == Interpolation::CubicSpline;
    let values = track
        .values()
        .chunks_exact(3)
        .enumerate()
        .map(|(i, v)| {
            let is_value = !cubic || i % 3 == 1;
            if is_value {
                v[0].clamp(0.0, 1.0)
            } else {
                v[0]
            }
        })
        .collect();
    Track::new(
        TrackTarget::Expression(index),
        Property::Weights(1),
        track.interpolation(),
        track.times().to_vec(),
        values,
    )
    .ok()
}

/// The hips translation of `clip` as the canonical bone track: the hips' model-space position
/// minus its rest position, through the hips' parent's world matrix (scale included).
///
/// The parent chain must be still in the clip (true of every VRMA seen: their roots carry a
/// static scale); when an ancestor of the hips is animated, `None` (the retargeter's full
/// forward kinematics handles that case).
pub fn hips_offset_track(asset: &Asset, clip: &Clip) -> Option<Track> {
    let hips = asset.humanoids.first()?.bones.get(HumanBone::Hips)?;
    let track = clip.track(TrackTarget::Joint(hips), Property::Translation)?;
    let skeleton = &asset.skeleton;
    let animated_ancestor = skeleton
        .ancestors(hips)
        .any(|a| clip.tracks_for(TrackTarget::Joint(a)).next().is_some());
    if animated_ancestor {
        return None;
    }
    let parent: Mat4 = skeleton
        .parent(hips)
        .map_or(Mat4::IDENTITY, |p| skeleton.rest_world(p).to_mat4());
    let rest = skeleton.rest_world(hips).translation;
    let cubic = track.interpolation() == Interpolation::CubicSpline;
    let values = track
        .values()
        .chunks_exact(3)
        .enumerate()
        .flat_map(|(i, v)| {
            let v = Vec3::new(v[0], v[1], v[2]);
            let mapped = if cubic && i % 3 != 1 {
                parent.transform_vector3(v)
            } else {
                parent.transform_point3(v) - rest
            };
            mapped.to_array()
        })
        .collect();
    Track::new(
        TrackTarget::Bone(HumanBone::Hips),
        Property::Translation,
        track.interpolation(),
        track.times().to_vec(),
        values,
    )
    .ok()
}
