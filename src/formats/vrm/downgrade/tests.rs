//! Unit tests on a small VRM 1.0 document built by hand. Every expected value below is worked
//! out by hand from the turn `(x, y, z) → (−x, y, −z)`, the VRM 0.x schema and the inverse of
//! the migration's rules (whose own tests pin them from the 0.x side), never taken from the
//! code under test.

use glam::DQuat;
use serde_json::{json, Value};

use super::*;
use crate::error::Severity;
use crate::formats::gltf::accessor::read_f32;
use crate::formats::gltf::json::{floats, Index};
use crate::formats::vrm::migrate::{self, migrate_vrm0_to_vrm1};

// ---------------------------------------------------------------------------------------------
// The test document
// ---------------------------------------------------------------------------------------------

/// A GLB file: 12-byte header, JSON chunk (space padded), BIN chunk (zero padded).
pub(super) fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut text = json.as_bytes().to_vec();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut data = bin.to_vec();
    while !data.len().is_multiple_of(4) {
        data.push(0);
    }
    let total = 12 + 8 + text.len() + 8 + data.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(total).unwrap().to_le_bytes());
    out.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&u32::try_from(data.len()).unwrap().to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&data);
    out
}

pub(super) const POSITIONS: [f32; 9] = [1.0, 2.0, 3.0, -4.0, 5.0, 6.0, 7.0, -8.0, -9.0];
pub(super) const MORPH: [f32; 9] = [0.5, 0.0, -0.5, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0];

/// POSITION (36 bytes), a morph delta (36 bytes), 4 bytes of "image".
pub(super) fn bin() -> Vec<u8> {
    let mut out = Vec::new();
    for v in POSITIONS.iter().chain(&MORPH) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&[0x89, b'P', b'N', b'G']);
    out
}

fn node(name: &str, t: [f64; 3], children: &[usize]) -> Value {
    let mut n = json!({"name": name, "translation": t});
    if !children.is_empty() {
        n["children"] = json!(children);
    }
    n
}

/// The nodes: 17 humanoid bones and three thumb bones (named as their 1.0 bone), a spring
/// chain on the head, three mesh nodes and a constrained node.
fn nodes() -> Vec<Value> {
    vec![
        node("hips", [0.0, 1.0, 0.0], &[1, 11, 14]),
        node("spine", [0.0, 0.1, 0.0], &[2]),
        node("chest", [0.0, 0.1, 0.0], &[3, 5, 8]),
        node("neck", [0.0, 0.2, 0.0], &[4]),
        node("head", [0.0, 0.1, 0.0], &[17]),
        node("leftUpperArm", [0.2, 0.1, 0.0], &[6]),
        node("leftLowerArm", [0.3, 0.0, 0.0], &[7]),
        node("leftHand", [0.25, 0.0, 0.0], &[18]),
        node("rightUpperArm", [-0.2, 0.1, 0.0], &[9]),
        node("rightLowerArm", [-0.3, 0.0, 0.0], &[10]),
        node("rightHand", [-0.25, 0.0, 0.0], &[]),
        node("leftUpperLeg", [0.1, -0.05, 0.0], &[12]),
        node("leftLowerLeg", [0.0, -0.45, 0.0], &[13]),
        node("leftFoot", [0.0, -0.45, 0.0], &[]),
        node("rightUpperLeg", [-0.1, -0.05, 0.0], &[15]),
        node("rightLowerLeg", [0.0, -0.45, 0.0], &[16]),
        node("rightFoot", [0.0, -0.45, 0.0], &[]),
        node("hair1", [0.0, 0.1, -0.1], &[19]),
        node("leftThumbMetacarpal", [0.02, 0.0, 0.03], &[20]),
        node("hair2", [0.0, -0.1, -0.05], &[21]),
        node("leftThumbProximal", [0.03, 0.0, 0.02], &[22]),
        node("hair2_end", [0.0, -0.07, 0.0], &[]),
        node("leftThumbDistal", [0.02, 0.0, 0.01], &[]),
        json!({"name": "body", "mesh": 0}),
        json!({"name": "body2", "mesh": 0}),
        json!({"name": "face", "mesh": 1}),
        json!({"name": "constrained", "extensions": {
            "VRMC_node_constraint": {"constraint": {"roll": {"source": 0, "rollAxis": "X"}}}}}),
    ]
}

/// The 1.0 bone names and nodes: the node named after each bone.
fn human_bones() -> Value {
    let mut bones = serde_json::Map::new();
    for (n, node) in nodes().iter().enumerate() {
        let name = node["name"].as_str().unwrap();
        if name.parse::<HumanBone>().is_ok() {
            bones.insert(name.to_owned(), json!({"node": n}));
        }
    }
    Value::Object(bones)
}

