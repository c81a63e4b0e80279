//! `VRMC_springBone` becomes 0.x `secondaryAnimation`, the inverse of `migrate/spring.rs`.
//!
//! - **Colliders**: 0.x collider groups sit on one node each, 1.0 groups may gather
//!   colliders of several nodes, so each 1.0 group becomes one 0.x group per node (in the order
//!   the nodes first appear) and springs refer to all of them. Sphere offsets (node-local) are
//!   turned to face −Z and written in Unity space by [`vrm1::from_unity_vector`] (its own
//!   inverse, as in the migration). 0.x has spheres only: a capsule becomes spheres of its
//!   radius spaced at most one radius apart from `offset` to `tail`, reported.
//! - **Springs**: a 0.x bone group lists root nodes and sways each root's *whole subtree*,
//!   every node toward its first child (a leaf toward a point 7 cm along its bone); a 1.0
//!   spring is an explicit chain of joints. Each spring becomes a root (its first joint) in
//!   the bone group of its settings (the first joint's; 0.x has one set per group), collider
//!   groups, center and name (0.x `comment`); a root inside the subtree of another root of the
//!   same group is already swayed by it and is left out. This undoes the migration exactly,
//!   which split each 0.x root into chains. What sways differently in 0.x is reported: subtree
//!   nodes no spring names, chains that do not follow first children, joints whose settings
//!   differ from the first's, the chains' last joints (1.0 ends there, 0.x sways them too:
//!   the tail nodes the migration added stay as nodes) and nodes two groups sway.
//! - `gravityDir` is a Unity-space vector in 0.x for UniVRM, so it becomes `(−x, y, z)` as the
//!   migration reads it (three-vrm reads it unflipped: reported when z ≠ 0).
//! - Joint values 1.0 leaves out get the 1.0 schema defaults (hit radius 0, stiffness 1,
//!   gravity 0 toward −Y, drag 0.5), written explicitly since 0.x readers default differently.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::vrm1::{self, at};
use crate::error::Diagnostics;
use crate::formats::gltf::json::Root;

/// The VRM 1.0 spring bone root extension.
pub(super) const SPRING_BONE_EXTENSION: &str = "VRMC_springBone";

/// Where the 1.0 spring bone extension is.
const SPRING_BASE: &str = "/extensions/VRMC_springBone";

/// The VRM 1.0 joint schema defaults.
const DEFAULT_HIT_RADIUS: f64 = 0.0;
const DEFAULT_STIFFNESS: f64 = 1.0;
const DEFAULT_GRAVITY_POWER: f64 = 0.0;
const DEFAULT_GRAVITY_DIR: [f64; 3] = [0.0, -1.0, 0.0];
const DEFAULT_DRAG_FORCE: f64 = 0.5;

/// At most this many spheres stand for one capsule.
const MAX_CAPSULE_SPHERES: u32 = 16;

/// One 0.x sphere in 1.0 node-local space: offset and radius.
type Sphere = ([f64; 3], f64);

/// The joint settings of a spring, compared exactly.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Settings {
    hit_radius: f64,
    stiffness: f64,
    gravity_power: f64,
    gravity_dir: [f64; 3],
    drag_force: f64,
}

/// A 1.0 spring, read.
#[derive(Debug, Clone)]
struct Spring {
    /// JSON pointer of the spring.
    at: String,
    joints: Vec<usize>,
    settings: Settings,
    /// The 0.x collider groups it uses.
    collider_groups: Vec<usize>,
    center: Option<usize>,
    name: Option<String>,
    /// Whether a joint before the last has other settings than the first.
    mixed_settings: bool,
}

/// A 0.x bone group being built.
#[derive(Debug, Clone)]
struct BoneGroup {
    settings: Settings,
    collider_groups: Vec<usize>,
    center: Option<usize>,
    name: Option<String>,
    roots: Vec<usize>,
    /// Every joint of every spring in the group.
    joints: BTreeSet<usize>,
}

