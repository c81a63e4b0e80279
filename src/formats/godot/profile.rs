//! `SkeletonProfile`: the bones a BoneMap maps onto (names, parents, reference poses, tails,
//! groups), read from a resource's properties and written as a `.tres`, and identified with
//! the canonical bones.
//!
//! Godot stores a custom profile as flat properties (`skeleton_profile.cpp`
//! `_get_property_list`): `root_bone`, `scale_base_bone`, `group_size`,
//! `groups/<i>/group_name`, `groups/<i>/texture`, `bone_size`, and per bone
//! `bones/<i>/bone_name`, `bone_parent`, `tail_direction` (0 AverageChildren, 1 SpecificChild,
//! 2 End), `bone_tail` (SpecificChild only), `reference_pose` (`Transform3D`, local to the
//! parent), `handle_offset` (`Vector2`), `group`, `require`. The built-in
//! `SkeletonProfileHumanoid` stores nothing ([`super::humanoid`] has its data).
//!
//! ```
//! use humanoid::formats::godot::SkeletonProfile;
//! let profile = SkeletonProfile::humanoid();
//! assert_eq!(profile.bones.len(), 56);
//! assert_eq!(profile.bone("LeftHand").and_then(|b| b.parent.as_deref()), Some("LeftLowerArm"));
//! let text = profile.to_tres();
//! assert!(text.starts_with("[gd_resource type=\"SkeletonProfile\" format=3]\n"));
//! assert!(text.contains("bones/1/bone_tail = &\"Spine\"\n"));
//! ```

use std::collections::HashMap;
use std::fmt;
use std::ops::Mul;
use std::path::Path;

use glam::{DMat3, DVec2, DVec3, Mat4, Vec3};

use super::document::{Document, Position, Section};
use super::value::{MathType, Value};
use crate::error::{Diagnostics, Error, Location};
use crate::mapping::{map_rig, Choice, Library, Method, Table};
use crate::math::Trs;
use crate::model::asset::Asset;
use crate::model::skeleton::{RawJoint, Skeleton};
use crate::model::Format;
use crate::model::{HumanBone, Profile};

/// The most bones (and groups) a profile may declare.
pub const MAX_PROFILE_BONES: usize = 4096;

/// Godot's `SkeletonProfile::TailDirection`: where a bone's tail is (for Fix Silhouette).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TailDirection {
    /// The mean of the children's origins (0).
    #[default]
    AverageChildren,
    /// The origin of the bone named by `bone_tail` (1).
    SpecificChild,
    /// No tail (2).
    End,
}

impl TailDirection {
    /// The enum's integer in the text format.
    pub fn to_int(self) -> i64 {
        match self {
            TailDirection::AverageChildren => 0,
            TailDirection::SpecificChild => 1,
            TailDirection::End => 2,
        }
    }

    /// The direction an integer stands for.
    pub fn from_int(i: i64) -> Option<TailDirection> {
        match i {
            0 => Some(TailDirection::AverageChildren),
            1 => Some(TailDirection::SpecificChild),
            2 => Some(TailDirection::End),
            _ => None,
        }
    }
}

/// Godot's `Transform3D`: a basis and an origin, in `f64`.
///
/// The text form `Transform3D(a, b, c, d, e, f, g, h, i, x, y, z)` lists the basis **rows**
/// `(a, b, c)`, `(d, e, f)`, `(g, h, i)`; the bone's local axes are the basis **columns**.
///
/// ```
/// use glam::DVec3;
/// use humanoid::formats::godot::Transform3D;
/// // LeftShoulder's reference pose: its +Y (column 1) is the character's left, +X.
/// let t = Transform3D::from_rows([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], DVec3::ZERO);
/// assert_eq!(t.basis.y_axis, DVec3::X);
/// assert_eq!(t.rows()[0], [0.0, 1.0, 0.0]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform3D {
    /// The basis (columns = local axes).
    pub basis: DMat3,
    /// The origin.
    pub origin: DVec3,
}

