//! `humanoid.write`: a character read again from its file, with the arrays the user changed in
//! NumPy put back into the library's model (and into the glTF document it carries), for the
//! library's one write ([`humanoid::ops::write::write`]).
//!
//! What can change: each joint's rest (`rest_translations`, `rest_rotations`, `rest_scales`)
//! and name (`joints`), and the clips (their names, tracks, key times and values; tracks and
//! clips may be added, and tracks removed). The skeleton's shape (`parents`) and the humanoid
//! bone map (`bones`, `bone_joints`) are the file's: a change there is refused, as is a change
//! to the world arrays alone (they follow from the rest ones).
//!
//! A glTF-family file's document is patched, not rebuilt: a changed joint's node gets its new
//! translation, rotation, scale or name; a changed clip's animation gets new samplers for its
//! changed tracks (new accessors in a new buffer), its removed tracks' channels dropped and its
//! other channels, names and extensions kept as they are.

use std::collections::{HashMap, HashSet};

use humanoid::formats::gltf::ext_skeleton_humanoid::{channel_bone, ChannelBone};
use humanoid::formats::gltf::json::{Animation, Float, Index, Root, Target};
use humanoid::formats::gltf::{self, Document};
use humanoid::formats::{vrm, Format};
use humanoid::math::sample::Interpolation;
use humanoid::math::Trs;
use humanoid::model::{
    Asset, Carry, Character, Clip, HumanBone, JointId, Property, RawJoint, Skeleton, Track,
    TrackTarget,
};
use humanoid::Error;
use numpy::{PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The arrays of a `humanoid.Character`, copied out of Python (rows flattened).
pub struct Edits {
    joints: Vec<String>,
    parents: Vec<i32>,
    rest_translations: Vec<f32>,
    rest_rotations: Vec<f32>,
    rest_scales: Vec<f32>,
    world_translations: Vec<f32>,
    world_rotations: Vec<f32>,
    bones: Vec<String>,
    bone_joints: Vec<i32>,
    clips: Vec<ClipArrays>,
}

struct ClipArrays {
    name: String,
    tracks: Vec<TrackArrays>,
}

struct TrackArrays {
    target: String,
    index: Option<i64>,
    bone: Option<String>,
    property: String,
    interpolation: String,
    times: Vec<f32>,
    values: Vec<f32>,
    /// The values' last dimension (components per value).
    width: usize,
}

fn item<'py>(dict: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    dict.get_item(key)?
        .ok_or_else(|| PyKeyError::new_err(key.to_owned()))
}

/// An array's values in row order and its last dimension.
fn array<T: numpy::Element + Copy>(value: &Bound<'_, PyAny>) -> PyResult<(Vec<T>, usize)> {
    let array: PyReadonlyArrayDyn<'_, T> = value.extract()?;
    let width = array.shape().last().copied().unwrap_or(1);
    Ok((array.as_array().iter().copied().collect(), width))
}

fn floats(dict: &Bound<'_, PyDict>, key: &str) -> PyResult<Vec<f32>> {
    Ok(array::<f32>(&item(dict, key)?)?.0)
}

fn ints(dict: &Bound<'_, PyDict>, key: &str) -> PyResult<Vec<i32>> {
    Ok(array::<i32>(&item(dict, key)?)?.0)
}

impl Edits {
    /// From the dict the package makes of a `Character` (float32 and int32 arrays).
    pub fn from_py(dict: &Bound<'_, PyDict>) -> PyResult<Edits> {
        let mut clips = Vec::new();
        for clip in item(dict, "clips")?.cast::<PyList>()?.iter() {
            let clip = clip.cast::<PyDict>()?;
            let mut tracks = Vec::new();
            for track in item(clip, "tracks")?.cast::<PyList>()?.iter() {
                let track = track.cast::<PyDict>()?;
                let (values, width) = array::<f32>(&item(track, "values")?)?;
                tracks.push(TrackArrays {
                    target: item(track, "target")?.extract()?,
                    index: item(track, "index")?.extract()?,
                    bone: item(track, "bone")?.extract()?,
                    property: item(track, "property")?.extract()?,
                    interpolation: item(track, "interpolation")?.extract()?,
                    times: floats(track, "times")?,
                    values,
                    width,
                });
            }
            clips.push(ClipArrays {
                name: item(clip, "name")?.extract()?,
                tracks,
            });
        }
        Ok(Edits {
            joints: item(dict, "joints")?.extract()?,
            parents: ints(dict, "parents")?,
            rest_translations: floats(dict, "rest_translations")?,
            rest_rotations: floats(dict, "rest_rotations")?,
            rest_scales: floats(dict, "rest_scales")?,
            world_translations: floats(dict, "world_translations")?,
            world_rotations: floats(dict, "world_rotations")?,
            bones: item(dict, "bones")?.extract()?,
            bone_joints: ints(dict, "bone_joints")?,
            clips,
        })
    }
}

