//! Unit tests on a small VRM 0.x document built by hand. Every expected value below is worked
//! out by hand from the turn `(x, y, z) → (−x, y, −z)` and UniVRM's rules, never taken from
//! the code under test.

use serde_json::{json, Value};

use super::*;
use crate::formats::gltf::accessor::read_f32;
use crate::formats::gltf::json::{floats, Float, Index};

// ---------------------------------------------------------------------------------------------
// The test document
// ---------------------------------------------------------------------------------------------

/// A GLB file: 12-byte header, JSON chunk (space padded), BIN chunk (zero padded).
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
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

/// Byte offsets of the accessor data in the BIN chunk (see [`bin`]).
mod at {
    pub const POSITION: usize = 0; // A0 VEC3 ×3
    pub const NORMAL: usize = 36; // A1 VEC3 ×3
    pub const TANGENT: usize = 72; // A2 VEC4 ×3
    pub const TEXCOORD: usize = 120; // A3 VEC2 ×3
    pub const MORPH: usize = 144; // A4 VEC3 ×3
    pub const IBM: usize = 180; // A5 MAT4 ×2
    pub const TIMES: usize = 308; // A6 SCALAR ×2
    pub const TRANSLATION: usize = 316; // A7 VEC3 ×2 (translation and scale)
    pub const ROTATION: usize = 340; // A8 VEC4 ×2
    pub const SHARED_SAMPLER: usize = 372; // A9 VEC3 ×2 (one sampler, two channels)
    pub const INDICES: usize = 396; // A10 u32 ×3
    pub const SPARSE_INDEX: usize = 408; // A11's sparse index (u32)
    pub const SPARSE_VALUE: usize = 412; // A11's sparse value (VEC3)
    pub const INTERLEAVED: usize = 424; // A12 POSITION + A13 NORMAL, stride 24, ×2
    pub const END: usize = 472;
}

const POSITIONS: [f32; 9] = [1.0, 2.0, 3.0, -4.0, 5.0, 6.0, 7.0, -8.0, -9.0];
const NORMALS: [f32; 9] = [0.6, 0.0, 0.8, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0];
const TANGENTS: [f32; 12] = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, -1.0, 0.6, 0.8, 0.0, 1.0];
const TEXCOORDS: [f32; 6] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
const MORPH: [f32; 9] = [0.5, 0.0, -0.5, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
/// Two inverse bind matrices, column-major: the inverse of the hips' translation, and the
/// numbers 1..16 (so every entry's sign can be checked).
fn ibms() -> [f32; 32] {
    let mut m = [0.0; 32];
    let first = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -0.1, -1.0, -0.2, 1.0,
    ];
    m[..16].copy_from_slice(&first);
    for (k, v) in m[16..].iter_mut().enumerate() {
        *v = (k + 1) as f32;
    }
    m
}
const TIMES: [f32; 2] = [0.0, 1.0];
const TRANSLATIONS: [f32; 6] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
const ROTATIONS: [f32; 8] = [0.1, 0.2, 0.3, 0.4, -0.5, 0.6, -0.7, 0.8];
const SHARED: [f32; 6] = [1.0, 2.0, 3.0, -1.0, -2.0, -3.0];
const INTERLEAVED: [f32; 12] = [1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 2.0, 2.0, 2.0, 1.0, 0.0, 0.0];

