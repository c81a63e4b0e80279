//! The lossless serde model of the glTF 2.0 JSON.
//!
//! # Overview
//!
//! Only what a converter reads or rewrites is typed (the root, scenes, nodes, skins, meshes,
//! accessors, buffer views, buffers, images and animations); everything else (materials,
//! textures, cameras, unknown properties, extensions, extras) passes through untouched in the
//! `other` map every struct flattens in.
//!
//! Three design decisions make a read → write round trip lossless:
//!
//! - **Key order**: every object is wrapped in [`Ordered`], which records the order of the keys
//!   it was read with and writes them back in that order (keys added later come last). Maps
//!   inside `other` keep their order through serde_json's `preserve_order`.
//! - **Number literals**: the floats the model keeps typed (node TRS, matrix, weights, accessor
//!   min/max) are [`Float`]s, which hold the JSON number itself, so `1` and `1.0` are written back
//!   as they were read (serde_json's `float_roundtrip` makes the value exact).
//! - **Indices** are [`Index<T>`]: a `u32` typed by what it points to, read with a checked
//!   conversion (a negative, fractional or too large index is an error, never a cast).
//!
//! [`parse`] turns parse errors into [`Error::Invalid`] with the JSON pointer of the offending
//! value (or line:column for a syntax error). serde_json's nesting limit (128) stays on.
//!
//! Floats read from JSON are always finite (JSON has no NaN or infinity literal, and serde_json
//! refuses a literal such as `1e999` that overflows). A [`Float`] made in code from a non-finite
//! `f64` cannot be written: the document's validation pass reports it first.

use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{self, SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

pub use super::ordered::Ordered;
use crate::error::{Error, Location};

// ---------------------------------------------------------------------------------------------
// Float: a JSON number kept as written
// ---------------------------------------------------------------------------------------------

/// A floating-point property kept as the JSON number it was read as, so that `1` is written
/// back as `1` and `1.0` as `1.0`.
///
/// Equality compares the stored number exactly (`1` ≠ `1.0`); compare [`Float::get`] for the
/// value.
#[derive(Debug, Clone, PartialEq)]
pub struct Float(FloatRepr);

#[derive(Debug, Clone, PartialEq)]
enum FloatRepr {
    Json(Number),
    /// Only for non-finite values set in code; they cannot be written.
    NonFinite(f64),
}

impl Float {
    /// The value as an `f64`.
    pub fn get(&self) -> f64 {
        match &self.0 {
            FloatRepr::Json(number) => number.as_f64().unwrap_or(f64::NAN),
            FloatRepr::NonFinite(value) => *value,
        }
    }

    /// Whether the value is finite (always true for values read from JSON).
    pub fn is_finite(&self) -> bool {
        self.get().is_finite()
    }
}

impl From<f64> for Float {
    fn from(value: f64) -> Self {
        match Number::from_f64(value) {
            Some(number) => Float(FloatRepr::Json(number)),
            None => Float(FloatRepr::NonFinite(value)),
        }
    }
}

impl From<f32> for Float {
    /// The `f32` widened exactly to `f64`.
    fn from(value: f32) -> Self {
        Float::from(f64::from(value))
    }
}

impl Serialize for Float {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            FloatRepr::Json(number) => number.serialize(serializer),
            FloatRepr::NonFinite(value) => Err(ser::Error::custom(format!(
                "the non-finite number {value} cannot be written as JSON"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for Float {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Number::deserialize(deserializer).map(|n| Float(FloatRepr::Json(n)))
    }
}

/// The values of a float array, e.g. a node's translation.
pub fn floats<const N: usize>(values: &[Float; N]) -> [f64; N] {
    std::array::from_fn(|i| values.get(i).map_or(f64::NAN, Float::get))
}

/// A float array from `f64`s.
pub fn to_floats<const N: usize>(values: [f64; N]) -> [Float; N] {
    values.map(Float::from)
}

// ---------------------------------------------------------------------------------------------
// Index<T>
// ---------------------------------------------------------------------------------------------

/// An index into one of the root's arrays, typed by the element it points to.
///
/// Read with a checked conversion: a negative, fractional or larger-than-`u32::MAX` JSON
/// number is an error naming the value.
pub struct Index<T> {
    value: u32,
    marker: PhantomData<fn() -> T>,
}

impl<T> Index<T> {
    /// An index with this value.
    pub const fn new(value: u32) -> Self {
        Index {
            value,
            marker: PhantomData,
        }
    }

    /// The index as a `u32`.
    pub const fn get(self) -> u32 {
        self.value
    }

    /// The index as a `usize` (`usize::MAX` on a platform where it does not fit, which no
    /// lookup can satisfy).
    pub fn as_usize(self) -> usize {
        usize::try_from(self.value).unwrap_or(usize::MAX)
    }
}

impl<T> TryFrom<usize> for Index<T> {
    type Error = std::num::TryFromIntError;
    fn try_from(value: usize) -> Result<Self, Self::Error> {
        u32::try_from(value).map(Index::new)
    }
}

impl<T> Clone for Index<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Index<T> {}
impl<T> PartialEq for Index<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}
impl<T> Eq for Index<T> {}
impl<T> PartialOrd for Index<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Index<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.value.cmp(&other.value)
    }
}
impl<T> std::hash::Hash for Index<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.value.hash(state);
    }
}
impl<T> fmt::Debug for Index<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Index({})", self.value)
    }
}
impl<T> fmt::Display for Index<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value)
    }
}

