//! The bundled mannequin (no ../shared needed).

use glam::Vec3;
use humanoid::preview::gpu::{BACKGROUND, GRID, GROUND};
use humanoid::preview::{Backend, Character, Layers, Painter, Panel, Renderer, View};

use super::reference::Gltf;
use super::{check_silhouettes, dot_near, gpu, mannequin, reference_mask, temp};

fn walk_times(path: &std::path::Path, n: usize) -> Vec<Option<f32>> {
    let character =
        Character::load(path, &Default::default(), &mut humanoid::Diagnostics::new()).unwrap();
    let duration = character.duration();
    assert!(duration > 0.5, "walk lasts {duration} s");
    (0..n)
        .map(|i| Some(duration * i as f32 / n as f32))
        .collect()
}

#[test]
fn gpu_skinning_matches_cpu_skinning_at_ten_times() {
    let Some(mut painter) = gpu() else { return };
    let dir = temp();
    let path = mannequin(dir.path());
    let times = walk_times(&path, 10);
    check_silhouettes(&mut painter, &path, &path, &times);
    check_silhouettes(&mut painter, &path, &path, &[None]);
}

#[test]
fn joint_dots_are_where_the_joints_project() {
    let Some(mut painter) = gpu() else { return };
    let dir = temp();
    let path = mannequin(dir.path());
    let mut diagnostics = humanoid::Diagnostics::new();
    let character = Character::load(&path, &Default::default(), &mut diagnostics).unwrap();
    let bones = character.bones();
    let nodes: Vec<(String, usize)> = bones
        .iter()
        .map(|(bone, joint)| {
            (
                bone.as_str().to_owned(),
                character.asset.source_index(joint),
            )
        })
        .collect();
    assert_eq!(nodes.len(), 55);
    let t = 0.37;
    for view in [View::Front, View::Side, View::ThreeQuarter] {
        let panel = Panel::new(character.clone(), view, 256, 256, &[Some(t)]);
        let uploaded = painter.upload(&panel, &mut diagnostics);
        let image = painter
            .paint(&panel, &uploaded, Some(t), Layers::default())
            .unwrap();
        let worlds = Gltf::open(&path).node_worlds(Some(0), t);
        for (name, node) in &nodes {
            let at = panel
                .camera
                .project(worlds[*node].w_axis.truncate())
                .unwrap();
            assert!(
                dot_near(&image, at, 2, 245),
                "{view:?}: no joint dot within 2 px of {name} at {at}"
            );
        }
    }
}

#[test]
fn ground_and_background_are_where_expected() {
    let Some(mut painter) = gpu() else { return };
    let dir = temp();
    let path = mannequin(dir.path());
    let mut diagnostics = humanoid::Diagnostics::new();
    let character = Character::load(&path, &Default::default(), &mut diagnostics).unwrap();
    let panel = Panel::new(character, View::ThreeQuarter, 256, 256, &[None]);
    let uploaded = painter.upload(&panel, &mut diagnostics);
    let image = painter
        .paint(&panel, &uploaded, None, Layers::default())
        .unwrap();
    // Above the horizon: the background, exactly (no ground, no character in the top rows).
    for x in 0..256 {
        let p = image.pixel(x, 1).unwrap();
        assert!(
            (0..3).all(|c| p[c].abs_diff(BACKGROUND[c]) <= 1),
            "pixel ({x}, 1) is {p:?}"
        );
    }
    // On the ground between the character and the camera: ground or grid colours, and not
    // covered by the character (checked against the CPU reference).
    let ground = panel.ground;
    let towards_camera = (panel.camera.eye - ground.centre) * Vec3::new(1.0, 0.0, 1.0);
    let reference = reference_mask(&Gltf::open(&path), None, 0.0, &panel);
    let mut checked = 0;
    for k in 1..=4 {
        let point = ground.centre + towards_camera.normalize() * ground.extent * 0.12 * k as f32;
        let at = panel.camera.project(point).unwrap();
        if reference.get(at.x as i64, at.y as i64) {
            continue;
        }
        let p = image.pixel(at.x as u32, at.y as u32).unwrap();
        for c in 0..3 {
            let (lo, hi) = (GROUND[c].min(GRID[c]), GROUND[c].max(GRID[c]));
            assert!(
                p[c] + 3 >= lo && p[c] <= hi + 3,
                "ground pixel at {at} is {p:?}: expected between {GROUND:?} and {GRID:?}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 2, "only {checked} ground points were visible");
}

#[test]
fn gl_and_vulkan_draw_the_same_picture() {
    let (Ok(vulkan), Ok(gl)) = (Renderer::new(Backend::Vulkan), Renderer::new(Backend::Gl)) else {
        eprintln!("skipping: Vulkan and GL are not both available");
        return;
    };
    let dir = temp();
    let path = mannequin(dir.path());
    let mut diagnostics = humanoid::Diagnostics::new();
    let character = Character::load(&path, &Default::default(), &mut diagnostics).unwrap();
    let panel = Panel::new(character, View::Front, 256, 256, &[Some(0.5)]);
    let mut pictures = Vec::new();
    for renderer in [vulkan, gl] {
        let mut painter = Painter::Gpu(Box::new(renderer));
        let uploaded = painter.upload(&panel, &mut diagnostics);
        pictures.push(
            painter
                .paint(&panel, &uploaded, Some(0.5), Layers::default())
                .unwrap(),
        );
    }
    let differing = pictures[0]
        .rgba()
        .chunks_exact(4)
        .zip(pictures[1].rgba().chunks_exact(4))
        .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 8))
        .count();
    let share = differing as f64 / (256.0 * 256.0);
    eprintln!(
        "Vulkan and GL differ in {differing} pixels ({:.3} %)",
        share * 100.0
    );
    assert!(share <= 0.005, "{differing} pixels differ");
}
