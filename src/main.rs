//! The `humanoid` command line: parse the arguments, run one subcommand through the library,
//! turn the result into an exit code (0 ok; 1 invalid input or an impossible conversion; 2 a
//! usage error: a missing or unknown flag, a value outside a flag's set such as `--to obj`,
//! arguments that cannot work together).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = match cli::Args::try_parse() {
        Ok(args) => args,
        Err(err) => return cli::usage_error(&err),
    };
    #[cfg(all(unix, feature = "preview"))]
    let _runtime = private_runtime_dir();
    // A limit set in the environment that does not parse is refused, not silently ignored.
    if let Err(message) = humanoid::io::Limits::from_env() {
        eprintln!("humanoid: error: {message} (docs/limits.md)");
        return ExitCode::from(1);
    }
    match cli::run(args) {
        Ok(code) => code,
        Err(err) if cli::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("humanoid: error: {err}");
            err.exit_code()
        }
    }
}

/// A private, empty `XDG_RUNTIME_DIR` for this run where none is set (a headless machine, a
/// container, CI): Mesa's drivers look for a Wayland display while the preview starts, and
/// without the variable libwayland prints `error: XDG_RUNTIME_DIR is invalid or not set in
/// the environment.` to stderr, twice, after a command that worked. With it, the lookup finds
/// no display and says nothing. The folder (mode 0700) is removed when the command ends.
#[cfg(all(unix, feature = "preview"))]
fn private_runtime_dir() -> Option<tempfile::TempDir> {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return None;
    }
    let dir = tempfile::Builder::new()
        .prefix("humanoid-runtime-")
        .tempdir()
        .ok()?;
    // SAFETY: main has started no thread yet, so no other thread reads the environment.
    unsafe { std::env::set_var("XDG_RUNTIME_DIR", dir.path()) };
    Some(dir)
}
