//! A character read by the library, handed to Python as plain values and NumPy arrays (the
//! package's `Character`, `Clip` and `Track` wrap them): one copy of each array, no per-key
//! Python object.

use std::collections::HashMap;

use humanoid::math::sample::Interpolation;
use humanoid::model::asset::{Asset, Facing};
use humanoid::model::clip::{Clip, Track, TrackTarget};
use humanoid::{Diagnostic, Diagnostics};
use numpy::ndarray::{Array1, Array2, Array3};
use numpy::{IntoPyArray, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Each joint's parent index, -1 for a root: the `parents` array.
pub fn parents(asset: &Asset) -> Vec<i32> {
    asset
        .skeleton
        .parents()
        .iter()
        .map(|p| index_i32(p.map(|j| j.index())))
        .collect()
}

/// The first humanoid's bone names and the index of each one's joint: the `bones` and
/// `bone_joints` arrays.
pub fn bone_map(asset: &Asset) -> (Vec<&str>, Vec<i32>) {
    asset
        .humanoids
        .first()
        .map(|h| {
            h.bones
                .iter()
                .filter(|(_, joint)| asset.skeleton.contains(*joint))
                .map(|(bone, joint)| (bone.as_str(), index_i32(Some(joint.index()))))
                .unzip()
        })
        .unwrap_or_default()
}

/// The index of a joint (or -1) as NumPy's `int32`: skeletons hold at most 2³¹ joints.
fn index_i32(index: Option<usize>) -> i32 {
    index.and_then(|i| i32::try_from(i).ok()).unwrap_or(-1)
}

/// `rows × width` floats as an array; `None` when the lengths disagree (never for the library's
/// own arrays).
fn matrix<'py>(
    py: Python<'py>,
    rows: usize,
    width: usize,
    values: Vec<f32>,
) -> PyResult<Bound<'py, PyAny>> {
    let array = Array2::from_shape_vec((rows, width), values)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(array.into_pyarray(py).into_any())
}

/// The character as a dict (the package's `Character` fields); its clips' values move into
/// NumPy arrays.
pub fn to_dict<'py>(
    py: Python<'py>,
    asset: Asset,
    diagnostics: &Diagnostics,
    mapped: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let skeleton = &asset.skeleton;
    let n = skeleton.len();
    let dict = PyDict::new(py);
    dict.set_item("format", asset.format.name())?;
    dict.set_item(
        "facing",
        match asset.facing {
            Facing::PlusZ => "+Z",
            Facing::MinusZ => "-Z",
        },
    )?;
    dict.set_item("joints", skeleton.names())?;
    dict.set_item("parents", Array1::from(parents(&asset)).into_pyarray(py))?;
    let locals = skeleton.rest_locals();
    let worlds = skeleton.rest_worlds();
    let flat3 = |f: &dyn Fn(usize) -> [f32; 3]| (0..n).flat_map(f).collect::<Vec<f32>>();
    let flat4 = |f: &dyn Fn(usize) -> [f32; 4]| (0..n).flat_map(f).collect::<Vec<f32>>();
    dict.set_item(
        "rest_translations",
        matrix(py, n, 3, flat3(&|i| locals[i].translation.to_array()))?,
    )?;
    dict.set_item(
        "rest_rotations",
        matrix(py, n, 4, flat4(&|i| locals[i].rotation.to_array()))?,
    )?;
    dict.set_item(
        "rest_scales",
        matrix(py, n, 3, flat3(&|i| locals[i].scale.to_array()))?,
    )?;
    dict.set_item(
        "world_translations",
        matrix(py, n, 3, flat3(&|i| worlds[i].translation.to_array()))?,
    )?;
    dict.set_item(
        "world_rotations",
        matrix(py, n, 4, flat4(&|i| worlds[i].rotation.to_array()))?,
    )?;
    let (bones, joints) = bone_map(&asset);
    dict.set_item("bones", bones)?;
    dict.set_item("bone_joints", Array1::from(joints).into_pyarray(py))?;
    dict.set_item("mapped", crate::errors::python_words(mapped))?;
    let expressions: Vec<&str> = asset.expressions.iter().map(|e| e.name.as_str()).collect();
    dict.set_item("expressions", expressions)?;
    let clips = PyList::empty(py);
    let mut shared = SharedTimes::new();
    for clip in asset.clips {
        clips.append(clip_dict(py, clip, &mut shared)?)?;
    }
    dict.set_item("clips", clips)?;
    dict.set_item("diagnostics", diagnostics_list(py, diagnostics)?)?;
    Ok(dict)
}

