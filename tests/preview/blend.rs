//! A two-bone bar whose middle blends between the bones (up to three influences a vertex,
//! weights in two sets: JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1), bent by a clip: the GPU's
//! skinning against the CPU reference at ten times, with no ../shared needed.

use std::path::Path;

use serde_json::json;

use super::{check_silhouettes, floats, gpu, temp, write_glb};

/// Rings of four vertices up a 2 m bar; the child joint sits at 1 m. Joint 0 (root) and 1
/// (child) share the middle rings; joint 2 (a tip below the child) takes a little of the top,
/// written in the second influence set.
fn bent_bar(path: &Path) {
    let rings = 9;
    let mut positions = Vec::new();
    let mut joints0: Vec<u8> = Vec::new();
    let mut weights0 = Vec::new();
    let mut joints1: Vec<u8> = Vec::new();
    let mut weights1 = Vec::new();
    for r in 0..rings {
        let y = 2.0 * r as f32 / (rings - 1) as f32;
        let child = ((y - 0.5) / 1.0).clamp(0.0, 1.0);
        let tip = ((y - 1.5) / 0.5).clamp(0.0, 1.0) * 0.3;
        for (x, z) in [(-0.1, -0.1), (0.1, -0.1), (0.1, 0.1), (-0.1, 0.1)] {
            positions.extend([x, y, z]);
            joints0.extend([0, 1, 0, 0]);
            weights0.extend([(1.0 - child) * (1.0 - tip), child * (1.0 - tip), 0.0, 0.0]);
            joints1.extend([2, 0, 0, 0]);
            weights1.extend([tip, 0.0, 0.0, 0.0]);
        }
    }
    let mut indices: Vec<u16> = Vec::new();
    for r in 0..rings - 1 {
        for side in 0..4u16 {
            let a = (r * 4) as u16 + side;
            let b = (r * 4) as u16 + (side + 1) % 4;
            indices.extend([a, b, b + 4, a, b + 4, a + 4]);
        }
    }
    let top = ((rings - 1) * 4) as u16;
    indices.extend([
        0,
        2,
        1,
        0,
        3,
        2,
        top,
        top + 1,
        top + 2,
        top,
        top + 2,
        top + 3,
    ]);
    let count = rings * 4;
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut push = |bytes: Vec<u8>| {
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
        bin.extend(bytes);
    };
    push(floats(&positions));
    push(joints0);
    push(floats(&weights0));
    push(joints1);
    push(floats(&weights1));
    push(indices.iter().flat_map(|i| i.to_le_bytes()).collect());
    let ibm: Vec<f32> = [0.0f32, -1.0, -1.8]
        .iter()
        .flat_map(|&dy| {
            let mut m = glam::Mat4::IDENTITY.to_cols_array();
            m[13] = dy;
            m
        })
        .collect();
    push(floats(&ibm));
    push(floats(&[0.0, 1.0]));
    let half = std::f32::consts::FRAC_PI_4;
    push(floats(&[
        0.0,
        0.0,
        0.0,
        1.0,
        0.0,
        (half / 2.0).sin(),
        0.0,
        (half / 2.0).cos(),
    ]));
    push(floats(&[
        0.0,
        0.0,
        0.0,
        1.0,
        0.0,
        0.0,
        half.sin(),
        half.cos(),
    ]));
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 3]}],
        "nodes": [
            {"name": "root", "children": [1]},
            {"name": "child", "translation": [0.0, 1.0, 0.0], "children": [2]},
            {"name": "tip", "translation": [0.0, 0.8, 0.0]},
            {"name": "bar", "mesh": 0, "skin": 0}
        ],
        "skins": [{"joints": [0, 1, 2], "inverseBindMatrices": 6}],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "JOINTS_1": 3, "WEIGHTS_1": 4},
            "indices": 5
        }]}],
        "animations": [{"name": "bend", "channels": [
            {"sampler": 0, "target": {"node": 0, "path": "rotation"}},
            {"sampler": 1, "target": {"node": 1, "path": "rotation"}}
        ], "samplers": [
            {"input": 7, "output": 8},
            {"input": 7, "output": 9}
        ]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": count, "type": "VEC3",
             "min": [-0.1, 0.0, -0.1], "max": [0.1, 2.0, 0.1]},
            {"bufferView": 1, "componentType": 5121, "count": count, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": count, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5121, "count": count, "type": "VEC4"},
            {"bufferView": 4, "componentType": 5126, "count": count, "type": "VEC4"},
            {"bufferView": 5, "componentType": 5123, "count": indices.len(), "type": "SCALAR"},
            {"bufferView": 6, "componentType": 5126, "count": 3, "type": "MAT4"},
            {"bufferView": 7, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 8, "componentType": 5126, "count": 2, "type": "VEC4"},
            {"bufferView": 9, "componentType": 5126, "count": 2, "type": "VEC4"}
        ],
        "bufferViews": views
    });
    write_glb(path, json, bin);
}

#[test]
fn blended_skinning_matches_cpu_skinning_at_ten_times() {
    let Some(mut painter) = gpu() else { return };
    let dir = temp();
    let path = dir.path().join("bar.glb");
    bent_bar(&path);
    let times: Vec<Option<f32>> = (0..10).map(|i| Some(i as f32 / 9.0)).collect();
    check_silhouettes(&mut painter, &path, &path, &times);
}
