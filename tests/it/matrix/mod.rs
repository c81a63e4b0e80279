//! The conversion matrix (issue 15): every corpus input (and the mannequin) × every output
//! format, through `humanoid convert`. Each cell is one of
//! - **refused**: exit 1 with a reason; where the reason names a flag the test knows how to follow
//!   (`--map auto`, `--normalize`, `--clip NAME`), following it must give an ok cell;
//! - **ok**: exit 0, and the output passes our own `validate`, is accepted by the format's real
//!   client (Khronos validator, three-vrm, X_ITE and Castle, Blender's BVH importer, `--map
//!   FILE.tres`), and means what the input meant (world positions of every mapped bone at the
//!   rest and at 5 times of the clip, 1e-4 m, after the documented changes only);
//! - anything else is a **FAIL**, and the test fails.
//!
//! The table is printed at the end and written to `target/conversions.md`; with
//! `HUMANOID_UPDATE_DOCS=1` it is also written to `docs/conversions.md`, and without it the test
//! checks that the statuses there are those it found (so the published table cannot go stale).
//!
//! Speed: the binary is `HUMANOID_BIN` when set (`.ci/run` points it at the release build),
//! else the test build's; cells run on every core; each client starts once for a batch of
//! files where it can (validator, X_ITE, Blender).

mod cell;
mod clients;
mod meaning;
mod table;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::util::{s, shared, temp_dir};

pub use cell::{Cell, Status};

/// An output format: the `--to` name and the extension written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Output {
    pub to: &'static str,
    pub ext: &'static str,
}

pub const OUTPUTS: [Output; 10] = [
    Output {
        to: "glb",
        ext: "glb",
    },
    Output {
        to: "gltf",
        ext: "gltf",
    },
    Output {
        to: "vrm1",
        ext: "vrm",
    },
    Output {
        to: "vrm0",
        ext: "vrm",
    },
    Output {
        to: "vrma",
        ext: "vrma",
    },
    Output {
        to: "x3d",
        ext: "x3d",
    },
    Output {
        to: "x3dv",
        ext: "x3dv",
    },
    Output {
        to: "wrl",
        ext: "wrl",
    },
    Output {
        to: "bvh",
        ext: "bvh",
    },
    Output {
        to: "godot-bonemap",
        ext: "tres",
    },
];

impl Output {
    pub fn is_gltf_family(self) -> bool {
        matches!(self.to, "glb" | "gltf" | "vrm1" | "vrm0" | "vrma")
    }
    pub fn is_hanim(self) -> bool {
        matches!(self.to, "x3d" | "x3dv" | "wrl")
    }
}

/// What kind of file an input is (its folder and extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Gltf,
    Vrm,
    Vrma,
    Bvh,
    Hanim,
    /// FBX (read only: no output is of its kind).
    Fbx,
}

impl Kind {
    /// The output formats of the same kind (a same-kind conversion keeps every joint and frame).
    pub fn same_kind(self, output: Output) -> bool {
        match self {
            Kind::Gltf => matches!(output.to, "glb" | "gltf"),
            Kind::Vrm => false,
            Kind::Vrma => output.to == "vrma",
            Kind::Bvh => output.to == "bvh",
            Kind::Hanim => output.is_hanim(),
            Kind::Fbx => false,
        }
    }
    pub fn is_gltf_family(self) -> bool {
        matches!(self, Kind::Gltf | Kind::Vrm | Kind::Vrma)
    }
}

/// One input of the matrix.
#[derive(Debug, Clone)]
pub struct Input {
    pub path: PathBuf,
    pub label: String,
    pub kind: Kind,
}

