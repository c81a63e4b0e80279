//! What `humanoid validate FILE.tres|FILE.import` checks: the file reads as `--map FILE.tres`
//! reads it (syntax, a BoneMap with a profile, every `bone_map/<bone>` a bone of that profile,
//! a custom profile's bones identified, a `.import`'s linked BoneMap found), and a BoneMap on
//! Godot's `SkeletonProfileHumanoid` gives a skeleton bone to every bone the profile marks
//! required (Godot keeps such a map, but its retargeting leaves those bones alone).
//!
//! | code | severity | what |
//! |---|---|---|
//! | `GODOT_REQUIRED_UNMAPPED` | warning | a required `SkeletonProfileHumanoid` bone has no skeleton bone |
//!
//! plus what reading the mapping reports (`GODOT_BONE_MAPPED_TWICE`, `GODOT_SEVERAL_BONE_MAPS`,
//! `GODOT_PROFILE_*`).

use std::path::Path;

use super::inspect::inspect_file;
use super::mapping::read_mapping;
use super::profile::SkeletonProfile;
use crate::error::{Diagnostics, Error};
use crate::mapping::Library;

/// Checks a Godot BoneMap or SkeletonProfile file (see the module docs).
///
/// # Errors
/// What makes the file unusable as a mapping: [`Error::Invalid`] at the line:column at fault
/// (as [`read_mapping`]).
pub fn validate_file(path: &Path) -> Result<Diagnostics, Error> {
    let library = Library::builtin()?;
    let mut diagnostics = read_mapping(path, &library)?.diagnostics;
    let report = inspect_file(path)?;
    let humanoid = SkeletonProfile::humanoid();
    for map in report
        .bone_maps
        .iter()
        .filter(|m| m.profile == "SkeletonProfileHumanoid")
    {
        let missing: Vec<&str> = humanoid
            .bones
            .iter()
            .filter(|b| b.required)
            .map(|b| b.name.as_str())
            .filter(|name| !map.pairs.iter().any(|p| p.profile_bone == *name))
            .collect();
        if !missing.is_empty() {
            diagnostics.warn(
                "GODOT_REQUIRED_UNMAPPED",
                "",
                format!(
                    "the BoneMap{} gives no skeleton bone to {} bone(s) SkeletonProfileHumanoid requires: {}",
                    map.node
                        .as_deref()
                        .map_or_else(String::new, |n| format!(" of {n}")),
                    missing.len(),
                    missing.join(", ")
                ),
            );
        }
    }
    Ok(diagnostics)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map.tres");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    const HEADER: &str = "[gd_resource type=\"BoneMap\" load_steps=2 format=3]\n\n[sub_resource type=\"SkeletonProfileHumanoid\" id=\"P\"]\n\n[resource]\nprofile = SubResource(\"P\")\n";

    #[test]
    fn a_bone_the_profile_lacks_is_an_error_with_its_place() {
        let (_dir, path) = file(&format!(
            "{HEADER}bone_map/Hips = &\"pelvis\"\nbone_map/Tail = &\"tail\"\n"
        ));
        let error = validate_file(&path).unwrap_err().to_string();
        assert!(error.contains("Tail") && error.contains("8:1"), "{error}");
    }

    #[test]
    fn required_bones_left_empty_are_named() {
        let (_dir, path) = file(&format!("{HEADER}bone_map/Hips = &\"pelvis\"\n"));
        let diagnostics = validate_file(&path).unwrap();
        let missing = diagnostics
            .iter()
            .find(|d| d.code == "GODOT_REQUIRED_UNMAPPED")
            .unwrap();
        assert!(
            missing.message.contains("Spine") && !missing.message.contains("Hips,"),
            "{}",
            missing.message
        );
    }
}
