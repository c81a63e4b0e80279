//! A document decoded for evaluation in `f64`: every node's rest transform, the skins, the
//! vertices each mesh node draws, and the node channels of every animation.
//!
//! [`Scene::pose`] poses the nodes at a time of an animation (glTF 2.0 Appendix C, sampled in
//! `f64`, clamped outside the keys) and [`Scene::draw_positions`] places every drawn vertex in
//! world space: skinned primitives by linear blend skinning (`Σ w · J_j · IBM_j · v`, the
//! skinned mesh node's own transform ignored, as glTF requires), others by their node's world
//! matrix. Morph targets are not applied.

use glam::{DMat4, DQuat, DVec3};

use super::super::accessor;
use super::super::document::Document;
use super::super::json::{floats, Animation, Channel, Index, Node};
use crate::error::{Error, Location};
use crate::pose::bake::blend;

/// A node's rest transform: its matrix, and the TRS an animation overrides.
#[derive(Debug, Clone, Copy)]
pub(super) struct NodeRest {
    pub(super) matrix: DMat4,
    pub(super) translation: DVec3,
    pub(super) rotation: DQuat,
    pub(super) scale: DVec3,
    /// Whether the node is given by a `matrix` (then `matrix` is exact, the TRS decomposed).
    pub(super) has_matrix: bool,
}

/// A skin's joints (node indices) and inverse bind matrices (identity when absent).
#[derive(Debug, Clone)]
pub(in crate::formats::gltf) struct SkinData {
    pub(in crate::formats::gltf) joints: Vec<usize>,
    pub(in crate::formats::gltf) inverse_bind: Vec<DMat4>,
}

/// One primitive drawn by one node: its vertices and, when skinned, their influences
/// (`(index into the skin's joints, weight)`).
#[derive(Debug, Clone)]
pub(super) struct Draw {
    pub(super) node: usize,
    pub(super) skin: Option<usize>,
    pub(super) positions: Vec<DVec3>,
    pub(super) influences: Vec<Vec<(usize, f64)>>,
}

/// Which node property a track drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Path {
    Translation,
    Rotation,
    Scale,
}

/// glTF's interpolation modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Step,
    Linear,
    CubicSpline,
}

/// One node channel, its keys widened to `f64`.
#[derive(Debug, Clone)]
struct Track {
    node: usize,
    path: Path,
    mode: Mode,
    times: Vec<f64>,
    values: Vec<f64>,
}

/// An animation's node tracks and the span of all its samplers' keys.
#[derive(Debug, Clone)]
pub(super) struct Clip {
    pub(super) name: String,
    pub(super) start: f64,
    pub(super) end: f64,
    tracks: Vec<Track>,
}

impl Clip {
    /// Whether the clip drives `path` of `node`.
    pub(super) fn drives(&self, node: usize, path: Path) -> bool {
        self.tracks.iter().any(|t| t.node == node && t.path == path)
    }

    /// `count` times spread evenly from the first key to the last, both included.
    pub(super) fn sample_times(&self, count: usize) -> Vec<f64> {
        let last = count.saturating_sub(1).max(1) as f64;
        (0..count)
            .map(|i| self.start + (self.end - self.start) * i as f64 / last)
            .collect()
    }
}

/// The decoded document.
#[derive(Debug, Clone)]
pub(in crate::formats::gltf) struct Scene {
    /// Each node's parent.
    pub(super) parents: Vec<Option<usize>>,
    /// Every node, parents first.
    pub(super) order: Vec<usize>,
    /// Each node's rest transform.
    pub(super) rest: Vec<NodeRest>,
    /// The skins.
    pub(in crate::formats::gltf) skins: Vec<SkinData>,
    /// The animations, in document order.
    pub(super) clips: Vec<Clip>,
    /// Every primitive a node draws.
    pub(super) draws: Vec<Draw>,
}