/// Every model or animation file of the corpus the tool reads, plus the mannequin.
fn inputs(mannequin: &Path) -> Vec<Input> {
    let mut inputs = vec![Input {
        path: mannequin.to_path_buf(),
        label: "mannequin.glb".into(),
        kind: Kind::Gltf,
    }];
    for (folder, kind) in [
        ("gltf", Kind::Gltf),
        ("vrm", Kind::Vrm),
        ("vrma", Kind::Vrma),
        ("bvh", Kind::Bvh),
        ("hanim", Kind::Hanim),
        ("fbx", Kind::Fbx),
    ] {
        let dir = shared().join("corpus").join(folder);
        let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
                [
                    "glb", "gltf", "vrm", "vrma", "bvh", "x3d", "x3dv", "wrl", "gz", "fbx",
                ]
                .contains(&ext.to_ascii_lowercase().as_str())
            })
            .collect();
        found.sort();
        for path in found {
            let label = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
            inputs.push(Input { path, label, kind });
        }
    }
    inputs
}

/// The binary to run: `HUMANOID_BIN`, else this test build's.
pub fn binary() -> PathBuf {
    std::env::var_os("HUMANOID_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_humanoid")))
}

/// Runs `jobs` on every core, in order of submission, and returns their results in that order.
pub fn parallel<T: Send, R: Send>(jobs: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<Vec<_>>());
    queue.lock().unwrap().reverse();
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let Some((i, job)) = queue.lock().unwrap().pop() else {
                    break;
                };
                let r = work(job);
                results.lock().unwrap().push((i, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

// Every cell is ok or a refusal; `.ci/run` runs it on the release binary (`HUMANOID_BIN`).
// Alone: `cargo test --features corpus --test it matrix -- --nocapture`.
#[test]
fn conversion_matrix() {
    let started = std::time::Instant::now();
    let dir = temp_dir();
    let demo = dir.path().join("demo");
    let run = cell::run(&["demo".as_ref(), "-o".as_ref(), demo.as_os_str()]);
    assert_eq!(run.code, 0, "demo: {}", run.stderr);
    let mannequin = demo.join("mannequin.glb");
    assert!(mannequin.is_file(), "the demo wrote no mannequin");
    let inputs = inputs(&mannequin);
    assert!(
        inputs.len() >= 39,
        "expected the whole corpus, found {} inputs",
        inputs.len()
    );
    let only = std::env::var("HUMANOID_MATRIX_ONLY").ok();
    let inputs: Vec<Input> = inputs
        .into_iter()
        .filter(|i| only.as_deref().is_none_or(|o| i.label.contains(o)))
        .collect();

    let facts = parallel(inputs.clone(), |input| cell::facts(&input));
    let mut jobs = Vec::new();
    for (input, facts) in inputs.iter().zip(&facts) {
        for output in OUTPUTS {
            jobs.push((input.clone(), facts.clone(), output));
        }
    }
    let work = dir.path().join("cells");
    let mut cells = parallel(jobs, |(input, facts, output)| {
        cell::convert_and_check(&input, &facts, output, &work)
    });
    let converted = started.elapsed();
    clients::check(&mut cells, &inputs);

    let table = table::markdown(&inputs, &cells);
    let elapsed = started.elapsed();
    println!("{table}");
    println!(
        "matrix: {} cells in {:.1} s (conversions and own checks {:.1} s, clients {:.1} s), binary {}",
        cells.len(),
        elapsed.as_secs_f64(),
        converted.as_secs_f64(),
        (elapsed - converted).as_secs_f64(),
        s(&binary())
    );
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/conversions.md");
    std::fs::create_dir_all(target.parent().unwrap()).ok();
    std::fs::write(&target, &table).ok();
    if only.is_none() {
        table::publish_or_check(&table);
    }
    let fails: Vec<String> = cells
        .iter()
        .filter_map(|c| match &c.status {
            Status::Fail(what) => Some(format!("{} -> {}: {what}", c.input, c.output.to)),
            _ => None,
        })
        .collect();
    assert!(
        fails.is_empty(),
        "{} FAIL cell(s):\n{}",
        fails.len(),
        fails.join("\n")
    );
}
