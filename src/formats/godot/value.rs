//! The value model of Godot 4 text resources: one [`Value`] per thing the text format can
//! spell (`Variant` in Godot's terms), parsed by [`super::parse`] and written back by
//! [`super::write`].
//!
//! Numbers keep Godot's distinction between `int` (no `.`, no exponent) and `float`; the
//! components of math constructors (`Vector3(…)`, `Transform3D(…)`) are always `f64`, as Godot
//! writes them without a forced `.0`.
//!
//! ```
//! use humanoid::formats::godot::{MathType, Value};
//! let pose = Value::Math(MathType::Vector2, vec![0.5, 0.91]);
//! assert_eq!(pose.to_text(), "Vector2(0.5, 0.91)");
//! assert_eq!(Value::StringName("Hips".into()).to_text(), "&\"Hips\"");
//! assert_eq!(Value::Float(1.0).to_text(), "1.0");
//! ```

use std::fmt;

/// One value of a Godot text resource.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer (`3`, `-1`).
    Int(i64),
    /// A float (`1.0`, `0.25`, `1e-07`, `inf`, `inf_neg`, `nan`).
    Float(f64),
    /// A string (`"text"`).
    String(String),
    /// A `StringName`: `&"Hips"` (also read from `StringName("Hips")`).
    StringName(String),
    /// A `NodePath`: `NodePath("a/b")` (also read from `^"a/b"`).
    NodePath(String),
    /// A math constructor with its components: `Vector3(0, 1, 0)`, `Transform3D(…)`.
    Math(MathType, Vec<f64>),
    /// A packed array: numbers (as [`Value::Float`]) or, for `PackedStringArray`, strings.
    Packed(PackedType, Vec<Value>),
    /// An untyped array `[a, b]`.
    Array(Vec<Value>),
    /// A typed array `Array[StringName]([…])`.
    TypedArray(ElementType, Vec<Value>),
    /// A dictionary `{ key: value, … }`, entries in file order.
    Dictionary(Vec<(Value, Value)>),
    /// A typed dictionary `Dictionary[String, int]({…})` (Godot 4.4).
    TypedDictionary(ElementType, ElementType, Vec<(Value, Value)>),
    /// A reference to a `[sub_resource]` of the same file by id: `SubResource("id")`.
    SubResource(String),
    /// A reference to an `[ext_resource]` of the same file by id: `ExtResource("id")`.
    ExtResource(String),
    /// A resource by path, as `.import` files write it: `Resource("res://a.tres")` (a second
    /// string, where present, is kept).
    Resource(Vec<String>),
    /// An object written inline with its class and properties, as `.import` files write
    /// resources: `Object(BoneMap,"profile":…,"bone_map/Hips":&"hips")`.
    Object(String, Vec<(String, Value)>),
}

impl Value {
    /// The text of a string, `StringName` or `NodePath`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) | Value::StringName(s) | Value::NodePath(s) => Some(s),
            _ => None,
        }
    }

    /// An `int`, or a `float` with an integral value.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            Value::Float(f) if f.abs() < 9.0e15 => crate::math::num::whole(f),
            _ => None,
        }
    }

    /// An `int` or `float` as `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    /// A `bool`.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The components of a math constructor of type `kind`.
    pub fn as_math(&self, kind: MathType) -> Option<&[f64]> {
        match self {
            Value::Math(k, args) if *k == kind => Some(args),
            _ => None,
        }
    }

    /// What kind of value this is, for messages: `a string`, `Transform3D(…)`, `null`.
    pub fn describe(&self) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bool(_) => "a bool".into(),
            Value::Int(_) => "an int".into(),
            Value::Float(_) => "a float".into(),
            Value::String(_) => "a string".into(),
            Value::StringName(_) => "a StringName".into(),
            Value::NodePath(_) => "a NodePath".into(),
            Value::Math(kind, _) => format!("{}(…)", kind.name()),
            Value::Packed(kind, _) => format!("{}(…)", kind.name()),
            Value::Array(_) | Value::TypedArray(..) => "an array".into(),
            Value::Dictionary(_) | Value::TypedDictionary(..) => "a dictionary".into(),
            Value::SubResource(_) => "SubResource(…)".into(),
            Value::ExtResource(_) => "ExtResource(…)".into(),
            Value::Resource(_) => "Resource(…)".into(),
            Value::Object(class, _) => format!("Object({class}, …)"),
        }
    }

    /// The value as Godot's text format writes it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        super::write::write_value(&mut out, self);
        out
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

