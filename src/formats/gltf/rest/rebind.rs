//! `--rebind`: the skinned meshes baked into the T-pose by linear blend skinning, and the
//! skins' inverse bind matrices set to the inverse T-pose world transforms.
//!
//! Each vertex is carried by `L_v = Σ w · B⁻¹ · W'_j · IBM_j / Σ w` (see
//! [`crate::pose::bake::rebind_matrix`]; divided by the weight sum so that a vertex whose
//! weights do not sum to 1, as in RobotExpressive's hands, keeps its motion where its joints
//! move together): positions by `L_v`, normals by its inverse transpose,
//! tangents by its linear part, morph target deltas by the same linear maps (normal and tangent
//! deltas scaled like their base vector, so a morphed normal comes out as the rebound morphed
//! normal). An accessor is rewritten in place (pointed at new data) when every use of it is
//! rebound the same way, else the primitive gets a new accessor.

use std::collections::HashMap;

use glam::{DMat3, DMat4, DVec3};

use super::super::accessor;
use super::super::document::Document;
use super::super::json::{Accessor, Get, Index, Skin};
use super::data::{NewData, Shape, ARRAY_BUFFER, MAT4, VEC3, VEC4};
use super::scene::{influences_of, vec3s, Scene};
use crate::error::{Diagnostics, Error};
use crate::math::num::to_f32;
use crate::pose::bake::{blend, normal_matrix, rebind_matrix, rebound_inverse_bind};

/// What an attribute holds, for how it is carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Position,
    Normal,
    Tangent,
    PositionDelta,
    NormalDelta,
    TangentDelta,
}

impl Kind {
    fn of(semantic: &str, morph: bool) -> Option<Kind> {
        Some(match (semantic, morph) {
            ("POSITION", false) => Kind::Position,
            ("NORMAL", false) => Kind::Normal,
            ("TANGENT", false) => Kind::Tangent,
            ("POSITION", true) => Kind::PositionDelta,
            ("NORMAL", true) => Kind::NormalDelta,
            ("TANGENT", true) => Kind::TangentDelta,
            _ => return None,
        })
    }

    fn shape(self) -> Shape {
        match self {
            Kind::Tangent => VEC4,
            _ => VEC3,
        }
    }
}

/// How one use of an accessor is rebound: the skin, the influence accessors, the kind, and
/// the base vector accessor a delta is scaled by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    skin: usize,
    influences: Vec<(Index<Accessor>, Index<Accessor>)>,
    kind: Kind,
    base: Option<Index<Accessor>>,
}

/// Where an attribute sits: mesh, primitive, morph target (`None`: the base attributes),
/// semantic.
#[derive(Debug, Clone)]
struct Slot {
    mesh: usize,
    primitive: usize,
    target: Option<usize>,
    semantic: String,
}

/// One attribute to rebind.
#[derive(Debug, Clone)]
struct Job {
    slot: Slot,
    accessor: Index<Accessor>,
    key: Key,
}

/// Rebinds every skinned mesh of `original` into the T-pose (`t_pose`: each node's T-pose
/// world matrix; `shapes`: each skin's bind-shape matrix), writing into `out`. Returns how many
/// vertices were rebound.
///
/// # Errors
/// A vertex accessor cannot be read or has the wrong size; the new data exceed glTF's limits.
pub(super) fn rebind(
    original: &Document,
    out: &mut Document,
    scene: &Scene,
    t_pose: &[DMat4],
    shapes: &[DMat4],
    data: &mut NewData,
    diagnostics: &mut Diagnostics,
) -> Result<usize, Error> {
    let matrices: Vec<Vec<DMat4>> = (0..scene.skins.len())
        .map(|s| skin_matrices(scene, s, t_pose, shapes, rebind_matrix))
        .collect();
    let inverse_binds: Vec<Vec<DMat4>> = (0..scene.skins.len())
        .map(|s| {
            skin_matrices(scene, s, t_pose, shapes, |w, _, b| {
                rebound_inverse_bind(w, b)
            })
        })
        .collect();
    write_inverse_binds(out, &inverse_binds, data)?;
    let skins = mesh_skins(original, diagnostics);
    let jobs = jobs(original, &skins);
    let uses = uses(original, &jobs);
    let mut done: HashMap<(Index<Accessor>, Key), Index<Accessor>> = HashMap::new();
    let mut carried: HashMap<(usize, usize), Vec<DMat4>> = HashMap::new();
    let mut vertices = 0;
    for job in &jobs {
        let key = (job.accessor, job.key.clone());
        if let Some(&index) = done.get(&key) {
            set_attribute(out, &job.slot, index);
            continue;
        }
        let per_vertex = match carried.get(&(job.slot.mesh, job.slot.primitive)) {
            Some(m) => m,
            None => {
                let m = vertex_matrices(original, job, &matrices)?;
                carried
                    .entry((job.slot.mesh, job.slot.primitive))
                    .or_insert(m)
            }
        };
        let values = carry(original, job, per_vertex)?;
        if job.key.kind == Kind::Position {
            vertices += values.len() / 3;
        }
        let index = store(original, out, job, &values, &uses, data)?;
        done.insert(key, index);
    }
    Ok(vertices)
}

