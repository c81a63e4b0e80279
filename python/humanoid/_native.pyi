"""Typed stubs of the extension module ``humanoid._native`` (python/src/lib.rs)."""

from os import PathLike
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

_Path = Union[str, PathLike[str]]

__version__: str

class HumanoidError(Exception):
    message: str
    code: str
    file: Optional[str]
    place: Optional[str]

class InvalidFileError(HumanoidError): ...
class UnsupportedError(HumanoidError): ...
class FileAccessError(HumanoidError): ...

def read(
    path: _Path,
    map: Optional[str] = None,
    mappings: Sequence[_Path] = ...,
    bvh_scale: Optional[float] = None,
) -> Dict[str, Any]:
    """The Character's fields (arrays, lists, and `meshes`, `source`, `clips` as dicts)."""
def _read_only(path: _Path) -> int: ...
def convert(
    src: _Path,
    dst: _Path,
    to: Optional[str] = None,
    force: bool = False,
    map: Optional[str] = None,
    mappings: Sequence[_Path] = ...,
    clip: Optional[str] = None,
    normalize: bool = False,
    rest: str = "auto",
    rebind: bool = False,
    strip_vrm: bool = False,
    vrm_name: Optional[str] = None,
    vrm_authors: Sequence[str] = ...,
    vrm_license_url: Optional[str] = None,
    bvh_scale: Optional[float] = None,
    bvh_order: Optional[str] = None,
    bvh_units: Optional[str] = None,
    khr_character: Optional[str] = None,
) -> str: ...
def convert_many(
    inputs: Sequence[_Path],
    out_dir: _Path,
    to: str,
    jobs: Optional[int] = None,
    force: bool = False,
    recursive: bool = False,
    map: Optional[str] = None,
    mappings: Sequence[_Path] = ...,
    clip: Optional[str] = None,
    normalize: bool = False,
    rest: str = "auto",
    rebind: bool = False,
    strip_vrm: bool = False,
    vrm_name: Optional[str] = None,
    vrm_authors: Sequence[str] = ...,
    vrm_license_url: Optional[str] = None,
    bvh_scale: Optional[float] = None,
    bvh_order: Optional[str] = None,
    bvh_units: Optional[str] = None,
    khr_character: Optional[str] = None,
) -> str:
    """A JSON list: one record per input (input, output, status, code, message, diagnostics, files)."""
def write(
    src: _Path,
    dst: _Path,
    edits: Dict[str, Any],
    to: Optional[str] = None,
    force: bool = False,
    map: Optional[str] = None,
    mappings: Sequence[_Path] = ...,
    bvh_scale: Optional[float] = None,
    clip: Optional[str] = None,
    strip_vrm: bool = False,
    vrm_name: Optional[str] = None,
    vrm_authors: Sequence[str] = ...,
    vrm_license_url: Optional[str] = None,
    bvh_order: Optional[str] = None,
    bvh_units: Optional[str] = None,
    khr_character: Optional[str] = None,
) -> str:
    """`edits`: the Character's arrays (joints, parents, rest_*, world_*, bones, bone_joints as
    float32 / int32 arrays; clips as dicts of name and tracks)."""
def _python_words(message: str) -> str: ...
def retarget(
    anim: _Path,
    onto: _Path,
    dst: _Path,
    to: Optional[str] = None,
    force: bool = False,
    clip: Optional[str] = None,
    fps: Optional[float] = None,
    map: Optional[str] = None,
    mappings: Sequence[_Path] = ...,
    as_ext: bool = False,
    carry_sockets: bool = False,
    bvh_order: Optional[str] = None,
    bvh_units: Optional[str] = None,
    contacts: Optional[str] = None,
    report: bool = False,
) -> str: ...
def map_rig(path: _Path, map: Optional[str] = None, mappings: Sequence[_Path] = ...) -> str: ...
def pose(
    model: _Path,
    anim: Optional[_Path] = None,
    times: Optional[Sequence[float]] = None,
    uniform: Optional[int] = None,
    clip: Optional[str] = None,
    map: Optional[str] = None,
    mappings: Sequence[_Path] = ...,
    rotate_vrm0: bool = False,
) -> Tuple[List[str], List[float], np.ndarray]: ...
def normalize(
    src: _Path,
    dst: _Path,
    to: Optional[str] = None,
    force: bool = False,
    rest: str = "auto",
    rebind: bool = False,
    map: Optional[str] = None,
    mappings: Sequence[_Path] = ...,
) -> str: ...
def demo(dir: _Path, force: bool = False) -> List[str]: ...
