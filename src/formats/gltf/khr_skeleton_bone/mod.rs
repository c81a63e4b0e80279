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

mod annotating;
mod graph;
mod object;
mod rules;

#[allow(clippy::wildcard_imports)]
use annotating::*;
#[allow(clippy::wildcard_imports)]
use graph::*;
#[allow(clippy::wildcard_imports)]
use object::*;
#[allow(clippy::wildcard_imports)]
use rules::*;
