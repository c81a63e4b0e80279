//! From the scene graph to H-Anim figures: each humanoid's joint tree, segments, sites and
//! humanoid-level transform, with the joint names repaired where a file gets them wrong.
//!
//! ## Overview
//!
//! H-Anim nodes are recognised by type: the X3D `HAnimHumanoid`, `HAnimJoint`, `HAnimSegment`,
//! `HAnimSite`, `HAnimDisplacer`, `HAnimMotion`, and the H-Anim 1.x PROTO instances `Humanoid`,
//! `Joint`, `Segment`, `Site`, `Displacer` (whose fields are read by name, with the PROTO's own
//! defaults). A humanoid's joint tree is walked from its `skeleton` (X3D) or `humanoidBody`
//! (1.x) roots, through every node-valued field but geometry, appearance, coordinates,
//! metadata and displacers, in file order: the order X_ITE and Castle list joints in. A node met
//! twice (USE) is walked once.
//!
//! **Names.** A joint is identified by its `name` field (trimmed). Repairs, each reported:
//! whitespace inside a name that makes a standard name without it (`r _knee`); a
//! `<humanoid name>_` prefix; an empty name, replaced by the DEF name without its prefix
//! (`hanim_l_hip` → `l_hip`), else the DEF name, else `joint<N>`; a duplicated `l_`/`r_` name
//! whose ancestors are on the other side (Marvin's right hand, named like the left one), renamed
//! to that side when the name is free. Other duplicates and non-standard names are kept and
//! reported.

use std::collections::HashSet;

use glam::{DMat4, DQuat, DVec3};

use super::classic::Note;
use super::fields::Fields;
use super::names::{self, Generation};
use super::tree::{Node, NodeId, Scene};

/// The H-Anim node kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `HAnimHumanoid`, `Humanoid`.
    Humanoid,
    /// `HAnimJoint`, `Joint`.
    Joint,
    /// `HAnimSegment`, `Segment`.
    Segment,
    /// `HAnimSite`, `Site`.
    Site,
    /// `HAnimDisplacer`, `Displacer`.
    Displacer,
    /// `HAnimMotion`.
    Motion,
}

/// The H-Anim kind of a node, by its type name.
pub(crate) fn kind(node: &Node<'_>) -> Option<Kind> {
    Some(match node.type_name {
        "HAnimHumanoid" | "Humanoid" => Kind::Humanoid,
        "HAnimJoint" | "Joint" => Kind::Joint,
        "HAnimSegment" | "Segment" => Kind::Segment,
        "HAnimSite" | "Site" => Kind::Site,
        "HAnimDisplacer" | "Displacer" => Kind::Displacer,
        "HAnimMotion" => Kind::Motion,
        _ => return None,
    })
}

/// Node fields that never lead to joints, segments or sites.
const NOT_WALKED: [&str; 17] = [
    "metadata",
    "geometry",
    "appearance",
    "coord",
    "displacers",
    "texCoord",
    "color",
    "normal",
    "texture",
    "material",
    "fontStyle",
    "skinCoord",
    "skinNormal",
    "skin",
    "joints",
    "segments",
    "motions",
];

/// The humanoid's own transform, reduced to what the canonical model keeps: `p ↦ translation +
/// rotation · (scale · p)` (X3D `center` folded into the translation; a non-uniform scale is
/// replaced by its mean, reported).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HumanoidTransform {
    /// Translation.
    pub translation: DVec3,
    /// Rotation.
    pub rotation: DQuat,
    /// Uniform scale.
    pub scale: f64,
}

impl HumanoidTransform {
    /// No transform.
    pub const IDENTITY: HumanoidTransform = HumanoidTransform {
        translation: DVec3::ZERO,
        rotation: DQuat::IDENTITY,
        scale: 1.0,
    };
}

