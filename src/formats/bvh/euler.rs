//! Euler angles (degrees, BVH order) to quaternions and back, in f64, continuous across frames.
//!
//! ## Overview
//!
//! [`compose`] turns three angles into `R = R_a(α) · R_b(β) · R_c(γ)` for the order
//! `a b c` (the first written is outermost). [`decompose`] inverts it and, given the angles of
//! the previous frame, picks among the equivalent triples the one nearest to them:
//!
//! - every angle may move by a whole turn (360°);
//! - `(α, β, γ)` and `(α + 180°, 180° − β, γ + 180°)` are the same rotation;
//! - at gimbal lock (`cos β = 0`) only `α ± γ` is defined: `α` stays at the previous frame's
//!   value and `γ` takes the rest.
//!
//! `γ` is always solved from the residual `R_b(β)⁻¹ · R_a(α)⁻¹ · R`, so whatever `α` and `β`
//! were picked the triple reproduces the rotation to rounding.
//!
//! ```
//! use glam::DQuat;
//! use humanoid::formats::bvh::EulerOrder;
//! use humanoid::formats::bvh::euler::{compose, decompose};
//!
//! let q = compose(EulerOrder::Zxy, [10.0, 95.0, -30.0]);
//! // Without a previous frame the middle angle is taken in [-90°, 90°] ...
//! let first = decompose(q, EulerOrder::Zxy, None);
//! assert!(first[1].abs() <= 90.0);
//! // ... and next to a frame at (10, 94, -30) the continuous triple comes back.
//! let next = decompose(q, EulerOrder::Zxy, Some([10.0, 94.0, -30.0]));
//! assert!((next[0] - 10.0).abs() < 1e-9 && (next[1] - 95.0).abs() < 1e-9 && (next[2] + 30.0).abs() < 1e-9);
//! assert!(compose(EulerOrder::Zxy, first).dot(q).abs() > 1.0 - 1e-12);
//! ```

use std::f64::consts::{PI, TAU};

use glam::{DQuat, DVec3};

use super::channel::{Axis, EulerOrder};

/// Below this `cos β` the first and last axes are treated as aligned (gimbal lock).
const GIMBAL_LOCK_COS: f64 = 1e-9;

/// The unit vector along `axis`.
pub fn unit(axis: Axis) -> DVec3 {
    match axis {
        Axis::X => DVec3::X,
        Axis::Y => DVec3::Y,
        Axis::Z => DVec3::Z,
    }
}

/// A rotation of `degrees` about `axis`.
pub fn axis_rotation(axis: Axis, degrees: f64) -> DQuat {
    DQuat::from_axis_angle(unit(axis), degrees.to_radians())
}

/// `R_a(α) · R_b(β) · R_c(γ)` for `order = a b c` and `degrees = [α, β, γ]`.
pub fn compose(order: EulerOrder, degrees: [f64; 3]) -> DQuat {
    let [a, b, c] = order.axes();
    let [alpha, beta, gamma] = degrees;
    axis_rotation(a, alpha) * axis_rotation(b, beta) * axis_rotation(c, gamma)
}

/// Angles `[α, β, γ]` in degrees with `compose(order, angles) ≈ rotation`, nearest to
/// `previous` when given (see the module docs), else with `β ∈ [-90°, 90°]` and `α, γ` in
/// `(-180°, 180°]`.
pub fn decompose(rotation: DQuat, order: EulerOrder, previous: Option<[f64; 3]>) -> [f64; 3] {
    let q = rotation.normalize();
    let [a, b, c] = order.axes();
    let (i, j, k) = (a.index(), b.index(), c.index());
    // +1 for the cyclic orders (XYZ, YZX, ZXY), −1 for the others.
    let parity = if (j + 3 - i) % 3 == 1 { 1.0 } else { -1.0 };
    let m = glam::DMat3::from_quat(q).to_cols_array_2d();
    // Row r, column c of the matrix.
    let e = |row: usize, col: usize| m[col][row];
    let cos_beta = e(i, i).hypot(e(i, j));
    let beta = (parity * e(i, k)).atan2(cos_beta);
    let previous_rad = previous.map(|p| p.map(f64::to_radians));
    let alpha = if cos_beta > GIMBAL_LOCK_COS {
        (-parity * e(j, k)).atan2(e(k, k))
    } else {
        previous_rad.map_or(0.0, |p| p[0])
    };
    let gamma = residual_angle(q, a, alpha, b, beta, c);
    let base = [alpha, beta, gamma];
    let chosen = match previous_rad {
        None => base.map(wrap),
        Some(p) => {
            let flipped = [alpha + PI, PI - beta, gamma + PI];
            let near_base = base_near(base, p);
            let near_flipped = base_near(flipped, p);
            if distance(near_flipped, p) < distance(near_base, p) {
                near_flipped
            } else {
                near_base
            }
        }
    };
    chosen.map(f64::to_degrees)
}

