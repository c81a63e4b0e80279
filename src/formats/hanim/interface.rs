//! Field types and the interfaces of the built-in nodes the reader interprets.
//!
//! ## Overview
//!
//! [`FieldType`] is one of the VRML97/X3D field types (`SFVec3f`, `MFRotation`, ...), with how
//! many numbers one value has. [`check`] tells whether a value as written ([`Value`]) fits a
//! type, [`parse_text`] turns an X3D XML attribute into a value of a given type, and
//! [`builtin`] lists the fields of the nodes whose contents the reader uses (the H-Anim nodes,
//! grouping nodes, interpolators, TimeSensor, Coordinate).
//!
//! **Design decision.** Only those nodes are checked field by field (an unknown field or a value
//! of the wrong type is an error there). Other node types (Shape, Material, Viewpoint, ...) are
//! parsed by their syntax alone and kept: their fields are never read, and a table of all 250
//! X3D nodes would be a second copy of the specification to keep in step.

use std::borrow::Cow;

use super::tree::Value;

/// What the values of a field type are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `TRUE` / `FALSE`.
    Bool,
    /// Integers (`SFInt32`).
    Int,
    /// Floating-point numbers, `components` per value.
    Float,
    /// `SFImage`: width, height, components, then the pixels.
    Image,
    /// Strings.
    String,
    /// Nodes.
    Node,
}

/// A field type such as `SFVec3f` or `MFNode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldType {
    /// Its name as the specifications write it.
    pub name: &'static str,
    /// What the values are.
    pub kind: Kind,
    /// Numbers per value (1 for non-numeric types).
    pub components: usize,
    /// Whether it is an MF type.
    pub multi: bool,
}

const fn ft(name: &'static str, kind: Kind, components: usize, multi: bool) -> FieldType {
    FieldType {
        name,
        kind,
        components,
        multi,
    }
}

/// Every field type of VRML97 and X3D 4.
pub(crate) const FIELD_TYPES: [FieldType; 42] = [
    ft("SFBool", Kind::Bool, 1, false),
    ft("MFBool", Kind::Bool, 1, true),
    ft("SFInt32", Kind::Int, 1, false),
    ft("MFInt32", Kind::Int, 1, true),
    ft("SFFloat", Kind::Float, 1, false),
    ft("MFFloat", Kind::Float, 1, true),
    ft("SFDouble", Kind::Float, 1, false),
    ft("MFDouble", Kind::Float, 1, true),
    ft("SFTime", Kind::Float, 1, false),
    ft("MFTime", Kind::Float, 1, true),
    ft("SFVec2f", Kind::Float, 2, false),
    ft("MFVec2f", Kind::Float, 2, true),
    ft("SFVec2d", Kind::Float, 2, false),
    ft("MFVec2d", Kind::Float, 2, true),
    ft("SFVec3f", Kind::Float, 3, false),
    ft("MFVec3f", Kind::Float, 3, true),
    ft("SFVec3d", Kind::Float, 3, false),
    ft("MFVec3d", Kind::Float, 3, true),
    ft("SFVec4f", Kind::Float, 4, false),
    ft("MFVec4f", Kind::Float, 4, true),
    ft("SFVec4d", Kind::Float, 4, false),
    ft("MFVec4d", Kind::Float, 4, true),
    ft("SFColor", Kind::Float, 3, false),
    ft("MFColor", Kind::Float, 3, true),
    ft("SFColorRGBA", Kind::Float, 4, false),
    ft("MFColorRGBA", Kind::Float, 4, true),
    ft("SFRotation", Kind::Float, 4, false),
    ft("MFRotation", Kind::Float, 4, true),
    ft("SFMatrix3f", Kind::Float, 9, false),
    ft("MFMatrix3f", Kind::Float, 9, true),
    ft("SFMatrix3d", Kind::Float, 9, false),
    ft("MFMatrix3d", Kind::Float, 9, true),
    ft("SFMatrix4f", Kind::Float, 16, false),
    ft("MFMatrix4f", Kind::Float, 16, true),
    ft("SFMatrix4d", Kind::Float, 16, false),
    ft("MFMatrix4d", Kind::Float, 16, true),
    ft("SFImage", Kind::Image, 1, false),
    ft("MFImage", Kind::Image, 1, true),
    ft("SFString", Kind::String, 1, false),
    ft("MFString", Kind::String, 1, true),
    ft("SFNode", Kind::Node, 1, false),
    ft("MFNode", Kind::Node, 1, true),
];

