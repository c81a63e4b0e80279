//! The layer rule, checked on the source: reads every file under `src/` and fails when a module
//! imports a layer above its own, when `pose` and `mapping` import each other, when a format
//! adapter imports another adapter (VRM on glTF aside), or when two folders import each other.
//! It also keeps `docs/modules.md`, the module graph, in step with the code
//! (`HUMANOID_UPDATE_DOCS=1 cargo test --lib layers` rewrites it).
//!
//! | layer | folders | may import |
//! |---|---|---|
//! | 0 | `math`, `error` | nothing of the crate (`error` and `math` are leaves) |
//! | 1 | `model`, `io` (bounded input, atomic output) | layer 0 |
//! | 2 | `pose`, `mapping` | layers 0–1 (not each other) |
//! | 3 | `formats/*`, `mannequin` | layers 0–2, the `formats` root (`Format`, `uri`); VRM also glTF |
//! | 4 | `ops` (convert, retarget, inspect, sockets, demo, read, preview, …) | layers 0–3 |
//! | 5 | `lib.rs` (re-exports), the `cli` of the binary | everything |

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The folder (unit of the graph) a source file belongs to, from its path under `src/`:
/// `formats/gltf/rest/scene.rs` → `formats/gltf`, `formats/mod.rs` → `formats`.
fn unit_of_file(relative: &str) -> String {
    let parts: Vec<&str> = relative.trim_end_matches(".rs").split('/').collect();
    match parts.as_slice() {
        ["formats", "mod" | "uri"] => "formats".to_owned(),
        ["formats", adapter, ..] => format!("formats/{adapter}"),
        [single] => (*single).to_owned(),
        [first, ..] => (*first).to_owned(),
        [] => String::new(),
    }
}

/// The unit a `crate::` path names: `formats::gltf::json` → `formats/gltf`,
/// `formats::Format` → `formats`, `model::asset` → `model`.
fn unit_of_path(path: &str) -> String {
    let parts: Vec<&str> = path.split("::").collect();
    match parts.as_slice() {
        ["formats", adapter, ..]
            if *adapter != "uri" && adapter.chars().next().is_some_and(char::is_lowercase) =>
        {
            format!("formats/{adapter}")
        }
        [first, ..] => (*first).to_owned(),
        [] => String::new(),
    }
}

/// The layer of a unit (module docs), `None` for units the rule does not place.
fn layer(unit: &str) -> Option<u8> {
    Some(match unit {
        "math" | "error" => 0,
        "model" | "io" => 1,
        "pose" | "mapping" => 2,
        "formats" | "mannequin" => 3,
        u if u.starts_with("formats/") => 3,
        "ops" => 4,
        "lib" | "main" | "cli" | "layers" => 5,
        _ => return None,
    })
}

/// Why importing `to` from `from` breaks the rule, if it does.
fn violation(from: &str, to: &str) -> Option<String> {
    let (Some(a), Some(b)) = (layer(from), layer(to)) else {
        return Some(format!(
            "{from} or {to} has no layer: place it in src/layers.rs"
        ));
    };
    if from == to || from == "lib" || from == "layers" {
        return None;
    }
    if b > a {
        return Some(format!(
            "{from} (layer {a}) imports {to} (layer {b}), a layer above"
        ));
    }
    if a == 0 {
        return Some(format!("{from} is a leaf and imports {to}"));
    }
    if a == b && a == 2 {
        return Some(format!(
            "{from} imports {to}: pose and mapping stand side by side"
        ));
    }
    let adapter = |u: &str| u.starts_with("formats/");
    if adapter(from) && adapter(to) && !(from == "formats/vrm" && to == "formats/gltf") {
        return Some(format!(
            "adapter {from} imports adapter {to}: they meet in the model"
        ));
    }
    if a == 3 && to == "mannequin" || from == "mannequin" && b == 3 && to != "formats" {
        return Some(format!(
            "{from} imports {to}: sources of characters stand side by side"
        ));
    }
    None
}

/// Code without its comments (line comments, doc comments and block comments), so that a
/// doc link to a module above is not counted as an import.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |i| &after[i..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |i| &after[i + 2..]);
        } else if let Some(after) = rest.strip_prefix('"') {
            // Skip string literals (a path inside a message is no import).
            let mut end = 0;
            let bytes = after.as_bytes();
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            rest = after.get(end + 1..).unwrap_or("");
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Every `crate::a::b` path in `code`, with the `use crate::{a::x, b}` groups expanded to
/// their first two segments.
fn crate_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue; // `$crate::`, `my_crate::`
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let item = item.trim();
                if !item.is_empty() {
                    paths.push(item.split_whitespace().next().unwrap_or(item).to_owned());
                }
            }
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        paths.push(rest[..end].trim_end_matches(':').to_owned());
    }
    paths
}

/// The imports between units: (from, to) → the files that make them.
fn graph(sources: &[(String, String)]) -> BTreeMap<(String, String), BTreeSet<String>> {
    let mut edges: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for (relative, text) in sources {
        let from = unit_of_file(relative);
        for path in crate_paths(&strip_comments(text)) {
            let to = unit_of_path(&path);
            if to != from && !to.is_empty() {
                edges
                    .entry((from.clone(), to))
                    .or_default()
                    .insert(relative.clone());
            }
        }
    }
    edges
}

