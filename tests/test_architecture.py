"""Imports point one way: algorithms -> text processing -> orchestration -> presentation.

Walks every module of the package with ``ast`` (imports inside functions included) and fails on
a wrong-way arrow, so the layering in GUIDE.md cannot erode unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "simdup"

ALGORITHMS = {"hashing", "simhash", "index", "clustering", "sketch", "minhash", "similarity"}
TEXT = {
    "decoding", "normalize", "textscan", "segmentation", "features", "stopwords", "idf",
    "discovery", "processor", "blocks",
}  # fmt: skip
ORCHESTRATION = {
    "options", "engines", "workerpool", "verify", "scanning", "comparing", "calibration",
    "baseline", "outcome", "store", "config", "passages", "distributed",
}  # fmt: skip
PRESENTATION = {"report", "cli", "__main__"}
# Plain records, errors, constants and the native-extension loader: anyone may import them.
SHARED = {
    "errors", "records", "document_table", "params", "exitcodes", "names", "__about__", "native",
    "_speedups",
}  # fmt: skip

LAYER = {
    **dict.fromkeys(SHARED, 0),
    **dict.fromkeys(ALGORITHMS, 1),
    **dict.fromkeys(TEXT, 2),
    **dict.fromkeys(ORCHESTRATION, 3),
    **dict.fromkeys(PRESENTATION, 4),
}


def module_name(path: Path) -> str:
    """Dotted module name relative to the package: 'pipeline', 'report.json', ..."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


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


def internal_targets(path: Path) -> set[str]:
    """First component (inside simdup) of every internal import: 'pipeline', 'report', ..."""
    return {
        name.split(".")[1]
        for name in imported_modules(path)
        if name.startswith("simdup.") and name.count(".") >= 1
    }


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_the_walker_sees_the_package() -> None:
    """Sanity: the modules and their imports are found (so the rules below are not vacuous)."""
    names = {module_name(p) for p in MODULES}
    assert {"cli", "scanning", "index", "simhash", "report.json"} <= names
    assert "click" in imported_modules(PACKAGE / "cli.py")
    assert "scanning" in internal_targets(PACKAGE / "cli.py")
    assert "errors" in internal_targets(PACKAGE / "index.py")


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_only_cli_imports_click_and_tqdm(path: Path) -> None:
    """click and tqdm are presentation: only simdup/cli.py imports them."""
    third_party = {name.split(".")[0] for name in imported_modules(path)}
    if path != PACKAGE / "cli.py":
        assert not third_party & {"click", "tqdm"}, module_name(path)


@pytest.mark.parametrize(
    "path", [p for p in MODULES if module_name(p) in ALGORITHMS], ids=module_name
)
def test_algorithm_modules_do_not_import_pipeline_report_or_cli(path: Path) -> None:
    """hashing, simhash, index, clustering, sketch (and minhash) work on ints, strings and
    arrays: they import nothing from orchestration or presentation, nor from text processing."""
    targets = internal_targets(path)
    assert not targets & {"scanning", "report", "cli"}, module_name(path)
    assert not targets & (TEXT | ORCHESTRATION | PRESENTATION), module_name(path)


@pytest.mark.parametrize(
    "path", [p for p in MODULES if module_name(p).split(".")[0] in LAYER], ids=module_name
)
def test_imports_point_one_way(path: Path) -> None:
    """No module imports from a higher layer than its own."""
    own = LAYER[module_name(path).split(".")[0]]
    wrong = {t for t in internal_targets(path) if LAYER.get(t, 0) > own}
    assert not wrong, f"{module_name(path)} imports {sorted(wrong)} from a higher layer"


def test_every_module_has_a_layer() -> None:
    """A new module must be placed in a layer above (so the rule covers it)."""
    unplaced = {
        module_name(p).split(".")[0]
        for p in MODULES
        if module_name(p) and module_name(p).split(".")[0] not in LAYER
    }
    assert not unplaced, f"add {sorted(unplaced)} to a layer in tests/test_architecture.py"
