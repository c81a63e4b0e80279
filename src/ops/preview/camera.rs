//! The camera: framed automatically from the character's bounds, looking from the front, the
//! side or three-quarters, a little from above.
//!
//! Clip space is wgpu's (x right, y up, z from 0 at the near plane to 1 at the far plane);
//! pixels count from the top-left corner, pixel `(i, j)` covering `[i, i+1) × [j, j+1)`.
//!
//! ```
//! use glam::Vec3;
//! use humanoid::asset::Facing;
//! use humanoid::preview::{Bounds, Camera, View};
//!
//! let bounds = Bounds { min: Vec3::new(-0.5, 0.0, -0.2), max: Vec3::new(0.5, 1.8, 0.2) };
//! let camera = Camera::frame(&bounds, View::Front, Facing::PlusZ, 256, 256);
//! // The figure fills 90 % of the picture's height, head above feet (smaller y).
//! let top = camera.project(Vec3::new(0.0, 1.8, 0.2)).unwrap();
//! let bottom = camera.project(Vec3::new(0.0, 0.0, 0.2)).unwrap();
//! assert!(top.y < bottom.y && bottom.y - top.y > 0.85 * 256.0 && bottom.y - top.y <= 0.9 * 256.0 + 1e-3);
//! ```

use glam::{Mat4, Vec2, Vec3, Vec4};

use crate::model::asset::Facing;

/// Where the camera looks from, relative to the way the character faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// Facing the character.
    #[default]
    Front,
    /// From the character's left (it faces screen left).
    Side,
    /// Between front and left, 45° round.
    ThreeQuarter,
}

impl std::str::FromStr for View {
    type Err = String;

    fn from_str(s: &str) -> Result<View, String> {
        match s {
            "front" => Ok(View::Front),
            "side" => Ok(View::Side),
            "three-quarter" | "threequarter" | "3/4" => Ok(View::ThreeQuarter),
            other => Err(format!(
                "unknown view {other:?}: expected front, side or three-quarter"
            )),
        }
    }
}

/// An axis-aligned box in world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// The smallest corner.
    pub min: Vec3,
    /// The largest corner.
    pub max: Vec3,
}

impl Bounds {
    /// The box around `points` (`None` when there are none or none is finite).
    pub fn of(points: impl IntoIterator<Item = Vec3>) -> Option<Bounds> {
        let mut bounds: Option<Bounds> = None;
        for p in points.into_iter().filter(|p| p.is_finite()) {
            bounds = Some(match bounds {
                None => Bounds { min: p, max: p },
                Some(b) => Bounds {
                    min: b.min.min(p),
                    max: b.max.max(p),
                },
            });
        }
        bounds
    }

