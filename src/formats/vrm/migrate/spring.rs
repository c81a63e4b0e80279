//! `secondaryAnimation` becomes `VRMC_springBone`, as UniVRM's `MigrationVrmSpringBone` does.
//!
//! - Collider groups keep their order (springs name them by index); each 0.x sphere
//!   `{offset, radius}` becomes a collider on the group's node, the offset turned by
//!   [`vrm0::from_unity_vector`] (three-vrm's z flip of 0.x offsets, then the model's turn).
//! - Each root of a bone group starts a chain down every node's *first* child; the other
//!   children start new chains one level further down (UniVRM's rule: a second or later child
//!   is not a joint itself, only its first child starts a spring). Those skipped nodes swayed
//!   in 0.x and are reported.
//! - VRM 0.x swung a chain's last node toward a point 7 cm along its bone; VRM 1.0 needs a
//!   node there, so a leaf gets a child `<name>_end` at `normalize(translation) × 0.07`
//!   (UniVRM's `AddTail7cm`).
//! - Joint settings come from the group (`stiffiness` is the 0.x spelling); `gravityDir` is a
//!   Unity-space vector like the offsets, so it becomes `(−x, y, z)` (UniVRM; three-vrm reads
//!   0.x `gravityDir` unflipped, which differs when z ≠ 0: reported).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::vrm0::{self, at, BASE};
use crate::error::Diagnostics;
use crate::formats::gltf::json::{floats, to_floats, Index, Node, Ordered, Root};

/// UniVRM 0.x's default joint settings, for a bone group that leaves one out.
const DEFAULT_STIFFNESS: f64 = 1.0;
const DEFAULT_GRAVITY_POWER: f64 = 0.0;
const DEFAULT_GRAVITY_DIR: [f64; 3] = [0.0, -1.0, 0.0];
const DEFAULT_DRAG_FORCE: f64 = 0.4;
const DEFAULT_HIT_RADIUS: f64 = 0.02;

/// How far beyond a leaf 0.x put the end of its bone.
const TAIL_LENGTH: f64 = 0.07;

/// `VRMC_springBone` from the 0.x `secondaryAnimation` (`None` when it has no collider and no
/// spring). Adds the tail nodes to `root`.
pub(super) fn spring_bone_json(
    secondary: &Map<String, Value>,
    root: &mut Root,
    diagnostics: &mut Diagnostics,
) -> Option<Value> {
    let here = at(BASE, "secondaryAnimation");
    let (colliders, groups) = colliders(secondary, root.nodes.len(), &here, diagnostics);
    let springs = Springs::new(root, diagnostics).build(secondary, groups.len(), &here);
    if colliders.is_empty() && groups.is_empty() && springs.is_empty() {
        return None;
    }
    let mut out = Map::new();
    out.insert("specVersion".into(), Value::from("1.0"));
    if !colliders.is_empty() {
        out.insert("colliders".into(), Value::Array(colliders));
    }
    if !groups.is_empty() {
        out.insert("colliderGroups".into(), Value::Array(groups));
    }
    if !springs.is_empty() {
        out.insert("springs".into(), Value::Array(springs));
    }
    Some(Value::Object(out))
}