/// Row `i` of a flattened `rows × W` array.
fn row<const W: usize>(values: &[f32], i: usize) -> Option<[f32; W]> {
    values
        .get(i.checked_mul(W)?..i.checked_add(1)?.checked_mul(W)?)
        .and_then(|r| r.try_into().ok())
}

/// What changed on one joint.
#[derive(Default, Clone, Copy)]
struct Changed {
    translation: bool,
    rotation: bool,
    scale: bool,
    name: bool,
}

impl Changed {
    fn any(self) -> bool {
        self.translation || self.rotation || self.scale || self.name
    }
}

/// Puts the arrays of `edits` into `character` (read again from its file); the glTF document it
/// carries, if any, is patched to match.
///
/// # Errors
/// The arrays do not fit the file (another number of joints, other parents or bone map, world
/// arrays changed alone), a value is not finite, a rotation is zero, a track breaks a track's
/// rules (times not increasing, values of the wrong size) or targets what the file cannot hold.
pub fn apply(character: &mut Character, edits: Edits) -> Result<(), Error> {
    let file = character
        .source
        .as_ref()
        .map_or_else(|| "the file".to_owned(), |p| p.display().to_string());
    let asset = &character.asset;
    let skeleton = &asset.skeleton;
    let n = skeleton.len();
    check_shape(asset, &edits, &file)?;
    let mut rests = Vec::with_capacity(n);
    let mut changed = vec![Changed::default(); n];
    for (i, slot) in changed.iter_mut().enumerate() {
        let joint = skeleton.joint(i);
        let old = skeleton.rest_local(joint);
        let name = edits.joints.get(i).map_or("", String::as_str);
        let t = row::<3>(&edits.rest_translations, i).unwrap_or(old.translation.to_array());
        let r = row::<4>(&edits.rest_rotations, i).unwrap_or(old.rotation.to_array());
        let s = row::<3>(&edits.rest_scales, i).unwrap_or(old.scale.to_array());
        *slot = Changed {
            translation: t != old.translation.to_array(),
            rotation: r != old.rotation.to_array(),
            scale: s != old.scale.to_array(),
            name: name != skeleton.name(joint),
        };
        let joint_name = format!("joint {i} ({name:?})");
        if !t.iter().chain(&s).all(|v| v.is_finite()) {
            return Err(Error::unsupported(format!(
                "rest_translations / rest_scales of {joint_name}: not finite"
            )));
        }
        let rotation = if slot.rotation {
            // The library's own quaternion type, set from the array.
            let mut q = old.rotation;
            [q.x, q.y, q.z, q.w] = r;
            if !q.is_finite() || q.length_squared() <= 0.0 {
                return Err(Error::unsupported(format!(
                    "rest_rotations of {joint_name}: {r:?} is no rotation (a quaternion [x, y, z, w] of length 1)"
                )));
            }
            q.normalize()
        } else {
            old.rotation
        };
        let (mut translation, mut scale) = (old.translation, old.scale);
        [translation.x, translation.y, translation.z] = t;
        [scale.x, scale.y, scale.z] = s;
        rests.push(Trs::new(translation, rotation, scale));
    }
    let rebuilt = if changed.iter().any(|c| c.any()) {
        let raw = (0..n)
            .map(|i| {
                let joint = skeleton.joint(i);
                RawJoint {
                    name: edits.joints.get(i).cloned().unwrap_or_default(),
                    parent: skeleton.parent(joint).map(JointId::index),
                    rest: rests.get(i).copied().unwrap_or_default(),
                }
            })
            .collect();
        let (rebuilt, ids) =
            Skeleton::from_raw(raw).map_err(|e| Error::unsupported(e.to_string()))?;
        if ids.iter().enumerate().any(|(i, id)| id.index() != i) {
            return Err(Error::unsupported(format!(
                "{file}: the skeleton read does not keep its joint order when rebuilt (please report this)"
            )));
        }
        Some(rebuilt)
    } else {
        None
    };
    check_worlds(skeleton, rebuilt.as_ref(), &edits)?;
    let clips = clips_of(&edits, n)?;
    for (k, clip) in clips.iter().enumerate() {
        if asset.clips.get(k) != Some(clip) {
            check_one_track_each(k, clip)?;
        }
    }
    let clips_changed = clips != asset.clips;
    if let Some(document) = character.carry.get::<Document>() {
        if rebuilt.is_some() || clips_changed {
            let mut document = document.clone();
            patch_nodes(&mut document, asset, &changed, &rests, &edits.joints);
            character.carry = if clips_changed && vrm::flavour(&document) == Some(Format::Vrma) {
                // A VRMA's clip is read from its own humanoid's nodes: the model writes it.
                Carry::default()
            } else {
                if clips_changed {
                    patch_clips(&mut document, asset, &clips, &file)?;
                }
                Carry::new(document)
            };
        }
    }
    if let Some(rebuilt) = rebuilt {
        character.asset.skeleton = rebuilt;
    }
    character.asset.clips = clips;
    Ok(())
}

