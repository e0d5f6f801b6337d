"""The README documents every command and every exit code; the documentation site builds in
strict mode, and every command line shown in the README and docs/ names options that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simdup.cli import all_commands
from simdup.policy.exitcodes import EXIT_CODE_HELP, ExitCode
from tests.conftest import REPO

README = REPO / "README.md"


@pytest.fixture(scope="module")
def readme() -> str:
    if not README.exists():
        pytest.skip("README.md does not exist yet (it is being written)")
    return README.read_text("utf-8")


@pytest.mark.parametrize("command", sorted(all_commands()))
def test_readme_mentions_every_command(readme: str, command: str) -> None:
    """Each CLI command appears in the README as `simdup <command>`."""
    assert f"simdup {command}" in readme


@pytest.mark.parametrize("code", list(ExitCode), ids=lambda c: c.name)
def test_readme_lists_every_exit_code(readme: str, code: ExitCode) -> None:
    """Each exit code of ``policy.exitcodes.ExitCode`` has a row in the README's exit codes."""
    assert re.search(rf"^\|\s*{int(code)}\s*\|", readme, re.M), f"exit code {int(code)}"


def test_readme_exit_code_table_has_no_unknown_codes(readme: str) -> None:
    """Every code in the README table is a real ExitCode."""
    section = readme.split("## Exit codes", 1)[-1].split("\n#", 1)[0]
    listed = {int(m) for m in re.findall(r"^\|\s*(\d+)\s*\|", section, re.M)}
    assert listed == {int(c) for c in ExitCode}


@pytest.mark.parametrize("code", list(ExitCode), ids=lambda c: c.name)
def test_help_text_lists_every_exit_code(code: ExitCode) -> None:
    """The exit-code block shown by every --help names each code."""
    assert re.search(rf"^\s+{int(code)}\s+\S", EXIT_CODE_HELP, re.M)


@pytest.mark.parametrize("command", sorted(all_commands()))
def test_every_command_has_help(command: str) -> None:
    """Every command has a docstring summary (shown by simdup --help)."""
    assert all_commands()[command].help
    assert all_commands()[command].get_short_help_str()


def test_shell_completion_as_documented() -> None:
    """The reference's completion line produces a bash completion script for simdup."""
    import os
    import subprocess
    import sys

    assert "_SIMDUP_COMPLETE=bash_source simdup" in (REPO / "docs" / "reference.md").read_text()
    env = {**os.environ, "_SIMDUP_COMPLETE": "bash_source"}
    script = subprocess.run(
        [sys.executable, "-c", "from simdup.cli import cli; cli(prog_name='simdup')"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert "complete " in script and "simdup" in script


def test_documentation_site_builds_in_strict_mode(tmp_path: Path) -> None:
    """mkdocs.yml builds docs/ with no warning: no broken link or anchor, no page left out."""
    pytest.importorskip("mkdocs")
    import subprocess
    import sys

    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"),
         "-d", str(tmp_path / "site")],
        capture_output=True, text=True, timeout=300, cwd=REPO,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "check" / "index.html").exists()


def _shown_command_lines() -> list[tuple[str, str]]:
    """Every ``simdup ...`` line of a shell block of the README and of docs/ (continuations
    joined, comments dropped), with the file it is in."""
    found = []
    for path in [README, *sorted((REPO / "docs").glob("*.md"))]:
        text = path.read_text("utf-8")
        for block in re.findall(r"^```(?:sh|bash|console)\n(.*?)^```", text, re.M | re.S):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.strip().removeprefix("$ ")
                at = line.find("simdup ")
                if at < 0 or line.startswith(("#", "pip ", "make ")) or "=" in line[:at]:
                    continue
                found.append((path.name, line[at:]))
    return found


SHOWN = _shown_command_lines()


def test_the_documents_show_command_lines() -> None:
    assert len(SHOWN) > 30


@pytest.mark.parametrize(("page", "line"), SHOWN, ids=[f"{p}:{ln[:50]}" for p, ln in SHOWN])
def test_every_shown_command_line_names_options_that_exist(page: str, line: str) -> None:
    """The command (and sub-command) exists and takes every option the line gives it."""
    import shlex

    import click

    words = shlex.split(line.split(" #", 1)[0].split(" | ", 1)[0].split(" > ", 1)[0],
                        comments=True)  # fmt: skip
    command: click.Command = all_commands()[words[1]]
    rest = words[2:]
    while isinstance(command, click.Group) and rest and rest[0] in command.commands:
        command, rest = command.commands[rest[0]], rest[1:]
    known = {name for p in command.params for name in (*p.opts, *p.secondary_opts)} | {"--help"}
    for word in rest:
        if word.startswith("-") and word != "-" and not re.fullmatch(r"-\d.*", word):
            assert word.split("=", 1)[0] in known, f"{page}: `{line}`: {word} is not an option"


def test_every_module_the_internals_page_names_exists() -> None:
    """docs/internals.md names the package's folders and modules by path (``rows/decon/``,
    ``engines/backend.py``): each one exists, so a move that forgets the page fails here."""
    page = (REPO / "docs" / "internals.md").read_text("utf-8")
    named = set(re.findall(r"`([\w./]+(?:/|\.py|\.c|\.h|\.txt|\.npz))`", page))
    package = REPO / "simdup"
    where = {n: [package / n, REPO / n] for n in named if "/" in n}
    missing = sorted(n for n, places in where.items() if not any(p.exists() for p in places))
    assert len(where) > 40  # the walk sees the page's paths
    assert not missing, f"docs/internals.md names {missing}, which do not exist"
    # A module named alone (``dedup_files.py``) is some module of the package.
    files = {p.name for p in package.rglob("*") if p.is_file()}
    alone = sorted(n for n in named if "/" not in n and n not in files)
    assert not alone, f"docs/internals.md names {alone}, which are no files of the package"
