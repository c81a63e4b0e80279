//! What a reader hands back in canonical terms: the skeleton, the humanoid bone maps declared
//! on it, and the clips, with every diagnostic found on the way. Reading a file into it is
//! [`crate::ops::read`]'s job; this module knows no file format beyond the [`Format`] tag
//! that says where a character came from.

use std::path::Path;

use super::clip::{Clip, TrackTarget};
use super::face::{Expression, LookAt};
use super::format::Format;
use super::humanoid::{BoneMap, Meta};
use super::reference_pose::ReferencePose;
use super::skeleton::{JointId, RawJoint, Skeleton};
use crate::error::{Diagnostics, Error};

/// A file read into the canonical model.
#[derive(Debug, Clone)]
pub struct Asset {
    /// The format it was read from.
    pub format: Format,
    /// Every joint of the file (glTF: every node), parents first.
    pub skeleton: Skeleton,
    /// For each joint, its index in the file (glTF: the node index).
    pub source_indices: Vec<usize>,
    /// The humanoid skeletons declared on it (EXT_skeleton_humanoid allows several).
    pub humanoids: Vec<HumanoidSkeleton>,
    /// The clips; joint tracks refer to [`Asset::skeleton`].
    pub clips: Vec<Clip>,
    /// Which way the character faces in the file's space.
    pub facing: Facing,
    /// Authorship and licence, where the format has them (VRM `meta`).
    pub meta: Option<Meta>,
    /// Where the character looks from (VRM `lookAt`).
    pub look_at: Option<LookAt>,
    /// Named facial expressions (VRM expressions / 0.x blend-shape groups).
    pub expressions: Vec<Expression>,
    /// Joints of any skin (empty for a skinless file), in skeleton order.
    pub skin_joints: Vec<JointId>,
    /// Skin joints that some vertex is weighted to (end/tip joints usually are not).
    pub weighted_joints: Vec<JointId>,
    /// Joints that are not bones but things the file hangs on its tree: glTF nodes that draw a
    /// mesh or hold a camera or a light (and are no skin joint). [`Asset::rig_only`] leaves
    /// them out; empty for formats whose joints are all bones (BVH, H-Anim).
    pub attachments: Vec<JointId>,
    /// The reference pose the file declares apart from its rest (glTF
    /// `KHR_character_reference_pose`), which the T-pose normaliser measures in.
    pub reference_pose: Option<ReferencePose>,
}

/// The direction a character faces in its file's space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Facing {
    /// +Z: glTF, EXT_skeleton_humanoid, VRM 1.0, VRMA.
    #[default]
    PlusZ,
    /// −Z: VRM 0.x.
    MinusZ,
}

impl Asset {
    /// An asset with these joints and nothing else (no humanoid, clips or metadata), facing +Z.
    pub fn new(format: Format, skeleton: Skeleton, source_indices: Vec<usize>) -> Asset {
        Asset {
            format,
            skeleton,
            source_indices,
            humanoids: Vec::new(),
            clips: Vec::new(),
            facing: Facing::PlusZ,
            meta: None,
            look_at: None,
            expressions: Vec::new(),
            skin_joints: Vec::new(),
            weighted_joints: Vec::new(),
            attachments: Vec::new(),
            reference_pose: None,
        }
    }
}

/// One humanoid skeleton declared in a file: a root joint and the bone map.
#[derive(Debug, Clone, PartialEq)]
pub struct HumanoidSkeleton {
    /// The skeleton's root joint (EXT `rootNode`).
    pub root: Option<JointId>,
    /// Canonical bone → joint.
    pub bones: BoneMap,
    /// Whether the file's format declares the rest to be the canonical T-pose (EXT_skeleton_humanoid,
    /// VRM, VRMA): its T-pose corrections are then the identity unless measured on request. A
    /// humanoid found by mapping a rig declares nothing: its corrections are measured.
    pub declared_t_pose: bool,
}

impl Asset {
    /// The clip named `name`, or the first clip when no name is given.
    pub fn clip(&self, name: Option<&str>) -> Option<&Clip> {
        match name {
            Some(name) => self.clips.iter().find(|c| c.name == name),
            None => self.clips.first(),
        }
    }

    /// The clip `name`, or without a name the one [`super::clip_choice::choose`] takes (the
    /// first that moves, when there are several), or an error naming `file` and the clips it
    /// has.
    ///
    /// # Errors
    /// No clip has that name, or the asset has no clip.
    pub fn clip_or_error(&self, name: Option<&str>, file: &Path) -> Result<&Clip, Error> {
        super::clip_choice::choose(self, name, file).map(|chosen| chosen.clip)
    }

    /// The file's own index of `joint` (glTF: node index).
    pub fn source_index(&self, joint: JointId) -> usize {
        self.source_indices
            .get(joint.index())
            .copied()
            .unwrap_or(joint.index())
    }
}

/// An [`Asset`] and the diagnostics found while reading it.
#[derive(Debug, Clone)]
pub struct ReadOutcome {
    /// What was read.
    pub asset: Asset,
    /// What was dropped, guessed or found wrong.
    pub diagnostics: Diagnostics,
}

