"""Packaging: building simdup prints no setuptools warnings, and the wheel holds its data."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from simdup import native
from tests.conftest import REPO


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX build only")
def test_building_the_wheel_prints_no_setuptools_warning(tmp_path: Path) -> None:
    """`pip install` used to print ~80 lines of setuptools warnings (`project.license` as a
    table is deprecated; "Package 'simdup.data' is absent from packages")."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-w", str(tmp_path), "-v"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    output = proc.stdout + proc.stderr
    for warning in ("BuildBackendWarning", "SetuptoolsDeprecationWarning", "is absent from"):
        assert warning not in output, warning
    (wheel,) = tmp_path.glob("simdup-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for data in (
        "idf_jieba.npz", "stopwords_en.txt", "stopwords_zh.txt", "stopwords_ja.txt",
        "stopwords_ko.txt",
    ):  # fmt: skip
        assert f"simdup/data/{data}" in names
    # Packages are found, not listed: every module and stub of every folder is in the wheel.
    sources = {
        path.relative_to(REPO).as_posix()
        for suffix in ("*.py", "*.pyi")
        for path in (REPO / "simdup").rglob(suffix)
        if "__pycache__" not in path.parts
    }
    assert sources <= names, sorted(sources - names)
    # The C extension is one module built from every C file of simdup/native/ (their shared
    # header ships as package data): where it is built here, the wheel has it too.
    assert "simdup/native/common.h" in names
    if native.NATIVE:
        assert any(n.startswith("simdup/native/_speedups.") for n in names), sorted(names)
