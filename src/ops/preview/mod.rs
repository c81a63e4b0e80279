//! `humanoid preview`: a character (and its motion) rendered headless to PNG or GIF, so that a
//! converted or retargeted character can be checked at a glance, with or without a GPU.
//!
//! One job per module:
//!
//! - [`scene`]: what is drawn, from the canonical model ([`Character`]: meshes, materials,
//!   skeleton, sockets, the clip; poses through [`crate::pose::fk`]);
//! - [`morph`]: each mesh's morph weights at a time (defaults, or the clip's `weights` track),
//!   the targets a frame draws, a morphed vertex on the CPU;
//! - [`camera`]: framing from the bounds, front / side / three-quarter views;
//! - [`overlay`]: the skeleton (coloured by body part, unmapped joints grey) and sockets, in
//!   pixels;
//! - [`gpu`]: the wgpu renderer (skinning in the vertex shader, Lambert lighting, ground grid,
//!   depth, MSAA), read back to an [`Image`];
//! - [`cpu`]: the tiny-skia skeleton drawing used without a GPU;
//! - [`texture`]: decoding base-colour textures; [`image`]: PNG, GIF, contact sheets and
//!   side-by-side pictures.
//!
//! [`preview`] ties them together: one picture, an animated GIF, a contact sheet, or two
//! characters side by side (`compare`).

pub mod camera;
pub mod cpu;
pub mod gpu;
pub mod image;
mod materials;
pub mod morph;
pub mod overlay;
pub mod scene;
pub mod texture;

use std::path::{Path, PathBuf};

use glam::Vec3;

pub use camera::{Bounds, Camera, View};
pub use gpu::{Backend, Ground, Layers, Renderer};
pub use image::Image;
pub use scene::{Character, LoadOptions, Pose};

use crate::error::{Diagnostics, Error};
use crate::math::num::{saturating_u16, saturating_u32};

pub use crate::ops::frame_plan::{Frames, MAX_FRAMES, MAX_HELD_BYTES};

/// What [`preview`] draws and how.
#[derive(Debug, Clone)]
pub struct PreviewOptions {
    /// Play this file's clip, retargeted onto the character.
    pub anim: Option<PathBuf>,
    /// The clip (`None`: the first).
    pub clip: Option<String>,
    /// A still picture's time in seconds (`None`: 0 when a clip plays, else the rest pose).
    pub time: Option<f32>,
    /// Where the camera looks from.
    pub view: View,
    /// Picture width (each panel's, side by side).
    pub width: u32,
    /// Picture height.
    pub height: u32,
    /// Frames of a GIF or contact sheet (`None`: 15 per second for a GIF, 8 for a sheet).
    pub frames: Option<Frames>,
    /// A PNG output holds a contact sheet of frames instead of one picture.
    pub sheet: bool,
    /// Draw this character too, to the right, playing the same clip retargeted onto it.
    pub compare: Option<PathBuf>,
    /// The graphics API.
    pub backend: Backend,
    /// Draw the skeleton on the CPU, without a GPU (no meshes).
    pub skeleton_only: bool,
    /// Whether the skeleton and socket overlay is drawn over the meshes.
    pub skeleton: SkeletonOverlay,
    /// Replace an existing output file.
    pub force: bool,
}

/// Whether a GPU picture draws the skeleton and sockets over the character.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SkeletonOverlay {
    /// Over a character with no mesh (a BVH, a bare rig) only: a character with meshes is
    /// drawn as it looks, its face uncovered.
    #[default]
    Auto,
    /// Always (the bones over the meshes, to check a rig).
    On,
    /// Never (a character with no mesh then shows only the ground).
    Off,
}

impl SkeletonOverlay {
    /// Whether the overlay is drawn over a character with (`has_meshes`) or without meshes.
    ///
    /// ```
    /// use humanoid::preview::SkeletonOverlay;
    /// assert!(!SkeletonOverlay::Auto.drawn(true));
    /// assert!(SkeletonOverlay::Auto.drawn(false));
    /// assert!(SkeletonOverlay::On.drawn(true));
    /// ```
    pub fn drawn(self, has_meshes: bool) -> bool {
        match self {
            SkeletonOverlay::Auto => !has_meshes,
            SkeletonOverlay::On => true,
            SkeletonOverlay::Off => false,
        }
    }
}

impl Default for PreviewOptions {
    fn default() -> Self {
        PreviewOptions {
            anim: None,
            clip: None,
            time: None,
            view: View::Front,
            width: 512,
            height: 512,
            frames: None,
            sheet: false,
            compare: None,
            backend: Backend::Auto,
            skeleton_only: false,
            skeleton: SkeletonOverlay::Auto,
            force: false,
        }
    }
}

/// What [`preview`] did.
#[derive(Debug, Clone)]
pub struct PreviewReport {
    /// The adapter that rendered (`None`: the CPU skeleton drawing).
    pub adapter: Option<String>,
    /// Pictures rendered (per panel).
    pub frames: usize,
    /// Bytes written.
    pub bytes: u64,
    /// What was dropped or found along the way.
    pub diagnostics: Diagnostics,
}

