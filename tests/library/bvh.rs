//! BVH read and write, checked against an independent evaluation written here: a
//! whitespace-token parser and f64 forward kinematics with hand-built rotation matrices
//! (`Rx`, `Ry`, `Rz` multiplied in channel order, the first listed outermost). Nothing here
//! computes an expected value with the code under test.
//!
//! Corpus tests (`../shared/corpus/bvh`) need `--features corpus`; the hand-written files
//! below need nothing.

use std::path::{Path, PathBuf};

use glam::{DQuat, DVec3, Quat, Vec3};
use humanoid::asset::Asset;
use humanoid::formats::bvh::{self, EulerOrder, ReadOptions, WriteOptions, CENTIMETRES, MAX_DEPTH};
use humanoid::formats::Format;
use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
use humanoid::model::skeleton::{JointId, RawJoint, Skeleton};
use humanoid::pose::{Interpolation, Trs};
use humanoid::{Error, Location};

// ---------------------------------------------------------------------------------------------
// The independent evaluation.

/// A joint as the test's own parser reads it.
#[derive(Debug, Clone)]
struct TestJoint {
    name: String,
    parent: Option<usize>,
    offset: [f64; 3],
    channels: Vec<String>,
    end_site: bool,
}

/// A BVH file as the test's own parser reads it.
#[derive(Debug, Clone)]
struct TestBvh {
    joints: Vec<TestJoint>,
    frames: usize,
    frame_time: f64,
    rows: Vec<Vec<f64>>,
}

/// Splits on whitespace and walks the grammar; names are single words, End Sites are named
/// `<parent>_End`. Panics on anything unexpected (test input only).
fn parse_test_bvh(text: &str) -> TestBvh {
    let mut words = text.split_whitespace();
    let mut next = || words.next().expect("more words");
    assert_eq!(next(), "HIERARCHY");
    let mut joints: Vec<TestJoint> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    loop {
        match next() {
            keyword @ ("ROOT" | "JOINT" | "End") => {
                let end_site = keyword == "End";
                let name = if end_site {
                    assert_eq!(next(), "Site");
                    format!("{}_End", joints[*stack.last().unwrap()].name)
                } else {
                    next().to_owned()
                };
                assert_eq!(next(), "{");
                joints.push(TestJoint {
                    name,
                    parent: stack.last().copied(),
                    offset: [0.0; 3],
                    channels: Vec::new(),
                    end_site,
                });
                stack.push(joints.len() - 1);
            }
            "OFFSET" => {
                let joint = &mut joints[*stack.last().unwrap()];
                for c in &mut joint.offset {
                    *c = next().parse().unwrap();
                }
            }
            "CHANNELS" => {
                let n: usize = next().parse().unwrap();
                let channels: Vec<String> = (0..n).map(|_| next().to_owned()).collect();
                joints[*stack.last().unwrap()].channels = channels;
            }
            "}" => {
                stack.pop();
            }
            "MOTION" => break,
            other => panic!("unexpected word {other:?}"),
        }
    }
    assert_eq!(next(), "Frames:");
    let frames: usize = next().parse().unwrap();
    assert_eq!(next(), "Frame");
    assert_eq!(next(), "Time:");
    let frame_time: f64 = next().parse().unwrap();
    let row_len: usize = joints.iter().map(|j| j.channels.len()).sum();
    let values: Vec<f64> = words.map(|w| w.parse().unwrap()).collect();
    assert_eq!(values.len(), frames * row_len, "motion values");
    let rows = values.chunks(row_len.max(1)).map(<[f64]>::to_vec).collect();
    TestBvh {
        joints,
        frames,
        frame_time,
        rows,
    }
}

type Mat = [[f64; 3]; 3];

const IDENTITY: Mat = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn mat_mul(a: &Mat, b: &Mat) -> Mat {
    let mut m = [[0.0; 3]; 3];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    m
}

fn mat_vec(a: &Mat, v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| a[i][0] * v[0] + a[i][1] * v[1] + a[i][2] * v[2])
}

/// The rotation of `degrees` about one axis, written out.
fn axis_matrix(axis: char, degrees: f64) -> Mat {
    let (s, c) = degrees.to_radians().sin_cos();
    match axis {
        'X' => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
        'Y' => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
        'Z' => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
        other => panic!("axis {other}"),
    }
}

/// World positions of every joint at `frame`, times `scale` (metres per file unit).
fn test_fk(bvh: &TestBvh, frame: usize, scale: f64) -> Vec<[f64; 3]> {
    let row = &bvh.rows[frame];
    let mut k = 0;
    let mut rotations: Vec<Mat> = Vec::new();
    let mut positions: Vec<[f64; 3]> = Vec::new();
    for joint in &bvh.joints {
        let mut t = joint.offset;
        let mut m = IDENTITY;
        for channel in &joint.channels {
            let v = row[k];
            k += 1;
            let axis = channel.chars().next().unwrap();
            match &channel[1..] {
                "position" => t["XYZ".find(axis).unwrap()] = v,
                "rotation" => m = mat_mul(&m, &axis_matrix(axis, v)),
                other => panic!("channel {other}"),
            }
        }
        let (parent_rotation, parent_position) = match joint.parent {
            Some(p) => (rotations[p], positions[p]),
            None => (IDENTITY, [0.0; 3]),
        };
        let d = mat_vec(&parent_rotation, t);
        positions.push([0, 1, 2].map(|i| parent_position[i] + d[i]));
        rotations.push(mat_mul(&parent_rotation, &m));
    }
    positions
        .into_iter()
        .map(|p| p.map(|c| c * scale))
        .collect()
}

