//! VRM 1.0 (`VRMC_vrm`), VRM 0.x (`VRM`) and VRM animation (`VRMC_vrm_animation`): glTF files
//! with a humanoid extension. Built on the glTF document layer (`formats::gltf`); nothing there
//! reaches back here.
//!
//! Reading a VRM is reading the glTF (every node a joint, every animation a clip) and then the
//! extension: its humanoid bone map (VRM 0.x thumbs renamed to 1.0 names), meta, look-at and
//! expression names, checked against the VRM rules ([`validate`]). Everything else stays in the
//! JSON, so a VRM written back as VRM loses nothing.
//!
//! ```no_run
//! use humanoid::formats::vrm;
//! use humanoid::model::HumanBone;
//! # fn main() -> Result<(), humanoid::Error> {
//! let read = vrm::read_asset("avatar.vrm".as_ref())?;
//! let bones = &read.asset.humanoids[0].bones;
//! println!("hips is joint {:?}", bones.get(HumanBone::Hips));
//! # Ok(()) }
//! ```

pub mod convert;
pub mod downgrade;
pub mod gaze;
pub mod humanoid;
pub mod khr_expression;
pub(crate) mod licence;
pub mod migrate;
pub mod validate;
pub use crate::formats::gltf::view;
pub mod vrma;

use std::path::Path;

use crate::error::{Diagnostics, Error};
use crate::formats::gltf::{self, Document};
use crate::model::asset::{Facing, HumanoidSkeleton, ReadOutcome};
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::{JointId, Skeleton};
use crate::model::Format;
use crate::model::HumanBone;

use self::humanoid::Declared;
use self::view::View;

/// The root extension of VRM 1.0.
pub const VRMC_VRM: &str = "VRMC_vrm";
/// The root extension of VRM 0.x.
pub const VRM0: &str = "VRM";
/// The root extension of VRM animation.
pub const VRMC_VRM_ANIMATION: &str = "VRMC_vrm_animation";

/// The VRM flavour a document declares: VRM 1.0 (`VRMC_vrm`, preferred when a file has both,
/// as three-vrm does), VRM 0.x (`VRM`) or VRM animation (`VRMC_vrm_animation`); `None` for
/// plain glTF.
pub fn flavour(document: &Document) -> Option<Format> {
    let extensions = document.root.extensions.as_ref()?;
    if extensions.contains_key(VRMC_VRM) {
        Some(Format::Vrm1)
    } else if extensions.contains_key(VRM0) {
        Some(Format::Vrm0)
    } else if extensions.contains_key(VRMC_VRM_ANIMATION) {
        Some(Format::Vrma)
    } else {
        None
    }
}

/// Reads a VRM or VRMA file (a plain glTF file reads as glTF).
///
/// # Errors
/// As [`Document::open`]; a malformed VRM extension ([`Error::Invalid`] with its JSON pointer).
pub fn read_asset(path: &Path) -> Result<ReadOutcome, Error> {
    asset_from_document(&Document::open(path)?)
}

/// The canonical asset of a VRM or VRMA document (see the module docs).
///
/// # Errors
/// As [`gltf::humanoid::asset_from_document`]; a malformed VRM extension.
pub fn asset_from_document(document: &Document) -> Result<ReadOutcome, Error> {
    asset_from_document_with(document, gltf::humanoid::Clips::Decode)
}

