//! The one write: a [`Character`] into a file of any format we write, with what could not be
//! carried reported by diagnostic code.
//!
//! A character read from a glTF-family file carries its document ([`Character::carry`]): a
//! glTF-family output is written from that document, so every node, mesh, material, texture,
//! animation, extension and extra is kept and the binary data pass through untouched (what the
//! VRM adapter adds or removes is listed in [`crate::formats::vrm::convert`]). Any other
//! character going to the glTF family is built into a document from the model first. BVH,
//! H-Anim, VRMA and Godot outputs are written from the model. Outputs are written to a temporary
//! file in the output's folder and renamed into place; the file the character was read from is
//! never written.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Diagnostics, Error};
use crate::formats::gltf::ext_skeleton_humanoid::{self as ext, SkeletonDef};
use crate::formats::{bvh, gltf, vrm, Format};
use crate::model::clip::Clip;
use crate::model::clip_choice::ChosenClip;
use crate::model::{Asset, Character, HumanBone};
use crate::pose::normalized::playable;

/// How to write.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// The format; `None` lets the extension decide (`.vrm` keeps a VRM character's version).
    pub to: Option<Format>,
    /// Replace an existing file.
    pub force: bool,
    /// VRM-related options (strip the VRM extensions, meta for a new VRM).
    pub vrm: vrm::convert::VrmOptions,
    /// The clip a single-clip output (`.vrma`, `.bvh`) holds, or the one clip an H-Anim output
    /// keeps (default: the one [`crate::model::clip_choice::choose`] takes, reported; H-Anim:
    /// all). Refused for outputs that keep every clip (glTF family) or hold none (Godot).
    pub clip: Option<String>,
    /// BVH: rotation channel order (default: a BVH character's own, else ZXY).
    pub bvh_order: Option<bvh::EulerOrder>,
    /// BVH: metres per file unit (default: a BVH character's own, else centimetres).
    pub bvh_scale: Option<f64>,
    /// Whether a `.glb`, `.gltf` or VRM 1.0 output gets the Khronos avatar drafts
    /// ([`crate::ops::khr_write`]; by default only a document built from the model does).
    pub khr_character: crate::ops::khr_write::KhrCharacter,
}

/// What a write did.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    /// The format written.
    pub format: Format,
    /// The size of the output file.
    pub bytes_written: u64,
    /// Every file written: the files beside the output (a `.gltf`'s `.bin` and images) first,
    /// the output last. None was the character's source, none replaced without `force`.
    pub files: Vec<PathBuf>,
    /// What was dropped, approximated or found along the way.
    pub diagnostics: Diagnostics,
    /// What contact-aware retargeting found and changed (`retarget` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contacts: Option<crate::pose::contacts::ContactReport>,
}

impl Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Writes `character` to `path` in the format [`WriteOptions::to`] or the extension names.
///
/// ```
/// use humanoid::{read, write, ReadOptions, WriteOptions};
/// use humanoid::formats::Format;
///
/// let dir = tempfile::tempdir()?;
/// humanoid::demo::write_demo(dir.path(), false)?;
/// let character = read(&dir.path().join("mannequin.glb"), &ReadOptions::default())?.character;
///
/// // H-Anim 2.0 in X3D XML, from the model; the same file again needs `force`.
/// let x3d = dir.path().join("mannequin.x3d");
/// let written = write(&character, &x3d, &WriteOptions::default())?;
/// assert_eq!((written.format, written.files.as_slice()), (Format::X3d, [x3d.clone()].as_slice()));
/// assert!(write(&character, &x3d, &WriteOptions::default()).is_err());
///
/// // A GLB from the carried document: every byte of its buffers kept.
/// let glb = dir.path().join("copy.glb");
/// write(&character, &glb, &WriteOptions::default())?;
/// let back = read(&glb, &ReadOptions::default())?.character;
/// assert_eq!(back.asset.skeleton.len(), character.asset.skeleton.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// The path is the character's source or exists (without `force`); the format has no writer
/// or cannot hold this character (a BVH or VRMA without a clip, H-Anim without a humanoid: the
/// message says what to do); writing fails.
pub fn write(character: &Character, path: &Path, options: &WriteOptions) -> Result<Written, Error> {
    if let Some(source) = &character.source {
        check_output_path(source, path, options.force)?;
    } else {
        crate::io::output::check(path, options.force)?;
    }
    let target = target_format(character, path, options.to)?;
    if let Some(refused) = target.refuse_output() {
        return Err(refused);
    }
    check_clip_option(target, options)?;
    if target.is_gltf_family() {
        if target == Format::Vrma && !writes_carried_document(character, target, options) {
            return write_vrma(character, options, path);
        }
        return write_gltf_family(character, target, path, options);
    }
    write_from_model(character, target, path, options)
}

