//! The shared corpus (`--features corpus`): a VRM, a glTF and an H-Anim file drawn and checked
//! against the CPU reference; an H-Anim displacer animated (a morph target) likewise;
//! CesiumMan's walk retargeted onto the mannequin, in step.

use std::path::{Path, PathBuf};

use glam::Vec2;
use humanoid::model::HumanBone;
use humanoid::preview::{preview, Character, Layers, LoadOptions, Panel, PreviewOptions, View};

use super::reference::Gltf;
use super::{check_silhouettes, gpu, mannequin, reference_mask, reference_mask_of, temp};

fn corpus(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(path)
}

fn times(path: &Path, n: usize) -> Vec<Option<f32>> {
    let character =
        Character::load(path, &Default::default(), &mut humanoid::Diagnostics::new()).unwrap();
    let duration = character.duration();
    (0..n)
        .map(|i| Some(duration * i as f32 / n as f32))
        .collect()
}

#[test]
fn a_vrm_matches_cpu_skinning() {
    let Some(mut painter) = gpu() else { return };
    let path = corpus("vrm/Godette_vrm_v4.vrm");
    check_silhouettes(&mut painter, &path, &path, &[None]);
}

#[test]
fn a_gltf_matches_cpu_skinning_at_ten_times() {
    let Some(mut painter) = gpu() else { return };
    let path = corpus("gltf/CesiumMan.glb");
    check_silhouettes(&mut painter, &path, &path, &times(&path, 10));
}

/// RobotExpressive's head has three morph targets (one mesh of three primitives, a `weights`
/// channel on its node in every clip, all zero): drawn as the reference draws it.
#[test]
fn a_gltf_with_morph_targets_matches_cpu_skinning() {
    let Some(mut painter) = gpu() else { return };
    let path = corpus("gltf/RobotExpressive.glb");
    let mut diagnostics = humanoid::Diagnostics::new();
    let character = Character::load(&path, &Default::default(), &mut diagnostics).unwrap();
    let targets: usize = character.meshes.iter().map(|m| m.morph_targets.len()).sum();
    assert_eq!(targets, 9, "three primitives of three targets");
    check_silhouettes(&mut painter, &path, &path, &times(&path, 4));
}

#[test]
fn an_hanim_skin_matches_cpu_skinning_of_its_glb() {
    let Some(mut painter) = gpu() else { return };
    let dir = temp();
    for name in ["JinLOA4.x3d", "JoeSkeletonSkinSiteSaluteWalk.x3d"] {
        let path = corpus(&format!("hanim/{name}"));
        // The reference skins the GLB the library writes from the same file (read back by the
        // gltf crate): the H-Anim skin as the reader understood it, skinned independently.
        let glb = dir.path().join(format!("{name}.glb"));
        humanoid::convert(&path, &glb, &Default::default()).unwrap();
        check_silhouettes(&mut painter, &path, &glb, &[None]);
    }
}

/// Joe's kick raises the top of his skull by an `HAnimDisplacer` (a morph target) whose
/// weight a ScalarInterpolator drives (1 at 0.85 and 0.94 of the 3.73 s cycle): drawn as its
/// GLB conversion is morphed and skinned by the reference, at times when the weight is 0, 0.4
/// and 1. Where it is 1, the displacer moves the silhouette (the reference without it differs),
/// so the check is not passed by the base shape.
#[test]
fn an_hanim_displacer_kick_matches_cpu_morphing_of_its_glb() {
    let Some(mut painter) = gpu() else { return };
    let dir = temp();
    let path = corpus("hanim/JoeSkinTexcoordDisplacerKick.x3d");
    let glb = dir.path().join("kick.glb");
    humanoid::convert(&path, &glb, &Default::default()).unwrap();
    let cycle = 3.73;
    let times: Vec<Option<f32>> = [0.0, 0.5, 0.7, 0.85, 0.94]
        .iter()
        .map(|f| Some(f * cycle))
        .chain([None])
        .collect();
    check_silhouettes(&mut painter, &path, &glb, &times);
    let mut diagnostics = humanoid::Diagnostics::new();
    let character = Character::load(&path, &Default::default(), &mut diagnostics).unwrap();
    let t = 0.85 * cycle;
    let weights = character.pose(Some(t)).morph_weights;
    assert!(
        weights.iter().flatten().any(|w| (w - 1.0).abs() < 1e-3),
        "{weights:?}"
    );
    let panel = humanoid::preview::Panel::new(character, View::ThreeQuarter, 256, 256, &times);
    let gltf = Gltf::open(&glb);
    let with = reference_mask(&gltf, Some(0), t, &panel);
    let worlds = gltf.node_worlds(Some(0), t);
    let zero: Vec<Vec<f32>> = gltf
        .node_weights(Some(0), t)
        .iter()
        .map(|w| vec![0.0; w.len()])
        .collect();
    let without = reference_mask_of(&gltf.skinned_triangles(&worlds, &zero), &panel);
    let moved = with
        .bits
        .iter()
        .zip(&without.bits)
        .filter(|(a, b)| a != b)
        .count();
    eprintln!("the displacer moves {moved} px of the silhouette");
    assert!(moved >= 20, "the displacer moves {moved} px");
}

/// Pearson correlation.
fn correlation(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len() as f32;
    let (ma, mb) = (a.iter().sum::<f32>() / n, b.iter().sum::<f32>() / n);
    let cov: f32 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f32 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f32 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt().max(1e-12)
}

