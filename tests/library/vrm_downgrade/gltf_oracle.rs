//! World positions of every node and every vertex of a GLB file as the `gltf` crate reads it
//! (an oracle independent of our reader and writer): rest-pose or animated linear blend
//! skinning (`Σ wᵢ·Wⱼᵢ·IBMᵢ·v`), rigid meshes as `W·v`. Morph targets are left out.

use std::collections::BTreeMap;
use std::path::Path;

use glam::{DMat4, DQuat, DVec3};

/// A GLB file read by the `gltf` crate.
pub struct Glb {
    gltf: gltf::Gltf,
    blob: Vec<u8>,
}

impl Glb {
    /// Reads a GLB file. Animation channels without a target node (an extension's, such as
    /// `EXT_skeleton_humanoid`'s) are left out: the `gltf` crate requires the node.
    pub fn open(path: &Path) -> Glb {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let glb = gltf::Glb::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{}: not a GLB file: {e}", path.display()));
        let mut json: serde_json::Value = serde_json::from_slice(&glb.json).unwrap();
        if let Some(animations) = json.get_mut("animations").and_then(|a| a.as_array_mut()) {
            for animation in animations {
                if let Some(channels) = animation.get_mut("channels").and_then(|c| c.as_array_mut())
                {
                    channels.retain(|c| c["target"].get("node").is_some());
                }
            }
        }
        let root: gltf::json::Root = serde_json::from_value(json)
            .unwrap_or_else(|e| panic!("{}: the gltf crate cannot read it: {e}", path.display()));
        let document = gltf::Document::from_json_without_validation(root);
        let blob = glb.bin.map(|b| b.into_owned()).unwrap_or_default();
        Glb {
            gltf: gltf::Gltf {
                document,
                blob: None,
            },
            blob,
        }
    }

