//! What the writers write, decided once for all three encodings: joint names and DEF names,
//! centres, the LOA, sites, and the clips as interpolator keys.
//!
//! ## Overview
//!
//! - **Joints.** Every joint of the skeleton, or, when the asset has a skin, its skin joints
//!   and their ancestors (so a glTF file's mesh nodes do not become joints), less the nodes
//!   above every mapped bone that are not joints (`frame`: their translation and scale become
//!   the humanoid's), so the top joint is the hips' `humanoid_root`.
//! - **Names.** A joint the humanoid map makes a canonical bone gets that bone's name from the
//!   `hanim-2` table (its first: `hips` → `humanoid_root`, `spine` → `vl5`, …), unless its own
//!   name is a standard one a reader takes for the same bone; other joints keep a standard
//!   H-Anim name, or their own made valid (whitespace and control characters as `_`). Every
//!   name is in the target generation (`l_ankle` ↔ `l_talocrural`, `HumanoidRoot` in 1.x),
//!   mapped joints claim theirs first, the rest are made unique (`_2`, `_3`, …) and never made
//!   a standard name they were not. Renames are reported (`HANIM_JOINTS_RENAMED`, and
//!   `HANIM_NAME_DEDUPLICATED` for names made valid or unique); a top joint that is not
//!   `humanoid_root` although the hips are mapped is reported (`HANIM_ROOT_NOT_TOP`).
//! - **Rest.** The file is BASIC: each `center` is the joint's rest world position (metres), and
//!   every joint frame is parallel to the humanoid's at rest (rotation fields at identity).
//! - **Animation.** A joint's rotation track becomes the H-Anim rotation
//!   `r(t) = W_p · l(t) · W_j⁻¹` (rest world rotations `W` of the parent and the joint, `l(t)`
//!   the local rotation), which moves every joint exactly as the source does; a translation
//!   track becomes `translation(t) = W_p · (l(t) − l_rest)` (the parent's rest rotation and
//!   scale). Keys stay where they are (slerp commutes with fixed rotations on both sides).
//!   STEP tracks get a repeated key before each jump; cubic splines are sampled at
//!   [`WriteOptions::fps`]. A scale track is the scale relative to the rest, along the joint's
//!   rest world axes (`scaleOrientation`). Each clip is a TimeSensor whose `cycleInterval` is the clip's
//!   length; key fractions are `time / cycleInterval`.
//! - **Sites** from sockets: an HAnimSite under its joint (or the nearest written ancestor),
//!   named as the socket, at the socket's rest world transform (translation, rotation, scale).
//!   A site always follows its joint fully: a socket with a `respect_parent_*` flag off, or
//!   with no parent, is reported (`HANIM_SITE_FOLLOWS_JOINT`).
//! - **Meshes** ([`WriteOptions::meshes`]): the skin and the segments, morph targets as
//!   displacers (`plan_mesh`). A mesh weight track ([`TrackTarget::Mesh`]) becomes one
//!   ScalarInterpolator per displacer of that mesh, ROUTEd to its `weight`.

use std::collections::HashMap;

use glam::{DQuat, Quat, Vec3};

use super::fields::to_axis_angle;
use super::frame::{self, HumanoidFrame};
use super::names::{self, Generation};
use super::plan_mesh::{plan_meshes, PlannedMeshes};
use super::WriteOptions;
use crate::error::{Diagnostics, Error};
use crate::math::num::{saturating_usize, to_f32};
use crate::math::sample::Interpolation;
use crate::model::asset::Asset;
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::skeleton::JointId;
use crate::model::HumanBone;
use crate::pose::socket::VtMode;

/// One joint to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedJoint {
    /// `name`.
    pub name: String,
    /// DEF name.
    pub def: String,
    /// Parent (index into [`Plan::joints`]).
    pub parent: Option<usize>,
    /// `center`: the rest world position.
    pub center: [f32; 3],
    /// `scaleOrientation` (axis, angle) of a joint whose scale is animated: its rest world
    /// rotation, so the scale acts along the source joint's own axes.
    pub scale_orientation: Option<[f32; 4]>,
}

/// One site to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedSite {
    /// `name`.
    pub name: String,
    /// DEF name.
    pub def: String,
    /// The joint it goes under.
    pub joint: usize,
    /// `translation` (humanoid space).
    pub translation: [f32; 3],
    /// `rotation` (axis, angle).
    pub rotation: [f32; 4],
    /// `scale` (written when not 1).
    pub scale: [f32; 3],
}

