//! VRM reading: bad input named precisely, and (feature `corpus`) the rest pose of every corpus
//! VRM against the three-vrm oracle's expected output (`../shared/oracle/three-vrm`).

use serde_json::{json, Value};

use crate::util::{glb, humanoid, humanoid_ok, s, temp_dir, write};

/// A VRM 1.0 humanoid: hips → spine → head, both legs and arms with hands and feet (the 15
/// required bones), as nodes `0..15`, plus `patch` merged into the root.
fn vrm1(bones: Value, patch: Value) -> Value {
    let names = [
        "hips",
        "spine",
        "head",
        "leftUpperLeg",
        "leftLowerLeg",
        "leftFoot",
        "rightUpperLeg",
        "rightLowerLeg",
        "rightFoot",
        "leftUpperArm",
        "leftLowerArm",
        "leftHand",
        "rightUpperArm",
        "rightLowerArm",
        "rightHand",
    ];
    // Parents: spine, legs under hips; head and upper arms under spine; chains below.
    let parent = [
        None,
        Some(0),
        Some(1),
        Some(0),
        Some(3),
        Some(4),
        Some(0),
        Some(6),
        Some(7),
        Some(1),
        Some(9),
        Some(10),
        Some(1),
        Some(12),
        Some(13),
    ];
    let x = [
        0.0, 0.0, 0.0, 0.1, 0.0, 0.0, -0.1, 0.0, 0.0, 0.2, 0.25, 0.25, -0.2, -0.25, -0.25,
    ];
    let nodes: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let children: Vec<usize> = (0..names.len()).filter(|&c| parent[c] == Some(i)).collect();
            let mut node =
                json!({"name": name, "translation": [x[i], if i == 0 { 1.0 } else { 0.1 }, 0.0]});
            if !children.is_empty() {
                node["children"] = json!(children);
            }
            node
        })
        .collect();
    let default_bones: serde_json::Map<String, Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.to_string(), json!({"node": i})))
        .collect();
    let bones = if bones.is_null() {
        Value::Object(default_bones)
    } else {
        bones
    };
    let mut root = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["VRMC_vrm"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "extensions": {"VRMC_vrm": {"specVersion": "1.0", "meta": {"name": "t", "authors": ["a"], "licenseUrl": "https://vrm.dev/licenses/1.0/"},
                                    "humanoid": {"humanBones": bones}}}
    });
    if let (Some(root), Some(patch)) = (root.as_object_mut(), patch.as_object()) {
        for (k, v) in patch {
            root.insert(k.clone(), v.clone());
        }
    }
    root
}

/// Writes `root` as `name` (GLB) and runs `command` on it (never a panic).
fn check(command: &str, name: &str, root: &Value) -> crate::util::Run {
    let dir = temp_dir();
    let path = write(dir.path(), name, &glb(root, &[]));
    let run = humanoid(&[command, s(&path)]);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

#[test]
fn a_valid_vrm1_validates() {
    let run = check("validate", "ok.vrm", &vrm1(Value::Null, json!({})));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let run2 = run_inspect_json(&vrm1(Value::Null, json!({})));
    assert_eq!(run2["format"], "vrm1");
    assert_eq!(run2["skeletons"][0]["mapped"], 15);
}

fn run_inspect_json(root: &Value) -> Value {
    let dir = temp_dir();
    let path = write(dir.path(), "m.vrm", &glb(root, &[]));
    serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(&path)]).stdout).unwrap()
}

