//! `ImageTexture` urls → images: a `data:` URL or a file in the input's folder, never outside
//! it.
//!
//! ## Overview
//!
//! An ImageTexture's `url` lists places to look, in order; the first one read gives the
//! image. Each is sorted by [`crate::formats::uri`], the rule glTF `uri`s follow: a `data:`
//! URL (base64 or percent-encoded) is decoded; a relative path is looked up in the input's
//! folder; an absolute path, a scheme (`https:`, `file:`), `..` climbing out of the folder, or
//! a symbolic link leading out of it is refused and not read. A file is refused before it is
//! read when its size passes the limit ([`super::ReadOptions::max_image_bytes`]), and read
//! with a bounded reader; a `data:` URL is measured before it is decoded. A file read from
//! memory has no folder: only its `data:` URLs can be read.
//!
//! The image's mime type is what its first bytes show (PNG, JPEG, GIF, WebP), else what the
//! `data:` header or the file's extension says. A texture none of whose urls can be read is
//! one note (`HANIM_TEXTURE_UNREADABLE`, each url with the reason), and the mesh keeps its
//! colour. Each ImageTexture node is read once; the meshes that USE it share the bytes.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::Path;
use std::sync::Arc;

use super::classic::Note;
use super::fields::Fields;
use super::tree::{NodeId, Scene};
use crate::formats::uri::{self, Uri};
use crate::model::mesh::Image;

/// Reads ImageTexture nodes, each once.
pub(crate) struct Textures<'p> {
    /// The input's folder (`None`: read from memory, no files).
    folder: Option<&'p Path>,
    /// The largest image read, in bytes.
    max_bytes: usize,
    /// What each texture node gave.
    read: HashMap<NodeId, Option<Image>>,
}

impl<'p> Textures<'p> {
    /// Textures of a file in `folder`, each image at most `max_bytes`.
    pub fn new(folder: Option<&'p Path>, max_bytes: usize) -> Textures<'p> {
        Textures {
            folder,
            max_bytes,
            read: HashMap::new(),
        }
    }

    /// The image of ImageTexture `id`; `None`, reported the first time, when no url of it can
    /// be read.
    pub fn image(&mut self, scene: &Scene<'_>, id: NodeId, notes: &mut Vec<Note>) -> Option<Image> {
        if let Some(done) = self.read.get(&id) {
            return done.clone();
        }
        let image = self.load(scene, id, notes);
        self.read.insert(id, image.clone());
        image
    }

    fn load(&self, scene: &Scene<'_>, id: NodeId, notes: &mut Vec<Note>) -> Option<Image> {
        let f = Fields::of(scene, id)?;
        let name = f.node().def.unwrap_or("texture");
        let urls = f.strings_as("url");
        let mut why = Vec::new();
        for url in &urls {
            match self.fetch(url) {
                Ok(Fetched {
                    bytes,
                    declared,
                    file_name,
                }) => {
                    let mime_type = uri::sniff_image_mime_type(&bytes)
                        .map(str::to_owned)
                        .or(declared)
                        .unwrap_or_else(|| "application/octet-stream".to_owned());
                    return Some(Image {
                        name: file_name.unwrap_or_else(|| name.to_owned()),
                        mime_type,
                        bytes: Arc::from(bytes),
                    });
                }
                Err(reason) => why.push(reason),
            }
        }
        let message = if urls.is_empty() {
            "ImageTexture without a url".to_owned()
        } else {
            why.join("; ")
        };
        notes.push(Note {
            at: f.at("url"),
            code: "HANIM_TEXTURE_UNREADABLE",
            message: format!("texture {name:?} not read ({message}): the mesh keeps its colour"),
        });
        None
    }

    /// The bytes `url` refers to, the mime type it declares and the file name; `Err` with the
    /// reason it is not read.
    fn fetch(&self, url: &str) -> Result<Fetched, String> {
        let shown = uri::shorten(url);
        if uri::is_data(url) {
            let decoded = uri::data_decoded_len(url);
            if decoded > self.max_bytes {
                return Err(format!(
                    "{shown}: {decoded} bytes, larger than the limit of {} bytes for an image",
                    self.max_bytes
                ));
            }
            return match uri::parse(url) {
                Ok(Uri::Data { mime_type, bytes }) if bytes.len() <= self.max_bytes => {
                    Ok(Fetched {
                        bytes,
                        declared: Some(mime_type),
                        file_name: None,
                    })
                }
                Ok(Uri::Data { bytes, .. }) => Err(format!(
                    "{shown}: {} bytes, larger than the limit of {} bytes for an image",
                    bytes.len(),
                    self.max_bytes
                )),
                Ok(Uri::Relative(_)) => Err(format!("{shown}: not a data: URL")),
                Err(e) => Err(e),
            };
        }
        let relative = match uri::parse(url) {
            Ok(Uri::Relative(relative)) => relative,
            Ok(Uri::Data { .. }) => return Err(format!("{shown}: a data: URL read as a file")),
            Err(e) => return Err(e),
        };
        let folder = self.folder.ok_or_else(|| {
            format!("{shown}: a file, but the input was read from memory with no folder to look in")
        })?;
        let path = uri::resolve(folder, &relative)?;
        // The project's guarded open: a FIFO or a device beside the file is refused at once,
        // never waited on or read to the limit.
        let (file, metadata) = crate::io::input::open(&path)
            .map_err(|e| format!("{shown}: cannot open {}: {e}", path.display()))?;
        let length = metadata.len();
        let limit = u64::try_from(self.max_bytes).unwrap_or(u64::MAX);
        if length > limit {
            return Err(format!(
                "{shown}: {length} bytes, larger than the limit of {} bytes for an image",
                self.max_bytes
            ));
        }
        let mut bytes = Vec::new();
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{shown}: cannot read {}: {e}", path.display()))?;
        if bytes.len() > self.max_bytes {
            return Err(format!(
                "{shown}: larger than the limit of {} bytes for an image",
                self.max_bytes
            ));
        }
        let file_name = relative.rsplit('/').next().unwrap_or(&relative).to_owned();
        Ok(Fetched {
            bytes,
            declared: uri::image_mime_type(&relative).map(str::to_owned),
            file_name: Some(file_name),
        })
    }
}

/// The bytes a url refers to.
struct Fetched {
    bytes: Vec<u8>,
    /// The mime type the `data:` header or the file's extension declares.
    declared: Option<String>,
    /// The file's name (`None` for a `data:` URL).
    file_name: Option<String>,
}
