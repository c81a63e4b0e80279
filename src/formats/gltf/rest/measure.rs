//! The vertex deviation: every drawn vertex of the input and of the output placed in world
//! space at [`SAMPLES_PER_CLIP`] times of every clip, and the largest distance.

use super::scene::Scene;
use super::{VertexDeviation, SAMPLES_PER_CLIP};
use crate::error::Error;

/// The largest distance between the input's and the output's drawn vertices at
/// [`SAMPLES_PER_CLIP`] times of every clip (the input clip's key span).
///
/// # Errors
/// The two documents draw different numbers of vertices or have different clip counts.
pub(super) fn measure(before: &Scene, after: &Scene) -> Result<VertexDeviation, Error> {
    let vertices = before.vertex_count();
    if after.vertex_count() != vertices || after.clips.len() != before.clips.len() {
        return Err(Error::unsupported(
            "the normalized document draws other vertices or clips than the input (a bug)",
        ));
    }
    let mut deviation = VertexDeviation {
        max: 0.0,
        clips: before.clips.len(),
        samples_per_clip: SAMPLES_PER_CLIP,
        vertices,
        worst: None,
    };
    let (mut old, mut new) = (Vec::new(), Vec::new());
    for (clip, new_clip) in before.clips.iter().zip(&after.clips) {
        for t in clip.sample_times(SAMPLES_PER_CLIP) {
            before.draw_positions(&before.pose(Some(clip), t), &mut old);
            after.draw_positions(&after.pose(Some(new_clip), t), &mut new);
            for (v, (a, b)) in old.iter().zip(&new).enumerate() {
                let d = a.distance(*b);
                if d > deviation.max {
                    deviation.max = d;
                    deviation.worst = Some((clip.name.clone(), t, v));
                }
            }
        }
    }
    Ok(deviation)
}
