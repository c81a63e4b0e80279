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


def test_advice_names_the_keyword_not_the_flag(tmp_path, mannequin):
    """Errors and diagnostics the library words with command-line flags read in keywords."""
    with pytest.raises(humanoid.UnsupportedError) as caught:
        humanoid.convert(mannequin, tmp_path / "out.glb", clip="wave")
    assert "clip=" in caught.value.message and "--clip" not in caught.value.message
    with pytest.raises(humanoid.UnsupportedError) as caught:
        humanoid.convert(mannequin, tmp_path / "out.x3d", normalize=True)
    assert "normalize=True" in caught.value.message and "--" not in caught.value.message
    # A BVH whose unit is guessed says how to give it: a diagnostic, worded for Python too.
    bvh = tmp_path / "tiny.bvh"
    bvh.write_text(TINY_BVH)
    units = [d["message"] for d in humanoid.read(bvh).diagnostics if d["code"] == "BVH_UNITS"]
    assert units and "bvh_scale=METRES" in units[0] and "--bvh-scale" not in units[0]
    report = humanoid.convert(bvh, tmp_path / "tiny.glb")
    assert not any("--" in d["message"] for d in report["diagnostics"])


TINY_BVH = """HIERARCHY
ROOT Hips
{
 OFFSET 0 10 0
 CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
 End Site
 {
  OFFSET 0 -10 0
 }
}
MOTION
Frames: 1
Frame Time: 0.033333
0 10 0 0 0 0
"""


def test_to_lists_only_the_formats_written(tmp_path, mannequin):
    out = tmp_path / "out.fbx"
    with pytest.raises(humanoid.UnsupportedError) as caught:
        humanoid.convert(mannequin, out, to="fbx")
    message = caught.value.message
    listed = message.split("expected one of")[1]
    assert "glb" in listed and "bvh" in listed and "godot-profile" in listed
    assert "fbx" not in listed
    assert not out.exists()
    with pytest.raises(humanoid.UnsupportedError) as caught:
        humanoid.convert(mannequin, tmp_path / "x.glb", to="obj")
    assert "fbx" not in caught.value.message


def python_keywords() -> set:
    import inspect

    words = set()
    for name in humanoid.__all__:
        function = getattr(humanoid, name)
        if inspect.isfunction(function):
            words |= set(inspect.signature(function).parameters)
    return words


def library_messages() -> list:
    """Every string literal of the library's source (the command line's own aside) that names a
    flag: what an error or diagnostic can say."""
    import re

    from conftest import PROJECT

    src = PROJECT / "src"
    if not src.is_dir():
        pytest.skip("the library's source is not beside the package")
    found = []
    for path in sorted(src.rglob("*.rs")):
        relative = path.relative_to(src)
        if relative.parts[0] == "cli" or path.name == "codes.rs" or "tests" in relative.parts[-1]:
            continue
        text = path.read_text()
        text = text.split("#[cfg(test)]\nmod tests")[0]
        text = "\n".join("" if line.lstrip().startswith("//") else line for line in text.split("\n"))
        for literal in re.findall(r'"((?:[^"\\]|\\.)*)"', text, re.S):
            literal = re.sub(r"\\\n\s*", "", literal)
            if re.search(r"(?<![\w-])--[a-z]", literal):
                found.append((str(relative), literal))
    assert len(found) > 50, "the library's messages name flags"
    return found


def test_every_flag_of_the_librarys_messages_reads_as_a_keyword():
    import re

    keywords = python_keywords()
    for where, message in library_messages():
        words = humanoid._native._python_words(message)
        # Outside backquoted commands and what is named as the command line's, no flag is left.
        plain = re.sub(r"`[^`]*`", "", words).replace("the command line's --", "")
        assert not re.search(r"(?<![\w-])--[a-z]", plain), (where, message, words)
        for keyword in re.findall(r"(?<![\w.])([a-z_0-9]+)=", plain):
            assert keyword in keywords, (where, keyword, words)


@pytest.mark.parametrize(
    "message, words",
    [
        ("x: the output exists; pass --force to replace it", "x: the output exists; pass force=True to replace it"),
        ("map them with --map TABLE, see `humanoid map FILE`, or write glTF with --to glb)",
         'map them with map="TABLE", see `humanoid.map_rig("FILE")`, or write glTF with to="glb")'),
        ("read it back with --bvh-scale 0.01", "read it back with bvh_scale=0.01"),
        ("--fps -2: expected a positive number", "fps=-2: expected a positive number"),
        ("(--map auto or --map TABLE) before --normalize", '(map="auto" or map="TABLE") before normalize=True'),
        ("--map does not fit: x", "map= does not fit: x"),
        ("the URI-keyed form (--khr-character=uri) keeps them", 'the URI-keyed form (khr_character="uri") keeps them'),
        ("--vrm-license-url https://x.org/l: VRM 1.0", 'vrm_license_url="https://x.org/l": VRM 1.0'),
        ("the character after --onto (retarget a.bvh --onto b.vrm -o OUT)",
         'the character second (onto=) (humanoid.retarget("a.bvh", "b.vrm", "OUT"))'),
        ("lower --frames (or --fps) or --size", "lower the command line's --frames (or fps=) or the command line's --size"),
        ("a -Z facing, node-index and x--y stay", "a -Z facing, node-index and x--y stay"),
    ],
)
def test_flags_in_words(message, words):
    assert humanoid._native._python_words(message) == words
