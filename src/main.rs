//! The `humanoid` command line: parse the arguments, run one subcommand through the library,
//! turn the result into an exit code (0 ok, 1 invalid input or impossible conversion, 2 usage).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(err) if cli::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("humanoid: error: {err}");
            ExitCode::from(1)
        }
    }
}
