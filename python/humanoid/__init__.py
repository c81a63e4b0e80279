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
>>> hero.rest_translations[hero.joint("head")] *= 1.1    # edit in NumPy, then save
>>> humanoid.write(hero, folder / "tall.glb")["format"]
'glb'
>>> files = [folder / "mannequin.glb", folder / "tall.glb"]
>>> [r.status for r in humanoid.convert_many(files, folder / "bvh", to="bvh")]
['ok', 'ok']

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
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

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
    "ConvertResult",
    "HumanoidError",
    "InvalidFileError",
    "UnsupportedError",
    "FileAccessError",
    "read",
    "write",
    "convert",
    "convert_many",
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

# The formats the library writes (`humanoid::formats::Format::can_write`); it reads FBX too.
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

    def __repr__(self) -> str:
        if self.target == "bone":
            aim = f"bone {self.bone}"
        elif self.index is not None:
            aim = f"{self.target} {self.index}"
        else:
            aim = self.target
        keys = len(self.times)
        return f"<humanoid.Track {aim} {self.property} {self.interpolation}: {keys} key{'' if keys == 1 else 's'}>"


def _short(name: str, most: int = 24) -> str:
    return name if len(name) <= most else name[: most - 1] + "…"


@dataclass(frozen=True)
class Clip:
    """A named animation: its tracks and its duration in seconds."""

    name: str
    duration: float
    tracks: List[Track]

    def __repr__(self) -> str:
        n = len(self.tracks)
        return f"<humanoid.Clip {_short(self.name, 40)!r}: {self.duration:.3g} s, {n} track{'' if n == 1 else 's'}>"


