//! The 55 canonical humanoid bones of EXT_skeleton_humanoid and VRM 1.0, their canonical
//! hierarchy and the required sets of each profile.

use strum::{Display, EnumCount, EnumIter, EnumString, IntoStaticStr};

/// One of the 55 canonical humanoid bones (EXT_skeleton_humanoid = VRM 1.0 names).
///
/// The variants are declared parents before children, so [`HumanBone::ALL`] can be walked
/// top-down and every bone's [`parent`](HumanBone::parent) comes earlier in it. Names convert
/// with `as_str()`/`FromStr`, spelled exactly as in the spec (`leftThumbMetacarpal`).
///
/// ```
/// use humanoid::model::{HumanBone, Profile};
/// let bone: HumanBone = "rightLittleDistal".parse().unwrap();
/// assert_eq!(bone.as_str(), "rightLittleDistal");
/// assert!(HumanBone::Chest.is_required(Profile::Vrm0));
/// assert!(!HumanBone::Chest.is_required(Profile::Vrm1));
/// ```
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Display,
    EnumString,
    IntoStaticStr,
    EnumIter,
    EnumCount,
)]
#[strum(serialize_all = "camelCase")]
#[repr(u8)]
#[allow(missing_docs)]
pub enum HumanBone {
    Hips,
    Spine,
    Chest,
    UpperChest,
    Neck,
    Head,
    LeftEye,
    RightEye,
    Jaw,
    LeftShoulder,
    LeftUpperArm,
    LeftLowerArm,
    LeftHand,
    LeftThumbMetacarpal,
    LeftThumbProximal,
    LeftThumbDistal,
    LeftIndexProximal,
    LeftIndexIntermediate,
    LeftIndexDistal,
    LeftMiddleProximal,
    LeftMiddleIntermediate,
    LeftMiddleDistal,
    LeftRingProximal,
    LeftRingIntermediate,
    LeftRingDistal,
    LeftLittleProximal,
    LeftLittleIntermediate,
    LeftLittleDistal,
    RightShoulder,
    RightUpperArm,
    RightLowerArm,
    RightHand,
    RightThumbMetacarpal,
    RightThumbProximal,
    RightThumbDistal,
    RightIndexProximal,
    RightIndexIntermediate,
    RightIndexDistal,
    RightMiddleProximal,
    RightMiddleIntermediate,
    RightMiddleDistal,
    RightRingProximal,
    RightRingIntermediate,
    RightRingDistal,
    RightLittleProximal,
    RightLittleIntermediate,
    RightLittleDistal,
    LeftUpperLeg,
    LeftLowerLeg,
    LeftFoot,
    LeftToes,
    RightUpperLeg,
    RightLowerLeg,
    RightFoot,
    RightToes,
}

/// A set of rules about which bones a humanoid must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// EXT_skeleton_humanoid: every bone optional.
    ExtSkeletonHumanoid,
    /// VRM 1.0: 15 required bones.
    Vrm1,
    /// VRM 0.x: the VRM 1.0 set plus `chest` and `neck` (17).
    Vrm0,
    /// Godot `SkeletonProfileHumanoid`: the VRM 1.0 set plus both shoulders (17).
    Godot,
}

impl HumanBone {
    /// Every bone, parents before children.
    pub const ALL: [HumanBone; 55] = [
        HumanBone::Hips,
        HumanBone::Spine,
        HumanBone::Chest,
        HumanBone::UpperChest,
        HumanBone::Neck,
        HumanBone::Head,
        HumanBone::LeftEye,
        HumanBone::RightEye,
        HumanBone::Jaw,
        HumanBone::LeftShoulder,
        HumanBone::LeftUpperArm,
        HumanBone::LeftLowerArm,
        HumanBone::LeftHand,
        HumanBone::LeftThumbMetacarpal,
        HumanBone::LeftThumbProximal,
        HumanBone::LeftThumbDistal,
        HumanBone::LeftIndexProximal,
        HumanBone::LeftIndexIntermediate,
        HumanBone::LeftIndexDistal,
        HumanBone::LeftMiddleProximal,
        HumanBone::LeftMiddleIntermediate,
        HumanBone::LeftMiddleDistal,
        HumanBone::LeftRingProximal,
        HumanBone::LeftRingIntermediate,
        HumanBone::LeftRingDistal,
        HumanBone::LeftLittleProximal,
        HumanBone::LeftLittleIntermediate,
        HumanBone::LeftLittleDistal,
        HumanBone::RightShoulder,
        HumanBone::RightUpperArm,
        HumanBone::RightLowerArm,
        HumanBone::RightHand,
        HumanBone::RightThumbMetacarpal,
        HumanBone::RightThumbProximal,
        HumanBone::RightThumbDistal,
        HumanBone::RightIndexProximal,
        HumanBone::RightIndexIntermediate,
        HumanBone::RightIndexDistal,
        HumanBone::RightMiddleProximal,
        HumanBone::RightMiddleIntermediate,
        HumanBone::RightMiddleDistal,
        HumanBone::RightRingProximal,
        HumanBone::RightRingIntermediate,
        HumanBone::RightRingDistal,
        HumanBone::RightLittleProximal,
        HumanBone::RightLittleIntermediate,
        HumanBone::RightLittleDistal,
        HumanBone::LeftUpperLeg,
        HumanBone::LeftLowerLeg,
        HumanBone::LeftFoot,
        HumanBone::LeftToes,
        HumanBone::RightUpperLeg,
        HumanBone::RightLowerLeg,
        HumanBone::RightFoot,
        HumanBone::RightToes,
    ];

