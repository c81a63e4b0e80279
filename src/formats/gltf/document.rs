//! [`Document`]: a glTF file read losslessly: the JSON root plus the bytes of every buffer.
//!
//! # Overview
//!
//! [`Document::open`] memory-maps the file (and every external buffer), tells a GLB from
//! `.gltf` JSON by the magic, parses the JSON ([`super::json`]), resolves the buffers (the GLB
//! BIN chunk, `data:` URIs, files beside the input; see [`super::uri`]) and runs the validation
//! pass ([`super::validate`]). Structural problems stop the read with one [`Error::Invalid`]
//! that lists all of them; softer findings are kept in [`Document::diagnostics`].
//!
//! Buffers borrow from the memory maps: nothing is copied on read, and an unchanged buffer is
//! written straight from the map (see `save.rs` for the writers). A memory-mapped file must not
//! be changed by another process while the document is alive (the usual caveat of `mmap`).

use std::fmt;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::glb;
use super::json::{self, Buffer, BufferView, Get, Index, Ordered, Root};
use super::uri::{self, Uri};
use super::validate::{self, BufferInfo};
use crate::error::{Diagnostics, Error, Location};

/// The container a document was read from (or, for a new one, is meant for).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Container {
    /// Binary glTF (`.glb`, `.vrm`, `.vrma`): JSON chunk plus BIN chunk.
    Glb,
    /// JSON glTF (`.gltf`) with `data:` URIs or external files.
    Gltf,
}

/// Bytes shared with their backing store (a memory map or a vector) without copying.
#[derive(Clone)]
pub struct Bytes {
    backing: Arc<dyn AsRef<[u8]> + Send + Sync>,
    range: Range<usize>,
}

impl Bytes {
    /// Owned bytes.
    pub fn from_vec(bytes: Vec<u8>) -> Self {
        let len = bytes.len();
        Bytes {
            backing: Arc::new(bytes),
            range: 0..len,
        }
    }

    fn sub(backing: &Arc<dyn AsRef<[u8]> + Send + Sync>, range: Range<usize>) -> Self {
        Bytes {
            backing: Arc::clone(backing),
            range,
        }
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        (*self.backing)
            .as_ref()
            .get(self.range.clone())
            .unwrap_or_default()
    }

    /// How many bytes.
    pub fn len(&self) -> usize {
        self.range.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.range.is_empty()
    }

    /// The first `len` bytes (all of them when there are fewer).
    pub fn prefix(&self, len: usize) -> Bytes {
        let end = self.range.start.saturating_add(len).min(self.range.end);
        Bytes {
            backing: Arc::clone(&self.backing),
            range: self.range.start..end,
        }
    }
}

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({} bytes)", self.len())
    }
}

/// Where a buffer's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The input GLB's BIN chunk.
    GlbBin,
    /// A `data:` URI in the JSON.
    DataUri,
    /// An external file (memory-mapped), as resolved against the input's folder.
    File(PathBuf),
    /// Set or added by a program.
    New,
}

/// One buffer's bytes and origin.
#[derive(Debug, Clone)]
pub(super) struct Slot {
    pub(super) bytes: Bytes,
    pub(super) source: Source,
}

/// A glTF document: the JSON root and the bytes of each buffer.
///
/// `root.buffers[i]` and the document's buffer data correspond one to one; use
/// [`Document::push_buffer`] and [`Document::set_buffer`] to add or replace data so the two stay
/// in step. A writer validates the document again before writing.
#[derive(Debug, Clone)]
pub struct Document {
    /// The JSON, with key order and number literals as read.
    pub root: Ordered<Root>,
    pub(super) buffers: Vec<Slot>,
    pub(super) container: Container,
    pub(super) path: PathBuf,
    pub(super) base_dir: Option<PathBuf>,
    pub(super) inputs: Vec<PathBuf>,
    pub(super) diagnostics: Diagnostics,
}

type Backing = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// Memory-maps a regular file of at most [`Limits::binary_bytes`] (an empty file becomes an
/// empty vector: it cannot be mapped).
fn map_file(path: &Path, what: &str) -> Result<Backing, Error> {
    let (file, metadata) = crate::io::input::open(path)?;
    let limit = crate::io::Limits::get().binary_bytes;
    if metadata.len() > limit {
        return Err(crate::io::input::too_large(
            path,
            metadata.len(),
            limit,
            what,
        ));
    }
    if metadata.len() == 0 {
        return Ok(Arc::new(Vec::<u8>::new()));
    }
    // `populate` fills the page tables up front (MAP_POPULATE, about 1 ms per 100 MB of cached
    // file): writing the BIN chunk straight from the map then runs at `cp` speed instead of
    // taking a page fault every few pages (measured 22 ms instead of 57 ms for 98 MB).
    //
    // SAFETY: the map is read-only, and we never write to a file we have mapped (writers refuse
    // input paths). Another process truncating or rewriting the file while it is mapped is the
    // documented caveat of memory-mapped input.
    let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) }
        .map_err(|e| Error::io(path, e))?;
    Ok(Arc::new(map))
}

