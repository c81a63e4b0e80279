//! `convert`: read a file, write it in another format, report what had to change.
//!
//! glTF-family to glTF-family conversions (`.gltf` ↔ `.glb`, `.vrm` → `.vrm`, VRM ↔ glTF with
//! `EXT_skeleton_humanoid`) go through the lossless document layer: every node, mesh, material,
//! texture, animation, extension and extra is kept, and the binary data pass through untouched;
//! what the VRM adapter adds or removes is listed in [`crate::formats::vrm::convert`].
//! Files that read into the model (H-Anim, BVH) and go to a glTF-family output are built into a
//! glTF document in memory first, which then takes the same path (`--normalize`, VRM, `.gltf`);
//! outputs the document layer does not write (BVH, H-Anim, Godot) are written from the model.
//! Outputs are written to a temporary file in the output's folder and renamed into place; the
//! input is never written.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Diagnostics, Error};
use crate::formats::gltf::ext_skeleton_humanoid::{self as ext, SkeletonDef};
use crate::formats::{gltf, vrm, Format};
use crate::mapping::Library;
use crate::model::HumanBone;
use crate::ops::read::input_format;

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
    pub normalize: Option<gltf::rest::NormalizeOptions>,
}

pub use crate::mapping::RigMapping;

/// What a conversion did.
#[derive(Debug, Clone, Serialize)]
pub struct ConvertReport {
    /// The format written.
    pub format: Format,
    /// The size of the output file.
    pub bytes_written: u64,
    /// Every file written: the files beside the output (a `.gltf`'s `.bin` and images) first,
    /// the output last. Each one was an output: none was an input, none replaced without
    /// `force`.
    pub files: Vec<PathBuf>,
    /// What was dropped, approximated or found along the way.
    pub diagnostics: Diagnostics,
}

impl Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

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
/// with no writer yet; writing fails.
pub fn convert(
    input: &Path,
    output: &Path,
    options: &ConvertOptions,
) -> Result<ConvertReport, Error> {
    check_output_path(input, output, options.force)?;
    let source = input_format(input)?;
    check_clip_option(output, options)?;
    let model_source = source == Format::Bvh || source.is_hanim();
    if model_source {
        let target = match options.to {
            Some(format) => format,
            None => Format::for_output(output, None)?,
        };
        // A glTF-family file built from the model goes on through the document layer where
        // that layer does the work: rebasing on the T-pose, VRM, .gltf.
        let via_document = target.is_gltf_family()
            && (options.normalize.is_some()
                || matches!(target, Format::Gltf | Format::Vrm0 | Format::Vrm1));
        if !via_document {
            return convert_through_model(input, output, options);
        }
        let mut model = read_model(input, target, options)?;
        let built = built_glb(&model)?;
        report_dropped(&built, &mut model.diagnostics);
        let document = gltf::build::document(&built, input)?;
        return convert_document(document, source, input, output, options, model.diagnostics);
    }
    let through_model = matches!(
        options.to,
        Some(Format::Bvh | Format::GodotBoneMap | Format::GodotProfile)
    ) || options.to.is_some_and(Format::is_hanim)
        || (options.to.is_none() && Format::for_output(output, None).is_ok_and(Format::is_hanim));
    if through_model || output_is(output, "bvh") {
        return convert_through_model(input, output, options);
    }
    if !source.is_gltf_family() {
        return Err(Error::unsupported(format!(
            "{}: reading {source} files is not built yet",
            input.display()
        )));
    }
    let document = gltf::Document::open(input)?;
    convert_document(document, source, input, output, options, Diagnostics::new())
}

