//! Retargeting by world deltas from the T-pose (ARCHITECTURE.md §3).
//!
//! For each humanoid bone `b` of the source, full forward kinematics at time `t` (every joint,
//! animated non-humanoid intermediates included) gives its world rotation `W_b(t)`; its delta
//! from the T-pose is `N_b(t) = W_b(t) · (S_b · W_b(rest))⁻¹`, moved into canonical space
//! (+Z facing) by conjugating with the source's facing turn. On the target, top-down through
//! its own chain, a bone's world rotation is `W'_b(t) = N_b(t) · S'_b · W'_b(rest)` and its
//! local rotation `W'_parent(t)⁻¹ · W'_b(t)`, with `W'_parent(t)` the animated world rotation of
//! its direct parent. Non-humanoid joints keep their rest local transforms; so do translations
//! and scales, except the hips'.
//!
//! - A bone the target lacks is folded into its children: they take their own world deltas,
//!   which contain its motion.
//! - A bone the source lacks follows its nearest present ancestor (its delta).
//! - [`Keep::Positions`] (a source's own skeleton rebased, [`crate::ops::vrma_out`]) keeps every
//!   mapped bone's world position instead: the hips' path unscaled, the motion turned by the
//!   file's facing rather than the measured turn; the rest below is [`Keep::Directions`].
//! - The hips' world position is the source hips' model-space position scaled by
//!   `target rest hips height / source rest hips height` (three-vrm's and VRMA's semantics),
//!   written only when something moves the source hips (a translation on them or an
//!   ancestor); an error when it must be scaled against a source hips height ≤ 1e-6, a
//!   diagnostic when the target's height is ≤ 0. When either side is a measured rig, the
//!   legs set the scale and a vertical foot-contact offset keeps planted feet on the target's
//!   ground ([`crate::pose::ground`], docs/conventions.md §7).
//!
//! `S_b` (the T-pose correction) is the identity for files that declare a T-pose rest (glTF
//! with EXT_skeleton_humanoid, VRM, VRMA); [`Side::corrections`] can carry a measured one.

use glam::{Affine3A, Mat4, Quat, Vec3};

use crate::error::{Diagnostics, Error};
use crate::math::trs::{normalize_rotation, Trs};
use crate::model::asset::{Asset, HumanoidSkeleton};
use crate::model::clip::{Clip, Property, TrackTarget};
use crate::model::skeleton::{JointId, Skeleton};
use crate::model::HumanBone;
use crate::pose::fk::Sampler;
use crate::pose::ground::{self, GroundCurve};

/// One side of a retarget: an asset, its humanoid and its T-pose corrections.
#[derive(Debug, Clone)]
pub struct Side<'a> {
    /// The asset.
    pub asset: &'a Asset,
    /// Its humanoid skeleton.
    pub humanoid: &'a HumanoidSkeleton,
    /// `S_b` per bone (world rotations; identity for a declared T-pose).
    pub corrections: [Quat; HumanBone::COUNT],
    /// The turn from canonical space (+Z facing) into the file's space: declared (VRM 0.x
    /// faces −Z) or, for a mapped rig, measured from its left/right joints.
    pub turn: Quat,
    /// Whether the file declares its T-pose: a T-pose rest (EXT_skeleton_humanoid, VRM, VRMA)
    /// or a `TPose` reference pose (`KHR_character_reference_pose`), taken as declared.
    pub declared_t_pose: bool,
}

