//! VRM 0.x → VRM 1.0 migration on the shared corpus (feature `corpus`).
//!
//! For each VRM 0.x corpus file the migrated document is written as GLB and checked against
//! independent expectations:
//!
//! - (a) the humanoid bones' world rest positions, computed here by composing the written
//!   file's node transforms, equal three-vrm's rest positions of the *original* turned to face
//!   +Z (`expected_anim_Godette_vrm_v4__idle_loop__rotateVRM0.json` for Godette,
//!   `expected_rest_<name>.json` with `p' = (−x, y, −z)` for the others) to 1e-5 m; the same
//!   composition on the original, turned, must match too (so the expectation and the
//!   composition agree before the migration is judged);
//! - (b) with `HUMANOID_THREE_VRM_ORACLE` pointing at `oracle.mjs`, three-vrm loads the written
//!   file (`--rest`, exit 0) and reports the same rest positions;
//! - (c) with `HUMANOID_GLTF_VALIDATOR` pointing at the Khronos validator's `validate.js`, the
//!   written file has no error code the input did not already have, and no more errors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{DMat4, DQuat, DVec3};
use humanoid::formats::gltf::json::floats;
use humanoid::formats::gltf::Document;
use humanoid::formats::vrm::migrate::migrate_vrm0_to_vrm1;
use humanoid::model::HumanBone;
use serde_json::Value;

const TOLERANCE: f64 = 1e-5;

const FILES: [&str; 4] = [
    "Godette_vrm_v4",
    "EmissionMigration_v0.106.0",
    "sphere",
    "minimal",
];

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// World rest position of every node: the local transforms (matrix or TRS) composed from the
/// scene roots down, in f64.
fn world_positions(doc: &Document) -> Vec<DVec3> {
    let nodes = &doc.root.nodes;
    let mut parent = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for child in &node.children {
            parent[child.as_usize()] = Some(i);
        }
    }
    let local = |i: usize| -> DMat4 {
        let node = &nodes[i];
        if let Some(m) = &node.matrix {
            return DMat4::from_cols_array(&floats(m));
        }
        let t = node.translation.as_ref().map_or([0.0; 3], floats);
        let r = node.rotation.as_ref().map_or([0.0, 0.0, 0.0, 1.0], floats);
        let s = node.scale.as_ref().map_or([1.0; 3], floats);
        DMat4::from_scale_rotation_translation(
            DVec3::from(s),
            DQuat::from_xyzw(r[0], r[1], r[2], r[3]),
            DVec3::from(t),
        )
    };
    (0..nodes.len())
        .map(|i| {
            let mut world = local(i);
            let mut at = parent[i];
            while let Some(p) = at {
                world = local(p) * world;
                at = parent[p];
            }
            world.transform_point3(DVec3::ZERO)
        })
        .collect()
}

/// The 1.0 bone names and nodes of a VRM 0.x document (thumbs renamed).
fn vrm0_bones(doc: &Document) -> BTreeMap<String, usize> {
    let vrm = &doc.root.extensions.as_ref().unwrap()["VRM"];
    let mut bones = BTreeMap::new();
    for entry in vrm["humanoid"]["humanBones"].as_array().unwrap() {
        let bone = HumanBone::from_vrm0_name(entry["bone"].as_str().unwrap()).unwrap();
        let node = usize::try_from(entry["node"].as_u64().unwrap()).unwrap();
        bones.entry(bone.as_str().to_owned()).or_insert(node);
    }
    bones
}

/// The bones of a VRM 1.0 document.
fn vrm1_bones(doc: &Document) -> BTreeMap<String, usize> {
    let vrm = &doc.root.extensions.as_ref().unwrap()["VRMC_vrm"];
    assert_eq!(vrm["specVersion"], "1.0");
    vrm["humanoid"]["humanBones"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, bone)| {
            let node = usize::try_from(bone["node"].as_u64().unwrap()).unwrap();
            (name.clone(), node)
        })
        .collect()
}

