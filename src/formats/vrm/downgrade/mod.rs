//! VRM 1.0 → VRM 0.x of a glTF document (`convert --to vrm0`): the migration of
//! [`super::migrate`] run backwards, on the lossless document layer.
//!
//! # Overview
//!
//! [`downgrade_vrm1_to_vrm0`] takes a document with the root extension `VRMC_vrm` (which faces
//! +Z) and returns a new one with the root extension `VRM` (spec version 0.0, facing −Z), and a
//! list of everything that could not be carried. The input is never changed.
//!
//! 1. **Refusals and the rest bake**: a missing 0.x required bone (chest and neck are required
//!    in 0.x, not in 1.0) is refused. VRM 0.x bones have no rest rotation and no scale ("Model
//!    faces −Z; T-pose; no local rotation, no scale on bones"); where a humanoid bone or an
//!    ancestor of one has either (`rest.rs` finds them), `bake.rs` bakes them away as UniVRM's
//!    1.0 → 0.x export does: every bone and ancestor gets an identity rest rotation and unit
//!    scale, and inverse bind matrices, meshes held by those nodes, animation keys, the
//!    look-at origin and spring colliders move with the frame change, so nothing moves in the
//!    world. What cannot be baked (a mirrored rest, shear) is refused, naming the node.
//! 2. **The scene turns 180° about +Y** (`turn.rs`), with the migration's own code: the half
//!    turn is its own inverse, so every node's local transform is conjugated by `R_y(180°)` and
//!    every position, normal, tangent, morph delta, inverse bind matrix and animation key turns
//!    with it.
//! 3. **The extension JSON** is rebuilt for 0.x: `humanoid.rs` (the bone object becomes the
//!    `humanBones` array, thumbs renamed back), `meta.rs`, `look_at.rs` (`lookAt` and
//!    `firstPerson` become 0.x `firstPerson`), `expressions.rs` (`blendShapeMaster`),
//!    `spring.rs` (`VRMC_springBone` becomes `secondaryAnimation`) and `extensions.rs`
//!    (`VRMC_materials_mtoon`, `VRMC_node_constraint` and every other 1.0-only `VRMC_*`
//!    extension, dropped and reported). Everything else passes through untouched;
//!    `extensionsUsed` swaps `VRMC_vrm` for `VRM` in place.
//!
//! # Design decisions
//!
//! - Bake rather than refuse: UniVRM's export normalizes the bones the same way, and a VRM
//!   1.0 model almost always has rest rotations (every corpus file does). The bake is done on
//!   the 1.0 document before anything else reads it, so the rest of the downgrade sees a
//!   model whose bones already meet 0.x's rule.
//! - Each mapping is the inverse of the migration's, so that a VRM 0.x file migrated to 1.0
//!   and downgraded again has the same bones, rest pose, look-at, expressions and springs.
//!   Where 1.0 says more than 0.x can (licence terms, `surprised`, expression overrides,
//!   capsule colliders, per-joint spring settings), the closest or the most restrictive 0.x
//!   value is written and reported.
//! - MToon is not converted: a faithful 1.0 → 0.x MToon port (colour spaces, render queues,
//!   outline units) is not written yet, so those materials render as their plain glTF material
//!   in 0.x and are named in one diagnostic.
//!
//! # Diagnostics
//!
//! Codes start with `DOWNGRADE_`; locations are JSON pointers into the *input*
//! (`/extensions/VRMC_vrm/…`) or, for data, into the output (`/accessors/N`, `/nodes/N`).
//!
//! | code | severity | what |
//! |---|---|---|
//! | `DOWNGRADE_ACCESSOR_REWRITTEN`, `DOWNGRADE_ACCESSOR_DUPLICATED`, `DOWNGRADE_SAMPLER_SPLIT` | info | how the turn rewrote data (as the migration's `MIGRATE_*` twins) |
//! | `DOWNGRADE_CHANNEL_NOT_TURNED`, `DOWNGRADE_CAMERA_OR_LIGHT` | warning | data the turn cannot carry (`DOWNGRADE_TURN` for any other turn finding) |
//! | `DOWNGRADE_REST_BAKED` | warning | rest rotations and scales of bones and their ancestors baked away (the bones' own axes are lost) |
//! | `DOWNGRADE_REST_SKIN_REBOUND`, `DOWNGRADE_REST_MESH_BAKED`, `DOWNGRADE_REST_ANIMATION_BAKED` | info | inverse bind matrices, meshes on baked nodes and animation keys rewritten for the new frames |
//! | `DOWNGRADE_REST_RADIUS_SCALED`, `DOWNGRADE_REST_CAMERA_OR_LIGHT`, `DOWNGRADE_REST_CHANNEL_NOT_BAKED` | warning | spring radii multiplied by a baked rest scale; a camera or light on a baked node now points along world axes; animation channels without a target node left in the old frames |
//! | `DOWNGRADE_UNKNOWN_BONE` | warning | a `humanBones` key that is no VRM 1.0 bone |
//! | `DOWNGRADE_HUMANOID_SETTINGS` | info | Unity's default avatar settings written |
//! | `DOWNGRADE_META_LICENSE` | warning | 1.0 licence terms 0.x has no field for; what was written instead |
//! | `DOWNGRADE_META_RESTRICTED`, `DOWNGRADE_META_VALUE` | warning | a value 0.x cannot express or that is unreadable: the most restrictive 0.x value |
//! | `DOWNGRADE_META_JOINED`, `DOWNGRADE_META_DROPPED`, `DOWNGRADE_META_THUMBNAIL` | info/warning | several authors or references joined; fields dropped; thumbnail texture |
//! | `DOWNGRADE_LOOKAT_OFFSET`, `DOWNGRADE_LOOKAT_TYPE`, `DOWNGRADE_LOOKAT_RANGE_DEFAULT` | info/warning | look-at defaults written |
//! | `DOWNGRADE_FIRST_PERSON_MESH`, `DOWNGRADE_MESH_SHARED` | warning/info | annotations or binds that 0.x attaches to meshes, not nodes |
//! | `DOWNGRADE_EXPRESSION_SURPRISED`, `DOWNGRADE_EXPRESSION_OVERRIDE`, `DOWNGRADE_EXPRESSION_BIND` | warning | expression parts 0.x has no place for |
//! | `DOWNGRADE_SPRING_SUBTREE`, `DOWNGRADE_SPRING_CHAIN`, `DOWNGRADE_SPRING_OVERLAP`, `DOWNGRADE_SPRING_SETTINGS` | warning | springs that sway differently in 0.x (a bone group sways whole subtrees, toward first children, with one set of settings) |
//! | `DOWNGRADE_SPRING_CAPSULE`, `DOWNGRADE_SPRING_INVALID` | warning | capsules approximated by spheres; dangling spring, collider or group references dropped |
//! | `DOWNGRADE_SPRING_TAIL`, `DOWNGRADE_SPRING_NAME`, `DOWNGRADE_SPRING_GRAVITY` | info | last joints sway too; collider group names dropped; gravity with a z component |
//! | `DOWNGRADE_MATERIALS_MTOON` | warning | MToon materials rendered as plain glTF materials |
//! | `DOWNGRADE_EXTENSION_DROPPED` | warning | one per other 1.0-only extension |
//! | `DOWNGRADE_VRM1_PROPERTY_DROPPED` | info | properties of `VRMC_vrm` this downgrade does not read |

