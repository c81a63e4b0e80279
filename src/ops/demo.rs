//! `humanoid demo`: the bundled mannequin in canonical terms, written as glTF.
//!
//! Two files: `mannequin.glb` (skinned mesh, 55-bone EXT skeleton, the clips as plain node
//! channels) and `mannequin_ext_clips.glb` (the same character with the same clips as
//! `EXT_skeleton_humanoid` channels, no `target.node`).

use std::path::{Path, PathBuf};

use glam::Vec3;

use crate::error::{Diagnostics, Error};
use crate::formats::gltf;
use crate::mannequin::{self, Mannequin, TrackPath};
#[cfg(feature = "preview")]
use crate::math::num::saturating_u32;
use crate::math::sample::Interpolation;
use crate::math::trs::Trs;
use crate::model::asset::HumanoidSkeleton;
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::humanoid::BoneMap;
use crate::model::mesh::SkinnedMesh;
use crate::model::skeleton::{RawJoint, Skeleton};
use crate::pose::normalized::bone_tracks_from_joint_tracks;

/// The mannequin in canonical terms.
#[derive(Debug, Clone)]
pub struct CanonicalMannequin {
    /// Its skeleton (55 joints named after their bones).
    pub skeleton: Skeleton,
    /// Its humanoid skeleton (every bone mapped).
    pub humanoid: HumanoidSkeleton,
    /// Its skinned body.
    pub mesh: SkinnedMesh,
    /// `walk` and `wave`, as joint (node) tracks.
    pub clips: Vec<Clip>,
}

/// Builds the mannequin into the canonical model.
///
/// # Errors
/// Only if the generator produced inconsistent data (a bug; reported, never a panic).
pub fn canonical_mannequin() -> Result<CanonicalMannequin, Error> {
    let Mannequin {
        joints,
        mesh,
        clips,
    } = mannequin::build();
    let bug = |what: String| Error::unsupported(format!("mannequin generator: {what}"));
    let raw = joints
        .iter()
        .map(|j| RawJoint {
            name: j.name.clone(),
            parent: j.parent,
            rest: Trs {
                translation: j.translation,
                rotation: j.rotation,
                scale: Vec3::ONE,
            },
        })
        .collect();
    let (skeleton, joint_ids) = Skeleton::from_raw(raw).map_err(|e| bug(e.to_string()))?;
    let id = |i: usize| {
        joint_ids
            .get(i)
            .copied()
            .ok_or_else(|| bug(format!("joint {i} out of range")))
    };

    let mut bones = BoneMap::default();
    for (i, joint) in joints.iter().enumerate() {
        bones.set(joint.bone, Some(id(i)?));
    }
    let humanoid = HumanoidSkeleton {
        declared_t_pose: true,
        root: Some(id(0)?),
        bones,
    };
    let joints_used = (0..joints.len()).map(id).collect::<Result<Vec<_>, _>>()?;
    let mesh = SkinnedMesh {
        name: "mannequin".into(),
        positions: mesh.positions,
        normals: mesh.normals,
        joints: mesh.joints,
        weights: mesh.weights,
        indices: mesh.indices,
        joints_used,
        inverse_bind: mesh.inverse_bind,
        uvs: Vec::new(),
        material: None,
        rigid: false,
        morph_targets: Vec::new(),
        morph_weights: Vec::new(),
        ..SkinnedMesh::default()
    };
    let mut canonical_clips = Vec::new();
    for clip in clips {
        let mut out = Clip::new(clip.name);
        for track in clip.tracks {
            let property = match track.path {
                TrackPath::Translation => Property::Translation,
                TrackPath::Rotation => Property::Rotation,
            };
            let t = Track::new(
                TrackTarget::Joint(id(track.joint)?),
                property,
                Interpolation::Linear,
                track.times,
                track.values,
            )
            .map_err(|e| bug(e.to_string()))?;
            out.add_track(t);
        }
        canonical_clips.push(out);
    }
    Ok(CanonicalMannequin {
        skeleton,
        humanoid,
        mesh,
        clips: canonical_clips,
    })
}

