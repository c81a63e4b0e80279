//! The VRM meta through `convert`: a VRM 0.x model's licence survives `--to vrm1`, the
//! `--vrm-*` options apply to the migrated meta, and a `licenseUrl` VRM 1.0 does not accept
//! is refused. The 0.x input is a small humanoid made here; the expected terms are the CC BY 4.0 deed's ("for any purpose, even
//! commercially", "you must give appropriate credit").

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::util::{glb, glb_parts, humanoid, humanoid_ok, s, temp_dir, write};

/// A GLB's JSON chunk.
pub fn glb_json(path: &Path) -> Value {
    glb_parts(path).0
}

/// Rewrites a GLB's JSON chunk (its BIN chunk kept as it is).
pub fn set_glb_json(path: &Path, json: &Value) {
    let (_, bin) = glb_parts(path);
    std::fs::write(path, glb(json, &bin)).unwrap();
}

/// A VRM 0.x humanoid in `dir` (the 15 bones VRM 1.0 requires, no rest rotations, facing −Z
/// as 0.x does: its left on −X) with
/// this 0.x meta.
pub fn vrm0_model(dir: &Path, meta: Value) -> PathBuf {
    let bones = [
        ("hips", None, [0.0, 1.0, 0.0]),
        ("spine", Some(0), [0.0, 0.1, 0.0]),
        ("head", Some(1), [0.0, 0.4, 0.0]),
        ("leftUpperLeg", Some(0), [-0.1, -0.05, 0.0]),
        ("leftLowerLeg", Some(3), [0.0, -0.45, 0.0]),
        ("leftFoot", Some(4), [0.0, -0.45, 0.0]),
        ("rightUpperLeg", Some(0), [0.1, -0.05, 0.0]),
        ("rightLowerLeg", Some(6), [0.0, -0.45, 0.0]),
        ("rightFoot", Some(7), [0.0, -0.45, 0.0]),
        ("leftUpperArm", Some(1), [-0.2, 0.3, 0.0]),
        ("leftLowerArm", Some(9), [-0.25, 0.0, 0.0]),
        ("leftHand", Some(10), [-0.25, 0.0, 0.0]),
        ("rightUpperArm", Some(1), [0.2, 0.3, 0.0]),
        ("rightLowerArm", Some(12), [0.25, 0.0, 0.0]),
        ("rightHand", Some(13), [0.25, 0.0, 0.0]),
    ];
    let nodes: Vec<Value> = bones
        .iter()
        .enumerate()
        .map(|(i, (name, _, t))| {
            let children: Vec<usize> = (0..bones.len())
                .filter(|&c| bones[c].1 == Some(i))
                .collect();
            let mut node = json!({"name": name, "translation": t});
            if !children.is_empty() {
                node["children"] = json!(children);
            }
            node
        })
        .collect();
    let human_bones: Vec<Value> = bones
        .iter()
        .enumerate()
        .map(|(i, (name, _, _))| json!({"bone": name, "node": i}))
        .collect();
    let root = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["VRM"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "extensions": {"VRM": {"specVersion": "0.0", "meta": meta,
            "humanoid": {"humanBones": human_bones}}}
    });
    write(dir, "m0.vrm", &glb(&root, &[]))
}

fn cc_by_disallowing_commerce() -> Value {
    json!({"title": "Mannequin", "author": "A", "allowedUserName": "Everyone",
        "violentUssageName": "Disallow", "sexualUssageName": "Disallow",
        "commercialUssageName": "Disallow", "licenseName": "CC_BY"})
}

