//! `humanoid pose`: the world position and rotation of every humanoid bone, in the file's own
//! space (the scene root at identity), at rest and at sample times of a clip (the model's own,
//! or another file's retargeted onto it), shaped like the three-vrm oracle's output so the two
//! can be compared number for number:
//!
//! ```text
//! { "file": str, "format": str, "space": str,
//!   "rest": { "hips": {"p": [x, y, z], "q": [x, y, z, w]}, ... },   // mapped bones, parents first
//!   "anim": {"file": str, "clip": str, "duration": s},              // with samples only
//!   "samples": [ {"t": s, "tClamped": s, "bones": {"hips": {"p": .., "q": ..}, ...}} ] }
//! ```
//!
//! Times are clamped to `[0, D]`, D the clip's duration; `uniform(N)` means `t_i = i·D/(N−1)`
//! (`t = 0` when N = 1), as the oracle does.
//!
//! With `rotate_vrm0`, a VRM 0.x model (which faces −Z) is turned to face +Z as three-vrm's
//! `VRMUtils.rotateVRM0` does: every world transform pre-multiplied by `R_y(180°)`
//! (`p' = R·p`, `q' = R·q`). Other formats are left as they are.
//!
//! ```no_run
//! use humanoid::bone_pose::{rest_pose, PoseOptions};
//! # fn main() -> Result<(), humanoid::Error> {
//! let pose = rest_pose("avatar.vrm".as_ref(), &PoseOptions::default())?;
//! let hips = &pose.rest["hips"];
//! println!("hips at {:?}", hips.p);
//! # Ok(()) }
//! ```

use std::path::{Path, PathBuf};

use glam::{Quat, Vec3};
use indexmap::IndexMap;
use serde::Serialize;

use crate::error::{Diagnostics, Error};
use crate::mapping::{map_humanoid, RigMapping};
use crate::model::asset::{Asset, Facing};
use crate::model::clip::Clip;
use crate::model::HumanBone;
use crate::ops::read::read_asset as read;
use crate::pose::fk::Sampler;
use crate::pose::normalized::playable;
use crate::pose::retarget::{self, Retargeter, Side};

/// How to report the pose.
#[derive(Debug, Clone, Default)]
pub struct PoseOptions {
    /// Turn a VRM 0.x model to face +Z (three-vrm's `rotateVRM0`).
    pub rotate_vrm0: bool,
    /// Map a rig that declares no humanoid.
    pub mapping: Option<RigMapping>,
    /// A file whose clip is retargeted onto the model (`None`: the model's own clip).
    pub anim: Option<PathBuf>,
    /// The clip to use (`None`: the first).
    pub clip: Option<String>,
    /// When to sample.
    pub times: Times,
}

/// When to sample a clip.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Times {
    /// No samples: the rest pose only.
    #[default]
    Rest,
    /// At these times (seconds; clamped to the clip).
    At(Vec<f32>),
    /// `N` times spread evenly over the clip, ends included.
    Uniform(usize),
}

/// The clip sampled.
#[derive(Debug, Clone, Serialize)]
pub struct AnimInfo {
    /// The file the clip comes from.
    pub file: String,
    /// The clip's name.
    pub clip: String,
    /// Its duration in seconds.
    pub duration: f32,
}

/// The pose at one time.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    /// The time asked for.
    pub t: f32,
    /// That time clamped to the clip.
    #[serde(rename = "tClamped")]
    pub t_clamped: f32,
    /// Mapped bones, parents first.
    pub bones: IndexMap<&'static str, BoneTransform>,
    /// The gaze (degrees), when the model has a look-at and a clip of another file plays.
    #[serde(rename = "lookAt", skip_serializing_if = "Option::is_none")]
    pub look_at: Option<Gaze>,
    /// Weights of the expressions the clip animates that the model has.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub expressions: IndexMap<String, f32>,
}

/// Yaw and pitch in degrees.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Gaze {
    /// About Y; positive looks left.
    pub yaw: f32,
    /// About X.
    pub pitch: f32,
}

/// One bone's world transform.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BoneTransform {
    /// World position, metres.
    pub p: [f32; 3],
    /// World rotation `[x, y, z, w]`.
    pub q: [f32; 4],
}

