//! Many files at once: the plan of a batch (which inputs, from files, folders and glob
//! patterns; which output each one gets; which two would collide) and its run on a pool of
//! threads, one file per task, a failing file never stopping the others.
//!
//! An output is `DIR/<the input's folder relative to its root>/<stem>.<ext>`: a file given by
//! name has its own folder as root, a folder (with `recursive`, its subfolders too) is its own
//! root. Reading a folder never follows a symbolic link out of it. Existing outputs are skipped
//! unless `force`, so an interrupted run resumes; each output is written atomically, so a
//! killed run never leaves half a file. What cannot work whatever the inputs hold (an output
//! folder that is a file, a folder or glob pattern that gives no input, a folder whose inputs
//! are all in subfolders without `recursive`) is refused before any input is read
//! ([`Unusable`]).
//!
//! ```
//! use humanoid::batch::{plan, Inputs};
//!
//! let dir = tempfile::tempdir()?;
//! humanoid::demo::write_demo(dir.path(), false)?; // mannequin.glb, mannequin_ext_clips.glb
//! let out = dir.path().join("out");
//! let inputs = Inputs { paths: vec![dir.path().to_path_buf()], recursive: false };
//! let plan = plan(&inputs, &out, "x3d")?;
//! assert_eq!(plan.jobs.len(), 2);
//! assert_eq!(plan.jobs[0].output, out.join("mannequin.x3d"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::formats::Format;

/// The inputs of a batch as the user gave them.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Files, folders, and glob patterns (`mocap/*.bvh`, `**` with `recursive`).
    pub paths: Vec<PathBuf>,
    /// Read folders' subfolders too.
    pub recursive: bool,
}

/// One input and the output it gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The input file.
    pub input: PathBuf,
    /// Its output.
    pub output: PathBuf,
    /// A second input the job uses (retarget's character), if any.
    pub with: Option<PathBuf>,
}

/// An input refused before any work (two inputs landing on one output name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The input.
    pub input: PathBuf,
    /// Why, naming the other input.
    pub reason: String,
}

/// What a batch will do.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The inputs to convert, in a stable order (sorted by input path).
    pub jobs: Vec<Job>,
    /// Inputs refused up front.
    pub refused: Vec<Refusal>,
}

/// Whether a file name is one a batch takes from a folder (a format we read).
pub fn is_input(path: &Path) -> bool {
    Format::for_input(path).is_ok() && !path.is_dir()
}

/// Why a batch cannot start, found before any input is read: what was asked for cannot work
/// whatever the inputs hold. [`plan`] and [`plan_onto`] refuse these as [`Error::Unsupported`]
/// with this text; [`try_plan`] and [`try_plan_onto`] return them as they are (the command
/// line calls them usage errors: exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unusable {
    /// The output folder, or a folder above it, is a file.
    #[error("{} is a file: a batch writes its outputs into a folder", .0.display())]
    OutputIsAFile(PathBuf),
    /// A folder holds no input at its top level but its subfolders do, and `recursive` was not
    /// asked for.
    #[error(
        "{} holds no file of a format humanoid reads at its top level; its subfolders hold {below}: add --recursive",
        folder.display()
    )]
    OnlyInSubfolders {
        /// The folder as given.
        folder: PathBuf,
        /// The inputs its subfolders hold.
        below: usize,
    },
    /// A folder (with `recursive`, its subfolders too) holds no input at all.
    #[error(
        "{} holds no file of a format humanoid reads{} ({READ_EXTENSIONS})",
        folder.display(),
        if *recursive { " in it or its subfolders" } else { ", nor do its subfolders" }
    )]
    EmptyFolder {
        /// The folder as given.
        folder: PathBuf,
        /// Whether its subfolders were read.
        recursive: bool,
    },
    /// A glob pattern matches no input.
    #[error("{0}: the pattern matches no file of a format humanoid reads ({READ_EXTENSIONS})")]
    NoMatch(String),
    /// Two characters of [`plan_onto`] have the same file stem, so their output folders would be
    /// one.
    #[error(
        "--onto {} and --onto {} have the same name: their outputs would share {}; rename one",
        first.display(),
        second.display(),
        folder.display()
    )]
    SameModelName {
        /// The first character.
        first: PathBuf,
        /// The second.
        second: PathBuf,
        /// The output folder they would share.
        folder: PathBuf,
    },
}