fn bin() -> Vec<u8> {
    fn put(out: &mut Vec<u8>, values: &[f32]) {
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut out = Vec::new();
    for values in [
        &POSITIONS[..],
        &NORMALS,
        &TANGENTS,
        &TEXCOORDS,
        &MORPH,
        &ibms(),
        &TIMES,
        &TRANSLATIONS,
        &ROTATIONS,
        &SHARED,
    ] {
        put(&mut out, values);
    }
    for i in [0u32, 1, 2, 2] {
        out.extend_from_slice(&i.to_le_bytes()); // indices, then the sparse index 2
    }
    put(&mut out, &[1.0, 2.0, 3.0]); // the sparse value
    put(&mut out, &INTERLEAVED);
    assert_eq!(out.len(), at::END);
    out
}

fn view(offset: usize, length: usize) -> Value {
    json!({"buffer": 0, "byteOffset": offset, "byteLength": length})
}

fn accessor(view: usize, kind: &str, count: usize) -> Value {
    json!({"bufferView": view, "componentType": 5126, "count": count, "type": kind})
}

fn node(name: &str, t: [f64; 3], children: &[usize]) -> Value {
    let mut n = json!({"name": name, "translation": t});
    if !children.is_empty() {
        n["children"] = json!(children);
    }
    n
}

fn human_bones() -> Value {
    let bones = [
        ("hips", 0),
        ("spine", 1),
        ("head", 2),
        ("leftUpperArm", 3),
        ("leftLowerArm", 4),
        ("leftHand", 5),
        ("rightUpperArm", 6),
        ("rightLowerArm", 7),
        ("rightHand", 8),
        ("leftUpperLeg", 9),
        ("leftLowerLeg", 10),
        ("leftFoot", 11),
        ("rightUpperLeg", 12),
        ("rightLowerLeg", 13),
        ("rightFoot", 14),
        ("leftThumbProximal", 18),
        ("leftThumbIntermediate", 19),
        ("leftThumbDistal", 20),
        ("hips", 16),
    ];
    Value::Array(
        bones
            .iter()
            .map(|(b, n)| json!({"bone": b, "node": n, "useDefaultValues": true}))
            .collect(),
    )
}

fn vrm0_json() -> Value {
    json!({
        "exporterVersion": "hand-made", "specVersion": "0.0",
        "meta": {
            "title": "Test", "version": "1.2", "author": "Someone", "contactInformation": "mail",
            "reference": "ref", "texture": 0, "allowedUserName": "Everyone",
            "violentUssageName": "Disallow", "sexualUssageName": "Allow",
            "commercialUssageName": "Allow", "otherPermissionUrl": "https://p",
            "licenseName": "CC_BY", "otherLicenseUrl": "https://l"
        },
        "humanoid": {"humanBones": human_bones(), "armStretch": 0.05},
        "firstPerson": {
            "firstPersonBone": 2,
            "firstPersonBoneOffset": {"x": 0.01, "y": 0.06, "z": 0.02},
            "meshAnnotations": [{"mesh": 0, "firstPersonFlag": "ThirdPersonOnly"}],
            "lookAtTypeName": "BlendShape",
            "lookAtHorizontalInner": {"curve": [0, 0, 0, 1, 1, 1, 1, 0], "xRange": 90, "yRange": 10},
            "lookAtHorizontalOuter": {"curve": [0, 0, 0, 0, 1, 1, 2, 2], "xRange": 80, "yRange": 0.5},
            "lookAtVerticalDown": {"xRange": 45, "yRange": 0.8},
            "lookAtVerticalUp": {"xRange": 30}
        },
        "blendShapeMaster": {"blendShapeGroups": [
            {"name": "Joy", "presetName": "joy", "binds": [{"mesh": 0, "index": 0, "weight": 50}],
             "materialValues": [
                {"materialName": "Face", "propertyName": "_Color", "targetValue": [1, 0, 0, 1]},
                {"materialName": "Face", "propertyName": "_MainTex_ST", "targetValue": [0.5, 0.25, 0.1, 0.2]}
             ]},
            {"name": "A", "presetName": "a", "binds": [{"mesh": 0, "index": 0, "weight": 100}]},
            {"name": "Blink_L", "presetName": "blink_l"},
            {"name": "Smirk", "presetName": "unknown", "isBinary": true},
            {"name": "Sorrow", "presetName": "unknown"},
            {"name": "Joy2", "presetName": "joy"}
        ]},
        "secondaryAnimation": {
            "boneGroups": [{
                "comment": "hair", "stiffiness": 2, "gravityPower": 0.1,
                "gravityDir": {"x": 0.1, "y": -1, "z": 0.2}, "dragForce": 0.4, "center": -1,
                "hitRadius": 0.02, "bones": [21], "colliderGroups": [0]
            }],
            "colliderGroups": [{"node": 2, "colliders": [{"offset": {"x": 0.01, "y": 0.1, "z": 0.03}, "radius": 0.1}]}]
        },
        "materialProperties": [{"name": "Face", "shader": "VRM/MToon"}]
    })
}

fn gltf_json() -> Value {
    let mut nodes = vec![
        node("hips", [0.1, 1.0, 0.2], &[1, 9, 12]),
        node("spine", [0.0, 0.1, 0.05], &[2, 3, 6]),
        node("head", [0.0, 0.5, 0.0], &[21]),
        node("leftUpperArm", [-0.2, 0.4, 0.0], &[4]),
        node("leftLowerArm", [-0.3, 0.0, 0.0], &[5]),
        node("leftHand", [-0.25, 0.0, 0.0], &[18]),
        node("rightUpperArm", [0.2, 0.4, 0.0], &[7]),
        node("rightLowerArm", [0.3, 0.0, 0.0], &[8]),
        node("rightHand", [0.25, 0.0, 0.0], &[]),
        node("leftUpperLeg", [-0.1, -0.05, 0.0], &[10]),
        node("leftLowerLeg", [0.0, -0.45, 0.0], &[11]),
        node("leftFoot", [0.0, -0.45, 0.0], &[]),
        node("rightUpperLeg", [0.1, -0.05, 0.0], &[13]),
        node("rightLowerLeg", [0.0, -0.45, 0.0], &[14]),
        node("rightFoot", [0.0, -0.45, 0.0], &[]),
        json!({"name": "body", "mesh": 0, "skin": 0}),
        json!({"name": "prop", "mesh": 0, "translation": [1, 2, 3],
               "rotation": [0.1, 0.2, 0.3, 0.9273618495495704], "scale": [2, 3, 4]}),
        json!({"name": "matrix", "mesh": 1,
               "matrix": [1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 1, 2, 3, 1]}),
        node("leftThumbProximal", [-0.05, 0.0, -0.03], &[19]),
        node("leftThumbIntermediate", [-0.03, 0.0, -0.02], &[20]),
        node("leftThumbDistal", [-0.02, 0.0, -0.01], &[]),
        node("hair1", [0.0, 0.1, 0.1], &[22, 24]),
        node("hair2", [0.0, 0.0, 0.3], &[23]),
        node("hair3", [0.0, -0.04, 0.03], &[]),
        node("hairBranch", [0.1, 0.0, 0.0], &[25]),
        node("hairBranchTip", [0.0, 0.0, 0.2], &[]),
    ];
    nodes[17]["extras"] = json!({"kept": true});
    let mut accessors = vec![
        accessor(0, "VEC3", 3),
        accessor(1, "VEC3", 3),
        accessor(2, "VEC4", 3),
        accessor(3, "VEC2", 3),
        accessor(4, "VEC3", 3),
        accessor(5, "MAT4", 2),
        accessor(6, "SCALAR", 2),
        accessor(7, "VEC3", 2),
        accessor(8, "VEC4", 2),
        accessor(9, "VEC3", 2),
        json!({"bufferView": 10, "componentType": 5125, "count": 3, "type": "SCALAR"}),
        json!({"componentType": 5126, "count": 3, "type": "VEC3", "sparse": {
            "count": 1,
            "indices": {"bufferView": 11, "componentType": 5125},
            "values": {"bufferView": 12}}}),
        json!({"bufferView": 13, "componentType": 5126, "count": 2, "type": "VEC3",
               "min": [1, 1, 1], "max": [2, 2, 2]}),
        json!({"bufferView": 13, "byteOffset": 12, "componentType": 5126, "count": 2, "type": "VEC3"}),
    ];
    accessors[0]["min"] = json!([-4, -8, -9]);
    accessors[0]["max"] = json!([7, 5, 6]);
    let mut interleaved = view(at::INTERLEAVED, 48);
    interleaved["byteStride"] = json!(24);
    json!({
        "asset": {"version": "2.0", "generator": "hand"},
        "extensionsUsed": ["VRM", "KHR_materials_unlit"],
        "extensions": {"VRM": vrm0_json(), "OTHER_root": {"x": 1}},
        "scene": 0,
        "scenes": [{"nodes": [0, 15, 16, 17]}],
        "nodes": nodes,
        "skins": [{"joints": [0, 1], "inverseBindMatrices": 5}],
        "meshes": [
            {"primitives": [
                {"attributes": {"POSITION": 0, "NORMAL": 1, "TANGENT": 2, "TEXCOORD_0": 3},
                 "indices": 10, "targets": [{"POSITION": 4, "NORMAL": 11}]},
                {"attributes": {"POSITION": 0, "NORMAL": 1}, "targets": [{"POSITION": 4}]}
            ]},
            {"primitives": [{"attributes": {"POSITION": 12, "NORMAL": 13}}]}
        ],
        "materials": [{"name": "Face", "extensions": {"KHR_materials_unlit": {}}}],
        "textures": [{"source": 3}],
        "animations": [{
            "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                {"sampler": 1, "target": {"node": 1, "path": "rotation"}},
                {"sampler": 2, "target": {"node": 2, "path": "scale"}},
                {"sampler": 3, "target": {"node": 3, "path": "translation"}},
                {"sampler": 3, "target": {"node": 4, "path": "scale"}}
            ],
            "samplers": [
                {"input": 6, "output": 7},
                {"input": 6, "output": 8},
                {"input": 6, "output": 7},
                {"input": 6, "output": 9}
            ]
        }],
        "accessors": accessors,
        "bufferViews": [
            view(at::POSITION, 36), view(at::NORMAL, 36), view(at::TANGENT, 48),
            view(at::TEXCOORD, 24), view(at::MORPH, 36), view(at::IBM, 128),
            view(at::TIMES, 8), view(at::TRANSLATION, 24), view(at::ROTATION, 32),
            view(at::SHARED_SAMPLER, 24), view(at::INDICES, 12), view(at::SPARSE_INDEX, 4),
            view(at::SPARSE_VALUE, 12), interleaved
        ],
        "buffers": [{"byteLength": at::END}]
    })
}

