//! The URIs a document refers to (glTF buffers and images, H-Anim `ImageTexture` urls):
//! `data:` URIs and relative references to files beside the document.
//!
//! # Overview
//!
//! [`parse`] sorts a URI into a [`Uri::Data`] (decoded: base64 or percent-encoded, any mime
//! type) or a [`Uri::Relative`] path, percent-decoded and normalised. A reference that could
//! leave the input's folder is refused: an absolute path, any scheme (`file:`, `http:`, a
//! drive letter), or `..` climbing above the folder. [`resolve`] joins a relative path to the
//! folder and refuses a symbolic link that leads outside it.

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;

/// A buffer's or image's URI, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Uri {
    /// A `data:` URI.
    Data {
        /// The media type (`application/octet-stream` when the URI names none).
        mime_type: String,
        /// The decoded bytes.
        bytes: Vec<u8>,
    },
    /// A relative reference: a normalised path with `/` separators, no `.` or `..` segments.
    Relative(String),
}

/// Base64 that accepts padded and unpadded input.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Whether `uri` is a `data:` URI (without decoding it).
pub fn is_data(uri: &str) -> bool {
    uri.get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
}

/// Decodes a URI.
///
/// # Errors
/// A message (the caller adds the file and JSON pointer) when a `data:` URI is malformed or a
/// reference is absolute, has a scheme, escapes its folder or is not valid percent-encoded
/// UTF-8.
pub fn parse(uri: &str) -> Result<Uri, String> {
    if is_data(uri) {
        return parse_data(uri);
    }
    if let Some(scheme) = scheme(uri) {
        return Err(format!(
            "{} refers outside the input's folder (scheme {scheme:?}): expected a data: URI or a relative path",
            shorten(uri)
        ));
    }
    let path = uri.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path)?;
    normalise(&decoded).map(Uri::Relative).map_err(|why| {
        format!(
            "{} {why}: expected a relative path inside the input's folder",
            shorten(uri)
        )
    })
}

/// The URI's scheme, if it has one (`http`, `file`, or a Windows drive letter such as `C`).
fn scheme(uri: &str) -> Option<&str> {
    let colon = uri.find(':')?;
    let candidate = uri.get(..colon)?;
    if uri.find(['/', '?', '#']).is_some_and(|slash| slash < colon) {
        return None;
    }
    let mut chars = candidate.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then_some(candidate)
}

fn parse_data(uri: &str) -> Result<Uri, String> {
    let rest = uri.get(5..).unwrap_or("");
    let (header, payload) = rest.split_once(',').ok_or_else(|| {
        "a data: URI without a comma: expected data:[<mime type>][;base64],<data>".to_owned()
    })?;
    let (media, base64) = match header.strip_suffix(";base64") {
        Some(media) => (media, true),
        None => (header, false),
    };
    let mime_type = match media.split(';').next().unwrap_or("") {
        "" => "application/octet-stream".to_owned(),
        m => m.to_owned(),
    };
    let bytes = if base64 {
        BASE64
            .decode(payload.trim_end())
            .map_err(|e| format!("a data: URI with invalid base64 ({e})"))?
    } else {
        percent_decode_bytes(payload)?
    };
    Ok(Uri::Data { mime_type, bytes })
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

fn percent_decode_bytes(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let pair = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            );
            match pair {
                (Some(hi), Some(lo)) => out.push(hi * 16 + lo),
                _ => {
                    return Err(format!(
                        "invalid percent-encoding at character {i} of {}: expected % and two hex digits",
                        shorten(text)
                    ))
                }
            }
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    Ok(out)
}

/// Percent-decodes a URI path into UTF-8 text.
///
/// # Errors
/// A malformed `%XX` escape or bytes that are not UTF-8.
pub fn percent_decode(text: &str) -> Result<String, String> {
    String::from_utf8(percent_decode_bytes(text)?)
        .map_err(|_| format!("{} does not decode to UTF-8 text", shorten(text)))
}

/// Percent-encodes a relative path for a `uri` (unreserved characters and `/` stay).
pub fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn normalise(path: &str) -> Result<String, &'static str> {
    if path.is_empty() {
        return Err("is empty");
    }
    if path.starts_with(['/', '\\']) {
        return Err("is an absolute path");
    }
    if path.contains('\0') {
        return Err("contains a NUL character");
    }
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split(['/', '\\']) {
        match segment {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err("climbs out of the input's folder");
                }
            }
            s => {
                if parts.is_empty() && s.contains(':') {
                    return Err("names a drive or scheme");
                }
                parts.push(s);
            }
        }
    }
    if parts.is_empty() {
        return Err("names the folder itself");
    }
    Ok(parts.join("/"))
}

