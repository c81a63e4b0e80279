//! `humanoid preview FILE -o OUT.png|OUT.gif [--anim ANIM] [--clip NAME] [--time T] [--view V]
//! [--size WxH] [--frames N | --fps F] [--sheet] [--compare OTHER] [--backend B]
//! [--skeleton-only] [--force] [-v]`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use humanoid::preview::{Backend, Frames, PreviewOptions, SkeletonOverlay, View};

use super::{print_diagnostics, CliError};

/// The arguments of `preview`.
#[derive(Debug, clap::Args)]
pub struct PreviewArgs {
    /// The character: any file the library reads.
    file: PathBuf,
    /// The picture: `.png` (one frame, or a sheet with --sheet) or `.gif` (animated).
    #[arg(short, long, value_name = "OUT.png|OUT.gif")]
    out: PathBuf,
    /// Play this file's clip retargeted onto the character (a VRMA, another character, ...).
    #[arg(long, value_name = "ANIM")]
    anim: Option<PathBuf>,
    /// The clip to play (default: the first).
    #[arg(long, value_name = "NAME")]
    clip: Option<String>,
    /// A still picture's time in seconds (default: 0 with a clip, else the rest pose).
    #[arg(long, value_name = "T")]
    time: Option<f32>,
    /// Where the camera looks from: front, side or three-quarter.
    #[arg(long, value_name = "VIEW", value_enum, default_value_t = ViewArg::Front)]
    view: ViewArg,
    /// Picture size (each panel's with --compare).
    #[arg(long, value_name = "WxH", default_value = "512x512", value_parser = parse_size)]
    size: (u32, u32),
    /// Frames of a GIF or sheet, spread over the clip (default: 15 per second; a sheet: 8).
    #[arg(long, value_name = "N", conflicts_with = "fps")]
    frames: Option<u32>,
    /// Frames per second of clip, for a GIF or sheet.
    #[arg(long, value_name = "F")]
    fps: Option<f32>,
    /// Write a contact sheet of frames into the PNG.
    #[arg(long)]
    sheet: bool,
    /// Draw OTHER to the right, playing the same clip retargeted onto it.
    #[arg(long, value_name = "OTHER")]
    compare: Option<PathBuf>,
    /// Graphics API: vulkan, gl or auto (WGPU_BACKEND, else Vulkan, else GL).
    #[arg(long, value_name = "vulkan|gl|auto", value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// Draw the skeleton on the CPU (no GPU needed; no meshes).
    #[arg(long)]
    skeleton_only: bool,
    /// Draw the skeleton and sockets over the meshes (default: only over a character that
    /// has no mesh, so a face is not covered).
    #[arg(long, conflicts_with_all = ["skeleton_only", "no_skeleton"])]
    skeleton: bool,
    /// Never draw the skeleton and socket overlay.
    #[arg(long, conflicts_with = "skeleton_only")]
    no_skeleton: bool,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
    /// Print the adapter used.
    #[arg(short, long)]
    verbose: bool,
}

/// `--view`: where the camera looks from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ViewArg {
    Front,
    Side,
    #[value(alias = "threequarter", alias = "3/4")]
    ThreeQuarter,
}

/// `--backend`: the graphics API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BackendArg {
    Vulkan,
    #[value(alias = "gles", alias = "opengl")]
    Gl,
    // WGPU_BACKEND, else Vulkan, else GL.
    Auto,
}

impl PreviewArgs {
    /// The library's options.
    pub fn options(&self) -> Result<PreviewOptions, humanoid::Error> {
        let (width, height) = self.size;
        Ok(PreviewOptions {
            anim: self.anim.clone(),
            clip: self.clip.clone(),
            time: self.time,
            view: match self.view {
                ViewArg::Front => View::Front,
                ViewArg::Side => View::Side,
                ViewArg::ThreeQuarter => View::ThreeQuarter,
            },
            width,
            height,
            frames: match (self.frames, self.fps) {
                (Some(n), _) => Some(Frames::Count(n)),
                (None, Some(f)) => Some(Frames::Fps(f)),
                (None, None) => None,
            },
            sheet: self.sheet,
            compare: self.compare.clone(),
            backend: match self.backend {
                BackendArg::Vulkan => Backend::Vulkan,
                BackendArg::Gl => Backend::Gl,
                BackendArg::Auto => Backend::Auto,
            },
            skeleton_only: self.skeleton_only,
            skeleton: match (self.skeleton, self.no_skeleton) {
                (true, _) => SkeletonOverlay::On,
                (_, true) => SkeletonOverlay::Off,
                _ => SkeletonOverlay::Auto,
            },
            force: self.force,
        })
    }

    /// Renders and prints what was written.
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        let report = humanoid::preview::preview(&self.file, &self.out, &self.options()?)?;
        print_diagnostics(out, &report.diagnostics)?;
        if self.verbose {
            match &report.adapter {
                Some(adapter) => writeln!(out, "adapter: {adapter}")?,
                None => writeln!(out, "adapter: none (CPU skeleton drawing)")?,
            }
        }
        writeln!(
            out,
            "wrote {} ({} frame{}, {} bytes)",
            self.out.display(),
            report.frames,
            if report.frames == 1 { "" } else { "s" },
            report.bytes
        )?;
        Ok(ExitCode::SUCCESS)
    }
}

/// `WxH` as two numbers.
fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{text:?}: expected WIDTHxHEIGHT, e.g. 512x512"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("{text:?}: expected WIDTHxHEIGHT, e.g. 512x512"))
    };
    Ok((number(w)?, number(h)?))
}
