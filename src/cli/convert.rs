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
        writeln!(
            out,
            "wrote {} ({}, {} bytes)",
            output.display(),
            report.format,
            report.bytes_written
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