/// The extensions a batch takes from a folder or a glob pattern, for messages.
const READ_EXTENSIONS: &str = ".glb .gltf .vrm .vrma .bvh .fbx .x3d .x3dv .wrl .tres …";

/// What stops a plan: a request that cannot work ([`Unusable`]), or an input that cannot be
/// read.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// What was asked for cannot work.
    #[error(transparent)]
    Unusable(#[from] Unusable),
    /// An input does not exist or cannot be read, a glob pattern does not parse.
    #[error(transparent)]
    Failed(#[from] Error),
}

impl From<PlanError> for Error {
    fn from(error: PlanError) -> Error {
        match error {
            PlanError::Unusable(unusable) => Error::unsupported(unusable.to_string()),
            PlanError::Failed(error) => error,
        }
    }
}

/// The plan of a batch writing `extension` files into `out_dir`.
///
/// # Errors
/// What [`try_plan`] refuses; an [`Unusable`] request as an [`Error::Unsupported`].
pub fn plan(inputs: &Inputs, out_dir: &Path, extension: &str) -> Result<Plan, Error> {
    try_plan(inputs, out_dir, extension).map_err(Error::from)
}

/// The plan of a batch writing `extension` files into `out_dir`, telling a request that cannot
/// work from an input that cannot be read.
///
/// ```
/// use humanoid::batch::{try_plan, Inputs, PlanError, Unusable};
///
/// let dir = tempfile::tempdir()?;
/// humanoid::demo::write_demo(&dir.path().join("sub"), false)?;
/// let inputs = Inputs { paths: vec![dir.path().to_path_buf()], recursive: false };
/// let refused = try_plan(&inputs, &dir.path().join("out"), "x3d").unwrap_err();
/// assert!(matches!(refused, PlanError::Unusable(Unusable::OnlyInSubfolders { below: 2, .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`PlanError::Unusable`]: `out_dir` (or a folder above it) is a file; a folder holds no input
/// (saying when its subfolders do and `recursive` is missing); a glob pattern matches no input.
/// [`PlanError::Failed`]: an input that does not exist, a glob pattern that does not parse, a
/// folder that cannot be read.
pub fn try_plan(inputs: &Inputs, out_dir: &Path, extension: &str) -> Result<Plan, PlanError> {
    if let Some(file) = file_in_the_way(out_dir) {
        return Err(Unusable::OutputIsAFile(file).into());
    }
    let mut found: Vec<(PathBuf, PathBuf)> = Vec::new(); // (input, path relative to its root)
    for given in &inputs.paths {
        let text = given.to_string_lossy();
        if !given.exists() && text.contains(['*', '?', '[']) {
            let matches = glob::glob(&no_dot_entries(&text)?)
                .map_err(|e| Error::unsupported(format!("{text}: not a glob pattern: {e}")))?;
            let mut any = false;
            for entry in matches {
                let path = entry.map_err(|e| {
                    let at = e.path().to_path_buf();
                    Error::io(at, e.into())
                })?;
                if path.is_file() && is_input(&path) {
                    any = true;
                    let name = PathBuf::from(path.file_name().unwrap_or_default());
                    found.push((path, name));
                }
            }
            if !any {
                return Err(Unusable::NoMatch(text.into_owned()).into());
            }
            continue;
        }
        let metadata = std::fs::metadata(given).map_err(|e| Error::io(given, e))?;
        if metadata.is_dir() {
            let before = found.len();
            walk(given, given, inputs.recursive, &mut found)?;
            if found.len() == before {
                return Err(empty_folder(given, inputs.recursive)?.into());
            }
        } else {
            let name = PathBuf::from(given.file_name().unwrap_or_default());
            found.push((given.clone(), name));
        }
    }
    found.sort();
    found.dedup_by(|a, b| a.0 == b.0);
    let mut by_output: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for (input, relative) in found {
        let output = out_dir.join(relative.with_extension(extension));
        by_output.entry(output).or_default().push(input);
    }
    let mut plan = Plan::default();
    for (output, inputs) in by_output {
        if let [input] = inputs.as_slice() {
            plan.jobs.push(Job {
                input: input.clone(),
                output,
                with: None,
            });
            continue;
        }
        for input in &inputs {
            let others: Vec<String> = inputs
                .iter()
                .filter(|o| *o != input)
                .map(|o| o.display().to_string())
                .collect();
            plan.refused.push(Refusal {
                input: input.clone(),
                reason: format!(
                    "{} would also be written from {}: rename one of them",
                    output.display(),
                    others.join(", ")
                ),
            });
        }
    }
    plan.jobs.sort_by(|a, b| a.input.cmp(&b.input));
    plan.refused.sort_by(|a, b| a.input.cmp(&b.input));
    Ok(plan)
}

/// The nearest of `out_dir` and the folders above it that exists, when it is not a folder: no
/// output could be written below it.
fn file_in_the_way(out_dir: &Path) -> Option<PathBuf> {
    let existing = out_dir
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .find(|p| std::fs::symlink_metadata(p).is_ok())?;
    (!existing.is_dir()).then(|| existing.to_path_buf())
}

/// Why `folder` gave no input: empty, or (without `recursive`) its inputs are all in
/// subfolders.
fn empty_folder(folder: &Path, recursive: bool) -> Result<Unusable, Error> {
    if !recursive {
        let mut below = Vec::new();
        walk(folder, folder, true, &mut below)?;
        if !below.is_empty() {
            return Ok(Unusable::OnlyInSubfolders {
                folder: folder.to_path_buf(),
                below: below.len(),
            });
        }
    }
    Ok(Unusable::EmptyFolder {
        folder: folder.to_path_buf(),
        recursive,
    })
}

/// The most `**` a pattern may hold: each one walks the whole tree below it, so three over a
/// large tree cost its size cubed.
pub const MAX_RECURSIVE_WILDCARDS: usize = 2;

/// `pattern` with each wildcard component that starts with a dot (`.*`) starting with `[.]`
/// instead, which matches the same names but not the `.` and `..` entries the glob crate adds
/// for a leading dot (as shells did before bash 5.2's globskipdots): `.*/.*/…` walked up and
/// down the tree exponentially (found by the batch_plan fuzz target).
///
/// ```
/// use humanoid::batch::no_dot_entries;
/// assert_eq!(no_dot_entries("mocap/.*/*.bvh").unwrap(), "mocap/[.]*/*.bvh");
/// assert_eq!(no_dot_entries("../takes/*.bvh").unwrap(), "../takes/*.bvh");
/// assert!(no_dot_entries("**/a/**/b/**/*.bvh").is_err());
/// ```
///
/// # Errors
/// More than [`MAX_RECURSIVE_WILDCARDS`] `**` components.
pub fn no_dot_entries(pattern: &str) -> Result<String, Error> {
    let parts: Vec<&str> = pattern.split('/').collect();
    let recursive = parts.iter().filter(|p| **p == "**").count();
    if recursive > MAX_RECURSIVE_WILDCARDS {
        return Err(Error::unsupported(format!(
            "{pattern}: {recursive} `**` in one pattern: at most {MAX_RECURSIVE_WILDCARDS} (each walks the whole tree below it); give a folder with --recursive instead"
        )));
    }
    Ok(parts
        .iter()
        .map(|part| match part.strip_prefix('.') {
            Some(rest) if rest.contains(['*', '?', '[']) => format!("[.]{rest}"),
            _ => (*part).to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/"))
}

/// The plan of a batch that puts every input on each of `models` (retarget): with one model
/// the outputs go in `out_dir`, with several in `out_dir/<model stem>/`.
///
/// # Errors
/// As [`plan`]; two models with the same file stem.
pub fn plan_onto(
    inputs: &Inputs,
    models: &[PathBuf],
    out_dir: &Path,
    extension: &str,
) -> Result<Plan, Error> {
    try_plan_onto(inputs, models, out_dir, extension).map_err(Error::from)
}

/// [`plan_onto`], telling a request that cannot work from an input that cannot be read (as
/// [`try_plan`] does).
///
/// # Errors
/// As [`try_plan`]; two models with the same file stem ([`Unusable::SameModelName`]).
pub fn try_plan_onto(
    inputs: &Inputs,
    models: &[PathBuf],
    out_dir: &Path,
    extension: &str,
) -> Result<Plan, PlanError> {
    let mut stems = BTreeMap::new();
    for model in models {
        let stem = model.file_stem().unwrap_or_default().to_owned();
        if let Some(other) = stems.insert(stem, model) {
            return Err(Unusable::SameModelName {
                first: other.clone(),
                second: model.clone(),
                folder: out_dir.join(model.file_stem().unwrap_or_default()),
            }
            .into());
        }
    }
    let mut all = Plan::default();
    for model in models {
        let dir = match models {
            [_] => out_dir.to_path_buf(),
            _ => out_dir.join(model.file_stem().unwrap_or_default()),
        };
        let one = try_plan(inputs, &dir, extension)?;
        all.jobs.extend(one.jobs.into_iter().map(|job| Job {
            with: Some(model.clone()),
            ..job
        }));
        all.refused.extend(one.refused);
    }
    Ok(all)
}

/// The files of a format we read under `folder` (subfolders with `recursive`), with their
/// paths relative to `root`. Symbolic links are followed only where they stay inside `root`.
fn walk(
    root: &Path,
    folder: &Path,
    recursive: bool,
    found: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<(), Error> {
    let canonical_root = root.canonicalize().map_err(|e| Error::io(root, e))?;
    let mut stack = vec![folder.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&dir, e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| Error::io(&path, e))?;
            let (is_dir, is_file) = if kind.is_symlink() {
                // A link counts only when what it names is inside the root.
                match path.canonicalize() {
                    Ok(target) if target.starts_with(&canonical_root) => {
                        (target.is_dir(), target.is_file())
                    }
                    _ => continue,
                }
            } else {
                (kind.is_dir(), kind.is_file())
            };
            if is_dir {
                // A link to a folder inside the root could loop: only real folders are entered.
                if recursive && !kind.is_symlink() {
                    stack.push(path);
                }
            } else if is_file && is_input(&path) {
                let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
                found.push((path, relative));
            }
        }
    }
    Ok(())
}

/// How one input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Written.
    Ok,
    /// Its output existed and `force` was not given.
    Skipped,
    /// The conversion cannot be done (no humanoid, a format that cannot hold it, a name
    /// collision).
    Refused,
    /// The input is malformed, or reading or writing failed.
    Failed,
}

impl Status {
    /// The status an error gives.
    pub fn of_error(error: &Error) -> Status {
        match error {
            Error::Unsupported { .. } => Status::Refused,
            _ => Status::Failed,
        }
    }
}

/// The worker threads a batch of `jobs` runs on when `requested` are asked for (0: one per
/// core): never more than the jobs, nor than the machine's cores (each job is CPU-bound, and a
/// pool of thousands of threads only costs time: `-j 5000` took over a minute on two inputs).
///
/// ```
/// use humanoid::batch::worker_threads;
/// let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
/// assert_eq!(worker_threads(5000, 2), 2.min(cores));
/// assert_eq!(worker_threads(0, 1000), cores);
/// assert_eq!(worker_threads(3, 0), 1);
/// ```
pub fn worker_threads(requested: usize, jobs: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let wanted = if requested == 0 { cores } else { requested };
    wanted.min(cores).min(jobs).max(1)
}

/// Runs `work` on every job, `threads` at a time (0: one per core), calling `done` as each
/// finishes (from the worker threads; in any order). A panic in one job is caught and
/// reported as that job's failure. The results come back in the order of `jobs`.
///
/// Each thread takes the next job when it is free, largest input first: the big files start
/// early and the small ones fill the gaps at the end, so no core waits on one last big file
/// (longest-processing-time-first scheduling, with the input's size standing for the time).
///
/// # Errors
/// The thread pool cannot be built.
pub fn run<R: Send>(
    jobs: &[Job],
    threads: usize,
    work: impl Fn(&Job) -> Result<R, Error> + Sync,
    done: impl Fn(&Job, &Result<R, Error>) + Sync,
) -> Result<Vec<Result<R, Error>>, Error> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    let threads = worker_threads(threads, jobs.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::unsupported(format!("cannot start {threads} worker threads: {e}")))?;
    let order = largest_first(jobs);
    let next = AtomicUsize::new(0);
    let finished: Mutex<Vec<(usize, Result<R, Error>)>> =
        Mutex::new(Vec::with_capacity(jobs.len()));
    let read_before = crate::io::input::read_so_far();
    let run_one = |job: &Job| {
        // Each job remembers what it reads (and what was read before the batch started), so
        // no job's output replaces a file being read.
        let _reads = crate::io::input::read_scope_from(&read_before);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(job))).unwrap_or_else(
            |panic| {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                Err(Error::unsupported(format!(
                    "{}: internal error (a bug: please report it): {what}",
                    job.input.display()
                )))
            },
        )
    };
    pool.broadcast(|_| {
        let mut mine = Vec::new();
        while let Some(&index) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let Some(job) = jobs.get(index) else { break };
            let result = run_one(job);
            done(job, &result);
            mine.push((index, result));
        }
        // A poisoned lock still holds every result pushed before the panic that poisoned it.
        let mut all = finished
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        all.append(&mut mine);
    });
    let mut all = finished
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    all.sort_by_key(|(index, _)| *index);
    Ok(all.into_iter().map(|(_, result)| result).collect())
}