/// World positions of every joint of the asset at key `frame` of its first clip: the stored key
/// values composed in f64 (`p = p_parent + R_parent · t`).
fn model_fk(asset: &Asset, frame: usize) -> Vec<[f64; 3]> {
    let skeleton = &asset.skeleton;
    let clip = &asset.clips[0];
    let mut world: Vec<(DQuat, DVec3)> = Vec::new();
    for id in skeleton.joints() {
        let rest = skeleton.rest_local(id);
        let target = TrackTarget::Joint(id);
        let rotation = clip
            .track(target, Property::Rotation)
            .map_or(rest.rotation, |t| Quat::from_slice(t.value(frame).unwrap()));
        let translation = clip
            .track(target, Property::Translation)
            .map_or(rest.translation, |t| {
                Vec3::from_slice(t.value(frame).unwrap())
            });
        let (parent_rotation, parent_position) = match skeleton.parent(id) {
            Some(p) => world[p.index()],
            None => (DQuat::IDENTITY, DVec3::ZERO),
        };
        world.push((
            parent_rotation * rotation.as_dquat().normalize(),
            parent_position + parent_rotation * translation.as_dvec3(),
        ));
    }
    world.into_iter().map(|(_, p)| p.to_array()).collect()
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The largest distance between corresponding joints.
#[track_caller]
fn max_error(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    assert_eq!(a.len(), b.len(), "joint counts");
    a.iter()
        .zip(b)
        .map(|(p, q)| distance(*p, *q))
        .fold(0.0, f64::max)
}

/// Reads, writes with `options`, and compares the written file's joint world positions (test
/// FK) with the original's at every frame. Returns the largest error in metres.
#[track_caller]
fn round_trip_error(text: &str, scale: f64, options: &WriteOptions) -> f64 {
    let read_options = ReadOptions {
        scale: Some(scale),
        ..ReadOptions::default()
    };
    let outcome = bvh::read(text, Path::new("in.bvh"), &read_options).expect("reads");
    let asset = &outcome.asset;
    // In the unit asked for (the writer would pick another where a reader guessing the unit
    // from the hips height would misread it).
    let options = &WriteOptions {
        pick_unit: false,
        ..options.clone()
    };
    let written = bvh::write(asset, &asset.clips[0], options).expect("writes");
    let original = parse_test_bvh(text);
    let copy = parse_test_bvh(&written);
    assert_eq!(copy.frames, original.frames, "frame count");
    assert_eq!(copy.joints.len(), original.joints.len(), "joint count");
    assert!(
        (copy.frame_time - original.frame_time).abs() < 1e-7,
        "frame time {} vs {}",
        copy.frame_time,
        original.frame_time
    );
    // Our reader reads it back too.
    let again = bvh::read(&written, Path::new("out.bvh"), &read_options).expect("reads back");
    assert_eq!(again.asset.skeleton.len(), asset.skeleton.len());
    (0..original.frames)
        .map(|f| {
            max_error(
                &test_fk(&original, f, scale),
                &test_fk(&copy, f, options.scale),
            )
        })
        .fold(0.0, f64::max)
}

/// The largest change of any rotation channel between consecutive frames, in degrees.
fn largest_angle_jump(bvh: &TestBvh) -> f64 {
    let rotation_slots: Vec<usize> = bvh
        .joints
        .iter()
        .flat_map(|j| j.channels.iter())
        .enumerate()
        .filter(|(_, c)| c.ends_with("rotation"))
        .map(|(i, _)| i)
        .collect();
    bvh.rows
        .windows(2)
        .flat_map(|w| {
            rotation_slots
                .iter()
                .map(move |&i| (w[1][i] - w[0][i]).abs())
        })
        .fold(0.0, f64::max)
}

#[track_caller]
fn invalid_at(
    result: Result<impl std::fmt::Debug, Error>,
    line: usize,
    column: usize,
    words: &str,
) {
    match result {
        Err(Error::Invalid {
            location: Location::LineColumn { line: l, column: c },
            message,
            ..
        }) => {
            assert_eq!((l, c), (line, column), "{message}");
            assert!(message.contains(words), "{message:?} should say {words:?}");
        }
        other => panic!("expected an invalid-input error at {line}:{column}, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-written files.

/// Hips (ZXY, 6 channels), a spine chain in ZYX, a leg with 6 channels in a scrambled order,
/// in centimetres; three frames.
const SMALL: &str = "\
HIERARCHY
ROOT Hips
{
\tOFFSET 1.5 92 -3
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
\tJOINT Spine
\t{
\t\tOFFSET 0 12 1
\t\tCHANNELS 3 Zrotation Yrotation Xrotation
\t\tJOINT Head
\t\t{
\t\t\tOFFSET 0 50 2
\t\t\tCHANNELS 3 Yrotation Xrotation Zrotation
\t\t\tEnd Site
\t\t\t{
\t\t\t\tOFFSET 0 15 0
\t\t\t}
\t\t}
\t}
\tJOINT LeftLeg
\t{
\t\tOFFSET 9 -4 0
\t\tCHANNELS 6 Zrotation Xposition Xrotation Yposition Zposition Yrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0 -88 5
\t\t}
\t}
}
MOTION
Frames: 3
Frame Time: 0.04
1.5 92 -3 0 0 0 0 0 0 0 0 0 0 9 0 -4 0 0
2 93 1 10 -20 30 5 -15 25 40 -60 170 -35 9.5 45 -4.5 0.5 80
-4 90.5 7 -120 85 -95 179 -179 90 -89 91 -1 60 8 -30 -3 1 -150
";

#[test]
fn hand_written_file_reads_into_the_model() {
    let outcome = bvh::read(
        SMALL,
        Path::new("dir/small walk.bvh"),
        &ReadOptions::default(),
    )
    .expect("reads");
    let asset = &outcome.asset;
    assert_eq!(asset.format, Format::Bvh);
    let names: Vec<&str> = asset.skeleton.names().iter().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "Hips",
            "Spine",
            "Head",
            "Head_End",
            "LeftLeg",
            "LeftLeg_End"
        ]
    );
    // Hips 92 above the lowest point (the foot at 92 − 4 − 88 = 0): centimetres, said as info.
    let units: Vec<_> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.code == "BVH_UNITS")
        .collect();
    assert_eq!(units.len(), 1);
    assert!(units[0].message.contains("centimetres"), "{}", units[0]);
    // Rest = OFFSETs in metres, no rotation.
    let spine = asset.skeleton.find("Spine").unwrap();
    let rest = asset.skeleton.rest_local(spine);
    assert!(rest
        .translation
        .abs_diff_eq(Vec3::new(0.0, 0.12, 0.01), 1e-7));
    assert_eq!(rest.rotation, Quat::IDENTITY);
    // One clip named after the file stem; times i × frame time.
    let clip = &asset.clips[0];
    assert_eq!(clip.name, "small walk");
    let rotation = clip
        .track(TrackTarget::Joint(spine), Property::Rotation)
        .unwrap();
    assert_eq!(rotation.interpolation(), Interpolation::Linear);
    assert_eq!(rotation.times(), &[0.0, 0.04, 0.08]);
    // Translation tracks only where there are position channels.
    assert!(clip
        .track(TrackTarget::Joint(spine), Property::Translation)
        .is_none());
    let leg = asset.skeleton.find("LeftLeg").unwrap();
    let leg_translation = clip
        .track(TrackTarget::Joint(leg), Property::Translation)
        .unwrap();
    // Frame 1: Xposition 9.5, Yposition -4.5, Zposition 0.5 (cm).
    let v = leg_translation.value(1).unwrap();
    assert!(Vec3::from_slice(v).abs_diff_eq(Vec3::new(0.095, -0.045, 0.005), 1e-7));
    // Quaternions are continuous in sign from frame to frame.
    for track in clip.tracks() {
        if track.property() == Property::Rotation {
            for k in 1..track.key_count() {
                let a = Quat::from_slice(track.value(k - 1).unwrap());
                let b = Quat::from_slice(track.value(k).unwrap());
                assert!(a.dot(b) >= 0.0, "key {k}: {a:?} then {b:?}");
            }
        }
    }
    // Forward kinematics of the model equals the independent evaluation.
    let parsed = parse_test_bvh(SMALL);
    for frame in 0..3 {
        let error = max_error(
            &model_fk(asset, frame),
            &test_fk(&parsed, frame, CENTIMETRES),
        );
        assert!(error < 1e-6, "frame {frame}: {error} m");
    }
}

#[test]
fn layout_keeps_channels_and_writes_the_same_file_back() {
    let (outcome, layout) =
        bvh::read_with_layout(SMALL, Path::new("small.bvh"), &ReadOptions::default()).unwrap();
    let asset = &outcome.asset;
    let leg = asset.skeleton.find("LeftLeg").unwrap();
    let channels: Vec<String> = layout
        .channels_of(leg)
        .unwrap()
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(
        channels,
        [
            "Zrotation",
            "Xposition",
            "Xrotation",
            "Yposition",
            "Zposition",
            "Yrotation"
        ]
    );
    assert!(layout.is_end_site(asset.skeleton.find("Head_End").unwrap()));
    let written = bvh::write(asset, &asset.clips[0], &WriteOptions::like(&layout)).unwrap();
    let copy = parse_test_bvh(&written);
    let original = parse_test_bvh(SMALL);
    for (a, b) in copy.joints.iter().zip(&original.joints) {
        assert_eq!(
            (&a.name, &a.channels, a.end_site),
            (&b.name, &b.channels, b.end_site)
        );
    }
    assert_eq!(copy.frame_time, 0.04);
    let error = round_trip_error(SMALL, CENTIMETRES, &WriteOptions::like(&layout));
    assert!(error < 1e-5, "{error} m");
}

#[test]
fn round_trip_keeps_world_positions_in_every_order() {
    // The default writes the leg's translation into nothing (3 channels on joints): the leg's
    // position channels animate, so only the layout or joint_positions keeps it. Use
    // joint_positions here.
    for order in EulerOrder::ALL {
        for scale in [CENTIMETRES, 1.0] {
            let options = WriteOptions {
                order,
                scale,
                joint_positions: true,
                ..WriteOptions::default()
            };
            let error = round_trip_error(SMALL, CENTIMETRES, &options);
            assert!(error < 1e-5, "{order} at scale {scale}: {error} m");
        }
    }
}

#[test]
fn animated_joint_translation_gets_position_channels() {
    let outcome = bvh::read(SMALL, Path::new("small.bvh"), &ReadOptions::default()).unwrap();
    let asset = &outcome.asset;
    let written =
        bvh::write_with_diagnostics(asset, &asset.clips[0], &WriteOptions::default()).unwrap();
    assert!(!written.diagnostics.contains("BVH_TRANSLATION_DROPPED"));
    assert!(written.diagnostics.contains("BVH_JOINT_POSITIONS"));
    let copy = parse_test_bvh(&written.text);
    assert_eq!(
        copy.joints[4].channels.len(),
        6,
        "LeftLeg: its positions too"
    );
    assert_eq!(copy.joints[1].channels.len(), 3, "Spine: rotations only");
    // Every joint where it was, at every frame (the test's own FK of both files).
    let error = round_trip_error(SMALL, CENTIMETRES, &WriteOptions::default());
    assert!(error < 1e-5, "{error} m");
}

/// A chain whose joints each sweep one axis from −150° to 150° (through ±90°) in the order
/// ZXY, with the other two angles drifting: whatever order is written, some joint's middle
/// angle passes gimbal lock.
fn gimbal_sweep() -> String {
    let mut text = String::from(
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 100 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n",
    );
    let names = ["SweepX", "SweepY", "SweepZ"];
    for (depth, name) in names.iter().enumerate() {
        let pad = " ".repeat(depth + 1);
        text += &format!(
            "{pad}JOINT {name}\n{pad}{{\n{pad} OFFSET 3 20 -2\n{pad} CHANNELS 3 Zrotation Xrotation Yrotation\n"
        );
    }
    text += "    End Site\n    {\n     OFFSET 5 25 4\n    }\n   }\n  }\n }\n}\n";
    let frames = 301;
    text += &format!("MOTION\nFrames: {frames}\nFrame Time: 0.0333333\n");
    for k in 0..frames {
        let sweep = -150.0 + k as f64;
        let drift = 0.2 * k as f64;
        // (Z, X, Y) per joint; the root sweeps X too.
        let joints = [
            [10.0 + drift, sweep, 30.0 - drift],
            [5.0 - drift, sweep, -20.0 + drift],
            [-15.0, 25.0 - drift, sweep],
            [sweep, -40.0 + drift, 12.0],
        ];
        let mut row = format!("{} 100 {}", 0.1 * k as f64, -0.05 * k as f64);
        for [z, x, y] in joints {
            row += &format!(" {z} {x} {y}");
        }
        text += &row;
        text += "\n";
    }
    text
}

#[test]
fn gimbal_lock_sweep_round_trips_without_jumps() {
    let text = gimbal_sweep();
    let outcome = bvh::read(&text, Path::new("sweep.bvh"), &ReadOptions::default()).unwrap();
    let asset = &outcome.asset;
    let source_jump = largest_angle_jump(&parse_test_bvh(&text));
    for order in EulerOrder::ALL {
        let options = WriteOptions {
            order,
            ..WriteOptions::default()
        };
        let error = round_trip_error(&text, CENTIMETRES, &options);
        assert!(error < 1e-5, "{order}: {error} m");
        let written = bvh::write(asset, &asset.clips[0], &options).unwrap();
        let jump = largest_angle_jump(&parse_test_bvh(&written));
        println!("gimbal sweep, written {order}: position error {error:.2e} m, largest angle step {jump:.2}° (source {source_jump:.2}°)");
        assert!(jump < 180.0, "{order}: a {jump}° jump between frames");
    }
}

