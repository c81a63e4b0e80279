//! `convert`: read a file, write it in another format, report what had to change.
//!
//! glTF-family to glTF-family conversions (`.gltf` ↔ `.glb`, `.vrm` → `.vrm`) go through the
//! lossless document layer: every node, mesh, material, texture, animation, extension and extra
//! is kept, and the binary data pass through untouched. Outputs are written to a temporary
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
        None => Format::for_output(output, vrm_version)?,
    };
    if !target.is_gltf_family() {
        return Err(Error::unsupported(format!(
            "writing {target} files is not built yet (asked for {})",
            output.display()
        )));
    }
    let vrm_target = matches!(target, Format::Vrm1 | Format::Vrm0 | Format::Vrma);
    if vrm_target && vrm_version != Some(target) {
        let found = vrm_version.map_or_else(|| "plain glTF".to_owned(), |f| f.to_string());
        return Err(Error::unsupported(format!(
            "writing {target} from {} ({found}) is not built yet: only a {target} file can be written back as {target}",
            input.display()
        )));
    }
    let mut diagnostics = document.diagnostics().clone();
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