#[test]
fn missing_required_bones_are_all_named() {
    let bones = json!({"hips": {"node": 0}, "spine": {"node": 1}});
    let run = check("validate", "missing.vrm", &vrm1(bones, json!({})));
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("VRM_MISSING_BONES"), "{}", run.stdout);
    for bone in [
        "head",
        "leftUpperLeg",
        "leftLowerLeg",
        "leftFoot",
        "rightUpperLeg",
        "rightLowerLeg",
        "rightFoot",
        "leftUpperArm",
        "leftLowerArm",
        "leftHand",
        "rightUpperArm",
        "rightLowerArm",
        "rightHand",
    ] {
        assert!(run.stdout.contains(bone), "{bone} named: {}", run.stdout);
    }
    assert!(
        run.stdout
            .contains("13 required humanoid bones are missing"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_bone_mapped_twice_is_reported() {
    let mut root = vrm1(Value::Null, json!({}));
    root["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["spine"] = json!({"node": 0});
    let run = check("validate", "twice.vrm", &root);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("BONE_MAPPED_TWICE") && run.stdout.contains("hips, spine"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_vrm0_bone_listed_twice_keeps_the_first() {
    let root = json!({
        "asset": {"version": "2.0"}, "extensionsUsed": ["VRM"],
        "nodes": [{"name": "a", "children": [1]}, {"name": "b"}],
        "extensions": {"VRM": {"humanoid": {"humanBones": [{"bone": "hips", "node": 0}, {"bone": "hips", "node": 1}]}}}
    });
    let run = check("validate", "twice0.vrm", &root);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("VRM_BONE_LISTED_TWICE")
            && run.stdout.contains("/extensions/VRM/humanoid/humanBones/1"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_bone_index_that_is_not_a_node() {
    let mut root = vrm1(Value::Null, json!({}));
    root["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["head"] = json!({"node": 99});
    for command in ["inspect", "validate"] {
        let run = check(command, "node.vrm", &root);
        assert_eq!(run.code, 1);
        assert!(
            run.stderr.contains("node.vrm")
                && run
                    .stderr
                    .contains("/extensions/VRMC_vrm/humanoid/humanBones/head/node"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains("99") && run.stderr.contains("15 nodes"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_bone_outside_the_hierarchy() {
    // rightHand mapped to a node that is not under the hips.
    let mut root = vrm1(Value::Null, json!({}));
    root["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "stray"}));
    root["scenes"][0]["nodes"] = json!([0, 15]);
    root["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["rightHand"] = json!({"node": 15});
    let run = check("validate", "outside.vrm", &root);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("BONE_OUTSIDE_HIPS") && run.stdout.contains("rightHand"),
        "{}",
        run.stdout
    );
}

#[test]
fn vrm0_and_vrm1_that_disagree() {
    let mut root = vrm1(Value::Null, json!({}));
    let mut v0: Vec<Value> = root["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(bone, v)| json!({"bone": bone, "node": v["node"]}))
        .collect();
    let agree = root.clone();
    v0.iter_mut().find(|b| b["bone"] == "head").unwrap()["node"] = json!(1);
    root["extensions"]["VRM"] = json!({"humanoid": {"humanBones": v0.clone()}});
    let run = check("validate", "both.vrm", &root);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("VRM_VERSIONS_DISAGREE")
            && run.stdout.contains("head (VRMC_vrm: node 2, VRM: node 1)"),
        "{}",
        run.stdout
    );

    let mut same = agree;
    v0.iter_mut().find(|b| b["bone"] == "head").unwrap()["node"] = json!(2);
    same["extensions"]["VRM"] = json!({"humanoid": {"humanBones": v0}});
    let run = check("validate", "both_ok.vrm", &same);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("VRM_BOTH_VERSIONS"), "{}", run.stdout);
}

#[test]
fn a_vrm1_facing_minus_z_is_an_error() {
    let mut root = vrm1(Value::Null, json!({}));
    for node in root["nodes"].as_array_mut().unwrap() {
        if let Some(t) = node.get_mut("translation") {
            t[0] = json!(-t[0].as_f64().unwrap());
        }
    }
    let run = check("validate", "backwards.vrm", &root);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("VRM_FACING"), "{}", run.stdout);
}

#[cfg(feature = "corpus")]
mod oracle {
    use serde_json::Value;

    use crate::util::{glb_parts, humanoid_ok, khronos_validate, s, shared, temp_dir, three_vrm};

    /// Compares a `rest` object with the oracle's: same bones, positions to 1e-5 m,
    /// 1 − |q·q'| < 1e-6.
    #[track_caller]
    fn assert_rest_matches(ours: &Value, expected: &Value, what: &str) {
        let (ours, expected) = (ours.as_object().unwrap(), expected.as_object().unwrap());
        let mut a: Vec<&String> = ours.keys().collect();
        let mut b: Vec<&String> = expected.keys().collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{what}: the same bones");
        let f = |v: &Value| -> Vec<f64> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        for (bone, e) in expected {
            let o = &ours[bone];
            let (p, pe) = (f(&o["p"]), f(&e["p"]));
            let dp = p
                .iter()
                .zip(&pe)
                .map(|(x, y)| (x - y).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                dp <= 1e-5,
                "{what} {bone}: position {p:?} vs {pe:?} ({dp:e} m)"
            );
            let (q, qe) = (f(&o["q"]), f(&e["q"]));
            let dot: f64 = q.iter().zip(&qe).map(|(x, y)| x * y).sum();
            assert!(
                1.0 - dot.abs() < 1e-6,
                "{what} {bone}: rotation {q:?} vs {qe:?}"
            );
        }
    }

    fn oracle(name: &str) -> Value {
        let path = shared().join("oracle/three-vrm").join(name);
        serde_json::from_slice(
            &std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        )
        .unwrap()
    }

    #[test]
    fn rest_pose_equals_three_vrm_for_every_corpus_vrm() {
        let dir = shared().join("corpus/vrm");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("vrm") {
                continue;
            }
            let stem = path.file_stem().unwrap().to_str().unwrap();
            let ours: Value =
                serde_json::from_str(&humanoid_ok(&["pose", "--rest", "--json", s(&path)]).stdout)
                    .unwrap();
            let expected = oracle(&format!("expected_rest_{stem}.json"));
            assert_rest_matches(&ours["rest"], &expected["rest"], stem);
            checked += 1;
        }
        assert_eq!(checked, 7, "every corpus VRM");
    }

    #[test]
    fn rotated_vrm0_rest_equals_three_vrm_rotate_vrm0() {
        let file = shared().join("corpus/vrm/Godette_vrm_v4.vrm");
        let ours: Value = serde_json::from_str(
            &humanoid_ok(&["pose", "--rest", "--json", "--rotate-vrm0", s(&file)]).stdout,
        )
        .unwrap();
        let expected = oracle("expected_anim_Godette_vrm_v4__idle_loop__rotateVRM0.json");
        assert_rest_matches(&ours["rest"], &expected["rest"], "Godette rotated");
    }

    #[test]
    fn vrm_written_back_loads_in_three_vrm_with_the_same_rest() {
        let dir = temp_dir();
        for entry in std::fs::read_dir(shared().join("corpus/vrm")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("vrm") {
                continue;
            }
            let stem = path.file_stem().unwrap().to_str().unwrap();
            let out = dir.path().join(format!("{stem}.vrm"));
            humanoid_ok(&["convert", s(&path), s(&out)]);
            let loaded = three_vrm(&["--vrm", s(&out), "--rest"])
                .unwrap_or_else(|e| panic!("{stem}: three-vrm does not load our output: {e}"));
            let expected = oracle(&format!("expected_rest_{stem}.json"));
            assert_rest_matches(&loaded["rest"], &expected["rest"], stem);
        }
    }

    fn vrm1_files() -> Vec<std::path::PathBuf> {
        [
            "debug_robot.vrm",
            "VRMC_materials_mtoon_UV_Animation_Test.vrm",
            "VRMC_vrm_expressions_isBinary_Overrides.vrm",
        ]
        .iter()
        .map(|n| shared().join("corpus/vrm").join(n))
        .collect()
    }

    #[test]
    fn vrm1_to_gltf_with_ext_and_back_is_the_same_file() {
        let dir = temp_dir();
        for file in vrm1_files() {
            let stem = file.file_stem().unwrap().to_str().unwrap();
            let glb = dir.path().join(format!("{stem}.glb"));
            let back = dir.path().join(format!("{stem}_back.vrm"));
            humanoid_ok(&["convert", s(&file), s(&glb)]);
            humanoid_ok(&["convert", s(&glb), s(&back)]);
            let (json_in, bin_in) = glb_parts(&file);
            let (json_mid, bin_mid) = glb_parts(&glb);
            let (json_back, bin_back) = glb_parts(&back);
            assert_eq!(
                json_back, json_in,
                "{stem}: VRM -> glTF+EXT -> VRM gives the same JSON"
            );
            assert!(
                bin_back == bin_in && bin_mid == bin_in,
                "{stem}: buffers byte-identical"
            );
            // The glTF carries EXT_skeleton_humanoid with the VRM's bones, and keeps VRMC_vrm.
            let ext = &json_mid["extensions"]["EXT_skeleton_humanoid"]["humanoidSkeletons"][0]
                ["humanoidBones"];
            let vrm = json_in["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
                .as_object()
                .unwrap();
            assert_eq!(ext.as_object().unwrap().len(), vrm.len(), "{stem}");
            for (bone, v) in vrm {
                assert_eq!(ext[bone], v["node"], "{stem} {bone}");
            }
            assert!(json_mid["extensions"]["VRMC_vrm"].is_object());
            assert!(json_mid["extensionsUsed"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e == "EXT_skeleton_humanoid"));
            let (errors_in, _, _) = khronos_validate(&file);
            let (errors_mid, _, messages) = khronos_validate(&glb);
            assert!(errors_mid <= errors_in, "{stem}: {messages:#?}");
        }
    }

    #[test]
    fn strip_vrm_leaves_plain_gltf_with_ext() {
        let dir = temp_dir();
        let file = shared().join("corpus/vrm/debug_robot.vrm");
        let out = dir.path().join("plain.glb");
        humanoid_ok(&["convert", "--strip-vrm", s(&file), s(&out)]);
        let (json, _) = glb_parts(&out);
        let text = json.to_string();
        assert!(!text.contains("VRMC_"), "no VRM extension left");
        assert!(json["extensions"]["EXT_skeleton_humanoid"].is_object());
        let inspect: Value =
            serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(&out)]).stdout).unwrap();
        assert_eq!(inspect["format"], "glb");
        assert_eq!(inspect["skeletons"][0]["mapped"], 53);
    }

    #[test]
    fn the_mannequin_as_vrm1_loads_in_three_vrm_at_its_own_rest() {
        let dir = temp_dir();
        let mannequin =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/mannequin.glb");
        let out = dir.path().join("mannequin.vrm");
        let run = humanoid_ok(&[
            "convert",
            s(&mannequin),
            s(&out),
            "--vrm-author",
            "humanoid tests",
        ]);
        assert!(run.stdout.contains("VRM_META_DEFAULTED"), "{}", run.stdout);
        let (json, _) = glb_parts(&out);
        assert_eq!(
            json["extensions"]["VRMC_vrm"]["meta"]["authors"][0],
            "humanoid tests"
        );
        assert!(
            json["extensions"].get("EXT_skeleton_humanoid").is_none(),
            "the repeated EXT skeleton is dropped"
        );
        let ours: Value =
            serde_json::from_str(&humanoid_ok(&["pose", "--rest", "--json", s(&mannequin)]).stdout)
                .unwrap();
        let loaded =
            three_vrm(&["--vrm", s(&out), "--rest"]).unwrap_or_else(|e| panic!("three-vrm: {e}"));
        assert_eq!(loaded["vrm"]["boneCount"], 55);
        assert_rest_matches(&loaded["rest"], &ours["rest"], "mannequin.vrm");
        let (errors, warnings, messages) = khronos_validate(&out);
        assert_eq!((errors, warnings), (0, 0), "{messages:#?}");
        // And back: VRM -> glTF gives the EXT skeleton the mannequin started with.
        let back = dir.path().join("back.glb");
        humanoid_ok(&["convert", s(&out), s(&back)]);
        let (original, _) = glb_parts(&mannequin);
        let (again, _) = glb_parts(&back);
        assert_eq!(
            again["extensions"]["EXT_skeleton_humanoid"],
            original["extensions"]["EXT_skeleton_humanoid"]
        );
    }

    #[test]
    fn vrma_rest_hips_equal_three_vrm() {
        for (vrma, anim) in [
            (
                "idle_loop.vrma",
                "expected_anim_debug_robot__idle_loop.json",
            ),
            ("test.vrma", "expected_anim_debug_robot__test.json"),
            (
                "nop.vrma",
                "expected_anim_VRMC_vrm_expressions_isBinary_Overrides__nop.json",
            ),
        ] {
            let file = shared().join("corpus/vrma").join(vrma);
            let ours: Value =
                serde_json::from_str(&humanoid_ok(&["pose", "--rest", "--json", s(&file)]).stdout)
                    .unwrap();
            let expected = &oracle(anim)["vrma"]["restHipsPosition"];
            for c in 0..3 {
                let (a, b) = (
                    ours["rest"]["hips"]["p"][c].as_f64().unwrap(),
                    expected[c].as_f64().unwrap(),
                );
                assert!((a - b).abs() <= 1e-5, "{vrma}: rest hips {c}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn vrma_tracks_read_as_three_vrm_plays_them() {
        use humanoid::model::clip::{Property, TrackTarget};
        // test.vrma: one arm rotation, the `happy` expression and the gaze.
        let test = humanoid::read_asset(&shared().join("corpus/vrma/test.vrma")).unwrap();
        let clip = &test.asset.clips[0];
        let expected = oracle("expected_anim_debug_robot__test.json");
        let happy = test
            .asset
            .expressions
            .iter()
            .position(|e| e.name == "happy")
            .unwrap();
        let weights = clip
            .track(TrackTarget::Expression(happy as u16), Property::Weights(1))
            .expect("happy track");
        assert!(
            clip.tracks_for(TrackTarget::LookAt).next().is_some(),
            "gaze track"
        );
        for sample in expected["samples"].as_array().unwrap() {
            let t = sample["tClamped"].as_f64().unwrap() as f32;
            let mut w = [0f32];
            weights.sample(t, &mut w);
            let e = sample["expressions"]["happy"].as_f64().unwrap() as f32;
            assert!((w[0] - e).abs() <= 1e-5, "happy at {t}: {} vs {e}", w[0]);
        }

        // idle_loop.vrma: the hips move through a root scaled by 0.01; three-vrm plays the
        // model-space position times the hips-height ratio.
        let idle = humanoid::read_asset(&shared().join("corpus/vrma/idle_loop.vrma")).unwrap();
        let clip = &idle.asset.clips[0];
        let track =
            humanoid::formats::vrm::vrma::hips_offset_track(&idle.asset, clip).expect("hips track");
        let hips = idle.asset.humanoids[0]
            .bones
            .get(humanoid::model::HumanBone::Hips)
            .unwrap();
        let rest = idle.asset.skeleton.rest_world(hips).translation;
        let expected = oracle("expected_anim_debug_robot__idle_loop.json");
        let scale = expected["vrma"]["hipsTranslationScale"].as_f64().unwrap() as f32;
        for sample in expected["samples"].as_array().unwrap() {
            let t = sample["tClamped"].as_f64().unwrap() as f32;
            let mut offset = [0f32; 3];
            track.sample(t, &mut offset);
            let p = sample["bones"]["hips"]["p"].as_array().unwrap();
            for c in 0..3 {
                let ours = (rest[c] + offset[c]) * scale;
                let theirs = p[c].as_f64().unwrap() as f32;
                assert!(
                    (ours - theirs).abs() <= 1e-5,
                    "hips at {t} [{c}]: {ours} vs {theirs}"
                );
            }
        }
    }

    /// World transforms of every joint at time `t` of `clip`, by forward kinematics written
    /// here (sample each joint's tracks, compose down the tree), independent of the library's
    /// VRMA writer.
    fn forward_kinematics(
        asset: &humanoid::Asset,
        clip: &humanoid::model::Clip,
        t: f32,
    ) -> Vec<glam::Mat4> {
        use humanoid::model::clip::{Property, TrackTarget};
        let skeleton = &asset.skeleton;
        let mut world: Vec<glam::Mat4> = Vec::with_capacity(skeleton.len());
        for joint in skeleton.joints() {
            let mut local = skeleton.rest_local(joint);
            if let Some(track) = clip.track(TrackTarget::Joint(joint), Property::Rotation) {
                local.rotation = track.sample_quat(t).unwrap();
            }
            if let Some(track) = clip.track(TrackTarget::Joint(joint), Property::Translation) {
                local.translation = track.sample_vec3(t).unwrap();
            }
            let parent = skeleton
                .parent(joint)
                .map_or(glam::Mat4::IDENTITY, |p| world[p.index()]);
            world.push(parent * local.to_mat4());
        }
        world
    }

    #[test]
    fn vrma_written_from_the_mannequin_plays_in_three_vrm_as_the_original_clip() {
        let dir = temp_dir();
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let model = dir.path().join("mannequin.vrm");
        humanoid_ok(&["convert", s(&corpus.join("mannequin.glb")), s(&model)]);
        let source = humanoid::read_asset(&corpus.join("mannequin.glb"))
            .unwrap()
            .asset;
        let walk = source.clips.iter().find(|c| c.name == "walk").unwrap();
        let bones = source.humanoids[0].bones;
        for (input, name) in [
            ("mannequin.glb", "nodes"),
            ("mannequin_ext_clips.glb", "ext"),
        ] {
            let vrma = dir.path().join(format!("walk_{name}.vrma"));
            humanoid_ok(&["convert", s(&corpus.join(input)), s(&vrma)]);
            let (json, _) = glb_parts(&vrma);
            assert_eq!(
                json["extensions"]["VRMC_vrm_animation"]["specVersion"],
                "1.0"
            );
            assert_eq!(json["animations"][0]["name"], "walk", "{name}: walk first");
            let (errors, _, messages) = khronos_validate(&vrma);
            assert_eq!(errors, 0, "{name}: {messages:#?}");
            let played = three_vrm(&["--vrm", s(&model), "--vrma", s(&vrma), "--uniform", "9"])
                .unwrap_or_else(|e| panic!("three-vrm cannot play {}: {e}", vrma.display()));
            let samples = played["samples"].as_array().unwrap();
            assert_eq!(samples.len(), 9);
            for sample in samples {
                let t = sample["tClamped"].as_f64().unwrap() as f32;
                let world = forward_kinematics(&source, walk, t);
                for (bone, joint) in bones.iter() {
                    let (_, q, p) = world[joint.index()].to_scale_rotation_translation();
                    let theirs = &sample["bones"][bone.as_str()];
                    let f = |v: &Value, i: usize| v[i].as_f64().unwrap() as f32;
                    let tp =
                        glam::Vec3::new(f(&theirs["p"], 0), f(&theirs["p"], 1), f(&theirs["p"], 2));
                    let tq = glam::Quat::from_xyzw(
                        f(&theirs["q"], 0),
                        f(&theirs["q"], 1),
                        f(&theirs["q"], 2),
                        f(&theirs["q"], 3),
                    );
                    assert!(p.distance(tp) <= 1e-4, "{name} {bone} at {t}: {p} vs {tp}");
                    assert!(
                        1.0 - q.dot(tq).abs() < 1e-6,
                        "{name} {bone} at {t}: {q} vs {tq}"
                    );
                }
            }
        }
    }

    #[test]
    fn convert_to_vrm1_migrates_a_vrm0_model_to_the_oracles_turned_rest() {
        let dir = temp_dir();
        let file = shared().join("corpus/vrm/Godette_vrm_v4.vrm");
        let out = dir.path().join("godette_1.vrm");
        let run = humanoid_ok(&["convert", s(&file), s(&out), "--to", "vrm1"]);
        assert!(
            run.stdout.contains("MIGRATE_MTOON"),
            "what was migrated is reported: {}",
            run.stdout
        );
        let ours: Value =
            serde_json::from_str(&humanoid_ok(&["pose", "--rest", "--json", s(&out)]).stdout)
                .unwrap();
        assert_eq!(ours["format"], "vrm1");
        let expected = oracle("expected_anim_Godette_vrm_v4__idle_loop__rotateVRM0.json");
        // Positions only: the migration keeps identity rest rotations (conjugation), where
        // rotateVRM0 pre-multiplies them by R_y(180°).
        let positions = |v: &Value| -> Value {
            Value::Object(
                v.as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, b)| {
                        (
                            k.clone(),
                            serde_json::json!({"p": b["p"], "q": [0, 0, 0, 1]}),
                        )
                    })
                    .collect(),
            )
        };
        assert_rest_matches(
            &positions(&ours["rest"]),
            &positions(&expected["rest"]),
            "Godette migrated",
        );
        let loaded =
            three_vrm(&["--vrm", s(&out), "--rest"]).unwrap_or_else(|e| panic!("three-vrm: {e}"));
        assert_eq!(loaded["vrm"]["metaVersion"], "1");
        assert_rest_matches(
            &positions(&loaded["rest"]),
            &positions(&expected["rest"]),
            "Godette migrated, in three-vrm",
        );
    }
}

/// Issue 15: a plain glTF humanoid written as VRM (1.0 or 0.x) — the facing turn, the bones VRM
/// allows only after their parent, and VRM 0.x made through VRM 1.0. Positions are compared with
/// three-vrm's reading of the output (an independent client) against our reading of the input.
#[cfg(feature = "corpus")]
mod from_plain_gltf {
    use serde_json::Value;

    use crate::util::{humanoid, humanoid_ok, khronos_validate, s, shared, temp_dir, three_vrm};

    /// bone → world position in a `rest` object (`pose --json` or the oracle's).
    fn positions(rest: &Value) -> Vec<(String, [f64; 3])> {
        rest.as_object()
            .unwrap()
            .iter()
            .map(|(bone, v)| {
                let p: Vec<f64> = v["p"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                (bone.clone(), [p[0], p[1], p[2]])
            })
            .collect()
    }

    /// The largest distance between the input's bones (turned by `sign` about +Y) and three-vrm's.
    fn worst(input: &[(String, [f64; 3])], oracle: &[(String, [f64; 3])], sign: f64) -> f64 {
        input
            .iter()
            .map(|(bone, p)| {
                let q = oracle
                    .iter()
                    .find(|(b, _)| b == bone)
                    .unwrap_or_else(|| panic!("three-vrm has no {bone}"))
                    .1;
                ((sign * p[0] - q[0]).powi(2)
                    + (p[1] - q[1]).powi(2)
                    + (sign * p[2] - q[2]).powi(2))
                .sqrt()
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn a_glb_facing_minus_z_is_turned_for_vrm1() {
        // Soldier (Mixamo names) faces −Z: before, the VRM 1.0 written from it faced −Z and
        // our own validate rejected it (VRM_FACING).
        let dir = temp_dir();
        let input = shared().join("corpus/gltf/Soldier.glb");
        let out = dir.path().join("soldier.vrm");
        let run = humanoid_ok(&["convert", s(&input), s(&out), "--to", "vrm1"]);
        assert!(run.stdout.contains("VRM_TURNED"), "{}", run.stdout);
        humanoid_ok(&["validate", s(&out)]);
        let rest: Value =
            serde_json::from_str(&humanoid_ok(&["pose", "--json", s(&input)]).stdout).unwrap();
        let oracle = three_vrm(&["--vrm", s(&out), "--rest"]).expect("three-vrm loads it");
        let error = worst(&positions(&rest["rest"]), &positions(&oracle["rest"]), -1.0);
        assert!(
            error < 1e-4,
            "every bone turned 180° about +Y: off by {error} m"
        );
        let (errors, _, messages) = khronos_validate(&out);
        assert_eq!(errors, 0, "{messages:?}");
    }

    #[test]
    fn a_distal_without_its_intermediate_is_left_out_of_the_vrm() {
        // marvin maps l_thumb1 and l_thumb3 (no l_thumb2): VRM allows a distal bone only after
        // its parent. Before, the VRM was written and our validate rejected it.
        let dir = temp_dir();
        let out = dir.path().join("marvin.vrm");
        let input = shared().join("corpus/hanim/marvin_005.wrl");
        let run = humanoid_ok(&["convert", s(&input), s(&out), "--to", "vrm1"]);
        assert!(
            run.stdout.contains("VRM_BONE_DROPPED") && run.stdout.contains("leftThumbDistal"),
            "{}",
            run.stdout
        );
        let validated = humanoid(&["validate", s(&out)]);
        assert_eq!(
            validated.code, 0,
            "{}{}",
            validated.stdout, validated.stderr
        );
        let oracle = three_vrm(&["--vrm", s(&out), "--rest"]).expect("three-vrm loads it");
        assert!(oracle["rest"].get("leftThumbDistal").is_none());
        assert!(oracle["rest"].get("leftThumbMetacarpal").is_some());
    }

    #[test]
    fn vrm0_takes_rest_and_scale_keys_with_float_noise() {
        // CesiumMan's scale keys (1.0000003576, 1, 0.9999992251) and RiggedFigure's rest
        // scales (1, 1.0000007153, 1.0000009537) are uniform up to f32 noise. Before, VRM 0.x
        // refused both ("non-uniform scale keys", "not a rotation times a uniform scale").
        let dir = temp_dir();
        for name in ["CesiumMan.glb", "RiggedFigure.glb"] {
            let input = shared().join("corpus/gltf").join(name);
            let out = dir.path().join(name).with_extension("vrm");
            humanoid_ok(&["convert", s(&input), s(&out), "--to", "vrm0"]);
            humanoid_ok(&["validate", s(&out)]);
            let rest: Value =
                serde_json::from_str(&humanoid_ok(&["pose", "--json", s(&input)]).stdout).unwrap();
            let oracle = three_vrm(&["--vrm", s(&out), "--rest"]).expect("three-vrm loads it");
            // Both face +Z; VRM 0.x faces −Z (turned).
            let error = worst(&positions(&rest["rest"]), &positions(&oracle["rest"]), -1.0);
            assert!(error < 1e-4, "{name}: off by {error} m");
            let (errors, _, messages) = khronos_validate(&out);
            assert_eq!(errors, 0, "{name}: {messages:?}");
        }
    }

    #[test]
    fn a_vrma_is_no_character_and_the_refusal_says_how_to_make_one() {
        // Before: "writing vrm1 from a vrma file is not built yet", which reads like a stub.
        let dir = temp_dir();
        let input = shared().join("corpus/vrma/idle_loop.vrma");
        for to in ["vrm1", "vrm0"] {
            let out = dir.path().join(format!("{to}.vrm"));
            let run = humanoid(&["convert", s(&input), s(&out), "--to", to]);
            assert_eq!(run.code, 1, "{}", run.stdout);
            assert!(
                run.stderr.contains("no character") && run.stderr.contains("humanoid retarget"),
                "{}",
                run.stderr
            );
            assert!(!out.exists());
        }
    }

    #[test]
    fn vrm0_from_a_bvh_goes_through_vrm1() {
        // Before: "writing vrm0 from a plain glTF file is not built yet".
        let dir = temp_dir();
        let input = shared().join("corpus/bvh/mocapbank_walk.bvh");
        let out = dir.path().join("walk.vrm");
        humanoid_ok(&["convert", s(&input), s(&out), "--to", "vrm0"]);
        let inspected: Value =
            serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(&out)]).stdout).unwrap();
        assert_eq!(inspected["format"], "vrm0", "{inspected}");
        humanoid_ok(&["validate", s(&out)]);
        let rest: Value =
            serde_json::from_str(&humanoid_ok(&["pose", "--json", s(&input)]).stdout).unwrap();
        let oracle = three_vrm(&["--vrm", s(&out), "--rest"]).expect("three-vrm loads it");
        // The BVH faces +Z; VRM 0.x faces −Z.
        let error = worst(&positions(&rest["rest"]), &positions(&oracle["rest"]), -1.0);
        assert!(error < 1e-4, "off by {error} m");
        let (errors, _, messages) = khronos_validate(&out);
        assert_eq!(errors, 0, "{messages:?}");
    }
}
