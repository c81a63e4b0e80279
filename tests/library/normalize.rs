//! `convert --normalize` / `--rebind` ([`humanoid::formats::gltf::rest`]): the rest pose
//! becomes the canonical T-pose and every clip plays as before.
//!
//! Expected values never come from the code under test:
//!
//! - bone directions are computed here from the written file's node TRS (forward kinematics in
//!   `f64`) and compared with a hand-written table of the canonical T-pose's directions
//!   (VRM 1.0 `tpose.md`: arms and fingers along ±X, thumbs 45° between X and Z, legs down, feet
//!   forward); `pose::normalize::deviations` is only a cross-check;
//! - vertex positions come from a GLB reader, animation sampler and linear-blend-skinning
//!   routine written here (all `f64`), run on the input and on the output;
//! - with `HUMANOID_GLTF_VALIDATOR` set, the Khronos validator checks that no output has more
//!   errors than its input.
//!
//! Inputs are built here by hand; only `corpus` (feature `corpus`) reads `../shared`.

use glam::{DMat4, DQuat, DVec3};
use humanoid::asset::HumanoidSkeleton;
use humanoid::formats::gltf::rest::{
    normalize_document, NormalizeOptions, RestReference, SAMPLES_PER_CLIP,
};
use humanoid::formats::gltf::Document;
use humanoid::model::humanoid::BoneMap;
use humanoid::model::HumanBone;
use humanoid::Asset;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// An independent glTF reader (GLB only) and evaluator, in f64
// ---------------------------------------------------------------------------------------------

/// A GLB file: its JSON and BIN chunk.
struct Gltf {
    json: Value,
    bin: Vec<u8>,
}

fn u32_at(bytes: &[u8], at: usize) -> usize {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize
}

impl Gltf {
    fn parse(bytes: &[u8]) -> Gltf {
        assert_eq!(&bytes[0..4], b"glTF", "not a GLB");
        let json_len = u32_at(bytes, 12);
        assert_eq!(&bytes[16..20], b"JSON");
        let json = serde_json::from_slice(&bytes[20..20 + json_len]).expect("GLB JSON");
        let at = 20 + json_len;
        let bin = if at + 8 <= bytes.len() {
            let len = u32_at(bytes, at);
            assert_eq!(&bytes[at + 4..at + 8], b"BIN\0");
            bytes[at + 8..at + 8 + len].to_vec()
        } else {
            Vec::new()
        };
        Gltf { json, bin }
    }

    fn array(&self, key: &str) -> &[Value] {
        self.json[key].as_array().map_or(&[], Vec::as_slice)
    }

    /// An accessor's values, flat, normalized integers mapped per glTF 2.0 §3.11.
    fn accessor(&self, index: usize) -> Vec<f64> {
        let a = &self.json["accessors"][index];
        assert!(
            a.get("sparse").is_none(),
            "accessor {index}: sparse accessors are not read here"
        );
        let count = a["count"].as_u64().unwrap() as usize;
        let width = match a["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            other => panic!("accessor type {other}"),
        };
        let component = a["componentType"].as_u64().unwrap();
        let size = match component {
            5121 => 1,
            5123 => 2,
            5125 | 5126 => 4,
            other => panic!("component type {other}"),
        };
        let normalized = a["normalized"].as_bool().unwrap_or(false);
        let view = &self.json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        assert_eq!(view["buffer"].as_u64(), Some(0), "one BIN buffer");
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + a["byteOffset"].as_u64().unwrap_or(0) as usize;
        let stride = view["byteStride"]
            .as_u64()
            .map_or(width * size, |s| s as usize);
        let mut out = Vec::with_capacity(count * width);
        for e in 0..count {
            for c in 0..width {
                let at = start + e * stride + c * size;
                let b = &self.bin[at..at + size];
                out.push(match (component, normalized) {
                    (5126, _) => f64::from(f32::from_le_bytes(b.try_into().unwrap())),
                    (5121, false) => f64::from(b[0]),
                    (5121, true) => f64::from(b[0]) / 255.0,
                    (5123, false) => f64::from(u16::from_le_bytes(b.try_into().unwrap())),
                    (5123, true) => f64::from(u16::from_le_bytes(b.try_into().unwrap())) / 65535.0,
                    (5125, _) => f64::from(u32::from_le_bytes(b.try_into().unwrap())),
                    _ => unreachable!(),
                });
            }
        }
        out
    }

    fn parents(&self) -> Vec<Option<usize>> {
        let nodes = self.array("nodes");
        let mut parents = vec![None; nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            for child in node["children"].as_array().map_or(&[][..], Vec::as_slice) {
                parents[child.as_u64().unwrap() as usize] = Some(i);
            }
        }
        parents
    }

    /// A node's rest TRS (a matrix decomposed).
    fn rest(&self, node: usize) -> (DVec3, DQuat, DVec3) {
        let n = &self.json["nodes"][node];
        let v = |key: &str, default: &[f64]| -> Vec<f64> {
            n[key].as_array().map_or(default.to_vec(), |a| {
                a.iter().map(|x| x.as_f64().unwrap()).collect()
            })
        };
        if n.get("matrix").is_some() {
            let m: [f64; 16] = v("matrix", &[]).try_into().unwrap();
            let (s, r, t) = DMat4::from_cols_array(&m).to_scale_rotation_translation();
            return (t, r, s);
        }
        let t = v("translation", &[0.0; 3]);
        let r = v("rotation", &[0.0, 0.0, 0.0, 1.0]);
        let s = v("scale", &[1.0; 3]);
        (
            DVec3::new(t[0], t[1], t[2]),
            DQuat::from_xyzw(r[0], r[1], r[2], r[3]).normalize(),
            DVec3::new(s[0], s[1], s[2]),
        )
    }

