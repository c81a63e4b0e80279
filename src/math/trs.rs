//! Translation, rotation, scale: the local transform of a joint, as glTF nodes store it.
//!
//! ## Overview
//!
//! A [`Trs`] maps a point `p` of the child space to `translation + rotation · (scale ⊙ p)`
//! (scale first, then rotation, then translation; glTF's `T · R · S`). Composition
//! `parent * child` gives the child's transform in the parent's parent space, which is how a
//! skeleton's rest world transforms are built from its local ones.
//!
//! A TRS cannot hold shear. Composing under a parent with non-uniform scale and a rotated child
//! makes shear, so `parent * child` is exact (equal to the matrix product) only when the parent's
//! scale is uniform; otherwise it is the usual TRS approximation (rotations multiply, scales
//! multiply per axis) that engines apply to joints. Translations (and therefore joint
//! positions) are exact either way.
//!
//! ```
//! use glam::{Quat, Vec3};
//! use humanoid::pose::trs::Trs;
//!
//! let parent = Trs::from_translation(Vec3::new(0.0, 1.0, 0.0));
//! let child = Trs::from_rotation(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
//! let world = parent * child;
//! // +X turned a quarter about +Y is −Z, then lifted by 1.
//! assert!(world.transform_point(Vec3::X).abs_diff_eq(Vec3::new(0.0, 1.0, -1.0), 1e-6));
//! assert!(Trs::from_mat4(world.to_mat4()).to_mat4().abs_diff_eq(world.to_mat4(), 1e-6));
//! ```

use std::ops::Mul;

use glam::{Mat3, Mat4, Quat, Vec3};

/// A local transform: `p ↦ translation + rotation · (scale ⊙ p)`.
///
/// The rotation is expected to be a unit quaternion (`[x, y, z, w]`); nothing here normalises it
/// behind the caller's back except [`Trs::from_mat4`], which always returns a unit rotation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trs {
    /// Translation, applied last.
    pub translation: Vec3,
    /// Rotation (unit quaternion), applied after the scale.
    pub rotation: Quat,
    /// Per-axis scale, applied first.
    pub scale: Vec3,
}

impl Default for Trs {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// Relative tolerance under which three scale components count as equal in [`Trs::inverse`].
const UNIFORM_SCALE_TOLERANCE: f32 = 1e-6;

impl Trs {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Trs = Trs {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// A transform from its three parts.
    pub fn new(translation: Vec3, rotation: Quat, scale: Vec3) -> Trs {
        Trs {
            translation,
            rotation,
            scale,
        }
    }

    /// A pure translation.
    pub fn from_translation(translation: Vec3) -> Trs {
        Trs {
            translation,
            ..Self::IDENTITY
        }
    }

    /// A pure rotation.
    pub fn from_rotation(rotation: Quat) -> Trs {
        Trs {
            rotation,
            ..Self::IDENTITY
        }
    }

    /// A pure scale.
    pub fn from_scale(scale: Vec3) -> Trs {
        Trs {
            scale,
            ..Self::IDENTITY
        }
    }

    /// The 4×4 matrix `T · R · S` (column-major, as glTF stores node matrices).
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes an affine matrix into translation, rotation and scale.
    ///
    /// - The translation is the fourth column; the bottom row is ignored.
    /// - Each scale component is the length of its column. When the determinant of the upper
    ///   3×3 is negative (a mirroring matrix) the **x** scale is made negative, so the rotation
    ///   stays proper and `from_mat4(m).to_mat4() ≈ m`.
    /// - The rotation is the Gram–Schmidt orthonormalisation of the columns (x first), so shear,
    ///   which a TRS cannot hold, is dropped rather than leaking into a non-unit quaternion.
    /// - Degenerate matrices do not fail: a zero-length column is rebuilt from the other two
    ///   (a zero scale keeps the rotation of the others); with a single usable column the rotation
    ///   is the shortest arc from that axis; with none it is the identity. Non-finite input gives a
    ///   non-finite translation or scale and an identity rotation.
    pub fn from_mat4(m: Mat4) -> Trs {
        let x = m.x_axis.truncate();
        let y = m.y_axis.truncate();
        let z = m.z_axis.truncate();
        let mut scale = Vec3::new(x.length(), y.length(), z.length());
        let mirrored = Mat3::from_cols(x, y, z).determinant() < 0.0;
        let x = if mirrored {
            scale.x = -scale.x;
            -x
        } else {
            x
        };
        Trs {
            translation: m.w_axis.truncate(),
            rotation: rotation_from_axes(x, y, z),
            scale,
        }
    }

