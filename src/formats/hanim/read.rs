//! From a parsed scene to the canonical model: skeleton, clips, sockets, the humanoid map.
//!
//! ## Overview
//!
//! - **Skeleton.** One joint per H-Anim joint of every humanoid, in the order the joint trees
//!   are walked (parents first). A joint's local rest transform is `translation + center −
//!   parent center`, its `rotation` and `scale` (X3D Transform semantics re-rooted at each
//!   joint's centre, exact: research/hanim.md §6.3). The humanoid's own transform is baked in:
//!   its scale multiplies every local translation (Jin's `scale 0.0225` gives metres), its
//!   rotation and translation go on the roots. Rest world positions are then the joint centres
//!   in metres, in the file's world.
//! - **Clips** from [`super::animation`].
//! - **Sockets** from sites: the joint a site moves with (the root for sites directly in the
//!   skeleton, `viewpoints` or `sites`), its transform relative to that joint.
//! - **Humanoid map.** The first humanoid's names decide the generation
//!   ([`names::Generation`]) and so the table, `hanim-1` or `hanim-2`; a rig with no standard
//!   name goes to the table detector and the auto-mapper. For 1.x names the toes are chosen
//!   from the foot chain's geometry (which of `l_midtarsal` and `l_metatarsal` is the ball of
//!   the foot depends on the author), and reported.

use std::collections::HashMap;
use std::path::Path;

use glam::{DMat4, DQuat, DVec3};

use super::animation::{self, JointFrame};
use super::appearance::Appearances;
use super::classic::Note;
use super::fields::Fields;
use super::figure::{self, Figure};
use super::mesh;
use super::names::{self, Generation};
use super::texture::Textures;
use super::tree::{NodeId, Scene, Syntax};
use super::{HanimExtras, HumanoidInfo, JointInfo};
use crate::error::{Diagnostics, Error, Location};
use crate::mapping::detect::{prune, Mapping};
use crate::mapping::policy::missing_clause;
use crate::mapping::table::Table;
use crate::mapping::{Library, Method, RigMapping};
use crate::math::num::to_f32;
use crate::math::text::line_column;
use crate::math::trs::Trs;
use crate::model::asset::{Asset, HumanoidSkeleton, ReadOutcome};
use crate::model::humanoid::Meta;
use crate::model::skeleton::{JointId, RawJoint, Skeleton};
use crate::model::socket::Socket;
use crate::model::Format;
use crate::model::HumanBone;

/// The built-in mapping tables, parsed once per process.
///
/// # Errors
/// A built-in table is invalid (a bug the mapping tests catch).
pub(crate) fn builtin_library() -> Result<&'static Library, Error> {
    static LIBRARY: std::sync::OnceLock<Library> = std::sync::OnceLock::new();
    if let Some(library) = LIBRARY.get() {
        return Ok(library);
    }
    let library = Library::builtin()?;
    Ok(LIBRARY.get_or_init(|| library))
}

/// Turns notes into diagnostics with `line:column` locations.
pub(crate) fn push_notes(text: &str, notes: Vec<Note>, diagnostics: &mut Diagnostics) {
    let lines = crate::math::text::LineIndex::new(text);
    for note in notes {
        let location = if note.at == 0 && note.code == "HANIM_ROUTE_IGNORED" {
            String::new()
        } else {
            lines.position(note.at).label()
        };
        let info = matches!(
            note.code,
            "HANIM_MOTION_DISABLED"
                | "HANIM_UNIT_IGNORED"
                | "HANIM_XML_IGNORED"
                | "HANIM_SKIN_POINTS_UNUSED"
        );
        if info {
            diagnostics.info(note.code, location, note.message);
        } else {
            diagnostics.warn(note.code, location, note.message);
        }
    }
}

