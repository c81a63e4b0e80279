//! Outputs under faults: a read-only, missing or full folder, and an output path that is a
//! folder, a device, a FIFO or a symbolic link (refused even with `--force`, which replaces
//! regular files only). Each gives exit 1 and an error naming the output, leaves no partial or
//! temporary file, and leaves the input as it was. The read-only and full folders are tmpfs
//! mounts (root ignores mode bits); where the test cannot mount, it says so and skips them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{humanoid, run_with_limit};

/// The bundled mannequin, copied as the input (as X3D it is about 600 kB).
fn input(dir: &Path) -> PathBuf {
    let mannequin = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/mannequin.glb");
    let input = dir.join("mannequin.glb");
    std::fs::copy(mannequin, &input).unwrap();
    input
}

/// Converts `input` to `output` with `--force`; the exit code and stderr.
fn convert(input: &Path, output: &Path) -> (Option<i32>, String) {
    let mut command = humanoid();
    command.arg("convert").arg(input).arg(output).arg("--force");
    let (out, _) = run_with_limit(command, Duration::from_secs(20));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// Names in `folder` that are our temporary files.
fn leftovers(folder: &Path) -> Vec<String> {
    std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n.starts_with(".humanoid-"))
                .collect()
        })
        .unwrap_or_default()
}

fn refused(input: &Path, output: &Path, words: &str) {
    let before = std::fs::read(input).unwrap();
    let (exit, stderr) = convert(input, output);
    assert_eq!(exit, Some(1), "{}: {stderr}", output.display());
    let name = output.file_name().unwrap().to_string_lossy();
    assert!(
        stderr.contains(&*name),
        "the error names the output: {stderr}"
    );
    assert!(stderr.contains(words), "{stderr} should say {words:?}");
    assert!(
        !stderr.contains(".humanoid-"),
        "names our temporary file: {stderr}"
    );
    if let Some(folder) = output.parent().filter(|f| f.is_dir()) {
        assert_eq!(
            leftovers(folder),
            Vec::<String>::new(),
            "{}",
            output.display()
        );
    }
    assert_eq!(std::fs::read(input).unwrap(), before, "the input changed");
}

#[test]
fn an_output_that_is_not_a_regular_file_is_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    let folder = dir.path().join("out.glb");
    std::fs::create_dir(&folder).unwrap();
    refused(&input, &folder, "a folder");
    assert!(folder.is_dir());

    let fifo = dir.path().join("pipe.glb");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    refused(&input, &fifo, "a FIFO");

    let target = dir.path().join("target.txt");
    std::fs::write(&target, "keep me").unwrap();
    let link = dir.path().join("link.glb");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    refused(&input, &link, "a symbolic link");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());

    let device = dir.path().join("null.glb");
    let made = std::process::Command::new("mknod")
        .arg(&device)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    if made {
        refused(&input, &device, "a device");
        use std::os::unix::fs::FileTypeExt;
        assert!(device.metadata().unwrap().file_type().is_char_device());
    } else {
        println!("skipped: cannot make a device node here (mknod needs root)");
    }
}

#[test]
fn a_missing_output_folder_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    let output = dir.path().join("nope").join("out.glb");
    refused(&input, &output, "the folder");
    let (_, stderr) = convert(&input, &output);
    assert!(stderr.contains("nope"), "{stderr}");
    assert!(!dir.path().join("nope").exists());
}

/// A tmpfs mounted at `at` with `options`, unmounted when dropped; `None` where mounting is
/// not allowed.
struct Mount(PathBuf);

impl Mount {
    fn new(at: &Path, options: &str) -> Option<Mount> {
        std::fs::create_dir_all(at).ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(at)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Mount(at.to_path_buf()))
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_read_only_or_full_output_folder_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    match Mount::new(&dir.path().join("ro"), "ro,size=1m") {
        Some(mount) => {
            let output = mount.0.join("out.x3d");
            refused(&input, &output, "read-only");
            assert!(!output.exists());
        }
        None => println!("skipped: cannot mount a read-only tmpfs here (needs root)"),
    }
    match Mount::new(&dir.path().join("full"), "size=16k") {
        Some(mount) => {
            // The mannequin as X3D is about 600 kB: far more than the 16 kB folder holds.
            let output = mount.0.join("out.x3d");
            refused(&input, &output, "space");
            assert!(!output.exists());
        }
        None => println!("skipped: cannot mount a small tmpfs here (needs root)"),
    }
}
