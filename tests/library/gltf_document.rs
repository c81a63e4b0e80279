//! The glTF document layer: JSON model, GLB container, URIs, validation, accessors, writers.
//!
//! Expected values come from hand calculation and glTF 2.0's rules (and, in the corpus tests,
//! from the `gltf` crate as an independent reader), never from the code under test. Inputs are
//! built here by hand; only `corpus` (feature `corpus`) reads `../shared`.

mod support;

#[cfg(feature = "corpus")]
mod corpus;

use std::path::Path;
use std::time::{Duration, Instant};

use humanoid::formats::gltf::json::{Float, Index};
use humanoid::formats::gltf::{accessor, Container, Document};
use humanoid::Error;
use proptest::prelude::*;
use support::{assert_same_json, glb, le, split_glb, value};

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

/// A GLB document with one buffer (the BIN chunk) and the given extra root properties.
fn glb_doc(body: &str, bin: &[u8]) -> Result<Document, Error> {
    let text = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],{body}}}"#,
        bin.len()
    );
    Document::from_slice(&glb(&text, Some(bin)), "test.glb", None)
}

#[track_caller]
fn error_text(result: Result<Document, Error>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[track_caller]
fn assert_close(actual: &[f32], expected: &[f32]) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() <= 1e-7, "{actual:?} vs {expected:?}");
    }
}

fn f32s(values: &[f32]) -> Vec<u8> {
    le(values, f32::to_le_bytes)
}

// ---------------------------------------------------------------------------------------------
// accessors, hand-made buffers (glTF 2.0 §3.11 for normalized values)
// ---------------------------------------------------------------------------------------------

fn scalar_doc(component: u32, normalized: bool, bin: &[u8], count: usize) -> Document {
    let body = format!(
        r#""bufferViews":[{{"buffer":0,"byteLength":{}}}],"accessors":[{{"bufferView":0,"componentType":{component},"normalized":{normalized},"count":{count},"type":"SCALAR"}}]"#,
        bin.len()
    );
    glb_doc(&body, bin).unwrap()
}

#[test]
fn normalized_i8() {
    let bin = le(&[127i8, -127, -128, 64, 0], i8::to_le_bytes);
    let doc = scalar_doc(5120, true, &bin, 5);
    let values = accessor::read_f32(&doc, Index::new(0)).unwrap();
    // max(c / 127, -1): -128 clamps to -1.
    assert_close(&values, &[1.0, -1.0, -1.0, 0.503_937, 0.0]);
    let raw = accessor::read_f32(&scalar_doc(5120, false, &bin, 5), Index::new(0)).unwrap();
    assert_eq!(raw, [127.0, -127.0, -128.0, 64.0, 0.0]);
}

#[test]
fn normalized_u8() {
    let doc = scalar_doc(5121, true, &[255, 0, 51, 128], 4);
    let values = accessor::read_f32(&doc, Index::new(0)).unwrap();
    assert_close(&values, &[1.0, 0.0, 0.2, 0.501_960_8]);
}

#[test]
fn normalized_i16() {
    let bin = le(&[32767i16, -32768, -16384, 0], i16::to_le_bytes);
    let doc = scalar_doc(5122, true, &bin, 4);
    let values = accessor::read_f32(&doc, Index::new(0)).unwrap();
    assert_close(&values, &[1.0, -1.0, -0.500_015_26, 0.0]);
    let raw = accessor::read_f32(&scalar_doc(5122, false, &bin, 4), Index::new(0)).unwrap();
    assert_eq!(raw, [32767.0, -32768.0, -16384.0, 0.0]);
}

#[test]
fn normalized_u16() {
    let bin = le(&[65535u16, 0, 13107, 32768], u16::to_le_bytes);
    let doc = scalar_doc(5123, true, &bin, 4);
    let values = accessor::read_f32(&doc, Index::new(0)).unwrap();
    assert_close(&values, &[1.0, 0.0, 0.2, 0.500_007_6]);
}

