//! The X3D XML reader: a roxmltree document → [`Scene`].
//!
//! ## Overview
//!
//! The `<X3D>` root gives the version and profile, `<head>` the components, meta tags and
//! `<unit>` statements, and
//! `<Scene>` the nodes, `<ROUTE>`s, `<ProtoDeclare>`/`<ExternProtoDeclare>` declarations and
//! `<ProtoInstance>`s (`<fieldValue>`, `<IS>`/`<connect>`). Attributes become fields, typed by
//! the node's interface ([`super::interface::builtin`] or the PROTO's declaration); child
//! elements go to the field their `containerField` names, or to the field X3D gives their node
//! type by default in that parent (an `HAnimJoint` under `HAnimHumanoid` goes to `skeleton`, a
//! USE of it to `joints`; `Coordinate` to `skinCoord` there and to `coord` elsewhere; ...).
//!
//! Errors have the same kinds and offsets as the ClassicVRML parser's: malformed XML (as
//! roxmltree reports it: unbalanced tags and the like), a USE before its DEF, an unknown
//! attribute, a value of the wrong type, a word that is not a number, nesting deeper than the
//! limit, a ROUTE naming a node that is not defined.

use std::collections::HashMap;

use roxmltree::{Document, Node as XmlNode};

use super::classic::{Limits, Note, ParseError};
use super::interface::{self, Access, FieldType};
use super::tree::{Field, Node, NodeId, Proto, ProtoField, Route, Scene, Syntax, Value};

/// Parses X3D XML text.
///
/// # Errors
/// [`ParseError`] at the first problem (see the module docs).
pub(crate) fn parse<'a>(
    document: &'a Document<'a>,
    limits: &Limits,
) -> Result<(Scene<'a>, Vec<Note>), ParseError> {
    let root = document.root_element();
    let mut reader = Reader {
        scene: Scene::new(Syntax::Xml),
        scopes: vec![HashMap::new()],
        protos: HashMap::new(),
        limits: *limits,
        depth: 0,
        values: 0,
        in_proto: 0,
        notes: Vec::new(),
    };
    if root.tag_name().name() != "X3D" {
        return reader.error(
            root.range().start,
            format!(
                "expected an <X3D> root element, found <{}>",
                root.tag_name().name()
            ),
        );
    }
    reader.scene.header.version = root.attribute("version").unwrap_or("").to_owned();
    reader.scene.header.profile = root.attribute("profile").map(str::to_owned);
    for child in root.children().filter(XmlNode::is_element) {
        match child.tag_name().name() {
            "head" => reader.head(child),
            "Scene" => {
                for statement in child.children().filter(XmlNode::is_element) {
                    if let Some(node) = reader.statement(statement)? {
                        reader.scene.roots.push(node);
                    }
                }
            }
            other => reader.notes.push(Note {
                at: child.range().start,
                code: "HANIM_XML_IGNORED",
                message: format!("<{other}> under <X3D> is not <head> or <Scene>: ignored"),
            }),
        }
    }
    Ok((reader.scene, reader.notes))
}

struct Reader<'a> {
    scene: Scene<'a>,
    scopes: Vec<HashMap<&'a str, NodeId>>,
    protos: HashMap<&'a str, usize>,
    limits: Limits,
    depth: usize,
    values: usize,
    in_proto: usize,
    notes: Vec<Note>,
}

/// Attributes every element may carry that are not fields.
const NOT_FIELDS: [&str; 6] = ["DEF", "USE", "containerField", "class", "id", "style"];

