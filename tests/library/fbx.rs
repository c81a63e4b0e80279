//! FBX in (ufbx): every corpus file reads; the humanoid rigs map hips, spine, neck, head, arms
//! and legs to the joints written here by hand from each file's hierarchy (`../shared/corpus/fbx/
//! MANIFEST.md`), and never to a joint of the control rigs beside them.

use std::path::PathBuf;

use humanoid::model::HumanBone;

fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/fbx")
        .join(name)
}

#[test]
fn every_corpus_fbx_reads_with_its_skeleton_and_clips() {
    for (name, joints_at_least, clips) in [
        // HumanIK's and the barbarian's takes key their nodes at rest: still a clip each.
        // maya_character's take keys nothing (FBX_CLIP_EMPTY): no clip.
        ("maya_human_ik_7400_binary.fbx", 100, 1),
        ("maya_kenney_character_7700_binary.fbx", 50, 1),
        ("maya_character_7500_binary.fbx", 50, 0),
        ("blender_293_barbarian_7400_binary.fbx", 30, 1),
        ("max_transformed_skin_7500_binary.fbx", 5, 1),
    ] {
        let outcome = humanoid::read_asset(&corpus(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let asset = outcome.asset;
        assert_eq!(asset.format, humanoid::formats::Format::Fbx);
        assert!(
            asset.skeleton.len() >= joints_at_least,
            "{name}: {} joints",
            asset.skeleton.len()
        );
        assert_eq!(asset.clips.len(), clips, "{name}: clips");
        let codes: Vec<&str> = outcome.diagnostics.iter().map(|d| d.code).collect();
        assert!(codes.contains(&"FBX_SPACE_CONVERTED"), "{name}: {codes:?}");
    }
}

/// (bone, joint) pairs read off each file's hierarchy by hand.
fn expected(prefix: &str, chest: &[(HumanBone, &str)]) -> Vec<(HumanBone, String)> {
    use HumanBone::*;
    let mut pairs: Vec<(HumanBone, &str)> = vec![
        (Hips, "Hips"),
        (Spine, "Spine"),
        (Neck, "Neck"),
        (Head, "Head"),
        (LeftUpperArm, "LeftArm"),
        (LeftLowerArm, "LeftForeArm"),
        (LeftHand, "LeftHand"),
        (RightUpperArm, "RightArm"),
        (RightLowerArm, "RightForeArm"),
        (RightHand, "RightHand"),
        (LeftUpperLeg, "LeftUpLeg"),
        (LeftLowerLeg, "LeftLeg"),
        (LeftFoot, "LeftFoot"),
        (RightUpperLeg, "RightUpLeg"),
        (RightLowerLeg, "RightLeg"),
        (RightFoot, "RightFoot"),
    ];
    pairs.extend_from_slice(chest);
    pairs
        .into_iter()
        .map(|(b, j)| (b, format!("{prefix}{j}")))
        .collect()
}

#[test]
fn humanoid_rigs_map_every_main_bone_to_the_right_joint() {
    use HumanBone::*;
    let humanik_chest = [(Chest, "Spine1"), (UpperChest, "Spine2")];
    let cases = [
        (
            "maya_human_ik_7400_binary.fbx",
            expected("Character1_", &humanik_chest),
        ),
        (
            "maya_character_7500_binary.fbx",
            expected("Character1_", &humanik_chest),
        ),
        ("maya_kenney_character_7700_binary.fbx", expected("", &[])),
    ];
    for (name, pairs) in cases {
        let outcome = humanoid::read_asset(&corpus(name)).unwrap();
        // The HumanIK rigs by the humanik table (the names with their Character1_ prefix).
        if name.contains("character_7500") || name.contains("human_ik") {
            let how = outcome
                .diagnostics
                .iter()
                .find(|d| d.code == "HUMANOID_MAPPED")
                .map(|d| d.message.clone())
                .unwrap_or_default();
            assert!(how.contains("table humanik"), "{name}: {how}");
        }
        let asset = outcome.asset;
        let humanoid = asset
            .humanoids
            .first()
            .unwrap_or_else(|| panic!("{name}: not mapped"));
        for (bone, joint) in &pairs {
            let mapped = humanoid.bones.get(*bone).map(|j| asset.skeleton.name(j));
            assert_eq!(mapped, Some(joint.as_str()), "{name}: {bone}");
        }
        for (bone, joint) in humanoid.bones.iter() {
            let joint_name = asset.skeleton.name(joint);
            // No bone on the control rigs (HumanIK effectors, Kenney's IK controls).
            for rig in ["Ctrl", "Effector", "IK", "Roll"] {
                assert!(
                    !joint_name.contains(rig),
                    "{name}: {bone} on the control rig's {joint_name}"
                );
            }
            // Kenney's Chest and UpperChest: mapped to those joints or not at all.
            if name.starts_with("maya_kenney") && matches!(bone, Chest | UpperChest) {
                let right = if bone == Chest { "Chest" } else { "UpperChest" };
                assert_eq!(joint_name, right, "{name}: {bone}");
            }
        }
    }
}

#[test]
fn units_come_out_in_metres_with_y_up() {
    // Kenney's character is authored in centimetres; standing, its head is above its hips,
    // which are above its feet, at a human scale once in metres.
    let asset = humanoid::read_asset(&corpus("maya_kenney_character_7700_binary.fbx"))
        .unwrap()
        .asset;
    let bones = asset.humanoids[0].bones;
    let y = |bone| {
        asset
            .skeleton
            .rest_world(bones.get(bone).unwrap())
            .translation
            .y
    };
    let (head, hips, foot) = (
        y(HumanBone::Head),
        y(HumanBone::Hips),
        y(HumanBone::LeftFoot),
    );
    assert!(
        head > hips && hips > foot,
        "head {head}, hips {hips}, foot {foot}"
    );
    assert!(
        (0.2..3.0).contains(&(head - foot)),
        "height {} m",
        head - foot
    );
}

#[test]
fn broken_fbx_is_refused_with_ufbxs_reason() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(corpus("maya_kenney_character_7700_binary.fbx")).unwrap();
    let truncated = dir.path().join("truncated.fbx");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let error = humanoid::read_asset(&truncated).unwrap_err();
    assert_eq!(error.code(), "FBX_INVALID");
    let message = error.to_string();
    assert!(
        message.contains("truncated.fbx") && message.contains("ufbx cannot read it"),
        "{message}"
    );
}

/// The OBJ's vertices (`v x y z`), in its file's units and axes.
fn obj_vertices(name: &str) -> Vec<glam::Vec3> {
    std::fs::read_to_string(corpus(name))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            glam::Vec3::new(v[0], v[1], v[2])
        })
        .collect()
}

