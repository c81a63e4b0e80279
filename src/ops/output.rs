//! Writing output files safely: through a temporary file in the output's folder, renamed into
//! place, so a failed write never leaves half a file behind.

use std::io::Write;
use std::path::Path;

use crate::error::Error;

/// Writes `bytes` to `path` through a temporary file; returns the number of bytes.
///
/// # Errors
/// [`Error::Io`] when the folder cannot be written or the rename fails.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<u64, Error> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".humanoid-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(|e| Error::io(path, e))?;
    temp.write_all(bytes).map_err(|e| Error::io(path, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o644));
    }
    temp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(u64::try_from(bytes.len()).unwrap_or(u64::MAX))
}