impl<T> Serialize for Index<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.value)
    }
}

impl<'de, T> Deserialize<'de> for Index<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_u64(IndexVisitor(PhantomData))
    }
}

struct IndexVisitor<T>(PhantomData<fn() -> T>);

impl<T> Visitor<'_> for IndexVisitor<T> {
    type Value = Index<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an index (an integer from 0 to 4294967295)")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Index<T>, E> {
        u32::try_from(v)
            .map(Index::new)
            .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Index<T>, E> {
        u32::try_from(v)
            .map(Index::new)
            .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Index<T>, E> {
        Err(E::invalid_type(de::Unexpected::Float(v), &self))
    }
}

/// Marker for indices into the root's `cameras` (cameras pass through untyped in `other`).
#[derive(Debug)]
pub enum Camera {}
/// Marker for indices into the root's `materials` (materials pass through untyped in `other`).
#[derive(Debug)]
pub enum Material {}

// ---------------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------------

/// Reads a JSON value that may be `null` as `Some(Value::Null)` (plain `Option<Value>` would
/// turn `null` into `None` and drop the key on write).
fn some_value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// The glTF root object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    /// `asset`: version and generator.
    pub asset: Ordered<Asset>,
    /// `scene`: the default scene.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene: Option<Index<Scene>>,
    /// `scenes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scenes: Vec<Ordered<Scene>>,
    /// `nodes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<Ordered<Node>>,
    /// `skins`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skins: Vec<Ordered<Skin>>,
    /// `meshes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub meshes: Vec<Ordered<Mesh>>,
    /// `accessors`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accessors: Vec<Ordered<Accessor>>,
    /// `bufferViews`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buffer_views: Vec<Ordered<BufferView>>,
    /// `buffers`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buffers: Vec<Ordered<Buffer>>,
    /// `images`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Ordered<Image>>,
    /// `animations`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub animations: Vec<Ordered<Animation>>,
    /// `extensionsUsed`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions_used: Vec<String>,
    /// `extensionsRequired`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions_required: Vec<String>,
    /// `extensions`, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// `extras`.
    #[serde(
        default,
        deserialize_with = "some_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub extras: Option<Value>,
    /// Every other property (materials, textures, cameras, samplers, unknown keys), as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Root {
    /// Lists `name` in `extensionsUsed` unless it is there; whether it was added.
    ///
    /// ```
    /// let mut root: humanoid::formats::gltf::json::Root =
    ///     serde_json::from_str(r#"{"asset": {"version": "2.0"}}"#).unwrap();
    /// assert!(root.use_extension("KHR_character"));
    /// assert!(!root.use_extension("KHR_character"));
    /// assert_eq!(root.extensions_used, ["KHR_character"]);
    /// ```
    pub fn use_extension(&mut self, name: &str) -> bool {
        let listed = self.extensions_used.iter().any(|e| e == name);
        if !listed {
            self.extensions_used.push(name.to_owned());
        }
        !listed
    }

    /// The length of an untyped top-level array kept in [`Root::other`] (e.g. `"materials"`),
    /// 0 when absent or not an array.
    pub fn other_len(&self, key: &str) -> usize {
        self.other
            .get(key)
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    }
}

/// Looks up an element of the root by its typed index.
pub trait Get<T> {
    /// The element, or `None` when the index is out of range.
    fn get(&self, index: Index<T>) -> Option<&Ordered<T>>;
    /// The element, mutably, or `None` when the index is out of range.
    fn get_mut(&mut self, index: Index<T>) -> Option<&mut Ordered<T>>;
}