/// The folder a path is in (`.` for a bare file name).
pub(super) fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Whether the bytes start like JSON text (an optional byte order mark, whitespace, `{`);
/// anything else is read as GLB, whose parser names what it found instead of the magic.
fn looks_like_json(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
}

fn usize_range(start: u64, len: u64) -> Option<Range<usize>> {
    let start = usize::try_from(start).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    Some(start..end)
}

impl Document {
    /// Reads a `.gltf`, `.glb`, `.vrm` or `.vrma` file (the container is told by its first
    /// bytes, not its name). External buffers are resolved against the file's folder and
    /// memory-mapped.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Invalid`] naming the byte offset,
    /// line:column or JSON pointer of the first problem (and listing the others) when the file
    /// is not a valid glTF document.
    pub fn open(path: impl AsRef<Path>) -> Result<Document, Error> {
        let path = path.as_ref();
        let backing = map_file(path, "a glTF file")?;
        Self::from_backing(backing, path.to_path_buf(), Some(folder_of(path)), true)
    }

    /// Reads a document from bytes in memory. `name` stands for the file in messages;
    /// external buffers are resolved against `base_dir` (refused when it is `None`).
    ///
    /// # Errors
    /// As [`Document::open`].
    pub fn from_slice(
        bytes: &[u8],
        name: impl Into<PathBuf>,
        base_dir: Option<&Path>,
    ) -> Result<Document, Error> {
        let backing: Backing = Arc::new(bytes.to_vec());
        Self::from_backing(backing, name.into(), base_dir.map(Path::to_path_buf), false)
    }

    /// A new document from a root and one byte vector per buffer (for GLB output).
    ///
    /// # Errors
    /// [`Error::Invalid`] (for `name`) when the buffer count differs from `root.buffers` or
    /// validation finds a structural problem.
    pub fn from_parts(
        root: Ordered<Root>,
        buffers: Vec<Vec<u8>>,
        name: impl Into<PathBuf>,
    ) -> Result<Document, Error> {
        let path = name.into();
        let buffers = buffers
            .into_iter()
            .map(|bytes| Slot {
                bytes: Bytes::from_vec(bytes),
                source: Source::New,
            })
            .collect();
        let mut document = Document {
            root,
            buffers,
            container: Container::Glb,
            path,
            base_dir: None,
            inputs: Vec::new(),
            diagnostics: Diagnostics::new(),
        };
        document.check()?;
        Ok(document)
    }

    fn from_backing(
        backing: Backing,
        path: PathBuf,
        base_dir: Option<PathBuf>,
        is_file: bool,
    ) -> Result<Document, Error> {
        let bytes = (*backing).as_ref();
        let mut diagnostics = Diagnostics::new();
        if bytes.is_empty() {
            return Err(Error::invalid(
                &path,
                Location::Byte(0),
                "the file is empty: expected glTF JSON or a GLB file",
            ));
        }
        let (container, root, bin) = if !looks_like_json(bytes) {
            let parsed = glb::parse(bytes, &path)?;
            if parsed.skipped_chunks > 0 {
                diagnostics.warn(
                    "GLB_UNKNOWN_CHUNK",
                    "",
                    format!(
                        "{} chunk(s) of unknown type skipped; they are not written back",
                        parsed.skipped_chunks
                    ),
                );
            }
            if parsed.trailing_bytes > 0 {
                diagnostics.warn(
                    "GLB_TRAILING_BYTES",
                    "",
                    format!(
                        "{} bytes after the length the header declares were ignored",
                        parsed.trailing_bytes
                    ),
                );
            }
            let root = json::parse(parsed.json, &path)?;
            let bin = match parsed.bin {
                Some(data) => {
                    let len = u64::try_from(data.len()).unwrap_or(u64::MAX);
                    Some(usize_range(parsed.bin_offset, len).ok_or_else(|| {
                        Error::invalid(
                            &path,
                            Location::Byte(parsed.bin_offset),
                            "BIN chunk out of range",
                        )
                    })?)
                }
                None => None,
            };
            (Container::Glb, root, bin)
        } else {
            (Container::Gltf, json::parse(bytes, &path)?, None)
        };
        let mut inputs = Vec::new();
        if is_file {
            inputs.push(path.clone());
        }
        let mut document = Document {
            root,
            buffers: Vec::new(),
            container,
            path,
            base_dir,
            inputs,
            diagnostics,
        };
        document.resolve_buffers(&backing, bin)?;
        document.check_image_uris()?;
        document.check()?;
        Ok(document)
    }

