//! Contact-aware retargeting (`retarget --contacts auto`, the default), measured apart from the
//! product: outputs written as BVH are read by a BVH forward kinematics written here, and the
//! source's plants are found by a detector written here (the research protocol: within 6 % of
//! the leg length of the joint's lowest height, slower than 17 % of the leg length per second,
//! at least 3 frames), not by the product's.
//!
//! The source is the mannequin's walk made a real walk: its in-place cycle, three times over,
//! with the hips carried forward by what the lower foot slides back, so that each stance foot
//! stays put (a walk whose plants are exact). The bodies: the mannequin, and the mannequin
//! with its legs at half length (a long torso on short legs).

use std::path::{Path, PathBuf};

use glam::{DQuat, DVec3, Vec3};
use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
use humanoid::model::HumanBone;
use humanoid::pose::fk::Sampler;
use humanoid::pose::sample::Interpolation;

use crate::util::{demo, glb, glb_parts, humanoid_ok, s, temp_dir};

/// A BVH read here: joint names, parents, offsets, channels, and per-frame world positions.
struct Bvh {
    names: Vec<String>,
    frame_time: f64,
    /// Per frame, per joint: world position (metres, from centimetres).
    world: Vec<Vec<DVec3>>,
}

impl Bvh {
    fn joint(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no joint {name} in {:?}", self.names))
    }
}

/// Reads a BVH and poses it (plain BVH semantics: position channels replace the offset,
/// rotations intrinsic in channel order). Also returns the rest (the offsets alone) as frame 0
/// of `rest`.
fn read_bvh(path: &Path, scale: f64) -> (Bvh, Vec<DVec3>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut words = text.split_whitespace().peekable();
    let (mut names, mut parents, mut offsets, mut channels) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::<Vec<String>>::new(),
    );
    let mut stack: Vec<Option<usize>> = Vec::new();
    let mut current: Option<usize> = None;
    let mut in_end = false;
    while let Some(word) = words.next() {
        match word {
            "ROOT" | "JOINT" => {
                let name = words.next().unwrap().to_owned();
                names.push(name);
                parents.push(current);
                offsets.push(DVec3::ZERO);
                channels.push(Vec::new());
                current = Some(names.len() - 1);
                in_end = false;
            }
            "End" => {
                words.next();
                in_end = true;
            }
            "{" => stack.push(if in_end { None } else { current }),
            "}" => match stack.pop().flatten() {
                Some(closed) => current = parents[closed],
                None => in_end = false,
            },
            "OFFSET" => {
                let v: Vec<f64> = (0..3)
                    .map(|_| words.next().unwrap().parse().unwrap())
                    .collect();
                if !in_end {
                    offsets[current.unwrap()] = DVec3::new(v[0], v[1], v[2]) * scale;
                }
            }
            "CHANNELS" => {
                let n: usize = words.next().unwrap().parse().unwrap();
                channels[current.unwrap()] =
                    (0..n).map(|_| words.next().unwrap().to_owned()).collect();
            }
            "MOTION" => break,
            _ => {}
        }
    }
    assert_eq!(words.next(), Some("Frames:"));
    let frames: usize = words.next().unwrap().parse().unwrap();
    assert_eq!(words.next(), Some("Frame"));
    assert_eq!(words.next(), Some("Time:"));
    let frame_time: f64 = words.next().unwrap().parse().unwrap();
    let pose = |values: &mut dyn Iterator<Item = f64>| -> Vec<DVec3> {
        let mut worlds: Vec<(DVec3, DQuat)> = Vec::with_capacity(names.len());
        for j in 0..names.len() {
            let mut t = offsets[j];
            let mut r = DQuat::IDENTITY;
            for c in &channels[j] {
                let v = values.next().unwrap();
                match c.as_str() {
                    "Xposition" => t.x = v * scale,
                    "Yposition" => t.y = v * scale,
                    "Zposition" => t.z = v * scale,
                    "Xrotation" => r *= DQuat::from_rotation_x(v.to_radians()),
                    "Yrotation" => r *= DQuat::from_rotation_y(v.to_radians()),
                    "Zrotation" => r *= DQuat::from_rotation_z(v.to_radians()),
                    other => panic!("channel {other}"),
                }
            }
            worlds.push(match parents[j] {
                Some(p) => (worlds[p].0 + worlds[p].1 * t, worlds[p].1 * r),
                None => (t, r),
            });
        }
        worlds.into_iter().map(|(p, _)| p).collect()
    };
    let world: Vec<Vec<DVec3>> = (0..frames)
        .map(|_| {
            let mut values = (0..channels.iter().map(Vec::len).sum::<usize>())
                .map(|_| words.next().unwrap().parse::<f64>().unwrap());
            pose(&mut values)
        })
        .collect();
    let rest = pose(&mut std::iter::repeat(0.0));
    (
        Bvh {
            names,
            frame_time,
            world,
        },
        rest,
    )
}

