//! The device, the shaders and the pipelines: skinned meshes (one per [`MeshStyle`]: faces
//! culled or not, opaque, alpha-tested or blended, and the silhouette pass), the ground, the
//! overlay.

use super::frame::{Globals, OverlayVertex};
use super::morphs::NoMorphs;
use super::upload::{upload_texture, Vertex};

use super::{Renderer, COLOR_FORMAT, DEPTH_FORMAT};
use crate::error::Error;
use crate::ops::preview::image::Image;

impl Renderer {
    pub(super) fn with_adapter(adapter: &wgpu::Adapter) -> Result<Renderer, Error> {
        let info = adapter.get_info();
        let limits = wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits());
        let limits = wgpu::Limits {
            max_storage_buffers_per_shader_stage: 2,
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
            source: wgpu::ShaderSource::Wgsl(include_str!("../shader.wgsl").into()),
        });
        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globals"),
            entries: &[buffer_entry(
                0,
                wgpu::ShaderStages::VERTEX_FRAGMENT,
                UNIFORM,
            )],
        });
        let vertex = wgpu::ShaderStages::VERTEX;
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let mesh_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mesh"),
            entries: &[
                // Joint matrices.
                buffer_entry(0, vertex, STORAGE),
                // Material (the vertex stage reads the outline width).
                buffer_entry(1, wgpu::ShaderStages::VERTEX_FRAGMENT, UNIFORM),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: fragment,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: fragment,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
                // Morph deltas, and the frame's morph weights.
                buffer_entry(4, vertex, STORAGE),
                buffer_entry(5, vertex, UNIFORM),
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
        let overlay_attributes = wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x4];
        let ground_pipeline = build(
            &device,
            &Spec {
                label: "ground",
                shader: &shader,
                layout: &globals_pipeline_layout,
                vs: "vs_ground",
                fs: "fs_ground",
                buffers: &[],
                depth: Depth::TestAndWrite,
                cull: None,
                blend: None,
                samples,
            },
        );
        let overlay_pipeline = build(
            &device,
            &Spec {
                label: "overlay",
                shader: &shader,
                layout: &globals_pipeline_layout,
                vs: "vs_overlay",
                fs: "fs_overlay",
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<OverlayVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &overlay_attributes,
                })],
                depth: Depth::Ignore,
                cull: None,
                blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                samples,
            },
        );
        let mesh_pipelines = MeshPipelines {
            shader,
            layout: mesh_pipeline_layout,
            samples,
            built: Default::default(),
        };
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("base colour"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..wgpu::SamplerDescriptor::default()
        });
        let white = upload_texture(&device, &queue, &Image::filled(1, 1, [255; 4]));
        let no_morphs = NoMorphs::new(&device);
        Ok(Renderer {
            device,
            queue,
            info,
            samples,
            mesh_pipelines,
            ground_pipeline,
            overlay_pipeline,
            globals,
            globals_group,
            mesh_layout,
            sampler,
            white,
            no_morphs,
            targets: None,
        })
    }
}

/// How a mesh's triangles are drawn: which faces, and what its material's alpha does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MeshStyle {
    /// A material's triangles: back faces culled unless `double_sided`.
    Material {
        /// Whether back faces are drawn (glTF `doubleSided`).
        double_sided: bool,
        /// What alpha does.
        alpha: Alpha,
    },
    /// The silhouette pass: every triangle, both faces, flat white.
    Silhouette,
    /// A toon material's outline: the mesh pushed out along its normals, back faces only,
    /// in the outline colour (MToon's inverted hull).
    Outline,
}

/// What a material's alpha does (glTF `alphaMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Alpha {
    /// Ignored.
    Opaque,
    /// Fragments below the cutoff discarded.
    Mask,
    /// Blended over what is behind; drawn after the others, testing depth but not writing it.
    Blend,
}

impl MeshStyle {
    /// Where the style's pipeline is kept in [`MeshPipelines`].
    fn slot(self) -> usize {
        match self {
            MeshStyle::Silhouette => 6,
            MeshStyle::Outline => 7,
            MeshStyle::Material {
                double_sided,
                alpha,
            } => usize::from(double_sided) * 3 + alpha as usize,
        }
    }
}