fn vrm1_json() -> Value {
    json!({
        "specVersion": "1.0",
        "meta": {
            "name": "Test", "version": "1.2", "authors": ["A", "B"],
            "copyrightInformation": "(c) A", "contactInformation": "mail", "references": ["r1"],
            "thumbnailImage": 1, "licenseUrl": "https://vrm.dev/licenses/1.0/",
            "avatarPermission": "onlySeparatelyLicensedPerson",
            "allowExcessivelyViolentUsage": false, "allowExcessivelySexualUsage": true,
            "commercialUsage": "personalProfit", "allowPoliticalOrReligiousUsage": false,
            "allowAntisocialOrHateUsage": false, "creditNotation": "unnecessary",
            "allowRedistribution": true, "modification": "allowModification",
            "otherLicenseUrl": "https://other"
        },
        "humanoid": {"humanBones": human_bones()},
        "firstPerson": {"meshAnnotations": [
            {"node": 23, "type": "thirdPersonOnly"}, {"node": 24, "type": "thirdPersonOnly"},
            {"node": 25, "type": "firstPersonOnly"}, {"node": 0, "type": "auto"}
        ]},
        "lookAt": {
            "offsetFromHeadBone": [0.01, 0.06, 0.02], "type": "expression",
            "rangeMapHorizontalInner": {"inputMaxValue": 90, "outputScale": 1},
            "rangeMapHorizontalOuter": {"inputMaxValue": 80, "outputScale": 0.5},
            "rangeMapVerticalDown": {"inputMaxValue": 45}
        },
        "expressions": {
            "preset": {
                "happy": {
                    "morphTargetBinds": [
                        {"node": 23, "index": 0, "weight": 0.5}, {"node": 24, "index": 0, "weight": 0.5}
                    ],
                    "materialColorBinds": [
                        {"material": 0, "type": "color", "targetValue": [1, 0, 0, 1]},
                        {"material": 1, "type": "matcapColor", "targetValue": [0, 1, 0, 1]}
                    ],
                    "textureTransformBinds": [{"material": 0, "scale": [0.5, 0.25], "offset": [0.1, 0.55]}],
                    "isBinary": false, "overrideBlink": "block", "overrideMouth": "none"
                },
                "aa": {"morphTargetBinds": [{"node": 25, "index": 0, "weight": 1}]},
                "surprised": {"isBinary": true},
                "blinkLeft": {}
            },
            "custom": {
                "Smirk": {"isBinary": true, "materialColorBinds": [
                    {"material": 2, "type": "color", "targetValue": [0, 0, 1, 1]}
                ]}
            }
        }
    })
}

fn spring_json() -> Value {
    let joint = |node: usize| {
        json!({"node": node, "hitRadius": 0.02, "stiffness": 2, "gravityPower": 0.1,
               "gravityDir": [-0.1, -1, 0.2], "dragForce": 0.4})
    };
    json!({
        "specVersion": "1.0",
        "colliders": [
            {"node": 4, "shape": {"sphere": {"offset": [0.01, 0.1, 0.03], "radius": 0.1}}},
            {"node": 2, "shape": {"capsule": {"offset": [0, 0, 0], "radius": 0.05, "tail": [0, 0.2, 0]}}},
            {"node": 4, "shape": {"sphere": {"radius": 0.05}}}
        ],
        "colliderGroups": [{"name": "head", "colliders": [0, 1, 2]}],
        "springs": [
            {"name": "hair", "joints": [joint(17), joint(19), {"node": 21}], "colliderGroups": [0]}
        ]
    })
}

pub(super) fn gltf_json() -> Value {
    let mesh =
        json!({"primitives": [{"attributes": {"POSITION": 0}, "targets": [{"POSITION": 1}]}]});
    json!({
        "asset": {"version": "2.0", "generator": "hand"},
        "extensionsUsed": ["VRMC_springBone", "VRMC_vrm", "VRMC_node_constraint",
                           "VRMC_materials_mtoon", "KHR_materials_unlit"],
        "extensions": {"VRMC_vrm": vrm1_json(), "VRMC_springBone": spring_json(), "OTHER_root": {"x": 1}},
        "scene": 0,
        "scenes": [{"nodes": [0, 23, 24, 25, 26]}],
        "nodes": nodes(),
        "meshes": [mesh.clone(), mesh],
        "materials": [
            {"name": "Face", "extensions": {"VRMC_materials_mtoon": {"specVersion": "1.0"},
                                             "KHR_materials_unlit": {}}},
            {"name": "Body"},
            {"name": "Face"}
        ],
        "images": [
            {"name": "texture", "bufferView": 2, "mimeType": "image/png"},
            {"name": "thumbnail", "bufferView": 2, "mimeType": "image/png"}
        ],
        "textures": [{"source": 0}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [-4, -8, -9], "max": [7, 5, 6]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 36},
            {"buffer": 0, "byteOffset": 72, "byteLength": 4}
        ],
        "buffers": [{"byteLength": 76}]
    })
}

