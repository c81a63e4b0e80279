//! BVH (Biovision hierarchy) motion capture: read into and write out of the canonical model.
//!
//! ## Overview
//!
//! A BVH file is a joint hierarchy (OFFSETs, CHANNELS) and a table of per-frame channel values
//! (positions, Euler angles in degrees). The adapter has one job per module:
//!
//! | module | job |
//! |---|---|
//! | `lexer` | words with line:column |
//! | `parse` | the raw model (joints, channels, motion table), every limit checked first |
//! | [`channel`] | channel names and Euler orders |
//! | [`euler`] | Euler angles ↔ quaternions in f64, continuous across frames |
//! | [`units`] | the file's length unit, guessed from the rest hips height |
//! | `read` | raw model → [`Asset`] + [`BvhLayout`] |
//! | [`layout`] | what the model drops but a writer needs to write the same file back |
//! | `bake` | a canonical rest (rotations, scales) expressed as BVH's rotation-free rest |
//! | `grid` | the writer's frame time: the coarsest grid that reproduces the clip, measured |
//! | `roundtrip` | the written hierarchy read back and mapped: the same humanoid? |
//! | `write` | [`Asset`] + [`Clip`] → BVH text |
//!
//! **Conventions.** The file's space is taken to be glTF's (+Y up, facing +Z), as in every
//! BVH we know. For `CHANNELS … Zrotation Xrotation Yrotation` the local rotation is
//! `Rz · Rx · Ry` (the first listed outermost); a position channel replaces that component of
//! the joint's OFFSET. The model is in metres: the unit is given
//! ([`ReadOptions::scale`], [`WriteOptions::scale`], both the length of one file unit in metres)
//! or, on read, detected ([`units::detect`]) and reported.
//!
//! **Design decision: the layout travels beside the asset.** The canonical model keeps no
//! format details, so [`read_with_layout`] returns a [`BvhLayout`] (channels per joint, End
//! Sites, frame time, unit) next to the [`ReadOutcome`]; [`WriteOptions::like`] hands it to the
//! writer, which then writes the same channels back. [`read`] is the same without the layout.
//!
//! ```
//! use std::path::Path;
//! use humanoid::formats::bvh::{self, EulerOrder, ReadOptions, WriteOptions};
//!
//! let text = "\
//! HIERARCHY
//! ROOT Hips
//! {
//!   OFFSET 0 90 0
//!   CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
//!   JOINT Spine
//!   {
//!     OFFSET 0 10 0
//!     CHANNELS 3 Zrotation Xrotation Yrotation
//!     End Site
//!     {
//!       OFFSET 0 40 0
//!     }
//!   }
//!   JOINT Leg
//!   {
//!     OFFSET 10 0 0
//!     CHANNELS 3 Zrotation Xrotation Yrotation
//!     End Site
//!     {
//!       OFFSET 0 -90 0
//!     }
//!   }
//! }
//! MOTION
//! Frames: 2
//! Frame Time: 0.5
//! 0 90 0 0 0 0 0 0 0 0 0 0
//! 0 90 10 0 0 90 30 0 0 0 0 0
//! ";
//! let outcome = bvh::read(text, Path::new("walk.bvh"), &ReadOptions::default())?;
//! let asset = &outcome.asset;
//! assert_eq!(asset.skeleton.len(), 5); // Hips, Spine, Spine_End, Leg, Leg_End
//! assert!(outcome.diagnostics.contains("BVH_UNITS")); // hips 90 above the foot: centimetres
//! let clip = &asset.clips[0];
//! assert_eq!((clip.name.as_str(), clip.duration()), ("walk", 0.5));
//!
//! let options = WriteOptions { order: EulerOrder::Xyz, ..WriteOptions::default() };
//! let written = bvh::write(asset, clip, &options)?;
//! assert!(written.contains("CHANNELS 3 Xrotation Yrotation Zrotation"));
//! let again = bvh::read(&written, Path::new("walk.bvh"), &ReadOptions::default())?;
//! assert_eq!(again.asset.skeleton.names(), asset.skeleton.names());
//! # Ok::<(), humanoid::Error>(())
//! ```

pub mod channel;
pub mod euler;
pub mod layout;
pub mod units;

mod bake;
mod grid;
mod lexer;
mod parse;
mod read;
mod roundtrip;
mod write;

use std::path::Path;

pub use channel::{Axis, Channel, EulerOrder, UnknownChannel, UnknownOrder};
pub use layout::{BvhLayout, JointLayout};

use crate::error::{Diagnostics, Error};
use crate::model::asset::{Asset, ReadOutcome};
use crate::model::clip::Clip;
use crate::model::skeleton::MAX_JOINTS;

/// One file unit is a metre.
pub const METRES: f64 = 1.0;
/// One file unit is a centimetre (most BVH files; the writer's default).
pub const CENTIMETRES: f64 = 0.01;
/// One file unit is an inch.
pub const INCHES: f64 = 0.0254;

