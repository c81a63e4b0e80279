//! Nodes above a skeleton that are no part of it: glTF's `Z_UP` and `Armature`, a VRM's
//! unweighted root. Writers of formats whose top joint is the figure's root (H-Anim's
//! `humanoid_root`, BVH's `ROOT`) leave them out and carry their transform otherwise; which
//! nodes those are is decided here, once, for every writer.
//!
//! ## Overview
//!
//! From the single root of the joints to write, down the chain while the node is above every
//! mapped humanoid bone (so a rig with no bones mapped keeps all its joints), has exactly one
//! child to write, and the writer may fold it (`foldable`: not weighted, not animated, …: each
//! writer knows what it can carry). The first node that fails stops the chain.
//!
//! ```
//! use humanoid::model::fold::chain_above_bones;
//! use humanoid::model::skeleton::{RawJoint, Skeleton};
//! use humanoid::model::{BoneMap, HumanBone};
//! use humanoid::pose::Trs;
//!
//! let joint = |name: &str, parent| RawJoint { name: name.into(), parent, rest: Trs::IDENTITY };
//! let raw = vec![joint("Z_UP", None), joint("Armature", Some(0)), joint("hips", Some(1)), joint("spine", Some(2))];
//! let (skeleton, ids) = Skeleton::from_raw(raw)?;
//! let mut bones = BoneMap::new();
//! bones.set(HumanBone::Hips, Some(ids[2]));
//! bones.set(HumanBone::Spine, Some(ids[3]));
//! let chain = chain_above_bones(&skeleton, &bones, |_| true, |_| true);
//! assert_eq!(chain, [ids[0], ids[1]]);
//! // No bones mapped: nothing is folded.
//! assert!(chain_above_bones(&skeleton, &BoneMap::new(), |_| true, |_| true).is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::humanoid::BoneMap;
use super::skeleton::{JointId, Skeleton};

/// The nodes to fold, top first (module docs): `written` says which joints the writer writes,
/// `foldable` whether it can leave a node out.
pub fn chain_above_bones(
    skeleton: &Skeleton,
    bones: &BoneMap,
    written: impl Fn(JointId) -> bool,
    foldable: impl Fn(JointId) -> bool,
) -> Vec<JointId> {
    if bones.is_empty() {
        return Vec::new();
    }
    let roots: Vec<JointId> = skeleton
        .joints()
        .filter(|j| written(*j) && skeleton.parent(*j).is_none_or(|p| !written(p)))
        .collect();
    let [mut node] = roots[..] else {
        return Vec::new();
    };
    let above_bones = |j: JointId| bones.iter().all(|(_, b)| skeleton.is_ancestor(j, b));
    let mut chain = Vec::new();
    loop {
        let children: Vec<JointId> = skeleton.children(node).filter(|c| written(*c)).collect();
        let [child] = children[..] else { break };
        if !(above_bones(node) && foldable(node)) {
            break;
        }
        chain.push(node);
        node = child;
    }
    chain
}
