//! The accessor data a rest bake moves (see `bake.rs`): inverse bind matrices, the geometry of
//! meshes held directly by baked nodes, and animation keys.
//!
//! Data is read from the input, transformed in `f64` and written as new dense `FLOAT`
//! accessors in one buffer appended to the output; the uses are pointed at them (an accessor
//! the input shares with a use that does not move stays as it was). Nothing is changed in
//! place, so data shared between uses that move differently cannot be corrupted.

use std::collections::HashMap;

use glam::{DMat3, DMat4, DQuat, DVec3};

use super::bake::{label, similarity, Frames};
use super::vrm1::short_list;
use crate::error::{Diagnostics, Error, Location};
use crate::formats::gltf::accessor::{self, ElementType};
use crate::formats::gltf::json::{
    Accessor, AnimationSampler, Buffer, BufferView, Float, Index, Mesh, Ordered,
};
use crate::formats::gltf::Document;

/// `FLOAT` (5126).
const FLOAT: u32 = 5126;
/// `ARRAY_BUFFER` (34962), the target of vertex attribute views.
const ARRAY_BUFFER: u32 = 34962;
/// How far a scale key's components may differ (relative) and still count as uniform (such a
/// key is written as its mean): animation exporters leave noise of about 1e-6 in uniform
/// scale keys (CesiumMan's `1.0000003576278687, 1, 0.9999992251396179`), and what this
/// ignores moves a joint 1 m from the node by at most 10 µm.
const UNIFORM: f64 = 1e-5;
/// How many items a diagnostic names.
const SHOWN: usize = 6;

/// New dense float data, gathered into one buffer appended at the end.
struct Appender {
    buffer: Index<Buffer>,
    bytes: Vec<u8>,
}

impl Appender {
    /// Appends `values` (`element` each) as a new accessor and returns its index.
    fn push(
        &mut self,
        out: &mut Document,
        values: &[f64],
        element: ElementType,
        vertex: bool,
        bounds: bool,
    ) -> Result<Index<Accessor>, Error> {
        let too_big = || Error::unsupported("the baked data does not fit in one buffer");
        let width = element.components();
        let offset = self.bytes.len();
        self.bytes.reserve(values.len().saturating_mul(4));
        #[allow(clippy::cast_possible_truncation)]
        let narrow: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        for v in &narrow {
            self.bytes.extend_from_slice(&v.to_le_bytes());
        }
        let byte_offset = u64::try_from(offset).map_err(|_| too_big())?;
        let byte_length =
            u64::try_from(self.bytes.len().saturating_sub(offset)).map_err(|_| too_big())?;
        let view = Index::try_from(out.root.buffer_views.len())
            .map_err(|_| Error::unsupported("too many buffer views"))?;
        out.root.buffer_views.push(Ordered::new(BufferView {
            buffer: self.buffer,
            byte_offset: (byte_offset > 0).then_some(byte_offset),
            byte_length,
            target: vertex.then_some(ARRAY_BUFFER),
            ..BufferView::default()
        }));
        let count =
            u64::try_from(narrow.len().checked_div(width).unwrap_or(0)).map_err(|_| too_big())?;
        let (min, max) = if bounds {
            let (lo, hi) = extent(&narrow, width);
            (Some(lo), Some(hi))
        } else {
            (None, None)
        };
        let index = Index::try_from(out.root.accessors.len())
            .map_err(|_| Error::unsupported("too many accessors"))?;
        out.root.accessors.push(Ordered::new(Accessor {
            buffer_view: Some(view),
            component_type: FLOAT,
            count,
            element_type: element.as_str().to_owned(),
            min,
            max,
            ..Accessor::default()
        }));
        Ok(index)
    }
}