macro_rules! name_table {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal $(/ $arity:literal)?),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant),*
        }

        impl $name {
            /// Every variant.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The constructor's name in the text format.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),*
                }
            }

            /// The variant whose constructor is called `name`.
            pub fn from_name(name: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|k| k.name() == name)
            }
        }
    };
}

name_table! {
    /// A constructor of fixed arity whose arguments are all numbers.
    MathType {
        /// `Vector2(x, y)`.
        Vector2 = "Vector2",
        /// `Vector2i(x, y)`.
        Vector2i = "Vector2i",
        /// `Rect2(x, y, w, h)`.
        Rect2 = "Rect2",
        /// `Rect2i(x, y, w, h)`.
        Rect2i = "Rect2i",
        /// `Vector3(x, y, z)`.
        Vector3 = "Vector3",
        /// `Vector3i(x, y, z)`.
        Vector3i = "Vector3i",
        /// `Transform2D(xx, xy, yx, yy, ox, oy)`.
        Transform2D = "Transform2D",
        /// `Vector4(x, y, z, w)`.
        Vector4 = "Vector4",
        /// `Vector4i(x, y, z, w)`.
        Vector4i = "Vector4i",
        /// `Plane(a, b, c, d)`.
        Plane = "Plane",
        /// `Quaternion(x, y, z, w)`.
        Quaternion = "Quaternion",
        /// `AABB(x, y, z, w, h, d)`.
        Aabb = "AABB",
        /// `Basis(…)`: nine numbers, the basis **rows**.
        Basis = "Basis",
        /// `Transform3D(…)`: the basis rows (nine numbers), then the origin.
        Transform3D = "Transform3D",
        /// `Projection(…)`: sixteen numbers.
        Projection = "Projection",
        /// `Color(r, g, b, a)`.
        Color = "Color",
    }
}

impl MathType {
    /// How many numbers the constructor takes.
    pub fn arity(self) -> usize {
        match self {
            MathType::Vector2 | MathType::Vector2i => 2,
            MathType::Vector3 | MathType::Vector3i => 3,
            MathType::Rect2
            | MathType::Rect2i
            | MathType::Vector4
            | MathType::Vector4i
            | MathType::Plane
            | MathType::Quaternion
            | MathType::Color => 4,
            MathType::Transform2D | MathType::Aabb => 6,
            MathType::Basis => 9,
            MathType::Transform3D => 12,
            MathType::Projection => 16,
        }
    }
}

name_table! {
    /// A packed array constructor: any number of numbers, or of strings.
    PackedType {
        /// `PackedByteArray(…)`.
        Byte = "PackedByteArray",
        /// `PackedInt32Array(…)`.
        Int32 = "PackedInt32Array",
        /// `PackedInt64Array(…)`.
        Int64 = "PackedInt64Array",
        /// `PackedFloat32Array(…)`.
        Float32 = "PackedFloat32Array",
        /// `PackedFloat64Array(…)`.
        Float64 = "PackedFloat64Array",
        /// `PackedStringArray("a", "b")`.
        String = "PackedStringArray",
        /// `PackedVector2Array(…)`: two numbers per element.
        Vector2 = "PackedVector2Array",
        /// `PackedVector3Array(…)`: three numbers per element.
        Vector3 = "PackedVector3Array",
        /// `PackedVector4Array(…)`: four numbers per element.
        Vector4 = "PackedVector4Array",
        /// `PackedColorArray(…)`: four numbers per element.
        Color = "PackedColorArray",
    }
}

/// The element type of a typed array or dictionary: a built-in or class name
/// (`Array[StringName]`) or a script (`Array[ExtResource("1_x")]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElementType {
    /// A type named by a word.
    Named(String),
    /// A script class, by `ExtResource` id.
    Script(String),
}
