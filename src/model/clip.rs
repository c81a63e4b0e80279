//! Animation clips: named sets of keyframed tracks, each animating one property of one joint
//! or humanoid bone.
//!
//! ## Overview
//!
//! A [`Track`] is times, values and an [`Interpolation`]; it can only be made by
//! [`Track::new`], which checks the invariants listed on the type, so sampling never meets
//! inconsistent data. A [`Clip`] is a name and its tracks.
//!
//! ```
//! use glam::Quat;
//! use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
//! use humanoid::model::HumanBone;
//! use humanoid::pose::sample::Interpolation;
//!
//! let quarter = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
//! let mut values = Quat::IDENTITY.to_array().to_vec();
//! values.extend(quarter.to_array());
//! let track = Track::new(
//!     TrackTarget::Bone(HumanBone::Head),
//!     Property::Rotation,
//!     Interpolation::Linear,
//!     vec![0.0, 1.0],
//!     values,
//! )?;
//! let mut clip = Clip::new("turn head");
//! clip.add_track(track);
//! assert_eq!(clip.duration(), 1.0);
//! let head = clip.tracks_for(TrackTarget::Bone(HumanBone::Head)).next().unwrap();
//! let half = head.sample_quat(0.5).unwrap();
//! assert!(half.dot(Quat::from_rotation_y(std::f32::consts::FRAC_PI_4)).abs() > 1.0 - 1e-6);
//! # Ok::<(), humanoid::model::clip::TrackError>(())
//! ```

use std::fmt;
use std::sync::Arc;

use glam::{Quat, Vec3};

use crate::math::sample::{Cursor, Interpolation, Keyframes, ValueKind};
use crate::model::skeleton::JointId;
use crate::model::HumanBone;

/// What a track animates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TrackTarget {
    /// A raw joint (glTF: node) of the clip's skeleton; values are the joint's local
    /// translation, rotation, scale or morph weights, as the file stores them.
    Joint(JointId),
    /// A canonical humanoid bone (EXT_skeleton_humanoid channels, VRMA). Rotation values are
    /// normalized local rotations in model axes and the hips translation is its position offset
    /// in model axes (ARCHITECTURE.md §3), independent of any particular skeleton's rest axes.
    Bone(HumanBone),
    /// The weight of an expression (an index into the asset's expressions): one component,
    /// `Property::Weights(1)`, in `[0, 1]` (VRMA: the expression node's translation x).
    Expression(u16),
    /// The gaze: a rotation in look-at space, whose rest looks along model +Z (VRMA: the lookAt
    /// node's local rotation; yaw about Y, then pitch about X).
    LookAt,
    /// The morph target weights of a mesh that travels with the asset (an index into the
    /// meshes read beside it, such as an H-Anim file's skin and segments): `Property::Weights(n)`,
    /// one weight per target of that mesh (glTF: a `weights` channel on the mesh's node).
    Mesh(u16),
}

impl fmt::Display for TrackTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrackTarget::Joint(joint) => write!(f, "joint {}", joint.index()),
            TrackTarget::Bone(bone) => write!(f, "bone {bone}"),
            TrackTarget::Expression(index) => write!(f, "expression {index}"),
            TrackTarget::LookAt => f.write_str("look-at"),
            TrackTarget::Mesh(index) => write!(f, "mesh {index}"),
        }
    }
}

/// Which property of the target a track animates (glTF `channel.target.path`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Property {
    /// Local translation, 3 components.
    Translation,
    /// Local rotation, a unit quaternion `[x, y, z, w]`, 4 components.
    Rotation,
    /// Local scale, 3 components.
    Scale,
    /// Morph target weights; the value is how many weights each key has.
    Weights(usize),
}

impl Property {
    /// Components per value: 3, 4, 3, or the weight count.
    pub fn components(self) -> usize {
        match self {
            Property::Translation | Property::Scale => 3,
            Property::Rotation => 4,
            Property::Weights(count) => count,
        }
    }

