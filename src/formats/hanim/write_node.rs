//! Plain X3D nodes (Shape, geometry, Appearance, Coordinate, ...) built once and printed in
//! either syntax: X3D XML (`containerField` attributes) or the classic one (`field Node` and
//! `field [ ... ]`). A DEF is printed once: a node whose DEF was already printed is printed as
//! a USE (so shared textures, coordinates and normals are written once).

use std::collections::HashSet;

use super::plan::{indent, numbers, tuples};
use super::plan_mesh::{
    PlannedDisplacer, PlannedMaterial, PlannedPoints, PlannedSegment, PlannedShape, PlannedSkin,
};

/// A field value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// Numbers printed as they are (SF or MF).
    Numbers(Vec<f32>),
    /// Tuples of `n` numbers, comma-separated in the classic syntax.
    Tuples(Vec<f32>, usize),
    /// Integers.
    Ints(Vec<i64>),
    /// A boolean.
    Bool(bool),
    /// Strings (an MFString).
    Strings(Vec<String>),
    /// One string (an SFString).
    String(String),
}

/// A node: its type, DEF, the field it sits in, field values and child nodes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    /// Node type.
    pub type_name: &'static str,
    /// DEF name (USE'd when printed a second time).
    pub def: Option<String>,
    /// The parent's field holding it.
    pub container: &'static str,
    /// Field values.
    pub fields: Vec<(&'static str, Value)>,
    /// Child nodes (each names its field).
    pub children: Vec<Node>,
}

impl Node {
    /// A node of `type_name` in field `container`.
    pub fn new(type_name: &'static str, container: &'static str) -> Node {
        Node {
            type_name,
            def: None,
            container,
            fields: Vec::new(),
            children: Vec::new(),
        }
    }

    /// With a DEF name.
    pub fn def(mut self, def: &str) -> Node {
        self.def = Some(def.to_owned());
        self
    }

    /// With a field value.
    pub fn field(mut self, name: &'static str, value: Value) -> Node {
        self.fields.push((name, value));
        self
    }

    /// With a child.
    pub fn child(mut self, child: Node) -> Node {
        self.children.push(child);
        self
    }
}

/// Fields that hold several nodes (printed with brackets in the classic syntax).
fn is_multiple(field: &str) -> bool {
    matches!(
        field,
        "children"
            | "skin"
            | "joints"
            | "segments"
            | "sites"
            | "skeleton"
            | "humanoidBody"
            | "displacers"
    )
}

/// Which syntax, and for the classic one whether it is VRML97 (no IndexedTriangleSet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// X3D XML.
    Xml,
    /// ClassicVRML (X3D).
    Classic,
    /// VRML97.
    Vrml97,
}

/// The geometry of one shape: an IndexedTriangleSet (X3D) or IndexedFaceSet (VRML97) over
/// `coords` (a Coordinate, Normal and TextureCoordinate, DEF'd or USE'd by their names).
pub(crate) fn shape(
    syntax: Syntax,
    container: &'static str,
    planned: &PlannedShape,
    coord: Node,
    normal: Option<Node>,
    texcoord: Option<Node>,
) -> Node {
    let mut geometry = match syntax {
        Syntax::Vrml97 => {
            let mut index = Vec::with_capacity(planned.triangles.len() / 3 * 4);
            for t in planned.triangles.chunks_exact(3) {
                index.extend(t.iter().map(|i| i64::from(*i)));
                index.push(-1);
            }
            Node::new("IndexedFaceSet", "geometry").field("coordIndex", Value::Ints(index))
        }
        _ => Node::new("IndexedTriangleSet", "geometry").field(
            "index",
            Value::Ints(planned.triangles.iter().map(|i| i64::from(*i)).collect()),
        ),
    };
    if let Some(m) = &planned.material {
        if !m.solid {
            geometry = geometry.field("solid", Value::Bool(false));
        }
    }
    geometry = geometry.child(coord);
    if let Some(normal) = normal {
        geometry = geometry.child(normal);
    }
    if let Some(texcoord) = texcoord {
        geometry = geometry.child(texcoord);
    }
    let mut shape = Node::new("Shape", container);
    if let Some(m) = &planned.material {
        shape = shape.child(appearance(m));
    }
    shape.child(geometry)
}

