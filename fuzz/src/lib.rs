//! What the fuzz targets run: read bytes as one format (it must succeed or refuse, never
//! panic, hang or allocate without bound: libFuzzer's `-timeout`, `-rss_limit_mb` and
//! `-malloc_limit_mb` catch the last two), and write back what was read (the write succeeds or
//! refuses, and what was written reads back).

use std::path::Path;

use humanoid::formats::Format;
use humanoid::asset::MeshDetail;
use humanoid::{ReadOptions, WriteOptions};

/// The readers, by the file name that selects them.
pub const READERS: [&str; 10] = [
    "f.gltf", "f.glb", "f.vrm", "f.vrma", "f.x3d", "f.x3dv", "f.wrl", "f.bvh", "f.tres", "f.toml",
];

/// The formats written back.
pub const WRITERS: [(Format, &str); 8] = [
    (Format::Glb, "glb"),
    (Format::Vrm1, "vrm"),
    (Format::Vrma, "vrma"),
    (Format::X3d, "x3d"),
    (Format::X3dv, "x3dv"),
    (Format::Wrl, "wrl"),
    (Format::Bvh, "bvh"),
    (Format::GodotProfile, "tres"),
];

fn options() -> ReadOptions {
    ReadOptions {
        meshes: MeshDetail::Rest,
        ..ReadOptions::default()
    }
}

/// Reads `data` as the file `name` says (a `.toml` as a mapping table).
pub fn read(name: &str, data: &[u8]) {
    if name.ends_with(".toml") {
        if let Ok(text) = std::str::from_utf8(data) {
            let _ = humanoid::mapping::table::Table::parse(text, Path::new(name));
        }
        return;
    }
    let _ = humanoid::read_bytes(data, Path::new(name), &options());
}

/// The first byte picks the reader, the second the format written; the rest is the file.
/// Panics when a written file does not read back.
pub fn write_back(data: &[u8]) {
    let [reader, writer, rest @ ..] = data else {
        return;
    };
    let name = READERS[usize::from(*reader) % (READERS.len() - 1)]; // no table: it is no model
    let Ok(read) = humanoid::read_bytes(rest, Path::new(name), &options()) else {
        return;
    };
    let (format, extension) = WRITERS[usize::from(*writer) % WRITERS.len()];
    let dir = tempfile::tempdir_in(scratch()).expect("a scratch folder");
    let output = dir.path().join(format!("out.{extension}"));
    let write = WriteOptions {
        to: Some(format),
        ..WriteOptions::default()
    };
    if humanoid::write(&read.character, &output, &write).is_err() {
        return; // refused cleanly
    }
    if let Err(error) = humanoid::read(&output, &ReadOptions::default()) {
        panic!("{name} written as {extension} does not read back: {error}");
    }
}

/// Where written files go: memory when the system has `/dev/shm`.
fn scratch() -> &'static Path {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() { shm } else { Path::new("/tmp") }
}

/// The target an environment variable names, for the one binary that runs them all
/// (`all`, used where one binary is easier to carry than twelve).
pub fn by_name(target: &str, data: &[u8]) {
    match target {
        "write_back" => write_back(data),
        "fbx_to_glb" => fbx_to_glb(data),
        "batch_plan" => batch_plan(data),
        "godot_import" => godot_import(data),
        "hanim_texture" => hanim_texture(data),
        "preview_frames" => preview_frames(data),
        other => {
            let name = other.strip_prefix("read_").unwrap_or(other);
            let file = match name {
                "table" => "f.toml".to_owned(),
                ext => format!("f.{ext}"),
            };
            read(&file, data);
        }
    }
}

/// FBX through to the GLB builder: the bytes read as an FBX with its meshes (ufbx, then our
/// triangulation, skinning and morph targets), written as a GLB (the builder packs every
/// mesh), and the GLB must read back. Reading refuses cleanly or succeeds; so does writing.
pub fn fbx_to_glb(data: &[u8]) {
    let options = ReadOptions {
        meshes: MeshDetail::Bind,
        ..ReadOptions::default()
    };
    let Ok(read) = humanoid::read_bytes(data, Path::new("f.fbx"), &options) else {
        return;
    };
    let dir = tempfile::tempdir_in(scratch()).expect("a scratch folder");
    let output = dir.path().join("out.glb");
    let write = WriteOptions {
        to: Some(Format::Glb),
        ..WriteOptions::default()
    };
    if humanoid::write(&read.character, &output, &write).is_err() {
        return;
    }
    if let Err(error) = humanoid::read(&output, &options) {
        panic!("an FBX written as GLB does not read back: {error}");
    }
}