/// Per-component bounds of flat data.
fn extent(values: &[f32], width: usize) -> (Vec<Float>, Vec<Float>) {
    let mut lo = vec![f32::INFINITY; width];
    let mut hi = vec![f32::NEG_INFINITY; width];
    if width > 0 {
        for element in values.chunks_exact(width) {
            for ((l, h), &v) in lo.iter_mut().zip(hi.iter_mut()).zip(element) {
                *l = l.min(v);
                *h = h.max(v);
            }
        }
    }
    let finish = |v: Vec<f32>| {
        v.into_iter()
            .map(|x| Float::from(if x.is_finite() { x } else { 0.0 }))
            .collect()
    };
    (finish(lo), finish(hi))
}

/// The accessor's values as `f64`, checked to be of `element` type.
fn read(
    source: &Document,
    index: Index<Accessor>,
    element: ElementType,
    pointer: &str,
) -> Result<Vec<f64>, Error> {
    let info = accessor::info(source, index)?;
    if info.element != element {
        return Err(Error::invalid(
            source.path(),
            Location::JsonPointer(pointer.to_owned()),
            format!(
                "accessor {index} is {}: expected {element} here",
                info.element
            ),
        ));
    }
    Ok(accessor::read_f32(source, index)?
        .into_iter()
        .map(f64::from)
        .collect())
}

/// Rewrites inverse bind matrices, baked nodes' meshes and animation keys in `out` (a copy of
/// `source` whose nodes are already baked).
///
/// # Errors
/// [`Error::Unsupported`] for what cannot be baked (see `bake.rs`); [`Error::Invalid`] when
/// accessor data does not fit its use.
pub(super) fn rewrite_data(
    source: &Document,
    frames: &Frames,
    out: &mut Document,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let buffer = Index::try_from(out.root.buffers.len())
        .map_err(|_| Error::unsupported("too many buffers"))?;
    let mut appender = Appender {
        buffer,
        bytes: Vec::new(),
    };
    skins(source, frames, out, &mut appender, diagnostics)?;
    meshes(source, frames, out, &mut appender, diagnostics)?;
    animations(source, frames, out, &mut appender, diagnostics)?;
    if !appender.bytes.is_empty() {
        let added = out.push_buffer(appender.bytes)?;
        if added != appender.buffer {
            return Err(Error::unsupported(format!(
                "the baked data went to buffer {added}, but its buffer views name buffer {}",
                appender.buffer
            )));
        }
    }
    Ok(())
}

/// `IBM' = F·IBM` for every joint whose frame changed.
fn skins(
    source: &Document,
    frames: &Frames,
    out: &mut Document,
    appender: &mut Appender,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let mut rebound = Vec::new();
    for (s, skin) in source.root.skins.iter().enumerate() {
        let changes: Vec<Option<DMat3>> = skin
            .joints
            .iter()
            .map(|j| frames.of(j.as_usize()))
            .collect();
        if changes.iter().all(Option::is_none) {
            continue;
        }
        let pointer = format!("/skins/{s}/inverseBindMatrices");
        let old = match skin.inverse_bind_matrices {
            Some(index) => read(source, index, ElementType::Mat4, &pointer)?,
            None => DMat4::IDENTITY.to_cols_array().repeat(skin.joints.len()),
        };
        if old.len() < 16 * skin.joints.len() {
            return Err(Error::invalid(
                source.path(),
                Location::JsonPointer(pointer),
                format!(
                    "skin {s} has {} joints but {} inverse bind matrices",
                    skin.joints.len(),
                    old.len() / 16
                ),
            ));
        }
        let mut new = Vec::with_capacity(old.len());
        for (matrix, change) in old.chunks_exact(16).zip(&changes) {
            let mut cols = [0.0; 16];
            cols.copy_from_slice(matrix);
            let ibm = DMat4::from_cols_array(&cols);
            let moved = change.map_or(ibm, |f| DMat4::from_mat3(f) * ibm);
            new.extend_from_slice(&moved.to_cols_array());
        }
        let index = appender.push(out, &new, ElementType::Mat4, false, false)?;
        if let Some(skin) = out.root.skins.get_mut(s) {
            skin.inverse_bind_matrices = Some(index);
        }
        rebound.push(s.to_string());
    }
    if !rebound.is_empty() {
        diagnostics.info(
            "DOWNGRADE_REST_SKIN_REBOUND",
            "/skins",
            format!(
                "the inverse bind matrices of skins {} were rewritten for the baked bones (IBM' = F·IBM), so skinned vertices stay where they were",
                short_list(&rebound, SHOWN)
            ),
        );
    }
    Ok(())
}