impl FieldType {
    /// The type called `name` (`SFVec3f`, ...).
    pub fn from_name(name: &str) -> Option<FieldType> {
        FIELD_TYPES.iter().copied().find(|t| t.name == name)
    }

    fn named(name: &'static str) -> FieldType {
        FieldType::from_name(name).unwrap_or(ft("MFNode", Kind::Node, 1, true))
    }

    /// What one value looks like, for messages: `3 numbers`, `a string`.
    fn shape(self) -> String {
        let one = match (self.kind, self.components) {
            (Kind::Bool, _) => "TRUE or FALSE".to_owned(),
            (Kind::Int, _) => "an integer".to_owned(),
            (Kind::Float, 1) => "a number".to_owned(),
            (Kind::Float, n) => format!("{n} numbers"),
            (Kind::Image, _) => "width, height, components and pixels".to_owned(),
            (Kind::String, _) => "a quoted string".to_owned(),
            (Kind::Node, _) => "a node".to_owned(),
        };
        if self.multi {
            format!("a list of {one} each")
        } else {
            one
        }
    }
}

/// Whether `value` fits `field_type`; the message says what was expected and what was found.
pub(crate) fn check(field_type: FieldType, value: &Value<'_>) -> Result<(), String> {
    let fits = match value {
        Value::Is(_) | Value::Text(_) => true,
        Value::Empty => field_type.multi,
        Value::Null => field_type.kind == Kind::Node && !field_type.multi,
        Value::Nodes { values, bracketed } => {
            field_type.kind == Kind::Node && count_fits(field_type, values.len(), *bracketed, 1)
        }
        Value::Strings { values, bracketed } => {
            field_type.kind == Kind::String && count_fits(field_type, values.len(), *bracketed, 1)
        }
        Value::Bools { values, bracketed } => {
            field_type.kind == Kind::Bool && count_fits(field_type, values.len(), *bracketed, 1)
        }
        Value::Numbers { values, bracketed } => match field_type.kind {
            Kind::Float => count_fits(field_type, values.len(), *bracketed, field_type.components),
            Kind::Int => {
                count_fits(field_type, values.len(), *bracketed, 1)
                    && values.iter().all(|v| v.fract() == 0.0)
            }
            Kind::Image => image_fits(field_type, values, *bracketed),
            Kind::Bool | Kind::String | Kind::Node => false,
        },
    };
    if fits {
        Ok(())
    } else {
        Err(format!(
            "expected {} ({}), found {}",
            field_type.name,
            field_type.shape(),
            value.describe()
        ))
    }
}

/// SF: exactly one value, unbracketed. MF: whole values; a single one may be unbracketed.
fn count_fits(field_type: FieldType, count: usize, bracketed: bool, per_value: usize) -> bool {
    let per_value = per_value.max(1);
    if field_type.multi {
        count.is_multiple_of(per_value) && (bracketed || count == per_value)
    } else {
        !bracketed && count == per_value
    }
}

fn image_fits(field_type: FieldType, values: &[f64], bracketed: bool) -> bool {
    if field_type.multi {
        return true;
    }
    if bracketed || values.len() < 3 {
        return false;
    }
    let pixels = values
        .first()
        .zip(values.get(1))
        .map(|(w, h)| w * h)
        .unwrap_or(-1.0);
    pixels >= 0.0 && (values.len() - 3) as f64 == pixels
}

