//! The canonical T-pose as data: for every bone its canonical frame `F_b`, its world position in
//! the T-pose of a ~1.4 m reference character, and its rest transform local to its canonical
//! parent (`docs/conventions.md`, ARCHITECTURE.md §3).
//!
//! The numbers are Godot's `SkeletonProfileHumanoid` reference poses (global origins, global
//! +Y and +X per bone; `Root` dropped, so `hips` is relative to the model origin), with one
//! deliberate change: the thumbs point 45° between X and Z, `(±1, 0, 1)/√2`, as
//! EXT_skeleton_humanoid, VRM 1.0 and Unity require (Godot's table has about 35°,
//! `(±0.816, 0, 0.577)`). The thumb bend axes stay Godot's (`(0, 1, 0)` left, `(0, −1, 0)`
//! right) and the thumb joints sit on the 45° line from the metacarpal.
//!
//! A frame's matrix has the bone's local axes as columns, in model space: +Y from the joint
//! toward its child (along the bone), +X the axis the joint bends about (a positive rotation
//! about +X bends the joint like a contracting muscle), +Z = X × Y.
//!
//! ```
//! use glam::Vec3;
//! use humanoid::model::HumanBone;
//! use humanoid::pose::tpose::{canonical_direction, canonical_frame, canonical_position};
//!
//! // The left arm points along +X (the character's left), the legs down.
//! assert!(canonical_direction(HumanBone::LeftUpperArm).abs_diff_eq(Vec3::X, 1e-6));
//! assert!(canonical_direction(HumanBone::RightLowerLeg).abs_diff_eq(Vec3::NEG_Y, 1e-6));
//! assert!((canonical_frame(HumanBone::LeftFoot) * Vec3::Y).abs_diff_eq(Vec3::Z, 1e-6));
//! assert_eq!(canonical_position(HumanBone::Hips), Vec3::new(0.0, 0.75, 0.0));
//! ```

use std::f32::consts::FRAC_1_SQRT_2;
use std::sync::OnceLock;

use glam::{Mat3, Quat, Vec3};

use crate::model::HumanBone;

/// Length of the thumb metacarpal and proximal phalanx in the reference character (Godot's).
const THUMB_SEGMENT: f32 = 0.043;

/// One bone of the canonical table: world position, +Y (bone direction), +X (bend axis).
#[derive(Debug, Clone, Copy)]
struct Row {
    position: Vec3,
    y: Vec3,
    x: Vec3,
}

const fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