/// The glTF-family path: `document` (read from `input`, or built from a model read from it)
/// rebased when asked, declared, turned into the target flavour and written.
fn convert_document(
    mut document: gltf::Document,
    source: Format,
    input: &Path,
    output: &Path,
    options: &ConvertOptions,
    mut mapped: Diagnostics,
) -> Result<ConvertReport, Error> {
    let vrm_version = vrm::flavour(&document);
    let target = match options.to {
        Some(format) => format,
        None => Format::for_output(
            output,
            vrm_version.filter(|f| matches!(f, Format::Vrm0 | Format::Vrm1)),
        )?,
    };
    if !target.is_gltf_family() {
        return Err(Error::unsupported(format!(
            "writing {target} files is not built yet (asked for {})",
            output.display()
        )));
    }
    if options.to.is_none() && vrm_version == Some(Format::Vrm0) && target == Format::Vrm0 {
        mapped.info(
            "VRM0_KEPT",
            "/extensions/VRM",
            "the input is VRM 0.x, so the .vrm output is VRM 0.x too; --to vrm1 migrates it to VRM 1.0",
        );
    }
    if let Some(normalize) = &options.normalize {
        document = normalize_rest(
            document,
            input,
            options.mapping.as_ref(),
            normalize,
            &mut mapped,
        )?;
    }
    if target == Format::Vrma {
        let several = document.root.animations.len() > 1;
        if vrm_version != Some(Format::Vrma) || several || options.clip.is_some() {
            return vrma_from_document(&document, input, output, options, mapped);
        }
    }
    let declares = vrm_version.is_some()
        || document
            .root
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(ext::NAME));
    let needs_humanoid = matches!(target, Format::Vrm1 | Format::Vrm0 | Format::Vrma);
    // A normalised rig rests in the canonical T-pose: what EXT_skeleton_humanoid declares.
    if !declares && (options.mapping.is_some() || needs_humanoid || options.normalize.is_some()) {
        let builtin;
        let rig = match &options.mapping {
            Some(rig) => rig,
            None => {
                builtin = RigMapping {
                    library: Library::builtin()?,
                    table: None,
                };
                &builtin
            }
        };
        declare_mapped_humanoid(&mut document, rig, &mut mapped)?;
    }
    let from_vrm_file = matches!(source, Format::Vrm1 | Format::Vrm0 | Format::Vrma);
    let (document, prepared) =
        vrm::convert::prepare(document, from_vrm_file, target, &options.vrm)?;
    let mut diagnostics = document.diagnostics().clone();
    diagnostics.extend(mapped);
    diagnostics.extend(prepared);
    let written = match target {
        Format::Gltf => document.write_gltf_with(output, &[input], options.force)?,
        _ => document.write_glb(output, &[input])?,
    };
    diagnostics.extend(written.diagnostics);
    Ok(ConvertReport {
        format: target,
        bytes_written: written.bytes,
        files: written.files,
        diagnostics,
    })
}

/// `--normalize`: the rig mapped when it declares no humanoid, its rest rebased on the
/// canonical T-pose, every clip rewritten to keep its world motion (see
/// [`gltf::rest::normalize_document`]); the figures go to the diagnostics.
fn normalize_rest(
    document: gltf::Document,
    input: &Path,
    mapping: Option<&RigMapping>,
    options: &gltf::rest::NormalizeOptions,
    diagnostics: &mut Diagnostics,
) -> Result<gltf::Document, Error> {
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
    Ok(normalized.document)
}

fn output_is(path: &Path, extension: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
}