impl Scene {
    /// Decodes `document` (its vertices too when `with_draws`).
    ///
    /// # Errors
    /// An accessor cannot be read or has the wrong size; a joint index past its skin's joints.
    pub(in crate::formats::gltf) fn read(
        document: &Document,
        with_draws: bool,
    ) -> Result<Scene, Error> {
        let nodes = &document.root.nodes;
        let parents = parents_of(nodes);
        let order = parents_first(nodes, &parents);
        let rest = nodes.iter().map(|n| node_rest(n)).collect();
        let skins = skins_of(document)?;
        let clips = document
            .root
            .animations
            .iter()
            .enumerate()
            .map(|(a, animation)| clip_of(document, a, animation))
            .collect::<Result<_, _>>()?;
        let draws = if with_draws {
            draws_of(document, &skins)?
        } else {
            Vec::new()
        };
        Ok(Scene {
            parents,
            order,
            rest,
            skins,
            clips,
            draws,
        })
    }

    /// Every node's world matrix at rest, with `rotations` (per node) in place of the rest
    /// rotations when given.
    pub(in crate::formats::gltf) fn rest_worlds(&self, rotations: Option<&[DQuat]>) -> Vec<DMat4> {
        let locals: Vec<DMat4> = self
            .rest
            .iter()
            .enumerate()
            .map(|(node, rest)| match rotations.and_then(|r| r.get(node)) {
                Some(rotation) if !(rest.has_matrix && *rotation == rest.rotation) => {
                    DMat4::from_scale_rotation_translation(rest.scale, *rotation, rest.translation)
                }
                _ => rest.matrix,
            })
            .collect();
        self.compose(&locals)
    }

    /// Every node's world matrix at time `t` of `clip` (at rest for `None`).
    pub(super) fn pose(&self, clip: Option<&Clip>, t: f64) -> Vec<DMat4> {
        let mut trs: Vec<(DVec3, DQuat, DVec3, bool)> = self
            .rest
            .iter()
            .map(|r| (r.translation, r.rotation, r.scale, false))
            .collect();
        for track in clip.map_or(&[][..], |c| &c.tracks) {
            if let Some(slot) = trs.get_mut(track.node) {
                track.apply(t, slot);
            }
        }
        let locals: Vec<DMat4> = trs
            .iter()
            .zip(&self.rest)
            .map(|(&(t, r, s, animated), rest)| {
                if animated {
                    DMat4::from_scale_rotation_translation(s, r, t)
                } else {
                    rest.matrix
                }
            })
            .collect();
        self.compose(&locals)
    }

    fn compose(&self, locals: &[DMat4]) -> Vec<DMat4> {
        let mut worlds = locals.to_vec();
        for &node in &self.order {
            let parent = self
                .parents
                .get(node)
                .copied()
                .flatten()
                .and_then(|p| worlds.get(p).copied());
            if let (Some(parent), Some(slot)) = (parent, worlds.get_mut(node)) {
                *slot = parent * *slot;
            }
        }
        worlds
    }

    /// Every drawn vertex in world space for the node world matrices `worlds`, draw by draw.
    pub(super) fn draw_positions(&self, worlds: &[DMat4], out: &mut Vec<DVec3>) {
        out.clear();
        let skin_matrices: Vec<Vec<DMat4>> = self
            .skins
            .iter()
            .map(|skin| {
                skin.joints
                    .iter()
                    .zip(&skin.inverse_bind)
                    .map(|(&joint, ibm)| {
                        worlds.get(joint).copied().unwrap_or(DMat4::IDENTITY) * *ibm
                    })
                    .collect()
            })
            .collect();
        for draw in &self.draws {
            match draw.skin.and_then(|s| skin_matrices.get(s)) {
                Some(matrices) => {
                    for (p, influences) in draw.positions.iter().zip(&draw.influences) {
                        let m = blend(matrices, influences).unwrap_or(DMat4::ZERO);
                        out.push(m.transform_point3(*p));
                    }
                }
                None => {
                    let m = worlds.get(draw.node).copied().unwrap_or(DMat4::IDENTITY);
                    out.extend(draw.positions.iter().map(|p| m.transform_point3(*p)));
                }
            }
        }
    }

    /// How many vertices [`Scene::draw_positions`] places.
    pub(super) fn vertex_count(&self) -> usize {
        self.draws.iter().map(|d| d.positions.len()).sum()
    }
}

/// Each node's parent (the document layer has checked that the nodes form a forest).
pub(super) fn parents_of(nodes: &[impl std::ops::Deref<Target = Node>]) -> Vec<Option<usize>> {
    let mut parents = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for child in &node.children {
            if let Some(slot) = parents.get_mut(child.as_usize()) {
                *slot = Some(i);
            }
        }
    }
    parents
}

