//! A humanoid clip as a VRMA that a player plays right: `convert … .vrma` and `retarget … -o
//! x.vrma`.
//!
//! A VRMA's nodes rest in the VRM T-pose facing +Z, and players (three-vrm) scale its hips
//! track by the model's hips height over the VRMA's rest hips height, so that rest must stand
//! with the hips at their real height above the ground (`y = 0`). What a file hands us often
//! is not that: a BVH rests with its arms down and its hips at the origin, Soldier faces −Z, a
//! VRM 0.x model faces −Z. [`vrma_asset`] then builds the humanoid's own T-pose — every mapped
//! bone where the rest-pose normaliser swings it (`crate::pose::normalize`), turned to face +Z,
//! the lowest joint on the ground, identity rest rotations (the VRM T-pose's bone frames) — and
//! retargets the clip onto it by world deltas ([`crate::ops::retarget::bake_keeping`] with
//! [`Keep::Positions`]). A humanoid that already rests so (a declared T-pose facing +Z with the
//! hips above the ground: VRM 1.0, glTF with `EXT_skeleton_humanoid`, the mannequin) is written
//! as it is, its tracks untouched.
//!
//! The rebased VRMA is the input's own skeleton: at every key every mapped bone stands where the
//! input puts it, turned by the file's facing (the measured turn to the nearest quarter turn,
//! so that a rest standing off its axes — Soldier's idle stance, 31° — does not turn the
//! motion; the T-pose itself is built with the measured turn, so it faces +Z). Each bone keeps
//! its distance to its mapped parent (the T-pose offsets are the rest offsets turned by the
//! parent's correction); the hips track is the input's hips path, unscaled (written at every
//! key, the rest hips standing at their T-pose height: players scale that path by the model's
//! hips height over it, so `VRMA_HIPS_HEIGHT` holds); only the rest differs (`VRMA_REBASED`:
//! bones turned about their joints, the hips raised or lowered to their height, never moved
//! sideways). Where unmapped joints between two mapped bones move over the clip (or a bone
//! stretches), the child hangs from a non-humanoid offset node whose translation track keeps
//! its position (`VRMA_OFFSET_NODES`, module `offsets`). A VRMA humanoid holds no eyes: mapped eyes
//! are reported by name (`VRMA_EYES_DROPPED`).
//!
//! ```no_run
//! use std::path::Path;
//! use humanoid::error::Diagnostics;
//! # fn main() -> Result<(), humanoid::Error> {
//! let read = humanoid::read_asset(Path::new("walk.bvh"))?; // mapped by the tables
//! let mut diagnostics = Diagnostics::new();
//! let clip = &read.asset.clips[0];
//! let vrma = humanoid::vrma_out::vrma_asset(&read.asset, clip, &mut diagnostics)?;
//! assert_eq!(vrma.clips.len(), 1);
//! # Ok(()) }
//! ```

mod offsets;

use glam::{Quat, Vec3};

use crate::error::{Diagnostics, Error};
use crate::math::trs::Trs;
use crate::model::asset::{Asset, Facing, HumanoidSkeleton};
use crate::model::clip::{Clip, TrackTarget};
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::{JointId, RawJoint, Skeleton};
use crate::model::Format;
use crate::model::{HumanBone, Profile};
use crate::pose::retarget::{hips_height, Keep, Side};

/// Below this height (metres) the hips are not above the ground.
const MIN_HIPS_HEIGHT: f32 = 1e-6;

