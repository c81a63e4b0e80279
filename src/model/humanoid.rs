//! Which joints of a skeleton are the canonical bones ([`BoneMap`]), and a character's
//! authorship ([`Meta`]). The whole character is [`crate::model::Character`].
//!
//! ```
//! use humanoid::model::humanoid::BoneMap;
//! use humanoid::model::skeleton::{RawJoint, Skeleton};
//! use humanoid::model::{HumanBone, Profile};
//! use humanoid::pose::trs::Trs;
//!
//! let raw = vec![
//!     RawJoint { name: "Hips".into(), parent: None, rest: Trs::IDENTITY },
//!     RawJoint { name: "Spine".into(), parent: Some(0), rest: Trs::IDENTITY },
//! ];
//! let (skeleton, ids) = Skeleton::from_raw(raw)?;
//! let mut bones = BoneMap::new();
//! bones.set(HumanBone::Hips, Some(ids[0]));
//! bones.set(HumanBone::Spine, Some(ids[1]));
//! assert_eq!(bones.get(HumanBone::Spine), Some(ids[1]));
//! assert_eq!(bones.bone_of(ids[0]), Some(HumanBone::Hips));
//! assert_eq!(skeleton.name(ids[1]), "Spine");
//! // VRM 1.0 needs 15 bones; 13 are missing, all listed in one error.
//! let missing = bones.require(Profile::Vrm1).unwrap_err();
//! assert_eq!(missing.bones.len(), 13);
//! # Ok::<(), humanoid::model::skeleton::SkeletonError>(())
//! ```

use std::fmt;

use crate::model::skeleton::JointId;
use crate::model::{HumanBone, Profile};

/// Which joint each canonical bone is: an array indexed by [`HumanBone::index`].
///
/// Whether the bones are placed consistently in the joint tree is checked separately, by
/// [`crate::model::validate::validate_bone_map`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BoneMap([Option<JointId>; HumanBone::COUNT]);

impl Default for BoneMap {
    fn default() -> Self {
        BoneMap([None; HumanBone::COUNT])
    }
}

impl BoneMap {
    /// No bone mapped.
    pub fn new() -> BoneMap {
        BoneMap::default()
    }

    /// The joint of `bone`, if mapped.
    pub fn get(&self, bone: HumanBone) -> Option<JointId> {
        self.0.get(bone.index()).copied().flatten()
    }

    /// Maps `bone` to `joint` (`None` unmaps it) and returns what it was mapped to before.
    pub fn set(&mut self, bone: HumanBone, joint: Option<JointId>) -> Option<JointId> {
        match self.0.get_mut(bone.index()) {
            Some(slot) => std::mem::replace(slot, joint),
            None => None,
        }
    }

    /// The mapped bones and their joints, in [`HumanBone::ALL`] order (parents first).
    pub fn iter(&self) -> impl Iterator<Item = (HumanBone, JointId)> + '_ {
        HumanBone::ALL
            .into_iter()
            .filter_map(|bone| self.get(bone).map(|joint| (bone, joint)))
    }

    /// How many bones are mapped.
    pub fn len(&self) -> usize {
        self.0.iter().flatten().count()
    }

    /// Whether no bone is mapped.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    /// The first bone (in [`HumanBone::ALL`] order) mapped to `joint`. A joint carries at most one
    /// bone in a valid map; [`crate::model::validate`] reports `BONE_MAPPED_TWICE` otherwise.
    pub fn bone_of(&self, joint: JointId) -> Option<HumanBone> {
        self.iter().find(|&(_, j)| j == joint).map(|(bone, _)| bone)
    }

    /// The bones `profile` requires that are not mapped, in [`HumanBone::ALL`] order.
    pub fn missing(&self, profile: Profile) -> Vec<HumanBone> {
        HumanBone::ALL
            .into_iter()
            .filter(|&bone| bone.is_required(profile) && self.get(bone).is_none())
            .collect()
    }

    /// Checks that every bone `profile` requires is mapped (three-vrm's
    /// `_ensureRequiredBonesExist`).
    ///
    /// # Errors
    /// [`MissingBones`] listing every missing required bone at once.
    pub fn require(&self, profile: Profile) -> Result<(), MissingBones> {
        let bones = self.missing(profile);
        if bones.is_empty() {
            Ok(())
        } else {
            Err(MissingBones { profile, bones })
        }
    }
}

/// Required humanoid bones that are not mapped, all of them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} required humanoid bone{} missing for {profile:?}: {}; map them to joints with --map TABLE (`humanoid map -o TABLE.toml` writes an editable one) to fix this", bones.len(), if bones.len() == 1 { " is" } else { "s are" }, BoneList(bones))]
pub struct MissingBones {
    /// The profile whose requirements are not met.
    pub profile: Profile,
    /// Every missing required bone, in [`HumanBone::ALL`] order.
    pub bones: Vec<HumanBone>,
}

struct BoneList<'a>(&'a [HumanBone]);

impl fmt::Display for BoneList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, bone) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(bone.as_str())?;
        }
        Ok(())
    }
}

/// Who made a character and under which terms (VRM `meta`, glTF `asset`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    /// The character's name.
    pub name: Option<String>,
    /// Its authors.
    pub authors: Vec<String>,
    /// Its licence (a name or a URL).
    pub license: Option<String>,
    /// Other fields, in the order the file gave them.
    pub extra: Vec<(String, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joint(index: usize) -> JointId {
        JointId::from_index(index).unwrap()
    }

    #[test]
    fn get_set_iter() {
        let mut map = BoneMap::new();
        assert!(map.is_empty());
        assert_eq!(map.set(HumanBone::LeftHand, Some(joint(4))), None);
        assert_eq!(map.set(HumanBone::Hips, Some(joint(0))), None);
        assert_eq!(map.set(HumanBone::LeftHand, Some(joint(5))), Some(joint(4)));
        assert_eq!(map.get(HumanBone::LeftHand), Some(joint(5)));
        assert_eq!(map.get(HumanBone::Head), None);
        assert_eq!(map.len(), 2);
        // Parents-first bone order, not insertion order.
        assert_eq!(
            map.iter().collect::<Vec<_>>(),
            [(HumanBone::Hips, joint(0)), (HumanBone::LeftHand, joint(5))]
        );
        assert_eq!(map.bone_of(joint(5)), Some(HumanBone::LeftHand));
        assert_eq!(map.bone_of(joint(4)), None);
        assert_eq!(map.set(HumanBone::LeftHand, None), Some(joint(5)));
        assert_eq!(map.len(), 1);
    }

    #[test]
    fn require_lists_every_missing_bone() {
        let mut map = BoneMap::new();
        for (i, bone) in HumanBone::ALL.into_iter().enumerate() {
            if bone.is_required(Profile::Vrm1) {
                map.set(bone, Some(joint(i)));
            }
        }
        assert_eq!(map.require(Profile::Vrm1), Ok(()));
        assert_eq!(map.require(Profile::ExtSkeletonHumanoid), Ok(()));
        // VRM 0.x also needs chest and neck; both reported at once.
        let err = map.require(Profile::Vrm0).unwrap_err();
        assert_eq!(err.bones, [HumanBone::Chest, HumanBone::Neck]);
        let message = err.to_string();
        assert!(
            message.contains("2 required humanoid bones are missing"),
            "{message}"
        );
        assert!(message.contains("chest, neck"), "{message}");
        map.set(HumanBone::Hips, None);
        assert_eq!(map.missing(Profile::Vrm1), [HumanBone::Hips]);
        assert_eq!(
            BoneMap::new().missing(Profile::Godot).len(),
            17,
            "every Godot-required bone"
        );
    }
}
