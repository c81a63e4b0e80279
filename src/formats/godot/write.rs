//! [`Document`] and [`Value`] → text, in the layout Godot's own writers use.
//!
//! - **Resource** (`ResourceFormatSaverText`): the header line, a blank line, the
//!   `[ext_resource]` lines together, a blank line before every other section, properties as
//!   `key = value`.
//! - **Config** (`ConfigFile`): `[tag]`, a blank line, `key=value` lines, a blank line between
//!   sections.
//! - **Values** (`VariantWriter`): a standalone float always has a `.0` or an exponent
//!   (`1.0`), constructor components never do (`Vector3(0, 1, 0)`); strings escape only `\`
//!   and `"`; dictionaries put one entry per line; `inf`, `inf_neg`, `nan` for the
//!   non-finite.
//!
//! Numbers are written in the shortest form that reads back to the same `f64`, so a file
//! written here reads back to the same tree and writes again to the same text.
//!
//! ```
//! use humanoid::formats::godot::{MathType, Value};
//! let dict = Value::Dictionary(vec![(Value::String("a".into()), Value::Float(0.5))]);
//! assert_eq!(dict.to_text(), "{\n\"a\": 0.5\n}");
//! let t = Value::Math(MathType::Vector3, vec![0.0, 1e-7, -2.0]);
//! assert_eq!(t.to_text(), "Vector3(0, 1e-7, -2)");
//! ```

use std::fmt::Write as _;

use super::document::{Document, Style};
use super::value::{ElementType, Value};

/// The whole document (see the module docs).
pub fn write_document(document: &Document) -> String {
    let mut out = String::new();
    let separator = match document.style {
        Style::Resource => " = ",
        Style::Config => "=",
    };
    let mut previous: Option<&str> = None;
    for section in &document.sections {
        if let Some(previous) = previous {
            let grouped = document.style == Style::Resource
                && previous == "ext_resource"
                && section.tag == "ext_resource";
            if !grouped {
                out.push('\n');
            }
        }
        if !section.tag.is_empty() {
            out.push('[');
            out.push_str(&section.tag);
            for (key, value) in &section.attributes {
                out.push(' ');
                out.push_str(key);
                out.push('=');
                write_value(&mut out, value);
            }
            out.push_str("]\n");
            if document.style == Style::Config {
                out.push('\n');
            }
        }
        for property in &section.properties {
            write_key(&mut out, &property.key);
            out.push_str(separator);
            write_value(&mut out, &property.value);
            out.push('\n');
        }
        previous = Some(&section.tag);
    }
    out
}

/// A property name, quoted where Godot quotes it (`=`, `"`, `;`, brackets, spaces, control and
/// non-ASCII characters).
pub fn write_key(out: &mut String, key: &str) {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| ('!'..='~').contains(&c) && !matches!(c, '=' | '"' | ';' | '[' | ']'));
    if plain {
        out.push_str(key);
    } else {
        write_string(out, key);
    }
}

/// One value.
pub fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => write_float(out, *f),
        Value::String(s) => write_string(out, s),
        Value::StringName(s) => {
            out.push('&');
            write_string(out, s);
        }
        Value::NodePath(s) => {
            out.push_str("NodePath(");
            write_string(out, s);
            out.push(')');
        }
        Value::Math(kind, args) => {
            out.push_str(kind.name());
            out.push('(');
            for (i, n) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_number(out, *n);
            }
            out.push(')');
        }
        Value::Packed(kind, items) => {
            out.push_str(kind.name());
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match item {
                    Value::Float(f) => write_number(out, *f),
                    other => write_value(out, other),
                }
            }
            out.push(')');
        }
        Value::Array(items) => write_array(out, items),
        Value::TypedArray(element, items) => {
            out.push_str("Array[");
            write_element_type(out, element);
            out.push_str("](");
            write_array(out, items);
            out.push(')');
        }
        Value::Dictionary(entries) => write_dictionary(out, entries),
        Value::TypedDictionary(key, value, entries) => {
            out.push_str("Dictionary[");
            write_element_type(out, key);
            out.push_str(", ");
            write_element_type(out, value);
            out.push_str("](");
            write_dictionary(out, entries);
            out.push(')');
        }
        Value::SubResource(id) => {
            out.push_str("SubResource(");
            write_string(out, id);
            out.push(')');
        }
        Value::ExtResource(id) => {
            out.push_str("ExtResource(");
            write_string(out, id);
            out.push(')');
        }
        Value::Resource(args) => {
            out.push_str("Resource(");
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_string(out, arg);
            }
            out.push(')');
        }
        Value::Object(class, properties) => {
            out.push_str("Object(");
            out.push_str(class);
            for (key, value) in properties {
                out.push(',');
                write_string(out, key);
                out.push(':');
                write_value(out, value);
            }
            out.push(')');
        }
    }
}

