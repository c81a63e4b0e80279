//! New binary data for a document: float accessors gathered into one new buffer, added to the
//! document (buffer, views, accessors) in one step by [`NewData::finish`].

use serde_json::Map;

use super::super::document::Document;
use super::super::json::{Accessor, Buffer, BufferView, Float, Index, Ordered};
use crate::error::Error;

/// `componentType` FLOAT.
const FLOAT: u32 = 5126;
/// `target` ARRAY_BUFFER (vertex attributes).
pub(super) const ARRAY_BUFFER: u32 = 34962;

/// Float data waiting to become a buffer, its views and accessors.
#[derive(Debug)]
pub(super) struct NewData {
    buffer: Index<Buffer>,
    view_base: usize,
    accessor_base: usize,
    bytes: Vec<u8>,
    views: Vec<BufferView>,
    accessors: Vec<Accessor>,
}

/// The shape of float data: `"SCALAR"`, `"VEC3"`, `"VEC4"`, `"MAT4"` and its component count.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shape {
    pub(super) element: &'static str,
    pub(super) components: usize,
}

pub(super) const SCALAR: Shape = Shape {
    element: "SCALAR",
    components: 1,
};
pub(super) const VEC3: Shape = Shape {
    element: "VEC3",
    components: 3,
};
pub(super) const VEC4: Shape = Shape {
    element: "VEC4",
    components: 4,
};
pub(super) const MAT4: Shape = Shape {
    element: "MAT4",
    components: 16,
};

impl NewData {
    /// Data for a new buffer after those `document` has.
    ///
    /// # Errors
    /// The document already has `u32::MAX` buffers.
    pub(super) fn new(document: &Document) -> Result<NewData, Error> {
        let root = &document.root;
        Ok(NewData {
            buffer: Index::try_from(root.buffers.len())
                .map_err(|_| Error::unsupported("too many buffers"))?,
            view_base: root.buffer_views.len(),
            accessor_base: root.accessors.len(),
            bytes: Vec::new(),
            views: Vec::new(),
            accessors: Vec::new(),
        })
    }

    /// A buffer view over `values` (4-byte aligned), with a `target` when given.
    fn view(&mut self, values: &[f32], target: Option<u32>) -> Result<Index<BufferView>, Error> {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let offset = u64::try_from(self.bytes.len()).map_err(|_| too_large())?;
        self.bytes
            .extend(values.iter().flat_map(|v| v.to_le_bytes()));
        let length = u64::try_from(values.len() * 4).map_err(|_| too_large())?;
        self.views.push(BufferView {
            buffer: self.buffer,
            byte_offset: Some(offset),
            byte_length: length,
            target,
            ..BufferView::default()
        });
        Index::try_from(self.view_base + self.views.len() - 1).map_err(|_| too_large())
    }

    /// Points `accessor` at `values` (dense floats in a new view): its component type, offset,
    /// normalization and sparse part are replaced, `min`/`max` recomputed when `bounds`;
    /// name, type, count and extensions are kept.
    ///
    /// # Errors
    /// The data would exceed the index or size limits.
    pub(super) fn repoint(
        &mut self,
        accessor: &mut Accessor,
        values: &[f32],
        shape: Shape,
        target: Option<u32>,
        bounds: bool,
    ) -> Result<(), Error> {
        let view = self.view(values, target)?;
        accessor.buffer_view = Some(view);
        accessor.byte_offset = None;
        accessor.component_type = FLOAT;
        accessor.normalized = None;
        accessor.sparse = None;
        accessor.count =
            u64::try_from(values.len() / shape.components.max(1)).map_err(|_| too_large())?;
        accessor.element_type = shape.element.to_owned();
        (accessor.min, accessor.max) = if bounds {
            let (min, max) = bounds_of(values, shape.components);
            (Some(min), Some(max))
        } else {
            (None, None)
        };
        Ok(())
    }

    /// A new accessor over `values` (with `min`/`max` when `bounds`), its index.
    ///
    /// # Errors
    /// The data would exceed the index or size limits.
    pub(super) fn push(
        &mut self,
        values: &[f32],
        shape: Shape,
        target: Option<u32>,
        bounds: bool,
    ) -> Result<Index<Accessor>, Error> {
        let mut accessor = Accessor {
            element_type: shape.element.to_owned(),
            other: Map::new(),
            ..Accessor::default()
        };
        self.repoint(&mut accessor, values, shape, target, bounds)?;
        self.accessors.push(accessor);
        Index::try_from(self.accessor_base + self.accessors.len() - 1).map_err(|_| too_large())
    }

    /// A copy of `accessor` (name and extensions) over `values`, its index.
    ///
    /// # Errors
    /// The data would exceed the index or size limits.
    pub(super) fn push_like(
        &mut self,
        accessor: &Accessor,
        values: &[f32],
        shape: Shape,
        target: Option<u32>,
        bounds: bool,
    ) -> Result<Index<Accessor>, Error> {
        let mut copy = accessor.clone();
        self.repoint(&mut copy, values, shape, target, bounds)?;
        self.accessors.push(copy);
        Index::try_from(self.accessor_base + self.accessors.len() - 1).map_err(|_| too_large())
    }

    /// Adds the buffer, views and accessors to `document` (nothing when no data was added).
    ///
    /// # Errors
    /// The buffer index is no longer the one the views name (a buffer was added meanwhile).
    pub(super) fn finish(mut self, document: &mut Document) -> Result<(), Error> {
        if self.views.is_empty() {
            return Ok(());
        }
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let index = document.push_buffer(self.bytes)?;
        if index != self.buffer {
            return Err(Error::unsupported(format!(
                "new data were laid out for buffer {} but landed in buffer {index}",
                self.buffer
            )));
        }
        let root = &mut document.root;
        root.buffer_views
            .extend(self.views.into_iter().map(Ordered::new));
        root.accessors
            .extend(self.accessors.into_iter().map(Ordered::new));
        Ok(())
    }
}

fn too_large() -> Error {
    Error::unsupported("the new data exceed glTF's index or size limits")
}

/// Per-component minimum and maximum of interleaved `values`.
fn bounds_of(values: &[f32], components: usize) -> (Vec<Float>, Vec<Float>) {
    let components = components.max(1);
    let mut min = vec![f32::INFINITY; components];
    let mut max = vec![f32::NEG_INFINITY; components];
    for element in values.chunks_exact(components) {
        for ((lo, hi), v) in min.iter_mut().zip(max.iter_mut()).zip(element) {
            *lo = lo.min(*v);
            *hi = hi.max(*v);
        }
    }
    let finite = |v: f32| if v.is_finite() { v } else { 0.0 };
    (
        min.into_iter().map(|v| Float::from(finite(v))).collect(),
        max.into_iter().map(|v| Float::from(finite(v))).collect(),
    )
}
