//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The result of running the `humanoid` binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `humanoid` with `args`.
#[track_caller]
pub fn humanoid(args: &[&str]) -> Run {
    let output: Output = Command::new(env!("CARGO_BIN_EXE_humanoid"))
        .args(args)
        .output()
        .expect("run the humanoid binary");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `humanoid` and asserts it exited 0.
#[track_caller]
pub fn humanoid_ok(args: &[&str]) -> Run {
    let run = humanoid(args);
    assert_eq!(
        run.code, 0,
        "humanoid {args:?} failed:\n{}\n{}",
        run.stdout, run.stderr
    );
    run
}

/// A fresh temporary folder, removed when dropped.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write test input");
    path
}

/// `path` as a &str.
pub fn s(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// The shared folder beside the checkout.
pub fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

/// Writes the demo into a temp dir; returns (dir guard, node-channel file, EXT-channel file).
pub fn demo() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = temp_dir();
    let out = dir.path().join("demo");
    humanoid_ok(&["demo", "-o", s(&out)]);
    let nodes = out.join("mannequin.glb");
    let ext = out.join("mannequin_ext_clips.glb");
    assert!(nodes.is_file() && ext.is_file());
    (dir, nodes, ext)
}

/// Compares quaternions up to sign.
#[track_caller]
pub fn assert_quat_close(a: [f64; 4], b: [f64; 4], tolerance: f64, what: &str) {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    let err = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - sign * y).abs())
        .fold(0.0, f64::max);
    assert!(
        err <= tolerance,
        "{what}: {a:?} vs {b:?} (max error {err:e})"
    );
}

/// Runs the Khronos glTF validator (HUMANOID_GLTF_VALIDATOR = path to validate.js) on `file`
/// and returns (errors, warnings, messages).
#[track_caller]
pub fn khronos_validate(file: &Path) -> (u64, u64, Vec<String>) {
    let script = std::env::var("HUMANOID_GLTF_VALIDATOR").expect(
        "HUMANOID_GLTF_VALIDATOR must point at validate.js: eval \"$(scripts/install-tools.sh)\"",
    );
    let output = Command::new("node")
        .arg(script)
        .arg(file)
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "validator failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("validator JSON");
    let messages = report["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    (
        report["errors"].as_u64().unwrap_or(u64::MAX),
        report["warnings"].as_u64().unwrap_or(u64::MAX),
        messages,
    )
}

/// A GLB from a JSON value and a BIN chunk (written by hand here, independent of the library).
pub fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut json = serde_json::to_vec(json).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    if !bin.is_empty() {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    out
}

/// A small valid glTF: three nodes in a chain (hips → spine → head) with an EXT skeleton,
/// plus `patch` applied on top (shallow merge of root keys).
pub fn small_gltf(patch: serde_json::Value) -> serde_json::Value {
    let mut root = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["EXT_skeleton_humanoid"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "hips", "translation": [0, 1, 0], "children": [1]},
            {"name": "spine", "translation": [0, 0.1, 0], "children": [2]},
            {"name": "head", "translation": [0, 0.5, 0]}
        ],
        "extensions": {"EXT_skeleton_humanoid": {"humanoidSkeletons": [
            {"rootNode": 0, "humanoidBones": {"hips": 0, "spine": 1, "head": 2}}
        ]}}
    });
    if let (Some(root), Some(patch)) = (root.as_object_mut(), patch.as_object()) {
        for (k, v) in patch {
            root.insert(k.clone(), v.clone());
        }
    }
    root
}

/// Runs the three-vrm oracle (HUMANOID_THREE_VRM_ORACLE = path to oracle.mjs) with `args` and
/// returns its JSON output, or its stderr when three-vrm could not load the file.
#[track_caller]
pub fn three_vrm(args: &[&str]) -> Result<serde_json::Value, String> {
    let script = std::env::var("HUMANOID_THREE_VRM_ORACLE").expect(
        "HUMANOID_THREE_VRM_ORACLE must point at oracle.mjs: eval \"$(scripts/install-tools.sh)\"",
    );
    let output = Command::new("node")
        .arg(script)
        .args(args)
        .output()
        .expect("run node");
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    serde_json::from_slice(&output.stdout).map_err(|e| format!("oracle output is not JSON: {e}"))
}

/// The JSON and BIN chunks of a GLB file, read here by hand (independent of the library).
#[track_caller]
pub fn glb_parts(path: &Path) -> (serde_json::Value, Vec<u8>) {
    let bytes = std::fs::read(path).expect("read GLB");
    assert_eq!(&bytes[..4], b"glTF", "{}: GLB magic", path.display());
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(bytes[20..20 + json_len].trim_ascii_end()).expect("GLB JSON");
    let rest = &bytes[20 + json_len..];
    let bin = if rest.len() >= 8 {
        let len = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
        rest[8..8 + len].to_vec()
    } else {
        Vec::new()
    };
    (json, bin)
}
