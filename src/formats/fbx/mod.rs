//! FBX in (read only), through ufbx (the `ufbx` crate: bindings to the ufbx C loader, which reads
//! ASCII and binary FBX of every version 2006–2020 and handles broken files gracefully).
//!
//! What comes in ([`read`]):
//! - **Space.** ufbx converts the scene to glTF's: metres, +Y up, +Z forward, right-handed
//!   (`target_unit_meters = 1`, `right_handed_y_up`, `SpaceConversion::ModifyGeometry`: the
//!   node hierarchy itself is in metres, no scaled root). What was converted is reported
//!   (`FBX_SPACE_CONVERTED`). FBX scale inheritance that glTF cannot express (Maya's segment
//!   scale compensation) is compensated on the children (`InheritModeHandling::Compensate`), and
//!   geometry transforms (3ds Max's object offsets) are baked into the geometry.
//! - **Skeleton.** Every node below the scene root (and the root itself, as `RootNode`, where
//!   several nodes hang from it, so every skin has a common root), parents first, with its local rest
//!   transform (pivots, pre- and post-rotations folded into one TRS by ufbx). The rest is the
//!   file's bind pose where it has one (`FBX_REST_FROM_BIND_POSE`): a node's own transform is
//!   the pose it stood in at export. A bind pose that holds each bone's inverse instead of its
//!   world (MakeHuman's) is read inverted (`FBX_BIND_POSE_INVERTED`).
//! - **Clips.** Every animation stack, baked by ufbx into linear keys: the curves' own keys plus
//!   samples at the scene's frame rate where a curve is not linear in glTF terms (FBX
//!   interpolates Euler angles and cubic curves); the rate is reported
//!   (`FBX_ANIMATION_SAMPLED`). Times start at 0 (the stack's start).
//! - **Humanoid.** FBX declares none: the rig is mapped by the tables like any other
//!   (`mixamo`, `humanik`, …).
//!
//! Memory is bounded: ufbx's allocators get a limit of twice the input's size plus 256 MiB, so
//! a file that declares a 4 GB array is refused (`FBX_INVALID`, ufbx's "Memory limit exceeded")
//! instead of allocating it.
//!
//! ```no_run
//! let read = humanoid::formats::fbx::read_file("character.fbx".as_ref())?;
//! println!("{} joints, {} meshes", read.outcome.asset.skeleton.len(), read.meshes.len());
//! # Ok::<(), humanoid::Error>(())
//! ```

mod clips;
mod meshes;
mod rest;

use std::path::Path;

use crate::error::{Diagnostics, Error, Location};
use crate::math::trs::Trs;
use crate::model::asset::{Asset, ReadOutcome};
use crate::model::mesh::SkinnedMesh;
use crate::model::skeleton::JointId;
use crate::model::skeleton::{RawJoint, Skeleton};
use crate::model::Format;

/// The most bytes ufbx may allocate beyond twice the input's size, for each of its two
/// allocators (scratch and result).
const MEMORY_HEADROOM: u64 = 256 << 20;

/// What an FBX file holds: the asset (skeleton, clips) and the meshes skinned to it.
#[derive(Debug, Clone)]
pub struct FbxRead {
    /// The skeleton, the clips and what reading found.
    pub outcome: ReadOutcome,
    /// Every mesh node's triangles, one mesh per node and material.
    pub meshes: Vec<SkinnedMesh>,
    /// For each mesh, the joint of the node that draws it.
    pub mesh_nodes: Vec<Option<JointId>>,
}

/// Reads the FBX file at `path` (at most `HUMANOID_MAX_BINARY_BYTES`).
///
/// # Errors
/// The file cannot be read, is too large, or ufbx refuses it (the reason is ufbx's).
pub fn read_file(path: &Path) -> Result<FbxRead, Error> {
    let limit = crate::io::Limits::get().binary_bytes;
    let bytes = crate::io::input::read_bounded(path, limit, "an FBX file")?;
    let folder = path.parent().unwrap_or_else(|| Path::new("."));
    read_in(&bytes, path, Some(folder))
}

/// Reads FBX bytes; `path` names the file in messages.
///
/// # Errors
/// ufbx refuses the bytes (truncated, not FBX, over the memory limit): `FBX_INVALID` with
/// ufbx's reason; the hierarchy cannot be a skeleton.
pub fn read(bytes: &[u8], path: &Path) -> Result<FbxRead, Error> {
    read_in(bytes, path, None)
}

