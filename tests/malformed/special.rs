//! Inputs that cannot be committed: folders, FIFOs, devices and dangling links given as the
//! input or named by a file's `uri`. Each is refused at once (a FIFO never makes the reader
//! wait, a device never makes it grow) with `INPUT_NOT_A_FILE`, naming the file.

use std::path::Path;
use std::time::Duration;

use super::{humanoid, run_with_limit};

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// `validate --json` of `file`: the exit code and the first error's code, location and message.
fn validate(file: &Path) -> (Option<i32>, String, String, String) {
    let mut command = humanoid();
    command.arg("validate").arg(file).arg("--json");
    let (output, _) = run_with_limit(command, Duration::from_secs(10));
    let json: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or(serde_json::Value::Null);
    let first = json["diagnostics"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["severity"] == "error"))
        .cloned()
        .unwrap_or_default();
    let text = |k: &str| first[k].as_str().unwrap_or("").to_owned();
    (
        output.status.code(),
        text("code"),
        text("location"),
        text("message"),
    )
}

#[test]
fn folders_fifos_and_devices_given_as_input_are_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder.glb");
    std::fs::create_dir(&folder).unwrap();
    let fifo = dir.path().join("pipe.bvh");
    mkfifo(&fifo);
    let zero = dir.path().join("zero.glb");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let null = dir.path().join("null.x3d");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    let fifo_table = dir.path().join("pipe.toml");
    mkfifo(&fifo_table);
    let fifo_tres = dir.path().join("pipe.tres");
    mkfifo(&fifo_tres);
    for (file, kind) in [
        (&folder, "a folder"),
        (&fifo, "a FIFO"),
        (&zero, "a device"),
        (&null, "a device"),
        (&fifo_table, "a FIFO"),
        (&fifo_tres, "a FIFO"),
    ] {
        let (exit, code, _, message) = validate(file);
        assert_eq!(exit, Some(1), "{}", file.display());
        assert_eq!(code, "INPUT_NOT_A_FILE", "{}: {message}", file.display());
        assert!(message.contains(kind), "{}: {message}", file.display());
        let name = file.file_name().unwrap().to_string_lossy();
        assert!(message.contains(&*name), "{message}");
    }
    let dangling = dir.path().join("gone.bvh");
    std::os::unix::fs::symlink(dir.path().join("nowhere.bvh"), &dangling).unwrap();
    let (exit, code, _, message) = validate(&dangling);
    assert_eq!((exit, code.as_str()), (Some(1), "IO_FAILED"), "{message}");
}

#[test]
fn a_uri_naming_a_fifo_or_a_folder_is_refused_at_its_pointer() {
    let dir = tempfile::tempdir().unwrap();
    mkfifo(&dir.path().join("buffer.bin"));
    std::fs::create_dir(dir.path().join("folder.bin")).unwrap();
    for (uri, kind) in [("buffer.bin", "a FIFO"), ("folder.bin", "a folder")] {
        let gltf = dir.path().join(format!("{}.gltf", &uri[..uri.len() - 4]));
        let doc = serde_json::json!({
            "asset": {"version": "2.0"},
            "nodes": [{"name": "root"}],
            "buffers": [{"byteLength": 12, "uri": uri}],
        });
        std::fs::write(&gltf, doc.to_string()).unwrap();
        let (exit, code, location, message) = validate(&gltf);
        assert_eq!(exit, Some(1), "{message}");
        assert_eq!(
            (code.as_str(), location.as_str()),
            ("GLTF_INVALID", "/buffers/0/uri"),
            "{message}"
        );
        assert!(message.contains(kind), "{message}");
    }
}
