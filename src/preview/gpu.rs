//! The GPU renderer (wgpu, offscreen): skinned meshes skinned in the vertex shader (joint
//! matrices in a storage buffer, eight influences), Lambert and ambient lighting, a ground
//! grid, the 2D overlay on top, a depth buffer and 4× MSAA, read back to an [`Image`].
//!
//! Backends: Vulkan first, then GL (through EGL); `WGPU_BACKEND` (`vulkan`, `gl`) is honoured
//! when no backend is asked for. With no adapter at all, [`Renderer::new`] says so.

use std::collections::HashMap;

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};
use wgpu::util::DeviceExt;

use super::camera::Camera;
use super::image::Image;
use super::overlay::{Overlay, Rgba};
use super::scene::{Character, Pose};
use super::texture;
use crate::error::{Diagnostics, Error};
use crate::model::mesh::{AlphaMode, SkinnedMesh};

/// Which graphics API to render with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// `WGPU_BACKEND` if set, else Vulkan, else GL.
    #[default]
    Auto,
    /// Vulkan only (lavapipe on a machine without a GPU).
    Vulkan,
    /// OpenGL (ES) through EGL only (llvmpipe on a machine without a GPU).
    Gl,
}

impl std::str::FromStr for Backend {
    type Err = String;

    fn from_str(s: &str) -> Result<Backend, String> {
        match s {
            "auto" => Ok(Backend::Auto),
            "vulkan" => Ok(Backend::Vulkan),
            "gl" | "gles" | "opengl" => Ok(Backend::Gl),
            other => Err(format!(
                "unknown backend {other:?}: expected vulkan, gl or auto"
            )),
        }
    }
}

/// The picture's background (sRGB).
pub const BACKGROUND: Rgba = [46, 52, 64, 255];
/// The ground's colour between grid lines (sRGB).
pub const GROUND: Rgba = [86, 90, 98, 255];
/// The grid lines' colour (sRGB).
pub const GRID: Rgba = [130, 134, 142, 255];
/// The colour of a mesh without a material (sRGB).
pub const DEFAULT_BASE: Rgba = [200, 200, 200, 255];

const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// What to draw in a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layers {
    /// The meshes.
    pub meshes: bool,
    /// The ground and its grid.
    pub ground: bool,
    /// The overlay (skeleton, sockets).
    pub overlay: bool,
    /// Draw the meshes flat white, unlit, untextured and with no alpha test: a silhouette pass,
    /// for checking geometry and skinning.
    pub silhouette: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Layers {
            meshes: true,
            ground: true,
            overlay: true,
            silhouette: false,
        }
    }
}

/// Where the ground is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ground {
    /// The centre of the square (its y is the ground's height).
    pub centre: Vec3,
    /// Half the side of the square.
    pub extent: f32,
    /// Distance between grid lines.
    pub spacing: f32,
}

/// A device ready to render.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    samples: u32,
    mesh_pipeline: wgpu::RenderPipeline,
    ground_pipeline: wgpu::RenderPipeline,
    overlay_pipeline: wgpu::RenderPipeline,
    globals: wgpu::Buffer,
    globals_group: wgpu::BindGroup,
    mesh_layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    white: wgpu::TextureView,
    targets: Option<Targets>,
}

/// The render targets of one picture size.
struct Targets {
    width: u32,
    height: u32,
    color: wgpu::TextureView,
    resolve: Option<wgpu::Texture>,
    resolve_view: Option<wgpu::TextureView>,
    color_texture: wgpu::Texture,
    depth: wgpu::TextureView,
    readback: wgpu::Buffer,
    padded_row: u32,
}

/// A character's meshes on the GPU.
pub struct GpuCharacter {
    meshes: Vec<GpuMesh>,
}

