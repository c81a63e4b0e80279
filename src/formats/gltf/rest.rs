//! Baking the canonical T-pose into a glTF (or VRM) document: `convert --normalize`
//! (`--rest node|bind`, `--rebind`).
//!
//! # Overview
//!
//! [`normalize_document`] takes a document and its canonical read (an [`Asset`] whose first
//! humanoid maps the rig) and returns a new document whose rest pose is the canonical T-pose
//! (ARCHITECTURE.md §3):
//!
//! 1. **Reference.** The pose measured is the reference pose the file declares
//!    ([`RestReference::Reference`], `KHR_character_reference_pose`: the default where there is
//!    one), the nodes' rest ([`RestReference::Node`], the default otherwise) or the skin's bind pose ([`RestReference::Bind`]: each joint's world transform
//!    `B · IBM⁻¹`, with `B` the skin's bind-shape matrix: the skinned mesh node's world transform
//!    when the skin was bound in that node's space, as CesiumMan's and RobotExpressive's are, and
//!    the identity otherwise). When the default is taken and the bind pose is another pose
//!    (Soldier, RobotExpressive), a note says so.
//! 2. **Rest.** The normaliser's corrections `S_b` ([`normalize::corrections`] with the rig's
//!    turn) give every mapped bone the world rest rotation `S_b · W_b(ref)`; its local rest
//!    rotation is written top-down ([`crate::pose::bake::t_pose_local_rotations`]), as an `f64` JSON
//!    quaternion. Other nodes keep their local rotation in the reference (their rest rotation;
//!    with the bind reference, their bind-pose rotation) and follow their parent; node
//!    translations and scales stay.
//! 3. **Clips.** A node with a rotation channel keeps it (local rotations give the same world
//!    pose whatever the rest). Each clip that does not drive the rotation of a node whose rest
//!    changed gets a one-key rotation channel (at the clip's first key time) holding the node's
//!    old rest rotation, so the clip plays exactly as before.
//! 4. **Mesh.** Without `rebind`, vertices and inverse bind matrices stay: exact, the skinned
//!    mesh deforms into the T-pose at rest. With it, positions, normals, tangents and morph
//!    target deltas are skinned (linear blend skinning) into the T-pose and the inverse bind
//!    matrices become the inverse T-pose world transforms (in the bind-shape frame `B`). New
//!    data go to one new buffer (a GLB writer appends it to the BIN chunk); the rewritten
//!    accessors are pointed at it.
//! 5. **Measure.** Every drawn vertex (skinned, or carried rigidly by its node) is placed in
//!    world space at [`SAMPLES_PER_CLIP`] times of every clip, in the input and in the output,
//!    and the largest distance is reported ([`VertexDeviation`]): float rounding after a plain
//!    normalize, the error of linear blend skinning after a rebind, never hidden.
//!
//! Every step reports what it did in the returned [`Diagnostics`] (`NORMALIZE_*` codes) and the
//! numbers in a [`NormalizeReport`].
//!
//! ```no_run
//! use humanoid::formats::gltf::rest::{normalize_document, NormalizeOptions};
//! use humanoid::formats::gltf::Document;
//! use humanoid::mapping::RigMapping;
//! # fn main() -> Result<(), humanoid::Error> {
//! let path = std::path::Path::new("CesiumMan.glb");
//! let document = Document::open(path)?;
//! let mut asset = humanoid::formats::vrm::asset_from_document(&document)?.asset;
//! RigMapping::detect()?.attach(&mut asset, path)?;
//! let normalized = normalize_document(&document, &asset, &NormalizeOptions::default())?;
//! println!("{:?}", normalized.report.largest_fixed());
//! normalized.document.write_glb("CesiumMan-T.glb".as_ref(), &[])?;
//! # Ok(()) }
//! ```

mod channels;
mod data;
mod measure;
mod rebind;
mod reference;
pub(super) mod scene;

use glam::{DMat4, DQuat, Quat};

use super::document::Document;
use super::ext_skeleton_humanoid as ext;
use super::json::{to_floats, Get, Index, Node};
use super::validate;
use crate::error::{Diagnostics, Error};
use crate::model::asset::{Asset, HumanoidSkeleton};
use crate::model::HumanBone;
use crate::pose::normalize;
use data::NewData;
use reference::{bind_pose, close, BindPose, Reference};
use scene::Scene;

/// How many evenly spread times of each clip the vertex deviation is measured at.
pub const SAMPLES_PER_CLIP: usize = 50;

/// A new local rest rotation within this angle (radians) of the old one is not written.
const UNCHANGED: f64 = 1e-6;

pub use crate::pose::normalize::{NormalizeOptions, RestReference};