/// Which joint field an interpolator sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// OrientationInterpolator → `rotation`.
    Rotation,
    /// PositionInterpolator → `translation`.
    Translation,
    /// PositionInterpolator → `scale`.
    Scale,
    /// ScalarInterpolator → a displacer's `weight`.
    Weight,
}

impl Target {
    /// The joint field.
    pub fn field(self) -> &'static str {
        match self {
            Target::Rotation => "rotation",
            Target::Translation => "translation",
            Target::Scale => "scale",
            Target::Weight => "weight",
        }
    }

    /// Numbers per key value: 4 (axis-angle), 3 or 1.
    pub fn components(self) -> usize {
        match self {
            Target::Rotation => 4,
            Target::Translation | Target::Scale => 3,
            Target::Weight => 1,
        }
    }

    /// The interpolator node type.
    pub fn node_type(self) -> &'static str {
        match self {
            Target::Rotation => "OrientationInterpolator",
            Target::Translation | Target::Scale => "PositionInterpolator",
            Target::Weight => "ScalarInterpolator",
        }
    }
}

/// One interpolator to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedInterpolator {
    /// DEF name.
    pub def: String,
    /// What it sets.
    pub target: Target,
    /// The joint it sets.
    pub joint: usize,
    /// The DEF of the node it sets when that is not the joint (a displacer).
    pub node: Option<String>,
    /// Key fractions.
    pub keys: Vec<f32>,
    /// Key values: axis-angle (4) or vectors (3).
    pub values: Vec<f32>,
}

/// One clip to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedClip {
    /// The TimeSensor's DEF name (the clip's name, made an identifier).
    pub def: String,
    /// The clip's name.
    pub name: String,
    /// `cycleInterval`, seconds.
    pub cycle: f32,
    /// Its interpolators.
    pub interpolators: Vec<PlannedInterpolator>,
}

/// Everything a writer writes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Plan {
    /// The humanoid's name.
    pub name: String,
    /// The humanoid's DEF name.
    pub def: String,
    /// `info` strings.
    pub info: Vec<String>,
    /// The humanoid's `translation`, `rotation` and `scale` (`None`: the identity).
    pub transform: Option<HumanoidFrame>,
    /// The level of articulation the joints conform to (-1: none).
    pub loa: i64,
    /// Joints, parents first.
    pub joints: Vec<PlannedJoint>,
    /// Sites.
    pub sites: Vec<PlannedSite>,
    /// Clips.
    pub clips: Vec<PlannedClip>,
    /// The skin and segments.
    pub meshes: PlannedMeshes,
}

