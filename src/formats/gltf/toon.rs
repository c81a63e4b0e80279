//! A material's `VRMC_materials_mtoon` (MToon 1.0) into the model's [`Toon`]: the shade,
//! shading, GI, rim and outline factors and the shade texture. The extension is a material
//! extension any glTF may carry; VRM files are where it is found. Only `specVersion` "1.0"
//! (and "1.0-beta", which three-vrm also reads) is read: other versions are not MToon 1.0.

use serde_json::Value;

use crate::math::num::to_f32;
use crate::model::mesh::{Image, Outline, Toon};

/// The extension's name.
pub const NAME: &str = "VRMC_materials_mtoon";

/// The toon parameters of a material's JSON, or `None` when it has no MToon 1.0 extension.
/// `texture_image` gives the image of a texture info (for the shade texture).
///
/// ```
/// use humanoid::formats::gltf::toon::toon_of;
/// let material = serde_json::json!({"extensions": {"VRMC_materials_mtoon": {
///     "specVersion": "1.0", "shadingShiftFactor": -0.05 }}});
/// let toon = toon_of(&material, |_| None).unwrap();
/// assert_eq!(toon.shading_shift, -0.05);
/// ```
pub fn toon_of(
    material: &Value,
    texture_image: impl FnOnce(&Value) -> Option<Image>,
) -> Option<Toon> {
    let mtoon = material.get("extensions")?.get(NAME)?;
    let version = mtoon.get("specVersion").and_then(Value::as_str);
    if !matches!(version, Some("1.0" | "1.0-beta")) {
        return None;
    }
    let defaults = Toon::default();
    let number = |key: &str, default: f32| {
        mtoon
            .get(key)
            .and_then(Value::as_f64)
            .filter(|v| v.is_finite())
            .map_or(default, to_f32)
    };
    let color = |key: &str, default: [f32; 3]| {
        let mut out = default;
        if let Some(values) = mtoon.get(key).and_then(Value::as_array) {
            for (slot, v) in out.iter_mut().zip(values) {
                if let Some(v) = v.as_f64().filter(|v| v.is_finite()) {
                    *slot = to_f32(v);
                }
            }
        }
        out
    };
    let width = number("outlineWidthFactor", 0.0);
    let outline_color = color("outlineColorFactor", [0.0; 3]);
    let lighting_mix = number("outlineLightingMixFactor", 1.0);
    let outline = match mtoon.get("outlineWidthMode").and_then(Value::as_str) {
        Some("worldCoordinates") => Outline::World {
            width,
            color: outline_color,
            lighting_mix,
        },
        Some("screenCoordinates") => Outline::Screen {
            width,
            color: outline_color,
            lighting_mix,
        },
        _ => Outline::None,
    };
    Some(Toon {
        shade_color: color("shadeColorFactor", defaults.shade_color),
        shade_texture: mtoon.get("shadeMultiplyTexture").and_then(texture_image),
        shading_shift: number("shadingShiftFactor", defaults.shading_shift),
        shading_toony: number("shadingToonyFactor", defaults.shading_toony),
        gi_equalization: number("giEqualizationFactor", defaults.gi_equalization),
        rim_color: color("parametricRimColorFactor", defaults.rim_color),
        rim_fresnel_power: number(
            "parametricRimFresnelPowerFactor",
            defaults.rim_fresnel_power,
        ),
        rim_lift: number("parametricRimLiftFactor", defaults.rim_lift),
        rim_lighting_mix: number("rimLightingMixFactor", defaults.rim_lighting_mix),
        outline,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn factors_and_outline_are_read_and_other_versions_are_not_mtoon() {
        let material = json!({"extensions": {"VRMC_materials_mtoon": {
            "specVersion": "1.0", "shadeColorFactor": [0.1, 0.2, 0.3], "shadingToonyFactor": 0.5,
            "outlineWidthMode": "screenCoordinates", "outlineWidthFactor": 0.01,
            "outlineColorFactor": [1, 0, 0], "shadeMultiplyTexture": {"index": 2}
        }}});
        let mut asked = None;
        let toon = toon_of(&material, |info| {
            asked = info.get("index").cloned();
            None
        })
        .unwrap();
        assert_eq!(asked, Some(json!(2)));
        assert_eq!(toon.shade_color, [0.1, 0.2, 0.3]);
        assert_eq!(toon.shading_toony, 0.5);
        assert_eq!(toon.gi_equalization, 0.9); // the extension's default
        assert_eq!(
            toon.outline,
            Outline::Screen {
                width: 0.01,
                color: [1.0, 0.0, 0.0],
                lighting_mix: 1.0
            }
        );
        let old = json!({"extensions": {"VRMC_materials_mtoon": {"specVersion": "0.9"}}});
        assert!(toon_of(&old, |_| None).is_none());
        assert!(toon_of(&json!({}), |_| None).is_none());
    }
}
