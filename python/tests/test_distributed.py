"""The distributed example (examples/distributed/convert_folder.py): a run on a local Dask
cluster of two worker processes writes the same files, byte for byte, as the same tasks run one
after the other in this process; the summary adds up; a second run skips what exists; two
inputs with one output name are both refused."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Dict, Tuple

import pytest

import humanoid

pytest.importorskip("distributed")

SCRIPT = (
    Path(__file__).resolve().parents[2] / "examples" / "distributed" / "convert_folder.py"
)
CORRUPT_GLB = b"glTF\x02\x00\x00\x00\xff\x00\x00\x00"  # declares 255 bytes, has 12


def load_script():
    """Imports the example script as a module (it is not in a package)."""
    spec = importlib.util.spec_from_file_location("convert_folder", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


convert_folder = load_script()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """A folder of six inputs: the two demo files, an H-Anim and a BVH conversion of the
    mannequin in subfolders, a copy under another name, and a corrupt GLB."""
    root = tmp_path_factory.mktemp("inputs")
    humanoid.demo(root)
    mannequin = root / "mannequin.glb"
    (root / "hanim").mkdir()
    humanoid.convert(mannequin, root / "hanim" / "hero.x3d", to="x3d")
    (root / "mocap").mkdir()
    humanoid.convert(mannequin, root / "mocap" / "walk.bvh", to="bvh")
    (root / "copies").mkdir()
    shutil.copyfile(mannequin, root / "copies" / "hero_copy.glb")
    (root / "broken.glb").write_bytes(CORRUPT_GLB)
    return root


def run(inputs: Path, out: Path, *options: str) -> Tuple[int, Dict[str, Any]]:
    """Runs the script; returns its exit code and the summary it wrote."""
    code = convert_folder.main([str(inputs), "-o", str(out), *options])
    return code, json.loads((out / "summary.json").read_text())


def files(folder: Path) -> Dict[str, bytes]:
    """Every file under ``folder`` but the summary: relative path -> bytes."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file() and path.name != "summary.json"
    }


def statuses(inputs: Path, summary: Dict[str, Any]) -> Dict[str, str]:
    """Input relative to ``inputs`` -> status."""
    return {
        Path(r["input"]).relative_to(inputs).as_posix(): r["status"]
        for r in summary["records"]
    }


def check_counts(summary: Dict[str, Any]) -> None:
    """The totals, the per-code counts and the records agree."""
    records = summary["records"]
    assert summary["inputs"] == len(records) == sum(summary["totals"].values())
    for status, count in summary["totals"].items():
        assert count == sum(r["status"] == status for r in records)
    totals = summary["totals"]
    assert sum(summary["codes"].values()) == totals["refused"] + totals["failed"]
    assert [r["input"] for r in records] == sorted(r["input"] for r in records)


def test_cluster_run_matches_single_process_run(inputs: Path, tmp_path: Path) -> None:
    code_a, single = run(inputs, tmp_path / "out_a", "--to", "vrm1", "--single-process")
    code_b, cluster = run(inputs, tmp_path / "out_b", "--to", "vrm1", "--workers", "2")

    assert code_a == code_b == 1  # the corrupt file
    expected = {
        "broken.glb": "failed",
        "copies/hero_copy.glb": "ok",
        "hanim/hero.x3d": "ok",
        "mannequin.glb": "ok",
        "mannequin_ext_clips.glb": "ok",
        "mocap/walk.bvh": "ok",
    }
    assert statuses(inputs, single) == statuses(inputs, cluster) == expected
    for summary in (single, cluster):
        check_counts(summary)
        (broken,) = [r for r in summary["records"] if r["status"] == "failed"]
        assert broken["code"] == "GLTF_INVALID"
        assert "broken.glb" in broken["message"] and "12 bytes" in broken["message"]
    assert single["workers"] == 1 and single["mode"] == "single-process"
    assert cluster["workers"] == 2 and cluster["mode"] == "local cluster"

    written = files(tmp_path / "out_a")
    assert sorted(written) == [
        "copies/hero_copy.vrm",
        "hanim/hero.vrm",
        "mannequin.vrm",
        "mannequin_ext_clips.vrm",
        "mocap/walk.vrm",
    ]
    assert files(tmp_path / "out_b") == written