/// The arrays have the file's joints, parents and humanoid bone map.
fn check_shape(asset: &Asset, edits: &Edits, file: &str) -> Result<(), Error> {
    let skeleton = &asset.skeleton;
    let n = skeleton.len();
    let rows = [
        ("joints", edits.joints.len(), 1),
        ("parents", edits.parents.len(), 1),
        ("rest_translations", edits.rest_translations.len(), 3),
        ("rest_rotations", edits.rest_rotations.len(), 4),
        ("rest_scales", edits.rest_scales.len(), 3),
        ("world_translations", edits.world_translations.len(), 3),
        ("world_rotations", edits.world_rotations.len(), 4),
    ];
    for (name, len, width) in rows {
        if len != n.saturating_mul(width) {
            return Err(Error::unsupported(format!(
                "{name}: {} values for the {n} joints of {file} ({width} each): write changes the arrays' values, not the skeleton's joints",
                len
            )));
        }
    }
    let parents = crate::character::parents(asset);
    if let Some(i) = (0..n).find(|&i| parents.get(i) != edits.parents.get(i)) {
        return Err(Error::unsupported(format!(
            "parents[{i}] was changed: write keeps the skeleton's shape as read from {file} (each joint under its parent); change the rest arrays to move a joint"
        )));
    }
    let (bones, joints) = crate::character::bone_map(asset);
    if bones != edits.bones || joints != edits.bone_joints {
        return Err(Error::unsupported(format!(
            "bones / bone_joints were changed: the humanoid bone map is the one read from {file} (read it with map= or mappings= to map it otherwise)"
        )));
    }
    Ok(())
}

/// The world arrays are as read, or follow the new rest: a world array changed on its own would
/// be lost, so it is refused.
fn check_worlds(
    skeleton: &Skeleton,
    rebuilt: Option<&Skeleton>,
    edits: &Edits,
) -> Result<(), Error> {
    let new = rebuilt.unwrap_or(skeleton);
    for i in 0..skeleton.len() {
        let joint = skeleton.joint(i);
        let (old, now) = (skeleton.rest_world(joint), new.rest_world(joint));
        let t = row::<3>(&edits.world_translations, i).unwrap_or(old.translation.to_array());
        let r = row::<4>(&edits.world_rotations, i).unwrap_or(old.rotation.to_array());
        if t == old.translation.to_array() && r == old.rotation.to_array() {
            continue;
        }
        let (mut translation, mut rotation) = (now.translation, now.rotation);
        [translation.x, translation.y, translation.z] = t;
        [rotation.x, rotation.y, rotation.z, rotation.w] = r;
        let near = translation.distance(now.translation) < 1e-4
            && rotation.dot(now.rotation).abs() > 1.0 - 1e-6;
        if !near {
            return Err(Error::unsupported(format!(
                "world_translations / world_rotations of joint {i} ({:?}) were changed: they follow from the rest arrays (local to the parent), which write takes: change rest_translations / rest_rotations / rest_scales",
                skeleton.name(joint)
            )));
        }
    }
    Ok(())
}

