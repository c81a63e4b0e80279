//! Numbers in messages: a float is printed with at most six significant digits and no binary
//! noise (`15.447679999999998` → `15.4477`, `0.30000000000000004` → `0.3`), very large or
//! small ones in exponent form (`1.5e-7`). Every message that shows a measured or read float
//! goes through [`Num`]; exact integers print as integers.
//!
//! It also holds the crate's narrowing conversions ([`to_f32`], the `saturating_*` family,
//! [`whole`], [`index`], [`built_u32`]): `clippy::cast_possible_truncation` is denied, so a
//! narrowing `as` is written here once, each with why it is right, and nowhere else.
//!
//! ```
//! use humanoid::num::Num;
//! assert_eq!(Num(15.447679999999998).to_string(), "15.4477");
//! assert_eq!(Num(0.1 + 0.2).to_string(), "0.3");
//! assert_eq!(Num(0.0254).to_string(), "0.0254");
//! assert_eq!(Num(-2.0).to_string(), "-2");
//! assert_eq!(Num(1.5e-7).to_string(), "1.5e-7");
//! assert_eq!(Num::from(0.1f32).to_string(), "0.1");
//! ```

use std::fmt;

/// A float shown in a message (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num(pub f64);

impl From<f32> for Num {
    fn from(value: f32) -> Self {
        Num(f64::from(value))
    }
}

impl From<f64> for Num {
    fn from(value: f64) -> Self {
        Num(value)
    }
}

/// A vector shown in a message: `[x, y, z]`, each component as [`Num`].
///
/// ```
/// use humanoid::num::Nums;
/// assert_eq!(Nums::from(glam::Vec3::new(0.1, 0.2 + 0.1, -1.0)).to_string(), "[0.1, 0.3, -1]");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Nums(pub Vec<f64>);

impl From<glam::Vec3> for Nums {
    fn from(v: glam::Vec3) -> Self {
        Nums(v.to_array().iter().map(|&c| f64::from(c)).collect())
    }
}

impl From<glam::DVec3> for Nums {
    fn from(v: glam::DVec3) -> Self {
        Nums(v.to_array().to_vec())
    }
}

impl fmt::Display for Nums {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, c) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", Num(*c))?;
        }
        f.write_str("]")
    }
}

/// Significant digits shown.
const DIGITS: i32 = 6;

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if !x.is_finite() {
            return write!(f, "{x}");
        }
        if x == 0.0 {
            return f.write_str("0");
        }
        // The decimal exponent of the value rounded to the digits shown (so 999999.7 is 1e6,
        // not 999999.7 rounded within its own decade), as `{:e}` writes it after rounding.
        let scientific = format!("{:.*e}", (DIGITS - 1) as usize, x);
        let exponent: i32 = scientific
            .split_once('e')
            .and_then(|(_, e)| e.parse().ok())
            .unwrap_or(0);
        if (-4..DIGITS).contains(&exponent) {
            let decimals = usize::try_from((DIGITS - 1 - exponent).max(0)).unwrap_or(0);
            let text = format!("{x:.decimals$}");
            let text = trim_zeros(&text);
            f.write_str(if text == "-0" { "0" } else { text })
        } else {
            let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
            write!(f, "{}e{exponent}", trim_zeros(mantissa))
        }
    }
}

/// `1.500` → `1.5`, `2.000` → `2`, `10` → `10`.
fn trim_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

// ---------------------------------------------------------------------------------------------
// Narrowing conversions. The crate denies `clippy::cast_possible_truncation`: a narrowing `as`
// is written nowhere but here, each kind once, with why it is right where it is used. A
// narrowing that input can push out of range is checked at its site instead (`u32::try_from`,
// [`index`], [`whole`]) with an error that names the file and the place.

/// The `f32` nearest to `x`: f64 working precision (sampling, composition, parsing) written
/// back into the model, which stores `f32` (as glTF does).
///
/// This is IEEE rounding to nearest, never a truncation to a wrong value: within `f32`'s range
/// the error is at most half an ulp (6e-8 relative); NaN stays NaN, and a magnitude beyond
/// `f32::MAX` becomes ±infinity, which the model's invariants refuse where it came from a file
/// (a track's values and times, a skeleton's transforms must be finite).
///
/// ```
/// use humanoid::num::to_f32;
/// assert_eq!(to_f32(0.1), 0.1f32);
/// assert_eq!(to_f32(1e300), f32::INFINITY);
/// assert!(to_f32(f64::NAN).is_nan());
/// ```
#[allow(clippy::cast_possible_truncation)] // the one f64 → f32 of the crate: see above
pub fn to_f32(x: f64) -> f32 {
    x as f32
}

macro_rules! saturating {
    ($name:ident, $t:ty) => {
        #[doc = concat!(
            "`x`, which the caller has already rounded (`ceil`, `floor`, `round`), as a `",
            stringify!($t),
            "` count or index that the caller bounds (a frame count clamped to its limit, an ",
            "interval clamped to the last one): saturating, as Rust's float casts are (below ",
            "the type's range or NaN → its minimum or 0, above → its maximum), never wrapping."
        )]
        #[allow(clippy::cast_possible_truncation)] // saturating by the language: see the doc
        pub fn $name(x: f64) -> $t {
            x as $t
        }
    };
}