/// The node tree, for subtree questions.
struct Tree {
    children: Vec<Vec<usize>>,
    parents: Vec<Option<usize>>,
}

impl Tree {
    fn new(root: &Root) -> Self {
        let count = root.nodes.len();
        let children: Vec<Vec<usize>> = root
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
        let mut parents = vec![None; count];
        for (p, kids) in children.iter().enumerate() {
            for &c in kids {
                if let Some(slot @ None) = parents.get_mut(c) {
                    *slot = Some(p);
                }
            }
        }
        Tree { children, parents }
    }

    /// Whether `node` lies strictly below `ancestor`.
    fn is_below(&self, node: usize, ancestor: usize) -> bool {
        let mut at = self.parents.get(node).copied().flatten();
        let mut steps = 0;
        while let Some(p) = at {
            if p == ancestor {
                return true;
            }
            steps += 1;
            if steps > self.parents.len() {
                return false;
            }
            at = self.parents.get(p).copied().flatten();
        }
        false
    }

    /// `node` and everything below it.
    fn subtree(&self, node: usize) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if out.insert(n) {
                stack.extend(self.children.get(n).into_iter().flatten().copied());
            }
        }
        out
    }

    fn first_child(&self, node: usize) -> Option<usize> {
        self.children.get(node)?.first().copied()
    }
}

/// The 0.x `secondaryAnimation` (empty lists without `VRMC_springBone`).
pub(super) fn secondary_animation_json(
    spring_bone: Option<&Map<String, Value>>,
    root: &Root,
    diagnostics: &mut Diagnostics,
) -> Value {
    let empty = Map::new();
    let spring_bone = spring_bone.unwrap_or(&empty);
    let node_count = root.nodes.len();
    let (collider_groups, group_map) = collider_groups(spring_bone, node_count, diagnostics);
    let springs = springs(spring_bone, node_count, &group_map, diagnostics);
    let tree = Tree::new(root);
    let groups = bone_groups(&springs, &tree);
    report_differences(&springs, &groups, &tree, diagnostics);
    let mut out = Map::new();
    out.insert(
        "boneGroups".into(),
        Value::Array(groups.iter().map(bone_group_json).collect()),
    );
    out.insert("colliderGroups".into(), Value::Array(collider_groups));
    Value::Object(out)
}

/// The 0.x collider groups, and for each 1.0 group the 0.x groups it became.
fn collider_groups(
    spring_bone: &Map<String, Value>,
    node_count: usize,
    diagnostics: &mut Diagnostics,
) -> (Vec<Value>, Vec<Vec<usize>>) {
    let colliders = colliders(spring_bone, node_count, diagnostics);
    let list_at = at(SPRING_BASE, "colliderGroups");
    let mut out: Vec<Value> = Vec::new();
    let mut map = Vec::new();
    let mut named = Vec::new();
    for (g, group) in vrm1::array(spring_bone, "colliderGroups")
        .iter()
        .enumerate()
    {
        if let Some(name) = group.get("name").and_then(Value::as_str) {
            named.push(name.to_owned());
        }
        // (node, spheres) in the order nodes first appear.
        let mut by_node: Vec<(usize, Vec<Value>)> = Vec::new();
        for value in group
            .get("colliders")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
        {
            let Some((node, spheres)) = vrm1::index(value).and_then(|c| colliders.get(c)?.as_ref())
            else {
                diagnostics.warn(
                    "DOWNGRADE_SPRING_INVALID",
                    at(&at(&list_at, g.to_string()), "colliders"),
                    format!("{value} is not a usable collider index; dropped"),
                );
                continue;
            };
            let spheres = spheres.iter().map(|s| sphere_json(*s));
            match by_node.iter_mut().find(|(n, _)| n == node) {
                Some((_, list)) => list.extend(spheres),
                None => by_node.push((*node, spheres.collect())),
            }
        }
        let mut indices = Vec::new();
        for (node, spheres) in by_node {
            indices.push(out.len());
            let mut group = Map::new();
            group.insert("node".into(), Value::from(node));
            group.insert("colliders".into(), Value::Array(spheres));
            out.push(Value::Object(group));
        }
        map.push(indices);
    }
    if !named.is_empty() {
        diagnostics.info(
            "DOWNGRADE_SPRING_NAME",
            list_at,
            format!(
                "VRM 0.x collider groups have no name; dropped: {}",
                vrm1::short_list(&named, 12)
            ),
        );
    }
    (out, map)
}