fn appearance(m: &PlannedMaterial) -> Node {
    let mut material =
        Node::new("Material", "material").field("diffuseColor", Value::Numbers(m.diffuse.to_vec()));
    if m.transparency > 0.0 {
        material = material.field("transparency", Value::Numbers(vec![m.transparency]));
    }
    let mut appearance = Node::new("Appearance", "appearance");
    if let Some((mode, cutoff)) = m.alpha_mode {
        appearance = appearance.field("alphaMode", Value::String(mode.to_owned()));
        if let Some(cutoff) = cutoff {
            appearance = appearance.field("alphaCutoff", Value::Numbers(vec![cutoff]));
        }
    }
    let mut appearance = appearance.child(material);
    if let Some((def, url)) = &m.texture {
        appearance = appearance.child(
            Node::new("ImageTexture", "texture")
                .def(def)
                .field("url", Value::Strings(vec![url.to_string()])),
        );
    }
    appearance
}

/// The Coordinate, Normal and TextureCoordinate nodes of `points` (DEF'd when names are given).
pub(crate) fn point_nodes(
    points: &PlannedPoints,
    container_coord: &'static str,
    container_normal: &'static str,
    defs: Option<(&str, &str, &str)>,
) -> (Node, Option<Node>, Option<Node>) {
    let mut coord = Node::new("Coordinate", container_coord)
        .field("point", Value::Tuples(points.points.clone(), 3));
    let mut normal = (!points.normals.is_empty()).then(|| {
        Node::new("Normal", container_normal)
            .field("vector", Value::Tuples(points.normals.clone(), 3))
    });
    let mut texcoord = (!points.uvs.is_empty()).then(|| {
        Node::new("TextureCoordinate", "texCoord")
            .field("point", Value::Tuples(points.uvs.clone(), 2))
    });
    if let Some((c, n, t)) = defs {
        coord = coord.def(c);
        normal = normal.map(|x| x.def(n));
        texcoord = texcoord.map(|x| x.def(t));
    }
    (coord, normal, texcoord)
}

/// A USE of a node of `type_name` DEF'd as `def`, in field `container`.
pub(crate) fn use_of(type_name: &'static str, def: &str, container: &'static str) -> Node {
    Node::new(type_name, container).def(def)
}

/// The skin's `skinCoord` Coordinate and `skinNormal` Normal (DEF'd).
pub(crate) fn skin_coordinates(skin: &PlannedSkin) -> (Node, Option<Node>) {
    let (coord, normal, _) = point_nodes(
        &PlannedPoints {
            uvs: Vec::new(),
            ..skin.points.clone()
        },
        "skinCoord",
        "skinNormal",
        Some((&skin.coord_def, &skin.normal_def, "")),
    );
    (coord, normal)
}

/// The skin's Shapes (field `skin`), their geometry USEing the skin's coordinates.
pub(crate) fn skin_shapes(syntax: Syntax, skin: &PlannedSkin) -> Vec<Node> {
    let texcoord = (!skin.points.uvs.is_empty()).then(|| {
        Node::new("TextureCoordinate", "texCoord")
            .def(&skin.texcoord_def)
            .field("point", Value::Tuples(skin.points.uvs.clone(), 2))
    });
    skin.shapes
        .iter()
        .enumerate()
        .map(|(i, planned)| {
            let coord = use_of("Coordinate", &skin.coord_def, "coord");
            let normal = (!skin.points.normals.is_empty())
                .then(|| use_of("Normal", &skin.normal_def, "normal"));
            let texcoord = match (&texcoord, i) {
                (Some(t), 0) => Some(t.clone()),
                (Some(_), _) => Some(use_of("TextureCoordinate", &skin.texcoord_def, "texCoord")),
                (None, _) => None,
            };
            shape(syntax, "skin", planned, coord, normal, texcoord)
        })
        .collect()
}

/// A displacer (HAnimDisplacer, or the Displacer PROTO in VRML97) in a joint's `displacers`.
pub(crate) fn displacer(syntax: Syntax, planned: &PlannedDisplacer) -> Node {
    let type_name = if syntax == Syntax::Vrml97 {
        "Displacer"
    } else {
        "HAnimDisplacer"
    };
    Node::new(type_name, "displacers")
        .def(&planned.def)
        .field("name", Value::String(planned.name.clone()))
        .field(
            "coordIndex",
            Value::Ints(planned.indices.iter().map(|i| i64::from(*i)).collect()),
        )
        .field(
            "displacements",
            Value::Tuples(planned.displacements.clone(), 3),
        )
        .field("weight", Value::Numbers(vec![planned.weight]))
}