/// The table, in [`HumanBone::ALL`] order (Godot's `SkeletonProfileHumanoid`, thumbs at 45°).
fn row(bone: HumanBone) -> Row {
    use HumanBone::*;
    let r = |position, y, x| Row { position, y, x };
    // Thumbs: 45° between X and Z, joints spaced THUMB_SEGMENT along that line.
    let thumb_l = v(FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2);
    let thumb_r = v(-FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2);
    let thumb_base_l = v(0.625, 1.15, 0.025);
    let thumb_base_r = v(-0.625, 1.15, 0.025);
    match bone {
        Hips => r(v(0.0, 0.75, 0.0), Vec3::Y, Vec3::X),
        Spine => r(v(0.0, 0.85, 0.0), Vec3::Y, Vec3::X),
        Chest => r(v(0.0, 0.95, 0.0), Vec3::Y, Vec3::X),
        UpperChest => r(v(0.0, 1.05, 0.0), Vec3::Y, Vec3::X),
        Neck => r(v(0.0, 1.15, 0.0), Vec3::Y, Vec3::X),
        Head => r(v(0.0, 1.25, 0.0), Vec3::Y, Vec3::X),
        LeftEye => r(v(0.05, 1.4, 0.0), Vec3::Z, Vec3::X),
        RightEye => r(v(-0.05, 1.4, 0.0), Vec3::Z, Vec3::X),
        Jaw => r(v(0.0, 1.3, 0.05), Vec3::Z, Vec3::NEG_X),

        LeftShoulder => r(v(0.05, 1.15, 0.0), Vec3::X, Vec3::Z),
        LeftUpperArm => r(v(0.1, 1.15, 0.0), Vec3::X, Vec3::NEG_Z),
        LeftLowerArm => r(v(0.35, 1.15, 0.0), Vec3::X, Vec3::NEG_Y),
        LeftHand => r(v(0.6, 1.15, 0.0), Vec3::X, Vec3::NEG_Z),
        LeftThumbMetacarpal => r(thumb_base_l, thumb_l, Vec3::Y),
        LeftThumbProximal => r(thumb_base_l + thumb_l * THUMB_SEGMENT, thumb_l, Vec3::Y),
        LeftThumbDistal => r(
            thumb_base_l + thumb_l * (2.0 * THUMB_SEGMENT),
            thumb_l,
            Vec3::Y,
        ),
        LeftIndexProximal => r(v(0.675, 1.15, 0.025), Vec3::X, Vec3::NEG_Z),
        LeftIndexIntermediate => r(v(0.725, 1.15, 0.025), Vec3::X, Vec3::NEG_Z),
        LeftIndexDistal => r(v(0.75, 1.15, 0.025), Vec3::X, Vec3::NEG_Z),
        LeftMiddleProximal => r(v(0.675, 1.15, 0.0), Vec3::X, Vec3::NEG_Z),
        LeftMiddleIntermediate => r(v(0.75, 1.15, 0.0), Vec3::X, Vec3::NEG_Z),
        LeftMiddleDistal => r(v(0.775, 1.15, 0.0), Vec3::X, Vec3::NEG_Z),
        LeftRingProximal => r(v(0.675, 1.15, -0.025), Vec3::X, Vec3::NEG_Z),
        LeftRingIntermediate => r(v(0.725, 1.15, -0.025), Vec3::X, Vec3::NEG_Z),
        LeftRingDistal => r(v(0.75, 1.15, -0.025), Vec3::X, Vec3::NEG_Z),
        LeftLittleProximal => r(v(0.65, 1.15, -0.05), Vec3::X, Vec3::NEG_Z),
        LeftLittleIntermediate => r(v(0.7, 1.15, -0.05), Vec3::X, Vec3::NEG_Z),
        LeftLittleDistal => r(v(0.725, 1.15, -0.05), Vec3::X, Vec3::NEG_Z),

        RightShoulder => r(v(-0.05, 1.15, 0.0), Vec3::NEG_X, Vec3::NEG_Z),
        RightUpperArm => r(v(-0.1, 1.15, 0.0), Vec3::NEG_X, Vec3::Z),
        RightLowerArm => r(v(-0.35, 1.15, 0.0), Vec3::NEG_X, Vec3::Y),
        RightHand => r(v(-0.6, 1.15, 0.0), Vec3::NEG_X, Vec3::Z),
        RightThumbMetacarpal => r(thumb_base_r, thumb_r, Vec3::NEG_Y),
        RightThumbProximal => r(thumb_base_r + thumb_r * THUMB_SEGMENT, thumb_r, Vec3::NEG_Y),
        RightThumbDistal => r(
            thumb_base_r + thumb_r * (2.0 * THUMB_SEGMENT),
            thumb_r,
            Vec3::NEG_Y,
        ),
        RightIndexProximal => r(v(-0.675, 1.15, 0.025), Vec3::NEG_X, Vec3::Z),
        RightIndexIntermediate => r(v(-0.725, 1.15, 0.025), Vec3::NEG_X, Vec3::Z),
        RightIndexDistal => r(v(-0.75, 1.15, 0.025), Vec3::NEG_X, Vec3::Z),
        RightMiddleProximal => r(v(-0.675, 1.15, 0.0), Vec3::NEG_X, Vec3::Z),
        RightMiddleIntermediate => r(v(-0.75, 1.15, 0.0), Vec3::NEG_X, Vec3::Z),
        RightMiddleDistal => r(v(-0.775, 1.15, 0.0), Vec3::NEG_X, Vec3::Z),
        RightRingProximal => r(v(-0.675, 1.15, -0.025), Vec3::NEG_X, Vec3::Z),
        RightRingIntermediate => r(v(-0.725, 1.15, -0.025), Vec3::NEG_X, Vec3::Z),
        RightRingDistal => r(v(-0.75, 1.15, -0.025), Vec3::NEG_X, Vec3::Z),
        RightLittleProximal => r(v(-0.65, 1.15, -0.05), Vec3::NEG_X, Vec3::Z),
        RightLittleIntermediate => r(v(-0.7, 1.15, -0.05), Vec3::NEG_X, Vec3::Z),
        RightLittleDistal => r(v(-0.725, 1.15, -0.05), Vec3::NEG_X, Vec3::Z),

        LeftUpperLeg => r(v(0.1, 0.75, 0.0), Vec3::NEG_Y, Vec3::NEG_X),
        LeftLowerLeg => r(v(0.1, 0.375, 0.0), Vec3::NEG_Y, Vec3::X),
        LeftFoot => r(v(0.1, 0.0, 0.0), Vec3::Z, Vec3::NEG_X),
        LeftToes => r(v(0.1, 0.0, 0.15), Vec3::Z, Vec3::X),
        RightUpperLeg => r(v(-0.1, 0.75, 0.0), Vec3::NEG_Y, Vec3::NEG_X),
        RightLowerLeg => r(v(-0.1, 0.375, 0.0), Vec3::NEG_Y, Vec3::X),
        RightFoot => r(v(-0.1, 0.0, 0.0), Vec3::Z, Vec3::NEG_X),
        RightToes => r(v(-0.1, 0.0, 0.15), Vec3::Z, Vec3::X),
    }
}

