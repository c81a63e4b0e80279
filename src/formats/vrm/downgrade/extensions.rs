//! The VRM 1.0-only extensions (`VRMC_*`) that a VRM 0.x file cannot carry, taken out of the
//! document wherever they are (the root, nodes, meshes and primitives, materials, textures,
//! images, and every other top-level array) and out of `extensionsUsed` and
//! `extensionsRequired`.
//!
//! `VRMC_vrm` itself is replaced by `VRM` (`mod.rs`) and `VRMC_springBone` is carried into
//! `secondaryAnimation` (`spring.rs`); `VRMC_materials_mtoon` into `materialProperties`
//! (`materials.rs`), said once naming the materials; every other one (`VRMC_node_constraint`, `VRMC_materials_hdr_emissiveMultiplier`,
//! `VRMC_springBone_extended_collider`, …) gets one diagnostic naming where it was.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::spring::SPRING_BONE_EXTENSION;
use super::vrm1;
use super::VRM1_EXTENSION;
use crate::error::Diagnostics;
use crate::formats::gltf::json::pointer;
use crate::formats::gltf::Document;

/// The prefix of the VRM 1.0 extensions.
const VRMC: &str = "VRMC_";

/// The MToon material extension.
const MTOON: &str = "VRMC_materials_mtoon";

/// Removes every 1.0-only extension from `out` and reports it.
pub(super) fn drop_vrm1_extensions(out: &mut Document, diagnostics: &mut Diagnostics) {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let root = &mut out.root;
    if let Some(extensions) = root.extensions.as_mut() {
        extensions.retain(|name, _| {
            let drop = name.starts_with(VRMC) && name != VRM1_EXTENSION;
            if drop && name != SPRING_BONE_EXTENSION {
                found
                    .entry(name.clone())
                    .or_default()
                    .push("/extensions".to_owned());
            }
            !drop
        });
    }
    for (n, node) in root.nodes.iter_mut().enumerate() {
        strip(&mut node.extensions, &format!("/nodes/{n}"), &mut found);
    }
    for (m, mesh) in root.meshes.iter_mut().enumerate() {
        let here = format!("/meshes/{m}");
        strip_other(&mut mesh.other, &here, &mut found);
        for (p, primitive) in mesh.primitives.iter_mut().enumerate() {
            strip_other(
                &mut primitive.other,
                &format!("{here}/primitives/{p}"),
                &mut found,
            );
        }
    }
    for (i, image) in root.images.iter_mut().enumerate() {
        strip_other(&mut image.other, &format!("/images/{i}"), &mut found);
    }
    for (key, value) in root.other.iter_mut() {
        let Some(items) = value.as_array_mut() else {
            continue;
        };
        for (i, item) in items.iter_mut().enumerate() {
            if let Some(object) = item.as_object_mut() {
                strip_other(object, &pointer([key.as_str(), &i.to_string()]), &mut found);
            }
        }
    }
    let mut declared_only = Vec::new();
    for name in root.extensions_used.iter().chain(&root.extensions_required) {
        let is_vrm1 =
            name.starts_with(VRMC) && name != VRM1_EXTENSION && name != SPRING_BONE_EXTENSION;
        if is_vrm1 && !found.contains_key(name) && !declared_only.contains(name) {
            declared_only.push(name.clone());
        }
    }
    for name in declared_only {
        found
            .entry(name)
            .or_default()
            .push("/extensionsUsed".to_owned());
    }
    let keep = |name: &String| !name.starts_with(VRMC) || name == VRM1_EXTENSION;
    root.extensions_used.retain(keep);
    root.extensions_required.retain(keep);
    let materials = material_names(out);
    report(&found, &materials, diagnostics);
}

/// Takes the `VRMC_*` extensions out of an `extensions` object, recording where they were.
fn strip(
    extensions: &mut Option<Map<String, Value>>,
    here: &str,
    found: &mut BTreeMap<String, Vec<String>>,
) {
    let Some(map) = extensions.as_mut() else {
        return;
    };
    map.retain(|name, _| {
        let drop = name.starts_with(VRMC);
        if drop {
            found.entry(name.clone()).or_default().push(here.to_owned());
        }
        !drop
    });
    if map.is_empty() {
        *extensions = None;
    }
}

/// [`strip`] for an object whose `extensions` live among its other properties.
fn strip_other(
    object: &mut Map<String, Value>,
    here: &str,
    found: &mut BTreeMap<String, Vec<String>>,
) {
    let Some(Value::Object(map)) = object.get_mut("extensions") else {
        return;
    };
    map.retain(|name, _| {
        let drop = name.starts_with(VRMC);
        if drop {
            found.entry(name.clone()).or_default().push(here.to_owned());
        }
        !drop
    });
    if map.is_empty() {
        object.remove("extensions");
    }
}

/// Each material's name (empty when it has none).
fn material_names(out: &Document) -> Vec<String> {
    vrm1::materials(&out.root)
        .iter()
        .map(|m| {
            m.get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// One diagnostic per dropped extension.
fn report(
    found: &BTreeMap<String, Vec<String>>,
    materials: &[String],
    diagnostics: &mut Diagnostics,
) {
    for (name, places) in found {
        if name == MTOON {
            let named: Vec<String> = places
                .iter()
                .map(|p| {
                    let index = p.strip_prefix("/materials/").unwrap_or(p);
                    let material = index
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| materials.get(i))
                        .map_or_else(String::new, |n| format!(" {n:?}"));
                    format!("{index}{material}")
                })
                .collect();
            diagnostics.info(
                "DOWNGRADE_MATERIALS_MTOON",
                "/materials",
                format!(
                    "VRMC_materials_mtoon became VRM 0.x materialProperties (VRM/MToon) for {} material(s), what 0.x cannot hold reported per material: {}",
                    named.len(),
                    vrm1::short_list(&named, 20)
                ),
            );
        } else {
            diagnostics.warn(
                "DOWNGRADE_EXTENSION_DROPPED",
                places.first().cloned().unwrap_or_default(),
                format!(
                    "{name} is a VRM 1.0 extension VRM 0.x cannot carry; it was dropped from {}",
                    vrm1::short_list(places, 12)
                ),
            );
        }
    }
}