/// Plans the file for `generation`'s names.
///
/// # Errors
/// [`Error::Unsupported`] for an empty skeleton or options out of range.
pub(crate) fn plan(
    asset: &Asset,
    options: &WriteOptions,
    generation: Generation,
    diagnostics: &mut Diagnostics,
) -> Result<Plan, Error> {
    if asset.skeleton.is_empty() {
        return Err(Error::unsupported(
            "cannot write H-Anim: the skeleton has no joints",
        ));
    }
    if !(options.fps.is_finite() && options.fps > 0.0 && options.fps <= 1000.0) {
        return Err(Error::unsupported(format!(
            "H-Anim fps {}: expected a number of frames per second in (0, 1000]",
            options.fps
        )));
    }
    let all = written_joints(asset);
    let folded = frame::fold(asset, &all, options, diagnostics);
    let asset = folded.asset.as_ref().unwrap_or(asset);
    let written: Vec<JointId> = all
        .into_iter()
        .filter(|j| !folded.nodes.contains(j))
        .collect();
    let mut defs = Names::default();
    let joint_names = joint_names(asset, &written, generation, diagnostics)?;
    let mut index_of: HashMap<JointId, usize> = HashMap::new();
    let mut joints = Vec::with_capacity(written.len());
    for (joint, name) in written.iter().zip(joint_names) {
        let parent = asset
            .skeleton
            .ancestors(*joint)
            .find_map(|a| index_of.get(&a).copied());
        let center = asset.skeleton.rest_world(*joint).translation;
        index_of.insert(*joint, joints.len());
        joints.push(PlannedJoint {
            def: defs.unique(&format!("hanim_{}", identifier(&name))),
            name,
            parent,
            center: clean(center).to_array(),
            scale_orientation: None,
        });
    }
    let scaled = written.iter().any(|j| {
        !asset
            .skeleton
            .rest_world(*j)
            .scale
            .abs_diff_eq(Vec3::ONE, 1e-5)
    });
    if scaled {
        diagnostics.warn(
            "HANIM_SCALE_DROPPED",
            "",
            "joints with a rest scale other than 1: H-Anim joints are written unscaled (their centres are exact)",
        );
    }
    let loa = level_of_articulation(joints.iter().map(|j| j.name.as_str()));
    top_joint(asset, &joints, generation, diagnostics);
    let sites = sites(
        asset,
        options,
        generation,
        &index_of,
        folded.to_humanoid,
        &mut defs,
        diagnostics,
    );
    let joint_names: Vec<String> = joints.iter().map(|j| j.name.clone()).collect();
    let meshes = plan_meshes(
        asset,
        &options.meshes,
        &index_of,
        &joint_names,
        // X3D 4 (the 2.0 encodings) has Appearance.alphaMode; VRML97 has not.
        generation == Generation::V2,
        &mut |wanted| defs.unique(wanted),
        diagnostics,
    );
    let (clips, scale_orientations) = clips(
        asset,
        options,
        &index_of,
        &joints,
        &meshes,
        &mut defs,
        diagnostics,
    )?;
    for (index, rotation) in scale_orientations {
        if let Some(joint) = joints.get_mut(index) {
            joint.scale_orientation = Some(rotation);
        }
    }
    let name = options
        .name
        .clone()
        .or_else(|| asset.meta.as_ref().and_then(|m| m.name.clone()))
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "Humanoid".to_owned());
    let def = defs.unique(&format!("hanim_{}", identifier(&name)));
    let mut info = Vec::new();
    if let Some(meta) = &asset.meta {
        for author in &meta.authors {
            info.push(format!("authorName={author}"));
        }
        if let Some(license) = &meta.license {
            info.push(format!("usageRestrictions={license}"));
        }
    }
    Ok(Plan {
        name,
        def,
        info,
        transform: folded.frame,
        loa,
        joints,
        sites,
        clips,
        meshes,
    })
}

/// The joints to write (module docs), parents first.
fn written_joints(asset: &Asset) -> Vec<JointId> {
    let skeleton = &asset.skeleton;
    if asset.skin_joints.is_empty() {
        return skeleton.joints().collect();
    }
    let mut keep = vec![false; skeleton.len()];
    for joint in &asset.skin_joints {
        if let Some(k) = keep.get_mut(joint.index()) {
            *k = true;
        }
        for ancestor in skeleton.ancestors(*joint) {
            if let Some(k) = keep.get_mut(ancestor.index()) {
                *k = true;
            }
        }
    }
    skeleton
        .joints()
        .filter(|j| keep.get(j.index()) == Some(&true))
        .collect()
}

/// Why a joint is written under the name it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// Its own name, a standard H-Anim name (in the target generation).
    Standard,
    /// The H-Anim name of the canonical bone it is mapped to.
    Mapped(HumanBone),
    /// Its own non-standard name, made valid.
    Own,
}

