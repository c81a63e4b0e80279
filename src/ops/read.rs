//! The one read: a file of any supported format (or its bytes) into a whole [`Character`], with
//! the diagnostics found on the way. The format comes from the extension
//! ([`Format::for_input`]) and, for the glTF family, the content. Every command reads through
//! here: `convert`, `retarget`, `inspect`, `pose`, `sockets`, `preview`.

use std::path::Path;

use crate::error::{Diagnostics, Error, Location};
use crate::formats;
use crate::mapping::RigMapping;
use crate::model::asset::{Asset, HumanoidSkeleton, ReadOutcome};
use crate::model::{BoneMap, Carry, Character, Format, HumanBone};

pub use crate::formats::gltf::humanoid::Clips;

/// Which meshes [`read`] reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MeshDetail {
    /// None from a glTF-family file (the skeleton, clips and sockets only). H-Anim skins and
    /// segments are read with the figure whatever is asked.
    #[default]
    None,
    /// Each glTF mesh placed at the skeleton's rest (what an H-Anim writer needs).
    Rest,
    /// Each glTF mesh in its bind pose with its inverse bind matrices (what skinning needs).
    Bind,
}

/// How [`read`] reads.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// BVH: metres per file unit (`None`: detected from the hips height, and reported).
    pub bvh_scale: Option<f64>,
    /// Which meshes.
    pub meshes: MeshDetail,
    /// Map a rig that declares no humanoid by these tables (or the one named), reported as
    /// `HUMANOID_MAPPED`. Without it a BVH rig, which never declares one, is still mapped by the
    /// built-in tables or the auto-mapper when it can be, and other rigs stay unmapped.
    pub mapping: Option<RigMapping>,
    /// Whether a glTF-family file's animations are decoded into clips, or left in the carried
    /// document for a write back to the glTF family ([`Clips::Skip`]: the character then has
    /// no clips, and a write to another family has none to write).
    pub clips: Clips,
    /// Invalid sockets (KHR_virtual_transform data) fail the read; otherwise the character
    /// comes back without them and [`Read::socket_error`] says why.
    pub strict_sockets: bool,
}

/// What [`read`] gives back: a [`Character`] and the diagnostics found while reading it.
#[derive(Debug, Clone)]
pub struct Read {
    /// What was read. Its [`Character::carry`] holds the glTF
    /// [`Document`](formats::gltf::Document) of a glTF-family file, the
    /// [`BvhLayout`](formats::bvh::BvhLayout) of a BVH file.
    pub character: Character,
    /// What was dropped, guessed or found wrong.
    pub diagnostics: Diagnostics,
    /// Why the sockets were left out, when they were invalid and the read was not strict.
    pub socket_error: Option<String>,
}

impl Read {
    /// The asset alone, with the diagnostics.
    pub fn into_outcome(self) -> ReadOutcome {
        ReadOutcome {
            asset: self.character.asset,
            diagnostics: self.diagnostics,
        }
    }
}

/// Reads a whole character: the skeleton, humanoid bone maps, clips, expressions, look-at and
/// meta, the meshes asked for, the sockets (glTF virtual transforms and a VRM's gaze origin,
/// H-Anim Sites) and the adapter's carry-along. The format is recognised from the content
/// (GLB magic, glTF JSON) and the extension; a Godot `.tres` reads as the skeleton of its
/// `SkeletonProfile`.
///
/// ```
/// use humanoid::ops::read::{read, MeshDetail, ReadOptions};
///
/// let dir = tempfile::tempdir()?;
/// humanoid::demo::write_demo(dir.path(), false)?;
/// let options = ReadOptions { meshes: MeshDetail::Bind, ..ReadOptions::default() };
/// let read = read(&dir.path().join("mannequin.glb"), &options)?;
/// let character = read.character;
/// assert_eq!(character.asset.format, humanoid::formats::Format::Glb);
/// assert_eq!(character.asset.humanoids.len(), 1); // its EXT_skeleton_humanoid
/// assert!(!character.asset.clips.is_empty());
/// assert!(!character.meshes.is_empty());
/// assert_eq!(character.meshes.len(), character.mesh_nodes.len());
/// assert!(character.carry.get::<humanoid::formats::gltf::Document>().is_some());
/// for diagnostic in &read.diagnostics {
///     eprintln!("{diagnostic}");
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// The file cannot be read, is invalid, or is in a format that has no reader (the message
/// names it); a mesh cannot be read; with `strict_sockets`, invalid sockets; with a mapping,
/// a rig it cannot map.
pub fn read(path: &Path, options: &ReadOptions) -> Result<Read, Error> {
    let mut read = read_from(Input::File(path), options)?;
    read.character.source = Some(path.to_path_buf());
    Ok(read)
}

