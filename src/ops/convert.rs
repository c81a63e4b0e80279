//! `convert`: [`read`] a file into a [`Character`], make it what the target needs (map its rig,
//! rebase it on the T-pose), and [`write`] it; report what had to change.
//!
//! There is no path per pair of formats: the read gives the character (with the glTF
//! document it came from, for a lossless glTF-family write), the steps here work on it, and the
//! write picks the output's adapter (see [`crate::ops::write`] for what each keeps).

use std::path::Path;

use crate::error::{Diagnostics, Error};
use crate::formats::{gltf, vrm, Format};
use crate::mapping::Library;
use crate::model::{Carry, Character, HumanBone};
use crate::ops::read::{input_format, read, Clips, MeshDetail, ReadOptions};
use crate::ops::write::{write, writes_carried_document, WriteOptions, Written};

/// How to convert.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// The output format; `None` lets the output extension decide.
    pub to: Option<Format>,
    /// Replace an existing output file.
    pub force: bool,
    /// VRM-related options (strip the VRM extensions, meta for a new VRM).
    pub vrm: vrm::convert::VrmOptions,
    /// Map a rig that declares no humanoid (by these tables, or the one named) and declare it
    /// with `EXT_skeleton_humanoid`. A VRM output from such a rig is mapped even without it
    /// (by the built-in tables and the auto-mapper).
    pub mapping: Option<RigMapping>,
    /// The clip to write where the output holds one (`.vrma`, `.bvh`; default: the one
    /// [`crate::model::clip_choice::choose`] takes, reported), or the one clip an H-Anim output keeps
    /// (default: all). Refused for outputs that keep every clip (glTF family) or hold none.
    pub clip: Option<String>,
    /// BVH: metres per file unit when reading (`None`: detected).
    pub bvh_read_scale: Option<f64>,
    /// BVH output: rotation channel order (default ZXY).
    pub bvh_order: Option<crate::formats::bvh::EulerOrder>,
    /// BVH output: metres per file unit (default centimetres).
    pub bvh_write_scale: Option<f64>,
    /// Rebase the skeleton (and its clips, and with `rebind` its mesh) on the canonical T-pose
    /// before writing (glTF family).
    pub normalize: Option<crate::pose::normalize::NormalizeOptions>,
    /// Whether a `.glb`, `.gltf` or VRM 1.0 output gets the Khronos avatar drafts
    /// (`KHR_character` …, [`crate::ops::khr_write`]; by default only one made from a
    /// non-glTF input does).
    pub khr_character: crate::ops::khr_write::KhrCharacter,
}

pub use crate::mapping::RigMapping;

/// What a conversion did: what [`write`] reports.
pub type ConvertReport = Written;

