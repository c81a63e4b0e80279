//! `KHR_virtual_transform` through [`humanoid::formats::gltf::virtual_transform`]: bad input
//! (each error or diagnostic names its JSON pointer), the spec's five examples, and a round trip
//! read → `to_json` → read.
//!
//! Inputs are hand-written JSON; node `n` is joint `n` except where a test says otherwise.

use glam::{Quat, Vec3};
use humanoid::error::{Diagnostics, Severity};
use humanoid::formats::gltf::virtual_transform::{read, to_json, NAME};
use humanoid::model::socket::{Socket, SocketKind};
use humanoid::model::JointId;
use serde_json::{json, Value};

const POINTER: &str = "/extensions/KHR_virtual_transform/virtualTransforms";

/// A glTF root with `nodes` nodes and `items` as its virtual transforms.
fn root(nodes: usize, items: Value) -> Value {
    json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": [NAME],
        "nodes": vec![json!({}); nodes],
        "extensions": {NAME: {"virtualTransforms": items}}
    })
}

fn joint(node: usize) -> Option<JointId> {
    JointId::from_index(node)
}

fn read_err(doc: &Value) -> String {
    let mut d = Diagnostics::new();
    read(doc, joint, &mut d).unwrap_err().to_string()
}

/// The spec's five examples, verbatim.
fn spec_examples() -> Value {
    json!([
        {"name": "right_hand_attach", "parent": 18, "translation": [0.0, 0.1, 0.0],
         "rotation": [0.0, 0.0, 0.0, 1.0], "scale": [1.0, 1.0, 1.0],
         "respectParentPosition": true, "respectParentRotation": true, "respectParentScale": true,
         "tags": ["weapon_socket"]},
        {"name": "lookAt_target", "parent": 8, "translation": [0.0, 0.0, 0.35],
         "rotation": [0.0, 0.0, 0.0, 1.0], "scale": [1.0, 1.0, 1.0],
         "respectParentPosition": true, "respectParentRotation": true, "respectParentScale": true,
         "tags": ["look_at"]},
        {"name": "sitting_point", "parent": 0, "translation": [0.0, 0.0, -0.2],
         "rotation": [0.0, 0.0, 0.0, 1.0], "scale": [1.0, 1.0, 1.0],
         "respectParentPosition": true, "respectParentRotation": true, "respectParentScale": true,
         "tags": ["seating"]},
        {"name": "wrist_ui", "parent": 19, "translation": [0.0, 0.25, 0.0],
         "rotation": [0.0, 0.0, 0.0, 1.0], "scale": [1.0, 1.0, 1.0],
         "respectParentPosition": true, "respectParentRotation": false, "respectParentScale": false,
         "tags": ["ui"]},
        {"name": "debug_marker", "parent": 5, "translation": [0.0, 0.0, 0.0],
         "rotation": [0.0, 0.0, 0.0, 1.0], "scale": [0.1, 0.1, 0.1],
         "respectParentPosition": true, "respectParentRotation": false, "respectParentScale": false,
         "tags": ["debug", "marker"]}
    ])
}

#[test]
fn parent_out_of_range_is_an_error_at_its_pointer() {
    let doc = root(
        3,
        json!([{"name": "a", "parent": 0}, {"name": "b", "parent": 3}]),
    );
    let err = read_err(&doc);
    assert!(err.contains(&format!("JSON {POINTER}/1/parent")), "{err}");
    assert!(err.contains("node index 3 is out of range"), "{err}");
    // Not an index at all.
    let doc = root(3, json!([{"name": "a", "parent": -1}]));
    let err = read_err(&doc);
    assert!(err.contains(&format!("JSON {POINTER}/0/parent")), "{err}");
    assert!(err.contains("expected a node index"), "{err}");
}

#[test]
fn non_unit_quaternion_is_normalised_with_a_warning() {
    let doc = root(
        1,
        json!([{"name": "a", "parent": 0, "rotation": [0.0, 0.0, 0.0, 2.0]}]),
    );
    let mut d = Diagnostics::new();
    let sockets = read(&doc, joint, &mut d).unwrap();
    assert_eq!(sockets[0].rotation, Quat::IDENTITY);
    let diag = d
        .iter()
        .find(|x| x.code == "VT_ROTATION_NOT_UNIT")
        .expect("a warning");
    assert_eq!(diag.severity, Severity::Warning);
    assert_eq!(diag.location, format!("{POINTER}/0/rotation"));
    assert!(diag.to_string().contains(&format!("{POINTER}/0/rotation")));
    assert!(diag.message.contains("length 2"), "{diag}");

    // A zero quaternion is not a rotation: an error at the same pointer.
    let doc = root(
        1,
        json!([{"name": "a", "parent": 0, "rotation": [0, 0, 0, 0]}]),
    );
    let err = read_err(&doc);
    assert!(err.contains(&format!("JSON {POINTER}/0/rotation")), "{err}");
    // Three components: an error.
    let doc = root(
        1,
        json!([{"name": "a", "parent": 0, "rotation": [0, 0, 1]}]),
    );
    let err = read_err(&doc);
    assert!(
        err.contains(&format!(
            "JSON {POINTER}/0/rotation: expected an array of 4 numbers"
        )),
        "{err}"
    );
}

