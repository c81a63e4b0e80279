"""`humanoid.write`: a character read, its arrays edited in NumPy, written through the library's
write (any format it writes) and read back: the edit is there, everything else as it was."""

from __future__ import annotations

import dataclasses
import json
import struct

import numpy as np
import pytest

import humanoid


def glb_json(path) -> dict:
    data = path.read_bytes()
    length, kind = struct.unpack_from("<II", data, 12)
    assert kind == 0x4E4F534A
    return json.loads(data[20 : 20 + length])


def bone_positions(hero: humanoid.Character) -> dict:
    return {bone: hero.world_translations[j] for bone, j in zip(hero.bones, hero.bone_joints)}


def same_clips(a: humanoid.Character, b: humanoid.Character, skip=()):
    """Every clip of `a` in `b`, key for key (tracks matched by target and property)."""
    assert [c.name for c in a.clips] == [c.name for c in b.clips]
    for clip_a, clip_b in zip(a.clips, b.clips):
        tracks_b = {(t.target, t.index, t.bone, t.property): t for t in clip_b.tracks}
        assert len(tracks_b) == len(clip_a.tracks), clip_a.name
        for track in clip_a.tracks:
            key = (track.target, track.index, track.bone, track.property)
            if (clip_a.name, key) in skip:
                continue
            other = tracks_b[key]
            assert np.array_equal(track.times, other.times), (clip_a.name, key)
            assert np.array_equal(track.values, other.values), (clip_a.name, key)


def test_a_moved_joint_is_written_and_the_rest_kept(tmp_path, mannequin):
    hero = humanoid.read(mannequin)
    before = humanoid.read(mannequin)
    head = hero.joint("head")
    hero.rest_translations[head] += np.array([0.0, 0.05, 0.0], dtype=np.float32)
    report = humanoid.write(hero, tmp_path / "tall.glb")
    assert report["format"] == "glb" and report["files"] == [str(tmp_path / "tall.glb")]
    back = humanoid.read(tmp_path / "tall.glb")
    assert back.joints == before.joints
    assert np.allclose(back.rest_translations[head], before.rest_translations[head] + [0, 0.05, 0], atol=1e-6)
    others = np.arange(len(back.joints)) != head
    assert np.array_equal(back.rest_translations[others], before.rest_translations[others])
    assert np.array_equal(back.rest_rotations, before.rest_rotations)
    assert np.array_equal(back.rest_scales, before.rest_scales)
    assert back.bone_map == before.bone_map and back.meshes == before.meshes
    same_clips(before, back)
    # The head's world position moved; the hips did not.
    moved = bone_positions(back)["head"] - bone_positions(before)["head"]
    assert np.linalg.norm(moved) == pytest.approx(0.05, abs=1e-5)
    assert np.array_equal(bone_positions(back)["hips"], bone_positions(before)["hips"])


def test_scaled_clip_keys_are_written_and_the_other_tracks_kept(tmp_path, mannequin):
    hero = humanoid.read(mannequin)
    before = humanoid.read(mannequin)
    clip = next(c for c in hero.clips if any(t.property == "translation" for t in c.tracks))
    track = next(t for t in clip.tracks if t.property == "translation")
    track.values[:] *= 1.5  # a bigger motion, edited in place
    humanoid.write(hero, tmp_path / "big.glb")
    back = humanoid.read(tmp_path / "big.glb")
    key = (track.target, track.index, track.bone, track.property)
    same_clips(before, back, skip={(clip.name, key)})
    written = next(c for c in back.clips if c.name == clip.name)
    new = next(t for t in written.tracks if (t.target, t.index, t.bone, t.property) == key)
    old = next(t for c in before.clips if c.name == clip.name for t in c.tracks if (t.target, t.index, t.bone, t.property) == key)
    assert np.array_equal(new.times, old.times)
    assert np.allclose(new.values, old.values * 1.5, atol=1e-6)
    assert np.array_equal(back.rest_translations, before.rest_translations)
    # The file's animations are patched in place: as many, named as they were, the changed
    # channel given a new sampler, no channel twice.
    source, written = glb_json(mannequin), glb_json(tmp_path / "big.glb")
    assert [a.get("name") for a in written["animations"]] == [a.get("name") for a in source["animations"]]
    for animation in written["animations"]:
        targets = [(c["target"].get("node"), c["target"]["path"]) for c in animation["channels"]]
        assert len(targets) == len(set(targets))
        assert len(animation["samplers"]) == len({c["sampler"] for c in animation["channels"]})
    assert written["meshes"] == source["meshes"] and written["materials"] == source["materials"]


def test_slower_clip_times_through_replace(tmp_path, mannequin):
    """Times are read-only (tracks share them): a new Track replaces the old one."""
    hero = humanoid.read(mannequin)
    clip = hero.clips[0]
    clip.tracks[:] = [dataclasses.replace(t, times=t.times * 2) for t in clip.tracks]
    humanoid.write(hero, tmp_path / "slow.glb")
    back = humanoid.read(tmp_path / "slow.glb")
    assert back.clips[0].duration == pytest.approx(clip.duration * 2, rel=1e-6)
    assert back.clips[1].duration == pytest.approx(humanoid.read(mannequin).clips[1].duration)


def test_an_edit_goes_to_any_format_the_library_writes(tmp_path, mannequin):
    hero = humanoid.read(mannequin)
    hero.rest_translations[hero.joint("head")] += np.array([0.0, 0.05, 0.0], dtype=np.float32)
    humanoid.write(hero, tmp_path / "tall.glb")
    expected = bone_positions(humanoid.read(tmp_path / "tall.glb"))
    for name, to in [("tall.bvh", None), ("tall.vrm", "vrm1"), ("tall.x3d", None)]:
        report = humanoid.write(hero, tmp_path / name, to=to)
        assert report["format"] == (to or name.rsplit(".", 1)[1])
        got = bone_positions(humanoid.read(tmp_path / name))
        for bone in ("hips", "head", "leftHand"):
            assert np.linalg.norm(got[bone] - expected[bone]) < 1e-4, (name, bone)


