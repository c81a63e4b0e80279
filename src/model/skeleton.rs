//! The joint hierarchy of a character, stored the way ozz-animation stores it: flat parallel
//! arrays in parents-before-children order.
//!
//! ## Overview
//!
//! Importers fill a list of [`RawJoint`]s in the file's own order and hand it to
//! [`Skeleton::from_raw`], which validates it, lays it out depth-first and returns, for each raw
//! joint, its new [`JointId`] (every format needs to write back to its own node indices).
//!
//! ```
//! use glam::Vec3;
//! use humanoid::model::skeleton::{RawJoint, Skeleton};
//! use humanoid::pose::trs::Trs;
//!
//! // The file lists the child first.
//! let raw = vec![
//!     RawJoint { name: "spine".into(), parent: Some(1), rest: Trs::from_translation(Vec3::Y) },
//!     RawJoint { name: "hips".into(), parent: None, rest: Trs::from_translation(Vec3::new(0.0, 1.0, 0.0)) },
//! ];
//! let (skeleton, ids) = Skeleton::from_raw(raw)?;
//! let (spine, hips) = (ids[0], ids[1]);
//! assert_eq!(hips.index(), 0); // parents first
//! assert_eq!(skeleton.parent(spine), Some(hips));
//! assert_eq!(skeleton.rest_world(spine).translation, Vec3::new(0.0, 2.0, 0.0));
//! assert_eq!(skeleton.find("spine"), Some(spine));
//! # Ok::<(), humanoid::model::skeleton::SkeletonError>(())
//! ```

use std::fmt;

use crate::math::trs::Trs;

/// The most joints a [`Skeleton`] may have.
pub const MAX_JOINTS: usize = 65_536;

/// The index of a joint in its [`Skeleton`] (a typed index, not interchangeable with node or
/// bone indices).
///
/// Ids come from [`Skeleton::from_raw`] or [`Skeleton::joint`]; an id from another skeleton may
/// be out of range here (see [`Skeleton::contains`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JointId(u32);

impl JointId {
    /// The position in the skeleton's arrays.
    pub fn index(self) -> usize {
        // u32 → usize never narrows on the targets we build for (32- and 64-bit).
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }

    /// The id for `index` (`None` beyond `u32::MAX`). Whether the joint exists is a question for
    /// the skeleton: [`Skeleton::contains`].
    pub fn from_index(index: usize) -> Option<JointId> {
        u32::try_from(index).ok().map(JointId)
    }
}

impl fmt::Display for JointId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "joint {}", self.0)
    }
}

/// One joint as an importer sees it, before [`Skeleton::from_raw`] orders and checks it.
#[derive(Debug, Clone, PartialEq)]
pub struct RawJoint {
    /// The joint's name (may be empty, need not be unique).
    pub name: String,
    /// The index of the parent in the raw list; `None` for a root.
    pub parent: Option<usize>,
    /// The local rest transform (relative to the parent).
    pub rest: Trs,
}

/// Why [`Skeleton::from_raw`] refused its input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkeletonError {
    /// More joints than [`MAX_JOINTS`].
    #[error("{count} joints (at most {max} are supported)")]
    TooManyJoints {
        /// How many were given.
        count: usize,
        /// [`MAX_JOINTS`].
        max: usize,
    },
    /// A parent index past the end of the list.
    #[error("joint {joint} ({name:?}): parent {parent} is out of range ({count} joints)")]
    ParentOutOfRange {
        /// The raw index of the joint.
        joint: usize,
        /// Its name.
        name: String,
        /// The parent index given.
        parent: usize,
        /// How many joints there are.
        count: usize,
    },
    /// The parent links loop (a joint its own ancestor, or its own parent).
    #[error("joint {joint} ({name:?}) is its own ancestor: the parent links form a cycle")]
    Cycle {
        /// The raw index of a joint on the cycle.
        joint: usize,
        /// Its name.
        name: String,
    },
}

/// A joint hierarchy with rest transforms, immutable once built.
///
/// **Order: every joint comes after its parent (depth-first pre-order: a joint, then its
/// whole subtree, siblings in the order the raw list gave them).** So a forward loop over the
/// joints sees parents before children (how [`Skeleton::rest_world`] is computed) and a joint's
/// subtree is the contiguous run after it.
///
/// Stored as private parallel arrays (names, parents, local rest, world rest), read through
/// slices and per-joint accessors. Accessors given a [`JointId`] that is not in this skeleton
/// (from another skeleton) do not panic: they answer as for an unnamed root at rest (empty
/// name, no parent, identity transforms, no children).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skeleton {
    names: Vec<String>,
    parents: Vec<Option<JointId>>,
    rest: Vec<Trs>,
    rest_world: Vec<Trs>,
}

