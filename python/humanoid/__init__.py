"""Move humanoid characters and animations between glTF (EXT_skeleton_humanoid), VRM, H-Anim,
BVH, Godot and rig conventions.

The Rust library ``humanoid`` for Python: the same reading, mapping, retargeting and writing as
the ``humanoid`` command line, with skeletons, bone maps, clips and poses as NumPy arrays.

>>> import humanoid, tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = humanoid.demo(folder)                      # the bundled mannequin
>>> hero = humanoid.read(folder / "mannequin.glb")
>>> hero.parents.shape == (len(hero.joints),)
True
>>> report = humanoid.convert(folder / "mannequin.glb", folder / "hero.vrm", to="vrm1")
>>> report["format"]
'vrm1'
>>> humanoid.pose(folder / "mannequin.glb").shape[2]   # rest: 1 x bones x 7
7

Every function takes paths (``str`` or ``os.PathLike``), works without holding the GIL, and
raises :class:`HumanoidError` (or a subclass) with ``message``, ``code``, ``file`` and
``place`` when a file is wrong or a request is refused. Diagnostics (what a conversion dropped
or approximated) come back as lists of dicts with ``code``, ``severity``, ``location`` and
``message``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, Sequence, Union

import numpy as np

from . import _native
from ._native import (
    FileAccessError,
    HumanoidError,
    InvalidFileError,
    UnsupportedError,
)

__version__: str = _native.__version__

__all__ = [
    "Character",
    "Clip",
    "Track",
    "Diagnostic",
    "HumanoidError",
    "InvalidFileError",
    "UnsupportedError",
    "FileAccessError",
    "read",
    "convert",
    "retarget",
    "map_rig",
    "pose",
    "pose_bones",
    "normalize",
    "demo",
]

PathLike = Union[str, "os.PathLike[str]"]
Diagnostic = Dict[str, str]
"""One diagnostic: ``{"code", "severity", "location", "message"}``."""

Format = Literal[
    "glb",
    "gltf",
    "vrm1",
    "vrm0",
    "vrma",
    "x3d",
    "x3dv",
    "wrl",
    "bvh",
    "godot-bonemap",
    "godot-profile",
]


@dataclass(frozen=True)
class Track:
    """One animated property of one target.

    ``target`` is ``"joint"`` (``index`` is the joint), ``"bone"`` (``bone`` is the canonical
    bone; EXT_skeleton_humanoid channels and VRMA), ``"expression"`` (``index`` into
    :attr:`Character.expressions`), ``"lookAt"`` or ``"mesh"``. ``times`` is ``(K,)`` seconds;
    ``values`` is ``(K, C)`` (``C`` = 3 for translation and scale, 4 for rotation ``[x, y, z, w]``,
    the weight count for weights), or ``(K, 3, C)`` for ``CUBICSPLINE`` (in-tangent, value,
    out-tangent).
    """

    target: str
    index: Optional[int]
    bone: Optional[str]
    property: str
    interpolation: str
    times: np.ndarray
    values: np.ndarray


@dataclass(frozen=True)
class Clip:
    """A named animation: its tracks and its duration in seconds."""

    name: str
    duration: float
    tracks: List[Track]


@dataclass(frozen=True)
class Character:
    """A file read into the canonical model.

    Arrays are indexed by joint (``N`` joints, parents before children): ``parents`` ``(N,)``
    int32 (-1 for a root), ``rest_translations`` / ``rest_scales`` ``(N, 3)`` and
    ``rest_rotations`` ``(N, 4)`` (``[x, y, z, w]``) local to the parent, and
    ``world_translations`` / ``world_rotations`` the same at rest in the file's space.
    ``bones`` names the mapped canonical bones (VRM 1.0 names, parents first) and
    ``bone_joints`` their joints; :func:`pose` returns its bones in this order.
    """

    format: str
    facing: str
    joints: List[str]
    parents: np.ndarray
    rest_translations: np.ndarray
    rest_rotations: np.ndarray
    rest_scales: np.ndarray
    world_translations: np.ndarray
    world_rotations: np.ndarray
    bones: List[str]
    bone_joints: np.ndarray
    mapped: str
    expressions: List[str]
    clips: List[Clip] = field(default_factory=list)
    diagnostics: List[Diagnostic] = field(default_factory=list)

    @property
    def bone_map(self) -> Dict[str, str]:
        """Canonical bone -> joint name."""
        return {bone: self.joints[int(j)] for bone, j in zip(self.bones, self.bone_joints)}

    def joint(self, bone: str) -> int:
        """The joint index of a canonical bone (``KeyError`` when it is not mapped)."""
        try:
            return int(self.bone_joints[self.bones.index(bone)])
        except ValueError:
            raise KeyError(bone) from None


def _paths(mappings: Optional[Sequence[PathLike]]) -> List[str]:
    return [os.fspath(p) for p in (mappings or [])]


def read(
    path: PathLike,
    *,
    map: Optional[str] = None,
    mappings: Optional[Sequence[PathLike]] = None,
) -> Character:
    """Reads any supported file (glTF/GLB, VRM 0.x/1.0, VRMA, H-Anim, BVH, Godot) into a
    :class:`Character`.

    The humanoid is the file's own declaration, else the built-in mapping tables' or the
    auto-mapper's (``map`` forces a table: a built-in name, a ``.toml`` or Godot ``.tres`` file,
    or ``"auto"``; ``mappings`` adds folders of tables). A file that is not a humanoid is read
    with no bones (``mapped`` says why) unless ``map`` was given.
    """
    raw = _native.read(os.fspath(path), map, _paths(mappings))
    clips = [
        Clip(
            name=c["name"],
            duration=c["duration"],
            tracks=[Track(**t) for t in c["tracks"]],
        )
        for c in raw.pop("clips")
    ]
    return Character(clips=clips, **raw)


def convert(
    src: PathLike,
    dst: PathLike,
    *,
    to: Optional[Format] = None,
    force: bool = False,
    map: Optional[str] = None,
    mappings: Optional[Sequence[PathLike]] = None,
    clip: Optional[str] = None,
    normalize: bool = False,
    rest: Literal["auto", "node", "bind", "reference"] = "auto",
    rebind: bool = False,
    strip_vrm: bool = False,
    vrm_name: Optional[str] = None,
    vrm_authors: Sequence[str] = (),
    vrm_license_url: Optional[str] = None,
    bvh_scale: Optional[float] = None,
    bvh_order: Optional[str] = None,
    bvh_units: Optional[Literal["cm", "m"]] = None,
    khr_character: Optional[Literal["uri", "node-index", "off"]] = None,
) -> Dict[str, Any]:
    """Converts ``src`` into ``dst`` (``to`` or the extension picks the format), as
    ``humanoid convert``; the options are its flags (``khr_character``: ``--khr-character=uri``
    or ``=node-index``, or ``"off"`` for ``--no-khr-character``; ``None``, the default, adds the
    Khronos avatar drafts to a glTF made from a non-glTF input). An existing ``dst`` is refused unless
    ``force``. Returns the report: ``format``, ``bytes_written``, ``files`` and
    ``diagnostics`` (what could not be carried)."""
    return json.loads(
        _native.convert(
            os.fspath(src),
            os.fspath(dst),
            to,
            force,
            map,
            _paths(mappings),
            clip,
            normalize,
            rest,
            rebind,
            strip_vrm,
            vrm_name,
            list(vrm_authors),
            vrm_license_url,
            bvh_scale,
            bvh_order,
            bvh_units,
            khr_character,
        )
    )


def retarget(
    anim: PathLike,
    onto: PathLike,
    dst: PathLike,
    *,
    to: Optional[Format] = None,
    force: bool = False,
    clip: Optional[str] = None,
    fps: Optional[float] = None,
    map: Optional[str] = None,
    mappings: Optional[Sequence[PathLike]] = None,
    as_ext: bool = False,
    carry_sockets: bool = False,
    bvh_order: Optional[str] = None,
    bvh_units: Optional[Literal["cm", "m"]] = None,
    contacts: Literal["auto", "off"] = "auto",
    report: bool = False,
) -> Dict[str, Any]:
    """Plays ``anim``'s clip on the character ``onto`` (world deltas from the T-pose) and writes
    it to ``dst``, as ``humanoid retarget``. Returns the report, as :func:`convert`.

    ``contacts="auto"`` (the default) keeps the feet planted where the animation plants them
    (its ``"contacts"`` entry says what was found and changed); ``"off"`` copies every bone's
    world rotation exactly. ``report=True`` also measures the ``"off"`` output
    (``contacts["without_contacts"]``)."""
    return json.loads(
        _native.retarget(
            os.fspath(anim),
            os.fspath(onto),
            os.fspath(dst),
            to,
            force,
            clip,
            fps,
            map,
            _paths(mappings),
            as_ext,
            carry_sockets,
            bvh_order,
            bvh_units,
            contacts,
            report,
        )
    )


def map_rig(
    path: PathLike,
    *,
    map: Optional[str] = None,
    mappings: Optional[Sequence[PathLike]] = None,
) -> Dict[str, Any]:
    """Which joint of a rig is which canonical bone, as ``humanoid map --json``: ``method``
    (``declared``, ``table`` or ``auto``), ``table``, ``bones`` (bone -> joint name), ``nodes``,
    ``confidence``, ``missing``, ``unmapped``; plus ``mapped`` (in words), ``humanoid``
    (``False`` when no required bone was found) and ``diagnostics``."""
    return json.loads(_native.map_rig(os.fspath(path), map, _paths(mappings)))


def _pose(
    model: PathLike,
    anim: Optional[PathLike],
    times: Optional[Sequence[float]],
    uniform: Optional[int],
    clip: Optional[str],
    map: Optional[str],
    mappings: Optional[Sequence[PathLike]],
    rotate_vrm0: bool,
):
    return _native.pose(
        os.fspath(model),
        None if anim is None else os.fspath(anim),
        None if times is None else [float(t) for t in times],
        uniform,
        clip,
        map,
        _paths(mappings),
        rotate_vrm0,
    )


def pose(
    model: PathLike,
    anim: Optional[PathLike] = None,
    times: Optional[Sequence[float]] = None,
    *,
    uniform: Optional[int] = None,
    clip: Optional[str] = None,
    map: Optional[str] = None,
    mappings: Optional[Sequence[PathLike]] = None,
    rotate_vrm0: bool = False,
) -> np.ndarray:
    """The world pose of every mapped bone of ``model``: a ``(times, bones, 7)`` float32 array,
    position ``x, y, z`` (metres) then rotation ``x, y, z, w``, in the file's space, the same
    numbers as ``humanoid pose --json``.

    ``anim`` plays another file's clip on the model (else the model's own clip; ``clip`` picks
    one by name). ``times`` are seconds (clamped to the clip); ``uniform=N`` spreads ``N``
    times over the clip, ends included. With neither, the rest pose: one row. Bones follow
    :func:`pose_bones` (the same as :attr:`Character.bones` of ``read(model, map=map)``).
    """
    return _pose(model, anim, times, uniform, clip, map, mappings, rotate_vrm0)[2]


def pose_bones(
    model: PathLike,
    *,
    map: Optional[str] = None,
    mappings: Optional[Sequence[PathLike]] = None,
) -> List[str]:
    """The canonical bones :func:`pose` reports for ``model``, in its order."""
    return list(_pose(model, None, None, None, None, map, mappings, False)[0])


def normalize(
    src: PathLike,
    dst: PathLike,
    *,
    to: Optional[Format] = None,
    force: bool = False,
    rest: Literal["auto", "node", "bind", "reference"] = "auto",
    rebind: bool = False,
    map: Optional[str] = None,
    mappings: Optional[Sequence[PathLike]] = None,
) -> Dict[str, Any]:
    """Rebases ``src`` on the canonical T-pose and writes it to ``dst`` (every clip keeps its
    world motion, the mesh its bind; ``rebind`` bakes the mesh into the T-pose), as
    ``humanoid convert --normalize``. Returns the report, as :func:`convert`."""
    return json.loads(
        _native.normalize(
            os.fspath(src), os.fspath(dst), to, force, rest, rebind, map, _paths(mappings)
        )
    )


def demo(folder: PathLike, *, force: bool = False) -> List[str]:
    """Writes the bundled mannequin (``mannequin.glb`` with clips, and its
    EXT_skeleton_humanoid twin) into ``folder``; returns the paths written."""
    return [os.fspath(p) for p in _native.demo(os.fspath(folder), force)]