#[test]
fn missing_parent_is_reported_at_its_item() {
    // No `parent` property: the schema requires it; read as a scene-root socket with an
    // error-severity diagnostic.
    let doc = root(2, json!([{"name": "floating", "translation": [1, 2, 3]}]));
    let mut d = Diagnostics::new();
    let sockets = read(&doc, joint, &mut d).unwrap();
    assert_eq!(sockets.len(), 1);
    assert_eq!(sockets[0].parent, None);
    assert_eq!(sockets[0].translation, Vec3::new(1.0, 2.0, 3.0));
    let diag = d
        .iter()
        .find(|x| x.code == "VT_MISSING_PARENT")
        .expect("a diagnostic");
    assert_eq!(diag.severity, Severity::Error);
    assert_eq!(diag.location, format!("{POINTER}/0"));
    assert!(d.has_errors());
}

#[test]
fn parent_node_that_is_not_a_joint_is_dropped_with_a_warning() {
    // Node 1 exists but is not a joint (say, a mesh node).
    let doc = root(
        2,
        json!([{"name": "a", "parent": 0}, {"name": "b", "parent": 1}]),
    );
    let mut d = Diagnostics::new();
    let sockets = read(
        &doc,
        |n| (n == 0).then(|| JointId::from_index(0)).flatten(),
        &mut d,
    )
    .unwrap();
    assert_eq!(sockets.len(), 1);
    assert_eq!(sockets[0].name, "a");
    let diag = d
        .iter()
        .find(|x| x.code == "VT_PARENT_NOT_JOINT")
        .expect("a warning");
    assert_eq!(diag.location, format!("{POINTER}/1/parent"));
}

#[test]
fn wrong_type_in_tags_is_an_error_at_its_pointer() {
    let doc = root(1, json!([{"name": "a", "parent": 0, "tags": ["ok", 7]}]));
    let err = read_err(&doc);
    assert!(
        err.contains(&format!(
            "JSON {POINTER}/0/tags/1: expected a string, found a number"
        )),
        "{err}"
    );
    let doc = root(1, json!([{"name": "a", "parent": 0, "tags": "look_at"}]));
    let err = read_err(&doc);
    assert!(
        err.contains(&format!(
            "JSON {POINTER}/0/tags: expected an array of strings, found a string"
        )),
        "{err}"
    );
}

#[test]
fn other_wrong_types_are_errors_at_their_pointers() {
    for (item, at, what) in [
        (
            json!({"parent": 0}),
            "/0",
            "missing the required property name",
        ),
        (
            json!({"name": 5, "parent": 0}),
            "/0/name",
            "expected a string",
        ),
        (
            json!({"name": "a", "parent": 0, "translation": [0, 1]}),
            "/0/translation",
            "expected an array of 3 numbers",
        ),
        (
            json!({"name": "a", "parent": 0, "scale": [1, "1", 1]}),
            "/0/scale/1",
            "expected a number",
        ),
        (
            json!({"name": "a", "parent": 0, "respectParentScale": 0}),
            "/0/respectParentScale",
            "expected a boolean",
        ),
        (json!(7), "/0", "expected an object"),
    ] {
        let err = read_err(&root(1, json!([item])));
        assert!(
            err.contains(&format!("JSON {POINTER}{at}: {what}")),
            "{err}"
        );
    }
    let doc = json!({"nodes": [{}], "extensionsUsed": [NAME], "extensions": {NAME: {"virtualTransforms": {}}}});
    assert!(read_err(&doc).contains(&format!("JSON {POINTER}: expected an array")));
    let doc = json!({"nodes": [{}], "extensionsUsed": [NAME], "extensions": {NAME: {}}});
    assert!(read_err(&doc).contains(
        "/extensions/KHR_virtual_transform: missing the required property virtualTransforms"
    ));
}

#[test]
fn duplicate_names_and_unknown_properties_are_diagnosed() {
    let doc = root(
        2,
        json!([{"name": "a", "parent": 0}, {"name": "a", "parent": 1, "extras": {}}]),
    );
    let mut d = Diagnostics::new();
    let sockets = read(&doc, joint, &mut d).unwrap();
    assert_eq!(sockets.len(), 2);
    let dup = d
        .iter()
        .find(|x| x.code == "VT_DUPLICATE_NAME")
        .expect("a warning");
    assert_eq!(dup.severity, Severity::Warning);
    assert_eq!(dup.location, format!("{POINTER}/1/name"));
    assert!(dup.message.contains(&format!("{POINTER}/0/name")), "{dup}");
    let unknown = d
        .iter()
        .find(|x| x.code == "VT_UNKNOWN_PROPERTY")
        .expect("a diagnostic");
    assert_eq!(unknown.location, format!("{POINTER}/1/extras"));
}

