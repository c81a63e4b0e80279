//! `humanoid preview` end to end.

use std::process::Command;

use super::{mannequin, temp};

fn humanoid() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_humanoid"));
    let runtime = std::env::temp_dir().join(format!("humanoid-xdg-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&runtime);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700));
    }
    command.env("XDG_RUNTIME_DIR", runtime);
    command
}

fn gif_frames(path: &std::path::Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let mut decoder = gif::DecodeOptions::new()
        .read_info(bytes.as_slice())
        .unwrap();
    let mut n = 0;
    while decoder.read_next_frame().unwrap().is_some() {
        n += 1;
    }
    n
}

#[test]
fn skeleton_only_needs_no_gpu() {
    let dir = temp();
    let model = mannequin(dir.path());
    let out = dir.path().join("skeleton.gif");
    let run = humanoid()
        .args([
            "preview",
            model.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(["--skeleton-only", "--frames", "4", "--size", "96x64", "-v"])
        // No Vulkan driver and no GL: the CPU drawing does not care.
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains("adapter: none (CPU skeleton drawing)"),
        "{stdout}"
    );
    assert!(stdout.contains("4 frames"), "{stdout}");
    assert_eq!(gif_frames(&out), 4);
}

#[test]
fn no_adapter_is_a_clear_error() {
    let dir = temp();
    let model = mannequin(dir.path());
    let out = dir.path().join("x.png");
    let run = humanoid()
        .args([
            "preview",
            model.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(["--backend", "vulkan"])
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no GPU renderer available") && stderr.contains("--skeleton-only"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn usage_errors_name_what_was_expected() {
    let dir = temp();
    let model = mannequin(dir.path());
    for (args, expected, code) in [
        (vec!["-o", "x.jpg"], "written as .png or .gif", 1),
        // Bad flag values are usage errors: exit 2.
        (
            vec!["-o", "x.png", "--size", "12"],
            "expected WIDTHxHEIGHT",
            2,
        ),
        (
            vec!["-o", "x.png", "--view", "top"],
            "expected front, side or three-quarter",
            2,
        ),
        (
            vec!["-o", "x.png", "--backend", "metal"],
            "expected vulkan, gl or auto",
            2,
        ),
        (
            vec!["-o", "x.png", "--clip", "dance", "--skeleton-only"],
            "no clip named \"dance\" (clips: walk, wave)",
            1,
        ),
    ] {
        let run = humanoid()
            .current_dir(dir.path())
            .args(["preview", model.to_str().unwrap()])
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn a_gif_of_the_walk_on_the_gpu() {
    if super::gpu().is_none() {
        return;
    }
    let dir = temp();
    let model = mannequin(dir.path());
    let out = dir.path().join("walk.gif");
    let run = humanoid()
        .args([
            "preview",
            model.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(["--frames", "6", "--size", "128x128", "--view", "side", "-v"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("adapter: "), "{stdout}");
    assert_eq!(gif_frames(&out), 6);
    let sheet = dir.path().join("sheet.png");
    let run = humanoid()
        .args([
            "preview",
            model.to_str().unwrap(),
            "-o",
            sheet.to_str().unwrap(),
        ])
        .args(["--sheet", "--frames", "4", "--size", "64x48"])
        .output()
        .unwrap();
    assert!(run.status.success());
    let decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(&sheet).unwrap()));
    let reader = decoder.read_info().unwrap();
    assert_eq!((reader.info().width, reader.info().height), (128, 96));
}

#[test]
fn an_existing_output_is_replaced_only_with_force() {
    let dir = temp();
    let model = mannequin(dir.path());
    let out = dir.path().join("kept.png");
    std::fs::write(&out, b"someone's picture").unwrap();
    let preview = |force: bool| {
        let mut command = humanoid();
        command
            .args([
                "preview",
                model.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .args(["--skeleton-only", "--size", "32x32"]);
        if force {
            command.arg("--force");
        }
        command.output().unwrap()
    };
    let run = preview(false);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("kept.png") && stderr.contains("the output exists; pass --force"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"someone's picture");
    let run = preview(true);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(std::fs::read(&out).unwrap().starts_with(b"\x89PNG"));
}

/// The pixels of a PNG, RGBA.
fn png_pixels(path: &std::path::Path) -> Vec<[u8; 4]> {
    let bytes = std::fs::read(path).unwrap();
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    buffer[..info.buffer_size()]
        .chunks(channels)
        .map(|p| match p {
            [r, g, b, a] => [*r, *g, *b, *a],
            [r, g, b] => [*r, *g, *b, 255],
            _ => [0, 0, 0, 0],
        })
        .collect()
}

/// Over a character with meshes the skeleton overlay is left out by default (its face is not
/// covered): the joint dots (pure white, `overlay::JOINT_COLOR`) are drawn with `--skeleton`
/// and not without it nor with `--no-skeleton`, and the rest of the picture (meshes, ground)
/// is there either way. A character with no mesh (a BVH) gets the skeleton by default.
#[test]
fn the_skeleton_overlay_is_drawn_over_meshes_only_when_asked() {
    if super::gpu().is_none() {
        return;
    }
    let dir = temp();
    let model = mannequin(dir.path());
    let bvh = dir.path().join("walk.bvh");
    let options = humanoid::convert::ConvertOptions {
        clip: Some("walk".into()),
        ..Default::default()
    };
    humanoid::convert::convert(&model, &bvh, &options).unwrap();
    let render_file = |file: &std::path::Path, name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let run = humanoid()
            .args([
                "preview",
                file.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .args(["--size", "128x128"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        png_pixels(&out)
    };
    let render = |name: &str, extra: &[&str]| render_file(&model, name, extra);
    let white = |pixels: &[[u8; 4]]| pixels.iter().filter(|p| p[..3] == [255, 255, 255]).count();
    let with = render("with.png", &["--skeleton"]);
    let without = render("without.png", &["--no-skeleton"]);
    let default = render("default.png", &[]);
    assert!(white(&with) > 0, "no joint dot drawn with the overlay");
    assert_eq!(white(&without), 0, "joint dots drawn with --no-skeleton");
    assert_eq!(white(&default), 0, "joint dots over the meshes by default");
    // A BVH has no mesh: its skeleton is drawn by default.
    let skeleton = render_file(&bvh, "bvh.png", &[]);
    assert!(white(&skeleton) > 0, "no skeleton drawn for a BVH");
    let background = with[0];
    let drawn = without.iter().filter(|p| **p != background).count();
    assert!(
        drawn > 128 * 128 / 20,
        "{drawn} pixels drawn without the overlay"
    );
}

/// A material channel the preview does not draw is said as that, not as loss: Godette's
/// MToon materials and metallic-roughness texture.
#[cfg(feature = "corpus")]
#[test]
fn what_the_preview_does_not_draw_is_said_as_such() {
    let godette = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/vrm/Godette_vrm_v4.vrm");
    let dir = temp();
    let out = dir.path().join("g.png");
    let run = humanoid()
        .args([
            "preview",
            godette.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(["--skeleton-only", "--size", "64x64"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.contains("PREVIEW_NOT_DRAWN"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        // MToon's shading, rim and outline are drawn (issue 17); its matcap and UV animation
        // are not.
        line.contains("the preview does not draw MToon's matcap, UV animation")
            && line.contains("metallicRoughnessTexture")
            && line.contains("base colour"),
        "{line}"
    );
    assert!(!stdout.contains("not carried"), "{stdout}");
}

/// On a headless machine with no XDG_RUNTIME_DIR (a container, CI), the demo renders its GIFs
/// and says nothing about the runtime folder: libwayland's `error: XDG_RUNTIME_DIR is invalid
/// or not set` used to follow a run that worked.
#[test]
fn no_runtime_folder_noise_after_a_run_that_worked() {
    if super::gpu().is_none() {
        return;
    }
    let dir = temp();
    let run = Command::new(env!("CARGO_BIN_EXE_humanoid"))
        .env_remove("XDG_RUNTIME_DIR")
        .args(["demo", "-o", dir.path().join("demo").to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(!stderr.contains("XDG_RUNTIME_DIR"), "{stderr}");
    assert!(dir.path().join("demo/preview/walk.gif").is_file());
}
