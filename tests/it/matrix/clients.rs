//! The real clients, each started once for a batch of files where it allows: the Khronos glTF
//! validator (one Node process), three-vrm (one process a file, in parallel), X_ITE (one browser
//! for a batch), Castle's `tovrmlx3d` (one process a file, in parallel) and Blender's BVH
//! importer (one Blender for every BVH). A client that is not installed is reported and its
//! cells go unchecked by it; on CI (`CI` set) every client must be there.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{parallel, Cell, Input, Status};
use crate::util::shared;

fn tool(var: &str) -> Option<PathBuf> {
    let found = std::env::var_os(var).map(PathBuf::from);
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{var} is not set: the matrix needs every real client on CI"
        );
        println!("note: {var} is not set: cells it checks are not checked by it");
    }
    found
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/matrix")
        .join(name)
}

/// Splits `files` in `n` chunks of about the same size.
fn chunks(files: Vec<PathBuf>, n: usize) -> Vec<Vec<PathBuf>> {
    let size = files.len().div_ceil(n.max(1)).max(1);
    files.chunks(size).map(<[PathBuf]>::to_vec).collect()
}

/// JSON lines after `prefix` on a batch client's stdout, by their "file".
fn lines_by_file(stdout: &str, prefix: &str) -> HashMap<PathBuf, Value> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| Some((PathBuf::from(v["file"].as_str()?), v)))
        .collect()
}

pub fn check(cells: &mut [Cell], inputs: &[Input]) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    validator(cells, inputs, threads);
    three_vrm(cells);
    hanim_peers(cells, threads);
    blender(cells);
}

fn ok_outputs(cells: &[Cell], pick: impl Fn(&Cell) -> bool) -> Vec<PathBuf> {
    cells
        .iter()
        .filter(|c| !matches!(c.status, Status::Fail(_)) && pick(c))
        .filter_map(|c| c.out_path.clone())
        .collect()
}

