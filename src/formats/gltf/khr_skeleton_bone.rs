//! `KHR_skeleton_bone` (KhronosGroup/glTF pull request #2626, a draft): a node extension
//! `{ "connected": bool, "length": number }` that gives a bone its length along its local +Y
//! axis and says whether its head sits at its parent bone's tail, and four strict skinning
//! rules that a file promises by listing the extension in `extensionsUsed`.
//!
//! # What the draft says
//!
//! A node is a *bone* when a skin lists it as a joint or when it carries the extension (even an
//! empty object). With the extension in `extensionsUsed`, every bone of the file MUST follow
//! these rules, whether or not it carries the extension:
//!
//! 1. every skin has `skeleton` (the skeleton root node);
//! 2. bones form a contiguous hierarchy under the skeleton root: the parent of a bone is another
//!    bone or the skeleton root itself; skins that share a joint share their skeleton node;
//! 3. a bone node carries no mesh, camera or light (`KHR_lights_punctual`);
//! 4. a skinned mesh node (one with `mesh` and `skin`) is a direct child of its skin's
//!    skeleton root.
//!
//! The properties (research `extensions_and_landscape.md` §6, and the draft's README):
//!
//! - `length` (≥ 0, no default): how far the bone extends along its local +Y axis, in the
//!   node's own units (the draft: "the final perceived bone length includes scale");
//! - `connected` (default `false`): the bone's head is at its **parent** bone's tail, so its
//!   local translation MUST be `(0, parent length, 0)`. It means nothing for a bone whose
//!   parent is not a bone.
//!
//! The extension SHOULD NOT be listed in `extensionsRequired`.
//!
//! # This module
//!
//! - [`check`] reports every rule or schema violation with the JSON pointer of the exact place
//!   (`KHR_SKELETON_BONE_*` codes, `docs/diagnostics.md`);
//! - [`annotate`] makes a document meet the rules where that changes nothing drawn, writes
//!   `length` and `connected` on every bone and declares the extension, or refuses with the
//!   reason and leaves the document as it was;
//! - [`drop_extension`] removes every trace of the extension (for a file whose rules fail, so a
//!   rewrite does not keep a false promise).
//!
//! Every pass is linear in the number of nodes and joints (walks up the hierarchy are
//! iterative and remember what they found), and never panics on a document the validator has
//! not seen: out-of-range indices are skipped, cycles end the walk.
//!
//! ```
//! use humanoid::error::Diagnostics;
//! use humanoid::formats::gltf::{json, khr_skeleton_bone};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // An armature holding a two-bone chain and the skinned mesh; the skin names no skeleton.
//! let text = br#"{
//!   "asset": {"version": "2.0"},
//!   "scenes": [{"nodes": [0]}],
//!   "nodes": [
//!     {"name": "Armature", "children": [1, 3]},
//!     {"name": "Upper", "children": [2]},
//!     {"name": "Lower", "translation": [0, 0.3, 0]},
//!     {"name": "Body", "mesh": 0, "skin": 0}
//!   ],
//!   "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
//!   "accessors": [{"componentType": 5126, "count": 3, "type": "VEC3"}],
//!   "skins": [{"joints": [1, 2]}]
//! }"#;
//! let mut root = json::parse(text, "arm.gltf".as_ref())?;
//! let done = khr_skeleton_bone::annotate(&mut root)?;
//! assert_eq!(done.skeletons_set, vec![(0, 0)]); // the mesh's parent, above the joints
//! assert_eq!(done.bones, 2);
//! let upper = &root.nodes[1].extensions.as_ref().ok_or("no extensions")?[khr_skeleton_bone::NAME];
//! assert_eq!(upper["length"], 0.3);
//! let mut diagnostics = Diagnostics::new();
//! khr_skeleton_bone::check(&root, &mut diagnostics);
//! assert!(!diagnostics.has_errors());
//! # Ok(()) }
//! ```

use serde_json::{Map, Number, Value};

use super::json::{floats, Index, Node, Root};
use crate::error::{Diagnostic, Diagnostics, Severity};