/// As [`read`]; texture files the FBX names are read from `folder` (never outside it), where
/// there is one.
fn read_in(bytes: &[u8], path: &Path, folder: Option<&Path>) -> Result<FbxRead, Error> {
    let memory = usize::try_from(
        (bytes.len() as u64)
            .saturating_mul(2)
            .saturating_add(MEMORY_HEADROOM),
    )
    .unwrap_or(usize::MAX);
    let allocator = || ufbx::AllocatorOpts {
        memory_limit: memory,
        ..Default::default()
    };
    let options = ufbx::LoadOpts {
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        geometry_transform_handling: ufbx::GeometryTransformHandling::ModifyGeometry,
        inherit_mode_handling: ufbx::InheritModeHandling::Compensate,
        generate_missing_normals: true,
        load_external_files: false,
        node_depth_limit: u32::try_from(crate::io::Limits::get().depth).unwrap_or(u32::MAX),
        temp_allocator: allocator(),
        result_allocator: allocator(),
        ..Default::default()
    };
    let scene = ufbx::load_memory(bytes, options).map_err(|e| refused(path, &e))?;
    let mut diagnostics = Diagnostics::new();
    report_space(&scene, &mut diagnostics);
    for warning in scene.metadata.warnings.iter() {
        diagnostics.warn(
            "FBX_WARNING",
            "",
            format!(
                "ufbx: {} ({}×)",
                &*warning.description,
                warning.count.max(1)
            ),
        );
    }
    let rest = rest::rest_of(&scene);
    for pose in &rest.inverted_poses {
        diagnostics.warn(
            "FBX_BIND_POSE_INVERTED",
            format!("bind pose {pose:?}"),
            "each of its bones stands at the inverse of the world its skin cluster binds it at (world to bone, as MakeHuman writes it; read as is, the character stands upside down): its bones were read inverted, its other nodes keep their own transforms",
        );
    }
    if rest.from_bind_pose > 0 {
        diagnostics.info(
            "FBX_REST_FROM_BIND_POSE",
            "",
            format!(
                "the skeleton's rest is the file's bind pose ({} node(s)); {} of them stood elsewhere when the file was written, and clips that do not move them keep them there",
                rest.from_bind_pose,
                rest.posed.len()
            ),
        );
    }
    let (mut asset, joints) = asset_of(&scene, &rest, path)?;
    let posed: Vec<(JointId, Trs)> = rest
        .posed
        .iter()
        .filter_map(|(node, own)| Some((joints.by_index(*node)?, *own)))
        .collect();
    asset.clips = clips::bake_all(&scene, &asset, &joints, &posed, path, &mut diagnostics)?;
    meshes::check_meshes(&scene, path)?;
    let (meshes, mesh_nodes) = meshes::read_meshes(&scene, &joints, folder, &mut diagnostics);
    let mut skin_joints: Vec<JointId> = meshes
        .iter()
        .filter(|m| !m.rigid)
        .flat_map(|m| m.joints_used.iter().copied())
        .collect();
    skin_joints.sort_by_key(|j| j.index());
    skin_joints.dedup();
    asset.weighted_joints = skin_joints.clone();
    asset.skin_joints = skin_joints;
    Ok(FbxRead {
        outcome: ReadOutcome { asset, diagnostics },
        meshes,
        mesh_nodes,
    })
}

/// ufbx's error as ours: the file, ufbx's reason (its description, the detail it adds, its
/// error type when the description is only "Failed to load") and where ufbx was when it gave
/// up (its error stack, innermost first: the element it was reading); ufbx gives no byte offset.
fn refused(path: &Path, error: &ufbx::Error) -> Error {
    let frames = error
        .stack
        .iter()
        .take(usize::try_from(error.stack_size).unwrap_or(0))
        .map(|frame| (frame.function.to_string(), frame.description.to_string()));
    Error::invalid_coded(
        "FBX_INVALID",
        path,
        Location::File,
        format!(
            "ufbx cannot read it: {}",
            ufbx_reason(
                error.description.trim(),
                error.info().trim(),
                &format!("{:?}", error.type_),
                frames
            )
        ),
    )
}

