//! Text → [`Document`]: section headers, `key = value` lines and Godot's value grammar, every
//! problem reported at its line:column.
//!
//! **Limits, checked before they can hurt:** the text is at most [`MAX_TEXT`] bytes and values
//! nest at most [`MAX_DEPTH`] deep (the parser recurses once per level, so the depth bounds
//! the stack). After parsing, every `SubResource("id")` and `ExtResource("id")` must name a
//! section of the file, and no two sections may share an id.
//!
//! ```
//! use std::path::Path;
//! use humanoid::formats::godot::Document;
//! let err = Document::parse("[resource]\nname = \"open\n", Path::new("a.tres")).unwrap_err();
//! assert_eq!(err.to_string(), "a.tres: 2:8: unterminated string: no closing `\"` before the end of the file");
//! let err = Document::parse("[resource]\nx = Vector5(1)\n", Path::new("a.tres")).unwrap_err();
//! assert_eq!(err.to_string(), "a.tres: 2:5: unknown value constructor `Vector5`");
//! ```

use std::collections::HashMap;
use std::path::Path;

use super::document::{Document, Position, Property, Section, Style};
use super::lex::{LexError, Lexer, Token};
use super::value::{ElementType, MathType, PackedType, Value};
use crate::error::{Error, Location};
use crate::math::text::LineIndex;

/// The deepest nesting of arrays, dictionaries and constructors accepted.
pub const MAX_DEPTH: usize = 128;

/// The largest text accepted, in bytes (64 MiB).
pub const MAX_TEXT: usize = 64 << 20;

/// Parses `text` (see the module docs).
///
/// # Errors
/// As [`Document::parse`].
pub fn parse(text: &str, path: &Path) -> Result<Document, Error> {
    if text.len() > MAX_TEXT {
        return Err(Error::invalid(
            path,
            Location::File,
            format!(
                "{} bytes: a Godot text file may be at most {MAX_TEXT} bytes here",
                text.len()
            ),
        ));
    }
    let mut parser = Parser {
        lexer: Lexer::new(text),
        lines: LineIndex::new(text),
        path,
        refs: Vec::new(),
    };
    let document = parser.document()?;
    parser.check_references(&document)?;
    Ok(document)
}

/// A `SubResource`/`ExtResource` reference met while parsing.
struct Reference {
    ext: bool,
    id: String,
    at: usize,
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    lines: LineIndex<'a>,
    path: &'a Path,
    refs: Vec<Reference>,
}