/// Parses an X3D XML attribute as a value of `field_type`.
///
/// # Errors
/// The byte offset inside `text` of the first bad word and what is wrong with it.
pub(crate) fn parse_text<'a>(
    field_type: FieldType,
    text: &'a str,
) -> Result<Value<'a>, (usize, String)> {
    let value = match field_type.kind {
        Kind::Float | Kind::Int | Kind::Image => {
            let mut values = Vec::new();
            for (offset, word) in words(text) {
                values.push(parse_number(word).map_err(|m| (offset, m))?);
            }
            Value::Numbers {
                bracketed: field_type.multi,
                values,
            }
        }
        Kind::Bool => {
            let mut values = Vec::new();
            for (offset, word) in words(text) {
                values.push(match word {
                    "true" | "TRUE" => true,
                    "false" | "FALSE" => false,
                    other => {
                        return Err((offset, format!("`{other}` is not true or false")));
                    }
                });
            }
            Value::Bools {
                bracketed: field_type.multi,
                values,
            }
        }
        Kind::String if field_type.multi => Value::Strings {
            values: quoted_strings(text),
            bracketed: true,
        },
        Kind::String => Value::Strings {
            values: vec![Cow::Borrowed(text)],
            bracketed: false,
        },
        Kind::Node => {
            return Err((
                0,
                format!(
                    "an {} field is given by child elements, not by an attribute",
                    field_type.name
                ),
            ))
        }
    };
    match (&value, field_type.multi) {
        (Value::Numbers { values, .. }, true) if values.is_empty() => Ok(Value::Empty),
        (Value::Bools { values, .. }, true) if values.is_empty() => Ok(Value::Empty),
        _ => check(field_type, &value)
            .map(|()| value)
            .map_err(|m| (0, m)),
    }
}

/// The whitespace- or comma-separated words of `text`, with their byte offsets.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
        {
            i += 1;
        }
        let start = i;
        while bytes
            .get(i)
            .is_some_and(|b| !(b.is_ascii_whitespace() || *b == b','))
        {
            i += 1;
        }
        (i > start).then(|| (start, text.get(start..i).unwrap_or("")))
    })
}

/// A number as VRML and X3D write them (decimal, exponent, or `0x` hexadecimal integers).
pub(crate) fn parse_number(word: &str) -> Result<f64, String> {
    let (negative, digits) = match word.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, word.strip_prefix('+').unwrap_or(word)),
    };
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        return match u64::from_str_radix(hex, 16) {
            Ok(v) if negative => Ok(-(v as f64)),
            Ok(v) => Ok(v as f64),
            Err(_) => Err(format!("`{word}` is not a number")),
        };
    }
    // Rust also accepts "inf", "NaN" and "infinity": VRML does not.
    let plain = digits
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    match word.parse::<f64>() {
        Ok(v) if plain && v.is_finite() => Ok(v),
        Ok(_) if plain => Err(format!("`{word}` is not a finite number")),
        _ => Err(format!("`{word}` is not a number")),
    }
}

/// The strings of an X3D XML MFString attribute: `"a" "b c"`, with `\"` and `\\` escapes. Text
/// without quotes is one string.
fn quoted_strings(text: &str) -> Vec<Cow<'_, str>> {
    let trimmed = text.trim();
    if !trimmed.starts_with('"') {
        return if trimmed.is_empty() {
            Vec::new()
        } else {
            vec![Cow::Borrowed(trimmed)]
        };
    }
    let mut out = Vec::new();
    let mut chars = trimmed.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut s = String::new();
        while let Some((_, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, next)) = chars.next() {
                        s.push(next);
                    }
                }
                '"' => break,
                other => s.push(other),
            }
        }
        out.push(Cow::Owned(s));
    }
    out
}

/// How a field may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Set in the file only (`field`, `initializeOnly`).
    Init,
    /// An input event only (`eventIn`, `inputOnly`).
    In,
    /// An output event only (`eventOut`, `outputOnly`).
    Out,
    /// All three (`exposedField`, `inputOutput`).
    InOut,
}

impl Access {
    /// The access keyword (`field`, `eventIn`, `inputOutput`, ...).
    pub fn from_keyword(word: &str) -> Option<Access> {
        Some(match word {
            "field" | "initializeOnly" => Access::Init,
            "eventIn" | "inputOnly" => Access::In,
            "eventOut" | "outputOnly" => Access::Out,
            "exposedField" | "inputOutput" => Access::InOut,
            _ => return None,
        })
    }

    /// Whether a value may be written for the field in a file.
    pub fn settable(self) -> bool {
        matches!(self, Access::Init | Access::InOut)
    }
}

/// One field of a built-in node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BuiltinField {
    /// Its name.
    pub name: &'static str,
    /// Its type.
    pub field_type: FieldType,
    /// How it may be used.
    pub access: Access,
}

macro_rules! fields {
    ($($name:literal $ty:literal $access:ident),* $(,)?) => {
        &[$(($name, $ty, Access::$access)),*]
    };
}