impl<'a> Side<'a> {
    /// The asset's first humanoid, with its T-pose corrections: the identity where the format
    /// declares a T-pose rest (EXT_skeleton_humanoid, VRM, VRMA), measured by the rest-pose
    /// normaliser otherwise (a mapped rig, a BVH).
    ///
    /// # Errors
    /// The asset declares no humanoid (map it first).
    pub fn new(asset: &'a Asset, what: &str) -> Result<Side<'a>, Error> {
        let humanoid = asset.humanoids.first().ok_or_else(|| {
            Error::unsupported(format!(
                "the {what} declares no humanoid skeleton: map its rig (--map auto or --map TABLE)"
            ))
        })?;
        use crate::pose::normalize;
        let mut declared_t_pose = humanoid.declared_t_pose;
        let (corrections, turn) = if humanoid.declared_t_pose {
            (
                [Quat::IDENTITY; HumanBone::COUNT],
                normalize::declared_turn(asset.facing),
            )
        } else if let Some((posed, t_pose)) = asset.reference_pose.as_ref().and_then(|pose| {
            let t_pose = pose.pose_type == crate::model::reference_pose::T_POSE;
            pose.skeleton(&asset.skeleton).map(|posed| (posed, t_pose))
        }) {
            if t_pose {
                // A declared T-pose is taken as declared, as a T-pose rest is.
                declared_t_pose = true;
                (
                    normalize::corrections_to(&asset.skeleton, &posed, &humanoid.bones),
                    normalize::declared_turn(asset.facing),
                )
            } else {
                // Measured in the reference pose the file declares, not guessed from the rest.
                let turn = normalize::measured_turn(&posed, &humanoid.bones)
                    .unwrap_or_else(|| normalize::declared_turn(asset.facing));
                (
                    normalize::corrections_via(&asset.skeleton, &posed, &humanoid.bones, turn),
                    turn,
                )
            }
        } else {
            let turn = normalize::measured_turn(&asset.skeleton, &humanoid.bones)
                .unwrap_or_else(|| normalize::declared_turn(asset.facing));
            (
                normalize::corrections(&asset.skeleton, &humanoid.bones, turn),
                turn,
            )
        };
        Ok(Side {
            asset,
            humanoid,
            corrections,
            turn,
            declared_t_pose,
        })
    }

    /// The same side with its corrections measured even where the format declares a T-pose
    /// (`--normalize`).
    pub fn measured(mut self) -> Side<'a> {
        self.corrections = crate::pose::normalize::corrections(
            &self.asset.skeleton,
            &self.humanoid.bones,
            self.turn,
        );
        self
    }

    fn correction(&self, bone: HumanBone) -> Quat {
        self.corrections
            .get(bone.index())
            .copied()
            .unwrap_or(Quat::IDENTITY)
    }
}

/// The target's pose at one time: a local transform per target joint.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetPose {
    /// Local transforms, indexed by target joint.
    pub locals: Vec<Trs>,
}

/// Evaluates the retargeted pose of a target at any time of a source clip.
///
/// Cloning is cheap next to [`Retargeter::new`] (no measuring): clone one per thread to pose
/// many times in parallel.
#[derive(Clone)]
pub struct Retargeter<'a> {
    target: Side<'a>,
    sampler: Sampler<'a>,
    /// Per target joint: how its world rotation at a time is made.
    target_joints: Vec<TargetJoint>,
    /// `turn'⁻¹ · turn`: from the source's space through canonical space into the target's,
    /// the left factor of every [`TargetJoint::Driven`] rotation (identity when neither side is
    /// turned).
    turn_between: Quat,
    source_turn: Quat,
    target_turn: Quat,
    hips: Option<HipsMotion>,
    gaze: Option<Gaze<'a>>,
    /// Source expression tracks carried to target expressions: (track, target expression
    /// name).
    expressions: Vec<(&'a crate::model::clip::Track, String)>,
    /// Scratch: target world rotations.
    world: Vec<Quat>,
    /// The hips' vertical offset that keeps planted feet on the target's ground (when the legs
    /// set the hips scale: a measured rig on either side).
    ground: Option<GroundCurve>,
}

/// At most this many source times are posed to find foot plants ([`crate::pose::ground`]).
pub const GROUND_SAMPLES: usize = 4096;

/// What a retarget keeps of the source's motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Keep {
    /// Another character plays the motion: bone directions are kept, the hips' path is scaled
    /// (the hips-height ratio, or the legs with feet kept on the ground: see the module docs),
    /// both sides turned by their measured turns.
    Directions,
    /// The target is the source's own skeleton rebased on its T-pose (a VRMA of the file's
    /// clip, [`crate::ops::vrma_out`]): every mapped bone keeps its world position. The hips' path
    /// is the source's, unscaled, and is written at every key even where nothing moves the
    /// source hips (the target's rest hips may stand elsewhere); the motion is turned into
    /// canonical space by `facing` (canonical → source file, a turn about +Y, e.g. the file's
    /// facing to the nearest quarter turn) instead of the measured turn that built the
    /// T-pose, so that a rest that stands turned (a mid-stride node pose) does not turn the
    /// motion with it. Exact when the target's T-pose offsets are the source's rest offsets
    /// turned by `S_b` and the measured turn, and the source's unmapped joints keep their rest
    /// local transforms over the clip.
    Positions {
        /// The turn from canonical space into the source file's space that the motion is
        /// taken through.
        facing: Quat,
    },
}

