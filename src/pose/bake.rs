//! Baking the canonical T-pose into a rest pose, in `f64`.
//!
//! # Overview
//!
//! `--normalize` makes the rest-pose normaliser's corrections permanent (ARCHITECTURE.md §3):
//! every humanoid bone gets the world rest rotation `W'_b = S_b · W_b(ref)` (its T-pose
//! rotation, from [`crate::pose::normalize::corrections`]), so its local rest rotation becomes
//! `W'_parent⁻¹ · W'_b`, computed parents first; every other joint keeps its local rest
//! rotation and follows its parent ([`t_pose_local_rotations`]). Translations and scales do not
//! change.
//!
//! `--rebind` also moves the mesh into that pose by linear blend skinning: a vertex's data are
//! carried by the blend ([`blend`]) of its joints' rebind matrices ([`rebind_matrix`]), normals
//! by the inverse transpose ([`normal_matrix`]), and the skin gets new inverse bind matrices
//! ([`rebound_inverse_bind`]).
//!
//! Everything here is `f64`: the rest rotations are written as `f64` JSON numbers, and the
//! vertex deviation these functions help measure is reported to the micrometre.
//!
//! ```
//! use glam::{DQuat, DVec3};
//! use humanoid::pose::bake::t_pose_local_rotations;
//!
//! // A shoulder (joint 0) and an arm (joint 1) hanging down, both at identity. The arm's
//! // T-pose world rotation swings it up by 90° about +Z; the shoulder is not a humanoid bone.
//! let parents = [None, Some(0)];
//! let swing = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
//! let locals = t_pose_local_rotations(
//!     &[0, 1],
//!     &parents,
//!     &[DQuat::IDENTITY, DQuat::IDENTITY],
//!     &[None, Some(swing)],
//!     1e-9,
//! )?;
//! assert_eq!(locals[0], DQuat::IDENTITY);
//! assert!((locals[1] * DVec3::NEG_Y).abs_diff_eq(DVec3::X, 1e-12));
//! # Ok::<(), humanoid::pose::bake::BakeError>(())
//! ```

use glam::{DMat3, DMat4, DQuat};

/// Why a bake could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BakeError {
    /// The joint order visits a joint before its parent.
    #[error(
        "joint {joint} comes before its parent {parent} in the order given: expected parents first"
    )]
    ParentAfterChild {
        /// The joint.
        joint: usize,
        /// Its parent.
        parent: usize,
    },
    /// The order names a joint the arrays do not have.
    #[error("joint {joint} is out of range ({count} joints)")]
    OutOfRange {
        /// The joint.
        joint: usize,
        /// How many joints the arrays hold.
        count: usize,
    },
}

/// The world rotation of every joint: local rotations composed down the hierarchy
/// (`parent · local`), as engines pose joints.
///
/// `order` lists the joints parents first; `parents` and `locals` are indexed by joint.
///
/// # Errors
/// [`BakeError`] when `order` visits a child before its parent or names a joint out of range.
///
/// ```
/// use glam::DQuat;
/// use humanoid::pose::bake::world_rotations;
/// let turn = DQuat::from_rotation_y(0.5);
/// let worlds = world_rotations(&[0, 1], &[None, Some(0)], &[turn, turn])?;
/// assert!(worlds[1].abs_diff_eq(DQuat::from_rotation_y(1.0), 1e-12));
/// # Ok::<(), humanoid::pose::bake::BakeError>(())
/// ```
pub fn world_rotations(
    order: &[usize],
    parents: &[Option<usize>],
    locals: &[DQuat],
) -> Result<Vec<DQuat>, BakeError> {
    let mut worlds: Vec<Option<DQuat>> = vec![None; locals.len()];
    for &joint in order {
        let parent = parent_world(&worlds, parents, joint)?;
        let local = at(locals, joint)?;
        set(&mut worlds, joint, Some(parent * local))?;
    }
    Ok(worlds
        .into_iter()
        .map(|w| w.unwrap_or(DQuat::IDENTITY))
        .collect())
}