    /// The number of canonical bones.
    pub const COUNT: usize = 55;

    /// The spec name (`leftUpperArm`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The position of this bone in [`HumanBone::ALL`] (0 for `hips`).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The bone at `index` in [`HumanBone::ALL`].
    pub fn from_index(index: usize) -> Option<HumanBone> {
        Self::ALL.get(index).copied()
    }

    /// The canonical parent (`None` for `hips`). When a file lacks the parent, its own parent
    /// adopts the children: walk up with [`HumanBone::ancestors`].
    pub fn parent(self) -> Option<HumanBone> {
        use HumanBone::*;
        Some(match self {
            Hips => return None,
            Spine => Hips,
            Chest => Spine,
            UpperChest => Chest,
            Neck => UpperChest,
            Head => Neck,
            LeftEye => Head,
            RightEye => Head,
            Jaw => Head,
            LeftShoulder => UpperChest,
            LeftUpperArm => LeftShoulder,
            LeftLowerArm => LeftUpperArm,
            LeftHand => LeftLowerArm,
            LeftThumbMetacarpal => LeftHand,
            LeftThumbProximal => LeftThumbMetacarpal,
            LeftThumbDistal => LeftThumbProximal,
            LeftIndexProximal => LeftHand,
            LeftIndexIntermediate => LeftIndexProximal,
            LeftIndexDistal => LeftIndexIntermediate,
            LeftMiddleProximal => LeftHand,
            LeftMiddleIntermediate => LeftMiddleProximal,
            LeftMiddleDistal => LeftMiddleIntermediate,
            LeftRingProximal => LeftHand,
            LeftRingIntermediate => LeftRingProximal,
            LeftRingDistal => LeftRingIntermediate,
            LeftLittleProximal => LeftHand,
            LeftLittleIntermediate => LeftLittleProximal,
            LeftLittleDistal => LeftLittleIntermediate,
            RightShoulder => UpperChest,
            RightUpperArm => RightShoulder,
            RightLowerArm => RightUpperArm,
            RightHand => RightLowerArm,
            RightThumbMetacarpal => RightHand,
            RightThumbProximal => RightThumbMetacarpal,
            RightThumbDistal => RightThumbProximal,
            RightIndexProximal => RightHand,
            RightIndexIntermediate => RightIndexProximal,
            RightIndexDistal => RightIndexIntermediate,
            RightMiddleProximal => RightHand,
            RightMiddleIntermediate => RightMiddleProximal,
            RightMiddleDistal => RightMiddleIntermediate,
            RightRingProximal => RightHand,
            RightRingIntermediate => RightRingProximal,
            RightRingDistal => RightRingIntermediate,
            RightLittleProximal => RightHand,
            RightLittleIntermediate => RightLittleProximal,
            RightLittleDistal => RightLittleIntermediate,
            LeftUpperLeg => Hips,
            LeftLowerLeg => LeftUpperLeg,
            LeftFoot => LeftLowerLeg,
            LeftToes => LeftFoot,
            RightUpperLeg => Hips,
            RightLowerLeg => RightUpperLeg,
            RightFoot => RightLowerLeg,
            RightToes => RightFoot,
        })
    }

    /// The canonical ancestors, nearest first (`leftHand` → `leftLowerArm`, …, `hips`).
    pub fn ancestors(self) -> impl Iterator<Item = HumanBone> {
        std::iter::successors(self.parent(), |b| b.parent())
    }

    /// The canonical children, in [`HumanBone::ALL`] order.
    pub fn children(self) -> impl Iterator<Item = HumanBone> {
        Self::ALL
            .into_iter()
            .filter(move |b| b.parent() == Some(self))
    }

    /// Whether `profile` requires this bone.
    pub fn is_required(self, profile: Profile) -> bool {
        use HumanBone::*;
        let vrm1 = matches!(
            self,
            Hips | Spine
                | Head
                | LeftUpperArm
                | LeftLowerArm
                | LeftHand
                | RightUpperArm
                | RightLowerArm
                | RightHand
                | LeftUpperLeg
                | LeftLowerLeg
                | LeftFoot
                | RightUpperLeg
                | RightLowerLeg
                | RightFoot
        );
        match profile {
            Profile::ExtSkeletonHumanoid => false,
            Profile::Vrm1 => vrm1,
            Profile::Vrm0 => vrm1 || matches!(self, Chest | Neck),
            Profile::Godot => vrm1 || matches!(self, LeftShoulder | RightShoulder),
        }
    }