struct GpuMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    palette: wgpu::Buffer,
    group: wgpu::BindGroup,
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Vertex {
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
struct Globals {
    view_proj: [[f32; 4]; 4],
    light_dir: [f32; 4],
    ground: [f32; 4],
    ground_centre: [f32; 4],
    ground_color: [f32; 4],
    grid_color: [f32; 4],
    background: [f32; 4],
    viewport: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct MaterialUniform {
    base_color: [f32; 4],
    alpha: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct OverlayVertex {
    pixel: [f32; 2],
    color: [f32; 4],
}

/// An sRGB byte as a linear value.
fn linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_rgba(c: Rgba) -> [f32; 4] {
    [
        linear(c[0]),
        linear(c[1]),
        linear(c[2]),
        f32::from(c[3]) / 255.0,
    ]
}

impl Renderer {
    /// Opens a device on `backend` (see [`Backend`]).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when no adapter can be had (the message names the backends tried
    /// and the way out: `--skeleton-only`), or the device cannot be created.
    pub fn new(backend: Backend) -> Result<Renderer, Error> {
        let from_env = std::env::var("WGPU_BACKEND").ok().filter(|v| !v.is_empty());
        let order: Vec<wgpu::Backends> = match backend {
            Backend::Vulkan => vec![wgpu::Backends::VULKAN],
            Backend::Gl => vec![wgpu::Backends::GL],
            Backend::Auto if from_env.is_some() => {
                vec![wgpu::Backends::all().with_env()]
            }
            Backend::Auto => vec![wgpu::Backends::VULKAN, wgpu::Backends::GL],
        };
        let mut tried = Vec::new();
        for backends in order {
            let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle().with_env();
            descriptor.backends = backends;
            let instance = wgpu::Instance::new(descriptor);
            let options = wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..wgpu::RequestAdapterOptions::default()
            };
            match pollster::block_on(instance.request_adapter(&options)) {
                Ok(adapter) => return Renderer::with_adapter(&adapter),
                Err(e) => tried.push(format!("{backends:?}: {e}")),
            }
        }
        Err(Error::unsupported(format!(
            "no GPU renderer available ({}); install Mesa's software drivers (mesa-vulkan-drivers, libvulkan1, or libegl-mesa0 for GL) or use --skeleton-only for a CPU drawing of the skeleton",
            tried.join("; ")
        )))
    }

    fn with_adapter(adapter: &wgpu::Adapter) -> Result<Renderer, Error> {
        let info = adapter.get_info();
        let limits = wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits());
        let limits = wgpu::Limits {
            max_storage_buffers_per_shader_stage: 1,
            max_storage_buffer_binding_size: adapter.limits().max_storage_buffer_binding_size,
            max_texture_dimension_2d: adapter.limits().max_texture_dimension_2d,
            ..limits
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("humanoid preview"),
            required_features: wgpu::Features::empty(),
            required_limits: limits,
            ..wgpu::DeviceDescriptor::default()
        }))
        .map_err(|e| {
            Error::unsupported(format!(
                "the GPU adapter {} ({:?}) cannot render the preview: {e}",
                info.name, info.backend
            ))
        })?;
        let samples = if adapter
            .get_texture_format_features(COLOR_FORMAT)
            .flags
            .sample_count_supported(4)
            && adapter
                .get_texture_format_features(DEPTH_FORMAT)
                .flags
                .sample_count_supported(4)
        {
            4
        } else {
            1
        };
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("preview shaders"),
            source: wgpu::ShaderSource::Wgsl(include_str!("shader.wgsl").into()),
        });
        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let mesh_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mesh"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globals"),
            layout: &globals_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            }],
        });
        let mesh_pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("mesh"),
            bind_group_layouts: &[Some(&globals_layout), Some(&mesh_layout)],
            immediate_size: 0,
        });
        let globals_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("ground and overlay"),
                bind_group_layouts: &[Some(&globals_layout)],
                immediate_size: 0,
            });
        let vertex_attributes = wgpu::vertex_attr_array![
            0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Uint32x4,
            4 => Float32x4, 5 => Uint32x4, 6 => Float32x4
        ];
        let overlay_attributes = wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x4];
        let pipeline = |label: &str,
                        layout: &wgpu::PipelineLayout,
                        vs: &str,
                        fs: &str,
                        buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
                        depth: bool| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some(vs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    cull_mode: None,
                    ..wgpu::PrimitiveState::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(depth),
                    depth_compare: Some(if depth {
                        wgpu::CompareFunction::Less
                    } else {
                        wgpu::CompareFunction::Always
                    }),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: samples,
                    ..wgpu::MultisampleState::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module: &shader,
                    entry_point: Some(fs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: COLOR_FORMAT,
                        blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let mesh_pipeline = pipeline(
            "meshes",
            &mesh_pipeline_layout,
            "vs_mesh",
            "fs_mesh",
            &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<Vertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &vertex_attributes,
            })],
            true,
        );
        let ground_pipeline = pipeline(
            "ground",
            &globals_pipeline_layout,
            "vs_ground",
            "fs_ground",
            &[],
            true,
        );
        let overlay_pipeline = pipeline(
            "overlay",
            &globals_pipeline_layout,
            "vs_overlay",
            "fs_overlay",
            &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<OverlayVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &overlay_attributes,
            })],
            false,
        );
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("base colour"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..wgpu::SamplerDescriptor::default()
        });
        let white = upload_texture(&device, &queue, &Image::filled(1, 1, [255; 4]));
        Ok(Renderer {
            device,
            queue,
            info,
            samples,
            mesh_pipeline,
            ground_pipeline,
            overlay_pipeline,
            globals,
            globals_group,
            mesh_layout,
            sampler,
            white,
            targets: None,
        })
    }

    /// The adapter, as `name (backend, device type)`.
    pub fn adapter(&self) -> String {
        format!(
            "{} ({:?}, {:?}{})",
            self.info.name,
            self.info.backend,
            self.info.device_type,
            if self.info.driver_info.is_empty() {
                String::new()
            } else {
                format!(", {}", self.info.driver_info)
            }
        )
    }

    /// Puts a character's meshes, materials and textures on the GPU. A texture that cannot be
    /// decoded is left out, with a diagnostic.
    pub fn upload(&self, character: &Character, diagnostics: &mut Diagnostics) -> GpuCharacter {
        // Meshes share images (an `Arc` each): each is decoded and uploaded once.
        let mut textures: HashMap<*const u8, Option<wgpu::TextureView>> = HashMap::new();
        let max = self.device.limits().max_texture_dimension_2d;
        let meshes = character
            .meshes
            .iter()
            .filter(|m| !m.indices.is_empty())
            .map(|mesh| {
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
                    Some(m) => MaterialUniform {
                        base_color: m.base_color,
                        alpha: [
                            match m.alpha_mode {
                                AlphaMode::Opaque => 0.0,
                                AlphaMode::Mask(cutoff) => cutoff,
                                AlphaMode::Blend => 0.1,
                            },
                            0.0,
                            0.0,
                            0.0,
                        ],
                    },
                    None => MaterialUniform {
                        base_color: linear_rgba(DEFAULT_BASE),
                        alpha: [0.0; 4],
                    },
                };
                self.upload_mesh(mesh, &uniform, view.as_ref().unwrap_or(&self.white))
            })
            .collect();
        GpuCharacter { meshes }
    }

    fn upload_mesh(
        &self,
        mesh: &SkinnedMesh,
        material: &MaterialUniform,
        texture: &wgpu::TextureView,
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
            ],
        });
        GpuMesh {
            vertices,
            indices,
            index_count: u32::try_from(mesh.indices.len()).unwrap_or(u32::MAX),
            palette,
            group,
        }
    }

    /// Renders one picture of `character` (uploaded as `gpu`) in `pose`.
    ///
    /// # Errors
    /// The picture cannot be read back from the GPU (a lost device).
    #[allow(clippy::too_many_arguments)]
    pub fn render(
        &mut self,
        character: &Character,
        gpu: &GpuCharacter,
        pose: &Pose,
        camera: &Camera,
        ground: &Ground,
        overlay: &Overlay,
        layers: Layers,
    ) -> Result<Image, Error> {
        let (width, height) = (camera.width.max(1), camera.height.max(1));
        if self
            .targets
            .as_ref()
            .is_none_or(|t| (t.width, t.height) != (width, height))
        {
            self.targets = Some(self.create_targets(width, height));
        }
        let light = Vec3::new(0.4, 0.8, 0.6).normalize();
        let globals = Globals {
            view_proj: camera.view_proj().to_cols_array_2d(),
            light_dir: [light.x, light.y, light.z, 0.0],
            ground: [ground.centre.y, ground.spacing, ground.extent, 0.0],
            ground_centre: [ground.centre.x, ground.centre.y, ground.centre.z, 0.0],
            ground_color: linear_rgba(GROUND),
            grid_color: linear_rgba(GRID),
            background: linear_rgba(BACKGROUND),
            viewport: [
                width as f32,
                height as f32,
                if layers.silhouette { 1.0 } else { 0.0 },
                0.0,
            ],
        };
        self.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
        let drawn: Vec<&SkinnedMesh> = character
            .meshes
            .iter()
            .filter(|m| !m.indices.is_empty())
            .collect();
        for (mesh, on_gpu) in drawn.iter().zip(&gpu.meshes) {
            let palette: Vec<[[f32; 4]; 4]> = pose
                .palette(mesh)
                .iter()
                .map(Mat4::to_cols_array_2d)
                .collect();
            if !palette.is_empty() {
                self.queue
                    .write_buffer(&on_gpu.palette, 0, bytemuck::cast_slice(&palette));
            }
        }
        let overlay_vertices = overlay_triangles(overlay);
        let overlay_buffer = (!overlay_vertices.is_empty() && layers.overlay).then(|| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("overlay"),
                    contents: bytemuck::cast_slice(&overlay_vertices),
                    usage: wgpu::BufferUsages::VERTEX,
                })
        });
        let Some(targets) = self.targets.as_ref() else {
            return Err(Error::unsupported("render targets missing"));
        };
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            });
        {
            let background = linear_rgba(BACKGROUND);
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("frame"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &targets.color,
                    depth_slice: None,
                    resolve_target: targets.resolve_view.as_ref(),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: f64::from(background[0]),
                            g: f64::from(background[1]),
                            b: f64::from(background[2]),
                            a: 1.0,
                        }),
                        store: if targets.resolve_view.is_some() {
                            wgpu::StoreOp::Discard
                        } else {
                            wgpu::StoreOp::Store
                        },
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &targets.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.globals_group, &[]);
            if layers.ground {
                pass.set_pipeline(&self.ground_pipeline);
                pass.draw(0..6, 0..1);
            }
            if layers.meshes {
                pass.set_pipeline(&self.mesh_pipeline);
                for mesh in &gpu.meshes {
                    pass.set_bind_group(1, &mesh.group, &[]);
                    pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                    pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(0..mesh.index_count, 0, 0..1);
                }
            }
            if let Some(buffer) = &overlay_buffer {
                pass.set_pipeline(&self.overlay_pipeline);
                pass.set_vertex_buffer(0, buffer.slice(..));
                let count = u32::try_from(overlay_vertices.len()).unwrap_or(u32::MAX);
                pass.draw(0..count, 0..1);
            }
        }
        let source = targets.resolve.as_ref().unwrap_or(&targets.color_texture);
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: source,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &targets.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(targets.padded_row),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
        self.queue.submit([encoder.finish()]);
        read_back(&self.device, targets)
    }

    fn create_targets(&self, width: u32, height: u32) -> Targets {
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let texture = |label: &str, samples: u32, format, usage| {
            self.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let multisampled = self.samples > 1;
        let color_texture = texture(
            "colour",
            self.samples,
            COLOR_FORMAT,
            if multisampled {
                wgpu::TextureUsages::RENDER_ATTACHMENT
            } else {
                wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC
            },
        );
        let resolve = multisampled.then(|| {
            texture(
                "resolved colour",
                1,
                COLOR_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            )
        });
        let depth = texture(
            "depth",
            self.samples,
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        let padded_row = (width * 4).div_ceil(256) * 256;
        let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let view = |t: &wgpu::Texture| t.create_view(&wgpu::TextureViewDescriptor::default());
        Targets {
            width,
            height,
            color: view(&color_texture),
            resolve_view: resolve.as_ref().map(view),
            resolve,
            color_texture,
            depth: view(&depth),
            readback,
            padded_row,
        }
    }
}

/// Maps the readback buffer and copies the rows out without their padding.
fn read_back(device: &wgpu::Device, targets: &Targets) -> Result<Image, Error> {
    let slice = targets.readback.slice(..);
    let (sender, receiver) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        let _ = sender.send(result);
    });
    let lost =
        |what: String| Error::unsupported(format!("reading the picture back from the GPU: {what}"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| lost(e.to_string()))?;
    receiver
        .recv()
        .map_err(|e| lost(e.to_string()))?
        .map_err(|e| lost(e.to_string()))?;
    let mut rgba = Vec::with_capacity(targets.width as usize * targets.height as usize * 4);
    {
        let data = slice.get_mapped_range().map_err(|e| lost(e.to_string()))?;
        let row = targets.width as usize * 4;
        for chunk in data.chunks(targets.padded_row as usize) {
            rgba.extend_from_slice(chunk.get(..row).unwrap_or_default());
        }
    }
    targets.readback.unmap();
    Image::from_rgba(targets.width, targets.height, rgba)
        .ok_or_else(|| lost("short read".to_owned()))
}

