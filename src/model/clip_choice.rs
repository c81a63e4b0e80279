//! Which clip a command takes: one policy for `convert` (a single-clip output), `retarget`,
//! `pose --anim` and `preview`.
//!
//! - `--clip NAME`: that clip; a name the file has no clip of is an error listing the clips.
//! - No name and one clip: that clip.
//! - No name and several clips: the first that [moves], with a note naming it and the
//!   flag that picks another (`CLIP_CHOSEN`); when none moves, the first. H-Anim files often
//!   start with a still pose (`nancy_h-anim.wrl`'s 0.01 s "Stand"), which makes a poor default.
//! - No clip at all: an error saying what needed one.
//!
//! ```
//! use std::path::Path;
//! use humanoid::asset::Asset;
//! use humanoid::clip_choice::choose;
//! use humanoid::formats::Format;
//! use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
//! use humanoid::model::skeleton::{RawJoint, Skeleton};
//! use humanoid::pose::{Interpolation, Trs};
//!
//! let raw = vec![RawJoint { name: "hips".into(), parent: None, rest: Trs::IDENTITY }];
//! let (skeleton, ids) = Skeleton::from_raw(raw)?;
//! let mut asset = Asset::new(Format::X3d, skeleton, vec![0]);
//! let track = |times: Vec<f32>, xs: &[f32]| {
//!     let values = xs.iter().flat_map(|x| [*x, 0.0, 0.0]).collect();
//!     Track::new(TrackTarget::Joint(ids[0]), Property::Translation, Interpolation::Linear, times, values)
//! };
//! let mut stand = Clip::new("Stand");
//! stand.add_track(track(vec![0.0, 0.01], &[0.0, 0.0])?);
//! let mut walk = Clip::new("Walk");
//! walk.add_track(track(vec![0.0, 1.0], &[0.0, 1.0])?);
//! asset.clips = vec![stand, walk];
//!
//! let chosen = choose(&asset, None, Path::new("nancy.wrl"))?;
//! assert_eq!(chosen.clip.name, "Walk");
//! let mut diagnostics = humanoid::Diagnostics::new();
//! chosen.report(&mut diagnostics);
//! assert!(diagnostics.contains("CLIP_CHOSEN"));
//! assert!(diagnostics.iter().any(|d| d.message.contains("--clip")));
//! assert_eq!(choose(&asset, Some("Stand"), Path::new("nancy.wrl"))?.index, 0);
//! let unknown = choose(&asset, Some("Run"), Path::new("nancy.wrl")).unwrap_err().to_string();
//! assert!(unknown.contains("Stand, Walk"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;

use crate::error::{Diagnostics, Error};
use crate::model::asset::Asset;
use crate::model::clip::{Clip, Track};

/// A clip that lasts less than this (seconds, one frame at 24 fps) holds a pose, not a motion.
pub const MIN_MOTION_SECONDS: f32 = 1.0 / 24.0;

/// Two key values closer than this count as equal.
const STILL: f32 = 1e-6;

/// The clip a command takes, and what to tell the user about the choice.
#[derive(Debug, Clone, Copy)]
pub struct ChosenClip<'a> {
    /// Its index in [`Asset::clips`].
    pub index: usize,
    /// The clip.
    pub clip: &'a Clip,
    /// Why this one, when the file has several and no name was given.
    pub note: Option<&'static str>,
    /// The file's clip count.
    pub of: usize,
}

impl ChosenClip<'_> {
    /// Adds the note (`CLIP_CHOSEN`, info) naming the clip taken and the flag that picks
    /// another, when the file has several clips and none was named.
    pub fn report(&self, diagnostics: &mut Diagnostics) {
        if let Some(why) = self.note {
            diagnostics.info(
                "CLIP_CHOSEN",
                format!("clip {:?}", self.clip.name),
                format!(
                    "{} clips: {:?} taken ({why}); choose another with --clip NAME",
                    self.of, self.clip.name
                ),
            );
        }
    }
}

