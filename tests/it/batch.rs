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
    // Why, right under the file's line as it goes by, not only in the summary.
    let line = run
        .stderr
        .lines()
        .position(|l| l.starts_with("failed") && l.contains("broken.glb"))
        .unwrap_or_else(|| panic!("no failed line: {}", run.stderr));
    let why = run.stderr.lines().nth(line + 1).unwrap_or_default();
    assert!(why.trim_start().starts_with("error: "), "{}", run.stderr);
    assert!(why.contains("broken.glb"), "{}", run.stderr);
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
    // Both are usage errors (exit 2).
    let run = humanoid(&["convert", s(&root), "-o", s(&dir.path().join("o"))]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--to"), "{}", run.stderr);
    let run = humanoid(&[
        "convert",
        s(&root.join("walk.bvh")),
        s(&root.join("a.glb")),
        s(&root.join("b.glb")),
    ]);
    assert_eq!(run.code, 2);
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

/// `walk.bvh` with every OFFSET a tenth as long: the rest hips 8 units up fit no unit, so
/// reading it warns (`BVH_UNITS_UNKNOWN`, "give … --bvh-scale").
fn unknown_units(walk: &Path) -> String {
    std::fs::read_to_string(walk)
        .unwrap()
        .lines()
        .map(|line| match line.trim_start().strip_prefix("OFFSET ") {
            Some(numbers) => {
                let indent = &line[..line.len() - line.trim_start().len()];
                let scaled: Vec<String> = numbers
                    .split_whitespace()
                    .map(|n| (n.parse::<f64>().unwrap() / 10.0).to_string())
                    .collect();
                format!("{indent}OFFSET {}\n", scaled.join(" "))
            }
            None => format!("{line}\n"),
        })
        .collect()
}

/// Issue 34: text mode printed no warning (only `--json` had them) and the summary counted
/// none. Each file's warnings and notes are under its line, the summary counts them, and
/// `--quiet` hides them (the count stays).
#[test]
fn text_mode_shows_each_files_warnings_under_its_line_and_counts_them() {
    let dir = temp_dir();
    let root = inputs(dir.path());
    let moves = dir.path().join("moves");
    std::fs::create_dir_all(&moves).unwrap();
    std::fs::copy(root.join("walk.bvh"), moves.join("walk.bvh")).unwrap();
    write(
        &moves,
        "tiny.bvh",
        unknown_units(&root.join("walk.bvh")).as_bytes(),
    );
    let out = dir.path().join("out");
    let run = humanoid(&["convert", s(&moves), "-o", s(&out), "--to", "glb"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    let tiny = lines
        .iter()
        .position(|l| l.starts_with("ok ") && l.contains("tiny.bvh ->"))
        .unwrap_or_else(|| panic!("no line for tiny.bvh:\n{}", run.stderr));
    // Its diagnostics follow its line, indented, before the next file's line.
    let under: Vec<&str> = lines[tiny + 1..]
        .iter()
        .take_while(|l| l.starts_with("         "))
        .map(|l| l.trim())
        .collect();
    assert!(
        under
            .iter()
            .any(|l| l.starts_with("warning [BVH_UNITS_UNKNOWN]") && l.contains("--bvh-scale")),
        "{}",
        run.stderr
    );
    assert!(
        under.iter().any(|l| l.starts_with("info [")),
        "notes too: {}",
        run.stderr
    );
    let summary = run.stdout.lines().last().unwrap();
    assert!(
        summary.starts_with("2 inputs in ") && summary.contains("; 1 warning, "),
        "{}",
        run.stdout
    );
    // JSON counts them too.
    let json = humanoid(&[
        "convert",
        s(&moves),
        "-o",
        s(&dir.path().join("json")),
        "--to",
        "glb",
        "--json",
    ]);
    let last: serde_json::Value =
        serde_json::from_str(json.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["summary"]["warnings"], 1, "{}", json.stdout);
    // --quiet (or -q): no file lines, no warnings; the summary still counts them.
    for (flag, folder) in [("--quiet", "quiet"), ("-q", "q")] {
        let quiet = humanoid(&[
            "convert",
            s(&moves),
            "-o",
            s(&dir.path().join(folder)),
            "--to",
            "glb",
            flag,
        ]);
        assert_eq!(quiet.code, 0, "{flag}: {}", quiet.stderr);
        assert!(
            !quiet.stderr.contains("BVH_UNITS") && !quiet.stdout.contains("BVH_UNITS"),
            "{}{}",
            quiet.stdout,
            quiet.stderr
        );
        assert!(quiet.stdout.contains("; 1 warning, "), "{}", quiet.stdout);
    }
}

/// Issue 34: `-o` naming a file failed once per input ("File exists (os error 17)" ×25), and a
/// folder whose files are all in subfolders gave "0 inputs … 0 failed" and exit 0. Each is now
/// one usage error (exit 2) before anything runs, saying what to give instead.
#[test]
fn what_cannot_work_is_one_usage_error_before_anything_runs() {
    let dir = temp_dir();
    let root = inputs(dir.path());
    let taken = write(dir.path(), "taken", b"not a folder");
    let run = humanoid(&[
        "convert",
        s(&root),
        "-o",
        s(&taken),
        "--to",
        "x3d",
        "--recursive",
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stderr.trim(),
        format!(
            "humanoid: error: -o {} is a file; a batch writes into a folder (give a folder's path: it is made if missing)",
            taken.display()
        )
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);

    // `only` holds nothing but the folder `only/deeper/`, which holds a BVH.
    let only = dir.path().join("only");
    std::fs::create_dir_all(only.join("deeper")).unwrap();
    std::fs::copy(root.join("walk.bvh"), only.join("deeper/walk.bvh")).unwrap();
    let out = dir.path().join("out");
    let run = humanoid(&["convert", s(&only), "-o", s(&out), "--to", "glb"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "{} holds no file of a format humanoid reads at its top level; its subfolders hold 1: add --recursive",
            only.display()
        )),
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "nothing ran");
    humanoid_ok(&[
        "convert",
        s(&only),
        "-o",
        s(&out),
        "--to",
        "glb",
        "--recursive",
    ]);
    assert!(out.join("deeper/walk.glb").is_file());

    // A folder (with or without --recursive) or a pattern that gives no input at all.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(empty.join("sub")).unwrap();
    write(&empty, "notes.txt", b"x");
    for extra in [None, Some("--recursive")] {
        let mut args = vec!["convert", s(&empty), "-o", s(&out), "--to", "glb"];
        args.extend(extra);
        let run = humanoid(&args);
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stderr
                .contains("holds no file of a format humanoid reads"),
            "{}",
            run.stderr
        );
    }
    let pattern = root.join("*.fbx");
    let run = humanoid(&[
        "retarget",
        s(&pattern),
        "--onto",
        s(&root.join("sub/mannequin.glb")),
        "-o",
        s(&out),
        "--to",
        "vrma",
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("matches no file"), "{}", run.stderr);
    // retarget's -o is checked the same way.
    let run = humanoid(&[
        "retarget",
        s(&root.join("walk.bvh")),
        s(&root.join("sub/mannequin.glb")),
        "--onto",
        s(&root.join("sub/mannequin.glb")),
        "-o",
        s(&taken),
        "--to",
        "vrma",
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("is a file"), "{}", run.stderr);
}

/// Issue 34: the progress bar printed `12.2351/s` and the summary `11.1 files/s, 1 threads`.
/// One rate format (three significant figures) and "thread" in the singular.
#[test]
fn the_summary_prints_one_rate_format_and_counts_in_the_singular() {
    let dir = temp_dir();
    let root = inputs(dir.path());
    let run = humanoid_ok(&[
        "convert",
        s(&root.join("walk.bvh")),
        "-o",
        s(&dir.path().join("out")),
        "--to",
        "glb",
        "-j",
        "1",
    ]);
    let summary = run.stdout.lines().last().unwrap();
    assert!(summary.starts_with("1 input in "), "{summary}");
    assert!(summary.contains(" files/s, 1 thread)"), "{summary}");
    let rate = summary
        .split_once('(')
        .and_then(|(_, r)| r.split_once(" files/s"))
        .map(|(r, _)| r)
        .unwrap();
    let digits = rate.chars().filter(char::is_ascii_digit).count();
    let figures = rate
        .trim_start_matches(['0', '.'])
        .chars()
        .filter(char::is_ascii_digit)
        .count();
    assert!(
        figures == 3 || (digits == figures && digits > 3),
        "three significant figures: {summary}"
    );
}

/// The help of both batch commands ends with examples of this command's own syntax.
#[test]
fn help_ends_with_examples() {
    for (command, example) in [
        (
            "convert",
            "humanoid convert avatars/ more/*.vrm -o out/ --to vrm1 --recursive",
        ),
        (
            "retarget",
            "humanoid retarget moves/*.bvh --onto hero.vrm -o clips/ --to vrma",
        ),
    ] {
        let help = humanoid_ok(&[command, "--help"]).stdout;
        let examples = help
            .find("Examples:")
            .unwrap_or_else(|| panic!("{command} --help has no examples:\n{help}"));
        assert!(help[examples..].contains(example), "{help}");
    }
}
