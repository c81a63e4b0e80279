//! `humanoid._native`: the library's operations for Python. Each function takes paths and
//! keyword options, runs without the GIL (threads and Dask workers convert in parallel), and
//! returns plain values and NumPy arrays; the package `humanoid` (python/humanoid/) wraps them
//! with typed signatures and small classes.
//!
//! Reports (what was written, what was dropped) come back as JSON text, the exact objects the
//! command line prints with `--json`; the package parses them.

mod batch;
mod character;
mod edit;
mod errors;
mod options;

use std::path::PathBuf;

use humanoid::bone_pose::{self, PoseOptions, Times};
use humanoid::formats::{gltf, Format};
use humanoid::mapping::map_humanoid;
use humanoid::ops::read::{MeshDetail, ReadOptions};
use humanoid::retarget::RetargetOptions;
use humanoid::rig_tables::{map_file, maps_no_required_bone, Tables};
use humanoid::{ConvertOptions, Diagnostics, Error, WriteOptions};
use numpy::ndarray::Array3;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Runs `work` without the GIL and turns a library error into the package's exception.
fn detached<T: Send>(
    py: Python<'_>,
    work: impl Send + FnOnce() -> Result<T, Error>,
) -> PyResult<T> {
    py.detach(|| {
        // Every file the call reads is remembered: no output replaces one.
        let _reads = humanoid::io::input::read_scope();
        work()
    })
    .map_err(|e| errors::to_py(py, &e))
}

/// Lifts a library error raised while preparing options.
fn lift<T>(py: Python<'_>, result: Result<T, Error>) -> PyResult<T> {
    result.map_err(|e| errors::to_py(py, &e))
}

/// A report as JSON text, with the mapping tables' diagnostics first.
fn report_json(report: &humanoid::Written, before: Diagnostics) -> Result<String, Error> {
    let mut value = serde_json::to_value(report)
        .map_err(|e| Error::unsupported(format!("the report could not be serialized: {e}")))?;
    if let Some(list) = value.get_mut("diagnostics").and_then(|d| d.as_array_mut()) {
        let mut all = serde_json::to_value(&before)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default();
        all.append(list);
        for diagnostic in &mut all {
            errors::python_words_in(diagnostic);
        }
        *list = all;
    }
    Ok(value.to_string())
}

/// Reads a file into a dict of plain values and arrays (`humanoid.Character`'s fields).
#[pyfunction]
#[pyo3(signature = (path, map=None, mappings=Vec::new(), bvh_scale=None))]
fn read<'py>(
    py: Python<'py>,
    path: PathBuf,
    map: Option<String>,
    mappings: Vec<PathBuf>,
    bvh_scale: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let (character, diagnostics, mapped) = detached(py, || {
        let (rig, tables) = options::mapping(map.as_deref(), &mappings)?;
        let options = ReadOptions {
            bvh_scale,
            ..ReadOptions::default()
        };
        let read = humanoid::read(&path, &options)?;
        let (character, mapped) = mapped(read.character, &path, rig.as_ref(), map.is_some())?;
        let mut diagnostics = tables;
        diagnostics.extend(read.diagnostics);
        Ok((character, diagnostics, mapped))
    })?;
    // A glTF-family file's meshes stay in its document: counted there.
    let meshes = character
        .carry
        .get::<gltf::Document>()
        .map_or(character.meshes.len(), |d| d.root.meshes.len());
    let dict = character::to_dict(py, character.asset, &diagnostics, &mapped)?;
    dict.set_item("meshes", meshes)?;
    dict.set_item("source", character.source)?;
    Ok(dict)
}

