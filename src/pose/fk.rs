//! Forward kinematics: a clip's joint tracks sampled at a time and composed down the skeleton.
//!
//! [`Sampler`] is built once per (skeleton, clip) and then evaluates poses without allocating:
//! each joint's local transform is its rest TRS with the clip's translation, rotation and
//! scale tracks (when present) put in; world transforms are `parent_world · local` as affine
//! matrices (exact under non-uniform parent scale, where a TRS product is not).
//!
//! ```
//! use glam::{Quat, Vec3};
//! use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
//! use humanoid::model::skeleton::{RawJoint, Skeleton};
//! use humanoid::pose::fk::Sampler;
//! use humanoid::pose::sample::Interpolation;
//! use humanoid::pose::trs::Trs;
//!
//! let raw = vec![
//!     RawJoint { name: "root".into(), parent: None, rest: Trs::IDENTITY },
//!     RawJoint { name: "arm".into(), parent: Some(0), rest: Trs::from_translation(Vec3::X) },
//! ];
//! let (skeleton, ids) = Skeleton::from_raw(raw)?;
//! let turn = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
//! let mut values = Quat::IDENTITY.to_array().to_vec();
//! values.extend(turn.to_array());
//! let mut clip = Clip::new("turn");
//! clip.add_track(Track::new(TrackTarget::Joint(ids[0]), Property::Rotation, Interpolation::Linear, vec![0.0, 1.0], values).unwrap());
//! let mut sampler = Sampler::new(&skeleton, &clip);
//! sampler.evaluate(1.0);
//! // The arm's joint swings from +X to −Z.
//! assert!(sampler.world_position(ids[1]).abs_diff_eq(Vec3::new(0.0, 0.0, -1.0), 1e-6));
//! # Ok::<(), humanoid::model::skeleton::SkeletonError>(())
//! ```

use glam::{Mat4, Quat, Vec3};

use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::skeleton::{JointId, Skeleton};
use crate::pose::sample::Cursor;
use crate::pose::trs::Trs;

/// One track bound to a joint, with its playback cursor.
#[derive(Clone)]
struct Bound<'a> {
    joint: usize,
    property: Property,
    track: &'a Track,
    cursor: Cursor,
}

/// Evaluates a clip's pose on a skeleton at any time.
///
/// World rotations are composed as quaternions (`parent · local`), the way engines pose
/// joints: exact for uniform scales; under a non-uniform parent scale a world matrix also has
/// shear, which a rotation cannot hold. World matrices ([`Sampler::world`]) are composed on
/// demand, exactly.
#[derive(Clone)]
pub struct Sampler<'a> {
    skeleton: &'a Skeleton,
    tracks: Vec<Bound<'a>>,
    locals: Vec<Trs>,
    rotations: Vec<Quat>,
}

