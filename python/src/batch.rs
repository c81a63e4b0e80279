//! `humanoid.convert_many`: the command line's batch (`humanoid convert INPUT… -o DIR --to
//! FORMAT`) on the library's engine ([`humanoid::ops::batch`]): its plan (folders, glob
//! patterns, one output name per input, collisions refused) and its pool of threads (a failing
//! file never stopping the others). An existing output is skipped unless `force`, so an
//! interrupted run resumes; each output is written atomically.

use std::path::{Path, PathBuf};

use humanoid::ops::batch::{self, Inputs, Job, Status};
use humanoid::{ConvertOptions, Diagnostics, Error, Written};
use serde_json::{json, Value};

use crate::errors::{python_words, python_words_in};

/// `jobs=None` (one thread per core) or a positive number of threads.
///
/// # Errors
/// `jobs` is below 1.
pub fn threads(jobs: Option<i64>) -> Result<usize, Error> {
    match jobs {
        None => Ok(0),
        Some(n) => usize::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
            Error::unsupported(format!(
                "jobs={n}: expected a positive number of threads (None: one per core)"
            ))
        }),
    }
}

/// How a job ended, short of an error.
enum Done {
    Written(Box<Written>),
    Skipped,
}

/// Converts every input of `inputs` into `out_dir` with `options` (`options.to` names the
/// format), `threads` at a time (0: one per core); one record per input, sorted by input, as a
/// JSON list.
///
/// # Errors
/// An input that does not exist, a glob pattern that matches nothing, a folder that cannot be
/// read (nothing is converted then); the thread pool cannot start.
pub fn convert_many(
    inputs: &Inputs,
    out_dir: &Path,
    threads: usize,
    options: &ConvertOptions,
    tables: &Diagnostics,
) -> Result<String, Error> {
    let Some(to) = options.to else {
        return Err(Error::unsupported(
            "convert_many needs to=: the format of every output",
        ));
    };
    let plan = batch::plan(inputs, out_dir, to.extension())?;
    // Each output is new or replaced on purpose: the skip check is the batch's.
    let each = ConvertOptions {
        force: true,
        ..options.clone()
    };
    let work = |job: &Job| -> Result<Done, Error> {
        if !options.force && std::fs::symlink_metadata(&job.output).is_ok() {
            return Ok(Done::Skipped);
        }
        if let Some(folder) = job.output.parent() {
            std::fs::create_dir_all(folder).map_err(|e| Error::io(folder, e))?;
        }
        humanoid::convert(&job.input, &job.output, &each).map(|w| Done::Written(Box::new(w)))
    };
    let results = batch::run(&plan.jobs, threads, work, |_, _| {})?;
    let mut records: Vec<(PathBuf, Value)> = plan
        .refused
        .iter()
        .map(|refusal| {
            let message = format!("{}: {}", refusal.input.display(), refusal.reason);
            let record = record(
                &refusal.input,
                None,
                Status::Refused,
                Some(("BATCH_OUTPUT_COLLISION", message)),
                Vec::new(),
                Vec::new(),
            );
            (refusal.input.clone(), record)
        })
        .collect();
    for (job, result) in plan.jobs.iter().zip(results) {
        let entry = match result {
            Ok(Done::Written(written)) => {
                let mut diagnostics = serde_json::to_value(tables)
                    .ok()
                    .and_then(|v| v.as_array().cloned())
                    .unwrap_or_default();
                diagnostics.extend(
                    serde_json::to_value(&written.diagnostics)
                        .ok()
                        .and_then(|v| v.as_array().cloned())
                        .unwrap_or_default(),
                );
                record(
                    &job.input,
                    Some(&job.output),
                    Status::Ok,
                    None,
                    diagnostics,
                    written.files,
                )
            }
            Ok(Done::Skipped) => {
                let message = format!(
                    "{} exists: skipped (force=True replaces it)",
                    job.output.display()
                );
                record(
                    &job.input,
                    Some(&job.output),
                    Status::Skipped,
                    Some(("", message)),
                    Vec::new(),
                    Vec::new(),
                )
            }
            Err(error) => {
                let status = Status::of_error(&error);
                let code = error.code();
                let message = error.about(&job.input).to_string();
                record(
                    &job.input,
                    None,
                    status,
                    Some((code, message)),
                    Vec::new(),
                    Vec::new(),
                )
            }
        };
        records.push((job.input.clone(), entry));
    }
    records.sort_by(|a, b| a.0.cmp(&b.0));
    let list: Vec<Value> = records.into_iter().map(|(_, record)| record).collect();
    Ok(Value::Array(list).to_string())
}

/// One input's record: `input`, `output` (`None` unless written or skipped), `status`, `code`
/// and `message` (when it was not written), `diagnostics`, `files`.
fn record(
    input: &Path,
    output: Option<&Path>,
    status: Status,
    error: Option<(&str, String)>,
    mut diagnostics: Vec<Value>,
    files: Vec<PathBuf>,
) -> Value {
    for diagnostic in &mut diagnostics {
        python_words_in(diagnostic);
    }
    let status = match status {
        Status::Ok => "ok",
        Status::Skipped => "skipped",
        Status::Refused => "refused",
        Status::Failed => "failed",
    };
    let (code, message) = match error {
        Some((code, message)) => (
            (!code.is_empty()).then(|| code.to_owned()),
            Some(python_words(&message)),
        ),
        None => (None, None),
    };
    json!({
        "input": input,
        "output": output,
        "status": status,
        "code": code,
        "message": message,
        "diagnostics": diagnostics,
        "files": files,
    })
}
