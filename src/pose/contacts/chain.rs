//! Forward kinematics of a baked clip's leg chains: the joints from the root down to the feet
//! and toes, posed from the baked keys (a humanoid joint's rotation track, the hips' path) and
//! the rest (everything else).

use glam::{Affine3A, Quat, Vec3};

use crate::model::skeleton::{JointId, Skeleton};

/// Baked keys on a target: one rotation list per joint (`x, y, z, w` per key), and the hips'
/// local translation per key (`x, y, z`; empty without hips).
#[derive(Debug)]
pub struct Baked<'a> {
    /// The key times.
    pub times: &'a [f32],
    /// The joint of each rotation list.
    pub joints: &'a [JointId],
    /// The rotation lists.
    pub rotations: &'a mut [Vec<f32>],
    /// The hips joint, whose path is `hips_path`.
    pub hips: Option<JointId>,
    /// The hips' local translation per key.
    pub hips_path: &'a mut [f32],
}

impl Baked<'_> {
    /// The rotation of list `list` at `key`.
    pub fn rotation(&self, list: usize, key: usize) -> Option<Quat> {
        let values = self.rotations.get(list)?.get(key * 4..key * 4 + 4)?;
        Some(Quat::from_slice(values))
    }

    /// Sets the rotation of list `list` at `key`.
    pub fn set_rotation(&mut self, list: usize, key: usize, rotation: Quat) {
        if let Some(slot) = self
            .rotations
            .get_mut(list)
            .and_then(|v| v.get_mut(key * 4..key * 4 + 4))
        {
            slot.copy_from_slice(&rotation.to_array());
        }
    }

    /// The hips' local translation at `key`.
    pub fn hips_translation(&self, key: usize) -> Option<Vec3> {
        self.hips_path
            .get(key * 3..key * 3 + 3)
            .map(Vec3::from_slice)
    }

    /// Sets the hips' local translation at `key`.
    pub fn set_hips_translation(&mut self, key: usize, translation: Vec3) {
        if let Some(slot) = self.hips_path.get_mut(key * 3..key * 3 + 3) {
            slot.copy_from_slice(&translation.to_array());
        }
    }
}

/// How a chain joint's local transform is made at a key.
#[derive(Debug, Clone, Copy)]
struct Link {
    joint: JointId,
    parent: Option<JointId>,
    /// The rotation list that drives it (else its rest rotation).
    list: Option<usize>,
    /// Whether its translation is the hips' path.
    hips: bool,
}

/// The joints above (and including) some end joints, parents first, with where each one's
/// local transform comes from.
#[derive(Debug, Clone)]
pub struct Chain<'s> {
    skeleton: &'s Skeleton,
    links: Vec<Link>,
}

impl<'s> Chain<'s> {
    /// The chain down to `ends` on `skeleton`, driven by `baked`'s lists.
    pub fn new(skeleton: &'s Skeleton, ends: &[JointId], baked: &Baked<'_>) -> Chain<'s> {
        let mut members = vec![false; skeleton.len()];
        for &end in ends {
            for joint in std::iter::once(end).chain(skeleton.ancestors(end)) {
                if let Some(m) = members.get_mut(joint.index()) {
                    *m = true;
                }
            }
        }
        let links = skeleton
            .joints()
            .filter(|j| members.get(j.index()).copied().unwrap_or(false))
            .map(|joint| Link {
                joint,
                parent: skeleton.parent(joint),
                list: baked.joints.iter().position(|j| *j == joint),
                hips: baked.hips == Some(joint) && !baked.hips_path.is_empty(),
            })
            .collect();
        Chain { skeleton, links }
    }

    /// The chain's pose at `key` into `posed` (indexed by joint; joints off the chain are left
    /// as they were).
    pub fn pose(&self, baked: &Baked<'_>, key: usize, posed: &mut Posed) {
        let n = self.skeleton.len();
        if posed.worlds.len() < n {
            posed.worlds.resize(n, Affine3A::IDENTITY);
            posed.rotations.resize(n, Quat::IDENTITY);
        }
        for link in &self.links {
            let rest = self.skeleton.rest_local(link.joint);
            let rotation = link
                .list
                .and_then(|l| baked.rotation(l, key))
                .unwrap_or(rest.rotation);
            let translation = if link.hips {
                baked.hips_translation(key).unwrap_or(rest.translation)
            } else {
                rest.translation
            };
            let local =
                Affine3A::from_scale_rotation_translation(rest.scale, rotation, translation);
            let parent = link.parent.map(JointId::index);
            let (world, world_rotation) =
                match parent.and_then(|p| Some((posed.worlds.get(p)?, posed.rotations.get(p)?))) {
                    Some((pw, pr)) => (*pw * local, *pr * rotation),
                    None => (local, rotation),
                };
            let i = link.joint.index();
            if let (Some(w), Some(r)) = (posed.worlds.get_mut(i), posed.rotations.get_mut(i)) {
                *w = world;
                *r = world_rotation;
            }
        }
    }
}

/// A chain's pose at one key: world transforms and world rotations (local rotations composed,
/// as the retargeter composes them), indexed by joint.
#[derive(Debug, Clone, Default)]
pub struct Posed {
    /// World transforms.
    pub worlds: Vec<Affine3A>,
    /// World rotations.
    pub rotations: Vec<Quat>,
}

impl Posed {
    /// A joint's world position.
    pub fn position(&self, joint: JointId) -> Vec3 {
        self.worlds
            .get(joint.index())
            .map_or(Vec3::ZERO, |w| Vec3::from(w.translation))
    }

    /// A joint's world rotation.
    pub fn rotation(&self, joint: JointId) -> Quat {
        self.rotations
            .get(joint.index())
            .copied()
            .unwrap_or(Quat::IDENTITY)
    }

    /// A joint's parent's world rotation (identity for a root).
    pub fn parent_rotation(&self, skeleton: &Skeleton, joint: JointId) -> Quat {
        skeleton
            .parent(joint)
            .map_or(Quat::IDENTITY, |p| self.rotation(p))
    }
}