/// As [`read`], from bytes in memory (a fuzzer's, a server's, the Python package's): `name`
/// stands for the file, in messages and for its extension. Nothing beside it is read: a
/// `.gltf` whose buffers or images are other files, or an H-Anim texture naming a file, is
/// refused or reported as [`read`] would a missing file.
///
/// ```
/// use std::path::Path;
/// use humanoid::ops::read::{read_bytes, ReadOptions};
///
/// let bvh = b"HIERARCHY\nROOT Hips\n{\n OFFSET 0 90 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n End Site\n {\n  OFFSET 0 10 0\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.033333\n0 0 0\n";
/// let read = read_bytes(bvh, Path::new("pose.bvh"), &ReadOptions::default())?;
/// assert_eq!(read.character.asset.skeleton.len(), 2); // Hips and its End Site
/// assert!(read.character.source.is_none());
/// // The same bytes under a name no format claims are refused.
/// assert!(read_bytes(bvh, Path::new("pose.txt"), &ReadOptions::default()).is_err());
/// # Ok::<(), humanoid::Error>(())
/// ```
///
/// # Errors
/// As [`read`].
pub fn read_bytes(bytes: &[u8], name: &Path, options: &ReadOptions) -> Result<Read, Error> {
    read_from(Input::Bytes { bytes, name }, options)
}

/// The asset alone, read as [`read`] reads it with the default options (no meshes; a BVH rig
/// mapped).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// humanoid::demo::write_demo(dir.path(), false)?;
/// let read = humanoid::read_asset(&dir.path().join("mannequin.glb"))?;
/// assert_eq!(read.asset.humanoids.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`read`].
pub fn read_asset(path: &Path) -> Result<ReadOutcome, Error> {
    read_asset_with(path, &ReadOptions::default())
}

/// As [`read_asset`], with options.
///
/// # Errors
/// As [`read`].
pub fn read_asset_with(path: &Path, options: &ReadOptions) -> Result<ReadOutcome, Error> {
    read(path, options).map(Read::into_outcome)
}

/// The format of an input file, from its extension (glTF family: refined from the content by
/// the glTF reader): [`Format::for_input`].
///
/// # Errors
/// An extension no format claims.
pub fn input_format(path: &Path) -> Result<Format, Error> {
    Format::for_input(path)
}

/// Where a read comes from.
#[derive(Clone, Copy)]
enum Input<'a> {
    File(&'a Path),
    Bytes { bytes: &'a [u8], name: &'a Path },
}

impl<'a> Input<'a> {
    fn name(&self) -> &'a Path {
        match *self {
            Input::File(path) => path,
            Input::Bytes { name, .. } => name,
        }
    }
}

fn read_from(input: Input<'_>, options: &ReadOptions) -> Result<Read, Error> {
    let path = input.name();
    let format = input_format(path)?;
    let mut read = if format.is_gltf_family() {
        read_gltf(input, options)?
    } else if format.is_hanim() {
        read_hanim(input)?
    } else if format == Format::Bvh {
        read_bvh(input, options)?
    } else if format == Format::Fbx {
        read_fbx(input)?
    } else {
        read_godot(input)?
    };
    let character = &mut read.character;
    crate::model::clip_choice::report_static(&character.asset.clips, &mut read.diagnostics);
    if character.asset.humanoids.is_empty() {
        match (&options.mapping, format) {
            (Some(mapping), _) => mapping
                .attach(&mut character.asset, path)?
                .note("", &mut read.diagnostics),
            (None, Format::Bvh | Format::Fbx) => {
                map_rig(&mut character.asset, path, &mut read.diagnostics)
            }
            _ => {}
        }
    }
    Ok(read)
}

