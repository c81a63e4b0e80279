//! Preview speed (plain harness; `cargo bench --bench preview`): the mannequin subdivided to a
//! skinned character of at least 50 000 triangles (every new vertex blends its edge's
//! influences), rendered at 512×512 on whatever adapter wgpu finds (lavapipe on a machine
//! without a GPU). Reports the adapter, start-up (device + upload + first frame), the median
//! frame after start-up (targets: ≤ 50 ms) and a 60-frame GIF, rendered and encoded (≤ 5 s).
//! Skips, saying why, when there is no adapter.

// Tests and benches may unwrap, expect, panic and narrow: a failure is the point (the library
// denies these in Cargo.toml's [lints]).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use std::collections::HashMap;
use std::time::Instant;

use humanoid::model::mesh::SkinnedMesh;
use humanoid::preview::{image, Backend, Character, Layers, LoadOptions, Painter, Panel, View};

const TRIANGLES: usize = 50_000;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dir = tempfile::tempdir().expect("temporary folder");
    humanoid::demo::write_demo(dir.path(), true).expect("demo");
    let mut diagnostics = humanoid::Diagnostics::new();
    let mut character = Character::load(
        &dir.path().join("mannequin.glb"),
        &LoadOptions::default(),
        &mut diagnostics,
    )
    .expect("mannequin");
    for mesh in &mut character.meshes {
        while mesh.triangle_count() < TRIANGLES {
            // Splitting a triangle adds three: split only as many as reach the target.
            let wanted = (TRIANGLES - mesh.triangle_count()).div_ceil(3);
            *mesh = subdivide(mesh, wanted);
        }
    }
    character.check().expect("subdivided mesh");
    let triangles: usize = character
        .meshes
        .iter()
        .map(SkinnedMesh::triangle_count)
        .sum();
    let vertices: usize = character.meshes.iter().map(SkinnedMesh::vertex_count).sum();
    let duration = character.duration();
    let gif_times: Vec<Option<f32>> = (0..60).map(|i| Some(duration * i as f32 / 60.0)).collect();

    let start = Instant::now();
    let mut painter = match Painter::new(Backend::Auto, false) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("skipping the preview benchmark: {e}");
            return;
        }
    };
    let panel = Panel::new(character, View::ThreeQuarter, 512, 512, &gif_times);
    let uploaded = painter.upload(&panel, &mut diagnostics);
    painter
        .paint(&panel, &uploaded, Some(0.0), Layers::default())
        .expect("frame");
    let startup = start.elapsed();
    println!(
        "adapter: {}",
        painter.adapter().unwrap_or_else(|| "none".into())
    );
    println!("character: {triangles} triangles, {vertices} vertices, skinned on the GPU");
    println!(
        "start-up (device, upload, first frame): {:.1} ms",
        ms(startup)
    );

    let cpu_before = cpu_seconds();
    let mut frames = Vec::new();
    for i in 0..40 {
        let t = Some(duration * i as f32 / 40.0);
        let begin = Instant::now();
        painter
            .paint(&panel, &uploaded, t, Layers::default())
            .expect("frame");
        frames.push(ms(begin.elapsed()));
    }
    let cpu = cpu_seconds()
        .zip(cpu_before)
        .map(|(a, b)| (a - b) / 40.0 * 1000.0);
    frames.sort_by(f64::total_cmp);
    println!(
        "512x512 frame (render + read back), 40 frames: median {:.1} ms, min {:.1} ms, max {:.1} ms (target <= 50 ms); CPU time {} ms a frame over all threads; load average {}",
        frames[frames.len() / 2],
        frames[0],
        frames[frames.len() - 1],
        cpu.map_or_else(|| "?".to_owned(), |c| format!("{c:.1}")),
        std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split(' ').take(3).collect::<Vec<_>>().join(" ")
    );

    // Where a frame's time goes: the same frames with parts left out.
    for (what, layers) in [
        (
            "empty (clear + resolve + read back)",
            Layers {
                meshes: false,
                ground: false,
                overlay: false,
                silhouette: false,
            },
        ),
        (
            "ground only",
            Layers {
                meshes: false,
                ground: true,
                overlay: false,
                silhouette: false,
            },
        ),
        (
            "meshes only",
            Layers {
                meshes: true,
                ground: false,
                overlay: false,
                silhouette: false,
            },
        ),
        (
            "overlay only",
            Layers {
                meshes: false,
                ground: false,
                overlay: true,
                silhouette: false,
            },
        ),
    ] {
        let mut frames = Vec::new();
        for i in 0..20 {
            let t = Some(duration * i as f32 / 20.0);
            let begin = Instant::now();
            painter.paint(&panel, &uploaded, t, layers).expect("frame");
            frames.push(ms(begin.elapsed()));
        }
        frames.sort_by(f64::total_cmp);
        println!("  {what}: median {:.1} ms", frames[frames.len() / 2]);
    }

    // As `humanoid preview -o OUT.gif` does it: frames quantised on a worker while the next
    // ones render.
    let begin = Instant::now();
    let stream = image::GifStream::new(3);
    for &t in &gif_times {
        stream.push(
            painter
                .paint(&panel, &uploaded, t, Layers::default())
                .expect("frame"),
        );
    }
    let rendered = begin.elapsed();
    let gif = stream.finish().expect("gif");
    let total = begin.elapsed();
    println!(
        "60-frame 512x512 GIF: {:.2} s (rendering {:.2} s while quantising, then {:.2} s to finish; {} bytes) (target <= 5 s)",
        total.as_secs_f64(),
        rendered.as_secs_f64(),
        (total - rendered).as_secs_f64(),
        gif.len()
    );
}

