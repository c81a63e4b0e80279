//! Which times a preview draws, and whether it may hold them: the frame planner, apart from
//! the renderer (so it is tested and fuzzed without a GPU or the `preview` feature).
//!
//! ```
//! use humanoid::ops::frame_plan::{frame_times, FrameRequest, Frames};
//! let request = FrameRequest {
//!     animated: true,
//!     duration: Some(2.0),
//!     frames: Some(Frames::Count(4)),
//!     width: 64,
//!     height: 64,
//!     ..FrameRequest::default()
//! };
//! assert_eq!(frame_times(&request)?, [Some(0.0), Some(0.5), Some(1.0), Some(1.5)]);
//! let huge = FrameRequest { frames: Some(Frames::Count(1000)), width: 2048, height: 2048, ..request };
//! assert!(frame_times(&huge).is_err()); // 16 GiB of pictures
//! # Ok::<(), humanoid::Error>(())
//! ```

use crate::error::Error;
use crate::math::num::saturating_u32;

/// How many pictures an animation has.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Frames {
    /// This many, spread evenly over the clip.
    Count(u32),
    /// This many per second of clip.
    Fps(f32),
}

/// The most frames an animation may have.
pub const MAX_FRAMES: u32 = 1000;

/// The most bytes of pictures a preview holds at once (frames × panels × width × height × 4,
/// RGBA): 1 GiB. The picture size and the frame count are bounded apart too; their product is
/// what is allocated (1000 frames of 2048² were 16 GiB).
pub const MAX_HELD_BYTES: u64 = 1 << 30;

/// What a preview asks for.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameRequest {
    /// A GIF or a contact sheet (many pictures), not one PNG.
    pub animated: bool,
    /// A contact sheet (8 pictures unless `frames` says).
    pub sheet: bool,
    /// The clip's duration in seconds; `None` without a clip.
    pub duration: Option<f32>,
    /// The one time a still picture shows (`--time`).
    pub time: Option<f32>,
    /// `--frames` / `--fps`.
    pub frames: Option<Frames>,
    /// Each picture's size in pixels.
    pub width: u32,
    /// Each picture's size in pixels.
    pub height: u32,
    /// Two with `--compare`, else one.
    pub panels: u32,
}

/// The times drawn: one (`time`, or 0 with a clip, or rest) for a still picture; the clip's
/// frames for a GIF or a sheet, refused when they are too many or would hold more than
/// [`MAX_HELD_BYTES`] at once.
///
/// # Errors
/// A frame count outside 1 to [`MAX_FRAMES`], an `--fps` that is not a positive number, or
/// pictures over [`MAX_HELD_BYTES`].
pub fn frame_times(request: &FrameRequest) -> Result<Vec<Option<f32>>, Error> {
    let Some(duration) = request.duration.filter(|_| request.animated) else {
        if request.animated {
            return Ok(vec![None]);
        }
        return Ok(vec![request.time.or(request.duration.map(|_| 0.0))]);
    };
    let duration = if duration.is_finite() {
        duration.max(0.0)
    } else {
        0.0
    };
    let count = match request.frames {
        Some(Frames::Count(n)) => n,
        Some(Frames::Fps(fps)) if fps > 0.0 && fps.is_finite() => saturating_u32(f64::from(
            (duration * fps).ceil().max(1.0).min(MAX_FRAMES as f32),
        )),
        Some(Frames::Fps(fps)) => {
            return Err(Error::unsupported(format!(
                "--fps {fps}: expected a positive number"
            )))
        }
        None if request.sheet => 8,
        None => saturating_u32(f64::from(
            (duration * 15.0).ceil().max(1.0).min(MAX_FRAMES as f32),
        )),
    };
    if count == 0 || count > MAX_FRAMES {
        return Err(Error::unsupported(format!(
            "{count} frames: expected 1 to {MAX_FRAMES}"
        )));
    }
    let panels = u64::from(request.panels.max(1));
    let held = u64::from(count)
        .saturating_mul(panels)
        .saturating_mul(u64::from(request.width))
        .saturating_mul(u64::from(request.height))
        .saturating_mul(4);
    if held > MAX_HELD_BYTES {
        return Err(Error::unsupported(format!(
            "{count} frames of {}×{} pixels{} would hold {held} bytes of pictures at once, more than {MAX_HELD_BYTES}: lower --frames (or --fps) or --size",
            request.width,
            request.height,
            if panels == 2 { ", two panels each," } else { "" }
        )));
    }
    // In f64: `duration * i` overflows f32 for a clip of 1e37 seconds.
    Ok((0..count)
        .map(|i| {
            Some(crate::math::num::to_f32(
                f64::from(duration) * f64::from(i) / f64::from(count),
            ))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `preview_frames` fuzz target: a clip of 5.8e37 s gave an infinite time.
    #[test]
    fn times_stay_inside_a_huge_clip() {
        let request = FrameRequest {
            animated: true,
            duration: Some(5.8e37),
            frames: Some(Frames::Count(1000)),
            width: 8,
            height: 8,
            ..FrameRequest::default()
        };
        let times = frame_times(&request).unwrap();
        assert!(times
            .iter()
            .flatten()
            .all(|t| t.is_finite() && *t <= 5.8e37));
    }

    #[test]
    fn a_still_picture_is_one_time_and_no_clip_is_rest() {
        let still = FrameRequest {
            duration: Some(2.0),
            width: 8,
            height: 8,
            ..FrameRequest::default()
        };
        assert_eq!(frame_times(&still).unwrap(), [Some(0.0)]);
        let at = FrameRequest {
            time: Some(1.5),
            ..still
        };
        assert_eq!(frame_times(&at).unwrap(), [Some(1.5)]);
        let rest = FrameRequest {
            animated: true,
            duration: None,
            ..still
        };
        assert_eq!(frame_times(&rest).unwrap(), [None]);
    }
}
