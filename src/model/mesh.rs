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
    /// A toon material's own parameters (VRM MToon), beside the base colour every reader
    /// understands; `None` for a plain material.
    pub toon: Option<Toon>,
}

/// The parameters of a toon material (VRM's MToon, in `VRMC_materials_mtoon` 1.0 terms: linear
/// colours, shading shift and toony in its units), as far as the formats that hold one share
/// them. A writer that cannot hold them says so; the preview draws them.
#[derive(Debug, Clone, PartialEq)]
pub struct Toon {
    /// Linear RGB of the shaded side (`shadeColorFactor`).
    pub shade_color: [f32; 3],
    /// The shade texture, multiplied by `shade_color` (`shadeMultiplyTexture`).
    pub shade_texture: Option<Image>,
    /// Where light turns to shade, −1 to 1 (`shadingShiftFactor`).
    pub shading_shift: f32,
    /// How sharp that boundary is, 0 (smooth) to 1 (a step) (`shadingToonyFactor`).
    pub shading_toony: f32,
    /// How far global illumination is evened out, 0 to 1 (`giEqualizationFactor`).
    pub gi_equalization: f32,
    /// Linear RGB of the rim light (`parametricRimColorFactor`).
    pub rim_color: [f32; 3],
    /// Fresnel power of the rim (`parametricRimFresnelPowerFactor`).
    pub rim_fresnel_power: f32,
    /// Rim lift (`parametricRimLiftFactor`).
    pub rim_lift: f32,
    /// How much the rim follows the light, 0 to 1 (`rimLightingMixFactor`).
    pub rim_lighting_mix: f32,
    /// The outline drawn around the surface.
    pub outline: Outline,
}

impl Default for Toon {
    /// `VRMC_materials_mtoon`'s defaults.
    fn default() -> Self {
        Toon {
            shade_color: [0.0; 3],
            shade_texture: None,
            shading_shift: 0.0,
            shading_toony: 0.9,
            gi_equalization: 0.9,
            rim_color: [0.0; 3],
            rim_fresnel_power: 5.0,
            rim_lift: 0.0,
            rim_lighting_mix: 1.0,
            outline: Outline::None,
        }
    }
}

/// A toon material's outline (MToon `outlineWidthMode`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Outline {
    /// No outline.
    #[default]
    None,
    /// A hull this many metres wide.
    World {
        /// Width in metres.
        width: f32,
        /// Linear RGB.
        color: [f32; 3],
        /// How much it takes the surface's lighting, 0 to 1.
        lighting_mix: f32,
    },
    /// A hull this fraction of the screen height wide.
    Screen {
        /// Width as a fraction of the screen height.
        width: f32,
        /// Linear RGB.
        color: [f32; 3],
        /// How much it takes the surface's lighting, 0 to 1.
        lighting_mix: f32,
    },
}

