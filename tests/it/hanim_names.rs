//! Rigs → H-Anim: the joints a rig maps are written under H-Anim's names, nodes above the
//! skeleton are not joints (the top joint is `humanoid_root`, `HumanoidRoot` in 1.x), and
//! nothing moves. Expected names come from the rig's mapping (`humanoid map`, or the humanoid
//! the file declares, as `inspect` lists it) and the H-Anim mapping tables; expected positions
//! from the input read with the `gltf` crate (joints and skin at rest) and from `pose` on the
//! input; X_ITE (`HUMANOID_XITE`) gives its own world positions of the written joints and skin
//! (the humanoid's transform and every joint matrix as X_ITE builds them,
//! `tests/peers/xite-world.js`), Castle (`HUMANOID_TOVRMLX3D`) its joint count.

#[cfg(feature = "corpus")]
use std::collections::BTreeMap;
use std::path::Path;

use glam::DVec3;
use serde_json::Value;

use crate::util::{humanoid, humanoid_ok, s, temp_dir, write};

#[cfg(feature = "corpus")]
/// The bone → joint name mapping a conversion uses: the file's declared humanoid, else the
/// mapper's.
pub(crate) fn mapping(input: &Path) -> BTreeMap<String, String> {
    let inspect: Value =
        serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(input)]).stdout).unwrap();
    let declared = inspect["skeletons"]
        .as_array()
        .and_then(|a| a.first())
        .map(|h| {
            h["bones"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|b| {
                    Some((
                        b["bone"].as_str()?.to_owned(),
                        b["name"].as_str()?.to_owned(),
                    ))
                })
                .collect::<BTreeMap<_, _>>()
        });
    if let Some(bones) = declared.filter(|b| !b.is_empty()) {
        return bones;
    }
    let map: Value =
        serde_json::from_str(&humanoid_ok(&["map", "--json", s(input)]).stdout).unwrap();
    map["bones"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(bone, joint)| (bone.clone(), joint.as_str().unwrap().to_owned()))
        .collect()
}

#[cfg(feature = "corpus")]
/// The H-Anim name of a canonical bone in the generation of `ext` (`wrl`: 1.x).
pub(crate) fn hanim_name(bone: &str, ext: &str) -> String {
    let library = humanoid::mapping::Library::builtin().unwrap();
    let table = library.get("hanim-2").unwrap();
    let v2 = table.names(bone.parse().unwrap())[0].clone();
    if ext == "wrl" {
        humanoid::formats::hanim::names::to_v1(&v2)
            .unwrap_or(&v2)
            .to_owned()
    } else {
        v2
    }
}

#[cfg(feature = "corpus")]
/// What X_ITE holds of a written file: joints (name, world position) and skin points (world).
struct XiteWorld {
    joints: Vec<(String, DVec3)>,
    skin: Vec<DVec3>,
}

#[cfg(feature = "corpus")]
/// X_ITE's world positions at rest (`None` when HUMANOID_XITE is not set): of a copy of the
/// file without its ROUTEs, since X_ITE starts the clips' TimeSensors as it loads a file.
fn xite_world(file: &Path) -> Option<XiteWorld> {
    let script = std::path::PathBuf::from(std::env::var_os("HUMANOID_XITE")?);
    let peers = script.parent().unwrap();
    let out = tempfile::NamedTempFile::new().unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    let still: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("<ROUTE") && !l.trim_start().starts_with("ROUTE "))
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = &dir.path().join(file.file_name().unwrap());
    std::fs::write(file, still).unwrap();
    let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/xite-world.js");
    let run = std::process::Command::new("node")
        .arg("-r")
        .arg(peers.join("f16-polyfill.js"))
        .arg(ours)
        .arg(file)
        .arg(out.path())
        .env("NODE_PATH", peers.join("node_modules"))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "X_ITE on {}: {}{}",
        file.display(),
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let text = std::fs::read_to_string(out.path()).unwrap();
    let mut world = XiteWorld {
        joints: Vec::new(),
        skin: Vec::new(),
    };
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        let p = |w: &[&str]| {
            DVec3::new(
                w[0].parse().unwrap(),
                w[1].parse().unwrap(),
                w[2].parse().unwrap(),
            )
        };
        match words.as_slice() {
            ["joint", name, rest @ ..] => world.joints.push(((*name).to_owned(), p(rest))),
            ["skin", rest @ ..] => world.skin.push(p(rest)),
            _ => {}
        }
    }
    Some(world)
}