/// `f(W'_j, IBM_j, B)` for every joint of skin `s`.
fn skin_matrices(
    scene: &Scene,
    s: usize,
    t_pose: &[DMat4],
    shapes: &[DMat4],
    f: impl Fn(DMat4, DMat4, DMat4) -> DMat4,
) -> Vec<DMat4> {
    let Some(skin) = scene.skins.get(s) else {
        return Vec::new();
    };
    let shape = shapes.get(s).copied().unwrap_or(DMat4::IDENTITY);
    skin.joints
        .iter()
        .zip(&skin.inverse_bind)
        .map(|(&joint, ibm)| {
            let world = t_pose.get(joint).copied().unwrap_or(DMat4::IDENTITY);
            f(world, *ibm, shape)
        })
        .collect()
}

/// Sets every skin's inverse bind matrices: in place when no other skin shares the accessor.
fn write_inverse_binds(
    out: &mut Document,
    inverse_binds: &[Vec<DMat4>],
    data: &mut NewData,
) -> Result<(), Error> {
    let shared = |index: Index<Accessor>, skins: &[_]| {
        skins
            .iter()
            .filter(|s: &&super::super::json::Ordered<Skin>| s.inverse_bind_matrices == Some(index))
            .count()
            > 1
    };
    for (s, matrices) in inverse_binds.iter().enumerate() {
        let values: Vec<f32> = matrices
            .iter()
            .flat_map(|m| m.to_cols_array().map(to_f32))
            .collect();
        let current = out
            .root
            .skins
            .get(s)
            .and_then(|skin| skin.inverse_bind_matrices);
        let in_place = current.filter(|&index| !shared(index, &out.root.skins));
        match in_place.and_then(|index| Some((index, out.root.get_mut(index)?))) {
            Some((_, accessor)) => data.repoint(accessor, &values, MAT4, None, false)?,
            None => {
                let index = data.push(&values, MAT4, None, false)?;
                if let Some(skin) = out.root.skins.get_mut(s) {
                    skin.inverse_bind_matrices = Some(index);
                }
            }
        }
    }
    Ok(())
}

/// The skin each mesh is rebound with: the one every node drawing it uses. A mesh drawn with
/// several skins, or skinned and unskinned, is left as it is (with a warning).
fn mesh_skins(document: &Document, diagnostics: &mut Diagnostics) -> Vec<Option<usize>> {
    let root = &document.root;
    let mut seen: Vec<Vec<Option<usize>>> = vec![Vec::new(); root.meshes.len()];
    for node in &root.nodes {
        if let Some(uses) = node.mesh.and_then(|m| seen.get_mut(m.as_usize())) {
            let skin = node.skin.map(Index::as_usize);
            if !uses.contains(&skin) {
                uses.push(skin);
            }
        }
    }
    seen.iter()
        .enumerate()
        .map(|(m, uses)| match uses.as_slice() {
            [Some(skin)] => Some(*skin),
            [] | [None] => None,
            _ => {
                diagnostics.warn(
                    "NORMALIZE_MESH_NOT_REBOUND",
                    format!("/meshes/{m}"),
                    "the mesh is drawn with different skins (or both skinned and not): its vertices were not rebound, so it does not draw as before",
                );
                None
            }
        })
        .collect()
}

/// The influence sets (`JOINTS_n`, `WEIGHTS_n`) of a primitive's attributes.
fn influence_sets(
    attributes: &super::super::json::Attributes,
) -> Vec<(Index<Accessor>, Index<Accessor>)> {
    (0..)
        .map_while(|set| {
            Some((
                attributes.get(&format!("JOINTS_{set}"))?,
                attributes.get(&format!("WEIGHTS_{set}"))?,
            ))
        })
        .collect()
}