/// A bone's canonical world frame and position, computed once.
#[derive(Debug, Clone, Copy)]
struct Entry {
    frame: Quat,
    position: Vec3,
}

fn table() -> &'static [Entry; HumanBone::COUNT] {
    static TABLE: OnceLock<[Entry; HumanBone::COUNT]> = OnceLock::new();
    TABLE.get_or_init(|| {
        HumanBone::ALL.map(|bone| {
            let Row { position, y, x } = row(bone);
            let frame = Quat::from_mat3(&Mat3::from_cols(x, y, x.cross(y))).normalize();
            Entry { frame, position }
        })
    })
}

/// The bone's canonical frame `F_b`: its world rotation in the canonical T-pose. The columns
/// of its matrix are the bone's local X (bend axis), Y (along the bone) and Z axes in model
/// space; it is a proper rotation (right-handed, `Z = X × Y`).
pub fn canonical_frame(bone: HumanBone) -> Quat {
    table()[bone.index()].frame
}

/// The bone's direction in the T-pose: the +Y axis of [`canonical_frame`] (from the joint
/// toward its child; for branching and leaf bones Godot's choice).
pub fn canonical_direction(bone: HumanBone) -> Vec3 {
    canonical_frame(bone) * Vec3::Y
}

/// The bone's bend axis in the T-pose: the +X axis of [`canonical_frame`]. A positive rotation
/// about it bends the joint like a contracting muscle (hip and elbow flexion, knee flexion).
pub fn canonical_bend_axis(bone: HumanBone) -> Vec3 {
    canonical_frame(bone) * Vec3::X
}

/// The bone's joint position in model space (metres) in the T-pose of the reference character:
/// hips at `(0, 0.75, 0)`, feet joints on `y = 0`, head joint at `y = 1.25`, hands at `x = ±0.6`.
pub fn canonical_position(bone: HumanBone) -> Vec3 {
    table()[bone.index()].position
}

/// The bone's rest transform local to its canonical parent, `(translation, rotation)`:
/// rotation `F_parent⁻¹ · F_b`, translation `F_parent⁻¹ · (p_b − p_parent)`. For `hips` it is
/// relative to the model origin: `(p_hips, F_hips)`. Chaining these from `hips` reproduces
/// [`canonical_position`] and [`canonical_frame`].
pub fn canonical_rest_local(bone: HumanBone) -> (Vec3, Quat) {
    let own = table()[bone.index()];
    match bone.parent() {
        None => (own.position, own.frame),
        Some(parent) => {
            let parent = table()[parent.index()];
            let inverse = parent.frame.inverse();
            (
                inverse * (own.position - parent.position),
                (inverse * own.frame).normalize(),
            )
        }
    }
}