impl<'a> Reader<'a> {
    fn error<T>(&self, at: usize, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            at,
            message: message.into(),
        })
    }

    fn head(&mut self, head: XmlNode<'a, 'a>) {
        for child in head.children().filter(XmlNode::is_element) {
            match child.tag_name().name() {
                "component" => {
                    let name = child.attribute("name").unwrap_or("").to_owned();
                    let level = child
                        .attribute("level")
                        .and_then(|l| l.trim().parse::<i64>().ok())
                        .unwrap_or(1);
                    self.scene.header.components.push((name, level));
                }
                "meta" => {
                    let name = child.attribute("name").unwrap_or("").to_owned();
                    let content = child.attribute("content").unwrap_or("").to_owned();
                    self.scene.header.meta.push((name, content));
                }
                "unit" => {
                    let category = child.attribute("category").unwrap_or("");
                    let factor = child
                        .attribute("conversionFactor")
                        .and_then(|f| f.trim().parse::<f64>().ok())
                        .unwrap_or(f64::NAN);
                    if let Err(message) = self.scene.header.units.set(category, factor) {
                        self.notes.push(Note {
                            at: child.range().start,
                            code: "HANIM_UNIT_IGNORED",
                            message,
                        });
                    }
                }
                _ => {}
            }
        }
    }

    fn statement(&mut self, element: XmlNode<'a, 'a>) -> Result<Option<NodeId>, ParseError> {
        match element.tag_name().name() {
            "ROUTE" => self.route(element).map(|()| None),
            "ProtoDeclare" => self.proto(element).map(|()| None),
            "ExternProtoDeclare" => self.extern_proto(element).map(|()| None),
            "IMPORT" | "EXPORT" | "field" | "fieldValue" | "IS" | "connect" => Ok(None),
            _ => self.node(element, None).map(|(id, _)| Some(id)),
        }
    }

    fn lookup(&self, name: &str) -> Option<NodeId> {
        self.scopes
            .last()
            .and_then(|scope| scope.get(name).copied())
    }

    fn route(&mut self, element: XmlNode<'a, 'a>) -> Result<(), ParseError> {
        let at = element.range().start;
        let attribute = |name: &str| -> Result<&'a str, ParseError> {
            element.attribute(name).ok_or_else(|| ParseError {
                at,
                message: format!("<ROUTE> has no {name} attribute"),
            })
        };
        let (from_name, from_field) = (attribute("fromNode")?, attribute("fromField")?);
        let (to_name, to_field) = (attribute("toNode")?, attribute("toField")?);
        let resolve = |name: &str| match self.lookup(name) {
            Some(id) => Ok(id),
            None => Err(ParseError {
                at,
                message: format!(
                    "ROUTE names `{name}`, but no node is DEF'd with that name before it"
                ),
            }),
        };
        let (from, to) = (resolve(from_name)?, resolve(to_name)?);
        if self.in_proto == 0 {
            self.scene.routes.push(Route {
                from,
                from_field,
                to,
                to_field,
                at,
            });
        }
        Ok(())
    }

    /// A node element (or USE of one); returns its id and the field it goes to in its parent.
    fn node(
        &mut self,
        element: XmlNode<'a, 'a>,
        parent_type: Option<&str>,
    ) -> Result<(NodeId, &'a str), ParseError> {
        let at = element.range().start;
        let tag = element.tag_name().name();
        let used = element.attribute("USE");
        let container = element
            .attribute("containerField")
            .unwrap_or_else(|| default_container(tag, parent_type, used.is_some()));
        if let Some(name) = used {
            return match self.lookup(name) {
                Some(id) => Ok((id, container)),
                None => self.error(
                    at,
                    format!("USE {name} before its DEF: no node is DEF'd with that name earlier in the file"),
                ),
            };
        }
        if self.depth >= self.limits.max_depth {
            return self.error(
                at,
                format!("nodes nested deeper than {} levels", self.limits.max_depth),
            );
        }
        if self.scene.nodes.len() >= self.limits.max_nodes {
            return self.error(at, format!("more than {} nodes", self.limits.max_nodes));
        }
        let type_name = if tag == "ProtoInstance" {
            match element.attribute("name") {
                Some(name) => name,
                None => return self.error(at, "<ProtoInstance> has no name attribute"),
            }
        } else {
            tag
        };
        let proto = self.protos.get(type_name).copied();
        let Some(id) = NodeId::from_index(self.scene.nodes.len()) else {
            return self.error(at, "too many nodes");
        };
        let def = element.attribute("DEF");
        self.scene.nodes.push(Node {
            type_name,
            def,
            fields: Vec::new(),
            at,
            proto,
            container: element.attribute("containerField"),
        });
        self.depth += 1;
        let mut fields = self.attributes(element, type_name, proto)?;
        for child in element.children().filter(XmlNode::is_element) {
            match child.tag_name().name() {
                "IS" => self.connects(child, &mut fields)?,
                "fieldValue" => self.field_value(child, type_name, proto, &mut fields)?,
                "ROUTE" => self.route(child)?,
                "ProtoDeclare" => self.proto(child)?,
                "ExternProtoDeclare" => self.extern_proto(child)?,
                // Script interface declarations: kept as fields when they have a value.
                "field" if tag == "Script" => self.script_field(child, &mut fields)?,
                _ => {
                    let (child_id, field_name) = self.node(child, Some(type_name))?;
                    self.check_node_field(type_name, proto, field_name, child.range().start)?;
                    add_node(&mut fields, field_name, child_id, child.range().start);
                }
            }
        }
        self.depth -= 1;
        if let Some(node) = self.scene.nodes.get_mut(id.index()) {
            node.fields = fields;
        }
        if let (Some(def), Some(scope)) = (def, self.scopes.last_mut()) {
            scope.insert(def, id);
        }
        Ok((id, container))
    }

    /// The attributes of a node element as fields.
    fn attributes(
        &mut self,
        element: XmlNode<'a, 'a>,
        type_name: &'a str,
        proto: Option<usize>,
    ) -> Result<Vec<Field<'a>>, ParseError> {
        let mut fields = Vec::new();
        for attribute in element.attributes() {
            let name = attribute.name();
            if attribute.namespace().is_some()
                || NOT_FIELDS.contains(&name)
                || (element.tag_name().name() == "ProtoInstance" && name == "name")
            {
                continue;
            }
            let at = attribute.range().start;
            let value_at = attribute.range_value().start;
            let value = match self.field_type(type_name, proto, name, at)? {
                Some(field_type) => {
                    self.typed(field_type, attribute.value(), value_at, name, type_name)?
                }
                None => Value::Text(attribute.value()),
            };
            fields.push(Field { name, value, at });
        }
        Ok(fields)
    }

    /// The declared type of field `name`: `Ok(None)` for nodes whose interface is not known.
    fn field_type(
        &self,
        type_name: &str,
        proto: Option<usize>,
        name: &str,
        at: usize,
    ) -> Result<Option<FieldType>, ParseError> {
        if let Some(p) = proto.and_then(|p| self.scene.protos.get(p)) {
            return match p.field(name) {
                Some(f) => Ok(Some(f.field_type)),
                None => {
                    let names: Vec<&str> = p.fields.iter().map(|f| f.name).collect();
                    self.error(at, super::classic::unknown_field(type_name, name, &names))
                }
            };
        }
        match interface::builtin_field(type_name, name) {
            Ok(None) => Ok(None),
            Ok(Some(f)) if !f.access.settable() => self.error(
                at,
                format!("`{name}` of {type_name} is an event, not a field a file can set"),
            ),
            Ok(Some(f)) => Ok(Some(f.field_type)),
            Err(()) => {
                let names: Vec<&str> = interface::builtin(type_name)
                    .map(|fields| fields.map(|f| f.name).collect())
                    .unwrap_or_default();
                self.error(at, super::classic::unknown_field(type_name, name, &names))
            }
        }
    }

    /// An attribute's text parsed as `field_type`.
    fn typed(
        &mut self,
        field_type: FieldType,
        text: &'a str,
        at: usize,
        name: &str,
        type_name: &str,
    ) -> Result<Value<'a>, ParseError> {
        let value = interface::parse_text(field_type, text).map_err(|(offset, message)| {
            let message = if offset == 0 && message.starts_with("expected") {
                format!("field `{name}` of {type_name}: {message}")
            } else {
                message
            };
            ParseError {
                at: at + offset,
                message,
            }
        })?;
        if let Value::Numbers { values, .. } = &value {
            self.values = self.values.saturating_add(values.len());
            if self.values > self.limits.max_values {
                return self.error(
                    at,
                    format!("more than {} numbers in the file", self.limits.max_values),
                );
            }
        }
        Ok(value)
    }

    /// A child node may go to `field` of a node of `type_name` (checked for known interfaces).
    fn check_node_field(
        &self,
        type_name: &str,
        proto: Option<usize>,
        field: &str,
        at: usize,
    ) -> Result<(), ParseError> {
        let field_type = if let Some(p) = proto.and_then(|p| self.scene.protos.get(p)) {
            match p.field(field) {
                Some(f) => Some(f.field_type),
                None => {
                    return self.error(
                        at,
                        format!("{type_name} has no node field `{field}` (containerField)"),
                    )
                }
            }
        } else {
            match interface::builtin_field(type_name, field) {
                Ok(None) => None,
                Ok(Some(f)) => Some(f.field_type),
                Err(()) => {
                    return self.error(
                        at,
                        format!("{type_name} has no node field `{field}` (containerField)"),
                    )
                }
            }
        };
        match field_type {
            Some(t) if t.kind != interface::Kind::Node => self.error(
                at,
                format!(
                    "`{field}` of {type_name} is an {} field: a node cannot go there (containerField)",
                    t.name
                ),
            ),
            _ => Ok(()),
        }
    }

    /// `<IS><connect nodeField='a' protoField='b'/></IS>`.
    fn connects(
        &mut self,
        is: XmlNode<'a, 'a>,
        fields: &mut Vec<Field<'a>>,
    ) -> Result<(), ParseError> {
        if self.in_proto == 0 {
            return self.error(is.range().start, "IS is only allowed inside a PROTO body");
        }
        for connect in is.children().filter(XmlNode::is_element) {
            if let (Some(node_field), Some(proto_field)) = (
                connect.attribute("nodeField"),
                connect.attribute("protoField"),
            ) {
                fields.push(Field {
                    name: node_field,
                    value: Value::Is(proto_field),
                    at: connect.range().start,
                });
            }
        }
        Ok(())
    }

    /// `<fieldValue name='x' value='...'/>` of a ProtoInstance, or with node children.
    fn field_value(
        &mut self,
        element: XmlNode<'a, 'a>,
        type_name: &'a str,
        proto: Option<usize>,
        fields: &mut Vec<Field<'a>>,
    ) -> Result<(), ParseError> {
        let at = element.range().start;
        let Some(name) = element.attribute("name") else {
            return self.error(at, "<fieldValue> has no name attribute");
        };
        let field_type = self.field_type(type_name, proto, name, at)?;
        let value = match element.attribute("value") {
            Some(text) => match field_type {
                Some(t) => {
                    let value_at = element
                        .attribute_node("value")
                        .map_or(at, |a| a.range_value().start);
                    self.typed(t, text, value_at, name, type_name)?
                }
                None => Value::Text(text),
            },
            None => {
                let mut nodes = Vec::new();
                for child in element.children().filter(XmlNode::is_element) {
                    nodes.push(self.node(child, None)?.0);
                }
                match field_type {
                    Some(t) if !t.multi && nodes.len() <= 1 => match nodes.first() {
                        Some(node) => Value::Nodes {
                            values: vec![*node],
                            bracketed: false,
                        },
                        None => Value::Null,
                    },
                    _ => Value::Nodes {
                        values: nodes,
                        bracketed: true,
                    },
                }
            }
        };
        if let Some(t) = field_type {
            interface::check(t, &value)
                .or_else(|m| self.error(at, format!("field `{name}` of {type_name}: {m}")))?;
        }
        fields.push(Field { name, value, at });
        Ok(())
    }

    fn script_field(
        &mut self,
        element: XmlNode<'a, 'a>,
        fields: &mut Vec<Field<'a>>,
    ) -> Result<(), ParseError> {
        let at = element.range().start;
        let (Some(name), Some(type_word)) = (element.attribute("name"), element.attribute("type"))
        else {
            return Ok(());
        };
        if let (Some(field_type), Some(text)) =
            (FieldType::from_name(type_word), element.attribute("value"))
        {
            let value = self.typed(field_type, text, at, name, "Script")?;
            fields.push(Field { name, value, at });
        }
        Ok(())
    }

    /// The `<field>` declarations of a PROTO interface.
    fn interface(
        &mut self,
        parent: XmlNode<'a, 'a>,
        external: bool,
    ) -> Result<Vec<ProtoField<'a>>, ParseError> {
        let mut fields = Vec::new();
        for field in parent
            .children()
            .filter(|n| n.is_element() && n.tag_name().name() == "field")
        {
            let at = field.range().start;
            let (Some(name), Some(type_word)) = (field.attribute("name"), field.attribute("type"))
            else {
                return self.error(at, "<field> needs name and type attributes");
            };
            let Some(field_type) = FieldType::from_name(type_word) else {
                return self.error(
                    at,
                    format!("`{type_word}` is not a field type (SFVec3f, MFNode, ...)"),
                );
            };
            let access_word = field.attribute("accessType").unwrap_or("initializeOnly");
            let Some(access) = Access::from_keyword(access_word) else {
                return self.error(
                    at,
                    format!("`{access_word}` is not an accessType (initializeOnly, inputOnly, outputOnly, inputOutput)"),
                );
            };
            let default = if external || !access.settable() {
                None
            } else if let Some(text) = field.attribute("value") {
                Some(self.typed(field_type, text, at, name, "the PROTO interface")?)
            } else if field_type.kind == interface::Kind::Node {
                let mut nodes = Vec::new();
                for child in field.children().filter(XmlNode::is_element) {
                    nodes.push(self.node(child, None)?.0);
                }
                Some(if field_type.multi {
                    Value::Nodes {
                        values: nodes,
                        bracketed: true,
                    }
                } else {
                    nodes.first().map_or(Value::Null, |n| Value::Nodes {
                        values: vec![*n],
                        bracketed: false,
                    })
                })
            } else if field_type.multi {
                Some(Value::Empty)
            } else {
                None
            };
            fields.push(ProtoField {
                access: access_word,
                field_type,
                name,
                default,
                at,
            });
        }
        Ok(fields)
    }

    fn proto(&mut self, element: XmlNode<'a, 'a>) -> Result<(), ParseError> {
        let at = element.range().start;
        let Some(name) = element.attribute("name") else {
            return self.error(at, "<ProtoDeclare> has no name attribute");
        };
        let mut fields = Vec::new();
        let mut body_element = None;
        for child in element.children().filter(XmlNode::is_element) {
            match child.tag_name().name() {
                "ProtoInterface" => fields = self.interface(child, false)?,
                "ProtoBody" => body_element = Some(child),
                _ => {}
            }
        }
        let index = self.scene.protos.len();
        self.scene.protos.push(Proto {
            name,
            fields,
            body: Vec::new(),
            external: false,
            at,
        });
        let mut body = Vec::new();
        if let Some(body_element) = body_element {
            self.scopes.push(HashMap::new());
            self.in_proto += 1;
            for child in body_element.children().filter(XmlNode::is_element) {
                body.extend(self.statement(child)?);
            }
            self.in_proto -= 1;
            self.scopes.pop();
        }
        if let Some(proto) = self.scene.protos.get_mut(index) {
            proto.body = body;
        }
        self.protos.insert(name, index);
        Ok(())
    }

    fn extern_proto(&mut self, element: XmlNode<'a, 'a>) -> Result<(), ParseError> {
        let at = element.range().start;
        let Some(name) = element.attribute("name") else {
            return self.error(at, "<ExternProtoDeclare> has no name attribute");
        };
        let fields = self.interface(element, true)?;
        let index = self.scene.protos.len();
        self.scene.protos.push(Proto {
            name,
            fields,
            body: Vec::new(),
            external: true,
            at,
        });
        self.protos.insert(name, index);
        Ok(())
    }
}

