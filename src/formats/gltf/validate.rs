//! The validation pass over a parsed glTF document.
//!
//! # Overview
//!
//! [`check`] walks the JSON once and reports every problem it finds as a [`Diagnostics`]
//! entry whose location is the JSON pointer of the offending value. Error-severity entries are
//! structural (an index out of range, a range past the end of its data, a node with two
//! parents, a cycle, a non-finite transform, `matrix` together with TRS): a reader stops on
//! them, and [`into_error`] folds them into one [`Error::Invalid`]. Warnings are softer
//! (padding, strides, alignment) and travel with the document.
//!
//! Nothing here allocates by a size read from the file: lengths are compared as numbers with
//! checked arithmetic.

use std::path::Path;

use super::accessor::{element_size, ComponentType, ElementType};
use super::json::{floats, Float, Index, Node, Root};
use crate::error::{Diagnostics, Error, Location, Severity};

/// What validation needs to know of one buffer's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferInfo {
    /// Bytes of data actually present.
    pub data_len: u64,
    /// Whether the data is a GLB BIN chunk (which may carry up to 3 padding bytes).
    pub glb_chunk: bool,
}

/// Validates `root` against the data of its buffers (`buffers[i]` for `root.buffers[i]`).
pub fn check(root: &Root, buffers: &[BufferInfo]) -> Diagnostics {
    let mut checker = Checker {
        root,
        found: Diagnostics::new(),
    };
    checker.version();
    checker.buffers(buffers);
    checker.buffer_views();
    checker.accessors();
    checker.scenes();
    checker.nodes();
    checker.hierarchy();
    checker.skins();
    checker.meshes();
    checker.images();
    checker.animations();
    checker.found
}

/// One error for all error-severity findings: the first one's pointer and message, followed
/// by the others (`None` when there are no errors).
pub fn into_error(found: &Diagnostics, file: &Path) -> Option<Error> {
    let mut errors = found.iter().filter(|d| d.severity == Severity::Error);
    let first = errors.next()?;
    let rest: Vec<String> = errors
        .map(|d| format!("{}: {}", d.location, d.message))
        .collect();
    let mut message = first.message.clone();
    if !rest.is_empty() {
        const SHOWN: usize = 20;
        message.push_str(&format!(
            "; {} more problem{}: {}",
            rest.len(),
            if rest.len() == 1 { "" } else { "s" },
            rest.iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        ));
        if rest.len() > SHOWN {
            message.push_str("; …");
        }
    }
    Some(Error::invalid_coded(
        first.code,
        file,
        Location::JsonPointer(first.location.clone()),
        message,
    ))
}

struct Checker<'a> {
    root: &'a Root,
    found: Diagnostics,
}

fn plural(n: usize, what: &str) -> String {
    match n {
        0 => format!("there are no {what}s"),
        1 => format!("expected 0 (there is 1 {what})"),
        n => format!("expected 0 to {} ({n} {what}s)", n - 1),
    }
}