fn input() -> Document {
    let text = serde_json::to_string(&gltf_json()).unwrap();
    Document::from_slice(&glb(&text, &bin()), "hand.vrm", None).unwrap()
}

fn migrated() -> (Document, Diagnostics) {
    migrate_vrm0_to_vrm1(&input()).unwrap()
}

fn vrm1(doc: &Document) -> &Value {
    doc.root
        .extensions
        .as_ref()
        .unwrap()
        .get("VRMC_vrm")
        .unwrap()
}

#[track_caller]
fn assert_floats(actual: &[f32], expected: &[f32]) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() <= 1e-6, "{actual:?} vs {expected:?}");
    }
}

#[track_caller]
fn assert_json_close(actual: &Value, expected: &Value) {
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

fn read(doc: &Document, accessor: u32) -> Vec<f32> {
    read_f32(doc, Index::new(accessor)).unwrap()
}

// ---------------------------------------------------------------------------------------------
// The turn
// ---------------------------------------------------------------------------------------------

#[test]
fn masks_are_the_half_turn_about_y() {
    // R = diag(-1, 1, -1, 1): R·M·R flips entry (row, col) iff exactly one of them is 0 or 2.
    let s = [-1.0f32, 1.0, -1.0, 1.0];
    for col in 0..4 {
        for row in 0..4 {
            assert_eq!(
                turn::MAT4[col * 4 + row],
                s[row] * s[col] < 0.0,
                "({row}, {col})"
            );
        }
    }
    assert_eq!(turn::VEC3, [true, false, true]);
    assert_eq!(turn::VEC4, [true, false, true, false]);
}

#[test]
fn vertex_data_is_turned() {
    let (out, _) = migrated();
    assert_floats(
        &read(&out, 0),
        &[-1.0, 2.0, -3.0, 4.0, 5.0, -6.0, -7.0, -8.0, 9.0],
    );
    assert_floats(
        &read(&out, 1),
        &[-0.6, 0.0, -0.8, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0],
    );
    // Tangents: xyz turned, handedness kept.
    assert_floats(
        &read(&out, 2),
        &[
            -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, -1.0, -0.6, 0.8, 0.0, 1.0,
        ],
    );
    // Texture coordinates and indices are untouched.
    assert_floats(&read(&out, 3), &TEXCOORDS);
    // Morph deltas (shared by both primitives: turned once, not twice).
    assert_floats(
        &read(&out, 4),
        &[-0.5, 0.0, 0.5, 0.0, 0.0, 0.0, -1.0, 1.0, -1.0],
    );
    // The sparse morph normal delta: rewritten dense.
    assert_floats(
        &read(&out, 11),
        &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 2.0, -3.0],
    );
    assert!(out.root.accessors[11].sparse.is_none());
    // Interleaved POSITION and NORMAL, flipped in place.
    assert_floats(&read(&out, 12), &[-1.0, 1.0, -1.0, -2.0, 2.0, -2.0]);
    assert_floats(&read(&out, 13), &[0.0, 0.0, -1.0, -1.0, 0.0, 0.0]);
}