/// ufbx's reason in words: `description` (with the `info` it adds and, when the description is
/// the generic "Failed to load", the error type), then where ufbx was: the check that failed
/// and the functions of its error stack, innermost first, without their `ufbxi_` prefix
/// (`read_objects` is the Objects section, `read_mesh` a mesh).
///
/// A truncated file reads: `Failed to load (TruncatedFile); ufbx stack: read_to <
/// binary_parse_node < read_objects < read_root < load_imp (check `uc->read_fn` failed)`.
fn ufbx_reason(
    description: &str,
    info: &str,
    kind: &str,
    frames: impl Iterator<Item = (String, String)>,
) -> String {
    let mut reason = description.to_owned();
    if !info.is_empty() && info != description {
        reason.push_str(&format!(" ({info})"));
    } else if description.eq_ignore_ascii_case("Failed to load") && kind != "Unknown" {
        reason.push_str(&format!(" ({kind})"));
    }
    let mut functions: Vec<String> = Vec::new();
    let mut check = None;
    for (function, what) in frames {
        if check.is_none() && !what.trim().is_empty() {
            check = Some(what.trim().chars().take(80).collect::<String>());
        }
        let name = function.trim_start_matches("ufbxi_").to_owned();
        if !name.is_empty() && functions.last() != Some(&name) {
            functions.push(name);
        }
    }
    if !functions.is_empty() {
        reason.push_str("; ufbx stack: ");
        reason.push_str(&functions.join(" < "));
        if let Some(check) = check {
            reason.push_str(&format!(" (check `{check}` failed)"));
        }
    }
    reason
}

fn report_space(scene: &ufbx::Scene, diagnostics: &mut Diagnostics) {
    let settings = &scene.settings;
    let axis = |a: ufbx::CoordinateAxis| format!("{a:?}");
    let axes = &settings.axes;
    diagnostics.info(
        "FBX_SPACE_CONVERTED",
        "",
        format!(
            "converted to metres, +Y up, +Z forward from the file's unit of {} m and axes right {}, up {}, front {} ({} at {} frames per second)",
            settings.unit_meters,
            axis(axes.right),
            axis(axes.up),
            axis(axes.front),
            &*scene.metadata.creator,
            settings.frames_per_second
        ),
    );
}

/// Each ufbx node's joint (`None` for the scene root unless it is kept), by ufbx node index.
pub(crate) struct NodeJoints(Vec<Option<JointId>>);

impl NodeJoints {
    /// The joint of `node`, if it is one.
    pub(crate) fn of(&self, node: &ufbx::Node) -> Option<JointId> {
        self.by_index(node.element.typed_id as usize)
    }

    /// The joint of ufbx node `index`, if it is one.
    pub(crate) fn by_index(&self, index: usize) -> Option<JointId> {
        self.0.get(index).copied().flatten()
    }
}

/// The skeleton: every node below the scene root (ufbx lists nodes parents first), with its
/// local rest transform (`rest`); `source_indices` are ufbx's node indices. Also each node's
/// joint.
fn asset_of(
    scene: &ufbx::Scene,
    rest: &rest::Rest,
    path: &Path,
) -> Result<(Asset, NodeJoints), Error> {
    // Several top-level nodes (an armature beside its meshes, a camera, a light) hang from the
    // FBX scene root, kept then as a joint "RootNode": a skin that joins bones and the mesh's
    // own node has the common root glTF asks for.
    let top_level = scene
        .nodes
        .iter()
        .filter(|n| n.parent.as_ref().is_some_and(|p| p.is_root))
        .count();
    let keep_root = top_level > 1;
    let mut raw = Vec::with_capacity(scene.nodes.len());
    let mut source = Vec::with_capacity(scene.nodes.len());
    // Each ufbx node's raw joint index (ufbx lists parents first).
    let mut raw_of: Vec<Option<usize>> = vec![None; scene.nodes.len()];
    for node in scene.nodes.iter().filter(|n| keep_root || !n.is_root) {
        let index = node.element.typed_id as usize;
        let parent = node
            .parent
            .as_ref()
            .and_then(|p| raw_of.get(p.element.typed_id as usize).copied().flatten());
        let name = if node.is_root && node.element.name.is_empty() {
            "RootNode".to_owned()
        } else {
            node.element.name.to_string()
        };
        if let Some(slot) = raw_of.get_mut(index) {
            *slot = Some(raw.len());
        }
        let local = rest
            .locals
            .get(index)
            .copied()
            .unwrap_or_else(|| trs(&node.local_transform));
        check_finite(&local, &name, node, path)?;
        raw.push(RawJoint {
            name,
            parent,
            rest: local,
        });
        source.push(index);
    }
    let (skeleton, ids) = Skeleton::from_raw(raw).map_err(|e| {
        Error::invalid_coded(
            "FBX_INVALID",
            path,
            Location::File,
            format!("the node hierarchy is not a skeleton: {e}"),
        )
    })?;
    // Raw joint `i` is ufbx node `source[i]`; the skeleton may order joints otherwise.
    let mut by_node = vec![None; scene.nodes.len()];
    for (raw_index, node) in source.iter().enumerate() {
        if let (Some(slot), Some(&id)) = (by_node.get_mut(*node), ids.get(raw_index)) {
            *slot = Some(id);
        }
    }
    let mut source_indices = vec![0; skeleton.len()];
    for (raw_index, id) in ids.iter().enumerate() {
        if let (Some(slot), Some(&node)) =
            (source_indices.get_mut(id.index()), source.get(raw_index))
        {
            *slot = node;
        }
    }
    Ok((
        Asset::new(Format::Fbx, skeleton, source_indices),
        NodeJoints(by_node),
    ))
}