saturating!(saturating_usize, usize);
saturating!(saturating_u32, u32);
saturating!(saturating_u16, u16);
saturating!(saturating_i32, i32);

/// The largest magnitude below which every whole `f64` is exact (2^53).
const EXACT: f64 = 9_007_199_254_740_992.0;

/// `x` as a whole number, when it is one: finite, without a fraction and within ±2^53 (where
/// every whole number is exact). For numbers read from a file that must be integers (an
/// H-Anim `SFInt32`, a Godot integer written as a float); `None` lets the reader say so
/// instead of dropping the fraction.
///
/// ```
/// use humanoid::num::whole;
/// assert_eq!(whole(-3.0), Some(-3));
/// assert_eq!(whole(2.5), None);
/// assert_eq!(whole(f64::NAN), None);
/// assert_eq!(whole(1e300), None);
/// ```
pub fn whole(x: f64) -> Option<i64> {
    if x.fract() == 0.0 && x.abs() <= EXACT {
        // Exact: whole and within ±2^53, so well inside i64.
        #[allow(clippy::cast_possible_truncation)]
        let i = x as i64;
        Some(i)
    } else {
        None
    }
}

/// `x` as an index read from a file (a `coordIndex`, a `skinCoordIndex`): `Some` for a whole
/// number from 0 up (see [`whole`]), `None` for a negative, fractional or non-finite one, which
/// the reader reports or skips as it does an index out of range.
///
/// ```
/// use humanoid::num::index;
/// assert_eq!(index(7.0), Some(7));
/// assert_eq!(index(-1.0), None);
/// assert_eq!(index(0.5), None);
/// ```
pub fn index(x: f64) -> Option<usize> {
    whole(x).and_then(|i| usize::try_from(i).ok())
}

/// The index `i` of a buffer the crate builds itself (the mannequin's vertices, a few thousand;
/// its joints, under a hundred) as the `u32` a mesh stores. Bounded by construction far below
/// `u32::MAX`; were it ever not, it saturates, so a validator sees an index out of range
/// instead of a wrapped one that points at the wrong vertex.
pub fn built_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// As [`built_u32`], for the `u16` joint indices of a skin.
pub fn built_u16(i: usize) -> u16 {
    u16::try_from(i).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_goes_and_digits_stay() {
        for (x, shown) in [
            (15.447679999999998, "15.4477"),
            (0.30000000000000004, "0.3"),
            (1.0, "1"),
            (100.0, "100"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e6"),
            (999999.7, "1e6"),
            (0.000123456, "0.000123456"),
            (0.0000123456, "1.23456e-5"),
            (-0.5, "-0.5"),
            (-0.0000001, "-1e-7"),
            (2.54, "2.54"),
        ] {
            assert_eq!(Num(x).to_string(), shown, "{x}");
        }
        assert_eq!(Num(f64::NAN).to_string(), "NaN");
        assert_eq!(Num(f64::INFINITY).to_string(), "inf");
    }

    #[test]
    fn narrowing_rounds_to_nearest_and_saturates() {
        // f32 nearest: within half an ulp, never a truncated value.
        for x in [0.1, 1.0 / 3.0, -2.5e-7, 123_456.789, 3.4e38] {
            let y = to_f32(x);
            let ulp = f64::from(y.abs().max(f32::MIN_POSITIVE)) * f64::from(f32::EPSILON);
            assert!((f64::from(y) - x).abs() <= 0.5 * ulp, "{x} → {y}");
        }
        assert_eq!(to_f32(-1e300), f32::NEG_INFINITY);
        assert_eq!(saturating_usize(7.0), 7);
        assert_eq!(saturating_usize(-3.0), 0);
        assert_eq!(saturating_usize(f64::NAN), 0);
        assert_eq!(saturating_usize(1e300), usize::MAX);
        assert_eq!(saturating_u32(1e12), u32::MAX);
        assert_eq!(saturating_u16(6000.0), 6000);
        assert_eq!(saturating_i32(-2.0), -2);
        assert_eq!(saturating_i32(-1e12), i32::MIN);
    }

    #[test]
    fn whole_numbers_and_indices() {
        assert_eq!(whole(0.0), Some(0));
        assert_eq!(whole(-0.0), Some(0));
        assert_eq!(whole(9_007_199_254_740_992.0), Some(1 << 53));
        assert_eq!(whole(1.5), None);
        assert_eq!(whole(f64::INFINITY), None);
        assert_eq!(whole(1e16), None);
        assert_eq!(index(3.0), Some(3));
        assert_eq!(index(-0.5), None);
        assert_eq!(index(f64::NAN), None);
        assert_eq!(built_u32(5), 5);
        assert_eq!(built_u32(usize::MAX), u32::MAX);
        assert_eq!(built_u16(70_000), u16::MAX);
    }
}
