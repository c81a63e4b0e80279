//! Making a document meet the rules and writing `length` and `connected` ([`super::annotate`]).

#[allow(clippy::wildcard_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// Annotating
// ---------------------------------------------------------------------------------------------

pub(super) fn annotate_in(root: &mut Root) -> Result<Annotated, String> {
    let mut report = Annotated::default();
    let mut graph = Graph::new(root);
    let count = graph.len();

    // Rule 1: a skeleton for every skin that has none.
    for s in 0..root.skins.len() {
        if root.skins.get(s).is_none_or(|skin| skin.skeleton.is_some()) {
            continue;
        }
        let joints: Vec<usize> = joints_of(root, s).into_iter().map(|(_, j)| j).collect();
        let lowest = common_root(&graph, &joints).ok_or_else(|| {
            format!(
                "{} has no skeleton and its joints share no common root (they lie in different \
                 trees, or it has none), so no skeleton root can be chosen",
                skin_label(root, s)
            )
        })?;
        // The skeleton of a skin sharing a joint, then the common parent of its skinned mesh
        // nodes: either, when it hangs above the joints' root through bones.
        let shared = joints.iter().find_map(|&j| graph.joint_root(j));
        let mut parents = root
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| node.mesh.is_some() && node.skin.map(Index::as_usize) == Some(s))
            .map(|(n, _)| graph.parent(n));
        let first = parents.next().flatten();
        let mesh_parent = first.filter(|&p| parents.all(|q| q == Some(p)));
        let skeleton = [shared, mesh_parent]
            .into_iter()
            .flatten()
            .find(|&candidate| graph.hangs_from(lowest, candidate))
            .unwrap_or(lowest);
        let index =
            Index::try_from(skeleton).map_err(|_| format!("node {skeleton} is out of range"))?;
        if let Some(skin) = root.skins.get_mut(s) {
            skin.skeleton = Some(index);
        }
        report.skeletons_set.push((s, skeleton));
        if let Some(slot) = graph.skeletons.get_mut(s) {
            *slot = Some(skeleton);
        }
        if let Some(slot) = graph.skeleton_root.get_mut(skeleton) {
            *slot = true;
        }
        for &j in &joints {
            if let Some(slot @ None) = graph.joint_skin.get_mut(j) {
                *slot = Some(s);
            }
        }
    }

    // Rule 4: childless skinned mesh nodes move under their skeleton root.
    for n in 0..count {
        let Some(node) = root.nodes.get(n) else {
            continue;
        };
        let (Some(_), Some(skin)) = (node.mesh, node.skin) else {
            continue;
        };
        let Some(skeleton) = graph.skeletons.get(skin.as_usize()).copied().flatten() else {
            continue;
        };
        let old = graph.parent(n);
        if old == Some(skeleton) {
            continue;
        }
        let why = |what: &str| {
            format!(
                "skinned mesh {} must be a direct child of its skeleton root {}, but {what}",
                label(root, n),
                label(root, skeleton)
            )
        };
        if n == skeleton {
            return Err(why("it is that root itself"));
        }
        if !node.children.is_empty() {
            return Err(why(
                "it has children, which would move with it: move them elsewhere first",
            ));
        }
        if graph.is_bone(n) {
            return Err(why("it is a bone, which may carry no mesh"));
        }
        let index = Index::try_from(n).map_err(|_| format!("node {n} is out of range"))?;
        match old {
            Some(p) => {
                if let Some(parent) = root.nodes.get_mut(p) {
                    parent.children.retain(|&c| c != index);
                }
            }
            None => {
                for scene in &mut root.scenes {
                    scene.nodes.retain(|&c| c != index);
                }
            }
        }
        if let Some(parent) = root.nodes.get_mut(skeleton) {
            parent.children.push(index);
        }
        if let Some(slot) = graph.parents.get_mut(n) {
            *slot = Some(skeleton);
        }
        report.reparented.push((n, old));
    }

    // The declaration.
    report.declared = root.use_extension(NAME);
    let required = root.extensions_required.len();
    root.extensions_required.retain(|e| e != NAME);
    report.unrequired = required != root.extensions_required.len();

    // Lengths: to the child bone most nearly on +Y; a valid one already there is kept.
    let translations: Vec<[f64; 3]> = root.nodes.iter().map(|n| local_translation(n)).collect();
    let translation = |n: usize| translations.get(n).copied().unwrap_or([0.0; 3]);
    let mut lengths: Vec<Option<f64>> = vec![None; count];
    let mut computed = vec![false; count];
    for (b, node) in root.nodes.iter().enumerate() {
        if !graph.is_bone(b) {
            continue;
        }
        let kept = extension(node).and_then(|v| read_bone(v, b, None).length);
        let length = match kept {
            Some(length) => {
                report.lengths_kept += 1;
                Some(length)
            }
            None => {
                let mut best: Option<(f64, f64)> = None;
                for child in node.children.iter().map(|c| c.as_usize()) {
                    if child >= count || !graph.is_bone(child) {
                        continue;
                    }
                    let t = translation(child);
                    let length = norm(t);
                    let score = if length > 0.0 { t[1] / length } else { -2.0 };
                    if length.is_finite() && best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, length));
                    }
                }
                if let Some(slot) = computed.get_mut(b) {
                    *slot = best.is_some();
                }
                best.map(|(_, length)| length)
            }
        };
        if let Some(slot) = lengths.get_mut(b) {
            *slot = length;
        }
    }

    // Write them, with connected.
    for b in 0..count {
        if !graph.is_bone(b) {
            continue;
        }
        let parent_length = graph
            .parent(b)
            .filter(|&p| graph.is_bone(p))
            .and_then(|p| lengths.get(p).copied().flatten());
        let is_connected = parent_length.is_some_and(|l| at_tail(translation(b), l));
        let length = lengths.get(b).copied().flatten();
        let write_length = computed.get(b) == Some(&true);
        let Some(node) = root.nodes.get_mut(b) else {
            continue;
        };
        let extensions = node.extensions.get_or_insert_with(Map::new);
        let value = extensions
            .entry(NAME)
            .or_insert_with(|| Value::Object(Map::new()));
        if !value.is_object() {
            *value = Value::Object(Map::new());
        }
        let Some(object) = value.as_object_mut() else {
            continue;
        };
        match (write_length, length.and_then(Number::from_f64)) {
            (true, Some(number)) => {
                object.insert("length".to_owned(), Value::Number(number));
                report.lengths += 1;
            }
            // Kept as it was.
            (false, Some(_)) => {}
            // A leaf (or an invalid value): no length.
            _ => {
                object.shift_remove("length");
            }
        }
        object.insert("connected".to_owned(), Value::Bool(is_connected));
        report.bones += 1;
        report.connected += usize::from(is_connected);
    }

    // Whatever still breaks a rule cannot be fixed without changing the model.
    let mut found = Diagnostics::new();
    check(root, &mut found);
    let errors: Vec<&Diagnostic> = found
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    if let Some(first) = errors.first() {
        let more = match errors.len() {
            1 => String::new(),
            k => format!(
                " (and {} more: {})",
                k - 1,
                codes(errors.get(1..).unwrap_or(&[]))
            ),
        };
        return Err(format!(
            "cannot meet the {NAME} rules without changing the model: {}: {}{more}",
            first.location, first.message
        ));
    }
    Ok(report)
}

/// The places and codes of some findings, for a message.
pub(super) fn codes(found: &[&Diagnostic]) -> String {
    found
        .iter()
        .take(5)
        .map(|d| format!("{} at {}", d.code, d.location))
        .collect::<Vec<_>>()
        .join(", ")
}
