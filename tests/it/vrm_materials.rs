//! VRM 0.x → 1.0 materials, judged by what three-vrm builds (`three-vrm-oracle --materials`):
//! the 0.x file as three-vrm converts it at load time against our migrated 1.0 file, field by
//! field. Where three-vrm's 0.x conversion and UniVRM's migration (which we follow,
//! `docs/research/vrm.md` §10) differ, the expected value is derived from three-vrm's here and
//! the difference is named:
//! - colours: three-vrm decodes 0.x sRGB colours by a 2.2 power, UniVRM by the sRGB curve;
//! - `_EmissionColor`: three-vrm decodes it as sRGB too, UniVRM takes it as linear (and HDR:
//!   UniVRM's own `EmissionMigration` test model has a 0.5 and a 2.0 emission);
//! - screen-space outline width: three-vrm ×0.01, UniVRM ×0.005;
//! - rim lighting mix: three-vrm copies it, UniVRM sets 1;
//! - UV rotation speed: three-vrm copies 0.x's turns per second as radians, UniVRM ×2π;
//! - shade texture: three-vrm leaves a missing one empty, UniVRM uses the main texture;
//! - matcap factor: three-vrm [1, 1, 1] with no matcap texture, UniVRM [0, 0, 0] (it draws
//!   nothing either way).

use serde_json::Value;

use crate::util::{humanoid_ok, khronos_validate, s, shared, temp_dir, three_vrm};

const TOLERANCE: f64 = 1e-6;

fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn floats(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().map(|x| x.as_f64().unwrap()).collect(),
        Value::Number(n) => vec![n.as_f64().unwrap()],
        other => panic!("not a number: {other}"),
    }
}

#[track_caller]
fn close(ours: &[f64], expected: &[f64], what: &str) {
    assert_eq!(ours.len(), expected.len(), "{what}");
    for (a, b) in ours.iter().zip(expected) {
        assert!(
            (a - b).abs() <= TOLERANCE,
            "{what}: {ours:?} vs {expected:?}"
        );
    }
}

/// Compares one material as three-vrm built it from the 0.x file (`v0`) and from our 1.0
/// file (`v1`).
fn compare(v0: &Value, v1: &Value, what: &str) {
    assert_eq!(v0["name"], v1["name"], "{what}");
    assert_eq!(v0["isMToon"], v1["isMToon"], "{what}");
    for key in [
        "isOutline",
        "transparent",
        "depthWrite",
        "side",
        "renderOrder",
        "transparentWithZWrite",
        "outlineWidthMode",
        "vertexColors",
    ] {
        assert_eq!(v0[key], v1[key], "{what} {key}");
    }
    if v0["isMToon"] != true {
        return;
    }
    for key in [
        "alphaTest",
        "opacity",
        "color",
        "shadingShiftFactor",
        "shadingShiftTextureScale",
        "shadingToonyFactor",
        "giEqualizationFactor",
        "parametricRimFresnelPowerFactor",
        "parametricRimLiftFactor",
        "outlineLightingMixFactor",
        "uvAnimationScrollXSpeedFactor",
        "uvAnimationScrollYSpeedFactor",
        "uvAnimationRotationSpeedFactor",
        "normalScale",
    ] {
        close(
            &floats(&v1[key]),
            &floats(&v0[key]),
            &format!("{what} {key}"),
        );
    }
    // 0.x colours: three-vrm's c^2.2 undone, then the sRGB curve.
    for key in [
        "shadeColorFactor",
        "parametricRimColorFactor",
        "outlineColorFactor",
    ] {
        let expected: Vec<f64> = floats(&v0[key])
            .iter()
            .map(|c| srgb_to_linear(c.powf(1.0 / 2.2)))
            .collect();
        close(&floats(&v1[key]), &expected, &format!("{what} {key}"));
    }
    // Emission: linear in 0.x, so three-vrm's c^2.2 undone is the value (factor × strength).
    let emissive = |v: &Value| -> Vec<f64> {
        let intensity = v["emissiveIntensity"].as_f64().unwrap_or(1.0);
        floats(&v["emissive"])
            .iter()
            .map(|c| c * intensity)
            .collect()
    };
    let expected: Vec<f64> = emissive(v0).iter().map(|c| c.powf(1.0 / 2.2)).collect();
    close(&emissive(v1), &expected, &format!("{what} emission"));
    let width = floats(&v0["outlineWidthFactor"])[0];
    let expected = if v0["outlineWidthMode"] == "screenCoordinates" {
        width * 0.5
    } else {
        width
    };
    close(
        &floats(&v1["outlineWidthFactor"]),
        &[expected],
        &format!("{what} outline width"),
    );
    assert_eq!(v1["rimLightingMixFactor"], 1.0, "{what}");
    let matcap = if v0["matcapTexture"].is_null() {
        vec![0.0; 3]
    } else {
        floats(&v0["matcapFactor"])
    };
    close(
        &floats(&v1["matcapFactor"]),
        &matcap,
        &format!("{what} matcap"),
    );
    for slot in [
        "map",
        "shadeMultiplyTexture",
        "shadingShiftTexture",
        "normalMap",
        "emissiveMap",
        "matcapTexture",
        "rimMultiplyTexture",
        "outlineWidthMultiplyTexture",
        "uvAnimationMaskTexture",
    ] {
        let expected = if slot == "shadeMultiplyTexture" && v0[slot].is_null() {
            &v0["map"]
        } else {
            &v0[slot]
        };
        let ours = &v1[slot];
        assert_eq!(ours.is_null(), expected.is_null(), "{what} {slot}");
        if ours.is_null() {
            continue;
        }
        assert_eq!(ours["texture"], expected["texture"], "{what} {slot}");
        for key in ["offset", "repeat", "rotation"] {
            close(
                &floats(&ours[key]),
                &floats(&expected[key]),
                &format!("{what} {slot} {key}"),
            );
        }
    }
}

