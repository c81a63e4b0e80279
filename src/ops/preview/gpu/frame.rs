//! One picture: the frame's uniforms, joint matrices and overlay written, the ground, meshes
//! and overlay drawn into the multisampled targets, resolved and read back.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};
use wgpu::util::DeviceExt;

use super::pipelines::{Alpha, MeshStyle};
use super::upload::{GpuCharacter, GpuMesh};
use super::{
    linear_rgba, Ground, Layers, Renderer, BACKGROUND, COLOR_FORMAT, DEPTH_FORMAT, GRID, GROUND,
};
use crate::error::Error;
use crate::ops::preview::camera::Camera;
use crate::ops::preview::image::Image;
use crate::ops::preview::overlay::Overlay;
use crate::ops::preview::scene::{Character, Pose};

/// The render targets of one picture size.
pub(super) struct Targets {
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

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct Globals {
    view_proj: [[f32; 4]; 4],
    light_dir: [f32; 4],
    ground: [f32; 4],
    ground_centre: [f32; 4],
    ground_color: [f32; 4],
    grid_color: [f32; 4],
    background: [f32; 4],
    viewport: [f32; 4],
    /// xyz: the camera's position (for rim light and view-facing outlines).
    eye: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct OverlayVertex {
    pixel: [f32; 2],
    color: [f32; 4],
}

impl Renderer {
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
            viewport: [width as f32, height as f32, 0.0, 0.0],
            eye: [camera.eye.x, camera.eye.y, camera.eye.z, 1.0],
        };
        self.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
        for on_gpu in &gpu.meshes {
            let Some(mesh) = character.meshes.get(on_gpu.mesh) else {
                continue;
            };
            if let Some(weights) = pose.morph_weights.get(on_gpu.mesh) {
                on_gpu.morphs.write(&self.queue, weights);
            }
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
                // Opaque and alpha-tested meshes first, blended ones over them.
                let mut order: Vec<(&GpuMesh, MeshStyle)> = gpu
                    .meshes
                    .iter()
                    .map(|m| {
                        let style = if layers.silhouette {
                            MeshStyle::Silhouette
                        } else {
                            m.style
                        };
                        (m, style)
                    })
                    .collect();
                order.sort_by_key(|(_, style)| {
                    matches!(
                        style,
                        MeshStyle::Material {
                            alpha: Alpha::Blend,
                            ..
                        }
                    )
                });
                for (mesh, style) in order {
                    pass.set_bind_group(1, &mesh.group, &[]);
                    pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                    pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.set_pipeline(self.mesh_pipelines.get(&self.device, style));
                    pass.draw_indexed(0..mesh.index_count, 0, 0..1);
                    if mesh.outline && !layers.silhouette {
                        let outline = MeshStyle::Outline;
                        pass.set_pipeline(self.mesh_pipelines.get(&self.device, outline));
                        pass.draw_indexed(0..mesh.index_count, 0, 0..1);
                    }
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