/// Gives a rig that declares no humanoid its mapping by the one policy
/// ([`crate::mapping::map_humanoid`]), with its line; a rig that is not a humanoid keeps none,
/// with the reason.
fn map_rig(asset: &mut Asset, path: &Path, diagnostics: &mut Diagnostics) {
    match crate::mapping::map_humanoid(asset, path, None) {
        Ok(mapped) => mapped.note("", diagnostics),
        Err(e) => diagnostics.info("HUMANOID_NOT_MAPPED", "", e.to_string()),
    }
}

/// A glTF, GLB, VRM or VRMA: the document (carried), the asset from it, the meshes asked for
/// and the sockets.
fn read_gltf(input: Input<'_>, options: &ReadOptions) -> Result<Read, Error> {
    let document = match input {
        Input::File(path) => formats::gltf::Document::open(path)?,
        Input::Bytes { bytes, name } => formats::gltf::Document::from_slice(bytes, name, None)?,
    };
    let outcome = formats::vrm::asset_from_document_with(&document, options.clips)?;
    let mut diagnostics = outcome.diagnostics;
    let mut character = Character::new(outcome.asset);
    let asset = &character.asset;
    let (meshes, nodes): (Vec<_>, Vec<_>) = match options.meshes {
        MeshDetail::None => (Vec::new(), Vec::new()),
        MeshDetail::Rest => {
            formats::gltf::meshes::rest_meshes_with_nodes(&document, asset, &mut diagnostics)?
                .into_iter()
                .map(|(mesh, node)| {
                    let joint = (0..asset.skeleton.len())
                        .map(|i| asset.skeleton.joint(i))
                        .find(|&j| asset.source_index(j) == node);
                    (mesh, joint)
                })
                .unzip()
        }
        MeshDetail::Bind => {
            formats::gltf::bind_meshes::bind_meshes_with_nodes(&document, asset, &mut diagnostics)?
                .into_iter()
                .map(|(mesh, node)| (mesh, Some(node)))
                .unzip()
        }
    };
    character.meshes = meshes;
    character.mesh_nodes = nodes;
    if options.meshes != MeshDetail::None && formats::vrm::flavour(&document) == Some(Format::Vrm0)
    {
        vrm0_toon(&document, &mut character);
    }
    let mut socket_error = None;
    match crate::ops::sockets::sockets_of(&document, &character.asset, &mut diagnostics) {
        Ok(sockets) => character.sockets = sockets,
        Err(e) if options.strict_sockets => return Err(e),
        Err(e) => socket_error = Some(e.to_string()),
    }
    character.carry = Carry::new(document);
    Ok(Read {
        character,
        diagnostics,
        socket_error,
    })
}

/// A VRM 0.x file's MToon (`materialProperties`) as its materials' toon parameters, as the
/// migration to 1.0 gives them, where the glTF material has none of its own.
fn vrm0_toon(document: &formats::gltf::Document, character: &mut Character) {
    let toons = formats::vrm::migrate::vrm0_toon(document);
    if toons.is_empty() {
        return;
    }
    for material in character
        .meshes
        .iter_mut()
        .filter_map(|m| m.material.as_mut())
    {
        if material.toon.is_none() {
            if let Some((_, toon)) = toons.iter().find(|(name, _)| *name == material.name) {
                material.toon = Some(toon.clone());
            }
        }
    }
}

/// An H-Anim file (X3D XML, ClassicVRML, VRML97): the figure, its skins and segment shapes
/// (textures from beside a file, `data:` URLs from bytes) and its Sites.
fn read_hanim(input: Input<'_>) -> Result<Read, Error> {
    let options = formats::hanim::ReadOptions::default();
    let (outcome, extras) = match input {
        Input::File(path) => formats::hanim::read_asset_with_extras(path, &options)?,
        Input::Bytes { bytes, name } => formats::hanim::read_with_extras(bytes, name, &options)?,
    };
    let mut character = Character::new(outcome.asset);
    character.mesh_nodes = vec![None; extras.meshes.len()];
    character.meshes = extras.meshes;
    character.sockets = extras.sockets;
    Ok(Read {
        character,
        diagnostics: outcome.diagnostics,
        socket_error: None,
    })
}