/// CesiumMan's walk next to the same walk retargeted onto the mannequin, seen from the side:
/// each figure's feet and hands, relative to its hips, move along the walking direction in
/// step. Measured as the correlation over 24 frames of each joint's horizontal screen
/// offset from the hips, in the two panels.
#[test]
fn cesium_man_walk_retargeted_onto_the_mannequin_is_in_step() {
    let dir = temp();
    let model = mannequin(dir.path());
    let cesium = corpus("gltf/CesiumMan.glb");
    let mut diagnostics = humanoid::Diagnostics::new();
    let left = Character::load(&cesium, &LoadOptions::default(), &mut diagnostics).unwrap();
    let load = LoadOptions {
        anim: Some(cesium.clone()),
        clip: None,
    };
    let right = Character::load(&model, &load, &mut diagnostics).unwrap();
    let times = times(&cesium, 24);
    let panels =
        [left, right].map(|c| humanoid::preview::Panel::new(c, View::Side, 256, 256, &times));
    let offsets = |panel: &humanoid::preview::Panel, bone: HumanBone| -> Vec<f32> {
        let bones = panel.character.bones();
        let (hips, joint) = (
            bones.get(HumanBone::Hips).unwrap(),
            bones.get(bone).unwrap(),
        );
        times
            .iter()
            .map(|&t| {
                let pose = panel.character.pose(t);
                let at = |j| panel.camera.project(pose.position(j)).unwrap_or(Vec2::ZERO);
                at(joint).x - at(hips).x
            })
            .collect()
    };
    for (bone, least) in [
        (HumanBone::LeftFoot, 0.9),
        (HumanBone::RightFoot, 0.9),
        (HumanBone::LeftHand, 0.8),
        (HumanBone::RightHand, 0.8),
    ] {
        let r = correlation(&offsets(&panels[0], bone), &offsets(&panels[1], bone));
        eprintln!("{bone}: correlation {r:.3}");
        assert!(r >= least, "{bone}: correlation {r}");
    }
    // The picture itself: a GIF with both figures, when a GPU is there (else the skeletons).
    let out = dir.path().join("compare.gif");
    let options = PreviewOptions {
        compare: Some(model),
        view: View::Side,
        width: 128,
        height: 128,
        frames: Some(humanoid::preview::Frames::Count(4)),
        skeleton_only: gpu().is_none(),
        ..PreviewOptions::default()
    };
    let report = preview(&cesium, &out, &options).unwrap();
    assert_eq!(report.frames, 4);
    let bytes = std::fs::read(&out).unwrap();
    let decoder = gif::DecodeOptions::new()
        .read_info(bytes.as_slice())
        .unwrap();
    assert_eq!((decoder.width(), decoder.height()), (256, 128));
}

/// Every kind of file the library reads draws: a VRMA played on a VRM (`--anim`), a BVH and a
/// VRMA alone (skeletons), an H-Anim file in each syntax; on the GPU when there is one, else
/// the skeleton on the CPU.
#[test]
fn every_format_previews() {
    let dir = temp();
    let skeleton_only = gpu().is_none();
    let cases = [
        ("vrm/debug_robot.vrm", Some("vrma/test.vrma")),
        ("bvh/cmu_131_01_3dsmax.bvh", None),
        ("vrma/idle_loop.vrma", None),
        ("hanim/JoeHAnimKick1a.x3dv", None),
        ("hanim/nancy_h-anim.wrl", None),
        ("gltf/Fox.glb", None),
    ];
    for (file, anim) in cases {
        let out = dir.path().join(format!("{}.gif", file.replace('/', "_")));
        let options = PreviewOptions {
            anim: anim.map(corpus),
            width: 64,
            height: 64,
            frames: Some(humanoid::preview::Frames::Count(3)),
            skeleton_only,
            ..PreviewOptions::default()
        };
        let report =
            preview(&corpus(file), &out, &options).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(report.frames, 3, "{file}");
        assert!(out.metadata().unwrap().len() > 0);
    }
}

#[test]
fn a_toon_outline_is_drawn_around_the_body() {
    let Some(mut painter) = gpu() else {
        return;
    };
    // Godette's own VRMC_materials_mtoon: screen-space outlines on the face and the body.
    let path = corpus("vrm/Godette_vrm_v4.vrm");
    let load = || {
        Character::load(
            &path,
            &Default::default(),
            &mut humanoid::Diagnostics::new(),
        )
        .expect("load")
    };
    let layers = Layers {
        meshes: true,
        ground: false,
        overlay: false,
        silhouette: false,
    };
    let mut covered = Vec::new();
    for outline in [true, false] {
        let mut character = load();
        let mut toons = 0;
        for mesh in &mut character.meshes {
            if let Some(toon) = mesh.material.as_mut().and_then(|m| m.toon.as_mut()) {
                toons += 1;
                if !outline {
                    toon.outline = humanoid::model::mesh::Outline::None;
                }
            }
        }
        assert!(toons >= 2, "{toons} toon materials");
        let panel = Panel::new(character, View::Front, 256, 256, &[None]);
        let uploaded = painter.upload(&panel, &mut humanoid::Diagnostics::new());
        let image = painter
            .paint(&panel, &uploaded, None, layers)
            .expect("paint");
        let background = humanoid::preview::gpu::BACKGROUND;
        let count = (0..256)
            .flat_map(|y| (0..256).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let p = image.pixel(x, y).unwrap();
                p[..3]
                    .iter()
                    .zip(&background[..3])
                    .any(|(a, b)| a.abs_diff(*b) > 2)
            })
            .count();
        covered.push(count);
    }
    // The hull widens the silhouette by about a pixel all round (0.25 % of 256 px).
    assert!(
        covered[0] > covered[1] + covered[1] / 100,
        "with outline {} px, without {} px",
        covered[0],
        covered[1]
    );
}