/// Joint names (module docs): mapped joints first take their H-Anim names, then every other
/// joint its own name (made valid: no whitespace or control characters), each made unique and
/// none made a standard name it was not. Every change is reported.
fn joint_names(
    asset: &Asset,
    written: &[JointId],
    generation: Generation,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<String>, Error> {
    let table = super::read::builtin_library()?;
    let hanim2 = table.get("hanim-2");
    let bones = asset.humanoids.first().map(|h| h.bones);
    let in_generation = |v2: &'static str| -> String {
        match generation {
            Generation::V2 => v2.to_owned(),
            Generation::V1 => names::to_v1(v2).unwrap_or(v2).to_owned(),
        }
    };
    // The bone's H-Anim name: its first name in the hanim-2 table (what a reader takes first).
    let bone_name = |bone: HumanBone| -> Option<&'static str> {
        hanim2?.names(bone).first().and_then(|n| names::to_v2(n))
    };
    // The bone an H-Anim reader takes a standard (2.0) name for.
    let read_as = |v2: &str| hanim2.and_then(|t| t.bone_for(v2));
    // H-Anim 1.x feet whose ball is `metatarsal` (EPFL's) are renamed by position, not by
    // X3DUOM's positional aliases, so the 2.0 file's `metatarsophalangeal_2` is still the ball.
    let mut shifted: HashMap<String, String> = HashMap::new();
    if generation == Generation::V2 {
        for toes in [HumanBone::LeftToes, HumanBone::RightToes] {
            let Some(joint) = bones.and_then(|b| b.get(toes)) else {
                continue;
            };
            let name = asset.skeleton.name(joint);
            let Some(side) = name.strip_suffix("metatarsal") else {
                continue;
            };
            for (v1, v2) in [
                ("subtalar", "talocalcaneonavicular"),
                ("midtarsal", "tarsometatarsal_2"),
                ("metatarsal", "metatarsophalangeal_2"),
            ] {
                shifted.insert(format!("{side}{v1}"), format!("{side}{v2}"));
            }
        }
    }
    let wanted: Vec<(String, Why)> = written
        .iter()
        .map(|joint| {
            let own = asset.skeleton.name(*joint).trim();
            if let Some(name) = shifted.get(own) {
                return (name.clone(), Why::Standard);
            }
            let standard = names::to_v2(own);
            match bones.and_then(|b| b.bone_of(*joint)) {
                // A standard name is kept unless a reader would take it for another bone.
                Some(bone) => match (standard, bone_name(bone)) {
                    (Some(v2), Some(_)) if read_as(v2).is_none_or(|b| b == bone) => {
                        (in_generation(v2), Why::Standard)
                    }
                    (Some(v2), None) => (in_generation(v2), Why::Standard),
                    (_, Some(v2)) => (in_generation(v2), Why::Mapped(bone)),
                    (None, None) => (valid(own, joint.index()), Why::Own),
                },
                // A standard name stays (an H-Anim reader maps it as the input's did); a name
                // a mapped joint takes is made unique below.
                None => match standard {
                    Some(v2) => (in_generation(v2), Why::Standard),
                    None => (valid(own, joint.index()), Why::Own),
                },
            }
        })
        .collect();
    // Mapped joints claim their names first; the others, in order, take what is left.
    let mut used: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut out: Vec<String> = vec![String::new(); written.len()];
    let mapped_first = (0..written.len())
        .filter(|i| matches!(wanted[*i].1, Why::Mapped(_)))
        .chain((0..written.len()).filter(|i| !matches!(wanted[*i].1, Why::Mapped(_))));
    let mut renamed = Vec::new();
    let mut changed = Vec::new();
    for i in mapped_first {
        let (candidate, why) = &wanted[i];
        let mut name = candidate.clone();
        let mut n = 2;
        while used.contains(&name) || (*why == Why::Own && names::is_standard(&name)) {
            name = format!("{candidate}_{n}");
            n += 1;
        }
        let own = asset.skeleton.name(written[i]);
        if name != own {
            let entry = (i, format!("{own:?} → {name:?}"));
            match why {
                Why::Mapped(bone) => renamed.push((i, format!("{} ({bone})", entry.1))),
                Why::Standard if name == *candidate => renamed.push(entry),
                _ if name == *candidate => changed.push((i, format!("{} (made valid)", entry.1))),
                _ => changed.push((i, format!("{} (a second joint of that name)", entry.1))),
            }
        }
        used.insert(name.clone());
        out[i] = name;
    }
    renamed.sort_by_key(|(i, _)| *i);
    changed.sort_by_key(|(i, _)| *i);
    if !renamed.is_empty() {
        let list: Vec<&str> = renamed.iter().map(|(_, s)| s.as_str()).collect();
        diagnostics.info(
            "HANIM_JOINTS_RENAMED",
            "",
            format!(
                "{} joint(s) named by H-Anim ({} names, the hanim-2 table): {}",
                renamed.len(),
                match generation {
                    Generation::V2 => "HAnim 2.0",
                    Generation::V1 => "H-Anim 1.x",
                },
                list.join(", ")
            ),
        );
    }
    if !changed.is_empty() {
        let list: Vec<&str> = changed.iter().map(|(_, s)| s.as_str()).collect();
        diagnostics.warn(
            "HANIM_NAME_DEDUPLICATED",
            "",
            format!(
                "{} joint name(s) changed to stay valid and unique: {}",
                changed.len(),
                list.join(", ")
            ),
        );
    }
    Ok(out)
}

/// A joint's own name as an H-Anim name reads back unchanged: whitespace and control
/// characters as `_` (a reader trims names and may join `l _hip` into `l_hip`); `joint<N>` for
/// an empty one.
fn valid(own: &str, index: usize) -> String {
    let name: String = own
        .chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if name.is_empty() {
        format!("joint{index}")
    } else {
        name
    }
}

