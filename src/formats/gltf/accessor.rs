//! Accessors decoded straight from little-endian bytes (glTF 2.0 §3.6.2 and §3.11).
//!
//! # Overview
//!
//! [`read_f32`] and [`read_u32`] return an accessor's values flat, components interleaved
//! (`[x0, y0, z0, x1, ...]`; matrices column by column). They handle every component type,
//! `normalized` integers, `byteStride`, the column padding of 1- and 2-byte matrices, and sparse
//! accessors (applied over the buffer view's values, or over zeros when there is none).
//!
//! Bounds are checked before anything is allocated: the range `byteOffset + byteStride ×
//! (count − 1) + element size` must fit the buffer view's real bytes, so the output is never
//! larger than the data it comes from. An accessor with no buffer view (all zeros plus sparse
//! values) is limited to [`MAX_ZERO_FILLED`] components. Tightly packed floats take a fast
//! path (a straight little-endian copy).
//!
//! The decoder does not judge values: a NaN in a float accessor is returned as NaN. Readers of
//! rotations and other values that must be finite check that themselves.

use std::fmt;

use super::document::Document;
use super::json::{Accessor, Get, Index};
use crate::error::{Error, Location};

/// The most components an accessor without a buffer view may have (it is allocated as zeros,
/// with nothing in the file to bound it): 2^26, 256 MiB of `f32`.
pub const MAX_ZERO_FILLED: usize = 1 << 26;

/// An accessor's component type (`componentType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ComponentType {
    /// 5120 `BYTE`.
    I8,
    /// 5121 `UNSIGNED_BYTE`.
    U8,
    /// 5122 `SHORT`.
    I16,
    /// 5123 `UNSIGNED_SHORT`.
    U16,
    /// 5125 `UNSIGNED_INT`.
    U32,
    /// 5126 `FLOAT`.
    F32,
}

impl ComponentType {
    /// The type for a GL code, `None` for an unknown code.
    pub fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            5120 => ComponentType::I8,
            5121 => ComponentType::U8,
            5122 => ComponentType::I16,
            5123 => ComponentType::U16,
            5125 => ComponentType::U32,
            5126 => ComponentType::F32,
            _ => return None,
        })
    }

    /// The GL code.
    pub fn code(self) -> u32 {
        match self {
            ComponentType::I8 => 5120,
            ComponentType::U8 => 5121,
            ComponentType::I16 => 5122,
            ComponentType::U16 => 5123,
            ComponentType::U32 => 5125,
            ComponentType::F32 => 5126,
        }
    }

    /// Bytes per component.
    pub fn size(self) -> u64 {
        match self {
            ComponentType::I8 | ComponentType::U8 => 1,
            ComponentType::I16 | ComponentType::U16 => 2,
            ComponentType::U32 | ComponentType::F32 => 4,
        }
    }
}

impl fmt::Display for ComponentType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ComponentType::I8 => "BYTE",
            ComponentType::U8 => "UNSIGNED_BYTE",
            ComponentType::I16 => "SHORT",
            ComponentType::U16 => "UNSIGNED_SHORT",
            ComponentType::U32 => "UNSIGNED_INT",
            ComponentType::F32 => "FLOAT",
        })
    }
}

/// An accessor's element type (`type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElementType {
    /// `SCALAR`.
    Scalar,
    /// `VEC2`.
    Vec2,
    /// `VEC3`.
    Vec3,
    /// `VEC4`.
    Vec4,
    /// `MAT2` (column-major).
    Mat2,
    /// `MAT3` (column-major).
    Mat3,
    /// `MAT4` (column-major).
    Mat4,
}