/// The plants of one joint's path (this test's detector).
fn plants(path: &[DVec3], frame_time: f64, leg: f64) -> Vec<(usize, usize)> {
    let low = path.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    let planted: Vec<bool> = (0..path.len())
        .map(|i| {
            i > 0 && {
                let (a, b) = (path[i - 1], path[i]);
                let v = DVec3::new(b.x - a.x, 0.0, b.z - a.z).length() / frame_time;
                b.y - low < 0.06 * leg && v < 0.17 * leg
            }
        })
        .collect();
    let mut runs = Vec::new();
    let mut start = None;
    for (i, on) in planted.iter().chain([&false]).enumerate() {
        match (on, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if i - s >= 3 {
                    runs.push((s, i - 1));
                }
                start = None;
            }
            _ => {}
        }
    }
    runs
}

fn horizontal(a: DVec3, b: DVec3) -> f64 {
    DVec3::new(a.x - b.x, 0.0, a.z - b.z).length()
}

fn leg(world: &[DVec3], bvh: &Bvh, side: &str) -> f64 {
    let (u, l, f) = (
        bvh.joint(&format!("{side}UpperLeg")),
        bvh.joint(&format!("{side}LowerLeg")),
        bvh.joint(&format!("{side}Foot")),
    );
    world[u].distance(world[l]) + world[l].distance(world[f])
}

/// Per plant of the source: the target's drift beyond the source's own (scaled by the legs),
/// in mm; and the deepest any foot or toe joint of the target goes below its rest height.
struct Measured {
    beyond: Vec<f64>,
    below_floor_mm: f64,
}

fn measure(source: &(Bvh, Vec<DVec3>), target: &(Bvh, Vec<DVec3>)) -> Measured {
    let (src, src_rest) = source;
    let (tgt, tgt_rest) = target;
    let src_leg = (leg(src_rest, src, "left") + leg(src_rest, src, "right")) / 2.0;
    let tgt_leg = (leg(tgt_rest, tgt, "left") + leg(tgt_rest, tgt, "right")) / 2.0;
    let ratio = tgt_leg / src_leg;
    assert_eq!(src.world.len(), tgt.world.len(), "frames");
    let mut beyond = Vec::new();
    let mut below = 0.0f64;
    for joint in ["leftFoot", "rightFoot", "leftToes", "rightToes"] {
        let (sj, tj) = (src.joint(joint), tgt.joint(joint));
        let path: Vec<DVec3> = src.world.iter().map(|f| f[sj]).collect();
        let target_path: Vec<DVec3> = tgt.world.iter().map(|f| f[tj]).collect();
        for (a, b) in plants(&path, src.frame_time, src_leg) {
            let own = (a..=b)
                .map(|i| horizontal(path[i], path[a]))
                .fold(0.0, f64::max)
                * ratio;
            let drift = (a..=b)
                .map(|i| horizontal(target_path[i], target_path[a]))
                .fold(0.0, f64::max);
            beyond.push(((drift - own) * 1000.0).max(0.0));
            if drift - own > 0.003 {
                eprintln!(
                    "  {joint} frames {a}..={b}: drift {:.1} mm, the source's {:.1} mm",
                    drift * 1000.0,
                    own * 1000.0
                );
            }
        }
        let floor = tgt_rest[tj].y;
        for p in &target_path {
            below = below.max((floor - p.y) * 1000.0);
        }
    }
    Measured {
        beyond,
        below_floor_mm: below,
    }
}