    /// How the components blend: rotations slerp, everything else lerps.
    pub fn value_kind(self) -> ValueKind {
        match self {
            Property::Rotation => ValueKind::Rotation,
            Property::Translation | Property::Scale | Property::Weights(_) => ValueKind::Vector,
        }
    }

    /// The glTF path name: `translation`, `rotation`, `scale` or `weights`.
    pub fn as_str(self) -> &'static str {
        match self {
            Property::Translation => "translation",
            Property::Rotation => "rotation",
            Property::Scale => "scale",
            Property::Weights(_) => "weights",
        }
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why [`Track::new`] refused its input; each variant names the invariant it breaks.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TrackError {
    /// Invariant 1: a track needs at least one key.
    #[error("track has no keys (at least one is needed)")]
    NoKeys,
    /// Invariant 2: the property has no components (`Weights(0)`).
    #[error("track animates {property} with 0 components per value")]
    NoComponents {
        /// The property.
        property: Property,
    },
    /// Invariant 3: a key time is NaN or infinite.
    #[error("key {key}: time {time} is not finite")]
    NonFiniteTime {
        /// The key's index.
        key: usize,
        /// The time found.
        time: f32,
    },
    /// Invariant 3: a key time is not after the one before it.
    #[error("key {key}: time {time} is not after the previous key's {previous} (times must be strictly increasing)")]
    TimesNotIncreasing {
        /// The key's index.
        key: usize,
        /// The previous key's time.
        previous: f32,
        /// This key's time.
        time: f32,
    },
    /// Invariant 4: the value count does not match keys × components × elements per key.
    #[error("{actual} values for {keys} keys of {components} components ({interpolation}: {elements_per_key} per key); expected {expected}")]
    ValueCount {
        /// keys × components × elements per key.
        expected: usize,
        /// The number of values given.
        actual: usize,
        /// The number of keys.
        keys: usize,
        /// Components per value.
        components: usize,
        /// The interpolation.
        interpolation: Interpolation,
        /// 3 for cubic splines (in-tangent, value, out-tangent), else 1.
        elements_per_key: usize,
    },
    /// Invariant 5: a value is NaN or infinite.
    #[error("value {index} ({value}) is not finite")]
    NonFiniteValue {
        /// Index into the flat values.
        index: usize,
        /// The value found.
        value: f32,
    },
}

/// Key times, checked once: at least one, finite and strictly increasing (seconds; negative
/// times are allowed). Cloning shares them, so the tracks of one sampler (a glTF sampler's input
/// accessor, a baked clip) can hold one copy.
///
/// ```
/// use humanoid::model::clip::{KeyTimes, TrackError};
/// let times = KeyTimes::new(vec![0.0, 0.5, 1.0])?;
/// assert_eq!(times.as_slice(), &[0.0, 0.5, 1.0]);
/// assert!(KeyTimes::new(vec![0.0, 0.0]).is_err());
/// # Ok::<(), TrackError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct KeyTimes(Arc<[f32]>);

impl KeyTimes {
    /// Key times, after checking invariants 1 and 3 of [`Track`].
    ///
    /// # Errors
    /// [`TrackError::NoKeys`], [`TrackError::NonFiniteTime`] or
    /// [`TrackError::TimesNotIncreasing`] (the first key that breaks the rule).
    pub fn new(times: Vec<f32>) -> Result<KeyTimes, TrackError> {
        if times.is_empty() {
            return Err(TrackError::NoKeys);
        }
        // The common case, all good, in one pass that vectorises; the error path finds the key.
        let increasing = times
            .iter()
            .zip(times.iter().skip(1))
            .fold(true, |ok, (a, b)| ok & (a < b));
        if !increasing || first_non_finite(&times).is_some() {
            let mut previous: Option<f32> = None;
            for (key, &time) in times.iter().enumerate() {
                if !time.is_finite() {
                    return Err(TrackError::NonFiniteTime { key, time });
                }
                if let Some(previous) = previous.filter(|&p| time <= p) {
                    return Err(TrackError::TimesNotIncreasing {
                        key,
                        previous,
                        time,
                    });
                }
                previous = Some(time);
            }
        }
        Ok(KeyTimes(times.into()))
    }