/// As [`asset_from_document`], decoding the clips or not ([`gltf::humanoid::Clips`]).
///
/// # Errors
/// As [`asset_from_document`].
pub fn asset_from_document_with(
    document: &Document,
    clips: gltf::humanoid::Clips,
) -> Result<ReadOutcome, Error> {
    let mut outcome = gltf::humanoid::asset_from_document_with(document, clips)?;
    khr_expression::check(&document.root, &mut outcome.diagnostics);
    let Some(flavour) = flavour(document) else {
        return Ok(outcome);
    };
    let diagnostics = &mut outcome.diagnostics;
    let declared = declared(document, flavour, diagnostics)?;
    if flavour == Format::Vrm1 {
        compare_with_vrm0(document, &declared, diagnostics)?;
    }
    let asset = &mut outcome.asset;
    let mut node_joints: Vec<Option<JointId>> = vec![None; asset.source_indices.len()];
    for (joint, &node) in asset.source_indices.iter().enumerate() {
        if let Some(slot) = node_joints.get_mut(node) {
            *slot = JointId::from_index(joint);
        }
    }
    let joint = |node: usize| node_joints.get(node).copied().flatten();
    let mut bones = BoneMap::new();
    for &(bone, node) in &declared.bones {
        bones.set(bone, joint(node));
    }
    let pointer = format!("/extensions/{}/humanoid", extension_name(flavour));
    validate::check(&asset.skeleton, &bones, flavour, &pointer, diagnostics);
    bones_not_joints(document, &declared.bones, &pointer, diagnostics);
    asset.format = flavour;
    asset.facing = match flavour {
        Format::Vrm0 => Facing::MinusZ,
        _ => Facing::PlusZ,
    };
    asset.meta = declared.meta;
    asset.expressions = declared.expressions;
    asset.look_at = declared.look_at.map(|mut look| {
        look.joint = declared
            .look_at_node
            .and_then(joint)
            .or_else(|| bones.get(HumanBone::Head));
        look
    });
    let root = bones
        .get(HumanBone::Hips)
        .map(|hips| top_of(&asset.skeleton, hips));
    asset.humanoids.insert(
        0,
        HumanoidSkeleton {
            root,
            bones,
            declared_t_pose: true,
        },
    );
    if let Some(targets) = &declared.vrma_targets {
        vrma::classify_clips(asset, targets, diagnostics);
        vrma::check_hips_height(asset, &pointer, diagnostics);
    }
    Ok(outcome)
}

/// A skinned VRM whose humanoid bones are not all joints of a skin: noted (the bone still
/// drives nothing it skins; skinless VRMs, common for props and tests, are not noted).
fn bones_not_joints(
    document: &Document,
    bones: &[(HumanBone, usize)],
    pointer: &str,
    diagnostics: &mut Diagnostics,
) {
    let skins = &document.root.skins;
    if skins.is_empty() {
        return;
    }
    let joints: std::collections::HashSet<usize> = skins
        .iter()
        .flat_map(|s| s.joints.iter().map(|j| j.as_usize()))
        .collect();
    let loose: Vec<&str> = bones
        .iter()
        .filter(|(_, node)| !joints.contains(node))
        .map(|(bone, _)| bone.as_str())
        .collect();
    if !loose.is_empty() {
        diagnostics.info(
            "VRM_BONE_NOT_JOINT",
            pointer,
            format!(
                "{} humanoid bone(s) are not joints of any skin: {}",
                loose.len(),
                loose.join(", ")
            ),
        );
    }
}

/// The topmost ancestor of a joint (the joint itself for a root).
fn top_of(skeleton: &Skeleton, joint: JointId) -> JointId {
    skeleton.ancestors(joint).last().unwrap_or(joint)
}

/// The extension's name for a flavour.
pub fn extension_name(flavour: Format) -> &'static str {
    match flavour {
        Format::Vrm0 => VRM0,
        Format::Vrma => VRMC_VRM_ANIMATION,
        _ => VRMC_VRM,
    }
}

