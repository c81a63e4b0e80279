//! World transforms of [`Socket`]s: the `KHR_virtual_transform` `respectParent*` rule.
//!
//! ## The rule
//!
//! The draft's "Transform Calculation" (apply the parent's position, then rotation, then scale
//! when the flag says so) does not say how the three parts combine. We implement the proposal of
//! `shared/docs/research/extensions_and_landscape.md` §2.3:
//!
//! Let `P` be the parent's world matrix now and `P0` its world matrix at initialization (the
//! rest pose); a socket with no parent has `P = P0 = I`. Decompose `P` by polar decomposition
//! into `(Tp, Rp, Sp)` and `P0` into `(T0, R0, S0)` (see [`decompose`]; shear, which a TRS
//! cannot hold, is dropped and reported). With the socket's local `(t, r, s)`:
//!
//! - `R* = Rp` if rotation is respected, else `I` ([`VtMode::Aligned`]) or `R0`
//!   ([`VtMode::Frozen`]);
//! - `S* = Sp` if scale is respected, else `1` (both modes);
//! - `T* = Tp` if position is respected, else `T0` (both modes);
//! - `world.R = R*·r`, `world.S = S*⊙s`, `world.T = T* + R*·(S*⊙t)`.
//!
//! When all three flags are set the socket is an ordinary child and its world matrix is the full
//! product `P · T(t)·R(r)·S(s)`, exact even when `Sp` is non-uniform (where the TRS formula
//! above would be wrong); its TRS parts are that matrix decomposed.
//!
//! [`SocketWorld::sheared`] is set when a result depends on a decomposition that dropped shear:
//! a respected rotation or scale (or, in frozen mode, `R0`) taken from a sheared parent, or a
//! full product that is itself sheared (its matrix is exact, its TRS parts are not).

use glam::{DMat3, DVec3, Mat3, Mat4, Quat, Vec3};

use crate::error::Error;
use crate::model::socket::Socket;

/// How a rotation that is *not* respected is read: the two readings of the draft's
/// "post-initialization" (research note §2.3, open question 3).
///
/// Both modes treat position and scale alike: an unrespected position stays at the parent's
/// world position at initialization (`T0`), and an unrespected scale is `1` (so markers keep
/// their size). They differ only for rotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VtMode {
    /// Reading (ii), the default: an unrespected rotation is the identity, so the socket's
    /// offset and orientation are world-axis aligned (the wrist-UI example, "always above the
    /// wrist").
    #[default]
    Aligned,
    /// Reading (i): an unrespected rotation is frozen at the parent's world rotation at
    /// initialization (`R0`, from the rest pose), so the socket keeps the orientation it was
    /// created with while the parent turns.
    Frozen,
}

/// A socket's world transform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SocketWorld {
    /// The world matrix: the full product when every flag is respected, else
    /// `T(translation)·R(rotation)·S(scale)`.
    pub matrix: Mat4,
    /// World position (always exact: the matrix's fourth column).
    pub translation: Vec3,
    /// World rotation (unit).
    pub rotation: Quat,
    /// World per-axis scale (the x component negative for a mirroring transform).
    pub scale: Vec3,
    /// Whether shear was dropped on the way (see the [module docs](self)).
    pub sheared: bool,
}

/// The polar decomposition of an affine matrix: `m = T(translation) · R(rotation) · H`, with `H`
/// symmetric; `scale` is the diagonal of `H`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decomposed {
    /// The fourth column.
    pub translation: Vec3,
    /// The proper rotation nearest to the upper 3×3 (after flipping x for a mirror).
    pub rotation: Quat,
    /// The stretch's diagonal; x negative when the determinant is negative.
    pub scale: Vec3,
    /// Whether the stretch has off-diagonal terms (relative 1e-5): shear that `scale` drops.
    pub sheared: bool,
}

/// Relative size of the stretch's off-diagonal terms above which a matrix counts as sheared.
pub const SHEAR_TOLERANCE: f64 = 1e-5;