@dataclass(frozen=True)
class Character:
    """A file read into the canonical model.

    Arrays are indexed by joint (``N`` joints, parents before children): ``parents`` ``(N,)``
    int32 (-1 for a root), ``rest_translations`` / ``rest_scales`` ``(N, 3)`` and
    ``rest_rotations`` ``(N, 4)`` (``[x, y, z, w]``) local to the parent, and
    ``world_translations`` / ``world_rotations`` the same at rest in the file's space.
    ``bones`` names the mapped canonical bones (VRM 1.0 names, parents first) and
    ``bone_joints`` their joints; :func:`pose` returns its bones in this order. ``meshes`` is
    how many meshes the file holds (a glTF's meshes, an H-Anim figure's skins and segments);
    ``source`` is the file read (an absolute path).

    The arrays may be edited in place (or replaced with :func:`dataclasses.replace`) and saved
    with :func:`write`: the rest arrays (``rest_translations``, ``rest_rotations``,
    ``rest_scales``, local to the parent), ``joints`` (names) and the clips (their tracks'
    ``times`` and ``values``; tracks and clips may be added). ``world_*`` follow from the rest
    arrays; ``parents`` and the bone map are the file's.
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
    meshes: int = 0
    source: Optional[str] = None
    # How it was read (``map``, ``mappings``, ``bvh_scale``): :func:`write` reads the file
    # again the same way.
    _read_with: Tuple[Optional[str], Tuple[str, ...], Optional[float]] = field(
        default=(None, (), None), repr=False, compare=False
    )

    def __repr__(self) -> str:
        def count(n: int, what: str, plural: str = "s") -> str:
            return f"{n} {what}{'' if n == 1 else plural}"

        clips = count(len(self.clips), "clip")
        if len(self.clips) == 1:
            clip = self.clips[0]
            clips += f" ({_short(clip.name)}, {clip.duration:.3g} s)"
        elif self.clips:
            names = [_short(c.name) for c in self.clips[:3]] + (["…"] if len(self.clips) > 3 else [])
            clips += f" ({', '.join(names)})"
        return (
            f"<humanoid.Character {self.format}: {count(len(self.joints), 'joint')}, "
            f"{count(len(self.bones), 'bone')}, {clips}, {count(self.meshes, 'mesh', 'es')}>"
        )

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
    bvh_scale: Optional[float] = None,
) -> Character:
    """Reads any supported file (glTF/GLB, VRM 0.x/1.0, VRMA, H-Anim, BVH, Godot) into a
    :class:`Character`.

    The humanoid is the file's own declaration, else the built-in mapping tables' or the
    auto-mapper's (``map`` forces a table: a built-in name, a ``.toml`` or Godot ``.tres`` file,
    or ``"auto"``; ``mappings`` adds folders of tables). A file that is not a humanoid is read
    with no bones (``mapped`` says why) unless ``map`` was given. ``bvh_scale`` is a BVH file's
    metres per unit (default: guessed from the hips height, and said in a diagnostic).
    """
    paths = _paths(mappings)
    raw = _native.read(os.fspath(path), map, paths, bvh_scale)
    raw["source"] = os.path.abspath(os.fspath(raw["source"]))  # write reads it again from here
    clips = [
        Clip(
            name=c["name"],
            duration=c["duration"],
            tracks=[Track(**t) for t in c["tracks"]],
        )
        for c in raw.pop("clips")
    ]
    return Character(clips=clips, _read_with=(map, tuple(paths), bvh_scale), **raw)


def _floats(array: Any, shape: Tuple[int, ...], name: str) -> np.ndarray:
    values = np.ascontiguousarray(array, dtype=np.float32)
    if values.shape != shape:
        raise ValueError(f"{name}: shape {values.shape}, expected {shape}")
    return values


def write(
    character: Character,
    path: PathLike,
    *,
    to: Optional[Format] = None,
    force: bool = False,
    clip: Optional[str] = None,
    strip_vrm: bool = False,
    vrm_name: Optional[str] = None,
    vrm_authors: Sequence[str] = (),
    vrm_license_url: Optional[str] = None,
    bvh_order: Optional[str] = None,
    bvh_units: Optional[Literal["cm", "m"]] = None,
    khr_character: Optional[Literal["uri", "node-index", "off"]] = None,
) -> Dict[str, Any]:
    """Writes ``character`` (from :func:`read`) to ``path`` with its arrays as they are now,
    through the library's one write, in any format it writes (``to`` or the extension picks it;
    the options are :func:`convert`'s). Returns the report, as :func:`convert`.

    What was read is written again (the file is read once more, the same way: a glTF keeps its
    meshes, materials and extensions; a BVH its channel layout), with the edited arrays put in:
    each joint's rest (``rest_translations``, ``rest_rotations``, ``rest_scales``) and name
    (``joints``), and the clips (each track's ``times`` and ``values``; tracks and clips added,
    tracks removed). A change to ``parents``, to the bone map, or to a ``world_*`` array alone
    is refused (:class:`UnsupportedError`). An existing ``path`` is refused unless ``force``;
    the file read is never replaced. For example::

        hero = humanoid.read("hero.glb")
        hero.rest_translations[hero.joint("head")] += [0, 0.02, 0]   # local to the parent
        hero.clips[0].tracks[0].values[:] *= 1.5                     # a bigger motion
        humanoid.write(hero, "hero-edited.vrm", to="vrm1")
    """
    if character.source is None:
        raise ValueError("write takes a Character from humanoid.read (this one has no source file)")
    n = len(character.joints)
    clips = []
    for c, each in enumerate(character.clips):
        tracks = []
        for t, track in enumerate(each.tracks):
            times = np.ascontiguousarray(track.times, dtype=np.float32)
            values = np.ascontiguousarray(track.values, dtype=np.float32)
            if times.ndim != 1 or values.ndim not in (2, 3) or values.shape[0] != times.shape[0]:
                raise ValueError(
                    f"clips[{c}].tracks[{t}]: times {times.shape} and values {values.shape}: "
                    "expected (K,) and (K, C), or (K, 3, C) for CUBICSPLINE"
                )
            tracks.append(
                {
                    "target": track.target,
                    "index": None if track.index is None else int(track.index),
                    "bone": track.bone,
                    "property": track.property,
                    "interpolation": track.interpolation,
                    "times": times,
                    "values": values,
                }
            )
        clips.append({"name": each.name, "tracks": tracks})
    edits = {
        "joints": [str(name) for name in character.joints],
        "parents": np.ascontiguousarray(character.parents, dtype=np.int32),
        "rest_translations": _floats(character.rest_translations, (n, 3), "rest_translations"),
        "rest_rotations": _floats(character.rest_rotations, (n, 4), "rest_rotations"),
        "rest_scales": _floats(character.rest_scales, (n, 3), "rest_scales"),
        "world_translations": _floats(character.world_translations, (n, 3), "world_translations"),
        "world_rotations": _floats(character.world_rotations, (n, 4), "world_rotations"),
        "bones": [str(bone) for bone in character.bones],
        "bone_joints": np.ascontiguousarray(character.bone_joints, dtype=np.int32),
        "clips": clips,
    }
    map, mappings, bvh_scale = character._read_with
    return json.loads(
        _native.write(
            character.source,
            os.fspath(path),
            edits,
            to,
            force,
            map,
            list(mappings),
            bvh_scale,
            clip,
            strip_vrm,
            vrm_name,
            list(vrm_authors),
            vrm_license_url,
            bvh_order,
            bvh_units,
            khr_character,
        )
    )


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
    or ``=node-index``, or ``"off"`` for ``--no-khr-character``; ``None``, the default, adds
    no Khronos avatar draft: plain glTF + EXT_skeleton_humanoid, a glTF input's own drafts kept). An existing ``dst`` is refused unless
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


@dataclass(frozen=True)
class ConvertResult:
    """What :func:`convert_many` did with one input.

    ``status`` is ``"ok"`` (written: ``output``, and ``files``, every file written), ``"skipped"``
    (``output`` existed and ``force`` was not given), ``"refused"`` (the conversion cannot be
    done: no humanoid, a format that cannot hold it, two inputs landing on one output) or
    ``"failed"`` (the input is malformed, or reading or writing failed); ``code`` and
    ``message`` say why, as :class:`HumanoidError`'s do. ``diagnostics`` are the conversion's
    (what could not be carried).
    """

    input: str
    output: Optional[str]
    status: Literal["ok", "skipped", "refused", "failed"]
    code: Optional[str] = None
    message: Optional[str] = None
    diagnostics: List[Diagnostic] = field(default_factory=list)
    files: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the input was written."""
        return self.status == "ok"

    def __repr__(self) -> str:
        to = f" -> {self.output}" if self.output else ""
        why = f": {self.code}" if self.code else ""
        n = len(self.diagnostics)
        return f"<humanoid.ConvertResult {self.status}{why}: {self.input}{to}, {n} diagnostic{'' if n == 1 else 's'}>"


