//! [`Library`]: the tables a command can choose from: the built-in ones (compiled in from
//! `mappings/`) and any read from `--mappings DIR` or `--map FILE`.

use std::path::Path;

use super::table::{Origin, Table};
use crate::error::Error;

include!(concat!(env!("OUT_DIR"), "/builtin_mappings.rs"));

/// A set of tables, looked up by name.
#[derive(Debug, Clone, Default)]
pub struct Library {
    tables: Vec<Table>,
}

impl Library {
    /// The built-in tables.
    ///
    /// # Errors
    /// A built-in table does not pass its checks (a bug caught by the tests).
    pub fn builtin() -> Result<Library, Error> {
        let mut tables = Vec::with_capacity(BUILTIN.len());
        for (stem, text) in BUILTIN {
            let mut table = Table::parse(text, Path::new(&format!("mappings/{stem}.toml")))?;
            table.origin = Origin::Builtin;
            tables.push(table);
        }
        Ok(Library { tables })
    }

    /// Adds every `*.toml` table in `dir` (a table named like a built-in one replaces it).
    ///
    /// # Errors
    /// The folder cannot be read, or a table in it is invalid (the error names its file and
    /// line).
    pub fn add_dir(&mut self, dir: &Path) -> Result<(), Error> {
        let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
        let mut paths: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        paths.sort();
        for path in paths {
            self.add_file(&path)?;
        }
        Ok(())
    }

    /// Adds one table file; returns its name.
    ///
    /// # Errors
    /// The file cannot be read or is not a valid table.
    pub fn add_file(&mut self, path: &Path) -> Result<String, Error> {
        let text = read_table(path)?;
        Ok(self.add_table(Table::parse(&text, path)?))
    }

    /// Adds a table made elsewhere (a Godot BoneMap read as a table), replacing any table of
    /// the same name; returns its name.
    pub fn add_table(&mut self, table: Table) -> String {
        let name = table.name.clone();
        self.tables.retain(|t| t.name != name);
        self.tables.push(table);
        name
    }

    /// Every table.
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// The table called `name`.
    pub fn get(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}

/// The text of a table file, at most [`Limits::table_bytes`](crate::io::Limits) (the largest
/// built-in table is a few kilobytes).
fn read_table(path: &Path) -> Result<String, Error> {
    crate::io::input::read_text(
        path,
        crate::io::Limits::get().table_bytes,
        "a mapping table",
    )
}

/// The result of checking one table file.
#[derive(Debug)]
pub struct Lint {
    /// The file checked.
    pub file: String,
    /// `Ok` or the first problem (the message lists the others).
    pub result: Result<(), Error>,
}

/// Checks every `*.toml` in `dir`, one [`Lint`] per file.
///
/// # Errors
/// The folder cannot be read.
pub fn lint_dir(dir: &Path) -> Result<Vec<Lint>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut paths: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    Ok(paths
        .into_iter()
        .map(|path| {
            let result = read_table(&path).and_then(|text| Table::parse(&text, &path).map(|_| ()));
            Lint {
                file: path.display().to_string(),
                result,
            }
        })
        .collect())
}