/// The clips of `edits` as the library's.
fn clips_of(edits: &Edits, joints: usize) -> Result<Vec<Clip>, Error> {
    let mut clips = Vec::with_capacity(edits.clips.len());
    for (c, arrays) in edits.clips.iter().enumerate() {
        let mut clip = Clip::new(arrays.name.clone());
        for (t, track) in arrays.tracks.iter().enumerate() {
            let at = || format!("clips[{c}].tracks[{t}] (clip {:?})", arrays.name);
            let refuse = |what: String| Error::unsupported(format!("{}: {what}", at()));
            let small = |what: &str| {
                track
                    .index
                    .and_then(|i| u16::try_from(i).ok())
                    .ok_or_else(|| refuse(format!("a {what} track needs an index (0 to 65535)")))
            };
            let target = match track.target.as_str() {
                "joint" => {
                    let joint = track
                        .index
                        .and_then(|i| usize::try_from(i).ok())
                        .filter(|&i| i < joints)
                        .and_then(JointId::from_index)
                        .ok_or_else(|| {
                            refuse(format!(
                                "index={:?}: a joint track needs the index of one of the {joints} joints",
                                track.index
                            ))
                        })?;
                    TrackTarget::Joint(joint)
                }
                "bone" => {
                    let name = track.bone.as_deref().unwrap_or_default();
                    let bone = name.parse::<HumanBone>().map_err(|_| {
                        refuse(format!("bone={name:?} is no humanoid bone name (hips, spine, leftUpperArm, …)"))
                    })?;
                    TrackTarget::Bone(bone)
                }
                "expression" => TrackTarget::Expression(small("expression")?),
                "mesh" => TrackTarget::Mesh(small("mesh")?),
                "lookAt" => TrackTarget::LookAt,
                other => {
                    return Err(refuse(format!(
                        "target={other:?}: expected \"joint\", \"bone\", \"expression\", \"lookAt\" or \"mesh\""
                    )))
                }
            };
            let property = match track.property.as_str() {
                "translation" => Property::Translation,
                "rotation" => Property::Rotation,
                "scale" => Property::Scale,
                "weights" => Property::Weights(track.width),
                other => {
                    return Err(refuse(format!(
                        "property={other:?}: expected \"translation\", \"rotation\", \"scale\" or \"weights\""
                    )))
                }
            };
            if property.components() != track.width {
                return Err(refuse(format!(
                    "values hold {} components per key, and a {} track {}",
                    track.width,
                    property,
                    property.components()
                )));
            }
            let interpolation = match track.interpolation.as_str() {
                "STEP" => Interpolation::Step,
                "LINEAR" => Interpolation::Linear,
                "CUBICSPLINE" => Interpolation::CubicSpline,
                other => {
                    return Err(refuse(format!(
                        "interpolation={other:?}: expected \"STEP\", \"LINEAR\" or \"CUBICSPLINE\""
                    )))
                }
            };
            let track = Track::new(
                target,
                property,
                interpolation,
                track.times.clone(),
                track.values.clone(),
            )
            .map_err(|e| refuse(e.to_string()))?;
            clip.add_track(track);
        }
        clips.push(clip);
    }
    Ok(clips)
}

/// A changed clip animates each property of each target once.
fn check_one_track_each(k: usize, clip: &Clip) -> Result<(), Error> {
    let mut seen = HashSet::new();
    for track in clip.tracks() {
        if !seen.insert((track.target(), track.property().as_str())) {
            return Err(Error::unsupported(format!(
                "clips[{k}] ({:?}): two tracks animate the {} of {}: keep one",
                clip.name,
                track.property(),
                track.target()
            )));
        }
    }
    Ok(())
}

fn json_floats<const W: usize>(values: [f32; W]) -> [Float; W] {
    values.map(|v| Float::from(f64::from(v)))
}

/// The changed joints' nodes: new translation, rotation, scale or name (a node given by a
/// matrix gets all three).
fn patch_nodes(
    document: &mut Document,
    asset: &Asset,
    changed: &[Changed],
    rests: &[Trs],
    names: &[String],
) {
    for (i, change) in changed.iter().enumerate().filter(|(_, c)| c.any()) {
        let joint = asset.skeleton.joint(i);
        let (Some(node), Some(rest)) = (
            document.root.nodes.get_mut(asset.source_index(joint)),
            rests.get(i),
        ) else {
            continue;
        };
        if change.name {
            node.name = names.get(i).cloned();
        }
        let whole =
            node.matrix.is_some() && (change.translation || change.rotation || change.scale);
        if whole {
            node.matrix = None;
        }
        if whole || change.translation {
            node.translation = Some(json_floats(rest.translation.to_array()));
        }
        if whole || change.rotation {
            node.rotation = Some(json_floats(rest.rotation.to_array()));
        }
        if whole || change.scale {
            node.scale = Some(json_floats(rest.scale.to_array()));
        }
    }
}

