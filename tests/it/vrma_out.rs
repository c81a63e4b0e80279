//! `.vrma` outputs: the rest is the VRM T-pose facing +Z with the hips at their height, the
//! motion is the input's, one clip (the one asked for, or the first that moves), and
//! `validate` rejects what a player cannot play. The VRMA is read back with the `gltf` crate
//! and composed here; the BVH input is evaluated here from the numbers that wrote it.

use std::path::Path;

use glam::{DQuat, DVec3};
use serde_json::Value;

use crate::util::{glb, glb_parts, humanoid, humanoid_ok, s, temp_dir, write};

/// (name, parent, offset in cm): a Biovision-named rig (the biovision-bvh table maps it) resting
/// with its arms hanging down and its root at the origin, as mocap files do; the legs straight
/// down, the lowest End Site 95 cm below the hips. Two joints the table does not map stand
/// between mapped ones, as in CMU files: `UpperNeck` (neck → head) and `LHipJoint` (hips → left
/// thigh); their rotations move the head and the left thigh in their mapped parent's frame.
const RIG: &[(&str, Option<usize>, [f64; 3])] = &[
    ("Hips", None, [0.0, 0.0, 0.0]),
    ("Chest", Some(0), [0.0, 10.0, 0.0]),
    ("Chest2", Some(1), [0.0, 16.0, 0.0]),
    ("Neck", Some(2), [0.0, 17.0, 0.0]),
    ("UpperNeck", Some(3), [0.0, 5.0, 0.0]),
    ("Head", Some(4), [0.0, 5.0, 0.0]),
    ("LeftCollar", Some(2), [0.0, 15.0, 0.0]),
    ("LeftShoulder", Some(6), [16.0, -2.0, 0.0]),
    ("LeftElbow", Some(7), [0.0, -25.0, 0.0]),
    ("LeftWrist", Some(8), [0.0, -22.0, 0.0]),
    ("RightCollar", Some(2), [0.0, 15.0, 0.0]),
    ("RightShoulder", Some(10), [-16.0, -2.0, 0.0]),
    ("RightElbow", Some(11), [0.0, -25.0, 0.0]),
    ("RightWrist", Some(12), [0.0, -22.0, 0.0]),
    ("LHipJoint", Some(0), [0.0, -5.0, 0.0]),
    ("LeftHip", Some(14), [9.0, 0.0, 0.0]),
    ("LeftKnee", Some(15), [0.0, -42.0, 0.0]),
    ("LeftAnkle", Some(16), [0.0, -40.0, 0.0]),
    ("RightHip", Some(0), [-9.0, -5.0, 0.0]),
    ("RightKnee", Some(18), [0.0, -42.0, 0.0]),
    ("RightAnkle", Some(19), [0.0, -40.0, 0.0]),
];

/// The humanoid bone the biovision-bvh table maps each mapped joint of [`RIG`] to.
const MAPPED: &[(&str, &str)] = &[
    ("hips", "Hips"),
    ("spine", "Chest"),
    ("chest", "Chest2"),
    ("neck", "Neck"),
    ("head", "Head"),
    ("leftShoulder", "LeftCollar"),
    ("leftUpperArm", "LeftShoulder"),
    ("leftLowerArm", "LeftElbow"),
    ("leftHand", "LeftWrist"),
    ("rightShoulder", "RightCollar"),
    ("rightUpperArm", "RightShoulder"),
    ("rightLowerArm", "RightElbow"),
    ("rightHand", "RightWrist"),
    ("leftUpperLeg", "LeftHip"),
    ("leftLowerLeg", "LeftKnee"),
    ("leftFoot", "LeftAnkle"),
    ("rightUpperLeg", "RightHip"),
    ("rightLowerLeg", "RightKnee"),
    ("rightFoot", "RightAnkle"),
];

/// Each End Site's offset (cm) below its joint: hands 8 cm down, feet 8 down and 10 forward,
/// the head 12 up.
fn end_site(name: &str) -> Option<[f64; 3]> {
    match name {
        "Head" => Some([0.0, 12.0, 0.0]),
        "LeftWrist" | "RightWrist" => Some([0.0, -8.0, 0.0]),
        "LeftAnkle" | "RightAnkle" => Some([0.0, -8.0, 10.0]),
        _ => None,
    }
}

const FRAMES: usize = 8;
const FRAME_TIME: f64 = 0.1;

/// Frame `f`'s root position (cm) and each joint's Z, X, Y rotation (degrees).
fn frame(f: usize) -> ([f64; 3], Vec<[f64; 3]>) {
    let root = [0.0, 95.0 - f as f64 * 0.5, 3.0 * f as f64];
    let angles = (0..RIG.len())
        .map(|j| {
            let a = (f as f64 * 0.5 + j as f64).sin();
            [20.0 * a, 15.0 * (a * 1.3).cos(), 10.0 * a]
        })
        .collect();
    (root, angles)
}

