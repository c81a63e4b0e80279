//! Godot resources: the built-in profile against the research note's table and the canonical
//! T-pose, BoneMaps written and read back, BoneMaps inside `.import` files and with profiles in
//! other files, custom profiles as mapping tables, and the errors, each at its line:column.
//!
//! Expected values are the research note's text (`docs/research/godot_and_rigs.md` §2.2 and
//! §3.2, copied below), Godot's source, or written out here by hand; nothing expected is
//! computed by the code under test.

use std::path::{Path, PathBuf};

use glam::{DMat3, DVec3, Quat, Vec3};
use humanoid::asset::{Asset, HumanoidSkeleton};
use humanoid::formats::godot::{
    asset_bone_map_tres, bone_map_tres, canonical_profile_tres, inspect, parse_mapping,
    read_mapping, Document, SkeletonProfile, TailDirection, Value,
};
use humanoid::formats::Format;
use humanoid::mapping::detect::apply;
use humanoid::mapping::{Library, Table};
use humanoid::model::skeleton::{RawJoint, Skeleton};
use humanoid::model::{BoneMap, HumanBone};
use humanoid::pose::tpose::{canonical_bend_axis, canonical_direction, canonical_position};
use humanoid::pose::Trs;

// ---------------------------------------------------------------------------------------------
// The research note's table (§2.2), verbatim: bone, parent, group, required, tail,
// reference_pose (basis rows; origin), handle_offset, global origin, global +Y, global +X.