impl Default for Transform3D {
    fn default() -> Self {
        Transform3D::IDENTITY
    }
}

impl Transform3D {
    /// No rotation, no translation.
    pub const IDENTITY: Transform3D = Transform3D {
        basis: DMat3::IDENTITY,
        origin: DVec3::ZERO,
    };

    /// From the basis rows (as the text writes them) and the origin.
    pub fn from_rows(rows: [[f64; 3]; 3], origin: DVec3) -> Transform3D {
        Transform3D {
            basis: DMat3::from_cols_array_2d(&rows).transpose(),
            origin,
        }
    }

    /// The basis rows.
    pub fn rows(&self) -> [[f64; 3]; 3] {
        self.basis.transpose().to_cols_array_2d()
    }

    /// A `Transform3D(…)` value.
    pub fn from_value(value: &Value) -> Option<Transform3D> {
        let [a, b, c, d, e, f, g, h, i, x, y, z] = value.as_math(MathType::Transform3D)? else {
            return None;
        };
        Some(Transform3D::from_rows(
            [[*a, *b, *c], [*d, *e, *f], [*g, *h, *i]],
            DVec3::new(*x, *y, *z),
        ))
    }

    /// The `Transform3D(…)` value.
    pub fn to_value(&self) -> Value {
        let mut args: Vec<f64> = self.rows().into_iter().flatten().collect();
        args.extend(self.origin.to_array());
        Value::Math(MathType::Transform3D, args)
    }

    /// As a [`Trs`] (`f32`): rotation from the orthonormalised basis, scale from its column
    /// lengths (a mirroring basis gets a negative x scale).
    pub fn to_trs(&self) -> Trs {
        let b = self.basis.as_mat3();
        let origin: Vec3 = self.origin.as_vec3();
        Trs::from_mat4(Mat4::from_cols(
            b.x_axis.extend(0.0),
            b.y_axis.extend(0.0),
            b.z_axis.extend(0.0),
            origin.extend(1.0),
        ))
    }
}

impl Mul for Transform3D {
    type Output = Transform3D;
    /// `self` applied after `rhs` (parent * child).
    fn mul(self, rhs: Transform3D) -> Transform3D {
        Transform3D {
            basis: self.basis * rhs.basis,
            origin: self.basis * rhs.origin + self.origin,
        }
    }
}

/// One group of the profile (one picture in Godot's BoneMap editor).
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileGroup {
    /// `groups/<i>/group_name`.
    pub name: String,
    /// `groups/<i>/texture`: the texture's `res://` path (or `uid://`), if any.
    pub texture: Option<String>,
}

/// One bone of a profile.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileBone {
    /// `bone_name`.
    pub name: String,
    /// `bone_parent` (`None` for a root).
    pub parent: Option<String>,
    /// `tail_direction`.
    pub tail_direction: TailDirection,
    /// `bone_tail` (for [`TailDirection::SpecificChild`]).
    pub tail: Option<String>,
    /// `reference_pose`, local to the parent.
    pub reference_pose: Transform3D,
    /// `handle_offset`: where the bone's button sits on its group's picture (0..1).
    pub handle_offset: DVec2,
    /// `group`.
    pub group: String,
    /// `require`.
    pub required: bool,
}

/// A `SkeletonProfile`: the bones a BoneMap maps onto.
///
/// # Invariants
/// A profile read by [`SkeletonProfile::from_section`] has non-empty, unique bone names, every
/// parent, tail, `root_bone` and `scale_base_bone` names one of its bones, and the parent
/// links have no cycle. Profiles built in code should keep to the same rules.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkeletonProfile {
    /// `root_bone` (`Root` in the humanoid).
    pub root_bone: Option<String>,
    /// `scale_base_bone` (`Hips` in the humanoid).
    pub scale_base_bone: Option<String>,
    /// The groups.
    pub groups: Vec<ProfileGroup>,
    /// The bones, in the profile's order.
    pub bones: Vec<ProfileBone>,
}