/// A segment (HAnimSegment, or Segment in VRML97) holding its shapes.
pub(crate) fn segment(syntax: Syntax, planned: &PlannedSegment) -> Node {
    let type_name = if syntax == Syntax::Vrml97 {
        "Segment"
    } else {
        "HAnimSegment"
    };
    let mut node = Node::new(type_name, "children")
        .def(&planned.def)
        .field("name", Value::String(planned.name.clone()));
    for shape_node in shapes(syntax, planned) {
        node = node.child(shape_node);
    }
    node
}

/// A segment's shapes, each with its own coordinates.
pub(crate) fn shapes(syntax: Syntax, planned: &PlannedSegment) -> Vec<Node> {
    planned
        .shapes
        .iter()
        .map(|(points, s)| {
            let (coord, normal, texcoord) = point_nodes(points, "coord", "normal", None);
            shape(syntax, "children", s, coord, normal, texcoord)
        })
        .collect()
}

/// Prints nodes, remembering which DEFs it printed.
#[derive(Debug, Default)]
pub(crate) struct Printer {
    printed: HashSet<String>,
}

impl Printer {
    /// Prints `node` at `depth` in `syntax`. In the classic syntax the caller has printed the
    /// field name (`node.container`) when the node is a field's value; `with_field` prints it
    /// here.
    pub fn print(&mut self, out: &mut String, syntax: Syntax, node: &Node, depth: usize) {
        match syntax {
            Syntax::Xml => self.xml(out, node, depth),
            _ => {
                indent(out, depth);
                self.classic(out, node, depth);
                out.push('\n');
            }
        }
    }

    /// Prints `node` as the value of its field in the classic syntax (`field Node`).
    pub fn print_field(&mut self, out: &mut String, node: &Node, depth: usize) {
        indent(out, depth);
        out.push_str(node.container);
        out.push(' ');
        self.classic(out, node, depth);
        out.push('\n');
    }

    fn xml(&mut self, out: &mut String, node: &Node, depth: usize) {
        indent(out, depth);
        out.push('<');
        out.push_str(node.type_name);
        if let Some(def) = &node.def {
            if self.printed.contains(def) {
                out.push_str(" USE='");
                attr(out, def);
                out.push('\'');
                container(out, node);
                out.push_str("/>\n");
                return;
            }
            self.printed.insert(def.clone());
            out.push_str(" DEF='");
            attr(out, def);
            out.push('\'');
        }
        for (name, value) in &node.fields {
            out.push(' ');
            out.push_str(name);
            out.push_str("='");
            match value {
                Value::Numbers(v) => numbers(out, v),
                Value::Tuples(v, _) => numbers(out, v),
                Value::Ints(v) => ints(out, v),
                Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Value::Strings(v) => {
                    for (i, s) in v.iter().enumerate() {
                        if i > 0 {
                            out.push(' ');
                        }
                        out.push('"');
                        attr(out, &s.replace('\\', "\\\\").replace('"', "\\\""));
                        out.push('"');
                    }
                }
                Value::String(s) => attr(out, s),
            }
            out.push('\'');
        }
        container(out, node);
        if node.children.is_empty() {
            out.push_str("/>\n");
            return;
        }
        out.push_str(">\n");
        for child in &node.children {
            self.xml(out, child, depth + 1);
        }
        indent(out, depth);
        out.push_str("</");
        out.push_str(node.type_name);
        out.push_str(">\n");
    }

