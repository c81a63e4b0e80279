//! From the canonical model to BVH text: fold the nodes above the skeleton, plan each joint's
//! channels, choose the frame grid and the unit, bake the rest (see `bake.rs`), decompose into
//! continuous Euler angles, print; then read the hierarchy back to check the humanoid.
//!
//! ## Overview
//!
//! - **Nodes above the skeleton.** Nodes above every mapped humanoid bone that are no skin
//!   joint and that the clip leaves at rest (glTF's `Z_UP`, `Armature`) are folded
//!   ([`crate::model::fold`]): not written; their rest transform goes into the top joint's
//!   OFFSET and channels, so the top joint (the hips) is the ROOT, at its world position, and
//!   every joint keeps its world position (`BVH_NODES_FOLDED`).
//! - **Joints.** Every joint is a ROOT or JOINT with rotation channels, so it keeps its name; a
//!   leaf JOINT gets an End Site child that continues its bone. A leaf named `<parent>_End` (what a
//!   BVH reader names an End Site) is written as an End Site (a rotation track on it moves no
//!   joint: dropped, reported). With a matching [`BvhLayout`] every joint keeps the file's kind
//!   and channels instead.
//! - **Channels.** Roots: `Xposition Yposition Zposition` then the three rotations in
//!   [`WriteOptions::order`]; other joints: the three rotations, with the positions first where
//!   the clip moves the joint off its OFFSET (a translation other than the rest by more than
//!   [`MOVE_TOLERANCE`], or a parent whose scale changes: `BVH_JOINT_POSITIONS`), and on every
//!   joint whose translation animates when [`WriteOptions::joint_positions`] is set.
//! - **Rest.** The OFFSETs are the skeleton's rest, whatever the clip holds: BVH's rest is its
//!   OFFSETs, and the clip's values go into the channels.
//! - **Scales.** The rest's are baked into the OFFSETs (`bake.rs`); animated ones move the
//!   children, which then carry position channels; an animated scale that is uneven along the
//!   joint's axes shears its children's frames, which BVH cannot hold: refused.
//! - **Time.** Frame time = `1 / fps` with `fps` from the options, else the layout's frame time,
//!   else the coarsest grid that reproduces the clip, measured (`grid.rs`). Frames run from 0
//!   (or the first key, if earlier) to the last key (the last frame clamps).
//! - **Unit.** [`WriteOptions::scale`]; with [`WriteOptions::pick_unit`], when a reader guessing
//!   the unit from the rest hips height ([`super::units::detect`]) would take the file's for
//!   another, centimetres or metres, whichever reads back (`BVH_UNITS`); when neither does, a
//!   warning says which `--bvh-scale` reads it (`BVH_UNITS_AMBIGUOUS`).
//! - **Humanoid.** When the asset has one, the written hierarchy is read back and mapped as any
//!   BVH is (`roundtrip.rs`); when a bone would read back as another joint, the mapped joints
//!   are named by their VRM 1.0 bone names (`BVH_JOINTS_RENAMED`), and when even those do not
//!   read back the write is refused.
//! - **Rotations** are baked as in `bake.rs` (`L = Q_p,rest · q · q_rest⁻¹ · Q_p,rest⁻¹`) and
//!   decomposed with [`decompose`], each frame's angles nearest the previous frame's.

use std::collections::HashSet;
use std::fmt::Write as _;

use glam::DVec3;

use super::bake::{rest_frames, RestFrame};
use super::channel::{Axis, Channel, EulerOrder};
use super::euler::decompose;
use super::grid;
use super::layout::{rotation_order, BvhLayout};
use super::roundtrip;
use super::units;
use super::{WriteOptions, CENTIMETRES, MAX_DEPTH, MAX_MOTION_VALUES, METRES};
use crate::error::{Diagnostics, Error};
use crate::math::num::Num;
use crate::math::num::{saturating_usize, to_f32};
use crate::math::sample::{locate, Cursor, Interpolation, KeyPosition};
use crate::model::asset::Asset;
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::fold::chain_above_bones;
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::{JointId, Skeleton};

/// Two key values closer than this (metres, or scale factors) count as equal.
const STATIC_TOLERANCE: f32 = 1e-6;

