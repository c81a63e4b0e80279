//! Morph targets on the GPU: a mesh's deltas in a storage buffer, and per frame the targets
//! it draws in a small uniform.
//!
//! The deltas are one `array<f32>`, target-major: target `t`'s position delta of vertex `v`
//! at `3·(t·vertices + v)`; when any target carries normal deltas, every target's follow at
//! [`MorphInfo::normals`] in the same layout (zeros for a target without). Per frame the
//! uniform lists the targets with a non-zero weight ([`crate::ops::preview::morph::active`], at most
//! [`MAX_ACTIVE`]); the vertex shader adds `Σ w · Δ[vertex]` before skinning. A mesh without
//! targets (or whose deltas do not fit the device's storage binding) binds the renderer's
//! shared empty buffers: its uniform says 0 targets, and the shader's loop does nothing.

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use crate::error::Diagnostics;
use crate::model::mesh::SkinnedMesh;
use crate::ops::preview::morph::{active, MAX_ACTIVE};

/// The per-frame uniform: a header and up to [`MAX_ACTIVE`] (target, weight) pairs, four to a
/// vector (WGSL uniform arrays step by 16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct MorphUniform {
    /// x: targets drawn this frame, y: the mesh's vertex count, z: 1 when normal deltas
    /// follow the position deltas, w: where they start (in floats).
    info: [u32; 4],
    /// The targets drawn, by their index.
    targets: [[u32; 4]; MAX_ACTIVE / 4],
    /// Their weights.
    weights: [[f32; 4]; MAX_ACTIVE / 4],
}

/// What the shader needs to find a mesh's deltas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct MorphInfo {
    /// The mesh's vertex count.
    vertices: u32,
    /// Where the normal deltas start, in floats (`None`: the targets carry none).
    normals: Option<u32>,
}

/// A mesh's morph targets on the GPU.
pub(super) struct GpuMorphs {
    /// The deltas (the renderer's shared empty buffer for a mesh without targets).
    pub(super) deltas: Option<wgpu::Buffer>,
    /// The per-frame uniform (`None`: the shared one that says 0 targets).
    pub(super) uniform: Option<wgpu::Buffer>,
    info: MorphInfo,
}

impl MorphUniform {
    /// No targets drawn.
    pub(super) fn empty() -> MorphUniform {
        MorphUniform::zeroed()
    }
}

/// What every mesh without morph targets binds, shared: 16 bytes of deltas that are never
/// read, and a uniform that says 0 targets.
pub(super) struct NoMorphs {
    pub(super) deltas: wgpu::Buffer,
    pub(super) uniform: wgpu::Buffer,
}

impl NoMorphs {
    pub(super) fn new(device: &wgpu::Device) -> NoMorphs {
        NoMorphs {
            deltas: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("no morph deltas"),
                contents: &[0; 16],
                usage: wgpu::BufferUsages::STORAGE,
            }),
            uniform: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("no morph weights"),
                contents: bytemuck::bytes_of(&MorphUniform::empty()),
                usage: wgpu::BufferUsages::UNIFORM,
            }),
        }
    }
}

impl GpuMorphs {
    /// The deltas of `mesh` uploaded, with its uniform; nothing for a mesh without targets. A
    /// mesh whose deltas pass `max_bytes` (the device's storage binding and buffer limits) is
    /// drawn without them, with a diagnostic; one with more targets than a frame draws is
    /// reported.
    pub(super) fn upload(
        device: &wgpu::Device,
        mesh: &SkinnedMesh,
        max_bytes: u64,
        diagnostics: &mut Diagnostics,
    ) -> GpuMorphs {
        let none = GpuMorphs {
            deltas: None,
            uniform: None,
            info: MorphInfo {
                vertices: 0,
                normals: None,
            },
        };
        let targets = mesh.morph_targets.len();
        if targets == 0 {
            return none;
        }
        let vertices = mesh.positions.len();
        let with_normals = mesh.morph_targets.iter().any(|t| !t.normals.is_empty());
        let per_target = vertices.saturating_mul(if with_normals { 6 } else { 3 });
        let floats = targets.saturating_mul(per_target);
        let bytes = (floats as u64).saturating_mul(4);
        let normals_at = u32::try_from(targets.saturating_mul(vertices).saturating_mul(3)).ok();
        let (Some(vertex_count), Some(normals_at)) = (u32::try_from(vertices).ok(), normals_at)
        else {
            return none;
        };
        if bytes > max_bytes {
            diagnostics.warn(
                "MORPH_TARGETS_NOT_DRAWN",
                "",
                format!(
                    "mesh {:?}: {targets} morph targets of {vertices} vertices need {bytes} bytes, more than the GPU binds ({max_bytes}): drawn at its base shape",
                    mesh.name
                ),
            );
            return none;
        }
        if targets > MAX_ACTIVE {
            diagnostics.info(
                "MORPH_TARGETS_LIMITED",
                "",
                format!(
                    "mesh {:?} has {targets} morph targets: a frame draws at most {MAX_ACTIVE} with a non-zero weight (the largest by |weight| when more)",
                    mesh.name
                ),
            );
        }
        // Each target's deltas, exactly one per vertex (zeros where a target has none).
        let mut data: Vec<f32> = Vec::with_capacity(floats);
        let mut put = |deltas: &[[f32; 3]]| {
            let end = data.len() + vertices * 3;
            data.extend(deltas.iter().take(vertices).flatten());
            data.resize(end, 0.0);
        };
        for target in &mesh.morph_targets {
            put(&target.positions);
        }
        if with_normals {
            for target in &mesh.morph_targets {
                put(&target.normals);
            }
        }
        let deltas = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("morph deltas"),
            contents: bytemuck::cast_slice(&data),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("morph weights"),
            size: std::mem::size_of::<MorphUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        GpuMorphs {
            deltas: Some(deltas),
            uniform: Some(uniform),
            info: MorphInfo {
                vertices: vertex_count,
                normals: with_normals.then_some(normals_at),
            },
        }
    }

    /// Writes this frame's targets for `weights` (the mesh's weights in the pose); nothing
    /// for a mesh drawn without targets.
    pub(super) fn write(&self, queue: &wgpu::Queue, weights: &[f32]) {
        let Some(uniform) = &self.uniform else { return };
        let mut out = MorphUniform::empty();
        let drawn = active(weights);
        for (k, (t, w)) in drawn.iter().enumerate() {
            if let (Some(tv), Some(wv)) = (out.targets.get_mut(k / 4), out.weights.get_mut(k / 4)) {
                tv[k % 4] = *t;
                wv[k % 4] = *w;
            }
        }
        out.info = [
            u32::try_from(drawn.len().min(MAX_ACTIVE)).unwrap_or(0),
            self.info.vertices,
            u32::from(self.info.normals.is_some()),
            self.info.normals.unwrap_or(0),
        ];
        queue.write_buffer(uniform, 0, bytemuck::bytes_of(&out));
    }
}
