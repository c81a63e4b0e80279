//! `humanoid retarget ANIM --onto MODEL -o OUT [--clip NAME] [--fps N] [--as nodes|ext] [--map …]`.

use std::io::Write;
use std::path::PathBuf;
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
pub struct RetargetArgs {
    /// The animation: a glTF/GLB with a humanoid (or a rig --map can map), a .vrma.
    anim: PathBuf,
    /// The character to put the motion on (glTF, GLB or VRM).
    #[arg(long, value_name = "MODEL")]
    onto: PathBuf,
    /// The output: .glb, .gltf, .vrm (the model's own format), .vrma or .bvh (the model's
    /// skeleton with the motion).
    #[arg(short, long, value_name = "OUT")]
    out: PathBuf,
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
    /// Map a rig that declares no humanoid.
    #[command(flatten)]
    maps: MapArgs,
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
        };
        Ok((options, mapping.diagnostics))
    }

    /// Retargets and prints the report.
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        let (options, mapping) = self.options()?;
        let mut report = humanoid::retarget::retarget(&self.anim, &self.onto, &self.out, &options)?;
        report.diagnostics = concat(mapping, report.diagnostics);
        if self.json {
            write_json(out, &report)?;
        } else {
            print_diagnostics(out, &report.diagnostics)?;
            super::convert::print_wrote(out, &self.out, &report)?;
        }
        Ok(ExitCode::SUCCESS)
    }
}