/// The extension's name, as it appears in `extensionsUsed` and in a node's `extensions`.
pub const NAME: &str = "KHR_skeleton_bone";

/// The relative tolerance of "on the +Y axis" and "at the parent's tail": a child translation
/// `t` lies on +Y when `hypot(t.x, t.z) ≤ TOLERANCE · |t|` and `t.y > 0`.
pub const TOLERANCE: f64 = 1e-4;

/// The node extension that carries lights, which bones must not carry.
const LIGHTS: &str = "KHR_lights_punctual";

/// The properties every glTF property may have besides its own.
const COMMON: [&str; 2] = ["extensions", "extras"];

/// What [`annotate`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Annotated {
    /// Bone nodes (joints of skins, and nodes carrying the extension) given the extension.
    pub bones: usize,
    /// Bones whose `length` was written (the distance to a child bone).
    pub lengths: usize,
    /// Bones whose valid `length` was already there and was kept.
    pub lengths_kept: usize,
    /// Bones written `"connected": true`.
    pub connected: usize,
    /// Skinned mesh nodes moved to be direct children of their skeleton root: (node, its old
    /// parent, `None` for a scene root).
    pub reparented: Vec<(usize, Option<usize>)>,
    /// Skins given a `skeleton`: (skin, node).
    pub skeletons_set: Vec<(usize, usize)>,
    /// Whether the extension was added to `extensionsUsed` (false: it was listed already).
    pub declared: bool,
    /// Whether the extension was taken out of `extensionsRequired`, where it should not be.
    pub unrequired: bool,
}

/// Checks a document against the extension, when `extensionsUsed` lists it.
///
/// Without the listing, only nodes that carry the extension are reported (`EXT_NOT_DECLARED`,
/// a warning): the rules are not promised. With it: the extension object of every node
/// (`KHR_SKELETON_BONE_INVALID`, `_UNKNOWN_PROPERTY`), the four rules (`_NO_SKELETON`,
/// `_NOT_CONTIGUOUS`, `_SKELETON_CONFLICT`, `_ATTACHMENT`, `_MESH_PLACEMENT`), `connected`
/// against the node's translation (`_CONNECTED`), marked nodes outside every skeleton
/// (`_OUTSIDE_SKELETON`) and a listing in `extensionsRequired` (`_REQUIRED`). Each finding has
/// the JSON pointer of the exact place and a message saying what is wrong, what the rule says
/// and what to do.
pub fn check(root: &Root, diagnostics: &mut Diagnostics) {
    let marked: Vec<usize> = root
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| extension(node).is_some())
        .map(|(i, _)| i)
        .collect();
    if !root.extensions_used.iter().any(|e| e == NAME) {
        if let Some(&first) = marked.first() {
            diagnostics.warn(
                "EXT_NOT_DECLARED",
                format!("/nodes/{first}/extensions/{NAME}"),
                format!(
                    "{} carr{} {NAME} but extensionsUsed does not list it: glTF requires every \
                     extension used to be listed; add \"{NAME}\" to extensionsUsed (which also \
                     promises the extension's skinning rules) or remove it from the nodes",
                    listed(root, &marked),
                    if marked.len() == 1 { "ies" } else { "y" },
                ),
            );
        }
        return;
    }
    for (k, name) in root.extensions_required.iter().enumerate() {
        if name == NAME {
            diagnostics.warn(
                "KHR_SKELETON_BONE_REQUIRED",
                format!("/extensionsRequired/{k}"),
                format!(
                    "{NAME} is listed in extensionsRequired, where the draft says it SHOULD NOT \
                     be (readers without it can still show the file); keep it in extensionsUsed \
                     only"
                ),
            );
        }
    }
    let graph = Graph::new(root);
    let mut bones: Vec<Option<BoneExt>> = vec![None; root.nodes.len()];
    for &n in &marked {
        if let (Some(value), Some(slot)) = (
            root.nodes.get(n).and_then(|x| extension(x)),
            bones.get_mut(n),
        ) {
            *slot = Some(read_bone(value, n, Some(&mut *diagnostics)));
        }
    }
    no_skeleton(root, &graph, diagnostics);
    skeleton_conflicts(root, &graph, diagnostics);
    contiguity(root, &graph, diagnostics);
    outside_skeleton(root, &graph, &marked, diagnostics);
    attachments(root, &graph, diagnostics);
    mesh_placement(root, &graph, diagnostics);
    connected(root, &graph, &bones, diagnostics);
}