/// The asset and extras of a parsed scene.
///
/// # Errors
/// No humanoid and no joint in the file; the skeleton cannot be built; an interpolator or
/// HAnimMotion that cannot be read.
pub(crate) fn to_asset(
    scene: &Scene<'_>,
    text: &str,
    file: &Path,
    textures: Textures<'_>,
    mut notes: Vec<Note>,
) -> Result<(ReadOutcome, HanimExtras), Error> {
    let invalid = |at: usize, message: String| {
        let (line, column) = line_column(text, at);
        Error::invalid(file, Location::LineColumn { line, column }, message)
    };
    let figures = figure::figures(scene, &mut notes);
    if figures.iter().all(|f| f.joints.is_empty()) {
        return Err(Error::invalid(
            file,
            Location::File,
            "no H-Anim joints: expected an HAnimHumanoid (or a VRML97 Humanoid PROTO instance) with a skeleton of HAnimJoint/Joint nodes",
        ));
    }
    if let Some(past) = figures
        .iter()
        .flat_map(|f| f.joints.iter())
        .nth(crate::model::MAX_JOINTS)
    {
        return Err(invalid(
            past.at,
            format!(
                "more than {} joints (this is the first one over): a humanoid has about 100; expected a file with at most {} joints",
                crate::model::MAX_JOINTS,
                crate::model::MAX_JOINTS
            ),
        ));
    }
    let mut raw: Vec<RawJoint> = Vec::new();
    let mut figure_frames: Vec<(Figure, Vec<JointFrame>)> = Vec::new();
    let mut by_node: HashMap<NodeId, JointFrame> = HashMap::new();
    let mut bases = Vec::new();
    for figure in figures {
        let base = raw.len();
        bases.push(base);
        let mut frames = Vec::with_capacity(figure.joints.len());
        for (index, joint) in figure.joints.iter().enumerate() {
            let parent_center = joint
                .parent
                .and_then(|p| figure.joints.get(p))
                .map_or(DVec3::ZERO, |p| p.center);
            let Some(id) = JointId::from_index(base + index) else {
                return Err(invalid(joint.at, "too many joints".to_owned()));
            };
            let parent_orientation = joint
                .parent
                .and_then(|p| figure.joints.get(p))
                .map_or(DQuat::IDENTITY, |p| p.scale_orientation);
            let frame = JointFrame {
                joint: id,
                offset: joint.center - parent_center,
                root: joint.parent.is_none(),
                humanoid: figure.transform,
                orientation: joint.scale_orientation,
                parent_orientation,
            };
            let translation = frame.translation(joint.translation);
            let rotation = frame.rotation(joint.rotation).normalize();
            raw.push(RawJoint {
                name: joint.name.clone(),
                parent: joint.parent.map(|p| base + p),
                rest: Trs::new(
                    translation.as_vec3(),
                    rotation.as_quat(),
                    joint.scale.as_vec3(),
                ),
            });
            by_node.insert(joint.node, frame);
            frames.push(frame);
        }
        figure_frames.push((figure, frames));
    }
    let (skeleton, ids) =
        Skeleton::from_raw(raw).map_err(|e| Error::invalid(file, Location::File, e.to_string()))?;
    // The walk is parents first, so the skeleton keeps its order; map through `ids` anyway.
    let remap = |id: JointId| ids.get(id.index()).copied().unwrap_or(id);
    for frame in by_node.values_mut() {
        frame.joint = remap(frame.joint);
    }
    for (_, frames) in &mut figure_frames {
        for frame in frames.iter_mut() {
            frame.joint = remap(frame.joint);
        }
    }
    // Meshes first: the displacers that became morph targets are what weight tracks animate.
    let mut meshes = Vec::new();
    let mut morphs: HashMap<NodeId, Vec<animation::MorphSlot>> = HashMap::new();
    let mut appearances = Appearances::new(textures);
    for (figure, frames) in &figure_frames {
        let (found, sources) = mesh::meshes(
            scene,
            figure,
            frames,
            &skeleton,
            &mut appearances,
            &mut notes,
        );
        for source in sources {
            let Ok(mesh) = u16::try_from(meshes.len() + source.mesh) else {
                continue;
            };
            morphs
                .entry(source.displacer)
                .or_default()
                .push(animation::MorphSlot {
                    mesh,
                    target: source.target,
                });
        }
        meshes.extend(found);
    }
    appearances.finish(&mut notes);
    let defaults: Vec<Vec<f32>> = meshes.iter().map(|m| m.morph_weights.clone()).collect();
    let morphs = animation::Morphs {
        slots: morphs,
        defaults,
    };
    let clips = animation::clips(scene, &by_node, &morphs, &figure_frames, &mut notes)
        .map_err(|e| invalid(e.at, e.message))?;

    let format = match scene.syntax {
        Syntax::Xml => Format::X3d,
        Syntax::Classic => Format::X3dv,
        Syntax::Vrml97 => Format::Wrl,
    };
    let mut source_indices = vec![0usize; ids.len()];
    for (raw_index, id) in ids.iter().enumerate() {
        if let Some(slot) = source_indices.get_mut(id.index()) {
            *slot = raw_index;
        }
    }
    let mut asset = Asset::new(format, skeleton, source_indices);
    asset.clips = clips;
    let mut extras = HanimExtras {
        meshes,
        ..HanimExtras::default()
    };
    for (figure, frames) in &figure_frames {
        extras.sockets.extend(sockets(figure, frames));
        skin_joints(scene, figure, frames, &mut asset);
        extras.humanoids.push(info(figure, frames));
    }
    if let Some((figure, _)) = figure_frames.first() {
        asset.meta = meta(figure);
    }
    let mut diagnostics = Diagnostics::new();
    if figure_frames.len() > 1 {
        notes.push(Note {
            at: 0,
            code: "HANIM_SEVERAL_HUMANOIDS",
            message: format!(
                "{} humanoids: all their joints are read, the first one is mapped",
                figure_frames.len()
            ),
        });
    }
    push_notes(text, notes, &mut diagnostics);
    if let Some((figure, frames)) = figure_frames.first() {
        map_humanoid(&mut asset, figure, frames, file, &mut diagnostics);
    }
    Ok((ReadOutcome { asset, diagnostics }, extras))
}

