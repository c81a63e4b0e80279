//! `humanoid mappings list | show NAME | lint [DIR]`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use humanoid::mapping::library::lint_dir;
use humanoid::mapping::{Library, Origin};

use super::map_args::MapArgs;
use super::{print_diagnostics, shown, CliError};

/// The arguments of `mappings`.
#[derive(Debug, clap::Args)]
pub struct MappingsArgs {
    #[command(subcommand)]
    command: MappingsCommand,
}

#[derive(Debug, Subcommand)]
enum MappingsCommand {
    /// List the tables.
    List {
        #[command(flatten)]
        maps: MapArgs,
    },
    /// Print one table as TOML.
    Show {
        /// The table's name.
        name: String,
        #[command(flatten)]
        maps: MapArgs,
    },
    /// Check every table in a folder (default: the built-in ones); exit 1 on errors.
    Lint {
        /// The folder.
        dir: Option<PathBuf>,
    },
}

impl MappingsArgs {
    /// Runs the `mappings` subcommand asked for.
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        match &self.command {
            MappingsCommand::List { maps } => list(out, maps),
            MappingsCommand::Show { name, maps } => show(out, maps, name),
            MappingsCommand::Lint { dir } => lint(out, dir.as_deref()),
        }
    }
}

fn list(out: &mut impl Write, maps: &MapArgs) -> Result<ExitCode, CliError> {
    let tables = maps.tables()?;
    print_diagnostics(out, &tables.diagnostics)?;
    for table in tables.library.tables() {
        let origin = match &table.origin {
            Origin::Builtin => "built in".to_owned(),
            Origin::File(path) => path.display().to_string(),
        };
        writeln!(
            out,
            "{:<24} {:>2} bones  {}  ({origin})",
            table.name,
            table.bones.len(),
            table.title
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The table as TOML; what reading a Godot mapping found comes first, as TOML comments, so
/// the output stays a table file.
fn show(out: &mut impl Write, maps: &MapArgs, name: &str) -> Result<ExitCode, CliError> {
    let tables = maps.tables()?;
    let library = &tables.library;
    let table = library.get(name).ok_or_else(|| {
        let names: Vec<&str> = library.tables().iter().map(|t| t.name.as_str()).collect();
        CliError::Usage(format!(
            "no mapping table named {name:?}; known: {}",
            names.join(", ")
        ))
    })?;
    for diagnostic in tables.diagnostics.iter().filter(|d| shown(d)) {
        writeln!(out, "# {diagnostic}")?;
    }
    write!(out, "{}", table.to_toml())?;
    Ok(ExitCode::SUCCESS)
}

fn lint(out: &mut impl Write, dir: Option<&Path>) -> Result<ExitCode, CliError> {
    let Some(dir) = dir else {
        // The built-in tables were checked when the tool was built; check them again anyway.
        let library = Library::builtin()?;
        writeln!(out, "{} built-in tables: ok", library.tables().len())?;
        return Ok(ExitCode::SUCCESS);
    };
    let results = lint_dir(dir)?;
    let mut failed = 0;
    for lint in &results {
        match &lint.result {
            Ok(()) => writeln!(out, "ok     {}", lint.file)?,
            Err(e) => {
                failed += 1;
                writeln!(out, "error  {e}")?;
            }
        }
    }
    writeln!(out, "{} table(s), {failed} with errors", results.len())?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