/// How a profile's bones were matched to canonical bones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identification {
    /// By Godot's humanoid names (`Hips`, `LeftUpperArm`).
    GodotNames,
    /// By a mapping table's names.
    Table(String),
    /// By the shape of the reference poses (the auto-mapper).
    Shape,
}

impl fmt::Display for Identification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Identification::GodotNames => f.write_str("Godot's humanoid names"),
            Identification::Table(t) => write!(f, "the {t} table"),
            Identification::Shape => f.write_str("the reference poses' shape (the auto-mapper)"),
        }
    }
}

/// Which profile bone is which canonical bone.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileMapping {
    /// Canonical bone → profile bone name, in [`HumanBone::ALL`] order.
    pub bones: Vec<(HumanBone, String)>,
    /// The profile's root bone, which no canonical bone stands for.
    pub root: Option<String>,
    /// How the bones were matched.
    pub identified_by: Identification,
    /// Profile bones left without a canonical bone, and how the match was made.
    pub diagnostics: Diagnostics,
}

impl ProfileMapping {
    /// The profile bone standing for `bone`.
    pub fn profile_bone(&self, bone: HumanBone) -> Option<&str> {
        self.bones
            .iter()
            .find(|(b, _)| *b == bone)
            .map(|(_, n)| n.as_str())
    }

    /// The canonical bone a profile bone stands for.
    pub fn canonical(&self, profile_bone: &str) -> Option<HumanBone> {
        self.bones
            .iter()
            .find(|(_, n)| n == profile_bone)
            .map(|(b, _)| *b)
    }
}

/// Where the properties of a profile bone were read (for errors found after reading).
#[derive(Debug, Clone, Copy, Default)]
struct BoneAt {
    first: Option<Position>,
    name: Option<Position>,
    parent: Option<Position>,
    tail: Option<Position>,
}

impl SkeletonProfile {
    /// Godot's built-in `SkeletonProfileHumanoid` (56 bones, reference poses as Godot has
    /// them).
    pub fn humanoid() -> SkeletonProfile {
        super::humanoid::skeleton_profile_humanoid()
    }

    /// The canonical humanoid as a profile: [`SkeletonProfile::humanoid`] with the thumbs at
    /// 45° ([`super::humanoid::canonical_profile`]).
    pub fn canonical() -> SkeletonProfile {
        super::humanoid::canonical_profile()
    }

    /// The index of the bone called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }

    /// The bone called `name`.
    pub fn bone(&self, name: &str) -> Option<&ProfileBone> {
        self.bones.iter().find(|b| b.name == name)
    }