    /// The inverse transform, where a TRS can hold it: every scale component finite and
    /// non-zero, and either the scale uniform (within a relative 1e-6) or the rotation the
    /// identity. Otherwise (the inverse would need shear) `None`.
    pub fn inverse(&self) -> Option<Trs> {
        let s = self.scale;
        if !s.is_finite() || s.x == 0.0 || s.y == 0.0 || s.z == 0.0 {
            return None;
        }
        let largest = s.abs().max_element();
        let uniform = (s.x - s.y).abs() <= UNIFORM_SCALE_TOLERANCE * largest
            && (s.x - s.z).abs() <= UNIFORM_SCALE_TOLERANCE * largest;
        if !uniform && self.rotation != Quat::IDENTITY {
            return None;
        }
        let scale = s.recip();
        let rotation = self.rotation.inverse();
        let translation = -(scale * (rotation * self.translation));
        Some(Trs {
            translation,
            rotation,
            scale,
        })
    }

    /// Applies the transform to a point: `translation + rotation · (scale ⊙ point)`.
    pub fn transform_point(&self, point: Vec3) -> Vec3 {
        self.translation + self.rotation * (self.scale * point)
    }

    /// Applies the transform to a direction (no translation): `rotation · (scale ⊙ vector)`.
    pub fn transform_vector(&self, vector: Vec3) -> Vec3 {
        self.rotation * (self.scale * vector)
    }

    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

/// `q / |q|`: one Newton step for `1 / √(q·q)` (`q · (3 − q·q) / 2`, exact to 4e-9 when
/// `q` is within 1e-4 of unit length, as products and slerps of unit quaternions are), glam's
/// `normalize` otherwise (NaN for a zero quaternion, as it).
///
/// ```
/// use glam::Quat;
/// use humanoid::pose::trs::normalize_rotation;
/// let q = Quat::from_rotation_x(0.5) * 1.00004;
/// assert!((normalize_rotation(q).length() - 1.0).abs() < 1e-7);
/// assert!(normalize_rotation(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0)).abs_diff_eq(Quat::IDENTITY, 0.0));
/// ```
#[inline]
pub fn normalize_rotation(q: Quat) -> Quat {
    let length_squared = q.length_squared();
    if (length_squared - 1.0).abs() < 1e-4 {
        q * (1.5 - 0.5 * length_squared)
    } else {
        q.normalize()
    }
}

/// The proper rotation whose columns are the orthonormalised `x`, `y`, `z` (see
/// [`Trs::from_mat4`] for the degenerate cases).
fn rotation_from_axes(x: Vec3, y: Vec3, z: Vec3) -> Quat {
    let orthogonal = |v: Vec3, to: Vec3| (v - to * to.dot(v)).try_normalize();
    let basis = match (x.try_normalize(), y.try_normalize(), z.try_normalize()) {
        (Some(ex), Some(ey), _) => {
            let ey = orthogonal(ey, ex).unwrap_or_else(|| ex.any_orthonormal_vector());
            Some((ex, ey, ex.cross(ey)))
        }
        (Some(ex), None, Some(ez)) => {
            let ez = orthogonal(ez, ex).unwrap_or_else(|| ex.any_orthonormal_vector());
            Some((ex, ez.cross(ex), ez))
        }
        (None, Some(ey), Some(ez)) => {
            let ez = orthogonal(ez, ey).unwrap_or_else(|| ey.any_orthonormal_vector());
            Some((ey.cross(ez), ey, ez))
        }
        (Some(ex), None, None) => return Quat::from_rotation_arc(Vec3::X, ex),
        (None, Some(ey), None) => return Quat::from_rotation_arc(Vec3::Y, ey),
        (None, None, Some(ez)) => return Quat::from_rotation_arc(Vec3::Z, ez),
        (None, None, None) => None,
    };
    match basis {
        Some((ex, ey, ez)) => Quat::from_mat3(&Mat3::from_cols(ex, ey, ez)).normalize(),
        None => Quat::IDENTITY,
    }
}

impl Mul for Trs {
    type Output = Trs;

