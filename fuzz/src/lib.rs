//! What the fuzz targets run: read bytes as one format (it must succeed or refuse, never
//! panic, hang or allocate without bound: libFuzzer's `-timeout`, `-rss_limit_mb` and
//! `-malloc_limit_mb` catch the last two), and write back what was read (the write succeeds or
//! refuses, and what was written reads back).

use std::path::Path;

use humanoid::formats::Format;
use humanoid::asset::MeshDetail;
use humanoid::{ReadOptions, WriteOptions};

/// The readers, by the file name that selects them.
pub const READERS: [&str; 10] = [
    "f.gltf", "f.glb", "f.vrm", "f.vrma", "f.x3d", "f.x3dv", "f.wrl", "f.bvh", "f.tres", "f.toml",
];

/// The formats written back.
pub const WRITERS: [(Format, &str); 8] = [
    (Format::Glb, "glb"),
    (Format::Vrm1, "vrm"),
    (Format::Vrma, "vrma"),
    (Format::X3d, "x3d"),
    (Format::X3dv, "x3dv"),
    (Format::Wrl, "wrl"),
    (Format::Bvh, "bvh"),
    (Format::GodotProfile, "tres"),
];

fn options() -> ReadOptions {
    ReadOptions {
        meshes: MeshDetail::Rest,
        ..ReadOptions::default()
    }
}

/// Reads `data` as the file `name` says (a `.toml` as a mapping table).
pub fn read(name: &str, data: &[u8]) {
    if name.ends_with(".toml") {
        if let Ok(text) = std::str::from_utf8(data) {
            let _ = humanoid::mapping::table::Table::parse(text, Path::new(name));
        }
        return;
    }
    let _ = humanoid::read_bytes(data, Path::new(name), &options());
}

/// The first byte picks the reader, the second the format written; the rest is the file.
/// Panics when a written file does not read back.
pub fn write_back(data: &[u8]) {
    let [reader, writer, rest @ ..] = data else {
        return;
    };
    let name = READERS[usize::from(*reader) % (READERS.len() - 1)]; // no table: it is no model
    let Ok(read) = humanoid::read_bytes(rest, Path::new(name), &options()) else {
        return;
    };
    let (format, extension) = WRITERS[usize::from(*writer) % WRITERS.len()];
    let dir = tempfile::tempdir_in(scratch()).expect("a scratch folder");
    let output = dir.path().join(format!("out.{extension}"));
    let write = WriteOptions {
        to: Some(format),
        ..WriteOptions::default()
    };
    if humanoid::write(&read.character, &output, &write).is_err() {
        return; // refused cleanly
    }
    if let Err(error) = humanoid::read(&output, &ReadOptions::default()) {
        panic!("{name} written as {extension} does not read back: {error}");
    }
}

/// Where written files go: memory when the system has `/dev/shm`.
fn scratch() -> &'static Path {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() { shm } else { Path::new("/tmp") }
}

/// The target an environment variable names, for the one binary that runs them all
/// (`all`, used where one binary is easier to carry than twelve).
pub fn by_name(target: &str, data: &[u8]) {
    match target {
        "write_back" => write_back(data),
        other => {
            let name = other.strip_prefix("read_").unwrap_or(other);
            let file = match name {
                "table" => "f.toml".to_owned(),
                ext => format!("f.{ext}"),
            };
            read(&file, data);
        }
    }
}
