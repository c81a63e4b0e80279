//! The one read and the one write (`humanoid::read`, `read_bytes`, `write`): reading bytes
//! gives what reading the file gives, for every format; a write of a character read from any
//! format lands where it should, never on its source, never over a file without `force`; the
//! Godot profile reads as a skeleton mapped by its own bone names.

use std::path::{Path, PathBuf};

use humanoid::formats::godot::humanoid::godot_name;
use humanoid::model::{Character, Format, HumanBone};
use humanoid::ops::read::MeshDetail;
use humanoid::{read, read_bytes, write, ReadOptions, WriteOptions};

/// The mannequin written in every format we write, in `dir`.
fn every_format(dir: &Path) -> Vec<PathBuf> {
    humanoid::demo::write_demo(dir, false).unwrap();
    let glb = dir.join("mannequin.glb");
    let character = read(&glb, &ReadOptions::default()).unwrap().character;
    let mut files = vec![glb.clone()];
    for (name, to) in [
        ("mannequin.vrm", None),
        ("mannequin.x3d", None),
        ("mannequin.x3dv", None),
        ("mannequin.wrl", None),
        ("mannequin.bvh", None),
        ("mannequin.vrma", None),
        ("profile.tres", Some(Format::GodotProfile)),
    ] {
        let path = dir.join(name);
        let options = WriteOptions {
            to,
            ..WriteOptions::default()
        };
        write(&character, &path, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        files.push(path);
    }
    files
}

/// What two reads must agree on: joints (name, parent, rest), bone maps, clips, meshes, sockets.
fn summary(character: &Character) -> String {
    let asset = &character.asset;
    let skeleton = &asset.skeleton;
    let mut out = String::new();
    for joint in skeleton.joints() {
        let rest = skeleton.rest_local(joint);
        out += &format!(
            "{} <- {:?} {:?} {:?}\n",
            skeleton.name(joint),
            skeleton.parent(joint).map(|p| skeleton.name(p).to_owned()),
            rest.translation,
            rest.rotation
        );
    }
    for humanoid in &asset.humanoids {
        out += &format!("{:?}\n", humanoid.bones.iter().collect::<Vec<_>>());
    }
    for clip in &asset.clips {
        out += &format!("clip {} {} tracks\n", clip.name, clip.tracks().len());
    }
    for mesh in &character.meshes {
        out += &format!(
            "mesh {} {} {}\n",
            mesh.name,
            mesh.vertex_count(),
            mesh.triangle_count()
        );
    }
    out += &format!("{} sockets\n", character.sockets.len());
    out
}

#[test]
fn reading_bytes_gives_what_reading_the_file_gives_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let files = every_format(dir.path());
    assert_eq!(files.len(), 8);
    for file in &files {
        for meshes in [MeshDetail::None, MeshDetail::Rest, MeshDetail::Bind] {
            let options = ReadOptions {
                meshes,
                ..ReadOptions::default()
            };
            let from_file = read(file, &options).unwrap_or_else(|e| panic!("{e}"));
            let bytes = std::fs::read(file).unwrap();
            let from_bytes = read_bytes(&bytes, file, &options).unwrap();
            let name = file.display();
            assert_eq!(
                summary(&from_bytes.character),
                summary(&from_file.character),
                "{name} {meshes:?}"
            );
            assert_eq!(
                from_bytes.character.asset.format, from_file.character.asset.format,
                "{name}"
            );
            assert_eq!(from_file.character.source.as_deref(), Some(file.as_path()));
            assert_eq!(from_bytes.character.source, None);
            let codes = |d: &humanoid::Diagnostics| d.iter().map(|d| d.code).collect::<Vec<_>>();
            assert_eq!(
                codes(&from_bytes.diagnostics),
                codes(&from_file.diagnostics),
                "{name}"
            );
        }
    }
}

#[test]
fn reading_bytes_never_reads_beside_them() {
    let dir = tempfile::tempdir().unwrap();
    humanoid::demo::write_demo(dir.path(), false).unwrap();
    let character = read(&dir.path().join("mannequin.glb"), &ReadOptions::default())
        .unwrap()
        .character;
    // A .gltf whose buffer is the .bin beside it.
    let gltf = dir.path().join("split.gltf");
    let written = write(&character, &gltf, &WriteOptions::default()).unwrap();
    assert!(written.files.len() >= 2, "{:?}", written.files);
    assert!(read(&gltf, &ReadOptions::default()).is_ok());
    let bytes = std::fs::read(&gltf).unwrap();
    let err = read_bytes(&bytes, &gltf, &ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("split.gltf"), "{err}");
}

