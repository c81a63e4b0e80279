//! Sampling keyframed curves the way glTF 2.0 defines it (Appendix C).
//!
//! ## Overview
//!
//! Sampling happens in two steps, as in Bevy's curve cores:
//!
//! 1. **Locate** the time among the keys with [`locate`]: exactly on a key, before the first,
//!    after the last, or between keys `i` and `i + 1` at the fraction `s`. A [`Cursor`] remembers
//!    the last segment so that playing forward costs O(1) per sample instead of a binary search
//!    (ozz's `SamplingJob::Context`).
//! 2. **Interpolate** with one small function per glTF rule: [`step`], [`linear`], [`slerp`]
//!    (rotations) and [`cubic_spline`]. Each is written in the spec's own terms.
//!
//! [`Keyframes`] ties both together for one curve of any component count (3 for translations
//! and scales, 4 for rotations, N for morph weights).
//!
//! **Outside the keys the curve is clamped**: a time before the first key samples the first
//! value, a time after the last key samples the last value (glTF leaves this to the
//! implementation; clamping is what engines do). A NaN time samples the first key.
//!
//! ```
//! use humanoid::pose::sample::{Cursor, Interpolation, Keyframes, ValueKind};
//!
//! // A 1-component LINEAR curve: 0 at t = 0, 10 at t = 2.
//! let curve = Keyframes {
//!     times: &[0.0, 2.0],
//!     values: &[0.0, 10.0],
//!     components: 1,
//!     interpolation: Interpolation::Linear,
//!     kind: ValueKind::Vector,
//! };
//! let mut cursor = Cursor::default();
//! let mut out = [0.0];
//! curve.sample(0.5, &mut cursor, &mut out);
//! assert_eq!(out, [2.5]);
//! curve.sample(9.0, &mut cursor, &mut out); // clamped to the last key
//! assert_eq!(out, [10.0]);
//! ```

use std::fmt;
use std::str::FromStr;

use glam::Quat;

/// How a sampler interpolates between keys (glTF `animation.sampler.interpolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Interpolation {
    /// `"STEP"`: the value of the key on the left holds until the next key.
    Step,
    /// `"LINEAR"`: linear interpolation; spherical linear (slerp) for rotations. glTF's default.
    #[default]
    Linear,
    /// `"CUBICSPLINE"`: cubic Hermite spline with explicit in- and out-tangents per key; values
    /// are stored as (in-tangent, value, out-tangent) per key.
    CubicSpline,
}

impl Interpolation {
    /// The glTF spelling: `"STEP"`, `"LINEAR"` or `"CUBICSPLINE"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Interpolation::Step => "STEP",
            Interpolation::Linear => "LINEAR",
            Interpolation::CubicSpline => "CUBICSPLINE",
        }
    }

    /// How many stored elements each key has: 3 for cubic splines (in-tangent, value,
    /// out-tangent), 1 otherwise.
    pub fn elements_per_key(self) -> usize {
        match self {
            Interpolation::CubicSpline => 3,
            Interpolation::Step | Interpolation::Linear => 1,
        }
    }
}

impl fmt::Display for Interpolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not one of glTF's interpolation names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown interpolation {found:?} (expected \"STEP\", \"LINEAR\" or \"CUBICSPLINE\")")]
pub struct UnknownInterpolation {
    /// The string found.
    pub found: String,
}

impl FromStr for Interpolation {
    type Err = UnknownInterpolation;

    /// Parses glTF's names exactly (they are case-sensitive in the spec).
    ///
    /// ```
    /// use humanoid::pose::sample::Interpolation;
    /// assert_eq!("CUBICSPLINE".parse(), Ok(Interpolation::CubicSpline));
    /// assert!("linear".parse::<Interpolation>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "STEP" => Ok(Interpolation::Step),
            "LINEAR" => Ok(Interpolation::Linear),
            "CUBICSPLINE" => Ok(Interpolation::CubicSpline),
            other => Err(UnknownInterpolation {
                found: other.to_owned(),
            }),
        }
    }
}

/// How the components of a value blend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// Independent components (translation, scale, morph weights): lerp.
    Vector,
    /// A unit quaternion `[x, y, z, w]`: slerp along the shorter arc for LINEAR, normalised after
    /// CUBICSPLINE.
    Rotation,
}

/// Where a time falls among the keys, as found by [`locate`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeyPosition {
    /// Exactly on key `i`.
    Exact(usize),
    /// Before the first key (or the time is NaN).
    BeforeFirst,
    /// After the last key.
    AfterLast,
    /// Strictly between key `i` and key `i + 1`, at the fraction `s` in (0, 1) of the way.
    Between(usize, f32),
}

