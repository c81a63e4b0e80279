//! The GPU renderer (wgpu, offscreen): skinned meshes skinned in the vertex shader (joint
//! matrices in a storage buffer, eight influences) after their morph targets (deltas in a
//! second storage buffer, the frame's non-zero weights in a uniform: at most
//! [`MAX_ACTIVE`](crate::ops::preview::morph::MAX_ACTIVE) a mesh), Lambert and ambient lighting, a
//! ground grid, the 2D overlay on top, a depth buffer and 4× MSAA, read back to an
//! [`Image`](crate::ops::preview::Image).
//!
//! Backends: Vulkan first, then GL (through EGL); `WGPU_BACKEND` (`vulkan`, `gl`) is honoured
//! when no backend is asked for. With no adapter at all, [`Renderer::new`] says so.
//!
//! - `pipelines`: the device, the shaders and the pipelines (meshes in each style, ground,
//!   overlay);
//! - `upload`: a character's meshes, materials and textures put on the GPU;
//! - `morphs`: a mesh's morph deltas on the GPU and the targets each frame draws;
//! - `frame`: one picture rendered and read back.

mod frame;
mod morphs;
mod pipelines;
mod upload;

use glam::Vec3;

use super::overlay::Rgba;
use crate::error::Error;
use frame::Targets;

pub use upload::GpuCharacter;

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
    mesh_pipelines: pipelines::MeshPipelines,
    ground_pipeline: wgpu::RenderPipeline,
    overlay_pipeline: wgpu::RenderPipeline,
    globals: wgpu::Buffer,
    globals_group: wgpu::BindGroup,
    mesh_layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    white: wgpu::TextureView,
    no_morphs: morphs::NoMorphs,
    targets: Option<Targets>,
}

/// An sRGB byte as a linear value.
pub(super) fn linear(c: u8) -> f32 {
    crate::math::num::to_f32(crate::math::color::srgb_to_linear(f64::from(c) / 255.0))
}

pub(super) fn linear_rgba(c: Rgba) -> [f32; 4] {
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
}