/// Converts `input` into `output`: reads it into the model, maps, rebases and turns it as
/// the target needs, and writes it (the output extension or [`ConvertOptions::to`] picks the
/// format). What could not be carried is in the report's diagnostics.
///
/// ```
/// use humanoid::{convert, ConvertOptions};
/// use humanoid::formats::Format;
///
/// let dir = tempfile::tempdir()?;
/// humanoid::demo::write_demo(dir.path(), false)?;
/// let glb = dir.path().join("mannequin.glb");
/// let vrm = dir.path().join("mannequin.vrm");
/// let report = convert(&glb, &vrm, &ConvertOptions::default())?;
/// assert_eq!(report.format, Format::Vrm1);
/// assert_eq!(report.files, [vrm.clone()]);
/// // An existing output is kept unless `force` is set.
/// assert!(convert(&glb, &vrm, &ConvertOptions::default()).is_err());
/// let again = ConvertOptions { force: true, ..ConvertOptions::default() };
/// convert(&glb, &vrm, &again)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// The input is invalid; the output is the input, exists (without `force`), or is in a format
/// with no writer yet; the rig cannot be made what the target needs; writing fails.
pub fn convert(input: &Path, output: &Path, options: &ConvertOptions) -> Result<Written, Error> {
    let _reads = crate::io::input::read_scope(); // no output replaces a file read
    crate::ops::write::check_output_path(input, output, options.force)?;
    let source = input_format(input)?;
    let write_options = WriteOptions {
        to: options.to,
        force: options.force,
        vrm: options.vrm.clone(),
        clip: options.clip.clone(),
        bvh_order: options.bvh_order,
        bvh_scale: options.bvh_write_scale,
        khr_character: options.khr_character,
    };
    // The target by extension alone (a `.vrm`'s version is the input's, known after the read).
    let by_extension = match options.to {
        Some(format) => format,
        None => Format::for_output(output, None)?,
    };
    crate::ops::write::check_clip_option(by_extension, &write_options)?;
    if options.normalize.is_some() && !by_extension.is_gltf_family() {
        return Err(Error::unsupported(format!(
            "{}: --normalize rebases the skeleton of a glTF-family output (.glb, .gltf, .vrm), not of {}",
            input.display(),
            output.display()
        )));
    }
    let read_options = ReadOptions {
        bvh_scale: options.bvh_read_scale,
        meshes: if by_extension.is_hanim() {
            MeshDetail::Rest
        } else {
            MeshDetail::None
        },
        // A glTF-family file going to the glTF family keeps its sockets as they are, valid or
        // not; any other output is made from the sockets read.
        strict_sockets: !(source.is_gltf_family() && by_extension.is_gltf_family()),
        mapping: None,
        // A glTF-family file going to the glTF family (a `.vrma` aside, which may take one
        // clip of several) is written from its document, animations included: they are not
        // decoded, so converting a GLB costs little more than copying it.
        clips: if source.is_gltf_family()
            && by_extension.is_gltf_family()
            && by_extension != Format::Vrma
        {
            Clips::Skip
        } else {
            Clips::Decode
        },
    };
    let read = read(input, &read_options)?;
    let mut character = read.character;
    let target = crate::ops::write::target_format(&character, output, options.to)?;
    // A glTF-family file written from its own document reports the document's findings (the
    // write adds them), not the humanoid's: `validate` is for those.
    let mut diagnostics = if writes_carried_document(&character, target, &write_options) {
        Diagnostics::new()
    } else {
        read.diagnostics
    };
    if source.is_gltf_family() && target.is_hanim() {
        morph_weight_tracks(&mut character);
    }
    if options.to.is_none() && carried_vrm0(&character) && target == Format::Vrm0 {
        diagnostics.info(
            "VRM0_KEPT",
            "/extensions/VRM",
            "the input is VRM 0.x, so the .vrm output is VRM 0.x too; --to vrm1 migrates it to VRM 1.0",
        );
    }
    let model_source = source == Format::Bvh || source.is_hanim();
    let asset = &mut character.asset;
    if target.is_hanim() {
        if !source.is_hanim() {
            map_for_hanim(asset, input, options.mapping.as_ref(), &mut diagnostics)?;
        }
    } else if model_source || !target.is_gltf_family() {
        if let Some(mapping) = &options.mapping {
            mapping.attach(asset, input)?.note("", &mut diagnostics);
        }
    }
    if let Some(normalize) = &options.normalize {
        let mapping = options.mapping.as_ref();
        character = normalize_rest(character, input, mapping, normalize, &mut diagnostics)?;
    }
    let from_document = writes_carried_document(&character, target, &write_options);
    let asset = &mut character.asset;
    match target {
        Format::Bvh if asset.humanoids.is_empty() => map_for_bvh(asset, input, &mut diagnostics),
        Format::GodotBoneMap if asset.humanoids.is_empty() => {
            crate::mapping::map_humanoid(asset, input, None)?.note("", &mut diagnostics);
        }
        Format::Vrma if !from_document && !model_source => {
            crate::mapping::map_humanoid(asset, input, options.mapping.as_ref())
                .map_err(|e| {
                    Error::unsupported(format!(
                        "{}: a .vrma holds a humanoid clip, and this rig maps to no humanoid ({e}); map it with --map TABLE or --map FILE.toml",
                        input.display()
                    ))
                })?
                .note("", &mut diagnostics);
        }
        Format::Vrma if !from_document => {}
        _ if target.is_gltf_family() => {
            // A normalised rig rests in the canonical T-pose: what EXT_skeleton_humanoid declares.
            let needs_humanoid = matches!(target, Format::Vrm1 | Format::Vrm0 | Format::Vrma);
            let asked = options.mapping.is_some() || options.normalize.is_some();
            if asset.humanoids.is_empty() && (asked || needs_humanoid) {
                map_to_declare(asset, input, options.mapping.as_ref(), &mut diagnostics)?;
            }
        }
        _ => {}
    }
    let mut written = write(&character, output, &write_options)?;
    diagnostics.extend(std::mem::take(&mut written.diagnostics));
    written.diagnostics = diagnostics;
    Ok(written)
}

