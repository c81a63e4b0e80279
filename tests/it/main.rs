//! One integration test binary (ripgrep style): the CLI end to end, the mannequin against
//! independent evaluation, and (with `--features corpus`) the shared corpus and the Khronos
//! validator.

mod cli;
mod cli_messages;
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
mod retarget;
mod sockets;
mod util;
mod vrm;
mod vrm_meta;
mod vrma_out;