/// Remembers the segment of the last [`locate`], so forward playback finds the next segment
/// without a binary search.
///
/// A cursor is only a hint: it is checked against the times every time, so using it with a
/// different curve, or jumping backwards, still gives the right answer, just without the
/// speed-up. There is nothing to invalidate. Keep one cursor per curve for the best effect.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    segment: usize,
}

/// Finds where `t` falls among `times` (which must be strictly increasing; an empty slice gives
/// [`KeyPosition::BeforeFirst`]).
///
/// Tries the cursor's segment and the one after it first, then falls back to a binary search,
/// and moves the cursor to the segment found.
///
/// ```
/// use humanoid::pose::sample::{locate, Cursor, KeyPosition};
/// let times = [0.0, 1.0, 3.0];
/// let mut cursor = Cursor::default();
/// assert_eq!(locate(&times, 2.0, &mut cursor), KeyPosition::Between(1, 0.5));
/// assert_eq!(locate(&times, 3.0, &mut cursor), KeyPosition::Exact(2));
/// assert_eq!(locate(&times, -1.0, &mut cursor), KeyPosition::BeforeFirst);
/// assert_eq!(locate(&times, 4.0, &mut cursor), KeyPosition::AfterLast);
/// ```
pub fn locate(times: &[f32], t: f32, cursor: &mut Cursor) -> KeyPosition {
    if t.is_nan() {
        return KeyPosition::BeforeFirst;
    }
    // Segment k covers [times[k], times[k + 1]).
    let in_segment = |k: usize| match (times.get(k), k.checked_add(1).and_then(|n| times.get(n))) {
        (Some(&start), Some(&end)) => start <= t && t < end,
        _ => false,
    };
    let last_key = if in_segment(cursor.segment) {
        cursor.segment
    } else if in_segment(cursor.segment.saturating_add(1)) {
        cursor.segment.saturating_add(1)
    } else {
        // The number of keys at or before t.
        match times.partition_point(|&key| key <= t).checked_sub(1) {
            Some(k) => k,
            None => return KeyPosition::BeforeFirst,
        }
    };
    cursor.segment = last_key;
    let (Some(&start), next) = (times.get(last_key), times.get(last_key + 1)) else {
        return KeyPosition::BeforeFirst;
    };
    if t == start {
        return KeyPosition::Exact(last_key);
    }
    match next {
        Some(&end) => KeyPosition::Between(last_key, (t - start) / (end - start)),
        None => KeyPosition::AfterLast,
    }
}

/// glTF STEP: the value of the key on the left, `v_k`, held until the next key.
///
/// Copies `min(v_k.len(), out.len())` components.
pub fn step(v_k: &[f32], out: &mut [f32]) {
    for (o, &v) in out.iter_mut().zip(v_k) {
        *o = v;
    }
}

/// glTF LINEAR for vectors: `(1 − s) · v_k + s · v_{k+1}`.
///
/// Writes `min` of the three lengths components.
pub fn linear(v_k: &[f32], v_k1: &[f32], s: f32, out: &mut [f32]) {
    for ((o, &a), &b) in out.iter_mut().zip(v_k).zip(v_k1) {
        *o = (1.0 - s) * a + s * b;
    }
}

/// glTF LINEAR for rotations: spherical linear interpolation along the shorter arc.
///
/// `slerp(q_k, q_{k+1}, s) = a · q_k + b · q'_{k+1}` with `q' = ±q_{k+1}` chosen so that
/// `q_k · q' ≥ 0` (q and −q are the same rotation; the sign flip takes the short way round),
/// `θ` the angle between them, `a = sin((1 − s)θ) / sin θ` and `b = sin(sθ) / sin θ`. The
/// result is normalised. See [`slerp_weights`] for how the weights are computed.
///
/// ```
/// use glam::Quat;
/// use humanoid::pose::sample::slerp;
/// let q = slerp(Quat::IDENTITY, Quat::from_rotation_y(1.0), 0.25);
/// assert!(q.dot(Quat::from_rotation_y(0.25)).abs() > 1.0 - 1e-6);
/// ```
pub fn slerp(q_k: Quat, q_k1: Quat, s: f32) -> Quat {
    let (a, b) = slerp_weights(q_k.dot(q_k1), s);
    (q_k * a + q_k1 * b).normalize()
}

/// `cos θ` above which [`slerp_weights`] uses its series (θ below 0.75 rad, a rotation of
/// 1.5 rad between the keys): there eight terms are exact to 2e-9, under `f32` rounding.
const SERIES_MIN_COS: f32 = 0.731_688_9; // cos(0.75)

/// The series' coefficients `u_i = 1 / (i (2i + 1))` and `v_i = i / (2i + 1)`, i = 1..=8.
const SERIES_U: [f32; 8] = [
    1.0 / 3.0,
    1.0 / 10.0,
    1.0 / 21.0,
    1.0 / 36.0,
    1.0 / 55.0,
    1.0 / 78.0,
    1.0 / 105.0,
    1.0 / 136.0,
];
const SERIES_V: [f32; 8] = [
    1.0 / 3.0,
    2.0 / 5.0,
    3.0 / 7.0,
    4.0 / 9.0,
    5.0 / 11.0,
    6.0 / 13.0,
    7.0 / 15.0,
    8.0 / 17.0,
];