/// How a target joint's world rotation `W'(t)` is made at a time.
#[derive(Debug, Clone, Copy)]
enum TargetJoint {
    /// Not a humanoid bone: its rest local rotation under its parent's world rotation.
    Follows,
    /// A bone that nothing of the source drives (identity delta): `S'_b · W'_b(rest)`.
    Fixed(Quat),
    /// A bone driven by a source joint: `W'_b(t) = N_b(t) · S'_b · W'_b(rest)`, with the
    /// canonical delta `N_b(t) = s · W(t) · (S_b · W_b(rest))⁻¹ · s⁻¹` (`s` the source's turn,
    /// `W(t)` the source joint's world rotation) carried into the target's space by its turn
    /// `s'`: `W'_b(t) = (s'⁻¹ · s) · W(t) · after`, the constant factors multiplied once into
    /// `after = (S_b · W_b(rest))⁻¹ · s⁻¹ · s' · S'_b · W'_b(rest)`.
    Driven {
        /// The source joint whose world rotation drives the bone.
        source: JointId,
        /// The constant right factor.
        after: Quat,
    },
}

/// The gaze applied to the target's eyes (VRM look-at, bone type), as three-vrm does.
#[derive(Clone)]
struct Gaze<'a> {
    track: Option<&'a crate::model::clip::Track>,
    look: crate::model::face::LookAt,
    /// (eye joint, parent's world rest rotation, rest local rotation) for left and right.
    eyes: [Option<(JointId, Quat, Quat)>; 2],
}

/// How the hips move: the source hips joint, the scale and the target hips' parent.
#[derive(Debug, Clone, Copy)]
struct HipsMotion {
    source: JointId,
    target: JointId,
    ratio: f32,
    /// Canonical-space points that stay put: `p' = ratio · (p − from) + to` (both zero in
    /// three-vrm's semantics; the ankle heights when legs set the scale).
    from: Vec3,
    to: Vec3,
    /// From the world into the target hips' parent's rest frame (the inverse of its world
    /// matrix, inverted once here).
    to_parent: Mat4,
    /// When legs set the scale, the point moved is the midpoint of the hip sockets (the upper
    /// legs' joints), not the hips joint: the source's sockets, and the target's socket
    /// midpoint relative to its hips joint in the hips' rest frame.
    sockets: Option<([JointId; 2], Vec3)>,
}

