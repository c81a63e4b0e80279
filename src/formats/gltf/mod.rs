//! glTF 2.0 (`.gltf`, `.glb`): the lossless document layer and `EXT_skeleton_humanoid`.
//!
//! The document layer, one job per module:
//!
//! - [`json`]: the serde model of the JSON (key order, number literals and unknown properties
//!   survive a round trip; [`json::Ordered`] keeps the key order);
//! - [`glb`]: the binary container;
//! - [`uri`]: `data:` URIs and external files, kept inside the input's folder (the shared
//!   [`crate::formats::uri`], re-exported here);
//! - [`document`]: [`Document`], the JSON plus the bytes of every buffer, read from a
//!   memory-mapped file and written as GLB or `.gltf` (writers in `save.rs`);
//! - [`validate`]: the validation pass (every problem with its JSON pointer);
//! - [`accessor`]: accessor decoding;
//! - [`compression`]: the geometry compression extensions (one list).
//!
//! On top of it, the bridge to the canonical model:
//!
//! - [`ext_skeleton_humanoid`]: the extension's JSON (skeletons, channel targets, deltas);
//! - [`humanoid`]: a document read into an [`Asset`](crate::Asset) (joints, bone maps, clips);
//! - [`build`]: a new document built from the canonical model (the mannequin, later writers);
//! - [`meshes`]: the document's meshes in the canonical model, at the rest pose.
//! - [`bind_meshes`]: the meshes as the file binds them (its positions, inverse bind matrices
//!   and up to eight influences): what the preview draws.
//!
//! ```no_run
//! use humanoid::formats::gltf::{accessor, json::Index, Document};
//! # fn main() -> Result<(), humanoid::Error> {
//! let doc = Document::open("character.glb")?;
//! let times = accessor::read_f32(&doc, Index::new(0))?;
//! doc.write_glb("copy.glb".as_ref(), &[])?;
//! # Ok(()) }
//! ```

pub mod accessor;
pub mod bind_meshes;
pub mod build;
pub mod compression;
pub mod document;
pub mod ext_skeleton_humanoid;
pub mod glb;
pub mod humanoid;
pub mod json;
pub mod khr_character;
pub mod khr_skeleton_bone;
pub mod meshes;
mod morph;
mod ordered;
pub mod rest;
mod save;
pub mod toon;
pub use super::uri;
pub mod validate;
pub mod view;
pub mod virtual_transform;

pub use document::{Bytes, Container, Document, Source};
pub use humanoid::{format_of, read_asset};
pub use save::Written;