const NOTE_TABLE: &str = "\
| 0 | Root | — | Body |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0, 0) | (0.5, 0.91) | (0, 0, 0) | (0, 1, 0) | (1, 0, 0) |
| 1 | Hips | Root | Body | yes | SpecificChild→Spine | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.75, 0) | (0.5, 0.5) | (0, 0.75, 0) | (0, 1, 0) | (1, 0, 0) |
| 2 | Spine | Hips | Body | yes | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.1, 0) | (0.5, 0.43) | (0, 0.85, 0) | (0, 1, 0) | (1, 0, 0) |
| 3 | Chest | Spine | Body |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.1, 0) | (0.5, 0.36) | (0, 0.95, 0) | (0, 1, 0) | (1, 0, 0) |
| 4 | UpperChest | Chest | Body |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.1, 0) | (0.5, 0.29) | (0, 1.05, 0) | (0, 1, 0) | (1, 0, 0) |
| 5 | Neck | UpperChest | Body |  | SpecificChild→Head | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.1, 0) | (0.5, 0.23) | (0, 1.15, 0) | (0, 1, 0) | (1, 0, 0) |
| 6 | Head | Neck | Body | yes | End | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.1, 0) | (0.5, 0.18) | (0, 1.25, 0) | (0, 1, 0) | (1, 0, 0) |
| 7 | LeftEye | Head | Face |  | AverageChildren | (1, 0, 0) (0, 0, -1) (0, 1, 0); (0.05, 0.15, 0) | (0.6, 0.46) | (0.05, 1.4, 0) | (0, 0, 1) | (1, 0, 0) |
| 8 | RightEye | Head | Face |  | AverageChildren | (1, 0, 0) (0, 0, -1) (0, 1, 0); (-0.05, 0.15, 0) | (0.37, 0.46) | (-0.05, 1.4, 0) | (0, 0, 1) | (1, 0, 0) |
| 9 | Jaw | Head | Face |  | AverageChildren | (-1, 0, 0) (0, 0, 1) (0, 1, 0); (0, 0.05, 0.05) | (0.46, 0.75) | (0, 1.3, 0.05) | (0, 0, 1) | (-1, 0, 0) |
| 10 | LeftShoulder | UpperChest | Body | yes | AverageChildren | (0, 1, 0) (0, 0, 1) (1, 0, 0); (0.05, 0.1, 0) | (0.55, 0.235) | (0.05, 1.15, 0) | (1, 0, 0) | (0, 0, 1) |
| 11 | LeftUpperArm | LeftShoulder | Body | yes | AverageChildren | (-1, 0, 0) (0, 1, 0) (0, 0, -1); (0, 0.05, 0) | (0.6, 0.24) | (0.1, 1.15, 0) | (1, 0, 0) | (0, 0, -1) |
| 12 | LeftLowerArm | LeftUpperArm | Body | yes | AverageChildren | (0, 0, -1) (0, 1, 0) (1, 0, 0); (0, 0.25, 0) | (0.7, 0.24) | (0.35, 1.15, 0) | (1, 0, 0) | (0, -1, 0) |
| 13 | LeftHand | LeftLowerArm | Body | yes | SpecificChild→LeftMiddleProximal | (0, 0, 1) (0, 1, 0) (-1, 0, 0); (0, 0.25, 0) | (0.82, 0.235) | (0.6, 1.15, 0) | (1, 0, 0) | (0, 0, -1) |
| 14 | LeftThumbMetacarpal | LeftHand | LeftHand |  | AverageChildren | (0, -0.577, 0.816) (0, 0.816, 0.577) (-1, 0, 0); (-0.025, 0.025, 0) | (0.4, 0.8) | (0.625, 1.15, 0.025) | (0.816, 0, 0.577) | (0, 1, 0) |
| 15 | LeftThumbProximal | LeftThumbMetacarpal | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.043, 0) | (0.3, 0.69) | (0.66, 1.15, 0.05) | (0.816, 0, 0.577) | (0, 1, 0) |
| 16 | LeftThumbDistal | LeftThumbProximal | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.043, 0) | (0.23, 0.555) | (0.695, 1.15, 0.075) | (0.816, 0, 0.577) | (0, 1, 0) |
| 17 | LeftIndexProximal | LeftHand | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (-0.025, 0.075, 0) | (0.413, 0.52) | (0.675, 1.15, 0.025) | (1, 0, 0) | (0, 0, -1) |
| 18 | LeftIndexIntermediate | LeftIndexProximal | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.05, 0) | (0.403, 0.36) | (0.725, 1.15, 0.025) | (1, 0, 0) | (0, 0, -1) |
| 19 | LeftIndexDistal | LeftIndexIntermediate | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.025, 0) | (0.403, 0.255) | (0.75, 1.15, 0.025) | (1, 0, 0) | (0, 0, -1) |
| 20 | LeftMiddleProximal | LeftHand | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.075, 0) | (0.5, 0.51) | (0.675, 1.15, 0) | (1, 0, 0) | (0, 0, -1) |
| 21 | LeftMiddleIntermediate | LeftMiddleProximal | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.075, 0) | (0.5, 0.345) | (0.75, 1.15, 0) | (1, 0, 0) | (0, 0, -1) |
| 22 | LeftMiddleDistal | LeftMiddleIntermediate | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.025, 0) | (0.5, 0.22) | (0.775, 1.15, 0) | (1, 0, 0) | (0, 0, -1) |
| 23 | LeftRingProximal | LeftHand | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0.025, 0.075, 0) | (0.586, 0.52) | (0.675, 1.15, -0.025) | (1, 0, 0) | (0, 0, -1) |
| 24 | LeftRingIntermediate | LeftRingProximal | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.05, 0) | (0.59, 0.36) | (0.725, 1.15, -0.025) | (1, 0, 0) | (0, 0, -1) |
| 25 | LeftRingDistal | LeftRingIntermediate | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.025, 0) | (0.591, 0.25) | (0.75, 1.15, -0.025) | (1, 0, 0) | (0, 0, -1) |
| 26 | LeftLittleProximal | LeftHand | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0.05, 0.05, 0) | (0.663, 0.543) | (0.65, 1.15, -0.05) | (1, 0, 0) | (0, 0, -1) |
| 27 | LeftLittleIntermediate | LeftLittleProximal | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.05, 0) | (0.672, 0.415) | (0.7, 1.15, -0.05) | (1, 0, 0) | (0, 0, -1) |
| 28 | LeftLittleDistal | LeftLittleIntermediate | LeftHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.025, 0) | (0.672, 0.32) | (0.725, 1.15, -0.05) | (1, 0, 0) | (0, 0, -1) |
| 29 | RightShoulder | UpperChest | Body | yes | AverageChildren | (0, -1, 0) (0, 0, 1) (-1, 0, 0); (-0.05, 0.1, 0) | (0.45, 0.235) | (-0.05, 1.15, 0) | (-1, 0, 0) | (0, 0, -1) |
| 30 | RightUpperArm | RightShoulder | Body | yes | AverageChildren | (-1, 0, 0) (0, 1, 0) (0, 0, -1); (0, 0.05, 0) | (0.4, 0.24) | (-0.1, 1.15, 0) | (-1, 0, 0) | (0, 0, 1) |
| 31 | RightLowerArm | RightUpperArm | Body | yes | AverageChildren | (0, 0, 1) (0, 1, 0) (-1, 0, 0); (0, 0.25, 0) | (0.3, 0.24) | (-0.35, 1.15, 0) | (-1, 0, 0) | (0, 1, 0) |
| 32 | RightHand | RightLowerArm | Body | yes | SpecificChild→RightMiddleProximal | (0, 0, -1) (0, 1, 0) (1, 0, 0); (0, 0.25, 0) | (0.18, 0.235) | (-0.6, 1.15, 0) | (-1, 0, 0) | (0, 0, 1) |
| 33 | RightThumbMetacarpal | RightHand | RightHand |  | AverageChildren | (0, 0.577, -0.816) (0, 0.816, 0.577) (1, 0, 0); (0.025, 0.025, 0) | (0.6, 0.8) | (-0.625, 1.15, 0.025) | (-0.816, 0, 0.577) | (0, -1, 0) |
| 34 | RightThumbProximal | RightThumbMetacarpal | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.043, 0) | (0.7, 0.69) | (-0.66, 1.15, 0.05) | (-0.816, 0, 0.577) | (0, -1, 0) |
| 35 | RightThumbDistal | RightThumbProximal | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.043, 0) | (0.77, 0.555) | (-0.695, 1.15, 0.075) | (-0.816, 0, 0.577) | (0, -1, 0) |
| 36 | RightIndexProximal | RightHand | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0.025, 0.075, 0) | (0.587, 0.52) | (-0.675, 1.15, 0.025) | (-1, 0, 0) | (0, 0, 1) |
| 37 | RightIndexIntermediate | RightIndexProximal | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.05, 0) | (0.597, 0.36) | (-0.725, 1.15, 0.025) | (-1, 0, 0) | (0, 0, 1) |
| 38 | RightIndexDistal | RightIndexIntermediate | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.025, 0) | (0.597, 0.255) | (-0.75, 1.15, 0.025) | (-1, 0, 0) | (0, 0, 1) |
| 39 | RightMiddleProximal | RightHand | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.075, 0) | (0.5, 0.51) | (-0.675, 1.15, 0) | (-1, 0, 0) | (0, 0, 1) |
| 40 | RightMiddleIntermediate | RightMiddleProximal | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.075, 0) | (0.5, 0.345) | (-0.75, 1.15, 0) | (-1, 0, 0) | (0, 0, 1) |
| 41 | RightMiddleDistal | RightMiddleIntermediate | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.025, 0) | (0.5, 0.22) | (-0.775, 1.15, 0) | (-1, 0, 0) | (0, 0, 1) |
| 42 | RightRingProximal | RightHand | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (-0.025, 0.075, 0) | (0.414, 0.52) | (-0.675, 1.15, -0.025) | (-1, 0, 0) | (0, 0, 1) |
| 43 | RightRingIntermediate | RightRingProximal | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.05, 0) | (0.41, 0.36) | (-0.725, 1.15, -0.025) | (-1, 0, 0) | (0, 0, 1) |
| 44 | RightRingDistal | RightRingIntermediate | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.025, 0) | (0.409, 0.25) | (-0.75, 1.15, -0.025) | (-1, 0, 0) | (0, 0, 1) |
| 45 | RightLittleProximal | RightHand | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (-0.05, 0.05, 0) | (0.337, 0.543) | (-0.65, 1.15, -0.05) | (-1, 0, 0) | (0, 0, 1) |
| 46 | RightLittleIntermediate | RightLittleProximal | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.05, 0) | (0.328, 0.415) | (-0.7, 1.15, -0.05) | (-1, 0, 0) | (0, 0, 1) |
| 47 | RightLittleDistal | RightLittleIntermediate | RightHand |  | AverageChildren | (1, 0, 0) (0, 1, 0) (0, 0, 1); (0, 0.025, 0) | (0.328, 0.32) | (-0.725, 1.15, -0.05) | (-1, 0, 0) | (0, 0, 1) |
| 48 | LeftUpperLeg | Hips | Body | yes | AverageChildren | (-1, 0, 0) (0, -1, 0) (0, 0, 1); (0.1, 0, 0) | (0.549, 0.49) | (0.1, 0.75, 0) | (0, -1, 0) | (-1, 0, 0) |
| 49 | LeftLowerLeg | LeftUpperLeg | Body | yes | AverageChildren | (-1, 0, 0) (0, 1, 0) (0, 0, -1); (0, 0.375, 0) | (0.548, 0.683) | (0.1, 0.375, 0) | (0, -1, 0) | (1, 0, 0) |
| 50 | LeftFoot | LeftLowerLeg | Body | yes | AverageChildren | (-1, 0, 0) (0, 0, -1) (0, -1, 0); (0, 0.375, 0) | (0.545, 0.9) | (0.1, 0, 0) | (0, 0, 1) | (-1, 0, 0) |
| 51 | LeftToes | LeftFoot | Body |  | AverageChildren | (-1, 0, 0) (0, 1, 0) (0, 0, -1); (0, 0.15, 0) | (0.545, 0.95) | (0.1, 0, 0.15) | (0, 0, 1) | (1, 0, 0) |
| 52 | RightUpperLeg | Hips | Body | yes | AverageChildren | (-1, 0, 0) (0, -1, 0) (0, 0, 1); (-0.1, 0, 0) | (0.451, 0.49) | (-0.1, 0.75, 0) | (0, -1, 0) | (-1, 0, 0) |
| 53 | RightLowerLeg | RightUpperLeg | Body | yes | AverageChildren | (-1, 0, 0) (0, 1, 0) (0, 0, -1); (0, 0.375, 0) | (0.452, 0.683) | (-0.1, 0.375, 0) | (0, -1, 0) | (1, 0, 0) |
| 54 | RightFoot | RightLowerLeg | Body | yes | AverageChildren | (-1, 0, 0) (0, 0, -1) (0, -1, 0); (0, 0.375, 0) | (0.455, 0.9) | (-0.1, 0, 0) | (0, 0, 1) | (-1, 0, 0) |
| 55 | RightToes | RightFoot | Body |  | AverageChildren | (-1, 0, 0) (0, 1, 0) (0, 0, -1); (0, 0.15, 0) | (0.455, 0.95) | (-0.1, 0, 0.15) | (0, 0, 1) | (1, 0, 0) |";

/// One row of the note's table, read by the test's own parser.
#[derive(Debug)]
struct NoteRow {
    name: String,
    parent: Option<String>,
    group: String,
    required: bool,
    tail: String,
    rows: [[f64; 3]; 3],
    origin: [f64; 3],
    handle: [f64; 2],
    global_origin: [f64; 3],
    global_y: [f64; 3],
    global_x: [f64; 3],
}