#[test]
fn bounds_are_turned() {
    let (out, _) = migrated();
    let a = &out.root.accessors[0];
    let get = |v: &Option<Vec<Float>>| {
        v.as_ref()
            .unwrap()
            .iter()
            .map(Float::get)
            .collect::<Vec<_>>()
    };
    // x ∈ {1, −4, 7} → {−1, 4, −7}; z ∈ {3, 6, −9} → {−3, −6, 9}.
    assert_eq!(get(&a.min), vec![-7.0, -8.0, -6.0]);
    assert_eq!(get(&a.max), vec![4.0, 5.0, 9.0]);
    let b = &out.root.accessors[12];
    assert_eq!(get(&b.min), vec![-2.0, 1.0, -2.0]);
    assert_eq!(get(&b.max), vec![-1.0, 2.0, -1.0]);
}

#[test]
fn inverse_bind_matrices_are_conjugated() {
    let (out, _) = migrated();
    // First: translation (−0.1, −1, −0.2) becomes (0.1, −1, 0.2).
    let mut expected = vec![
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.1, -1.0, 0.2, 1.0,
    ];
    // Second: 1..16 with the signs of R·M·R: per column [+,−,+,−] / [−,+,−,+] alternating.
    expected.extend([
        1.0, -2.0, 3.0, -4.0, -5.0, 6.0, -7.0, 8.0, 9.0, -10.0, 11.0, -12.0, -13.0, 14.0, -15.0,
        16.0,
    ]);
    assert_floats(&read(&out, 5), &expected);
}

