//! Writing a [`Document`] as GLB or `.gltf`.
//!
//! # Overview
//!
//! Every file is written to a temporary file in the output's folder and renamed into place, so
//! a failed write never leaves half a file. No path the document was read from (nor any path
//! the caller names as an input) is ever written.
//!
//! - **GLB output** is self-contained. Buffers without a `uri` (the input's BIN chunk, buffers a
//!   program added) and external files go into the single BIN chunk, each at a 4-byte aligned
//!   offset, with `bufferView.buffer`/`byteOffset` rewritten; from a `.gltf` input, `data:`
//!   buffers are merged too. External images become buffer-view images (mime type from the
//!   file extension). An unchanged BIN chunk is written straight from the input's memory map.
//! - **`.gltf` output** keeps `data:` URIs as they are and writes external buffers and images
//!   beside the output under their relative names; buffers without a `uri` (a GLB's BIN chunk)
//!   become `<output stem>.bin` (`<stem>_1.bin`, ... for more). Each of those files is an
//!   output like the `.gltf` itself ([`Document::write_gltf_with`]: never an input, not
//!   replaced unless asked), except one that would receive its own unchanged bytes.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine;

use super::document::{folder_of, Bytes, Container, Document, Source};
use super::glb;
use super::json::{self, BufferView, Index, Ordered, Root};
use super::uri::{self, Uri};
use super::validate;
use crate::error::{Diagnostics, Error};

/// What a write produced.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// Bytes written to the output file itself.
    pub bytes: u64,
    /// Every file written, in write order (files beside the output first, the output last).
    pub files: Vec<PathBuf>,
    /// What was changed on the way (e.g. extension data that may name buffers by index).
    pub diagnostics: Diagnostics,
}

/// A file beside a `.gltf` output: (destination, bytes, the file the bytes are, unchanged,
/// when they are one).
type SideFile = (PathBuf, Bytes, Option<PathBuf>);

/// A GLB ready to write: its JSON and the pieces of its BIN chunk.
struct GlbPlan {
    root: Ordered<Root>,
    pieces: Vec<Bytes>,
    bin_len: Option<u64>,
    diagnostics: Diagnostics,
}

const ZEROS: [u8; 3] = [0; 3];

impl GlbPlan {
    /// The BIN chunk's segments: each piece after the zero padding that aligns it to 4 bytes.
    fn segments(&self) -> Option<Vec<&[u8]>> {
        self.bin_len?;
        let mut segments = Vec::with_capacity(self.pieces.len() * 2);
        let mut len = 0u64;
        for piece in &self.pieces {
            let pad = usize::try_from(glb::padding(len)).unwrap_or(0);
            if pad > 0 {
                segments.push(ZEROS.get(..pad).unwrap_or_default());
                len = len.saturating_add(glb::padding(len));
            }
            segments.push(piece.as_slice());
            len = len.saturating_add(u64::try_from(piece.len()).unwrap_or(u64::MAX));
        }
        Some(segments)
    }
}