#[test]
fn mtoon_0x_migrates_to_what_three_vrm_builds_from_the_0x_file() {
    let dir = temp_dir();
    for name in ["Godette_vrm_v4.vrm", "EmissionMigration_v0.106.0.vrm"] {
        let input = shared().join("corpus/vrm").join(name);
        let output = dir.path().join(name);
        humanoid_ok(&["convert", "--to", "vrm1", s(&input), s(&output)]);
        let (errors, _, messages) = khronos_validate(&output);
        assert_eq!(errors, 0, "{name}: {messages:?}");
        let v0 = three_vrm(&["--vrm", s(&input), "--materials"]).unwrap();
        let v1 = three_vrm(&["--vrm", s(&output), "--materials"]).unwrap();
        assert_eq!(v1["vrm"]["metaVersion"], "1", "{name}");
        let (m0, m1) = (
            v0["materials"].as_array().unwrap(),
            v1["materials"].as_array().unwrap(),
        );
        assert_eq!(m0.len(), m1.len(), "{name}: material count");
        let mtoon = m1.iter().filter(|m| m["isMToon"] == true).count();
        assert!(mtoon >= 2, "{name}: {mtoon} MToon materials in three-vrm");
        for (a, b) in m0.iter().zip(m1) {
            compare(a, b, &format!("{name} {}", a["name"]));
        }
    }
}

#[test]
fn the_model_holds_the_toon_parameters_three_vrm_draws_and_h_anim_says_it_drops_them() {
    let dir = temp_dir();
    let input = shared().join("corpus/vrm/Godette_vrm_v4.vrm");
    let vrm1 = dir.path().join("godette.vrm");
    humanoid_ok(&["convert", "--to", "vrm1", s(&input), s(&vrm1)]);
    let oracle = three_vrm(&["--vrm", s(&vrm1), "--materials"]).unwrap();
    let options = humanoid::ReadOptions {
        meshes: humanoid::ops::read::MeshDetail::Bind,
        ..humanoid::ReadOptions::default()
    };
    let character = humanoid::read(&vrm1, &options).unwrap().character;
    let mut checked = 0;
    for built in oracle["materials"].as_array().unwrap() {
        if built["isMToon"] != true || built["isOutline"] == true {
            continue;
        }
        let name = built["name"].as_str().unwrap();
        let material = character
            .meshes
            .iter()
            .filter_map(|m| m.material.as_ref())
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("{name}: no such material in the model"));
        let toon = material.toon.as_ref().expect("toon parameters");
        let f32s = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
        let what = format!("{name} shade");
        close(
            &f32s(&toon.shade_color),
            &floats(&built["shadeColorFactor"]),
            &what,
        );
        let what = format!("{name} shift");
        let shift = f64::from(toon.shading_shift);
        assert!(
            (shift - floats(&built["shadingShiftFactor"])[0]).abs() < 1e-6,
            "{what}"
        );
        let rim = f64::from(toon.rim_fresnel_power);
        let expected = floats(&built["parametricRimFresnelPowerFactor"])[0];
        assert!((rim - expected).abs() < 1e-6, "{name} rim");
        match toon.outline {
            humanoid::model::mesh::Outline::Screen { width, .. } => {
                assert_eq!(built["outlineWidthMode"], "screenCoordinates");
                let expected = floats(&built["outlineWidthFactor"])[0];
                assert!((f64::from(width) - expected).abs() < 1e-6, "{name} outline");
            }
            other => assert_ne!(built["outlineWidthMode"], "screenCoordinates", "{other:?}"),
        }
        checked += 1;
    }
    assert!(checked >= 2, "{checked} MToon materials checked");
    // H-Anim draws no toon shading: said, naming the materials.
    let x3d = dir.path().join("godette.x3d");
    let run = humanoid_ok(&["convert", s(&vrm1), s(&x3d)]);
    assert!(
        run.stdout.contains("MATERIAL_TOON_DROPPED") && run.stdout.contains("\"Face\""),
        "{}",
        run.stdout
    );
}