fn numbers(text: &str) -> Vec<f64> {
    text.replace(['(', ')', ';'], " ")
        .split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

fn three(v: &[f64]) -> [f64; 3] {
    [v[0], v[1], v[2]]
}

fn note_rows() -> Vec<NoteRow> {
    NOTE_TABLE
        .lines()
        .map(|line| {
            let cells: Vec<&str> = line
                .trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            let pose = numbers(cells[6]);
            let handle = numbers(cells[7]);
            NoteRow {
                name: cells[1].to_owned(),
                parent: (cells[2] != "—").then(|| cells[2].to_owned()),
                group: cells[3].to_owned(),
                required: cells[4] == "yes",
                tail: cells[5].to_owned(),
                rows: [three(&pose[0..3]), three(&pose[3..6]), three(&pose[6..9])],
                origin: three(&pose[9..12]),
                handle: [handle[0], handle[1]],
                global_origin: three(&numbers(cells[8])),
                global_y: three(&numbers(cells[9])),
                global_x: three(&numbers(cells[10])),
            }
        })
        .collect()
}

#[track_caller]
fn close(a: f64, b: f64, tolerance: f64, what: &str) {
    assert!((a - b).abs() <= tolerance, "{what}: {a} vs {b}");
}

#[test]
fn the_humanoid_profile_is_the_research_notes_table() {
    let profile = SkeletonProfile::humanoid();
    let note = note_rows();
    assert_eq!(note.len(), 56);
    assert_eq!(profile.bones.len(), 56);
    assert_eq!(profile.root_bone.as_deref(), Some("Root"));
    assert_eq!(profile.scale_base_bone.as_deref(), Some("Hips"));
    let groups: Vec<&str> = profile.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(groups, ["Body", "Face", "LeftHand", "RightHand"]);
    for (bone, row) in profile.bones.iter().zip(&note) {
        let n = &row.name;
        assert_eq!(&bone.name, n);
        assert_eq!(bone.parent, row.parent, "{n} parent");
        assert_eq!(bone.group, row.group, "{n} group");
        assert_eq!(bone.required, row.required, "{n} required");
        let tail = match (bone.tail_direction, bone.tail.as_deref()) {
            (TailDirection::SpecificChild, Some(t)) => format!("SpecificChild→{t}"),
            (TailDirection::AverageChildren, None) => "AverageChildren".to_owned(),
            (TailDirection::End, None) => "End".to_owned(),
            other => panic!("{n}: {other:?}"),
        };
        assert_eq!(tail, row.tail, "{n} tail");
        let rows = bone.reference_pose.rows();
        for (r, (got, want)) in rows.iter().zip(&row.rows).enumerate() {
            for (c, (g, w)) in got.iter().zip(want).enumerate() {
                close(*g, *w, 1e-6, &format!("{n} basis[{r}][{c}]"));
            }
        }
        for (k, (g, w)) in bone
            .reference_pose
            .origin
            .to_array()
            .iter()
            .zip(&row.origin)
            .enumerate()
        {
            close(*g, *w, 1e-6, &format!("{n} origin[{k}]"));
        }
        close(
            bone.handle_offset.x,
            row.handle[0],
            1e-6,
            &format!("{n} handle x"),
        );
        close(
            bone.handle_offset.y,
            row.handle[1],
            1e-6,
            &format!("{n} handle y"),
        );
    }
    // Spot checks against skeleton_profile.cpp itself (godotengine/godot @ 0dd74c50).
    let thumb = profile.bone("RightThumbMetacarpal").unwrap();
    assert_eq!(
        thumb.reference_pose.rows(),
        [[0.0, 0.577, -0.816], [0.0, 0.816, 0.577], [1.0, 0.0, 0.0]]
    );
    assert!(!profile.bone("Neck").unwrap().required);
    assert_eq!(profile.bones.iter().filter(|b| b.required).count(), 17);
}

/// World transforms by the test's own chaining (parents come first in the note's order).
fn note_worlds(note: &[NoteRow]) -> Vec<(DMat3, DVec3)> {
    let mut worlds: Vec<(DMat3, DVec3)> = Vec::new();
    for row in note {
        let basis = DMat3::from_cols_array_2d(&row.rows).transpose();
        let origin = DVec3::from_array(row.origin);
        let world = match &row.parent {
            None => (basis, origin),
            Some(p) => {
                let i = note.iter().position(|r| &r.name == p).unwrap();
                let (pb, po) = worlds[i];
                (pb * basis, pb * origin + po)
            }
        };
        worlds.push(world);
    }
    worlds
}

/// The note's name for a canonical bone: capitalised, written out by the test.
fn capitalised(bone: HumanBone) -> String {
    let s = bone.as_str();
    s[..1].to_uppercase() + &s[1..]
}

#[track_caller]
fn close3(a: DVec3, b: Vec3, tolerance: f64, what: &str) {
    let b = b.as_dvec3();
    assert!((a - b).length() <= tolerance, "{what}: {a} vs {b}");
}

#[test]
fn the_humanoid_profile_agrees_with_the_canonical_t_pose() {
    let note = note_rows();
    let worlds = note_worlds(&note);
    // The test's chaining reproduces the note's own global columns (which the note rounds to
    // three decimals).
    for (row, (basis, origin)) in note.iter().zip(&worlds) {
        assert!(
            (*origin - DVec3::from_array(row.global_origin)).length() < 1e-3,
            "{}",
            row.name
        );
        assert!(
            (basis.y_axis - DVec3::from_array(row.global_y)).length() < 2e-3,
            "{}",
            row.name
        );
        assert!(
            (basis.x_axis - DVec3::from_array(row.global_x)).length() < 1e-6,
            "{}",
            row.name
        );
    }
    assert_eq!(note[0].name, "Root");
    let thumbs = [
        HumanBone::LeftThumbMetacarpal,
        HumanBone::LeftThumbProximal,
        HumanBone::LeftThumbDistal,
        HumanBone::RightThumbMetacarpal,
        HumanBone::RightThumbProximal,
        HumanBone::RightThumbDistal,
    ];
    for (i, bone) in HumanBone::ALL.into_iter().enumerate() {
        // Godot's order is the canonical order with Root in front, names capitalised.
        let row = &note[i + 1];
        assert_eq!(row.name, capitalised(bone));
        let (basis, origin) = worlds[i + 1];
        assert!(
            (basis.x_axis - canonical_bend_axis(bone).as_dvec3()).length() < 1e-6,
            "{bone} bend axis"
        );
        if thumbs.contains(&bone) {
            continue;
        }
        close3(
            origin,
            canonical_position(bone),
            1e-6,
            &format!("{bone} position"),
        );
        close3(
            basis.y_axis,
            canonical_direction(bone),
            1e-6,
            &format!("{bone} direction"),
        );
    }
    // The thumbs: the documented change only. Godot's point about 35.26° from the hand's axis
    // toward +Z (atan(0.577 / 0.816)); the canonical ones 45°, about the same bend axis, from
    // the same metacarpal joint, with the joints spaced 0.043 along the new direction.
    let godot_angle = (0.577f64 / 0.816).atan().to_degrees();
    close(godot_angle, 35.26, 0.01, "Godot's thumb angle");
    for (side, names) in [(1.0, &thumbs[..3]), (-1.0, &thumbs[3..])] {
        let metacarpal = HumanBone::ALL.iter().position(|b| *b == names[0]).unwrap() + 1;
        let (godot_basis, godot_origin) = worlds[metacarpal];
        let godot_dir = godot_basis.y_axis;
        let canonical_dir = canonical_direction(names[0]).as_dvec3();
        close(
            godot_dir.y,
            0.0,
            1e-9,
            "Godot thumb stays in the hand's plane",
        );
        close(
            canonical_dir.y,
            0.0,
            1e-6,
            "canonical thumb stays in the hand's plane",
        );
        close(
            (side * godot_dir.x).atan2(godot_dir.z).to_degrees(),
            90.0 - godot_angle,
            0.01,
            "Godot",
        );
        close(
            (side * canonical_dir.x).atan2(canonical_dir.z).to_degrees(),
            45.0,
            1e-4,
            "canonical",
        );
        close3(
            godot_origin,
            canonical_position(names[0]),
            1e-6,
            "metacarpal joint",
        );
        for (k, bone) in names.iter().enumerate() {
            close3(
                canonical_dir,
                canonical_direction(*bone),
                1e-6,
                "one direction per thumb",
            );
            let expected = godot_origin + canonical_dir * (0.043 * k as f64);
            close3(
                expected,
                canonical_position(*bone),
                1e-6,
                &format!("{bone} on the 45° line"),
            );
        }
    }
}

#[test]
fn the_canonical_profile_is_the_canonical_t_pose() {
    let profile = SkeletonProfile::canonical();
    let worlds = profile.world_poses();
    for bone in HumanBone::ALL {
        let i = profile.index_of(&capitalised(bone)).unwrap();
        let world = worlds[i];
        close3(
            world.origin,
            canonical_position(bone),
            1e-6,
            &format!("{bone} position"),
        );
        close3(
            world.basis.y_axis,
            canonical_direction(bone),
            1e-6,
            &format!("{bone} direction"),
        );
        close3(
            world.basis.x_axis,
            canonical_bend_axis(bone),
            1e-6,
            &format!("{bone} bend axis"),
        );
    }
    // Only the thumb metacarpals differ from Godot's profile.
    let godot = SkeletonProfile::humanoid();
    let changed: Vec<&str> = profile
        .bones
        .iter()
        .zip(&godot.bones)
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.name.as_str())
        .collect();
    assert_eq!(changed, ["LeftThumbMetacarpal", "RightThumbMetacarpal"]);
    let text = canonical_profile_tres();
    let s = std::f64::consts::FRAC_1_SQRT_2;
    // LeftThumbMetacarpal: rows of F_hand⁻¹ · F_thumb = (hand column i · thumb column j),
    // worked out by hand: hand columns X=(0,0,-1), Y=(1,0,0), Z=(0,-1,0); thumb columns
    // X=(0,1,0), Y=(s,0,s), Z=(s,0,-s). Godot's rows have the same pattern with 0.577/0.816.
    let expected = format!(
        "bones/14/reference_pose = Transform3D(0, -{s}, {s}, 0, {s}, {s}, -1, 0, 0, -0.025, 0.025, 0)\n"
    );
    assert!(text.contains(&expected), "{expected}");
    // RightThumbMetacarpal, the mirror: hand X=(0,0,1), Y=(-1,0,0), Z=(0,-1,0); thumb
    // X=(0,-1,0), Y=(-s,0,s), Z=(-s,0,-s).
    let expected = format!(
        "bones/33/reference_pose = Transform3D(0, {s}, -{s}, 0, {s}, {s}, 1, 0, 0, 0.025, 0.025, 0)\n"
    );
    assert!(text.contains(&expected), "{expected}");
}

