//! The mannequin's clips, `walk` and `wave`, as LINEAR keys of local joint transforms.
//!
//! Each rotation key is `rest_local · D`, with `D` a delta in the bone's own frame (= its
//! canonical frame, so a rotation about local +X bends the joint like a contracting muscle).
//! Deltas that are easier to say in model axes (`N`) are turned into bone-frame deltas with
//! `D = F_b⁻¹ · N · F_b`. Keys are sampled from periodic functions; the last key is a copy of
//! the first, so the clips loop.

use std::f32::consts::TAU;

use glam::{Quat, Vec3};

use super::{MannequinClip, MannequinJoint, MannequinTrack, TrackPath};
use crate::model::HumanBone;
use crate::pose::tpose::canonical_frame;

/// Rotation about the bone's local X (bend axis) by `deg` degrees.
fn bend(deg: f32) -> Quat {
    Quat::from_rotation_x(deg.to_radians())
}

/// Rotation about the bone's local Z by `deg` degrees.
fn roll(deg: f32) -> Quat {
    Quat::from_rotation_z(deg.to_radians())
}

/// The bone-frame delta of a model-axes rotation `n`: `F_b⁻¹ · n · F_b`.
fn from_model(bone: HumanBone, n: Quat) -> Quat {
    let f = canonical_frame(bone);
    f.inverse() * n * f
}

/// Key times `0, d/n, …, d` (`n + 1` keys).
fn times(duration: f32, intervals: usize) -> Vec<f32> {
    (0..=intervals)
        .map(|i| duration * i as f32 / intervals as f32)
        .collect()
}

/// A rotation track: `rest · delta(phase)` at each key, phase in `[0, 1)`, unit and
/// sign-continuous, closed by a copy of the first key.
fn rotation(
    joints: &[MannequinJoint],
    bone: HumanBone,
    times: &[f32],
    delta: impl Fn(f32) -> Quat,
) -> MannequinTrack {
    let joint = bone.index();
    let rest = joints[joint].rotation;
    let duration = times[times.len() - 1];
    let mut keys: Vec<Quat> = Vec::with_capacity(times.len());
    for &t in &times[..times.len() - 1] {
        let mut q = (rest * delta(t / duration)).normalize();
        if keys.last().is_some_and(|prev| prev.dot(q) < 0.0) {
            q = -q;
        }
        keys.push(q);
    }
    keys.push(keys[0]);
    MannequinTrack {
        joint,
        path: TrackPath::Rotation,
        times: times.to_vec(),
        values: keys.iter().flat_map(|q| q.to_array()).collect(),
    }
}

/// A translation track: `rest + offset(phase)`, closed by a copy of the first key.
fn translation(
    joints: &[MannequinJoint],
    bone: HumanBone,
    times: &[f32],
    offset: impl Fn(f32) -> Vec3,
) -> MannequinTrack {
    let joint = bone.index();
    let rest = joints[joint].translation;
    let duration = times[times.len() - 1];
    let mut keys: Vec<Vec3> = times[..times.len() - 1]
        .iter()
        .map(|&t| rest + offset(t / duration))
        .collect();
    keys.push(keys[0]);
    MannequinTrack {
        joint,
        path: TrackPath::Translation,
        times: times.to_vec(),
        values: keys.iter().flat_map(|v| v.to_array()).collect(),
    }
}