/// The rest pose of a file's first humanoid skeleton.
#[derive(Debug, Clone, Serialize)]
pub struct PoseReport {
    /// The file.
    pub file: String,
    /// Its format (`--to` name).
    pub format: String,
    /// The space the numbers are in.
    pub space: &'static str,
    /// Mapped bones, parents first.
    pub rest: IndexMap<&'static str, BoneTransform>,
    /// The clip sampled, when there are samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anim: Option<AnimInfo>,
    /// How each file's humanoid was found, one line per file
    /// ([`crate::mapping::Mapped::line`]).
    pub mapped: Vec<String>,
    /// The samples.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<Sample>,
}

/// Reads `path` and reports the rest pose of its first humanoid skeleton (and the samples
/// `options.times` asks for).
///
/// # Errors
/// The file cannot be read, or declares no humanoid skeleton.
pub fn rest_pose(path: &Path, options: &PoseOptions) -> Result<PoseReport, Error> {
    pose(path, options)
}

/// Reads the model at `path` and reports its rest pose and, when `options.times` asks, its pose
/// at those times of a clip: its own, or `options.anim`'s retargeted onto it.
///
/// # Errors
/// A file cannot be read; the model (or the animation) declares no humanoid and no mapping was
/// given; the clip does not exist.
pub fn pose(path: &Path, options: &PoseOptions) -> Result<PoseReport, Error> {
    check_times(&options.times)?;
    let mut asset = read(path)?.asset;
    let mut mapped = vec![format!(
        "{}: {}",
        path.display(),
        map_humanoid(&mut asset, path, options.mapping.as_ref())?.line()
    )];
    let rotate = options.rotate_vrm0 && asset.facing == Facing::MinusZ;
    let bones = rest_transforms(&asset, rotate).ok_or_else(|| {
        Error::unsupported(format!(
            "{}: the file declares no humanoid skeleton (no EXT_skeleton_humanoid or VRM bone map); map its rig with --map auto or --map TABLE",
            path.display()
        ))
    })?;
    let (anim, samples) = match &options.times {
        Times::Rest => (None, Vec::new()),
        times => {
            let (info, samples) = sample(path, &asset, options, times, rotate, &mut mapped)?;
            (Some(info), samples)
        }
    };
    Ok(PoseReport {
        file: path.display().to_string(),
        format: asset.format.name().to_owned(),
        space: if rotate {
            "file space turned 180° about +Y (VRM 0.x made to face +Z)"
        } else {
            "file space (scene root at identity)"
        },
        rest: bones
            .into_iter()
            .map(|(bone, p, q)| (bone.as_str(), transform(p, q)))
            .collect(),
        anim,
        samples,
        mapped,
    })
}

fn transform(p: Vec3, q: Quat) -> BoneTransform {
    BoneTransform {
        p: p.to_array(),
        q: q.to_array(),
    }
}

/// The clip to use: by name, or the one [`crate::model::clip_choice::choose`] takes (the first that
/// moves); the output names it.
fn pick_clip<'a>(asset: &'a Asset, name: Option<&str>, file: &Path) -> Result<&'a Clip, Error> {
    crate::model::clip_choice::choose(asset, name, file).map(|chosen| chosen.clip)
}

/// The most times `pose` samples (`--uniform N`, `--times T,…`): each is every bone's
/// transform in the report, so the bound is checked before anything is allocated for them.
pub const MAX_POSE_SAMPLES: usize = 100_000;

/// Refuses times that are not finite numbers, and more than [`MAX_POSE_SAMPLES`] of them.
///
/// # Errors
/// Names the first bad time (its place in the list) or the count.
pub fn check_times(times: &Times) -> Result<(), Error> {
    let count = match times {
        Times::Rest => 0,
        Times::At(list) => list.len(),
        Times::Uniform(n) => *n,
    };
    if count > MAX_POSE_SAMPLES {
        return Err(Error::unsupported(format!(
            "{count} sample times: at most {MAX_POSE_SAMPLES} (each is every bone's transform)"
        )));
    }
    if let Times::At(list) = times {
        if let Some((i, t)) = list.iter().enumerate().find(|(_, t)| !t.is_finite()) {
            return Err(Error::unsupported(format!(
                "time {} of the list is {t}: expected a finite number of seconds",
                i + 1
            )));
        }
    }
    Ok(())
}

