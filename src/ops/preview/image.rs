//! Pictures and their files: an 8-bit RGBA [`Image`], PNG and GIF encoders, and the layouts
//! built from several pictures (a contact sheet, pictures side by side).

/// An 8-bit RGBA picture (sRGB), rows top first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

impl Image {
    /// A picture filled with one colour.
    pub fn filled(width: u32, height: u32, color: [u8; 4]) -> Image {
        let n = width as usize * height as usize;
        Image {
            width,
            height,
            rgba: color.repeat(n),
        }
    }

    /// A picture from its bytes (`None` when there are not `width · height · 4` of them).
    pub fn from_rgba(width: u32, height: u32, rgba: Vec<u8>) -> Option<Image> {
        (rgba.len() == width as usize * height as usize * 4).then_some(Image {
            width,
            height,
            rgba,
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The bytes, RGBA, rows top first.
    pub fn rgba(&self) -> &[u8] {
        &self.rgba
    }

    /// The pixel at column `x`, row `y` (`None` outside).
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        let p = self.rgba.get(i..i + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// Copies `other` into this picture with its top-left corner at (`x`, `y`), clipped.
    pub fn blit(&mut self, other: &Image, x: u32, y: u32) {
        for row in 0..other.height {
            let ty = y + row;
            if ty >= self.height || x >= self.width {
                continue;
            }
            let w = other.width.min(self.width - x) as usize;
            let src = row as usize * other.width as usize * 4;
            let dst = (ty as usize * self.width as usize + x as usize) * 4;
            if let (Some(d), Some(s)) = (
                self.rgba.get_mut(dst..dst + w * 4),
                other.rgba.get(src..src + w * 4),
            ) {
                d.copy_from_slice(s);
            }
        }
    }
}

/// `images` in a grid of `columns` (the last row may be short), on `background`.
pub fn contact_sheet(images: &[Image], columns: u32, background: [u8; 4]) -> Image {
    let columns = columns.max(1);
    let (w, h) = images.first().map_or((1, 1), |i| (i.width(), i.height()));
    let n = u32::try_from(images.len()).unwrap_or(u32::MAX).max(1);
    let rows = n.div_ceil(columns);
    let mut sheet = Image::filled(w * columns.min(n), h * rows, background);
    for (k, image) in images.iter().enumerate() {
        let k = u32::try_from(k).unwrap_or(u32::MAX);
        sheet.blit(image, (k % columns) * w, (k / columns) * h);
    }
    sheet
}

/// Two pictures of the same height next to each other.
pub fn side_by_side(left: &Image, right: &Image, background: [u8; 4]) -> Image {
    let mut out = Image::filled(
        left.width() + right.width(),
        left.height().max(right.height()),
        background,
    );
    out.blit(left, 0, 0);
    out.blit(right, left.width(), 0);
    out
}

/// The picture as a PNG file's bytes.
///
/// # Errors
/// The encoder's message (only for an empty picture in practice).
pub fn encode_png(image: &Image) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer
        .write_image_data(&image.rgba)
        .map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// The pictures as a looping GIF, each shown `delay_cs` hundredths of a second, each frame
/// with its own 256-colour palette (NeuQuant). Frames are quantised on every core at once.
///
/// # Errors
/// The pictures differ in size, are larger than 65535 pixels across, or there are none.
pub fn encode_gif(frames: &[Image], delay_cs: u16) -> Result<Vec<u8>, String> {
    let first = frames.first().ok_or("no frames to encode")?;
    let (w, h) = (first.width, first.height);
    let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
        return Err(format!("{w}×{h}: a GIF is at most 65535 pixels across"));
    };
    if frames.iter().any(|i| (i.width, i.height) != (w, h)) {
        return Err("frames of different sizes".to_owned());
    }
    let quantise = |image: &Image| {
        let mut rgba = image.rgba.clone();
        let mut frame = gif::Frame::from_rgba_speed(w16, h16, &mut rgba, 10);
        frame.delay = delay_cs;
        frame
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(frames.len())
        .max(1);
    let chunk = frames.len().div_ceil(threads).max(1);
    let quantised: Vec<gif::Frame<'static>> = std::thread::scope(|scope| {
        let workers: Vec<_> = frames
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(quantise).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_default())
            .collect()
    });
    if quantised.len() != frames.len() {
        return Err("a frame could not be quantised".to_owned());
    }
    let mut out = Vec::new();
    {
        let mut encoder = gif::Encoder::new(&mut out, w16, h16, &[]).map_err(|e| e.to_string())?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(|e| e.to_string())?;
        for frame in &quantised {
            encoder.write_frame(frame).map_err(|e| e.to_string())?;
        }
    }
    Ok(out)
}

/// A GIF encoded while its frames are still being made: each frame pushed is quantised on a
/// worker thread at once, so quantising overlaps rendering; [`GifStream::finish`] writes the
/// file. Frames as in [`encode_gif`].
pub struct GifStream {
    frames: std::sync::mpsc::Sender<Image>,
    worker: std::thread::JoinHandle<Result<Vec<gif::Frame<'static>>, String>>,
}

impl GifStream {
    /// A stream whose frames each show `delay_cs` hundredths of a second.
    pub fn new(delay_cs: u16) -> GifStream {
        let (frames, incoming) = std::sync::mpsc::channel::<Image>();
        let worker = std::thread::spawn(move || {
            let mut out = Vec::new();
            let mut size = None;
            for image in incoming {
                let (w, h) = (image.width, image.height);
                if *size.get_or_insert((w, h)) != (w, h) {
                    return Err("frames of different sizes".to_owned());
                }
                let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
                    return Err(format!("{w}×{h}: a GIF is at most 65535 pixels across"));
                };
                let mut rgba = image.rgba;
                let mut frame = gif::Frame::from_rgba_speed(w16, h16, &mut rgba, 10);
                frame.delay = delay_cs;
                out.push(frame);
            }
            Ok(out)
        });
        GifStream { frames, worker }
    }