fn rig_bvh() -> String {
    rig_bvh_turned(0.0, [0.0; 3])
}

/// [`RIG`] with every OFFSET (and End Site) turned by `yaw` degrees about +Y, the root's OFFSET
/// `root` (cm; its position channels replace it in every frame): a rig that rests turned from
/// its axes, as Soldier's mid-stride node rest stands 30° from its −Z facing.
fn rig_bvh_turned(yaw: f64, root: [f64; 3]) -> String {
    fn block(i: usize, turn: DQuat, root: [f64; 3], out: &mut String) {
        let turned = |v: [f64; 3]| (turn * DVec3::from_array(v)).to_array();
        let (name, parent, offset) = RIG[i];
        let [x, y, z] = if parent.is_none() {
            root
        } else {
            turned(offset)
        };
        let keyword = if parent.is_none() { "ROOT" } else { "JOINT" };
        out.push_str(&format!("{keyword} {name}\n{{\nOFFSET {x} {y} {z}\n"));
        out.push_str(if parent.is_none() {
            "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
        } else {
            "CHANNELS 3 Zrotation Xrotation Yrotation\n"
        });
        if let Some(site) = end_site(name) {
            let [x, y, z] = turned(site);
            out.push_str(&format!("End Site\n{{\nOFFSET {x} {y} {z}\n}}\n"));
        }
        for c in (0..RIG.len()).filter(|&c| RIG[c].1 == Some(i)) {
            block(c, turn, root, out);
        }
        out.push_str("}\n");
    }
    let mut text = String::from("HIERARCHY\n");
    block(0, DQuat::from_rotation_y(yaw.to_radians()), root, &mut text);
    text.push_str(&format!(
        "MOTION\nFrames: {FRAMES}\nFrame Time: {FRAME_TIME}\n"
    ));
    for f in 0..FRAMES {
        let (root, angles) = frame(f);
        let mut row: Vec<String> = root.iter().map(|v| v.to_string()).collect();
        for a in angles {
            row.extend(a.iter().map(|v| v.to_string()));
        }
        text.push_str(&row.join(" "));
        text.push('\n');
    }
    text
}

/// World positions (metres) of the rig's joints at frame `f`, by forward kinematics here:
/// `R = Rz · Rx · Ry`, `p = p_parent + R_parent · offset`.
fn rig_fk(f: usize) -> Vec<DVec3> {
    rig_fk_turned(f, 0.0)
}

/// As [`rig_fk`], for [`rig_bvh_turned`] by `yaw` degrees.
fn rig_fk_turned(f: usize, yaw: f64) -> Vec<DVec3> {
    let turn = DQuat::from_rotation_y(yaw.to_radians());
    let (root, angles) = frame(f);
    let mut rotations: Vec<DQuat> = Vec::new();
    let mut positions: Vec<DVec3> = Vec::new();
    for (j, (_, parent, offset)) in RIG.iter().enumerate() {
        let [z, x, y] = angles[j].map(f64::to_radians);
        let local =
            DQuat::from_rotation_z(z) * DQuat::from_rotation_x(x) * DQuat::from_rotation_y(y);
        let offset = match parent {
            None => DVec3::from_array(root),
            Some(_) => turn * DVec3::from_array(*offset),
        } * 0.01;
        let (r, p) = match parent {
            Some(p) => (rotations[*p], positions[*p]),
            None => (DQuat::IDENTITY, DVec3::ZERO),
        };
        positions.push(p + r * offset);
        rotations.push(r * local);
    }
    positions
}

/// A VRMA read with the `gltf` crate: each humanoid bone's node, the nodes' parents and rest
/// TRS, and the first animation's keys per node.
struct Vrma {
    bones: serde_json::Map<String, Value>,
    parents: Vec<Option<usize>>,
    rest: Vec<(DVec3, DQuat)>,
    /// node → (key times, rotations (x, y, z, w)) and node → translations.
    rotations: std::collections::HashMap<usize, (Vec<f32>, Vec<[f32; 4]>)>,
    translations: std::collections::HashMap<usize, (Vec<f32>, Vec<[f32; 3]>)>,
    animations: Vec<String>,
}

