//! The bundled mannequin checked against independent evaluation: the `gltf` crate reads the
//! node-channel file and the clips are re-sampled here with a separate f64 lerp/slerp.

use humanoid::model::clip::{Property, TrackTarget};
use humanoid::model::HumanBone;

use crate::util::{assert_quat_close, demo, humanoid_ok, s};

/// Independent keyframe evaluation (glTF 2.0 Appendix C, LINEAR), in f64.
fn sample_linear(times: &[f32], values: &[[f64; 4]], t: f64, rotation: bool) -> [f64; 4] {
    if t <= times[0] as f64 {
        return values[0];
    }
    let last = times.len() - 1;
    if t >= times[last] as f64 {
        return values[last];
    }
    let k = times.iter().rposition(|&x| (x as f64) <= t).unwrap();
    let (t0, t1) = (times[k] as f64, times[k + 1] as f64);
    let u = (t - t0) / (t1 - t0);
    let (a, mut b) = (values[k], values[k + 1]);
    if !rotation {
        return std::array::from_fn(|i| a[i] + u * (b[i] - a[i]));
    }
    let mut dot: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    if dot < 0.0 {
        b = b.map(|x| -x);
        dot = -dot;
    }
    if dot > 0.9995 {
        let q: [f64; 4] = std::array::from_fn(|i| a[i] + u * (b[i] - a[i]));
        let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        return q.map(|x| x / n);
    }
    let theta = dot.acos();
    let (sa, sb) = (
        ((1.0 - u) * theta).sin() / theta.sin(),
        (u * theta).sin() / theta.sin(),
    );
    std::array::from_fn(|i| sa * a[i] + sb * b[i])
}

#[test]
fn node_channel_clips_sample_like_an_independent_reader() {
    let (_dir, nodes_file, _) = demo();
    let bytes = std::fs::read(&nodes_file).unwrap();
    let gltf = gltf::Gltf::from_slice(&bytes).expect("the gltf crate reads the mannequin");
    let blob = gltf.blob.clone().expect("BIN chunk");
    let asset = humanoid::read_asset(&nodes_file).expect("our reader").asset;

    let mut clips_checked = 0;
    for animation in gltf.animations() {
        let name = animation.name().expect("named clip");
        let clip = asset
            .clips
            .iter()
            .find(|c| c.name == name)
            .expect("same clip names");
        let mut channels = 0;
        for channel in animation.channels() {
            let node = channel.target().node();
            let reader = channel.reader(|_| Some(&blob[..]));
            let times: Vec<f32> = reader.read_inputs().unwrap().collect();
            let (values, property, rotation): (Vec<[f64; 4]>, Property, bool) =
                match reader.read_outputs().unwrap() {
                    gltf::animation::util::ReadOutputs::Rotations(r) => (
                        r.into_f32().map(|q| q.map(f64::from)).collect(),
                        Property::Rotation,
                        true,
                    ),
                    gltf::animation::util::ReadOutputs::Translations(t) => (
                        t.map(|v| [v[0] as f64, v[1] as f64, v[2] as f64, 0.0])
                            .collect(),
                        Property::Translation,
                        false,
                    ),
                    _ => panic!("the mannequin animates rotations and translations only"),
                };
            let joint = asset
                .skeleton
                .find(node.name().unwrap())
                .expect("joint by node name");
            let track = clip
                .tracks_for(TrackTarget::Joint(joint))
                .find(|t| t.property() == property)
                .expect("a track for each channel");
            let duration = *times.last().unwrap() as f64;
            let mut out = [0f32; 4];
            for i in 0..100 {
                let t = duration * i as f64 / 99.0;
                let expected = sample_linear(&times, &values, t, rotation);
                track.sample(t as f32, &mut out[..property.components()]);
                let got = out.map(f64::from);
                if rotation {
                    assert_quat_close(
                        got,
                        expected,
                        1e-6,
                        &format!("{name} {} rotation at {t}", node.name().unwrap()),
                    );
                } else {
                    for c in 0..3 {
                        assert!(
                            (got[c] - expected[c]).abs() <= 1e-6,
                            "{name} translation at {t}: {got:?} vs {expected:?}"
                        );
                    }
                }
            }
            channels += 1;
        }
        assert!(channels >= 10, "{name}: {channels} channels");
        clips_checked += 1;
    }
    assert!(clips_checked >= 2, "walk and wave");
}