/// Every attribute of a rebound mesh to carry into the T-pose.
fn jobs(document: &Document, skins: &[Option<usize>]) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (m, mesh) in document.root.meshes.iter().enumerate() {
        let Some(skin) = skins.get(m).copied().flatten() else {
            continue;
        };
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let influences = influence_sets(&primitive.attributes);
            if influences.is_empty() {
                continue;
            }
            let targets = std::iter::once((None, &primitive.attributes)).chain(
                primitive
                    .targets
                    .iter()
                    .enumerate()
                    .map(|(k, t)| (Some(k), t)),
            );
            for (target, attributes) in targets {
                for (semantic, accessor) in attributes.iter() {
                    let Some(kind) = Kind::of(semantic, target.is_some()) else {
                        continue;
                    };
                    let base = match kind {
                        Kind::NormalDelta => primitive.attributes.get("NORMAL"),
                        Kind::TangentDelta => primitive.attributes.get("TANGENT"),
                        _ => None,
                    };
                    jobs.push(Job {
                        slot: Slot {
                            mesh: m,
                            primitive: p,
                            target,
                            semantic: semantic.to_owned(),
                        },
                        accessor,
                        key: Key {
                            skin,
                            influences: influences.clone(),
                            kind,
                            base,
                        },
                    });
                }
            }
        }
    }
    jobs
}

/// For every accessor a job rebinds, whether all of its uses anywhere in the meshes are that
/// one way of rebinding it (then it can be rewritten in place).
fn uses(document: &Document, jobs: &[Job]) -> HashMap<Index<Accessor>, bool> {
    let mut count: HashMap<Index<Accessor>, usize> = HashMap::new();
    for mesh in &document.root.meshes {
        for primitive in &mesh.primitives {
            let sets = std::iter::once(&primitive.attributes).chain(&primitive.targets);
            for attributes in sets {
                for (_, accessor) in attributes.iter() {
                    *count.entry(accessor).or_default() += 1;
                }
            }
            if let Some(indices) = primitive.indices {
                *count.entry(indices).or_default() += 1;
            }
        }
    }
    let mut keys: HashMap<Index<Accessor>, (Key, usize)> = HashMap::new();
    let mut mixed: Vec<Index<Accessor>> = Vec::new();
    for job in jobs {
        match keys.get_mut(&job.accessor) {
            Some((key, n)) if *key == job.key => *n += 1,
            Some(_) => mixed.push(job.accessor),
            None => {
                keys.insert(job.accessor, (job.key.clone(), 1));
            }
        }
    }
    keys.into_iter()
        .map(|(accessor, (_, n))| {
            let alone = !mixed.contains(&accessor) && count.get(&accessor) == Some(&n);
            (accessor, alone)
        })
        .collect()
}

/// Each vertex's carrying matrix `L_v` for a job's primitive (the identity for a vertex with
/// no weight).
fn vertex_matrices(
    document: &Document,
    job: &Job,
    matrices: &[Vec<DMat4>],
) -> Result<Vec<DMat4>, Error> {
    let Some(primitive) = document
        .root
        .meshes
        .get(job.slot.mesh)
        .and_then(|m| m.primitives.get(job.slot.primitive))
    else {
        return Ok(Vec::new());
    };
    let joints = matrices.get(job.key.skin).map_or(&[][..], Vec::as_slice);
    let vertices = primitive
        .attributes
        .get("POSITION")
        .or_else(|| primitive.attributes.get("JOINTS_0"))
        .map_or(Ok(0), |a| accessor::info(document, a).map(|i| i.count))?;
    let vertices = usize::try_from(vertices).unwrap_or(usize::MAX);
    let influences = influences_of(
        document,
        &primitive.attributes,
        vertices,
        joints.len(),
        job.key.skin,
    )?;
    Ok(influences
        .iter()
        .map(|i| {
            let total: f64 = i.iter().map(|(_, w)| w).sum();
            match blend(joints, i) {
                Some(m) if total > 0.0 => m * total.recip(),
                _ => DMat4::IDENTITY,
            }
        })
        .collect())
}

