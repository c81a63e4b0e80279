//! The tree of a Godot text file: sections (`[gd_resource …]`, `[ext_resource …]`,
//! `[sub_resource …]`, `[resource]`, or a `.import` file's `[remap]`, `[params]`) and their
//! `key = value` properties, each with the line:column it was read at.
//!
//! Two layouts share the grammar: a **resource** (`.tres`, first section `[gd_resource …]`,
//! properties written `key = value`) and a **config** file (`.import`, `project.godot`,
//! `key=value`, a blank line after each section header). [`Document::style`] records which,
//! so [`Document::to_text`] writes the file back in its own layout.
//!
//! ```
//! use std::path::Path;
//! use humanoid::formats::godot::{Document, Value};
//! let text = "[gd_resource type=\"BoneMap\" format=3]\n\n[resource]\nbone_map/Hips = &\"pelvis\"\n";
//! let doc = Document::parse(text, Path::new("map.tres"))?;
//! assert_eq!(doc.resource_type(), Some("BoneMap"));
//! let hips = doc.resource().and_then(|s| s.get("bone_map/Hips"));
//! assert_eq!(hips, Some(&Value::StringName("pelvis".into())));
//! assert_eq!(doc.to_text(), text);
//! # Ok::<(), humanoid::Error>(())
//! ```

use std::path::Path;

use super::value::Value;
use crate::error::Error;

/// A 1-based line and column (the one text position of every reader).
pub use crate::math::text::Position;

/// Which layout a file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// A text resource (`.tres`, `.tscn`): `key = value`.
    #[default]
    Resource,
    /// A config file (`.import`, `project.godot`): `key=value`.
    Config,
}

/// One `key = value` line.
///
/// Equality compares the key and the value only, not where they were read.
#[derive(Debug, Clone)]
pub struct Property {
    /// The key (`bone_map/Hips`), unquoted.
    pub key: String,
    /// The value.
    pub value: Value,
    /// Where the key starts.
    pub at: Position,
    /// Where the value starts.
    pub value_at: Position,
}

impl PartialEq for Property {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.value == other.value
    }
}

impl Property {
    /// A property made in code (positions 0:0).
    pub fn new(key: impl Into<String>, value: Value) -> Property {
        Property {
            key: key.into(),
            value,
            at: Position::default(),
            value_at: Position::default(),
        }
    }
}

/// One section: its header (`[tag key=value …]`) and the properties under it. Properties
/// before the first header (as in `project.godot`) belong to a section with an empty tag.
///
/// Equality compares tags, attributes and properties, not positions.
#[derive(Debug, Clone)]
pub struct Section {
    /// `gd_resource`, `ext_resource`, `sub_resource`, `resource`, `remap`, `params`, …
    pub tag: String,
    /// The header's `key=value` pairs, in order.
    pub attributes: Vec<(String, Value)>,
    /// The properties, in order.
    pub properties: Vec<Property>,
    /// Where the header's `[` is.
    pub at: Position,
}

impl PartialEq for Section {
    fn eq(&self, other: &Self) -> bool {
        self.tag == other.tag
            && self.attributes == other.attributes
            && self.properties == other.properties
    }
}

impl Section {
    /// A section made in code.
    pub fn new(tag: impl Into<String>, attributes: Vec<(String, Value)>) -> Section {
        Section {
            tag: tag.into(),
            attributes,
            properties: Vec::new(),
            at: Position::default(),
        }
    }

    /// The header attribute `key`.
    pub fn attribute(&self, key: &str) -> Option<&Value> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// The header attribute `key` as text; an integer id (Godot 3 style) as its digits.
    pub fn attribute_text(&self, key: &str) -> Option<String> {
        match self.attribute(key)? {
            Value::Int(i) => Some(i.to_string()),
            other => other.as_str().map(str::to_owned),
        }
    }

    /// The property `key` (the last one, if repeated, as Godot keeps the last).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.property(key).map(|p| &p.value)
    }

    /// The property `key` with its position.
    pub fn property(&self, key: &str) -> Option<&Property> {
        self.properties.iter().rev().find(|p| p.key == key)
    }

    /// Appends a property.
    pub fn push(&mut self, key: impl Into<String>, value: Value) {
        self.properties.push(Property::new(key, value));
    }
}

/// A parsed Godot text file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    /// Resource or config layout.
    pub style: Style,
    /// The sections, in file order.
    pub sections: Vec<Section>,
}

impl Document {
    /// Parses a text resource or config file (`path` names it in errors).
    ///
    /// # Errors
    /// [`Error::Invalid`] at the line:column of the first problem: bad syntax, an unterminated
    /// string, an unknown value constructor, nesting deeper than
    /// [`MAX_DEPTH`](super::parse::MAX_DEPTH), a file larger than
    /// [`MAX_TEXT`](super::parse::MAX_TEXT), a `SubResource`/`ExtResource` id no section
    /// declares; no section at all (an empty file).
    pub fn parse(text: &str, path: &Path) -> Result<Document, Error> {
        let document = super::parse::parse(text, path)?;
        if document.header().is_none() {
            return Err(Error::invalid(
                path,
                crate::error::Location::LineColumn { line: 1, column: 1 },
                "no section: expected a Godot text file, starting with a header such as [gd_resource …] ([remap] for a .import)",
            ));
        }
        Ok(document)
    }

    /// Reads and parses a file.
    ///
    /// # Errors
    /// The file cannot be read, is larger than [`MAX_TEXT`](super::parse::MAX_TEXT), does
    /// not parse, or has no section (an empty file).
    pub fn read(path: &Path) -> Result<Document, Error> {
        let text = super::project::read_text(path)?;
        Document::parse(&text, path)
    }

    /// The text of the document in its own layout (see the module docs).
    pub fn to_text(&self) -> String {
        super::write::write_document(self)
    }

    /// The first section (`gd_resource` for a `.tres`).
    pub fn header(&self) -> Option<&Section> {
        self.sections.iter().find(|s| !s.tag.is_empty())
    }

    /// The `type` of a `[gd_resource type="…"]` header.
    pub fn resource_type(&self) -> Option<&str> {
        self.header()
            .filter(|h| h.tag == "gd_resource")
            .and_then(|h| h.attribute("type"))
            .and_then(Value::as_str)
    }

    /// The main resource's `[resource]` section.
    pub fn resource(&self) -> Option<&Section> {
        self.section("resource")
    }

    /// The first section tagged `tag`.
    pub fn section(&self, tag: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.tag == tag)
    }

    /// The `[sub_resource]` with this id.
    pub fn sub_resource(&self, id: &str) -> Option<&Section> {
        self.sections
            .iter()
            .find(|s| s.tag == "sub_resource" && s.attribute_text("id").as_deref() == Some(id))
    }

    /// The `[ext_resource]` with this id.
    pub fn ext_resource(&self, id: &str) -> Option<&Section> {
        self.sections
            .iter()
            .find(|s| s.tag == "ext_resource" && s.attribute_text("id").as_deref() == Some(id))
    }
}