/// The per-bone table of `docs/conventions.md` (Markdown), generated from the same numbers:
/// bone, canonical parent, world position, +Y direction, +X bend axis.
pub fn conventions_table() -> String {
    fn num(x: f32) -> String {
        let s = format!("{:.4}", x);
        let s = s.trim_end_matches('0').trim_end_matches('.');
        match s {
            "-0" => "0".to_string(),
            s => s.to_string(),
        }
    }
    fn vec(v: Vec3) -> String {
        format!("({}, {}, {})", num(v.x), num(v.y), num(v.z))
    }
    let mut out = String::from(
        "| bone | canonical parent | world position (m) | +Y (bone direction) | +X (bend axis) |\n\
         |---|---|---|---|---|\n",
    );
    for bone in HumanBone::ALL {
        let parent = bone.parent().map_or("—", HumanBone::as_str);
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            bone.as_str(),
            parent,
            vec(canonical_position(bone)),
            vec(canonical_direction(bone)),
            vec(canonical_bend_axis(bone)),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use HumanBone::*;

    const EPS: f32 = 1e-5;

    fn close(a: Vec3, b: Vec3) -> bool {
        a.abs_diff_eq(b, EPS)
    }

    #[test]
    fn frames_are_orthonormal_and_right_handed() {
        for bone in HumanBone::ALL {
            let q = canonical_frame(bone);
            assert!(
                (q.length() - 1.0).abs() < 1e-6,
                "{bone}: |q| = {}",
                q.length()
            );
            let m = Mat3::from_quat(q);
            let (x, y, z) = (m.x_axis, m.y_axis, m.z_axis);
            for (name, axis) in [("x", x), ("y", y), ("z", z)] {
                assert!((axis.length() - 1.0).abs() < EPS, "{bone}: |{name}|");
            }
            assert!(
                x.dot(y).abs() < EPS && y.dot(z).abs() < EPS && z.dot(x).abs() < EPS,
                "{bone}"
            );
            assert!(close(x.cross(y), z), "{bone}: Z != X × Y");
            assert!((m.determinant() - 1.0).abs() < EPS, "{bone}: det");
            // The table's axes are what the frame holds.
            let r = row(bone);
            assert!(
                close(x, r.x) && close(y, r.y),
                "{bone}: frame differs from its table row"
            );
        }
    }

    #[test]
    fn bone_direction_points_at_the_only_child() {
        let mut checked = 0;
        for bone in HumanBone::ALL {
            let children: Vec<_> = bone.children().collect();
            let [child] = children[..] else { continue };
            let to_child = (canonical_position(child) - canonical_position(bone)).normalize();
            assert!(
                close(canonical_direction(bone), to_child),
                "{bone} → {child}: {to_child}"
            );
            checked += 1;
        }
        // spine, chest, neck, 2 × (shoulder, upper arm, lower arm, 2 thumb, 8 finger phalanges),
        // 2 × (upper leg, lower leg, foot).
        assert_eq!(checked, 3 + 2 * 13 + 2 * 3);
    }

    #[test]
    fn limbs_follow_the_spec_t_pose() {
        // EXT_skeleton_humanoid "Reference pose": arms spread along X (left arm +X), legs down,
        // toes along +Z, fingers along X, thumbs 45° between X and Z, head up, facing +Z.
        let s = std::f32::consts::FRAC_1_SQRT_2;
        for bone in [LeftShoulder, LeftUpperArm, LeftLowerArm, LeftHand] {
            assert!(
                close(canonical_direction(bone), Vec3::new(1.0, 0.0, 0.0)),
                "{bone}"
            );
            assert!(
                close(
                    canonical_direction(bone.mirror()),
                    Vec3::new(-1.0, 0.0, 0.0)
                ),
                "{bone}"
            );
        }
        for bone in [LeftUpperLeg, LeftLowerLeg, RightUpperLeg, RightLowerLeg] {
            assert!(
                close(canonical_direction(bone), Vec3::new(0.0, -1.0, 0.0)),
                "{bone}"
            );
        }
        for bone in [
            LeftFoot, LeftToes, RightFoot, RightToes, LeftEye, RightEye, Jaw,
        ] {
            assert!(
                close(canonical_direction(bone), Vec3::new(0.0, 0.0, 1.0)),
                "{bone}"
            );
        }
        for bone in [Hips, Spine, Chest, UpperChest, Neck, Head] {
            assert!(
                close(canonical_direction(bone), Vec3::new(0.0, 1.0, 0.0)),
                "{bone}"
            );
        }
        for finger in ["Index", "Middle", "Ring", "Little"] {
            for joint in ["Proximal", "Intermediate", "Distal"] {
                let left: HumanBone = format!("left{finger}{joint}").parse().unwrap();
                assert!(
                    close(canonical_direction(left), Vec3::new(1.0, 0.0, 0.0)),
                    "{left}"
                );
                assert!(
                    close(
                        canonical_direction(left.mirror()),
                        Vec3::new(-1.0, 0.0, 0.0)
                    ),
                    "{left}"
                );
                // Palms down: the fingers curl toward −Y about their bend axis.
                let curled = Quat::from_axis_angle(canonical_bend_axis(left), 0.5)
                    * canonical_direction(left);
                assert!(curled.y < 0.0, "{left} curls down");
            }
        }
        for bone in [LeftThumbMetacarpal, LeftThumbProximal, LeftThumbDistal] {
            assert!(
                close(canonical_direction(bone), Vec3::new(s, 0.0, s)),
                "{bone}"
            );
            assert!(
                close(canonical_direction(bone.mirror()), Vec3::new(-s, 0.0, s)),
                "{bone}"
            );
            assert!(
                close(canonical_bend_axis(bone), Vec3::new(0.0, 1.0, 0.0)),
                "{bone}"
            );
            assert!(
                close(
                    canonical_bend_axis(bone.mirror()),
                    Vec3::new(0.0, -1.0, 0.0)
                ),
                "{bone}"
            );
        }
        // Bending like a contracting muscle: hip flexion swings the leg forward, knee flexion
        // the shin back, elbow flexion the forearm forward.
        let bend = |bone: HumanBone| {
            Quat::from_axis_angle(canonical_bend_axis(bone), 0.5) * canonical_direction(bone)
        };
        assert!(bend(LeftUpperLeg).z > 0.0 && bend(RightUpperLeg).z > 0.0);
        assert!(bend(LeftLowerLeg).z < 0.0 && bend(RightLowerLeg).z < 0.0);
        assert!(bend(LeftLowerArm).z > 0.0 && bend(RightLowerArm).z > 0.0);
        // Feet on the ground, hips at Godot's 0.75 m, left is +X.
        assert!(
            canonical_position(LeftFoot).y.abs() < EPS
                && canonical_position(RightToes).y.abs() < EPS
        );
        assert!(canonical_position(LeftHand).x > 0.5 && canonical_position(RightHand).x < -0.5);
    }

    #[test]
    fn right_side_mirrors_the_left() {
        // Mirror through the YZ plane: positions and +Y reflect, +X reflects and flips (so the
        // frame stays right-handed).
        let reflect = |v: Vec3| Vec3::new(-v.x, v.y, v.z);
        for bone in HumanBone::ALL.into_iter().filter(|b| b.is_left()) {
            let m = bone.mirror();
            assert!(
                close(canonical_position(m), reflect(canonical_position(bone))),
                "{bone}"
            );
            assert!(
                close(canonical_direction(m), reflect(canonical_direction(bone))),
                "{bone}"
            );
            assert!(
                close(canonical_bend_axis(m), -reflect(canonical_bend_axis(bone))),
                "{bone}"
            );
        }
    }

    #[test]
    fn thumbs_sit_on_the_45_degree_line() {
        for side in [LeftThumbMetacarpal, RightThumbMetacarpal] {
            let base = canonical_position(side);
            let hand = canonical_position(side.parent().unwrap());
            let d = base - hand;
            assert!(
                (d.x.abs() - d.z).abs() < EPS && d.y.abs() < EPS,
                "{side}: {d}"
            );
        }
        let step = canonical_position(LeftThumbDistal) - canonical_position(LeftThumbProximal);
        assert!((step.length() - THUMB_SEGMENT).abs() < EPS);
    }

    #[test]
    fn rest_locals_chain_back_to_the_t_pose() {
        let mut world: Vec<(Vec3, Quat)> = Vec::new();
        for bone in HumanBone::ALL {
            let (t, r) = canonical_rest_local(bone);
            assert!((r.length() - 1.0).abs() < 1e-6, "{bone}");
            let w = match bone.parent() {
                None => (t, r),
                Some(p) => {
                    let (pp, pr) = world[p.index()];
                    (pp + pr * t, pr * r)
                }
            };
            assert!(
                close(w.0, canonical_position(bone)),
                "{bone}: {} vs {}",
                w.0,
                canonical_position(bone)
            );
            let f = canonical_frame(bone);
            assert!(
                w.1.dot(f).abs() > 1.0 - 1e-6 && (w.1 * Vec3::Y).abs_diff_eq(f * Vec3::Y, EPS),
                "{bone}"
            );
            assert!((w.1 * Vec3::X).abs_diff_eq(f * Vec3::X, EPS), "{bone}");
            world.push(w);
        }
        // Godot's local reference poses, spot-checked: LeftUpperArm sits 0.05 along its
        // shoulder's +Y, LeftLowerArm 0.25 along its upper arm's +Y.
        assert!(close(
            canonical_rest_local(LeftUpperArm).0,
            Vec3::new(0.0, 0.05, 0.0)
        ));
        assert!(close(
            canonical_rest_local(LeftLowerArm).0,
            Vec3::new(0.0, 0.25, 0.0)
        ));
        assert!(close(
            canonical_rest_local(Hips).0,
            Vec3::new(0.0, 0.75, 0.0)
        ));
    }

    #[test]
    fn conventions_document_holds_the_generated_table() {
        let table = conventions_table();
        assert_eq!(table.lines().count(), 2 + HumanBone::COUNT);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/conventions.md");
        let doc = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            doc.contains(&table),
            "docs/conventions.md lacks the current bone table; paste this in:\n{table}"
        );
    }
}