/// The largest BVH file read by default: 256 MiB.
pub const MAX_FILE_BYTES: usize = 256 << 20;
/// The most motion values (frames × channels) read or written by default: 2²⁵ (256 MiB of f64).
pub const MAX_MOTION_VALUES: usize = 1 << 25;
/// The deepest nesting of joint blocks read or written (ROOT is level 1).
pub const MAX_DEPTH: usize = 256;

/// How to read a BVH file.
///
/// ```
/// use humanoid::formats::bvh::{ReadOptions, CENTIMETRES};
/// let options = ReadOptions { scale: Some(CENTIMETRES), ..ReadOptions::default() };
/// assert_eq!(options.max_bytes, humanoid::formats::bvh::MAX_FILE_BYTES);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReadOptions {
    /// The length of one file unit in metres ([`CENTIMETRES`], [`INCHES`], …); `None` detects
    /// it from the rest hips height ([`units::detect`]).
    pub scale: Option<f64>,
    /// Larger inputs are refused (default [`MAX_FILE_BYTES`], or `HUMANOID_MAX_TEXT_BYTES`).
    pub max_bytes: usize,
    /// Files with more frames × channels are refused before anything is allocated for them
    /// (default [`MAX_MOTION_VALUES`]).
    pub max_values: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            scale: None,
            max_bytes: usize::try_from(crate::io::Limits::get().text_bytes).unwrap_or(usize::MAX),
            max_values: MAX_MOTION_VALUES,
        }
    }
}

/// How to write a BVH file.
///
/// ```
/// use humanoid::formats::bvh::{EulerOrder, WriteOptions, CENTIMETRES};
/// let options = WriteOptions::default();
/// assert_eq!((options.order, options.scale, options.fps), (EulerOrder::Zxy, CENTIMETRES, None));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct WriteOptions {
    /// Frames per second; `None`: the layout's frame time, else the clip's key rate when its
    /// keys lie on a regular grid, else 30.
    pub fps: Option<f64>,
    /// The Euler order of every joint's rotation channels (joints the layout describes keep
    /// theirs). Default ZXY.
    pub order: EulerOrder,
    /// The length of one file unit in metres; default [`CENTIMETRES`].
    pub scale: f64,
    /// When a reader guessing the unit from the rest hips height ([`units::detect`]) would
    /// take `scale` for another unit, write centimetres or metres instead, whichever it reads
    /// right (reported). On by default; off in [`WriteOptions::like`] and for a unit the user
    /// gave.
    pub pick_unit: bool,
    /// Give every non-root joint whose translation animates position channels too (6
    /// channels). Off by default: only joints the clip moves off their rest offset get them.
    pub joint_positions: bool,
    /// The layout of the file the asset was read from, to write its channels back (used only
    /// when it [matches](BvhLayout::matches) the skeleton).
    pub layout: Option<BvhLayout>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            fps: None,
            order: EulerOrder::Zxy,
            scale: CENTIMETRES,
            pick_unit: true,
            joint_positions: false,
            layout: None,
        }
    }
}

impl WriteOptions {
    /// Options that write the file `layout` came from back as it was: its channels, End Sites,
    /// frame time and unit.
    pub fn like(layout: &BvhLayout) -> WriteOptions {
        WriteOptions {
            scale: layout.metres_per_unit(),
            pick_unit: false,
            layout: Some(layout.clone()),
            ..WriteOptions::default()
        }
    }
}

/// BVH text and what was dropped or approximated writing it.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The file's text.
    pub text: String,
    /// What was dropped, approximated or renamed.
    pub diagnostics: Diagnostics,
}

/// Reads BVH text (`file` names it in errors and gives the clip its name).
///
/// # Errors
/// [`Error::Invalid`] with the line and column of the first problem and what was expected:
/// no `MOTION` section, a row with the wrong number of values, an unknown channel, `Frames:`
/// disagreeing with the rows, a value that is not a finite number, nesting deeper than
/// [`MAX_DEPTH`], a frame time that is not positive, text longer than
/// [`ReadOptions::max_bytes`], more than [`ReadOptions::max_values`] values.
/// [`Error::Unsupported`] for a scale that is not finite and positive.
pub fn read(text: &str, file: &Path, options: &ReadOptions) -> Result<ReadOutcome, Error> {
    read_with_layout(text, file, options).map(|(outcome, _)| outcome)
}