fn validator(cells: &mut [Cell], inputs: &[Input], threads: usize) {
    let Some(validate_js) = tool("HUMANOID_GLTF_VALIDATOR") else {
        return;
    };
    let modules = validate_js.parent().unwrap().join("node_modules");
    let mut files: Vec<PathBuf> = inputs
        .iter()
        .filter(|i| i.kind.is_gltf_family())
        .map(|i| i.path.clone())
        .collect();
    files.extend(ok_outputs(cells, |c| c.output.is_gltf_family()));
    let results: Vec<HashMap<PathBuf, Value>> = parallel(chunks(files, threads), |chunk| {
        let output = Command::new("node")
            .arg(script("validate_batch.js"))
            .args(&chunk)
            .env("NODE_PATH", &modules)
            .output()
            .expect("run node");
        lines_by_file(&String::from_utf8_lossy(&output.stdout), "")
    });
    let reports: HashMap<PathBuf, Value> = results.into_iter().flatten().collect();
    let codes = |file: &Path| -> Option<BTreeSet<String>> {
        reports.get(file).map(|r| {
            r["errorCodes"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|c| c.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        })
    };
    for cell in cells.iter_mut() {
        let Some(out) = cell.out_path.clone() else {
            continue;
        };
        if matches!(cell.status, Status::Fail(_)) || !cell.output.is_gltf_family() {
            continue;
        }
        let before = if cell.kind.is_gltf_family() {
            codes(&cell.input_path).unwrap_or_default()
        } else {
            BTreeSet::new()
        };
        match codes(&out) {
            None => cell.fail("the Khronos validator gave no report"),
            Some(after) => {
                let new: Vec<&String> = after.difference(&before).collect();
                if !new.is_empty() {
                    let messages = reports[&out]["messages"].to_string();
                    cell.fail(format!(
                        "Khronos validator: new error(s) {new:?}: {messages}"
                    ));
                }
            }
        }
    }
}

fn three_vrm(cells: &mut [Cell]) {
    let Some(oracle) = tool("HUMANOID_THREE_VRM_ORACLE") else {
        return;
    };
    let corpus = shared().join("corpus/vrm");
    let models = [
        corpus.join("debug_robot.vrm"),
        corpus.join("Godette_vrm_v4.vrm"),
    ];
    let jobs: Vec<usize> = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            c.out_path.is_some()
                && !matches!(c.status, Status::Fail(_))
                && matches!(c.output.to, "vrm1" | "vrm0" | "vrma")
        })
        .map(|(i, _)| i)
        .collect();
    let verdicts = parallel(jobs, |i| {
        let cell = &cells[i];
        let out = cell.out_path.as_ref().unwrap();
        let runs: Vec<Vec<&std::ffi::OsStr>> = if cell.output.to == "vrma" {
            models
                .iter()
                .map(|m| {
                    vec![
                        "--vrm".as_ref(),
                        m.as_os_str(),
                        "--vrma".as_ref(),
                        out.as_os_str(),
                        "--uniform".as_ref(),
                        "5".as_ref(),
                    ]
                })
                .collect()
        } else {
            vec![vec!["--vrm".as_ref(), out.as_os_str(), "--rest".as_ref()]]
        };
        for args in runs {
            let output = Command::new("node")
                .arg(&oracle)
                .args(&args)
                .output()
                .expect("run node");
            let what = format!("three-vrm {}", args[1].to_string_lossy());
            if !output.status.success() {
                let stderr = String::from_utf8_lossy(&output.stderr);
                let line = stderr
                    .lines()
                    .find(|l| l.contains("Error") || l.contains("error"))
                    .unwrap_or(stderr.lines().next().unwrap_or(""));
                return Some(format!("{what} does not load it: {line}"));
            }
            let Ok(v) = serde_json::from_slice::<Value>(&output.stdout) else {
                return Some(format!("{what}: output is not JSON"));
            };
            let text = v.to_string();
            if text.contains("null") && text.contains("\"p\":[null") || text.contains("NaN") {
                return Some(format!("{what}: non-finite bone positions"));
            }
        }
        None
    });
    let jobs: Vec<usize> = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            c.out_path.is_some()
                && !matches!(c.status, Status::Fail(_))
                && matches!(c.output.to, "vrm1" | "vrm0" | "vrma")
        })
        .map(|(i, _)| i)
        .collect();
    for (i, verdict) in jobs.into_iter().zip(verdicts) {
        if let Some(what) = verdict {
            cells[i].fail(what);
        }
    }
}

/// Joints Castle holds: `tovrmlx3d FILE --encoding=xml`, each HAnimJoint (or VRML97 Joint
/// PROTO instance) that is not a USE counted once.
fn castle_joints(tool: &Path, file: &Path) -> Result<u64, String> {
    let output = Command::new(tool)
        .arg(file)
        .arg("--encoding=xml")
        .output()
        .map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() || stderr.contains("skip the rest") {
        return Err(stderr.lines().next().unwrap_or("failed").to_owned());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let doc = roxmltree::Document::parse_with_options(
        &text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            nodes_limit: u32::MAX,
        },
    )
    .map_err(|e| format!("Castle's X3D: {e}"))?;
    // Castle writes a PROTO instance again wherever a field lists it (the humanoid's `joints`):
    // each DEF'd joint counts once.
    let mut names = std::collections::HashSet::new();
    let mut anonymous = 0;
    for e in doc.descendants().filter(|e| {
        e.attribute("USE").is_none()
            && (e.has_tag_name("HAnimJoint")
                || (e.has_tag_name("ProtoInstance") && e.attribute("name") == Some("Joint")))
    }) {
        match e.attribute("DEF") {
            Some(def) => {
                names.insert(def);
            }
            None => anonymous += 1,
        }
    }
    Ok(names.len() as u64 + anonymous)
}