#[test]
fn byte_stride_and_offset() {
    // Two VEC3 floats every 16 bytes, a filler float after each.
    let bin = f32s(&[1.0, 2.0, 3.0, 99.0, 4.0, 5.0, 6.0, 99.0]);
    let body = r#""bufferViews":[{"buffer":0,"byteLength":32,"byteStride":16}],
        "accessors":[
          {"bufferView":0,"componentType":5126,"count":2,"type":"VEC3"},
          {"bufferView":0,"byteOffset":4,"componentType":5126,"count":2,"type":"VEC2"}]"#;
    let doc = glb_doc(body, &bin).unwrap();
    assert_eq!(
        accessor::read_f32(&doc, Index::new(0)).unwrap(),
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
    assert_eq!(
        accessor::read_f32(&doc, Index::new(1)).unwrap(),
        [2.0, 3.0, 5.0, 6.0]
    );
}

#[test]
fn strided_normalized_u8_vec2() {
    let bin = [255, 0, 7, 7, 0, 255, 7, 7];
    let body = r#""bufferViews":[{"buffer":0,"byteLength":8,"byteStride":4}],
        "accessors":[{"bufferView":0,"componentType":5121,"normalized":true,"count":2,"type":"VEC2"}]"#;
    let doc = glb_doc(body, &bin).unwrap();
    assert_eq!(
        accessor::read_f32(&doc, Index::new(0)).unwrap(),
        [1.0, 0.0, 0.0, 1.0]
    );
}

#[test]
fn matrix_columns_are_padded() {
    // MAT2 of bytes: each 2-byte column starts on a 4-byte boundary (glTF 2.0 §3.6.2.4).
    let bin = [1, 2, 0xEE, 0xEE, 3, 4, 0xEE, 0xEE];
    let body = r#""bufferViews":[{"buffer":0,"byteLength":8}],
        "accessors":[{"bufferView":0,"componentType":5121,"count":1,"type":"MAT2"}]"#;
    let doc = glb_doc(body, &bin).unwrap();
    assert_eq!(
        accessor::read_f32(&doc, Index::new(0)).unwrap(),
        [1.0, 2.0, 3.0, 4.0]
    );
}

#[test]
fn sparse_over_buffer_view() {
    let mut bin = f32s(&[1.0, 2.0, 3.0, 4.0]); // 0..16 base
    bin.extend(le(&[1u16, 3], u16::to_le_bytes)); // 16..20 indices
    bin.extend(f32s(&[10.0, 30.0])); // 20..28 values
    let body = r#""bufferViews":[
          {"buffer":0,"byteLength":16},
          {"buffer":0,"byteOffset":16,"byteLength":4},
          {"buffer":0,"byteOffset":20,"byteLength":8}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":4,"type":"SCALAR",
          "sparse":{"count":2,"indices":{"bufferView":1,"componentType":5123},"values":{"bufferView":2}}}]"#;
    let doc = glb_doc(body, &bin).unwrap();
    assert_eq!(
        accessor::read_f32(&doc, Index::new(0)).unwrap(),
        [1.0, 10.0, 3.0, 30.0]
    );
}

#[test]
fn sparse_over_zeros() {
    let mut bin = vec![2u8, 0, 0, 0]; // index 2, padded
    bin.extend(f32s(&[5.0, 6.0]));
    let body = r#""bufferViews":[
          {"buffer":0,"byteLength":1},
          {"buffer":0,"byteOffset":4,"byteLength":8}],
        "accessors":[{"componentType":5126,"count":4,"type":"VEC2",
          "sparse":{"count":1,"indices":{"bufferView":0,"componentType":5121},"values":{"bufferView":1}}}]"#;
    let doc = glb_doc(body, &bin).unwrap();
    assert_eq!(
        accessor::read_f32(&doc, Index::new(0)).unwrap(),
        [0.0, 0.0, 0.0, 0.0, 5.0, 6.0, 0.0, 0.0]
    );
}

#[test]
fn sparse_index_out_of_range_is_an_error() {
    let mut bin = vec![7u8, 0, 0, 0];
    bin.extend(f32s(&[5.0]));
    let body = r#""bufferViews":[
          {"buffer":0,"byteLength":1},
          {"buffer":0,"byteOffset":4,"byteLength":4}],
        "accessors":[{"componentType":5126,"count":4,"type":"SCALAR",
          "sparse":{"count":1,"indices":{"bufferView":0,"componentType":5121},"values":{"bufferView":1}}}]"#;
    let doc = glb_doc(body, &bin).unwrap();
    let err = accessor::read_f32(&doc, Index::new(0))
        .unwrap_err()
        .to_string();
    assert!(err.contains("JSON /accessors/0/sparse/indices"), "{err}");
    assert!(
        err.contains("sparse index 7") && err.contains("expected less than count 4"),
        "{err}"
    );
}

