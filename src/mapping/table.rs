//! [`Table`]: one rig convention's bone names, read from TOML (`docs/mappings.md`) and checked.
//!
//! ```
//! use humanoid::mapping::Table;
//! use humanoid::model::HumanBone;
//! let text = r#"
//! name = "tiny"
//! title = "Tiny"
//! description = "a test rig"
//! source = "this example"
//! [bones]
//! hips = "Pelvis"
//! spine = "Spine"
//! head = "Head"
//! leftUpperArm = "UpperArm_L"
//! leftLowerArm = "LowerArm_L"
//! leftHand = ["Hand_L", "Wrist_L"]
//! rightUpperArm = "UpperArm_R"
//! rightLowerArm = "LowerArm_R"
//! rightHand = "Hand_R"
//! leftUpperLeg = "Thigh_L"
//! leftLowerLeg = "Calf_L"
//! leftFoot = "Foot_L"
//! rightUpperLeg = "Thigh_R"
//! rightLowerLeg = "Calf_R"
//! rightFoot = "Foot_R"
//! "#;
//! let table = Table::parse(text, "tiny.toml".as_ref())?;
//! assert_eq!(table.names(HumanBone::LeftHand), ["Hand_L", "Wrist_L"]);
//! assert_eq!(table.bone_for("hand.L"), Some(HumanBone::LeftHand));
//! # Ok::<(), humanoid::Error>(())
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::normalize::{key, Key};
use crate::error::{Error, Location};
use crate::math::text::{line_column, LineIndex, Position};
use crate::model::bone::suggest;
use crate::model::{HumanBone, Profile};

/// Where a table came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Built into the tool (`mappings/` at build time).
    Builtin,
    /// Read from this file.
    File(PathBuf),
}

/// One rig convention: its canonical bone → rig bone names.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The id (`mixamo`).
    pub name: String,
    /// Display name.
    pub title: String,
    /// Which rigs use it; traps.
    pub description: String,
    /// Where the names were checked.
    pub source: String,
    /// Prefixes stripped from rig names before matching.
    pub prefixes: Vec<String>,
    /// Canonical bone → alternative rig names, in [`HumanBone::ALL`] order.
    pub bones: Vec<(HumanBone, Vec<String>)>,
    /// Built in or from a file.
    pub origin: Origin,
    keys: HashMap<Key, HumanBone>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    name: Spanned<String>,
    title: Option<Spanned<String>>,
    description: Option<Spanned<String>>,
    source: Option<Spanned<String>>,
    #[serde(rename = "match", default)]
    matching: Option<RawMatch>,
    bones: Spanned<indexmap::IndexMap<Spanned<String>, Spanned<toml::Value>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMatch {
    #[serde(default)]
    prefixes: Vec<String>,
}

/// Problems listed after the first in one message.
const MAX_LISTED: usize = 20;

/// The problems found: the first [`MAX_LISTED`] + 1 kept, the rest only counted (a table of
/// millions of bad entries costs no memory for their messages).
#[derive(Default)]
struct Problems {
    list: Vec<Problem>,
    total: usize,
}

impl Problems {
    fn push(&mut self, problem: Problem) {
        self.total += 1;
        if self.list.len() <= MAX_LISTED {
            self.list.push(problem);
        }
    }

    fn len(&self) -> usize {
        self.total
    }
}

/// A problem found in a table: where, and what.
struct Problem {
    at: usize,
    message: String,
}

impl Table {
    /// Parses and checks a table (`file` names it in errors; its stem must be the table's
    /// `name`).
    ///
    /// # Errors
    /// [`Error::Invalid`] at the line:column of the first problem, listing every problem found:
    /// TOML syntax, unknown canonical names, a rig bone listed for two bones, a required bone
    /// with no entry, missing metadata, a `name` that is not the file stem.
    pub fn parse(text: &str, file: &Path) -> Result<Table, Error> {
        let raw: RawTable = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start);
            let (line, column) = line_column(text, at);
            Error::invalid(
                file,
                Location::LineColumn { line, column },
                format!("not a mapping table: {}", e.message()),
            )
        })?;
        let mut problems = Problems::default();
        let table = check(raw, file, &mut problems);
        match problems.list.first() {
            None => table.ok_or_else(|| Error::unsupported("table check failed")),
            Some(first) => {
                // One index for every message: a lookup per problem from the start of the
                // text would be quadratic in a table of many lines.
                let lines = LineIndex::new(text);
                let Position { line, column } = lines.position(first.at);
                let mut message = first.message.clone();
                for p in problems.list.iter().skip(1) {
                    let at = lines.position(p.at);
                    let _ = write!(message, "; also {}: {}", at.label(), p.message);
                }
                if problems.total > MAX_LISTED + 1 {
                    let _ = write!(message, "; and {} more", problems.total - MAX_LISTED - 1);
                }
                Err(Error::invalid(
                    file,
                    Location::LineColumn { line, column },
                    message,
                ))
            }
        }
    }

    /// The rig names listed for `bone` (empty when the convention lacks it).
    pub fn names(&self, bone: HumanBone) -> &[String] {
        self.bones
            .iter()
            .find(|(b, _)| *b == bone)
            .map_or(&[], |(_, names)| names.as_slice())
    }

    /// The canonical bone a rig bone name is, by this table (after normalisation).
    pub fn bone_for(&self, rig_name: &str) -> Option<HumanBone> {
        self.keys.get(&self.key(rig_name)).copied()
    }

    /// A name's key under this table's prefixes.
    pub fn key(&self, name: &str) -> Key {
        let prefixes: Vec<&str> = self.prefixes.iter().map(String::as_str).collect();
        key(name, &prefixes)
    }

    /// The table as TOML, in the documented layout.
    pub fn to_toml(&self) -> String {
        let quote = |s: &str| toml::Value::String(s.to_owned()).to_string();
        let mut out = String::new();
        let _ = writeln!(out, "name = {}", quote(&self.name));
        let _ = writeln!(out, "title = {}", quote(&self.title));
        let _ = writeln!(out, "description = {}", quote(&self.description));
        let _ = writeln!(out, "source = {}", quote(&self.source));
        if !self.prefixes.is_empty() {
            let list: Vec<String> = self.prefixes.iter().map(|p| quote(p)).collect();
            let _ = writeln!(out, "\n[match]\nprefixes = [{}]", list.join(", "));
        }
        let _ = writeln!(out, "\n[bones]");
        for (bone, names) in &self.bones {
            match names.as_slice() {
                [one] => {
                    let _ = writeln!(out, "{bone} = {}", quote(one));
                }
                many => {
                    let list: Vec<String> = many.iter().map(|n| quote(n)).collect();
                    let _ = writeln!(out, "{bone} = [{}]", list.join(", "));
                }
            }
        }
        out
    }

    /// A table made in code (the auto-mapper's result, written with `map -o`); not checked
    /// against the required set.
    pub fn from_parts(
        name: &str,
        title: &str,
        description: &str,
        source: &str,
        bones: Vec<(HumanBone, Vec<String>)>,
    ) -> Table {
        let mut table = Table {
            name: name.to_owned(),
            title: title.to_owned(),
            description: description.to_owned(),
            source: source.to_owned(),
            prefixes: Vec::new(),
            bones,
            origin: Origin::Builtin,
            keys: HashMap::new(),
        };
        table.bones.sort_by_key(|(b, _)| b.index());
        table.index_keys();
        table
    }

    fn index_keys(&mut self) {
        let mut keys = HashMap::new();
        for (bone, names) in &self.bones {
            for name in names {
                keys.entry(self.key(name)).or_insert(*bone);
            }
        }
        self.keys = keys;
    }
}

