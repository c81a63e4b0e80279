//! The GLB container (glTF 2.0 §4.4): a 12-byte header, a JSON chunk and an optional binary
//! (BIN) chunk.
//!
//! # Overview
//!
//! [`parse`] borrows the chunks from the input bytes (a memory map in practice): nothing is
//! copied. Every length is checked against the real data before it is used, and errors name
//! the byte offset of the field that is wrong. [`write()`] emits the header and the padded JSON in
//! one `write_all`, then the binary segments as they are (no copy), then the final zero padding.

use std::io::{self, Write};
use std::path::Path;

use crate::error::{Error, Location};

/// `glTF`, the first four bytes of a GLB file.
pub const MAGIC: [u8; 4] = *b"glTF";
/// The only GLB version this reads and writes.
pub const VERSION: u32 = 2;
/// The chunk type of the JSON chunk (`JSON` in ASCII, little-endian).
pub const CHUNK_JSON: u32 = 0x4E4F_534A;
/// The chunk type of the binary chunk (`BIN\0` in ASCII, little-endian).
pub const CHUNK_BIN: u32 = 0x004E_4942;
/// Bytes in the file header.
pub const HEADER_LEN: u64 = 12;
/// Bytes in a chunk header.
pub const CHUNK_HEADER_LEN: u64 = 8;

/// A parsed GLB file, borrowing its chunks from the input.
#[derive(Debug, Clone, Copy)]
pub struct Glb<'a> {
    /// The JSON chunk's data (padding included).
    pub json: &'a [u8],
    /// The BIN chunk's data (padding included), if there is one.
    pub bin: Option<&'a [u8]>,
    /// Byte offset of the BIN chunk's data in the file (0 without one).
    pub bin_offset: u64,
    /// Chunks of unknown type that were skipped (the spec says to ignore them).
    pub skipped_chunks: usize,
    /// Bytes after the length the header declares (ignored).
    pub trailing_bytes: u64,
}