    fn resolve_buffers(
        &mut self,
        backing: &Backing,
        bin: Option<Range<usize>>,
    ) -> Result<(), Error> {
        let mut slots = Vec::with_capacity(self.root.buffers.len());
        for (i, buffer) in self.root.buffers.iter().enumerate() {
            let slot = match &buffer.uri {
                None => match (&bin, i, self.container) {
                    (Some(range), 0, Container::Glb) => Slot {
                        bytes: Bytes::sub(backing, range.clone()),
                        source: Source::GlbBin,
                    },
                    _ => {
                        let why = if self.container == Container::Glb && i == 0 {
                            "buffer 0 has no uri but the GLB file has no BIN chunk"
                        } else {
                            "the buffer has no uri: only buffer 0 of a GLB file may omit it (it then refers to the BIN chunk)"
                        };
                        return Err(Error::invalid(
                            &self.path,
                            Location::JsonPointer(format!("/buffers/{i}")),
                            why,
                        ));
                    }
                },
                Some(text) => {
                    let pointer = format!("/buffers/{i}/uri");
                    let (bytes, source) = self.load_uri(text, &pointer)?;
                    Slot { bytes, source }
                }
            };
            if let Source::File(file) = &slot.source {
                self.inputs.push(file.clone());
            }
            slots.push(slot);
        }
        self.buffers = slots;
        Ok(())
    }

    /// Reads the bytes a URI refers to (a `data:` URI or a file beside the input).
    pub(super) fn load_uri(&self, text: &str, pointer: &str) -> Result<(Bytes, Source), Error> {
        let invalid = |message: String| {
            Error::invalid(
                &self.path,
                Location::JsonPointer(pointer.to_owned()),
                message,
            )
        };
        match uri::parse(text).map_err(invalid)? {
            Uri::Data { bytes, .. } => Ok((Bytes::from_vec(bytes), Source::DataUri)),
            Uri::Relative(relative) => {
                let file = self.resolve_relative(&relative, pointer)?;
                let backing = map_file(&file, "a glTF buffer")
                    .map_err(|e| invalid(format!("cannot read the buffer: {e}")))?;
                let len = (*backing).as_ref().len();
                Ok((Bytes::sub(&backing, 0..len), Source::File(file)))
            }
        }
    }

    /// The file a relative URI refers to, checked to stay inside the input's folder.
    pub(super) fn resolve_relative(&self, relative: &str, pointer: &str) -> Result<PathBuf, Error> {
        let invalid = |message: String| {
            Error::invalid(
                &self.path,
                Location::JsonPointer(pointer.to_owned()),
                message,
            )
        };
        let base = self.base_dir.as_deref().ok_or_else(|| {
            invalid(format!(
                "{relative:?} is an external file, but this document was read from memory with no folder to look in"
            ))
        })?;
        uri::resolve(base, relative).map_err(invalid)
    }

    fn check_image_uris(&self) -> Result<(), Error> {
        for (i, image) in self.root.images.iter().enumerate() {
            if let Some(text) = &image.uri {
                if !uri::is_data(text) {
                    uri::parse(text).map_err(|message| {
                        Error::invalid(
                            &self.path,
                            Location::JsonPointer(format!("/images/{i}/uri")),
                            message,
                        )
                    })?;
                }
            }
        }
        Ok(())
    }

    /// Runs the validation pass; structural problems become one error, the rest are kept.
    fn check(&mut self) -> Result<(), Error> {
        let found = self.validate();
        if let Some(error) = validate::into_error(&found, &self.path) {
            return Err(error);
        }
        self.diagnostics.extend(found);
        Ok(())
    }

    /// The validation pass over the current JSON and buffers: every problem with its JSON
    /// pointer. Error-severity findings are structural (a reader stops on them); the others
    /// are softer.
    ///
    /// Checks: buffer byteLength against the real data; buffer view ranges inside their
    /// buffer; accessor component type, type and range (byteOffset + byteStride × (count − 1) +
    /// element size) inside their buffer view, sparse ranges; every index (scene, scene nodes,
    /// node children/mesh/skin/camera, skin joints/skeleton/inverseBindMatrices, primitive
    /// attributes/indices/material/targets, image buffer view, channel sampler and target node,
    /// sampler input/output) in range; the node graph a forest (no node with two parents, no
    /// cycle); node TRS and matrix finite, and matrix not combined with TRS.
    pub fn validate(&self) -> Diagnostics {
        let infos: Vec<BufferInfo> = self
            .buffers
            .iter()
            .map(|slot| BufferInfo {
                data_len: u64::try_from(slot.bytes.len()).unwrap_or(u64::MAX),
                glb_chunk: slot.source == Source::GlbBin,
            })
            .collect();
        validate::check(&self.root, &infos)
    }