#[test]
fn unsigned_integers() {
    let mut bin = vec![1u8, 2, 3, 4];
    bin.extend(le(&[500u16, 65535], u16::to_le_bytes));
    bin.extend(le(&[70000u32], u32::to_le_bytes));
    let body = r#""bufferViews":[
          {"buffer":0,"byteLength":4},{"buffer":0,"byteOffset":4,"byteLength":4},
          {"buffer":0,"byteOffset":8,"byteLength":4}],
        "accessors":[
          {"bufferView":0,"componentType":5121,"count":1,"type":"VEC4"},
          {"bufferView":1,"componentType":5123,"count":2,"type":"SCALAR"},
          {"bufferView":2,"componentType":5125,"count":1,"type":"SCALAR"},
          {"bufferView":0,"componentType":5120,"count":4,"type":"SCALAR"},
          {"bufferView":2,"componentType":5126,"count":1,"type":"SCALAR"}]"#;
    let doc = glb_doc(body, &bin).unwrap();
    assert_eq!(
        accessor::read_u32(&doc, Index::new(0)).unwrap(),
        [1, 2, 3, 4]
    );
    assert_eq!(
        accessor::read_u32(&doc, Index::new(1)).unwrap(),
        [500, 65535]
    );
    assert_eq!(accessor::read_u32(&doc, Index::new(2)).unwrap(), [70000]);
    let signed = accessor::read_u32(&doc, Index::new(3))
        .unwrap_err()
        .to_string();
    assert!(
        signed.contains("/accessors/3") && signed.contains("expected UNSIGNED_BYTE"),
        "{signed}"
    );
    let float = accessor::read_u32(&doc, Index::new(4))
        .unwrap_err()
        .to_string();
    assert!(float.contains("has FLOAT components"), "{float}");
    let as_float = accessor::read_f32(&doc, Index::new(2))
        .unwrap_err()
        .to_string();
    assert!(as_float.contains("UNSIGNED_INT"), "{as_float}");
}

#[test]
fn accessor_past_its_buffer_view_is_refused_on_read() {
    // A VEC3 of floats needs 12 bytes; the view has 8.
    let body = r#""bufferViews":[{"buffer":0,"byteLength":8}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":1,"type":"VEC3"}]"#;
    let err = error_text(glb_doc(body, &[0; 8]));
    assert!(err.starts_with("test.glb: JSON /accessors/0: "), "{err}");
    assert!(
        err.contains("needs 12 bytes") && err.contains("buffer view 0 has 8 bytes"),
        "{err}"
    );
}

#[test]
fn accessor_past_its_buffer_view_is_refused_by_the_decoder() {
    let body = r#""bufferViews":[{"buffer":0,"byteLength":8}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR"}]"#;
    let mut doc = glb_doc(body, &[0; 8]).unwrap();
    // A program changes the count after validation: the decoder checks again, before allocating.
    doc.root.accessors[0].count = 1 << 40;
    let err = accessor::read_f32(&doc, Index::new(0))
        .unwrap_err()
        .to_string();
    assert!(err.contains("JSON /accessors/0"), "{err}");
    assert!(
        err.contains("reads past its buffer view") && err.contains("the view has 8"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// bad input: each names the place and what was expected, and nothing panics
// ---------------------------------------------------------------------------------------------

#[test]
fn empty_file() {
    let err = error_text(Document::from_slice(b"", "empty.glb", None));
    assert_eq!(
        err,
        "empty.glb: byte 0: the file is empty: expected glTF JSON or a GLB file"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.gltf");
    std::fs::write(&path, b"").unwrap();
    let err = error_text(Document::open(&path));
    assert!(
        err.ends_with("byte 0: the file is empty: expected glTF JSON or a GLB file"),
        "{err}"
    );
}

#[test]
fn wrong_glb_magic() {
    let mut bytes = glb(r#"{"asset":{"version":"2.0"}}"#, None);
    bytes[3] = b'X';
    let err = error_text(Document::from_slice(&bytes, "bad.glb", None));
    assert!(
        err.starts_with("bad.glb: byte 0: expected the GLB magic \"glTF\""),
        "{err}"
    );
    assert!(err.contains("found \"glTX\""), "{err}");
}

#[test]
fn glb_chunk_length_past_the_end() {
    let mut bytes = glb(r#"{"asset":{"version":"2.0"}}"#, Some(&[0; 8]));
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let bin_header = 20 + json_len;
    bytes[bin_header..bin_header + 4].copy_from_slice(&4000u32.to_le_bytes());
    let err = error_text(Document::from_slice(&bytes, "bad.glb", None));
    assert_eq!(
        err,
        format!(
            "bad.glb: byte {bin_header}: GLB chunk length 4000 runs past the end of the file ({} bytes)",
            bytes.len()
        )
    );
}

#[test]
fn glb_declared_length_past_the_end() {
    let mut bytes = glb(r#"{"asset":{"version":"2.0"}}"#, None);
    let actual = bytes.len();
    bytes[8..12].copy_from_slice(&1_000_000u32.to_le_bytes());
    let err = error_text(Document::from_slice(&bytes, "bad.glb", None));
    assert_eq!(
        err,
        format!("bad.glb: byte 8: the header declares a length of 1000000 bytes but the file has {actual} bytes")
    );
}

#[test]
fn json_syntax_error_gives_line_and_column() {
    let text = "{\n  \"asset\": {\"version\": \"2.0\"},\n  \"nodes\": [,]\n}";
    let err = error_text(Document::from_slice(text.as_bytes(), "bad.gltf", None));
    // Line 3, column 13 is the stray comma.
    assert!(
        err.starts_with("bad.gltf: 3:13: invalid JSON: expected value"),
        "{err}"
    );
}

#[test]
fn json_wrong_type_gives_the_pointer() {
    let text = r#"{"asset":{"version":"2.0"},"nodes":[{},{"mesh":"zero"}]}"#;
    let err = error_text(Document::from_slice(text.as_bytes(), "bad.gltf", None));
    assert!(
        err.starts_with("bad.gltf: JSON /nodes/1/mesh: invalid type: string \"zero\""),
        "{err}"
    );
    assert!(err.contains("expected an index"), "{err}");
}

#[test]
fn buffer_uri_escaping_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    for uri in [
        "../../etc/passwd",
        "/etc/passwd",
        "file:///etc/passwd",
        "http://example.com/x.bin",
        "a/../../x.bin",
    ] {
        let text = format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"uri":"{uri}","byteLength":4}}]}}"#
        );
        let path = dir.path().join("in.gltf");
        std::fs::write(&path, &text).unwrap();
        let err = error_text(Document::open(&path));
        assert!(err.contains("JSON /buffers/0/uri: "), "{uri}: {err}");
        assert!(
            err.contains("expected a data: URI or a relative path")
                || err.contains("expected a relative path inside the input's folder"),
            "{uri}: {err}"
        );
    }
}

