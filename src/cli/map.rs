//! `humanoid map FILE [--json] [-o TABLE.toml | -o RIG.glb] [--map TABLE] [--mappings DIR]`.
//!
//! The mapping every command uses ([`humanoid::mapping::policy`]): the file's own declaration
//! first ("declared by the file"); `--map auto` runs the tables and the auto-mapper instead, to
//! compare; `--map TABLE` applies one table. Exits 1 when no required bone is mapped.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use humanoid::rig_tables::{explain_file, map_file, maps_no_required_bone};

use super::map_args::MapArgs;
use super::{print_diagnostics, write_json_with, CliError};

/// The arguments of `map`.
#[derive(Debug, clap::Args)]
pub struct MapCommandArgs {
    /// The rig to read.
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Write the mapping as an editable table (`.toml`), or the rig with its mapping declared
    /// as KHR_character_skeleton_mapping (`.glb`, `.gltf`).
    #[arg(short, long, value_name = "TABLE.toml|RIG.glb")]
    out: Option<PathBuf>,
    /// Show, for each bone, the joint that won, its score from names and from shape, and the
    /// runner-up (with `--json`: an `explain` member).
    #[arg(long)]
    explain: bool,
    /// Replace an existing table file.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    maps: MapArgs,
}

impl MapCommandArgs {
    /// Maps the rig, prints the mapping and writes the table asked for.
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        let (file, json, table_out, force) =
            (&self.file, self.json, self.out.as_deref(), self.force);
        let tables = self.maps.tables()?;
        let (report, mapped) = map_file(file, &tables)?;
        let mut written = None;
        if let Some(path) = table_out {
            let extension = path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            if matches!(extension.as_deref(), Some("glb" | "gltf")) {
                if maps_no_required_bone(&mapped) {
                    return Err(humanoid::Error::unsupported(format!(
                        "{}: no required bone is mapped ({}), so no humanoid can be declared in {}; name the rig's table with --map TABLE",
                        file.display(),
                        mapped.by(),
                        path.display()
                    ))
                    .into());
                }
                let options = humanoid::ConvertOptions {
                    force,
                    mapping: Some(tables.to_rig_mapping()),
                    khr_character: humanoid::ops::khr_write::KhrCharacter::On(
                        humanoid::ops::khr_write::MappingForm::Uri,
                    ),
                    ..humanoid::ConvertOptions::default()
                };
                written = Some(humanoid::convert(file, path, &options)?);
            } else {
                humanoid::io::output::check(path, force)?;
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("rig");
                let text = report.to_toml(stem, &file.display().to_string());
                humanoid::io::output::write_bytes(path, text.as_bytes())?;
            }
        }
        let code = if maps_no_required_bone(&mapped) {
            eprintln!(
                "error: {}: no required bone is mapped ({}); name the rig's table with --map TABLE, or write one (docs/mappings.md)",
                file.display(),
                mapped.by()
            );
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        };
        let explanation = if self.explain {
            Some(explain_file(file, &tables)?)
        } else {
            None
        };
        if json {
            match &explanation {
                Some(explain) => {
                    #[derive(serde::Serialize)]
                    struct Explained<'a, T: serde::Serialize> {
                        #[serde(flatten)]
                        report: &'a T,
                        explain: &'a [humanoid::mapping::explain::BoneExplanation],
                    }
                    let both = Explained {
                        report: &report,
                        explain,
                    };
                    write_json_with(out, &both, tables.diagnostics)?;
                }
                None => write_json_with(out, &report, tables.diagnostics)?,
            }
            return Ok(code);
        }
        print_diagnostics(out, &tables.diagnostics)?;
        if let Some(written) = &written {
            print_diagnostics(out, &written.diagnostics)?;
        }
        writeln!(out, "{}: {}", file.display(), mapped.line())?;
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
        if let Some(explanation) = &explanation {
            if report.method == "declared" {
                writeln!(
                    out,
                    "why (what the tables and the shape would choose; the file's declaration is used):"
                )?;
            } else {
                writeln!(out, "why (names and shape weighed together):")?;
            }
            for line in humanoid::mapping::explain::to_lines(explanation) {
                writeln!(out, "  {line}")?;
            }
        }
        if let Some(path) = table_out {
            writeln!(out, "wrote {}", path.display())?;
        }
        Ok(code)
    }
}
