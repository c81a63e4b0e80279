//! Does the output mean what the input meant? The world position of every mapped bone, at the
//! rest and at 5 times of the clip, equals the input's (1e-4 m), after the documented changes
//! only: units (both sides are read in metres), the facing turn (VRM 0.x faces −Z: the input is
//! turned 180° about +Y where the two face differently) and rebasing on the T-pose (the rest may
//! differ, but only by turning bones about their joints: the hips stay and every bone keeps its
//! distance to its nearest mapped ancestor; the clip's world positions must still be equal).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value;

use super::cell::{clips, first_line, run, Facts};
use super::Input;

const TOLERANCE: f64 = 1e-4;

/// The canonical parent of each of the 55 bones (VRM 1.0 humanoid, written out here from the
/// specification's hierarchy table).
fn parent(bone: &str) -> Option<&'static str> {
    let side = |b: &str| {
        if b.starts_with("left") {
            "left"
        } else {
            "right"
        }
    };
    let p: &str = match bone {
        "hips" => return None,
        "spine" => "hips",
        "chest" => "spine",
        "upperChest" => "chest",
        "neck" => "upperChest",
        "head" => "neck",
        "leftEye" | "rightEye" | "jaw" => "head",
        b if b.ends_with("UpperLeg") => "hips",
        b if b.ends_with("LowerLeg") => return Some(leak(format!("{}UpperLeg", side(b)))),
        b if b.ends_with("Foot") => return Some(leak(format!("{}LowerLeg", side(b)))),
        b if b.ends_with("Toes") => return Some(leak(format!("{}Foot", side(b)))),
        b if b.ends_with("Shoulder") => "upperChest",
        b if b.ends_with("UpperArm") => return Some(leak(format!("{}Shoulder", side(b)))),
        b if b.ends_with("LowerArm") => return Some(leak(format!("{}UpperArm", side(b)))),
        b if b.ends_with("Hand") => return Some(leak(format!("{}LowerArm", side(b)))),
        b if b.ends_with("ThumbMetacarpal") => return Some(leak(format!("{}Hand", side(b)))),
        b if b.ends_with("ThumbProximal") => {
            return Some(leak(b.replace("ThumbProximal", "ThumbMetacarpal")))
        }
        b if b.ends_with("ThumbDistal") => {
            return Some(leak(b.replace("ThumbDistal", "ThumbProximal")))
        }
        b if b.ends_with("Proximal") => return Some(leak(format!("{}Hand", side(b)))),
        b if b.ends_with("Intermediate") => {
            return Some(leak(b.replace("Intermediate", "Proximal")))
        }
        b if b.ends_with("Distal") => return Some(leak(b.replace("Distal", "Intermediate"))),
        _ => return None,
    };
    Some(leak(p.to_owned()))
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

type Positions = BTreeMap<String, [f64; 3]>;