/// How a vertex attribute moves under a frame change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// Positions and position deltas: `F·v`.
    Point,
    /// Normals: `normalize(F⁻ᵀ·n)`; their deltas against the base normals.
    Normal,
    /// Tangents (`VEC4`, handedness kept): `normalize(F·t)`; their deltas against the base.
    Tangent,
}

fn kind(semantic: &str) -> Option<Kind> {
    match semantic {
        "POSITION" => Some(Kind::Point),
        "NORMAL" => Some(Kind::Normal),
        "TANGENT" => Some(Kind::Tangent),
        _ => None,
    }
}

/// Transforms the geometry of every mesh a baked node holds (not skinned) by the node's
/// frame change; a mesh another node holds too is copied first.
fn meshes(
    source: &Document,
    frames: &Frames,
    out: &mut Document,
    appender: &mut Appender,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let mut holders: HashMap<usize, usize> = HashMap::new();
    for node in &source.root.nodes {
        if let Some(mesh) = node.mesh {
            *holders.entry(mesh.as_usize()).or_default() += 1;
        }
    }
    let mut moved = Vec::new();
    for (n, node) in source.root.nodes.iter().enumerate() {
        let Some(f) = frames.of(n) else { continue };
        report_camera_or_light(source, n, node, diagnostics);
        let (Some(mesh), None) = (node.mesh, node.skin) else {
            continue;
        };
        if node
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key("EXT_mesh_gpu_instancing"))
        {
            return Err(Error::unsupported(format!(
                "{}: {} instances its mesh (EXT_mesh_gpu_instancing) and is a humanoid bone or an ancestor of one whose rest rotation must be baked away for VRM 0.x; baking instanced geometry is not supported: keep the model as VRM 1.0 (--to vrm1)",
                source.path().display(),
                label(source, n)
            )));
        }
        let Some(original) = source.root.meshes.get(mesh.as_usize()) else {
            continue;
        };
        let mut copy: Ordered<Mesh> = original.clone();
        transform_mesh(source, mesh.as_usize(), &mut copy, f, out, appender)?;
        let shared = holders.get(&mesh.as_usize()).copied().unwrap_or(0) > 1;
        let target = if shared {
            let index = Index::try_from(out.root.meshes.len())
                .map_err(|_| Error::unsupported("too many meshes"))?;
            out.root.meshes.push(copy);
            if let Some(node) = out.root.nodes.get_mut(n) {
                node.mesh = Some(index);
            }
            index.as_usize()
        } else {
            if let Some(slot) = out.root.meshes.get_mut(mesh.as_usize()) {
                *slot = copy;
            }
            mesh.as_usize()
        };
        moved.push(format!(
            "mesh {target} of {}{}",
            label(source, n),
            if shared {
                format!(" (a copy of mesh {mesh}, which other nodes hold too)")
            } else {
                String::new()
            }
        ));
    }
    if !moved.is_empty() {
        diagnostics.info(
            "DOWNGRADE_REST_MESH_BAKED",
            "/meshes",
            format!(
                "meshes held directly by baked bones had their geometry transformed by the bone's old rest rotation and scale (as UniVRM's normalizer bakes them), so they stay where they were: {}",
                short_list(&moved, SHOWN)
            ),
        );
    }
    Ok(())
}

