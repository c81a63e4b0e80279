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
use crate::pose::contacts::report::{JointMetrics, SolePitches};
use crate::pose::contacts::solve::{self, Plants, SourceLegs, Target, CAPTURED};
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
    let mut soled_source = source_side.clone();
    let mut soled_target = target_side.clone();
    sole::flatten(
        &mut soled_source.corrections,
        soled_source.turn,
        source_pitch,
    );
    sole::flatten(
        &mut soled_target.corrections,
        soled_target.turn,
        target_pitch,
    );

    let mut attempt = Diagnostics::new();
    let retargeter = Retargeter::for_contacts(soled_source, clip, soled_target, &mut attempt)?;
    let times = key_times(&retargeter, clip, fps, &layout)?;
    let mut keys = pose_keys(&clip.name, &retargeter, &times, &layout, &capture)?;
    let legs = SourceLegs {
        leg: source_leg.unwrap_or(1.0),
        has: std::array::from_fn(|i| capture.get(i).is_some_and(Option::is_some)),
        positions: std::mem::take(&mut keys.captured),
    };
    let plants = solve::find_plants(target_def, &legs, &times);
    if !plants.any() {
        return floor_only(
            source,
            clip,
            target,
            fps,
            &capture,
            legs.leg,
            report,
            diagnostics,
        );
    }
    diagnostics.extend(attempt);
    let mut baked = baked(&times, &layout, &mut keys);
    let solved = solve::solve(target_def, &legs, &plants, &mut baked);
    report.applied = solved.applied;
    report.notes.extend(solved.notes);
    report.solver = solved.solver;
    report.solver.sole_pitch_deg = SolePitches {
        source: source_pitch.map(|p| p.map(f32::to_degrees)),
        target: target_pitch.map(|p| p.map(f32::to_degrees)),
    };
    report.joints = solve::measure(target_def, &plants, &baked);
    if compare {
        report.without_contacts = Some(measure_off(source, clip, target, fps, &plants)?);
    }
    let planted: usize = report.joints.iter().map(|j| j.plants).sum();
    let worst = report
        .joints
        .iter()
        .map(|j| j.drift_mm.max)
        .fold(0.0f32, f32::max);
    diagnostics.info(
        "CONTACTS_PLANTED",
        "",
        format!(
            "contacts: {planted} plants of the feet and toes kept on the model (drift up to {worst:.1} mm); {} of {} keys changed, hips lowered up to {:.1} mm (--contacts off for the exact world-delta copy; --report for the figures)",
            report.solver.frames_solved, report.solver.frames, report.solver.hips_drop_max_mm
        ),
    );
    let clip = assemble(&clip.name, times, &layout, keys, target)?;
    Ok((clip, report))
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

/// No plant in the clip (an in-place cycle whose feet slide back, a swim, a jump): the
/// `--contacts off` bake, its feet and toes only kept above the floor (where none goes below,
/// exactly the `--contacts off` output).
#[allow(clippy::too_many_arguments)]
fn floor_only(
    source: &Asset,
    clip: &Clip,
    target: &Asset,
    fps: Option<f32>,
    capture: &[Option<JointId>],
    source_leg: f32,
    mut report: ContactReport,
    diagnostics: &mut Diagnostics,
) -> Result<(Clip, ContactReport), Error> {
    let retargeter = Retargeter::keeping(
        Side::new(source, "animation")?,
        clip,
        Side::new(target, "model")?,
        Keep::Directions,
        diagnostics,
    )?;
    let layout = Layout::of(target)?;
    let times = key_times(&retargeter, clip, fps, &layout)?;
    let mut keys = pose_keys(&clip.name, &retargeter, &times, &layout, capture)?;
    let legs = SourceLegs {
        leg: source_leg,
        has: std::array::from_fn(|i| capture.get(i).is_some_and(Option::is_some)),
        positions: std::mem::take(&mut keys.captured),
    };
    let humanoid = target
        .humanoids
        .first()
        .ok_or_else(|| Error::unsupported("the model has no humanoid"))?;
    let target_def = Target {
        skeleton: &target.skeleton,
        bones: &humanoid.bones,
    };
    let mut baked = baked(&times, &layout, &mut keys);
    let solved = solve::solve(target_def, &legs, &Plants::default(), &mut baked);
    report.solver = solved.solver;
    report.applied = report.solver.frames_solved > 0;
    report.joints = solve::measure(target_def, &Plants::default(), &baked);
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
    let clip = assemble(&clip.name, times, &layout, keys, target)?;
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

/// The target's feet and toes in the `--contacts off` bake, at the same plants.
fn measure_off(
    source: &Asset,
    clip: &Clip,
    target: &Asset,
    fps: Option<f32>,
    plants: &Plants,
) -> Result<Vec<JointMetrics>, Error> {
    let mut scratch = Diagnostics::new();
    let retargeter = Retargeter::keeping(
        Side::new(source, "animation")?,
        clip,
        Side::new(target, "model")?,
        Keep::Directions,
        &mut scratch,
    )?;
    let layout = Layout::of(target)?;
    let times = key_times(&retargeter, clip, fps, &layout)?;
    let mut keys = pose_keys(&clip.name, &retargeter, &times, &layout, &[])?;
    let humanoid = target
        .humanoids
        .first()
        .ok_or_else(|| Error::unsupported("the model has no humanoid"))?;
    let target_def = Target {
        skeleton: &target.skeleton,
        bones: &humanoid.bones,
    };
    Ok(solve::measure(
        target_def,
        plants,
        &baked(&times, &layout, &mut keys),
    ))
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
