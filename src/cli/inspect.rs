//! `humanoid inspect FILE [--json]`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use super::{write_json, CliError};

pub fn run(
    out: &mut impl Write,
    file: &Path,
    json: bool,
    mapping: Option<&humanoid::mapping::RigMapping>,
) -> Result<ExitCode, CliError> {
    let inspection = humanoid::inspect::inspect_with(file, mapping)?;
    if json {
        write_json(out, &inspection)?;
    } else {
        inspection.write_text(out)?;
    }
    Ok(ExitCode::SUCCESS)
}