/// Polar decomposition of `m`'s upper 3×3 `A = Q·H` (`Q` orthogonal, `H` symmetric positive
/// semi-definite), by Newton's iteration `Q ← (Q + Q⁻ᵀ)/2` in `f64`.
///
/// When `det A < 0`, `Q` is improper; it is written `Q = R·F` with `F = diag(−1, 1, 1)` and the
/// scale's x negated, so `rotation` stays proper (the convention of
/// [`Trs::from_mat4`](crate::math::trs::Trs::from_mat4)). A singular `A` (a zero scale) falls
/// back to [`Trs::from_mat4`](crate::math::trs::Trs::from_mat4) and is not flagged.
pub fn decompose(m: Mat4) -> Decomposed {
    let a: DMat3 = Mat3::from_mat4(m).as_dmat3();
    let translation = m.w_axis.truncate();
    let det = a.determinant();
    let norm = a.x_axis.length_squared() + a.y_axis.length_squared() + a.z_axis.length_squared();
    if !det.is_finite() || det.abs() <= 1e-12 * norm.powf(1.5).max(f64::MIN_POSITIVE) {
        let trs = crate::math::trs::Trs::from_mat4(m);
        return Decomposed {
            translation,
            rotation: trs.rotation,
            scale: trs.scale,
            sheared: false,
        };
    }
    let mut q = a;
    for _ in 0..100 {
        let next = (q + q.inverse().transpose()) * 0.5;
        let delta = next - q;
        q = next;
        let change = delta
            .x_axis
            .abs()
            .max_element()
            .max(delta.y_axis.abs().max_element())
            .max(delta.z_axis.abs().max_element());
        if change < 1e-15 {
            break;
        }
    }
    let h = q.transpose() * a;
    let mut scale = DVec3::new(h.x_axis.x, h.y_axis.y, h.z_axis.z);
    let off = h
        .x_axis
        .y
        .abs()
        .max(h.x_axis.z.abs())
        .max(h.y_axis.x.abs())
        .max(h.y_axis.z.abs())
        .max(h.z_axis.x.abs())
        .max(h.z_axis.y.abs());
    let sheared = off > SHEAR_TOLERANCE * scale.abs().max_element();
    if det < 0.0 {
        // Q = R·F, F = diag(−1, 1, 1): R's x column is −Q's.
        q.x_axis = -q.x_axis;
        scale.x = -scale.x;
    }
    Decomposed {
        translation,
        rotation: Quat::from_mat3(&q.as_mat3()).normalize(),
        scale: scale.as_vec3(),
        sheared,
    }
}

/// The world transform of `socket` given its parent's world matrix now (`parent_world`) and at
/// initialization (`parent_rest`); pass [`Mat4::IDENTITY`] for both when the socket has no
/// parent. The rule is in the [module docs](self).
pub fn world(socket: &Socket, parent_world: Mat4, parent_rest: Mat4, mode: VtMode) -> SocketWorld {
    if socket.respects_all() {
        let matrix = parent_world * socket.local().to_mat4();
        let d = decompose(matrix);
        return SocketWorld {
            matrix,
            translation: d.translation,
            rotation: d.rotation,
            scale: d.scale,
            sheared: d.sheared,
        };
    }
    let now = decompose(parent_world);
    let mut sheared = false;
    let r_star = if socket.respect_parent_rotation {
        sheared |= now.sheared;
        now.rotation
    } else {
        match mode {
            VtMode::Aligned => Quat::IDENTITY,
            VtMode::Frozen => {
                let rest = decompose(parent_rest);
                sheared |= rest.sheared;
                rest.rotation
            }
        }
    };
    let s_star = if socket.respect_parent_scale {
        sheared |= now.sheared;
        now.scale
    } else {
        Vec3::ONE
    };
    let t_star = if socket.respect_parent_position {
        now.translation
    } else {
        parent_rest.w_axis.truncate()
    };
    let rotation = (r_star * socket.rotation).normalize();
    let scale = s_star * socket.scale;
    let translation = t_star + r_star * (s_star * socket.translation);
    SocketWorld {
        matrix: Mat4::from_scale_rotation_translation(scale, rotation, translation),
        translation,
        rotation,
        scale,
        sheared,
    }
}

