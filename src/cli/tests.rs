//! The arguments parse as before, and what a command reports stays in its output.

use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};
use humanoid::convert::ConvertOptions;
use humanoid::formats::Format;

use super::{invalid_value, run_to, Args};

#[test]
fn the_arguments_are_consistent() {
    Args::command().debug_assert();
}

/// A value outside a closed set names the flag, the value and every accepted name; an
/// alias or another case is still accepted where it was before.
#[test]
fn a_bad_value_names_the_flag_and_the_choices() {
    let message = |args: &[&str]| {
        let err = Args::try_parse_from(args).expect_err("refused");
        invalid_value(&err).unwrap_or_else(|| panic!("{args:?}: {err}"))
    };
    assert_eq!(
        message(&["humanoid", "sockets", "a.glb", "--vt-mode", "x"]),
        r#"--vt-mode "x": expected aligned or frozen"#
    );
    assert_eq!(
        message(&[
            "humanoid",
            "convert",
            "a",
            "b",
            "--normalize",
            "--rest",
            "x"
        ]),
        r#"--rest "x": expected node, bind or reference"#
    );
    assert_eq!(
        message(&["humanoid", "convert", "a", "b", "--to", "obj"]),
        r#"--to "obj": expected glb, gltf, vrm1, vrm0, vrma, x3d, x3dv, wrl, bvh, godot-bonemap or godot-profile"#
    );
    assert_eq!(
        message(&["humanoid", "convert", "a", "b", "--bvh-order", "abc"]),
        r#"--bvh-order "abc": expected XYZ, XZY, YXZ, YZX, ZXY or ZYX"#
    );
    assert_eq!(
        message(&["humanoid", "convert", "a", "b", "--bvh-units", "km"]),
        r#"--bvh-units "km": expected cm or m"#
    );
    assert_eq!(
        message(&["humanoid", "retarget", "a", "--onto", "b", "-o", "c", "--as", "x"]),
        r#"--as "x": expected nodes or ext"#
    );
    for ok in [
        &["humanoid", "convert", "a", "b", "--bvh-order", "xzy"][..],
        &["humanoid", "convert", "a", "b", "--to", "godot-bonemap"],
    ] {
        Args::try_parse_from(ok).unwrap_or_else(|e| panic!("{ok:?}: {e}"));
    }
    // A value clap cannot parse as a number stays clap's usage error.
    let err = Args::try_parse_from(["humanoid", "pose", "a", "--uniform", "x"]).unwrap_err();
    assert_eq!(invalid_value(&err), None);
}

