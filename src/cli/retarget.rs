//! `humanoid retarget ANIM --onto MODEL -o OUT [--clip NAME] [--fps N] [--as nodes|ext] [--map …]`,
//! and batch mode: `humanoid retarget ANIM… --onto MODEL [--onto MODEL…] -o DIR --to FORMAT`
//! (several animations, folders or glob patterns, or several characters; see [`super::batch`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use humanoid::retarget::RetargetOptions;
use humanoid::Diagnostics;

use super::bvh_args::BvhOutArgs;
use super::format_arg::FormatArg;
use super::map_args::MapArgs;
use super::{concat, print_diagnostics, write_json, CliError};

/// The arguments of `retarget`.
#[derive(Debug, clap::Args)]
#[command(after_help = super::batch::RETARGET_EXAMPLES)]
pub struct RetargetArgs {
    /// The animation: a glTF/GLB with a humanoid (or a rig --map can map), a .vrma, a BVH.
    /// Several (files, folders, glob patterns) select batch mode.
    #[arg(required = true, num_args = 1.., value_name = "ANIM")]
    anims: Vec<PathBuf>,
    /// The character to put the motion on (glTF, GLB or VRM; or FBX, H-Anim, BVH, built into
    /// a GLB with its meshes as `convert` builds it); repeat it to put every
    /// animation on several characters (batch mode, one output folder per character).
    #[arg(long, value_name = "MODEL", required = true)]
    onto: Vec<PathBuf>,
    /// The output: .glb, .gltf, .vrm (the model's own format), .vrma or .bvh (the model's
    /// skeleton with the motion). In batch mode, the output folder (outputs are
    /// `DIR/[<model>/]<folder below the input root>/<stem>.<ext>`, the format from --to).
    #[arg(short, long, value_name = "OUT")]
    out: PathBuf,
    /// Batch mode: read folders' subfolders too.
    #[arg(long)]
    recursive: bool,
    /// Batch mode: files retargeted at once (default: one per core).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// The clip to use (default: the first).
    #[arg(long, value_name = "NAME")]
    clip: Option<String>,
    /// Resample at this many frames per second (default: the source's key times).
    #[arg(long, value_name = "N")]
    fps: Option<f32>,
    /// How to write the clip: `nodes` (node animation, the default) or `ext`
    /// (EXT_skeleton_humanoid channels).
    #[arg(long = "as", value_name = "nodes|ext", value_enum, default_value_t = ClipAs::Nodes)]
    as_: ClipAs,
    /// The output format (default: from the output extension).
    #[arg(long, value_name = "FORMAT")]
    to: Option<FormatArg>,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
    /// Print the diagnostics as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    bvh_out: BvhOutArgs,
    /// Carry the animation file's sockets (KHR_virtual_transform, H-Anim Sites, a VRM's
    /// gaze origin) onto the model by bone, offsets scaled by the bones' lengths; the
    /// model's own sockets are always kept.
    #[arg(long)]
    carry_sockets: bool,
    /// Foot contacts: `auto` (the default) keeps the feet planted where the animation plants
    /// them (leg IK, soles flat, nothing under the floor; the upper body as `off` has it);
    /// `off` copies every bone's world rotation exactly, as three-vrm plays a VRMA.
    #[arg(long, value_name = "auto|off", value_enum, default_value_t = ContactsArg::Auto)]
    contacts: ContactsArg,
    /// Print what the contacts found and changed, per foot and toe: plants, drift, float and
    /// depth below the floor, beside the same figures with `--contacts off` (bakes twice).
    #[arg(long)]
    report: bool,
    /// Map a rig that declares no humanoid.
    #[command(flatten)]
    maps: MapArgs,
}

/// `--contacts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ContactsArg {
    // Plant the feet.
    Auto,
    // The exact world-delta copy.
    Off,
}

/// `--as`: how the clip is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ClipAs {
    // Node animation.
    Nodes,
    // EXT_skeleton_humanoid channels.
    Ext,
}

impl RetargetArgs {
    /// The library's options, and the diagnostics of reading the mapping tables asked for.
    pub fn options(&self) -> Result<(RetargetOptions, Diagnostics), humanoid::Error> {
        let mapping = self.maps.rig_mapping()?;
        let options = RetargetOptions {
            clip: self.clip.clone(),
            fps: self.fps,
            mapping: mapping.rig,
            as_ext: self.as_ == ClipAs::Ext,
            to: self.to.map(|f| f.0),
            force: self.force,
            bvh: self.bvh_out.write_options(),
            carry_sockets: self.carry_sockets,
            contacts: match self.contacts {
                ContactsArg::Auto => humanoid::pose::contacts::Contacts::Auto,
                ContactsArg::Off => humanoid::pose::contacts::Contacts::Off,
            },
            contacts_compare: self.report,
        };
        Ok((options, mapping.diagnostics))
    }

    /// Whether this is a batch: several animations or characters, a folder or glob pattern as
    /// the animation, or an output that is a folder (or ends with `/`).
    fn is_batch(&self) -> bool {
        let out = self.out.to_string_lossy();
        self.anims.len() > 1
            || self.onto.len() > 1
            || self.anims.iter().any(|a| {
                a.is_dir() || (!a.exists() && a.to_string_lossy().contains(['*', '?', '[']))
            })
            || self.out.is_dir()
            || out.ends_with('/')
            || self.recursive
            || self.jobs.is_some()
    }

    /// Retargets and prints the report (batch mode as [`RetargetArgs::is_batch`] says).
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        if self.is_batch() {
            return self.run_batch(out);
        }
        let (anim, onto) = (&self.anims[0], &self.onto[0]);
        let (options, mapping) = self.options()?;
        let mut report = humanoid::retarget::retarget(anim, onto, &self.out, &options)?;
        report.diagnostics = concat(mapping, report.diagnostics);
        if self.json {
            write_json(out, &report)?;
        } else {
            print_diagnostics(out, &report.diagnostics)?;
            if self.report {
                match &report.contacts {
                    Some(contacts) => write!(out, "{}", contacts.text())?,
                    None => writeln!(out, "contacts: off (the exact world-delta copy)")?,
                }
            }
            super::convert::print_wrote(out, &self.out, &report)?;
        }
        Ok(ExitCode::SUCCESS)
    }

    /// Every animation retargeted onto every character, each alone, in parallel.
    fn run_batch(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        let Some(to) = self.to else {
            return Err(CliError::Usage(
                "batch mode (several animations or characters, or -o DIR) needs --to FORMAT: the format of every output".to_owned(),
            ));
        };
        let (options, mapping) = self.options()?;
        let mapping: Vec<humanoid::Diagnostic> = mapping.iter().cloned().collect();
        let options = RetargetOptions {
            force: true,
            ..options
        };
        let inputs = humanoid::batch::Inputs {
            paths: self.anims.clone(),
            recursive: self.recursive,
        };
        let dir: &Path = &self.out;
        let plan = super::batch::plan_onto(&inputs, &self.onto, dir, to.0.extension())?;
        let batch = super::batch::Batch {
            force: self.force,
            threads: self.jobs.unwrap_or(0),
            json: self.json,
            quiet: super::QUIET.load(std::sync::atomic::Ordering::Relaxed),
        };
        batch.run(out, &plan, |job| {
            let model = job.with.as_deref().unwrap_or(&self.onto[0]);
            let report = humanoid::retarget::retarget(&job.input, model, &job.output, &options)?;
            Ok(super::batch::written(&mapping, report))
        })
    }
}
