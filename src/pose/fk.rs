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

use glam::{Affine3A, Mat4, Quat, Vec3};

use crate::math::sample::{locate, Cursor, KeyPosition, Keyframes};
use crate::math::trs::{normalize_rotation, Trs};
use crate::model::clip::{Clip, Property, TrackTarget};
use crate::model::skeleton::{JointId, Skeleton};

/// One track bound to a joint: its keys, and the time array group it locates in.
#[derive(Clone)]
struct Bound<'a> {
    joint: usize,
    property: Property,
    keys: Keyframes<'a>,
    group: usize,
}

/// Tracks that share one time array (the usual case: a glTF sampler's input accessor, or a
/// generated clip) locate each time once, with one cursor.
#[derive(Clone)]
struct TimeGroup<'a> {
    times: &'a [f32],
    cursor: Cursor,
    position: KeyPosition,
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
    groups: Vec<TimeGroup<'a>>,
    /// Per joint, its parent's index (`usize::MAX` for a root): checked once here, so that
    /// composing needs no `Option`s.
    parents: Vec<usize>,
    locals: Vec<Trs>,
    rotations: Vec<Quat>,
}

impl<'a> Sampler<'a> {
    /// Binds the joint tracks of `clip` to `skeleton` (tracks of other targets, and morph
    /// weights, play no part in the pose).
    pub fn new(skeleton: &'a Skeleton, clip: &'a Clip) -> Sampler<'a> {
        let mut groups: Vec<TimeGroup<'a>> = Vec::new();
        let tracks = clip
            .tracks()
            .iter()
            .filter_map(|track| match (track.target(), track.property()) {
                (TrackTarget::Joint(joint), property)
                    if skeleton.contains(joint) && !matches!(property, Property::Weights(_)) =>
                {
                    let times = track.times();
                    let same = |g: &TimeGroup<'_>| std::ptr::eq(g.times, times) || g.times == times;
                    let group = match groups.iter().position(same) {
                        Some(group) => group,
                        None => {
                            groups.push(TimeGroup {
                                times,
                                cursor: Cursor::default(),
                                position: KeyPosition::BeforeFirst,
                            });
                            groups.len() - 1
                        }
                    };
                    Some(Bound {
                        joint: joint.index(),
                        property,
                        keys: track.keyframes(),
                        group,
                    })
                }
                _ => None,
            })
            .collect();
        let mut sampler = Sampler {
            tracks,
            groups,
            ..Sampler::at_rest(skeleton)
        };
        sampler.compose();
        sampler
    }

    fn at_rest(skeleton: &'a Skeleton) -> Sampler<'a> {
        let count = skeleton.len();
        let parents = skeleton
            .parents()
            .iter()
            .enumerate()
            .map(|(i, parent)| match parent {
                Some(p) if p.index() < i => p.index(),
                _ => usize::MAX,
            })
            .collect();
        Sampler {
            skeleton,
            tracks: Vec::new(),
            groups: Vec::new(),
            parents,
            locals: skeleton.rest_locals().to_vec(),
            rotations: vec![Quat::IDENTITY; count],
        }
    }

    /// A sampler at rest (no clip).
    pub fn rest(skeleton: &'a Skeleton) -> Sampler<'a> {
        let mut sampler = Sampler::at_rest(skeleton);
        sampler.compose();
        sampler
    }

    /// Poses the skeleton at time `t` (clamped to each track's keys).
    pub fn evaluate(&mut self, t: f32) {
        for group in &mut self.groups {
            group.position = locate(group.times, t, &mut group.cursor);
        }
        // Joints without tracks stay at rest; each animated property starts from its rest
        // value (what a track that cannot answer leaves), so nothing of an earlier time stays.
        let rest = self.skeleton.rest_locals();
        for bound in &self.tracks {
            let (Some(local), Some(rest), Some(group)) = (
                self.locals.get_mut(bound.joint),
                rest.get(bound.joint),
                self.groups.get(bound.group),
            ) else {
                continue;
            };
            let position = group.position;
            match bound.property {
                Property::Rotation => {
                    let q = bound.keys.rotation_at(position, rest.rotation);
                    local.rotation = if q.length_squared() > 0.0 {
                        normalize_rotation(q)
                    } else {
                        Quat::IDENTITY
                    };
                }
                Property::Translation => {
                    let mut v = rest.translation.to_array();
                    bound.keys.sample_at(position, &mut v);
                    local.translation = Vec3::from_array(v);
                }
                Property::Scale => {
                    let mut v = rest.scale.to_array();
                    bound.keys.sample_at(position, &mut v);
                    local.scale = Vec3::from_array(v);
                }
                Property::Weights(_) => {}
            }
        }
        self.compose();
    }

    fn compose(&mut self) {
        // Parents come before their children (a skeleton's order), so each parent's world
        // rotation is ready when its children need it.
        for i in 0..self.rotations.len() {
            let local = self.locals.get(i).map_or(Quat::IDENTITY, |l| l.rotation);
            let parent = match self.parents.get(i) {
                Some(&p) => self.rotations.get(p).copied().unwrap_or(Quat::IDENTITY),
                None => Quat::IDENTITY,
            };
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
        let affine = |joint: JointId| {
            let local = self.local(joint);
            Affine3A::from_scale_rotation_translation(
                local.scale,
                local.rotation,
                local.translation,
            )
        };
        let mut world = affine(joint);
        for ancestor in self.skeleton.ancestors(joint) {
            world = affine(ancestor) * world;
        }
        Mat4::from(world)
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
        let distinct: Vec<&[f32]> = self.groups.iter().map(|g| g.times).collect();
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
