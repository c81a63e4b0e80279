//! The canonical humanoid model: plain data and the math that works on it. It knows no file
//! format.

mod bone;
pub mod clip;
pub mod humanoid;
pub mod skeleton;
pub mod validate;

pub use bone::{HumanBone, Profile};