#[cfg(feature = "corpus")]
/// Castle's joint count (`None` when HUMANOID_TOVRMLX3D is not set).
fn castle_joints(file: &Path) -> Option<usize> {
    let tool = std::env::var_os("HUMANOID_TOVRMLX3D")?;
    let run = std::process::Command::new(tool)
        .arg(file)
        .arg("--encoding=xml")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success() && !stderr.contains("skip the rest"),
        "Castle on {}: {stderr}",
        file.display()
    );
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    let xml = roxmltree::Document::parse_with_options(
        &text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            nodes_limit: u32::MAX,
        },
    )
    .unwrap();
    // Castle writes a PROTO instance out again where it is used: count DEF names once.
    let mut defs = std::collections::BTreeSet::new();
    let mut anonymous = 0;
    for e in xml.descendants().filter(|e| e.attribute("USE").is_none()) {
        let joint = e.has_tag_name("HAnimJoint")
            || (e.has_tag_name("ProtoInstance") && e.attribute("name") == Some("Joint"));
        match (joint, e.attribute("DEF")) {
            (true, Some(def)) => {
                defs.insert(def.to_owned());
            }
            (true, None) => anonymous += 1,
            _ => {}
        }
    }
    Some(defs.len() + anonymous)
}

/// `pose --json` of `file` at rest and at 5 times of its first clip (rest only without clips).
fn pose(file: &Path, map: bool) -> Value {
    let mut args = vec!["pose", "--json", "--uniform", "5"];
    if map {
        args.extend(["--map", "auto"]);
    }
    args.push(s(file));
    let run = humanoid(&args);
    let run = if run.code != 0 && run.stderr.contains("no clip") {
        args.drain(2..4);
        humanoid_ok(&args)
    } else {
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        run
    };
    serde_json::from_str(&run.stdout).unwrap()
}

fn position(v: &Value) -> DVec3 {
    let p: Vec<f64> = v["p"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    DVec3::new(p[0], p[1], p[2])
}

/// The largest distance between the bones of two poses, which must be the same bones.
fn pose_difference(a: &Value, b: &Value, what: &str) -> f64 {
    let (a, b) = (a.as_object().unwrap(), b.as_object().unwrap());
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{what}: the bones read back"
    );
    a.iter()
        .map(|(bone, v)| (position(v) - position(&b[bone])).length())
        .fold(0.0, f64::max)
}

#[cfg(feature = "corpus")]
/// The nearest point of `points` to `p` (by a scan: the skins here have a few thousand points).
fn nearest(points: &[DVec3], p: DVec3) -> f64 {
    points
        .iter()
        .map(|q| (*q - p).length())
        .fold(f64::INFINITY, f64::min)
}