/// A canonical skeleton whose rest rotates and scales joints, with a clip of rotation tracks,
/// a moving root, a static (bakeable) translation track and a static scale track.
fn rotated_rest_asset() -> (Asset, Clip, Vec<JointId>) {
    let raw = vec![
        RawJoint {
            name: "root".into(),
            parent: None,
            rest: Trs::new(
                Vec3::new(0.1, 1.0, -0.2),
                Quat::from_euler(glam::EulerRot::YXZ, 0.7, -0.3, 0.2),
                Vec3::ONE,
            ),
        },
        RawJoint {
            name: "upper".into(),
            parent: Some(0),
            rest: Trs::new(
                Vec3::new(0.0, 0.3, 0.05),
                Quat::from_rotation_z(1.2),
                Vec3::splat(1.5),
            ),
        },
        RawJoint {
            name: "lower".into(),
            parent: Some(1),
            rest: Trs::new(
                Vec3::new(0.25, 0.0, 0.0),
                Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), -0.8),
                Vec3::new(1.0, 0.8, 1.2),
            ),
        },
        RawJoint {
            name: "tip".into(),
            parent: Some(2),
            rest: Trs::new(
                Vec3::new(0.0, 0.2, 0.1),
                Quat::from_rotation_x(0.4),
                Vec3::ONE,
            ),
        },
        RawJoint {
            name: "side".into(),
            parent: Some(0),
            rest: Trs::new(
                Vec3::new(-0.15, -0.1, 0.0),
                Quat::from_rotation_y(-2.5),
                Vec3::ONE,
            ),
        },
        RawJoint {
            name: "side_tip".into(),
            parent: Some(4),
            rest: Trs::from_translation(Vec3::new(0.0, -0.4, 0.1)),
        },
    ];
    let (skeleton, ids) = Skeleton::from_raw(raw).unwrap();
    let keys = 24;
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / 24.0).collect();
    let mut clip = Clip::new("rest rotations");
    let rotation = |axis: Vec3, speed: f32, phase: f32| -> Vec<f32> {
        (0..keys)
            .flat_map(|k| {
                Quat::from_axis_angle(axis.normalize(), phase + speed * k as f32).to_array()
            })
            .collect()
    };
    let joint = |i: usize| TrackTarget::Joint(ids[i]);
    let mut add = |target, property, values: Vec<f32>| {
        clip.add_track(
            Track::new(
                target,
                property,
                Interpolation::Linear,
                times.clone(),
                values,
            )
            .unwrap(),
        );
    };
    add(
        joint(0),
        Property::Rotation,
        rotation(Vec3::new(0.2, 1.0, 0.1), 0.15, 0.3),
    );
    add(
        joint(1),
        Property::Rotation,
        rotation(Vec3::new(1.0, 0.0, 0.3), -0.2, 1.0),
    );
    add(
        joint(2),
        Property::Rotation,
        rotation(Vec3::new(0.0, 0.4, 1.0), 0.25, -0.5),
    );
    add(
        joint(3),
        Property::Rotation,
        rotation(Vec3::new(1.0, 1.0, 1.0), 0.1, 0.0),
    );
    add(
        joint(4),
        Property::Rotation,
        rotation(Vec3::new(0.3, -1.0, 0.5), 0.3, 2.0),
    );
    add(
        joint(0),
        Property::Translation,
        (0..keys)
            .flat_map(|k| {
                [
                    0.02 * k as f32,
                    1.0 + 0.01 * (k as f32).sin(),
                    -0.03 * k as f32,
                ]
            })
            .collect(),
    );
    // Static: every key the same, differing from the rest; baked into the OFFSET.
    add(
        joint(2),
        Property::Translation,
        [0.3f32, 0.05, -0.02].repeat(keys),
    );
    add(joint(1), Property::Scale, [1.5f32, 1.5, 1.5].repeat(keys));
    let asset = Asset::new(Format::Glb, skeleton, (0..6).collect());
    (asset, clip, ids)
}

/// Expected world positions at key `k`: the key values (or the rest) composed the way the
/// model composes TRS (`p = p_parent + R_parent · (S_parent ⊙ t)`, rotations and scales
/// multiplied), in f64.
fn expected_positions(asset: &Asset, clip: &Clip, k: usize) -> Vec<[f64; 3]> {
    let skeleton = &asset.skeleton;
    let mut world: Vec<(DQuat, DVec3, DVec3)> = Vec::new();
    for id in skeleton.joints() {
        let rest = skeleton.rest_local(id);
        let target = TrackTarget::Joint(id);
        let value = |property| clip.track(target, property).map(|t| t.value(k).unwrap());
        let r = value(Property::Rotation).map_or(rest.rotation, Quat::from_slice);
        let t = value(Property::Translation).map_or(rest.translation, Vec3::from_slice);
        let s = value(Property::Scale).map_or(rest.scale, Vec3::from_slice);
        let (pr, pp, ps) = match skeleton.parent(id) {
            Some(p) => world[p.index()],
            None => (DQuat::IDENTITY, DVec3::ZERO, DVec3::ONE),
        };
        world.push((
            pr * r.as_dquat().normalize(),
            pp + pr * (ps * t.as_dvec3()),
            ps * s.as_dvec3(),
        ));
    }
    world.into_iter().map(|(_, p, _)| p.to_array()).collect()
}

#[test]
fn rest_rotations_are_baked_keeping_world_positions() {
    let (asset, clip, _) = rotated_rest_asset();
    for order in [EulerOrder::Zxy, EulerOrder::Xyz, EulerOrder::Yzx] {
        for scale in [CENTIMETRES, 1.0] {
            let options = WriteOptions {
                order,
                scale,
                pick_unit: false,
                ..WriteOptions::default()
            };
            let written = bvh::write_with_diagnostics(&asset, &clip, &options).unwrap();
            // Nothing dropped: the static translation that differs from the rest is held by
            // position channels, the rest stays the OFFSETs.
            assert!(!written.diagnostics.contains("BVH_TRANSLATION_DROPPED"));
            assert!(!written.diagnostics.contains("BVH_SCALE_DROPPED"));
            assert!(!written.diagnostics.contains("BVH_LEAF_ROTATION_DROPPED"));
            let bvh = parse_test_bvh(&written.text);
            assert_eq!(bvh.frames, 24, "the key rate (24 fps) is kept");
            assert!((bvh.frame_time - 1.0 / 24.0).abs() < 1e-6);
            // Joints in skeleton order, each leaf a JOINT with an End Site: root, upper, lower,
            // tip, tip_End, side, side_tip, side_tip_End.
            assert_eq!(bvh.joints.len(), 8);
            assert!(!bvh.joints[3].end_site && bvh.joints[4].end_site && bvh.joints[7].end_site);
            assert_eq!(bvh.joints[2].channels.len(), 6, "lower: held off its rest");
            // The rest is the skeleton's (the OFFSETs), whatever the clip holds.
            let rest: Vec<[f64; 3]> = expected_positions(&asset, &Clip::new("rest"), 0);
            let written_rest = test_rest(&bvh, scale);
            for (i, j) in [(0, 0), (1, 1), (2, 2), (3, 3), (5, 4), (6, 5)] {
                let error = distance(written_rest[i], rest[j]);
                assert!(error < 1e-6, "rest of joint {j}: {error} m");
            }
            let mut worst = 0.0f64;
            for k in 0..24 {
                let written = test_fk(&bvh, k, scale);
                let expected = expected_positions(&asset, &clip, k);
                for (i, j) in [(0, 0), (1, 1), (2, 2), (3, 3), (5, 4), (6, 5)] {
                    worst = worst.max(distance(written[i], expected[j]));
                }
            }
            println!(
                "rest rotations baked, {order}, scale {scale}: max position error {worst:.2e} m"
            );
            assert!(worst < 1e-5, "{order} at {scale}: {worst} m");
            // Frame 0 of the root is its key 0 position.
            let rest_bvh = bvh.rows[0][..3]
                .iter()
                .map(|v| v * scale)
                .collect::<Vec<_>>();
            assert!((rest_bvh[1] - 1.0).abs() < 1e-6);
        }
    }
}

#[test]
fn keys_on_a_coarse_grid_are_taken_and_fps_overrides() {
    let (asset, _, ids) = rotated_rest_asset();
    let mut clip = Clip::new("irregular");
    clip.add_track(
        Track::new(
            TrackTarget::Joint(ids[1]),
            Property::Rotation,
            Interpolation::Linear,
            vec![0.0, 0.1, 0.5, 1.0],
            // The rest rotation at every key: the pose stays the rest pose.
            [asset.skeleton.rest_local(ids[1]).rotation.to_array(); 4].concat(),
        )
        .unwrap(),
    );
    let bvh = parse_test_bvh(&bvh::write(&asset, &clip, &WriteOptions::default()).unwrap());
    // Every key lies on a 10 fps grid: its frames.
    assert_eq!(bvh.frames, 11);
    assert!((bvh.frame_time - 0.1).abs() < 1e-12);
    let options = WriteOptions {
        fps: Some(20.0),
        pick_unit: false,
        ..WriteOptions::default()
    };
    let bvh = parse_test_bvh(&bvh::write(&asset, &clip, &options).unwrap());
    assert_eq!(bvh.frames, 21);
    // Rest pose throughout: every world position is the skeleton's rest world position.
    let rest: Vec<[f64; 3]> = asset
        .skeleton
        .rest_worlds()
        .iter()
        .map(|w| w.translation.as_dvec3().to_array())
        .collect();
    let written = test_fk(&bvh, 5, CENTIMETRES);
    for (i, j) in [(0, 0), (1, 1), (2, 2), (3, 3), (5, 4), (6, 5)] {
        assert!(distance(written[i], rest[j]) < 1e-5);
    }
    let bad = WriteOptions {
        fps: Some(0.0),
        ..WriteOptions::default()
    };
    assert!(matches!(
        bvh::write(&asset, &clip, &bad),
        Err(Error::Unsupported { .. })
    ));
}