#[test]
fn bad_bytes_are_refused_with_the_place() {
    let options = ReadOptions::default();
    let err = read_bytes(b"HIERARCHY\n\xff\xfe", Path::new("x.bvh"), &options).unwrap_err();
    assert!(err.to_string().contains("byte 10"), "{err}");
    let err = read_bytes(b"glTF\x02\0\0\0", Path::new("x.glb"), &options).unwrap_err();
    assert!(err.to_string().contains("x.glb"), "{err}");
    let err = read_bytes(b"", Path::new("x.x3d"), &options).unwrap_err();
    assert!(err.to_string().contains("x.x3d"), "{err}");
}

#[test]
fn a_write_never_replaces_its_source_or_a_file_without_force() {
    let dir = tempfile::tempdir().unwrap();
    humanoid::demo::write_demo(dir.path(), false).unwrap();
    let glb = dir.path().join("mannequin.glb");
    let before = std::fs::read(&glb).unwrap();
    let character = read(&glb, &ReadOptions::default()).unwrap().character;
    let force = WriteOptions {
        force: true,
        ..WriteOptions::default()
    };
    // Its source, even with force, and by another spelling of the same path.
    assert!(write(&character, &glb, &force).is_err());
    let dotted = dir.path().join(".").join("mannequin.glb");
    assert!(write(&character, &dotted, &force).is_err());
    assert_eq!(std::fs::read(&glb).unwrap(), before);
    // Another existing file: only with force.
    let other = dir.path().join("other.glb");
    std::fs::write(&other, b"keep me").unwrap();
    let err = write(&character, &other, &WriteOptions::default()).unwrap_err();
    assert!(err.to_string().contains("--force"), "{err}");
    assert_eq!(std::fs::read(&other).unwrap(), b"keep me");
    write(&character, &other, &force).unwrap();
    assert_ne!(std::fs::read(&other).unwrap(), b"keep me");
    // A glTF-family write of a glTF character keeps its buffers byte for byte.
    let bin = |path: &Path| {
        let bytes = std::fs::read(path).unwrap();
        let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        bytes[20 + json_len + 8..].to_vec()
    };
    assert_eq!(bin(&other), bin(&glb));
}

#[test]
fn a_clip_is_refused_where_the_output_keeps_every_clip() {
    let dir = tempfile::tempdir().unwrap();
    humanoid::demo::write_demo(dir.path(), false).unwrap();
    let character = read(&dir.path().join("mannequin.glb"), &ReadOptions::default())
        .unwrap()
        .character;
    let first = character.asset.clips[0].name.clone();
    let one = WriteOptions {
        clip: Some(first.clone()),
        ..WriteOptions::default()
    };
    assert!(write(&character, &dir.path().join("a.glb"), &one).is_err());
    assert!(!dir.path().join("a.glb").exists());
    // .vrma and .bvh hold that one clip; H-Anim keeps only it.
    for name in ["a.vrma", "a.bvh", "a.x3d"] {
        let path = dir.path().join(name);
        write(&character, &path, &one).unwrap();
        let back = read(&path, &ReadOptions::default()).unwrap().character;
        assert_eq!(back.asset.clips.len(), 1, "{name}");
    }
}

#[test]
fn a_godot_profile_reads_as_its_skeleton_mapped_by_its_bone_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("profile.tres");
    std::fs::write(&path, humanoid::formats::godot::canonical_profile_tres()).unwrap();
    let read = read(&path, &ReadOptions::default()).unwrap();
    let asset = &read.character.asset;
    assert_eq!(asset.format, Format::GodotProfile);
    let bones = &asset.humanoids[0].bones;
    assert!(bones.require(humanoid::model::Profile::Godot).is_ok());
    for (bone, joint) in bones.iter() {
        assert_eq!(asset.skeleton.name(joint), godot_name(bone), "{bone}");
    }
    // Godot's profile stands in a T-pose: the hands level with the shoulders.
    let y = |bone| {
        let joint = bones.get(bone).unwrap();
        asset.skeleton.rest_world(joint).translation.y
    };
    assert!((y(HumanBone::LeftHand) - y(HumanBone::LeftUpperArm)).abs() < 0.02);
    // A BoneMap names bones of a skeleton it does not hold: refused, saying what to do.
    let map = dir.path().join("map.tres");
    std::fs::write(
        &map,
        humanoid::formats::godot::bone_map_tres(&[(HumanBone::Hips, "mixamorig_Hips")], None),
    )
    .unwrap();
    let err = humanoid::read(&map, &ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("--map"), "{err}");
}
