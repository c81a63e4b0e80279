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
        let diagnostics = match humanoid::inspect::validate(file) {
            Ok(diagnostics) => diagnostics,
            // With --json a file that cannot be read is one error diagnostic, so a program
            // gets its code and place as for any other finding.
            Err(error) if json => {
                let finding = serde_json::json!({
                    "code": error.code(),
                    "severity": "error",
                    "location": place(&error),
                    "message": error.to_string(),
                });
                write_json(
                    out,
                    &serde_json::json!({
                        "file": file.display().to_string(),
                        "valid": false,
                        "diagnostics": [finding],
                    }),
                )?;
                return Ok(ExitCode::from(1));
            }
            Err(error) => return Err(error.into()),
        };
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

/// An error's place as a diagnostic gives it: `byte 12`, `/nodes/3`, `3:14`, or empty.
fn place(error: &humanoid::Error) -> String {
    use humanoid::error::Location;
    match error.location() {
        Some(Location::Byte(offset)) => format!("byte {offset}"),
        Some(Location::JsonPointer(pointer)) => pointer.clone(),
        Some(Location::LineColumn { line, column }) => format!("{line}:{column}"),
        _ => String::new(),
    }
}