/// `VRMC_materials_mtoon` of each material of a VRM file (null where it has none).
fn mtoon_of(path: &std::path::Path) -> Vec<Value> {
    let (json, _) = crate::util::glb_parts(path);
    json["materials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["extensions"]["VRMC_materials_mtoon"].clone())
        .collect()
}

#[test]
fn mtoon_1_0_downgrades_to_0x_and_back_with_every_field_0x_holds() {
    let dir = temp_dir();
    let input = shared().join("corpus/vrm/VRMC_materials_mtoon_UV_Animation_Test.vrm");
    let vrm0 = dir.path().join("down.vrm");
    let back = dir.path().join("back.vrm");
    let run = humanoid_ok(&["convert", "--to", "vrm0", s(&input), s(&vrm0)]);
    assert!(
        run.stdout.contains("DOWNGRADE_MATERIALS_MTOON"),
        "{}",
        run.stdout
    );
    humanoid_ok(&["convert", "--to", "vrm1", s(&vrm0), s(&back)]);
    let (before, after) = (mtoon_of(&input), mtoon_of(&back));
    assert_eq!(before.len(), after.len());
    let mut compared = 0;
    for (i, (a, b)) in before.iter().zip(&after).enumerate() {
        assert_eq!(a.is_null(), b.is_null(), "material {i}");
        let Some(a) = a.as_object() else { continue };
        for (key, value) in a {
            let what = format!("material {i} {key}");
            match key.as_str() {
                // Reported by the downgrade (DOWNGRADE_MTOON_LOST) or set by UniVRM's migration.
                "shadingShiftTexture" | "extensions" | "extras" => continue,
                "rimLightingMixFactor" => assert_eq!(b[key], 1.0, "{what}"),
                "matcapFactor" if a.get("matcapTexture").is_none() => {}
                _ if value.is_number() || value.is_array() && value[0].is_number() => {
                    close(&floats(&b[key]), &floats(value), &what);
                }
                _ if value.is_object() => {
                    // A texture info: the same texture (transforms: the main texture's).
                    assert_eq!(b[key]["index"], value["index"], "{what}");
                }
                _ => assert_eq!(&b[key], value, "{what}"),
            }
            compared += 1;
        }
    }
    assert!(compared >= 10, "{compared} fields compared");
    // three-vrm loads the 0.x file: its 0.x decoding (2.2 power, screen width ×0.01, rim mix
    // copied) applied to what we wrote gives back the 1.0 file's values.
    let one = three_vrm(&["--vrm", s(&input), "--materials"]).unwrap();
    let zero = three_vrm(&["--vrm", s(&vrm0), "--materials"]).unwrap();
    assert_eq!(zero["vrm"]["metaVersion"], "0");
    let (m1, m0) = (
        one["materials"].as_array().unwrap(),
        zero["materials"].as_array().unwrap(),
    );
    assert_eq!(m1.len(), m0.len());
    let srgb = |c: f64| {
        if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        }
    };
    for (a, b) in m1.iter().zip(m0) {
        let what = format!("{}", a["name"]);
        assert_eq!(a["isMToon"], b["isMToon"], "{what}");
        if a["isMToon"] != true {
            continue;
        }
        for key in [
            "shadeColorFactor",
            "parametricRimColorFactor",
            "outlineColorFactor",
        ] {
            let expected: Vec<f64> = floats(&a[key]).iter().map(|&c| srgb(c).powf(2.2)).collect();
            close(&floats(&b[key]), &expected, &format!("{what} {key}"));
        }
        for key in [
            "shadingShiftFactor",
            "shadingToonyFactor",
            "giEqualizationFactor",
            "rimLightingMixFactor",
            "parametricRimFresnelPowerFactor",
            "parametricRimLiftFactor",
            "uvAnimationScrollXSpeedFactor",
            "uvAnimationScrollYSpeedFactor",
            "alphaTest",
        ] {
            close(&floats(&b[key]), &floats(&a[key]), &format!("{what} {key}"));
        }
        let radians = floats(&a["uvAnimationRotationSpeedFactor"])[0];
        close(
            &floats(&b["uvAnimationRotationSpeedFactor"]),
            &[radians / std::f64::consts::TAU],
            &format!("{what} UV rotation (three-vrm reads 0.x turns as radians)"),
        );
        for key in [
            "outlineWidthMode",
            "transparent",
            "depthWrite",
            "side",
            "isOutline",
        ] {
            assert_eq!(a[key], b[key], "{what} {key}");
        }
        let width = floats(&a["outlineWidthFactor"])[0];
        let expected = if a["outlineWidthMode"] == "screenCoordinates" {
            width * 2.0
        } else {
            width
        };
        close(
            &floats(&b["outlineWidthFactor"]),
            &[expected],
            &format!("{what} outline"),
        );
        for slot in [
            "map",
            "shadeMultiplyTexture",
            "uvAnimationMaskTexture",
            "rimMultiplyTexture",
        ] {
            assert_eq!(a[slot]["texture"], b[slot]["texture"], "{what} {slot}");
        }
    }
}
