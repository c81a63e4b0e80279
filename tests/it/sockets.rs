//! `humanoid sockets`: the five virtual transforms of the KHR_virtual_transform draft's
//! example, attached to the mannequin's bones, at rest and at three times of its walk. The
//! expected values are computed here from each parent bone's world position `p` and rotation
//! `q` (printed by `pose --json`, checked against three-vrm and Blender elsewhere) with the
//! draft's rule written out by hand: every flag respected → `p + q·t` (the mannequin's scales
//! are 1); position only → `p + t` (the offset stays aligned with the world axes).

use glam::{Quat, Vec3};
use serde_json::{json, Value};

use crate::util::{demo, glb, glb_parts, humanoid_ok, s, temp_dir, write};

/// One example: (name, parent bone, translation, respects rotation and scale, tags).
type Example = (
    &'static str,
    &'static str,
    [f32; 3],
    bool,
    &'static [&'static str],
);

const EXAMPLES: [Example; 5] = [
    (
        "right_hand_attach",
        "rightHand",
        [0.0, 0.1, 0.0],
        true,
        &["weapon_socket"],
    ),
    (
        "lookAt_target",
        "head",
        [0.0, 0.0, 0.35],
        true,
        &["look_at"],
    ),
    (
        "sitting_point",
        "hips",
        [0.0, 0.0, -0.2],
        true,
        &["seating"],
    ),
    ("wrist_ui", "leftLowerArm", [0.0, 0.25, 0.0], false, &["ui"]),
    (
        "debug_marker",
        "chest",
        [0.0, 0.0, 0.0],
        false,
        &["debug", "marker"],
    ),
];

fn vec(v: &Value) -> Vec3 {
    Vec3::new(
        v[0].as_f64().unwrap() as f32,
        v[1].as_f64().unwrap() as f32,
        v[2].as_f64().unwrap() as f32,
    )
}

