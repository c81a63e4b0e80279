//! The bundled mannequin: a generated, skinned humanoid with all 55 bones in the canonical
//! T-pose and a `walk` and a `wave` clip, as plain data (the glTF writer lives elsewhere).
//!
//! Every joint's rest rotation is [`canonical_rest_local`], so each bone's world rest rotation is
//! its canonical frame `F_b` (the bone axes *are* the canonical frames) and the rest pose is the
//! canonical T-pose of [`crate::pose::tpose`], lifted by [`LIFT`] so that the feet joints sit at
//! `y = 0.05` and the soles of the mesh on `y = 0`.
//!
//! ```
//! let m = humanoid::mannequin::build();
//! assert_eq!(m.joints.len(), 55);
//! assert_eq!(m.joints[0].name, "hips");
//! assert!(m.clips.iter().any(|c| c.name == "walk"));
//! ```

mod clips;
mod mesh;

use glam::{Mat4, Quat, Vec3};

use crate::model::HumanBone;
use crate::pose::tpose::canonical_rest_local;

/// How far the mannequin's skeleton sits above the canonical reference pose (metres, along +Y):
/// its hips are at `0.75 + LIFT`, its feet and toes joints at `y = LIFT`, its soles at `y = 0`.
pub const LIFT: f32 = 0.05;

/// The generated character: skeleton, skinned mesh and clips.
#[derive(Debug, Clone, PartialEq)]
pub struct Mannequin {
    /// The 55 joints, one per [`HumanBone`], in [`HumanBone::ALL`] order (parents first).
    pub joints: Vec<MannequinJoint>,
    /// The skinned body, bound in the rest pose.
    pub mesh: MannequinMesh,
    /// `walk` and `wave`.
    pub clips: Vec<MannequinClip>,
}

/// One joint of the mannequin's skeleton, with its local rest transform.
#[derive(Debug, Clone, PartialEq)]
pub struct MannequinJoint {
    /// The bone's spec name (`leftUpperArm`).
    pub name: String,
    /// The bone this joint is.
    pub bone: HumanBone,
    /// Index of the parent joint (`None` for `hips`).
    pub parent: Option<usize>,
    /// Rest translation relative to the parent (model origin for `hips`).
    pub translation: Vec3,
    /// Rest rotation relative to the parent: `F_parent⁻¹ · F_b`.
    pub rotation: Quat,
}

/// The skinned mesh: one indexed triangle list, at most four influences per vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct MannequinMesh {
    /// Vertex positions in model space (rest pose), metres.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals, pointing out of the body.
    pub normals: Vec<[f32; 3]>,
    /// Joint indices (into [`Mannequin::joints`]) of each vertex's four influences; unused slots
    /// carry weight 0 and a joint not used elsewhere in the row.
    pub joints: Vec<[u16; 4]>,
    /// Weights of the influences: each ≥ 0, each row sums to 1.
    pub weights: Vec<[f32; 4]>,
    /// Triangles, three indices each, counter-clockwise seen from outside.
    pub indices: Vec<u32>,
    /// One inverse bind matrix per joint: the inverse of its world rest matrix.
    pub inverse_bind: Vec<Mat4>,
}

/// One animation clip of the mannequin.
#[derive(Debug, Clone, PartialEq)]
pub struct MannequinClip {
    /// `walk` or `wave`.
    pub name: String,
    /// Its tracks, at most one per (joint, path).
    pub tracks: Vec<MannequinTrack>,
}

/// One animated property of one joint: LINEAR keys that loop (last key equals first).
#[derive(Debug, Clone, PartialEq)]
pub struct MannequinTrack {
    /// Index of the joint in [`Mannequin::joints`].
    pub joint: usize,
    /// What is animated.
    pub path: TrackPath,
    /// Key times in seconds, strictly increasing, starting at 0.
    pub times: Vec<f32>,
    /// Key values, flattened: `[x, y, z]` local translations or `[x, y, z, w]` local rotations
    /// (`rest_local · delta`, unit length, sign-continuous).
    pub values: Vec<f32>,
}