/// The character with its humanoid mapped as every function maps it (a file that is not a
/// humanoid is still read, unless a mapping was `forced`); how, in words.
fn mapped(
    mut character: humanoid::model::Character,
    path: &std::path::Path,
    rig: Option<&humanoid::mapping::RigMapping>,
    forced: bool,
) -> Result<(humanoid::model::Character, String), Error> {
    let mapped = match map_humanoid(&mut character.asset, path, rig) {
        Ok(mapped) => mapped.line(),
        // A file that is not a humanoid is still read; asked to map it, it is an error.
        Err(e) if !forced => format!("no humanoid: {e}"),
        Err(e) => return Err(e),
    };
    Ok((character, mapped))
}

/// Reads a file and drops it: the Rust read alone, for the benchmark that compares it with
/// `read` (which also builds the arrays).
#[pyfunction]
fn _read_only(py: Python<'_>, path: PathBuf) -> PyResult<usize> {
    detached(py, || Ok(humanoid::read_asset(&path)?.asset.skeleton.len()))
}

/// `convert`'s keyword arguments as the library's options (the mapping aside: its tables are
/// read without the GIL).
#[allow(clippy::too_many_arguments)]
fn convert_options(
    py: Python<'_>,
    to: Option<&str>,
    force: bool,
    clip: Option<String>,
    normalize: bool,
    rest: &str,
    rebind: bool,
    strip_vrm: bool,
    vrm_name: Option<String>,
    vrm_authors: Vec<String>,
    vrm_license_url: Option<String>,
    bvh_scale: Option<f64>,
    bvh_order: Option<&str>,
    bvh_units: Option<&str>,
    khr_character: Option<&str>,
) -> PyResult<ConvertOptions> {
    Ok(ConvertOptions {
        to: lift(py, options::format(to))?,
        force,
        vrm: options::vrm(strip_vrm, vrm_name, vrm_authors, vrm_license_url),
        mapping: None,
        clip,
        bvh_read_scale: bvh_scale,
        bvh_order: lift(py, options::bvh_order(bvh_order))?,
        bvh_write_scale: lift(py, options::bvh_units(bvh_units))?,
        normalize: lift(py, options::normalize(normalize, rest, rebind))?,
        khr_character: lift(py, options::khr_character(khr_character))?,
    })
}

/// Converts `src` into `dst`; the report as JSON text.
#[pyfunction]
#[pyo3(signature = (
    src, dst, to=None, force=false, map=None, mappings=Vec::new(), clip=None, normalize=false,
    rest="auto", rebind=false, strip_vrm=false, vrm_name=None, vrm_authors=Vec::new(),
    vrm_license_url=None, bvh_scale=None, bvh_order=None, bvh_units=None, khr_character=None
))]
#[allow(clippy::too_many_arguments)]
fn convert(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    to: Option<String>,
    force: bool,
    map: Option<String>,
    mappings: Vec<PathBuf>,
    clip: Option<String>,
    normalize: bool,
    rest: &str,
    rebind: bool,
    strip_vrm: bool,
    vrm_name: Option<String>,
    vrm_authors: Vec<String>,
    vrm_license_url: Option<String>,
    bvh_scale: Option<f64>,
    bvh_order: Option<String>,
    bvh_units: Option<String>,
    khr_character: Option<String>,
) -> PyResult<String> {
    let options = convert_options(
        py,
        to.as_deref(),
        force,
        clip,
        normalize,
        rest,
        rebind,
        strip_vrm,
        vrm_name,
        vrm_authors,
        vrm_license_url,
        bvh_scale,
        bvh_order.as_deref(),
        bvh_units.as_deref(),
        khr_character.as_deref(),
    )?;
    detached(py, || {
        let (mapping, tables) = options::mapping(map.as_deref(), &mappings)?;
        let options = ConvertOptions { mapping, ..options };
        report_json(&humanoid::convert(&src, &dst, &options)?, tables)
    })
}