/// The format a write to `path` produces: `to`, else the extension's (`.vrm` keeps a VRM
/// character's version, else VRM 1.0).
///
/// # Errors
/// An unknown or ambiguous extension.
pub fn target_format(
    character: &Character,
    path: &Path,
    to: Option<Format>,
) -> Result<Format, Error> {
    match to {
        Some(format) => Ok(format),
        None => Format::for_output(path, carried_vrm_version(character)),
    }
}

/// The VRM version of a character read from a `.vrm` file.
fn carried_vrm_version(character: &Character) -> Option<Format> {
    character
        .carry
        .get::<gltf::Document>()
        .and_then(vrm::flavour)
        .filter(|f| matches!(f, Format::Vrm0 | Format::Vrm1))
}

/// Whether a write of `character` as `target` goes through the glTF document it carries
/// (rather than one built from the model): a glTF-family output of a glTF-family character,
/// except a `.vrma` that is not the character's own one clip.
pub fn writes_carried_document(
    character: &Character,
    target: Format,
    options: &WriteOptions,
) -> bool {
    let Some(document) = character.carry.get::<gltf::Document>() else {
        return false;
    };
    if target == Format::Vrma {
        return vrm::flavour(document) == Some(Format::Vrma)
            && document.root.animations.len() <= 1
            && options.clip.is_none();
    }
    target.is_gltf_family()
}

/// A glTF-family output: the carried document, or one built from the model, with the
/// character's humanoid declared where the document declares none, turned into the target
/// flavour ([`vrm::convert::prepare`]) and written.
fn write_gltf_family(
    character: &Character,
    target: Format,
    path: &Path,
    options: &WriteOptions,
) -> Result<Written, Error> {
    let inputs: Vec<&Path> = character.source.iter().map(PathBuf::as_path).collect();
    let mut diagnostics = Diagnostics::new();
    let carried = character.carry.get::<gltf::Document>().is_some();
    let khr_form = match options.khr_character.form() {
        Some(form) if matches!(target, Format::Glb | Format::Gltf | Format::Vrm1) => Some(form),
        Some(_) => {
            diagnostics.warn(
                "KHR_CHARACTER_NOT_WRITTEN",
                "",
                format!(
                    "KHR_character is written on .glb, .gltf and VRM 1.0 outputs, not on {target}"
                ),
            );
            None
        }
        None => None,
    };
    let mut document = match character.carry.get::<gltf::Document>() {
        Some(document) => document.clone(),
        None => {
            let built = built_glb(character)?;
            report_dropped(&built, &mut diagnostics);
            report_toon_dropped(character, target, &mut diagnostics);
            if target == Format::Glb && khr_form.is_none() {
                // Nothing to declare or turn: the built GLB is written as it is.
                let written = gltf::build::write_glb(&built, path)?;
                diagnostics.extend(written.diagnostics);
                return Ok(Written {
                    format: target,
                    bytes_written: written.bytes,
                    files: written.files,
                    diagnostics,
                    contacts: None,
                });
            }
            let name = character
                .source
                .clone()
                .unwrap_or_else(|| path.to_path_buf());
            gltf::build::document(&built, &name)?
        }
    };
    // A VRM is made from EXT_skeleton_humanoid: a file that declares its humanoid with
    // KHR_character_skeleton_mapping alone gets EXT for that, and keeps its own on glTF → glTF.
    let gltf_out = matches!(target, Format::Glb | Format::Gltf);
    // A .glb/.gltf that gets KHR_character_skeleton_mapping declares its humanoid with it.
    let declared_by_khr = gltf_out && khr_form.is_some() && carried;
    if !(declares_humanoid(&document, gltf_out) || declared_by_khr) {
        declare(&mut document, &character.asset)?;
    }
    // A VRM written back as VRM is the identity; a VRM made from a `.glb` (even one that kept
    // the VRM extensions) is checked and tidied.
    let from_vrm_file = matches!(
        Format::for_input(document.path()),
        Ok(Format::Vrm1 | Format::Vrm0 | Format::Vrma)
    );
    drop_broken_skeleton_bone(&mut document, &mut diagnostics);
    if khr_form.is_some() {
        // A VRM's expressions and first-person annotations, while its VRM extension is there
        // (--strip-vrm removes it next).
        vrm::khr_expression::vrm_to_khr(&mut document, &mut diagnostics)?;
    }
    let (mut document, prepared) =
        vrm::convert::prepare(document, from_vrm_file, target, &options.vrm)?;
    if let Some(form) = khr_form {
        crate::ops::khr_write::add_prepared(
            &mut document,
            character,
            carried,
            form,
            &mut diagnostics,
        )?;
    }
    let mut all = document.diagnostics().clone();
    all.extend(diagnostics);
    all.extend(prepared);
    let written = match target {
        Format::Gltf => document.write_gltf_with(path, &inputs, options.force)?,
        _ => document.write_glb(path, &inputs)?,
    };
    all.extend(written.diagnostics);
    Ok(Written {
        format: target,
        bytes_written: written.bytes,
        files: written.files,
        diagnostics: all,
        contacts: None,
    })
}