#[test]
fn layout_for_another_skeleton_is_ignored_with_a_warning() {
    let (_, layout) =
        bvh::read_with_layout(SMALL, Path::new("small.bvh"), &ReadOptions::default()).unwrap();
    let (asset, clip, _) = rotated_rest_asset();
    let written = bvh::write_with_diagnostics(&asset, &clip, &WriteOptions::like(&layout)).unwrap();
    assert!(written.diagnostics.contains("BVH_LAYOUT_MISMATCH"));
}

#[test]
fn several_roots_and_a_byte_order_mark() {
    let two = format!(
        "\u{feff}{HEADER}ROOT Prop\n{{\n OFFSET 50 0 0\n CHANNELS 3 Yrotation Xrotation Zrotation\n}}\n\
         MOTION\nFrames: 2\nFrame Time: 0.1\n0 90 0 0 0 0 0 0 0\n1 91 2 10 20 30 40 50 60\n"
    );
    let outcome = bvh::read(&two, Path::new("two.bvh"), &ReadOptions::default()).unwrap();
    let skeleton = &outcome.asset.skeleton;
    let roots = skeleton
        .joints()
        .filter(|&j| skeleton.parent(j).is_none())
        .count();
    assert_eq!(roots, 2);
    // The second root has no position channels and no children: written back as a ROOT with
    // the default channels, and every world position kept.
    let error = round_trip_error(
        two.trim_start_matches('\u{feff}'),
        CENTIMETRES,
        &WriteOptions::default(),
    );
    assert!(error < 1e-5, "{error} m");
}

// ---------------------------------------------------------------------------------------------
// Bad input: an error with line:column, never a panic.

fn read_str(text: &str) -> Result<humanoid::ReadOutcome, Error> {
    bvh::read(text, Path::new("bad.bvh"), &ReadOptions::default())
}

const HEADER: &str = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n End Site\n {\n  OFFSET 0 90 0\n }\n}\n";

#[test]
fn missing_motion_section() {
    invalid_at(read_str(HEADER), 11, 1, "missing MOTION");
    invalid_at(
        read_str("HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n"),
        5,
        1,
        "expected `}`",
    );
}

#[test]
fn row_with_the_wrong_number_of_values() {
    let short = format!("{HEADER}MOTION\nFrames: 2\nFrame Time: 0.1\n1 2 3 4 5 6\n1 2 3 4 5\n");
    invalid_at(read_str(&short), 15, 10, "5 values, expected 6");
    let long = format!("{HEADER}MOTION\nFrames: 1\nFrame Time: 0.1\n1 2 3 4 5 6 7\n");
    invalid_at(read_str(&long), 14, 13, "more than 6 values");
}

#[test]
fn unknown_channel_name() {
    let text = HEADER.replace("Zrotation", "Zrot");
    invalid_at(read_str(&text), 5, 43, "unknown channel \"Zrot\"");
    let seven = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 7 Xposition";
    invalid_at(read_str(seven), 5, 11, "at most 6");
}

#[test]
fn frames_disagreeing_with_the_rows() {
    let fewer = format!("{HEADER}MOTION\nFrames: 3\nFrame Time: 0.1\n1 2 3 4 5 6\n");
    invalid_at(
        read_str(&fewer),
        15,
        1,
        "`Frames: 3` (at 12:9) but 1 motion rows",
    );
    let more = format!("{HEADER}MOTION\nFrames: 1\nFrame Time: 0.1\n1 2 3 4 5 6\n\n1 2 3 4 5 6\n");
    invalid_at(read_str(&more), 16, 1, "more motion rows");
}

#[test]
fn non_numeric_values() {
    let row = format!("{HEADER}MOTION\nFrames: 1\nFrame Time: 0.1\n1 2 x3 4 5 6\n");
    invalid_at(read_str(&row), 14, 5, "found \"x3\"");
    let nan = format!("{HEADER}MOTION\nFrames: 1\nFrame Time: 0.1\n1 2 NaN 4 5 6\n");
    invalid_at(read_str(&nan), 14, 5, "finite");
    let offset = HEADER.replace("OFFSET 0 90 0", "OFFSET 0 ninety 0");
    invalid_at(read_str(&offset), 8, 12, "OFFSET component");
    let frames = format!("{HEADER}MOTION\nFrames: 2.5\nFrame Time: 0.1\n");
    invalid_at(read_str(&frames), 12, 9, "whole number");
}

#[test]
fn nesting_deeper_than_the_limit() {
    let mut text = String::from("HIERARCHY\nROOT J0\n{\nOFFSET 0 0 0\n");
    for i in 1..=MAX_DEPTH + 10 {
        text += &format!("JOINT J{i}\n{{\nOFFSET 0 1 0\n");
    }
    // The joint that would open level MAX_DEPTH + 1 is refused, at its keyword.
    let line = 5 + 3 * (MAX_DEPTH - 1);
    invalid_at(read_str(&text), line, 1, "deeper than 256");
}

#[test]
fn frame_time_must_be_positive() {
    let negative = format!("{HEADER}MOTION\nFrames: 1\nFrame Time: -0.1\n1 2 3 4 5 6\n");
    invalid_at(read_str(&negative), 13, 13, "positive");
    let zero = format!("{HEADER}MOTION\nFrames: 1\nFrame Time: 0\n1 2 3 4 5 6\n");
    invalid_at(read_str(&zero), 13, 13, "positive");
}

#[test]
fn file_larger_than_the_limit() {
    let text = format!("{HEADER}MOTION\nFrames: 1\nFrame Time: 0.1\n1 2 3 4 5 6\n");
    let options = ReadOptions {
        max_bytes: 100,
        ..ReadOptions::default()
    };
    let message = bvh::read(&text, Path::new("big.bvh"), &options)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("larger than the limit of 100 bytes"),
        "{message}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.bvh");
    std::fs::write(&path, &text).unwrap();
    let message = bvh::read_asset(&path, &options).unwrap_err().to_string();
    assert!(message.contains("larger than the limit"), "{message}");
    // Within the limit, from disk.
    let outcome = bvh::read_asset(&path, &ReadOptions::default()).unwrap();
    assert_eq!(outcome.asset.clips[0].name, "big");
}

#[test]
fn too_many_frames_times_channels_is_refused_before_allocating() {
    let text = format!("{HEADER}MOTION\nFrames: 4000000000000\nFrame Time: 0.1\n");
    invalid_at(read_str(&text), 12, 9, "more than the limit");
    let options = ReadOptions {
        max_values: 11,
        ..ReadOptions::default()
    };
    let two = format!("{HEADER}MOTION\nFrames: 2\nFrame Time: 0.1\n");
    invalid_at(
        bvh::read(&two, Path::new("bad.bvh"), &options),
        12,
        9,
        "12 values",
    );
}

#[test]
fn truncated_and_mangled_input_never_panics() {
    for cut in 0..=SMALL.len() {
        if let Some(prefix) = SMALL.get(..cut) {
            let _ = read_str(prefix);
        }
    }
    for (i, _) in SMALL.char_indices().step_by(7) {
        let mut mangled = SMALL.to_owned();
        mangled.replace_range(i..i + 1, "}");
        let _ = read_str(&mangled);
    }
}

proptest::proptest! {
    #[test]
    fn token_soup_never_panics(words in proptest::collection::vec(
        proptest::sample::select(vec![
            "HIERARCHY", "ROOT", "JOINT", "End", "Site", "{", "}", "OFFSET", "CHANNELS", "3", "6",
            "Xposition", "Zrotation", "Yrotation", "Xrotation", "MOTION", "Frames:", "Frame",
            "Time:", "0.1", "-1", "1e400", "\n", "\r\n", "é", "",
        ]),
        0..80,
    )) {
        let text = words.join(" ");
        let _ = read_str(&text);
        let with_header = format!("HIERARCHY ROOT a {{ {text}");
        let _ = read_str(&with_header);
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus.

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/bvh")
}

/// The corpus files with the unit each is in (metres per file unit): the MANIFEST's
/// centimetres for MocapBank and Mixamo; CMU's 3dsMax conversion is in CMU units of 1/0.45 in.
#[cfg(feature = "corpus")]
fn corpus() -> Vec<(PathBuf, f64)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bvh"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "corpus files: {files:?}");
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let scale = if name.starts_with("cmu") {
                0.0254 / 0.45
            } else {
                CENTIMETRES
            };
            (p, scale)
        })
        .collect()
}