fn read_vrma(path: &Path) -> Vrma {
    let bytes = std::fs::read(path).unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("the gltf crate reads the VRMA");
    let blob = g.blob.clone().unwrap_or_default();
    let mut parents = vec![None; g.nodes().len()];
    let mut rest = Vec::new();
    for node in g.nodes() {
        for child in node.children() {
            parents[child.index()] = Some(node.index());
        }
        let (t, r, _) = node.transform().decomposed();
        rest.push((
            DVec3::from_array(t.map(f64::from)),
            DQuat::from_array(r.map(f64::from)),
        ));
    }
    let mut rotations = std::collections::HashMap::new();
    let mut translations = std::collections::HashMap::new();
    let animations: Vec<String> = g
        .animations()
        .map(|a| a.name().unwrap_or("").to_owned())
        .collect();
    if let Some(animation) = g.animations().next() {
        for channel in animation.channels() {
            let reader = channel.reader(|_| Some(&blob));
            let times: Vec<f32> = reader.read_inputs().unwrap().collect();
            let node = channel.target().node().index();
            match reader.read_outputs().unwrap() {
                gltf::animation::util::ReadOutputs::Rotations(r) => {
                    rotations.insert(node, (times, r.into_f32().collect()));
                }
                gltf::animation::util::ReadOutputs::Translations(t) => {
                    translations.insert(node, (times, t.collect()));
                }
                _ => {}
            }
        }
    }
    let (json, _) = glb_parts(path);
    let bones = json["extensions"]["VRMC_vrm_animation"]["humanoid"]["humanBones"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    Vrma {
        bones,
        parents,
        rest,
        rotations,
        translations,
        animations,
    }
}

impl Vrma {
    fn node(&self, bone: &str) -> usize {
        self.bones[bone]["node"].as_u64().unwrap() as usize
    }

    /// World positions of every node at key `k` (`None`: the rest).
    fn world(&self, k: Option<usize>) -> Vec<DVec3> {
        let mut world: Vec<Option<(DVec3, DQuat)>> = vec![None; self.rest.len()];
        fn at(
            v: &Vrma,
            n: usize,
            k: Option<usize>,
            world: &mut Vec<Option<(DVec3, DQuat)>>,
        ) -> (DVec3, DQuat) {
            if let Some(w) = world[n] {
                return w;
            }
            let (mut t, mut r) = v.rest[n];
            if let Some(k) = k {
                if let Some((_, q)) = v.rotations.get(&n) {
                    r = DQuat::from_array(q[k].map(f64::from));
                }
                if let Some((_, p)) = v.translations.get(&n) {
                    t = DVec3::from_array(p[k].map(f64::from));
                }
            }
            let w = match v.parents[n] {
                Some(p) => {
                    let (pp, pr) = at(v, p, k, world);
                    (pp + pr * t, pr * r)
                }
                None => (t, r),
            };
            world[n] = Some(w);
            w
        }
        (0..self.rest.len())
            .map(|n| at(self, n, k, &mut world).0)
            .collect()
    }
}

#[test]
fn bvh_to_vrma_rests_in_the_t_pose_facing_plus_z_with_the_hips_at_their_height() {
    let dir = temp_dir();
    let input = write(dir.path(), "arms_down.bvh", rig_bvh().as_bytes());
    let out = dir.path().join("arms_down.vrma");
    let run = humanoid_ok(&["convert", s(&input), s(&out)]);
    assert!(run.stdout.contains("VRMA_REBASED"), "{}", run.stdout);
    let vrma = read_vrma(&out);
    let rest = vrma.world(None);
    let at = |bone: &str| rest[vrma.node(bone)];
    // The hips stand 95 cm above the lowest joint (the feet's End Sites), which the T-pose puts
    // on the ground; they used to rest at y = 0.
    let hips = at("hips");
    assert!((hips.y - 0.95).abs() < 1e-4, "rest hips height {}", hips.y);
    // Arms along ±X (the character's left on +X: facing +Z), at the shoulders' height; they
    // used to hang down (hands 47 cm below the shoulders).
    let close = |a: DVec3, b: DVec3, what: &str| {
        assert!(a.distance(b) < 1e-4, "{what}: {a} vs {b}");
    };
    close(
        at("leftHand") - at("leftUpperArm"),
        DVec3::new(0.47, 0.0, 0.0),
        "left arm",
    );
    close(
        at("rightHand") - at("rightUpperArm"),
        DVec3::new(-0.47, 0.0, 0.0),
        "right arm",
    );
    close(
        at("leftFoot") - at("leftUpperLeg"),
        DVec3::new(0.0, -0.82, 0.0),
        "left leg",
    );
    for (n, (_, r)) in vrma.rest.iter().enumerate() {
        assert!(
            r.angle_between(DQuat::IDENTITY) < 1e-6,
            "node {n}: rest rotation {r}"
        );
    }
    // One clip, every frame: each limb segment points where the BVH's points (world deltas from
    // the T-pose keep segment directions), and the hips travel as the BVH's root does.
    assert_eq!(vrma.animations.len(), 1);
    let hips_keys = &vrma.translations[&vrma.node("hips")];
    assert_eq!(hips_keys.0.len(), FRAMES, "a key per frame");
    let joint = |name: &str| RIG.iter().position(|j| j.0 == name).unwrap();
    let segments = [
        ("leftUpperArm", "leftLowerArm", "LeftShoulder", "LeftElbow"),
        ("leftLowerArm", "leftHand", "LeftElbow", "LeftWrist"),
        (
            "rightUpperArm",
            "rightLowerArm",
            "RightShoulder",
            "RightElbow",
        ),
        ("rightLowerArm", "rightHand", "RightElbow", "RightWrist"),
        ("leftUpperLeg", "leftLowerLeg", "LeftHip", "LeftKnee"),
        ("leftLowerLeg", "leftFoot", "LeftKnee", "LeftAnkle"),
        ("rightUpperLeg", "rightLowerLeg", "RightHip", "RightKnee"),
        ("spine", "chest", "Chest", "Chest2"),
    ];
    let start = (rig_fk(0)[0], vrma.world(Some(0))[vrma.node("hips")]);
    for (k, &t) in hips_keys.0.iter().enumerate() {
        assert!(
            (f64::from(t) - k as f64 * FRAME_TIME).abs() < 1e-5,
            "key {k} at {t}"
        );
        let (theirs, ours) = (rig_fk(k), vrma.world(Some(k)));
        for (a, b, ja, jb) in segments {
            let d = (ours[vrma.node(b)] - ours[vrma.node(a)]).normalize();
            let e = (theirs[joint(jb)] - theirs[joint(ja)]).normalize();
            assert!(d.distance(e) < 1e-4, "frame {k}, {a}->{b}: {d} vs {e}");
        }
        let moved = ours[vrma.node("hips")] - start.1;
        let expected = theirs[0] - start.0;
        assert!(
            (moved.x - expected.x).abs() < 1e-4 && (moved.z - expected.z).abs() < 1e-4,
            "frame {k}: hips moved {moved} vs {expected}"
        );
    }
    let check = humanoid(&["validate", s(&out)]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}

/// The VRMA of a rig is that rig rebased on its T-pose: at every frame every mapped bone stands
/// where the BVH's own forward kinematics (computed here) puts it, after the facing turn (the
/// rig's axes to the nearest quarter turn: none for a rest that stands 30° off, a half turn for
/// one 160° off), 1e-4 m; the hips track is the root's path, unscaled; the rest is the T-pose
/// facing +Z with the hips where the BVH rests them (turned), raised to their height. The
/// unmapped `UpperNeck` and `LHipJoint` move the head and the left thigh in their mapped
/// parent's frame: non-humanoid offset nodes carry that (players ignore their tracks).
#[test]
fn bvh_to_vrma_keeps_every_mapped_bone_where_the_bvh_puts_it() {
    let dir = temp_dir();
    let root = [10.0, 0.0, 5.0];
    for (yaw, half_turn) in [(0.0, false), (30.0, false), (160.0, true)] {
        let input = write(
            dir.path(),
            "turned.bvh",
            rig_bvh_turned(yaw, root).as_bytes(),
        );
        let out = dir.path().join("turned.vrma");
        let run = humanoid_ok(&["convert", s(&input), s(&out), "--force"]);
        let facing = |v: DVec3| {
            if half_turn {
                DVec3::new(-v.x, v.y, -v.z)
            } else {
                v
            }
        };
        let vrma = read_vrma(&out);
        let what = format!("rig turned {yaw}°");
        let rest = vrma.world(None);
        let at = |bone: &str| rest[vrma.node(bone)];
        let hips = at("hips");
        let rest_hips = facing(DVec3::from_array(root) * 0.01);
        assert!(
            (hips.x - rest_hips.x).abs() < 1e-4
                && (hips.z - rest_hips.z).abs() < 1e-4
                && (hips.y - 0.95).abs() < 1e-4,
            "{what}: rest hips {hips}, the BVH rests them at {rest_hips} (raised to 0.95 m)"
        );
        let arm = at("leftHand") - at("leftUpperArm");
        assert!(
            arm.distance(DVec3::new(0.47, 0.0, 0.0)) < 1e-4,
            "{what}: the T-pose's left arm {arm}"
        );
        let joint = |name: &str| RIG.iter().position(|j| j.0 == name).unwrap();
        let hips_keys = &vrma.translations[&vrma.node("hips")];
        assert_eq!(hips_keys.0.len(), FRAMES, "{what}: a hips key per frame");
        for k in 0..FRAMES {
            let (theirs, ours) = (rig_fk_turned(k, yaw), vrma.world(Some(k)));
            for (bone, name) in MAPPED {
                let (a, b) = (ours[vrma.node(bone)], facing(theirs[joint(name)]));
                assert!(
                    a.distance(b) < 1e-4,
                    "{what}, frame {k}: {bone} at {a}, the BVH puts it at {b}"
                );
            }
            let key = DVec3::from_array(hips_keys.1[k].map(f64::from));
            assert!(
                key.distance(facing(theirs[0])) < 1e-4,
                "{what}, frame {k}: hips key {key}, root at {}",
                facing(theirs[0])
            );
        }
        // Said, naming the two joints that hang from offset nodes.
        let said = run
            .stdout
            .lines()
            .find(|l| l.contains("VRMA_OFFSET_NODES"))
            .unwrap_or_else(|| panic!("{what}: no VRMA_OFFSET_NODES: {}", run.stdout));
        assert!(said.contains("Head") && said.contains("LeftHip"), "{said}");
        let check = humanoid(&["validate", s(&out)]);
        assert_eq!(check.code, 0, "{what}: {}{}", check.stdout, check.stderr);
    }
}

/// A VRMA humanoid holds no eyes (VRMC_vrm_animation lists 53 bones, no leftEye/rightEye): the
/// mannequin's mapped eyes are not written, and the conversion says so by name.
#[test]
fn vrma_output_names_the_eyes_it_cannot_hold() {
    let dir = temp_dir();
    let mannequin = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/mannequin.glb");
    let out = dir.path().join("eyes.vrma");
    let run = humanoid_ok(&["convert", s(&mannequin), s(&out), "--json"]);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let eyes = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "VRMA_EYES_DROPPED")
        .unwrap_or_else(|| panic!("no VRMA_EYES_DROPPED: {}", run.stdout));
    let message = eyes["message"].as_str().unwrap();
    assert!(
        message.contains("leftEye") && message.contains("rightEye"),
        "{message}"
    );
    let vrma = read_vrma(&out);
    assert!(!vrma.bones.contains_key("leftEye") && !vrma.bones.contains_key("rightEye"));
}

/// One clip per `.vrma` (and `.bvh`): `--clip` picks it, an unknown name lists the clips, and
/// without it the first that moves is taken and named; outputs that keep every clip refuse it.
#[test]
fn convert_to_a_single_clip_output_honours_clip() {
    let dir = temp_dir();
    let mannequin = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/mannequin.glb");
    let wave = dir.path().join("wave.vrma");
    humanoid_ok(&["convert", s(&mannequin), s(&wave), "--clip", "wave"]);
    assert_eq!(read_vrma(&wave).animations, ["wave"]);
    let first = dir.path().join("first.vrma");
    let run = humanoid_ok(&["convert", s(&mannequin), s(&first)]);
    assert!(
        run.stdout.contains("CLIP_CHOSEN") && run.stdout.contains("\"walk\" taken"),
        "{}",
        run.stdout
    );
    assert_eq!(read_vrma(&first).animations, ["walk"]);
    for out in ["nope.vrma", "nope.bvh", "nope.x3d"] {
        let out = dir.path().join(out);
        let run = humanoid(&["convert", s(&mannequin), s(&out), "--clip", "nope"]);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(run.stderr.contains("walk, wave"), "{}", run.stderr);
        assert!(!out.exists());
    }
    let bvh = dir.path().join("wave.bvh");
    humanoid_ok(&["convert", s(&mannequin), s(&bvh), "--clip", "wave"]);
    let x3d = dir.path().join("wave.x3d");
    humanoid_ok(&["convert", s(&mannequin), s(&x3d), "--clip", "wave"]);
    let text = std::fs::read_to_string(&x3d).unwrap();
    assert_eq!(text.matches("<TimeSensor").count(), 1, "one clip kept");
    assert!(text.contains("DEF='wave'"));
    let glb = dir.path().join("all.glb");
    let run = humanoid(&["convert", s(&mannequin), s(&glb), "--clip", "wave"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("--clip"), "{}", run.stderr);
}

/// A hand-built VRMA (15 required bones, one animation) with its rest hips at `hips_y`, and a
/// hips translation track when `moves`.
fn hand_built_vrma(hips_y: f32, moves: bool) -> Vec<u8> {
    let names = [
        ("hips", None, [0.0, hips_y, 0.0]),
        ("spine", Some(0), [0.0, 0.1, 0.0]),
        ("head", Some(1), [0.0, 0.5, 0.0]),
        ("leftUpperArm", Some(1), [0.2, 0.4, 0.0]),
        ("leftLowerArm", Some(3), [0.25, 0.0, 0.0]),
        ("leftHand", Some(4), [0.25, 0.0, 0.0]),
        ("rightUpperArm", Some(1), [-0.2, 0.4, 0.0]),
        ("rightLowerArm", Some(6), [-0.25, 0.0, 0.0]),
        ("rightHand", Some(7), [-0.25, 0.0, 0.0]),
        ("leftUpperLeg", Some(0), [0.1, -0.05, 0.0]),
        ("leftLowerLeg", Some(9), [0.0, -0.4, 0.0]),
        ("leftFoot", Some(10), [0.0, -0.4, 0.0]),
        ("rightUpperLeg", Some(0), [-0.1, -0.05, 0.0]),
        ("rightLowerLeg", Some(12), [0.0, -0.4, 0.0]),
        ("rightFoot", Some(13), [0.0, -0.4, 0.0]),
    ];
    let nodes: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, (name, _, t))| {
            let children: Vec<usize> = (0..names.len())
                .filter(|&c| names[c].1 == Some(i))
                .collect();
            let mut node = serde_json::json!({"name": name, "translation": t});
            if !children.is_empty() {
                node["children"] = serde_json::json!(children);
            }
            node
        })
        .collect();
    let bones: serde_json::Map<String, Value> = names
        .iter()
        .enumerate()
        .map(|(i, (name, _, _))| ((*name).to_owned(), serde_json::json!({"node": i})))
        .collect();
    let mut bin: Vec<u8> = Vec::new();
    for v in [0.0f32, 1.0] {
        bin.extend(v.to_le_bytes());
    }
    let (target, path, values): (usize, &str, Vec<f32>) = if moves {
        (0, "translation", vec![0.0, hips_y, 0.0, 0.0, hips_y, 0.5])
    } else {
        (1, "rotation", vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.2, 0.98])
    };
    for v in &values {
        bin.extend(v.to_le_bytes());
    }
    let kind = if moves { "VEC3" } else { "VEC4" };
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["VRMC_vrm_animation"],
        "extensions": {"VRMC_vrm_animation": {"specVersion": "1.0", "humanoid": {"humanBones": bones}}},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 8},
            {"buffer": 0, "byteOffset": 8, "byteLength": values.len() * 4}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": kind}
        ],
        "animations": [{"name": "a", "samplers": [{"input": 0, "output": 1}],
            "channels": [{"sampler": 0, "target": {"node": target, "path": path}}]}]
    });
    glb(&json, &bin)
}