/// Each 1.0 collider as its node and 0.x spheres (`None`, reported, when unusable).
fn colliders(
    spring_bone: &Map<String, Value>,
    node_count: usize,
    diagnostics: &mut Diagnostics,
) -> Vec<Option<(usize, Vec<Sphere>)>> {
    let list_at = at(SPRING_BASE, "colliders");
    let mut capsules = Vec::new();
    let mut out = Vec::new();
    for (c, collider) in vrm1::array(spring_bone, "colliders").iter().enumerate() {
        let collider_at = at(&list_at, c.to_string());
        let node = collider
            .get("node")
            .and_then(vrm1::index)
            .filter(|&n| n < node_count);
        let shape = collider.get("shape");
        let sphere = shape.and_then(|s| s.get("sphere"));
        let capsule = shape.and_then(|s| s.get("capsule"));
        let spheres = match (sphere, capsule) {
            (Some(sphere), _) => read_sphere(sphere).map(|s| vec![s]),
            (None, Some(capsule)) => read_capsule(capsule).inspect(|s| {
                capsules.push(format!("{c} ({} spheres)", s.len()));
            }),
            (None, None) => None,
        };
        match (node, spheres) {
            (Some(node), Some(spheres)) => out.push(Some((node, spheres))),
            _ => {
                diagnostics.warn(
                    "DOWNGRADE_SPRING_INVALID",
                    collider_at,
                    "the collider has no node index or no readable sphere or capsule shape; it was dropped",
                );
                out.push(None);
            }
        }
    }
    if !capsules.is_empty() {
        diagnostics.warn(
            "DOWNGRADE_SPRING_CAPSULE",
            list_at,
            format!(
                "VRM 0.x colliders are spheres: capsules were approximated by spheres of their radius spaced at most one radius apart: colliders {}",
                vrm1::short_list(&capsules, 12)
            ),
        );
    }
    out
}

/// A 1.0 sphere `{offset, radius}` (defaults `[0, 0, 0]` and 0).
fn read_sphere(sphere: &Value) -> Option<Sphere> {
    let offset = match sphere.get("offset") {
        None => [0.0; 3],
        Some(v) => vrm1::vector3(v)?,
    };
    let radius = match sphere.get("radius") {
        None => 0.0,
        Some(v) => vrm1::finite(v)?,
    };
    Some((offset, radius))
}

/// A 1.0 capsule `{offset, radius, tail}` as spheres from `offset` to `tail`.
fn read_capsule(capsule: &Value) -> Option<Vec<Sphere>> {
    let (offset, radius) = read_sphere(capsule)?;
    let tail = match capsule.get("tail") {
        None => [0.0; 3],
        Some(v) => vrm1::vector3(v)?,
    };
    Some(capsule_spheres(offset, tail, radius))
}

/// Spheres of `radius` from `offset` to `tail` inclusive, at most one radius apart (at most
/// [`MAX_CAPSULE_SPHERES`]).
pub(super) fn capsule_spheres(offset: [f64; 3], tail: [f64; 3], radius: f64) -> Vec<Sphere> {
    let delta = [
        tail[0] - offset[0],
        tail[1] - offset[1],
        tail[2] - offset[2],
    ];
    let length = delta.iter().map(|d| d * d).sum::<f64>().sqrt();
    // The fewest steps (spheres − 1) that keep neighbours at most one radius apart.
    let steps = if radius > 0.0 && length.is_finite() {
        (1..MAX_CAPSULE_SPHERES)
            .find(|&n| f64::from(n) * radius >= length)
            .unwrap_or(MAX_CAPSULE_SPHERES - 1)
    } else {
        1
    };
    (0..=steps)
        .map(|i| {
            let t = f64::from(i) / f64::from(steps);
            (
                [
                    offset[0] + delta[0] * t,
                    offset[1] + delta[1] * t,
                    offset[2] + delta[2] * t,
                ],
                radius,
            )
        })
        .collect()
}