/// The asset a VRMA of `clip` is built from (see the module docs): `source` itself with only
/// that clip when its rest already is the VRM T-pose facing +Z with the hips above the ground;
/// else the humanoid's T-pose (its mapped bones only, named as in the source) with the clip
/// retargeted onto it, reported as `VRMA_REBASED`.
///
/// # Errors
/// The source has no humanoid, lacks a bone VRM requires, or the retarget fails (a hips
/// motion over a source hips height of 0, a degenerate rest).
pub fn vrma_asset(
    source: &Asset,
    clip: &Clip,
    diagnostics: &mut Diagnostics,
) -> Result<Asset, Error> {
    let humanoid = source.humanoids.first().ok_or_else(|| {
        Error::unsupported(
            "a .vrma holds a humanoid clip: the file declares no humanoid and no mapping table fits (map it with --map TABLE or --map auto)",
        )
    })?;
    humanoid.bones.require(Profile::Vrm1).map_err(|e| {
        Error::unsupported(format!(
            "writing VRMA: {e} (name them with --map TABLE or --map FILE.toml)"
        ))
    })?;
    let hips = humanoid
        .bones
        .get(HumanBone::Hips)
        .ok_or_else(|| Error::unsupported("writing VRMA: the humanoid has no hips"))?;
    report_eyes(source, humanoid, clip, diagnostics);
    let rest_hips_y = source.skeleton.rest_world(hips).translation.y;
    if humanoid.declared_t_pose && source.facing == Facing::PlusZ && rest_hips_y > MIN_HIPS_HEIGHT {
        let mut kept = source.clone();
        kept.clips = vec![clip.clone()];
        return Ok(kept);
    }
    let played = crate::pose::normalized::playable(source, clip);
    let clip: &Clip = &played;
    let side = Side::new(source, "animation")?;
    let facing = quarter_turn(side.turn);
    let pairs = kept_pairs(&source.skeleton, &humanoid.bones);
    let times = crate::pose::fk::Sampler::new(&source.skeleton, clip).key_times();
    let moving = offsets::moving(&source.skeleton, clip, &pairs, &times);
    let (target, nodes) = t_pose_target(&side, hips, facing, &moving)?;
    report_dropped(clip, diagnostics);
    let keep = Keep::Positions { facing };
    let mut baked =
        crate::ops::retarget::bake_keeping(source, clip, &target, None, keep, diagnostics)?;
    offsets::add_tracks(
        &source.skeleton,
        clip,
        &target.skeleton,
        &mut baked,
        &nodes,
        facing,
    )?;
    if !nodes.is_empty() {
        let names: Vec<&str> = nodes
            .iter()
            .map(|n| source.skeleton.name(n.source_child))
            .collect();
        diagnostics.info(
            "VRMA_OFFSET_NODES",
            "/nodes",
            format!(
                "{} bone(s) do not hang rigidly from their mapped parent over the clip (unmapped joints between them move, or the bone stretches): {}; each hangs from a non-humanoid node whose translation track keeps its world position (players play the bones' rotations and ignore those tracks)",
                names.len(),
                names.join(", ")
            ),
        );
    }
    let height = target
        .humanoids
        .first()
        .and_then(|h| h.bones.get(HumanBone::Hips))
        .map_or(0.0, |h| target.skeleton.rest_world(h).translation.y);
    diagnostics.info(
        "VRMA_REBASED",
        "/nodes",
        format!(
            "the VRMA rests in the VRM T-pose facing +Z with the hips {height:.3} m above the ground ({}); clip {:?} retargeted onto it by world deltas ({} keys)",
            why_rebased(source, humanoid, rest_hips_y),
            clip.name,
            baked.tracks().first().map_or(0, |t| t.key_count())
        ),
    );
    let mut out = target;
    out.clips = vec![baked];
    Ok(out)
}

/// Why the source's rest could not be written as it is.
fn why_rebased(source: &Asset, humanoid: &HumanoidSkeleton, rest_hips_y: f32) -> String {
    let mut why = Vec::new();
    if !humanoid.declared_t_pose {
        why.push("the input's rest is measured, not declared a T-pose");
    }
    if source.facing == Facing::MinusZ {
        why.push("the input faces −Z");
    }
    if rest_hips_y <= MIN_HIPS_HEIGHT {
        why.push("the input's rest hips are not above y = 0");
    }
    why.join("; ")
}

/// The turn about +Y nearest to `turn` by quarter turns: a file's facing (its axes), which
/// the motion is turned by, where the measured turn (from the rest's hip and shoulder
/// sockets) also holds how the rest stands (Soldier's node rest, its idle stance, stands 30°
/// from its −Z facing).
fn quarter_turn(turn: Quat) -> Quat {
    let (axis, angle) = turn.to_axis_angle();
    let yaw = if axis.y < 0.0 { -angle } else { angle };
    let quarter = std::f32::consts::FRAC_PI_2;
    Quat::from_rotation_y((yaw / quarter).round() * quarter)
}