    /// Each bone's reference pose in the profile's space (the local poses chained from the
    /// roots), in bone order. A bone whose parent is missing or on a cycle counts as a root.
    pub fn world_poses(&self) -> Vec<Transform3D> {
        let index: HashMap<&str, usize> = self
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.as_str(), i))
            .collect();
        let mut world: Vec<Option<Transform3D>> = vec![None; self.bones.len()];
        for start in 0..self.bones.len() {
            // The chain from `start` up to the first bone already known (or a root).
            let mut chain = vec![start];
            let mut base = Transform3D::IDENTITY;
            while let Some(&top) = chain.last() {
                let parent = self
                    .bones
                    .get(top)
                    .and_then(|b| b.parent.as_deref())
                    .and_then(|p| index.get(p).copied());
                match parent {
                    Some(p) if chain.len() <= self.bones.len() && !chain.contains(&p) => {
                        if let Some(known) = world.get(p).copied().flatten() {
                            base = known;
                            break;
                        }
                        chain.push(p);
                    }
                    _ => break,
                }
            }
            for &i in chain.iter().rev() {
                if let Some(known) = world.get(i).copied().flatten() {
                    base = known;
                    continue;
                }
                let local = self
                    .bones
                    .get(i)
                    .map_or(Transform3D::IDENTITY, |b| b.reference_pose);
                base = base * local;
                if let Some(slot) = world.get_mut(i) {
                    *slot = Some(base);
                }
            }
        }
        world
            .into_iter()
            .map(|w| w.unwrap_or(Transform3D::IDENTITY))
            .collect()
    }

    /// Reads a profile from a `[resource]` or `[sub_resource]` section of `document`
    /// (`path` names the file; texture `ExtResource`s resolve to their paths).
    ///
    /// # Errors
    /// [`Error::Invalid`] at the property at fault: a value of the wrong type, an index past
    /// `bone_size`/`group_size`, a size above [`MAX_PROFILE_BONES`], a bone without a name or
    /// named twice, a parent, tail, `root_bone` or `scale_base_bone` that names no bone, a
    /// cycle of parents.
    pub fn from_section(
        section: &Section,
        document: &Document,
        path: &Path,
    ) -> Result<SkeletonProfile, Error> {
        let properties: Vec<(&str, &Value, Position)> = section
            .properties
            .iter()
            .map(|p| (p.key.as_str(), &p.value, p.at))
            .collect();
        SkeletonProfile::from_properties(&properties, Some(document), section.at, path)
    }

    /// Reads a profile from `(key, value, position)` triples (a section's properties, or an
    /// inline `Object(SkeletonProfile, …)`'s, all at the object's position). `at` is where
    /// the profile as a whole is, for problems no single property shows.
    ///
    /// # Errors
    /// As [`SkeletonProfile::from_section`].
    pub fn from_properties(
        properties: &[(&str, &Value, Position)],
        document: Option<&Document>,
        at: Position,
        path: &Path,
    ) -> Result<SkeletonProfile, Error> {
        let mut profile = SkeletonProfile::default();
        let mut bones_at: Vec<BoneAt> = Vec::new();
        for &(key, value, pos) in properties {
            if key == "group_size" || key == "bone_size" {
                let size = size_value(key, value, pos, path)?;
                if key == "group_size" {
                    profile.groups.resize(
                        size,
                        ProfileGroup {
                            name: String::new(),
                            texture: None,
                        },
                    );
                } else {
                    profile.bones.resize(
                        size,
                        ProfileBone {
                            name: String::new(),
                            parent: None,
                            tail_direction: TailDirection::AverageChildren,
                            tail: None,
                            reference_pose: Transform3D::IDENTITY,
                            handle_offset: DVec2::ZERO,
                            group: String::new(),
                            required: false,
                        },
                    );
                    bones_at.resize(size, BoneAt::default());
                }
            }
        }
        for &(key, value, pos) in properties {
            let fail = |message: String| pos.error(path, format!("{key}: {message}"));
            match key {
                "root_bone" => profile.root_bone = name_value(key, value, pos, path)?,
                "scale_base_bone" => profile.scale_base_bone = name_value(key, value, pos, path)?,
                _ => {}
            }
            if let Some(rest) = key.strip_prefix("groups/") {
                let (i, field) = indexed(rest, key, pos, path)?;
                let count = profile.groups.len();
                let Some(group) = profile.groups.get_mut(i) else {
                    return Err(fail(format!("group {i} is past group_size {count}")));
                };
                match field {
                    "group_name" => {
                        group.name = name_value(key, value, pos, path)?.unwrap_or_default()
                    }
                    "texture" => group.texture = texture_path(key, value, document, pos, path)?,
                    other => return Err(fail(format!("unknown group property {other:?}"))),
                }
            } else if let Some(rest) = key.strip_prefix("bones/") {
                let (i, field) = indexed(rest, key, pos, path)?;
                let count = profile.bones.len();
                let (Some(bone), Some(bone_at)) = (profile.bones.get_mut(i), bones_at.get_mut(i))
                else {
                    return Err(fail(format!("bone {i} is past bone_size {count}")));
                };
                bone_at.first.get_or_insert(pos);
                match field {
                    "bone_name" => {
                        bone.name = name_value(key, value, pos, path)?.unwrap_or_default();
                        bone_at.name = Some(pos);
                    }
                    "bone_parent" => {
                        bone.parent = name_value(key, value, pos, path)?;
                        bone_at.parent = Some(pos);
                    }
                    "bone_tail" => {
                        bone.tail = name_value(key, value, pos, path)?;
                        bone_at.tail = Some(pos);
                    }
                    "group" => bone.group = name_value(key, value, pos, path)?.unwrap_or_default(),
                    "tail_direction" => {
                        bone.tail_direction = value
                            .as_i64()
                            .and_then(TailDirection::from_int)
                            .ok_or_else(|| {
                                fail(format!(
                                    "expected 0, 1 or 2 (AverageChildren, SpecificChild, End), found {}",
                                    value.to_text()
                                ))
                            })?;
                    }
                    "reference_pose" => {
                        bone.reference_pose = Transform3D::from_value(value).ok_or_else(|| {
                            fail(format!(
                                "expected Transform3D(…), found {}",
                                value.describe()
                            ))
                        })?;
                    }
                    "handle_offset" => {
                        bone.handle_offset = match value.as_math(MathType::Vector2) {
                            Some([x, y]) => DVec2::new(*x, *y),
                            _ => {
                                return Err(fail(format!(
                                    "expected Vector2(…), found {}",
                                    value.describe()
                                )))
                            }
                        };
                    }
                    "require" => {
                        bone.required = value.as_bool().ok_or_else(|| {
                            fail(format!(
                                "expected true or false, found {}",
                                value.describe()
                            ))
                        })?;
                    }
                    other => return Err(fail(format!("unknown bone property {other:?}"))),
                }
            }
        }
        profile.check(&bones_at, at, path)?;
        Ok(profile)
    }

    /// The invariants (see the type's docs).
    fn check(&self, bones_at: &[BoneAt], at: Position, path: &Path) -> Result<(), Error> {
        let mut index: HashMap<&str, usize> = HashMap::new();
        let where_ = |i: usize, pick: fn(&BoneAt) -> Option<Position>| {
            bones_at
                .get(i)
                .and_then(|b| pick(b).or(b.first))
                .unwrap_or(at)
        };
        for (i, bone) in self.bones.iter().enumerate() {
            if bone.name.is_empty() {
                return Err(where_(i, |b| b.name).error(path, format!("bones/{i}: no bone_name")));
            }
            if let Some(first) = index.insert(&bone.name, i) {
                return Err(where_(i, |b| b.name).error(
                    path,
                    format!(
                        "bones/{i}/bone_name: {:?} is also the name of bones/{first}",
                        bone.name
                    ),
                ));
            }
        }
        for (i, bone) in self.bones.iter().enumerate() {
            if let Some(parent) = &bone.parent {
                if !index.contains_key(parent.as_str()) {
                    return Err(where_(i, |b| b.parent).error(
                        path,
                        format!("bones/{i}/bone_parent: the profile has no bone {parent:?}"),
                    ));
                }
            }
            if let Some(tail) = &bone.tail {
                if !index.contains_key(tail.as_str()) {
                    return Err(where_(i, |b| b.tail).error(
                        path,
                        format!("bones/{i}/bone_tail: the profile has no bone {tail:?}"),
                    ));
                }
            }
            // A cycle: walking up from i meets i again within the bone count.
            let mut up = bone.parent.as_deref().and_then(|p| index.get(p).copied());
            let mut steps = 0;
            while let Some(j) = up {
                if j == i || steps > self.bones.len() {
                    return Err(where_(i, |b| b.parent).error(
                        path,
                        format!("bones/{i}/bone_parent: {:?} is its own ancestor", bone.name),
                    ));
                }
                steps += 1;
                up = self
                    .bones
                    .get(j)
                    .and_then(|b| b.parent.as_deref())
                    .and_then(|p| index.get(p).copied());
            }
        }
        for (key, name) in [
            ("root_bone", &self.root_bone),
            ("scale_base_bone", &self.scale_base_bone),
        ] {
            if let Some(name) = name {
                if !index.contains_key(name.as_str()) {
                    return Err(at.error(path, format!("{key}: the profile has no bone {name:?}")));
                }
            }
        }
        Ok(())
    }

    /// The profile as a `SkeletonProfile` resource document (see the module docs for the
    /// properties; textures become `[ext_resource]`s).
    pub fn to_document(&self) -> Document {
        let mut textures: Vec<&str> = Vec::new();
        for group in &self.groups {
            if let Some(t) = group.texture.as_deref() {
                if !textures.contains(&t) {
                    textures.push(t);
                }
            }
        }
        let texture_id = |t: &str| {
            textures
                .iter()
                .position(|x| *x == t)
                .map(|i| format!("{}_texture", i + 1))
        };
        let mut header = vec![(
            "type".to_owned(),
            Value::String("SkeletonProfile".to_owned()),
        )];
        if !textures.is_empty() {
            header.push((
                "load_steps".to_owned(),
                Value::Int(textures.len() as i64 + 1),
            ));
        }
        header.push(("format".to_owned(), Value::Int(3)));
        let mut sections = vec![Section::new("gd_resource", header)];
        for t in &textures {
            let mut attributes = vec![("type".to_owned(), Value::String("Texture2D".to_owned()))];
            let key = if t.starts_with("uid://") {
                "uid"
            } else {
                "path"
            };
            attributes.push((key.to_owned(), Value::String((*t).to_owned())));
            if let Some(id) = texture_id(t) {
                attributes.push(("id".to_owned(), Value::String(id)));
            }
            sections.push(Section::new("ext_resource", attributes));
        }
        let mut resource = Section::new("resource", Vec::new());
        let name = |s: &str| Value::StringName(s.to_owned());
        if let Some(root) = &self.root_bone {
            resource.push("root_bone", name(root));
        }
        if let Some(base) = &self.scale_base_bone {
            resource.push("scale_base_bone", name(base));
        }
        resource.push("group_size", Value::Int(self.groups.len() as i64));
        resource.push("bone_size", Value::Int(self.bones.len() as i64));
        for (i, group) in self.groups.iter().enumerate() {
            resource.push(format!("groups/{i}/group_name"), name(&group.name));
            if let Some(id) = group.texture.as_deref().and_then(texture_id) {
                resource.push(format!("groups/{i}/texture"), Value::ExtResource(id));
            }
        }
        for (i, bone) in self.bones.iter().enumerate() {
            let key = |field: &str| format!("bones/{i}/{field}");
            resource.push(key("bone_name"), name(&bone.name));
            resource.push(
                key("bone_parent"),
                name(bone.parent.as_deref().unwrap_or("")),
            );
            resource.push(
                key("tail_direction"),
                Value::Int(bone.tail_direction.to_int()),
            );
            if bone.tail_direction == TailDirection::SpecificChild {
                resource.push(key("bone_tail"), name(bone.tail.as_deref().unwrap_or("")));
            }
            resource.push(key("reference_pose"), bone.reference_pose.to_value());
            resource.push(
                key("handle_offset"),
                Value::Math(MathType::Vector2, bone.handle_offset.to_array().to_vec()),
            );
            resource.push(key("group"), name(&bone.group));
            resource.push(key("require"), Value::Bool(bone.required));
        }
        sections.push(resource);
        Document {
            style: super::document::Style::Resource,
            sections,
        }
    }

    /// The profile as `.tres` text ([`SkeletonProfile::to_document`]).
    pub fn to_tres(&self) -> String {
        self.to_document().to_text()
    }

    /// The profile as a skeleton: one joint per bone, rest = reference pose (`f32`), in an
    /// [`Asset`] of format [`Format::GodotProfile`] (`path` names the file in errors).
    ///
    /// # Errors
    /// The bones do not form a tree (a profile that breaks the type's invariants).
    pub fn to_asset(&self, path: &Path) -> Result<Asset, Error> {
        let index: HashMap<&str, usize> = self
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.as_str(), i))
            .collect();
        let raw: Vec<RawJoint> = self
            .bones
            .iter()
            .map(|b| RawJoint {
                name: b.name.clone(),
                parent: b.parent.as_deref().and_then(|p| index.get(p).copied()),
                rest: b.reference_pose.to_trs(),
            })
            .collect();
        let (skeleton, ids) = Skeleton::from_raw(raw)
            .map_err(|e| Error::invalid(path, Location::File, e.to_string()))?;
        let mut source = vec![0; ids.len()];
        for (raw_index, id) in ids.iter().enumerate() {
            if let Some(slot) = source.get_mut(id.index()) {
                *slot = raw_index;
            }
        }
        Ok(Asset::new(Format::GodotProfile, skeleton, source))
    }

    /// Which profile bone is which canonical bone.
    ///
    /// Bones named as in `SkeletonProfileHumanoid` (`Hips`, `LeftUpperArm`) are taken by name.
    /// When those do not give all 15 required bones, the profile is mapped as a rig (its
    /// reference poses are its rest): by `library`'s tables, then by its shape, and the
    /// better result (required bones, then bones) is kept. `path` names the profile in
    /// messages.
    ///
    /// # Errors
    /// No bone could be identified by name and the rig mapper refuses the profile (the
    /// message says why).
    pub fn mapping(&self, library: &Library, path: &Path) -> Result<ProfileMapping, Error> {
        let by_name: Vec<(HumanBone, String)> = HumanBone::ALL
            .into_iter()
            .filter_map(|bone| {
                let name = super::humanoid::godot_name(bone);
                self.bone(&name).map(|_| (bone, name))
            })
            .collect();
        let score = |bones: &[(HumanBone, String)]| {
            let required = bones
                .iter()
                .filter(|(b, _)| b.is_required(Profile::Vrm1))
                .count();
            (required, bones.len())
        };
        let mut diagnostics = Diagnostics::new();
        let (bones, identified_by) = if score(&by_name).0 == 15 {
            (by_name, Identification::GodotNames)
        } else {
            let asset = self.to_asset(path)?;
            match map_rig(&asset, library, Choice::Detect, path) {
                Ok(mapping) => {
                    let mapped: Vec<(HumanBone, String)> = mapping
                        .bones
                        .iter()
                        .map(|(b, j)| (b, asset.skeleton.name(j).to_owned()))
                        .collect();
                    if score(&mapped) > score(&by_name) {
                        let how = match mapping.method {
                            Method::Table(t) => Identification::Table(t),
                            Method::Auto => Identification::Shape,
                        };
                        (mapped, how)
                    } else {
                        (by_name, Identification::GodotNames)
                    }
                }
                Err(e) if by_name.is_empty() => return Err(e),
                Err(e) => {
                    diagnostics.info("GODOT_PROFILE_NOT_MAPPED", "", e.to_string());
                    (by_name, Identification::GodotNames)
                }
            }
        };
        let root = self.root_bone.clone();
        let left_out: Vec<&str> = self
            .bones
            .iter()
            .map(|b| b.name.as_str())
            .filter(|n| Some(*n) != root.as_deref() && !bones.iter().any(|(_, m)| m == n))
            .collect();
        diagnostics.info(
            "GODOT_PROFILE_MAPPED",
            "",
            format!(
                "{} of the profile's {} bones identified by {identified_by}",
                bones.len(),
                self.bones.len()
            ),
        );
        if !left_out.is_empty() {
            diagnostics.warn(
                "GODOT_PROFILE_BONE_UNMAPPED",
                "",
                format!(
                    "profile bones that are no canonical bone, left out: {}",
                    left_out.join(", ")
                ),
            );
        }
        Ok(ProfileMapping {
            bones,
            root,
            identified_by,
            diagnostics,
        })
    }

    /// The profile as a mapping table: canonical bone → profile bone name (what a rig whose
    /// bones carry the profile's names maps by). `path` names the profile (table name,
    /// source).
    ///
    /// # Errors
    /// As [`SkeletonProfile::mapping`].
    pub fn table(&self, library: &Library, path: &Path) -> Result<(Table, ProfileMapping), Error> {
        let mapping = self.mapping(library, path)?;
        let table = Table::from_parts(
            &table_name(path),
            &file_name(path),
            &format!(
                "Godot SkeletonProfile {}: bones identified by {}",
                file_name(path),
                mapping.identified_by
            ),
            &path.display().to_string(),
            mapping
                .bones
                .iter()
                .map(|(b, n)| (*b, vec![n.clone()]))
                .collect(),
        );
        Ok((table, mapping))
    }
}