    /// The container the document was read from ([`Container::Glb`] for new documents).
    pub fn container(&self) -> Container {
        self.container
    }

    /// The input file (or the name given to [`Document::from_slice`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder external URIs are resolved against.
    pub fn base_dir(&self) -> Option<&Path> {
        self.base_dir.as_deref()
    }

    /// Every file this document was read from: the input and its external buffers.
    pub fn inputs(&self) -> &[PathBuf] {
        &self.inputs
    }

    /// The softer findings of reading (warnings and notes; errors stop the read).
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    /// A buffer's bytes, limited to its `byteLength` (a GLB BIN chunk may carry up to 3 bytes
    /// of padding beyond it). `None` when the index is out of range.
    pub fn buffer(&self, index: Index<Buffer>) -> Option<&[u8]> {
        let slot = self.buffers.get(index.as_usize())?;
        let data = slot.bytes.as_slice();
        let declared = self.root.get(index)?.byte_length;
        let len = usize::try_from(declared)
            .unwrap_or(usize::MAX)
            .min(data.len());
        data.get(..len)
    }

    /// Where a buffer's bytes come from.
    pub fn buffer_source(&self, index: Index<Buffer>) -> Option<&Source> {
        self.buffers.get(index.as_usize()).map(|slot| &slot.source)
    }

    /// The bytes of a buffer view.
    ///
    /// # Errors
    /// [`Error::Invalid`] at `/bufferViews/N` when the view or its buffer does not exist or
    /// the view's range runs past the buffer's data.
    pub fn buffer_view(&self, index: Index<BufferView>) -> Result<&[u8], Error> {
        let pointer = || Location::JsonPointer(format!("/bufferViews/{index}"));
        let view = self.root.get(index).ok_or_else(|| {
            Error::invalid(
                &self.path,
                pointer(),
                format!(
                    "buffer view {index} does not exist ({} buffer views)",
                    self.root.buffer_views.len()
                ),
            )
        })?;
        let data = self.buffer(view.buffer).ok_or_else(|| {
            Error::invalid(
                &self.path,
                pointer(),
                format!("buffer {} does not exist", view.buffer),
            )
        })?;
        let start = view.byte_offset.unwrap_or(0);
        usize_range(start, view.byte_length)
            .and_then(|range| data.get(range))
            .ok_or_else(|| {
                Error::invalid(
                    &self.path,
                    pointer(),
                    format!(
                        "bytes {start}..{} run past the end of buffer {} ({} bytes)",
                        start.saturating_add(view.byte_length),
                        view.buffer,
                        data.len()
                    ),
                )
            })
    }

    /// Replaces a buffer's bytes (and its `byteLength`).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the buffer does not exist.
    pub fn set_buffer(&mut self, index: Index<Buffer>, bytes: Vec<u8>) -> Result<(), Error> {
        let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        let (Some(slot), Some(buffer)) = (
            self.buffers.get_mut(index.as_usize()),
            self.root.buffers.get_mut(index.as_usize()),
        ) else {
            return Err(Error::unsupported(format!("buffer {index} does not exist")));
        };
        *slot = Slot {
            bytes: Bytes::from_vec(bytes),
            source: Source::New,
        };
        buffer.byte_length = len;
        Ok(())
    }

    /// Adds a buffer with these bytes and no `uri`. A GLB writer appends it to the BIN chunk
    /// (after the existing data, which is passed through untouched); a `.gltf` writer puts it
    /// in a `.bin` file beside the output.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when there are already `u32::MAX` buffers.
    pub fn push_buffer(&mut self, bytes: Vec<u8>) -> Result<Index<Buffer>, Error> {
        let index = Index::try_from(self.root.buffers.len())
            .map_err(|_| Error::unsupported("too many buffers"))?;
        let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        self.root.buffers.push(Ordered::new(Buffer {
            byte_length: len,
            ..Buffer::default()
        }));
        self.buffers.push(Slot {
            bytes: Bytes::from_vec(bytes),
            source: Source::New,
        });
        Ok(index)
    }
}
