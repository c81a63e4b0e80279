//! The independent side of the preview tests: a glTF file read with the `gltf` crate, its
//! animation sampled (node transforms and morph weights), its nodes composed and its meshes
//! morphed then skinned on the CPU here (none of it goes through the library's readers, pose
//! code or shaders), and triangles rasterised into a coverage mask.

use std::path::Path;

use glam::{Mat4, Quat, Vec2, Vec3};

/// A glTF document and its binary chunk.
pub struct Gltf {
    pub doc: gltf::Document,
    pub blob: Vec<u8>,
}

impl Gltf {
    /// Reads a GLB (or a VRM) file.
    pub fn open(path: &Path) -> Gltf {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let gltf = gltf::Gltf::from_slice_without_validation(&bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Gltf {
            doc: gltf.document,
            blob: gltf.blob.unwrap_or_default(),
        }
    }

    fn buffer<'a>(&'a self) -> impl Fn(gltf::Buffer<'_>) -> Option<&'a [u8]> + Clone + 'a {
        move |b: gltf::Buffer<'_>| match b.source() {
            gltf::buffer::Source::Bin => Some(self.blob.as_slice()),
            gltf::buffer::Source::Uri(_) => None,
        }
    }

    /// Every node's world matrix with animation `anim` sampled at `t` (`None`: rest).
    pub fn node_worlds(&self, anim: Option<usize>, t: f32) -> Vec<Mat4> {
        let nodes: Vec<gltf::Node<'_>> = self.doc.nodes().collect();
        let mut locals: Vec<(Vec3, Quat, Vec3)> = nodes
            .iter()
            .map(|n| {
                let (t, r, s) = n.transform().decomposed();
                (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
            })
            .collect();
        if let Some(animation) = anim.and_then(|a| self.doc.animations().nth(a)) {
            for channel in animation.channels() {
                let reader = channel.reader(self.buffer());
                let times: Vec<f32> = reader
                    .read_inputs()
                    .map(Iterator::collect)
                    .unwrap_or_default();
                let node = channel.target().node().index();
                let step =
                    channel.sampler().interpolation() == gltf::animation::Interpolation::Step;
                let (k, s) = locate(&times, t);
                let s = if step { 0.0 } else { s };
                let Some(local) = locals.get_mut(node) else {
                    continue;
                };
                match reader.read_outputs() {
                    Some(gltf::animation::util::ReadOutputs::Translations(v)) => {
                        let v: Vec<Vec3> = v.map(Vec3::from).collect();
                        local.0 = v[k].lerp(v[(k + 1).min(v.len() - 1)], s);
                    }
                    Some(gltf::animation::util::ReadOutputs::Scales(v)) => {
                        let v: Vec<Vec3> = v.map(Vec3::from).collect();
                        local.2 = v[k].lerp(v[(k + 1).min(v.len() - 1)], s);
                    }
                    Some(gltf::animation::util::ReadOutputs::Rotations(r)) => {
                        let v: Vec<Quat> = r.into_f32().map(Quat::from_array).collect();
                        local.1 = v[k].slerp(v[(k + 1).min(v.len() - 1)], s).normalize();
                    }
                    _ => {}
                }
            }
        }
        let mut parent = vec![None; nodes.len()];
        for n in &nodes {
            for c in n.children() {
                parent[c.index()] = Some(n.index());
            }
        }
        let mut worlds: Vec<Option<Mat4>> = vec![None; nodes.len()];
        fn world(
            i: usize,
            parent: &[Option<usize>],
            locals: &[(Vec3, Quat, Vec3)],
            worlds: &mut Vec<Option<Mat4>>,
        ) -> Mat4 {
            if let Some(w) = worlds[i] {
                return w;
            }
            let (t, r, s) = locals[i];
            let local = Mat4::from_scale_rotation_translation(s, r, t);
            let w = match parent[i] {
                Some(p) => world(p, parent, locals, worlds) * local,
                None => local,
            };
            worlds[i] = Some(w);
            w
        }
        (0..nodes.len())
            .map(|i| world(i, &parent, &locals, &mut worlds))
            .collect()
    }

    /// Every node's morph weights with animation `anim` sampled at `t` (`None`: rest): the
    /// node's `weights`, else its mesh's, replaced by a `weights` channel on the node (LINEAR
    /// or STEP); empty for a node without.
    pub fn node_weights(&self, anim: Option<usize>, t: f32) -> Vec<Vec<f32>> {
        let mut weights: Vec<Vec<f32>> = self
            .doc
            .nodes()
            .map(|n| {
                n.weights()
                    .or_else(|| n.mesh().and_then(|m| m.weights()))
                    .map(<[f32]>::to_vec)
                    .unwrap_or_default()
            })
            .collect();
        let Some(animation) = anim.and_then(|a| self.doc.animations().nth(a)) else {
            return weights;
        };
        for channel in animation.channels() {
            let reader = channel.reader(self.buffer());
            let Some(gltf::animation::util::ReadOutputs::MorphTargetWeights(values)) =
                reader.read_outputs()
            else {
                continue;
            };
            let values: Vec<f32> = values.into_f32().collect();
            let times: Vec<f32> = reader
                .read_inputs()
                .map(Iterator::collect)
                .unwrap_or_default();
            let interpolation = channel.sampler().interpolation();
            assert!(
                interpolation != gltf::animation::Interpolation::CubicSpline,
                "the reference samples LINEAR and STEP weights only"
            );
            let n = values.len() / times.len();
            let (k, s) = locate(&times, t);
            let s = if interpolation == gltf::animation::Interpolation::Step {
                0.0
            } else {
                s
            };
            let next = (k + 1).min(times.len() - 1);
            weights[channel.target().node().index()] = (0..n)
                .map(|i| values[k * n + i] * (1.0 - s) + values[next * n + i] * s)
                .collect();
        }
        weights
    }

    /// Every triangle of every mesh, morphed by its node's `weights` (from
    /// [`Gltf::node_weights`]) then skinned with `worlds` (`world_j · inverse_bind_j`,
    /// JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1; a mesh without a skin follows its node).
    pub fn skinned_triangles(&self, worlds: &[Mat4], weights: &[Vec<f32>]) -> Vec<[Vec3; 3]> {
        let mut out = Vec::new();
        for node in self.doc.nodes() {
            let Some(mesh) = node.mesh() else { continue };
            let node_weights = &weights[node.index()];
            let palette: Option<Vec<Mat4>> = node.skin().map(|skin| {
                let ibms: Vec<Mat4> = skin
                    .reader(self.buffer())
                    .read_inverse_bind_matrices()
                    .map(|m| m.map(|c| Mat4::from_cols_array_2d(&c)).collect())
                    .unwrap_or_else(|| vec![Mat4::IDENTITY; skin.joints().count()]);
                skin.joints()
                    .zip(ibms)
                    .map(|(j, ibm)| worlds[j.index()] * ibm)
                    .collect()
            });
            for primitive in mesh.primitives() {
                if primitive.mode() != gltf::mesh::Mode::Triangles {
                    continue;
                }
                let reader = primitive.reader(self.buffer());
                let Some(positions) = reader.read_positions() else {
                    continue;
                };
                let mut positions: Vec<Vec3> = positions.map(Vec3::from).collect();
                for (target, w) in reader.read_morph_targets().zip(node_weights) {
                    let Some(deltas) = target.0 else { continue };
                    for (p, d) in positions.iter_mut().zip(deltas) {
                        *p += Vec3::from(d) * *w;
                    }
                }
                let mut matrices = vec![worlds[node.index()]; positions.len()];
                if let (Some(palette), Some(joints), Some(weights)) =
                    (&palette, reader.read_joints(0), reader.read_weights(0))
                {
                    let mut sets = vec![(
                        joints.into_u16().collect::<Vec<_>>(),
                        weights.into_f32().collect::<Vec<_>>(),
                    )];
                    if let (Some(j), Some(w)) = (reader.read_joints(1), reader.read_weights(1)) {
                        sets.push((j.into_u16().collect(), w.into_f32().collect()));
                    }
                    for (v, m) in matrices.iter_mut().enumerate() {
                        let total: f32 = sets.iter().map(|(_, w)| w[v].iter().sum::<f32>()).sum();
                        let mut sum = Mat4::ZERO;
                        for (j, w) in &sets {
                            for k in 0..4 {
                                sum += palette[j[v][k] as usize] * (w[v][k] / total);
                            }
                        }
                        *m = sum;
                    }
                }
                let indices: Vec<u32> = match reader.read_indices() {
                    Some(i) => i.into_u32().collect(),
                    None => (0..positions.len() as u32).collect(),
                };
                for t in indices.chunks_exact(3) {
                    let p = |i: u32| matrices[i as usize].transform_point3(positions[i as usize]);
                    out.push([p(t[0]), p(t[1]), p(t[2])]);
                }
            }
        }
        out
    }
}