#[cfg(feature = "corpus")]
#[test]
fn corpus_reads_with_the_files_counts() {
    for (path, _) in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        // Counted from the text, word by word.
        let words: Vec<&str> = text.split_whitespace().collect();
        let joints = words
            .iter()
            .filter(|w| **w == "ROOT" || **w == "JOINT")
            .count();
        let end_sites = words.windows(2).filter(|w| w == &["End", "Site"]).count();
        let at = |key: &str| words.iter().position(|w| *w == key).unwrap();
        let frames: usize = words[at("Frames:") + 1].parse().unwrap();
        let frame_time: f64 = words[at("Time:") + 1].parse().unwrap();
        let motion_line = text.lines().position(|l| l.trim() == "MOTION").unwrap();
        let rows = text
            .lines()
            .skip(motion_line + 3)
            .filter(|l| !l.trim().is_empty())
            .count();
        assert_eq!(rows, frames, "{}: rows", path.display());

        let (outcome, layout) =
            bvh::read_asset_with_layout(&path, &ReadOptions::default()).unwrap();
        let asset = &outcome.asset;
        assert_eq!(
            asset.skeleton.len(),
            joints + end_sites,
            "{}",
            path.display()
        );
        let end_site_count = (0..asset.skeleton.len())
            .filter(|&i| layout.is_end_site(asset.skeleton.joint(i)))
            .count();
        assert_eq!(end_site_count, end_sites);
        assert_eq!(layout.frame_time(), frame_time);
        let clip = &asset.clips[0];
        let root = asset.skeleton.joint(0);
        let track = clip
            .track(TrackTarget::Joint(root), Property::Rotation)
            .unwrap();
        assert_eq!(track.key_count(), frames, "{}", path.display());
        let last = track.times()[frames - 1] as f64;
        assert!((last - (frames - 1) as f64 * frame_time).abs() < 1e-5);
        // Every joint (not End Site) has a rotation track.
        let rotation_tracks = clip
            .tracks()
            .iter()
            .filter(|t| t.property() == Property::Rotation)
            .count();
        assert_eq!(rotation_tracks, joints);
        println!(
            "{}: {joints} joints + {end_sites} End Sites, {frames} frames at {frame_time} s; units: {}",
            path.file_name().unwrap().to_string_lossy(),
            outcome
                .diagnostics
                .iter()
                .find(|d| d.code.starts_with("BVH_UNITS"))
                .unwrap()
        );
    }
}

#[cfg(feature = "corpus")]
#[test]
fn corpus_units_are_detected() {
    for (path, _) in corpus() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (outcome, layout) =
            bvh::read_asset_with_layout(&path, &ReadOptions::default()).unwrap();
        if name.starts_with("cmu") {
            // Hips ≈ 15.4 units above the toes: the CMU database's unit of 1/0.45 inch.
            assert!((layout.metres_per_unit() - 0.0254 / 0.45).abs() < 1e-12);
            assert!(outcome.diagnostics.contains("BVH_UNITS"));
        } else {
            assert_eq!(layout.metres_per_unit(), CENTIMETRES, "{name}");
            assert!(outcome.diagnostics.contains("BVH_UNITS"));
        }
    }
}

#[cfg(feature = "corpus")]
#[test]
fn corpus_forward_kinematics_matches_the_independent_evaluation() {
    for (path, scale) in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = parse_test_bvh(&text);
        let options = ReadOptions {
            scale: Some(scale),
            ..ReadOptions::default()
        };
        let outcome = bvh::read(&text, &path, &options).unwrap();
        let asset = &outcome.asset;
        let names: Vec<&str> = parsed.joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(asset.skeleton.names(), names.as_slice());
        let mut worst = 0.0f64;
        for i in 0..10 {
            let frame = i * (parsed.frames - 1) / 9;
            let error = max_error(&model_fk(asset, frame), &test_fk(&parsed, frame, scale));
            worst = worst.max(error);
        }
        println!(
            "{}: max FK error over 10 frames {worst:.2e} m",
            path.file_name().unwrap().to_string_lossy()
        );
        assert!(worst < 1e-6, "{}: {worst} m", path.display());
    }
}

#[cfg(feature = "corpus")]
#[test]
fn corpus_round_trips_keep_world_positions() {
    for (path, scale) in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        let (_, layout) = bvh::read_with_layout(
            &text,
            &path,
            &ReadOptions {
                scale: Some(scale),
                ..ReadOptions::default()
            },
        )
        .unwrap();
        let cases = [
            ("same layout", WriteOptions::like(&layout)),
            ("ZXY", WriteOptions::default()),
            (
                "XYZ",
                WriteOptions {
                    order: EulerOrder::Xyz,
                    ..WriteOptions::default()
                },
            ),
            (
                "YZX in metres",
                WriteOptions {
                    order: EulerOrder::Yzx,
                    scale: 1.0,
                    ..WriteOptions::default()
                },
            ),
        ];
        for (label, options) in cases {
            let error = round_trip_error(&text, scale, &options);
            println!(
                "{}: round trip ({label}) max position error {error:.2e} m",
                path.file_name().unwrap().to_string_lossy()
            );
            assert!(error < 1e-5, "{} {label}: {error} m", path.display());
        }
    }
}

#[cfg(not(feature = "corpus"))]
#[test]
fn corpus_dir_is_where_the_corpus_tests_look() {
    assert!(corpus_dir().ends_with("shared/corpus/bvh"));
}

