//! The writer's frame times: one regular grid that reproduces the clip, measured.
//!
//! ## Overview
//!
//! A BVH holds one value per channel per frame, frames `frame_time` apart, and a reader
//! interpolates linearly between them (slerp for rotations). A clip whose keys all lie on a
//! regular grid is reproduced exactly by that grid (linear keys); one whose keys do not (keys
//! at 1/24 and 1/100 of a cycle, rounded to four digits) cannot be, at any rate. So the writer
//! tries grids, coarsest first, and **measures** each: at every key time of every written track
//! (and at the middle of every frame where a track is not linear) it composes the skeleton's
//! world positions twice, from the clip and from what a reader rebuilds from the frames
//! (rotations slerped, positions interpolated between the frames around that time), and takes
//! the largest distance. The first grid under [`TOLERANCE`] is taken.
//!
//! Grids tried: the coarsest one every key lies on (within [`ALIGN`]) and its multiples, else
//! the coarsest few that every key nearly lies on (within [`NEAR`]); and 30, 60, 120, 240, 480
//! and 960 frames per second; at most [`MAX_FPS`]. When none is under the tolerance the one
//! that is off least is taken, and reported (`BVH_RESAMPLED`) with the measure; when even
//! that one is more than [`MAX_ERROR`] off, the writer refuses.

use glam::{DQuat, DVec3, Quat, Vec3};

use super::bake::to_dquat;
use crate::error::{Diagnostics, Error};
use crate::math::num::Num;
use crate::math::num::{saturating_usize, to_f32};
use crate::math::sample::{slerp, Interpolation};
use crate::model::clip::Track;

/// How far (metres) a rebuilt joint may be from the clip's for a grid to be taken.
pub(crate) const TOLERANCE: f64 = 2e-5;

/// How near (seconds) a key must be to a grid time to lie on it.
const ALIGN: f64 = 1e-5;

/// How near (seconds) a key must be to a grid time for the grid to be tried when none is exact.
const NEAR: f64 = 2e-4;

/// How many of the coarsest nearly aligned grids are tried.
const NEAR_TRIED: usize = 6;

/// The most (metres) a rebuilt joint may be off at all: beyond it the writer refuses.
pub(crate) const MAX_ERROR: f64 = 1e-4;

/// The finest grid tried, in frames per second.
pub(crate) const MAX_FPS: f64 = 1000.0;

/// Frames per second tried besides the keys' own grid.
const LADDER: [f64; 6] = [30.0, 60.0, 120.0, 240.0, 480.0, 960.0];

/// One joint as the measure sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Joint<'c> {
    /// Its written rotation track, if any.
    pub rotation: Option<&'c Track>,
    /// Its written translation track (joints with position channels), if any.
    pub translation: Option<&'c Track>,
    /// Its local rest rotation and translation (what it holds without a track).
    pub rest: (Quat, Vec3),
    /// The parent's rest world scale (`S_p`).
    pub parent_scale: DVec3,
    /// The rest world rotation of the nodes above a root (identity below one).
    pub base: DQuat,
    /// Its parent among the measured joints.
    pub parent: Option<usize>,
}

/// What the measure found for the grid taken.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chosen {
    /// Intervals between the first and the last frame.
    pub intervals: usize,
    /// The bound measured (metres).
    pub error: f64,
}

