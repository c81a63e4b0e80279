//! The preview checked by content: silhouettes against an independent CPU skinning of the
//! same glTF data (the `gltf` crate, sampled and skinned in `reference.rs`), the ground and
//! background where they belong, joint dots where the joints project, bad input refused or
//! drawn without what is broken, and the CLI. Tests that need a GPU adapter (Vulkan or GL;
//! Mesa's software drivers do) print why and skip when there is none.

// Tests and benches may unwrap, expect, panic and narrow: a failure is the point (the library
// denies these in Cargo.toml's [lints]).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation
)]
#![cfg(feature = "preview")]

mod bad_input;
mod blend;
mod cli;
#[cfg(feature = "corpus")]
mod corpus;
mod faces;
mod mannequin;
mod morph;
mod reference;

use std::path::{Path, PathBuf};

use glam::Vec2;
use humanoid::preview::{Backend, Character, Image, Layers, Painter, Panel, Renderer};

use reference::{Gltf, Mask};

/// The GPU painter, or `None` (with the reason printed) when this machine has no adapter.
pub fn gpu() -> Option<Painter> {
    match Renderer::new(Backend::Auto) {
        Ok(renderer) => Some(Painter::Gpu(Box::new(renderer))),
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// A fresh temporary folder.
pub fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temporary folder")
}

/// The mannequin written by the demo into `dir`.
pub fn mannequin(dir: &Path) -> PathBuf {
    humanoid::demo::write_demo(dir, true).expect("demo");
    dir.join("mannequin.glb")
}

/// The silhouette pass of a panel at `time`.
pub fn silhouette(painter: &mut Painter, panel: &Panel, time: Option<f32>) -> Mask {
    let mut diagnostics = humanoid::Diagnostics::new();
    let uploaded = painter.upload(panel, &mut diagnostics);
    let layers = Layers {
        meshes: true,
        ground: false,
        overlay: false,
        silhouette: true,
    };
    let image = painter
        .paint(panel, &uploaded, time, layers)
        .expect("render");
    reference::silhouette(&image)
}

/// The reference mask: the glTF file morphed and skinned on the CPU at `time` of animation
/// `anim`, projected with the panel's camera and rasterised.
pub fn reference_mask(gltf: &Gltf, anim: Option<usize>, time: f32, panel: &Panel) -> Mask {
    let worlds = gltf.node_worlds(anim, time);
    let weights = gltf.node_weights(anim, time);
    reference_mask_of(&gltf.skinned_triangles(&worlds, &weights), panel)
}

/// Triangles in the world projected with the panel's camera and rasterised.
pub fn reference_mask_of(triangles: &[[glam::Vec3; 3]], panel: &Panel) -> Mask {
    let camera = &panel.camera;
    let triangles: Vec<[Vec2; 3]> = triangles
        .iter()
        .filter_map(|t| {
            Some([
                camera.project(t[0])?,
                camera.project(t[1])?,
                camera.project(t[2])?,
            ])
        })
        .collect();
    reference::rasterise(&triangles, camera.width, camera.height)
}

/// Asserts the silhouette of `path` at each time matches the CPU reference: IoU ≥ 0.95 and a
/// mean boundary distance ≤ 1 px.
#[track_caller]
pub fn check_silhouettes(
    painter: &mut Painter,
    path: &Path,
    reference: &Path,
    times: &[Option<f32>],
) {
    let mut diagnostics = humanoid::Diagnostics::new();
    let character = Character::load(path, &Default::default(), &mut diagnostics).expect("load");
    let anim = character.clip.as_ref().map(|_| 0);
    let panel = Panel::new(
        character,
        humanoid::preview::View::ThreeQuarter,
        256,
        256,
        times,
    );
    let gltf = Gltf::open(reference);
    for &t in times {
        let gpu = silhouette(painter, &panel, t);
        let cpu = reference_mask(
            &gltf,
            anim.filter(|_| t.is_some()),
            t.unwrap_or(0.0),
            &panel,
        );
        let iou = gpu.iou(&cpu);
        let distance = gpu.mean_boundary_distance(&cpu);
        eprintln!(
            "{} at {t:?}: {} px on the GPU, {} px on the CPU, IoU {iou:.4}, mean boundary distance {distance:.3} px",
            path.display(),
            gpu.count(),
            cpu.count()
        );
        assert!(cpu.count() > 500, "the reference covers {} px", cpu.count());
        assert!(iou >= 0.95, "{}: IoU {iou} at {t:?}", path.display());
        assert!(
            distance <= 1.0,
            "{}: boundary distance {distance} at {t:?}",
            path.display()
        );
    }
}

/// Whether a pixel within `radius` of `at` has every channel ≥ `min` (a joint dot).
pub fn dot_near(image: &Image, at: Vec2, radius: i64, min: u8) -> bool {
    let (cx, cy) = (at.x.floor() as i64, at.y.floor() as i64);
    (-radius..=radius).any(|dy| {
        (-radius..=radius).any(|dx| {
            let (x, y) = (cx + dx, cy + dy);
            x >= 0
                && y >= 0
                && image
                    .pixel(x as u32, y as u32)
                    .is_some_and(|p| p[..3].iter().all(|&c| c >= min))
        })
    })
}

/// A GLB of `json` and `bin` (the buffer's length is filled in).
pub fn write_glb(path: &Path, mut json: serde_json::Value, mut bin: Vec<u8>) {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    json["buffers"] = serde_json::json!([{ "byteLength": bin.len() }]);
    let mut text = serde_json::to_vec(&json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::new();
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((text.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(&text);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(&bin);
    std::fs::write(path, out).unwrap();
}

pub fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
