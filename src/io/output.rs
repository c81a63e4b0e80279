//! Writing outputs: through a temporary file in the output's folder, renamed into place, so a
//! failed or killed write never leaves half a file; and only ever over a regular file (with
//! `--force`): a folder, a device, a FIFO or a symbolic link at the output path is refused
//! even then, since replacing it by a file would destroy what it was.
//!
//! ```
//! use humanoid::io::output;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("out.bvh");
//! output::write_bytes(&path, b"HIERARCHY\n")?;
//! assert!(output::check(&path, false).is_err()); // exists: needs force
//! output::check(&path, true)?;
//! assert!(output::check(dir.path(), true).is_err()); // a folder: never
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::Error;

/// The folder an output goes in (`.` for a bare file name).
pub fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Whether `path` may be written: it does not exist, or it is a regular file and `force` is
/// given (the folder is checked when writing: a caller may create it first).
///
/// # Errors
/// [`Error::Unsupported`] naming the output and why.
pub fn check(path: &Path, force: bool) -> Result<(), Error> {
    if let Some(read) = super::input::read_as(path) {
        return Err(Error::unsupported(format!(
            "{}: the output is a file this command reads ({}); humanoid never replaces a file it reads, even with --force: choose another output path",
            path.display(),
            read.display()
        )));
    }
    match fs::symlink_metadata(path) {
        Ok(metadata) => {
            if let Some(kind) = super::input::odd_kind(&metadata) {
                return Err(Error::unsupported(format!(
                    "{}: the output is {kind}, not a regular file; humanoid replaces regular files only, even with --force: choose another path",
                    path.display()
                )));
            }
            if !force {
                return Err(Error::unsupported(format!(
                    "{}: the output exists; pass --force to replace it",
                    path.display()
                )));
            }
            Ok(())
        }
        Err(_) => Ok(()),
    }
}

/// The output's folder exists and is a folder.
fn check_folder(path: &Path) -> Result<(), Error> {
    let folder = folder_of(path);
    match fs::metadata(&folder) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err(Error::unsupported(format!(
            "{}: cannot write the output: {} is not a folder",
            path.display(),
            folder.display()
        ))),
        Err(_) => Err(Error::unsupported(format!(
            "{}: cannot write the output: the folder {} does not exist",
            path.display(),
            folder.display()
        ))),
    }
}

/// Writes `path` through a temporary file in its folder (mode 0644 on Unix), renamed into
/// place once `write` has succeeded; on any failure the temporary file is removed and `path`
/// is as it was. Refuses an output that is not a regular file (see [`check`]; `force` is the
/// caller's to check).
///
/// # Errors
/// [`Error::Io`] naming the output (never the temporary file) and what failed; the errors of
/// `write`.
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> Result<(), Error>,
) -> Result<(), Error> {
    check(path, true)?;
    check_folder(path)?;
    let folder = folder_of(path);
    let mut builder = tempfile::Builder::new();
    builder.prefix(".humanoid-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o644));
    }
    let mut temp = builder.tempfile_in(&folder).map_err(|e| {
        failed(
            path,
            &format!("cannot create a file in {}", folder.display()),
            &e,
        )
    })?;
    write(temp.as_file_mut())?;
    temp.as_file_mut()
        .flush()
        .map_err(|e| failed(path, "cannot finish writing", &e))?;
    // The path may have become something else while we wrote: check again, just before.
    check(path, true)?;
    temp.persist(path)
        .map_err(|e| failed(path, "cannot move the written file into place", &e.error))?;
    Ok(())
}

/// Writes `bytes` to `path` as [`write_with`] does; returns the number of bytes.
///
/// # Errors
/// As [`write_with`].
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<u64, Error> {
    write_with(path, |file| {
        file.write_all(bytes)
            .map_err(|e| failed(path, "cannot write", &e))
    })?;
    Ok(u64::try_from(bytes.len()).unwrap_or(u64::MAX))
}

/// An I/O failure on the output, in the system's words without the temporary file's name.
pub fn failed(path: &Path, doing: &str, error: &std::io::Error) -> Error {
    // tempfile wraps the system's error with the temporary file's path: take the inner one.
    let code = error.raw_os_error().or_else(|| {
        let inner = std::error::Error::source(error.get_ref()?)?;
        inner.downcast_ref::<std::io::Error>()?.raw_os_error()
    });
    let reason = match code {
        Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
        None => std::io::Error::from(error.kind()).to_string(),
    };
    Error::io(
        path,
        std::io::Error::new(error.kind(), format!("{doing}: {reason}")),
    )
}
