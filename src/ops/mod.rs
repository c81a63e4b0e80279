//! The operations every command is made of: read a file into the model ([`read`]), convert,
//! retarget, inspect, place sockets, sample bone poses, write the demo and render previews.
//! They sit above the format adapters and below the command line; an operation may use
//! another, never the other way down.

pub mod batch;
pub mod bone_pose;
pub mod convert;
pub mod demo;
pub mod frame_plan;
pub mod inspect;
pub mod khr_write;
pub mod output;
#[cfg(feature = "preview")]
pub mod preview;
pub mod read;
pub mod retarget;
pub mod rig_tables;
pub mod sockets;
pub mod vrma_out;
pub mod write;