#[cfg(unix)]
#[test]
fn buffer_symlink_escaping_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    std::fs::write(dir.path().join("secret.bin"), [0u8; 4]).unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.bin"), inner.join("link.bin")).unwrap();
    let path = inner.join("in.gltf");
    std::fs::write(
        &path,
        r#"{"asset":{"version":"2.0"},"buffers":[{"uri":"link.bin","byteLength":4}]}"#,
    )
    .unwrap();
    let err = error_text(Document::open(&path));
    assert!(
        err.contains("JSON /buffers/0/uri") && err.contains("symbolic link"),
        "{err}"
    );
}

#[test]
fn node_child_out_of_range() {
    let text = r#"{"asset":{"version":"2.0"},"nodes":[{"children":[1,5]},{}]}"#;
    let err = error_text(Document::from_slice(text.as_bytes(), "bad.gltf", None));
    assert_eq!(
        err,
        "bad.gltf: JSON /nodes/0/children/1: node index 5 is out of range: expected 0 to 1 (2 nodes)"
    );
}

#[test]
fn node_hierarchy_cycle() {
    let text = r#"{"asset":{"version":"2.0"},"nodes":[{"name":"a","children":[1]},{"name":"b","children":[2]},{"name":"c","children":[0]}]}"#;
    let err = error_text(Document::from_slice(text.as_bytes(), "bad.gltf", None));
    assert!(err.starts_with("bad.gltf: JSON /nodes/"), "{err}");
    assert!(err.contains("cycle"), "{err}");
    for name in ["node 0 (\"a\")", "node 1 (\"b\")", "node 2 (\"c\")"] {
        assert!(err.contains(name), "{err}");
    }
    assert!(err.contains("expected a forest"), "{err}");
}

#[test]
fn node_with_two_parents() {
    let text =
        r#"{"asset":{"version":"2.0"},"nodes":[{"children":[2]},{"children":[2]},{"name":"x"}]}"#;
    let err = error_text(Document::from_slice(text.as_bytes(), "bad.gltf", None));
    assert_eq!(
        err,
        "bad.gltf: JSON /nodes/1/children/0: node 2 (\"x\") has two parents, node 0 and node 1: expected at most one"
    );
}

#[test]
fn all_problems_are_reported() {
    let text = r#"{"asset":{"version":"2.0"},"scene":3,"nodes":[{"children":[9],"mesh":0}]}"#;
    let err = error_text(Document::from_slice(text.as_bytes(), "bad.gltf", None));
    assert!(
        err.contains("JSON /scene: scene index 3 is out of range: there are no scenes"),
        "{err}"
    );
    assert!(err.contains("2 more problems"), "{err}");
    assert!(err.contains("/nodes/0/children/0: node index 9"), "{err}");
    assert!(err.contains("/nodes/0/mesh: mesh index 0"), "{err}");
}