    /// `parent * child`: the child's transform expressed in the parent's parent space.
    /// Exact when the parent's scale is uniform (see the module docs).
    fn mul(self, child: Trs) -> Trs {
        Trs {
            translation: self.transform_point(child.translation),
            rotation: self.rotation * child.rotation,
            scale: self.scale * child.scale,
        }
    }
}

impl Mul<Vec3> for Trs {
    type Output = Vec3;

    /// Same as [`Trs::transform_point`].
    fn mul(self, point: Vec3) -> Vec3 {
        self.transform_point(point)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::f32::consts::FRAC_PI_2;

    /// Rotations are equal up to sign (q ≡ −q): `|q · r| ≈ 1`.
    #[track_caller]
    fn assert_quat_eq(a: Quat, b: Quat, tolerance: f32) {
        let dot = a.normalize().dot(b.normalize()).abs();
        assert!(1.0 - dot <= tolerance, "{a:?} vs {b:?} (|dot| = {dot})");
    }

    #[track_caller]
    fn assert_vec3_eq(a: Vec3, b: Vec3, tolerance: f32) {
        assert!(a.abs_diff_eq(b, tolerance), "{a:?} vs {b:?}");
    }

    #[track_caller]
    fn assert_mat4_eq(a: Mat4, b: Mat4, tolerance: f32) {
        assert!(a.abs_diff_eq(b, tolerance), "{a:?}\nvs\n{b:?}");
    }

    #[track_caller]
    fn assert_trs_eq(a: Trs, b: Trs, tolerance: f32) {
        assert_vec3_eq(a.translation, b.translation, tolerance);
        assert_quat_eq(a.rotation, b.rotation, tolerance);
        assert_vec3_eq(a.scale, b.scale, tolerance);
    }

    #[test]
    fn normalize_rotation_matches_glam_normalize() {
        // Near unit length (the Newton step) and far from it (the division), against f64.
        for scale in [1.0, 1.0 + 9e-5, 1.0 - 9e-5, 1.0 + 2e-4, 0.5, 3.0] {
            for q in [
                Quat::from_rotation_x(0.3),
                Quat::from_xyzw(0.1, -0.7, 0.2, 0.5).normalize(),
                Quat::from_xyzw(-0.5, 0.5, -0.5, 0.5),
            ] {
                let scaled = q * scale;
                let got = normalize_rotation(scaled).as_dquat();
                let expected = scaled.as_dquat().normalize();
                assert!(
                    (got - expected).length() < 2e-7,
                    "{scaled:?}: {got:?} vs {expected:?}"
                );
            }
        }
        assert!(normalize_rotation(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)).is_nan());
    }

    #[test]
    fn identity_is_neutral() {
        let a = Trs::new(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::from_rotation_x(0.3),
            Vec3::splat(2.0),
        );
        assert_eq!(Trs::IDENTITY * a, a);
        assert_eq!(a * Trs::IDENTITY, a);
        assert_eq!(Trs::default(), Trs::IDENTITY);
        assert_eq!(Trs::IDENTITY.to_mat4(), Mat4::IDENTITY);
    }