macro_rules! impl_get {
    ($($ty:ident => $field:ident),* $(,)?) => {$(
        impl Get<$ty> for Root {
            fn get(&self, index: Index<$ty>) -> Option<&Ordered<$ty>> {
                self.$field.get(index.as_usize())
            }
            fn get_mut(&mut self, index: Index<$ty>) -> Option<&mut Ordered<$ty>> {
                self.$field.get_mut(index.as_usize())
            }
        }
    )*};
}

impl_get!(
    Scene => scenes,
    Node => nodes,
    Skin => skins,
    Mesh => meshes,
    Accessor => accessors,
    BufferView => buffer_views,
    Buffer => buffers,
    Image => images,
    Animation => animations,
);

/// `asset`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asset {
    /// `version`, e.g. `"2.0"`.
    pub version: String,
    /// `generator`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
    /// `minVersion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_version: Option<String>,
    /// `copyright`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copyright: Option<String>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `scenes[i]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scene {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `nodes`: the root nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<Index<Node>>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `nodes[i]`.
///
/// Floats read from JSON are finite; a program that reads `rotation` from a document built in
/// code should check [`Float::is_finite`] (the document's validation pass does).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `children`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Index<Node>>,
    /// `mesh`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<Index<Mesh>>,
    /// `skin`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skin: Option<Index<Skin>>,
    /// `camera`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<Index<Camera>>,
    /// `translation` `[x, y, z]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<[Float; 3]>,
    /// `rotation`, a quaternion `[x, y, z, w]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[Float; 4]>,
    /// `scale` `[x, y, z]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<[Float; 3]>,
    /// `matrix`, column-major.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<[Float; 16]>,
    /// `weights` (morph target weights).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<Float>,
    /// `extensions`, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Every other property (extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `skins[i]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skin {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `inverseBindMatrices`: an accessor of MAT4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inverse_bind_matrices: Option<Index<Accessor>>,
    /// `skeleton`: the common root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skeleton: Option<Index<Node>>,
    /// `joints`.
    pub joints: Vec<Index<Node>>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `meshes[i]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mesh {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `primitives`.
    pub primitives: Vec<Ordered<Primitive>>,
    /// `weights`: default morph weights.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<Float>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `meshes[i].primitives[j]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Primitive {
    /// `attributes`: semantic → accessor.
    pub attributes: Attributes,
    /// `indices`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indices: Option<Index<Accessor>>,
    /// `material`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<Index<Material>>,
    /// `mode` (4 = triangles when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// `targets`: morph targets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<Attributes>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// An attribute map (`POSITION`, `JOINTS_0`, ...) that keeps its key order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attributes(Vec<(String, Index<Accessor>)>);

impl Attributes {
    /// The accessor of a semantic.
    pub fn get(&self, semantic: &str) -> Option<Index<Accessor>> {
        self.0.iter().find(|(s, _)| s == semantic).map(|(_, a)| *a)
    }

    /// Sets a semantic (replacing it in place, or adding it at the end).
    pub fn insert(&mut self, semantic: impl Into<String>, accessor: Index<Accessor>) {
        let semantic = semantic.into();
        match self.0.iter_mut().find(|(s, _)| *s == semantic) {
            Some(entry) => entry.1 = accessor,
            None => self.0.push((semantic, accessor)),
        }
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Index<Accessor>)> {
        self.0.iter().map(|(s, a)| (s.as_str(), *a))
    }

    /// How many semantics there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Attributes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (semantic, accessor) in &self.0 {
            map.serialize_entry(semantic, accessor)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Attributes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct AttributesVisitor;
        impl<'de> Visitor<'de> for AttributesVisitor {
            type Value = Attributes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of attribute semantics to accessor indices")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Attributes, A::Error> {
                let mut attributes = Attributes::default();
                while let Some((semantic, accessor)) =
                    map.next_entry::<String, Index<Accessor>>()?
                {
                    attributes.insert(semantic, accessor);
                }
                Ok(attributes)
            }
        }
        deserializer.deserialize_map(AttributesVisitor)
    }
}