pub(super) fn document(json: &Value) -> Document {
    let text = serde_json::to_string(json).unwrap();
    Document::from_slice(&glb(&text, &bin()), "hand.vrm", None).unwrap()
}

pub(super) fn downgrade_json(json: &Value) -> Result<(Document, Diagnostics), Error> {
    downgrade_vrm1_to_vrm0(&document(json))
}

pub(super) fn downgraded() -> (Document, Diagnostics) {
    downgrade_json(&gltf_json()).unwrap()
}

pub(super) fn vrm0(doc: &Document) -> &Value {
    doc.root.extensions.as_ref().unwrap().get("VRM").unwrap()
}

#[track_caller]
pub(super) fn assert_json_close(actual: &Value, expected: &Value) {
    match (actual, expected) {
        (Value::Number(a), Value::Number(e)) => {
            let (a, e) = (a.as_f64().unwrap(), e.as_f64().unwrap());
            assert!((a - e).abs() <= 1e-9, "{a} vs {e}");
        }
        (Value::Array(a), Value::Array(e)) => {
            assert_eq!(a.len(), e.len(), "{actual} vs {expected}");
            for (a, e) in a.iter().zip(e) {
                assert_json_close(a, e);
            }
        }
        (Value::Object(a), Value::Object(e)) => {
            let ka: Vec<&String> = a.keys().collect();
            let ke: Vec<&String> = e.keys().collect();
            assert_eq!(ka, ke, "{actual} vs {expected}");
            for (k, v) in e {
                assert_json_close(&a[k], v);
            }
        }
        _ => assert_eq!(actual, expected),
    }
}

#[track_caller]
pub(super) fn find<'a>(diagnostics: &'a Diagnostics, code: &str) -> &'a crate::error::Diagnostic {
    diagnostics
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no {code} in {diagnostics:?}"))
}

// ---------------------------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------------------------

#[test]
fn float_noise_is_not_a_rest_rotation() {
    let mut json = gltf_json();
    json["nodes"][5]["rotation"] = json!([3e-8, 0, 0, 1]);
    json["nodes"][6]["scale"] = json!([0.99999994, 1, 1.0000001]);
    let (out, diagnostics) = downgrade_json(&json).unwrap();
    assert!(
        !diagnostics.contains("DOWNGRADE_REST_BAKED"),
        "{diagnostics:?}"
    );
    // Nothing was baked: the noise is written back as it was (turned).
    let scale = floats(out.root.nodes[6].scale.as_ref().unwrap());
    assert_eq!(scale, [0.99999994, 1.0, 1.0000001]);
}

#[test]
fn a_missing_vrm0_bone_is_refused() {
    let mut json = gltf_json();
    let bones = json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
        .as_object_mut()
        .unwrap();
    bones.remove("neck");
    bones.remove("chest");
    let error = downgrade_json(&json).unwrap_err().to_string();
    assert!(
        error.contains("/extensions/VRMC_vrm/humanoid/humanBones")
            && error.contains("lacks 2: chest, neck"),
        "{error}"
    );
}

#[test]
fn a_bone_on_no_node_is_refused_with_its_pointer() {
    let mut json = gltf_json();
    json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["head"]["node"] = json!(99);
    let error = downgrade_json(&json).unwrap_err().to_string();
    assert!(
        error.contains("/extensions/VRMC_vrm/humanoid/humanBones/head/node"),
        "{error}"
    );
}

#[test]
fn refuses_what_is_not_vrm1() {
    let mut json = gltf_json();
    json["extensions"] = json!({"OTHER_root": {}});
    let error = downgrade_json(&json).unwrap_err().to_string();
    assert!(error.contains("no VRMC_vrm extension"), "{error}");
    let mut json = gltf_json();
    json["extensions"]["VRM"] = json!({});
    let error = downgrade_json(&json).unwrap_err().to_string();
    assert!(
        error.contains("already has the VRM 0.x extension"),
        "{error}"
    );
}