/// Reports a top joint that is not `humanoid_root` although the hips are mapped: a joint above
/// the hips that carries skin weights, animation or a socket, or several child joints, stays a
/// joint.
fn top_joint(
    asset: &Asset,
    joints: &[PlannedJoint],
    generation: Generation,
    diagnostics: &mut Diagnostics,
) {
    let root = match generation {
        Generation::V2 => "humanoid_root",
        Generation::V1 => "HumanoidRoot",
    };
    let hips = asset
        .humanoids
        .first()
        .and_then(|h| h.bones.get(HumanBone::Hips));
    let tops: Vec<&str> = joints
        .iter()
        .filter(|j| j.parent.is_none())
        .map(|j| j.name.as_str())
        .collect();
    if hips.is_some() && tops != [root] {
        diagnostics.warn(
            "HANIM_ROOT_NOT_TOP",
            "",
            format!(
                "the skeleton's top joint(s) {} are not {root}: joints above the hips that carry skin weights, animation, a socket or several child joints stay joints",
                tops.join(", ")
            ),
        );
    }
}

/// The highest LOA whose every joint is present (-1 without `humanoid_root`).
pub(crate) fn level_of_articulation<'n>(joint_names: impl Iterator<Item = &'n str>) -> i64 {
    let present: Vec<&'static str> = joint_names.filter_map(names::to_v2).collect();
    let mut loa = -1;
    for level in 0..=4u8 {
        let complete = names::JOINTS
            .iter()
            .filter(|j| j.loa <= level)
            .all(|j| present.contains(&j.name));
        if complete {
            loa = i64::from(level);
        } else {
            break;
        }
    }
    loa
}

fn sites(
    asset: &Asset,
    options: &WriteOptions,
    generation: Generation,
    index_of: &HashMap<JointId, usize>,
    to_humanoid: glam::Mat4,
    defs: &mut Names,
    diagnostics: &mut Diagnostics,
) -> Vec<PlannedSite> {
    let skeleton = &asset.skeleton;
    let mut out = Vec::new();
    for socket in &options.sockets {
        // A root socket (no parent) goes under the first joint, at its world place.
        let parent = socket
            .parent
            .or_else(|| skeleton.joints().next())
            .filter(|&j| skeleton.contains(j));
        let joint = parent.and_then(|p| {
            std::iter::once(p)
                .chain(skeleton.ancestors(p))
                .find_map(|j| index_of.get(&j).copied())
        });
        let (Some(parent), Some(joint)) = (parent, joint) else {
            diagnostics.warn(
                "HANIM_SOCKET_DROPPED",
                "",
                format!(
                    "socket {:?} is on a joint that is not written: dropped",
                    socket.name
                ),
            );
            continue;
        };
        if !socket.respects_all() || socket.parent.is_none() {
            let ignored: Vec<&str> = [
                (socket.respect_parent_position, "position"),
                (socket.respect_parent_rotation, "rotation"),
                (socket.respect_parent_scale, "scale"),
            ]
            .iter()
            .filter(|(kept, _)| !kept)
            .map(|(_, what)| *what)
            .collect();
            let what = if socket.parent.is_none() {
                "has no parent joint".to_owned()
            } else {
                format!("does not follow its joint's {}", ignored.join(", "))
            };
            diagnostics.warn(
                "HANIM_SITE_FOLLOWS_JOINT",
                "",
                format!(
                    "socket {:?} {what}; an H-Anim site always follows its joint fully: it is written at its rest place under {:?}",
                    socket.name,
                    skeleton.name(parent)
                ),
            );
        }
        // In a BASIC file every joint frame is the humanoid's at rest, so a site's fields are
        // its rest world transform.
        let rest = match socket.parent {
            Some(_) => skeleton.rest_world(parent).to_mat4(),
            None => to_humanoid,
        };
        let world = crate::pose::socket::world(socket, rest, rest, VtMode::Aligned);
        if world.sheared {
            diagnostics.warn(
                "HANIM_SITE_SHEARED",
                "",
                format!(
                    "socket {:?}: its rest world transform has shear (a rotated, non-uniformly scaled parent), which a site's translation, rotation and scale cannot hold; the shear was dropped",
                    socket.name
                ),
            );
        }
        let mut scale = clean(world.scale);
        if scale.abs_diff_eq(Vec3::ONE, 1e-6) {
            scale = Vec3::ONE;
        } else if generation == Generation::V1 {
            diagnostics.warn(
                "HANIM_SITE_SCALE_DROPPED",
                "",
                format!(
                    "socket {:?}: scale {} dropped (the H-Anim 1.1 Site has no scale field)",
                    socket.name,
                    crate::math::num::Nums::from(scale)
                ),
            );
            scale = Vec3::ONE;
        }
        let [x, y, z, angle] = to_axis_angle(world.rotation.as_dquat());
        out.push(PlannedSite {
            def: defs.unique(&format!("hanim_{}", identifier(&socket.name))),
            name: socket.name.clone(),
            joint,
            translation: clean(world.translation).to_array(),
            rotation: [to_f32(x), to_f32(y), to_f32(z), to_f32(angle)],
            scale: scale.to_array(),
        });
    }
    out
}

