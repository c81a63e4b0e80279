//! Helpers for the glTF document tests: hand-built GLB files, an independent GLB splitter and
//! an ordered JSON comparison. None of them uses the code under test.
#![allow(dead_code)]

use serde_json::Value;

/// A GLB file built by hand: header, JSON chunk padded with spaces, BIN chunk padded with zeros.
pub fn glb(json: &str, bin: Option<&[u8]>) -> Vec<u8> {
    let mut json = json.as_bytes().to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut chunks = Vec::new();
    chunks.extend_from_slice(&u32::try_from(json.len()).unwrap().to_le_bytes());
    chunks.extend_from_slice(b"JSON");
    chunks.extend_from_slice(&json);
    if let Some(bin) = bin {
        let mut bin = bin.to_vec();
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        chunks.extend_from_slice(&u32::try_from(bin.len()).unwrap().to_le_bytes());
        chunks.extend_from_slice(b"BIN\0");
        chunks.extend_from_slice(&bin);
    }
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(chunks.len() + 12).unwrap().to_le_bytes());
    out.extend_from_slice(&chunks);
    out
}

/// Splits a GLB file into its JSON and BIN chunks (plain slicing: test inputs are trusted).
pub fn split_glb(bytes: &[u8]) -> (&[u8], Option<&[u8]>) {
    assert_eq!(&bytes[..4], b"glTF", "GLB magic");
    assert_eq!(
        u32::from_le_bytes(bytes[4..8].try_into().unwrap()),
        2,
        "GLB version"
    );
    let total = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    assert_eq!(total, bytes.len(), "GLB length field");
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert_eq!(&bytes[16..20], b"JSON");
    assert_eq!(json_len % 4, 0, "JSON chunk length is a multiple of 4");
    let json = &bytes[20..20 + json_len];
    let rest = &bytes[20 + json_len..];
    if rest.is_empty() {
        return (json, None);
    }
    let bin_len = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
    assert_eq!(&rest[4..8], b"BIN\0");
    assert_eq!(bin_len % 4, 0, "BIN chunk length is a multiple of 4");
    assert_eq!(rest.len(), 8 + bin_len, "nothing after the BIN chunk");
    (json, Some(&rest[8..8 + bin_len]))
}

/// Parses JSON text into an ordered value tree (serde_json with `preserve_order`).
pub fn value(text: &[u8]) -> Value {
    let text = std::str::from_utf8(text).expect("utf-8 JSON");
    serde_json::from_str(text.trim_end_matches([' ', '\0'])).expect("valid JSON")
}

/// Asserts two JSON trees are equal as values AND have the same key order in every object.
#[track_caller]
pub fn assert_same_json(expected: &Value, actual: &Value) {
    if let Err(at) = same_json(expected, actual, String::new()) {
        panic!("JSON differs at {at}");
    }
}

fn same_json(a: &Value, b: &Value, at: String) -> Result<(), String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let kx: Vec<&String> = x.keys().collect();
            let ky: Vec<&String> = y.keys().collect();
            if kx != ky {
                return Err(format!("{at}: keys {kx:?} vs {ky:?}"));
            }
            for (k, v) in x {
                same_json(v, &y[k], format!("{at}/{k}"))?;
            }
            Ok(())
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Err(format!("{at}: {} vs {} items", x.len(), y.len()));
            }
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                same_json(u, v, format!("{at}/{i}"))?;
            }
            Ok(())
        }
        // Number equality in serde_json distinguishes 1 from 1.0.
        (x, y) if x == y => Ok(()),
        (x, y) => Err(format!("{at}: {x} vs {y}")),
    }
}

/// Little-endian bytes of a list of values.
pub fn le<T: Copy, const N: usize>(values: &[T], to: fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&v| to(v)).collect()
}