/// A table id from a file name: lower case, digits and `-` (`Hero Map.tres` → `hero-map`).
pub(super) fn table_name(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("godot");
    let mut out = String::new();
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-').to_owned();
    if out.is_empty() {
        "godot".to_owned()
    } else {
        out
    }
}

/// The file name of a path, for titles.
pub(super) fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `<index>/<field>` after `groups/` or `bones/`.
fn indexed<'k>(
    rest: &'k str,
    key: &str,
    pos: Position,
    path: &Path,
) -> Result<(usize, &'k str), Error> {
    let parsed = rest
        .split_once('/')
        .and_then(|(i, field)| Some((i.parse::<usize>().ok()?, field)));
    parsed.ok_or_else(|| pos.error(path, format!("{key}: expected <index>/<property>")))
}

fn size_value(key: &str, value: &Value, pos: Position, path: &Path) -> Result<usize, Error> {
    match value.as_i64().map(|n| (n, usize::try_from(n))) {
        Some((_, Ok(size))) if size <= MAX_PROFILE_BONES => Ok(size),
        Some((n, _)) => Err(pos.error(
            path,
            format!("{key}: {n} is outside 0..={MAX_PROFILE_BONES}"),
        )),
        None => Err(pos.error(
            path,
            format!("{key}: expected an integer, found {}", value.describe()),
        )),
    }
}