/// The nodes in depth-first order from the roots, parents first.
fn parents_first(
    nodes: &[impl std::ops::Deref<Target = Node>],
    parents: &[Option<usize>],
) -> Vec<usize> {
    let mut order = Vec::with_capacity(nodes.len());
    let mut seen = vec![false; nodes.len()];
    let mut stack: Vec<usize> = (0..nodes.len())
        .rev()
        .filter(|&n| parents.get(n).copied().flatten().is_none())
        .collect();
    while let Some(node) = stack.pop() {
        match seen.get_mut(node) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        order.push(node);
        if let Some(n) = nodes.get(node) {
            stack.extend(n.children.iter().rev().map(|c| c.as_usize()));
        }
    }
    order
}

/// A node's rest transform in `f64`, its rotation normalized.
pub(super) fn node_rest(node: &Node) -> NodeRest {
    if let Some(matrix) = &node.matrix {
        let matrix = DMat4::from_cols_array(&floats(matrix));
        let (scale, rotation, translation) = matrix.to_scale_rotation_translation();
        return NodeRest {
            matrix,
            translation,
            rotation: unit(rotation),
            scale,
            has_matrix: true,
        };
    }
    let translation = node
        .translation
        .as_ref()
        .map_or(DVec3::ZERO, |t| DVec3::from_array(floats(t)));
    let rotation = node
        .rotation
        .as_ref()
        .map_or(DQuat::IDENTITY, |r| unit(DQuat::from_array(floats(r))));
    let scale = node
        .scale
        .as_ref()
        .map_or(DVec3::ONE, |s| DVec3::from_array(floats(s)));
    NodeRest {
        matrix: DMat4::from_scale_rotation_translation(scale, rotation, translation),
        translation,
        rotation,
        scale,
        has_matrix: false,
    }
}

/// `q` normalized; the identity for a zero or non-finite quaternion.
fn unit(q: DQuat) -> DQuat {
    let length = q.length();
    if length.is_finite() && length > 0.0 {
        q / length
    } else {
        DQuat::IDENTITY
    }
}

fn invalid(document: &Document, pointer: String, message: String) -> Error {
    Error::invalid(document.path(), Location::JsonPointer(pointer), message)
}

/// Every skin's joints and inverse bind matrices.
fn skins_of(document: &Document) -> Result<Vec<SkinData>, Error> {
    let mut out = Vec::with_capacity(document.root.skins.len());
    for (s, skin) in document.root.skins.iter().enumerate() {
        let joints: Vec<usize> = skin.joints.iter().map(|j| j.as_usize()).collect();
        let inverse_bind = match skin.inverse_bind_matrices {
            None => vec![DMat4::IDENTITY; joints.len()],
            Some(index) => {
                let values = accessor::read_f32(document, index)?;
                if values.len() < joints.len().saturating_mul(16) {
                    return Err(invalid(
                        document,
                        format!("/skins/{s}/inverseBindMatrices"),
                        format!("{} matrices for {} joints", values.len() / 16, joints.len()),
                    ));
                }
                values
                    .chunks_exact(16)
                    .take(joints.len())
                    .map(|m| DMat4::from_cols_array(&std::array::from_fn(|i| widen(m, i))))
                    .collect()
            }
        };
        out.push(SkinData {
            joints,
            inverse_bind,
        });
    }
    Ok(out)
}

fn widen(values: &[f32], i: usize) -> f64 {
    values.get(i).copied().map_or(0.0, f64::from)
}

/// One animation's node tracks (channels with a node, or a `KHR_animation_pointer` to a node's
/// TRS), and the span of all its samplers' keys.
fn clip_of(document: &Document, a: usize, animation: &Animation) -> Result<Clip, Error> {
    let mut start = f64::INFINITY;
    let mut end = f64::NEG_INFINITY;
    for sampler in &animation.samplers {
        let times = accessor::read_f32(document, sampler.input)?;
        if let (Some(first), Some(last)) = (times.first(), times.last()) {
            start = start.min(f64::from(*first));
            end = end.max(f64::from(*last));
        }
    }
    if !start.is_finite() || !end.is_finite() {
        (start, end) = (0.0, 0.0);
    }
    let mut tracks = Vec::new();
    for (c, channel) in animation.channels.iter().enumerate() {
        let Some((node, path)) = channel_target(channel) else {
            continue;
        };
        let pointer = format!("/animations/{a}/channels/{c}");
        tracks.push(track_of(
            document, animation, channel, node, path, &pointer,
        )?);
    }
    Ok(Clip {
        name: animation
            .name
            .clone()
            .unwrap_or_else(|| format!("animation {a}")),
        start,
        end,
        tracks,
    })
}