/// The key before `t` and how far `t` is towards the next (clamped at both ends).
fn locate(times: &[f32], t: f32) -> (usize, f32) {
    if times.len() < 2 || t <= times[0] {
        return (0, 0.0);
    }
    for k in 0..times.len() - 1 {
        if t < times[k + 1] {
            return (k, (t - times[k]) / (times[k + 1] - times[k]));
        }
    }
    (times.len() - 1, 0.0)
}

/// A coverage mask: which pixel centres a set of triangles covers.
pub struct Mask {
    pub width: u32,
    pub height: u32,
    pub bits: Vec<bool>,
}

impl Mask {
    pub fn count(&self) -> usize {
        self.bits.iter().filter(|&&b| b).count()
    }

    pub fn get(&self, x: i64, y: i64) -> bool {
        x >= 0
            && y >= 0
            && (x as u32) < self.width
            && (y as u32) < self.height
            && self.bits[(y as u32 * self.width + x as u32) as usize]
    }

    /// Intersection over union with another mask of the same size.
    pub fn iou(&self, other: &Mask) -> f64 {
        let (mut both, mut either) = (0usize, 0usize);
        for (a, b) in self.bits.iter().zip(&other.bits) {
            both += usize::from(*a && *b);
            either += usize::from(*a || *b);
        }
        both as f64 / either.max(1) as f64
    }

