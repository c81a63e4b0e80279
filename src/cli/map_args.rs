//! `--map` and `--mappings`, for every command that reads a rig: the mapping tables to use, and
//! the diagnostics of reading them (a Godot BoneMap's), which each command reports with its own.

use std::path::PathBuf;

use humanoid::mapping::RigMapping;
pub use humanoid::rig_tables::Tables;
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
        Tables::load(self.map.as_deref(), &self.mappings)
    }

    /// The mapping option of a conversion, and the diagnostics of reading its tables.
    pub fn rig_mapping(&self) -> Result<Mapping, humanoid::Error> {
        let (rig, diagnostics) = Tables::rig_mapping(self.map.as_deref(), &self.mappings)?;
        Ok(Mapping { rig, diagnostics })
    }
}
