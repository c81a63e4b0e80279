//! A Godot file → a [`Table`] (canonical bone → skeleton bone name), for `--map FILE.tres` and
//! `--map FILE.import`.
//!
//! | file | table |
//! |---|---|
//! | BoneMap `.tres` | canonical bone → the skeleton bone its profile bone is mapped to |
//! | scene `.import` | the same, for the first skeleton with a `retarget/bone_map` (inline, or linked by `Resource("res://…")`) |
//! | `SkeletonProfile` `.tres` | canonical bone → the profile's bone name |
//! | `SkeletonProfileHumanoid` `.tres` | canonical bone → Godot's name (`Hips`): a rig Godot's renamer has renamed |
//!
//! A BoneMap's profile is `SkeletonProfileHumanoid` (profile bone = canonical bone), a custom
//! profile in the same file, or one in another file (`ext_resource` by `res://` path or
//! `uid://`, resolved with [`super::project`]). A custom profile's bones are identified with
//! canonical bones by [`SkeletonProfile::mapping`]. Every `bone_map/<bone>` must name a bone
//! of the profile; entries with an empty name (`&""`) are unmapped.
//!
//! ```
//! use std::path::Path;
//! use humanoid::formats::godot::parse_mapping;
//! use humanoid::mapping::Library;
//! use humanoid::model::HumanBone;
//! let text = "[gd_resource type=\"BoneMap\" format=3]\n\n\
//!     [sub_resource type=\"SkeletonProfileHumanoid\" id=\"P\"]\n\n\
//!     [resource]\nprofile = SubResource(\"P\")\n\
//!     bone_map/Root = &\"Armature\"\nbone_map/Hips = &\"mixamorig_Hips\"\nbone_map/Jaw = &\"\"\n";
//! let mapping = parse_mapping(text, Path::new("hero.tres"), &Library::default())?;
//! assert_eq!(mapping.table.names(HumanBone::Hips), ["mixamorig_Hips"]);
//! assert!(mapping.table.names(HumanBone::Jaw).is_empty());
//! assert_eq!(mapping.root.as_deref(), Some("Armature"));
//! # Ok::<(), humanoid::Error>(())
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::bone_map::{find_bone_maps, BoneMapResource, FoundBoneMap, ProfileRef};
use super::document::{Document, Position};
use super::profile::{file_name, table_name, SkeletonProfile};
use super::project::{allowed_root, confine, read_text, resolve_relative, Project};
use crate::error::{Diagnostics, Error, Location};
use crate::mapping::{Library, Table};
use crate::model::HumanBone;

/// What a Godot file says about a skeleton's bones.
#[derive(Debug, Clone)]
pub struct GodotMapping {
    /// Canonical bone → skeleton bone name, as Godot spells it (`mixamorig_Hips`; table
    /// matching treats `:` and `_` alike).
    pub table: Table,
    /// The skeleton bone mapped to the profile's root bone (`Root`), which no canonical bone
    /// stands for.
    pub root: Option<String>,
    /// The profile: `SkeletonProfileHumanoid`, `SkeletonProfile`, or the profile file's path.
    pub profile: String,
    /// `.import`: the skeleton's node path the BoneMap belongs to.
    pub node: Option<String>,
    /// What was guessed or left out (profile identification, duplicate names, other
    /// skeletons).
    pub diagnostics: Diagnostics,
}

/// Reads a BoneMap or SkeletonProfile `.tres`, or a scene `.import` (see the module docs).
///
/// # Errors
/// As [`parse_mapping`], and the file cannot be read.
pub fn read_mapping(path: &Path, library: &Library) -> Result<GodotMapping, Error> {
    let text = read_text(path)?;
    parse_mapping(&text, path, library)
}

/// As [`read_mapping`], from text (`path` names it and anchors relative, `res://` and
/// `uid://` paths). `library` serves to identify a custom profile's bones.
///
/// # Errors
/// [`Error::Invalid`] at the line:column at fault: syntax, a dangling `SubResource` id, a
/// BoneMap without a profile, a `bone_map/<bone>` its profile lacks, a profile file that is
/// not a `SkeletonProfile`, a file holding no BoneMap; an unresolvable path or uid.
pub fn parse_mapping(text: &str, path: &Path, library: &Library) -> Result<GodotMapping, Error> {
    let document = Document::parse(text, path)?;
    mapping_of(&document, path, library, true)
}