impl Skeleton {
    /// Builds a skeleton from joints in any order.
    ///
    /// Checks, in this order: at most [`MAX_JOINTS`] joints; every parent index in range; no
    /// cycle. Then lays the joints out depth-first from the roots (in raw order), computes the
    /// world rest transforms (`world = parent_world * local`), and returns the skeleton with
    /// the map from raw index to new id (`ids[raw_index]`).
    ///
    /// # Errors
    /// [`SkeletonError`] naming the raw joint at fault.
    pub fn from_raw(raw: Vec<RawJoint>) -> Result<(Skeleton, Vec<JointId>), SkeletonError> {
        let count = raw.len();
        if count > MAX_JOINTS {
            return Err(SkeletonError::TooManyJoints {
                count,
                max: MAX_JOINTS,
            });
        }
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); count];
        let mut roots = Vec::new();
        for (joint, r) in raw.iter().enumerate() {
            match r.parent {
                None => roots.push(joint),
                Some(parent) => match children.get_mut(parent) {
                    Some(siblings) => siblings.push(joint),
                    None => {
                        return Err(SkeletonError::ParentOutOfRange {
                            joint,
                            name: r.name.clone(),
                            parent,
                            count,
                        })
                    }
                },
            }
        }

        // Depth-first pre-order, with an explicit stack (a 65 536-joint chain must not overflow).
        let mut order: Vec<usize> = Vec::with_capacity(count);
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(joint) = stack.pop() {
            order.push(joint);
            if let Some(kids) = children.get(joint) {
                stack.extend(kids.iter().rev());
            }
        }
        if order.len() < count {
            return Err(cycle_error(&raw, &order));
        }

        let mut ids = vec![JointId(0); count];
        for (new, &old) in order.iter().enumerate() {
            if let (Some(slot), Some(id)) = (ids.get_mut(old), JointId::from_index(new)) {
                *slot = id;
            }
        }
        let mut skeleton = Skeleton {
            names: Vec::with_capacity(count),
            parents: Vec::with_capacity(count),
            rest: Vec::with_capacity(count),
            rest_world: Vec::with_capacity(count),
        };
        let mut raw: Vec<Option<RawJoint>> = raw.into_iter().map(Some).collect();
        for &old in &order {
            let Some(joint) = raw.get_mut(old).and_then(Option::take) else {
                continue;
            };
            let parent = joint.parent.and_then(|p| ids.get(p).copied());
            let world = match parent.and_then(|p| skeleton.rest_world.get(p.index())) {
                Some(parent_world) => *parent_world * joint.rest,
                None => joint.rest,
            };
            skeleton.names.push(joint.name);
            skeleton.parents.push(parent);
            skeleton.rest.push(joint.rest);
            skeleton.rest_world.push(world);
        }
        Ok((skeleton, ids))
    }

    /// The number of joints.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no joints.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Whether `id` is a joint of this skeleton.
    pub fn contains(&self, id: JointId) -> bool {
        id.index() < self.len()
    }

    /// The id of the joint at position `index` (0-based, parents first). Not range-checked:
    /// meant for loops over `0..len()`; use [`JointId::from_index`] and
    /// [`Skeleton::contains`] for untrusted indices.
    pub fn joint(&self, index: usize) -> JointId {
        JointId(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// All joint ids, parents first.
    pub fn joints(&self) -> impl Iterator<Item = JointId> + '_ {
        (0..self.len()).filter_map(JointId::from_index)
    }

    /// The joint's name (empty for an id not in this skeleton).
    pub fn name(&self, id: JointId) -> &str {
        self.names.get(id.index()).map_or("", String::as_str)
    }

    /// The joint's parent; `None` for roots.
    pub fn parent(&self, id: JointId) -> Option<JointId> {
        self.parents.get(id.index()).copied().flatten()
    }

    /// The joint's local rest transform (relative to its parent).
    pub fn rest_local(&self, id: JointId) -> Trs {
        self.rest.get(id.index()).copied().unwrap_or(Trs::IDENTITY)
    }

    /// The joint's rest transform in model space: the local rest transforms composed from the
    /// root down (`world = parent_world * local`, see [`Trs`] for what composition keeps).
    pub fn rest_world(&self, id: JointId) -> Trs {
        self.rest_world
            .get(id.index())
            .copied()
            .unwrap_or(Trs::IDENTITY)
    }

    /// The joints' names, by joint index.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The joints' parents, by joint index (`parents()[i] < i` whenever present).
    pub fn parents(&self) -> &[Option<JointId>] {
        &self.parents
    }

    /// The local rest transforms, by joint index.
    pub fn rest_locals(&self) -> &[Trs] {
        &self.rest
    }

    /// The model-space rest transforms, by joint index.
    pub fn rest_worlds(&self) -> &[Trs] {
        &self.rest_world
    }

    /// The joint's direct children, in order. Since a subtree is the contiguous run after its
    /// root, the scan stops at the end of the subtree.
    pub fn children(&self, id: JointId) -> impl Iterator<Item = JointId> + '_ {
        let start = id.index().saturating_add(1);
        let in_range = self.contains(id);
        self.parents
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .zip(start..)
            .take_while(move |(parent, _)| in_range && parent.is_some_and(|p| p >= id))
            .filter(move |(parent, _)| **parent == Some(id))
            .filter_map(|(_, index)| JointId::from_index(index))
    }

    /// The first joint named `name` (names need not be unique).
    pub fn find(&self, name: &str) -> Option<JointId> {
        self.names
            .iter()
            .position(|n| n == name)
            .and_then(JointId::from_index)
    }

    /// Whether `ancestor` is a proper ancestor of `joint` (a joint is not its own ancestor).
    pub fn is_ancestor(&self, ancestor: JointId, joint: JointId) -> bool {
        self.ancestors(joint).any(|a| a == ancestor)
    }

    /// The joint's ancestors, nearest first (parent, grandparent, …, root); the joint itself is
    /// not included.
    pub fn ancestors(&self, id: JointId) -> impl Iterator<Item = JointId> + '_ {
        std::iter::successors(self.parent(id), move |&p| self.parent(p))
    }
}