#[test]
fn animation_keys_are_turned_and_shared_outputs_duplicated() {
    let (out, diagnostics) = migrated();
    let animation = &out.root.animations[0];
    let output = |channel: usize| {
        let sampler = animation.channels[channel].sampler.as_usize();
        animation.samplers[sampler].output.get()
    };
    // Translation channel: its output (also a scale channel's) was copied and turned.
    assert_ne!(output(0), 7);
    assert_floats(&read(&out, output(0)), &[-1.0, 2.0, -3.0, -4.0, 5.0, -6.0]);
    assert_eq!(output(2), 7);
    assert_floats(&read(&out, 7), &TRANSLATIONS);
    // Rotation keys conjugated: (−x, y, −z, w).
    assert_floats(
        &read(&out, output(1)),
        &[-0.1, 0.2, -0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
    );
    // One sampler served a translation and a scale channel: split, each with its data.
    assert_ne!(animation.channels[3].sampler, animation.channels[4].sampler);
    assert_eq!(animation.samplers.len(), 5);
    assert_floats(&read(&out, output(3)), &[-1.0, 2.0, -3.0, 1.0, -2.0, 3.0]);
    assert_eq!(output(4), 9);
    assert_floats(&read(&out, 9), &SHARED);
    assert!(diagnostics.contains("MIGRATE_ACCESSOR_DUPLICATED"));
    assert!(diagnostics.contains("MIGRATE_SAMPLER_SPLIT"));
}

#[test]
fn buffer_changes_only_in_the_turned_sign_bits() {
    let (out, _) = migrated();
    let mut expected = bin();
    let negate = |bytes: &mut Vec<u8>, offset: usize| {
        let v = f32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap());
        bytes[offset..offset + 4].copy_from_slice(&(-v).to_le_bytes());
    };
    // (start, element size in floats, components negated, elements)
    let flipped: [(usize, usize, &[usize], usize); 8] = [
        (at::POSITION, 3, &[0, 2], 3),
        (at::NORMAL, 3, &[0, 2], 3),
        (at::TANGENT, 4, &[0, 2], 3),
        (at::MORPH, 3, &[0, 2], 3),
        (at::IBM, 16, &[1, 3, 4, 6, 9, 11, 12, 14], 2),
        (at::ROTATION, 4, &[0, 2], 2),
        (at::INTERLEAVED, 6, &[0, 2], 2),
        (at::INTERLEAVED + 12, 6, &[0, 2], 2),
    ];
    for (start, width, components, count) in flipped {
        for e in 0..count {
            for &c in components {
                negate(&mut expected, start + 4 * (e * width + c));
            }
        }
    }
    let actual = out.buffer(Index::new(0)).unwrap();
    assert_eq!(actual, &expected[..]);
}

#[test]
fn nodes_are_conjugated_and_world_positions_turned() {
    let (out, _) = migrated();
    let t = |n: usize| floats(out.root.nodes[n].translation.as_ref().unwrap());
    assert_eq!(t(0), [-0.1, 1.0, -0.2]);
    let prop = &out.root.nodes[16];
    assert_eq!(
        floats(prop.rotation.as_ref().unwrap()),
        [-0.1, 0.2, -0.3, 0.9273618495495704]
    );
    assert_eq!(
        floats(prop.translation.as_ref().unwrap()),
        [-1.0, 2.0, -3.0]
    );
    assert_eq!(floats(prop.scale.as_ref().unwrap()), [2.0, 3.0, 4.0]);
    // A 90° turn about X conjugated by R_y(180°) is a −90° turn about X.
    assert_eq!(
        floats(out.root.nodes[17].matrix.as_ref().unwrap()),
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 2.0, -3.0, 1.0]
    );
    assert_eq!(out.root.nodes[17].other["extras"], json!({"kept": true}));
    // leftHand, all rotations identity: (0.1, 1, 0.2) + (0, 0.1, 0.05) + (−0.2, 0.4, 0)
    // + (−0.3, 0, 0) + (−0.25, 0, 0) = (−0.65, 1.5, 0.25), turned (0.65, 1.5, −0.25).
    let world: [f64; 3] = [0, 1, 3, 4, 5]
        .iter()
        .map(|&n| t(n))
        .fold([0.0; 3], |s, v| [s[0] + v[0], s[1] + v[1], s[2] + v[2]]);
    for (a, e) in world.iter().zip([0.65, 1.5, -0.25]) {
        assert!((a - e).abs() < 1e-12, "{world:?}");
    }
}

#[test]
fn input_is_unchanged() {
    let doc = input();
    let before = doc.to_glb_bytes().unwrap();
    let _ = migrate_vrm0_to_vrm1(&doc).unwrap();
    assert_eq!(doc.to_glb_bytes().unwrap(), before);
    assert_eq!(doc.buffer(Index::new(0)).unwrap(), &bin()[..]);
}

// ---------------------------------------------------------------------------------------------
// The extension JSON
// ---------------------------------------------------------------------------------------------

