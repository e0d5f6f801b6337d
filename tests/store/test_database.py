"""simdup.store.database: opening simdup's SQLite stores."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO

OPEN = """
import sys, time
from simdup.store.database import open_database
from simdup.store.index_layout import _schema_1
path, start = sys.argv[1], float(sys.argv[2])
while time.time() < start:
    pass
conn = open_database(path, "index", [_schema_1("params", "description")])
conn.execute("BEGIN IMMEDIATE")
conn.execute("COMMIT")
print("ok")
"""


def test_two_processes_creating_one_database_both_succeed(tmp_path: Path) -> None:
    """Two processes opening a new database at the same moment both get it (SQLite answers
    "database is locked" at once to the second one switching to WAL: that is waited out, never
    reported as damage, which would have the store deleted and rebuilt)."""
    script = tmp_path / "open.py"
    script.write_text(OPEN)
    for attempt in range(8):
        path = tmp_path / f"db{attempt}.sqlite"
        start = str(time.time() + 0.4)
        procs = [
            subprocess.Popen(
                [sys.executable, str(script), str(path), start],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=REPO,
            )
            for _ in range(2)
        ]
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0 and out.strip() == b"ok", err.decode()