/// A document that lists `KHR_skeleton_bone` but breaks its rules is written without it (a
/// reader would trust rules that do not hold), with a warning naming the first broken rule.
fn drop_broken_skeleton_bone(document: &mut gltf::Document, diagnostics: &mut Diagnostics) {
    use crate::formats::gltf::khr_skeleton_bone as bone;
    if !document
        .root
        .extensions_used
        .iter()
        .any(|e| e == bone::NAME)
    {
        return;
    }
    let mut found = Diagnostics::new();
    bone::check(&document.root, &mut found);
    let Some(first) = found
        .iter()
        .find(|d| d.severity == crate::error::Severity::Error)
    else {
        return;
    };
    let message = format!(
        "the input lists KHR_skeleton_bone but breaks its rules ({}: {}); the output leaves it off",
        first.location, first.message
    );
    bone::drop_extension(&mut document.root);
    diagnostics.warn("KHR_SKELETON_BONE_DROPPED", "/extensionsUsed", message);
}

/// Whether a document declares a humanoid: VRM's, `EXT_skeleton_humanoid`, or (where
/// `khr_counts`) a `KHR_character_skeleton_mapping` of the VRM humanoid rig (kept as it is: a
/// glTF → glTF write adds no EXT_skeleton_humanoid beside it).
fn declares_humanoid(document: &gltf::Document, khr_counts: bool) -> bool {
    let extensions = document.root.extensions.as_ref();
    let khr_humanoid = extensions
        .and_then(|e| e.get(gltf::khr_character::MAPPING))
        .and_then(|m| m.get("skeletalRigMappings"))
        .and_then(|r| r.as_object())
        .is_some_and(|rigs| {
            rigs.keys()
                .any(|k| gltf::khr_character::is_vrm_humanoid_rig(k))
        });
    vrm::flavour(document).is_some()
        || extensions.is_some_and(|e| e.contains_key(ext::NAME))
        || (khr_counts && khr_humanoid)
}