/// A character with the camera and ground it is drawn with.
pub struct Panel {
    /// The character.
    pub character: Character,
    /// The camera, framed on the character over every time drawn.
    pub camera: Camera,
    /// The ground below it.
    pub ground: Ground,
}

impl Panel {
    /// Frames `character` over `times` (`None`: rest) from `view` in a `width` × `height`
    /// picture.
    pub fn new(
        character: Character,
        view: View,
        width: u32,
        height: u32,
        times: &[Option<f32>],
    ) -> Panel {
        let bounds = character.bounds(times).unwrap_or(Bounds {
            min: Vec3::new(-0.5, 0.0, -0.5),
            max: Vec3::new(0.5, 1.0, 0.5),
        });
        let camera = Camera::frame(&bounds, view, character.facing(), width, height);
        let radius = bounds.radius();
        let ground = Ground {
            centre: Vec3::new(bounds.centre().x, bounds.min.y, bounds.centre().z),
            extent: radius * 1.6,
            spacing: grid_spacing(radius),
        };
        Panel {
            character,
            camera,
            ground,
        }
    }
}

/// A grid spacing of 1, 2.5 or 5 times a power of ten, about a quarter of `radius`.
fn grid_spacing(radius: f32) -> f32 {
    let target = (radius / 4.0).max(1e-4);
    let decade = 10f32.powf(target.log10().floor());
    [1.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .min_by(|a, b| (a - target).abs().total_cmp(&(b - target).abs()))
        .unwrap_or(decade)
}

/// Draws panels: on the GPU, or the skeleton on the CPU.
pub enum Painter {
    /// The wgpu renderer.
    Gpu(Box<Renderer>),
    /// The tiny-skia skeleton drawing.
    Cpu,
}

/// A panel's character on the GPU (nothing for the CPU painter).
pub struct Uploaded(Option<gpu::GpuCharacter>);

impl Painter {
    /// The GPU painter on `backend`, or the CPU one when `skeleton_only`.
    ///
    /// # Errors
    /// No GPU adapter (see [`Renderer::new`]).
    pub fn new(backend: Backend, skeleton_only: bool) -> Result<Painter, Error> {
        if skeleton_only {
            return Ok(Painter::Cpu);
        }
        Ok(Painter::Gpu(Box::new(Renderer::new(backend)?)))
    }

    /// The adapter (`None` for the CPU painter).
    pub fn adapter(&self) -> Option<String> {
        match self {
            Painter::Gpu(r) => Some(r.adapter()),
            Painter::Cpu => None,
        }
    }

    /// Puts a panel's character where the painter needs it.
    pub fn upload(&self, panel: &Panel, diagnostics: &mut Diagnostics) -> Uploaded {
        match self {
            Painter::Gpu(r) => Uploaded(Some(r.upload(&panel.character, diagnostics))),
            Painter::Cpu => Uploaded(None),
        }
    }

    /// The panel at `time` (`None`: rest), with `layers`.
    ///
    /// # Errors
    /// The GPU picture cannot be read back.
    pub fn paint(
        &mut self,
        panel: &Panel,
        uploaded: &Uploaded,
        time: Option<f32>,
        layers: Layers,
    ) -> Result<Image, Error> {
        let pose = panel.character.pose(time);
        let overlay = if layers.overlay {
            overlay::skeleton(&panel.character, &pose, &panel.camera, true)
        } else {
            overlay::Overlay::default()
        };
        match (self, &uploaded.0) {
            (Painter::Gpu(renderer), Some(gpu)) => renderer.render(
                &panel.character,
                gpu,
                &pose,
                &panel.camera,
                &panel.ground,
                &overlay,
                layers,
            ),
            _ => {
                let grid = if layers.ground {
                    let g = &panel.ground;
                    overlay::grid(&panel.camera, g.centre, g.centre.y, g.extent, g.spacing)
                } else {
                    Vec::new()
                };
                Ok(cpu::draw(
                    panel.camera.width,
                    panel.camera.height,
                    &grid,
                    &overlay,
                ))
            }
        }
    }
}

/// What the output file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Png,
    Gif,
}

