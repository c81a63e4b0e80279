//! Compiles the mapping tables in `mappings/*.toml` into the binary: generates
//! `$OUT_DIR/builtin_mappings.rs`, a list of (file stem, contents). Adding a table is adding a
//! file; no Rust changes.

use std::fmt::Write as _;
use std::path::Path;

/// Fails the build (cargo prints the message) when the tables cannot be read or written.
fn main() -> Result<(), String> {
    // Read at run time: `env!` would freeze the folder the build script was compiled in, and a
    // target folder reused from another checkout would then compile in no table at all.
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .map_err(|e| format!("CARGO_MANIFEST_DIR (cargo sets it): {e}"))?;
    let dir = Path::new(&manifest).join("mappings");
    println!("cargo:rerun-if-changed={}", dir.display());
    let entries = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read the mapping tables in {}: {e}", dir.display()))?;
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    if files.is_empty() {
        return Err(format!("no mapping table in {}", dir.display()));
    }
    files.sort();
    let mut out = String::from("/// Built-in tables: (file stem, TOML text).\npub(crate) static BUILTIN: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    ({stem:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    out.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").map_err(|e| format!("OUT_DIR (cargo sets it): {e}"))?;
    let target = Path::new(&out_dir).join("builtin_mappings.rs");
    std::fs::write(&target, out).map_err(|e| format!("cannot write {}: {e}", target.display()))
}
