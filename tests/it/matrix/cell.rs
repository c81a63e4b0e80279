//! One cell of the matrix: convert, then the checks that need no outside client (our own
//! `validate`, the meaning of the output, same-kind counts, the `.tres` read-back).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::{binary, meaning, Input, Kind, Output};

/// What a cell came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Ok,
    /// Exit 1 with this reason (and, where it named a flag, what following it gave).
    Refused(String),
    Fail(String),
}

/// One input × output conversion.
#[derive(Debug, Clone)]
pub struct Cell {
    pub input: String,
    pub input_path: PathBuf,
    pub kind: Kind,
    pub output: Output,
    pub status: Status,
    /// The file checked (the conversion's output, or the output of the advice followed).
    pub out_path: Option<PathBuf>,
    /// The joint count the conversion reports for its output (`joints` in `--json`), else the
    /// count `inspect` gives.
    pub joints: Option<u64>,
    /// What the ok cell amounts to, for the table (e.g. "rebased on the T-pose").
    pub note: String,
}

impl Cell {
    pub fn fail(&mut self, what: impl Into<String>) {
        let what = what.into();
        self.status = match std::mem::replace(&mut self.status, Status::Ok) {
            Status::Fail(before) => Status::Fail(format!("{before}; {what}")),
            _ => Status::Fail(what),
        };
    }
}

