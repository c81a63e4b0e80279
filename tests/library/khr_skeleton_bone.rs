//! `KHR_skeleton_bone` (glTF pull request #2626): the checker, on hand-made documents that
//! break one rule each, and the annotator, whose lengths and flags are worked out by hand here.
//!
//! Every document is read through `Document::from_slice`, so it passes the document validator
//! first (a valid glTF that only the extension's rules reject).

use std::path::Path;

use humanoid::error::{Diagnostics, Severity};
use humanoid::formats::gltf::khr_skeleton_bone::{self, annotate, check, drop_extension, NAME};
use humanoid::formats::gltf::Document;
use serde_json::{json, Value};

/// An armature with a three-bone spine and a skinned body, annotated as the draft asks:
///
/// ```text
/// 0 Armature (skeleton root, no joint)
/// ├── 1 Hips   t (0, 1, 0)      length 0.25
/// │   └── 2 Spine t (0, 0.25, 0) length 0.5, connected (at the hips' tail)
/// │       └── 3 Head t (0, 0.5, 0) connected (at the spine's tail), a leaf
/// └── 4 Body   mesh 0, skin 0
/// ```
fn valid() -> Value {
    json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "Armature", "children": [1, 4]},
            {"name": "Hips", "translation": [0.0, 1.0, 0.0], "children": [2],
             "extensions": {NAME: {"length": 0.25, "connected": false}}},
            {"name": "Spine", "translation": [0.0, 0.25, 0.0], "children": [3],
             "extensions": {NAME: {"length": 0.5, "connected": true}}},
            {"name": "Head", "translation": [0.0, 0.5, 0.0],
             "extensions": {NAME: {"connected": true}}},
            {"name": "Body", "mesh": 0, "skin": 0}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.0]}],
        "skins": [{"skeleton": 0, "joints": [1, 2, 3]}],
        "extensionsUsed": [NAME]
    })
}

fn read(doc: &Value) -> Document {
    let bytes = serde_json::to_vec(doc).unwrap();
    Document::from_slice(&bytes, "bones.gltf", None::<&Path>).unwrap()
}

fn diagnostics(doc: &Document) -> Diagnostics {
    let mut found = Diagnostics::new();
    check(&doc.root, &mut found);
    found
}

/// The errors `check` reports: (code, JSON pointer).
fn errors(doc: &Value) -> Vec<(&'static str, String)> {
    diagnostics(&read(doc))
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.code, d.location.clone()))
        .collect()
}

fn message(doc: &Value, code: &str) -> String {
    diagnostics(&read(doc))
        .iter()
        .find(|d| d.code == code)
        .map(|d| d.message.clone())
        .unwrap_or_default()
}

fn bone_ext(doc: &Document, node: usize) -> Option<Value> {
    let value = serde_json::to_value(&doc.root.nodes[node]).unwrap();
    value.get("extensions")?.get(NAME).cloned()
}