    #[test]
    fn transform_point_by_hand() {
        // Scale 2, then 90° about +Z (x → y), then +1 along x: (1, 0, 0) → (2, 0, 0) → (0, 2, 0)
        // → (1, 2, 0).
        let a = Trs::new(Vec3::X, Quat::from_rotation_z(FRAC_PI_2), Vec3::splat(2.0));
        assert_vec3_eq(a.transform_point(Vec3::X), Vec3::new(1.0, 2.0, 0.0), 1e-6);
        assert_vec3_eq(a.transform_vector(Vec3::X), Vec3::new(0.0, 2.0, 0.0), 1e-6);
        assert_vec3_eq(a * Vec3::X, Vec3::new(1.0, 2.0, 0.0), 1e-6);
    }

    #[test]
    fn mirrored_matrix_makes_x_scale_negative() {
        // diag(-1, 1, 1): a mirror in x.
        let m = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        let trs = Trs::from_mat4(m);
        assert_vec3_eq(trs.scale, Vec3::new(-1.0, 1.0, 1.0), 1e-6);
        assert_quat_eq(trs.rotation, Quat::IDENTITY, 1e-6);
        // diag(1, -1, 1) is the same mirror turned 180° about z: x scale negative again.
        let m = Mat4::from_scale(Vec3::new(1.0, -1.0, 1.0));
        let trs = Trs::from_mat4(m);
        assert_vec3_eq(trs.scale, Vec3::new(-1.0, 1.0, 1.0), 1e-6);
        assert_quat_eq(
            trs.rotation,
            Quat::from_rotation_z(std::f32::consts::PI),
            1e-6,
        );
        assert_mat4_eq(trs.to_mat4(), m, 1e-6);
    }

    #[test]
    fn degenerate_matrices_do_not_fail() {
        // Zero y scale: the rotation of the other two columns is kept.
        let r = Quat::from_rotation_y(0.7);
        let m = Mat4::from_scale_rotation_translation(Vec3::new(1.0, 0.0, 2.0), r, Vec3::ONE);
        let trs = Trs::from_mat4(m);
        assert_quat_eq(trs.rotation, r, 1e-6);
        assert_vec3_eq(trs.scale, Vec3::new(1.0, 0.0, 2.0), 1e-6);
        assert_mat4_eq(trs.to_mat4(), m, 1e-6);
        // All zero: identity rotation, zero scale.
        let trs = Trs::from_mat4(Mat4::ZERO);
        assert_eq!(trs.rotation, Quat::IDENTITY);
        assert_eq!(trs.scale, Vec3::ZERO);
        // NaN: no panic, identity rotation.
        let trs = Trs::from_mat4(Mat4::NAN);
        assert_eq!(trs.rotation, Quat::IDENTITY);
        assert!(!trs.is_finite());
        // Shear is dropped, the rotation stays unit.
        let sheared = Mat4::from_cols_array(&[
            1.0, 0.0, 0.0, 0.0, //
            0.5, 1.0, 0.0, 0.0, //
            0.0, 0.0, 1.0, 0.0, //
            0.0, 0.0, 0.0, 1.0,
        ]);
        assert!(Trs::from_mat4(sheared).rotation.is_normalized());
    }

    #[test]
    fn inverse_exists_only_without_shear() {
        let a = Trs::new(
            Vec3::new(1.0, -2.0, 0.5),
            Quat::from_rotation_x(0.4),
            Vec3::splat(3.0),
        );
        let inv = a.inverse().expect("uniform scale");
        assert_trs_eq(a * inv, Trs::IDENTITY, 1e-6);
        assert_trs_eq(inv * a, Trs::IDENTITY, 1e-6);
        let axis_aligned = Trs::new(Vec3::ONE, Quat::IDENTITY, Vec3::new(1.0, 2.0, 4.0));
        let inv = axis_aligned.inverse().expect("no rotation");
        assert_vec3_eq(
            inv.transform_point(axis_aligned.transform_point(Vec3::ONE)),
            Vec3::ONE,
            1e-6,
        );
        let sheared = Trs::new(
            Vec3::ZERO,
            Quat::from_rotation_x(0.4),
            Vec3::new(1.0, 2.0, 1.0),
        );
        assert_eq!(sheared.inverse(), None);
        assert_eq!(Trs::from_scale(Vec3::new(1.0, 0.0, 1.0)).inverse(), None);
    }