/// One joint as found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FoundJoint {
    /// Its node.
    pub node: NodeId,
    /// Its parent joint (index into [`Figure::joints`]).
    pub parent: Option<usize>,
    /// The `name` field as written.
    pub file_name: String,
    /// The name used (repaired).
    pub name: String,
    /// Its DEF name.
    pub def: Option<String>,
    /// `center`, in the humanoid's space.
    pub center: DVec3,
    /// `translation`.
    pub translation: DVec3,
    /// `rotation`.
    pub rotation: DQuat,
    /// `scale`.
    pub scale: DVec3,
    /// `scaleOrientation`: the axes `scale` stretches along.
    pub scale_orientation: DQuat,
    /// Byte offset of the node.
    pub at: usize,
}

/// A segment or site as found: the joint it moves with and its transform in that joint's
/// (rest, humanoid-space) frame.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Attached {
    /// Its node.
    pub node: NodeId,
    /// The enclosing joint.
    pub joint: Option<usize>,
    /// Its `name`.
    pub name: String,
    /// Its own transform composed with the Transforms between it and its joint.
    pub transform: DMat4,
    /// Found under the humanoid's `viewpoints`.
    pub viewpoint: bool,
}

/// One humanoid as found in the scene.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Figure {
    /// Its node (`None` for joints found without a humanoid).
    pub node: Option<NodeId>,
    /// `name`.
    pub name: String,
    /// `version`.
    pub version: String,
    /// `loa`.
    pub loa: i64,
    /// `skeletalConfiguration`.
    pub skeletal_configuration: String,
    /// `info`.
    pub info: Vec<String>,
    /// Its transform.
    pub transform: HumanoidTransform,
    /// Joints, parents first (the walk's pre-order).
    pub joints: Vec<FoundJoint>,
    /// Segments.
    pub segments: Vec<Attached>,
    /// Sites.
    pub sites: Vec<Attached>,
    /// `motions`.
    pub motions: Vec<NodeId>,
}

/// Reports interface fields of the file's H-Anim PROTOs that are close to, but not, an H-Anim
/// field name (EPFL's `transalation`): their values are not read.
pub(crate) fn check_protos(scene: &Scene<'_>, notes: &mut Vec<Note>) {
    for proto in &scene.protos {
        let standard = match proto.name {
            "Humanoid" | "HAnimHumanoid" => "HAnimHumanoid",
            "Joint" | "HAnimJoint" => "HAnimJoint",
            "Segment" | "HAnimSegment" => "HAnimSegment",
            "Site" | "HAnimSite" => "HAnimSite",
            "Displacer" | "HAnimDisplacer" => "HAnimDisplacer",
            _ => continue,
        };
        let known = super::interface::hanim_field_names(standard);
        for field in &proto.fields {
            if known.contains(&field.name) {
                continue;
            }
            let near = known
                .iter()
                .map(|k| (crate::math::text::edit_distance(k, field.name), *k))
                .filter(|(d, _)| *d <= 2)
                .min();
            if let Some((_, k)) = near {
                notes.push(Note {
                    at: field.at,
                    code: "HANIM_PROTO_FIELD_MISSPELLED",
                    message: format!(
                        "PROTO {} declares `{}`, which is not an H-Anim field (`{k}` is); values given to it are not read",
                        proto.name, field.name
                    ),
                });
            }
        }
    }
}