#[test]
fn matrix_and_trs_are_exclusive() {
    let text = r#"{"asset":{"version":"2.0"},"nodes":[{"translation":[0,1,0],"matrix":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#;
    let err = error_text(Document::from_slice(text.as_bytes(), "bad.gltf", None));
    assert!(
        err.starts_with(
            "bad.gltf: JSON /nodes/0/matrix: node 0 has both matrix and translation/rotation/scale"
        ),
        "{err}"
    );
}

#[test]
fn infinite_rotation_literal() {
    // JSON has no NaN or infinity; a literal that overflows f64 is refused where it stands
    // (serde_json points at its last character: line 2, column 31; the pointer names the value).
    let text = "{\"asset\":{\"version\":\"2.0\"},\n\"nodes\":[{\"rotation\":[0,0,1e999,1]}]}";
    let err = error_text(Document::from_slice(text.as_bytes(), "bad.gltf", None));
    assert_eq!(
        err,
        "bad.gltf: 2:31: invalid JSON: number out of range (in the value at JSON /nodes/0/rotation/2)"
    );
}

#[test]
fn non_finite_rotation_set_in_code() {
    let text = r#"{"asset":{"version":"2.0"},"nodes":[{"name":"hips","rotation":[0,0,0,1]}]}"#;
    let mut doc = Document::from_slice(text.as_bytes(), "in.gltf", None).unwrap();
    doc.root.nodes[0].rotation = Some([Float::from(f64::NAN), 0.0.into(), 0.0.into(), 1.0.into()]);
    let found = doc.validate();
    let problem = found
        .iter()
        .find(|d| d.code == "GLTF_NODE_NOT_FINITE")
        .expect("reported");
    assert_eq!(problem.location, "/nodes/0/rotation/0");
    assert!(
        problem.message.contains("node 0 (\"hips\")")
            && problem.message.contains("expected a finite number")
    );
    let err = doc.to_glb_bytes().unwrap_err().to_string();
    assert!(err.contains("JSON /nodes/0/rotation/0"), "{err}");
}

#[test]
fn huge_declared_buffer_fails_fast() {
    let body = r#""nodes":[{}]"#;
    let text = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":2147483648}}],"bufferViews":[{{"buffer":0,"byteLength":2147483648}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":536870912,"type":"SCALAR"}}],{body}}}"#
    );
    let bytes = glb(&text, Some(&[0u8; 1024]));
    assert!(bytes.len() < 2048);
    let start = Instant::now();
    let err = error_text(Document::from_slice(&bytes, "big.glb", None));
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "took {:?}",
        start.elapsed()
    );
    assert!(
        err.starts_with("big.glb: JSON /buffers/0/byteLength: byteLength is 2147483648 but the buffer's data has only 1024 bytes"),
        "{err}"
    );
}

#[test]
fn buffer_without_data() {
    let text = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4}]}"#;
    let err = error_text(Document::from_slice(text.as_bytes(), "in.gltf", None));
    assert!(
        err.starts_with("in.gltf: JSON /buffers/0: the buffer has no uri"),
        "{err}"
    );
}

#[test]
fn external_buffer_needs_a_folder() {
    let text = r#"{"asset":{"version":"2.0"},"buffers":[{"uri":"a.bin","byteLength":4}]}"#;
    let err = error_text(Document::from_slice(text.as_bytes(), "in.gltf", None));
    assert!(
        err.contains("JSON /buffers/0/uri") && err.contains("no folder"),
        "{err}"
    );
}

