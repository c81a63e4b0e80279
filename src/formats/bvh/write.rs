//! From the canonical model to BVH text: plan each joint's channels, sample the clip on a
//! regular grid, bake the rest (see `bake.rs`), decompose into continuous Euler angles, print.
//!
//! ## Overview
//!
//! - **Joints.** Every joint with children is a ROOT or JOINT; a leaf is an End Site (its
//!   offset kept; its name is lost: it reads back as `<parent>_End`, reported when that differs;
//!   a rotation track on it moves no joint and is dropped, reported).
//!   With a matching [`BvhLayout`] every joint keeps the file's kind and channels instead.
//! - **Channels.** Roots: `Xposition Yposition Zposition` then the three rotations in
//!   [`WriteOptions::order`]; other joints: the three rotations only (what BVH readers expect),
//!   plus positions first when [`WriteOptions::joint_positions`] is set and the joint's
//!   translation animates.
//! - **Translations and scales.** A static translation or scale track (every key equal) is put
//!   into the rest, hence into the OFFSETs. An animated translation on a joint without position
//!   channels, and any animated scale, cannot be written: reported (`BVH_TRANSLATION_DROPPED`,
//!   `BVH_SCALE_DROPPED`) and left at rest.
//! - **Time.** Frame time = `1 / fps` with `fps` from the options, else the layout's frame time,
//!   else the clip's key interval when every key of every written track lies on one regular grid,
//!   else 1/30 s. Frames run from the first key to the last (the last frame clamps).
//! - **Rotations** are baked as in `bake.rs` (`L = Q_p,rest · q · q_rest⁻¹ · Q_p,rest⁻¹`) and
//!   decomposed with [`decompose`], each frame's angles nearest the previous frame's.

use std::fmt::Write as _;

use glam::DVec3;

use super::bake::{rest_frames, RestFrame};
use super::channel::{Axis, Channel, EulerOrder};
use super::euler::decompose;
use super::layout::{rotation_order, BvhLayout};
use super::{WriteOptions, MAX_DEPTH, MAX_MOTION_VALUES};
use crate::asset::Asset;
use crate::error::{Diagnostics, Error};
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::skeleton::{JointId, Skeleton};
use crate::pose::sample::{locate, Cursor, Interpolation, KeyPosition};
use crate::pose::trs::Trs;

/// Two key values closer than this (metres, or scale factors) count as equal.
const STATIC_TOLERANCE: f32 = 1e-6;

/// Frame time when the clip's keys are not on a regular grid: 30 fps.
const DEFAULT_FRAME_TIME: f64 = 1.0 / 30.0;

/// Indentation stops growing past this depth (readers ignore it; it keeps deep chains small).
const MAX_INDENT: usize = 64;

/// The BVH text of `clip` on `asset`'s skeleton.
///
/// # Errors
/// [`Error::Unsupported`] for options out of range, an empty skeleton, nesting deeper than
/// [`MAX_DEPTH`], or more than [`MAX_MOTION_VALUES`] values.
pub(crate) fn write(
    asset: &Asset,
    clip: &Clip,
    options: &WriteOptions,
    diagnostics: &mut Diagnostics,
) -> Result<String, Error> {
    check_options(options)?;
    let skeleton = &asset.skeleton;
    if skeleton.is_empty() {
        return Err(Error::unsupported(
            "cannot write BVH: the skeleton has no joints",
        ));
    }
    check_depth(skeleton)?;
    let tracks = JointTracks::collect(skeleton, clip, diagnostics);
    let layout = usable_layout(options, skeleton, diagnostics);
    let plans = plan_joints(skeleton, &tracks, options, layout, diagnostics);
    let rest = effective_rest(skeleton, &tracks, &plans, diagnostics);
    let frames = rest_frames(skeleton, &rest);
    let grid = time_grid(&tracks, options, layout)?;
    let row_len: usize = plans.iter().map(|p| p.channels.len()).sum();
    if grid.count.saturating_mul(row_len.max(1)) > MAX_MOTION_VALUES {
        return Err(Error::unsupported(format!(
            "cannot write BVH: {} frames × {row_len} channels is more than {MAX_MOTION_VALUES} values; \
             lower the frame rate",
            grid.count
        )));
    }
    let digits = position_digits(options.scale);
    let mut text = String::new();
    hierarchy(&mut text, skeleton, &plans, &frames, options.scale, digits);
    motion(
        &mut text,
        &MotionInput {
            plans: &plans,
            tracks: &tracks,
            frames: &frames,
            rest: &rest,
            grid,
            scale: options.scale,
            digits,
        },
    );
    Ok(text)
}

