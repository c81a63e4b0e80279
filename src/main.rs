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
