//! From the parsed BVH ([`Document`]) to the canonical model: skeleton, clip, layout.
//!
//! ## Overview
//!
//! - One joint per ROOT and JOINT, plus one leaf per End Site named `<parent>_End` (kept so
//!   the last bone of each chain has a direction).
//! - Rest = the OFFSETs (in metres) with identity rotations: BVH's rest pose.
//! - One clip named after the file stem; per joint with rotation channels a LINEAR rotation
//!   track with one key per frame (`Rx`/`Ry`/`Rz` multiplied in channel order, the first
//!   listed outermost; each quaternion on the same side as the previous frame's, so `q · q' ≥ 0`),
//!   and per joint with position channels a LINEAR translation track (each position channel
//!   replaces that component of the OFFSET). Key `i` is at `i × frame_time` seconds.
//! - Rotations are composed in f64 and stored as f32.

use std::path::Path;

use glam::{DQuat, Vec3};

use super::channel::Channel;
use super::euler::axis_rotation;
use super::layout::{BvhLayout, JointLayout};
use super::parse::{Document, ParsedJoint};
use super::units::{self, Guess};
use crate::error::{Diagnostics, Error, Location};
use crate::math::num::to_f32;
use crate::math::num::Num;
use crate::math::sample::Interpolation;
use crate::math::trs::Trs;
use crate::model::asset::Asset;
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::skeleton::{JointId, RawJoint, Skeleton};
use crate::model::Format;

/// The canonical asset and layout of a parsed file, with the unit it was read in.
///
/// # Errors
/// [`Error::Invalid`] when the frame time is too small for distinct f32 key times, or the
/// skeleton cannot be built (more joints than the model holds).
pub(crate) fn to_asset(
    doc: &Document,
    file: &Path,
    given_scale: Option<f64>,
    diagnostics: &mut Diagnostics,
) -> Result<(Asset, BvhLayout), Error> {
    let names = joint_names(&doc.joints);
    let scale = unit(doc, given_scale, diagnostics);
    let raw: Vec<RawJoint> = doc
        .joints
        .iter()
        .zip(&names)
        .map(|(joint, name)| RawJoint {
            name: name.clone(),
            parent: joint.parent,
            rest: Trs::from_translation(to_vec3(joint.offset, scale)),
        })
        .collect();
    let (skeleton, ids) =
        Skeleton::from_raw(raw).map_err(|e| Error::invalid(file, Location::File, e.to_string()))?;

    let clip = clip(doc, file, &ids, scale, diagnostics)?;
    let mut source_indices = vec![0usize; ids.len()];
    let mut layout: Vec<Option<JointLayout>> = vec![None; ids.len()];
    for (raw_index, (id, (joint, name))) in ids.iter().zip(doc.joints.iter().zip(names)).enumerate()
    {
        if let Some(slot) = source_indices.get_mut(id.index()) {
            *slot = raw_index;
        }
        if let Some(slot) = layout.get_mut(id.index()) {
            *slot = Some(JointLayout {
                name,
                end_site: joint.end_site,
                channels: joint.channels.clone(),
            });
        }
    }
    let layout = BvhLayout::new(
        layout.into_iter().flatten().collect(),
        doc.frame_time,
        scale,
    );
    let mut asset = Asset::new(Format::Bvh, skeleton, source_indices);
    asset.clips.push(clip);
    Ok((asset, layout))
}

/// Joint names, End Sites named `<parent>_End`.
fn joint_names(joints: &[ParsedJoint]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(joints.len());
    for joint in joints {
        let name = if joint.end_site {
            let parent = joint
                .parent
                .and_then(|p| names.get(p))
                .map_or("", String::as_str);
            format!("{parent}_End")
        } else {
            joint.name.clone()
        };
        names.push(name);
    }
    names
}

/// The length of one file unit in metres, given or detected, reported as a diagnostic.
fn unit(doc: &Document, given: Option<f64>, diagnostics: &mut Diagnostics) -> f64 {
    if let Some(scale) = given {
        diagnostics.info(
            "BVH_UNITS",
            "",
            format!("1 file unit = {} m (given)", Num(scale)),
        );
        return scale;
    }
    let height = units::hips_height(&first_hierarchy_rest(&doc.joints));
    match units::detect(height) {
        Guess::Sure {
            metres_per_unit,
            name,
        } => {
            diagnostics.info(
                "BVH_UNITS",
                "",
                format!(
                    "rest hips height {} file units: read as {name} (1 unit = {} m)",
                    Num(height),
                    Num(metres_per_unit)
                ),
            );
            metres_per_unit
        }
        Guess::Likely {
            metres_per_unit,
            name,
        } => {
            diagnostics.info(
                "BVH_UNITS",
                "",
                format!(
                    "rest hips height {} file units: guessed {name} (1 unit = {} m); \
                     if that is wrong, give the metres per unit with --bvh-scale METRES",
                    Num(height),
                    Num(metres_per_unit)
                ),
            );
            metres_per_unit
        }
        Guess::Unknown { metres_per_unit } => {
            diagnostics.warn(
                "BVH_UNITS_UNKNOWN",
                "",
                format!(
                    "rest hips height {} file units fits no unit (50–250 cm, 0.5–2.5 m, 20–50 in): \
                     read as metres; give the metres per unit with --bvh-scale METRES",
                    Num(height)
                ),
            );
            metres_per_unit
        }
    }
}

