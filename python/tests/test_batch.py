"""`humanoid.convert_many`: the command line's batch engine from Python: one report per input,
a bad file failing alone, existing outputs skipped unless force, collisions refused."""

from __future__ import annotations

import pathlib

import pytest

import humanoid

CORRUPT_GLB = b"glTF\x02\x00\x00\x00\xff\x00\x00\x00"


@pytest.fixture()
def folder(tmp_path) -> pathlib.Path:
    """The demo's two mannequins and one broken GLB."""
    inputs = tmp_path / "in"
    humanoid.demo(inputs)
    (inputs / "broken.glb").write_bytes(CORRUPT_GLB)
    return inputs


@pytest.mark.parametrize("to, extension", [("bvh", "bvh"), ("glb", "glb")])
def test_a_bad_file_fails_alone(tmp_path, folder, to, extension):
    out = tmp_path / "out"
    reports = humanoid.convert_many(folder, out, to=to, jobs=2)
    assert [pathlib.Path(r.input).name for r in reports] == ["broken.glb", "mannequin.glb", "mannequin_ext_clips.glb"]
    broken, *good = reports
    assert broken.status == "failed" and not broken.ok
    assert broken.output is None and broken.files == []
    assert broken.code == "GLTF_INVALID"
    assert broken.message and "broken.glb" in broken.message
    for report in good:
        assert report.ok, report
        assert report.output == str(out / (pathlib.Path(report.input).stem + "." + extension))
        assert pathlib.Path(report.output).is_file() and report.files[-1] == report.output
        assert report.code is None and report.message is None
        for d in report.diagnostics:
            assert d["code"].isupper() and d["message"]
    # The outputs are what convert writes, one by one.
    single = tmp_path / "single.glb"
    humanoid.convert(folder / "mannequin.glb", single, to=to)
    assert pathlib.Path(good[0].output).read_bytes() == single.read_bytes()
    assert "broken" in repr(broken) and "\n" not in repr(broken)


def test_existing_outputs_are_skipped_unless_force(tmp_path, folder):
    out = tmp_path / "out"
    files = [folder / "mannequin.glb", str(folder / "mannequin_ext_clips.glb")]
    assert all(r.ok for r in humanoid.convert_many(files, out, to="x3d"))
    again = humanoid.convert_many(files, out, to="x3d")
    assert [r.status for r in again] == ["skipped", "skipped"]
    assert "force=True" in again[0].message
    assert all(r.ok for r in humanoid.convert_many(files, out, to="x3d", force=True))


def test_a_glob_pattern_and_collisions(tmp_path, folder):
    humanoid.convert(folder / "mannequin.glb", folder / "mannequin.bvh")
    reports = humanoid.convert_many(str(folder / "mannequin*"), tmp_path / "out", to="vrm1")
    by_name = {pathlib.Path(r.input).name: r for r in reports}
    assert set(by_name) == {"mannequin.glb", "mannequin.bvh", "mannequin_ext_clips.glb"}
    # mannequin.glb and mannequin.bvh would both write mannequin.vrm.
    for name in ("mannequin.glb", "mannequin.bvh"):
        assert by_name[name].status == "refused" and "rename one" in by_name[name].message
    assert by_name["mannequin_ext_clips.glb"].ok


def test_options_are_checked_before_any_work(tmp_path, folder):
    out = tmp_path / "out"
    with pytest.raises(humanoid.UnsupportedError) as caught:
        humanoid.convert_many(folder, out, to="fbx")
    assert "fbx" not in caught.value.message.split("expected one of")[1]
    with pytest.raises(humanoid.UnsupportedError, match="jobs=0"):
        humanoid.convert_many(folder, out, to="glb", jobs=0)
    with pytest.raises(humanoid.FileAccessError):
        humanoid.convert_many(tmp_path / "missing.glb", out, to="glb")
    assert not out.exists()
