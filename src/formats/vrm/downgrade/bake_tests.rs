//! Unit tests of the rest bake on the hand-built document of `tests.rs`. Every expected value
//! is worked out by hand: the bake (`F` = the node's old rest world rotation and scale), then
//! the turn `(x, y, z) → (−x, y, −z)` and, for the 0.x extension JSON, Unity space
//! `(x, y, z) → (−x, y, z)`.

use glam::DQuat;
use serde_json::json;

use super::tests::{assert_json_close, bin, downgrade_json, find, glb, gltf_json, vrm0};
use super::*;
use crate::formats::gltf::accessor::read_f32;
use crate::formats::gltf::json::{floats, Index};

/// √½.
const H: f64 = std::f64::consts::FRAC_1_SQRT_2;

#[track_caller]
fn close(actual: &[f64], expected: &[f64]) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() < 1e-6, "{actual:?} vs {expected:?}");
    }
}

fn translation(out: &Document, n: usize) -> Vec<f64> {
    floats(out.root.nodes[n].translation.as_ref().unwrap()).to_vec()
}

/// A quaternion up to its sign.
#[track_caller]
fn same_rotation(actual: &[f64], expected: [f64; 4]) {
    let q = DQuat::from_slice(actual);
    let e = DQuat::from_array(expected);
    assert!(q.dot(e).abs() > 1.0 - 1e-6, "{actual:?} vs {expected:?}");
}

#[test]
fn a_rest_rotation_is_baked_and_the_bones_stay_put() {
    let mut json = gltf_json();
    // leftUpperLeg turned 180° about X: its leg below now hangs up, from (0.1, 0.95, 0) to
    // (0.1, 1.4, 0) and (0.1, 1.85, 0).
    json["nodes"][11]["rotation"] = json!([1, 0, 0, 0]);
    let (out, diagnostics) = downgrade_json(&json).unwrap();
    for n in [11, 12, 13] {
        let node = &out.root.nodes[n];
        assert!(node.rotation.is_none() && node.scale.is_none(), "node {n}");
    }
    // The leg's translations in the new, unrotated frames, turned to face −Z.
    close(&translation(&out, 11), &[-0.1, -0.05, 0.0]);
    close(&translation(&out, 12), &[0.0, 0.45, 0.0]);
    close(&translation(&out, 13), &[0.0, 0.45, 0.0]);
    let baked = find(&diagnostics, "DOWNGRADE_REST_BAKED");
    assert!(
        baked.message.contains(
            "the rest of 1 node(s) was baked away as UniVRM's VRM 0.x export bakes it (leftUpperLeg (node 11 \"leftUpperLeg\"): rotation 180.0° about (1, 0, 0))"
        ),
        "{}",
        baked.message
    );
    // No skin, no mesh, no animation on the leg: nothing else was rewritten.
    for code in [
        "DOWNGRADE_REST_SKIN_REBOUND",
        "DOWNGRADE_REST_MESH_BAKED",
        "DOWNGRADE_REST_ANIMATION_BAKED",
    ] {
        assert!(!diagnostics.contains(code), "{code}");
    }
}