// ---------------------------------------------------------------------------------------------
// BoneMaps.

/// The research note's Godot-written `.tres` example (§3.2), verbatim.
const NOTE_BONE_MAP: &str = r#"[gd_resource type="BoneMap" load_steps=2 format=3]

[sub_resource type="SkeletonProfileHumanoid" id="SkeletonProfileHumanoid_abcde"]

[resource]
profile = SubResource("SkeletonProfileHumanoid_abcde")
bone_map/Root = &"root"
bone_map/Hips = &"mixamorig_Hips"
bone_map/Spine = &"mixamorig_Spine"
bone_map/LeftEye = &""
"#;

fn hand_made_mapping() -> Vec<(HumanBone, &'static str)> {
    use HumanBone::*;
    vec![
        (Hips, "mixamorig:Hips"),
        (Spine, "mixamorig:Spine"),
        (Head, "mixamorig:Head"),
        (LeftUpperArm, "Left Arm"),
        (LeftLowerArm, "arm/lower.L"),
        (LeftHand, "mixamorig:LeftHand"),
        (RightUpperArm, "RightArm"),
        (RightLowerArm, "RightForeArm"),
        (RightHand, "RightHand"),
        (LeftUpperLeg, "LeftUpLeg"),
        (LeftLowerLeg, "LeftLeg"),
        (LeftFoot, "LeftFoot"),
        (RightUpperLeg, "RightUpLeg"),
        (RightLowerLeg, "RightLeg"),
        (RightFoot, "RightFoot"),
        (LeftThumbMetacarpal, "thumb \"one\""),
    ]
}

/// What each value is, without its content: the shape the comparison looks at.
fn kind(value: &Value) -> String {
    match value {
        Value::SubResource(_) => "SubResource".into(),
        Value::StringName(_) => "StringName".into(),
        other => other.describe(),
    }
}

#[test]
fn a_written_bone_map_reads_back_and_has_godots_structure() {
    let text = bone_map_tres(&hand_made_mapping(), Some("Armature:Root"));
    // Read back: the same mapping, spelled as Godot's importer spells bones.
    let mapping = parse_mapping(&text, Path::new("hero.tres"), &Library::default()).unwrap();
    let expected: [(HumanBone, &str); 16] = [
        (HumanBone::Hips, "mixamorig_Hips"),
        (HumanBone::Spine, "mixamorig_Spine"),
        (HumanBone::Head, "mixamorig_Head"),
        (HumanBone::LeftUpperArm, "Left Arm"),
        (HumanBone::LeftLowerArm, "arm_lower.L"),
        (HumanBone::LeftHand, "mixamorig_LeftHand"),
        (HumanBone::RightUpperArm, "RightArm"),
        (HumanBone::RightLowerArm, "RightForeArm"),
        (HumanBone::RightHand, "RightHand"),
        (HumanBone::LeftUpperLeg, "LeftUpLeg"),
        (HumanBone::LeftLowerLeg, "LeftLeg"),
        (HumanBone::LeftFoot, "LeftFoot"),
        (HumanBone::RightUpperLeg, "RightUpLeg"),
        (HumanBone::RightLowerLeg, "RightLeg"),
        (HumanBone::RightFoot, "RightFoot"),
        (HumanBone::LeftThumbMetacarpal, "thumb \"one\""),
    ];
    let got: Vec<(HumanBone, Vec<String>)> = mapping.table.bones.clone();
    let want: Vec<(HumanBone, Vec<String>)> = expected
        .iter()
        .map(|(b, n)| (*b, vec![(*n).to_owned()]))
        .collect();
    let mut want = want;
    want.sort_by_key(|(b, _)| b.index());
    assert_eq!(got, want);
    assert_eq!(mapping.root.as_deref(), Some("Armature_Root"));
    assert_eq!(mapping.profile, "SkeletonProfileHumanoid");
    assert!(mapping.diagnostics.is_empty(), "{:?}", mapping.diagnostics);

    // The structure of the note's Godot-written example: compare the parsed trees.
    let ours = Document::parse(&text, Path::new("hero.tres")).unwrap();
    let godot = Document::parse(NOTE_BONE_MAP, Path::new("note.tres")).unwrap();
    let tags = |d: &Document| d.sections.iter().map(|s| s.tag.clone()).collect::<Vec<_>>();
    assert_eq!(tags(&ours), tags(&godot));
    for (a, b) in ours.sections.iter().zip(&godot.sections) {
        let keys = |s: &humanoid::formats::godot::Section| {
            s.attributes
                .iter()
                .map(|(k, v)| (k.clone(), kind(v)))
                .collect::<Vec<_>>()
        };
        assert_eq!(keys(a), keys(b), "[{}] header", a.tag);
        assert_eq!(a.attribute("type"), b.attribute("type"));
    }
    assert_eq!(ours.sections[0].attributes, godot.sections[0].attributes);
    assert!(ours.sections[1].properties.is_empty());
    let resource = ours.resource().unwrap();
    for p in &godot.resource().unwrap().properties {
        let mine = resource
            .get(&p.key)
            .unwrap_or_else(|| panic!("{} missing", p.key));
        assert_eq!(kind(mine), kind(&p.value), "{}", p.key);
    }
    // profile names our own sub-resource, as Godot's names its own.
    let id = ours.sections[1].attribute_text("id").unwrap();
    assert_eq!(resource.get("profile"), Some(&Value::SubResource(id)));
    // Every profile bone, once: profile + 56 entries (Godot keeps an entry per profile bone).
    assert_eq!(resource.properties.len(), 57);
    assert_eq!(
        resource.get("bone_map/Jaw"),
        Some(&Value::StringName(String::new()))
    );
    assert!(text.contains("\nbone_map/LeftThumbMetacarpal = &\"thumb \\\"one\\\"\"\n"));

    // The note's example itself reads.
    let from_note =
        parse_mapping(NOTE_BONE_MAP, Path::new("note.tres"), &Library::default()).unwrap();
    assert_eq!(from_note.table.names(HumanBone::Hips), ["mixamorig_Hips"]);
    assert_eq!(from_note.table.names(HumanBone::Spine), ["mixamorig_Spine"]);
    assert!(from_note.table.names(HumanBone::LeftEye).is_empty());
    assert_eq!(from_note.root.as_deref(), Some("root"));

    // Round trip of the text we wrote.
    assert_eq!(ours.to_text(), text);
}

