//! # humanoid
//!
//! Moves humanoid characters and their animations between the standards that describe them:
//! glTF 2.0 with `EXT_skeleton_humanoid`, VRM, H-Anim, Godot resources and the bone names of
//! common rigs.
//!
//! ## Design
//!
//! One canonical model sits in the middle ([`model`]); format adapters ([`formats`]) read into it
//! and write out of it and never import each other. The layers, each importing only those below
//! it (a test in `src/layers.rs` keeps it so; `docs/modules.md` is the graph):
//!
//! 1. [`math`] (transforms, the glTF sampler's primitives) and [`error`] (errors, diagnostics);
//! 2. [`model`]: skeleton, humanoid bone maps, clips, sockets, meshes, the [`Format`](model::Format) tag;
//! 3. [`pose`] (forward kinematics, the T-pose, retargeting) and [`mapping`] (rig names to bones);
//! 4. [`formats`]: glTF, VRM (on glTF), H-Anim, BVH, Godot; and the bundled [`mannequin`];
//! 5. [`ops`]: [`read`], [`convert()`], [`retarget`](ops::retarget::retarget), inspect, sockets,
//!    the demo and the preview; the command line sits on top.
//!
//! Conventions (space, T-pose, animation deltas) are written once in `docs/conventions.md`;
//! every diagnostic code is listed in `docs/diagnostics.md`.
//!
//! ## Reading a character, retargeting a clip onto it, writing a `.vrma`
//!
//! The bundled mannequin stands in for your files here. [`read()`] takes any supported file
//! (or [`read_bytes`] its bytes) and gives a whole [`model::Character`]: skeleton, humanoid
//! bone maps, clips, meshes, sockets. [`write()`] writes a character in any format we write.
//! [`retarget`](ops::retarget::retarget) plays one file's clip on another character (world
//! deltas from the T-pose) and writes the result, here as a VRM animation.
//!
//! ```
//! use humanoid::model::HumanBone;
//! use humanoid::retarget::{retarget, RetargetOptions};
//! use humanoid::{ReadOptions, WriteOptions};
//!
//! let dir = tempfile::tempdir()?;
//! humanoid::demo::write_demo(dir.path(), false)?; // mannequin.glb, with clips
//! let glb = dir.path().join("mannequin.glb");
//! let character = humanoid::read(&glb, &ReadOptions::default())?.character;
//! let hips = character.asset.humanoids[0].bones.get(HumanBone::Hips);
//! assert!(hips.is_some());
//! println!("{} clips, e.g. {:?}", character.asset.clips.len(), character.asset.clips[0].name);
//!
//! // One of its clips, as a VRMA.
//! let name = character.asset.clips[0].name.clone();
//! let clip = WriteOptions { clip: Some(name), ..WriteOptions::default() };
//! humanoid::write(&character, &dir.path().join("own.vrma"), &clip)?;
//!
//! // A clip of one file retargeted onto another character (here the same one).
//! let out = dir.path().join("walk.vrma");
//! let report = retarget(&glb, &glb, &out, &RetargetOptions::default())?;
//! assert_eq!(report.format, humanoid::formats::Format::Vrma);
//! let vrma = humanoid::read(&out, &ReadOptions::default())?.character;
//! assert_eq!(vrma.asset.clips.len(), 1);
//! assert!(vrma.asset.humanoids[0].bones.get(HumanBone::LeftUpperArm).is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Writing H-Anim and reading it back into a GLB
//!
//! [`convert()`] reads, maps and writes in one call; the output extension picks the format. Every
//! humanoid bone comes back where it was.
//!
//! ```
//! use humanoid::{convert, ConvertOptions};
//!
//! let dir = tempfile::tempdir()?;
//! humanoid::demo::write_demo(dir.path(), false)?;
//! let glb = dir.path().join("mannequin.glb");
//! let x3d = dir.path().join("mannequin.x3d");
//! let back = dir.path().join("back.glb");
//! convert(&glb, &x3d, &ConvertOptions::default())?; // H-Anim 2.0, X3D XML
//! convert(&x3d, &back, &ConvertOptions::default())?;
//!
//! let (before, after) = (humanoid::read_asset(&glb)?.asset, humanoid::read_asset(&back)?.asset);
//! let place = |asset: &humanoid::Asset, bone| {
//!     let joint = asset.humanoids[0].bones.get(bone).expect("mapped");
//!     asset.skeleton.rest_world(joint).translation
//! };
//! for (bone, _) in before.humanoids[0].bones.iter() {
//!     let moved = place(&before, bone).distance(place(&after, bone));
//!     assert!(moved < 1e-4, "{bone} moved {moved} m");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Mapping a rig by a table
//!
//! A rig that declares no humanoid is mapped by a table (`mappings/*.toml` are built in; yours
//! is read the same way) that names, for each canonical bone, the rig's joint.
//!
//! ```
//! use std::path::Path;
//! use humanoid::mapping::{Library, RigMapping, Table};
//! use humanoid::model::{Asset, Format, HumanBone, RawJoint, Skeleton};
//!
//! let dir = tempfile::tempdir()?;
//! humanoid::demo::write_demo(dir.path(), false)?;
//! let mannequin = humanoid::read_asset(&dir.path().join("mannequin.glb"))?.asset;
//!
//! // The mannequin's skeleton as an exporter might name it: J0, J1, …, with no humanoid.
//! let skeleton = &mannequin.skeleton;
//! let raw = skeleton.joints().map(|j| RawJoint {
//!     name: format!("J{}", j.index()),
//!     parent: skeleton.parent(j).map(|p| p.index()),
//!     rest: skeleton.rest_local(j),
//! });
//! let (rig, _) = Skeleton::from_raw(raw.collect())?;
//! let mut asset = Asset::new(Format::Glb, rig, (0..skeleton.len()).collect());
//!
//! // A table for that naming: `leftHand = "J17"` and so on.
//! let mut toml = String::from(
//!     "name = \"numbered\"\ntitle = \"Numbered joints\"\n\
//!      description = \"J + joint index\"\nsource = \"this example\"\n[bones]\n",
//! );
//! for (bone, joint) in mannequin.humanoids[0].bones.iter() {
//!     toml.push_str(&format!("{bone} = \"J{}\"\n", joint.index()));
//! }
//! let mut library = Library::builtin()?;
//! let name = library.add_table(Table::parse(&toml, Path::new("numbered.toml"))?);
//! let mapping = RigMapping { library, table: Some(name) };
//! let mapped = mapping.attach(&mut asset, Path::new("rig.glb"))?;
//! assert!(mapped.line().starts_with("mapped by table numbered"), "{}", mapped.line());
//!
//! let hand = asset.humanoids[0].bones.get(HumanBone::LeftHand).expect("mapped");
//! let expected = mannequin.humanoids[0].bones.get(HumanBone::LeftHand).expect("declared");
//! assert_eq!(asset.skeleton.name(hand), format!("J{}", expected.index()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The canonical bones themselves:
//!
//! ```
//! use humanoid::model::HumanBone;
//! assert_eq!(HumanBone::LeftHand.parent(), Some(HumanBone::LeftLowerArm));
//! assert_eq!("leftHand".parse::<HumanBone>().unwrap(), HumanBone::LeftHand);
//! ```
#![deny(missing_docs)]
// Unit tests may narrow freely (Cargo.toml denies it in the library; the non-test build checks
// that); clippy.toml lets them unwrap, expect and panic.
#![cfg_attr(test, allow(clippy::cast_possible_truncation))]

pub mod error;
pub mod formats;
pub mod io;
#[cfg(test)]
mod layers;
pub mod mannequin;
pub mod mapping;
pub mod math;
pub mod model;
pub mod ops;
pub mod pose;

pub use math::num;
#[cfg(feature = "preview")]
pub use ops::preview;
pub use ops::{
    batch, bone_pose, convert, demo, inspect, output, retarget, rig_tables, sockets, vrma_out,
};

/// The paths of the asset type and the one read from before the layers were split:
/// [`model::asset`] holds the character, [`ops::read`] reads it.
pub mod asset {
    pub use crate::model::asset::*;
    pub use crate::ops::read::*;
}
pub use model::clip_choice;

pub use asset::{Asset, ReadOutcome};
pub use convert::{convert, ConvertOptions};
pub use error::{Diagnostic, Diagnostics, Error, Location, Severity};
pub use ops::read::{read, read_asset, read_bytes, Read, ReadOptions};
pub use ops::write::{write, WriteOptions, Written};