/// The largest distance between a vertex in the input and the same vertex in the output, over
/// the clips.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VertexDeviation {
    /// The largest distance (metres, the document's world units).
    pub max: f64,
    /// How many clips were sampled.
    pub clips: usize,
    /// How many times of each clip ([`SAMPLES_PER_CLIP`]).
    pub samples_per_clip: usize,
    /// How many drawn vertices were compared at each time.
    pub vertices: usize,
    /// Where the largest distance was found: the clip's name, the time (seconds) and the vertex
    /// (its index among all drawn vertices, draw by draw in node order); `None` when every
    /// distance is zero (or there are no clips).
    pub worst: Option<(String, f64, usize)>,
}

/// The numbers behind [`normalize_document`]'s diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct NormalizeReport {
    /// The pose measured.
    pub reference: RestReference,
    /// Each measured bone's angle (degrees) from its canonical direction in the reference.
    pub before: Vec<(HumanBone, f32)>,
    /// The same in the output's rest (all near zero, except where a bone's direction is
    /// measured to a joint that does not follow it).
    pub after: Vec<(HumanBone, f32)>,
    /// The nodes whose rest rotation was rewritten.
    pub nodes_changed: Vec<usize>,
    /// How many rotation channels were added to clips.
    pub channels_added: usize,
    /// Whether the mesh was rebound (`--rebind`).
    pub rebound: bool,
    /// How many vertices were rebound.
    pub vertices_rebound: usize,
    /// The vertex deviation over the clips; `None` when the vertices cannot be read
    /// (compressed mesh data).
    pub vertex_deviation: Option<VertexDeviation>,
}

impl NormalizeReport {
    /// The bone the reference was farthest from its canonical direction, and by how much
    /// (degrees).
    pub fn largest_fixed(&self) -> Option<(HumanBone, f32)> {
        largest(&self.before)
    }
}

/// A normalized document.
#[derive(Debug, Clone)]
pub struct Normalized {
    /// The document with the T-pose as its rest.
    pub document: Document,
    /// What was done, measured and found (`NORMALIZE_*` codes).
    pub diagnostics: Diagnostics,
    /// The numbers.
    pub report: NormalizeReport,
}

