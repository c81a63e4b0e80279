//! The shared corpus (`../shared/corpus`) through the command line, checked by the Khronos
//! validator and the `gltf` crate (independent of our reader and writer).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::util::{demo, humanoid_ok, khronos_validate, s, shared, temp_dir};

fn gltf_family() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for folder in ["gltf", "vrm", "vrma"] {
        let dir = shared().join("corpus").join(folder);
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ["glb", "gltf", "vrm", "vrma"].contains(&ext) {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(
        files.len() >= 20,
        "expected the whole corpus, found {}",
        files.len()
    );
    files
}

/// Counts of validator messages by code for errors (a message line starts with its severity).
fn error_codes(messages: &[String]) -> BTreeMap<String, usize> {
    let mut codes = BTreeMap::new();
    for m in messages {
        if let Some(rest) = m.strip_prefix("0 ") {
            *codes
                .entry(rest.split(' ').next().unwrap_or("").to_string())
                .or_default() += 1;
        }
    }
    codes
}

#[test]
fn every_corpus_file_inspects() {
    for file in gltf_family() {
        let run = humanoid_ok(&["inspect", s(&file)]);
        assert!(
            run.stdout.contains("format"),
            "{}: {}",
            file.display(),
            run.stdout
        );
        let run = humanoid_ok(&["inspect", "--json", s(&file)]);
        let _: serde_json::Value =
            serde_json::from_str(&run.stdout).expect("inspect --json is JSON");
    }
}

#[test]
fn converted_corpus_files_have_no_new_validator_errors() {
    let dir = temp_dir();
    for file in gltf_family() {
        let name = file.file_name().unwrap().to_str().unwrap();
        let out = dir.path().join(format!("rt_{name}"));
        humanoid_ok(&["convert", s(&file), s(&out)]);
        let (errors_in, _, messages_in) = khronos_validate(&file);
        let (errors_out, _, messages_out) = khronos_validate(&out);
        assert!(
            errors_out <= errors_in,
            "{name}: {errors_out} validator errors after conversion, {errors_in} before:\n{messages_out:#?}\nbefore: {messages_in:#?}"
        );
        let (a, b) = (error_codes(&messages_in), error_codes(&messages_out));
        for code in b.keys() {
            assert!(a.contains_key(code), "{name}: new validator error {code}");
        }

        // The gltf crate reads our output with the same node, skin and animation counts.
        let read = |p: &PathBuf| -> (usize, usize, usize) {
            let bytes = std::fs::read(p).unwrap();
            let g = gltf::Gltf::from_slice_without_validation(&bytes)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (g.nodes().count(), g.skins().count(), g.animations().count())
        };
        if !name.ends_with(".gltf") {
            assert_eq!(read(&file), read(&out), "{name}: gltf crate counts");
        }
    }
}

#[test]
fn gltf_and_glb_convert_both_ways() {
    let dir = temp_dir();
    for name in ["SimpleSkin.gltf", "LeftHandHumanoid.gltf", "CesiumMan.glb"] {
        let file = shared().join("corpus/gltf").join(name);
        let stem = name.split('.').next().unwrap();
        let glb = dir.path().join(format!("{stem}_a.glb"));
        let gltf_out = dir.path().join(format!("{stem}_b.gltf"));
        humanoid_ok(&["convert", s(&file), s(&glb)]);
        humanoid_ok(&["convert", s(&glb), s(&gltf_out)]);
        for out in [&glb, &gltf_out] {
            let (errors, _, messages) = khronos_validate(out);
            let (errors_in, _, _) = khronos_validate(&file);
            assert!(errors <= errors_in, "{}: {messages:#?}", out.display());
        }
        let a = humanoid_ok(&["inspect", "--json", s(&file)]).stdout;
        let b = humanoid_ok(&["inspect", "--json", s(&gltf_out)]).stdout;
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(&a).unwrap(),
            serde_json::from_str(&b).unwrap(),
        );
        assert_eq!(a["skeletons"], b["skeletons"], "{name}");
        assert_eq!(a["clips"], b["clips"], "{name}");
    }
}

#[test]
fn mannequin_passes_the_khronos_validator() {
    let (_dir, nodes, ext) = demo();
    for file in [nodes, ext] {
        let (errors, warnings, messages) = khronos_validate(&file);
        assert_eq!(errors, 0, "{}: {messages:#?}", file.display());
        assert_eq!(warnings, 0, "{}: {messages:#?}", file.display());
    }
}

/// Any → BVH keeps every joint of the skeleton, each a ROOT or JOINT: a glTF's nodes but those
/// that draw a mesh and those above every skin joint that are none (`Z_UP`, `Armature`,
/// folded into the ROOT), counted by the `gltf` crate (Soldier's `HeadTop_End` and finger tips
/// are no skin joints but are bones); an H-Anim file's every `HAnimJoint` (counted in its text
/// by `DEF`).
#[test]
fn any_to_bvh_keeps_every_joint_of_the_skeleton() {
    let dir = temp_dir();
    let corpus = shared().join("corpus");
    let mut cases: Vec<(PathBuf, usize)> = Vec::new();
    for name in ["Soldier.glb", "RobotExpressive.glb", "CesiumMan.glb"] {
        let path = corpus.join("gltf").join(name);
        let g = gltf::Gltf::from_slice_without_validation(&std::fs::read(&path).unwrap()).unwrap();
        let mut parent = std::collections::HashMap::new();
        for node in g.nodes() {
            for child in node.children() {
                parent.insert(child.index(), node.index());
            }
        }
        let skin: std::collections::HashSet<usize> = g
            .skins()
            .flat_map(|s| s.joints().map(|j| j.index()).collect::<Vec<_>>())
            .collect();
        let ancestors = |mut n: usize| {
            let mut up = Vec::new();
            while let Some(&p) = parent.get(&n) {
                up.push(p);
                n = p;
            }
            up
        };
        let above_every_joint = |n: usize| skin.iter().all(|j| ancestors(*j).contains(&n));
        let bones = g
            .nodes()
            .filter(|n| n.mesh().is_none())
            .filter(|n| skin.contains(&n.index()) || !above_every_joint(n.index()))
            .count();
        cases.push((path, bones));
    }
    for name in ["JinLOA4.x3d", "JoeKick.x3d"] {
        let path = corpus.join("hanim").join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let joints = text
            .split("<HAnimJoint")
            .skip(1)
            .filter(|tag| tag.split('>').next().unwrap_or("").contains("DEF="))
            .count();
        cases.push((path, joints));
    }
    for (path, expected) in cases {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("{name}.bvh"));
        humanoid_ok(&["convert", s(&path), s(&out)]);
        let text = std::fs::read_to_string(&out).unwrap();
        let words: Vec<&str> = text.split_whitespace().collect();
        let written = words
            .iter()
            .filter(|w| matches!(**w, "ROOT" | "JOINT"))
            .count();
        assert_eq!(written, expected, "{name}: joints written");
    }
}
