//! The shared corpus (`../shared/corpus/{gltf,vrm,vrma}`): every file reads, writes back
//! losslessly in its own container, converts to the other container, and decodes the same
//! accessor values as the `gltf` crate (the independent oracle).

use std::path::{Path, PathBuf};

use base64::Engine;
use humanoid::formats::gltf::json::Index;
use humanoid::formats::gltf::{accessor, Document};

use super::support::{assert_same_json, split_glb, value};

const MIN_FILES: usize = 10;

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let mut files = Vec::new();
    for dir in ["gltf", "vrm", "vrma"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase();
            if ["glb", "gltf", "vrm", "vrma"].contains(&ext.as_str()) {
                files.push(path);
            }
        }
    }
    files.sort();
    let gltf_and_vrm = files
        .iter()
        .filter(|p| p.extension().is_none_or(|e| e != "vrma"))
        .count();
    assert!(
        gltf_and_vrm >= MIN_FILES,
        "expected at least {MIN_FILES} glTF/VRM files under {}, found {gltf_and_vrm}",
        root.display()
    );
    files
}

fn is_gltf(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf"))
}

/// Buffer bytes as the glTF spec defines them, loaded without the code under test.
fn oracle_buffers(gltf: &gltf::Gltf, dir: &Path) -> Vec<Vec<u8>> {
    gltf.document
        .buffers()
        .map(|buffer| {
            let mut data = match buffer.source() {
                gltf::buffer::Source::Bin => gltf.blob.clone().expect("GLB BIN chunk"),
                gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                    let payload = uri.split_once(',').expect("data URI").1;
                    base64::engine::general_purpose::STANDARD
                        .decode(payload)
                        .expect("base64")
                }
                gltf::buffer::Source::Uri(uri) => {
                    std::fs::read(dir.join(uri.replace("%20", " "))).expect("external buffer")
                }
            };
            data.truncate(buffer.length());
            data
        })
        .collect()
}

#[track_caller]
fn same_bits(what: &str, ours: &[f32], theirs: &[f32]) {
    assert_eq!(ours.len(), theirs.len(), "{what}: length");
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "{what}[{i}]: {a} vs {b}"
        );
    }
}

/// Compares our decoding of every vertex, skin and animation accessor with the gltf crate's.
/// Returns how many accessors were compared.
fn compare_accessors(doc: &Document, bytes: &[u8], dir: &Path, name: &str) -> usize {
    let gltf = gltf::Gltf::from_slice_without_validation(bytes).expect("gltf crate reads it");
    let buffers = oracle_buffers(&gltf, dir);
    let get = |buffer: gltf::Buffer<'_>| buffers.get(buffer.index()).map(Vec::as_slice);
    let ours_f32 =
        |index: usize| accessor::read_f32(doc, Index::new(u32::try_from(index).unwrap())).unwrap();
    let mut compared = 0;
    for mesh in gltf.document.meshes() {
        for primitive in mesh.primitives() {
            let reader = primitive.reader(get);
            if let (Some(values), Some(acc)) = (
                reader.read_positions(),
                primitive.get(&gltf::Semantic::Positions),
            ) {
                let theirs: Vec<f32> = values.flatten().collect();
                same_bits(
                    &format!("{name} positions"),
                    &ours_f32(acc.index()),
                    &theirs,
                );
                compared += 1;
            }
            if let (Some(values), Some(acc)) = (
                reader.read_joints(0),
                primitive.get(&gltf::Semantic::Joints(0)),
            ) {
                let theirs: Vec<u32> = values.into_u16().flatten().map(u32::from).collect();
                let ours = accessor::read_u32(doc, Index::new(u32::try_from(acc.index()).unwrap()))
                    .unwrap();
                assert_eq!(ours, theirs, "{name} joints");
                compared += 1;
            }
            if let (Some(values), Some(acc)) = (
                reader.read_weights(0),
                primitive.get(&gltf::Semantic::Weights(0)),
            ) {
                let theirs: Vec<f32> = values.into_f32().flatten().collect();
                same_bits(&format!("{name} weights"), &ours_f32(acc.index()), &theirs);
                compared += 1;
            }
        }
    }
    for skin in gltf.document.skins() {
        if let (Some(values), Some(acc)) = (
            skin.reader(get).read_inverse_bind_matrices(),
            skin.inverse_bind_matrices(),
        ) {
            let theirs: Vec<f32> = values.flat_map(|m| m.into_iter().flatten()).collect();
            same_bits(
                &format!("{name} inverse bind matrices"),
                &ours_f32(acc.index()),
                &theirs,
            );
            compared += 1;
        }
    }
    for animation in gltf.document.animations() {
        for channel in animation.channels() {
            let reader = channel.reader(get);
            let sampler = channel.sampler();
            if let Some(times) = reader.read_inputs() {
                let theirs: Vec<f32> = times.collect();
                same_bits(
                    &format!("{name} animation input"),
                    &ours_f32(sampler.input().index()),
                    &theirs,
                );
                compared += 1;
            }
            if let Some(outputs) = reader.read_outputs() {
                use gltf::animation::util::ReadOutputs;
                let theirs: Vec<f32> = match outputs {
                    ReadOutputs::Translations(v) => v.flatten().collect(),
                    ReadOutputs::Rotations(v) => v.into_f32().flatten().collect(),
                    ReadOutputs::Scales(v) => v.flatten().collect(),
                    ReadOutputs::MorphTargetWeights(v) => v.into_f32().collect(),
                };
                same_bits(
                    &format!("{name} animation output"),
                    &ours_f32(sampler.output().index()),
                    &theirs,
                );
                compared += 1;
            }
        }
    }
    compared
}

