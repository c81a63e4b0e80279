//! VRM's gaze origin as a socket: VRM 1.0 `lookAt.offsetFromHeadBone` and VRM 0.x
//! `firstPerson.firstPersonBoneOffset` ↔ one socket named [`GAZE_ORIGIN`] on the head, tagged
//! `gaze_origin` ([`SocketKind::GazeOrigin`]). It is the point the eyes look *from*; the
//! `KHR_virtual_transform` draft's `look_at` example (a target in front of the head,
//! [`SocketKind::LookAtTarget`]) is another thing and is never read or written here.
//!
//! ## The frame
//!
//! The VRM 1.0 spec (`VRMC_vrm-1.0/lookAt.md`, "LookAt space") defines a transform whose parent
//! is the head, whose local position is `offsetFromHeadBone` and whose local rotation is the
//! inverse of the head's rest rotation in model space (so the gaze's rest forward is model +Z).
//! three-vrm 3.5.5 computes the point as
//! `offsetFromHeadBone.applyMatrix4(humanoid.getRawBoneNode("head").matrixWorld)`
//! (`VRMLookAt.getLookAtWorldPosition`): the offset is in the frame of the file's own head node,
//! with its rest rotation and scale, not in the normalized rig. The socket is therefore the head
//! node's child with `translation = offset`, `rotation = inverse(head rest world rotation)`,
//! every `respectParent*` flag on; its world position is three-vrm's at any pose.
//!
//! VRM 0.x stores the offset as a Unity vector `{x, y, z}`; three-vrm reads it as
//! `(x, y, −z)` in the 0.x file's space and measures it from the head too (its
//! `firstPersonBone` is not used), which is what [`crate::formats::vrm::humanoid::look_at_v0`]
//! reads. A file without `lookAt` (0.x: without `firstPerson`) has no gaze socket; one with
//! `lookAt` but no offset gets three-vrm's default `[0, 0.06, 0]`.
//!
//! ## In conversions
//!
//! - VRM → glTF/GLB ([`add_to_document`]): the socket is appended to
//!   `KHR_virtual_transform` (unless a `gaze_origin` socket is already there).
//! - glTF/GLB → VRM ([`take_from_document`]): the first `gaze_origin` socket becomes
//!   `offsetFromHeadBone` (0.x: `firstPersonBoneOffset`, Unity space) and is removed from the
//!   virtual transforms (the extension with it when it was the only one). A socket on another
//!   joint is moved to the head at rest; flags that are off, a rotation other than the
//!   LookAt space's, and more than one gaze socket are reported.

use glam::{Quat, Vec3};
use serde_json::{json, Value};

use super::{flavour, VRM0, VRMC_VRM};
use crate::error::{Diagnostics, Error};
use crate::formats::gltf::{virtual_transform as vt, Document};
use crate::model::asset::Asset;
use crate::model::socket::{Socket, SocketKind};
use crate::model::Format;
use crate::model::{HumanBone, JointId};
use crate::pose::socket::decompose;

/// The socket's name.
pub const GAZE_ORIGIN: &str = "gaze_origin";

/// How far (metres, or quaternion components) a written value may differ before it is
/// reported as changed.
const TOLERANCE: f32 = 1e-6;

/// The gaze-origin socket of a VRM asset (see the [module docs](self)), `None` when the file
/// declares no look-at or has no head.
pub fn socket(asset: &Asset) -> Option<Socket> {
    if !matches!(asset.format, Format::Vrm1 | Format::Vrm0) {
        return None;
    }
    let look = asset.look_at.as_ref()?;
    let head = asset.humanoids.first()?.bones.get(HumanBone::Head)?;
    let mut socket = Socket::new(GAZE_ORIGIN, Some(head));
    socket.translation = look.offset;
    socket.rotation = look_at_space_rotation(asset, head);
    socket.set_tags(vec![SocketKind::GazeOrigin.tag().to_owned()]);
    Some(socket)
}

/// The LookAt space's local rotation: the inverse of the head's rest world rotation.
fn look_at_space_rotation(asset: &Asset, head: JointId) -> Quat {
    let rest = asset.skeleton.rest_world(head).to_mat4();
    decompose(rest).rotation.inverse().normalize()
}

