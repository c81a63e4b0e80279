//! What the canonical model does not keep of a BVH file but a writer needs to write the same
//! file back: each joint's channels, which joints were End Sites, the frame time and the unit.
//!
//! ## Overview
//!
//! [`super::read_with_layout`] returns a [`BvhLayout`] next to the asset; handing it to the
//! writer through [`super::WriteOptions::like`] writes every joint with its own channels (order,
//! count, position channels on non-root joints), End Sites where the file had them, the same
//! frame time and the same unit. The layout is indexed by the asset's [`JointId`]s.
//!
//! ```
//! use std::path::Path;
//! use humanoid::formats::bvh::{self, Axis, Channel, EulerOrder, ReadOptions};
//!
//! let text = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 90 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n \
//!             End Site\n {\n  OFFSET 0 -90 0\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.04\n0 90 0 0 0 0\n";
//! let (outcome, layout) = bvh::read_with_layout(text, Path::new("a.bvh"), &ReadOptions::default())?;
//! let hips = outcome.asset.skeleton.find("Hips").unwrap();
//! let end = outcome.asset.skeleton.find("Hips_End").unwrap();
//! assert_eq!(layout.channels_of(hips).map(|c| c.len()), Some(6));
//! assert_eq!(layout.rotation_order(hips), Some(EulerOrder::Zyx));
//! assert!(layout.is_end_site(end));
//! assert_eq!(layout.frame_time(), 0.04);
//! assert_eq!(layout.metres_per_unit(), 0.01);
//! # Ok::<(), humanoid::Error>(())
//! ```

use super::channel::{Axis, Channel, EulerOrder};
use crate::model::skeleton::{JointId, Skeleton};

/// One joint of a [`BvhLayout`].
#[derive(Debug, Clone, PartialEq)]
pub struct JointLayout {
    /// The joint's name in the canonical skeleton.
    pub name: String,
    /// Whether it was an End Site (no channels, no name of its own in the file).
    pub end_site: bool,
    /// Its channels in file order (empty for End Sites).
    pub channels: Vec<Channel>,
}

/// Per-joint channels and file-wide settings of a BVH file, indexed by [`JointId`].
///
/// # Invariants
/// `frame_time` and `metres_per_unit` are finite and positive when the layout comes from the
/// reader; [`BvhLayout::new`] does not check (the writer does).
#[derive(Debug, Clone, PartialEq)]
pub struct BvhLayout {
    joints: Vec<JointLayout>,
    frame_time: f64,
    metres_per_unit: f64,
}

impl BvhLayout {
    /// A layout from its parts: `joints[i]` describes the joint with index `i`.
    pub fn new(joints: Vec<JointLayout>, frame_time: f64, metres_per_unit: f64) -> BvhLayout {
        BvhLayout {
            joints,
            frame_time,
            metres_per_unit,
        }
    }

    /// Every joint, by joint index.
    pub fn joints(&self) -> &[JointLayout] {
        &self.joints
    }

    /// The channels of `joint` in file order (`Some(&[])` for an End Site or a joint without
    /// channels; `None` for a joint the layout does not have).
    pub fn channels_of(&self, joint: JointId) -> Option<&[Channel]> {
        self.joints
            .get(joint.index())
            .map(|j| j.channels.as_slice())
    }

    /// Whether `joint` was an End Site.
    pub fn is_end_site(&self, joint: JointId) -> bool {
        self.joints.get(joint.index()).is_some_and(|j| j.end_site)
    }

    /// The Euler order of `joint`'s rotation channels, when it has all three.
    pub fn rotation_order(&self, joint: JointId) -> Option<EulerOrder> {
        rotation_order(self.channels_of(joint)?)
    }

    /// Seconds per frame.
    pub fn frame_time(&self) -> f64 {
        self.frame_time
    }

    /// The length of one file unit in metres.
    pub fn metres_per_unit(&self) -> f64 {
        self.metres_per_unit
    }

    /// Whether the layout describes `skeleton`: as many joints, with the same names in the same
    /// order.
    pub fn matches(&self, skeleton: &Skeleton) -> bool {
        self.joints.len() == skeleton.len()
            && self
                .joints
                .iter()
                .zip(skeleton.names())
                .all(|(j, name)| j.name == *name)
    }
}

/// The Euler order of the rotation channels among `channels`, when there are exactly three.
pub fn rotation_order(channels: &[Channel]) -> Option<EulerOrder> {
    let axes: Vec<Axis> = channels
        .iter()
        .filter_map(|c| match c {
            Channel::Rotation(axis) => Some(*axis),
            Channel::Position(_) => None,
        })
        .collect();
    match axes.as_slice() {
        [a, b, c] => EulerOrder::from_axes([*a, *b, *c]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_order_needs_three_axes() {
        let zyx = [
            Channel::Position(Axis::X),
            Channel::Rotation(Axis::Z),
            Channel::Position(Axis::Y),
            Channel::Rotation(Axis::Y),
            Channel::Rotation(Axis::X),
        ];
        assert_eq!(rotation_order(&zyx), Some(EulerOrder::Zyx));
        assert_eq!(rotation_order(&zyx[..4]), None);
        assert_eq!(rotation_order(&[]), None);
    }
}