/// The clip `name` of `asset`, or without a name the one the policy takes (see the module
/// docs). `file` names the asset in errors.
///
/// # Errors
/// No clip has that name (the message lists the clips), or the asset has no clip.
pub fn choose<'a>(
    asset: &'a Asset,
    name: Option<&str>,
    file: &Path,
) -> Result<ChosenClip<'a>, Error> {
    let clips = &asset.clips;
    let of = clips.len();
    let found = match name {
        Some(name) => clips
            .iter()
            .position(|c| c.name == name)
            .map(|index| (index, None)),
        None if of > 1 => Some(match clips.iter().position(moves) {
            Some(index) => (index, Some("the first that moves")),
            None => (0, Some("none moves: the first")),
        }),
        None => (of == 1).then_some((0, None)),
    };
    match found.and_then(|(index, note)| Some((index, clips.get(index)?, note))) {
        Some((index, clip, note)) => Ok(ChosenClip {
            index,
            clip,
            note,
            of,
        }),
        None => Err(not_found(asset, name, file)),
    }
}

/// The error for a clip that is not there, listing the clips the file has.
fn not_found(asset: &Asset, name: Option<&str>, file: &Path) -> Error {
    let names: Vec<&str> = asset.clips.iter().map(|c| c.name.as_str()).collect();
    let listed = if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    };
    Error::unsupported(match name {
        Some(name) => format!(
            "{}: no clip named {name:?} (clips: {listed}); pass one of them to --clip",
            file.display()
        ),
        None => format!("{}: the file has no clip (clips: none)", file.display()),
    })
}

/// Whether a clip moves: it lasts at least [`MIN_MOTION_SECONDS`] and some track's keys
/// change value.
pub fn moves(clip: &Clip) -> bool {
    lasts(clip) >= MIN_MOTION_SECONDS && clip.tracks().iter().any(changes)
}

/// Seconds from a clip's first key to its last.
fn lasts(clip: &Clip) -> f32 {
    let start = clip
        .tracks()
        .iter()
        .map(Track::start_time)
        .fold(f32::INFINITY, f32::min);
    clip.duration() - start.min(clip.duration())
}

/// Warns (`CLIP_STATIC`) of each clip that lasts at least [`MIN_MOTION_SECONDS`] and moves
/// nothing: every track keeps its first value. A clip shorter than that is a pose, as meant.
///
/// ```
/// use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
/// use humanoid::model::clip_choice::report_static;
/// use humanoid::model::HumanBone;
/// use humanoid::math::sample::Interpolation;
/// use humanoid::Diagnostics;
///
/// let held = Track::new(
///     TrackTarget::Bone(HumanBone::Hips), Property::Translation, Interpolation::Linear,
///     vec![0.0, 4.9], vec![0.0, 1.0, 0.0, 0.0, 1.0, 0.0],
/// )?;
/// let mut clip = Clip::new("Take 001");
/// clip.add_track(held);
/// let mut diagnostics = Diagnostics::new();
/// report_static(std::slice::from_ref(&clip), &mut diagnostics);
/// assert!(diagnostics.iter().any(|d| d.code == "CLIP_STATIC"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn report_static(clips: &[Clip], diagnostics: &mut Diagnostics) {
    for clip in clips {
        let lasts = lasts(clip);
        if lasts >= MIN_MOTION_SECONDS && !clip.tracks().iter().any(changes) {
            diagnostics.warn(
                "CLIP_STATIC",
                format!("clip {:?}", clip.name),
                format!(
                    "the clip lasts {lasts:.2} s and moves nothing: each of its {} tracks keeps one value, so it plays as one held pose; check the export (the wrong take, or keys baked away)",
                    clip.tracks().len()
                ),
            );
        }
    }
}

/// Whether some key of `track` differs from its first.
fn changes(track: &Track) -> bool {
    let Some(first) = track.value(0) else {
        return false;
    };
    (1..track.key_count()).any(|k| {
        track
            .value(k)
            .is_some_and(|v| v.iter().zip(first).any(|(a, b)| (a - b).abs() > STILL))
    })
}
