//! VRM 0.x → VRM 1.0 migration of a glTF document: what UniVRM's `MigrationVrm` does, done on
//! the lossless document layer.
//!
//! # Overview
//!
//! [`migrate_vrm0_to_vrm1`] takes a document with the root extension `VRM` (which faces −Z)
//! and returns a new one with `VRMC_vrm` (spec version 1.0, facing +Z), `VRMC_springBone` when
//! the input has spring bones or colliders, and a list of everything that could not be carried.
//! The input is never changed.
//!
//! 1. **The scene turns 180° about +Y by rotating the data, not by a wrapper node**
//!    (`turn.rs`): every node's local transform is conjugated by `R = R_y(180°)`, so world
//!    transforms become `R·W·R⁻¹`, identity rest rotations stay identity, and mesh positions,
//!    normals, tangents, morph deltas, inverse bind matrices and animation keys are turned to
//!    match (`uses.rs` finds where each accessor is used, `accessors.rs` turns each one once).
//! 2. **The extension JSON** is rebuilt for 1.0: `humanoid.rs`, `meta.rs`, `look_at.rs`
//!    (0.x `firstPerson` → `lookAt` and `firstPerson`), `expressions.rs` (0.x
//!    `blendShapeMaster`), `spring.rs` (0.x `secondaryAnimation` → `VRMC_springBone`), and
//!    `materials.rs` (0.x `materialProperties`: MToon and the legacy unlit shaders migrated). Every other
//!    extension, extra and unknown property passes through untouched; `extensionsUsed` swaps
//!    `VRM` for `VRMC_vrm` (and `VRMC_springBone`) in place.
//!
//! # Design decisions
//!
//! - The turn conjugates instead of adding a parent node: a VRM 1.0 reader must see the model
//!   facing +Z in the scene's own space, and three-vrm and UniVRM both treat the humanoid's
//!   rest rotations as data, so identity rests must stay identity.
//! - 0.x vectors UniVRM wrote in Unity space (`firstPersonBoneOffset`, collider offsets,
//!   `gravityDir`) become `(−x, y, z)` (`vrm0::from_unity_vector`), which is both
//!   UniVRM's `MigrateVector3` and three-vrm's 0.x reading (z negated) followed by the turn.
//! - Where UniVRM drops data (a mesh held by several nodes: it keeps the first node), the
//!   migration keeps all of it; where it throws (an unknown enum value, a dangling index), the
//!   migration drops that one piece and reports it. Structural problems that leave no valid
//!   VRM 1.0 (no humanoid, a bone naming no node, a required bone missing) are errors.
//!
//! # Diagnostics
//!
//! Codes start with `MIGRATE_`; locations are JSON pointers into the *input* (`/extensions/VRM/…`)
//! or, for data, into the output (`/accessors/N`, `/nodes/N`).
//!
//! | code | severity | what |
//! |---|---|---|
//! | `MIGRATE_ACCESSOR_REWRITTEN` | info | accessor turned into new dense float data (sparse, integer, normalized or sharing bytes) |
//! | `MIGRATE_ACCESSOR_DUPLICATED` | info | accessor used where it turns and where it must not: the turned data is a new accessor |
//! | `MIGRATE_SAMPLER_SPLIT` | info | animation sampler shared by turning and non-turning channels: copied |
//! | `MIGRATE_CHANNEL_NOT_TURNED` | warning | `KHR_animation_pointer` or node-less channel left as it was |
//! | `MIGRATE_CAMERA_OR_LIGHT` | warning | a camera or light now looks the other way in the turned scene |
//! | `MIGRATE_UNKNOWN_BONE`, `MIGRATE_DUPLICATE_BONE`, `MIGRATE_BONE_NODE_SHARED` | warning | humanoid entries dropped or doubtful |
//! | `MIGRATE_HUMANOID_SETTINGS_DROPPED` (info), `MIGRATE_BONE_LIMITS_DROPPED` (warning) | | Unity avatar settings and muscle limits |
//! | `MIGRATE_META_LICENSE` | info | `licenseName` kept: the terms its licence grants, its deed in `otherLicenseUrl` |
//! | `MIGRATE_META_LICENSE_UNKNOWN` | warning | `licenseName` absent, `Other` or unknown: the most restrictive terms written |
//! | `MIGRATE_META_CONFLICT` | warning | the licence and `commercialUssageName` disagree: the stricter written |
//! | `MIGRATE_META_OVERRIDDEN` | info | a `--vrm-*` option replaced a migrated meta field |
//! | `MIGRATE_META_MISSING`, `MIGRATE_META_VALUE`, `MIGRATE_META_THUMBNAIL` | warning | meta fields missing or unreadable |
//! | `MIGRATE_META_UNKNOWN_KEY`, `MIGRATE_VRM0_PROPERTY_DROPPED` | info | properties 0.x does not define |
//! | `MIGRATE_LOOKAT_CURVE_DROPPED` | warning | a non-linear look-at curve |
//! | `MIGRATE_LOOKAT_RANGE_DEFAULT`, `MIGRATE_LOOKAT_OFFSET` | info/warning | defaults written |
//! | `MIGRATE_FIRST_PERSON_BONE`, `MIGRATE_FIRST_PERSON_MESH`, `MIGRATE_FIRST_PERSON_FLAG` | warning | first-person data that does not map |
//! | `MIGRATE_MESH_SHARED` | info | a mesh held by several nodes: each node got the annotation or bind |
//! | `MIGRATE_EXPRESSION_DUPLICATE`, `MIGRATE_EXPRESSION_BIND`, `MIGRATE_EXPRESSION_MATERIAL`, `MIGRATE_EXPRESSION_DROPPED` | warning | expression parts dropped |
//! | `MIGRATE_SPRING_BRANCH` | warning | spring nodes UniVRM's chain rule leaves out |
//! | `MIGRATE_SPRING_TAIL` | info | 7 cm tail nodes added (or a degenerate one) |
//! | `MIGRATE_SPRING_GRAVITY`, `MIGRATE_SPRING_DEFAULT` | info | gravity read in Unity space; defaults used |
//! | `MIGRATE_SPRING_INVALID` | warning | dangling spring, collider or group references |
//! | `MIGRATE_MATERIALS_DROPPED` | warning | MToon and other Unity shader parameters not migrated |

