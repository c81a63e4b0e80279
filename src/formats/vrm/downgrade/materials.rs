//! `VRMC_materials_mtoon` → 0.x `materialProperties`: the inverse of the migration
//! (`migrate/materials.rs`, UniVRM's `MigrationMToon`), so that 1.0 → 0.x → 1.0 gives back
//! every MToon field 0.x can hold.
//!
//! One property per glTF material, in material order (0.x pairs them by index): `VRM/MToon`
//! for an MToon material, `VRM_USE_GLTFSHADER` (the glTF material as it is) for the others.
//! Linear colours become sRGB (the inverse transfer curve), texture transforms Unity's
//! scale and offset, shading shift and toony the 0.x range, outline widths 0.x units (world
//! centimetres, screen ×200), UV scroll Y and rotation Unity's. What 0.x cannot hold is reported
//! per material (`DOWNGRADE_MTOON_LOST`): a shading-shift texture, a texture rotation, a matcap
//! factor other than white, texture transforms that differ between textures (0.x has one for
//! all), and a rim lighting mix other than 1 (0.x holds it, but a migration back to 1.0 sets 1,
//! as UniVRM's does).

use std::f64::consts::TAU;

use serde_json::{json, Map, Value};

use crate::error::Diagnostics;
use crate::formats::gltf::json::Root;
use crate::math::color::linear_to_srgb;

/// The 1.0 MToon material extension.
const MTOON: &str = "VRMC_materials_mtoon";

/// The 0.x `materialProperties` for `root`'s materials (read before the 1.0 extensions are
/// taken out).
pub(super) fn material_properties(root: &Root, diagnostics: &mut Diagnostics) -> Value {
    let materials = root
        .other
        .get("materials")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    Value::Array(
        materials
            .iter()
            .enumerate()
            .map(|(i, material)| property(i, material, diagnostics))
            .collect(),
    )
}