impl<'a> Retargeter<'a> {
    /// Prepares retargeting `clip` (of the source asset) onto the target.
    ///
    /// # Errors
    /// A hips translation must be scaled against a source hips height ≤ 1e-6.
    pub fn new(
        source: Side<'a>,
        clip: &'a Clip,
        target: Side<'a>,
        diagnostics: &mut Diagnostics,
    ) -> Result<Retargeter<'a>, Error> {
        Retargeter::keeping(source, clip, target, Keep::Directions, diagnostics)
    }

    /// As [`Retargeter::new`], keeping what `keep` says of the motion.
    ///
    /// # Errors
    /// With [`Keep::Directions`], a hips translation must be scaled against a source hips
    /// height ≤ 1e-6.
    pub fn keeping(
        source: Side<'a>,
        clip: &'a Clip,
        target: Side<'a>,
        keep: Keep,
        diagnostics: &mut Diagnostics,
    ) -> Result<Retargeter<'a>, Error> {
        let sampler = Sampler::new(&source.asset.skeleton, clip);
        let rest_rotations = |asset: &Asset| -> Vec<Quat> {
            asset
                .skeleton
                .rest_worlds()
                .iter()
                .map(|w| Trs::from_mat4(w.to_mat4()).rotation)
                .collect()
        };
        let source_rest = rest_rotations(source.asset);
        let target_rest = rest_rotations(target.asset);
        // Per canonical bone: the source joint whose delta drives it (its own, else its nearest
        // present ancestor's), and the inverse of that joint's T-pose world rotation
        // `(S_b · W_b(rest))⁻¹`.
        let mut driver = [None; HumanBone::COUNT];
        for bone in HumanBone::ALL {
            let present = std::iter::once(bone)
                .chain(bone.ancestors())
                .find_map(|b| source.humanoid.bones.get(b).map(|j| (j, b)));
            if let (Some(slot), Some((joint, driving))) = (driver.get_mut(bone.index()), present) {
                let rest = source_rest
                    .get(joint.index())
                    .copied()
                    .unwrap_or(Quat::IDENTITY);
                *slot = Some((joint, (source.correction(driving) * rest).inverse()));
            }
        }
        let (source_turn, target_turn) = (source.turn.inverse(), target.turn.inverse());
        let target_joints = target
            .asset
            .skeleton
            .joints()
            .map(|joint| {
                let Some(bone) = target.humanoid.bones.bone_of(joint) else {
                    return TargetJoint::Follows;
                };
                let rest = target_rest
                    .get(joint.index())
                    .copied()
                    .unwrap_or(Quat::IDENTITY);
                let fixed = target.correction(bone) * rest;
                match driver.get(bone.index()).copied().flatten() {
                    Some((source, inverse_t_pose)) => TargetJoint::Driven {
                        source,
                        after: inverse_t_pose * source_turn.inverse() * target_turn * fixed,
                    },
                    None => TargetJoint::Fixed(fixed),
                }
            })
            .collect();
        let (hips, turn_between, source_turn) = match keep {
            Keep::Directions => (
                hips_motion(&source, clip, &target, diagnostics)?,
                target_turn.inverse() * source_turn,
                source_turn,
            ),
            Keep::Positions { facing } => (
                kept_hips(&source, &target),
                target_turn.inverse() * facing.inverse(),
                facing.inverse(),
            ),
        };
        let gaze = gaze(clip, &target);
        let expressions = clip
            .tracks()
            .iter()
            .filter_map(|track| match track.target() {
                TrackTarget::Expression(i) => {
                    let name = &source.asset.expressions.get(usize::from(i))?.name;
                    let present = target.asset.expressions.iter().any(|e| &e.name == name);
                    present.then(|| (track, name.clone()))
                }
                _ => None,
            })
            .collect();
        let mut retargeter = Retargeter {
            gaze,
            expressions,
            target_joints,
            turn_between,
            source_turn,
            target_turn,
            world: vec![Quat::IDENTITY; target.asset.skeleton.len()],
            target,
            sampler,
            hips,
            ground: None,
        };
        if retargeter.hips.is_some_and(|h| h.sockets.is_some()) {
            // Each foot both sides have: (source joint, target joint).
            let feet: Vec<(JointId, JointId)> = [HumanBone::LeftFoot, HumanBone::RightFoot]
                .iter()
                .filter_map(|&b| {
                    Some((
                        source.humanoid.bones.get(b)?,
                        retargeter.target.humanoid.bones.get(b)?,
                    ))
                })
                .collect();
            retargeter.ground = retargeter.measure_ground(&feet);
        }
        Ok(retargeter)
    }

    /// A source joint's position at the time last posed ([`Retargeter::pose_into`]), in
    /// canonical space (+Z facing, the source's units).
    pub fn source_position(&self, joint: JointId) -> Vec3 {
        self.source_turn * self.sampler.world_position(joint)
    }

    /// Every key time of the source clip's joint tracks (the times a baked clip needs).
    pub fn key_times(&self) -> Vec<f32> {
        self.sampler.key_times()
    }

    /// The target's pose at time `t` of the source clip.
    pub fn pose_at(&mut self, t: f32) -> TargetPose {
        let mut locals = Vec::new();
        self.pose_into(t, &mut locals);
        TargetPose { locals }
    }

    /// As [`Retargeter::pose_at`], into a reused buffer of local transforms (one per target
    /// joint).
    pub fn pose_into(&mut self, t: f32, locals: &mut Vec<Trs>) {
        self.sampler.evaluate(t);
        let skeleton = &self.target.asset.skeleton;
        locals.clear();
        locals.extend_from_slice(skeleton.rest_locals());
        let turned = self.turn_between != Quat::IDENTITY;
        let parents = skeleton.parents();
        for (i, target_joint) in self.target_joints.iter().enumerate() {
            let parent_world = parents
                .get(i)
                .copied()
                .flatten()
                .and_then(|p| self.world.get(p.index()).copied())
                .unwrap_or(Quat::IDENTITY);
            // A bone's world rotation is set, and its local rotation follows from its parent's;
            // any other joint keeps its local rotation.
            let (world, bone) = match *target_joint {
                TargetJoint::Follows => (
                    parent_world * locals.get(i).map_or(Quat::IDENTITY, |l| l.rotation),
                    false,
                ),
                TargetJoint::Fixed(fixed) => (fixed, true),
                TargetJoint::Driven { source, after } => {
                    let w = self.sampler.world_rotation(source);
                    let world = if turned {
                        self.turn_between * w * after
                    } else {
                        w * after
                    };
                    (world, true)
                }
            };
            if bone {
                if let Some(local) = locals.get_mut(i) {
                    local.rotation = normalize_rotation(parent_world.inverse() * world);
                }
            }
            if let Some(slot) = self.world.get_mut(i) {
                *slot = world;
            }
        }
        let to_target = self.target_turn.inverse();
        if let Some(gaze) = &self.gaze {
            let (yaw, pitch) = gaze
                .track
                .and_then(|track| track.sample_quat(t))
                .map_or((0.0, 0.0), crate::pose::look_at::yaw_pitch);
            let (left, right) = crate::pose::look_at::eye_rotations(&gaze.look, yaw, pitch);
            for (eye, rotation) in gaze.eyes.iter().zip([left, right]) {
                if let Some((joint, parent, rest)) = eye {
                    if let Some(local) = locals.get_mut(joint.index()) {
                        local.rotation =
                            (parent.inverse() * rotation * *parent * *rest).normalize();
                    }
                }
            }
        }
        if let Some(hips) = self.hips {
            let position = self.sampler.world_position(hips.source);
            let world = match hips.sockets {
                None => {
                    let canonical =
                        (self.source_turn * position - hips.from) * hips.ratio + hips.to;
                    to_target * canonical
                }
                Some(([left, right], offset)) => {
                    let socket = (self.sampler.world_position(left)
                        + self.sampler.world_position(right))
                        * 0.5;
                    let canonical = (self.source_turn * socket - hips.from) * hips.ratio + hips.to;
                    let hips_rotation = self
                        .world
                        .get(hips.target.index())
                        .copied()
                        .unwrap_or(Quat::IDENTITY);
                    to_target * canonical - hips_rotation * offset
                }
            };
            let world = match &self.ground {
                Some(ground) => world + Vec3::Y * ground.at(t),
                None => world,
            };
            if let Some(local) = locals.get_mut(hips.target.index()) {
                local.translation = hips.to_parent.transform_point3(world);
            }
        }
    }
}