/// The animated property of a [`MannequinTrack`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TrackPath {
    /// Local translation, three floats per key.
    Translation,
    /// Local rotation, four floats per key (`[x, y, z, w]`).
    Rotation,
}

impl TrackPath {
    /// Floats per key: 3 or 4.
    pub fn components(self) -> usize {
        match self {
            TrackPath::Translation => 3,
            TrackPath::Rotation => 4,
        }
    }
}

/// Builds the mannequin: joints, mesh and clips. Deterministic.
pub fn build() -> Mannequin {
    let joints = joints();
    let world = rest_world(&joints);
    let mesh = mesh::build(&world);
    let clips = vec![clips::walk(&joints), clips::wave(&joints)];
    Mannequin {
        joints,
        mesh,
        clips,
    }
}

/// The 55 joints in [`HumanBone::ALL`] order, rest = canonical T-pose lifted by [`LIFT`].
fn joints() -> Vec<MannequinJoint> {
    HumanBone::ALL
        .iter()
        .map(|&bone| {
            let (mut translation, rotation) = canonical_rest_local(bone);
            if bone == HumanBone::Hips {
                translation.y += LIFT;
            }
            MannequinJoint {
                name: bone.as_str().to_string(),
                bone,
                parent: bone.parent().map(HumanBone::index),
                translation,
                rotation,
            }
        })
        .collect()
}

/// World rest matrices of joints listed parents first.
pub fn rest_world(joints: &[MannequinJoint]) -> Vec<Mat4> {
    let mut world: Vec<Mat4> = Vec::with_capacity(joints.len());
    for joint in joints {
        let local = Mat4::from_rotation_translation(joint.rotation, joint.translation);
        let w = match joint.parent.and_then(|p| world.get(p)) {
            Some(parent) => *parent * local,
            None => local,
        };
        world.push(w);
    }
    world
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pose::tpose::{canonical_frame, canonical_position};

    #[test]
    fn joints_are_the_55_bones_parents_first() {
        let m = build();
        assert_eq!(m.joints.len(), HumanBone::COUNT);
        let mut seen = std::collections::HashSet::new();
        for (i, joint) in m.joints.iter().enumerate() {
            assert!(seen.insert(joint.bone), "{} twice", joint.bone);
            assert_eq!(joint.bone, HumanBone::ALL[i]);
            assert_eq!(joint.name, joint.bone.as_str());
            assert_eq!(joint.parent, joint.bone.parent().map(HumanBone::index));
            if let Some(p) = joint.parent {
                assert!(p < i);
                assert_eq!(m.joints[p].bone, joint.bone.parent().unwrap());
            }
            assert!((joint.rotation.length() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn rest_pose_is_the_lifted_canonical_t_pose() {
        let m = build();
        let world = rest_world(&m.joints);
        for (joint, w) in m.joints.iter().zip(&world) {
            let (_, rotation, translation) = w.to_scale_rotation_translation();
            let expected = canonical_position(joint.bone) + Vec3::new(0.0, LIFT, 0.0);
            assert!(
                translation.abs_diff_eq(expected, 1e-5),
                "{}: {translation} vs {expected}",
                joint.name
            );
            assert!(
                rotation.dot(canonical_frame(joint.bone)).abs() > 1.0 - 1e-5,
                "{}",
                joint.name
            );
        }
        let hips = world[0].w_axis.y;
        assert!((0.75..=0.9).contains(&hips), "hips at {hips}");
        for bone in [HumanBone::LeftFoot, HumanBone::RightToes] {
            assert!((world[bone.index()].w_axis.y - 0.05).abs() < 1e-5);
        }
    }

    #[test]
    fn inverse_bind_matrices_invert_the_rest_pose() {
        let m = build();
        let world = rest_world(&m.joints);
        assert_eq!(m.mesh.inverse_bind.len(), m.joints.len());
        for (ibm, w) in m.mesh.inverse_bind.iter().zip(&world) {
            assert!((*ibm * *w).abs_diff_eq(Mat4::IDENTITY, 1e-5));
        }
    }
}
