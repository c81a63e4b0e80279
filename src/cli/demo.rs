//! `humanoid demo [-o DIR]`: writes the bundled mannequin (and, with the `preview` feature,
//! GIFs of its clips in `DIR/preview/`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::CliError;

/// The arguments of `demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Output folder.
    #[arg(short, long, default_value = "humanoid-demo")]
    out: PathBuf,
    /// Replace existing files.
    #[arg(long)]
    force: bool,
}

impl DemoArgs {
    /// Writes the mannequin (and its previews) and prints each file written.
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        let (dir, force) = (&self.out, self.force);
        let written = humanoid::demo::write_demo(dir, force)?;
        for file in written {
            writeln!(out, "wrote {}", file.display())?;
        }
        #[cfg(feature = "preview")]
        {
            let (written, diagnostics) = humanoid::demo::write_previews(dir, force)?;
            super::print_diagnostics(out, &diagnostics)?;
            for file in written {
                writeln!(out, "wrote {}", file.display())?;
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}