fn check(raw: RawTable, file: &Path, problems: &mut Problems) -> Option<Table> {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let name = raw.name.get_ref().clone();
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        || name.is_empty()
    {
        problems.push(Problem {
            at: raw.name.span().start,
            message: format!("name {name:?}: use lower case letters, digits and '-'"),
        });
    } else if name != stem {
        problems.push(Problem {
            at: raw.name.span().start,
            message: format!("name {name:?} must equal the file stem {stem:?}"),
        });
    }
    let bones_at = raw.bones.span().start;
    let mut text = |field: Option<Spanned<String>>, what: &str| match field {
        Some(v) if !v.get_ref().trim().is_empty() => v.into_inner(),
        Some(v) => {
            problems.push(Problem {
                at: v.span().start,
                message: format!("{what} is empty"),
            });
            String::new()
        }
        None => {
            problems.push(Problem {
                at: 0,
                message: format!("missing {what} (see docs/mappings.md)"),
            });
            String::new()
        }
    };
    let title = text(raw.title, "title");
    let description = text(raw.description, "description");
    let source = text(raw.source, "source");
    let prefixes = raw.matching.map(|m| m.prefixes).unwrap_or_default();
    let prefix_refs: Vec<&str> = prefixes.iter().map(String::as_str).collect();

    let mut bones: Vec<(HumanBone, Vec<String>)> = Vec::new();
    let mut seen: HashMap<Key, (HumanBone, String)> = HashMap::new();
    let bones_table = raw.bones.into_inner();
    for (canonical, value) in &bones_table {
        let at = canonical.span().start;
        let canonical = canonical.get_ref();
        let value = value.get_ref();
        let Ok(bone) = canonical.parse::<HumanBone>() else {
            problems.push(Problem {
                at,
                // A suggestion costs an edit distance per bone: only for the problems shown.
                message: format!(
                    "{canonical:?} is not a canonical bone name{}",
                    if problems.len() <= MAX_LISTED {
                        suggest(canonical)
                    } else {
                        String::new()
                    }
                ),
            });
            continue;
        };
        let names: Vec<String> = match value {
            toml::Value::String(s) => vec![s.clone()],
            toml::Value::Array(items) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        if names.is_empty() {
            problems.push(Problem {
                at,
                message: format!("{canonical}: expected a rig bone name or a list of names"),
            });
            continue;
        }
        for rig in &names {
            let k = key(rig, &prefix_refs);
            if let Some((other, other_name)) = seen.get(&k) {
                if *other != bone {
                    problems.push(Problem {
                        at,
                        message: format!(
                            "rig bone {rig:?} is listed for {canonical} and (as {other_name:?}) for {other}: a rig bone can be one canonical bone only"
                        ),
                    });
                }
            } else {
                seen.insert(k, (bone, rig.clone()));
            }
        }
        bones.push((bone, names));
    }
    for bone in HumanBone::ALL {
        if bone.is_required(Profile::Vrm1) && !bones.iter().any(|(b, _)| *b == bone) {
            problems.push(Problem {
                at: bones_at,
                message: format!("required bone {bone} has no entry"),
            });
        }
    }
    bones.sort_by_key(|(b, _)| b.index());
    let mut table = Table {
        name,
        title,
        description,
        source,
        prefixes,
        bones,
        origin: Origin::File(file.to_path_buf()),
        keys: HashMap::new(),
    };
    table.index_keys();
    Some(table)
}
