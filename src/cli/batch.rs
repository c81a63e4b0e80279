//! Batch mode of `convert` (`convert INPUT… -o DIR --to FORMAT`): the plan from the library
//! ([`humanoid::batch`]), a progress bar with rate and ETA on a terminal (one line per file
//! otherwise), and the summary: ok / skipped / refused / failed per reason, total time, files
//! per second; or JSON Lines (one object per input, then one summary object). Exit 1 when any
//! input was refused or failed.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use humanoid::batch::{self, Job, Plan, Status};
use humanoid::{Diagnostic, Error};

use super::CliError;

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
            let status = match result {
                Ok((Done::Written(..), _)) => "ok",
                Ok((Done::Skipped, _)) => "skipped",
                Err(e) if Status::of_error(e) == Status::Refused => "refused",
                Err(_) => "failed",
            };
            match &progress {
                Some(bar) => bar.inc(1),
                None if !self.quiet && !self.json => {
                    eprintln!(
                        "{status:8} {} -> {}",
                        job.input.display(),
                        job.output.display()
                    );
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

    fn progress(&self, total: usize) -> Option<indicatif::ProgressBar> {
        if self.quiet || self.json || !std::io::stderr().is_terminal() {
            return None;
        }
        let bar = indicatif::ProgressBar::new(u64::try_from(total).unwrap_or(0));
        let style = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} files  {per_sec}  ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        Some(bar)
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
            "{} inputs in {:.2} s ({:.1} files/s, {} threads): {} ok, {} skipped, {} refused, {} failed",
            self.inputs, self.seconds, self.files_per_second, self.threads, self.ok, self.skipped, self.refused, self.failed
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
