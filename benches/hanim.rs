//! H-Anim parse and write throughput (divan):
//!
//! - `parse_*`: text → checked scene graph ([`hanim::parse_summary`]: syntax, DEF/USE, ROUTEs,
//!   field names and types), in MB/s of input;
//! - `read_*`: the same through to the canonical model (joint trees, clips, humanoid map);
//! - `write_*`: the canonical model → text.
//!
//! Inputs: the largest corpus file of each syntax (`JinLOA4.x3d`, 0.8 MB X3D XML;
//! `JoeDemo5JoeSkin5.x3dv`, 0.15 MB ClassicVRML; skipped when `../shared/corpus` is absent), and
//! a generated humanoid of the 146 HAnim 2.0 joints with a clip of `KEYS` keys per joint,
//! written by the crate's own writers as X3D XML and ClassicVRML (about 50 MB each).

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

use divan::counter::BytesCount;
use divan::Bencher;
use glam::{Quat, Vec3};
use humanoid::asset::Asset;
use humanoid::formats::hanim::{self, names, ReadOptions, WriteOptions};
use humanoid::formats::Format;
use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
use humanoid::model::skeleton::{RawJoint, Skeleton};
use humanoid::pose::{Interpolation, Trs};

/// Rotation keys per joint of the generated clip (146 joints).
const KEYS: usize = 6_000;

fn main() {
    divan::main();
}

struct Inputs {
    asset: Asset,
    xml: String,
    classic: String,
}

/// The generated humanoid: the 146 standard joints at their default centres (a joint without
/// one sits 2 cm below its parent), and one long clip.
fn inputs() -> &'static Inputs {
    static INPUTS: OnceLock<Inputs> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let mut centres: Vec<Vec3> = Vec::new();
        let raw: Vec<RawJoint> = names::JOINTS
            .iter()
            .map(|joint| {
                let parent = joint
                    .parent
                    .and_then(|p| names::JOINTS.iter().position(|j| j.name == p));
                let parent_centre = parent
                    .and_then(|p| centres.get(p).copied())
                    .unwrap_or(Vec3::ZERO);
                let centre = joint
                    .center
                    .map_or(parent_centre - Vec3::new(0.0, 0.02, 0.0), Vec3::from_array);
                centres.push(centre);
                RawJoint {
                    name: joint.name.to_owned(),
                    parent,
                    rest: Trs::from_translation(centre - parent_centre),
                }
            })
            .collect();
        let (skeleton, ids) = Skeleton::from_raw(raw).expect("skeleton");
        let mut asset = Asset::new(Format::X3d, skeleton, (0..ids.len()).collect());
        let mut clip = Clip::new("long");
        let times: Vec<f32> = (0..KEYS).map(|k| k as f32 / 30.0).collect();
        for (i, id) in ids.iter().enumerate() {
            let values: Vec<f32> = (0..KEYS)
                .flat_map(|k| {
                    let a = ((k + i) as f32 * 0.05).sin() * 0.7;
                    Quat::from_euler(glam::EulerRot::XYZ, a, 0.5 * a, -0.3 * a).to_array()
                })
                .collect();
            let track = Track::new(
                TrackTarget::Joint(*id),
                Property::Rotation,
                Interpolation::Linear,
                times.clone(),
                values,
            )
            .expect("track");
            clip.add_track(track);
        }
        asset.clips.push(clip);
        let options = WriteOptions::default();
        let xml = hanim::write_x3d(&asset, &options).expect("x3d");
        let classic = hanim::write_classic(&asset, &options).expect("x3dv");
        Inputs {
            asset,
            xml,
            classic,
        }
    })
}

fn corpus(name: &str) -> Option<Vec<u8>> {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/hanim")
        .join(name);
    std::fs::read(path).ok()
}

fn parse(bencher: Bencher, bytes: &[u8], name: &str) {
    let options = ReadOptions::default();
    bencher
        .counter(BytesCount::new(bytes.len()))
        .bench(|| hanim::parse_summary(divan::black_box(bytes), Path::new(name), &options));
}

fn read(bencher: Bencher, bytes: &[u8], name: &str) {
    let options = ReadOptions::default();
    bencher
        .counter(BytesCount::new(bytes.len()))
        .bench(|| hanim::read(divan::black_box(bytes), Path::new(name), &options));
}

#[divan::bench(sample_count = 20)]
fn parse_corpus_x3d_jin_loa4(bencher: Bencher) {
    if let Some(bytes) = corpus("JinLOA4.x3d") {
        parse(bencher, &bytes, "JinLOA4.x3d");
    }
}

#[divan::bench(sample_count = 20)]
fn parse_corpus_x3dv_joe_demo5(bencher: Bencher) {
    if let Some(bytes) = corpus("JoeDemo5JoeSkin5.x3dv") {
        parse(bencher, &bytes, "JoeDemo5JoeSkin5.x3dv");
    }
}

#[divan::bench(sample_count = 20)]
fn read_corpus_x3d_jin_loa4(bencher: Bencher) {
    if let Some(bytes) = corpus("JinLOA4.x3d") {
        read(bencher, &bytes, "JinLOA4.x3d");
    }
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn parse_generated_x3d(bencher: Bencher) {
    parse(bencher, inputs().xml.as_bytes(), "long.x3d");
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn parse_generated_x3dv(bencher: Bencher) {
    parse(bencher, inputs().classic.as_bytes(), "long.x3dv");
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn read_generated_x3d(bencher: Bencher) {
    read(bencher, inputs().xml.as_bytes(), "long.x3d");
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn read_generated_x3dv(bencher: Bencher) {
    read(bencher, inputs().classic.as_bytes(), "long.x3dv");
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn write_generated_x3d(bencher: Bencher) {
    let inputs = inputs();
    bencher
        .counter(BytesCount::new(inputs.xml.len()))
        .bench(|| hanim::write_x3d(divan::black_box(&inputs.asset), &WriteOptions::default()));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn write_generated_x3dv(bencher: Bencher) {
    let inputs = inputs();
    bencher
        .counter(BytesCount::new(inputs.classic.len()))
        .bench(|| hanim::write_classic(divan::black_box(&inputs.asset), &WriteOptions::default()));
}
