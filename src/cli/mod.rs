//! Subcommands. Each file turns its clap arguments into one library call and prints the
//! result; no conversion logic lives here.

mod convert;
mod demo;
mod inspect;
mod map;
mod mappings;
mod pose;
#[cfg(feature = "preview")]
mod preview;
mod retarget;
mod sockets;
mod validate;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args as ClapArgs, Parser, Subcommand};

/// Move humanoid characters and animations between glTF (EXT_skeleton_humanoid), VRM, H-Anim,
/// Godot and rig conventions.
#[derive(Debug, Parser)]
#[command(name = "humanoid", version, about)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
    /// Print no warnings or notes, only errors and results (any subcommand).
    #[arg(long, global = true)]
    quiet: bool,
}

/// `--quiet`: set once, before the subcommand runs.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a diagnostic is printed: errors always, warnings and notes unless `--quiet`.
fn shown(diagnostic: &humanoid::Diagnostic) -> bool {
    diagnostic.severity == humanoid::Severity::Error
        || !QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show a file's format, humanoid skeletons, bone map, clips and diagnostics.
    Inspect {
        /// The file to read.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Map a rig that declares no humanoid (`--map auto`, a table name or a TOML file).
        #[command(flatten)]
        maps: MapArgs,
    },
    /// Convert a file to another format (the output extension or --to decides which).
    Convert {
        /// The input file.
        input: PathBuf,
        /// The output file (never the input; written through a temporary file).
        output: PathBuf,
        /// Output format: glb, gltf, vrm1, vrm0, vrma, x3d, x3dv, wrl, bvh, godot-bonemap,
        /// godot-profile.
        #[arg(long, value_name = "FORMAT")]
        to: Option<String>,
        /// Replace an existing output file.
        #[arg(long)]
        force: bool,
        /// Print the diagnostics as JSON.
        #[arg(long)]
        json: bool,
        /// Remove the VRM extensions from a glTF output.
        #[arg(long)]
        strip_vrm: bool,
        /// meta.name of a VRM 1.0 output, made from a glTF or migrated (default: the input's file
        /// name, or the 0.x title).
        #[arg(long, value_name = "NAME")]
        vrm_name: Option<String>,
        /// meta.authors of a VRM 1.0 output (repeat for several).
        #[arg(long, value_name = "AUTHOR")]
        vrm_author: Vec<String>,
        /// meta.licenseUrl of a VRM 1.0 output: the VRM Public License 1.0, the only one VRM 1.0
        /// accepts (the default).
        #[arg(long, value_name = "URL")]
        vrm_license_url: Option<String>,
        /// The clip to write where the output holds one (BVH).
        #[arg(long, value_name = "NAME")]
        clip: Option<String>,
        /// BVH input: metres per file unit (default: detected from the hips height).
        #[arg(long, value_name = "METRES")]
        bvh_scale: Option<f64>,
        #[command(flatten)]
        bvh_out: BvhOutArgs,
        /// Rebase the skeleton on the canonical T-pose; every clip keeps its world motion and
        /// the mesh its bind (exact).
        #[arg(long)]
        normalize: bool,
        /// With --normalize: the rest to measure, the nodes' (`node`, default) or the pose the
        /// inverse bind matrices describe (`bind`).
        #[arg(long, value_name = "node|bind", requires = "normalize")]
        rest: Option<String>,
        /// With --normalize: also bake the mesh into the T-pose (vertices, normals, tangents,
        /// morph deltas; new inverse bind matrices); reports the largest vertex deviation.
        #[arg(long, requires = "normalize")]
        rebind: bool,
        /// Map a rig that declares no humanoid and add EXT_skeleton_humanoid: `--map auto`
        /// (the best table or the skeleton's shape), a table name or a TOML file.
        #[command(flatten)]
        maps: MapArgs,
    },
    /// Check a file against its format's rules and the EXT_skeleton_humanoid hierarchy rules
    /// (exit 1 when any error is found).
    Validate {
        /// The file to check.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print the world position and rotation of every humanoid bone at rest (the three-vrm
    /// oracle's output shape with --json).
    Pose {
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
        #[arg(long, value_name = "T,T,...", value_delimiter = ',')]
        times: Option<Vec<f32>>,
        /// Sample N times spread evenly over the clip, ends included.
        #[arg(long, value_name = "N", conflicts_with = "times")]
        uniform: Option<usize>,
        /// Turn a VRM 0.x model to face +Z first, as three-vrm's rotateVRM0 does.
        #[arg(long)]
        rotate_vrm0: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Map a rig that declares no humanoid (`--map auto`, a table name or a TOML file).
        #[command(flatten)]
        maps: MapArgs,
    },
    /// Play one file's clip on another character (world deltas from the T-pose) and write the
    /// character with the clip added.
    Retarget {
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
        #[arg(long = "as", value_name = "nodes|ext", default_value = "nodes")]
        as_: String,
        /// The output format (default: from the output extension).
        #[arg(long, value_name = "FORMAT")]
        to: Option<String>,
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
    },
    /// Print where each socket (KHR_virtual_transform) is in the world, at rest or at a time
    /// of a clip.
    Sockets {
        /// A glTF, GLB or VRM file.
        file: PathBuf,
        /// The clip to pose (default: the first; only with --time).
        #[arg(long, value_name = "NAME")]
        clip: Option<String>,
        /// Pose the clip at this time in seconds (default: the rest pose).
        #[arg(long, value_name = "T")]
        time: Option<f32>,
        /// Offsets whose parent rotation is not respected: `aligned` to the world axes (the
        /// default) or `frozen` at the parent's rest rotation.
        #[arg(long, value_name = "aligned|frozen", default_value = "aligned")]
        vt_mode: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Render a character (and its clip) headless to a PNG picture, a contact sheet or an
    /// animated GIF; on a GPU (Vulkan, then GL) or, with --skeleton-only, the skeleton on the
    /// CPU.
    #[cfg(feature = "preview")]
    Preview {
        /// The character: any file the library reads.
        file: PathBuf,
        /// The picture: `.png` (one frame, or a sheet with --sheet) or `.gif` (animated).
        #[arg(short, long, value_name = "OUT.png|OUT.gif")]
        out: PathBuf,
        /// Play this file's clip retargeted onto the character (a VRMA, another character, ...).
        #[arg(long, value_name = "ANIM")]
        anim: Option<PathBuf>,
        /// The clip to play (default: the first).
        #[arg(long, value_name = "NAME")]
        clip: Option<String>,
        /// A still picture's time in seconds (default: 0 with a clip, else the rest pose).
        #[arg(long, value_name = "T")]
        time: Option<f32>,
        /// Where the camera looks from: front, side or three-quarter.
        #[arg(long, value_name = "VIEW", default_value = "front")]
        view: String,
        /// Picture size (each panel's with --compare).
        #[arg(long, value_name = "WxH", default_value = "512x512")]
        size: String,
        /// Frames of a GIF or sheet, spread over the clip (default: 15 per second; a sheet: 8).
        #[arg(long, value_name = "N", conflicts_with = "fps")]
        frames: Option<u32>,
        /// Frames per second of clip, for a GIF or sheet.
        #[arg(long, value_name = "F")]
        fps: Option<f32>,
        /// Write a contact sheet of frames into the PNG.
        #[arg(long)]
        sheet: bool,
        /// Draw OTHER to the right, playing the same clip retargeted onto it.
        #[arg(long, value_name = "OTHER")]
        compare: Option<PathBuf>,
        /// Graphics API: vulkan, gl or auto (WGPU_BACKEND, else Vulkan, else GL).
        #[arg(long, value_name = "vulkan|gl|auto", default_value = "auto")]
        backend: String,
        /// Draw the skeleton on the CPU (no GPU needed; no meshes).
        #[arg(long)]
        skeleton_only: bool,
        /// Leave the skeleton and socket overlay out (the meshes alone, a face uncovered).
        #[arg(long, conflicts_with = "skeleton_only")]
        no_skeleton: bool,
        /// Replace an existing output file.
        #[arg(long)]
        force: bool,
        /// Print the adapter used.
        #[arg(short, long)]
        verbose: bool,
    },
    /// Find which joint of a rig is which canonical bone (the best table, or the skeleton's
    /// shape); exit 1 when the rig is not a humanoid.
    Map {
        /// The rig to read.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Write the mapping as an editable table.
        #[arg(short, long, value_name = "TABLE.toml")]
        out: Option<PathBuf>,
        /// Replace an existing table file.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        maps: MapArgs,
    },
    /// List, show or check the mapping tables.
    Mappings {
        #[command(subcommand)]
        command: MappingsCommand,
    },
    /// Write the bundled mannequin (node channels and EXT_skeleton_humanoid channels).
    Demo {
        /// Output folder.
        #[arg(short, long, default_value = "humanoid-demo")]
        out: PathBuf,
        /// Replace existing files.
        #[arg(long)]
        force: bool,
    },
}

/// `--bvh-order` and `--bvh-units`, for every command that may write a BVH.
#[derive(Debug, Clone, Default, ClapArgs)]
pub struct BvhOutArgs {
    /// BVH output: the rotation channel order (XYZ, XZY, YXZ, YZX, ZXY, ZYX; default ZXY).
    #[arg(long, value_name = "ORDER")]
    bvh_order: Option<String>,
    /// BVH output: the unit, `cm` (default) or `m`.
    #[arg(long, value_name = "cm|m")]
    bvh_units: Option<String>,
}

impl BvhOutArgs {
    /// The Euler order and the metres per unit asked for.
    fn parse(
        &self,
    ) -> Result<(Option<humanoid::formats::bvh::EulerOrder>, Option<f64>), humanoid::Error> {
        let order = self
            .bvh_order
            .as_deref()
            .map(|o| {
                o.parse::<humanoid::formats::bvh::EulerOrder>()
                    .map_err(|e| humanoid::Error::unsupported(e.to_string()))
            })
            .transpose()?;
        let scale = match self.bvh_units.as_deref() {
            None => None,
            Some("cm") => Some(humanoid::formats::bvh::CENTIMETRES),
            Some("m") => Some(humanoid::formats::bvh::METRES),
            Some(other) => {
                return Err(humanoid::Error::unsupported(format!(
                    "--bvh-units {other:?}: expected cm or m"
                )))
            }
        };
        Ok((order, scale))
    }

    /// BVH write options with what was asked for.
    fn write_options(&self) -> Result<humanoid::formats::bvh::WriteOptions, humanoid::Error> {
        let (order, scale) = self.parse()?;
        let mut options = humanoid::formats::bvh::WriteOptions::default();
        if let Some(order) = order {
            options.order = order;
        }
        if let Some(scale) = scale {
            options.scale = scale;
        }
        Ok(options)
    }
}

/// `--map` and `--mappings`, for every command that reads a rig.
#[derive(Debug, Clone, Default, ClapArgs)]
pub struct MapArgs {
    /// A mapping table to use instead of the file's declaration: a built-in name, a TOML file,
    /// a Godot BoneMap / SkeletonProfile (`.tres`, or a scene's `.import`), or `auto` (the best
    /// table, else the auto-mapper). Without it: the file's declaration, else the same choice.
    #[arg(long, value_name = "TABLE")]
    map: Option<String>,
    /// A folder of extra mapping tables (*.toml).
    #[arg(long, value_name = "DIR")]
    mappings: Vec<PathBuf>,
}

impl MapArgs {
    /// The tables (built in, plus the folders and file given) and the name of the forced table.
    fn library(&self) -> Result<(humanoid::mapping::Library, Option<String>), humanoid::Error> {
        let mut library = humanoid::mapping::Library::builtin()?;
        for dir in &self.mappings {
            library.add_dir(dir)?;
        }
        let forced = match &self.map {
            Some(map) if map.ends_with(".toml") => Some(library.add_file(map.as_ref())?),
            Some(map) if map.ends_with(".tres") || map.ends_with(".import") => {
                let godot = humanoid::formats::godot::read_mapping(map.as_ref(), &library)?;
                for diagnostic in godot.diagnostics.iter().filter(|d| shown(d)) {
                    eprintln!("{map}: {diagnostic}");
                }
                Some(library.add_table(godot.table))
            }
            other => other.clone(),
        };
        Ok((library, forced))
    }
}

impl MapArgs {
    /// The mapping option: `None` unless `--map` or `--mappings` was given (`--map auto`
    /// detects, overriding a declared humanoid as `--map TABLE` does).
    fn rig_mapping(&self) -> Result<Option<humanoid::mapping::RigMapping>, humanoid::Error> {
        if self.map.is_none() && self.mappings.is_empty() {
            return Ok(None);
        }
        let (library, forced) = self.library()?;
        Ok(Some(humanoid::mapping::RigMapping {
            library,
            table: forced,
        }))
    }
}

#[derive(Debug, Subcommand)]
enum MappingsCommand {
    /// List the tables.
    List {
        #[command(flatten)]
        maps: MapArgs,
    },
    /// Print one table as TOML.
    Show {
        /// The table's name.
        name: String,
        #[command(flatten)]
        maps: MapArgs,
    },
    /// Check every table in a folder (default: the built-in ones); exit 1 on errors.
    Lint {
        /// The folder.
        dir: Option<PathBuf>,
    },
}

/// Runs one subcommand.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    QUIET.store(args.quiet, std::sync::atomic::Ordering::Relaxed);
    let mut out = io::stdout().lock();
    match args.command {
        Command::Inspect { file, json, maps } => {
            inspect::run(&mut out, &file, json, maps.rig_mapping()?.as_ref())
        }
        Command::Convert {
            input,
            output,
            to,
            force,
            json,
            strip_vrm,
            vrm_name,
            vrm_author,
            vrm_license_url,
            clip,
            bvh_scale,
            bvh_out,
            normalize,
            rest,
            rebind,
            maps,
        } => {
            use humanoid::formats::gltf::rest::{NormalizeOptions, RestReference};
            let normalize = if normalize {
                let rest = match rest.as_deref() {
                    None | Some("node") => RestReference::Node,
                    Some("bind") => RestReference::Bind,
                    Some(other) => {
                        return Err(humanoid::Error::unsupported(format!(
                            "--rest {other:?}: expected node or bind"
                        ))
                        .into())
                    }
                };
                Some(NormalizeOptions { rest, rebind })
            } else {
                None
            };
            let mapping = maps.rig_mapping()?;
            let (bvh_order, bvh_write_scale) = bvh_out.parse()?;
            let options = humanoid::convert::ConvertOptions {
                to: to.as_deref().map(str::parse).transpose()?,
                force,
                vrm: humanoid::formats::vrm::convert::VrmOptions {
                    strip_vrm,
                    meta: humanoid::formats::vrm::convert::MetaOptions {
                        name: vrm_name,
                        authors: vrm_author,
                        license_url: vrm_license_url,
                    },
                },
                mapping,
                clip,
                bvh_read_scale: bvh_scale,
                bvh_order,
                bvh_write_scale,
                normalize,
            };
            convert::run(&mut out, &input, &output, &options, json)
        }
        Command::Validate { file, json } => validate::run(&mut out, &file, json),
        Command::Pose {
            file,
            anim,
            clip,
            rest: _,
            times,
            uniform,
            rotate_vrm0,
            json,
            maps,
        } => {
            let options = humanoid::bone_pose::PoseOptions {
                rotate_vrm0,
                mapping: maps.rig_mapping()?,
                anim,
                clip,
                times: match (times, uniform) {
                    (Some(times), _) => humanoid::bone_pose::Times::At(times),
                    (None, Some(n)) => humanoid::bone_pose::Times::Uniform(n),
                    (None, None) => humanoid::bone_pose::Times::Rest,
                },
            };
            pose::run(&mut out, &file, &options, json)
        }
        Command::Retarget {
            anim,
            onto,
            out: output,
            clip,
            fps,
            as_,
            to,
            force,
            json,
            bvh_out,
            carry_sockets,
            maps,
        } => {
            let as_ext = match as_.as_str() {
                "ext" => true,
                "nodes" => false,
                other => {
                    return Err(humanoid::Error::unsupported(format!(
                        "--as {other:?}: expected nodes or ext"
                    ))
                    .into())
                }
            };
            let options = humanoid::retarget::RetargetOptions {
                clip,
                fps,
                mapping: maps.rig_mapping()?,
                as_ext,
                to: to.as_deref().map(str::parse).transpose()?,
                force,
                bvh: bvh_out.write_options()?,
                carry_sockets,
            };
            retarget::run(&mut out, &anim, &onto, &output, &options, json)
        }
        Command::Sockets {
            file,
            clip,
            time,
            vt_mode,
            json,
        } => {
            let mode = match vt_mode.as_str() {
                "aligned" => humanoid::pose::socket::VtMode::Aligned,
                "frozen" => humanoid::pose::socket::VtMode::Frozen,
                other => {
                    return Err(humanoid::Error::unsupported(format!(
                        "--vt-mode {other:?}: expected aligned or frozen"
                    ))
                    .into())
                }
            };
            let options = humanoid::sockets::SocketOptions { clip, time, mode };
            sockets::run(&mut out, &file, &options, json)
        }
        #[cfg(feature = "preview")]
        Command::Preview {
            file,
            out: output,
            anim,
            clip,
            time,
            view,
            size,
            frames,
            fps,
            sheet,
            compare,
            backend,
            skeleton_only,
            no_skeleton,
            force,
            verbose,
        } => {
            let usage = |message: String| CliError::from(humanoid::Error::unsupported(message));
            let (width, height) = preview::parse_size(&size).map_err(usage)?;
            let options = humanoid::preview::PreviewOptions {
                anim,
                clip,
                time,
                view: view.parse().map_err(|e| usage(format!("--view: {e}")))?,
                width,
                height,
                frames: match (frames, fps) {
                    (Some(n), _) => Some(humanoid::preview::Frames::Count(n)),
                    (None, Some(f)) => Some(humanoid::preview::Frames::Fps(f)),
                    (None, None) => None,
                },
                sheet,
                compare,
                backend: backend
                    .parse()
                    .map_err(|e| usage(format!("--backend: {e}")))?,
                skeleton_only,
                no_skeleton,
                force,
            };
            preview::run(&mut out, &file, &output, &options, verbose)
        }
        Command::Map {
            file,
            json,
            out: table,
            force,
            maps,
        } => map::run(&mut out, &file, &maps, json, table.as_deref(), force),
        Command::Mappings { command } => match command {
            MappingsCommand::List { maps } => mappings::list(&mut out, &maps),
            MappingsCommand::Show { name, maps } => mappings::show(&mut out, &maps, &name),
            MappingsCommand::Lint { dir } => mappings::lint(&mut out, dir.as_deref()),
        },
        Command::Demo { out: dir, force } => demo::run(&mut out, &dir, force),
    }
}

/// What can stop a subcommand: the library's error or a failed write to stdout.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The library refused or failed.
    #[error(transparent)]
    Library(#[from] humanoid::Error),
    /// Writing to stdout failed.
    #[error("writing output: {0}")]
    Output(#[from] io::Error),
}

/// Whether the error is a closed stdout (`humanoid inspect x | head`), which counts as success.
pub fn is_broken_pipe(err: &CliError) -> bool {
    matches!(err, CliError::Output(e) if e.kind() == io::ErrorKind::BrokenPipe)
}

fn write_json(out: &mut impl Write, value: &impl serde::Serialize) -> Result<(), CliError> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

fn print_diagnostics(
    out: &mut impl Write,
    diagnostics: &humanoid::Diagnostics,
) -> Result<(), CliError> {
    for diagnostic in diagnostics.iter().filter(|d| shown(d)) {
        writeln!(out, "{diagnostic}")?;
    }
    Ok(())
}