/// `validate` rejects a VRMA whose hips move over a rest at height ≤ 0 (three-vrm divides by
/// that height); one that only turns bones stays valid at any hips height.
#[test]
fn validate_rejects_a_hips_track_over_a_rest_at_height_zero() {
    let dir = temp_dir();
    for (hips_y, moves, valid) in [
        (0.0, true, false),
        (-0.1, true, false),
        (0.0, false, true),
        (0.9, true, true),
    ] {
        let file = write(dir.path(), "hand.vrma", &hand_built_vrma(hips_y, moves));
        let run = humanoid(&["validate", s(&file)]);
        let what = format!("hips at {hips_y}, moving {moves}");
        assert_eq!(run.code == 0, valid, "{what}: {}{}", run.stdout, run.stderr);
        assert_eq!(
            run.stdout.contains("VRMA_HIPS_HEIGHT"),
            !valid,
            "{what}: {}",
            run.stdout
        );
        // Still readable either way.
        humanoid_ok(&["inspect", s(&file)]);
    }
}

#[cfg(feature = "corpus")]
mod corpus {
    use std::collections::HashSet;
    use std::path::{Path, PathBuf};

    use serde_json::Value;

    use crate::util::{glb_parts, humanoid, humanoid_ok, s, shared, temp_dir, three_vrm};