    /// Pixels of the mask with a 4-neighbour outside it.
    fn boundary(&self) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        for y in 0..self.height as i64 {
            for x in 0..self.width as i64 {
                if self.get(x, y)
                    && !(self.get(x - 1, y)
                        && self.get(x + 1, y)
                        && self.get(x, y - 1)
                        && self.get(x, y + 1))
                {
                    out.push((x, y));
                }
            }
        }
        out
    }

    /// The mean distance in pixels from each boundary pixel of either mask to the nearest
    /// boundary pixel of the other (symmetric chamfer distance).
    pub fn mean_boundary_distance(&self, other: &Mask) -> f64 {
        let a = self.boundary();
        let b = other.boundary();
        if a.is_empty() || b.is_empty() {
            return f64::INFINITY;
        }
        let one_way = |from: &[(i64, i64)], to: &[(i64, i64)]| {
            from.iter()
                .map(|&(x, y)| {
                    to.iter()
                        .map(|&(u, v)| (((x - u).pow(2) + (y - v).pow(2)) as f64).sqrt())
                        .fold(f64::INFINITY, f64::min)
                })
                .sum::<f64>()
        };
        (one_way(&a, &b) + one_way(&b, &a)) / (a.len() + b.len()) as f64
    }
}

/// The standard 4× multisample positions (Vulkan, D3D) inside a pixel.
const SAMPLES: [(f32, f32); 4] = [
    (0.375, 0.125),
    (0.875, 0.375),
    (0.125, 0.625),
    (0.625, 0.875),
];

/// The pixels at least half covered by the triangles (already in pixels; either winding):
/// two or more of the four standard sample positions inside a triangle.
pub fn rasterise(triangles: &[[Vec2; 3]], width: u32, height: u32) -> Mask {
    let mut samples = vec![[false; 4]; (width * height) as usize];
    for [a, b, c] in triangles {
        let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
        if area.abs() < 1e-12 {
            continue;
        }
        let lo = a.min(*b).min(*c).floor().max(Vec2::ZERO);
        let hi = a
            .max(*b)
            .max(*c)
            .ceil()
            .min(Vec2::new(width as f32, height as f32));
        for y in lo.y as u32..hi.y as u32 {
            for x in lo.x as u32..hi.x as u32 {
                for (k, (dx, dy)) in SAMPLES.iter().enumerate() {
                    let p = Vec2::new(x as f32 + dx, y as f32 + dy);
                    let e = |u: Vec2, v: Vec2| {
                        ((v.x - u.x) * (p.y - u.y) - (v.y - u.y) * (p.x - u.x)) * area.signum()
                    };
                    if e(*a, *b) >= 0.0 && e(*b, *c) >= 0.0 && e(*c, *a) >= 0.0 {
                        samples[(y * width + x) as usize][k] = true;
                    }
                }
            }
        }
    }
    let bits = samples
        .iter()
        .map(|s| s.iter().filter(|&&b| b).count() >= 2)
        .collect();
    Mask {
        width,
        height,
        bits,
    }
}

/// The pixels of a silhouette pass (white on the background) at least half covered: with 4×
/// MSAA a pixel is the linear mix of white and the background by the share of samples
/// covered, so 1/4 gives about 142 in sRGB red, 2/4 about 188; 165 splits them.
pub fn silhouette(image: &humanoid::preview::Image) -> Mask {
    let bits = image.rgba().chunks_exact(4).map(|p| p[0] >= 165).collect();
    Mask {
        width: image.width(),
        height: image.height(),
        bits,
    }
}