/// A 0.x collider `{offset, radius}` from a node-local 1.0 sphere.
fn sphere_json((offset, radius): Sphere) -> Value {
    let mut sphere = Map::new();
    sphere.insert(
        "offset".into(),
        vrm1::vector3_object(vrm1::from_unity_vector(offset)),
    );
    sphere.insert("radius".into(), vrm1::json_number(radius));
    Value::Object(sphere)
}

/// The readable springs.
fn springs(
    spring_bone: &Map<String, Value>,
    node_count: usize,
    group_map: &[Vec<usize>],
    diagnostics: &mut Diagnostics,
) -> Vec<Spring> {
    let list_at = at(SPRING_BASE, "springs");
    let mut out = Vec::new();
    for (s, spring) in vrm1::array(spring_bone, "springs").iter().enumerate() {
        let spring_at = at(&list_at, s.to_string());
        let Some(spring) = spring.as_object() else {
            diagnostics.warn(
                "DOWNGRADE_SPRING_INVALID",
                spring_at,
                "the spring is not an object; it was dropped",
            );
            continue;
        };
        let joints = vrm1::array(spring, "joints");
        let nodes: Option<Vec<usize>> = joints
            .iter()
            .map(|j| {
                j.get("node")
                    .and_then(vrm1::index)
                    .filter(|&n| n < node_count)
            })
            .collect();
        let (Some(nodes), Some(first)) = (nodes, joints.first()) else {
            diagnostics.warn(
                "DOWNGRADE_SPRING_INVALID",
                at(&spring_at, "joints"),
                "the spring has no joints or a joint without a node index; it was dropped",
            );
            continue;
        };
        let settings = settings(first);
        let used = joints.len().saturating_sub(1);
        let mixed_settings = joints
            .iter()
            .take(used)
            .any(|j| self::settings(j) != settings);
        let collider_groups = spring_collider_groups(spring, group_map, &spring_at, diagnostics);
        let center = spring
            .get("center")
            .and_then(vrm1::index)
            .filter(|&n| n < node_count);
        if spring.get("center").is_some() && center.is_none() {
            diagnostics.warn(
                "DOWNGRADE_SPRING_INVALID",
                at(&spring_at, "center"),
                "the spring center is not a node index; the bone group has no center",
            );
        }
        let name = vrm1::string(spring, "name").map(str::to_owned);
        out.push(Spring {
            at: spring_at,
            joints: nodes,
            settings,
            collider_groups,
            center,
            name,
            mixed_settings,
        });
    }
    out
}

/// A joint's settings, schema defaults for what it leaves out.
fn settings(joint: &Value) -> Settings {
    let number = |key: &str, default: f64| joint.get(key).and_then(vrm1::finite).unwrap_or(default);
    Settings {
        hit_radius: number("hitRadius", DEFAULT_HIT_RADIUS),
        stiffness: number("stiffness", DEFAULT_STIFFNESS),
        gravity_power: number("gravityPower", DEFAULT_GRAVITY_POWER),
        gravity_dir: joint
            .get("gravityDir")
            .and_then(vrm1::vector3)
            .unwrap_or(DEFAULT_GRAVITY_DIR),
        drag_force: number("dragForce", DEFAULT_DRAG_FORCE),
    }
}

