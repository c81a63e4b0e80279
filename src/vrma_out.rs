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
//! retargets the clip onto it by world deltas ([`crate::retarget::bake`]), which measures and
//! turns as `retarget` does. A humanoid that already rests so (a declared T-pose facing +Z
//! with the hips above the ground: VRM 1.0, glTF with `EXT_skeleton_humanoid`, the mannequin)
//! is written as it is, its tracks untouched.
//!
//! ```no_run
//! use std::path::Path;
//! use humanoid::error::Diagnostics;
//! # fn main() -> Result<(), humanoid::Error> {
//! let read = humanoid::read(Path::new("walk.bvh"))?; // mapped by the tables
//! let mut diagnostics = Diagnostics::new();
//! let clip = &read.asset.clips[0];
//! let vrma = humanoid::vrma_out::vrma_asset(&read.asset, clip, &mut diagnostics)?;
//! assert_eq!(vrma.clips.len(), 1);
//! # Ok(()) }
//! ```

use glam::{Quat, Vec3};

use crate::asset::{Asset, Facing, HumanoidSkeleton};
use crate::error::{Diagnostics, Error};
use crate::formats::Format;
use crate::model::clip::{Clip, TrackTarget};
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::{JointId, RawJoint, Skeleton};
use crate::model::{HumanBone, Profile};
use crate::pose::retarget::{hips_height, Side};
use crate::pose::trs::Trs;

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
    let rest_hips_y = source.skeleton.rest_world(hips).translation.y;
    if humanoid.declared_t_pose && source.facing == Facing::PlusZ && rest_hips_y > MIN_HIPS_HEIGHT {
        let mut kept = source.clone();
        kept.clips = vec![clip.clone()];
        return Ok(kept);
    }
    let side = Side::new(source, "animation")?;
    let target = t_pose_target(&side, hips)?;
    report_dropped(clip, diagnostics);
    let baked = crate::retarget::bake(source, clip, &target, None, diagnostics)?;
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
/// measures for it (the lowest joint of the T-pose on the ground): one joint per mapped bone
/// (eyes left out: a VRMA has none), each under its nearest mapped ancestor, at identity rest
/// rotations.
fn t_pose_target(side: &Side<'_>, hips: JointId) -> Result<Asset, Error> {
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
    let lift = Vec3::new(0.0, height - canonical(hips).y, 0.0);
    let kept = |joint: JointId| {
        bones
            .bone_of(joint)
            .is_some_and(|b| !matches!(b, HumanBone::LeftEye | HumanBone::RightEye))
    };
    // Source joints in skeleton order (parents first), so a kept parent precedes its child.
    let joints: Vec<JointId> = skeleton.joints().filter(|j| kept(*j)).collect();
    let mut raw = Vec::with_capacity(joints.len());
    for &joint in &joints {
        let parent = skeleton
            .ancestors(joint)
            .find(|a| kept(*a))
            .and_then(|a| joints.iter().position(|j| *j == a));
        let translation = match parent.and_then(|p| joints.get(p)) {
            Some(&p) => canonical(joint) - canonical(p),
            None => canonical(joint) + lift,
        };
        raw.push(RawJoint {
            name: skeleton.name(joint).to_owned(),
            parent,
            rest: Trs {
                translation,
                rotation: Quat::IDENTITY,
                scale: Vec3::ONE,
            },
        });
    }
    let (t_pose, ids) =
        Skeleton::from_raw(raw).map_err(|e| Error::unsupported(format!("writing VRMA: {e}")))?;
    let mut target_bones = BoneMap::new();
    for (&joint, &id) in joints.iter().zip(&ids) {
        if let Some(bone) = bones.bone_of(joint) {
            target_bones.set(bone, Some(id));
        }
    }
    let count = t_pose.len();
    let mut target = Asset::new(Format::Vrma, t_pose, (0..count).collect());
    target.humanoids.push(HumanoidSkeleton {
        root: target_bones.get(HumanBone::Hips),
        bones: target_bones,
        declared_t_pose: true,
    });
    Ok(target)
}
