//! Keeping clips as they were when rest rotations change: a clip that does not rotate a node
//! whose rest changed gets a one-key rotation channel holding the node's old rest rotation.

use std::collections::HashMap;

use serde_json::Map;

use super::super::document::Document;
use super::super::json::{Accessor, AnimationSampler, Channel, Index, Ordered, Target};
use super::data::{NewData, SCALAR, VEC4};
use super::scene::{Path, Scene};
use crate::error::Error;
use crate::math::num::to_f32;

/// Adds, to every animation, a rotation channel for each node of `changed` it does not rotate
/// (by a node channel or a `KHR_animation_pointer`): one key at the animation's first key time,
/// the node's old rest rotation (`scene`'s). Keys and values are shared between animations.
/// Returns how many channels were added.
///
/// # Errors
/// The new data exceed glTF's index limits.
pub(super) fn add_rest_channels(
    document: &mut Document,
    scene: &Scene,
    changed: &[usize],
    data: &mut NewData,
) -> Result<usize, Error> {
    let mut inputs: HashMap<u32, Index<Accessor>> = HashMap::new();
    let mut outputs: HashMap<usize, Index<Accessor>> = HashMap::new();
    let mut added = 0;
    for (a, clip) in scene.clips.iter().enumerate() {
        let missing: Vec<usize> = changed
            .iter()
            .copied()
            .filter(|&node| !clip.drives(node, Path::Rotation))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let start = to_f32(clip.start);
        let input = match inputs.get(&start.to_bits()) {
            Some(index) => *index,
            None => {
                let index = data.push(&[start], SCALAR, None, true)?;
                inputs.insert(start.to_bits(), index);
                index
            }
        };
        for node in missing {
            let output = match outputs.get(&node) {
                Some(index) => *index,
                None => {
                    let rotation = scene
                        .rest
                        .get(node)
                        .map_or([0.0, 0.0, 0.0, 1.0], |r| r.rotation.to_array().map(to_f32));
                    let index = data.push(&rotation, VEC4, None, false)?;
                    outputs.insert(node, index);
                    index
                }
            };
            let Some(animation) = document.root.animations.get_mut(a) else {
                continue;
            };
            add_channel(animation, node, input, output)?;
            added += 1;
        }
    }
    Ok(added)
}

/// Appends a sampler (LINEAR, the default) and a rotation channel on `node` using it.
fn add_channel(
    animation: &mut super::super::json::Animation,
    node: usize,
    input: Index<Accessor>,
    output: Index<Accessor>,
) -> Result<(), Error> {
    let limit = || Error::unsupported("too many animation samplers or nodes for glTF indices");
    let sampler = Index::try_from(animation.samplers.len()).map_err(|_| limit())?;
    animation.samplers.push(Ordered::new(AnimationSampler {
        input,
        output,
        interpolation: None,
        other: Map::new(),
    }));
    animation.channels.push(Ordered::new(Channel {
        sampler,
        target: Ordered::new(Target {
            node: Some(Index::try_from(node).map_err(|_| limit())?),
            path: "rotation".to_owned(),
            extensions: None,
            other: Map::new(),
        }),
        other: Map::new(),
    }));
    Ok(())
}