#[cfg(feature = "preview")]
#[test]
fn preview_values_keep_their_aliases() {
    for ok in [
        &["humanoid", "preview", "a", "-o", "b.png", "--view", "3/4"][..],
        &[
            "humanoid",
            "preview",
            "a",
            "-o",
            "b.png",
            "--view",
            "threequarter",
        ],
        &[
            "humanoid",
            "preview",
            "a",
            "-o",
            "b.png",
            "--backend",
            "opengl",
        ],
        &[
            "humanoid",
            "preview",
            "a",
            "-o",
            "b.png",
            "--backend",
            "gles",
        ],
    ] {
        Args::try_parse_from(ok).unwrap_or_else(|e| panic!("{ok:?}: {e}"));
    }
    let err =
        Args::try_parse_from(["humanoid", "preview", "a", "-o", "b", "--view", "top"]).unwrap_err();
    assert_eq!(
        invalid_value(&err).as_deref(),
        Some(r#"--view "top": expected front, side or three-quarter"#)
    );
}

/// The mannequin, and a Godot BoneMap of it that maps the skeleton's `head` twice (as Head and
/// as Jaw), which reading it reports as `GODOT_BONE_MAPPED_TWICE`.
fn mannequin_and_a_bone_map(dir: &Path) -> (PathBuf, PathBuf) {
    humanoid::demo::write_demo(dir, false).unwrap();
    let mannequin = dir.join("mannequin.glb");
    let map = dir.join("twice.tres");
    let options = ConvertOptions {
        to: Some(Format::GodotBoneMap),
        ..ConvertOptions::default()
    };
    humanoid::convert::convert(&mannequin, &map, &options).unwrap();
    let text = std::fs::read_to_string(&map).unwrap();
    let twice = text.replace(r#"bone_map/Jaw = &"jaw""#, r#"bone_map/Jaw = &"head""#);
    assert_ne!(text, twice, "the BoneMap maps Jaw to jaw");
    std::fs::write(&map, twice).unwrap();
    (mannequin, map)
}

fn run(args: &[&str]) -> String {
    let args = Args::try_parse_from(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    let mut out = Vec::new();
    run_to(args, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// `--map FILE.tres --json`: what reading the Godot mapping found is in the JSON report, at
/// the mapping's file, instead of printed to stderr beside it.
#[test]
fn a_godot_mappings_diagnostics_are_in_the_json_report() {
    let dir = tempfile::tempdir().unwrap();
    let (mannequin, map) = mannequin_and_a_bone_map(dir.path());
    let (mannequin, map) = (mannequin.to_str().unwrap(), map.to_str().unwrap());
    let glb = dir.path().join("out.glb");
    let vrma = dir.path().join("out.vrma");
    let (glb, vrma) = (glb.to_str().unwrap(), vrma.to_str().unwrap());
    for args in [
        &["inspect", "--json", mannequin][..],
        &["pose", "--json", mannequin],
        &["map", "--json", mannequin],
        &["convert", "--json", mannequin, glb],
        &[
            "retarget", "--json", mannequin, "--onto", mannequin, "-o", vrma,
        ],
    ] {
        let args: Vec<&str> = [&["humanoid"][..], args, &["--map", map]].concat();
        let stdout = run(&args);
        let report: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {stdout}"));
        let found = report["diagnostics"].as_array().is_some_and(|all| {
            all.iter().any(|d| {
                d["code"] == "GODOT_BONE_MAPPED_TWICE" && d["location"].as_str() == Some(map)
            })
        });
        assert!(found, "{args:?}: {report}");
    }
}

/// In text, the same diagnostics are printed with the command's own; `mappings show` keeps
/// its output a TOML table by printing them as comments.
#[test]
fn a_godot_mappings_diagnostics_are_in_the_text_output() {
    let dir = tempfile::tempdir().unwrap();
    let (mannequin, map) = mannequin_and_a_bone_map(dir.path());
    let (mannequin, map) = (mannequin.to_str().unwrap(), map.to_str().unwrap());
    let line = format!("warning [GODOT_BONE_MAPPED_TWICE] {map}: skeleton bone \"head\"");
    for args in [
        &["inspect", mannequin][..],
        &["pose", mannequin],
        &["map", mannequin],
        &["mappings", "list"],
    ] {
        let args: Vec<&str> = [&["humanoid"][..], args, &["--map", map]].concat();
        let stdout = run(&args);
        assert!(stdout.contains(&line), "{args:?}: {stdout}");
    }
    let toml = run(&["humanoid", "mappings", "show", "twice", "--map", map]);
    assert!(toml.starts_with(&format!("# {line}")), "{toml}");
    let table: toml::Table = toml.parse().unwrap_or_else(|e| panic!("{e}: {toml}"));
    assert_eq!(table["name"].as_str(), Some("twice"), "{toml}");
}

/// `--help` of the tool and of every subcommand ends with examples, and every example parses
/// as the arguments it shows (so an example cannot name a flag that is gone).
#[test]
fn every_help_ends_with_examples_that_parse() {
    let mut command = Args::command();
    let mut helps = vec![(
        "humanoid".to_owned(),
        command.render_long_help().to_string(),
    )];
    for sub in command.get_subcommands_mut() {
        let name = sub.get_name().to_owned();
        if name == "help" {
            continue;
        }
        helps.push((name, sub.render_long_help().to_string()));
    }
    for (name, help) in helps {
        let (_, examples) = help
            .split_once("Examples:\n")
            .unwrap_or_else(|| panic!("humanoid {name} --help has no examples:\n{help}"));
        // Example lines start with `humanoid`; indented lines under them explain.
        let lines: Vec<&str> = examples
            .lines()
            .map(str::trim)
            .take_while(|l| !l.is_empty())
            .filter(|l| l.starts_with("humanoid"))
            .collect();
        assert!(lines.len() >= 2, "{name}: {lines:?}");
        for line in lines {
            // What follows three spaces is a comment.
            let command = line.split("   ").next().unwrap_or(line);
            let words: Vec<&str> = command.split_whitespace().collect();
            if let Err(e) = Args::try_parse_from(&words) {
                panic!("{name}: the example {line:?} does not parse: {e}");
            }
        }
    }
}