/// The local rest rotations that put each joint with a `wanted` world rotation there, parents
/// first; a joint with none keeps its local rotation and follows its parent.
///
/// A wanted joint whose new local rotation is within `tolerance` radians of its old one keeps
/// the old one exactly (and its children then see its actual world rotation), so a rest that is
/// already a T-pose is left as written.
///
/// # Errors
/// [`BakeError`] when `order` visits a child before its parent or names a joint out of range.
///
/// ```
/// use glam::DQuat;
/// use humanoid::pose::bake::{t_pose_local_rotations, world_rotations};
/// // A root turned 0.5 rad about +Y, and a child wanted at identity in the world: its local
/// // rotation undoes the root's.
/// let root = DQuat::from_rotation_y(0.5);
/// let parents = [None, Some(0)];
/// let locals = t_pose_local_rotations(&[0, 1], &parents, &[root, DQuat::IDENTITY], &[None, Some(DQuat::IDENTITY)], 1e-9)?;
/// assert!(locals[1].abs_diff_eq(root.inverse(), 1e-12));
/// let worlds = world_rotations(&[0, 1], &parents, &locals)?;
/// assert!(worlds[1].abs_diff_eq(DQuat::IDENTITY, 1e-12));
/// # Ok::<(), humanoid::pose::bake::BakeError>(())
/// ```
pub fn t_pose_local_rotations(
    order: &[usize],
    parents: &[Option<usize>],
    locals: &[DQuat],
    wanted: &[Option<DQuat>],
    tolerance: f64,
) -> Result<Vec<DQuat>, BakeError> {
    let mut worlds: Vec<Option<DQuat>> = vec![None; locals.len()];
    let mut out = locals.to_vec();
    for &joint in order {
        let parent = parent_world(&worlds, parents, joint)?;
        let old = at(locals, joint)?;
        let local = match wanted.get(joint).copied().flatten() {
            Some(world) => {
                let new = (parent.inverse() * world).normalize();
                if new.angle_between(old) > tolerance {
                    new
                } else {
                    old
                }
            }
            None => old,
        };
        set(&mut out, joint, local)?;
        set(&mut worlds, joint, Some(parent * local))?;
    }
    Ok(out)
}

fn at(values: &[DQuat], joint: usize) -> Result<DQuat, BakeError> {
    values.get(joint).copied().ok_or(BakeError::OutOfRange {
        joint,
        count: values.len(),
    })
}

fn set<T>(values: &mut [T], joint: usize, value: T) -> Result<(), BakeError> {
    let count = values.len();
    let slot = values
        .get_mut(joint)
        .ok_or(BakeError::OutOfRange { joint, count })?;
    *slot = value;
    Ok(())
}

/// The world rotation of `joint`'s parent, which must have been visited already.
fn parent_world(
    worlds: &[Option<DQuat>],
    parents: &[Option<usize>],
    joint: usize,
) -> Result<DQuat, BakeError> {
    match parents.get(joint).copied().flatten() {
        None => Ok(DQuat::IDENTITY),
        Some(parent) => worlds
            .get(parent)
            .copied()
            .flatten()
            .ok_or(BakeError::ParentAfterChild { joint, parent }),
    }
}

/// The matrix that carries a joint's vertex data from the bind pose to the T-pose, in the
/// skin's bind-shape frame: `B⁻¹ · W'_j · IBM_j`, with `W'_j` the joint's T-pose world matrix,
/// `IBM_j` its inverse bind matrix and `B` the skin's bind-shape matrix (how the skin places
/// its vertices when every joint is at its bind pose; the identity for most files).
///
/// ```
/// use glam::{DMat4, DVec3};
/// use humanoid::pose::bake::rebind_matrix;
/// // A joint bound at x = 1 and now at x = 3 moves its vertices by 2.
/// let ibm = DMat4::from_translation(DVec3::new(-1.0, 0.0, 0.0));
/// let world = DMat4::from_translation(DVec3::new(3.0, 0.0, 0.0));
/// let m = rebind_matrix(world, ibm, DMat4::IDENTITY);
/// assert!(m.transform_point3(DVec3::ZERO).abs_diff_eq(DVec3::new(2.0, 0.0, 0.0), 1e-12));
/// ```
pub fn rebind_matrix(t_pose_world: DMat4, inverse_bind: DMat4, bind_shape: DMat4) -> DMat4 {
    bind_shape.inverse() * t_pose_world * inverse_bind
}

/// A joint's inverse bind matrix after rebinding: `W'_j⁻¹ · B`, the inverse of its T-pose
/// world matrix in the skin's bind-shape frame `B` (see [`rebind_matrix`]). With it, the
/// rebound vertices draw unchanged at the T-pose.
///
/// ```
/// use glam::{DMat4, DVec3};
/// use humanoid::pose::bake::rebound_inverse_bind;
/// let world = DMat4::from_translation(DVec3::new(3.0, 0.0, 0.0));
/// let ibm = rebound_inverse_bind(world, DMat4::IDENTITY);
/// assert!((world * ibm).abs_diff_eq(DMat4::IDENTITY, 1e-12));
/// ```
pub fn rebound_inverse_bind(t_pose_world: DMat4, bind_shape: DMat4) -> DMat4 {
    t_pose_world.inverse() * bind_shape
}