    /// The times, in seconds.
    pub fn as_slice(&self) -> &[f32] {
        &self.0
    }

    /// The number of keys (at least 1).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always `false`: there is at least one key.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The index of the first NaN or infinite value (one pass that vectorises, then a search only
/// when there is one).
fn first_non_finite(values: &[f32]) -> Option<usize> {
    const EXPONENT: u32 = 0x7f80_0000;
    let any = values
        .iter()
        .fold(false, |any, v| any | (v.to_bits() & EXPONENT == EXPONENT));
    if any {
        values.iter().position(|v| !v.is_finite())
    } else {
        None
    }
}

/// One keyframed property of one target.
///
/// # Invariants
///
/// Checked by [`Track::new`] and [`Track::with_key_times`], the only ways to make one from
/// outside the crate (the crate's own generators, such as the retarget bake, make them valid by
/// construction):
///
/// 1. There is at least one key.
/// 2. The property has at least one component (`Weights(0)` is refused).
/// 3. Times are finite and strictly increasing (seconds; negative times are allowed).
/// 4. `values.len() == keys × components × e`, with `e = 3` for
///    [`Interpolation::CubicSpline`] (glTF's (in-tangent, value, out-tangent) per key) and 1
///    otherwise.
/// 5. Every value is finite.
///
/// Sampling clamps outside the keys (see [`crate::math::sample`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    target: TrackTarget,
    property: Property,
    interpolation: Interpolation,
    times: KeyTimes,
    values: Vec<f32>,
}

impl Track {
    /// A track, after checking the [invariants](Track#invariants).
    ///
    /// # Errors
    /// A [`TrackError`] naming the first invariant broken.
    pub fn new(
        target: TrackTarget,
        property: Property,
        interpolation: Interpolation,
        times: Vec<f32>,
        values: Vec<f32>,
    ) -> Result<Track, TrackError> {
        if times.is_empty() {
            return Err(TrackError::NoKeys);
        }
        if property.components() == 0 {
            return Err(TrackError::NoComponents { property });
        }
        Track::with_key_times(
            target,
            property,
            interpolation,
            KeyTimes::new(times)?,
            values,
        )
    }

    /// A track on times already checked (and possibly shared with other tracks), after
    /// checking the other [invariants](Track#invariants).
    ///
    /// # Errors
    /// A [`TrackError`] naming the first invariant broken.
    pub fn with_key_times(
        target: TrackTarget,
        property: Property,
        interpolation: Interpolation,
        times: KeyTimes,
        values: Vec<f32>,
    ) -> Result<Track, TrackError> {
        let components = property.components();
        if components == 0 {
            return Err(TrackError::NoComponents { property });
        }
        let elements_per_key = interpolation.elements_per_key();
        let expected = times
            .len()
            .saturating_mul(components)
            .saturating_mul(elements_per_key);
        if values.len() != expected {
            return Err(TrackError::ValueCount {
                expected,
                actual: values.len(),
                keys: times.len(),
                components,
                interpolation,
                elements_per_key,
            });
        }
        if let Some(index) = first_non_finite(&values) {
            let value = values.get(index).copied().unwrap_or(f32::NAN);
            return Err(TrackError::NonFiniteValue { index, value });
        }
        Ok(Track::from_valid_parts(
            target,
            property,
            interpolation,
            times,
            values,
        ))
    }

    /// A track whose invariants its maker guarantees (the value count by allocation, the
    /// values' finiteness checked as they were computed): no second pass over the values.
    /// Debug builds still check.
    pub(crate) fn from_valid_parts(
        target: TrackTarget,
        property: Property,
        interpolation: Interpolation,
        times: KeyTimes,
        values: Vec<f32>,
    ) -> Track {
        debug_assert!(property.components() > 0);
        debug_assert_eq!(
            values.len(),
            times.len() * property.components() * interpolation.elements_per_key()
        );
        debug_assert!(first_non_finite(&values).is_none());
        Track {
            target,
            property,
            interpolation,
            times,
            values,
        }
    }

