//! Animation: interpolators ROUTEd to joints, grouped by the TimeSensor that drives them, and
//! `HAnimMotion` frame data, as clips on the canonical skeleton.
//!
//! ## Overview
//!
//! **Interpolators.** An `OrientationInterpolator` or `PositionInterpolator` whose
//! `value_changed` is ROUTEd to a joint's `rotation`, `translation` or `scale` (`set_rotation`,
//! ...) becomes a LINEAR track on that joint, in the clip of the TimeSensor whose
//! `fraction_changed` drives its `set_fraction` (a clip per TimeSensor, named after its DEF).
//! Key times are `key × cycleInterval` seconds. X3D interpolation is piecewise linear, and an
//! OrientationInterpolator takes the shortest arc between keys: the same as a LINEAR glTF
//! rotation track (each quaternion is put on the same side as the previous one). A repeated key
//! (a jump) is kept by moving the second key one f32 step later; keys that go back in time drop
//! the track. Interpolators no TimeSensor drives make a clip `unclocked` with a cycle of 1 s.
//! Every dropped route is reported.
//!
//! **Displacer weights.** A `ScalarInterpolator` ROUTEd to a displacer's `weight` (a displacer
//! the mesh reader made a morph target) becomes, in its TimeSensor's clip, a LINEAR
//! [`TrackTarget::Mesh`] `weights` track holding every target weight of that mesh at each key
//! (the targets no interpolator drives at their default weight).
//!
//! **HAnimMotion** (ISO/IEC 19774-2): `joints` names one joint per channel group, `channels`
//! gives each group's count and channel names, `values` holds the frames one after the other.
//! As X_ITE reads it: rotation channels are degrees, composed in the order they are listed (the
//! first listed outermost, so `Zrotation Xrotation Yrotation` is `Rz·Rx·Ry`); position channels
//! set the joint's `translation` (unlisted components 0); frame `i` is at `i × frameDuration`;
//! `HumanoidRoot` also names `humanoid_root`, `IGNORED` groups are skipped.
//!
//! **Values.** A joint's rotation track is its `rotation` field; its translation track is its
//! local translation `translation + center − parent center`. Both take the humanoid transform
//! the reader bakes into the skeleton: the scale on every translation, the rotation and
//! translation on the root's.

use std::collections::HashMap;

use glam::{DQuat, DVec3};

use super::classic::{Note, ParseError};
use super::fields::Fields;
use super::figure::{Figure, HumanoidTransform};
use super::interface::event_field;
use super::names;
use super::tree::{NodeId, Scene};
use crate::math::num::to_f32;
use crate::math::sample::Interpolation;
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::skeleton::JointId;

/// The most values the interpolator tracks of one file may hold together (an interpolator ROUTEd
/// to many joints is copied into each joint's track).
pub(crate) const MAX_TRACK_VALUES: usize = 1 << 26;

/// What a joint's animated values need to become local transforms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct JointFrame {
    /// The canonical joint.
    pub joint: JointId,
    /// `center − parent center`.
    pub offset: DVec3,
    /// Whether it is a root (the humanoid's rotation and translation apply).
    pub root: bool,
    /// The humanoid's transform.
    pub humanoid: HumanoidTransform,
    /// The joint's `scaleOrientation` (`SR`).
    pub orientation: DQuat,
    /// The parent joint's `scaleOrientation` (the identity for a root).
    pub parent_orientation: DQuat,
}

impl JointFrame {
    /// The local translation for a `translation` field value.
    ///
    /// X3D's `T(t+c)·R·SR·S·SR⁻¹·T(−c)` ends in `SR⁻¹`, which the canonical joint (a
    /// translation, rotation and scale along its own axes) cannot end in: it moves into each
    /// child instead, so a child's translation and rotation start with the parent's `SR⁻¹`
    /// and the joint's rotation ends with its own `SR` (its scale then stretches its own axes).
    pub fn translation(&self, value: DVec3) -> DVec3 {
        let local = self.humanoid.scale * (value + self.offset);
        if self.root {
            self.humanoid.translation + self.humanoid.rotation * local
        } else {
            self.parent_orientation.inverse() * local
        }
    }