fn check_options(options: &WriteOptions) -> Result<(), Error> {
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return Err(Error::unsupported(format!(
            "BVH scale {}: expected the length of one file unit in metres (0.01 for centimetres)",
            options.scale
        )));
    }
    if let Some(fps) = options.fps.filter(|f| !(f.is_finite() && *f > 0.0)) {
        return Err(Error::unsupported(format!(
            "BVH frame rate {fps}: expected a positive number of frames per second"
        )));
    }
    Ok(())
}

fn check_depth(skeleton: &Skeleton) -> Result<(), Error> {
    let mut depth: Vec<usize> = Vec::with_capacity(skeleton.len());
    for parent in skeleton.parents() {
        let d = parent
            .and_then(|p| depth.get(p.index()))
            .map_or(1, |d| d + 1);
        if d > MAX_DEPTH {
            return Err(Error::unsupported(format!(
                "cannot write BVH: joints nest {d} deep; BVH readers (this one included) stop at {MAX_DEPTH}"
            )));
        }
        depth.push(d);
    }
    Ok(())
}

/// The rotation, translation and scale track of each joint (by joint index).
#[derive(Debug, Default, Clone, Copy)]
struct Tracks<'c> {
    rotation: Option<&'c Track>,
    translation: Option<&'c Track>,
    scale: Option<&'c Track>,
}

struct JointTracks<'c> {
    joints: Vec<Tracks<'c>>,
}

impl<'c> JointTracks<'c> {
    fn collect(skeleton: &Skeleton, clip: &'c Clip, diagnostics: &mut Diagnostics) -> Self {
        let mut joints = vec![Tracks::default(); skeleton.len()];
        let (mut not_joint, mut weights, mut foreign, mut duplicate) =
            (0usize, 0usize, 0usize, 0usize);
        for track in clip.tracks() {
            let TrackTarget::Joint(id) = track.target() else {
                not_joint += 1;
                continue;
            };
            let Some(slot) = joints.get_mut(id.index()) else {
                foreign += 1;
                continue;
            };
            let place = match track.property() {
                Property::Rotation => &mut slot.rotation,
                Property::Translation => &mut slot.translation,
                Property::Scale => &mut slot.scale,
                Property::Weights(_) => {
                    weights += 1;
                    continue;
                }
            };
            if place.is_some() {
                duplicate += 1;
            } else {
                *place = Some(track);
            }
        }
        let mut ignored = |count: usize, what: &str| {
            if count > 0 {
                diagnostics.warn(
                    "BVH_TRACK_IGNORED",
                    "",
                    format!(
                        "{count} {what} of clip {:?} ignored: BVH animates joints only",
                        clip.name
                    ),
                );
            }
        };
        ignored(
            not_joint,
            "humanoid-bone, expression or look-at tracks (retarget to joints first)",
        );
        ignored(weights, "morph-weight tracks");
        ignored(foreign, "tracks on joints not in the skeleton");
        ignored(duplicate, "second tracks for the same joint and property");
        JointTracks { joints }
    }

    fn get(&self, id: JointId) -> Tracks<'c> {
        self.joints.get(id.index()).copied().unwrap_or_default()
    }

    fn all(&self) -> impl Iterator<Item = &'c Track> + '_ {
        self.joints
            .iter()
            .flat_map(|t| [t.rotation, t.translation, t.scale])
            .flatten()
    }
}

/// How one joint is written.
#[derive(Debug, Clone)]
struct JointPlan {
    /// The name as written.
    name: String,
    /// Written as an End Site.
    end_site: bool,
    /// Its channels (empty for End Sites).
    channels: Vec<Channel>,
    /// The Euler order of its rotation channels.
    order: EulerOrder,
}

impl JointPlan {
    fn has_positions(&self) -> bool {
        self.channels
            .iter()
            .any(|c| matches!(c, Channel::Position(_)))
    }
}