fn upload_texture(device: &wgpu::Device, queue: &wgpu::Queue, image: &Image) -> wgpu::TextureView {
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

/// The overlay's lines (as quads) and dots (as 16-gons), as triangles in pixels.
fn overlay_triangles(overlay: &Overlay) -> Vec<OverlayVertex> {
    let mut out = Vec::new();
    for line in &overlay.lines {
        let color = linear_rgba(line.color);
        let d = (line.b - line.a).normalize_or_zero();
        let n = glam::Vec2::new(-d.y, d.x) * (line.width * 0.5);
        let corners = [line.a - n, line.a + n, line.b + n, line.b - n];
        for k in [0, 1, 2, 0, 2, 3] {
            out.push(OverlayVertex {
                pixel: corners[k].to_array(),
                color,
            });
        }
    }
    for dot in &overlay.dots {
        let color = linear_rgba(dot.color);
        let point = |k: u32| {
            let a = k as f32 / 16.0 * std::f32::consts::TAU;
            (dot.at + glam::Vec2::new(a.cos(), a.sin()) * dot.radius).to_array()
        };
        for k in 0..16 {
            for pixel in [dot.at.to_array(), point(k), point(k + 1)] {
                out.push(OverlayVertex { pixel, color });
            }
        }
    }
    out
}