    /// The box holding both.
    #[must_use]
    pub fn union(&self, other: &Bounds) -> Bounds {
        Bounds {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// The centre.
    pub fn centre(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Half the diagonal (at least 1 mm, so that a single point still frames).
    pub fn radius(&self) -> f32 {
        ((self.max - self.min).length() * 0.5).max(1e-3)
    }
}

/// Vertical field of view.
const FOV_Y: f32 = 30.0 * std::f32::consts::PI / 180.0;
/// How far above the horizontal the camera looks down.
const ELEVATION: f32 = 12.0 * std::f32::consts::PI / 180.0;

/// A perspective camera and the picture size it renders.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// World to view (right-handed, looking down −Z).
    pub view: Mat4,
    /// View to clip (wgpu's depth range 0..1).
    pub proj: Mat4,
    /// The camera's position.
    pub eye: Vec3,
    /// Picture width in pixels.
    pub width: u32,
    /// Picture height in pixels.
    pub height: u32,
}

impl Camera {
    /// A camera that shows all of `bounds` from `view`, for a character facing `facing`.
    pub fn frame(bounds: &Bounds, view: View, facing: Facing, width: u32, height: u32) -> Camera {
        let front = match facing {
            Facing::PlusZ => Vec3::Z,
            Facing::MinusZ => Vec3::NEG_Z,
        };
        // The character's left: +X when it faces +Z.
        let left = Vec3::Y.cross(front);
        let flat = match view {
            View::Front => front,
            View::Side => left,
            View::ThreeQuarter => (front + left).normalize(),
        };
        let direction = flat * ELEVATION.cos() + Vec3::Y * ELEVATION.sin();
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let fov_x = 2.0 * ((FOV_Y * 0.5).tan() * aspect).atan();
        let half = FOV_Y.min(fov_x) * 0.5;
        let radius = bounds.radius();
        let distance = radius / half.sin() * 1.02;
        let centre = bounds.centre();
        let eye = centre + direction * distance;
        let near = (distance - radius * 1.5).max(distance * 0.01);
        let far = distance + radius * 6.0;
        let view = look_at(eye, centre, Vec3::Y);
        let proj = perspective(FOV_Y, aspect, near, far);
        Camera {
            view,
            proj: fit(proj * view, bounds) * proj,
            eye,
            width,
            height,
        }
    }

    /// World to clip.
    pub fn view_proj(&self) -> Mat4 {
        self.proj * self.view
    }

    /// Where a world point lands in the picture, in pixels from the top-left corner (`None`
    /// behind the camera).
    pub fn project(&self, p: Vec3) -> Option<Vec2> {
        let clip = self.view_proj() * Vec4::new(p.x, p.y, p.z, 1.0);
        if clip.w <= 1e-6 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        Some(Vec2::new(
            (ndc.x * 0.5 + 0.5) * self.width as f32,
            (0.5 - ndc.y * 0.5) * self.height as f32,
        ))
    }
}

/// How much of the picture the framed box fills across its larger extent.
const FILL: f32 = 0.9;

/// A zoom and shift in clip space that make the box's projection fill [`FILL`] of the picture
/// across its larger extent, centred (the sphere around the box, which frames it from any
/// side, leaves a tall figure small).
fn fit(view_proj: Mat4, bounds: &Bounds) -> Mat4 {
    let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
    for i in 0..8 {
        let corner = Vec3::new(
            if i & 1 == 0 {
                bounds.min.x
            } else {
                bounds.max.x
            },
            if i & 2 == 0 {
                bounds.min.y
            } else {
                bounds.max.y
            },
            if i & 4 == 0 {
                bounds.min.z
            } else {
                bounds.max.z
            },
        );
        let clip = view_proj * corner.extend(1.0);
        if clip.w <= 1e-6 {
            return Mat4::IDENTITY;
        }
        let ndc = Vec2::new(clip.x, clip.y) / clip.w;
        lo = lo.min(ndc);
        hi = hi.max(ndc);
    }
    let half = ((hi - lo) * 0.5).max_element();
    if !(half > 1e-6 && half.is_finite()) {
        return Mat4::IDENTITY;
    }
    let scale = FILL / half;
    let centre = (lo + hi) * 0.5;
    Mat4::from_cols(
        Vec4::new(scale, 0.0, 0.0, 0.0),
        Vec4::new(0.0, scale, 0.0, 0.0),
        Vec4::new(0.0, 0.0, 1.0, 0.0),
        Vec4::new(-scale * centre.x, -scale * centre.y, 0.0, 1.0),
    )
}

/// A right-handed view matrix: the camera at `eye` looking at `target`, `up` roughly up.
pub fn look_at(eye: Vec3, target: Vec3, up: Vec3) -> Mat4 {
    let f = (target - eye).normalize_or(Vec3::NEG_Z);
    let s = f.cross(up).normalize_or(Vec3::X);
    let u = s.cross(f);
    Mat4::from_cols(
        Vec4::new(s.x, u.x, -f.x, 0.0),
        Vec4::new(s.y, u.y, -f.y, 0.0),
        Vec4::new(s.z, u.z, -f.z, 0.0),
        Vec4::new(-s.dot(eye), -u.dot(eye), f.dot(eye), 1.0),
    )
}

/// A right-handed perspective projection to depth 0 (near) .. 1 (far).
pub fn perspective(fov_y: f32, aspect: f32, near: f32, far: f32) -> Mat4 {
    let f = 1.0 / (fov_y * 0.5).tan();
    let range = near - far;
    Mat4::from_cols(
        Vec4::new(f / aspect, 0.0, 0.0, 0.0),
        Vec4::new(0.0, f, 0.0, 0.0),
        Vec4::new(0.0, 0.0, far / range, -1.0),
        Vec4::new(0.0, 0.0, near * far / range, 0.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perspective_maps_near_to_0_and_far_to_1() {
        let p = perspective(1.0, 1.0, 2.0, 10.0);
        let near = p * Vec4::new(0.0, 0.0, -2.0, 1.0);
        let far = p * Vec4::new(0.0, 0.0, -10.0, 1.0);
        assert!((near.z / near.w).abs() < 1e-6);
        assert!((far.z / far.w - 1.0).abs() < 1e-6);
    }

    #[test]
    fn side_view_shows_the_front_to_the_left() {
        let b = Bounds {
            min: Vec3::splat(-1.0),
            max: Vec3::splat(1.0),
        };
        let camera = Camera::frame(&b, View::Side, Facing::PlusZ, 100, 100);
        let ahead = camera.project(Vec3::new(0.0, 0.0, 1.0)).unwrap();
        assert!(ahead.x < 50.0);
        // Seen from the front, the character's left (+X) is on screen right.
        let camera = Camera::frame(&b, View::Front, Facing::PlusZ, 100, 100);
        assert!(camera.project(Vec3::X).unwrap().x > 50.0);
        let camera = Camera::frame(&b, View::Front, Facing::MinusZ, 100, 100);
        assert!(camera.project(Vec3::NEG_X).unwrap().x > 50.0);
    }

    #[test]
    fn the_whole_box_is_in_the_picture() {
        let b = Bounds {
            min: Vec3::new(-0.3, 0.0, -0.1),
            max: Vec3::new(0.3, 1.8, 0.2),
        };
        for view in [View::Front, View::Side, View::ThreeQuarter] {
            let camera = Camera::frame(&b, view, Facing::PlusZ, 200, 120);
            for i in 0..8 {
                let corner = Vec3::new(
                    if i & 1 == 0 { b.min.x } else { b.max.x },
                    if i & 2 == 0 { b.min.y } else { b.max.y },
                    if i & 4 == 0 { b.min.z } else { b.max.z },
                );
                let p = camera.project(corner).unwrap();
                assert!(
                    p.x >= 0.0 && p.x <= 200.0 && p.y >= 0.0 && p.y <= 120.0,
                    "{view:?} {p}"
                );
            }
        }
    }
}
