"""The documented set-up brings what the tests need."""

from __future__ import annotations

import re
import sys

import pytest

from conftest import PROJECT

PACKAGE = PROJECT / "python"


def test_the_test_extra_brings_pytest_and_the_readme_installs_it():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib is Python 3.11's")
    import tomllib

    pyproject = PACKAGE / "pyproject.toml"
    readme = PACKAGE / "README.md"
    if not pyproject.is_file() or not readme.is_file():
        pytest.skip("the package's sources are not beside the tests")
    project = tomllib.loads(pyproject.read_text())["project"]
    test = project["optional-dependencies"]["test"]
    assert any(re.match(r"pytest\b", requirement) for requirement in test)
    assert any(re.match(r"numpy\b", requirement) for requirement in project["dependencies"] + test)
    # The set-up block (the first shell block of the README) installs the extra.
    block = re.search(r"```sh\n(.*?)```", readme.read_text(), re.S)
    assert block, "python/README.md has a set-up block"
    setup = block.group(1)
    assert "--extras test" in setup or "[test]" in setup, setup
    assert "pytest" in setup, "the set-up says how to run the tests"