/// Joins a normalised relative path (from [`parse`]) to `base_dir` and checks that the file,
/// once symbolic links are followed, is still inside `base_dir`.
///
/// # Errors
/// A message when the path leads outside `base_dir` through a symbolic link.
pub fn resolve(base_dir: &Path, relative: &str) -> Result<PathBuf, String> {
    let path = relative
        .split('/')
        .fold(base_dir.to_path_buf(), |path, part| path.join(part));
    if let (Ok(real), Ok(base)) = (path.canonicalize(), base_dir.canonicalize()) {
        if !real.starts_with(&base) {
            return Err(format!(
                "{relative:?} leads outside the input's folder (to {}) through a symbolic link",
                real.display()
            ));
        }
    }
    Ok(path)
}

/// The image mime type a file extension implies (`png`, `jpg`/`jpeg`, `webp`, `ktx2`, ...).
pub fn image_mime_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "ktx2" => "image/ktx2",
        "avif" => "image/avif",
        "gif" => "image/gif",
        "dds" => "image/vnd-ms.dds",
        _ => return None,
    })
}

/// The image mime type the first bytes of an encoded image show (PNG, JPEG, GIF, WebP), for an
/// image whose name or `data:` header says nothing or says something else.
pub fn sniff_image_mime_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else {
        None
    }
}

/// How many bytes a `data:` URI decodes to (exact for well-formed base64 and
/// percent-encoding), counted before decoding, so a size limit can be checked first.
pub fn data_decoded_len(uri: &str) -> usize {
    let Some((header, payload)) = uri.split_once(',') else {
        return 0;
    };
    if header.ends_with(";base64") {
        let payload = payload.trim_end();
        let pads = payload.bytes().rev().take_while(|b| *b == b'=').count();
        payload.len().saturating_sub(pads).saturating_mul(3) / 4
    } else {
        let escapes = payload.bytes().filter(|b| *b == b'%').count();
        payload.len().saturating_sub(escapes.saturating_mul(2))
    }
}

/// At most 60 characters of a URI, quoted, for messages (data URIs can be megabytes long).
pub fn shorten(uri: &str) -> String {
    match uri.char_indices().nth(60) {
        Some((cut, _)) => format!("{:?}…", uri.get(..cut).unwrap_or("")),
        None => format!("{uri:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_uri_sizes_are_counted_before_decoding() {
        assert_eq!(
            data_decoded_len("data:image/png;base64,iVBORw0KGgoBAgM="),
            11
        );
        assert_eq!(data_decoded_len("data:;base64,AAEC"), 3);
        assert_eq!(data_decoded_len("data:;base64,AA=="), 1);
        assert_eq!(data_decoded_len("data:image/png,%89PNG%0D%0A"), 6);
        assert_eq!(data_decoded_len("data:nothing"), 0);
    }

    #[test]
    fn data_uris() {
        assert_eq!(
            parse("data:application/gltf-buffer;base64,AAEC").unwrap(),
            Uri::Data {
                mime_type: "application/gltf-buffer".into(),
                bytes: vec![0, 1, 2]
            }
        );
        assert_eq!(
            parse("data:,a%20b").unwrap(),
            Uri::Data {
                mime_type: "application/octet-stream".into(),
                bytes: b"a b".to_vec()
            }
        );
        assert!(parse("data:;base64,@@").is_err());
    }

    #[test]
    fn relative_paths() {
        assert_eq!(parse("a%20b.bin").unwrap(), Uri::Relative("a b.bin".into()));
        assert_eq!(
            parse("./x/../y/z.bin").unwrap(),
            Uri::Relative("y/z.bin".into())
        );
        for bad in [
            "../../etc/passwd",
            "x/../../a",
            "/etc/passwd",
            "%2Fetc%2Fpasswd",
            "file:///etc/passwd",
            "http://example.com/a.bin",
            "C:/x.bin",
            "..%2Fa",
            "",
            "%zz",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert_eq!(percent_encode("a b/c%.bin"), "a%20b/c%25.bin");
    }

    #[test]
    fn image_types_from_their_bytes() {
        assert_eq!(
            sniff_image_mime_type(b"\x89PNG\r\n\x1a\n\0\0"),
            Some("image/png")
        );
        assert_eq!(
            sniff_image_mime_type(&[0xff, 0xd8, 0xff, 0xe0]),
            Some("image/jpeg")
        );
        assert_eq!(
            sniff_image_mime_type(b"RIFF\0\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
        assert_eq!(sniff_image_mime_type(b"GIF89a"), Some("image/gif"));
        assert_eq!(sniff_image_mime_type(b"<svg"), None);
    }
}