/// Makes `root` meet the extension's rules, writes `length` and `connected` on every bone
/// node, and lists the extension in `extensionsUsed` (never in `extensionsRequired`; a listing
/// there is removed).
///
/// It changes only what the rules need and what changes nothing drawn:
///
/// - a skin without `skeleton` is given one (`skeleton` is informative in glTF 2.0): the
///   skeleton of a skin it shares joints with, else the common parent of its skinned mesh
///   nodes, else the joints' common root, whichever first hangs above the joints' common root
///   through bones only;
/// - a skinned mesh node that is not a direct child of its skeleton root, and has no children,
///   is moved there (removed from its old parent's `children`, or from the `nodes` of every
///   scene that lists it, and appended to the root's `children`). glTF ignores a skinned mesh
///   node's own transform (the joints place the vertices), so the move changes nothing drawn;
///   a scene that listed it as a root now reaches it through the skeleton root.
///
/// The values written:
///
/// - `length`: a bone's child bones are its children that are bones; the one whose local
///   translation points most nearly along +Y (the largest `t.y / |t|`, the first on a tie) is
///   the bone's tail, and `length` is that translation's length `|t|`, in the bone's own
///   units as the draft asks (scale is not applied). A bone without child bones (a leaf) gets
///   no `length`: nothing in the file says how long it is. A valid `length` already on the node
///   is kept;
/// - `connected`: `true` when the bone's parent is a bone with a `length` `L` and the bone's
///   local translation is `(0, L, 0)` within [`TOLERANCE`] (relative), so it sits at the
///   parent's tail; `false` otherwise (also for a bone whose parent is no bone, where the flag
///   means nothing).
///
/// Other properties of an existing extension object (`extras`, unknown keys) are kept; an
/// invalid `length` or `connected` is replaced.
///
/// # Errors
/// When a rule cannot be met without changing the model: a bone node with a mesh, camera or
/// light; a joint that does not hang from its skeleton root through bones; skins that share
/// joints but not their skeleton; a skinned mesh node with children that is not a child of its
/// skeleton root; a skin whose joints share no root. The message names the nodes and skins.
/// `root` is then left exactly as it was.
pub fn annotate(root: &mut Root) -> Result<Annotated, String> {
    let mut work = root.clone();
    let report = annotate_in(&mut work)?;
    *root = work;
    Ok(report)
}

/// Removes the extension from `extensionsUsed`, `extensionsRequired` and every node (a node's
/// `extensions` left empty is removed). Returns whether anything was removed.
pub fn drop_extension(root: &mut Root) -> bool {
    let before = root.extensions_used.len() + root.extensions_required.len();
    root.extensions_used.retain(|e| e != NAME);
    root.extensions_required.retain(|e| e != NAME);
    let mut changed = before != root.extensions_used.len() + root.extensions_required.len();
    for node in &mut root.nodes {
        if let Some(extensions) = node.extensions.as_mut() {
            if extensions.shift_remove(NAME).is_some() {
                changed = true;
                if extensions.is_empty() {
                    node.extensions = None;
                }
            }
        }
    }
    changed
}

// ---------------------------------------------------------------------------------------------
// The node graph
// ---------------------------------------------------------------------------------------------

/// What the rules ask about each node, computed once.
struct Graph {
    /// Each node's parent (the first node listing it as a child).
    parents: Vec<Option<usize>>,
    /// Whether the node carries the extension.
    marked: Vec<bool>,
    /// Whether some skin lists the node as a joint.
    joint: Vec<bool>,
    /// The first skin with an in-range `skeleton` that lists the node as a joint.
    joint_skin: Vec<Option<usize>>,
    /// Whether the node is some skin's skeleton root.
    skeleton_root: Vec<bool>,
    /// Each skin's skeleton root, when set and in range.
    skeletons: Vec<Option<usize>>,
}