fn mapping_of(
    document: &Document,
    path: &Path,
    library: &Library,
    follow_links: bool,
) -> Result<GodotMapping, Error> {
    if let Some(kind @ ("SkeletonProfile" | "SkeletonProfileHumanoid")) = document.resource_type() {
        let profile = profile_of(document, kind, path)?;
        let (table, mapping) = profile.table(library, path)?;
        let diagnostics = if kind == "SkeletonProfile" {
            mapping.diagnostics
        } else {
            Diagnostics::new()
        };
        return Ok(GodotMapping {
            table,
            root: mapping.root,
            profile: kind.to_owned(),
            node: None,
            diagnostics,
        });
    }
    let found = find_bone_maps(document, path)?;
    let mut diagnostics = Diagnostics::new();
    let Some(first) = found.first() else {
        let message = match document.resource_type() {
            Some(other) => format!("a {other} resource: expected a BoneMap or a SkeletonProfile"),
            None => "no skeleton here has a BoneMap (no \"retarget/bone_map\" in _subresources)"
                .to_owned(),
        };
        return Err(Error::invalid(path, Location::File, message));
    };
    if found.len() > 1 {
        diagnostics.info(
            "GODOT_SEVERAL_BONE_MAPS",
            "",
            format!(
                "{} skeletons have a BoneMap: the first ({}) is used",
                found.len(),
                node_of(first).unwrap_or("?")
            ),
        );
    }
    match first {
        FoundBoneMap::Here(map) => {
            let mut mapping = bone_map_mapping(map, path, library)?;
            diagnostics.extend(mapping.diagnostics);
            mapping.diagnostics = diagnostics;
            Ok(mapping)
        }
        FoundBoneMap::Linked {
            node,
            path: link,
            at,
        } => {
            if !follow_links {
                return Err(at.error(path, format!("a linked BoneMap links again ({link})")));
            }
            let file = resolve(link, None, path, *at)?;
            let text = read_text(&file)?;
            let linked = Document::parse(&text, &file)?;
            let mut mapping = mapping_of(&linked, &file, library, false)?;
            diagnostics.extend(mapping.diagnostics);
            mapping.diagnostics = diagnostics;
            mapping.node = node.clone();
            Ok(mapping)
        }
    }
}

fn node_of(found: &FoundBoneMap) -> Option<&str> {
    match found {
        FoundBoneMap::Here(map) => map.node.as_deref(),
        FoundBoneMap::Linked { node, .. } => node.as_deref(),
    }
}

/// The profile of a `SkeletonProfile`/`SkeletonProfileHumanoid` resource document.
fn profile_of(document: &Document, kind: &str, path: &Path) -> Result<SkeletonProfile, Error> {
    if kind == "SkeletonProfileHumanoid" {
        return Ok(SkeletonProfile::humanoid());
    }
    match document.resource() {
        Some(section) => SkeletonProfile::from_section(section, document, path),
        None => Err(Error::invalid(
            path,
            Location::File,
            "a SkeletonProfile resource without a [resource] section",
        )),
    }
}

