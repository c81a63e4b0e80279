//! `humanoid validate FILE [--json]`: exit 1 when any error-severity diagnostic is found.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::{print_diagnostics, write_json, CliError};

/// The arguments of `validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The file to check.
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

impl ValidateArgs {
    /// Checks the file and prints what was found.
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        let (file, json) = (&self.file, self.json);
        let diagnostics = humanoid::inspect::validate(file)?;
        let errors = diagnostics
            .iter()
            .filter(|d| d.severity == humanoid::Severity::Error)
            .count();
        if json {
            write_json(
                out,
                &serde_json::json!({
                    "file": file.display().to_string(),
                    "valid": errors == 0,
                    "diagnostics": diagnostics,
                }),
            )?;
        } else {
            print_diagnostics(out, &diagnostics)?;
            let warnings = diagnostics.len() - errors;
            writeln!(
                out,
                "{}: {} ({errors} errors, {warnings} warnings and notes)",
                file.display(),
                if errors == 0 { "valid" } else { "INVALID" },
            )?;
        }
        Ok(if errors == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    }
}
