//! Subcommands. Each file holds one subcommand's arguments (a clap `Args` struct, closed sets
//! as `ValueEnum`s), their translation into the library's options, and the printing of its
//! result; no conversion logic lives here. This file keeps the top-level arguments, the
//! dispatch and what every command reports with (JSON, diagnostics, errors).

mod batch;
mod bvh_args;
mod convert;
mod demo;
mod format_arg;
mod inspect;
mod map;
mod map_args;
mod mappings;
mod pose;
#[cfg(feature = "preview")]
mod preview;
mod retarget;
mod sockets;
mod validate;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Parser, Subcommand};

/// Move humanoid characters and animations between glTF (EXT_skeleton_humanoid), VRM, H-Anim,
/// Godot and rig conventions.
#[derive(Debug, Parser)]
#[command(
    name = "humanoid",
    version,
    about,
    after_help = "Examples:\n  humanoid convert old-0x.vrm new.vrm --to vrm1     (VRM 0.x to VRM 1.0)\n  humanoid retarget walk.fbx --onto hero.vrm -o walk.vrma\n  humanoid convert figure.x3d figure.glb\n  humanoid convert moves/ -o out/ --to vrma --recursive\n\nExit codes: 0 ok, 1 bad input or an impossible conversion, 2 a usage error."
)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
    /// Print no warnings or notes, only errors and results (any subcommand).
    #[arg(short = 'q', long, global = true)]
    quiet: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show a file's format, humanoid skeletons, bone map, clips and diagnostics.
    #[command(
        after_help = "Examples:\n  humanoid inspect hero.vrm\n  humanoid inspect walk.fbx --json\n  humanoid inspect rig.glb --map mixamo"
    )]
    Inspect(inspect::InspectArgs),
    /// Convert a file to another format (the output extension or --to decides which).
    Convert(convert::ConvertArgs),
    /// Check a file against its format's rules and the EXT_skeleton_humanoid hierarchy rules
    /// (exit 1 when any error is found).
    #[command(
        after_help = "Examples:\n  humanoid validate hero.vrm\n  humanoid validate walk.vrma --json"
    )]
    Validate(validate::ValidateArgs),
    /// Print the world position and rotation of every humanoid bone at rest (the three-vrm
    /// oracle's output shape with --json).
    #[command(
        after_help = "Examples:\n  humanoid pose hero.vrm\n  humanoid pose hero.vrm --anim walk.vrma --uniform 10 --json\n  humanoid pose mannequin.glb --clip wave --times 0,0.5,1"
    )]
    Pose(pose::PoseArgs),
    /// Play one file's clip on another character (world deltas from the T-pose) and write the
    /// character with the clip added.
    Retarget(retarget::RetargetArgs),
    /// Print where each socket (KHR_virtual_transform) is in the world, at rest or at a time
    /// of a clip.
    #[command(
        after_help = "Examples:\n  humanoid sockets hero.vrm\n  humanoid sockets figure.x3d --time 1.5 --json"
    )]
    Sockets(sockets::SocketsArgs),
    /// Render a character (and its clip) headless to a PNG picture, a contact sheet or an
    /// animated GIF; on a GPU (Vulkan, then GL) or, with --skeleton-only, the skeleton on the
    /// CPU.
    #[cfg(feature = "preview")]
    #[command(
        after_help = "Examples:\n  humanoid preview hero.vrm -o hero.png --view three-quarter\n  humanoid preview hero.vrm --anim walk.vrma -o walk.gif\n  humanoid preview walk.bvh -o walk.png --sheet --skeleton-only"
    )]
    Preview(preview::PreviewArgs),
    /// Find which joint of a rig is which canonical bone (the best table, or the skeleton's
    /// shape); exit 1 when the rig is not a humanoid.
    #[command(
        after_help = "Examples:\n  humanoid map walk.fbx\n  humanoid map rig.glb --explain\n  humanoid map rig.glb -o rig.toml   (an editable table; use it with --map rig.toml)"
    )]
    Map(map::MapCommandArgs),
    /// List, show or check the mapping tables.
    #[command(
        after_help = "Examples:\n  humanoid mappings list\n  humanoid mappings show mixamo\n  humanoid mappings lint my-tables/"
    )]
    Mappings(mappings::MappingsArgs),
    /// Write the bundled mannequin (node channels and EXT_skeleton_humanoid channels).
    #[command(after_help = "Examples:\n  humanoid demo\n  humanoid demo -o mannequin --force")]
    Demo(demo::DemoArgs),
}

/// Runs one subcommand, printing to stdout.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    run_to(args, &mut io::stdout().lock())
}