    fn models() -> [(&'static str, PathBuf); 2] {
        let vrm = shared().join("corpus/vrm");
        [
            ("debug_robot (1.0)", vrm.join("debug_robot.vrm")),
            ("Godette (0.x)", vrm.join("Godette_vrm_v4.vrm")),
        ]
    }

    fn p(v: &Value) -> [f64; 3] {
        [0, 1, 2].map(|i| v[i].as_f64().unwrap())
    }

    fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
        (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt()
    }

    /// The bone and its parents up the canonical hierarchy (VRM's humanoid table).
    fn chain(bone: &str) -> Vec<String> {
        let mut out = vec![bone.to_owned()];
        let mut b: humanoid::model::HumanBone = bone.parse().unwrap();
        while let Some(parent) = b.parent() {
            out.push(parent.as_str().to_owned());
            b = parent;
        }
        out
    }

    /// What three-vrm makes of `vrma` on each model, against `pose MODEL --anim SOURCE` (our
    /// retarget of the source file) at the same times. Positions relative to the hips must
    /// agree (1e-3 m) for every bone three-vrm can play: it drops the tracks of bones the model
    /// lacks (both models lack upperChest), so bones below such a bone are only reported. The
    /// hips themselves are placed by two rules (three-vrm scales the VRMA's path by the
    /// hips-height ratio, our retarget of a measured rig by the legs, keeping planted feet on
    /// the ground), so their distance is reported, not compared. One more difference, by design:
    /// `retarget` turns a measured rig's motion by the turn its rest measures (the hip and
    /// shoulder sockets), the VRMA by the rig's axes (that turn to the nearest quarter turn), so
    /// that the VRMA keeps the input's world positions; where a rest stands off its axes (CMU 1°,
    /// Soldier's idle stance 31°), three-vrm's pose is ours turned by the difference about +Y,
    /// measured here from the source's rest ([`stance_yaw`]). Returns the figures per model.
    fn plays_as_retarget(vrma: &Path, source: &Path) -> Vec<String> {
        let stance = glam::DQuat::from_rotation_y(stance_yaw(source));
        let (json, _) = glb_parts(vrma);
        let vrma_bones: HashSet<String> = json["extensions"]["VRMC_vrm_animation"]["humanoid"]
            ["humanBones"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let mut figures = Vec::new();
        for (name, model) in models() {
            let played = three_vrm(&["--vrm", s(&model), "--vrma", s(vrma), "--uniform", "5"])
                .unwrap_or_else(|e| panic!("three-vrm cannot play {}: {e}", vrma.display()));
            let scale = played["vrma"]["hipsTranslationScale"].as_f64();
            assert!(
                scale.is_none_or(|s| s.is_finite() && s > 0.0),
                "{}: hips scale {scale:?}",
                vrma.display()
            );
            let samples = played["samples"].as_array().unwrap();
            let times: Vec<String> = samples.iter().map(|s| s["tClamped"].to_string()).collect();
            let ours: Value = serde_json::from_str(
                &humanoid_ok(&[
                    "pose",
                    "--json",
                    "--anim",
                    s(source),
                    "--times",
                    &times.join(","),
                    s(&model),
                ])
                .stdout,
            )
            .unwrap();
            let model_bones: HashSet<String> = samples[0]["bones"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            let dropped: HashSet<&String> = vrma_bones.difference(&model_bones).collect();
            let (mut strict, mut all, mut hips, mut hands) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
            for (theirs, ours) in samples.iter().zip(ours["samples"].as_array().unwrap()) {
                let (h3, ho) = (
                    p(&theirs["bones"]["hips"]["p"]),
                    p(&ours["bones"]["hips"]["p"]),
                );
                hips = hips.max(dist(h3, ho));
                for (bone, b) in theirs["bones"].as_object().unwrap() {
                    let Some(o) = ours["bones"].get(bone) else {
                        continue;
                    };
                    let (a, c) = (p(&b["p"]), p(&o["p"]));
                    let ours = stance * glam::DVec3::new(c[0] - ho[0], c[1] - ho[1], c[2] - ho[2]);
                    let rel = dist([a[0] - h3[0], a[1] - h3[1], a[2] - h3[2]], ours.to_array());
                    all = all.max(rel);
                    if bone.ends_with("Hand") {
                        hands = hands.max(rel);
                    }
                    if !chain(bone).iter().any(|c| dropped.contains(c)) {
                        strict = strict.max(rel);
                    }
                }
            }
            let line = format!(
                "{} on {name}: bones relative to the hips {strict:.1e} m (every bone {all:.1e} m, hands {hands:.1e} m; three-vrm drops {:?}), hips {hips:.3} m apart",
                vrma.file_name().unwrap().to_string_lossy(),
                dropped
            );
            println!("{line}");
            assert!(strict <= 1e-3, "{line}");
            figures.push(line);
        }
        figures
    }

    /// How far (radians, about +Y) the source's rest stands from its axes: the turn taking +X to
    /// the mean left-from-right direction of its upper legs and upper arms, less that turn to
    /// the nearest quarter turn (a declared T-pose stands on its axes: 0 there too).
    fn stance_yaw(source: &Path) -> f64 {
        let rest: Value =
            serde_json::from_str(&humanoid_ok(&["pose", "--json", s(source)]).stdout).unwrap();
        let (mut x, mut z) = (0.0, 0.0);
        for (l, r) in [
            ("leftUpperLeg", "rightUpperLeg"),
            ("leftUpperArm", "rightUpperArm"),
        ] {
            let (a, b) = (p(&rest["rest"][l]["p"]), p(&rest["rest"][r]["p"]));
            let (dx, dz) = (a[0] - b[0], a[2] - b[2]);
            let n = dx.hypot(dz);
            x += dx / n;
            z += dz / n;
        }
        let yaw = (-z).atan2(x);
        let quarter = std::f64::consts::FRAC_PI_2;
        yaw - (yaw / quarter).round() * quarter
    }

    /// Every corpus animation (and the mannequin) → `.vrma`: exit 0, `validate` clean, three-vrm
    /// plays it on a VRM 1.0 and a VRM 0.x model as our retarget of the source does; Fox (no
    /// humanoid) is refused with the flag to use.
    #[test]
    fn every_animation_converts_to_a_vrma_that_three_vrm_plays() {
        let dir = temp_dir();
        let corpus = shared().join("corpus");
        let mut inputs: Vec<PathBuf> = [
            "cmu_131_01_3dsmax.bvh",
            "mixamo_freebvh.bvh",
            "mocapbank_walk.bvh",
        ]
        .iter()
        .map(|f| corpus.join("bvh").join(f))
        .collect();
        for f in [
            "Soldier.glb",
            "CesiumMan.glb",
            "RiggedFigure.glb",
            "Xbot_blender_reexport.glb",
            "mannequiny.glb",
        ] {
            inputs.push(corpus.join("gltf").join(f));
        }
        for f in [
            "JoeKick.x3d",
            "nancy_h-anim.wrl",
            "KoreanCharacterMotionAnnexD01Jin.x3d",
            "CesiumMan_fromGLTF_xite.x3d",
        ] {
            inputs.push(corpus.join("hanim").join(f));
        }
        inputs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/mannequin.glb"));
        let mut report = Vec::new();
        for input in &inputs {
            let stem = input.file_stem().unwrap().to_string_lossy();
            let out = dir.path().join(format!("{stem}.vrma"));
            humanoid_ok(&["convert", s(input), s(&out)]);
            let check = humanoid(&["validate", s(&out)]);
            assert_eq!(check.code, 0, "{stem}: {}{}", check.stdout, check.stderr);
            report.extend(plays_as_retarget(&out, input));
        }
        let fox = corpus.join("gltf/Fox.glb");
        let out = dir.path().join("fox.vrma");
        let run = humanoid(&["convert", s(&fox), s(&out)]);
        assert_eq!(run.code, 1, "{}", run.stdout);
        assert!(run.stderr.contains("--map"), "{}", run.stderr);
        assert!(!out.exists());
        // RobotExpressive: a VRMA when its hands and feet are mapped, else refused naming --map.
        let robot = corpus.join("gltf/RobotExpressive.glb");
        let out = dir.path().join("robot.vrma");
        let run = humanoid(&["convert", s(&robot), s(&out)]);
        if run.code == 0 {
            report.extend(plays_as_retarget(&out, &robot));
        } else {
            assert!(run.stderr.contains("--map"), "{}", run.stderr);
        }
        println!("{}", report.join("\n"));
    }

    /// `retarget … --onto` a VRM 0.x model `-o x.vrma`: the model's motion, turned to face +Z as
    /// the migration turns it; three-vrm plays it on that model as our retarget poses it, and
    /// on a VRM 1.0 model as we read the VRMA.
    #[test]
    fn retarget_onto_a_vrm0_model_writes_a_vrma_facing_plus_z() {
        let dir = temp_dir();
        let mannequin = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/mannequin.glb");
        let [(_, robot), (_, godette)] = models();
        let out = dir.path().join("godette_walk.vrma");
        humanoid_ok(&[
            "retarget",
            s(&mannequin),
            "--onto",
            s(&godette),
            "-o",
            s(&out),
        ]);
        let check = humanoid(&["validate", s(&out)]);
        assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
        for (model, anim) in [(&godette, &mannequin), (&robot, &out)] {
            let played = three_vrm(&["--vrm", s(model), "--vrma", s(&out), "--uniform", "5"])
                .unwrap_or_else(|e| panic!("three-vrm: {e}"));
            let samples = played["samples"].as_array().unwrap();
            let times: Vec<String> = samples.iter().map(|s| s["tClamped"].to_string()).collect();
            let ours: Value = serde_json::from_str(
                &humanoid_ok(&[
                    "pose",
                    "--json",
                    "--anim",
                    s(anim),
                    "--times",
                    &times.join(","),
                    s(model),
                ])
                .stdout,
            )
            .unwrap();
            let mut worst = 0.0f64;
            for (theirs, ours) in samples.iter().zip(ours["samples"].as_array().unwrap()) {
                for (bone, b) in theirs["bones"].as_object().unwrap() {
                    worst = worst.max(dist(p(&b["p"]), p(&ours["bones"][bone]["p"])));
                }
            }
            println!(
                "retarget mannequin --onto Godette -o x.vrma, played by three-vrm on {}: {worst:.1e} m from pose --anim {}",
                model.file_name().unwrap().to_string_lossy(),
                anim.file_name().unwrap().to_string_lossy()
            );
            assert!(worst <= 1e-4, "{worst} m");
        }
    }

    /// Without `--clip`, commands take the first clip that moves: nancy's first clip is a 0.01 s
    /// "Stand" pose, its second a walk. `pose` samples the walk, `preview` animates it (the
    /// GIF's frames counted here by their graphic control extensions).
    #[test]
    fn nancy_defaults_to_the_first_clip_that_moves() {
        let dir = temp_dir();
        let nancy = shared().join("corpus/hanim/nancy_h-anim.wrl");
        let pose: Value = serde_json::from_str(
            &humanoid_ok(&["pose", "--json", "--uniform", "3", s(&nancy)]).stdout,
        )
        .unwrap();
        assert_eq!(pose["anim"]["clip"], "Walk_Time", "{}", pose["anim"]);
        let gif = dir.path().join("nancy.gif");
        let run = humanoid_ok(&["preview", s(&nancy), "-o", s(&gif), "--skeleton-only"]);
        assert!(
            run.stdout.contains("Walk_Time"),
            "says which: {}",
            run.stdout
        );
        let bytes = std::fs::read(&gif).unwrap();
        let frames = bytes
            .windows(3)
            .filter(|w| w == &[0x21, 0xF9, 0x04])
            .count();
        assert!(frames > 1, "{frames} frame(s)");
    }
}