    /// The key times, shareable with other tracks.
    pub fn key_times(&self) -> &KeyTimes {
        &self.times
    }

    /// The same keys on another target (the invariants do not depend on the target).
    #[must_use]
    pub fn with_target(&self, target: TrackTarget) -> Track {
        Track {
            target,
            ..self.clone()
        }
    }

    /// What the track animates.
    pub fn target(&self) -> TrackTarget {
        self.target
    }

    /// Which property it animates.
    pub fn property(&self) -> Property {
        self.property
    }

    /// How it interpolates.
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Key times in seconds, strictly increasing, at least one.
    pub fn times(&self) -> &[f32] {
        self.times.as_slice()
    }

    /// The flat values, key after key (cubic splines: in-tangent, value, out-tangent per key).
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// The values, taken out of the track (moved, not copied): what [`Track::values`] shows.
    pub fn into_values(self) -> Vec<f32> {
        self.values
    }

    /// The number of keys (at least 1).
    pub fn key_count(&self) -> usize {
        self.times.len()
    }

    /// Components per value.
    pub fn components(&self) -> usize {
        self.property.components()
    }

    /// The time of the first key.
    pub fn start_time(&self) -> f32 {
        self.times.as_slice().first().copied().unwrap_or(0.0)
    }

    /// The time of the last key.
    pub fn end_time(&self) -> f32 {
        self.times.as_slice().last().copied().unwrap_or(0.0)
    }

    /// The value of key `key` (tangents skipped), if there is such a key.
    pub fn value(&self, key: usize) -> Option<&[f32]> {
        self.keyframes().value(key)
    }

    /// The borrowed view that [`crate::math::sample`] works on.
    pub fn keyframes(&self) -> Keyframes<'_> {
        Keyframes {
            times: self.times.as_slice(),
            values: &self.values,
            components: self.components(),
            interpolation: self.interpolation,
            kind: self.property.value_kind(),
        }
    }

    /// Samples at `t` seconds into `out` (which should hold [`Track::components`] values:
    /// extra entries are left alone, a shorter `out` gets the first components). Clamped
    /// outside the keys. For many samples in time order use [`Track::sample_with`].
    pub fn sample(&self, t: f32, out: &mut [f32]) {
        self.sample_with(t, &mut Cursor::default(), out);
    }

    /// As [`Track::sample`], reusing `cursor` so forward playback skips the binary search.
    pub fn sample_with(&self, t: f32, cursor: &mut Cursor, out: &mut [f32]) {
        self.keyframes().sample(t, cursor, out);
    }

    /// The translation or scale at `t`; `None` for rotation and weight tracks.
    pub fn sample_vec3(&self, t: f32) -> Option<Vec3> {
        match self.property {
            Property::Translation | Property::Scale => {
                let mut out = [0.0; 3];
                self.sample(t, &mut out);
                Some(Vec3::from_array(out))
            }
            Property::Rotation | Property::Weights(_) => None,
        }
    }

    /// The rotation at `t`; `None` for other properties. Interpolated rotations are unit
    /// quaternions; on a key the stored value is returned as it is.
    pub fn sample_quat(&self, t: f32) -> Option<Quat> {
        match self.property {
            Property::Rotation => {
                let mut out = [0.0, 0.0, 0.0, 1.0];
                self.sample(t, &mut out);
                Some(Quat::from_array(out))
            }
            Property::Translation | Property::Scale | Property::Weights(_) => None,
        }
    }
}

/// A named animation: tracks for joints and humanoid bones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Clip {
    /// The clip's name (glTF `animation.name`; may be empty).
    pub name: String,
    tracks: Vec<Track>,
}