/// A `.import` as Godot writes it for a UE-style rig (the note's §3.2 example, completed by
/// hand with the UE4 mannequin names of §8), one entry per profile bone.
fn import_text(bone_map_value: &str) -> String {
    format!(
        r#"[remap]

importer="scene"
importer_version=1
type="PackedScene"
uid="uid://c8x3ahs2u0ngk"
path="res://.godot/imported/character.glb-4e5b7d.scn"

[deps]

source_file="res://character.glb"
dest_files=["res://.godot/imported/character.glb-4e5b7d.scn"]

[params]

nodes/root_type=""
nodes/root_name=""
animation/fps=30
_subresources={{
"nodes": {{
"PATH:Armature/Skeleton3D": {{
"retarget/bone_map": {bone_map_value}
}}
}}
}}
gltf/naming_version=1
"#
    )
}

const UE_BONE_MAP: &str = r#"Object(BoneMap,"resource_local_to_scene":false,"resource_name":"","profile":Object(SkeletonProfileHumanoid,"resource_local_to_scene":false,"resource_name":"","root_bone":&"Root","scale_base_bone":&"Hips","group_size":4,"bone_size":56,"script":null)
,"bonemap":null,"bone_map/Root":&"root","bone_map/Hips":&"pelvis","bone_map/Spine":&"spine_01","bone_map/Chest":&"spine_02","bone_map/UpperChest":&"spine_03","bone_map/Neck":&"neck_01","bone_map/Head":&"Head","bone_map/LeftEye":&"","bone_map/RightEye":&"","bone_map/Jaw":&"","bone_map/LeftShoulder":&"clavicle_l","bone_map/LeftUpperArm":&"upperarm_l","bone_map/LeftLowerArm":&"lowerarm_l","bone_map/LeftHand":&"hand_l","bone_map/LeftThumbMetacarpal":&"thumb_01_l","bone_map/LeftThumbProximal":&"thumb_02_l","bone_map/LeftThumbDistal":&"thumb_03_l","bone_map/LeftIndexProximal":&"index_01_l","bone_map/LeftIndexIntermediate":&"index_02_l","bone_map/LeftIndexDistal":&"index_03_l","bone_map/LeftMiddleProximal":&"","bone_map/LeftMiddleIntermediate":&"","bone_map/LeftMiddleDistal":&"","bone_map/LeftRingProximal":&"","bone_map/LeftRingIntermediate":&"","bone_map/LeftRingDistal":&"","bone_map/LeftLittleProximal":&"","bone_map/LeftLittleIntermediate":&"","bone_map/LeftLittleDistal":&"","bone_map/RightShoulder":&"clavicle_r","bone_map/RightUpperArm":&"upperarm_r","bone_map/RightLowerArm":&"lowerarm_r","bone_map/RightHand":&"hand_r","bone_map/RightThumbMetacarpal":&"","bone_map/RightThumbProximal":&"","bone_map/RightThumbDistal":&"","bone_map/RightIndexProximal":&"","bone_map/RightIndexIntermediate":&"","bone_map/RightIndexDistal":&"","bone_map/RightMiddleProximal":&"","bone_map/RightMiddleIntermediate":&"","bone_map/RightMiddleDistal":&"","bone_map/RightRingProximal":&"","bone_map/RightRingIntermediate":&"","bone_map/RightRingDistal":&"","bone_map/RightLittleProximal":&"","bone_map/RightLittleIntermediate":&"","bone_map/RightLittleDistal":&"","bone_map/LeftUpperLeg":&"thigh_l","bone_map/LeftLowerLeg":&"calf_l","bone_map/LeftFoot":&"foot_l","bone_map/LeftToes":&"ball_l","bone_map/RightUpperLeg":&"thigh_r","bone_map/RightLowerLeg":&"calf_r","bone_map/RightFoot":&"foot_r","bone_map/RightToes":&"ball_r","script":null)
"#;

#[test]
fn a_bone_map_inline_in_an_import_file_reads() {
    let text = import_text(UE_BONE_MAP.trim_end());
    let path = Path::new("character.glb.import");
    let mapping = parse_mapping(&text, path, &Library::default()).unwrap();
    assert_eq!(mapping.node.as_deref(), Some("Armature/Skeleton3D"));
    assert_eq!(mapping.root.as_deref(), Some("root"));
    use HumanBone::*;
    let expected = [
        (Hips, "pelvis"),
        (Spine, "spine_01"),
        (Chest, "spine_02"),
        (UpperChest, "spine_03"),
        (Neck, "neck_01"),
        (Head, "Head"),
        (LeftShoulder, "clavicle_l"),
        (LeftUpperArm, "upperarm_l"),
        (LeftLowerArm, "lowerarm_l"),
        (LeftHand, "hand_l"),
        (LeftThumbMetacarpal, "thumb_01_l"),
        (LeftThumbProximal, "thumb_02_l"),
        (LeftThumbDistal, "thumb_03_l"),
        (LeftIndexProximal, "index_01_l"),
        (LeftIndexIntermediate, "index_02_l"),
        (LeftIndexDistal, "index_03_l"),
        (RightShoulder, "clavicle_r"),
        (RightUpperArm, "upperarm_r"),
        (RightLowerArm, "lowerarm_r"),
        (RightHand, "hand_r"),
        (LeftUpperLeg, "thigh_l"),
        (LeftLowerLeg, "calf_l"),
        (LeftFoot, "foot_l"),
        (LeftToes, "ball_l"),
        (RightUpperLeg, "thigh_r"),
        (RightLowerLeg, "calf_r"),
        (RightFoot, "foot_r"),
        (RightToes, "ball_r"),
    ];
    let want: Vec<(HumanBone, Vec<String>)> = expected
        .iter()
        .map(|(b, n)| (*b, vec![(*n).to_owned()]))
        .collect();
    assert_eq!(mapping.table.bones, want);

    // inspect lists every non-empty pair (root included), in file order.
    let report = inspect(&text, path).unwrap();
    assert_eq!(report.resource_type, "PackedScene");
    let map = &report.bone_maps[0];
    assert_eq!(map.node.as_deref(), Some("Armature/Skeleton3D"));
    assert_eq!(map.profile, "SkeletonProfileHumanoid");
    assert_eq!(map.pairs.len(), expected.len() + 1);
    assert_eq!(
        (
            map.pairs[0].profile_bone.as_str(),
            map.pairs[0].skeleton_bone.as_str()
        ),
        ("Root", "root")
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["bone_maps"][0]["pairs"][1]["skeleton_bone"], "pelvis");
    assert_eq!(json["profile"], serde_json::Value::Null);

    // The values survive a write and a read (Godot's file: same values, not the same text).
    let doc = Document::parse(&text, path).unwrap();
    assert_eq!(Document::parse(&doc.to_text(), path).unwrap(), doc);
}