#[test]
fn deep_nesting_is_bounded() {
    let deep = |n: usize| {
        format!(
            r#"{{"asset":{{"version":"2.0"}},"extras":{}{}}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    assert!(Document::from_slice(deep(100).as_bytes(), "ok.gltf", None).is_ok());
    let err = error_text(Document::from_slice(
        deep(5000).as_bytes(),
        "deep.gltf",
        None,
    ));
    assert!(err.contains("recursion limit exceeded"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// round trips and container changes (hand-made)
// ---------------------------------------------------------------------------------------------

const SMALL_JSON: &str = r#"{"asset":{"version":"2.0","generator":"hand"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"name":"root","children":[1],"rotation":[0,0,0,1.0],"extras":{"z":1,"a":[1,2.5]}},{"translation":[1,0.5,-2],"name":"child","extensions":{"X_unknown":{"b":true,"a":null}}}],"meshes":[{"primitives":[{"mode":4,"attributes":{"POSITION":0,"NORMAL":0}}]}],"accessors":[{"bufferView":0,"componentType":5126,"count":2,"type":"VEC3","max":[4,5,6],"min":[1,2,3.0],"normalized":false}],"bufferViews":[{"buffer":0,"byteLength":24,"byteOffset":0}],"buffers":[{"byteLength":24,"name":"bin"}],"animations":[{"channels":[{"sampler":0,"target":{"path":"rotation","extensions":{"EXT_skeleton_humanoid":{"humanoidBoneName":"hips"}}}}],"samplers":[{"input":0,"output":0}]}],"zUnknown":{"k":[]}}"#;

fn small_bin() -> Vec<u8> {
    f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
}

#[test]
fn glb_round_trip_is_byte_identical() {
    // The JSON above is compact and in serde_json's number style, so a lossless writer must
    // reproduce the file exactly: key order, 1.0 vs 1, nulls, unknown keys, node-less channel.
    let input = glb(SMALL_JSON, Some(&small_bin()));
    let doc = Document::from_slice(&input, "small.glb", None).unwrap();
    assert_eq!(doc.container(), Container::Glb);
    assert!(doc.diagnostics().is_empty(), "{:?}", doc.diagnostics());
    assert_eq!(doc.to_glb_bytes().unwrap(), input);
}

#[test]
fn typed_fields_read_as_written() {
    let doc =
        Document::from_slice(&glb(SMALL_JSON, Some(&small_bin())), "small.glb", None).unwrap();
    let root = &doc.root;
    assert_eq!(root.nodes.len(), 2);
    assert_eq!(root.nodes[0].children, [Index::new(1)]);
    assert_eq!(
        root.nodes[1]
            .translation
            .as_ref()
            .map(humanoid::formats::gltf::json::floats),
        Some([1.0, 0.5, -2.0])
    );
    assert_eq!(
        root.meshes[0].primitives[0].attributes.get("NORMAL"),
        Some(Index::new(0))
    );
    assert_eq!(root.animations[0].channels[0].target.node, None);
    assert_eq!(root.animations[0].channels[0].target.path, "rotation");
    assert_eq!(root.animations[0].samplers[0].interpolation, None);
    assert_eq!(root.accessors[0].normalized, Some(false));
    assert_eq!(doc.buffer(Index::new(0)).unwrap(), small_bin());
}

#[test]
fn glb_to_gltf_writes_the_bin_beside_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let doc =
        Document::from_slice(&glb(SMALL_JSON, Some(&small_bin())), "small.glb", None).unwrap();
    let output = dir.path().join("out.gltf");
    let written = doc.write_gltf(&output, &[]).unwrap();
    assert_eq!(written.files, [dir.path().join("out.bin"), output.clone()]);
    assert_eq!(
        std::fs::read(dir.path().join("out.bin")).unwrap(),
        small_bin()
    );
    let mut expected = value(SMALL_JSON.as_bytes());
    expected["buffers"][0]
        .as_object_mut()
        .unwrap()
        .insert("uri".into(), "out.bin".into());
    // `uri` was not in the input, so it comes after the keys that were.
    let actual = value(&std::fs::read(&output).unwrap());
    assert_same_json(&expected, &actual);
    let back = Document::open(&output).unwrap();
    assert_eq!(back.container(), Container::Gltf);
    assert_eq!(
        accessor::read_f32(&back, Index::new(0)).unwrap(),
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
}

/// A `.gltf` with an external buffer, a data-URI buffer and an external image.
fn gltf_folder(dir: &Path) -> std::path::PathBuf {
    std::fs::write(dir.join("a.bin"), f32s(&[1.0, 2.0, 3.0])).unwrap();
    std::fs::create_dir_all(dir.join("tex")).unwrap();
    std::fs::write(dir.join("tex/skin map.png"), b"\x89PNG fake image").unwrap();
    // 7u16, 8u16 little-endian = 07 00 08 00 = base64 "BwAIAA=="
    let text = r#"{"asset":{"version":"2.0"},
      "buffers":[{"uri":"a.bin","byteLength":12},{"uri":"data:application/octet-stream;base64,BwAIAA==","byteLength":4}],
      "bufferViews":[{"buffer":0,"byteLength":12},{"buffer":1,"byteLength":4}],
      "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"SCALAR"},
                   {"bufferView":1,"componentType":5123,"count":2,"type":"SCALAR"}],
      "images":[{"uri":"tex/skin%20map.png"}]}"#;
    let path = dir.join("in.gltf");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn gltf_to_glb_merges_buffers_and_embeds_images() {
    let dir = tempfile::tempdir().unwrap();
    let input = gltf_folder(dir.path());
    let doc = Document::open(&input).unwrap();
    assert_eq!(doc.inputs(), [input.clone(), dir.path().join("a.bin")]);
    let output = dir.path().join("out.glb");
    doc.write_glb(&output, &[]).unwrap();
    let bytes = std::fs::read(&output).unwrap();
    let (json, bin) = split_glb(&bytes);
    let json = value(json);
    let bin = bin.unwrap();
    // Buffer 0 at 0..12, buffer 1 at 12..16, the 15-byte image at 16..31 (4-byte aligned).
    assert_eq!(json["buffers"], serde_json::json!([{"byteLength": 31}]));
    assert_eq!(
        json["bufferViews"][1],
        serde_json::json!({"buffer": 0, "byteLength": 4, "byteOffset": 12})
    );
    assert_eq!(
        json["bufferViews"][2],
        serde_json::json!({"buffer": 0, "byteOffset": 16, "byteLength": 15})
    );
    assert_eq!(
        json["images"][0],
        serde_json::json!({"bufferView": 2, "mimeType": "image/png"})
    );
    assert_eq!(&bin[..12], f32s(&[1.0, 2.0, 3.0]));
    assert_eq!(&bin[12..16], [7, 0, 8, 0]);
    assert_eq!(&bin[16..32], b"\x89PNG fake image\0");
    let back = Document::open(&output).unwrap();
    assert_eq!(
        accessor::read_f32(&back, Index::new(0)).unwrap(),
        [1.0, 2.0, 3.0]
    );
    assert_eq!(accessor::read_u32(&back, Index::new(1)).unwrap(), [7, 8]);
}

#[test]
fn gltf_to_gltf_copies_external_files_and_keeps_data_uris() {
    let dir = tempfile::tempdir().unwrap();
    let input = gltf_folder(dir.path());
    let doc = Document::open(&input).unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let output = out_dir.join("copy.gltf");
    doc.write_gltf(&output, &[]).unwrap();
    assert_eq!(
        std::fs::read(out_dir.join("a.bin")).unwrap(),
        f32s(&[1.0, 2.0, 3.0])
    );
    assert_eq!(
        std::fs::read(out_dir.join("tex/skin map.png")).unwrap(),
        b"\x89PNG fake image"
    );
    assert_same_json(
        &value(&std::fs::read(&input).unwrap()),
        &value(&std::fs::read(&output).unwrap()),
    );
    // Beside the input: the external files are the input's own and are left alone.
    let beside = dir.path().join("beside.gltf");
    let written = doc.write_gltf(&beside, &[]).unwrap();
    assert_eq!(written.files, [beside]);
}

#[test]
fn writers_refuse_input_paths() {
    let dir = tempfile::tempdir().unwrap();
    let input = gltf_folder(dir.path());
    let doc = Document::open(&input).unwrap();
    for result in [
        doc.write_gltf(&input, &[]),
        doc.write_glb(&input, &[]),
        doc.write_glb(&dir.path().join("a.bin"), &[]),
    ] {
        let err = result.unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("it is an input file"), "{err}");
    }
    let other = dir.path().join("other.glb");
    std::fs::write(&other, b"x").unwrap();
    let err = doc.write_glb(&other, &[other.as_path()]).unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    assert_eq!(std::fs::read(&other).unwrap(), b"x");
    // A GLB-to-gltf conversion whose .bin would replace an input buffer is refused too.
    let glb_input = dir.path().join("x.glb");
    std::fs::write(&glb_input, glb(SMALL_JSON, Some(&small_bin()))).unwrap();
    let glb_doc = Document::open(&glb_input).unwrap();
    let err = glb_doc
        .write_gltf(
            &dir.path().join("a.gltf"),
            &[dir.path().join("a.bin").as_path()],
        )
        .unwrap_err();
    assert!(err.to_string().contains("a.bin"), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join("a.bin")).unwrap(),
        f32s(&[1.0, 2.0, 3.0])
    );
}

#[test]
fn pushed_buffers_are_appended_to_the_bin_chunk() {
    let mut doc =
        Document::from_slice(&glb(SMALL_JSON, Some(&small_bin())), "small.glb", None).unwrap();
    let extra = doc.push_buffer(vec![9, 9, 9, 9, 9]).unwrap();
    assert_eq!(extra, Index::new(1));
    doc.root.buffer_views.push(
        humanoid::formats::gltf::json::BufferView {
            buffer: extra,
            byte_length: 5,
            ..Default::default()
        }
        .into(),
    );
    let bytes = doc.to_glb_bytes().unwrap();
    let (json, bin) = split_glb(&bytes);
    let json = value(json);
    assert_eq!(
        json["buffers"],
        serde_json::json!([{"byteLength": 29, "name": "bin"}])
    );
    assert_eq!(
        json["bufferViews"][1],
        serde_json::json!({"buffer": 0, "byteLength": 5, "byteOffset": 24})
    );
    let bin = bin.unwrap();
    assert_eq!(&bin[..24], small_bin());
    assert_eq!(&bin[24..], [9, 9, 9, 9, 9, 0, 0, 0]);
}

// ---------------------------------------------------------------------------------------------
// mutations never panic
// ---------------------------------------------------------------------------------------------

const FUZZ_JSON: &str = r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"children":[1],"skin":0,"mesh":0},{"rotation":[0,0,0,1]}],"skins":[{"joints":[1],"inverseBindMatrices":2}],"meshes":[{"primitives":[{"attributes":{"POSITION":0,"JOINTS_0":1},"indices":3}]}],"accessors":[{"bufferView":0,"componentType":5126,"count":2,"type":"VEC3"},{"bufferView":1,"componentType":5121,"count":2,"type":"VEC4"},{"bufferView":2,"componentType":5126,"count":1,"type":"MAT4"},{"bufferView":1,"componentType":5123,"count":2,"type":"SCALAR","sparse":{"count":1,"indices":{"bufferView":1,"componentType":5121},"values":{"bufferView":1,"byteOffset":2}}},{"componentType":5122,"normalized":true,"count":3,"type":"VEC2","sparse":{"count":1,"indices":{"bufferView":1,"componentType":5121},"values":{"bufferView":0}}}],"bufferViews":[{"buffer":0,"byteLength":24},{"buffer":0,"byteOffset":24,"byteLength":8,"byteStride":4},{"buffer":0,"byteOffset":32,"byteLength":64}],"buffers":[{"byteLength":96}],"animations":[{"channels":[{"sampler":0,"target":{"node":1,"path":"rotation"}}],"samplers":[{"input":4,"output":0}]}]}"#;

