//! The sRGB transfer curve (IEC 61966-2-1), one place for every colour space conversion:
//! VRM 0.x colours are sRGB-encoded, glTF and VRM 1.0 factors linear.

/// An sRGB-encoded component (0 to 1) as linear light.
///
/// ```
/// use humanoid::math::color::srgb_to_linear;
/// assert!((srgb_to_linear(0.5) - 0.214_041).abs() < 1e-6);
/// ```
pub fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light as an sRGB-encoded component: the inverse of [`srgb_to_linear`].
///
/// ```
/// use humanoid::math::color::{linear_to_srgb, srgb_to_linear};
/// assert!((srgb_to_linear(linear_to_srgb(0.2)) - 0.2).abs() < 1e-12);
/// ```
pub fn linear_to_srgb(c: f64) -> f64 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_round_trips() {
        for c in [0.0, 0.002, 0.2, 0.5, 1.0] {
            let back = srgb_to_linear(linear_to_srgb(c));
            assert!((back - c).abs() < 1e-12, "{c}");
        }
    }
}
