//! VRM 1.0 (`VRMC_vrm`), VRM 0.x (`VRM`) and VRM animation (`VRMC_vrm_animation`): glTF files
//! with a humanoid extension. Built on the glTF document layer (`formats::gltf`); nothing there
//! reaches back here.

pub mod migrate;