def convert_many(
    inputs: Union[PathLike, Sequence[PathLike]],
    out_dir: PathLike,
    *,
    to: Format,
    jobs: Optional[int] = None,
    force: bool = False,
    recursive: bool = False,
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
) -> List[ConvertResult]:
    """Converts many files into ``out_dir`` as ``to`` files, on the engine of the command line's
    batch (``humanoid convert INPUT... -o DIR --to FORMAT``), ``jobs`` threads at a time (``None``:
    one per core) without holding the GIL. Returns one :class:`ConvertResult` per input, sorted
    by input; a failing file never stops the others.

    ``inputs`` are files, folders (their files of a format humanoid reads; ``recursive``: their
    subfolders too) and glob patterns (``"mocap/*.bvh"``). Each output is
    ``out_dir/<the input's folder below the folder given>/<stem>.<extension>``. An existing
    output is skipped (``status="skipped"``) unless ``force``, so a run that was stopped
    resumes. The other options are :func:`convert`'s, for every input. A missing input or a
    pattern that matches nothing raises before any work.
    """
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    raw = json.loads(
        _native.convert_many(
            [os.fspath(p) for p in inputs],
            os.fspath(out_dir),
            to,
            jobs,
            force,
            recursive,
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
    return [ConvertResult(**record) for record in raw]


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
