//! The registry against the source and the docs: every code the source uses is registered (at
//! the severity it is reported at), every registered code is used, `docs/diagnostics.md` is
//! the registry's table; and the scan that checks this catches a planted code.

use std::path::{Path, PathBuf};

use super::scan::{self, Context, Found};
use super::{CodeInfo, CODES};
use crate::error::{Diagnostics, Severity};

/// Code-shaped literals in `src/` that are not diagnostic codes, and what they are.
const NOT_CODES: &[(&str, &str)] = &[
    (
        "XDG_RUNTIME_DIR",
        "an environment variable set for Mesa's display probe (src/main.rs)",
    ),
    (
        "HUMANOID_MAX_BINARY_BYTES",
        "an environment variable (docs/limits.md)",
    ),
    (
        "HUMANOID_MAX_DEPTH",
        "an environment variable (docs/limits.md)",
    ),
    (
        "HUMANOID_MAX_TABLE_BYTES",
        "an environment variable (docs/limits.md)",
    ),
    (
        "HUMANOID_MAX_TEXT_BYTES",
        "an environment variable (docs/limits.md)",
    ),
    ("CC_BY", "a VRM 0.x licenseName"),
    ("CC_BY_NC", "a VRM 0.x licenseName"),
    ("CC_BY_NC_ND", "a VRM 0.x licenseName"),
    ("CC_BY_NC_SA", "a VRM 0.x licenseName"),
    ("CC_BY_ND", "a VRM 0.x licenseName"),
    ("CC_BY_SA", "a VRM 0.x licenseName"),
    ("JOINTS_0", "a glTF vertex attribute"),
    ("TEXCOORD_0", "a glTF vertex attribute"),
    ("UNSIGNED_BYTE", "a glTF component type's name"),
    ("UNSIGNED_INT", "a glTF component type's name"),
    ("UNSIGNED_SHORT", "a glTF component type's name"),
    ("VRM_USE_GLTFSHADER", "a VRM 0.x material's shader name"),
    ("WEIGHTS_0", "a glTF vertex attribute"),
];

/// What is wrong between `files` (path, text) and `registry`: codes used but not registered
/// (or at a severity the registry does not give them), registered codes no source uses
/// outside tests, and not-codes used as codes. Empty when they agree.
fn check(files: &[(String, String)], registry: &[CodeInfo]) -> Vec<String> {
    let lookup = |code: &str| registry.iter().find(|info| info.code == code);
    let mut problems = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    for (path, text) in files {
        let stem = Path::new(path)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("");
        let test_file = stem == "tests" || stem.ends_with("_tests");
        for Found {
            code,
            line,
            context,
            in_test,
        } in scan::literals(text)
        {
            if context == Context::Env {
                continue;
            }
            let emitted = matches!(context, Context::Emit { .. } | Context::CodeField);
            if let Some((_, what)) = NOT_CODES.iter().find(|(c, _)| *c == code) {
                if emitted {
                    problems.push(format!(
                        "{path}:{line}: {code} is listed as {what}, not a code, but stands as \
                         {context}: register it in src/error/codes.rs"
                    ));
                }
                continue;
            }
            let Some(info) = lookup(&code) else {
                problems.push(format!(
                    "{path}:{line}: {code}, {context}, is not a registered diagnostic code: add \
                     it to src/error/codes.rs (or, if it is no code, to NOT_CODES in {})",
                    file!()
                ));
                continue;
            };
            if let Context::Emit { method, arg: 0 } = &context {
                let severity = match method.as_str() {
                    "warn" => Some(Severity::Warning),
                    "info" => Some(Severity::Info),
                    "error" => Some(Severity::Error),
                    _ => None,
                };
                if let Some(severity) = severity.filter(|s| !info.allows(*s)) {
                    problems.push(format!(
                        "{path}:{line}: {code} is reported as {severity}, but the registry gives \
                         it {:?}",
                        info.severities
                    ));
                }
            }
            if !(test_file || in_test) {
                used.insert(code);
            }
        }
    }
    for info in registry {
        if !used.contains(info.code) {
            problems.push(format!(
                "{} is registered but no source outside tests uses it: remove its row",
                info.code
            ));
        }
    }
    problems
}