/// Node, skin and animation counts as the gltf crate sees them (`None` when it cannot read the
/// file: it refuses channels without a target node, which VRMA files may have).
fn counts(bytes: &[u8]) -> Option<(usize, usize, usize)> {
    let gltf = gltf::Gltf::from_slice_without_validation(bytes).ok()?;
    Some((
        gltf.document.nodes().count(),
        gltf.document.skins().count(),
        gltf.document.animations().count(),
    ))
}

/// `counts`, required for everything but VRMA.
#[track_caller]
fn oracle_counts(path: &Path, bytes: &[u8]) -> Option<(usize, usize, usize)> {
    let found = counts(bytes);
    assert!(
        found.is_some() || path.extension().is_some_and(|e| e == "vrma"),
        "{}: the gltf crate cannot read it",
        path.display()
    );
    found
}

#[test]
fn corpus_round_trips_losslessly() {
    let out = tempfile::tempdir().unwrap();
    for path in corpus_files() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let input = std::fs::read(&path).unwrap();
        let doc = Document::open(&path).unwrap_or_else(|e| panic!("{e}"));
        if is_gltf(&path) {
            let output = out.path().join(&name);
            doc.write_gltf(&output, &[]).unwrap();
            assert_same_json(&value(&input), &value(&std::fs::read(&output).unwrap()));
            let dir = path.parent().unwrap();
            let gltf_in = gltf::Gltf::from_slice_without_validation(&input).unwrap();
            let gltf_out =
                gltf::Gltf::from_slice_without_validation(&std::fs::read(&output).unwrap())
                    .unwrap();
            assert_eq!(
                oracle_buffers(&gltf_in, dir),
                oracle_buffers(&gltf_out, out.path()),
                "{name}: buffers"
            );
            let expected = oracle_counts(&path, &input);
            assert!(expected.is_some());
            assert_eq!(expected, counts(&std::fs::read(&output).unwrap()), "{name}");
        } else {
            let bytes = doc.to_glb_bytes().unwrap();
            let output = out.path().join(&name);
            let written = doc.write_glb(&output, &[]).unwrap();
            assert_eq!(
                std::fs::read(&output).unwrap(),
                bytes,
                "{name}: file and memory output differ"
            );
            assert_eq!(written.bytes, u64::try_from(bytes.len()).unwrap());
            let (json_in, bin_in) = split_glb(&input);
            let (json_out, bin_out) = split_glb(&bytes);
            let (json_in, json_out) = (value(json_in), value(json_out));
            assert_same_json(&json_in, &json_out);
            assert_eq!(bin_in.is_some(), bin_out.is_some(), "{name}: BIN chunk");
            if let (Some(a), Some(b)) = (bin_in, bin_out) {
                let len = json_in["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
                assert!(a[..len] == b[..len], "{name}: BIN bytes differ");
            }
            if let Some(expected) = oracle_counts(&path, &input) {
                assert_eq!(Some(expected), counts(&bytes), "{name}");
            }
        }
    }
}

#[test]
fn corpus_converts_between_containers() {
    let out = tempfile::tempdir().unwrap();
    for path in corpus_files() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let input = std::fs::read(&path).unwrap();
        let expected = oracle_counts(&path, &input);
        let doc = Document::open(&path).unwrap();
        let converted = if is_gltf(&path) {
            // .gltf → GLB: self-contained (buffers merged, images embedded).
            let output = out.path().join(format!("{name}.glb"));
            doc.write_glb(&output, &[]).unwrap();
            let bytes = std::fs::read(&output).unwrap();
            let (json, _) = split_glb(&bytes);
            let json = value(json);
            let buffers = json["buffers"].as_array().map_or(0, Vec::len);
            assert!(buffers <= 1, "{name}: one buffer");
            let images = json["images"].as_array().cloned().unwrap_or_default();
            assert!(
                images
                    .iter()
                    .all(|i| i.get("uri").is_none() && i.get("bufferView").is_some()),
                "{name}: images embedded"
            );
            output
        } else {
            // GLB → .gltf: the BIN chunk becomes <stem>.bin beside it.
            let output = out.path().join(format!("{name}.gltf"));
            doc.write_gltf(&output, &[]).unwrap();
            output
        };
        let bytes = std::fs::read(&converted).unwrap();
        if expected.is_some() {
            assert_eq!(expected, counts(&bytes), "{name}: counts after conversion");
        }
        let back = Document::open(&converted).unwrap();
        for i in 0..doc.root.accessors.len() {
            let index = Index::new(u32::try_from(i).unwrap());
            let (a, b) = (
                accessor::read_f32(&doc, index),
                accessor::read_f32(&back, index),
            );
            match (a, b) {
                (Ok(a), Ok(b)) => assert!(
                    a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()) && a.len() == b.len(),
                    "{name}: accessor {i}"
                ),
                (a, b) => assert_eq!(a.is_ok(), b.is_ok(), "{name}: accessor {i}"),
            }
        }
    }
}

#[test]
fn corpus_accessors_match_the_gltf_crate() {
    let mut compared = 0;
    for path in corpus_files() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let input = std::fs::read(&path).unwrap();
        if gltf::Gltf::from_slice_without_validation(&input).is_err() {
            assert!(
                path.extension().is_some_and(|e| e == "vrma"),
                "{name}: the gltf crate cannot read it"
            );
            continue;
        }
        let doc = Document::open(&path).unwrap();
        compared += compare_accessors(&doc, &input, path.parent().unwrap(), &name);
    }
    assert!(compared >= 100, "only {compared} accessors compared");
}