/// Appends `bytes` to the BIN layout at a 4-byte boundary; returns its offset.
fn append(pieces: &mut Vec<Bytes>, bin_len: &mut u64, bytes: Bytes) -> u64 {
    let offset = bin_len.saturating_add(glb::padding(*bin_len));
    *bin_len = offset.saturating_add(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
    pieces.push(bytes);
    offset
}

impl Document {
    fn checked(&self) -> Result<(), Error> {
        match validate::into_error(&self.validate(), &self.path) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Lays out the GLB form of this document.
    fn plan_glb(&self) -> Result<GlbPlan, Error> {
        self.checked()?;
        let mut root = self.root.clone();
        let mut diagnostics = Diagnostics::new();
        let merge_data_uris = self.container == Container::Gltf;
        let count = root.buffers.len();
        let mut pieces = Vec::new();
        let mut bin_len = 0u64;
        // New offset in the BIN chunk of each merged buffer.
        let mut merged: Vec<Option<u64>> = vec![None; count];
        let mut first_merged = None;
        for (i, buffer) in root.buffers.iter().enumerate() {
            let merge = match buffer.uri.as_deref() {
                None => true,
                Some(text) if uri::is_data(text) => merge_data_uris,
                Some(_) => true,
            };
            if merge {
                let bytes = self.buffer_bytes(i);
                if let Some(slot) = merged.get_mut(i) {
                    *slot = Some(append(&mut pieces, &mut bin_len, bytes));
                }
                first_merged.get_or_insert(i);
            }
        }
        // Images with external files join the BIN chunk as buffer views.
        let mut images = Vec::new();
        for (i, image) in root.images.iter().enumerate() {
            let Some(text) = image.uri.as_deref() else {
                continue;
            };
            if uri::is_data(text) {
                continue;
            }
            let pointer = format!("/images/{i}/uri");
            let (bytes, _) = self.load_uri(text, &pointer)?;
            let mime = match &image.mime_type {
                Some(mime) => mime.clone(),
                None => uri::image_mime_type(text)
                    .ok_or_else(|| {
                        Error::unsupported(format!(
                            "{}: image {i} ({text:?}) has no mimeType and its extension names no known image type: cannot embed it in a GLB",
                            self.path.display()
                        ))
                    })?
                    .to_owned(),
            };
            let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
            let offset = append(&mut pieces, &mut bin_len, bytes);
            images.push((i, offset, len, mime));
        }
        let has_bin = first_merged.is_some() || !images.is_empty();
        // New buffer indices: the BIN buffer first, then the kept buffers in order.
        let shift = usize::from(has_bin);
        let mut new_index = vec![0usize; count];
        let mut kept = 0;
        for (i, slot) in merged.iter().enumerate() {
            if slot.is_none() {
                if let Some(n) = new_index.get_mut(i) {
                    *n = kept + shift;
                }
                kept += 1;
            }
        }
        let identity = new_index.iter().enumerate().all(|(i, &n)| {
            merged
                .get(i)
                .copied()
                .flatten()
                .map_or(n == i, |offset| i == 0 && offset == 0)
        });
        for (v, view) in root.buffer_views.iter_mut().enumerate() {
            let old = view.buffer.as_usize();
            let target = match merged.get(old).copied().flatten() {
                Some(offset) => {
                    if offset != 0 {
                        view.byte_offset =
                            Some(view.byte_offset.unwrap_or(0).saturating_add(offset));
                    }
                    0
                }
                None => new_index.get(old).copied().unwrap_or(old),
            };
            view.buffer = index(target)?;
            if !identity && view.other.contains_key("extensions") {
                diagnostics.warn(
                    "GLTF_EXTENSION_BUFFER_INDEX",
                    format!("/bufferViews/{v}/extensions"),
                    "buffers were merged into the GLB binary chunk; indices or offsets inside this view's extensions were not rewritten",
                );
            }
        }
        let mut buffers = Vec::with_capacity(count + 1);
        if has_bin {
            let mut bin = match first_merged.and_then(|i| root.buffers.get(i)) {
                Some(buffer) => buffer.clone(),
                None => Ordered::new(json::Buffer::default()),
            };
            bin.uri = None;
            bin.byte_length = bin_len;
            buffers.push(bin);
        }
        for (i, buffer) in root.buffers.iter().enumerate() {
            if merged.get(i).copied().flatten().is_none() {
                buffers.push(buffer.clone());
            }
        }
        root.buffers = buffers;
        for (i, offset, len, mime) in images {
            let view = index(root.buffer_views.len())?;
            root.buffer_views.push(Ordered::new(BufferView {
                buffer: Index::new(0),
                byte_offset: Some(offset),
                byte_length: len,
                ..BufferView::default()
            }));
            if let Some(image) = root.images.get_mut(i) {
                image.uri = None;
                image.buffer_view = Some(view);
                image.mime_type = Some(mime);
            }
        }
        Ok(GlbPlan {
            root,
            pieces,
            bin_len: has_bin.then_some(bin_len),
            diagnostics,
        })
    }

    /// A buffer's bytes (limited to its byteLength) as shared bytes.
    fn buffer_bytes(&self, i: usize) -> Bytes {
        let declared = self
            .root
            .buffers
            .get(i)
            .map_or(0, |b| usize::try_from(b.byte_length).unwrap_or(usize::MAX));
        match self.buffers.get(i) {
            Some(slot) => slot.bytes.prefix(declared),
            None => Bytes::from_vec(Vec::new()),
        }
    }

    /// The document as GLB bytes in memory (see the module docs for the layout).
    ///
    /// # Errors
    /// [`Error::Invalid`] when validation finds a structural problem; [`Error::Unsupported`]
    /// when the file would exceed 4 GiB or an image cannot be embedded.
    pub fn to_glb_bytes(&self) -> Result<Vec<u8>, Error> {
        let plan = self.plan_glb()?;
        let json = json::to_vec(&plan.root, false)?;
        glb::to_vec(&json, plan.segments().as_deref())
    }

    /// Writes the document as a GLB file (`.glb`, `.vrm`, `.vrma`), through a temporary file in
    /// the output's folder. `inputs` are further paths that must not be written (the
    /// document's own input files always are protected).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when `output` is an input; [`Error::Io`] when writing fails; as
    /// [`Document::to_glb_bytes`] otherwise.
    pub fn write_glb(&self, output: &Path, inputs: &[&Path]) -> Result<Written, Error> {
        self.refuse_input(output, inputs)?;
        let plan = self.plan_glb()?;
        let json = json::to_vec(&plan.root, false)?;
        let segments = plan.segments();
        let mut bytes = 0;
        write_atomically(output, |file| {
            match glb::write(file, &json, segments.as_deref()) {
                Ok(n) => {
                    bytes = n;
                    Ok(())
                }
                Err(glb::WriteError::Io(e)) => Err(Error::io(output, e)),
                Err(glb::WriteError::Format(e)) => Err(e),
            }
        })?;
        Ok(Written {
            bytes,
            files: vec![output.to_path_buf()],
            diagnostics: plan.diagnostics,
        })
    }

    /// Writes the document as a `.gltf` file plus the files it refers to (see the module docs),
    /// each through a temporary file, replacing files that exist (see
    /// [`Document::write_gltf_with`] to refuse that).
    ///
    /// # Errors
    /// As [`Document::write_gltf_with`].
    pub fn write_gltf(&self, output: &Path, inputs: &[&Path]) -> Result<Written, Error> {
        self.write_gltf_with(output, inputs, true)
    }

    /// Writes the document as a `.gltf` file plus the files it refers to (see the module docs),
    /// each through a temporary file. Every file written counts as an output: none may be an
    /// input (the document's own or one of `inputs`), and without `replace` none may exist
    /// (a file beside the output that would only receive its own, unchanged bytes, or that
    /// already holds exactly the bytes to write, is left alone and not counted). Everything is
    /// checked before the first file is written.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the output or one of the files beside it is an input, or
    /// exists and `replace` is false; [`Error::Invalid`] when validation finds a structural
    /// problem or an external file cannot be read; [`Error::Io`] when writing fails.
    pub fn write_gltf_with(
        &self,
        output: &Path,
        inputs: &[&Path],
        replace: bool,
    ) -> Result<Written, Error> {
        self.refuse_input(output, inputs)?;
        self.checked()?;
        let (json, files) = self.gltf_files(output)?;
        let mut destinations: Vec<PathBuf> = Vec::new();
        let mut to_write = Vec::new();
        for (destination, bytes, from) in &files {
            // `from` is set only while the bytes are that file's own, unchanged content.
            let unchanged = from
                .as_deref()
                .is_some_and(|from| same_file(destination, from));
            if !unchanged {
                self.refuse_input(destination, inputs)?;
            }
            if destinations.contains(destination) || destination == output {
                return Err(Error::unsupported(format!(
                    "{}: two files of the output would be written to {}",
                    self.path.display(),
                    destination.display()
                )));
            }
            destinations.push(destination.clone());
            if !unchanged {
                to_write.push((destination, bytes));
            }
        }
        if !replace {
            // A file beside the output that already holds exactly these bytes (a texture two
            // outputs share) is left as it is: nothing of it would be replaced.
            to_write.retain(|(d, bytes)| !holds(d, bytes.as_slice()));
            let existing: Vec<String> = to_write
                .iter()
                .map(|(d, _)| *d)
                .chain(std::iter::once(&output.to_path_buf()))
                .filter(|d| d.exists())
                .map(|d| d.display().to_string())
                .collect();
            if !existing.is_empty() {
                return Err(Error::unsupported(format!(
                    "{}: the output {} {} exist{}; pass --force to replace {}",
                    output.display(),
                    if existing.len() == 1 { "file" } else { "files" },
                    existing.join(", "),
                    if existing.len() == 1 { "s" } else { "" },
                    if existing.len() == 1 { "it" } else { "them" },
                )));
            }
        }
        let mut written = Written::default();
        for (destination, bytes) in to_write {
            if let Some(parent) = destination.parent() {
                fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
            }
            write_atomically(destination, |file| {
                file.write_all(bytes.as_slice())
                    .map_err(|e| Error::io(destination, e))
            })?;
            written.files.push(destination.clone());
        }
        write_atomically(output, |file| {
            file.write_all(&json).map_err(|e| Error::io(output, e))
        })?;
        written.bytes = u64::try_from(json.len()).unwrap_or(u64::MAX);
        written.files.push(output.to_path_buf());
        Ok(written)
    }

    /// The `.gltf` JSON for `output` and the files beside it.
    fn gltf_files(&self, output: &Path) -> Result<(Vec<u8>, Vec<SideFile>), Error> {
        let out_dir = folder_of(output);
        let stem = output
            .file_stem()
            .and_then(|s| s.to_str())
            .filter(|s| !s.is_empty())
            .unwrap_or("buffer")
            .to_owned();
        let mut root = self.root.clone();
        let mut files: Vec<SideFile> = Vec::new();
        let mut new_files = 0;
        for (i, buffer) in root.buffers.iter_mut().enumerate() {
            let bytes = self.buffer_bytes(i);
            let source = self.buffers.get(i).map(|slot| &slot.source);
            match buffer.uri.as_deref() {
                None => {
                    let name = match new_files {
                        0 => format!("{stem}.bin"),
                        n => format!("{stem}_{n}.bin"),
                    };
                    new_files += 1;
                    buffer.uri = Some(uri::percent_encode(&name));
                    files.push((out_dir.join(&name), bytes, None));
                }
                Some(text) if uri::is_data(text) => {
                    if source == Some(&Source::New) {
                        buffer.uri = Some(format!(
                            "data:application/octet-stream;base64,{}",
                            base64::engine::general_purpose::STANDARD.encode(bytes.as_slice())
                        ));
                    }
                }
                Some(text) => {
                    let Ok(Uri::Relative(relative)) = uri::parse(text) else {
                        continue;
                    };
                    let from = match source {
                        Some(Source::File(path)) => Some(path.clone()),
                        _ => None,
                    };
                    files.push((join(&out_dir, &relative), bytes, from));
                }
            }
        }
        for (i, image) in root.images.iter().enumerate() {
            let Some(text) = image.uri.as_deref() else {
                continue;
            };
            if uri::is_data(text) {
                continue;
            }
            let Ok(Uri::Relative(relative)) = uri::parse(text) else {
                continue;
            };
            let pointer = format!("/images/{i}/uri");
            let from = self.resolve_relative(&relative, &pointer)?;
            let (bytes, _) = self.load_uri(text, &pointer)?;
            files.push((join(&out_dir, &relative), bytes, Some(from)));
        }
        let json = json::to_vec(&root, true)?;
        Ok((json, files))
    }

    /// Refuses to write over any file this document was read from or any path in `inputs`.
    fn refuse_input(&self, destination: &Path, inputs: &[&Path]) -> Result<(), Error> {
        let protected = self
            .inputs
            .iter()
            .map(PathBuf::as_path)
            .chain(inputs.iter().copied());
        for input in protected {
            if destination == input || same_file(destination, input) {
                return Err(Error::unsupported(format!(
                    "refusing to write {}: it is an input file ({}); choose another output path",
                    destination.display(),
                    input.display()
                )));
            }
        }
        Ok(())
    }
}

fn index<T>(i: usize) -> Result<Index<T>, Error> {
    Index::try_from(i).map_err(|_| Error::unsupported("more than 2^32 buffers or buffer views"))
}

fn join(dir: &Path, relative: &str) -> PathBuf {
    relative
        .split('/')
        .fold(dir.to_path_buf(), |path, part| path.join(part))
}

/// Whether the file at `path` exists and holds exactly `bytes`.
fn holds(path: &Path, bytes: &[u8]) -> bool {
    let same_len = fs::metadata(path)
        .is_ok_and(|m| m.is_file() && u64::try_from(bytes.len()).is_ok_and(|n| n == m.len()));
    same_len && fs::read(path).is_ok_and(|content| content == bytes)
}

/// Whether two paths name the same existing file (same device and inode on Unix).
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (fs::metadata(a), fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
    }
}

/// Writes `path` through a temporary file in its folder, renamed into place at the end.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> Result<(), Error>,
) -> Result<(), Error> {
    crate::io::output::write_with(path, write)
}