/// Whether the character was read from a VRM 0.x file.
fn carried_vrm0(character: &Character) -> bool {
    character
        .carry
        .get::<gltf::Document>()
        .and_then(vrm::flavour)
        == Some(Format::Vrm0)
}

/// `--normalize`: the rig mapped when it declares no humanoid, its rest rebased on the
/// canonical T-pose, every clip rewritten to keep its world motion (see
/// [`gltf::rest::normalize_document`]); the figures go to the diagnostics. A character that
/// carries no glTF document (H-Anim, BVH) is built into one first.
fn normalize_rest(
    character: Character,
    input: &Path,
    mapping: Option<&RigMapping>,
    options: &crate::pose::normalize::NormalizeOptions,
    diagnostics: &mut Diagnostics,
) -> Result<Character, Error> {
    let document = match character.carry.get::<gltf::Document>() {
        Some(document) => document.clone(),
        None => {
            let built = crate::ops::write::built_glb(&character)?;
            crate::ops::write::report_dropped(&built, diagnostics);
            gltf::build::document(&built, input)?
        }
    };
    let mut asset = vrm::asset_from_document(&document)?.asset;
    if asset.humanoids.is_empty() {
        crate::mapping::map_humanoid(&mut asset, input, mapping)
            .map_err(|e| {
                Error::unsupported(format!(
                    "--normalize needs a humanoid: the file declares none and no mapping fits ({e}); map it with --map TABLE"
                ))
            })?
            .note("", diagnostics);
    }
    let normalized = gltf::rest::normalize_document(&document, &asset, options)?;
    diagnostics.extend(normalized.diagnostics);
    let mut rebased = Character::new(vrm::asset_from_document(&normalized.document)?.asset);
    rebased.carry = Carry::new(normalized.document);
    rebased.source = character.source;
    Ok(rebased)
}

/// The rig of a file going to H-Anim, mapped so the writer can name its joints by H-Anim (an
/// H-Anim input's names already are) by the one policy ([`crate::mapping::policy`]), said in
/// one line (`HUMANOID_MAPPED`).
///
/// # Errors
/// The rig is not a humanoid: H-Anim holds humanoids, so the conversion is refused with what
/// to do instead.
fn map_for_hanim(
    asset: &mut crate::model::Asset,
    input: &Path,
    mapping: Option<&RigMapping>,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    match crate::mapping::policy::map_humanoid(asset, input, mapping) {
        Ok(mapped) => {
            mapped.note("", diagnostics);
            Ok(())
        }
        Err(e) => Err(Error::unsupported(format!(
            "{e}. An H-Anim file holds a humanoid whose joints carry H-Anim names: convert this rig to .glb instead, or map its joints with --map TABLE.toml (`humanoid map FILE -o TABLE.toml` writes one to edit)"
        ))),
    }
}

/// The rig of a file going to BVH, mapped by the one policy ([`crate::mapping::policy`]) so
/// the writer can fold the nodes above its skeleton and check that the file reads back as the
/// same humanoid; a rig that is no humanoid is written as it is (said in a note).
fn map_for_bvh(asset: &mut crate::model::Asset, input: &Path, diagnostics: &mut Diagnostics) {
    match crate::mapping::policy::map_humanoid(asset, input, None) {
        Ok(mapped) => mapped.note("", diagnostics),
        Err(e) => diagnostics.info("HUMANOID_NOT_MAPPED", "", e.to_string()),
    }
}

