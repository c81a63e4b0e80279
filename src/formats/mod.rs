//! Format adapters. Each reads into and writes out of the canonical model and never imports
//! another adapter (the one exception: VRM builds on the glTF document layer).
//!
//! [`Format`] (defined in [`crate::model::format`], re-exported here) is the registry: the names `--to` accepts, how an output extension picks a
//! format, and whether an adapter exists yet. [`uri`] is shared by the adapters that read
//! files a document refers to (glTF buffers and images, H-Anim textures): it is no adapter.

pub mod bvh;
pub mod fbx;
pub mod gltf;
pub mod godot;
pub mod hanim;
pub mod uri;
pub mod vrm;

pub use crate::model::format::Format;

/// A text position as the readers report it (the leaf [`crate::math::text`] knows no errors).
impl crate::math::text::Position {
    /// The position as an error location.
    pub fn location(self) -> crate::error::Location {
        crate::error::Location::LineColumn {
            line: self.line,
            column: self.column,
        }
    }

    /// An [`crate::error::Error::Invalid`] at this position of `path`.
    pub fn error(self, path: &std::path::Path, message: impl Into<String>) -> crate::error::Error {
        crate::error::Error::invalid(path, self.location(), message)
    }
}