    /// The local rotation for a `rotation` field value (see [`JointFrame::translation`]).
    pub fn rotation(&self, value: DQuat) -> DQuat {
        let turned = if self.root {
            self.humanoid.rotation * value
        } else {
            self.parent_orientation.inverse() * value
        };
        turned * self.orientation
    }
}

/// Which joint property a route sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Channel {
    Rotation,
    Translation,
    Scale,
}

/// Where a displacer's `weight` lives: morph target `target` of mesh `mesh` (an index into
/// the meshes read beside the asset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MorphSlot {
    /// The mesh.
    pub mesh: u16,
    /// The target.
    pub target: usize,
}

/// The displacers that became morph targets, and each mesh's default weights (what a weight
/// track holds for the targets no interpolator drives).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Morphs {
    /// Displacer node → its targets (one per mesh whose vertices it moves).
    pub slots: HashMap<NodeId, Vec<MorphSlot>>,
    /// Per mesh, the default weight of each target.
    pub defaults: Vec<Vec<f32>>,
}

/// One interpolator's decoded keys.
struct Keys {
    fractions: Vec<f64>,
    /// 4 (axis-angle) or 3 numbers per key.
    values: Vec<f64>,
    /// Radians per angle unit of the file (`UNIT angle`).
    angle_unit: f64,
}

/// The clips of a scene: one per TimeSensor driving joints, `unclocked` for interpolators no
/// TimeSensor drives, one per HAnimMotion.
///
/// # Errors
/// An interpolator whose `key` and `keyValue` counts disagree, or an HAnimMotion whose
/// `channels` cannot be read.
pub(crate) fn clips(
    scene: &Scene<'_>,
    frames: &HashMap<NodeId, JointFrame>,
    morphs: &Morphs,
    figures: &[(Figure, Vec<JointFrame>)],
    notes: &mut Vec<Note>,
) -> Result<Vec<Clip>, ParseError> {
    check_interpolators(scene)?;
    let mut clips = interpolator_clips(scene, frames, morphs, notes);
    for (figure, joint_frames) in figures {
        for motion in &figure.motions {
            if let Some(clip) = motion_clip(scene, *motion, figure, joint_frames, notes)? {
                clips.push(clip);
            }
        }
    }
    Ok(clips)
}

fn is_interpolator(type_name: &str) -> Option<usize> {
    match type_name {
        "OrientationInterpolator" => Some(4),
        "PositionInterpolator" => Some(3),
        "ScalarInterpolator" => Some(1),
        _ => None,
    }
}

/// Every interpolator of the scene has as many keys as key values.
fn check_interpolators(scene: &Scene<'_>) -> Result<(), ParseError> {
    for (index, node) in scene.nodes.iter().enumerate() {
        let Some(components) = is_interpolator(node.type_name) else {
            continue;
        };
        let Some(f) = NodeId::from_index(index).and_then(|id| Fields::of(scene, id)) else {
            continue;
        };
        let (Some(key), Some(values)) = (f.numbers("key"), f.numbers("keyValue")) else {
            continue;
        };
        if values.len() / components != key.len() {
            let name = node.def.unwrap_or(node.type_name);
            return Err(ParseError {
                at: f.at("keyValue"),
                message: format!(
                    "{} {name}: {} keys but {} key values (each key needs one value)",
                    node.type_name,
                    key.len(),
                    values.len() / components
                ),
            });
        }
    }
    Ok(())
}

fn keys(f: &Fields<'_, '_>) -> Keys {
    Keys {
        fractions: f.numbers("key").unwrap_or(&[]).to_vec(),
        values: f.numbers("keyValue").unwrap_or(&[]).to_vec(),
        angle_unit: f.angle_unit(),
    }
}