/// `walk` (1 s, 41 keys): an in-place walk cycle. The left leg swings forward in the first half.
pub(super) fn walk(joints: &[MannequinJoint]) -> MannequinClip {
    use HumanBone::*;
    let t = times(1.0, 40);
    let s = |u: f32| (TAU * u).sin();
    let c = |u: f32| (TAU * u).cos();
    let mut tracks = vec![
        // Bob twice per cycle (highest when the legs pass), sway forward-back and sideways.
        translation(joints, Hips, &t, |u| {
            Vec3::new(
                0.012 * s(u),
                0.015 * (2.0 * TAU * u).cos(),
                0.01 * (2.0 * TAU * u).sin(),
            )
        }),
        // Pelvis turns with the forward leg; the spine turns back against it.
        rotation(joints, Hips, &t, |u| {
            Quat::from_rotation_y((-6.0 * s(u)).to_radians())
        }),
        rotation(joints, Spine, &t, |u| {
            Quat::from_rotation_y((3.0 * s(u)).to_radians())
        }),
        rotation(joints, Chest, &t, |u| {
            Quat::from_rotation_y((3.0 * s(u)).to_radians())
        }),
        rotation(joints, UpperChest, &t, |u| {
            Quat::from_rotation_y((2.0 * s(u)).to_radians())
        }),
        rotation(joints, Head, &t, |u| bend(2.0 * (2.0 * TAU * u).cos())),
    ];
    for (side, sign) in [(Side::Left, 1.0f32), (Side::Right, -1.0)] {
        // `phase` is the side's own cycle: the right side runs half a cycle behind.
        let phase = move |u: f32| if sign > 0.0 { u } else { u + 0.5 };
        let b = |name: &str| side.bone(name);
        // Hip flexion ±25°: positive swings the leg forward.
        tracks.push(rotation(joints, b("UpperLeg"), &t, move |u| {
            bend(25.0 * s(phase(u)))
        }));
        // Knee: most flexed while the leg swings forward.
        tracks.push(rotation(joints, b("LowerLeg"), &t, move |u| {
            let k = 0.5 + 0.5 * c(phase(u));
            bend(5.0 + 35.0 * k * k)
        }));
        // Ankle: toes up at heel strike, down at push-off.
        tracks.push(rotation(joints, b("Foot"), &t, move |u| {
            bend(12.0 * s(phase(u)))
        }));
        tracks.push(rotation(joints, b("Toes"), &t, move |u| {
            bend(-10.0 * (0.5 - 0.5 * s(phase(u))))
        }));
        // Arms hang 70° down from the T-pose and swing against the leg of their side.
        let arm = b("UpperArm");
        tracks.push(rotation(joints, arm, &t, move |u| {
            let lower = Quat::from_rotation_z((-70.0 * sign).to_radians());
            let swing = Quat::from_rotation_x((20.0 * s(phase(u))).to_radians());
            from_model(arm, swing * lower)
        }));
        tracks.push(rotation(joints, b("LowerArm"), &t, move |u| {
            bend(15.0 + 10.0 * (0.5 - 0.5 * s(phase(u))))
        }));
    }
    MannequinClip {
        name: "walk".into(),
        tracks,
    }
}

/// `wave` (2 s, 61 keys): right arm raised, forearm waving side to side three times, fingers
/// slightly curled, head tilted toward the wave; the left arm rests at the side.
pub(super) fn wave(joints: &[MannequinJoint]) -> MannequinClip {
    use HumanBone::*;
    let t = times(2.0, 60);
    let s = |u: f32| (TAU * u).sin();
    let mut tracks = vec![
        // Up about the bend axis (negative = against flexion): 55° above the horizontal.
        rotation(joints, RightUpperArm, &t, |u| bend(-(55.0 + 4.0 * s(u)))),
        // Forearm up and waving side to side in the raised arm's plane, a little flexed.
        rotation(joints, RightLowerArm, &t, |u| {
            bend(20.0) * roll(-25.0 + 25.0 * s(3.0 * u))
        }),
        rotation(joints, RightHand, &t, |u| roll(8.0 * s(3.0 * u - 0.1))),
        rotation(joints, Head, &t, |u| {
            roll(8.0 + 3.0 * s(u)) * bend(3.0 * s(2.0 * u))
        }),
        rotation(joints, Chest, &t, |u| roll(-2.0 - 1.5 * s(u))),
        rotation(joints, LeftUpperArm, &t, |u| bend(70.0 + 2.0 * s(u))),
        rotation(joints, LeftLowerArm, &t, |_| bend(10.0)),
    ];
    for finger in ["Index", "Middle", "Ring", "Little"] {
        for (joint, base) in [("Proximal", 12.0), ("Intermediate", 15.0), ("Distal", 10.0)] {
            let bone = Side::Right.bone(&format!("{finger}{joint}"));
            tracks.push(rotation(joints, bone, &t, move |u| bend(base + 4.0 * s(u))));
        }
    }
    for joint in ["ThumbMetacarpal", "ThumbProximal", "ThumbDistal"] {
        tracks.push(rotation(joints, Side::Right.bone(joint), &t, |u| {
            bend(8.0 + 2.0 * s(u))
        }));
    }
    MannequinClip {
        name: "wave".into(),
        tracks,
    }
}

/// A side of the body, to name bones.
#[derive(Debug, Clone, Copy)]
enum Side {
    Left,
    Right,
}

impl Side {
    fn bone(self, rest: &str) -> HumanBone {
        let side = match self {
            Side::Left => "left",
            Side::Right => "right",
        };
        format!("{side}{rest}").parse().unwrap_or(HumanBone::Hips)
    }
}

