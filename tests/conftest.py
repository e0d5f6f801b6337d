"""Shared fixtures and the Hypothesis profiles of the test suite.

Profiles:

* ``default``: ~100 examples per property, no deadline (CI machines are slow and noisy) and
  derandomised, so every run of ``make test`` checks the same examples.
* ``fuzz``: chosen when ``SIMDUP_FUZZ_EXAMPLES`` is set (``make fuzz`` sets 20000); that many
  examples per property, randomised, for long hunts for counterexamples.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]
SAMPLE_CORPUS = REPO / "sample_corpus"
# Fixture files of the tests (tests/data: the SARIF schema, documents in other formats).
DATA = Path(__file__).resolve().parent / "data"
# The shared benchmark sits next to the repository; optional (tests using it skip without it).
BENCH_DOCS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "visible" / "docs"


@pytest.fixture(autouse=True)
def _own_scan_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """simdup caches fingerprints in the user's cache folder by default: each test (and every
    simdup process it starts, which inherits the environment) gets an empty cache folder of its
    own, so no test reads or writes the home of whoever runs it, or sees another test's
    entries."""
    monkeypatch.setenv("SIMDUP_CACHE_DIR", str(tmp_path_factory.mktemp("scan-cache")))


settings.register_profile(
    "default",
    max_examples=100,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
_FUZZ_EXAMPLES = os.environ.get("SIMDUP_FUZZ_EXAMPLES", "").strip()
if _FUZZ_EXAMPLES:
    settings.register_profile(
        "fuzz",
        max_examples=int(_FUZZ_EXAMPLES),
        deadline=None,
        derandomize=False,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    settings.load_profile("fuzz")
else:
    settings.load_profile("default")


# Encodings the ``write_doc`` fixture knows. "utf-16" writes a BOM (little-endian, as Python's
# codec does on every platform simdup supports); the explicit "-bom" names pick the byte order.
_ENCODERS: dict[str, Callable[[str], bytes]] = {
    "utf-8": lambda s: s.encode("utf-8"),
    "utf-8-sig": lambda s: s.encode("utf-8-sig"),
    "utf-16": lambda s: b"\xff\xfe" + s.encode("utf-16-le"),
    "utf-16-le-bom": lambda s: b"\xff\xfe" + s.encode("utf-16-le"),
    "utf-16-be-bom": lambda s: b"\xfe\xff" + s.encode("utf-16-be"),
    "utf-16-le": lambda s: s.encode("utf-16-le"),  # no BOM
    "utf-16-be": lambda s: s.encode("utf-16-be"),  # no BOM
    "utf-32-le-bom": lambda s: b"\xff\xfe\x00\x00" + s.encode("utf-32-le"),
    "utf-32-be-bom": lambda s: b"\x00\x00\xfe\xff" + s.encode("utf-32-be"),
    "gbk": lambda s: s.encode("gbk"),
    "gb18030": lambda s: s.encode("gb18030"),
    "big5": lambda s: s.encode("big5"),
    "cp1252": lambda s: s.encode("cp1252"),
}
ENCODINGS = tuple(_ENCODERS)


class DocWriter:
    """Writes text files in a chosen encoding under one folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __call__(
        self, name: str, text: str, encoding: str = "utf-8", *, crlf: bool = False
    ) -> Path:
        """Write ``text`` to ``root/name`` in ``encoding`` (optionally with CRLF line ends)."""
        if crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_ENCODERS[encoding](text))
        return path


@pytest.fixture
def write_doc(tmp_path: Path) -> DocWriter:
    """``write_doc(name, text, encoding="utf-8", crlf=False) -> Path`` under ``tmp_path``."""
    return DocWriter(tmp_path)


@pytest.fixture(scope="session")
def sample_corpus() -> Path:
    """The sample corpus shipped in the repository."""
    assert SAMPLE_CORPUS.is_dir(), SAMPLE_CORPUS
    return SAMPLE_CORPUS


# Pseudo-words shared by the bad-input and never-alter tests.
_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "ti",
    "vo",
    "we",
    "xu",
    "ya",
    "zo",
    "ba",
    "ce",
    "di",
    "fu",
    "ga",
    "he",
)


def pseudo_words(seed: int, n: int = 120) -> str:
    """``n`` pseudo-words (about ``n`` distinct), 12 per line; a different seed shares ~none."""
    rng = random.Random(seed)
    tokens = ["".join(rng.choice(_SYLLABLES) for _ in range(3)) for _ in range(n)]
    return "".join(" ".join(tokens[i : i + 12]) + "\n" for i in range(0, n, 12))