    fn rest_matrix(&self, node: usize) -> DMat4 {
        let n = &self.json["nodes"][node];
        match n["matrix"].as_array() {
            Some(m) => {
                let m: Vec<f64> = m.iter().map(|x| x.as_f64().unwrap()).collect();
                DMat4::from_cols_array(&m.try_into().unwrap())
            }
            None => {
                let (t, r, s) = self.rest(node);
                DMat4::from_scale_rotation_translation(s, r, t)
            }
        }
    }

    /// Decodes the nodes, skins, drawn vertices and animations once.
    fn model(&self) -> Model {
        let count = self.array("nodes").len();
        let channels = |a: &Value| -> Vec<Channel> {
            a["channels"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|channel| {
                    let target = &channel["target"];
                    let node = target["node"].as_u64()? as usize;
                    let path = target["path"].as_str().unwrap().to_owned();
                    if !matches!(path.as_str(), "translation" | "rotation" | "scale") {
                        return None;
                    }
                    let sampler = &a["samplers"][channel["sampler"].as_u64().unwrap() as usize];
                    Some(Channel {
                        node,
                        path,
                        mode: sampler["interpolation"]
                            .as_str()
                            .unwrap_or("LINEAR")
                            .to_owned(),
                        times: self.accessor(sampler["input"].as_u64().unwrap() as usize),
                        values: self.accessor(sampler["output"].as_u64().unwrap() as usize),
                    })
                })
                .collect()
        };
        Model {
            parents: self.parents(),
            rest: (0..count).map(|n| self.rest(n)).collect(),
            rest_matrix: (0..count).map(|n| self.rest_matrix(n)).collect(),
            animations: self.array("animations").iter().map(channels).collect(),
            skins: (0..self.array("skins").len())
                .map(|s| self.skin(s))
                .collect(),
            draws: self.draws(),
        }
    }

    /// A skin's joints and inverse bind matrices.
    fn skin(&self, skin: usize) -> (Vec<usize>, Vec<DMat4>) {
        let skin = &self.json["skins"][skin];
        let joints: Vec<usize> = skin["joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j.as_u64().unwrap() as usize)
            .collect();
        let ibm = skin["inverseBindMatrices"]
            .as_u64()
            .map(|a| self.accessor(a as usize));
        let inverse = (0..joints.len())
            .map(|k| {
                ibm.as_ref().map_or(DMat4::IDENTITY, |m| {
                    DMat4::from_cols_array(&m[16 * k..16 * k + 16].try_into().unwrap())
                })
            })
            .collect();
        (joints, inverse)
    }

    /// Every primitive drawn by a node, with its skin's influences.
    fn draws(&self) -> Vec<Draw> {
        let mut draws = Vec::new();
        for (n, node) in self.array("nodes").iter().enumerate() {
            let Some(mesh) = node["mesh"].as_u64() else {
                continue;
            };
            let skin = node["skin"].as_u64().map(|s| s as usize);
            for primitive in self.json["meshes"][mesh as usize]["primitives"]
                .as_array()
                .unwrap()
            {
                let attributes = &primitive["attributes"];
                let Some(position) = attributes["POSITION"].as_u64() else {
                    continue;
                };
                let p = self.accessor(position as usize);
                let sets: Vec<(Vec<f64>, Vec<f64>)> = (0..)
                    .map_while(|i| {
                        let j = attributes[format!("JOINTS_{i}")].as_u64()?;
                        let w = attributes[format!("WEIGHTS_{i}")].as_u64()?;
                        Some((self.accessor(j as usize), self.accessor(w as usize)))
                    })
                    .collect();
                draws.push(Draw {
                    node: n,
                    skin: skin.filter(|_| !sets.is_empty()),
                    positions: p.chunks(3).map(|c| DVec3::new(c[0], c[1], c[2])).collect(),
                    sets,
                });
            }
        }
        draws
    }

    /// `count` times from the first to the last key of all of an animation's samplers.
    fn sample_times(&self, animation: usize, count: usize) -> Vec<f64> {
        let mut start = f64::INFINITY;
        let mut end = f64::NEG_INFINITY;
        for sampler in self.json["animations"][animation]["samplers"]
            .as_array()
            .unwrap()
        {
            let times = self.accessor(sampler["input"].as_u64().unwrap() as usize);
            start = start.min(times[0]);
            end = end.max(times[times.len() - 1]);
        }
        (0..count)
            .map(|i| start + (end - start) * i as f64 / (count - 1) as f64)
            .collect()
    }
}

/// One node channel's keys.
struct Channel {
    node: usize,
    path: String,
    mode: String,
    times: Vec<f64>,
    values: Vec<f64>,
}

/// One primitive drawn by one node.
struct Draw {
    node: usize,
    skin: Option<usize>,
    positions: Vec<DVec3>,
    sets: Vec<(Vec<f64>, Vec<f64>)>,
}

/// A file decoded for evaluation.
struct Model {
    parents: Vec<Option<usize>>,
    rest: Vec<(DVec3, DQuat, DVec3)>,
    rest_matrix: Vec<DMat4>,
    animations: Vec<Vec<Channel>>,
    skins: Vec<(Vec<usize>, Vec<DMat4>)>,
    draws: Vec<Draw>,
}

impl Model {
    /// Every node's world matrix at time `t` of animation `animation` (rest for `None`).
    fn pose(&self, animation: Option<usize>, t: f64) -> Vec<DMat4> {
        let count = self.rest.len();
        let mut trs: Vec<Option<(DVec3, DQuat, DVec3)>> = vec![None; count];
        for channel in animation.map_or(&[][..], |a| &self.animations[a]) {
            let value = channel.sample(t);
            let slot = trs[channel.node].get_or_insert(self.rest[channel.node]);
            match channel.path.as_str() {
                "translation" => slot.0 = DVec3::new(value[0], value[1], value[2]),
                "rotation" => {
                    slot.1 = DQuat::from_xyzw(value[0], value[1], value[2], value[3]).normalize()
                }
                _ => slot.2 = DVec3::new(value[0], value[1], value[2]),
            }
        }
        let locals: Vec<DMat4> = (0..count)
            .map(|n| match trs[n] {
                Some((t, r, s)) => DMat4::from_scale_rotation_translation(s, r, t),
                None => self.rest_matrix[n],
            })
            .collect();
        let mut worlds: Vec<Option<DMat4>> = vec![None; count];
        fn world(
            n: usize,
            parents: &[Option<usize>],
            locals: &[DMat4],
            worlds: &mut Vec<Option<DMat4>>,
        ) -> DMat4 {
            if let Some(w) = worlds[n] {
                return w;
            }
            let w = match parents[n] {
                Some(p) => world(p, parents, locals, worlds) * locals[n],
                None => locals[n],
            };
            worlds[n] = Some(w);
            w
        }
        (0..count)
            .map(|n| world(n, &self.parents, &locals, &mut worlds))
            .collect()
    }

