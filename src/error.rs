//! Errors (what stops a read or a conversion) and diagnostics (what was dropped, guessed,
//! repaired or found wrong along the way, handed back to the caller instead of logged).

use std::fmt;
use std::path::{Path, PathBuf};

pub mod codes;

/// Where in an input something was found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Location {
    /// Nowhere more precise than the file itself.
    File,
    /// A byte offset from the start of the file.
    Byte(u64),
    /// A JSON pointer (RFC 6901) into the glTF JSON, e.g. `/nodes/3/rotation`.
    JsonPointer(String),
    /// A 1-based line and column in a text file.
    LineColumn {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File => Ok(()),
            Location::Byte(offset) => write!(f, "byte {offset}"),
            Location::JsonPointer(pointer) if pointer.is_empty() => write!(f, "JSON root"),
            Location::JsonPointer(pointer) => write!(f, "JSON {pointer}"),
            Location::LineColumn { line, column } => write!(f, "{line}:{column}"),
        }
    }
}

/// An error that stops a read, a write or a conversion.
///
/// Display names the file, the place and what was expected, in lower case with no trailing
/// period: `model.glb: byte 12: GLB chunk length 4000 runs past the end of the file (1024 bytes)`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not what its format requires.
    #[error("{}{}: {message}", path.display(), located(location))]
    Invalid {
        /// The input file (or a name standing for it, such as `<memory>`).
        path: PathBuf,
        /// Where in the file.
        location: Location,
        /// What was found and what was expected.
        message: String,
        /// A registered code for programs to match on ([`Error::code`]).
        code: &'static str,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The request cannot be carried out (an unbuilt format, an output that exists, ...).
    #[error("{message}")]
    Unsupported {
        /// What was asked and why it cannot be done.
        message: String,
    },
}

/// The code of an invalid file of the format its extension names.
fn format_code(path: &Path) -> &'static str {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("gltf" | "glb" | "vrm" | "vrma" | "bin") => "GLTF_INVALID",
        Some("x3d" | "x3dv" | "x3dz" | "x3dvz" | "wrl" | "gz") => "HANIM_INVALID",
        Some("bvh") => "BVH_INVALID",
        Some("fbx") => "FBX_INVALID",
        Some("tres" | "import" | "godot" | "tscn") => "GODOT_INVALID",
        Some("toml") => "MAPPING_TABLE_INVALID",
        _ => "INPUT_INVALID",
    }
}

fn located(location: &Location) -> String {
    match location {
        Location::File => String::new(),
        other => format!(": {other}"),
    }
}

impl Error {
    /// An [`Error::Invalid`] for `path` at `location`, with the code of the file's format
    /// (told by its extension: `GLTF_INVALID`, `HANIM_INVALID`, `BVH_INVALID`, …).
    pub fn invalid(
        path: impl Into<PathBuf>,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        let path = path.into();
        let code = format_code(&path);
        Error::Invalid {
            path,
            location,
            message: message.into(),
            code,
        }
    }

    /// An [`Error::Invalid`] with a code of its own (`INPUT_TOO_LARGE`, `INPUT_NOT_A_FILE`, …;
    /// registered in [`codes`]).
    pub fn invalid_coded(
        code: &'static str,
        path: impl Into<PathBuf>,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Error::Invalid {
            path: path.into(),
            location,
            message: message.into(),
            code,
        }
    }

    /// The error's registered code: an [`Error::Invalid`]'s own, `IO_FAILED` for
    /// [`Error::Io`], `REQUEST_UNSUPPORTED` for [`Error::Unsupported`].
    ///
    /// ```
    /// use humanoid::error::{Error, Location};
    /// let e = Error::invalid("walk.bvh", Location::Byte(3), "invalid UTF-8");
    /// assert_eq!(e.code(), "BVH_INVALID");
    /// assert_eq!(Error::unsupported("no").code(), "REQUEST_UNSUPPORTED");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            Error::Invalid { code, .. } => code,
            Error::Io { .. } => "IO_FAILED",
            Error::Unsupported { .. } => "REQUEST_UNSUPPORTED",
        }
    }

    /// Where in its file, for an [`Error::Invalid`] with a place.
    pub fn location(&self) -> Option<&Location> {
        match self {
            Error::Invalid { location, .. } if *location != Location::File => Some(location),
            _ => None,
        }
    }

    /// The file the error is about, when it names one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::Invalid { path, .. } | Error::Io { path, .. } => Some(path),
            Error::Unsupported { .. } => None,
        }
    }

    /// This error, saying it is about `file` when it names no file yet (an
    /// [`Error::Unsupported`] whose message does not start with the file's name).
    pub fn about(self, file: &Path) -> Self {
        match self {
            Error::Unsupported { message } => {
                let shown = file.display().to_string();
                if message.starts_with(&shown) {
                    Error::Unsupported { message }
                } else {
                    Error::Unsupported {
                        message: format!("{shown}: {message}"),
                    }
                }
            }
            other => other,
        }
    }

    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// An [`Error::Unsupported`].
    pub fn unsupported(message: impl Into<String>) -> Self {
        Error::Unsupported {
            message: message.into(),
        }
    }
}

/// How serious a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; nothing was lost.
    Info,
    /// Something was dropped, approximated or guessed, or the input bends a rule.
    Warning,
    /// The input breaks a MUST of its format; `validate` exits 1.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One finding: a stable code (`EXT_BONE_NOT_JOINT`), a severity, where, and a message naming
/// the nodes or bones involved.
///
/// Every code is registered, with its severity and meaning, in [`codes`]; users look a code up
/// in `docs/diagnostics.md` (the repository's table, generated from [`codes::CODES`]).
/// Diagnostics are made only by [`Diagnostics::push`] (and its
/// `warn`/`error`/`info` shorthands), which checks the code against the registry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// Stable, upper-case code for programs to match on.
    pub code: &'static str,
    /// How serious it is.
    pub severity: Severity,
    /// Where, as a JSON pointer, line:column or byte offset; empty when it concerns the whole file.
    pub location: String,
    /// What was found, in lower case, naming the nodes or bones involved.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.severity, self.code)?;
        if !self.location.is_empty() {
            write!(f, " {}", self.location)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The diagnostics of one operation, in the order they were found.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    /// No diagnostics.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one. `code` must be registered in [`codes`] at `severity` (debug builds, and so
    /// every test, assert it): this is the one place a [`Diagnostic`] is made.
    pub fn push(
        &mut self,
        code: &'static str,
        severity: Severity,
        location: impl Into<String>,
        message: impl Into<String>,
    ) {
        debug_assert!(
            codes::allows(code, severity),
            "diagnostic code {code} ({severity}) is not registered at that severity in \
             src/error/codes.rs: add its row (docs/diagnostics.md lists them)"
        );
        self.0.push(Diagnostic {
            code,
            severity,
            location: location.into(),
            message: message.into(),
        });
    }

    /// Adds a warning.
    pub fn warn(
        &mut self,
        code: &'static str,
        location: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push(code, Severity::Warning, location, message);
    }

    /// Adds an error-severity finding (the operation still completes).
    pub fn error(
        &mut self,
        code: &'static str,
        location: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push(code, Severity::Error, location, message);
    }

    /// Adds an informational note.
    pub fn info(
        &mut self,
        code: &'static str,
        location: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push(code, Severity::Info, location, message);
    }

    /// Appends all of `other`.
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    /// All diagnostics, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether any has [`Severity::Error`].
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }

    /// Whether a diagnostic with `code` is present.
    pub fn contains(&self, code: &str) -> bool {
        self.0.iter().any(|d| d.code == code)
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