/// The table of one BoneMap: its profile resolved, its entries checked, composed with the
/// profile's identification.
fn bone_map_mapping(
    map: &BoneMapResource,
    path: &Path,
    library: &Library,
) -> Result<GodotMapping, Error> {
    let (profile, profile_name, profile_path) = match &map.profile {
        ProfileRef::Humanoid => (
            SkeletonProfile::humanoid(),
            "SkeletonProfileHumanoid".to_owned(),
            path.to_path_buf(),
        ),
        ProfileRef::Custom(profile) => (
            profile.clone(),
            "SkeletonProfile".to_owned(),
            path.to_path_buf(),
        ),
        ProfileRef::External { path: p, uid } => {
            let file = resolve(
                p.as_deref().unwrap_or(""),
                uid.as_deref(),
                path,
                map.profile_at,
            )?;
            let text = read_text(&file)?;
            let other = Document::parse(&text, &file)?;
            let kind = other.resource_type().unwrap_or("");
            if !matches!(kind, "SkeletonProfile" | "SkeletonProfileHumanoid") {
                return Err(map.profile_at.error(
                    path,
                    format!(
                        "profile: {} is a {}, expected a SkeletonProfile",
                        file.display(),
                        if kind.is_empty() {
                            "file with no resource type"
                        } else {
                            kind
                        }
                    ),
                ));
            }
            let profile = profile_of(&other, kind, &file)?;
            (profile, map.profile.describe(), file)
        }
        ProfileRef::Missing => {
            return Err(map.profile_at.error(
                path,
                "the BoneMap has no profile, so its bone_map entries name no profile bone \
                 (Godot ignores them): set profile to a SkeletonProfileHumanoid",
            ))
        }
    };
    // The last entry for a profile bone wins, as when Godot sets the properties in order.
    let mut entries: HashMap<&str, &str> = HashMap::new();
    for entry in &map.entries {
        if profile.bone(&entry.profile_bone).is_none() {
            return Err(entry.at.error(
                path,
                format!(
                    "bone_map/{}: the profile ({profile_name}) has no bone {:?}",
                    entry.profile_bone, entry.profile_bone
                ),
            ));
        }
        entries.insert(&entry.profile_bone, &entry.skeleton_bone);
    }
    let identified = profile.mapping(library, &profile_path)?;
    let mut diagnostics = Diagnostics::new();
    if !matches!(map.profile, ProfileRef::Humanoid) {
        diagnostics.extend(identified.diagnostics.clone());
    }
    let skeleton_bone = |profile_bone: &str| {
        entries
            .get(profile_bone)
            .filter(|s| !s.is_empty())
            .map(|s| (*s).to_owned())
    };
    let bones: Vec<(HumanBone, Vec<String>)> = identified
        .bones
        .iter()
        .filter_map(|(bone, profile_bone)| Some((*bone, vec![skeleton_bone(profile_bone)?])))
        .collect();
    let mut seen: HashMap<&str, HumanBone> = HashMap::new();
    for (bone, names) in &bones {
        for name in names {
            if let Some(first) = seen.insert(name, *bone) {
                diagnostics.warn(
                    "GODOT_BONE_MAPPED_TWICE",
                    "",
                    format!("skeleton bone {name:?} is mapped to both {first} and {bone}: Godot marks it an error"),
                );
            }
        }
    }
    let root = identified.root.as_deref().and_then(skeleton_bone);
    let table = Table::from_parts(
        &table_name(path),
        &file_name(path),
        &format!("Godot BoneMap {} (profile {profile_name})", file_name(path)),
        &path.display().to_string(),
        bones,
    );
    Ok(GodotMapping {
        table,
        root,
        profile: profile_name,
        node: map.node.clone(),
        diagnostics,
    })
}

/// The file a `res://`, `uid://` or relative path from `from` names; `uid` is tried when the
/// path is empty or names no file.
pub(super) fn resolve(
    link: &str,
    uid: Option<&str>,
    from: &Path,
    at: Position,
) -> Result<PathBuf, Error> {
    let project = || {
        Project::find(from).ok_or_else(|| {
            at.error(
                from,
                format!(
                    "cannot resolve {:?}: no project.godot in {} or a folder above it",
                    if link.is_empty() {
                        uid.unwrap_or("")
                    } else {
                        link
                    },
                    from.parent()
                        .map_or_else(String::new, |p| p.display().to_string())
                ),
            )
        })
    };
    let (link, uid) = match link.strip_prefix("uid://") {
        Some(_) => ("", Some(link)),
        None => (link, uid),
    };
    let root = allowed_root(from);
    let inside = |file: PathBuf, named: &str| {
        confine(&file, &root).map_err(|why| at.error(from, format!("{named:?}: {why}")))
    };
    let mut tried = Vec::new();
    if !link.is_empty() {
        let file = if link.starts_with("res://") {
            project()?.resolve(link, from)?
        } else {
            resolve_relative(link, from).map_err(|e| at.error(from, e.to_string()))?
        };
        let file = inside(file, link)?;
        if file.is_file() {
            return Ok(file);
        }
        tried.push(file.display().to_string());
    }
    if let Some(uid) = uid {
        if let Some(file) = project()?.find_uid(uid) {
            return inside(file, uid);
        }
        tried.push(uid.to_owned());
    }
    Err(at.error(
        from,
        format!(
            "the resource is not found (looked for {})",
            tried.join(" and ")
        ),
    ))
}