    /// Every drawn vertex in world space: skinned ones by `Σ w · J · IBM · v` (the mesh node's
    /// transform ignored), others by their node's world matrix.
    fn vertices(&self, worlds: &[DMat4]) -> Vec<DVec3> {
        let skins: Vec<Vec<DMat4>> = self
            .skins
            .iter()
            .map(|(joints, inverse)| {
                joints
                    .iter()
                    .zip(inverse)
                    .map(|(&j, m)| worlds[j] * *m)
                    .collect()
            })
            .collect();
        let mut out = Vec::new();
        for draw in &self.draws {
            for (v, point) in draw.positions.iter().enumerate() {
                let placed = match draw.skin {
                    Some(skin) => {
                        let mut sum = DVec3::ZERO;
                        for (joints, weights) in &draw.sets {
                            for k in 0..4 {
                                let w = weights[4 * v + k];
                                if w != 0.0 {
                                    let m = skins[skin][joints[4 * v + k] as usize];
                                    sum += m.transform_point3(*point) * w;
                                }
                            }
                        }
                        sum
                    }
                    None => worlds[draw.node].transform_point3(*point),
                };
                out.push(placed);
            }
        }
        out
    }
}

impl Channel {
    /// The value at `t` (glTF 2.0 Appendix C; clamped outside the keys).
    fn sample(&self, t: f64) -> Vec<f64> {
        let (times, values) = (&self.times, &self.values);
        let rotation = self.path == "rotation";
        let width = if rotation { 4 } else { 3 };
        let cubic = self.mode == "CUBICSPLINE";
        let key = |k: usize| -> Vec<f64> {
            let e = if cubic { 3 * k + 1 } else { k };
            values[e * width..(e + 1) * width].to_vec()
        };
        let last = times.len() - 1;
        if t <= times[0] {
            return key(0);
        }
        if t >= times[last] {
            return key(last);
        }
        let k = times.iter().rposition(|&x| x <= t).unwrap();
        let (t0, t1) = (times[k], times[k + 1]);
        let s = (t - t0) / (t1 - t0);
        let (a, b) = (key(k), key(k + 1));
        match self.mode.as_str() {
            "STEP" => a,
            "LINEAR" if rotation => {
                let qa = DQuat::from_xyzw(a[0], a[1], a[2], a[3]);
                let mut qb = DQuat::from_xyzw(b[0], b[1], b[2], b[3]);
                let mut d = qa.dot(qb);
                if d < 0.0 {
                    qb = -qb;
                    d = -d;
                }
                let q = if d > 1.0 - 1e-12 {
                    qa * (1.0 - s) + qb * s
                } else {
                    let angle = d.acos();
                    qa * (((1.0 - s) * angle).sin() / angle.sin())
                        + qb * ((s * angle).sin() / angle.sin())
                };
                q.to_array().to_vec()
            }
            "LINEAR" => a.iter().zip(&b).map(|(x, y)| x + (y - x) * s).collect(),
            _ => {
                let dt = t1 - t0;
                let out_tangent = &values[(3 * k + 2) * width..(3 * k + 3) * width];
                let in_tangent = &values[(3 * (k + 1)) * width..(3 * (k + 1) + 1) * width];
                let (s2, s3) = (s * s, s * s * s);
                let v: Vec<f64> = (0..width)
                    .map(|i| {
                        (2.0 * s3 - 3.0 * s2 + 1.0) * a[i]
                            + (s3 - 2.0 * s2 + s) * dt * out_tangent[i]
                            + (-2.0 * s3 + 3.0 * s2) * b[i]
                            + (s3 - s2) * dt * in_tangent[i]
                    })
                    .collect();
                if rotation {
                    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                    v.iter().map(|x| x / n).collect()
                } else {
                    v
                }
            }
        }
    }
}

/// The largest distance between the vertices of `before` and `after` over `SAMPLES_PER_CLIP`
/// times of every animation of `before`, and how many animations there were.
fn max_vertex_deviation(before: &Gltf, after: &Gltf) -> (f64, usize) {
    let animations = before.array("animations").len();
    assert_eq!(after.array("animations").len(), animations);
    let (old_model, new_model) = (before.model(), after.model());
    let mut max: f64 = 0.0;
    for a in 0..animations {
        for t in before.sample_times(a, SAMPLES_PER_CLIP) {
            let old = old_model.vertices(&old_model.pose(Some(a), t));
            let new = new_model.vertices(&new_model.pose(Some(a), t));
            assert_eq!(old.len(), new.len());
            for (x, y) in old.iter().zip(&new) {
                max = max.max(x.distance(*y));
            }
        }
    }
    (max, animations)
}

// ---------------------------------------------------------------------------------------------
// A hand-made rig: an arm hanging down, skinned, with one clip
// ---------------------------------------------------------------------------------------------

/// hips (node 0) → leftUpperArm (1) → leftLowerArm (2) → leftHand (3) → leftMiddleProximal
/// (4), the arm hanging straight down (−Y); a skinned mesh (node 5) with one vertex on each of
/// nodes 1, 2, 3 and one shared half-half by 1 and 2; one clip that rotates node 2 and moves
/// node 0, but does not rotate node 1.
fn hanging_arm() -> Vec<u8> {
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut push = |values: Vec<u8>, count: usize, kind: &str, component: u32, extra: Value| {
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": values.len()}));
        bin.extend(values);
        let mut a = json!({"bufferView": views.len() - 1, "componentType": component, "count": count, "type": kind});
        if let Value::Object(extra) = extra {
            a.as_object_mut().unwrap().extend(extra);
        }
        accessors.push(a);
        accessors.len() - 1
    };
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    // Vertices: beside the upper arm, the elbow, the hand; the elbow vertex is shared.
    let positions = [
        0.25f32, 1.2, 0.0, 0.25, 1.0, 0.0, 0.25, 0.7, 0.0, 0.25, 1.1, 0.05,
    ];
    let position = push(
        f(&positions),
        4,
        "VEC3",
        5126,
        json!({"min": [0.25, 0.7, 0.0], "max": [0.25, 1.2, 0.05]}),
    );
    let joints: Vec<u8> = [0u8, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0].to_vec();
    let joints = push(joints, 4, "VEC4", 5121, Value::Null);
    let weights = f(&[
        1.0, 0., 0., 0., 1.0, 0., 0., 0., 1.0, 0., 0., 0., 0.5, 0.5, 0., 0.,
    ]);
    let weights = push(weights, 4, "VEC4", 5126, Value::Null);
    // Inverse bind matrices: the joints' world transforms at rest are translations.
    let ibm: Vec<f32> = [[-0.2f32, -1.4, 0.0], [-0.2, -1.1, 0.0], [-0.2, -0.85, 0.0]]
        .iter()
        .flat_map(|t| {
            DMat4::from_translation(DVec3::new(t[0] as f64, t[1] as f64, t[2] as f64))
                .to_cols_array()
                .map(|v| v as f32)
        })
        .collect();
    let ibm = push(f(&ibm), 3, "MAT4", 5126, Value::Null);
    let times = push(
        f(&[0.0, 1.0]),
        2,
        "SCALAR",
        5126,
        json!({"min": [0.0], "max": [1.0]}),
    );
    let bend = (std::f32::consts::FRAC_PI_4).sin();
    let rotations = push(
        f(&[
            0.0,
            0.0,
            0.0,
            1.0,
            bend,
            0.0,
            0.0,
            (std::f32::consts::FRAC_PI_4).cos(),
        ]),
        2,
        "VEC4",
        5126,
        Value::Null,
    );
    let moves = push(
        f(&[0.0, 1.0, 0.0, 0.0, 1.1, 0.2]),
        2,
        "VEC3",
        5126,
        Value::Null,
    );
    let root = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 5]}],
        "nodes": [
            {"name": "hips", "translation": [0.0, 1.0, 0.0], "children": [1]},
            {"name": "upper", "translation": [0.2, 0.4, 0.0], "children": [2]},
            {"name": "lower", "translation": [0.0, -0.3, 0.0], "children": [3]},
            {"name": "hand", "translation": [0.0, -0.25, 0.0], "children": [4]},
            {"name": "middle", "translation": [0.0, -0.08, 0.0]},
            {"name": "mesh", "mesh": 0, "skin": 0}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": position, "JOINTS_0": joints, "WEIGHTS_0": weights}, "mode": 0}]}],
        "skins": [{"joints": [1, 2, 3], "inverseBindMatrices": ibm}],
        "animations": [{
            "name": "bend",
            "samplers": [{"input": times, "output": rotations}, {"input": times, "output": moves}],
            "channels": [
                {"sampler": 0, "target": {"node": 2, "path": "rotation"}},
                {"sampler": 1, "target": {"node": 0, "path": "translation"}}
            ]
        }],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len()}]
    });
    glb(&root, &bin)
}

fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut json = serde_json::to_vec(json).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

/// The hand-made rig read, with its arm declared as a (mapped, not T-pose) humanoid.
fn hanging_arm_asset(bytes: &[u8]) -> (Document, Asset) {
    let document = Document::from_slice(bytes, "arm.glb", None).unwrap();
    let mut asset = humanoid::formats::gltf::humanoid::asset_from_document(&document)
        .unwrap()
        .asset;
    let joint = |node: usize| {
        asset
            .skeleton
            .joints()
            .find(|j| asset.source_index(*j) == node)
            .unwrap()
    };
    let mut bones = BoneMap::new();
    for (bone, node) in [
        (HumanBone::Hips, 0),
        (HumanBone::LeftUpperArm, 1),
        (HumanBone::LeftLowerArm, 2),
        (HumanBone::LeftHand, 3),
        (HumanBone::LeftMiddleProximal, 4),
    ] {
        bones.set(bone, Some(joint(node)));
    }
    let root = Some(joint(0));
    asset.humanoids.push(HumanoidSkeleton {
        root,
        bones,
        declared_t_pose: false,
    });
    (document, asset)
}

#[test]
fn the_hanging_arm_is_raised_and_its_clip_plays_as_before() {
    let input = hanging_arm();
    let (document, asset) = hanging_arm_asset(&input);
    let normalized = normalize_document(&document, &asset, &NormalizeOptions::default()).unwrap();
    let out = Gltf::parse(&normalized.document.to_glb_bytes().unwrap());
    let before = Gltf::parse(&input);
    // By hand: only the upper arm turns, by 90° about +Z (−Y to +X); the forearm and hand keep
    // their identity local rotations and follow it.
    let rotation = |node: usize| out.rest(node).1;
    let quarter = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
    assert!(rotation(1).abs_diff_eq(quarter, 1e-6), "{:?}", rotation(1));
    for node in [0, 2, 3, 4] {
        assert!(
            rotation(node).abs_diff_eq(DQuat::IDENTITY, 1e-12),
            "node {node}"
        );
        assert!(
            out.json["nodes"][node].get("rotation").is_none(),
            "node {node} rewritten"
        );
    }
    assert_eq!(normalized.report.nodes_changed, vec![1]);
    // The clip did not rotate node 1: it now holds its old (identity) rest rotation.
    let channels = out.json["animations"][0]["channels"].as_array().unwrap();
    assert_eq!(channels.len(), 3);
    assert_eq!(
        channels[2]["target"],
        json!({"node": 1, "path": "rotation"})
    );
    let sampler =
        &out.json["animations"][0]["samplers"][channels[2]["sampler"].as_u64().unwrap() as usize];
    assert_eq!(
        out.accessor(sampler["input"].as_u64().unwrap() as usize),
        vec![0.0]
    );
    assert_eq!(
        out.accessor(sampler["output"].as_u64().unwrap() as usize),
        vec![0.0, 0.0, 0.0, 1.0]
    );
    // The report: the upper arm was 90° off, the forearm and hand too (they hung down).
    let largest = normalized.report.largest_fixed().unwrap();
    assert!((largest.1 - 90.0).abs() < 1e-3, "{largest:?}");
    // At rest the skin now draws the arm along +X: the vertex beside the hand, (0.05, −0.7)
    // from the shoulder (0.2, 1.4), turns 90° about +Z to (0.7, 0.05) from it.
    let model = out.model();
    let rest = model.vertices(&model.pose(None, 0.0));
    assert!(
        rest[2].abs_diff_eq(DVec3::new(0.9, 1.45, 0.0), 1e-6),
        "{}",
        rest[2]
    );
    // Every sample time: the same vertices as the input.
    let (max, clips) = max_vertex_deviation(&before, &out);
    assert_eq!(clips, 1);
    assert!(max < 1e-6, "{max}");
    let measured = normalized.report.vertex_deviation.as_ref().unwrap();
    assert!(
        (measured.max - max).abs() < 1e-9,
        "{} vs {max}",
        measured.max
    );
    assert!(normalized.diagnostics.contains("NORMALIZE_REST"));
    assert!(normalized.diagnostics.contains("NORMALIZE_CHANNELS_ADDED"));
}