impl Retargeter<'_> {
    /// The hips' vertical offsets that put the target's planted feet on its ground
    /// ([`crate::pose::ground`]), measured at the source's key times (at most
    /// [`GROUND_SAMPLES`], evenly spread when there are more). `None` without feet or plants.
    fn measure_ground(&mut self, feet: &[(JointId, JointId)]) -> Option<GroundCurve> {
        let hips = self.hips?;
        if feet.is_empty() {
            return None;
        }
        let mut times = self.key_times();
        if times.len() > GROUND_SAMPLES {
            let (first, last) = (times.first().copied()?, times.last().copied()?);
            times = (0..GROUND_SAMPLES)
                .map(|i| first + (last - first) * i as f32 / (GROUND_SAMPLES - 1) as f32)
                .collect();
        }
        let skeleton = &self.target.asset.skeleton;
        let rest: Vec<f32> = feet
            .iter()
            .map(|(_, t)| skeleton.rest_world(*t).translation.y)
            .collect();
        let mut source_feet = vec![Vec::with_capacity(times.len()); feet.len()];
        let mut target_feet = vec![Vec::with_capacity(times.len()); feet.len()];
        let (mut locals, mut worlds) = (Vec::new(), Vec::new());
        for &t in &times {
            self.pose_into(t, &mut locals);
            world_matrices_into(self.target.asset, &locals, &mut worlds);
            for (k, (source, target)) in feet.iter().enumerate() {
                let p = self.source_turn * self.sampler.world_position(*source) * hips.ratio;
                let y = worlds.get(target.index()).map_or(0.0, |w| w.translation.y);
                if let (Some(s), Some(t)) = (source_feet.get_mut(k), target_feet.get_mut(k)) {
                    s.push(p);
                    t.push(y);
                }
            }
        }
        let plants: Vec<Vec<bool>> = source_feet
            .iter()
            .map(|p| ground::planted(&times, p, ground::PLANT_HEIGHT, ground::PLANT_SPEED))
            .collect();
        let offsets: Vec<Option<f32>> = (0..times.len())
            .map(|i| {
                let needs: Vec<Option<f32>> = (0..feet.len())
                    .map(|k| {
                        let planted = plants.get(k)?.get(i).copied()?;
                        let has = *target_feet.get(k)?.get(i)?;
                        planted.then(|| rest.get(k).copied().unwrap_or(0.0) - has)
                    })
                    .collect();
                ground::frame_offset(&needs)
            })
            .collect();
        GroundCurve::from_frames(&times, &offsets)
    }

    /// The gaze (yaw, pitch in degrees) at `t`, when the target has a look-at: from the
    /// source's look-at track, else straight ahead.
    pub fn gaze_at(&self, t: f32) -> Option<(f32, f32)> {
        let gaze = self.gaze.as_ref()?;
        Some(
            gaze.track
                .and_then(|track| track.sample_quat(t))
                .map_or((0.0, 0.0), crate::pose::look_at::yaw_pitch),
        )
    }

    /// The weights at `t` of the source's expression tracks that the target has, by name
    /// (clamped to `[0, 1]`).
    pub fn expression_weights(&self, t: f32) -> Vec<(String, f32)> {
        self.expressions
            .iter()
            .map(|(track, name)| {
                let mut w = [0.0];
                track.sample(t, &mut w);
                (name.clone(), w[0].clamp(0.0, 1.0))
            })
            .collect()
    }
}