fn clip_name(scene: &Scene<'_>, id: NodeId, fallback: &str) -> String {
    let Some(f) = Fields::of(scene, id) else {
        return fallback.to_owned();
    };
    f.node()
        .def
        .map(str::to_owned)
        .or_else(|| {
            f.string("description")
                .filter(|d| !d.is_empty())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| fallback.to_owned())
}

/// What an interpolator sets: joint properties, and displacer weights (morph targets).
#[derive(Debug, Clone, Default)]
struct Drives {
    joints: Vec<(JointFrame, Channel)>,
    weights: Vec<MorphSlot>,
}

fn interpolator_clips(
    scene: &Scene<'_>,
    frames: &HashMap<NodeId, JointFrame>,
    morphs: &Morphs,
    notes: &mut Vec<Note>,
) -> Vec<Clip> {
    // interpolator → the joints and channels, and the displacer weights, it sets.
    let mut drives: HashMap<NodeId, Drives> = HashMap::new();
    // timer → interpolators.
    let mut timers: Vec<(NodeId, Vec<NodeId>)> = Vec::new();
    let mut ignored = 0usize;
    for route in &scene.routes {
        let (Some(from), Some(to)) = (scene.node(route.from), scene.node(route.to)) else {
            continue;
        };
        let morph = morphs.slots.get(&route.to);
        if is_interpolator(from.type_name).is_some() && event_field(route.from_field) == "value" {
            match (frames.get(&route.to), event_field(route.to_field)) {
                (None, "weight") if from.type_name == "ScalarInterpolator" && morph.is_some() => {
                    let entry = drives.entry(route.from).or_default();
                    entry.weights.extend(morph.into_iter().flatten().copied());
                }
                (Some(frame), "rotation") if from.type_name == "OrientationInterpolator" => {
                    let entry = drives.entry(route.from).or_default();
                    entry.joints.push((*frame, Channel::Rotation));
                }
                (Some(frame), "translation") if from.type_name == "PositionInterpolator" => {
                    let entry = drives.entry(route.from).or_default();
                    entry.joints.push((*frame, Channel::Translation));
                }
                (Some(frame), "scale") if from.type_name == "PositionInterpolator" => {
                    let entry = drives.entry(route.from).or_default();
                    entry.joints.push((*frame, Channel::Scale));
                }
                (Some(_), field) => notes.push(Note {
                    at: route.at,
                    code: "HANIM_ROUTE_IGNORED",
                    message: format!(
                        "ROUTE from {} to the joint's `{field}`: only rotation, translation and scale are animated",
                        from.type_name
                    ),
                }),
                (None, _) => ignored += 1,
            }
        }
        if from.type_name == "TimeSensor"
            && event_field(route.from_field) == "fraction"
            && is_interpolator(to.type_name).is_some()
        {
            match timers.iter_mut().find(|(t, _)| *t == route.from) {
                Some((_, list)) if list.contains(&route.to) => {}
                Some((_, list)) => list.push(route.to),
                None => timers.push((route.from, vec![route.to])),
            }
        }
    }
    if ignored > 0 {
        notes.push(Note {
            at: 0,
            code: "HANIM_ROUTE_IGNORED",
            message: format!(
                "{ignored} interpolator ROUTE(s) to nodes that are neither joints nor displacers (not animated in the model)"
            ),
        });
    }
    timers.sort_by_key(|(t, _)| *t);
    let mut budget = MAX_TRACK_VALUES;
    let mut clocked: Vec<NodeId> = Vec::new();
    let mut clips = Vec::new();
    for (timer, interpolators) in &timers {
        let cycle = Fields::of(scene, *timer).map_or(1.0, |f| f.number("cycleInterval", 1.0));
        let cycle = if cycle.is_finite() && cycle > 0.0 {
            cycle
        } else {
            notes.push(Note {
                at: scene.node(*timer).map_or(0, |n| n.at),
                code: "HANIM_BAD_CYCLE_INTERVAL",
                message: format!("TimeSensor cycleInterval {cycle} is not positive: read as 1 s"),
            });
            1.0
        };
        let driving: Vec<NodeId> = interpolators
            .iter()
            .copied()
            .filter(|i| drives.contains_key(i))
            .collect();
        if driving.is_empty() {
            continue;
        }
        clocked.extend(&driving);
        let name = clip_name(scene, *timer, &format!("clip{}", clips.len()));
        clips.push(build_clip(
            scene,
            name,
            cycle,
            &driving,
            &drives,
            morphs,
            &mut budget,
            notes,
        ));
    }
    let mut unclocked: Vec<NodeId> = drives
        .keys()
        .copied()
        .filter(|i| !clocked.contains(i))
        .collect();
    unclocked.sort();
    if !unclocked.is_empty() {
        notes.push(Note {
            at: unclocked
                .first()
                .and_then(|i| scene.node(*i))
                .map_or(0, |n| n.at),
            code: "HANIM_UNCLOCKED",
            message: format!(
                "{} interpolator(s) animate joints or displacers but no TimeSensor drives them: clip `unclocked`, 1 s per cycle",
                unclocked.len()
            ),
        });
        clips.push(build_clip(
            scene,
            "unclocked".to_owned(),
            1.0,
            &unclocked,
            &drives,
            morphs,
            &mut budget,
            notes,
        ));
    }
    clips
}

#[allow(clippy::too_many_arguments)]
fn build_clip(
    scene: &Scene<'_>,
    name: String,
    cycle: f64,
    interpolators: &[NodeId],
    drives: &HashMap<NodeId, Drives>,
    morphs: &Morphs,
    budget: &mut usize,
    notes: &mut Vec<Note>,
) -> Clip {
    let mut clip = Clip::new(name);
    let mut taken: Vec<(JointId, Channel)> = Vec::new();
    // Per mesh: the weight interpolators of its targets (target, interpolator).
    let mut weights: Vec<(u16, Vec<(usize, NodeId)>)> = Vec::new();
    for interpolator in interpolators {
        let Some(f) = Fields::of(scene, *interpolator) else {
            continue;
        };
        let keys = keys(&f);
        let driven = drives.get(interpolator);
        for slot in driven.map_or(&[][..], |d| d.weights.as_slice()) {
            let list = match weights.iter_mut().find(|(m, _)| *m == slot.mesh) {
                Some((_, list)) => list,
                None => {
                    weights.push((slot.mesh, Vec::new()));
                    match weights.last_mut() {
                        Some((_, list)) => list,
                        None => continue,
                    }
                }
            };
            if list.iter().any(|(t, _)| *t == slot.target) {
                notes.push(Note {
                    at: f.node().at,
                    code: "HANIM_TRACK_DUPLICATE",
                    message: format!(
                        "clip {:?}: a second interpolator for the same displacer weight: ignored",
                        clip.name
                    ),
                });
            } else {
                list.push((slot.target, *interpolator));
            }
        }
        for (frame, channel) in driven.map_or(&[][..], |d| d.joints.as_slice()) {
            if taken.contains(&(frame.joint, *channel)) {
                notes.push(Note {
                    at: f.node().at,
                    code: "HANIM_TRACK_DUPLICATE",
                    message: format!(
                        "clip {:?}: a second interpolator for the same joint property: ignored",
                        clip.name
                    ),
                });
                continue;
            }
            let values = keys.fractions.len().saturating_mul(4);
            if values > *budget {
                notes.push(Note {
                    at: f.node().at,
                    code: "HANIM_ANIMATION_TOO_LARGE",
                    message: format!(
                        "clip {:?}: the tracks would hold more than {MAX_TRACK_VALUES} values (interpolators shared by many joints): this one is dropped",
                        clip.name
                    ),
                });
                continue;
            }
            *budget -= values;
            match track(&keys, cycle, frame, *channel) {
                Ok(Some(track)) => {
                    taken.push((frame.joint, *channel));
                    clip.add_track(track);
                }
                Ok(None) => notes.push(Note {
                    at: f.node().at,
                    code: "HANIM_EMPTY_INTERPOLATOR",
                    message: format!(
                        "{} {} has no keys: no track",
                        f.node().type_name,
                        f.node().def.unwrap_or("")
                    ),
                }),
                Err(message) => notes.push(Note {
                    at: f.at("key"),
                    code: "HANIM_TRACK_DROPPED",
                    message: format!(
                        "{} {}: {message}: the track is dropped",
                        f.node().type_name,
                        f.node().def.unwrap_or("")
                    ),
                }),
            }
        }
    }
    for (mesh, driven) in weights {
        let defaults = morphs
            .defaults
            .get(usize::from(mesh))
            .map_or(&[][..], Vec::as_slice);
        match weight_track(scene, cycle, mesh, defaults, &driven, budget) {
            Ok(track) => clip.add_track(track),
            Err((at, message)) => notes.push(Note {
                at,
                code: "HANIM_TRACK_DROPPED",
                message: format!("clip {:?}: {message}: the track is dropped", clip.name),
            }),
        }
    }
    clip
}

/// The morph weight track of `mesh`: every target's weight at each key, the driven ones from
/// their ScalarInterpolators (X3D: piecewise linear in the fraction, held before the first
/// key and after the last), the others at their default. One interpolator keeps its keys as
/// they are (a repeated key, a jump, too); several are sampled at every key of any of them,
/// which keeps each piecewise-linear curve exactly.
fn weight_track(
    scene: &Scene<'_>,
    cycle: f64,
    mesh: u16,
    defaults: &[f32],
    driven: &[(usize, NodeId)],
    budget: &mut usize,
) -> Result<Track, (usize, String)> {
    let curves: Vec<(usize, Keys, usize)> = driven
        .iter()
        .filter_map(|(target, id)| {
            let f = Fields::of(scene, *id)?;
            Some((*target, keys(&f), f.at("key")))
        })
        .collect();
    let at = curves.first().map_or(0, |(_, _, at)| *at);
    let fractions: Vec<f64> = match curves.as_slice() {
        [(_, only, _)] => only.fractions.clone(),
        _ => {
            let mut all: Vec<f64> = curves
                .iter()
                .flat_map(|(_, k, _)| k.fractions.iter().copied())
                .filter(|f| f.is_finite())
                .collect();
            all.sort_by(f64::total_cmp);
            all.dedup();
            all
        }
    };
    let count = defaults.len();
    let values_needed = fractions.len().saturating_mul(count);
    if values_needed > *budget {
        return Err((
            at,
            format!("the weight track of mesh {mesh} would pass {MAX_TRACK_VALUES} values"),
        ));
    }
    *budget -= values_needed;
    let times = key_times(&fractions, cycle).map_err(|m| (at, m))?;
    let single = curves.len() == 1;
    let mut values = Vec::with_capacity(values_needed);
    for (k, fraction) in fractions.iter().enumerate() {
        let start = values.len();
        values.extend_from_slice(defaults);
        for (target, keys, _) in &curves {
            let value = if single {
                keys.values.get(k).copied()
            } else {
                scalar_at(keys, *fraction)
            };
            if let (Some(slot), Some(value)) = (values.get_mut(start + target), value) {
                *slot = to_f32(value);
            }
        }
    }
    Track::new(
        TrackTarget::Mesh(mesh),
        Property::Weights(count),
        Interpolation::Linear,
        times,
        values,
    )
    .map_err(|e| (at, e.to_string()))
}

/// A ScalarInterpolator's value at `fraction` (X3D: linear between keys, the end values
/// outside them; at a repeated key, the later value).
fn scalar_at(keys: &Keys, fraction: f64) -> Option<f64> {
    let (first, last) = (keys.fractions.first()?, keys.fractions.last()?);
    if fraction < *first {
        return keys.values.first().copied();
    }
    if fraction >= *last {
        return keys.values.get(keys.fractions.len() - 1).copied();
    }
    let next = keys.fractions.partition_point(|k| *k <= fraction);
    let (k0, k1) = (keys.fractions.get(next - 1)?, keys.fractions.get(next)?);
    let (v0, v1) = (keys.values.get(next - 1)?, keys.values.get(next)?);
    let t = if k1 > k0 {
        (fraction - k0) / (k1 - k0)
    } else {
        0.0
    };
    Some(v0 + (v1 - v0) * t)
}

/// The next f32 above `x`.
fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let bits = x.to_bits();
    if x > 0.0 {
        f32::from_bits(bits + 1)
    } else {
        f32::from_bits(bits - 1)
    }
}

