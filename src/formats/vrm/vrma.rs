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
use crate::error::{Diagnostics, Error};
use crate::math::sample::Interpolation;
use crate::model::asset::Asset;
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::skeleton::JointId;
use crate::model::HumanBone;
use crate::pose::normalized::joint_track_from_bone_track;

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

/// `VRMA_HIPS_HEIGHT` (error): a clip moves the hips while the rest hips stand at or below
/// the ground (`y ≤ 0` in model space). Players scale the hips track by the model's hips height
/// over this one (three-vrm's `hipsTranslationScale`), so such a file cannot play right. A VRMA
/// that only turns bones is fine whatever its hips height.
pub fn check_hips_height(asset: &Asset, pointer: &str, diagnostics: &mut Diagnostics) {
    let Some(hips) = asset
        .humanoids
        .first()
        .and_then(|h| h.bones.get(HumanBone::Hips))
    else {
        return;
    };
    let height = asset.skeleton.rest_world(hips).translation.y;
    let moved = asset.clips.iter().find(|c| {
        c.track(TrackTarget::Joint(hips), Property::Translation)
            .is_some()
    });
    if let (true, Some(clip)) = (height <= 0.0, moved) {
        diagnostics.error(
            "VRMA_HIPS_HEIGHT",
            pointer,
            format!(
                "clip {:?} moves the hips, but the rest hips stand {height} m above the ground: players scale the hips motion by the model's hips height over this one, so the rest must stand on y = 0 with the hips at their height (convert the source again to .vrma)",
                clip.name
            ),
        );
    }
}

/// Builds a VRMA document from an asset's humanoid and clips: every joint a node at its rest
/// (the rest must be the VRM T-pose, which EXT_skeleton_humanoid and VRM 1.0 files declare),
/// the humanoid bone map in `VRMC_vrm_animation`, each clip an animation (players load the
/// first). Joint tracks on humanoid bones keep their rotations and the hips translation; bone
/// tracks (EXT channels) become local rotations of the bone's joint,
/// `local = P⁻¹ · n · P · L_rest`, and the hips offset a local translation through the
/// parent's world matrix. What VRMA cannot hold is dropped with a diagnostic: scale tracks,
/// translations of other bones, morph weights, eye tracks, tracks of unmapped bones.
///
/// # Errors
/// The asset has no humanoid, faces −Z (VRM 0.x: migrate it first), or lacks a bone VRMA
/// requires.
pub fn build(
    asset: &Asset,
    generator: &str,
    diagnostics: &mut Diagnostics,
) -> Result<crate::formats::gltf::build::Built, Error> {
    use crate::formats::gltf::build::{self, Scene};
    let humanoid = asset.humanoids.first().ok_or_else(|| {
        Error::unsupported("writing VRMA needs a humanoid bone map (EXT_skeleton_humanoid or VRM)")
    })?;
    if asset.facing != crate::model::asset::Facing::PlusZ {
        return Err(Error::unsupported(
            "writing VRMA needs a rest facing +Z: rebase it first (humanoid::vrma_out::vrma_asset, what convert and retarget do)",
        ));
    }
    humanoid
        .bones
        .require(crate::model::Profile::Vrm1)
        .map_err(|e| Error::unsupported(format!("writing VRMA: {e}")))?;
    let mut clips = Vec::with_capacity(asset.clips.len());
    for clip in &asset.clips {
        clips.push(vrma_clip(asset, clip, diagnostics));
    }
    if clips.len() > 1 {
        diagnostics.info(
            "VRMA_FIRST_CLIP",
            "/animations/0",
            format!(
                "{} clips written; VRMA players play the first, {:?}",
                clips.len(),
                clips.first().map(|c| c.name.as_str()).unwrap_or_default()
            ),
        );
    }
    if asset
        .skeleton
        .rest_locals()
        .iter()
        .any(|t| !t.scale.abs_diff_eq(Vec3::ONE, 1e-6))
    {
        diagnostics.warn(
            "VRMA_REST_SCALE",
            "/nodes",
            "the rest pose has scaled nodes; VRMA strongly recommends none (scale is kept)",
        );
    }
    let mut built = build::build(&Scene {
        skeleton: &asset.skeleton,
        humanoids: &[],
        meshes: &[],
        clips: &clips,
        generator,
        skin_without_mesh: false,
    })?;
    let mut human_bones = serde_json::Map::new();
    for (bone, joint) in humanoid.bones.iter() {
        if matches!(bone, HumanBone::LeftEye | HumanBone::RightEye) {
            continue;
        }
        human_bones.insert(
            bone.as_str().to_owned(),
            serde_json::json!({"node": joint.index()}),
        );
    }
    let extension = serde_json::json!({
        "specVersion": "1.0",
        "humanoid": {"humanBones": serde_json::Value::Object(human_bones)}
    });
    if let Some(root) = built.json.as_object_mut() {
        root.insert(
            "extensionsUsed".into(),
            serde_json::json!([super::VRMC_VRM_ANIMATION]),
        );
        root.insert(
            "extensions".into(),
            serde_json::json!({ super::VRMC_VRM_ANIMATION: extension }),
        );
    }
    Ok(built)
}

/// One clip as VRMA tracks on the asset's own joints (see [`build`]).
fn vrma_clip(asset: &Asset, clip: &Clip, diagnostics: &mut Diagnostics) -> Clip {
    let Some(humanoid) = asset.humanoids.first() else {
        return Clip::new(clip.name.clone());
    };
    let bones = humanoid.bones;
    let skeleton = &asset.skeleton;
    let mut out = Clip::new(clip.name.clone());
    let mut dropped: Vec<String> = Vec::new();
    for track in clip.tracks() {
        let property = track.property();
        let (joint, bone) = match track.target() {
            TrackTarget::Joint(joint) => (joint, bones.bone_of(joint)),
            TrackTarget::Bone(bone) => match bones.get(bone) {
                Some(joint) => (joint, Some(bone)),
                None => {
                    dropped.push(format!("{bone} {property} (bone not mapped)"));
                    continue;
                }
            },
            other => {
                dropped.push(format!("{other} {property}"));
                continue;
            }
        };
        let allowed = match (bone, property) {
            (Some(HumanBone::LeftEye | HumanBone::RightEye), _) => false,
            (_, Property::Weights(_)) => false,
            (Some(_), Property::Scale) => false,
            (Some(b), Property::Translation) => b == HumanBone::Hips,
            _ => true,
        };
        if !allowed {
            dropped.push(format!("{} {property}", skeleton.name(joint)));
            continue;
        }
        let converted = match track.target() {
            TrackTarget::Bone(_) => joint_track_from_bone_track(&asset.skeleton, joint, track),
            _ => Some(track.clone()),
        };
        match converted {
            Some(t) => out.add_track(t),
            None => dropped.push(format!("{} {property}", skeleton.name(joint))),
        }
    }
    if !dropped.is_empty() {
        let more = dropped.len().saturating_sub(8);
        dropped.truncate(8);
        diagnostics.warn(
            "VRMA_TRACK_DROPPED",
            format!("clip {:?}", clip.name),
            format!(
                "{} track(s) VRMA cannot hold dropped: {}{}",
                dropped.len() + more,
                dropped.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ),
        );
    }
    out
}
