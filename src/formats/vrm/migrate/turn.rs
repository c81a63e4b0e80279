//! The half turn about +Y, `R = R_y(180°)`: `(x, y, z) → (−x, y, −z)`.
//!
//! Every rule that turns VRM 0.x data to face +Z is written here once, as a per-component sign
//! mask, and everything else applies the masks:
//!
//! - a point or a direction (positions, normals, morph deltas, translations): `R·v`, mask
//!   [`VEC3`];
//! - a quaternion or a tangent with its handedness in `w`: `R·q·R⁻¹` rotates the vector part
//!   and keeps `w`, mask [`VEC4`];
//! - a 4×4 matrix (node matrices, inverse bind matrices): `R·M·R⁻¹`, mask [`MAT4`]. `R` is
//!   `diag(−1, 1, −1, 1)`, so entry (row, column) changes sign when exactly one of row and
//!   column is 0 or 2.
//!
//! Conjugating every node's local transform gives world transforms `R·W·R⁻¹`; a vertex `v`
//! turned to `R·v` then lands at `R·W·v`, the old world position turned. Identity rest
//! rotations stay identity (the VRM 0.x rule) and the scene needs no wrapper node.

use crate::formats::gltf::accessor::ElementType;
use crate::formats::gltf::json::{Float, Node};

/// Which components of a 3-vector change sign.
pub(super) const VEC3: [bool; 3] = [true, false, true];

/// Which components of a quaternion `[x, y, z, w]` (or a tangent `[x, y, z, handedness]`)
/// change sign.
pub(super) const VEC4: [bool; 4] = [true, false, true, false];

/// Which components of a column-major 4×4 matrix change sign under `R·M·R⁻¹`.
pub(super) const MAT4: [bool; 16] = [
    false, true, false, true, // column 0
    true, false, true, false, // column 1
    false, true, false, true, // column 2
    true, false, true, false, // column 3
];

/// What a piece of accessor data is, as far as the turn is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Turn {
    /// `VEC3` points, directions and deltas.
    Vec3,
    /// `VEC4` quaternions and tangents.
    Vec4,
    /// `MAT4` matrices.
    Mat4,
}

impl Turn {
    /// The sign mask of one element.
    pub(super) fn mask(self) -> &'static [bool] {
        match self {
            Turn::Vec3 => &VEC3,
            Turn::Vec4 => &VEC4,
            Turn::Mat4 => &MAT4,
        }
    }

    /// The accessor type this data must have.
    pub(super) fn element(self) -> ElementType {
        match self {
            Turn::Vec3 => ElementType::Vec3,
            Turn::Vec4 => ElementType::Vec4,
            Turn::Mat4 => ElementType::Mat4,
        }
    }
}

/// `-value`, except that a zero stays the number it was (no `-0.0` in the JSON).
pub(super) fn negated(value: &Float) -> Float {
    if value.get() == 0.0 {
        value.clone()
    } else {
        Float::from(-value.get())
    }
}

/// Applies a sign mask to an array of JSON floats.
pub(super) fn apply_mask(values: &mut [Float], mask: &[bool]) {
    for (value, &flip) in values.iter_mut().zip(mask) {
        if flip {
            *value = negated(value);
        }
    }
}

/// Applies a sign mask to flat `f32` data, element by element (`mask.len()` components each).
pub(super) fn apply_mask_f32(values: &mut [f32], mask: &[bool]) {
    if mask.is_empty() {
        return;
    }
    for element in values.chunks_mut(mask.len()) {
        for (value, &flip) in element.iter_mut().zip(mask) {
            if flip {
                *value = -*value;
            }
        }
    }
}

/// Conjugates a node's local transform by `R`: translation `(−x, y, −z)`, rotation
/// `(−x, y, −z, w)`, scale unchanged, matrix `R·M·R⁻¹`.
pub(super) fn turn_node(node: &mut Node) {
    if let Some(translation) = node.translation.as_mut() {
        apply_mask(translation, &VEC3);
    }
    if let Some(rotation) = node.rotation.as_mut() {
        apply_mask(rotation, &VEC4);
    }
    if let Some(matrix) = node.matrix.as_mut() {
        apply_mask(matrix, &MAT4);
    }
}

/// Turns an accessor's `min`/`max` bounds: where a component changes sign, the new minimum is
/// the old maximum negated and the other way round. Returns `false` (and changes nothing) when
/// only one of the two is present: the caller then recomputes them from the data.
pub(super) fn turn_bounds(
    min: &mut Option<Vec<Float>>,
    max: &mut Option<Vec<Float>>,
    mask: &[bool],
) -> bool {
    match (min.as_mut(), max.as_mut()) {
        (None, None) => true,
        (Some(lo), Some(hi)) => {
            for ((lo, hi), &flip) in lo.iter_mut().zip(hi.iter_mut()).zip(mask) {
                if flip {
                    let new_lo = negated(hi);
                    let new_hi = negated(lo);
                    *lo = new_lo;
                    *hi = new_hi;
                }
            }
            true
        }
        _ => false,
    }
}