/// Whether `bytes` start with the GLB magic.
pub fn is_glb(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

fn u32_at(bytes: &[u8], offset: u64) -> Option<u32> {
    let start = usize::try_from(offset).ok()?;
    let raw: [u8; 4] = bytes.get(start..start.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(raw))
}

fn slice(bytes: &[u8], start: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(start).ok()?;
    let len = usize::try_from(len).ok()?;
    bytes.get(start..start.checked_add(len)?)
}

/// Parses a GLB file.
///
/// # Errors
/// [`Error::Invalid`] for `file` at the byte offset of the first field that is wrong: a file
/// shorter than the header, a wrong magic or version, a declared length past the end of the
/// file, a chunk whose length runs past the end, a first chunk that is not JSON, a second BIN
/// chunk.
pub fn parse<'a>(bytes: &'a [u8], file: &Path) -> Result<Glb<'a>, Error> {
    let invalid =
        |offset: u64, message: String| Error::invalid(file, Location::Byte(offset), message);
    let actual = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if actual == 0 {
        return Err(invalid(
            0,
            "the file is empty: expected a 12-byte GLB header".to_owned(),
        ));
    }
    if actual < HEADER_LEN {
        return Err(invalid(
            0,
            format!("the file has {actual} bytes: expected at least a 12-byte GLB header"),
        ));
    }
    if !is_glb(bytes) {
        let found: String = bytes
            .get(..4)
            .unwrap_or_default()
            .iter()
            .map(|b| std::ascii::escape_default(*b).to_string())
            .collect();
        return Err(invalid(
            0,
            format!("expected the GLB magic \"glTF\" (or glTF JSON starting with '{{'), found \"{found}\""),
        ));
    }
    let version = u32_at(bytes, 4).unwrap_or(0);
    if version != VERSION {
        return Err(invalid(
            4,
            format!("GLB version {version} is not supported: expected version 2"),
        ));
    }
    let declared = u64::from(u32_at(bytes, 8).unwrap_or(0));
    if declared > actual {
        return Err(invalid(
            8,
            format!(
                "the header declares a length of {declared} bytes but the file has {actual} bytes"
            ),
        ));
    }
    if declared < HEADER_LEN + CHUNK_HEADER_LEN {
        return Err(invalid(
            8,
            format!("the header declares a length of {declared} bytes: expected at least 20 (header and JSON chunk header)"),
        ));
    }
    let end = declared;
    let mut offset = HEADER_LEN;
    let mut json = None;
    let mut bin = None;
    let mut bin_offset = 0;
    let mut skipped_chunks = 0;
    let mut index = 0usize;
    while offset < end {
        if end - offset < CHUNK_HEADER_LEN {
            return Err(invalid(
                offset,
                format!(
                    "a chunk header needs 8 bytes but only {} remain before the end of the file ({end} bytes)",
                    end - offset
                ),
            ));
        }
        let length = u64::from(u32_at(bytes, offset).unwrap_or(0));
        let kind = u32_at(bytes, offset + 4).unwrap_or(0);
        let data_start = offset + CHUNK_HEADER_LEN;
        if length > end - data_start {
            return Err(invalid(
                offset,
                format!("GLB chunk length {length} runs past the end of the file ({end} bytes)"),
            ));
        }
        let data = slice(bytes, data_start, length).ok_or_else(|| {
            invalid(
                offset,
                format!("GLB chunk length {length} runs past the end of the file"),
            )
        })?;
        match (index, kind) {
            (0, CHUNK_JSON) => json = Some(data),
            (0, other) => {
                return Err(invalid(
                    offset + 4,
                    format!(
                        "the first chunk must be JSON (type 0x4E4F534A), found type {other:#010X}"
                    ),
                ))
            }
            (_, CHUNK_JSON) => {
                return Err(invalid(
                    offset + 4,
                    "a second JSON chunk: a GLB file has exactly one".to_owned(),
                ))
            }
            (_, CHUNK_BIN) if bin.is_some() => {
                return Err(invalid(
                    offset + 4,
                    "a second BIN chunk: a GLB file has at most one".to_owned(),
                ))
            }
            (1, CHUNK_BIN) => {
                bin = Some(data);
                bin_offset = data_start;
            }
            (_, CHUNK_BIN) => {
                return Err(invalid(
                    offset + 4,
                    "the BIN chunk must be the second chunk".to_owned(),
                ))
            }
            _ => skipped_chunks += 1,
        }
        offset = data_start + length;
        index += 1;
    }
    let json = json.ok_or_else(|| invalid(HEADER_LEN, "expected a JSON chunk".to_owned()))?;
    Ok(Glb {
        json,
        bin,
        bin_offset,
        skipped_chunks,
        trailing_bytes: actual - declared,
    })
}

/// Padding that brings `len` to a multiple of 4.
pub fn padding(len: u64) -> u64 {
    (4 - len % 4) % 4
}

/// The total file length of a GLB with this JSON and binary data, or `None` when it does not
/// fit the header's 32-bit length.
pub fn total_len(json_len: u64, bin_len: Option<u64>) -> Option<u32> {
    let json_chunk = CHUNK_HEADER_LEN
        .checked_add(json_len)?
        .checked_add(padding(json_len))?;
    let bin_chunk = match bin_len {
        Some(len) => CHUNK_HEADER_LEN
            .checked_add(len)?
            .checked_add(padding(len))?,
        None => 0,
    };
    let total = HEADER_LEN.checked_add(json_chunk)?.checked_add(bin_chunk)?;
    u32::try_from(total).ok()
}

fn length_error(json_len: u64, bin_len: u64) -> Error {
    Error::unsupported(format!(
        "a GLB file is limited to 4 GiB: this one would hold {json_len} bytes of JSON and {bin_len} bytes of binary data"
    ))
}