/// The error for joints that no depth-first walk from a root reached: they hang off a cycle.
/// Names a joint that is on the cycle itself.
fn cycle_error(raw: &[RawJoint], reached: &[usize]) -> SkeletonError {
    let mut seen = vec![false; raw.len()];
    for &r in reached {
        if let Some(s) = seen.get_mut(r) {
            *s = true;
        }
    }
    // Any unreached joint leads up into a cycle; walking up from it, the first joint met twice
    // is on the cycle.
    let start = seen.iter().position(|s| !s).unwrap_or(0);
    let mut on_path = vec![false; raw.len()];
    let mut joint = start;
    loop {
        match on_path.get_mut(joint) {
            Some(true) | None => break,
            Some(flag) => *flag = true,
        }
        match raw.get(joint).and_then(|r| r.parent) {
            Some(parent) => joint = parent,
            None => break,
        }
    }
    SkeletonError::Cycle {
        joint,
        name: raw.get(joint).map(|r| r.name.clone()).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    fn raw(name: &str, parent: Option<usize>) -> RawJoint {
        RawJoint {
            name: name.into(),
            parent,
            rest: Trs::from_translation(Vec3::Y),
        }
    }

    #[track_caller]
    fn assert_parents_first(skeleton: &Skeleton) {
        for (i, parent) in skeleton.parents().iter().enumerate() {
            if let Some(p) = parent {
                assert!(
                    p.index() < i,
                    "joint {i} comes before its parent {}",
                    p.index()
                );
            }
        }
    }

    /// A file order with children before parents and two roots:
    /// 0 hand ← 1 arm ← 3 chest ← 2 hips; 4 head ← 3; 5 prop (root).
    fn scrambled() -> Vec<RawJoint> {
        vec![
            raw("hand", Some(1)),
            raw("arm", Some(3)),
            raw("hips", None),
            raw("chest", Some(2)),
            raw("head", Some(3)),
            raw("prop", None),
        ]
    }

    #[test]
    fn sorts_parents_first_depth_first() {
        let (skeleton, ids) = Skeleton::from_raw(scrambled()).unwrap();
        assert_parents_first(&skeleton);
        // Depth-first from the roots in raw order, children in raw order:
        // hips, chest, arm, hand, head, prop.
        let names: Vec<&str> = skeleton.names().iter().map(String::as_str).collect();
        assert_eq!(names, ["hips", "chest", "arm", "hand", "head", "prop"]);
        // ids[raw] is where each raw joint went.
        let new: Vec<usize> = ids.iter().map(|id| id.index()).collect();
        assert_eq!(new, [3, 2, 0, 1, 4, 5]);
        for (old, id) in ids.iter().enumerate() {
            assert_eq!(skeleton.name(*id), scrambled()[old].name);
        }
    }

    #[test]
    fn navigation() {
        let (s, _) = Skeleton::from_raw(scrambled()).unwrap();
        let id = |name| s.find(name).unwrap();
        assert_eq!(s.len(), 6);
        assert_eq!(s.parent(id("hand")), Some(id("arm")));
        assert_eq!(s.parent(id("hips")), None);
        assert_eq!(
            s.children(id("chest")).collect::<Vec<_>>(),
            [id("arm"), id("head")]
        );
        assert_eq!(s.children(id("hips")).collect::<Vec<_>>(), [id("chest")]);
        assert_eq!(s.children(id("hand")).count(), 0);
        assert_eq!(s.children(id("prop")).count(), 0);
        assert_eq!(
            s.ancestors(id("hand")).collect::<Vec<_>>(),
            [id("arm"), id("chest"), id("hips")]
        );
        assert!(s.is_ancestor(id("hips"), id("hand")));
        assert!(s.is_ancestor(id("chest"), id("head")));
        assert!(!s.is_ancestor(id("hand"), id("hand")));
        assert!(!s.is_ancestor(id("arm"), id("head")));
        assert!(!s.is_ancestor(id("hips"), id("prop")));
        assert_eq!(s.find("nope"), None);
        assert_eq!(s.joints().count(), 6);
    }

    #[test]
    fn rest_world_composes_down_the_chain() {
        // hips at (0, 1, 0) turned 90° about Y; spine 0.5 up; arm 1 along local +X.
        // World arm = (0, 1.5, 0) + R_y(90°)·(1, 0, 0) = (0, 1.5, -1).
        let quarter = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        let raw = vec![
            RawJoint {
                name: "hips".into(),
                parent: None,
                rest: Trs::new(Vec3::Y, quarter, Vec3::ONE),
            },
            RawJoint {
                name: "spine".into(),
                parent: Some(0),
                rest: Trs::from_translation(Vec3::new(0.0, 0.5, 0.0)),
            },
            RawJoint {
                name: "arm".into(),
                parent: Some(1),
                rest: Trs::from_translation(Vec3::X),
            },
        ];
        let (s, ids) = Skeleton::from_raw(raw).unwrap();
        let arm = s.rest_world(ids[2]);
        assert!(
            arm.translation.abs_diff_eq(Vec3::new(0.0, 1.5, -1.0), 1e-6),
            "{arm:?}"
        );
        assert!(arm.rotation.abs_diff_eq(quarter, 1e-6));
        assert_eq!(s.rest_local(ids[2]).translation, Vec3::X);
        assert_eq!(s.rest_worlds().len(), 3);
        assert_eq!(s.rest_locals().len(), 3);
    }

    #[test]
    fn rejects_bad_parents_and_cycles() {
        let err = Skeleton::from_raw(vec![raw("a", None), raw("b", Some(7))]).unwrap_err();
        assert_eq!(
            err,
            SkeletonError::ParentOutOfRange {
                joint: 1,
                name: "b".into(),
                parent: 7,
                count: 2
            }
        );
        // 1 → 2 → 3 → 1, with 4 hanging off the cycle.
        let looped = vec![
            raw("root", None),
            raw("a", Some(3)),
            raw("b", Some(1)),
            raw("c", Some(2)),
            raw("d", Some(1)),
        ];
        match Skeleton::from_raw(looped).unwrap_err() {
            SkeletonError::Cycle { joint, .. } => assert!((1..=3).contains(&joint), "{joint}"),
            other => panic!("{other:?}"),
        }
        let own_parent = Skeleton::from_raw(vec![raw("self", Some(0))]).unwrap_err();
        assert_eq!(
            own_parent,
            SkeletonError::Cycle {
                joint: 0,
                name: "self".into()
            }
        );
        assert!(own_parent.to_string().contains("cycle"));
    }

    #[test]
    fn joint_limit() {
        let chain =
            |n: usize| -> Vec<RawJoint> { (0..n).map(|i| raw("j", i.checked_sub(1))).collect() };
        // A maximal chain is accepted (and its depth does not overflow the stack).
        let (s, _) = Skeleton::from_raw(chain(MAX_JOINTS)).unwrap();
        assert_eq!(s.len(), MAX_JOINTS);
        assert_parents_first(&s);
        assert!(matches!(
            Skeleton::from_raw(chain(MAX_JOINTS + 1)),
            Err(SkeletonError::TooManyJoints { count: 65_537, .. })
        ));
        let (empty, ids) = Skeleton::from_raw(Vec::new()).unwrap();
        assert!(empty.is_empty() && ids.is_empty());
    }

    #[test]
    fn foreign_ids_do_not_panic() {
        let (s, _) = Skeleton::from_raw(vec![raw("only", None)]).unwrap();
        let foreign = JointId::from_index(5).unwrap();
        assert!(!s.contains(foreign));
        assert_eq!(s.name(foreign), "");
        assert_eq!(s.parent(foreign), None);
        assert_eq!(s.rest_world(foreign), Trs::IDENTITY);
        assert_eq!(s.children(foreign).count(), 0);
        assert_eq!(s.ancestors(foreign).count(), 0);
        assert_eq!(s.joint(usize::MAX).index(), u32::MAX as usize);
    }
}