fn fuzz_base() -> Vec<u8> {
    let mut bin = f32s(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    bin.extend([0, 1, 2, 3, 1, 0, 0, 0]);
    bin.extend(f32s(&[
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ]));
    glb(FUZZ_JSON, Some(&bin))
}

/// Everything a reader might do with a document; results are ignored, panics are not.
fn exercise(bytes: &[u8]) {
    if let Ok(doc) = Document::from_slice(bytes, "fuzz.glb", None) {
        for i in 0..doc.root.accessors.len() + 1 {
            let index = Index::try_from(i).unwrap();
            let _ = accessor::read_f32(&doc, index);
            let _ = accessor::read_u32(&doc, index);
        }
        let _ = doc.to_glb_bytes();
    }
}

#[test]
fn fuzz_base_is_valid() {
    let doc = Document::from_slice(&fuzz_base(), "fuzz.glb", None).unwrap();
    assert!(doc.diagnostics().is_empty(), "{:?}", doc.diagnostics());
    // View 1 has stride 4: u16 elements at bytes 0 (00 01) and 4 (01 00) = [0x0100, 1]; the
    // sparse entry (index byte 0 → element 0) takes its value from byte 2 (02 03) = 0x0302.
    assert_eq!(
        accessor::read_u32(&doc, Index::new(3)).unwrap(),
        [0x0302, 1]
    );
    assert_eq!(accessor::read_f32(&doc, Index::new(4)).unwrap().len(), 6);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_glb_never_panics(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let mut bytes = fuzz_base();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len()));
        }
        exercise(&bytes);
    }

    #[test]
    fn mutated_numbers_never_panic(
        which in any::<prop::sample::Index>(),
        replacement in prop::sample::select(vec![
            "0", "1", "3", "4", "255", "65535", "2147483647", "4294967295", "4294967296",
            "18446744073709551615", "-1", "1.5", "1e300", "5120", "5125", "252",
        ]),
    ) {
        let numbers: Vec<(usize, usize)> = {
            let bytes = FUZZ_JSON.as_bytes();
            let mut spans = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i].is_ascii_digit() {
                    let start = i;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                    spans.push((start, i));
                } else {
                    i += 1;
                }
            }
            spans
        };
        let (start, end) = numbers[which.index(numbers.len())];
        let json = format!("{}{}{}", &FUZZ_JSON[..start], replacement, &FUZZ_JSON[end..]);
        let mut bin = f32s(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        bin.extend([0, 1, 2, 3, 1, 0, 0, 0]);
        bin.extend([0u8; 64]);
        exercise(&glb(&json, Some(&bin)));
    }
}