/// Runs `humanoid` (the binary) with `args`; panics with its output unless it exits 0.
#[cfg(feature = "corpus")]
fn humanoid_cli(args: &[&str]) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_humanoid"))
        .args(args)
        .output()
        .expect("run humanoid");
    assert!(
        output.status.success(),
        "humanoid {args:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs a Blender script (HUMANOID_BLENDER = the blender binary; the scripts are in
/// ../shared/tools/blender-gltf) and returns its JSON, or `None` (with a note) when Blender is
/// not installed here.
#[cfg(feature = "corpus")]
fn blender(script: &str, args: &[&str]) -> Option<serde_json::Value> {
    let Ok(binary) = std::env::var("HUMANOID_BLENDER") else {
        eprintln!("HUMANOID_BLENDER is not set: the Blender checks are skipped");
        return None;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/tools/blender-gltf")
        .join(script);
    let output = std::process::Command::new(binary)
        .args(["-b", "--factory-startup", "--python"])
        .arg(&script)
        .arg("--")
        .args(args)
        .output()
        .expect("run blender");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("BLENDER_JSON "))
        .unwrap_or_else(|| panic!("blender printed no result for {args:?}: {stdout}"));
    Some(serde_json::from_str(line).expect("blender JSON"))
}

/// BVH → GLB: the Khronos validator finds no error, and Blender's glTF importer builds an
/// armature with every joint, whose heads at three frames stand where an independent forward
/// kinematics of the BVH text puts them (1e-4 m). Blender plays at 24 fps: its frame f is the
/// BVH's time f/24, picked where that falls on a BVH frame.
#[cfg(feature = "corpus")]
#[test]
fn bvh_to_glb_validates_and_imports_in_blender_with_the_same_joints() {
    let dir = tempfile::tempdir().unwrap();
    for (path, scale) in corpus() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let glb = dir.path().join(format!("{name}.glb"));
        humanoid_cli(&["convert", path.to_str().unwrap(), glb.to_str().unwrap()]);
        if let Ok(validator) = std::env::var("HUMANOID_GLTF_VALIDATOR") {
            let out = std::process::Command::new("node")
                .arg(validator)
                .arg(&glb)
                .output()
                .unwrap();
            let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(report["errors"], 0, "{name}: {report}");
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let bvh = parse_test_bvh(&text);
        let frames_per_blender_frame = 1.0 / (24.0 * bvh.frame_time);
        let blender_frames: Vec<usize> = (0..2000usize)
            .filter(|f| {
                let k = *f as f64 * frames_per_blender_frame;
                (k - k.round()).abs() < 1e-6 && (k.round() as usize) < bvh.frames
            })
            .take(40)
            .collect();
        let picks = [
            blender_frames[0],
            blender_frames[blender_frames.len() / 2],
            blender_frames[blender_frames.len() - 1],
        ];
        for f in picks {
            let Some(imported) = blender(
                "blender_import.py",
                &[glb.to_str().unwrap(), "--frame", &f.to_string()],
            ) else {
                return;
            };
            assert_eq!(imported["ok"], true, "{name}");
            let bones = imported["armatures"][0]["bones"]
                .as_object()
                .expect("an armature");
            assert_eq!(
                bones.len(),
                bvh.joints.len(),
                "{name}: every joint (End Sites included) is a bone"
            );
            let k = (f as f64 * frames_per_blender_frame).round() as usize;
            let expected = test_fk(&bvh, k, scale);
            let mut worst = 0.0f64;
            for (joint, e) in bvh.joints.iter().zip(&expected) {
                let head = &bones[&joint.name];
                let b = [0, 1, 2].map(|i| head[i].as_f64().unwrap());
                worst = worst.max(distance(b, *e));
            }
            assert!(
                worst <= 1e-4,
                "{name}, Blender frame {f} (BVH frame {k}): joints {worst:e} m off"
            );
        }
    }
}

/// The BVH we write opens in Blender's own BVH importer with the same joint and frame counts.
#[cfg(feature = "corpus")]
#[test]
fn bvh_we_write_imports_in_blenders_bvh_importer() {
    let dir = tempfile::tempdir().unwrap();
    for (path, _) in corpus() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("{name}_xyz.bvh"));
        humanoid_cli(&[
            "convert",
            path.to_str().unwrap(),
            out.to_str().unwrap(),
            "--bvh-order",
            "XYZ",
        ]);
        let text = std::fs::read_to_string(&out).unwrap();
        let written = parse_test_bvh(&text);
        let Some(imported) = blender("blender_bvh.py", &[out.to_str().unwrap()]) else {
            return;
        };
        assert_eq!(imported["ok"], true, "{name}");
        let joints = written.joints.iter().filter(|j| !j.end_site).count();
        assert_eq!(imported["bones"], joints, "{name}: bones");
        assert_eq!(imported["frames"], written.frames, "{name}: frames");
        let original = parse_test_bvh(&std::fs::read_to_string(&path).unwrap());
        assert_eq!(
            written.frames, original.frames,
            "{name}: every frame written"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// BVH → BVH through the command: every joint, End Site and frame stays.

/// A CMU-shaped BVH written here: the 3dsMax-friendly names (so the cmu-bvh-3dsmax table maps
/// it) with the joints no humanoid bone takes (`LHipJoint`, `lhand`, `LFingers`, `LThumb`, …),
/// 31 joints, 7 End Sites, 12 frames at 120 fps, every rotation channel moving.
fn cmu_shaped_bvh() -> String {
    // (name, parent, offset); a joint without children gets an End Site 1 unit along its bone.
    let joints: &[(&str, Option<usize>, [f64; 3])] = &[
        ("Hips", None, [0.0, 0.0, 0.0]),
        ("LHipJoint", Some(0), [0.0, 0.0, 0.0]),
        ("LeftHip", Some(1), [1.2, -1.6, 0.7]),
        ("LeftKnee", Some(2), [2.5, -6.9, 0.0]),
        ("LeftAnkle", Some(3), [2.4, -6.5, 0.0]),
        ("LeftToe", Some(4), [0.1, -0.4, 2.2]),
        ("RHipJoint", Some(0), [0.0, 0.0, 0.0]),
        ("RightHip", Some(6), [-1.2, -1.6, 0.7]),
        ("RightKnee", Some(7), [-2.5, -6.8, 0.0]),
        ("RightAnkle", Some(8), [-2.4, -6.6, 0.0]),
        ("RightToe", Some(9), [-0.2, -0.5, 2.0]),
        ("lowerback", Some(0), [0.0, 0.0, 0.0]),
        ("Chest", Some(11), [0.0, 2.0, 0.0]),
        ("Chest2", Some(12), [0.0, 2.0, 0.0]),
        ("lowerneck", Some(13), [0.0, 0.0, 0.0]),
        ("Neck", Some(14), [0.0, 1.6, 0.1]),
        ("Head", Some(15), [0.0, 1.6, 0.0]),
        ("LeftCollar", Some(13), [0.0, 0.0, 0.0]),
        ("LeftShoulder", Some(17), [3.0, 1.5, 0.0]),
        ("LeftElbow", Some(18), [0.0, -4.3, 0.0]),
        ("LeftWrist", Some(19), [0.0, -3.3, 0.0]),
        ("lhand", Some(20), [0.0, 0.0, 0.0]),
        ("LFingers", Some(21), [0.0, -0.7, 0.0]),
        ("LThumb", Some(20), [0.0, 0.0, 0.0]),
        ("RightCollar", Some(13), [0.0, 0.0, 0.0]),
        ("RightShoulder", Some(24), [-2.8, 1.3, -0.2]),
        ("RightElbow", Some(25), [0.0, -4.5, 0.0]),
        ("RightWrist", Some(26), [0.0, -3.4, 0.0]),
        ("rhand", Some(27), [0.0, 0.0, 0.0]),
        ("RFingers", Some(28), [0.0, -0.6, 0.0]),
        ("RThumb", Some(27), [0.0, 0.0, 0.0]),
    ];
    fn block(joints: &[(&str, Option<usize>, [f64; 3])], i: usize, depth: usize, out: &mut String) {
        let pad = "\t".repeat(depth);
        let (name, parent, [x, y, z]) = joints[i];
        let keyword = if parent.is_none() { "ROOT" } else { "JOINT" };
        out.push_str(&format!("{pad}{keyword} {name}\n{pad}{{\n"));
        out.push_str(&format!("{pad}\tOFFSET {x} {y} {z}\n"));
        if parent.is_none() {
            out.push_str(&format!(
                "{pad}\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n"
            ));
        } else {
            out.push_str(&format!(
                "{pad}\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
            ));
        }
        let children: Vec<usize> = (0..joints.len())
            .filter(|&c| joints[c].1 == Some(i))
            .collect();
        if children.is_empty() {
            out.push_str(&format!(
                "{pad}\tEnd Site\n{pad}\t{{\n{pad}\t\tOFFSET 0 -1 0.5\n{pad}\t}}\n"
            ));
        }
        for c in children {
            block(joints, c, depth + 1, out);
        }
        out.push_str(&format!("{pad}}}\n"));
    }
    let mut text = String::from("HIERARCHY\n");
    block(joints, 0, 0, &mut text);
    let frames = 12;
    text.push_str(&format!(
        "MOTION\nFrames: {frames}\nFrame Time: 0.0083333\n"
    ));
    for f in 0..frames {
        let mut row = vec![
            format!("{}", 0.3 * f as f64),
            format!("{}", 16.0 + 0.1 * (f as f64).sin()),
            format!("{}", -0.2 * f as f64),
        ];
        for j in 0..joints.len() {
            for c in 0..3 {
                let angle = 25.0 * ((f as f64) * 0.4 + j as f64 * 0.7 + c as f64).sin();
                row.push(format!("{angle:.4}"));
            }
        }
        text.push_str(&row.join(" "));
        text.push('\n');
    }
    text
}

/// Runs the `humanoid` binary; panics with its output unless it exits 0. Returns stdout.
fn run_humanoid(args: &[&str]) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_humanoid"))
        .args(args)
        .output()
        .expect("run humanoid");
    assert!(
        output.status.success(),
        "humanoid {args:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What a same-kind conversion must keep, read from both texts by the test's own parser: the
/// joints (names, parents, End Sites), the frame count and time, and every joint's world
/// position at every frame (in the files' own unit). Returns the largest position error.
#[track_caller]
fn assert_same_bvh(original: &TestBvh, copy: &TestBvh, what: &str) -> f64 {
    let shape = |b: &TestBvh| -> Vec<(String, Option<usize>, bool)> {
        b.joints
            .iter()
            .map(|j| (j.name.clone(), j.parent, j.end_site))
            .collect()
    };
    assert_eq!(shape(copy), shape(original), "{what}: joints and End Sites");
    assert_eq!(copy.frames, original.frames, "{what}: frames");
    assert!(
        (copy.frame_time - original.frame_time).abs() < 1e-9,
        "{what}: frame time {} vs {}",
        copy.frame_time,
        original.frame_time
    );
    (0..original.frames)
        .map(|f| max_error(&test_fk(original, f, 1.0), &test_fk(copy, f, 1.0)))
        .fold(0.0, f64::max)
}

#[test]
fn bvh_to_bvh_keeps_every_joint_end_site_and_frame() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("cmu_shaped.bvh");
    std::fs::write(&input, cmu_shaped_bvh()).unwrap();
    let output = dir.path().join("copy.bvh");
    let stdout = run_humanoid(&["convert", input.to_str().unwrap(), output.to_str().unwrap()]);
    assert!(
        stdout.contains("cmu-bvh-3dsmax"),
        "the rig is mapped (what used to cut it down): {stdout}"
    );
    assert!(!stdout.contains("NON_JOINT_NODES_DROPPED"), "{stdout}");
    let original = parse_test_bvh(&std::fs::read_to_string(&input).unwrap());
    let copy = parse_test_bvh(&std::fs::read_to_string(&output).unwrap());
    assert_eq!(original.joints.len(), 38, "31 joints and 7 End Sites");
    let error = assert_same_bvh(&original, &copy, "BVH -> BVH");
    // 4 decimals of a degree over chains ~15 units long.
    assert!(error < 1e-3, "joints {error} units off");
    // The channels are the input's (same order per joint).
    for (a, b) in original.joints.iter().zip(&copy.joints) {
        assert_eq!(a.channels, b.channels, "{}", a.name);
    }

    // Another channel order keeps the joints and the frame time too.
    let xyz = dir.path().join("xyz.bvh");
    run_humanoid(&[
        "convert",
        input.to_str().unwrap(),
        xyz.to_str().unwrap(),
        "--bvh-order",
        "XYZ",
    ]);
    let copy = parse_test_bvh(&std::fs::read_to_string(&xyz).unwrap());
    let error = assert_same_bvh(&original, &copy, "BVH -> BVH (XYZ)");
    assert!(error < 1e-3, "XYZ: joints {error} units off");
}

/// Every corpus BVH → BVH keeps its joints, End Sites, frames and frame time (the test's own
/// parser on both texts), every joint where the input's forward kinematics puts it, and
/// Blender's BVH importer builds as many bones and frames from the copy as from the input.
#[cfg(feature = "corpus")]
#[test]
fn corpus_bvh_to_bvh_keeps_every_joint_and_frame_in_blender_too() {
    let dir = tempfile::tempdir().unwrap();
    for (path, _) in corpus() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("{name}.bvh"));
        humanoid_cli(&["convert", path.to_str().unwrap(), out.to_str().unwrap()]);
        let original = parse_test_bvh(&std::fs::read_to_string(&path).unwrap());
        let copy = parse_test_bvh(&std::fs::read_to_string(&out).unwrap());
        let error = assert_same_bvh(&original, &copy, &name);
        println!("{name}: BVH -> BVH, {} joints (End Sites included), {} frames, max joint error {error:.2e} file units", copy.joints.len(), copy.frames);
        assert!(error < 1e-3, "{name}: joints {error} units off");
        let (Some(a), Some(b)) = (
            blender("blender_bvh.py", &[path.to_str().unwrap()]),
            blender("blender_bvh.py", &[out.to_str().unwrap()]),
        ) else {
            return;
        };
        assert_eq!(b["ok"], true, "{name}: Blender reads the copy");
        assert_eq!(
            (b["bones"].clone(), b["frames"].clone()),
            (a["bones"].clone(), a["frames"].clone()),
            "{name}: Blender's bones and frames, copy vs input"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// A humanoid under nodes that are not joints (issue 15: `→ bvh` keeps every bone where it was).

/// World positions of the written file's joints at rest: the OFFSETs alone (BVH's rest).
fn test_rest(bvh: &TestBvh, scale: f64) -> Vec<[f64; 3]> {
    let mut positions: Vec<[f64; 3]> = Vec::new();
    for joint in &bvh.joints {
        let base = joint.parent.map_or([0.0; 3], |p| positions[p]);
        positions.push([0, 1, 2].map(|i| base[i] + joint.offset[i]));
    }
    positions
        .into_iter()
        .map(|p| p.map(|c| c * scale))
        .collect()
}

/// The metres per unit a reader that guesses the unit takes the written file for.
fn detected_unit(text: &str) -> f64 {
    let outcome = bvh::read(text, Path::new("back.bvh"), &ReadOptions::default()).unwrap();
    let (_, layout) =
        bvh::read_with_layout(text, Path::new("back.bvh"), &ReadOptions::default()).unwrap();
    assert!(
        !outcome.diagnostics.contains("BVH_UNITS_UNKNOWN"),
        "the unit is not guessed: {:?}",
        outcome.diagnostics
    );
    layout.metres_per_unit()
}

/// Bone, name, parent index and the bone's offset from its parent in a +Y-up, +Z-facing
/// figure (metres), joints 2.. of [`folded_humanoid`].
const FIGURE: [(&str, usize, [f32; 3]); 21] = [
    ("hips", 1, [0.0, 1.0, 0.0]),
    ("spine", 2, [0.0, 0.1, 0.0]),
    ("chest", 3, [0.0, 0.15, 0.0]),
    ("upperChest", 4, [0.0, 0.12, 0.0]),
    ("neck", 5, [0.0, 0.15, 0.0]),
    ("head", 6, [0.0, 0.1, 0.02]),
    ("leftUpperArm", 5, [0.2, 0.05, 0.0]),
    ("leftLowerArm", 8, [0.3, 0.0, 0.0]),
    ("leftHand", 9, [0.25, 0.0, 0.0]),
    ("rightUpperArm", 5, [-0.2, 0.05, 0.0]),
    ("rightLowerArm", 11, [-0.3, 0.0, 0.0]),
    ("rightHand", 12, [-0.25, 0.0, 0.0]),
    ("leftUpperLeg", 2, [0.1, -0.05, 0.0]),
    ("leftLowerLeg", 14, [0.0, -0.45, 0.0]),
    ("leftFoot", 15, [0.0, -0.42, 0.0]),
    ("leftToes", 16, [0.0, -0.05, 0.12]),
    ("rightUpperLeg", 2, [-0.1, -0.05, 0.0]),
    ("rightLowerLeg", 18, [0.0, -0.45, 0.0]),
    ("rightFoot", 19, [0.0, -0.42, 0.0]),
    ("rightToes", 20, [0.0, -0.05, 0.12]),
    ("leftEye", 7, [0.03, 0.05, 0.08]),
];

/// A humanoid as Blender exports it to glTF: `Z_UP` (−90° about X) and `Armature` (moved,
/// scaled to centimetres) above the skin joints, whose offsets are in the armature's Z-up
/// centimetres. Joint `i ≥ 2` is `FIGURE[i − 2]`, named by `name`; mapped by a declared
/// humanoid (`skip`: bones left out of the declaration). The clip moves and turns the hips,
/// bends the left arm, and holds the left upper arm 3 mm off its rest (a constant
/// translation track, as glTF exporters write).
fn folded_humanoid(name: impl Fn(usize) -> String, skip: &[&str]) -> (Asset, Clip) {
    use humanoid::asset::HumanoidSkeleton;
    use humanoid::model::{BoneMap, HumanBone};
    // Z-up armature space: (x, y, z) up-Y becomes (x, −z, y); centimetres.
    let z_up = |v: [f32; 3]| Vec3::new(v[0], -v[2], v[1]) * 100.0;
    let mut raw = vec![
        RawJoint {
            name: "Z_UP".into(),
            parent: None,
            rest: Trs::from_rotation(Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2)),
        },
        RawJoint {
            name: "Armature".into(),
            parent: Some(0),
            rest: Trs::new(Vec3::new(0.5, 0.0, 0.25), Quat::IDENTITY, Vec3::splat(0.01)),
        },
    ];
    for (i, (_, parent, offset)) in FIGURE.iter().enumerate() {
        raw.push(RawJoint {
            name: name(i + 2),
            parent: Some(*parent),
            rest: Trs::from_translation(z_up(*offset)),
        });
    }
    let (skeleton, ids) = Skeleton::from_raw(raw).unwrap();
    let mut asset = Asset::new(Format::Glb, skeleton, (0..ids.len()).collect());
    asset.skin_joints = ids[2..].to_vec();
    let mut bones = BoneMap::new();
    for (i, (bone, _, _)) in FIGURE.iter().enumerate() {
        if !skip.contains(bone) {
            bones.set(bone.parse::<HumanBone>().unwrap(), Some(ids[i + 2]));
        }
    }
    asset.humanoids = vec![HumanoidSkeleton {
        root: Some(ids[2]),
        bones,
        declared_t_pose: false,
    }];
    let keys = 25;
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / 24.0).collect();
    let mut clip = Clip::new("walk");
    let mut add = |joint: usize, property, values: Vec<f32>| {
        clip.add_track(
            Track::new(
                TrackTarget::Joint(ids[joint]),
                property,
                Interpolation::Linear,
                times.clone(),
                values,
            )
            .unwrap(),
        );
    };
    let hips = z_up(FIGURE[0].2);
    add(
        2,
        Property::Translation,
        (0..keys)
            .flat_map(|k| (hips + Vec3::new(3.0 * k as f32, -2.0 * k as f32, 1.5)).to_array())
            .collect(),
    );
    add(
        2,
        Property::Rotation,
        (0..keys)
            .flat_map(|k| Quat::from_rotation_z(0.05 * k as f32).to_array())
            .collect(),
    );
    add(
        9,
        Property::Rotation,
        (0..keys)
            .flat_map(|k| Quat::from_rotation_y(-0.06 * k as f32).to_array())
            .collect(),
    );
    let arm = z_up(FIGURE[6].2) + Vec3::new(0.3, 0.0, 0.0);
    add(8, Property::Translation, arm.to_array().repeat(keys));
    (asset, clip)
}

/// The written file's joints (End Sites left out) against the asset's joints of the same
/// names: the largest distance at the rest, and over every key.
fn folded_errors(asset: &Asset, clip: &Clip, text: &str) -> (f64, f64) {
    let bvh = parse_test_bvh(text);
    let unit = detected_unit(text);
    let index_of = |name: &str| asset.skeleton.find(name).map(JointId::index);
    let rest_expected = expected_positions(asset, &Clip::new("rest"), 0);
    let rest = test_rest(&bvh, unit);
    let mut rest_error = 0.0f64;
    for (joint, at) in bvh.joints.iter().zip(&rest) {
        if let Some(i) = index_of(&joint.name) {
            rest_error = rest_error.max(distance(*at, rest_expected[i]));
        }
    }
    let mut clip_error = 0.0f64;
    assert_eq!(bvh.frames, 25, "one frame per key");
    for k in 0..bvh.frames {
        let expected = expected_positions(asset, clip, k);
        for (joint, at) in bvh.joints.iter().zip(test_fk(&bvh, k, unit)) {
            if let Some(i) = index_of(&joint.name) {
                clip_error = clip_error.max(distance(at, expected[i]));
            }
        }
    }
    (rest_error, clip_error)
}

#[test]
fn nodes_above_the_skeleton_are_folded_and_every_joint_stays_where_it_was() {
    let (asset, clip) = folded_humanoid(|i| FIGURE[i - 2].0.to_owned(), &[]);
    let written = bvh::write_with_diagnostics(&asset, &clip, &WriteOptions::default()).unwrap();
    let text = &written.text;
    // The hips are the ROOT, with position channels; Z_UP and Armature are not written.
    assert!(text.starts_with("HIERARCHY\nROOT hips\n"), "{text}");
    assert!(!text.contains("Z_UP") && !text.contains("Armature"));
    assert!(written.diagnostics.contains("BVH_NODES_FOLDED"));
    assert!(!written.diagnostics.contains("BVH_TRANSLATION_DROPPED"));
    let bvh = parse_test_bvh(text);
    assert_eq!(bvh.joints[0].channels.len(), 6);
    // Hand-computed: the armature's (0.5, 0, 0.25) in Z_UP space is (0.5, 0.25, 0) in the
    // world (−90° about X takes +Z to +Y), and the hips stand 1 m above it.
    let unit = detected_unit(text);
    let hips = bvh.joints[0].offset.map(|c| c * unit);
    assert!(
        distance(hips, [0.5, 1.25, 0.0]) < 1e-6,
        "hips OFFSET {hips:?} in units of {unit} m"
    );
    // Every joint at the rest and at every key, from the OFFSETs and channels alone.
    let (rest_error, clip_error) = folded_errors(&asset, &clip, text);
    println!("folded: rest off by {rest_error:.2e} m, clip by {clip_error:.2e} m");
    assert!(rest_error < 1e-6, "rest off by {rest_error} m");
    assert!(clip_error < 1e-5, "clip off by {clip_error} m");
    // The upper arm's constant translation (3 mm off its rest) is in position channels: its
    // OFFSET stays the rest.
    let arm = bvh
        .joints
        .iter()
        .find(|j| j.name == "leftUpperArm")
        .unwrap();
    assert_eq!(arm.channels.len(), 6);
    assert!(written.diagnostics.contains("BVH_JOINT_POSITIONS"));
}

#[test]
fn leaf_joints_keep_their_names_with_an_end_site() {
    let (asset, clip) = folded_humanoid(|i| FIGURE[i - 2].0.to_owned(), &[]);
    let text = bvh::write(&asset, &clip, &WriteOptions::default()).unwrap();
    let back = bvh::read(&text, Path::new("back.bvh"), &ReadOptions::default()).unwrap();
    let names = back.asset.skeleton.names();
    for leaf in ["leftHand", "rightHand", "leftToes", "rightToes", "leftEye"] {
        assert!(names.iter().any(|n| n == leaf), "{leaf} lost: {names:?}");
        assert!(
            names.iter().any(|n| *n == format!("{leaf}_End")),
            "{leaf} has no End Site"
        );
    }
    // A leaf named as a reader names an End Site is written as one.
    let raw = vec![
        RawJoint {
            name: "Hips".into(),
            parent: None,
            rest: Trs::from_translation(Vec3::Y),
        },
        RawJoint {
            name: "Hips_End".into(),
            parent: Some(0),
            rest: Trs::from_translation(Vec3::Y * 0.3),
        },
    ];
    let (skeleton, _) = Skeleton::from_raw(raw).unwrap();
    let asset = Asset::new(Format::Bvh, skeleton, vec![0, 1]);
    let text = bvh::write(&asset, &Clip::new("still"), &WriteOptions::default()).unwrap();
    assert!(
        !text.contains("JOINT") && text.contains("End Site"),
        "{text}"
    );
}

#[test]
fn names_a_reader_would_map_to_other_bones_are_renamed_to_bone_names() {
    // Names no table knows, and a declaration without `chest`: a reader maps the rig by its
    // shape, which takes the joint declared `upperChest` for the chest.
    let (asset, clip) = folded_humanoid(|i| format!("j{i}"), &["chest"]);
    let written = bvh::write_with_diagnostics(&asset, &clip, &WriteOptions::default()).unwrap();
    assert!(
        written.diagnostics.contains("BVH_JOINTS_RENAMED"),
        "{:?}",
        written.diagnostics
    );
    // Read back and mapped as any BVH is: every declared bone is at the joint it was (hand
    // positions of the declared joints).
    let mut back = bvh::read(
        &written.text,
        Path::new("back.bvh"),
        &ReadOptions::default(),
    )
    .unwrap()
    .asset;
    humanoid::mapping::map_humanoid(&mut back, Path::new("back.bvh"), None).unwrap();
    let bones = &back.humanoids[0].bones;
    let rest_in = expected_positions(&asset, &Clip::new("rest"), 0);
    let rest_back: Vec<[f64; 3]> = back
        .skeleton
        .rest_worlds()
        .iter()
        .map(|w| w.translation.as_dvec3().to_array())
        .collect();
    for (bone, joint) in asset.humanoids[0].bones.iter() {
        let got = bones
            .get(bone)
            .unwrap_or_else(|| panic!("{bone:?} not mapped back"));
        let error = distance(rest_back[got.index()], rest_in[joint.index()]);
        assert!(error < 1e-5, "{bone:?} reads back {error} m away");
    }
    // The chest joint the declaration left out keeps its own name, and the shape, which the
    // names now agree with everywhere else, fills it in (it stands between the spine and the
    // upper chest): the chest, not a neighbour's bone.
    let chest = bones
        .get(humanoid::model::HumanBone::Chest)
        .map(|j| back.skeleton.name(j));
    assert_eq!(chest, Some("j4"));
    // The names were fixed, not the geometry.
    let (rest_error, clip_error) = folded_errors(&asset, &clip, &written.text);
    assert!(rest_error.is_finite() && clip_error.is_finite());
}

#[test]
fn keys_off_every_grid_are_measured_and_refused_when_no_rate_keeps_them() {
    let (asset, _, ids) = rotated_rest_asset();
    let turn = |times: Vec<f32>, angles: &[f32]| {
        let mut clip = Clip::new("turn");
        clip.add_track(
            Track::new(
                TrackTarget::Joint(ids[1]),
                Property::Rotation,
                Interpolation::Linear,
                times,
                angles
                    .iter()
                    .flat_map(|a| Quat::from_rotation_x(*a).to_array())
                    .collect(),
            )
            .unwrap(),
        );
        clip
    };
    // A key at 0.125 s between keys 0.1 s apart: every key lies on a 40 fps grid.
    let clip = turn(vec![0.0, 0.1, 0.125, 0.3], &[0.0, 0.5, 0.6, 0.1]);
    let bvh = parse_test_bvh(&bvh::write(&asset, &clip, &WriteOptions::default()).unwrap());
    assert_eq!(bvh.frames, 13);
    assert!((bvh.frame_time - 0.025).abs() < 1e-9, "{}", bvh.frame_time);
    // A sharp turn 0.3 ms long: no rate up to 1000 fps keeps it within 0.1 mm.
    let clip = turn(vec![0.0, 0.1, 0.1003, 1.0], &[0.0, 1.0, -1.0, 0.0]);
    match bvh::write(&asset, &clip, &WriteOptions::default()) {
        Err(Error::Unsupported { message }) => {
            assert!(message.contains("no regular grid"), "{message}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[cfg(feature = "corpus")]
#[test]
fn cesium_man_to_bvh_keeps_the_hips_and_head_where_the_gltf_crate_puts_them() {
    // World rest positions by the gltf crate's node transforms.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/gltf/CesiumMan.glb");
    let gltf = gltf::Gltf::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let mut world = std::collections::HashMap::new();
    fn walk(
        node: gltf::Node<'_>,
        parent: glam::DMat4,
        world: &mut std::collections::HashMap<String, DVec3>,
    ) {
        let local = glam::Mat4::from_cols_array_2d(&node.transform().matrix()).as_dmat4();
        let m = parent * local;
        world.insert(node.name().unwrap_or("").to_owned(), m.w_axis.truncate());
        for child in node.children() {
            walk(child, m, world);
        }
    }
    for node in gltf.scenes().next().unwrap().nodes() {
        walk(node, glam::DMat4::IDENTITY, &mut world);
    }
    let dir = std::env::temp_dir().join(format!("humanoid-bvh-cesium-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("c.bvh");
    let _ = std::fs::remove_file(&out);
    humanoid::convert::convert(&path, &out, &humanoid::convert::ConvertOptions::default()).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let bvh = parse_test_bvh(&text);
    let unit = detected_unit(&text);
    assert!(
        (unit - CENTIMETRES).abs() < 1e-12,
        "read back in {unit} m units"
    );
    let rest = test_rest(&bvh, unit);
    // The hips (Skeleton_torso_joint_1) are the ROOT; the head (Skeleton_neck_joint_2) a JOINT.
    assert_eq!(bvh.joints[0].name, "hips");
    assert_eq!(bvh.joints[0].channels.len(), 6);
    let at = |name: &str| rest[bvh.joints.iter().position(|j| j.name == name).unwrap()];
    for (written, node) in [
        ("hips", "Skeleton_torso_joint_1"),
        ("head", "Skeleton_neck_joint_2"),
    ] {
        let error = distance(at(written), world[node].to_array());
        assert!(error < 1e-5, "{written} is {error} m from node {node}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_uneven_animated_scale_is_refused() {
    // "upper" stretched along one axis only: its child's frame shears, which no BVH holds.
    let (asset, _, ids) = rotated_rest_asset();
    let mut clip = Clip::new("stretch");
    clip.add_track(
        Track::new(
            TrackTarget::Joint(ids[1]),
            Property::Scale,
            Interpolation::Linear,
            vec![0.0, 1.0],
            vec![1.5, 1.5, 1.5, 1.5, 1.8, 1.5],
        )
        .unwrap(),
    );
    match bvh::write(&asset, &clip, &WriteOptions::default()) {
        Err(Error::Unsupported { message }) => {
            assert!(
                message.contains("unevenly") && message.contains("upper"),
                "{message}"
            )
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    // Evenly: the child follows with position channels, every joint where it was.
    let mut clip = Clip::new("grow");
    clip.add_track(
        Track::new(
            TrackTarget::Joint(ids[1]),
            Property::Scale,
            Interpolation::Linear,
            vec![0.0, 1.0],
            vec![1.5, 1.5, 1.5, 1.8, 1.8, 1.8],
        )
        .unwrap(),
    );
    let options = WriteOptions {
        pick_unit: false,
        ..WriteOptions::default()
    };
    let bvh = parse_test_bvh(&bvh::write(&asset, &clip, &options).unwrap());
    let last = bvh.frames - 1;
    let written = test_fk(&bvh, last, CENTIMETRES);
    let expected = expected_positions(&asset, &clip, 1);
    for (i, j) in [(0, 0), (1, 1), (2, 2), (3, 3), (5, 4), (6, 5)] {
        let error = distance(written[i], expected[j]);
        assert!(error < 1e-5, "joint {j}: {error} m");
    }
}
