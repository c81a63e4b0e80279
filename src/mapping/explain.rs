//! `humanoid map --explain`: for each bone, the joint that won, its score from names and from
//! shape, and the runner-up, so a user or a table's contributor sees why.
//!
//! The JSON form (the `explain` member of `map --json --explain`):
//!
//! ```text
//! [{"bone": "hips", "joint": "mixamorig:Hips", "names": 1.0, "table": "mixamo", "shape": 0.9,
//!   "runner_up": {"joint": "Root", "names": 0.0, "table": null, "shape": 0.0}}, ...]
//! ```

use serde::Serialize;

use super::solve::{Candidate, Solution};
use crate::model::skeleton::Skeleton;

/// One joint's evidence for a bone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    /// The joint's name.
    pub joint: String,
    /// The score from names (the weight of the table naming it; 0 when none does).
    pub names: f32,
    /// The table whose name counted.
    pub table: Option<String>,
    /// The score from shape (the auto-mapper's confidence when it chose this joint).
    pub shape: f32,
}

impl Evidence {
    fn of(skeleton: &Skeleton, candidate: &Candidate) -> Evidence {
        Evidence {
            joint: skeleton.name(candidate.joint).to_owned(),
            names: round(candidate.name),
            table: candidate.table.clone(),
            shape: round(candidate.shape),
        }
    }
}

/// What was weighed for one bone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoneExplanation {
    /// The canonical bone.
    pub bone: &'static str,
    /// The winner's evidence (`None`: no candidate fitted the hierarchy, the bone is missing).
    #[serde(flatten)]
    pub winner: Option<Evidence>,
    /// The best candidate that lost.
    pub runner_up: Option<Evidence>,
}

/// Every bone that had a candidate, in canonical order.
pub fn explain(skeleton: &Skeleton, solution: &Solution) -> Vec<BoneExplanation> {
    solution
        .choices
        .iter()
        .map(|choice| BoneExplanation {
            bone: choice.bone.as_str(),
            winner: choice.winner().map(|c| Evidence::of(skeleton, c)),
            runner_up: choice.runner_up().map(|c| Evidence::of(skeleton, c)),
        })
        .collect()
}

/// The explanation as text lines: bone, winner (names + shape), runner-up.
pub fn to_lines(explanation: &[BoneExplanation]) -> Vec<String> {
    let evidence = |e: &Evidence| {
        let names = match &e.table {
            Some(table) => format!("names {:.2} ({table})", e.names),
            None => "names 0".to_owned(),
        };
        format!("{} [{names}, shape {:.2}]", e.joint, e.shape)
    };
    explanation
        .iter()
        .map(|b| {
            let winner = b.winner.as_ref().map_or(
                "(missing: no candidate fits the hierarchy)".to_owned(),
                evidence,
            );
            let runner = b.runner_up.as_ref().map_or("-".to_owned(), &evidence);
            format!("{:<24} {winner}  runner-up: {runner}", b.bone)
        })
        .collect()
}

fn round(v: f32) -> f32 {
    (v * 100.0).round() / 100.0
}
