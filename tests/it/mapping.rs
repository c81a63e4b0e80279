//! `humanoid map` and `humanoid mappings`: tables, detection and the auto-mapper. The expected
//! mappings below are written out by hand from each rig's hierarchy (never produced by the
//! mapper); with the feature `corpus` every humanoid rig of `../shared/corpus/{gltf,vrm}` is
//! checked.

use serde_json::{json, Value};

use crate::util::{demo, glb, glb_parts, humanoid, humanoid_ok, s, temp_dir, write};

/// A small rig with names no built-in table knows: hips, spine, chest, neck, head, arms with
/// hands, legs with feet, in a T-pose facing +Z (left = +X).
fn odd_rig() -> Value {
    // (name, parent, translation from the parent)
    let joints: [(&str, Option<usize>, [f64; 3]); 15] = [
        ("zz_root", None, [0.0, 1.0, 0.0]),
        ("zz_back", Some(0), [0.0, 0.15, 0.0]),
        ("zz_ribs", Some(1), [0.0, 0.2, 0.0]),
        ("zz_collar", Some(2), [0.0, 0.2, 0.0]),
        ("zz_skull", Some(3), [0.0, 0.1, 0.0]),
        ("zz_arm_a", Some(2), [0.2, 0.15, 0.0]),
        ("zz_arm_b", Some(5), [0.28, 0.0, 0.0]),
        ("zz_arm_c", Some(6), [0.26, 0.0, 0.0]),
        ("zz_arm_d", Some(2), [-0.2, 0.15, 0.0]),
        ("zz_arm_e", Some(8), [-0.28, 0.0, 0.0]),
        ("zz_arm_f", Some(9), [-0.26, 0.0, 0.0]),
        ("zz_leg_a", Some(0), [0.1, -0.05, 0.0]),
        ("zz_leg_b", Some(11), [0.0, -0.45, 0.0]),
        ("zz_leg_c", Some(0), [-0.1, -0.05, 0.0]),
        ("zz_leg_d", Some(13), [0.0, -0.45, 0.0]),
    ];
    let nodes: Vec<Value> = joints
        .iter()
        .enumerate()
        .map(|(i, (name, _, t))| {
            let children: Vec<usize> = (0..joints.len())
                .filter(|&c| joints[c].1 == Some(i))
                .collect();
            let mut node = json!({"name": name, "translation": t});
            if !children.is_empty() {
                node["children"] = json!(children);
            }
            node
        })
        .collect();
    json!({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes})
}

const ODD_TABLE: &str = r#"
name = "zz-rig"
title = "ZZ test rig"
description = "names no built-in table knows"
source = "tests/it/mapping.rs"
[match]
prefixes = ["zz"]
[bones]
hips = "root"
spine = "back"
chest = "ribs"
neck = "collar"
head = "skull"
leftUpperArm = "arm_a"
leftLowerArm = "arm_b"
leftHand = "arm_c"
rightUpperArm = "arm_d"
rightLowerArm = "arm_e"
rightHand = "arm_f"
leftUpperLeg = "leg_a"
leftLowerLeg = "leg_b"
leftFoot = "leg_x"
rightUpperLeg = "leg_c"
rightLowerLeg = "leg_d"
rightFoot = "leg_y"
"#;

#[test]
fn a_table_in_a_mappings_folder_is_picked_up_without_code_changes() {
    let dir = temp_dir();
    let rig = write(dir.path(), "odd.glb", &glb(&odd_rig(), &[]));
    let tables = dir.path().join("tables");
    std::fs::create_dir(&tables).unwrap();
    write(&tables, "zz-rig.toml", ODD_TABLE.as_bytes());

    let lint = humanoid_ok(&["mappings", "lint", s(&tables)]);
    assert!(
        lint.stdout.contains("1 table(s), 0 with errors"),
        "{}",
        lint.stdout
    );
    let list = humanoid_ok(&["mappings", "list", "--mappings", s(&tables)]);
    assert!(list.stdout.contains("zz-rig"), "{}", list.stdout);

    let run = humanoid_ok(&["map", "--json", "--mappings", s(&tables), s(&rig)]);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["table"], "zz-rig");
    assert_eq!(report["method"], "table");
    assert_eq!(report["bones"]["leftHand"], "zz_arm_c");
    assert_eq!(report["nodes"]["rightUpperArm"], 8);
    assert_eq!(report["confidence"]["hips"], 1.0);
    // The table's feet name joints the rig does not have: missing, listed.
    assert_eq!(report["missing"], json!(["leftFoot", "rightFoot"]));
    assert_eq!(report["unmapped"], json!([]));
    let keys: Vec<&String> = report.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "table",
            "method",
            "bones",
            "nodes",
            "confidence",
            "missing",
            "unmapped"
        ]
    );
}

/// [`odd_rig`] with its forearms bent forward (+Z) at the elbows: the elbows tell where it
/// faces.
fn odd_rig_bent() -> Value {
    let mut rig = odd_rig();
    rig["nodes"][7]["translation"] = json!([0.2, 0.0, 0.16]);
    rig["nodes"][10]["translation"] = json!([-0.2, 0.0, 0.16]);
    rig
}