/// The file's unit (metres) and its axes as rows (right, up, front), read from the reader's
/// FBX_SPACE_CONVERTED note: what turns the OBJ (written in the file's own space) into ours.
fn file_space(diagnostics: &humanoid::Diagnostics) -> (f32, glam::Mat3) {
    let note = diagnostics
        .iter()
        .find(|d| d.code == "FBX_SPACE_CONVERTED")
        .unwrap()
        .message
        .clone();
    let unit: f32 = note
        .split("unit of ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let axis = |label: &str| -> glam::Vec3 {
        let word = note
            .split(label)
            .nth(1)
            .unwrap()
            .split([',', ' '])
            .next()
            .unwrap();
        let sign = if word.starts_with("Negative") {
            -1.0
        } else {
            1.0
        };
        sign * match word
            .trim_start_matches("Positive")
            .trim_start_matches("Negative")
        {
            "X" => glam::Vec3::X,
            "Y" => glam::Vec3::Y,
            _ => glam::Vec3::Z,
        }
    };
    let rows = glam::Mat3::from_cols(axis("right "), axis("up "), axis("front ")).transpose();
    (unit, rows)
}

/// The symmetric distance between two point sets: the farthest any point of one lies from
/// the nearest point of the other (vertex order plays no part: the OBJ lists each position once,
/// our meshes one vertex per polygon corner).
fn set_distance(a: &[glam::Vec3], b: &[glam::Vec3]) -> f32 {
    let one_way = |from: &[glam::Vec3], to: &[glam::Vec3]| {
        from.iter()
            .map(|p| {
                to.iter()
                    .map(|q| p.distance_squared(*q))
                    .fold(f32::MAX, f32::min)
            })
            .fold(0.0f32, f32::max)
            .sqrt()
    };
    one_way(a, b).max(one_way(b, a))
}