/// A bone or group name: a StringName or string; empty or `null` is `None`.
fn name_value(
    key: &str,
    value: &Value,
    pos: Position,
    path: &Path,
) -> Result<Option<String>, Error> {
    match value {
        Value::Null => Ok(None),
        other => match other.as_str() {
            Some("") => Ok(None),
            Some(s) => Ok(Some(s.to_owned())),
            None => Err(pos.error(
                path,
                format!(
                    "{key}: expected a name (&\"…\"), found {}",
                    value.describe()
                ),
            )),
        },
    }
}

/// A group texture: `null`, `ExtResource("id")` (its path or uid), or `Resource("path")`.
fn texture_path(
    key: &str,
    value: &Value,
    document: Option<&Document>,
    pos: Position,
    path: &Path,
) -> Result<Option<String>, Error> {
    match value {
        Value::Null => Ok(None),
        Value::Resource(args) => Ok(args.last().cloned()),
        Value::ExtResource(id) => {
            let section = document.and_then(|d| d.ext_resource(id));
            let target =
                section.and_then(|s| s.attribute_text("path").or_else(|| s.attribute_text("uid")));
            target
                .map(Some)
                .ok_or_else(|| pos.error(path, format!("{key}: ExtResource({id:?}) names no path")))
        }
        other => Err(pos.error(
            path,
            format!(
                "{key}: expected a texture resource or null, found {}",
                other.describe()
            ),
        )),
    }
}