/// three-vrm's rest positions of the original, turned to face +Z.
fn expected_rest(name: &str) -> BTreeMap<String, DVec3> {
    let oracle = shared().join("oracle/three-vrm");
    let (file, turn) = if name == "Godette_vrm_v4" {
        (
            oracle.join("expected_anim_Godette_vrm_v4__idle_loop__rotateVRM0.json"),
            false,
        )
    } else {
        (oracle.join(format!("expected_rest_{name}.json")), true)
    };
    let report = read_json(&file);
    if !turn {
        assert_eq!(report["space"], "vrm-scene-rotated-180-about-y");
    }
    rest_positions(&report)
        .into_iter()
        .map(|(bone, p)| (bone, if turn { DVec3::new(-p.x, p.y, -p.z) } else { p }))
        .collect()
}

fn rest_positions(report: &Value) -> BTreeMap<String, DVec3> {
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
            (bone.clone(), DVec3::new(p[0], p[1], p[2]))
        })
        .collect()
}

/// Largest distance between two bone → position maps with the same bones.
#[track_caller]
fn max_distance(
    what: &str,
    actual: &BTreeMap<String, DVec3>,
    expected: &BTreeMap<String, DVec3>,
) -> f64 {
    let a: BTreeSet<&String> = actual.keys().collect();
    let e: BTreeSet<&String> = expected.keys().collect();
    assert_eq!(a, e, "{what}: bone sets differ");
    let mut worst = 0.0f64;
    for (bone, p) in actual {
        let d = p.distance(expected[bone]);
        assert!(
            d <= TOLERANCE,
            "{what}: {bone} at {p:?}, expected {:?} ({d:.2e} m off)",
            expected[bone]
        );
        worst = worst.max(d);
    }
    worst
}

fn positions_of(bones: &BTreeMap<String, usize>, world: &[DVec3]) -> BTreeMap<String, DVec3> {
    bones
        .iter()
        .map(|(bone, &node)| (bone.clone(), world[node]))
        .collect()
}

/// What the validator said about a file: error count, error codes, and whether its report is
/// complete (validate.js stops listing after 50 issues of any severity, so counts of a
/// truncated report are not comparable).
struct Validation {
    errors: u64,
    codes: BTreeSet<String>,
    complete: bool,
}

/// The validator's report (`None`: validator not installed).
fn validate(file: &Path) -> Option<Validation> {
    const MAX_ISSUES: u64 = 50;
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
    let codes = report["messages"]
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
    let total = count("errors") + count("warnings") + count("infos") + count("hints");
    Some(Validation {
        errors: count("errors"),
        codes,
        complete: total < MAX_ISSUES,
    })
}

/// three-vrm's rest positions of a file (`None`: oracle not installed).
fn oracle_rest(file: &Path) -> Option<BTreeMap<String, DVec3>> {
    let script = std::env::var("HUMANOID_THREE_VRM_ORACLE").ok()?;
    let output = Command::new("node")
        .arg(&script)
        .arg("--vrm")
        .arg(file)
        .arg("--rest")
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "three-vrm did not load {}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("oracle JSON");
    assert_eq!(
        report["vrm"]["metaVersion"], "1",
        "three-vrm read it as VRM 1.0"
    );
    Some(rest_positions(&report))
}