/// What a glTF channel animates: a node or an EXT_skeleton_humanoid bone, and the path.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Aim {
    Node(usize),
    Bone(HumanBone),
}

type Key = (Aim, String);

fn channel_key(target: &Target) -> Option<Key> {
    let aim = match channel_bone(target.extensions.as_ref()) {
        ChannelBone::Bone(bone) => Aim::Bone(bone),
        ChannelBone::None => Aim::Node(target.node?.as_usize()),
        ChannelBone::Invalid(_) => return None,
    };
    Some((aim, target.path.clone()))
}

fn track_key(track: &Track, asset: &Asset) -> Option<Key> {
    let aim = match track.target() {
        TrackTarget::Joint(joint) => Aim::Node(asset.source_index(joint)),
        TrackTarget::Bone(bone) => Aim::Bone(bone),
        _ => return None,
    };
    Some((aim, track.property().as_str().to_owned()))
}

/// The animations the clips were read from, in clip order (a KHR_character expression's or
/// reference pose's animation is no clip).
fn clip_animations(root: &Root) -> Vec<usize> {
    let expressions = gltf::khr_character::expression_animations(root);
    root.animations
        .iter()
        .enumerate()
        .filter(|(a, animation)| {
            !expressions.contains(a)
                && gltf::khr_character::reference_pose_type(&animation.other).is_none()
        })
        .map(|(a, _)| a)
        .collect()
}

/// What becomes of one clip in the document.
enum Patch<'a> {
    /// As read.
    Same,
    /// Animation `a` gets the changed tracks (`built`, when any), loses the channels of the
    /// `removed` ones, and takes the clip's name.
    Changed {
        a: usize,
        old: &'a Clip,
        new: &'a Clip,
        removed: HashSet<Key>,
        built: bool,
    },
    /// A new animation.
    Added,
}

/// Each changed clip into its animation; clips added after the file's as new animations. The
/// new keys go to one new buffer.
fn patch_clips(
    document: &mut Document,
    asset: &Asset,
    clips: &[Clip],
    file: &str,
) -> Result<(), Error> {
    let animations = clip_animations(&document.root);
    if clips.len() < asset.clips.len() {
        return Err(Error::unsupported(format!(
            "{} clips for the {} of {file}: write changes, adds and renames clips in a glTF-family file, it does not remove its animations",
            clips.len(),
            asset.clips.len()
        )));
    }
    let mut patches = Vec::with_capacity(clips.len());
    let mut built = Vec::new();
    for (k, clip) in clips.iter().enumerate() {
        let patch = match (asset.clips.get(k), animations.get(k)) {
            (Some(old), _) if old == clip => Patch::Same,
            (Some(old), Some(&a)) => {
                let (changed, removed) = changed_tracks(old, clip, asset)?;
                let any = !changed.is_empty();
                if any {
                    built.push(changed);
                }
                Patch::Changed {
                    a,
                    old,
                    new: clip,
                    removed,
                    built: any,
                }
            }
            _ if clip.is_empty() => {
                return Err(Error::unsupported(format!(
                    "clips[{k}] ({:?}) has no track: a glTF animation needs one",
                    clip.name
                )));
            }
            _ => {
                built.push(clip.clone());
                Patch::Added
            }
        };
        patches.push(patch);
    }
    let first = document.root.animations.len();
    if !built.is_empty() {
        let node_of = |joint: JointId| asset.source_index(joint);
        gltf::build::append_clips(document, &built, &node_of)?;
    }
    let mut built = document.root.animations.split_off(first).into_iter();
    for patch in patches {
        match patch {
            Patch::Same => {}
            Patch::Changed {
                a,
                old,
                new,
                removed,
                built: any,
            } => {
                let channels = if any { built.next() } else { None };
                patch_animation(document, a, old, new, &removed, channels.as_deref())?;
            }
            Patch::Added => {
                if let Some(animation) = built.next() {
                    document.root.animations.push(animation);
                }
            }
        }
    }
    Ok(())
}