/// Every humanoid of the scene (joints found outside any humanoid make one more, reported).
pub(crate) fn figures(scene: &Scene<'_>, notes: &mut Vec<Note>) -> Vec<Figure> {
    check_protos(scene, notes);
    let mut humanoids = Vec::new();
    let mut loose_joints = Vec::new();
    let mut seen = HashSet::new();
    let mut stack: Vec<(NodeId, bool)> = scene.roots.iter().rev().map(|r| (*r, false)).collect();
    while let Some((id, in_joint)) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Some(node) = scene.node(id) else { continue };
        let node_kind = kind(node);
        match node_kind {
            Some(Kind::Humanoid) => {
                humanoids.push(id);
                continue;
            }
            Some(Kind::Joint) if !in_joint => loose_joints.push(id),
            _ => {}
        }
        let inside = in_joint || node_kind == Some(Kind::Joint);
        let children: Vec<NodeId> = scene.child_nodes(id).map(|(_, c)| c).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, inside)));
    }
    let mut out = Vec::new();
    let mut walked = HashSet::new();
    for humanoid in humanoids {
        out.push(humanoid_figure(scene, humanoid, &mut walked, notes));
    }
    let loose: Vec<NodeId> = loose_joints
        .into_iter()
        .filter(|j| !walked.contains(j))
        .collect();
    if !loose.is_empty() && !out.is_empty() {
        notes.push(Note {
            at: loose
                .first()
                .and_then(|j| scene.node(*j))
                .map_or(0, |n| n.at),
            code: "HANIM_JOINT_OUTSIDE_HUMANOID",
            message: format!(
                "{} joint node(s) outside every humanoid's skeleton: ignored",
                loose.len()
            ),
        });
    } else if !loose.is_empty() {
        let at = loose
            .first()
            .and_then(|j| scene.node(*j))
            .map_or(0, |n| n.at);
        notes.push(Note {
            at,
            code: "HANIM_NO_HUMANOID_NODE",
            message: format!(
                "{} joint tree(s) outside any humanoid node: read as a humanoid of their own",
                loose.len()
            ),
        });
        let mut walker = Walker::new(scene, Figure::empty(None), &mut walked);
        for root in loose {
            walker.walk(root, None, DMat4::IDENTITY, false);
        }
        let mut figure = walker.figure;
        let mut w_notes = walker.notes;
        notes.append(&mut w_notes);
        repair_names(&mut figure, notes);
        out.push(figure);
    }
    // `UNIT length`: every length of the file times the factor is the whole figure scaled
    // about the origin (X3D transforms are linear in their lengths), so it joins the
    // humanoid's own scale and translation.
    let metres = scene.header.units.length;
    for figure in &mut out {
        figure.transform.translation *= metres;
        figure.transform.scale *= metres;
    }
    out
}

impl Figure {
    fn empty(node: Option<NodeId>) -> Figure {
        Figure {
            node,
            name: String::new(),
            version: String::new(),
            loa: -1,
            skeletal_configuration: "BASIC".to_owned(),
            info: Vec::new(),
            transform: HumanoidTransform::IDENTITY,
            joints: Vec::new(),
            segments: Vec::new(),
            sites: Vec::new(),
            motions: Vec::new(),
        }
    }
}

fn humanoid_figure(
    scene: &Scene<'_>,
    id: NodeId,
    walked: &mut HashSet<NodeId>,
    notes: &mut Vec<Note>,
) -> Figure {
    let mut figure = Figure::empty(Some(id));
    let Some(h) = Fields::of(scene, id) else {
        return figure;
    };
    figure.name = h.string("name").unwrap_or("").trim().to_owned();
    figure.version = h.string("version").unwrap_or("").to_owned();
    figure.loa = crate::math::num::whole(h.number("loa", -1.0)).unwrap_or(-1);
    figure.skeletal_configuration = h
        .string("skeletalConfiguration")
        .unwrap_or("BASIC")
        .to_owned();
    figure.info = h.strings("info");
    figure.motions = h.nodes("motions").to_vec();
    figure.transform = humanoid_transform(&h, notes);
    let mut roots: Vec<NodeId> = h.nodes("skeleton").to_vec();
    roots.extend(h.nodes("humanoidBody"));
    let listed = h.nodes("joints");
    if roots.is_empty() && !listed.is_empty() {
        notes.push(Note {
            at: h.node().at,
            code: "HANIM_NO_SKELETON",
            message: "the humanoid has no skeleton (or humanoidBody): its joint tree is rebuilt from the joints list".to_owned(),
        });
        roots = list_roots(scene, listed);
    }
    let mut walker = Walker::new(scene, figure, walked);
    for root in roots {
        walker.walk(root, None, DMat4::IDENTITY, false);
    }
    for site in h.nodes("viewpoints") {
        walker.walk(*site, None, DMat4::IDENTITY, true);
    }
    for site in h.nodes("sites") {
        walker.walk(*site, None, DMat4::IDENTITY, false);
    }
    let unreached = listed
        .iter()
        .filter(|j| !walker.joint_nodes.contains(j))
        .count();
    let mut figure = walker.figure;
    notes.append(&mut walker.notes);
    if unreached > 0 {
        notes.push(Note {
            at: h.at("joints"),
            code: "HANIM_JOINT_NOT_IN_SKELETON",
            message: format!(
                "{unreached} joint(s) of the joints list are not in the skeleton: ignored"
            ),
        });
    }
    repair_names(&mut figure, notes);
    figure
}

