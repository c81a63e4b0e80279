//! The `humanoid` command line: parse the arguments, run one subcommand through the library,
//! turn the result into an exit code (0 ok; 1 invalid input, an impossible conversion or a value
//! outside a flag's set, e.g. `--to obj`; 2 any other usage error).

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
            ExitCode::from(1)
        }
    }
}