/// The slerp weights `(a, b)` for two quaternions whose dot product is `dot`, at the fraction
/// `s`: `slerp = a · q_k + b · q_{k+1}` (before normalising). `b` carries the sign that takes
/// the shorter arc (negative when `dot < 0`).
///
/// With `x = |dot| = cos θ` (clamped to 1):
///
/// - for `θ < 0.75` rad (`x > cos 0.75`, which keys of any sampled motion are), no
///   trigonometry: `sin(sθ) / sin θ` is a polynomial in `x − 1` (Eberly, *A Fast and Accurate
///   Algorithm for Computing SLERP*, 2011), evaluated as
///   `s · (1 + b_1 (1 + b_2 (1 + … (1 + b_8))))` with `b_i = (u_i s² − v_i)(x − 1)`; the eight
///   terms are exact to 2e-9 there, so it is accurate for nearly equal rotations where
///   `acos(dot)` loses digits;
/// - otherwise `θ = acos x` (accurate away from `x = 1`), `b = sin(sθ) / sin θ` and
///   `a = cos(sθ) − x · b` (one `sin_cos`: `sin((1 − s)θ) = sin θ cos sθ − cos θ sin sθ`).
///
/// ```
/// use humanoid::pose::sample::slerp_weights;
/// // A quarter turn (θ = 45° between the quaternions), halfway: both weights are
/// // sin(22.5°) / sin(45°).
/// let (a, b) = slerp_weights(std::f32::consts::FRAC_1_SQRT_2, 0.5);
/// assert!((a - 0.541_196_1).abs() < 1e-6 && (b - 0.541_196_1).abs() < 1e-6);
/// ```
pub fn slerp_weights(dot: f32, s: f32) -> (f32, f32) {
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    let x = (dot * sign).min(1.0);
    if x > SERIES_MIN_COS {
        let xm1 = x - 1.0;
        let r = 1.0 - s;
        let (s2, r2) = (s * s, r * r);
        let (mut b, mut a) = (1.0f32, 1.0f32);
        for (u, v) in SERIES_U.iter().zip(&SERIES_V).rev() {
            b = 1.0 + (u * s2 - v) * xm1 * b;
            a = 1.0 + (u * r2 - v) * xm1 * a;
        }
        (r * a, sign * s * b)
    } else {
        let theta = x.acos();
        let sin_theta = (1.0 - x * x).sqrt();
        let (sin_s, cos_s) = (s * theta).sin_cos();
        let b = sin_s / sin_theta;
        (cos_s - x * b, sign * b)
    }
}

/// glTF CUBICSPLINE (Appendix C): the cubic Hermite spline between key `k` and key `k + 1`,
///
/// ```text
/// p(s) = (2s³ − 3s² + 1)·v_k + t_d·(s³ − 2s² + s)·b_k + (−2s³ + 3s²)·v_{k+1} + t_d·(s³ − s²)·a_{k+1}
/// ```
///
/// with `v` the values, `b_k` the out-tangent of key `k`, `a_{k+1}` the in-tangent of key `k + 1`,
/// `s` in [0, 1] the fraction of the segment and `t_d = t_{k+1} − t_k` its duration (tangents are
/// per second, so they are scaled by `t_d`). For rotations normalise the result afterwards
/// (done by [`Keyframes::sample`]).
///
/// Writes `min` of the slice lengths components.
pub fn cubic_spline(
    v_k: &[f32],
    b_k: &[f32],
    a_k1: &[f32],
    v_k1: &[f32],
    s: f32,
    t_d: f32,
    out: &mut [f32],
) {
    let s2 = s * s;
    let s3 = s2 * s;
    let h_v_k = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h_b_k = t_d * (s3 - 2.0 * s2 + s);
    let h_v_k1 = -2.0 * s3 + 3.0 * s2;
    let h_a_k1 = t_d * (s3 - s2);
    let inputs = v_k.iter().zip(b_k).zip(a_k1).zip(v_k1);
    for (o, (((&v0, &b0), &a1), &v1)) in out.iter_mut().zip(inputs) {
        *o = h_v_k * v0 + h_b_k * b0 + h_v_k1 * v1 + h_a_k1 * a1;
    }
}