/// Bakes the canonical T-pose into `document`'s rest (see the module docs).
///
/// `asset` is the canonical read of the same document, with its humanoid (a rig that declares
/// none must be mapped first: `RigMapping::detect()?.attach(&mut asset, path)`).
///
/// # Errors
/// The asset has no humanoid or does not match the document (another node count); an
/// accessor, a skin or a clip cannot be read; `--rest bind` on a document without skins or
/// with a singular inverse bind matrix; `--rebind` on compressed mesh data; the output fails
/// validation.
///
/// # Example
///
/// A left arm hanging from the hips: normalizing raises it along +X (a quarter turn about +Z
/// on the upper arm; the forearm keeps its identity local rotation and follows).
///
/// ```
/// use humanoid::asset::HumanoidSkeleton;
/// use humanoid::formats::gltf::rest::{normalize_document, NormalizeOptions};
/// use humanoid::formats::gltf::{humanoid::asset_from_document, Document};
/// use humanoid::model::{humanoid::BoneMap, HumanBone};
///
/// let json = r#"{"asset": {"version": "2.0"}, "nodes": [
///     {"name": "hips", "translation": [0, 1, 0], "children": [1]},
///     {"name": "upper", "translation": [0.2, 0.4, 0], "children": [2]},
///     {"name": "lower", "translation": [0, -0.3, 0], "children": [3]},
///     {"name": "hand", "translation": [0, -0.25, 0]}]}"#;
/// let document = Document::from_slice(json.as_bytes(), "arm.gltf", None)?;
/// let mut asset = asset_from_document(&document)?.asset;
/// let mut bones = BoneMap::new();
/// for (bone, joint) in [HumanBone::Hips, HumanBone::LeftUpperArm, HumanBone::LeftLowerArm, HumanBone::LeftHand]
///     .into_iter()
///     .zip(asset.skeleton.joints())
/// {
///     bones.set(bone, Some(joint));
/// }
/// asset.humanoids.push(HumanoidSkeleton { root: None, bones, declared_t_pose: false });
///
/// let normalized = normalize_document(&document, &asset, &NormalizeOptions::default())?;
/// let (bone, degrees) = normalized.report.largest_fixed().unwrap();
/// assert!((degrees - 90.0).abs() < 1e-3, "{bone}: {degrees}");
/// assert_eq!(normalized.report.nodes_changed, vec![1]);
/// let rotation = normalized.document.root.nodes[1].rotation.as_ref().unwrap();
/// let z = rotation[2].get();
/// assert!((z - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-6);
/// # Ok::<(), humanoid::Error>(())
/// ```
pub fn normalize_document(
    document: &Document,
    asset: &Asset,
    options: &NormalizeOptions,
) -> Result<Normalized, Error> {
    let humanoid = humanoid_of(document, asset)?;
    let compressed = super::compression::used_by(document);
    let scene = Scene::read(document, compressed.is_none())?;
    let bind = bind_pose(&scene, document);
    let mut diagnostics = Diagnostics::new();
    let rest = match options.rest {
        RestReference::Auto if reference::reference_animation(document).is_some() => {
            diagnostics.info(
                "NORMALIZE_REFERENCE_POSE",
                "",
                "the file declares a reference pose (KHR_character_reference_pose): it is the pose measured (--rest node measures the node rest)",
            );
            RestReference::Reference
        }
        RestReference::Auto => RestReference::Node,
        other => other,
    };
    let reference = Reference::measured(document, asset, humanoid, &scene, &bind, rest)?;
    let turn = turn_of(asset, humanoid, &reference, &mut diagnostics);
    let before = reference.deviations(turn);
    if rest == RestReference::Node {
        if let Ok(bind) = &bind {
            note_bind_pose(asset, humanoid, bind, turn, &before, &mut diagnostics);
        }
    }
    let locals = reference.t_pose_locals(document, &scene, turn)?;
    let mut out = document.clone();
    let mut data = NewData::new(&out)?;
    let nodes_changed = write_rest_rotations(&mut out, &scene, &locals, &mut diagnostics);
    let channels_added = channels::add_rest_channels(&mut out, &scene, &nodes_changed, &mut data)?;
    note_channels(document, &nodes_changed, channels_added, &mut diagnostics);
    let t_pose = scene.rest_worlds(Some(&locals));
    let vertices_rebound = if options.rebind {
        rebind_mesh(
            document,
            &mut out,
            &scene,
            &t_pose,
            &bind,
            &mut data,
            &mut diagnostics,
        )?
    } else {
        0
    };
    data.finish(&mut out)?;
    check(&out)?;
    let after = Reference::new(asset, humanoid, &t_pose, Vec::new(), Vec::new())?.deviations(turn);
    let vertex_deviation = vertex_deviation(&scene, &out, compressed, &mut diagnostics)?;
    let report = NormalizeReport {
        reference: rest,
        before,
        after,
        nodes_changed,
        channels_added,
        rebound: options.rebind,
        vertices_rebound,
        vertex_deviation,
    };
    report_diagnostics(&report, &mut diagnostics);
    Ok(Normalized {
        document: out,
        diagnostics,
        report,
    })
}

/// `--rebind`: the skinned meshes into the T-pose (see [`rebind::rebind`]); how many vertices.
///
/// # Errors
/// Compressed vertex data; as [`rebind::rebind`].
fn rebind_mesh(
    document: &Document,
    out: &mut Document,
    scene: &Scene,
    t_pose: &[DMat4],
    bind: &Result<BindPose, String>,
    data: &mut NewData,
    diagnostics: &mut Diagnostics,
) -> Result<usize, Error> {
    if let Some(extension) = super::compression::used_by(document) {
        return Err(Error::unsupported(format!(
            "{}: --rebind cannot rewrite vertex data compressed with {extension}: decompress the file first",
            document.path().display()
        )));
    }
    let shapes = bind.as_ref().map_or_else(
        |_| vec![DMat4::IDENTITY; scene.skins.len()],
        |b| b.shapes.clone(),
    );
    rebind::rebind(document, out, scene, t_pose, &shapes, data, diagnostics)
}

/// The vertex deviation between `scene` (the input) and `out`; `None`, with a note, for
/// compressed vertex data.
fn vertex_deviation(
    scene: &Scene,
    out: &Document,
    compressed: Option<&str>,
    diagnostics: &mut Diagnostics,
) -> Result<Option<VertexDeviation>, Error> {
    match compressed {
        None => Ok(Some(measure::measure(scene, &Scene::read(out, true)?)?)),
        Some(extension) => {
            diagnostics.info(
                "NORMALIZE_NOT_MEASURED",
                "",
                format!("the vertex deviation was not measured: the mesh data are compressed with {extension}"),
            );
            Ok(None)
        }
    }
}

