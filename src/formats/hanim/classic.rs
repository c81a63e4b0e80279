//! The ClassicVRML (X3D) and VRML97 parser: text → [`Scene`].
//!
//! ## Overview
//!
//! A recursive-descent parser over the nom words of [`super::lexer`]. It reads the header line
//! (`#VRML V2.0 utf8`, `#X3D V4.0 utf8`), the X3D statements (`PROFILE`, `COMPONENT`, `UNIT`,
//! `META`, `IMPORT`, `EXPORT`), nodes with `DEF`/`USE`, `PROTO` and `EXTERNPROTO` declarations
//! and their instances, `IS` inside PROTO bodies, `ROUTE`s (resolved when read: VRML requires
//! their nodes to be defined first) and Script-style interface declarations in node bodies.
//!
//! Field values are read by their syntax alone (a run of numbers, strings, booleans, nodes, or a
//! bracketed list of one kind). Fields of the nodes in [`super::interface::builtin`] and of
//! PROTO instances are then checked against their declared types as soon as they are read.
//!
//! Every problem stops the parse with its byte offset (turned into line:column by the caller):
//! unbalanced braces and brackets, a USE before its DEF, an unknown field, a value of the wrong
//! type, a word that is not a number, nesting deeper than [`Limits::max_depth`], more numbers
//! than [`Limits::max_values`], a ROUTE naming a node that is not defined.

use std::collections::HashMap;

use super::interface::{self, Access, FieldType};
use super::lexer::{self, LexError};
use super::tree::{Field, Node, NodeId, Proto, ProtoField, Route, Scene, Syntax, Value};
use crate::math::text::edit_distance;

/// Bounds checked while parsing, before anything is allocated for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// The deepest nesting of nodes and lists.
    pub max_depth: usize,
    /// The most numbers in the whole file.
    pub max_values: usize,
    /// The most nodes in the whole file.
    pub max_nodes: usize,
}

/// Why a file could not be parsed, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// Byte offset of the problem.
    pub at: usize,
    /// What was found and what was expected.
    pub message: String,
}

/// Something worth reporting that did not stop the parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Note {
    /// Byte offset.
    pub at: usize,
    /// Diagnostic code.
    pub code: &'static str,
    /// What was found.
    pub message: String,
}

type PResult<'a, T> = Result<(&'a str, T), ParseError>;

/// Parses ClassicVRML or VRML97 text (without a byte order mark).
///
/// # Errors
/// [`ParseError`] at the first problem (see the module docs).
pub(crate) fn parse<'a>(
    text: &'a str,
    limits: &Limits,
) -> Result<(Scene<'a>, Vec<Note>), ParseError> {
    let mut parser = Parser {
        text,
        scene: Scene::new(Syntax::Classic),
        scopes: vec![HashMap::new()],
        protos: HashMap::new(),
        limits: *limits,
        depth: 0,
        values: 0,
        in_proto: 0,
        defining: Vec::new(),
        notes: Vec::new(),
    };
    let input = parser.header(text)?;
    let mut input = lexer::skip(input);
    while !input.is_empty() {
        let (rest, node) = parser.statement(input)?;
        if let Some(node) = node {
            parser.scene.roots.push(node);
        }
        input = lexer::skip(rest);
    }
    Ok((parser.scene, parser.notes))
}

struct Parser<'a> {
    text: &'a str,
    scene: Scene<'a>,
    /// DEF names: the scene's, and one more scope per PROTO body being read.
    scopes: Vec<HashMap<&'a str, NodeId>>,
    protos: HashMap<&'a str, usize>,
    limits: Limits,
    depth: usize,
    values: usize,
    in_proto: usize,
    /// The PROTOs whose bodies are being read, innermost last.
    defining: Vec<&'a str>,
    notes: Vec<Note>,
}

impl<'a> Parser<'a> {
    fn at(&self, input: &str) -> usize {
        self.text.len().saturating_sub(input.len())
    }

