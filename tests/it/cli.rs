//! The command line end to end: exit codes, messages that name the file and the place, and the
//! output-file rules.

use serde_json::json;

use crate::util::{glb, humanoid, humanoid_ok, s, small_gltf, temp_dir, write};

/// Runs `humanoid inspect` on `bytes` saved as `name` and asserts exit 1 and a message that
/// names the file and contains each of `expect`.
#[track_caller]
fn rejects(name: &str, bytes: &[u8], expect: &[&str]) {
    let dir = temp_dir();
    let path = write(dir.path(), name, bytes);
    for command in ["inspect", "validate"] {
        let run = humanoid(&[command, s(&path)]);
        assert_eq!(
            run.code, 1,
            "{command} {name}: exit code (stderr: {})",
            run.stderr
        );
        assert!(
            run.stderr.contains(name),
            "{command}: the message names the file: {}",
            run.stderr
        );
        for e in expect {
            assert!(
                run.stderr.contains(e),
                "{command}: expected {e:?} in: {}",
                run.stderr
            );
        }
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

#[test]
fn empty_file() {
    rejects("empty.glb", b"", &["byte 0"]);
}

#[test]
fn wrong_glb_magic() {
    let mut bytes = glb(&small_gltf(json!({})), &[]);
    bytes[..4].copy_from_slice(b"gLTF");
    rejects("magic.glb", &bytes, &["byte 0", "magic"]);
}

#[test]
fn glb_chunk_length_past_the_end() {
    let mut bytes = glb(&small_gltf(json!({})), &[]);
    bytes[12..16].copy_from_slice(&4000u32.to_le_bytes());
    rejects("chunk.glb", &bytes, &["byte 12"]);
}

#[test]
fn json_syntax_error_gives_line_and_column() {
    rejects(
        "syntax.gltf",
        b"{\n  \"asset\": {\"version\": \"2.0\"},\n  \"nodes\": [ }\n",
        &["3:"],
    );
}

#[test]
fn accessor_past_its_buffer_view() {
    let gltf = small_gltf(json!({
        "buffers": [{"byteLength": 16}],
        "bufferViews": [{"buffer": 0, "byteLength": 16}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"}]
    }));
    rejects("accessor.glb", &glb(&gltf, &[0u8; 16]), &["/accessors/0"]);
}

#[test]
fn buffer_uri_escaping_the_folder() {
    let gltf = small_gltf(json!({"buffers": [{"byteLength": 16, "uri": "../../etc/passwd"}]}));
    rejects(
        "escape.gltf",
        gltf.to_string().as_bytes(),
        &["/buffers/0/uri"],
    );
}

#[test]
fn humanoid_bone_node_out_of_range() {
    let gltf = small_gltf(
        json!({"extensions": {"EXT_skeleton_humanoid": {"humanoidSkeletons": [
            {"rootNode": 0, "humanoidBones": {"hips": 0, "head": 42}}
        ]}}}),
    );
    rejects(
        "bones.gltf",
        gltf.to_string().as_bytes(),
        &["/humanoidBones/head", "42"],
    );
}

#[test]
fn cycle_in_the_node_hierarchy() {
    let gltf = small_gltf(json!({"nodes": [
        {"name": "hips", "children": [1]},
        {"name": "spine", "children": [2]},
        {"name": "head", "children": [0]}
    ]}));
    rejects(
        "cycle.gltf",
        gltf.to_string().as_bytes(),
        &["/nodes", "cycle"],
    );
}

#[test]
fn non_finite_rotation() {
    // JSON has no NaN literal; 1e999 parses to infinity, which is just as unusable.
    let text = small_gltf(json!({"nodes": [
        {"name": "hips", "rotation": [0, 0, 0, 1], "children": [1]},
        {"name": "spine", "rotation": [1e300, 0, 0, 1], "children": [2]},
        {"name": "head"}
    ]}))
    .to_string()
    .replace("1e+300", "1e999")
    .replace("1e300", "1e999");
    assert!(text.contains("1e999"), "{text}");
    rejects("nan.gltf", text.as_bytes(), &["/nodes/1/rotation"]);
}

#[test]
fn nan_in_a_rotation_track() {
    let mut bin = Vec::new();
    for t in [0.0f32, 1.0] {
        bin.extend_from_slice(&t.to_le_bytes());
    }
    for q in [[0.0f32, 0.0, 0.0, 1.0], [f32::NAN, 0.0, 0.0, 1.0]] {
        for c in q {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    let gltf = small_gltf(json!({
        "buffers": [{"byteLength": 40}],
        "bufferViews": [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 32}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC4"}
        ],
        "animations": [{"samplers": [{"input": 0, "output": 1}],
                        "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]
    }));
    rejects("nan_track.glb", &glb(&gltf, &bin), &["/accessors/1", "NaN"]);
}

#[test]
fn huge_declared_buffer_in_a_small_file() {
    let gltf = small_gltf(json!({"buffers": [{"byteLength": 2_000_000_000u64}]}));
    let bytes = glb(&gltf, &[0u8; 1024]);
    assert!(bytes.len() < 4096);
    rejects("huge.glb", &bytes, &["/buffers/0"]);
}

/// Every usage error exits 2, as docs/cli.md says: clap's own, a value outside a flag's set, a
/// value that does not parse, and arguments found not to work together after parsing (each
/// with what to give instead). Bad input stays exit 1.
#[test]
fn usage_errors_exit_2() {
    assert_eq!(humanoid(&["inspect"]).code, 2);
    assert_eq!(humanoid(&["frobnicate"]).code, 2);
    let (_dir, mannequin, _) = crate::util::demo();
    let m = s(&mannequin);
    let refused = |args: &[&str], says: &str| {
        let run = humanoid(args);
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
    };
    refused(
        &["convert", m, "out.glb", "--to", "obj"],
        r#"--to "obj": expected glb"#,
    );
    refused(
        &["convert", m, "a", "b"],
        "convert takes IN OUT (3 paths given)",
    );
    // `-o out.glb` meant as the output file: batch mode's -o is a folder.
    refused(
        &["convert", m, "-o", "never-written.glb"],
        &format!("humanoid convert {m} never-written.glb"),
    );
    refused(
        &["mappings", "show", "no-such-table"],
        "no mapping table named",
    );
    #[cfg(feature = "preview")]
    refused(
        &["preview", m, "-o", "x.png", "--size", "12"],
        "expected WIDTHxHEIGHT",
    );
    // A missing input is bad input (1), and the message names it.
    let run = humanoid(&["inspect", "no-such-file.glb"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("no-such-file.glb"), "{}", run.stderr);
}

/// `retarget CHARACTER --onto MOTION` (swapped): the "motion" has no clip while the character
/// after --onto has one, so the error says they look swapped and gives the command the
/// other way round.
#[test]
fn swapped_retarget_arguments_get_a_hint() {
    let (dir, mannequin, _) = crate::util::demo();
    let still = dir.path().join("walk.bvh");
    humanoid_ok(&["convert", s(&mannequin), s(&still), "--clip", "walk"]);
    // A character with no clip: the canonical Godot profile.
    let model = dir.path().join("profile.tres");
    humanoid_ok(&["convert", s(&mannequin), s(&model), "--to", "godot-profile"]);
    let out = dir.path().join("out.vrma");
    let run = humanoid(&["retarget", s(&model), "--onto", s(&still), "-o", s(&out)]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("were the two swapped?"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains(&format!("retarget {} --onto {}", s(&still), s(&model))),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}

#[test]
fn convert_refuses_to_overwrite_and_never_writes_the_input() {
    let dir = temp_dir();
    let input = write(dir.path(), "in.glb", &glb(&small_gltf(json!({})), &[]));
    let before = std::fs::read(&input).unwrap();

    let run = humanoid(&["convert", s(&input), s(&input), "--force"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("input"), "{}", run.stderr);

    let output = dir.path().join("out.glb");
    humanoid_ok(&["convert", s(&input), s(&output)]);
    let run = humanoid(&["convert", s(&input), s(&output)]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    humanoid_ok(&["convert", s(&input), s(&output), "--force"]);
    assert_eq!(
        std::fs::read(&input).unwrap(),
        before,
        "the input is untouched"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "no temporary files left: {leftovers:?}");
}

/// No command replaces a file it reads, `--force` or not: not the `--map` table it applies
/// (`map --force --map t.toml RIG -o t.toml` replaced it), not through a hard link, not the
/// input through a hard link.
#[test]
fn no_output_replaces_a_file_the_command_reads() {
    let (_keep, mannequin, _) = crate::util::demo();
    let dir = temp_dir();
    let table = dir.path().join("rig.toml");
    humanoid_ok(&["map", s(&mannequin), "-o", s(&table)]);
    let before = std::fs::read(&table).unwrap();
    let linked = dir.path().join("linked.toml");
    std::fs::hard_link(&table, &linked).unwrap();
    for output in [&table, &linked] {
        let run = humanoid(&[
            "map",
            "--force",
            "--map",
            s(&table),
            s(&mannequin),
            "-o",
            s(output),
        ]);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(
            run.stderr.contains("a file this command reads"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains(s(output)),
            "names the output: {}",
            run.stderr
        );
    }
    assert_eq!(
        std::fs::read(&table).unwrap(),
        before,
        "the table is untouched"
    );
    // Another output is written as before.
    humanoid_ok(&[
        "map",
        "--map",
        s(&table),
        s(&mannequin),
        "-o",
        s(&dir.path().join("other.toml")),
    ]);

    let model = dir.path().join("model.glb");
    std::fs::copy(&mannequin, &model).unwrap();
    let model_link = dir.path().join("model_link.glb");
    std::fs::hard_link(&model, &model_link).unwrap();
    let model_before = std::fs::read(&model).unwrap();
    let run = humanoid(&["convert", "--force", s(&model), s(&model_link)]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(std::fs::read(&model).unwrap(), model_before);
}

/// A rotation key a little off unit length (an exporter's rounding) is normalised with a
/// warning; one far off (a 1e30 component, garbage) is refused at the sampler's output (the
/// golden case `vrma/rotation_key_1e30`).
#[test]
fn rotation_keys_off_unit_length_are_normalised_or_refused() {
    let bin: Vec<u8> = [0.0f32, 1.0, 0.0, 0.0, 0.0, 1.05, 0.0, 0.0, 0.0, 1.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let animated = |key: f32| {
        let mut bytes = bin.clone();
        bytes.splice(20..24, key.to_le_bytes());
        glb(
            &small_gltf(json!({
                "buffers": [{"byteLength": 40}],
                "bufferViews": [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 32}],
                "accessors": [
                    {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
                    {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC4"}
                ],
                "animations": [{"samplers": [{"input": 0, "output": 1}],
                    "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]
            })),
            &bytes,
        )
    };
    let dir = temp_dir();
    let near = write(dir.path(), "near.glb", &animated(1.05));
    let run = humanoid(&["validate", "--json", s(&near)]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("ANIMATION_ROTATION_NOT_UNIT") && run.stdout.contains("key 0"),
        "{}",
        run.stdout
    );
    let far = write(dir.path(), "far.glb", &animated(1.5));
    let run = humanoid(&["validate", "--json", s(&far)]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("/animations/0/samplers/0/output"),
        "{}",
        run.stdout
    );
}

/// A humanoid without hips (a hand-only rig) is refused by retarget before any work, as the
/// model or as the animation, naming the file (the message named none).
#[test]
fn retarget_refuses_a_humanoid_without_hips_naming_the_file() {
    let (_keep, mannequin, _) = crate::util::demo();
    let bones = [
        "leftHand",
        "leftThumbMetacarpal",
        "leftThumbProximal",
        "leftIndexProximal",
        "leftIndexIntermediate",
    ];
    let mut nodes = vec![json!({"name": bones[0], "children": [1, 2, 3, 4]})];
    nodes.extend(
        bones[1..]
            .iter()
            .map(|b| json!({"name": b, "translation": [0.02, 0, 0]})),
    );
    let declared: serde_json::Map<String, serde_json::Value> = bones
        .iter()
        .enumerate()
        .map(|(i, b)| ((*b).to_owned(), json!(i)))
        .collect();
    let hand = small_gltf(json!({
        "nodes": nodes,
        "extensions": {"EXT_skeleton_humanoid": {"humanoidSkeletons": [
            {"rootNode": 0, "humanoidBones": declared}
        ]}}
    }));
    let dir = temp_dir();
    let hand = write(dir.path(), "hand.gltf", hand.to_string().as_bytes());
    let out = dir.path().join("out.glb");
    for (anim, model, role) in [
        (&mannequin, &hand, "model"),
        (&hand, &mannequin, "animation"),
    ] {
        let run = humanoid(&["retarget", s(anim), "--onto", s(model), "-o", s(&out)]);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(
            run.stderr.contains("hand.gltf")
                && run
                    .stderr
                    .contains(&format!("the {role}'s humanoid has no hips")),
            "{}",
            run.stderr
        );
    }
    assert!(!out.exists());
}

#[test]
fn an_ambiguous_output_names_the_choices() {
    let dir = temp_dir();
    let input = write(dir.path(), "in.glb", &glb(&small_gltf(json!({})), &[]));
    let run = humanoid(&["convert", s(&input), s(&dir.path().join("out.tres"))]);
    assert!(run.stderr.contains("--to godot-bonemap"), "{}", run.stderr);
}

#[test]
fn validate_reports_a_wrong_bone_order() {
    // hips – chest – spine: spine's joint sits under chest's, the spec's own invalid example.
    let gltf = small_gltf(json!({
        "nodes": [
            {"name": "hips", "children": [1]},
            {"name": "chest", "children": [2]},
            {"name": "spine"}
        ],
        "extensions": {"EXT_skeleton_humanoid": {"humanoidSkeletons": [
            {"rootNode": 0, "humanoidBones": {"hips": 0, "chest": 1, "spine": 2}}
        ]}}
    }));
    let dir = temp_dir();
    let path = write(dir.path(), "order.gltf", gltf.to_string().as_bytes());
    let run = humanoid(&["validate", s(&path)]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("BONE_HIERARCHY"), "{}", run.stdout);
    assert!(
        run.stdout.contains("chest") && run.stdout.contains("spine"),
        "{}",
        run.stdout
    );

    let run = humanoid(&["validate", "--json", s(&path)]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["valid"], false);
}

#[test]
fn valid_small_file_validates() {
    let dir = temp_dir();
    let path = write(
        dir.path(),
        "ok.gltf",
        small_gltf(json!({})).to_string().as_bytes(),
    );
    let run = humanoid_ok(&["validate", s(&path)]);
    // Skinless: a warning, not a refusal (docs/conventions.md).
    assert!(run.stdout.contains("EXT_BONE_NOT_JOINT"), "{}", run.stdout);
}