/// The 0.x collider groups of a spring's 1.0 groups.
fn spring_collider_groups(
    spring: &Map<String, Value>,
    group_map: &[Vec<usize>],
    spring_at: &str,
    diagnostics: &mut Diagnostics,
) -> Vec<usize> {
    let mut out = Vec::new();
    let list = spring
        .get("colliderGroups")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for value in list {
        match vrm1::index(value).and_then(|g| group_map.get(g)) {
            Some(groups) => {
                for &g in groups {
                    if !out.contains(&g) {
                        out.push(g);
                    }
                }
            }
            None => diagnostics.warn(
                "DOWNGRADE_SPRING_INVALID",
                at(spring_at, "colliderGroups"),
                format!("{value} is not a collider group index; dropped"),
            ),
        }
    }
    out
}

/// Springs gathered into 0.x bone groups (see the module docs).
fn bone_groups(springs: &[Spring], tree: &Tree) -> Vec<BoneGroup> {
    let mut groups: Vec<BoneGroup> = Vec::new();
    for spring in springs {
        let Some(&root) = spring.joints.first() else {
            continue;
        };
        let found = groups.iter_mut().find(|g| {
            g.settings == spring.settings
                && g.collider_groups == spring.collider_groups
                && g.center == spring.center
                && g.name == spring.name
        });
        let group = match found {
            Some(group) => group,
            None => {
                groups.push(BoneGroup {
                    settings: spring.settings,
                    collider_groups: spring.collider_groups.clone(),
                    center: spring.center,
                    name: spring.name.clone(),
                    roots: Vec::new(),
                    joints: BTreeSet::new(),
                });
                let last = groups.len() - 1;
                let Some(group) = groups.get_mut(last) else {
                    continue;
                };
                group
            }
        };
        group.roots.push(root);
        group.joints.extend(spring.joints.iter().copied());
    }
    for group in &mut groups {
        let roots = group.roots.clone();
        group.roots = roots
            .iter()
            .enumerate()
            .filter(|&(i, &r)| {
                !roots.iter().enumerate().any(|(j, &other)| {
                    (other == r && j < i) || (other != r && tree.is_below(r, other))
                })
            })
            .map(|(_, &r)| r)
            .collect();
    }
    groups
}

/// One 0.x bone group.
fn bone_group_json(group: &BoneGroup) -> Value {
    let s = &group.settings;
    let mut out = Map::new();
    out.insert(
        "comment".into(),
        Value::from(group.name.clone().unwrap_or_default()),
    );
    out.insert("stiffiness".into(), vrm1::json_number(s.stiffness));
    out.insert("gravityPower".into(), vrm1::json_number(s.gravity_power));
    out.insert(
        "gravityDir".into(),
        vrm1::vector3_object(vrm1::from_unity_vector(s.gravity_dir)),
    );
    out.insert("dragForce".into(), vrm1::json_number(s.drag_force));
    out.insert(
        "center".into(),
        group.center.map_or(Value::from(-1), Value::from),
    );
    out.insert("hitRadius".into(), vrm1::json_number(s.hit_radius));
    out.insert(
        "bones".into(),
        Value::Array(group.roots.iter().map(|&r| Value::from(r)).collect()),
    );
    out.insert(
        "colliderGroups".into(),
        Value::Array(
            group
                .collider_groups
                .iter()
                .map(|&g| Value::from(g))
                .collect(),
        ),
    );
    Value::Object(out)
}

