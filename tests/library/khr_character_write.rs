//! The Khronos avatar drafts written (`--khr-character`, and by default from non-glTF inputs):
//! `KHR_character` + `KHR_character_skeleton_mapping` read back as the humanoid the input
//! declared (by its own extension, an independent reader), `KHR_character_reference_pose` as
//! the input's T-pose rest, look-at nodes where the input's gaze origin is; a declared reference
//! pose is what `--normalize` measures (checked against the file it was made from).

use std::path::{Path, PathBuf};

use humanoid::formats::gltf::khr_character;
use humanoid::ops::khr_write::{KhrCharacter, MappingForm};
use humanoid::{ConvertOptions, ReadOptions};
use serde_json::Value;

fn demo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    humanoid::demo::write_demo(dir.path(), false).unwrap();
    let glb = dir.path().join("mannequin.glb");
    (dir, glb)
}

fn convert(input: &Path, output: &Path, khr: KhrCharacter) -> humanoid::Written {
    let options = ConvertOptions {
        khr_character: khr,
        ..ConvertOptions::default()
    };
    humanoid::convert(input, output, &options)
        .unwrap_or_else(|e| panic!("{} → {}: {e}", input.display(), output.display()))
}

/// A GLB's JSON chunk.
fn glb_json(bytes: &[u8]) -> Value {
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&bytes[20..20 + len]).unwrap()
}