/// Declares the character's first humanoid with `EXT_skeleton_humanoid` (rooted at the
/// topmost ancestor of its hips); a character without one declares nothing.
fn declare(document: &mut gltf::Document, asset: &Asset) -> Result<(), Error> {
    let Some(humanoid) = asset.humanoids.first() else {
        return Ok(());
    };
    let Some(hips) = humanoid.bones.get(HumanBone::Hips) else {
        return Err(Error::unsupported(format!(
            "{}: the humanoid has no hips, so no humanoid skeleton can be declared (map it with --map TABLE)",
            document.path().display()
        )));
    };
    let root = asset.skeleton.ancestors(hips).last().unwrap_or(hips);
    ext::declare(
        document,
        SkeletonDef {
            root_node: asset.source_index(root),
            bones: humanoid
                .bones
                .iter()
                .map(|(bone, joint)| (bone, asset.source_index(joint)))
                .collect(),
        },
    );
    Ok(())
}

/// A VRMA of the character's humanoid and one clip ([`one_clip`]), as a VRMA that plays
/// ([`crate::ops::vrma_out::vrma_asset`]: rebased on the T-pose facing +Z where the rest is
/// not).
fn write_vrma(
    character: &Character,
    options: &WriteOptions,
    path: &Path,
) -> Result<Written, Error> {
    let mut diagnostics = Diagnostics::new();
    let source = source_path(character);
    let chosen = one_clip(
        &character.asset,
        options.clip.as_deref(),
        "a .vrma",
        &source,
    )?;
    chosen.report(&mut diagnostics);
    write_vrma_clip(
        &character.asset,
        chosen.clip,
        &named(character),
        path,
        diagnostics,
    )
}

/// Writes `clip` of `asset` (read from `input`, for messages) as a VRMA that plays (see
/// [`crate::ops::vrma_out`]).
///
/// # Errors
/// The asset has no humanoid, or the VRMA cannot be built.
pub(crate) fn write_vrma_clip(
    asset: &Asset,
    clip: &crate::model::clip::Clip,
    input: &str,
    output: &Path,
    mut diagnostics: Diagnostics,
) -> Result<Written, Error> {
    let in_file = |e: Error| match e {
        Error::Unsupported { message } => Error::unsupported(format!("{input}: {message}")),
        other => other,
    };
    let vrma = crate::ops::vrma_out::vrma_asset(asset, clip, &mut diagnostics).map_err(in_file)?;
    let built = vrm::vrma::build(&vrma, GENERATOR, &mut diagnostics).map_err(in_file)?;
    let written = gltf::build::write_glb(&built, output)?;
    diagnostics.extend(written.diagnostics);
    Ok(Written {
        format: Format::Vrma,
        bytes_written: written.bytes,
        files: written.files,
        diagnostics,
        contacts: None,
    })
}

const GENERATOR: &str = concat!("humanoid ", env!("CARGO_PKG_VERSION"));