/// The joints of a list that are not below another listed joint.
fn list_roots(scene: &Scene<'_>, listed: &[NodeId]) -> Vec<NodeId> {
    let mut below = HashSet::new();
    let mut stack: Vec<NodeId> = Vec::new();
    for joint in listed {
        stack.extend(scene.child_nodes(*joint).map(|(_, c)| c));
    }
    while let Some(id) = stack.pop() {
        if below.insert(id) {
            stack.extend(scene.child_nodes(id).map(|(_, c)| c));
        }
    }
    listed
        .iter()
        .copied()
        .filter(|j| !below.contains(j))
        .collect()
}

/// The humanoid's transform fields, reduced to translation, rotation and uniform scale.
fn humanoid_transform(h: &Fields<'_, '_>, notes: &mut Vec<Note>) -> HumanoidTransform {
    let translation = h.vec3("translation", DVec3::ZERO);
    let rotation = h.rotation("rotation");
    let scale = h.vec3("scale", DVec3::ONE);
    let center = h.vec3("center", DVec3::ZERO);
    let uniform = (scale.x - scale.y).abs() <= 1e-9 * scale.abs().max_element()
        && (scale.x - scale.z).abs() <= 1e-9 * scale.abs().max_element();
    let k = if uniform {
        scale.x
    } else {
        let mean = (scale.x * scale.y * scale.z).abs().cbrt();
        notes.push(Note {
            at: h.at("scale"),
            code: "HANIM_NONUNIFORM_SCALE",
            message: format!(
                "humanoid scale {} {} {} is not uniform: read as the uniform scale {mean}",
                scale.x, scale.y, scale.z
            ),
        });
        mean
    };
    let k = if k.is_finite() && k > 0.0 {
        k
    } else {
        notes.push(Note {
            at: h.at("scale"),
            code: "HANIM_BAD_SCALE",
            message: format!("humanoid scale {k} is not positive: read as 1"),
        });
        1.0
    };
    // M = T(t)·T(c)·R·S·T(−c): p ↦ t + c + R·k·(p − c).
    HumanoidTransform {
        translation: translation + center - rotation * (k * center),
        rotation,
        scale: k,
    }
}

/// The X3D Transform matrix `T(t)·T(c)·R·SR·S·SR⁻¹·T(−c)` of a node with transform fields.
pub(crate) fn transform_matrix(f: &Fields<'_, '_>) -> DMat4 {
    let translation = f.vec3("translation", DVec3::ZERO);
    let center = f.vec3("center", DVec3::ZERO);
    let rotation = f.rotation("rotation");
    let scale = f.vec3("scale", DVec3::ONE);
    let scale_orientation = f.rotation("scaleOrientation");
    DMat4::from_translation(translation + center)
        * DMat4::from_quat(rotation)
        * DMat4::from_quat(scale_orientation)
        * DMat4::from_scale(scale)
        * DMat4::from_quat(scale_orientation.inverse())
        * DMat4::from_translation(-center)
}

