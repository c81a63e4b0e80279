//! The gaze: yaw and pitch from a look-at rotation, and the eye rotations they make, as VRM
//! and three-vrm define them (`VRMLookAt.EULER_ORDER = "YXZ"`, `VRMLookAtBoneApplier`).
//!
//! - A look-at rotation (VRMA's lookAt node) becomes yaw (about Y) and pitch (about X) by an
//!   intrinsic Y-X-Z Euler decomposition, in degrees.
//! - Each eye's rotation in model axes is `E = R_y(yaw') · R_x(pitch')`, the angles passed
//!   through the model's range maps: the left eye uses the horizontal *inner* map for
//!   negative yaw and the *outer* one for positive yaw, the right eye the other way round;
//!   negative pitch uses the vertical *down* map, positive the *up* map.
//! - The eye joint's local rotation is `P⁻¹ · E · P · L_rest`, `P` the world rest rotation of
//!   its parent (three-vrm's normalized-to-raw rule).
//!
//! ```
//! use glam::{EulerRot, Quat};
//! use humanoid::pose::look_at::yaw_pitch;
//! let q = Quat::from_euler(EulerRot::YXZ, 30f32.to_radians(), -10f32.to_radians(), 0.0);
//! let (yaw, pitch) = yaw_pitch(q);
//! assert!((yaw - 30.0).abs() < 1e-4 && (pitch + 10.0).abs() < 1e-4);
//! ```

use glam::{EulerRot, Quat};

use crate::model::face::{LookAt, RangeMap};

/// The smallest `inputMaxValue` three-vrm accepts (smaller ones are raised to it).
pub const INPUT_MAX_MINIMUM: f32 = 0.01;

/// Yaw and pitch in degrees of a look-at rotation (intrinsic Y-X-Z Euler angles).
pub fn yaw_pitch(rotation: Quat) -> (f32, f32) {
    let (yaw, pitch, _roll) = rotation.normalize().to_euler(EulerRot::YXZ);
    (yaw.to_degrees(), pitch.to_degrees())
}

/// three-vrm's range map: `outputScale · saturate(angle / inputMaxValue)`.
fn map(range: Option<RangeMap>, default_scale: f32, angle: f32) -> f32 {
    let range = range.unwrap_or(RangeMap {
        input_max: 90.0,
        output_scale: default_scale,
    });
    let max = range.input_max.max(INPUT_MAX_MINIMUM);
    range.output_scale * (angle / max).clamp(0.0, 1.0)
}

/// The rotations (model axes) of the left and right eye for a gaze, bone type.
pub fn eye_rotations(look: &LookAt, yaw: f32, pitch: f32) -> (Quat, Quat) {
    let [inner, outer, down, up] = look.ranges;
    let x = if pitch < 0.0 {
        -map(down, 10.0, -pitch)
    } else {
        map(up, 10.0, pitch)
    };
    let left_y = if yaw < 0.0 {
        -map(inner, 10.0, -yaw)
    } else {
        map(outer, 10.0, yaw)
    };
    let right_y = if yaw < 0.0 {
        -map(outer, 10.0, -yaw)
    } else {
        map(inner, 10.0, yaw)
    };
    let euler = |y: f32| Quat::from_euler(EulerRot::YXZ, y.to_radians(), x.to_radians(), 0.0);
    (euler(left_y), euler(right_y))
}

/// The look expression weights for a gaze, expression type: (lookUp, lookDown, lookLeft,
/// lookRight), as three-vrm's `VRMLookAtExpressionApplier` sets them.
pub fn look_weights(look: &LookAt, yaw: f32, pitch: f32) -> [f32; 4] {
    let [_, outer, down, up] = look.ranges;
    let (look_up, look_down) = if pitch < 0.0 {
        (map(up, 1.0, -pitch), 0.0)
    } else {
        (0.0, map(down, 1.0, pitch))
    };
    let (look_left, look_right) = if yaw < 0.0 {
        (0.0, map(outer, 1.0, -yaw))
    } else {
        (map(outer, 1.0, yaw), 0.0)
    };
    [look_up, look_down, look_left, look_right]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_maps_saturate() {
        let look = LookAt {
            ranges: [Some(RangeMap {
                input_max: 90.0,
                output_scale: 10.0,
            }); 4],
            ..LookAt::default()
        };
        // 45° of yaw looks 5° to the left with both eyes (inner/outer maps are equal here).
        let (l, r) = eye_rotations(&look, 45.0, 0.0);
        let expected = Quat::from_rotation_y(5f32.to_radians());
        assert!(l.dot(expected).abs() > 1.0 - 1e-6 && r.dot(expected).abs() > 1.0 - 1e-6);
        // Past the input maximum the output stays at the scale.
        let (l, _) = eye_rotations(&look, 180.0, 0.0);
        assert!(l.dot(Quat::from_rotation_y(10f32.to_radians())).abs() > 1.0 - 1e-6);
        assert_eq!(look_weights(&look, 0.0, 45.0), [0.0, 5.0, 0.0, 0.0]);
    }
}