/// A camera or light on a baked node now points along the world axes.
fn report_camera_or_light(
    source: &Document,
    n: usize,
    node: &crate::formats::gltf::json::Node,
    diagnostics: &mut Diagnostics,
) {
    let light = node
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key("KHR_lights_punctual"));
    if node.camera.is_none() && !light {
        return;
    }
    diagnostics.warn(
        "DOWNGRADE_REST_CAMERA_OR_LIGHT",
        format!("/nodes/{n}"),
        format!(
            "{} holds a {}, and its rest rotation was baked away for VRM 0.x: it now points along the node's new, world-aligned axes",
            label(source, n),
            if light { "light" } else { "camera" }
        ),
    );
}

/// Points every moving attribute of `mesh` (a copy of source mesh `index`) at transformed
/// data.
fn transform_mesh(
    source: &Document,
    index: usize,
    mesh: &mut Ordered<Mesh>,
    f: DMat3,
    out: &mut Document,
    appender: &mut Appender,
) -> Result<(), Error> {
    let det = f.determinant();
    if det.is_nan() || det <= 0.0 {
        return Err(Error::unsupported(format!(
            "{}: mesh {index} sits on a bone whose rest is mirrored; baking it would turn it inside out",
            source.path().display()
        )));
    }
    let normals = f.inverse().transpose();
    let mut done: HashMap<(u32, Kind, Option<u32>), Index<Accessor>> = HashMap::new();
    for (p, primitive) in mesh.primitives.iter_mut().enumerate() {
        let here = format!("/meshes/{index}/primitives/{p}");
        let base: HashMap<Kind, Index<Accessor>> = primitive
            .attributes
            .iter()
            .filter_map(|(s, a)| kind(s).map(|k| (k, a)))
            .collect();
        let semantics: Vec<(String, Index<Accessor>)> = primitive
            .attributes
            .iter()
            .map(|(s, a)| (s.to_owned(), a))
            .collect();
        for (semantic, a) in semantics {
            let Some(k) = kind(&semantic) else { continue };
            let key = (a.get(), k, None);
            let new = match done.get(&key) {
                Some(&new) => new,
                None => {
                    let pointer = format!("{here}/attributes/{semantic}");
                    let new = moved_attribute(source, a, k, None, f, normals, &pointer).and_then(
                        |(values, element)| {
                            appender.push(out, &values, element, true, k == Kind::Point)
                        },
                    )?;
                    done.insert(key, new);
                    new
                }
            };
            primitive.attributes.insert(semantic, new);
        }
        for (t, target) in primitive.targets.iter_mut().enumerate() {
            let semantics: Vec<(String, Index<Accessor>)> =
                target.iter().map(|(s, a)| (s.to_owned(), a)).collect();
            for (semantic, a) in semantics {
                let Some(k) = kind(&semantic) else { continue };
                let against = base.get(&k).copied();
                let key = (a.get(), k, against.map(Index::get));
                let new = match done.get(&key) {
                    Some(&new) => new,
                    None => {
                        let pointer = format!("{here}/targets/{t}/{semantic}");
                        let base_values = match (k, against) {
                            (Kind::Point, _) | (_, None) => None,
                            (Kind::Normal, Some(b)) => {
                                Some(read(source, b, ElementType::Vec3, &pointer)?)
                            }
                            (Kind::Tangent, Some(b)) => Some(
                                read(source, b, ElementType::Vec4, &pointer)?
                                    .chunks_exact(4)
                                    .flat_map(|c| c.iter().take(3).copied())
                                    .collect(),
                            ),
                        };
                        let new = moved_attribute(
                            source,
                            a,
                            k,
                            Some(base_values.as_deref()),
                            f,
                            normals,
                            &pointer,
                        )
                        .and_then(|(values, element)| {
                            appender.push(out, &values, element, true, k == Kind::Point)
                        })?;
                        done.insert(key, new);
                        new
                    }
                };
                target.insert(semantic, new);
            }
        }
    }
    Ok(())
}