    /// Hands a frame to the worker.
    pub fn push(&self, image: Image) {
        // A worker that stopped (frames of different sizes) reports it in `finish`.
        let _ = self.frames.send(image);
    }

    /// Waits for the worker and writes the GIF's bytes.
    ///
    /// # Errors
    /// As [`encode_gif`].
    pub fn finish(self) -> Result<Vec<u8>, String> {
        drop(self.frames);
        let frames = self
            .worker
            .join()
            .map_err(|_| "the GIF worker failed".to_owned())??;
        let first = frames.first().ok_or("no frames to encode")?;
        let (w, h) = (first.width, first.height);
        let mut out = Vec::new();
        {
            let mut encoder = gif::Encoder::new(&mut out, w, h, &[]).map_err(|e| e.to_string())?;
            encoder
                .set_repeat(gif::Repeat::Infinite)
                .map_err(|e| e.to_string())?;
            for frame in &frames {
                encoder.write_frame(frame).map_err(|e| e.to_string())?;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sheet_puts_frames_in_rows() {
        let red = Image::filled(2, 2, [255, 0, 0, 255]);
        let blue = Image::filled(2, 2, [0, 0, 255, 255]);
        let sheet = contact_sheet(&[red.clone(), blue.clone(), red], 2, [0, 0, 0, 255]);
        assert_eq!((sheet.width(), sheet.height()), (4, 4));
        assert_eq!(sheet.pixel(3, 1), Some([0, 0, 255, 255]));
        assert_eq!(sheet.pixel(1, 3), Some([255, 0, 0, 255]));
        assert_eq!(sheet.pixel(3, 3), Some([0, 0, 0, 255]));
        let pair = side_by_side(&blue, &Image::filled(3, 2, [0, 255, 0, 255]), [0; 4]);
        assert_eq!(
            (pair.width(), pair.pixel(1, 0), pair.pixel(4, 1)),
            (5, Some([0, 0, 255, 255]), Some([0, 255, 0, 255]))
        );
    }

    #[test]
    fn a_gif_has_its_frames() {
        let frames = [
            Image::filled(4, 3, [255, 0, 0, 255]),
            Image::filled(4, 3, [0, 0, 255, 255]),
        ];
        let bytes = encode_gif(&frames, 5).unwrap();
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(bytes.as_slice()).unwrap();
        let mut seen = Vec::new();
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            seen.push((frame.delay, frame.buffer[0..4].to_vec()));
        }
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].0, 5);
        assert!(seen[0].1[0] > 240 && seen[1].1[2] > 240);
        assert!(encode_gif(&[], 5).is_err());
        let stream = GifStream::new(5);
        for frame in &frames {
            stream.push(frame.clone());
        }
        assert_eq!(stream.finish().unwrap(), bytes);
        let stream = GifStream::new(5);
        stream.push(Image::filled(2, 2, [0; 4]));
        stream.push(Image::filled(3, 2, [0; 4]));
        assert_eq!(stream.finish().unwrap_err(), "frames of different sizes");
    }
}