/// The GLB with its JSON chunk replaced by `json` (the BIN chunk untouched).
fn with_json(bytes: &[u8], json: &Value) -> Vec<u8> {
    let old = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let bin = &bytes[20 + old..];
    let mut text = serde_json::to_vec(json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(bin);
    out
}

/// (bone name, node) of the input's first humanoid as its own reader declares it.
fn declared_bones(path: &Path) -> Vec<(String, usize)> {
    let asset = humanoid::read_asset(path).unwrap().asset;
    let humanoid = asset.humanoids.first().expect("a humanoid");
    let mut bones: Vec<(String, usize)> = humanoid
        .bones
        .iter()
        .map(|(bone, joint)| (bone.as_str().to_owned(), asset.source_index(joint)))
        .collect();
    bones.sort();
    bones
}

/// (bone name, node) of the skeleton mapping's VRM humanoid rig, read from the JSON alone.
fn mapping_bones(json: &Value) -> (String, Vec<(String, usize)>) {
    let rigs = json["extensions"]["KHR_character_skeleton_mapping"]["skeletalRigMappings"]
        .as_object()
        .expect("a skeleton mapping");
    assert_eq!(rigs.len(), 1, "{rigs:?}");
    let (key, rig) = rigs.iter().next().unwrap();
    let mut bones: Vec<(String, usize)> = rig
        .as_object()
        .unwrap()
        .iter()
        .map(|(bone, target)| {
            let node = target.get("node").unwrap_or(target).as_u64().unwrap() as usize;
            if let Some(name) = target.get("name") {
                assert_eq!(&json["nodes"][node]["name"], name, "{bone}");
            }
            (bone.clone(), node)
        })
        .collect();
    bones.sort();
    (key.clone(), bones)
}

#[test]
fn khr_character_on_request_maps_every_bone_where_the_file_declares_it_in_both_wire_forms() {
    let (dir, glb) = demo();
    let declared = declared_bones(&glb);
    assert_eq!(declared.len(), 55);
    // Without the option a glTF → glTF write adds nothing.
    let plain = dir.path().join("plain.glb");
    convert(&glb, &plain, KhrCharacter::Auto);
    let text = std::fs::read(&plain).unwrap();
    assert!(!glb_json(&text).to_string().contains("KHR_character"));

    for (form, key) in [
        (MappingForm::Uri, humanoid::ops::khr_write::VRM_HUMANOID_URI),
        (MappingForm::NodeIndex, "vrmHumanoid"),
    ] {
        let out = dir.path().join(format!("{form:?}.glb"));
        convert(&glb, &out, KhrCharacter::On(form));
        let bytes = std::fs::read(&out).unwrap();
        let json = glb_json(&bytes);
        // The vrmHumanoid convention leaves the eyes and the jaw to expressions.
        let expected: Vec<(String, usize)> = declared
            .iter()
            .filter(|(bone, _)| {
                form == MappingForm::Uri || !matches!(bone.as_str(), "leftEye" | "rightEye" | "jaw")
            })
            .cloned()
            .collect();
        assert_eq!(
            mapping_bones(&json),
            (key.to_owned(), expected.clone()),
            "{form:?}"
        );
        // The root is the hips' topmost ancestor (the mannequin's hips are its root node).
        assert_eq!(json["extensions"]["KHR_character"]["rootNode"], 0);
        for name in [
            "KHR_character",
            "KHR_character_skeleton_mapping",
            "KHR_character_reference_pose",
        ] {
            assert!(json["extensionsUsed"]
                .as_array()
                .unwrap()
                .contains(&name.into()));
            let required = json["extensionsRequired"].as_array();
            assert!(!required.is_some_and(|r| r.contains(&name.into())));
        }

        // Without EXT_skeleton_humanoid, the mapping alone declares the same humanoid.
        let mut bare = json.clone();
        bare["extensions"]
            .as_object_mut()
            .unwrap()
            .remove("EXT_skeleton_humanoid");
        let used = bare["extensionsUsed"].as_array_mut().unwrap();
        used.retain(|e| e != "EXT_skeleton_humanoid");
        let bare_path = dir.path().join(format!("{form:?}-bare.glb"));
        std::fs::write(&bare_path, with_json(&bytes, &bare)).unwrap();
        assert_eq!(declared_bones(&bare_path), expected, "{form:?} alone");

        // Kept as it is through a glTF → glTF write that does not ask for it.
        let again = dir.path().join(format!("{form:?}-again.glb"));
        convert(&bare_path, &again, KhrCharacter::Auto);
        let kept = glb_json(&std::fs::read(&again).unwrap());
        for name in ["KHR_character", "KHR_character_skeleton_mapping"] {
            assert_eq!(kept["extensions"][name], bare["extensions"][name], "{name}");
        }
        assert!(kept["extensions"].get("EXT_skeleton_humanoid").is_none());
    }
}

#[test]
fn the_reference_pose_of_a_t_pose_file_is_its_rest_and_is_no_clip() {
    let (dir, glb) = demo();
    let out = dir.path().join("khr.glb");
    convert(&glb, &out, KhrCharacter::On(MappingForm::Uri));
    let input = humanoid::read_asset(&glb).unwrap().asset;
    let output = humanoid::read_asset(&out).unwrap().asset;
    // Not a clip.
    let names = |a: &humanoid::model::Asset| -> Vec<String> {
        a.clips.iter().map(|c| c.name.clone()).collect()
    };
    assert_eq!(names(&output), names(&input));
    let pose = output.reference_pose.as_ref().expect("a reference pose");
    assert_eq!(pose.pose_type, "TPose");
    // The mannequin declares a T-pose rest (EXT_skeleton_humanoid): the pose is the rest.
    assert_eq!(pose.locals.len(), input.skeleton.len());
    for joint in input.skeleton.joints() {
        let (a, b) = (input.skeleton.rest_local(joint), pose.locals[joint.index()]);
        assert!(
            a.translation.abs_diff_eq(b.translation, 1e-6)
                && a.rotation.abs_diff_eq(b.rotation, 1e-6)
                && a.scale.abs_diff_eq(b.scale, 1e-6),
            "{}: {a:?} vs {b:?}",
            input.skeleton.name(joint)
        );
    }
    // One STEP key at time 0 per channel.
    let json = glb_json(&std::fs::read(&out).unwrap());
    let animation = json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["extensions"]["KHR_character_reference_pose"].is_object())
        .unwrap();
    assert_eq!(
        animation["extensions"]["KHR_character_reference_pose"]["poseType"],
        "TPose"
    );
    for sampler in animation["samplers"].as_array().unwrap() {
        assert_eq!(sampler["interpolation"], "STEP");
        let input = &json["accessors"][sampler["input"].as_u64().unwrap() as usize];
        assert_eq!(
            (input["count"].as_u64(), input["max"][0].as_f64()),
            (Some(1), Some(0.0))
        );
    }
}