/// Renders `input` to `output` (`.png`: one picture or, with `sheet`, a contact sheet; `.gif`:
/// an animation) and writes it through a temporary file. An existing output is replaced only
/// with `force`; an input is never written to.
///
/// # Errors
/// The output is not `.png` or `.gif`, is an input, or exists (without `force`); a file cannot
/// be read; the clip does not
/// exist; a mesh is refused ([`Character::check`]); no GPU adapter and not `skeleton_only`;
/// writing fails.
pub fn preview(
    input: &Path,
    output: &Path,
    options: &PreviewOptions,
) -> Result<PreviewReport, Error> {
    let _reads = crate::io::input::read_scope(); // no output replaces a file read
    let kind = match output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("png") => Output::Png,
        Some("gif") => Output::Gif,
        _ => {
            return Err(Error::unsupported(format!(
                "{}: the preview is written as .png or .gif",
                output.display()
            )))
        }
    };
    for i in std::iter::once(input)
        .chain(options.anim.as_deref())
        .chain(options.compare.as_deref())
    {
        if same_file(i, output) {
            return Err(Error::unsupported(format!(
                "{}: the output would replace an input",
                output.display()
            )));
        }
    }
    crate::io::output::check(output, options.force)?;
    if options.width == 0 || options.height == 0 || options.width > 8192 || options.height > 8192 {
        return Err(Error::unsupported(format!(
            "a picture of {}×{} pixels: expected 1 to 8192 each way",
            options.width, options.height
        )));
    }
    let mut diagnostics = Diagnostics::new();
    let load = LoadOptions {
        anim: options.anim.clone(),
        clip: options.clip.clone(),
    };
    let left = Character::load(input, &load, &mut diagnostics)?;
    let right = match &options.compare {
        Some(other) => {
            let load = LoadOptions {
                anim: Some(options.anim.clone().unwrap_or_else(|| input.to_path_buf())),
                clip: options.clip.clone(),
            };
            Some(Character::load(other, &load, &mut diagnostics)?)
        }
        None => None,
    };
    let times = frame_times(&left, kind, options)?;
    let mut painter = Painter::new(options.backend, options.skeleton_only)?;
    let mut panels = vec![Panel::new(
        left,
        options.view,
        options.width,
        options.height,
        &times,
    )];
    if let Some(right) = right {
        panels.push(Panel::new(
            right,
            options.view,
            options.width,
            options.height,
            &times,
        ));
    }
    let uploads: Vec<Uploaded> = panels
        .iter()
        .map(|p| painter.upload(p, &mut diagnostics))
        .collect();
    // A GIF's frames are quantised while the next ones render; a PNG keeps its pictures.
    let gif = (kind == Output::Gif).then(|| {
        let duration = panels.first().map_or(0.0, |p| p.character.duration());
        image::GifStream::new(gif_delay(duration, times.len()))
    });
    let mut pictures = Vec::new();
    let mut frames = 0;
    for &t in &times {
        let mut picture: Option<Image> = None;
        for (panel, uploaded) in panels.iter().zip(&uploads) {
            let layers = Layers {
                overlay: options.skeleton.drawn(!panel.character.meshes.is_empty()),
                ..Layers::default()
            };
            let image = painter.paint(panel, uploaded, t, layers)?;
            picture = Some(match picture {
                None => image,
                Some(left) => image::side_by_side(&left, &image, gpu::BACKGROUND),
            });
        }
        if let Some(picture) = picture {
            frames += 1;
            match &gif {
                Some(stream) => stream.push(picture),
                None => pictures.push(picture),
            }
        }
    }
    let bytes = match gif {
        Some(stream) => stream.finish(),
        None if options.sheet => {
            let columns = saturating_u32((pictures.len() as f64).sqrt().ceil());
            image::encode_png(&image::contact_sheet(&pictures, columns, gpu::BACKGROUND))
        }
        None => match pictures.first() {
            Some(picture) => image::encode_png(picture),
            None => Err("no picture".to_owned()),
        },
    }
    .map_err(|e| Error::unsupported(format!("{}: encoding: {e}", output.display())))?;
    let written = crate::ops::output::write_atomically(output, &bytes)?;
    if painter.adapter().is_none() {
        diagnostics.info(
            "PREVIEW_SKELETON_ONLY",
            "",
            "drawn on the CPU: the skeleton and sockets only, no meshes",
        );
    }
    Ok(PreviewReport {
        adapter: painter.adapter(),
        frames,
        bytes: written,
        diagnostics,
    })
}

/// How long each of `frames` pictures of a `duration`-second clip shows, in hundredths of a
/// second (at least 2: viewers slow faster GIFs down).
pub fn gif_delay(duration: f32, frames: usize) -> u16 {
    if frames > 1 {
        saturating_u16(f64::from(
            (duration / frames as f32 * 100.0)
                .round()
                .clamp(2.0, 6000.0),
        ))
    } else {
        10
    }
}

/// The times drawn (see [`crate::ops::frame_plan::frame_times`]).
fn frame_times(
    character: &Character,
    kind: Output,
    options: &PreviewOptions,
) -> Result<Vec<Option<f32>>, Error> {
    crate::ops::frame_plan::frame_times(&crate::ops::frame_plan::FrameRequest {
        animated: kind == Output::Gif || options.sheet,
        sheet: options.sheet,
        duration: character.clip.is_some().then(|| character.duration()),
        time: options.time,
        frames: options.frames,
        width: options.width,
        height: options.height,
        panels: if options.compare.is_some() { 2 } else { 1 },
    })
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