fn write_array(out: &mut String, items: &[Value]) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_value(out, item);
    }
    out.push(']');
}

fn write_dictionary(out: &mut String, entries: &[(Value, Value)]) {
    if entries.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push_str("{\n");
    for (i, (key, value)) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        write_value(out, key);
        out.push_str(": ");
        write_value(out, value);
    }
    out.push_str("\n}");
}

fn write_element_type(out: &mut String, element: &ElementType) {
    match element {
        ElementType::Named(name) => out.push_str(name),
        ElementType::Script(id) => {
            out.push_str("ExtResource(");
            write_string(out, id);
            out.push(')');
        }
    }
}

/// `"…"` with `\` and `"` escaped (Godot's `c_escape_multiline`); newlines stay as they are.
pub fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A constructor component: the shortest text that reads back to `n`, no forced `.0`.
pub fn write_number(out: &mut String, n: f64) {
    if n.is_nan() {
        out.push_str("nan");
    } else if n == f64::INFINITY {
        out.push_str("inf");
    } else if n == f64::NEG_INFINITY {
        out.push_str("inf_neg");
    } else {
        let magnitude = n.abs();
        if magnitude != 0.0 && !(1e-5..1e16).contains(&magnitude) {
            let _ = write!(out, "{n:e}");
        } else {
            let _ = write!(out, "{n}");
        }
    }
}

/// A standalone float: as [`write_number`], with `.0` added to an integral value.
pub fn write_float(out: &mut String, f: f64) {
    let start = out.len();
    write_number(out, f);
    let written = out.get(start..).unwrap_or("");
    if f.is_finite() && !written.contains(['.', 'e']) {
        out.push_str(".0");
    }
}

#[cfg(test)]
mod tests {
    use super::super::document::Document;
    use super::*;
    use std::path::Path;

    #[test]
    fn numbers_read_back_exactly() {
        for n in [
            0.0, -0.0, 1.0, 0.1, 0.577, -0.816, 1e-7, 1.5e300, 123456.789, 1e16, 9.99e15,
        ] {
            let mut s = String::new();
            write_number(&mut s, n);
            assert_eq!(s.parse::<f64>().unwrap().to_bits(), n.to_bits(), "{s}");
            let mut f = String::new();
            write_float(&mut f, n);
            assert!(f.contains(['.', 'e']), "{f}");
        }
    }

    #[test]
    fn keys_are_quoted_where_godot_quotes_them() {
        let mut s = String::new();
        write_key(&mut s, "bone_map/Hips");
        write_key(&mut s, " bone_map/Left Arm");
        write_key(&mut s, "a=b");
        assert_eq!(s, "bone_map/Hips\" bone_map/Left Arm\"\"a=b\"");
    }

    #[test]
    fn resource_and_config_layouts_round_trip() {
        let tres = "[gd_resource type=\"SkeletonProfile\" load_steps=3 format=3 uid=\"uid://abc\"]\n\n[ext_resource type=\"Texture2D\" path=\"res://a.png\" id=\"1_a\"]\n[ext_resource type=\"Texture2D\" path=\"res://b.png\" id=\"2_b\"]\n\n[sub_resource type=\"X\" id=\"X_1\"]\n\n[resource]\ngroups/0/texture = ExtResource(\"1_a\")\nx = SubResource(\"X_1\")\n\"bone_map/Left Arm\" = &\"a \\\"b\\\"\nc\"\nd = {\n\"k\": [1, 2.5, Vector2(0.5, 1)]\n}\n";
        let doc = Document::parse(tres, Path::new("a.tres")).unwrap();
        assert_eq!(doc.to_text(), tres);
        let import = "[remap]\n\nimporter=\"scene\"\ntype=\"PackedScene\"\n\n[params]\n\n_subresources={\n\"nodes\": {\n\"PATH:Skeleton3D\": {\n\"retarget/bone_map\": Object(BoneMap,\"profile\":null,\"bone_map/Hips\":&\"hips\")\n}\n}\n}\ngltf/naming_version=1\n";
        let doc = Document::parse(import, Path::new("a.glb.import")).unwrap();
        assert_eq!(doc.to_text(), import);
    }
}