#[test]
fn rebinding_the_hanging_arm_is_exact_and_moves_the_vertices() {
    let input = hanging_arm();
    let (document, asset) = hanging_arm_asset(&input);
    let options = NormalizeOptions {
        rebind: true,
        ..NormalizeOptions::default()
    };
    let normalized = normalize_document(&document, &asset, &options).unwrap();
    let out = Gltf::parse(&normalized.document.to_glb_bytes().unwrap());
    let before = Gltf::parse(&input);
    // The stored vertices are the T-pose ones now, and so are the bind matrices: the hand's
    // vertex at (0.9, 1.45) (see above), the hand joint at (0.2 + 0.55, 1.4).
    let positions = out.accessor(
        out.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
            .as_u64()
            .unwrap() as usize,
    );
    let hand_vertex = DVec3::new(positions[6], positions[7], positions[8]);
    assert!(
        hand_vertex.abs_diff_eq(DVec3::new(0.9, 1.45, 0.0), 1e-6),
        "{hand_vertex}"
    );
    let ibm = out.accessor(
        out.json["skins"][0]["inverseBindMatrices"]
            .as_u64()
            .unwrap() as usize,
    );
    let hand = DMat4::from_cols_array(&ibm[32..48].try_into().unwrap()).inverse();
    assert!(hand
        .w_axis
        .truncate()
        .abs_diff_eq(DVec3::new(0.75, 1.4, 0.0), 1e-6));
    // The whole arm turns as one piece, so even the shared vertex rebinds exactly.
    let (max, _) = max_vertex_deviation(&before, &out);
    assert!(max < 1e-6, "{max}");
    let reported = normalized.report.vertex_deviation.as_ref().unwrap().max;
    assert!((reported - max).abs() < 1e-6, "{reported} vs {max}");
    assert_eq!(normalized.report.vertices_rebound, 4);
}

#[test]
fn a_rig_without_a_humanoid_is_refused_with_the_fix() {
    let input = hanging_arm();
    let document = Document::from_slice(&input, "arm.glb", None).unwrap();
    let asset = humanoid::formats::gltf::humanoid::asset_from_document(&document)
        .unwrap()
        .asset;
    let err = normalize_document(&document, &asset, &NormalizeOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("declares no humanoid") && err.contains("--map"),
        "{err}"
    );
}

