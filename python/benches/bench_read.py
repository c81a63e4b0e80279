#!/usr/bin/env python3
"""Reading a long clip into NumPy costs little more than the Rust read alone.

Generates (here, with NumPy and the GLB layout, not with the library) the mannequin with one
clip of KEYS keyframes: a rotation channel on every joint and the hips translation, sharing
one time accessor. Then times, interleaved, best of RUNS:

- `_native._read_only(path)`: the library's read alone (parse, check, build the model);
- `humanoid.read(path)`: the same read plus every array handed to Python.

    python python/benches/bench_read.py [KEYS=100000] [RUNS=7]

Prints the ratio (the issue asks at most 1.5x), the CPU use and the load average beside it.
"""

from __future__ import annotations

import json
import os
import pathlib
import struct
import sys
import tempfile
import time

import numpy as np

import humanoid
from humanoid import _native


def glb_parts(data: bytes):
    json_length, _ = struct.unpack_from("<II", data, 12)
    document = json.loads(data[20 : 20 + json_length])
    offset = 20 + json_length
    bin_length, _ = struct.unpack_from("<II", data, offset)
    return document, bytearray(data[offset + 8 : offset + 8 + bin_length])


def write_glb(path: pathlib.Path, document: dict, binary: bytes) -> None:
    text = json.dumps(document, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    binary = bytes(binary) + b"\0" * (-len(binary) % 4)
    total = 12 + 8 + len(text) + 8 + len(binary)
    with open(path, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, total))
        f.write(struct.pack("<II", len(text), 0x4E4F534A) + text)
        f.write(struct.pack("<II", len(binary), 0x004E4942) + binary)


def long_clip(mannequin: pathlib.Path, keys: int, out: pathlib.Path) -> int:
    """The mannequin with a clip of `keys` keys on every joint; the number of keys written."""
    document, binary = glb_parts(mannequin.read_bytes())
    document["buffers"][0]["byteLength"] = None  # set below
    views, accessors = document.setdefault("bufferViews", []), document.setdefault("accessors", [])

    def add(array: np.ndarray, kind: str) -> int:
        binary.extend(b"\0" * (-len(binary) % 4))
        views.append({"buffer": 0, "byteOffset": len(binary), "byteLength": array.nbytes})
        binary.extend(array.astype("<f4").tobytes())
        accessor = {"bufferView": len(views) - 1, "componentType": 5126, "count": len(array), "type": kind}
        if kind == "SCALAR":
            accessor["min"], accessor["max"] = [float(array.min())], [float(array.max())]
        accessors.append(accessor)
        return len(accessors) - 1

    rng = np.random.default_rng(19)
    times = add(np.arange(keys, dtype=np.float32) / 30.0, "SCALAR")
    joints = sorted({j for skin in document["skins"] for j in skin["joints"]})
    samplers, channels = [], []
    for node in joints:
        # Small random turns about the rest: unit quaternions near identity times the rest.
        angles = rng.normal(0.0, 0.05, size=(keys, 3)).astype(np.float32)
        q = np.concatenate([angles * 0.5, np.ones((keys, 1), np.float32)], axis=1)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        samplers.append({"input": times, "output": add(q, "VEC4")})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": node, "path": "rotation"}})
    hips = joints[0]
    rest = np.array(document["nodes"][hips].get("translation", [0, 0, 0]), np.float32)
    positions = rest + rng.normal(0.0, 0.01, size=(keys, 3)).astype(np.float32)
    samplers.append({"input": times, "output": add(positions, "VEC3")})
    channels.append({"sampler": len(samplers) - 1, "target": {"node": hips, "path": "translation"}})
    document.setdefault("animations", []).append({"name": "long", "samplers": samplers, "channels": channels})
    binary.extend(b"\0" * (-len(binary) % 4))
    document["buffers"][0]["byteLength"] = len(binary)
    write_glb(out, document, binary)
    return keys * len(channels)


def best(function, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    keys = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    folder = pathlib.Path(tempfile.mkdtemp(prefix="humanoid-bench-"))
    humanoid.demo(folder)
    path = folder / "long.glb"
    total = long_clip(folder / "mannequin.glb", keys, path)
    character = humanoid.read(path)
    clip = next(c for c in character.clips if c.name == "long")
    assert sum(t.times.shape[0] for t in clip.tracks) == total, "every key read"
    print(f"{path.stat().st_size / 1e6:.1f} MB GLB, {keys} keys x {len(clip.tracks)} channels = {total} keys")
    cpu0, wall0 = time.process_time(), time.perf_counter()
    rust, python = [], []
    for _ in range(runs):  # interleaved, so both see the same machine
        rust.append(best(lambda: _native._read_only(path), 1))
        python.append(best(lambda: humanoid.read(path), 1))
    cpu = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
    r, p = min(rust), min(python)
    print(f"Rust read alone:        {r * 1e3:8.1f} ms (best of {runs})")
    print(f"humanoid.read (NumPy):  {p * 1e3:8.1f} ms (best of {runs})")
    print(f"ratio {p / r:.2f}x (at most 1.5x asked); CPU use {cpu:.2f} cores; load average {os.getloadavg()[0]:.2f}")
    return 0 if p / r <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
