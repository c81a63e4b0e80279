//! VRM expressions and first-person annotations ↔ `KHR_character_expression` and the visibility
//! hints (`formats::vrm::khr_expression`). The inputs and every expected value are written
//! here by hand, from the drafts of KhronosGroup/glTF pull request #2512 and from the VRM
//! specifications. Keying is time 0 = off, time 1 = full weight; a binary expression has keys
//! 0, ½ and 1 and STEP interpolation. Only `corpus` (feature `corpus`) reads `../shared`.

use humanoid::formats::gltf::json::{Index, Ordered, Root};
use humanoid::formats::gltf::{accessor, Document};
use humanoid::formats::vrm::khr_expression::{self, KhrExpressions};
use humanoid::{Diagnostics, Severity};
use serde_json::{json, Value};

fn le(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The face's bytes: 3 positions, then two morph targets' deltas (36 bytes each).
fn face_bin() -> Vec<u8> {
    let mut bin = le(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend(le(&[0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]));
    bin.extend(le(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0]));
    bin
}

/// A glTF of a root node (0) over a face (node 1, mesh 0 with two morph targets), with
/// `extensions`.
fn face_json(extensions: Value) -> Value {
    json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Root", "children": [1]}, {"name": "Face", "mesh": 0}],
        "meshes": [{
            "name": "Face",
            "primitives": [{"attributes": {"POSITION": 0}, "targets": [{"POSITION": 1}, {"POSITION": 2}]}],
            "weights": [0.0, 0.0]
        }],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.5]},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.25]}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 36},
            {"buffer": 0, "byteOffset": 72, "byteLength": 36}
        ],
        "buffers": [{"byteLength": 108}],
        "extensions": extensions
    })
}

fn document(json: Value, bin: Vec<u8>) -> Document {
    let root: Ordered<Root> = serde_json::from_value(json).unwrap();
    Document::from_parts(root, vec![bin], "face.vrm").unwrap()
}

/// The document written as GLB and read back (so that what was added is a valid file).
fn reread(document: &Document) -> Document {
    let bytes = document.to_glb_bytes().unwrap();
    Document::from_slice(&bytes, "reread.glb", None).unwrap()
}

fn json_of<T: serde::Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

fn floats(document: &Document, accessor: u32) -> Vec<f32> {
    accessor::read_f32(document, Index::new(accessor)).unwrap()
}

