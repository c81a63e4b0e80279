//! Godot resources through the CLI: a model's humanoid written as a BoneMap `.tres` maps the
//! same rig back (`--map FILE.tres`), a profile and a BoneMap inspect, bad resources are
//! refused with line:column.

use serde_json::Value;

use crate::util::{demo, glb, glb_parts, humanoid, humanoid_ok, s, temp_dir, write};

/// (bone, joint name) pairs of `inspect --json`'s first humanoid.
fn bones(inspection: &Value) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = inspection["skeletons"][0]["bones"]
        .as_array()
        .unwrap_or_else(|| panic!("no bones in {inspection}"))
        .iter()
        .filter_map(|b| {
            Some((
                b["bone"].as_str()?.to_owned(),
                b["name"].as_str()?.to_owned(),
            ))
        })
        .collect();
    pairs.sort();
    pairs
}

#[test]
fn a_bone_map_written_from_the_mannequin_maps_its_rig_back() {
    let (_keep, mannequin, _) = demo();
    let dir = temp_dir();
    let map = dir.path().join("mannequin_bonemap.tres");
    humanoid_ok(&["convert", s(&mannequin), s(&map), "--to", "godot-bonemap"]);
    let text = std::fs::read_to_string(&map).unwrap();
    assert!(text.starts_with("[gd_resource type=\"BoneMap\""), "{text}");
    assert!(text.contains("bone_map/Hips = &\"hips\""), "{text}");

    let report: Value =
        serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(&map)]).stdout).unwrap();
    assert_eq!(report["resource_type"], "BoneMap");
    assert!(report["bone_maps"][0]["pairs"].as_array().unwrap().len() >= 50);

    // The mannequin declares its humanoid; a copy without the declaration, mapped by the
    // BoneMap, gets the same bones.
    let declared: Value =
        serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(&mannequin)]).stdout).unwrap();
    let (mut json, bin) = glb_parts(&mannequin);
    json["extensionsUsed"] = Value::Array(Vec::new());
    json.as_object_mut().unwrap().remove("extensions");
    let plain = write(dir.path(), "plain.glb", &glb(&json, &bin));
    let undeclared: Value =
        serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(&plain)]).stdout).unwrap();
    assert!(
        undeclared["skeletons"].as_array().is_none_or(Vec::is_empty),
        "the copy declares no humanoid: {undeclared}"
    );
    let mapped: Value = serde_json::from_str(
        &humanoid_ok(&["inspect", "--json", "--map", s(&map), s(&plain)]).stdout,
    )
    .unwrap();
    assert_eq!(bones(&mapped), bones(&declared));
}

#[test]
fn the_canonical_profile_inspects_as_godots_humanoid() {
    let (_keep, mannequin, _) = demo();
    let dir = temp_dir();
    let profile = dir.path().join("profile.tres");
    humanoid_ok(&[
        "convert",
        s(&mannequin),
        s(&profile),
        "--to",
        "godot-profile",
    ]);
    let report: Value =
        serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(&profile)]).stdout).unwrap();
    let summary = &report["profile"];
    assert_eq!(summary["bones"], 56, "{report}");
    assert_eq!(summary["root_bone"], "Root");
    assert_eq!(summary["scale_base_bone"], "Hips");
}

#[test]
fn a_broken_resource_is_refused_with_its_line_and_column() {
    let dir = temp_dir();
    let path = write(
        dir.path(),
        "broken.tres",
        b"[gd_resource type=\"BoneMap\" format=3]\n\n[resource]\nbone_map/Hips = &\"hips\n",
    );
    let run = humanoid(&["inspect", s(&path)]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("broken.tres"), "{}", run.stderr);
    assert!(
        run.stderr.contains("4:18"),
        "line 4, column 18 named: {}",
        run.stderr
    );
}

/// Every corpus humanoid (declared, or mapped by the tables): its BoneMap, written and read
/// back as a mapping, maps the same joints.
#[cfg(feature = "corpus")]
#[test]
fn bone_maps_of_the_corpus_humanoids_map_them_back() {
    use crate::util::shared;
    let dir = temp_dir();
    let corpus = shared().join("corpus");
    let files = [
        "vrm/Godette_vrm_v4.vrm",
        "vrm/debug_robot.vrm",
        "vrm/EmissionMigration_v0.106.0.vrm",
        "vrm/VRMC_materials_mtoon_UV_Animation_Test.vrm",
        "gltf/Soldier.glb",
        "gltf/Xbot_blender_reexport.glb",
        "gltf/RobotExpressive.glb",
        "gltf/CesiumMan.glb",
        "bvh/cmu_131_01_3dsmax.bvh",
        "bvh/mixamo_freebvh.bvh",
    ];
    for file in files {
        let input = corpus.join(file);
        let stem = input.file_stem().unwrap().to_str().unwrap();
        let map = dir.path().join(format!("{stem}.tres"));
        humanoid_ok(&[
            "convert",
            s(&input),
            s(&map),
            "--to",
            "godot-bonemap",
            "--map",
            "auto",
        ]);
        let expected: Value = serde_json::from_str(
            &humanoid_ok(&["inspect", "--json", "--map", "auto", s(&input)]).stdout,
        )
        .unwrap();
        let mapped: Value = serde_json::from_str(
            &humanoid_ok(&["inspect", "--json", "--map", s(&map), s(&input)]).stdout,
        )
        .unwrap();
        let expected = bones(&expected);
        assert!(expected.len() >= 15, "{file}: {} bones", expected.len());
        assert_eq!(bones(&mapped), expected, "{file}");
    }
}

/// `validate` reads what `inspect` reads: a BoneMap `.tres` written by `convert` is valid, one
/// naming a bone its profile lacks is not (exit 1, the line named).
#[test]
fn validate_reads_a_bone_map_tres() {
    let (_guard, mannequin, _) = crate::util::demo();
    let dir = crate::util::temp_dir();
    let tres = dir.path().join("map.tres");
    crate::util::humanoid_ok(&[
        "convert",
        crate::util::s(&mannequin),
        crate::util::s(&tres),
        "--to",
        "godot-bonemap",
    ]);
    crate::util::humanoid_ok(&["inspect", crate::util::s(&tres)]);
    let run = crate::util::humanoid_ok(&["validate", crate::util::s(&tres)]);
    assert!(run.stdout.contains("valid"), "{}", run.stdout);
    let text = std::fs::read_to_string(&tres).unwrap();
    std::fs::write(&tres, format!("{text}bone_map/Tail = &\"tail\"\n")).unwrap();
    let run = crate::util::humanoid(&["validate", crate::util::s(&tres)]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("Tail"), "{}", run.stderr);
}