fn has_transform(node: &Node<'_>) -> bool {
    matches!(
        node.type_name,
        "Transform" | "HAnimSite" | "Site" | "Billboard"
    ) || node.field("translation").is_some()
        || node.field("rotation").is_some()
        || node.field("scale").is_some()
}

struct Walker<'s, 'a, 'w> {
    scene: &'s Scene<'a>,
    figure: Figure,
    walked: &'w mut HashSet<NodeId>,
    joint_nodes: HashSet<NodeId>,
    notes: Vec<Note>,
}

impl<'s, 'a, 'w> Walker<'s, 'a, 'w> {
    fn new(scene: &'s Scene<'a>, figure: Figure, walked: &'w mut HashSet<NodeId>) -> Self {
        Walker {
            scene,
            figure,
            walked,
            joint_nodes: HashSet::new(),
            notes: Vec::new(),
        }
    }

    /// Walks `id` found below joint `joint`, with `transform` from that joint's frame.
    fn walk(&mut self, id: NodeId, joint: Option<usize>, transform: DMat4, viewpoint: bool) {
        let Some(f) = Fields::of(self.scene, id) else {
            return;
        };
        let node = f.node();
        if !self.walked.insert(id) {
            if kind(node) == Some(Kind::Joint) && !self.joint_nodes.contains(&id) {
                // Walked already as part of another humanoid.
                self.notes.push(Note {
                    at: node.at,
                    code: "HANIM_JOINT_SHARED",
                    message: format!(
                        "joint {:?} belongs to another humanoid too: read once",
                        f.string("name").unwrap_or("")
                    ),
                });
            }
            return;
        }
        match kind(node) {
            Some(Kind::Joint) => {
                if transform.abs_diff_eq(DMat4::IDENTITY, 1e-12) {
                    // As it should be.
                } else {
                    self.notes.push(Note {
                        at: node.at,
                        code: "HANIM_JOINT_UNDER_TRANSFORM",
                        message: format!(
                            "joint {:?} sits under a Transform inside its parent joint: that Transform is ignored",
                            f.string("name").unwrap_or("")
                        ),
                    });
                }
                let index = self.add_joint(id, &f, joint);
                self.joint_nodes.insert(id);
                self.children(id, Some(index), DMat4::IDENTITY, viewpoint);
            }
            Some(Kind::Segment) => {
                self.figure.segments.push(Attached {
                    node: id,
                    joint,
                    name: f.string("name").unwrap_or("").trim().to_owned(),
                    transform,
                    viewpoint,
                });
                self.children(id, joint, transform, viewpoint);
            }
            Some(Kind::Site) => {
                let transform = transform * transform_matrix(&f);
                self.figure.sites.push(Attached {
                    node: id,
                    joint,
                    name: f.string("name").unwrap_or("").trim().to_owned(),
                    transform,
                    viewpoint,
                });
                self.children(id, joint, transform, viewpoint);
            }
            Some(Kind::Humanoid) => self.notes.push(Note {
                at: node.at,
                code: "HANIM_NESTED_HUMANOID",
                message: "a humanoid inside another humanoid's skeleton: ignored".to_owned(),
            }),
            Some(Kind::Displacer | Kind::Motion) => {}
            None => {
                let transform = if has_transform(node) {
                    transform * transform_matrix(&f)
                } else {
                    transform
                };
                self.children(id, joint, transform, viewpoint);
            }
        }
    }

    fn children(&mut self, id: NodeId, joint: Option<usize>, transform: DMat4, viewpoint: bool) {
        let children: Vec<NodeId> = self
            .scene
            .child_nodes(id)
            .filter(|(field, _)| !NOT_WALKED.contains(field))
            .map(|(_, c)| c)
            .collect();
        for child in children {
            self.walk(child, joint, transform, viewpoint);
        }
    }

