//! `sockets`: where a file's sockets (KHR_virtual_transform) are in the world, at rest or at a
//! time of one of its clips.

use std::path::Path;

use glam::Mat4;
use serde::Serialize;

use crate::error::{Diagnostics, Error};
use crate::formats::gltf::{self, virtual_transform};
use crate::model::socket::{Socket, SocketKind};
use crate::model::JointId;
use crate::pose::fk::Sampler;
use crate::pose::socket::{world_all, VtMode};

/// What to evaluate.
#[derive(Debug, Clone, Default)]
pub struct SocketOptions {
    /// The clip to pose (`None`: the first, when a time is given).
    pub clip: Option<String>,
    /// The time in seconds (`None`: the rest pose).
    pub time: Option<f32>,
    /// How "post-initialization" reads for offsets whose parent rotation is not respected.
    pub mode: VtMode,
}

/// One socket and its world transform.
#[derive(Debug, Clone, Serialize)]
pub struct SocketPlace {
    /// Its name.
    pub name: String,
    /// The parent joint's name (`None`: the scene root).
    pub parent: Option<String>,
    /// The tags, as in the file.
    pub tags: Vec<String>,
    /// The meaning read from the tags (`look_at`, `hand_attach`, …).
    pub kind: Option<String>,
    /// World position.
    pub position: [f32; 3],
    /// World rotation (x, y, z, w).
    pub rotation: [f32; 4],
    /// World scale.
    pub scale: [f32; 3],
    /// Shear was dropped deriving it (a non-uniformly scaled, rotated parent).
    pub sheared: bool,
}

/// The sockets of a file at one pose.
#[derive(Debug, Clone, Serialize)]
pub struct SocketReport {
    /// The file.
    pub file: String,
    /// The clip posed, if any.
    pub clip: Option<String>,
    /// The time posed (`None`: rest).
    pub time: Option<f32>,
    /// Every socket, in file order.
    pub sockets: Vec<SocketPlace>,
    /// What was found wrong or approximated.
    pub diagnostics: Diagnostics,
}

/// Reads the sockets of a glTF, GLB or VRM file.
///
/// # Errors
/// The file cannot be read, or its KHR_virtual_transform data is invalid (the error names the
/// JSON pointer).
pub fn read_sockets(path: &Path) -> Result<(crate::model::Asset, Vec<Socket>, Diagnostics), Error> {
    let document = gltf::Document::open(path)?;
    let outcome = crate::formats::vrm::asset_from_document(&document)?;
    let mut diagnostics = outcome.diagnostics;
    let sockets = sockets_of(&document, &outcome.asset, &mut diagnostics)?;
    Ok((outcome.asset, sockets, diagnostics))
}

/// The sockets of an open document, parented to the joints of `asset` (read from it): its
/// `KHR_virtual_transform` entries, and a VRM's gaze origin ([`crate::formats::vrm::gaze`])
/// when none of them is a `gaze_origin`.
///
/// # Errors
/// The KHR_virtual_transform data is invalid (the error names the JSON pointer).
pub fn sockets_of(
    document: &gltf::Document,
    asset: &crate::model::Asset,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<Socket>, Error> {
    let path = document.path();
    let root = serde_json::to_value(&document.root)
        .map_err(|e| Error::unsupported(format!("{}: glTF JSON: {e}", path.display())))?;
    let mut joint_of = vec![None; asset.source_indices.iter().max().map_or(0, |m| m + 1)];
    for joint in asset.skeleton.joints() {
        if let Some(slot) = joint_of.get_mut(asset.source_index(joint)) {
            *slot = Some(joint);
        }
    }
    let mut sockets = virtual_transform::read_in(
        &root,
        path,
        |node| joint_of.get(node).copied().flatten(),
        diagnostics,
    )?;
    // A look-at node that repeats a virtual transform (a VRM → glTF write lists the gaze
    // origin in both) is one socket.
    for target in lookat_targets(document, &joint_of) {
        let repeated = sockets
            .iter()
            .any(|s| s.name == target.name && s.parent == target.parent && s.kind == target.kind);
        if !repeated {
            sockets.push(target);
        }
    }
    // A VRM's gaze origin, unless a virtual transform or a look-at node already carries it.
    let gaze_listed = sockets
        .iter()
        .any(|s| s.kind == Some(crate::model::socket::SocketKind::GazeOrigin));
    if !gaze_listed {
        sockets.extend(crate::formats::vrm::gaze::socket(asset));
    }
    Ok(sockets)
}

/// The nodes marked `KHR_node_lookat_target` as sockets on their parent joint: the node's
/// own rest is the offset, its `hint` the tag (a kind tag such as `gaze_origin` gives that
/// kind; any other hint, or none, is a `look_at` target).
fn lookat_targets(document: &gltf::Document, joint_of: &[Option<JointId>]) -> Vec<Socket> {
    let nodes = &document.root.nodes;
    let mut parent_of: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for child in &node.children {
            if let Some(slot) = parent_of.get_mut(child.as_usize()) {
                *slot = Some(i);
            }
        }
    }
    let mut out = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let Some(marker) = node
            .extensions
            .as_ref()
            .and_then(|e| e.get(crate::ops::khr_write::LOOKAT_TARGET))
        else {
            continue;
        };
        let hint = marker.get("hint").and_then(serde_json::Value::as_str);
        let parent = parent_of
            .get(i)
            .copied()
            .flatten()
            .and_then(|p| joint_of.get(p).copied().flatten());
        let mut socket = Socket::new(
            node.name.clone().unwrap_or_else(|| format!("node {i}")),
            parent,
        );
        if let Some(rest) = joint_of
            .get(i)
            .copied()
            .flatten()
            .map(|_| crate::formats::gltf::humanoid::node_rest(node))
        {
            socket.translation = rest.translation;
            socket.rotation = rest.rotation;
            socket.scale = rest.scale;
        }
        let mut tags = vec![hint.unwrap_or(SocketKind::LookAtTarget.tag()).to_owned()];
        if SocketKind::from_tags(&tags).is_none() {
            tags.push(SocketKind::LookAtTarget.tag().to_owned());
        }
        socket.set_tags(tags);
        out.push(socket);
    }
    out
}

