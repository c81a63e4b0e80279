//! VRM 1.0 → VRM 0.x downgrade on the shared corpus (feature `corpus`).
//!
//! For each VRM 0.x corpus file: migrate it to 1.0, downgrade the result back to 0.x, write it
//! as GLB, and check the written file against the *original* (never against the code under
//! test):
//!
//! - (a) `humanoid::read` of both gives the same bone map (bone → node name) and the same rest
//!   world position of every humanoid bone (1e-6 m);
//! - (b) with `HUMANOID_THREE_VRM_ORACLE` pointing at `oracle.mjs`, three-vrm loads the written
//!   file as VRM 0.x (`--rest`, exit 0, `"metaVersion": "0"`) with the rest positions it
//!   reported for the original (`expected_rest_<name>.json`, 1e-5 m), and without a warning;
//! - (c) with `HUMANOID_GLTF_VALIDATOR` pointing at the Khronos validator's `validate.js`, the
//!   written file has no error code the input did not have. validate.js lists only the first 8
//!   messages (and counts up to 50 issues), so codes are compared only when neither report is
//!   cut short, and error counts only when both are below 50.
//!
//! - (d) the written `VRM` extension holds what the original's held, where the migration
//!   carries it to 1.0: every property of the original `firstPerson` (but curves, which 1.0
//!   cannot hold), `blendShapeMaster` and `secondaryAnimation` is in the written one with the
//!   same value (numbers to 1e-9 relative), and so are the meta fields VRM 1.0 has a field for.
//!
//! Each VRM 1.0 corpus file (and the mannequin of `humanoid demo`, written as VRM 1.0 and as
//! VRM 0.x by the CLI, and each 0.x corpus file migrated to 1.0) has its humanoid bones' rest
//! rotations baked away, and the 0.x file is checked against the 1.0 one it came from:
//!
//! - (e) three-vrm's rest of every humanoid bone (`--rest`, the 0.x file turned with
//!   `--rotate-vrm0`) equals its rest of the 1.0 file (1e-5 m), and so does every bone while
//!   it plays `vrma/idle_loop.vrma` (`--uniform 5`, 1e-4 m);
//! - (f) every vertex, skinned at rest by the `gltf` crate (`gltf_oracle.rs`), and every node
//!   lands where it did (1e-5 m, the 0.x file turned back by `(−x, y, −z)`), and so do they at
//!   every key time of every embedded animation;
//! - (c) as above, and our `validate` passes the 0.x file.
mod gltf_oracle;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Vec3;
use humanoid::formats::gltf::Document;
use humanoid::formats::vrm::downgrade::downgrade_vrm1_to_vrm0;
use humanoid::formats::vrm::migrate::migrate_vrm0_to_vrm1;
use serde_json::Value;

/// Rest positions of our reader, original vs downgraded.
const READ_TOLERANCE: f32 = 1e-6;
/// Rest positions of three-vrm vs its recorded expectation.
const ORACLE_TOLERANCE: f64 = 1e-5;

const VRM0_FILES: [&str; 4] = [
    "Godette_vrm_v4",
    "EmissionMigration_v0.106.0",
    "sphere",
    "minimal",
];

/// The VRM 1.0 files and how many humanoid bones have a rest rotation (the "rest rot ≠ id"
/// column of `corpus/vrm/MANIFEST.md`).
const VRM1_FILES: [(&str, usize); 3] = [
    ("debug_robot", 12),
    ("VRMC_vrm_expressions_isBinary_Overrides", 8),
    ("VRMC_materials_mtoon_UV_Animation_Test", 14),
];

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

fn corpus(name: &str) -> PathBuf {
    shared().join("corpus/vrm").join(format!("{name}.vrm"))
}

