//! `humanoid inspect FILE [--json]`: a model or animation, or a Godot resource (`.tres`,
//! `.import`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use humanoid::formats::godot::ResourceReport;

use super::map_args::MapArgs;
use super::{concat, print_diagnostics, write_json, write_json_with, CliError};

/// The arguments of `inspect`.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// The file to read.
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Map a rig that declares no humanoid (`--map auto`, a table name or a TOML file).
    #[command(flatten)]
    maps: MapArgs,
}

impl InspectArgs {
    /// Reads the file and prints what it holds.
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        let mapping = self.maps.rig_mapping()?;
        if humanoid::inspect::is_godot_resource(&self.file) {
            let report = humanoid::formats::godot::inspect_file(&self.file)?;
            if self.json {
                write_json_with(out, &report, mapping.diagnostics)?;
            } else {
                print_diagnostics(out, &mapping.diagnostics)?;
                write_resource(out, &report)?;
            }
            return Ok(ExitCode::SUCCESS);
        }
        let mut inspection = humanoid::inspect::inspect_with(&self.file, mapping.rig.as_ref())?;
        inspection.diagnostics = concat(mapping.diagnostics, inspection.diagnostics);
        if self.json {
            write_json(out, &inspection)?;
        } else {
            // --quiet: the report without its warnings and notes.
            let mut shown = humanoid::Diagnostics::new();
            for d in inspection.diagnostics.iter().filter(|d| super::shown(d)) {
                shown.push(d.code, d.severity, d.location.clone(), d.message.clone());
            }
            inspection.diagnostics = shown;
            inspection.write_text(out)?;
        }
        Ok(ExitCode::SUCCESS)
    }
}

fn write_resource(out: &mut impl Write, report: &ResourceReport) -> std::io::Result<()> {
    writeln!(out, "{}: Godot {}", report.file, report.resource_type)?;
    if let Some(profile) = &report.profile {
        writeln!(
            out,
            "profile: {} bones ({} required), root {}, scale base {}, groups: {}",
            profile.bones,
            profile.required,
            profile.root_bone.as_deref().unwrap_or("-"),
            profile.scale_base_bone.as_deref().unwrap_or("-"),
            profile.groups.join(", ")
        )?;
    }
    for map in &report.bone_maps {
        write!(out, "BoneMap (profile {})", map.profile)?;
        if let Some(node) = &map.node {
            write!(out, " for skeleton {node}")?;
        }
        if let Some(linked) = &map.linked {
            write!(out, " from {linked}")?;
        }
        writeln!(out, ": {} bones", map.pairs.len())?;
        for pair in &map.pairs {
            writeln!(out, "  {:<24} {}", pair.profile_bone, pair.skeleton_bone)?;
        }
    }
    if report.bone_maps.is_empty() && report.profile.is_none() {
        writeln!(out, "no BoneMap or SkeletonProfile in this file")?;
    }
    Ok(())
}
