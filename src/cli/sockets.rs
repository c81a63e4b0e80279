//! `humanoid sockets FILE [--clip NAME] [--time T] [--vt-mode aligned|frozen] [--json]`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use humanoid::pose::socket::VtMode;
use humanoid::sockets::SocketOptions;

use super::{print_diagnostics, write_json, CliError};

/// The arguments of `sockets`.
#[derive(Debug, clap::Args)]
pub struct SocketsArgs {
    /// A glTF, GLB or VRM file.
    file: PathBuf,
    /// The clip to pose (default: the first; only with --time).
    #[arg(long, value_name = "NAME")]
    clip: Option<String>,
    /// Pose the clip at this time in seconds (default: the rest pose).
    #[arg(long, value_name = "T", value_parser = super::finite_seconds)]
    time: Option<f32>,
    /// Offsets whose parent rotation is not respected: `aligned` to the world axes (the
    /// default) or `frozen` at the parent's rest rotation.
    #[arg(long, value_name = "aligned|frozen", value_enum, default_value_t = Mode::Aligned)]
    vt_mode: Mode,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// `--vt-mode`: how an unrespected parent rotation reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    // The world axes.
    Aligned,
    // The parent's rest rotation.
    Frozen,
}

impl SocketsArgs {
    /// The library's options.
    pub fn options(&self) -> SocketOptions {
        SocketOptions {
            clip: self.clip.clone(),
            time: self.time,
            mode: match self.vt_mode {
                Mode::Aligned => VtMode::Aligned,
                Mode::Frozen => VtMode::Frozen,
            },
        }
    }

    /// Poses the sockets and prints where they are.
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        let report = humanoid::sockets::sockets(&self.file, &self.options())?;
        if self.json {
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
}