mod bake;
mod bake_data;
mod expressions;
mod extensions;
mod humanoid;
mod look_at;
mod materials;
mod meta;
mod rest;
mod spring;
mod turn;
mod vrm1;

#[cfg(test)]
mod bake_tests;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value};

use crate::error::{Diagnostics, Error, Location};
use crate::formats::gltf::{validate, Document};
use crate::model::HumanBone;
use vrm1::{at, BASE};

/// The VRM 0.x root extension.
const VRM0_EXTENSION: &str = "VRM";
/// The VRM 1.0 root extension.
const VRM1_EXTENSION: &str = "VRMC_vrm";

/// The keys of `VRMC_vrm` this downgrade reads.
const VRM1_KEYS: [&str; 6] = [
    "specVersion",
    "meta",
    "humanoid",
    "firstPerson",
    "lookAt",
    "expressions",
];

/// Downgrades a VRM 1.0 document to VRM 0.x (see the module docs): the model turned to face
/// −Z, `VRMC_vrm` and `VRMC_springBone` rebuilt as the `VRM` extension, 1.0-only extensions
/// dropped, everything else as it was. The diagnostics list what could not be carried or had
/// to be guessed.
///
/// ```no_run
/// use humanoid::formats::gltf::Document;
/// use humanoid::formats::vrm::downgrade::downgrade_vrm1_to_vrm0;
/// # fn main() -> Result<(), humanoid::Error> {
/// let vrm1 = Document::open("avatar.vrm")?;
/// let (vrm0, diagnostics) = downgrade_vrm1_to_vrm0(&vrm1)?;
/// for d in &diagnostics {
///     eprintln!("{d}");
/// }
/// vrm0.write_glb("avatar.vrm0.vrm".as_ref(), &[])?;
/// # Ok(()) }
/// ```
///
/// # Errors
/// - [`Error::Unsupported`] when a humanoid bone's or an ancestor's rest cannot be baked away
///   (mirrored or degenerate, or a child or animation would need shear; the message names the
///   node), or the geometry is compressed (Draco, meshopt) and cannot be turned without
///   decoding it;
/// - [`Error::Invalid`] when the document has no `VRMC_vrm` extension or already has `VRM`, its
///   humanoid is missing or names a node that does not exist, it lacks a bone VRM 0.x requires
///   (all 17 are named), or an accessor's type does not fit its use.
pub fn downgrade_vrm1_to_vrm0(document: &Document) -> Result<(Document, Diagnostics), Error> {
    let file = document.path();
    let mut diagnostics = Diagnostics::new();
    let bones = humanoid::bones(
        vrm1_extension(document)?,
        document.root.nodes.len(),
        file,
        &mut diagnostics,
    )?;
    humanoid::require_vrm0_bones(&bones, file)?;
    turn::refuse_compressed(document)?;
    let baked = bake::bake_rest(document, &bones, &mut diagnostics)?;
    let document: &Document = &baked;
    let vrm = vrm1_extension(document)?;
    let mut out = document.clone();
    turn::turn_scene(document, &mut out, &mut diagnostics)?;
    let vrm0 = vrm0_json(vrm, &bones, document, &mut out, &mut diagnostics);
    extensions::drop_vrm1_extensions(&mut out, &mut diagnostics);
    install(&mut out, vrm0);
    report_unknown_keys(vrm, &mut diagnostics);
    if let Some(error) = validate::into_error(&out.validate(), file) {
        return Err(error);
    }
    Ok((out, diagnostics))
}

