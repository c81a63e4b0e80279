//! One integration test binary (ripgrep style): the CLI end to end, the mannequin against
//! independent evaluation, and (with `--features corpus`) the shared corpus and the Khronos
//! validator.

// Tests and benches may unwrap, expect, panic and narrow: a failure is the point (the library
// denies these in Cargo.toml's [lints]).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod batch;
mod cli;
mod cli_messages;
mod contacts;
#[cfg(feature = "corpus")]
mod corpus;
mod godot;
mod hanim;
mod hanim_names;
mod mannequin;
mod mapping;
#[cfg(feature = "corpus")]
mod matrix;
mod outputs;
mod readme;
mod retarget;
mod sockets;
mod util;
mod vrm;
#[cfg(feature = "corpus")]
mod vrm_materials;
mod vrm_meta;
mod vrma_out;