impl Default for Material {
    fn default() -> Self {
        Material {
            name: String::new(),
            base_color: [1.0; 4],
            base_color_texture: None,
            double_sided: false,
            alpha_mode: AlphaMode::Opaque,
            toon: None,
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

    /// Removes the vertices no triangle uses (a glTF primitive that shares its vertex buffer
    /// with others brings them all), keeping the others in their order with every per-vertex
    /// array (morph deltas included) and renumbering the triangles. Returns how many were
    /// removed. Indices past the vertex count (a broken invariant) are left as they are.
    ///
    /// # Examples
    /// ```
    /// use humanoid::model::mesh::SkinnedMesh;
    /// let mut mesh = SkinnedMesh {
    ///     positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [9.0; 3], [0.0, 1.0, 0.0]],
    ///     indices: vec![0, 1, 3],
    ///     ..SkinnedMesh::default()
    /// };
    /// assert_eq!(mesh.drop_unused_vertices(), 1);
    /// assert_eq!(mesh.positions, [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    /// assert_eq!(mesh.indices, [0, 1, 2]);
    /// ```
    pub fn drop_unused_vertices(&mut self) -> usize {
        let count = self.positions.len();
        let mut used = vec![false; count];
        for &i in &self.indices {
            match used.get_mut(i as usize) {
                Some(u) => *u = true,
                None => return 0,
            }
        }
        let kept = used.iter().filter(|u| **u).count();
        if kept == count {
            return 0;
        }
        let mut new_index = vec![u32::MAX; count];
        for (next, (slot, _)) in new_index
            .iter_mut()
            .zip(&used)
            .filter(|(_, u)| **u)
            .enumerate()
        {
            // `kept` ≤ `count`, and indices are u32: no overflow.
            *slot = u32::try_from(next).unwrap_or(u32::MAX);
        }
        for i in &mut self.indices {
            *i = new_index[*i as usize];
        }
        fn keep<T>(values: &mut Vec<T>, used: &[bool]) {
            if values.len() == used.len() {
                let mut flags = used.iter();
                values.retain(|_| flags.next().copied().unwrap_or(false));
            }
        }
        keep(&mut self.positions, &used);
        keep(&mut self.normals, &used);
        keep(&mut self.joints, &used);
        keep(&mut self.weights, &used);
        keep(&mut self.uvs, &used);
        keep(&mut self.joints_extra, &used);
        keep(&mut self.weights_extra, &used);
        for target in &mut self.morph_targets {
            keep(&mut target.positions, &used);
            keep(&mut target.normals, &used);
        }
        count - kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every attribute of each triangle corner, in triangle order.
    fn corners(mesh: &SkinnedMesh) -> Vec<String> {
        mesh.indices
            .iter()
            .map(|&i| {
                let i = i as usize;
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {:?}",
                    mesh.positions[i],
                    mesh.normals[i],
                    mesh.joints[i],
                    mesh.weights[i],
                    mesh.uvs[i],
                    mesh.morph_targets
                        .iter()
                        .map(|t| (t.positions[i], t.normals[i]))
                        .collect::<Vec<_>>()
                )
            })
            .collect()
    }

    proptest! {
        #[test]
        fn dropping_unused_vertices_keeps_every_corner(
            count in 1usize..40,
            picks in proptest::collection::vec(0usize..1000, 0..30),
        ) {
            let v = |k: usize| k as f32;
            let mut mesh = SkinnedMesh {
                positions: (0..count).map(|k| [v(k), 0.0, 0.0]).collect(),
                normals: (0..count).map(|k| [0.0, v(k), 0.0]).collect(),
                joints: (0..count).map(|k| [k as u16, 0, 0, 0]).collect(),
                weights: vec![[1.0, 0.0, 0.0, 0.0]; count],
                uvs: (0..count).map(|k| [v(k), v(k)]).collect(),
                morph_targets: vec![MorphTarget {
                    name: "t".into(),
                    positions: (0..count).map(|k| [0.0, 0.0, v(k)]).collect(),
                    normals: (0..count).map(|k| [v(k), v(k), 0.0]).collect(),
                }],
                morph_weights: vec![0.5],
                indices: picks.iter().map(|p| (p % count) as u32).collect(),
                ..SkinnedMesh::default()
            };
            mesh.indices.truncate(mesh.indices.len() / 3 * 3);
            let before = corners(&mesh);
            let distinct: std::collections::HashSet<u32> = mesh.indices.iter().copied().collect();
            let removed = mesh.drop_unused_vertices();
            prop_assert_eq!(removed, count - distinct.len());
            prop_assert_eq!(mesh.positions.len(), distinct.len());
            prop_assert_eq!(mesh.morph_targets[0].positions.len(), distinct.len());
            prop_assert_eq!(corners(&mesh), before);
            // The kept vertices keep their order.
            prop_assert!(mesh.positions.windows(2).all(|w| w[0][0] < w[1][0]));
        }
    }
}