#[test]
fn valid_file_passes() {
    let found = diagnostics(&read(&valid()));
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn rule_1_every_skin_has_a_skeleton() {
    let mut doc = valid();
    doc["skins"][0].as_object_mut().unwrap().remove("skeleton");
    assert_eq!(
        errors(&doc),
        vec![("KHR_SKELETON_BONE_NO_SKELETON", "/skins/0".to_owned())]
    );
    // The hint names the joints' common root.
    assert!(
        message(&doc, "KHR_SKELETON_BONE_NO_SKELETON").contains("node 1 (\"Hips\")"),
        "{}",
        message(&doc, "KHR_SKELETON_BONE_NO_SKELETON")
    );
}

#[test]
fn rule_2_bones_are_contiguous() {
    // Spine is neither a joint nor marked: Head (joints[1]) hangs from the root through it.
    let mut doc = valid();
    doc["skins"][0]["joints"] = json!([1, 3]);
    doc["nodes"][2]
        .as_object_mut()
        .unwrap()
        .remove("extensions");
    assert_eq!(
        errors(&doc),
        vec![(
            "KHR_SKELETON_BONE_NOT_CONTIGUOUS",
            "/skins/0/joints/1".to_owned()
        )]
    );
    let text = message(&doc, "KHR_SKELETON_BONE_NOT_CONTIGUOUS");
    assert!(text.contains("through node 2 (\"Spine\")"), "{text}");
    // Head's connected now has no parent bone to be connected to: a warning.
    let found = diagnostics(&read(&doc));
    let connected: Vec<_> = found
        .iter()
        .filter(|d| d.code == "KHR_SKELETON_BONE_CONNECTED")
        .map(|d| (d.severity, d.location.as_str()))
        .collect();
    assert_eq!(
        connected,
        vec![(
            Severity::Warning,
            "/nodes/3/extensions/KHR_skeleton_bone/connected"
        )]
    );
}

#[test]
fn rule_2_skeleton_root_above_the_joints() {
    // The skeleton root is Head, below the hips and spine.
    let mut doc = valid();
    doc["skins"][0]["skeleton"] = json!(3);
    doc["nodes"][0]["children"] = json!([1]);
    doc["nodes"][3]["children"] = json!([4]);
    let found = errors(&doc);
    assert_eq!(
        found,
        vec![(
            "KHR_SKELETON_BONE_NOT_CONTIGUOUS",
            "/skins/0/joints/0".to_owned()
        )]
    );
}

#[test]
fn rule_3_bones_carry_no_camera() {
    let mut doc = valid();
    doc["cameras"] = json!([{"type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.1}}]);
    doc["nodes"][2]["camera"] = json!(0);
    assert_eq!(
        errors(&doc),
        vec![("KHR_SKELETON_BONE_ATTACHMENT", "/nodes/2/camera".to_owned())]
    );
}

#[test]
fn rule_3_bones_carry_no_light() {
    let mut doc = valid();
    doc["nodes"][3]["extensions"]["KHR_lights_punctual"] = json!({"light": 0});
    assert_eq!(
        errors(&doc),
        vec![(
            "KHR_SKELETON_BONE_ATTACHMENT",
            "/nodes/3/extensions/KHR_lights_punctual".to_owned()
        )]
    );
}

#[test]
fn rule_4_skinned_mesh_under_the_skeleton_root() {
    // Body hangs from the hips instead of the armature.
    let mut doc = valid();
    doc["nodes"][0]["children"] = json!([1]);
    doc["nodes"][1]["children"] = json!([2, 4]);
    assert_eq!(
        errors(&doc),
        vec![("KHR_SKELETON_BONE_MESH_PLACEMENT", "/nodes/4".to_owned())]
    );
    let text = message(&doc, "KHR_SKELETON_BONE_MESH_PLACEMENT");
    assert!(
        text.contains("a child of node 1 (\"Hips\")") && text.contains("node 0 (\"Armature\")"),
        "{text}"
    );
}

#[test]
fn schema_negative_length() {
    let mut doc = valid();
    doc["nodes"][2]["extensions"][NAME]["length"] = json!(-1);
    assert_eq!(
        errors(&doc),
        vec![(
            "KHR_SKELETON_BONE_INVALID",
            "/nodes/2/extensions/KHR_skeleton_bone/length".to_owned()
        )]
    );
}

#[test]
fn schema_other_properties_warn() {
    let mut doc = valid();
    doc["nodes"][1]["extensions"][NAME]["mass"] = json!(3);
    doc["nodes"][1]["extensions"][NAME]["extras"] = json!({"note": "kept"});
    let found = diagnostics(&read(&doc));
    let listed: Vec<_> = found
        .iter()
        .map(|d| (d.code, d.severity, d.location.as_str()))
        .collect();
    assert_eq!(
        listed,
        vec![(
            "KHR_SKELETON_BONE_UNKNOWN_PROPERTY",
            Severity::Warning,
            "/nodes/1/extensions/KHR_skeleton_bone/mass"
        )]
    );
}

#[test]
fn connected_off_the_parents_tail_is_an_error() {
    // Head says connected, but the spine is 0.5 long and Head sits at y = 0.4.
    let mut doc = valid();
    doc["nodes"][3]["translation"] = json!([0.0, 0.4, 0.0]);
    assert_eq!(
        errors(&doc),
        vec![(
            "KHR_SKELETON_BONE_CONNECTED",
            "/nodes/3/extensions/KHR_skeleton_bone/connected".to_owned()
        )]
    );
}

#[test]
fn required_and_undeclared_warn() {
    let mut doc = valid();
    doc["extensionsRequired"] = json!([NAME]);
    let found = diagnostics(&read(&doc));
    let listed: Vec<_> = found
        .iter()
        .map(|d| (d.code, d.severity, d.location.as_str()))
        .collect();
    assert_eq!(
        listed,
        vec![(
            "KHR_SKELETON_BONE_REQUIRED",
            Severity::Warning,
            "/extensionsRequired/0"
        )]
    );

    // Not in extensionsUsed: one warning, and the rules are not checked (the skin has no
    // skeleton here).
    let mut doc = valid();
    doc.as_object_mut().unwrap().remove("extensionsUsed");
    doc["skins"][0].as_object_mut().unwrap().remove("skeleton");
    let found = diagnostics(&read(&doc));
    let listed: Vec<_> = found
        .iter()
        .map(|d| (d.code, d.severity, d.location.as_str()))
        .collect();
    assert_eq!(
        listed,
        vec![(
            "EXT_NOT_DECLARED",
            Severity::Warning,
            "/nodes/1/extensions/KHR_skeleton_bone"
        )]
    );
}

/// A plain skinned file, nothing of the extension in it, the skin without a skeleton:
///
/// ```text
/// 0 Armature
/// ├── 1 Hips   t (0, 1, 0), scale 2 (lengths are in the node's own units: not scaled)
/// │   ├── 2 Spine t (0, 0.3, 0)
/// │   │   └── 3 Chest matrix with translation (0.03, 0.4, 0): off +Y, a leaf
/// │   └── 4 LeftLeg t (0.1, -0.05, 0): a leaf
/// └── 5 Body mesh 0, skin 0
/// ```
fn plain() -> Value {
    json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "Armature", "children": [1, 5]},
            {"name": "Hips", "translation": [0.0, 1.0, 0.0], "scale": [2.0, 2.0, 2.0],
             "children": [2, 4]},
            {"name": "Spine", "translation": [0.0, 0.3, 0.0], "children": [3]},
            {"name": "Chest", "matrix": [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
                                         0.0, 0.0, 1.0, 0.0, 0.03, 0.4, 0.0, 1.0]},
            {"name": "LeftLeg", "translation": [0.1, -0.05, 0.0]},
            {"name": "Body", "mesh": 0, "skin": 0}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.0]}],
        "skins": [{"joints": [1, 2, 3, 4]}]
    })
}