#[test]
fn without_a_table_the_shape_maps_the_rig() {
    let dir = temp_dir();
    // A T-pose with no feet and no sides in its names: nothing tells where it faces (the
    // format's convention is not trusted: a rig may be turned), so left and right are not
    // guessed: the trunk only.
    let rig = write(dir.path(), "odd.glb", &glb(&odd_rig(), &[]));
    let report: Value =
        serde_json::from_str(&humanoid_ok(&["map", "--json", s(&rig)]).stdout).unwrap();
    assert_eq!(report["method"], "auto");
    assert_eq!(
        report["bones"],
        json!({"hips": "zz_root", "spine": "zz_back", "chest": "zz_ribs", "neck": "zz_collar", "head": "zz_skull"})
    );
    // Bent elbows point back: the rig faces +Z, its left is +X.
    let rig = write(dir.path(), "bent.glb", &glb(&odd_rig_bent(), &[]));
    let report: Value =
        serde_json::from_str(&humanoid_ok(&["map", "--json", s(&rig)]).stdout).unwrap();
    assert_eq!(report["method"], "auto");
    assert_eq!(report["table"], Value::Null);
    let expected = json!({
        "hips": "zz_root", "spine": "zz_back", "chest": "zz_ribs", "neck": "zz_collar", "head": "zz_skull",
        "leftUpperArm": "zz_arm_a", "leftLowerArm": "zz_arm_b", "leftHand": "zz_arm_c",
        "rightUpperArm": "zz_arm_d", "rightLowerArm": "zz_arm_e", "rightHand": "zz_arm_f",
        "leftUpperLeg": "zz_leg_a", "leftLowerLeg": "zz_leg_b",
        "rightUpperLeg": "zz_leg_c", "rightLowerLeg": "zz_leg_d"
    });
    assert_eq!(report["bones"], expected);
}

#[test]
fn map_writes_an_editable_table_that_maps_the_same() {
    let dir = temp_dir();
    let rig = write(dir.path(), "odd.glb", &glb(&odd_rig_bent(), &[]));
    let table = dir.path().join("odd-rig.toml");
    humanoid_ok(&["map", s(&rig), "-o", s(&table)]);
    let text = std::fs::read_to_string(&table).unwrap();
    assert!(text.contains("leftHand = \"zz_arm_c\""), "{text}");
    // The rig has no feet: the required bones are left for the user to fill in.
    assert!(text.contains("# leftFoot = \"\""), "{text}");
    let run = humanoid(&["map", "--map", s(&table), s(&rig)]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("required bone leftFoot has no entry"),
        "{}",
        run.stderr
    );
    // Filled with the names a full rig of this kind would use.
    let filled = text
        .replace("# leftFoot = \"\"", "leftFoot = \"zz_foot_l\" #")
        .replace("# rightFoot = \"\"", "rightFoot = \"zz_foot_r\" #");
    std::fs::write(&table, filled).unwrap();
    let report: Value =
        serde_json::from_str(&humanoid_ok(&["map", "--json", "--map", s(&table), s(&rig)]).stdout)
            .unwrap();
    assert_eq!(report["table"], "odd-rig");
    assert_eq!(report["bones"]["rightLowerLeg"], "zz_leg_d");
    assert_eq!(report["missing"], json!(["leftFoot", "rightFoot"]));
}

