//! Files in and out, within bounds: every reader opens its input through [`input`] (regular
//! files only, never more bytes than the [`Limits`] allow, whatever size the file reports) and
//! every writer writes through [`output`] (a temporary file renamed into place; only regular
//! files are ever replaced). The limits, and why each number is what it is, are in
//! `docs/limits.md`.
//!
//! ```
//! use humanoid::io::{input, Limits};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("walk.bvh");
//! std::fs::write(&path, "HIERARCHY\n")?;
//! let text = input::read_text(&path, Limits::get().text_bytes, "a BVH file")?;
//! assert_eq!(text, "HIERARCHY\n");
//! // A folder is refused before anything is read.
//! assert!(input::read_text(dir.path(), 1024, "a BVH file").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod input;
pub mod limits;
pub mod output;

pub use limits::Limits;
