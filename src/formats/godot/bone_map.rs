//! `BoneMap`: profile bone → skeleton bone, as Godot stores it, found in a `.tres` or in a
//! scene's `.import`, and written as a `.tres`.
//!
//! A BoneMap holds a `profile` and one dynamic property per profile bone,
//! `bone_map/<ProfileBone> = &"<skeleton bone>"` (`&""` when unmapped); Godot also stores an
//! array property `bonemap` as `null` (`scene/resources/bone_map.cpp`). It appears
//!
//! - as a resource file (`[gd_resource type="BoneMap" …]`, profile a `[sub_resource]` or an
//!   `[ext_resource]`),
//! - inline in a scene's `.import`: `_subresources={"nodes": {"PATH:<skeleton node>":
//!   {"retarget/bone_map": Object(BoneMap, "profile": Object(SkeletonProfileHumanoid, …),
//!   "bone_map/Hips": &"pelvis", …)}}}`,
//! - or linked from a `.import` by path: `"retarget/bone_map": Resource("res://map.tres")`.
//!
//! [`find_bone_maps`] reads what a document holds without following links;
//! [`super::mapping`] resolves profiles and links and makes the mapping table.
//!
//! Writing ([`bone_map_tres`]) produces what Godot's "Save As" writes for a BoneMap on
//! `SkeletonProfileHumanoid`: every one of the 56 profile bones, skeleton bone names spelled
//! as Godot's glTF importer spells them ([`godot_bone_name`]).
//!
//! ```
//! use humanoid::formats::godot::bone_map_tres;
//! use humanoid::model::HumanBone;
//! let text = bone_map_tres(&[(HumanBone::Hips, "mixamorig:Hips")], Some("Armature"));
//! assert!(text.starts_with("[gd_resource type=\"BoneMap\" load_steps=2 format=3]\n"));
//! assert!(text.contains("\nbone_map/Root = &\"Armature\"\nbone_map/Hips = &\"mixamorig_Hips\"\n"));
//! assert!(text.contains("\nbone_map/RightToes = &\"\"\n"));
//! ```

use std::path::Path;

use super::document::{Document, Position, Section, Style};
use super::humanoid::{godot_name, ROOT};
use super::profile::SkeletonProfile;
use super::value::Value;
use crate::error::{Diagnostics, Error};
use crate::model::asset::Asset;
use crate::model::skeleton::JointId;
use crate::model::HumanBone;

/// The id of the `SkeletonProfileHumanoid` sub-resource in the BoneMaps written here.
pub const HUMANOID_SUB_ID: &str = "SkeletonProfileHumanoid_hmnd1";

/// Where a BoneMap's profile is.
#[derive(Debug, Clone, PartialEq)]
pub enum ProfileRef {
    /// Godot's built-in `SkeletonProfileHumanoid`.
    Humanoid,
    /// A custom `SkeletonProfile` stored in the same file (a `[sub_resource]` or an inline
    /// `Object(SkeletonProfile, …)`).
    Custom(SkeletonProfile),
    /// A profile in another file, by `res://` (or relative) path and/or `uid://`.
    External {
        /// The `path` of the `[ext_resource]`, or the path of `Resource("…")`.
        path: Option<String>,
        /// The `uid` of the `[ext_resource]`.
        uid: Option<String>,
    },
    /// No profile (`profile = null`, or none given).
    Missing,
}

impl ProfileRef {
    /// How the profile is named in reports: `SkeletonProfileHumanoid`, `SkeletonProfile`,
    /// the other file's path, or `none`.
    pub fn describe(&self) -> String {
        match self {
            ProfileRef::Humanoid => "SkeletonProfileHumanoid".into(),
            ProfileRef::Custom(_) => "SkeletonProfile".into(),
            ProfileRef::External { path, uid } => path
                .clone()
                .or_else(|| uid.clone())
                .unwrap_or_else(|| "an external resource".into()),
            ProfileRef::Missing => "none".into(),
        }
    }
}

/// One `bone_map/<ProfileBone> = &"<skeleton bone>"` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneMapEntry {
    /// The profile bone (`Hips`).
    pub profile_bone: String,
    /// The skeleton bone (`mixamorig_Hips`); empty when unmapped.
    pub skeleton_bone: String,
    /// Where the entry is (for an inline BoneMap: where the enclosing property is).
    pub at: Position,
}

/// A BoneMap as a file holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneMapResource {
    /// `.import`: the skeleton's node path (`Armature/Skeleton3D`); `None` in a `.tres`.
    pub node: Option<String>,
    /// The profile.
    pub profile: ProfileRef,
    /// Where the profile is given.
    pub profile_at: Position,
    /// The entries, in file order.
    pub entries: Vec<BoneMapEntry>,
}