#[test]
fn corpus_vrm0_files_migrate() {
    let corpus = shared().join("corpus/vrm");
    let out_dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for name in FILES {
        let input = corpus.join(format!("{name}.vrm"));
        let original = Document::open(&input).unwrap();
        let (migrated, diagnostics) = migrate_vrm0_to_vrm1(&original)
            .unwrap_or_else(|e| panic!("{name}: migration failed: {e}"));
        // HUMANOID_MIGRATE_KEEP=DIR keeps the migrated files for inspection.
        let keep = std::env::var_os("HUMANOID_MIGRATE_KEEP").map(PathBuf::from);
        let output = keep
            .as_deref()
            .unwrap_or(out_dir.path())
            .join(format!("{name}.vrm"));
        migrated.write_glb(&output, &[]).unwrap();
        let written = Document::open(&output).unwrap();
        let codes: BTreeSet<&str> = diagnostics.iter().map(|d| d.code).collect();
        eprintln!("{name}: {} diagnostic(s): {codes:?}", diagnostics.len());
        if name == "Godette_vrm_v4" {
            // Read off the file: two look-at curves are not the identity (horizontal outer,
            // vertical up; vertical down is the identity, horizontal inner has none), and two of
            // its four materials use MToon.
            let curves: Vec<&str> = diagnostics
                .iter()
                .filter(|d| d.code == "MIGRATE_LOOKAT_CURVE_DROPPED")
                .map(|d| d.location.as_str())
                .collect();
            assert_eq!(
                curves,
                [
                    "/extensions/VRM/firstPerson/lookAtHorizontalOuter/curve",
                    "/extensions/VRM/firstPerson/lookAtVerticalUp/curve"
                ]
            );
            // Its two MToon materials are migrated (issue 17), GodotLogo's glTF material kept.
            assert!(!diagnostics.contains("MIGRATE_MATERIALS_DROPPED"));
            let materials = diagnostics
                .iter()
                .find(|d| d.code == "MIGRATE_MTOON")
                .expect("MToon materials migrated");
            assert!(
                materials.message.contains("\"Face\"") && materials.message.contains("\"Body\"")
            );
            assert!(!materials.message.contains("GodotLogo"));
            // Godette is CC BY ("licenseName": "CC_BY", "commercialUssageName": "Allow"): the
            // CC BY deed lets anyone share and adapt it "for any purpose, even commercially",
            // with credit. Those terms, not UniVRM's "redistribution prohibited".
            let meta = &written.root.extensions.as_ref().unwrap()["VRMC_vrm"]["meta"];
            assert_eq!(meta["creditNotation"], "required");
            assert_eq!(meta["allowRedistribution"], true);
            assert_eq!(meta["modification"], "allowModificationRedistribution");
            assert_eq!(meta["commercialUsage"], "corporation");
            assert_eq!(meta["licenseUrl"], "https://vrm.dev/licenses/1.0/");
            assert_eq!(
                meta["otherLicenseUrl"],
                "https://creativecommons.org/licenses/by/4.0/"
            );
            assert_eq!(meta["avatarPermission"], "everyone");
        }

        // (a) rest positions, composed here.
        let expected = expected_rest(name);
        let turned_original: BTreeMap<String, DVec3> =
            positions_of(&vrm0_bones(&original), &world_positions(&original))
                .into_iter()
                .map(|(b, p)| (b, DVec3::new(-p.x, p.y, -p.z)))
                .collect();
        let before = max_distance(&format!("{name} original"), &turned_original, &expected);
        let after = max_distance(
            &format!("{name} migrated"),
            &positions_of(&vrm1_bones(&written), &world_positions(&written)),
            &expected,
        );
        eprintln!(
            "{name}: {} bones; composed rest vs three-vrm turned: original {before:.2e} m, migrated {after:.2e} m",
            expected.len()
        );

        // (b) three-vrm loads the written file.
        match oracle_rest(&output) {
            Some(rest) => {
                let d = max_distance(&format!("{name} three-vrm"), &rest, &expected);
                eprintln!("{name}: three-vrm rest of the migrated file: max {d:.2e} m");
            }
            None => eprintln!("{name}: HUMANOID_THREE_VRM_ORACLE unset, three-vrm check skipped"),
        }

        // (c) no new validator errors.
        match (validate(&input), validate(&output)) {
            (Some(before), Some(after)) => {
                let new: Vec<&String> = after.codes.difference(&before.codes).collect();
                assert!(new.is_empty(), "{name}: new validator errors {new:?}");
                if before.complete && after.complete {
                    assert!(
                        after.errors <= before.errors,
                        "{name}: {} validator errors, the input had {}",
                        after.errors,
                        before.errors
                    );
                }
                eprintln!(
                    "{name}: validator errors: input {} {:?}, migrated {} {:?}{}",
                    before.errors,
                    before.codes,
                    after.errors,
                    after.codes,
                    if before.complete && after.complete {
                        ""
                    } else {
                        " (truncated reports)"
                    }
                );
            }
            _ => eprintln!("{name}: HUMANOID_GLTF_VALIDATOR unset, validator check skipped"),
        }
        checked += 1;
    }
    assert_eq!(checked, FILES.len());
}
