//! Turning a glTF-family document into another glTF-family target: VRM ↔ glTF with
//! `EXT_skeleton_humanoid`, and the identity writes. Everything not named here passes through
//! untouched (the document layer keeps every property).
//!
//! | input | output | what changes |
//! |---|---|---|
//! | VRM 1.0 / VRMA | `.glb` / `.gltf` | `EXT_skeleton_humanoid` added from the VRM bone map (unless the file has one); the gaze origin added as a virtual transform; VRM extensions kept, or removed with `strip_vrm` |
//! | glTF + EXT | VRM 1.0 | `VRMC_vrm` added (bone map from EXT skeleton 0, meta from the options or defaults, reported); an EXT skeleton that only repeats it is dropped |
//! | glTF with `VRMC_vrm` | VRM 1.0 | an EXT skeleton that only repeats `VRMC_vrm` is dropped (so VRM → glTF → VRM gives the input back) |
//! | VRM x | VRM x (same flavour) | nothing: the identity |
//! | VRM 0.x | VRM 1.0 (`--to vrm1`) | the migration ([`super::migrate`]): turned to face +Z, extension migrated (the licence kept); the meta options (`--vrm-name`, `--vrm-author`, `--vrm-license-url`) set over the migrated meta, each reported (`MIGRATE_META_OVERRIDDEN`) |
//! | VRM 1.0 | VRM 0.x (`--to vrm0`) | the way back ([`super::downgrade`]), refused when bones have rest rotations |
//! | VRM 0.x | `.glb` / `.gltf` | the gaze origin added as a virtual transform (a 0.x model faces −Z, which EXT forbids: migrate with `--to vrm1` first) |
//!
//! The gaze origin travels as a `gaze_origin` socket ([`super::gaze`]): VRM → glTF adds it to
//! `KHR_virtual_transform`; glTF → VRM (1.0, or 0.x from a `.glb`) writes it back as
//! `lookAt.offsetFromHeadBone` / `firstPersonBoneOffset` and removes it from the virtual
//! transforms. The migration and the way back do not turn virtual transforms.

use serde_json::{json, Map, Value};

use super::{extension_name, flavour, VRM0, VRMC_VRM, VRMC_VRM_ANIMATION};
use crate::error::{Diagnostics, Error};
use crate::formats::gltf::ext_skeleton_humanoid::{self as ext, SkeletonDef};
use crate::formats::gltf::Document;
use crate::model::Format;
use crate::model::{HumanBone, Profile};

/// The VRM meta written when a VRM 1.0 is made from a file that has none, or set over the
/// migrated meta of a VRM 0.x model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetaOptions {
    /// `meta.name` (default: the input's file stem, or the 0.x `title`).
    pub name: Option<String>,
    /// `meta.authors` (default: `["unknown"]`, or the 0.x `author`).
    pub authors: Vec<String>,
    /// `meta.licenseUrl` (default: the VRM Public License 1.0, `https://vrm.dev/licenses/1.0/`,
    /// the one URL VRM 1.0 accepts).
    pub license_url: Option<String>,
}

/// The VRM Public License 1.0: the `licenseUrl` VRM 1.0 requires ("It must be a unique URL to
/// VRM Public License"), and the only one three-vrm accepts unless told otherwise.
pub const VRM_PUBLIC_LICENSE_URL: &str = "https://vrm.dev/licenses/1.0/";

impl MetaOptions {
    /// Refuses a `licenseUrl` that is not the VRM Public License 1.0: VRM 1.0 requires it and
    /// three-vrm refuses to load a model with any other.
    ///
    /// # Errors
    /// [`Error::Unsupported`] naming the URL and where a model's own licence goes.
    pub fn check(&self) -> Result<(), Error> {
        match self.license_url.as_deref() {
            Some(url) if url != VRM_PUBLIC_LICENSE_URL => Err(Error::unsupported(format!(
                "--vrm-license-url {url}: VRM 1.0's licenseUrl must be the VRM Public License, {VRM_PUBLIC_LICENSE_URL} (three-vrm refuses to load a model with any other); a model's own licence belongs in meta.otherLicenseUrl, which the migration fills from a VRM 0.x licenseName"
            ))),
            _ => Ok(()),
        }
    }
}