/// The gaze rig of a target with a bone-type look-at.
fn gaze<'a>(clip: &'a Clip, target: &Side<'_>) -> Option<Gaze<'a>> {
    let look = target.asset.look_at.clone()?;
    let track = clip.track(TrackTarget::LookAt, Property::Rotation);
    if look.kind != crate::model::face::LookAtKind::Bone {
        return Some(Gaze {
            track,
            look,
            eyes: [None, None],
        });
    }
    let skeleton = &target.asset.skeleton;
    let eye = |bone: HumanBone| {
        let joint = target.humanoid.bones.get(bone)?;
        let parent = skeleton.parent(joint).map_or(Quat::IDENTITY, |p| {
            Trs::from_mat4(skeleton.rest_world(p).to_mat4()).rotation
        });
        Some((joint, parent, skeleton.rest_local(joint).rotation))
    };
    Some(Gaze {
        track,
        look,
        eyes: [eye(HumanBone::LeftEye), eye(HumanBone::RightEye)],
    })
}

/// The hips' path kept as it is ([`Keep::Positions`]): the source hips' world position, at
/// every time, unscaled.
fn kept_hips(source: &Side<'_>, target: &Side<'_>) -> Option<HipsMotion> {
    let source_hips = source.humanoid.bones.get(HumanBone::Hips)?;
    let target_hips = target.humanoid.bones.get(HumanBone::Hips)?;
    let skeleton = &target.asset.skeleton;
    Some(HipsMotion {
        source: source_hips,
        target: target_hips,
        ratio: 1.0,
        from: Vec3::ZERO,
        to: Vec3::ZERO,
        to_parent: skeleton.parent(target_hips).map_or(Mat4::IDENTITY, |p| {
            skeleton.rest_world(p).to_mat4().inverse()
        }),
        sockets: None,
    })
}

