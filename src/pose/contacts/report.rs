//! What contact-aware retargeting found and did: per foot and toe joint the plants, the drift,
//! float and penetration on the target; what the solver changed.
//!
//! ```
//! use glam::Vec3;
//! use humanoid::model::HumanBone;
//! use humanoid::pose::contacts::detect::Plant;
//! use humanoid::pose::contacts::report::JointMetrics;
//!
//! // A heel planted for frames 1..=3 that slides 1 cm and sinks 2 mm below its rest height.
//! let path = [0.0, 0.0, 0.004, 0.01, 0.3].map(|x| Vec3::new(x, 0.098, 0.0));
//! let m = JointMetrics::measure(HumanBone::LeftFoot, &path, 0.1, &[Plant { start: 1, end: 3 }]);
//! assert_eq!(m.plants, 1);
//! assert!((m.drift_mm.max - 10.0).abs() < 1e-3);
//! assert!((m.penetration_mm - 2.0).abs() < 1e-3);
//! ```

use glam::Vec3;
use serde::Serialize;

use super::detect::Plant;
use crate::model::HumanBone;

/// The p50, p95 and largest of some per-plant values (0 when there are none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Summary {
    /// The median.
    pub p50: f32,
    /// The 95th percentile (nearest rank).
    pub p95: f32,
    /// The largest.
    pub max: f32,
}

impl Summary {
    /// The summary of `values` (NaNs ignored).
    pub fn of(values: &[f32]) -> Summary {
        let mut sorted: Vec<f32> = values.iter().copied().filter(|v| !v.is_nan()).collect();
        if sorted.is_empty() {
            return Summary::default();
        }
        sorted.sort_by(f32::total_cmp);
        let rank = |q: f32| {
            let i = crate::math::num::saturating_usize((f64::from(q) * sorted.len() as f64).ceil())
                .saturating_sub(1);
            sorted.get(i.min(sorted.len() - 1)).copied().unwrap_or(0.0)
        };
        Summary {
            p50: rank(0.5),
            p95: rank(0.95),
            max: sorted.last().copied().unwrap_or(0.0),
        }
    }
}

/// One foot or toe joint on the target, over the clip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JointMetrics {
    /// The bone (`leftFoot`, `leftToes`, …).
    pub bone: &'static str,
    /// The source's plants of this joint.
    pub plants: usize,
    /// The frames they hold.
    pub planted_frames: usize,
    /// Per plant: the farthest the joint moves horizontally from where the plant began (mm).
    pub drift_mm: Summary,
    /// Per plant: its mean height above its rest height while planted (mm; negative below).
    pub float_mm: Summary,
    /// The deepest it goes below its rest height (the floor) anywhere in the clip (mm, ≥ 0).
    pub penetration_mm: f32,
}

impl JointMetrics {
    /// Measures a joint's world path (one position per frame) against its rest height and
    /// the plants found for it.
    pub fn measure(bone: HumanBone, path: &[Vec3], rest: f32, plants: &[Plant]) -> JointMetrics {
        let mut drift = Vec::with_capacity(plants.len());
        let mut float = Vec::with_capacity(plants.len());
        let mut frames = 0;
        for plant in plants {
            let Some(frames_of) = path.get(plant.start..=plant.end) else {
                continue;
            };
            let Some(first) = frames_of.first() else {
                continue;
            };
            frames += frames_of.len();
            let far = frames_of
                .iter()
                .map(|p| Vec3::new(p.x - first.x, 0.0, p.z - first.z).length())
                .fold(0.0f32, f32::max);
            drift.push(far * 1000.0);
            let mean = frames_of.iter().map(|p| p.y).sum::<f32>() / frames_of.len() as f32;
            float.push((mean - rest) * 1000.0);
        }
        let deepest = path.iter().map(|p| rest - p.y).fold(0.0f32, f32::max);
        JointMetrics {
            bone: bone.as_str(),
            plants: drift.len(),
            planted_frames: frames,
            drift_mm: Summary::of(&drift),
            float_mm: Summary::of(&float),
            penetration_mm: deepest * 1000.0,
        }
    }
}

