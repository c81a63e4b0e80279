//! The one mapping policy every command uses, and the one line that says what it did.
//!
//! A command that needs a rig's humanoid gets it here ([`map_humanoid`]):
//!
//! 1. `--map TABLE` or `--map auto` (a [`RigMapping`] whose `table` is set) **overrides**: the
//!    named table, or the choice below without the declaration (`auto`: the best table, else
//!    the auto-mapper). An override that maps none of the required bones of a file that
//!    declares a humanoid (a Mixamo table on a `.vrma`) leaves the declaration, and says so.
//! 2. Otherwise **the file's own declaration** (EXT_skeleton_humanoid, VRM, H-Anim joint
//!    names). A BVH declares none: the humanoid its reader found is found again here, so the
//!    line says how.
//! 3. Otherwise **the tables' names and the skeleton's shape, weighed together**
//!    ([`super::map_rig`], [`super::solve`]); the line names the table that named most of the
//!    bones, else the auto-mapper.
//!
//! [`Mapped::line`] is the sentence every command prints ("mapped by the file's declaration",
//! "mapped by table mixamo (52 of 55 bones)", "mapped by the auto-mapper (…)").

use std::path::Path;

use super::detect::Method;
use super::map::RigMapping;
use crate::error::{Diagnostics, Error};
use crate::model::asset::{Asset, HumanoidSkeleton};
use crate::model::humanoid::BoneMap;
use crate::model::Format;
use crate::model::{HumanBone, Profile};

/// The `--map` value that overrides the declaration with the tables or the auto-mapper.
pub const AUTO: &str = "auto";

/// Where a humanoid came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum How {
    /// The file's own declaration.
    Declared,
    /// The named table.
    Table(String),
    /// The auto-mapper (the skeleton's shape).
    Auto,
}

/// What [`map_humanoid`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapped {
    /// Where the humanoid came from.
    pub how: How,
    /// How many canonical bones it maps.
    pub bones: usize,
    /// The VRM 1.0 required bones it lacks.
    pub missing: Vec<HumanBone>,
    /// An override that did not fit the file and was left (see the module docs).
    pub ignored: Option<String>,
}

impl Mapped {
    /// What a bone map found by `how` maps.
    pub fn new(how: How, bones: &BoneMap) -> Mapped {
        Mapped {
            how,
            bones: bones.len(),
            missing: bones.missing(Profile::Vrm1),
            ignored: None,
        }
    }

    fn of(how: How, humanoid: &HumanoidSkeleton) -> Mapped {
        Mapped::new(how, &humanoid.bones)
    }

    /// How it was found, in a few words ("the file's declaration", "table mixamo", "the
    /// auto-mapper").
    pub fn by(&self) -> String {
        match &self.how {
            How::Declared => "the file's declaration".to_owned(),
            How::Table(name) => format!("table {name}"),
            How::Auto => "the auto-mapper".to_owned(),
        }
    }

    /// The one line every command prints: "mapped by table mixamo (52 of 55 bones)", with the
    /// required bones not found.
    pub fn line(&self) -> String {
        let count = format!("{} of {} bones", self.bones, HumanBone::COUNT);
        let mut line = match &self.how {
            How::Declared => format!("mapped by the file's declaration ({count})"),
            How::Table(_) => format!("mapped by {} ({count})", self.by()),
            How::Auto => format!("mapped by the auto-mapper (skeleton shape, {count})"),
        };
        line.push_str(&missing_clause(&self.missing));
        if let Some(why) = &self.ignored {
            line.push_str(&format!(" ({why})"));
        }
        line
    }

    /// Adds [`Mapped::line`] to `diagnostics` (`HUMANOID_MAPPED`, prefixed with `about`, the
    /// file or role, when given).
    pub fn note(&self, about: &str, diagnostics: &mut Diagnostics) {
        let line = if about.is_empty() {
            self.line()
        } else {
            format!("{about}: {}", self.line())
        };
        diagnostics.info("HUMANOID_MAPPED", "", line);
    }
}

/// The humanoid `asset` declares itself, if any (a BVH or an FBX declares none: its humanoid
/// comes from the mapping the reader ran).
pub fn declared(asset: &Asset) -> Option<&HumanoidSkeleton> {
    asset
        .humanoids
        .first()
        .filter(|_| !matches!(asset.format, Format::Bvh | Format::Fbx))
}

/// Gives `asset` (read from `path`) its humanoid by the one policy (module docs), replacing
/// any it has when `rig` overrides; `rig` `None` is the built-in tables without override.
///
/// # Errors
/// The named table does not exist; the rig declares no humanoid and is not one (the reason).
pub fn map_humanoid(
    asset: &mut Asset,
    path: &Path,
    rig: Option<&RigMapping>,
) -> Result<Mapped, Error> {
    let detected;
    let rig = match rig {
        Some(rig) => rig,
        None => {
            detected = RigMapping::detect()?;
            &detected
        }
    };
    let declared = declared(asset).is_some();
    if declared && rig.table.is_none() {
        return Ok(Mapped::of(How::Declared, &asset.humanoids[0]));
    }
    let mapping = match rig.map(asset, path) {
        Ok(mapping) => mapping,
        Err(e) if declared => {
            let mut mapped = Mapped::of(How::Declared, &asset.humanoids[0]);
            mapped.ignored = Some(format!("--map does not fit: {e}"));
            return Ok(mapped);
        }
        Err(e) => return Err(e),
    };
    let how = match &mapping.method {
        Method::Table(name) => How::Table(name.clone()),
        Method::Auto => How::Auto,
    };
    if declared && mapping.score().0 == 0 {
        let mut mapped = Mapped::of(How::Declared, &asset.humanoids[0]);
        mapped.ignored = Some(format!(
            "--map {} maps no required bone of this file, so its declaration stands",
            rig.table.as_deref().unwrap_or(AUTO)
        ));
        return Ok(mapped);
    }
    let root = mapping
        .bones
        .get(HumanBone::Hips)
        .map(|hips| asset.skeleton.ancestors(hips).last().unwrap_or(hips));
    let humanoid = HumanoidSkeleton {
        declared_t_pose: false,
        root,
        bones: mapping.bones,
    };
    let mapped = Mapped::of(how, &humanoid);
    asset.humanoids = vec![humanoid];
    Ok(mapped)
}
/// "; required bones not found: chest, neck" (nothing when `missing` is empty): the end of every
/// "mapped by …" sentence ([`Mapped::line`], the H-Anim reader's).
pub fn missing_clause(missing: &[HumanBone]) -> String {
    if missing.is_empty() {
        return String::new();
    }
    let list: Vec<&str> = missing.iter().map(|b| b.as_str()).collect();
    format!("; required bones not found: {}", list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of both "mapped by …" sentences, as the H-Anim reader and `Mapped::line` wrote
    /// them before they were shared.
    #[test]
    fn the_mapped_by_words() {
        assert_eq!(
            Method::Table("mixamo".into()).to_string(),
            "the mixamo table"
        );
        assert_eq!(Method::Auto.to_string(), "the auto-mapper");
        assert_eq!(missing_clause(&[]), "");
        assert_eq!(
            missing_clause(&[HumanBone::Chest, HumanBone::Neck]),
            "; required bones not found: chest, neck"
        );
        let mapped = Mapped {
            how: How::Table("mixamo".into()),
            bones: 52,
            missing: vec![HumanBone::Hips],
            ignored: None,
        };
        assert_eq!(
            mapped.line(),
            "mapped by table mixamo (52 of 55 bones); required bones not found: hips"
        );
    }
}
