//! `humanoid pose FILE [--rest] [--rotate-vrm0] [--json]`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use humanoid::bone_pose::{rest_pose, PoseOptions};

use super::{write_json, CliError};

pub fn run(
    out: &mut impl Write,
    file: &Path,
    rotate_vrm0: bool,
    json: bool,
    mapping: Option<humanoid::mapping::RigMapping>,
) -> Result<ExitCode, CliError> {
    let report = rest_pose(
        file,
        &PoseOptions {
            rotate_vrm0,
            mapping,
        },
    )?;
    if json {
        write_json(out, &report)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{} ({}), rest pose in {}",
        report.file, report.format, report.space
    )?;
    writeln!(
        out,
        "  {:<24} {:>30}  {:>40}",
        "bone", "position (m)", "rotation [x, y, z, w]"
    )?;
    for (bone, t) in &report.rest {
        let [x, y, z] = t.p;
        let [qx, qy, qz, qw] = t.q;
        writeln!(
            out,
            "  {bone:<24} {x:>9.5} {y:>9.5} {z:>9.5}   {qx:>8.5} {qy:>8.5} {qz:>8.5} {qw:>8.5}"
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