/// `accessors[i]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Accessor {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `bufferView` (absent: all zeros, possibly with sparse values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_view: Option<Index<BufferView>>,
    /// `byteOffset` into the buffer view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
    /// `componentType`, a GL code (5126 = FLOAT); see `accessor::ComponentType`.
    pub component_type: u32,
    /// `normalized`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized: Option<bool>,
    /// `count`: the number of elements.
    pub count: u64,
    /// `type`: `"SCALAR"`, `"VEC3"`, `"MAT4"`, ...; see `accessor::ElementType`.
    #[serde(rename = "type")]
    pub element_type: String,
    /// `min`, per component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Vec<Float>>,
    /// `max`, per component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Vec<Float>>,
    /// `sparse`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sparse: Option<Ordered<Sparse>>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `accessors[i].sparse`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sparse {
    /// `count`: how many elements are replaced.
    pub count: u64,
    /// `indices`.
    pub indices: Ordered<SparseIndices>,
    /// `values`.
    pub values: Ordered<SparseValues>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `accessors[i].sparse.indices`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SparseIndices {
    /// `bufferView`.
    pub buffer_view: Index<BufferView>,
    /// `byteOffset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
    /// `componentType`: 5121, 5123 or 5125.
    pub component_type: u32,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Default for SparseIndices {
    fn default() -> Self {
        SparseIndices {
            buffer_view: Index::new(0),
            byte_offset: None,
            component_type: 5125,
            other: Map::new(),
        }
    }
}

/// `accessors[i].sparse.values`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SparseValues {
    /// `bufferView`.
    pub buffer_view: Index<BufferView>,
    /// `byteOffset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Default for SparseValues {
    fn default() -> Self {
        SparseValues {
            buffer_view: Index::new(0),
            byte_offset: None,
            other: Map::new(),
        }
    }
}

/// `bufferViews[i]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BufferView {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `buffer`.
    pub buffer: Index<Buffer>,
    /// `byteOffset` into the buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
    /// `byteLength`.
    pub byte_length: u64,
    /// `byteStride` (vertex attributes only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_stride: Option<u64>,
    /// `target` (34962 ARRAY_BUFFER, 34963 ELEMENT_ARRAY_BUFFER).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Default for BufferView {
    fn default() -> Self {
        BufferView {
            name: None,
            buffer: Index::new(0),
            byte_offset: None,
            byte_length: 0,
            byte_stride: None,
            target: None,
            other: Map::new(),
        }
    }
}

