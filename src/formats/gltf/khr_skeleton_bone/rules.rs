//! The four rules (and the draft's other MUSTs), each finding at its JSON pointer.

#[allow(clippy::wildcard_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// The rules
// ---------------------------------------------------------------------------------------------

pub(super) fn label(root: &Root, n: usize) -> String {
    match root.nodes.get(n).and_then(|node| node.name.as_deref()) {
        Some(name) => format!("node {n} ({name:?})"),
        None => format!("node {n}"),
    }
}

pub(super) fn skin_label(root: &Root, s: usize) -> String {
    match root.skins.get(s).and_then(|skin| skin.name.as_deref()) {
        Some(name) => format!("skin {s} ({name:?})"),
        None => format!("skin {s}"),
    }
}

/// Up to five node labels, then how many more.
pub(super) fn listed(root: &Root, nodes: &[usize]) -> String {
    let mut out: Vec<String> = nodes.iter().take(5).map(|&n| label(root, n)).collect();
    if nodes.len() > 5 {
        out.push(format!("{} more", nodes.len() - 5));
    }
    out.join(", ")
}

/// The in-range joints of skin `s`, with their places in `joints`.
pub(super) fn joints_of(root: &Root, s: usize) -> Vec<(usize, usize)> {
    root.skins.get(s).map_or_else(Vec::new, |skin| {
        skin.joints
            .iter()
            .map(|j| j.as_usize())
            .enumerate()
            .filter(|&(_, j)| j < root.nodes.len())
            .collect()
    })
}

/// Rule 1: every skin has `skeleton`.
pub(super) fn no_skeleton(root: &Root, graph: &Graph, diagnostics: &mut Diagnostics) {
    for (s, skin) in root.skins.iter().enumerate() {
        if skin.skeleton.is_some() {
            continue;
        }
        let joints: Vec<usize> = joints_of(root, s).into_iter().map(|(_, j)| j).collect();
        let hint = match common_root(graph, &joints) {
            Some(r) => format!(
                " (its joints' common root is {}, or a node above it)",
                label(root, r)
            ),
            None => String::new(),
        };
        diagnostics.error(
            "KHR_SKELETON_BONE_NO_SKELETON",
            format!("/skins/{s}"),
            format!(
                "{} has no skeleton: with {NAME} in extensionsUsed every skin MUST name its \
                 skeleton root node; set skins/{s}/skeleton to the node its joints hang from{hint}",
                skin_label(root, s)
            ),
        );
    }
}

/// Skins that share a joint share their skeleton node.
pub(super) fn skeleton_conflicts(root: &Root, graph: &Graph, diagnostics: &mut Diagnostics) {
    for s in 0..root.skins.len() {
        let Some(skeleton) = graph.skeletons.get(s).copied().flatten() else {
            continue;
        };
        // Per other skin: the first joint in conflict and how many.
        let mut found: Vec<(usize, usize, usize, usize)> = Vec::new();
        for (k, j) in joints_of(root, s) {
            let Some(other) = graph.joint_skin.get(j).copied().flatten() else {
                continue;
            };
            let Some(other_root) = graph.skeletons.get(other).copied().flatten() else {
                continue;
            };
            if other == s || other_root == skeleton {
                continue;
            }
            match found.iter_mut().find(|f| f.0 == other) {
                Some(entry) => entry.3 += 1,
                None => found.push((other, k, j, 1)),
            }
        }
        for (other, k, j, count) in found {
            let other_root = graph
                .skeletons
                .get(other)
                .copied()
                .flatten()
                .unwrap_or(skeleton);
            diagnostics.error(
                "KHR_SKELETON_BONE_SKELETON_CONFLICT",
                format!("/skins/{s}/joints/{k}"),
                format!(
                    "{} is a joint of {} (skeleton {}) and of {} (skeleton {}){}: with {NAME} \
                     every bone belongs to one skeleton, so skins that share a joint MUST share \
                     their skeleton node; give both skins the same skeleton",
                    label(root, j),
                    skin_label(root, s),
                    label(root, skeleton),
                    skin_label(root, other),
                    label(root, other_root),
                    if count > 1 {
                        format!(" ({count} shared joints in all)")
                    } else {
                        String::new()
                    }
                ),
            );
        }
    }
}