/// Turns the `weights` tracks on a glTF node that draws meshes into weight tracks on those
/// meshes ([`TrackTarget::Mesh`](crate::model::clip::TrackTarget::Mesh), one per mesh drawn
/// with as many morph targets), so a writer of another format finds the mesh they animate.
fn morph_weight_tracks(character: &mut Character) {
    use crate::model::clip::{Clip, Property, TrackTarget};
    let (meshes, mesh_nodes) = (&character.meshes, &character.mesh_nodes);
    for clip in &mut character.asset.clips {
        let mut rewritten = Clip::new(clip.name.clone());
        for track in clip.tracks() {
            let (TrackTarget::Joint(joint), Property::Weights(n)) =
                (track.target(), track.property())
            else {
                rewritten.add_track(track.clone());
                continue;
            };
            let drawn: Vec<u16> = meshes
                .iter()
                .zip(mesh_nodes)
                .enumerate()
                .filter(|(_, (mesh, at))| **at == Some(joint) && mesh.morph_targets.len() == n)
                .filter_map(|(i, _)| u16::try_from(i).ok())
                .collect();
            if drawn.is_empty() {
                rewritten.add_track(track.clone());
            }
            for mesh in drawn {
                rewritten.add_track(track.with_target(TrackTarget::Mesh(mesh)));
            }
        }
        *clip = rewritten;
    }
}

/// Maps a rig that declares no humanoid so the write declares it with `EXT_skeleton_humanoid`
/// (reporting how, and a rest that is not a T-pose).
fn map_to_declare(
    asset: &mut crate::model::Asset,
    input: &Path,
    mapping: Option<&RigMapping>,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let builtin;
    let rig = match mapping {
        Some(rig) => rig,
        None => {
            builtin = RigMapping {
                library: Library::builtin()?,
                table: None,
            };
            &builtin
        }
    };
    let mapped = crate::mapping::map_humanoid(asset, input, Some(rig))?;
    let Some(humanoid) = asset.humanoids.first() else {
        return Err(Error::unsupported(format!(
            "{}: the mapping found no humanoid (map it with --map TABLE)",
            input.display()
        )));
    };
    if humanoid.bones.get(HumanBone::Hips).is_none() {
        return Err(Error::unsupported(format!(
            "{}: the mapping has no hips, so no humanoid skeleton can be declared (map it with --map TABLE)",
            input.display()
        )));
    }
    let message = format!("EXT_skeleton_humanoid added, {}", mapped.line());
    diagnostics.info(
        "EXT_MAPPED",
        format!("/extensions/{}", gltf::ext_skeleton_humanoid::NAME),
        message,
    );
    if let Some(degrees) = arm_droop(asset, &humanoid.bones) {
        diagnostics.warn(
            "EXT_REST_NOT_TPOSE",
            "/nodes",
            format!(
                "the rest pose is not a T-pose (the arms are {degrees:.0}° below horizontal); EXT_skeleton_humanoid and VRM declare a T-pose rest, so retargeted motion will be off until the rest is rebased on the T-pose: convert with --normalize"
            ),
        );
    }
    Ok(())
}

/// How far the upper arms point below the horizontal at rest (the larger side), when more
/// than 15°.
fn arm_droop(asset: &crate::model::Asset, bones: &crate::model::BoneMap) -> Option<f32> {
    let skeleton = &asset.skeleton;
    let droop = |upper: HumanBone, lower: HumanBone| {
        let (u, l) = (bones.get(upper)?, bones.get(lower)?);
        let d = skeleton.rest_world(l).translation - skeleton.rest_world(u).translation;
        (d.length() > 0.0).then(|| (-d.y / d.length()).clamp(-1.0, 1.0).asin().to_degrees())
    };
    let worst = [
        droop(HumanBone::LeftUpperArm, HumanBone::LeftLowerArm),
        droop(HumanBone::RightUpperArm, HumanBone::RightLowerArm),
    ]
    .into_iter()
    .flatten()
    .fold(f32::NEG_INFINITY, f32::max);
    (worst > 15.0).then_some(worst)
}

pub(crate) use crate::ops::write::{check_output_path, report_rig_only};