/// One keyframed curve, borrowed: the view that [`Keyframes::sample`] works on.
///
/// Consistency (strictly increasing times, `values.len() == times.len() × components ×
/// interpolation.elements_per_key()`) is the owner's job (`model::clip::Track::new` checks it);
/// an inconsistent curve samples without panicking, leaving the output components it cannot
/// compute untouched.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Keyframes<'a> {
    /// Key times in seconds, strictly increasing.
    pub times: &'a [f32],
    /// Values, key after key; for CUBICSPLINE (in-tangent, value, out-tangent) per key.
    pub values: &'a [f32],
    /// Components per value (3, 4, or the morph weight count).
    pub components: usize,
    /// How to interpolate.
    pub interpolation: Interpolation,
    /// How components blend.
    pub kind: ValueKind,
}

impl<'a> Keyframes<'a> {
    /// Element `element` (a value or a tangent) of the stored values.
    fn element(&self, element: usize) -> Option<&'a [f32]> {
        let start = element.checked_mul(self.components)?;
        self.values.get(start..start.checked_add(self.components)?)
    }

    /// The value of key `key` (skipping the tangents of cubic splines).
    pub fn value(&self, key: usize) -> Option<&'a [f32]> {
        match self.interpolation {
            Interpolation::CubicSpline => self.element(key.checked_mul(3)?.checked_add(1)?),
            Interpolation::Step | Interpolation::Linear => self.element(key),
        }
    }

    /// The in-tangent `a_k` of key `key` (cubic splines only).
    pub fn in_tangent(&self, key: usize) -> Option<&'a [f32]> {
        match self.interpolation {
            Interpolation::CubicSpline => self.element(key.checked_mul(3)?),
            Interpolation::Step | Interpolation::Linear => None,
        }
    }

    /// The out-tangent `b_k` of key `key` (cubic splines only).
    pub fn out_tangent(&self, key: usize) -> Option<&'a [f32]> {
        match self.interpolation {
            Interpolation::CubicSpline => self.element(key.checked_mul(3)?.checked_add(2)?),
            Interpolation::Step | Interpolation::Linear => None,
        }
    }

    /// Samples the curve at `t` into `out` (which should hold `components` values; extra
    /// entries are left alone, missing ones are not written). Clamped outside the keys.
    pub fn sample(&self, t: f32, cursor: &mut Cursor, out: &mut [f32]) {
        self.sample_at(locate(self.times, t, cursor), out);
    }

    /// As [`Keyframes::sample`], at a position that [`locate`] found among these keys' times
    /// (curves that share one time array locate a time once for all of them).
    pub fn sample_at(&self, position: KeyPosition, out: &mut [f32]) {
        let (k, s) = match position {
            KeyPosition::BeforeFirst => return self.write_key(0, out),
            KeyPosition::AfterLast => {
                return self.write_key(self.times.len().saturating_sub(1), out)
            }
            KeyPosition::Exact(k) => return self.write_key(k, out),
            KeyPosition::Between(k, s) => (k, s),
        };
        let (Some(v_k), Some(v_k1)) = (self.value(k), self.value(k + 1)) else {
            return;
        };
        match (self.interpolation, self.kind) {
            (Interpolation::Step, _) => step(v_k, out),
            (Interpolation::Linear, ValueKind::Vector) => linear(v_k, v_k1, s, out),
            (Interpolation::Linear, ValueKind::Rotation) => {
                if let (Some(q_k), Some(q_k1)) = (quat(v_k), quat(v_k1)) {
                    write_quat(slerp(q_k, q_k1, s), out);
                }
            }
            (Interpolation::CubicSpline, kind) => {
                let (Some(b_k), Some(a_k1)) = (self.out_tangent(k), self.in_tangent(k + 1)) else {
                    return;
                };
                let (Some(&t_k), Some(&t_k1)) = (self.times.get(k), self.times.get(k + 1)) else {
                    return;
                };
                cubic_spline(v_k, b_k, a_k1, v_k1, s, t_k1 - t_k, out);
                if kind == ValueKind::Rotation {
                    if let Some(q) = quat(out) {
                        write_quat(q.normalize(), out);
                    }
                }
            }
        }
    }

    /// The rotation of a 4-component curve at `position` (found by [`locate`] among these
    /// keys' times), **not normalised**: the stored key on a key or outside the keys, the
    /// slerp blend `a · q_k + b · q_{k+1}` between LINEAR keys, the spline normalised for
    /// CUBICSPLINE. What the curve cannot answer (too few components or values) comes from
    /// `default`, as [`Keyframes::sample`] leaves the output components it cannot compute.
    #[inline]
    pub(crate) fn rotation_at(&self, position: KeyPosition, default: Quat) -> Quat {
        let key = |k: usize| {
            let start = k.checked_mul(4)?;
            quat(self.values.get(start..)?)
        };
        match (self.interpolation, position) {
            (Interpolation::Linear, KeyPosition::Between(k, s)) if self.components == 4 => {
                match (key(k), k.checked_add(1).and_then(key)) {
                    (Some(q_k), Some(q_k1)) => {
                        let (a, b) = slerp_weights(q_k.dot(q_k1), s);
                        q_k * a + q_k1 * b
                    }
                    _ => default,
                }
            }
            (Interpolation::Step | Interpolation::Linear, _) if self.components == 4 => {
                let k = match position {
                    KeyPosition::BeforeFirst => 0,
                    KeyPosition::AfterLast => self.times.len().saturating_sub(1),
                    KeyPosition::Exact(k) | KeyPosition::Between(k, _) => k,
                };
                key(k).unwrap_or(default)
            }
            _ => {
                let mut out = default.to_array();
                self.sample_at(position, &mut out);
                Quat::from_array(out)
            }
        }
    }

    fn write_key(&self, key: usize, out: &mut [f32]) {
        if let Some(v) = self.value(key) {
            step(v, out);
        }
    }
}