/// Key times (fractions × cycle): repeated keys moved one f32 step later; `Err` when keys go
/// back in time.
pub(crate) fn key_times(fractions: &[f64], cycle: f64) -> Result<Vec<f32>, String> {
    let mut times: Vec<f32> = Vec::with_capacity(fractions.len());
    for (i, fraction) in fractions.iter().enumerate() {
        let mut t = to_f32(fraction * cycle);
        if let Some(&previous) = times.last() {
            if fractions
                .get(i.wrapping_sub(1))
                .is_some_and(|p| fraction < p)
            {
                return Err(format!("key {i} ({fraction}) is before the key before it"));
            }
            if t <= previous {
                t = next_up(previous);
            }
        }
        times.push(t);
    }
    Ok(times)
}

fn track(
    keys: &Keys,
    cycle: f64,
    frame: &JointFrame,
    channel: Channel,
) -> Result<Option<Track>, String> {
    if keys.fractions.is_empty() {
        return Ok(None);
    }
    let times = key_times(&keys.fractions, cycle)?;
    let target = TrackTarget::Joint(frame.joint);
    let (property, values) = match channel {
        Channel::Rotation => {
            let mut previous = DQuat::IDENTITY;
            let mut values = Vec::with_capacity(times.len() * 4);
            for v in keys.values.chunks_exact(4).take(times.len()) {
                let &[x, y, z, a] = v else { continue };
                let mut q = frame.rotation(super::fields::axis_angle(x, y, z, a * keys.angle_unit));
                if q.dot(previous) < 0.0 {
                    q = -q;
                }
                previous = q;
                values.extend(q.to_array().map(to_f32));
            }
            (Property::Rotation, values)
        }
        Channel::Translation | Channel::Scale => {
            let mut values = Vec::with_capacity(times.len() * 3);
            for v in keys.values.chunks_exact(3).take(times.len()) {
                let &[x, y, z] = v else { continue };
                let value = DVec3::new(x, y, z);
                let value = if channel == Channel::Translation {
                    frame.translation(value)
                } else {
                    value
                };
                values.extend(value.to_array().map(to_f32));
            }
            let property = if channel == Channel::Translation {
                Property::Translation
            } else {
                Property::Scale
            };
            (property, values)
        }
    };
    Track::new(target, property, Interpolation::Linear, times, values)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// One channel of an HAnimMotion group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MotionChannel {
    Position(usize),
    Rotation(usize),
    Scale(usize),
    Unknown,
}