/// What a document holds for BoneMaps.
#[derive(Debug, Clone, PartialEq)]
pub enum FoundBoneMap {
    /// A BoneMap in this file.
    Here(BoneMapResource),
    /// `.import`: a BoneMap in another file, `Resource("res://…")`.
    Linked {
        /// The skeleton's node path.
        node: Option<String>,
        /// The path as written.
        path: String,
        /// Where.
        at: Position,
    },
}

/// Every BoneMap of a document: the resource of a BoneMap `.tres`, or each skeleton's
/// `retarget/bone_map` in a `.import` (see the module docs). Empty for anything else.
///
/// # Errors
/// A BoneMap whose profile or entries have the wrong type (at their line:column).
pub fn find_bone_maps(document: &Document, path: &Path) -> Result<Vec<FoundBoneMap>, Error> {
    if document.resource_type() == Some("BoneMap") {
        let Some(resource) = document.resource() else {
            let at = document.header().map(|h| h.at).unwrap_or_default();
            return Err(at.error(path, "a BoneMap resource without a [resource] section"));
        };
        let properties: Vec<(&str, &Value, Position)> = resource
            .properties
            .iter()
            .map(|p| (p.key.as_str(), &p.value, p.value_at))
            .collect();
        let key_positions: Vec<Position> = resource.properties.iter().map(|p| p.at).collect();
        let map = from_properties(
            &properties,
            &key_positions,
            None,
            Some(document),
            resource.at,
            path,
        )?;
        return Ok(vec![FoundBoneMap::Here(map)]);
    }
    let Some(subresources) = document
        .section("params")
        .and_then(|s| s.property("_subresources"))
    else {
        return Ok(Vec::new());
    };
    let at = subresources.value_at;
    let mut found = Vec::new();
    let Some(nodes) = dictionary_get(&subresources.value, "nodes") else {
        return Ok(found);
    };
    let Value::Dictionary(nodes) = nodes else {
        return Err(at.error(path, "_subresources: \"nodes\" is not a dictionary"));
    };
    for (key, options) in nodes {
        let node = key
            .as_str()
            .map(|k| k.strip_prefix("PATH:").unwrap_or(k).to_owned());
        let Some(value) = dictionary_get(options, "retarget/bone_map") else {
            continue;
        };
        match value {
            Value::Null => {}
            Value::Object(class, properties) if class == "BoneMap" => {
                let properties: Vec<(&str, &Value, Position)> = properties
                    .iter()
                    .map(|(k, v)| (k.as_str(), v, at))
                    .collect();
                let keys = vec![at; properties.len()];
                let map = from_properties(&properties, &keys, node, None, at, path)?;
                found.push(FoundBoneMap::Here(map));
            }
            Value::Resource(args) => {
                let link = args.iter().rev().find(|a| !a.starts_with("uid://")).or(args.first());
                if let Some(link) = link {
                    found.push(FoundBoneMap::Linked {
                        node,
                        path: link.clone(),
                        at,
                    });
                }
            }
            other => {
                return Err(at.error(
                    path,
                    format!(
                        "_subresources: retarget/bone_map of {:?}: expected Object(BoneMap, …) or Resource(…), found {}",
                        node.unwrap_or_default(),
                        other.describe()
                    ),
                ))
            }
        }
    }
    Ok(found)
}

/// The value under a string key of a dictionary.
fn dictionary_get<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    match value {
        Value::Dictionary(entries) => entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v),
        _ => None,
    }
}

/// A BoneMap from its properties (`(key, value, value position)`, with the key positions
/// alongside).
fn from_properties(
    properties: &[(&str, &Value, Position)],
    key_positions: &[Position],
    node: Option<String>,
    document: Option<&Document>,
    at: Position,
    path: &Path,
) -> Result<BoneMapResource, Error> {
    let mut profile = ProfileRef::Missing;
    let mut profile_at = at;
    let mut entries = Vec::new();
    for (i, &(key, value, value_at)) in properties.iter().enumerate() {
        let key_at = key_positions.get(i).copied().unwrap_or(value_at);
        if key == "profile" {
            profile = profile_ref(value, document, value_at, path)?;
            profile_at = value_at;
        } else if let Some(bone) = key.strip_prefix("bone_map/") {
            let skeleton_bone = match value {
                Value::Null => String::new(),
                other => other.as_str().map(str::to_owned).ok_or_else(|| {
                    value_at.error(
                        path,
                        format!(
                            "{key}: expected a bone name (&\"…\"), found {}",
                            other.describe()
                        ),
                    )
                })?,
            };
            entries.push(BoneMapEntry {
                profile_bone: bone.to_owned(),
                skeleton_bone,
                at: key_at,
            });
        }
    }
    Ok(BoneMapResource {
        node,
        profile,
        profile_at,
        entries,
    })
}

