//! Morph targets as glTF defines them: default weights (the node's over the mesh's), a
//! `weights` channel on the node that draws the mesh, morph before skin. A two-bone bar whose
//! top a target stretches far while the clip bends it: the GPU's silhouette against the CPU
//! reference (which morphs with the `gltf` crate's own data) at several times, on Vulkan and
//! GL; a mesh with more targets than a frame draws; the weights and bounds by hand.

use std::path::Path;

use humanoid::preview::morph::MAX_ACTIVE;
use humanoid::preview::{Backend, Character, Painter, Renderer};
use serde_json::json;

use super::{check_silhouettes, floats, gpu, temp, write_glb};

/// How far the stretch target moves the top of the bar per metre above the child joint.
const STRETCH: f32 = 1.5;

/// What the bar carries besides the stretch.
struct Bar {
    /// Targets before the stretch that barely move anything (1 mm sideways), with weight
    /// 0.01 each: the stretch is target `extra`.
    extra: usize,
    /// The weights sampler's interpolation.
    interpolation: &'static str,
}

/// Rings of four vertices up a 2 m bar, the child joint at 1 m: rings below 0.5 m follow the
/// root, above 1.5 m the child, blended between. Targets: `extra` tiny ones, then the stretch
/// (every vertex above 1 m moves up by `STRETCH` times its height above it), then a bulge
/// (the +x side of the rings between 0.25 and 1 m moves 0.4 m out; with normal deltas).
/// Default weights: the mesh says 1 for the stretch, the node 0.5 (the node's win). The clip
/// bends the child 60° about z over 2 s while a `weights` channel on the bar's node drives
/// the stretch and bulge: (0, 0) at 0 s, (1, 0) at 1 s, (0.3, 1) at 2 s.
fn bar(path: &Path, options: &Bar) {
    let rings = 9;
    let count = rings * 4;
    let mut positions = Vec::new();
    let mut joints: Vec<u8> = Vec::new();
    let mut weights = Vec::new();
    let mut stretch = Vec::new();
    let mut bulge = Vec::new();
    let mut bulge_normals = Vec::new();
    let mut tiny = Vec::new();
    for r in 0..rings {
        let y = 2.0 * r as f32 / (rings - 1) as f32;
        let child = (y - 0.5).clamp(0.0, 1.0);
        for (x, z) in [(-0.1, -0.1), (0.1, -0.1), (0.1, 0.1), (-0.1, 0.1)] {
            positions.extend([x, y, z]);
            joints.extend([0, 1, 0, 0]);
            weights.extend([1.0 - child, child, 0.0, 0.0]);
            stretch.extend([0.0, (y - 1.0).max(0.0) * STRETCH, 0.0]);
            let out = if x > 0.0 && (0.25..=1.0).contains(&y) {
                0.4
            } else {
                0.0
            };
            bulge.extend([out, 0.0, 0.0]);
            bulge_normals.extend([0.0, out, 0.0]);
            tiny.extend([0.001, 0.0, 0.0]);
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

    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut push = |bytes: Vec<u8>, accessor: serde_json::Value| -> usize {
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
        bin.extend(bytes);
        let mut accessor = accessor;
        accessor["bufferView"] = json!(views.len() - 1);
        accessors.push(accessor);
        accessors.len() - 1
    };
    let vec3 = |min: [f32; 3], max: [f32; 3]| json!({"componentType": 5126, "count": count, "type": "VEC3", "min": min, "max": max});
    let position = push(floats(&positions), vec3([-0.1, 0.0, -0.1], [0.1, 2.0, 0.1]));
    let joints0 = push(
        joints,
        json!({"componentType": 5121, "count": count, "type": "VEC4"}),
    );
    let weights0 = push(
        floats(&weights),
        json!({"componentType": 5126, "count": count, "type": "VEC4"}),
    );
    let index = push(
        indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
        json!({"componentType": 5123, "count": indices.len(), "type": "SCALAR"}),
    );
    let mut targets = Vec::new();
    if options.extra > 0 {
        let tiny = push(floats(&tiny), vec3([0.001, 0.0, 0.0], [0.001, 0.0, 0.0]));
        targets.extend((0..options.extra).map(|_| json!({"POSITION": tiny})));
    }
    let stretch = push(floats(&stretch), vec3([0.0, 0.0, 0.0], [0.0, STRETCH, 0.0]));
    let bulge_positions = push(floats(&bulge), vec3([0.0; 3], [0.4, 0.0, 0.0]));
    let bulge_normals = push(floats(&bulge_normals), vec3([0.0; 3], [0.0, 0.4, 0.0]));
    targets.push(json!({"POSITION": stretch}));
    targets.push(json!({"POSITION": bulge_positions, "NORMAL": bulge_normals}));
    let ibm: Vec<f32> = [0.0f32, -1.0]
        .iter()
        .flat_map(|&dy| {
            let mut m = glam::Mat4::IDENTITY.to_cols_array();
            m[13] = dy;
            m
        })
        .collect();
    let ibm = push(
        floats(&ibm),
        json!({"componentType": 5126, "count": 2, "type": "MAT4"}),
    );
    let times = push(
        floats(&[0.0, 1.0, 2.0]),
        json!({"componentType": 5126, "count": 3, "type": "SCALAR", "min": [0.0], "max": [2.0]}),
    );
    let half = std::f32::consts::FRAC_PI_6;
    let rotations = push(
        floats(&[
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.0,
            (half / 2.0).sin(),
            (half / 2.0).cos(),
            0.0,
            0.0,
            half.sin(),
            half.cos(),
        ]),
        json!({"componentType": 5126, "count": 3, "type": "VEC4"}),
    );
    // Per key: the extra targets at 0.01, then stretch and bulge.
    let key = |stretch: f32, bulge: f32| {
        let mut k = vec![0.01; options.extra];
        k.extend([stretch, bulge]);
        k
    };
    let keys = [key(0.0, 0.0), key(1.0, 0.0), key(0.3, 1.0)].concat();
    let key_count = keys.len();
    let weight_values = push(
        floats(&keys),
        json!({"componentType": 5126, "count": key_count, "type": "SCALAR"}),
    );
    let mut mesh_defaults = vec![0.0; options.extra];
    mesh_defaults.extend([1.0, 0.0]);
    let mut node_defaults = vec![0.01; options.extra];
    node_defaults.extend([0.5, 0.0]);
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 2]}],
        "nodes": [
            {"name": "root", "children": [1]},
            {"name": "child", "translation": [0.0, 1.0, 0.0]},
            {"name": "bar", "mesh": 0, "skin": 0, "weights": node_defaults}
        ],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": ibm}],
        "meshes": [{
            "primitives": [{
                "attributes": {"POSITION": position, "JOINTS_0": joints0, "WEIGHTS_0": weights0},
                "indices": index,
                "targets": targets
            }],
            "weights": mesh_defaults
        }],
        "animations": [{"name": "bend and stretch", "channels": [
            {"sampler": 0, "target": {"node": 1, "path": "rotation"}},
            {"sampler": 1, "target": {"node": 2, "path": "weights"}}
        ], "samplers": [
            {"input": times, "output": rotations},
            {"input": times, "output": weight_values, "interpolation": options.interpolation}
        ]}],
        "accessors": accessors,
        "bufferViews": views
    });
    write_glb(path, json, bin);
}

