//! Decoding a material's encoded image (PNG or JPEG) to 8-bit RGBA for the GPU.

use crate::model::mesh::Image as EncodedImage;

use super::image::Image;

/// The most pixels a texture may have once decoded (64 Mpx); larger images are refused.
const MAX_PIXELS: u64 = 1 << 26;

/// Decodes `image` to RGBA (sRGB colour, straight alpha).
///
/// # Errors
/// A message saying why it cannot be decoded: an unsupported type (KTX2, WebP, ...), bytes that
/// are not a valid PNG or JPEG, an image too large.
pub fn decode(image: &EncodedImage) -> Result<Image, String> {
    let bytes: &[u8] = &image.bytes;
    let kind = if bytes.starts_with(b"\x89PNG") {
        "png"
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        "jpeg"
    } else {
        match image.mime_type.as_str() {
            "image/png" => "png",
            "image/jpeg" => "jpeg",
            "" => return Err("neither a PNG nor a JPEG image".to_owned()),
            other => {
                return Err(format!(
                    "{other} images cannot be decoded (PNG and JPEG can)"
                ))
            }
        }
    };
    match kind {
        "png" => decode_png(bytes),
        _ => decode_jpeg(bytes),
    }
}

fn decode_png(bytes: &[u8]) -> Result<Image, String> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| format!("PNG: {e}"))?;
    let (width, height) = (reader.info().width, reader.info().height);
    check_size(width, height)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| "PNG: image too large".to_owned())?;
    let mut buffer = vec![0; size];
    let info = reader
        .next_frame(&mut buffer)
        .map_err(|e| format!("PNG: {e}"))?;
    let pixels = buffer.get(..info.buffer_size()).unwrap_or_default();
    let rgba = match info.color_type {
        png::ColorType::Rgba => pixels.to_vec(),
        png::ColorType::Rgb => pixels
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => pixels
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => pixels.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err("PNG: palette not expanded".to_owned()),
    };
    Image::from_rgba(info.width, info.height, rgba).ok_or_else(|| "PNG: short image".to_owned())
}

fn decode_jpeg(bytes: &[u8]) -> Result<Image, String> {
    let mut decoder = jpeg_decoder::Decoder::new(std::io::Cursor::new(bytes));
    decoder.read_info().map_err(|e| format!("JPEG: {e}"))?;
    let info = decoder
        .info()
        .ok_or_else(|| "JPEG: no image information".to_owned())?;
    check_size(u32::from(info.width), u32::from(info.height))?;
    let pixels = decoder.decode().map_err(|e| format!("JPEG: {e}"))?;
    let rgba: Vec<u8> = match info.pixel_format {
        jpeg_decoder::PixelFormat::RGB24 => pixels
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        jpeg_decoder::PixelFormat::L8 => pixels.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        jpeg_decoder::PixelFormat::L16 => pixels
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], 255])
            .collect(),
        jpeg_decoder::PixelFormat::CMYK32 => pixels
            .chunks_exact(4)
            .flat_map(|p| {
                let k = u16::from(p[3]);
                let c = |v: u8| u8::try_from(u16::from(v) * k / 255).unwrap_or(255);
                [c(p[0]), c(p[1]), c(p[2]), 255]
            })
            .collect(),
    };
    Image::from_rgba(u32::from(info.width), u32::from(info.height), rgba)
        .ok_or_else(|| "JPEG: short image".to_owned())
}

fn check_size(width: u32, height: u32) -> Result<(), String> {
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(format!(
            "{width}×{height} pixels: expected 1 to {MAX_PIXELS} pixels"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_refused_with_a_reason() {
        let encoded = |mime_type: &str, bytes: &[u8]| EncodedImage {
            name: "test".into(),
            mime_type: mime_type.into(),
            bytes: bytes.into(),
        };
        let image = encoded("image/png", b"\x89PNG\r\n\x1a\nnot really");
        assert!(decode(&image).unwrap_err().starts_with("PNG: "));
        let image = encoded("image/ktx2", &[0xAB, 0x4B]);
        assert!(decode(&image).unwrap_err().contains("image/ktx2"));
    }

    #[test]
    fn a_png_written_by_the_encoder_decodes_to_its_pixels() {
        let image = Image::from_rgba(2, 1, vec![10, 20, 30, 255, 40, 50, 60, 128]).unwrap();
        let png = super::super::image::encode_png(&image).unwrap();
        let decoded = decode(&EncodedImage {
            name: "test".into(),
            mime_type: String::new(),
            bytes: png.into(),
        })
        .unwrap();
        assert_eq!(decoded, image);
    }
}