    fn add_joint(&mut self, id: NodeId, f: &Fields<'_, '_>, parent: Option<usize>) -> usize {
        let node = f.node();
        let file_name = f.string("name").unwrap_or("").to_owned();
        let scale = f.vec3("scale", DVec3::ONE);
        self.figure.joints.push(FoundJoint {
            node: id,
            parent,
            name: file_name.clone(),
            file_name,
            def: node.def.map(str::to_owned),
            center: f.vec3("center", DVec3::ZERO),
            translation: f.vec3("translation", DVec3::ZERO),
            rotation: f.rotation("rotation"),
            scale,
            scale_orientation: f.rotation("scaleOrientation").normalize(),
            at: node.at,
        });
        self.figure.joints.len() - 1
    }
}

/// Repairs joint names (module docs), reporting each repair. Linear in the joints: names are
/// looked up in hash sets, never by scanning the figure per joint.
fn repair_names(figure: &mut Figure, notes: &mut Vec<Note>) {
    let prefix = (!figure.name.is_empty()).then(|| format!("{}_", figure.name));
    let written = WrittenNames::of(figure);
    for (index, joint) in figure.joints.iter_mut().enumerate() {
        let written_name = joint.file_name.clone();
        let trimmed = written_name.trim();
        let mut name = trimmed.to_owned();
        if !name.is_empty() && !names::is_standard(&name) {
            let squeezed: String = name.chars().filter(|c| !c.is_whitespace()).collect();
            let unprefixed = prefix
                .as_deref()
                .and_then(|p| name.strip_prefix(p))
                .filter(|rest| names::is_standard(rest))
                .map(str::to_owned);
            if squeezed != name && names::is_standard(&squeezed) {
                name = squeezed;
            } else if let Some(rest) = unprefixed {
                name = rest;
            }
        }
        if name.is_empty() {
            name = written.unnamed(index, joint);
            notes.push(Note {
                at: joint.at,
                code: "HANIM_JOINT_UNNAMED",
                message: format!("a joint has no name: called {name:?}"),
            });
        } else if name != written_name {
            notes.push(Note {
                at: joint.at,
                code: "HANIM_NAME_REPAIRED",
                message: format!("joint name {written_name:?} read as {name:?}"),
            });
        }
        joint.name = name;
    }
    repair_sides(figure, notes);
    let mut seen: HashSet<&str> = HashSet::new();
    let mut duplicated: HashSet<&str> = HashSet::new();
    let mut duplicates: Vec<&str> = Vec::new();
    for joint in &figure.joints {
        let name = joint.name.as_str();
        if !seen.insert(name) && duplicated.insert(name) {
            duplicates.push(name);
        }
    }
    if !duplicates.is_empty() {
        notes.push(Note {
            at: figure.joints.first().map_or(0, |j| j.at),
            code: "HANIM_DUPLICATE_JOINT_NAME",
            message: format!(
                "joint names used more than once (kept; mappings take the first): {}",
                duplicates.join(", ")
            ),
        });
    }
    let unknown: Vec<&str> = figure
        .joints
        .iter()
        .map(|j| j.name.as_str())
        .filter(|n| !names::is_standard(n))
        .collect();
    if !unknown.is_empty() && unknown.len() < figure.joints.len() {
        notes.push(Note {
            at: figure.joints.first().map_or(0, |j| j.at),
            code: "HANIM_NONSTANDARD_JOINTS",
            message: format!(
                "{} joint(s) with names H-Anim does not define (kept): {}",
                unknown.len(),
                unknown.join(", ")
            ),
        });
    }
}

/// `l_`/`r_`, when the name has a side.
fn side(name: &str) -> Option<char> {
    if name.starts_with("l_") {
        Some('l')
    } else if name.starts_with("r_") {
        Some('r')
    } else {
        None
    }
}