/// The eyes a VRMA cannot hold: `VRMC_vrm_animation`'s humanoid lists no `leftEye` or
/// `rightEye` (its gaze is the lookAt node), so mapped eyes are not written, said here by name
/// (with their joints, and their tracks in `clip`).
fn report_eyes(
    source: &Asset,
    humanoid: &HumanoidSkeleton,
    clip: &Clip,
    diagnostics: &mut Diagnostics,
) {
    let eyes: Vec<String> = [HumanBone::LeftEye, HumanBone::RightEye]
        .into_iter()
        .filter_map(|bone| {
            let joint = humanoid.bones.get(bone)?;
            let tracks = clip.tracks_for(TrackTarget::Joint(joint)).count();
            let moved = if tracks > 0 {
                format!(", {tracks} track(s)")
            } else {
                String::new()
            };
            Some(format!(
                "{} (joint {:?}{moved})",
                bone.as_str(),
                source.skeleton.name(joint)
            ))
        })
        .collect();
    if !eyes.is_empty() {
        diagnostics.warn(
            "VRMA_EYES_DROPPED",
            "/extensions/VRMC_vrm_animation/humanoid",
            format!(
                "a VRMA humanoid holds no eye bones (its gaze is the lookAt node): {} not written",
                eyes.join(", ")
            ),
        );
    }
}

/// Tracks a rebased VRMA does not carry: expressions, gaze and morph weights (the retarget
/// carries the humanoid's rotations and the hips' path).
fn report_dropped(clip: &Clip, diagnostics: &mut Diagnostics) {
    let dropped: Vec<String> = clip
        .tracks()
        .iter()
        .filter(|t| matches!(t.target(), TrackTarget::Expression(_) | TrackTarget::LookAt))
        .map(|t| format!("{} {}", t.target(), t.property()))
        .collect();
    if !dropped.is_empty() {
        diagnostics.warn(
            "VRMA_TRACK_DROPPED",
            format!("clip {:?}", clip.name),
            format!(
                "{} expression or gaze track(s) are not carried onto the rebased VRMA: {}",
                dropped.len(),
                dropped.join(", ")
            ),
        );
    }
}