def test_a_bvh_edit_round_trips(tmp_path, mannequin):
    bvh = tmp_path / "walk.bvh"
    humanoid.convert(mannequin, bvh)
    hero = humanoid.read(bvh)
    before = humanoid.read(bvh)
    moves = next(i for i, t in enumerate(hero.clips[0].tracks) if t.property == "translation")
    hero.clips[0].tracks[moves].values[:, 1] += np.float32(0.1)  # the hips 10 cm higher
    hero.joints[1] = "Renamed"
    humanoid.write(hero, tmp_path / "edited.bvh")
    back = humanoid.read(tmp_path / "edited.bvh")
    assert back.joints[1] == "Renamed" and back.joints[2:] == before.joints[2:]
    raised = before.clips[0].tracks[moves].values + [0, 0.1, 0]
    assert np.allclose(back.clips[0].tracks[moves].values, raised, atol=1e-4)
    for old, new in zip(before.clips[0].tracks, back.clips[0].tracks):
        if new.property == "rotation":
            assert np.allclose(np.abs(np.sum(old.values * new.values, axis=1)), 1, atol=1e-5)
    assert np.allclose(back.rest_translations, before.rest_translations, atol=1e-6)


def test_tracks_and_clips_can_be_added_and_removed(tmp_path, mannequin):
    hero = humanoid.read(mannequin)
    walk = hero.clips[0]
    dropped = walk.tracks.pop()
    hand = hero.joint("leftHand")
    rotation = next(t for t in walk.tracks if t.property == "rotation")
    walk.tracks.append(dataclasses.replace(rotation, index=hand))
    hero.clips.append(dataclasses.replace(walk, name="walk again"))
    humanoid.write(hero, tmp_path / "more.glb")
    back = humanoid.read(tmp_path / "more.glb")
    assert [c.name for c in back.clips] == ["walk", "wave", "walk again"]
    keys = {(t.target, t.index, t.property) for t in back.clips[0].tracks}
    assert (dropped.target, dropped.index, dropped.property) not in keys
    assert ("joint", hand, "rotation") in keys
    assert len(back.clips[2].tracks) == len(walk.tracks)
    # Two tracks on one property are refused.
    walk.tracks.append(walk.tracks[0])
    with pytest.raises(humanoid.UnsupportedError, match="two tracks"):
        humanoid.write(hero, tmp_path / "twice.glb")


def test_a_bvh_read_with_its_scale_is_written_with_it(tmp_path):
    bvh = tmp_path / "tiny.bvh"
    bvh.write_text(TINY_BVH)
    hero = humanoid.read(bvh, bvh_scale=0.01)
    assert hero.world_translations[0][1] == pytest.approx(0.1)
    assert not any(d["code"] == "BVH_UNITS" and "guessed" in d["message"] for d in hero.diagnostics)
    hero.rest_translations[1] *= 2
    humanoid.write(hero, tmp_path / "tiny.glb")
    back = humanoid.read(tmp_path / "tiny.glb")
    assert back.world_translations[0][1] == pytest.approx(0.1)
    assert back.rest_translations[1][1] == pytest.approx(-0.2)


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


def test_an_unedited_write_is_the_conversion(tmp_path, mannequin):
    hero = humanoid.read(mannequin)
    humanoid.write(hero, tmp_path / "written.glb")
    humanoid.convert(mannequin, tmp_path / "converted.glb")
    assert (tmp_path / "written.glb").read_bytes() == (tmp_path / "converted.glb").read_bytes()


def test_an_existing_file_is_kept_without_force(tmp_path, mannequin):
    hero = humanoid.read(mannequin)
    out = tmp_path / "hero.glb"
    out.write_bytes(b"keep me")
    with pytest.raises(humanoid.UnsupportedError) as caught:
        humanoid.write(hero, out)
    assert "force=True" in caught.value.message and "--force" not in caught.value.message
    assert out.read_bytes() == b"keep me"
    humanoid.write(hero, out, force=True)
    assert humanoid.read(out).joints == hero.joints
    # The file read is never replaced, even with force.
    with pytest.raises(humanoid.UnsupportedError, match="input"):
        humanoid.write(hero, mannequin, force=True)


def test_what_write_cannot_carry_is_refused(tmp_path, mannequin):
    hero = humanoid.read(mannequin)
    hero.parents[3] = 0
    with pytest.raises(humanoid.UnsupportedError, match="parents"):
        humanoid.write(hero, tmp_path / "a.glb")
    hero = humanoid.read(mannequin)
    hero.world_translations[5] += 1.0
    with pytest.raises(humanoid.UnsupportedError, match="rest_translations"):
        humanoid.write(hero, tmp_path / "b.glb")
    hero = humanoid.read(mannequin)
    hero.rest_rotations[2] = 0.0
    with pytest.raises(humanoid.UnsupportedError, match="rest_rotations"):
        humanoid.write(hero, tmp_path / "c.glb")
    hero = humanoid.read(mannequin)
    hero.clips[0].tracks[0].values[0] = np.nan
    with pytest.raises(humanoid.UnsupportedError, match="clips\\[0\\]"):
        humanoid.write(hero, tmp_path / "d.glb")
    with pytest.raises(humanoid.UnsupportedError, match="expected one of"):
        humanoid.write(humanoid.read(mannequin), tmp_path / "e.fbx", to="fbx")
    assert not any(tmp_path.iterdir())
