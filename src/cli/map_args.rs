//! `--map` and `--mappings`, for every command that reads a rig: the mapping tables to use, and
//! the diagnostics of reading them (a Godot BoneMap's), which each command reports with its own.

use std::path::PathBuf;

use humanoid::mapping::{Library, RigMapping};
use humanoid::Diagnostics;

/// `--map TABLE` and `--mappings DIR`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct MapArgs {
    /// A mapping table to use instead of the file's declaration: a built-in name, a TOML file,
    /// a Godot BoneMap / SkeletonProfile (`.tres`, or a scene's `.import`), or `auto` (the best
    /// table, else the auto-mapper). Without it: the file's declaration, else the same choice.
    #[arg(long, value_name = "TABLE")]
    map: Option<String>,
    /// A folder of extra mapping tables (*.toml).
    #[arg(long, value_name = "DIR")]
    mappings: Vec<PathBuf>,
}

/// The tables asked for.
pub struct Tables {
    /// The built-in tables, plus the folders and the file given.
    pub library: Library,
    /// The name of the table `--map` forces (`auto` included).
    pub forced: Option<String>,
    /// What reading a Godot mapping found, each located at that file.
    pub diagnostics: Diagnostics,
}

/// The mapping option of a command, and the diagnostics of reading its tables.
pub struct Mapping {
    /// `None` unless `--map` or `--mappings` was given.
    pub rig: Option<RigMapping>,
    /// As [`Tables::diagnostics`].
    pub diagnostics: Diagnostics,
}

impl MapArgs {
    /// The tables (built in, plus the folders and file given) and the name of the forced table.
    pub fn tables(&self) -> Result<Tables, humanoid::Error> {
        let mut library = Library::builtin()?;
        for dir in &self.mappings {
            library.add_dir(dir)?;
        }
        let mut diagnostics = Diagnostics::new();
        let forced = match &self.map {
            Some(map) if map.ends_with(".toml") => Some(library.add_file(map.as_ref())?),
            Some(map) if map.ends_with(".tres") || map.ends_with(".import") => {
                let godot = humanoid::formats::godot::read_mapping(map.as_ref(), &library)?;
                for d in godot.diagnostics.iter() {
                    let location = if d.location.is_empty() {
                        map.clone()
                    } else {
                        format!("{map}:{}", d.location)
                    };
                    diagnostics.push(d.code, d.severity, location, d.message.clone());
                }
                Some(library.add_table(godot.table))
            }
            other => other.clone(),
        };
        Ok(Tables {
            library,
            forced,
            diagnostics,
        })
    }

    /// The mapping option: `None` unless `--map` or `--mappings` was given (`--map auto`
    /// detects, overriding a declared humanoid as `--map TABLE` does).
    pub fn rig_mapping(&self) -> Result<Mapping, humanoid::Error> {
        if self.map.is_none() && self.mappings.is_empty() {
            return Ok(Mapping {
                rig: None,
                diagnostics: Diagnostics::new(),
            });
        }
        let tables = self.tables()?;
        Ok(Mapping {
            rig: Some(RigMapping {
                library: tables.library,
                table: tables.forced,
            }),
            diagnostics: tables.diagnostics,
        })
    }
}