/// Joints (indices into [`Plan::joints`]) whose animated scale needs a `scaleOrientation`.
type ScaleOrientations = Vec<(usize, [f32; 4])>;

fn clips(
    asset: &Asset,
    options: &WriteOptions,
    index_of: &HashMap<JointId, usize>,
    joints: &[PlannedJoint],
    meshes: &PlannedMeshes,
    defs: &mut Names,
    diagnostics: &mut Diagnostics,
) -> Result<(Vec<PlannedClip>, ScaleOrientations), Error> {
    let displacers = meshes
        .skin
        .as_ref()
        .map_or(&[][..], |s| s.displacers.as_slice());
    let skeleton = &asset.skeleton;
    let mut out = Vec::new();
    let mut scale_orientations = Vec::new();
    for (clip_index, clip) in asset.clips.iter().enumerate() {
        let name = if clip.name.is_empty() {
            format!("clip{clip_index}")
        } else {
            clip.name.clone()
        };
        let (start, end) = span(clip);
        let cycle = end - start.min(0.0);
        let cycle = if cycle > 0.0 { cycle } else { 1.0 };
        let def = defs.unique(&identifier(&name));
        let mut interpolators = Vec::new();
        let mut dropped = 0usize;
        for track in clip.tracks() {
            if let TrackTarget::Mesh(mesh) = track.target() {
                // One ScalarInterpolator per displacer of that mesh.
                let (times, weights) = keyframes(track, options.fps, diagnostics, &name);
                let n = track.components();
                let keys: Vec<f32> = times
                    .iter()
                    .map(|t| to_f32((f64::from(*t) - f64::from(start.min(0.0))) / f64::from(cycle)))
                    .collect();
                let mut found = false;
                for d in displacers
                    .iter()
                    .filter(|d| d.source.0 == usize::from(mesh))
                {
                    found = true;
                    let values = weights
                        .chunks_exact(n.max(1))
                        .map(|w| w.get(d.source.1).copied().unwrap_or(0.0))
                        .collect();
                    interpolators.push(PlannedInterpolator {
                        def: defs.unique(&format!("{def}_{}_weight", identifier(&d.name))),
                        target: Target::Weight,
                        joint: d.joint,
                        node: Some(d.def.clone()),
                        keys: keys.clone(),
                        values,
                    });
                }
                if !found {
                    dropped += 1;
                }
                continue;
            }
            let TrackTarget::Joint(joint) = track.target() else {
                dropped += 1;
                continue;
            };
            let Some(&index) = index_of.get(&joint) else {
                dropped += 1;
                continue;
            };
            let target = match track.property() {
                Property::Rotation => Target::Rotation,
                Property::Translation => Target::Translation,
                Property::Scale => Target::Scale,
                Property::Weights(_) => {
                    dropped += 1;
                    continue;
                }
            };
            let (times, locals) = keyframes(track, options.fps, diagnostics, &name);
            let parent_world = skeleton
                .parent(joint)
                .map_or(crate::math::trs::Trs::IDENTITY, |p| skeleton.rest_world(p));
            let own_world = skeleton.rest_world(joint);
            let rest_local = skeleton.rest_local(joint);
            let mut values = Vec::with_capacity(locals.len());
            match target {
                Target::Rotation => {
                    let wp = parent_world.rotation.as_dquat();
                    let wj = own_world.rotation.as_dquat().inverse();
                    let mut previous = DQuat::IDENTITY;
                    for q in locals.chunks_exact(4) {
                        let &[x, y, z, w] = q else { continue };
                        let local = Quat::from_xyzw(x, y, z, w).as_dquat().normalize();
                        let mut r = (wp * local * wj).normalize();
                        if r.dot(previous) < 0.0 {
                            r = -r;
                        }
                        previous = r;
                        let [x, y, z, a] = to_axis_angle(r);
                        values.extend([to_f32(x), to_f32(y), to_f32(z), to_f32(a)]);
                    }
                }
                Target::Translation => {
                    for t in locals.chunks_exact(3) {
                        let &[x, y, z] = t else { continue };
                        let delta = Vec3::new(x, y, z) - rest_local.translation;
                        values.extend(clean(parent_world.transform_vector(delta)).to_array());
                    }
                }
                Target::Scale => {
                    // X3D scales along `scaleOrientation`, set to the joint's rest world
                    // rotation: the scale relative to the rest, along the joint's own axes.
                    let rest = rest_local.scale;
                    for s in locals.chunks_exact(3) {
                        let &[x, y, z] = s else { continue };
                        let relative = Vec3::new(x, y, z) / rest;
                        let relative = if relative.is_finite() {
                            relative
                        } else {
                            Vec3::new(x, y, z)
                        };
                        values.extend(relative.to_array());
                    }
                    // A uniform scale stretches every axis alike: no orientation to give.
                    let uniform = values.chunks_exact(3).all(|k| {
                        let size = k.iter().fold(1.0f32, |a, v| a.max(v.abs()));
                        (k[0] - k[1]).abs().max((k[0] - k[2]).abs()) <= 1e-6 * size
                    });
                    let q = own_world.rotation.as_dquat().normalize();
                    if !uniform && !q.abs_diff_eq(DQuat::IDENTITY, 1e-7) {
                        let [x, y, z, a] = to_axis_angle(q);
                        scale_orientations
                            .push((index, [to_f32(x), to_f32(y), to_f32(z), to_f32(a)]));
                    }
                }
                Target::Weight => {}
            }
            let keys = times
                .iter()
                .map(|t| to_f32((f64::from(*t) - f64::from(start.min(0.0))) / f64::from(cycle)))
                .collect();
            let joint_name = identifier(
                joints
                    .get(index)
                    .map_or(skeleton.name(joint), |j| j.name.as_str()),
            );
            interpolators.push(PlannedInterpolator {
                def: defs.unique(&format!("{def}_{joint_name}_{}", target.field())),
                target,
                joint: index,
                node: None,
                keys,
                values,
            });
        }
        if dropped > 0 {
            diagnostics.warn(
                "HANIM_TRACKS_DROPPED",
                "",
                format!(
                    "clip {name:?}: {dropped} track(s) on bones, expressions, morph weights or joints that are not written: dropped (retarget onto the skeleton first)"
                ),
            );
        }
        out.push(PlannedClip {
            def,
            name,
            cycle,
            interpolators,
        });
    }
    Ok((out, scale_orientations))
}