/// The outputs written from the model alone: BVH, H-Anim, Godot.
fn write_from_model(
    character: &Character,
    target: Format,
    path: &Path,
    options: &WriteOptions,
) -> Result<Written, Error> {
    // BVH and H-Anim hold joint motion: clips of EXT_skeleton_humanoid channels are played on
    // the character's own joints first.
    let played;
    let asset = if character.asset.clips.iter().any(Clip::has_bone_tracks) {
        let mut copy = character.asset.clone();
        copy.clips = character
            .asset
            .clips
            .iter()
            .map(|clip| playable(&character.asset, clip).into_owned())
            .collect();
        played = copy;
        &played
    } else {
        &character.asset
    };
    let mut diagnostics = Diagnostics::new();
    if !target.is_hanim() {
        crate::ops::sockets::report_dropped(&character.sockets, asset, target, &mut diagnostics);
    }
    if target.is_hanim() {
        report_toon_dropped(character, target, &mut diagnostics);
    }
    let bytes_written = match target {
        Format::Bvh => {
            let rig = asset.rig_only();
            report_rig_only(asset, &rig, &mut diagnostics);
            let source = source_path(character);
            let chosen = one_clip(&rig, options.clip.as_deref(), "a BVH", &source)?;
            chosen.report(&mut diagnostics);
            let clip = chosen.clip;
            let layout = character.carry.get::<bvh::BvhLayout>();
            let mut write_options = bvh_write_options(layout, options.bvh_order);
            if let Some(scale) = options.bvh_scale {
                write_options.scale = scale;
                write_options.pick_unit = false;
            }
            let written = bvh::write_with_diagnostics(&rig, clip, &write_options)?;
            diagnostics.extend(written.diagnostics);
            crate::ops::output::write_atomically(path, written.text.as_bytes())?
        }
        Format::X3d | Format::X3dv | Format::Wrl => {
            let kept;
            let asset = match &options.clip {
                Some(name) => {
                    let chosen = crate::model::clip_choice::choose(
                        asset,
                        Some(name),
                        &source_path(character),
                    )?;
                    let mut one = asset.clone();
                    one.clips = vec![chosen.clip.clone()];
                    kept = one;
                    &kept
                }
                None => asset,
            };
            let hanim_options = crate::formats::hanim::WriteOptions {
                sockets: character.sockets.clone(),
                meshes: character.meshes.clone(),
                generator: GENERATOR.to_owned(),
                ..crate::formats::hanim::WriteOptions::default()
            };
            let written =
                crate::formats::hanim::write_with_diagnostics(asset, target, &hanim_options)?;
            diagnostics.extend(written.diagnostics);
            crate::ops::output::write_atomically(path, written.text.as_bytes())?
        }
        Format::GodotBoneMap => {
            let (text, notes) = crate::formats::godot::asset_bone_map_tres(asset)?;
            diagnostics.extend(notes);
            crate::ops::output::write_atomically(path, text.as_bytes())?
        }
        Format::GodotProfile => {
            diagnostics.info(
                "GODOT_PROFILE_CANONICAL",
                "",
                "the canonical SkeletonProfileHumanoid (Godot's, thumbs at 45°) is written; the input's proportions are not used",
            );
            let text = crate::formats::godot::canonical_profile_tres();
            crate::ops::output::write_atomically(path, text.as_bytes())?
        }
        other => {
            return Err(Error::unsupported(format!(
                "writing {other} from {} is not built yet",
                named(character)
            )))
        }
    };
    Ok(Written {
        format: target,
        bytes_written,
        files: vec![path.to_path_buf()],
        diagnostics,
        contacts: None,
    })
}

/// How a BVH output is written: a BVH character's layout (its channels, End Sites, frame time
/// and unit) when there is one, so BVH → BVH writes the same file back; `order` replaces its
/// channel orders but keeps its frame time.
fn bvh_write_options(
    layout: Option<&bvh::BvhLayout>,
    order: Option<bvh::EulerOrder>,
) -> bvh::WriteOptions {
    match (layout, order) {
        (Some(layout), None) => bvh::WriteOptions::like(layout),
        (Some(layout), Some(order)) => bvh::WriteOptions {
            order,
            scale: layout.metres_per_unit(),
            pick_unit: false,
            fps: Some(1.0 / layout.frame_time()),
            ..bvh::WriteOptions::default()
        },
        (None, order) => bvh::WriteOptions {
            order: order.unwrap_or_default(),
            ..bvh::WriteOptions::default()
        },
    }
}

/// A GLB built from the model: its skeleton, humanoids, every mesh (with its morph targets)
/// and clips, its sockets as virtual transforms (the built nodes are the skeleton's joints in
/// order, then one node per mesh).
pub(crate) fn built_glb(character: &Character) -> Result<gltf::build::Built, Error> {
    let asset = &character.asset;
    let mut built = gltf::build::build(&gltf::build::Scene {
        skeleton: &asset.skeleton,
        humanoids: &asset.humanoids,
        meshes: &character.meshes,
        clips: &asset.clips,
        generator: GENERATOR,
        skin_without_mesh: true,
    })?;
    if !character.sockets.is_empty() {
        let name = gltf::virtual_transform::NAME;
        built.json["extensions"][name] =
            gltf::virtual_transform::to_json(&character.sockets, |joint| joint.index());
        match built.json["extensionsUsed"].as_array_mut() {
            Some(used) => used.push(name.into()),
            None => built.json["extensionsUsed"] = serde_json::json!([name]),
        }
    }
    Ok(built)
}