/// The colliders and the collider groups (same order as 0.x).
fn colliders(
    secondary: &Map<String, Value>,
    node_count: usize,
    here: &str,
    diagnostics: &mut Diagnostics,
) -> (Vec<Value>, Vec<Value>) {
    let mut colliders = Vec::new();
    let mut groups = Vec::new();
    let list_at = at(here, "colliderGroups");
    for (g, group) in vrm0::array(secondary, "colliderGroups").iter().enumerate() {
        let group_at = at(&list_at, g.to_string());
        let node = group
            .get("node")
            .and_then(vrm0::index)
            .filter(|&n| n < node_count);
        let mut members = Vec::new();
        match node {
            None => diagnostics.warn(
                "MIGRATE_SPRING_INVALID",
                at(&group_at, "node"),
                "the collider group's node is not a node index; its colliders were dropped",
            ),
            Some(node) => {
                let entries = group
                    .get("colliders")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice);
                for (c, collider) in entries.iter().enumerate() {
                    let offset = collider.get("offset").and_then(vrm0::vector3);
                    let radius = collider
                        .get("radius")
                        .and_then(Value::as_f64)
                        .filter(|r| r.is_finite());
                    let (Some(offset), Some(radius)) = (offset, radius) else {
                        diagnostics.warn(
                            "MIGRATE_SPRING_INVALID",
                            at(&at(&group_at, "colliders"), c.to_string()),
                            "the collider has no {x, y, z} offset or no radius; it was dropped",
                        );
                        continue;
                    };
                    members.push(Value::from(colliders.len()));
                    colliders.push(sphere(node, offset, radius));
                }
            }
        }
        if members.is_empty() {
            diagnostics.warn(
                "MIGRATE_SPRING_INVALID",
                group_at,
                "the collider group has no collider left; it is kept empty so that springs keep their group indices",
            );
        }
        let mut out = Map::new();
        out.insert("colliders".into(), Value::Array(members));
        groups.push(Value::Object(out));
    }
    (colliders, groups)
}

fn sphere(node: usize, offset: [f64; 3], radius: f64) -> Value {
    let mut sphere = Map::new();
    sphere.insert(
        "offset".into(),
        vrm0::json_numbers(&vrm0::from_unity_vector(offset)),
    );
    sphere.insert("radius".into(), vrm0::json_number(radius));
    let mut shape = Map::new();
    shape.insert("sphere".into(), Value::Object(sphere));
    let mut collider = Map::new();
    collider.insert("node".into(), Value::from(node));
    collider.insert("shape".into(), Value::Object(shape));
    Value::Object(collider)
}

/// One bone group's joint settings, as 1.0 joint properties.
fn joint_settings(
    group: &Map<String, Value>,
    group_at: &str,
    diagnostics: &mut Diagnostics,
) -> Map<String, Value> {
    let mut missing = Vec::new();
    let mut get = |key: &'static str, default: f64| {
        vrm0::number(group, key).unwrap_or_else(|| {
            missing.push(key);
            default
        })
    };
    let hit_radius = get("hitRadius", DEFAULT_HIT_RADIUS);
    let stiffness = get("stiffiness", DEFAULT_STIFFNESS);
    let gravity_power = get("gravityPower", DEFAULT_GRAVITY_POWER);
    let drag_force = get("dragForce", DEFAULT_DRAG_FORCE);
    let gravity = match group.get("gravityDir").and_then(vrm0::vector3) {
        Some(dir) => {
            if dir[2] != 0.0 {
                diagnostics.info(
                    "MIGRATE_SPRING_GRAVITY",
                    at(group_at, "gravityDir"),
                    format!(
                        "gravityDir {dir:?} has a z component: like UniVRM this migration reads it in Unity space and writes (-x, y, z); three-vrm reads 0.x gravityDir unflipped, so it plays the 0.x file with the opposite z"
                    ),
                );
            }
            vrm0::from_unity_vector(dir)
        }
        None => {
            missing.push("gravityDir");
            DEFAULT_GRAVITY_DIR
        }
    };
    if !missing.is_empty() {
        diagnostics.info(
            "MIGRATE_SPRING_DEFAULT",
            group_at,
            format!(
                "the bone group has no {}: UniVRM 0.x's defaults were used",
                missing.join(", ")
            ),
        );
    }
    let mut settings = Map::new();
    settings.insert("hitRadius".into(), vrm0::json_number(hit_radius));
    settings.insert("stiffness".into(), vrm0::json_number(stiffness));
    settings.insert("gravityPower".into(), vrm0::json_number(gravity_power));
    settings.insert("gravityDir".into(), vrm0::json_numbers(&gravity));
    settings.insert("dragForce".into(), vrm0::json_number(drag_force));
    settings
}

/// A spring being built: its joint nodes (the last may be an added tail).
struct Chain {
    nodes: Vec<usize>,
}

/// Builds springs over the node tree as it was before any tail was added.
struct Springs<'a> {
    root: &'a mut Root,
    children: Vec<Vec<usize>>,
    tails: HashMap<usize, usize>,
    skipped: Vec<usize>,
    diagnostics: &'a mut Diagnostics,
}