/// Picks the interval count for a clip running from `start` to `end` (module docs);
/// `max_intervals` bounds it (the motion size limit).
pub(crate) fn choose(
    joints: &[Joint<'_>],
    start: f64,
    end: f64,
    max_intervals: usize,
    diagnostics: &mut Diagnostics,
    clip: &str,
) -> Result<Option<Chosen>, Error> {
    let duration = end - start;
    if !(duration.is_finite() && duration > 0.0) {
        return Ok(None);
    }
    let limit = saturating_usize((duration * MAX_FPS).ceil()).clamp(1, max_intervals.max(1));
    let mut keys: Vec<f64> = joints
        .iter()
        .flat_map(|j| [j.rotation, j.translation])
        .flatten()
        .flat_map(|t| t.times().iter().map(|&k| f64::from(k)))
        .collect();
    keys.sort_by(f64::total_cmp);
    keys.dedup_by(|a, b| (*a - *b).abs() <= 1e-9);
    let mut candidates: Vec<usize> = Vec::new();
    let exact = (1..=limit).find(|&n| aligned(&keys, start, duration / n as f64, ALIGN));
    if let Some(n) = exact {
        candidates.extend([n, 2 * n, 4 * n, 8 * n]);
    } else {
        // Grids that nearly hit every key (keys written with a few digits: 0.04167 of a cycle).
        candidates.extend(
            (1..=limit)
                .filter(|&n| aligned(&keys, start, duration / n as f64, NEAR))
                .take(NEAR_TRIED),
        );
    }
    candidates.extend(
        LADDER
            .iter()
            .map(|fps| saturating_usize((duration * fps).ceil())),
    );
    candidates.retain(|&n| n >= 1 && n <= limit);
    candidates.sort_unstable();
    candidates.dedup();
    if candidates.is_empty() {
        candidates.push(limit);
    }
    let smooth = joints
        .iter()
        .flat_map(|j| [j.rotation, j.translation])
        .flatten()
        .all(|t| t.interpolation() == Interpolation::Linear);
    let mut best: Option<Chosen> = None;
    for n in candidates {
        let error = measure(joints, &keys, start, duration / n as f64, n, smooth);
        let chosen = Chosen {
            intervals: n,
            error,
        };
        if error <= TOLERANCE {
            best = Some(chosen);
            break;
        }
        if best.is_none_or(|b| error < b.error) {
            best = Some(chosen);
        }
    }
    let Some(best) = best else {
        return Ok(None);
    };
    let fps = best.intervals as f64 / duration;
    if best.error > MAX_ERROR {
        return Err(Error::unsupported(format!(
            "cannot write BVH: the keys of clip {clip:?} lie on no regular grid, and at every frame rate tried up to {MAX_FPS} fps a reader interpolating between frames puts joints more than {MAX_ERROR} m from the clip (at best {} m, at {} fps): convert it to .glb, .gltf or H-Anim, which keep the keys as they are, or pick another of its clips",
            Num(best.error),
            Num(fps)
        )));
    }
    if exact.is_none() {
        diagnostics.info(
            "BVH_RESAMPLED",
            "",
            format!(
                "clip {clip:?}: its keys lie on no regular grid: resampled at {} fps, joints at most {} m off between frames (measured at every key)",
                Num(fps),
                Num(best.error)
            ),
        );
    }
    Ok(Some(best))
}

/// Whether every key lies within `within` seconds of a time `start + i·step`.
fn aligned(keys: &[f64], start: f64, step: f64, within: f64) -> bool {
    keys.iter().all(|&k| {
        let i = ((k - start) / step).round();
        (start + i * step - k).abs() <= within
    })
}

/// How far any joint is off (module docs) for `intervals` frames `step` apart: the world
/// positions of the clip and of what a reader rebuilds from the frames, composed down the
/// skeleton at every test time.
fn measure(
    joints: &[Joint<'_>],
    keys: &[f64],
    start: f64,
    step: f64,
    intervals: usize,
    smooth: bool,
) -> f64 {
    let mut times: Vec<f64> = keys.to_vec();
    if !smooth {
        times.extend((0..intervals).map(|i| start + (i as f64 + 0.5) * step));
    }
    let mut worst = 0.0f64;
    let mut clip: Vec<(DQuat, DVec3)> = vec![(DQuat::IDENTITY, DVec3::ZERO); joints.len()];
    let mut rebuilt = clip.clone();
    for t in times {
        let u = ((t - start) / step).clamp(0.0, intervals as f64);
        let i = saturating_usize(u.floor()).min(intervals.saturating_sub(1));
        let (t0, t1) = (start + i as f64 * step, start + (i + 1) as f64 * step);
        let s = to_f32(((t - t0) / step).clamp(0.0, 1.0));
        for (index, joint) in joints.iter().enumerate() {
            let (rest_rotation, rest_translation) = joint.rest;
            let (q_clip, q_rebuilt) =
                joint
                    .rotation
                    .map_or((rest_rotation, rest_rotation), |track| {
                        let at = |t: f64| track.sample_quat(to_f32(t)).unwrap_or(rest_rotation);
                        (at(t), slerp(at(t0), at(t1), s))
                    });
            let (p_clip, p_rebuilt) =
                joint
                    .translation
                    .map_or((rest_translation, rest_translation), |track| {
                        let at = |t: f64| track.sample_vec3(to_f32(t)).unwrap_or(rest_translation);
                        (at(t), at(t0).lerp(at(t1), s))
                    });
            let place = |world: &[(DQuat, DVec3)], q: Quat, p: Vec3| {
                let (rotation, origin) = joint
                    .parent
                    .and_then(|p| world.get(p))
                    .copied()
                    .unwrap_or((joint.base, DVec3::ZERO));
                (
                    (rotation * to_dquat(q)).normalize(),
                    origin + rotation * (joint.parent_scale * p.as_dvec3()),
                )
            };
            let a = place(&clip, q_clip, p_clip);
            let b = place(&rebuilt, q_rebuilt, p_rebuilt);
            worst = worst.max(a.1.distance(b.1));
            if let (Some(x), Some(y)) = (clip.get_mut(index), rebuilt.get_mut(index)) {
                *x = a;
                *y = b;
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::clip::{Property, TrackTarget};
    use crate::model::skeleton::JointId;

    fn turn(times: &[f32], angles: &[f32]) -> Track {
        let values: Vec<f32> = angles
            .iter()
            .flat_map(|a| Quat::from_rotation_x(*a).to_array())
            .collect();
        Track::new(
            TrackTarget::Joint(JointId::from_index(0).unwrap()),
            Property::Rotation,
            Interpolation::Linear,
            times.to_vec(),
            values,
        )
        .unwrap()
    }

    #[test]
    fn keys_on_a_grid_are_taken_as_they_are() {
        let track = turn(&[0.0, 0.1, 0.3], &[0.0, 1.0, 0.5]);
        let joint = |rotation, parent, y: f32| Joint {
            rotation,
            translation: None,
            rest: (Quat::IDENTITY, Vec3::Y * y),
            parent_scale: DVec3::ONE,
            base: DQuat::IDENTITY,
            parent,
        };
        let joints = [joint(Some(&track), None, 0.0), joint(None, Some(0), 1.0)];
        let mut d = Diagnostics::new();
        let chosen = choose(&joints, 0.0, 0.3, 1 << 20, &mut d, "c")
            .unwrap()
            .unwrap();
        assert_eq!(chosen.intervals, 3);
        assert!(chosen.error < 1e-6, "{}", chosen.error);
        assert!(d.is_empty());
        // A key at 0.125 s: off the 0.1 s grid; 0.025 s frames hit every key.
        let track = turn(&[0.0, 0.125, 0.3], &[0.0, 1.0, 0.5]);
        let joints = [joint(Some(&track), None, 0.0), joint(None, Some(0), 1.0)];
        let chosen = choose(&joints, 0.0, 0.3, 1 << 20, &mut d, "c")
            .unwrap()
            .unwrap();
        assert_eq!(chosen.intervals, 12);
    }
}