/// The record of one humanoid for [`HanimExtras`].
fn info(figure: &Figure, frames: &[JointFrame]) -> HumanoidInfo {
    HumanoidInfo {
        name: figure.name.clone(),
        version: figure.version.clone(),
        loa: figure.loa,
        skeletal_configuration: figure.skeletal_configuration.clone(),
        info: figure.info.clone(),
        generation: Generation::of_names(figure.joints.iter().map(|j| j.name.as_str())),
        scale: figure.transform.scale,
        joints: figure
            .joints
            .iter()
            .zip(frames)
            .map(|(joint, frame)| JointInfo {
                joint: frame.joint,
                name_in_file: joint.file_name.clone(),
                parent: joint.parent,
                def: joint.def.clone(),
                center: joint.center.to_array(),
            })
            .collect(),
    }
}

/// Authorship from `info` (`authorName=`, `copyright=`, `usageRestrictions=`).
fn meta(figure: &Figure) -> Option<Meta> {
    if figure.name.is_empty() && figure.info.is_empty() {
        return None;
    }
    let mut meta = Meta {
        name: (!figure.name.is_empty()).then(|| figure.name.clone()),
        ..Meta::default()
    };
    for entry in &figure.info {
        let (key, value) = entry.split_once('=').unwrap_or(("info", entry.as_str()));
        let value = value.trim().to_owned();
        match key.trim() {
            "authorName" => meta.authors.push(value),
            "copyright" | "usageRestrictions" if meta.license.is_none() => {
                meta.license = Some(value)
            }
            other => meta.extra.push((other.to_owned(), value)),
        }
    }
    Some(meta)
}

/// Sites as sockets on the joint they move with.
fn sockets(figure: &Figure, frames: &[JointFrame]) -> Vec<Socket> {
    let k = figure.transform.scale;
    let mut out = Vec::new();
    for site in &figure.sites {
        let (index, offset) = match site
            .joint
            .and_then(|j| figure.joints.get(j).map(|f| (j, f)))
        {
            // W_j = G_j · SR_j⁻¹ · T(−c_j) (G_j the canonical joint, `JointFrame`): in the
            // joint node's frame the site is SR_j⁻¹ · T(−c_j) · M.
            Some((j, joint)) => (
                j,
                DMat4::from_quat(joint.scale_orientation.inverse())
                    * DMat4::from_translation(-joint.center)
                    * site.transform,
            ),
            None => {
                let Some(root) = figure.joints.first() else {
                    continue;
                };
                let g = DMat4::from_translation(root.translation + root.center)
                    * DMat4::from_quat(root.rotation * root.scale_orientation)
                    * DMat4::from_scale(root.scale);
                (0, g.inverse() * site.transform)
            }
        };
        let Some(frame) = frames.get(index) else {
            continue;
        };
        let mut trs = Trs::from_mat4(offset.as_mat4());
        trs.translation *= to_f32(k);
        let mut socket = Socket::new(site.name.clone(), Some(frame.joint));
        socket.translation = trs.translation;
        socket.rotation = trs.rotation;
        socket.scale = trs.scale;
        socket.set_tags(super::sites::tags(&site.name, site.viewpoint));
        out.push(socket);
    }
    out
}