/// Every `.rs` file under `dir`, but the registry's own.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    let registry = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/error/codes");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path == registry || path.with_extension("") == registry {
            continue;
        }
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            let root = Path::new(env!("CARGO_MANIFEST_DIR"));
            let shown = path.strip_prefix(root).unwrap_or(&path);
            out.push((shown.display().to_string(), text));
        }
    }
}

#[test]
fn the_registry_is_sorted_and_its_rows_are_well_formed() {
    for pair in CODES.windows(2) {
        assert!(
            pair[0].code < pair[1].code,
            "{} must come before {} (sorted, no repeats)",
            pair[1].code,
            pair[0].code
        );
    }
    for info in CODES {
        assert!(scan::code_shaped(info.code), "{}", info.code);
        assert!(!info.severities.is_empty(), "{}", info.code);
        assert!(
            info.severities.windows(2).all(|s| s[0] < s[1]),
            "{}",
            info.code
        );
        let meaning = info.meaning;
        assert!(
            !meaning.is_empty() && !meaning.contains(['|', '\n']) && !meaning.ends_with('.'),
            "{}: one line, no trailing period, no `|` (a table cell): {meaning:?}",
            info.code
        );
    }
}

#[test]
fn describe_finds_every_registered_code_and_no_other() {
    for info in CODES {
        assert_eq!(super::describe(info.code), Some(info));
    }
    assert_eq!(
        super::describe("VRM_TURNED").map(|i| i.fixed_severity()),
        Some(Some(Severity::Info))
    );
    assert_eq!(
        super::describe("VRM_FACING").and_then(|i| i.fixed_severity()),
        None
    );
    assert!(super::describe("NOT_A_CODE").is_none());
    assert!(super::describe("").is_none());
    assert!(super::allows("VRM_FACING", Severity::Error));
    assert!(!super::allows("VRM_FACING", Severity::Info));
}

#[test]
fn every_code_in_the_source_is_registered_and_every_registered_code_is_used() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    assert!(files.len() > 100, "{} files under src/", files.len());
    let problems = check(&files, CODES);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_docs_table_is_the_registry() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diagnostics.md");
    let table = super::markdown();
    if std::env::var_os("HUMANOID_UPDATE_DOCS").is_some() {
        std::fs::write(&docs, &table).unwrap();
        return;
    }
    let published = std::fs::read_to_string(&docs).unwrap_or_default();
    assert!(
        published == table,
        "docs/diagnostics.md is out of date: rerun with HUMANOID_UPDATE_DOCS=1 cargo test --lib codes"
    );
    let rows = published.lines().filter(|l| l.starts_with("| `")).count();
    assert_eq!(rows, CODES.len());
}

/// A source with planted codes in every place a code can stand, beside ones the scan must pass.
const PLANTED: &str = r##"
use crate::error::Diagnostics;

/// Code: a planted constant (`"DOC_COMMENT_CODE"` in a comment is not read).
pub const PLANTED: &str = "PLANTED_CONST";
const TABLE: [(&str, &str); 1] = [("VRM_TURNED", "PLANTED_IN_TABLE")];