impl ElementType {
    /// The type for its JSON name, `None` for an unknown name.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "SCALAR" => ElementType::Scalar,
            "VEC2" => ElementType::Vec2,
            "VEC3" => ElementType::Vec3,
            "VEC4" => ElementType::Vec4,
            "MAT2" => ElementType::Mat2,
            "MAT3" => ElementType::Mat3,
            "MAT4" => ElementType::Mat4,
            _ => return None,
        })
    }

    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            ElementType::Scalar => "SCALAR",
            ElementType::Vec2 => "VEC2",
            ElementType::Vec3 => "VEC3",
            ElementType::Vec4 => "VEC4",
            ElementType::Mat2 => "MAT2",
            ElementType::Mat3 => "MAT3",
            ElementType::Mat4 => "MAT4",
        }
    }

    /// Components per element.
    pub fn components(self) -> usize {
        self.columns() * self.rows()
    }

    /// Columns per element (1 for scalars and vectors).
    pub fn columns(self) -> usize {
        match self {
            ElementType::Mat2 => 2,
            ElementType::Mat3 => 3,
            ElementType::Mat4 => 4,
            _ => 1,
        }
    }

    /// Rows per column.
    pub fn rows(self) -> usize {
        match self {
            ElementType::Scalar => 1,
            ElementType::Vec2 | ElementType::Mat2 => 2,
            ElementType::Vec3 | ElementType::Mat3 => 3,
            ElementType::Vec4 | ElementType::Mat4 => 4,
        }
    }

    fn is_matrix(self) -> bool {
        self.columns() > 1
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Bytes between the starts of two matrix columns (each column starts on a 4-byte boundary,
/// glTF 2.0 §3.6.2.4); for scalars and vectors the whole element.
fn column_stride(element: ElementType, component: ComponentType) -> u64 {
    let rows = u64::try_from(element.rows()).unwrap_or(4);
    let column = rows * component.size();
    if element.is_matrix() {
        column.div_ceil(4) * 4
    } else {
        column
    }
}

/// Bytes per element, matrix column padding included (a MAT3 of bytes takes 12, not 9).
pub fn element_size(element: ElementType, component: ComponentType) -> u64 {
    column_stride(element, component) * u64::try_from(element.columns()).unwrap_or(4)
}

/// What an accessor holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccessorInfo {
    /// Component type.
    pub component: ComponentType,
    /// Element type.
    pub element: ElementType,
    /// Whether integer components are normalized.
    pub normalized: bool,
    /// Number of elements.
    pub count: u64,
}

/// An accessor's types and count.
///
/// # Errors
/// [`Error::Invalid`] at `/accessors/N` when the accessor does not exist or its component type
/// or type is unknown.
pub fn info(doc: &Document, index: Index<Accessor>) -> Result<AccessorInfo, Error> {
    let accessor = accessor(doc, index)?;
    let (component, element) = types(doc, index, accessor)?;
    Ok(AccessorInfo {
        component,
        element,
        normalized: accessor.normalized.unwrap_or(false),
        count: accessor.count,
    })
}

fn invalid(doc: &Document, pointer: String, message: String) -> Error {
    Error::invalid(doc.path(), Location::JsonPointer(pointer), message)
}

fn accessor(doc: &Document, index: Index<Accessor>) -> Result<&Accessor, Error> {
    doc.root.get(index).map(|a| &**a).ok_or_else(|| {
        invalid(
            doc,
            format!("/accessors/{index}"),
            format!(
                "accessor {index} does not exist ({} accessors)",
                doc.root.accessors.len()
            ),
        )
    })
}

fn types(
    doc: &Document,
    index: Index<Accessor>,
    accessor: &Accessor,
) -> Result<(ComponentType, ElementType), Error> {
    let component = ComponentType::from_code(accessor.component_type).ok_or_else(|| {
        invalid(
            doc,
            format!("/accessors/{index}/componentType"),
            format!("unknown component type {}", accessor.component_type),
        )
    })?;
    let element = ElementType::parse(&accessor.element_type).ok_or_else(|| {
        invalid(
            doc,
            format!("/accessors/{index}/type"),
            format!("unknown accessor type {:?}", accessor.element_type),
        )
    })?;
    Ok((component, element))
}

/// Where the elements are in a byte slice; every range inside has been checked against it.
#[derive(Debug, Clone, Copy)]
struct Geometry {
    offset: usize,
    stride: usize,
    count: usize,
    columns: usize,
    column_stride: usize,
    rows: usize,
}

impl Geometry {
    /// Checks that `count` elements of this layout fit `data` from `offset`.
    fn new(
        data_len: usize,
        offset: u64,
        stride: Option<u64>,
        count: u64,
        element: ElementType,
        component: ComponentType,
    ) -> Result<Geometry, String> {
        let size = element_size(element, component);
        let stride = stride.unwrap_or(size);
        if stride < size {
            return Err(format!(
                "byteStride {stride} is smaller than the element size {size} ({element} of {component})"
            ));
        }
        let needed = match count {
            0 => Some(offset),
            n => stride
                .checked_mul(n - 1)
                .and_then(|b| b.checked_add(size))
                .and_then(|b| b.checked_add(offset)),
        };
        let available = u64::try_from(data_len).unwrap_or(u64::MAX);
        match needed {
            Some(needed) if needed <= available => {}
            needed => {
                return Err(format!(
                    "reads past its buffer view: needs {} bytes (byteOffset {offset} + byteStride {stride} × (count {count} − 1) + element size {size}) but the view has {available}",
                    needed.map_or_else(|| "more than 2^64".to_owned(), |n| n.to_string())
                ))
            }
        }
        let usize_of =
            |v: u64| usize::try_from(v).map_err(|_| format!("{v} does not fit in memory"));
        Ok(Geometry {
            offset: usize_of(offset)?,
            stride: usize_of(stride)?,
            count: usize_of(count)?,
            columns: element.columns(),
            column_stride: usize_of(column_stride(element, component))?,
            rows: element.rows(),
        })
    }

    fn components(&self) -> usize {
        self.count.saturating_mul(self.columns * self.rows)
    }

    fn is_packed(&self, component_size: usize) -> bool {
        self.stride == self.columns * self.rows * component_size
            && self.column_stride == self.rows * component_size
    }
}

/// Decodes every component with `convert`; `None` only if a range check failed (which
/// [`Geometry::new`] rules out).
fn decode<T, const N: usize>(
    data: &[u8],
    g: &Geometry,
    out: &mut Vec<T>,
    convert: impl Fn([u8; N]) -> T,
) -> Option<()> {
    out.reserve(g.components());
    for e in 0..g.count {
        let element = g.offset + e * g.stride;
        for c in 0..g.columns {
            let column = element + c * g.column_stride;
            for r in 0..g.rows {
                let at = column + r * N;
                let bytes: [u8; N] = data.get(at..at + N)?.try_into().ok()?;
                out.push(convert(bytes));
            }
        }
    }
    Some(())
}

fn decode_f32(
    data: &[u8],
    g: &Geometry,
    component: ComponentType,
    normalized: bool,
    out: &mut Vec<f32>,
) -> Result<(), String> {
    use ComponentType as C;
    let done = match (component, normalized) {
        (C::F32, _) if g.is_packed(4) => {
            let len = g.components().checked_mul(4).ok_or("too many components")?;
            let bytes = data.get(g.offset..g.offset + len).ok_or("range")?;
            out.extend(
                bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            Some(())
        }
        (C::F32, _) => decode(data, g, out, f32::from_le_bytes),
        (C::I8, false) => decode(data, g, out, |b: [u8; 1]| f32::from(i8::from_le_bytes(b))),
        (C::I8, true) => decode(data, g, out, |b: [u8; 1]| {
            (f32::from(i8::from_le_bytes(b)) / 127.0).max(-1.0)
        }),
        (C::U8, false) => decode(data, g, out, |b: [u8; 1]| f32::from(u8::from_le_bytes(b))),
        (C::U8, true) => decode(data, g, out, |b: [u8; 1]| f32::from(u8::from_le_bytes(b)) / 255.0),
        (C::I16, false) => decode(data, g, out, |b: [u8; 2]| f32::from(i16::from_le_bytes(b))),
        (C::I16, true) => decode(data, g, out, |b: [u8; 2]| {
            (f32::from(i16::from_le_bytes(b)) / 32767.0).max(-1.0)
        }),
        (C::U16, false) => decode(data, g, out, |b: [u8; 2]| f32::from(u16::from_le_bytes(b))),
        (C::U16, true) => decode(data, g, out, |b: [u8; 2]| {
            f32::from(u16::from_le_bytes(b)) / 65535.0
        }),
        (C::U32, _) => {
            return Err(
                "has UNSIGNED_INT components, which cannot be read as floats: expected FLOAT or 8/16-bit integers"
                    .to_owned(),
            )
        }
    };
    done.ok_or_else(|| "range check failed".to_owned())
}

fn decode_u32(
    data: &[u8],
    g: &Geometry,
    component: ComponentType,
    normalized: bool,
    out: &mut Vec<u32>,
) -> Result<(), String> {
    if normalized {
        return Err("is normalized: expected unnormalized unsigned integers".to_owned());
    }
    let done = match component {
        ComponentType::U8 => decode(data, g, out, |b: [u8; 1]| u32::from(b[0])),
        ComponentType::U16 => decode(data, g, out, |b: [u8; 2]| u32::from(u16::from_le_bytes(b))),
        ComponentType::U32 => decode(data, g, out, u32::from_le_bytes),
        other => {
            return Err(format!(
                "has {other} components: expected UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT"
            ))
        }
    };
    done.ok_or_else(|| "range check failed".to_owned())
}

/// Reads an accessor as `f32`s, flat (components interleaved, matrices column-major).
///
/// Normalized integers follow glTF 2.0 §3.11: `i8` → `max(c / 127, −1)`, `u8` → `c / 255`,
/// `i16` → `max(c / 32767, −1)`, `u16` → `c / 65535`; unnormalized integers are converted
/// exactly. Sparse values are applied.
///
/// # Errors
/// [`Error::Invalid`] at `/accessors/N` (or its sparse part) when the accessor does not exist,
/// has unknown or `UNSIGNED_INT` components, reads past its buffer view, or has a sparse index
/// out of range; `GLTF_ACCESSOR_NOT_FINITE` when a value is NaN or infinite (glTF forbids
/// them: a writer would carry them into formats that cannot even parse them).
pub fn read_f32(doc: &Document, index: Index<Accessor>) -> Result<Vec<f32>, Error> {
    let values = read(doc, index, decode_f32)?;
    if let Some(at) = values.iter().position(|v| !v.is_finite()) {
        let components = doc
            .root
            .get(index)
            .and_then(|a| ElementType::parse(&a.element_type))
            .map_or(1, ElementType::components);
        return Err(Error::invalid_coded(
            "GLTF_ACCESSOR_NOT_FINITE",
            doc.path(),
            Location::JsonPointer(format!("/accessors/{index}")),
            format!(
                "accessor {index}: element {} holds {}: accessor values must be finite numbers",
                at / components.max(1),
                values[at]
            ),
        ));
    }
    Ok(values)
}

/// Reads an accessor of unsigned integers (indices, joints) as `u32`s, flat.
///
/// # Errors
/// As [`read_f32`]; also when the components are signed, floats or normalized.
pub fn read_u32(doc: &Document, index: Index<Accessor>) -> Result<Vec<u32>, Error> {
    read(doc, index, decode_u32)
}

type Decoder<T> = fn(&[u8], &Geometry, ComponentType, bool, &mut Vec<T>) -> Result<(), String>;

fn read<T: Copy + Default>(
    doc: &Document,
    index: Index<Accessor>,
    decoder: Decoder<T>,
) -> Result<Vec<T>, Error> {
    let accessor = accessor(doc, index)?;
    let (component, element) = types(doc, index, accessor)?;
    let normalized = accessor.normalized.unwrap_or(false);
    let here = format!("/accessors/{index}");
    let fail = |pointer: &str, message: String| {
        invalid(
            doc,
            pointer.to_owned(),
            format!("accessor {index} {message}"),
        )
    };
    let mut out = Vec::new();
    match accessor.buffer_view {
        Some(view_index) => {
            let view = doc.buffer_view(view_index)?;
            let stride = doc.root.get(view_index).and_then(|v| v.byte_stride);
            let g = Geometry::new(
                view.len(),
                accessor.byte_offset.unwrap_or(0),
                stride,
                accessor.count,
                element,
                component,
            )
            .map_err(|m| fail(&here, m))?;
            decoder(view, &g, component, normalized, &mut out).map_err(|m| fail(&here, m))?;
        }
        None => {
            let components = usize::try_from(accessor.count)
                .ok()
                .and_then(|n| n.checked_mul(element.components()))
                .filter(|&n| n <= MAX_ZERO_FILLED)
                .ok_or_else(|| {
                    fail(
                        &format!("{here}/count"),
                        format!(
                            "has no buffer view and {} elements: expected at most {MAX_ZERO_FILLED} components",
                            accessor.count
                        ),
                    )
                })?;
            // Check the type is readable before allocating zeros.
            decoder(
                &[],
                &Geometry {
                    offset: 0,
                    stride: 0,
                    count: 0,
                    columns: 1,
                    column_stride: 0,
                    rows: 1,
                },
                component,
                normalized,
                &mut out,
            )
            .map_err(|m| fail(&here, m))?;
            out = vec![T::default(); components];
        }
    }
    if let Some(sparse) = &accessor.sparse {
        let width = element.components();
        let count = usize::try_from(sparse.count).unwrap_or(usize::MAX);
        let indices_pointer = format!("{here}/sparse/indices");
        let values_pointer = format!("{here}/sparse/values");
        let index_component =
            ComponentType::from_code(sparse.indices.component_type).ok_or_else(|| {
                fail(
                    &indices_pointer,
                    format!(
                        "has unknown sparse index component type {}",
                        sparse.indices.component_type
                    ),
                )
            })?;
        let indices_view = doc.buffer_view(sparse.indices.buffer_view)?;
        let g = Geometry::new(
            indices_view.len(),
            sparse.indices.byte_offset.unwrap_or(0),
            None,
            sparse.count,
            ElementType::Scalar,
            index_component,
        )
        .map_err(|m| fail(&indices_pointer, format!("sparse indices {m}")))?;
        let mut indices = Vec::new();
        decode_u32(indices_view, &g, index_component, false, &mut indices)
            .map_err(|m| fail(&indices_pointer, format!("sparse indices {m}")))?;
        let values_view = doc.buffer_view(sparse.values.buffer_view)?;
        let g = Geometry::new(
            values_view.len(),
            sparse.values.byte_offset.unwrap_or(0),
            None,
            sparse.count,
            element,
            component,
        )
        .map_err(|m| fail(&values_pointer, format!("sparse values {m}")))?;
        let mut values = Vec::new();
        decoder(values_view, &g, component, normalized, &mut values)
            .map_err(|m| fail(&values_pointer, format!("sparse values {m}")))?;
        for (k, &target) in indices.iter().enumerate().take(count) {
            let at = usize::try_from(target).unwrap_or(usize::MAX);
            let range = at
                .checked_mul(width)
                .and_then(|start| Some(start..start.checked_add(width)?));
            let slot = range.and_then(|r| out.get_mut(r)).ok_or_else(|| {
                fail(
                    &indices_pointer,
                    format!(
                        "sparse index {target} (entry {k}) is out of range: expected less than count {}",
                        accessor.count
                    ),
                )
            })?;
            let source = values.get(k * width..(k + 1) * width).ok_or_else(|| {
                fail(
                    &values_pointer,
                    "has fewer sparse values than indices".to_owned(),
                )
            })?;
            slot.copy_from_slice(source);
        }
    }
    Ok(out)
}
