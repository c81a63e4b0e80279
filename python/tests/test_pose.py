"""`pose`: `(times, bones, 7)` arrays, the same numbers as `humanoid pose --json`."""

from __future__ import annotations

import json
import subprocess
import threading

import numpy as np
import pytest

import humanoid
from conftest import corpus_file


def cli_pose(cli, model, *args) -> dict:
    run = subprocess.run([cli, "pose", str(model), *map(str, args), "--json"], check=True, capture_output=True, text=True)
    return json.loads(run.stdout)


def as_array(rows, bones) -> np.ndarray:
    return np.array([[row[b]["p"] + row[b]["q"] for b in bones] for row in rows], dtype=np.float64)


def test_rest_pose_is_the_characters_world_rest(mannequin):
    hero = humanoid.read(mannequin)
    rest = humanoid.pose(mannequin)
    assert rest.shape == (1, len(hero.bones), 7) and rest.dtype == np.float32
    assert humanoid.pose_bones(mannequin) == hero.bones
    assert np.allclose(rest[0, :, :3], hero.world_translations[hero.bone_joints], atol=1e-6)
    assert np.allclose(np.abs(np.sum(rest[0, :, 3:] * hero.world_rotations[hero.bone_joints], axis=1)), 1.0, atol=1e-6)


def test_times_and_uniform_sample_the_clip(mannequin):
    frames = humanoid.pose(mannequin, times=[0.0, 0.25, 99.0])
    assert frames.shape[0] == 3
    duration = max(c.duration for c in humanoid.read(mannequin).clips[:1])
    # 99 s is clamped to the clip's end, the last of 5 uniform samples.
    assert np.allclose(frames[2], humanoid.pose(mannequin, times=[duration])[0], atol=1e-6)
    assert np.allclose(frames[2], humanoid.pose(mannequin, uniform=5)[4], atol=1e-6)
    with pytest.raises(humanoid.UnsupportedError):
        humanoid.pose(mannequin, times=[0.0], uniform=3)


def test_own_clip_matches_the_command_line(mannequin, cli):
    ours = humanoid.pose(mannequin, uniform=7)
    theirs = cli_pose(cli, mannequin, "--uniform", 7)
    bones = list(theirs["rest"])
    assert humanoid.pose_bones(mannequin) == bones
    assert np.max(np.abs(ours - as_array([s["bones"] for s in theirs["samples"]], bones))) <= 1e-6


def test_cmu_bvh_on_the_mannequin_matches_the_command_line(mannequin, cli):
    """The issue's check: the CMU clip retargeted onto the mannequin, 1e-6."""
    cmu = corpus_file("bvh/cmu_131_01_3dsmax.bvh")
    ours = humanoid.pose(mannequin, anim=cmu, uniform=25)
    theirs = cli_pose(cli, mannequin, "--anim", cmu, "--uniform", 25)
    bones = list(theirs["rest"])
    expected = as_array([s["bones"] for s in theirs["samples"]], bones)
    assert ours.shape == expected.shape == (25, len(bones), 7)
    assert np.max(np.abs(ours - expected)) <= 1e-6
    # The clip moves the hips: the numbers are not all the rest pose.
    assert np.ptp(ours[:, 0, 2]) > 0.1


def test_threads_pose_in_parallel_with_the_same_result(mannequin):
    """The GIL is released while the library works: threads give each other's numbers."""
    results = [None] * 4

    def work(i):
        results[i] = humanoid.pose(mannequin, uniform=9)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results[1:]:
        assert np.array_equal(r, results[0])
