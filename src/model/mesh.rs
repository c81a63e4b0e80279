//! A skinned triangle mesh in the canonical model: what a format writer needs to emit a
//! character's body (the mannequin, H-Anim skins) and what the preview draws.

use glam::Mat4;

use crate::model::skeleton::JointId;

/// A triangle mesh skinned to a [`Skeleton`](crate::model::skeleton::Skeleton) by linear blend
/// skinning: `v' = Σ w_i · (world_i · inverse_bind_i) · v`.
///
/// # Invariants
/// All per-vertex arrays have the same length; `indices.len()` is a multiple of 3 and every index
/// is below the vertex count; every row of `weights` sums to 1; `inverse_bind` has one matrix per
/// entry of `joints_used`, and `joints` index into `joints_used`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkinnedMesh {
    /// Name of the mesh.
    pub name: String,
    /// Vertex positions in model space at the bind pose.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals.
    pub normals: Vec<[f32; 3]>,
    /// Up to four influences per vertex, as indices into `joints_used`.
    pub joints: Vec<[u16; 4]>,
    /// The weights of those influences (each row sums to 1).
    pub weights: Vec<[f32; 4]>,
    /// Triangle list, counter-clockwise front faces.
    pub indices: Vec<u32>,
    /// The skin's joints (the glTF `skin.joints` list).
    pub joints_used: Vec<JointId>,
    /// One inverse bind matrix per entry of `joints_used`.
    pub inverse_bind: Vec<Mat4>,
}

impl SkinnedMesh {
    /// The number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// The number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}