fn usable_layout<'o>(
    options: &'o WriteOptions,
    skeleton: &Skeleton,
    diagnostics: &mut Diagnostics,
) -> Option<&'o BvhLayout> {
    let layout = options.layout.as_ref()?;
    if layout.matches(skeleton) {
        Some(layout)
    } else {
        diagnostics.warn(
            "BVH_LAYOUT_MISMATCH",
            "",
            format!(
                "the BVH layout ({} joints) does not describe this skeleton ({} joints, or other names): \
                 default channels written",
                layout.joints().len(),
                skeleton.len()
            ),
        );
        None
    }
}

fn plan_joints(
    skeleton: &Skeleton,
    tracks: &JointTracks<'_>,
    options: &WriteOptions,
    layout: Option<&BvhLayout>,
    diagnostics: &mut Diagnostics,
) -> Vec<JointPlan> {
    let mut plans = Vec::with_capacity(skeleton.len());
    let (mut renamed, mut unnamed_leaves, mut bad_layout) = (Vec::new(), Vec::new(), Vec::new());
    let mut turning_leaves = Vec::new();
    for id in skeleton.joints() {
        let original = skeleton.name(id);
        let name = sanitize(original, id);
        if name != original {
            renamed.push(format!("{original:?} → {name}"));
        }
        let is_leaf = skeleton.children(id).next().is_none();
        let is_root = skeleton.parent(id).is_none();
        // A root is never an End Site, even alone.
        let end_site = is_leaf && !is_root && layout.is_none_or(|l| l.is_end_site(id));
        let from_layout = layout
            .and_then(|l| l.channels_of(id))
            .filter(|_| !end_site)
            .filter(|c| valid_channels(c));
        if layout.is_some() && !end_site && from_layout.is_none() {
            bad_layout.push(original.to_owned());
        }
        let channels = match (end_site, from_layout) {
            (true, _) => Vec::new(),
            (false, Some(channels)) => channels.to_vec(),
            (false, None) => {
                let animated = tracks.get(id).translation.is_some_and(|t| !is_static(t));
                let positions = is_root || (options.joint_positions && animated);
                let mut channels = Vec::with_capacity(6);
                if positions {
                    channels.extend([Axis::X, Axis::Y, Axis::Z].map(Channel::Position));
                }
                channels.extend(options.order.channels());
                channels
            }
        };
        if end_site {
            let parent = skeleton.parent(id).map_or("", |p| skeleton.name(p));
            if original != format!("{parent}_End") {
                unnamed_leaves.push(original.to_owned());
            }
            if tracks.get(id).rotation.is_some() {
                turning_leaves.push(original.to_owned());
            }
        }
        let order = rotation_order(&channels).unwrap_or(options.order);
        plans.push(JointPlan {
            name,
            end_site,
            channels,
            order,
        });
    }
    if !renamed.is_empty() {
        diagnostics.warn(
            "BVH_NAME_CHANGED",
            "",
            format!(
                "joint names BVH cannot hold (empty, whitespace or braces) changed: {}",
                list(&renamed)
            ),
        );
    }
    if !unnamed_leaves.is_empty() {
        diagnostics.info(
            "BVH_END_SITE_NAME",
            "",
            format!(
                "{} leaf joints written as End Sites, which have no names (they read back as <parent>_End): {}",
                unnamed_leaves.len(),
                list(&unnamed_leaves)
            ),
        );
    }
    if !turning_leaves.is_empty() {
        diagnostics.info(
            "BVH_LEAF_ROTATION_DROPPED",
            "",
            format!(
                "rotation tracks of End Sites dropped (they move no joint): {}",
                list(&turning_leaves)
            ),
        );
    }
    if !bad_layout.is_empty() {
        diagnostics.warn(
            "BVH_LAYOUT_CHANNELS",
            "",
            format!(
                "the layout's channels cannot hold a full rotation for {}: default channels written",
                list(&bad_layout)
            ),
        );
    }
    plans
}

/// Channels the writer can fill: all three rotations, and no positions or all three.
fn valid_channels(channels: &[Channel]) -> bool {
    let positions = channels
        .iter()
        .filter(|c| matches!(c, Channel::Position(_)))
        .count();
    rotation_order(channels).is_some() && (positions == 0 || positions == 3)
}