fn percentile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(((q * v.len() as f64).ceil() as usize).saturating_sub(1))
        .copied()
        .unwrap_or(0.0)
}

/// The mannequin's in-place walk made a walk: three cycles, the hips carried forward by what
/// the lower foot slides back. Written as BVH (centimetres) by the library's BVH writer.
fn forward_walk(mannequin: &Path, out: &Path) {
    let asset = humanoid::read_asset(mannequin).unwrap().asset;
    let walk = asset.clips.iter().find(|c| c.name == "walk").unwrap();
    let bones = &asset.humanoids[0].bones;
    let hips = bones.get(HumanBone::Hips).unwrap();
    let feet = [
        bones.get(HumanBone::LeftFoot).unwrap(),
        bones.get(HumanBone::RightFoot).unwrap(),
    ];
    let mut times: Vec<f32> = walk
        .tracks()
        .iter()
        .flat_map(|t| t.times().to_vec())
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    let duration = walk.duration();
    let cycles = 3;
    let all: Vec<f32> = (0..cycles)
        .flat_map(|c| {
            times
                .iter()
                .filter(move |t| c == 0 || **t > 0.0)
                .map(move |t| t + c as f32 * duration)
        })
        .collect();
    let local = |t: f32| t - (t / duration).floor().min(cycles as f32 - 1.0) * duration;
    let mut sampler = Sampler::new(&asset.skeleton, walk);
    let mut carried = Vec3::ZERO;
    let mut last: Option<(usize, Vec3)> = None;
    let mut path = Vec::new();
    let rest = asset.skeleton.rest_local(hips).translation;
    for &t in &all {
        sampler.evaluate(local(t));
        let positions = feet.map(|f| sampler.world_position(f));
        let stance = if positions[0].y <= positions[1].y {
            0
        } else {
            1
        };
        if let Some((was, p)) = last {
            if was == stance {
                let slid = positions[stance] - p;
                carried -= Vec3::new(slid.x, 0.0, slid.z);
            }
        }
        last = Some((stance, positions[stance]));
        let own = walk
            .track(TrackTarget::Joint(hips), Property::Translation)
            .and_then(|tr| tr.sample_vec3(local(t)))
            .unwrap_or(rest);
        path.extend((own + carried).to_array());
    }
    let mut clip = Clip::new("forward");
    for track in walk.tracks() {
        if track.target() == TrackTarget::Joint(hips) && track.property() == Property::Translation {
            continue;
        }
        let mut values = Vec::new();
        for &t in &all {
            let mut v = vec![0.0; track.components()];
            track.sample(local(t), &mut v);
            values.extend(v);
        }
        clip.add_track(
            Track::new(
                track.target(),
                track.property(),
                Interpolation::Linear,
                all.clone(),
                values,
            )
            .unwrap(),
        );
    }
    clip.add_track(
        Track::new(
            TrackTarget::Joint(hips),
            Property::Translation,
            Interpolation::Linear,
            all.clone(),
            path,
        )
        .unwrap(),
    );
    let written = humanoid::formats::bvh::write_with_diagnostics(
        &asset.rig_only(),
        &clip,
        &humanoid::formats::bvh::WriteOptions::default(),
    )
    .unwrap();
    std::fs::write(out, written.text).unwrap();
}