/// The world transforms of `sockets`, in order, given every joint's world matrix now
/// (`joint_world`) and at initialization (`joint_rest`), both indexed by
/// [`JointId::index`](crate::model::JointId::index). Sockets with no parent use the identity.
///
/// # Errors
/// [`Error::Unsupported`] when a socket's parent joint has no matrix in either slice.
pub fn world_all(
    sockets: &[Socket],
    joint_world: &[Mat4],
    joint_rest: &[Mat4],
    mode: VtMode,
) -> Result<Vec<SocketWorld>, Error> {
    sockets
        .iter()
        .map(|socket| {
            let (now, rest) = match socket.parent {
                None => (Mat4::IDENTITY, Mat4::IDENTITY),
                Some(joint) => {
                    match (joint_world.get(joint.index()), joint_rest.get(joint.index())) {
                        (Some(now), Some(rest)) => (*now, *rest),
                        _ => {
                            return Err(Error::unsupported(format!(
                                "socket {:?} follows {joint}, but world matrices were given for {} joints ({} at rest)",
                                socket.name,
                                joint_world.len(),
                                joint_rest.len()
                            )))
                        }
                    }
                }
            };
            Ok(world(socket, now, rest, mode))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    //! Hand-computed vectors. Notation: `Rz90·(x, y, z) = (−y, x, z)` (a quarter turn about +Z),
    //! `Rx90·(x, y, z) = (x, −z, y)`.
    //!
    //! Parent now: `P = T(1, 2, 3)·Rz90·S(2, 1, 1)` (non-uniform scale, no shear), so
    //! `Tp = (1, 2, 3)`, `Rp = Rz90`, `Sp = (2, 1, 1)`.
    //! Parent at rest: `P0 = T(0, 1, 0)·Rx90`, so `T0 = (0, 1, 0)`, `R0 = Rx90`.
    //! Socket: `t = (1, 1, 0)`, `r = Rz90`, `s = (1, 1, 2)`.
    //! Useful products: `Sp⊙t = (2, 1, 0)`, `Rp·(Sp⊙t) = (−1, 2, 0)`, `Rp·t = (−1, 1, 0)`,
    //! `Rp·r = Rz180`, `Sp⊙s = (2, 1, 2)`.

    use super::*;
    use crate::model::JointId;
    use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

    fn rz(a: f32) -> Quat {
        Quat::from_rotation_z(a)
    }

    fn parent() -> Mat4 {
        Mat4::from_scale_rotation_translation(
            Vec3::new(2.0, 1.0, 1.0),
            rz(FRAC_PI_2),
            Vec3::new(1.0, 2.0, 3.0),
        )
    }

    fn rest() -> Mat4 {
        Mat4::from_rotation_translation(Quat::from_rotation_x(FRAC_PI_2), Vec3::new(0.0, 1.0, 0.0))
    }

    fn socket(position: bool, rotation: bool, scale: bool) -> Socket {
        let mut s = Socket::new("s", JointId::from_index(0));
        s.translation = Vec3::new(1.0, 1.0, 0.0);
        s.rotation = rz(FRAC_PI_2);
        s.scale = Vec3::new(1.0, 1.0, 2.0);
        s.respect_parent_position = position;
        s.respect_parent_rotation = rotation;
        s.respect_parent_scale = scale;
        s
    }

    #[track_caller]
    fn check(w: SocketWorld, t: [f32; 3], r: Quat, s: [f32; 3]) {
        assert!(
            w.translation.abs_diff_eq(Vec3::from(t), 1e-5),
            "translation {w:?}"
        );
        assert!(
            w.rotation.dot(r).abs() > 1.0 - 1e-6,
            "rotation {w:?} vs {r:?}"
        );
        assert!(w.scale.abs_diff_eq(Vec3::from(s), 1e-5), "scale {w:?}");
        let m = Mat4::from_scale_rotation_translation(w.scale, w.rotation, w.translation);
        assert!(m.abs_diff_eq(w.matrix, 1e-5), "matrix {w:?}");
        assert!(!w.sheared);
    }

    fn eval(p: bool, r: bool, s: bool, mode: VtMode) -> SocketWorld {
        world(&socket(p, r, s), parent(), rest(), mode)
    }

    #[test]
    fn socket_all_flags_is_full_product() {
        // P·T(t) gives T = Tp + Rp·(Sp⊙t) = (1,2,3) + (−1,2,0) = (0, 4, 3).
        // Linear part Rz90·S(2,1,1)·Rz90·S(1,1,2); S(2,1,1)·Rz90 = Rz90·S(1,2,1) (Rz90 swaps
        // the x and y axes), so it is Rz180·S(1,2,1)·S(1,1,2) = Rz180·S(1, 2, 2).
        // (The TRS formula would have said S = Sp⊙s = (2, 1, 2): wrong for non-uniform Sp.)
        let w = eval(true, true, true, VtMode::Aligned);
        check(w, [0.0, 4.0, 3.0], rz(PI), [1.0, 2.0, 2.0]);
        let direct = parent()
            * Mat4::from_scale_rotation_translation(
                Vec3::new(1.0, 1.0, 2.0),
                rz(FRAC_PI_2),
                Vec3::new(1.0, 1.0, 0.0),
            );
        assert!(w.matrix.abs_diff_eq(direct, 1e-6));
        // Frozen mode changes nothing when rotation is respected.
        assert_eq!(eval(true, true, true, VtMode::Frozen), w);
    }

    #[test]
    fn socket_position_rotation() {
        // R* = Rz90, S* = 1: R = Rz90·Rz90 = Rz180, S = s = (1,1,2),
        // T = Tp + Rz90·t = (1,2,3) + (−1,1,0) = (0, 3, 3).
        check(
            eval(true, true, false, VtMode::Aligned),
            [0.0, 3.0, 3.0],
            rz(PI),
            [1.0, 1.0, 2.0],
        );
    }

    #[test]
    fn socket_position_scale() {
        // R* = I (aligned), S* = (2,1,1): R = r = Rz90, S = (2,1,2),
        // T = Tp + Sp⊙t = (1,2,3) + (2,1,0) = (3, 3, 3).
        check(
            eval(true, false, true, VtMode::Aligned),
            [3.0, 3.0, 3.0],
            rz(FRAC_PI_2),
            [2.0, 1.0, 2.0],
        );
    }

    #[test]
    fn socket_position_only() {
        // R* = I, S* = 1: R = Rz90, S = (1,1,2), T = (1,2,3) + (1,1,0) = (2, 3, 3).
        check(
            eval(true, false, false, VtMode::Aligned),
            [2.0, 3.0, 3.0],
            rz(FRAC_PI_2),
            [1.0, 1.0, 2.0],
        );
    }

    #[test]
    fn socket_rotation_scale() {
        // T* = T0 = (0,1,0), R* = Rz90, S* = (2,1,1): R = Rz180, S = (2,1,2) (the partial rule
        // uses Sp⊙s, not the full product), T = (0,1,0) + Rz90·(2,1,0) = (0,1,0) + (−1,2,0)
        // = (−1, 3, 0).
        check(
            eval(false, true, true, VtMode::Aligned),
            [-1.0, 3.0, 0.0],
            rz(PI),
            [2.0, 1.0, 2.0],
        );
    }

    #[test]
    fn socket_rotation_only() {
        // T* = (0,1,0), R* = Rz90, S* = 1: R = Rz180, S = (1,1,2),
        // T = (0,1,0) + Rz90·(1,1,0) = (0,1,0) + (−1,1,0) = (−1, 2, 0).
        check(
            eval(false, true, false, VtMode::Aligned),
            [-1.0, 2.0, 0.0],
            rz(PI),
            [1.0, 1.0, 2.0],
        );
    }

    #[test]
    fn socket_scale_only() {
        // T* = (0,1,0), R* = I, S* = (2,1,1): R = Rz90, S = (2,1,2),
        // T = (0,1,0) + (2,1,0) = (2, 2, 0).
        check(
            eval(false, false, true, VtMode::Aligned),
            [2.0, 2.0, 0.0],
            rz(FRAC_PI_2),
            [2.0, 1.0, 2.0],
        );
    }

    #[test]
    fn socket_no_flags() {
        // T* = (0,1,0), R* = I, S* = 1: R = Rz90, S = (1,1,2), T = (0,1,0) + (1,1,0) = (1, 2, 0).
        check(
            eval(false, false, false, VtMode::Aligned),
            [1.0, 2.0, 0.0],
            rz(FRAC_PI_2),
            [1.0, 1.0, 2.0],
        );
    }

    #[test]
    fn socket_frozen_mode_uses_rest_rotation() {
        let rx = Quat::from_rotation_x(FRAC_PI_2);
        // Position only, frozen: R* = R0 = Rx90, S* = 1: R = Rx90·Rz90, S = (1,1,2),
        // T = Tp + Rx90·(1,1,0) = (1,2,3) + (1,0,1) = (2, 2, 4).
        check(
            eval(true, false, false, VtMode::Frozen),
            [2.0, 2.0, 4.0],
            rx * rz(FRAC_PI_2),
            [1.0, 1.0, 2.0],
        );
        // Scale only, frozen: T* = (0,1,0), R* = Rx90, S* = (2,1,1): S = (2,1,2),
        // T = (0,1,0) + Rx90·(2,1,0) = (0,1,0) + (2,0,1) = (2, 1, 1).
        check(
            eval(false, false, true, VtMode::Frozen),
            [2.0, 1.0, 1.0],
            rx * rz(FRAC_PI_2),
            [2.0, 1.0, 2.0],
        );
        // Rotation respected: frozen and aligned agree.
        assert_eq!(
            eval(false, true, false, VtMode::Frozen),
            eval(false, true, false, VtMode::Aligned)
        );
    }

    #[test]
    fn socket_sheared_parent_is_flagged() {
        // P = S(2,1,1)·Rz45: scale after rotation, so shear. Its polar decomposition is
        // Rz45 · H with H = Rz45ᵀ·diag(2,1,1)·Rz45: H00 = 2c² + s² = 1.5, H11 = 2s² + c² = 1.5,
        // H22 = 1, H01 = (1 − 2)·c·s = −0.5 (c = s = √½).
        let p = Mat4::from_scale(Vec3::new(2.0, 1.0, 1.0)) * Mat4::from_quat(rz(FRAC_PI_4));
        let d = decompose(p);
        assert!(d.sheared);
        assert!(d.rotation.dot(rz(FRAC_PI_4)).abs() > 1.0 - 1e-6, "{d:?}");
        assert!(d.scale.abs_diff_eq(Vec3::new(1.5, 1.5, 1.0), 1e-5), "{d:?}");
        let mut s = Socket::new("s", JointId::from_index(0));
        s.respect_parent_scale = false;
        // Rotation respected from a sheared parent: flagged; R = Rz45.
        let w = world(&s, p, Mat4::IDENTITY, VtMode::Aligned);
        assert!(w.sheared);
        assert!(w.rotation.dot(rz(FRAC_PI_4)).abs() > 1.0 - 1e-6);
        // Position only: T is exact, nothing decomposed is used, not flagged.
        s.respect_parent_rotation = false;
        assert!(!world(&s, p, Mat4::IDENTITY, VtMode::Aligned).sheared);
    }

    #[test]
    fn socket_mirrored_parent_decomposes_with_negative_x() {
        // P = S(−2, 1, 1): det < 0, so Q = F and R = I, scale (−2, 1, 1).
        let d = decompose(Mat4::from_scale(Vec3::new(-2.0, 1.0, 1.0)));
        assert!(!d.sheared);
        assert!(d.rotation.abs_diff_eq(Quat::IDENTITY, 1e-6), "{d:?}");
        assert!(
            d.scale.abs_diff_eq(Vec3::new(-2.0, 1.0, 1.0), 1e-6),
            "{d:?}"
        );
    }

    #[test]
    fn socket_world_all_by_joint() {
        // Joint 1 at (0,1,0) now, at the origin at rest; a root socket uses the identity.
        let now = [Mat4::IDENTITY, Mat4::from_translation(Vec3::Y)];
        let rest = [Mat4::IDENTITY, Mat4::IDENTITY];
        let mut on_joint = Socket::new("a", JointId::from_index(1));
        on_joint.translation = Vec3::X;
        let mut root = Socket::new("b", None);
        root.translation = Vec3::Z;
        let w = world_all(&[on_joint.clone(), root], &now, &rest, VtMode::Aligned).unwrap();
        assert!(w[0].translation.abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-6));
        assert!(w[1].translation.abs_diff_eq(Vec3::Z, 1e-6));
        on_joint.parent = JointId::from_index(5);
        let err = world_all(&[on_joint], &now, &rest, VtMode::Aligned).unwrap_err();
        assert!(err.to_string().contains("joint 5"), "{err}");
    }
}
