//! `humanoid convert IN OUT [--to FORMAT] [--force] [--json]`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use humanoid::convert::ConvertOptions;
use humanoid::formats::Format;

use super::{print_diagnostics, write_json, CliError};

pub fn run(
    out: &mut impl Write,
    input: &Path,
    output: &Path,
    to: Option<&str>,
    force: bool,
    json: bool,
) -> Result<ExitCode, CliError> {
    let options = ConvertOptions {
        to: to.map(str::parse::<Format>).transpose()?,
        force,
    };
    let report = humanoid::convert::convert(input, output, &options)?;
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