impl Graph {
    fn new(root: &Root) -> Self {
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

    fn len(&self) -> usize {
        self.parents.len()
    }

    fn parent(&self, node: usize) -> Option<usize> {
        self.parents.get(node).copied().flatten()
    }

    fn is_bone(&self, node: usize) -> bool {
        self.joint.get(node) == Some(&true) || self.marked.get(node) == Some(&true)
    }

    /// The skeleton root of the first skin (with a skeleton) that lists `node` as a joint.
    fn joint_root(&self, node: usize) -> Option<usize> {
        let skin = self.joint_skin.get(node).copied().flatten()?;
        self.skeletons.get(skin).copied().flatten()
    }

    /// Whether `node` is a bone of the skeleton rooted at `skeleton`: a joint of a skin with
    /// that skeleton, or a node carrying the extension.
    fn bone_of(&self, skeleton: usize, node: usize) -> bool {
        self.marked.get(node) == Some(&true) || self.joint_root(node) == Some(skeleton)
    }

    /// Whether `ancestor` is `node` or above it, every node from `node` up to it (not
    /// included) being a bone.
    fn hangs_from(&self, node: usize, ancestor: usize) -> bool {
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
enum Reach {
    /// It met the root through bones only.
    Root,
    /// It met this node, which is no bone of the skeleton, first.
    NotBone(usize),
    /// It never met the root.
    NotUnder,
}

/// Walks up from `joint` to `skeleton`, remembering the outcome for every node it passed.
fn reach(
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
fn common_root(graph: &Graph, joints: &[usize]) -> Option<usize> {
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

// ---------------------------------------------------------------------------------------------
// The extension object
// ---------------------------------------------------------------------------------------------

/// A node's extension value.
fn extension(node: &Node) -> Option<&Value> {
    node.extensions.as_ref()?.get(NAME)
}

/// The valid properties of one extension object.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct BoneExt {
    connected: Option<bool>,
    length: Option<f64>,
}

/// Reads node `n`'s extension value, reporting schema problems when `diagnostics` is given;
/// invalid properties read as absent.
fn read_bone(value: &Value, n: usize, mut diagnostics: Option<&mut Diagnostics>) -> BoneExt {
    let base = format!("/nodes/{n}/extensions/{NAME}");
    let mut report = |code: &'static str, severity: Severity, pointer: String, message: String| {
        if let Some(d) = diagnostics.as_deref_mut() {
            d.push(code, severity, pointer, message);
        }
    };
    let Some(object) = value.as_object() else {
        report(
            "KHR_SKELETON_BONE_INVALID",
            Severity::Error,
            base,
            format!(
                "node {n}'s {NAME} is {}, not an object: the schema requires an object with \
                 the optional properties connected (boolean) and length (number ≥ 0); write {{}} \
                 to mark a bone with no properties",
                kind(value)
            ),
        );
        return BoneExt::default();
    };
    let mut bone = BoneExt::default();
    for (key, value) in object {
        let pointer = format!("{base}/{}", token(key));
        match key.as_str() {
            "connected" => match value.as_bool() {
                Some(flag) => bone.connected = Some(flag),
                None => report(
                    "KHR_SKELETON_BONE_INVALID",
                    Severity::Error,
                    pointer,
                    format!(
                        "connected is {}, not a boolean: the schema requires true or false \
                         (default false); write a boolean or remove it",
                        kind(value)
                    ),
                ),
            },
            "length" => match value.as_f64() {
                Some(length) if length.is_finite() && length >= 0.0 => bone.length = Some(length),
                Some(length) => report(
                    "KHR_SKELETON_BONE_INVALID",
                    Severity::Error,
                    pointer,
                    format!(
                        "length is {length}: a bone's length MUST NOT be negative (it is the \
                         distance from the bone's head to its tail along local +Y); write a \
                         number ≥ 0 or remove it (no defined length)"
                    ),
                ),
                None => report(
                    "KHR_SKELETON_BONE_INVALID",
                    Severity::Error,
                    pointer,
                    format!(
                        "length is {}, not a number: the schema requires a number ≥ 0 (metres \
                         along the bone's local +Y); write a number or remove it",
                        kind(value)
                    ),
                ),
            },
            other if COMMON.contains(&other) => {}
            other => {
                let draft = if matches!(other, "mass" | "shape") {
                    " (an earlier draft had it; the current one does not)"
                } else {
                    ""
                };
                report(
                    "KHR_SKELETON_BONE_UNKNOWN_PROPERTY",
                    Severity::Warning,
                    pointer,
                    format!(
                        "{other:?} is not a property of {NAME}{draft}: it defines connected and \
                         length only; readers ignore it (move it to extras to keep it)"
                    ),
                );
            }
        }
    }
    bone
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON pointer token (`~` → `~0`, `/` → `~1`).
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

// ---------------------------------------------------------------------------------------------
// The rules
// ---------------------------------------------------------------------------------------------

fn label(root: &Root, n: usize) -> String {
    match root.nodes.get(n).and_then(|node| node.name.as_deref()) {
        Some(name) => format!("node {n} ({name:?})"),
        None => format!("node {n}"),
    }
}

fn skin_label(root: &Root, s: usize) -> String {
    match root.skins.get(s).and_then(|skin| skin.name.as_deref()) {
        Some(name) => format!("skin {s} ({name:?})"),
        None => format!("skin {s}"),
    }
}

/// Up to five node labels, then how many more.
fn listed(root: &Root, nodes: &[usize]) -> String {
    let mut out: Vec<String> = nodes.iter().take(5).map(|&n| label(root, n)).collect();
    if nodes.len() > 5 {
        out.push(format!("{} more", nodes.len() - 5));
    }
    out.join(", ")
}

/// The in-range joints of skin `s`, with their places in `joints`.
fn joints_of(root: &Root, s: usize) -> Vec<(usize, usize)> {
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
fn no_skeleton(root: &Root, graph: &Graph, diagnostics: &mut Diagnostics) {
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
fn skeleton_conflicts(root: &Root, graph: &Graph, diagnostics: &mut Diagnostics) {
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
fn contiguity(root: &Root, graph: &Graph, diagnostics: &mut Diagnostics) {
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
fn outside_skeleton(root: &Root, graph: &Graph, marked: &[usize], diagnostics: &mut Diagnostics) {
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
fn attachments(root: &Root, graph: &Graph, diagnostics: &mut Diagnostics) {
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
fn mesh_placement(root: &Root, graph: &Graph, diagnostics: &mut Diagnostics) {
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
fn local_translation(node: &Node) -> [f64; 3] {
    if let Some(matrix) = &node.matrix {
        let m = floats(matrix);
        return [m[12], m[13], m[14]];
    }
    node.translation.as_ref().map_or([0.0; 3], floats)
}

fn norm(t: [f64; 3]) -> f64 {
    (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt()
}

/// Whether `t` points along +Y within [`TOLERANCE`].
fn on_plus_y(t: [f64; 3]) -> bool {
    let length = norm(t);
    length > 0.0 && t[1] > 0.0 && t[0].hypot(t[2]) <= TOLERANCE * length
}

/// Whether `t` is `(0, parent_length, 0)` within [`TOLERANCE`].
fn at_tail(t: [f64; 3], parent_length: f64) -> bool {
    on_plus_y(t) && (t[1] - parent_length).abs() <= TOLERANCE * parent_length.max(norm(t))
}

/// `connected: true` puts a bone at its parent bone's tail.
fn connected(root: &Root, graph: &Graph, bones: &[Option<BoneExt>], diagnostics: &mut Diagnostics) {
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

// ---------------------------------------------------------------------------------------------
// Annotating
// ---------------------------------------------------------------------------------------------

fn annotate_in(root: &mut Root) -> Result<Annotated, String> {
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
    if !root.extensions_used.iter().any(|e| e == NAME) {
        root.extensions_used.push(NAME.to_owned());
        report.declared = true;
    }
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
fn codes(found: &[&Diagnostic]) -> String {
    found
        .iter()
        .take(5)
        .map(|d| format!("{} at {}", d.code, d.location))
        .collect::<Vec<_>>()
        .join(", ")
}