/// User + system CPU seconds of this process, all threads (Linux `/proc/self/stat`).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The first `limit` triangles each split in four at its edges' midpoints (the others kept; a
/// split next to a kept one leaves a T-junction, harmless for timing); a midpoint's position
/// and normal are the average of its edge's, its influences the union of both ends' at half
/// weight (the largest four kept, scaled to sum to 1).
fn subdivide(mesh: &SkinnedMesh, limit: usize) -> SkinnedMesh {
    let mut out = mesh.clone();
    let mut midpoints: HashMap<(u32, u32), u32> = HashMap::new();
    let mut midpoint = |a: u32, b: u32, out: &mut SkinnedMesh| -> u32 {
        let key = (a.min(b), a.max(b));
        if let Some(&m) = midpoints.get(&key) {
            return m;
        }
        let (a, b) = (a as usize, b as usize);
        let avg3 = |p: [f32; 3], q: [f32; 3]| {
            [
                (p[0] + q[0]) / 2.0,
                (p[1] + q[1]) / 2.0,
                (p[2] + q[2]) / 2.0,
            ]
        };
        out.positions
            .push(avg3(mesh_at(&out.positions, a), mesh_at(&out.positions, b)));
        let n = glam::Vec3::from(avg3(mesh_at(&out.normals, a), mesh_at(&out.normals, b)));
        out.normals.push(n.normalize_or(glam::Vec3::Y).to_array());
        let mut influences: HashMap<u16, f32> = HashMap::new();
        for v in [a, b] {
            for (j, w) in out.joints[v].iter().zip(out.weights[v]) {
                *influences.entry(*j).or_default() += w * 0.5;
            }
        }
        let mut list: Vec<(u16, f32)> = influences.into_iter().filter(|(_, w)| *w > 0.0).collect();
        list.sort_by(|x, y| y.1.total_cmp(&x.1));
        list.truncate(4);
        let sum: f32 = list.iter().map(|(_, w)| w).sum();
        let (mut joints, mut weights) = ([0u16; 4], [0f32; 4]);
        for (k, (j, w)) in list.iter().enumerate() {
            joints[k] = *j;
            weights[k] = w / sum;
        }
        out.joints.push(joints);
        out.weights.push(weights);
        let m = (out.positions.len() - 1) as u32;
        midpoints.insert(key, m);
        m
    };
    let mut indices = Vec::with_capacity(mesh.indices.len() * 4);
    for (k, t) in mesh.indices.chunks_exact(3).enumerate() {
        let (a, b, c) = (t[0], t[1], t[2]);
        if k >= limit {
            indices.extend([a, b, c]);
            continue;
        }
        let ab = midpoint(a, b, &mut out);
        let bc = midpoint(b, c, &mut out);
        let ca = midpoint(c, a, &mut out);
        indices.extend([a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca]);
    }
    out.indices = indices;
    out
}

fn mesh_at(values: &[[f32; 3]], i: usize) -> [f32; 3] {
    values[i]
}
