//! Opening inputs: regular files only (a FIFO would wait forever, a device never ends, a
//! folder is not a file), refused before a byte is read; and never more bytes than a limit,
//! counted as they are read (a device or `/proc` file reports size 0, a file may grow).
//!
//! ```
//! use humanoid::io::input;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("big.bvh");
//! std::fs::write(&path, vec![b'x'; 100])?;
//! let error = input::read_bounded(&path, 64, "a BVH file").unwrap_err().to_string();
//! assert!(error.contains("larger than the limit of 64 bytes for a BVH file"), "{error}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Location};

/// What a file is, when it is not a regular file (`None` for a regular file).
pub fn odd_kind(metadata: &Metadata) -> Option<&'static str> {
    let kind = metadata.file_type();
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a folder");
    }
    if kind.is_symlink() {
        return Some("a symbolic link");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if kind.is_char_device() || kind.is_block_device() {
            return Some("a device");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// Opens `path` for reading when it is a regular file; anything else is refused without
/// waiting (a FIFO is opened non-blocking, so no writer is needed for the refusal).
///
/// # Errors
/// [`Error::Io`] when it cannot be opened; [`Error::Invalid`] when it is not a regular file.
pub fn open(path: &Path) -> Result<(File, Metadata), Error> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| match std::fs::metadata(path) {
            // Opening a folder fails on some systems: name what it is, not the system's error.
            Ok(metadata) if odd_kind(&metadata).is_some() => not_regular(path, &metadata),
            _ => Error::io(path, e),
        })?;
    let metadata = file.metadata().map_err(|e| Error::io(path, e))?;
    if odd_kind(&metadata).is_some() {
        return Err(not_regular(path, &metadata));
    }
    record_read(path, &metadata);
    Ok((file, metadata))
}

/// A file's identity: device and inode on Unix (hard links and symbolic links included), the
/// canonical path elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg_attr(unix, allow(dead_code))]
    Path(std::path::PathBuf),
}

fn file_id(path: &Path, metadata: &Metadata) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = path;
        Some(FileId::Inode(metadata.dev(), metadata.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        path.canonicalize().ok().map(FileId::Path)
    }
}

std::thread_local! {
    /// The files opened on this thread while a [`ReadScope`] is held (`None`: no scope).
    static READ: std::cell::RefCell<Option<Vec<(FileId, std::path::PathBuf)>>> =
        const { std::cell::RefCell::new(None) };
}

/// While held, every file [`open`] opens on this thread is remembered, and
/// [`crate::io::output`] refuses to replace any of them, `--force` or not: a command never
/// destroys what it reads (its input, a `--map` table, a texture, a linked resource, a hard
/// link to one of them). Scopes nest; the outermost one forgets the files when dropped. Each
/// command (CLI, batch job, Python call) holds one.
///
/// ```
/// use humanoid::io::{input, output};
/// let dir = tempfile::tempdir()?;
/// let table = dir.path().join("table.toml");
/// std::fs::write(&table, "[bones]\n")?;
/// {
///     let _reads = input::read_scope();
///     input::read_text(&table, 1024, "a mapping table")?;
///     let error = output::write_bytes(&table, b"replaced").unwrap_err().to_string();
///     assert!(error.contains("a file this command reads"), "{error}");
/// }
/// output::write_bytes(&table, b"replaced")?; // the command is over: an ordinary output
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "the scope ends when this value is dropped"]
#[derive(Debug)]
pub struct ReadScope {
    outermost: bool,
}

/// Starts remembering the files this thread reads (see [`ReadScope`]).
pub fn read_scope() -> ReadScope {
    let outermost = READ.with(|read| {
        let mut read = read.borrow_mut();
        if read.is_some() {
            return false;
        }
        *read = Some(Vec::new());
        true
    });
    ReadScope { outermost }
}

/// The files this thread's command has read so far, to hand to the threads it starts (see
/// [`read_scope_from`]).
#[derive(Debug, Clone, Default)]
pub struct ReadFiles(Vec<(FileId, std::path::PathBuf)>);

/// What this thread's command has read so far (empty without a [`ReadScope`]).
pub fn read_so_far() -> ReadFiles {
    READ.with(|read| ReadFiles(read.borrow().clone().unwrap_or_default()))
}

/// A [`ReadScope`] on a worker thread that starts knowing `files`, read by the thread that
/// started the work (a batch's `--map` table, read once for every job).
pub fn read_scope_from(files: &ReadFiles) -> ReadScope {
    let scope = read_scope();
    READ.with(|read| {
        if let Some(known) = read.borrow_mut().as_mut() {
            for file in &files.0 {
                if !known.iter().any(|(id, _)| *id == file.0) {
                    known.push(file.clone());
                }
            }
        }
    });
    scope
}

impl Drop for ReadScope {
    fn drop(&mut self) {
        if self.outermost {
            READ.with(|read| *read.borrow_mut() = None);
        }
    }
}

fn record_read(path: &Path, metadata: &Metadata) {
    READ.with(|read| {
        let mut read = read.borrow_mut();
        let Some(files) = read.as_mut() else {
            return;
        };
        if let Some(id) = file_id(path, metadata) {
            if !files.iter().any(|(known, _)| *known == id) {
                files.push((id, path.to_path_buf()));
            }
        }
    });
}

