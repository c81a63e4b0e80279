//! The bundled mannequin: a generated, skinned humanoid with all 55 bones in the canonical
//! T-pose and a walk and a wave clip.