impl<'a> Sampler<'a> {
    /// Binds the joint tracks of `clip` to `skeleton` (tracks of other targets, and morph
    /// weights, play no part in the pose).
    pub fn new(skeleton: &'a Skeleton, clip: &'a Clip) -> Sampler<'a> {
        let tracks = clip
            .tracks()
            .iter()
            .filter_map(|track| match (track.target(), track.property()) {
                (TrackTarget::Joint(joint), property)
                    if skeleton.contains(joint) && !matches!(property, Property::Weights(_)) =>
                {
                    Some(Bound {
                        joint: joint.index(),
                        property,
                        track,
                        cursor: Cursor::default(),
                    })
                }
                _ => None,
            })
            .collect();
        let mut sampler = Sampler {
            skeleton,
            tracks,
            locals: skeleton.rest_locals().to_vec(),
            rotations: vec![Quat::IDENTITY; skeleton.len()],
        };
        sampler.compose();
        sampler
    }

    /// A sampler at rest (no clip).
    pub fn rest(skeleton: &'a Skeleton) -> Sampler<'a> {
        let mut sampler = Sampler {
            skeleton,
            tracks: Vec::new(),
            locals: skeleton.rest_locals().to_vec(),
            rotations: vec![Quat::IDENTITY; skeleton.len()],
        };
        sampler.compose();
        sampler
    }

    /// Poses the skeleton at time `t` (clamped to each track's keys).
    pub fn evaluate(&mut self, t: f32) {
        // Joints without tracks stay at rest; each animated property starts from its rest
        // value (what a track that cannot answer leaves), so nothing of an earlier time stays.
        let rest = self.skeleton.rest_locals();
        for bound in &mut self.tracks {
            let (Some(local), Some(rest)) =
                (self.locals.get_mut(bound.joint), rest.get(bound.joint))
            else {
                continue;
            };
            match bound.property {
                Property::Rotation => {
                    let mut q = rest.rotation.to_array();
                    bound.track.sample_with(t, &mut bound.cursor, &mut q);
                    let q = Quat::from_array(q);
                    local.rotation = if q.length_squared() > 0.0 {
                        q.normalize()
                    } else {
                        Quat::IDENTITY
                    };
                }
                Property::Translation => {
                    let mut v = rest.translation.to_array();
                    bound.track.sample_with(t, &mut bound.cursor, &mut v);
                    local.translation = Vec3::from_array(v);
                }
                Property::Scale => {
                    let mut v = rest.scale.to_array();
                    bound.track.sample_with(t, &mut bound.cursor, &mut v);
                    local.scale = Vec3::from_array(v);
                }
                Property::Weights(_) => {}
            }
        }
        self.compose();
    }

    fn compose(&mut self) {
        let parents = self.skeleton.parents();
        for i in 0..self.locals.len() {
            let local = self.locals.get(i).map_or(Quat::IDENTITY, |l| l.rotation);
            let parent = parents
                .get(i)
                .copied()
                .flatten()
                .and_then(|p| self.rotations.get(p.index()).copied())
                .unwrap_or(Quat::IDENTITY);
            if let Some(world) = self.rotations.get_mut(i) {
                *world = parent * local;
            }
        }
    }

    /// The local transform of a joint in the current pose.
    pub fn local(&self, joint: JointId) -> Trs {
        self.locals
            .get(joint.index())
            .copied()
            .unwrap_or(Trs::IDENTITY)
    }

    /// The world matrix of a joint in the current pose (composed along its chain now).
    pub fn world(&self, joint: JointId) -> Mat4 {
        let mut world = self.local(joint).to_mat4();
        for ancestor in self.skeleton.ancestors(joint) {
            world = self.local(ancestor).to_mat4() * world;
        }
        world
    }

    /// Every joint's world matrix in the current pose (one pass, parents first).
    pub fn worlds(&self) -> Vec<Mat4> {
        let mut worlds: Vec<Mat4> = Vec::with_capacity(self.locals.len());
        for joint in self.skeleton.joints() {
            let local = self.local(joint).to_mat4();
            let parent = self
                .skeleton
                .parent(joint)
                .and_then(|p| worlds.get(p.index()).copied())
                .unwrap_or(Mat4::IDENTITY);
            worlds.push(parent * local);
        }
        worlds
    }

    /// The world position of a joint in the current pose.
    pub fn world_position(&self, joint: JointId) -> Vec3 {
        self.world(joint).w_axis.truncate()
    }

    /// The world rotation of a joint in the current pose (local rotations composed).
    pub fn world_rotation(&self, joint: JointId) -> Quat {
        self.rotations
            .get(joint.index())
            .copied()
            .unwrap_or(Quat::IDENTITY)
    }

    /// Every key time of the bound tracks, sorted, without duplicates. Tracks that share one
    /// time array (the usual case) are merged once.
    pub fn key_times(&self) -> Vec<f32> {
        let mut distinct: Vec<&[f32]> = Vec::new();
        for bound in &self.tracks {
            let times = bound.track.times();
            if !distinct.contains(&times) {
                distinct.push(times);
            }
        }
        let mut times: Vec<f32> = match distinct.as_slice() {
            [only] => only.to_vec(),
            many => many.iter().flat_map(|t| t.iter().copied()).collect(),
        };
        if distinct.len() > 1 {
            times.sort_by(f32::total_cmp);
            times.dedup();
        }
        times
    }
}