impl Parser<'_> {
    fn error(&self, at: usize, message: impl Into<String>) -> Error {
        self.lines.position(at).error(self.path, message)
    }

    fn lex_error(&self, e: LexError) -> Error {
        self.error(e.at, e.message)
    }

    fn next(&mut self) -> Result<(usize, Token), Error> {
        self.lexer.next_token().map_err(|e| self.lex_error(e))
    }

    /// The next character after any space (cheaper than lexing the next token twice).
    fn peek_char(&mut self) -> Option<char> {
        self.lexer.skip_space();
        self.lexer.peek_char()
    }

    /// The next token, which must be `wanted`; `context` (called only on a mismatch) says
    /// where, for the message.
    fn expect<C: std::fmt::Display>(
        &mut self,
        wanted: &Token,
        context: impl FnOnce() -> C,
    ) -> Result<usize, Error> {
        let (at, token) = self.next()?;
        if &token == wanted {
            Ok(at)
        } else {
            Err(self.error(
                at,
                format!(
                    "expected {} {}, found {}",
                    wanted.describe(),
                    context(),
                    token.describe()
                ),
            ))
        }
    }

    fn document(&mut self) -> Result<Document, Error> {
        let mut sections = Vec::new();
        let mut current = Section::new("", Vec::new());
        loop {
            self.lexer.skip_space();
            match self.lexer.peek_char() {
                None => break,
                Some('[') => {
                    let next = self.header()?;
                    let done = std::mem::replace(&mut current, next);
                    if !done.tag.is_empty() || !done.properties.is_empty() {
                        sections.push(done);
                    }
                }
                Some(_) => {
                    let property = self.property()?;
                    current.properties.push(property);
                }
            }
        }
        if !current.tag.is_empty() || !current.properties.is_empty() {
            sections.push(current);
        }
        let style = match sections.iter().find(|s| !s.tag.is_empty()) {
            Some(first) if first.tag.starts_with("gd_") => Style::Resource,
            None if sections.is_empty() => Style::Resource,
            _ => Style::Config,
        };
        Ok(Document { style, sections })
    }

    /// `[tag key=value …]`, the cursor on `[`.
    fn header(&mut self) -> Result<Section, Error> {
        let open = self.lexer.pos();
        self.lexer.eat('[');
        self.lexer.skip_inline_space();
        let tag = self
            .lexer
            .take_until(|c| c.is_whitespace() || c == ']' || c == '=')
            .to_owned();
        if tag.is_empty() {
            return Err(self.error(open, "expected a section name after `[`"));
        }
        let mut attributes = Vec::new();
        loop {
            self.lexer.skip_space();
            let at = self.lexer.pos();
            match self.lexer.peek_char() {
                None => {
                    return Err(self.error(
                        open,
                        format!("unterminated section header `[{tag}`: no closing `]`"),
                    ))
                }
                Some(']') => {
                    self.lexer.eat(']');
                    break;
                }
                Some(_) => {}
            }
            let key = self
                .lexer
                .take_until(|c| c == '=' || c == ']' || c.is_whitespace())
                .to_owned();
            if key.is_empty() {
                return Err(self.error(at, "expected `key=value` or `]` in the section header"));
            }
            self.lexer.skip_inline_space();
            if !self.lexer.eat('=') {
                let found = self.lexer.pos();
                return Err(self.error(
                    found,
                    format!("expected `=` after `{key}` in the section header"),
                ));
            }
            let value = self.value(0)?;
            attributes.push((key, value));
        }
        Ok(Section {
            tag,
            attributes,
            properties: Vec::new(),
            at: self.lines.position(open),
        })
    }

    /// `key = value`, the cursor on the key.
    fn property(&mut self) -> Result<Property, Error> {
        let at = self.lexer.pos();
        let key = if self.lexer.peek_char() == Some('"') {
            self.lexer.string().map_err(|e| self.lex_error(e))?
        } else {
            self.lexer
                .take_until(|c| c == '=' || c == '\n')
                .trim_end()
                .to_owned()
        };
        self.lexer.skip_inline_space();
        if !self.lexer.eat('=') {
            let found = self.lexer.pos();
            return Err(self.error(
                found,
                format!("expected `=` after the property name `{key}`"),
            ));
        }
        self.lexer.skip_space();
        let value_at = self.lexer.pos();
        let value = self.value(0)?;
        Ok(Property {
            key,
            value,
            at: self.lines.position(at),
            value_at: self.lines.position(value_at),
        })
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        let (at, token) = self.next()?;
        if depth >= MAX_DEPTH {
            return Err(self.error(at, format!("values nested deeper than {MAX_DEPTH} levels")));
        }
        Ok(match token {
            Token::LBrace => Value::Dictionary(self.dictionary_body(depth)?),
            Token::LBracket => Value::Array(self.array_body(depth)?),
            Token::Str(s) => Value::String(s),
            Token::StrName(s) => Value::StringName(s),
            Token::NodePath(s) => Value::NodePath(s),
            Token::Int(i) => Value::Int(i),
            Token::Float(f) => Value::Float(f),
            Token::Ident(word) => self.word(at, &word, depth)?,
            other => {
                return Err(self.error(at, format!("expected a value, found {}", other.describe())))
            }
        })
    }

    /// Items after `[` up to and including `]`.
    fn array_body(&mut self, depth: usize) -> Result<Vec<Value>, Error> {
        let mut items = Vec::new();
        loop {
            if self.peek_char() == Some(']') {
                self.next()?;
                return Ok(items);
            }
            items.push(self.value(depth + 1)?);
            let (at, token) = self.next()?;
            match token {
                Token::Comma => {}
                Token::RBracket => return Ok(items),
                other => {
                    return Err(self.error(
                        at,
                        format!(
                            "expected `,` or `]` in an array, found {}",
                            other.describe()
                        ),
                    ))
                }
            }
        }
    }

    /// Entries after `{` up to and including `}`.
    fn dictionary_body(&mut self, depth: usize) -> Result<Vec<(Value, Value)>, Error> {
        let mut entries = Vec::new();
        loop {
            if self.peek_char() == Some('}') {
                self.next()?;
                return Ok(entries);
            }
            let key = self.value(depth + 1)?;
            self.expect(&Token::Colon, || "after a dictionary key")?;
            let value = self.value(depth + 1)?;
            entries.push((key, value));
            let (at, token) = self.next()?;
            match token {
                Token::Comma => {}
                Token::RBrace => return Ok(entries),
                other => {
                    return Err(self.error(
                        at,
                        format!(
                            "expected `,` or `}}` in a dictionary, found {}",
                            other.describe()
                        ),
                    ))
                }
            }
        }
    }

    /// A value that starts with a word: a keyword or a constructor.
    fn word(&mut self, at: usize, word: &str, depth: usize) -> Result<Value, Error> {
        match word {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            "null" | "nil" => return Ok(Value::Null),
            "inf" => return Ok(Value::Float(f64::INFINITY)),
            "inf_neg" => return Ok(Value::Float(f64::NEG_INFINITY)),
            "nan" => return Ok(Value::Float(f64::NAN)),
            _ => {}
        }
        let next = self.peek_char();
        if next == Some('[') && (word == "Array" || word == "Dictionary") {
            return self.typed(word, depth);
        }
        if next != Some('(') {
            return Err(self.error(at, format!("unexpected word `{word}`: expected a value")));
        }
        self.next()?;
        if let Some(kind) = MathType::from_name(word) {
            let args = self.numbers()?;
            if args.len() != kind.arity() {
                return Err(self.error(
                    at,
                    format!(
                        "{word} takes {} numbers, found {}",
                        kind.arity(),
                        args.len()
                    ),
                ));
            }
            return Ok(Value::Math(kind, args));
        }
        if let Some(kind) = PackedType::from_name(word) {
            return self.packed(at, kind);
        }
        match word {
            "StringName" | "NodePath" => {
                let text = self.string_arg(word)?;
                self.expect(&Token::RParen, || format!("to close {word}("))?;
                Ok(if word == "StringName" {
                    Value::StringName(text)
                } else {
                    Value::NodePath(text)
                })
            }
            "SubResource" | "ExtResource" => {
                let (id_at, token) = self.next()?;
                let id = match token {
                    Token::Str(s) => s,
                    Token::Int(i) => i.to_string(),
                    other => {
                        return Err(self.error(
                            id_at,
                            format!("expected an id in {word}(…), found {}", other.describe()),
                        ))
                    }
                };
                self.expect(&Token::RParen, || format!("to close {word}("))?;
                let ext = word == "ExtResource";
                self.refs.push(Reference {
                    ext,
                    id: id.clone(),
                    at,
                });
                Ok(if ext {
                    Value::ExtResource(id)
                } else {
                    Value::SubResource(id)
                })
            }
            "Resource" => {
                let mut args = vec![self.string_arg(word)?];
                loop {
                    let (at, token) = self.next()?;
                    match token {
                        Token::RParen => break,
                        Token::Comma if args.len() < 2 => args.push(self.string_arg(word)?),
                        other => {
                            return Err(self.error(
                                at,
                                format!(
                                    "expected `)` to close Resource(, found {}",
                                    other.describe()
                                ),
                            ))
                        }
                    }
                }
                Ok(Value::Resource(args))
            }
            "Object" => self.object(depth),
            "Array" => {
                self.expect(&Token::LBracket, || "in Array(")?;
                let items = self.array_body(depth)?;
                self.expect(&Token::RParen, || "to close Array(")?;
                Ok(Value::Array(items))
            }
            "Dictionary" => {
                self.expect(&Token::LBrace, || "in Dictionary(")?;
                let entries = self.dictionary_body(depth)?;
                self.expect(&Token::RParen, || "to close Dictionary(")?;
                Ok(Value::Dictionary(entries))
            }
            _ => Err(self.error(at, format!("unknown value constructor `{word}`"))),
        }
    }

    fn string_arg(&mut self, word: &str) -> Result<String, Error> {
        let (at, token) = self.next()?;
        match token {
            Token::Str(s) => Ok(s),
            other => Err(self.error(
                at,
                format!("expected a string in {word}(…), found {}", other.describe()),
            )),
        }
    }

    /// Numbers separated by commas up to and including `)`.
    fn numbers(&mut self) -> Result<Vec<f64>, Error> {
        let mut out = Vec::new();
        loop {
            let (at, token) = self.next()?;
            let number = match token {
                Token::RParen if out.is_empty() => return Ok(out),
                Token::Int(i) => i as f64,
                Token::Float(f) => f,
                Token::Ident(w) if w == "inf" => f64::INFINITY,
                Token::Ident(w) if w == "inf_neg" => f64::NEG_INFINITY,
                Token::Ident(w) if w == "nan" => f64::NAN,
                other => {
                    return Err(
                        self.error(at, format!("expected a number, found {}", other.describe()))
                    )
                }
            };
            out.push(number);
            let (at, token) = self.next()?;
            match token {
                Token::Comma => {}
                Token::RParen => return Ok(out),
                other => {
                    return Err(self.error(
                        at,
                        format!("expected `,` or `)`, found {}", other.describe()),
                    ))
                }
            }
        }
    }

    /// The arguments of a packed array constructor, after `(`.
    fn packed(&mut self, at: usize, kind: PackedType) -> Result<Value, Error> {
        let strings = kind == PackedType::String
            || (kind == PackedType::Byte && self.peek_char() == Some('"'));
        if !strings {
            let numbers = self.numbers()?;
            let per = match kind {
                PackedType::Vector2 => 2,
                PackedType::Vector3 => 3,
                PackedType::Vector4 | PackedType::Color => 4,
                _ => 1,
            };
            if numbers.len() % per != 0 {
                return Err(self.error(
                    at,
                    format!(
                        "{} takes {per} numbers per element, found {} numbers",
                        kind.name(),
                        numbers.len()
                    ),
                ));
            }
            return Ok(Value::Packed(
                kind,
                numbers.into_iter().map(Value::Float).collect(),
            ));
        }
        let mut items = Vec::new();
        loop {
            let (at, token) = self.next()?;
            match token {
                Token::RParen if items.is_empty() => break,
                Token::Str(s) => items.push(Value::String(s)),
                other => {
                    return Err(self.error(
                        at,
                        format!(
                            "expected a string in {}(…), found {}",
                            kind.name(),
                            other.describe()
                        ),
                    ))
                }
            }
            let (at, token) = self.next()?;
            match token {
                Token::Comma => {}
                Token::RParen => break,
                other => {
                    return Err(self.error(
                        at,
                        format!("expected `,` or `)`, found {}", other.describe()),
                    ))
                }
            }
        }
        if kind == PackedType::Byte && items.len() > 1 {
            return Err(self.error(at, "PackedByteArray takes one base64 string"));
        }
        Ok(Value::Packed(kind, items))
    }

    /// `Object(Class, "key": value, …)` after `(`.
    fn object(&mut self, depth: usize) -> Result<Value, Error> {
        let (at, token) = self.next()?;
        let Token::Ident(class) = token else {
            return Err(self.error(
                at,
                format!(
                    "expected a class name in Object(…), found {}",
                    token.describe()
                ),
            ));
        };
        let mut properties = Vec::new();
        loop {
            let (at, token) = self.next()?;
            match token {
                Token::RParen => break,
                Token::Comma => {}
                other => {
                    return Err(self.error(
                        at,
                        format!(
                            "expected `,` or `)` in Object(…), found {}",
                            other.describe()
                        ),
                    ))
                }
            }
            let (at, token) = self.next()?;
            let key = match token {
                Token::RParen => break,
                Token::Str(s) => s,
                other => {
                    return Err(self.error(
                        at,
                        format!(
                            "expected a quoted property name in Object(…), found {}",
                            other.describe()
                        ),
                    ))
                }
            };
            self.expect(&Token::Colon, || "after a property name in Object(…)")?;
            let value = self.value(depth + 1)?;
            properties.push((key, value));
        }
        Ok(Value::Object(class, properties))
    }

    /// `Array[T]([…])` or `Dictionary[K, V]({…})`, the cursor on `[`.
    fn typed(&mut self, word: &str, depth: usize) -> Result<Value, Error> {
        self.next()?;
        let first = self.element_type()?;
        let second = if word == "Dictionary" {
            self.expect(&Token::Comma, || "between the key and value types")?;
            Some(self.element_type()?)
        } else {
            None
        };
        self.expect(&Token::RBracket, || format!("to close the {word} type"))?;
        self.expect(&Token::LParen, || format!("after the {word} type"))?;
        let value = match second {
            None => {
                self.expect(&Token::LBracket, || "in a typed array")?;
                Value::TypedArray(first, self.array_body(depth)?)
            }
            Some(second) => {
                self.expect(&Token::LBrace, || "in a typed dictionary")?;
                Value::TypedDictionary(first, second, self.dictionary_body(depth)?)
            }
        };
        self.expect(&Token::RParen, || format!("to close the typed {word}"))?;
        Ok(value)
    }

    fn element_type(&mut self) -> Result<ElementType, Error> {
        let (at, token) = self.next()?;
        match token {
            Token::Ident(w) if w == "ExtResource" => {
                self.expect(&Token::LParen, || "after ExtResource")?;
                let id = self.string_arg("ExtResource")?;
                self.expect(&Token::RParen, || "to close ExtResource(")?;
                self.refs.push(Reference {
                    ext: true,
                    id: id.clone(),
                    at,
                });
                Ok(ElementType::Script(id))
            }
            Token::Ident(w) => Ok(ElementType::Named(w)),
            other => Err(self.error(
                at,
                format!("expected a type name, found {}", other.describe()),
            )),
        }
    }

    /// Section ids are unique, and every reference names one.
    fn check_references(&self, document: &Document) -> Result<(), Error> {
        let mut declared: HashMap<(bool, String), Position> = HashMap::new();
        for section in &document.sections {
            let ext = match section.tag.as_str() {
                "ext_resource" => true,
                "sub_resource" => false,
                _ => continue,
            };
            let Some(id) = section.attribute_text("id") else {
                return Err(section
                    .at
                    .error(self.path, format!("[{}] without an id", section.tag)));
            };
            if let Some(first) = declared.insert((ext, id.clone()), section.at) {
                return Err(section.at.error(
                    self.path,
                    format!(
                        "a second [{}] with id {id:?} (the first is at {}:{})",
                        section.tag, first.line, first.column
                    ),
                ));
            }
        }
        for r in &self.refs {
            if !declared.contains_key(&(r.ext, r.id.clone())) {
                let (word, tag) = if r.ext {
                    ("ExtResource", "ext_resource")
                } else {
                    ("SubResource", "sub_resource")
                };
                return Err(self.error(
                    r.at,
                    format!(
                        "{word}({:?}): this file has no [{tag}] with id {:?}",
                        r.id, r.id
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Value {
        let doc = parse(&format!("[resource]\nv = {text}\n"), Path::new("t.tres")).unwrap();
        doc.sections[0].properties[0].value.clone()
    }

    fn error(text: &str) -> String {
        parse(text, Path::new("t.tres")).unwrap_err().to_string()
    }

    #[test]
    fn every_value_form_parses() {
        use Value as V;
        assert_eq!(value("null"), V::Null);
        assert_eq!(value("true"), V::Bool(true));
        assert_eq!(value("-3"), V::Int(-3));
        assert_eq!(value("1.0"), V::Float(1.0));
        assert_eq!(value("inf_neg"), V::Float(f64::NEG_INFINITY));
        assert_eq!(value("&\"Hips\""), V::StringName("Hips".into()));
        assert_eq!(value("StringName(\"Hips\")"), V::StringName("Hips".into()));
        assert_eq!(value("NodePath(\"a/b:c\")"), V::NodePath("a/b:c".into()));
        assert_eq!(
            value("Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0.75, 0)"),
            V::Math(
                MathType::Transform3D,
                vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.75, 0.0]
            )
        );
        assert_eq!(
            value("Quaternion(0, 0, 0, 1)"),
            V::Math(MathType::Quaternion, vec![0.0, 0.0, 0.0, 1.0])
        );
        assert_eq!(
            value("Color(1, 0.5, inf, 1)"),
            V::Math(MathType::Color, vec![1.0, 0.5, f64::INFINITY, 1.0])
        );
        assert_eq!(
            value("PackedStringArray(\"a\", \"b\")"),
            V::Packed(
                PackedType::String,
                vec![V::String("a".into()), V::String("b".into())]
            )
        );
        assert_eq!(
            value("PackedVector3Array()"),
            V::Packed(PackedType::Vector3, vec![])
        );
        assert_eq!(
            value("[1, \"x\", [],]"),
            V::Array(vec![V::Int(1), V::String("x".into()), V::Array(vec![])])
        );
        assert_eq!(
            value("Array[StringName]([&\"a\"])"),
            V::TypedArray(
                ElementType::Named("StringName".into()),
                vec![V::StringName("a".into())]
            )
        );
        assert_eq!(
            value("Dictionary[String, int]({\n\"a\": 1\n})"),
            V::TypedDictionary(
                ElementType::Named("String".into()),
                ElementType::Named("int".into()),
                vec![(V::String("a".into()), V::Int(1))]
            )
        );
        assert_eq!(
            value("{\n\"a\": {}, 2: null\n}"),
            V::Dictionary(vec![
                (V::String("a".into()), V::Dictionary(vec![])),
                (V::Int(2), V::Null)
            ])
        );
        assert_eq!(
            value("Resource(\"res://a.tres\")"),
            V::Resource(vec!["res://a.tres".into()])
        );
        assert_eq!(
            value("Object(BoneMap,\"resource_name\":\"\",\"profile\":null)"),
            V::Object(
                "BoneMap".into(),
                vec![
                    ("resource_name".into(), V::String(String::new())),
                    ("profile".into(), V::Null)
                ]
            )
        );
    }

    #[test]
    fn headers_keys_and_positions() {
        let text = "[gd_resource type=\"BoneMap\" load_steps=2 format=3]\n\n[sub_resource type=\"X\" id=\"X_1\"]\n\n[resource]\nprofile = SubResource(\"X_1\")\n\"bone_map/Left Arm\" = &\"arm\"\n";
        let doc = parse(text, Path::new("t.tres")).unwrap();
        assert_eq!(doc.style, Style::Resource);
        assert_eq!(doc.sections.len(), 3);
        assert_eq!(doc.resource_type(), Some("BoneMap"));
        assert_eq!(
            doc.sections[0].attribute("load_steps"),
            Some(&Value::Int(2))
        );
        let resource = doc.resource().unwrap();
        assert_eq!(resource.at, Position { line: 5, column: 1 });
        let arm = resource.property("bone_map/Left Arm").unwrap();
        assert_eq!(arm.at, Position { line: 7, column: 1 });
        assert_eq!(
            resource.property("profile").unwrap().value_at,
            Position {
                line: 6,
                column: 11
            }
        );
    }

    #[test]
    fn config_files_and_preamble_properties() {
        let doc = parse(
            "config_version=5\n\n[remap]\n\nimporter=\"scene\"\n",
            Path::new("project.godot"),
        )
        .unwrap();
        assert_eq!(doc.style, Style::Config);
        assert_eq!(doc.sections[0].tag, "");
        assert_eq!(
            doc.sections[1].get("importer"),
            Some(&Value::String("scene".into()))
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        assert_eq!(
            error("[resource]\na = [1, 2\n"),
            "t.tres: 3:1: expected `,` or `]` in an array, found the end of the file"
        );
        assert_eq!(
            error("[resource]\na = Vector3(1, 2)\n"),
            "t.tres: 2:5: Vector3 takes 3 numbers, found 2"
        );
        assert_eq!(
            error("[resource]\nbad line\n"),
            "t.tres: 2:9: expected `=` after the property name `bad line`"
        );
        assert_eq!(
            error("[gd_resource type=\"A\"\n"),
            "t.tres: 1:1: unterminated section header `[gd_resource`: no closing `]`"
        );
        assert_eq!(
            error("[resource]\na = SubResource(\"nope\")\n"),
            "t.tres: 2:5: SubResource(\"nope\"): this file has no [sub_resource] with id \"nope\""
        );
        assert_eq!(
            error("[sub_resource type=\"A\" id=\"x\"]\n[sub_resource type=\"A\" id=\"x\"]\n"),
            "t.tres: 2:1: a second [sub_resource] with id \"x\" (the first is at 1:1)"
        );
        assert_eq!(
            error("[resource]\na = foo\n"),
            "t.tres: 2:5: unexpected word `foo`: expected a value"
        );
        assert!(error("[resource]\na = PackedVector2Array(1, 2, 3)\n")
            .contains("2 numbers per element"));
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!(
            "[resource]\na = {}{}\n",
            "[".repeat(MAX_DEPTH + 5),
            "]".repeat(MAX_DEPTH + 5)
        );
        assert!(error(&deep).contains("nested deeper than 128"));
        let ok = format!(
            "[resource]\na = {}{}\n",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(parse(&ok, Path::new("t.tres")).is_ok());
    }

    #[test]
    fn columns_count_characters() {
        let err = error("[resource]\n\"ü\" = \"x\ny");
        assert!(err.starts_with("t.tres: 2:7: unterminated string"), "{err}");
    }
}