/// The 1.0 extension object.
fn vrm1_extension(document: &Document) -> Result<&Map<String, Value>, Error> {
    let file = document.path();
    let extensions = document.root.extensions.as_ref();
    if extensions.is_some_and(|e| e.contains_key(VRM0_EXTENSION)) {
        return Err(Error::invalid(
            file,
            Location::JsonPointer(format!("/extensions/{VRM0_EXTENSION}")),
            "the document already has the VRM 0.x extension \"VRM\": expected a VRM 1.0 document (root extension \"VRMC_vrm\") without it",
        ));
    }
    match extensions.and_then(|e| e.get(VRM1_EXTENSION)) {
        Some(Value::Object(vrm)) => Ok(vrm),
        Some(_) => Err(Error::invalid(
            file,
            Location::JsonPointer(BASE.to_owned()),
            "the VRMC_vrm extension is not an object",
        )),
        None => Err(Error::invalid(
            file,
            Location::JsonPointer("/extensions".to_owned()),
            "no VRMC_vrm extension: expected a VRM 1.0 document (root extension \"VRMC_vrm\")",
        )),
    }
}

/// The 0.x `VRM` extension object, built from `VRMC_vrm` and `VRMC_springBone` of `source`
/// (`out` is the turned document; the thumbnail may add a texture to it).
fn vrm0_json(
    vrm: &Map<String, Value>,
    bones: &[(HumanBone, usize)],
    source: &Document,
    out: &mut Document,
    diagnostics: &mut Diagnostics,
) -> Value {
    let head = bones
        .iter()
        .find(|(b, _)| *b == HumanBone::Head)
        .map(|(_, n)| *n);
    let mut vrm0 = Map::new();
    vrm0.insert(
        "exporterVersion".into(),
        Value::from(format!("humanoid-{}", env!("CARGO_PKG_VERSION"))),
    );
    vrm0.insert("specVersion".into(), Value::from("0.0"));
    vrm0.insert(
        "meta".into(),
        meta::meta_json(vrm, &mut out.root, diagnostics),
    );
    vrm0.insert(
        "humanoid".into(),
        humanoid::humanoid_json(bones, diagnostics),
    );
    vrm0.insert(
        "firstPerson".into(),
        look_at::first_person_json(vrm, head, &out.root, diagnostics),
    );
    vrm0.insert(
        "blendShapeMaster".into(),
        expressions::blend_shape_master_json(vrm, &out.root, diagnostics),
    );
    let spring_bone = source
        .root
        .extensions
        .as_ref()
        .and_then(|e| e.get(spring::SPRING_BONE_EXTENSION))
        .and_then(Value::as_object);
    vrm0.insert(
        "secondaryAnimation".into(),
        spring::secondary_animation_json(spring_bone, &out.root, diagnostics),
    );
    vrm0.insert(
        "materialProperties".into(),
        materials::material_properties(&out.root, diagnostics),
    );
    Value::Object(vrm0)
}

