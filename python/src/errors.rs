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

/// How a command-line flag of the library's advice reads in Python.
#[derive(Clone, Copy)]
enum Keyword {
    /// A keyword taking text: `--map TABLE` is `map="TABLE"`.
    Text(&'static str),
    /// A keyword taking a number: `--bvh-scale 0.01` is `bvh_scale=0.01`.
    Number(&'static str),
    /// A keyword taking a list: `--vrm-author Ann` is `vrm_authors=["Ann"]`.
    List(&'static str),
    /// A switch: `--force` is `force=True`.
    Switch(&'static str),
    /// A flag that is one keyword's value: `--no-khr-character` is `khr_character="off"`.
    Fixed(&'static str),
}

/// Every flag the library's messages name (a pytest reads `src/` for them and checks that each
/// comes out as a keyword), by its command-line name, as the keyword of the package's functions
/// that means the same. A flag not listed here has no keyword (the preview's `--frames`,
/// `--size`): it is named as the command line's.
const FLAGS: [(&str, Keyword); 31] = [
    ("anim", Keyword::Text("anim")),
    ("as-ext", Keyword::Switch("as_ext")),
    ("bvh-order", Keyword::Text("bvh_order")),
    ("bvh-scale", Keyword::Number("bvh_scale")),
    ("bvh-units", Keyword::Text("bvh_units")),
    ("carry-sockets", Keyword::Switch("carry_sockets")),
    ("clip", Keyword::Text("clip")),
    ("contacts", Keyword::Text("contacts")),
    ("force", Keyword::Switch("force")),
    ("fps", Keyword::Number("fps")),
    ("jobs", Keyword::Number("jobs")),
    ("khr-character", Keyword::Text("khr_character")),
    ("map", Keyword::Text("map")),
    ("mappings", Keyword::List("mappings")),
    ("no-khr-character", Keyword::Fixed("khr_character=\"off\"")),
    ("normalize", Keyword::Switch("normalize")),
    ("onto", Keyword::Text("onto")),
    ("rebind", Keyword::Switch("rebind")),
    ("recursive", Keyword::Switch("recursive")),
    ("report", Keyword::Switch("report")),
    ("rest", Keyword::Text("rest")),
    ("rotate-vrm0", Keyword::Switch("rotate_vrm0")),
    ("strip-vrm", Keyword::Switch("strip_vrm")),
    ("times", Keyword::List("times")),
    ("to", Keyword::Text("to")),
    ("uniform", Keyword::Number("uniform")),
    ("vrm-author", Keyword::List("vrm_authors")),
    ("vrm-license-url", Keyword::Text("vrm_license_url")),
    ("vrm-name", Keyword::Text("vrm_name")),
    // `--as ext` and `--as joints` (retarget) are phrases; alone, the keyword.
    ("as", Keyword::Fixed("as_ext=")),
    ("output-dir", Keyword::Text("out_dir")),
];

/// Phrases whose flag reads better in other words than the flag's keyword alone.
const PHRASES: [(&str, &str); 6] = [
    ("pass one of them to --clip", "pass one of them as clip="),
    ("(retarget --clip writes", "(retarget's clip= writes"),
    ("the character after --onto", "the character second (onto=)"),
    (
        "the character to play it on after --onto",
        "the character to play it on second (onto=)",
    ),
    ("--as ext", "as_ext=True"),
    ("--as joints", "as_ext=False"),
];

/// Words that follow a flag in the library's messages and are not its value (`--map does not
/// fit`, `--clip picks the one clip`).
const NOT_VALUES: [&str; 20] = [
    "and", "before", "cannot", "does", "first", "for", "in", "instead", "is", "keeps", "maps",
    "measured", "measures", "needs", "on", "or", "picks", "rebases", "to", "with",
];

/// A message of the library (an error's, a diagnostic's) in the package's terms: each
/// command-line flag named as the keyword argument that means the same (`--force` as
/// `force=True`, `--map TABLE` as `map="TABLE"`, `--bvh-scale METRES` as `bvh_scale=METRES`),
/// each `humanoid` command in backquotes as the function call where there is one.
pub fn python_words(message: &str) -> String {
    let mut text = message.to_owned();
    for (phrase, words) in PHRASES {
        text = text.replace(phrase, words);
    }
    let text = retarget_commands(&text);
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(['`', '-']) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        if let Some(quoted) = from.strip_prefix('`') {
            // A command in backquotes: the function call, or the command line's words as they are.
            match quoted.find('`') {
                Some(end) => {
                    let (command, after) = quoted.split_at(end);
                    out.push_str(&backquoted(command));
                    rest = after.get(1..).unwrap_or_default();
                }
                None => {
                    out.push('`');
                    rest = quoted;
                }
            }
            continue;
        }
        let starts_word = !out
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
        let name_len = from
            .get(2..)
            .filter(|_| from.starts_with("--") && starts_word)
            .map_or(0, |tail| {
                tail.find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
                    .unwrap_or(tail.len())
            });
        let name = from
            .get(2..2 + name_len)
            .unwrap_or_default()
            .trim_end_matches('-');
        if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.push('-');
            rest = from.get(1..).unwrap_or_default();
            continue;
        }
        let after = from.get(2 + name.len()..).unwrap_or_default();
        rest = flag(name, after, &mut out);
    }
    out.push_str(rest);
    out
}

/// Writes flag `name` (followed by `after` in the message) in Python's words; what is left of
/// the message.
fn flag<'a>(name: &str, after: &'a str, out: &mut String) -> &'a str {
    let Some(keyword) = FLAGS
        .iter()
        .find(|(flag, _)| *flag == name)
        .map(|(_, k)| *k)
    else {
        out.push_str("the command line's --");
        out.push_str(name);
        return after;
    };
    let (keyword, render): (&str, fn(&str, &str) -> String) = match keyword {
        Keyword::Switch(keyword) => {
            out.push_str(keyword);
            out.push_str("=True");
            return after;
        }
        Keyword::Fixed(words) => {
            out.push_str(words);
            return after;
        }
        Keyword::Text(keyword) => (keyword, |k, v| format!("{k}={}", quoted(v))),
        Keyword::Number(keyword) => (keyword, |k, v| format!("{k}={v}")),
        Keyword::List(keyword) => (keyword, |k, v| format!("{k}=[{}]", quoted(v))),
    };
    let (value, left) = value_of(after);
    match value {
        Some(value) => out.push_str(&render(keyword, value)),
        None => {
            out.push_str(keyword);
            out.push('=');
        }
    }
    left
}

/// The value written after a flag (`=VALUE` or ` VALUE`), and what follows it; `None` when the
/// next word is not one (the sentence goes on, or another flag follows).
fn value_of(after: &str) -> (Option<&str>, &str) {
    let tail = match (after.strip_prefix('='), after.strip_prefix(' ')) {
        (Some(tail), _) => tail,
        (None, Some(tail)) => tail,
        (None, None) => return (None, after),
    };
    let word_end = tail.find(char::is_whitespace).unwrap_or(tail.len());
    let word = tail.get(..word_end).unwrap_or_default();
    // Punctuation that ends the sentence or a parenthesis is not the value's.
    let value = word.trim_end_matches([')', ',', ';', ':', '.']);
    let is_value = !value.is_empty()
        && !value.starts_with("--")
        && !value.starts_with(['(', '`'])
        && !NOT_VALUES.contains(&value);
    if !is_value {
        return (None, after);
    }
    (Some(value), tail.get(value.len()..).unwrap_or_default())
}

/// A text value as a Python string (kept as it is when already quoted).
fn quoted(value: &str) -> String {
    if value.starts_with('"') {
        value.to_owned()
    } else {
        format!("{value:?}")
    }
}

/// `(retarget ANIM --onto MODEL -o OUT)` as the function call.
fn retarget_commands(text: &str) -> String {
    const OPEN: &str = "(retarget ";
    let Some(start) = text.find(OPEN) else {
        return text.to_owned();
    };
    let inner_start = start + OPEN.len();
    let Some(len) = text.get(inner_start..).and_then(|t| t.find(')')) else {
        return text.to_owned();
    };
    let inner = text.get(inner_start..inner_start + len).unwrap_or_default();
    match retarget_call(inner) {
        Some(call) => format!(
            "{}({call}){}",
            text.get(..start).unwrap_or_default(),
            retarget_commands(text.get(inner_start + len + 1..).unwrap_or_default())
        ),
        None => text.to_owned(),
    }
}

/// `ANIM --onto MODEL -o OUT` as `humanoid.retarget("ANIM", "MODEL", "OUT")`.
fn retarget_call(arguments: &str) -> Option<String> {
    let words: Vec<&str> = arguments.split_whitespace().collect();
    match words.as_slice() {
        [anim, "--onto", model, "-o", out] => Some(format!(
            "humanoid.retarget({}, {}, {})",
            quoted(anim),
            quoted(model),
            quoted(out)
        )),
        _ => None,
    }
}

/// A command in backquotes: the package's call where there is one, else the command line's.
fn backquoted(command: &str) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        ["humanoid", "retarget", rest @ ..] => match retarget_call(&rest.join(" ")) {
            Some(call) => format!("`{call}`"),
            None => format!("the command line's `{command}`"),
        },
        ["humanoid", "map"] => "`humanoid.map_rig(path)`".to_owned(),
        ["humanoid", "map", file] => format!("`humanoid.map_rig({})`", quoted(file)),
        ["humanoid", ..] => format!("the command line's `{command}`"),
        _ => format!("`{command}`"),
    }
}

/// A diagnostic as JSON (`{"code", "severity", "location", "message"}`), its message in
/// Python's words.
pub fn python_words_in(diagnostic: &mut serde_json::Value) {
    if let Some(message) = diagnostic.get_mut("message") {
        if let Some(text) = message.as_str() {
            *message = python_words(text).into();
        }
    }
}

/// The message of a library error, its advice in Python's terms.
fn message_for_python(error: &humanoid::Error) -> String {
    python_words(&error.to_string())
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