#[test]
fn spec_examples_read_with_defaults_and_kinds() {
    let doc = root(20, spec_examples());
    let mut d = Diagnostics::new();
    let sockets = read(&doc, joint, &mut d).unwrap();
    assert!(d.is_empty(), "{d:?}");
    let kinds: Vec<_> = sockets.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        vec![
            Some(SocketKind::HandAttach),
            Some(SocketKind::LookAtTarget),
            Some(SocketKind::Seat),
            Some(SocketKind::Ui),
            Some(SocketKind::Marker),
        ]
    );
    let ui = &sockets[3];
    assert_eq!(ui.parent, JointId::from_index(19));
    assert_eq!(ui.translation, Vec3::new(0.0, 0.25, 0.0));
    assert!(ui.respect_parent_position && !ui.respect_parent_rotation && !ui.respect_parent_scale);
    // Written back, defaults are left out.
    let written = to_json(&sockets, |j| j.index());
    assert_eq!(
        written["virtualTransforms"][4],
        json!({"name": "debug_marker", "parent": 5, "scale": [0.1, 0.1, 0.1],
               "respectParentRotation": false, "respectParentScale": false,
               "tags": ["debug", "marker"]})
    );
    assert_eq!(
        written["virtualTransforms"][0],
        json!({"name": "right_hand_attach", "parent": 18, "translation": [0.0, 0.1, 0.0],
               "tags": ["weapon_socket"]})
    );
}

fn assert_close(a: &[Socket], b: &[Socket]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.name, y.name);
        assert_eq!(x.parent, y.parent);
        assert!(
            x.translation.abs_diff_eq(y.translation, 1e-6),
            "{x:?} {y:?}"
        );
        assert!(x.rotation.abs_diff_eq(y.rotation, 1e-6), "{x:?} {y:?}");
        assert!(x.scale.abs_diff_eq(y.scale, 1e-6), "{x:?} {y:?}");
        assert_eq!(x.respect_parent_position, y.respect_parent_position);
        assert_eq!(x.respect_parent_rotation, y.respect_parent_rotation);
        assert_eq!(x.respect_parent_scale, y.respect_parent_scale);
        assert_eq!(x.tags, y.tags);
        assert_eq!(x.kind, y.kind);
    }
}

#[test]
fn round_trip_read_write_read() {
    let mut items = spec_examples().as_array().unwrap().clone();
    items.push(json!({"name": "odd", "parent": 7,
        "translation": [0.123456789, -1e-7, 3.5],
        "rotation": [0.18257418, 0.36514837, 0.54772256, 0.73029674],
        "scale": [1.0, 2.0, -0.5], "respectParentPosition": false,
        "tags": ["jewelry", "Gaze"]}));
    // Nodes are offset from joints by 2 (node n is joint n − 2), to see both maps used.
    let doc = root(22, Value::Array(items.clone()));
    let to_joint = |n: usize| n.checked_sub(2).and_then(JointId::from_index);
    let mut shifted = items;
    for item in &mut shifted {
        let p = item["parent"].as_u64().unwrap() + 2;
        item["parent"] = json!(p);
    }
    let doc_shifted = root(22, Value::Array(shifted));
    let mut d = Diagnostics::new();
    let first = read(&doc_shifted, to_joint, &mut d).unwrap();
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(first.len(), 6);
    assert_eq!(first[5].kind, Some(SocketKind::GazeOrigin));

    let mut again = doc.clone();
    again["extensions"][NAME] = to_json(&first, |j| j.index() + 2);
    let second = read(&again, to_joint, &mut d).unwrap();
    assert!(d.is_empty(), "{d:?}");
    assert_close(&first, &second);
    // Writing is stable: a second write is identical.
    assert_eq!(
        to_json(&second, |j| j.index() + 2),
        again["extensions"][NAME]
    );
}

#[test]
fn root_socket_round_trips_without_parent() {
    let mut s = Socket::new("root_marker", None);
    s.translation = Vec3::new(0.0, 1.0, 0.0);
    let json = to_json(std::slice::from_ref(&s), |j| j.index());
    assert!(json["virtualTransforms"][0].get("parent").is_none());
    let doc = root(1, json["virtualTransforms"].clone());
    let mut d = Diagnostics::new();
    let back = read(&doc, joint, &mut d).unwrap();
    assert_close(&[s], &back);
    assert!(d.contains("VT_MISSING_PARENT"));
}