/// One attribute moved: `delta` is `None` for a base attribute, `Some(base)` for a morph
/// target (the base normals or tangents, `xyz`, when there are any).
fn moved_attribute(
    source: &Document,
    a: Index<Accessor>,
    k: Kind,
    delta: Option<Option<&[f64]>>,
    f: DMat3,
    normals: DMat3,
    pointer: &str,
) -> Result<(Vec<f64>, ElementType), Error> {
    let element = match (k, delta) {
        (Kind::Tangent, None) => ElementType::Vec4,
        _ => ElementType::Vec3,
    };
    let mut values = read(source, a, element, pointer)?;
    let width = element.components();
    let map = match k {
        Kind::Point | Kind::Tangent => f,
        Kind::Normal => normals,
    };
    let direction = |v: DVec3| (map * v).normalize_or_zero();
    for (i, chunk) in values.chunks_exact_mut(width).enumerate() {
        let v = DVec3::new(chunk[0], chunk[1], chunk[2]);
        let moved = match (k, delta) {
            (Kind::Point, _) => f * v,
            (_, None) => direction(v),
            (_, Some(Some(base))) => match base.get(3 * i..3 * i + 3) {
                Some(b) => {
                    let b = DVec3::new(b[0], b[1], b[2]);
                    direction(b + v) - direction(b)
                }
                None => map * v,
            },
            // No base to measure against: the rotation part moves the delta.
            (_, Some(None)) => similarity(f).map_or(map * v, |(_, r)| r * v),
        };
        chunk[..3].copy_from_slice(&moved.to_array());
    }
    Ok((values, element))
}

/// Rewrites the keys of every animation channel whose node or parent frame changed.
fn animations(
    source: &Document,
    frames: &Frames,
    out: &mut Document,
    appender: &mut Appender,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let mut rewritten = Vec::new();
    let mut unbaked = Vec::new();
    for (a, animation) in source.root.animations.iter().enumerate() {
        // How many channels read each sampler.
        let mut readers: HashMap<u32, usize> = HashMap::new();
        for channel in &animation.channels {
            *readers.entry(channel.sampler.get()).or_default() += 1;
        }
        for (c, channel) in animation.channels.iter().enumerate() {
            let Some(node) = channel.target.node.map(Index::as_usize) else {
                if matches!(
                    channel.target.path.as_str(),
                    "translation" | "rotation" | "scale"
                ) {
                    unbaked.push(format!("/animations/{a}/channels/{c}"));
                }
                continue;
            };
            let (parent, own) = (frames.of_parent(node), frames.of(node));
            if parent.is_none() && own.is_none() {
                continue;
            }
            let Some(sampler) = animation.samplers.get(channel.sampler.as_usize()) else {
                continue;
            };
            let path = channel.target.path.as_str();
            let pointer = format!("/animations/{a}/samplers/{}/output", channel.sampler);
            let moved = match path {
                "translation" => {
                    let f = parent.unwrap_or(DMat3::IDENTITY);
                    let mut values = read(source, sampler.output, ElementType::Vec3, &pointer)?;
                    for chunk in values.chunks_exact_mut(3) {
                        let v = f * DVec3::new(chunk[0], chunk[1], chunk[2]);
                        chunk.copy_from_slice(&v.to_array());
                    }
                    (values, ElementType::Vec3)
                }
                "rotation" | "scale" => {
                    let (sp, rp) = similar(source, node, parent, path)?;
                    let (sn, rn) = similar(source, node, own, path)?;
                    if path == "rotation" {
                        let mut values = read(source, sampler.output, ElementType::Vec4, &pointer)?;
                        let inverse = rn.inverse();
                        for chunk in values.chunks_exact_mut(4) {
                            // Linear in q, so cubic-spline tangents move the same way.
                            let q = rp
                                * DQuat::from_xyzw(chunk[0], chunk[1], chunk[2], chunk[3])
                                * inverse;
                            chunk.copy_from_slice(&[q.x, q.y, q.z, q.w]);
                        }
                        (values, ElementType::Vec4)
                    } else {
                        let mut values = read(source, sampler.output, ElementType::Vec3, &pointer)?;
                        if own.is_some() {
                            make_uniform(source, node, &mut values)?;
                        }
                        let k = sp / sn;
                        for v in &mut values {
                            *v *= k;
                        }
                        (values, ElementType::Vec3)
                    }
                }
                _ => continue,
            };
            let output = appender.push(out, &moved.0, moved.1, false, false)?;
            let Some(target) = out.root.animations.get_mut(a) else {
                continue;
            };
            let shared = readers.get(&channel.sampler.get()).copied().unwrap_or(0) > 1;
            if shared {
                let mut copy = Ordered::<AnimationSampler>::clone(sampler);
                copy.output = output;
                let index = Index::try_from(target.samplers.len())
                    .map_err(|_| Error::unsupported("too many samplers"))?;
                target.samplers.push(copy);
                if let Some(ch) = target.channels.get_mut(c) {
                    ch.sampler = index;
                }
            } else if let Some(s) = target.samplers.get_mut(channel.sampler.as_usize()) {
                s.output = output;
            }
            rewritten.push(format!("/animations/{a}/channels/{c}"));
        }
    }
    if !unbaked.is_empty() {
        diagnostics.warn(
            "DOWNGRADE_REST_CHANNEL_NOT_BAKED",
            "/animations",
            format!(
                "{} animation channel(s) without a target node (an extension's, such as EXT_skeleton_humanoid's) were left as they were: their keys were not moved into the baked bones' new rest frames: {}",
                unbaked.len(),
                short_list(&unbaked, SHOWN)
            ),
        );
    }
    if !rewritten.is_empty() {
        diagnostics.info(
            "DOWNGRADE_REST_ANIMATION_BAKED",
            "/animations",
            format!(
                "{} animation channel(s) on baked bones or their children were rewritten for the new rest frames (rotations R_parent·q·R⁻¹, translations F_parent·t), so the animated world transforms are unchanged: {}",
                rewritten.len(),
                short_list(&rewritten, SHOWN)
            ),
        );
    }
    Ok(())
}