fn times() -> Vec<Option<f32>> {
    [
        None,
        Some(0.0),
        Some(0.5),
        Some(1.0),
        Some(1.5),
        Some(2.0),
        Some(3.0),
    ]
    .to_vec()
}

#[test]
fn morph_then_skin_matches_the_cpu_reference() {
    let Some(mut painter) = gpu() else { return };
    let dir = temp();
    for interpolation in ["LINEAR", "STEP"] {
        let path = dir.path().join(format!("bar_{interpolation}.glb"));
        bar(
            &path,
            &Bar {
                extra: 0,
                interpolation,
            },
        );
        check_silhouettes(&mut painter, &path, &path, &times());
    }
}

#[test]
fn vulkan_and_gl_both_morph() {
    let (Ok(vulkan), Ok(gl)) = (Renderer::new(Backend::Vulkan), Renderer::new(Backend::Gl)) else {
        eprintln!("skipping: Vulkan and GL are not both available");
        return;
    };
    let dir = temp();
    let path = dir.path().join("bar.glb");
    bar(
        &path,
        &Bar {
            extra: 0,
            interpolation: "LINEAR",
        },
    );
    for renderer in [vulkan, gl] {
        eprintln!("{}", renderer.adapter());
        let mut painter = Painter::Gpu(Box::new(renderer));
        check_silhouettes(&mut painter, &path, &path, &[None, Some(1.5)]);
    }
}

/// 70 targets, up to 70 of them with a non-zero weight: a frame draws the 64 largest, so the
/// tiny ones that go make no visible difference (1 mm × 0.01 each), and the stretch (target
/// 68, past the first 64) is found where it lies in the deltas.
#[test]
fn more_targets_than_a_frame_draws() {
    let dir = temp();
    let path = dir.path().join("many.glb");
    let extra = MAX_ACTIVE + 4;
    bar(
        &path,
        &Bar {
            extra,
            interpolation: "LINEAR",
        },
    );
    let mut diagnostics = humanoid::Diagnostics::new();
    let character = Character::load(&path, &Default::default(), &mut diagnostics).unwrap();
    assert_eq!(character.meshes[0].morph_targets.len(), extra + 2);
    let Some(mut painter) = gpu() else { return };
    let panel =
        humanoid::preview::Panel::new(character, humanoid::preview::View::Front, 64, 64, &[None]);
    painter.upload(&panel, &mut diagnostics);
    assert!(
        diagnostics.contains("MORPH_TARGETS_LIMITED"),
        "{diagnostics:?}"
    );
    check_silhouettes(&mut painter, &path, &path, &times());
}

