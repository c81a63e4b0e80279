//! One read for every command: a file of any supported format into the canonical model
//! ([`Asset`]), with the diagnostics found on the way. The format comes from the extension
//! ([`Format::for_input`]) and, for the glTF family, the content.

use std::path::Path;

use crate::error::{Diagnostics, Error};
use crate::formats;
#[cfg(doc)]
use crate::model::asset::Asset;
use crate::model::asset::ReadOutcome;
use crate::model::{Carry, Character, Format};

/// Reads any supported file into the canonical model; the format is recognised from the
/// content (GLB magic, glTF JSON) and the extension.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// humanoid::demo::write_demo(dir.path(), false)?;
/// let read = humanoid::read(&dir.path().join("mannequin.glb"))?;
/// assert_eq!(read.asset.format, humanoid::formats::Format::Glb);
/// assert_eq!(read.asset.humanoids.len(), 1); // its EXT_skeleton_humanoid
/// assert!(!read.asset.clips.is_empty());
/// for diagnostic in &read.diagnostics {
///     eprintln!("{diagnostic}");
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// The file cannot be read, is invalid, or is in a format that has no reader yet (the message
/// names it).
pub fn read(path: &Path) -> Result<ReadOutcome, Error> {
    read_with(path, &ReadOptions::default())
}

/// Options for readers of formats that leave things open.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReadOptions {
    /// BVH: metres per file unit (`None`: detected from the hips height, and reported).
    pub bvh_scale: Option<f64>,
}

/// As [`read`], with options. A BVH rig, which declares no humanoid, is mapped by the
/// built-in tables or the auto-mapper when it can be (reported either way).
///
/// # Errors
/// As [`read`].
pub fn read_with(path: &Path, options: &ReadOptions) -> Result<ReadOutcome, Error> {
    match input_format(path)? {
        format if format.is_gltf_family() => formats::vrm::read_asset(path),
        Format::Bvh => read_bvh_with_layout(path, options).map(|(outcome, _)| outcome),
        Format::X3d | Format::X3dv | Format::Wrl => {
            formats::hanim::read_asset(path, &formats::hanim::ReadOptions::default())
        }
        other => Err(Error::unsupported(format!(
            "{}: reading {other} files is not built yet",
            path.display()
        ))),
    }
}

/// Reads a BVH file as [`read_with`] does (its rig mapped), with the
/// [`BvhLayout`](formats::bvh::BvhLayout) that writes its channels, End Sites, frame time and
/// unit back.
///
/// # Errors
/// As [`read`].
pub fn read_bvh_with_layout(
    path: &Path,
    options: &ReadOptions,
) -> Result<(ReadOutcome, formats::bvh::BvhLayout), Error> {
    let bvh_options = formats::bvh::ReadOptions {
        scale: options.bvh_scale,
        ..formats::bvh::ReadOptions::default()
    };
    let (mut outcome, layout) = formats::bvh::read_asset_with_layout(path, &bvh_options)?;
    map_rig(&mut outcome, path);
    Ok((outcome, layout))
}

/// Gives a rig that declares no humanoid its mapping by the one policy
/// ([`crate::mapping::map_humanoid`]), with its line; a rig that is not a humanoid keeps none,
/// with the reason.
fn map_rig(outcome: &mut ReadOutcome, path: &Path) {
    match crate::mapping::map_humanoid(&mut outcome.asset, path, None) {
        Ok(mapped) => mapped.note("", &mut outcome.diagnostics),
        Err(e) => outcome
            .diagnostics
            .info("HUMANOID_NOT_MAPPED", "", e.to_string()),
    }
}

/// The format of an input file, from its extension (glTF family: refined from the content by
/// the glTF reader): [`Format::for_input`].
///
/// # Errors
/// An extension no format claims.
pub fn input_format(path: &Path) -> Result<Format, Error> {
    Format::for_input(path)
}

/// Which meshes [`read_character`] reads.
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