#[test]
fn a_rotated_ancestor_and_a_scaled_bone_are_baked() {
    let mut json = gltf_json();
    // Armature above the hips, turned 90° about +Y: (x, y, z) → (z, y, −x).
    json["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "Armature", "rotation": [0, H, 0, H], "children": [0]}));
    json["scenes"][0]["nodes"][0] = json!(27);
    json["nodes"][7]["scale"] = json!([2, 2, 2]);
    let (out, diagnostics) = downgrade_json(&json).unwrap();
    // leftUpperArm (0.2, 0.1, 0) → (0, 0.1, −0.2), turned (0, 0.1, 0.2).
    close(&translation(&out, 5), &[0.0, 0.1, 0.2]);
    // leftThumbMetacarpal under the scaled hand: 2·(0.03, 0, −0.02), turned.
    close(&translation(&out, 18), &[-0.06, 0.0, 0.04]);
    // and its child, not scaled itself but under the hand: 2·(0.02, 0, −0.03), turned.
    close(&translation(&out, 20), &[-0.04, 0.0, 0.06]);
    for n in [0, 5, 7, 18, 27] {
        let node = &out.root.nodes[n];
        assert!(node.rotation.is_none() && node.scale.is_none(), "node {n}");
    }
    let baked = find(&diagnostics, "DOWNGRADE_REST_BAKED");
    for part in [
        "the rest of 2 node(s)",
        "leftHand (node 7 \"leftHand\"): scale (2, 2, 2)",
        "ancestor (node 27 \"Armature\"): rotation 90.0° about (0, 1, 0)",
    ] {
        assert!(
            baked.message.contains(part),
            "{part:?} not in {}",
            baked.message
        );
    }
}

#[test]
fn a_rotated_scaled_head_moves_its_look_at_colliders_and_children() {
    let mut json = gltf_json();
    // head: 90° about +Y, scale 2: F·v = 2·(z, y, −x).
    json["nodes"][4]["rotation"] = json!([0, H, 0, H]);
    json["nodes"][4]["scale"] = json!([2, 2, 2]);
    let (out, diagnostics) = downgrade_json(&json).unwrap();
    let vrm = vrm0(&out);
    // offsetFromHeadBone (0.01, 0.06, 0.02) → (0.04, 0.12, −0.02); 0.x Unity space.
    assert_json_close(
        &vrm["firstPerson"]["firstPersonBoneOffset"],
        &json!({"x": -0.04, "y": 0.12, "z": -0.02}),
    );
    // Sphere (0.01, 0.1, 0.03) radius 0.1 → (0.06, 0.2, −0.02) radius 0.2; the offsetless
    // sphere of radius 0.05 → radius 0.1.
    assert_json_close(
        &vrm["secondaryAnimation"]["colliderGroups"][0]["colliders"],
        &json!([
            {"offset": {"x": -0.06, "y": 0.2, "z": -0.02}, "radius": 0.2},
            {"offset": {"x": 0, "y": 0, "z": 0}, "radius": 0.1}
        ]),
    );
    find(&diagnostics, "DOWNGRADE_REST_RADIUS_SCALED");
    // hair1 (not a bone) keeps its world transform: translation 2·(−0.1, 0.1, 0), rotation
    // 90° about Y, scale 2; turned, the translation is (0.2, 0.2, 0) and the rotation about Y
    // stays.
    close(&translation(&out, 17), &[0.2, 0.2, 0.0]);
    same_rotation(
        &floats(out.root.nodes[17].rotation.as_ref().unwrap()),
        [0.0, H, 0.0, H],
    );
    close(
        &floats(out.root.nodes[17].scale.as_ref().unwrap()),
        &[2.0, 2.0, 2.0],
    );
    assert!(out.root.nodes[4].rotation.is_none() && out.root.nodes[4].scale.is_none());
}

#[test]
fn a_mesh_on_a_baked_bone_is_transformed_in_a_copy() {
    let mut json = gltf_json();
    // leftUpperLeg turned 180° about X holds mesh 1, which the face node holds too.
    json["nodes"][11]["rotation"] = json!([1, 0, 0, 0]);
    json["nodes"][11]["mesh"] = json!(1);
    let (out, diagnostics) = downgrade_json(&json).unwrap();
    let copy = out.root.nodes[11].mesh.unwrap();
    assert_eq!(copy.get(), 2, "a copy of mesh 1");
    assert_eq!(out.root.nodes[25].mesh.unwrap().get(), 1);
    let primitive = &out.root.meshes[2].primitives[0];
    // (x, y, z) → R_x(180°): (x, −y, −z) → turned: (−x, −y, z).
    let positions = read_f32(&out, primitive.attributes.get("POSITION").unwrap()).unwrap();
    assert_eq!(
        positions,
        [-1.0, -2.0, 3.0, 4.0, -5.0, 6.0, -7.0, 8.0, -9.0]
    );
    let morph = read_f32(&out, primitive.targets[0].get("POSITION").unwrap()).unwrap();
    assert_eq!(morph, [-0.5, 0.0, -0.5, 0.0, 0.0, 0.0, -1.0, -1.0, 1.0]);
    // The face's mesh is only turned.
    let face = read_f32(&out, Index::new(0)).unwrap();
    assert_eq!(face, [-1.0, 2.0, -3.0, 4.0, 5.0, -6.0, -7.0, -8.0, 9.0]);
    let moved = find(&diagnostics, "DOWNGRADE_REST_MESH_BAKED");
    assert!(
        moved
            .message
            .contains("mesh 2 of node 11 \"leftUpperLeg\" (a copy of mesh 1"),
        "{}",
        moved.message
    );
}

#[test]
fn inverse_bind_matrices_follow_the_baked_joints() {
    let mut json = gltf_json();
    json["nodes"][11]["rotation"] = json!([1, 0, 0, 0]);
    // A skin without inverse bind matrices (identities) on the leg.
    json["skins"] = json!([{"joints": [11, 12]}]);
    json["nodes"][23]["skin"] = json!(0);
    let (out, diagnostics) = downgrade_json(&json).unwrap();
    let ibm = read_f32(&out, out.root.skins[0].inverse_bind_matrices.unwrap()).unwrap();
    // IBM' = F·I: R_x(180°) for both joints (12 inherits it), = diag(1, −1, −1, 1), which
    // the half turn about Y leaves as it is.
    let diag = [
        1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    assert_eq!(ibm.len(), 32);
    for m in ibm.chunks(16) {
        let m: Vec<f64> = m.iter().map(|&v| f64::from(v)).collect();
        close(&m, &diag);
    }
    find(&diagnostics, "DOWNGRADE_REST_SKIN_REBOUND");
}

/// The test document with an animation on the leg: a rotation channel on leftUpperLeg and a
/// translation channel on leftLowerLeg, keys at 0 s and 1 s.
fn animated() -> Document {
    let mut json = gltf_json();
    json["nodes"][11]["rotation"] = json!([1, 0, 0, 0]);
    let mut data = bin();
    let base = data.len();
    // q1 = R_x(180°)·R_z(90°) = (√½, −√½, 0, 0).
    #[allow(clippy::cast_possible_truncation)]
    let h = H as f32;
    let values: [f32; 2 + 8 + 6] = [
        0.0, 1.0, // times
        1.0, 0.0, 0.0, 0.0, h, -h, 0.0, 0.0, // rotations
        0.0, -0.45, 0.0, 0.0, -0.5, 0.0, // translations
    ];
    for v in values {
        data.extend_from_slice(&v.to_le_bytes());
    }
    let view = |offset: usize, length: usize| json!({"buffer": 0, "byteOffset": offset, "byteLength": length});
    let views = json["bufferViews"].as_array_mut().unwrap();
    views.push(view(base, 8));
    views.push(view(base + 8, 32));
    views.push(view(base + 40, 24));
    json["buffers"][0]["byteLength"] = json!(data.len());
    let accessors = json["accessors"].as_array_mut().unwrap();
    accessors.push(json!({"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]}));
    accessors.push(json!({"bufferView": 4, "componentType": 5126, "count": 2, "type": "VEC4"}));
    accessors.push(json!({"bufferView": 5, "componentType": 5126, "count": 2, "type": "VEC3"}));
    json["animations"] = json!([{
        "channels": [
            {"sampler": 0, "target": {"node": 11, "path": "rotation"}},
            {"sampler": 1, "target": {"node": 12, "path": "translation"}}
        ],
        "samplers": [{"input": 2, "output": 3}, {"input": 2, "output": 4}]
    }]);
    let text = serde_json::to_string(&json).unwrap();
    Document::from_slice(&glb(&text, &data), "hand.vrm", None).unwrap()
}

#[test]
fn animation_keys_follow_the_baked_frames() {
    let (out, diagnostics) = downgrade_vrm1_to_vrm0(&animated()).unwrap();
    let samplers = &out.root.animations[0].samplers;
    let rotations: Vec<f64> = read_f32(&out, samplers[0].output)
        .unwrap()
        .into_iter()
        .map(f64::from)
        .collect();
    // q' = q·R_x(180°)⁻¹: the rest key becomes the identity, q1 becomes R_z(−90°)
    // (0, 0, −√½, √½); turned about Y: (0, 0, √½, √½).
    same_rotation(&rotations[..4], [0.0, 0.0, 0.0, 1.0]);
    same_rotation(&rotations[4..], [0.0, 0.0, H, H]);
    let translations: Vec<f64> = read_f32(&out, samplers[1].output)
        .unwrap()
        .into_iter()
        .map(f64::from)
        .collect();
    // t' = R_x(180°)·t: (0, 0.45, 0) and (0, 0.5, 0); the turn leaves them.
    close(&translations, &[0.0, 0.45, 0.0, 0.0, 0.5, 0.0]);
    find(&diagnostics, "DOWNGRADE_REST_ANIMATION_BAKED");
    // The input's accessors are untouched.
    assert_eq!(out.root.accessors.len(), 5 + 2);
}

#[test]
fn a_mirrored_rest_is_refused() {
    let mut json = gltf_json();
    json["nodes"][7]["scale"] = json!([-1, 1, 1]);
    let error = downgrade_json(&json).unwrap_err();
    assert!(matches!(error, Error::Unsupported { .. }), "{error:?}");
    let message = error.to_string();
    for part in [
        "hand.vrm: node 7 \"leftHand\" has a mirrored (negative scale) rest world transform",
        "--to vrm1",
    ] {
        assert!(message.contains(part), "{part:?} not in {message}");
    }
}

#[test]
fn a_child_that_would_need_shear_is_refused() {
    let mut json = gltf_json();
    // head stretched along X, hair1 below it turned 45° about Z: hair1's world transform is
    // sheared once the head's scale is baked away.
    json["nodes"][4]["scale"] = json!([2, 1, 1]);
    json["nodes"][17]["rotation"] = json!([0, 0, 0.382_683_432_365_089_8, 0.923_879_532_511_286_7]);
    let message = downgrade_json(&json).unwrap_err().to_string();
    assert!(
        message
            .contains("node 17 \"hair1\" sits under a baked bone whose rest scale is not uniform"),
        "{message}"
    );
    // The same stretch with hair1 not turned is a plain scale: baked.
    let mut json = gltf_json();
    json["nodes"][4]["scale"] = json!([2, 1, 1]);
    let (out, _) = downgrade_json(&json).unwrap();
    close(
        &floats(out.root.nodes[17].scale.as_ref().unwrap()),
        &[2.0, 1.0, 1.0],
    );
}