/// The mesh pipelines, one per [`MeshStyle`], each compiled the first time a mesh needs it
/// (a software rasteriser takes tens of milliseconds a pipeline).
pub(super) struct MeshPipelines {
    shader: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    samples: u32,
    built: [std::sync::OnceLock<wgpu::RenderPipeline>; 8],
}

impl MeshPipelines {
    /// The pipeline that draws meshes in `style`.
    pub(super) fn get(&self, device: &wgpu::Device, style: MeshStyle) -> &wgpu::RenderPipeline {
        self.built[style.slot()].get_or_init(|| {
            let attributes = wgpu::vertex_attr_array![
                0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Uint32x4,
                4 => Float32x4, 5 => Uint32x4, 6 => Float32x4
            ];
            let back = |double_sided: bool| (!double_sided).then_some(wgpu::Face::Back);
            let (vs, fs, depth, cull, blend) = match style {
                MeshStyle::Silhouette => {
                    ("vs_mesh", "fs_silhouette", Depth::TestAndWrite, None, None)
                }
                MeshStyle::Outline => (
                    "vs_outline",
                    "fs_outline",
                    Depth::TestAndWrite,
                    Some(wgpu::Face::Front),
                    None,
                ),
                MeshStyle::Material {
                    double_sided,
                    alpha,
                } => match alpha {
                    Alpha::Opaque => (
                        "vs_mesh",
                        "fs_mesh_opaque",
                        Depth::TestAndWrite,
                        back(double_sided),
                        None,
                    ),
                    Alpha::Mask => (
                        "vs_mesh",
                        "fs_mesh_mask",
                        Depth::TestAndWrite,
                        back(double_sided),
                        None,
                    ),
                    Alpha::Blend => (
                        "vs_mesh",
                        "fs_mesh_blend",
                        Depth::Test,
                        back(double_sided),
                        Some(wgpu::BlendState::ALPHA_BLENDING),
                    ),
                },
            };
            build(
                device,
                &Spec {
                    label: "meshes",
                    shader: &self.shader,
                    layout: &self.layout,
                    vs,
                    fs,
                    buffers: &[Some(wgpu::VertexBufferLayout {
                        array_stride: std::mem::size_of::<Vertex>() as u64,
                        step_mode: wgpu::VertexStepMode::Vertex,
                        attributes: &attributes,
                    })],
                    depth,
                    cull,
                    blend,
                    samples: self.samples,
                },
            )
        })
    }
}

const UNIFORM: wgpu::BufferBindingType = wgpu::BufferBindingType::Uniform;
const STORAGE: wgpu::BufferBindingType = wgpu::BufferBindingType::Storage { read_only: true };

/// A whole-buffer binding of `ty` seen by `visibility`.
fn buffer_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// What a pipeline does with the depth buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Depth {
    TestAndWrite,
    Test,
    Ignore,
}

/// One render pipeline's description.
struct Spec<'a> {
    label: &'a str,
    shader: &'a wgpu::ShaderModule,
    layout: &'a wgpu::PipelineLayout,
    vs: &'a str,
    fs: &'a str,
    buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    depth: Depth,
    /// The faces not drawn.
    cull: Option<wgpu::Face>,
    /// `None` writes the colour as it is: cheaper than blending on a software rasteriser,
    /// which would read every covered pixel back.
    blend: Option<wgpu::BlendState>,
    samples: u32,
}

fn build(device: &wgpu::Device, spec: &Spec<'_>) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(spec.label),
        layout: Some(spec.layout),
        vertex: wgpu::VertexState {
            module: spec.shader,
            entry_point: Some(spec.vs),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: spec.buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            // Counter-clockwise fronts (glTF); the readers reverse mirrored meshes' winding.
            front_face: wgpu::FrontFace::Ccw,
            cull_mode: spec.cull,
            ..wgpu::PrimitiveState::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(spec.depth == Depth::TestAndWrite),
            depth_compare: Some(if spec.depth == Depth::Ignore {
                wgpu::CompareFunction::Always
            } else {
                wgpu::CompareFunction::Less
            }),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }),
        multisample: wgpu::MultisampleState {
            count: spec.samples,
            ..wgpu::MultisampleState::default()
        },
        fragment: Some(wgpu::FragmentState {
            module: spec.shader,
            entry_point: Some(spec.fs),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: COLOR_FORMAT,
                blend: spec.blend,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}
