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

/// Issue 32's reproducers: a time that is not a finite number, and a sample count that would
/// allocate gigabytes, are refused as usage errors (exit 2) before anything is read; the
/// library refuses them too (for the Python package); `-j 5000` on two inputs runs on at most
/// two threads and ends at once.
#[test]
fn non_finite_times_and_huge_counts_are_refused_and_jobs_are_capped() {
    let (_dir, mannequin, _) = crate::util::demo();
    let m = crate::util::s(&mannequin);
    for args in [
        vec!["pose", m, "--times", "0,NaN"],
        vec!["pose", m, "--times", "inf"],
        vec!["sockets", m, "--time", "NaN"],
        vec!["pose", m, "--uniform", "4294967295"],
    ] {
        let run = crate::util::humanoid(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("finite") || run.stderr.contains("not in 0..=100000"),
            "{args:?}: {}",
            run.stderr
        );
    }
    use humanoid::bone_pose::{check_times, Times};
    let err = check_times(&Times::At(vec![0.0, f32::NAN])).unwrap_err();
    assert!(
        err.to_string().contains("time 2 of the list is NaN"),
        "{err}"
    );
    let err = check_times(&Times::Uniform(usize::MAX)).unwrap_err();
    assert!(err.to_string().contains("at most 100000"), "{err}");
    let options = humanoid::sockets::SocketOptions {
        time: Some(f32::INFINITY),
        ..Default::default()
    };
    let err = humanoid::sockets::sockets(&mannequin, &options).unwrap_err();
    assert!(err.to_string().contains("finite"), "{err}");
    // -j 5000 on two inputs: two threads at most, at once.
    let dir = crate::util::temp_dir();
    let out = dir.path().join("out");
    let started = std::time::Instant::now();
    let run = crate::util::humanoid_ok(&[
        "convert",
        m,
        m,
        "-o",
        crate::util::s(&out),
        "--to",
        "bvh",
        "-j",
        "5000",
        "--force",
    ]);
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    assert!(
        run.stdout.contains("1 thread)") || run.stdout.contains("2 threads)"),
        "{}",
        run.stdout
    );
}