/// Bone name → (node name, rest world position) of a file, as `humanoid::read` sees it.
fn read_bones(path: &Path) -> BTreeMap<String, (String, Vec3)> {
    let outcome = humanoid::read_asset(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let asset = &outcome.asset;
    let humanoid = asset
        .humanoids
        .first()
        .unwrap_or_else(|| panic!("{}: no humanoid", path.display()));
    humanoid
        .bones
        .iter()
        .map(|(bone, joint)| {
            (
                bone.as_str().to_owned(),
                (
                    asset.skeleton.name(joint).to_owned(),
                    asset.skeleton.rest_world(joint).translation,
                ),
            )
        })
        .collect()
}

/// (a): same bones on the same node names, same rest positions. Returns the largest distance.
#[track_caller]
fn compare_read(name: &str, original: &Path, written: &Path) -> (usize, f32) {
    let before = read_bones(original);
    let after = read_bones(written);
    let map = |m: &BTreeMap<String, (String, Vec3)>| -> BTreeMap<String, String> {
        m.iter().map(|(b, (n, _))| (b.clone(), n.clone())).collect()
    };
    assert_eq!(map(&after), map(&before), "{name}: bone maps differ");
    let mut worst = 0.0f32;
    for (bone, (_, p)) in &before {
        let q = after[bone].1;
        let d = p.distance(q);
        assert!(
            d <= READ_TOLERANCE,
            "{name}: {bone} rests at {q:?}, the original at {p:?} ({d:.2e} m off)"
        );
        worst = worst.max(d);
    }
    (before.len(), worst)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rest_positions(report: &Value) -> BTreeMap<String, [f64; 3]> {
    report["rest"]
        .as_object()
        .expect("a rest object")
        .iter()
        .map(|(bone, pose)| {
            let p: Vec<f64> = pose["p"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            (bone.clone(), [p[0], p[1], p[2]])
        })
        .collect()
}

/// (b): three-vrm's rest of the written file against its rest of the original (`None`: the
/// oracle is not installed). Returns the largest distance.
fn compare_oracle(name: &str, written: &Path) -> Option<f64> {
    let script = std::env::var("HUMANOID_THREE_VRM_ORACLE").ok()?;
    let output = Command::new("node")
        .arg(&script)
        .arg("--vrm")
        .arg(written)
        .arg("--rest")
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "{name}: three-vrm did not load the downgraded file: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("oracle JSON");
    assert_eq!(
        report["vrm"]["metaVersion"], "0",
        "{name}: three-vrm did not read it as VRM 0.x"
    );
    // The originals' non-linear look-at curves warn; the downgraded files hold only the
    // linear curve, and nothing else three-vrm warns about.
    assert_eq!(
        report["warnings"],
        Value::Array(Vec::new()),
        "{name}: three-vrm warned"
    );
    let expected = rest_positions(&read_json(
        &shared().join(format!("oracle/three-vrm/expected_rest_{name}.json")),
    ));
    let actual = rest_positions(&report);
    let a: BTreeSet<&String> = actual.keys().collect();
    let e: BTreeSet<&String> = expected.keys().collect();
    assert_eq!(a, e, "{name}: three-vrm's bone sets differ");
    let mut worst = 0.0f64;
    for (bone, p) in &actual {
        let q = expected[bone];
        let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
        assert!(
            d <= ORACLE_TOLERANCE,
            "{name}: three-vrm rests {bone} at {p:?}, expected {q:?} ({d:.2e} m off)"
        );
        worst = worst.max(d);
    }
    Some(worst)
}

/// What the validator said about a file.
struct Validation {
    errors: u64,
    total: u64,
    /// Codes of the error messages listed (the first 8 messages).
    error_codes: BTreeSet<String>,
}

impl Validation {
    /// Every message is listed.
    fn listed_in_full(&self) -> bool {
        self.total <= 8
    }

    /// The counts are exact (validate.js stops at 50 issues).
    fn counted_in_full(&self) -> bool {
        self.total < 50
    }
}

fn validate(file: &Path) -> Option<Validation> {
    let script = std::env::var("HUMANOID_GLTF_VALIDATOR").ok()?;
    let output = Command::new("node")
        .arg(&script)
        .arg(file)
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "validator failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("validator JSON");
    let count = |key: &str| report[key].as_u64().unwrap();
    let error_codes = report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| {
            m.as_str()?
                .strip_prefix("0 ")?
                .split(' ')
                .next()
                .map(str::to_owned)
        })
        .collect();
    Some(Validation {
        errors: count("errors"),
        total: count("errors") + count("warnings") + count("infos") + count("hints"),
        error_codes,
    })
}

/// (c): no new validator error. Returns a line for the log (`None`: not installed).
fn compare_validator(name: &str, input: &Path, written: &Path) -> Option<String> {
    let (before, after) = (validate(input)?, validate(written)?);
    if before.listed_in_full() && after.listed_in_full() {
        let new: Vec<&String> = after.error_codes.difference(&before.error_codes).collect();
        assert!(new.is_empty(), "{name}: new validator error codes {new:?}");
    }
    if before.counted_in_full() && after.counted_in_full() {
        assert!(
            after.errors <= before.errors,
            "{name}: {} validator errors, the input had {}",
            after.errors,
            before.errors
        );
    }
    Some(format!(
        "input {} error(s) {:?} of {} issue(s), downgraded {} error(s) {:?} of {} issue(s){}",
        before.errors,
        before.error_codes,
        before.total,
        after.errors,
        after.error_codes,
        after.total,
        if before.listed_in_full() && after.listed_in_full() {
            ""
        } else {
            " (codes not compared: a report lists only its first 8 messages)"
        }
    ))
}

/// The meta fields both versions have (licence fields are not: 1.0 has another model).
const META_CARRIED: [&str; 9] = [
    "title",
    "version",
    "author",
    "contactInformation",
    "reference",
    "texture",
    "allowedUserName",
    "violentUssageName",
    "sexualUssageName",
];

/// The `VRM` extension of a document.
fn vrm0_extension(doc: &Document) -> &Value {
    doc.root
        .extensions
        .as_ref()
        .and_then(|e| e.get("VRM"))
        .expect("a VRM extension")
}

/// Every property of `expected` (but the keys in `skip`) is in `actual` with the same value.
#[track_caller]
fn assert_holds(path: &str, actual: &Value, expected: &Value, skip: &[&str]) {
    match (actual, expected) {
        (Value::Number(a), Value::Number(e)) => {
            let (a, e) = (a.as_f64().unwrap(), e.as_f64().unwrap());
            assert!(
                (a - e).abs() <= 1e-9 * e.abs().max(1.0),
                "{path}: {a}, the original has {e}"
            );
        }
        (Value::Array(a), Value::Array(e)) => {
            assert_eq!(
                a.len(),
                e.len(),
                "{path}: {actual} vs the original {expected}"
            );
            for (i, (a, e)) in a.iter().zip(e).enumerate() {
                assert_holds(&format!("{path}/{i}"), a, e, skip);
            }
        }
        (Value::Object(a), Value::Object(e)) => {
            for (key, e) in e.iter().filter(|(k, _)| !skip.contains(&k.as_str())) {
                let a = a
                    .get(key)
                    .unwrap_or_else(|| panic!("{path}: no {key:?}, the original has {e}"));
                assert_holds(&format!("{path}/{key}"), a, e, skip);
            }
        }
        _ => assert_eq!(actual, expected, "{path}"),
    }
}

/// (d): the original's extension data is back.
fn compare_extension(name: &str, original: &Document, written: &Document) {
    let (before, after) = (vrm0_extension(original), vrm0_extension(written));
    for key in ["blendShapeMaster", "secondaryAnimation"] {
        assert_holds(&format!("{name}: /{key}"), &after[key], &before[key], &[]);
    }
    assert_holds(
        &format!("{name}: /firstPerson"),
        &after["firstPerson"],
        &before["firstPerson"],
        &["curve"],
    );
    for key in META_CARRIED {
        if let Some(value) = before["meta"].get(key) {
            assert_holds(
                &format!("{name}: /meta/{key}"),
                &after["meta"][key],
                value,
                &[],
            );
        }
    }
}

#[test]
fn corpus_vrm0_files_survive_migration_and_downgrade() {
    let out_dir = tempfile::tempdir().unwrap();
    // HUMANOID_DOWNGRADE_KEEP=DIR keeps the written files for inspection.
    let keep = std::env::var_os("HUMANOID_DOWNGRADE_KEEP").map(PathBuf::from);
    let mut checked = 0;
    for name in VRM0_FILES {
        let input = corpus(name);
        let original = Document::open(&input).unwrap();
        let (vrm1, _) = migrate_vrm0_to_vrm1(&original)
            .unwrap_or_else(|e| panic!("{name}: migration failed: {e}"));
        let (vrm0, diagnostics) = downgrade_vrm1_to_vrm0(&vrm1)
            .unwrap_or_else(|e| panic!("{name}: downgrade failed: {e}"));
        let written = keep
            .as_deref()
            .unwrap_or(out_dir.path())
            .join(format!("{name}.vrm"));
        vrm0.write_glb(&written, &[]).unwrap();
        let codes: BTreeSet<&str> = diagnostics.iter().map(|d| d.code).collect();
        eprintln!("{name}: {} diagnostic(s): {codes:?}", diagnostics.len());
        assert!(
            codes.iter().all(|c| c.starts_with("DOWNGRADE_")),
            "{codes:?}"
        );

        compare_extension(name, &original, &Document::open(&written).unwrap());
        let (bones, worst) = compare_read(name, &input, &written);
        eprintln!("{name}: {bones} bones, same nodes; rest positions read back: max {worst:.2e} m; firstPerson, blendShapeMaster, secondaryAnimation and meta as in the original");
        match compare_oracle(name, &written) {
            Some(d) => eprintln!(
                "{name}: three-vrm loads it as VRM 0.x; rest vs expected_rest: max {d:.2e} m"
            ),
            None => eprintln!("{name}: HUMANOID_THREE_VRM_ORACLE unset, three-vrm check skipped"),
        }
        match compare_validator(name, &input, &written) {
            Some(line) => eprintln!("{name}: validator: {line}"),
            None => eprintln!("{name}: HUMANOID_GLTF_VALIDATOR unset, validator check skipped"),
        }
        checked += 1;
    }
    assert_eq!(checked, VRM0_FILES.len());
}

/// Runs the three-vrm oracle; `None` when it is not installed.
fn three_vrm(file: &Path, args: &[&str]) -> Option<Value> {
    let script = std::env::var("HUMANOID_THREE_VRM_ORACLE").ok()?;
    let output = Command::new("node")
        .arg(&script)
        .arg("--vrm")
        .arg(file)
        .args(args)
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "three-vrm did not load {}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    Some(serde_json::from_slice(&output.stdout).expect("oracle JSON"))
}

fn distance(p: &Value, q: &Value) -> f64 {
    let v = |x: &Value, i: usize| x[i].as_f64().unwrap();
    ((v(p, 0) - v(q, 0)).powi(2) + (v(p, 1) - v(q, 1)).powi(2) + (v(p, 2) - v(q, 2)).powi(2)).sqrt()
}

/// Bone name → world position, from one oracle pose (`rest` or a sample's `bones`).
fn positions(bones: &Value) -> BTreeMap<String, Value> {
    bones
        .as_object()
        .expect("bones")
        .iter()
        .map(|(b, pose)| (b.clone(), pose["p"].clone()))
        .collect()
}

/// The largest distance between two poses over the same bones.
#[track_caller]
fn pose_distance(name: &str, what: &str, vrm1: &Value, vrm0: &Value) -> f64 {
    let (a, b) = (positions(vrm1), positions(vrm0));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{name}: {what}: three-vrm's bone sets differ"
    );
    a.iter()
        .map(|(bone, p)| distance(p, &b[bone]))
        .fold(0.0, f64::max)
}

/// (e): three-vrm's rest and VRMA playback of the 0.x file against the 1.0 file.
fn compare_three_vrm(name: &str, vrm1: &Path, vrm0: &Path) -> Option<(f64, f64)> {
    let before = three_vrm(vrm1, &["--rest"])?;
    let after = three_vrm(vrm0, &["--rest", "--rotate-vrm0"])?;
    assert_eq!(
        after["vrm"]["metaVersion"], "0",
        "{name}: not read as VRM 0.x"
    );
    let rest = pose_distance(name, "rest", &before["rest"], &after["rest"]);
    assert!(rest <= ORACLE_TOLERANCE, "{name}: rest {rest:.2e} m off");
    let vrma = shared().join("corpus/vrma/idle_loop.vrma");
    let vrma = vrma.to_str().unwrap();
    let args = ["--vrma", vrma, "--uniform", "5"];
    let before = three_vrm(vrm1, &args)?;
    let after = three_vrm(vrm0, &[&args[..], &["--rotate-vrm0"]].concat())?;
    let (a, b) = (
        before["samples"].as_array().unwrap(),
        after["samples"].as_array().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    let mut played = 0.0f64;
    for (a, b) in a.iter().zip(b) {
        assert_eq!(a["t"], b["t"]);
        let d = pose_distance(name, "idle_loop.vrma", &a["bones"], &b["bones"]);
        assert!(
            d <= 1e-4,
            "{name}: idle_loop.vrma at t = {}: {d:.2e} m off",
            a["t"]
        );
        played = played.max(d);
    }
    Some((rest, played))
}

/// The largest distance between the nodes and vertices of two posed files (the 0.x one turned
/// back).
#[track_caller]
fn scene_distance(
    name: &str,
    what: &str,
    vrm1: (
        &gltf_oracle::Glb,
        &[(glam::DVec3, glam::DQuat, glam::DVec3)],
    ),
    vrm0: (
        &gltf_oracle::Glb,
        &[(glam::DVec3, glam::DQuat, glam::DVec3)],
    ),
) -> (f64, f64, usize) {
    let (w1, w0) = (vrm1.0.worlds(vrm1.1), vrm0.0.worlds(vrm0.1));
    assert_eq!(w1.len(), w0.len(), "{name}: node counts differ");
    let nodes = w1
        .iter()
        .zip(&w0)
        .map(|(a, b)| {
            a.w_axis
                .truncate()
                .distance(gltf_oracle::turned(b.w_axis.truncate()))
        })
        .fold(0.0, f64::max);
    let (v1, v0) = (vrm1.0.vertices(&w1), vrm0.0.vertices(&w0));
    assert_eq!(
        v1.keys().collect::<Vec<_>>(),
        v0.keys().collect::<Vec<_>>(),
        "{name}: {what}: the mesh nodes differ"
    );
    let mut vertices = 0.0f64;
    let mut count = 0;
    for (key, a) in &v1 {
        let b = &v0[key];
        assert_eq!(
            a.len(),
            b.len(),
            "{name}: {what}: {key:?} vertex counts differ"
        );
        for (p, q) in a.iter().zip(b) {
            vertices = vertices.max(p.distance(gltf_oracle::turned(*q)));
        }
        count += a.len();
    }
    assert!(
        nodes <= 1e-5 && vertices <= 1e-5,
        "{name}: {what}: nodes {nodes:.2e} m, vertices {vertices:.2e} m off"
    );
    (nodes, vertices, count)
}

/// (f): nodes and vertices at rest and at every key time of every animation.
fn compare_geometry(name: &str, vrm1: &Path, vrm0: &Path) -> String {
    let (a, b) = (gltf_oracle::Glb::open(vrm1), gltf_oracle::Glb::open(vrm0));
    let (nodes, vertices, count) =
        scene_distance(name, "rest", (&a, &a.rest_locals()), (&b, &b.rest_locals()));
    let mut line = format!("rest: nodes max {nodes:.2e} m, {count} vertices max {vertices:.2e} m");
    let animations = a.animation_count();
    let mut worst = (0.0f64, 0.0f64, 0usize);
    for animation in 0..animations {
        for t in a.key_times(animation) {
            let (n, v, _) = scene_distance(
                name,
                &format!("animation {animation} at {t}"),
                (&a, &a.posed_locals(animation, t)),
                (&b, &b.posed_locals(animation, t)),
            );
            worst = (worst.0.max(n), worst.1.max(v), worst.2 + 1);
        }
    }
    if animations > 0 {
        line.push_str(&format!(
            "; {animations} animation(s), {} key time(s): nodes max {:.2e} m, vertices max {:.2e} m",
            worst.2, worst.0, worst.1
        ));
    }
    line
}

/// Downgrades `vrm1` (a VRM 1.0 file) through the library and checks the written 0.x file.
fn check_baked(name: &str, vrm1: &Path, written: &Path) {
    let document = Document::open(vrm1).unwrap();
    let (vrm0, diagnostics) = downgrade_vrm1_to_vrm0(&document)
        .unwrap_or_else(|e| panic!("{name}: downgrade failed: {e}"));
    vrm0.write_glb(written, &[]).unwrap();
    let baked = diagnostics
        .iter()
        .find(|d| d.code == "DOWNGRADE_REST_BAKED")
        .map_or_else(|| "no rest to bake".to_owned(), |d| d.message.clone());
    eprintln!("{name}: {}", &baked[..baked.len().min(160)]);
    check_written(name, vrm1, written);
}

/// (c), (e), (f) and our validate on a written 0.x file against the 1.0 file it came from.
fn check_written(name: &str, vrm1: &Path, written: &Path) {
    let found = humanoid::inspect::validate(written)
        .unwrap_or_else(|e| panic!("{name}: our validate rejects it: {e}"));
    assert!(!found.has_errors(), "{name}: our validate: {found:?}");
    eprintln!("{name}: {}", compare_geometry(name, vrm1, written));
    match compare_three_vrm(name, vrm1, written) {
        Some((rest, played)) => {
            eprintln!("{name}: three-vrm: rest max {rest:.2e} m, idle_loop.vrma max {played:.2e} m")
        }
        None => eprintln!("{name}: HUMANOID_THREE_VRM_ORACLE unset, three-vrm check skipped"),
    }
    match compare_validator(name, vrm1, written) {
        Some(line) => eprintln!("{name}: validator: {line}"),
        None => eprintln!("{name}: HUMANOID_GLTF_VALIDATOR unset, validator check skipped"),
    }
}

#[test]
fn corpus_vrm1_files_downgrade_with_their_rest_baked() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (name, rotated) in VRM1_FILES {
        let input = corpus(name);
        let document = Document::open(&input).unwrap();
        let (_, diagnostics) = downgrade_vrm1_to_vrm0(&document)
            .unwrap_or_else(|e| panic!("{name}: downgrade failed: {e}"));
        let baked = diagnostics
            .iter()
            .find(|d| d.code == "DOWNGRADE_REST_BAKED")
            .unwrap_or_else(|| panic!("{name}: no DOWNGRADE_REST_BAKED"));
        assert!(
            baked
                .message
                .contains(&format!("the rest of {rotated} node(s)")),
            "{name}: {}",
            baked.message
        );
        check_baked(name, &input, &dir.path().join(format!("{name}.vrm")));
        checked += 1;
    }
    for name in VRM0_FILES {
        let (vrm1, _) = migrate_vrm0_to_vrm1(&Document::open(corpus(name)).unwrap()).unwrap();
        let migrated = dir.path().join(format!("{name}.vrm1.vrm"));
        vrm1.write_glb(&migrated, &[]).unwrap();
        check_baked(
            name,
            &migrated,
            &dir.path().join(format!("{name}.vrm0.vrm")),
        );
        checked += 1;
    }
    assert_eq!(checked, VRM1_FILES.len() + VRM0_FILES.len());
}

/// `humanoid` with these arguments; panics with its stderr when it fails.
fn cli(args: &[&std::ffi::OsStr]) {
    let output = Command::new(env!("CARGO_BIN_EXE_humanoid"))
        .args(args)
        .output()
        .expect("run humanoid");
    assert!(
        output.status.success(),
        "humanoid {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_mannequin_downgrades_with_its_rest_baked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cli(&["demo".as_ref(), "-o".as_ref(), d.as_os_str()]);
    for (glb, name) in [
        ("mannequin.glb", "mannequin"),
        ("mannequin_ext_clips.glb", "mannequin_ext_clips"),
    ] {
        let input = d.join(glb);
        let vrm1 = d.join(format!("{name}.vrm1.vrm"));
        let vrm0 = d.join(format!("{name}.vrm0.vrm"));
        cli(&[
            "convert".as_ref(),
            input.as_os_str(),
            vrm1.as_os_str(),
            "--to".as_ref(),
            "vrm1".as_ref(),
        ]);
        // The CLI's own path: glTF → VRM 1.0 → downgrade.
        cli(&[
            "convert".as_ref(),
            input.as_os_str(),
            vrm0.as_os_str(),
            "--to".as_ref(),
            "vrm0".as_ref(),
        ]);
        check_written(name, &vrm1, &vrm0);
    }
}
