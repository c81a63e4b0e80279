//! `humanoid mappings list | show NAME | lint [DIR]`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use humanoid::mapping::library::lint_dir;
use humanoid::mapping::{Library, Origin};

use super::{CliError, MapArgs};

pub fn list(out: &mut impl Write, maps: &MapArgs) -> Result<ExitCode, CliError> {
    let (library, _) = maps.library()?;
    for table in library.tables() {
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

pub fn show(out: &mut impl Write, maps: &MapArgs, name: &str) -> Result<ExitCode, CliError> {
    let (library, _) = maps.library()?;
    let table = library.get(name).ok_or_else(|| {
        let names: Vec<&str> = library.tables().iter().map(|t| t.name.as_str()).collect();
        humanoid::Error::unsupported(format!(
            "no mapping table named {name:?}; known: {}",
            names.join(", ")
        ))
    })?;
    write!(out, "{}", table.to_toml())?;
    Ok(ExitCode::SUCCESS)
}

pub fn lint(out: &mut impl Write, dir: Option<&Path>) -> Result<ExitCode, CliError> {
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
