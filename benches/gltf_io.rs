//! Throughput of the glTF layer and the canonical model (divan):
//!
//! - `open_glb`: read a GLB (memory map, JSON parse, validation pass);
//! - `write_glb`: write it back (the BIN chunk passes through untouched);
//! - `read_asset`: the document into the canonical model (skeleton, bone map, every key decoded);
//! - `sample_clip`: sample every track of the long clip at 1 000 times.
//!
//! The input is the bundled mannequin with a long generated clip (55 bones × `KEYS` rotation
//! keys, about 9 MB of animation data), written once into a temporary folder. The comparison
//! with `cp` on a 98 MB file is `scripts/bench-convert.sh`.

// Tests and benches may unwrap, expect, panic and narrow: a failure is the point (the library
// denies these in Cargo.toml's [lints]).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use glam::Quat;
use humanoid::demo::canonical_mannequin;
use humanoid::formats::gltf::{self, build, Document};
use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
use humanoid::pose::sample::Interpolation;

const KEYS: usize = 10_000;

fn main() {
    divan::main();
}

struct Input {
    _dir: tempfile::TempDir,
    glb: PathBuf,
    out: PathBuf,
}

fn input() -> &'static Input {
    static INPUT: OnceLock<Input> = OnceLock::new();
    INPUT.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let glb = dir.path().join("long.glb");
        let out = dir.path().join("out.glb");
        let m = canonical_mannequin().expect("mannequin");
        let mut clip = Clip::new("long");
        let times: Vec<f32> = (0..KEYS).map(|k| k as f32 / 30.0).collect();
        for joint in m.skeleton.joints() {
            let rest = m.skeleton.rest_local(joint).rotation;
            let values: Vec<f32> = (0..KEYS)
                .flat_map(|k| {
                    (rest * Quat::from_rotation_x((k as f32 * 0.05).sin() * 0.3)).to_array()
                })
                .collect();
            let track = Track::new(
                TrackTarget::Joint(joint),
                Property::Rotation,
                Interpolation::Linear,
                times.clone(),
                values,
            )
            .expect("valid track");
            clip.add_track(track);
        }
        let humanoids = [m.humanoid.clone()];
        let built = build::build(&build::Scene {
            skeleton: &m.skeleton,
            humanoids: &humanoids,
            meshes: std::slice::from_ref(&m.mesh),
            clips: &[clip],
            generator: "humanoid bench",
            skin_without_mesh: false,
        })
        .expect("build");
        build::write_glb(&built, &glb).expect("write input");
        Input {
            _dir: dir,
            glb,
            out,
        }
    })
}

fn bytes_of(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

#[divan::bench]
fn open_glb(bencher: divan::Bencher) {
    let input = input();
    bencher
        .counter(divan::counter::BytesCount::new(bytes_of(&input.glb)))
        .bench(|| Document::open(&input.glb).expect("open"));
}

#[divan::bench]
fn write_glb(bencher: divan::Bencher) {
    let input = input();
    let document = Document::open(&input.glb).expect("open");
    bencher
        .counter(divan::counter::BytesCount::new(bytes_of(&input.glb)))
        .bench(|| document.write_glb(&input.out, &[]).expect("write"));
}

#[divan::bench]
fn read_asset(bencher: divan::Bencher) {
    let input = input();
    let document = Document::open(&input.glb).expect("open");
    bencher
        .counter(divan::counter::BytesCount::new(bytes_of(&input.glb)))
        .bench(|| gltf::humanoid::asset_from_document(&document).expect("asset"));
}

#[divan::bench]
fn sample_clip(bencher: divan::Bencher) {
    let input = input();
    let asset = gltf::read_asset(&input.glb).expect("asset").asset;
    let clip = asset.clips.first().expect("the long clip");
    let samples = 1_000;
    bencher
        .counter(divan::counter::ItemsCount::new(
            samples * clip.tracks().len(),
        ))
        .bench(|| {
            let mut out = [0f32; 4];
            let mut sum = 0.0;
            for i in 0..samples {
                let t = clip.duration() * i as f32 / samples as f32;
                for track in clip.tracks() {
                    track.sample(t, &mut out);
                    sum += out[3];
                }
            }
            divan::black_box(sum)
        });
}
