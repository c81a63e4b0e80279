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
//! levelled foot pitched toes-down by the angle `β` between its ankle–toe line and its sole,
//! applied to the world-delta bake as one constant turn per foot and toe bone ([`turn`]). `β` is measured where the sole is known to be flat: in the frames where the
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

/// The turn that carries a target foot (or toe) bone's world-delta rotation onto the soles'
/// T-pose: `W_sole(t) = W(t) · C`, with `C = F⁻¹ · s' · Rx(β' − β) · s'⁻¹ · F`.
///
/// Retargeting by world deltas gives the bone `W(t) = T · W_src(t) · (S · W_src(rest))⁻¹ · K ·
/// F` (`F = S' · W'(rest)` the target bone's T-pose world rotation, `K = s · s'⁻¹` the turns
/// of both sides). With both sides' T-pose feet pitched toes-down by their `β` about their own
/// left axis (`P = s · Rx(β) · s⁻¹` on the left of `S`), the constant factors become `… ·
/// P_src⁻¹ · K · P' · F`, which is the world-delta rotation times `C` above: so the soles are
/// a post-process of the exact world-delta bake, one constant per foot and toe bone.
/// `β`: the source's (`None`: 0, a declared T-pose), `β'`: the target's.
pub fn turn(target_turn: Quat, source: Option<f32>, target: Option<f32>, t_pose: Quat) -> Quat {
    let pitch = target.unwrap_or(0.0) - source.unwrap_or(0.0);
    if pitch == 0.0 || !pitch.is_finite() {
        return Quat::IDENTITY;
    }
    let about_left = target_turn * Quat::from_rotation_x(pitch) * target_turn.inverse();
    (t_pose.inverse() * about_left * t_pose).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The world-delta rotation with both sides' feet pitched in their T-pose (the constant
    /// factors of `W(t)` written out), against the plain one times [`turn`].
    #[test]
    fn the_turn_is_the_pitched_t_pose_as_a_post_process() {
        let q = |x: f32, y: f32, z: f32| Quat::from_euler(glam::EulerRot::YXZ, y, x, z);
        let (s, s2) = (q(0.0, 3.1, 0.0), q(0.0, 0.4, 0.0));
        let (corr, corr2) = (q(0.3, -0.2, 0.1), q(-0.1, 0.5, 0.2));
        let (rest, rest2) = (q(0.7, 0.2, -0.3), q(-0.4, 1.0, 0.6));
        let (beta, beta2) = (0.45f32, 0.2f32);
        let now = q(0.2, -0.6, 0.9);
        let k = s * s2.inverse();
        let f = corr2 * rest2;
        let plain = now * (corr * rest).inverse() * k * f;
        let pitch = |turn: Quat, b: f32| turn * Quat::from_rotation_x(b) * turn.inverse();
        let pitched = now * (pitch(s, beta) * corr * rest).inverse() * k * pitch(s2, beta2) * f;
        let post = plain * turn(s2, Some(beta), Some(beta2), f);
        assert!(
            pitched.abs_diff_eq(post, 1e-5) || pitched.abs_diff_eq(-post, 1e-5),
            "{pitched} vs {post}"
        );
        assert_eq!(turn(s2, None, None, f), Quat::IDENTITY);
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