/// The node and property a channel drives, when it drives a node's TRS.
pub(super) fn channel_target(channel: &Channel) -> Option<(usize, Path)> {
    let target = &channel.target;
    if let Some(node) = target.node {
        if target.path != "pointer" {
            return Some((node.as_usize(), path_of(&target.path)?));
        }
    }
    let pointer = target
        .extensions
        .as_ref()?
        .get("KHR_animation_pointer")?
        .get("pointer")?
        .as_str()?;
    let rest = pointer.strip_prefix("/nodes/")?;
    let (node, property) = rest.split_once('/')?;
    Some((node.parse().ok()?, path_of(property)?))
}

fn path_of(text: &str) -> Option<Path> {
    match text {
        "translation" => Some(Path::Translation),
        "rotation" => Some(Path::Rotation),
        "scale" => Some(Path::Scale),
        _ => None,
    }
}

fn track_of(
    document: &Document,
    animation: &Animation,
    channel: &Channel,
    node: usize,
    path: Path,
    pointer: &str,
) -> Result<Track, Error> {
    let sampler = animation
        .samplers
        .get(channel.sampler.as_usize())
        .ok_or_else(|| {
            invalid(
                document,
                format!("{pointer}/sampler"),
                format!("sampler {} does not exist", channel.sampler),
            )
        })?;
    let mode = match sampler.interpolation.as_deref() {
        None | Some("LINEAR") => Mode::Linear,
        Some("STEP") => Mode::Step,
        Some("CUBICSPLINE") => Mode::CubicSpline,
        Some(other) => {
            return Err(invalid(
                document,
                format!("{pointer}/sampler"),
                format!("unknown interpolation {other:?}"),
            ))
        }
    };
    let times: Vec<f64> = accessor::read_f32(document, sampler.input)?
        .into_iter()
        .map(f64::from)
        .collect();
    let values: Vec<f64> = accessor::read_f32(document, sampler.output)?
        .into_iter()
        .map(f64::from)
        .collect();
    let track = Track {
        node,
        path,
        mode,
        times,
        values,
    };
    let expected = track.times.len() * track.width() * track.per_key();
    if track.values.len() != expected || track.times.is_empty() {
        return Err(invalid(
            document,
            pointer.to_owned(),
            format!(
                "{} key times and {} values: expected {expected} values",
                track.times.len(),
                track.values.len()
            ),
        ));
    }
    Ok(track)
}

/// Where a time falls among the keys.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Position {
    /// On key `i`, or clamped to it outside the keys.
    Key(usize),
    /// Between keys `i` and `i + 1`, at the fraction `s`.
    Between(usize, f64),
}

/// Locates `t` among increasing `times` (clamped outside them).
fn locate(times: &[f64], t: f64) -> Position {
    let last = times.len().saturating_sub(1);
    match times.first() {
        Some(first) if t > *first => {}
        _ => return Position::Key(0),
    }
    if times.get(last).is_none_or(|l| t >= *l) {
        return Position::Key(last);
    }
    // The first key after t (exists: t < times[last]); its predecessor is at or before t.
    let after = times.partition_point(|k| *k <= t);
    let i = after.saturating_sub(1);
    match (times.get(i), times.get(after)) {
        (Some(a), Some(b)) if b > a => Position::Between(i, (t - a) / (b - a)),
        _ => Position::Key(i),
    }
}

impl Track {
    fn width(&self) -> usize {
        match self.path {
            Path::Rotation => 4,
            Path::Translation | Path::Scale => 3,
        }
    }

    fn per_key(&self) -> usize {
        match self.mode {
            Mode::CubicSpline => 3,
            Mode::Step | Mode::Linear => 1,
        }
    }

    /// Element `e` of the output (a value, or a tangent for cubic splines).
    fn element(&self, e: usize) -> &[f64] {
        let w = self.width();
        self.values.get(e * w..(e + 1) * w).unwrap_or_default()
    }