#[test]
fn annotate_writes_lengths_and_flags() {
    let mut doc = read(&plain());
    let done = annotate(&mut doc.root).unwrap();
    // The skeleton: Body's parent, which the joints' root (Hips) hangs from directly.
    assert_eq!(done.skeletons_set, vec![(0, 0)]);
    assert_eq!(doc.root.skins[0].skeleton.map(|s| s.get()), Some(0));
    assert!(done.reparented.is_empty());
    assert_eq!((done.bones, done.lengths, done.lengths_kept), (4, 2, 0));
    assert_eq!(done.connected, 1);
    assert!(done.declared && !done.unrequired);
    assert_eq!(doc.root.extensions_used, vec![NAME.to_owned()]);
    assert!(doc.root.extensions_required.is_empty());

    // Hips: the child bone most nearly on +Y is Spine (0, 0.3, 0), not LeftLeg; 0.3 in the
    // hips' own units although the hips are scaled by 2. Its parent is no bone: not connected.
    assert_eq!(
        bone_ext(&doc, 1),
        Some(json!({"length": 0.3, "connected": false}))
    );
    // Spine: one child bone, Chest, at (0.03, 0.4, 0): sqrt(0.03² + 0.4²) = sqrt(0.1609).
    // Spine sits at (0, 0.3, 0), the hips' tail: connected.
    let spine = bone_ext(&doc, 2).unwrap();
    let length = spine["length"].as_f64().unwrap();
    assert!((length - 0.401_123_422_402_631_6).abs() < 1e-12, "{length}");
    assert_eq!(spine["connected"], json!(true));
    // Chest: a leaf (no length); at (0.03, 0.4, 0), off the spine's +Y: not connected.
    assert_eq!(bone_ext(&doc, 3), Some(json!({"connected": false})));
    // LeftLeg: a leaf, off the hips' +Y.
    assert_eq!(bone_ext(&doc, 4), Some(json!({"connected": false})));
    // Neither the armature nor the mesh node is a bone.
    assert_eq!(bone_ext(&doc, 0), None);
    assert_eq!(bone_ext(&doc, 5), None);

    let found = diagnostics(&doc);
    assert!(found.is_empty(), "{found:?}");
    // Again: nothing more to do, the lengths are kept.
    let again = annotate(&mut doc.root).unwrap();
    assert_eq!((again.lengths, again.lengths_kept), (0, 2));
    assert!(again.skeletons_set.is_empty() && !again.declared);
}