impl<'a> Springs<'a> {
    fn new(root: &'a mut Root, diagnostics: &'a mut Diagnostics) -> Self {
        let count = root.nodes.len();
        let children = root
            .nodes
            .iter()
            .map(|n| {
                n.children
                    .iter()
                    .map(|c| c.as_usize())
                    .filter(|&c| c < count)
                    .collect()
            })
            .collect();
        Springs {
            root,
            children,
            tails: HashMap::new(),
            skipped: Vec::new(),
            diagnostics,
        }
    }

    fn build(
        mut self,
        secondary: &Map<String, Value>,
        group_count: usize,
        here: &str,
    ) -> Vec<Value> {
        let list_at = at(here, "boneGroups");
        let mut springs = Vec::new();
        for (g, group) in vrm0::array(secondary, "boneGroups").iter().enumerate() {
            let group_at = at(&list_at, g.to_string());
            let Some(group) = group.as_object() else {
                self.diagnostics.warn(
                    "MIGRATE_SPRING_INVALID",
                    group_at,
                    "the bone group is not an object; dropped",
                );
                continue;
            };
            let settings = joint_settings(group, &group_at, self.diagnostics);
            let common = self.spring_properties(group, group_count, &group_at);
            for (r, bone) in vrm0::array(group, "bones").iter().enumerate() {
                let Some(start) = vrm0::index(bone).filter(|&n| n < self.children.len()) else {
                    self.diagnostics.warn(
                        "MIGRATE_SPRING_INVALID",
                        at(&at(&group_at, "bones"), r.to_string()),
                        format!("{bone} is not a node index; that chain was dropped"),
                    );
                    continue;
                };
                for chain in self.chains(start) {
                    springs.push(spring_json(&chain, &settings, &common, &self.tails));
                }
            }
        }
        self.report();
        springs
    }

    /// `name`, `colliderGroups` and `center` of the springs of a bone group.
    fn spring_properties(
        &mut self,
        group: &Map<String, Value>,
        group_count: usize,
        group_at: &str,
    ) -> Map<String, Value> {
        let mut common = Map::new();
        if let Some(comment) = vrm0::string(group, "comment").filter(|c| !c.is_empty()) {
            common.insert("name".into(), Value::from(comment));
        }
        let mut indices = Vec::new();
        for value in vrm0::array(group, "colliderGroups") {
            match vrm0::index(value).filter(|&i| i < group_count) {
                Some(i) if !indices.contains(&Value::from(i)) => indices.push(Value::from(i)),
                Some(_) => {}
                None => self.diagnostics.warn(
                    "MIGRATE_SPRING_INVALID",
                    at(group_at, "colliderGroups"),
                    format!("{value} is not a collider group index; dropped"),
                ),
            }
        }
        if !indices.is_empty() {
            common.insert("colliderGroups".into(), Value::Array(indices));
        }
        // 0.x writes -1 for "no center".
        let center = group.get("center").filter(|c| c.as_i64() != Some(-1));
        match center.map(|c| vrm0::index(c).filter(|&n| n < self.children.len())) {
            None => {}
            Some(Some(node)) => {
                common.insert("center".into(), Value::from(node));
            }
            Some(None) => self.diagnostics.warn(
                "MIGRATE_SPRING_INVALID",
                at(group_at, "center"),
                "the spring center is not a node index; the springs have no center",
            ),
        }
        common
    }

    /// The chains UniVRM makes from one root (see the module docs), adding tails to leaves.
    fn chains(&mut self, start: usize) -> Vec<Chain> {
        let mut chains: Vec<Chain> = Vec::new();
        // (node, level, index of the chain it extends)
        let mut stack: Vec<(usize, usize, Option<usize>)> = vec![(start, 1, None)];
        while let Some((node, level, chain)) = stack.pop() {
            let chain = match chain {
                None if level > 0 => {
                    chains.push(Chain { nodes: Vec::new() });
                    Some(chains.len() - 1)
                }
                other => other,
            };
            match chain.and_then(|c| chains.get_mut(c)) {
                Some(c) => c.nodes.push(node),
                None => self.skipped.push(node),
            }
            let kids = self.children.get(node).cloned().unwrap_or_default();
            if kids.is_empty() {
                if let Some(c) = chain.and_then(|c| chains.get_mut(c)) {
                    if let Some(tail) = self.tail(node) {
                        c.nodes.push(tail);
                    }
                }
                continue;
            }
            for (i, &kid) in kids.iter().enumerate().rev() {
                if i == 0 {
                    stack.push((kid, level + 1, chain));
                } else {
                    stack.push((kid, 0, None));
                }
            }
        }
        chains.retain(|c| !c.nodes.is_empty());
        chains
    }

