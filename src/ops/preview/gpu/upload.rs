//! A character's meshes, materials, textures and morph targets put on the GPU.

use std::collections::HashMap;

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use super::morphs::GpuMorphs;
use super::pipelines::{Alpha, MeshStyle};
use super::{linear_rgba, Renderer, DEFAULT_BASE};
use crate::error::Diagnostics;
use crate::model::mesh::{AlphaMode, Outline, SkinnedMesh, Toon};
use crate::ops::preview::image::Image;
use crate::ops::preview::scene::Character;
use crate::ops::preview::texture;

/// A character's meshes on the GPU.
pub struct GpuCharacter {
    pub(super) meshes: Vec<GpuMesh>,
}

pub(super) struct GpuMesh {
    /// Its index in [`Character::meshes`].
    pub(super) mesh: usize,
    pub(super) vertices: wgpu::Buffer,
    pub(super) indices: wgpu::Buffer,
    pub(super) index_count: u32,
    pub(super) palette: wgpu::Buffer,
    pub(super) morphs: GpuMorphs,
    pub(super) group: wgpu::BindGroup,
    pub(super) style: MeshStyle,
    /// Whether its toon material draws an outline (a second, [`MeshStyle::Outline`] draw).
    pub(super) outline: bool,
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct Vertex {
    position: [f32; 3],
    normal: [f32; 3],
    uv: [f32; 2],
    joints0: [u32; 4],
    weights0: [f32; 4],
    joints1: [u32; 4],
    weights1: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct MaterialUniform {
    base_color: [f32; 4],
    alpha: [f32; 4],
    /// x: 1 for a toon material, y: shading shift, z: shading toony, w: GI equalisation.
    toon: [f32; 4],
    /// rgb: the shade colour.
    shade: [f32; 4],
    /// rgb: the rim colour, w: its fresnel power.
    rim: [f32; 4],
    /// x: rim lift, y: rim lighting mix.
    rim_more: [f32; 4],
    /// rgb: the outline colour, w: its lighting mix.
    outline: [f32; 4],
    /// x: outline width, y: 1 world (metres), 2 screen (fraction of the picture's height).
    outline_width: [f32; 4],
}

impl MaterialUniform {
    /// A plain material: `base_color`, alpha cutoff `cutoff`, no toon shading.
    fn plain(base_color: [f32; 4], cutoff: f32) -> MaterialUniform {
        MaterialUniform {
            base_color,
            alpha: [cutoff, 0.0, 0.0, 0.0],
            toon: [0.0; 4],
            shade: [0.0; 4],
            rim: [0.0; 4],
            rim_more: [0.0; 4],
            outline: [0.0; 4],
            outline_width: [0.0; 4],
        }
    }

    /// Adds a toon material's parameters.
    fn with_toon(mut self, toon: &Toon) -> MaterialUniform {
        self.toon = [
            1.0,
            toon.shading_shift,
            toon.shading_toony,
            toon.gi_equalization,
        ];
        let [r, g, b] = toon.shade_color;
        self.shade = [r, g, b, 1.0];
        let [r, g, b] = toon.rim_color;
        self.rim = [r, g, b, toon.rim_fresnel_power];
        self.rim_more = [toon.rim_lift, toon.rim_lighting_mix, 0.0, 0.0];
        let (width, mode, color, mix) = match toon.outline {
            Outline::None => (0.0, 0.0, [0.0; 3], 0.0),
            Outline::World {
                width,
                color,
                lighting_mix,
            } => (width, 1.0, color, lighting_mix),
            Outline::Screen {
                width,
                color,
                lighting_mix,
            } => (width, 2.0, color, lighting_mix),
        };
        let [r, g, b] = color;
        self.outline = [r, g, b, mix];
        self.outline_width = [width, mode, 0.0, 0.0];
        self
    }
}

impl Renderer {
    /// Puts a character's meshes, materials, textures and morph targets on the GPU. A texture
    /// that cannot be decoded, or morph targets past the device's storage limits, are left
    /// out, with a diagnostic.
    pub fn upload(&self, character: &Character, diagnostics: &mut Diagnostics) -> GpuCharacter {
        // Meshes share images (an `Arc` each): each is decoded and uploaded once.
        let mut textures: HashMap<*const u8, Option<wgpu::TextureView>> = HashMap::new();
        let max = self.device.limits().max_texture_dimension_2d;
        let limits = self.device.limits();
        let max_morph_bytes = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let meshes = character
            .meshes
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.indices.is_empty())
            .map(|(index, mesh)| {
                let material = mesh.material.as_ref();
                let view = material
                    .and_then(|m| m.base_color_texture.as_ref())
                    .and_then(|encoded| {
                        textures
                            .entry(encoded.bytes.as_ptr())
                            .or_insert_with(|| {
                                let unreadable = |why: String| {
                                    format!(
                                        "image {:?} ({}) of mesh {:?}: {why}: drawn without it",
                                        encoded.name, encoded.mime_type, mesh.name
                                    )
                                };
                                match texture::decode(encoded) {
                                    Ok(image) if image.width() <= max && image.height() <= max => {
                                        Some(upload_texture(&self.device, &self.queue, &image))
                                    }
                                    Ok(image) => {
                                        diagnostics.warn(
                                            "TEXTURE_UNREADABLE",
                                            "",
                                            unreadable(format!(
                                                "{}×{} pixels is larger than the GPU allows ({max})",
                                                image.width(),
                                                image.height()
                                            )),
                                        );
                                        None
                                    }
                                    Err(e) => {
                                        diagnostics.warn("TEXTURE_UNREADABLE", "", unreadable(e));
                                        None
                                    }
                                }
                            })
                            .clone()
                    });
                let uniform = match material {
                    Some(m) => {
                        let cutoff = match m.alpha_mode {
                            AlphaMode::Mask(cutoff) => cutoff,
                            AlphaMode::Opaque | AlphaMode::Blend => 0.0,
                        };
                        let plain = MaterialUniform::plain(m.base_color, cutoff);
                        match &m.toon {
                            Some(toon) => plain.with_toon(toon),
                            None => plain,
                        }
                    }
                    None => MaterialUniform::plain(linear_rgba(DEFAULT_BASE), 0.0),
                };
                let outline = uniform.outline_width[1] > 0.0 && uniform.outline_width[0] > 0.0;
                if outline {
                    self.mesh_pipelines.get(&self.device, MeshStyle::Outline);
                }
                // No material is glTF's default material, and VRML's `solid TRUE`: one-sided.
                let style = MeshStyle::Material {
                    double_sided: material.is_some_and(|m| m.double_sided),
                    alpha: match material.map(|m| m.alpha_mode) {
                        Some(AlphaMode::Mask(_)) => Alpha::Mask,
                        Some(AlphaMode::Blend) => Alpha::Blend,
                        Some(AlphaMode::Opaque) | None => Alpha::Opaque,
                    },
                };
                // The pipeline is compiled now rather than in the first frame.
                self.mesh_pipelines.get(&self.device, style);
                let morphs = GpuMorphs::upload(&self.device, mesh, max_morph_bytes, diagnostics);
                let texture = view.as_ref().unwrap_or(&self.white);
                let mut on_gpu = self.upload_mesh((index, mesh), &uniform, texture, style, morphs);
                on_gpu.outline = outline;
                on_gpu
            })
            .collect();
        GpuCharacter { meshes }
    }

    /// Mesh `index` of the character (`mesh`) on the GPU.
    fn upload_mesh(
        &self,
        (index, mesh): (usize, &SkinnedMesh),
        material: &MaterialUniform,
        texture: &wgpu::TextureView,
        style: MeshStyle,
        morphs: GpuMorphs,
    ) -> GpuMesh {
        let vertices: Vec<Vertex> = (0..mesh.positions.len())
            .map(|v| {
                let widen = |j: Option<&[u16; 4]>| j.map_or([0; 4], |j| j.map(u32::from));
                Vertex {
                    position: mesh.positions.get(v).copied().unwrap_or_default(),
                    normal: mesh.normals.get(v).copied().unwrap_or([0.0, 1.0, 0.0]),
                    uv: mesh.uvs.get(v).copied().unwrap_or_default(),
                    joints0: widen(mesh.joints.get(v)),
                    weights0: mesh.weights.get(v).copied().unwrap_or_default(),
                    joints1: widen(mesh.joints_extra.get(v)),
                    weights1: mesh.weights_extra.get(v).copied().unwrap_or_default(),
                }
            })
            .collect();
        let device = &self.device;
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vertices"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("indices"),
            contents: bytemuck::cast_slice(&mesh.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let palette = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("joint matrices"),
            size: 64 * mesh.joints_used.len().max(1) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let material = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("material"),
            contents: bytemuck::bytes_of(material),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("mesh"),
            layout: &self.mesh_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: palette.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: material.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(texture),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: morphs
                        .deltas
                        .as_ref()
                        .unwrap_or(&self.no_morphs.deltas)
                        .as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: morphs
                        .uniform
                        .as_ref()
                        .unwrap_or(&self.no_morphs.uniform)
                        .as_entire_binding(),
                },
            ],
        });
        GpuMesh {
            mesh: index,
            vertices,
            indices,
            index_count: u32::try_from(mesh.indices.len()).unwrap_or(u32::MAX),
            palette,
            morphs,
            group,
            style,
            outline: false,
        }
    }
}

pub(super) fn upload_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    image: &Image,
) -> wgpu::TextureView {
    let texture = device.create_texture_with_data(
        queue,
        &wgpu::TextureDescriptor {
            label: Some("base colour"),
            size: wgpu::Extent3d {
                width: image.width(),
                height: image.height(),
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        image.rgba(),
    );
    texture.create_view(&wgpu::TextureViewDescriptor::default())
}
