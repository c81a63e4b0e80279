//! The sole's frame: a flat source foot is a flat target foot.
//!
//! The rest-pose normaliser measures a mapped rig's T-pose foot by levelling the foot bone
//! (ankle → toe joint). That line is not the sole: a Mixamo ankle sits far above the ball of
//! the foot, a VRoid toe joint mid-foot. Levelled, such a foot's sole points its toes up by
//! the line's pitch, and a flat source foot played through world deltas tips the target's toes
//! into the floor. A file that declares its T-pose (VRM, VRMA, glTF with
//! EXT_skeleton_humanoid) stands on its soles at rest instead.
//!
//! So for contact-aware retargeting the foot's T-pose is the one whose sole is flat: the
//! levelled foot pitched toes-down by the angle `β` between its ankle–toe line and its sole
//! ([`flatten`]). `β` is measured where the sole is known to be flat: in the frames where the
//! clip plants both the foot and the toe joint ([`planted_pitch`]), else in the rest
//! ([`rest_pitch`], a standing rest).
//!
//! ```
//! use glam::Vec3;
//! use humanoid::pose::contacts::sole::line_pitch;
//!
//! // An ankle 8 cm above a toe joint 14 cm in front of it: the line points 29.7° down.
//! let beta = line_pitch(Vec3::new(0.0, 0.10, 0.0), Vec3::new(0.0, 0.02, 0.14)).unwrap();
//! assert!((beta.to_degrees() - 29.74).abs() < 0.01);
//! ```

use glam::{Quat, Vec3};

use crate::model::humanoid::BoneMap;
use crate::model::skeleton::Skeleton;
use crate::model::HumanBone;

/// The feet and toes, left then right.
pub const FEET: [(HumanBone, HumanBone); 2] = [
    (HumanBone::LeftFoot, HumanBone::LeftToes),
    (HumanBone::RightFoot, HumanBone::RightToes),
];

/// How far the line from `ankle` to `toe` points below the horizontal (radians; negative when
/// the toe joint is higher). `None` for a line with no horizontal length.
pub fn line_pitch(ankle: Vec3, toe: Vec3) -> Option<f32> {
    let d = toe - ankle;
    let horizontal = (d.x * d.x + d.z * d.z).sqrt();
    (horizontal > 1e-5).then(|| (-d.y).atan2(horizontal))
}

/// Each foot's `β` in the rest (canonical space: `turn` takes canonical into the file's
/// space), for a rest that stands on its soles.
pub fn rest_pitch(skeleton: &Skeleton, bones: &BoneMap, turn: Quat) -> [Option<f32>; 2] {
    FEET.map(|(foot, toes)| {
        let at = |b: HumanBone| {
            bones
                .get(b)
                .map(|j| turn.inverse() * skeleton.rest_world(j).translation)
        };
        line_pitch(at(foot)?, at(toes)?)
    })
}

/// `β` from the frames where the foot and toe joints are both planted (`both` per frame): the
/// median pitch of the line then. `None` with fewer than three such frames.
pub fn planted_pitch(ankle: &[Vec3], toe: &[Vec3], both: &[bool]) -> Option<f32> {
    let mut pitches: Vec<f32> = ankle
        .iter()
        .zip(toe)
        .zip(both)
        .filter(|(_, planted)| **planted)
        .filter_map(|((a, t), _)| line_pitch(*a, *t))
        .collect();
    if pitches.len() < 3 {
        return None;
    }
    pitches.sort_by(f32::total_cmp);
    pitches.get(pitches.len() / 2).copied()
}

/// Pitches a side's foot and toe corrections (`S_b`, which level the foot bone) by `β`
/// toes-down about the side's left axis, so that the T-pose foot stands on its sole.
pub fn flatten(corrections: &mut [Quat; HumanBone::COUNT], turn: Quat, pitches: [Option<f32>; 2]) {
    for ((foot, toes), pitch) in FEET.into_iter().zip(pitches) {
        let Some(beta) = pitch.filter(|b| b.is_finite()) else {
            continue;
        };
        let down = (turn * Quat::from_rotation_x(beta) * turn.inverse()).normalize();
        for bone in [foot, toes] {
            if let Some(c) = corrections.get_mut(bone.index()) {
                *c = (down * *c).normalize();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_levelled_foot_pitched_by_beta_has_its_line_back_at_beta() {
        // A foot along +Z levelled (S = identity): pitching by β brings the toe below.
        let mut c = [Quat::IDENTITY; HumanBone::COUNT];
        flatten(&mut c, Quat::IDENTITY, [Some(0.5), None]);
        let line = c[HumanBone::LeftFoot.index()] * Vec3::Z;
        assert!((line_pitch(Vec3::ZERO, line).unwrap() - 0.5).abs() < 1e-6);
        assert_eq!(c[HumanBone::RightFoot.index()], Quat::IDENTITY);
        assert_eq!(
            c[HumanBone::LeftToes.index()],
            c[HumanBone::LeftFoot.index()]
        );
    }

    #[test]
    fn a_turned_rig_pitches_about_its_own_left() {
        // A rig facing −Z (turned half about +Y): its foot line along −Z dips the same way.
        let turn = Quat::from_rotation_y(std::f32::consts::PI);
        let mut c = [Quat::IDENTITY; HumanBone::COUNT];
        flatten(&mut c, turn, [Some(0.3), Some(0.3)]);
        let line = c[HumanBone::RightFoot.index()] * Vec3::NEG_Z;
        assert!((line_pitch(Vec3::ZERO, line).unwrap() - 0.3).abs() < 1e-6);
    }

    #[test]
    fn the_median_of_planted_frames_ignores_the_rest() {
        let ankle = vec![Vec3::new(0.0, 0.1, 0.0); 5];
        let toe = [0.1f32, 0.02, 0.02, 0.021, 0.5].map(|y| Vec3::new(0.0, y, 0.15));
        let both = [false, true, true, true, false];
        let beta = planted_pitch(&ankle, &toe, &both).unwrap();
        assert!((beta - (0.08f32).atan2(0.15)).abs() < 1e-6);
        assert_eq!(
            planted_pitch(&ankle, &toe, &[true, true, false, false, false]),
            None
        );
    }
}