/// The humanoid of `side` in its T-pose, facing +Z, its hips at the height the retargeter
/// measures for it (the lowest joint of the T-pose on the ground) and where they rest
/// horizontally (turned by `facing`): one joint per mapped bone (eyes left out: a VRMA has
/// none), each under its nearest mapped ancestor, at identity rest rotations; a `moving` child
/// hangs from an offset node (returned with the joints it stands between).
fn t_pose_target(
    side: &Side<'_>,
    hips: JointId,
    facing: Quat,
    moving: &[JointId],
) -> Result<(Asset, Vec<offsets::OffsetNode>), Error> {
    let asset = side.asset;
    let skeleton = &asset.skeleton;
    let bones = &side.humanoid.bones;
    let positions = crate::pose::normalize::t_pose_positions(skeleton, bones, &side.corrections);
    let to_canonical = side.turn.inverse();
    let canonical = |joint: JointId| -> Vec3 {
        to_canonical * positions.get(joint.index()).copied().unwrap_or(Vec3::ZERO)
    };
    let height = if side.humanoid.declared_t_pose {
        hips_height(asset, hips)
    } else {
        crate::pose::normalize::t_pose_hips_height(skeleton, bones, &side.corrections)
            .filter(|h| *h > MIN_HIPS_HEIGHT)
            .unwrap_or_else(|| hips_height(asset, hips))
    };
    if !(height.is_finite() && height > MIN_HIPS_HEIGHT) {
        return Err(Error::unsupported(format!(
            "writing VRMA: the hips stand {height} m above the lowest joint of the T-pose; a player scales the hips motion by that height"
        )));
    }
    // The hips stand where they rest, turned by the file's facing (the motion's turn), at
    // their height above the T-pose's lowest joint.
    let rest_hips = facing.inverse() * skeleton.rest_world(hips).translation;
    let root = Vec3::new(rest_hips.x, height, rest_hips.z);
    // Source joints in skeleton order (parents first), so a kept parent precedes its child;
    // a moving child gets an offset node between it and its parent.
    let parent_of: std::collections::HashMap<JointId, JointId> =
        kept_pairs(skeleton, bones).into_iter().collect();
    let joints: Vec<JointId> = skeleton.joints().filter(|j| kept(bones, *j)).collect();
    let mut raw: Vec<RawJoint> = Vec::with_capacity(joints.len() + moving.len());
    // Raw index per kept joint, and per moving child its offset node's raw index.
    let mut raw_of: std::collections::HashMap<JointId, usize> = Default::default();
    let mut offset_raw: Vec<(JointId, JointId, usize)> = Vec::new();
    let at = |translation: Vec3| Trs {
        translation,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };
    for &joint in &joints {
        let parent = parent_of.get(&joint).copied();
        let translation = match parent {
            Some(p) => canonical(joint) - canonical(p),
            None if joint == hips => root,
            None => canonical(joint) - canonical(hips) + root,
        };
        let mut parent_raw = parent.and_then(|p| raw_of.get(&p).copied());
        let mut rest = at(translation);
        if let (Some(p), true) = (parent, moving.contains(&joint)) {
            offset_raw.push((joint, p, raw.len()));
            raw.push(RawJoint {
                name: offset_name(skeleton, joint),
                parent: parent_raw,
                rest,
            });
            parent_raw = Some(raw.len() - 1);
            rest = at(Vec3::ZERO);
        }
        raw_of.insert(joint, raw.len());
        raw.push(RawJoint {
            name: skeleton.name(joint).to_owned(),
            parent: parent_raw,
            rest,
        });
    }
    let (t_pose, ids) =
        Skeleton::from_raw(raw).map_err(|e| Error::unsupported(format!("writing VRMA: {e}")))?;
    let mut target_bones = BoneMap::new();
    for (joint, &index) in &raw_of {
        if let (Some(bone), Some(&id)) = (bones.bone_of(*joint), ids.get(index)) {
            target_bones.set(bone, Some(id));
        }
    }
    let nodes = offset_raw
        .iter()
        .filter_map(|&(child, parent, index)| {
            Some(offsets::OffsetNode {
                source_child: child,
                source_parent: parent,
                node: *ids.get(index)?,
            })
        })
        .collect();
    let count = t_pose.len();
    let mut target = Asset::new(Format::Vrma, t_pose, (0..count).collect());
    target.humanoids.push(HumanoidSkeleton {
        root: target_bones.get(HumanBone::Hips),
        bones: target_bones,
        declared_t_pose: true,
    });
    Ok((target, nodes))
}

/// Whether a source joint is written to a rebased VRMA: a mapped bone other than the eyes.
fn kept(bones: &BoneMap, joint: JointId) -> bool {
    bones
        .bone_of(joint)
        .is_some_and(|b| !matches!(b, HumanBone::LeftEye | HumanBone::RightEye))
}

/// (joint, its nearest kept ancestor) for every kept joint below another: the parent each has
/// in a rebased VRMA.
fn kept_pairs(skeleton: &Skeleton, bones: &BoneMap) -> Vec<(JointId, JointId)> {
    skeleton
        .joints()
        .filter(|j| kept(bones, *j))
        .filter_map(|j| Some((j, skeleton.ancestors(j).find(|a| kept(bones, *a))?)))
        .collect()
}

/// A name for the offset node above `joint`: `<name>_offset`, made unique among the source's
/// joint names.
fn offset_name(skeleton: &Skeleton, joint: JointId) -> String {
    let base = format!("{}_offset", skeleton.name(joint));
    let mut name = base.clone();
    let mut n = 2;
    while skeleton.find(&name).is_some() {
        name = format!("{base}{n}");
        n += 1;
    }
    name
}
