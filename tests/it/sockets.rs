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
