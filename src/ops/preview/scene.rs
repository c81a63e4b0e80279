//! What the preview draws, extracted from a file read into the canonical model: the skeleton
//! and its humanoid, the meshes and materials, the sockets, and the clip to play (the file's
//! own, or another file's retargeted onto it). Posing goes through [`crate::pose::fk`]; a
//! pose also holds each mesh's morph weights at its time ([`super::morph`]: the defaults, or
//! the clip's `weights` track for the mesh; a retargeted clip moves joints only).
//!
//! Every format the library reads works: glTF, GLB and VRM give meshes, materials and
//! sockets; H-Anim gives its skin or segment shapes and its sites; BVH and VRMA give a
//! skeleton only, which the overlay draws.

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};

use crate::error::{Diagnostics, Error};
use crate::formats::gltf;
use crate::model::asset::{Asset, Facing};
use crate::model::clip::{Clip, TrackTarget};
use crate::model::humanoid::BoneMap;
use crate::model::mesh::SkinnedMesh;
use crate::model::skeleton::JointId;
use crate::model::socket::Socket;
use crate::pose::fk::Sampler;
use crate::pose::socket::{world_all, VtMode};

use super::camera::Bounds;
use super::morph;

/// What to load with a character.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Play this file's clip, retargeted onto the character (`None`: the character's own).
    pub anim: Option<PathBuf>,
    /// The clip's name (`None`: the first).
    pub clip: Option<String>,
}

/// A character ready to pose and draw.
#[derive(Debug, Clone)]
pub struct Character {
    /// The file it was read from.
    pub path: PathBuf,
    /// The canonical asset.
    pub asset: Asset,
    /// Its meshes (empty for formats that hold a skeleton only), each with its material.
    pub meshes: Vec<SkinnedMesh>,
    /// Its sockets (glTF KHR_virtual_transform, H-Anim sites).
    pub sockets: Vec<Socket>,
    /// For each mesh, the clip target whose `weights` track animates its morph targets (see
    /// [`morph::channel_of`]); `None` for a mesh without targets.
    pub morph_channels: Vec<Option<TrackTarget>>,
    /// The clip it plays, on its own joints (`None`: it stands at rest).
    pub clip: Option<Clip>,
    /// The joints the skeleton overlay draws, parents first.
    pub overlay_joints: Vec<JointId>,
}

/// A character's joints posed at one time, and its meshes' morph weights then.
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    /// Every joint's world matrix, by [`JointId::index`].
    pub worlds: Vec<Mat4>,
    /// Each mesh's morph weights (by index in [`Character::meshes`]), one per target; empty
    /// for a mesh without targets.
    pub morph_weights: Vec<Vec<f32>>,
}

impl Pose {
    /// The skinning matrices of `mesh` (`world_j · inverse_bind_j` for each of its joints).
    pub fn palette(&self, mesh: &SkinnedMesh) -> Vec<Mat4> {
        mesh.joints_used
            .iter()
            .zip(&mesh.inverse_bind)
            .map(|(j, ibm)| {
                self.worlds
                    .get(j.index())
                    .copied()
                    .unwrap_or(Mat4::IDENTITY)
                    * *ibm
            })
            .collect()
    }

    /// A joint's world position.
    pub fn position(&self, joint: JointId) -> Vec3 {
        self.worlds
            .get(joint.index())
            .map_or(Vec3::ZERO, |m| m.w_axis.truncate())
    }
}

