//! Contact-aware baking ([`crate::pose::contacts`]): the world-delta bake with the soles'
//! T-pose, the hips scaled by the legs and the source's leg joints captured at every key, then
//! the solver over the keys. Where nothing can be planted the output is the `--contacts off`
//! bake, exactly, and the report says why.

use glam::Vec3;

use super::{assemble, key_times, pose_keys, Keys, Layout};
use crate::error::{Diagnostics, Error};
use crate::model::clip::Clip;
use crate::model::skeleton::JointId;
use crate::model::{Asset, HumanBone};
use crate::pose::contacts::chain::Baked;
use crate::pose::contacts::detect::{self, Thresholds};
use crate::pose::contacts::report::SolePitches;
use crate::pose::contacts::solve::{self, SourceLegs, Target, CAPTURED};
use crate::pose::contacts::{sole, ContactReport};
use crate::pose::fk::Sampler;
use crate::pose::retarget::{Keep, Retargeter, Side};

/// At most this many source times are posed to measure the source's sole pitch.
const SOLE_SAMPLES: usize = 512;

/// The retargeted clip with the feet planted, and the report; with `compare`, the report also
/// measures the `--contacts off` bake.
///
/// # Errors
/// As [`super::bake`].
pub(super) fn bake(
    source: &Asset,
    clip: &Clip,
    target: &Asset,
    fps: Option<f32>,
    compare: bool,
    diagnostics: &mut Diagnostics,
) -> Result<(Clip, ContactReport), Error> {
    let played = crate::pose::normalized::playable(source, clip);
    let clip: &Clip = &played;
    let mut report = ContactReport::default();
    let source_side = Side::new(source, "animation")?;
    let target_side = Side::new(target, "model")?;
    let layout = Layout::of(target)?;
    let target_def = Target {
        skeleton: &target.skeleton,
        bones: &target_side.humanoid.bones,
        turn: target_side.turn,
    };
    let source_bones = &source_side.humanoid.bones;
    let capture: Vec<Option<JointId>> = CAPTURED.iter().map(|b| source_bones.get(*b)).collect();
    let legs_of = |bones: &crate::model::humanoid::BoneMap| {
        [
            (HumanBone::LeftUpperLeg, HumanBone::LeftFoot),
            (HumanBone::RightUpperLeg, HumanBone::RightFoot),
        ]
        .iter()
        .any(|(u, f)| bones.get(*u).is_some() && bones.get(*f).is_some())
    };
    let source_leg = solve::leg_length(&source.skeleton, source_bones);
    let why_not = if !legs_of(source_bones) || source_leg.is_none_or(|l| l <= 1e-6) {
        Some("the animation has no legs mapped (upper leg, lower leg, foot): no plant can be found")
    } else if target_def.leg().is_none_or(|l| l <= 1e-6) {
        Some("the model has no legs mapped (upper leg, lower leg, foot): nothing can be planted")
    } else {
        None
    };
    if let Some(why) = why_not {
        return copy(source, clip, target, fps, report, why, diagnostics);
    }
    for (bone, whose) in [
        (HumanBone::LeftToes, "animation"),
        (HumanBone::RightToes, "animation"),
    ]
    .iter()
    .filter(|(b, _)| source_bones.get(*b).is_none())
    .chain(
        [
            (HumanBone::LeftToes, "model"),
            (HumanBone::RightToes, "model"),
        ]
        .iter()
        .filter(|(b, _)| target_def.bones.get(*b).is_none()),
    ) {
        report.note(format!(
            "the {whose} has no {} bone: that foot is planted by its ankle alone",
            bone.as_str()
        ));
    }

    // The soles' T-pose where a side's is measured, not declared.
    let source_pitch = if source_side.declared_t_pose {
        [None; 2]
    } else {
        source_sole_pitch(&source_side, clip, source_leg.unwrap_or(1.0))
    };
    let target_pitch = if target_side.declared_t_pose {
        [None; 2]
    } else {
        sole::rest_pitch(&target.skeleton, target_def.bones, target_side.turn)
    };
    let soles = sole_turns(&target_side, source_pitch, target_pitch);

    // The exact world-delta bake, the source's legs captured at every key.
    let retargeter = Retargeter::keeping(
        source_side,
        clip,
        target_side.clone(),
        Keep::Directions,
        diagnostics,
    )?;
    let times = key_times(&retargeter, clip, fps, &layout)?;
    let mut keys = pose_keys(&clip.name, &retargeter, &times, &layout, &capture)?;
    let legs = SourceLegs {
        leg: source_leg.unwrap_or(1.0),
        has: std::array::from_fn(|i| capture.get(i).is_some_and(Option::is_some)),
        positions: std::mem::take(&mut keys.captured),
    };
    let plants = solve::find_plants(target_def, &legs, &times);
    let mut baked = baked(&times, &layout, &mut keys);
    if compare {
        // The same figures on the world-delta bake, before the solver changes it.
        report.without_contacts = Some(solve::measure(target_def, &plants, &baked));
    }
    let solved = solve::solve(target_def, &legs, &plants, &soles, &mut baked);
    report.applied = solved.applied && solved.solver.frames_solved > 0;
    report.notes.extend(solved.notes);
    report.solver = solved.solver;
    if compare {
        report.joints = solve::measure(target_def, &plants, &baked);
    }
    let planted: usize = plants.legs.iter().flatten().map(Vec::len).sum();
    if planted > 0 {
        report.solver.sole_pitch_deg = SolePitches {
            source: source_pitch.map(|p| p.map(f32::to_degrees)),
            target: target_pitch.map(|p| p.map(f32::to_degrees)),
        };
        diagnostics.info(
            "CONTACTS_PLANTED",
            "",
            format!(
                "contacts: {planted} plants of the feet and toes kept on the model; {} of {} keys changed, ankles moved up to {:.1} mm, hips lowered up to {:.1} mm (--contacts off for the exact world-delta copy; --report for the figures)",
                report.solver.frames_solved,
                report.solver.frames,
                report.solver.ankle_moved_max_mm,
                report.solver.hips_drop_max_mm
            ),
        );
    } else {
        let why = "no foot of the animation stays put on a ground in this clip (an in-place cycle whose feet slide back, a swim, a jump): nothing to plant";
        report.note(why);
        let done = if report.applied {
            format!(
                "the world-delta copy (--contacts off) with its feet and toes kept above the floor at {} of {} keys",
                report.solver.frames_solved, report.solver.frames
            )
        } else {
            "the world-delta copy (--contacts off), exactly".to_owned()
        };
        diagnostics.warn(
            "CONTACTS_NOT_PLANTED",
            "",
            format!("contacts: {why}; the output is {done}"),
        );
    }
    let clip = assemble(&clip.name, times, &layout, keys, target)?;
    Ok((clip, report))
}