/// What the solver changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SolverReport {
    /// Keys in the clip.
    pub frames: usize,
    /// Keys where a leg was moved.
    pub frames_solved: usize,
    /// Leg solves (a key counts once per leg moved).
    pub leg_solves: usize,
    /// Keys where the hips came down to let a foot reach.
    pub frames_hips_lowered: usize,
    /// The most the hips came down (mm).
    pub hips_drop_max_mm: f32,
    /// The farthest an ankle was moved from its world-delta place (mm).
    pub ankle_moved_max_mm: f32,
    /// The sum of the ankle moves (mm; divide by `leg_solves` for the mean).
    pub ankle_moved_sum_mm: f64,
    /// Leg solves whose goal stayed out of reach (more than 1 mm short).
    pub frames_out_of_reach: usize,
    /// The sole pitch `β` used per foot (degrees; source then target; `null` where the foot's
    /// T-pose is declared by the file or cannot be measured).
    pub sole_pitch_deg: SolePitches,
}

/// The sole pitches used, in degrees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SolePitches {
    /// The source's left and right feet.
    pub source: [Option<f32>; 2],
    /// The target's.
    pub target: [Option<f32>; 2],
}

/// The report of one contact-aware retarget.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ContactReport {
    /// Whether the contacts changed the output (false: it is the `--contacts off` output).
    pub applied: bool,
    /// Why not, or what was left out.
    pub notes: Vec<String>,
    /// The target's feet and toes in the output (measured when the report is asked for:
    /// `--report`, `compare`).
    pub joints: Vec<JointMetrics>,
    /// The same with `--contacts off` (only when asked for: it bakes the clip twice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub without_contacts: Option<Vec<JointMetrics>>,
    /// What the solver changed.
    pub solver: SolverReport,
}

impl ContactReport {
    /// Adds a note.
    pub fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// The report as text, a few lines per joint.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "contacts: {}",
            if self.applied {
                "applied"
            } else {
                "not applied (the output is the --contacts off output)"
            }
        );
        for note in &self.notes {
            let _ = writeln!(out, "  note: {note}");
        }
        let line = |m: &JointMetrics| {
            format!(
                "{} plants ({} frames), drift p50 {:.1} / p95 {:.1} / max {:.1} mm, float p95 {:.1} mm, below the floor {:.1} mm",
                m.plants,
                m.planted_frames,
                m.drift_mm.p50,
                m.drift_mm.p95,
                m.drift_mm.max,
                m.float_mm.p95,
                m.penetration_mm
            )
        };
        for m in &self.joints {
            let _ = writeln!(out, "  {:<10} {}", m.bone, line(m));
            if let Some(off) = self
                .without_contacts
                .as_ref()
                .and_then(|w| w.iter().find(|o| o.bone == m.bone))
            {
                let _ = writeln!(out, "  {:<10} {} (--contacts off)", "", line(off));
            }
        }
        let s = &self.solver;
        if self.applied {
            let mean = if s.leg_solves > 0 {
                s.ankle_moved_sum_mm / s.leg_solves as f64
            } else {
                0.0
            };
            let _ = writeln!(
                out,
                "  solver: {} of {} keys changed; ankles moved up to {:.1} mm (mean {:.1}); hips lowered at {} keys, up to {:.1} mm; {} leg solves out of reach",
                s.frames_solved,
                s.frames,
                s.ankle_moved_max_mm,
                mean,
                s.frames_hips_lowered,
                s.hips_drop_max_mm,
                s.frames_out_of_reach
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let values: Vec<f32> = (1..=20).map(|v| v as f32).collect();
        let s = Summary::of(&values);
        assert_eq!((s.p50, s.p95, s.max), (10.0, 19.0, 20.0));
        assert_eq!(Summary::of(&[]), Summary::default());
    }
}
