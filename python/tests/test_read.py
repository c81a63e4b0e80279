"""`humanoid.read`: the character's arrays, checked against each other and against the file's
own numbers (forward kinematics done here in NumPy, not by the library)."""

from __future__ import annotations

import json
import struct

import numpy as np

import humanoid


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ]
    )


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    u, w = q[:3], q[3]
    return v + 2.0 * np.cross(u, np.cross(u, v) + w * v)


def glb_json(path) -> dict:
    data = path.read_bytes()
    length, kind = struct.unpack_from("<II", data, 12)
    assert kind == 0x4E4F534A
    return json.loads(data[20 : 20 + length])


def test_skeleton_arrays_have_one_row_per_joint(mannequin):
    hero = humanoid.read(mannequin)
    n = len(hero.joints)
    assert n > 20
    assert hero.parents.shape == (n,) and hero.parents.dtype == np.int32
    assert hero.rest_translations.shape == (n, 3)
    assert hero.rest_rotations.shape == (n, 4)
    assert hero.rest_scales.shape == (n, 3)
    assert hero.world_translations.shape == (n, 3)
    # Parents come before children; roots are -1.
    for i, parent in enumerate(hero.parents):
        assert -1 <= parent < i
    assert np.allclose(np.linalg.norm(hero.rest_rotations, axis=1), 1.0, atol=1e-6)


def test_rest_matches_the_files_nodes(mannequin):
    """Each joint's rest TRS is the node's, read from the GLB's JSON here."""
    document = glb_json(mannequin)
    nodes = {n["name"]: n for n in document["nodes"] if "name" in n}
    hero = humanoid.read(mannequin)
    for i, name in enumerate(hero.joints):
        node = nodes[name]
        assert np.allclose(hero.rest_translations[i], node.get("translation", [0, 0, 0]), atol=1e-7)
        assert np.allclose(hero.rest_rotations[i], node.get("rotation", [0, 0, 0, 1]), atol=1e-7)
        assert np.allclose(hero.rest_scales[i], node.get("scale", [1, 1, 1]), atol=1e-7)


def test_world_rest_is_the_chain_of_locals(mannequin):
    hero = humanoid.read(mannequin)
    positions = np.zeros((len(hero.joints), 3))
    rotations = np.zeros((len(hero.joints), 4))
    for i, parent in enumerate(hero.parents):
        t, q = hero.rest_translations[i].astype(np.float64), hero.rest_rotations[i].astype(np.float64)
        if parent < 0:
            positions[i], rotations[i] = t, q
        else:
            # Unit scales in the mannequin: world = parent ∘ local.
            positions[i] = positions[parent] + quat_rotate(rotations[parent], t)
            rotations[i] = quat_mul(rotations[parent], q)
    assert np.allclose(hero.world_translations, positions, atol=1e-5)
    same_sign = np.sign(np.sum(hero.world_rotations * rotations, axis=1))[:, None]
    assert np.allclose(hero.world_rotations, rotations * same_sign, atol=1e-5)


def test_bone_map_is_the_files_declaration(mannequin_dir):
    """EXT_skeleton_humanoid's humanBones, read from the JSON here, name the same joints."""
    path = mannequin_dir / "mannequin_ext_clips.glb"
    document = glb_json(path)
    skeleton = document["extensions"]["EXT_skeleton_humanoid"]["humanoidSkeletons"][0]
    declared = {bone: document["nodes"][node]["name"] for bone, node in skeleton["humanoidBones"].items()}
    hero = humanoid.read(path)
    assert hero.bone_map == declared
    assert hero.bones[0] == "hips"
    assert hero.joint("leftHand") == hero.joints.index(declared["leftHand"])
    assert "declaration" in hero.mapped


def test_clips_are_arrays_per_track(mannequin):
    hero = humanoid.read(mannequin)
    assert hero.clips, "the mannequin has clips"
    for clip in hero.clips:
        assert clip.duration >= 0
        for track in clip.tracks:
            keys = track.times.shape[0]
            assert track.times.dtype == np.float32
            assert np.all(np.diff(track.times) > 0)
            assert track.values.shape[0] == keys
            width = {"translation": 3, "rotation": 4, "scale": 3}.get(track.property)
            if width and track.interpolation != "CUBICSPLINE":
                assert track.values.shape == (keys, width)
            if track.target == "joint":
                assert 0 <= track.index < len(hero.joints)
            if track.property == "rotation" and track.interpolation != "CUBICSPLINE":
                assert np.allclose(np.linalg.norm(track.values, axis=1), 1.0, atol=1e-5)
    assert max(c.duration for c in hero.clips) > 0


def test_humanoid_channels_name_their_bones(mannequin_dir):
    hero = humanoid.read(mannequin_dir / "mannequin_ext_clips.glb")
    bones = {t.bone for c in hero.clips for t in c.tracks if t.target == "bone"}
    assert "hips" in bones


def test_read_is_the_same_for_str_and_path(mannequin):
    a, b = humanoid.read(mannequin), humanoid.read(str(mannequin))
    assert a.joints == b.joints
    assert np.array_equal(a.rest_rotations, b.rest_rotations)


def test_a_rig_without_a_declaration_is_mapped_or_read_bare(tmp_path, mannequin):
    """A BVH declares no humanoid: its bones come from the mapping tables, as every command
    maps it."""
    bvh = tmp_path / "walk.bvh"
    humanoid.convert(mannequin, bvh)
    hero = humanoid.read(bvh)
    assert "hips" in hero.bones and "mapped by" in hero.mapped


def test_repr_is_one_short_line_and_the_data_stay_reachable(tmp_path, mannequin):
    bvh = tmp_path / "walk.bvh"
    humanoid.convert(mannequin, bvh)
    for path in (mannequin, bvh):
        hero = humanoid.read(path)
        text = repr(hero)
        assert "\n" not in text and len(text) < 160, text
        assert text.startswith(
            f"<humanoid.Character {hero.format}: {len(hero.joints)} joints, {len(hero.bones)} bones, "
        ), text
        assert f"{len(hero.clips)} clip" in text and "mesh" in text
        for clip in hero.clips:
            assert "\n" not in repr(clip) and len(repr(clip)) < 120
            for track in clip.tracks:
                assert "\n" not in repr(track) and len(repr(track)) < 120
        assert hero.rest_translations.shape == (len(hero.joints), 3)
    assert humanoid.read(bvh).meshes == 0 and humanoid.read(mannequin).meshes > 0
    one = repr(humanoid.read(bvh))
    assert "1 clip (" in one and " s)" in one
    assert humanoid.read(mannequin).source == str(mannequin)