    fn classic(&mut self, out: &mut String, node: &Node, depth: usize) {
        if let Some(def) = &node.def {
            if self.printed.contains(def) {
                out.push_str("USE ");
                out.push_str(def);
                return;
            }
            self.printed.insert(def.clone());
            out.push_str("DEF ");
            out.push_str(def);
            out.push(' ');
        }
        out.push_str(node.type_name);
        out.push_str(" {\n");
        for (name, value) in &node.fields {
            indent(out, depth + 1);
            out.push_str(name);
            out.push(' ');
            match value {
                Value::Numbers(v) if v.len() == 1 || v.len() == 3 => numbers(out, v),
                Value::Numbers(v) => {
                    out.push_str("[ ");
                    numbers(out, v);
                    out.push_str(" ]");
                }
                Value::Tuples(v, n) => {
                    out.push_str("[ ");
                    tuples(out, v, *n);
                    out.push_str(" ]");
                }
                Value::Ints(v) => {
                    out.push_str("[ ");
                    ints(out, v);
                    out.push_str(" ]");
                }
                Value::Bool(b) => out.push_str(if *b { "TRUE" } else { "FALSE" }),
                Value::Strings(v) => {
                    out.push_str("[ ");
                    for (i, s) in v.iter().enumerate() {
                        if i > 0 {
                            out.push(' ');
                        }
                        string(out, s);
                    }
                    out.push_str(" ]");
                }
                Value::String(s) => string(out, s),
            }
            out.push('\n');
        }
        // Children grouped by field, in order of first appearance.
        let mut fields: Vec<&'static str> = Vec::new();
        for child in &node.children {
            if !fields.contains(&child.container) {
                fields.push(child.container);
            }
        }
        for field in fields {
            let group: Vec<&Node> = node
                .children
                .iter()
                .filter(|c| c.container == field)
                .collect();
            indent(out, depth + 1);
            out.push_str(field);
            if is_multiple(field) {
                out.push_str(" [\n");
                for child in group {
                    indent(out, depth + 2);
                    self.classic(out, child, depth + 2);
                    out.push('\n');
                }
                indent(out, depth + 1);
                out.push_str("]\n");
            } else if let Some(child) = group.first() {
                out.push(' ');
                self.classic(out, child, depth + 1);
                out.push('\n');
            }
        }
        indent(out, depth);
        out.push('}');
    }
}

fn container(out: &mut String, node: &Node) {
    if node.container != "children" {
        out.push_str(" containerField='");
        out.push_str(node.container);
        out.push('\'');
    }
}

fn ints(out: &mut String, values: &[i64]) {
    use std::fmt::Write as _;
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{v}");
    }
}

/// Escapes text for a single-quoted XML attribute. Tab, line feed and carriage return become
/// character references (an XML reader turns them into spaces otherwise); the control
/// characters XML 1.0 cannot hold at all, not even as references (a NUL read from a
/// ClassicVRML string, say), become U+FFFD, so the file stays well-formed (found by the
/// `write_back` fuzz target).
pub(crate) fn attr(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&apos;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            '\u{0}'..='\u{8}'
            | '\u{B}'
            | '\u{C}'
            | '\u{E}'..='\u{1F}'
            | '\u{FFFE}'
            | '\u{FFFF}' => {
                out.push('\u{FFFD}');
            }
            other => out.push(other),
        }
    }
}

/// A quoted classic string with `"` and `\` escaped.
pub(crate) fn string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_hold_only_what_xml_can() {
        let mut out = String::new();
        attr(&mut out, "a'b\0\n\t\u{1F}<");
        assert_eq!(out, "a&apos;b\u{FFFD}&#10;&#9;\u{FFFD}&lt;");
        let document = format!("<X3D a='{out}'/>");
        let parsed = roxmltree::Document::parse(&document).unwrap();
        assert_eq!(
            parsed.root_element().attribute("a"),
            Some("a'b\u{FFFD}\n\t\u{FFFD}<")
        );
    }

    #[test]
    fn a_def_is_printed_once_then_used() {
        let coord = Node::new("Coordinate", "coord")
            .def("C")
            .field("point", Value::Tuples(vec![0.0, 1.0, 2.0], 3));
        let shape = |c: Node| {
            Node::new("Shape", "skin").child(
                Node::new("IndexedTriangleSet", "geometry")
                    .field("index", Value::Ints(vec![0, 0, 0]))
                    .child(c),
            )
        };
        let mut printer = Printer::default();
        let mut xml = String::new();
        printer.print(&mut xml, Syntax::Xml, &shape(coord.clone()), 0);
        printer.print(&mut xml, Syntax::Xml, &shape(coord.clone()), 0);
        assert!(xml.contains("<Coordinate DEF='C' point='0 1 2' containerField='coord'/>"));
        assert!(xml.contains("<Coordinate USE='C' containerField='coord'/>"));
        let mut printer = Printer::default();
        let mut classic = String::new();
        printer.print(&mut classic, Syntax::Classic, &shape(coord.clone()), 0);
        printer.print(&mut classic, Syntax::Classic, &shape(coord), 0);
        assert!(classic.contains("coord DEF C Coordinate {\n      point [ 0 1 2 ]"));
        assert!(classic.contains("coord USE C"));
    }
}