/// A frame change as `(s, R)` (the identity when `None`), refused when an animated rotation
/// or scale cannot be carried through it.
fn similar(
    source: &Document,
    node: usize,
    change: Option<DMat3>,
    path: &str,
) -> Result<(f64, DQuat), Error> {
    let Some(f) = change else {
        return Ok((1.0, DQuat::IDENTITY));
    };
    similarity(f).ok_or_else(|| {
        Error::unsupported(format!(
            "{}: {} has an animated {path}, and the rest it or its parent loses in the bake for VRM 0.x is not a rotation times a uniform scale, so the animated transform cannot be written without shear: keep the model as VRM 1.0 (--to vrm1)",
            source.path().display(),
            label(source, node)
        ))
    })
}

/// Writes each scale key of a node whose own frame changed as its mean; refuses keys that are
/// not uniform within [`UNIFORM`].
fn make_uniform(source: &Document, node: usize, values: &mut [f64]) -> Result<(), Error> {
    for key in values.chunks_exact_mut(3) {
        let size = key.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let spread = (key[0] - key[1]).abs().max((key[0] - key[2]).abs());
        if spread > UNIFORM * size.max(1.0) {
            return Err(Error::unsupported(format!(
                "{}: {} has non-uniform scale keys ({}, {}, {}), and its rest rotation must be baked away for VRM 0.x: the scaled axes would turn with it, which a node's scale cannot hold: keep the model as VRM 1.0 (--to vrm1)",
                source.path().display(),
                label(source, node),
                key[0],
                key[1],
                key[2]
            )));
        }
        let mean = (key[0] + key[1] + key[2]) / 3.0;
        key.fill(mean);
    }
    Ok(())
}