/// At most this many files or patterns in one batch case.
const MAX_BATCH_LINES: usize = 64;

/// The batch planner: the first line holds the inputs (space-separated paths and glob
/// patterns, relative to a scratch folder; `-r` makes it recursive), each further line a file
/// to create there (`name/` a folder). The plan must give every job an existing input inside
/// the folder, an output inside the output folder, no output twice, and no output that is an
/// input.
pub fn batch_plan(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.lines();
    let Some(first) = lines.next() else {
        return;
    };
    let dir = tempfile::tempdir_in(scratch()).expect("a scratch folder");
    let root = dir.path().join("in");
    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(&root).expect("a folder");
    for line in lines.take(MAX_BATCH_LINES) {
        let Some(relative) = inside(line) else {
            continue;
        };
        let path = root.join(&relative);
        if line.ends_with('/') {
            let _ = std::fs::create_dir_all(&path);
        } else if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
            let _ = std::fs::write(&path, b"x");
        }
    }
    let mut inputs = humanoid::batch::Inputs::default();
    for word in first.split(' ').take(MAX_BATCH_LINES) {
        if word == "-r" {
            inputs.recursive = true;
        } else if let Some(relative) = inside(word) {
            inputs.paths.push(root.join(relative));
        }
    }
    let Ok(plan) = humanoid::batch::plan(&inputs, &out_dir, "glb") else {
        return;
    };
    let root = root.canonicalize().expect("the folder");
    let mut outputs = std::collections::HashSet::new();
    for job in &plan.jobs {
        let input = job.input.canonicalize().expect("a job's input exists");
        assert!(input.starts_with(&root), "{} is outside the inputs", job.input.display());
        assert!(job.output.starts_with(&out_dir), "{} is outside the output folder", job.output.display());
        assert!(outputs.insert(job.output.clone()), "{} is written twice", job.output.display());
    }
    for job in &plan.jobs {
        assert!(!outputs.contains(&job.input), "{} is an input and an output", job.input.display());
    }
}

/// `text` as a relative path with no `..`, root or prefix, and not empty.
fn inside(text: &str) -> Option<std::path::PathBuf> {
    let path = Path::new(text.trim_end_matches('/'));
    let plain = path
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    (plain && !text.is_empty() && !text.contains('\0')).then(|| path.to_path_buf())
}

/// A Godot BoneMap inside the project, for `.import` files to link to.
const PROJECT_BONE_MAP: &str = "[gd_resource type=\"BoneMap\" load_steps=2 format=3]\n\n\
[sub_resource type=\"SkeletonProfileHumanoid\" id=\"P\"]\n\n[resource]\nprofile = SubResource(\"P\")\n\
bone_map/Hips = &\"mixamorig_Hips\"\nbone_map/Spine = &\"mixamorig_Spine\"\n";