/// Converts many files into `out_dir` on the batch engine of `humanoid convert INPUT… -o DIR`
/// (its plan: folders, glob patterns, output names and collisions; its pool of threads, a
/// failing file never stopping the others); one record per input, as JSON text.
#[pyfunction]
#[pyo3(signature = (
    inputs, out_dir, to, jobs=None, force=false, recursive=false, map=None, mappings=Vec::new(),
    clip=None, normalize=false, rest="auto", rebind=false, strip_vrm=false, vrm_name=None,
    vrm_authors=Vec::new(), vrm_license_url=None, bvh_scale=None, bvh_order=None,
    bvh_units=None, khr_character=None
))]
#[allow(clippy::too_many_arguments)]
fn convert_many(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    out_dir: PathBuf,
    to: &str,
    jobs: Option<i64>,
    force: bool,
    recursive: bool,
    map: Option<String>,
    mappings: Vec<PathBuf>,
    clip: Option<String>,
    normalize: bool,
    rest: &str,
    rebind: bool,
    strip_vrm: bool,
    vrm_name: Option<String>,
    vrm_authors: Vec<String>,
    vrm_license_url: Option<String>,
    bvh_scale: Option<f64>,
    bvh_order: Option<String>,
    bvh_units: Option<String>,
    khr_character: Option<String>,
) -> PyResult<String> {
    let options = convert_options(
        py,
        Some(to),
        force,
        clip,
        normalize,
        rest,
        rebind,
        strip_vrm,
        vrm_name,
        vrm_authors,
        vrm_license_url,
        bvh_scale,
        bvh_order.as_deref(),
        bvh_units.as_deref(),
        khr_character.as_deref(),
    )?;
    let threads = lift(py, batch::threads(jobs))?;
    detached(py, || {
        let (mapping, tables) = options::mapping(map.as_deref(), &mappings)?;
        let options = ConvertOptions { mapping, ..options };
        let inputs = humanoid::ops::batch::Inputs {
            paths: inputs,
            recursive,
        };
        batch::convert_many(&inputs, &out_dir, threads, &options, &tables)
    })
}

/// Writes a character read by `read` (`src`, read again as it was: `map`, `mappings`,
/// `bvh_scale`) with the arrays of `edits` (the `Character`'s, as the user changed them) through
/// the library's write; the report as JSON text.
#[pyfunction]
#[pyo3(signature = (
    src, dst, edits, to=None, force=false, map=None, mappings=Vec::new(), bvh_scale=None,
    clip=None, strip_vrm=false, vrm_name=None, vrm_authors=Vec::new(), vrm_license_url=None,
    bvh_order=None, bvh_units=None, khr_character=None
))]
#[allow(clippy::too_many_arguments)]
fn write(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    edits: Bound<'_, PyDict>,
    to: Option<String>,
    force: bool,
    map: Option<String>,
    mappings: Vec<PathBuf>,
    bvh_scale: Option<f64>,
    clip: Option<String>,
    strip_vrm: bool,
    vrm_name: Option<String>,
    vrm_authors: Vec<String>,
    vrm_license_url: Option<String>,
    bvh_order: Option<String>,
    bvh_units: Option<String>,
    khr_character: Option<String>,
) -> PyResult<String> {
    let edits = edit::Edits::from_py(&edits)?;
    let write_options = WriteOptions {
        to: lift(py, options::format(to.as_deref()))?,
        force,
        vrm: options::vrm(strip_vrm, vrm_name, vrm_authors, vrm_license_url),
        clip,
        bvh_order: lift(py, options::bvh_order(bvh_order.as_deref()))?,
        bvh_scale: lift(py, options::bvh_units(bvh_units.as_deref()))?,
        khr_character: lift(py, options::khr_character(khr_character.as_deref()))?,
    };
    detached(py, || {
        let (rig, tables) = options::mapping(map.as_deref(), &mappings)?;
        // Read as `convert` reads for this output: an H-Anim file takes the meshes along.
        let target = match write_options.to {
            Some(format) => format,
            None => Format::for_output(&dst, None)?,
        };
        let source = humanoid::ops::read::input_format(&src)?;
        let read_options = ReadOptions {
            bvh_scale,
            meshes: if target.is_hanim() {
                MeshDetail::Rest
            } else {
                MeshDetail::None
            },
            strict_sockets: !(source.is_gltf_family() && target.is_gltf_family()),
            ..ReadOptions::default()
        };
        let read = humanoid::read(&src, &read_options)?;
        let (mut character, _) = mapped(read.character, &src, rig.as_ref(), map.is_some())?;
        edit::apply(&mut character, edits)?;
        report_json(
            &humanoid::ops::write::write(&character, &dst, &write_options)?,
            tables,
        )
    })
}

