//! `materialProperties`: the 0.x Unity shader parameters of each material.
//!
//! They are not migrated to `VRMC_materials_mtoon`: UniVRM's `MigrationMToonMaterial` is a
//! shader-by-shader port (colour space conversions, render queue remapping, outline width
//! units, texture transforms, legacy unlit shaders that also drop vertex colours) that this
//! migration does not reproduce faithfully yet. The block is dropped with one diagnostic that
//! names every material whose look depended on it (any shader but `VRM_USE_GLTFSHADER`); such
//! a material renders as its plain glTF material (its `KHR_materials_unlit` or PBR values,
//! which 0.x exporters fill in as a fallback).

use serde_json::{Map, Value};

use super::vrm0::{self, at, BASE};
use crate::error::Diagnostics;

/// The 0.x shader name that means "use the glTF material as it is".
const GLTF_SHADER: &str = "VRM_USE_GLTFSHADER";

/// Reports the materials whose 0.x shader parameters are dropped.
pub(super) fn report_dropped(vrm: &Map<String, Value>, diagnostics: &mut Diagnostics) {
    let here = at(BASE, "materialProperties");
    let mut affected = Vec::new();
    for (i, material) in vrm0::array(vrm, "materialProperties").iter().enumerate() {
        let shader = material
            .get("shader")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if shader == GLTF_SHADER {
            continue;
        }
        let name = material
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        affected.push(format!("{i} {name:?} ({shader})"));
    }
    if affected.is_empty() {
        return;
    }
    diagnostics.warn(
        "MIGRATE_MATERIALS_DROPPED",
        here,
        format!(
            "the VRM 0.x shader parameters (MToon and other Unity shaders) of {} material(s) were not migrated to VRMC_materials_mtoon; they render as their plain glTF material: {}",
            affected.len(),
            vrm0::short_list(&affected, 20)
        ),
    );
}
