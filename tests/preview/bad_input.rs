//! Broken files: a texture that cannot be decoded is left out (reported) and the mesh still
//! drawn; a joint index past the skin's joints is refused before any GPU work.

use std::path::Path;

use humanoid::preview::{preview, Character, PreviewOptions};
use serde_json::json;

use super::{floats, gpu, temp, write_glb};

/// A square 1 m across in the XY plane, with texture coordinates and a textured material whose
/// image is `image` (stored in a buffer view).
fn textured_square(path: &Path, image: &[u8]) {
    let mut bin = floats(&[-0.5, 0.0, 0.0, 0.5, 0.0, 0.0, 0.5, 1.0, 0.0, -0.5, 1.0, 0.0]);
    bin.extend(floats(&[0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]));
    bin.extend([0u16, 1, 2, 0, 2, 3].iter().flat_map(|i| i.to_le_bytes()));
    let image_offset = bin.len();
    bin.extend(image);
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "square", "mesh": 0}],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "TEXCOORD_0": 1},
            "indices": 2,
            "material": 0
        }]}],
        "materials": [{"pbrMetallicRoughness": {
            "baseColorFactor": [1.0, 0.5, 0.2, 1.0],
            "baseColorTexture": {"index": 0}
        }}],
        "textures": [{"source": 0}],
        "images": [{"bufferView": 3, "mimeType": "image/png"}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-0.5, 0.0, 0.0], "max": [0.5, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 32},
            {"buffer": 0, "byteOffset": 80, "byteLength": 12},
            {"buffer": 0, "byteOffset": image_offset, "byteLength": image.len()}
        ]
    });
    write_glb(path, json, bin);
}

#[test]
fn an_unreadable_texture_is_left_out_and_the_mesh_drawn() {
    let Some(_) = gpu() else { return };
    let dir = temp();
    let input = dir.path().join("square.glb");
    textured_square(&input, b"\x89PNG\r\n\x1a\nthis is not a PNG image");
    let output = dir.path().join("square.png");
    let options = PreviewOptions {
        width: 64,
        height: 64,
        ..PreviewOptions::default()
    };
    let report = preview(&input, &output, &options).unwrap();
    let diagnostic = report
        .diagnostics
        .iter()
        .find(|d| d.code == "TEXTURE_UNREADABLE")
        .expect("a TEXTURE_UNREADABLE diagnostic");
    assert!(
        diagnostic
            .to_string()
            .contains("image \"image0\" (image/png)")
            && diagnostic.to_string().contains("PNG: ")
            && diagnostic.to_string().contains("drawn without it"),
        "{diagnostic}"
    );
    // The square is drawn with its base colour factor (orange) in the middle of the picture.
    let bytes = std::fs::read(&output).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut buffer).unwrap();
    let centre = (32 * 64 + 32) * 4;
    let [r, g, b] = [buffer[centre], buffer[centre + 1], buffer[centre + 2]];
    assert!(r > g && g > b && r > 120, "centre pixel {r} {g} {b}");
}

#[test]
fn joint_indices_out_of_range_are_refused_before_rendering() {
    let dir = temp();
    let input = dir.path().join("bad_joints.glb");
    let mut bin = floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    // JOINTS_0 as unsigned bytes: vertex 2 names joint 5; the skin has 2.
    bin.extend([0u8, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0]);
    bin.extend(floats(&[1.0, 0.0, 0.0, 0.0].repeat(3)));
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 2]}],
        "nodes": [
            {"name": "root", "children": [1]},
            {"name": "child", "translation": [0.0, 1.0, 0.0]},
            {"name": "body", "mesh": 0, "skin": 0}
        ],
        "skins": [{"joints": [0, 1]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 12},
            {"buffer": 0, "byteOffset": 48, "byteLength": 48}
        ]
    });
    write_glb(&input, json, bin);
    let error = Character::load(
        &input,
        &Default::default(),
        &mut humanoid::Diagnostics::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("bad_joints.glb")
            && error.contains("/meshes/0/primitives/0/attributes/JOINTS_0")
            && error.contains("vertex 2 is weighted to joint 5, out of range")
            && error.contains("has 2 joints"),
        "{error}"
    );
    // The whole preview stops on the same error, whether or not a GPU exists: the mesh is
    // checked before a renderer is asked for.
    let output = dir.path().join("bad.png");
    let error = preview(&input, &output, &PreviewOptions::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("out of range"), "{error}");
    assert!(!output.exists());
}

/// Issue 32: the picture size and the frame count were bounded apart, not their product; 1000
/// frames of 2048² would have held 16 GiB. The product is refused before anything is drawn or
/// allocated (no GPU needed), naming the figures and what to lower.
#[test]
fn frames_times_picture_size_is_bounded_before_drawing() {
    let dir = temp();
    let input = super::mannequin(dir.path());
    let options = PreviewOptions {
        width: 2048,
        height: 2048,
        frames: Some(humanoid::preview::Frames::Count(1000)),
        ..PreviewOptions::default()
    };
    let started = std::time::Instant::now();
    let error = preview(&input, &dir.path().join("big.gif"), &options)
        .unwrap_err()
        .to_string();
    assert!(started.elapsed().as_secs() < 10);
    assert!(
        error.contains("1000 frames of 2048×2048 pixels") && error.contains("lower --frames"),
        "{error}"
    );
    assert!(!dir.path().join("big.gif").exists());
}