/// A rig resting in an A-pose whose file declares its T-pose as the reference pose:
/// `--normalize` measures the reference, so the rest it writes is the T-pose the A-pose was
/// made from (the mannequin's own rest, read from the original file).
#[test]
fn normalize_measures_the_declared_reference_pose_not_the_rest() {
    let (dir, glb) = demo();
    let (a_pose, _) = a_pose_files(dir.path(), &glb);
    let original = glb_json(&std::fs::read(dir.path().join("khr-for-a-pose.glb")).unwrap());
    let json = glb_json(&std::fs::read(&a_pose).unwrap());
    let node_of = |name: &str| {
        json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["name"] == name)
            .unwrap()
    };
    let arms = [node_of("leftUpperArm"), node_of("rightUpperArm")];
    let read = humanoid::read(&a_pose, &ReadOptions::default()).unwrap();
    assert!(!read.character.asset.humanoids[0].declared_t_pose);

    let normalized = dir.path().join("normalized.glb");
    let options = ConvertOptions {
        normalize: Some(humanoid::pose::normalize::NormalizeOptions::default()),
        ..ConvertOptions::default()
    };
    let report = humanoid::convert(&a_pose, &normalized, &options).unwrap();
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.code == "NORMALIZE_REFERENCE_POSE"),
        "{:?}",
        report.diagnostics
    );
    let out = glb_json(&std::fs::read(&normalized).unwrap());
    let rotation = rotation_of;
    for &node in &arms {
        let (want, got) = (rotation(&original, node), rotation(&out, node));
        assert!(
            want.angle_between(got) < 1e-4,
            "node {node}: {want:?} vs {got:?}"
        );
        assert!(rotation(&json, node).angle_between(want) > 0.8);
    }
    // Measuring the A-pose rest itself (`--rest node`) swings the arms back along +X but
    // cannot see the twist: the reference pose is what undoes it.
    let node_rest = dir.path().join("node-rest.glb");
    let options = ConvertOptions {
        normalize: Some(humanoid::pose::normalize::NormalizeOptions {
            rest: humanoid::pose::normalize::RestReference::Node,
            rebind: false,
        }),
        ..ConvertOptions::default()
    };
    let report = humanoid::convert(&a_pose, &node_rest, &options).unwrap();
    assert!(!report
        .diagnostics
        .iter()
        .any(|d| d.code == "NORMALIZE_REFERENCE_POSE"));
    let measured = glb_json(&std::fs::read(&node_rest).unwrap());
    for &node in &arms {
        let (want, got) = (rotation(&original, node), rotation(&measured, node));
        assert!(
            want.angle_between(got) > 5f32.to_radians(),
            "node {node}: part of the twist stays, {}°",
            want.angle_between(got).to_degrees()
        );
    }
}