#[test]
fn a_bad_table_is_refused_with_its_line() {
    let dir = temp_dir();
    let tables = dir.path().join("tables");
    std::fs::create_dir(&tables).unwrap();
    let bad = ODD_TABLE.replace("leftHand = \"arm_c\"", "leftHnd = \"arm_c\"");
    write(&tables, "zz-rig.toml", bad.as_bytes());
    let run = humanoid(&["mappings", "lint", s(&tables)]);
    assert_eq!(run.code, 1);
    let line = bad.lines().position(|l| l.starts_with("leftHnd")).unwrap() + 1;
    assert!(
        run.stdout.contains(&format!(
            "zz-rig.toml: {line}:1: \"leftHnd\" is not a canonical bone name"
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("required bone leftHand has no entry"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_built_in_tables_pass_their_checks() {
    let run = humanoid_ok(&["mappings", "lint"]);
    assert!(run.stdout.contains("built-in tables: ok"), "{}", run.stdout);
    let lint = humanoid_ok(&[
        "mappings",
        "lint",
        concat!(env!("CARGO_MANIFEST_DIR"), "/mappings"),
    ]);
    assert!(lint.stdout.contains(" 0 with errors"), "{}", lint.stdout);
    let show = humanoid_ok(&["mappings", "show", "mixamo"]);
    assert!(show.stdout.contains("hips = \"Hips\""), "{}", show.stdout);
}

#[test]
fn a_two_bone_rig_is_not_a_humanoid() {
    let root = json!({"asset": {"version": "2.0"}, "nodes": [{"name": "a", "children": [1]}, {"name": "b", "translation": [0, 1, 0]}]});
    let dir = temp_dir();
    let path = write(dir.path(), "stick.glb", &glb(&root, &[]));
    let run = humanoid(&["map", s(&path)]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("stick.glb") && run.stderr.contains("not a humanoid"),
        "{}",
        run.stderr
    );
}

/// The mannequin (which declares its humanoid) and a copy that declares none.
fn mannequin_and_plain_copy(
    dir: &std::path::Path,
) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let (keep, mannequin, _) = demo();
    let (mut json, bin) = glb_parts(&mannequin);
    json["extensionsUsed"] = Value::Array(Vec::new());
    json.as_object_mut().unwrap().remove("extensions");
    let plain = write(dir, "plain.glb", &glb(&json, &bin));
    (keep, mannequin, plain)
}

/// The `mapped by …` line a command printed (text after the file name).
#[track_caller]
fn mapped_line<'a>(output: &'a str, about: &str) -> &'a str {
    output
        .lines()
        .filter(|l| l.contains(about))
        .find_map(|l| l.find("mapped by ").map(|at| &l[at..]))
        .unwrap_or_else(|| panic!("no `mapped by` line about {about}: {output}"))
}

#[test]
fn map_reports_the_files_declaration_first() {
    let dir = temp_dir();
    let (_keep, mannequin, _) = mannequin_and_plain_copy(dir.path());
    let report: Value =
        serde_json::from_str(&humanoid_ok(&["map", "--json", s(&mannequin)]).stdout).unwrap();
    assert_eq!(report["method"], "declared", "{report}");
    // Every bone the file declares (inspect reads the declaration, an independent path).
    let inspect: Value =
        serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(&mannequin)]).stdout).unwrap();
    let declared = inspect["skeletons"][0]["bones"].as_array().unwrap();
    assert_eq!(report["nodes"].as_object().unwrap().len(), declared.len());
    for bone in declared {
        assert_eq!(
            report["nodes"][bone["bone"].as_str().unwrap()],
            bone["node"],
            "{bone}"
        );
    }
    let text = humanoid_ok(&["map", s(&mannequin)]).stdout;
    assert!(
        text.lines().next().unwrap().ends_with(&format!(
            "mapped by the file's declaration ({} of 55 bones)",
            declared.len()
        )),
        "{text}"
    );
    // `--map auto` runs the tables and the auto-mapper instead, to compare.
    let auto: Value = serde_json::from_str(
        &humanoid_ok(&["map", "--json", "--map", "auto", s(&mannequin)]).stdout,
    )
    .unwrap();
    assert_ne!(auto["method"], "declared", "{auto}");
}

#[test]
fn map_exits_1_when_no_required_bone_is_mapped() {
    let dir = temp_dir();
    let rig = write(dir.path(), "odd.glb", &glb(&odd_rig(), &[]));
    // The Mixamo table knows none of the rig's names.
    let run = humanoid(&["map", "--map", "mixamo", s(&rig)]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("no required bone is mapped") && run.stderr.contains("--map"),
        "{}",
        run.stderr
    );
}

#[test]
fn every_command_maps_an_undeclared_rig_by_one_policy() {
    let dir = temp_dir();
    let (_keep, mannequin, plain) = mannequin_and_plain_copy(dir.path());
    // pose: a rig without a declaration is mapped (it used to refuse without --map), and the
    // bones are where the declared mannequin has them.
    let declared: Value =
        serde_json::from_str(&humanoid_ok(&["pose", "--rest", "--json", s(&mannequin)]).stdout)
            .unwrap();
    let mapped: Value =
        serde_json::from_str(&humanoid_ok(&["pose", "--rest", "--json", s(&plain)]).stdout)
            .unwrap();
    assert_eq!(mapped["rest"], declared["rest"]);
    let pose_line = mapped["mapped"][0].as_str().unwrap().to_owned();
    assert!(
        declared["mapped"][0]
            .as_str()
            .unwrap()
            .contains("mapped by the file's declaration"),
        "{declared}"
    );
    assert!(pose_line.contains("mapped by table "), "{pose_line}");
    let pose_line = mapped_line(&pose_line, "plain.glb").to_owned();
    // pose --anim with an undeclared animation rig, without --map.
    let run = humanoid_ok(&["pose", "--anim", s(&plain), "--uniform", "2", s(&mannequin)]);
    assert_eq!(mapped_line(&run.stdout, "plain.glb"), pose_line);
    // retarget onto the undeclared rig: the same line.
    let out = dir.path().join("retargeted.glb");
    let run = humanoid_ok(&[
        "retarget",
        s(&mannequin),
        "--onto",
        s(&plain),
        "-o",
        s(&out),
    ]);
    assert_eq!(mapped_line(&run.stdout, "(model)"), pose_line);
    assert!(mapped_line(&run.stdout, "(animation)").starts_with("mapped by the file's declaration"));
    // convert to VRM declares it: the same line.
    let out = dir.path().join("plain.vrm");
    let run = humanoid_ok(&["convert", s(&plain), s(&out)]);
    assert_eq!(
        mapped_line(&run.stdout, "EXT_skeleton_humanoid added"),
        pose_line
    );
    // --map overrides a declaration.
    let run = humanoid_ok(&["pose", "--rest", "--map", "auto", s(&mannequin)]);
    assert_eq!(mapped_line(&run.stdout, "mannequin.glb"), pose_line);
}

