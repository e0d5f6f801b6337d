"""What the command-line tests of the store commands and the cache share: a run of the CLI
that must not crash, and the sample corpus copied to a temporary working folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from simdup.cli import cli
from tests.conftest import SAMPLE_CORPUS


def run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample corpus copied to tmp_path/docs, the working directory being tmp_path."""
    shutil.copytree(SAMPLE_CORPUS, tmp_path / "docs")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "docs"