/// A temporary Godot project with the files given (`name`, `text`).
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("project.godot"), "config_version=5\n").unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn a_linked_bone_map_in_an_import_file_reads() {
    let dir = project(&[
        ("maps/ue.tres", NOTE_BONE_MAP),
        (
            "models/character.glb.import",
            &import_text(r#"Resource("res://maps/ue.tres")"#),
        ),
    ]);
    let mapping = read_mapping(
        &dir.path().join("models/character.glb.import"),
        &Library::default(),
    )
    .unwrap();
    assert_eq!(mapping.node.as_deref(), Some("Armature/Skeleton3D"));
    assert_eq!(mapping.table.names(HumanBone::Hips), ["mixamorig_Hips"]);
    let report =
        humanoid::formats::godot::inspect_file(&dir.path().join("models/character.glb.import"))
            .unwrap();
    assert_eq!(
        report.bone_maps[0].linked.as_deref(),
        Some("res://maps/ue.tres")
    );
    assert_eq!(report.bone_maps[0].pairs.len(), 3);
}

/// A `.import`'s linked BoneMap is read only inside its project: an absolute path, `..` past
/// the project and a symbolic link out of it are refused at the link's line and column, and the
/// foreign file is never read (its first line is never quoted).
#[test]
fn a_linked_bone_map_never_reads_outside_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game");
    std::fs::create_dir_all(game.join("models")).unwrap();
    std::fs::create_dir_all(game.join("maps")).unwrap();
    std::fs::write(game.join("project.godot"), "config_version=5\n").unwrap();
    std::fs::write(game.join("maps/ue.tres"), NOTE_BONE_MAP).unwrap();
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    let secret = dir.path().join("outside/x.tres");
    std::fs::write(&secret, "SECRET first line\n").unwrap();
    let import = game.join("models/character.glb.import");
    let read = |link: &str| {
        std::fs::write(&import, import_text(&format!("Resource({link:?})"))).unwrap();
        read_mapping(&import, &Library::default()).map(|m| m.table.names(HumanBone::Hips).to_vec())
    };

    // Inside the project, by res:// or relative path: read.
    assert_eq!(read("res://maps/ue.tres").unwrap(), ["mixamorig_Hips"]);
    assert_eq!(read("../maps/ue.tres").unwrap(), ["mixamorig_Hips"]);

    let mut refused = vec![
        (secret.display().to_string(), "absolute path"),
        ("../../outside/x.tres".to_owned(), "outside the project"),
        (
            "res://../outside/x.tres".to_owned(),
            "climbs out of the project",
        ),
    ];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, game.join("maps/link.tres")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), game.join("out")).unwrap();
        refused.push(("res://maps/link.tres".to_owned(), "outside the project"));
        refused.push(("res://out/x.tres".to_owned(), "outside the project"));
        refused.push(("../out/x.tres".to_owned(), "outside the project"));
    }
    for (link, why) in refused {
        let error = read(&link).unwrap_err().to_string();
        assert!(error.contains(why), "{link}: {error}");
        assert!(error.contains("character.glb.import"), "{link}: {error}");
        assert!(!error.contains("SECRET"), "{link}: {error}");
        let report = humanoid::formats::godot::inspect_file(&import);
        assert!(report.is_err(), "inspect followed {link}");
    }
}

// ---------------------------------------------------------------------------------------------
// A custom SkeletonProfile with non-standard names.

/// The custom profile's bones: name, parent, world position (the canonical T-pose's, written
/// out by hand), in a made-up convention ("koshi" = hips).
const CUSTOM: [(&str, &str, [f64; 3]); 22] = [
    ("base", "", [0.0, 0.0, 0.0]),
    ("koshi", "base", [0.0, 0.75, 0.0]),
    ("sebone", "koshi", [0.0, 0.85, 0.0]),
    ("mune", "sebone", [0.0, 0.95, 0.0]),
    ("kubi", "mune", [0.0, 1.15, 0.0]),
    ("atama", "kubi", [0.0, 1.25, 0.0]),
    ("kata_hidari", "mune", [0.05, 1.15, 0.0]),
    ("ude_hidari", "kata_hidari", [0.1, 1.15, 0.0]),
    ("hiji_hidari", "ude_hidari", [0.35, 1.15, 0.0]),
    ("te_hidari", "hiji_hidari", [0.6, 1.15, 0.0]),
    ("kata_migi", "mune", [-0.05, 1.15, 0.0]),
    ("ude_migi", "kata_migi", [-0.1, 1.15, 0.0]),
    ("hiji_migi", "ude_migi", [-0.35, 1.15, 0.0]),
    ("te_migi", "hiji_migi", [-0.6, 1.15, 0.0]),
    ("momo_hidari", "koshi", [0.1, 0.75, 0.0]),
    ("hiza_hidari", "momo_hidari", [0.1, 0.375, 0.0]),
    ("ashi_hidari", "hiza_hidari", [0.1, 0.0, 0.0]),
    ("tsumasaki_hidari", "ashi_hidari", [0.1, 0.0, 0.15]),
    ("momo_migi", "koshi", [-0.1, 0.75, 0.0]),
    ("hiza_migi", "momo_migi", [-0.1, 0.375, 0.0]),
    ("ashi_migi", "hiza_migi", [-0.1, 0.0, 0.0]),
    ("tsumasaki_migi", "ashi_migi", [-0.1, 0.0, 0.15]),
];

/// The custom profile as a `.tres`, written by hand (identity bases, origins relative to the
/// parent), as Godot's "Export Skeleton Profile" lays it out.
fn custom_profile_tres() -> String {
    let mut text = String::from(
        "[gd_resource type=\"SkeletonProfile\" format=3 uid=\"uid://custom1\"]\n\n[resource]\n\
         root_bone = &\"base\"\nscale_base_bone = &\"koshi\"\ngroup_size = 1\nbone_size = 22\n\
         groups/0/group_name = &\"Body\"\ngroups/0/texture = null\n",
    );
    for (i, (name, parent, at)) in CUSTOM.iter().enumerate() {
        let origin = match CUSTOM.iter().find(|(n, _, _)| n == parent) {
            Some((_, _, p)) => [at[0] - p[0], at[1] - p[1], at[2] - p[2]],
            None => *at,
        };
        text.push_str(&format!(
            "bones/{i}/bone_name = &\"{name}\"\nbones/{i}/bone_parent = &\"{parent}\"\n\
             bones/{i}/tail_direction = 0\n\
             bones/{i}/reference_pose = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, {}, {}, {})\n\
             bones/{i}/handle_offset = Vector2(0.5, 0.5)\nbones/{i}/group = &\"Body\"\n\
             bones/{i}/require = {}\n",
            origin[0],
            origin[1],
            origin[2],
            i == 1
        ));
    }
    text
}

/// The same convention as a hand-written TOML table.
const CUSTOM_TOML: &str = r#"
name = "koshi"
title = "Koshi"
description = "the test's made-up convention"
source = "tests/library/godot.rs"
[bones]
hips = "koshi"
spine = "sebone"
chest = "mune"
neck = "kubi"
head = "atama"
leftShoulder = "kata_hidari"
leftUpperArm = "ude_hidari"
leftLowerArm = "hiji_hidari"
leftHand = "te_hidari"
rightShoulder = "kata_migi"
rightUpperArm = "ude_migi"
rightLowerArm = "hiji_migi"
rightHand = "te_migi"
leftUpperLeg = "momo_hidari"
leftLowerLeg = "hiza_hidari"
leftFoot = "ashi_hidari"
leftToes = "tsumasaki_hidari"
rightUpperLeg = "momo_migi"
rightLowerLeg = "hiza_migi"
rightFoot = "ashi_migi"
rightToes = "tsumasaki_migi"
"#;

/// A small rig using the convention: the body without toes, plus a prop joint.
fn small_rig() -> Asset {
    let keep = |n: &str| !n.starts_with("tsumasaki");
    let mut raw: Vec<RawJoint> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (name, parent, at) in CUSTOM.iter().filter(|(n, _, _)| keep(n)) {
        let parent_index = names.iter().position(|n| n == parent);
        let parent_at = CUSTOM
            .iter()
            .find(|(n, _, _)| n == parent)
            .map_or([0.0; 3], |c| c.2);
        let local = Vec3::new(
            (at[0] - parent_at[0]) as f32,
            (at[1] - parent_at[1]) as f32,
            (at[2] - parent_at[2]) as f32,
        );
        raw.push(RawJoint {
            name: (*name).to_owned(),
            parent: parent_index,
            rest: Trs::new(local, Quat::IDENTITY, Vec3::ONE),
        });
        names.push(name);
    }
    let hand = names.iter().position(|n| *n == "te_hidari").unwrap();
    raw.push(RawJoint {
        name: "sword".to_owned(),
        parent: Some(hand),
        rest: Trs::from_translation(Vec3::new(0.1, 0.0, 0.0)),
    });
    let count = raw.len();
    let (skeleton, _) = Skeleton::from_raw(raw).unwrap();
    Asset::new(Format::Glb, skeleton, (0..count).collect())
}