/// A library message in the package's words (flags as keyword arguments): for the tests, which
/// check every message of the library's source.
#[pyfunction]
fn _python_words(message: &str) -> String {
    errors::python_words(message)
}

/// Plays `anim`'s clip on `onto` and writes the result to `dst`; the report as JSON text.
#[pyfunction]
#[pyo3(signature = (
    anim, onto, dst, to=None, force=false, clip=None, fps=None, map=None, mappings=Vec::new(),
    as_ext=false, carry_sockets=false, bvh_order=None, bvh_units=None, contacts=None,
    report=false
))]
#[allow(clippy::too_many_arguments)]
fn retarget(
    py: Python<'_>,
    anim: PathBuf,
    onto: PathBuf,
    dst: PathBuf,
    to: Option<String>,
    force: bool,
    clip: Option<String>,
    fps: Option<f32>,
    map: Option<String>,
    mappings: Vec<PathBuf>,
    as_ext: bool,
    carry_sockets: bool,
    bvh_order: Option<String>,
    bvh_units: Option<String>,
    contacts: Option<String>,
    report: bool,
) -> PyResult<String> {
    let to = lift(py, options::format(to.as_deref()))?;
    let contacts = lift(py, options::contacts(contacts.as_deref()))?;
    let bvh = lift(
        py,
        options::bvh_write(bvh_order.as_deref(), bvh_units.as_deref()),
    )?;
    if let Some(fps) = fps.filter(|f| !(f.is_finite() && *f > 0.0)) {
        let refused = Error::unsupported(format!("fps={fps}: expected a positive number"));
        return Err(errors::to_py(py, &refused));
    }
    detached(py, || {
        let (mapping, tables) = options::mapping(map.as_deref(), &mappings)?;
        let options = RetargetOptions {
            clip,
            fps,
            mapping,
            as_ext,
            to,
            force,
            bvh,
            carry_sockets,
            contacts,
            contacts_compare: report,
        };
        report_json(
            &humanoid::retarget::retarget(&anim, &onto, &dst, &options)?,
            tables,
        )
    })
}

/// Maps a rig: the `humanoid map --json` report, plus `mapped` (how, in words), `humanoid`
/// (whether any required bone was found) and `diagnostics`; as JSON text.
#[pyfunction]
#[pyo3(signature = (path, map=None, mappings=Vec::new()))]
fn map_rig(
    py: Python<'_>,
    path: PathBuf,
    map: Option<String>,
    mappings: Vec<PathBuf>,
) -> PyResult<String> {
    detached(py, || {
        let tables = Tables::load(map.as_deref(), &mappings)?;
        let (report, mapped) = map_file(&path, &tables)?;
        let mut value = serde_json::to_value(&report)
            .map_err(|e| Error::unsupported(format!("the report could not be serialized: {e}")))?;
        if let Some(object) = value.as_object_mut() {
            object.insert("mapped".into(), errors::python_words(&mapped.line()).into());
            object.insert("humanoid".into(), (!maps_no_required_bone(&mapped)).into());
            let mut diagnostics = serde_json::to_value(&tables.diagnostics).unwrap_or_default();
            for diagnostic in diagnostics.as_array_mut().into_iter().flatten() {
                errors::python_words_in(diagnostic);
            }
            object.insert("diagnostics".into(), diagnostics);
        }
        Ok(value.to_string())
    })
}