fn hanim_peers(cells: &mut [Cell], threads: usize) {
    let files = ok_outputs(cells, |c| c.output.is_hanim());
    if let Some(xite) = tool("HUMANOID_XITE") {
        let dir = xite.parent().unwrap().to_path_buf();
        let results: Vec<HashMap<PathBuf, Value>> =
            parallel(chunks(files.clone(), threads), |chunk| {
                let output = Command::new("node")
                    .arg("-r")
                    .arg(dir.join("f16-polyfill.js"))
                    .arg(script("xite_batch.js"))
                    .args(&chunk)
                    .env("NODE_PATH", dir.join("node_modules"))
                    .output()
                    .expect("run node");
                lines_by_file(&String::from_utf8_lossy(&output.stdout), "XITE_JSON ")
            });
        let seen: HashMap<PathBuf, Value> = results.into_iter().flatten().collect();
        for cell in cells.iter_mut().filter(|c| c.output.is_hanim()) {
            let Some(out) = cell.out_path.clone() else {
                continue;
            };
            if matches!(cell.status, Status::Fail(_)) {
                continue;
            }
            match seen.get(&out) {
                None => cell.fail("X_ITE gave no answer"),
                Some(v) if v["ok"] != true => {
                    cell.fail(format!("X_ITE does not load it: {}", v["error"]))
                }
                Some(v) => {
                    if v["joints"].as_u64() != cell.joints {
                        cell.fail(format!(
                            "X_ITE holds {} joints, the conversion reports {:?}",
                            v["joints"], cell.joints
                        ));
                    }
                }
            }
        }
    }
    if let Some(castle) = tool("HUMANOID_TOVRMLX3D") {
        let counts = parallel(files.clone(), |f| (f.clone(), castle_joints(&castle, &f)));
        let counts: HashMap<PathBuf, Result<u64, String>> = counts.into_iter().collect();
        for cell in cells.iter_mut().filter(|c| c.output.is_hanim()) {
            let Some(out) = cell.out_path.clone() else {
                continue;
            };
            match counts.get(&out) {
                Some(Ok(n)) if Some(*n) == cell.joints => {}
                Some(Ok(n)) => cell.fail(format!(
                    "Castle holds {n} joints, the conversion reports {:?}",
                    cell.joints
                )),
                Some(Err(e)) => cell.fail(format!("Castle does not load it: {e}")),
                None => {}
            }
        }
    }
}

/// ROOT and JOINT lines (Blender makes a bone of each) and the `Frames:` count of a BVH.
fn bvh_counts(file: &Path) -> (u64, u64) {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let joints = text
        .lines()
        .filter(|l| {
            let w = l.trim_start();
            w.starts_with("ROOT ") || w.starts_with("JOINT ")
        })
        .count() as u64;
    let frames = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Frames:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    (joints, frames)
}

fn blender(cells: &mut [Cell]) {
    let files = ok_outputs(cells, |c| c.output.to == "bvh");
    if files.is_empty() {
        return;
    }
    let Some(blender) = tool("HUMANOID_BLENDER") else {
        return;
    };
    let output = Command::new(blender)
        .args(["-b", "--factory-startup", "--python"])
        .arg(script("blender_bvh_batch.py"))
        .arg("--")
        .args(&files)
        .output()
        .expect("run blender");
    let seen = lines_by_file(&String::from_utf8_lossy(&output.stdout), "BLENDER_JSON ");
    for cell in cells.iter_mut().filter(|c| c.output.to == "bvh") {
        let Some(out) = cell.out_path.clone() else {
            continue;
        };
        if matches!(cell.status, Status::Fail(_)) {
            continue;
        }
        let (joints, frames) = bvh_counts(&out);
        match seen.get(&out) {
            None => cell.fail("Blender gave no answer"),
            Some(v) if v["ok"] != true => {
                cell.fail(format!("Blender does not import it: {}", v["error"]))
            }
            Some(v) => {
                let (b, f) = (v["bones"].as_u64(), v["frames"].as_u64());
                if b != Some(joints) || f != Some(frames) {
                    cell.fail(format!(
                        "Blender reads {b:?} bones and {f:?} frames, the file has {joints} and {frames}"
                    ));
                }
            }
        }
    }
}
