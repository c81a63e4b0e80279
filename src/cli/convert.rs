//! `humanoid convert IN OUT [--to FORMAT] [--force] [--json]`, and batch mode:
//! `humanoid convert INPUT… -o DIR --to FORMAT [--recursive] [-j N]` (files, folders, glob
//! patterns; see [`super::batch`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use humanoid::convert::ConvertOptions;
use humanoid::formats::vrm::convert::{MetaOptions, VrmOptions};
use humanoid::pose::normalize::{NormalizeOptions, RestReference};
use humanoid::Diagnostics;

use super::bvh_args::BvhOutArgs;
use super::format_arg::FormatArg;
use super::map_args::MapArgs;
use super::{concat, print_diagnostics, write_json, CliError};

/// The arguments of `convert`.
#[derive(Debug, clap::Args)]
#[command(after_help = super::batch::CONVERT_EXAMPLES)]
pub struct ConvertArgs {
    /// `IN OUT`: the input file and the output file (never the input; written through a
    /// temporary file). With `-o DIR`: every path is an input (files, folders, glob patterns).
    #[arg(required = true, num_args = 1.., value_name = "IN OUT | INPUT…")]
    paths: Vec<PathBuf>,
    /// Batch mode: write one output per input into DIR (`DIR/<folder below the input
    /// root>/<stem>.<ext>`, the format from --to); existing outputs are skipped unless --force.
    #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// Batch mode: read folders' subfolders too (symbolic links out of a folder are not
    /// followed).
    #[arg(long, requires = "output_dir")]
    recursive: bool,
    /// Batch mode: files converted at once (default: one per core).
    #[arg(short = 'j', long = "jobs", value_name = "N", requires = "output_dir")]
    jobs: Option<usize>,
    /// Output format: glb, gltf, vrm1, vrm0, vrma, x3d, x3dv, wrl, bvh, godot-bonemap,
    /// godot-profile.
    #[arg(long, value_name = "FORMAT")]
    to: Option<FormatArg>,
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
    /// With --normalize: the rest to measure, the nodes' (`node`), the pose the inverse bind
    /// matrices describe (`bind`) or the file's KHR_character_reference_pose (`reference`);
    /// default: the reference pose where the file declares one, else the nodes'.
    #[arg(long, value_name = "node|bind|reference", requires = "normalize")]
    rest: Option<Rest>,
    /// With --normalize: also bake the mesh into the T-pose (vertices, normals, tangents,
    /// morph deltas; new inverse bind matrices); reports the largest vertex deviation.
    #[arg(long, requires = "normalize")]
    rebind: bool,
    /// Map a rig that declares no humanoid and add EXT_skeleton_humanoid: `--map auto`
    /// (the best table or the skeleton's shape), a table name or a TOML file.
    #[command(flatten)]
    maps: MapArgs,
    /// Add the Khronos avatar drafts to a .glb, .gltf or VRM 1.0 output (KHR_character, its
    /// skeleton mapping keyed by the VRM humanoid URI (`uri`, default) or the pull request's
    /// `vrmHumanoid` node indices (`node-index`), a T-pose KHR_character_reference_pose,
    /// KHR_node_lookat_target nodes). Default: not added (plain glTF + EXT_skeleton_humanoid);
    /// a glTF-family input's own drafts are kept.
    #[arg(long, value_name = "uri|node-index", num_args = 0..=1, default_missing_value = "uri")]
    khr_character: Option<KhrForm>,
    /// Never add the Khronos avatar drafts (the default; kept so scripts that give it work).
    #[arg(long, conflicts_with = "khr_character")]
    no_khr_character: bool,
}

/// `--khr-character`: the skeleton mapping's wire form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KhrForm {
    /// `{"<VRM humanoid URI>": {role: {node, name}}}`.
    Uri,
    /// `{"vrmHumanoid": {role: node}}`.
    NodeIndex,
}

impl KhrForm {
    /// What `--khr-character[=FORM]` and `--no-khr-character` ask for.
    pub fn choice(form: Option<KhrForm>, off: bool) -> humanoid::ops::khr_write::KhrCharacter {
        use humanoid::ops::khr_write::{KhrCharacter, MappingForm};
        match (form, off) {
            (_, true) => KhrCharacter::Off,
            (Some(KhrForm::Uri), _) => KhrCharacter::On(MappingForm::Uri),
            (Some(KhrForm::NodeIndex), _) => KhrCharacter::On(MappingForm::NodeIndex),
            (None, false) => KhrCharacter::Auto,
        }
    }
}

/// `--rest`: the rest pose `--normalize` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Rest {
    // The nodes' rest TRS.
    Node,
    // The pose the inverse bind matrices describe.
    Bind,
    // The file's declared reference pose.
    Reference,
}

