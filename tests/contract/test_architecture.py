"""Imports point one way: algorithms -> text and readers -> orchestration -> presentation.

A module's layer is read from its folder (``simdup/text/normalize.py`` is in ``text/``, layer
2); only the few files at the top of the package are listed by name. Every module of the package
is walked with ``ast`` (imports inside functions included), and the test fails on a wrong-way
arrow, so the layering cannot erode unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGE = REPO / "simdup"

# Layer 0: shared records, errors, constants, the native loader; 1: algorithms on ints, arrays
# and strings; 2: text processing, readers (bytes -> documents) and writers; 3: machinery (where
# work runs, how candidates are joined, what is stored, options and the exit policy); 4: the
# verbs (a scan, a comparison, a calibration, a check, passages, datasets of rows), each in its
# own rooms; 5: presentation.
FOLDERS = {
    "native": 0,
    "data": 0,
    "algorithms": 1,
    "text": 2,
    "readers": 2,
    "writers": 2,
    "engines": 3,
    "join": 3,
    "store": 3,
    "distributed": 3,
    "policy": 3,
    "scanning": 4,
    "checking": 4,
    "passages": 4,
    "rows": 4,
    "report": 5,
    "serving": 5,
    "cli": 5,
}
TOP_LEVEL = {
    **dict.fromkeys(
        ["__about__", "errors", "records", "document_table", "params", "names"], 0),
    **dict.fromkeys(["options", "config"], 3),
    **dict.fromkeys(["comparing", "calibration"], 4),
    **dict.fromkeys(["__main__"], 5),
}  # fmt: skip
VERBS = sorted(
    [name for name, layer in FOLDERS.items() if layer == 4]
    + [name for name, layer in TOP_LEVEL.items() if layer == 4]
)
# The package itself (``simdup/__init__.py``): the public names, loaded lazily from every layer.
PUBLIC = ""


def module_name(path: Path) -> str:
    """Dotted module name relative to the package: 'scanning', 'report.json', ..."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer_of(name: str) -> int | None:
    """The layer of a module named relative to the package (None: not placed)."""
    first = name.split(".")[0]
    if first in FOLDERS:
        return FOLDERS[first]
    return TOP_LEVEL.get(first)


def imported_modules(path: Path) -> set[str]:
    """Absolute names of everything ``path`` imports; package-internal ones as 'simdup.x'."""
    tree = ast.parse(path.read_text("utf-8"), str(path))
    package_parts = ["simdup", *path.relative_to(PACKAGE).parent.parts]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
                if node.module:
                    found.add(prefix)
                else:  # from . import a, b
                    found.update(f"{prefix}.{alias.name}" for alias in node.names)
            else:
                found.add(node.module or "")
    return found


def internal_imports(path: Path) -> set[str]:
    """Every internal import, relative to the package: 'text.normalize', 'records', ..."""
    return {
        name.removeprefix("simdup.")
        for name in imported_modules(path)
        if name.startswith("simdup.")
    }


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
PLACED = [p for p in MODULES if module_name(p) != PUBLIC]


def test_the_walker_sees_the_package() -> None:
    """Sanity: the modules and their imports are found (so the rules below are not vacuous)."""
    names = {module_name(p) for p in MODULES}
    assert {"scanning", "report.json", "store.index"} <= names
    # Packages inside a layer's folder take its layer (row readers are readers).
    assert layer_of("readers.rows.jsonl") == layer_of("writers.jsonl") == 2
    assert any("click" in imported_modules(p) for p in MODULES)
    assert "scanning" in internal_imports(PACKAGE / "passages" / "run.py")
    assert layer_of("report.json") == 5 and layer_of("errors") == 0
    # The loader is the package simdup.native, and the walker sees it load the extension.
    assert internal_imports(PACKAGE / "native" / "__init__.py") >= {"native._speedups"}
    assert module_name(PACKAGE / "native" / "__init__.py") == "native"


def test_every_module_has_a_layer() -> None:
    """A new module must sit in a folder of a layer, or be placed by name at the top."""
    unplaced = sorted(module_name(p) for p in PLACED if layer_of(module_name(p)) is None)
    assert not unplaced, f"place {unplaced} in a layer in tests/contract/test_architecture.py"


@pytest.mark.parametrize("path", PLACED, ids=module_name)
def test_imports_point_one_way(path: Path) -> None:
    """No module imports from a higher layer than its own."""
    own = layer_of(module_name(path))
    assert own is not None
    wrong = {t for t in internal_imports(path) if (layer_of(t) or 0) > own}
    assert not wrong, f"{module_name(path)} imports {sorted(wrong)} from a higher layer"