/// A finding as the tests compare it: code, severity, JSON pointer.
type Finding = (&'static str, Severity, String);

fn codes(diagnostics: &Diagnostics) -> Vec<Finding> {
    diagnostics
        .iter()
        .map(|d| (d.code, d.severity, d.location.clone()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// VRM 1.0 → KHR → VRM 1.0
// ---------------------------------------------------------------------------------------------

fn vrm1_face() -> Document {
    document(
        face_json(json!({"VRMC_vrm": {
            "specVersion": "1.0",
            "expressions": {
                "preset": {"happy": {"morphTargetBinds": [{"node": 1, "index": 0, "weight": 1.0}], "isBinary": false}},
                "custom": {"wink": {"morphTargetBinds": [{"node": 1, "index": 1, "weight": 0.5}], "isBinary": true}}
            },
            "firstPerson": {"meshAnnotations": [{"node": 1, "type": "thirdPersonOnly"}]}
        }})),
        face_bin(),
    )
}

#[test]
fn vrm1_expressions_become_khr_animations_and_come_back() {
    let mut doc = vrm1_face();
    let mut diagnostics = Diagnostics::new();
    let summary = khr_expression::vrm_to_khr(&mut doc, &mut diagnostics).unwrap();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        summary,
        KhrExpressions {
            already_present: false,
            expressions: vec![("happy".into(), 0), ("wink".into(), 1)],
            visibility: vec![(1, "third_person".into())],
        }
    );

    // The root extension: one entry per expression, its channel listed as morph target.
    let extensions = doc.root.extensions.as_ref().unwrap();
    assert_eq!(
        extensions["KHR_character_expression"],
        json!({"expressions": [
            {"expression": "happy", "animation": 0,
             "extensions": {"KHR_character_expression_morphtarget": {"channels": [0]}}},
            {"expression": "wink", "animation": 1,
             "extensions": {"KHR_character_expression_morphtarget": {"channels": [0]}}}
        ]})
    );
    assert_eq!(
        doc.root.extensions_used,
        [
            "KHR_character_expression",
            "KHR_character_expression_morphtarget",
            "KHR_node_visibility_hint"
        ]
    );
    assert!(doc.root.extensions_required.is_empty());
    assert_eq!(
        json_of(&doc.root.nodes[1]),
        json!({"name": "Face", "mesh": 0, "extensions": {"KHR_node_visibility_hint": {"role": "third_person"}}})
    );

    // happy: keys 0 and 1, LINEAR; wink (binary): keys 0, ½, 1, STEP. One weights channel on
    // the face each, every target of the mesh in each key.
    assert_eq!(
        json_of(&doc.root.animations),
        json!([
            {"name": "happy",
             "channels": [{"sampler": 0, "target": {"node": 1, "path": "weights"}}],
             "samplers": [{"input": 3, "output": 4, "interpolation": "LINEAR"}]},
            {"name": "wink",
             "channels": [{"sampler": 0, "target": {"node": 1, "path": "weights"}}],
             "samplers": [{"input": 5, "output": 6, "interpolation": "STEP"}]}
        ])
    );
    assert_eq!(
        json_of(&doc.root.accessors[3..]),
        json!([
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 4, "componentType": 5126, "count": 4, "type": "SCALAR"},
            {"bufferView": 5, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 6, "componentType": 5126, "count": 6, "type": "SCALAR"}
        ])
    );
    assert_eq!(
        json_of(&doc.root.buffer_views[3..]),
        json!([
            {"buffer": 1, "byteOffset": 0, "byteLength": 8},
            {"buffer": 1, "byteOffset": 8, "byteLength": 16},
            {"buffer": 1, "byteOffset": 24, "byteLength": 12},
            {"buffer": 1, "byteOffset": 36, "byteLength": 24}
        ])
    );
    assert_eq!(doc.root.buffers.len(), 2);
    assert_eq!(doc.root.buffers[1].byte_length, 60);

    let doc = reread(&doc);
    assert_eq!(floats(&doc, 3), [0.0, 1.0]);
    assert_eq!(floats(&doc, 4), [0.0, 0.0, 1.0, 0.0]);
    assert_eq!(floats(&doc, 5), [0.0, 0.5, 1.0]);
    assert_eq!(floats(&doc, 6), [0.0, 0.0, 0.0, 0.5, 0.0, 0.5]);

    let mut found = Diagnostics::new();
    khr_expression::check(&doc.root, &mut found);
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(khr_expression::expression_animations(&doc.root), [0, 1]);

    // Back to VRM 1.0: the same binds, weights, binary flags and annotation.
    let mut diagnostics = Diagnostics::new();
    let (expressions, annotations) = khr_expression::khr_to_vrm1(&doc, &mut diagnostics)
        .unwrap()
        .unwrap();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        expressions,
        json!({
            "preset": {"happy": {"morphTargetBinds": [{"node": 1, "index": 0, "weight": 1.0}], "isBinary": false}},
            "custom": {"wink": {"morphTargetBinds": [{"node": 1, "index": 1, "weight": 0.5}], "isBinary": true}}
        })
    );
    assert_eq!(
        annotations,
        Some(json!([{"node": 1, "type": "thirdPersonOnly"}]))
    );
}

#[test]
fn a_document_with_khr_expressions_is_left_as_it_is() {
    let mut doc = vrm1_face();
    khr_expression::vrm_to_khr(&mut doc, &mut Diagnostics::new()).unwrap();
    let before = json_of(&doc.root);
    let mut diagnostics = Diagnostics::new();
    let summary = khr_expression::vrm_to_khr(&mut doc, &mut diagnostics).unwrap();
    assert!(summary.already_present);
    assert!(summary.expressions.is_empty() && summary.visibility.is_empty());
    assert_eq!(
        codes(&diagnostics),
        [(
            "KHR_EXPRESSION_PRESENT",
            Severity::Info,
            "/extensions/KHR_character_expression".to_owned()
        )]
    );
    assert_eq!(json_of(&doc.root), before);
    assert_eq!(doc.root.buffers.len(), 2);
}

#[test]
fn a_node_hint_already_there_is_kept() {
    for (role, reported) in [("third_person", false), ("always", true)] {
        let mut json = face_json(json!({"VRMC_vrm": {
            "specVersion": "1.0",
            "firstPerson": {"meshAnnotations": [{"node": 1, "type": "thirdPersonOnly"}]}
        }}));
        json["nodes"][1]["extensions"] = json!({"KHR_node_visibility_hint": {"role": role}});
        let mut doc = document(json, face_bin());
        let mut diagnostics = Diagnostics::new();
        let summary = khr_expression::vrm_to_khr(&mut doc, &mut diagnostics).unwrap();
        assert!(summary.visibility.is_empty(), "{role}");
        let expected = if reported {
            vec![(
                "KHR_VISIBILITY_DROPPED",
                Severity::Warning,
                "/extensions/VRMC_vrm/firstPerson/meshAnnotations/0".to_owned(),
            )]
        } else {
            Vec::new()
        };
        assert_eq!(codes(&diagnostics), expected, "{role}");
        assert_eq!(
            json_of(&doc.root.nodes[1].extensions),
            json!({"KHR_node_visibility_hint": {"role": role}})
        );
    }
}

#[test]
fn a_plain_gltf_is_left_as_it_is() {
    let mut doc = document(face_json(json!({})), face_bin());
    let before = json_of(&doc.root);
    let mut diagnostics = Diagnostics::new();
    let summary = khr_expression::vrm_to_khr(&mut doc, &mut diagnostics).unwrap();
    assert_eq!(summary, KhrExpressions::default());
    assert!(diagnostics.is_empty());
    assert_eq!(json_of(&doc.root), before);
    assert_eq!(
        khr_expression::khr_to_vrm1(&doc, &mut diagnostics).unwrap(),
        None
    );
}

// ---------------------------------------------------------------------------------------------
// VRM 0.x → KHR → VRM 1.0
// ---------------------------------------------------------------------------------------------

#[test]
fn vrm0_blend_shape_groups_become_khr_with_1_0_names_and_weights() {
    let mut doc = document(
        face_json(json!({"VRM": {
            "blendShapeMaster": {"blendShapeGroups": [
                {"name": "Joy", "presetName": "joy",
                 "binds": [{"mesh": 0, "index": 1, "weight": 50}],
                 "materialValues": [{"materialName": "Face", "propertyName": "_Color", "targetValue": [1, 0, 0, 1]}]},
                {"name": "Neutral", "presetName": "neutral", "binds": []},
                {"name": "Smirk", "presetName": "unknown", "isBinary": true,
                 "binds": [{"mesh": 0, "index": 0, "weight": 100}, {"mesh": 0, "index": 5, "weight": 100}]}
            ]},
            "firstPerson": {"meshAnnotations": [{"mesh": 0, "firstPersonFlag": "Auto"}]}
        }})),
        face_bin(),
    );
    let mut diagnostics = Diagnostics::new();
    let summary = khr_expression::vrm_to_khr(&mut doc, &mut diagnostics).unwrap();
    let groups = "/extensions/VRM/blendShapeMaster/blendShapeGroups";
    assert_eq!(
        codes(&diagnostics),
        [
            (
                "KHR_EXPRESSION_MATERIAL_DROPPED",
                Severity::Warning,
                format!("{groups}/0/materialValues")
            ),
            (
                "KHR_EXPRESSION_DROPPED",
                Severity::Warning,
                format!("{groups}/2/binds/1")
            ),
            (
                "KHR_EXPRESSION_EMPTY",
                Severity::Info,
                format!("{groups}/1")
            ),
            ("KHR_VISIBILITY_AUTO", Severity::Info, "/nodes".to_owned()),
        ]
    );
    assert_eq!(
        summary.expressions,
        [("happy".to_owned(), 0), ("Smirk".to_owned(), 1)]
    );
    assert_eq!(summary.visibility, [(1, "VRMC_auto".to_owned())]);
    assert_eq!(
        json_of(&doc.root.nodes[1].extensions),
        json!({"KHR_node_visibility_hint": {"role": "VRMC_auto"}})
    );
    let doc = reread(&doc);
    // Joy's 50 of 100 is 0.5 on target 1; Smirk is binary, target 0 in full.
    assert_eq!(floats(&doc, 4), [0.0, 0.0, 0.0, 0.5]);
    assert_eq!(floats(&doc, 6), [0.0, 0.0, 1.0, 0.0, 1.0, 0.0]);

    let mut diagnostics = Diagnostics::new();
    let (expressions, annotations) = khr_expression::khr_to_vrm1(&doc, &mut diagnostics)
        .unwrap()
        .unwrap();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        expressions,
        json!({
            "preset": {"happy": {"morphTargetBinds": [{"node": 1, "index": 1, "weight": 0.5}], "isBinary": false}},
            "custom": {"Smirk": {"morphTargetBinds": [{"node": 1, "index": 0, "weight": 1.0}], "isBinary": true}}
        })
    );
    assert_eq!(annotations, Some(json!([{"node": 1, "type": "auto"}])));
}