/// The world pose of every mapped bone: the bone names, the sample times (clamped to the
/// clip) and a `times × bones × 7` array (position x, y, z; quaternion x, y, z, w). Without
/// `times` or `uniform`: the rest pose, one row at time 0.
#[pyfunction]
#[pyo3(signature = (
    model, anim=None, times=None, uniform=None, clip=None, map=None, mappings=Vec::new(),
    rotate_vrm0=false
))]
#[allow(clippy::too_many_arguments)]
fn pose<'py>(
    py: Python<'py>,
    model: PathBuf,
    anim: Option<PathBuf>,
    times: Option<Vec<f32>>,
    uniform: Option<usize>,
    clip: Option<String>,
    map: Option<String>,
    mappings: Vec<PathBuf>,
    rotate_vrm0: bool,
) -> PyResult<(Vec<&'static str>, Vec<f32>, Bound<'py, PyAny>)> {
    let times = match (times, uniform) {
        (Some(_), Some(_)) => {
            return Err(errors::to_py(
                py,
                &Error::unsupported("pose takes times or uniform, not both"),
            ));
        }
        (Some(t), None) => Times::At(t),
        (None, Some(n)) => Times::Uniform(n),
        (None, None) => Times::Rest,
    };
    let rest_only = times == Times::Rest;
    let report = detached(py, || {
        let (mapping, _) = options::mapping(map.as_deref(), &mappings)?;
        let options = PoseOptions {
            rotate_vrm0,
            mapping,
            anim,
            clip,
            times,
        };
        bone_pose::pose(&model, &options)
    })?;
    let bones: Vec<&'static str> = report.rest.keys().copied().collect();
    let rows: Vec<(f32, &_)> = if rest_only {
        vec![(0.0, &report.rest)]
    } else {
        report
            .samples
            .iter()
            .map(|s| (s.t_clamped, &s.bones))
            .collect()
    };
    let mut values = Vec::with_capacity(rows.len() * bones.len() * 7);
    for (_, row) in &rows {
        for bone in &bones {
            let t = row.get(bone).copied().unwrap_or(bone_pose::BoneTransform {
                p: [f32::NAN; 3],
                q: [f32::NAN; 4],
            });
            values.extend_from_slice(&t.p);
            values.extend_from_slice(&t.q);
        }
    }
    let clamped = rows.iter().map(|(t, _)| *t).collect();
    let array = Array3::from_shape_vec((rows.len(), bones.len(), 7), values)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok((bones, clamped, array.into_pyarray(py).into_any()))
}

/// Rebases a character on the canonical T-pose and writes it (`convert(..., normalize=True)`).
#[pyfunction]
#[pyo3(signature = (src, dst, to=None, force=false, rest="auto", rebind=false, map=None, mappings=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn normalize(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    to: Option<String>,
    force: bool,
    rest: &str,
    rebind: bool,
    map: Option<String>,
    mappings: Vec<PathBuf>,
) -> PyResult<String> {
    convert(
        py,
        src,
        dst,
        to,
        force,
        map,
        mappings,
        None,
        true,
        rest,
        rebind,
        false,
        None,
        Vec::new(),
        None,
        None,
        None,
        None,
        None,
    )
}

/// Writes the bundled mannequin into `dir`; the files written.
#[pyfunction]
#[pyo3(signature = (dir, force=false))]
fn demo(py: Python<'_>, dir: PathBuf, force: bool) -> PyResult<Vec<PathBuf>> {
    detached(py, || humanoid::demo::write_demo(&dir, force))
}

/// The extension module: the functions above, the exceptions, `__version__`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(_read_only, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(convert_many, m)?)?;
    m.add_function(wrap_pyfunction!(write, m)?)?;
    m.add_function(wrap_pyfunction!(_python_words, m)?)?;
    m.add_function(wrap_pyfunction!(retarget, m)?)?;
    m.add_function(wrap_pyfunction!(map_rig, m)?)?;
    m.add_function(wrap_pyfunction!(pose, m)?)?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(demo, m)?)?;
    Ok(())
}
