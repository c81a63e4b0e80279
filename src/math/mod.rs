//! The leaf layer: transforms (translation, rotation, scale), the glTF sampler's interpolation
//! primitives and number formatting. It imports nothing else of the crate; every other layer
//! builds on it.
//!
//! ```
//! use humanoid::math::Trs;
//! use glam::{Quat, Vec3};
//! let t = Trs::from_translation(Vec3::X) * Trs::from_rotation(Quat::from_rotation_y(1.0));
//! assert!((t.transform_point(Vec3::ZERO) - Vec3::X).length() < 1e-6);
//! ```

pub mod color;
pub mod num;
pub mod sample;
pub mod text;
pub mod trs;

pub use sample::{Cursor, Interpolation, KeyPosition, Keyframes, ValueKind};
pub use trs::Trs;