// ---------------------------------------------------------------------------------------------
// Texture transform binds
// ---------------------------------------------------------------------------------------------

#[test]
fn texture_transform_binds_become_pointer_channels_and_come_back() {
    let mut json = face_json(
        json!({"VRMC_vrm": {"specVersion": "1.0", "expressions": {"custom": {
            "eyes": {
                "textureTransformBinds": [{"material": 0, "scale": [0.25, 0.25], "offset": [0.75, 0.0]}],
                "materialColorBinds": [{"material": 0, "type": "color", "targetValue": [1.0, 0.0, 0.0, 1.0]}]
            }
        }}}}),
    );
    json["textures"] = json!([{}]);
    json["materials"] = json!([{
        "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}},
        "emissiveTexture": {"index": 0, "extensions": {"KHR_texture_transform": {"offset": [0.5, 0.0]}}}
    }]);
    json["meshes"][0]["primitives"][0]["material"] = json!(0);
    let mut doc = document(json, face_bin());
    let mut diagnostics = Diagnostics::new();
    khr_expression::vrm_to_khr(&mut doc, &mut diagnostics).unwrap();
    assert_eq!(
        codes(&diagnostics),
        [(
            "KHR_EXPRESSION_MATERIAL_DROPPED",
            Severity::Warning,
            "/extensions/VRMC_vrm/expressions/custom/eyes/materialColorBinds".to_owned()
        )]
    );
    // Every texture of the material: the emissive one from its own transform, the base
    // colour one (given an empty transform) from the identity.
    let pointer = |texture: &str, property: &str| {
        json!({"path": "pointer", "extensions": {"KHR_animation_pointer": {
            "pointer": format!("/materials/0/{texture}/extensions/KHR_texture_transform/{property}")
        }}})
    };
    assert_eq!(
        json_of(&doc.root.animations[0].channels),
        json!([
            {"sampler": 0, "target": pointer("emissiveTexture", "offset")},
            {"sampler": 1, "target": pointer("emissiveTexture", "scale")},
            {"sampler": 2, "target": pointer("pbrMetallicRoughness/baseColorTexture", "offset")},
            {"sampler": 3, "target": pointer("pbrMetallicRoughness/baseColorTexture", "scale")}
        ])
    );
    assert_eq!(
        doc.root.other["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"],
        json!({"index": 0, "extensions": {"KHR_texture_transform": {}}})
    );
    assert_eq!(
        doc.root.extensions.as_ref().unwrap()["KHR_character_expression"],
        json!({"expressions": [{"expression": "eyes", "animation": 0,
            "extensions": {"KHR_character_expression_texture": {"channels": [0, 1, 2, 3]}}}]})
    );
    assert_eq!(
        doc.root.extensions_used,
        [
            "KHR_character_expression",
            "KHR_character_expression_texture",
            "KHR_animation_pointer",
            "KHR_texture_transform"
        ]
    );
    let doc = reread(&doc);
    let outputs: Vec<Vec<f32>> = doc.root.animations[0]
        .samplers
        .iter()
        .map(|s| floats(&doc, s.output.get()))
        .collect();
    assert_eq!(
        outputs,
        [
            vec![0.5, 0.0, 0.75, 0.0],
            vec![1.0, 1.0, 0.25, 0.25],
            vec![0.0, 0.0, 0.75, 0.0],
            vec![1.0, 1.0, 0.25, 0.25]
        ]
    );
    let mut diagnostics = Diagnostics::new();
    let (expressions, annotations) = khr_expression::khr_to_vrm1(&doc, &mut diagnostics)
        .unwrap()
        .unwrap();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        expressions,
        json!({"custom": {"eyes": {
            "textureTransformBinds": [{"material": 0, "scale": [0.25, 0.25], "offset": [0.75, 0.0]}],
            "isBinary": false
        }}})
    );
    assert_eq!(annotations, None);
}