/// A second joint with a sided name whose nearest sided ancestor is on the other side takes
/// that side's name, when it is free.
fn repair_sides(figure: &mut Figure, notes: &mut Vec<Note>) {
    // The first joint of each name; a renamed joint takes a free name, so it is that name's
    // first, and a first joint is never renamed: the map stays right as names change.
    let mut first: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (index, joint) in figure.joints.iter().enumerate() {
        first.entry(joint.name.clone()).or_insert(index);
    }
    for index in 0..figure.joints.len() {
        let Some(joint) = figure.joints.get(index) else {
            continue;
        };
        let Some(own) = side(&joint.name) else {
            continue;
        };
        if first.get(&joint.name) == Some(&index) {
            continue;
        }
        let mut ancestor = joint.parent;
        let mut ancestor_side = None;
        while let Some(a) = ancestor.and_then(|a| figure.joints.get(a)) {
            if let Some(s) = side(&a.name) {
                ancestor_side = Some(s);
                break;
            }
            ancestor = a.parent;
        }
        let Some(other) = ancestor_side.filter(|s| *s != own) else {
            continue;
        };
        let renamed = format!("{other}{}", joint.name.get(1..).unwrap_or(""));
        if first.contains_key(&renamed) {
            continue;
        }
        let at = joint.at;
        let old = joint.name.clone();
        first.insert(renamed.clone(), index);
        if let Some(joint) = figure.joints.get_mut(index) {
            joint.name = renamed.clone();
        }
        notes.push(Note {
            at,
            code: "HANIM_NAME_REPAIRED",
            message: format!(
                "joint {old:?} is a second joint of that name, on the {} side: read as {renamed:?}",
                if other == 'l' { "left" } else { "right" }
            ),
        });
    }
}

/// The names as the file wrote them (trimmed), with what [`WrittenNames::unnamed`] asks of
/// them indexed once.
struct WrittenNames {
    names: Vec<String>,
    taken: HashSet<String>,
    children: Vec<Vec<usize>>,
    generation: std::cell::OnceCell<Generation>,
}

impl WrittenNames {
    fn of(figure: &Figure) -> WrittenNames {
        let names: Vec<String> = figure
            .joints
            .iter()
            .map(|j| j.file_name.trim().to_owned())
            .collect();
        let mut children = vec![Vec::new(); figure.joints.len()];
        for (index, joint) in figure.joints.iter().enumerate() {
            if let Some(list) = joint.parent.and_then(|p| children.get_mut(p)) {
                list.push(index);
            }
        }
        WrittenNames {
            taken: names.iter().cloned().collect(),
            names,
            children,
            generation: std::cell::OnceCell::new(),
        }
    }

    fn taken(&self, name: &str) -> bool {
        self.taken.contains(name)
    }

    /// A name for a joint with none: its DEF without the prefix when that is a standard name
    /// no other joint has; else the standard parent of a child's standard name, when free
    /// (JoeKick's unnamed clavicle above the joint named `l_acromioclavicular` is
    /// `l_sternoclavicular`); else the DEF; else `joint<index>`.
    fn unnamed(&self, index: usize, joint: &FoundJoint) -> String {
        let from_def = joint.def.as_deref().and_then(|def| {
            def.split_once('_')
                .map(|(_, rest)| rest)
                .filter(|rest| names::is_standard(rest) && !self.taken(rest))
        });
        if let Some(name) = from_def {
            return name.to_owned();
        }
        let from_child = self
            .children
            .get(index)
            .into_iter()
            .flatten()
            .filter_map(|child| self.names.get(*child))
            .filter_map(|child| names::to_v2(child))
            .filter_map(|child| names::spec(child)?.parent)
            .find(|parent| {
                !self.taken(parent) && names::to_v1(parent).is_none_or(|v1| !self.taken(v1))
            });
        if let Some(parent) = from_child {
            let generation = self
                .generation
                .get_or_init(|| Generation::of_names(self.names.iter().map(String::as_str)));
            return match generation {
                Generation::V1 => names::to_v1(parent).unwrap_or(parent).to_owned(),
                Generation::V2 => parent.to_owned(),
            };
        }
        joint.def.clone().unwrap_or_else(|| format!("joint{index}"))
    }
}