#[cfg(feature = "corpus")]
/// Converts `input` to each H-Anim encoding and checks everything in the module docs; returns
/// one report line per encoding.
fn check(input: &Path, dir: &Path, declared: bool) -> Vec<String> {
    let stem = input.file_name().unwrap().to_string_lossy().into_owned();
    let bones = mapping(input);
    let source = super::hanim::rest_skin(input);
    let before = pose(input, !declared);
    let mut report = Vec::new();
    for ext in ["x3d", "x3dv", "wrl"] {
        let what = format!("{stem} → {ext}");
        let out = dir.join(format!("{stem}.{ext}"));
        let run = humanoid_ok(&["convert", "--json", s(input), s(&out)]);
        let json: Value = serde_json::from_str(&run.stdout).unwrap();
        let diagnostics = json["diagnostics"].as_array().unwrap();
        let message = |code: &str| {
            diagnostics
                .iter()
                .find(|d| d["code"] == code)
                .and_then(|d| d["message"].as_str())
                .map(str::to_owned)
        };
        let written = message("HANIM_JOINTS_WRITTEN").unwrap_or_else(|| panic!("{what}"));
        let count: usize = written.split(' ').next().unwrap().parse().unwrap();
        let root = if ext == "wrl" {
            "HumanoidRoot"
        } else {
            "humanoid_root"
        };
        assert!(
            written.contains(&format!("(top: {root};")),
            "{what}: {written}"
        );
        let renamed = message("HANIM_JOINTS_RENAMED").unwrap_or_default();
        let renames: usize = renamed
            .split(' ')
            .next()
            .unwrap_or("0")
            .parse()
            .unwrap_or(0);
        // The expected name of every input joint.
        let mut expected: BTreeMap<String, String> = source
            .joints
            .keys()
            .map(|name| (name.clone(), name.replace(char::is_whitespace, "_")))
            .collect();
        for (bone, joint) in &bones {
            expected.insert(joint.clone(), hanim_name(bone, ext));
        }
        // Our reader: the same bones at the same places, at rest and along the clip.
        let after = pose(&out, false);
        let mut worst_pose = pose_difference(&before["rest"], &after["rest"], &what);
        let samples = before["samples"].as_array().map_or(0, Vec::len);
        for k in 0..samples {
            worst_pose = worst_pose.max(pose_difference(
                &before["samples"][k]["bones"],
                &after["samples"][k]["bones"],
                &format!("{what} at {}", before["samples"][k]["t"]),
            ));
        }
        // mannequiny scales its legs along their own (rotated) axes; H-Anim's scaleOrientation
        // holds that, the canonical model's TRS joints cannot, so our reading is approximate.
        let tolerance = if stem == "mannequiny.glb" { 5e-3 } else { 1e-4 };
        assert!(
            worst_pose < tolerance,
            "{what}: a mapped bone moved {worst_pose} m"
        );
        let mut line = format!(
            "{what}: {count} joints, {renames} renamed by H-Anim, {} bones within {worst_pose:.1e} m (rest + {samples} times)",
            bones.len()
        );
        if let Some(world) = xite_world(&out) {
            assert_eq!(world.joints.len(), count, "{what}: X_ITE joints");
            assert_eq!(world.joints[0].0, root, "{what}: X_ITE's top joint");
            let mut worst_joint = 0.0f64;
            for (name, p) in &world.joints {
                let Some((input_name, _)) = expected.iter().find(|(_, n)| *n == name) else {
                    panic!("{what}: X_ITE joint {name:?} is no input joint under its expected name")
                };
                let q = source.joints[input_name];
                worst_joint = worst_joint.max((*p - q).length());
            }
            assert!(
                worst_joint < 1e-4,
                "{what}: X_ITE joints moved {worst_joint} m"
            );
            let worst_skin = if world.skin.len() == source.positions.len() {
                world
                    .skin
                    .iter()
                    .zip(&source.positions)
                    .map(|(a, b)| (*a - *b).length())
                    .fold(0.0, f64::max)
            } else {
                world
                    .skin
                    .iter()
                    .map(|p| nearest(&source.positions, *p))
                    .fold(0.0, f64::max)
            };
            assert!(worst_skin < 1e-4, "{what}: X_ITE skin moved {worst_skin} m");
            line.push_str(&format!(
                "; X_ITE {} joints (max |Δ| {worst_joint:.1e} m), {} skin points (max |Δ| {worst_skin:.1e} m)",
                world.joints.len(),
                world.skin.len()
            ));
        }
        if let Some(castle) = castle_joints(&out) {
            assert_eq!(castle, count, "{what}: Castle joints");
            line.push_str(&format!("; Castle {castle} joints"));
        }
        report.push(line);
    }
    report
}

