//! The geometry compression extensions: one list for every part of the library that must
//! refuse or skip vertex data it cannot decode (the VRM migration and its way back, which turn
//! the data; `--normalize --rebind`, which rewrites it; the mesh readers, which draw it).

use serde_json::{Map, Value};

use super::document::Document;

/// The extensions whose accessors do not hold the real vertices (Draco; meshopt, under its
/// vendor and its Khronos name).
pub const EXTENSIONS: [&str; 3] = [
    "KHR_draco_mesh_compression",
    "EXT_meshopt_compression",
    "KHR_meshopt_compression",
];

/// The first compression extension the document uses or requires (`None`: none).
pub fn used_by(document: &Document) -> Option<&'static str> {
    let root = &document.root;
    EXTENSIONS.into_iter().find(|name| {
        root.extensions_used
            .iter()
            .chain(&root.extensions_required)
            .any(|e| e == name)
    })
}

/// Whether an object's `extensions` (a primitive's, a buffer view's) name one of them.
pub fn in_extensions(extensions: Option<&Map<String, Value>>) -> bool {
    extensions.is_some_and(|e| EXTENSIONS.iter().any(|c| e.contains_key(*c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_names_draco_and_both_meshopt_names() {
        for name in [
            "KHR_draco_mesh_compression",
            "EXT_meshopt_compression",
            "KHR_meshopt_compression",
        ] {
            assert!(EXTENSIONS.contains(&name), "{name}");
        }
    }
}