/// Writes `mannequin.glb` and `mannequin_ext_clips.glb` into `dir` (created if needed) and
/// returns their paths.
///
/// # Errors
/// A file exists and `force` is off, or writing fails.
pub fn write_demo(dir: &Path, force: bool) -> Result<Vec<PathBuf>, Error> {
    let m = canonical_mannequin()?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let nodes_path = dir.join("mannequin.glb");
    let ext_path = dir.join("mannequin_ext_clips.glb");
    for path in [&nodes_path, &ext_path] {
        crate::io::output::check(path, force)?;
    }
    let humanoids = [m.humanoid.clone()];
    let generator = concat!("humanoid ", env!("CARGO_PKG_VERSION"), " mannequin");
    let built = gltf::build::build(&gltf::build::Scene {
        skeleton: &m.skeleton,
        humanoids: &humanoids,
        meshes: std::slice::from_ref(&m.mesh),
        clips: &m.clips,
        generator,
        skin_without_mesh: false,
    })?;
    gltf::build::write_glb(&built, &nodes_path)?;

    let mut diagnostics = Diagnostics::new();
    let ext_clips: Vec<Clip> = m
        .clips
        .iter()
        .map(|c| bone_tracks_from_joint_tracks(&m.skeleton, &m.humanoid.bones, c, &mut diagnostics))
        .collect();
    if !diagnostics.is_empty() {
        return Err(Error::unsupported(format!(
            "mannequin generator: clips did not convert cleanly to EXT channels: {:?}",
            diagnostics
        )));
    }
    let built = gltf::build::build(&gltf::build::Scene {
        skeleton: &m.skeleton,
        humanoids: &humanoids,
        meshes: std::slice::from_ref(&m.mesh),
        clips: &ext_clips,
        generator,
        skin_without_mesh: false,
    })?;
    gltf::build::write_glb(&built, &ext_path)?;
    Ok(vec![nodes_path, ext_path])
}

/// Renders each clip of the mannequin written by [`write_demo`] (`dir/mannequin.glb`) to
/// `dir/preview/CLIP.gif` (256×256, three-quarter view, 15 frames per second) and returns the
/// paths and what happened. Without a GPU adapter the skeleton is drawn on the CPU instead
/// (reported), so the demo always succeeds.
///
/// # Errors
/// A GIF exists and `force` is off; the mannequin cannot be read; writing fails.
#[cfg(feature = "preview")]
pub fn write_previews(dir: &Path, force: bool) -> Result<(Vec<PathBuf>, Diagnostics), Error> {
    use crate::ops::preview::{self, Backend, Layers, LoadOptions, Painter, Panel, View};

    let model = dir.join("mannequin.glb");
    let folder = dir.join("preview");
    let mut diagnostics = Diagnostics::new();
    let character = preview::Character::load(&model, &LoadOptions::default(), &mut diagnostics)?;
    let outputs: Vec<(String, PathBuf)> = character
        .asset
        .clips
        .iter()
        .map(|c| (c.name.clone(), folder.join(format!("{}.gif", c.name))))
        .collect();
    for (_, path) in &outputs {
        crate::io::output::check(path, force)?;
    }
    std::fs::create_dir_all(&folder).map_err(|e| Error::io(&folder, e))?;
    let mut painter = match Painter::new(Backend::Auto, false) {
        Ok(painter) => painter,
        Err(e) => {
            diagnostics.warn(
                "PREVIEW_NO_GPU",
                "",
                format!("{e}: the previews show the skeleton only"),
            );
            Painter::Cpu
        }
    };
    let mut written = Vec::new();
    for (name, path) in outputs {
        let load = LoadOptions {
            anim: None,
            clip: Some(name),
        };
        let character = preview::Character::load(&model, &load, &mut Diagnostics::new())?;
        let duration = character.duration();
        let count = saturating_u32(f64::from((duration * 15.0).ceil().max(1.0)));
        let times: Vec<Option<f32>> = (0..count)
            .map(|i| Some(duration * i as f32 / count as f32))
            .collect();
        let panel = Panel::new(character, View::ThreeQuarter, 256, 256, &times);
        let uploaded = painter.upload(&panel, &mut diagnostics);
        let stream = preview::image::GifStream::new(preview::gif_delay(duration, times.len()));
        for &t in &times {
            stream.push(painter.paint(&panel, &uploaded, t, Layers::default())?);
        }
        let bytes = stream
            .finish()
            .map_err(|e| Error::unsupported(format!("{}: encoding: {e}", path.display())))?;
        crate::ops::output::write_atomically(&path, &bytes)?;
        written.push(path);
    }
    if let Some(adapter) = painter.adapter() {
        diagnostics.info("PREVIEW_ADAPTER", "", format!("rendered on {adapter}"));
    }
    Ok((written, diagnostics))
}
