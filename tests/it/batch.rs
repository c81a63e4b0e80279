//! `convert INPUT… -o DIR --to FORMAT`: every output equals converting its input alone; a
//! failing file is reported and the others written (exit 1); a second run skips what exists;
//! two inputs landing on one name are both refused, naming each other.

use std::path::Path;

use crate::util::{humanoid, humanoid_ok, s, temp_dir, write};

/// The mannequin's two GLBs, a BVH written from one, a corrupt GLB and a collision pair.
fn inputs(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("in");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for name in ["mannequin.glb", "mannequin_ext_clips.glb"] {
        std::fs::copy(bundled.join(name), root.join("sub").join(name)).unwrap();
    }
    humanoid_ok(&[
        "convert",
        s(&root.join("sub/mannequin.glb")),
        s(&root.join("walk.bvh")),
    ]);
    write(
        &root,
        "broken.glb",
        b"glTF\x02\x00\x00\x00\x10\x00\x00\x00garbage!",
    );
    root
}

#[test]
fn a_batch_writes_what_each_file_alone_gives_and_reports_the_failures() {
    let dir = temp_dir();
    let root = inputs(dir.path());
    let out = dir.path().join("out");
    let run = humanoid(&[
        "convert",
        s(&root),
        "-o",
        s(&out),
        "--to",
        "x3d",
        "--recursive",
        "-j",
        "2",
    ]);
    assert_eq!(
        run.code, 1,
        "one file is corrupt: {}{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stdout.contains("failed   ") && run.stdout.contains("broken.glb"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("3 ok, 0 skipped, 0 refused, 1 failed"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("GLTF_INVALID"), "{}", run.stdout);
    for (input, output) in [
        ("sub/mannequin.glb", "sub/mannequin.x3d"),
        ("sub/mannequin_ext_clips.glb", "sub/mannequin_ext_clips.x3d"),
        ("walk.bvh", "walk.x3d"),
    ] {
        let alone = dir.path().join("alone.x3d");
        humanoid_ok(&["convert", s(&root.join(input)), s(&alone), "--force"]);
        let batch = std::fs::read(out.join(output)).unwrap();
        assert!(
            batch == std::fs::read(&alone).unwrap(),
            "{output} differs from converting {input} alone"
        );
    }
    assert!(!out.join("broken.x3d").exists());

    // Run again: everything written is skipped; the corrupt file still fails.
    let again = humanoid(&[
        "convert",
        s(&root),
        "-o",
        s(&out),
        "--to",
        "x3d",
        "--recursive",
        "--json",
    ]);
    assert_eq!(again.code, 1);
    let lines: Vec<serde_json::Value> = again
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.len(),
        5,
        "four inputs and the summary: {}",
        again.stdout
    );
    let summary = &lines[4]["summary"];
    assert_eq!(
        (
            summary["ok"].as_u64(),
            summary["skipped"].as_u64(),
            summary["failed"].as_u64()
        ),
        (Some(0), Some(3), Some(1))
    );
    let broken = lines
        .iter()
        .find(|l| {
            l["input"]
                .as_str()
                .is_some_and(|i| i.ends_with("broken.glb"))
        })
        .unwrap();
    assert_eq!(broken["status"], "failed");
    assert!(broken["message"].as_str().unwrap().contains("broken.glb"));
}

#[test]
fn two_inputs_on_one_output_name_are_both_refused() {
    let dir = temp_dir();
    let root = inputs(dir.path());
    std::fs::copy(root.join("walk.bvh"), root.join("sub/walk.bvh")).unwrap();
    std::fs::copy(
        root.join("sub/mannequin.glb"),
        root.join("sub/mannequin.vrm"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = humanoid(&[
        "convert",
        s(&root.join("sub")),
        "-o",
        s(&out),
        "--to",
        "glb",
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("2 refused"), "{}", run.stdout);
    assert!(
        run.stdout.contains("BATCH_OUTPUT_COLLISION"),
        "{}",
        run.stdout
    );
    assert!(!out.join("mannequin.glb").exists());
    assert!(out.join("walk.glb").exists() && out.join("mannequin_ext_clips.glb").exists());
}

#[test]
fn batch_mode_needs_a_format_and_two_paths_keep_their_meaning() {
    let dir = temp_dir();
    let root = inputs(dir.path());
    let run = humanoid(&["convert", s(&root), "-o", s(&dir.path().join("o"))]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("--to"), "{}", run.stderr);
    let run = humanoid(&[
        "convert",
        s(&root.join("walk.bvh")),
        s(&root.join("a.glb")),
        s(&root.join("b.glb")),
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("-o DIR"), "{}", run.stderr);
    humanoid_ok(&[
        "convert",
        s(&root.join("walk.bvh")),
        s(&root.join("walk.glb")),
    ]);
}

#[test]
fn retargeting_many_clips_onto_several_characters_gives_what_each_pair_alone_gives() {
    let dir = temp_dir();
    let root = inputs(dir.path());
    let hero = dir.path().join("hero.glb");
    let robot = dir.path().join("robot.glb");
    std::fs::copy(root.join("sub/mannequin.glb"), &hero).unwrap();
    std::fs::copy(root.join("sub/mannequin_ext_clips.glb"), &robot).unwrap();
    let clips = dir.path().join("clips");
    let pattern = root.join("*.bvh");
    humanoid_ok(&[
        "retarget",
        s(&pattern),
        s(&root.join("sub/mannequin.glb")),
        "--onto",
        s(&hero),
        "--onto",
        s(&robot),
        "-o",
        s(&clips),
        "--to",
        "vrma",
    ]);
    for model in [&hero, &robot] {
        let stem = model.file_stem().unwrap().to_str().unwrap();
        for (anim, name) in [
            (root.join("walk.bvh"), "walk.vrma"),
            (root.join("sub/mannequin.glb"), "mannequin.vrma"),
        ] {
            let alone = dir.path().join("alone.vrma");
            humanoid_ok(&[
                "retarget",
                s(&anim),
                "--onto",
                s(model),
                "-o",
                s(&alone),
                "--force",
            ]);
            let batch = std::fs::read(clips.join(stem).join(name)).unwrap();
            assert!(
                batch == std::fs::read(&alone).unwrap(),
                "{stem}/{name} differs from retargeting alone"
            );
        }
    }
}