/// What a BoneMap's `profile` value refers to.
fn profile_ref(
    value: &Value,
    document: Option<&Document>,
    at: Position,
    path: &Path,
) -> Result<ProfileRef, Error> {
    let check_type = |class: &str| -> Result<bool, Error> {
        match class {
            "SkeletonProfileHumanoid" => Ok(true),
            "SkeletonProfile" => Ok(false),
            other => Err(at.error(
                path,
                format!(
                    "profile: a {other}, expected a SkeletonProfile or SkeletonProfileHumanoid"
                ),
            )),
        }
    };
    match value {
        Value::Null => Ok(ProfileRef::Missing),
        Value::SubResource(id) => {
            let Some((section, document)) =
                document.and_then(|d| d.sub_resource(id).map(|s| (s, d)))
            else {
                return Err(at.error(
                    path,
                    format!("SubResource({id:?}): this file has no [sub_resource] with id {id:?}"),
                ));
            };
            let class = section.attribute_text("type").unwrap_or_default();
            if check_type(&class)? {
                Ok(ProfileRef::Humanoid)
            } else {
                SkeletonProfile::from_section(section, document, path).map(ProfileRef::Custom)
            }
        }
        Value::ExtResource(id) => {
            let Some(section) = document.and_then(|d| d.ext_resource(id)) else {
                return Err(at.error(
                    path,
                    format!("ExtResource({id:?}): this file has no [ext_resource] with id {id:?}"),
                ));
            };
            if let Some(class) = section.attribute_text("type") {
                check_type(&class)?;
            }
            Ok(ProfileRef::External {
                path: section.attribute_text("path"),
                uid: section.attribute_text("uid"),
            })
        }
        Value::Resource(args) => Ok(ProfileRef::External {
            path: args.iter().find(|a| !a.starts_with("uid://")).cloned(),
            uid: args.iter().find(|a| a.starts_with("uid://")).cloned(),
        }),
        Value::Object(class, properties) => {
            if check_type(class)? {
                Ok(ProfileRef::Humanoid)
            } else {
                let properties: Vec<(&str, &Value, Position)> = properties
                    .iter()
                    .map(|(k, v)| (k.as_str(), v, at))
                    .collect();
                SkeletonProfile::from_properties(&properties, document, at, path)
                    .map(ProfileRef::Custom)
            }
        }
        other => Err(at.error(
            path,
            format!(
                "profile: expected a SkeletonProfile resource, found {}",
                other.describe()
            ),
        )),
    }
}

/// A bone name as Godot's glTF importer writes it: `:` and `/` become `_`
/// (`GLTFDocument::_sanitize_bone_name`).
///
/// ```
/// use humanoid::formats::godot::godot_bone_name;
/// assert_eq!(godot_bone_name("mixamorig:LeftHand"), "mixamorig_LeftHand");
/// assert_eq!(godot_bone_name("Armature/hand.L"), "Armature_hand.L");
/// ```
pub fn godot_bone_name(name: &str) -> String {
    name.replace([':', '/'], "_")
}

/// The names Godot's glTF importer gives a skeleton's bones, in the order given:
/// [`godot_bone_name`], `bone` for an empty name, and `_2`, `_3`, … appended to a name
/// already taken (`GLTFDocument::_gen_unique_bone_name`).
///
/// ```
/// use humanoid::formats::godot::godot_skeleton_names;
/// let names = godot_skeleton_names(["a:b", "a/b", "", "a_b_2"]);
/// assert_eq!(names, ["a_b", "a_b_2", "bone", "a_b_2_2"]);
/// ```
pub fn godot_skeleton_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken = std::collections::HashSet::new();
    let mut out = Vec::new();
    for name in names {
        let mut base = godot_bone_name(name);
        if base.is_empty() {
            base = "bone".to_owned();
        }
        let mut unique = base.clone();
        let mut index = 1;
        while taken.contains(&unique) {
            index += 1;
            unique = format!("{base}_{index}");
        }
        taken.insert(unique.clone());
        out.push(unique);
    }
    out
}

