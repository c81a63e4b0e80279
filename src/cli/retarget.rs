//! `humanoid retarget ANIM --onto MODEL -o OUT [--clip NAME] [--fps N] [--as nodes|ext] [--map …]`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use humanoid::retarget::RetargetOptions;

use super::{print_diagnostics, write_json, CliError};

pub fn run(
    out: &mut impl Write,
    anim: &Path,
    model: &Path,
    output: &Path,
    options: &RetargetOptions,
    json: bool,
) -> Result<ExitCode, CliError> {
    let report = humanoid::retarget::retarget(anim, model, output, options)?;
    if json {
        write_json(out, &report)?;
    } else {
        print_diagnostics(out, &report.diagnostics)?;
        super::convert::print_wrote(out, output, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}
