//! glTF 2.0 (`.gltf`, `.glb`): the lossless document layer and `EXT_skeleton_humanoid`.
