//! `humanoid map`: which joint of a rig is which canonical bone, by the best table or by the
//! auto-mapper, with what is missing and what is left over.
//!
//! The choice (`docs/mappings.md`): a table named with `--map` is applied as it is.
//! Otherwise the tables' names and the auto-mapper's reading of the shape are weighed together
//! and solved as one assignment ([`super::solve`]); a rig where fewer than five bones can be
//! identified is not a humanoid: refused with the auto-mapper's reason. A partial humanoid (a
//! robot without hands) is an answer: the missing required bones are reported. A humanoid the
//! file declares (EXT_skeleton_humanoid, VRM) is not looked at here: [`super::policy`] puts it
//! first, and `map` reports it (`--map auto` shows what this choice finds, to compare).
//!
//! The JSON form (`map --json`):
//!
//! ```text
//! {"table": NAME|null, "method": "declared"|"table"|"auto",
//!  "bones": {"hips": "mixamorig:Hips", ...}, "nodes": {"hips": 3, ...},
//!  "confidence": {"hips": 0.98, ...}, "missing": [bone...], "unmapped": [joint name...]}
//! ```

use std::path::Path;

use indexmap::IndexMap;
use serde::Serialize;

use super::auto::auto_map;
use super::detect::{apply, candidates, Mapping, Method};
use super::library::Library;
use super::solve::{solve, Solution};
use super::table::Table;
use crate::error::Error;
use crate::model::asset::Asset;
use crate::model::{HumanBone, Profile};

/// The fewest bones a partial humanoid (a hand-only rig) must map to be accepted.
pub const MIN_BONES: usize = 5;

/// Which table to use.
#[derive(Debug, Clone, Copy)]
pub enum Choice<'a> {
    /// The best table, or the auto-mapper.
    Detect,
    /// This table, as it is.
    Table(&'a Table),
}

/// Maps the rig of `asset` (see the module docs).
///
/// # Errors
/// [`Error::Unsupported`] naming `path` when the rig is not a humanoid, with the reason.
pub fn map_rig(
    asset: &Asset,
    library: &Library,
    choice: Choice<'_>,
    path: &Path,
) -> Result<Mapping, Error> {
    Ok(explain_rig(asset, library, choice, path)?.mapping)
}

/// As [`map_rig`], with what was weighed for each bone (`map --explain`); a table named with
/// `--map` is applied as it is, with no choices to show.
///
/// # Errors
/// As [`map_rig`].
pub fn explain_rig(
    asset: &Asset,
    library: &Library,
    choice: Choice<'_>,
    path: &Path,
) -> Result<Solution, Error> {
    if let Choice::Table(table) = choice {
        return Ok(Solution {
            mapping: apply(table, asset),
            choices: Vec::new(),
        });
    }
    let shape = auto_map(asset);
    let solution = solve(asset, library.tables(), shape.as_ref().ok());
    if solution.mapping.bones.len() < MIN_BONES {
        let reason = match &shape {
            Err(e) => e.to_string(),
            Ok(_) => format!(
                "only {} joint(s) could be identified",
                solution.mapping.bones.len()
            ),
        };
        return Err(refuse(path, &reason));
    }
    Ok(solution)
}

fn refuse(path: &Path, reason: &str) -> Error {
    Error::unsupported(format!(
        "{}: {reason}; no table fits its names either, so it is not mapped (a hand-only rig needs at least {MIN_BONES} bones named by a table)",
        path.display()
    ))
}

/// The tables to map a rig with, and the one to use (`None`: detect). Commands that read a
/// rig take one from `--map` / `--mappings`.
#[derive(Debug, Clone)]
pub struct RigMapping {
    /// The tables (built in, and any added).
    pub library: Library,
    /// The table to use (`--map`), overriding a file's declaration; `auto`
    /// ([`super::policy::AUTO`]) overrides it with the best table or the auto-mapper; `None`
    /// keeps the declaration, else picks the best table or the auto-mapper.
    pub table: Option<String>,
}

impl RigMapping {
    /// The built-in tables, detecting.
    ///
    /// # Errors
    /// A built-in table is invalid (a bug the tests catch).
    pub fn detect() -> Result<RigMapping, Error> {
        Ok(RigMapping {
            library: Library::builtin()?,
            table: None,
        })
    }