#[test]
fn angles_are_written_about_a_unit_axis() {
    let q = DQuat::from_axis_angle(glam::DVec3::new(0.0, 0.6, 0.8), -30f64.to_radians());
    // −30° about (0, 0.6, 0.8) is 30° about (0, −0.6, −0.8).
    assert_eq!(rest::angle_axis(q), "30.0° about (0, -0.6, -0.8)");
    assert_eq!(rest::angle_axis(DQuat::IDENTITY), "0.0° about (1, 0, 0)");
}

// ---------------------------------------------------------------------------------------------
// The turn
// ---------------------------------------------------------------------------------------------

#[test]
fn the_scene_turns_to_face_minus_z() {
    let (out, diagnostics) = downgraded();
    let t = |n: usize| floats(out.root.nodes[n].translation.as_ref().unwrap());
    // The left arm was at +X facing +Z; facing −Z it is at −X.
    assert_eq!(t(5), [-0.2, 0.1, 0.0]);
    assert_eq!(t(17), [0.0, 0.1, 0.1]);
    assert_eq!(t(0), [0.0, 1.0, 0.0]);
    let positions = read_f32(&out, Index::new(0)).unwrap();
    assert_eq!(
        positions,
        [-1.0, 2.0, -3.0, 4.0, 5.0, -6.0, -7.0, -8.0, 9.0]
    );
    let morph = read_f32(&out, Index::new(1)).unwrap();
    assert_eq!(morph, [-0.5, 0.0, 0.5, 0.0, 0.0, 0.0, -1.0, 1.0, -1.0]);
    assert!(diagnostics.iter().all(|d| d.code.starts_with("DOWNGRADE_")));
}

#[test]
fn input_is_unchanged() {
    let doc = document(&gltf_json());
    let before = doc.to_glb_bytes().unwrap();
    let _ = downgrade_vrm1_to_vrm0(&doc).unwrap();
    assert_eq!(doc.to_glb_bytes().unwrap(), before);
}

// ---------------------------------------------------------------------------------------------
// The extension JSON
// ---------------------------------------------------------------------------------------------

#[test]
fn extensions_are_swapped_and_vrm1_ones_dropped() {
    let (out, diagnostics) = downgraded();
    assert_eq!(out.root.extensions_used, ["VRM", "KHR_materials_unlit"]);
    let keys: Vec<&String> = out.root.extensions.as_ref().unwrap().keys().collect();
    assert_eq!(keys, ["VRM", "OTHER_root"]);
    assert_eq!(vrm0(&out)["specVersion"], "0.0");
    assert_eq!(
        vrm0(&out)["exporterVersion"],
        format!("humanoid-{}", env!("CARGO_PKG_VERSION"))
    );
    assert!(out.root.nodes[26].extensions.is_none());
    assert_eq!(
        out.root.other["materials"][0],
        json!({"name": "Face", "extensions": {"KHR_materials_unlit": {}}})
    );
    // The MToon material became 0.x materialProperties (issue 17), said once.
    let mtoon = find(&diagnostics, "DOWNGRADE_MATERIALS_MTOON");
    assert_eq!(mtoon.severity, Severity::Info);
    assert!(mtoon.message.contains("0 \"Face\""), "{}", mtoon.message);
    let property = &vrm0(&out)["materialProperties"][0];
    assert_eq!(property["shader"], "VRM/MToon");
    assert_eq!(property["name"], "Face");
    let constraint = find(&diagnostics, "DOWNGRADE_EXTENSION_DROPPED");
    assert_eq!(constraint.location, "/nodes/26");
    assert!(constraint.message.starts_with("VRMC_node_constraint"));
    assert_eq!(
        diagnostics
            .iter()
            .filter(|d| d.code == "DOWNGRADE_EXTENSION_DROPPED")
            .count(),
        1
    );
}

#[test]
fn humanoid_thumbs_are_renamed_back() {
    let (out, _) = downgraded();
    let bones = vrm0(&out)["humanoid"]["humanBones"].as_array().unwrap();
    assert_eq!(bones.len(), 20);
    let entry = |bone: &str| {
        bones
            .iter()
            .find(|b| b["bone"] == bone)
            .unwrap_or_else(|| panic!("no {bone}"))
            .clone()
    };
    assert_eq!(
        entry("hips"),
        json!({"bone": "hips", "node": 0, "useDefaultValues": true})
    );
    assert_eq!(entry("leftThumbProximal")["node"], 18);
    assert_eq!(entry("leftThumbIntermediate")["node"], 20);
    assert_eq!(entry("leftThumbDistal")["node"], 22);
    assert!(bones.iter().all(|b| b["bone"] != "leftThumbMetacarpal"));
    assert_eq!(vrm0(&out)["humanoid"]["armStretch"], 0.05);
}