#[test]
fn extensions_are_swapped_in_place() {
    let (out, _) = migrated();
    assert_eq!(
        out.root.extensions_used,
        [
            "VRMC_vrm",
            "VRMC_springBone",
            "KHR_materials_unlit",
            "VRMC_materials_mtoon"
        ]
    );
    let keys: Vec<&String> = out.root.extensions.as_ref().unwrap().keys().collect();
    assert_eq!(keys, ["VRMC_vrm", "VRMC_springBone", "OTHER_root"]);
    assert_eq!(vrm1(&out)["specVersion"], "1.0");
    // The material keeps its name and unlit fallback; its MToon is checked below.
    let material = &out.root.other["materials"][0];
    assert_eq!(material["name"], "Face");
    let extensions: Vec<&String> = material["extensions"].as_object().unwrap().keys().collect();
    assert_eq!(extensions, ["KHR_materials_unlit", "VRMC_materials_mtoon"]);
}

#[test]
fn humanoid_thumbs_renamed_and_duplicates_dropped() {
    let (out, diagnostics) = migrated();
    let bones = &vrm1(&out)["humanoid"]["humanBones"];
    assert_eq!(bones["hips"], json!({"node": 0}));
    assert_eq!(bones["leftThumbMetacarpal"], json!({"node": 18}));
    assert_eq!(bones["leftThumbProximal"], json!({"node": 19}));
    assert_eq!(bones["leftThumbDistal"], json!({"node": 20}));
    assert_eq!(bones.as_object().unwrap().len(), 18);
    assert!(bones.get("leftThumbIntermediate").is_none());
    let duplicate = diagnostics
        .iter()
        .find(|d| d.code == "MIGRATE_DUPLICATE_BONE")
        .unwrap();
    assert_eq!(duplicate.location, "/extensions/VRM/humanoid/humanBones/18");
    assert!(diagnostics.contains("MIGRATE_HUMANOID_SETTINGS_DROPPED"));
}

#[test]
fn meta_follows_univrm() {
    let (out, diagnostics) = migrated();
    let expected = json!({
        "name": "Test", "version": "1.2", "authors": ["Someone"], "contactInformation": "mail",
        "references": ["ref"], "thumbnailImage": 3, "licenseUrl": "https://vrm.dev/licenses/1.0/",
        "avatarPermission": "everyone", "allowExcessivelyViolentUsage": false,
        "allowExcessivelySexualUsage": true,
        "allowPoliticalOrReligiousUsage": false,
        // CC BY 4.0: "for any purpose, even commercially", "you must give appropriate credit".
        "commercialUsage": "corporation", "creditNotation": "required",
        "allowRedistribution": true, "modification": "allowModificationRedistribution",
        "otherLicenseUrl": "'https://creativecommons.org/licenses/by/4.0/', 'https://l', 'https://p'"
    });
    assert_eq!(vrm1(&out)["meta"], expected);
    assert!(diagnostics.contains("MIGRATE_META_LICENSE"));
    assert!(!diagnostics.contains("MIGRATE_META_CONFLICT"));
}

#[test]
fn look_at_and_first_person() {
    let (out, diagnostics) = migrated();
    let expected = json!({
        "offsetFromHeadBone": [-0.01, 0.06, 0.02],
        "type": "expression",
        "rangeMapHorizontalInner": {"inputMaxValue": 90, "outputScale": 10},
        "rangeMapHorizontalOuter": {"inputMaxValue": 80, "outputScale": 0.5},
        "rangeMapVerticalDown": {"inputMaxValue": 45, "outputScale": 0.8},
        "rangeMapVerticalUp": {"inputMaxValue": 30, "outputScale": 1}
    });
    assert_json_close(&vrm1(&out)["lookAt"], &expected);
    // Mesh 0 is held by nodes 15 and 16: both annotated.
    assert_eq!(
        vrm1(&out)["firstPerson"],
        json!({"meshAnnotations": [
            {"node": 15, "type": "thirdPersonOnly"}, {"node": 16, "type": "thirdPersonOnly"}
        ]})
    );
    let curve = diagnostics
        .iter()
        .find(|d| d.code == "MIGRATE_LOOKAT_CURVE_DROPPED")
        .unwrap();
    assert_eq!(
        curve.location,
        "/extensions/VRM/firstPerson/lookAtHorizontalOuter/curve"
    );
    assert_eq!(
        diagnostics
            .iter()
            .filter(|d| d.code == "MIGRATE_LOOKAT_CURVE_DROPPED")
            .count(),
        1
    );
    assert!(diagnostics.contains("MIGRATE_LOOKAT_RANGE_DEFAULT"));
    assert!(!diagnostics.contains("MIGRATE_FIRST_PERSON_BONE"));
}