/// Appends `node` to the node field `name` (created as a list when absent).
fn add_node<'a>(fields: &mut Vec<Field<'a>>, name: &'a str, node: NodeId, at: usize) {
    if let Some(Field {
        value: Value::Nodes { values, .. },
        ..
    }) = fields.iter_mut().find(|f| f.name == name)
    {
        values.push(node);
        return;
    }
    fields.push(Field {
        name,
        value: Value::Nodes {
            values: vec![node],
            bracketed: true,
        },
        at,
    });
}

/// The field a child element goes to when it names none (X3D's default `containerField`,
/// with the context-sensitive H-Anim defaults).
fn default_container(tag: &str, parent: Option<&str>, used: bool) -> &'static str {
    let in_humanoid = parent == Some("HAnimHumanoid");
    match tag {
        "HAnimJoint" if in_humanoid => {
            if used {
                "joints"
            } else {
                "skeleton"
            }
        }
        "HAnimSegment" if in_humanoid => "segments",
        "HAnimSite" if in_humanoid => {
            if used {
                "sites"
            } else {
                "skeleton"
            }
        }
        "HAnimDisplacer" => "displacers",
        "HAnimMotion" => "motions",
        "Coordinate" | "CoordinateDouble" if in_humanoid => "skinCoord",
        "Coordinate" | "CoordinateDouble" => "coord",
        "Normal" if in_humanoid => "skinNormal",
        "Normal" => "normal",
        "MetadataBoolean" | "MetadataDouble" | "MetadataFloat" | "MetadataInteger"
        | "MetadataSet" | "MetadataString"
            if parent == Some("MetadataSet") =>
        {
            "value"
        }
        "MetadataBoolean" | "MetadataDouble" | "MetadataFloat" | "MetadataInteger"
        | "MetadataSet" | "MetadataString" => "metadata",
        "Appearance" => "appearance",
        "Material" | "PhysicalMaterial" | "UnlitMaterial" | "TwoSidedMaterial" => "material",
        "ImageTexture" | "PixelTexture" | "MovieTexture" | "MultiTexture" => "texture",
        "TextureTransform" => "textureTransform",
        "TextureProperties" => "textureProperties",
        "TextureCoordinate" | "TextureCoordinateGenerator" | "MultiTextureCoordinate" => "texCoord",
        "Color" | "ColorRGBA" => "color",
        "FontStyle" => "fontStyle",
        "FillProperties" => "fillProperties",
        "LineProperties" => "lineProperties",
        "Box"
        | "Cone"
        | "Cylinder"
        | "Sphere"
        | "Text"
        | "IndexedFaceSet"
        | "IndexedTriangleSet"
        | "IndexedTriangleStripSet"
        | "IndexedTriangleFanSet"
        | "TriangleSet"
        | "TriangleStripSet"
        | "TriangleFanSet"
        | "IndexedLineSet"
        | "LineSet"
        | "PointSet"
        | "ElevationGrid"
        | "Extrusion"
        | "Arc2D"
        | "ArcClose2D"
        | "Circle2D"
        | "Disk2D"
        | "Polyline2D"
        | "Polypoint2D"
        | "Rectangle2D"
        | "TriangleSet2D" => "geometry",
        _ => "children",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::text::line_column;

    const LIMITS: Limits = Limits {
        max_depth: 16,
        max_values: 1 << 20,
        max_nodes: 1 << 20,
    };

    fn with_scene<R>(
        text: &str,
        f: impl FnOnce(Result<Scene<'_>, (usize, usize, String)>) -> R,
    ) -> R {
        let options = roxmltree::ParsingOptions {
            allow_dtd: true,
            nodes_limit: u32::MAX,
        };
        let document = match Document::parse_with_options(text, options) {
            Ok(d) => d,
            Err(e) => {
                let p = e.pos();
                return f(Err((p.row as usize, p.col as usize, e.to_string())));
            }
        };
        let result = parse(&document, &LIMITS).map(|(s, _)| s).map_err(|e| {
            let (line, column) = line_column(text, e.at);
            (line, column, e.message)
        });
        f(result)
    }

    #[test]
    fn humanoid_with_default_container_fields() {
        let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<X3D profile='Immersive' version='4.0'><head><component name='HAnim' level='1'/></head>
<Scene>
 <HAnimHumanoid DEF='H' name='h' version='2.0'>
  <HAnimJoint DEF='hanim_humanoid_root' name='humanoid_root' center='0 1 0'>
   <HAnimJoint DEF='J' name='sacroiliac' center='0 1.1 0'/>
  </HAnimJoint>
  <HAnimJoint USE='hanim_humanoid_root'/>
  <HAnimJoint USE='J'/>
  <Coordinate point='0 0 0, 1 1 1'/>
 </HAnimHumanoid>
 <TimeSensor DEF='T' cycleInterval='2' loop='true'/>
 <OrientationInterpolator DEF='I' key='0 1' keyValue='0 0 1 0 0 1 0 1'/>
 <ROUTE fromNode='T' fromField='fraction_changed' toNode='I' toField='set_fraction'/>
 <ROUTE fromNode='I' fromField='value_changed' toNode='J' toField='set_rotation'/>
</Scene></X3D>"#;
        with_scene(text, |scene| {
            let scene = scene.unwrap();
            assert_eq!(scene.header.version, "4.0");
            assert_eq!(scene.header.components, [("HAnim".to_owned(), 1)]);
            let h = scene.node(scene.roots[0]).unwrap();
            assert_eq!(h.field("skeleton").unwrap().value.nodes().unwrap().len(), 1);
            assert_eq!(h.field("joints").unwrap().value.nodes().unwrap().len(), 2);
            assert_eq!(
                h.field("skinCoord").unwrap().value.nodes().unwrap().len(),
                1
            );
            let t = scene.node(scene.roots[1]).unwrap();
            assert_eq!(
                t.field("cycleInterval").unwrap().value.numbers(),
                Some(&[2.0][..])
            );
            assert_eq!(t.field("loop").unwrap().value.bools(), Some(&[true][..]));
            assert_eq!(scene.routes.len(), 2);
        });
    }

    #[test]
    fn protos_in_xml() {
        let text = r#"<X3D version='3.3'><Scene>
<ProtoDeclare name='Joint'><ProtoInterface>
  <field accessType='inputOutput' name='name' type='SFString' value=''/>
  <field accessType='inputOutput' name='center' type='SFVec3f' value='0 0 0'/>
  <field accessType='inputOutput' name='children' type='MFNode'/>
</ProtoInterface><ProtoBody><Transform><IS><connect nodeField='center' protoField='center'/></IS></Transform></ProtoBody></ProtoDeclare>
<ProtoInstance DEF='hanim_HumanoidRoot' name='Joint'>
  <fieldValue name='name' value='HumanoidRoot'/>
  <fieldValue name='children'><ProtoInstance name='Joint'><fieldValue name='center' value='0 1 0'/></ProtoInstance></fieldValue>
</ProtoInstance>
</Scene></X3D>"#;
        with_scene(text, |scene| {
            let scene = scene.unwrap();
            let root = scene.node(scene.roots[0]).unwrap();
            assert_eq!(root.type_name, "Joint");
            assert!(root.proto.is_some());
            let child = root.field("children").unwrap().value.nodes().unwrap()[0];
            let child = scene.node(child).unwrap();
            assert_eq!(
                scene.value(child, "center").unwrap().numbers(),
                Some(&[0.0, 1.0, 0.0][..])
            );
            assert_eq!(
                scene.value(child, "name").unwrap().strings().unwrap()[0],
                ""
            );
        });
    }

    #[track_caller]
    fn error_of(body: &str) -> (usize, usize, String) {
        let text = format!("<X3D version='4.0'><Scene>\n{body}\n</Scene></X3D>");
        with_scene(&text, |scene| scene.map(|_| ()).unwrap_err())
    }

    #[test]
    fn bad_input() {
        assert_eq!(error_of("<Group><Transform></Group>").0, 2);
        assert_eq!(
            error_of("<Group><HAnimJoint USE='X'/></Group>"),
            (
                2,
                8,
                "USE X before its DEF: no node is DEF'd with that name earlier in the file"
                    .to_owned()
            )
        );
        assert_eq!(
            error_of("<HAnimJoint nmae='x'/>"),
            (
                2,
                13,
                "HAnimJoint has no field `nmae`; did you mean `name`?".to_owned()
            )
        );
        assert_eq!(
            error_of("<HAnimJoint center='0 1'/>"),
            (
                2,
                21,
                "field `center` of HAnimJoint: expected SFVec3f (3 numbers), found 2 numbers"
                    .to_owned()
            )
        );
        assert_eq!(
            error_of("<HAnimJoint center='0 x1 0'/>"),
            (2, 23, "`x1` is not a number".to_owned())
        );
        assert_eq!(
            error_of("<ROUTE fromNode='A' fromField='f' toNode='B' toField='g'/>"),
            (
                2,
                1,
                "ROUTE names `A`, but no node is DEF'd with that name before it".to_owned()
            )
        );
        assert_eq!(
            error_of("<HAnimJoint><Shape containerField='skeleton'/></HAnimJoint>").2,
            "HAnimJoint has no node field `skeleton` (containerField)"
        );
        let deep = "<Group>".repeat(20) + &"</Group>".repeat(20);
        assert_eq!(error_of(&deep).2, "nodes nested deeper than 16 levels");
        let text = "<Scene/>";
        with_scene(text, |scene| {
            assert!(scene
                .unwrap_err()
                .2
                .contains("expected an <X3D> root element"))
        });
    }
}