/// Reads what the flavour's extension declares.
fn declared(
    document: &Document,
    flavour: Format,
    diagnostics: &mut Diagnostics,
) -> Result<Declared, Error> {
    let name = extension_name(flavour);
    let value = document
        .root
        .extensions
        .as_ref()
        .and_then(|e| e.get(name))
        .ok_or_else(|| {
            Error::unsupported(format!(
                "{}: no {name} extension",
                document.path().display()
            ))
        })?;
    let root = View::new(value, format!("/extensions/{name}"), document.path());
    root.entries()?;
    let nodes = document.root.nodes.len();
    let mut out = Declared {
        spec_version: root
            .get("specVersion")
            .and_then(|v| v.value().as_str().map(str::to_owned)),
        ..Declared::default()
    };
    if !document.root.extensions_used.iter().any(|e| e == name) {
        diagnostics.warn(
            "VRM_NOT_DECLARED",
            "/extensionsUsed",
            format!("{name} is used but not listed in extensionsUsed"),
        );
    }
    let human_bones = root
        .get("humanoid")
        .and_then(|h| h.get("humanBones"))
        .ok_or_else(|| {
            root.error("missing humanoid.humanBones: a VRM file must declare its humanoid bones")
        })?;
    match flavour {
        Format::Vrm0 => {
            out.bones = humanoid::bones_v0(&human_bones, nodes, diagnostics)?;
            out.meta = root.get("meta").map(|m| humanoid::meta_v0(&m));
            if let Some(first_person) = root.get("firstPerson") {
                let (look, node) = humanoid::look_at_v0(&first_person, nodes)?;
                out.look_at = Some(look);
                out.look_at_node = node;
            }
            if let Some(master) = root.get("blendShapeMaster") {
                out.expressions = humanoid::expressions_v0(&master)?;
            }
        }
        Format::Vrma => {
            out.bones = humanoid::bones_v1(&human_bones, nodes, diagnostics)?;
            if let Some(expressions) = root.get("expressions") {
                out.expressions = humanoid::expressions_v1(&expressions)?;
            }
            out.vrma_targets = Some(vrma::targets(&root, nodes)?);
            if let Some(look_at) = root.get("lookAt") {
                let mut look = crate::model::face::LookAt::default();
                if let Some(offset) = look_at.get("offsetFromHeadBone") {
                    look.offset = glam::Vec3::from(offset.vec3_array()?);
                }
                out.look_at = Some(look);
            }
        }
        _ => {
            match out.spec_version.as_deref() {
                Some("1.0") | Some("1.0-beta") => {}
                other => diagnostics.warn(
                    "VRM_SPEC_VERSION",
                    format!("/extensions/{name}/specVersion"),
                    format!("specVersion {other:?}: expected \"1.0\""),
                ),
            }
            out.bones = humanoid::bones_v1(&human_bones, nodes, diagnostics)?;
            out.meta = root.get("meta").map(|m| humanoid::meta_v1(&m));
            if let Some(meta) = &out.meta {
                check_license_url(meta, name, diagnostics);
            }
            if let Some(look_at) = root.get("lookAt") {
                out.look_at = Some(humanoid::look_at_v1(&look_at, diagnostics)?);
            }
            if let Some(expressions) = root.get("expressions") {
                out.expressions = humanoid::expressions_v1(&expressions)?;
            }
        }
    }
    Ok(out)
}

/// VRM 1.0's `meta.licenseUrl` must be the VRM Public License ("It must be a unique URL to
/// VRM Public License"); three-vrm refuses to load a model with any other, or none.
fn check_license_url(
    meta: &crate::model::humanoid::Meta,
    name: &str,
    diagnostics: &mut Diagnostics,
) {
    let wanted = convert::VRM_PUBLIC_LICENSE_URL;
    if meta.license.as_deref() == Some(wanted) {
        return;
    }
    let found = meta
        .license
        .as_deref()
        .map_or_else(|| "missing".to_owned(), |u| format!("{u:?}"));
    diagnostics.error(
        "VRM_META_LICENSE_URL",
        format!("/extensions/{name}/meta/licenseUrl"),
        format!(
            "meta.licenseUrl is {found}: VRM 1.0 requires the VRM Public License, {wanted} (three-vrm refuses to load the model otherwise); a model's own licence belongs in meta.otherLicenseUrl"
        ),
    );
}

/// A file with both `VRMC_vrm` and `VRM`: the two bone maps must agree (VRM 1.0 is read).
fn compare_with_vrm0(
    document: &Document,
    v1: &Declared,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let has_v0 = document
        .root
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(VRM0));
    if !has_v0 {
        return Ok(());
    }
    let mut scratch = Diagnostics::new();
    let v0 = declared(document, Format::Vrm0, &mut scratch)?;
    let node =
        |list: &[(HumanBone, usize)], bone| list.iter().find(|(b, _)| *b == bone).map(|(_, n)| *n);
    let differing: Vec<String> = HumanBone::ALL
        .iter()
        .filter_map(|&bone| {
            let (a, b) = (node(&v1.bones, bone), node(&v0.bones, bone));
            (a != b).then(|| format!("{bone} (VRMC_vrm: {}, VRM: {})", show(a), show(b)))
        })
        .collect();
    if differing.is_empty() {
        diagnostics.warn(
            "VRM_BOTH_VERSIONS",
            "/extensions",
            "the file has both VRMC_vrm (1.0) and VRM (0.x); their bone maps agree and VRM 1.0 is read",
        );
    } else {
        diagnostics.error(
            "VRM_VERSIONS_DISAGREE",
            "/extensions",
            format!(
                "the file has both VRMC_vrm (1.0) and VRM (0.x) and their bone maps disagree on {} bone(s): {}; VRM 1.0 is read (as three-vrm does)",
                differing.len(),
                differing.join(", ")
            ),
        );
    }
    Ok(())
}

fn show(node: Option<usize>) -> String {
    node.map_or_else(|| "unmapped".to_owned(), |n| format!("node {n}"))
}