impl ConvertArgs {
    /// The library's options, and the diagnostics of reading the mapping tables asked for.
    pub fn options(&self) -> Result<(ConvertOptions, Diagnostics), humanoid::Error> {
        let mapping = self.maps.rig_mapping()?;
        let normalize = self.normalize.then_some(NormalizeOptions {
            rest: match self.rest {
                None => RestReference::Auto,
                Some(Rest::Node) => RestReference::Node,
                Some(Rest::Bind) => RestReference::Bind,
                Some(Rest::Reference) => RestReference::Reference,
            },
            rebind: self.rebind,
        });
        let options = ConvertOptions {
            to: self.to.map(|f| f.0),
            force: self.force,
            vrm: VrmOptions {
                strip_vrm: self.strip_vrm,
                meta: MetaOptions {
                    name: self.vrm_name.clone(),
                    authors: self.vrm_author.clone(),
                    license_url: self.vrm_license_url.clone(),
                },
            },
            mapping: mapping.rig,
            clip: self.clip.clone(),
            bvh_read_scale: self.bvh_scale,
            bvh_order: self.bvh_out.order(),
            bvh_write_scale: self.bvh_out.scale(),
            normalize,
            khr_character: KhrForm::choice(self.khr_character, self.no_khr_character),
        };
        Ok((options, mapping.diagnostics))
    }

    /// Converts and prints the report (batch mode with `-o DIR`).
    pub fn run(&self, out: &mut impl Write) -> Result<ExitCode, CliError> {
        let quiet = super::QUIET.load(std::sync::atomic::Ordering::Relaxed);
        if let Some(dir) = &self.output_dir {
            return self.run_batch(out, dir, quiet);
        }
        let [input, output] = self.paths.as_slice() else {
            return Err(CliError::Usage(format!(
                "convert takes IN OUT ({} paths given); for many files give an output folder: convert INPUT… -o DIR --to FORMAT",
                self.paths.len()
            )));
        };
        let (options, mapping) = self.options()?;
        let mut report = humanoid::convert::convert(input, output, &options)?;
        report.diagnostics = concat(mapping, report.diagnostics);
        if self.json {
            write_json(out, &report)?;
        } else {
            print_diagnostics(out, &report.diagnostics)?;
            print_wrote(out, output, &report)?;
        }
        Ok(ExitCode::SUCCESS)
    }

    /// `convert INPUT… -o DIR --to FORMAT`: every input converted alone, in parallel.
    fn run_batch(
        &self,
        out: &mut impl Write,
        dir: &Path,
        quiet: bool,
    ) -> Result<ExitCode, CliError> {
        if let [input] = self.paths.as_slice() {
            // One file in and `-o out.glb`: meant as `convert IN OUT`.
            if input.is_file() && names_a_file(dir) {
                return Err(CliError::Usage(format!(
                    "-o names the output folder of batch mode, and {} looks like a file; to write one file give it after the input: humanoid convert {} {}",
                    dir.display(),
                    input.display(),
                    dir.display()
                )));
            }
        }
        let Some(to) = self.to else {
            return Err(CliError::Usage(
                "batch mode (-o DIR) needs --to FORMAT: the format of every output".to_owned(),
            ));
        };
        let (options, mapping) = self.options()?;
        let mapping: Vec<humanoid::Diagnostic> = mapping.iter().cloned().collect();
        // Each output is new or replaced on purpose: the skip check is the batch's.
        let options = ConvertOptions {
            force: true,
            ..options
        };
        let inputs = humanoid::batch::Inputs {
            paths: self.paths.clone(),
            recursive: self.recursive,
        };
        let plan = super::batch::plan(&inputs, dir, to.0.extension())?;
        let batch = super::batch::Batch {
            force: self.force,
            threads: self.jobs.unwrap_or(0),
            json: self.json,
            quiet,
        };
        batch.run(out, &plan, |job| {
            let report = humanoid::convert::convert(&job.input, &job.output, &options)?;
            Ok(super::batch::written(&mapping, report))
        })
    }
}

/// `wrote OUT (format, N bytes)`, and every other file written beside it (a `.gltf`'s `.bin`
/// and images).
pub(super) fn print_wrote(
    out: &mut impl Write,
    output: &Path,
    report: &humanoid::convert::ConvertReport,
) -> Result<(), CliError> {
    write!(
        out,
        "wrote {} ({}, {} bytes)",
        output.display(),
        report.format,
        report.bytes_written
    )?;
    let beside: Vec<String> = report
        .files
        .iter()
        .filter(|f| f.as_path() != output)
        .map(|f| f.display().to_string())
        .collect();
    if !beside.is_empty() {
        write!(out, " and beside it {}", beside.join(", "))?;
    }
    writeln!(out)?;
    Ok(())
}

/// Whether `-o PATH` looks like an output file rather than a folder: no folder is there and
/// its extension names a format (`out.glb`, `rig.tres`).
fn names_a_file(path: &Path) -> bool {
    !path.is_dir()
        && (humanoid::formats::Format::for_output(path, None).is_ok()
            || path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("tres")))
}