    fn error<T>(&self, input: &str, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            at: self.at(input),
            message: message.into(),
        })
    }

    fn lex_error(&self, e: LexError<'_>) -> ParseError {
        ParseError {
            at: self.at(e.rest),
            message: e.message,
        }
    }

    fn note(&mut self, input: &str, code: &'static str, message: impl Into<String>) {
        let at = self.at(input);
        self.notes.push(Note {
            at,
            code,
            message: message.into(),
        });
    }

    /// The header line: `#VRML V2.0 utf8` or `#X3D V3.3 utf8`.
    fn header(&mut self, input: &'a str) -> Result<&'a str, ParseError> {
        let line = input.lines().next().unwrap_or("");
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("#VRML"), Some(version)) => {
                let version = version.trim_start_matches('V');
                if version != "2.0" {
                    return self.error(
                        input,
                        format!(
                            "VRML {version} is not supported: expected `#VRML V2.0 utf8` (VRML97) or `#X3D V3.x/V4.x utf8`"
                        ),
                    );
                }
                self.scene.syntax = Syntax::Vrml97;
                self.scene.header.version = version.to_owned();
            }
            (Some("#X3D"), Some(version)) => {
                self.scene.syntax = Syntax::Classic;
                self.scene.header.version = version.trim_start_matches('V').to_owned();
            }
            _ => self.note(
                input,
                "HANIM_NO_HEADER",
                "the file does not start with `#VRML V2.0 utf8` or `#X3D V4.0 utf8`: read as ClassicVRML",
            ),
        }
        Ok(input)
    }

    fn word(&self, input: &'a str, what: &str) -> PResult<'a, &'a str> {
        match lexer::identifier(input) {
            Ok(found) => Ok(found),
            Err(_) => self.error(input, format!("expected {what}, found {}", found(input))),
        }
    }

    fn expect(&self, input: &'a str, c: u8, what: &str) -> Result<&'a str, ParseError> {
        if input.as_bytes().first() == Some(&c) {
            Ok(input.get(1..).unwrap_or(""))
        } else {
            self.error(input, format!("expected {what}, found {}", found(input)))
        }
    }

    /// A top-level statement (or one inside a PROTO body); returns the node, if it was one.
    fn statement(&mut self, input: &'a str) -> PResult<'a, Option<NodeId>> {
        if input.starts_with('}') {
            return self.error(input, "unbalanced braces: `}` without an opening `{`");
        }
        if input.starts_with(']') {
            return self.error(input, "unbalanced brackets: `]` without an opening `[`");
        }
        let (rest, word) = self.word(input, "a node, PROTO or ROUTE")?;
        let rest = lexer::skip(rest);
        match word {
            "PROTO" => self.proto(rest, input).map(|r| (r, None)),
            "EXTERNPROTO" => self.extern_proto(rest, input).map(|r| (r, None)),
            "ROUTE" => self.route(rest, input).map(|r| (r, None)),
            "PROFILE" => {
                let (rest, name) = self.word(rest, "a profile name")?;
                self.scene.header.profile = Some(name.to_owned());
                Ok((rest, None))
            }
            "COMPONENT" => self.component(rest).map(|r| (r, None)),
            "UNIT" => {
                let (rest, category) = self.word(rest, "a unit category")?;
                let (rest, _name) = self.word(lexer::skip(rest), "a unit name")?;
                let (rest, factor) =
                    lexer::number(lexer::skip(rest)).map_err(|e| self.lex_error(e))?;
                if let Err(message) = self.scene.header.units.set(category, factor) {
                    self.note(input, "HANIM_UNIT_IGNORED", message);
                }
                Ok((rest, None))
            }
            "META" => {
                let (rest, name) = self.quoted(rest)?;
                let (rest, content) = self.quoted(lexer::skip(rest))?;
                self.scene.header.meta.push((name, content));
                Ok((rest, None))
            }
            "IMPORT" | "EXPORT" => self.import_export(word, rest).map(|r| (r, None)),
            _ => self.node_statement(input).map(|(r, n)| (r, Some(n))),
        }
    }

    fn quoted(&self, input: &'a str) -> PResult<'a, String> {
        if !input.starts_with('"') {
            return self.error(
                input,
                format!("expected a quoted string, found {}", found(input)),
            );
        }
        let (rest, s) = lexer::string(input).map_err(|e| self.lex_error(e))?;
        Ok((rest, s.into_owned()))
    }

    /// `COMPONENT name:level` (X3D also allows spaces around the colon).
    fn component(&mut self, input: &'a str) -> Result<&'a str, ParseError> {
        let (mut rest, word) = self.word(input, "a component name")?;
        let (name, level) = match word.split_once(':') {
            Some((name, "")) => {
                let at = lexer::skip(rest);
                let (r, level) = self.word(at, "a component level")?;
                rest = r;
                (name, level)
            }
            Some((name, level)) => (name, level),
            None => {
                let after = lexer::skip(rest);
                match after.strip_prefix(':') {
                    Some(colon) => {
                        let at = lexer::skip(colon);
                        let (r, level) = match lexer::identifier(at) {
                            Ok(found) => found,
                            Err(_) => {
                                let (r, v) = lexer::number(at).map_err(|e| self.lex_error(e))?;
                                let Some(level) = crate::math::num::whole(v) else {
                                    return self.error(
                                        input,
                                        format!("`{word}`: expected COMPONENT name:level"),
                                    );
                                };
                                rest = r;
                                self.scene.header.components.push((word.to_owned(), level));
                                return Ok(rest);
                            }
                        };
                        rest = r;
                        (word, level)
                    }
                    None => (word, "1"),
                }
            }
        };
        let Ok(level) = level.trim_start_matches(':').parse::<i64>() else {
            return self.error(input, format!("`{word}`: expected COMPONENT name:level"));
        };
        self.scene.header.components.push((name.to_owned(), level));
        Ok(rest)
    }

    fn import_export(&mut self, keyword: &str, input: &'a str) -> Result<&'a str, ParseError> {
        let (mut rest, _) = self.word(input, "a name")?;
        if keyword == "IMPORT" {
            rest = self.expect(rest, b'.', "`.` in IMPORT inline.name")?;
            rest = self.word(rest, "an exported name")?.0;
        }
        let after = lexer::skip(rest);
        if let Ok((r, "AS")) = lexer::identifier(after) {
            rest = self.word(lexer::skip(r), "a name after AS")?.0;
        }
        Ok(rest)
    }

    /// `DEF name Type { ... }`, `USE name` or `Type { ... }`.
    fn node_statement(&mut self, input: &'a str) -> PResult<'a, NodeId> {
        let (rest, word) = self.word(input, "a node")?;
        match word {
            "DEF" => {
                let at_name = lexer::skip(rest);
                let (rest, name) = self.word(at_name, "a name after DEF")?;
                let (rest, id) = self.node(lexer::skip(rest), Some(name))?;
                if let Some(scope) = self.scopes.last_mut() {
                    scope.insert(name, id);
                }
                Ok((rest, id))
            }
            "USE" => {
                let at_name = lexer::skip(rest);
                let (rest, name) = self.word(at_name, "a name after USE")?;
                match self.lookup(name) {
                    Some(id) => Ok((rest, id)),
                    None => self.error(
                        at_name,
                        format!("USE {name} before its DEF: no node is DEF'd with that name earlier in the file"),
                    ),
                }
            }
            _ => self.node(input, None),
        }
    }

    fn lookup(&self, name: &str) -> Option<NodeId> {
        self.scopes
            .last()
            .and_then(|scope| scope.get(name).copied())
    }

    /// `Type { fields }`.
    fn node(&mut self, input: &'a str, def: Option<&'a str>) -> PResult<'a, NodeId> {
        let start = input;
        let (rest, type_name) = self.word(input, "a node type")?;
        if matches!(type_name, "DEF" | "USE" | "NULL" | "TRUE" | "FALSE" | "IS") {
            return self.error(
                input,
                format!("expected a node type, found the keyword `{type_name}`"),
            );
        }
        if self.depth >= self.limits.max_depth {
            return self.error(
                start,
                format!("nodes nested deeper than {} levels", self.limits.max_depth),
            );
        }
        if self.scene.nodes.len() >= self.limits.max_nodes {
            return self.error(start, format!("more than {} nodes", self.limits.max_nodes));
        }
        let open = lexer::skip(rest);
        let mut input = self.expect(
            open,
            b'{',
            &format!("`{{` after the node type `{type_name}`"),
        )?;
        let Some(id) = NodeId::from_index(self.scene.nodes.len()) else {
            return self.error(start, "too many nodes");
        };
        if self.defining.contains(&type_name) {
            return self.error(
                start,
                format!(
                    "PROTO {type_name} instantiates itself in its own body: a PROTO cannot be recursive"
                ),
            );
        }
        let proto = self.protos.get(type_name).copied();
        self.scene.nodes.push(Node {
            type_name,
            def,
            fields: Vec::new(),
            at: self.at(start),
            proto,
            container: None,
        });
        self.depth += 1;
        let mut fields: Vec<Field<'a>> = Vec::new();
        loop {
            input = lexer::skip(input);
            match input.as_bytes().first() {
                None => {
                    return self.error(
                        open,
                        format!(
                            "unbalanced braces: the `{{` of this {type_name} node is never closed"
                        ),
                    )
                }
                Some(b'}') => {
                    input = input.get(1..).unwrap_or("");
                    break;
                }
                Some(&b) if lexer::is_id_first(b) => {
                    input = self.body_element(input, type_name, proto, &mut fields)?;
                }
                Some(_) => {
                    return self.error(
                        input,
                        format!(
                            "expected a field name or `}}` in the {type_name} node, found {}",
                            found(input)
                        ),
                    )
                }
            }
        }
        self.depth -= 1;
        if let Some(node) = self.scene.nodes.get_mut(id.index()) {
            node.fields = fields;
        }
        Ok((input, id))
    }

    /// One element of a node body: a field, a ROUTE, a PROTO, or an interface declaration.
    fn body_element(
        &mut self,
        input: &'a str,
        type_name: &'a str,
        proto: Option<usize>,
        fields: &mut Vec<Field<'a>>,
    ) -> Result<&'a str, ParseError> {
        let (rest, name) = self.word(input, "a field name")?;
        let after = lexer::skip(rest);
        match name {
            "ROUTE" => return self.route(after, input),
            "PROTO" => return self.proto(after, input),
            "EXTERNPROTO" => return self.extern_proto(after, input),
            _ => {}
        }
        if let Some(access) = Access::from_keyword(name) {
            // A Script-style interface declaration: `field SFFloat x 0`.
            if let Ok((r, type_word)) = lexer::identifier(after) {
                if let Some(field_type) = FieldType::from_name(type_word) {
                    let at_name = lexer::skip(r);
                    let (r, field_name) = self.word(at_name, "a field name")?;
                    let r = lexer::skip(r);
                    if access.settable() || r.starts_with("IS") {
                        let (r, value) = self.value(r)?;
                        self.check_declared(field_type, &value, r)?;
                        fields.push(Field {
                            name: field_name,
                            value,
                            at: self.at(at_name),
                        });
                        return Ok(r);
                    }
                    return Ok(r);
                }
            }
        }
        let (rest, value) = self.value(after)?;
        self.check_field(type_name, proto, name, input, &value, after)?;
        fields.push(Field {
            name,
            value,
            at: self.at(input),
        });
        Ok(rest)
    }

    fn check_declared(
        &self,
        field_type: FieldType,
        value: &Value<'a>,
        at: &'a str,
    ) -> Result<(), ParseError> {
        interface::check(field_type, value).or_else(|m| self.error(at, m))
    }

    /// Checks a field of a built-in node or PROTO instance (nothing for other nodes).
    fn check_field(
        &self,
        type_name: &str,
        proto: Option<usize>,
        name: &str,
        name_at: &'a str,
        value: &Value<'a>,
        value_at: &'a str,
    ) -> Result<(), ParseError> {
        if matches!(value, Value::Is(_)) {
            if self.in_proto == 0 {
                return self.error(value_at, "IS is only allowed inside a PROTO body");
            }
            return Ok(());
        }
        let declared = match proto.and_then(|p| self.scene.protos.get(p)) {
            Some(p) => match p.field(name) {
                Some(f) => Some((f.field_type, Access::from_keyword(f.access))),
                None => {
                    let names: Vec<&str> = p.fields.iter().map(|f| f.name).collect();
                    return self.error(name_at, unknown_field(type_name, name, &names));
                }
            },
            None => match interface::builtin_field(type_name, name) {
                Ok(None) => None,
                Ok(Some(f)) => Some((f.field_type, Some(f.access))),
                Err(()) => {
                    let names: Vec<&str> = interface::builtin(type_name)
                        .map(|fields| fields.map(|f| f.name).collect())
                        .unwrap_or_default();
                    return self.error(name_at, unknown_field(type_name, name, &names));
                }
            },
        };
        let Some((field_type, access)) = declared else {
            return Ok(());
        };
        if access.is_some_and(|a| !a.settable()) {
            return self.error(
                name_at,
                format!("`{name}` of {type_name} is an event, not a field a file can set"),
            );
        }
        interface::check(field_type, value)
            .or_else(|m| self.error(value_at, format!("field `{name}` of {type_name}: {m}")))
    }

    /// A field value, by its syntax.
    fn value(&mut self, input: &'a str) -> PResult<'a, Value<'a>> {
        match input.as_bytes().first() {
            None => self.error(input, "expected a field value, found the end of the file"),
            Some(b'[') => self.list(input),
            Some(b'"') => {
                let (rest, s) = lexer::string(input).map_err(|e| self.lex_error(e))?;
                Ok((
                    rest,
                    Value::Strings {
                        values: vec![s],
                        bracketed: false,
                    },
                ))
            }
            Some(&b) if lexer::is_number_start(b) => {
                let mut values = Vec::new();
                let rest = self.numbers(input, &mut values)?;
                Ok((
                    rest,
                    Value::Numbers {
                        values,
                        bracketed: false,
                    },
                ))
            }
            Some(&b) if lexer::is_id_first(b) => {
                let (rest, word) = self.word(input, "a field value")?;
                match word {
                    "TRUE" | "FALSE" => Ok((
                        rest,
                        Value::Bools {
                            values: vec![word == "TRUE"],
                            bracketed: false,
                        },
                    )),
                    "NULL" => Ok((rest, Value::Null)),
                    "IS" => {
                        let (rest, name) =
                            self.word(lexer::skip(rest), "a PROTO field after IS")?;
                        Ok((rest, Value::Is(name)))
                    }
                    _ => {
                        let (rest, node) = self.node_statement(input)?;
                        Ok((
                            rest,
                            Value::Nodes {
                                values: vec![node],
                                bracketed: false,
                            },
                        ))
                    }
                }
            }
            Some(_) => self.error(
                input,
                format!("expected a field value, found {}", found(input)),
            ),
        }
    }

    /// A run of numbers (commas and comments between them allowed); returns the rest after the
    /// last one.
    fn numbers(
        &mut self,
        mut input: &'a str,
        values: &mut Vec<f64>,
    ) -> Result<&'a str, ParseError> {
        loop {
            let (rest, v) = lexer::number(input).map_err(|e| self.lex_error(e))?;
            self.values += 1;
            if self.values > self.limits.max_values {
                return self.error(
                    input,
                    format!("more than {} numbers in the file", self.limits.max_values),
                );
            }
            values.push(v);
            let next = lexer::skip(rest);
            if next
                .as_bytes()
                .first()
                .is_some_and(|&b| lexer::is_number_start(b))
            {
                input = next;
            } else {
                return Ok(rest);
            }
        }
    }

    /// `[ ... ]`: values of one kind.
    fn list(&mut self, input: &'a str) -> PResult<'a, Value<'a>> {
        let open = input;
        let mut input = input.get(1..).unwrap_or("");
        let mut numbers: Vec<f64> = Vec::new();
        let mut strings = Vec::new();
        let mut bools = Vec::new();
        let mut nodes = Vec::new();
        let mut kinds = 0u8;
        loop {
            input = lexer::skip(input);
            match input.as_bytes().first() {
                None => return self.error(open, "unbalanced brackets: this `[` is never closed"),
                Some(b']') => {
                    input = input.get(1..).unwrap_or("");
                    break;
                }
                Some(b'}') => {
                    return self.error(
                        input,
                        "unbalanced brackets: `}` inside a `[ ]` list (a `]` is missing)",
                    )
                }
                Some(b'"') => {
                    let (rest, s) = lexer::string(input).map_err(|e| self.lex_error(e))?;
                    strings.push(s);
                    kinds |= 1;
                    input = rest;
                }
                Some(&b) if lexer::is_number_start(b) => {
                    input = self.numbers(input, &mut numbers)?;
                    kinds |= 2;
                }
                Some(&b) if lexer::is_id_first(b) => {
                    let (rest, word) = self.word(input, "a value")?;
                    match word {
                        "TRUE" | "FALSE" => {
                            bools.push(word == "TRUE");
                            kinds |= 4;
                            input = rest;
                        }
                        "NULL" => {
                            return self.error(input, "NULL is not allowed inside a list of nodes")
                        }
                        _ => {
                            let (rest, node) = self.node_statement(input)?;
                            nodes.push(node);
                            kinds |= 8;
                            input = rest;
                        }
                    }
                }
                Some(_) => {
                    return self.error(
                        input,
                        format!("expected a value or `]`, found {}", found(input)),
                    )
                }
            }
        }
        let value =
            match kinds {
                0 => Value::Empty,
                1 => Value::Strings {
                    values: strings,
                    bracketed: true,
                },
                2 => Value::Numbers {
                    values: numbers,
                    bracketed: true,
                },
                4 => Value::Bools {
                    values: bools,
                    bracketed: true,
                },
                8 => Value::Nodes {
                    values: nodes,
                    bracketed: true,
                },
                _ => return self.error(
                    open,
                    "a list mixing values of different kinds (numbers, strings, booleans, nodes)",
                ),
            };
        Ok((input, value))
    }

    /// `ROUTE a.b TO c.d` (the input is after `ROUTE`).
    fn route(&mut self, input: &'a str, start: &'a str) -> Result<&'a str, ParseError> {
        let (rest, from, from_field) = self.route_end(input)?;
        let to_word = lexer::skip(rest);
        let rest = match lexer::identifier(to_word) {
            Ok((rest, "TO")) => rest,
            _ => {
                return self.error(
                    to_word,
                    format!("expected TO in the ROUTE, found {}", found(to_word)),
                )
            }
        };
        let (rest, to, to_field) = self.route_end(lexer::skip(rest))?;
        if self.in_proto == 0 {
            self.scene.routes.push(Route {
                from,
                from_field,
                to,
                to_field,
                at: self.at(start),
            });
        }
        Ok(rest)
    }

    /// `node.field` of a ROUTE, with the node resolved.
    fn route_end(&mut self, input: &'a str) -> Result<(&'a str, NodeId, &'a str), ParseError> {
        let (rest, name) = self.word(input, "a node name in the ROUTE")?;
        let rest = self.expect(
            rest,
            b'.',
            "`.` between the node and the field of the ROUTE",
        )?;
        let (rest, field) = self.word(rest, "a field name in the ROUTE")?;
        match self.lookup(name) {
            Some(id) => Ok((rest, id, field)),
            None => self.error(
                input,
                format!("ROUTE names `{name}`, but no node is DEF'd with that name before it"),
            ),
        }
    }

    /// `PROTO name [ interface ] { body }` (the input is after `PROTO`).
    fn proto(&mut self, input: &'a str, start: &'a str) -> Result<&'a str, ParseError> {
        let (rest, name) = self.word(input, "a PROTO name")?;
        let (rest, fields) = self.interface(lexer::skip(rest), false)?;
        let open = lexer::skip(rest);
        let mut input = self.expect(
            open,
            b'{',
            &format!("`{{` starting the body of PROTO {name}"),
        )?;
        self.scopes.push(HashMap::new());
        self.in_proto += 1;
        self.defining.push(name);
        let index = self.scene.protos.len();
        self.scene.protos.push(Proto {
            name,
            fields,
            body: Vec::new(),
            external: false,
            at: self.at(start),
        });
        let mut body = Vec::new();
        loop {
            input = lexer::skip(input);
            match input.as_bytes().first() {
                None => {
                    return self.error(
                        open,
                        format!("unbalanced braces: the body of PROTO {name} is never closed"),
                    )
                }
                Some(b'}') => {
                    input = input.get(1..).unwrap_or("");
                    break;
                }
                Some(_) => {
                    let (rest, node) = self.statement(input)?;
                    body.extend(node);
                    input = rest;
                }
            }
        }
        self.in_proto -= 1;
        self.defining.pop();
        self.scopes.pop();
        if let Some(proto) = self.scene.protos.get_mut(index) {
            proto.body = body;
        }
        self.protos.insert(name, index);
        Ok(input)
    }

    /// `EXTERNPROTO name [ interface ] urls` (the input is after `EXTERNPROTO`).
    fn extern_proto(&mut self, input: &'a str, start: &'a str) -> Result<&'a str, ParseError> {
        let (rest, name) = self.word(input, "an EXTERNPROTO name")?;
        let (rest, fields) = self.interface(lexer::skip(rest), true)?;
        let urls_at = lexer::skip(rest);
        let (rest, urls) = self.value(urls_at)?;
        if !matches!(urls, Value::Strings { .. } | Value::Empty) {
            return self.error(
                urls_at,
                format!(
                    "expected the URLs of EXTERNPROTO {name} (strings), found {}",
                    urls.describe()
                ),
            );
        }
        let index = self.scene.protos.len();
        self.scene.protos.push(Proto {
            name,
            fields,
            body: Vec::new(),
            external: true,
            at: self.at(start),
        });
        self.protos.insert(name, index);
        Ok(rest)
    }

    /// `[ access type name [default] ... ]`.
    fn interface(&mut self, input: &'a str, external: bool) -> PResult<'a, Vec<ProtoField<'a>>> {
        let open = input;
        let mut input = self.expect(input, b'[', "`[` starting the PROTO interface")?;
        let mut fields = Vec::new();
        loop {
            input = lexer::skip(input);
            match input.as_bytes().first() {
                None => {
                    return self.error(
                        open,
                        "unbalanced brackets: the PROTO interface `[` is never closed",
                    )
                }
                Some(b']') => return Ok((input.get(1..).unwrap_or(""), fields)),
                Some(_) => {}
            }
            let decl = input;
            let (rest, access_word) = self.word(
                input,
                "an interface declaration (field, exposedField, eventIn, eventOut)",
            )?;
            let Some(access) = Access::from_keyword(access_word) else {
                return self.error(
                    input,
                    format!(
                        "expected field, exposedField, eventIn or eventOut, found `{access_word}`"
                    ),
                );
            };
            let type_at = lexer::skip(rest);
            let (rest, type_word) = self.word(type_at, "a field type")?;
            let Some(field_type) = FieldType::from_name(type_word) else {
                return self.error(
                    type_at,
                    format!("`{type_word}` is not a field type (SFVec3f, MFNode, ...)"),
                );
            };
            let (rest, name) = self.word(lexer::skip(rest), "a field name")?;
            input = rest;
            let default = if access.settable() && !external {
                let value_at = lexer::skip(rest);
                let (rest, value) = self.value(value_at)?;
                self.check_declared(field_type, &value, value_at)
                    .map_err(|e| ParseError {
                        message: format!("default of `{name}`: {}", e.message),
                        ..e
                    })?;
                input = rest;
                Some(value)
            } else {
                None
            };
            fields.push(ProtoField {
                access: access_word,
                field_type,
                name,
                default,
                at: self.at(decl),
            });
        }
    }
}