/// The earliest and latest key of a clip.
fn span(clip: &Clip) -> (f32, f32) {
    let start = clip
        .tracks()
        .iter()
        .map(Track::start_time)
        .fold(f32::INFINITY, f32::min);
    let start = if start.is_finite() { start } else { 0.0 };
    (start, clip.duration())
}

/// Key times and local values, LINEAR (module docs).
fn keyframes(
    track: &Track,
    fps: f64,
    diagnostics: &mut Diagnostics,
    clip: &str,
) -> (Vec<f32>, Vec<f32>) {
    let components = track.components();
    match track.interpolation() {
        Interpolation::Linear => (track.times().to_vec(), track.values().to_vec()),
        Interpolation::Step => {
            let mut times = Vec::new();
            let mut values = Vec::new();
            for key in 0..track.key_count() {
                let t = track.times().get(key).copied().unwrap_or(0.0);
                if key > 0 {
                    if let Some(previous) = track.value(key - 1) {
                        times.push(t);
                        values.extend_from_slice(previous);
                    }
                }
                if let Some(value) = track.value(key) {
                    times.push(t);
                    values.extend_from_slice(value);
                }
            }
            (times, values)
        }
        Interpolation::CubicSpline => {
            let (start, end) = (track.start_time(), track.end_time());
            let count =
                saturating_usize((f64::from(end - start) * fps).ceil()).clamp(1, 1 << 20) + 1;
            diagnostics.info(
                "HANIM_RESAMPLED",
                "",
                format!(
                    "clip {clip:?}: a cubic-spline track is sampled at {fps} fps ({count} keys)"
                ),
            );
            let mut times = Vec::with_capacity(count);
            let mut values = vec![0.0; count * components];
            for (i, out) in values.chunks_exact_mut(components.max(1)).enumerate() {
                let t = if count > 1 {
                    start + (end - start) * i as f32 / (count - 1) as f32
                } else {
                    start
                };
                track.sample(t, out);
                times.push(t);
            }
            (times, values)
        }
    }
}