/// Sets the meta fields the options give over a migrated `VRMC_vrm.meta`, reporting each one
/// replaced (`MIGRATE_META_OVERRIDDEN`).
fn set_meta(document: &mut Document, meta: &MetaOptions, diagnostics: &mut Diagnostics) {
    let Some(Value::Object(target)) = document
        .root
        .extensions
        .as_mut()
        .and_then(|e| e.get_mut(VRMC_VRM))
        .and_then(|v| v.get_mut("meta"))
    else {
        return;
    };
    let mut set = |key: &str, value: Value, flag: &str| {
        let old = target.insert(key.to_owned(), value.clone());
        diagnostics.info(
            "MIGRATE_META_OVERRIDDEN",
            format!("/extensions/{VRMC_VRM}/meta/{key}"),
            format!(
                "meta.{key} set by {flag}: {value} (migrated: {})",
                old.map_or_else(|| "none".to_owned(), |v| v.to_string())
            ),
        );
    };
    if let Some(name) = &meta.name {
        set("name", Value::from(name.as_str()), "--vrm-name");
    }
    if !meta.authors.is_empty() {
        set("authors", Value::from(meta.authors.clone()), "--vrm-author");
    }
    if let Some(url) = &meta.license_url {
        set("licenseUrl", Value::from(url.as_str()), "--vrm-license-url");
    }
}

/// Options of VRM-related conversions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VrmOptions {
    /// Remove the VRM extensions from a glTF output.
    pub strip_vrm: bool,
    /// Meta for a VRM made from a plain glTF.
    pub meta: MetaOptions,
}

/// Every extension that belongs to VRM (removed by `strip_vrm`).
pub const VRM_EXTENSIONS: [&str; 7] = [
    VRMC_VRM,
    VRM0,
    VRMC_VRM_ANIMATION,
    "VRMC_springBone",
    "VRMC_springBone_extended_collider",
    "VRMC_node_constraint",
    "VRMC_materials_mtoon",
];

/// Prepares `document` for writing as `target`; `from_vrm_file` says whether it was read from a
/// `.vrm`/`.vrma` file (a VRM written back as VRM is the identity).
///
/// # Errors
/// [`Error::Unsupported`] for a conversion this module cannot make (the message says what
/// would be needed); [`Error::Invalid`] when the humanoid needed for the target is missing or
/// does not meet the target's rules.
pub fn prepare(
    mut document: Document,
    from_vrm_file: bool,
    target: Format,
    options: &VrmOptions,
) -> Result<(Document, Diagnostics), Error> {
    let mut diagnostics = Diagnostics::new();
    let found = flavour(&document);
    let path = document.path().display().to_string();
    match (found, target) {
        (Some(Format::Vrm1 | Format::Vrma), Format::Glb | Format::Gltf) => {
            add_ext_from_vrm(&mut document, &mut diagnostics)?;
            super::gaze::add_to_document(&mut document, &mut diagnostics)?;
            if options.strip_vrm {
                strip_vrm(&mut document, &mut diagnostics);
            }
        }
        (Some(Format::Vrm0), Format::Glb | Format::Gltf) => {
            diagnostics.info(
                "VRM0_NO_EXT",
                "/extensions/VRM",
                "EXT_skeleton_humanoid not added: a VRM 0.x model faces -Z and EXT requires +Z; convert with --to vrm1 (migration) first",
            );
            super::gaze::add_to_document(&mut document, &mut diagnostics)?;
            if options.strip_vrm {
                strip_vrm(&mut document, &mut diagnostics);
            }
        }
        (None, Format::Glb | Format::Gltf) => {
            if options.strip_vrm {
                strip_vrm(&mut document, &mut diagnostics);
            }
        }
        (Some(Format::Vrm1), Format::Vrm1) if !from_vrm_file => {
            drop_redundant_ext(&mut document, &mut diagnostics)?;
            super::gaze::take_from_document(&mut document, &mut diagnostics)?;
        }
        (Some(found), target) if found == target => {
            if !from_vrm_file {
                super::gaze::take_from_document(&mut document, &mut diagnostics)?;
            }
        }
        (Some(Format::Vrm1), Format::Vrm0) => {
            let (downgraded, found) = super::downgrade::downgrade_vrm1_to_vrm0(&document)?;
            document = downgraded;
            diagnostics.extend(found);
        }
        (Some(Format::Vrm0), Format::Vrm1) => {
            options.meta.check()?;
            let (migrated, found) = super::migrate::migrate_vrm0_to_vrm1(&document)?;
            document = migrated;
            diagnostics.extend(found);
            set_meta(&mut document, &options.meta, &mut diagnostics);
        }
        (_, Format::Vrma) => {
            return Err(Error::unsupported(format!(
                "{path}: a VRMA is written from the canonical clips (crate::formats::vrm::vrma::build), not by editing the document"
            )))
        }
        (None, Format::Vrm1) => {
            options.meta.check()?;
            turn_to_face_plus_z(&mut document, &mut diagnostics)?;
            add_vrmc_vrm(&mut document, &options.meta, &mut diagnostics)?;
            drop_redundant_ext(&mut document, &mut diagnostics)?;
            super::gaze::take_from_document(&mut document, &mut diagnostics)?;
        }
        (None, Format::Vrm0) => {
            // A plain glTF humanoid becomes VRM 1.0 first (bone map, meta, facing), then takes
            // the downgrade as any VRM 1.0 does.
            let (vrm1, found) = prepare(document, from_vrm_file, Format::Vrm1, options)?;
            diagnostics.extend(found);
            let (downgraded, found) = super::downgrade::downgrade_vrm1_to_vrm0(&vrm1)?;
            document = downgraded;
            diagnostics.extend(found);
        }
        (Some(Format::Vrma), target) => {
            return Err(Error::unsupported(format!(
                "{path}: a .vrma holds a motion and no character (no meshes, no meta), and a {target} file is a character: put the motion on one with `humanoid retarget {path} --onto MODEL.vrm -o OUT.vrm`, or write the skeleton and its clip as glTF (--to glb)"
            )))
        }
        (Some(found), target) => {
            return Err(Error::unsupported(format!(
                "{path}: writing {target} from a {found} file is not built yet"
            )))
        }
        (None, target) => {
            return Err(Error::unsupported(format!(
                "{path}: writing {target} from a plain glTF file is not built yet"
            )))
        }
    }
    Ok((document, diagnostics))
}