/// Refuses a node whose rest transform is not finite in 32-bit floats (NaN, an infinity, or a
/// number such as 1e200 that no f32 holds), naming the node and the file's own values.
fn check_finite(local: &Trs, name: &str, node: &ufbx::Node, path: &Path) -> Result<(), Error> {
    let finite =
        local.translation.is_finite() && local.rotation.is_finite() && local.scale.is_finite();
    if finite {
        return Ok(());
    }
    let t = &node.local_transform;
    Err(Error::invalid_coded(
        "FBX_NOT_FINITE",
        path,
        Location::File,
        format!(
            "node {name:?}: its rest transform is not a finite 32-bit number (translation [{:?}, {:?}, {:?}], rotation [{:?}, {:?}, {:?}, {:?}], scale [{:?}, {:?}, {:?}], in metres): expected finite lengths, rotations and scales",
            t.translation.x, t.translation.y, t.translation.z,
            t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w,
            t.scale.x, t.scale.y, t.scale.z
        ),
    ))
}

/// A ufbx transform as ours (f64 to f32).
pub(crate) fn trs(t: &ufbx::Transform) -> Trs {
    Trs {
        translation: vec3(t.translation),
        rotation: quat(t.rotation),
        scale: vec3(t.scale),
    }
}

pub(crate) fn vec3(v: ufbx::Vec3) -> glam::Vec3 {
    glam::DVec3::new(v.x, v.y, v.z).as_vec3()
}

pub(crate) fn quat(q: ufbx::Quat) -> glam::Quat {
    glam::DQuat::from_xyzw(q.x, q.y, q.z, q.w)
        .as_quat()
        .normalize()
}

#[cfg(test)]
mod tests {
    use super::ufbx_reason;

    fn frames(list: &[(&str, &str)]) -> impl Iterator<Item = (String, String)> {
        list.iter()
            .map(|(f, d)| ((*f).to_owned(), (*d).to_owned()))
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn ufbx_errors_name_the_type_and_the_stack() {
        let stack = frames(&[
            ("ufbxi_read_to", "uc->read_fn"),
            ("ufbxi_binary_parse_node", "ufbxi_read_to(uc, data)"),
            ("ufbxi_binary_parse_node", "ufbxi_binary_parse_node(uc)"),
            ("ufbxi_read_objects", "ufbxi_parse_toplevel(uc)"),
        ]);
        assert_eq!(
            ufbx_reason("Failed to load", "", "TruncatedFile", stack),
            "Failed to load (TruncatedFile); ufbx stack: read_to < binary_parse_node < read_objects (check `uc->read_fn` failed)"
        );
        assert_eq!(
            ufbx_reason("Bad index", "Geometry::Body", "BadIndex", frames(&[])),
            "Bad index (Geometry::Body)"
        );
        assert_eq!(
            ufbx_reason("Failed to load", "", "Unknown", frames(&[])),
            "Failed to load"
        );
    }
}