/// The quaternion in the first four components, if there are four.
fn quat(v: &[f32]) -> Option<Quat> {
    match v {
        [x, y, z, w, ..] => Some(Quat::from_xyzw(*x, *y, *z, *w)),
        _ => None,
    }
}

fn write_quat(q: Quat, out: &mut [f32]) {
    step(&q.to_array(), out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_PI_2;

    #[track_caller]
    fn assert_close(got: &[f32], expected: &[f32], tolerance: f32) {
        assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(expected) {
            assert!((g - e).abs() <= tolerance, "{got:?} vs {expected:?}");
        }
    }

    /// Rotations compare up to sign (q ≡ −q).
    #[track_caller]
    fn assert_quat_eq(got: Quat, expected: Quat, tolerance: f32) {
        let dot = got.dot(expected).abs();
        assert!(
            1.0 - dot <= tolerance,
            "{got:?} vs {expected:?} (|dot| = {dot})"
        );
    }

    fn curve<'a>(
        times: &'a [f32],
        values: &'a [f32],
        components: usize,
        interpolation: Interpolation,
        kind: ValueKind,
    ) -> Keyframes<'a> {
        Keyframes {
            times,
            values,
            components,
            interpolation,
            kind,
        }
    }

    #[test]
    fn interpolation_names_are_gltf_names() {
        for (name, interpolation) in [
            ("STEP", Interpolation::Step),
            ("LINEAR", Interpolation::Linear),
            ("CUBICSPLINE", Interpolation::CubicSpline),
        ] {
            assert_eq!(name.parse::<Interpolation>(), Ok(interpolation));
            assert_eq!(interpolation.as_str(), name);
            assert_eq!(interpolation.to_string(), name);
        }
        let err = "Cubic".parse::<Interpolation>().unwrap_err();
        assert_eq!(err.found, "Cubic");
        assert_eq!(Interpolation::default(), Interpolation::Linear);
    }

    #[test]
    fn locate_table() {
        let times = [0.0, 1.0, 3.0];
        // (t, expected): keys at 0, 1, 3.
        let table = [
            (-0.5, KeyPosition::BeforeFirst),
            (0.0, KeyPosition::Exact(0)),
            (0.25, KeyPosition::Between(0, 0.25)),
            (1.0, KeyPosition::Exact(1)),
            (1.5, KeyPosition::Between(1, 0.25)), // (1.5 − 1) / (3 − 1)
            (2.5, KeyPosition::Between(1, 0.75)),
            (3.0, KeyPosition::Exact(2)),
            (3.5, KeyPosition::AfterLast),
            (f32::NAN, KeyPosition::BeforeFirst),
            (f32::INFINITY, KeyPosition::AfterLast),
            (f32::NEG_INFINITY, KeyPosition::BeforeFirst),
        ];
        // Forward with one cursor, backward with one cursor, and each with a fresh cursor: the
        // cursor never changes the answer.
        let mut forward = Cursor::default();
        for (t, expected) in table {
            assert_eq!(locate(&times, t, &mut forward), expected, "t = {t}");
            assert_eq!(
                locate(&times, t, &mut Cursor::default()),
                expected,
                "t = {t}"
            );
        }
        let mut backward = Cursor::default();
        for (t, expected) in table.iter().rev() {
            assert_eq!(locate(&times, *t, &mut backward), *expected, "t = {t}");
        }
        assert_eq!(
            locate(&[], 1.0, &mut Cursor::default()),
            KeyPosition::BeforeFirst
        );
        assert_eq!(
            locate(&[2.0], 2.0, &mut Cursor::default()),
            KeyPosition::Exact(0)
        );
        assert_eq!(
            locate(&[2.0], 3.0, &mut Cursor::default()),
            KeyPosition::AfterLast
        );
    }

    #[test]
    fn cursor_follows_forward_playback() {
        let times: Vec<f32> = (0..100).map(|i| i as f32).collect();
        let mut cursor = Cursor::default();
        for i in 0..990 {
            let t = i as f32 * 0.1;
            let expected = locate(&times, t, &mut Cursor::default());
            assert_eq!(locate(&times, t, &mut cursor), expected);
        }
        // A cursor far ahead (from another curve) is still only a hint.
        let mut stale = Cursor { segment: 1_000_000 };
        assert_eq!(
            locate(&times, 2.5, &mut stale),
            KeyPosition::Between(2, 0.5)
        );
    }

    #[test]
    fn linear_three_keys_by_hand() {
        // Keys: t = 0 → (0, 0, 0), t = 1 → (2, 4, -2), t = 3 → (2, 0, 6).
        let times = [0.0, 1.0, 3.0];
        let values = [0.0, 0.0, 0.0, 2.0, 4.0, -2.0, 2.0, 0.0, 6.0];
        let c = curve(&times, &values, 3, Interpolation::Linear, ValueKind::Vector);
        let table: [(f32, [f32; 3]); 8] = [
            (-1.0, [0.0, 0.0, 0.0]), // clamped to the first key
            (0.0, [0.0, 0.0, 0.0]),
            (0.5, [1.0, 2.0, -1.0]), // halfway to key 1
            (1.0, [2.0, 4.0, -2.0]),
            (2.0, [2.0, 2.0, 2.0]), // s = 0.5: (2, (4+0)/2, (−2+6)/2)
            (2.5, [2.0, 1.0, 4.0]), // s = 0.75: (2, 4·0.25, −2·0.25 + 6·0.75)
            (3.0, [2.0, 0.0, 6.0]),
            (7.0, [2.0, 0.0, 6.0]), // clamped to the last key
        ];
        let mut cursor = Cursor::default();
        for (t, expected) in table {
            let mut out = [f32::NAN; 3];
            c.sample(t, &mut cursor, &mut out);
            assert_close(&out, &expected, 1e-6);
        }
    }

    #[test]
    fn step_holds_the_left_key() {
        // Keys: t = 0 → 1, t = 1 → 5, t = 2 → 9.
        let c = curve(
            &[0.0, 1.0, 2.0],
            &[1.0, 5.0, 9.0],
            1,
            Interpolation::Step,
            ValueKind::Vector,
        );
        let table = [
            (0.0, 1.0),
            (0.99, 1.0),
            (1.0, 5.0),
            (1.5, 5.0),
            (2.0, 9.0),
            (3.0, 9.0),
        ];
        let mut cursor = Cursor::default();
        for (t, expected) in table {
            let mut out = [0.0];
            c.sample(t, &mut cursor, &mut out);
            assert_eq!(out, [expected], "t = {t}");
        }
    }

    #[test]
    fn slerp_halfway_to_a_quarter_turn_is_an_eighth_turn() {
        let half = slerp(Quat::IDENTITY, Quat::from_rotation_y(FRAC_PI_2), 0.5);
        assert_quat_eq(half, Quat::from_rotation_y(FRAC_PI_2 / 2.0), 1e-7);
        // By hand: 45° about Y is (0, sin 22.5°, 0, cos 22.5°) = (0, 0.38268343, 0, 0.92387953).
        assert_close(
            &half.to_array(),
            &[0.0, 0.382_683_43, 0.0, 0.923_879_5],
            1e-6,
        );
    }

    #[test]
    fn slerp_takes_the_short_way() {
        // −q is the same rotation as q; without the sign flip, slerp from identity to
        // −(90° about Y) would go the long way (270°).
        let far = -Quat::from_rotation_y(FRAC_PI_2);
        let half = slerp(Quat::IDENTITY, far, 0.5);
        assert_quat_eq(half, Quat::from_rotation_y(FRAC_PI_2 / 2.0), 1e-7);
        // Nearly equal rotations stay accurate.
        let a = Quat::from_rotation_x(1e-4);
        assert_quat_eq(
            slerp(Quat::IDENTITY, a, 0.5),
            Quat::from_rotation_x(5e-5),
            1e-7,
        );
        // Endpoints.
        let b = Quat::from_rotation_z(2.0);
        assert_quat_eq(slerp(a, b, 0.0), a, 1e-7);
        assert_quat_eq(slerp(a, b, 1.0), b, 1e-7);
    }

    /// Slerp in `f64`, written independently of [`slerp_weights`]: the angle from
    /// `2·atan2(|a − b|, |a + b|)` (accurate for nearly equal rotations), the weights from
    /// three sines, normalised.
    fn reference_slerp(a: Quat, b: Quat, s: f64) -> glam::DQuat {
        let a = a.as_dquat();
        let b = b.as_dquat();
        let b = if a.dot(b) < 0.0 { -b } else { b };
        let theta = 2.0 * (a - b).length().atan2((a + b).length());
        let (wa, wb) = if theta < 1e-12 {
            (1.0 - s, s)
        } else {
            (
                ((1.0 - s) * theta).sin() / theta.sin(),
                (s * theta).sin() / theta.sin(),
            )
        };
        (a * wa + b * wb).normalize()
    }

    #[track_caller]
    fn assert_matches_reference(a: Quat, b: Quat, s: f32) {
        let got = slerp(a, b, s).as_dquat();
        let expected = reference_slerp(a, b, f64::from(s));
        // Same sign convention (a's hemisphere), so compare components, to f32 rounding.
        let error = (got - expected).length();
        assert!(
            error < 4e-7,
            "slerp({a:?}, {b:?}, {s}) = {got:?}, expected {expected:?} (error {error:e})"
        );
    }

    proptest::proptest! {
        #[test]
        fn slerp_matches_an_f64_reference(
            a in proptest::array::uniform4(-1.0f32..1.0),
            b in proptest::array::uniform4(-1.0f32..1.0),
            s in 0.0f32..=1.0,
        ) {
            let (a, b) = (Quat::from_array(a), Quat::from_array(b));
            proptest::prop_assume!(a.length() > 0.1 && b.length() > 0.1);
            assert_matches_reference(a.normalize(), b.normalize(), s);
        }

        #[test]
        fn slerp_matches_the_reference_for_near_parallel_and_opposite_pairs(
            a in proptest::array::uniform4(-1.0f32..1.0),
            axis in proptest::array::uniform3(-1.0f32..1.0),
            angle_exponent in -7.0f32..0.3,
            opposite: bool,
            s in 0.0f32..=1.0,
        ) {
            let (a, axis) = (Quat::from_array(a), glam::Vec3::from_array(axis));
            proptest::prop_assume!(a.length() > 0.1 && axis.length() > 0.1);
            // b is a turned by 10^e rad (1e-7 to 2 rad): nearly the same rotation, and, as
            // −b, nearly the opposite quaternion; the angles around 0.75 rad meet both branches
            // of slerp_weights.
            let a = a.normalize();
            let b = (a * Quat::from_axis_angle(axis.normalize(), 10f32.powf(angle_exponent)))
                .normalize();
            assert_matches_reference(a, if opposite { -b } else { b }, s);
        }
    }

    #[test]
    fn slerp_weights_cover_both_branches_at_the_switch() {
        // Just above and below the series' limit, and at the end points.
        for x in [0.0, 0.5, 0.7316, 0.7317, 0.999_999, 1.0] {
            for s in [0.0, 0.1, 0.5, 0.9, 1.0] {
                let (a, b) = slerp_weights(x, s);
                let theta = f64::from(x).acos();
                let (ea, eb) = if theta == 0.0 {
                    (1.0 - f64::from(s), f64::from(s))
                } else {
                    (
                        ((1.0 - f64::from(s)) * theta).sin() / theta.sin(),
                        (f64::from(s) * theta).sin() / theta.sin(),
                    )
                };
                assert!(
                    (f64::from(a) - ea).abs() < 3e-7,
                    "x {x} s {s}: a {a} vs {ea}"
                );
                assert!(
                    (f64::from(b) - eb).abs() < 3e-7,
                    "x {x} s {s}: b {b} vs {eb}"
                );
                if x > 0.0 {
                    let (na, nb) = slerp_weights(-x, s);
                    assert_eq!((na, nb), (a, -b), "x {x}: the short way is b's sign");
                }
            }
        }
    }

    #[test]
    fn linear_rotation_track_uses_slerp() {
        // Keys: identity at t = 0, 90° about Y at t = 2. At t = 1 (s = 0.5): 45° about Y.
        let q1 = Quat::from_rotation_y(FRAC_PI_2).to_array();
        let values = [0.0, 0.0, 0.0, 1.0, q1[0], q1[1], q1[2], q1[3]];
        let c = curve(
            &[0.0, 2.0],
            &values,
            4,
            Interpolation::Linear,
            ValueKind::Rotation,
        );
        let mut out = [0.0; 4];
        c.sample(1.0, &mut Cursor::default(), &mut out);
        assert_quat_eq(
            Quat::from_array(out),
            Quat::from_rotation_y(FRAC_PI_2 / 2.0),
            1e-7,
        );
        // Plain lerp would give (0, 0.3536, 0, 0.8536), not unit length; slerp is unit.
        assert!(Quat::from_array(out).is_normalized());
    }

    #[test]
    fn cubic_spline_with_zero_tangents_is_smoothstep() {
        // Keys: t = 1 → 0, t = 3 → 10, all tangents 0. Then p(s) = 10·(3s² − 2s³):
        // s = 0.25 → 10·(0.1875 − 0.03125) = 1.5625; s = 0.5 → 5; s = 0.75 → 8.4375.
        let values = [0.0, 0.0, 0.0, 0.0, 10.0, 0.0]; // (a_0, v_0, b_0), (a_1, v_1, b_1)
        let c = curve(
            &[1.0, 3.0],
            &values,
            1,
            Interpolation::CubicSpline,
            ValueKind::Vector,
        );
        let table = [
            (0.0, 0.0),
            (1.0, 0.0),
            (1.5, 1.5625),
            (2.0, 5.0),
            (2.5, 8.4375),
            (3.0, 10.0),
            (4.0, 10.0),
        ];
        let mut cursor = Cursor::default();
        for (t, expected) in table {
            let mut out = [f32::NAN];
            c.sample(t, &mut cursor, &mut out);
            assert_close(&out, &[expected], 1e-5);
        }
    }

    #[test]
    fn cubic_spline_tangents_scale_with_the_segment_duration() {
        // v_0 = 0, v_1 = 0, out-tangent b_0 = 1 per second, in-tangent a_1 = 0, t_d = 2.
        // p(s) = t_d·(s³ − 2s² + s)·1: at s = 0.5, 2·(0.125 − 0.5 + 0.5) = 0.25.
        let mut out = [0.0];
        cubic_spline(&[0.0], &[1.0], &[0.0], &[0.0], 0.5, 2.0, &mut out);
        assert_close(&out, &[0.25], 1e-7);
        // In-tangent only, a_1 = 1: t_d·(s³ − s²) = 2·(0.125 − 0.25) = −0.25.
        cubic_spline(&[0.0], &[0.0], &[1.0], &[0.0], 0.5, 2.0, &mut out);
        assert_close(&out, &[-0.25], 1e-7);
        // A straight line: v_0 = 0, v_1 = 2 over t_d = 2 with both tangents 1 per second.
        // Hermite reproduces it exactly: p(0.25) = 0.5.
        cubic_spline(&[0.0], &[1.0], &[1.0], &[2.0], 0.25, 2.0, &mut out);
        assert_close(&out, &[0.5], 1e-6);
    }

    #[test]
    fn cubic_rotation_is_normalised() {
        // Identity to 90° about Y, zero tangents: halfway the raw spline is the lerp midpoint
        // (0, 0.3536, 0, 0.8536), not unit; normalised it is 45° about Y.
        let q1 = Quat::from_rotation_y(FRAC_PI_2).to_array();
        let mut values = vec![0.0; 4];
        values.extend([0.0, 0.0, 0.0, 1.0]);
        values.extend([0.0; 8]);
        values.extend(q1);
        values.extend([0.0; 4]);
        let c = curve(
            &[0.0, 1.0],
            &values,
            4,
            Interpolation::CubicSpline,
            ValueKind::Rotation,
        );
        let mut out = [0.0; 4];
        c.sample(0.5, &mut Cursor::default(), &mut out);
        let q = Quat::from_array(out);
        assert!(q.is_normalized());
        assert_quat_eq(q, Quat::from_rotation_y(FRAC_PI_2 / 2.0), 1e-6);
    }

    #[test]
    fn morph_weights_have_any_component_count() {
        // Five weights, two keys 0 → 1 s: halfway is the mean.
        let values = [
            0.0, 1.0, 0.0, 0.5, 1.0, /* key 1: */ 1.0, 0.0, 0.0, 1.0, 0.0,
        ];
        let c = curve(
            &[0.0, 1.0],
            &values,
            5,
            Interpolation::Linear,
            ValueKind::Vector,
        );
        let mut out = [0.0; 5];
        c.sample(0.5, &mut Cursor::default(), &mut out);
        assert_close(&out, &[0.5, 0.5, 0.0, 0.75, 0.5], 1e-7);
    }

    #[test]
    fn inconsistent_curves_do_not_panic() {
        // Too few values for the keys, zero components, a short output buffer.
        let c = curve(
            &[0.0, 1.0, 2.0],
            &[1.0, 2.0],
            3,
            Interpolation::CubicSpline,
            ValueKind::Rotation,
        );
        let mut out = [7.0; 4];
        c.sample(0.5, &mut Cursor::default(), &mut out);
        c.sample(5.0, &mut Cursor::default(), &mut out);
        assert_eq!(out, [7.0; 4]);
        let c = curve(
            &[0.0, 1.0],
            &[],
            0,
            Interpolation::Linear,
            ValueKind::Vector,
        );
        c.sample(0.5, &mut Cursor::default(), &mut out);
        let c = curve(
            &[0.0, 1.0],
            &[0.0, 2.0],
            1,
            Interpolation::Linear,
            ValueKind::Vector,
        );
        c.sample(0.5, &mut Cursor::default(), &mut []);
        let mut long = [9.0; 3];
        c.sample(0.5, &mut Cursor::default(), &mut long);
        assert_eq!(long, [1.0, 9.0, 9.0]);
    }
}
