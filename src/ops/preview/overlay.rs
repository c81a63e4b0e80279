//! The overlay drawn over the character, in pixels: the skeleton (each bone a line from a
//! joint to the nearest drawn ancestor, coloured by body part, unmapped joints grey; each
//! joint a dot), the sockets as small axes (x red, y green, z blue), and, for the CPU
//! renderer, the ground grid. The GPU and CPU renderers draw the same [`Overlay`].

use glam::{Mat4, Vec2, Vec3};

use super::camera::Camera;
use super::scene::{Character, Pose};
use crate::math::num::saturating_i32;
use crate::model::HumanBone;

/// An sRGB colour with alpha.
pub type Rgba = [u8; 4];

/// The colour of a joint dot of a humanoid bone.
pub const JOINT_COLOR: Rgba = [255, 255, 255, 255];
/// The colour of joints and bones that no humanoid bone maps.
pub const UNMAPPED_COLOR: Rgba = [150, 150, 150, 255];
/// The ground grid's lines in the CPU renderer.
pub const GRID_COLOR: Rgba = [112, 116, 124, 255];

/// A line in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    /// One end.
    pub a: Vec2,
    /// The other end.
    pub b: Vec2,
    /// Width in pixels.
    pub width: f32,
    /// Colour.
    pub color: Rgba,
}

/// A filled circle in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dot {
    /// Centre.
    pub at: Vec2,
    /// Radius in pixels.
    pub radius: f32,
    /// Colour.
    pub color: Rgba,
}

/// What is drawn over the picture, in order: lines, then dots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlay {
    /// Bones, socket axes (and grid lines).
    pub lines: Vec<Line>,
    /// Joints.
    pub dots: Vec<Dot>,
}

/// The body part a humanoid bone belongs to, as a colour.
pub fn bone_color(bone: HumanBone) -> Rgba {
    use HumanBone as B;
    let finger = bone
        .ancestors()
        .any(|a| matches!(a, B::LeftHand | B::RightHand));
    match bone {
        B::Hips | B::Spine | B::Chest | B::UpperChest | B::Neck => [240, 196, 40, 255],
        B::Head | B::LeftEye | B::RightEye | B::Jaw => [255, 128, 32, 255],
        _ if finger && bone.is_left() => [150, 235, 120, 255],
        _ if finger => [255, 150, 170, 255],
        B::LeftShoulder | B::LeftUpperArm | B::LeftLowerArm | B::LeftHand => [60, 200, 80, 255],
        B::RightShoulder | B::RightUpperArm | B::RightLowerArm | B::RightHand => [230, 56, 56, 255],
        _ if bone.is_left() => [64, 128, 255, 255],
        _ => [176, 80, 232, 255],
    }
}

/// Sizes of the overlay for a picture of this many pixels across.
fn scale(camera: &Camera) -> f32 {
    (camera.width.min(camera.height) as f32 / 256.0).max(0.5)
}

/// The skeleton and sockets of `character` in `pose`, seen by `camera`.
pub fn skeleton(character: &Character, pose: &Pose, camera: &Camera, sockets: bool) -> Overlay {
    let s = scale(camera);
    let bones = character.bones();
    let skeleton = &character.asset.skeleton;
    let mut drawn = vec![false; skeleton.len()];
    for j in &character.overlay_joints {
        if let Some(slot) = drawn.get_mut(j.index()) {
            *slot = true;
        }
    }
    let mut overlay = Overlay::default();
    for &joint in &character.overlay_joints {
        let Some(at) = camera.project(pose.position(joint)) else {
            continue;
        };
        let bone = bones.bone_of(joint);
        let parent = skeleton
            .ancestors(joint)
            .find(|a| drawn.get(a.index()).copied().unwrap_or(false));
        if let Some(from) = parent.and_then(|p| camera.project(pose.position(p))) {
            overlay.lines.push(Line {
                a: from,
                b: at,
                width: 2.0 * s,
                color: bone.map_or(UNMAPPED_COLOR, bone_color),
            });
        }
        overlay.dots.push(Dot {
            at,
            radius: 2.5 * s,
            color: if bone.is_some() {
                JOINT_COLOR
            } else {
                UNMAPPED_COLOR
            },
        });
    }
    if sockets {
        let length = character_height(character, pose) * 0.06;
        for world in character.socket_worlds(pose) {
            overlay.lines.extend(axes(&world, length, camera, 1.5 * s));
        }
    }
    overlay
}

/// The character's height in `pose`: the vertical extent of its drawn joints (1 m if flat).
fn character_height(character: &Character, pose: &Pose) -> f32 {
    let ys = character.overlay_joints.iter().map(|&j| pose.position(j).y);
    let (lo, hi) = ys.fold((f32::MAX, f32::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
    if hi > lo {
        hi - lo
    } else {
        1.0
    }
}

/// A socket's axes: three lines from its origin along its x, y and z (not scaled by it).
fn axes(world: &Mat4, length: f32, camera: &Camera, width: f32) -> Vec<Line> {
    let origin = world.w_axis.truncate();
    let Some(a) = camera.project(origin) else {
        return Vec::new();
    };
    let colors = [[235, 40, 40, 255], [40, 210, 40, 255], [50, 90, 255, 255]];
    [world.x_axis, world.y_axis, world.z_axis]
        .iter()
        .zip(colors)
        .filter_map(|(axis, color)| {
            let dir = axis.truncate().normalize_or_zero();
            let b = camera.project(origin + dir * length)?;
            Some(Line { a, b, width, color })
        })
        .collect()
}

/// The ground grid as lines (the CPU renderer's ground): lines every `spacing` metres across
/// the square of half-size `extent` centred below `centre` at height `y`, those in front of
/// the camera.
pub fn grid(camera: &Camera, centre: Vec3, y: f32, extent: f32, spacing: f32) -> Vec<Line> {
    let mut lines = Vec::new();
    let n = saturating_i32(f64::from((extent / spacing).floor()));
    let x0 = (centre.x / spacing).round() * spacing;
    let z0 = (centre.z / spacing).round() * spacing;
    for k in -n..=n {
        let o = k as f32 * spacing;
        for (a, b) in [
            (
                Vec3::new(x0 + o, y, z0 - extent),
                Vec3::new(x0 + o, y, z0 + extent),
            ),
            (
                Vec3::new(x0 - extent, y, z0 + o),
                Vec3::new(x0 + extent, y, z0 + o),
            ),
        ] {
            if let (Some(a), Some(b)) = (camera.project(a), camera.project(b)) {
                lines.push(Line {
                    a,
                    b,
                    width: 1.0,
                    color: GRID_COLOR,
                });
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_parts_have_their_colours() {
        assert_eq!(bone_color(HumanBone::Spine), bone_color(HumanBone::Hips));
        assert_eq!(
            bone_color(HumanBone::LeftUpperArm),
            bone_color(HumanBone::LeftHand)
        );
        assert_ne!(
            bone_color(HumanBone::LeftIndexProximal),
            bone_color(HumanBone::LeftHand)
        );
        assert_ne!(
            bone_color(HumanBone::LeftUpperLeg),
            bone_color(HumanBone::RightUpperLeg)
        );
        assert_eq!(
            bone_color(HumanBone::LeftToes),
            bone_color(HumanBone::LeftUpperLeg)
        );
        assert_ne!(bone_color(HumanBone::Head), JOINT_COLOR);
    }
}