#[test]
fn migration_keeps_a_cc_by_licence_and_applies_the_meta_options() {
    let dir = temp_dir();
    let vrm0 = vrm0_model(dir.path(), cc_by_disallowing_commerce());
    let out = dir.path().join("out.vrm");
    let run = humanoid_ok(&[
        "convert",
        s(&vrm0),
        s(&out),
        "--to",
        "vrm1",
        "--vrm-name",
        "Renamed",
        "--vrm-author",
        "B",
        "--vrm-author",
        "C",
        "--vrm-license-url",
        "https://vrm.dev/licenses/1.0/",
    ]);
    let meta = &glb_json(&out)["extensions"]["VRMC_vrm"]["meta"];
    assert_eq!(meta["name"], "Renamed");
    assert_eq!(meta["authors"], json!(["B", "C"]));
    assert_eq!(meta["licenseUrl"], "https://vrm.dev/licenses/1.0/");
    // CC BY: credit, redistribution, changes and their redistribution.
    assert_eq!(meta["creditNotation"], "required");
    assert_eq!(meta["allowRedistribution"], true);
    assert_eq!(meta["modification"], "allowModificationRedistribution");
    assert_eq!(
        meta["otherLicenseUrl"],
        "https://creativecommons.org/licenses/by/4.0/"
    );
    // CC BY allows commercial use, the 0.x field does not: the stricter wins, both named.
    assert_eq!(meta["commercialUsage"], "personalNonProfit");
    let conflict = run
        .stdout
        .lines()
        .find(|l| l.contains("MIGRATE_META_CONFLICT"))
        .unwrap_or_else(|| panic!("no conflict reported:\n{}", run.stdout));
    assert!(
        conflict.starts_with("warning")
            && conflict.contains("commercialUssageName Disallow")
            && conflict.contains("CC_BY"),
        "{conflict}"
    );
    assert!(
        run.stdout.contains("MIGRATE_META_OVERRIDDEN"),
        "{}",
        run.stdout
    );
    humanoid_ok(&["validate", s(&out)]);
}

#[test]
fn a_licence_url_vrm1_does_not_accept_is_refused() {
    let dir = temp_dir();
    let vrm0 = vrm0_model(dir.path(), cc_by_disallowing_commerce());
    let out = dir.path().join("out.vrm");
    let cc = "https://creativecommons.org/licenses/by/4.0/";
    let run = humanoid(&[
        "convert",
        s(&vrm0),
        s(&out),
        "--to",
        "vrm1",
        "--vrm-license-url",
        cc,
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("--vrm-license-url") && run.stderr.contains("three-vrm"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
    // The same file with that licenseUrl written by hand: our validate rejects it, as
    // three-vrm does ("The license url ... is not accepted").
    let vrm1 = dir.path().join("m1.vrm");
    humanoid_ok(&["convert", s(&vrm0), s(&vrm1), "--to", "vrm1"]);
    let mut json = glb_json(&vrm1);
    json["extensions"]["VRMC_vrm"]["meta"]["licenseUrl"] = json!(cc);
    set_glb_json(&vrm1, &json);
    let run = humanoid(&["validate", s(&vrm1)]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("VRM_META_LICENSE_URL"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_vrm0_written_as_vrm_says_it_stays_vrm0_and_how_to_migrate() {
    let dir = temp_dir();
    let vrm0 = vrm0_model(dir.path(), cc_by_disallowing_commerce());
    let out = dir.path().join("same.vrm");
    let run = humanoid_ok(&["convert", s(&vrm0), s(&out)]);
    let note: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("VRM0_KEPT"))
        .collect();
    assert_eq!(note.len(), 1, "{}", run.stdout);
    assert!(
        note[0].contains("VRM 0.x") && note[0].contains("--to vrm1"),
        "{}",
        note[0]
    );
    assert!(glb_json(&out)["extensions"].get("VRM").is_some());
    // Asked for by name: nothing to say.
    let out = dir.path().join("asked.vrm");
    let run = humanoid_ok(&["convert", s(&vrm0), s(&out), "--to", "vrm0"]);
    assert!(!run.stdout.contains("VRM0_KEPT"), "{}", run.stdout);
    // The advice works: --to vrm1 writes VRM 1.0.
    let out = dir.path().join("migrated.vrm");
    humanoid_ok(&["convert", s(&vrm0), s(&out), "--to", "vrm1"]);
    assert!(glb_json(&out)["extensions"].get("VRMC_vrm").is_some());
}