impl Checker<'_> {
    fn error(&mut self, code: &'static str, pointer: String, message: String) {
        self.found.error(code, pointer, message);
    }

    fn warn(&mut self, code: &'static str, pointer: String, message: String) {
        self.found.warn(code, pointer, message);
    }

    /// Reports an out-of-range index; returns whether it is in range.
    fn index<T>(
        &mut self,
        pointer: impl FnOnce() -> String,
        index: Index<T>,
        len: usize,
        what: &str,
    ) -> bool {
        if index.as_usize() < len {
            return true;
        }
        self.error(
            "GLTF_INDEX_OUT_OF_RANGE",
            pointer(),
            format!(
                "{what} index {index} is out of range: {}",
                plural(len, what)
            ),
        );
        false
    }

    fn node_label(&self, index: usize) -> String {
        match self.root.nodes.get(index).and_then(|n| n.name.as_deref()) {
            Some(name) => format!("node {index} ({name:?})"),
            None => format!("node {index}"),
        }
    }

    /// `asset.version` is `2.x` (glTF 1.0 is another format; a later major version would be
    /// too: readers must refuse what they do not know, as the specification says).
    fn version(&mut self) {
        let version = &self.root.asset.version;
        let major = version.split('.').next().unwrap_or("");
        let well_formed = version.split('.').count() == 2
            && version
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if major != "2" || !well_formed {
            self.error(
                "GLTF_VERSION",
                "/asset/version".to_owned(),
                format!("asset.version {version:?}: expected glTF 2.x (\"2.0\"); glTF 1.0 files must be converted to 2.0 first"),
            );
        }
    }

    fn buffers(&mut self, data: &[BufferInfo]) {
        if data.len() != self.root.buffers.len() {
            self.error(
                "GLTF_BUFFER_DATA",
                "/buffers".to_owned(),
                format!(
                    "{} buffers in the JSON but {} with data: expected one data block per buffer",
                    self.root.buffers.len(),
                    data.len()
                ),
            );
        }
        for (i, (buffer, info)) in self.root.buffers.iter().zip(data).enumerate() {
            let declared = buffer.byte_length;
            if info.data_len < declared {
                self.error(
                    "GLTF_BUFFER_TOO_SHORT",
                    format!("/buffers/{i}/byteLength"),
                    format!(
                        "byteLength is {declared} but the buffer's data has only {} bytes: expected at most {}",
                        info.data_len, info.data_len
                    ),
                );
            } else if info.data_len > declared && !(info.glb_chunk && info.data_len - declared <= 3)
            {
                self.warn(
                    "GLTF_BUFFER_LONGER",
                    format!("/buffers/{i}/byteLength"),
                    format!(
                        "byteLength is {declared} but the buffer's data has {} bytes; the rest is ignored",
                        info.data_len
                    ),
                );
            }
        }
    }

    fn buffer_views(&mut self) {
        let root = self.root;
        for (i, view) in root.buffer_views.iter().enumerate() {
            let p = || format!("/bufferViews/{i}/buffer");
            if !self.index(p, view.buffer, root.buffers.len(), "buffer") {
                continue;
            }
            let Some(buffer) = root.buffers.get(view.buffer.as_usize()) else {
                continue;
            };
            let start = view.byte_offset.unwrap_or(0);
            match start.checked_add(view.byte_length) {
                Some(end) if end <= buffer.byte_length => {}
                end => self.error(
                    "GLTF_VIEW_OUT_OF_BUFFER",
                    format!("/bufferViews/{i}"),
                    format!(
                        "bytes {start}..{} run past the end of buffer {} (byteLength {}): expected byteOffset + byteLength ≤ {}",
                        end.map_or_else(|| "overflow".to_owned(), |e| e.to_string()),
                        view.buffer,
                        buffer.byte_length,
                        buffer.byte_length
                    ),
                ),
            }
            if let Some(stride) = view.byte_stride {
                if !(4..=252).contains(&stride) || stride % 4 != 0 {
                    self.warn(
                        "GLTF_BYTE_STRIDE",
                        format!("/bufferViews/{i}/byteStride"),
                        format!("byteStride {stride}: expected a multiple of 4 from 4 to 252"),
                    );
                }
            }
        }
    }

    fn accessors(&mut self) {
        let root = self.root;
        for (i, accessor) in root.accessors.iter().enumerate() {
            let component = ComponentType::from_code(accessor.component_type);
            if component.is_none() {
                self.error(
                    "GLTF_COMPONENT_TYPE",
                    format!("/accessors/{i}/componentType"),
                    format!(
                        "component type {} is not one of 5120 (BYTE), 5121 (UNSIGNED_BYTE), 5122 (SHORT), 5123 (UNSIGNED_SHORT), 5125 (UNSIGNED_INT), 5126 (FLOAT)",
                        accessor.component_type
                    ),
                );
            }
            let element = ElementType::parse(&accessor.element_type);
            if element.is_none() {
                self.error(
                    "GLTF_ACCESSOR_TYPE",
                    format!("/accessors/{i}/type"),
                    format!(
                        "type {:?} is not one of SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3, MAT4",
                        accessor.element_type
                    ),
                );
            }
            if accessor.count == 0 {
                self.warn(
                    "GLTF_ACCESSOR_EMPTY",
                    format!("/accessors/{i}/count"),
                    "count is 0: expected at least 1".to_owned(),
                );
            }
            let (Some(component), Some(element)) = (component, element) else {
                continue;
            };
            if accessor.normalized == Some(true)
                && matches!(component, ComponentType::F32 | ComponentType::U32)
            {
                self.warn(
                    "GLTF_ACCESSOR_NORMALIZED",
                    format!("/accessors/{i}/normalized"),
                    format!("normalized is true for {component} components: only 8- and 16-bit integers can be normalized"),
                );
            }
            for (key, bound) in [("min", &accessor.min), ("max", &accessor.max)] {
                if let Some(values) = bound {
                    if values.len() != element.components() {
                        self.warn(
                            "GLTF_ACCESSOR_BOUNDS",
                            format!("/accessors/{i}/{key}"),
                            format!(
                                "{key} has {} values: expected {} (one per component of {})",
                                values.len(),
                                element.components(),
                                accessor.element_type
                            ),
                        );
                    }
                }
            }
            if let Some(view_index) = accessor.buffer_view {
                self.accessor_range(
                    i,
                    view_index,
                    accessor.byte_offset.unwrap_or(0),
                    accessor.count,
                    component,
                    element,
                );
            }
            if let Some(sparse) = &accessor.sparse {
                self.sparse(i, accessor.count, sparse, component, element);
            }
        }
    }

    fn accessor_range(
        &mut self,
        i: usize,
        view_index: Index<super::json::BufferView>,
        offset: u64,
        count: u64,
        component: ComponentType,
        element: ElementType,
    ) {
        let root = self.root;
        let p = || format!("/accessors/{i}/bufferView");
        if !self.index(p, view_index, root.buffer_views.len(), "buffer view") {
            return;
        }
        let Some(view) = root.buffer_views.get(view_index.as_usize()) else {
            return;
        };
        let size = element_size(element, component);
        let stride = view.byte_stride.unwrap_or(size);
        if stride < size {
            self.error(
                "GLTF_STRIDE_TOO_SMALL",
                format!("/accessors/{i}"),
                format!(
                    "buffer view {view_index} has byteStride {stride}, smaller than the accessor's element size {size}: expected at least {size}"
                ),
            );
            return;
        }
        let needed = if count == 0 {
            Some(offset)
        } else {
            stride
                .checked_mul(count - 1)
                .and_then(|n| n.checked_add(size))
                .and_then(|n| n.checked_add(offset))
        };
        match needed {
            Some(needed) if needed <= view.byte_length => {}
            needed => self.error(
                "GLTF_ACCESSOR_OUT_OF_VIEW",
                format!("/accessors/{i}"),
                format!(
                    "the accessor needs {} bytes (byteOffset {offset} + byteStride {stride} × (count {count} − 1) + element size {size}) but buffer view {view_index} has {} bytes",
                    needed.map_or_else(|| "more than 2^64".to_owned(), |n| n.to_string()),
                    view.byte_length
                ),
            ),
        }
        let align = component.size();
        if !offset.is_multiple_of(align) || view.byte_offset.unwrap_or(0) % align != 0 {
            self.warn(
                "GLTF_ACCESSOR_ALIGNMENT",
                format!("/accessors/{i}/byteOffset"),
                format!("the accessor's data does not start at a multiple of its component size {align}"),
            );
        }
    }

    fn sparse(
        &mut self,
        i: usize,
        count: u64,
        sparse: &super::json::Sparse,
        component: ComponentType,
        element: ElementType,
    ) {
        let root = self.root;
        if sparse.count > count {
            self.error(
                "GLTF_SPARSE_COUNT",
                format!("/accessors/{i}/sparse/count"),
                format!(
                    "sparse count {} exceeds the accessor's count {count}",
                    sparse.count
                ),
            );
        }
        let index_component = ComponentType::from_code(sparse.indices.component_type).filter(|c| {
            matches!(
                c,
                ComponentType::U8 | ComponentType::U16 | ComponentType::U32
            )
        });
        if index_component.is_none() {
            self.error(
                "GLTF_COMPONENT_TYPE",
                format!("/accessors/{i}/sparse/indices/componentType"),
                format!(
                    "sparse index component type {}: expected 5121 (UNSIGNED_BYTE), 5123 (UNSIGNED_SHORT) or 5125 (UNSIGNED_INT)",
                    sparse.indices.component_type
                ),
            );
        }
        let parts = [
            (
                "indices",
                sparse.indices.buffer_view,
                sparse.indices.byte_offset,
                index_component.map(ComponentType::size),
            ),
            (
                "values",
                sparse.values.buffer_view,
                sparse.values.byte_offset,
                Some(element_size(element, component)),
            ),
        ];
        for (part, view_index, offset, size) in parts {
            let p = || format!("/accessors/{i}/sparse/{part}/bufferView");
            if !self.index(p, view_index, root.buffer_views.len(), "buffer view") {
                continue;
            }
            let (Some(view), Some(size)) = (root.buffer_views.get(view_index.as_usize()), size)
            else {
                continue;
            };
            let offset = offset.unwrap_or(0);
            let needed = size
                .checked_mul(sparse.count)
                .and_then(|n| n.checked_add(offset));
            if needed.is_none_or(|n| n > view.byte_length) {
                self.error(
                    "GLTF_ACCESSOR_OUT_OF_VIEW",
                    format!("/accessors/{i}/sparse/{part}"),
                    format!(
                        "sparse {part} need {} bytes (byteOffset {offset} + count {} × {size}) but buffer view {view_index} has {} bytes",
                        needed.map_or_else(|| "more than 2^64".to_owned(), |n| n.to_string()),
                        sparse.count,
                        view.byte_length
                    ),
                );
            }
        }
    }

    fn scenes(&mut self) {
        let root = self.root;
        if let Some(scene) = root.scene {
            self.index(|| "/scene".to_owned(), scene, root.scenes.len(), "scene");
        }
        for (s, scene) in root.scenes.iter().enumerate() {
            for (k, node) in scene.nodes.iter().enumerate() {
                self.index(
                    || format!("/scenes/{s}/nodes/{k}"),
                    *node,
                    root.nodes.len(),
                    "node",
                );
            }
        }
    }

    fn nodes(&mut self) {
        let root = self.root;
        let meshes = root.meshes.len();
        let skins = root.skins.len();
        let cameras = root.other_len("cameras");
        for (i, node) in root.nodes.iter().enumerate() {
            for (k, child) in node.children.iter().enumerate() {
                self.index(
                    || format!("/nodes/{i}/children/{k}"),
                    *child,
                    root.nodes.len(),
                    "node",
                );
            }
            if let Some(mesh) = node.mesh {
                self.index(|| format!("/nodes/{i}/mesh"), mesh, meshes, "mesh");
            }
            if let Some(skin) = node.skin {
                self.index(|| format!("/nodes/{i}/skin"), skin, skins, "skin");
            }
            if let Some(camera) = node.camera {
                self.index(|| format!("/nodes/{i}/camera"), camera, cameras, "camera");
            }
            self.transform(i, node);
        }
    }

    fn transform(&mut self, i: usize, node: &Node) {
        let parts: [(&str, Option<&[Float]>); 4] = [
            ("translation", node.translation.as_ref().map(|a| &a[..])),
            ("rotation", node.rotation.as_ref().map(|a| &a[..])),
            ("scale", node.scale.as_ref().map(|a| &a[..])),
            ("matrix", node.matrix.as_ref().map(|a| &a[..])),
        ];
        for (key, values) in parts {
            let Some(values) = values else { continue };
            if let Some((k, bad)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
                self.error(
                    "GLTF_NODE_NOT_FINITE",
                    format!("/nodes/{i}/{key}/{k}"),
                    format!(
                        "{} has {key} component {k} = {}: expected a finite number",
                        self.node_label(i),
                        bad.get()
                    ),
                );
            }
        }
        if node.matrix.is_some()
            && (node.translation.is_some() || node.rotation.is_some() || node.scale.is_some())
        {
            self.error(
                "GLTF_NODE_MATRIX_AND_TRS",
                format!("/nodes/{i}/matrix"),
                format!(
                    "{} has both matrix and translation/rotation/scale: expected one or the other",
                    self.node_label(i)
                ),
            );
        }
        if let Some(rotation) = &node.rotation {
            let q = floats(rotation);
            let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
            if norm.is_finite() && (norm - 1.0).abs() > 1e-3 {
                self.warn(
                    "GLTF_ROTATION_NOT_UNIT",
                    format!("/nodes/{i}/rotation"),
                    format!(
                        "{} has a rotation of length {norm}: expected a unit quaternion",
                        self.node_label(i)
                    ),
                );
            }
        }
    }

    /// The node graph must be a forest: one parent at most, no cycles.
    fn hierarchy(&mut self) {
        let root = self.root;
        let n = root.nodes.len();
        let mut parent: Vec<Option<usize>> = vec![None; n];
        for (p, node) in root.nodes.iter().enumerate() {
            for (k, child) in node.children.iter().enumerate() {
                let c = child.as_usize();
                let Some(slot) = parent.get_mut(c) else {
                    continue;
                };
                if c == p {
                    let label = self.node_label(p);
                    self.error(
                        "GLTF_NODE_CYCLE",
                        format!("/nodes/{p}/children/{k}"),
                        format!(
                            "{label} lists itself as a child: the node hierarchy must be a forest"
                        ),
                    );
                    continue;
                }
                match *slot {
                    None => *slot = Some(p),
                    Some(first) => {
                        let message = if first == p {
                            format!(
                                "{} lists {} twice as a child",
                                self.node_label(p),
                                self.node_label(c)
                            )
                        } else {
                            format!(
                                "{} has two parents, {} and {}: expected at most one",
                                self.node_label(c),
                                self.node_label(first),
                                self.node_label(p)
                            )
                        };
                        self.error(
                            "GLTF_NODE_TWO_PARENTS",
                            format!("/nodes/{p}/children/{k}"),
                            message,
                        );
                    }
                }
            }
        }
        // Walk up from every node; meeting a node of the current walk again closes a cycle.
        let mut state = vec![0u8; n]; // 0 unseen, 1 on the current walk, 2 done
        for start in 0..n {
            let mut walk = Vec::new();
            let mut at = Some(start);
            while let Some(node) = at {
                match state.get(node).copied() {
                    Some(0) => {}
                    Some(1) => {
                        let from = walk.iter().position(|&w| w == node).unwrap_or(0);
                        let cycle: Vec<usize> = walk.get(from..).unwrap_or_default().to_vec();
                        // Parent to child: `node` is the parent of the last node walked.
                        let mut names = vec![self.node_label(node)];
                        names.extend(cycle.iter().rev().map(|&c| self.node_label(c)));
                        self.error(
                            "GLTF_NODE_CYCLE",
                            format!("/nodes/{node}/children"),
                            format!(
                                "the node hierarchy has a cycle: {} (each a child of the one before): expected a forest",
                                names.join(" → ")
                            ),
                        );
                        break;
                    }
                    _ => break,
                }
                if let Some(s) = state.get_mut(node) {
                    *s = 1;
                }
                walk.push(node);
                at = parent.get(node).copied().flatten();
            }
            for node in walk {
                if let Some(s) = state.get_mut(node) {
                    *s = 2;
                }
            }
        }
        for (s, scene) in root.scenes.iter().enumerate() {
            for (k, node) in scene.nodes.iter().enumerate() {
                if let Some(Some(p)) = parent.get(node.as_usize()) {
                    self.warn(
                        "GLTF_SCENE_ROOT_HAS_PARENT",
                        format!("/scenes/{s}/nodes/{k}"),
                        format!(
                            "{} is a scene root but also a child of {}",
                            self.node_label(node.as_usize()),
                            self.node_label(*p)
                        ),
                    );
                }
            }
        }
    }

    fn skins(&mut self) {
        let root = self.root;
        for (s, skin) in root.skins.iter().enumerate() {
            for (k, joint) in skin.joints.iter().enumerate() {
                self.index(
                    || format!("/skins/{s}/joints/{k}"),
                    *joint,
                    root.nodes.len(),
                    "node",
                );
            }
            if let Some(node) = skin.skeleton {
                self.index(
                    || format!("/skins/{s}/skeleton"),
                    node,
                    root.nodes.len(),
                    "node",
                );
            }
            if let Some(accessor) = skin.inverse_bind_matrices {
                self.index(
                    || format!("/skins/{s}/inverseBindMatrices"),
                    accessor,
                    root.accessors.len(),
                    "accessor",
                );
            }
        }
    }

    fn meshes(&mut self) {
        let root = self.root;
        let accessors = root.accessors.len();
        let materials = root.other_len("materials");
        for (m, mesh) in root.meshes.iter().enumerate() {
            for (p, primitive) in mesh.primitives.iter().enumerate() {
                let base = format!("/meshes/{m}/primitives/{p}");
                for (semantic, accessor) in primitive.attributes.iter() {
                    let pointer = || {
                        format!(
                            "{base}/attributes/{}",
                            super::json::pointer([semantic]).trim_start_matches('/')
                        )
                    };
                    self.index(pointer, accessor, accessors, "accessor");
                }
                if let Some(indices) = primitive.indices {
                    self.index(|| format!("{base}/indices"), indices, accessors, "accessor");
                }
                if let Some(material) = primitive.material {
                    self.index(
                        || format!("{base}/material"),
                        material,
                        materials,
                        "material",
                    );
                }
                for (t, target) in primitive.targets.iter().enumerate() {
                    for (semantic, accessor) in target.iter() {
                        let pointer = || {
                            format!(
                                "{base}/targets/{t}/{}",
                                super::json::pointer([semantic]).trim_start_matches('/')
                            )
                        };
                        self.index(pointer, accessor, accessors, "accessor");
                    }
                }
            }
        }
    }

    fn images(&mut self) {
        let root = self.root;
        for (i, image) in root.images.iter().enumerate() {
            if let Some(view) = image.buffer_view {
                self.index(
                    || format!("/images/{i}/bufferView"),
                    view,
                    root.buffer_views.len(),
                    "buffer view",
                );
            }
            if image.uri.is_some() == image.buffer_view.is_some() {
                self.warn(
                    "GLTF_IMAGE_SOURCE",
                    format!("/images/{i}"),
                    "expected exactly one of uri and bufferView".to_owned(),
                );
            }
        }
    }

    fn animations(&mut self) {
        let root = self.root;
        for (a, animation) in root.animations.iter().enumerate() {
            for (c, channel) in animation.channels.iter().enumerate() {
                self.index(
                    || format!("/animations/{a}/channels/{c}/sampler"),
                    channel.sampler,
                    animation.samplers.len(),
                    "sampler",
                );
                if let Some(node) = channel.target.node {
                    self.index(
                        || format!("/animations/{a}/channels/{c}/target/node"),
                        node,
                        root.nodes.len(),
                        "node",
                    );
                }
            }
            for (s, sampler) in animation.samplers.iter().enumerate() {
                let accessors = root.accessors.len();
                self.index(
                    || format!("/animations/{a}/samplers/{s}/input"),
                    sampler.input,
                    accessors,
                    "accessor",
                );
                self.index(
                    || format!("/animations/{a}/samplers/{s}/output"),
                    sampler.output,
                    accessors,
                    "accessor",
                );
            }
        }
    }
}