impl Character {
    /// Reads `path` and what it needs to play (see [`LoadOptions`]); diagnostics go to
    /// `diagnostics`. Every mesh is checked ([`Character::check`]) before it is returned.
    ///
    /// # Errors
    /// A file cannot be read; the clip asked for does not exist; an animation cannot be
    /// retargeted (no humanoid); a mesh breaks its invariants (an out-of-range joint index, ...).
    pub fn load(
        path: &Path,
        options: &LoadOptions,
        diagnostics: &mut Diagnostics,
    ) -> Result<Character, Error> {
        let read_options = crate::ops::read::ReadOptions {
            meshes: crate::ops::read::MeshDetail::Bind,
            ..crate::ops::read::ReadOptions::default()
        };
        let read = crate::ops::read::read(path, &read_options)?;
        let mut found = read.diagnostics;
        if let Some(document) = read.character.carry.get::<gltf::Document>() {
            found = super::materials::reword_not_drawn(document, found);
        }
        diagnostics.extend(found);
        if let Some(e) = read.socket_error {
            diagnostics.warn("SOCKETS_NOT_DRAWN", "", format!("{e}: sockets not drawn"));
        }
        let crate::model::Character {
            mut asset,
            meshes,
            mesh_nodes: nodes,
            sockets,
            ..
        } = read.character;
        let morph_channels: Vec<Option<TrackTarget>> = meshes
            .iter()
            .zip(&nodes)
            .enumerate()
            .map(|(i, (mesh, node))| morph::channel_of(mesh, i, *node))
            .collect();
        if asset.humanoids.is_empty() && options.anim.is_none() {
            // A rig that declares no humanoid: mapped by the one policy for the overlay's
            // colours (a rig that is not a humanoid is drawn without them).
            if let Ok(mapped) = crate::mapping::map_humanoid(&mut asset, path, None) {
                mapped.note("", diagnostics);
            }
        }
        let clip = match &options.anim {
            Some(anim) => Some(retargeted(
                anim,
                options.clip.as_deref(),
                &mut asset,
                path,
                diagnostics,
            )?),
            None if asset.clips.is_empty() && options.clip.is_none() => None,
            None => {
                let chosen =
                    crate::model::clip_choice::choose(&asset, options.clip.as_deref(), path)?;
                chosen.report(diagnostics);
                // EXT_skeleton_humanoid channels play on the character's own joints.
                Some(crate::pose::normalized::playable(&asset, chosen.clip).into_owned())
            }
        };
        let overlay_joints = overlay_joints(&asset);
        let character = Character {
            path: path.to_path_buf(),
            asset,
            meshes,
            sockets,
            morph_channels,
            clip,
            overlay_joints,
        };
        character.check()?;
        character.report_weight_tracks(diagnostics);
        Ok(character)
    }

    /// Checks every mesh against the [`SkinnedMesh`] invariants, so that nothing the GPU is
    /// given can index out of range: per-vertex arrays of the vertex count, indices below it,
    /// joint indices below the mesh's joint count, one inverse bind matrix per joint, joints of
    /// the skeleton.
    ///
    /// # Errors
    /// [`Error::Unsupported`] naming the file, the mesh and the first broken rule.
    pub fn check(&self) -> Result<(), Error> {
        for (m, mesh) in self.meshes.iter().enumerate() {
            let bad = |what: String| {
                Error::unsupported(format!(
                    "{}: mesh {m} ({:?}): {what}",
                    self.path.display(),
                    mesh.name
                ))
            };
            let n = mesh.positions.len();
            for (name, len, optional) in [
                ("normals", mesh.normals.len(), false),
                ("joints", mesh.joints.len(), false),
                ("weights", mesh.weights.len(), false),
                ("uvs", mesh.uvs.len(), true),
                ("extra joints", mesh.joints_extra.len(), true),
                ("extra weights", mesh.weights_extra.len(), true),
            ] {
                if len != n && !(optional && len == 0) {
                    return Err(bad(format!("{len} {name} for {n} vertices")));
                }
            }
            if mesh.joints_extra.len() != mesh.weights_extra.len() {
                return Err(bad("extra joints and weights differ in count".to_owned()));
            }
            if mesh.indices.len() % 3 != 0 {
                return Err(bad(format!(
                    "{} indices: expected whole triangles",
                    mesh.indices.len()
                )));
            }
            if let Some(i) = mesh.indices.iter().find(|&&i| i as usize >= n) {
                return Err(bad(format!(
                    "index {i}: expected less than the {n} vertices"
                )));
            }
            if mesh.morph_weights.len() != mesh.morph_targets.len() {
                return Err(bad(format!(
                    "{} default morph weights for {} targets",
                    mesh.morph_weights.len(),
                    mesh.morph_targets.len()
                )));
            }
            for (t, target) in mesh.morph_targets.iter().enumerate() {
                let normals = target.normals.len();
                if target.positions.len() != n || (normals != n && normals != 0) {
                    return Err(bad(format!(
                        "morph target {t} ({:?}): {} position and {normals} normal deltas for {n} vertices",
                        target.name,
                        target.positions.len()
                    )));
                }
            }
            let limit = mesh.joints_used.len();
            if mesh.inverse_bind.len() != limit {
                return Err(bad(format!(
                    "{} inverse bind matrices for {limit} joints",
                    mesh.inverse_bind.len()
                )));
            }
            for (v, row) in mesh.joints.iter().chain(&mesh.joints_extra).enumerate() {
                if let Some(j) = row.iter().find(|&&j| usize::from(j) >= limit) {
                    return Err(bad(format!(
                        "vertex {} is weighted to joint {j}, out of range: the mesh has {limit} joints",
                        v % n.max(1)
                    )));
                }
            }
            if let Some(j) = mesh
                .joints_used
                .iter()
                .find(|j| !self.asset.skeleton.contains(**j))
            {
                return Err(bad(format!("joint {j} is not in the skeleton")));
            }
        }
        Ok(())
    }