/// Conversions that go through the canonical model (a BVH in or out): read the asset, write
/// its skeleton and clips in the target format.
fn convert_through_model(
    input: &Path,
    output: &Path,
    options: &ConvertOptions,
) -> Result<ConvertReport, Error> {
    if options.normalize.is_some() {
        return Err(Error::unsupported(format!(
            "{}: --normalize rebases the skeleton of a glTF-family output (.glb, .gltf, .vrm), not of {}",
            input.display(),
            output.display()
        )));
    }
    let target = match options.to {
        Some(format) => format,
        None => Format::for_output(output, None)?,
    };
    let Model {
        mut asset,
        sockets,
        meshes,
        mut diagnostics,
        bvh_layout,
    } = read_model(input, target, options)?;
    if target.is_hanim() && options.clip.is_some() {
        // `--clip` keeps that one clip.
        let chosen = crate::model::clip_choice::choose(&asset, options.clip.as_deref(), input)?;
        let index = chosen.index;
        let kept = asset.clips.swap_remove(index);
        asset.clips = vec![kept];
    }
    let generator = concat!("humanoid ", env!("CARGO_PKG_VERSION"));
    let carries_sockets = target.is_hanim() || target == Format::Glb;
    if !carries_sockets {
        crate::ops::sockets::report_dropped(&sockets, &asset, target, &mut diagnostics);
    }
    let mut files = vec![output.to_path_buf()];
    let bytes_written = match target {
        Format::Bvh => {
            if asset.humanoids.is_empty() {
                map_for_bvh(&mut asset, input, &mut diagnostics);
            }
            let rig = asset.rig_only();
            report_rig_only(&asset, &rig, &mut diagnostics);
            let chosen = one_clip(&rig, options.clip.as_deref(), input, "a BVH")?;
            chosen.report(&mut diagnostics);
            let clip = chosen.clip;
            let mut write_options = bvh_write_options(bvh_layout.as_ref(), options.bvh_order);
            if let Some(scale) = options.bvh_write_scale {
                write_options.scale = scale;
                write_options.pick_unit = false;
            }
            let written = crate::formats::bvh::write_with_diagnostics(&rig, clip, &write_options)?;
            diagnostics.extend(written.diagnostics);
            crate::ops::output::write_atomically(output, written.text.as_bytes())?
        }
        Format::Gltf => {
            let model = Model {
                asset,
                sockets,
                meshes,
                diagnostics: Diagnostics::new(),
                bvh_layout: None,
            };
            let built = built_glb(&model)?;
            report_dropped(&built, &mut diagnostics);
            let written = gltf::build::document(&built, output)?.write_gltf_with(
                output,
                &[input],
                options.force,
            )?;
            diagnostics.extend(written.diagnostics);
            files = written.files;
            written.bytes
        }
        Format::Glb => {
            let built = built_glb(&Model {
                asset,
                sockets,
                meshes,
                diagnostics: Diagnostics::new(),
                bvh_layout: None,
            })?;
            report_dropped(&built, &mut diagnostics);
            let written = gltf::build::write_glb(&built, output)?;
            diagnostics.extend(written.diagnostics);
            written.bytes
        }
        Format::Vrma => {
            let chosen = one_clip(&asset, options.clip.as_deref(), input, "a .vrma")?;
            let mut notes = Diagnostics::new();
            chosen.report(&mut notes);
            diagnostics.extend(notes);
            let written = write_vrma(&asset, chosen.clip, input, output, Diagnostics::new())?;
            diagnostics.extend(written.diagnostics);
            written.bytes_written
        }
        Format::X3d | Format::X3dv | Format::Wrl => {
            let hanim_options = crate::formats::hanim::WriteOptions {
                sockets,
                meshes,
                generator: generator.to_owned(),
                ..crate::formats::hanim::WriteOptions::default()
            };
            let written =
                crate::formats::hanim::write_with_diagnostics(&asset, target, &hanim_options)?;
            diagnostics.extend(written.diagnostics);
            crate::ops::output::write_atomically(output, written.text.as_bytes())?
        }
        Format::GodotBoneMap => {
            let mut asset = asset;
            if asset.humanoids.is_empty() {
                crate::mapping::map_humanoid(&mut asset, input, None)?.note("", &mut diagnostics);
            }
            let (text, notes) = crate::formats::godot::asset_bone_map_tres(&asset)?;
            diagnostics.extend(notes);
            crate::ops::output::write_atomically(output, text.as_bytes())?
        }
        Format::GodotProfile => {
            diagnostics.info(
                "GODOT_PROFILE_CANONICAL",
                "",
                "the canonical SkeletonProfileHumanoid (Godot's, thumbs at 45°) is written; the input's proportions are not used",
            );
            let text = crate::formats::godot::canonical_profile_tres();
            crate::ops::output::write_atomically(output, text.as_bytes())?
        }
        other => {
            return Err(Error::unsupported(format!(
                "writing {other} from {} is not built yet",
                input.display()
            )))
        }
    };
    Ok(ConvertReport {
        format: target,
        bytes_written,
        files,
        diagnostics,
    })
}