#[cfg(feature = "corpus")]
mod corpus {
    use serde_json::Value;

    use crate::util::{humanoid, humanoid_ok, s, shared};

    fn map(file: &str) -> Value {
        let path = shared().join("corpus").join(file);
        // `--map auto`: the tables and the auto-mapper, not a declaration the file may have.
        serde_json::from_str(&humanoid_ok(&["map", "--json", "--map", "auto", s(&path)]).stdout)
            .unwrap()
    }

    /// Asserts the mapping is exactly `expected` (bone → joint name): every bone right, none
    /// extra.
    #[track_caller]
    fn assert_mapping(file: &str, expected: &[(&str, String)]) {
        let report = map(file);
        let bones = report["bones"].as_object().unwrap();
        for (bone, name) in expected {
            assert_eq!(
                bones.get(*bone).and_then(Value::as_str),
                Some(name.as_str()),
                "{file}: {bone}"
            );
        }
        let extra: Vec<&String> = bones
            .keys()
            .filter(|b| !expected.iter().any(|(e, _)| e == b))
            .collect();
        assert!(extra.is_empty(), "{file}: unexpected bones {extra:?}");
    }

    fn sides(left: &str, right: &str, list: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (bone, name) in list {
            out.push((format!("left{bone}"), name.replace('@', left)));
            out.push((format!("right{bone}"), name.replace('@', right)));
        }
        out
    }

