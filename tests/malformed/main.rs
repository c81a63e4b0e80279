//! The golden suite of malformed inputs (`tests/malformed/<format>/<name>.<ext>` beside
//! `<name>.expected.json`, written by `make_cases.py` from one deliberate fault each): every
//! case is run through the binary as `humanoid validate FILE --json`, and must exit as expected
//! (1 for a malformed file) with the expected registered code, naming the file and the place
//! (a byte offset, a JSON pointer, or line:column). Legal-but-unusual inputs (CRLF, mixed line
//! ends, a BOM, gzip) must read as their plain file does (`inspect --json`). No case may
//! crash, hang or take long: the slowest is printed (`scripts/bench-limits.py` holds the
//! one-second bound, outside the tests).
//!
//! `outputs.rs` runs the output faults (read-only, missing or full folder; an output that is a
//! folder, a device, a FIFO or a link) and `special.rs` the inputs that cannot be committed
//! (folders, FIFOs and devices given as input).

// Tests may unwrap, expect, panic and narrow: a failure is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod outputs;
mod special;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The binary under test.
pub fn humanoid() -> Command {
    Command::new(env!("CARGO_BIN_EXE_humanoid"))
}

/// Runs `command`, killing it after `limit` (a hang is a failure, not a stuck test).
pub fn run_with_limit(mut command: Command, limit: Duration) -> (Output, Duration) {
    use std::process::Stdio;
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // Read the pipes on threads so a large output cannot block the child.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut v).ok();
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut v).ok();
        v
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            child.kill().ok();
            let status = child.wait().expect("wait");
            panic!(
                "{:?} still running after {limit:?}: killed ({status})",
                command.get_args().collect::<Vec<_>>()
            );
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let elapsed = started.elapsed();
    let output = Output {
        status,
        stdout: out.join().expect("stdout thread"),
        stderr: err.join().expect("stderr thread"),
    };
    (output, elapsed)
}

/// What a case must give.
#[derive(Debug, serde::Deserialize)]
struct Expected {
    /// The exit code; `None`: 0 or 1, either is right (never a crash).
    exit: Option<i32>,
    /// The registered code of the error finding.
    code: Option<String>,
    /// Its place: exact, or `N:` for line N at any column.
    place: Option<String>,
    /// Words its message holds.
    words: Option<String>,
    /// The plain file this one must read the same as.
    same_as: Option<String>,
    /// An output extension: the file converted to it must validate (exit 0).
    convert_to: Option<String>,
    /// Why the case exists (shown on failure).
    #[serde(default)]
    why: String,
}

fn cases() -> Vec<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut cases = Vec::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/malformed")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .expect("a case folder")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| !p.to_string_lossy().ends_with(".expected.json"))
            .collect();
        files.sort();
        for file in files {
            let name = file
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .to_string();
            let stem = name.split('.').next().expect("a stem").to_owned();
            let expected = folder.join(format!("{stem}.expected.json"));
            assert!(
                expected.exists(),
                "{} has no {}",
                file.display(),
                expected.display()
            );
            cases.push((file, expected));
        }
    }
    cases
}

/// The one finding a failed validation reports with `code`, as (location, message).
fn finding(json: &serde_json::Value, code: &str) -> Option<(String, String)> {
    json["diagnostics"].as_array()?.iter().find_map(|d| {
        (d["code"] == code && d["severity"] == "error").then(|| {
            (
                d["location"].as_str().unwrap_or("").to_owned(),
                d["message"].as_str().unwrap_or("").to_owned(),
            )
        })
    })
}

fn place_matches(found: &str, expected: &str) -> bool {
    match expected.strip_suffix(':') {
        Some(line) => found.split(':').next() == Some(line) && found.contains(':'),
        None => found == expected,
    }
}