def test_cluster_retarget_matches_single_process_run(
    inputs: Path, tmp_path: Path
) -> None:
    onto = ["--onto", str(inputs / "mannequin.glb"), "--to", "vrma"]
    code_a, single = run(inputs, tmp_path / "out_a", *onto, "--single-process")
    code_b, cluster = run(inputs, tmp_path / "out_b", *onto, "--workers", "2")

    assert code_a == code_b == 1
    assert statuses(inputs, single) == statuses(inputs, cluster)
    assert [(r["status"], r["code"]) for r in single["records"]] == [
        (r["status"], r["code"]) for r in cluster["records"]
    ]
    ran = statuses(inputs, single)
    assert ran["broken.glb"] == "failed"
    for name in ("mannequin.glb", "copies/hero_copy.glb", "mocap/walk.bvh"):
        assert ran[name] == "ok"
    check_counts(single)
    check_counts(cluster)
    written = files(tmp_path / "out_a")
    assert "mannequin.vrma" in written
    assert files(tmp_path / "out_b") == written


def test_second_run_skips_existing_outputs(inputs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _, first = run(inputs, out, "--to", "glb", "--single-process")
    written = {path: os.stat(out / path).st_mtime_ns for path in files(out)}

    _, again = run(inputs, out, "--to", "glb", "--single-process")
    ran, reran = statuses(inputs, first), statuses(inputs, again)
    assert {name for name, status in ran.items() if status == "ok"} == {
        name for name, status in reran.items() if status == "skipped"
    }
    assert reran["broken.glb"] == "failed"  # no output: tried again
    assert {path: os.stat(out / path).st_mtime_ns for path in files(out)} == written
    check_counts(again)

    _, forced = run(inputs, out, "--to", "glb", "--single-process", "--force")
    assert statuses(inputs, forced) == ran


def test_two_inputs_with_one_output_name_are_both_refused(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    humanoid.demo(inputs)
    humanoid.convert(inputs / "mannequin.glb", inputs / "mannequin.bvh", to="bvh")
    out = tmp_path / "out"

    code, summary = run(inputs, out, "--to", "vrm1", "--single-process")

    assert code == 1
    assert statuses(inputs, summary) == {
        "mannequin.bvh": "refused",
        "mannequin.glb": "refused",
        "mannequin_ext_clips.glb": "ok",
    }
    assert summary["codes"] == {"BATCH_OUTPUT_COLLISION": 2}
    assert sorted(files(out)) == ["mannequin_ext_clips.vrm"]


def test_links_out_of_the_folder_and_the_output_folder_are_not_read(
    tmp_path: Path,
) -> None:
    inputs = tmp_path / "inputs"
    (inputs / "sub").mkdir(parents=True)
    humanoid.demo(tmp_path)
    shutil.copyfile(tmp_path / "mannequin.glb", inputs / "hero.glb")
    (inputs / "notes.txt").write_text("not a character")
    try:
        (inputs / "sub" / "inside.glb").symlink_to(inputs / "hero.glb")
        (inputs / "outside.glb").symlink_to(tmp_path / "mannequin.glb")
    except OSError:
        pytest.skip("no symbolic links here")
    out = inputs / "out"
    (out / "old").mkdir(parents=True)
    (out / "old" / "hero.vrm").write_bytes(b"an earlier run's output")

    jobs, refused = convert_folder.plan(inputs, out, "vrm1")

    assert refused == []
    assert [(job.input, job.output) for job in jobs] == [
        (str(inputs / "hero.glb"), str(out / "hero.vrm")),
        (str(inputs / "sub" / "inside.glb"), str(out / "sub" / "inside.vrm")),
    ]