/// The asset's first humanoid, checked to belong to `document`.
fn humanoid_of<'a>(document: &Document, asset: &'a Asset) -> Result<&'a HumanoidSkeleton, Error> {
    let path = document.path().display();
    let nodes = document.root.nodes.len();
    if asset.skeleton.len() != nodes || asset.source_indices.len() != nodes {
        return Err(Error::unsupported(format!(
            "{path}: the asset has {} joints but the document {nodes} nodes: read the asset from this document",
            asset.skeleton.len()
        )));
    }
    asset.humanoids.first().ok_or_else(|| {
        Error::unsupported(format!(
            "{path}: the file declares no humanoid skeleton: map its rig (--map auto or --map TABLE) before --normalize"
        ))
    })
}

/// The turn from canonical space into the rig's: measured from its hips and shoulders for a
/// mapped rig; the declared facing for a format that declares a T-pose, unless the measured
/// one is more than 45° from it (then the measured one, with a warning).
fn turn_of(
    asset: &Asset,
    humanoid: &HumanoidSkeleton,
    reference: &Reference,
    diagnostics: &mut Diagnostics,
) -> Quat {
    let declared = normalize::declared_turn(asset.facing);
    let measured = normalize::measured_turn(&reference.skeleton, &reference.bones);
    match (humanoid.declared_t_pose, measured) {
        (false, Some(measured)) => measured,
        (false, None) => declared,
        (true, Some(measured)) if measured.angle_between(declared) > 45f32.to_radians() => {
            diagnostics.warn(
                "NORMALIZE_FACING",
                "",
                format!(
                    "the file declares that the character faces {:?}, but its hips and shoulders face {:.0}° away from that: the T-pose follows the skeleton",
                    asset.facing,
                    measured.angle_between(declared).to_degrees()
                ),
            );
            measured
        }
        (true, _) => declared,
    }
}

/// Under the default node reference: a note when the bind pose is another pose (a bone's
/// deviation from the T-pose differs by more than 2° between the two).
fn note_bind_pose(
    asset: &Asset,
    humanoid: &HumanoidSkeleton,
    bind: &BindPose,
    turn: Quat,
    node: &[(HumanBone, f32)],
    diagnostics: &mut Diagnostics,
) {
    let Ok(reference) = Reference::new(asset, humanoid, &bind.worlds, Vec::new(), Vec::new())
    else {
        return;
    };
    let in_bind = reference.deviations(turn);
    let differs = node.iter().any(|(bone, a)| {
        in_bind
            .iter()
            .find(|(b, _)| b == bone)
            .is_some_and(|(_, b)| (a - b).abs() > 2.0)
    });
    if !differs {
        return;
    }
    let describe = |list: &[(HumanBone, f32)]| {
        largest(list).map_or_else(
            || "nothing measured".to_owned(),
            |(bone, degrees)| format!("{degrees:.1}° ({bone})"),
        )
    };
    diagnostics.info(
        "NORMALIZE_BIND_POSE_DIFFERS",
        "/skins",
        format!(
            "the inverse bind matrices describe another pose than the nodes' rest (largest deviation from the T-pose: node rest {}, bind pose {}); the node rest was measured: --rest bind measures the bind pose",
            describe(node),
            describe(&in_bind)
        ),
    );
}

fn largest(list: &[(HumanBone, f32)]) -> Option<(HumanBone, f32)> {
    list.iter().copied().fold(
        None,
        |best: Option<(HumanBone, f32)>, (bone, d)| match best {
            Some((_, b)) if b >= d => best,
            _ => Some((bone, d)),
        },
    )
}

/// Writes the new local rest rotation of every node whose rotation changed (a node given by a
/// matrix gets the matrix's TRS); returns those nodes.
fn write_rest_rotations(
    document: &mut Document,
    scene: &Scene,
    locals: &[DQuat],
    diagnostics: &mut Diagnostics,
) -> Vec<usize> {
    let mut changed = Vec::new();
    for (n, (rest, local)) in scene.rest.iter().zip(locals).enumerate() {
        if *local == rest.rotation {
            continue;
        }
        let Some(node) = document
            .root
            .get_mut(Index::<Node>::new(u32::try_from(n).unwrap_or(u32::MAX)))
        else {
            continue;
        };
        if rest.has_matrix {
            replace_matrix(node, rest, n, diagnostics);
        }
        node.rotation = Some(to_floats(local.normalize().to_array()));
        changed.push(n);
    }
    changed
}

/// Replaces a node's matrix by its TRS (a rotation can only be written on a TRS node).
fn replace_matrix(
    node: &mut Node,
    rest: &scene::NodeRest,
    n: usize,
    diagnostics: &mut Diagnostics,
) {
    let rebuilt =
        DMat4::from_scale_rotation_translation(rest.scale, rest.rotation, rest.translation);
    if !close(&rebuilt, &rest.matrix) {
        diagnostics.warn(
            "NORMALIZE_MATRIX_SHEAR",
            format!("/nodes/{n}/matrix"),
            "the node's matrix is not a translation, rotation and scale (it shears): replaced by its closest TRS",
        );
    }
    node.matrix = None;
    node.translation = Some(to_floats(rest.translation.to_array()));
    node.scale = Some(to_floats(rest.scale.to_array()));
}

