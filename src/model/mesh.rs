//! A skinned triangle mesh in the canonical model: what a format writer needs to emit a
//! character's body (the mannequin, H-Anim skins) and what the preview draws, with the
//! material it is drawn with.

use glam::Mat4;

use crate::model::skeleton::JointId;

/// A triangle mesh skinned to a [`Skeleton`](crate::model::skeleton::Skeleton) by linear blend
/// skinning: `v' = Σ w_i · (world_i · inverse_bind_i) · v`.
///
/// # Invariants
/// All per-vertex arrays have the same length, except `uvs`, `joints_extra` and
/// `weights_extra`, which are either empty or that length too; `indices.len()` is a multiple
/// of 3 and every index is below the vertex count; every vertex's weights (`weights` and
/// `weights_extra` together) sum to 1; `inverse_bind` has one matrix per entry of
/// `joints_used`, and `joints` and `joints_extra` index into `joints_used`.
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
    /// The weights of those influences.
    pub weights: Vec<[f32; 4]>,
    /// Triangle list, counter-clockwise front faces.
    pub indices: Vec<u32>,
    /// The skin's joints (the glTF `skin.joints` list).
    pub joints_used: Vec<JointId>,
    /// One inverse bind matrix per entry of `joints_used`.
    pub inverse_bind: Vec<Mat4>,
    /// Texture coordinates (glTF `TEXCOORD_0`: origin at the image's top left), one per
    /// vertex, or empty when the mesh has none.
    pub uvs: Vec<[f32; 2]>,
    /// How the surface looks; `None` for the format's default.
    pub material: Option<Material>,
    /// Whether the mesh is rigid geometry carried by joints (H-Anim segment shapes, a glTF mesh
    /// node without a skin: every vertex follows one joint with weight 1) rather than a
    /// deformable skin.
    pub rigid: bool,
    /// Morph targets (glTF `targets`, H-Anim displacers), applied before skinning: a vertex at
    /// bind is `positions[v] + Σ_t weight_t · targets[t].positions[v]`. Empty when it has none.
    pub morph_targets: Vec<MorphTarget>,
    /// The default weight of each morph target (glTF `mesh.weights`, an H-Anim displacer's
    /// `weight`), one per target; empty when there are no targets. Animated weights are clip
    /// tracks on [`TrackTarget::Mesh`](crate::model::clip::TrackTarget::Mesh).
    pub morph_weights: Vec<f32>,
    /// Four more influences per vertex (glTF `JOINTS_1`), or empty.
    pub joints_extra: Vec<[u16; 4]>,
    /// The weights of those (glTF `WEIGHTS_1`), or empty.
    pub weights_extra: Vec<[f32; 4]>,
}

/// One morph target of a [`SkinnedMesh`]: dense per-vertex deltas in the mesh's bind space.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphTarget {
    /// Its name (glTF `extras.targetNames`, the H-Anim displacer's `name`).
    pub name: String,
    /// One position delta per vertex of the mesh (zero where the target does not move it).
    pub positions: Vec<[f32; 3]>,
    /// One normal delta per vertex, or empty when the target does not change normals.
    pub normals: Vec<[f32; 3]>,
}

/// How a material treats the alpha of its base colour (glTF `alphaMode`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AlphaMode {
    /// Alpha is ignored.
    #[default]
    Opaque,
    /// Fragments with alpha below the cutoff are discarded.
    Mask(f32),
    /// Alpha blends with what is behind.
    Blend,
}

/// A surface's look, as far as the formats share it: the glTF metallic-roughness base colour.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name of the material.
    pub name: String,
    /// Linear RGBA base colour factor (alpha 1 is opaque).
    pub base_color: [f32; 4],
    /// The base colour texture (multiplied by `base_color`), read with the mesh's `uvs`.
    pub base_color_texture: Option<Image>,
    /// Whether back faces are drawn.
    pub double_sided: bool,
    /// How alpha is used (glTF `alphaMode`, `alphaCutoff`).
    pub alpha_mode: AlphaMode,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            name: String::new(),
            base_color: [1.0; 4],
            base_color_texture: None,
            double_sided: false,
            alpha_mode: AlphaMode::Opaque,
        }
    }
}

/// An encoded image (PNG, JPEG, ...), shared between the meshes that use it.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// Name of the image (a file name when it came from one).
    pub name: String,
    /// Its media type, e.g. `image/png`.
    pub mime_type: String,
    /// The encoded bytes.
    pub bytes: std::sync::Arc<[u8]>,
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