/// Unique DEF names.
#[derive(Default)]
struct Names {
    used: std::collections::HashSet<String>,
}

impl Names {
    fn unique(&mut self, wanted: &str) -> String {
        let mut name = wanted.to_owned();
        let mut n = 2;
        while self.used.contains(&name) {
            name = format!("{wanted}_{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        name
    }
}

/// `name` as a VRML identifier and XML ID: letters, digits and `_`, not starting with a digit.
pub(crate) fn identifier(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `-0` as `0` (it prints as `-0`), everything else unchanged.
fn clean(v: Vec3) -> Vec3 {
    Vec3::new(v.x + 0.0, v.y + 0.0, v.z + 0.0)
}

/// Numbers as the files write them: the shortest text that reads back as the same f32.
pub(crate) fn number(out: &mut String, v: f32) {
    use std::fmt::Write as _;
    let v = if v == 0.0 { 0.0 } else { v };
    let _ = write!(out, "{v}");
}

/// Numbers separated by spaces.
pub(crate) fn numbers(out: &mut String, values: &[f32]) {
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        number(out, *v);
    }
}

/// Vectors of `n` numbers separated by `, `.
pub(crate) fn tuples(out: &mut String, values: &[f32], n: usize) {
    for (i, chunk) in values.chunks(n.max(1)).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        numbers(out, chunk);
    }
}

/// A joint tree walked depth-first without recursion: `(joint, depth, entering)`.
pub(crate) fn walk(joints: &[PlannedJoint]) -> Vec<(usize, usize, bool)> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); joints.len()];
    let mut roots = Vec::new();
    for (i, joint) in joints.iter().enumerate() {
        match joint.parent.and_then(|p| children.get_mut(p)) {
            Some(list) => list.push(i),
            None => roots.push(i),
        }
    }
    let mut out = Vec::with_capacity(joints.len() * 2);
    // (joint, depth, entered)
    let mut stack: Vec<(usize, usize, bool)> = roots.iter().rev().map(|r| (*r, 0, false)).collect();
    while let Some((joint, depth, entered)) = stack.pop() {
        if entered {
            out.push((joint, depth, false));
            continue;
        }
        out.push((joint, depth, true));
        stack.push((joint, depth, true));
        if let Some(kids) = children.get(joint) {
            stack.extend(kids.iter().rev().map(|k| (*k, depth + 1, false)));
        }
    }
    out
}

/// Whether each joint has child joints.
pub(crate) fn has_children(joints: &[PlannedJoint]) -> Vec<bool> {
    let mut out = vec![false; joints.len()];
    for joint in joints {
        if let Some(flag) = joint.parent.and_then(|p| out.get_mut(p)) {
            *flag = true;
        }
    }
    out
}

/// Indentation for `depth`, capped (readers ignore it; deep chains stay small).
pub(crate) fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth.min(32) {
        out.push_str("  ");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_and_numbers() {
        assert_eq!(identifier("r _knee"), "r__knee");
        assert_eq!(identifier("1st"), "_1st");
        assert_eq!(identifier(""), "_");
        let mut s = String::new();
        numbers(&mut s, &[0.1, -0.0, 1.0, 1e-7]);
        assert_eq!(s, "0.1 0 1 0.0000001");
        let mut s = String::new();
        tuples(&mut s, &[1.0, 2.0, 3.0, 4.0], 2);
        assert_eq!(s, "1 2, 3 4");
    }

    #[test]
    fn loa_needs_every_joint_of_the_level() {
        assert_eq!(level_of_articulation(["vl5"].into_iter()), -1);
        assert_eq!(level_of_articulation(["humanoid_root"].into_iter()), 0);
        let loa1: Vec<&str> = names::JOINTS
            .iter()
            .filter(|j| j.loa <= 1)
            .map(|j| j.name)
            .collect();
        assert_eq!(level_of_articulation(loa1.iter().copied()), 1);
        // 1.x names count through their 2.0 names.
        let mut v1: Vec<&str> = loa1.iter().map(|n| names::to_v1(n).unwrap_or(n)).collect();
        assert_eq!(level_of_articulation(v1.iter().copied()), 1);
        v1.pop();
        assert_eq!(level_of_articulation(v1.iter().copied()), 0);
    }
}
