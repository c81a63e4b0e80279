//! Faces and alpha as glTF defines them: a single-sided triangle is drawn only from the side
//! its counter-clockwise winding faces (`doubleSided: false`, the default), a double-sided
//! one from both; MASK discards below the cutoff, BLEND mixes with what is behind.

use std::path::Path;

use humanoid::preview::gpu::BACKGROUND;
use humanoid::preview::{Character, Image, Layers, Panel, View};
use serde_json::json;

use super::{floats, gpu, temp, write_glb};

/// Orange, in sRGB bytes as drawn lit by the ambient term and the light: checked by hue.
const ORANGE: [f32; 4] = [1.0, 0.3, 0.05, 1.0];

/// A square 1 m across in the XY plane; `facing_camera` winds it counter-clockwise as seen
/// from +Z (where the front view looks from), else clockwise.
fn square(path: &Path, facing_camera: bool, material: serde_json::Value) {
    let mut bin = floats(&[-0.5, 0.0, 0.0, 0.5, 0.0, 0.0, 0.5, 1.0, 0.0, -0.5, 1.0, 0.0]);
    let indices: [u16; 6] = if facing_camera {
        [0, 1, 2, 0, 2, 3]
    } else {
        [0, 2, 1, 0, 3, 2]
    };
    bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "square", "mesh": 0}],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0},
            "indices": 1,
            "material": 0
        }]}],
        "materials": [material],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-0.5, 0.0, 0.0], "max": [0.5, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 12}
        ]
    });
    write_glb(path, json, bin);
}

/// The centre pixel of the square drawn from the front, meshes only, or `None` without a GPU.
fn centre_pixel(facing_camera: bool, material: serde_json::Value) -> Option<[u8; 4]> {
    let dir = temp();
    let path = dir.path().join("square.glb");
    square(&path, facing_camera, material);
    let image = front_meshes(&path)?;
    Some(image.pixel(32, 32).expect("centre"))
}

/// The file at `path` drawn from the front at 64×64, meshes only, or `None` without a GPU.
fn front_meshes(path: &Path) -> Option<Image> {
    let mut painter = gpu()?;
    let character = Character::load(path, &Default::default(), &mut humanoid::Diagnostics::new())
        .expect("load");
    let panel = Panel::new(character, View::Front, 64, 64, &[None]);
    let uploaded = painter.upload(&panel, &mut humanoid::Diagnostics::new());
    let layers = Layers {
        meshes: true,
        ground: false,
        overlay: false,
        silhouette: false,
    };
    let image = painter
        .paint(&panel, &uploaded, None, layers)
        .expect("render");
    Some(image)
}

fn is_background(p: [u8; 4]) -> bool {
    p[..3]
        .iter()
        .zip(&BACKGROUND[..3])
        .all(|(a, b)| a.abs_diff(*b) <= 2)
}

/// Red well above green, green above blue: the square's orange, however lit.
fn is_orange(p: [u8; 4]) -> bool {
    p[0] > 120 && p[0] as u16 > p[1] as u16 + 40 && p[1] >= p[2]
}

fn material(extra: serde_json::Value) -> serde_json::Value {
    let mut m = json!({"pbrMetallicRoughness": {"baseColorFactor": ORANGE}});
    if let (Some(m), Some(extra)) = (m.as_object_mut(), extra.as_object()) {
        m.extend(extra.clone());
    }
    m
}

#[test]
fn single_sided_faces_are_drawn_from_the_front_only() {
    let Some(front) = centre_pixel(true, material(json!({}))) else {
        return;
    };
    assert!(is_orange(front), "front face: {front:?}");
    let back = centre_pixel(false, material(json!({}))).unwrap();
    assert!(is_background(back), "back face culled: {back:?}");
}

#[test]
fn double_sided_faces_are_drawn_from_both_sides() {
    let Some(front) = centre_pixel(true, material(json!({"doubleSided": true}))) else {
        return;
    };
    let back = centre_pixel(false, material(json!({"doubleSided": true}))).unwrap();
    assert!(is_orange(front), "front face: {front:?}");
    assert!(is_orange(back), "back face: {back:?}");
}

#[test]
fn mask_discards_below_the_cutoff() {
    let translucent = |extra: serde_json::Value| {
        let mut m = material(extra);
        m["pbrMetallicRoughness"]["baseColorFactor"] = json!([1.0, 0.3, 0.05, 0.4]);
        m
    };
    let Some(kept) = centre_pixel(
        true,
        translucent(json!({"alphaMode": "MASK", "alphaCutoff": 0.3})),
    ) else {
        return;
    };
    assert!(is_orange(kept), "alpha 0.4 over a cutoff of 0.3: {kept:?}");
    let cut = centre_pixel(true, translucent(json!({"alphaMode": "MASK"}))).unwrap();
    assert!(
        is_background(cut),
        "alpha 0.4 under the default 0.5: {cut:?}"
    );
}