/// Whether something moves the source hips, and the scale for their position.
fn hips_motion(
    source: &Side<'_>,
    clip: &Clip,
    target: &Side<'_>,
    diagnostics: &mut Diagnostics,
) -> Result<Option<HipsMotion>, Error> {
    let (Some(source_hips), Some(target_hips)) = (
        source.humanoid.bones.get(HumanBone::Hips),
        target.humanoid.bones.get(HumanBone::Hips),
    ) else {
        return Ok(None);
    };
    let skeleton = &source.asset.skeleton;
    let moves = std::iter::once(source_hips)
        .chain(skeleton.ancestors(source_hips))
        .any(|j| {
            clip.track(TrackTarget::Joint(j), Property::Translation)
                .is_some()
                || (j != source_hips && clip.tracks_for(TrackTarget::Joint(j)).next().is_some())
        });
    if !moves {
        return Ok(None);
    }
    let source_height = side_hips_height(source, source_hips);
    let target_skeleton = &target.asset.skeleton;
    let target_height = side_hips_height(target, target_hips);
    if source_height <= 1e-6 {
        return Err(Error::unsupported(format!(
            "the source hips are {source_height} m above the ground at rest: their motion cannot be scaled to the target (hips-height ratio)"
        )));
    }
    if target_height <= 0.0 {
        diagnostics.warn(
            "RETARGET_HIPS_HEIGHT",
            "",
            format!("the target hips are {target_height} m above the ground at rest; the hips motion is scaled by {}", target_height / source_height),
        );
    }
    let to_parent = target_skeleton
        .parent(target_hips)
        .map_or(Mat4::IDENTITY, |p| {
            target_skeleton.rest_world(p).to_mat4().inverse()
        });
    // Between two files that declare a T-pose, three-vrm's rule: the absolute position scaled
    // by the hips-height ratio. When a side is a measured rig, the legs set the scale (their
    // lengths may be a different share of the hips height) and the ankles stay at their
    // heights, so a planted foot lands on the target's ground.
    let legs = (!source.declared_t_pose || !target.declared_t_pose)
        .then(|| Some((leg_length(source)?, leg_length(target)?)))
        .flatten();
    let (ratio, from, to) = match legs {
        Some((source_leg, target_leg)) if source_leg > 1e-6 => (
            target_leg / source_leg,
            Vec3::new(0.0, lowest_ankle(source, clip), 0.0),
            Vec3::new(0.0, rest_ankle(target), 0.0),
        ),
        _ => (target_height / source_height, Vec3::ZERO, Vec3::ZERO),
    };
    let sockets = if from == Vec3::ZERO && to == Vec3::ZERO {
        None
    } else {
        hip_sockets(source, target, target_hips)
    };
    Ok(Some(HipsMotion {
        source: source_hips,
        target: target_hips,
        ratio,
        from,
        to,
        to_parent,
        sockets,
    }))
}

/// The source's upper-leg joints, and the target's hip-socket midpoint relative to its hips
/// joint in the hips' rest frame (in the target file's space).
fn hip_sockets(
    source: &Side<'_>,
    target: &Side<'_>,
    target_hips: JointId,
) -> Option<([JointId; 2], Vec3)> {
    let pair = |side: &Side<'_>| {
        Some([
            side.humanoid.bones.get(HumanBone::LeftUpperLeg)?,
            side.humanoid.bones.get(HumanBone::RightUpperLeg)?,
        ])
    };
    let source_pair = pair(source)?;
    let [l, r] = pair(target)?;
    let skeleton = &target.asset.skeleton;
    let socket = (skeleton.rest_world(l).translation + skeleton.rest_world(r).translation) * 0.5;
    let hips = skeleton.rest_world(target_hips);
    let rest_rotation = Trs::from_mat4(hips.to_mat4()).rotation;
    Some((
        source_pair,
        rest_rotation.inverse() * (socket - hips.translation),
    ))
}

/// A side's leg length: upper leg + lower leg, the mean of both sides (segment lengths do
/// not depend on the rest pose).
fn leg_length(side: &Side<'_>) -> Option<f32> {
    crate::pose::contacts::solve::leg_length(&side.asset.skeleton, &side.humanoid.bones)
}

/// The feet joints' height above the ground when they stand on it: for the source, the lowest
/// either foot joint gets over the clip (sampled at 256 times); the floor is `y = 0`.
fn lowest_ankle(side: &Side<'_>, clip: &Clip) -> f32 {
    let bones = &side.humanoid.bones;
    let feet: Vec<JointId> = [HumanBone::LeftFoot, HumanBone::RightFoot]
        .iter()
        .filter_map(|b| bones.get(*b))
        .collect();
    let mut sampler = Sampler::new(&side.asset.skeleton, clip);
    let (start, end) = (0.0f32, clip.duration());
    let turn = side.turn.inverse();
    let mut lowest = f32::INFINITY;
    for i in 0..256 {
        sampler.evaluate(start + (end - start) * i as f32 / 255.0);
        for foot in &feet {
            lowest = lowest.min((turn * sampler.world_position(*foot)).y);
        }
    }
    if lowest.is_finite() {
        lowest
    } else {
        0.0
    }
}