/// A GLB made from a BVH is plain glTF by default: EXT_skeleton_humanoid declares the humanoid,
/// no draft is used, and three.js lists as many animations as `inspect` lists clips (the
/// drafts' reference pose, an animation of its own, would be a second). `--khr-character`
/// adds them.
#[test]
fn a_non_gltf_input_gets_plain_gltf_by_default_and_the_drafts_on_request() {
    let (dir, glb) = demo();
    let bvh = dir.path().join("mannequin.bvh");
    convert(&glb, &bvh, KhrCharacter::Auto);
    let plain = dir.path().join("from-bvh.glb");
    let report = convert(&bvh, &plain, KhrCharacter::Auto);
    assert!(!report
        .diagnostics
        .iter()
        .any(|d| d.code == "KHR_CHARACTER_WRITTEN"));
    let json = glb_json(&std::fs::read(&plain).unwrap());
    assert!(
        !json.to_string().contains("KHR_"),
        "a draft in the plain GLB"
    );
    assert_eq!(declared_bones(&plain).len(), 55);
    let clips = humanoid::read_asset(&bvh).unwrap().asset.clips.len();
    assert_eq!(json["animations"].as_array().map_or(0, Vec::len), clips);
    // The skeleton mapping's reader finds nothing in it either.
    let nodes: Vec<Option<&str>> = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str())
        .collect();
    let mut diagnostics = humanoid::Diagnostics::new();
    let read = khr_character::read_root(
        json["extensions"].as_object(),
        &nodes,
        Path::new("from-bvh.glb"),
        &mut diagnostics,
    )
    .unwrap();
    assert!(read.is_none());

    let on = dir.path().join("on.glb");
    let report = convert(
        &bvh,
        &on,
        KhrCharacter::On(humanoid::ops::khr_write::MappingForm::Uri),
    );
    assert!(report
        .diagnostics
        .iter()
        .any(|d| d.code == "KHR_CHARACTER_WRITTEN"));
    let json = glb_json(&std::fs::read(&on).unwrap());
    let (key, bones) = mapping_bones(&json);
    assert_eq!(key, humanoid::ops::khr_write::VRM_HUMANOID_URI);
    assert_eq!(bones, declared_bones(&on));
}

