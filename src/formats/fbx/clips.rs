//! FBX animation stacks as clips: ufbx bakes each into linear keys (glTF's LINEAR, slerp for
//! rotations) at the curves' own keys plus samples at the scene's frame rate wherever a curve is
//! not linear in those terms; the values at every key are ufbx's exact evaluation.

use std::path::Path;

use crate::error::{Diagnostics, Error, Location};
use crate::math::sample::Interpolation;
use crate::math::trs::Trs;
use crate::model::asset::Asset;
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::skeleton::JointId;

/// The rate used when the file names none.
const DEFAULT_FPS: f64 = 30.0;

/// Every animation stack of `scene` as a clip on `asset`'s joints (`joints`: each ufbx node's).
/// A stack that keys no node makes no clip (`FBX_CLIP_EMPTY`).
///
/// # Errors
/// ufbx cannot bake a stack (memory limit); a baked track breaks a track invariant.
pub fn bake_all(
    scene: &ufbx::Scene,
    asset: &Asset,
    joints: &super::NodeJoints,
    posed: &[(JointId, Trs)],
    path: &Path,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<Clip>, Error> {
    let file_fps = scene.settings.frames_per_second;
    let fps = if file_fps.is_finite() && file_fps > 0.0 {
        file_fps
    } else {
        DEFAULT_FPS
    };
    let mut clips = Vec::with_capacity(scene.anim_stacks.len());
    for stack in scene.anim_stacks.iter() {
        let options = ufbx::BakeOpts {
            resample_rate: fps,
            minimum_sample_rate: fps,
            max_keyframe_segments: 4096,
            // No keys before the stack's start or after its end.
            trim_start_time: true,
            ..Default::default()
        };
        let baked = ufbx::bake_anim(scene, &stack.anim, options).map_err(|e| {
            Error::invalid_coded(
                "FBX_INVALID",
                path,
                Location::File,
                format!(
                    "animation stack {:?}: ufbx cannot bake it: {e:?}",
                    &*stack.element.name
                ),
            )
        })?;
        let mut clip = clip_of(&baked, &stack.element.name, asset, joints, false, path)?;
        if clip.tracks().is_empty() && !baked.nodes.is_empty() {
            // The stack keys nodes but holds them at their rest: the keys are the clip (a T-pose
            // take, a rest take), one key per channel.
            clip = clip_of(&baked, &stack.element.name, asset, joints, true, path)?;
        }
        if !clip.tracks().is_empty() {
            hold_posed(&mut clip, asset, posed, path)?;
        }
        let weights = baked
            .elements
            .iter()
            .flat_map(|e| e.props.iter())
            .filter(|p| &*p.name == "DeformPercent" && !p.constant_value)
            .count();
        if weights > 0 {
            diagnostics.warn(
                "FBX_BLEND_SHAPES_DROPPED",
                format!("clip {:?}", clip.name),
                format!("{weights} animated blend shape weight(s) not read: the shapes are morph targets at their default weights"),
            );
        }
        if clip.tracks().is_empty() {
            diagnostics.info(
                "FBX_CLIP_EMPTY",
                format!("clip {:?}", clip.name),
                "the animation stack keys no node: no clip is made of it",
            );
            continue;
        }
        diagnostics.info(
            "FBX_ANIMATION_SAMPLED",
            format!("clip {:?}", clip.name),
            format!(
                "{:.3} s baked to linear keys: the curves' keys, plus samples at {fps} per second where a curve is not linear",
                clip.duration()
            ),
        );
        clips.push(clip);
    }
    Ok(clips)
}

/// One baked stack as a clip named `name`. A constant channel is a track (one key) only where
/// its value is not the joint's rest, unless `keep_constant`.
fn clip_of(
    baked: &ufbx::BakedAnim,
    name: &str,
    asset: &Asset,
    joints: &super::NodeJoints,
    keep_constant: bool,
    path: &Path,
) -> Result<Clip, Error> {
    let mut clip = Clip::new(name.to_owned());
    for node in baked.nodes.iter() {
        let Some(joint) = joints.by_index(node.typed_id as usize) else {
            continue; // the scene root, where it is not a joint
        };
        let start = baked.playback_time_begin;
        let vec3 = |keys: &[ufbx::BakedVec3]| -> (Vec<f32>, Vec<f32>) {
            let times = keys.iter().map(|k| seconds(k.time - start)).collect();
            let values = keys
                .iter()
                .flat_map(|k| super::vec3(k.value).to_array())
                .collect();
            (times, values)
        };
        // A constant channel is a track only where its value is not the rest's: one key.
        let rest = asset.skeleton.rest_local(joint);
        let moved = |a: glam::Vec3, b: glam::Vec3| a.distance(b) > 1e-6;
        let first_vec3 = |keys: &[ufbx::BakedVec3]| keys.first().map(|k| super::vec3(k.value));
        if keep_constant
            || !node.constant_translation
            || first_vec3(&node.translation_keys).is_some_and(|v| moved(v, rest.translation))
        {
            let (times, values) = vec3(&node.translation_keys);
            add(&mut clip, joint, Property::Translation, times, values, path)?;
        }
        let first_quat = node.rotation_keys.first().map(|k| super::quat(k.value));
        if keep_constant
            || !node.constant_rotation
            || first_quat.is_some_and(|q| q.dot(rest.rotation).abs() < 1.0 - 1e-6)
        {
            let times = node
                .rotation_keys
                .iter()
                .map(|k| seconds(k.time - start))
                .collect();
            let mut previous = glam::Quat::IDENTITY;
            let values = node
                .rotation_keys
                .iter()
                .flat_map(|k| {
                    // Keep neighbouring keys in one hemisphere: slerp then takes the short way,
                    // as ufbx's own evaluation between them does.
                    let mut q = super::quat(k.value);
                    if q.dot(previous) < 0.0 {
                        q = -q;
                    }
                    previous = q;
                    q.to_array()
                })
                .collect();
            add(&mut clip, joint, Property::Rotation, times, values, path)?;
        }
        if keep_constant
            || !node.constant_scale
            || first_vec3(&node.scale_keys).is_some_and(|v| moved(v, rest.scale))
        {
            let (times, values) = vec3(&node.scale_keys);
            add(&mut clip, joint, Property::Scale, times, values, path)?;
        }
    }
    Ok(clip)
}

/// Joints whose rest is the bind pose but whose own transform is elsewhere stand at their own
/// transform in a clip that does not animate them, as ufbx (and the authoring tool) evaluates
/// the take: one key for each such channel.
fn hold_posed(
    clip: &mut Clip,
    asset: &Asset,
    posed: &[(JointId, Trs)],
    path: &Path,
) -> Result<(), Error> {
    for &(joint, own) in posed {
        let rest = asset.skeleton.rest_local(joint);
        let has = |property| {
            clip.tracks()
                .iter()
                .any(|t| t.target() == TrackTarget::Joint(joint) && t.property() == property)
        };
        let mut holds = Vec::new();
        if !has(Property::Translation) && own.translation.distance(rest.translation) > 1e-6 {
            holds.push((Property::Translation, own.translation.to_array().to_vec()));
        }
        if !has(Property::Rotation) && own.rotation.dot(rest.rotation).abs() < 1.0 - 1e-6 {
            holds.push((Property::Rotation, own.rotation.to_array().to_vec()));
        }
        if !has(Property::Scale) && own.scale.distance(rest.scale) > 1e-6 {
            holds.push((Property::Scale, own.scale.to_array().to_vec()));
        }
        for (property, values) in holds {
            add(clip, joint, property, vec![0.0], values, path)?;
        }
    }
    Ok(())
}

fn seconds(t: f64) -> f32 {
    crate::math::num::to_f32(t.max(0.0))
}

fn add(
    clip: &mut Clip,
    joint: JointId,
    property: Property,
    times: Vec<f32>,
    values: Vec<f32>,
    path: &Path,
) -> Result<(), Error> {
    let track = Track::new(
        TrackTarget::Joint(joint),
        property,
        Interpolation::Linear,
        times,
        values,
    )
    .map_err(|e| {
        Error::invalid_coded(
            "FBX_INVALID",
            path,
            Location::File,
            format!(
                "clip {:?}: {property} of joint {}: {e}",
                clip.name,
                joint.index()
            ),
        )
    })?;
    clip.add_track(track);
    Ok(())
}