/// Appends the gaze socket of a VRM document to its `KHR_virtual_transform` (VRM → glTF);
/// nothing when the document has no gaze socket or already carries a `gaze_origin` one.
///
/// # Errors
/// The VRM extension or the existing virtual transforms are invalid.
pub fn add_to_document(
    document: &mut Document,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let asset = super::asset_from_document(document)?.asset;
    let Some(gaze) = socket(&asset) else {
        return Ok(());
    };
    let (root, existing) = node_sockets(document)?;
    if existing
        .iter()
        .any(|s| s.kind == Some(SocketKind::GazeOrigin))
    {
        return Ok(());
    }
    let item = vt::to_json(std::slice::from_ref(&gaze), |j| asset.source_index(j))
        ["virtualTransforms"][0]
        .take();
    let mut extension = root
        .get("extensions")
        .and_then(|e| e.get(vt::NAME))
        .cloned()
        .unwrap_or_else(|| json!({ "virtualTransforms": [] }));
    if let Some(items) = extension["virtualTransforms"].as_array_mut() {
        items.push(item);
    }
    set_extension(document, Some(extension));
    let field = match asset.format {
        Format::Vrm0 => "/extensions/VRM/firstPerson/firstPersonBoneOffset",
        _ => "/extensions/VRMC_vrm/lookAt/offsetFromHeadBone",
    };
    diagnostics.info(
        "VRM_GAZE_SOCKET",
        format!("/extensions/{}/virtualTransforms", vt::NAME),
        format!(
            "the gaze origin ({field}) was written as the virtual transform {GAZE_ORIGIN:?} on the head"
        ),
    );
    Ok(())
}

/// Writes the first `gaze_origin` socket of `document` as its VRM gaze origin and removes it
/// from the virtual transforms (glTF → VRM; see the [module docs](self)). Nothing happens to a
/// document that is not a VRM 1.0 or 0.x, or has no such socket.
///
/// # Errors
/// The VRM extension or the virtual transforms are invalid.
pub fn take_from_document(
    document: &mut Document,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let Some(found) = flavour(document).filter(|f| matches!(f, Format::Vrm1 | Format::Vrm0)) else {
        return Ok(());
    };
    let (_, sockets) = node_sockets(document)?;
    let gaze: Vec<usize> = sockets
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == Some(SocketKind::GazeOrigin))
        .map(|(i, _)| i)
        .collect();
    let Some(&first) = gaze.first() else {
        return Ok(());
    };
    let pointer = format!("/extensions/{}/virtualTransforms/{first}", vt::NAME);
    let socket = &sockets[first];
    let asset = super::asset_from_document(document)?.asset;
    let joint_of = |node: usize| {
        asset
            .skeleton
            .joints()
            .find(|&j| asset.source_index(j) == node)
    };
    let Some(head) = asset
        .humanoids
        .first()
        .and_then(|h| h.bones.get(HumanBone::Head))
    else {
        diagnostics.warn(
            "VRM_GAZE_NO_HEAD",
            pointer,
            "the gaze_origin socket is kept as a virtual transform: the humanoid has no head",
        );
        return Ok(());
    };
    let parent = socket.parent.and_then(|node| joint_of(node.index()));
    let offset = match parent {
        Some(p) if p == head => socket.translation,
        _ => {
            // Its rest place, seen from the head at rest.
            let rest = |j: Option<JointId>| {
                j.map_or(glam::Mat4::IDENTITY, |j| {
                    asset.skeleton.rest_world(j).to_mat4()
                })
            };
            let p = rest(parent);
            let world =
                crate::pose::socket::world(socket, p, p, crate::pose::socket::VtMode::Aligned);
            let offset = rest(Some(head))
                .inverse()
                .transform_point3(world.translation);
            diagnostics.info(
                "VRM_GAZE_MOVED_TO_HEAD",
                pointer.clone(),
                format!(
                    "the gaze_origin socket is on {}, not the head; VRM measures the gaze origin from the head, so its rest place was written as the offset {}",
                    parent.map_or("the scene root", |p| asset.skeleton.name(p)),
                    crate::math::num::Nums::from(offset)
                ),
            );
            offset
        }
    };
    if !socket.respects_all() {
        diagnostics.warn(
            "VRM_GAZE_FOLLOWS_HEAD",
            pointer.clone(),
            "the gaze_origin socket does not follow every part of its parent's motion; the VRM gaze origin always follows the head",
        );
    }
    let space = look_at_space_rotation(&asset, head);
    if parent == Some(head)
        && !socket.rotation.abs_diff_eq(space, TOLERANCE)
        && !socket.rotation.abs_diff_eq(-space, TOLERANCE)
    {
        diagnostics.warn(
            "VRM_GAZE_ROTATION_DROPPED",
            pointer.clone(),
            "the gaze_origin socket's rotation is not the LookAt space's (the inverse of the head's rest rotation): VRM stores only the offset, so the rotation was dropped",
        );
    }
    if gaze.len() > 1 {
        diagnostics.warn(
            "VRM_GAZE_SEVERAL",
            format!("/extensions/{}/virtualTransforms", vt::NAME),
            format!(
                "{} gaze_origin sockets: the first ({:?}) became the VRM gaze origin, the others stay virtual transforms",
                gaze.len(),
                socket.name
            ),
        );
    }
    write_offset(document, found, offset, diagnostics);
    remove_item(document, first);
    Ok(())
}