/// The times to sample, clamped to `[0, duration]` (asked, clamped).
fn sample_times(times: &Times, duration: f32) -> Vec<(f32, f32)> {
    let asked: Vec<f32> = match times {
        Times::Rest => Vec::new(),
        Times::At(list) => list.clone(),
        Times::Uniform(0) => Vec::new(),
        Times::Uniform(1) => vec![0.0],
        Times::Uniform(n) => (0..*n)
            .map(|i| duration * i as f32 / (*n - 1) as f32)
            .collect(),
    };
    asked
        .into_iter()
        .map(|t| (t, t.clamp(0.0, duration.max(0.0))))
        .collect()
}

fn sample(
    path: &Path,
    model: &Asset,
    options: &PoseOptions,
    times: &Times,
    rotate: bool,
    mapped: &mut Vec<String>,
) -> Result<(AnimInfo, Vec<Sample>), Error> {
    let turn = if rotate {
        Quat::from_xyzw(0.0, 1.0, 0.0, 0.0)
    } else {
        Quat::IDENTITY
    };
    let bones = model.humanoids.first().map(|h| h.bones).unwrap_or_default();
    let report = |worlds: &[glam::Mat4]| -> IndexMap<&'static str, BoneTransform> {
        bones
            .iter()
            .filter_map(|(bone, joint)| {
                let (p, q) = retarget::position_rotation(*worlds.get(joint.index())?);
                Some((bone.as_str(), transform(turn * p, turn * q)))
            })
            .collect()
    };
    let mut samples = Vec::new();
    match &options.anim {
        None => {
            let clip = pick_clip(model, options.clip.as_deref(), path)?;
            let played = playable(model, clip);
            let mut sampler = Sampler::new(&model.skeleton, &played);
            for (t, clamped) in sample_times(times, clip.duration()) {
                sampler.evaluate(clamped);
                let worlds = sampler.worlds();
                samples.push(Sample {
                    t,
                    t_clamped: clamped,
                    bones: report(&worlds),
                    look_at: None,
                    expressions: IndexMap::new(),
                });
            }
            let info = AnimInfo {
                file: path.display().to_string(),
                clip: clip.name.clone(),
                duration: clip.duration(),
            };
            Ok((info, samples))
        }
        Some(anim_path) => {
            let mut anim = read(anim_path)?.asset;
            let line = map_humanoid(&mut anim, anim_path, options.mapping.as_ref())?.line();
            mapped.push(format!("{}: {line}", anim_path.display()));
            let clip = pick_clip(&anim, options.clip.as_deref(), anim_path)?;
            let played = playable(&anim, clip);
            let mut diagnostics = Diagnostics::new();
            let mut retargeter = Retargeter::new(
                Side::new(&anim, "animation")?,
                &played,
                Side::new(model, "model")?,
                &mut diagnostics,
            )?;
            for (t, clamped) in sample_times(times, clip.duration()) {
                let pose = retargeter.pose_at(clamped);
                let worlds = retarget::world_matrices(model, &pose);
                samples.push(Sample {
                    t,
                    t_clamped: clamped,
                    bones: report(&worlds),
                    look_at: retargeter
                        .gaze_at(clamped)
                        .map(|(yaw, pitch)| Gaze { yaw, pitch }),
                    expressions: retargeter.expression_weights(clamped).into_iter().collect(),
                });
            }
            let info = AnimInfo {
                file: anim_path.display().to_string(),
                clip: clip.name.clone(),
                duration: clip.duration(),
            };
            Ok((info, samples))
        }
    }
}

/// The world rest transform of each mapped bone of the first humanoid skeleton, parents
/// first; `rotate` pre-multiplies them by `R_y(180°)`. `None` when there is no humanoid.
pub fn rest_transforms(asset: &Asset, rotate: bool) -> Option<Vec<(HumanBone, Vec3, Quat)>> {
    let humanoid = asset.humanoids.first()?;
    let turn = if rotate {
        Quat::from_xyzw(0.0, 1.0, 0.0, 0.0)
    } else {
        Quat::IDENTITY
    };
    Some(
        humanoid
            .bones
            .iter()
            .filter(|(_, joint)| asset.skeleton.contains(*joint))
            .map(|(bone, joint)| {
                let world = asset.skeleton.rest_world(joint);
                (bone, turn * world.translation, turn * world.rotation)
            })
            .collect(),
    )
}