/// Notes on the clips: how many channels were added, and EXT_skeleton_humanoid channels,
/// which are kept as they are.
fn note_channels(
    document: &Document,
    changed: &[usize],
    added: usize,
    diagnostics: &mut Diagnostics,
) {
    if added > 0 {
        diagnostics.info(
            "NORMALIZE_CHANNELS_ADDED",
            "/animations",
            format!("{added} rotation channel(s) added: a clip that did not rotate a node whose rest changed now holds the node's old rest rotation, so it plays as before"),
        );
    }
    let ext_channels = document
        .root
        .animations
        .iter()
        .flat_map(|a| a.channels.iter())
        .filter(|c| {
            c.target.node.is_none()
                && c.target
                    .extensions
                    .as_ref()
                    .is_some_and(|e| e.contains_key(ext::NAME))
        })
        .count();
    if ext_channels > 0 && !changed.is_empty() {
        diagnostics.info(
            "NORMALIZE_EXT_CHANNELS",
            "/animations",
            format!("{ext_channels} {} channel(s) kept as they are: their data are deltas from the declared T-pose, which the rest now is", ext::NAME),
        );
    }
}

/// Validates the output: structural problems are a bug here, reported as an error.
fn check(document: &Document) -> Result<(), Error> {
    match validate::into_error(&document.validate(), document.path()) {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// The diagnostics that carry the report's numbers.
fn report_diagnostics(report: &NormalizeReport, diagnostics: &mut Diagnostics) {
    let per_bone: Vec<String> = report
        .before
        .iter()
        .filter(|(_, d)| *d >= 0.05)
        .map(|(bone, d)| format!("{bone} {d:.1}°"))
        .collect();
    let reference = match report.reference {
        RestReference::Node | RestReference::Auto => "node rest",
        RestReference::Bind => "bind pose",
        RestReference::Reference => "declared reference pose",
    };
    let largest = report.largest_fixed().map_or_else(
        || "no bone could be measured".to_owned(),
        |(bone, d)| format!("largest deviation fixed {d:.2}° ({bone})"),
    );
    diagnostics.info(
        "NORMALIZE_REST",
        "/nodes",
        format!(
            "rest pose baked into the canonical T-pose from the {reference}: {} node rotation(s) rewritten, {largest}; per bone: {}",
            report.nodes_changed.len(),
            if per_bone.is_empty() { "all within 0.05°".to_owned() } else { per_bone.join(", ") }
        ),
    );
    let left: Vec<String> = report
        .after
        .iter()
        .filter(|(_, d)| *d > 1.0)
        .map(|(bone, d)| format!("{bone} {d:.1}°"))
        .collect();
    if !left.is_empty() {
        diagnostics.warn(
            "NORMALIZE_DEVIATION_LEFT",
            "/nodes",
            format!("bones still off their canonical direction (each is measured to a joint that does not follow it): {}", left.join(", ")),
        );
    }
    if let Some(deviation) = &report.vertex_deviation {
        deviation_diagnostic(report.rebound, deviation, diagnostics);
    }
}

fn deviation_diagnostic(rebound: bool, deviation: &VertexDeviation, diagnostics: &mut Diagnostics) {
    let at = deviation
        .worst
        .as_ref()
        .map_or_else(String::new, |(clip, t, v)| {
            format!(" (vertex {v}, clip {clip:?} at {t:.3} s)")
        });
    let message = if deviation.clips == 0 {
        format!(
            "the file has no clips, so the {} vertices were compared in none (vertex deviation 0 m)",
            deviation.vertices
        )
    } else {
        format!(
            "largest vertex deviation from the input over {} clip(s) at {} times each ({} vertices): {:.3e} m{at}",
            deviation.clips, deviation.samples_per_clip, deviation.vertices, deviation.max
        )
    };
    if rebound && deviation.max > 1e-4 {
        diagnostics.warn(
            "NORMALIZE_REBIND_DEVIATION",
            "",
            format!("{message}: linear blend skinning cannot rebind exactly vertices weighted to joints whose corrections differ"),
        );
    } else if rebound {
        diagnostics.info("NORMALIZE_REBIND_DEVIATION", "", message);
    } else {
        diagnostics.info("NORMALIZE_VERTEX_DEVIATION", "", message);
    }
}
