//! `humanoid map FILE [--json] [-o TABLE.toml] [--map TABLE] [--mappings DIR]`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use humanoid::mapping::{map_rig, Choice, MapReport};

use super::{write_json, CliError, MapArgs};

pub fn run(
    out: &mut impl Write,
    file: &Path,
    maps: &MapArgs,
    json: bool,
    table_out: Option<&Path>,
    force: bool,
) -> Result<ExitCode, CliError> {
    let (library, forced) = maps.library()?;
    let asset = humanoid::read(file)?.asset;
    let choice = match forced.as_deref().filter(|t| *t != "auto") {
        Some(name) => Choice::Table(library.get(name).ok_or_else(|| {
            humanoid::Error::unsupported(format!("no mapping table named {name:?}"))
        })?),
        None => Choice::Detect,
    };
    let mapping = map_rig(&asset, &library, choice, file)?;
    let report = MapReport::new(&asset, &mapping);
    if let Some(path) = table_out {
        if path.exists() && !force {
            return Err(humanoid::Error::unsupported(format!(
                "{}: the output exists; pass --force to replace it",
                path.display()
            ))
            .into());
        }
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("rig");
        let text = report.to_toml(stem, &file.display().to_string());
        std::fs::write(path, text).map_err(|e| humanoid::Error::io(path, e))?;
    }
    if json {
        write_json(out, &report)?;
        return Ok(ExitCode::SUCCESS);
    }
    match &report.table {
        Some(table) => writeln!(out, "{}: mapped by the {table} table", file.display())?,
        None => writeln!(
            out,
            "{}: mapped by the auto-mapper (skeleton shape)",
            file.display()
        )?,
    }
    writeln!(out, "  {:<24} {:>5}  {:>5}  joint", "bone", "node", "conf")?;
    for (bone, name) in &report.bones {
        let node = report.nodes.get(bone).copied().unwrap_or_default();
        let confidence = report.confidence.get(bone).copied().unwrap_or_default();
        writeln!(out, "  {bone:<24} {node:>5}  {confidence:>5.2}  {name}")?;
    }
    if !report.missing.is_empty() {
        writeln!(out, "missing required bones: {}", report.missing.join(", "))?;
    }
    if !report.unmapped.is_empty() {
        writeln!(
            out,
            "unmapped joints ({}): {}",
            report.unmapped.len(),
            report.unmapped.join(", ")
        )?;
    }
    if let Some(path) = table_out {
        writeln!(out, "wrote {}", path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