    /// The VRM 0.x name of this bone. The thumbs are shifted in 0.x: VRM 1.0
    /// `thumbMetacarpal`/`thumbProximal`/`thumbDistal` are 0.x
    /// `thumbProximal`/`thumbIntermediate`/`thumbDistal`.
    pub fn vrm0_name(self) -> &'static str {
        use HumanBone::*;
        match self {
            LeftThumbMetacarpal => "leftThumbProximal",
            LeftThumbProximal => "leftThumbIntermediate",
            RightThumbMetacarpal => "rightThumbProximal",
            RightThumbProximal => "rightThumbIntermediate",
            other => other.as_str(),
        }
    }

    /// The bone whose VRM 0.x name is `name`.
    pub fn from_vrm0_name(name: &str) -> Option<HumanBone> {
        Self::ALL.into_iter().find(|b| b.vrm0_name() == name)
    }

    /// Whether this bone is on the character's left side.
    pub fn is_left(self) -> bool {
        self.as_str().starts_with("left")
    }

    /// Whether this bone is on the character's right side.
    pub fn is_right(self) -> bool {
        self.as_str().starts_with("right")
    }

    /// The same bone on the other side (`leftHand` ↔ `rightHand`); central bones map to themselves.
    pub fn mirror(self) -> HumanBone {
        let name = self.as_str();
        let mirrored = if let Some(rest) = name.strip_prefix("left") {
            format!("right{rest}")
        } else if let Some(rest) = name.strip_prefix("right") {
            format!("left{rest}")
        } else {
            return self;
        };
        mirrored.parse().unwrap_or(self)
    }
}

/// ", did you mean `leftUpperArm`?" for the closest bone name, or nothing when none is close.
pub fn suggest(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let best = HumanBone::ALL
        .iter()
        .map(|b| {
            (
                crate::math::text::edit_distance(&lower, &b.as_str().to_ascii_lowercase()),
                *b,
            )
        })
        .min_by_key(|(d, _)| *d);
    match best {
        Some((d, bone)) if d <= 3.max(name.len() / 4) => format!(": did you mean `{bone}`?"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::IntoEnumIterator;

    #[test]
    fn names_are_the_spec_names() {
        // From the EXT_skeleton_humanoid bone table, first and last of each group.
        for name in [
            "hips",
            "spine",
            "chest",
            "upperChest",
            "neck",
            "head",
            "leftEye",
            "rightEye",
            "jaw",
            "leftShoulder",
            "rightHand",
            "leftThumbMetacarpal",
            "rightLittleDistal",
            "leftUpperLeg",
            "rightToes",
        ] {
            let bone: HumanBone = name.parse().expect(name);
            assert_eq!(bone.as_str(), name);
        }
        assert_eq!(HumanBone::iter().count(), 55);
        assert!("LeftHand".parse::<HumanBone>().is_err());
    }

    #[test]
    fn all_lists_parents_first() {
        for (i, bone) in HumanBone::ALL.iter().enumerate() {
            assert_eq!(bone.index(), i);
            if let Some(parent) = bone.parent() {
                assert!(parent.index() < i, "{bone} before its parent {parent}");
            }
        }
    }

    #[test]
    fn hierarchy_matches_the_spec_tree() {
        use HumanBone::*;
        assert_eq!(Neck.parent(), Some(UpperChest));
        assert_eq!(LeftShoulder.parent(), Some(UpperChest));
        assert_eq!(Jaw.parent(), Some(Head));
        assert_eq!(RightThumbDistal.parent(), Some(RightThumbProximal));
        assert_eq!(LeftLittleProximal.parent(), Some(LeftHand));
        assert_eq!(RightUpperLeg.parent(), Some(Hips));
        assert_eq!(
            LeftToes.ancestors().collect::<Vec<_>>(),
            [LeftFoot, LeftLowerLeg, LeftUpperLeg, Hips]
        );
        assert_eq!(
            Head.children().collect::<Vec<_>>(),
            [LeftEye, RightEye, Jaw]
        );
    }

    #[test]
    fn required_sets_have_the_documented_sizes() {
        let count = |p| HumanBone::ALL.iter().filter(|b| b.is_required(p)).count();
        assert_eq!(count(Profile::Vrm1), 15);
        assert_eq!(count(Profile::Vrm0), 17);
        assert_eq!(count(Profile::Godot), 17);
        assert_eq!(count(Profile::ExtSkeletonHumanoid), 0);
    }

    #[test]
    fn vrm0_thumbs_are_shifted() {
        assert_eq!(
            HumanBone::LeftThumbMetacarpal.vrm0_name(),
            "leftThumbProximal"
        );
        assert_eq!(
            HumanBone::from_vrm0_name("rightThumbIntermediate"),
            Some(HumanBone::RightThumbProximal)
        );
        assert_eq!(
            HumanBone::from_vrm0_name("leftIndexProximal"),
            Some(HumanBone::LeftIndexProximal)
        );
    }

    #[test]
    fn mirror_swaps_sides() {
        assert_eq!(
            HumanBone::LeftRingDistal.mirror(),
            HumanBone::RightRingDistal
        );
        assert_eq!(HumanBone::Jaw.mirror(), HumanBone::Jaw);
    }
}