/// The mannequin with its legs at half length (each lower leg's and foot's offset halved, the
/// hips lowered by what the legs lost), its clips dropped.
fn half_legs(mannequin: &Path, out: &Path) {
    let (mut json, bin) = glb_parts(mannequin);
    let bones = json["extensions"]["EXT_skeleton_humanoid"]["humanoidSkeletons"][0]
        ["humanoidBones"]
        .clone();
    let node = |bone: &str| bones[bone].as_u64().unwrap() as usize;
    let mut lost = 0.0;
    for side in ["left", "right"] {
        for bone in ["LowerLeg", "Foot"] {
            let n = node(&format!("{side}{bone}"));
            let t: Vec<f64> = json["nodes"][n]["translation"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            if side == "left" {
                lost -= t[1] / 2.0;
            }
            json["nodes"][n]["translation"] =
                serde_json::json!([t[0] / 2.0, t[1] / 2.0, t[2] / 2.0]);
        }
    }
    let h = node("hips");
    let t = json["nodes"][h]["translation"].clone();
    json["nodes"][h]["translation"] =
        serde_json::json!([t[0], t[1].as_f64().unwrap() - lost, t[2]]);
    json.as_object_mut().unwrap().remove("animations");
    std::fs::write(out, glb(&json, &bin)).unwrap();
}

fn retarget(source: &Path, model: &Path, out: &Path, contacts: &str) -> (Bvh, Vec<DVec3>) {
    humanoid_ok(&[
        "retarget",
        s(source),
        "--onto",
        s(model),
        "-o",
        s(out),
        "--contacts",
        contacts,
        "--bvh-units",
        "cm",
    ]);
    read_bvh(out, 0.01)
}

struct Setup {
    _dir: tempfile::TempDir,
    _demo: tempfile::TempDir,
    source: PathBuf,
    bodies: Vec<(&'static str, PathBuf)>,
}

fn setup() -> Setup {
    let (demo_dir, mannequin, _) = demo();
    let dir = temp_dir();
    let source = dir.path().join("forward_walk.bvh");
    forward_walk(&mannequin, &source);
    if let Some(keep) = std::env::var_os("HUMANOID_KEEP_CONTACTS_SOURCE") {
        std::fs::copy(&source, keep).unwrap();
    }
    let half = dir.path().join("half_legs.glb");
    half_legs(&mannequin, &half);
    Setup {
        source,
        bodies: vec![("mannequin", mannequin), ("half legs", half)],
        _dir: dir,
        _demo: demo_dir,
    }
}

#[test]
fn planted_feet_stay_put_on_any_body_and_nothing_goes_under_the_floor() {
    let setup = setup();
    let dir = temp_dir();
    let source = read_bvh(&setup.source, 0.01);
    for (name, body) in &setup.bodies {
        let file = name.replace(' ', "_");
        let auto = retarget(
            &setup.source,
            body,
            &dir.path().join(format!("{file}_auto.bvh")),
            "auto",
        );
        let off = retarget(
            &setup.source,
            body,
            &dir.path().join(format!("{file}_off.bvh")),
            "off",
        );
        let (with, without) = (measure(&source, &auto), measure(&source, &off));
        let (p95, worst) = (
            percentile(&with.beyond, 0.95),
            percentile(&with.beyond, 1.0),
        );
        eprintln!(
            "{name}: {} plants; drift beyond the source's p95 {p95:.1} mm, worst {worst:.1} mm (off: {:.1}, {:.1}); below the floor {:.1} mm (off {:.1})",
            with.beyond.len(),
            percentile(&without.beyond, 0.95),
            percentile(&without.beyond, 1.0),
            with.below_floor_mm,
            without.below_floor_mm
        );
        assert!(
            with.beyond.len() >= 4,
            "{name}: plants found: {}",
            with.beyond.len()
        );
        let (p95_limit, worst_limit) = if *name == "half legs" {
            (25.0, 25.0)
        } else {
            (5.0, 21.0)
        };
        assert!(
            p95 <= p95_limit,
            "{name}: drift beyond the source's p95 {p95} mm"
        );
        assert!(
            worst <= worst_limit,
            "{name}: worst drift beyond the source's {worst} mm"
        );
        assert!(
            with.below_floor_mm <= 5.0,
            "{name}: {} mm below the floor",
            with.below_floor_mm
        );
        // The upper body, relative to the hips, is where --contacts off puts it.
        let hips = auto.0.joint("hips");
        let mut gaps = Vec::new();
        for joint in [
            "spine",
            "chest",
            "neck",
            "head",
            "leftUpperArm",
            "rightHand",
            "leftHand",
        ] {
            let (ja, jo) = (auto.0.joint(joint), off.0.joint(joint));
            for (fa, fo) in auto.0.world.iter().zip(&off.0.world) {
                gaps.push(
                    ((fa[ja] - fa[hips]) - (fo[jo] - fo[off.0.joint("hips")])).length() * 1000.0,
                );
            }
        }
        let upper = percentile(&gaps, 0.95);
        assert!(
            upper <= 5.0,
            "{name}: upper body p95 {upper} mm from --contacts off"
        );
    }
}

/// `source` lying face down 60 cm above its floor, every frame (a swim: the feet are as high
/// as the hips, no plant).
fn swim(source: &Path, out: &Path) {
    let text = std::fs::read_to_string(source).unwrap();
    let (head, motion) = text.split_once("MOTION").unwrap();
    let root: Vec<&str> = head
        .lines()
        .find(|l| l.trim_start().starts_with("CHANNELS"))
        .unwrap()
        .split_whitespace()
        .skip(2)
        .collect();
    let (y, x) = (
        root.iter().position(|c| *c == "Yposition").unwrap(),
        root.iter().position(|c| *c == "Xrotation").unwrap(),
    );
    let mut lines: Vec<String> = motion.lines().map(str::to_owned).collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("Frame Time:"))
        .unwrap()
        + 1;
    for line in lines
        .iter_mut()
        .skip(first)
        .filter(|l| !l.trim().is_empty())
    {
        let mut values: Vec<f64> = line
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        values[y] += 60.0;
        values[x] = 90.0;
        *line = values
            .iter()
            .map(f64::to_string)
            .collect::<Vec<_>>()
            .join(" ");
    }
    std::fs::write(out, format!("{head}MOTION{}\n", lines.join("\n"))).unwrap();
}

#[test]
fn where_nothing_can_be_planted_the_output_is_the_world_delta_copy() {
    let setup = setup();
    let dir = temp_dir();
    let (_, mannequin) = &setup.bodies[0];
    let both = |source: &Path, name: &str, extra: &[&str]| {
        let (auto, off) = (
            dir.path().join(format!("{name}_auto.glb")),
            dir.path().join(format!("{name}_off.glb")),
        );
        let mut args = vec![
            "retarget",
            s(source),
            "--onto",
            s(mannequin),
            "-o",
            s(&auto),
            "--report",
        ];
        args.extend(extra);
        let run = humanoid_ok(&args);
        let mut args = vec![
            "retarget",
            s(source),
            "--onto",
            s(mannequin),
            "-o",
            s(&off),
            "--contacts",
            "off",
        ];
        args.extend(extra);
        humanoid_ok(&args);
        (
            run.stdout,
            std::fs::read(auto).unwrap(),
            std::fs::read(off).unwrap(),
        )
    };
    // A swim (lying 60 cm up, kicking): no plant. Off puts its lowest ankle at the model's
    // ankle height, so the kicking toes dip under the floor; contacts keep them above it and
    // change nothing else.
    let swimming = dir.path().join("swim.bvh");
    swim(&setup.source, &swimming);
    let (said, _, _) = both(&swimming, "swim", &[]);
    assert!(said.contains("CONTACTS_NOT_PLANTED"), "{said}");
    assert!(said.contains("0 plants"), "{said}");
    // The in-place walk: its feet slide back, so nothing is planted; its toes, which dip under
    // the mannequin's own floor, are kept above it.
    let (said, _, _) = both(mannequin, "walk", &["--clip", "walk"]);
    assert!(
        said.contains("CONTACTS_NOT_PLANTED") && said.contains("above the floor"),
        "{said}"
    );
    // The wave stands: its feet are planted (on its own body they already stay put, so the
    // output is the world-delta copy).
    let (said, auto, off) = both(mannequin, "wave", &["--clip", "wave"]);
    assert!(said.contains("CONTACTS_PLANTED"), "{said}");
    assert_eq!(auto, off, "the wave on its own body is not the exact copy");
    // A source that declares a humanoid without legs (hips, spine, head; its spine nods):
    // said, and the exact copy.
    let mut bin: Vec<u8> = Vec::new();
    for v in [0.0f32, 1.0, 0.0, 0.0, 0.0, 1.0, 0.2, 0.0, 0.0, 0.98] {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    let json = crate::util::small_gltf(serde_json::json!({
        "buffers": [{"byteLength": 40}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 8},
            {"buffer": 0, "byteOffset": 8, "byteLength": 32}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC4"}
        ],
        "animations": [{"name": "nod", "samplers": [{"input": 0, "output": 1}],
            "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]
    }));
    let legless = dir.path().join("legless.glb");
    std::fs::write(&legless, crate::util::glb(&json, &bin)).unwrap();
    let (said, auto, off) = both(&legless, "legless", &[]);
    assert!(said.contains("no legs mapped"), "{said}");
    assert_eq!(auto, off, "the legless source is not the exact copy");
}

#[test]
fn feet_that_leave_the_ground_for_good_are_planted_only_while_they_stand() {
    // The forward walk, then the whole body rising 2 m over a second and staying up: the
    // plants before are kept, nothing is planted in the air, nothing panics.
    let setup = setup();
    let dir = temp_dir();
    let (_, mannequin) = &setup.bodies[0];
    let text = std::fs::read_to_string(&setup.source).unwrap();
    let (head, motion) = text.split_once("MOTION").unwrap();
    let mut lines: Vec<String> = motion.lines().map(str::to_owned).collect();
    let frames_at = lines.iter().position(|l| l.starts_with("Frames:")).unwrap();
    let first = frames_at + 2;
    let last = lines.last().unwrap().clone();
    let mut values: Vec<f64> = last
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    for k in 1..=60 {
        values[1] += if k <= 30 { 200.0 / 30.0 } else { 0.0 };
        lines.push(
            values
                .iter()
                .map(f64::to_string)
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    let count = lines.len() - first;
    lines[frames_at] = format!("Frames: {count}");
    let flying = dir.path().join("fly.bvh");
    std::fs::write(&flying, format!("{head}MOTION{}\n", lines.join("\n"))).unwrap();
    let out = dir.path().join("fly.glb");
    let run = humanoid_ok(&[
        "retarget",
        s(&flying),
        "--onto",
        s(mannequin),
        "-o",
        s(&out),
        "--report",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let contacts = &report["contacts"];
    assert_eq!(contacts["applied"], true, "{contacts}");
    let plants: u64 = contacts["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["plants"].as_u64().unwrap())
        .sum();
    assert!(plants >= 2, "{contacts}");
}

/// The corpus, judged apart from the product: three-vrm plays each `.vrma` written with
/// contacts (the oracle's `--times` mode, at the source's frame times), and
/// `../shared/tools/motion-metrics/contacts.py` finds the source's plants with its own BVH
/// reader and measures the target's feet in them. (`scripts/bench-contacts.sh` runs every clip
/// on every body.)
#[cfg(feature = "corpus")]
mod corpus {
    use std::path::Path;
    use std::process::Command;

    use serde_json::Value;

    use super::half_legs;
    use crate::util::{demo, humanoid_ok, s, shared, temp_dir, three_vrm};

    /// contacts.py's figures for `source` (a BVH) retargeted onto `model` (a VRM) with
    /// `--contacts MODE`: (drift beyond the source's own per plant, mm; deepest under the
    /// floor, mm).
    fn judged(source: &Path, model: &Path, mode: &str, dir: &Path) -> (Vec<f64>, f64) {
        let stem = format!(
            "{}_{}_{mode}",
            source.file_stem().unwrap().to_string_lossy(),
            model.file_stem().unwrap().to_string_lossy()
        );
        let out = dir.join(format!("{stem}.vrma"));
        humanoid_ok(&[
            "retarget",
            s(source),
            "--onto",
            s(model),
            "-o",
            s(&out),
            "--contacts",
            mode,
        ]);
        let map = dir.join(format!("{stem}.map.json"));
        std::fs::write(&map, humanoid_ok(&["map", s(source), "--json"]).stdout).unwrap();
        let text = std::fs::read_to_string(source).unwrap();
        let frames: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("Frames:"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let frame_time: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix("Frame Time:"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let times: Vec<String> = (0..frames)
            .map(|i| format!("{:.6}", i as f64 * frame_time))
            .collect();
        let rest = dir.join(format!("{stem}.rest.json"));
        let play = dir.join(format!("{stem}.play.json"));
        let write = |path: &Path, value: Value| std::fs::write(path, value.to_string()).unwrap();
        write(
            &rest,
            three_vrm(&["--vrm", s(model), "--rest", "--rotate-vrm0"]).unwrap(),
        );
        write(
            &play,
            three_vrm(&[
                "--vrm",
                s(model),
                "--vrma",
                s(&out),
                "--times",
                &times.join(","),
                "--rotate-vrm0",
                "--no-extras",
            ])
            .unwrap(),
        );
        let script = shared().join("tools/motion-metrics/contacts.py");
        let run = Command::new("python3")
            .args([s(&script), s(source), s(&map), s(&rest), s(&play)])
            .output()
            .expect("python3");
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let m: Value = serde_json::from_slice(&run.stdout).unwrap();
        let list = |k: &str| -> Vec<f64> {
            m[k].as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        };
        let beyond = list("drift_mm")
            .iter()
            .zip(list("src_drift_mm"))
            .map(|(d, s)| (d - s).max(0.0))
            .collect();
        (beyond, m["pen_mm"].as_f64().unwrap())
    }

    fn p95(values: &[f64]) -> f64 {
        super::percentile(values, 0.95)
    }

    #[test]
    fn corpus_mocap_on_corpus_bodies_keeps_its_plants_as_three_vrm_plays_it() {
        let dir = temp_dir();
        let (_demo, mannequin, _) = demo();
        let half_glb = dir.path().join("half_legs.glb");
        half_legs(&mannequin, &half_glb);
        let half = dir.path().join("half_legs.vrm");
        humanoid_ok(&["convert", s(&half_glb), s(&half), "--to", "vrm1"]);
        let corpus = shared().join("corpus");
        let cases = [
            (
                "bvh/mixamo_freebvh.bvh",
                corpus.join("vrm/Godette_vrm_v4.vrm"),
                21.0,
            ),
            (
                "bvh/mocapbank_walk.bvh",
                corpus.join("vrm/debug_robot.vrm"),
                21.0,
            ),
            ("bvh/mixamo_freebvh.bvh", half.clone(), 25.0),
        ];
        for (source, model, worst_limit) in cases {
            let source = corpus.join(source);
            let (with, below) = judged(&source, &model, "auto", dir.path());
            let (without, below_off) = judged(&source, &model, "off", dir.path());
            let (p, worst) = (p95(&with), with.iter().copied().fold(0.0, f64::max));
            eprintln!(
                "{} on {}: {} plants, drift beyond the source's p95 {p:.1} / worst {worst:.1} mm (off {:.1} / {:.1}); under the floor {below:.1} mm (off {below_off:.1})",
                source.display(),
                model.display(),
                with.len(),
                p95(&without),
                without.iter().copied().fold(0.0, f64::max),
            );
            assert!(!with.is_empty(), "no plant found");
            assert!(p <= 5.0, "p95 {p} mm");
            assert!(worst <= worst_limit, "worst {worst} mm");
            assert!(below <= 5.0, "{below} mm under the floor");
            // And the off output is what this test would have caught.
            assert!(
                p95(&without) > 20.0,
                "off already keeps the plants: a weak case"
            );
        }
    }
}