    /// Maps the rig of `asset` read from `path`.
    ///
    /// # Errors
    /// The named table does not exist; the rig is not a humanoid.
    pub fn map(&self, asset: &Asset, path: &Path) -> Result<Mapping, Error> {
        let choice = match self.table.as_deref() {
            Some(name) if name != super::policy::AUTO => {
                Choice::Table(self.library.get(name).ok_or_else(|| {
                    Error::unsupported(format!("no mapping table named {name:?}"))
                })?)
            }
            _ => Choice::Detect,
        };
        map_rig(asset, &self.library, choice, path)
    }

    /// Gives `asset` its humanoid by the one policy ([`super::policy::map_humanoid`]): `--map`
    /// overrides, else the file's declaration, else the best table or the auto-mapper.
    ///
    /// # Errors
    /// As [`RigMapping::map`].
    pub fn attach(&self, asset: &mut Asset, path: &Path) -> Result<super::policy::Mapped, Error> {
        super::policy::map_humanoid(asset, path, Some(self))
    }
}

/// What `map` reports.
#[derive(Debug, Clone, Serialize)]
pub struct MapReport {
    /// The table used, or `null` for the auto-mapper.
    pub table: Option<String>,
    /// `declared`, `table` or `auto`.
    pub method: &'static str,
    /// Canonical bone → joint name.
    pub bones: IndexMap<&'static str, String>,
    /// Canonical bone → node index in the file.
    pub nodes: IndexMap<&'static str, usize>,
    /// Canonical bone → confidence in `[0, 1]`.
    pub confidence: IndexMap<&'static str, f32>,
    /// VRM 1.0 required bones not found.
    pub missing: Vec<&'static str>,
    /// The rig's joints left out.
    pub unmapped: Vec<String>,
}

impl MapReport {
    /// The report for the humanoid `asset` declares itself (`method` `declared`, no table,
    /// confidence 1).
    pub fn declared(asset: &Asset, humanoid: &crate::model::asset::HumanoidSkeleton) -> MapReport {
        let mut mapping = Mapping::new(Method::Auto);
        for (bone, joint) in humanoid.bones.iter() {
            mapping.set(bone, joint, 1.0);
        }
        let mut report = MapReport::new(asset, &mapping);
        report.method = "declared";
        report
    }

    /// The report for a mapping of `asset`.
    pub fn new(asset: &Asset, mapping: &Mapping) -> MapReport {
        let skeleton = &asset.skeleton;
        let mut bones = IndexMap::new();
        let mut nodes = IndexMap::new();
        let mut confidence = IndexMap::new();
        for (bone, joint) in mapping.bones.iter() {
            bones.insert(bone.as_str(), skeleton.name(joint).to_owned());
            nodes.insert(bone.as_str(), asset.source_index(joint));
            confidence.insert(
                bone.as_str(),
                (mapping.confidence(bone) * 100.0).round() / 100.0,
            );
        }
        let missing = HumanBone::ALL
            .into_iter()
            .filter(|b| b.is_required(Profile::Vrm1) && mapping.bones.get(*b).is_none())
            .map(HumanBone::as_str)
            .collect();
        let unmapped = candidates(asset)
            .into_iter()
            .filter(|j| mapping.bones.bone_of(*j).is_none())
            .map(|j| skeleton.name(j).to_owned())
            .collect();
        let (table, method) = match &mapping.method {
            Method::Table(name) => (Some(name.clone()), "table"),
            Method::Auto => (None, "auto"),
        };
        MapReport {
            table,
            method,
            bones,
            nodes,
            confidence,
            missing,
            unmapped,
        }
    }

    /// The mapping as editable TOML: the table of [`MapReport::to_table`], then each missing
    /// required bone as a commented line to fill in (until then `--map` refuses the table).
    pub fn to_toml(&self, name: &str, source: &str) -> String {
        let mut text = self.to_table(name, source).to_toml();
        for bone in &self.missing {
            text.push_str(&format!(
                "# {bone} = \"\"  # required, not found in the rig: fill in\n"
            ));
        }
        text
    }

    /// The mapping as a table (bones whose joint has no name are left out).
    pub fn to_table(&self, name: &str, source: &str) -> Table {
        let bones = self
            .bones
            .iter()
            .filter(|(_, joint)| !joint.is_empty())
            .filter_map(|(bone, joint)| {
                Some((bone.parse::<HumanBone>().ok()?, vec![joint.clone()]))
            })
            .collect();
        let how = match (&self.table, self.method) {
            (Some(t), _) => format!("the {t} table"),
            (None, "declared") => "the file's declaration".to_owned(),
            (None, _) => "the auto-mapper".to_owned(),
        };
        Table::from_parts(
            name,
            name,
            &format!("Mapping of {source} found by {how}; edit and pass with --map"),
            source,
            bones,
        )
    }
}
