//! The library's integration tests, one binary (the CLI's are in `tests/it`, the preview's in
//! `tests/preview`): each module checks one part of the public API against independent
//! evaluation written in that module. Modules marked `corpus` read `../shared` and run with
//! `--features corpus`. Run one module with `cargo test --test library bvh::`.

// Tests and benches may unwrap, expect, panic and narrow: a failure is the point (the library
// denies these in Cargo.toml's [lints]).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod automap;
mod bone_channels;
mod bvh;
#[cfg(feature = "corpus")]
mod fbx;
mod fbx_bind_pose;
mod gltf_document;
mod godot;
mod hanim;
mod hanim_appearance;
mod khr_character;
mod khr_character_write;
mod khr_expression;
mod khr_skeleton_bone;
mod mapping_tables;
mod mapping_truth;
mod normalize;
mod read_write;
mod sockets;
#[cfg(feature = "corpus")]
mod vrm_downgrade;
#[cfg(feature = "corpus")]
mod vrm_migrate;