/// A BVH file: the skeleton and its one clip, with the layout (carried) that writes its
/// channels, End Sites, frame time and unit back.
fn read_bvh(input: Input<'_>, options: &ReadOptions) -> Result<Read, Error> {
    let bvh_options = formats::bvh::ReadOptions {
        scale: options.bvh_scale,
        ..formats::bvh::ReadOptions::default()
    };
    let (outcome, layout) = match input {
        Input::File(path) => formats::bvh::read_asset_with_layout(path, &bvh_options)?,
        Input::Bytes { bytes, name } => {
            let text = std::str::from_utf8(bytes).map_err(|e| {
                Error::invalid(
                    name,
                    Location::Byte(e.valid_up_to() as u64),
                    "the bytes are not UTF-8 text: a BVH file is text",
                )
            })?;
            formats::bvh::read_with_layout(text, name, &bvh_options)?
        }
    };
    let mut character = Character::new(outcome.asset);
    character.carry = Carry::new(layout);
    Ok(Read {
        character,
        diagnostics: outcome.diagnostics,
        socket_error: None,
    })
}

/// An FBX file (ufbx): the node hierarchy as the skeleton, every animation stack as a clip.
fn read_fbx(input: Input<'_>) -> Result<Read, Error> {
    let read = match input {
        Input::File(path) => formats::fbx::read_file(path)?,
        Input::Bytes { bytes, name } => formats::fbx::read(bytes, name)?,
    };
    let mut character = Character::new(read.outcome.asset);
    character.meshes = read.meshes;
    character.mesh_nodes = read.mesh_nodes;
    Ok(Read {
        character,
        diagnostics: read.outcome.diagnostics,
        socket_error: None,
    })
}

/// A Godot `.tres` holding a `SkeletonProfile` (`SkeletonProfileHumanoid`): its bones as the
/// skeleton (rest = reference pose), mapped by name or as a rig. A `BoneMap` holds names, not a
/// skeleton: it is refused with what to do with it.
fn read_godot(input: Input<'_>) -> Result<Read, Error> {
    let path = input.name();
    let text = match input {
        Input::File(path) => formats::godot::project::read_text(path)?,
        Input::Bytes { bytes, name } => String::from_utf8(bytes.to_vec()).map_err(|e| {
            Error::invalid(
                name,
                Location::Byte(e.utf8_error().valid_up_to() as u64),
                "the bytes are not UTF-8 text: a Godot resource is text",
            )
        })?,
    };
    let document = formats::godot::document::Document::parse(&text, path)?;
    let kind = document.resource_type().unwrap_or_default().to_owned();
    let section = match document.resource() {
        Some(section) if kind.starts_with("SkeletonProfile") => section,
        _ => {
            let found = if kind.is_empty() {
                "no resource type".to_owned()
            } else {
                format!("a {kind}")
            };
            return Err(Error::unsupported(format!(
                "{}: holds {found}; a character is read from a Godot SkeletonProfile(Humanoid) .tres. A BoneMap names a skeleton's bones: use it with --map on the rig it maps",
                path.display()
            )));
        }
    };
    let profile = formats::godot::profile::SkeletonProfile::from_section(section, &document, path)?;
    let mut asset = profile.to_asset(path)?;
    let library = crate::mapping::Library::builtin()?;
    let mapping = profile.mapping(&library, path)?;
    let mut bones = BoneMap::new();
    for (bone, name) in &mapping.bones {
        bones.set(*bone, asset.skeleton.find(name));
    }
    let root = bones
        .get(HumanBone::Hips)
        .map(|hips| asset.skeleton.ancestors(hips).last().unwrap_or(hips));
    asset.humanoids.push(HumanoidSkeleton {
        root,
        bones,
        declared_t_pose: false,
    });
    Ok(Read {
        character: Character::new(asset),
        diagnostics: mapping.diagnostics,
        socket_error: None,
    })
}