fn emit(diagnostics: &mut Diagnostics, notes: &mut Vec<Note>, input: &str) {
    diagnostics.warn("PLANTED_WARN", "", format!("{}", '"'));
    diagnostics.info(
        "VRM_TURNED",
        "/nodes",
        "registered, at its severity",
    );
    diagnostics.warn("VRM_TURNED", "", "registered, at another severity");
    diagnostics.info(PLANTED, "", r#"a raw "string" with "QUOTED_CODE""#.to_owned());
    notes.push(Note { at: 0, code: "PLANTED_FIELD", message: String::new() });
    self.note(input, "PLANTED_NOTE", "a note");
    // diagnostics.warn("COMMENTED_OUT", "", "");
    /* diagnostics.warn("BLOCK_COMMENTED", "", ""); */
    let _ = (env!("CARGO_PKG_VERSION"), std::env::var("WGPU_BACKEND"), "JOINTS_0");
    diagnostics.push("JOINTS_0", Severity::Info, "", "a not-code used as a code");
    let _: &'static str = "PLANTED_AFTER_LIFETIME";
}

#[cfg(test)]
mod tests {
    #[test]
    fn t() {
        assert!(!diagnostics.contains("TEST_ONLY_TYPO"));
        diagnostics.warn("GLB_TRAILING_BYTES", "", "a registered code used only in a test");
    }
}
"##;

fn planted_registry() -> Vec<CodeInfo> {
    let row = |code: &'static str, severities: &'static [Severity]| CodeInfo {
        code,
        severities,
        meaning: "Planted",
    };
    vec![
        row("GLB_TRAILING_BYTES", &[Severity::Warning]),
        row("VRM_TURNED", &[Severity::Info]),
    ]
}

#[test]
fn the_scan_finds_codes_wherever_they_stand() {
    let found = scan::literals(PLANTED);
    let at = |code: &str| {
        found
            .iter()
            .filter(|f| f.code == code)
            .map(|f| (f.context.clone(), f.in_test))
            .collect::<Vec<_>>()
    };
    let warn = |arg| Context::Emit {
        method: "warn".to_owned(),
        arg,
    };
    assert_eq!(
        at("PLANTED_CONST"),
        [(Context::Const("PLANTED".to_owned()), false)]
    );
    assert_eq!(
        at("PLANTED_IN_TABLE"),
        [(Context::Const("TABLE".to_owned()), false)]
    );
    assert_eq!(at("PLANTED_WARN"), [(warn(0), false)]);
    assert_eq!(at("PLANTED_FIELD"), [(Context::CodeField, false)]);
    assert_eq!(
        at("PLANTED_NOTE"),
        [(
            Context::Emit {
                method: "note".to_owned(),
                arg: 1
            },
            false
        )]
    );
    assert_eq!(at("CARGO_PKG_VERSION"), [(Context::Env, false)]);
    assert_eq!(at("WGPU_BACKEND"), [(Context::Env, false)]);
    assert_eq!(at("TEST_ONLY_TYPO"), [(Context::Other, true)]);
    assert_eq!(at("PLANTED_AFTER_LIFETIME"), [(Context::Other, false)]);
    for hidden in [
        "DOC_COMMENT_CODE",
        "COMMENTED_OUT",
        "BLOCK_COMMENTED",
        "QUOTED_CODE",
    ] {
        assert!(at(hidden).is_empty(), "{hidden}: {:?}", at(hidden));
    }
    // The line of a code on a line of its own, in a call spread over several.
    let turned: Vec<usize> = found
        .iter()
        .filter(|f| f.code == "VRM_TURNED")
        .map(|f| f.line)
        .collect();
    assert_eq!(turned, [6, 11, 15]);
}

#[test]
fn the_check_names_every_planted_code_and_nothing_else() {
    let files = [("src/planted.rs".to_owned(), PLANTED.to_owned())];
    let problems = check(&files, &planted_registry());
    let named = |code: &str| problems.iter().filter(|p| p.contains(code)).count();
    for planted in [
        "PLANTED_CONST",
        "PLANTED_IN_TABLE",
        "PLANTED_WARN",
        "PLANTED_FIELD",
        "PLANTED_NOTE",
        "PLANTED_AFTER_LIFETIME",
        "TEST_ONLY_TYPO",
    ] {
        assert_eq!(
            named(planted),
            1,
            "{planted} not named once:\n{}",
            problems.join("\n")
        );
    }
    // Reported as a warning though the registry says info.
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("src/planted.rs:15: VRM_TURNED is reported as warning")),
        "{}",
        problems.join("\n")
    );
    // A not-code passed as a code.
    assert_eq!(named("JOINTS_0"), 1, "{}", problems.join("\n"));
    // Used only in a test: a stale row.
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("GLB_TRAILING_BYTES is registered but no source")),
        "{}",
        problems.join("\n")
    );
    assert_eq!(problems.len(), 10, "{}", problems.join("\n"));
}

#[test]
fn the_check_passes_a_source_that_agrees_with_its_registry() {
    let source = r#"fn f(d: &mut Diagnostics) { d.info("VRM_TURNED", "", "m"); d.warn("GLB_TRAILING_BYTES", "", "m"); }"#;
    let files = [("src/ok.rs".to_owned(), source.to_owned())];
    assert_eq!(check(&files, &planted_registry()), Vec::<String>::new());
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "PLANTED_UNREGISTERED")]
fn push_refuses_an_unregistered_code() {
    Diagnostics::new().warn("PLANTED_UNREGISTERED", "", "planted");
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "VRM_TURNED")]
fn push_refuses_a_registered_code_at_another_severity() {
    Diagnostics::new().error("VRM_TURNED", "", "planted");
}