    /// The value of key `k`.
    fn value(&self, k: usize) -> &[f64] {
        match self.mode {
            Mode::CubicSpline => self.element(3 * k + 1),
            Mode::Step | Mode::Linear => self.element(k),
        }
    }

    /// Writes the track's value at `t` into a node's (translation, rotation, scale) and marks
    /// it animated.
    fn apply(&self, t: f64, trs: &mut (DVec3, DQuat, DVec3, bool)) {
        let value = self.sample(t);
        match self.path {
            Path::Translation => trs.0 = vec3(&value),
            Path::Rotation => trs.1 = unit(DQuat::from_array(quat(&value))),
            Path::Scale => trs.2 = vec3(&value),
        }
        trs.3 = true;
    }

    fn sample(&self, t: f64) -> Vec<f64> {
        match locate(&self.times, t) {
            Position::Key(k) => self.value(k).to_vec(),
            Position::Between(k, s) => match self.mode {
                Mode::Step => self.value(k).to_vec(),
                Mode::Linear if self.path == Path::Rotation => {
                    slerp(quat(self.value(k)), quat(self.value(k + 1)), s).to_vec()
                }
                Mode::Linear => lerp(self.value(k), self.value(k + 1), s),
                Mode::CubicSpline => {
                    let dt = self.times.get(k + 1).zip(self.times.get(k));
                    let dt = dt.map_or(0.0, |(b, a)| b - a);
                    cubic(
                        self.value(k),
                        self.element(3 * k + 2),
                        self.element(3 * (k + 1)),
                        self.value(k + 1),
                        s,
                        dt,
                    )
                }
            },
        }
    }
}

fn vec3(v: &[f64]) -> DVec3 {
    DVec3::new(at(v, 0), at(v, 1), at(v, 2))
}

fn quat(v: &[f64]) -> [f64; 4] {
    [at(v, 0), at(v, 1), at(v, 2), at(v, 3)]
}

fn at(v: &[f64], i: usize) -> f64 {
    v.get(i).copied().unwrap_or(0.0)
}

/// glTF LINEAR for vectors: `(1 − s) · a + s · b`.
fn lerp(a: &[f64], b: &[f64], s: f64) -> Vec<f64> {
    a.iter().zip(b).map(|(a, b)| a + (b - a) * s).collect()
}

/// glTF LINEAR for rotations: spherical linear interpolation along the shorter arc.
fn slerp(a: [f64; 4], b: [f64; 4], s: f64) -> [f64; 4] {
    let (qa, mut qb) = (DQuat::from_array(a), DQuat::from_array(b));
    let mut d = qa.dot(qb);
    if d < 0.0 {
        qb = -qb;
        d = -d;
    }
    let (wa, wb) = if d > 1.0 - 1e-12 {
        (1.0 - s, s)
    } else {
        let angle = d.min(1.0).acos();
        let sin = angle.sin();
        (((1.0 - s) * angle).sin() / sin, (s * angle).sin() / sin)
    };
    (qa * wa + qb * wb).to_array()
}

/// glTF CUBICSPLINE: the Hermite spline through `v_k` and `v_k1` with the out-tangent `b_k`
/// and in-tangent `a_k1`, both scaled by the key spacing `dt`.
fn cubic(v_k: &[f64], b_k: &[f64], a_k1: &[f64], v_k1: &[f64], s: f64, dt: f64) -> Vec<f64> {
    let (s2, s3) = (s * s, s * s * s);
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = s3 - 2.0 * s2 + s;
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = s3 - s2;
    (0..v_k.len())
        .map(|i| {
            h00 * at(v_k, i) + h10 * dt * at(b_k, i) + h01 * at(v_k1, i) + h11 * dt * at(a_k1, i)
        })
        .collect()
}

/// Every primitive drawn by a node with a mesh, with its influences when the node is skinned.
fn draws_of(document: &Document, skins: &[SkinData]) -> Result<Vec<Draw>, Error> {
    let root = &document.root;
    let mut draws = Vec::new();
    for (n, node) in root.nodes.iter().enumerate() {
        let Some(mesh) = node.mesh.and_then(|m| root.meshes.get(m.as_usize())) else {
            continue;
        };
        let skin = node.skin.map(Index::as_usize);
        for primitive in &mesh.primitives {
            let Some(position) = primitive.attributes.get("POSITION") else {
                continue;
            };
            let positions = vec3s(&accessor::read_f32(document, position)?);
            let influences = match skin.and_then(|s| Some((s, skins.get(s)?))) {
                Some((s, data)) => {
                    let joints = data.joints.len();
                    influences_of(document, &primitive.attributes, positions.len(), joints, s)?
                }
                None => Vec::new(),
            };
            draws.push(Draw {
                node: n,
                skin: skin.filter(|_| !influences.is_empty()),
                positions,
                influences,
            });
        }
    }
    Ok(draws)
}