fn property(index: usize, material: &Value, diagnostics: &mut Diagnostics) -> Value {
    let name = material
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(mtoon) = material
        .get("extensions")
        .and_then(|e| e.get(MTOON))
        .filter(|m| m.is_object())
    else {
        return json!({
            "name": name,
            "shader": "VRM_USE_GLTFSHADER",
            "renderQueue": -1,
            "floatProperties": {}, "vectorProperties": {}, "textureProperties": {},
            "keywordMap": {}, "tagMap": {},
        });
    };
    let mut lost = Vec::new();
    let number = |value: Option<&Value>, default: f64| {
        value
            .and_then(Value::as_f64)
            .filter(|v| v.is_finite())
            .unwrap_or(default)
    };
    let m = |key: &str, default: f64| number(mtoon.get(key), default);
    let mut floats = Map::new();
    let mut vectors = Map::new();
    let mut textures = Map::new();

    // Render mode.
    let alpha_mode = material
        .get("alphaMode")
        .and_then(Value::as_str)
        .unwrap_or("OPAQUE");
    let z_write = mtoon.get("transparentWithZWrite").and_then(Value::as_bool) == Some(true);
    let queue_offset = m("renderQueueOffsetNumber", 0.0).round();
    let (blend_mode, render_type, queue, keywords) = match alpha_mode {
        "MASK" => (
            1.0,
            "TransparentCutout",
            2450.0,
            json!({ "_ALPHATEST_ON": true }),
        ),
        "BLEND" if z_write => (
            3.0,
            "Transparent",
            2501.0 + queue_offset.clamp(0.0, 9.0),
            json!({ "_ALPHABLEND_ON": true }),
        ),
        "BLEND" => (
            2.0,
            "Transparent",
            3000.0 + queue_offset.clamp(-9.0, 0.0),
            json!({ "_ALPHABLEND_ON": true }),
        ),
        _ => (0.0, "Opaque", 2000.0, json!({})),
    };
    floats.insert("_BlendMode".into(), json!(blend_mode));
    floats.insert(
        "_Cutoff".into(),
        json!(number(material.get("alphaCutoff"), 0.5)),
    );
    let double_sided = material.get("doubleSided").and_then(Value::as_bool) == Some(true);
    floats.insert(
        "_CullMode".into(),
        json!(if double_sided { 0.0 } else { 2.0 }),
    );

    // Colours and textures. 0.x has one transform for every texture: the main texture's.
    let pbr = material.get("pbrMetallicRoughness");
    let base = pbr.and_then(|p| p.get("baseColorFactor"));
    let base = floats4(base).unwrap_or([1.0; 4]);
    vectors.insert(
        "_Color".into(),
        json!([
            linear_to_srgb(base[0]),
            linear_to_srgb(base[1]),
            linear_to_srgb(base[2]),
            base[3]
        ]),
    );
    let main = pbr.and_then(|p| p.get("baseColorTexture"));
    let main_transform = main.map(transform_of);
    let unity_st = |t: &Transform| {
        json!([
            t.offset[0],
            1.0 - t.offset[1] - t.scale[1],
            t.scale[0],
            t.scale[1]
        ])
    };
    vectors.insert(
        "_MainTex".into(),
        unity_st(&main_transform.clone().unwrap_or_default()),
    );
    if main_transform.as_ref().is_some_and(|t| t.rotation != 0.0) {
        lost.push("the main texture's rotation".to_owned());
    }
    let main_st = main_transform.clone().unwrap_or_default();
    texture("_MainTex", main, &mut textures, &main_st, &mut lost);
    let shade = floats3(mtoon.get("shadeColorFactor")).unwrap_or([0.0; 3]);
    vectors.insert("_ShadeColor".into(), srgb_vector(shade));
    texture(
        "_ShadeTexture",
        mtoon.get("shadeMultiplyTexture"),
        &mut textures,
        &main_st,
        &mut lost,
    );
    if let Some(normal) = material.get("normalTexture") {
        texture("_BumpMap", Some(normal), &mut textures, &main_st, &mut lost);
        floats.insert("_BumpScale".into(), json!(number(normal.get("scale"), 1.0)));
    }
    let strength = number(
        material
            .get("extensions")
            .and_then(|e| e.get("KHR_materials_emissive_strength"))
            .and_then(|e| e.get("emissiveStrength")),
        1.0,
    );
    let emissive = floats3(material.get("emissiveFactor")).unwrap_or([0.0; 3]);
    vectors.insert(
        "_EmissionColor".into(),
        json!([
            emissive[0] * strength,
            emissive[1] * strength,
            emissive[2] * strength,
            1.0
        ]),
    );
    texture(
        "_EmissionMap",
        material.get("emissiveTexture"),
        &mut textures,
        &main_st,
        &mut lost,
    );

    // Shading: the inverse of MToon10Migrator (see `shading_0x`).
    let (shift, toony) = shading_0x(m("shadingShiftFactor", 0.0), m("shadingToonyFactor", 0.9));
    floats.insert("_ShadeShift".into(), json!(shift));
    floats.insert("_ShadeToony".into(), json!(toony));
    if mtoon.get("shadingShiftTexture").is_some() {
        lost.push("the shading shift texture".to_owned());
    }
    floats.insert(
        "_IndirectLightIntensity".into(),
        json!(1.0 - m("giEqualizationFactor", 0.9)),
    );

    // Matcap and rim.
    if let Some(matcap) = mtoon.get("matcapTexture") {
        texture(
            "_SphereAdd",
            Some(matcap),
            &mut textures,
            &main_st,
            &mut lost,
        );
        let factor = floats3(mtoon.get("matcapFactor")).unwrap_or([1.0; 3]);
        if factor.iter().any(|c| (c - 1.0).abs() > 1e-6) {
            lost.push(format!(
                "matcapFactor {factor:?} (0.x adds its matcap at full strength)"
            ));
        }
    }
    let rim = floats3(mtoon.get("parametricRimColorFactor")).unwrap_or([0.0; 3]);
    vectors.insert("_RimColor".into(), srgb_vector(rim));
    texture(
        "_RimTexture",
        mtoon.get("rimMultiplyTexture"),
        &mut textures,
        &main_st,
        &mut lost,
    );
    let rim_mix = m("rimLightingMixFactor", 1.0);
    floats.insert("_RimLightingMix".into(), json!(rim_mix));
    if (rim_mix - 1.0).abs() > 1e-6 {
        lost.push(format!("rimLightingMixFactor {rim_mix} (held, but a migration back to 1.0 sets 1, as UniVRM's does)"));
    }
    floats.insert(
        "_RimFresnelPower".into(),
        json!(m("parametricRimFresnelPowerFactor", 5.0)),
    );
    floats.insert("_RimLift".into(), json!(m("parametricRimLiftFactor", 0.0)));

    // Outline.
    let width = m("outlineWidthFactor", 0.0);
    let (mode, width) = match mtoon.get("outlineWidthMode").and_then(Value::as_str) {
        Some("worldCoordinates") => (1.0, width / 0.01),
        Some("screenCoordinates") => (2.0, width / 0.005),
        _ => (0.0, width / 0.01),
    };
    floats.insert("_OutlineWidthMode".into(), json!(mode));
    floats.insert("_OutlineWidth".into(), json!(width));
    texture(
        "_OutlineWidthTexture",
        mtoon.get("outlineWidthMultiplyTexture"),
        &mut textures,
        &main_st,
        &mut lost,
    );
    let outline = floats3(mtoon.get("outlineColorFactor")).unwrap_or([0.0; 3]);
    vectors.insert("_OutlineColor".into(), srgb_vector(outline));
    let mix = m("outlineLightingMixFactor", 1.0);
    floats.insert(
        "_OutlineColorMode".into(),
        json!(if mix == 0.0 { 0.0 } else { 1.0 }),
    );
    floats.insert(
        "_OutlineLightingMix".into(),
        json!(if mix == 0.0 { 1.0 } else { mix }),
    );

    // UV animation.
    texture(
        "_UvAnimMaskTexture",
        mtoon.get("uvAnimationMaskTexture"),
        &mut textures,
        &main_st,
        &mut lost,
    );
    floats.insert(
        "_UvAnimScrollX".into(),
        json!(m("uvAnimationScrollXSpeedFactor", 0.0)),
    );
    floats.insert(
        "_UvAnimScrollY".into(),
        json!(0.0 - m("uvAnimationScrollYSpeedFactor", 0.0)),
    );
    floats.insert(
        "_UvAnimRotation".into(),
        json!(m("uvAnimationRotationSpeedFactor", 0.0) / TAU),
    );

    if !lost.is_empty() {
        lost.dedup();
        diagnostics.warn(
            "DOWNGRADE_MTOON_LOST",
            format!("/materials/{index}/extensions/{MTOON}"),
            format!(
                "material {index} {name:?}: VRM 0.x MToon cannot hold {}",
                lost.join("; ")
            ),
        );
    }
    json!({
        "name": name,
        "shader": "VRM/MToon",
        "renderQueue": queue,
        "floatProperties": floats,
        "vectorProperties": vectors,
        "textureProperties": textures,
        "keywordMap": keywords,
        "tagMap": { "RenderType": render_type },
    })
}