fn motion_channel(name: &str) -> MotionChannel {
    let axis = match name.as_bytes().first() {
        Some(b'X') => 0,
        Some(b'Y') => 1,
        Some(b'Z') => 2,
        _ => return MotionChannel::Unknown,
    };
    match name.get(1..) {
        Some("position") => MotionChannel::Position(axis),
        Some("rotation") => MotionChannel::Rotation(axis),
        Some("scale") => MotionChannel::Scale(axis),
        _ => MotionChannel::Unknown,
    }
}

/// `"6 Xposition ... 3 Zrotation ..."` → channel groups.
fn motion_groups(channels: &str) -> Result<Vec<Vec<MotionChannel>>, String> {
    let mut words = channels
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty());
    let mut groups = Vec::new();
    while let Some(count) = words.next() {
        let Ok(count) = count.parse::<usize>() else {
            return Err(format!(
                "channels: expected a channel count, found `{count}`"
            ));
        };
        let mut group = Vec::with_capacity(count.min(16));
        for _ in 0..count {
            match words.next() {
                Some(word) => group.push(motion_channel(word)),
                None => {
                    return Err(format!(
                        "channels: a group announces {count} channels but the list ends"
                    ))
                }
            }
        }
        groups.push(group);
    }
    Ok(groups)
}