/// Flat `[x, y, z, ...]` as vectors.
pub(super) fn vec3s(values: &[f32]) -> Vec<DVec3> {
    values
        .chunks_exact(3)
        .map(|c| DVec3::new(widen(c, 0), widen(c, 1), widen(c, 2)))
        .collect()
}

/// Each vertex's `(joint, weight)` pairs from every `JOINTS_n` / `WEIGHTS_n` set (zero weights
/// left out); empty when the primitive has no `JOINTS_0`.
///
/// # Errors
/// A set cannot be read, has the wrong length, or names a joint past the skin's `joints`.
pub(in crate::formats::gltf) fn influences_of(
    document: &Document,
    attributes: &super::super::json::Attributes,
    vertices: usize,
    joints: usize,
    skin: usize,
) -> Result<Vec<Vec<(usize, f64)>>, Error> {
    let mut out: Vec<Vec<(usize, f64)>> = Vec::new();
    for set in 0.. {
        let (Some(j), Some(w)) = (
            attributes.get(&format!("JOINTS_{set}")),
            attributes.get(&format!("WEIGHTS_{set}")),
        ) else {
            break;
        };
        let indices = accessor::read_u32(document, j)?;
        let weights = accessor::read_f32(document, w)?;
        if indices.len() != vertices * 4 || weights.len() != vertices * 4 {
            return Err(invalid(
                document,
                format!("/accessors/{j}"),
                format!("JOINTS_{set}/WEIGHTS_{set} do not hold 4 values for each of {vertices} vertices"),
            ));
        }
        if out.is_empty() {
            out = vec![Vec::with_capacity(4); vertices];
        }
        for ((slot, js), ws) in out
            .iter_mut()
            .zip(indices.chunks_exact(4))
            .zip(weights.chunks_exact(4))
        {
            for (&joint, &weight) in js.iter().zip(ws) {
                if weight == 0.0 {
                    continue;
                }
                let joint = usize::try_from(joint).unwrap_or(usize::MAX);
                if joint >= joints {
                    return Err(invalid(
                        document,
                        format!("/accessors/{j}"),
                        format!("a vertex is weighted to joint {joint}, but skin {skin} has {joints} joints"),
                    ));
                }
                slot.push((joint, f64::from(weight)));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_clamps_and_finds_segments() {
        let times = [0.0, 1.0, 3.0];
        assert_eq!(locate(&times, -1.0), Position::Key(0));
        assert_eq!(locate(&times, 0.0), Position::Key(0));
        assert_eq!(locate(&times, 2.0), Position::Between(1, 0.5));
        assert_eq!(locate(&times, 1.0), Position::Between(1, 0.0));
        assert_eq!(locate(&times, 3.0), Position::Key(2));
        assert_eq!(locate(&times, 9.0), Position::Key(2));
        assert_eq!(locate(&[2.0], 5.0), Position::Key(0));
    }

    #[test]
    fn slerp_halfway_to_a_quarter_turn() {
        let q = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2);
        let half = slerp(DQuat::IDENTITY.to_array(), q.to_array(), 0.5);
        let expected = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4);
        assert!(DQuat::from_array(half).abs_diff_eq(expected, 1e-12));
        // The shorter arc: −q is the same rotation.
        let neg = (-q).to_array();
        let half = slerp(DQuat::IDENTITY.to_array(), neg, 0.5);
        assert!(DQuat::from_array(half).abs_diff_eq(expected, 1e-12));
    }

    #[test]
    fn cubic_with_zero_tangents_is_smoothstep() {
        let v = cubic(&[0.0], &[0.0], &[0.0], &[1.0], 0.25, 2.0);
        assert!((v[0] - (3.0 * 0.0625 - 2.0 * 0.015625)).abs() < 1e-15);
    }
}