mod accessors;
pub(crate) mod expressions;
mod humanoid;
mod look_at;
mod materials;
mod meta;
mod spring;
mod turn;
mod uses;
pub(crate) mod vrm0;

#[cfg(test)]
mod licence_tests;
#[cfg(test)]
mod tests;

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Diagnostics, Error, Location};
use crate::formats::gltf::{compression, validate, Document};
use crate::model::HumanBone;
use vrm0::{at, BASE};

/// The toon parameters a VRM 0.x document's MToon materials have once migrated (by material
/// name; what a 1.0 reader draws of them), for a reader of the 0.x file that draws MToon (the
/// preview). Empty for a document without 0.x MToon materials.
pub fn vrm0_toon(document: &Document) -> Vec<(String, crate::model::mesh::Toon)> {
    let Some(Value::Object(vrm)) = document
        .root
        .extensions
        .as_ref()
        .and_then(|e| e.get(VRM0_EXTENSION))
    else {
        return Vec::new();
    };
    let mut root = (*document.root).clone();
    materials::migrate(vrm, &mut root, &mut Diagnostics::new());
    root.other
        .get("materials")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|material| {
            let name = material.get("name").and_then(Value::as_str)?.to_owned();
            let toon = crate::formats::gltf::toon::toon_of(material, |_| None)?;
            Some((name, toon))
        })
        .collect()
}

/// The VRM 0.x root extension.
const VRM0_EXTENSION: &str = "VRM";
/// The VRM 1.0 root extension.
const VRM1_EXTENSION: &str = "VRMC_vrm";
/// The VRM 1.0 spring bone root extension.
const SPRING_BONE_EXTENSION: &str = "VRMC_springBone";

/// The keys of the 0.x extension this migration reads (or knowingly drops).
const VRM0_KEYS: [&str; 8] = [
    "exporterVersion",
    "specVersion",
    "meta",
    "humanoid",
    "firstPerson",
    "blendShapeMaster",
    "secondaryAnimation",
    "materialProperties",
];

