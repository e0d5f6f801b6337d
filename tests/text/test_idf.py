"""simdup.text.idf: the shipped IDF table is jieba's idf.txt, looked up by token hash."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simdup.algorithms.hashing import token_hash
from simdup.text.idf import build, jieba_table


def jieba_idf_text() -> str:
    spec = importlib.util.find_spec("jieba")
    assert spec is not None and spec.submodule_search_locations
    folder = Path(next(iter(spec.submodule_search_locations)))
    return (folder / "analyse" / "idf.txt").read_text("utf-8")


@pytest.fixture(scope="module")
def idf_txt() -> str:
    return jieba_idf_text()


def test_shipped_table_is_built_from_jiebas_file(idf_txt: str) -> None:
    """Rebuilding from the installed jieba's idf.txt gives the shipped table exactly."""
    rebuilt, shipped = build(idf_txt), jieba_table()
    assert len(shipped) == 270_132
    assert np.array_equal(rebuilt.hashes, shipped.hashes)
    assert np.array_equal(rebuilt.value_index, shipped.value_index)
    assert np.array_equal(rebuilt.values, shipped.values)
    assert rebuilt.default == shipped.default


def test_lookup_gives_the_files_value_or_the_median(idf_txt: str) -> None:
    """Every 97th word of the file has its value; unknown words get the median."""
    fields = idf_txt.split()
    words, values = fields[0::2][::97], [float(v) for v in fields[1::2][::97]]
    table = jieba_table()
    got = table.lookup(np.array([token_hash(w) for w in words], dtype=np.uint64))
    assert got.tolist() == values
    all_values = sorted(float(v) for v in fields[1::2])
    assert table.default == all_values[len(all_values) // 2]
    assert table.idf("zzqx-not-a-word") == table.default
    assert table.lookup(np.array([], dtype=np.uint64)).size == 0


def test_build_refuses_malformed_files() -> None:
    with pytest.raises(ValueError, match="word value"):
        build("图书馆 8.0\n孤单\n")
    with pytest.raises(ValueError, match="share a token hash"):
        build("图书馆 8.0\n图书馆 9.0\n")


def test_command_writes_a_table(tmp_path: Path) -> None:
    """python -m simdup.text.idf IDF_TXT OUT writes a table that loads with the same values."""
    source = tmp_path / "idf.txt"
    source.write_text("图书馆 8.5\n读者 7.25\nlibrary 3.0\n", "utf-8")
    out = tmp_path / "table.npz"
    proc = subprocess.run([sys.executable, "-m", "simdup.text.idf", str(source), str(out)],
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with np.load(out) as npz:
        assert sorted(npz["values"][npz["value_index"]].tolist()) == [3.0, 7.25, 8.5]
        assert float(npz["default"]) == 7.25