#[test]
fn identity_curves() {
    assert!(look_at::is_identity_curve(&json!([0, 0, 0, 1, 1, 1, 1, 0])));
    assert!(look_at::is_identity_curve(&json!([])));
    assert!(look_at::is_identity_curve(&json!([
        0, 0, 5, 1, 0.5, 0.5, 1, 1, 1, 1, 1, -3
    ])));
    assert!(!look_at::is_identity_curve(&json!([
        0, 0, 0, 0, 1, 1, 2, 2
    ])));
    assert!(!look_at::is_identity_curve(&json!([
        0, 0.05, 0, 0, 1, 1, 1, 1
    ])));
    assert!(!look_at::is_identity_curve(&json!([0, 0, 0])));
}

#[test]
fn expressions_follow_univrm() {
    let (out, diagnostics) = migrated();
    let expressions = &vrm1(&out)["expressions"];
    let happy = json!({
        "morphTargetBinds": [
            {"node": 15, "index": 0, "weight": 0.5}, {"node": 16, "index": 0, "weight": 0.5}
        ],
        "materialColorBinds": [{"material": 0, "type": "color", "targetValue": [1, 0, 0, 1]}],
        // offset.y = 1 − 0.2 − 0.25
        "textureTransformBinds": [{"material": 0, "scale": [0.5, 0.25], "offset": [0.1, 0.55]}],
        "isBinary": false
    });
    assert_json_close(&expressions["preset"]["happy"], &happy);
    assert_json_close(
        &expressions["preset"]["aa"]["morphTargetBinds"],
        &json!([{"node": 15, "index": 0, "weight": 1}, {"node": 16, "index": 0, "weight": 1}]),
    );
    assert_eq!(
        expressions["preset"]["blinkLeft"],
        json!({"isBinary": false})
    );
    assert_eq!(expressions["preset"]["sad"], json!({"isBinary": false}));
    assert_eq!(expressions["custom"], json!({"Smirk": {"isBinary": true}}));
    let presets: Vec<&String> = expressions["preset"].as_object().unwrap().keys().collect();
    assert_eq!(presets, ["happy", "aa", "blinkLeft", "sad"]);
    assert!(diagnostics.contains("MIGRATE_EXPRESSION_DUPLICATE"));
}

#[test]
fn spring_bones_follow_univrm() {
    let (out, diagnostics) = migrated();
    let springs = out
        .root
        .extensions
        .as_ref()
        .unwrap()
        .get("VRMC_springBone")
        .unwrap();
    // Tails are new nodes 26 (after hair3) and 27 (after hairBranchTip).
    assert_eq!(out.root.nodes.len(), 28);
    assert_eq!(out.root.nodes[26].name.as_deref(), Some("hair3_end"));
    assert_eq!(out.root.nodes[23].children, [Index::new(26)]);
    assert_eq!(
        out.root.nodes[27].name.as_deref(),
        Some("hairBranchTip_end")
    );
    // hair3 turned: (0, −0.04, −0.03), length 0.05: 7 cm along it is (0, −0.056, −0.042).
    let tail = floats(out.root.nodes[26].translation.as_ref().unwrap());
    for (a, e) in tail.iter().zip([0.0, -0.056, -0.042]) {
        assert!((a - e).abs() < 1e-12, "{tail:?}");
    }
    let tip = floats(out.root.nodes[27].translation.as_ref().unwrap());
    for (a, e) in tip.iter().zip([0.0, 0.0, -0.07]) {
        assert!((a - e).abs() < 1e-12, "{tip:?}");
    }
    let settings = json!({"hitRadius": 0.02, "stiffness": 2, "gravityPower": 0.1,
                          "gravityDir": [-0.1, -1, 0.2], "dragForce": 0.4});
    let joint = |node: usize| {
        let mut j = json!({"node": node});
        j.as_object_mut()
            .unwrap()
            .extend(settings.as_object().unwrap().clone());
        j
    };
    let expected = json!({
        "specVersion": "1.0",
        "colliders": [{"node": 2, "shape": {"sphere": {"offset": [-0.01, 0.1, 0.03], "radius": 0.1}}}],
        "colliderGroups": [{"colliders": [0]}],
        "springs": [
            {"name": "hair", "joints": [joint(21), joint(22), joint(23), {"node": 26}], "colliderGroups": [0]},
            {"name": "hair", "joints": [joint(25), {"node": 27}], "colliderGroups": [0]}
        ]
    });
    assert_json_close(springs, &expected);
    // hairBranch (node 24) swayed in 0.x but is no joint under UniVRM's chain rule.
    let branch = diagnostics
        .iter()
        .find(|d| d.code == "MIGRATE_SPRING_BRANCH")
        .unwrap();
    assert!(branch.message.contains("24"), "{}", branch.message);
    assert!(diagnostics.contains("MIGRATE_SPRING_GRAVITY"));
}