impl Clip {
    /// An empty clip.
    pub fn new(name: impl Into<String>) -> Clip {
        Clip {
            name: name.into(),
            tracks: Vec::new(),
        }
    }

    /// Adds a track (after any already there).
    pub fn add_track(&mut self, track: Track) {
        self.tracks.push(track);
    }

    /// All tracks, in the order they were added.
    pub fn tracks(&self) -> &[Track] {
        &self.tracks
    }

    /// Whether any track animates a canonical bone ([`TrackTarget::Bone`]: EXT_skeleton_humanoid
    /// channels, VRMA) rather than a joint.
    pub fn has_bone_tracks(&self) -> bool {
        self.tracks
            .iter()
            .any(|t| matches!(t.target(), TrackTarget::Bone(_)))
    }

    /// The tracks, taken out of the clip (their values are moved, not copied).
    pub fn into_tracks(self) -> Vec<Track> {
        self.tracks
    }

    /// The tracks animating `target`, in order.
    pub fn tracks_for(&self, target: TrackTarget) -> impl Iterator<Item = &Track> + '_ {
        self.tracks.iter().filter(move |t| t.target == target)
    }

    /// The track animating `property` of `target`, if any (the first one).
    pub fn track(&self, target: TrackTarget, property: Property) -> Option<&Track> {
        self.tracks_for(target).find(|t| t.property == property)
    }

    /// The clip's length in seconds: the latest last key over all tracks; 0 with no tracks
    /// (never negative).
    pub fn duration(&self) -> f32 {
        self.tracks.iter().map(Track::end_time).fold(0.0, f32::max)
    }

    /// Whether there are no tracks.
    pub fn is_empty(&self) -> bool {
        self.tracks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::trs::Trs;
    use crate::model::skeleton::{RawJoint, Skeleton};
    use std::f32::consts::FRAC_PI_2;

    fn joint0() -> JointId {
        let raw = vec![RawJoint {
            name: "root".into(),
            parent: None,
            rest: Trs::IDENTITY,
        }];
        let (_, ids) = Skeleton::from_raw(raw).expect("one joint");
        ids[0]
    }

    fn translation(times: Vec<f32>, values: Vec<f32>) -> Result<Track, TrackError> {
        Track::new(
            TrackTarget::Joint(joint0()),
            Property::Translation,
            Interpolation::Linear,
            times,
            values,
        )
    }

    #[test]
    fn components_per_property() {
        assert_eq!(Property::Translation.components(), 3);
        assert_eq!(Property::Rotation.components(), 4);
        assert_eq!(Property::Scale.components(), 3);
        assert_eq!(Property::Weights(7).components(), 7);
        assert_eq!(Property::Rotation.to_string(), "rotation");
    }

    #[test]
    fn invariants_are_checked() {
        assert_eq!(translation(vec![], vec![]), Err(TrackError::NoKeys));
        assert!(matches!(
            Track::new(
                TrackTarget::Bone(HumanBone::Hips),
                Property::Weights(0),
                Interpolation::Step,
                vec![0.0],
                vec![]
            ),
            Err(TrackError::NoComponents { .. })
        ));
        assert!(matches!(
            translation(vec![0.0, f32::NAN], vec![0.0; 6]),
            Err(TrackError::NonFiniteTime { key: 1, .. })
        ));
        assert_eq!(
            translation(vec![0.0, 1.0, 1.0], vec![0.0; 9]),
            Err(TrackError::TimesNotIncreasing {
                key: 2,
                previous: 1.0,
                time: 1.0
            })
        );
        assert!(matches!(
            translation(vec![1.0, 0.5], vec![0.0; 6]),
            Err(TrackError::TimesNotIncreasing { key: 1, .. })
        ));
        assert!(matches!(
            translation(vec![0.0, 1.0], vec![0.0; 5]),
            Err(TrackError::ValueCount {
                expected: 6,
                actual: 5,
                ..
            })
        ));
        // Cubic splines store three elements per key.
        let cubic = Track::new(
            TrackTarget::Joint(joint0()),
            Property::Rotation,
            Interpolation::CubicSpline,
            vec![0.0, 1.0],
            vec![0.0; 8],
        );
        assert!(matches!(
            cubic,
            Err(TrackError::ValueCount {
                expected: 24,
                elements_per_key: 3,
                ..
            })
        ));
        assert_eq!(
            translation(vec![0.0], vec![0.0, f32::INFINITY, 0.0]),
            Err(TrackError::NonFiniteValue {
                index: 1,
                value: f32::INFINITY
            })
        );
        // Negative times and a single key are fine.
        let single = translation(vec![-1.0], vec![1.0, 2.0, 3.0]).expect("valid");
        assert_eq!(single.sample_vec3(5.0), Some(Vec3::new(1.0, 2.0, 3.0)));
        let message = translation(vec![0.0, 1.0], vec![0.0; 5])
            .unwrap_err()
            .to_string();
        assert!(message.contains("expected 6"), "{message}");
    }

    #[test]
    fn samples_by_hand() {
        // Keys: t = 0 → (0, 0, 0), t = 2 → (4, -2, 1). At t = 0.5: s = 0.25 → (1, -0.5, 0.25).
        let track = translation(vec![0.0, 2.0], vec![0.0, 0.0, 0.0, 4.0, -2.0, 1.0]).unwrap();
        assert_eq!(track.sample_vec3(0.5), Some(Vec3::new(1.0, -0.5, 0.25)));
        assert_eq!(track.sample_quat(0.5), None);
        let mut out = [0.0; 3];
        let mut cursor = Cursor::default();
        track.sample_with(1.0, &mut cursor, &mut out);
        assert_eq!(out, [2.0, -1.0, 0.5]);
        assert_eq!(track.key_count(), 2);
        assert_eq!(track.value(1), Some(&[4.0, -2.0, 1.0][..]));
        assert_eq!(track.value(2), None);

        let q = Quat::from_rotation_x(FRAC_PI_2).to_array();
        let rotation = Track::new(
            TrackTarget::Bone(HumanBone::LeftUpperArm),
            Property::Rotation,
            Interpolation::Step,
            vec![0.0, 1.0],
            [[0.0, 0.0, 0.0, 1.0], q].concat(),
        )
        .unwrap();
        assert_eq!(rotation.sample_quat(0.9), Some(Quat::IDENTITY));
        assert_eq!(rotation.sample_quat(1.0), Some(Quat::from_array(q)));
        assert_eq!(rotation.sample_vec3(0.0), None);
    }

    #[test]
    fn clip_collects_tracks() {
        let joint = joint0();
        let mut clip = Clip::new("walk");
        assert_eq!(clip.duration(), 0.0);
        assert!(clip.is_empty());
        clip.add_track(translation(vec![0.0, 1.5], vec![0.0; 6]).unwrap());
        clip.add_track(
            Track::new(
                TrackTarget::Bone(HumanBone::Spine),
                Property::Rotation,
                Interpolation::Linear,
                vec![0.5, 2.5],
                [[0.0, 0.0, 0.0, 1.0]; 2].concat(),
            )
            .unwrap(),
        );
        assert_eq!(clip.duration(), 2.5);
        assert_eq!(clip.tracks().len(), 2);
        assert_eq!(clip.tracks_for(TrackTarget::Joint(joint)).count(), 1);
        assert_eq!(
            clip.tracks_for(TrackTarget::Bone(HumanBone::Hips)).count(),
            0
        );
        assert!(clip
            .track(TrackTarget::Bone(HumanBone::Spine), Property::Rotation)
            .is_some());
        assert!(clip
            .track(TrackTarget::Bone(HumanBone::Spine), Property::Scale)
            .is_none());
        assert_eq!(
            TrackTarget::Bone(HumanBone::Spine).to_string(),
            "bone spine"
        );
    }
}