/// The header, the JSON chunk (padded with spaces) and the BIN chunk header, ready to write.
fn head(json: &[u8], bin_len: Option<u64>) -> Result<Vec<u8>, Error> {
    let json_len = u64::try_from(json.len()).unwrap_or(u64::MAX);
    let total =
        total_len(json_len, bin_len).ok_or_else(|| length_error(json_len, bin_len.unwrap_or(0)))?;
    let json_pad = padding(json_len);
    let json_chunk_len =
        u32::try_from(json_len + json_pad).map_err(|_| length_error(json_len, 0))?;
    let mut out = Vec::with_capacity(json.len() + 32);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&total.to_le_bytes());
    out.extend_from_slice(&json_chunk_len.to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(json);
    out.extend(std::iter::repeat_n(
        b' ',
        usize::try_from(json_pad).unwrap_or(0),
    ));
    if let Some(bin_len) = bin_len {
        let padded = u32::try_from(bin_len + padding(bin_len))
            .map_err(|_| length_error(json_len, bin_len))?;
        out.extend_from_slice(&padded.to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    }
    Ok(out)
}

/// The binary chunk's contents: segments written one after another.
fn bin_len(bin: Option<&[&[u8]]>) -> Option<u64> {
    bin.map(|segments| {
        segments
            .iter()
            .map(|s| u64::try_from(s.len()).unwrap_or(u64::MAX))
            .fold(0u64, u64::saturating_add)
    })
}

/// Writes a GLB file: header and JSON (space-padded) in one `write_all`, then each binary
/// segment as it is, then the BIN chunk's zero padding. `bin: None` writes no BIN chunk.
/// Returns the number of bytes written.
///
/// # Errors
/// [`Error::Unsupported`] when the file would exceed 4 GiB; the writer's error otherwise
/// (the caller names the file).
pub fn write<W: Write>(out: &mut W, json: &[u8], bin: Option<&[&[u8]]>) -> Result<u64, WriteError> {
    let bin_len = bin_len(bin);
    let head = head(json, bin_len).map_err(WriteError::Format)?;
    out.write_all(&head).map_err(WriteError::Io)?;
    let mut written = u64::try_from(head.len()).unwrap_or(u64::MAX);
    if let (Some(segments), Some(len)) = (bin, bin_len) {
        for segment in segments {
            out.write_all(segment).map_err(WriteError::Io)?;
        }
        let pad = [0u8; 3];
        let pad_len = usize::try_from(padding(len)).unwrap_or(0);
        out.write_all(pad.get(..pad_len).unwrap_or_default())
            .map_err(WriteError::Io)?;
        written = written.saturating_add(len).saturating_add(padding(len));
    }
    Ok(written)
}

/// A GLB file in memory (see [`write()`]).
///
/// # Errors
/// [`Error::Unsupported`] when the file would exceed 4 GiB.
pub fn to_vec(json: &[u8], bin: Option<&[&[u8]]>) -> Result<Vec<u8>, Error> {
    let total = total_len(u64::try_from(json.len()).unwrap_or(u64::MAX), bin_len(bin)).ok_or_else(
        || {
            length_error(
                u64::try_from(json.len()).unwrap_or(u64::MAX),
                bin_len(bin).unwrap_or(0),
            )
        },
    )?;
    let mut out = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    match write(&mut out, json, bin) {
        Ok(_) => Ok(out),
        Err(WriteError::Format(e)) => Err(e),
        Err(WriteError::Io(e)) => Err(Error::unsupported(format!(
            "cannot build the GLB in memory: {e}"
        ))),
    }
}

/// Why [`write()`] failed.
#[derive(Debug)]
pub enum WriteError {
    /// The data does not fit a GLB file.
    Format(Error),
    /// The writer failed.
    Io(io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_reads_back() {
        let bytes = to_vec(b"{}", Some(&[b"abc", b"de"])).unwrap();
        // 12 header + 8 + 4 (json "{}" + 2 spaces) + 8 + 8 (5 bytes + 3 zeros)
        assert_eq!(bytes.len(), 40);
        assert_eq!(&bytes[20..24], b"{}  ");
        let glb = parse(&bytes, Path::new("t.glb")).unwrap();
        assert_eq!(glb.json, b"{}  ");
        assert_eq!(glb.bin, Some(&b"abcde\0\0\0"[..]));
        assert_eq!(glb.bin_offset, 32);
    }

    #[test]
    fn chunk_past_end() {
        let mut bytes = to_vec(b"{}", None).unwrap();
        bytes[12..16].copy_from_slice(&4000u32.to_le_bytes());
        let err = parse(&bytes, Path::new("t.glb")).unwrap_err().to_string();
        assert_eq!(
            err,
            "t.glb: byte 12: GLB chunk length 4000 runs past the end of the file (24 bytes)"
        );
    }
}