#[test]
fn annotate_reparents_childless_skinned_meshes() {
    // Body is a scene root and Hair hangs from the hips: both move under the armature.
    let mut plain = plain();
    plain["skins"][0]["skeleton"] = json!(0);
    plain["scenes"][0]["nodes"] = json!([0, 5]);
    plain["nodes"][0]["children"] = json!([1]);
    plain["nodes"][1]["children"] = json!([2, 6, 4]);
    plain["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "Hair", "mesh": 0, "skin": 0}));
    let mut doc = read(&plain);
    let mut before = plain.clone();
    before["extensionsUsed"] = json!([NAME]);
    assert_eq!(
        errors(&before),
        vec![
            ("KHR_SKELETON_BONE_MESH_PLACEMENT", "/nodes/5".to_owned()),
            ("KHR_SKELETON_BONE_MESH_PLACEMENT", "/nodes/6".to_owned()),
        ]
    );

    let done = annotate(&mut doc.root).unwrap();
    assert_eq!(done.reparented, vec![(5, None), (6, Some(1))]);
    assert!(done.skeletons_set.is_empty());
    let index = |list: &[humanoid::formats::gltf::json::Index<_>]| -> Vec<u32> {
        list.iter().map(|i| i.get()).collect()
    };
    assert_eq!(index(&doc.root.scenes[0].nodes), vec![0]);
    assert_eq!(index(&doc.root.nodes[0].children), vec![1, 5, 6]);
    assert_eq!(index(&doc.root.nodes[1].children), vec![2, 4]);
    // Node transforms untouched.
    assert_eq!(
        serde_json::to_value(&doc.root.nodes[1]).unwrap()["translation"],
        json!([0.0, 1.0, 0.0])
    );
    let found = diagnostics(&doc);
    assert!(found.is_empty(), "{found:?}");
    // The result is still a valid document.
    let bytes = humanoid::formats::gltf::json::to_vec(&doc.root, false).unwrap();
    let reread = Document::from_slice(&bytes, "again.gltf", None::<&Path>).unwrap();
    assert!(diagnostics(&reread).is_empty());
}

#[test]
fn annotate_refuses_a_mesh_on_a_bone() {
    let mut plain = plain();
    plain["nodes"][2]["mesh"] = json!(0);
    let mut doc = read(&plain);
    let before = serde_json::to_value(&doc.root).unwrap();
    let why = annotate(&mut doc.root).unwrap_err();
    assert!(
        why.contains("/nodes/2/mesh") && why.contains("node 2 (\"Spine\")"),
        "{why}"
    );
    assert_eq!(serde_json::to_value(&doc.root).unwrap(), before);

    // The same file declaring the extension: check says where.
    plain["extensionsUsed"] = json!([NAME]);
    plain["skins"][0]["skeleton"] = json!(0);
    assert_eq!(
        errors(&plain),
        vec![("KHR_SKELETON_BONE_ATTACHMENT", "/nodes/2/mesh".to_owned())]
    );
}

#[test]
fn annotate_refuses_a_skinned_mesh_with_children() {
    let mut plain = plain();
    plain["skins"][0]["skeleton"] = json!(0);
    plain["nodes"][0]["children"] = json!([1]);
    plain["nodes"][1]["children"] = json!([2, 4, 5]);
    plain["nodes"][5]["children"] = json!([6]);
    plain["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "Badge"}));
    let mut doc = read(&plain);
    let before = serde_json::to_value(&doc.root).unwrap();
    let why = annotate(&mut doc.root).unwrap_err();
    assert!(
        why.contains("node 5 (\"Body\")") && why.contains("children"),
        "{why}"
    );
    assert_eq!(serde_json::to_value(&doc.root).unwrap(), before);
}

#[test]
fn drop_extension_removes_every_trace() {
    let mut doc = valid();
    doc["extensionsRequired"] = json!([NAME]);
    doc["nodes"][1]["extensions"]["OTHER_ext"] = json!({});
    doc["extensionsUsed"] = json!([NAME, "OTHER_ext"]);
    let mut doc = read(&doc);
    assert!(drop_extension(&mut doc.root));
    let text = String::from_utf8(humanoid::formats::gltf::json::to_vec(&doc.root, false).unwrap())
        .unwrap();
    assert!(!text.contains(NAME), "{text}");
    assert!(text.contains("OTHER_ext"), "{text}");
    // Node 2's extensions held only this one: the object is gone.
    assert!(doc.root.nodes[2].extensions.is_none());
    assert!(!drop_extension(&mut doc.root));
    assert!(diagnostics(&doc).is_empty());
    assert_eq!(khr_skeleton_bone::NAME, "KHR_skeleton_bone");
}

#[test]
fn cycles_and_bad_indices_do_not_panic() {
    // Not a valid glTF (the document validator refuses it): parsed without validation.
    let text = serde_json::to_vec(&json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0, 9]}],
        "nodes": [
            {"children": [1, 7]},
            {"children": [0, 2], "extensions": {NAME: "yes"}},
            {"children": [2], "mesh": 4, "skin": 3, "extensions": {NAME: {"connected": true}}},
            {"mesh": 0, "skin": 0, "children": [3]}
        ],
        "skins": [{"joints": [0, 1, 2, 12]}, {"skeleton": 40, "joints": [2]},
                  {"skeleton": 2, "joints": [0, 1]}],
        "extensionsUsed": [NAME]
    }))
    .unwrap();
    let mut root = humanoid::formats::gltf::json::parse(&text, Path::new("bad.gltf")).unwrap();
    let mut found = Diagnostics::new();
    check(&root, &mut found);
    assert!(found.has_errors());
    let before = serde_json::to_value(&root).unwrap();
    assert!(annotate(&mut root).is_err());
    assert_eq!(serde_json::to_value(&root).unwrap(), before);
    assert!(drop_extension(&mut root));
}