/// The path by which this thread's command read the file `path` is, when it read it (see
/// [`ReadScope`]); `None` when `path` does not exist or was not read.
pub fn read_as(path: &Path) -> Option<std::path::PathBuf> {
    let metadata = std::fs::metadata(path).ok()?;
    let id = file_id(path, &metadata)?;
    READ.with(|read| {
        read.borrow()
            .as_ref()?
            .iter()
            .find(|(known, _)| *known == id)
            .map(|(_, path)| path.clone())
    })
}

fn not_regular(path: &Path, metadata: &Metadata) -> Error {
    let kind = odd_kind(metadata).unwrap_or("not a regular file");
    Error::invalid_coded(
        "INPUT_NOT_A_FILE",
        path,
        Location::File,
        format!("this is {kind}, not a regular file: give the path of a file"),
    )
}

/// Checks that `path` is a regular file (following links), without reading it.
///
/// # Errors
/// As [`open`].
pub fn check(path: &Path) -> Result<Metadata, Error> {
    open(path).map(|(_, metadata)| metadata)
}

/// The bytes of the regular file `path`, refused when it holds more than `limit` bytes
/// (`what` names the kind of file in the message: "a BVH file", "a glTF buffer").
///
/// # Errors
/// As [`open`]; [`Error::Invalid`] when the file is over the limit.
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, Error> {
    let (file, metadata) = open(path)?;
    if metadata.len() > limit {
        return Err(too_large(path, metadata.len(), limit, what));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read > limit {
        return Err(too_large(path, read, limit, what));
    }
    Ok(bytes)
}

/// The text of the regular file `path` (see [`read_bounded`] and [`utf8`]).
///
/// # Errors
/// As [`read_bounded`] and [`utf8`].
pub fn read_text(path: &Path, limit: u64, what: &str) -> Result<String, Error> {
    utf8(read_bounded(path, limit, what)?, path)
}

/// `bytes` as UTF-8 text, without a UTF-8 byte order mark. UTF-16 (told by its byte order
/// mark) and invalid UTF-8 are refused with the byte offset of the first bad byte.
///
/// ```
/// use humanoid::io::input::utf8;
/// assert_eq!(utf8(b"\xEF\xBB\xBFabc".to_vec(), "a.bvh".as_ref()).unwrap(), "abc");
/// let error = utf8(b"ab\xFFc".to_vec(), "a.bvh".as_ref()).unwrap_err().to_string();
/// assert_eq!(error, "a.bvh: byte 2: invalid UTF-8 (byte 0xFF): expected UTF-8 text");
/// ```
///
/// # Errors
/// [`Error::Invalid`] at the first byte that is not UTF-8.
pub fn utf8(mut bytes: Vec<u8>, path: &Path) -> Result<String, Error> {
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Err(Error::invalid_coded(
            "INPUT_NOT_UTF8",
            path,
            Location::Byte(0),
            "UTF-16 text (a UTF-16 byte order mark): expected UTF-8; save the file as UTF-8",
        ));
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
        return String::from_utf8(bytes)
            .map_err(|e| invalid_utf8(path, e.utf8_error(), 3, e.as_bytes()));
    }
    String::from_utf8(bytes).map_err(|e| invalid_utf8(path, e.utf8_error(), 0, e.as_bytes()))
}

fn invalid_utf8(path: &Path, error: std::str::Utf8Error, skipped: usize, bytes: &[u8]) -> Error {
    let at = error.valid_up_to();
    let byte = bytes.get(at).copied().unwrap_or(0);
    Error::invalid_coded(
        "INPUT_NOT_UTF8",
        path,
        Location::Byte(u64::try_from(at + skipped).unwrap_or(u64::MAX)),
        format!("invalid UTF-8 (byte 0x{byte:02X}): expected UTF-8 text"),
    )
}

/// The error for a file over its limit, naming the variable that raises it (none for the
/// fixed limits of textures beside an FBX).
///
/// ```
/// use humanoid::io::input::too_large;
/// let fbx = too_large("a.fbx".as_ref(), 9, 8, "an FBX file").to_string();
/// assert!(fbx.contains("HUMANOID_MAX_BINARY_BYTES"), "{fbx}");
/// let bvh = too_large("a.bvh".as_ref(), 9, 8, "a BVH file").to_string();
/// assert!(bvh.contains("HUMANOID_MAX_TEXT_BYTES"), "{bvh}");
/// let texture = too_large("t.png".as_ref(), 9, 8, "an FBX texture").to_string();
/// assert!(texture.contains("a fixed limit") && !texture.contains("HUMANOID_"), "{texture}");
/// ```
pub fn too_large(path: &Path, size: u64, limit: u64, what: &str) -> Error {
    let variable = match what {
        "a mapping table" => Some("HUMANOID_MAX_TABLE_BYTES"),
        "a glTF file" | "a glTF buffer" | "an image" | "an FBX file" => {
            Some("HUMANOID_MAX_BINARY_BYTES")
        }
        "an FBX texture" => None,
        _ => Some("HUMANOID_MAX_TEXT_BYTES"),
    };
    let raise = match variable {
        Some(variable) => format!("for a trusted file, raise it with {variable}"),
        None => "a fixed limit".to_owned(),
    };
    Error::invalid_coded(
        "INPUT_TOO_LARGE",
        path,
        Location::File,
        format!(
            "{size} bytes or more: larger than the limit of {limit} bytes for {what} ({raise}; see docs/limits.md)"
        ),
    )
}