#[test]
fn skinned_vertices_at_frames_equal_the_authoring_tools_obj() {
    for (fbx, frames) in [
        ("maya_kenney_character_7700_binary.fbx", [4, 9]),
        ("max_transformed_skin_7500_binary.fbx", [5, 15]),
    ] {
        let read = humanoid::read(&corpus(fbx), &humanoid::ReadOptions::default()).unwrap();
        let (unit, rows) = file_space(&read.diagnostics);
        let character = read.character;
        let skeleton = &character.asset.skeleton;
        let clip = &character.asset.clips[0];
        let fps: f32 = {
            let note = read
                .diagnostics
                .iter()
                .find(|d| d.code == "FBX_SPACE_CONVERTED")
                .unwrap();
            note.message
                .split(" at ")
                .last()
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        for frame in frames {
            let mut sampler = humanoid::pose::fk::Sampler::new(skeleton, clip);
            sampler.evaluate(frame as f32 / fps);
            let worlds = sampler.worlds();
            let ours: Vec<glam::Vec3> = character
                .meshes
                .iter()
                .flat_map(|mesh| {
                    let skin: Vec<glam::Mat4> = mesh
                        .joints_used
                        .iter()
                        .zip(&mesh.inverse_bind)
                        .map(|(j, ibm)| worlds[j.index()] * *ibm)
                        .collect();
                    mesh.positions.iter().enumerate().map(move |(v, p)| {
                        let p = glam::Vec3::from(*p);
                        (0..4)
                            .map(|i| {
                                let w = mesh.weights[v][i];
                                skin[mesh.joints[v][i] as usize].transform_point3(p) * w
                            })
                            .sum::<glam::Vec3>()
                    })
                })
                .collect();
            let obj_name = fbx.split("_7").next().unwrap().to_owned() + &format!("_{frame}.obj");
            let theirs: Vec<glam::Vec3> = obj_vertices(&obj_name)
                .iter()
                .map(|p| rows * (*p * unit))
                .collect();
            let (min, max) = theirs
                .iter()
                .fold((glam::Vec3::MAX, glam::Vec3::MIN), |(a, b), p| {
                    (a.min(*p), b.max(*p))
                });
            let size = (max - min).length();
            let d = set_distance(&ours, &theirs);
            assert!(
                d <= 1e-4 * size,
                "{fbx} frame {frame}: vertices {d} m from the OBJ's (model {size} m)"
            );
        }
    }
}

/// Runs Blender's own FBX exporter (`tests/peers/blender_fbx_export.py`) on `glb`: one FBX per
/// clip in `out` (`kind`: `mesh` or `armature`). Returns Blender's JSON, or `None` (with a
/// note) when `HUMANOID_BLENDER` is not set.
fn blender_fbx(
    glb: &std::path::Path,
    out: &std::path::Path,
    kind: &str,
) -> Option<serde_json::Value> {
    let Ok(binary) = std::env::var("HUMANOID_BLENDER") else {
        eprintln!("HUMANOID_BLENDER is not set: the Blender-exported FBX checks are skipped");
        return None;
    };
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers/blender_fbx_export.py");
    let output = std::process::Command::new(binary)
        .args(["-b", "--factory-startup", "--python"])
        .arg(&script)
        .arg("--")
        .arg(glb)
        .arg(out)
        .arg(kind)
        .output()
        .expect("run blender");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("BLENDER_JSON "))
        .unwrap_or_else(|| {
            panic!(
                "Blender exported nothing: {stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
    Some(serde_json::from_str(line).expect("Blender's JSON"))
}

fn soldier_glb() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/gltf/Soldier.glb")
}

/// Mixamo FBX as Blender's FBX exporter writes it from `Soldier.glb` (a Mixamo rig with four
/// clips), with its meshes and as the armature alone: every joint of the GLB is in the FBX
/// under its name, and at every frame Blender exported, each joint's world position equals the
/// GLB's at that time (1e-4 m; the GLB's keys are at 24 fps, Blender's frame rate, so each
/// exported frame is a GLB key and no interpolation stands between the two).
#[test]
fn blender_exported_mixamo_fbx_has_the_glbs_joints_at_every_frame() {
    let dir = tempfile::tempdir().unwrap();
    let options = humanoid::ReadOptions {
        meshes: humanoid::asset::MeshDetail::Bind,
        ..humanoid::ReadOptions::default()
    };
    let glb = humanoid::read(&soldier_glb(), &options).unwrap().character;
    let mesh_nodes: Vec<humanoid::model::JointId> =
        glb.mesh_nodes.iter().flatten().copied().collect();
    let names: Vec<&str> = mesh_nodes
        .iter()
        .map(|&j| glb.asset.skeleton.name(j))
        .collect();
    assert_eq!(
        names,
        ["vanguard_Mesh", "vanguard_visor"],
        "Soldier's two mesh nodes"
    );
    let glb = glb.asset;
    for kind in ["mesh", "armature"] {
        let out = dir.path().join(kind);
        std::fs::create_dir_all(&out).unwrap();
        let Some(blender) = blender_fbx(&soldier_glb(), &out, kind) else {
            return;
        };
        let fps = blender["fps"].as_f64().unwrap() as f32;
        let clips = blender["clips"].as_object().unwrap();
        assert_eq!(clips.len(), glb.clips.len(), "{blender}");
        for (name, range) in clips {
            let read = humanoid::read(
                &out.join(format!("{name}.fbx")),
                &humanoid::ReadOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{kind} {name}.fbx: {e}"));
            let fbx = read.character.asset;
            assert_eq!(
                read.character.meshes.is_empty(),
                kind == "armature",
                "{kind} {name}"
            );
            // Every GLB joint, by name (the armature-only FBX has no mesh nodes).
            let pairs: Vec<(usize, usize)> =
                glb.skeleton
                    .joints()
                    .filter(|j| kind == "mesh" || !mesh_nodes.contains(j))
                    .map(|j| {
                        let joint_name = glb.skeleton.name(j);
                        let there = fbx.skeleton.find(joint_name).unwrap_or_else(|| {
                            panic!("{kind} {name}.fbx has no joint {joint_name:?}")
                        });
                        (j.index(), there.index())
                    })
                    .collect();
            let glb_clip = glb.clips.iter().find(|c| &c.name == name).unwrap();
            let fbx_clip = fbx
                .clips
                .iter()
                .find(|c| &c.name == name)
                .unwrap_or_else(|| panic!("{kind} {name}.fbx: no clip {name:?}"));
            let (first, last) = (
                range[0].as_f64().unwrap() as i32,
                range[1].as_f64().unwrap() as i32,
            );
            let mut worst = 0.0f32;
            for frame in first..=last {
                let t = frame as f32 / fps;
                let mut a = humanoid::pose::fk::Sampler::new(&glb.skeleton, glb_clip);
                a.evaluate(t.min(glb_clip.duration()));
                let mut b = humanoid::pose::fk::Sampler::new(&fbx.skeleton, fbx_clip);
                b.evaluate(t);
                let (a, b) = (a.worlds(), b.worlds());
                for &(i, j) in &pairs {
                    let d = a[i].w_axis.truncate().distance(b[j].w_axis.truncate());
                    worst = worst.max(d);
                    assert!(
                        d <= 1e-4,
                        "{kind} {name}.fbx frame {frame}: joint {:?} {d} m from the GLB's",
                        glb.skeleton.names()[i]
                    );
                }
            }
            eprintln!(
                "{kind} {name}.fbx: {} joints, frames {first}..={last}, worst {worst:e} m",
                pairs.len()
            );
        }
    }
}

/// The angle between two rotations (robust near zero, where `acos` of a dot product loses
/// the digits of `f32` quaternions).
fn angle_between(a: glam::Quat, b: glam::Quat) -> f32 {
    let d = a.inverse() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

fn humanoid_cli(args: &[&std::ffi::OsStr]) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_humanoid"))
        .args(args)
        .output()
        .expect("run humanoid");
    assert!(
        output.status.success(),
        "humanoid {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Each humanoid bone's world rotation in the three-vrm oracle's output, per sample.
fn three_vrm_rotations(
    vrm: &std::path::Path,
    vrma: &std::path::Path,
    times: &str,
) -> Option<Vec<Vec<(String, glam::Quat)>>> {
    let script = std::env::var("HUMANOID_THREE_VRM_ORACLE").ok()?;
    let output = std::process::Command::new("node")
        .arg(script)
        .arg("--vrm")
        .arg(vrm)
        .arg("--vrma")
        .arg(vrma)
        .args(["--times", times])
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "three-vrm cannot play {}: {}",
        vrma.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    Some(
        json["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|sample| {
                sample["bones"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(bone, pose)| {
                        let q: Vec<f32> = pose["q"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|v| v.as_f64().unwrap() as f32)
                            .collect();
                        (bone.clone(), glam::Quat::from_xyzw(q[0], q[1], q[2], q[3]))
                    })
                    .collect()
            })
            .collect(),
    )
}

/// Its textures are files beside it, read from there.
/// `retarget Walk.fbx --onto debug_robot.vrm --clip Walk` (the FBX Blender exported from
/// Soldier.glb with its meshes, so with its bind pose) writes the VRMA that retargeting the
/// GLB writes: three-vrm plays both on the robot and every humanoid bone's world rotation agrees
/// at each of the clip's 25 frames (1e-4 rad).
#[test]
fn retargeting_blenders_mixamo_fbx_moves_the_robot_as_the_glb_does() {
    let dir = tempfile::tempdir().unwrap();
    let Some(blender) = blender_fbx(&soldier_glb(), dir.path(), "mesh") else {
        return;
    };
    assert!(blender["clips"]["Walk"].is_array(), "{blender}");
    // Blender wrote the base colour textures as files beside the FBX: they are read from there,
    // byte for byte; moved away from them, the FBX reads without them and says so.
    let walk = dir.path().join("Walk.fbx");
    let read = humanoid::read(&walk, &humanoid::ReadOptions::default()).unwrap();
    let beside = std::fs::read(dir.path().join("Image_1.jpg")).unwrap();
    for mesh in &read.character.meshes {
        let material = mesh.material.as_ref().unwrap();
        let texture = material
            .base_color_texture
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no texture; {:?}", mesh.name, read.diagnostics));
        assert_eq!(
            (&*texture.bytes, texture.mime_type.as_str()),
            (&beside[..], "image/jpeg")
        );
    }
    let away = dir.path().join("away");
    std::fs::create_dir(&away).unwrap();
    std::fs::copy(&walk, away.join("Walk.fbx")).unwrap();
    let read = humanoid::read(&away.join("Walk.fbx"), &humanoid::ReadOptions::default()).unwrap();
    assert!(read.character.meshes.iter().all(|m| m
        .material
        .as_ref()
        .unwrap()
        .base_color_texture
        .is_none()));
    assert!(
        read.diagnostics
            .iter()
            .any(|d| d.code == "FBX_TEXTURE_DROPPED" && d.message.contains("is not there")),
        "{:?}",
        read.diagnostics
    );
    let robot =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/vrm/debug_robot.vrm");
    let from_fbx = dir.path().join("walk-fbx.vrma");
    let from_glb = dir.path().join("walk-glb.vrma");
    for (input, output) in [
        (dir.path().join("Walk.fbx"), &from_fbx),
        (soldier_glb(), &from_glb),
    ] {
        humanoid_cli(&[
            "retarget".as_ref(),
            input.as_os_str(),
            "--onto".as_ref(),
            robot.as_os_str(),
            "-o".as_ref(),
            output.as_os_str(),
            "--clip".as_ref(),
            "Walk".as_ref(),
        ]);
    }
    let times: Vec<String> = (0..=24).map(|k| format!("{}", k as f64 / 24.0)).collect();
    let times = times.join(",");
    let Some(fbx) = three_vrm_rotations(&robot, &from_fbx, &times) else {
        eprintln!("HUMANOID_THREE_VRM_ORACLE is not set: the three-vrm comparison is skipped");
        return;
    };
    let glb = three_vrm_rotations(&robot, &from_glb, &times).unwrap();
    let mut worst = 0.0f32;
    for (frame, (a, b)) in fbx.iter().zip(&glb).enumerate() {
        assert_eq!(a.len(), b.len());
        for ((bone, qa), (other, qb)) in a.iter().zip(b) {
            assert_eq!(bone, other);
            let angle = angle_between(*qa, *qb);
            worst = worst.max(angle);
            assert!(
                angle <= 1e-4,
                "frame {frame}: {bone} {angle} rad from the GLB's"
            );
        }
    }
    eprintln!(
        "three-vrm: {} bones, 25 frames, worst {worst:e} rad",
        fbx[0].len()
    );
}

/// Every corpus FBX converts to a GLB the Khronos validator finds no error in, and the Kenney
/// character converts to a VRM that three-vrm loads with every mapped bone where the FBX has
/// it at rest (1e-4 m).
#[test]
fn corpus_fbx_convert_to_glb_the_validator_passes_and_kenney_to_a_vrm_three_vrm_loads() {
    let dir = tempfile::tempdir().unwrap();
    let validator = std::env::var("HUMANOID_GLTF_VALIDATOR").ok();
    for name in [
        "maya_human_ik_7400_binary.fbx",
        "maya_kenney_character_7700_binary.fbx",
        "maya_character_7500_binary.fbx",
        "blender_293_barbarian_7400_binary.fbx",
        "max_transformed_skin_7500_binary.fbx",
    ] {
        let glb = dir.path().join(name.replace(".fbx", ".glb"));
        humanoid_cli(&[
            "convert".as_ref(),
            corpus(name).as_os_str(),
            glb.as_os_str(),
        ]);
        let Some(validator) = &validator else {
            eprintln!("HUMANOID_GLTF_VALIDATOR is not set: {name}'s GLB is not validated");
            continue;
        };
        // The matrix's batch script: every issue counted (maxIssues 0; validate.js stops at 50,
        // and infos can fill those before an error is reached).
        let modules = PathBuf::from(validator)
            .parent()
            .unwrap()
            .join("node_modules");
        let out = std::process::Command::new("node")
            .arg(
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/matrix/validate_batch.js"),
            )
            .arg(&glb)
            .env("NODE_PATH", modules)
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["errors"], 0, "{name}: {report}");
    }
    let kenney = corpus("maya_kenney_character_7700_binary.fbx");
    let vrm = dir.path().join("kenney.vrm");
    humanoid_cli(&["convert".as_ref(), kenney.as_os_str(), vrm.as_os_str()]);
    let Ok(script) = std::env::var("HUMANOID_THREE_VRM_ORACLE") else {
        eprintln!("HUMANOID_THREE_VRM_ORACLE is not set: kenney.vrm is not loaded in three-vrm");
        return;
    };
    let output = std::process::Command::new("node")
        .arg(script)
        .arg("--vrm")
        .arg(&vrm)
        .arg("--rest")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "three-vrm cannot load kenney.vrm: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let three: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let asset = humanoid::read_asset(&kenney).unwrap().asset;
    let bones = &asset.humanoids[0].bones;
    let rest = three["rest"].as_object().unwrap();
    assert_eq!(
        rest.len(),
        bones.iter().count(),
        "three-vrm's bones: {rest:?}"
    );
    for (bone, joint) in bones.iter() {
        let p: Vec<f32> = rest[bone.as_str()]["p"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        let ours = asset.skeleton.rest_world(joint).translation;
        let d = ours.distance(glam::Vec3::new(p[0], p[1], p[2]));
        assert!(
            d <= 1e-4,
            "{bone}: three-vrm puts it {d} m from the FBX's rest"
        );
    }
}

/// The barbarian's blend shapes are morph targets: two on its hair and one on its body, each
/// moving some vertices by less than the character's size and leaving others where they are;
/// `inspect` lists its meshes with their skins.
#[test]
fn blend_shapes_are_morph_targets_and_inspect_lists_the_meshes() {
    let path = corpus("blender_293_barbarian_7400_binary.fbx");
    let read = humanoid::read(&path, &humanoid::ReadOptions::default()).unwrap();
    let count = |name: &str| {
        read.character
            .meshes
            .iter()
            .filter(|m| m.name == name)
            .map(|m| m.morph_targets.len())
            .max()
    };
    assert_eq!((count("hair"), count("body")), (Some(2), Some(1)));
    for mesh in read
        .character
        .meshes
        .iter()
        .filter(|m| !m.morph_targets.is_empty())
    {
        assert_eq!(mesh.morph_weights.len(), mesh.morph_targets.len());
        for target in &mesh.morph_targets {
            assert_eq!(
                target.positions.len(),
                mesh.positions.len(),
                "{}",
                target.name
            );
            let lengths: Vec<f32> = target
                .positions
                .iter()
                .map(|d| glam::Vec3::from(*d).length())
                .collect();
            let moved = lengths.iter().filter(|l| **l > 1e-6).count();
            assert!(
                moved > 0 && moved < lengths.len(),
                "{} {}: {moved} of {} vertices move",
                mesh.name,
                target.name,
                lengths.len()
            );
            assert!(
                lengths.iter().all(|l| *l < 2.0),
                "{} {}",
                mesh.name,
                target.name
            );
        }
    }
    let inspection = humanoid::inspect::inspect(&path).unwrap();
    let hair = inspection.meshes.iter().find(|m| m.name == "hair").unwrap();
    assert_eq!((hair.morph_targets, hair.texture), (2, true));
    assert!(hair.skin_joints > 0 && hair.triangles > 0);
    assert_eq!(inspection.meshes.len(), read.character.meshes.len());
}

/// `retarget` takes an FBX model too: Soldier's walk onto the Kenney FBX writes a GLB the
/// validator passes, moving every joint as retargeting onto the GLB that `convert` makes of
/// that FBX does (1e-5 m).
#[test]
fn retarget_onto_an_fbx_model_writes_what_retargeting_onto_its_glb_writes() {
    let dir = tempfile::tempdir().unwrap();
    let kenney = corpus("maya_kenney_character_7700_binary.fbx");
    let kenney_glb = dir.path().join("kenney.glb");
    humanoid_cli(&[
        "convert".as_ref(),
        kenney.as_os_str(),
        kenney_glb.as_os_str(),
    ]);
    let onto_fbx = dir.path().join("walk-fbx.glb");
    let onto_glb = dir.path().join("walk-glb.glb");
    for (model, output) in [(&kenney, &onto_fbx), (&kenney_glb, &onto_glb)] {
        humanoid_cli(&[
            "retarget".as_ref(),
            soldier_glb().as_os_str(),
            "--onto".as_ref(),
            model.as_os_str(),
            "-o".as_ref(),
            output.as_os_str(),
            "--clip".as_ref(),
            "Walk".as_ref(),
        ]);
    }
    let a = humanoid::read_asset(&onto_fbx).unwrap().asset;
    let b = humanoid::read_asset(&onto_glb).unwrap().asset;
    assert_eq!(a.skeleton.names(), b.skeleton.names());
    let (ca, cb) = (
        a.clips.iter().find(|c| c.name == "Walk").unwrap(),
        b.clips.iter().find(|c| c.name == "Walk").unwrap(),
    );
    for k in 0..=24 {
        let t = k as f32 / 24.0;
        let mut sa = humanoid::pose::fk::Sampler::new(&a.skeleton, ca);
        sa.evaluate(t);
        let mut sb = humanoid::pose::fk::Sampler::new(&b.skeleton, cb);
        sb.evaluate(t);
        for (i, (wa, wb)) in sa.worlds().iter().zip(sb.worlds()).enumerate() {
            let d = wa.w_axis.truncate().distance(wb.w_axis.truncate());
            assert!(
                d <= 1e-5,
                "frame {k}: joint {:?} {d} m apart",
                a.skeleton.names()[i]
            );
        }
    }
}