/// Per leg, the constant turns of the foot and toes onto the soles' T-pose
/// ([`sole::turn`]).
fn sole_turns(
    target: &Side<'_>,
    source_pitch: [Option<f32>; 2],
    target_pitch: [Option<f32>; 2],
) -> [[glam::Quat; 2]; 2] {
    let skeleton = &target.asset.skeleton;
    let bones = &target.humanoid.bones;
    let t_pose = |bone: HumanBone| {
        let rest = bones
            .get(bone)
            .map_or(glam::Quat::IDENTITY, |j| skeleton.rest_world(j).rotation);
        let correction = target
            .corrections
            .get(bone.index())
            .copied()
            .unwrap_or(glam::Quat::IDENTITY);
        correction * rest
    };
    std::array::from_fn(|leg| {
        let (foot, toes) = sole::FEET
            .get(leg)
            .copied()
            .unwrap_or((HumanBone::LeftFoot, HumanBone::LeftToes));
        let (s, t) = (
            source_pitch.get(leg).copied().flatten(),
            target_pitch.get(leg).copied().flatten(),
        );
        [
            sole::turn(target.turn, s, t, t_pose(foot)),
            sole::turn(target.turn, s, t, t_pose(toes)),
        ]
    })
}

/// The `--contacts off` bake, with the report saying why nothing was planted.
fn copy(
    source: &Asset,
    clip: &Clip,
    target: &Asset,
    fps: Option<f32>,
    mut report: ContactReport,
    why: &str,
    diagnostics: &mut Diagnostics,
) -> Result<(Clip, ContactReport), Error> {
    report.applied = false;
    report.note(why);
    diagnostics.warn(
        "CONTACTS_NOT_PLANTED",
        "",
        format!("contacts: {why}; the output is the world-delta copy (--contacts off)"),
    );
    let clip = super::bake(source, clip, target, fps, diagnostics)?;
    Ok((clip, report))
}