// ---------------------------------------------------------------------------------------------
// KHR written by others → VRM 1.0
// ---------------------------------------------------------------------------------------------

/// Face data, then: times [0, 1] (108), smile [0, 0.75] (116), a rotation pair (124), blink
/// weights [0, 0, 1, 1] (156).
fn khr_bin() -> Vec<u8> {
    let mut bin = face_bin();
    bin.extend(le(&[0.0, 1.0]));
    bin.extend(le(&[0.0, 0.75]));
    bin.extend(le(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.258_819, 0.965_926]));
    bin.extend(le(&[0.0, 0.0, 1.0, 1.0]));
    bin
}

fn khr_json(extensions: Value) -> Value {
    let mut json = face_json(extensions);
    let hint = |role: &str| json!({"KHR_node_visibility_hint": {"role": role}});
    json["nodes"] = json!([
        {"name": "Head", "children": [1],
         "extensions": {"KHR_node_visibility_hint": {"role": "third_person", "label": "Head (hidden in first person)"}}},
        {"name": "Face", "mesh": 0},
        {"name": "Body", "mesh": 1},
        {"name": "Mirror", "mesh": 0, "extensions": hint("ACME_mirror_only")},
        {"name": "Hands", "mesh": 2},
        {"name": "Jaw"},
        {"name": "Glasses", "mesh": 0, "extensions": hint("VRMC_auto")}
    ]);
    json["scenes"] = json!([{"nodes": [0, 2, 3, 4, 5, 6]}]);
    let primitive = |role: &str| {
        json!({"attributes": {"POSITION": 0},
               "extensions": {"KHR_mesh_primitive_visibility_hint": {"role": role}}})
    };
    let meshes = json["meshes"].as_array_mut().unwrap();
    meshes.push(json!({"primitives": [primitive("first_person"), primitive("third_person")]}));
    meshes.push(json!({"primitives": [primitive("first_person")]}));
    let accessors = json["accessors"].as_array_mut().unwrap();
    accessors.push(json!({"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]}));
    accessors.push(json!({"bufferView": 4, "componentType": 5126, "count": 2, "type": "SCALAR"}));
    accessors.push(json!({"bufferView": 5, "componentType": 5126, "count": 2, "type": "VEC4"}));
    accessors.push(json!({"bufferView": 6, "componentType": 5126, "count": 4, "type": "SCALAR"}));
    let views = json["bufferViews"].as_array_mut().unwrap();
    for (offset, length) in [(108, 8), (116, 8), (124, 32), (156, 16)] {
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": length}));
    }
    json["buffers"] = json!([{"byteLength": 172}]);
    json["animations"] = json!([
        {"name": "smile",
         "channels": [
            {"sampler": 0, "target": {"path": "pointer",
                "extensions": {"KHR_animation_pointer": {"pointer": "/nodes/1/weights/1"}}}},
            {"sampler": 1, "target": {"node": 5, "path": "rotation"}}],
         "samplers": [{"input": 3, "output": 4}, {"input": 3, "output": 5}]},
        {"name": "blink",
         "channels": [{"sampler": 0, "target": {"node": 1, "path": "weights"}}],
         "samplers": [{"input": 3, "output": 6, "interpolation": "STEP"}]}
    ]);
    json
}

#[test]
fn khr_expressions_and_hints_from_elsewhere_become_vrm1() {
    let doc = document(
        khr_json(json!({"KHR_character_expression": {"expressions": [
            {"expression": "smile", "animation": 0, "extensions": {
                "KHR_character_expression_morphtarget": {"channels": [0]},
                "KHR_character_expression_joint": {"channels": [1]}}},
            {"expression": "blink", "animation": 1}
        ]}})),
        khr_bin(),
    );
    let mut found = Diagnostics::new();
    khr_expression::check(&doc.root, &mut found);
    assert!(found.is_empty(), "{found:?}");

    let mut diagnostics = Diagnostics::new();
    let (expressions, annotations) = khr_expression::khr_to_vrm1(&doc, &mut diagnostics)
        .unwrap()
        .unwrap();
    // smile: the pointer to target 1 at time 1 (0.75), not a preset; the jaw rotation has no
    // VRM form. blink: no typed list, so every channel is read; STEP, so binary.
    assert_eq!(
        expressions,
        json!({
            "preset": {"blink": {"morphTargetBinds": [
                {"node": 1, "index": 0, "weight": 1.0}, {"node": 1, "index": 1, "weight": 1.0}],
                "isBinary": true}},
            "custom": {"smile": {"morphTargetBinds": [{"node": 1, "index": 1, "weight": 0.75}],
                "isBinary": false}}
        })
    );
    // Face inherits the head's role; Body's primitives disagree (not annotated); Mirror's role
    // is unknown (always, so both); Hands take their one primitive's role; Glasses are auto.
    assert_eq!(
        annotations,
        Some(json!([
            {"node": 1, "type": "thirdPersonOnly"},
            {"node": 3, "type": "both"},
            {"node": 4, "type": "firstPersonOnly"},
            {"node": 6, "type": "auto"}
        ]))
    );
    assert_eq!(
        codes(&diagnostics),
        [
            (
                "KHR_VISIBILITY_MIXED",
                Severity::Warning,
                "/meshes/1/primitives".to_owned()
            ),
            (
                "KHR_VISIBILITY_UNKNOWN_ROLE",
                Severity::Warning,
                "/nodes".to_owned()
            ),
            (
                "KHR_EXPRESSION_JOINT_DROPPED",
                Severity::Warning,
                "/extensions/KHR_character_expression/expressions/0".to_owned()
            ),
        ]
    );
}

#[test]
fn only_hints_give_annotations_and_empty_expressions() {
    let doc = document(khr_json(json!({})), khr_bin());
    let (expressions, annotations) = khr_expression::khr_to_vrm1(&doc, &mut Diagnostics::new())
        .unwrap()
        .unwrap();
    assert_eq!(expressions, json!({}));
    assert_eq!(annotations.unwrap().as_array().unwrap().len(), 4);
}

// ---------------------------------------------------------------------------------------------
// Schema checks
// ---------------------------------------------------------------------------------------------

/// `check`'s findings on the KHR document with this root extension and these changes.
fn check_findings(expression: Value, change: impl FnOnce(&mut Value)) -> Vec<Finding> {
    let mut json = khr_json(json!({ "KHR_character_expression": expression }));
    change(&mut json);
    let root: Ordered<Root> = serde_json::from_value(json).unwrap();
    let mut found = Diagnostics::new();
    khr_expression::check(&root, &mut found);
    codes(&found)
}

fn error(at: &str) -> Finding {
    ("KHR_EXPRESSION_INVALID", Severity::Error, at.to_owned())
}

#[test]
fn check_reports_an_animation_out_of_range() {
    let found = check_findings(
        json!({"expressions": [{"expression": "happy", "animation": 2}]}),
        |_| {},
    );
    assert_eq!(
        found,
        [error(
            "/extensions/KHR_character_expression/expressions/0/animation"
        )]
    );
}

#[test]
fn check_reports_each_schema_violation_where_it_is() {
    let base = "/extensions/KHR_character_expression";
    let cases: Vec<(Value, Vec<Finding>)> = vec![
        (json!({}), vec![error(base)]),
        (
            json!({"expressions": []}),
            vec![error(&format!("{base}/expressions"))],
        ),
        (
            json!({"expressions": {"happy": 0}}),
            vec![error(&format!("{base}/expressions"))],
        ),
        (
            json!({"expressions": [{"animation": 0}]}),
            vec![error(&format!("{base}/expressions/0"))],
        ),
        (
            json!({"expressions": [{"expression": 3, "animation": -1}]}),
            vec![
                error(&format!("{base}/expressions/0/expression")),
                error(&format!("{base}/expressions/0/animation")),
            ],
        ),
        (
            json!({"expressions": [{"expression": "a", "animation": 0, "weight": 1}]}),
            vec![error(&format!("{base}/expressions/0/weight"))],
        ),
        (
            json!({"expressions": [
                {"expression": "a", "animation": 0},
                {"expression": "a", "animation": 1}]}),
            vec![(
                "KHR_EXPRESSION_DUPLICATE",
                Severity::Warning,
                format!("{base}/expressions/1/expression"),
            )],
        ),
        (
            json!({"expressions": [{"expression": "a", "animation": 0, "extensions": {
                "KHR_character_expression_morphtarget": {"channels": []}}}]}),
            vec![error(&format!(
                "{base}/expressions/0/extensions/KHR_character_expression_morphtarget/channels"
            ))],
        ),
        (
            json!({"expressions": [{"expression": "a", "animation": 0, "extensions": {
                "KHR_character_expression_joint": {}}}]}),
            vec![error(&format!(
                "{base}/expressions/0/extensions/KHR_character_expression_joint"
            ))],
        ),
        (
            // Unique items, channels of that animation (smile has 2), and a morph target
            // channel must drive weights (channel 1 is the jaw's rotation).
            json!({"expressions": [{"expression": "a", "animation": 0, "extensions": {
                "KHR_character_expression_morphtarget": {"channels": [0, 0, 2, 1]},
                "KHR_character_expression_texture": {"channels": ["0"]}}}]}),
            {
                let list = format!(
                    "{base}/expressions/0/extensions/KHR_character_expression_morphtarget/channels"
                );
                vec![
                    error(&format!("{list}/1")),
                    error(&format!("{list}/2")),
                    error(&format!("{list}/3")),
                    error(&format!(
                        "{base}/expressions/0/extensions/KHR_character_expression_texture/channels/0"
                    )),
                ]
            },
        ),
    ];
    for (expression, expected) in cases {
        let found = check_findings(expression.clone(), |_| {});
        assert_eq!(found, expected, "{expression}");
    }
}

#[test]
fn check_reports_bad_visibility_hints() {
    let found = check_findings(
        json!({"expressions": [{"expression": "a", "animation": 1}]}),
        |json| {
            json["nodes"][1]["extensions"] = json!({"KHR_node_visibility_hint": {"label": ""}});
            json["nodes"][3]["extensions"] = json!({"KHR_node_visibility_hint": {"role": 1}});
            json["meshes"][1]["primitives"][0]["extensions"] =
                json!({"KHR_mesh_primitive_visibility_hint": {"role": ""}});
        },
    );
    let hint = |at: &str| ("KHR_VISIBILITY_INVALID", Severity::Error, at.to_owned());
    assert_eq!(
        found,
        [
            hint("/nodes/1/extensions/KHR_node_visibility_hint"),
            hint("/nodes/1/extensions/KHR_node_visibility_hint/label"),
            hint("/nodes/3/extensions/KHR_node_visibility_hint/role"),
            hint("/meshes/1/primitives/0/extensions/KHR_mesh_primitive_visibility_hint/role"),
        ]
    );
}

#[test]
fn khr_to_vrm1_refuses_a_document_that_breaks_the_schema() {
    let doc = document(
        khr_json(json!({"KHR_character_expression": {"expressions": [
            {"expression": "happy", "animation": 7}]}})),
        khr_bin(),
    );
    let error = khr_expression::khr_to_vrm1(&doc, &mut Diagnostics::new()).unwrap_err();
    assert_eq!(error.code(), "KHR_EXPRESSION_INVALID");
    let text = error.to_string();
    assert!(
        text.contains("JSON /extensions/KHR_character_expression/expressions/0/animation"),
        "{text}"
    );
}

#[test]
fn expression_animations_are_the_valid_ones_once_each() {
    let json = khr_json(json!({"KHR_character_expression": {"expressions": [
        {"expression": "a", "animation": 1},
        {"expression": "b", "animation": 1},
        {"expression": "c", "animation": 9},
        {"expression": "d", "animation": 0}
    ]}}));
    let root: Ordered<Root> = serde_json::from_value(json).unwrap();
    assert_eq!(khr_expression::expression_animations(&root), [0, 1]);
}

// ---------------------------------------------------------------------------------------------
// Corpus
// ---------------------------------------------------------------------------------------------

#[cfg(feature = "corpus")]
mod corpus {
    //! Expected binds are read here from the files' own VRM JSON (the VRM 0.x rules written
    //! here: weight ÷ 100, a mesh's binds on every node holding it, 1.0 preset names), then
    //! compared with what comes back from KHR.

    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use humanoid::formats::gltf::Document;
    use humanoid::formats::vrm::khr_expression;
    use humanoid::formats::vrm::migrate::migrate_vrm0_to_vrm1;
    use humanoid::Diagnostics;
    use serde_json::Value;

    /// (expression, node, target) → weight.
    type Binds = BTreeMap<(String, u64, u64), f64>;

    fn open(name: &str) -> Option<Document> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpus/vrm")
            .join(name);
        if !path.exists() {
            eprintln!("skipped: {} is missing", path.display());
            return None;
        }
        Some(Document::open(&path).unwrap())
    }

    /// The morph binds of a VRM 1.0 `expressions` object (zero weights left out, as a
    /// KHR animation cannot tell them from unbound targets).
    fn vrm1_binds(expressions: &Value) -> Binds {
        let mut binds = Binds::new();
        for group in ["preset", "custom"] {
            let Some(entries) = expressions.get(group).and_then(Value::as_object) else {
                continue;
            };
            for (name, expression) in entries {
                for bind in expression["morphTargetBinds"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let weight = bind["weight"].as_f64().unwrap();
                    let key = (
                        name.clone(),
                        bind["node"].as_u64().unwrap(),
                        bind["index"].as_u64().unwrap(),
                    );
                    *binds.entry(key).or_insert(0.0) += weight;
                }
            }
        }
        binds.retain(|_, w| *w != 0.0);
        binds
    }

    fn assert_same(found: &Binds, expected: &Binds) {
        assert_eq!(
            found.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>()
        );
        for (key, weight) in expected {
            assert!(
                (found[key] - weight).abs() < 1e-6,
                "{key:?}: {} ≠ {weight}",
                found[key]
            );
        }
    }

    fn round_trip(doc: &mut Document) -> (Value, Option<Value>) {
        let mut diagnostics = Diagnostics::new();
        khr_expression::vrm_to_khr(doc, &mut diagnostics).unwrap();
        let bytes = doc.to_glb_bytes().unwrap();
        let reread = Document::from_slice(&bytes, "reread.glb", None).unwrap();
        khr_expression::khr_to_vrm1(&reread, &mut diagnostics)
            .unwrap()
            .unwrap()
    }

    /// Godette (VRM 0.x): every blend shape group's morph binds come back as VRM 1.0 binds.
    #[test]
    fn godette_vrm0_morph_binds_round_trip() {
        let Some(mut doc) = open("Godette_vrm_v4.vrm") else {
            return;
        };
        let vrm = doc.root.extensions.as_ref().unwrap()["VRM"].clone();
        let mut nodes_of: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for (n, node) in doc.root.nodes.iter().enumerate() {
            if let Some(mesh) = node.mesh {
                nodes_of
                    .entry(mesh.get().into())
                    .or_default()
                    .push(n as u64);
            }
        }
        // VRM 0.x preset → VRM 1.0 name; "unknown" is looked up by the group's name.
        let renamed = |preset: &str| -> Option<&'static str> {
            Some(match preset {
                "a" => "aa",
                "i" => "ih",
                "u" => "ou",
                "e" => "ee",
                "o" => "oh",
                "joy" => "happy",
                "sorrow" => "sad",
                "fun" => "relaxed",
                "blink_l" => "blinkLeft",
                "blink_r" => "blinkRight",
                "lookup" => "lookUp",
                "lookdown" => "lookDown",
                "lookleft" => "lookLeft",
                "lookright" => "lookRight",
                "blink" => "blink",
                "angry" => "angry",
                "neutral" => "neutral",
                "surprised" => "surprised",
                _ => return None,
            })
        };
        let mut expected = Binds::new();
        for group in vrm["blendShapeMaster"]["blendShapeGroups"]
            .as_array()
            .unwrap()
        {
            let group_name = group["name"].as_str().unwrap();
            let mut preset = group["presetName"].as_str().unwrap().to_ascii_lowercase();
            if preset == "unknown" {
                preset = group_name.to_ascii_lowercase();
            }
            let name = renamed(&preset).map_or_else(|| group_name.to_owned(), str::to_owned);
            for bind in group["binds"].as_array().unwrap() {
                for &node in &nodes_of[&bind["mesh"].as_u64().unwrap()] {
                    let key = (name.clone(), node, bind["index"].as_u64().unwrap());
                    *expected.entry(key).or_insert(0.0) += bind["weight"].as_f64().unwrap() / 100.0;
                }
            }
        }
        expected.retain(|_, w| *w != 0.0);
        assert!(expected.len() > 20, "Godette has many binds");
        let (expressions, annotations) = round_trip(&mut doc);
        assert_same(&vrm1_binds(&expressions), &expected);
        // Both meshes are Auto in the file.
        let annotated: Vec<(u64, &str)> = annotations
            .as_ref()
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["node"].as_u64().unwrap(), a["type"].as_str().unwrap()))
            .collect();
        let mut holders: Vec<u64> = nodes_of.values().flatten().copied().collect();
        holders.sort_unstable();
        assert_eq!(
            annotated,
            holders.iter().map(|&n| (n, "auto")).collect::<Vec<_>>()
        );
    }

    /// Godette migrated to VRM 1.0 (a VRM 1.0 with morph binds; the corpus's native 1.0 files
    /// have none): every expression's morph binds round-trip.
    #[test]
    fn migrated_vrm1_morph_binds_round_trip() {
        let Some(doc) = open("Godette_vrm_v4.vrm") else {
            return;
        };
        let (mut doc, _) = migrate_vrm0_to_vrm1(&doc).unwrap();
        let expected =
            vrm1_binds(&doc.root.extensions.as_ref().unwrap()["VRMC_vrm"]["expressions"]);
        assert!(expected.len() > 20);
        let (expressions, _) = round_trip(&mut doc);
        assert_same(&vrm1_binds(&expressions), &expected);
    }

    /// The VRM sample with binary, texture-transform expressions: the binds and the flag come
    /// back, and so does its third-person-only annotation.
    #[test]
    fn vrm1_texture_expressions_round_trip() {
        let Some(mut doc) = open("VRMC_vrm_expressions_isBinary_Overrides.vrm") else {
            return;
        };
        let vrm = doc.root.extensions.as_ref().unwrap()["VRMC_vrm"].clone();
        let (expressions, annotations) = round_trip(&mut doc);
        for name in ["happy", "blink"] {
            let source = &vrm["expressions"]["preset"][name];
            let back = &expressions["preset"][name];
            assert_eq!(
                back["isBinary"].as_bool(),
                Some(source["isBinary"].as_bool().unwrap_or(false)),
                "{name}"
            );
            let source_binds = source["textureTransformBinds"].as_array().unwrap();
            let back_binds = back["textureTransformBinds"].as_array().unwrap();
            assert_eq!(back_binds.len(), source_binds.len(), "{name}");
            for (s, b) in source_binds.iter().zip(back_binds) {
                assert_eq!(b["material"], s["material"], "{name}");
                for (property, default) in [("scale", [1.0, 1.0]), ("offset", [0.0, 0.0])] {
                    let want: Vec<f64> = s.get(property).map_or(default.to_vec(), |v| {
                        v.as_array()
                            .unwrap()
                            .iter()
                            .map(|x| x.as_f64().unwrap())
                            .collect()
                    });
                    let got: Vec<f64> = b[property]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap())
                        .collect();
                    assert_eq!(got, want, "{name} {property}");
                }
            }
        }
        assert_eq!(
            annotations,
            Some(serde_json::json!([{"node": 22, "type": "thirdPersonOnly"}]))
        );
    }

    /// debug_robot's 18 expressions have no bind: each is reported, and no
    /// KHR_character_expression (which needs at least one) is written.
    #[test]
    fn vrm1_expressions_without_binds_write_nothing() {
        let Some(mut doc) = open("debug_robot.vrm") else {
            return;
        };
        let animations = doc.root.animations.len();
        let mut diagnostics = Diagnostics::new();
        let summary = khr_expression::vrm_to_khr(&mut doc, &mut diagnostics).unwrap();
        assert!(summary.expressions.is_empty());
        assert_eq!(
            diagnostics
                .iter()
                .filter(|d| d.code == "KHR_EXPRESSION_EMPTY")
                .count(),
            18
        );
        assert_eq!(doc.root.animations.len(), animations);
        assert!(!doc
            .root
            .extensions
            .as_ref()
            .unwrap()
            .contains_key("KHR_character_expression"));
    }
}
