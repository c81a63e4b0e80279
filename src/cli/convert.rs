//! `humanoid convert IN OUT [--to FORMAT] [--force] [--json]`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use humanoid::convert::ConvertOptions;

use super::{print_diagnostics, write_json, CliError};

pub fn run(
    out: &mut impl Write,
    input: &Path,
    output: &Path,
    options: &ConvertOptions,
    json: bool,
) -> Result<ExitCode, CliError> {
    let report = humanoid::convert::convert(input, output, options)?;
    if json {
        write_json(out, &report)?;
    } else {
        print_diagnostics(out, &report.diagnostics)?;
        print_wrote(out, output, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `wrote OUT (format, N bytes)`, and every other file written beside it (a `.gltf`'s `.bin`
/// and images).
pub(super) fn print_wrote(
    out: &mut impl Write,
    output: &Path,
    report: &humanoid::convert::ConvertReport,
) -> Result<(), CliError> {
    write!(
        out,
        "wrote {} ({}, {} bytes)",
        output.display(),
        report.format,
        report.bytes_written
    )?;
    let beside: Vec<String> = report
        .files
        .iter()
        .filter(|f| f.as_path() != output)
        .map(|f| f.display().to_string())
        .collect();
    if !beside.is_empty() {
        write!(out, " and beside it {}", beside.join(", "))?;
    }
    writeln!(out)?;
    Ok(())
}