    fn owned(
        list: Vec<(String, String)>,
        trunk: &[(&'static str, &str)],
    ) -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> =
            trunk.iter().map(|(b, n)| (*b, n.to_string())).collect();
        for (bone, name) in list {
            out.push((Box::leak(bone.into_boxed_str()), name));
        }
        out
    }

    /// Mixamo: Spine/Spine1/Spine2, Arm/ForeArm, UpLeg/Leg, Thumb1..3 = metacarpal..distal.
    fn mixamo(limbs: &[(&str, &str)]) -> Vec<(&'static str, String)> {
        owned(
            sides("Left", "Right", limbs),
            &[
                ("hips", "mixamorig:Hips"),
                ("spine", "mixamorig:Spine"),
                ("chest", "mixamorig:Spine1"),
                ("upperChest", "mixamorig:Spine2"),
                ("neck", "mixamorig:Neck"),
                ("head", "mixamorig:Head"),
            ],
        )
    }

    const MIXAMO_BODY: [(&str, &str); 8] = [
        ("Shoulder", "mixamorig:@Shoulder"),
        ("UpperArm", "mixamorig:@Arm"),
        ("LowerArm", "mixamorig:@ForeArm"),
        ("Hand", "mixamorig:@Hand"),
        ("UpperLeg", "mixamorig:@UpLeg"),
        ("LowerLeg", "mixamorig:@Leg"),
        ("Foot", "mixamorig:@Foot"),
        ("Toes", "mixamorig:@ToeBase"),
    ];

    fn mixamo_fingers() -> Vec<(&'static str, &'static str)> {
        let mut f = Vec::new();
        for (finger, rig) in [
            ("Index", "Index"),
            ("Middle", "Middle"),
            ("Ring", "Ring"),
            ("Little", "Pinky"),
        ] {
            for (i, seg) in ["Proximal", "Intermediate", "Distal"].iter().enumerate() {
                let bone: &'static str = Box::leak(format!("{finger}{seg}").into_boxed_str());
                let name: &'static str =
                    Box::leak(format!("mixamorig:@Hand{rig}{}", i + 1).into_boxed_str());
                f.push((bone, name));
            }
        }
        for (i, seg) in ["Metacarpal", "Proximal", "Distal"].iter().enumerate() {
            let bone: &'static str = Box::leak(format!("Thumb{seg}").into_boxed_str());
            let name: &'static str =
                Box::leak(format!("mixamorig:@HandThumb{}", i + 1).into_boxed_str());
            f.push((bone, name));
        }
        f
    }

    #[test]
    fn xbot_maps_every_bone_and_no_tip() {
        let mut limbs = MIXAMO_BODY.to_vec();
        limbs.extend(mixamo_fingers());
        let expected = mixamo(&limbs);
        assert_eq!(expected.len(), 52);
        assert_mapping("gltf/Xbot_blender_reexport.glb", &expected);
        let report = map("gltf/Xbot_blender_reexport.glb");
        let unmapped = report["unmapped"].as_array().unwrap();
        assert!(
            unmapped.iter().any(|u| u == "mixamorig:HeadTop_End") && unmapped.len() == 13,
            "{unmapped:?}"
        );
    }

    #[test]
    fn soldier_maps_the_bones_it_has() {
        // Soldier's skin lacks LeftHandThumb3 and both Pinky3 joints.
        let mut limbs = MIXAMO_BODY.to_vec();
        limbs.extend(mixamo_fingers());
        let expected: Vec<(&str, String)> = mixamo(&limbs)
            .into_iter()
            .filter(|(b, _)| {
                !["leftThumbDistal", "leftLittleDistal", "rightLittleDistal"].contains(b)
            })
            .collect();
        assert_mapping("gltf/Soldier.glb", &expected);
    }

    #[test]
    fn mannequiny_maps_by_unreal_names() {
        let mut limbs: Vec<(&str, &str)> = vec![
            ("Shoulder", "clavicle.@"),
            ("UpperArm", "upperarm.@"),
            ("LowerArm", "lowerarm.@"),
            ("Hand", "hand.@"),
            ("UpperLeg", "thigh.@"),
            ("LowerLeg", "calf.@"),
            ("Foot", "foot.@"),
            ("Toes", "ball.@"),
            ("ThumbMetacarpal", "thumb_01.@"),
            ("ThumbProximal", "thumb_02.@"),
            ("ThumbDistal", "thumb_03.@"),
        ];
        for (finger, rig) in [("Index", "index"), ("Middle", "middle"), ("Ring", "ring")] {
            for (i, seg) in ["Proximal", "Intermediate", "Distal"].iter().enumerate() {
                let bone: &'static str = Box::leak(format!("{finger}{seg}").into_boxed_str());
                let name: &'static str = Box::leak(format!("{rig}_0{}.@", i + 1).into_boxed_str());
                limbs.push((bone, name));
            }
        }
        let expected = owned(
            sides("l", "r", &limbs),
            &[
                ("hips", "pelvis"),
                ("spine", "spine_01"),
                ("chest", "spine_02"),
                ("neck", "neck_01"),
                ("head", "head"),
            ],
        );
        assert_mapping("gltf/mannequiny.glb", &expected);
    }

    #[test]
    fn cesium_man_maps_by_shape_with_the_right_hips() {
        // Godot's mapper takes torso_joint_3 as the hips; the hips are the joint the legs and
        // the spine leave from.
        let expected = owned(
            sides(
                "L",
                "R",
                &[
                    ("UpperLeg", "leg_joint_@_1"),
                    ("LowerLeg", "leg_joint_@_2"),
                    ("Foot", "leg_joint_@_3"),
                    ("Toes", "leg_joint_@_5"),
                ],
            ),
            &[
                ("hips", "Skeleton_torso_joint_1"),
                ("spine", "Skeleton_torso_joint_2"),
                ("chest", "torso_joint_3"),
                ("neck", "Skeleton_neck_joint_1"),
                ("head", "Skeleton_neck_joint_2"),
                ("leftUpperArm", "Skeleton_arm_joint_L__4_"),
                ("leftLowerArm", "Skeleton_arm_joint_L__3_"),
                ("leftHand", "Skeleton_arm_joint_L__2_"),
                ("rightUpperArm", "Skeleton_arm_joint_R"),
                ("rightLowerArm", "Skeleton_arm_joint_R__2_"),
                ("rightHand", "Skeleton_arm_joint_R__3_"),
            ],
        );
        assert_mapping("gltf/CesiumMan.glb", &expected);
    }

    #[test]
    fn rigged_figure_maps_by_shape() {
        let expected = owned(
            sides(
                "L",
                "R",
                &[
                    ("UpperArm", "arm_joint_@_1"),
                    ("LowerArm", "arm_joint_@_2"),
                    ("Hand", "arm_joint_@_3"),
                    ("UpperLeg", "leg_joint_@_1"),
                    ("LowerLeg", "leg_joint_@_2"),
                    ("Foot", "leg_joint_@_3"),
                    ("Toes", "leg_joint_@_5"),
                ],
            ),
            &[
                ("hips", "torso_joint_1"),
                ("spine", "torso_joint_2"),
                ("chest", "torso_joint_3"),
                ("neck", "neck_joint_1"),
                ("head", "neck_joint_2"),
            ],
        );
        assert_mapping("gltf/RiggedFigure.glb", &expected);
    }

    #[test]
    fn robot_expressive_maps_what_its_hierarchy_allows() {
        // The legs hang from Body, not from the joint named Hips, so Body is the hips; the
        // feet hang from the root (outside the legs) and there is no hand joint (the forearm
        // carries the palms): those stay missing rather than wrong. The fingers hang from the
        // forearm with two joints each (Thumb, Thumb2; Index, Index2; Middle1, Middle2; Ring1,
        // Ring2): the names the H-Anim table knows (Thumb2, Index2, Middle1/2, Ring1/2) are
        // mapped; Thumb and Index, which no table names, are left out.
        let expected = owned(
            sides(
                "L",
                "R",
                &[
                    ("Shoulder", "Shoulder.@"),
                    ("UpperArm", "UpperArm.@"),
                    ("LowerArm", "LowerArm.@"),
                    ("UpperLeg", "UpperLeg.@"),
                    ("LowerLeg", "LowerLeg.@"),
                    ("ThumbProximal", "Thumb2.@"),
                    ("IndexIntermediate", "Index2.@"),
                    ("MiddleProximal", "Middle1.@"),
                    ("MiddleIntermediate", "Middle2.@"),
                    ("RingProximal", "Ring1.@"),
                    ("RingIntermediate", "Ring2.@"),
                ],
            ),
            &[
                ("hips", "Body"),
                ("spine", "Hips"),
                ("chest", "Abdomen"),
                ("upperChest", "Torso"),
                ("neck", "Neck"),
                ("head", "Head"),
            ],
        );
        assert_mapping("gltf/RobotExpressive.glb", &expected);
        let report = map("gltf/RobotExpressive.glb");
        assert_eq!(
            report["missing"],
            serde_json::json!(["leftHand", "rightHand", "leftFoot", "rightFoot"])
        );
    }

    #[test]
    fn godot_hand_rigs_map_without_metacarpals_or_tips() {
        for (file, side) in [
            ("gltf/LeftHandHumanoid.gltf", "Left"),
            ("gltf/RightHandHumanoid.gltf", "Right"),
        ] {
            let lower = side.to_lowercase();
            let mut expected: Vec<(&'static str, String)> = vec![(
                Box::leak(format!("{lower}Hand").into_boxed_str()),
                format!("{side}Hand"),
            )];
            for (finger, segments) in [
                ("Thumb", ["Metacarpal", "Proximal", "Distal"]),
                ("Index", ["Proximal", "Intermediate", "Distal"]),
                ("Middle", ["Proximal", "Intermediate", "Distal"]),
                ("Ring", ["Proximal", "Intermediate", "Distal"]),
                ("Little", ["Proximal", "Intermediate", "Distal"]),
            ] {
                for seg in segments {
                    expected.push((
                        Box::leak(format!("{lower}{finger}{seg}").into_boxed_str()),
                        format!("{side}{finger}{seg}"),
                    ));
                }
            }
            assert_mapping(file, &expected);
            assert_eq!(
                map(file)["missing"].as_array().unwrap().len(),
                14,
                "{file}: partial humanoid, exit 0"
            );
        }
    }