/// Reports the toon (MToon) materials an output made from the model draws with their base
/// colour only.
fn report_toon_dropped(character: &Character, target: Format, diagnostics: &mut Diagnostics) {
    let mut names: Vec<String> = Vec::new();
    for material in character.meshes.iter().filter_map(|m| m.material.as_ref()) {
        let name = format!("{:?}", material.name);
        if material.toon.is_some() && !names.contains(&name) {
            names.push(name);
        }
    }
    if names.is_empty() {
        return;
    }
    diagnostics.warn(
        "MATERIAL_TOON_DROPPED",
        "",
        format!(
            "a {target} file holds no toon (MToon) shading: {} material(s) keep their base colour and texture only (shade colour, rim and outline are dropped): {}",
            names.len(),
            names.join(", ")
        ),
    );
}

/// Reports what a built document left out (textures of an image type glTF does not hold).
pub(crate) fn report_dropped(built: &gltf::build::Built, diagnostics: &mut Diagnostics) {
    for message in &built.dropped {
        diagnostics.warn("GLTF_TEXTURE_DROPPED", "", message.clone());
    }
}

/// The one clip a single-clip output (`what`: "a .vrma", "a BVH") holds: `name`, else the one
/// [`crate::model::clip_choice::choose`] takes.
///
/// # Errors
/// The character has no clip, or none of that name (the message lists them).
fn one_clip<'a>(
    asset: &'a Asset,
    name: Option<&str>,
    what: &str,
    source: &Path,
) -> Result<ChosenClip<'a>, Error> {
    if asset.clips.is_empty() {
        return Err(Error::unsupported(format!(
            "{}: {what} holds one clip, and this file has none",
            source.display()
        )));
    }
    crate::model::clip_choice::choose(asset, name, source)
}

/// The character's source file, for messages ("the character" when it has none).
fn source_path(character: &Character) -> PathBuf {
    character
        .source
        .clone()
        .unwrap_or_else(|| PathBuf::from("the character"))
}

fn named(character: &Character) -> String {
    source_path(character).display().to_string()
}

/// A clip picks the clip of a single-clip output (`.vrma`, `.bvh`) or the one clip an H-Anim
/// output keeps; a glTF-family output keeps every clip as it is and a Godot `.tres` holds none,
/// so there it is refused rather than ignored.
pub(crate) fn check_clip_option(target: Format, options: &WriteOptions) -> Result<(), Error> {
    if options.clip.is_none() || matches!(target, Format::Vrma | Format::Bvh) || target.is_hanim() {
        return Ok(());
    }
    Err(Error::unsupported(format!(
        "--clip: a {target} output keeps every clip of the input as it is (a .tres none); --clip picks the one clip of a .vrma or .bvh output, or the one clip an H-Anim output keeps: leave it out (retarget --clip writes one clip onto a model)"
    )))
}

/// Refuses an output that is the input, or exists without `force`.
pub(crate) fn check_output_path(input: &Path, output: &Path, force: bool) -> Result<(), Error> {
    let same = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same || input == output {
        return Err(Error::unsupported(format!(
            "{}: the output is the input file; choose another output path",
            output.display()
        )));
    }
    crate::io::output::check(output, force)
}

/// Reports the joints [`Asset::rig_only`] left out, by name.
pub(crate) fn report_rig_only(asset: &Asset, rig: &Asset, diagnostics: &mut Diagnostics) {
    let kept: std::collections::HashSet<usize> = rig.source_indices.iter().copied().collect();
    let dropped: Vec<&str> = asset
        .skeleton
        .joints()
        .filter(|j| !kept.contains(&asset.source_index(*j)))
        .map(|j| asset.skeleton.name(j))
        .collect();
    if dropped.is_empty() {
        return;
    }
    let shown: Vec<String> = dropped.iter().take(8).map(|n| format!("{n:?}")).collect();
    let more = dropped.len() - shown.len();
    diagnostics.info(
        "NON_JOINT_NODES_DROPPED",
        "/nodes",
        format!(
            "{} node(s) that are no bones (they draw a mesh, hold a camera or a light, or hang below one, or lie outside the rig) were left out of the skeleton: {}{}",
            dropped.len(),
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ),
    );
}