/// The document's virtual transforms with node `n` read as joint `n`, and its JSON.
fn node_sockets(document: &Document) -> Result<(Value, Vec<Socket>), Error> {
    let root = serde_json::to_value(&document.root).map_err(|e| {
        Error::unsupported(format!("{}: glTF JSON: {e}", document.path().display()))
    })?;
    let mut scratch = Diagnostics::new();
    let sockets = vt::read_in(&root, document.path(), JointId::from_index, &mut scratch)?;
    Ok((root, sockets))
}

/// Sets (or with `None` removes) `extensions.KHR_virtual_transform` and its `extensionsUsed`
/// entry.
fn set_extension(document: &mut Document, extension: Option<Value>) {
    let root = &mut document.root;
    match extension {
        Some(value) => {
            root.extensions
                .get_or_insert_with(Default::default)
                .insert(vt::NAME.to_owned(), value);
            if !root.extensions_used.iter().any(|e| e == vt::NAME) {
                root.extensions_used.push(vt::NAME.to_owned());
            }
        }
        None => {
            if let Some(extensions) = &mut root.extensions {
                extensions.remove(vt::NAME);
                if extensions.is_empty() {
                    root.extensions = None;
                }
            }
            root.extensions_used.retain(|e| e != vt::NAME);
        }
    }
}

/// Removes item `index` of the virtual transforms (the extension when none is left).
fn remove_item(document: &mut Document, index: usize) {
    let Some(mut extension) = document
        .root
        .extensions
        .as_ref()
        .and_then(|e| e.get(vt::NAME))
        .cloned()
    else {
        return;
    };
    let empty = match extension["virtualTransforms"].as_array_mut() {
        Some(items) if index < items.len() => {
            items.remove(index);
            items.is_empty()
        }
        _ => return,
    };
    set_extension(document, (!empty).then_some(extension));
}

/// Writes the gaze offset into the VRM extension; a value already there that equals it (to
/// [`TOLERANCE`]) is left as written, one that differs is replaced and reported.
fn write_offset(
    document: &mut Document,
    found: Format,
    offset: Vec3,
    diagnostics: &mut Diagnostics,
) {
    let Some(extensions) = document.root.extensions.as_mut() else {
        return;
    };
    // The shortest decimal that reads back as the same f32.
    let number = |v: f32| {
        let v = if v == 0.0 { 0.0 } else { v };
        let shortest = v.to_string().parse::<f64>().unwrap_or(f64::from(v));
        serde_json::Number::from_f64(shortest).map_or(Value::from(0), Value::Number)
    };
    let (object, key, pointer, new) = match found {
        Format::Vrm0 => {
            let Some(vrm) = extensions.get_mut(VRM0).and_then(Value::as_object_mut) else {
                return;
            };
            // Unity space: three-vrm reads (x, y, −z).
            let new = json!({"x": number(offset.x), "y": number(offset.y), "z": number(-offset.z)});
            (
                vrm.entry("firstPerson").or_insert_with(|| json!({})),
                "firstPersonBoneOffset",
                "/extensions/VRM/firstPerson/firstPersonBoneOffset",
                new,
            )
        }
        _ => {
            let Some(vrm) = extensions.get_mut(VRMC_VRM).and_then(Value::as_object_mut) else {
                return;
            };
            let new = json!([number(offset.x), number(offset.y), number(offset.z)]);
            (
                vrm.entry("lookAt").or_insert_with(|| json!({})),
                "offsetFromHeadBone",
                "/extensions/VRMC_vrm/lookAt/offsetFromHeadBone",
                new,
            )
        }
    };
    let Some(object) = object.as_object_mut() else {
        return;
    };
    let values = |v: &Value| -> Vec<f64> {
        match v {
            Value::Array(a) => a.iter().filter_map(Value::as_f64).collect(),
            Value::Object(o) => ["x", "y", "z"]
                .iter()
                .map(|k| o.get(*k).and_then(Value::as_f64).unwrap_or(0.0))
                .collect(),
            _ => Vec::new(),
        }
    };
    let old = object.get(key);
    let same = old.is_some_and(|old| {
        let (a, b) = (values(old), values(&new));
        a.len() == 3
            && a.iter()
                .zip(&b)
                .all(|(x, y)| (x - y).abs() <= f64::from(TOLERANCE))
    });
    if same {
        return;
    }
    let was = old.map_or_else(String::new, |o| format!(" (was {o})"));
    diagnostics.info(
        "VRM_GAZE_FROM_SOCKET",
        pointer,
        format!("the gaze origin was written from the gaze_origin socket: {new}{was}"),
    );
    object.insert(key.to_owned(), new);
}