/// A glTF humanoid that faces −Z (its left limbs on −X) turned 180° about +Y, as the 0.x
/// migration turns a model (every node, vertex, normal, inverse bind matrix and animation key):
/// VRM 1.0 requires +Z, and three-vrm plays VRMA on a model as if it faced +Z.
fn turn_to_face_plus_z(
    document: &mut Document,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let asset = crate::formats::gltf::humanoid::asset_from_document(document)?.asset;
    let Some(humanoid) = asset.humanoids.first() else {
        return Ok(());
    };
    if super::validate::facing_of(&asset.skeleton, &humanoid.bones) != Some(super::Facing::MinusZ) {
        return Ok(());
    }
    super::migrate::refuse_compressed(document)?;
    let source = document.clone();
    super::migrate::turn_scene(&source, document, diagnostics)?;
    diagnostics.info(
        "VRM_TURNED",
        "/nodes",
        "the model faced −Z (its left limbs on −X); turned 180° about +Y to face +Z as VRM 1.0 requires (every node, vertex and animation key)",
    );
    Ok(())
}

/// The bone map a VRM 1.0 or VRMA document declares, as (bone, node) in bone order.
fn vrm_bones(document: &Document, name: &str) -> Result<Vec<(HumanBone, usize)>, Error> {
    let value = document
        .root
        .extensions
        .as_ref()
        .and_then(|e| e.get(name))
        .and_then(|v| v.get("humanoid"))
        .and_then(|h| h.get("humanBones"));
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let view = super::view::View::new(
        value,
        format!("/extensions/{name}/humanoid/humanBones"),
        document.path(),
    );
    let mut scratch = Diagnostics::new();
    let mut bones = super::humanoid::bones_v1(&view, document.root.nodes.len(), &mut scratch)?;
    bones.sort_by_key(|(bone, _)| bone.index());
    Ok(bones)
}

/// The node's topmost ancestor (the node itself for a root).
fn top_node(document: &Document, node: usize) -> usize {
    let nodes = &document.root.nodes;
    let mut parent = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for child in &n.children {
            if let Some(slot) = parent.get_mut(child.as_usize()) {
                *slot = Some(i);
            }
        }
    }
    let mut current = node;
    // The validation pass guarantees a forest; the bound only guards against a bug.
    for _ in 0..nodes.len() {
        match parent.get(current).copied().flatten() {
            Some(p) => current = p,
            None => break,
        }
    }
    current
}

/// The EXT skeleton a bone map implies: root = the hips' topmost ancestor.
fn skeleton_def(document: &Document, bones: Vec<(HumanBone, usize)>) -> Option<SkeletonDef> {
    let hips = bones.iter().find(|(b, _)| *b == HumanBone::Hips)?.1;
    Some(SkeletonDef {
        root_node: top_node(document, hips),
        bones,
    })
}

fn root_extensions(document: &mut Document) -> &mut Map<String, Value> {
    document.root.extensions.get_or_insert_with(Map::new)
}

fn unuse_extension(document: &mut Document, name: &str) {
    document.root.extensions_used.retain(|e| e != name);
    document.root.extensions_required.retain(|e| e != name);
}

