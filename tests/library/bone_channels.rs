//! A clip stored as EXT_skeleton_humanoid channels (bone tracks) plays exactly as the same
//! motion stored as node channels: the mannequin's demo writes both encodings of `walk` and
//! `wave`, so every operation that samples a clip must give the same world poses for the two
//! files (a metamorphic check: the encoding changes, the answer must not).

use std::path::Path;

use humanoid::bone_pose::{pose, PoseOptions, PoseReport, Times};
use humanoid::retarget::{retarget, RetargetOptions};

fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    humanoid::demo::write_demo(dir.path(), false).unwrap();
    dir
}

fn sampled(model: &Path, anim: Option<&Path>, clip: Option<&str>) -> PoseReport {
    let options = PoseOptions {
        anim: anim.map(Path::to_path_buf),
        clip: clip.map(str::to_owned),
        times: Times::Uniform(9),
        ..PoseOptions::default()
    };
    pose(model, &options).unwrap()
}

/// The largest difference of any bone's position or rotation component over all samples
/// (rotations compared up to sign).
fn largest_difference(a: &PoseReport, b: &PoseReport) -> f32 {
    assert_eq!(a.samples.len(), b.samples.len());
    let mut largest = 0.0f32;
    for (x, y) in a.samples.iter().zip(&b.samples) {
        assert_eq!(x.bones.len(), y.bones.len());
        for (bone, p) in &x.bones {
            let q = &y.bones[bone];
            for (u, v) in p.p.iter().zip(&q.p) {
                largest = largest.max((u - v).abs());
            }
            // q and −q are one rotation.
            let sign = if p.q.iter().zip(&q.q).map(|(u, v)| u * v).sum::<f32>() < 0.0 {
                -1.0
            } else {
                1.0
            };
            for (u, v) in p.q.iter().zip(&q.q) {
                largest = largest.max((u - sign * v).abs());
            }
        }
    }
    largest
}

/// The motion moves the bones: a pose that ignored the clip would be the rest pose.
fn moves(report: &PoseReport) -> f32 {
    let rest = &report.rest;
    report
        .samples
        .iter()
        .flat_map(|s| s.bones.iter().map(|(b, t)| (rest[b].p[1] - t.p[1]).abs()))
        .fold(0.0, f32::max)
}

#[test]
fn a_files_own_bone_channels_pose_as_its_node_channels() {
    let dir = demo();
    let (nodes, ext) = (
        dir.path().join("mannequin.glb"),
        dir.path().join("mannequin_ext_clips.glb"),
    );
    for clip in ["walk", "wave"] {
        let (a, b) = (
            sampled(&nodes, None, Some(clip)),
            sampled(&ext, None, Some(clip)),
        );
        assert!(moves(&a) > 0.01, "{clip}: the clip moves");
        let d = largest_difference(&a, &b);
        assert!(
            d < 1e-5,
            "{clip}: bone channels differ from node channels by {d}"
        );
    }
}

#[test]
fn bone_channels_retargeted_pose_as_node_channels() {
    let dir = demo();
    let (nodes, ext) = (
        dir.path().join("mannequin.glb"),
        dir.path().join("mannequin_ext_clips.glb"),
    );
    for clip in ["walk", "wave"] {
        let a = sampled(&nodes, Some(&nodes), Some(clip));
        let b = sampled(&nodes, Some(&ext), Some(clip));
        assert!(moves(&b) > 0.01, "{clip}: the retargeted clip moves");
        let d = largest_difference(&a, &b);
        assert!(d < 1e-5, "{clip}: differ by {d}");
    }
}

#[test]
fn bone_channels_bake_into_the_same_clip() {
    let dir = demo();
    let (nodes, ext) = (
        dir.path().join("mannequin.glb"),
        dir.path().join("mannequin_ext_clips.glb"),
    );
    let (a, b) = (
        dir.path().join("from_nodes.glb"),
        dir.path().join("from_ext.glb"),
    );
    let options = RetargetOptions {
        clip: Some("wave".into()),
        ..RetargetOptions::default()
    };
    retarget(&nodes, &nodes, &a, &options).unwrap();
    retarget(&ext, &nodes, &b, &options).unwrap();
    let (pa, pb) = (
        sampled(&a, None, Some("wave")),
        sampled(&b, None, Some("wave")),
    );
    assert!(moves(&pb) > 0.01);
    let d = largest_difference(&pa, &pb);
    assert!(d < 1e-5, "baked clips differ by {d}");
}

#[test]
fn bone_channels_are_written_as_joint_motion_to_bvh_and_hanim() {
    let dir = demo();
    let (nodes, ext) = (
        dir.path().join("mannequin.glb"),
        dir.path().join("mannequin_ext_clips.glb"),
    );
    for extension in ["bvh", "x3d"] {
        let (a, b) = (
            dir.path().join(format!("nodes.{extension}")),
            dir.path().join(format!("ext.{extension}")),
        );
        let options = humanoid::ConvertOptions {
            clip: Some("walk".into()),
            ..humanoid::ConvertOptions::default()
        };
        humanoid::convert(&nodes, &a, &options).unwrap();
        humanoid::convert(&ext, &b, &options).unwrap();
        let (pa, pb) = (sampled(&a, None, None), sampled(&b, None, None));
        assert!(moves(&pb) > 0.01, "{extension}: the written clip moves");
        let d = largest_difference(&pa, &pb);
        assert!(d < 1e-4, "{extension}: written clips differ by {d}");
    }
}