/// How far (metres) the clip may move a joint off its OFFSET before it needs position channels.
pub const MOVE_TOLERANCE: f64 = 1e-6;

/// Frame time of a clip with a single time: 30 fps.
const DEFAULT_FRAME_TIME: f64 = 1.0 / 30.0;

/// Indentation stops growing past this depth (readers ignore it; it keeps deep chains small).
const MAX_INDENT: usize = 64;

/// The BVH text of `clip` on `asset`'s skeleton.
///
/// # Errors
/// [`Error::Unsupported`] for options out of range, an empty skeleton, nesting deeper than
/// [`MAX_DEPTH`], more than [`MAX_MOTION_VALUES`] values, or a humanoid whose bones no naming
/// reads back.
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
    let frames = rest_frames(skeleton, skeleton.rest_locals());
    check_scales(skeleton, &tracks, &frames)?;
    let folded = folded_nodes(asset, &tracks, layout, diagnostics);
    let mut plans = plan_joints(
        skeleton,
        &tracks,
        &frames,
        &folded,
        options,
        layout,
        diagnostics,
    );
    let row_len: usize = plans.iter().map(|p| p.channels.len()).sum();
    let grid = time_grid(
        skeleton,
        &tracks,
        &plans,
        &frames,
        options,
        layout,
        (row_len, &clip.name),
        diagnostics,
    )?;
    if grid.count.saturating_mul(row_len.max(1)) > MAX_MOTION_VALUES {
        return Err(Error::unsupported(format!(
            "cannot write BVH: {} frames × {row_len} channels is more than {MAX_MOTION_VALUES} values; \
             lower the frame rate",
            grid.count
        )));
    }
    let scale = choose_unit(skeleton, &plans, &frames, options, diagnostics);
    let digits = position_digits(scale);
    let head = |plans: &[JointPlan]| {
        let mut text = String::new();
        hierarchy(&mut text, skeleton, plans, &frames, scale, digits);
        text
    };
    if let Some(bones) = asset.humanoids.first().map(|h| &h.bones) {
        let name_of = |plans: &[JointPlan]| {
            roundtrip::mismatches(&head(plans), scale, bones, |j| {
                plans
                    .get(j.index())
                    .filter(|p| p.written)
                    .map(|p| p.name.as_str())
            })
        };
        if !name_of(&plans).is_empty() {
            let renamed = rename_bones(&mut plans, bones);
            let still = name_of(&plans);
            if !still.is_empty() {
                return Err(roundtrip::refusal(&still));
            }
            diagnostics.warn(
                "BVH_JOINTS_RENAMED",
                "",
                format!(
                    "a BVH declares no humanoid and a reader would map these joints' names to other bones, so the mapped joints are named by their VRM 1.0 bone names, which read back as the same bones: {}",
                    list(&renamed)
                ),
            );
        }
    }
    let mut text = head(&plans);
    motion(
        &mut text,
        &MotionInput {
            skeleton,
            plans: &plans,
            tracks: &tracks,
            frames: &frames,
            grid,
            scale,
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

/// Refuses an animated scale that is not uniform where it moves a child: it shears the
/// children's frames, which a BVH (rotations and offsets) cannot follow.
fn check_scales(
    skeleton: &Skeleton,
    tracks: &JointTracks<'_>,
    frames: &[RestFrame],
) -> Result<(), Error> {
    for id in skeleton.joints() {
        let Some(track) = tracks.get(id).scale else {
            continue;
        };
        let uneven = (0..track.key_count())
            .filter_map(|k| track.value(k))
            .map(|v| {
                let (lo, hi) = v.iter().fold((f32::INFINITY, 0.0f32), |(lo, hi), x| {
                    (lo.min(x.abs()), hi.max(x.abs()))
                });
                if hi > 0.0 {
                    f64::from((hi - lo) / hi)
                } else {
                    0.0
                }
            })
            .fold(0.0, f64::max);
        let reach = skeleton
            .children(id)
            .filter_map(|c| frames.get(c.index()))
            .map(|f| f.offset().length())
            .fold(0.0, f64::max);
        if uneven * reach > UNEVEN_SCALE_TOLERANCE {
            return Err(Error::unsupported(format!(
                "cannot write BVH: the clip scales joint {:?} unevenly along its axes (by up to {:.1}%), which moves its children in ways BVH's rotations and offsets cannot hold (up to {} m); convert to .glb, .gltf or H-Anim, which keep the scale",
                skeleton.name(id),
                uneven * 100.0,
                Num(uneven * reach)
            )));
        }
    }
    Ok(())
}

/// How far (metres) an uneven animated scale may move a child before the writer refuses.
const UNEVEN_SCALE_TOLERANCE: f64 = 1e-5;

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
    /// Written at all (folded nodes above the skeleton are not).
    written: bool,
    /// The top of the written hierarchy (a ROOT, under the folded nodes if any).
    top: bool,
    /// Written as an End Site.
    end_site: bool,
    /// The offset of the End Site written inside this leaf JOINT, if one is.
    end_offset: Option<DVec3>,
    /// Its channels (empty for End Sites and folded nodes).
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

    /// The OFFSET written, in metres: the top one at its world position.
    fn offset(&self, frame: &RestFrame) -> DVec3 {
        if self.top {
            frame.parent_position() + frame.offset()
        } else {
            frame.offset()
        }
    }
}

/// Which joints are folded nodes above the skeleton (module docs), by joint index.
fn folded_nodes(
    asset: &Asset,
    tracks: &JointTracks<'_>,
    layout: Option<&BvhLayout>,
    diagnostics: &mut Diagnostics,
) -> Vec<bool> {
    let skeleton = &asset.skeleton;
    let mut folded = vec![false; skeleton.len()];
    let Some(bones) = asset.humanoids.first().map(|h| &h.bones) else {
        return folded;
    };
    if layout.is_some() {
        return folded;
    }
    let still = |j: JointId| {
        let t = tracks.get(j);
        let rest = skeleton.rest_local(j);
        let at = |track: Option<&Track>, value: [f32; 4]| {
            track.is_none_or(|track| {
                is_static(track)
                    && track.value(0).is_some_and(|v| {
                        v.iter()
                            .zip(value)
                            .all(|(a, b)| (a - b).abs() <= STATIC_TOLERANCE)
                    })
            })
        };
        let q = rest.rotation.to_array();
        let q_negated = (-rest.rotation).to_array();
        at(t.translation, rest.translation.extend(0.0).to_array())
            && at(t.scale, rest.scale.extend(0.0).to_array())
            && (at(t.rotation, q) || at(t.rotation, q_negated))
    };
    let chain = chain_above_bones(
        skeleton,
        bones,
        |_| true,
        |j| !asset.skin_joints.contains(&j) && still(j),
    );
    for j in &chain {
        if let Some(slot) = folded.get_mut(j.index()) {
            *slot = true;
        }
    }
    if let Some(last) = chain.last() {
        let names: Vec<String> = chain
            .iter()
            .map(|j| format!("{:?}", skeleton.name(*j)))
            .collect();
        let top = skeleton
            .children(*last)
            .next()
            .map_or("", |c| skeleton.name(c));
        diagnostics.info(
            "BVH_NODES_FOLDED",
            "",
            format!(
                "{} above the skeleton: no skin joints, not animated, not written; their transform is baked into the OFFSET and channels of the ROOT {top:?}, so every joint keeps its world position",
                list(&names)
            ),
        );
    }
    folded
}

/// The largest distance (metres, in the parent's world scale) a translation track takes the
/// joint from its rest translation.
fn translation_drift(track: &Track, rest: glam::Vec3, parent_scale: f64) -> f64 {
    (0..track.key_count())
        .filter_map(|k| track.value(k))
        .map(|v| {
            let d = glam::Vec3::new(
                v.first().copied().unwrap_or(0.0),
                v.get(1).copied().unwrap_or(0.0),
                v.get(2).copied().unwrap_or(0.0),
            ) - rest;
            f64::from(d.length()) * parent_scale
        })
        .fold(0.0, f64::max)
}

/// The largest relative change a scale track makes to the rest scale.
fn scale_drift(track: &Track, rest: glam::Vec3) -> f64 {
    (0..track.key_count())
        .filter_map(|k| track.value(k))
        .flat_map(|v| {
            v.iter()
                .zip(rest.to_array())
                .map(|(s, r)| {
                    if r == 0.0 {
                        0.0
                    } else {
                        f64::from((s / r - 1.0).abs())
                    }
                })
                .collect::<Vec<_>>()
        })
        .fold(0.0, f64::max)
}

fn plan_joints(
    skeleton: &Skeleton,
    tracks: &JointTracks<'_>,
    frames: &[RestFrame],
    folded: &[bool],
    options: &WriteOptions,
    layout: Option<&BvhLayout>,
    diagnostics: &mut Diagnostics,
) -> Vec<JointPlan> {
    let is_folded = |j: JointId| folded.get(j.index()).copied().unwrap_or(false);
    // How much the world scale of each joint changes over the clip (relative, first order).
    let mut drift = vec![0.0f64; skeleton.len()];
    for id in skeleton.joints() {
        let own = tracks
            .get(id)
            .scale
            .map_or(0.0, |t| scale_drift(t, skeleton.rest_local(id).scale));
        let above = skeleton
            .parent(id)
            .and_then(|p| drift.get(p.index()))
            .copied()
            .unwrap_or(0.0);
        if let Some(slot) = drift.get_mut(id.index()) {
            *slot = above + own;
        }
    }
    let mut plans = Vec::with_capacity(skeleton.len());
    let mut used: HashSet<String> = HashSet::new();
    let (mut renamed, mut unnamed_leaves, mut bad_layout) = (Vec::new(), Vec::new(), Vec::new());
    let (mut turning_leaves, mut dropped_translation, mut moved) =
        (Vec::new(), Vec::new(), Vec::new());
    for id in skeleton.joints() {
        let original = skeleton.name(id);
        let mut name = sanitize(original, id);
        if is_folded(id) {
            plans.push(JointPlan {
                name,
                written: false,
                top: false,
                end_site: false,
                end_offset: None,
                channels: Vec::new(),
                order: options.order,
            });
            continue;
        }
        // BVH readers tell joints apart by name (Blender makes one bone per name).
        if used.contains(&name) {
            let mut n = 2;
            while used.contains(&format!("{name}_{n}")) {
                n += 1;
            }
            name = format!("{name}_{n}");
        }
        if name != original {
            renamed.push(format!("{original:?} → {name}"));
        }
        let frame = frames.get(id.index());
        let is_leaf = skeleton.children(id).next().is_none();
        let parent = skeleton.parent(id);
        let is_root = parent.is_none_or(is_folded);
        let parent_name = parent.map_or("", |p| skeleton.name(p));
        // A root is never an End Site, even alone.
        let end_site = is_leaf
            && !is_root
            && match layout {
                Some(l) => l.is_end_site(id),
                None => original == format!("{parent_name}_End"),
            };
        let joint = tracks.get(id);
        let parent_scale = frame.map_or(1.0, |f| f.parent_scale().abs().max_element());
        let translation_moves = joint.translation.is_some_and(|t| {
            translation_drift(t, skeleton.rest_local(id).translation, parent_scale) > MOVE_TOLERANCE
        });
        let parent_drift = parent
            .and_then(|p| drift.get(p.index()))
            .copied()
            .unwrap_or(0.0);
        let scale_moves =
            parent_drift * frame.map_or(0.0, |f| f.offset().length()) > MOVE_TOLERANCE;
        let moves = !end_site && (translation_moves || scale_moves);
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
                let animated = joint.translation.is_some_and(|t| !is_static(t));
                let positions = is_root || moves || (options.joint_positions && animated);
                if positions && !is_root {
                    moved.push(original.to_owned());
                }
                let mut channels = Vec::with_capacity(6);
                if positions {
                    channels.extend([Axis::X, Axis::Y, Axis::Z].map(Channel::Position));
                }
                channels.extend(options.order.channels());
                channels
            }
        };
        let has_positions = channels.iter().any(|c| matches!(c, Channel::Position(_)));
        if moves && !has_positions {
            dropped_translation.push(original.to_owned());
        }
        if end_site {
            if original != format!("{parent_name}_End") {
                unnamed_leaves.push(original.to_owned());
            }
            if joint.rotation.is_some() {
                turning_leaves.push(original.to_owned());
            }
        }
        let end_offset = (is_leaf && !end_site && !is_root && layout.is_none())
            .then(|| frame.map_or(DVec3::ZERO, RestFrame::offset));
        let order = rotation_order(&channels).unwrap_or(options.order);
        if !end_site {
            used.insert(name.clone());
        }
        plans.push(JointPlan {
            name,
            written: true,
            top: is_root,
            end_site,
            end_offset,
            channels,
            order,
        });
    }
    if !renamed.is_empty() {
        diagnostics.warn(
            "BVH_NAME_CHANGED",
            "",
            format!(
                "joint names BVH cannot hold (empty, whitespace or braces, or another joint's) changed: {}",
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
    if !moved.is_empty() {
        diagnostics.info(
            "BVH_JOINT_POSITIONS",
            "",
            format!(
                "{} joints that the clip moves off their rest offset (a translation other than the rest, or a parent's changing scale) carry position channels too: {}",
                moved.len(),
                list(&moved)
            ),
        );
    }
    if !dropped_translation.is_empty() {
        diagnostics.warn(
            "BVH_TRANSLATION_DROPPED",
            "",
            format!(
                "the layout gives no position channels to joints the clip moves off their rest offset: left at rest: {}",
                list(&dropped_translation)
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

/// Names the mapped joints by their VRM 1.0 bone names, and other joints that a reader would
/// take for one of those with a `_0` after; returns the renames, `"old → new"`.
fn rename_bones(plans: &mut [JointPlan], bones: &BoneMap) -> Vec<String> {
    let key = |name: &str| -> String {
        name.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let mut renames = Vec::new();
    let taken: HashSet<String> = bones.iter().map(|(b, _)| key(b.as_str())).collect();
    let mapped: HashSet<usize> = bones.iter().map(|(_, j)| j.index()).collect();
    for (bone, joint) in bones.iter() {
        if let Some(plan) = plans.get_mut(joint.index()).filter(|p| p.written) {
            if plan.name != bone.as_str() {
                renames.push(format!("{} → {}", plan.name, bone.as_str()));
                plan.name = bone.as_str().to_owned();
            }
        }
    }
    for (index, plan) in plans.iter_mut().enumerate() {
        if plan.written
            && !plan.end_site
            && !mapped.contains(&index)
            && taken.contains(&key(&plan.name))
        {
            let new = format!("{}_0", plan.name);
            renames.push(format!("{} → {new}", plan.name));
            plan.name = new;
        }
    }
    renames
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

/// Channels the writer can fill: all three rotations, and no positions or all three.
fn valid_channels(channels: &[Channel]) -> bool {
    let positions = channels
        .iter()
        .filter(|c| matches!(c, Channel::Position(_)))
        .count();
    rotation_order(channels).is_some() && (positions == 0 || positions == 3)
}

/// A name a BVH reader reads back whole: whitespace and braces become `_`; empty becomes
/// `joint<index>` (a name another joint has already gets `_2`, `_3`, … in `plan_joints`).
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

/// The unit to write in: `options.scale`, unless a reader guessing the unit from the rest hips
/// height would take it for another (module docs).
fn choose_unit(
    skeleton: &Skeleton,
    plans: &[JointPlan],
    frames: &[RestFrame],
    options: &WriteOptions,
    diagnostics: &mut Diagnostics,
) -> f64 {
    let height = hips_height(skeleton, plans, frames);
    let reads = |scale: f64| {
        let read = units::detect(height / scale).metres_per_unit();
        (read - scale).abs() <= 1e-9 * scale
    };
    if reads(options.scale) {
        return options.scale;
    }
    if options.pick_unit {
        if let Some(scale) = [CENTIMETRES, METRES].into_iter().find(|s| reads(*s)) {
            diagnostics.info(
                "BVH_UNITS",
                "",
                format!(
                    "written in {} (1 unit = {} m): the rest hips are {} m above the lowest joint, which a reader guessing the unit reads right only in this unit",
                    if scale == METRES { "metres" } else { "centimetres" },
                    Num(scale),
                    Num(height)
                ),
            );
            return scale;
        }
    }
    let guess = units::detect(height / options.scale).metres_per_unit();
    diagnostics.warn(
        "BVH_UNITS_AMBIGUOUS",
        "",
        format!(
            "the rest hips are {} m above the lowest joint: a reader guessing the unit would take 1 file unit for {} m, not {} m; read it back with --bvh-scale {}",
            Num(height),
            Num(guess),
            Num(options.scale),
            Num(options.scale)
        ),
    );
    options.scale
}

/// The rest hips height (metres) a reader measures ([`units::hips_height`]): the first ROOT's
/// height above the lowest joint or End Site of its hierarchy.
fn hips_height(skeleton: &Skeleton, plans: &[JointPlan], frames: &[RestFrame]) -> f64 {
    let mut at: Vec<Option<DVec3>> = vec![None; plans.len()];
    let mut points: Vec<[f64; 3]> = Vec::new();
    for ((id, plan), frame) in skeleton.joints().zip(plans).zip(frames) {
        if !plan.written {
            continue;
        }
        if plan.top && !points.is_empty() {
            break;
        }
        let base = skeleton
            .parent(id)
            .and_then(|p| at.get(p.index()).copied().flatten())
            .unwrap_or(DVec3::ZERO);
        let here = base + plan.offset(frame);
        if let Some(slot) = at.get_mut(id.index()) {
            *slot = Some(here);
        }
        points.push(here.to_array());
        if let Some(end) = plan.end_offset {
            points.push((here + end).to_array());
        }
    }
    units::hips_height(&points)
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
        to_f32(self.start + frame as f64 * self.frame_time)
    }

    /// How near a key a frame must be to take the key's value: a thousandth of a frame.
    fn snap(&self) -> f32 {
        to_f32(self.frame_time * 1e-3)
    }
}

#[allow(clippy::too_many_arguments)]
fn time_grid(
    skeleton: &Skeleton,
    tracks: &JointTracks<'_>,
    plans: &[JointPlan],
    frames: &[RestFrame],
    options: &WriteOptions,
    layout: Option<&BvhLayout>,
    (row_len, clip): (usize, &str),
    diagnostics: &mut Diagnostics,
) -> Result<Grid, Error> {
    let all: Vec<&Track> = tracks.all().collect();
    // A clip runs from 0 (glTF, H-Anim) even where its first key comes later.
    let start = all
        .iter()
        .map(|t| f64::from(t.start_time()))
        .fold(0.0, f64::min);
    let end = all
        .iter()
        .map(|t| f64::from(t.end_time()))
        .fold(f64::NEG_INFINITY, f64::max);
    if all.is_empty() {
        return Ok(Grid {
            start: 0.0,
            frame_time: options
                .fps
                .map(|f| 1.0 / f)
                .or(layout.map(BvhLayout::frame_time))
                .unwrap_or(DEFAULT_FRAME_TIME),
            count: 1,
        });
    }
    let frame_time = match (options.fps, layout.map(BvhLayout::frame_time)) {
        (Some(fps), _) => 1.0 / fps,
        (None, Some(ft)) if ft.is_finite() && ft > 0.0 => ft,
        _ => {
            let joints = measured_joints(skeleton, tracks, plans, frames);
            let max_intervals = (MAX_MOTION_VALUES / row_len.max(1)).saturating_sub(1);
            grid::choose(&joints, start, end, max_intervals, diagnostics, clip)?
                .map_or(DEFAULT_FRAME_TIME, |c| (end - start) / c.intervals as f64)
        }
    };
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
        count: saturating_usize(intervals) + 1,
    })
}

/// The written joints as the grid measure sees them.
fn measured_joints<'c>(
    skeleton: &Skeleton,
    tracks: &JointTracks<'c>,
    plans: &[JointPlan],
    frames: &[RestFrame],
) -> Vec<grid::Joint<'c>> {
    let mut slot: Vec<Option<usize>> = vec![None; plans.len()];
    let mut joints = Vec::new();
    for ((id, plan), frame) in skeleton.joints().zip(plans).zip(frames) {
        if !plan.written {
            continue;
        }
        let t = tracks.get(id);
        let parent = skeleton
            .parent(id)
            .and_then(|p| slot.get(p.index()).copied().flatten());
        if let Some(s) = slot.get_mut(id.index()) {
            *s = Some(joints.len());
        }
        let rest = skeleton.rest_local(id);
        joints.push(grid::Joint {
            rotation: t.rotation.filter(|_| !plan.channels.is_empty()),
            translation: t.translation.filter(|_| plan.has_positions()),
            rest: (rest.rotation, rest.translation),
            parent_scale: frame.parent_scale(),
            base: if parent.is_none() {
                frame.parent_rotation()
            } else {
                glam::DQuat::IDENTITY
            },
            parent,
        });
    }
    joints
}

/// Decimals for positions: 6 in centimetres, more for larger units.
fn position_digits(scale: f64) -> usize {
    let extra = (scale / 0.01).log10().ceil();
    if extra.is_finite() && extra > 0.0 {
        6 + saturating_usize(extra.min(4.0))
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
        if !plan.written {
            continue;
        }
        let parent = skeleton.parent(id).filter(|_| !plan.top);
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
        push_offset(out, plan.offset(frame), scale, digits);
        if !plan.end_site {
            indent(out, depth + 1);
            let _ = write!(out, "CHANNELS {}", plan.channels.len());
            for channel in &plan.channels {
                let _ = write!(out, " {channel}");
            }
            out.push('\n');
        }
        if let Some(end) = plan.end_offset {
            indent(out, depth + 1);
            out.push_str("End Site\n");
            indent(out, depth + 1);
            out.push_str("{\n");
            indent(out, depth + 2);
            push_offset(out, end, scale, digits);
            indent(out, depth + 1);
            out.push_str("}\n");
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
    skeleton: &'a Skeleton,
    plans: &'a [JointPlan],
    tracks: &'a JointTracks<'c>,
    frames: &'a [RestFrame],
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
    let skeleton = input.skeleton;
    let rest = skeleton.rest_locals();
    let joints = input.plans.len();
    let mut previous: Vec<Option<[f64; 3]>> = vec![None; joints];
    let mut cursors: Vec<[Cursor; 3]> = vec![[Cursor::default(); 3]; joints];
    // Each joint's world scale at the frame's time (the TRS product's, as `bake.rs` uses).
    let mut world_scale: Vec<DVec3> = vec![DVec3::ONE; joints];
    let scaled = input.tracks.joints.iter().any(|t| t.scale.is_some());
    for frame in 0..input.grid.count {
        let t = input.grid.time(frame);
        let snap = input.grid.snap();
        if scaled || frame == 0 {
            for index in 0..joints {
                let mut local = rest.get(index).map_or([1.0; 3], |r| r.scale.to_array());
                let track = input.tracks.joints.get(index).and_then(|t| t.scale);
                if let (Some(track), Some(cursor)) = (track, cursors.get_mut(index)) {
                    sample(track, t, snap, &mut cursor[2], &mut local);
                }
                let above = parent_world_scale(skeleton, &world_scale, index);
                if let Some(slot) = world_scale.get_mut(index) {
                    *slot = above * glam::Vec3::from_array(local).as_dvec3();
                }
            }
        }
        let mut first = true;
        for (index, plan) in input.plans.iter().enumerate() {
            if plan.channels.is_empty() {
                continue;
            }
            let (Some(rest), Some(rest_frame), Some(cursor), Some(prev)) = (
                rest.get(index),
                input.frames.get(index),
                cursors.get_mut(index),
                previous.get_mut(index),
            ) else {
                continue;
            };
            let tracks = input.tracks.joints.get(index).copied().unwrap_or_default();
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
            let parent_scale = parent_world_scale(skeleton, &world_scale, index);
            let mut position =
                rest_frame.local_position_under(glam::Vec3::from_array(translation), parent_scale);
            if plan.top {
                position += rest_frame.parent_position();
            }
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

/// The world scale of joint `index`'s parent this frame (`world_scale` holds each joint's, in
/// skeleton order: parents first); one for a root.
fn parent_world_scale(skeleton: &Skeleton, world_scale: &[DVec3], index: usize) -> DVec3 {
    skeleton
        .parents()
        .get(index)
        .copied()
        .flatten()
        .and_then(|p| world_scale.get(p.index()))
        .copied()
        .unwrap_or(DVec3::ONE)
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