type Spec = &'static [(&'static str, &'static str, Access)];

const BOUNDED: Spec = fields![
    "bboxCenter" "SFVec3f" Init,
    "bboxSize" "SFVec3f" Init,
    "bboxDisplay" "SFBool" InOut,
    "visible" "SFBool" InOut,
    "metadata" "SFNode" InOut,
    "description" "SFString" InOut,
];

const GROUPING: Spec = fields![
    "addChildren" "MFNode" In,
    "removeChildren" "MFNode" In,
    "children" "MFNode" InOut,
];

const TRANSFORM: Spec = fields![
    "center" "SFVec3f" InOut,
    "rotation" "SFRotation" InOut,
    "scale" "SFVec3f" InOut,
    "scaleOrientation" "SFRotation" InOut,
    "translation" "SFVec3f" InOut,
];

const HUMANOID: Spec = fields![
    "info" "MFString" InOut,
    "jointBindingPositions" "MFVec3f" InOut,
    "jointBindingRotations" "MFRotation" InOut,
    "jointBindingScales" "MFVec3f" InOut,
    "joints" "MFNode" InOut,
    "loa" "SFInt32" InOut,
    "motions" "MFNode" InOut,
    "motionsEnabled" "MFBool" InOut,
    "name" "SFString" InOut,
    "segments" "MFNode" InOut,
    "sites" "MFNode" InOut,
    "skeletalConfiguration" "SFString" InOut,
    "skeleton" "MFNode" InOut,
    "skin" "MFNode" InOut,
    "skinBindingCoords" "SFNode" InOut,
    "skinBindingNormals" "SFNode" InOut,
    "skinCoord" "SFNode" InOut,
    "skinNormal" "SFNode" InOut,
    "version" "SFString" InOut,
    "viewpoints" "MFNode" InOut,
];

const JOINT: Spec = fields![
    "displacers" "MFNode" InOut,
    "limitOrientation" "SFRotation" InOut,
    "llimit" "MFFloat" InOut,
    "name" "SFString" InOut,
    "skinCoordIndex" "MFInt32" InOut,
    "skinCoordWeight" "MFFloat" InOut,
    "stiffness" "MFFloat" InOut,
    "ulimit" "MFFloat" InOut,
];

const SEGMENT: Spec = fields![
    "centerOfMass" "SFVec3f" InOut,
    "coord" "SFNode" InOut,
    "displacers" "MFNode" InOut,
    "mass" "SFFloat" InOut,
    "momentsOfInertia" "MFFloat" InOut,
    "name" "SFString" InOut,
];

const SITE: Spec = fields!["name" "SFString" InOut];

const DISPLACER: Spec = fields![
    "coordIndex" "MFInt32" InOut,
    "description" "SFString" InOut,
    "displacements" "MFVec3f" InOut,
    "metadata" "SFNode" InOut,
    "name" "SFString" InOut,
    "weight" "SFFloat" InOut,
];

const MOTION: Spec = fields![
    "channels" "SFString" InOut,
    "channelsEnabled" "MFBool" InOut,
    "cycleTime" "SFTime" Out,
    "description" "SFString" InOut,
    "elapsedTime" "SFTime" Out,
    "enabled" "SFBool" InOut,
    "endFrame" "SFInt32" InOut,
    "frameCount" "SFInt32" Out,
    "frameDuration" "SFTime" InOut,
    "frameIncrement" "SFInt32" InOut,
    "frameIndex" "SFInt32" InOut,
    "joints" "SFString" InOut,
    "loa" "SFInt32" InOut,
    "loop" "SFBool" InOut,
    "metadata" "SFNode" InOut,
    "name" "SFString" InOut,
    "next" "SFBool" In,
    "previous" "SFBool" In,
    "startFrame" "SFInt32" InOut,
    "values" "MFFloat" InOut,
];

const ORIENTATION_INTERPOLATOR: Spec = fields![
    "key" "MFFloat" InOut,
    "keyValue" "MFRotation" InOut,
    "metadata" "SFNode" InOut,
    "set_fraction" "SFFloat" In,
    "value_changed" "SFRotation" Out,
];