/// Every corpus VRM and the mannequin (the corpus's EXT_skeleton_humanoid glTFs are hands
/// without hips, which KHR_character cannot root) written with the drafts: the skeleton mapping reads back
/// as the bones the file declares (by its own extension), the reference pose as its T-pose rest
/// (1e-6), the look-at sockets where the input's are (1e-6 m); a second glTF → glTF write keeps
/// them; the Khronos validator finds no error the input did not have.
#[cfg(feature = "corpus")]
#[test]
fn corpus_characters_round_trip_the_drafts() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(corpus.join("vrm"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vrm"))
        .collect();
    inputs.sort();
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    humanoid::demo::write_demo(&demo, false).unwrap();
    inputs.push(demo.join("mannequin.glb"));
    let mut pairs = Vec::new();
    for input in &inputs {
        let name = input.file_name().unwrap().to_string_lossy().to_string();
        let out = dir.path().join(format!("{name}.glb"));
        convert(input, &out, KhrCharacter::On(MappingForm::Uri));
        let json = glb_json(&std::fs::read(&out).unwrap());
        let (_, bones) = mapping_bones(&json);
        assert_eq!(bones, declared_bones(input), "{name}: mapping");
        let source = humanoid::read_asset(input).unwrap().asset;
        let written = humanoid::read_asset(&out).unwrap().asset;
        let pose = written.reference_pose.as_ref().expect("a reference pose");
        assert_eq!(pose.pose_type, "TPose");
        // The same node in both (the output adds look-at nodes, which move joint indices).
        let by_node: std::collections::HashMap<usize, usize> = written
            .skeleton
            .joints()
            .map(|j| (written.source_index(j), j.index()))
            .collect();
        for joint in source.skeleton.joints() {
            let rest = source.skeleton.rest_local(joint);
            let posed = pose.locals[by_node[&source.source_index(joint)]];
            assert!(
                rest.rotation.abs_diff_eq(posed.rotation, 1e-6)
                    && rest.translation.abs_diff_eq(posed.translation, 1e-6),
                "{name}: {} {rest:?} vs {posed:?}",
                source.skeleton.name(joint)
            );
        }
        let looks = |path: &Path| -> Vec<(String, [f32; 3])> {
            let report =
                humanoid::sockets::sockets(path, &humanoid::sockets::SocketOptions::default())
                    .unwrap();
            let mut out: Vec<(String, [f32; 3])> = report
                .sockets
                .iter()
                .filter(|s| matches!(s.kind.as_deref(), Some("gaze_origin" | "look_at")))
                .map(|s| (s.name.clone(), s.position))
                .collect();
            out.sort_by(|a, b| a.0.cmp(&b.0));
            out
        };
        let (want, got) = (looks(input), looks(&out));
        assert_eq!(want.len(), got.len(), "{name}: {want:?} vs {got:?}");
        for (a, b) in want.iter().zip(&got) {
            let d = glam::Vec3::from(a.1).distance(glam::Vec3::from(b.1));
            assert!(a.0 == b.0 && d < 1e-6, "{name}: {a:?} vs {b:?}");
        }
        // Kept by a write that does not ask for them, and without the VRM extensions.
        let again = dir.path().join(format!("{name}.again.glb"));
        let options = ConvertOptions {
            vrm: humanoid::formats::vrm::convert::VrmOptions {
                strip_vrm: true,
                ..Default::default()
            },
            ..ConvertOptions::default()
        };
        humanoid::convert(&out, &again, &options).unwrap();
        let kept = glb_json(&std::fs::read(&again).unwrap());
        assert_eq!(mapping_bones(&kept), mapping_bones(&json), "{name}: kept");
        assert_eq!(looks(&again), got, "{name}: look-at kept");
        pairs.push((input.clone(), out, again));
    }
    let Ok(validator) = std::env::var("HUMANOID_GLTF_VALIDATOR") else {
        eprintln!("HUMANOID_GLTF_VALIDATOR is not set: the outputs are not validated");
        return;
    };
    let modules = PathBuf::from(validator)
        .parent()
        .unwrap()
        .join("node_modules");
    let files: Vec<&PathBuf> = pairs.iter().flat_map(|(a, b, c)| [a, b, c]).collect();
    let out = std::process::Command::new("node")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/matrix/validate_batch.js"))
        .args(&files)
        .env("NODE_PATH", modules)
        .output()
        .unwrap();
    let reports: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        reports.len(),
        files.len(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for triple in reports.chunks(3) {
        let errors = |r: &Value| r["errors"].as_u64().unwrap();
        assert!(
            errors(&triple[1]) <= errors(&triple[0]) && errors(&triple[2]) <= errors(&triple[0]),
            "new validator errors: {triple:?}"
        );
    }
}

/// `KHR_skeleton_bone` is written where its rules hold (the skinned mesh node moved under the
/// skeleton root); a file that lists it and breaks a rule fails `validate` at the rule's JSON
/// pointer, and a rewrite leaves the extension off rather than repeat the claim.
#[test]
fn skeleton_bone_is_written_where_its_rules_hold_and_dropped_where_a_file_breaks_them() {
    let (dir, glb) = demo();
    let out = dir.path().join("bones.glb");
    let report = convert(&glb, &out, KhrCharacter::On(MappingForm::Uri));
    assert!(report
        .diagnostics
        .iter()
        .any(|d| d.code == "KHR_SKELETON_BONE_WRITTEN"));
    let bytes = std::fs::read(&out).unwrap();
    let json = glb_json(&bytes);
    let used = json["extensionsUsed"].as_array().unwrap();
    assert!(used.contains(&"KHR_skeleton_bone".into()));
    // The rules, read from the JSON here: every skin has a skeleton, every skinned mesh node
    // is its direct child, every joint carries the extension and no mesh.
    let nodes = json["nodes"].as_array().unwrap();
    let parent_of = |child: usize| {
        nodes.iter().position(|n| {
            n["children"]
                .as_array()
                .is_some_and(|c| c.contains(&child.into()))
        })
    };
    for skin in json["skins"].as_array().unwrap() {
        let root = skin["skeleton"].as_u64().expect("skin.skeleton") as usize;
        for (i, node) in nodes.iter().enumerate() {
            if node.get("skin").is_some() {
                assert_eq!(parent_of(i), Some(root), "skinned mesh node {i}");
            }
        }
        for joint in skin["joints"].as_array().unwrap() {
            let node = &nodes[joint.as_u64().unwrap() as usize];
            assert!(node["extensions"]["KHR_skeleton_bone"].is_object());
            assert!(node.get("mesh").is_none());
        }
    }
    // The arm: the lower arm hangs at the upper arm's tail, 0.25 m along its +Y.
    let named = |name: &str| nodes.iter().find(|n| n["name"] == name).unwrap();
    let upper = &named("leftUpperArm")["extensions"]["KHR_skeleton_bone"];
    assert!((upper["length"].as_f64().unwrap() - 0.25).abs() < 1e-6);
    assert_eq!(
        named("leftLowerArm")["extensions"]["KHR_skeleton_bone"]["connected"],
        true
    );
    assert!(!humanoid::inspect::validate(&out).unwrap().has_errors());

    // Broken: the skinned mesh node back at the scene root, the extension still listed.
    let mut broken = json.clone();
    let mesh = nodes.iter().position(|n| n.get("skin").is_some()).unwrap();
    let parent = parent_of(mesh).unwrap();
    broken["nodes"][parent]["children"]
        .as_array_mut()
        .unwrap()
        .retain(|c| c != &Value::from(mesh));
    broken["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(mesh.into());
    let bad = dir.path().join("broken.glb");
    std::fs::write(&bad, with_json(&bytes, &broken)).unwrap();
    let found = humanoid::inspect::validate(&bad).unwrap();
    let rule = found
        .iter()
        .find(|d| d.code == "KHR_SKELETON_BONE_MESH_PLACEMENT")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert_eq!(rule.location, format!("/nodes/{mesh}"));
    let rewritten = dir.path().join("rewritten.glb");
    let report = convert(&bad, &rewritten, KhrCharacter::Auto);
    assert!(report
        .diagnostics
        .iter()
        .any(|d| d.code == "KHR_SKELETON_BONE_DROPPED"));
    let json = glb_json(&std::fs::read(&rewritten).unwrap());
    assert!(!json.to_string().contains("KHR_skeleton_bone"));
    assert!(!humanoid::inspect::validate(&rewritten)
        .unwrap()
        .has_errors());
}

/// A node's rotation in glTF JSON (identity when absent).
fn rotation_of(json: &Value, node: usize) -> glam::Quat {
    match json["nodes"][node]["rotation"].as_array() {
        Some(r) => glam::Quat::from_xyzw(
            r[0].as_f64().unwrap() as f32,
            r[1].as_f64().unwrap() as f32,
            r[2].as_f64().unwrap() as f32,
            r[3].as_f64().unwrap() as f32,
        ),
        None => glam::Quat::IDENTITY,
    }
}

/// The mannequin resting in an A-pose (EXT_skeleton_humanoid removed, upper arms lowered 50°
/// and twisted 40°) whose file declares its T-pose rest as the reference pose; and the same
/// file without the reference pose.
fn a_pose_files(dir: &Path, glb: &Path) -> (PathBuf, PathBuf) {
    let khr = dir.join("khr-for-a-pose.glb");
    convert(glb, &khr, KhrCharacter::On(MappingForm::Uri));
    let bytes = std::fs::read(&khr).unwrap();
    let mut json = glb_json(&bytes);
    json["extensions"]
        .as_object_mut()
        .unwrap()
        .remove("EXT_skeleton_humanoid");
    json["extensionsUsed"]
        .as_array_mut()
        .unwrap()
        .retain(|e| e != "EXT_skeleton_humanoid");
    for (name, degrees) in [("leftUpperArm", -50f32), ("rightUpperArm", 50f32)] {
        let node = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["name"] == name)
            .unwrap();
        let old = rotation_of(&json, node);
        let lowered = glam::Quat::from_rotation_z(degrees.to_radians())
            * glam::Quat::from_rotation_x(40f32.to_radians())
            * old;
        json["nodes"][node]["rotation"] = serde_json::json!(lowered.to_array());
    }
    let with = dir.join("a-pose-with-reference.glb");
    std::fs::write(&with, with_json(&bytes, &json)).unwrap();
    // Without: the reference pose's marker removed, and the animation with it.
    let animations = json["animations"].as_array_mut().unwrap();
    animations.retain(|a| a["extensions"]["KHR_character_reference_pose"].is_null());
    let used = json["extensionsUsed"].as_array_mut().unwrap();
    used.retain(|e| e != "KHR_character_reference_pose");
    let without = dir.join("a-pose-without-reference.glb");
    std::fs::write(&without, with_json(&bytes, &json)).unwrap();
    (with, without)
}

/// Retargeting onto the A-pose rig measures it in its declared reference pose: every bone
/// moves in the world as on the T-pose rig it was made from (1e-4 m); without the reference
/// pose the measured rest cannot see the arms' twist and the arms go elsewhere.
#[test]
fn retargeting_measures_the_declared_reference_pose() {
    use humanoid::bone_pose::{pose, PoseOptions, Times};
    let (dir, glb) = demo();
    let (with, without) = a_pose_files(dir.path(), &glb);
    let sample = |model: &Path| {
        let options = PoseOptions {
            anim: Some(glb.clone()),
            times: Times::Uniform(5),
            ..PoseOptions::default()
        };
        pose(model, &options).unwrap_or_else(|e| panic!("{}: {e}", model.display()))
    };
    let (want, got, off) = (sample(&glb), sample(&with), sample(&without));
    let mut worst = 0f32;
    let mut worst_without = 0f32;
    for ((a, b), c) in want.samples.iter().zip(&got.samples).zip(&off.samples) {
        for (bone, t) in &a.bones {
            let p = glam::Vec3::from(t.p);
            worst = worst.max(p.distance(glam::Vec3::from(b.bones[bone].p)));
            worst_without = worst_without.max(p.distance(glam::Vec3::from(c.bones[bone].p)));
        }
    }
    eprintln!("retarget onto the A-pose rig: {worst:e} m with its reference pose, {worst_without} m without");
    assert!(worst < 1e-4, "with the reference pose: {worst} m");
    assert!(worst_without > 0.01, "without it: {worst_without} m");
}

/// A VRM 1.0 written with the drafts (skeleton bones, moved mesh nodes, expressions, a
/// reference-pose animation, a look-at node) loads in three-vrm with every bone where the VRM
/// written without them has it: the oracle's rest output is the same.
#[cfg(feature = "corpus")]
#[test]
fn three_vrm_loads_a_vrm_with_the_drafts_as_one_without() {
    let Ok(script) = std::env::var("HUMANOID_THREE_VRM_ORACLE") else {
        eprintln!("HUMANOID_THREE_VRM_ORACLE is not set: not checked");
        return;
    };
    let godette =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/vrm/Godette_vrm_v4.vrm");
    let dir = tempfile::tempdir().unwrap();
    let rest = |khr: KhrCharacter, name: &str| -> Value {
        let out = dir.path().join(name);
        let options = ConvertOptions {
            to: Some(humanoid::formats::Format::Vrm1),
            khr_character: khr,
            ..ConvertOptions::default()
        };
        humanoid::convert(&godette, &out, &options).unwrap();
        let output = std::process::Command::new("node")
            .arg(&script)
            .arg("--vrm")
            .arg(&out)
            .arg("--rest")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        report["rest"].clone()
    };
    let (plain, khr) = (
        rest(KhrCharacter::Off, "plain.vrm"),
        rest(KhrCharacter::On(MappingForm::Uri), "khr.vrm"),
    );
    assert_eq!(plain.as_object().map(|o| o.len()), Some(45));
    assert_eq!(plain, khr);
}