/// Puts `VRM` where `VRMC_vrm` was (in `extensions` and `extensionsUsed`); the other 1.0
/// extensions are already gone (`extensions.rs`).
fn install(out: &mut Document, vrm0: Value) {
    let old = out.root.extensions.take().unwrap_or_default();
    let mut extensions = Map::new();
    let mut vrm0 = Some(vrm0);
    for (key, value) in old {
        if key == VRM1_EXTENSION {
            if let Some(vrm0) = vrm0.take() {
                extensions.insert(VRM0_EXTENSION.to_owned(), vrm0);
            }
        } else {
            extensions.insert(key, value);
        }
    }
    if let Some(vrm0) = vrm0 {
        extensions.insert(VRM0_EXTENSION.to_owned(), vrm0);
    }
    out.root.extensions = Some(extensions);
    let mut used = Vec::new();
    for name in std::mem::take(&mut out.root.extensions_used) {
        if name == VRM1_EXTENSION {
            used.push(VRM0_EXTENSION.to_owned());
        } else if name != VRM0_EXTENSION {
            used.push(name);
        }
    }
    if !used.iter().any(|n| n == VRM0_EXTENSION) {
        used.push(VRM0_EXTENSION.to_owned());
    }
    out.root.extensions_used = used;
    out.root.extensions_required.retain(|n| n != VRM1_EXTENSION);
}

/// Properties of `VRMC_vrm` that are not read (`extensions`, `extras`, unknown keys).
fn report_unknown_keys(vrm: &Map<String, Value>, diagnostics: &mut Diagnostics) {
    for key in vrm.keys().filter(|k| !VRM1_KEYS.contains(&k.as_str())) {
        diagnostics.info(
            "DOWNGRADE_VRM1_PROPERTY_DROPPED",
            at(BASE, key),
            format!("the VRMC_vrm property {key:?} has no VRM 0.x counterpart and was dropped"),
        );
    }
}