/// A name a BVH reader reads back whole: whitespace and braces become `_`; empty becomes
/// `joint<index>`.
fn sanitize(name: &str, id: JointId) -> String {
    if name.is_empty() {
        return format!("joint{}", id.index());
    }
    name.chars()
        .map(|c| {
            if c.is_whitespace() || c == '{' || c == '}' {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// The first names of a list, for a message.
fn list(items: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut out = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        let _ = write!(out, " and {} more", items.len() - SHOWN);
    }
    out
}

/// Whether every key of `track` holds the same value (and, for cubic splines, every tangent
/// is zero).
fn is_static(track: &Track) -> bool {
    let Some(first) = track.value(0) else {
        return true;
    };
    let same_values = (1..track.key_count()).all(|k| {
        track.value(k).is_some_and(|v| {
            v.iter()
                .zip(first)
                .all(|(a, b)| (a - b).abs() <= STATIC_TOLERANCE)
        })
    });
    let flat_tangents = track.interpolation() != Interpolation::CubicSpline
        || track
            .values()
            .chunks(track.components().max(1))
            .enumerate()
            .filter(|(i, _)| i % 3 != 1)
            .all(|(_, tangent)| tangent.iter().all(|t| t.abs() <= STATIC_TOLERANCE));
    same_values && flat_tangents
}

/// The rest transforms the BVH rest is built from: the skeleton's, with static translation and
/// scale tracks put in. Reports animated translations that no channel carries and animated
/// scales.
fn effective_rest(
    skeleton: &Skeleton,
    tracks: &JointTracks<'_>,
    plans: &[JointPlan],
    diagnostics: &mut Diagnostics,
) -> Vec<Trs> {
    let (mut dropped_translation, mut dropped_scale) = (Vec::new(), Vec::new());
    let mut rest = Vec::with_capacity(skeleton.len());
    for (id, plan) in skeleton.joints().zip(plans) {
        let mut local = skeleton.rest_local(id);
        let joint = tracks.get(id);
        if let Some(track) = joint.translation {
            if is_static(track) {
                if let Some(v) = track.sample_vec3(track.start_time()) {
                    local.translation = v;
                }
            } else if !plan.has_positions() {
                dropped_translation.push(skeleton.name(id).to_owned());
            }
        }
        if let Some(track) = joint.scale {
            if is_static(track) {
                if let Some(v) = track.sample_vec3(track.start_time()) {
                    local.scale = v;
                }
            } else {
                dropped_scale.push(skeleton.name(id).to_owned());
            }
        }
        rest.push(local);
    }
    if !dropped_translation.is_empty() {
        diagnostics.warn(
            "BVH_TRANSLATION_DROPPED",
            "",
            format!(
                "animated translation dropped (BVH joints carry rotations only; set joint_positions \
                 to write position channels): {}",
                list(&dropped_translation)
            ),
        );
    }
    if !dropped_scale.is_empty() {
        diagnostics.warn(
            "BVH_SCALE_DROPPED",
            "",
            format!(
                "animated scale dropped (BVH has no scale channels; the rest scale is kept): {}",
                list(&dropped_scale)
            ),
        );
    }
    rest
}

/// Frame `i` is at `start + i × frame_time` seconds, `i < count`.
#[derive(Debug, Clone, Copy)]
struct Grid {
    start: f64,
    frame_time: f64,
    count: usize,
}

impl Grid {
    fn time(&self, frame: usize) -> f32 {
        (self.start + frame as f64 * self.frame_time) as f32
    }

    /// How near a key a frame must be to take the key's value: a thousandth of a frame.
    fn snap(&self) -> f32 {
        (self.frame_time * 1e-3) as f32
    }
}

fn time_grid(
    tracks: &JointTracks<'_>,
    options: &WriteOptions,
    layout: Option<&BvhLayout>,
) -> Result<Grid, Error> {
    let all: Vec<&Track> = tracks.all().collect();
    let start = all
        .iter()
        .map(|t| f64::from(t.start_time()))
        .fold(f64::INFINITY, f64::min);
    let end = all
        .iter()
        .map(|t| f64::from(t.end_time()))
        .fold(f64::NEG_INFINITY, f64::max);
    let frame_time = match (options.fps, layout.map(BvhLayout::frame_time)) {
        (Some(fps), _) => 1.0 / fps,
        (None, Some(ft)) if ft.is_finite() && ft > 0.0 => ft,
        _ => key_interval(&all, start).unwrap_or(DEFAULT_FRAME_TIME),
    };
    if all.is_empty() {
        return Ok(Grid {
            start: 0.0,
            frame_time,
            count: 1,
        });
    }
    // `max` turns a NaN into 0.
    let intervals = ((end - start) / frame_time - 1e-3).ceil().max(0.0);
    if intervals >= MAX_MOTION_VALUES as f64 {
        return Err(Error::unsupported(format!(
            "cannot write BVH: {:.0} frames at {} s per frame is more than {MAX_MOTION_VALUES}",
            intervals + 1.0,
            frame_time
        )));
    }
    Ok(Grid {
        start,
        frame_time,
        // Bounded above, and non-negative.
        count: intervals as usize + 1,
    })
}

/// The interval of the regular grid every key of `tracks` lies on, from the track with the
/// most keys; `None` when some key is off it or no track has two keys.
fn key_interval(tracks: &[&Track], start: f64) -> Option<f64> {
    let longest = tracks.iter().max_by_key(|t| t.key_count())?;
    let keys = longest.key_count();
    if keys < 2 {
        return None;
    }
    let interval =
        (f64::from(longest.end_time()) - f64::from(longest.start_time())) / (keys - 1) as f64;
    if !(interval.is_finite() && interval > 0.0) {
        return None;
    }
    let on_grid = tracks.iter().flat_map(|t| t.times()).all(|&time| {
        let k = (f64::from(time) - start) / interval;
        (k - k.round()).abs() <= 1e-3
    });
    on_grid.then_some(interval)
}

/// Decimals for positions: 6 in centimetres, more for larger units.
fn position_digits(scale: f64) -> usize {
    let extra = (scale / 0.01).log10().ceil();
    if extra.is_finite() && extra > 0.0 {
        6 + (extra.min(4.0) as usize)
    } else {
        6
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth.min(MAX_INDENT) {
        out.push('\t');
    }
}

fn push_number(out: &mut String, value: f64, digits: usize) {
    let start = out.len();
    let _ = write!(out, "{value:.digits$}");
    if out.get(start..).is_some_and(|s| s.contains('.')) {
        while out.ends_with('0') {
            out.pop();
        }
        if out.ends_with('.') {
            out.pop();
        }
    }
    if out.get(start..) == Some("-0") {
        out.truncate(start);
        out.push('0');
    }
}

fn push_offset(out: &mut String, offset: DVec3, scale: f64, digits: usize) {
    out.push_str("OFFSET");
    for v in offset.to_array() {
        out.push(' ');
        push_number(out, v / scale, digits);
    }
    out.push('\n');
}

/// The HIERARCHY section. Joints are in depth-first pre-order, so blocks open in order and
/// close when the next joint's parent is further up (no recursion: chains may be long).
fn hierarchy(
    out: &mut String,
    skeleton: &Skeleton,
    plans: &[JointPlan],
    frames: &[RestFrame],
    scale: f64,
    digits: usize,
) {
    out.push_str("HIERARCHY\n");
    let mut open: Vec<JointId> = Vec::new();
    for ((id, plan), frame) in skeleton.joints().zip(plans).zip(frames) {
        let parent = skeleton.parent(id);
        while open.last().is_some_and(|&top| Some(top) != parent) {
            open.pop();
            indent(out, open.len());
            out.push_str("}\n");
        }
        if parent.is_some() && open.is_empty() {
            // Unreachable for a valid skeleton (parents come first); keep the output well formed.
            continue;
        }
        let depth = open.len();
        indent(out, depth);
        match (plan.end_site, parent) {
            (true, Some(_)) => out.push_str("End Site\n"),
            (_, None) => {
                let _ = writeln!(out, "ROOT {}", plan.name);
            }
            (false, Some(_)) => {
                let _ = writeln!(out, "JOINT {}", plan.name);
            }
        }
        indent(out, depth);
        out.push_str("{\n");
        indent(out, depth + 1);
        push_offset(out, frame.offset(), scale, digits);
        if !plan.end_site {
            indent(out, depth + 1);
            let _ = write!(out, "CHANNELS {}", plan.channels.len());
            for channel in &plan.channels {
                let _ = write!(out, " {channel}");
            }
            out.push('\n');
        }
        open.push(id);
    }
    while open.pop().is_some() {
        indent(out, open.len());
        out.push_str("}\n");
    }
}

/// Everything the MOTION section is made from.
struct MotionInput<'a, 'c> {
    plans: &'a [JointPlan],
    tracks: &'a JointTracks<'c>,
    frames: &'a [RestFrame],
    rest: &'a [Trs],
    grid: Grid,
    scale: f64,
    digits: usize,
}

/// The MOTION section: one row per grid time.
fn motion(out: &mut String, input: &MotionInput<'_, '_>) {
    let _ = write!(
        out,
        "MOTION\nFrames: {}\nFrame Time: {}\n",
        input.grid.count, input.grid.frame_time
    );
    let joints = input.plans.len();
    let mut previous: Vec<Option<[f64; 3]>> = vec![None; joints];
    let mut cursors: Vec<[Cursor; 2]> = vec![[Cursor::default(); 2]; joints];
    for frame in 0..input.grid.count {
        let t = input.grid.time(frame);
        let mut first = true;
        for (index, plan) in input.plans.iter().enumerate() {
            if plan.channels.is_empty() {
                continue;
            }
            let (Some(rest), Some(rest_frame), Some(cursor), Some(prev)) = (
                input.rest.get(index),
                input.frames.get(index),
                cursors.get_mut(index),
                previous.get_mut(index),
            ) else {
                continue;
            };
            let tracks = input.tracks.joints.get(index).copied().unwrap_or_default();
            let snap = input.grid.snap();
            let mut rotation = rest.rotation.to_array();
            if let Some(track) = tracks.rotation {
                sample(track, t, snap, &mut cursor[0], &mut rotation);
            }
            let local = rest_frame.local_rotation(glam::Quat::from_array(rotation));
            let angles = decompose(local, plan.order, *prev);
            *prev = Some(angles);
            let mut translation = rest.translation.to_array();
            if let (Some(track), true) = (tracks.translation, plan.has_positions()) {
                sample(track, t, snap, &mut cursor[1], &mut translation);
            }
            let position = rest_frame.local_position(glam::Vec3::from_array(translation));
            for channel in &plan.channels {
                if !first {
                    out.push(' ');
                }
                first = false;
                match channel {
                    Channel::Position(axis) => {
                        push_number(out, component(position, *axis) / input.scale, input.digits)
                    }
                    Channel::Rotation(axis) => {
                        let slot = plan.order.axes().iter().position(|a| a == axis);
                        let angle = slot.and_then(|s| angles.get(s)).copied().unwrap_or(0.0);
                        push_number(out, angle, 6);
                    }
                }
            }
        }
        out.push('\n');
    }
}

/// Samples `track` at `t`, taking a key's own value when a key is within `snap` seconds of
/// `t` (grid times computed in f64 and rounded to f32 can miss f32 key times by a hair, which
/// would blend in a sliver of the neighbouring key).
fn sample(track: &Track, t: f32, snap: f32, cursor: &mut Cursor, out: &mut [f32]) {
    let times = track.times();
    let key = match locate(times, t, cursor) {
        KeyPosition::Exact(k) => Some(k),
        KeyPosition::Between(k, _) => match (times.get(k), times.get(k + 1)) {
            (Some(&a), _) if t - a <= snap => Some(k),
            (_, Some(&b)) if b - t <= snap => Some(k + 1),
            _ => None,
        },
        KeyPosition::BeforeFirst | KeyPosition::AfterLast => None,
    };
    match key.and_then(|k| track.value(k)) {
        Some(value) => {
            for (o, v) in out.iter_mut().zip(value) {
                *o = *v;
            }
        }
        None => track.sample_with(t, cursor, out),
    }
}

fn component(v: DVec3, axis: Axis) -> f64 {
    match axis {
        Axis::X => v.x,
        Axis::Y => v.y,
        Axis::Z => v.z,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        let mut s = String::new();
        push_number(&mut s, 1.5, 6);
        s.push(' ');
        push_number(&mut s, -0.0000001, 6);
        s.push(' ');
        push_number(&mut s, 120.0, 6);
        s.push(' ');
        push_number(&mut s, -2.25, 6);
        assert_eq!(s, "1.5 0 120 -2.25");
        assert_eq!(position_digits(0.01), 6);
        assert_eq!(position_digits(1.0), 8);
        assert_eq!(position_digits(0.0254), 7);
    }

    #[test]
    fn names_are_made_readable() {
        let id = JointId::from_index(3).unwrap();
        assert_eq!(sanitize("Left Arm{1}", id), "Left_Arm_1_");
        assert_eq!(sanitize("", id), "joint3");
        assert_eq!(sanitize("mixamorig:Hips", id), "mixamorig:Hips");
    }
}
