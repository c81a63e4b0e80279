//! Which mapping tables a request uses, and the mapping of one file by them: what the CLI's
//! `--map` / `--mappings` and the Python package's `map=` / `mappings=` both mean.
//!
//! The choice ([`crate::mapping::policy`]): the file's own declaration first; a forced table
//! (`auto` included) instead of it when one is named.
//!
//! ```
//! use humanoid::rig_tables::{map_file, Tables};
//!
//! let dir = tempfile::tempdir()?;
//! humanoid::demo::write_demo(dir.path(), false)?;
//! let tables = Tables::load(None, &[])?; // the built-in tables, nothing forced
//! let (report, mapped) = map_file(&dir.path().join("mannequin.glb"), &tables)?;
//! assert_eq!(report.method, "declared");
//! assert!(mapped.missing.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

use crate::error::{Diagnostics, Error};
use crate::formats::godot;
use crate::mapping::explain::{explain, BoneExplanation};
use crate::mapping::policy::{declared, How, Mapped, AUTO};
use crate::mapping::{explain_rig, map_rig, Choice, Library, MapReport, Method, RigMapping};
use crate::model::{HumanBone, Profile};
use crate::ops::read::read_asset;

/// The tables a request uses.
#[derive(Debug, Clone)]
pub struct Tables {
    /// The built-in tables, plus the folders and the file given.
    pub library: Library,
    /// The name of the table forced instead of the file's declaration (`auto` included).
    pub forced: Option<String>,
    /// What reading a Godot mapping found, each located at that file.
    pub diagnostics: Diagnostics,
}

impl Tables {
    /// The built-in tables, plus the `*.toml` tables of each folder in `dirs`; `map` forces one
    /// table: a built-in name, a TOML file, a Godot BoneMap / SkeletonProfile (`.tres`, or a
    /// scene's `.import`), or `auto` (the best table, else the auto-mapper).
    ///
    /// # Errors
    /// A folder or table cannot be read or is not a valid table.
    pub fn load(map: Option<&str>, dirs: &[PathBuf]) -> Result<Tables, Error> {
        let mut library = Library::builtin()?;
        for dir in dirs {
            library.add_dir(dir)?;
        }
        let mut diagnostics = Diagnostics::new();
        let forced = match map {
            Some(map) if map.ends_with(".toml") => Some(library.add_file(map.as_ref())?),
            Some(map) if map.ends_with(".tres") || map.ends_with(".import") => {
                let godot = godot::read_mapping(map.as_ref(), &library)?;
                for d in godot.diagnostics.iter() {
                    let location = if d.location.is_empty() {
                        map.to_owned()
                    } else {
                        format!("{map}:{}", d.location)
                    };
                    diagnostics.push(d.code, d.severity, location, d.message.clone());
                }
                Some(library.add_table(godot.table))
            }
            other => other.map(str::to_owned),
        };
        Ok(Tables {
            library,
            forced,
            diagnostics,
        })
    }

    /// These tables as a conversion's mapping (the forced table, else the best or the
    /// auto-mapper).
    pub fn to_rig_mapping(&self) -> RigMapping {
        RigMapping {
            library: self.library.clone(),
            table: self.forced.clone(),
        }
    }

    /// The mapping option of a conversion: `None` when neither a table nor a folder is given
    /// (the file's declaration, else the built-in tables, as every operation does alone).
    ///
    /// # Errors
    /// As [`Tables::load`].
    pub fn rig_mapping(
        map: Option<&str>,
        dirs: &[PathBuf],
    ) -> Result<(Option<RigMapping>, Diagnostics), Error> {
        if map.is_none() && dirs.is_empty() {
            return Ok((None, Diagnostics::new()));
        }
        let tables = Tables::load(map, dirs)?;
        let mapping = RigMapping {
            library: tables.library,
            table: tables.forced,
        };
        Ok((Some(mapping), tables.diagnostics))
    }
}

/// Maps the rig in `file`: its own declaration unless `tables` forces a table, else the best
/// table or the auto-mapper. The report names each bone's joint, node and confidence.
///
/// # Errors
/// The file cannot be read; the forced table does not exist.
pub fn map_file(file: &Path, tables: &Tables) -> Result<(MapReport, Mapped), Error> {
    let asset = read_asset(file)?.asset;
    Ok(match (tables.forced.as_deref(), declared(&asset)) {
        (None, Some(humanoid)) => (
            MapReport::declared(&asset, humanoid),
            Mapped::new(How::Declared, &humanoid.bones),
        ),
        (forced, _) => {
            let choice = match forced.filter(|t| *t != AUTO) {
                Some(name) => Choice::Table(tables.library.get(name).ok_or_else(|| {
                    Error::unsupported(format!("no mapping table named {name:?}"))
                })?),
                None => Choice::Detect,
            };
            let mapping = map_rig(&asset, &tables.library, choice, file)?;
            let how = match &mapping.method {
                Method::Table(name) => How::Table(name.clone()),
                Method::Auto => How::Auto,
            };
            (
                MapReport::new(&asset, &mapping),
                Mapped::new(how, &mapping.bones),
            )
        }
    })
}

/// Why the tables and the shape map `file` as they do (`map --explain`): for each bone the
/// winning joint, its score from names and from shape, and the runner-up. A forced table
/// (`--map TABLE`) is applied as it is and has nothing to explain (empty). A file's own
/// declaration is not weighed: this is what the tables and the shape would choose.
///
/// # Errors
/// As [`map_file`]; the rig is not a humanoid.
pub fn explain_file(file: &Path, tables: &Tables) -> Result<Vec<BoneExplanation>, Error> {
    let asset = read_asset(file)?.asset;
    let choice = match tables.forced.as_deref().filter(|t| *t != AUTO) {
        Some(name) => Choice::Table(
            tables
                .library
                .get(name)
                .ok_or_else(|| Error::unsupported(format!("no mapping table named {name:?}")))?,
        ),
        None => Choice::Detect,
    };
    let solution = explain_rig(&asset, &tables.library, choice, file)?;
    Ok(explain(&asset.skeleton, &solution))
}

/// Whether a mapping found none of the bones VRM 1.0 requires: the rig is not a humanoid.
pub fn maps_no_required_bone(mapped: &Mapped) -> bool {
    let required = HumanBone::ALL
        .into_iter()
        .filter(|b| b.is_required(Profile::Vrm1))
        .count();
    mapped.missing.len() == required
}
