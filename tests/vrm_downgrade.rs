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
//! Each VRM 1.0 corpus file has humanoid bones with rest rotations and is refused, naming them.
#![cfg(feature = "corpus")]

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
    let outcome = humanoid::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
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

#[test]
fn corpus_vrm1_files_with_rest_rotations_are_refused() {
    let mut checked = 0;
    for (name, rotated) in VRM1_FILES {
        let document = Document::open(corpus(name)).unwrap();
        let error = downgrade_vrm1_to_vrm0(&document)
            .err()
            .unwrap_or_else(|| panic!("{name}: a rest rotation was not refused"))
            .to_string();
        eprintln!("{name}: {error}");
        assert!(
            error.contains(&format!("{name}.vrm"))
                && error.contains("VRM 0.x bones have no rest rotation and no scale")
                && error.contains(&format!("but {rotated} humanoid bone(s) have one"))
                && error.contains("° about (")
                && error.contains("--to vrm1"),
            "{name}: {error}"
        );
        checked += 1;
    }
    assert_eq!(checked, VRM1_FILES.len());
}