fn positions(bones: &Value) -> Positions {
    bones
        .as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(bone, v)| {
                    let p = v["p"].as_array()?;
                    Some((
                        bone.clone(),
                        [p[0].as_f64()?, p[1].as_f64()?, p[2].as_f64()?],
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `pose --json` of a file: the rest, and the samples at `times` of `clip` when given.
fn pose(
    path: &Path,
    map: &[String],
    clip: Option<(&str, &[f64])>,
) -> Result<(Positions, Vec<Positions>), String> {
    let mut args: Vec<String> = vec![
        "pose".into(),
        "--json".into(),
        path.to_str().unwrap().into(),
    ];
    args.extend(map.iter().cloned());
    if let Some((name, times)) = clip {
        args.push("--clip".into());
        args.push(name.into());
        args.push("--times".into());
        args.push(
            times
                .iter()
                .map(|t| format!("{t}"))
                .collect::<Vec<_>>()
                .join(","),
        );
    }
    let argv: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let mut r = run(&argv);
    if r.code != 0 && map.is_empty() && r.stderr.contains("declares no humanoid") {
        // A rig without a declaration: mapped as every command maps it (`--map auto`).
        let mut mapped = args.clone();
        mapped.splice(3..3, ["--map".to_owned(), "auto".to_owned()]);
        let argv: Vec<&OsStr> = mapped.iter().map(OsStr::new).collect();
        r = run(&argv);
    }
    if r.code != 0 && (r.stderr.contains("no humanoid") || r.stderr.contains("not a humanoid")) {
        // Not a humanoid at all: no mapped bone to compare.
        return Ok((Positions::new(), Vec::new()));
    }
    if r.code != 0 {
        return Err(format!(
            "pose {}: {}",
            path.display(),
            first_line(&r.stderr)
        ));
    }
    let v: Value = serde_json::from_str(&r.stdout).map_err(|e| format!("pose JSON: {e}"))?;
    let samples = v["samples"]
        .as_array()
        .map(|s| s.iter().map(|x| positions(&x["bones"])).collect())
        .unwrap_or_default();
    Ok((positions(&v["rest"]), samples))
}

/// The `Frame Time:` of a BVH.
fn frame_time(path: &Path) -> Option<f64> {
    std::fs::read_to_string(path)
        .ok()?
        .lines()
        .find_map(|l| l.trim().strip_prefix("Frame Time:")?.trim().parse().ok())
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The largest distance between the common bones of `a` and `b`, and the bone.
fn worst(a: &Positions, b: &Positions) -> (f64, String) {
    a.iter()
        .filter_map(|(bone, p)| b.get(bone).map(|q| (distance(*p, *q), bone.clone())))
        .fold((0.0, String::new()), |w, x| if x.0 > w.0 { x } else { w })
}

/// Each bone's distance to its nearest mapped canonical ancestor.
fn lengths(p: &Positions) -> BTreeMap<String, f64> {
    p.iter()
        .filter_map(|(bone, at)| {
            let mut up = parent(bone);
            while let Some(b) = up {
                if let Some(q) = p.get(b) {
                    return Some((bone.clone(), distance(*at, *q)));
                }
                up = parent(b);
            }
            None
        })
        .collect()
}

/// +1 when the model faces +Z (left limbs on +X), −1 when it faces −Z.
fn facing(p: &Positions) -> Option<i8> {
    [
        ("leftUpperArm", "rightUpperArm"),
        ("leftUpperLeg", "rightUpperLeg"),
        ("leftHand", "rightHand"),
        ("leftFoot", "rightFoot"),
    ]
    .iter()
    .find_map(|(l, r)| {
        let d = p.get(*l)?[0] - p.get(*r)?[0];
        (d.abs() > 1e-4).then_some(if d > 0.0 { 1 } else { -1 })
    })
}

fn turned(p: &Positions) -> Positions {
    p.iter()
        .map(|(b, v)| (b.clone(), [-v[0], v[1], -v[2]]))
        .collect()
}

/// The clip of the output that carries the input's clip `name`: the one of the same name, else
/// the only one.
fn matching_clip(
    name: &str,
    index: usize,
    in_count: usize,
    out_clips: &[(String, f64)],
) -> Option<(String, f64)> {
    let plain = |n: &str| -> String {
        n.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect()
    };
    out_clips
        .iter()
        .find(|(n, _)| n == name)
        .or_else(|| out_clips.iter().find(|(n, _)| plain(n) == plain(name)))
        .or(if out_clips.len() == 1 {
            out_clips.first()
        } else if out_clips.len() == in_count {
            out_clips.get(index)
        } else {
            None
        })
        .cloned()
}

/// The input clip the conversion took: one named by a diagnostic of the conversion, else the
/// first.
fn taken_clip(in_clips: &[(String, f64)], report: &Value) -> Option<(String, f64)> {
    let messages: Vec<&str> = report["diagnostics"]
        .as_array()
        .map(|d| d.iter().filter_map(|x| x["message"].as_str()).collect())
        .unwrap_or_default();
    in_clips
        .iter()
        .find(|(n, _)| {
            messages
                .iter()
                .any(|m| m.contains(&format!("\"{n}\"")) && m.contains("clip"))
                && in_clips.len() > 1
        })
        .or(in_clips.first())
        .cloned()
}

pub fn compare(
    input: &Input,
    facts: &Facts,
    out: &Path,
    inspected: &Value,
    report: &Value,
    extra: &[String],
) -> Result<String, String> {
    let source = facts.inspect.as_ref().unwrap();
    let map: Vec<String> = match extra.iter().position(|a| a == "--map") {
        Some(i) => extra[i..i + 2].to_vec(),
        None => Vec::new(),
    };
    let in_clips = facts.clips();
    let out_clips = clips(Some(inspected));
    let mut notes = Vec::new();
    let clip = taken_clip(&in_clips, report).and_then(|(name, duration)| {
        let index = in_clips.iter().position(|c| c.0 == name).unwrap_or(0);
        let (out_name, out_duration) = matching_clip(&name, index, in_clips.len(), &out_clips)?;
        Some((name, duration, out_name, out_duration))
    });
    if clip.is_none() && !in_clips.is_empty() && !out_clips.is_empty() {
        return Err(format!(
            "no output clip carries the input's (in {:?}, out {:?})",
            in_clips.iter().map(|c| &c.0).collect::<Vec<_>>(),
            out_clips.iter().map(|c| &c.0).collect::<Vec<_>>()
        ));
    }
    let times: Vec<f64> = clip
        .as_ref()
        .map(|(_, d, _, e)| (0..5).map(|k| d.min(*e) * f64::from(k) / 4.0).collect())
        .unwrap_or_default();
    let (in_rest, in_samples) = pose(
        &input.path,
        &map,
        clip.as_ref()
            .map(|(n, _, _, _)| (n.as_str(), times.as_slice())),
    )?;
    let (out_rest, out_samples) = pose(
        out,
        &[],
        clip.as_ref()
            .map(|(_, _, n, _)| (n.as_str(), times.as_slice())),
    )?;
    if in_rest.is_empty() {
        return Ok("not a humanoid: no mapped bone to compare".to_owned());
    }
    // Which way each faces, from its bones (the left limbs lie on +X when facing +Z): a
    // file's format may declare one facing while its model shows the other.
    let turn = match (facing(&in_rest), facing(&out_rest)) {
        (Some(a), Some(b)) => a != b,
        _ => source["facing"] != inspected["facing"],
    };
    let (in_rest, in_samples) = if turn {
        notes.push("turned to face +Z".to_owned());
        (turned(&in_rest), in_samples.iter().map(turned).collect())
    } else {
        (in_rest, in_samples)
    };
    // A bone the output format cannot hold may go, when the conversion says so by name.
    let said: Vec<&str> = report["diagnostics"]
        .as_array()
        .map(|d| d.iter().filter_map(|x| x["message"].as_str()).collect())
        .unwrap_or_default();
    let codes: Vec<&str> = report["diagnostics"]
        .as_array()
        .map(|d| d.iter().filter_map(|x| x["code"].as_str()).collect())
        .unwrap_or_default();
    let joint_of = super::cell::bones(source);
    let reported = |bone: &str| {
        let joint = joint_of
            .iter()
            .find(|(b, _)| b == bone)
            .map(|(_, j)| j.as_str());
        said.iter()
            .any(|m| m.contains(bone) || joint.is_some_and(|j| !j.is_empty() && m.contains(j)))
    };
    let lost: Vec<&String> = in_rest
        .keys()
        .filter(|b| !out_rest.contains_key(*b) && !reported(b))
        .collect();
    if !lost.is_empty() {
        return Err(format!(
            "{} mapped bone(s) lost without a word: {}",
            lost.len(),
            lost.iter()
                .take(6)
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let dropped = in_rest
        .keys()
        .filter(|b| !out_rest.contains_key(*b))
        .count();
    if dropped > 0 {
        notes.push(format!(
            "{dropped} bone(s) the format cannot hold dropped and reported"
        ));
    }
    let (rest_error, rest_bone) = worst(&in_rest, &out_rest);
    if rest_error > TOLERANCE {
        // Rebased on the T-pose? Bones turned about their joints: hips and lengths kept.
        let hips = match (in_rest.get("hips"), out_rest.get("hips")) {
            (Some(a), Some(b)) => distance(*a, *b),
            _ => 0.0,
        };
        let (a, b) = (lengths(&in_rest), lengths(&out_rest));
        let (length_error, length_bone) = a
            .iter()
            .filter_map(|(bone, l)| b.get(bone).map(|m| ((l - m).abs(), bone.clone())))
            .fold((0.0, String::new()), |w, x| if x.0 > w.0 { x } else { w });
        // A VRMA rests with its hips at their measured height (a BVH's rest hips may lie at
        // y = 0): a rebased rest may rise or sink as a whole, never move sideways.
        let rebased = said.iter().any(|m| m.contains("T-pose")) || codes.contains(&"VRMA_REBASED");
        let vertical = match (in_rest.get("hips"), out_rest.get("hips")) {
            (Some(a), Some(b)) => (a[0] - b[0]).hypot(a[2] - b[2]) <= TOLERANCE,
            _ => true,
        };
        if (hips > TOLERANCE && !(rebased && vertical)) || length_error > TOLERANCE {
            return Err(format!(
                "rest moved: {rest_bone} by {rest_error:.5} m (hips by {hips:.5} m, bone length {length_bone} by {length_error:.5} m)"
            ));
        }
        notes.push(format!(
            "rest rebased (up to {rest_error:.3} m at {rest_bone})"
        ));
    }
    if let Some((name, duration, out_name, out_duration)) = &clip {
        // A BVH holds frames at one rate: its clip may end up to half a frame from the input's.
        let slack = if out.extension().is_some_and(|e| e == "bvh") {
            frame_time(out).map_or(1e-3, |f| f / 2.0 + 1e-4)
        } else {
            1e-3
        };
        if (duration - out_duration).abs() > slack {
            return Err(format!(
                "clip {name:?} lasts {duration:.4} s in, {out_duration:.4} s out ({out_name:?})"
            ));
        }
        if in_samples.len() != times.len() || out_samples.len() != times.len() {
            return Err(format!(
                "pose gave {} / {} samples for {} times",
                in_samples.len(),
                out_samples.len(),
                times.len()
            ));
        }
        for ((t, a), b) in times.iter().zip(&in_samples).zip(&out_samples) {
            let (error, bone) = worst(a, b);
            if error > TOLERANCE {
                return Err(format!(
                    "clip {name:?} at {t:.3} s: {bone} off by {error:.5} m"
                ));
            }
        }
        notes.push(format!("clip {name:?} kept"));
    } else if !in_clips.is_empty() && !out_clips.is_empty() {
        unreachable!()
    } else if !in_clips.is_empty() {
        notes.push("no clip written".to_owned());
    }
    Ok(notes.join(", "))
}