/// The indices of `jobs`, largest input first (an input that cannot be measured counts as
/// empty: its job reports why it cannot be read); ties keep the jobs' order.
fn largest_first(jobs: &[Job]) -> Vec<usize> {
    let sizes: Vec<u64> = jobs
        .iter()
        .map(|job| std::fs::metadata(&job.input).map_or(0, |m| m.len()))
        .collect();
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes.get(i).copied().unwrap_or(0)));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"x").unwrap();
    }

    #[test]
    fn outputs_keep_the_folders_below_the_root_and_collisions_name_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("in");
        touch(&root.join("a.bvh"));
        touch(&root.join("sub/b.vrm"));
        touch(&root.join("sub/b.glb")); // lands on sub/b.x3d too
        touch(&root.join("notes.txt"));
        let out = dir.path().join("out");
        let flat = plan(
            &Inputs {
                paths: vec![root.clone()],
                recursive: false,
            },
            &out,
            "x3d",
        )
        .unwrap();
        assert_eq!(
            flat.jobs,
            vec![Job {
                input: root.join("a.bvh"),
                output: out.join("a.x3d"),
                with: None,
            }]
        );
        let deep = plan(
            &Inputs {
                paths: vec![root.clone()],
                recursive: true,
            },
            &out,
            "x3d",
        )
        .unwrap();
        assert_eq!(deep.jobs.len(), 1);
        assert_eq!(deep.refused.len(), 2);
        assert!(
            deep.refused[0].reason.contains("b.vrm"),
            "{}",
            deep.refused[0].reason
        );
        assert!(
            deep.refused[1].reason.contains("b.glb"),
            "{}",
            deep.refused[1].reason
        );
        assert!(deep.refused[0]
            .reason
            .contains(&out.join("sub/b.x3d").display().to_string()));
    }

    #[test]
    fn links_out_of_the_folder_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("in");
        touch(&root.join("a.bvh"));
        touch(&dir.path().join("outside/secret.bvh"));
        std::os::unix::fs::symlink(dir.path().join("outside/secret.bvh"), root.join("s.bvh"))
            .unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("o")).unwrap();
        std::os::unix::fs::symlink(root.join("a.bvh"), root.join("inside.bvh")).unwrap();
        let plan = plan(
            &Inputs {
                paths: vec![root.clone()],
                recursive: true,
            },
            &dir.path().join("out"),
            "glb",
        )
        .unwrap();
        let inputs: Vec<_> = plan.jobs.iter().map(|j| j.input.clone()).collect();
        assert_eq!(inputs, vec![root.join("a.bvh"), root.join("inside.bvh")]);
    }

    #[test]
    fn a_glob_pattern_takes_matching_files_by_name() {
        let dir = tempfile::tempdir().unwrap();
        touch(&dir.path().join("m/walk.bvh"));
        touch(&dir.path().join("m/run.bvh"));
        touch(&dir.path().join("m/run.txt"));
        let pattern = dir.path().join("m/*");
        let out = dir.path().join("o");
        let plan = plan(
            &Inputs {
                paths: vec![pattern],
                recursive: false,
            },
            &out,
            "vrma",
        )
        .unwrap();
        let outputs: Vec<_> = plan.jobs.iter().map(|j| j.output.clone()).collect();
        assert_eq!(outputs, vec![out.join("run.vrma"), out.join("walk.vrma")]);
        let none = Inputs {
            paths: vec![dir.path().join("m/*.glb")],
            recursive: false,
        };
        assert!(plan_error(&none, &out).contains("matches no file"));
    }

    /// Found by the `batch_plan` fuzz target: `.*/.*/*` matched `..` twice and took files two
    /// folders up. A `..` the pattern spells out is still followed.
    #[test]
    fn a_wildcard_never_matches_the_parent_folder() {
        let dir = tempfile::tempdir().unwrap();
        touch(&dir.path().join("up.bvh"));
        touch(&dir.path().join("in/.hidden/a.bvh"));
        let out = dir.path().join("o");
        let wild = Inputs {
            paths: vec![dir.path().join("in/.*/*.bvh")],
            recursive: false,
        };
        let inputs: Vec<_> = plan(&wild, &out, "glb")
            .unwrap()
            .jobs
            .into_iter()
            .map(|j| j.input)
            .collect();
        assert_eq!(inputs, vec![dir.path().join("in/.hidden/a.bvh")]);
        let spelled = Inputs {
            paths: vec![dir.path().join("in/../*.bvh")],
            recursive: false,
        };
        assert_eq!(plan(&spelled, &out, "glb").unwrap().jobs.len(), 1);
    }

    /// What cannot work is refused before any input is read, once, saying what to give
    /// instead: an output folder that is a file, a folder whose inputs are all in subfolders
    /// without `recursive`, a folder or pattern that gives nothing.
    #[test]
    fn what_cannot_work_is_refused_up_front() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("in");
        touch(&root.join("a/walk.bvh"));
        touch(&root.join("b/run.bvh"));
        touch(&root.join("b/notes.txt"));
        let file = dir.path().join("taken.txt");
        touch(&file);
        let unusable = |inputs: &Inputs, out: &Path| match try_plan(inputs, out, "glb") {
            Err(PlanError::Unusable(u)) => u,
            other => panic!("not refused as unusable: {other:?}"),
        };
        let flat = Inputs {
            paths: vec![root.clone()],
            recursive: false,
        };
        let out = dir.path().join("out");
        assert_eq!(
            unusable(&flat, &file),
            Unusable::OutputIsAFile(file.clone())
        );
        assert_eq!(
            unusable(&flat, &file.join("deeper")),
            Unusable::OutputIsAFile(file.clone())
        );
        let only_below = unusable(&flat, &out);
        assert_eq!(
            only_below,
            Unusable::OnlyInSubfolders {
                folder: root.clone(),
                below: 2
            }
        );
        let text = only_below.to_string();
        assert!(
            text.contains("its subfolders hold 2: add --recursive"),
            "{text}"
        );
        // plan() refuses the same, as an Unsupported error with the same text.
        assert_eq!(plan(&flat, &out, "glb").unwrap_err().to_string(), text);
        let deep = Inputs {
            recursive: true,
            ..flat.clone()
        };
        assert_eq!(try_plan(&deep, &out, "glb").unwrap().jobs.len(), 2);
        let empty = dir.path().join("empty");
        std::fs::create_dir_all(empty.join("sub")).unwrap();
        for recursive in [false, true] {
            let inputs = Inputs {
                paths: vec![root.join("a/walk.bvh"), empty.clone()],
                recursive,
            };
            assert_eq!(
                unusable(&inputs, &out),
                Unusable::EmptyFolder {
                    folder: empty.clone(),
                    recursive
                }
            );
        }
        let pattern = Inputs {
            paths: vec![root.join("*.fbx")],
            recursive: false,
        };
        assert!(matches!(unusable(&pattern, &out), Unusable::NoMatch(_)));
        let missing = Inputs {
            paths: vec![root.join("missing.bvh")],
            recursive: false,
        };
        assert!(matches!(
            try_plan(&missing, &out, "glb"),
            Err(PlanError::Failed(Error::Io { .. }))
        ));
        let models = [dir.path().join("x/hero.vrm"), dir.path().join("y/hero.glb")];
        assert!(matches!(
            try_plan_onto(&deep, &models, &out, "vrma"),
            Err(PlanError::Unusable(Unusable::SameModelName { .. }))
        ));
    }

    fn plan_error(inputs: &Inputs, out: &Path) -> String {
        plan(inputs, out, "glb").unwrap_err().to_string()
    }

    #[test]
    fn a_panicking_job_fails_alone() {
        let jobs: Vec<Job> = (0..8)
            .map(|i| Job {
                input: PathBuf::from(format!("{i}.bvh")),
                output: PathBuf::from("o"),
                with: None,
            })
            .collect();
        let results = run(
            &jobs,
            2,
            |job| {
                assert!(job.input != Path::new("3.bvh"), "boom");
                Ok(1)
            },
            |_, _| {},
        )
        .unwrap();
        assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 7);
        assert!(results[3]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("boom"));
    }
}