/// The weighted sum `Σ w_k · M_{j_k}` of a vertex's joint matrices (linear blend skinning;
/// the weights are used as given). `None` when an influence names a joint `matrices` lacks.
///
/// ```
/// use glam::{DMat4, DVec3};
/// use humanoid::pose::bake::blend;
/// let a = DMat4::from_translation(DVec3::X);
/// let b = DMat4::from_translation(DVec3::NEG_X);
/// let m = blend(&[a, b], &[(0, 0.5), (1, 0.5)]).unwrap();
/// assert!(m.transform_point3(DVec3::Y).abs_diff_eq(DVec3::Y, 1e-12));
/// assert!(blend(&[a], &[(3, 1.0)]).is_none());
/// ```
pub fn blend(matrices: &[DMat4], influences: &[(usize, f64)]) -> Option<DMat4> {
    let mut sum = DMat4::ZERO;
    for &(joint, weight) in influences {
        sum += *matrices.get(joint)? * weight;
    }
    Some(sum)
}

/// The matrix that carries normals through `m`: the inverse transpose of its upper 3×3.
/// `None` when that part is singular.
///
/// ```
/// use glam::{DMat4, DVec3};
/// use humanoid::pose::bake::normal_matrix;
/// // Stretching x by 2 tilts a 45° normal toward y.
/// let n = normal_matrix(DMat4::from_scale(DVec3::new(2.0, 1.0, 1.0))).unwrap();
/// let tilted = (n * DVec3::new(1.0, 1.0, 0.0)).normalize();
/// assert!(tilted.abs_diff_eq(DVec3::new(0.5, 1.0, 0.0).normalize(), 1e-12));
/// ```
pub fn normal_matrix(m: DMat4) -> Option<DMat3> {
    let linear = DMat3::from_mat4(m);
    let det = linear.determinant();
    (det.is_finite() && det.abs() > f64::MIN_POSITIVE).then(|| linear.inverse().transpose())
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;
    use std::f64::consts::FRAC_PI_2;

    #[test]
    fn a_child_of_a_baked_joint_keeps_its_world_rotation() {
        // root → arm (wanted: turned 90° about z) → hand (wanted: its old world rotation).
        let parents = [None, Some(0), Some(1)];
        let locals = [
            DQuat::from_rotation_y(0.3),
            DQuat::IDENTITY,
            DQuat::from_rotation_x(0.2),
        ];
        let old = world_rotations(&[0, 1, 2], &parents, &locals).unwrap();
        let arm = DQuat::from_rotation_z(FRAC_PI_2) * old[1];
        let wanted = [None, Some(arm), Some(old[2])];
        let new = t_pose_local_rotations(&[0, 1, 2], &parents, &locals, &wanted, 1e-12).unwrap();
        let worlds = world_rotations(&[0, 1, 2], &parents, &new).unwrap();
        assert_eq!(new[0], locals[0]);
        assert!(worlds[1].abs_diff_eq(arm, 1e-12));
        assert!(worlds[2].abs_diff_eq(old[2], 1e-12));
    }

    #[test]
    fn changes_below_the_tolerance_keep_the_old_rotation() {
        let locals = [DQuat::from_rotation_y(0.3)];
        let wanted = [Some(DQuat::from_rotation_y(0.3 + 1e-8))];
        let new = t_pose_local_rotations(&[0], &[None], &locals, &wanted, 1e-6).unwrap();
        assert_eq!(new[0], locals[0]);
    }

    #[test]
    fn children_before_parents_are_refused() {
        let err = world_rotations(&[1, 0], &[None, Some(0)], &[DQuat::IDENTITY; 2]).unwrap_err();
        assert_eq!(
            err,
            BakeError::ParentAfterChild {
                joint: 1,
                parent: 0
            }
        );
        let err = world_rotations(&[5], &[None], &[DQuat::IDENTITY]).unwrap_err();
        assert_eq!(err, BakeError::OutOfRange { joint: 5, count: 1 });
    }

    #[test]
    fn rebinding_is_exact_for_a_rigid_vertex() {
        // One joint bound at the origin, T-pose turned 90° about z and moved up by 1.
        let bind_shape = DMat4::from_scale(DVec3::splat(2.0));
        let ibm = bind_shape; // W_bind = B · IBM⁻¹ = identity
        let t_pose = DMat4::from_rotation_translation(DQuat::from_rotation_z(FRAC_PI_2), DVec3::Y);
        let v = DVec3::new(0.5, 0.0, 0.0);
        let moved = rebind_matrix(t_pose, ibm, bind_shape).transform_point3(v);
        let new_ibm = rebound_inverse_bind(t_pose, bind_shape);
        // Any later pose P draws the vertex where the old data put it: P · IBM · v.
        let pose = DMat4::from_rotation_translation(DQuat::from_rotation_x(0.7), DVec3::Z);
        let old = (pose * ibm).transform_point3(v);
        let new = (pose * new_ibm).transform_point3(moved);
        assert!(old.abs_diff_eq(new, 1e-12), "{old} vs {new}");
    }
}