#[test]
fn the_drafts_five_examples_on_the_mannequin_at_rest_and_walking() {
    let (_keep, mannequin, _) = demo();
    let dir = temp_dir();
    let (mut json, bin) = glb_parts(&mannequin);
    let node = |name: &str| {
        json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("no node {name}"))
    };
    let transforms: Vec<Value> = EXAMPLES
        .iter()
        .map(|(name, bone, t, rotation, tags)| {
            let mut v = json!({
                "name": name,
                "parent": node(bone),
                "translation": t,
                "respectParentPosition": true,
                "respectParentRotation": rotation,
                "respectParentScale": rotation,
                "tags": tags,
            });
            if *name == "debug_marker" {
                v["scale"] = json!([0.1, 0.1, 0.1]);
            }
            v
        })
        .collect();
    json["extensions"]["KHR_virtual_transform"] = json!({ "virtualTransforms": transforms });
    json["extensionsUsed"]
        .as_array_mut()
        .unwrap()
        .push(json!("KHR_virtual_transform"));
    let file = write(dir.path(), "with_sockets.glb", &glb(&json, &bin));

    let inspection: Value =
        serde_json::from_str(&humanoid_ok(&["inspect", "--json", s(&file)]).stdout).unwrap();
    let listed: Vec<&str> = inspection["sockets"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    let names: Vec<&str> = EXAMPLES.iter().map(|e| e.0).collect();
    assert_eq!(listed, names, "inspect lists the sockets");

    for time in [None, Some(0.2f32), Some(0.5), Some(0.9)] {
        let mut args = vec!["sockets", "--json", s(&file)];
        let t_text = time.map(|t| t.to_string());
        if let Some(t) = &t_text {
            args.extend(["--clip", "walk", "--time", t]);
        }
        let report: Value = serde_json::from_str(&humanoid_ok(&args).stdout).unwrap();
        let pose: Value = serde_json::from_str(
            &humanoid_ok(&[
                "pose",
                "--json",
                "--clip",
                "walk",
                "--times",
                t_text.as_deref().unwrap_or("0"),
                s(&file),
            ])
            .stdout,
        )
        .unwrap();
        let bones = match time {
            None => &pose["rest"],
            Some(_) => &pose["samples"][0]["bones"],
        };
        let sockets = report["sockets"].as_array().unwrap();
        assert_eq!(sockets.len(), 5);
        for ((name, bone, t, rotation, tags), socket) in EXAMPLES.iter().zip(sockets) {
            assert_eq!(socket["name"], *name);
            assert_eq!(socket["parent"], *bone);
            assert_eq!(socket["tags"], json!(tags));
            let p = vec(&bones[bone]["p"]);
            let q = &bones[bone]["q"];
            let q = Quat::from_xyzw(
                q[0].as_f64().unwrap() as f32,
                q[1].as_f64().unwrap() as f32,
                q[2].as_f64().unwrap() as f32,
                q[3].as_f64().unwrap() as f32,
            );
            let expected = if *rotation {
                p + q * Vec3::from(*t)
            } else {
                p + Vec3::from(*t)
            };
            let got = vec(&socket["position"]);
            assert!(
                got.distance(expected) < 1e-5,
                "{name} at {time:?}: {got} vs {expected}"
            );
            if !*rotation {
                let r = vec(&socket["rotation"]);
                assert!(r.length() < 1e-6, "{name}: world-aligned, {r}");
                let scale = vec(&socket["scale"]);
                let own = if *name == "debug_marker" { 0.1 } else { 1.0 };
                assert!(
                    (scale - Vec3::splat(own)).length() < 1e-6,
                    "{name}: {scale}"
                );
            }
        }
        let kinds: Vec<&str> = sockets.iter().filter_map(|s| s["kind"].as_str()).collect();
        assert_eq!(
            kinds.len(),
            5,
            "every example's tags have a meaning: {kinds:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Round trips, the gaze origin, retarget and dropped sockets.

/// The sockets the round trips carry: the draft's five examples, a rotated and non-uniformly
/// scaled grip on the left hand, and a gaze origin on the head.
fn round_trip_sockets(json: &Value) -> Vec<Value> {
    let node = |name: &str| {
        json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("no node {name}"))
    };
    let mut items: Vec<Value> = EXAMPLES
        .iter()
        .map(|(name, bone, t, rotation, tags)| {
            let mut v = json!({"name": name, "parent": node(bone), "translation": t,
                "tags": tags});
            if !*rotation {
                v["respectParentRotation"] = json!(false);
                v["respectParentScale"] = json!(false);
            }
            if *name == "debug_marker" {
                v["scale"] = json!([0.1, 0.1, 0.1]);
            }
            v
        })
        .collect();
    let q = Quat::from_xyzw(0.1, 0.2, 0.3, 0.9).normalize();
    items.push(json!({"name": "tilted_grip", "parent": node("leftHand"),
        "translation": [0.01, -0.02, 0.03], "rotation": q.to_array(), "scale": [1.0, 2.0, 0.5],
        "tags": ["grip"]}));
    items.push(json!({"name": "gaze_origin", "parent": node("head"),
        "translation": [0.0, 0.06, 0.02], "tags": ["gaze_origin"]}));
    items
}

/// The mannequin with [`round_trip_sockets`], written to `dir`.
fn mannequin_with_sockets(
    dir: &std::path::Path,
    mannequin: &std::path::Path,
) -> std::path::PathBuf {
    let (mut json, bin) = glb_parts(mannequin);
    let items = round_trip_sockets(&json);
    json["extensions"]["KHR_virtual_transform"] = json!({ "virtualTransforms": items });
    json["extensionsUsed"]
        .as_array_mut()
        .unwrap()
        .push(json!("KHR_virtual_transform"));
    write(dir, "sockets.glb", &glb(&json, &bin))
}

/// `humanoid sockets --json` of `file`, at rest or at `time` of the walk.
fn places(file: &std::path::Path, time: Option<f32>) -> Vec<Value> {
    let t = time.map(|t| t.to_string());
    let mut args = vec!["sockets", "--json", s(file)];
    if let Some(t) = &t {
        args.extend(["--clip", "walk", "--time", t]);
    }
    let report: Value = serde_json::from_str(&humanoid_ok(&args).stdout).unwrap();
    report["sockets"].as_array().unwrap().clone()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// The largest difference of two number arrays (quaternions compared up to sign), relative
/// to the magnitude above 1 (a world scale of 2 carries f32 noise of 2 × 2⁻²³ per step).
fn max_diff(a: &Value, b: &Value, quaternion: bool) -> f64 {
    let (a, b) = (numbers(a), numbers(b));
    assert_eq!(a.len(), b.len());
    let diff = |sign: f64| {
        a.iter()
            .zip(&b)
            .map(|(x, y)| (x - sign * y).abs() / x.abs().max(1.0))
            .fold(0.0, f64::max)
    };
    if quaternion {
        diff(1.0).min(diff(-1.0))
    } else {
        diff(1.0)
    }
}

/// Every socket of `a` is in `b` under the same name, at the same world transform (`tol`);
/// `skip` names sockets not compared (flags the format cannot hold, when animated). Returns
/// the largest difference.
fn same_world(a: &[Value], b: &[Value], tol: f64, skip: &[&str], what: &str) -> f64 {
    assert_eq!(a.len(), b.len(), "{what}: socket count");
    let mut worst = 0.0f64;
    for x in a {
        let name = x["name"].as_str().unwrap();
        let y = b
            .iter()
            .find(|y| y["name"] == name)
            .unwrap_or_else(|| panic!("{what}: no socket {name}"));
        if skip.contains(&name) {
            continue;
        }
        for (field, q) in [("position", false), ("rotation", true), ("scale", false)] {
            let d = max_diff(&x[field], &y[field], q);
            assert!(
                d <= tol,
                "{what} {name} {field}: {} vs {}",
                x[field],
                y[field]
            );
            worst = worst.max(d);
        }
    }
    worst
}

#[test]
fn sockets_survive_gltf_to_gltf_and_h_anim_round_trips() {
    let (_keep, mannequin, _) = demo();
    let dir = temp_dir();
    let file = mannequin_with_sockets(dir.path(), &mannequin);
    let items = round_trip_sockets(&glb_parts(&mannequin).0);
    let times = [None, Some(0.2f32), Some(0.5), Some(0.9)];
    let original: Vec<Vec<Value>> = times.iter().map(|t| places(&file, *t)).collect();
    assert_eq!(original[0].len(), 7);

    // glTF → glTF: the extension is kept as it is, fields and flags included.
    let gltf = dir.path().join("sockets.gltf");
    humanoid_ok(&["convert", s(&file), s(&gltf)]);
    let back = dir.path().join("back.glb");
    humanoid_ok(&["convert", s(&gltf), s(&back)]);
    let json = glb_parts(&back).0;
    assert_eq!(
        json["extensions"]["KHR_virtual_transform"]["virtualTransforms"],
        Value::Array(items.clone())
    );
    for (t, expected) in times.iter().zip(&original) {
        same_world(expected, &places(&back, *t), 1e-6, &[], "glTF → glTF");
    }

    // glTF → H-Anim → glTF: names, parents (the H-Anim joint of the same bone), world
    // transforms; H-Anim sites always follow their joint, so the two sockets that do not are
    // compared at rest only. The H-Anim joint names are the standard's (2.0: ISO/IEC
    // 19774-1 Annex; 1.1 for VRML97).
    let parents_v2 = [
        ("right_hand_attach", "r_radiocarpal"),
        ("lookAt_target", "skullbase"),
        ("sitting_point", "humanoid_root"),
        ("wrist_ui", "l_elbow"),
        ("tilted_grip", "l_radiocarpal"),
        ("gaze_origin", "skullbase"),
    ];
    let parents_v1 = [
        ("right_hand_attach", "r_wrist"),
        ("lookAt_target", "skullbase"),
        ("sitting_point", "HumanoidRoot"),
        ("wrist_ui", "l_elbow"),
        ("tilted_grip", "l_wrist"),
        ("gaze_origin", "skullbase"),
    ];
    let mut report = Vec::new();
    for ext in ["x3d", "x3dv", "wrl"] {
        let hanim = dir.path().join(format!("sockets.{ext}"));
        let run = humanoid_ok(&["convert", "--json", s(&file), s(&hanim)]);
        for name in ["wrist_ui", "debug_marker"] {
            assert!(
                run.stdout.contains("HANIM_SITE_FOLLOWS_JOINT") && run.stdout.contains(name),
                "{ext}: the flags H-Anim cannot hold are reported for {name}: {}",
                run.stdout
            );
        }
        let text = std::fs::read_to_string(&hanim).unwrap();
        assert_eq!(
            text.matches(if ext == "x3d" {
                "<HAnimSite DEF"
            } else {
                "Site { name"
            })
            .count(),
            7,
            "{ext}: one site per socket"
        );
        let back = dir.path().join(format!("from_{ext}.glb"));
        humanoid_ok(&["convert", s(&hanim), s(&back)]);
        let parents = if ext == "wrl" {
            &parents_v1
        } else {
            &parents_v2
        };
        let rest = places(&back, None);
        for (name, parent) in parents {
            let socket = rest.iter().find(|x| x["name"] == *name).unwrap();
            assert_eq!(socket["parent"], *parent, "{ext} {name}");
        }
        let scale_lost = if ext == "wrl" {
            vec!["tilted_grip", "debug_marker"]
        } else {
            vec![]
        };
        let mut worst = 0.0f64;
        for (t, expected) in times.iter().zip(&original) {
            let mut skip = scale_lost.clone();
            if t.is_some() {
                skip.extend(["wrist_ui", "debug_marker"]);
            }
            let got = places(&back, *t);
            worst = worst.max(same_world(
                expected,
                &got,
                1e-6,
                &skip,
                &format!("{ext} at {t:?}"),
            ));
            if ext == "wrl" && t.is_none() {
                // The 1.1 Site has no scale: positions and rotations still agree.
                for name in &scale_lost {
                    let a = expected.iter().find(|x| x["name"] == *name).unwrap();
                    let b = got.iter().find(|x| x["name"] == *name).unwrap();
                    assert!(max_diff(&a["position"], &b["position"], false) <= 1e-6);
                }
            }
        }
        report.push(format!("{ext}: max world difference {worst:.1e}"));
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn a_gaze_origin_socket_becomes_the_vrm_look_at_offset() {
    let (_keep, mannequin, _) = demo();
    let dir = temp_dir();
    let file = mannequin_with_sockets(dir.path(), &mannequin);
    let vrm = dir.path().join("sockets.vrm");
    humanoid_ok(&["convert", s(&file), s(&vrm)]);
    let json = glb_parts(&vrm).0;
    assert_eq!(
        json["extensions"]["VRMC_vrm"]["lookAt"]["offsetFromHeadBone"],
        json!([0.0, 0.06, 0.02])
    );
    let items = json["extensions"]["KHR_virtual_transform"]["virtualTransforms"]
        .as_array()
        .unwrap();
    assert_eq!(items.len(), 6, "the gaze origin is not repeated");
    assert!(items.iter().all(|i| i["name"] != "gaze_origin"));
    // Read back, the VRM lists it again, at the same place.
    let before = places(&file, None);
    let after = places(&vrm, None);
    same_world(&before, &after, 1e-6, &[], "glTF → VRM");
    // Only the gaze origin: the extension goes away.
    let (mut only, bin) = glb_parts(&mannequin);
    let gaze = round_trip_sockets(&only).pop().unwrap();
    only["extensions"]["KHR_virtual_transform"] = json!({ "virtualTransforms": [gaze] });
    only["extensionsUsed"]
        .as_array_mut()
        .unwrap()
        .push(json!("KHR_virtual_transform"));
    let file = write(dir.path(), "gaze.glb", &glb(&only, &bin));
    let vrm = dir.path().join("gaze.vrm");
    humanoid_ok(&["convert", s(&file), s(&vrm)]);
    let json = glb_parts(&vrm).0;
    assert!(json["extensions"].get("KHR_virtual_transform").is_none());
    assert!(!json["extensionsUsed"]
        .as_array()
        .unwrap()
        .contains(&json!("KHR_virtual_transform")));
}

#[test]
fn a_bvh_output_reports_each_dropped_socket() {
    let (_keep, mannequin, _) = demo();
    let dir = temp_dir();
    let file = mannequin_with_sockets(dir.path(), &mannequin);
    for out in ["out.bvh", "out.tres"] {
        let path = dir.path().join(out);
        let mut args = vec!["convert", "--json", s(&file), s(&path)];
        if out.ends_with("tres") {
            args.extend(["--to", "godot-bonemap"]);
        }
        let run = humanoid_ok(&args);
        let report: Value = serde_json::from_str(&run.stdout).unwrap();
        let dropped: Vec<&Value> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "SOCKET_DROPPED")
            .collect();
        assert_eq!(dropped.len(), 7, "{out}: {}", run.stdout);
        for item in round_trip_sockets(&glb_parts(&mannequin).0) {
            let name = format!("{:?}", item["name"].as_str().unwrap());
            assert!(
                dropped
                    .iter()
                    .any(|d| d["message"].as_str().unwrap().contains(&name)),
                "{out}: {name}"
            );
        }
    }
}

/// A second rig: the mannequin with every node translation × 1.2 and the right hand's
/// children's × 1.5 more (a longer hand).
fn bigger_mannequin(dir: &std::path::Path, mannequin: &std::path::Path) -> std::path::PathBuf {
    let (mut json, bin) = glb_parts(mannequin);
    let hand = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == "rightHand")
        .unwrap();
    let hand_children: Vec<u64> = json["nodes"][hand]["children"]
        .as_array()
        .map(|c| c.iter().map(|v| v.as_u64().unwrap()).collect())
        .unwrap_or_default();
    for (i, node) in json["nodes"].as_array_mut().unwrap().iter_mut().enumerate() {
        if let Some(t) = node.get_mut("translation").and_then(Value::as_array_mut) {
            let k = if hand_children.contains(&(i as u64)) {
                1.8
            } else {
                1.2
            };
            for v in t.iter_mut() {
                *v = json!(v.as_f64().unwrap() * k);
            }
        }
    }
    // The skin's inverse bind matrices no longer match; drop skin and meshes: a bare rig.
    for key in ["skins", "meshes"] {
        json.as_object_mut().unwrap().remove(key);
    }
    for node in json["nodes"].as_array_mut().unwrap() {
        let o = node.as_object_mut().unwrap();
        o.remove("skin");
        o.remove("mesh");
    }
    json.as_object_mut().unwrap().remove("animations");
    write(dir, "bigger.glb", &glb(&json, &bin))
}

/// Rest world positions of the humanoid bones of `file` (`pose --json --rest`).
fn rest_bones(file: &std::path::Path) -> Value {
    let pose: Value =
        serde_json::from_str(&humanoid_ok(&["pose", "--json", "--rest", s(file)]).stdout).unwrap();
    pose["rest"].clone()
}

#[test]
fn retarget_carries_a_hand_socket_scaled_by_the_hand_lengths() {
    let (_keep, mannequin, _) = demo();
    let dir = temp_dir();
    let source = mannequin_with_sockets(dir.path(), &mannequin);
    let target = bigger_mannequin(dir.path(), &mannequin);
    let out = dir.path().join("out.glb");
    let plain = dir.path().join("plain.glb");
    humanoid_ok(&[
        "retarget",
        s(&source),
        "--onto",
        s(&target),
        "-o",
        s(&plain),
    ]);
    assert!(
        places(&plain, None).is_empty(),
        "sockets are carried only when asked"
    );
    humanoid_ok(&[
        "retarget",
        s(&source),
        "--onto",
        s(&target),
        "-o",
        s(&out),
        "--carry-sockets",
    ]);
    let (from, to) = (rest_bones(&source), rest_bones(&target));
    let p = |bones: &Value, bone: &str| vec(&bones[bone]["p"]);
    // Hand length: the hand joint to the middle finger's proximal joint, on each rig.
    let k = p(&to, "rightHand").distance(p(&to, "rightMiddleProximal"))
        / p(&from, "rightHand").distance(p(&from, "rightMiddleProximal"));
    assert!(
        (k - 1.8).abs() < 1e-4,
        "the target's hand is 1.8 times as long: {k}"
    );
    let before = places(&source, None);
    let after = places(&out, None);
    let at = |list: &[Value], name: &str| {
        vec(&list.iter().find(|x| x["name"] == name).unwrap()["position"])
    };
    let expected =
        p(&to, "rightHand") + k * (at(&before, "right_hand_attach") - p(&from, "rightHand"));
    let got = at(&after, "right_hand_attach");
    assert!(got.distance(expected) < 1e-5, "{got} vs {expected}");
    assert_eq!(
        after
            .iter()
            .find(|x| x["name"] == "right_hand_attach")
            .unwrap()["parent"],
        "rightHand"
    );
    assert_eq!(
        after.len(),
        before.len(),
        "every socket is on a mapped bone"
    );
}

/// VRM's gaze origin against three-vrm: `getLookAtWorldPosition` is
/// `offsetFromHeadBone.applyMatrix4(rawHead.matrixWorld)` (three-vrm-core 3.5.5,
/// `VRMLookAt.ts`), and a 0.x `firstPersonBoneOffset {x, y, z}` is read as `(x, y, −z)`
/// (`VRMLookAtLoaderPlugin._v0Import`). The head's rest world position and rotation are the
/// oracle's (`shared/oracle/three-vrm/expected_rest_*.json`, three-vrm's own output); the
/// offset is read from the file's JSON here. The socket survives VRM → GLB → VRM, and the
/// Khronos validator finds no error in either output.
#[cfg(feature = "corpus")]
#[test]
fn vrm_gaze_origin_is_three_vrms_look_at_position_and_survives_a_round_trip() {
    use crate::util::{khronos_validate, shared};
    let dir = temp_dir();
    for (name, v0) in [("debug_robot", false), ("Godette_vrm_v4", true)] {
        let vrm = shared().join(format!("corpus/vrm/{name}.vrm"));
        let json = glb_parts(&vrm).0;
        let offset = if v0 {
            let o = &json["extensions"]["VRM"]["firstPerson"]["firstPersonBoneOffset"];
            Vec3::new(
                o["x"].as_f64().unwrap() as f32,
                o["y"].as_f64().unwrap() as f32,
                -o["z"].as_f64().unwrap() as f32,
            )
        } else {
            vec(&json["extensions"]["VRMC_vrm"]["lookAt"]["offsetFromHeadBone"])
        };
        let oracle: Value = serde_json::from_str(
            &std::fs::read_to_string(
                shared().join(format!("oracle/three-vrm/expected_rest_{name}.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let head = &oracle["rest"]["head"];
        let q = numbers(&head["q"]);
        let q = Quat::from_xyzw(q[0] as f32, q[1] as f32, q[2] as f32, q[3] as f32);
        let expected = vec(&head["p"]) + q * offset;
        let gaze = |file: &std::path::Path| {
            places(file, None)
                .into_iter()
                .find(|x| x["name"] == "gaze_origin")
                .unwrap_or_else(|| panic!("{}: no gaze_origin", file.display()))
        };
        let original = gaze(&vrm);
        assert_eq!(original["kind"], "gaze_origin", "{name}");
        let got = vec(&original["position"]);
        assert!(got.distance(expected) < 1e-6, "{name}: {got} vs {expected}");

        let glb_out = dir.path().join(format!("{name}.glb"));
        humanoid_ok(&["convert", s(&vrm), s(&glb_out)]);
        let items = glb_parts(&glb_out).0["extensions"]["KHR_virtual_transform"]
            ["virtualTransforms"]
            .clone();
        assert_eq!(items.as_array().unwrap().len(), 1, "{name}: {items}");
        assert_eq!(items[0]["tags"], json!(["gaze_origin"]));
        let in_glb = gaze(&glb_out);
        assert!(
            vec(&in_glb["position"]).distance(expected) < 1e-6,
            "{name} GLB"
        );
        assert_eq!(in_glb["parent"], original["parent"]);

        let back = dir.path().join(format!("{name}_back.vrm"));
        humanoid_ok(&["convert", s(&glb_out), s(&back)]);
        let json_back = glb_parts(&back).0;
        assert!(json_back["extensions"]
            .get("KHR_virtual_transform")
            .is_none());
        let offset_back = if v0 {
            let o = &json_back["extensions"]["VRM"]["firstPerson"]["firstPersonBoneOffset"];
            assert_eq!(
                o,
                &json["extensions"]["VRM"]["firstPerson"]["firstPersonBoneOffset"]
            );
            Vec3::new(
                o["x"].as_f64().unwrap() as f32,
                o["y"].as_f64().unwrap() as f32,
                -o["z"].as_f64().unwrap() as f32,
            )
        } else {
            vec(&json_back["extensions"]["VRMC_vrm"]["lookAt"]["offsetFromHeadBone"])
        };
        assert!(offset_back.distance(offset) < 1e-6, "{name}: {offset_back}");
        let again = gaze(&back);
        for field in ["position", "rotation", "scale"] {
            assert!(
                max_diff(&again[field], &original[field], field == "rotation") < 1e-6,
                "{name} {field}"
            );
        }
        for file in [&glb_out, &back] {
            let (errors, _, messages) = khronos_validate(file);
            assert_eq!(errors, 0, "{}: {messages:#?}", file.display());
        }
    }
}
