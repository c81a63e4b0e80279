//! Foot plants found in a source clip: when a foot or toe joint rests on the ground.
//!
//! A joint is planted while it is near its ground and slow, measured against the leg's
//! length so that one rule fits a child, a giant and a file in centimetres:
//!
//! - **the ground is found, not assumed**: it is the lowest height the joint reaches over the
//!   clip (mocap files put the floor anywhere);
//! - **near**: enters within [`Thresholds::enter_height`] leg lengths of its ground, leaves
//!   above [`Thresholds::exit_height`] (hysteresis, so noise at the edge does not flicker);
//! - **slow**: horizontal speed (central differences) under [`Thresholds::enter_speed`] leg
//!   lengths per second to enter (0.2 × a 0.9 m leg is 18 cm/s, near Unreal's 15 cm/s speed
//!   planting), over [`Thresholds::exit_speed`] to leave;
//! - **standing**: the hip socket at least [`Thresholds::hang`] leg lengths above the joint (a
//!   swimmer's or a kneeling figure's slow low foot is not a plant);
//! - gaps of at most [`Thresholds::max_gap`] frames are closed, and runs shorter than
//!   [`Thresholds::min_frames`] frames dropped.
//!
//! ```
//! use glam::Vec3;
//! use humanoid::pose::contacts::detect::{plants, Plant, Thresholds};
//!
//! // A foot on the ground for frames 2..=6 (at 30 fps), lifted and moving otherwise.
//! let times: Vec<f32> = (0..10).map(|i| i as f32 / 30.0).collect();
//! let feet: Vec<Vec3> = (0..10)
//!     .map(|i| if (2..=6).contains(&i) { Vec3::new(0.0, 0.08, 0.0) } else { Vec3::new(i as f32 * 0.05, 0.3, 0.0) })
//!     .collect();
//! let sockets = vec![Vec3::new(0.0, 0.9, 0.0); 10];
//! let found = plants(&times, &feet, &sockets, 0.85, &Thresholds::default());
//! // Frames 2 and 6 border a moving frame: their speed (central differences) is too high.
//! assert_eq!(found, [Plant { start: 3, end: 5 }]);
//! ```

use glam::Vec3;

/// The detector's thresholds, in leg lengths (and leg lengths per second).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// A joint enters a plant within this height above its ground.
    pub enter_height: f32,
    /// It leaves above this height.
    pub exit_height: f32,
    /// It enters slower than this horizontally (per second).
    pub enter_speed: f32,
    /// It leaves faster than this.
    pub exit_speed: f32,
    /// The hip socket stands at least this far above the joint.
    pub hang: f32,
    /// Plants shorter than this many frames are dropped.
    pub min_frames: usize,
    /// Gaps of at most this many frames between plants are closed.
    pub max_gap: usize,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            enter_height: 0.07,
            exit_height: 0.09,
            enter_speed: 0.20,
            exit_speed: 0.30,
            hang: 0.2,
            min_frames: 3,
            max_gap: 2,
        }
    }
}

/// A plant: the frames `start..=end` (indices into the times given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Plant {
    /// The first planted frame.
    pub start: usize,
    /// The last planted frame.
    pub end: usize,
}

impl Plant {
    /// Whether frame `i` is in the plant.
    pub fn contains(&self, i: usize) -> bool {
        (self.start..=self.end).contains(&i)
    }

    /// The number of frames.
    pub fn len(&self) -> usize {
        self.end + 1 - self.start
    }