/// `buffers[i]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Buffer {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `uri`: a `data:` URI or a relative path; absent for a GLB's binary chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// `byteLength`.
    pub byte_length: u64,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `images[i]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `uri`: a `data:` URI or a relative path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// `bufferView` (with `mimeType`), instead of `uri`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_view: Option<Index<BufferView>>,
    /// `mimeType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `animations[i]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Animation {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `channels`.
    pub channels: Vec<Ordered<Channel>>,
    /// `samplers`.
    pub samplers: Vec<Ordered<AnimationSampler>>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `animations[i].channels[j]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Channel {
    /// `sampler`: an index into the same animation's samplers.
    pub sampler: Index<AnimationSampler>,
    /// `target`.
    pub target: Ordered<Target>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `animations[i].channels[j].target`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// `node`; absent for channels an extension targets (`EXT_skeleton_humanoid`,
    /// `KHR_animation_pointer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<Index<Node>>,
    /// `path`: `translation`, `rotation`, `scale`, `weights`, `pointer`, ... (kept as a string).
    pub path: String,
    /// `extensions`, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Every other property (extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `animations[i].samplers[j]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnimationSampler {
    /// `input`: key times.
    pub input: Index<Accessor>,
    /// `output`: key values.
    pub output: Index<Accessor>,
    /// `interpolation` (`LINEAR` when absent; kept absent on write).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpolation: Option<String>,
    /// Every other property (extensions, extras, unknown keys).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

// ---------------------------------------------------------------------------------------------
// Parsing and writing
// ---------------------------------------------------------------------------------------------

/// Parses glTF JSON text (a `.gltf` file or a GLB JSON chunk).
///
/// A leading UTF-8 byte order mark and trailing NUL padding (written by some exporters) are
/// tolerated.
///
/// # Errors
/// [`Error::Invalid`] for `file`: at line:column for a syntax error, at the JSON pointer of the
/// offending value for a value of the wrong type or range (the message names what was expected).
pub fn parse(json: &[u8], file: &Path) -> Result<Ordered<Root>, Error> {
    let json = json.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(json);
    let end = json.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let json = json.get(..end).unwrap_or(json);
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    let root: Ordered<Root> =
        serde_path_to_error::deserialize(&mut deserializer).map_err(|e| path_error(e, file))?;
    deserializer.end().map_err(|e| json_error(&e, file, None))?;
    Ok(root)
}

/// The JSON text of a root, compact (for GLB) or pretty-printed (for `.gltf`).
///
/// # Errors
/// [`Error::Unsupported`] when a value cannot be written as JSON (a non-finite [`Float`]).
pub fn to_vec(root: &Ordered<Root>, pretty: bool) -> Result<Vec<u8>, Error> {
    let result = if pretty {
        serde_json::to_vec_pretty(root)
    } else {
        serde_json::to_vec(root)
    };
    result.map_err(|e| Error::unsupported(format!("cannot write the glTF JSON: {e}")))
}

/// An RFC 6901 JSON pointer from path segments (`["nodes", "3"]` → `/nodes/3`).
pub fn pointer<I, S>(segments: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out = String::new();
    for segment in segments {
        out.push('/');
        for c in segment.as_ref().chars() {
            match c {
                '~' => out.push_str("~0"),
                '/' => out.push_str("~1"),
                c => out.push(c),
            }
        }
    }
    out
}

fn path_error(error: serde_path_to_error::Error<serde_json::Error>, file: &Path) -> Error {
    use serde_path_to_error::Segment;
    let segments: Vec<String> = error
        .path()
        .iter()
        .filter_map(|segment| match segment {
            Segment::Seq { index } => Some(index.to_string()),
            Segment::Map { key } => Some(key.clone()),
            Segment::Enum { variant } => Some(variant.clone()),
            Segment::Unknown => None,
        })
        .collect();
    let inner = error.into_inner();
    match inner.classify() {
        serde_json::error::Category::Data => {
            let message = format!(
                "{} (line {}, column {})",
                strip_position(&inner),
                inner.line(),
                inner.column()
            );
            Error::invalid(file, Location::JsonPointer(pointer(segments)), message)
        }
        // A syntax error inside a value (a number out of range): line:column, and the pointer
        // of the value being read.
        _ if !segments.is_empty() => json_error(&inner, file, Some(&pointer(segments))),
        _ => json_error(&inner, file, None),
    }
}

fn json_error(error: &serde_json::Error, file: &Path, pointer: Option<&str>) -> Error {
    let location = if error.line() == 0 {
        Location::File
    } else {
        Location::LineColumn {
            line: error.line(),
            column: error.column(),
        }
    };
    let message = match error.classify() {
        serde_json::error::Category::Eof => {
            format!("{}: the JSON ends early", strip_position(error))
        }
        _ => format!("invalid JSON: {}", strip_position(error)),
    };
    let message = match pointer {
        Some(pointer) => format!("{message} (in the value at JSON {pointer})"),
        None => message,
    };
    Error::invalid(file, location, message)
}

/// serde_json's message without its ` at line L column C` suffix (the location says it).
fn strip_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match text.strip_suffix(&suffix) {
        Some(stripped) => stripped.to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> String {
        let root = parse(text.as_bytes(), Path::new("t.gltf")).unwrap();
        String::from_utf8(to_vec(&root, false).unwrap()).unwrap()
    }

    #[test]
    fn keeps_key_order_and_number_kinds() {
        let text = r#"{"nodes":[{"scale":[1,1.0,2.5],"name":"a","x":{"b":1,"a":2}}],"asset":{"version":"2.0"}}"#;
        assert_eq!(round_trip(text), text);
    }

    #[test]
    fn new_keys_go_last() {
        let mut root = parse(
            br#"{"asset":{"version":"2.0"},"nodes":[{"name":"a"}]}"#,
            Path::new("t"),
        )
        .unwrap();
        root.nodes[0].mesh = Some(Index::new(0));
        let text = String::from_utf8(to_vec(&root, false).unwrap()).unwrap();
        assert_eq!(
            text,
            r#"{"asset":{"version":"2.0"},"nodes":[{"name":"a","mesh":0}]}"#
        );
    }

    #[test]
    fn pointer_escapes() {
        assert_eq!(pointer(["a/b", "c~d", "0"]), "/a~1b/c~0d/0");
    }

    #[test]
    fn index_checks() {
        for (bad, what) in [("-1", "-1"), ("1.5", "1.5"), ("4294967296", "4294967296")] {
            let text = format!(r#"{{"asset":{{"version":"2.0"}},"scene":{bad}}}"#);
            let err = parse(text.as_bytes(), Path::new("t"))
                .unwrap_err()
                .to_string();
            assert!(err.contains("JSON /scene") && err.contains(what), "{err}");
            assert!(err.contains("an index"), "{err}");
        }
    }
}