/// The breaches of the rule and every cycle between units, one line each.
fn breaches(edges: &BTreeMap<(String, String), BTreeSet<String>>) -> Vec<String> {
    let mut found = Vec::new();
    for ((from, to), files) in edges {
        if let Some(why) = violation(from, to) {
            let files: Vec<&str> = files.iter().map(String::as_str).collect();
            found.push(format!("{why} ({})", files.join(", ")));
        }
    }
    // A cycle between units: some unit reaches itself.
    let units: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    for &start in &units {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.clone()];
        while let Some(unit) = stack.pop() {
            for (from, to) in edges.keys() {
                if *from == unit && seen.insert(to.clone()) {
                    if to == start {
                        found.push(format!("{start} reaches itself through its imports"));
                    }
                    stack.push(to.clone());
                }
            }
        }
    }
    found
}

fn sources(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push((relative, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// `docs/modules.md`: the layers and every import between units, generated from the source.
fn modules_md(edges: &BTreeMap<(String, String), BTreeSet<String>>) -> String {
    let mut md = String::from(
        "# Module graph\n\nGenerated by `src/layers.rs` from the `crate::` paths in `src/` \
         (`HUMANOID_UPDATE_DOCS=1 cargo test --lib layers` rewrites it; the test fails when it \
         is stale). A unit is a folder of `src/` (a format adapter is its own unit). Each row \
         is a unit, its layer, and the units it imports.\n\n\
         | unit | layer | imports |\n|---|---|---|\n",
    );
    let mut by_unit: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        by_unit.entry(from).or_default().push(format!("`{to}`"));
    }
    let mut units: Vec<&str> = by_unit.keys().copied().collect();
    units.sort_by_key(|u| (layer(u).unwrap_or(9), *u));
    for unit in units {
        let _ = writeln!(
            md,
            "| `{unit}` | {} | {} |",
            layer(unit).map_or("?".to_owned(), |l| l.to_string()),
            by_unit[unit].join(", ")
        );
    }
    md.push_str("\nNo unit imports a layer above its own and no two units import each other.\n");
    md
}

#[test]
fn no_module_imports_a_layer_above_it_and_no_folders_form_a_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    // The binary's own modules use the library by its name, not `crate::`.
    files.retain(|(relative, _)| !relative.starts_with("cli/") && relative != "main.rs");
    assert!(files.len() > 150, "read {} files", files.len());
    let edges = graph(&files);
    let found = breaches(&edges);
    assert!(found.is_empty(), "layer rule broken:\n{}", found.join("\n"));

    let md = modules_md(&edges);
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/modules.md");
    if std::env::var_os("HUMANOID_UPDATE_DOCS").is_some() {
        std::fs::write(&doc, &md).unwrap();
    }
    let on_disk = std::fs::read_to_string(&doc).unwrap_or_default();
    assert!(
        on_disk == md,
        "docs/modules.md is stale: HUMANOID_UPDATE_DOCS=1 cargo test --lib layers"
    );
}

#[test]
fn the_check_catches_each_kind_of_breach() {
    let file = |path: &str, text: &str| (path.to_owned(), text.to_owned());
    let cases = [
        // model importing pose: a layer above.
        (
            vec![file("model/skeleton.rs", "use crate::pose::fk::world;")],
            "a layer above",
        ),
        // A leaf importing anything.
        (
            vec![file("math/trs.rs", "use crate::error::Error;")],
            "leaf",
        ),
        // pose and mapping side by side.
        (
            vec![file(
                "pose/tpose.rs",
                "fn f() { crate::mapping::auto::x(); }",
            )],
            "side by side",
        ),
        // Adapters meet in the model.
        (
            vec![file(
                "formats/bvh/write.rs",
                "use crate::{model, formats::hanim::names};",
            )],
            "adapter formats/bvh imports adapter formats/hanim",
        ),
        // A cycle within a layer: two operations… are one unit; two adapters are not.
        (
            vec![
                file("formats/vrm/a.rs", "use crate::formats::gltf::json;"),
                file("formats/gltf/b.rs", "use crate::formats::vrm::x;"),
            ],
            "reaches itself",
        ),
    ];
    for (files, expected) in cases {
        let found = breaches(&graph(&files));
        assert!(
            found.iter().any(|f| f.contains(expected)),
            "{files:?}: expected {expected:?}, found {found:?}"
        );
    }
    // What is not an import: comments, doc links, strings, other crates' `crate::`.
    let clean = vec![file(
        "model/clip.rs",
        "/// See [`crate::pose::sample`].\n// crate::ops::convert\nlet s = \"crate::ops\"; $crate::x; use crate::math::Trs;",
    )];
    assert_eq!(breaches(&graph(&clean)), Vec::<String>::new());
    // VRM builds on glTF; the formats root (Format, uri) is shared by the adapters.
    let allowed = vec![
        file("formats/vrm/a.rs", "use crate::formats::gltf::json;"),
        file(
            "formats/hanim/t.rs",
            "use crate::formats::uri::resolve; use crate::formats::Format;",
        ),
        file(
            "ops/convert.rs",
            "use crate::formats::{gltf, vrm, Format}; use crate::ops::sockets;",
        ),
    ];
    assert_eq!(breaches(&graph(&allowed)), Vec::<String>::new());
}
