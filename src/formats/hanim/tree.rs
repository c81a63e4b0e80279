//! The raw scene graph both parsers produce: nodes in an arena, their fields as written, DEF
//! names resolved, ROUTEs resolved, PROTO declarations kept.
//!
//! ## Overview
//!
//! The ClassicVRML parser (`classic`) and the X3D XML reader (`xml`) both fill a [`Scene`];
//! nothing after them knows which encoding a file used. A [`Node`] keeps its type name, its DEF
//! name, its fields in file order and the byte offset where it starts (turned into line:column
//! only when a message needs it). A field's [`Value`] is stored the way the syntax gave it
//! (numbers, strings, booleans, nodes); which field type it should have is checked by
//! [`super::interface`].

use std::borrow::Cow;

use super::interface::FieldType;

/// An index into [`Scene::nodes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct NodeId(u32);

impl NodeId {
    /// The position in the arena.
    pub fn index(self) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }

    /// The id of arena position `index` (`None` past `u32::MAX`).
    pub fn from_index(index: usize) -> Option<NodeId> {
        u32::try_from(index).ok().map(NodeId)
    }
}

/// Which syntax a file was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// X3D XML.
    Xml,
    /// ClassicVRML (`#X3D V3.x` / `#X3D V4.x`).
    Classic,
    /// VRML97 (`#VRML V2.0 utf8`).
    Vrml97,
}

/// A field value as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value<'a> {
    /// One or more numbers (every numeric field type, flattened).
    Numbers {
        /// The numbers.
        values: Vec<f64>,
        /// Written inside `[ ]`.
        bracketed: bool,
    },
    /// Quoted strings.
    Strings {
        /// The strings, unescaped.
        values: Vec<Cow<'a, str>>,
        /// Written inside `[ ]`.
        bracketed: bool,
    },
    /// `TRUE` / `FALSE` values.
    Bools {
        /// The values.
        values: Vec<bool>,
        /// Written inside `[ ]`.
        bracketed: bool,
    },
    /// Nodes (SFNode: one, unbracketed).
    Nodes {
        /// The nodes.
        values: Vec<NodeId>,
        /// Written inside `[ ]`.
        bracketed: bool,
    },
    /// `NULL` (an empty SFNode).
    Null,
    /// `[ ]`: an empty MF value of any type.
    Empty,
    /// `IS name` inside a PROTO body.
    Is(&'a str),
    /// An XML attribute of a node whose interface is unknown, kept as text.
    Text(&'a str),
}

impl Value<'_> {
    /// The numbers, when the value is numeric (an empty list counts as no numbers).
    pub fn numbers(&self) -> Option<&[f64]> {
        match self {
            Value::Numbers { values, .. } => Some(values),
            Value::Empty => Some(&[]),
            _ => None,
        }
    }

    /// The nodes, when the value holds nodes (`NULL` and `[ ]` count as none).
    pub fn nodes(&self) -> Option<&[NodeId]> {
        match self {
            Value::Nodes { values, .. } => Some(values),
            Value::Null | Value::Empty => Some(&[]),
            _ => None,
        }
    }

    /// The strings, when the value holds strings.
    pub fn strings(&self) -> Option<&[Cow<'_, str>]> {
        match self {
            Value::Strings { values, .. } => Some(values),
            Value::Empty => Some(&[]),
            _ => None,
        }
    }

    /// The booleans, when the value holds booleans.
    pub fn bools(&self) -> Option<&[bool]> {
        match self {
            Value::Bools { values, .. } => Some(values),
            Value::Empty => Some(&[]),
            _ => None,
        }
    }

    /// A short description of what was written, for messages: `3 numbers`, `a string`.
    pub fn describe(&self) -> String {
        let count = |n: usize, one: &str, many: &str| {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {many}")
            }
        };
        match self {
            Value::Numbers { values, .. } => count(values.len(), "number", "numbers"),
            Value::Strings { values, .. } => count(values.len(), "string", "strings"),
            Value::Bools { values, .. } => count(values.len(), "boolean", "booleans"),
            Value::Nodes { values, .. } => count(values.len(), "node", "nodes"),
            Value::Null => "NULL".to_owned(),
            Value::Empty => "an empty list".to_owned(),
            Value::Is(name) => format!("IS {name}"),
            Value::Text(text) => format!("the text {text:?}"),
        }
    }
}

/// One field of a node as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field<'a> {
    /// The field's name.
    pub name: &'a str,
    /// Its value.
    pub value: Value<'a>,
    /// Byte offset of the field name.
    pub at: usize,
}

/// One node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node<'a> {
    /// The node type (`HAnimJoint`, `Transform`, or a PROTO name).
    pub type_name: &'a str,
    /// Its DEF name.
    pub def: Option<&'a str>,
    /// Its fields, in file order.
    pub fields: Vec<Field<'a>>,
    /// Byte offset where the node starts.
    pub at: usize,
    /// The PROTO (or EXTERNPROTO) it instantiates: an index into [`Scene::protos`].
    pub proto: Option<usize>,
    /// X3D XML `containerField`, when given.
    pub container: Option<&'a str>,
}

impl<'a> Node<'a> {
    /// The field called `name`, as written (the last one when written twice).
    pub fn field(&self, name: &str) -> Option<&Field<'a>> {
        self.fields.iter().rev().find(|f| f.name == name)
    }
}