    /// Never: a plant holds at least its first frame.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// The plants of one joint, from its positions (`y` up) and its hip socket's at increasing
/// `times`, for a leg `leg` long (the same units as the positions).
pub fn plants(
    times: &[f32],
    joint: &[Vec3],
    socket: &[Vec3],
    leg: f32,
    thresholds: &Thresholds,
) -> Vec<Plant> {
    let n = times.len().min(joint.len()).min(socket.len());
    if n == 0 || !(leg.is_finite() && leg > 0.0) {
        return Vec::new();
    }
    let ground = joint
        .iter()
        .take(n)
        .map(|p| p.y)
        .fold(f32::INFINITY, f32::min);
    let mut runs: Vec<Plant> = Vec::new();
    let mut planted = false;
    for i in 0..n {
        let (Some(p), Some(s)) = (joint.get(i), socket.get(i)) else {
            break;
        };
        let height = (p.y - ground) / leg;
        let speed = horizontal_speed(times, joint, i, n) / leg;
        let standing = (s.y - p.y) / leg >= thresholds.hang;
        planted = if planted {
            standing && height <= thresholds.exit_height && speed <= thresholds.exit_speed
        } else {
            standing && height <= thresholds.enter_height && speed <= thresholds.enter_speed
        };
        if planted {
            match runs.last_mut() {
                Some(run) if run.end + 1 == i => run.end = i,
                _ => runs.push(Plant { start: i, end: i }),
            }
        }
    }
    // Close short gaps, then drop short runs.
    let mut merged: Vec<Plant> = Vec::with_capacity(runs.len());
    for run in runs {
        match merged.last_mut() {
            Some(last) if run.start <= last.end + 1 + thresholds.max_gap => last.end = run.end,
            _ => merged.push(run),
        }
    }
    merged.retain(|p| p.len() >= thresholds.min_frames.max(1));
    merged
}

/// The horizontal speed at frame `i`: central differences, one-sided at the ends.
fn horizontal_speed(times: &[f32], joint: &[Vec3], i: usize, n: usize) -> f32 {
    let (a, b) = (i.saturating_sub(1), (i + 1).min(n - 1));
    match (times.get(a), times.get(b), joint.get(a), joint.get(b)) {
        (Some(ta), Some(tb), Some(pa), Some(pb)) if tb > ta => {
            Vec3::new(pb.x - pa.x, 0.0, pb.z - pa.z).length() / (tb - ta)
        }
        _ => 0.0,
    }
}

/// The weight of a joint's contact at frame `i`: 1 inside a plant, easing to 0 over `ramp`
/// seconds before and after it (smoothstep), 0 elsewhere; and the plant it belongs to.
pub fn weight(times: &[f32], plants: &[Plant], i: usize, ramp: f32) -> Option<(f32, usize)> {
    let t = *times.get(i)?;
    let mut best: Option<(f32, usize)> = None;
    // The plants around `i` (sorted, disjoint): the last starting at or before the ramp's
    // reach, and the next.
    let k = plants.partition_point(|p| p.start <= i);
    for index in [k.checked_sub(1), Some(k)].into_iter().flatten() {
        let Some(plant) = plants.get(index) else {
            continue;
        };
        let w = if plant.contains(i) {
            1.0
        } else {
            let (Some(&start), Some(&end)) = (times.get(plant.start), times.get(plant.end)) else {
                continue;
            };
            let gap = if i < plant.start { start - t } else { t - end };
            if ramp <= 0.0 || gap >= ramp {
                0.0
            } else {
                let x = 1.0 - gap / ramp;
                x * x * (3.0 - 2.0 * x)
            }
        };
        if w > 0.0 && best.is_none_or(|(b, _)| w > b) {
            best = Some((w, index));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(n: usize) -> Vec<f32> {
        (0..n).map(|i| i as f32 / 30.0).collect()
    }

    #[test]
    fn a_floor_anywhere_is_found() {
        // The same stepping foot, on floors at −3 m and +12 m: the same plants.
        let path = |floor: f32| -> Vec<Vec3> {
            (0..30)
                .map(|i| {
                    let step = (i / 10) as f32;
                    let lifted = i % 10 >= 6;
                    Vec3::new(
                        step * 0.5 + if lifted { 0.25 } else { 0.0 },
                        floor + if lifted { 0.2 } else { 0.0 },
                        0.0,
                    )
                })
                .collect()
        };
        let sockets = |floor: f32| vec![Vec3::new(0.0, floor + 0.9, 0.0); 30];
        let low = plants(
            &times(30),
            &path(-3.0),
            &sockets(-3.0),
            0.85,
            &Thresholds::default(),
        );
        let high = plants(
            &times(30),
            &path(12.0),
            &sockets(12.0),
            0.85,
            &Thresholds::default(),
        );
        assert_eq!(low, high);
        assert_eq!(low.len(), 3, "{low:?}");
        assert!(low.iter().all(|p| p.len() >= 3), "{low:?}");
    }

    #[test]
    fn rescaling_the_clip_keeps_the_plants() {
        let base: Vec<Vec3> = (0..40)
            .map(|i| {
                let phase = (i as f32 * 0.3).sin();
                Vec3::new(i as f32 * 0.001, 0.1 + phase.max(0.0) * 0.2, 0.0)
            })
            .collect();
        let sockets = vec![Vec3::new(0.0, 0.9, 0.0); 40];
        let a = plants(&times(40), &base, &sockets, 0.85, &Thresholds::default());
        let scaled: Vec<Vec3> = base.iter().map(|p| *p * 100.0).collect();
        let scaled_sockets: Vec<Vec3> = sockets.iter().map(|p| *p * 100.0).collect();
        let b = plants(
            &times(40),
            &scaled,
            &scaled_sockets,
            85.0,
            &Thresholds::default(),
        );
        assert_eq!(a, b);
        assert!(!a.is_empty());
    }

    #[test]
    fn a_slow_low_foot_beside_the_hips_is_no_plant() {
        // A swimmer: feet as high as the hips, slow.
        let feet = vec![Vec3::new(0.0, 1.0, 0.0); 20];
        let sockets = vec![Vec3::new(0.0, 1.05, 0.5); 20];
        assert!(plants(&times(20), &feet, &sockets, 0.85, &Thresholds::default()).is_empty());
    }

    #[test]
    fn short_gaps_close_and_short_runs_drop() {
        let mut feet = vec![Vec3::new(0.0, 0.0, 0.0); 20];
        // One frame lifted at 8 (a gap of 1), frames 15.. lifted; a 2-frame blip at 18..=19.
        feet[8].y = 0.3;
        for p in feet.iter_mut().skip(15) {
            p.y = 0.3;
        }
        feet[18].y = 0.0;
        feet[19].y = 0.0;
        let sockets = vec![Vec3::new(0.0, 0.9, 0.0); 20];
        let found = plants(&times(20), &feet, &sockets, 0.85, &Thresholds::default());
        assert_eq!(found, [Plant { start: 0, end: 14 }]);
    }

    #[test]
    fn weights_ease_in_and_out() {
        let t = times(30);
        let p = [Plant { start: 10, end: 15 }];
        assert_eq!(weight(&t, &p, 12, 0.1), Some((1.0, 0)));
        assert_eq!(weight(&t, &p, 2, 0.1), None);
        let (before, _) = weight(&t, &p, 9, 0.1).unwrap();
        let (after, _) = weight(&t, &p, 17, 0.1).unwrap();
        assert!(before > 0.5 && before < 1.0, "{before}");
        assert!(after > 0.0 && after < before, "{after}");
    }
}