/// The weights of the pose and the framing bounds, by hand: at rest the node's defaults (0.5
/// stretch: the top at 2 + 0.5 · 1 · 1.5 = 2.75 m), then the channel: at 0.5 s (0.5, 0), at
/// 1.5 s halfway from (1, 0) to (0.3, 1) = (0.65, 0.5); clamped after 2 s.
#[test]
fn weights_and_bounds_by_hand() {
    let dir = temp();
    let path = dir.path().join("bar.glb");
    bar(
        &path,
        &Bar {
            extra: 0,
            interpolation: "LINEAR",
        },
    );
    let mut diagnostics = humanoid::Diagnostics::new();
    let character = Character::load(&path, &Default::default(), &mut diagnostics).unwrap();
    let mesh = &character.meshes[0];
    assert_eq!(mesh.morph_weights, vec![0.5, 0.0]);
    assert_eq!(mesh.morph_targets[1].normals.len(), mesh.vertex_count());
    assert!(mesh.morph_targets[0].normals.is_empty());
    let close = |a: &[f32], b: &[f32]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
    };
    for (t, expected) in [
        (None, [0.5, 0.0]),
        (Some(0.0), [0.0, 0.0]),
        (Some(0.5), [0.5, 0.0]),
        (Some(1.5), [0.65, 0.5]),
        (Some(5.0), [0.3, 1.0]),
    ] {
        let weights = &character.pose(t).morph_weights[0];
        assert!(close(weights, &expected), "{t:?}: {weights:?}");
    }
    let rest = character.bounds(&[None]).unwrap();
    assert!((rest.max.y - 2.75).abs() < 1e-5, "{rest:?}");
    // The bulge at 2 s (weight 1) puts the +x side 0.1 + 0.4 m out, at rest still.
    let pose = character.pose(Some(2.0));
    let max_x = character
        .skinned_positions(&pose)
        .iter()
        .map(|p| p.x)
        .fold(f32::MIN, f32::max);
    assert!(max_x > 0.49, "{max_x}");
}

/// A triangle with one morph target whose deltas are `deltas` vertices long, animated by a
/// `weights` channel of `weights` weights per key.
fn triangle(path: &Path, deltas: usize, weights: usize) {
    let mut bin = floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend(floats(&vec![0.0; 3 * deltas]));
    let times_at = bin.len();
    bin.extend(floats(&[0.0, 1.0]));
    let values_at = bin.len();
    bin.extend(floats(&vec![1.0; 2 * weights]));
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "triangle", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "targets": [{"POSITION": 1}]}],
                    "weights": [0.25]}],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
                        "samplers": [{"input": 2, "output": 3}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": deltas, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 3, "componentType": 5126, "count": 2 * weights, "type": "SCALAR"}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 12 * deltas},
            {"buffer": 0, "byteOffset": times_at, "byteLength": 8},
            {"buffer": 0, "byteOffset": values_at, "byteLength": 8 * weights}
        ]
    });
    write_glb(path, json, bin);
}

#[test]
fn a_target_of_the_wrong_length_is_refused_naming_it() {
    let dir = temp();
    let path = dir.path().join("short.glb");
    triangle(&path, 2, 1);
    let error = Character::load(
        &path,
        &Default::default(),
        &mut humanoid::Diagnostics::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("/meshes/0/primitives/0/targets/0/POSITION")
            && error.contains("6 numbers for 3 vertices"),
        "{error}"
    );
}

#[test]
fn a_weights_track_of_the_wrong_count_is_reported_and_not_played() {
    let dir = temp();
    let path = dir.path().join("two.glb");
    triangle(&path, 3, 2);
    let mut diagnostics = humanoid::Diagnostics::new();
    let character = Character::load(&path, &Default::default(), &mut diagnostics).unwrap();
    let note = diagnostics
        .iter()
        .find(|d| d.code == "MORPH_WEIGHTS_NOT_PLAYED")
        .expect("a MORPH_WEIGHTS_NOT_PLAYED diagnostic");
    assert!(
        note.message
            .contains("holds 2 weights for the 1 morph targets"),
        "{note}"
    );
    assert_eq!(character.pose(Some(0.5)).morph_weights, vec![vec![0.25]]);
}
