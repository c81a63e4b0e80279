//! Numbers in messages: a float is printed with at most six significant digits and no binary
//! noise (`15.447679999999998` → `15.4477`, `0.30000000000000004` → `0.3`), very large or
//! small ones in exponent form (`1.5e-7`). Every message that shows a measured or read float
//! goes through [`Num`]; exact integers print as integers.
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
        // The decimal exponent, from the value rounded to the digits shown (so 999999.7 is
        // 1e6, not 999999.7 rounded within its own decade).
        let rounded: f64 = format!("{:.*e}", (DIGITS - 1) as usize, x)
            .parse()
            .unwrap_or(x);
        let exponent = rounded.abs().log10().floor() as i32;
        if (-4..DIGITS).contains(&exponent) {
            let decimals = usize::try_from((DIGITS - 1 - exponent).max(0)).unwrap_or(0);
            let text = format!("{x:.decimals$}");
            let text = trim_zeros(&text);
            f.write_str(if text == "-0" { "0" } else { text })
        } else {
            let text = format!("{:.*e}", (DIGITS - 1) as usize, x);
            let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
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
}