/// Rule 2: every joint hangs from its skeleton root through bones of that skeleton.
pub(super) fn contiguity(root: &Root, graph: &Graph, diagnostics: &mut Diagnostics) {
    let mut memo: Vec<Option<(usize, Reach)>> = vec![None; graph.len()];
    for s in 0..root.skins.len() {
        let Some(skeleton) = graph.skeletons.get(s).copied().flatten() else {
            continue;
        };
        // Per blocking node: the first joint it blocks and how many.
        let mut blocked: Vec<(usize, usize, usize, usize)> = Vec::new();
        let mut outside: Option<(usize, usize, usize)> = None;
        for (k, j) in joints_of(root, s) {
            match reach(graph, &mut memo, j, skeleton) {
                Reach::Root => {}
                Reach::NotBone(x) => match blocked.iter_mut().find(|b| b.0 == x) {
                    Some(entry) => entry.3 += 1,
                    None => blocked.push((x, k, j, 1)),
                },
                Reach::NotUnder => match outside.as_mut() {
                    Some(entry) => entry.2 += 1,
                    None => outside = Some((k, j, 1)),
                },
            }
        }
        let others = |count: usize| {
            if count > 1 {
                format!(" ({count} joints of the skin in all)")
            } else {
                String::new()
            }
        };
        for (x, k, j, count) in blocked {
            let why = match graph.joint_root(x) {
                Some(other) => format!(
                    "a joint of {} only, whose skeleton is {}",
                    graph
                        .joint_skin
                        .get(x)
                        .copied()
                        .flatten()
                        .map_or_else(String::new, |o| skin_label(root, o)),
                    label(root, other)
                ),
                None => format!("no skin with that skeleton lists it and it carries no {NAME}"),
            };
            diagnostics.error(
                "KHR_SKELETON_BONE_NOT_CONTIGUOUS",
                format!("/skins/{s}/joints/{k}"),
                format!(
                    "{} of {} hangs from its skeleton root {} through {}, which is not a bone \
                     ({why}){}: {NAME} requires the parent of every bone to be another bone or \
                     the skeleton root; add {} to the skin's joints or give it an empty {NAME}",
                    label(root, j),
                    skin_label(root, s),
                    label(root, skeleton),
                    label(root, x),
                    others(count),
                    label(root, x),
                ),
            );
        }
        if let Some((k, j, count)) = outside {
            diagnostics.error(
                "KHR_SKELETON_BONE_NOT_CONTIGUOUS",
                format!("/skins/{s}/joints/{k}"),
                format!(
                    "{} of {} is not below the skin's skeleton root {}{}: {NAME} requires every \
                     bone to hang from the skeleton root; set the skin's skeleton to a common \
                     ancestor of all its joints",
                    label(root, j),
                    skin_label(root, s),
                    label(root, skeleton),
                    others(count),
                ),
            );
        }
    }
}

/// A node carrying the extension that is no joint is a bone too: it should hang, through
/// bones, from a skeleton root or a joint.
pub(super) fn outside_skeleton(
    root: &Root,
    graph: &Graph,
    marked: &[usize],
    diagnostics: &mut Diagnostics,
) {
    let mut memo: Vec<Option<bool>> = vec![None; graph.len()];
    for &m in marked {
        if graph.joint.get(m) == Some(&true) || graph.skeleton_root.get(m) == Some(&true) {
            continue;
        }
        let mut path = vec![m];
        let mut current = graph.parent(m);
        let inside = loop {
            let Some(node) = current else { break false };
            if let Some(known) = memo.get(node).copied().flatten() {
                break known;
            }
            if graph.skeleton_root.get(node) == Some(&true) || graph.joint.get(node) == Some(&true)
            {
                break true;
            }
            if graph.marked.get(node) != Some(&true) || path.len() > graph.len() {
                break false;
            }
            path.push(node);
            current = graph.parent(node);
        };
        for node in path {
            if let Some(slot) = memo.get_mut(node) {
                *slot = Some(inside);
            }
        }
        if !inside {
            diagnostics.warn(
                "KHR_SKELETON_BONE_OUTSIDE_SKELETON",
                format!("/nodes/{m}/extensions/{NAME}"),
                format!(
                    "{} carries {NAME}, which makes it a bone, but it does not hang through \
                     bones from any skin's skeleton root: the draft requires every bone to; make \
                     it (or the nodes above it) joints of a skin, or remove the extension",
                    label(root, m)
                ),
            );
        }
    }
}

/// Rule 3: bone nodes carry no mesh, camera or light.
pub(super) fn attachments(root: &Root, graph: &Graph, diagnostics: &mut Diagnostics) {
    for (n, node) in root.nodes.iter().enumerate() {
        if !graph.is_bone(n) {
            continue;
        }
        let what = if graph.joint.get(n) == Some(&true) {
            "a joint"
        } else {
            "a bone (it carries the extension)"
        };
        let light = node
            .extensions
            .as_ref()
            .and_then(|e| e.get(LIGHTS))
            .is_some();
        let found = [
            (node.mesh.is_some(), "mesh", "a mesh".to_owned()),
            (node.camera.is_some(), "camera", "a camera".to_owned()),
            (light, "", "a light".to_owned()),
        ];
        for (present, key, noun) in found {
            if !present {
                continue;
            }
            let pointer = if key.is_empty() {
                format!("/nodes/{n}/extensions/{LIGHTS}")
            } else {
                format!("/nodes/{n}/{key}")
            };
            diagnostics.error(
                "KHR_SKELETON_BONE_ATTACHMENT",
                pointer,
                format!(
                    "{} is {what} and carries {noun}: {NAME} requires bone nodes to carry no \
                     mesh, camera or light; move it to a new child node of {}",
                    label(root, n),
                    label(root, n)
                ),
            );
        }
    }
}