#[cfg(test)]
mod tests {
    use super::super::build;
    use super::*;

    #[test]
    fn clips_loop_with_unit_sign_continuous_keys() {
        let m = build();
        let names: Vec<_> = m.clips.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["walk", "wave"]);
        for clip in &m.clips {
            let mut seen = std::collections::HashSet::new();
            for track in &clip.tracks {
                assert!(
                    seen.insert((track.joint, track.path)),
                    "{}: two tracks on one target",
                    clip.name
                );
                assert!(track.joint < m.joints.len());
                assert!(
                    track.times.len() >= 30,
                    "{}: {} keys",
                    clip.name,
                    track.times.len()
                );
                assert_eq!(track.times[0], 0.0);
                assert!(
                    track.times.windows(2).all(|w| w[0] < w[1]),
                    "{}: times not increasing",
                    clip.name
                );
                let k = track.path.components();
                assert_eq!(track.values.len(), k * track.times.len());
                let keys: Vec<&[f32]> = track.values.chunks(k).collect();
                assert_eq!(
                    keys[0],
                    keys[keys.len() - 1],
                    "{}: loop does not close",
                    clip.name
                );
                if track.path == TrackPath::Rotation {
                    for key in &keys {
                        let q = Quat::from_slice(key);
                        assert!((q.length() - 1.0).abs() < 1e-6);
                    }
                    for w in keys.windows(2) {
                        assert!(Quat::from_slice(w[0]).dot(Quat::from_slice(w[1])) >= 0.0);
                    }
                }
            }
        }
        let duration = |name: &str| {
            m.clips.iter().find(|c| c.name == name).unwrap().tracks[0]
                .times
                .last()
                .copied()
        };
        assert_eq!(duration("walk"), Some(1.0));
        assert_eq!(duration("wave"), Some(2.0));
    }

    #[test]
    fn walk_swings_legs_and_arms_in_opposition() {
        use HumanBone::*;
        let m = build();
        let walk = &m.clips[0];
        // World direction of a bone at key k with its parent chain at rest except the bone.
        let dir = |bone: HumanBone, k: usize| {
            let track = walk
                .tracks
                .iter()
                .find(|t| t.joint == bone.index() && t.path == TrackPath::Rotation)
                .unwrap();
            let local = Quat::from_slice(&track.values[4 * k..4 * k + 4]);
            let parent = canonical_frame(bone.parent().unwrap());
            parent * local * Vec3::Y
        };
        // Quarter cycle: the left leg forward (+Z), the right back; the left arm back.
        assert!(dir(LeftUpperLeg, 10).z > 0.3 && dir(RightUpperLeg, 10).z < -0.3);
        assert!(dir(LeftUpperArm, 10).z < -0.1 && dir(RightUpperArm, 10).z > 0.1);
        // Arms hang down, not out.
        assert!(dir(LeftUpperArm, 0).y < -0.8 && dir(RightUpperArm, 0).y < -0.8);
        // Knees only flex (the shin goes back relative to the thigh).
        for k in 0..40 {
            let track = walk
                .tracks
                .iter()
                .find(|t| t.joint == LeftLowerLeg.index())
                .unwrap();
            let local = Quat::from_slice(&track.values[4 * k..4 * k + 4]);
            let rest = m.joints[LeftLowerLeg.index()].rotation;
            let (axis, angle) = (rest.inverse() * local).to_axis_angle();
            assert!(axis.x * angle >= 0.0, "knee hyperextends at key {k}");
        }
    }

    #[test]
    fn wave_raises_the_right_hand_above_the_shoulder() {
        use HumanBone::*;
        let m = build();
        let wave = &m.clips[1];
        let local = |bone: HumanBone, k: usize| {
            wave.tracks
                .iter()
                .find(|t| t.joint == bone.index() && t.path == TrackPath::Rotation)
                .map_or(m.joints[bone.index()].rotation, |t| {
                    Quat::from_slice(&t.values[4 * k..4 * k + 4])
                })
        };
        for k in [0, 15, 30, 45] {
            // Forward kinematics from the shoulder, positions relative to it.
            let mut rot = canonical_frame(RightShoulder);
            let mut pos = Vec3::ZERO;
            for bone in [RightUpperArm, RightLowerArm, RightHand] {
                pos += rot * m.joints[bone.index()].translation;
                rot *= local(bone, k);
            }
            assert!(
                pos.y > 0.3,
                "hand only {} above the shoulder at key {k}",
                pos.y
            );
        }
    }
}