/// How a BVH output is written: a BVH input's layout (its channels, End Sites, frame time and
/// unit) when there is one, so BVH → BVH writes the same file back; `--bvh-order` replaces its
/// channel orders but keeps its frame time.
fn bvh_write_options(
    layout: Option<&crate::formats::bvh::BvhLayout>,
    order: Option<crate::formats::bvh::EulerOrder>,
) -> crate::formats::bvh::WriteOptions {
    use crate::formats::bvh::WriteOptions;
    match (layout, order) {
        (Some(layout), None) => WriteOptions::like(layout),
        (Some(layout), Some(order)) => WriteOptions {
            order,
            scale: layout.metres_per_unit(),
            pick_unit: false,
            fps: Some(1.0 / layout.frame_time()),
            ..WriteOptions::default()
        },
        (None, order) => WriteOptions {
            order: order.unwrap_or_default(),
            ..WriteOptions::default()
        },
    }
}

/// A file read into the canonical model, with what travels beside it.
struct Model {
    asset: crate::model::Asset,
    /// H-Anim Sites, glTF virtual transforms, a VRM's gaze origin.
    sockets: Vec<crate::model::socket::Socket>,
    /// An H-Anim file's skin or segment shapes; a glTF file's meshes at its rest (for an H-Anim
    /// output).
    meshes: Vec<crate::model::mesh::SkinnedMesh>,
    diagnostics: Diagnostics,
    /// A BVH input's channels, End Sites, frame time and unit, to write the same file back.
    bvh_layout: Option<crate::formats::bvh::BvhLayout>,
}

