"""The README documents every command and every exit code."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

from simdup.cli import all_commands
from simdup.exitcodes import EXIT_CODE_HELP, ExitCode

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
    """Each exit code of simdup.exitcodes.ExitCode has a row in the README's exit code table."""
    assert re.search(rf"^\|\s*{int(code)}\s*\|", readme, re.M), f"exit code {int(code)}"


def test_readme_exit_code_table_has_no_unknown_codes(readme: str) -> None:
    """Every code in the README table is a real ExitCode."""
    section = readme.split("### Exit codes", 1)[-1].split("\n#", 1)[0]
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


def test_shell_completion_as_documented(readme: str) -> None:
    """The README's completion line produces a bash completion script for simdup."""
    import os
    import subprocess
    import sys

    assert '_SIMDUP_COMPLETE=bash_source simdup' in readme
    env = {**os.environ, "_SIMDUP_COMPLETE": "bash_source"}
    script = subprocess.run(
        [sys.executable, "-c", "from simdup.cli import cli; cli(prog_name='simdup')"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert "complete " in script and "simdup" in script