#[test]
fn ext_channel_file_reads_back_to_the_same_clips() {
    let (_dir, nodes_file, ext_file) = demo();
    let nodes = humanoid::read_asset(&nodes_file).unwrap().asset;
    let ext = humanoid::read_asset(&ext_file).unwrap().asset;
    let humanoid = &nodes.humanoids[0];
    assert_eq!(ext.clips.len(), nodes.clips.len());
    let mut compared = 0;
    for (a, b) in nodes.clips.iter().zip(&ext.clips) {
        assert_eq!(a.name, b.name);
        for track in a.tracks() {
            let TrackTarget::Joint(joint) = track.target() else {
                panic!("node file has node tracks")
            };
            let bone = humanoid
                .bones
                .bone_of(joint)
                .expect("every mannequin joint is a bone");
            if track.property() != Property::Rotation {
                continue;
            }
            let ext_track = b
                .tracks_for(TrackTarget::Bone(bone))
                .find(|t| t.property() == Property::Rotation)
                .expect("EXT track for each bone track");
            // n_b = F_b · L_rest⁻¹ · L(t) · F_b⁻¹ for a model whose bone axes are F_b.
            let rest = nodes.skeleton.rest_local(joint).rotation.as_dquat();
            let frame = humanoid::pose::tpose::canonical_frame(bone).as_dquat();
            let mut local = [0f32; 4];
            let mut normalized = [0f32; 4];
            for i in 0..100 {
                let t = a.duration() * i as f32 / 99.0;
                track.sample(t, &mut local);
                ext_track.sample(t, &mut normalized);
                let l = glam::DQuat::from_array(local.map(f64::from));
                let expected = frame * rest.inverse() * l * frame.inverse();
                assert_quat_close(
                    normalized.map(f64::from),
                    expected.to_array(),
                    1e-6,
                    &format!("{} {bone} at {t}", a.name),
                );
            }
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared} rotation tracks compared");
    let _ = HumanBone::Hips;
}

#[test]
fn inspect_lists_55_mapped_bones() {
    let (_dir, nodes_file, ext_file) = demo();
    for file in [&nodes_file, &ext_file] {
        let run = humanoid_ok(&["inspect", "--json", s(file)]);
        let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let bones = report["skeletons"][0]["bones"]
            .as_array()
            .expect("bone table");
        assert_eq!(bones.len(), 55);
        assert_eq!(
            bones.iter().filter(|b| !b["node"].is_null()).count(),
            55,
            "all mapped"
        );
        assert!(report["clips"].as_array().unwrap().len() >= 2);
    }
    let run = humanoid_ok(&["validate", s(&nodes_file)]);
    assert!(!run.stdout.contains("error ["), "{}", run.stdout);
}

#[test]
fn committed_mannequin_matches_the_generator() {
    let (_dir, nodes_file, ext_file) = demo();
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for (generated, name) in [
        (nodes_file, "mannequin.glb"),
        (ext_file, "mannequin_ext_clips.glb"),
    ] {
        let fresh = humanoid::read_asset(&generated).unwrap().asset;
        let committed = humanoid::read_asset(&corpus.join(name))
            .unwrap_or_else(|e| {
                panic!("corpus/{name}: {e} (regenerate: cargo run -- demo -o corpus --force)")
            })
            .asset;
        assert_eq!(fresh.skeleton.names(), committed.skeleton.names(), "{name}");
        assert_eq!(fresh.humanoids, committed.humanoids, "{name}");
        for (a, b) in fresh
            .skeleton
            .rest_worlds()
            .iter()
            .zip(committed.skeleton.rest_worlds())
        {
            assert!(
                a.translation.abs_diff_eq(b.translation, 1e-6),
                "{name}: {a:?} vs {b:?}"
            );
        }
        assert_eq!(fresh.clips.len(), committed.clips.len());
        for (a, b) in fresh.clips.iter().zip(&committed.clips) {
            assert_eq!(a.tracks().len(), b.tracks().len(), "{name} {}", a.name);
            for (x, y) in a.tracks().iter().zip(b.tracks()) {
                assert_eq!(x.target(), y.target());
                assert_eq!(x.times(), y.times());
                let worst = x
                    .values()
                    .iter()
                    .zip(y.values())
                    .map(|(p, q)| (p - q).abs())
                    .fold(0f32, f32::max);
                assert!(
                    worst <= 1e-6,
                    "{name} {} {}: values differ by {worst}",
                    a.name,
                    x.target()
                );
            }
        }
    }
}