#[test]
fn a_custom_profile_maps_a_rig_as_a_toml_table_does() {
    let text = custom_profile_tres();
    let path = Path::new("koshi.tres");
    let library = Library::builtin().unwrap();
    let mapping = parse_mapping(&text, path, &library).unwrap();
    assert_eq!(mapping.profile, "SkeletonProfile");
    assert_eq!(mapping.root.as_deref(), Some("base"));
    let toml = Table::parse(CUSTOM_TOML, Path::new("koshi.toml")).unwrap();
    // The profile's bones were told apart by their shape alone; the table lists them as the
    // hand-written one does.
    assert_eq!(mapping.table.bones, toml.bones);
    assert!(mapping.diagnostics.contains("GODOT_PROFILE_MAPPED"));

    let rig = small_rig();
    let by_profile = apply(&mapping.table, &rig);
    let by_toml = apply(&toml, &rig);
    assert_eq!(by_profile.bones, by_toml.bones);
    assert_eq!(by_profile.bones.len(), 19);
    let name = |b| {
        rig.skeleton
            .name(by_profile.bones.get(b).unwrap())
            .to_owned()
    };
    assert_eq!(name(HumanBone::Hips), "koshi");
    assert_eq!(name(HumanBone::RightHand), "te_migi");

    // The profile round-trips: its text, and the profile read from the text we write.
    let doc = Document::parse(&text, path).unwrap();
    let profile = SkeletonProfile::from_section(doc.resource().unwrap(), &doc, path).unwrap();
    assert_eq!(profile.bones.len(), 22);
    let written = profile.to_tres();
    let again_doc = Document::parse(&written, path).unwrap();
    assert_eq!(again_doc.to_text(), written);
    let again =
        SkeletonProfile::from_section(again_doc.resource().unwrap(), &again_doc, path).unwrap();
    assert_eq!(again, profile);
}

