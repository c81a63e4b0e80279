//! `humanoid demo [-o DIR]`: writes the bundled mannequin (and, with the `preview` feature,
//! GIFs of its clips in `DIR/preview/`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use super::CliError;

pub fn run(out: &mut impl Write, dir: &Path, force: bool) -> Result<ExitCode, CliError> {
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
