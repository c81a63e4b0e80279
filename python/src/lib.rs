//! `humanoid._native`: the library's operations for Python. Each function takes paths and
//! keyword options, runs without the GIL (threads and Dask workers convert in parallel), and
//! returns plain values and NumPy arrays; the package `humanoid` (python/humanoid/) wraps them
//! with typed signatures and small classes.
//!
//! Reports (what was written, what was dropped) come back as JSON text, the exact objects the
//! command line prints with `--json`; the package parses them.

mod character;
mod errors;
mod options;

use std::path::PathBuf;

use humanoid::bone_pose::{self, PoseOptions, Times};
use humanoid::mapping::map_humanoid;
use humanoid::retarget::RetargetOptions;
use humanoid::rig_tables::{map_file, maps_no_required_bone, Tables};
use humanoid::{ConvertOptions, Diagnostics, Error};
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
        *list = all;
    }
    Ok(value.to_string())
}

/// Reads a file into a dict of plain values and arrays (`humanoid.Character`'s fields).
#[pyfunction]
#[pyo3(signature = (path, map=None, mappings=Vec::new()))]
fn read<'py>(
    py: Python<'py>,
    path: PathBuf,
    map: Option<String>,
    mappings: Vec<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let forced = map.is_some();
    let (outcome, mapped, tables) = detached(py, || {
        let (rig, tables) = options::mapping(map.as_deref(), &mappings)?;
        let mut outcome = humanoid::read_asset(&path)?;
        let mapped = match map_humanoid(&mut outcome.asset, &path, rig.as_ref()) {
            Ok(mapped) => mapped.line(),
            // A file that is not a humanoid is still read; asked to map it, it is an error.
            Err(e) if !forced => format!("no humanoid: {e}"),
            Err(e) => return Err(e),
        };
        Ok((outcome, mapped, tables))
    })?;
    let mut diagnostics = tables;
    diagnostics.extend(outcome.diagnostics.clone());
    character::to_dict(py, outcome.asset, &diagnostics, &mapped)
}

/// Reads a file and drops it: the Rust read alone, for the benchmark that compares it with
/// `read` (which also builds the arrays).
#[pyfunction]
fn _read_only(py: Python<'_>, path: PathBuf) -> PyResult<usize> {
    detached(py, || Ok(humanoid::read_asset(&path)?.asset.skeleton.len()))
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
    let normalize = lift(py, options::normalize(normalize, rest, rebind))?;
    let to = lift(py, options::format(to.as_deref()))?;
    let order = lift(py, options::bvh_order(bvh_order.as_deref()))?;
    let units = lift(py, options::bvh_units(bvh_units.as_deref()))?;
    let khr = lift(py, options::khr_character(khr_character.as_deref()))?;
    let vrm = options::vrm(strip_vrm, vrm_name, vrm_authors, vrm_license_url);
    detached(py, || {
        let (mapping, tables) = options::mapping(map.as_deref(), &mappings)?;
        let options = ConvertOptions {
            to,
            force,
            vrm,
            mapping,
            clip,
            bvh_read_scale: bvh_scale,
            bvh_order: order,
            bvh_write_scale: units,
            normalize,
            khr_character: khr,
        };
        report_json(&humanoid::convert(&src, &dst, &options)?, tables)
    })
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
            object.insert("mapped".into(), mapped.line().into());
            object.insert("humanoid".into(), (!maps_no_required_bone(&mapped)).into());
            object.insert(
                "diagnostics".into(),
                serde_json::to_value(&tables.diagnostics).unwrap_or_default(),
            );
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
    m.add_function(wrap_pyfunction!(retarget, m)?)?;
    m.add_function(wrap_pyfunction!(map_rig, m)?)?;
    m.add_function(wrap_pyfunction!(pose, m)?)?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(demo, m)?)?;
    Ok(())
}