fn motion_clip(
    scene: &Scene<'_>,
    id: NodeId,
    figure: &Figure,
    joint_frames: &[JointFrame],
    notes: &mut Vec<Note>,
) -> Result<Option<Clip>, ParseError> {
    let Some(f) = Fields::of(scene, id) else {
        return Ok(None);
    };
    let groups =
        motion_groups(f.string("channels").unwrap_or("")).map_err(|message| ParseError {
            at: f.at("channels"),
            message: format!("HAnimMotion {message}"),
        })?;
    let joints: Vec<&str> = f
        .string("joints")
        .unwrap_or("")
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let values = f.numbers("values").unwrap_or(&[]);
    let enabled = f.bools("channelsEnabled");
    let width: usize = groups.iter().map(Vec::len).sum();
    let name = f
        .string("name")
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| clip_name(scene, id, "motion"));
    if joints.len() != groups.len() {
        notes.push(Note {
            at: f.at("joints"),
            code: "HANIM_MOTION_MISMATCH",
            message: format!(
                "HAnimMotion {name:?}: {} joint names for {} channel groups (the extra ones are ignored)",
                joints.len(),
                groups.len()
            ),
        });
    }
    if width == 0 || values.len() < width {
        notes.push(Note {
            at: f.at("values"),
            code: "HANIM_MOTION_EMPTY",
            message: format!("HAnimMotion {name:?} has no complete frame: no clip"),
        });
        return Ok(None);
    }
    let frames = values.len() / width;
    if values.len() % width != 0 {
        notes.push(Note {
            at: f.at("values"),
            code: "HANIM_MOTION_MISMATCH",
            message: format!(
                "HAnimMotion {name:?}: {} values are not a whole number of {width}-value frames: the last {} are ignored",
                values.len(),
                values.len() % width
            ),
        });
    }
    if !f.bool("enabled", true) {
        notes.push(Note {
            at: f.node().at,
            code: "HANIM_MOTION_DISABLED",
            message: format!(
                "HAnimMotion {name:?} is disabled in the file (enabled FALSE): read anyway"
            ),
        });
    }
    let frame_duration = f.number("frameDuration", 0.1);
    let frame_duration = if frame_duration.is_finite() && frame_duration > 0.0 {
        frame_duration
    } else {
        notes.push(Note {
            at: f.at("frameDuration"),
            code: "HANIM_BAD_FRAME_DURATION",
            message: format!(
                "HAnimMotion frameDuration {frame_duration} is not positive: read as 0.1 s"
            ),
        });
        0.1
    };
    let times: Vec<f32> = (0..frames)
        .map(|i| to_f32(i as f64 * frame_duration))
        .collect();
    let mut clip = Clip::new(name.clone());
    let mut first_value = 0usize;
    let mut unknown: Vec<&str> = Vec::new();
    for (group_index, group) in groups.iter().enumerate() {
        let start = first_value;
        first_value += group.len();
        let Some(joint_name) = joints.get(group_index) else {
            continue;
        };
        if *joint_name == "IGNORED" || enabled.get(group_index) == Some(&false) {
            continue;
        }
        let Some(frame) = find_joint(figure, joint_frames, joint_name) else {
            unknown.push(joint_name);
            continue;
        };
        let row = |frame_index: usize| {
            values
                .get(frame_index * width + start..frame_index * width + start + group.len())
                .unwrap_or(&[])
        };
        let has = |f: fn(MotionChannel) -> bool| group.iter().any(|c| f(*c));
        let target = TrackTarget::Joint(frame.joint);
        let error = |e: crate::model::clip::TrackError| ParseError {
            at: f.at("values"),
            message: format!("HAnimMotion {name:?}: {e}"),
        };
        if has(|c| matches!(c, MotionChannel::Rotation(_))) {
            let mut out = Vec::with_capacity(frames * 4);
            let mut previous = DQuat::IDENTITY;
            for i in 0..frames {
                let mut q = DQuat::IDENTITY;
                for (channel, value) in group.iter().zip(row(i)) {
                    if let MotionChannel::Rotation(axis) = channel {
                        q *= axis_rotation(*axis, value.to_radians());
                    }
                }
                let mut q = frame.rotation(q.normalize());
                if q.dot(previous) < 0.0 {
                    q = -q;
                }
                previous = q;
                out.extend(q.to_array().map(to_f32));
            }
            clip.add_track(
                Track::new(
                    target,
                    Property::Rotation,
                    Interpolation::Linear,
                    times.clone(),
                    out,
                )
                .map_err(error)?,
            );
        }
        for (is_position, property) in [(true, Property::Translation), (false, Property::Scale)] {
            let matches = |c: &MotionChannel| {
                if is_position {
                    matches!(c, MotionChannel::Position(_))
                } else {
                    matches!(c, MotionChannel::Scale(_))
                }
            };
            if !group.iter().any(matches) {
                continue;
            }
            let mut out = Vec::with_capacity(frames * 3);
            for i in 0..frames {
                let mut v = if is_position { DVec3::ZERO } else { DVec3::ONE };
                for (channel, value) in group.iter().zip(row(i)) {
                    match channel {
                        MotionChannel::Position(axis) | MotionChannel::Scale(axis)
                            if matches(channel) =>
                        {
                            match axis {
                                0 => v.x = *value,
                                1 => v.y = *value,
                                _ => v.z = *value,
                            }
                        }
                        _ => {}
                    }
                }
                let v = if is_position { frame.translation(v) } else { v };
                out.extend(v.to_array().map(to_f32));
            }
            clip.add_track(
                Track::new(target, property, Interpolation::Linear, times.clone(), out)
                    .map_err(error)?,
            );
        }
    }
    if !unknown.is_empty() {
        notes.push(Note {
            at: f.at("joints"),
            code: "HANIM_MOTION_JOINT_UNKNOWN",
            message: format!(
                "HAnimMotion {name:?} animates joints the humanoid does not have (ignored): {}",
                unknown.join(", ")
            ),
        });
    }
    Ok(Some(clip))
}