/// Adds `EXT_skeleton_humanoid` from the VRM 1.0 / VRMA bone map, unless there is one.
fn add_ext_from_vrm(document: &mut Document, diagnostics: &mut Diagnostics) -> Result<(), Error> {
    if document
        .root
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(ext::NAME))
    {
        diagnostics.info(
            "EXT_KEPT",
            format!("/extensions/{}", ext::NAME),
            "the file already has EXT_skeleton_humanoid; kept as it is",
        );
        return Ok(());
    }
    let name = flavour(document).map_or(VRMC_VRM, extension_name);
    let bones = vrm_bones(document, name)?;
    let Some(def) = skeleton_def(document, bones) else {
        diagnostics.warn(
            "EXT_NOT_ADDED",
            format!("/extensions/{name}/humanoid"),
            "EXT_skeleton_humanoid not added: the VRM humanoid has no hips",
        );
        return Ok(());
    };
    let count = def.bones.len();
    ext::declare(document, def);
    diagnostics.info(
        "EXT_ADDED",
        format!("/extensions/{}", ext::NAME),
        format!("EXT_skeleton_humanoid added from the {name} bone map ({count} bones)"),
    );
    Ok(())
}

/// Removes the VRM extensions from the root, the materials and the nodes.
fn strip_vrm(document: &mut Document, diagnostics: &mut Diagnostics) {
    let mut removed: Vec<&str> = Vec::new();
    for name in VRM_EXTENSIONS {
        let mut found = false;
        if let Some(extensions) = document.root.extensions.as_mut() {
            found |= extensions.shift_remove(name).is_some();
        }
        for node in document.root.nodes.iter_mut() {
            if let Some(extensions) = node.extensions.as_mut() {
                found |= extensions.shift_remove(name).is_some();
            }
        }
        if let Some(Value::Array(materials)) = document.root.other.get_mut("materials") {
            for material in materials {
                if let Some(Value::Object(extensions)) = material.get_mut("extensions") {
                    found |= extensions.shift_remove(name).is_some();
                }
            }
        }
        found |= document.root.extensions_used.iter().any(|e| e == name);
        unuse_extension(document, name);
        if found {
            removed.push(name);
        }
    }
    if document.root.extensions.as_ref().is_some_and(Map::is_empty) {
        document.root.extensions = None;
    }
    if !removed.is_empty() {
        diagnostics.info(
            "VRM_STRIPPED",
            "/extensions",
            format!("removed as asked (--strip-vrm): {}", removed.join(", ")),
        );
    }
}