/// As [`read`], with the [`BvhLayout`] that writes the same file back.
///
/// # Errors
/// As [`read`].
pub fn read_with_layout(
    text: &str,
    file: &Path,
    options: &ReadOptions,
) -> Result<(ReadOutcome, BvhLayout), Error> {
    if let Some(scale) = options.scale.filter(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(Error::unsupported(format!(
            "BVH scale {scale}: expected the length of one file unit in metres (0.01 for centimetres)"
        )));
    }
    if text.len() > options.max_bytes {
        return Err(too_large(file, text.len(), options.max_bytes));
    }
    // A UTF-8 byte order mark is not part of the first word.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let limits = parse::Limits {
        max_depth: crate::io::Limits::get().depth,
        max_joints: MAX_JOINTS,
        max_values: options.max_values,
    };
    let document = parse::parse(text, file, &limits)?;
    let mut diagnostics = Diagnostics::new();
    let (asset, layout) = read::to_asset(&document, file, options.scale, &mut diagnostics)?;
    Ok((ReadOutcome { asset, diagnostics }, layout))
}

/// Reads a BVH file from disk, refusing one larger than [`ReadOptions::max_bytes`] before
/// reading it.
///
/// # Errors
/// [`Error::Io`] when it cannot be read or is not UTF-8; as [`read`] otherwise.
pub fn read_asset(path: &Path, options: &ReadOptions) -> Result<ReadOutcome, Error> {
    let text = read_text(path, options.max_bytes)?;
    read(&text, path, options)
}

/// As [`read_asset`], with the [`BvhLayout`].
///
/// # Errors
/// As [`read_asset`].
pub fn read_asset_with_layout(
    path: &Path,
    options: &ReadOptions,
) -> Result<(ReadOutcome, BvhLayout), Error> {
    let text = read_text(path, options.max_bytes)?;
    read_with_layout(&text, path, options)
}

fn read_text(path: &Path, max_bytes: usize) -> Result<String, Error> {
    let limit = u64::try_from(max_bytes).unwrap_or(u64::MAX);
    crate::io::input::read_text(path, limit, "a BVH file")
}

fn too_large(file: &Path, bytes: usize, max: usize) -> Error {
    let size = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    crate::io::input::too_large(file, size(bytes), size(max), "a BVH file")
}

/// Writes `clip` on `asset`'s skeleton as BVH text. The diagnostics (dropped tracks, renamed
/// joints, …) are discarded: use [`write_with_diagnostics`] to keep them.
///
/// # Errors
/// As [`write_with_diagnostics`].
pub fn write(asset: &Asset, clip: &Clip, options: &WriteOptions) -> Result<String, Error> {
    write_with_diagnostics(asset, clip, options).map(|written| written.text)
}

/// Writes `clip` on `asset`'s skeleton as BVH text, with what was dropped or approximated
/// (the rules are in the `write` module docs: nodes above the skeleton folded, every named
/// joint a JOINT and every leaf with an End Site, 6 channels on the root and 3 on other joints
/// unless the clip moves them, rest rotations and scales baked so every joint's world position
/// is kept, a frame grid measured to reproduce the clip, a unit that reads back, the humanoid
/// checked to read back).
///
/// ```
/// use glam::{Quat, Vec3};
/// use humanoid::asset::Asset;
/// use humanoid::formats::{bvh, Format};
/// use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
/// use humanoid::model::skeleton::{RawJoint, Skeleton};
/// use humanoid::pose::{Interpolation, Trs};
///
/// let raw = vec![
///     RawJoint { name: "hips".into(), parent: None, rest: Trs::from_translation(Vec3::Y) },
///     RawJoint { name: "head".into(), parent: Some(0), rest: Trs::from_translation(Vec3::Y) },
/// ];
/// let (skeleton, ids) = Skeleton::from_raw(raw)?;
/// let asset = Asset::new(Format::Glb, skeleton, vec![0, 1]);
/// let mut clip = Clip::new("bow");
/// let bow = Quat::from_rotation_x(0.5).to_array();
/// clip.add_track(Track::new(TrackTarget::Joint(ids[0]), Property::Rotation, Interpolation::Linear,
///     vec![0.0, 1.0], [Quat::IDENTITY.to_array(), bow].concat())?);
/// let written = bvh::write_with_diagnostics(&asset, &clip, &bvh::WriteOptions::default())?;
/// assert!(written.text.starts_with("HIERARCHY\nROOT hips\n"));
/// assert!(written.text.contains("Frames: 2\nFrame Time: 1\n"));
/// // "head" is a leaf: a JOINT of its own name, with an End Site.
/// assert!(written.text.contains("JOINT head\n"));
/// assert!(written.text.contains("End Site\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`Error::Unsupported`] for options out of range (scale or fps not finite and positive), an
/// empty skeleton, joints nested deeper than [`MAX_DEPTH`], more than [`MAX_MOTION_VALUES`]
/// values, or a humanoid whose bones would read back as other joints under any naming.
pub fn write_with_diagnostics(
    asset: &Asset,
    clip: &Clip,
    options: &WriteOptions,
) -> Result<Written, Error> {
    let mut diagnostics = Diagnostics::new();
    let text = write::write(asset, clip, options, &mut diagnostics)?;
    Ok(Written { text, diagnostics })
}