#[test]
fn meta_is_mapped_back() {
    let (out, diagnostics) = downgraded();
    let expected = json!({
        "title": "Test", "version": "1.2", "author": "A, B", "contactInformation": "mail",
        "reference": "r1", "texture": 1, "allowedUserName": "ExplicitlyLicensedPerson",
        "violentUssageName": "Disallow", "sexualUssageName": "Allow",
        "commercialUssageName": "Disallow", "otherPermissionUrl": "https://other",
        "licenseName": "Redistribution_Prohibited",
        "otherLicenseUrl": "https://vrm.dev/licenses/1.0/"
    });
    assert_eq!(vrm0(&out)["meta"], expected);
    // Image 1 had no texture: one was added for it.
    assert_eq!(
        out.root.other["textures"],
        json!([{"source": 0}, {"source": 1}])
    );
    for code in [
        "DOWNGRADE_META_JOINED",
        "DOWNGRADE_META_RESTRICTED",
        "DOWNGRADE_META_LICENSE",
        "DOWNGRADE_META_THUMBNAIL",
    ] {
        find(&diagnostics, code);
    }
    let dropped = find(&diagnostics, "DOWNGRADE_META_DROPPED");
    assert!(dropped.message.ends_with("copyrightInformation"));
    let licence = find(&diagnostics, "DOWNGRADE_META_LICENSE");
    assert!(
        licence.message.contains("allowRedistribution true")
            && licence.message.contains("creditNotation \"unnecessary\"")
            && licence.message.contains("allowAntisocialOrHateUsage false"),
        "{}",
        licence.message
    );
}

#[test]
fn meta_defaults_are_the_most_restrictive() {
    let mut json = gltf_json();
    json["extensions"]["VRMC_vrm"]["meta"] =
        json!({"name": "N", "authors": ["A"], "licenseUrl": "https://l", "thumbnailImage": 0});
    let (out, diagnostics) = downgrade_json(&json).unwrap();
    let expected = json!({
        "title": "N", "author": "A", "texture": 0, "allowedUserName": "OnlyAuthor",
        "violentUssageName": "Disallow", "sexualUssageName": "Disallow",
        "commercialUssageName": "Disallow", "licenseName": "Redistribution_Prohibited",
        "otherLicenseUrl": "https://l"
    });
    assert_eq!(vrm0(&out)["meta"], expected);
    assert!(!diagnostics.contains("DOWNGRADE_META_THUMBNAIL"));
    assert!(!diagnostics.contains("DOWNGRADE_META_RESTRICTED"));
}

/// A 1.0 meta with these licence terms and `otherLicenseUrl`, downgraded: the 0.x meta and
/// the diagnostics.
fn downgrade_licence(terms: Value, other: &str) -> (Value, Diagnostics) {
    let mut json = gltf_json();
    let mut meta = json!({"name": "N", "authors": ["A"], "licenseUrl": "https://vrm.dev/licenses/1.0/",
        "otherLicenseUrl": other});
    for (k, v) in terms.as_object().unwrap() {
        meta[k] = v.clone();
    }
    json["extensions"]["VRMC_vrm"]["meta"] = meta;
    let (out, diagnostics) = downgrade_json(&json).unwrap();
    (vrm0(&out)["meta"].clone(), diagnostics)
}

#[test]
fn a_creative_commons_licence_is_named_again() {
    // What the CC BY 4.0 deed grants ("for any purpose, even commercially", credit required),
    // as the migration of a 0.x CC_BY model writes it, with a second URL UniVRM-style.
    let cc_by = json!({"creditNotation": "required", "allowRedistribution": true,
        "modification": "allowModificationRedistribution", "commercialUsage": "corporation"});
    let (meta, diagnostics) = downgrade_licence(
        cc_by.clone(),
        "'https://creativecommons.org/licenses/by/4.0/', 'https://p'",
    );
    assert_eq!(meta["licenseName"], "CC_BY");
    assert_eq!(meta["commercialUssageName"], "Allow");
    assert_eq!(meta["otherPermissionUrl"], "https://p");
    assert!(meta.get("otherLicenseUrl").is_none(), "{meta}");
    let licence = find(&diagnostics, "DOWNGRADE_META_LICENSE");
    assert_eq!(licence.severity, Severity::Info);
    // The 1.0 terms grant less than the deed (no redistribution): naming CC BY would loosen
    // them, so the most restrictive 0.x licence is written, and the deed kept as a URL.
    let mut stricter = cc_by;
    stricter["allowRedistribution"] = json!(false);
    let (meta, diagnostics) =
        downgrade_licence(stricter, "https://creativecommons.org/licenses/by/4.0/");
    assert_eq!(meta["licenseName"], "Redistribution_Prohibited");
    assert_eq!(
        meta["otherPermissionUrl"],
        "https://creativecommons.org/licenses/by/4.0/"
    );
    let licence = find(&diagnostics, "DOWNGRADE_META_LICENSE");
    assert_eq!(licence.severity, Severity::Warning);
    assert!(
        licence.message.contains("names CC_BY"),
        "{}",
        licence.message
    );
}