/// The target's feet joints' height at rest (the mean of both), the floor being `y = 0`.
fn rest_ankle(side: &Side<'_>) -> f32 {
    let skeleton = &side.asset.skeleton;
    let heights: Vec<f32> = [HumanBone::LeftFoot, HumanBone::RightFoot]
        .iter()
        .filter_map(|b| side.humanoid.bones.get(*b))
        .map(|j| (side.turn.inverse() * skeleton.rest_world(j).translation).y)
        .collect();
    if heights.is_empty() {
        0.0
    } else {
        heights.iter().sum::<f32>() / heights.len() as f32
    }
}

/// The hips height of a side for the hips-height ratio: for a declared T-pose (VRM, VRMA,
/// EXT), [`hips_height`] as three-vrm measures it; for a measured rig, the height in its
/// reconstructed T-pose (legs straight down), so that a mid-stride or splayed rest (Soldier's
/// node pose, CMU's BVH rest) does not skew the scale.
fn side_hips_height(side: &Side<'_>, hips: JointId) -> f32 {
    if side.humanoid.declared_t_pose {
        return hips_height(side.asset, hips);
    }
    if side.declared_t_pose {
        // A declared T-pose reference pose: the hips' height in it.
        if let Some(posed) = side
            .asset
            .reference_pose
            .as_ref()
            .and_then(|p| p.skeleton(&side.asset.skeleton))
        {
            return hips_height_in(&posed, hips);
        }
    }
    crate::pose::normalize::t_pose_hips_height(
        &side.asset.skeleton,
        &side.humanoid.bones,
        &side.corrections,
    )
    .filter(|h| *h > 1e-6)
    .unwrap_or_else(|| hips_height(side.asset, hips))
}

/// The rest hips height used for the hips-height ratio: the hips' height above the ground
/// (`y`, as VRM and VRMA put the feet on `y = 0`), or, when that is not positive (a BVH rest
/// with the root at the origin), their height above the lowest joint of the rest pose.
pub fn hips_height(asset: &Asset, hips: JointId) -> f32 {
    hips_height_in(&asset.skeleton, hips)
}

/// [`hips_height`] in `skeleton`'s rest (a declared reference pose's skeleton, say).
fn hips_height_in(skeleton: &Skeleton, hips: JointId) -> f32 {
    let y = skeleton.rest_world(hips).translation.y;
    if y > 1e-6 {
        return y;
    }
    let lowest = skeleton
        .rest_worlds()
        .iter()
        .map(|w| w.translation.y)
        .fold(f32::INFINITY, f32::min);
    if lowest.is_finite() {
        y - lowest
    } else {
        y
    }
}

/// World transforms of a target pose (affine matrices per joint).
pub fn world_matrices(asset: &Asset, pose: &TargetPose) -> Vec<Mat4> {
    let mut worlds = Vec::new();
    world_matrices_into(asset, &pose.locals, &mut worlds);
    worlds.into_iter().map(Mat4::from).collect()
}

/// As [`world_matrices`], from local transforms (one per joint, as
/// [`Retargeter::pose_into`] writes them) into a reused buffer of affine transforms (what a
/// runtime keeps per frame: 3×4, cheaper to compose than 4×4).
pub fn world_matrices_into(asset: &Asset, locals: &[Trs], worlds: &mut Vec<Affine3A>) {
    let skeleton = &asset.skeleton;
    worlds.clear();
    worlds.reserve(skeleton.len());
    for (i, parent) in skeleton.parents().iter().enumerate() {
        let local = locals.get(i).map_or(Affine3A::IDENTITY, |l| {
            Affine3A::from_scale_rotation_translation(l.scale, l.rotation, l.translation)
        });
        let world = match parent.and_then(|p| worlds.get(p.index())) {
            Some(parent) => *parent * local,
            None => local,
        };
        worlds.push(world);
    }
}

/// A world position and rotation, for reports.
pub fn position_rotation(world: Mat4) -> (Vec3, Quat) {
    let trs = Trs::from_mat4(world);
    (trs.translation, trs.rotation)
}
