"""The optional C accelerator ``simdup._speedups``, when it was built and is not switched off.

setup.py builds it when a C compiler is available (``optional=True``: without one the install
still succeeds). Every native function has a pure-Python definition next to its caller
(textscan.py, simhash.py, minhash.py, index.py, ...) that gives identical results; the tests
(tests/test_native.py, test_index.py, test_simhash.py) check that they agree.
``SIMDUP_PURE_PYTHON=1`` in the environment forces the Python versions.
"""

from __future__ import annotations

import os
from types import ModuleType


def _load() -> ModuleType | None:
    if os.environ.get("SIMDUP_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from . import _speedups
    except ImportError:
        return None
    return _speedups


speedups: ModuleType | None = _load()
NATIVE = speedups is not None