    fn data<'s>(&'s self) -> impl for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]> + Clone + 's {
        let blob = self.blob.as_slice();
        move |b: gltf::Buffer<'_>| (b.index() == 0).then_some(blob)
    }

    /// Each node's local rest transform (translation, rotation, scale).
    pub fn rest_locals(&self) -> Vec<(DVec3, DQuat, DVec3)> {
        self.gltf
            .nodes()
            .map(|n| {
                let (t, r, s) = n.transform().decomposed();
                (
                    DVec3::new(t[0].into(), t[1].into(), t[2].into()),
                    DQuat::from_xyzw(r[0].into(), r[1].into(), r[2].into(), r[3].into()),
                    DVec3::new(s[0].into(), s[1].into(), s[2].into()),
                )
            })
            .collect()
    }

    /// How many animations the file has.
    pub fn animation_count(&self) -> usize {
        self.gltf.animations().count()
    }

    /// The animation's key times (every channel's, sorted, without repeats).
    pub fn key_times(&self, animation: usize) -> Vec<f64> {
        let read = self.data();
        let mut times: Vec<f64> = Vec::new();
        let a = self.gltf.animations().nth(animation).expect("animation");
        for channel in a.channels() {
            let reader = channel.reader(read.clone());
            times.extend(reader.read_inputs().expect("inputs").map(f64::from));
        }
        times.sort_by(f64::total_cmp);
        times.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
        times
    }

    /// The local transforms at time `t` of an animation (linear and step interpolation).
    pub fn posed_locals(&self, animation: usize, t: f64) -> Vec<(DVec3, DQuat, DVec3)> {
        use gltf::animation::util::ReadOutputs;
        let mut locals = self.rest_locals();
        let read = self.data();
        let a = self.gltf.animations().nth(animation).expect("animation");
        for channel in a.channels() {
            let node = channel.target().node().index();
            let reader = channel.reader(read.clone());
            let inputs: Vec<f64> = reader.read_inputs().unwrap().map(f64::from).collect();
            let step = matches!(
                channel.sampler().interpolation(),
                gltf::animation::Interpolation::Step
            );
            assert!(
                !matches!(
                    channel.sampler().interpolation(),
                    gltf::animation::Interpolation::CubicSpline
                ),
                "cubic spline sampling is not written here"
            );
            let (i, f) = bracket(&inputs, t, step);
            let local = &mut locals[node];
            match reader.read_outputs().unwrap() {
                ReadOutputs::Translations(v) => {
                    let v: Vec<DVec3> = v.map(vec3).collect();
                    local.0 = v[i].lerp(v[(i + 1).min(v.len() - 1)], f);
                }
                ReadOutputs::Scales(v) => {
                    let v: Vec<DVec3> = v.map(vec3).collect();
                    local.2 = v[i].lerp(v[(i + 1).min(v.len() - 1)], f);
                }
                ReadOutputs::Rotations(r) => {
                    let q: Vec<DQuat> = r
                        .into_f32()
                        .map(|q| {
                            DQuat::from_xyzw(q[0].into(), q[1].into(), q[2].into(), q[3].into())
                        })
                        .collect();
                    local.1 = q[i].slerp(q[(i + 1).min(q.len() - 1)], f);
                }
                ReadOutputs::MorphTargetWeights(_) => {}
            }
        }
        locals
    }

    /// World matrices from local transforms.
    pub fn worlds(&self, locals: &[(DVec3, DQuat, DVec3)]) -> Vec<DMat4> {
        let mut parents = vec![None; locals.len()];
        for n in self.gltf.nodes() {
            for c in n.children() {
                parents[c.index()] = Some(n.index());
            }
        }
        (0..locals.len())
            .map(|mut n| {
                let mut m = DMat4::IDENTITY;
                loop {
                    let (t, r, s) = locals[n];
                    m = DMat4::from_scale_rotation_translation(s, r, t) * m;
                    match parents[n] {
                        Some(p) => n = p,
                        None => break m,
                    }
                }
            })
            .collect()
    }

    /// Every vertex in the world, by (node, primitive): skinned where the node has a skin.
    pub fn vertices(&self, worlds: &[DMat4]) -> BTreeMap<(usize, usize), Vec<DVec3>> {
        let read = self.data();
        let mut out = BTreeMap::new();
        for node in self.gltf.nodes() {
            let Some(mesh) = node.mesh() else { continue };
            let joints: Option<Vec<DMat4>> = node.skin().map(|skin| {
                let ibms: Vec<DMat4> = match skin.reader(read.clone()).read_inverse_bind_matrices()
                {
                    Some(m) => m
                        .map(|m| DMat4::from_cols_array_2d(&m.map(|c| c.map(f64::from))))
                        .collect(),
                    None => vec![DMat4::IDENTITY; skin.joints().count()],
                };
                skin.joints()
                    .zip(ibms)
                    .map(|(j, ibm)| worlds[j.index()] * ibm)
                    .collect()
            });
            for (p, primitive) in mesh.primitives().enumerate() {
                let reader = primitive.reader(read.clone());
                let positions: Vec<DVec3> = reader.read_positions().unwrap().map(vec3).collect();
                let placed = match &joints {
                    None => positions
                        .iter()
                        .map(|&v| worlds[node.index()].transform_point3(v))
                        .collect(),
                    Some(joints) => {
                        let js: Vec<[u16; 4]> = reader.read_joints(0).unwrap().into_u16().collect();
                        let ws: Vec<[f32; 4]> =
                            reader.read_weights(0).unwrap().into_f32().collect();
                        positions
                            .iter()
                            .zip(js.iter().zip(&ws))
                            .map(|(&v, (j, w))| {
                                (0..4)
                                    .map(|k| {
                                        joints[usize::from(j[k])].transform_point3(v)
                                            * f64::from(w[k])
                                    })
                                    .sum()
                            })
                            .collect()
                    }
                };
                out.insert((node.index(), p), placed);
            }
        }
        out
    }
}

fn vec3(v: [f32; 3]) -> DVec3 {
    DVec3::new(v[0].into(), v[1].into(), v[2].into())
}

/// The key at or before `t` and the fraction toward the next.
fn bracket(inputs: &[f64], t: f64, step: bool) -> (usize, f64) {
    let last = inputs.len() - 1;
    if t <= inputs[0] {
        return (0, 0.0);
    }
    if t >= inputs[last] {
        return (last, 0.0);
    }
    let i = inputs.iter().rposition(|&k| k <= t).unwrap();
    if step || i == last {
        return (i, 0.0);
    }
    (i, (t - inputs[i]) / (inputs[i + 1] - inputs[i]))
}

/// `(−x, y, −z)`: a VRM 0.x position turned back to face +Z.
pub fn turned(v: DVec3) -> DVec3 {
    DVec3::new(-v.x, v.y, -v.z)
}
