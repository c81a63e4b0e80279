//! One read for every command: a file of any supported format into the canonical model
//! ([`Asset`]), with the diagnostics found on the way. The format comes from the extension
//! ([`Format::for_input`]) and, for the glTF family, the content.

use std::path::Path;

use crate::error::Error;
use crate::formats;
#[cfg(doc)]
use crate::model::asset::Asset;
use crate::model::asset::ReadOutcome;
use crate::model::Format;

/// Reads any supported file into the canonical model; the format is recognised from the
/// content (GLB magic, glTF JSON) and the extension.
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