/// Rest positions (file units) of the first ROOT's hierarchy, root first.
fn first_hierarchy_rest(joints: &[ParsedJoint]) -> Vec<[f64; 3]> {
    let mut positions: Vec<[f64; 3]> = Vec::new();
    for (index, joint) in joints.iter().enumerate() {
        if index > 0 && joint.parent.is_none() {
            break;
        }
        let base = joint
            .parent
            .and_then(|p| positions.get(p))
            .copied()
            .unwrap_or([0.0; 3]);
        positions.push([
            base[0] + joint.offset[0],
            base[1] + joint.offset[1],
            base[2] + joint.offset[2],
        ]);
    }
    positions
}

fn to_vec3(v: [f64; 3], scale: f64) -> Vec3 {
    Vec3::new(
        to_f32(v[0] * scale),
        to_f32(v[1] * scale),
        to_f32(v[2] * scale),
    )
}

/// The clip: rotation and translation tracks per joint with channels.
fn clip(
    doc: &Document,
    file: &Path,
    ids: &[JointId],
    scale: f64,
    diagnostics: &mut Diagnostics,
) -> Result<Clip, Error> {
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut clip = Clip::new(name);
    if doc.frames == 0 {
        diagnostics.info(
            "BVH_NO_FRAMES",
            "",
            "the MOTION section has no frames: the clip has no tracks",
        );
        return Ok(clip);
    }
    let times: Vec<f32> = (0..doc.frames)
        .map(|i| to_f32(i as f64 * doc.frame_time))
        .collect();
    let track_error = |e: crate::model::clip::TrackError| {
        Error::invalid(
            file,
            doc.frame_time_at.location(),
            format!(
                "frame time {} s over {} frames does not give increasing key times: {e}",
                doc.frame_time, doc.frames
            ),
        )
    };
    for (joint, id) in doc.joints.iter().zip(ids) {
        let target = TrackTarget::Joint(*id);
        let has_rotation = joint
            .channels
            .iter()
            .any(|c| matches!(c, Channel::Rotation(_)));
        let has_position = joint
            .channels
            .iter()
            .any(|c| matches!(c, Channel::Position(_)));
        if has_rotation {
            let values = rotations(doc, joint);
            let track = Track::new(
                target,
                Property::Rotation,
                Interpolation::Linear,
                times.clone(),
                values,
            )
            .map_err(track_error)?;
            clip.add_track(track);
        }
        if has_position {
            let values = positions(doc, joint, scale);
            let track = Track::new(
                target,
                Property::Translation,
                Interpolation::Linear,
                times.clone(),
                values,
            )
            .map_err(track_error)?;
            clip.add_track(track);
        }
    }
    Ok(clip)
}

/// The joint's values in row `frame`, paired with their channels.
fn joint_values<'d>(
    doc: &'d Document,
    joint: &'d ParsedJoint,
    frame: usize,
) -> impl Iterator<Item = (Channel, f64)> + 'd {
    let row = doc.row(frame);
    let values = row.get(joint.first_value..).unwrap_or(&[]);
    joint.channels.iter().copied().zip(values.iter().copied())
}

/// One quaternion per frame, sign-continuous, flat `[x, y, z, w]`.
fn rotations(doc: &Document, joint: &ParsedJoint) -> Vec<f32> {
    let mut values = Vec::with_capacity(doc.frames.saturating_mul(4));
    let mut previous = DQuat::IDENTITY;
    for frame in 0..doc.frames {
        let mut q = DQuat::IDENTITY;
        for (channel, value) in joint_values(doc, joint, frame) {
            if let Channel::Rotation(axis) = channel {
                q *= axis_rotation(axis, value);
            }
        }
        q = q.normalize();
        if q.dot(previous) < 0.0 {
            q = -q;
        }
        previous = q;
        values.extend(q.to_array().map(to_f32));
    }
    values
}

/// One translation per frame (OFFSET components replaced by the position channels), in metres.
fn positions(doc: &Document, joint: &ParsedJoint, scale: f64) -> Vec<f32> {
    let mut values = Vec::with_capacity(doc.frames.saturating_mul(3));
    for frame in 0..doc.frames {
        let mut p = joint.offset;
        for (channel, value) in joint_values(doc, joint, frame) {
            if let Channel::Position(axis) = channel {
                if let Some(slot) = p.get_mut(axis.index()) {
                    *slot = value;
                }
            }
        }
        values.extend(to_vec3(p, scale).to_array());
    }
    values
}