/// Reads `input` into the model for a `target` written from it, mapped by `--map` when given.
/// Sockets (H-Anim Sites, glTF virtual transforms, a VRM's gaze origin) travel to an H-Anim
/// output as sites and to a GLB as virtual transforms (an H-Anim file's skin and segment meshes,
/// with their materials and texture coordinates, to a GLB too; a glTF file's meshes, placed at
/// its rest, to an H-Anim output).
fn read_model(input: &Path, target: Format, options: &ConvertOptions) -> Result<Model, Error> {
    let read_options = crate::ops::read::CharacterOptions {
        read: crate::ops::read::ReadOptions {
            bvh_scale: options.bvh_read_scale,
        },
        meshes: if target.is_hanim() {
            crate::ops::read::MeshDetail::Rest
        } else {
            crate::ops::read::MeshDetail::None
        },
        strict_sockets: true,
    };
    let crate::ops::read::ReadCharacter {
        character,
        diagnostics,
        ..
    } = crate::ops::read::read_character(input, &read_options)?;
    let mut read = crate::model::asset::ReadOutcome {
        asset: character.asset,
        diagnostics,
    };
    let bvh_layout = character
        .carry
        .get::<crate::formats::bvh::BvhLayout>()
        .cloned();
    if input_format(input)?.is_gltf_family() && target.is_hanim() {
        morph_weight_tracks(&mut read.asset, &character.meshes, &character.mesh_nodes);
    }
    let (sockets, meshes) = (character.sockets, character.meshes);
    if target.is_hanim() {
        if !input_format(input)?.is_hanim() {
            map_for_hanim(
                &mut read.asset,
                input,
                options.mapping.as_ref(),
                &mut read.diagnostics,
            )?;
        }
    } else if let Some(mapping) = &options.mapping {
        mapping
            .attach(&mut read.asset, input)?
            .note("", &mut read.diagnostics);
    }
    Ok(Model {
        asset: read.asset,
        sockets,
        meshes,
        diagnostics: read.diagnostics,
        bvh_layout,
    })
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
fn morph_weight_tracks(
    asset: &mut crate::model::Asset,
    meshes: &[crate::model::mesh::SkinnedMesh],
    mesh_nodes: &[Option<crate::model::JointId>],
) {
    use crate::model::clip::{Clip, Property, TrackTarget};
    for clip in &mut asset.clips {
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

/// A GLB built from the model: its skeleton, humanoids, every mesh (with its morph targets)
/// and clips, its sockets as virtual transforms (the built nodes are the skeleton's joints in
/// order, then one node per mesh).
fn built_glb(model: &Model) -> Result<gltf::build::Built, Error> {
    let mut built = gltf::build::build(&gltf::build::Scene {
        skeleton: &model.asset.skeleton,
        humanoids: &model.asset.humanoids,
        meshes: &model.meshes,
        clips: &model.asset.clips,
        generator: concat!("humanoid ", env!("CARGO_PKG_VERSION")),
        skin_without_mesh: true,
    })?;
    if !model.sockets.is_empty() {
        let name = gltf::virtual_transform::NAME;
        built.json["extensions"][name] =
            gltf::virtual_transform::to_json(&model.sockets, |joint| joint.index());
        match built.json["extensionsUsed"].as_array_mut() {
            Some(used) => used.push(name.into()),
            None => built.json["extensionsUsed"] = serde_json::json!([name]),
        }
    }
    Ok(built)
}

/// Reports what a built document left out (textures of an image type glTF does not hold).
fn report_dropped(built: &gltf::build::Built, diagnostics: &mut Diagnostics) {
    for message in &built.dropped {
        diagnostics.warn("GLTF_TEXTURE_DROPPED", "", message.clone());
    }
}

/// Maps the rig of a document that declares no humanoid and declares the result with
/// `EXT_skeleton_humanoid` (reporting how, what is missing, and a rest that is not a T-pose).
fn declare_mapped_humanoid(
    document: &mut gltf::Document,
    rig: &RigMapping,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let mut asset = gltf::humanoid::asset_from_document(document)?.asset;
    let path = document.path().to_path_buf();
    let mapped = crate::mapping::map_humanoid(&mut asset, &path, Some(rig))?;
    let Some(humanoid) = asset.humanoids.first() else {
        return Err(Error::unsupported(format!(
            "{}: the mapping found no humanoid (map it with --map TABLE)",
            path.display()
        )));
    };
    let Some(hips) = humanoid.bones.get(HumanBone::Hips) else {
        return Err(Error::unsupported(format!(
            "{}: the mapping has no hips, so no humanoid skeleton can be declared (map it with --map TABLE)",
            path.display()
        )));
    };
    let root = asset.skeleton.ancestors(hips).last().unwrap_or(hips);
    let def = SkeletonDef {
        root_node: asset.source_index(root),
        bones: humanoid
            .bones
            .iter()
            .map(|(bone, joint)| (bone, asset.source_index(joint)))
            .collect(),
    };
    ext::declare(document, def);
    let message = format!("EXT_skeleton_humanoid added, {}", mapped.line());
    diagnostics.info("EXT_MAPPED", format!("/extensions/{}", ext::NAME), message);
    if let Some(degrees) = arm_droop(&asset, &humanoid.bones) {
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

/// A VRMA from a glTF-family document: its humanoid (by the one mapping policy,
/// [`crate::mapping::map_humanoid`]), one clip ([`one_clip`]), as a VRMA that plays
/// ([`crate::ops::vrma_out::vrma_asset`]: rebased on the T-pose facing +Z where the rest is not).
fn vrma_from_document(
    document: &gltf::Document,
    input: &Path,
    output: &Path,
    options: &ConvertOptions,
    mut diagnostics: Diagnostics,
) -> Result<ConvertReport, Error> {
    let read = vrm::asset_from_document(document)?;
    let mut asset = read.asset;
    diagnostics.extend(read.diagnostics);
    crate::mapping::map_humanoid(&mut asset, input, options.mapping.as_ref())
        .map_err(|e| {
            Error::unsupported(format!(
                "{}: a .vrma holds a humanoid clip, and this rig maps to no humanoid ({e}); map it with --map TABLE or --map FILE.toml",
                input.display()
            ))
        })?
        .note("", &mut diagnostics);
    let chosen = one_clip(&asset, options.clip.as_deref(), input, "a .vrma")?;
    chosen.report(&mut diagnostics);
    write_vrma(&asset, chosen.clip, input, output, diagnostics)
}

/// Writes `clip` of `asset` as a VRMA that plays (see [`crate::ops::vrma_out`]).
fn write_vrma(
    asset: &crate::model::Asset,
    clip: &crate::model::clip::Clip,
    input: &Path,
    output: &Path,
    mut diagnostics: Diagnostics,
) -> Result<ConvertReport, Error> {
    let in_file = |e: Error| match e {
        Error::Unsupported { message } => {
            Error::unsupported(format!("{}: {message}", input.display()))
        }
        other => other,
    };
    let vrma = crate::ops::vrma_out::vrma_asset(asset, clip, &mut diagnostics).map_err(in_file)?;
    let generator = concat!("humanoid ", env!("CARGO_PKG_VERSION"));
    let built = vrm::vrma::build(&vrma, generator, &mut diagnostics).map_err(in_file)?;
    let written = gltf::build::write_glb(&built, output)?;
    diagnostics.extend(written.diagnostics);
    Ok(ConvertReport {
        format: Format::Vrma,
        bytes_written: written.bytes,
        files: written.files,
        diagnostics,
    })
}

/// The one clip a single-clip output (`what`: "a .vrma", "a BVH") holds: `--clip`, else the one
/// [`crate::model::clip_choice::choose`] takes.
///
/// # Errors
/// The input has no clip, or none of that name (the message lists them).
fn one_clip<'a>(
    asset: &'a crate::model::Asset,
    name: Option<&str>,
    input: &Path,
    what: &str,
) -> Result<crate::model::clip_choice::ChosenClip<'a>, Error> {
    if asset.clips.is_empty() {
        return Err(Error::unsupported(format!(
            "{}: {what} holds one clip, and this file has none",
            input.display()
        )));
    }
    crate::model::clip_choice::choose(asset, name, input)
}

/// `--clip` picks the clip of a single-clip output (`.vrma`, `.bvh`) or the one clip an H-Anim
/// output keeps; a glTF-family output keeps every clip as it is and a Godot `.tres` holds none,
/// so there it is refused rather than ignored.
fn check_clip_option(output: &Path, options: &ConvertOptions) -> Result<(), Error> {
    if options.clip.is_none() {
        return Ok(());
    }
    let target = match options.to {
        Some(format) => format,
        None => match Format::for_output(output, None) {
            Ok(format) => format,
            Err(_) => return Ok(()),
        },
    };
    if matches!(target, Format::Vrma | Format::Bvh) || target.is_hanim() {
        return Ok(());
    }
    Err(Error::unsupported(format!(
        "--clip: a {target} output keeps every clip of the input as it is (a .tres none); --clip picks the one clip of a .vrma or .bvh output, or the one clip an H-Anim output keeps: leave it out (retarget --clip writes one clip onto a model)"
    )))
}

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
    if output.exists() && !force {
        return Err(Error::unsupported(format!(
            "{}: the output exists; pass --force to replace it",
            output.display()
        )));
    }
    Ok(())
}

/// Reports the joints [`Asset::rig_only`](crate::model::asset::Asset::rig_only) left out, by name.
pub(crate) fn report_rig_only(
    asset: &crate::model::asset::Asset,
    rig: &crate::model::asset::Asset,
    diagnostics: &mut Diagnostics,
) {
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