/// The job's attribute carried by the per-vertex matrices, flat.
fn carry(document: &Document, job: &Job, per_vertex: &[DMat4]) -> Result<Vec<f32>, Error> {
    let values = accessor::read_f32(document, job.accessor)?;
    let width = job.key.kind.shape().components;
    if values.len() != per_vertex.len() * width {
        return Err(Error::invalid(
            document.path(),
            crate::error::Location::JsonPointer(format!("/accessors/{}", job.accessor)),
            format!(
                "{} {} values for {} vertices",
                values.len() / width.max(1),
                job.slot.semantic,
                per_vertex.len()
            ),
        ));
    }
    let base = match job.key.base {
        Some(index) => vec3s_or_vec4s(&accessor::read_f32(document, index)?, job.key.kind),
        None => Vec::new(),
    };
    let mut out = Vec::with_capacity(values.len());
    for (v, (m, value)) in per_vertex
        .iter()
        .zip(values.chunks_exact(width))
        .enumerate()
    {
        let vector = DVec3::new(at(value, 0), at(value, 1), at(value, 2));
        let carried = carry_one(job.key.kind, m, vector, base.get(v).copied());
        out.extend(carried.to_array().map(to_f32));
        if width == 4 {
            out.push(value.get(3).copied().unwrap_or(1.0));
        }
    }
    Ok(out)
}

fn at(values: &[f32], i: usize) -> f64 {
    values.get(i).copied().map_or(0.0, f64::from)
}

/// Base normals (VEC3) or tangents (VEC4, `w` dropped) as vectors.
fn vec3s_or_vec4s(values: &[f32], kind: Kind) -> Vec<DVec3> {
    match kind {
        Kind::TangentDelta => values
            .chunks_exact(4)
            .map(|c| DVec3::new(at(c, 0), at(c, 1), at(c, 2)))
            .collect(),
        _ => vec3s(values),
    }
}

/// One vector carried by a vertex's matrix `m` (see the module docs).
fn carry_one(kind: Kind, m: &DMat4, v: DVec3, base: Option<DVec3>) -> DVec3 {
    let linear = DMat3::from_mat4(*m);
    let normals = normal_matrix(*m);
    let unit = |w: DVec3, fallback: DVec3| {
        let n = w.normalize_or_zero();
        if n == DVec3::ZERO {
            fallback
        } else {
            n
        }
    };
    let scaled = |map: DMat3, delta: DVec3, base: Option<DVec3>| {
        let length = base.map_or(1.0, |b| (map * b).length());
        if length > 0.0 && length.is_finite() {
            map * delta / length
        } else {
            map * delta
        }
    };
    match (kind, normals) {
        (Kind::Position, _) => m.transform_point3(v),
        (Kind::Normal, Some(n)) => unit(n * v, v),
        (Kind::Normal, None) | (Kind::NormalDelta, None) => v,
        (Kind::Tangent, _) => unit(linear * v, v),
        (Kind::PositionDelta, _) => linear * v,
        (Kind::NormalDelta, Some(n)) => scaled(n, v, base),
        (Kind::TangentDelta, _) => scaled(linear, v, base),
    }
}

/// Stores a job's values: in place when the accessor is used only this way, else as a new
/// accessor the slot points to. Returns the accessor index the slot now uses.
fn store(
    original: &Document,
    out: &mut Document,
    job: &Job,
    values: &[f32],
    uses: &HashMap<Index<Accessor>, bool>,
    data: &mut NewData,
) -> Result<Index<Accessor>, Error> {
    let kind = job.key.kind;
    let shape = kind.shape();
    let had_bounds = original
        .root
        .get(job.accessor)
        .is_some_and(|a| a.min.is_some() && a.max.is_some());
    let bounds = had_bounds || matches!(kind, Kind::Position | Kind::PositionDelta);
    let target = Some(ARRAY_BUFFER);
    if uses.get(&job.accessor).copied().unwrap_or(false) {
        if let Some(accessor) = out.root.get_mut(job.accessor) {
            data.repoint(accessor, values, shape, target, bounds)?;
            return Ok(job.accessor);
        }
    }
    let template = original
        .root
        .get(job.accessor)
        .map(|a| (**a).clone())
        .unwrap_or_default();
    let index = data.push_like(&template, values, shape, target, bounds)?;
    set_attribute(out, &job.slot, index);
    Ok(index)
}

/// Points a slot's attribute at `index`.
fn set_attribute(out: &mut Document, slot: &Slot, index: Index<Accessor>) {
    let Some(primitive) = out
        .root
        .meshes
        .get_mut(slot.mesh)
        .and_then(|m| m.primitives.get_mut(slot.primitive))
    else {
        return;
    };
    let attributes = match slot.target {
        None => Some(&mut primitive.attributes),
        Some(k) => primitive.targets.get_mut(k),
    };
    if let Some(attributes) = attributes {
        attributes.insert(slot.semantic.clone(), index);
    }
}
