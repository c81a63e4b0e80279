//! The node graph the rules are read on: parents, skins, bones.

#[allow(clippy::wildcard_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// The node graph
// ---------------------------------------------------------------------------------------------

/// What the rules ask about each node, computed once.
pub(super) struct Graph {
    /// Each node's parent (the first node listing it as a child).
    pub(super) parents: Vec<Option<usize>>,
    /// Whether the node carries the extension.
    pub(super) marked: Vec<bool>,
    /// Whether some skin lists the node as a joint.
    pub(super) joint: Vec<bool>,
    /// The first skin with an in-range `skeleton` that lists the node as a joint.
    pub(super) joint_skin: Vec<Option<usize>>,
    /// Whether the node is some skin's skeleton root.
    pub(super) skeleton_root: Vec<bool>,
    /// Each skin's skeleton root, when set and in range.
    pub(super) skeletons: Vec<Option<usize>>,
}

impl Graph {
    pub(super) fn new(root: &Root) -> Self {
        let count = root.nodes.len();
        let mut parents = vec![None; count];
        for (i, node) in root.nodes.iter().enumerate() {
            for child in &node.children {
                if let Some(slot @ None) = parents.get_mut(child.as_usize()) {
                    *slot = Some(i);
                }
            }
        }
        let marked = root.nodes.iter().map(|n| extension(n).is_some()).collect();
        let skeletons: Vec<Option<usize>> = root
            .skins
            .iter()
            .map(|skin| skin.skeleton.map(Index::as_usize).filter(|&r| r < count))
            .collect();
        let mut joint = vec![false; count];
        let mut joint_skin = vec![None; count];
        let mut skeleton_root = vec![false; count];
        for (s, skin) in root.skins.iter().enumerate() {
            let skeleton = skeletons.get(s).copied().flatten();
            if let Some(slot) = skeleton.and_then(|r| skeleton_root.get_mut(r)) {
                *slot = true;
            }
            for j in &skin.joints {
                let j = j.as_usize();
                if let Some(slot) = joint.get_mut(j) {
                    *slot = true;
                }
                if let (Some(slot @ None), Some(_)) = (joint_skin.get_mut(j), skeleton) {
                    *slot = Some(s);
                }
            }
        }
        Graph {
            parents,
            marked,
            joint,
            joint_skin,
            skeleton_root,
            skeletons,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.parents.len()
    }

    pub(super) fn parent(&self, node: usize) -> Option<usize> {
        self.parents.get(node).copied().flatten()
    }

    pub(super) fn is_bone(&self, node: usize) -> bool {
        self.joint.get(node) == Some(&true) || self.marked.get(node) == Some(&true)
    }

    /// The skeleton root of the first skin (with a skeleton) that lists `node` as a joint.
    pub(super) fn joint_root(&self, node: usize) -> Option<usize> {
        let skin = self.joint_skin.get(node).copied().flatten()?;
        self.skeletons.get(skin).copied().flatten()
    }

    /// Whether `node` is a bone of the skeleton rooted at `skeleton`: a joint of a skin with
    /// that skeleton, or a node carrying the extension.
    pub(super) fn bone_of(&self, skeleton: usize, node: usize) -> bool {
        self.marked.get(node) == Some(&true) || self.joint_root(node) == Some(skeleton)
    }

    /// Whether `ancestor` is `node` or above it, every node from `node` up to it (not
    /// included) being a bone.
    pub(super) fn hangs_from(&self, node: usize, ancestor: usize) -> bool {
        let mut current = node;
        for _ in 0..=self.len() {
            if current == ancestor {
                return true;
            }
            if !self.is_bone(current) {
                return false;
            }
            match self.parent(current) {
                Some(parent) => current = parent,
                None => return false,
            }
        }
        false
    }
}

/// How a joint's walk up to its skeleton root ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    /// It met the root through bones only.
    Root,
    /// It met this node, which is no bone of the skeleton, first.
    NotBone(usize),
    /// It never met the root.
    NotUnder,
}

/// Walks up from `joint` to `skeleton`, remembering the outcome for every node it passed.
pub(super) fn reach(
    graph: &Graph,
    memo: &mut [Option<(usize, Reach)>],
    joint: usize,
    skeleton: usize,
) -> Reach {
    let mut path = Vec::new();
    let mut current = joint;
    let outcome = loop {
        if current == skeleton {
            break Reach::Root;
        }
        if let Some(Some((root, known))) = memo.get(current) {
            if *root == skeleton {
                break *known;
            }
        }
        if current != joint && !graph.bone_of(skeleton, current) {
            break Reach::NotBone(current);
        }
        path.push(current);
        if path.len() > graph.len() {
            break Reach::NotUnder;
        }
        match graph.parent(current) {
            Some(parent) => current = parent,
            None => break Reach::NotUnder,
        }
    };
    // The joint itself is remembered only when it is a bone of this skeleton (a joint shared
    // with another skeleton is reported as a conflict, and is no bone on others' paths).
    let skip = usize::from(!graph.bone_of(skeleton, joint));
    for &node in path.iter().skip(skip) {
        if let Some(slot) = memo.get_mut(node) {
            *slot = Some((skeleton, outcome));
        }
    }
    outcome
}

/// The lowest node above (or equal to) all `joints`; `None` when they lie in different trees.
pub(super) fn common_root(graph: &Graph, joints: &[usize]) -> Option<usize> {
    let count = graph.len();
    let mut joints = joints.iter().copied().filter(|&j| j < count);
    let first = joints.next()?;
    // The first joint and its ancestors, bottom up; `on_chain[n]` is n's place on it.
    let mut chain = vec![first];
    let mut on_chain: Vec<Option<usize>> = vec![None; count];
    if let Some(slot) = on_chain.get_mut(first) {
        *slot = Some(0);
    }
    let mut current = first;
    while let Some(parent) = graph.parent(current) {
        match on_chain.get_mut(parent) {
            Some(slot @ None) => *slot = Some(chain.len()),
            _ => break,
        }
        chain.push(parent);
        current = parent;
    }
    // Each other joint walks up to the chain; `met[n]` remembers where n's walk met it.
    let mut met: Vec<Option<usize>> = vec![None; count];
    let mut highest = 0;
    for joint in joints {
        let mut path = Vec::new();
        let mut current = joint;
        let place = loop {
            if let Some(place) = on_chain.get(current).copied().flatten() {
                break Some(place);
            }
            if let Some(place) = met.get(current).copied().flatten() {
                break Some(place);
            }
            path.push(current);
            if path.len() > count {
                break None;
            }
            match graph.parent(current) {
                Some(parent) => current = parent,
                None => break None,
            }
        };
        let place = place?;
        for node in path {
            if let Some(slot) = met.get_mut(node) {
                *slot = Some(place);
            }
        }
        highest = highest.max(place);
    }
    chain.get(highest).copied()
}