/// What is at the start of `input`, for messages.
fn found(input: &str) -> String {
    match input.chars().next() {
        None => "the end of the file".to_owned(),
        Some(c) if c.is_alphanumeric() || matches!(c, '_' | '-' | '+' | '.') => {
            format!("`{}`", lexer::word_at(input))
        }
        Some(c) => format!("`{c}`"),
    }
}

/// "HAnimJoint has no field `nmae`; did you mean `name`?"
pub(crate) fn unknown_field(type_name: &str, name: &str, known: &[&str]) -> String {
    let suggestion = known
        .iter()
        .map(|k| {
            (
                edit_distance(&k.to_ascii_lowercase(), &name.to_ascii_lowercase()),
                *k,
            )
        })
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min();
    match suggestion {
        Some((_, k)) => format!("{type_name} has no field `{name}`; did you mean `{k}`?"),
        None => format!("{type_name} has no field `{name}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::text::line_column;

    const LIMITS: Limits = Limits {
        max_depth: 64,
        max_values: 1 << 20,
        max_nodes: 1 << 20,
    };

    fn parse_ok(text: &str) -> Scene<'_> {
        match parse(text, &LIMITS) {
            Ok((scene, _)) => scene,
            Err(e) => panic!("{:?} at {:?}", e.message, line_column(text, e.at)),
        }
    }

    #[track_caller]
    fn parse_err(text: &str) -> (usize, usize, String) {
        let e = parse(text, &LIMITS).map(|_| ()).unwrap_err();
        let (line, column) = line_column(text, e.at);
        (line, column, e.message)
    }

    #[test]
    fn nodes_fields_def_use_routes() {
        let text = r#"#VRML V2.0 utf8
# a comment
DEF T Transform { translation 1 2 3 children [
    DEF S Shape { }, USE S
  ] }
DEF I OrientationInterpolator { key [0 1] keyValue [0 0 1 0, 0 1 0 1.5] }
ROUTE I.value_changed TO T.set_rotation
"#;
        let scene = parse_ok(text);
        assert_eq!(scene.syntax, Syntax::Vrml97);
        assert_eq!(scene.roots.len(), 2);
        let t = scene.node(scene.roots[0]).unwrap();
        assert_eq!((t.type_name, t.def), ("Transform", Some("T")));
        assert_eq!(
            t.field("translation").unwrap().value.numbers(),
            Some(&[1.0, 2.0, 3.0][..])
        );
        let children = t.field("children").unwrap().value.nodes().unwrap();
        assert_eq!(children.len(), 2);
        assert_eq!(children[0], children[1]); // USE is the same node
        assert_eq!(scene.routes.len(), 1);
        assert_eq!(scene.routes[0].to, scene.roots[0]);
        assert_eq!(scene.routes[0].to_field, "set_rotation");
        assert_eq!(line_column(text, scene.routes[0].at), (7, 1));
    }

    #[test]
    fn protos_externprotos_and_is() {
        let text = r#"#X3D V3.0 utf8
PROFILE Immersive
COMPONENT H-Anim:1
COMPONENT HAnim : 2
COMPONENT Text :1
META "title" "x"
PROTO Joint [
  exposedField SFString name ""
  exposedField SFVec3f center 0 0 0
  exposedField MFNode children []
  field SFVec3f transalation 0 0 0
] { Transform { center IS center children IS children } }
EXTERNPROTO Site [ exposedField SFString name ] "site.wrl#Site"
DEF hanim_HumanoidRoot Joint { name "HumanoidRoot" center 0 1 0
  children [ Joint { name "sacroiliac" } Site { name "x" } ] }
"#;
        let scene = parse_ok(text);
        assert_eq!(scene.syntax, Syntax::Classic);
        assert_eq!(scene.header.profile.as_deref(), Some("Immersive"));
        assert_eq!(
            scene.header.components,
            [
                ("H-Anim".to_owned(), 1),
                ("HAnim".to_owned(), 2),
                ("Text".to_owned(), 1)
            ]
        );
        assert_eq!(scene.protos.len(), 2);
        assert!(scene.protos[1].external);
        let root = scene.node(scene.roots[0]).unwrap();
        let proto = scene.proto_of(root).unwrap();
        assert_eq!(proto.name, "Joint");
        assert_eq!(proto.body.len(), 1);
        // A field not written takes the PROTO's default.
        let child = scene
            .node(root.field("children").unwrap().value.nodes().unwrap()[0])
            .unwrap();
        assert_eq!(
            scene.value(child, "center").unwrap().numbers(),
            Some(&[0.0; 3][..])
        );
    }

    #[test]
    fn script_interfaces_and_x3d_statements() {
        let text = "#X3D V4.0 utf8\nUNIT length centimeter 0.01\nIMPORT I.e AS x\nEXPORT T AS u\nScript { field SFFloat f 1 eventIn SFTime t url \"a.js\" }\nDEF T Transform { }";
        let scene = parse_ok(text);
        let script = scene.node(scene.roots[0]).unwrap();
        assert!(script.field("f").is_some());
    }

    #[test]
    fn bad_input_names_line_and_column() {
        assert_eq!(
            parse_err("#VRML V2.0 utf8\nTransform {\n  children [ Group { } ]\n"),
            (
                2,
                11,
                "unbalanced braces: the `{` of this Transform node is never closed".to_owned()
            )
        );
        assert_eq!(
            parse_err("#VRML V2.0 utf8\nGroup { }\n}"),
            (
                3,
                1,
                "unbalanced braces: `}` without an opening `{`".to_owned()
            )
        );
        assert_eq!(
            parse_err("#VRML V2.0 utf8\nGroup { children [ Group { } }"),
            (
                2,
                30,
                "unbalanced brackets: `}` inside a `[ ]` list (a `]` is missing)".to_owned()
            )
        );
        assert_eq!(
            parse_err("#VRML V2.0 utf8\nGroup { children USE X }"),
            (
                2,
                22,
                "USE X before its DEF: no node is DEF'd with that name earlier in the file"
                    .to_owned()
            )
        );
        assert_eq!(
            parse_err("#X3D V4.0 utf8\nHAnimJoint { nmae \"x\" }"),
            (
                2,
                14,
                "HAnimJoint has no field `nmae`; did you mean `name`?".to_owned()
            )
        );
        assert_eq!(
            parse_err("#X3D V4.0 utf8\nHAnimJoint { center 1 2 }"),
            (
                2,
                21,
                "field `center` of HAnimJoint: expected SFVec3f (3 numbers), found 2 numbers"
                    .to_owned()
            )
        );
        assert_eq!(
            parse_err("#X3D V4.0 utf8\nHAnimJoint { center 1 2.5.1 0 }"),
            (2, 23, "`2.5.1` is not a number".to_owned())
        );
        assert_eq!(
            parse_err("#X3D V4.0 utf8\nROUTE A.fraction_changed TO B.set_fraction"),
            (
                2,
                7,
                "ROUTE names `A`, but no node is DEF'd with that name before it".to_owned()
            )
        );
        assert_eq!(
            parse_err("#X3D V4.0 utf8\nTimeSensor { fraction_changed 0.5 }").2,
            "`fraction_changed` of TimeSensor is an event, not a field a file can set"
        );
        assert!(parse_err("#VRML V1.0 ascii\n")
            .2
            .contains("VRML 1.0 is not supported"));
        assert_eq!(
            parse_err("#X3D V4.0 utf8\nGroup { children [ 1 \"a\" ] }").2,
            "a list mixing values of different kinds (numbers, strings, booleans, nodes)"
        );
        assert_eq!(
            parse_err("#X3D V4.0 utf8\nTransform { center IS c }").2,
            "IS is only allowed inside a PROTO body"
        );
        let mut deep = "#X3D V4.0 utf8\n".to_owned();
        for _ in 0..100 {
            deep.push_str("Group { children ");
        }
        assert_eq!(parse_err(&deep).2, "nodes nested deeper than 64 levels");
    }

    #[test]
    fn limits_on_numbers() {
        let limits = Limits {
            max_values: 3,
            ..LIMITS
        };
        let e = parse(
            "#X3D V4.0 utf8\nCoordinate { point [1 2 3 4 5 6] }",
            &limits,
        )
        .map(|_| ())
        .unwrap_err();
        assert_eq!(e.message, "more than 3 numbers in the file");
    }

    #[test]
    fn suggestions() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(unknown_field("X", "zzz", &["name"]), "X has no field `zzz`");
    }
}
