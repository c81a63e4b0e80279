//! `materialProperties`: the 0.x Unity shader parameters of each material, migrated as UniVRM's
//! `MigrationMToon` / `MToon10Migrator` do (`docs/research/vrm.md` §10).
//!
//! - `VRM/MToon` becomes a `VRMC_materials_mtoon` 1.0 material: render mode and cutoff, culling,
//!   colours (0.x `_Color`, `_ShadeColor`, `_RimColor`, `_OutlineColor` are sRGB, 1.0 factors
//!   linear: the sRGB transfer curve; `_EmissionColor` is linear already), textures with the main
//!   texture's `KHR_texture_transform`, shading shift and toony, GI equalisation, rim, outline
//!   mode, width (world ×0.01: centimetres to metres; screen ×0.005), colour and lighting mix,
//!   UV animation (scroll Y negated: Unity's V points up; rotation turns to radians), the
//!   render-queue offset, and `KHR_materials_unlit` as the fallback for readers without MToon.
//! - The legacy unlit shaders (`VRM/UnlitTexture`, `UnlitCutout`, `UnlitTransparent`,
//!   `UnlitTransparentZWrite`) become `KHR_materials_unlit` materials with the alpha mode of
//!   the shader.
//! - UniVRM's destructive choices are diagnostics naming the material: a missing shade texture
//!   falls back to the main texture (`MIGRATE_MTOON_SHADE_TEXTURE`), the rim lighting mix is set
//!   to 1 (`MIGRATE_MTOON_RIM_MIX`), a transparent unlit material that wrote depth no longer
//!   does (`MIGRATE_UNLIT_ZWRITE`).
//! - Any other shader (`VRM_USE_GLTFSHADER` aside, which means the glTF material as it is)
//!   is dropped and reported (`MIGRATE_MATERIALS_DROPPED`): the material renders as its plain
//!   glTF material.
//!
//! The 0.x `materialProperties[i]` belongs to glTF `materials[i]`, as UniVRM and three-vrm read it.

use std::f64::consts::TAU;

use serde_json::{json, Map, Value};

use super::vrm0::{self, at, BASE};
use crate::error::Diagnostics;
use crate::formats::gltf::json::Root;
use crate::math::color::srgb_to_linear;

/// The 0.x shader name that means "use the glTF material as it is".
const GLTF_SHADER: &str = "VRM_USE_GLTFSHADER";
/// The 1.0 MToon material extension.
pub(crate) const MTOON: &str = "VRMC_materials_mtoon";
/// The unlit material extension (MToon's fallback, and the legacy unlit shaders').
const UNLIT: &str = "KHR_materials_unlit";
/// Emission brighter than glTF's factor allows.
const EMISSIVE_STRENGTH: &str = "KHR_materials_emissive_strength";
/// Texture coordinate transforms.
const TEXTURE_TRANSFORM: &str = "KHR_texture_transform";

/// Migrates every material's 0.x shader parameters into `root`'s materials (see the module
/// docs), adding the extensions used to `extensionsUsed`.
pub(super) fn migrate(vrm: &Map<String, Value>, root: &mut Root, diagnostics: &mut Diagnostics) {
    let here = at(BASE, "materialProperties");
    let properties = vrm0::array(vrm, "materialProperties");
    let mut dropped = Vec::new();
    let mut migrated = Vec::new();
    let mut used = Vec::new();
    let material_count = root.other_len("materials");
    for (i, property) in properties.iter().enumerate() {
        let Some(property) = property.as_object() else {
            continue;
        };
        let shader = vrm0::string(property, "shader").unwrap_or_default();
        let name = vrm0::string(property, "name").unwrap_or_default();
        let label = format!("{i} {name:?}");
        if shader == GLTF_SHADER {
            continue;
        }
        let material = match root
            .other
            .get_mut("materials")
            .and_then(Value::as_array_mut)
            .and_then(|m| m.get_mut(i))
            .and_then(Value::as_object_mut)
        {
            Some(material) if i < material_count => material,
            _ => {
                dropped.push(format!("{label} ({shader}: no glTF material {i})"));
                continue;
            }
        };
        let params = Params::of(property);
        let pointer = at(&here, i.to_string());
        match shader {
            "VRM/MToon" => {
                mtoon(material, &params, &label, &pointer, diagnostics, &mut used);
                migrated.push(label);
            }
            "VRM/UnlitTexture"
            | "VRM/UnlitCutout"
            | "VRM/UnlitTransparent"
            | "VRM/UnlitTransparentZWrite" => {
                unlit(
                    material,
                    shader,
                    &params,
                    &label,
                    &pointer,
                    diagnostics,
                    &mut used,
                );
                migrated.push(label);
            }
            other => dropped.push(format!("{label} ({other})")),
        }
    }
    for name in used {
        if !root.extensions_used.iter().any(|u| u == name) {
            root.extensions_used.push(name.to_owned());
        }
    }
    if !migrated.is_empty() {
        diagnostics.info(
            "MIGRATE_MTOON",
            here.clone(),
            format!(
                "{} material(s) migrated from their VRM 0.x shader as UniVRM migrates them (VRMC_materials_mtoon, or KHR_materials_unlit for the legacy unlit shaders): {}",
                migrated.len(),
                vrm0::short_list(&migrated, 20)
            ),
        );
    }
    if !dropped.is_empty() {
        diagnostics.warn(
            "MIGRATE_MATERIALS_DROPPED",
            here,
            format!(
                "the VRM 0.x shader parameters of {} material(s) have no VRM 1.0 equivalent and were not migrated; they render as their plain glTF material: {}",
                dropped.len(),
                vrm0::short_list(&dropped, 20)
            ),
        );
    }
}