#[test]
fn the_bind_pose_is_refused_without_a_skin() {
    let input = hanging_arm();
    let (_, asset) = hanging_arm_asset(&input);
    let mut root: Value = {
        let file = Gltf::parse(&input);
        file.json
    };
    root["nodes"][5] = json!({"name": "mesh"});
    root.as_object_mut().unwrap().remove("skins");
    root["meshes"] = json!([]);
    root["nodes"][5] = json!({"name": "empty"});
    let bytes = glb(&root, &Gltf::parse(&input).bin);
    let document = Document::from_slice(&bytes, "arm.glb", None).unwrap();
    let options = NormalizeOptions {
        rest: RestReference::Bind,
        ..NormalizeOptions::default()
    };
    let err = normalize_document(&document, &asset, &options)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--rest bind") && err.contains("no skin"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// The corpus
// ---------------------------------------------------------------------------------------------

#[cfg(feature = "corpus")]
mod corpus {
    use super::*;
    use humanoid::formats::gltf::rest::Normalized;
    use std::f64::consts::FRAC_1_SQRT_2;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    // ---------------------------------------------------------------------------------------------
    // The canonical T-pose, by hand
    // ---------------------------------------------------------------------------------------------

    /// The direction of a bone in the canonical T-pose (facing +Z, left = +X).
    fn canonical(bone: HumanBone) -> Option<DVec3> {
        use HumanBone::*;
        let (x, y, z) = (DVec3::X, DVec3::Y, DVec3::Z);
        let thumb = DVec3::new(FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2);
        Some(match bone {
            Hips | Spine | Chest | UpperChest | Neck => y,
            LeftShoulder
            | LeftUpperArm
            | LeftLowerArm
            | LeftHand
            | LeftIndexProximal
            | LeftIndexIntermediate
            | LeftMiddleProximal
            | LeftMiddleIntermediate
            | LeftRingProximal
            | LeftRingIntermediate
            | LeftLittleProximal
            | LeftLittleIntermediate => x,
            RightShoulder
            | RightUpperArm
            | RightLowerArm
            | RightHand
            | RightIndexProximal
            | RightIndexIntermediate
            | RightMiddleProximal
            | RightMiddleIntermediate
            | RightRingProximal
            | RightRingIntermediate
            | RightLittleProximal
            | RightLittleIntermediate => -x,
            LeftThumbMetacarpal | LeftThumbProximal => thumb,
            RightThumbMetacarpal | RightThumbProximal => DVec3::new(-thumb.x, 0.0, thumb.z),
            LeftUpperLeg | LeftLowerLeg | RightUpperLeg | RightLowerLeg => -y,
            LeftFoot | RightFoot => z,
            _ => return None,
        })
    }

    /// The joints a bone's direction points at, nearest first (the first one mapped counts): the
    /// rest of its chain, or for a hand its proximal finger joints, middle first.
    fn aim(bone: HumanBone) -> Vec<HumanBone> {
        use HumanBone::*;
        match bone {
            LeftHand => {
                return vec![
                    LeftMiddleProximal,
                    LeftRingProximal,
                    LeftIndexProximal,
                    LeftLittleProximal,
                ]
            }
            RightHand => {
                return vec![
                    RightMiddleProximal,
                    RightRingProximal,
                    RightIndexProximal,
                    RightLittleProximal,
                ]
            }
            _ => {}
        }
        let chains: [&[HumanBone]; 17] = [
            &[Hips, Spine, Chest, UpperChest, Neck, Head],
            &[LeftShoulder, LeftUpperArm, LeftLowerArm, LeftHand],
            &[RightShoulder, RightUpperArm, RightLowerArm, RightHand],
            &[LeftUpperLeg, LeftLowerLeg, LeftFoot, LeftToes],
            &[RightUpperLeg, RightLowerLeg, RightFoot, RightToes],
            &[LeftThumbMetacarpal, LeftThumbProximal, LeftThumbDistal],
            &[LeftIndexProximal, LeftIndexIntermediate, LeftIndexDistal],
            &[LeftMiddleProximal, LeftMiddleIntermediate, LeftMiddleDistal],
            &[LeftRingProximal, LeftRingIntermediate, LeftRingDistal],
            &[LeftLittleProximal, LeftLittleIntermediate, LeftLittleDistal],
            &[RightThumbMetacarpal, RightThumbProximal, RightThumbDistal],
            &[RightIndexProximal, RightIndexIntermediate, RightIndexDistal],
            &[
                RightMiddleProximal,
                RightMiddleIntermediate,
                RightMiddleDistal,
            ],
            &[RightRingProximal, RightRingIntermediate, RightRingDistal],
            &[
                RightLittleProximal,
                RightLittleIntermediate,
                RightLittleDistal,
            ],
            &[LeftEye],
            &[RightEye],
        ];
        chains
            .iter()
            .find_map(|chain| {
                let at = chain.iter().position(|b| *b == bone)?;
                Some(chain[at + 1..].to_vec())
            })
            .unwrap_or_default()
    }

    /// World positions of the nodes at rest (from the node TRS).
    fn rest_positions(file: &Gltf) -> Vec<DVec3> {
        file.model()
            .pose(None, 0.0)
            .iter()
            .map(|w| w.w_axis.truncate())
            .collect()
    }

    /// The rotation about +Y taking +X to the character's left: the mean of the horizontal
    /// directions from the right to the left upper leg and upper arm.
    fn yaw(positions: &[DVec3], nodes: &BoneNodes) -> Option<f64> {
        use HumanBone::*;
        let mut left = DVec3::ZERO;
        for (l, r) in [(LeftUpperLeg, RightUpperLeg), (LeftUpperArm, RightUpperArm)] {
            if let (Some(a), Some(b)) = (nodes.get(l), nodes.get(r)) {
                let d = positions[a] - positions[b];
                left += DVec3::new(d.x, 0.0, d.z).normalize();
            }
        }
        (left.length() > 1e-9).then(|| (-left.z).atan2(left.x))
    }

    /// Canonical bone → node index.
    struct BoneNodes(Vec<(HumanBone, usize)>);

    impl BoneNodes {
        fn of(asset: &Asset) -> BoneNodes {
            let bones = &asset.humanoids[0].bones;
            BoneNodes(
                bones
                    .iter()
                    .map(|(bone, joint)| (bone, asset.source_index(joint)))
                    .collect(),
            )
        }

        fn get(&self, bone: HumanBone) -> Option<usize> {
            self.0.iter().find(|(b, _)| *b == bone).map(|(_, n)| *n)
        }
    }

    /// Each measurable mapped bone's angle (degrees) from its canonical direction turned by `yaw`.
    fn bone_deviations(file: &Gltf, nodes: &BoneNodes, yaw: f64) -> Vec<(HumanBone, f64)> {
        let positions = rest_positions(file);
        let turn = DQuat::from_rotation_y(yaw);
        nodes
            .0
            .iter()
            .filter_map(|&(bone, node)| {
                let wanted = turn * canonical(bone)?;
                let next = aim(bone).into_iter().find_map(|b| nodes.get(b))?;
                let d = positions[next] - positions[node];
                (d.length() > 1e-4)
                    .then(|| (bone, d.normalize().angle_between(wanted).to_degrees()))
            })
            .collect()
    }

    // ---------------------------------------------------------------------------------------------
    // Running the normaliser
    // ---------------------------------------------------------------------------------------------

    /// The document and its canonical read, mapped when it declares no humanoid.
    fn read(bytes: &[u8], name: &str) -> (Document, Asset) {
        let document = Document::from_slice(bytes, name, None).expect("read the input");
        let mut asset = humanoid::formats::vrm::asset_from_document(&document)
            .expect("canonical read")
            .asset;
        humanoid::mapping::RigMapping::detect()
            .unwrap()
            .attach(&mut asset, name.as_ref())
            .expect("map the rig");
        (document, asset)
    }

    fn run(bytes: &[u8], name: &str, options: NormalizeOptions) -> (Asset, Normalized, Vec<u8>) {
        let (document, asset) = read(bytes, name);
        let normalized = normalize_document(&document, &asset, &options).expect("normalize");
        let out = normalized
            .document
            .to_glb_bytes()
            .expect("write the output");
        (asset, normalized, out)
    }

    fn shared(path: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpus")
            .join(path)
    }

    /// The Khronos validator's error count (`None`: validator not configured).
    fn validator_errors(bytes: &[u8], name: &str) -> Option<u64> {
        let script = std::env::var("HUMANOID_GLTF_VALIDATOR").ok()?;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).unwrap();
        let output = Command::new("node")
            .arg(script)
            .arg(&file)
            .output()
            .expect("run node");
        assert!(
            output.status.success(),
            "validator failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_slice(&output.stdout).expect("validator JSON");
        report["errors"].as_u64()
    }

    /// The expected yaw of the T-pose: declared (VRM 0.x faces −Z), measured here on the
    /// input's node rest (a mapped rig), or taken from the output's left upper arm (a bind-pose
    /// reference, whose facing this test does not reconstruct).
    enum Facing {
        Declared(f64),
        NodeRest,
        Output,
    }

    /// Normalizes a corpus file and checks what the module docs promise.
    fn check(path: &str, options: NormalizeOptions, facing: Facing) -> Normalized {
        let input = std::fs::read(shared(path)).expect("corpus file");
        let name = Path::new(path).file_name().unwrap().to_str().unwrap();
        check_bytes(&input, name, options, facing)
    }

    /// As [`check`], on a GLB in memory (`name` for messages; `path` below names it).
    fn check_bytes(
        input: &[u8],
        name: &str,
        options: NormalizeOptions,
        facing: Facing,
    ) -> Normalized {
        let path = name;
        let (asset, normalized, output) = run(input, name, options);
        let (before, after) = (Gltf::parse(input), Gltf::parse(&output));
        let nodes = BoneNodes::of(&asset);

        // 1. Every measurable mapped bone points within 1° of its canonical direction.
        let expected = match facing {
            Facing::Declared(yaw) => yaw,
            Facing::NodeRest => yaw(&rest_positions(&before), &nodes).expect("left and right"),
            Facing::Output => {
                // The yaw the left upper arm points at: the other bones must agree with it.
                let positions = rest_positions(&after);
                let arm = |b| positions[nodes.get(b).expect("left arm")];
                let d = arm(HumanBone::LeftLowerArm) - arm(HumanBone::LeftUpperArm);
                (-d.z).atan2(d.x)
            }
        };
        let deviations = bone_deviations(&after, &nodes, expected);
        assert!(
            deviations.len() >= 8,
            "{path}: only {} bones measured",
            deviations.len()
        );
        for (bone, degrees) in &deviations {
            assert!(
                *degrees < 1.0,
                "{path}: {bone} is {degrees:.2}° off its canonical direction"
            );
        }
        // Cross-check: the library's own measure on the written file.
        let (_, reread) = read(&output, name);
        let bones = &reread.humanoids[0].bones;
        let turn = glam::Quat::from_rotation_y(expected as f32);
        let library = humanoid::pose::normalize::deviations(&reread.skeleton, bones, turn);
        assert!(library.iter().all(|(_, d)| *d < 1.0), "{path}: {library:?}");

        // 2. Every clip draws every vertex where the input drew it.
        let (max, clips) = max_vertex_deviation(&before, &after);
        let reported = normalized
            .report
            .vertex_deviation
            .as_ref()
            .expect("measured");
        assert_eq!(reported.clips, clips);
        if options.rebind {
            assert!(
                (reported.max - max).abs() <= 1e-6,
                "{path}: reported {} vs measured {max}",
                reported.max
            );
            assert!(normalized
                .diagnostics
                .contains("NORMALIZE_REBIND_DEVIATION"));
        } else {
            assert!(max <= 1e-4, "{path}: vertices moved by {max} m");
        }

        // 3. No validator error the input did not have.
        let validator = validator_errors(input, name).zip(validator_errors(&output, name));
        match validator {
            Some((old, new)) => {
                assert!(
                    new <= old,
                    "{path}: {new} validator errors, the input had {old}"
                )
            }
            None => eprintln!("{path}: HUMANOID_GLTF_VALIDATOR unset, validator check skipped"),
        }
        let before_max = normalized.report.largest_fixed().map_or(0.0, |(_, d)| d);
        let after_max = normalized
            .report
            .after
            .iter()
            .map(|(_, d)| *d)
            .fold(0.0, f32::max);
        eprintln!(
            "{path} {:?} rebind={}: largest fixed {:?} ({before_max:.2}°), after {after_max:.3}° (own max {:.3}°), {} nodes, {} channels added, vertex deviation {max:.3e} m over {clips} clips (reported {:.3e}), validator errors (input, output) {validator:?}",
            options.rest,
            options.rebind,
            normalized.report.largest_fixed(),
            deviations.iter().map(|(_, d)| *d).fold(0.0, f64::max),
            normalized.report.nodes_changed.len(),
            normalized.report.channels_added,
            reported.max,
        );
        for diagnostic in normalized.diagnostics.iter() {
            eprintln!("    {diagnostic}");
        }
        normalized
    }

    const NORMALIZE: NormalizeOptions = NormalizeOptions {
        rest: RestReference::Node,
        rebind: false,
    };
    const REBIND: NormalizeOptions = NormalizeOptions {
        rest: RestReference::Node,
        rebind: true,
    };
    const BIND: NormalizeOptions = NormalizeOptions {
        rest: RestReference::Bind,
        rebind: false,
    };
    const BIND_REBIND: NormalizeOptions = NormalizeOptions {
        rest: RestReference::Bind,
        rebind: true,
    };

    fn both(path: &str, facing: fn() -> Facing) {
        let normalized = check(path, NORMALIZE, facing());
        assert!(normalized.diagnostics.contains("NORMALIZE_REST"));
        check(path, REBIND, facing());
    }

    #[test]
    fn cesium_man() {
        let n = check("gltf/CesiumMan.glb", NORMALIZE, Facing::NodeRest);
        // The A-pose: arms about 27° below the T.
        let arm = n
            .report
            .before
            .iter()
            .find(|(b, _)| *b == HumanBone::LeftUpperArm)
            .unwrap()
            .1;
        assert!((20.0..35.0).contains(&arm), "{arm}");
        check("gltf/CesiumMan.glb", REBIND, Facing::NodeRest);
    }

    #[test]
    fn rigged_figure() {
        both("gltf/RiggedFigure.glb", || Facing::NodeRest);
    }

    #[test]
    fn soldier() {
        let n = check("gltf/Soldier.glb", NORMALIZE, Facing::NodeRest);
        assert!(
            n.diagnostics.contains("NORMALIZE_BIND_POSE_DIFFERS"),
            "{:?}",
            n.diagnostics
        );
        check("gltf/Soldier.glb", REBIND, Facing::NodeRest);
        check("gltf/Soldier.glb", BIND, Facing::Output);
        check("gltf/Soldier.glb", BIND_REBIND, Facing::Output);
    }

    #[test]
    fn robot_expressive() {
        let n = check("gltf/RobotExpressive.glb", NORMALIZE, Facing::NodeRest);
        assert!(
            n.diagnostics.contains("NORMALIZE_BIND_POSE_DIFFERS"),
            "{:?}",
            n.diagnostics
        );
        check("gltf/RobotExpressive.glb", REBIND, Facing::NodeRest);
        check("gltf/RobotExpressive.glb", BIND, Facing::Output);
        check("gltf/RobotExpressive.glb", BIND_REBIND, Facing::Output);
    }

    #[test]
    fn xbot() {
        both("gltf/Xbot_blender_reexport.glb", || Facing::NodeRest);
    }

    #[test]
    fn mannequiny() {
        both("gltf/mannequiny.glb", || Facing::NodeRest);
    }

    #[test]
    fn godette() {
        // VRM 0.x declares a T-pose facing −Z; its arms droop 2.3°.
        let n = check(
            "vrm/Godette_vrm_v4.vrm",
            NORMALIZE,
            Facing::Declared(std::f64::consts::PI),
        );
        let arm = n
            .report
            .before
            .iter()
            .find(|(b, _)| *b == HumanBone::LeftUpperArm)
            .unwrap()
            .1;
        assert!((1.0..6.0).contains(&arm), "{arm}");
        check(
            "vrm/Godette_vrm_v4.vrm",
            REBIND,
            Facing::Declared(std::f64::consts::PI),
        );
    }

    /// The H-Anim files (issue 6: "and the H-Anim files"): each is converted to a GLB at its
    /// H-Anim default pose (the input here), then normalised as `convert --normalize` does:
    /// every mapped bone within 1° of the T-pose, every clip's skin where it was (1e-4 m), no
    /// new validator error. `convert FILE.x3d OUT.glb --normalize` runs the same two steps.
    #[test]
    fn h_anim_files() {
        let dir = tempfile::tempdir().unwrap();
        for file in [
            "JinLOA4.x3d",
            "JoeKick.x3d",
            "nancy_h-anim.wrl",
            "StandardHumanoid.x3d",
            "KoreanCharacter01Jin.x3d",
            "joe_1.1.wrl",
        ] {
            let glb = dir.path().join(format!("{file}.glb"));
            humanoid::convert::convert(
                &shared(&format!("hanim/{file}")),
                &glb,
                &humanoid::convert::ConvertOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{file}: {e}"));
            let input = std::fs::read(&glb).unwrap();
            check_bytes(&input, &format!("{file}.glb"), NORMALIZE, Facing::NodeRest);
            // The CLI path in one step.
            let normalized = dir.path().join(format!("{file}.normalized.glb"));
            let options = humanoid::convert::ConvertOptions {
                normalize: Some(NORMALIZE),
                ..Default::default()
            };
            humanoid::convert::convert(&shared(&format!("hanim/{file}")), &normalized, &options)
                .unwrap_or_else(|e| panic!("{file} --normalize: {e}"));
        }
    }
}