    /// The clip's length in seconds (0 without a clip).
    pub fn duration(&self) -> f32 {
        self.clip.as_ref().map_or(0.0, Clip::duration)
    }

    /// Reports the `weights` tracks of the clip that are not played: their weight count is
    /// not the number of the mesh's targets.
    fn report_weight_tracks(&self, diagnostics: &mut Diagnostics) {
        let Some(clip) = &self.clip else { return };
        for (mesh, channel) in self.meshes.iter().zip(&self.morph_channels) {
            let Some(channel) = channel else { continue };
            if let Some(count) = morph::mismatched_count(clip, mesh, *channel) {
                diagnostics.warn(
                    "MORPH_WEIGHTS_NOT_PLAYED",
                    "",
                    format!(
                        "the weights track on {channel} holds {count} weights for the {} morph targets of mesh {:?}: the mesh keeps its default weights",
                        mesh.morph_targets.len(),
                        mesh.name
                    ),
                );
            }
        }
    }

    /// The joints posed at `time` (`None`: at rest; a time is clamped to the clip), and each
    /// mesh's morph weights then (see [`morph`]).
    pub fn pose(&self, time: Option<f32>) -> Pose {
        let skeleton = &self.asset.skeleton;
        let worlds = match (&self.clip, time) {
            (Some(clip), Some(t)) => {
                let mut sampler = Sampler::new(skeleton, clip);
                sampler.evaluate(t);
                sampler.worlds()
            }
            _ => Sampler::rest(skeleton).worlds(),
        };
        let morph_weights = self
            .meshes
            .iter()
            .enumerate()
            .map(|(i, mesh)| {
                let track = self
                    .clip
                    .as_ref()
                    .zip(self.morph_channels.get(i).copied().flatten())
                    .and_then(|(clip, channel)| morph::track_for(clip, mesh, channel));
                morph::weights_at(mesh, track, time)
            })
            .collect();
        Pose {
            worlds,
            morph_weights,
        }
    }

    /// The world matrix of every socket in `pose` (a socket that cannot be placed is left out).
    pub fn socket_worlds(&self, pose: &Pose) -> Vec<Mat4> {
        let rest: Vec<Mat4> = self
            .asset
            .skeleton
            .rest_worlds()
            .iter()
            .map(|w| w.to_mat4())
            .collect();
        world_all(&self.sockets, &pose.worlds, &rest, VtMode::Aligned)
            .map(|places| places.into_iter().map(|p| p.matrix).collect())
            .unwrap_or_default()
    }

