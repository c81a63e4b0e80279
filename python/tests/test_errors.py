"""Errors are Python exceptions carrying the library's message, code, file and place."""

from __future__ import annotations

import pytest

import humanoid

CORRUPT_GLB = b"glTF\x02\x00\x00\x00\xff\x00\x00\x00"


def test_a_corrupt_glb_names_the_file_and_the_byte(tmp_path):
    bad = tmp_path / "bad.glb"
    bad.write_bytes(CORRUPT_GLB)
    with pytest.raises(humanoid.InvalidFileError) as caught:
        humanoid.read(bad)
    error = caught.value
    assert isinstance(error, humanoid.HumanoidError)
    assert error.code == "GLTF_INVALID"
    assert error.file == str(bad)
    assert error.place == "byte 8"
    assert "255 bytes" in error.message and str(error) == error.message


def test_a_json_error_has_its_pointer(tmp_path):
    bad = tmp_path / "bad.gltf"
    bad.write_text('{"asset": {"version": "2.0"}, "nodes": [{"rotation": [0, 0, 0]}]}')
    with pytest.raises(humanoid.InvalidFileError) as caught:
        humanoid.read(bad)
    assert caught.value.place and "/nodes/0" in caught.value.place


def test_a_missing_file_is_a_file_access_error(tmp_path):
    with pytest.raises(humanoid.FileAccessError) as caught:
        humanoid.read(tmp_path / "missing.vrm")
    assert caught.value.file == str(tmp_path / "missing.vrm")


def test_a_folder_is_refused_as_input(tmp_path):
    folder = tmp_path / "avatar.glb"
    folder.mkdir()
    with pytest.raises(humanoid.HumanoidError) as caught:
        humanoid.read(folder)
    assert caught.value.code == "INPUT_NOT_A_FILE"


@pytest.mark.parametrize(
    "options, words",
    [
        ({"to": "obj"}, "expected one of"),
        ({"rest": "sideways", "normalize": True}, "node"),
        ({"bvh_units": "furlongs"}, "cm"),
        ({"bvh_order": "ABC"}, "ZXY"),
    ],
)
def test_bad_options_are_refused_before_any_work(tmp_path, mannequin, options, words):
    out = tmp_path / "out.glb"
    with pytest.raises(humanoid.UnsupportedError, match=words):
        humanoid.convert(mannequin, out, **options)
    assert not out.exists()


def test_diagnostics_come_back_as_dicts(tmp_path, mannequin):
    report = humanoid.convert(mannequin, tmp_path / "hero.bvh")
    assert report["diagnostics"], "a BVH drops the mesh and says so"
    codes = {d["code"] for d in report["diagnostics"]}
    assert all(code.isupper() for code in codes)
    assert {d["severity"] for d in report["diagnostics"]} <= {"info", "warning", "error"}