    #[test]
    fn non_humanoids_are_refused_with_the_reason() {
        for file in [
            "gltf/Fox.glb",
            "gltf/RiggedSimple.glb",
            "gltf/SimpleSkin.gltf",
        ] {
            let path = shared().join("corpus").join(file);
            let run = humanoid(&["map", s(&path)]);
            assert_eq!(run.code, 1, "{file}: {}", run.stdout);
            assert!(
                run.stderr.contains("not a humanoid: "),
                "{file}: {}",
                run.stderr
            );
        }
    }

    #[test]
    fn vrm_rigs_map_to_their_declared_bones() {
        // The VRM files declare their humanoid: an independent answer for `map`, which looks
        // at the rig only. Godette's stylised hands have four fingers (thumb, index, middle,
        // little): which one is missing cannot be told from the shape, so her little fingers
        // stay unmapped.
        for entry in std::fs::read_dir(shared().join("corpus/vrm")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("vrm") {
                continue;
            }
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            let report = map(&format!("vrm/{name}"));
            let inspect: Value =
                serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(&path)]).stdout)
                    .unwrap();
            let declared: Vec<(String, u64)> = inspect["skeletons"][0]["bones"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|b| Some((b["bone"].as_str()?.to_owned(), b["node"].as_u64()?)))
                .collect();
            let nodes = report["nodes"].as_object().unwrap();
            for (bone, node) in nodes {
                let expected = declared.iter().find(|(b, _)| b == bone).map(|(_, n)| *n);
                assert_eq!(
                    Some(node.as_u64().unwrap()),
                    expected,
                    "{name}: {bone} is a wrong bone"
                );
            }
            for (bone, _) in &declared {
                let allowed_missing = name == "Godette_vrm_v4.vrm" && bone.contains("Little");
                assert!(
                    nodes.contains_key(bone) || allowed_missing,
                    "{name}: {bone} missing"
                );
            }
        }
    }

    #[test]
    fn convert_with_a_mapping_declares_the_humanoid() {
        use crate::util::{glb_parts, khronos_validate, temp_dir, three_vrm};
        let dir = temp_dir();
        // CesiumMan + the auto-mapper -> glTF with EXT_skeleton_humanoid.
        let input = shared().join("corpus/gltf/CesiumMan.glb");
        let out = dir.path().join("cesium.glb");
        let run = humanoid_ok(&["convert", s(&input), s(&out), "--map", "auto"]);
        assert!(
            run.stdout.contains("EXT_REST_NOT_TPOSE"),
            "CesiumMan's A-pose is reported: {}",
            run.stdout
        );
        let (json, _) = glb_parts(&out);
        let declared =
            &json["extensions"]["EXT_skeleton_humanoid"]["humanoidSkeletons"][0]["humanoidBones"];
        assert_eq!(declared, &map("gltf/CesiumMan.glb")["nodes"]);
        let (errors_in, _, _) = khronos_validate(&input);
        let (errors_out, _, messages) = khronos_validate(&out);
        assert!(errors_out <= errors_in, "{messages:#?}");

        // Xbot (Mixamo names) -> VRM 1.0, mapped by the built-in tables; three-vrm loads it.
        let input = shared().join("corpus/gltf/Xbot_blender_reexport.glb");
        let out = dir.path().join("xbot.vrm");
        humanoid_ok(&["convert", s(&input), s(&out)]);
        let loaded =
            three_vrm(&["--vrm", s(&out), "--rest"]).unwrap_or_else(|e| panic!("three-vrm: {e}"));
        assert_eq!(loaded["vrm"]["boneCount"], 52);
        let ours: Value =
            serde_json::from_str(&humanoid_ok(&["pose", "--rest", "--json", s(&out)]).stdout)
                .unwrap();
        for (bone, theirs) in loaded["rest"].as_object().unwrap() {
            for c in 0..3 {
                let (a, b) = (
                    ours["rest"][bone]["p"][c].as_f64().unwrap(),
                    theirs["p"][c].as_f64().unwrap(),
                );
                assert!((a - b).abs() <= 1e-5, "{bone}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn bvh_rigs_map_by_their_tables() {
        // Biovision style (MocapBank): LeftCollar = shoulder, LeftShoulder = upper arm,
        // LeftWrist = hand, LeftHip = upper leg; Chest/Chest2 the spine.
        let expected = owned(
            sides(
                "Left",
                "Right",
                &[
                    ("Shoulder", "@Collar"),
                    ("UpperArm", "@Shoulder"),
                    ("LowerArm", "@Elbow"),
                    ("Hand", "@Wrist"),
                    ("UpperLeg", "@Hip"),
                    ("LowerLeg", "@Knee"),
                    ("Foot", "@Ankle"),
                ],
            ),
            &[
                ("hips", "Hips"),
                ("spine", "Chest"),
                ("chest", "Chest2"),
                ("neck", "Neck"),
                ("head", "Head"),
            ],
        );
        assert_mapping("bvh/mocapbank_walk.bvh", &expected);

        // CMU 3dsMax-friendly: the same Biovision trap, zero-length lowerback/lowerneck joints
        // (the spine and neck bases), toes; LHipJoint, lhand, LFingers, LThumb left out.
        let expected = owned(
            sides(
                "Left",
                "Right",
                &[
                    ("Shoulder", "@Collar"),
                    ("UpperArm", "@Shoulder"),
                    ("LowerArm", "@Elbow"),
                    ("Hand", "@Wrist"),
                    ("UpperLeg", "@Hip"),
                    ("LowerLeg", "@Knee"),
                    ("Foot", "@Ankle"),
                    ("Toes", "@Toe"),
                ],
            ),
            &[
                ("hips", "Hips"),
                ("spine", "lowerback"),
                ("chest", "Chest"),
                ("upperChest", "Chest2"),
                ("neck", "lowerneck"),
                ("head", "Head"),
            ],
        );
        assert_mapping("bvh/cmu_131_01_3dsmax.bvh", &expected);

        // Mixamo BVH: every bone of the Mixamo GLBs plus the eyes.
        let mut limbs = MIXAMO_BODY.to_vec();
        limbs.extend(mixamo_fingers());
        let mut expected = mixamo(&limbs);
        expected.push(("leftEye", "mixamorig:LeftEye".to_owned()));
        expected.push(("rightEye", "mixamorig:RightEye".to_owned()));
        assert_mapping("bvh/mixamo_freebvh.bvh", &expected);
    }
}

/// The bundled mannequin as a BVH whose hands (and fingers) are cut off: each joint's offset
/// is where the mannequin's rest puts it, the names are the mannequin's, one frame at rest.
fn mannequin_without_hands_bvh() -> String {
    use humanoid::model::HumanBone;
    let m = humanoid::demo::canonical_mannequin().unwrap();
    let s = &m.skeleton;
    let hands: Vec<_> = [HumanBone::LeftHand, HumanBone::RightHand]
        .iter()
        .filter_map(|b| m.humanoid.bones.get(*b))
        .collect();
    let cut = |j| hands.iter().any(|h| *h == j || s.is_ancestor(*h, j));
    let root = s.joints().find(|j| s.parent(*j).is_none()).unwrap();
    let mut text = String::from("HIERARCHY\n");
    let mut channels = 0;
    // Depth first, with the number of open braces as the indent.
    fn emit(
        s: &humanoid::model::Skeleton,
        joint: humanoid::model::JointId,
        depth: usize,
        cut: &dyn Fn(humanoid::model::JointId) -> bool,
        text: &mut String,
        channels: &mut usize,
    ) {
        let pad = "  ".repeat(depth);
        let at = s.rest_world(joint).translation;
        let from = s
            .parent(joint)
            .map_or(glam::Vec3::ZERO, |p| s.rest_world(p).translation);
        let o = at - from;
        let (kind, list) = if depth == 0 {
            (
                "ROOT",
                "6 Xposition Yposition Zposition Zrotation Xrotation Yrotation",
            )
        } else {
            ("JOINT", "3 Zrotation Xrotation Yrotation")
        };
        *channels += if depth == 0 { 6 } else { 3 };
        text.push_str(&format!(
            "{pad}{kind} {}\n{pad}{{\n{pad}  OFFSET {:.6} {:.6} {:.6}\n{pad}  CHANNELS {list}\n",
            s.name(joint),
            o.x,
            o.y,
            o.z
        ));
        let kids: Vec<_> = s.children(joint).filter(|c| !cut(*c)).collect();
        if kids.is_empty() {
            text.push_str(&format!(
                "{pad}  End Site\n{pad}  {{\n{pad}    OFFSET 0 0.05 0\n{pad}  }}\n"
            ));
        }
        for kid in kids {
            emit(s, kid, depth + 1, cut, text, channels);
        }
        text.push_str(&format!("{pad}}}\n"));
    }
    emit(s, root, 0, &cut, &mut text, &mut channels);
    let at = s.rest_world(root).translation;
    let mut frame = vec![format!("{:.6} {:.6} {:.6}", at.x, at.y, at.z)];
    frame.extend(std::iter::repeat_n("0".to_owned(), channels - 3));
    text.push_str(&format!(
        "MOTION\nFrames: 1\nFrame Time: 0.033333\n{}\n",
        frame.join(" ")
    ));
    text
}

/// A partial humanoid is an answer: the mannequin without hands maps every other bone it has,
/// `map` exits 0 naming the missing required bones, and a command that needs them (a VRM needs
/// all 15) refuses naming them; one that does not (retargeting a clip) goes on.
#[test]
fn a_rig_without_hands_maps_the_rest_and_names_what_is_missing() {
    let dir = temp_dir();
    let rig = write(
        dir.path(),
        "handless.bvh",
        mannequin_without_hands_bvh().as_bytes(),
    );
    let run = humanoid_ok(&["map", "--json", s(&rig)]);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        report["missing"],
        json!(["leftHand", "rightHand"]),
        "{report}"
    );
    let bones = report["bones"].as_object().unwrap();
    for bone in [
        "hips",
        "spine",
        "chest",
        "neck",
        "head",
        "leftShoulder",
        "leftUpperArm",
        "leftLowerArm",
        "rightShoulder",
        "rightUpperArm",
        "rightLowerArm",
        "leftUpperLeg",
        "leftLowerLeg",
        "leftFoot",
        "leftToes",
        "rightUpperLeg",
        "rightLowerLeg",
        "rightFoot",
        "rightToes",
    ] {
        assert!(bones.contains_key(bone), "{bone} not mapped: {report}");
    }
    for bone in bones.keys() {
        assert!(
            !bone.contains("Thumb") && !bone.contains("Index") && !bone.ends_with("Hand"),
            "{bone} mapped on a rig without hands: {report}"
        );
    }
    // Each bone is the mannequin joint of its own name (the mannequin names its joints by
    // their canonical bones).
    for (bone, joint) in bones {
        assert_eq!(
            joint.as_str().unwrap().to_ascii_lowercase(),
            bone.to_ascii_lowercase(),
            "{report}"
        );
    }
    let text = humanoid_ok(&["map", s(&rig)]).stdout;
    assert!(
        text.contains("missing required bones: leftHand, rightHand"),
        "{text}"
    );
    // A VRM needs every required bone: refused, naming them.
    let vrm = dir.path().join("handless.vrm");
    let run = humanoid(&["convert", s(&rig), s(&vrm)]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("leftHand") && run.stderr.contains("rightHand"),
        "{}",
        run.stderr
    );
    assert!(!vrm.exists());
}

/// `map --explain` shows, for each bone, the winning joint, its score from names and from
/// shape, and the runner-up: the odd rig's hips are won by the shape alone (no table knows
/// `zz_root`), and a table passed with `--mappings` takes part by name.
#[test]
fn map_explain_shows_each_bones_scores_and_runner_up() {
    let dir = temp_dir();
    let rig = write(dir.path(), "bent.glb", &glb(&odd_rig_bent(), &[]));
    let text = humanoid_ok(&["map", "--explain", s(&rig)]).stdout;
    assert!(
        text.contains("why (names and shape weighed together):"),
        "{text}"
    );
    let hips = text
        .lines()
        .skip_while(|l| !l.starts_with("why ("))
        .find(|l| l.trim_start().starts_with("hips "))
        .unwrap_or_else(|| panic!("no hips line: {text}"));
    assert!(hips.contains("zz_root [names 0, shape 0.90]"), "{hips}");
    assert!(hips.contains("runner-up:"), "{hips}");

    let tables = dir.path().join("tables");
    std::fs::create_dir(&tables).unwrap();
    write(&tables, "zz-rig.toml", ODD_TABLE.as_bytes());
    let run = humanoid_ok(&[
        "map",
        "--json",
        "--explain",
        "--mappings",
        s(&tables),
        s(&rig),
    ]);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let explain = report["explain"].as_array().unwrap();
    let hips = explain.iter().find(|e| e["bone"] == "hips").unwrap();
    assert_eq!(hips["joint"], "zz_root", "{hips}");
    assert_eq!(hips["table"], "zz-rig", "{hips}");
    assert_eq!(hips["names"], 1.0, "{hips}");
    assert_eq!(hips["shape"], 0.9, "{hips}");
    // Both kinds agree on the left hand: names 1 and shape above 0.
    let hand = explain.iter().find(|e| e["bone"] == "leftHand").unwrap();
    assert_eq!(hand["joint"], "zz_arm_c", "{hand}");
    assert!(hand["shape"].as_f64().unwrap() > 0.0, "{hand}");
}
