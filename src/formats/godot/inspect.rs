//! What `humanoid inspect FILE.tres|FILE.import` reports: the resource's type, each BoneMap's
//! profile and non-empty `bone_map/…` pairs, and a profile's summary. Nothing is resolved but
//! a `.import`'s link to a BoneMap file (`res://`, `uid://` or relative); a BoneMap's profile
//! in another file is named, not read.
//!
//! The JSON form (serde):
//!
//! ```text
//! { "file": str, "resource_type": str,      // "BoneMap", "SkeletonProfile", …; a .import: its [remap] type
//!   "bone_maps": [ { "node": str|null,      // .import: the skeleton's node path
//!                    "linked": str|null,    // .import: the BoneMap file it links
//!                    "profile": str,        // "SkeletonProfileHumanoid", "SkeletonProfile", a path, "none"
//!                    "pairs": [ {"profile_bone": str, "skeleton_bone": str} ] } ],
//!   "profile": { "root_bone": str|null, "scale_base_bone": str|null,
//!                "groups": [str], "bones": int, "required": int } | null }
//! ```
//!
//! ```
//! use std::path::Path;
//! use humanoid::formats::godot::inspect;
//! let text = "[gd_resource type=\"BoneMap\" format=3]\n\n\
//!     [sub_resource type=\"SkeletonProfileHumanoid\" id=\"P\"]\n\n\
//!     [resource]\nprofile = SubResource(\"P\")\nbone_map/Hips = &\"pelvis\"\nbone_map/Jaw = &\"\"\n";
//! let report = inspect(text, Path::new("map.tres"))?;
//! assert_eq!(report.resource_type, "BoneMap");
//! let map = &report.bone_maps[0];
//! assert_eq!(map.profile, "SkeletonProfileHumanoid");
//! assert_eq!(map.pairs.len(), 1);
//! assert_eq!((map.pairs[0].profile_bone.as_str(), map.pairs[0].skeleton_bone.as_str()), ("Hips", "pelvis"));
//! # Ok::<(), humanoid::Error>(())
//! ```

use std::path::Path;

use serde::Serialize;

use super::bone_map::{find_bone_maps, BoneMapResource, FoundBoneMap};
use super::document::Document;
use super::mapping::resolve;
use super::profile::SkeletonProfile;
use super::project::read_text;
use crate::error::Error;

/// The report on one Godot file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceReport {
    /// The file.
    pub file: String,
    /// The `gd_resource` type; for a `.import`, the `type` of its `[remap]` section (or
    /// `import`).
    pub resource_type: String,
    /// Every BoneMap in the file (a `.import` may hold one per skeleton).
    pub bone_maps: Vec<BoneMapReport>,
    /// For a `SkeletonProfile`/`SkeletonProfileHumanoid` resource, its summary.
    pub profile: Option<ProfileReport>,
}

/// One BoneMap.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoneMapReport {
    /// `.import`: the skeleton's node path.
    pub node: Option<String>,
    /// `.import`: the BoneMap file it links (`res://…`), read for the pairs.
    pub linked: Option<String>,
    /// The profile: `SkeletonProfileHumanoid`, `SkeletonProfile`, a path, or `none`.
    pub profile: String,
    /// The non-empty entries, in file order.
    pub pairs: Vec<BoneMapPair>,
}

/// One `bone_map/<profile_bone> = &"<skeleton_bone>"` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoneMapPair {
    /// The profile bone (`Hips`).
    pub profile_bone: String,
    /// The skeleton bone.
    pub skeleton_bone: String,
}

/// A profile's summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProfileReport {
    /// `root_bone`.
    pub root_bone: Option<String>,
    /// `scale_base_bone`.
    pub scale_base_bone: Option<String>,
    /// Group names.
    pub groups: Vec<String>,
    /// How many bones.
    pub bones: usize,
    /// How many are required.
    pub required: usize,
}

/// Reads and reports on a file.
///
/// # Errors
/// As [`inspect`], and the file cannot be read.
pub fn inspect_file(path: &Path) -> Result<ResourceReport, Error> {
    let text = read_text(path)?;
    inspect(&text, path)
}

/// Reports on a Godot file's text (see the module docs).
///
/// # Errors
/// The text does not parse, a BoneMap or profile in it is malformed, or a `.import`'s linked
/// BoneMap file cannot be found or read.
pub fn inspect(text: &str, path: &Path) -> Result<ResourceReport, Error> {
    let document = Document::parse(text, path)?;
    let resource_type = match document.resource_type() {
        Some(t) => t.to_owned(),
        None => document
            .section("remap")
            .and_then(|s| s.get("type"))
            .and_then(|v| v.as_str())
            .map_or_else(|| "import".to_owned(), str::to_owned),
    };
    let profile = match resource_type.as_str() {
        "SkeletonProfileHumanoid" => Some(summary(&SkeletonProfile::humanoid())),
        "SkeletonProfile" => match document.resource() {
            Some(section) => Some(summary(&SkeletonProfile::from_section(
                section, &document, path,
            )?)),
            None => Some(summary(&SkeletonProfile::default())),
        },
        _ => None,
    };
    let mut bone_maps = Vec::new();
    for found in find_bone_maps(&document, path)? {
        bone_maps.push(match found {
            FoundBoneMap::Here(map) => report(&map, None),
            FoundBoneMap::Linked {
                node,
                path: link,
                at,
            } => {
                let file = resolve(&link, None, path, at)?;
                let text = read_text(&file)?;
                let linked = Document::parse(&text, &file)?;
                let found = find_bone_maps(&linked, &file)?;
                let Some(FoundBoneMap::Here(map)) = found.into_iter().next() else {
                    return Err(at.error(path, format!("{link}: no BoneMap in that file")));
                };
                let mut r = report(&map, Some(link));
                r.node = node;
                r
            }
        });
    }
    Ok(ResourceReport {
        file: path.display().to_string(),
        resource_type,
        bone_maps,
        profile,
    })
}

fn report(map: &BoneMapResource, linked: Option<String>) -> BoneMapReport {
    BoneMapReport {
        node: map.node.clone(),
        linked,
        profile: map.profile.describe(),
        pairs: map
            .entries
            .iter()
            .filter(|e| !e.skeleton_bone.is_empty())
            .map(|e| BoneMapPair {
                profile_bone: e.profile_bone.clone(),
                skeleton_bone: e.skeleton_bone.clone(),
            })
            .collect(),
    }
}

fn summary(profile: &SkeletonProfile) -> ProfileReport {
    ProfileReport {
        root_bone: profile.root_bone.clone(),
        scale_base_bone: profile.scale_base_bone.clone(),
        groups: profile.groups.iter().map(|g| g.name.clone()).collect(),
        bones: profile.bones.len(),
        required: profile.bones.iter().filter(|b| b.required).count(),
    }
}