    /// The vertices of every mesh in `pose`, morphed by its weights then skinned on the CPU
    /// (for the bounds).
    pub fn skinned_positions(&self, pose: &Pose) -> Vec<Vec3> {
        let mut out = Vec::new();
        for (i, mesh) in self.meshes.iter().enumerate() {
            let palette = pose.palette(mesh);
            let active = morph::active(pose.morph_weights.get(i).map_or(&[][..], Vec::as_slice));
            for v in 0..mesh.positions.len() {
                let mut m = Mat4::ZERO;
                let sets = [
                    (mesh.joints.get(v), mesh.weights.get(v)),
                    (mesh.joints_extra.get(v), mesh.weights_extra.get(v)),
                ];
                for (joints, weights) in sets {
                    let (Some(joints), Some(weights)) = (joints, weights) else {
                        continue;
                    };
                    for (j, w) in joints.iter().zip(weights) {
                        if *w != 0.0 {
                            m += *palette.get(usize::from(*j)).unwrap_or(&Mat4::IDENTITY) * *w;
                        }
                    }
                }
                out.push(m.transform_point3(morph::morphed_position(mesh, &active, v)));
            }
        }
        out
    }

    /// The box around the character over `times` (`None` in the list: at rest): its skinned
    /// vertices (at most about 20 000 of them per time, evenly picked, for speed) and its
    /// overlay joints. `None` when there is nothing.
    pub fn bounds(&self, times: &[Option<f32>]) -> Option<Bounds> {
        let mut bounds: Option<Bounds> = None;
        let vertex_count: usize = self.meshes.iter().map(SkinnedMesh::vertex_count).sum();
        let step = (vertex_count / 20_000).max(1);
        // At most about 32 of the times (evenly picked) and the last.
        let every = (times.len() / 32).max(1);
        let picked = times.iter().step_by(every).chain(times.last());
        for &t in picked {
            let pose = self.pose(t);
            let joints = self.overlay_joints.iter().map(|&j| pose.position(j));
            let vertices = self.skinned_positions(&pose).into_iter().step_by(step);
            if let Some(b) = Bounds::of(joints.chain(vertices)) {
                bounds = Some(bounds.map_or(b, |a| a.union(&b)));
            }
        }
        bounds
    }

    /// Which way it faces.
    pub fn facing(&self) -> Facing {
        self.asset.facing
    }

    /// The first humanoid's bone map (empty when it declares none).
    pub fn bones(&self) -> BoneMap {
        self.asset
            .humanoids
            .first()
            .map(|h| h.bones)
            .unwrap_or_default()
    }
}

/// The clip of `anim` retargeted onto `asset` (each mapped by the one policy,
/// [`crate::mapping::map_humanoid`]).
fn retargeted(
    anim: &Path,
    clip: Option<&str>,
    asset: &mut Asset,
    path: &Path,
    diagnostics: &mut Diagnostics,
) -> Result<Clip, Error> {
    let mut source = crate::ops::read::read_asset(anim)?.asset;
    crate::mapping::map_humanoid(&mut source, anim, None)?
        .note(&anim.display().to_string(), diagnostics);
    if asset.humanoids.is_empty() {
        crate::mapping::map_humanoid(asset, path, None)?.note("", diagnostics);
    }
    let chosen = crate::model::clip_choice::choose(&source, clip, anim)?;
    chosen.report(diagnostics);
    let picked = chosen.clip;
    crate::ops::retarget::bake(&source, picked, asset, None, diagnostics)
}

/// The joints worth drawing: the skin joints and the humanoid bones, or every joint of a file
/// that has neither (BVH, a bare skeleton); scene nodes above the rig and nodes that only hold a
/// mesh are left out.
fn overlay_joints(asset: &Asset) -> Vec<JointId> {
    let skeleton = &asset.skeleton;
    let mut keep = vec![false; skeleton.len()];
    let bones = asset
        .humanoids
        .iter()
        .flat_map(|h| h.bones.iter().map(|(_, joint)| joint));
    let mut any = false;
    for joint in asset.skin_joints.iter().copied().chain(bones) {
        if let Some(slot) = keep.get_mut(joint.index()) {
            *slot = true;
            any = true;
        }
    }
    skeleton
        .joints()
        .filter(|j| !any || keep.get(j.index()).copied().unwrap_or(false))
        .collect()
}