const POSITION_INTERPOLATOR: Spec = fields![
    "key" "MFFloat" InOut,
    "keyValue" "MFVec3f" InOut,
    "metadata" "SFNode" InOut,
    "set_fraction" "SFFloat" In,
    "value_changed" "SFVec3f" Out,
];

const SCALAR_INTERPOLATOR: Spec = fields![
    "key" "MFFloat" InOut,
    "keyValue" "MFFloat" InOut,
    "metadata" "SFNode" InOut,
    "set_fraction" "SFFloat" In,
    "value_changed" "SFFloat" Out,
];

const TIME_SENSOR: Spec = fields![
    "cycleInterval" "SFTime" InOut,
    "cycleTime" "SFTime" Out,
    "description" "SFString" InOut,
    "elapsedTime" "SFTime" Out,
    "enabled" "SFBool" InOut,
    "fraction_changed" "SFFloat" Out,
    "isActive" "SFBool" Out,
    "isPaused" "SFBool" Out,
    "loop" "SFBool" InOut,
    "metadata" "SFNode" InOut,
    "pauseTime" "SFTime" InOut,
    "resumeTime" "SFTime" InOut,
    "startTime" "SFTime" InOut,
    "stopTime" "SFTime" InOut,
    "time" "SFTime" Out,
];

const COORDINATE: Spec = fields![
    "metadata" "SFNode" InOut,
    "point" "MFVec3f" InOut,
];

/// The parts of each built-in interface, by node type.
fn parts(type_name: &str) -> Option<&'static [Spec]> {
    Some(match type_name {
        "HAnimHumanoid" => &[BOUNDED, TRANSFORM, HUMANOID],
        "HAnimJoint" => &[BOUNDED, GROUPING, TRANSFORM, JOINT],
        "HAnimSegment" => &[BOUNDED, GROUPING, SEGMENT],
        "HAnimSite" => &[BOUNDED, GROUPING, TRANSFORM, SITE],
        "HAnimDisplacer" => &[DISPLACER],
        "HAnimMotion" => &[MOTION],
        "Transform" => &[BOUNDED, GROUPING, TRANSFORM],
        "Group" => &[BOUNDED, GROUPING],
        "OrientationInterpolator" => &[ORIENTATION_INTERPOLATOR],
        "PositionInterpolator" => &[POSITION_INTERPOLATOR],
        "ScalarInterpolator" => &[SCALAR_INTERPOLATOR],
        "TimeSensor" => &[TIME_SENSOR],
        "Coordinate" => &[COORDINATE],
        _ => return None,
    })
}

/// The interface of a built-in node the reader interprets, or `None` for any other type.
pub(crate) fn builtin(type_name: &str) -> Option<impl Iterator<Item = BuiltinField> + use<>> {
    parts(type_name).map(|parts| {
        parts.iter().flat_map(|part| {
            part.iter().map(|(name, ty, access)| BuiltinField {
                name,
                field_type: FieldType::named(ty),
                access: *access,
            })
        })
    })
}

/// The field `name` of built-in node type `type_name`: `Ok(None)` when the node type is not one
/// the reader interprets, `Err(())` when it is and has no such field.
pub(crate) fn builtin_field(type_name: &str, name: &str) -> Result<Option<BuiltinField>, ()> {
    match builtin(type_name) {
        None => Ok(None),
        Some(mut fields) => fields.find(|f| f.name == name).map(Some).ok_or(()),
    }
}

/// The field an event name refers to: `set_rotation` and `rotation_changed` are the events of
/// the field `rotation` (VRML97 exposed fields; X3D inputOutput fields).
pub(crate) fn event_field(event: &str) -> &str {
    event
        .strip_prefix("set_")
        .or_else(|| event.strip_suffix("_changed"))
        .unwrap_or(event)
}

