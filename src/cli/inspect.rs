//! `humanoid inspect FILE [--json]`: a model or animation, or a Godot resource (`.tres`,
//! `.import`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use humanoid::formats::godot::ResourceReport;

use super::{write_json, CliError};

pub fn run(
    out: &mut impl Write,
    file: &Path,
    json: bool,
    mapping: Option<&humanoid::mapping::RigMapping>,
) -> Result<ExitCode, CliError> {
    if humanoid::inspect::is_godot_resource(file) {
        let report = humanoid::formats::godot::inspect_file(file)?;
        if json {
            write_json(out, &report)?;
        } else {
            write_resource(out, &report)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut inspection = humanoid::inspect::inspect_with(file, mapping)?;
    if json {
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