impl Asset {
    /// The asset cut down to its rig: the skin joints, the humanoid bones and roots, their
    /// ancestors (every world transform kept), and the joints below them that hold nothing (bone
    /// tips such as Mixamo's `HeadTop_End`, Blender's `_end` leaves, IK targets). What is left
    /// out are the [attachments](Asset::attachments) (glTF nodes that draw a mesh or hold a
    /// camera or a light), what hangs below them, and nodes outside the rig's tree, with their
    /// tracks. An asset with neither a skin nor a humanoid, and a BVH or H-Anim asset (every
    /// joint of those is a joint), is returned whole.
    ///
    /// What formats that hold only a skeleton (BVH) write.
    ///
    /// ```
    /// use humanoid::asset::Asset;
    /// use humanoid::formats::Format;
    /// use humanoid::model::skeleton::{RawJoint, Skeleton};
    /// use humanoid::pose::Trs;
    ///
    /// let raw = vec![
    ///     RawJoint { name: "root".into(), parent: None, rest: Trs::IDENTITY },
    ///     RawJoint { name: "hips".into(), parent: Some(0), rest: Trs::IDENTITY },
    ///     RawJoint { name: "hips_tip".into(), parent: Some(1), rest: Trs::IDENTITY },
    ///     RawJoint { name: "body mesh".into(), parent: Some(0), rest: Trs::IDENTITY },
    /// ];
    /// let (skeleton, ids) = Skeleton::from_raw(raw)?;
    /// let mut asset = Asset::new(Format::Glb, skeleton, vec![0, 1, 2, 3]);
    /// asset.skin_joints = vec![ids[1]];
    /// asset.attachments = vec![ids[3]];
    /// let rig = asset.rig_only();
    /// assert_eq!(rig.skeleton.names(), ["root", "hips", "hips_tip"]);
    /// assert_eq!(rig.source_indices, [0, 1, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn rig_only(&self) -> Asset {
        if !self.format.is_gltf_family() {
            return self.clone();
        }
        let skeleton = &self.skeleton;
        let mut keep = vec![false; skeleton.len()];
        let bones = self.humanoids.iter().flat_map(|h| {
            h.root
                .into_iter()
                .chain(h.bones.iter().map(|(_, joint)| joint))
        });
        let mut any = false;
        for joint in self.skin_joints.iter().copied().chain(bones) {
            if !skeleton.contains(joint) {
                continue;
            }
            any = true;
            for j in std::iter::once(joint).chain(skeleton.ancestors(joint)) {
                if let Some(slot) = keep.get_mut(j.index()) {
                    *slot = true;
                }
            }
        }
        if !any {
            return self.clone();
        }
        // Below the rig, what holds nothing is a bone too (parents come first).
        for joint in skeleton.joints() {
            let under_rig = skeleton
                .parent(joint)
                .is_some_and(|p| keep.get(p.index()).copied().unwrap_or(false));
            if under_rig && !self.attachments.contains(&joint) {
                if let Some(slot) = keep.get_mut(joint.index()) {
                    *slot = true;
                }
            }
        }
        if keep.iter().all(|&k| k) {
            return self.clone();
        }

        let mut new_index: Vec<Option<usize>> = vec![None; skeleton.len()];
        let mut raw = Vec::new();
        let mut source_indices = Vec::new();
        for joint in skeleton.joints() {
            if !keep.get(joint.index()).copied().unwrap_or(false) {
                continue;
            }
            if let Some(slot) = new_index.get_mut(joint.index()) {
                *slot = Some(raw.len());
            }
            raw.push(RawJoint {
                name: skeleton.name(joint).to_owned(),
                parent: skeleton
                    .parent(joint)
                    .and_then(|p| new_index.get(p.index()).copied().flatten()),
                rest: skeleton.rest_local(joint),
            });
            source_indices.push(self.source_index(joint));
        }
        // Parents come first in `skeleton` and are kept with their children, so the kept
        // joints are already in depth-first order: `from_raw` keeps that order.
        let Ok((rig, ids)) = Skeleton::from_raw(raw) else {
            return self.clone();
        };
        let map = |joint: JointId| {
            new_index
                .get(joint.index())
                .copied()
                .flatten()
                .and_then(|i| ids.get(i).copied())
        };
        let humanoids = self
            .humanoids
            .iter()
            .map(|h| {
                let mut bones = BoneMap::new();
                for (bone, joint) in h.bones.iter() {
                    bones.set(bone, map(joint));
                }
                HumanoidSkeleton {
                    root: h.root.and_then(map),
                    bones,
                    declared_t_pose: h.declared_t_pose,
                }
            })
            .collect();
        let clips = self
            .clips
            .iter()
            .map(|clip| {
                let mut kept = Clip::new(clip.name.clone());
                for track in clip.tracks() {
                    match track.target() {
                        TrackTarget::Joint(joint) => {
                            if let Some(new) = map(joint) {
                                kept.add_track(track.with_target(TrackTarget::Joint(new)));
                            }
                        }
                        _ => kept.add_track(track.clone()),
                    }
                }
                kept
            })
            .collect();
        let reference_pose = self.reference_pose.as_ref().map(|pose| ReferencePose {
            pose_type: pose.pose_type.clone(),
            locals: skeleton
                .joints()
                .filter(|j| keep.get(j.index()).copied().unwrap_or(false))
                .map(|j| {
                    pose.locals
                        .get(j.index())
                        .copied()
                        .unwrap_or(skeleton.rest_local(j))
                })
                .collect(),
        });
        let mut look_at = self.look_at.clone();
        if let Some(look_at) = &mut look_at {
            look_at.joint = look_at.joint.and_then(map);
        }
        Asset {
            format: self.format,
            skeleton: rig,
            source_indices,
            humanoids,
            clips,
            facing: self.facing,
            meta: self.meta.clone(),
            look_at,
            expressions: self.expressions.clone(),
            skin_joints: self.skin_joints.iter().filter_map(|&j| map(j)).collect(),
            weighted_joints: self
                .weighted_joints
                .iter()
                .filter_map(|&j| map(j))
                .collect(),
            attachments: Vec::new(),
            reference_pose,
        }
    }
}