/// The world transform of every socket of `path`, at rest or at `options.time`.
///
/// # Errors
/// As [`read_sockets`]; the clip asked for does not exist.
pub fn sockets(path: &Path, options: &SocketOptions) -> Result<SocketReport, Error> {
    if let Some(t) = options.time.filter(|t| !t.is_finite()) {
        return Err(Error::unsupported(format!(
            "time {t}: expected a finite number of seconds"
        )));
    }
    let (asset, sockets, diagnostics) = read_sockets(path)?;
    let (clip, places) = place(&asset, &sockets, options, path)?;
    Ok(SocketReport {
        file: path.display().to_string(),
        clip,
        time: options.time,
        sockets: places,
        diagnostics,
    })
}

/// Where `sockets` (of `asset`, read from `path`) are at rest or at `options.time`, and the
/// name of the clip posed.
///
/// # Errors
/// The clip asked for does not exist; a socket's parent is not a joint of `asset`.
pub fn place(
    asset: &crate::model::Asset,
    sockets: &[Socket],
    options: &SocketOptions,
    path: &Path,
) -> Result<(Option<String>, Vec<SocketPlace>), Error> {
    let skeleton = &asset.skeleton;
    let rest: Vec<Mat4> = skeleton.rest_worlds().iter().map(|w| w.to_mat4()).collect();
    let (clip_name, worlds) = match options.time {
        None => (None, rest.clone()),
        Some(t) => {
            let clip = asset.clip(options.clip.as_deref()).ok_or_else(|| {
                Error::unsupported(format!(
                    "{}: no clip {}to pose",
                    path.display(),
                    options
                        .clip
                        .as_deref()
                        .map_or_else(String::new, |n| format!("named {n:?} "))
                ))
            })?;
            let played = crate::pose::normalized::playable(asset, clip);
            let mut sampler = Sampler::new(skeleton, &played);
            sampler.evaluate(t);
            (Some(clip.name.clone()), sampler.worlds())
        }
    };
    let places = world_all(sockets, &worlds, &rest, options.mode)?;
    let places = sockets
        .iter()
        .zip(places)
        .map(|(socket, world)| SocketPlace {
            name: socket.name.clone(),
            parent: socket.parent.map(|j| skeleton.name(j).to_owned()),
            tags: socket.tags.clone(),
            kind: socket.kind.map(|k| k.tag().to_owned()),
            position: world.translation.to_array(),
            rotation: world.rotation.to_array(),
            scale: world.scale.to_array(),
            sheared: world.sheared,
        })
        .collect();
    Ok((clip_name, places))
}

/// Reports each socket a `target` file cannot hold (`SOCKET_DROPPED`, one per socket, naming
/// it and its joint).
pub fn report_dropped(
    sockets: &[Socket],
    asset: &crate::model::Asset,
    target: crate::model::Format,
    diagnostics: &mut Diagnostics,
) {
    for socket in sockets {
        let on = socket
            .parent
            .filter(|&j| asset.skeleton.contains(j))
            .map_or_else(
                || "the scene root".to_owned(),
                |j| format!("joint {:?}", asset.skeleton.name(j)),
            );
        diagnostics.warn(
            "SOCKET_DROPPED",
            "",
            format!(
                "socket {:?} (on {on}) is not written: a {target} file cannot hold sockets",
                socket.name
            ),
        );
    }
}