/// Names of interface fields a file's H-Anim PROTO may declare, for spotting misspellings.
pub(crate) fn hanim_field_names(kind: &str) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = match builtin(kind) {
        Some(fields) => fields.map(|f| f.name).collect(),
        None => Vec::new(),
    };
    if kind == "HAnimHumanoid" {
        // The H-Anim 1.x name of `skeleton`.
        names.push("humanoidBody");
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(values: &[f64], bracketed: bool) -> Value<'static> {
        Value::Numbers {
            values: values.to_vec(),
            bracketed,
        }
    }

    #[test]
    fn single_and_multiple_values() {
        let vec3 = FieldType::from_name("SFVec3f").unwrap();
        assert!(check(vec3, &numbers(&[1.0, 2.0, 3.0], false)).is_ok());
        let err = check(vec3, &numbers(&[1.0, 2.0], false)).unwrap_err();
        assert_eq!(err, "expected SFVec3f (3 numbers), found 2 numbers");
        assert!(check(vec3, &numbers(&[1.0, 2.0, 3.0], true)).is_err());
        let rotations = FieldType::from_name("MFRotation").unwrap();
        assert!(check(rotations, &numbers(&[0.0, 0.0, 1.0, 0.5], false)).is_ok());
        assert!(check(rotations, &numbers(&[0.0; 8], true)).is_ok());
        assert!(check(rotations, &numbers(&[0.0; 7], true)).is_err());
        assert!(check(rotations, &Value::Empty).is_ok());
        let int = FieldType::from_name("MFInt32").unwrap();
        assert!(check(int, &numbers(&[1.0, 2.5], true)).is_err());
        let node = FieldType::from_name("SFNode").unwrap();
        assert!(check(node, &Value::Null).is_ok());
        assert!(check(node, &Value::Empty).is_err());
        let string = FieldType::from_name("SFString").unwrap();
        assert!(check(string, &numbers(&[1.0], false))
            .unwrap_err()
            .contains("a quoted string"));
        let image = FieldType::from_name("SFImage").unwrap();
        assert!(check(image, &numbers(&[2.0, 1.0, 1.0, 255.0, 0.0], false)).is_ok());
        assert!(check(image, &numbers(&[2.0, 1.0, 1.0, 255.0], false)).is_err());
    }

    #[test]
    fn xml_attributes() {
        let vec3 = FieldType::from_name("SFVec3f").unwrap();
        assert_eq!(
            parse_text(vec3, " 1, 2.5e1 -3 ").unwrap(),
            numbers(&[1.0, 25.0, -3.0], false)
        );
        assert_eq!(
            parse_text(vec3, "0 abc 0").unwrap_err(),
            (2, "`abc` is not a number".to_owned())
        );
        assert_eq!(
            parse_text(vec3, "0 inf 0").unwrap_err(),
            (2, "`inf` is not a number".to_owned())
        );
        assert_eq!(
            parse_text(vec3, "0 1e999 0").unwrap_err().1,
            "`1e999` is not a finite number"
        );
        assert!(parse_text(vec3, "0 0").unwrap_err().1.contains("found 2"));
        let strings = FieldType::from_name("MFString").unwrap();
        assert_eq!(
            parse_text(strings, r#""a b" "c\"d""#).unwrap(),
            Value::Strings {
                values: vec![Cow::Borrowed("a b"), Cow::Borrowed("c\"d")],
                bracketed: true
            }
        );
        let floats = FieldType::from_name("MFFloat").unwrap();
        assert_eq!(parse_text(floats, "  ").unwrap(), Value::Empty);
        let int = FieldType::from_name("SFInt32").unwrap();
        assert_eq!(parse_text(int, "0x1F").unwrap(), numbers(&[31.0], false));
        let bools = FieldType::from_name("SFBool").unwrap();
        assert!(parse_text(bools, "yes").is_err());
        let node = FieldType::from_name("MFNode").unwrap();
        assert!(parse_text(node, "x").is_err());
    }

    #[test]
    fn builtin_interfaces() {
        assert!(builtin_field("HAnimJoint", "center").unwrap().is_some());
        assert!(builtin_field("HAnimJoint", "centre").is_err());
        assert!(builtin_field("Material", "anything").unwrap().is_none());
        let key = builtin_field("OrientationInterpolator", "keyValue")
            .unwrap()
            .unwrap();
        assert_eq!(key.field_type.name, "MFRotation");
        assert_eq!(event_field("set_rotation"), "rotation");
        assert_eq!(event_field("value_changed"), "value");
        assert_eq!(event_field("rotation"), "rotation");
        assert!(hanim_field_names("HAnimHumanoid").contains(&"humanoidBody"));
        assert_eq!(Access::from_keyword("exposedField"), Some(Access::InOut));
        assert!(!Access::In.settable());
    }
}