#[test]
fn a_vrm0_licence_survives_migration_and_the_way_back() {
    for name in [
        "CC0",
        "CC_BY",
        "CC_BY_NC",
        "CC_BY_SA",
        "CC_BY_NC_SA",
        "CC_BY_ND",
        "CC_BY_NC_ND",
    ] {
        let (mut doc, _) = downgraded();
        let meta = &mut doc
            .root
            .extensions
            .as_mut()
            .unwrap()
            .get_mut("VRM")
            .unwrap()["meta"];
        meta["licenseName"] = json!(name);
        meta["commercialUssageName"] = json!(if name.contains("NC") {
            "Disallow"
        } else {
            "Allow"
        });
        let (vrm1_doc, _) = migrate_vrm0_to_vrm1(&doc).unwrap();
        let (back, _) = downgrade_vrm1_to_vrm0(&vrm1_doc).unwrap();
        assert_eq!(vrm0(&back)["meta"]["licenseName"], json!(name));
    }
}

#[test]
fn look_at_and_first_person_are_mapped_back() {
    let (out, diagnostics) = downgraded();
    let curve = json!([0, 0, 0, 1, 1, 1, 1, 0]);
    // offsetFromHeadBone (0.01, 0.06, 0.02) facing −Z is (−0.01, 0.06, −0.02); 0.x stores it
    // in Unity space, z negated: (−0.01, 0.06, 0.02).
    let expected = json!({
        "firstPersonBone": 4,
        "firstPersonBoneOffset": {"x": -0.01, "y": 0.06, "z": 0.02},
        "meshAnnotations": [
            {"mesh": 0, "firstPersonFlag": "ThirdPersonOnly"},
            {"mesh": 1, "firstPersonFlag": "FirstPersonOnly"}
        ],
        "lookAtTypeName": "BlendShape",
        "lookAtHorizontalInner": {"curve": curve, "xRange": 90, "yRange": 1},
        "lookAtHorizontalOuter": {"curve": curve, "xRange": 80, "yRange": 0.5},
        "lookAtVerticalDown": {"curve": curve, "xRange": 45, "yRange": 1},
        "lookAtVerticalUp": {"curve": curve, "xRange": 90, "yRange": 1}
    });
    assert_json_close(&vrm0(&out)["firstPerson"], &expected);
    // three-vrm compares the text of the curve with "[0,0,0,1,1,1,1,0]".
    assert_eq!(
        serde_json::to_string(&vrm0(&out)["firstPerson"]["lookAtVerticalUp"]["curve"]).unwrap(),
        "[0,0,0,1,1,1,1,0]"
    );
    let dropped = find(&diagnostics, "DOWNGRADE_FIRST_PERSON_MESH");
    assert_eq!(
        dropped.location,
        "/extensions/VRMC_vrm/firstPerson/meshAnnotations/3"
    );
    let defaults = find(&diagnostics, "DOWNGRADE_LOOKAT_RANGE_DEFAULT");
    assert!(defaults
        .message
        .starts_with("rangeMapVerticalDown, rangeMapVerticalUp"));
}