/// The tracks of `new` that `old` (as read) does not have as they are, and the keys of the
/// tracks `new` no longer has.
///
/// # Errors
/// A track of `new` that a glTF channel cannot hold, or two that animate the same thing.
fn changed_tracks(old: &Clip, new: &Clip, asset: &Asset) -> Result<(Clip, HashSet<Key>), Error> {
    let old_tracks: HashMap<Key, &Track> = old
        .tracks()
        .iter()
        .filter_map(|t| Some((track_key(t, asset)?, t)))
        .collect();
    let mut changed = Clip::new(new.name.clone());
    let mut present: HashSet<Key> = HashSet::new();
    for track in new.tracks() {
        let key = track_key(track, asset).ok_or_else(|| {
            Error::unsupported(format!(
                "clip {:?}: a {} track cannot be written into the animations of a glTF file (joint and bone tracks can)",
                new.name,
                track.target()
            ))
        })?;
        if old_tracks.get(&key) != Some(&track) {
            changed.add_track(track.clone());
        }
        if !present.insert(key) {
            return Err(Error::unsupported(format!(
                "clip {:?}: two tracks animate the {} of {}: keep one",
                new.name,
                track.property(),
                track.target()
            )));
        }
    }
    let removed = old_tracks
        .into_keys()
        .filter(|k| !present.contains(k))
        .collect();
    Ok((changed, removed))
}

/// Clip `new` (read as `old`) into animation `a`: the samplers of `built` (the animation made
/// of its changed tracks) for those tracks' channels (added where the animation had none), the
/// channels of the `removed` tracks dropped, everything else kept.
fn patch_animation(
    document: &mut Document,
    a: usize,
    old: &Clip,
    new: &Clip,
    removed: &HashSet<Key>,
    built: Option<&Animation>,
) -> Result<(), Error> {
    let Some(animation) = document.root.animations.get_mut(a) else {
        return Err(Error::unsupported(format!(
            "clip {:?}: its animation {a} is gone",
            new.name
        )));
    };
    if new.name != old.name {
        animation.name = Some(new.name.clone());
    }
    animation
        .channels
        .retain(|c| channel_key(&c.target).is_none_or(|k| !removed.contains(&k)));
    for channel in built.iter().flat_map(|b| b.channels.iter()) {
        let (Some(key), Some(sampler)) = (
            channel_key(&channel.target),
            built.and_then(|b| b.samplers.get(channel.sampler.as_usize())),
        ) else {
            continue;
        };
        animation.samplers.push(sampler.clone());
        let index = Index::try_from(animation.samplers.len().saturating_sub(1))
            .map_err(|e| Error::unsupported(format!("too many samplers: {e}")))?;
        match animation
            .channels
            .iter_mut()
            .find(|c| channel_key(&c.target).as_ref() == Some(&key))
        {
            Some(existing) => existing.sampler = index,
            None => {
                let mut channel = channel.clone();
                channel.sampler = index;
                animation.channels.push(channel);
            }
        }
    }
    if animation.channels.is_empty() {
        return Err(Error::unsupported(format!(
            "clip {:?} has no track left: a glTF animation needs one (keep a track)",
            new.name
        )));
    }
    drop_unused_samplers(animation);
    Ok(())
}

/// Removes the samplers no channel uses (the ones the changed tracks replaced).
fn drop_unused_samplers(animation: &mut Animation) {
    let count = animation.samplers.len();
    if animation
        .channels
        .iter()
        .any(|c| c.sampler.as_usize() >= count)
    {
        return;
    }
    let mut used = vec![false; count];
    for channel in &animation.channels {
        if let Some(slot) = used.get_mut(channel.sampler.as_usize()) {
            *slot = true;
        }
    }
    let mut new_index = vec![0usize; count];
    let mut kept = Vec::with_capacity(count);
    for (i, sampler) in std::mem::take(&mut animation.samplers)
        .into_iter()
        .enumerate()
    {
        if used.get(i).copied().unwrap_or(false) {
            if let Some(slot) = new_index.get_mut(i) {
                *slot = kept.len();
            }
            kept.push(sampler);
        }
    }
    animation.samplers = kept;
    for channel in &mut animation.channels {
        let index = new_index
            .get(channel.sampler.as_usize())
            .copied()
            .unwrap_or(0);
        if let Ok(index) = Index::try_from(index) {
            channel.sampler = index;
        }
    }
}
