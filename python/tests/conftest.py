"""Shared fixtures: the bundled mannequin, the corpus beside the project, the command line."""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest

import humanoid

PROJECT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = PROJECT.parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def mannequin_dir(tmp_path_factory) -> pathlib.Path:
    """A folder with the bundled mannequin (mannequin.glb, mannequin_ext_clips.glb)."""
    folder = tmp_path_factory.mktemp("mannequin")
    humanoid.demo(folder)
    return folder


@pytest.fixture(scope="session")
def mannequin(mannequin_dir) -> pathlib.Path:
    return mannequin_dir / "mannequin.glb"


@pytest.fixture(scope="session")
def cli() -> str:
    """The `humanoid` command line to compare with: $HUMANOID_BIN, else the release build."""
    candidates = [os.environ.get("HUMANOID_BIN"), str(PROJECT / "target" / "release" / "humanoid")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("humanoid")
    if found:
        return found
    pytest.skip("no humanoid command line (set HUMANOID_BIN or cargo build --release)")


def corpus_file(relative: str) -> pathlib.Path:
    """A file of ../shared/corpus, or skip the test when the corpus is not beside the project."""
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(f"{path} is missing (the corpus lives in ../shared)")
    return path