#[test]
fn expressions_are_mapped_back() {
    let (out, diagnostics) = downgraded();
    let groups = &vrm0(&out)["blendShapeMaster"]["blendShapeGroups"];
    let expected = json!([
        {"name": "Joy", "presetName": "joy",
         // Nodes 23 and 24 share mesh 0: one bind; weight 0.5 → 50.
         "binds": [{"mesh": 0, "index": 0, "weight": 50}],
         // offset.y' = 1 − 0.55 − 0.25 = 0.2; matcapColor has no 0.x property.
         "materialValues": [
            {"materialName": "Face", "propertyName": "_Color", "targetValue": [1, 0, 0, 1]},
            {"materialName": "Face", "propertyName": "_MainTex_ST", "targetValue": [0.5, 0.25, 0.1, 0.2]}
         ],
         "isBinary": false},
        {"name": "A", "presetName": "a", "binds": [{"mesh": 1, "index": 0, "weight": 100}],
         "materialValues": [], "isBinary": false},
        {"name": "Surprised", "presetName": "unknown", "binds": [], "materialValues": [],
         "isBinary": true},
        {"name": "Blink_L", "presetName": "blink_l", "binds": [], "materialValues": [],
         "isBinary": false},
        // Material 2 is named "Face" like material 0, which 0.x readers would find: dropped.
        {"name": "Smirk", "presetName": "unknown", "binds": [], "materialValues": [],
         "isBinary": true}
    ]);
    assert_json_close(groups, &expected);
    find(&diagnostics, "DOWNGRADE_EXPRESSION_SURPRISED");
    let overrides = find(&diagnostics, "DOWNGRADE_EXPRESSION_OVERRIDE");
    assert!(overrides
        .message
        .ends_with("dropped: happy.overrideBlink block"));
    let binds: Vec<&str> = diagnostics
        .iter()
        .filter(|d| d.code == "DOWNGRADE_EXPRESSION_BIND")
        .map(|d| d.location.as_str())
        .collect();
    assert_eq!(
        binds,
        [
            "/extensions/VRMC_vrm/expressions/preset/happy/materialColorBinds/1",
            "/extensions/VRMC_vrm/expressions/custom/Smirk/materialColorBinds/0"
        ]
    );
}

#[test]
fn presets_invert_the_migration() {
    for (v1, v0, _) in expressions::PRESETS {
        assert_eq!(migrate::expressions::preset(v0), Some(v1), "{v0}");
    }
    assert_eq!(migrate::expressions::preset("surprised"), Some("surprised"));
}

#[test]
fn spring_bones_are_mapped_back() {
    let (out, diagnostics) = downgraded();
    let secondary = &vrm0(&out)["secondaryAnimation"];
    // Capsule from (0, 0, 0) to (0, 0.2, 0), radius 0.05: 4 steps of 0.05.
    let capsule: Vec<Value> = (0..5)
        .map(|i| json!({"offset": {"x": 0, "y": 0.05 * f64::from(i), "z": 0}, "radius": 0.05}))
        .collect();
    let expected = json!({
        "boneGroups": [{
            "comment": "hair", "stiffiness": 2, "gravityPower": 0.1,
            // 1.0 [−0.1, −1, 0.2] in Unity space: (0.1, −1, 0.2).
            "gravityDir": {"x": 0.1, "y": -1, "z": 0.2}, "dragForce": 0.4, "center": -1,
            "hitRadius": 0.02, "bones": [17], "colliderGroups": [0, 1]
        }],
        "colliderGroups": [
            // 1.0 offset (0.01, 0.1, 0.03) in Unity space: (−0.01, 0.1, 0.03).
            {"node": 4, "colliders": [
                {"offset": {"x": -0.01, "y": 0.1, "z": 0.03}, "radius": 0.1},
                {"offset": {"x": 0, "y": 0, "z": 0}, "radius": 0.05}
            ]},
            {"node": 2, "colliders": capsule}
        ]
    });
    assert_json_close(secondary, &expected);
    for code in [
        "DOWNGRADE_SPRING_CAPSULE",
        "DOWNGRADE_SPRING_NAME",
        "DOWNGRADE_SPRING_TAIL",
        "DOWNGRADE_SPRING_GRAVITY",
    ] {
        find(&diagnostics, code);
    }
    for code in [
        "DOWNGRADE_SPRING_SUBTREE",
        "DOWNGRADE_SPRING_CHAIN",
        "DOWNGRADE_SPRING_SETTINGS",
        "DOWNGRADE_SPRING_OVERLAP",
    ] {
        assert!(!diagnostics.contains(code), "{code}");
    }
}