/// Every corpus rig and the mannequin: mapped joints under H-Anim names, `Z_UP`/`Armature`/
/// `Character`/`root` not written as joints, nothing moved (before the fix CesiumMan's top
/// joint was `Z_UP` and its joints kept their glTF names).
#[cfg(feature = "corpus")]
#[test]
fn rigs_go_to_h_anim_under_h_anim_names_with_the_root_on_top() {
    let dir = temp_dir();
    let corpus = crate::util::shared().join("corpus");
    let (_keep, mannequin, _) = crate::util::demo();
    let mut report = Vec::new();
    for (input, declared) in [
        (corpus.join("gltf/CesiumMan.glb"), false),
        (corpus.join("gltf/RiggedFigure.glb"), false),
        (corpus.join("gltf/Soldier.glb"), false),
        (corpus.join("gltf/Xbot_blender_reexport.glb"), false),
        (corpus.join("gltf/mannequiny.glb"), false),
        (corpus.join("vrm/Godette_vrm_v4.vrm"), true),
        (mannequin, true),
    ] {
        report.extend(check(&input, dir.path(), declared));
    }
    eprintln!("{}", report.join("\n"));
}

/// The mannequin (no corpus needed) under a Z-up `Armature` node scaled ×0.01: the node is not
/// a joint, its scale is the humanoid's, the top joint is `humanoid_root`, and every mapped
/// bone reads back where it was (before the fix `Armature` was the top HAnimJoint).
#[test]
fn a_node_above_the_skeleton_becomes_the_humanoids_transform() {
    let dir = temp_dir();
    let (_keep, mannequin, _) = crate::util::demo();
    let (mut json, bin) = crate::util::glb_parts(&mannequin);
    let roots = json["scenes"][0]["nodes"].clone();
    let nodes = json["nodes"].as_array_mut().unwrap();
    let armature = nodes.len();
    nodes.push(serde_json::json!({
        "name": "Armature",
        "translation": [0.5, 0.0, -1.0],
        "rotation": [std::f64::consts::FRAC_1_SQRT_2, 0.0, 0.0, std::f64::consts::FRAC_1_SQRT_2],
        "scale": [0.01, 0.01, 0.01],
        "children": roots,
    }));
    json["scenes"][0]["nodes"] = serde_json::json!([armature]);
    let input = write(dir.path(), "armature.glb", &crate::util::glb(&json, &bin));
    let before = pose(&input, false);
    let out = dir.path().join("armature.x3d");
    let run = humanoid_ok(&["convert", s(&input), s(&out)]);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains("HANIM_HUMANOID_TRANSFORM"), "{said}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        !text.contains("name='Armature'"),
        "Armature written as a joint"
    );
    let xml = roxmltree::Document::parse_with_options(
        &text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..roxmltree::ParsingOptions::default()
        },
    )
    .unwrap();
    let humanoid = xml
        .descendants()
        .find(|e| e.has_tag_name("HAnimHumanoid"))
        .unwrap();
    let top = humanoid
        .children()
        .find(|e| e.has_tag_name("HAnimJoint"))
        .unwrap();
    assert_eq!(top.attribute("name"), Some("humanoid_root"));
    let after = pose(&out, false);
    let worst = pose_difference(&before["rest"], &after["rest"], "rest");
    assert!(worst < 1e-6, "{worst}");
    for k in 0..5 {
        let worst = pose_difference(
            &before["samples"][k]["bones"],
            &after["samples"][k]["bones"],
            "walk",
        );
        assert!(worst < 1e-6, "walk sample {k}: {worst}");
    }
    assert_eq!(humanoid.attribute("scale"), Some("0.01 0.01 0.01"));
    assert_eq!(humanoid.attribute("translation"), Some("0.5 0 -1"));
}
