//! What the messages say: numbers without float noise, advice that names the flag to use, and
//! `--quiet`.

use crate::util::{humanoid, humanoid_ok, s, temp_dir, write};

/// A two-bone leg whose rest hips height, 0.1 + 0.2 file units, is 0.30000000000000004 in
/// binary: it fits no unit.
const NOISY_BVH: &str = "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n  JOINT LeftUpLeg\n  {\n    OFFSET 0 -0.1 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n    JOINT LeftLeg\n    {\n      OFFSET 0 -0.2 0\n      CHANNELS 3 Zrotation Xrotation Yrotation\n      End Site\n      {\n        OFFSET 0 0 0\n      }\n    }\n  }\n}\nMOTION\nFrames: 1\nFrame Time: 0.033333\n0 0 0 0 0 0 0 0 0 0 0 0\n";

#[test]
fn a_measured_height_prints_without_float_noise_and_names_the_flag() {
    let dir = temp_dir();
    let bvh = write(dir.path(), "noisy.bvh", NOISY_BVH.as_bytes());
    let run = humanoid_ok(&["inspect", s(&bvh)]);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("BVH_UNITS_UNKNOWN"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.contains("hips height 0.3 file units"), "{line}");
    assert!(!line.contains("0.30000000000000004"), "{line}");
    assert!(line.contains("--bvh-scale"), "{line}");
    // The advice works: the unit given is taken, and said without noise either.
    let out = dir.path().join("out.bvh");
    let run = humanoid_ok(&[
        "convert",
        s(&bvh),
        s(&out),
        "--bvh-scale",
        "0.30000000000000004",
    ]);
    assert!(
        run.stdout.contains("1 file unit = 0.3 m (given)"),
        "{}",
        run.stdout
    );
}

#[test]
fn quiet_silences_warnings_and_notes_but_not_errors() {
    let dir = temp_dir();
    let bvh = write(dir.path(), "noisy.bvh", NOISY_BVH.as_bytes());
    let out = dir.path().join("out.bvh");
    let run = humanoid_ok(&["--quiet", "convert", s(&bvh), s(&out)]);
    assert!(
        !run.stdout.contains("warning") && !run.stdout.contains("info"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("wrote"), "{}", run.stdout);
    // After the subcommand too, and errors still print.
    let run = humanoid(&["convert", s(&bvh), s(&out), "--quiet"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    // validate --quiet still says valid or not, and its errors.
    let run = humanoid_ok(&["validate", s(&bvh), "--quiet"]);
    assert!(!run.stdout.contains("warning ["), "{}", run.stdout);
    assert!(run.stdout.contains("valid"), "{}", run.stdout);
}