/// One field of a PROTO interface.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProtoField<'a> {
    /// `field`, `exposedField`, `eventIn`, ... as written.
    pub access: &'a str,
    /// Its type.
    pub field_type: FieldType,
    /// Its name.
    pub name: &'a str,
    /// Its default (`None` for events and EXTERNPROTO fields).
    pub default: Option<Value<'a>>,
    /// Byte offset of the declaration.
    pub at: usize,
}

/// A PROTO or EXTERNPROTO declaration.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Proto<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its interface.
    pub fields: Vec<ProtoField<'a>>,
    /// The nodes of its body (empty for an EXTERNPROTO).
    pub body: Vec<NodeId>,
    /// Whether it is an EXTERNPROTO.
    pub external: bool,
    /// Byte offset of the declaration.
    pub at: usize,
}

impl<'a> Proto<'a> {
    /// The interface field called `name`.
    pub fn field(&self, name: &str) -> Option<&ProtoField<'a>> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// A ROUTE, with both ends resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Route<'a> {
    /// The node events come from.
    pub from: NodeId,
    /// Its field (`fraction_changed`, `value_changed`).
    pub from_field: &'a str,
    /// The node events go to.
    pub to: NodeId,
    /// Its field (`set_fraction`, `set_rotation`, `rotation`).
    pub to_field: &'a str,
    /// Byte offset of the ROUTE.
    pub at: usize,
}

/// What the file's header says.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Header {
    /// `3.3`, `4.0`, `2.0` (VRML97), as written.
    pub version: String,
    /// The X3D profile, when given.
    pub profile: Option<String>,
    /// The COMPONENT statements: name and level.
    pub components: Vec<(String, i64)>,
    /// META statements: name and content.
    pub meta: Vec<(String, String)>,
    /// The UNIT statements the reader applies.
    pub units: Units,
}

/// The `UNIT` conversion factors the reader applies (X3D 4.0 §7.2.5.5: a file value times
/// the factor is the value in the base unit, metres or radians): 1 when the file states none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Units {
    /// Metres per file length unit (`UNIT length centimeter 0.01`).
    pub length: f64,
    /// Radians per file angle unit (`UNIT angle degree 0.017453292519943295`).
    pub angle: f64,
}

impl Default for Units {
    fn default() -> Self {
        Units {
            length: 1.0,
            angle: 1.0,
        }
    }
}

impl Units {
    /// Records `UNIT category name factor`; `Err` with the reason when the reader cannot apply
    /// it (a category it does not read, a factor that is not a positive finite number).
    pub fn set(&mut self, category: &str, factor: f64) -> Result<(), String> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(format!(
                "UNIT {category}: conversion factor {factor} is not a positive number: not applied"
            ));
        }
        match category {
            "length" => self.length = factor,
            "angle" => self.angle = factor,
            other => {
                return Err(format!(
                    "UNIT {other} {factor}: the reader reads no {other} values; not applied"
                ))
            }
        }
        Ok(())
    }
}

/// A parsed file.
#[derive(Debug, Clone)]
pub(crate) struct Scene<'a> {
    /// The syntax it was written in.
    pub syntax: Syntax,
    /// Its header.
    pub header: Header,
    /// Every node, in the order its start was read.
    pub nodes: Vec<Node<'a>>,
    /// The top-level nodes of the scene.
    pub roots: Vec<NodeId>,
    /// Every ROUTE of the scene (not those inside PROTO bodies).
    pub routes: Vec<Route<'a>>,
    /// Every PROTO and EXTERNPROTO declaration.
    pub protos: Vec<Proto<'a>>,
}

impl<'a> Scene<'a> {
    /// An empty scene.
    pub fn new(syntax: Syntax) -> Scene<'a> {
        Scene {
            syntax,
            header: Header::default(),
            nodes: Vec::new(),
            roots: Vec::new(),
            routes: Vec::new(),
            protos: Vec::new(),
        }
    }

    /// The node `id` (`None` for an id from another scene).
    pub fn node(&self, id: NodeId) -> Option<&Node<'a>> {
        self.nodes.get(id.index())
    }

    /// The PROTO a node instantiates.
    pub fn proto_of(&self, node: &Node<'a>) -> Option<&Proto<'a>> {
        node.proto.and_then(|p| self.protos.get(p))
    }

    /// The value of field `name` of `node`: as written, else the PROTO's default.
    pub fn value<'s>(&'s self, node: &'s Node<'a>, name: &str) -> Option<&'s Value<'a>> {
        match node.field(name) {
            Some(field) => Some(&field.value),
            None => self
                .proto_of(node)
                .and_then(|p| p.field(name))
                .and_then(|f| f.default.as_ref()),
        }
    }

    /// Every node reachable through a node-valued field of `id`, with the field's name.
    pub fn child_nodes<'s>(&'s self, id: NodeId) -> impl Iterator<Item = (&'a str, NodeId)> + 's {
        let fields: &[Field<'a>] = self.node(id).map_or(&[], |n| n.fields.as_slice());
        fields.iter().flat_map(|f| {
            f.value
                .nodes()
                .unwrap_or(&[])
                .iter()
                .map(move |child| (f.name, *child))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_describe_themselves() {
        let v = Value::Numbers {
            values: vec![1.0, 2.0],
            bracketed: false,
        };
        assert_eq!(v.describe(), "2 numbers");
        assert_eq!(v.numbers(), Some(&[1.0, 2.0][..]));
        assert_eq!(Value::Empty.nodes(), Some(&[][..]));
        assert_eq!(Value::Null.describe(), "NULL");
        assert!(Value::Is("x").numbers().is_none());
    }
}