/// A rotation of `radians` about axis 0, 1 or 2 (X, Y, Z).
fn axis_rotation(axis: usize, radians: f64) -> DQuat {
    match axis {
        0 => DQuat::from_rotation_x(radians),
        1 => DQuat::from_rotation_y(radians),
        _ => DQuat::from_rotation_z(radians),
    }
}

/// The joint a motion names: exactly, else through the 1.x/2.0 aliases.
fn find_joint<'f>(
    figure: &Figure,
    joint_frames: &'f [JointFrame],
    name: &str,
) -> Option<&'f JointFrame> {
    let exact = figure.joints.iter().position(|j| j.name == name);
    let index = exact.or_else(|| {
        let wanted = names::to_v2(name)?;
        figure
            .joints
            .iter()
            .position(|j| names::to_v2(&j.name) == Some(wanted))
    })?;
    joint_frames.get(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_times_keep_jumps_and_refuse_going_back() {
        let times = key_times(&[0.0, 0.5, 0.5, 1.0], 2.0).unwrap();
        assert_eq!(times[1], 1.0);
        assert!(times[2] > 1.0 && times[2] < 1.000_001);
        assert_eq!(times[3], 2.0);
        assert!(key_times(&[0.0, 0.6, 0.5], 1.0).is_err());
        assert_eq!(next_up(-1.0), -0.99999994);
    }

    #[test]
    fn motion_channels() {
        let groups = motion_groups("6 Xposition Yposition Zposition Zrotation Xrotation Yrotation 3 Zrotation Xrotation Yrotation").unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0][3], MotionChannel::Rotation(2));
        assert_eq!(groups[1].len(), 3);
        assert!(motion_groups("3 Xrotation").is_err());
        assert!(motion_groups("x Xrotation").is_err());
        assert_eq!(motion_channel("Wrotation"), MotionChannel::Unknown);
    }

    #[test]
    fn joint_frames_bake_the_humanoid() {
        let frame = JointFrame {
            joint: JointId::from_index(0).unwrap(),
            offset: DVec3::new(0.0, 1.0, 0.0),
            root: true,
            humanoid: HumanoidTransform {
                translation: DVec3::new(1.0, 0.0, 0.0),
                rotation: DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2),
                scale: 2.0,
            },
            orientation: DQuat::IDENTITY,
            parent_orientation: DQuat::IDENTITY,
        };
        // t = (1, 0, 0) + R_y(90°)·2·((0, 0, 1) + (0, 1, 0)) = (1 + 2, 2, 0).
        let t = frame.translation(DVec3::new(0.0, 0.0, 1.0));
        assert!(t.abs_diff_eq(DVec3::new(3.0, 2.0, 0.0), 1e-12), "{t}");
        let q = frame.rotation(DQuat::IDENTITY);
        assert!(q.abs_diff_eq(DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2), 1e-12));
    }
}