/// The angle about `c` that `R_b(β)⁻¹ · R_a(α)⁻¹ · q` turns (its components off `c` are
/// rounding when α and β are right).
fn residual_angle(q: DQuat, a: Axis, alpha: f64, b: Axis, beta: f64, c: Axis) -> f64 {
    let r = DQuat::from_axis_angle(unit(b), -beta) * DQuat::from_axis_angle(unit(a), -alpha) * q;
    let along = match c {
        Axis::X => r.x,
        Axis::Y => r.y,
        Axis::Z => r.z,
    };
    wrap(2.0 * along.atan2(r.w))
}

/// The angle in `(-π, π]`.
fn wrap(angle: f64) -> f64 {
    let wrapped = angle - TAU * (angle / TAU).round();
    if wrapped <= -PI {
        wrapped + TAU
    } else {
        wrapped
    }
}

/// Each angle moved by whole turns to be nearest the previous one.
fn base_near(angles: [f64; 3], previous: [f64; 3]) -> [f64; 3] {
    let mut out = angles;
    for (angle, p) in out.iter_mut().zip(previous) {
        *angle += TAU * ((p - *angle) / TAU).round();
    }
    out
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn assert_same_rotation(a: DQuat, b: DQuat) {
        assert!(a.dot(b).abs() > 1.0 - 1e-12, "{a:?} vs {b:?}");
    }

    #[test]
    fn compose_by_hand() {
        // ZXY with Z = 90°: R = Rz(90°); x goes to y.
        let q = compose(EulerOrder::Zxy, [90.0, 0.0, 0.0]);
        assert!((q * DVec3::X).abs_diff_eq(DVec3::Y, 1e-12));
        // Rz(90°)·Rx(90°): y → z (by Rx) → z (Rz leaves z). First listed is outermost.
        let q = compose(EulerOrder::Zxy, [90.0, 90.0, 0.0]);
        assert!((q * DVec3::Y).abs_diff_eq(DVec3::Z, 1e-12));
        // Rx(90°)·Rz(90°) (XZY): y → −x (by Rz) → −x (Rx leaves x).
        let q = compose(EulerOrder::Xzy, [90.0, 90.0, 0.0]);
        assert!((q * DVec3::Y).abs_diff_eq(-DVec3::X, 1e-12));
    }

    #[test]
    fn decompose_inverts_compose_for_every_order() {
        let samples = [
            [10.0, 20.0, 30.0],
            [-170.0, 80.0, 100.0],
            [45.0, -89.9, -135.0],
            [0.0, 90.0, 0.0],
            [30.0, -90.0, 60.0],
            [179.0, 1.0, -179.0],
        ];
        for order in EulerOrder::ALL {
            for angles in samples {
                let q = compose(order, angles);
                let back = decompose(q, order, None);
                assert_same_rotation(compose(order, back), q);
                assert!(back[1].abs() <= 90.0 + 1e-9, "{order}: {back:?}");
                // With the true angles as the previous frame, they come back.
                let near = decompose(q, order, Some(angles));
                assert_same_rotation(compose(order, near), q);
                for (n, a) in near.iter().zip(angles) {
                    assert!((n - a).abs() < 1e-6, "{order}: {near:?} vs {angles:?}");
                }
            }
        }
    }

    #[test]
    fn sweeps_through_gimbal_lock_without_jumps() {
        for order in EulerOrder::ALL {
            let mut previous: Option<[f64; 3]> = None;
            for step in 0..=400 {
                let beta = -200.0 + step as f64;
                let angles = [20.0 + 0.1 * step as f64, beta, -40.0];
                let q = compose(order, angles);
                let got = decompose(q, order, previous);
                assert_same_rotation(compose(order, got), q);
                if let Some(p) = previous {
                    for (g, p) in got.iter().zip(p) {
                        assert!(
                            (g - p).abs() < 5.0,
                            "{order} at β {beta}: {got:?} after {p:?}"
                        );
                    }
                }
                previous = Some(got);
            }
        }
    }
}