#[test]
fn springs_that_sway_differently_in_vrm0_are_reported() {
    let mut json = gltf_json();
    // One chain skipping hair2 (17 → 21) with two settings, one chain inside it that only
    // differs in its name.
    json["extensions"]["VRMC_springBone"]["springs"] = json!([
        {"joints": [{"node": 17, "stiffness": 1}, {"node": 21, "stiffness": 3}, {"node": 19}]},
        {"joints": [{"node": 19, "stiffness": 1}, {"node": 21}]},
        {"name": "other", "joints": [{"node": 19}, {"node": 21}]}
    ]);
    let (out, diagnostics) = downgrade_json(&json).unwrap();
    let groups = &vrm0(&out)["secondaryAnimation"]["boneGroups"];
    // The second spring lies under the first's root with the same settings: no root of its own.
    assert_eq!(groups[0]["bones"], json!([17]));
    assert_eq!(groups[1]["bones"], json!([19]));
    assert_eq!(groups[1]["comment"], "other");
    assert_eq!(groups[1]["dragForce"], 0.5);
    // 21 is not the first child of 17 (19 is); nor 19 of 21.
    let chain = find(&diagnostics, "DOWNGRADE_SPRING_CHAIN");
    assert!(chain.message.contains("(17→21)") && chain.message.contains("(21→19)"));
    let settings = find(&diagnostics, "DOWNGRADE_SPRING_SETTINGS");
    assert!(settings
        .message
        .ends_with("/extensions/VRMC_springBone/springs/0"));
    // 19 and 21 are in the subtrees of both groups.
    let overlap = find(&diagnostics, "DOWNGRADE_SPRING_OVERLAP");
    assert!(overlap.message.starts_with("nodes 19, 21 "));
}

#[test]
fn a_chain_that_stops_early_leaves_nodes_swaying() {
    let mut json = gltf_json();
    json["extensions"]["VRMC_springBone"]["springs"] =
        json!([{"joints": [{"node": 17}, {"node": 19}]}]);
    let (_, diagnostics) = downgrade_json(&json).unwrap();
    let subtree = find(&diagnostics, "DOWNGRADE_SPRING_SUBTREE");
    assert!(
        subtree.message.contains("nodes 21 sway"),
        "{}",
        subtree.message
    );
}

#[test]
fn capsules_become_spheres_one_radius_apart() {
    let spheres = spring::capsule_spheres([0.0, 0.0, 0.0], [0.3, 0.0, 0.0], 0.1);
    let xs: Vec<f64> = spheres.iter().map(|(o, _)| o[0]).collect();
    assert_eq!(xs.len(), 4);
    for (x, e) in xs.iter().zip([0.0, 0.1, 0.2, 0.3]) {
        assert!((x - e).abs() < 1e-12, "{xs:?}");
    }
    // A zero radius: both ends.
    assert_eq!(
        spring::capsule_spheres([0.0; 3], [0.0, 1.0, 0.0], 0.0).len(),
        2
    );
    // Long and thin: capped.
    assert_eq!(
        spring::capsule_spheres([0.0; 3], [0.0, 10.0, 0.0], 0.01).len(),
        16
    );
}

// ---------------------------------------------------------------------------------------------
// Reading back
// ---------------------------------------------------------------------------------------------

#[test]
fn output_reads_back_as_vrm0() {
    let (out, _) = downgraded();
    let bytes = out.to_glb_bytes().unwrap();
    let again = Document::from_slice(&bytes, "again.vrm", None).unwrap();
    let read = crate::formats::vrm::asset_from_document(&again).unwrap();
    assert_eq!(read.asset.format, crate::model::Format::Vrm0);
    let bones = &read.asset.humanoids[0].bones;
    let thumb = bones.get(HumanBone::LeftThumbMetacarpal).unwrap();
    assert_eq!(read.asset.skeleton.name(thumb), "leftThumbMetacarpal");
}

#[test]
fn migrating_the_output_gives_the_humanoid_and_look_at_back() {
    let (out, _) = downgraded();
    let (back, _) = migrate_vrm0_to_vrm1(&out).unwrap();
    let vrm1 = back
        .root
        .extensions
        .as_ref()
        .unwrap()
        .get("VRMC_vrm")
        .unwrap();
    assert_eq!(vrm1["humanoid"]["humanBones"], human_bones());
    let look_at = &vrm1_json()["lookAt"];
    assert_json_close(
        &vrm1["lookAt"]["offsetFromHeadBone"],
        &look_at["offsetFromHeadBone"],
    );
    assert_eq!(
        floats(back.root.nodes[5].translation.as_ref().unwrap()),
        [0.2, 0.1, 0.0]
    );
}

#[test]
fn refuses_compressed_geometry_by_every_name() {
    for name in crate::formats::gltf::compression::EXTENSIONS {
        let mut json = gltf_json();
        json["extensionsUsed"]
            .as_array_mut()
            .unwrap()
            .push(json!(name));
        let error = downgrade_json(&json).unwrap_err().to_string();
        assert!(
            error.contains(name) && error.contains("decompress"),
            "{name}: {error}"
        );
    }
}
