//! The CPU renderer (tiny-skia): the skeleton and sockets in 2D over the ground grid, for
//! machines where no GPU adapter (not even a software one) can be had. No meshes, no depth.

use tiny_skia::{Color, FillRule, LineCap, Paint, PathBuilder, Pixmap, Stroke, Transform};

use super::gpu::BACKGROUND;
use super::image::Image;
use super::overlay::{Line, Overlay, Rgba};

/// Draws `grid` and then `overlay` on the background, `width` × `height` pixels.
pub fn draw(width: u32, height: u32, grid: &[Line], overlay: &Overlay) -> Image {
    let Some(mut pixmap) = Pixmap::new(width.max(1), height.max(1)) else {
        return Image::filled(width, height, BACKGROUND);
    };
    let [r, g, b, a] = BACKGROUND;
    pixmap.fill(Color::from_rgba8(r, g, b, a));
    for line in grid.iter().chain(&overlay.lines) {
        let mut path = PathBuilder::new();
        path.move_to(line.a.x, line.a.y);
        path.line_to(line.b.x, line.b.y);
        if let Some(path) = path.finish() {
            let stroke = Stroke {
                width: line.width,
                line_cap: LineCap::Round,
                ..Stroke::default()
            };
            pixmap.stroke_path(
                &path,
                &paint(line.color),
                &stroke,
                Transform::identity(),
                None,
            );
        }
    }
    for dot in &overlay.dots {
        if let Some(path) = PathBuilder::from_circle(dot.at.x, dot.at.y, dot.radius) {
            pixmap.fill_path(
                &path,
                &paint(dot.color),
                FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
    }
    let (w, h) = (pixmap.width(), pixmap.height());
    Image::from_rgba(w, h, pixmap.take_demultiplied())
        .unwrap_or_else(|| Image::filled(w, h, BACKGROUND))
}

fn paint(color: Rgba) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color_rgba8(color[0], color[1], color[2], color[3]);
    paint.anti_alias = true;
    paint
}