/// Key times already handed to Python, by the address of the library's shared array: tracks
/// that share their times (one glTF input accessor) share one read-only NumPy array.
type SharedTimes<'py> = HashMap<(usize, usize), Bound<'py, PyAny>>;

fn clip_dict<'py>(
    py: Python<'py>,
    clip: Clip,
    shared: &mut SharedTimes<'py>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("name", &clip.name)?;
    dict.set_item("duration", clip.duration())?;
    let tracks = PyList::empty(py);
    for track in clip.into_tracks() {
        tracks.append(track_dict(py, track, shared)?)?;
    }
    dict.set_item("tracks", tracks)?;
    Ok(dict)
}

fn times_array<'py>(
    py: Python<'py>,
    times: &[f32],
    shared: &mut SharedTimes<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let key = (times.as_ptr() as usize, times.len());
    if let Some(array) = shared.get(&key) {
        return Ok(array.clone());
    }
    let array = numpy::PyArray1::from_slice(py, times);
    array.readwrite().make_nonwriteable();
    let array = array.into_any();
    shared.insert(key, array.clone());
    Ok(array)
}

fn track_dict<'py>(
    py: Python<'py>,
    track: Track,
    shared: &mut SharedTimes<'py>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let (target, index, bone): (&str, Option<usize>, Option<&str>) = match track.target() {
        TrackTarget::Joint(joint) => ("joint", Some(joint.index()), None),
        TrackTarget::Bone(bone) => ("bone", None, Some(bone.as_str())),
        TrackTarget::Expression(i) => ("expression", Some(usize::from(i)), None),
        TrackTarget::LookAt => ("lookAt", None, None),
        TrackTarget::Mesh(i) => ("mesh", Some(usize::from(i)), None),
    };
    dict.set_item("target", target)?;
    dict.set_item("index", index)?;
    dict.set_item("bone", bone)?;
    dict.set_item("property", track.property().as_str())?;
    let interpolation = track.interpolation();
    dict.set_item(
        "interpolation",
        match interpolation {
            Interpolation::Step => "STEP",
            Interpolation::Linear => "LINEAR",
            Interpolation::CubicSpline => "CUBICSPLINE",
        },
    )?;
    let keys = track.times().len();
    dict.set_item("times", times_array(py, track.times(), shared)?)?;
    let components = track.property().components();
    // The values move into NumPy without a copy.
    let values = track.into_values();
    let array = if interpolation == Interpolation::CubicSpline {
        Array3::from_shape_vec((keys, 3, components), values).map(|a| a.into_pyarray(py).into_any())
    } else {
        Array2::from_shape_vec((keys, components), values).map(|a| a.into_pyarray(py).into_any())
    }
    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    dict.set_item("values", array)?;
    Ok(dict)
}

/// Diagnostics as a list of dicts: `code`, `severity`, `location`, `message`.
pub fn diagnostics_list<'py>(
    py: Python<'py>,
    diagnostics: &Diagnostics,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for d in diagnostics.iter() {
        list.append(diagnostic_dict(py, d)?)?;
    }
    Ok(list)
}

fn diagnostic_dict<'py>(py: Python<'py>, d: &Diagnostic) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("code", d.code)?;
    dict.set_item("severity", d.severity.to_string())?;
    dict.set_item("location", &d.location)?;
    dict.set_item("message", crate::errors::python_words(&d.message))?;
    Ok(dict)
}
