"""`convert`, `retarget`, `normalize`, `map_rig`: files written, reports as dicts, every mapped
bone where it was (a metamorphic round trip through another format)."""

from __future__ import annotations

import numpy as np
import pytest

import humanoid


def bone_positions(path) -> dict:
    hero = humanoid.read(path)
    return {bone: hero.world_translations[j] for bone, j in zip(hero.bones, hero.bone_joints)}


@pytest.mark.parametrize("to, name", [("x3d", "hero.x3d"), ("vrm1", "hero.vrm"), ("bvh", "hero.bvh"), ("gltf", "hero.gltf")])
def test_convert_keeps_every_bone_where_it_was(tmp_path, mannequin, to, name):
    out = tmp_path / name
    report = humanoid.convert(mannequin, out, to=to)
    assert report["format"] == to
    assert out.is_file() and report["files"][-1] == str(out)
    assert report["bytes_written"] == out.stat().st_size
    assert isinstance(report["diagnostics"], list)
    for d in report["diagnostics"]:
        assert set(d) == {"code", "severity", "location", "message"}
    before, after = bone_positions(mannequin), bone_positions(out)
    assert before.keys() == after.keys()
    for bone, p in before.items():
        assert np.linalg.norm(p - after[bone]) < 1e-4, bone


def test_convert_refuses_an_existing_output_without_force(tmp_path, mannequin):
    out = tmp_path / "hero.glb"
    humanoid.convert(mannequin, out)
    first = out.read_bytes()
    with pytest.raises(humanoid.UnsupportedError) as caught:
        humanoid.convert(mannequin, out)
    assert caught.value.code == "REQUEST_UNSUPPORTED"
    assert "exists" in caught.value.message
    assert "force=True" in caught.value.message, "the advice names the keyword, not the flag"
    humanoid.convert(mannequin, out, force=True)
    assert out.read_bytes() == first


def test_convert_is_byte_identical_to_the_command_line(tmp_path, mannequin, cli):
    import subprocess

    ours, theirs = tmp_path / "py.vrm", tmp_path / "cli.vrm"
    humanoid.convert(mannequin, ours, to="vrm1")
    subprocess.run([cli, "convert", str(mannequin), str(theirs), "--to", "vrm1", "--quiet"], check=True)
    assert ours.read_bytes() == theirs.read_bytes()


def test_retarget_writes_the_clip_on_the_model(tmp_path, mannequin):
    out = tmp_path / "walk.vrma"
    report = humanoid.retarget(mannequin, mannequin, out, to="vrma")
    assert report["format"] == "vrma"
    clip = humanoid.read(out)
    assert len(clip.clips) == 1 and clip.clips[0].duration > 0


def test_retarget_contacts_report_and_off_is_the_exact_copy(tmp_path, mannequin, cli):
    import subprocess

    # The mannequin's wave on itself (it stands: both feet planted): contacts are found and
    # reported; "off" writes what the command line writes with --contacts off, byte for byte.
    auto = humanoid.retarget(mannequin, mannequin, tmp_path / "auto.glb", clip="wave", report=True)
    contacts = auto["contacts"]
    assert sum(j["plants"] for j in contacts["joints"]) > 0
    # On its own body the world-delta copy keeps the feet already: nothing to change.
    assert contacts["applied"] is False
    assert all(j["drift_mm"]["max"] < 1.0 for j in contacts["joints"])
    assert len(contacts["without_contacts"]) == len(contacts["joints"])
    off = humanoid.retarget(mannequin, mannequin, tmp_path / "off.glb", clip="wave", contacts="off")
    assert "contacts" not in off
    out = tmp_path / "cli.glb"
    subprocess.run(
        [cli, "retarget", str(mannequin), "--onto", str(mannequin), "-o", str(out), "--clip", "wave", "--contacts", "off", "--quiet"],
        check=True,
        capture_output=True,
    )
    assert (tmp_path / "off.glb").read_bytes() == out.read_bytes()
    with pytest.raises(humanoid.HumanoidError, match="contacts"):
        humanoid.retarget(mannequin, mannequin, tmp_path / "x.glb", contacts="sometimes")


def test_normalize_writes_a_t_pose(tmp_path, mannequin):
    out = tmp_path / "t.glb"
    report = humanoid.normalize(mannequin, out)
    assert report["format"] == "glb" and out.is_file()
    # The mannequin already rests in the T-pose: normalizing moves no bone.
    before, after = bone_positions(mannequin), bone_positions(out)
    for bone, p in before.items():
        assert np.linalg.norm(p - after[bone]) < 1e-4, bone


def test_map_rig_reports_the_declaration_and_a_table(tmp_path, mannequin):
    declared = humanoid.map_rig(mannequin)
    assert declared["method"] == "declared" and declared["humanoid"] is True
    assert declared["bones"]["hips"] == humanoid.read(mannequin).bone_map["hips"]
    bvh = tmp_path / "rig.bvh"
    humanoid.convert(mannequin, bvh)
    mapped = humanoid.map_rig(bvh, map="auto")
    assert mapped["method"] in ("table", "auto") and mapped["humanoid"] is True
    assert mapped["missing"] == []


def test_map_rig_names_an_unknown_table(mannequin):
    with pytest.raises(humanoid.UnsupportedError, match="no mapping table named"):
        humanoid.map_rig(mannequin, map="no-such-table")


def test_khr_character_is_the_command_lines(tmp_path, mannequin, cli):
    import subprocess

    ours, theirs = tmp_path / "py.glb", tmp_path / "cli.glb"
    report = humanoid.convert(mannequin, ours, khr_character="node-index")
    assert any(d["code"] == "KHR_CHARACTER_WRITTEN" for d in report["diagnostics"])
    subprocess.run([cli, "convert", str(mannequin), str(theirs), "--khr-character=node-index", "--quiet"], check=True)
    assert ours.read_bytes() == theirs.read_bytes()
    with pytest.raises(humanoid.UnsupportedError) as caught:
        humanoid.convert(mannequin, tmp_path / "x.glb", khr_character="sideways")
    assert "node-index" in caught.value.message