#[test]
fn a_bone_map_on_a_profile_in_another_file_reads() {
    let map = |profile_ext: &str| {
        format!(
            "[gd_resource type=\"BoneMap\" format=3 uid=\"uid://map1\"]\n\n{profile_ext}\n\n[resource]\n\
             profile = ExtResource(\"1_prof\")\nbonemap = null\nbone_map/base = &\"Armature\"\n\
             bone_map/koshi = &\"Hips bone\"\nbone_map/atama = &\"Head\"\nbone_map/te_hidari = &\"\"\n\
             bone_map/ude_hidari = &\"Upper Arm.L\"\n"
        )
    };
    let by_path = map("[ext_resource type=\"SkeletonProfile\" uid=\"uid://custom1\" path=\"res://profiles/koshi.tres\" id=\"1_prof\"]");
    // A stale path: the uid finds the file.
    let by_uid = map("[ext_resource type=\"SkeletonProfile\" uid=\"uid://custom1\" path=\"res://old/koshi.tres\" id=\"1_prof\"]");
    let relative = map(
        "[ext_resource type=\"SkeletonProfile\" path=\"../profiles/koshi.tres\" id=\"1_prof\"]",
    );
    let profile = custom_profile_tres();
    let dir = project(&[
        ("profiles/koshi.tres", &profile),
        ("maps/by_path.tres", &by_path),
        ("maps/by_uid.tres", &by_uid),
        ("maps/relative.tres", &relative),
    ]);
    let library = Library::builtin().unwrap();
    for file in ["by_path", "by_uid", "relative"] {
        let path: PathBuf = dir.path().join(format!("maps/{file}.tres"));
        let mapping = read_mapping(&path, &library).unwrap();
        assert_eq!(mapping.root.as_deref(), Some("Armature"), "{file}");
        let expected: Vec<(HumanBone, Vec<String>)> = vec![
            (HumanBone::Hips, vec!["Hips bone".to_owned()]),
            (HumanBone::Head, vec!["Head".to_owned()]),
            (HumanBone::LeftUpperArm, vec!["Upper Arm.L".to_owned()]),
        ];
        assert_eq!(mapping.table.bones, expected, "{file}");
        // The bone map text round-trips.
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Document::parse(&text, &path).unwrap().to_text(), text);
    }
    // Without the project, res:// cannot be resolved: said so, at the profile's line.
    let lone = tempfile::tempdir().unwrap();
    let path = lone.path().join("by_path.tres");
    std::fs::write(&path, &by_path).unwrap();
    let err = read_mapping(&path, &library).unwrap_err().to_string();
    assert!(
        err.contains(": 6:11: cannot resolve \"res://profiles/koshi.tres\": no project.godot"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// Files as they come: with and without load_steps, `bonemap = null`, empty entries, spaces,
// plain strings.

#[test]
fn real_file_variants_read() {
    let text = "[gd_resource type=\"BoneMap\" format=3 uid=\"uid://b2x\"]\n\n\
        [sub_resource type=\"SkeletonProfileHumanoid\" id=\"SkeletonProfileHumanoid_k3j2p\"]\n\n\
        [resource]\nresource_name = \"hero map\"\nprofile = SubResource(\"SkeletonProfileHumanoid_k3j2p\")\n\
        bonemap = null\nbone_map/Hips = &\"Hips Bone\"\nbone_map/Spine = \"spine.001\"\n\
        bone_map/Chest = &\"\"\nbone_map/Head = StringName(\"head\")\n";
    let mapping = parse_mapping(text, Path::new("hero map.tres"), &Library::default()).unwrap();
    assert_eq!(mapping.table.name, "hero-map");
    assert_eq!(mapping.table.names(HumanBone::Hips), ["Hips Bone"]);
    assert_eq!(mapping.table.names(HumanBone::Spine), ["spine.001"]);
    assert_eq!(mapping.table.names(HumanBone::Head), ["head"]);
    assert!(mapping.table.names(HumanBone::Chest).is_empty());
    assert_eq!(mapping.root, None);
    // A SkeletonProfileHumanoid file maps Godot's own names (a rig Godot renamed).
    let humanoid = "[gd_resource type=\"SkeletonProfileHumanoid\" format=3]\n\n[resource]\n";
    let mapping = parse_mapping(humanoid, Path::new("h.tres"), &Library::default()).unwrap();
    assert_eq!(mapping.table.bones.len(), 55);
    assert_eq!(
        mapping.table.names(HumanBone::LeftThumbMetacarpal),
        ["LeftThumbMetacarpal"]
    );
    assert_eq!(mapping.root.as_deref(), Some("Root"));
}

#[test]
fn the_bone_map_of_an_asset_uses_godots_names_and_root() {
    let joint = |name: &str, parent: Option<usize>, y: f32| RawJoint {
        name: name.to_owned(),
        parent,
        rest: Trs::from_translation(Vec3::new(0.0, y, 0.0)),
    };
    // Node order: Armature, then two joints that both become "rig_Hips" in Godot.
    let raw = vec![
        joint("Armature", None, 0.0),
        joint("rig:Hips", Some(0), 1.0),
        joint("rig/Hips", Some(1), 0.1),
        joint("", Some(2), 0.1),
    ];
    let (skeleton, ids) = Skeleton::from_raw(raw).unwrap();
    let mut asset = Asset::new(Format::Glb, skeleton, (0..4).collect());
    let mut bones = BoneMap::new();
    bones.set(HumanBone::Hips, Some(ids[1]));
    bones.set(HumanBone::Spine, Some(ids[2]));
    bones.set(HumanBone::Chest, Some(ids[3]));
    asset.humanoids.push(HumanoidSkeleton {
        root: Some(ids[0]),
        bones,
        declared_t_pose: true,
    });
    let (text, diagnostics) = asset_bone_map_tres(&asset).unwrap();
    assert!(text.contains("\nbone_map/Root = &\"Armature\"\n"), "{text}");
    assert!(text.contains("\nbone_map/Hips = &\"rig_Hips\"\n"));
    assert!(text.contains("\nbone_map/Spine = &\"rig_Hips_2\"\n"));
    assert!(text.contains("\nbone_map/Chest = &\"bone\"\n"));
    assert!(diagnostics.contains("GODOT_BONE_RENAMED"));
    assert_eq!(
        Document::parse(&text, Path::new("a.tres"))
            .unwrap()
            .to_text(),
        text
    );
    // No humanoid: refused with what to do.
    asset.humanoids.clear();
    let err = asset_bone_map_tres(&asset).unwrap_err().to_string();
    assert!(err.contains("map its rig first"), "{err}");
}

#[test]
fn the_written_profiles_round_trip() {
    for profile in [SkeletonProfile::humanoid(), SkeletonProfile::canonical()] {
        let text = profile.to_tres();
        let path = Path::new("p.tres");
        let doc = Document::parse(&text, path).unwrap();
        assert_eq!(doc.to_text(), text);
        let again = SkeletonProfile::from_section(doc.resource().unwrap(), &doc, path).unwrap();
        assert_eq!(again, profile);
        // Read as a mapping: the canonical bones by Godot's names, Root apart.
        let mapping = parse_mapping(&text, path, &Library::default()).unwrap();
        assert_eq!(mapping.table.bones.len(), 55);
        assert_eq!(mapping.table.names(HumanBone::RightToes), ["RightToes"]);
        assert_eq!(mapping.root.as_deref(), Some("Root"));
    }
    // The layout Godot's saver uses (written out by hand for the first bones).
    let text = SkeletonProfile::humanoid().to_tres();
    assert!(text.starts_with(
        "[gd_resource type=\"SkeletonProfile\" format=3]\n\n[resource]\nroot_bone = &\"Root\"\n\
         scale_base_bone = &\"Hips\"\ngroup_size = 4\nbone_size = 56\ngroups/0/group_name = &\"Body\"\n"
    ));
    assert!(text.contains(
        "bones/1/bone_name = &\"Hips\"\nbones/1/bone_parent = &\"Root\"\nbones/1/tail_direction = 1\n\
         bones/1/bone_tail = &\"Spine\"\nbones/1/reference_pose = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0.75, 0)\n\
         bones/1/handle_offset = Vector2(0.5, 0.5)\nbones/1/group = &\"Body\"\nbones/1/require = true\n"
    ));
}

// ---------------------------------------------------------------------------------------------
// Bad input: each error names the file and the line:column.

fn error(text: &str) -> String {
    parse_mapping(text, Path::new("bad.tres"), &Library::default())
        .unwrap_err()
        .to_string()
}

const HEAD: &str = "[gd_resource type=\"BoneMap\" format=3]\n\n[sub_resource type=\"SkeletonProfileHumanoid\" id=\"P\"]\n\n[resource]\nprofile = SubResource(\"P\")\n";

#[test]
fn an_unterminated_string_is_refused_at_its_quote() {
    // The StringName's quote is at line 7, column 18 (after `bone_map/Hips = &`).
    let err = error(&format!("{HEAD}bone_map/Hips = &\"pelvis\n"));
    assert_eq!(
        err,
        "bad.tres: 7:18: unterminated string: no closing `\"` before the end of the file"
    );
    // In a .import cut short after the node path's opening quote (line 21, column 1).
    let text = import_text("Object(BoneMap)").replace(
        "\"PATH:Armature/Skeleton3D\": {",
        "\"PATH:Armature/Skeleton3D: {",
    );
    let text = text.split('\n').take(21).collect::<Vec<_>>().join("\n");
    let err = parse_mapping(&text, Path::new("c.glb.import"), &Library::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "c.glb.import: 21:1: unterminated string: no closing `\"` before the end of the file"
    );
}

#[test]
fn an_unknown_value_constructor_is_refused() {
    let err = error(&format!("{HEAD}bone_map/Hips = Vector5(1, 2)\n"));
    assert_eq!(err, "bad.tres: 7:17: unknown value constructor `Vector5`");
}

#[test]
fn a_sub_resource_that_does_not_exist_is_refused() {
    let text = "[gd_resource type=\"BoneMap\" format=3]\n\n[resource]\nprofile = SubResource(\"SkeletonProfileHumanoid_zzz\")\n";
    assert_eq!(
        error(text),
        "bad.tres: 4:11: SubResource(\"SkeletonProfileHumanoid_zzz\"): this file has no [sub_resource] with id \"SkeletonProfileHumanoid_zzz\""
    );
}

#[test]
fn a_bone_its_profile_lacks_is_refused() {
    let err = error(&format!(
        "{HEAD}bone_map/Hips = &\"pelvis\"\nbone_map/LeftWing = &\"wing_l\"\n"
    ));
    assert_eq!(
        err,
        "bad.tres: 8:1: bone_map/LeftWing: the profile (SkeletonProfileHumanoid) has no bone \"LeftWing\""
    );
    // A custom profile in the same file: its own bone names count, Godot's do not.
    let text = "[gd_resource type=\"BoneMap\" format=3]\n\n[sub_resource type=\"SkeletonProfile\" id=\"C\"]\n\
        bone_size = 1\nbones/0/bone_name = &\"Tail\"\n\n[resource]\nprofile = SubResource(\"C\")\n\
        bone_map/Tail = &\"tail_01\"\nbone_map/Hips = &\"pelvis\"\n";
    assert_eq!(
        error(text),
        "bad.tres: 10:1: bone_map/Hips: the profile (SkeletonProfile) has no bone \"Hips\""
    );
}

#[test]
fn malformed_profiles_and_maps_are_refused_at_their_line() {
    let cases: [(&str, &str); 5] = [
        (
            "[gd_resource type=\"SkeletonProfile\" format=3]\n\n[resource]\nbone_size = 1\nbones/3/bone_name = &\"a\"\n",
            "bad.tres: 5:1: bones/3/bone_name: bone 3 is past bone_size 1",
        ),
        (
            "[gd_resource type=\"SkeletonProfile\" format=3]\n\n[resource]\nbone_size = 1\nbones/0/bone_name = &\"a\"\nbones/0/bone_parent = &\"b\"\n",
            "bad.tres: 6:1: bones/0/bone_parent: the profile has no bone \"b\"",
        ),
        (
            "[gd_resource type=\"SkeletonProfile\" format=3]\n\n[resource]\nbone_size = 1\nbones/0/bone_name = &\"a\"\nbones/0/reference_pose = Vector3(0, 0, 0)\n",
            "bad.tres: 6:1: bones/0/reference_pose: expected Transform3D(…), found Vector3(…)",
        ),
        (
            "[gd_resource type=\"BoneMap\" format=3]\n\n[resource]\nbone_map/Hips = &\"pelvis\"\n",
            "bad.tres: 3:1: the BoneMap has no profile, so its bone_map entries name no profile bone (Godot ignores them): set profile to a SkeletonProfileHumanoid",
        ),
        (
            "[gd_resource type=\"Animation\" format=3]\n\n[resource]\nlength = 1.0\n",
            "bad.tres: a Animation resource: expected a BoneMap or a SkeletonProfile",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(error(text), expected);
    }
}

#[test]
fn hostile_input_never_panics() {
    let samples = [
        "",
        "[",
        "[]",
        "[a",
        "[a b",
        "[a b=",
        "[a b=]",
        "=",
        "a",
        "a =",
        "a = [",
        "a = {",
        "a = {1",
        "a = {1:",
        "a = Object(",
        "a = Object(X,",
        "a = Object(X,\"k\"",
        "a = Array[",
        "a = Array[int](",
        "a = &",
        "a = ^x",
        "a = \"\\u12",
        "a = \"\\ud800\\u0041\"",
        "a = -",
        "a = 1e",
        "a = Transform3D(",
        "a = PackedByteArray(\"a\", \"b\")",
        "a = Resource(1)",
        "\u{feff}[resource]\n",
        "[gd_resource type=\"BoneMap\"]\n[resource]\nprofile = 5\n",
        "[gd_resource type=\"BoneMap\"]\n[resource]\nprofile = Object(Node)\n",
        "[gd_resource type=\"BoneMap\"]\n[resource]\nbone_map/Hips = 3\n",
    ];
    for text in samples {
        let _ = parse_mapping(text, Path::new("x.tres"), &Library::default());
        let _ = inspect(text, Path::new("x.tres"));
    }
    // Every prefix of a real file.
    let full = import_text(UE_BONE_MAP.trim_end());
    for end in (0..full.len()).filter(|i| full.is_char_boundary(*i)) {
        let _ = parse_mapping(&full[..end], Path::new("x.import"), &Library::default());
    }
}
