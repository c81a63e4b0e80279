//! Contact-aware retargeting: planted feet stay where they land, soles stay flat, nothing goes
//! through the floor (docs/conventions.md §7).
//!
//! Retargeting by world deltas ([`crate::pose::retarget`]) copies every bone's rotation
//! exactly, which is what three-vrm, UniVRM and Godot do, and why a retargeted foot slides,
//! floats or sinks on a body whose legs are not the source's. With contacts (`--contacts auto`,
//! the default of `retarget`), the world-delta pose is the start, and:
//!
//! - the feet's T-pose is the one whose sole is flat ([`sole`]), so a flat source foot is a
//!   flat target foot;
//! - the hips' path is scaled by the legs, the ankles kept at their heights;
//! - the source's plants are found ([`detect`]) per foot and toe joint;
//! - the solver ([`solve`]) keeps each planted joint where it landed and every foot and toe
//!   joint above the floor, by two-bone IK on the legs ([`ik`]) and, where a goal is out of
//!   reach, by lowering the hips;
//! - everything above the hips keeps its world-delta rotations;
//! - [`report`] says what was found and what changed.
//!
//! Where nothing can be planted (no plant in the clip, no feet on either side) the output is
//! the world-delta copy, exactly.

pub mod chain;
pub mod detect;
pub mod ik;
pub mod report;
pub mod sole;
pub mod solve;

pub use report::ContactReport;

/// Whether retargeting plants the feet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Contacts {
    /// Plant the feet where the source plants them (the default).
    #[default]
    Auto,
    /// Copy the world deltas exactly.
    Off,
}

impl Contacts {
    /// Parses `auto` or `off`.
    ///
    /// # Errors
    /// Any other word, named.
    pub fn parse(word: &str) -> Result<Contacts, String> {
        match word {
            "auto" => Ok(Contacts::Auto),
            "off" => Ok(Contacts::Off),
            other => Err(format!("contacts {other:?}: expected \"auto\" or \"off\"")),
        }
    }
}