/// The sockets of any file the readers know, parented to the joints of the asset that
/// [`crate::ops::read::read`] gives for it: glTF/GLB/VRM virtual transforms and gaze origin, H-Anim
/// Sites; none for other formats.
///
/// # Errors
/// The file cannot be read, or its sockets are invalid.
pub fn sockets_of_file(path: &Path, diagnostics: &mut Diagnostics) -> Result<Vec<Socket>, Error> {
    let format = crate::ops::read::input_format(path)?;
    if !(format.is_gltf_family() || format.is_hanim()) {
        return Ok(Vec::new());
    }
    let options = crate::ops::read::ReadOptions {
        strict_sockets: true,
        ..crate::ops::read::ReadOptions::default()
    };
    let read = crate::ops::read::read(path, &options)?;
    diagnostics.extend(read.diagnostics);
    Ok(read.character.sockets)
}

/// Retarget's `--carry-sockets`: the sockets of the source character `source_path` (read as
/// `source`) carried by bone onto `target` ([`crate::pose::socket_transfer`]) and added to
/// the target's `document` as virtual transforms, after the target's own (a carried socket
/// whose name the target already uses is left out). An output that is not a glTF, GLB or VRM
/// file holds no sockets: each is reported dropped.
///
/// # Errors
/// The source's sockets cannot be read; the target's virtual transforms are invalid.
pub fn carry_into(
    source_path: &Path,
    source: &crate::model::Asset,
    document: &mut gltf::Document,
    target: &crate::model::Asset,
    output: crate::model::Format,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    use crate::model::Format;
    use crate::pose::socket_transfer::{transfer, Rig};
    let mut found = Diagnostics::new();
    let sockets = sockets_of_file(source_path, &mut found)?;
    let (Some(from), Some(to)) = (source.humanoids.first(), target.humanoids.first()) else {
        if !sockets.is_empty() {
            diagnostics.warn(
                "SOCKET_NOT_CARRIED",
                "",
                format!(
                    "{} socket(s) not carried: both files need a humanoid",
                    sockets.len()
                ),
            );
        }
        return Ok(());
    };
    fn rig<'a>(asset: &'a crate::model::Asset, bones: &'a crate::model::BoneMap) -> Rig<'a> {
        Rig {
            skeleton: &asset.skeleton,
            bones,
            faces_minus_z: asset.facing == crate::model::asset::Facing::MinusZ,
        }
    }
    let carried = transfer(
        &sockets,
        rig(source, &from.bones),
        rig(target, &to.bones),
        diagnostics,
    );
    if !matches!(
        output,
        Format::Glb | Format::Gltf | Format::Vrm1 | Format::Vrm0
    ) {
        report_dropped(&carried, target, output, diagnostics);
        return Ok(());
    }
    let mut scratch = Diagnostics::new();
    let own = sockets_of(document, target, &mut scratch)?;
    let (kept, clashing): (Vec<Socket>, Vec<Socket>) = carried
        .into_iter()
        .partition(|s| !own.iter().any(|o| o.name == s.name));
    for socket in &clashing {
        diagnostics.warn(
            "SOCKET_NOT_CARRIED",
            "",
            format!(
                "socket {:?} was not carried: the target has its own socket of that name",
                socket.name
            ),
        );
    }
    if kept.is_empty() {
        return Ok(());
    }
    let items = virtual_transform::to_json(&kept, |j| target.source_index(j));
    let name = virtual_transform::NAME;
    let root = &mut document.root;
    let extensions = root.extensions.get_or_insert_with(Default::default);
    let entry = extensions
        .entry(name.to_owned())
        .or_insert_with(|| serde_json::json!({ "virtualTransforms": [] }));
    match entry["virtualTransforms"].as_array_mut() {
        Some(list) => list.extend(
            items["virtualTransforms"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
        ),
        None => *entry = items,
    }
    if !root.extensions_used.iter().any(|e| e == name) {
        root.extensions_used.push(name.to_owned());
    }
    diagnostics.info(
        "SOCKETS_CARRIED",
        format!("/extensions/{name}/virtualTransforms"),
        format!(
            "{} socket(s) of {} carried onto the model by bone: {}",
            kept.len(),
            source_path.display(),
            kept.iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    Ok(())
}