#[test]
fn blend_mixes_with_the_background() {
    let translucent = |extra: serde_json::Value| {
        let mut m = material(extra);
        m["pbrMetallicRoughness"]["baseColorFactor"] = json!([1.0, 0.3, 0.05, 0.5]);
        m
    };
    let Some(opaque) = centre_pixel(true, translucent(json!({}))) else {
        return;
    };
    let blended = centre_pixel(true, translucent(json!({"alphaMode": "BLEND"}))).unwrap();
    // OPAQUE ignores alpha; BLEND lands between the background and the opaque colour.
    assert!(is_orange(opaque), "{opaque:?}");
    for c in 0..3 {
        let (lo, hi) = (opaque[c].min(BACKGROUND[c]), opaque[c].max(BACKGROUND[c]));
        assert!(
            blended[c] > lo.saturating_add(10) && blended[c] < hi.saturating_sub(10)
                || hi - lo < 30,
            "channel {c}: blended {blended:?}, opaque {opaque:?}, background {BACKGROUND:?}"
        );
    }
}

/// An 8×8 PNG in four 4×4 quadrants: red top left, green top right, blue bottom left, white
/// bottom right (glTF's UV origin is the top left).
fn quadrants_png() -> Vec<u8> {
    let mut rgba = Vec::new();
    for y in 0..8 {
        for x in 0..8 {
            rgba.extend(match (x < 4, y < 4) {
                (true, true) => [255, 0, 0, 255],
                (false, true) => [0, 255, 0, 255],
                (true, false) => [0, 0, 255, 255],
                (false, false) => [255, 255, 255, 255],
            });
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, 8, 8);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&rgba).unwrap();
    writer.finish().unwrap();
    out
}

/// The front square with the quadrants texture over it (UV (0, 0) at its top left), its
/// texture info carrying `extensions`.
fn textured_centre_pixel(extensions: serde_json::Value) -> Option<[u8; 4]> {
    let dir = temp();
    let path = dir.path().join("textured.glb");
    let image = quadrants_png();
    let mut bin = floats(&[-0.5, 0.0, 0.0, 0.5, 0.0, 0.0, 0.5, 1.0, 0.0, -0.5, 1.0, 0.0]);
    bin.extend(floats(&[0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]));
    bin.extend([0u16, 1, 2, 0, 2, 3].iter().flat_map(|i| i.to_le_bytes()));
    let image_offset = bin.len();
    bin.extend(&image);
    let json = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_texture_transform"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "square", "mesh": 0}],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "TEXCOORD_0": 1},
            "indices": 2,
            "material": 0
        }]}],
        "materials": [{"pbrMetallicRoughness": {
            "baseColorTexture": {"index": 0, "extensions": extensions}
        }}],
        "samplers": [{"magFilter": 9728, "minFilter": 9728}],
        "textures": [{"source": 0, "sampler": 0}],
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
    write_glb(&path, json, bin);
    let image = front_meshes(&path)?;
    // A little off the centre, inside the top-right quadrant of the square.
    Some(image.pixel(36, 28).expect("pixel"))
}

#[test]
fn the_texture_transform_moves_the_texture() {
    // Without a transform, the square's upper right shows the green quadrant.
    let Some(plain) = textured_centre_pixel(json!({})) else {
        return;
    };
    assert!(dominant(plain, 1), "green: {plain:?}");
    // Scaled by a half and offset to the bottom-left quadrant, the whole square is blue.
    let moved = textured_centre_pixel(json!({"KHR_texture_transform": {
        "offset": [0.0, 0.5], "scale": [0.5, 0.5]
    }}))
    .unwrap();
    assert!(dominant(moved, 2), "blue: {moved:?}");
    // Turned a quarter: uv' = (v, −u). The pixel (u ≈ 0.6, v ≈ 0.4) reads (0.4, −0.6), that
    // is (0.4, 0.4) wrapped: the red quadrant (the other sense would read white).
    let turned = textured_centre_pixel(json!({"KHR_texture_transform": {
        "rotation": std::f32::consts::FRAC_PI_2
    }}))
    .unwrap();
    assert!(dominant(turned, 0), "red: {turned:?}");
}

/// Whether channel `c` is more than twice each of the other two.
fn dominant(p: [u8; 4], c: usize) -> bool {
    (0..3).all(|k| k == c || u16::from(p[c]) > 2 * u16::from(p[k]))
}

/// A toon (MToon 1.0) material on the square: white where lit, `shade` where shaded, split by
/// the shading shift.
fn toon(shift: f32) -> serde_json::Value {
    json!({
        "pbrMetallicRoughness": {"baseColorFactor": [1.0, 1.0, 1.0, 1.0]},
        "extensions": {"VRMC_materials_mtoon": {
            "specVersion": "1.0",
            "shadeColorFactor": [0.0, 0.0, 1.0],
            "shadingShiftFactor": shift,
            "shadingToonyFactor": 0.95
        }}
    })
}

#[test]
fn a_toon_material_is_lit_or_shaded_by_its_shading_shift() {
    // Shift −1 pushes every n·l below the band: the shade colour (blue). Shift +1: lit (white).
    let Some(shaded) = centre_pixel(true, toon(-1.0)) else {
        return;
    };
    assert!(
        shaded[2] > 120 && shaded[0] < 60 && shaded[1] < 60,
        "shaded: {shaded:?}"
    );
    let lit = centre_pixel(true, toon(1.0)).unwrap();
    assert!(lit[..3].iter().all(|&c| c > 200), "lit: {lit:?}");
}