/// A 0.x material's `floatProperties`, `vectorProperties`, `textureProperties` and
/// `renderQueue`.
struct Params<'a> {
    floats: Option<&'a Map<String, Value>>,
    vectors: Option<&'a Map<String, Value>>,
    textures: Option<&'a Map<String, Value>>,
    render_queue: Option<f64>,
}

impl<'a> Params<'a> {
    fn of(property: &'a Map<String, Value>) -> Params<'a> {
        let map = |key| property.get(key).and_then(Value::as_object);
        Params {
            floats: map("floatProperties"),
            vectors: map("vectorProperties"),
            textures: map("textureProperties"),
            render_queue: vrm0::number(property, "renderQueue"),
        }
    }

    fn float(&self, key: &str, default: f64) -> f64 {
        self.floats
            .and_then(|f| vrm0::number(f, key))
            .filter(|v| v.is_finite())
            .unwrap_or(default)
    }

    fn vector(&self, key: &str) -> Option<[f64; 4]> {
        let values = self.vectors?.get(key)?.as_array()?;
        let mut out = [0.0; 4];
        for (slot, value) in out.iter_mut().zip(values) {
            *slot = value.as_f64().filter(|v| v.is_finite())?;
        }
        (values.len() >= 3).then_some(out)
    }

    fn texture(&self, key: &str) -> Option<usize> {
        self.textures?.get(key).and_then(vrm0::index)
    }
}

fn linear3(c: [f64; 4]) -> Value {
    json!([
        srgb_to_linear(c[0]),
        srgb_to_linear(c[1]),
        srgb_to_linear(c[2])
    ])
}

/// UniVRM's `MToon10Migrator`: the 0.x shading range `[min, max]` (min = `_ShadeShift`, max =
/// lerp(1, `_ShadeShift`, `_ShadeToony`)) as 1.0's shift (its centre, negated) and toony (its
/// margin), both clamped.
fn shading(toony: f64, shift: f64) -> (f64, f64) {
    let (min, max) = (shift, 1.0 + (shift - 1.0) * toony);
    (
        (-(min + max) / 2.0).clamp(-1.0, 1.0),
        ((2.0 - (max - min)) / 2.0).clamp(0.0, 1.0),
    )
}

/// A texture info for `index`, with the main texture's transform when it is not the identity.
fn texture_info(index: usize, transform: Option<&Value>, used: &mut Vec<&'static str>) -> Value {
    let mut info = json!({ "index": index });
    if let Some(transform) = transform {
        info["extensions"] = json!({ TEXTURE_TRANSFORM: transform });
        used.push(TEXTURE_TRANSFORM);
    }
    info
}

/// `_MainTex`'s Unity scale and offset (`[offsetX, offsetY, scaleX, scaleY]`) as a
/// `KHR_texture_transform` (glTF's V points down: offset Y = 1 − offsetY − scaleY), or `None`
/// for the identity.
fn main_transform(params: &Params<'_>) -> Option<Value> {
    let [ox, oy, sx, sy] = params.vector("_MainTex")?;
    let offset = [ox, 1.0 - oy - sy];
    let identity = ox == 0.0 && oy == 0.0 && sx == 1.0 && sy == 1.0;
    (!identity).then(|| json!({ "offset": offset, "scale": [sx, sy] }))
}

/// The alpha mode, cutoff and depth writing of a 0.x `_BlendMode`.
fn alpha(material: &mut Map<String, Value>, blend_mode: f64, cutoff: f64) -> bool {
    match choice(blend_mode) {
        1 => {
            material.insert("alphaMode".into(), json!("MASK"));
            material.insert("alphaCutoff".into(), json!(cutoff));
            false
        }
        2 => {
            material.insert("alphaMode".into(), json!("BLEND"));
            material.remove("alphaCutoff");
            false
        }
        3 => {
            material.insert("alphaMode".into(), json!("BLEND"));
            material.remove("alphaCutoff");
            true
        }
        _ => {
            material.insert("alphaMode".into(), json!("OPAQUE"));
            material.remove("alphaCutoff");
            false
        }
    }
}

/// Sets `name` in the material's `extensions` (made an object when it is missing or not one).
fn set_extension(material: &mut Map<String, Value>, name: &str, value: Value) {
    let slot = material.entry("extensions").or_insert_with(|| json!({}));
    if !slot.is_object() {
        *slot = json!({});
    }
    if let Some(extensions) = slot.as_object_mut() {
        extensions.insert(name.to_owned(), value);
    }
}

/// A 0.x enum stored as a float (`_BlendMode`, `_CullMode`, ...): its nearest whole value,
/// 0 to 3.
fn choice(value: f64) -> u8 {
    match value {
        v if v < 0.5 => 0,
        v if v < 1.5 => 1,
        v if v < 2.5 => 2,
        _ => 3,
    }
}

/// The base colour (linear `_Color`) and texture (`_MainTex`, with its transform).
fn base_color(
    material: &mut Map<String, Value>,
    params: &Params<'_>,
    transform: Option<&Value>,
    used: &mut Vec<&'static str>,
) {
    let color = params.vector("_Color");
    let main = params.texture("_MainTex");
    if color.is_none() && main.is_none() {
        return;
    }
    let pbr = material
        .entry("pbrMetallicRoughness")
        .or_insert_with(|| json!({}));
    if !pbr.is_object() {
        *pbr = json!({});
    }
    if let Some(color) = color {
        pbr["baseColorFactor"] = json!([
            srgb_to_linear(color[0]),
            srgb_to_linear(color[1]),
            srgb_to_linear(color[2]),
            color[3]
        ]);
    }
    if let Some(main) = main {
        pbr["baseColorTexture"] = texture_info(main, transform, used);
    }
}

fn mtoon(
    material: &mut Map<String, Value>,
    params: &Params<'_>,
    label: &str,
    pointer: &str,
    diagnostics: &mut Diagnostics,
    used: &mut Vec<&'static str>,
) {
    let transform = main_transform(params);
    let transform = transform.as_ref();
    let blend_mode = params.float("_BlendMode", 0.0);
    let z_write = alpha(material, blend_mode, params.float("_Cutoff", 0.5));
    let transparent = choice(blend_mode) >= 2;
    // _CullMode: 0 Off, 1 Front, 2 Back; only Back is single-sided.
    material.insert(
        "doubleSided".into(),
        json!(choice(params.float("_CullMode", 2.0)) != 2),
    );
    base_color(material, params, transform, used);
    if let Some(emission) = params.vector("_EmissionColor") {
        // Linear already, and may be HDR: glTF's factor stops at 1, the rest is the strength
        // (KHR_materials_emissive_strength), as UniVRM 0.106's migration writes it.
        let rgb = [emission[0], emission[1], emission[2]].map(|c| c.max(0.0));
        let strength = rgb.into_iter().fold(0.0, f64::max);
        if strength > 1.0 {
            material.insert("emissiveFactor".into(), json!(rgb.map(|c| c / strength)));
            set_extension(
                material,
                EMISSIVE_STRENGTH,
                json!({ "emissiveStrength": strength }),
            );
            used.push(EMISSIVE_STRENGTH);
        } else {
            material.insert("emissiveFactor".into(), json!(rgb));
        }
    }
    if let Some(map) = params.texture("_EmissionMap") {
        material.insert("emissiveTexture".into(), texture_info(map, transform, used));
    }
    if let Some(bump) = params.texture("_BumpMap") {
        let mut info = texture_info(bump, transform, used);
        info["scale"] = json!(params.float("_BumpScale", 1.0));
        material.insert("normalTexture".into(), info);
    }
    let (shift, toony) = shading(
        params.float("_ShadeToony", 0.9),
        params.float("_ShadeShift", 0.0),
    );
    let queue_offset = render_queue_offset(params.render_queue, transparent, z_write);
    let mut ext = json!({
        "specVersion": "1.0",
        "transparentWithZWrite": z_write,
        "renderQueueOffsetNumber": queue_offset,
        "shadeColorFactor": linear3(params.vector("_ShadeColor").unwrap_or([0.97, 0.81, 0.86, 1.0])),
        "shadingShiftFactor": shift,
        "shadingToonyFactor": toony,
        "giEqualizationFactor": 1.0 - params.float("_IndirectLightIntensity", 0.1),
        "parametricRimColorFactor": linear3(params.vector("_RimColor").unwrap_or([0.0; 4])),
        "rimLightingMixFactor": 1.0,
        "parametricRimFresnelPowerFactor": params.float("_RimFresnelPower", 1.0),
        "parametricRimLiftFactor": params.float("_RimLift", 0.0),
        "outlineColorFactor": linear3(params.vector("_OutlineColor").unwrap_or([0.0, 0.0, 0.0, 1.0])),
        "uvAnimationScrollXSpeedFactor": params.float("_UvAnimScrollX", 0.0),
        // 0 − y, not −y: no negative zero in the JSON.
        "uvAnimationScrollYSpeedFactor": 0.0 - params.float("_UvAnimScrollY", 0.0),
        "uvAnimationRotationSpeedFactor": params.float("_UvAnimRotation", 0.0) * TAU,
    });
    if let Some(shade) = params
        .texture("_ShadeTexture")
        .or_else(|| params.texture("_MainTex"))
    {
        if params.texture("_ShadeTexture").is_none() {
            diagnostics.info(
                    "MIGRATE_MTOON_SHADE_TEXTURE",
                    pointer.to_owned(),
                    format!("material {label}: it has no _ShadeTexture, so the main texture is the shade multiply texture (as UniVRM migrates it; the shaded side keeps the texture's pattern)"),
                );
        }
        ext["shadeMultiplyTexture"] = texture_info(shade, transform, used);
    }
    match params.texture("_SphereAdd") {
        Some(matcap) => {
            ext["matcapFactor"] = json!([1.0, 1.0, 1.0]);
            ext["matcapTexture"] = json!({ "index": matcap });
        }
        None => ext["matcapFactor"] = json!([0.0, 0.0, 0.0]),
    }
    if let Some(rim) = params.texture("_RimTexture") {
        ext["rimMultiplyTexture"] = texture_info(rim, transform, used);
    }
    let rim_mix = params.float("_RimLightingMix", 0.0);
    if (rim_mix - 1.0).abs() > 1e-6 {
        diagnostics.info(
            "MIGRATE_MTOON_RIM_MIX",
            pointer.to_owned(),
            format!("material {label}: _RimLightingMix {rim_mix} became rimLightingMixFactor 1, as UniVRM migrates it (three-vrm keeps {rim_mix}): the rim now follows the light fully"),
        );
    }
    let (mode, width) = match choice(params.float("_OutlineWidthMode", 0.0)) {
        1 => (
            "worldCoordinates",
            params.float("_OutlineWidth", 0.5) * 0.01,
        ),
        2 => (
            "screenCoordinates",
            params.float("_OutlineWidth", 0.5) * 0.005,
        ),
        // No outline drawn; the width is kept in world units, as UniVRM keeps it.
        _ => ("none", params.float("_OutlineWidth", 0.5) * 0.01),
    };
    ext["outlineWidthMode"] = json!(mode);
    ext["outlineWidthFactor"] = json!(width);
    if let Some(texture) = params.texture("_OutlineWidthTexture") {
        ext["outlineWidthMultiplyTexture"] = texture_info(texture, transform, used);
    }
    // _OutlineColorMode: 0 FixedColor, 1 MixedLighting.
    ext["outlineLightingMixFactor"] =
        json!(if choice(params.float("_OutlineColorMode", 0.0)) == 1 {
            params.float("_OutlineLightingMix", 1.0)
        } else {
            0.0
        });
    if let Some(mask) = params.texture("_UvAnimMaskTexture") {
        ext["uvAnimationMaskTexture"] = texture_info(mask, transform, used);
    }
    set_extension(material, MTOON, ext);
    set_extension(material, UNLIT, json!({}));
    used.push(MTOON);
    used.push(UNLIT);
}

/// UniVRM's render-queue offset: the 0.x queue against its mode's base (Transparent 3000,
/// TransparentWithZWrite 2501), clamped to [-9, 0] and [0, 9]; 0 for opaque and cutout.
fn render_queue_offset(queue: Option<f64>, transparent: bool, z_write: bool) -> i32 {
    let Some(queue) = queue.filter(|q| q.is_finite()) else {
        return 0;
    };
    let offset = match (transparent, z_write) {
        (true, true) => (queue.round() - 2501.0).clamp(0.0, 9.0),
        (true, false) => (queue.round() - 3000.0).clamp(-9.0, 0.0),
        _ => 0.0,
    };
    crate::math::num::saturating_i32(offset)
}

fn unlit(
    material: &mut Map<String, Value>,
    shader: &str,
    params: &Params<'_>,
    label: &str,
    pointer: &str,
    diagnostics: &mut Diagnostics,
    used: &mut Vec<&'static str>,
) {
    let blend_mode = match shader {
        "VRM/UnlitCutout" => 1.0,
        "VRM/UnlitTransparent" => 2.0,
        "VRM/UnlitTransparentZWrite" => {
            diagnostics.info(
                "MIGRATE_UNLIT_ZWRITE",
                pointer.to_owned(),
                format!("material {label}: VRM/UnlitTransparentZWrite wrote depth; a KHR_materials_unlit BLEND material does not, so what lies behind it may sort differently"),
            );
            2.0
        }
        _ => 0.0,
    };
    alpha(material, blend_mode, params.float("_Cutoff", 0.5));
    let transform = main_transform(params);
    base_color(material, params, transform.as_ref(), used);
    set_extension(material, UNLIT, json!({}));
    used.push(UNLIT);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shading_matches_univrms_own_migration_tests() {
        // MToon10Migrator's tests (UniVRM MigrationTests.MigrateToonyAndShift).
        let close = |a: f64, b: f64| (a - b).abs() < 1e-3;
        let (shift, toony) = shading(0.9, 0.0); // the 0.x default
        assert!(close(toony, 0.95) && close(shift, -0.05), "{toony} {shift}");
        let (shift, toony) = shading(0.0, 0.0); // Lambert
        assert!(close(toony, 0.5) && close(shift, -0.5), "{toony} {shift}");
    }

    #[test]
    fn srgb_curve_endpoints_and_mid_grey() {
        assert_eq!(srgb_to_linear(0.0), 0.0);
        assert!((srgb_to_linear(1.0) - 1.0).abs() < 1e-12);
        // sRGB 0.5 is 21.4% linear (IEC 61966-2-1).
        assert!((srgb_to_linear(0.5) - 0.214_041).abs() < 1e-6);
    }

    /// Migrates `properties` onto as many plain glTF materials; returns them and the codes.
    fn run(properties: Value) -> (Vec<Value>, Vec<String>, Vec<String>) {
        let count = properties.as_array().unwrap().len();
        let materials: Vec<Value> = (0..count)
            .map(|i| json!({ "name": format!("m{i}") }))
            .collect();
        let mut root: Root = serde_json::from_value(json!({
            "asset": { "version": "2.0" },
            "materials": materials,
        }))
        .unwrap();
        let vrm = json!({ "materialProperties": properties });
        let mut diagnostics = Diagnostics::new();
        migrate(vrm.as_object().unwrap(), &mut root, &mut diagnostics);
        let codes = diagnostics.iter().map(|d| d.code.to_owned()).collect();
        let materials = root.other["materials"].as_array().unwrap().clone();
        (materials, codes, root.extensions_used.clone())
    }

    #[test]
    fn legacy_unlit_shaders_keep_their_alpha_mode() {
        let (m, codes, used) = run(json!([
            { "shader": "VRM/UnlitTexture", "textureProperties": { "_MainTex": 0 } },
            { "shader": "VRM/UnlitCutout", "floatProperties": { "_Cutoff": 0.25 } },
            { "shader": "VRM/UnlitTransparent" },
            { "shader": "VRM/UnlitTransparentZWrite" },
            { "shader": "Standard" },
            { "shader": "VRM_USE_GLTFSHADER" },
        ]));
        let modes: Vec<&Value> = m.iter().map(|m| &m["alphaMode"]).collect();
        assert_eq!(
            modes,
            [
                &json!("OPAQUE"),
                &json!("MASK"),
                &json!("BLEND"),
                &json!("BLEND"),
                &Value::Null,
                &Value::Null
            ]
        );
        assert_eq!(m[1]["alphaCutoff"], 0.25);
        assert_eq!(m[0]["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
        for material in &m[..4] {
            assert!(material["extensions"]["KHR_materials_unlit"].is_object());
            assert!(material["extensions"].get("VRMC_materials_mtoon").is_none());
        }
        // Standard has no 1.0 counterpart: reported; the glTF shader is the material as it is.
        assert_eq!(m[4], json!({ "name": "m4" }));
        assert_eq!(m[5], json!({ "name": "m5" }));
        for code in [
            "MIGRATE_UNLIT_ZWRITE",
            "MIGRATE_MATERIALS_DROPPED",
            "MIGRATE_MTOON",
        ] {
            assert!(codes.iter().any(|c| c == code), "{code}: {codes:?}");
        }
        assert_eq!(used, ["KHR_materials_unlit"]);
    }

    #[test]
    fn main_texture_transform_colour_space_and_hdr_emission() {
        let (m, codes, used) = run(json!([{
            "shader": "VRM/MToon",
            "floatProperties": { "_BlendMode": 3, "_CullMode": 0, "_OutlineWidthMode": 1, "_OutlineWidth": 0.2,
                                 "_OutlineColorMode": 1, "_OutlineLightingMix": 0.5, "_UvAnimScrollY": 0.25,
                                 "_UvAnimRotation": 0.5, "_RimLightingMix": 1 },
            "vectorProperties": { "_MainTex": [0.1, 0.2, 2, 4], "_Color": [0.5, 1, 0, 0.5],
                                  "_EmissionColor": [4, 2, 0, 1] },
            "textureProperties": { "_MainTex": 3, "_ShadeTexture": 4, "_BumpMap": 5 },
            "renderQueue": 2504,
        }]));
        let m = &m[0];
        let mtoon = &m["extensions"]["VRMC_materials_mtoon"];
        // Unity's (offset, scale) with V up: glTF offset y = 1 − 0.2 − 4.
        let transform = json!({ "offset": [0.1, 1.0 - 0.2 - 4.0], "scale": [2.0, 4.0] });
        assert_eq!(
            m["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]["KHR_texture_transform"],
            transform
        );
        assert_eq!(
            mtoon["shadeMultiplyTexture"]["extensions"]["KHR_texture_transform"],
            transform
        );
        assert_eq!(
            m["normalTexture"]["extensions"]["KHR_texture_transform"],
            transform
        );
        // sRGB 0.5 is linear 0.214; alpha stays.
        let base = &m["pbrMetallicRoughness"]["baseColorFactor"];
        assert!((base[0].as_f64().unwrap() - 0.214_041).abs() < 1e-6 && base[3] == 0.5);
        // Emission 4: factor 1 (and 0.5), strength 4.
        assert_eq!(m["emissiveFactor"], json!([1.0, 0.5, 0.0]));
        assert_eq!(
            m["extensions"]["KHR_materials_emissive_strength"]["emissiveStrength"],
            4.0
        );
        assert_eq!(m["alphaMode"], "BLEND");
        assert_eq!(m["doubleSided"], true);
        assert_eq!(mtoon["transparentWithZWrite"], true);
        assert_eq!(mtoon["renderQueueOffsetNumber"], 3);
        assert_eq!(mtoon["outlineWidthMode"], "worldCoordinates");
        assert!((mtoon["outlineWidthFactor"].as_f64().unwrap() - 0.002).abs() < 1e-12);
        assert_eq!(mtoon["outlineLightingMixFactor"], 0.5);
        assert_eq!(mtoon["uvAnimationScrollYSpeedFactor"], -0.25);
        assert!(
            (mtoon["uvAnimationRotationSpeedFactor"].as_f64().unwrap() - std::f64::consts::PI)
                .abs()
                < 1e-12
        );
        // A rim mix of 1 and a shade texture of its own: nothing destructive to report.
        assert!(!codes
            .iter()
            .any(|c| c == "MIGRATE_MTOON_RIM_MIX" || c == "MIGRATE_MTOON_SHADE_TEXTURE"));
        assert_eq!(
            used,
            [
                "KHR_texture_transform",
                "KHR_materials_emissive_strength",
                "VRMC_materials_mtoon",
                "KHR_materials_unlit"
            ]
        );
    }

    #[test]
    fn render_queue_offsets_are_clamped_per_mode() {
        assert_eq!(render_queue_offset(Some(2990.0), true, false), -9);
        assert_eq!(render_queue_offset(Some(3001.0), true, false), 0);
        assert_eq!(render_queue_offset(Some(2503.0), true, true), 2);
        assert_eq!(render_queue_offset(Some(2000.0), false, false), 0);
    }
}