/// Everything that sways differently in 0.x (see the module docs), one diagnostic per kind.
fn report_differences(
    springs: &[Spring],
    groups: &[BoneGroup],
    tree: &Tree,
    diagnostics: &mut Diagnostics,
) {
    report_settings(springs, diagnostics);
    report_chains(springs, tree, diagnostics);
    report_gravity(springs, diagnostics);
    let mut extra = BTreeSet::new();
    let mut swayed_by: Vec<BTreeSet<usize>> = Vec::new();
    for group in groups {
        let mut swayed = BTreeSet::new();
        for &root in &group.roots {
            swayed.extend(tree.subtree(root));
        }
        extra.extend(swayed.difference(&group.joints).copied());
        swayed_by.push(swayed);
    }
    let mut overlap = BTreeSet::new();
    for (i, a) in swayed_by.iter().enumerate() {
        for b in swayed_by.iter().skip(i + 1) {
            overlap.extend(a.intersection(b).copied());
        }
    }
    let list = |nodes: &BTreeSet<usize>| {
        let names: Vec<String> = nodes.iter().map(ToString::to_string).collect();
        vrm1::short_list(&names, 12)
    };
    if !extra.is_empty() {
        diagnostics.warn(
            "DOWNGRADE_SPRING_SUBTREE",
            SPRING_BASE,
            format!(
                "a VRM 0.x bone group sways the whole subtree of each root: nodes {} sway in VRM 0.x though no VRM 1.0 spring of that group names them",
                list(&extra)
            ),
        );
    }
    if !overlap.is_empty() {
        diagnostics.warn(
            "DOWNGRADE_SPRING_OVERLAP",
            SPRING_BASE,
            format!(
                "nodes {} lie in the subtrees of two VRM 0.x bone groups and are swayed by both",
                list(&overlap)
            ),
        );
    }
    let ends: BTreeSet<usize> = springs
        .iter()
        .filter_map(|s| s.joints.last().copied())
        .collect();
    if !ends.is_empty() {
        diagnostics.info(
            "DOWNGRADE_SPRING_TAIL",
            SPRING_BASE,
            format!(
                "a VRM 1.0 spring ends at its last joint, a VRM 0.x bone group sways that node too (toward its first child, or 7 cm past a leaf): nodes {}",
                list(&ends)
            ),
        );
    }
}

/// Joints whose settings differ from their spring's first joint (the last joint's settings
/// are unused in 1.0).
fn report_settings(springs: &[Spring], diagnostics: &mut Diagnostics) {
    let mixed: Vec<String> = springs
        .iter()
        .filter(|s| s.mixed_settings)
        .map(|s| s.at.clone())
        .collect();
    if !mixed.is_empty() {
        diagnostics.warn(
            "DOWNGRADE_SPRING_SETTINGS",
            SPRING_BASE,
            format!(
                "a VRM 0.x bone group has one set of joint settings: these springs' joints differ, and their first joint's settings were written: {}",
                vrm1::short_list(&mixed, 8)
            ),
        );
    }
}

/// Chains whose next joint is not the first child of the previous one.
fn report_chains(springs: &[Spring], tree: &Tree, diagnostics: &mut Diagnostics) {
    let mut off: Vec<String> = Vec::new();
    for spring in springs {
        for pair in spring.joints.windows(2) {
            if let [from, to] = pair {
                if tree.first_child(*from) != Some(*to) {
                    off.push(format!("{} ({from}→{to})", spring.at));
                }
            }
        }
    }
    if !off.is_empty() {
        diagnostics.warn(
            "DOWNGRADE_SPRING_CHAIN",
            SPRING_BASE,
            format!(
                "VRM 0.x sways every node toward its first child, but these joints are followed by another node: {}",
                vrm1::short_list(&off, 8)
            ),
        );
    }
}

/// `gravityDir` with a z component, which UniVRM and three-vrm read differently in 0.x.
fn report_gravity(springs: &[Spring], diagnostics: &mut Diagnostics) {
    let tilted: Vec<String> = springs
        .iter()
        .filter(|s| s.settings.gravity_dir[2] != 0.0)
        .map(|s| s.at.clone())
        .collect();
    if !tilted.is_empty() {
        diagnostics.info(
            "DOWNGRADE_SPRING_GRAVITY",
            SPRING_BASE,
            format!(
                "gravityDir with a z component was written in Unity space as UniVRM reads it, (-x, y, z); three-vrm reads 0.x gravityDir unflipped and plays it with the opposite z: {}",
                vrm1::short_list(&tilted, 8)
            ),
        );
    }
}
