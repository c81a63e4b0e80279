//! What the preview does not draw of a file's materials, said as that: the preview draws each
//! mesh with its base colour and its texture, and MToon 1.0's shade colour, shading shift and
//! toony, rim and outline, so a normal map, an emissive colour, MToon's matcap, UV animation
//! and textures beyond the main one, or VRM 0.x MToon (before migration) are not drawn, which is the preview's limit and not damage to the file (the mesh
//! reader's `MESH_MATERIAL_SIMPLIFIED`, worded for a conversion, becomes `PREVIEW_NOT_DRAWN`).

use serde_json::Value;

use crate::error::Diagnostics;
use crate::formats::gltf::{meshes::MATERIAL_NOT_CARRIED, Document};

/// The reader's `found` diagnostics with the mesh reader's material message worded as what
/// the preview does not draw (with MToon shading where the file uses it), said last.
pub(super) fn reword_not_drawn(document: &Document, found: Diagnostics) -> Diagnostics {
    let mut diagnostics = Diagnostics::new();
    let mut parts: Vec<String> = Vec::new();
    if uses_mtoon_1(document) || uses_vrm0_mtoon(document) {
        parts.push("MToon's matcap, UV animation and textures beyond the main one".to_owned());
    }
    for d in found.iter() {
        match d.message.strip_prefix(MATERIAL_NOT_CARRIED) {
            Some(list) if d.code == "MESH_MATERIAL_SIMPLIFIED" => {
                parts.extend(list.split(", ").map(str::to_owned));
            }
            _ => diagnostics.push(d.code, d.severity, d.location.clone(), d.message.clone()),
        }
    }
    if !parts.is_empty() {
        diagnostics.info(
            "PREVIEW_NOT_DRAWN",
            "/materials",
            format!(
                "the preview does not draw {}: each mesh is drawn with its base colour and its texture (the file keeps them)",
                parts.join(", ")
            ),
        );
    }
    diagnostics
}

/// Whether a material is VRM 1.0's `VRMC_materials_mtoon`.
fn uses_mtoon_1(document: &Document) -> bool {
    document
        .root
        .extensions_used
        .iter()
        .any(|e| e == "VRMC_materials_mtoon")
}

/// Whether a VRM 0.x `materialProperties` entry has an MToon shader (drawn as its migration
/// to MToon 1.0 gives it).
fn uses_vrm0_mtoon(document: &Document) -> bool {
    let root = &document.root;
    root.extensions
        .as_ref()
        .and_then(|e| e.get("VRM"))
        .and_then(|v| v.get("materialProperties"))
        .and_then(Value::as_array)
        .is_some_and(|list| {
            list.iter().any(|m| {
                m.get("shader")
                    .and_then(Value::as_str)
                    .is_some_and(|s| s.contains("MToon"))
            })
        })
}