/// Rule 4: skinned mesh nodes are direct children of their skeleton root.
pub(super) fn mesh_placement(root: &Root, graph: &Graph, diagnostics: &mut Diagnostics) {
    for (n, node) in root.nodes.iter().enumerate() {
        let (Some(_), Some(skin)) = (node.mesh, node.skin) else {
            continue;
        };
        let s = skin.as_usize();
        let Some(skeleton) = graph.skeletons.get(s).copied().flatten() else {
            continue;
        };
        let parent = graph.parent(n);
        if parent == Some(skeleton) {
            continue;
        }
        let now = match parent {
            Some(p) => format!("a child of {}", label(root, p)),
            None => "a root node".to_owned(),
        };
        diagnostics.error(
            "KHR_SKELETON_BONE_MESH_PLACEMENT",
            format!("/nodes/{n}"),
            format!(
                "skinned mesh {} ({}) is {now}, not of its skeleton root {}: {NAME} requires \
                 every skinned mesh node to be a direct child of its skin's skeleton root; move \
                 it under {} (glTF ignores a skinned mesh node's own transform, so moving a childless one \
                 changes nothing drawn)",
                label(root, n),
                skin_label(root, s),
                label(root, skeleton),
                label(root, skeleton)
            ),
        );
    }
}

/// A node's local translation (from `translation`, or `matrix`'s last column).
pub(super) fn local_translation(node: &Node) -> [f64; 3] {
    if let Some(matrix) = &node.matrix {
        let m = floats(matrix);
        return [m[12], m[13], m[14]];
    }
    node.translation.as_ref().map_or([0.0; 3], floats)
}

pub(super) fn norm(t: [f64; 3]) -> f64 {
    (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt()
}

/// Whether `t` points along +Y within [`TOLERANCE`].
pub(super) fn on_plus_y(t: [f64; 3]) -> bool {
    let length = norm(t);
    length > 0.0 && t[1] > 0.0 && t[0].hypot(t[2]) <= TOLERANCE * length
}

/// Whether `t` is `(0, parent_length, 0)` within [`TOLERANCE`].
pub(super) fn at_tail(t: [f64; 3], parent_length: f64) -> bool {
    on_plus_y(t) && (t[1] - parent_length).abs() <= TOLERANCE * parent_length.max(norm(t))
}

/// `connected: true` puts a bone at its parent bone's tail.
pub(super) fn connected(
    root: &Root,
    graph: &Graph,
    bones: &[Option<BoneExt>],
    diagnostics: &mut Diagnostics,
) {
    for (n, bone) in bones.iter().enumerate() {
        if bone.and_then(|b| b.connected) != Some(true) {
            continue;
        }
        let Some(node) = root.nodes.get(n) else {
            continue;
        };
        let pointer = format!("/nodes/{n}/extensions/{NAME}/connected");
        let parent = graph.parent(n).filter(|&p| graph.is_bone(p));
        let Some(parent) = parent else {
            diagnostics.warn(
                "KHR_SKELETON_BONE_CONNECTED",
                pointer,
                format!(
                    "{} says connected, but its parent is no bone: connected means the bone's \
                     head is at its parent bone's tail, and has no meaning here; remove it",
                    label(root, n)
                ),
            );
            continue;
        };
        let t = local_translation(node);
        let parent_length = bones.get(parent).copied().flatten().and_then(|b| b.length);
        let (fits, wanted) = match parent_length {
            Some(length) => (
                at_tail(t, length),
                format!("(0, {length}, 0), the parent's tail"),
            ),
            None => (
                t == [0.0; 3] || on_plus_y(t),
                "on the parent's +Y axis (x = z = 0)".to_owned(),
            ),
        };
        if !fits {
            diagnostics.error(
                "KHR_SKELETON_BONE_CONNECTED",
                pointer,
                format!(
                    "{} says connected to its parent {}, but its local translation is \
                     ({}, {}, {}), not {wanted}: a connected bone MUST sit at its parent bone's \
                     tail; set connected to false, or fix the translation or the parent's length",
                    label(root, n),
                    label(root, parent),
                    t[0],
                    t[1],
                    t[2]
                ),
            );
        }
    }
}