    fn vec3(range: f32) -> impl Strategy<Value = Vec3> {
        (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }

    fn unit_quat() -> impl Strategy<Value = Quat> {
        (vec3(1.0), -1.0f32..1.0)
            .prop_filter("non-degenerate", |(v, w)| v.length_squared() + w * w > 0.01)
            .prop_map(|(v, w)| Quat::from_xyzw(v.x, v.y, v.z, w).normalize())
    }

    fn positive_scale() -> impl Strategy<Value = Vec3> {
        (0.2f32..5.0, 0.2f32..5.0, 0.2f32..5.0).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }

    fn signed_scale() -> impl Strategy<Value = Vec3> {
        (positive_scale(), any::<[bool; 3]>()).prop_map(|(s, flip)| {
            let sign = |f: bool| if f { -1.0 } else { 1.0 };
            s * Vec3::new(sign(flip[0]), sign(flip[1]), sign(flip[2]))
        })
    }

    fn uniform_trs() -> impl Strategy<Value = Trs> {
        (vec3(5.0), unit_quat(), 0.2f32..5.0).prop_map(|(t, r, s)| Trs::new(t, r, Vec3::splat(s)))
    }

    proptest! {
        #[test]
        fn compose_then_decompose_round_trips(t in vec3(10.0), r in unit_quat(), s in positive_scale()) {
            let trs = Trs::new(t, r, s);
            let back = Trs::from_mat4(trs.to_mat4());
            assert_trs_eq(back, trs, 1e-4);
        }

        #[test]
        fn decompose_then_compose_keeps_mirrored_matrices(t in vec3(10.0), r in unit_quat(), s in signed_scale()) {
            let m = Trs::new(t, r, s).to_mat4();
            let back = Trs::from_mat4(m);
            assert!(back.rotation.is_normalized());
            assert_mat4_eq(back.to_mat4(), m, 1e-4);
        }

        #[test]
        fn product_matches_matrices_for_uniform_parent(a in uniform_trs(), t in vec3(5.0), r in unit_quat(), s in positive_scale()) {
            let b = Trs::new(t, r, s);
            assert_mat4_eq((a * b).to_mat4(), a.to_mat4() * b.to_mat4(), 1e-3);
        }

        #[test]
        fn product_is_associative_for_uniform_scales(a in uniform_trs(), b in uniform_trs(), c in uniform_trs()) {
            let left = (a * b) * c;
            let right = a * (b * c);
            let size = 1.0 + left.translation.abs().max_element();
            assert_vec3_eq(left.translation, right.translation, 1e-5 * size);
            assert_quat_eq(left.rotation, right.rotation, 1e-5);
            assert_vec3_eq(left.scale, right.scale, 1e-5 * left.scale.x);
        }

        #[test]
        fn inverse_undoes_uniform_transforms(a in uniform_trs(), p in vec3(5.0)) {
            let inv = a.inverse().expect("uniform scale is invertible");
            assert_vec3_eq(inv.transform_point(a.transform_point(p)), p, 1e-3);
        }

        #[test]
        fn transform_point_matches_the_matrix(t in vec3(10.0), r in unit_quat(), s in signed_scale(), p in vec3(5.0)) {
            let trs = Trs::new(t, r, s);
            assert_vec3_eq(trs.transform_point(p), trs.to_mat4().transform_point3(p), 1e-4);
        }
    }
}
