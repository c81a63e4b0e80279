//! `humanoid pose MODEL [--anim ANIM] [--clip NAME] (--rest | --times T,T,… | --uniform N)
//! [--rotate-vrm0] [--json] [--map …]`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use humanoid::bone_pose::{pose, BoneTransform, PoseOptions, Times};
use humanoid::Diagnostics;
use indexmap::IndexMap;

use super::map_args::MapArgs;
use super::{print_diagnostics, write_json_with, CliError};

/// The arguments of `pose`.
#[derive(Debug, clap::Args)]
pub struct PoseArgs {
    /// The model to read.
    file: PathBuf,
    /// Another file whose clip is retargeted onto the model (glTF/GLB with a humanoid, a
    /// .vrma, or any rig with --map); without it, the model's own clip.
    #[arg(long, value_name = "ANIM")]
    anim: Option<PathBuf>,
    /// The clip to sample (default: the first).
    #[arg(long, value_name = "NAME")]
    clip: Option<String>,
    /// The rest pose only (the default).
    #[arg(long, conflicts_with_all = ["times", "uniform"])]
    rest: bool,
    /// Sample at these times (seconds, comma-separated; clamped to the clip).
    #[arg(long, value_name = "T,T,...", value_delimiter = ',', value_parser = super::finite_seconds)]
    times: Option<Vec<f32>>,
    /// Sample N times spread evenly over the clip, ends included.
    #[arg(long, value_name = "N", conflicts_with = "times", value_parser = clap::value_parser!(u32).range(0..=100_000))]
    uniform: Option<u32>,
    /// Turn a VRM 0.x model to face +Z first, as three-vrm's rotateVRM0 does.
    #[arg(long)]
    rotate_vrm0: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Map a rig that declares no humanoid (`--map auto`, a table name or a TOML file).
    #[command(flatten)]
    maps: MapArgs,
}

impl PoseArgs {
    /// The library's options, and the diagnostics of reading the mapping tables asked for.
    pub fn options(&self) -> Result<(PoseOptions, Diagnostics), humanoid::Error> {
        let mapping = self.maps.rig_mapping()?;
        let options = PoseOptions {
            rotate_vrm0: self.rotate_vrm0,
            mapping: mapping.rig,
            anim: self.anim.clone(),
            clip: self.clip.clone(),
            times: match (&self.times, self.uniform) {
                (Some(times), _) => Times::At(times.clone()),
                (None, Some(n)) => Times::Uniform(n as usize),
                (None, None) => Times::Rest,
            },
        };
        Ok((options, mapping.diagnostics))
    }

    /// Poses the model and prints every bone's transform.
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        let (options, mapping) = self.options()?;
        let report = pose(&self.file, &options)?;
        if self.json {
            write_json_with(out, &report, mapping)?;
            return Ok(ExitCode::SUCCESS);
        }
        print_diagnostics(out, &mapping)?;
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