/// A humanoid with a skin declares all its joints as skin joints (H-Anim skins every joint,
/// with inverse bind `T(−center)`); the weighted ones are those with `skinCoordWeight`s.
fn skin_joints(scene: &Scene<'_>, figure: &Figure, frames: &[JointFrame], asset: &mut Asset) {
    let has_skin = figure
        .node
        .and_then(|n| Fields::of(scene, n))
        .is_some_and(|h| !h.nodes("skinCoord").is_empty());
    if !has_skin {
        return;
    }
    for (joint, frame) in figure.joints.iter().zip(frames) {
        asset.skin_joints.push(frame.joint);
        let weighted = Fields::of(scene, joint.node)
            .and_then(|f| f.numbers("skinCoordIndex"))
            .is_some_and(|i| !i.is_empty());
        if weighted {
            asset.weighted_joints.push(frame.joint);
        }
    }
}

/// Maps the first humanoid by the table of its names' generation (module docs).
fn map_humanoid(
    asset: &mut Asset,
    figure: &Figure,
    frames: &[JointFrame],
    file: &Path,
    diagnostics: &mut Diagnostics,
) {
    let generation = Generation::of_names(figure.joints.iter().map(|j| j.name.as_str()));
    let any_standard = figure.joints.iter().any(|j| names::is_standard(&j.name));
    let table = match generation {
        Generation::V1 => "hanim-1",
        Generation::V2 => "hanim-2",
    };
    let other = match generation {
        Generation::V1 => "hanim-2",
        Generation::V2 => "hanim-1",
    };
    let mapping = if any_standard {
        builtin_library().and_then(|library| match (library.get(table), library.get(other)) {
            (Some(t), Some(o)) => Ok(table_mapping(asset, frames, t, o)),
            _ => Err(Error::unsupported(format!(
                "no built-in mapping table {table:?}"
            ))),
        })
    } else {
        RigMapping::detect().and_then(|rig| rig.map(asset, file))
    };
    let mapping = match mapping {
        Ok(mapping) => mapping,
        Err(e) => {
            diagnostics.info("HUMANOID_NOT_MAPPED", "", e.to_string());
            return;
        }
    };
    let mut bones = mapping.bones;
    let Some(hips) = bones.get(HumanBone::Hips) else {
        diagnostics.info(
            "HUMANOID_NOT_MAPPED",
            "",
            format!(
                "no joint of the humanoid maps to hips (by the {} table): no humanoid declared",
                match &mapping.method {
                    Method::Table(t) => t.as_str(),
                    Method::Auto => "auto-mapper's",
                }
            ),
        );
        return;
    };
    if generation == Generation::V1 {
        for (foot, toes) in [
            (HumanBone::LeftFoot, HumanBone::LeftToes),
            (HumanBone::RightFoot, HumanBone::RightToes),
        ] {
            if bones.get(toes).is_some() {
                continue;
            }
            if let Some((joint, why)) = bones.get(foot).and_then(|f| ball_of_foot(asset, f, figure))
            {
                bones.set(toes, Some(joint));
                diagnostics.info(
                    "HANIM_TOES_CHOSEN",
                    "",
                    format!("{toes} = {:?}: {why}", asset.skeleton.name(joint)),
                );
            }
        }
    }
    let message = format!(
        "{} bones mapped by {}{}",
        bones.len(),
        mapping.method,
        missing_clause(&bones.missing(crate::model::Profile::Vrm1))
    );
    diagnostics.info("HUMANOID_MAPPED", "", message);
    let root = frames
        .first()
        .map(|f| f.joint)
        .or_else(|| asset.skeleton.ancestors(hips).last());
    asset.humanoids.push(HumanoidSkeleton {
        root,
        bones,
        declared_t_pose: false,
    });
}