/// What [`read_character`] reads beside the asset.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CharacterOptions {
    /// The readers' options (BVH unit).
    pub read: ReadOptions,
    /// Which meshes.
    pub meshes: MeshDetail,
    /// Invalid sockets (KHR_virtual_transform data) fail the read; otherwise the character
    /// comes back without them and [`ReadCharacter::socket_error`] says why.
    pub strict_sockets: bool,
}

/// A [`Character`] and the diagnostics found while reading it.
#[derive(Debug, Clone)]
pub struct ReadCharacter {
    /// What was read. Its [`Character::carry`] holds the glTF
    /// [`Document`](formats::gltf::Document) of a glTF-family file, the
    /// [`BvhLayout`](formats::bvh::BvhLayout) of a BVH file.
    pub character: Character,
    /// What was dropped, guessed or found wrong.
    pub diagnostics: Diagnostics,
    /// Why the sockets were left out, when they were invalid and the read was not strict.
    pub socket_error: Option<String>,
}

/// Reads a whole character, the one read behind `convert`, `preview` and `sockets`: the asset
/// as [`read_with`] gives it, the meshes asked for, the sockets (glTF virtual transforms and
/// a VRM's gaze origin, H-Anim Sites) and the adapter's carry-along.
///
/// ```
/// use humanoid::ops::read::{read_character, CharacterOptions, MeshDetail};
///
/// let dir = tempfile::tempdir()?;
/// humanoid::demo::write_demo(dir.path(), false)?;
/// let options = CharacterOptions { meshes: MeshDetail::Bind, ..CharacterOptions::default() };
/// let read = read_character(&dir.path().join("mannequin.glb"), &options)?;
/// let character = read.character;
/// assert!(!character.meshes.is_empty());
/// assert_eq!(character.meshes.len(), character.mesh_nodes.len());
/// assert!(character.carry.get::<humanoid::formats::gltf::Document>().is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`read`]; a mesh cannot be read; with `strict_sockets`, invalid sockets.
pub fn read_character(path: &Path, options: &CharacterOptions) -> Result<ReadCharacter, Error> {
    let format = input_format(path)?;
    let mut socket_error = None;
    if format.is_gltf_family() {
        let document = formats::gltf::Document::open(path)?;
        let outcome = formats::vrm::asset_from_document(&document)?;
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
            MeshDetail::Bind => formats::gltf::bind_meshes::bind_meshes_with_nodes(
                &document,
                asset,
                &mut diagnostics,
            )?
            .into_iter()
            .map(|(mesh, node)| (mesh, Some(node)))
            .unzip(),
        };
        character.meshes = meshes;
        character.mesh_nodes = nodes;
        match crate::ops::sockets::sockets_of(&document, &character.asset, &mut diagnostics) {
            Ok(sockets) => character.sockets = sockets,
            Err(e) if options.strict_sockets => return Err(e),
            Err(e) => socket_error = Some(e.to_string()),
        }
        character.carry = Carry::new(document);
        return Ok(ReadCharacter {
            character,
            diagnostics,
            socket_error,
        });
    }
    if format.is_hanim() {
        let (outcome, extras) =
            formats::hanim::read_asset_with_extras(path, &formats::hanim::ReadOptions::default())?;
        let mut character = Character::new(outcome.asset);
        character.mesh_nodes = vec![None; extras.meshes.len()];
        character.meshes = extras.meshes;
        character.sockets = extras.sockets;
        return Ok(ReadCharacter {
            character,
            diagnostics: outcome.diagnostics,
            socket_error,
        });
    }
    if format == Format::Bvh {
        let (outcome, layout) = read_bvh_with_layout(path, &options.read)?;
        let mut character = Character::new(outcome.asset);
        character.carry = Carry::new(layout);
        return Ok(ReadCharacter {
            character,
            diagnostics: outcome.diagnostics,
            socket_error,
        });
    }
    let outcome = read_with(path, &options.read)?;
    Ok(ReadCharacter {
        character: Character::new(outcome.asset),
        diagnostics: outcome.diagnostics,
        socket_error,
    })
}
