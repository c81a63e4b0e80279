//! Format adapters. Each reads into and writes out of the canonical model and never imports
//! another adapter (the one exception: VRM builds on the glTF document layer).

pub mod gltf;
