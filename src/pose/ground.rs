//! Foot contact: keeps the target's planted feet on its ground.
//!
//! Retargeting by world deltas copies every bone's rotation exactly, so a target whose thigh and
//! shin are a different share of its leg than the source's lifts or sinks a planted foot by a
//! few centimetres. The fix moves only the hips vertically (no rotation changes, so every world
//! delta is kept): at the source's foot-plant frames, the offset that puts the target's planted
//! foot at its rest height (where it stands on the ground); when both feet are planted, the mean
//! of their two offsets. Between plants the offset is interpolated linearly, and it is held
//! before the first plant and after the last.
//!
//! A foot is planted at a frame when it is within [`PLANT_HEIGHT`] of its lowest height over the
//! clip and moves slower than [`PLANT_SPEED`] horizontally (measured at the target's size).
//!
//! ```
//! use humanoid::pose::ground::GroundCurve;
//!
//! let curve = GroundCurve::from_frames(&[0.0, 1.0, 2.0], &[Some(0.02), None, Some(-0.02)]).unwrap();
//! assert_eq!(curve.at(1.0), 0.0);
//! assert_eq!(curve.at(-5.0), 0.02);
//! ```

use glam::Vec3;

/// A planted foot is at most this far (metres) above its lowest height over the clip.
pub const PLANT_HEIGHT: f32 = 0.02;

/// A planted foot moves slower than this horizontally (metres per second).
pub const PLANT_SPEED: f32 = 0.3;

/// Which frames a foot is planted at, from its positions (`y` up, metres) at increasing
/// `times`: within `height` of its lowest `y`, and slower than `speed` horizontally (the speed
/// from the previous frame; the first frame takes the speed to the next).
pub fn planted(times: &[f32], positions: &[Vec3], height: f32, speed: f32) -> Vec<bool> {
    let lowest = positions.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    let n = times.len().min(positions.len());
    (0..n)
        .map(|i| {
            let (a, b) = if i == 0 { (0, 1) } else { (i - 1, i) };
            let horizontal = match (
                times.get(a),
                times.get(b),
                positions.get(a),
                positions.get(b),
            ) {
                (Some(ta), Some(tb), Some(pa), Some(pb)) if tb > ta => {
                    Vec3::new(pb.x - pa.x, 0.0, pb.z - pa.z).length() / (tb - ta)
                }
                _ => 0.0,
            };
            positions
                .get(i)
                .is_some_and(|p| p.y - lowest <= height && horizontal <= speed)
        })
        .collect()
}

/// The hips' vertical offset over time: known at the plant frames, linear between them, held
/// at both ends.
#[derive(Debug, Clone, PartialEq)]
pub struct GroundCurve {
    times: Vec<f32>,
    offsets: Vec<f32>,
}

impl GroundCurve {
    /// The curve through the frames that have an offset (`offsets[i]` at `times[i]`, `times`
    /// increasing); `None` when no frame has one.
    pub fn from_frames(times: &[f32], offsets: &[Option<f32>]) -> Option<GroundCurve> {
        let (times, offsets): (Vec<f32>, Vec<f32>) = times
            .iter()
            .zip(offsets)
            .filter_map(|(&t, o)| Some((t, (*o)?)))
            .filter(|(t, o)| t.is_finite() && o.is_finite())
            .unzip();
        (!times.is_empty()).then_some(GroundCurve { times, offsets })
    }

    /// The offset at time `t`.
    pub fn at(&self, t: f32) -> f32 {
        let i = self.times.partition_point(|&k| k <= t);
        match (
            i.checked_sub(1)
                .and_then(|k| Some((self.times.get(k)?, self.offsets.get(k)?))),
            self.times.get(i).zip(self.offsets.get(i)),
        ) {
            (Some((&t0, &o0)), Some((&t1, &o1))) if t1 > t0 => {
                o0 + (o1 - o0) * ((t - t0) / (t1 - t0))
            }
            (Some((_, &o0)), _) => o0,
            (None, Some((_, &o1))) => o1,
            (None, None) => 0.0,
        }
    }
}

/// The hips offset of one frame from each foot's need (target height wanted minus the height
/// it has, for the planted feet): the mean, which halves the larger error when both feet are
/// planted at heights that disagree. `None` when no foot is planted.
pub fn frame_offset(needs: &[Option<f32>]) -> Option<f32> {
    let planted: Vec<f32> = needs.iter().flatten().copied().collect();
    (!planted.is_empty()).then(|| planted.iter().sum::<f32>() / planted.len() as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foot_is_planted_when_low_and_slow() {
        let times = [0.0, 0.1, 0.2, 0.3, 0.4];
        let positions = [
            Vec3::new(0.0, 0.10, 0.0),   // high
            Vec3::new(0.0, 0.015, 0.0),  // low, still: planted
            Vec3::new(0.02, 0.0, 0.0),   // low, 0.2 m/s: planted
            Vec3::new(0.08, 0.01, 0.0),  // low, 0.6 m/s: sliding
            Vec3::new(0.08, 0.021, 0.0), // 2.1 cm up: lifted
        ];
        assert_eq!(
            planted(&times, &positions, PLANT_HEIGHT, PLANT_SPEED),
            [false, true, true, false, false]
        );
    }

    #[test]
    fn the_curve_interpolates_between_plants_and_holds_at_the_ends() {
        let curve = GroundCurve::from_frames(
            &[0.0, 1.0, 2.0, 3.0, 4.0],
            &[None, Some(0.01), None, Some(0.03), None],
        )
        .unwrap();
        assert_eq!(curve.at(0.0), 0.01);
        assert_eq!(curve.at(1.0), 0.01);
        assert!((curve.at(2.0) - 0.02).abs() < 1e-7);
        assert!((curve.at(2.5) - 0.025).abs() < 1e-7);
        assert_eq!(curve.at(3.0), 0.03);
        assert_eq!(curve.at(9.0), 0.03);
        assert_eq!(GroundCurve::from_frames(&[0.0], &[None]), None);
    }

    #[test]
    fn both_feet_planted_share_the_difference() {
        assert_eq!(frame_offset(&[Some(0.02), Some(-0.01)]), Some(0.005));
        assert_eq!(frame_offset(&[None, Some(-0.01)]), Some(-0.01));
        assert_eq!(frame_offset(&[None, None]), None);
    }
}