#[test]
fn mtoon_is_migrated_with_the_defaults_of_0x() {
    let (out, diagnostics) = migrated();
    let migrated = diagnostics
        .iter()
        .find(|d| d.code == "MIGRATE_MTOON")
        .unwrap();
    assert!(
        migrated.message.contains("\"Face\""),
        "{}",
        migrated.message
    );
    assert!(!diagnostics.contains("MIGRATE_MATERIALS_DROPPED"));
    let material = &out.root.other["materials"][0];
    let mtoon = &material["extensions"]["VRMC_materials_mtoon"];
    assert_eq!(mtoon["specVersion"], "1.0");
    // 0.x defaults (_ShadeToony 0.9, _ShadeShift 0): UniVRM's own test gives 0.95 and -0.05.
    assert!((mtoon["shadingToonyFactor"].as_f64().unwrap() - 0.95).abs() < 1e-9);
    assert!((mtoon["shadingShiftFactor"].as_f64().unwrap() + 0.05).abs() < 1e-9);
    assert_eq!(mtoon["outlineWidthMode"], "none");
    assert_eq!(mtoon["rimLightingMixFactor"], 1.0);
    assert!(diagnostics.contains("MIGRATE_MTOON_RIM_MIX"));
    assert!(material["extensions"]["KHR_materials_unlit"].is_object());
    assert_eq!(material["alphaMode"], "OPAQUE");
}

#[test]
fn output_writes_and_reads_back() {
    let (out, _) = migrated();
    let bytes = out.to_glb_bytes().unwrap();
    let again = Document::from_slice(&bytes, "again.vrm", None).unwrap();
    assert!(again
        .root
        .extensions
        .as_ref()
        .unwrap()
        .contains_key("VRMC_vrm"));
    assert_floats(
        &read(&again, 0),
        &[-1.0, 2.0, -3.0, 4.0, 5.0, -6.0, -7.0, -8.0, 9.0],
    );
}

// ---------------------------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------------------------

/// The hand-made document's JSON, for the licence tests.
pub(super) fn gltf_json_for_meta() -> Value {
    gltf_json()
}

/// Migrates the hand-made document with this JSON, for the licence tests.
pub(super) fn migrate_json_for_meta(json: &Value) -> Result<(Document, Diagnostics), Error> {
    migrate_json(json)
}

fn migrate_json(json: &Value) -> Result<(Document, Diagnostics), Error> {
    let text = serde_json::to_string(json).unwrap();
    let doc = Document::from_slice(&glb(&text, &bin()), "hand.vrm", None).unwrap();
    migrate_vrm0_to_vrm1(&doc)
}

#[test]
fn refuses_what_is_not_vrm0() {
    let mut json = gltf_json();
    json["extensions"] = json!({"VRMC_vrm": {}});
    let error = migrate_json(&json).unwrap_err().to_string();
    assert!(error.contains("already VRM 1.0"), "{error}");
    json["extensions"] = json!({});
    let error = migrate_json(&json).unwrap_err().to_string();
    assert!(error.contains("no VRM extension"), "{error}");
}

#[test]
fn refuses_a_broken_humanoid() {
    let mut json = gltf_json();
    json["extensions"]["VRM"]["humanoid"]["humanBones"][2]["node"] = json!(99);
    let error = migrate_json(&json).unwrap_err().to_string();
    assert!(
        error.contains("/extensions/VRM/humanoid/humanBones/2/node"),
        "{error}"
    );
    let mut json = gltf_json();
    let bones = json["extensions"]["VRM"]["humanoid"]["humanBones"]
        .as_array_mut()
        .unwrap();
    bones.retain(|b| b["bone"] != "leftFoot" && b["bone"] != "head");
    let error = migrate_json(&json).unwrap_err().to_string();
    assert!(error.contains("head, leftFoot"), "{error}");
}

#[test]
fn refuses_a_mistyped_accessor() {
    let mut json = gltf_json();
    json["meshes"][1]["primitives"][0]["attributes"]["POSITION"] = json!(2);
    let error = migrate_json(&json).unwrap_err().to_string();
    assert!(
        error.contains("/meshes/1/primitives/0/attributes/POSITION") && error.contains("VEC3"),
        "{error}"
    );
}

#[test]
fn refuses_compressed_geometry_by_every_name() {
    // Draco and both meshopt names (the Khronos one was missing from the migration's own list:
    // a meshopt-compressed model would have been turned with its real vertices left as they
    // were).
    for name in [
        "KHR_meshopt_compression",
        "EXT_meshopt_compression",
        "KHR_draco_mesh_compression",
    ] {
        let mut json = gltf_json();
        json["extensionsUsed"]
            .as_array_mut()
            .unwrap()
            .push(json!(name));
        let error = migrate_json(&json).unwrap_err().to_string();
        assert!(
            error.contains(name) && error.contains("decompress") && error.contains("hand.vrm"),
            "{name}: {error}"
        );
    }
}
