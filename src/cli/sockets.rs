//! `humanoid sockets FILE [--clip NAME] [--time T] [--vt-mode aligned|frozen] [--json]`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use humanoid::sockets::SocketOptions;

use super::{print_diagnostics, write_json, CliError};

pub fn run(
    out: &mut impl Write,
    file: &Path,
    options: &SocketOptions,
    json: bool,
) -> Result<ExitCode, CliError> {
    let report = humanoid::sockets::sockets(file, options)?;
    if json {
        write_json(out, &report)?;
        return Ok(ExitCode::SUCCESS);
    }
    print_diagnostics(out, &report.diagnostics)?;
    match (&report.clip, report.time) {
        (Some(clip), Some(t)) => writeln!(out, "{}: clip {clip:?} at {t} s", report.file)?,
        _ => writeln!(out, "{}: rest pose", report.file)?,
    }
    if report.sockets.is_empty() {
        writeln!(out, "no sockets (KHR_virtual_transform)")?;
    }
    for socket in &report.sockets {
        let [x, y, z] = socket.position;
        writeln!(
            out,
            "  {:<24} on {:<20} at ({x:.4}, {y:.4}, {z:.4}){}{}",
            socket.name,
            socket.parent.as_deref().unwrap_or("(scene)"),
            socket
                .kind
                .as_deref()
                .map_or_else(String::new, |k| format!("  [{k}]")),
            if socket.sheared {
                "  (shear dropped)"
            } else {
                ""
            }
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
