//! Godot 4 text resources: `SkeletonProfile`, `SkeletonProfileHumanoid` and `BoneMap`, in
//! `.tres` files and in scenes' `.import` files.
//!
//! ## Overview
//!
//! | module | job |
//! |---|---|
//! | [`value`] | the value model: numbers, strings, `&"…"`, `Transform3D(…)`, arrays, dictionaries, `SubResource`, `Object(…)` |
//! | `lex` | tokens with byte offsets |
//! | `parse` | text → [`Document`], every problem at its line:column, sizes and nesting bounded |
//! | [`document`] | the tree: sections and `key = value` properties with positions |
//! | `write` | [`Document`] → text in Godot's own layout (a file written here reads back and writes to the same text) |
//! | [`project`] | `res://`, `uid://` and relative paths → files (walks up to `project.godot`) |
//! | [`humanoid`] | Godot's built-in `SkeletonProfileHumanoid` as data, and the canonical variant (thumbs at 45°) |
//! | [`profile`] | [`SkeletonProfile`]: read from properties, written as `.tres`, matched to canonical bones |
//! | [`bone_map`] | BoneMaps as files hold them, and the BoneMap writer |
//! | [`mapping`] | a file → a [`crate::mapping::Table`] (canonical bone → skeleton bone) |
//! | [`inspect`](mod@inspect) | the report for `humanoid inspect` |
//! | [`validate`](mod@validate) | the checks of `humanoid validate` |
//!
//! **Design decision: a general tree first.** Godot's text format is one grammar for every
//! resource, so the reader parses any file into a [`Document`] and the BoneMap and profile
//! code reads properties out of it. Unknown resources parse too (and are refused by name, not
//! by a syntax error), and the writer serves both the BoneMap and the profile.
//!
//! **Names.** Godot's profile names are the canonical names with a capital first letter
//! (`LeftUpperArm`) plus `Root`; skeleton bone names in a BoneMap are as Godot's glTF importer
//! spells them (`mixamorig_Hips`, [`godot_bone_name`]).
//!
//! ```
//! use std::path::Path;
//! use humanoid::formats::godot::{bone_map_tres, parse_mapping, Document};
//! use humanoid::mapping::Library;
//! use humanoid::model::HumanBone;
//!
//! let text = bone_map_tres(&[(HumanBone::Hips, "mixamorig:Hips"), (HumanBone::Head, "mixamorig:Head")], None);
//! // Read back: the same mapping, in Godot's spelling.
//! let mapping = parse_mapping(&text, Path::new("hero.tres"), &Library::default())?;
//! assert_eq!(mapping.table.names(HumanBone::Head), ["mixamorig_Head"]);
//! // And the text round-trips exactly.
//! assert_eq!(Document::parse(&text, Path::new("hero.tres"))?.to_text(), text);
//! # Ok::<(), humanoid::Error>(())
//! ```

pub mod bone_map;
pub mod document;
pub mod humanoid;
pub mod inspect;
mod lex;
pub mod mapping;
pub mod parse;
pub mod profile;
pub mod project;
pub mod validate;
pub mod value;
pub mod write;

pub use bone_map::{
    asset_bone_map_tres, bone_map_document, bone_map_tres, find_bone_maps, godot_bone_name,
    godot_skeleton_names, BoneMapEntry, BoneMapResource, FoundBoneMap, ProfileRef,
};
pub use document::{Document, Position, Property, Section, Style};
pub use inspect::{
    inspect, inspect_file, BoneMapPair, BoneMapReport, ProfileReport, ResourceReport,
};
pub use mapping::{parse_mapping, read_mapping, GodotMapping};
pub use profile::{
    Identification, ProfileBone, ProfileGroup, ProfileMapping, SkeletonProfile, TailDirection,
    Transform3D,
};
pub use value::{ElementType, MathType, PackedType, Value};

/// The canonical humanoid as a `SkeletonProfile` `.tres` (for `--to godot-profile`): Godot's
/// `SkeletonProfileHumanoid` bones, groups and handles with the canonical T-pose's reference
/// poses ([`SkeletonProfile::canonical`]).
///
/// ```
/// let text = humanoid::formats::godot::canonical_profile_tres();
/// assert!(text.contains("bone_size = 56\n"));
/// assert!(text.contains("bones/14/bone_name = &\"LeftThumbMetacarpal\"\n"));
/// ```
pub fn canonical_profile_tres() -> String {
    SkeletonProfile::canonical().to_tres()
}