    /// The tail node of a leaf, added on first use: `<name>_end`, 7 cm along its translation.
    fn tail(&mut self, leaf: usize) -> Option<usize> {
        if let Some(&tail) = self.tails.get(&leaf) {
            return Some(tail);
        }
        let node = self.root.nodes.get(leaf)?;
        let translation = match (&node.translation, &node.matrix) {
            (Some(t), _) => floats(t),
            (None, Some(m)) => {
                let m = floats(m);
                [m[12], m[13], m[14]]
            }
            (None, None) => [0.0; 3],
        };
        let length = translation.iter().map(|v| v * v).sum::<f64>().sqrt();
        let delta = if length > 0.0 && length.is_finite() {
            translation.map(|v| v / length * TAIL_LENGTH)
        } else {
            self.diagnostics.warn(
                "MIGRATE_SPRING_TAIL",
                format!("/nodes/{leaf}"),
                format!("spring leaf node {leaf} has no translation to point its 7 cm tail along; the tail sits on the node"),
            );
            [0.0; 3]
        };
        let name = format!("{}_end", node.name.as_deref().unwrap_or_default());
        let index = self.root.nodes.len();
        let typed = Index::try_from(index).ok()?;
        self.root.nodes.push(Ordered::new(Node {
            name: Some(name),
            translation: Some(to_floats(delta)),
            ..Node::default()
        }));
        if let Some(parent) = self.root.nodes.get_mut(leaf) {
            parent.children.push(typed);
        }
        self.tails.insert(leaf, index);
        Some(index)
    }

    fn report(&mut self) {
        if !self.tails.is_empty() {
            let mut leaves: Vec<String> =
                self.tails.iter().map(|(l, t)| format!("{l}→{t}")).collect();
            leaves.sort();
            self.diagnostics.info(
                "MIGRATE_SPRING_TAIL",
                "/nodes",
                format!(
                    "VRM 1.0 springs end at a node: {} tail node(s) 7 cm beyond the spring leaves were added (leaf→tail: {})",
                    self.tails.len(),
                    vrm0::short_list(&leaves, 8)
                ),
            );
        }
        if !self.skipped.is_empty() {
            self.skipped.sort_unstable();
            self.skipped.dedup();
            let nodes: Vec<String> = self.skipped.iter().map(ToString::to_string).collect();
            self.diagnostics.warn(
                "MIGRATE_SPRING_BRANCH",
                at(BASE, "secondaryAnimation"),
                format!(
                    "nodes {} swayed in VRM 0.x as second or later children in a spring tree; as in UniVRM's migration they are not joints of any VRM 1.0 spring",
                    vrm0::short_list(&nodes, 12)
                ),
            );
        }
    }
}

fn spring_json(
    chain: &Chain,
    settings: &Map<String, Value>,
    common: &Map<String, Value>,
    tails: &HashMap<usize, usize>,
) -> Value {
    let is_tail = |n: usize| tails.values().any(|&t| t == n);
    let joints: Vec<Value> = chain
        .nodes
        .iter()
        .map(|&node| {
            let mut joint = Map::new();
            joint.insert("node".into(), Value::from(node));
            if !is_tail(node) {
                joint.extend(settings.clone());
            }
            Value::Object(joint)
        })
        .collect();
    let mut spring = Map::new();
    if let Some(name) = common.get("name") {
        spring.insert("name".into(), name.clone());
    }
    spring.insert("joints".into(), Value::Array(joints));
    for key in ["colliderGroups", "center"] {
        if let Some(value) = common.get(key) {
            spring.insert(key.into(), value.clone());
        }
    }
    Value::Object(spring)
}
