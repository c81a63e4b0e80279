//! `humanoid preview FILE -o OUT.png|OUT.gif [--anim ANIM] [--clip NAME] [--time T] [--view V]
//! [--size WxH] [--frames N | --fps F] [--sheet] [--compare OTHER] [--backend B]
//! [--skeleton-only] [--force] [-v]`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use humanoid::preview::PreviewOptions;

use super::{print_diagnostics, CliError};

pub fn run(
    out: &mut impl Write,
    file: &Path,
    output: &Path,
    options: &PreviewOptions,
    verbose: bool,
) -> Result<ExitCode, CliError> {
    let report = humanoid::preview::preview(file, output, options)?;
    print_diagnostics(out, &report.diagnostics)?;
    if verbose {
        match &report.adapter {
            Some(adapter) => writeln!(out, "adapter: {adapter}")?,
            None => writeln!(out, "adapter: none (CPU skeleton drawing)")?,
        }
    }
    writeln!(
        out,
        "wrote {} ({} frame{}, {} bytes)",
        output.display(),
        report.frames,
        if report.frames == 1 { "" } else { "s" },
        report.bytes
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `WxH` as two numbers.
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("--size {text:?}: expected WIDTHxHEIGHT, e.g. 512x512"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("--size {text:?}: expected WIDTHxHEIGHT, e.g. 512x512"))
    };
    Ok((number(w)?, number(h)?))
}