/// The ball of the foot in a 1.x foot (module docs): of `midtarsal` and `metatarsal` (else of
/// the longest chain below the ankle), the last joint, unless the step to it is less than 42% of
/// its forward reach from the ankle (then it is the toe tip and the joint before it is the
/// ball: Joe's `l_midtarsal`; EPFL's `l_metatarsal` has no toe tip in front of it).
fn ball_of_foot(asset: &Asset, foot: JointId, figure: &Figure) -> Option<(JointId, String)> {
    let skeleton = &asset.skeleton;
    let forward = (figure.transform.rotation * DVec3::Z).as_vec3();
    let origin = skeleton.rest_world(foot).translation;
    let reach = |j: JointId| (skeleton.rest_world(j).translation - origin).dot(forward);
    let side = skeleton.name(foot).get(..2).unwrap_or("");
    let below: Vec<JointId> = skeleton
        .joints()
        .filter(|j| skeleton.is_ancestor(foot, *j))
        .collect();
    let named = |name: &str| {
        below
            .iter()
            .copied()
            .find(|j| skeleton.name(*j) == format!("{side}{name}"))
    };
    // The two 1.x candidates when the foot has them, else the longest chain below the foot.
    let chain: Vec<JointId> = match (named("midtarsal"), named("metatarsal")) {
        (Some(mid), Some(meta)) => vec![mid, meta],
        // The foot's only 1.x toe joint is its toes, whichever way the figure faces (a figure
        // that faces −Z, against H-Anim's +Z, has its toes "behind" the ankle).
        (Some(only), None) | (None, Some(only))
            if reach(only) <= 0.01 * to_f32(figure.transform.scale) =>
        {
            return Some((only, "the foot's only 1.x toe joint".to_owned()));
        }
        (Some(only), None) | (None, Some(only)) => vec![only],
        (None, None) => {
            let mut chain = Vec::new();
            let mut current = foot;
            while let Some(next) = skeleton
                .children(current)
                .max_by_key(|c| subtree_depth(skeleton, *c))
            {
                chain.push(next);
                current = next;
            }
            chain
        }
    };
    let ahead: Vec<JointId> = chain
        .into_iter()
        .filter(|j| reach(*j) > 0.01 * to_f32(figure.transform.scale))
        .collect();
    let last = *ahead.last()?;
    let total = reach(last);
    if let [.., before, _] = ahead.as_slice() {
        let step = total - reach(*before);
        if total > 0.0 && step / total < 0.42 {
            return Some((
                *before,
                format!(
                    "the ball of the foot; {:?} in front of it is the toe tip ({:.0}% of the foot's reach)",
                    skeleton.name(last),
                    100.0 * step / total
                ),
            ));
        }
    }
    Some((
        last,
        "the last joint of the foot chain (no toe-tip joint in front of it)".to_owned(),
    ))
}

fn subtree_depth(skeleton: &Skeleton, joint: JointId) -> usize {
    skeleton
        .children(joint)
        .map(|c| 1 + subtree_depth(skeleton, c))
        .max()
        .unwrap_or(0)
}

/// The bones `table` names among the humanoid's joints (exact names, the first free joint for
/// each of a bone's names in turn; the other generation's table where `table` finds none: a
/// 1.x file written with 2.0 names keeps Nancy's `vl1` as the spine), then made consistent with the canonical hierarchy: a
/// non-required bone whose joint sits between a bone and its canonical parent (Joe's neck `vc7`
/// above the clavicles) is unmapped rather than the subtree below it, and what still breaks
/// the rules is pruned as the table detector prunes.
fn table_mapping(asset: &Asset, frames: &[JointFrame], table: &Table, other: &Table) -> Mapping {
    let skeleton = &asset.skeleton;
    let mut mapping = Mapping::new(Method::Table(table.name.clone()));
    let mut used: Vec<JointId> = Vec::new();
    for (bone, names) in &table.bones {
        let fallback = other
            .bones
            .iter()
            .filter(|(b, _)| b == bone)
            .flat_map(|(_, n)| n.iter());
        let found = names.iter().chain(fallback).find_map(|name| {
            frames
                .iter()
                .map(|f| f.joint)
                .find(|j| skeleton.name(*j) == name && !used.contains(j))
        });
        if let Some(joint) = found {
            used.push(joint);
            mapping.set(*bone, joint, 1.0);
        }
    }
    loop {
        let intruder = mapping.bones.iter().find_map(|(bone, joint)| {
            let above = skeleton
                .ancestors(joint)
                .find_map(|a| mapping.bones.bone_of(a))?;
            let fits = bone.ancestors().any(|b| b == above);
            (!fits && !above.is_required(crate::model::Profile::Vrm1)).then_some(above)
        });
        match intruder {
            Some(bone) => mapping.unset(bone),
            None => break,
        }
    }
    prune(skeleton, &mut mapping);
    mapping
}