/// The result of running the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary with `args`; a run over two minutes is killed and counts as a hang.
pub fn run(args: &[&OsStr]) -> Run {
    let mut child = Command::new(binary())
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run the humanoid binary");
    let started = std::time::Instant::now();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code().unwrap_or(-1);
        }
        if started.elapsed() > Duration::from_secs(120) {
            child.kill().ok();
            child.wait().ok();
            break -2;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        code,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn run_str(args: &[&str]) -> Run {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run(&args)
}

/// `inspect --json` of a file (with extra arguments), or why it failed.
pub fn inspect(path: &Path, extra: &[&str]) -> Result<Value, String> {
    let mut args = vec!["inspect", "--json", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let run = run_str(&args);
    if run.code != 0 {
        return Err(format!(
            "inspect exit {}: {}",
            run.code,
            first_line(&run.stderr)
        ));
    }
    serde_json::from_str(&run.stdout).map_err(|e| format!("inspect JSON: {e}"))
}

/// What the test knows of an input before converting it.
#[derive(Debug, Clone)]
pub struct Facts {
    pub inspect: Result<Value, String>,
}

impl Facts {
    /// The input's clips: (name, duration).
    pub fn clips(&self) -> Vec<(String, f64)> {
        clips(self.inspect.as_ref().ok())
    }
}

/// (name, duration) of each clip in an `inspect --json`.
pub fn clips(inspect: Option<&Value>) -> Vec<(String, f64)> {
    inspect
        .and_then(|v| v["clips"].as_array())
        .map(|clips| {
            clips
                .iter()
                .map(|c| {
                    (
                        c["name"].as_str().unwrap_or("").to_owned(),
                        c["duration"].as_f64().unwrap_or(0.0),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// bone → joint name of the first humanoid in an `inspect --json`.
pub fn bones(inspect: &Value) -> Vec<(String, String)> {
    inspect["skeletons"][0]["bones"]
        .as_array()
        .map(|bones| {
            bones
                .iter()
                .map(|b| {
                    (
                        b["bone"].as_str().unwrap_or("").to_owned(),
                        b["name"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn facts(input: &Input) -> Facts {
    Facts {
        inspect: inspect(&input.path, &[]),
    }
}

pub fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    line.strip_prefix("humanoid: error: ")
        .unwrap_or(line)
        .to_owned()
}

/// The advice in a refusal that the test can follow, as extra arguments.
fn advice(reason: &str, facts: &Facts) -> Option<Vec<String>> {
    if reason.contains("--map auto") {
        return Some(vec!["--map".into(), "auto".into()]);
    }
    if reason.contains("--normalize") {
        return Some(vec!["--normalize".into()]);
    }
    if reason.contains("--clip") {
        let (name, _) = facts.clips().into_iter().next()?;
        return Some(vec!["--clip".into(), name]);
    }
    None
}

fn output_path(work: &Path, input: &Input, output: Output, suffix: &str) -> PathBuf {
    let folder: String = input
        .label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let dir = work.join(folder).join(format!("{}{suffix}", output.to));
    std::fs::create_dir_all(&dir).expect("cell folder");
    let stem = input
        .path
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .replace('.', "_");
    dir.join(format!("{stem}.{}", output.ext))
}

fn convert(input: &Input, out: &Path, output: Output, extra: &[String]) -> Run {
    let mut args: Vec<&OsStr> = vec![
        "convert".as_ref(),
        input.path.as_os_str(),
        out.as_os_str(),
        "--to".as_ref(),
        output.to.as_ref(),
        "--json".as_ref(),
    ];
    args.extend(extra.iter().map(OsStr::new));
    run(&args)
}

pub fn convert_and_check(input: &Input, facts: &Facts, output: Output, work: &Path) -> Cell {
    let mut cell = Cell {
        input: input.label.clone(),
        input_path: input.path.clone(),
        kind: input.kind,
        output,
        status: Status::Ok,
        out_path: None,
        joints: None,
        note: String::new(),
    };
    if let Err(e) = &facts.inspect {
        // An input the tool cannot read: every cell must be a clear refusal.
        let out = output_path(work, input, output, "");
        let run = convert(input, &out, output, &[]);
        cell.status = match run.code {
            1 if !first_line(&run.stderr).is_empty() => {
                Status::Refused(format!("unreadable input: {}", first_line(&run.stderr)))
            }
            code => Status::Fail(format!(
                "input does not inspect ({e}) but convert exits {code}"
            )),
        };
        return cell;
    }
    let out = output_path(work, input, output, "");
    let converted = convert(input, &out, output, &[]);
    match converted.code {
        0 => check_ok(&mut cell, input, facts, &out, &converted, &[]),
        1 => {
            let reason = first_line(&converted.stderr);
            if reason.is_empty() {
                cell.status = Status::Fail("exit 1 without a reason".into());
                return cell;
            }
            if out.exists() {
                cell.fail(format!("refused but left {}", out.display()));
                return cell;
            }
            let reason = reason
                .strip_prefix(&format!("{}: ", input.path.display()))
                .unwrap_or(&reason)
                .to_owned();
            match advice(&reason, facts) {
                None => cell.status = Status::Refused(reason),
                Some(extra) => {
                    let out = output_path(work, input, output, ".advice");
                    let followed = convert(input, &out, output, &extra);
                    if followed.code != 0 {
                        cell.status = Status::Fail(format!(
                            "refused ({reason}); following it ({}) exits {}: {}",
                            extra.join(" "),
                            followed.code,
                            first_line(&followed.stderr)
                        ));
                        return cell;
                    }
                    check_ok(&mut cell, input, facts, &out, &followed, &extra);
                    if cell.status == Status::Ok {
                        cell.status =
                            Status::Refused(format!("{reason} (with {}: ok)", extra.join(" ")));
                    }
                }
            }
        }
        -2 => cell.status = Status::Fail("hung (killed after 120 s)".into()),
        code => {
            cell.status = Status::Fail(format!("exit {code}: {}", first_line(&converted.stderr)))
        }
    }
    cell
}

/// The checks of an ok cell that need no outside client.
fn check_ok(
    cell: &mut Cell,
    input: &Input,
    facts: &Facts,
    out: &Path,
    converted: &Run,
    extra: &[String],
) {
    cell.out_path = Some(out.to_path_buf());
    if !out.is_file() {
        cell.fail(format!("exit 0 but no {}", out.display()));
        return;
    }
    let report: Value = match serde_json::from_str(&converted.stdout) {
        Ok(v) => v,
        Err(e) => {
            cell.fail(format!("convert --json is not JSON: {e}"));
            return;
        }
    };
    // Our own validate: no error.
    let validated = run_str(&["validate", "--json", out.to_str().unwrap()]);
    if validated.code != 0 {
        let errors: Vec<String> = serde_json::from_str::<Value>(&validated.stdout)
            .ok()
            .and_then(|v| v["diagnostics"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter(|d| d["severity"] == "error")
            .map(|d| {
                format!(
                    "{} {}",
                    d["code"].as_str().unwrap_or(""),
                    d["message"].as_str().unwrap_or("")
                )
            })
            .take(2)
            .collect();
        cell.fail(format!(
            "our validate rejects it: {}",
            if errors.is_empty() {
                first_line(&validated.stderr)
            } else {
                errors.join(" | ")
            }
        ));
    }
    let inspected = match inspect(out, &[]) {
        Ok(v) => v,
        Err(e) => {
            cell.fail(format!("output does not read back: {e}"));
            return;
        }
    };
    cell.joints = report["joints"]
        .as_u64()
        .or_else(|| inspected["joints"].as_u64());
    let source = facts.inspect.as_ref().unwrap();
    if cell.output.to == "godot-bonemap" {
        check_bone_map(cell, input, source, out, extra);
        return;
    }
    if input.kind.same_kind(cell.output) {
        let (a, b) = (source["joints"].as_u64(), inspected["joints"].as_u64());
        if a != b {
            cell.fail(format!("same kind: {a:?} joints in, {b:?} out"));
        }
        if input.kind == Kind::Bvh {
            let frames = |p: &Path| {
                std::fs::read_to_string(p).ok().and_then(|t| {
                    t.lines().find_map(|l| {
                        l.trim()
                            .strip_prefix("Frames:")
                            .map(|n| n.trim().to_owned())
                    })
                })
            };
            let (a, b) = (frames(&input.path), frames(out));
            if a != b {
                cell.fail(format!("same kind: {a:?} frames in, {b:?} out"));
            }
        }
    }
    match meaning::compare(input, facts, out, &inspected, &report, extra) {
        Ok(note) => cell.note = note,
        Err(what) => cell.fail(what),
    }
}

/// A `.tres` must read back through `--map FILE.tres` to the input's mapping.
fn check_bone_map(cell: &mut Cell, input: &Input, source: &Value, out: &Path, extra: &[String]) {
    let _ = extra;
    let mapped = match inspect(&input.path, &["--map", out.to_str().unwrap()]) {
        Ok(v) => v,
        Err(e) => {
            cell.fail(format!("--map {} does not read back: {e}", out.display()));
            return;
        }
    };
    // A rig without a declaration is mapped as every command maps it (`--map auto`).
    let mut want = bones(source);
    if want.is_empty() {
        if let Ok(auto) = inspect(&input.path, &["--map", "auto"]) {
            want = bones(&auto);
        }
    }
    let got = bones(&mapped);
    if want != got {
        let missing: Vec<&String> = want
            .iter()
            .filter(|b| !got.contains(b))
            .map(|(bone, _)| bone)
            .collect();
        let other: Vec<&String> = got
            .iter()
            .filter(|b| !want.contains(b))
            .map(|(bone, _)| bone)
            .collect();
        cell.fail(format!(
            "--map FILE.tres reads back another mapping ({} vs {} bones; lost {missing:?}, other {other:?})",
            want.len(),
            got.len()
        ));
    } else {
        cell.note = format!("{} bones read back", got.len());
    }
}
