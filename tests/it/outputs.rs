//! Every file a command writes is an output: a `.gltf` output's `.bin` beside it is listed in
//! `wrote` (and the JSON report's `files`), is not replaced without `--force`, and is never an
//! input. Files are compared by their bytes, read here.

use std::path::Path;

use serde_json::Value;

use crate::util::{demo, humanoid, humanoid_ok, s, temp_dir};

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_gltf_output_lists_its_bin_and_does_not_replace_one_without_force() {
    let (_guard, mannequin, _) = demo();
    let dir = temp_dir();
    let gltf = dir.path().join("out.gltf");
    let bin = dir.path().join("out.bin");

    // A .bin is there already (someone's file): refused, untouched, nothing written.
    std::fs::write(&bin, b"someone else's data").unwrap();
    let run = humanoid(&["convert", s(&mannequin), s(&gltf)]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(s(&bin)) && run.stderr.contains("--force"),
        "{}",
        run.stderr
    );
    assert_eq!(bytes(&bin), b"someone else's data");
    assert!(!gltf.exists());

    // With --force both are written, and both are named.
    let run = humanoid_ok(&["convert", s(&mannequin), s(&gltf), "--force"]);
    let wrote = run.stdout.lines().last().unwrap();
    assert!(
        wrote.starts_with(&format!("wrote {}", s(&gltf))) && wrote.contains(s(&bin)),
        "{wrote}"
    );
    assert_ne!(bytes(&bin), b"someone else's data");
    let json: Value = serde_json::from_slice(&bytes(&gltf)).unwrap();
    assert_eq!(json["buffers"][0]["uri"], "out.bin");

    // The JSON report lists every file, the output last.
    std::fs::remove_file(&gltf).unwrap();
    std::fs::remove_file(&bin).unwrap();
    let run = humanoid_ok(&["convert", s(&mannequin), s(&gltf), "--json"]);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["files"], serde_json::json!([s(&bin), s(&gltf)]));
}

#[test]
fn a_gltf_input_s_bin_is_never_an_output() {
    let (_guard, mannequin, _) = demo();
    let dir = temp_dir();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    // x.gltf with x.bin, then renamed a.gltf: its buffer is still x.bin.
    humanoid_ok(&["convert", s(&mannequin), s(&src.join("x.gltf"))]);
    std::fs::rename(src.join("x.gltf"), src.join("a.gltf")).unwrap();
    let input = src.join("a.gltf");
    let input_bin = src.join("x.bin");
    let before = bytes(&input_bin);

    // To another folder's x.gltf: fine, its own x.bin is written there and listed.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let run = humanoid_ok(&["convert", s(&input), s(&other.join("x.gltf"))]);
    assert!(
        run.stdout.contains(s(&other.join("x.bin"))),
        "{}",
        run.stdout
    );
    assert_eq!(bytes(&other.join("x.bin")), before);

    // Beside the input, as x.gltf: the buffer would go back onto the input's x.bin. Unchanged
    // it is left alone (not written, not listed) ...
    let run = humanoid_ok(&["convert", s(&input), s(&src.join("x.gltf"))]);
    assert!(!run.stdout.contains("beside it"), "{}", run.stdout);
    assert_eq!(bytes(&input_bin), before);
    std::fs::remove_file(src.join("x.gltf")).unwrap();
    // ... and new data bound for it (a retargeted clip's keys, which go to <stem>.bin) is
    // refused: x.bin is an input.
    let run = humanoid(&[
        "retarget",
        s(&mannequin),
        "--onto",
        s(&input),
        "-o",
        s(&src.join("x.gltf")),
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("x.bin") && run.stderr.contains("input"),
        "{}",
        run.stderr
    );
    assert_eq!(bytes(&input_bin), before);
    assert!(!src.join("x.gltf").exists());
}

#[test]
fn retarget_into_a_gltf_lists_its_bin_and_respects_force() {
    let (_guard, mannequin, ext) = demo();
    let dir = temp_dir();
    let gltf = dir.path().join("r.gltf");
    let bin = dir.path().join("r.bin");
    std::fs::write(&bin, b"keep").unwrap();
    let args = ["retarget", s(&mannequin), "--onto", s(&ext), "-o", s(&gltf)];
    let run = humanoid(&args);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains(s(&bin)), "{}", run.stderr);
    assert_eq!(bytes(&bin), b"keep");
    std::fs::remove_file(&bin).unwrap();
    let run = humanoid_ok(&args);
    let wrote = run.stdout.lines().last().unwrap();
    assert!(wrote.contains(s(&bin)), "{wrote}");
}

/// A file beside the output that already holds exactly the bytes to write (a texture or
/// buffer two outputs share) is not "replaced": it is left alone, not refused, not listed.
#[test]
fn a_side_file_with_the_same_bytes_is_left_alone() {
    let (_guard, mannequin, _) = demo();
    let dir = temp_dir();
    let first = dir.path().join("out.gltf");
    humanoid_ok(&["convert", s(&mannequin), s(&first)]);
    let bin = dir.path().join("out.bin");
    let before = bytes(&bin);
    std::fs::remove_file(&first).unwrap();
    let run = humanoid_ok(&["convert", s(&mannequin), s(&first)]);
    assert!(!run.stdout.contains("beside it"), "{}", run.stdout);
    assert_eq!(bytes(&bin), before);
}
