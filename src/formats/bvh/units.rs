//! The length unit of a BVH file: given by the caller, or guessed from the rest hips height.
//!
//! ## Overview
//!
//! BVH numbers have no unit. The model is in metres, so a reader must know how long one file
//! unit is. [`detect`] measures the **rest hips height**: the root's height (y) above the
//! lowest joint or End Site of the rest pose built from the OFFSETs, and reads it as:
//!
//! | height h (file units) | unit | diagnostic |
//! |---|---|---|
//! | 50 ≤ h ≤ 250 | centimetres (a person's hips are 0.5–2.5 m up) | info |
//! | 0.5 ≤ h ≤ 2.5 | metres | info |
//! | 20 ≤ h < 50 | inches (20–100 in; 50 and above already read as cm) | info, saying it is a guess |
//! | 10 ≤ h < 20 | CMU units of 1/0.45 inch (the CMU database's conversions: hips ≈ 15.4) | info, saying it is a guess |
//! | anything else | metres | warning: give `--bvh-scale` |
//!
//! ```
//! use humanoid::formats::bvh::units::{detect, Guess};
//! use humanoid::formats::bvh::CENTIMETRES;
//!
//! assert_eq!(detect(92.0), Guess::Sure { metres_per_unit: CENTIMETRES, name: "centimetres" });
//! assert!(matches!(detect(15.4), Guess::Likely { .. })); // CMU units
//! assert!(matches!(detect(5.0), Guess::Unknown { .. }));
//! ```

use super::{CENTIMETRES, INCHES, METRES};

/// The CMU motion-capture database's length unit: 1/0.45 inch.
pub const CMU_UNIT: f64 = 0.0254 / 0.45;

/// What [`detect`] made of a rest hips height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Guess {
    /// The height is that of a person in this unit.
    Sure {
        /// The length of one file unit in metres.
        metres_per_unit: f64,
        /// `"centimetres"` or `"metres"`.
        name: &'static str,
    },
    /// The height fits a person in inches, the least common BVH unit.
    Likely {
        /// The length of one file unit in metres.
        metres_per_unit: f64,
        /// `"inches"`.
        name: &'static str,
    },
    /// No unit makes the height a person's; read as metres.
    Unknown {
        /// [`METRES`].
        metres_per_unit: f64,
    },
}

impl Guess {
    /// The length of one file unit in metres.
    pub fn metres_per_unit(self) -> f64 {
        match self {
            Guess::Sure {
                metres_per_unit, ..
            }
            | Guess::Likely {
                metres_per_unit, ..
            }
            | Guess::Unknown { metres_per_unit } => metres_per_unit,
        }
    }
}

/// The unit a rest hips height (in file units) suggests; see the module docs for the table.
pub fn detect(hips_height: f64) -> Guess {
    if (50.0..=250.0).contains(&hips_height) {
        Guess::Sure {
            metres_per_unit: CENTIMETRES,
            name: "centimetres",
        }
    } else if (0.5..=2.5).contains(&hips_height) {
        Guess::Sure {
            metres_per_unit: METRES,
            name: "metres",
        }
    } else if (20.0..=100.0).contains(&hips_height) {
        Guess::Likely {
            metres_per_unit: INCHES,
            name: "inches",
        }
    } else if (10.0..20.0).contains(&hips_height) {
        // The CMU database's ASF/AMC unit (1/0.45 inch), kept by its BVH conversions: a
        // 15.45-unit hips height is 0.87 m.
        Guess::Likely {
            metres_per_unit: CMU_UNIT,
            name: "CMU units (1/0.45 inch)",
        }
    } else {
        Guess::Unknown {
            metres_per_unit: METRES,
        }
    }
}

/// The rest hips height: `positions[root].y − min(y)` over `positions` (the rest positions of
/// one hierarchy, root first); 0 when empty.
pub fn hips_height(positions: &[[f64; 3]]) -> f64 {
    let Some(root) = positions.first() else {
        return 0.0;
    };
    let lowest = positions.iter().map(|p| p[1]).fold(root[1], f64::min);
    root[1] - lowest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let unit = |h: f64| detect(h).metres_per_unit();
        assert_eq!(unit(50.0), CENTIMETRES);
        assert_eq!(unit(250.0), CENTIMETRES);
        assert_eq!(unit(0.5), METRES);
        assert_eq!(unit(2.5), METRES);
        assert_eq!(unit(20.0), INCHES);
        assert_eq!(unit(49.9), INCHES);
        assert!(matches!(detect(49.9), Guess::Likely { .. }));
        assert_eq!(unit(15.45), CMU_UNIT);
        for odd in [0.0, 0.3, 3.0, 9.9, 251.0, f64::NAN] {
            assert_eq!(
                detect(odd),
                Guess::Unknown {
                    metres_per_unit: METRES
                },
                "{odd}"
            );
        }
    }

    #[test]
    fn hips_height_is_above_the_lowest_point() {
        assert_eq!(hips_height(&[]), 0.0);
        assert_eq!(hips_height(&[[0.0, 90.0, 0.0]]), 0.0);
        assert_eq!(
            hips_height(&[[0.0, 90.0, 0.0], [1.0, 180.0, 0.0], [0.0, 5.0, 3.0]]),
            85.0
        );
    }
}
