//! `convert`: read a file, write it in another format, report what had to change.
//!
//! glTF-family to glTF-family conversions (`.gltf` ↔ `.glb`, `.vrm` → `.vrm`, VRM ↔ glTF with
//! `EXT_skeleton_humanoid`) go through the lossless document layer: every node, mesh, material,
//! texture, animation, extension and extra is kept, and the binary data pass through untouched;
//! what the VRM adapter adds or removes is listed in [`crate::formats::vrm::convert`]. Outputs are written to a temporary
//! file in the output's folder and renamed into place; the input is never written.

use std::path::Path;

use serde::Serialize;

use crate::asset::input_format;
use crate::error::{Diagnostics, Error};
use crate::formats::{gltf, vrm, Format};

/// How to convert.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// The output format; `None` lets the output extension decide.
    pub to: Option<Format>,
    /// Replace an existing output file.
    pub force: bool,
    /// VRM-related options (strip the VRM extensions, meta for a new VRM).
    pub vrm: vrm::convert::VrmOptions,
}

/// What a conversion did.
#[derive(Debug, Clone, Serialize)]
pub struct ConvertReport {
    /// The format written.
    pub format: Format,
    /// The size of the output file.
    pub bytes_written: u64,
    /// What was dropped, approximated or found along the way.
    pub diagnostics: Diagnostics,
}

impl Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Converts `input` into `output`.
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
    if !source.is_gltf_family() {
        return Err(Error::unsupported(format!(
            "{}: reading {source} files is not built yet",
            input.display()
        )));
    }
    let document = gltf::Document::open(input)?;
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
    if target == Format::Vrma && vrm_version != Some(Format::Vrma) {
        return write_vrma(&document, output);
    }
    let from_vrm_file = matches!(source, Format::Vrm1 | Format::Vrm0 | Format::Vrma);
    let (document, prepared) =
        vrm::convert::prepare(document, from_vrm_file, target, &options.vrm)?;
    let mut diagnostics = document.diagnostics().clone();
    diagnostics.extend(prepared);
    let written = match target {
        Format::Gltf => document.write_gltf(output, &[])?,
        _ => document.write_glb(output, &[])?,
    };
    diagnostics.extend(written.diagnostics);
    Ok(ConvertReport {
        format: target,
        bytes_written: written.bytes,
        diagnostics,
    })
}

/// VRMA from the canonical model: the humanoid and its clips.
fn write_vrma(document: &gltf::Document, output: &Path) -> Result<ConvertReport, Error> {
    let read = vrm::asset_from_document(document)?;
    let mut diagnostics = read.diagnostics;
    let generator = concat!("humanoid ", env!("CARGO_PKG_VERSION"));
    let built = vrm::vrma::build(&read.asset, generator, &mut diagnostics)
        .map_err(|e| Error::unsupported(format!("{}: {e}", document.path().display())))?;
    let written = gltf::build::write_glb(&built, output)?;
    diagnostics.extend(written.diagnostics);
    Ok(ConvertReport {
        format: Format::Vrma,
        bytes_written: written.bytes,
        diagnostics,
    })
}

fn check_output_path(input: &Path, output: &Path, force: bool) -> Result<(), Error> {
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