/// Runs one subcommand, printing to `out`.
fn run_to(args: Args, out: &mut impl Write) -> Result<ExitCode, CliError> {
    QUIET.store(args.quiet, std::sync::atomic::Ordering::Relaxed);
    // Every file the command reads is remembered: no output replaces one (io::input::ReadScope).
    let _reads = humanoid::io::input::read_scope();
    match args.command {
        Command::Inspect(args) => args.run(out),
        Command::Convert(args) => args.run(out),
        Command::Validate(args) => args.run(out),
        Command::Pose(args) => args.run(out),
        Command::Retarget(args) => args.run(out),
        Command::Sockets(args) => args.run(out),
        #[cfg(feature = "preview")]
        Command::Preview(args) => args.run(out),
        Command::Map(args) => args.run(out),
        Command::Mappings(args) => args.run(out),
        Command::Demo(args) => args.run(out),
    }
}

/// A time in seconds from the command line: a finite number (NaN and infinities are refused as
/// bad values, as [`usage_error`] answers them).
pub fn finite_seconds(text: &str) -> Result<f32, String> {
    let t: f32 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if t.is_finite() {
        Ok(t)
    } else {
        Err(format!("{text:?}: expected a finite number of seconds"))
    }
}

/// What parsing the arguments failed with, as the exit code to return.
///
/// Every usage error exits 2. A value outside a closed set (`--to obj`, `--view top`) gets a
/// one-line message, `humanoid: error: --view "top": expected front, side or three-quarter`;
/// any other is clap's own message (`--help` and `--version` exit 0).
pub fn usage_error(err: &clap::Error) -> ExitCode {
    match invalid_value(err) {
        Some(message) => {
            eprintln!("humanoid: error: {message}");
            ExitCode::from(2)
        }
        None => err.exit(),
    }
}

/// `FLAG "VALUE": expected A, B or C` for a value that is not one of the closed set's names.
fn invalid_value(err: &clap::Error) -> Option<String> {
    if err.kind() != ErrorKind::InvalidValue {
        return None;
    }
    let (Some(ContextValue::String(flag)), Some(ContextValue::String(value))) = (
        err.get(ContextKind::InvalidArg),
        err.get(ContextKind::InvalidValue),
    ) else {
        return None;
    };
    let Some(ContextValue::Strings(expected)) = err.get(ContextKind::ValidValue) else {
        return None;
    };
    // clap names the flag with its value: `--view <VIEW>`.
    let flag = flag.split_once(' ').map_or(flag.as_str(), |(flag, _)| flag);
    Some(format!("{flag} {value:?}: expected {}", one_of(expected)))
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(names: &[String]) -> String {
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// `--quiet`: set once, before the subcommand runs.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a diagnostic is printed: errors always, warnings and notes unless `--quiet`.
fn shown(diagnostic: &humanoid::Diagnostic) -> bool {
    diagnostic.severity == humanoid::Severity::Error
        || !QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// What can stop a subcommand: the library's error or a failed write to stdout.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The library refused or failed.
    #[error(transparent)]
    Library(#[from] humanoid::Error),
    /// Writing to stdout failed.
    #[error("writing output: {0}")]
    Output(#[from] io::Error),
    /// The arguments cannot work together, found after parsing (exit 2, as clap's own usage
    /// errors): the message says what to give instead.
    #[error("{0}")]
    Usage(String),
}

impl CliError {
    /// The exit code: 2 for a usage error, 1 for anything else (bad input, an impossible
    /// conversion, a failed write).
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) => ExitCode::from(2),
            _ => ExitCode::from(1),
        }
    }
}

/// Whether the error is a closed stdout (`humanoid inspect x | head`), which counts as success.
pub fn is_broken_pipe(err: &CliError) -> bool {
    matches!(err, CliError::Output(e) if e.kind() == io::ErrorKind::BrokenPipe)
}

fn write_json(out: &mut impl Write, value: &impl serde::Serialize) -> Result<(), CliError> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

/// A report whose type has no diagnostics of its own, with those of its arguments (a Godot
/// mapping's, see [`map_args::Tables`]) beside its fields; without any, the report as it is.
#[derive(serde::Serialize)]
struct WithDiagnostics<'a, T> {
    #[serde(flatten)]
    report: &'a T,
    #[serde(skip_serializing_if = "humanoid::Diagnostics::is_empty")]
    diagnostics: humanoid::Diagnostics,
}

/// [`write_json`] of a report that holds no diagnostics, with `diagnostics` added when there
/// are any.
fn write_json_with(
    out: &mut impl Write,
    report: &impl serde::Serialize,
    diagnostics: humanoid::Diagnostics,
) -> Result<(), CliError> {
    write_json(
        out,
        &WithDiagnostics {
            report,
            diagnostics,
        },
    )
}

/// `first`, then `then`: the arguments' diagnostics before the operation's.
fn concat(first: humanoid::Diagnostics, then: humanoid::Diagnostics) -> humanoid::Diagnostics {
    let mut all = first;
    all.extend(then);
    all
}

fn print_diagnostics(
    out: &mut impl Write,
    diagnostics: &humanoid::Diagnostics,
) -> Result<(), CliError> {
    for diagnostic in diagnostics.iter().filter(|d| shown(d)) {
        writeln!(out, "{diagnostic}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