/// `inspect --json` of a file, with its path replaced (so two files compare).
fn inspection(file: &Path) -> String {
    let mut command = humanoid();
    command.arg("inspect").arg(file).arg("--json");
    let (output, _) = run_with_limit(command, Duration::from_secs(20));
    assert_eq!(
        output.status.code(),
        Some(0),
        "inspect {}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let mut json: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("inspect --json prints JSON");
    // Notes on the encoding itself (gzip) are the one difference a same-content file may have.
    if let Some(list) = json["diagnostics"].as_array_mut() {
        list.retain(|d| d["code"] != "HANIM_GZIP");
    }
    let stem = file.file_stem().expect("a stem").to_string_lossy();
    json.to_string()
        .replace(&file.display().to_string(), "<file>")
        .replace(&format!("\"{stem}\""), "\"<stem>\"")
}

fn check_case(file: &Path, expected: &Expected) -> Result<Duration, String> {
    let mut command = humanoid();
    command.arg("validate").arg(file).arg("--json");
    let (output, elapsed) = run_with_limit(command, Duration::from_secs(20));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let code = output.status.code();
    if stderr.contains("panicked") || stderr.contains("overflow") || code.is_none() {
        return Err(format!("crashed ({}): {stderr}", output.status));
    }
    match expected.exit {
        Some(exit) if code != Some(exit) => {
            return Err(format!("exit {code:?}, expected {exit}: {stdout}{stderr}"));
        }
        None if !matches!(code, Some(0 | 1)) => {
            return Err(format!("exit {code:?}, expected 0 or 1: {stderr}"));
        }
        _ => {}
    }
    if let Some(want) = &expected.code {
        let json: serde_json::Value = serde_json::from_str(&stdout)
            .map_err(|e| format!("validate --json printed no JSON ({e}): {stdout}{stderr}"))?;
        let Some((place, message)) = finding(&json, want) else {
            return Err(format!("no error {want}: {stdout}"));
        };
        let name = file.file_name().expect("a name").to_string_lossy();
        let names_file =
            message.contains(&*name) || json["file"].as_str().is_some_and(|f| f.ends_with(&*name));
        if !names_file {
            return Err(format!("{want} does not name the file: {message}"));
        }
        if let Some(want_place) = &expected.place {
            if !place_matches(&place, want_place) {
                return Err(format!(
                    "{want} at {place:?}, expected {want_place:?}: {message}"
                ));
            }
        }
        if let Some(words) = &expected.words {
            if !message.contains(words.as_str()) {
                return Err(format!(
                    "{want}: the message should say {words:?}: {message}"
                ));
            }
        }
    }
    if let Some(extension) = &expected.convert_to {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let output = dir.path().join(format!("out.{extension}"));
        let mut command = humanoid();
        command.arg("convert").arg(file).arg(&output);
        let (converted, _) = run_with_limit(command, Duration::from_secs(20));
        if !converted.status.success() {
            return Err(format!(
                "convert to .{extension} failed: {}",
                String::from_utf8_lossy(&converted.stderr)
            ));
        }
        let mut command = humanoid();
        command.arg("validate").arg(&output);
        let (validated, _) = run_with_limit(command, Duration::from_secs(20));
        if !validated.status.success() {
            return Err(format!(
                "the .{extension} written does not read back: {}{}",
                String::from_utf8_lossy(&validated.stdout),
                String::from_utf8_lossy(&validated.stderr)
            ));
        }
    }
    if let Some(plain) = &expected.same_as {
        let plain = file.with_file_name(plain);
        if inspection(file) != inspection(&plain) {
            return Err(format!("reads differently from {}", plain.display()));
        }
    }
    Ok(elapsed)
}

#[test]
fn every_malformed_case_gives_its_expected_code_and_place() {
    let cases = cases();
    assert!(cases.len() >= 150, "{} cases", cases.len());
    let mut failures = Vec::new();
    let mut slowest = (Duration::ZERO, PathBuf::new());
    let mut per_format = std::collections::BTreeMap::<String, usize>::new();
    for (file, expected_path) in &cases {
        let text = std::fs::read_to_string(expected_path).expect("expected.json");
        let expected: Expected = serde_json::from_str(&text).expect("an expectation");
        let format = file.parent().and_then(Path::file_name).expect("a folder");
        *per_format
            .entry(format.to_string_lossy().to_string())
            .or_default() += 1;
        match check_case(file, &expected) {
            Ok(elapsed) if elapsed > slowest.0 => slowest = (elapsed, file.clone()),
            Ok(_) => {}
            Err(why) => failures.push(format!(
                "{} ({}): {}",
                file.display(),
                expected.why,
                why.replace(char::is_whitespace, " ")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .chars()
                    .take(400)
                    .collect::<String>()
            )),
        }
    }
    println!("{} cases: {per_format:?}", cases.len());
    println!("slowest: {} in {:?}", slowest.1.display(), slowest.0);
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
