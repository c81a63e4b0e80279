//! The exceptions the package raises, each carrying what the library's error says: the message,
//! the diagnostic code, the file and the place in it.
//!
//! ```text
//! HumanoidError              every error of the package
//! ├── InvalidFileError       the file breaks its format's rules (code: GLTF_INVALID, …)
//! ├── UnsupportedError       a request the library refuses (code: REQUEST_UNSUPPORTED, …)
//! └── FileAccessError        a file cannot be read or written (code: IO_FAILED, …)
//! ```

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _native,
    HumanoidError,
    PyException,
    "Every error of the package: `message`, `code`, `file` (or None) and `place` (or None)."
);
create_exception!(
    _native,
    InvalidFileError,
    HumanoidError,
    "A file breaks its format's rules; `file` and `place` say where."
);
create_exception!(
    _native,
    UnsupportedError,
    HumanoidError,
    "A request the library refuses, with what to do instead."
);
create_exception!(
    _native,
    FileAccessError,
    HumanoidError,
    "A file cannot be read or written (missing, not a regular file, no permission, too large)."
);

/// The library's advice names command-line flags; in Python they are keyword arguments.
const FLAGS_AS_KEYWORDS: [(&str, &str); 8] = [
    ("pass --force", "pass force=True"),
    ("even with --force", "even with force=True"),
    ("--map auto", "map=\"auto\""),
    ("--map TABLE.toml", "map=\"TABLE.toml\""),
    ("--map FILE.toml", "map=\"FILE.toml\""),
    ("--map TABLE", "map=\"TABLE\""),
    ("--to vrm1", "to=\"vrm1\""),
    ("pass one of them to --clip", "pass one of them as clip="),
];

/// The message of a library error, its advice in Python's terms.
fn message_for_python(error: &humanoid::Error) -> String {
    FLAGS_AS_KEYWORDS
        .iter()
        .fold(error.to_string(), |message, (flag, keyword)| {
            message.replace(flag, keyword)
        })
}

/// The Python exception for a library error, its attributes set.
pub fn to_py(py: Python<'_>, error: &humanoid::Error) -> PyErr {
    let message = message_for_python(error);
    let err = match error {
        humanoid::Error::Invalid { .. } => InvalidFileError::new_err(message.clone()),
        humanoid::Error::Io { .. } => FileAccessError::new_err(message.clone()),
        // Unsupported, and any kind a later library adds.
        _ => UnsupportedError::new_err(message.clone()),
    };
    {
        let value = err.value(py);
        let place = error
            .location()
            .filter(|l| !matches!(l, humanoid::Location::File))
            .map(|l| l.to_string());
        let file = error.path().map(|p| p.display().to_string());
        // Setting attributes on a fresh exception instance cannot fail short of memory.
        let _ = value.setattr("message", message);
        let _ = value.setattr("code", error.code());
        let _ = value.setattr("file", file);
        let _ = value.setattr("place", place);
    }
    err
}

/// Registers the exceptions in the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("HumanoidError", py.get_type::<HumanoidError>())?;
    m.add("InvalidFileError", py.get_type::<InvalidFileError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("FileAccessError", py.get_type::<FileAccessError>())?;
    Ok(())
}