/// The baked keys as the solver sees them.
fn baked<'a>(times: &'a [f32], layout: &'a Layout, keys: &'a mut Keys) -> Baked<'a> {
    Baked {
        times,
        joints: &layout.joints,
        rotations: &mut keys.rotations,
        hips: layout.hips,
        hips_path: &mut keys.hips_path,
    }
}

/// Each source foot's sole pitch `β`: in the rest where the rest stands (both feet level with
/// each other: a T-pose on its soles, as BVH and FBX rests are), else where the clip plants
/// both the foot and the toe joint (the sole is flat there; a rest mid-stride says nothing),
/// else in the rest.
fn source_sole_pitch(side: &Side<'_>, clip: &Clip, leg: f32) -> [Option<f32>; 2] {
    let skeleton = &side.asset.skeleton;
    let bones = &side.humanoid.bones;
    let rest = sole::rest_pitch(skeleton, bones, side.turn);
    if rest_stands(side, leg) {
        return rest;
    }
    let mut sampler = Sampler::new(skeleton, clip);
    let mut times = sampler.key_times();
    if times.len() > SOLE_SAMPLES {
        let (first, last) = (
            times.first().copied().unwrap_or(0.0),
            times.last().copied().unwrap_or(0.0),
        );
        times = (0..SOLE_SAMPLES)
            .map(|i| first + (last - first) * i as f32 / (SOLE_SAMPLES - 1) as f32)
            .collect();
    }
    let sides = [
        (
            HumanBone::LeftUpperLeg,
            HumanBone::LeftFoot,
            HumanBone::LeftToes,
        ),
        (
            HumanBone::RightUpperLeg,
            HumanBone::RightFoot,
            HumanBone::RightToes,
        ),
    ];
    let joints: Vec<Option<[JointId; 3]>> = sides
        .iter()
        .map(|(u, f, t)| Some([bones.get(*u)?, bones.get(*f)?, bones.get(*t)?]))
        .collect();
    let mut paths: Vec<[Vec<Vec3>; 3]> = vec![Default::default(); sides.len()];
    let canonical = side.turn.inverse();
    for &t in &times {
        sampler.evaluate(t);
        for (path, joints) in paths.iter_mut().zip(&joints) {
            if let Some(joints) = joints {
                for (p, j) in path.iter_mut().zip(joints) {
                    p.push(canonical * sampler.world_position(*j));
                }
            }
        }
    }
    let mut out = rest;
    for ((slot, path), joints) in out.iter_mut().zip(&paths).zip(&joints) {
        if joints.is_none() {
            continue;
        }
        let [socket, ankle, toe] = path;
        let th = Thresholds::default();
        let feet = detect::plants(&times, ankle, socket, leg, &th);
        let toes = detect::plants(&times, toe, socket, leg, &th);
        let both: Vec<bool> = (0..times.len())
            .map(|i| feet.iter().any(|p| p.contains(i)) && toes.iter().any(|p| p.contains(i)))
            .collect();
        if let Some(beta) = sole::planted_pitch(ankle, toe, &both) {
            *slot = Some(beta);
        }
    }
    out
}

/// Whether a side's rest stands on both feet: its ankles level with each other, and its toe
/// joints too, within 2 % of the leg (canonical space).
fn rest_stands(side: &Side<'_>, leg: f32) -> bool {
    let skeleton = &side.asset.skeleton;
    let bones = &side.humanoid.bones;
    let height = |b: HumanBone| {
        bones
            .get(b)
            .map(|j| (side.turn.inverse() * skeleton.rest_world(j).translation).y)
    };
    let level = |l: HumanBone, r: HumanBone| match (height(l), height(r)) {
        (Some(a), Some(b)) => (a - b).abs() <= 0.02 * leg,
        _ => false,
    };
    level(HumanBone::LeftFoot, HumanBone::RightFoot)
        && level(HumanBone::LeftToes, HumanBone::RightToes)
}
