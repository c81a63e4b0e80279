//! Retargeting throughput (divan), in memory (no file reading or writing):
//!
//! - `retarget_100k_keys`: the mannequin with a generated clip of 100,000 keys on each of its 55
//!   bones (one shared time array) retargeted onto the mannequin made a VRM-like copy, baked
//!   into a clip (target: ≤ 100 ms);
//! - `pose_idle_loop_on_debug_robot`: full-skeleton pose sampling of `idle_loop.vrma` on
//!   `debug_robot.vrm`, 1 000 samples (compare with the three-vrm oracle's `--bench 1000` on
//!   the same pair: `scripts/bench-retarget.sh` runs both). Needs `../shared`; skipped without.

// Tests and benches may unwrap, expect, panic and narrow: a failure is the point (the library
// denies these in Cargo.toml's [lints]).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use std::path::Path;
use std::sync::OnceLock;

use glam::Quat;
use humanoid::asset::{Asset, HumanoidSkeleton};
use humanoid::demo::canonical_mannequin;
use humanoid::formats::Format;
use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
use humanoid::pose::retarget::{Retargeter, Side};
use humanoid::pose::sample::Interpolation;

const KEYS: usize = 100_000;

fn main() {
    divan::main();
}

/// The canonical mannequin, and it as an asset that declares its T-pose humanoid.
fn mannequin_asset() -> (humanoid::demo::CanonicalMannequin, Asset) {
    let m = canonical_mannequin().expect("mannequin");
    let mut asset = Asset::new(
        Format::Glb,
        m.skeleton.clone(),
        (0..m.skeleton.len()).collect(),
    );
    asset.humanoids.push(HumanoidSkeleton {
        declared_t_pose: true,
        root: m.humanoid.root,
        bones: m.humanoid.bones,
    });
    (m, asset)
}

fn mannequin_with_long_clip() -> &'static (Asset, Clip) {
    static DATA: OnceLock<(Asset, Clip)> = OnceLock::new();
    DATA.get_or_init(|| {
        let (m, asset) = mannequin_asset();
        let times: Vec<f32> = (0..KEYS).map(|k| k as f32 / 30.0).collect();
        let mut clip = Clip::new("long");
        for joint in m.skeleton.joints() {
            let rest = m.skeleton.rest_local(joint).rotation;
            let values: Vec<f32> = (0..KEYS)
                .flat_map(|k| {
                    (rest * Quat::from_rotation_x((k as f32 * 0.05).sin() * 0.3)).to_array()
                })
                .collect();
            clip.add_track(
                Track::new(
                    TrackTarget::Joint(joint),
                    Property::Rotation,
                    Interpolation::Linear,
                    times.clone(),
                    values,
                )
                .expect("track"),
            );
        }
        (asset, clip)
    })
}

#[divan::bench(sample_count = 5)]
fn retarget_100k_keys(bencher: divan::Bencher) {
    let (asset, clip) = mannequin_with_long_clip();
    bencher.bench(|| {
        let mut diagnostics = humanoid::Diagnostics::new();
        humanoid::retarget::bake(asset, clip, asset, None, &mut diagnostics).expect("bake")
    });
}

#[divan::bench(sample_count = 10)]
fn pose_idle_loop_on_debug_robot(bencher: divan::Bencher) {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let (Ok(anim), Ok(model)) = (
        humanoid::read_asset(&shared.join("vrma/idle_loop.vrma")),
        humanoid::read_asset(&shared.join("vrm/debug_robot.vrm")),
    ) else {
        eprintln!("../shared/corpus not found: skipped");
        return;
    };
    let (anim, model) = (anim.asset, model.asset);
    let clip = &anim.clips[0];
    let duration = clip.duration();
    bencher.bench(|| {
        let mut diagnostics = humanoid::Diagnostics::new();
        let mut retargeter = Retargeter::new(
            Side::new(&anim, "animation").expect("humanoid"),
            clip,
            Side::new(&model, "model").expect("humanoid"),
            &mut diagnostics,
        )
        .expect("retargeter");
        let mut sum = 0.0f32;
        let (mut locals, mut worlds) = (Vec::new(), Vec::new());
        for i in 0..1000 {
            retargeter.pose_into(duration * i as f32 / 999.0, &mut locals);
            humanoid::pose::retarget::world_matrices_into(&model, &locals, &mut worlds);
            sum += worlds.last().map_or(0.0, |m| m.translation.y);
        }
        divan::black_box(sum)
    });
}

/// The same 100,000-key bake with contacts (`retarget`'s default): compare with
/// `retarget_100k_keys` in the same run (target: at most 2×).
#[divan::bench(sample_count = 5)]
fn retarget_100k_keys_contacts(bencher: divan::Bencher) {
    let (asset, clip) = mannequin_with_long_clip();
    bencher.bench(|| {
        let mut diagnostics = humanoid::Diagnostics::new();
        humanoid::retarget::bake_contacts(asset, clip, asset, None, false, &mut diagnostics)
            .expect("bake")
    });
}

/// The mannequin's wave (it stands: both feet planted at every key) tiled to 100,000 keys,
/// with contacts and without: the solver at work on every key.
#[divan::bench(args = [false, true], sample_count = 5)]
fn standing_100k_keys(bencher: divan::Bencher, contacts: bool) {
    let (asset, clip) = standing_long_clip();
    bencher.bench(|| {
        let mut diagnostics = humanoid::Diagnostics::new();
        if contacts {
            humanoid::retarget::bake_contacts(asset, clip, asset, None, false, &mut diagnostics)
                .expect("bake")
                .0
        } else {
            humanoid::retarget::bake(asset, clip, asset, None, &mut diagnostics).expect("bake")
        }
    });
}

fn standing_long_clip() -> &'static (Asset, Clip) {
    static DATA: OnceLock<(Asset, Clip)> = OnceLock::new();
    DATA.get_or_init(|| {
        let (m, asset) = mannequin_asset();
        let wave = m.clips.iter().find(|c| c.name == "wave").expect("wave");
        let duration = wave.duration();
        let times: Vec<f32> = (0..KEYS).map(|k| k as f32 / 30.0).collect();
        let mut clip = Clip::new("standing");
        for track in wave.tracks() {
            let mut values = Vec::with_capacity(KEYS * track.components());
            let mut value = vec![0.0; track.components()];
            for &t in &times {
                track.sample(t % duration, &mut value);
                values.extend_from_slice(&value);
            }
            clip.add_track(
                Track::new(
                    track.target(),
                    track.property(),
                    Interpolation::Linear,
                    times.clone(),
                    values,
                )
                .expect("track"),
            );
        }
        (asset, clip)
    })
}