/// A Godot `.import` (or `.tres`) resolved in a project: the bytes are
/// `models/character.glb.import` in a project that holds `maps/ue.tres`, a `uid://`-named
/// resource, and a folder linked out of it; beside the project lies a file whose text must
/// never appear in a message (it is outside the project: never read).
pub fn godot_import(data: &[u8]) {
    let dir = tempfile::tempdir_in(scratch()).expect("a scratch folder");
    let game = dir.path().join("game");
    for folder in ["models", "maps"] {
        std::fs::create_dir_all(game.join(folder)).expect("a folder");
    }
    std::fs::write(game.join("project.godot"), "config_version=5\n").expect("a file");
    std::fs::write(game.join("maps/ue.tres"), PROJECT_BONE_MAP).expect("a file");
    let with_uid = PROJECT_BONE_MAP.replacen("format=3]", "format=3 uid=\"uid://b1\"]", 1);
    std::fs::write(game.join("maps/uid.tres"), with_uid).expect("a file");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).expect("a folder");
    std::fs::write(outside.join("x.tres"), "SECRET first line\n").expect("a file");
    #[cfg(unix)]
    {
        let _ = std::os::unix::fs::symlink(&outside, game.join("out"));
        let _ = std::os::unix::fs::symlink(outside.join("x.tres"), game.join("maps/link.tres"));
    }
    let file = game.join("models/character.glb.import");
    std::fs::write(&file, data).expect("a file");
    let library = humanoid::mapping::Library::default();
    for message in [
        humanoid::formats::godot::read_mapping(&file, &library).err(),
        humanoid::formats::godot::inspect_file(&file).err(),
    ]
    .into_iter()
    .flatten()
    .map(|e| e.to_string())
    {
        assert!(!message.contains("SECRET"), "a file outside the project was read: {message}");
    }
}

/// A one-pixel PNG, for H-Anim textures to find.
const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

/// H-Anim with textures from files: the bytes are an X3D file in a folder that holds a PNG,
/// a broken PNG, a subfolder and (on Unix) a FIFO and a link out of the folder; its
/// `ImageTexture` urls are resolved and read as `humanoid read` would. It must succeed or
/// refuse, never wait on the FIFO or read outside the folder.
pub fn hanim_texture(data: &[u8]) {
    let dir = tempfile::tempdir_in(scratch()).expect("a scratch folder");
    let folder = dir.path().join("figure");
    std::fs::create_dir_all(folder.join("textures")).expect("a folder");
    std::fs::write(folder.join("skin.png"), PIXEL_PNG).expect("a file");
    std::fs::write(folder.join("textures/skin.png"), PIXEL_PNG).expect("a file");
    std::fs::write(folder.join("broken.png"), &PIXEL_PNG[..20]).expect("a file");
    #[cfg(unix)]
    {
        let fifo = std::ffi::CString::new(folder.join("pipe.png").as_os_str().as_encoded_bytes())
            .expect("a path");
        // SAFETY: mkfifo reads the NUL-terminated path and nothing else.
        unsafe {
            libc::mkfifo(fifo.as_ptr(), 0o644);
        }
        let _ = std::os::unix::fs::symlink("/dev/zero", folder.join("zero.png"));
    }
    let file = folder.join("f.x3d");
    std::fs::write(&file, data).expect("a file");
    let _ = humanoid::read(&file, &options());
}

/// The preview's frame planner: the bytes give the clip's duration, the frame request and the
/// picture size; the plan is refused or holds at most `MAX_FRAMES` times inside the clip.
pub fn preview_frames(data: &[u8]) {
    use humanoid::ops::frame_plan::{frame_times, FrameRequest, Frames, MAX_FRAMES};
    let mut bytes = [0u8; 24];
    for (slot, byte) in bytes.iter_mut().zip(data) {
        *slot = *byte;
    }
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let flags = bytes[20];
    let duration = f32::from_bits(word(0));
    let frames = match flags & 3 {
        0 => None,
        1 => Some(Frames::Count(word(4))),
        _ => Some(Frames::Fps(f32::from_bits(word(4)))),
    };
    let request = FrameRequest {
        animated: flags & 4 != 0,
        sheet: flags & 8 != 0,
        duration: (flags & 16 != 0).then_some(duration),
        time: (flags & 32 != 0).then(|| f32::from_bits(word(16))),
        frames,
        width: word(8) % 9000,
        height: word(12) % 9000,
        panels: 1 + u32::from(flags & 64 != 0),
    };
    let Ok(times) = frame_times(&request) else {
        return;
    };
    assert!(!times.is_empty() && times.len() <= MAX_FRAMES as usize, "{} frames", times.len());
    if request.animated {
        if let Some(duration) = request.duration.filter(|d| d.is_finite() && *d >= 0.0) {
            for time in times.iter().flatten() {
                assert!(*time >= 0.0 && *time <= duration, "{time} outside a {duration} s clip");
            }
        }
    }
}