/// Migrates a VRM 0.x document to VRM 1.0 (see the module docs): the model turned to face +Z,
/// the `VRM` extension rebuilt as `VRMC_vrm` (and `VRMC_springBone`), everything else as it
/// was. The diagnostics list what could not be carried or had to be guessed.
///
/// ```no_run
/// use humanoid::formats::gltf::Document;
/// use humanoid::formats::vrm::migrate::migrate_vrm0_to_vrm1;
/// # fn main() -> Result<(), humanoid::Error> {
/// let vrm0 = Document::open("avatar.vrm")?;
/// let (vrm1, diagnostics) = migrate_vrm0_to_vrm1(&vrm0)?;
/// for d in &diagnostics {
///     eprintln!("{d}");
/// }
/// vrm1.write_glb("avatar.vrm1.vrm".as_ref(), &[])?;
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`Error::Invalid`] when the document has no `VRM` extension (or already has `VRMC_vrm`), its
/// humanoid is missing, names a node that does not exist or lacks a bone VRM 1.0 requires, or
/// an accessor's type does not fit its use (a `VEC4` `POSITION`); [`Error::Unsupported`] for
/// compressed geometry (Draco, meshopt), which cannot be turned without decoding it.
pub fn migrate_vrm0_to_vrm1(document: &Document) -> Result<(Document, Diagnostics), Error> {
    let file = document.path();
    let vrm = vrm0_extension(document)?;
    refuse_compressed(document)?;
    let mut diagnostics = Diagnostics::new();
    let mut out = document.clone();
    turn_scene(document, &mut out, &mut diagnostics)?;
    let (vrm1, spring_bone) = extensions(vrm, &mut out, file, &mut diagnostics)?;
    install(&mut out, vrm1, spring_bone);
    materials::migrate(vrm, &mut out.root, &mut diagnostics);
    report_unknown_keys(vrm, &mut diagnostics);
    if let Some(error) = validate::into_error(&out.validate(), file) {
        return Err(error);
    }
    Ok((out, diagnostics))
}

/// The 0.x extension object.
fn vrm0_extension(document: &Document) -> Result<&Map<String, Value>, Error> {
    let file = document.path();
    let extensions = document.root.extensions.as_ref();
    if extensions.is_some_and(|e| e.contains_key(VRM1_EXTENSION)) {
        return Err(Error::invalid(
            file,
            Location::JsonPointer(format!("/extensions/{VRM1_EXTENSION}")),
            "the document is already VRM 1.0: expected a VRM 0.x document (root extension \"VRM\")",
        ));
    }
    match extensions.and_then(|e| e.get(VRM0_EXTENSION)) {
        Some(Value::Object(vrm)) => Ok(vrm),
        Some(_) => Err(Error::invalid(
            file,
            Location::JsonPointer(BASE.to_owned()),
            "the VRM extension is not an object",
        )),
        None => Err(Error::invalid(
            file,
            Location::JsonPointer("/extensions".to_owned()),
            "no VRM extension: expected a VRM 0.x document (root extension \"VRM\")",
        )),
    }
}

/// Refuses compressed geometry ([`compression::EXTENSIONS`]), which cannot be turned
/// without decoding it.
pub(crate) fn refuse_compressed(document: &Document) -> Result<(), Error> {
    match compression::used_by(document) {
        Some(name) => Err(Error::unsupported(format!(
            "{}: {name} geometry cannot be turned to face +Z without decoding it, so the model cannot be migrated or turned; decompress the file first",
            document.path().display()
        ))),
        None => Ok(()),
    }
}

/// Turns the whole scene to face +Z: nodes, then every accessor that holds directions.
pub(crate) fn turn_scene(
    source: &Document,
    out: &mut Document,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    for node in &mut out.root.nodes {
        turn::turn_node(node);
    }
    report_cameras_and_lights(out, diagnostics);
    uses::split_shared_samplers(&mut out.root, diagnostics);
    let uses = uses::collect(&out.root, source.path(), diagnostics)?;
    accessors::turn_accessors(source, out, &uses, diagnostics)
}

fn report_cameras_and_lights(out: &Document, diagnostics: &mut Diagnostics) {
    for (n, node) in out.root.nodes.iter().enumerate() {
        let light = node
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key("KHR_lights_punctual"));
        if node.camera.is_some() || light {
            diagnostics.warn(
                "MIGRATE_CAMERA_OR_LIGHT",
                format!("/nodes/{n}"),
                format!(
                    "node {n} holds a {}: its position turned with the scene, but conjugating its frame makes it look the opposite way",
                    if light { "light" } else { "camera" }
                ),
            );
        }
    }
}