@pytest.mark.parametrize(
    "path", [p for p in PLACED if layer_of(module_name(p)) == 1], ids=module_name
)
def test_algorithms_import_only_shared_records(path: Path) -> None:
    """Algorithms work on ints, arrays and strings: they import nothing above layer 0 but each
    other (no text processing, orchestration or presentation)."""
    above = {t for t in internal_imports(path) if (layer_of(t) or 0) > 1}
    assert not above, module_name(path)


def _owner(path: Path) -> str:
    return module_name(path).split(".")[0]


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_only_cli_imports_click_and_tqdm(path: Path) -> None:
    """click and tqdm are presentation: only the cli imports them."""
    third_party = {name.split(".")[0] for name in imported_modules(path)}
    if _owner(path) != "cli":
        assert not third_party & {"click", "tqdm"}, module_name(path)


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_only_the_native_loader_loads_the_extension(path: Path) -> None:
    """Everyone else asks ``simdup.native`` for ``speedups`` (one switch: SIMDUP_PURE_PYTHON)."""
    loads = {t for t in internal_imports(path) if t.split(".")[-1] == "_speedups"}
    if module_name(path) != "native":
        assert not loads, module_name(path)


@pytest.mark.parametrize("path", [p for p in PLACED if layer_of(module_name(p)) == 4],
                         ids=module_name)  # fmt: skip
def test_a_verb_uses_another_only_through_its_public_names(path: Path) -> None:
    """A verb's modules are its own rooms: another verb takes what it builds on (``scan`` for
    ``scan --passages`` and ``calibrate``) from that verb's package (its ``__init__``), never
    from a module inside it."""
    own = _owner(path)
    reached = {t for t in internal_imports(path) if t.split(".")[0] in VERBS and _root(t) != own}
    inside = sorted(t for t in reached if "." in t)
    assert not inside, f"{module_name(path)} imports {inside}"


def _root(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_only_engines_and_passages_run_worker_pools(path: Path) -> None:
    """The supervised pool is the engines' tool (passages run their own stages on it)."""
    uses = {t for t in internal_imports(path) if t.split(".")[-1] == "workerpool"}
    if _owner(path) not in ("engines", "passages"):
        assert not uses, module_name(path)


ENGINE_CLASSES = ("SerialEngine", "ProcessPoolEngine", "CachedEngine", "DaskEngine", "StoredEngine")


@pytest.mark.parametrize(
    "path", [p for p in MODULES if _owner(p) == "passages"], ids=module_name
)
def test_passages_name_no_engine_class(path: Path) -> None:
    """Passages ask any engine for ``with_task``; they never choose a path by engine class."""
    tree = ast.parse(path.read_text("utf-8"))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert not names & set(ENGINE_CLASSES), module_name(path)


@pytest.mark.parametrize(
    "path", [p for p in PLACED if module_name(p).split(".")[0] == "text"], ids=module_name
)
def test_the_text_layer_reads_no_files(path: Path) -> None:
    """``text/`` turns texts into tokens and fingerprints; reading a file (a reader, its format)
    is the readers' and the engines' (``engines.work``): text never imports ``readers``."""
    readers = {t for t in internal_imports(path) if t.split(".")[0] == "readers"}
    assert not readers, f"{module_name(path)} imports {sorted(readers)}"


@pytest.mark.parametrize(
    "path", [p for p in PLACED if module_name(p).split(".")[0] == "report"], ids=module_name
)
def test_renderers_read_no_files(path: Path) -> None:
    """A renderer is a function of a result: the texts a report shows are handed in by its
    caller (``report.render(..., read=...)``), so ``report`` never imports ``readers``."""
    readers = {t for t in internal_imports(path) if t.split(".")[0] == "readers"}
    assert not readers, f"{module_name(path)} imports {sorted(readers)}"


def test_rows_writers_mirror_the_row_readers() -> None:
    """Rows are written back as they were read: a writer for each format that
    ``readers/rows/`` reads, under the same name (``output``, ``base`` and ``rows``, the
    entry, are not formats)."""
    writers = {p.stem for p in (PACKAGE / "writers").glob("*.py")}
    readers = {p.stem for p in (PACKAGE / "readers" / "rows").glob("*.py")}
    formats = writers - {"__init__", "output", "base", "rows"}
    assert formats == {"jsonl", "delimited", "parquet"}
    assert formats <= readers, sorted(formats - readers)