/// Records texture `key` (0.x `textureProperties`) from a texture info, and a transform of its
/// own that 0.x cannot hold (it has one for every texture: the main texture's).
fn texture(
    key: &str,
    info: Option<&Value>,
    textures: &mut Map<String, Value>,
    main: &Transform,
    lost: &mut Vec<String>,
) {
    let Some(info) = info else {
        return;
    };
    if let Some(index) = info.get("index").and_then(Value::as_u64) {
        textures.insert(key.into(), json!(index));
    }
    if key != "_MainTex" && key != "_SphereAdd" && transform_of(info) != *main {
        lost.push(format!(
            "{key}'s own texture transform (0.x uses the main texture's)"
        ));
    }
}

/// A texture info's `KHR_texture_transform` (identity when it has none).
#[derive(Debug, Clone, PartialEq)]
struct Transform {
    offset: [f64; 2],
    scale: [f64; 2],
    rotation: f64,
}

impl Default for Transform {
    fn default() -> Self {
        Transform {
            offset: [0.0; 2],
            scale: [1.0; 2],
            rotation: 0.0,
        }
    }
}

fn transform_of(info: &Value) -> Transform {
    let Some(t) = info
        .get("extensions")
        .and_then(|e| e.get("KHR_texture_transform"))
    else {
        return Transform::default();
    };
    let pair = |key: &str, default: [f64; 2]| {
        let mut out = default;
        if let Some(values) = t.get(key).and_then(Value::as_array) {
            for (slot, v) in out.iter_mut().zip(values) {
                if let Some(v) = v.as_f64().filter(|v| v.is_finite()) {
                    *slot = v;
                }
            }
        }
        out
    };
    Transform {
        offset: pair("offset", [0.0; 2]),
        scale: pair("scale", [1.0; 2]),
        rotation: t.get("rotation").and_then(Value::as_f64).unwrap_or(0.0),
    }
}

/// The inverse of the migration's shading: 1.0's shift `s` and toony `t` as 0.x's
/// `(_ShadeShift, _ShadeToony)`. The migration's range is `[min, max]` with
/// `s = −(min + max) / 2` and `t = (2 − (max − min)) / 2`, so `min = t − 1 − s` and
/// `max = 1 − t − s`; 0.x's `_ShadeShift` is `min` and `max = lerp(1, min, _ShadeToony)`.
fn shading_0x(shift: f64, toony: f64) -> (f64, f64) {
    let min = toony - 1.0 - shift;
    let max = 1.0 - toony - shift;
    let toony_0x = if (min - 1.0).abs() < 1e-9 {
        0.9
    } else {
        ((max - 1.0) / (min - 1.0)).clamp(0.0, 1.0)
    };
    (min, toony_0x)
}

fn srgb_vector(c: [f64; 3]) -> Value {
    json!([
        linear_to_srgb(c[0]),
        linear_to_srgb(c[1]),
        linear_to_srgb(c[2]),
        1.0
    ])
}

fn floats3(value: Option<&Value>) -> Option<[f64; 3]> {
    let values = value?.as_array()?;
    let mut out = [0.0; 3];
    for (slot, v) in out.iter_mut().zip(values) {
        *slot = v.as_f64().filter(|v| v.is_finite())?;
    }
    (values.len() >= 3).then_some(out)
}

fn floats4(value: Option<&Value>) -> Option<[f64; 4]> {
    let values = value?.as_array()?;
    let mut out = [0.0, 0.0, 0.0, 1.0];
    for (slot, v) in out.iter_mut().zip(values) {
        *slot = v.as_f64().filter(|v| v.is_finite())?;
    }
    (values.len() >= 3).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shading_inverts_univrms_migration() {
        // UniVRM's MigrationTests: 0.x (toony 0.9, shift 0) → (0.95, −0.05); (0, 0) → (0.5, −0.5).
        let (shift, toony) = shading_0x(-0.05, 0.95);
        assert!(
            shift.abs() < 1e-9 && (toony - 0.9).abs() < 1e-9,
            "{shift} {toony}"
        );
        let (shift, toony) = shading_0x(-0.5, 0.5);
        assert!(shift.abs() < 1e-9 && toony.abs() < 1e-9, "{shift} {toony}");
    }
}