/// A BoneMap on `SkeletonProfileHumanoid` as a document: `bone_map/Root` = `root`, then one
/// entry per canonical bone in Godot's order, `&""` where `bones` has none. Names go through
/// [`godot_bone_name`]; a bone listed twice keeps its first name.
pub fn bone_map_document<S: AsRef<str>>(bones: &[(HumanBone, S)], root: Option<&str>) -> Document {
    let header = Section::new(
        "gd_resource",
        vec![
            ("type".into(), Value::String("BoneMap".into())),
            ("load_steps".into(), Value::Int(2)),
            ("format".into(), Value::Int(3)),
        ],
    );
    let profile = Section::new(
        "sub_resource",
        vec![
            (
                "type".into(),
                Value::String("SkeletonProfileHumanoid".into()),
            ),
            ("id".into(), Value::String(HUMANOID_SUB_ID.into())),
        ],
    );
    let mut resource = Section::new("resource", Vec::new());
    resource.push("profile", Value::SubResource(HUMANOID_SUB_ID.into()));
    let name = |n: Option<&str>| Value::StringName(n.map(godot_bone_name).unwrap_or_default());
    resource.push(format!("bone_map/{ROOT}"), name(root));
    for bone in HumanBone::ALL {
        let skeleton = bones
            .iter()
            .find(|(b, _)| *b == bone)
            .map(|(_, n)| n.as_ref());
        resource.push(format!("bone_map/{}", godot_name(bone)), name(skeleton));
    }
    Document {
        style: Style::Resource,
        sections: vec![header, profile, resource],
    }
}

/// [`bone_map_document`] as `.tres` text.
pub fn bone_map_tres<S: AsRef<str>>(bones: &[(HumanBone, S)], root: Option<&str>) -> String {
    bone_map_document(bones, root).to_text()
}

/// The BoneMap `.tres` of an asset's (first) humanoid, with its bones named as Godot's glTF
/// importer names them ([`godot_skeleton_names`] over the skeleton's bones in file order).
///
/// `Root` is the top-most ancestor of the hips among the skeleton's joints (the skin's joints
/// for a skinned file), as Godot's auto-mapper picks it; `&""` when the hips are the top
/// joint.
///
/// # Errors
/// The asset declares no humanoid (map its rig first).
pub fn asset_bone_map_tres(asset: &Asset) -> Result<(String, Diagnostics), Error> {
    let Some(humanoid) = asset.humanoids.first() else {
        return Err(Error::unsupported(
            "the file declares no humanoid: map its rig first (with --map or the built-in tables)",
        ));
    };
    let skeleton = &asset.skeleton;
    let candidates: Vec<JointId> = if asset.skin_joints.is_empty() {
        skeleton.joints().collect()
    } else {
        asset.skin_joints.clone()
    };
    // Godot numbers repeated names among the skeleton's own bones (the skin's joints and the
    // humanoid's bones), not among every node: a mesh node named like a bone takes no suffix.
    let mut order: Vec<JointId> = skeleton
        .joints()
        .filter(|j| candidates.contains(j) || humanoid.bones.bone_of(*j).is_some())
        .collect();
    order.sort_by_key(|j| asset.source_index(*j));
    let unique = godot_skeleton_names(order.iter().map(|j| skeleton.name(*j)));
    let mut names = vec![String::new(); skeleton.len()];
    for (joint, name) in order.iter().zip(unique) {
        if let Some(slot) = names.get_mut(joint.index()) {
            *slot = name;
        }
    }
    let godot = |j: JointId| names.get(j.index()).cloned().unwrap_or_default();
    let mut diagnostics = Diagnostics::new();
    let mut renamed = Vec::new();
    let bones: Vec<(HumanBone, String)> = humanoid
        .bones
        .iter()
        .map(|(bone, joint)| {
            let name = godot(joint);
            if name != skeleton.name(joint) {
                renamed.push(format!("{:?} → {name:?}", skeleton.name(joint)));
            }
            (bone, name)
        })
        .collect();
    let root = humanoid.bones.get(HumanBone::Hips).and_then(|hips| {
        skeleton
            .ancestors(hips)
            .filter(|a| candidates.contains(a))
            .last()
    });
    if !renamed.is_empty() {
        diagnostics.info(
            "GODOT_BONE_RENAMED",
            "",
            format!(
                "{} bone names written as Godot's importer spells them: {}{}",
                renamed.len(),
                renamed
                    .iter()
                    .take(3)
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
                if renamed.len() > 3 { ", …" } else { "" }
            ),
        );
    }
    if asset.humanoids.len() > 1 {
        diagnostics.warn(
            "GODOT_SECOND_HUMANOID_DROPPED",
            "",
            format!(
                "{} humanoid skeletons: a BoneMap holds one, the first is written",
                asset.humanoids.len()
            ),
        );
    }
    let root_name = root.map(godot);
    let document = bone_map_document(&bones, root_name.as_deref());
    Ok((document.to_text(), diagnostics))
}
