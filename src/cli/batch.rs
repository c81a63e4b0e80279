//! Batch mode of `convert` (`convert INPUT… -o DIR --to FORMAT`) and `retarget`: the plan
//! from the library ([`humanoid::batch`]; what cannot work, such as `-o` naming a file, is a
//! usage error before anything runs), a progress bar with rate and ETA on a terminal (one line
//! per file otherwise), each file's warnings and notes under its line (unless `--quiet`), and
//! the summary: ok / skipped / refused / failed per reason, warnings and notes, total time,
//! files per second; or JSON Lines (one object per input, then one summary object). Exit 1
//! when any input was refused or failed.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use humanoid::batch::{self, Inputs, Job, Plan, PlanError, Status, Unusable};
use humanoid::{Diagnostic, Error, Severity};

use super::CliError;

/// Examples at the end of `convert --help`.
pub const CONVERT_EXAMPLES: &str = "\
Examples:
  humanoid convert hero.vrm hero.glb
      one file; the output's extension gives the format
  humanoid convert avatars/ more/*.vrm -o out/ --to vrm1 --recursive
      batch: every file under avatars/ (into out/<its subfolder>/) and each .vrm of more/
  humanoid convert 'mocap/*.bvh' -o glb/ --to glb -j 2 --json
      batch: a glob pattern (quoted: humanoid expands it), 2 files at once, JSON Lines";

/// Examples at the end of `retarget --help`.
pub const RETARGET_EXAMPLES: &str = "\
Examples:
  humanoid retarget walk.bvh --onto hero.vrm -o hero_walk.vrm
      one clip onto one character
  humanoid retarget moves/*.bvh --onto hero.vrm -o clips/ --to vrma
      batch: every clip onto hero.vrm, one .vrma each in clips/
  humanoid retarget moves/ --onto hero.vrm --onto robot.glb -o clips/ --to vrma --recursive
      batch: every clip under moves/ onto each character, into clips/hero/ and clips/robot/";

/// [`batch::try_plan`], a request that cannot work being a usage error (exit 2).
///
/// # Errors
/// [`CliError::Usage`]: `-o` names a file, a folder gives no input (or needs `--recursive`),
/// a glob pattern matches nothing; [`CliError::Library`]: an input cannot be read.
pub fn plan(inputs: &Inputs, dir: &Path, extension: &str) -> Result<Plan, CliError> {
    batch::try_plan(inputs, dir, extension).map_err(|e| usage(e, dir))
}

/// [`batch::try_plan_onto`], as [`plan`].
///
/// # Errors
/// As [`plan`]; two `--onto` characters with the same name.
pub fn plan_onto(
    inputs: &Inputs,
    models: &[PathBuf],
    dir: &Path,
    extension: &str,
) -> Result<Plan, CliError> {
    batch::try_plan_onto(inputs, models, dir, extension).map_err(|e| usage(e, dir))
}

/// A plan's refusal as the command line reports it: what cannot work is a usage error, naming
/// the flag where the library's text names a path.
fn usage(error: PlanError, dir: &Path) -> CliError {
    match error {
        PlanError::Unusable(Unusable::OutputIsAFile(file)) if file == dir => CliError::Usage(
            format!(
                "-o {} is a file; a batch writes into a folder (give a folder's path: it is made if missing)",
                dir.display()
            ),
        ),
        PlanError::Unusable(Unusable::OutputIsAFile(file)) => CliError::Usage(format!(
            "-o {}: {} is a file; a batch writes into a folder",
            dir.display(),
            file.display()
        )),
        PlanError::Unusable(unusable) => CliError::Usage(unusable.to_string()),
        PlanError::Failed(error) => error.into(),
    }
}

/// What one input gave.
#[derive(Debug, serde::Serialize)]
pub struct Record {
    /// The input.
    pub input: PathBuf,
    /// The files written (the output and any beside it).
    pub outputs: Vec<PathBuf>,
    /// How it ended.
    pub status: Status,
    /// The error's code, when it was refused or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    /// The error, when it was refused or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What was dropped, guessed or found along the way.
    pub diagnostics: Vec<Diagnostic>,
    /// Time spent on it, in milliseconds.
    pub milliseconds: f64,
}

/// A finished job: written (its files and diagnostics) or skipped.
pub enum Done {
    /// Written.
    Written(Vec<PathBuf>, Vec<Diagnostic>),
    /// The output existed.
    Skipped,
}

/// How a batch is run and reported.
pub struct Batch {
    /// Replace existing outputs (else they are skipped).
    pub force: bool,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// JSON Lines instead of text.
    pub json: bool,
    /// No per-file lines or progress.
    pub quiet: bool,
}

impl Batch {
    /// Runs `convert` on each job of `plan` (after the skip check and making the output's
    /// folder), prints the records and the summary.
    pub fn run(
        &self,
        out: &mut impl Write,
        plan: &Plan,
        convert: impl Fn(&Job) -> Result<(Vec<PathBuf>, Vec<Diagnostic>), Error> + Sync,
    ) -> Result<ExitCode, CliError> {
        let started = Instant::now();
        let total = plan.jobs.len() + plan.refused.len();
        let progress = self.progress(total);
        let work = |job: &Job| -> Result<(Done, Duration), Error> {
            let begun = Instant::now();
            if !self.force && std::fs::symlink_metadata(&job.output).is_ok() {
                return Ok((Done::Skipped, begun.elapsed()));
            }
            if let Some(folder) = job.output.parent() {
                std::fs::create_dir_all(folder).map_err(|e| Error::io(folder, e))?;
            }
            let (files, diagnostics) = convert(job)?;
            Ok((Done::Written(files, diagnostics), begun.elapsed()))
        };
        let done = |job: &Job, result: &Result<(Done, Duration), Error>| {
            let (status, diagnostics) = match result {
                Ok((Done::Written(_, diagnostics), _)) => ("ok", diagnostics.as_slice()),
                Ok((Done::Skipped, _)) => ("skipped", &[][..]),
                Err(e) if Status::of_error(e) == Status::Refused => ("refused", &[][..]),
                Err(_) => ("failed", &[][..]),
            };
            if self.json {
                return;
            }
            // The file's line, then why it failed and its diagnostics under it (only the
            // failure and errors with --quiet, and then the line only when there are any).
            let shown: Vec<&Diagnostic> = diagnostics.iter().filter(|d| self.shows(d)).collect();
            let error = result.as_ref().err().map(ToString::to_string);
            let lines = file_lines(status, job, error.as_deref(), &shown);
            let worth_saying = !shown.is_empty() || error.is_some();
            match &progress {
                Some(bar) => {
                    if worth_saying {
                        bar.println(lines.trim_end());
                    }
                    bar.inc(1);
                }
                None if !self.quiet || worth_saying => {
                    // One write under the lock: another worker's lines never come between.
                    let _ = std::io::stderr().lock().write_all(lines.as_bytes());
                }
                None => {}
            }
        };
        let results = batch::run(&plan.jobs, self.threads, work, done)?;
        if let Some(bar) = &progress {
            bar.inc(u64::try_from(plan.refused.len()).unwrap_or(0));
            bar.finish_and_clear();
        }
        let mut records: Vec<Record> = plan
            .refused
            .iter()
            .map(|r| Record {
                input: r.input.clone(),
                outputs: Vec::new(),
                status: Status::Refused,
                code: Some("BATCH_OUTPUT_COLLISION"),
                message: Some(format!("{}: {}", r.input.display(), r.reason)),
                diagnostics: Vec::new(),
                milliseconds: 0.0,
            })
            .collect();
        for (job, result) in plan.jobs.iter().zip(results) {
            records.push(match result {
                Ok((Done::Written(outputs, diagnostics), time)) => Record {
                    input: job.input.clone(),
                    outputs,
                    status: Status::Ok,
                    code: None,
                    message: None,
                    diagnostics,
                    milliseconds: time.as_secs_f64() * 1000.0,
                },
                Ok((Done::Skipped, time)) => Record {
                    input: job.input.clone(),
                    outputs: vec![job.output.clone()],
                    status: Status::Skipped,
                    code: None,
                    message: Some(format!(
                        "{} exists: skipped (--force replaces it)",
                        job.output.display()
                    )),
                    diagnostics: Vec::new(),
                    milliseconds: time.as_secs_f64() * 1000.0,
                },
                Err(error) => Record {
                    input: job.input.clone(),
                    outputs: Vec::new(),
                    status: Status::of_error(&error),
                    code: Some(error.code()),
                    message: Some(error.about(&job.input).to_string()),
                    diagnostics: Vec::new(),
                    milliseconds: 0.0,
                },
            });
        }
        records.sort_by(|a, b| a.input.cmp(&b.input));
        let summary = Summary::of(
            &records,
            started.elapsed(),
            humanoid::batch::worker_threads(self.threads, plan.jobs.len()),
        );
        if self.json {
            for record in &records {
                serde_json::to_writer(&mut *out, record).map_err(std::io::Error::from)?;
                writeln!(out)?;
            }
            serde_json::to_writer(&mut *out, &serde_json::json!({ "summary": summary }))
                .map_err(std::io::Error::from)?;
            writeln!(out)?;
        } else {
            summary.print(out, &records)?;
        }
        Ok(if summary.refused + summary.failed > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    /// Whether a file's diagnostic is printed under its line: errors always, warnings and
    /// notes unless `--quiet`.
    fn shows(&self, diagnostic: &Diagnostic) -> bool {
        diagnostic.severity == Severity::Error || !self.quiet
    }

    fn progress(&self, total: usize) -> Option<indicatif::ProgressBar> {
        if self.quiet || self.json || !std::io::stderr().is_terminal() {
            return None;
        }
        let bar = indicatif::ProgressBar::new(u64::try_from(total).unwrap_or(0));
        let style = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} files  {rate}  ETA {eta}",
        )
        .map(|style| {
            style.with_key(
                "rate",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&rate(state.per_sec()));
                },
            )
        })
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        Some(bar)
    }
}

/// A file's line, `ok       IN -> OUT`, and why it failed (`error: …`) and each diagnostic
/// under it, indented to the input.
fn file_lines(status: &str, job: &Job, error: Option<&str>, diagnostics: &[&Diagnostic]) -> String {
    let mut text = format!(
        "{status:8} {} -> {}\n",
        job.input.display(),
        job.output.display()
    );
    if let Some(error) = error {
        text.push_str(&format!("{:8} error: {error}\n", ""));
    }
    for diagnostic in diagnostics {
        text.push_str(&format!("{:8} {diagnostic}\n", ""));
    }
    text
}

/// A rate in files per second to three significant figures (`11.1 files/s`, `278 files/s`,
/// `0.512 files/s`): the progress bar and the summary print it alike.
pub fn rate(per_second: f64) -> String {
    let decimals = if per_second >= 99.95 {
        0
    } else if per_second >= 9.995 {
        1
    } else if per_second >= 0.9995 {
        2
    } else {
        3
    };
    format!("{per_second:.decimals$} files/s")
}

/// `1 thread`, `2 threads`: the noun in the plural unless the count is one.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The end of a batch: counts per status and per reason, time, rate.
#[derive(Debug, serde::Serialize)]
pub struct Summary {
    /// Inputs in all.
    pub inputs: usize,
    /// Written.
    pub ok: usize,
    /// Outputs that existed.
    pub skipped: usize,
    /// Could not be converted.
    pub refused: usize,
    /// Malformed, or reading or writing failed.
    pub failed: usize,
    /// Refused and failed inputs per error code.
    pub reasons: BTreeMap<&'static str, usize>,
    /// Wall time of the whole batch.
    pub seconds: f64,
    /// Inputs per second.
    pub files_per_second: f64,
    /// Worker threads.
    pub threads: usize,
    /// Warnings in the written files' diagnostics.
    pub warnings: usize,
    /// Notes (info) in the written files' diagnostics.
    pub notes: usize,
}

impl Summary {
    fn of(records: &[Record], elapsed: Duration, threads: usize) -> Summary {
        let count = |s: Status| records.iter().filter(|r| r.status == s).count();
        let mut reasons = BTreeMap::new();
        for record in records {
            if let Some(code) = record.code {
                *reasons.entry(code).or_insert(0) += 1;
            }
        }
        let seconds = elapsed.as_secs_f64();
        let severity = |s: Severity| {
            records
                .iter()
                .flat_map(|r| &r.diagnostics)
                .filter(|d| d.severity == s)
                .count()
        };
        Summary {
            inputs: records.len(),
            ok: count(Status::Ok),
            skipped: count(Status::Skipped),
            refused: count(Status::Refused),
            failed: count(Status::Failed),
            reasons,
            seconds,
            files_per_second: if seconds > 0.0 {
                records.len() as f64 / seconds
            } else {
                0.0
            },
            threads,
            warnings: severity(Severity::Warning),
            notes: severity(Severity::Info),
        }
    }

    fn print(&self, out: &mut impl Write, records: &[Record]) -> Result<(), CliError> {
        for record in records
            .iter()
            .filter(|r| matches!(r.status, Status::Refused | Status::Failed))
        {
            writeln!(
                out,
                "{:8} {}",
                format!("{:?}", record.status).to_lowercase(),
                record.message.as_deref().unwrap_or("")
            )?;
        }
        writeln!(
            out,
            "{} in {:.2} s ({}, {}): {} ok, {} skipped, {} refused, {} failed; {}, {}",
            count(self.inputs, "input"),
            self.seconds,
            rate(self.files_per_second),
            count(self.threads, "thread"),
            self.ok,
            self.skipped,
            self.refused,
            self.failed,
            count(self.warnings, "warning"),
            count(self.notes, "note"),
        )?;
        for (code, n) in &self.reasons {
            writeln!(out, "  {n:5}  {code}")?;
        }
        Ok(())
    }
}

/// A finished job's files, and its diagnostics after those of reading the mapping tables.
pub fn written(
    mapping: &[Diagnostic],
    report: humanoid::Written,
) -> (Vec<PathBuf>, Vec<Diagnostic>) {
    let mut diagnostics = mapping.to_vec();
    diagnostics.extend(report.diagnostics.iter().cloned());
    (report.files, diagnostics)
}

#[cfg(test)]
mod tests {
    use super::{count, rate};

    /// Issue 34: the progress bar printed indicatif's `12.2351/s`, the summary `{:.1}`
    /// (`1556.0 files/s`); both now print three significant figures.
    #[test]
    fn rates_have_three_significant_figures() {
        for (per_second, text) in [
            (12.2351, "12.2 files/s"),
            (11.139, "11.1 files/s"),
            (1556.04, "1556 files/s"),
            (278.4, "278 files/s"),
            (99.96, "100 files/s"),
            (9.996, "10.0 files/s"),
            (7.384, "7.38 files/s"),
            (0.51234, "0.512 files/s"),
            (0.0, "0.000 files/s"),
        ] {
            assert_eq!(rate(per_second), text);
        }
        assert_eq!(count(1, "thread"), "1 thread");
        assert_eq!(count(2, "thread"), "2 threads");
        assert_eq!(count(0, "warning"), "0 warnings");
    }
}
