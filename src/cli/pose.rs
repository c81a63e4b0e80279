//! `humanoid pose MODEL [--anim ANIM] [--clip NAME] (--rest | --times T,T,… | --uniform N)
//! [--rotate-vrm0] [--json] [--map …]`.

use std::io::Write;
use std::process::ExitCode;

use humanoid::bone_pose::{pose, BoneTransform, PoseOptions};
use indexmap::IndexMap;

use super::{write_json, CliError};

pub fn run(
    out: &mut impl Write,
    file: &std::path::Path,
    options: &PoseOptions,
    json: bool,
) -> Result<ExitCode, CliError> {
    let report = pose(file, options)?;
    if json {
        write_json(out, &report)?;
        return Ok(ExitCode::SUCCESS);
    }
    for line in &report.mapped {
        writeln!(out, "{line}")?;
    }
    writeln!(
        out,
        "{} ({}), rest pose in {}",
        report.file, report.format, report.space
    )?;
    table(out, &report.rest)?;
    if let Some(anim) = &report.anim {
        writeln!(
            out,
            "\nclip {:?} of {} ({:.3} s)",
            anim.clip, anim.file, anim.duration
        )?;
    }
    for sample in &report.samples {
        writeln!(out, "\nt = {} s (clamped {})", sample.t, sample.t_clamped)?;
        table(out, &sample.bones)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn table(
    out: &mut impl Write,
    bones: &IndexMap<&'static str, BoneTransform>,
) -> Result<(), CliError> {
    writeln!(
        out,
        "  {:<24} {:>30}  {:>40}",
        "bone", "position (m)", "rotation [x, y, z, w]"
    )?;
    for (bone, t) in bones {
        let [x, y, z] = t.p;
        let [qx, qy, qz, qw] = t.q;
        writeln!(
            out,
            "  {bone:<24} {x:>9.5} {y:>9.5} {z:>9.5}   {qx:>8.5} {qy:>8.5} {qz:>8.5} {qw:>8.5}"
        )?;
    }
    Ok(())
}