/// Adds `VRMC_vrm` from EXT skeleton 0, after checking what VRM 1.0 requires.
fn add_vrmc_vrm(
    document: &mut Document,
    meta: &MetaOptions,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let path = document.path().to_path_buf();
    let Some(value) = document
        .root
        .extensions
        .as_ref()
        .and_then(|e| e.get(ext::NAME))
        .cloned()
    else {
        return Err(Error::unsupported(format!(
            "{}: cannot write VRM 1.0: the file has no humanoid bone map (EXT_skeleton_humanoid); \
             map its bones first with --map auto or --map TABLE (`humanoid map` shows the mapping)",
            path.display()
        )));
    };
    let defs = ext::read_root(&value, document.root.nodes.len(), &path, diagnostics)?;
    if defs.len() > 1 {
        diagnostics.warn(
            "VRM_FIRST_SKELETON",
            format!("/extensions/{}/humanoidSkeletons", ext::NAME),
            format!(
                "the file declares {} humanoid skeletons; VRM holds one: skeleton 0 is used",
                defs.len()
            ),
        );
    }
    let Some(def) = defs.into_iter().next() else {
        return Err(Error::unsupported(format!(
            "{}: cannot write VRM 1.0: EXT_skeleton_humanoid declares no skeleton",
            path.display()
        )));
    };
    let missing: Vec<&str> = HumanBone::ALL
        .iter()
        .filter(|b| b.is_required(Profile::Vrm1) && def.node(**b).is_none())
        .map(|b| b.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(Error::unsupported(format!(
            "{}: cannot write VRM 1.0: {} required bone(s) are not mapped: {} (VRM needs them; map them with --map TABLE, see `humanoid map FILE`, or write glTF with --to glb)",
            path.display(),
            missing.len(),
            missing.join(", ")
        )));
    }
    let mut human_bones = Map::new();
    let mut bones = def.bones.clone();
    bones.sort_by_key(|(bone, _)| bone.index());
    // Canonical order puts each parent before its child, so one pass drops the whole chain
    // below a missing bone that VRM requires ("Needs Parent Bone").
    let mut kept: Vec<HumanBone> = Vec::new();
    let mut dropped: Vec<&str> = Vec::new();
    bones.retain(|(bone, _)| {
        let orphan = super::validate::needs_parent(*bone)
            && bone.parent().is_some_and(|p| !kept.contains(&p));
        if orphan {
            dropped.push(bone.as_str());
        } else {
            kept.push(*bone);
        }
        !orphan
    });
    if !dropped.is_empty() {
        diagnostics.warn(
            "VRM_BONE_DROPPED",
            format!("/extensions/{VRMC_VRM}/humanoid/humanBones"),
            format!(
                "{} mapped bone(s) left out of the VRM humanoid: VRM allows them only where the bone before them is mapped too: {}",
                dropped.len(),
                dropped.join(", ")
            ),
        );
    }
    for (bone, node) in &bones {
        human_bones.insert(bone.as_str().to_owned(), json!({ "node": node }));
    }
    let defaulted = meta.name.is_none() || meta.authors.is_empty() || meta.license_url.is_none();
    let name = meta.name.clone().unwrap_or_else(|| {
        path.file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("humanoid")
            .to_owned()
    });
    let authors = if meta.authors.is_empty() {
        vec!["unknown".to_owned()]
    } else {
        meta.authors.clone()
    };
    let license = meta
        .license_url
        .clone()
        .unwrap_or_else(|| VRM_PUBLIC_LICENSE_URL.to_owned());
    let mut vrm = json!({
        "specVersion": "1.0",
        "meta": {"name": name, "authors": authors, "licenseUrl": license},
        "humanoid": {"humanBones": Value::Object(human_bones)}
    });
    // Expressions and first-person annotations the file declares with the Khronos avatar
    // drafts (KHR_character_expression, visibility hints).
    if let Some((expressions, annotations)) =
        super::khr_expression::khr_to_vrm1(document, diagnostics)?
    {
        vrm["expressions"] = expressions;
        if let Some(annotations) = annotations {
            vrm["firstPerson"] = json!({ "meshAnnotations": annotations });
        }
    }
    root_extensions(document).insert(VRMC_VRM.to_owned(), vrm);
    document.root.use_extension(VRMC_VRM);
    diagnostics.info(
        "VRM_ADDED",
        format!("/extensions/{VRMC_VRM}"),
        format!(
            "VRMC_vrm added from EXT_skeleton_humanoid skeleton 0 ({} bones)",
            bones.len()
        ),
    );
    if defaulted {
        diagnostics.warn(
            "VRM_META_DEFAULTED",
            format!("/extensions/{VRMC_VRM}/meta"),
            "meta filled with defaults where not given (name: the file name, authors: unknown, licence: VRM Public License 1.0); set them with --vrm-name, --vrm-author and --vrm-license-url",
        );
    }
    Ok(())
}

/// Drops an EXT skeleton that says nothing `VRMC_vrm` does not: one skeleton, the same bones,
/// the hips' topmost ancestor as root, and no EXT animation channel.
fn drop_redundant_ext(document: &mut Document, diagnostics: &mut Diagnostics) -> Result<(), Error> {
    let Some(value) = document
        .root
        .extensions
        .as_ref()
        .and_then(|e| e.get(ext::NAME))
        .cloned()
    else {
        return Ok(());
    };
    let path = document.path().to_path_buf();
    let mut scratch = Diagnostics::new();
    let defs = ext::read_root(&value, document.root.nodes.len(), &path, &mut scratch)?;
    let bones = vrm_bones(document, VRMC_VRM)?;
    let Some(expected) = skeleton_def(document, bones) else {
        return Ok(());
    };
    let channels_use_ext = document.root.animations.iter().any(|a| {
        a.channels.iter().any(|c| {
            c.target
                .extensions
                .as_ref()
                .is_some_and(|e| e.contains_key(ext::NAME))
        })
    });
    let same = match defs.as_slice() {
        [only] => {
            let mut found = only.bones.clone();
            found.sort_by_key(|(bone, _)| bone.index());
            only.root_node == expected.root_node && found == expected.bones
        }
        _ => false,
    };
    if !same || channels_use_ext || !scratch.is_empty() {
        return Ok(());
    }
    if let Some(extensions) = document.root.extensions.as_mut() {
        extensions.shift_remove(ext::NAME);
    }
    unuse_extension(document, ext::NAME);
    diagnostics.info(
        "EXT_DROPPED",
        format!("/extensions/{}", ext::NAME),
        "EXT_skeleton_humanoid dropped: it repeats the VRMC_vrm bone map (converting back to glTF adds it again)",
    );
    Ok(())
}