/// Builds `VRMC_vrm` and `VRMC_springBone` (which adds spring tail nodes to `out`).
fn extensions(
    vrm: &Map<String, Value>,
    out: &mut Document,
    file: &Path,
    diagnostics: &mut Diagnostics,
) -> Result<(Value, Option<Value>), Error> {
    let bones = humanoid::bones(vrm, out.root.nodes.len(), file, diagnostics)?;
    let head = bones
        .iter()
        .find(|(b, _)| *b == HumanBone::Head)
        .map(|(_, n)| *n);
    let nodes_by_mesh = vrm0::nodes_by_mesh(&out.root);
    let mut vrm1 = Map::new();
    vrm1.insert("specVersion".into(), Value::from("1.0"));
    vrm1.insert("meta".into(), meta::meta_json(vrm, &out.root, diagnostics));
    vrm1.insert("humanoid".into(), humanoid::humanoid_json(&bones));
    if let Some(first_person) = vrm0::object(vrm, "firstPerson") {
        let scene = look_at::Scene {
            head,
            nodes_by_mesh: &nodes_by_mesh,
        };
        let (look_at, annotations) =
            look_at::look_at_and_first_person(first_person, &scene, diagnostics);
        if let Some(annotations) = annotations {
            vrm1.insert("firstPerson".into(), annotations);
        }
        vrm1.insert("lookAt".into(), look_at);
    }
    if let Some(master) = vrm0::object(vrm, "blendShapeMaster") {
        let scene = expressions::Scene {
            root: &out.root,
            nodes_by_mesh: &nodes_by_mesh,
        };
        vrm1.insert(
            "expressions".into(),
            expressions::expressions_json(master, &scene, diagnostics),
        );
    }
    let spring_bone = vrm0::object(vrm, "secondaryAnimation")
        .and_then(|s| spring::spring_bone_json(s, &mut out.root, diagnostics));
    Ok((Value::Object(vrm1), spring_bone))
}

/// Puts the new extensions where `VRM` was (in `extensions` and `extensionsUsed`) and takes
/// `VRM` out of `extensionsRequired`.
fn install(out: &mut Document, vrm1: Value, spring_bone: Option<Value>) {
    let mut added = vec![(VRM1_EXTENSION, vrm1)];
    if let Some(spring_bone) = spring_bone {
        added.push((SPRING_BONE_EXTENSION, spring_bone));
    }
    let old = out.root.extensions.take().unwrap_or_default();
    let mut extensions = Map::new();
    for (key, value) in old {
        if key == VRM0_EXTENSION {
            for (name, value) in added.drain(..) {
                extensions.insert(name.to_owned(), value);
            }
        } else {
            extensions.insert(key, value);
        }
    }
    let names: Vec<&str> = std::iter::once(VRM1_EXTENSION)
        .chain(
            extensions
                .contains_key(SPRING_BONE_EXTENSION)
                .then_some(SPRING_BONE_EXTENSION),
        )
        .collect();
    out.root.extensions = Some(extensions);
    let mut used = Vec::new();
    let mut placed = false;
    for name in std::mem::take(&mut out.root.extensions_used) {
        if name == VRM0_EXTENSION {
            used.extend(names.iter().map(|n| (*n).to_owned()));
            placed = true;
        } else if !names.contains(&name.as_str()) {
            used.push(name);
        }
    }
    if !placed {
        used.extend(names.iter().map(|n| (*n).to_owned()));
    }
    out.root.extensions_used = used;
    out.root.extensions_required.retain(|n| n != VRM0_EXTENSION);
}

fn report_unknown_keys(vrm: &Map<String, Value>, diagnostics: &mut Diagnostics) {
    for key in vrm.keys().filter(|k| !VRM0_KEYS.contains(&k.as_str())) {
        diagnostics.info(
            "MIGRATE_VRM0_PROPERTY_DROPPED",
            at(BASE, key),
            format!("the VRM extension's property {key:?} is not VRM 0.x's and was dropped"),
        );
    }
}
